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

/// Errors on the command line are worded for the command line: the flag
/// at fault, not a protocol option or a Rust error.
#[test]
fn errors_name_the_flag_at_fault() {
    let dir = std::env::temp_dir().join(format!("konakis-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let binary = dir.join("binary.rec");
    std::fs::write(&binary, [0xff_u8, 0xfe, 0x00, 0x81, 0x9c, 0x00, 0xc3]).unwrap();
    let binary = binary.to_string_lossy().to_string();
    let out = dir.join("never.bin").to_string_lossy().to_string();
    let record7 = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["bench", "--evalfile", "/nope"], "--evalfile: /nope"),
        (
            vec!["perft", "--position", record7, "2"],
            "--position is a 7x7 board, but --variant tablut plays on 9x9",
        ),
        (vec!["perft", "--side", "d", "2"], "--side needs --position"),
        (
            vec![
                "perft",
                "--variant",
                "brandubh",
                "--position",
                record7,
                "--side",
                "x",
                "2",
            ],
            "--side: unknown side 'x'",
        ),
        (
            vec!["stats", &binary],
            "not a records file (it is not text)",
        ),
        (
            vec!["replay", &binary],
            "not a records file (it is not text)",
        ),
        (
            vec![
                "tune",
                "--data",
                &binary,
                "--validation",
                "1.5",
                "--out",
                &out,
            ],
            "--validation must be from 0 to below 0.9, not 1.5",
        ),
        (
            vec!["datagen", "--eval", "foo", "--games", "1", "--out", &out],
            "--eval takes learned, hand, nnue, classic, not 'foo'",
        ),
    ];
    for (args, expected) in cases {
        let (code, _, err) = konakis(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(
            !err.contains("the net in use is kept") && !err.contains("option Eval"),
            "{err}"
        );
    }
    assert!(!std::path::Path::new(&out).exists());
    // replay takes several files, as stats does.
    let (code, _, err) = konakis(&["replay", &binary, &binary]);
    assert_eq!(code, Some(2));
    assert!(err.contains("not a records file"), "{err}");
}

/// `konakis spsa` plays the engine against itself with opposite
/// perturbations and ends with the options that play the tuned numbers;
/// a tunable that does not exist is refused with the list.
#[test]
fn spsa_tunes_and_prints_the_options_it_found() {
    let engine = format!("cmd={}", env!("CARGO_BIN_EXE_konakis"));
    let (code, out, err) = konakis(&[
        "spsa",
        "--engine",
        &engine,
        "--variant",
        "brandubh",
        "--tc",
        "0.3+0.01",
        "--iterations",
        "2",
        "--param",
        "AspirationWindow",
        "--param",
        "TuneLmpBase",
    ]);
    assert_eq!(code, Some(0), "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "# iteration result AspirationWindow LmpBase",
        "{out}"
    );
    assert!(
        lines[1].starts_with("1 ") && lines[2].starts_with("2 "),
        "{out}"
    );
    let last = lines.last().copied().unwrap_or_default();
    assert!(
        last.starts_with("# tuned: option.TuneAspirationWindow=")
            && last.contains(" option.TuneLmpBase="),
        "{out}"
    );
    let (code, _, err) = konakis(&["spsa", "--engine", &engine, "--param", "Nope"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no tunable named 'Nope'") && err.contains("FutilityMarginPerPly"),
        "{err}"
    );
}
