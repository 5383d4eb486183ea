//! The command line: what it prints and how it exits, on good and bad input.

use std::process::Command;

fn konakis(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_konakis"))
        .args(args)
        .output()
        .expect("run konakis");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_counts_and_refuses_illegal_rules() {
    let (code, out, _) = konakis(&["perft", "--variant", "brandubh", "3"]);
    assert_eq!(code, Some(0));
    assert!(out.ends_with("nodes 39512\n"), "{out}");
    // A soldier on the throne (issue 10, defect 1: this printed nodes 0).
    let (code, out, err) = konakis(&[
        "perft",
        "--rule",
        "Start=/3ttt3/4t4/4T4/t3K3t/ttTTtTTtt/t3T3t/4T4/4t4/3ttt3/",
        "2",
    ]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        err.starts_with("konakis: error:") && err.contains("e5"),
        "{err}"
    );
    for (args, named) in [
        (vec!["perft", "--variant", "chess", "2"], "chess"),
        (vec!["perft", "--rule", "Escape=sky", "2"], "sky"),
        (vec!["perft", "--rule", "PlyLimit=100001", "2"], "100001"),
        (vec!["perft", "--position", "/9/", "2"], "/9/"),
        (
            vec![
                "perft",
                "--position",
                "/9/9/9/9/4K4/9/9/9/9/",
                "--side",
                "q",
                "2",
            ],
            "'q'",
        ),
    ] {
        let (code, _, err) = konakis(&args);
        assert_eq!(code, Some(2), "{args:?}");
        assert!(err.contains(named), "{args:?} should name {named}: {err}");
    }
}

/// Argument errors, clap's own among them, read `konakis: error: …` and
/// exit 2; help and version exit 0. Depth ranges agree with the protocol.
#[test]
fn argument_errors_have_one_form() {
    for args in [
        vec!["perft", "x"],
        vec!["--bogus"],
        vec!["perft", "0"],
        vec!["perft", "21"],
        vec!["bench", "65"],
        vec!["bench", "--threads", "0"],
        vec!["otep", "--hash", "0"],
        vec!["match", "--engine", "cmd=a"],
    ] {
        let (code, _, err) = konakis(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.starts_with("konakis: error:"), "{args:?}: {err}");
    }
    for args in [vec!["--help"], vec!["--version"], vec!["perft", "--help"]] {
        let (code, out, _) = konakis(&args);
        assert_eq!(code, Some(0), "{args:?}");
        assert!(!out.is_empty());
    }
}
