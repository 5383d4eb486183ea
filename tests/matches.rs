//! `konakis match` against scripted fake engines and against itself.

mod common;

use konakis::records::game::GameRecord;
use std::process::Command;

const KONAKIS: &str = env!("CARGO_BIN_EXE_konakis");
const FAKE: &str = env!("CARGO_BIN_EXE_konakis-fake-engine");

fn run_match(args: &[&str]) -> (String, String, bool) {
    run_konakis("match", args)
}

/// stdout, stderr and success of `konakis <subcommand> <args>`.
fn run_konakis(subcommand: &str, args: &[&str]) -> (String, String, bool) {
    let out = Command::new(KONAKIS)
        .arg(subcommand)
        .args(args)
        .output()
        .expect("run konakis");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

fn records(path: &std::path::Path) -> Vec<GameRecord> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| GameRecord::parse(l).unwrap())
        .collect()
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("konakis-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Each misbehaviour ends the game as a loss for the fake with the right
/// reason, and the match goes on to the end.
#[test]
fn misbehaving_engines_lose_and_the_match_completes() {
    for (mode, reason, extra) in [
        ("crash", "crash", vec!["--depth", "1"]),
        ("timeout", "time", vec!["--tc", "0.5+0"]),
        ("timeout", "stall", vec!["--depth", "1", "--stall", "300"]),
        ("illegal", "illegal-move", vec!["--depth", "1"]),
        ("garbage", "illegal-move", vec!["--depth", "1"]),
    ] {
        let rec = tmp(&format!("fake-{mode}-{reason}.txt"));
        let fake = format!("cmd={FAKE}");
        let me = format!("cmd={KONAKIS}");
        let fake_args = [
            "arg=--mode",
            &format!("arg={mode}"),
            "arg=--after",
            "arg=2",
            "name=fake",
        ];
        let mut args = vec!["--engine", &fake];
        args.extend(fake_args.iter().copied());
        args.extend(["--engine", &me, "name=konakis", "--games", "4", "--records"]);
        let rec_s = rec.to_string_lossy().to_string();
        args.push(&rec_s);
        args.extend(extra.iter().copied());
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        let (stdout, stderr, ok) = run_match(&refs);
        assert!(ok, "{mode}: {stdout}\n{stderr}");
        let recs = records(&rec);
        assert_eq!(recs.len(), 4, "{mode}: the match completes");
        for r in &recs {
            let fake_side = if r.attackers == "fake" {
                "attackers"
            } else {
                "defenders"
            };
            let fake_lost = r.winner.map(|s| s.name() != fake_side).unwrap_or(false);
            if r.reason.name() == reason {
                assert!(fake_lost, "{mode}: {}", r.line());
            } else {
                // A game may also end by the rules before the fake misbehaves.
                assert!(
                    !r.reason.name().contains("crash") || mode == "crash",
                    "{mode}: {}",
                    r.line()
                );
            }
            r.replay().unwrap_or_else(|e| panic!("{mode}: {e}"));
        }
        assert!(
            recs.iter().any(|r| r.reason.name() == reason),
            "{mode}: no game ended by {reason}: {stdout}"
        );
        assert!(
            stdout.contains(&format!("{reason} ")),
            "{mode}: report lists the reason: {stdout}"
        );
    }
}

#[test]
fn a_real_match_replays_identically() {
    let rec = tmp("real.txt");
    let me = format!("cmd={KONAKIS}");
    let (stdout, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "name=a",
        "option.Hash=8",
        "--engine",
        &me,
        "name=b",
        "option.Hash=8",
        "--variant",
        "brandubh",
        "--depth",
        "2",
        "--games",
        "6",
        "--repeat",
        "--concurrency",
        "2",
        "--openings",
        "random:2",
        "--records",
        rec.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("pairs (pentanomial"), "{stdout}");
    assert!(stdout.contains("sides: attackers"), "{stdout}");
    let recs = records(&rec);
    assert_eq!(recs.len(), 6);
    for r in &recs {
        let game = r.replay().unwrap();
        // Ended by the rules, or adjudicated while still in play.
        assert_eq!(
            game.outcome().is_some(),
            !r.reason.adjudicated(),
            "{}",
            r.line()
        );
        assert_eq!(
            GameRecord::parse(&r.line()).unwrap(),
            *r,
            "records round-trip"
        );
    }
    let out = Command::new(KONAKIS)
        .arg("replay")
        .arg(&rec)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The match stops where the ratio first crosses a bound, and says so;
/// `konakis stats --sprt` on its records, read in order, finds the same
/// stop.
#[test]
fn sprt_stops_a_decided_match() {
    let me = format!("cmd={KONAKIS}");
    let rec = tmp("sprt-records.txt");
    let rec_s = rec.to_string_lossy().to_string();
    let fake = format!("cmd={FAKE}");
    let (stdout, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "name=strong",
        "--engine",
        &fake,
        "name=weak",
        "arg=--mode",
        "arg=crash",
        "arg=--after",
        "arg=0",
        "--depth",
        "1",
        "--games",
        "200",
        "--repeat",
        "--sprt",
        "elo0=0",
        "elo1=50",
        "alpha=0.05",
        "beta=0.05",
        "--records",
        &rec_s,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("H1 accepted at game "), "{stdout}");
    let sprt_line = |report: &str| {
        report
            .lines()
            .find(|l| l.contains("SPRT"))
            .map(str::to_string)
    };
    let out = Command::new(KONAKIS)
        .args(["stats", &rec_s, "--sprt", "elo0=0", "elo1=50"])
        .args(["alpha=0.05", "beta=0.05"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let merged = String::from_utf8_lossy(&out.stdout);
    assert_eq!(sprt_line(&merged), sprt_line(&stdout), "{merged}");
    let games: u32 = stdout
        .split(", ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(games < 200, "{stdout}");
}

/// An engine that cannot start, or refuses a setting, stops the match
/// before it begins, with the reason (it used to be scored as crash losses
/// with status 0). So do --games 0 and --concurrency 0.
#[test]
fn matches_that_cannot_be_played_are_refused() {
    let dir = tmp("not-an-engine");
    std::fs::create_dir_all(&dir).unwrap();
    let plain = tmp("plain-file.txt");
    std::fs::write(&plain, "not a program").unwrap();
    let me = format!("cmd={KONAKIS}");
    let fake = format!("cmd={FAKE}");
    let dir_cmd = format!("cmd={}", dir.display());
    let plain_cmd = format!("cmd={}", plain.display());
    let no_readyok = [fake.as_str(), "arg=--mode", "arg=no-readyok"];
    for (engine, named) in [
        (vec!["cmd=/nonexistent/engine"], "/nonexistent/engine"),
        (vec![dir_cmd.as_str()], "not-an-engine"),
        (vec![plain_cmd.as_str()], "plain-file.txt"),
        (no_readyok.to_vec(), "readyok"),
        (vec![me.as_str(), "option.Hash=-3"], "-3"),
        (vec![me.as_str(), "option.Frobnicate=1"], "Frobnicate"),
    ] {
        let mut args = vec!["--engine", me.as_str(), "--engine"];
        args.extend(engine.iter().copied());
        args.extend(["--depth", "1", "--games", "2"]);
        let (stdout, stderr, ok) = run_match(&args);
        assert!(!ok, "{engine:?}: {stdout}");
        assert!(
            stderr.starts_with("konakis: error:") && stderr.contains(named),
            "{engine:?} should be named ({named}): {stderr}"
        );
    }
    for (flag, value) in [("--games", "0"), ("--concurrency", "0")] {
        let (stdout, stderr, ok) = run_match(&[
            "--engine", &me, "--engine", &me, "--depth", "1", flag, value,
        ]);
        assert!(
            !ok && stderr.contains(flag),
            "{flag} {value}: {stdout} {stderr}"
        );
    }
}

/// An SPRT over pairs that all split 1-1 must not decide after one pair
/// (the variance was zero and the LLR minus infinity), and it stops only
/// on whole pairs.
#[test]
fn sprt_needs_more_than_one_split_pair_and_stops_on_whole_pairs() {
    let me = format!("cmd={KONAKIS}");
    let (stdout, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "name=a",
        "--engine",
        &me,
        "name=b",
        "--variant",
        "brandubh",
        "--depth",
        "2",
        "--games",
        "12",
        "--repeat",
        "--sprt",
        "elo0=0",
        "elo1=10",
        "alpha=0.05",
        "beta=0.05",
        "--seed",
        "5",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let games: u32 = stdout
        .split(", ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(games > 2, "decided after {games} games: {stdout}");
    assert_eq!(games % 2, 0, "a half pair was played: {stdout}");
}

#[test]
fn bad_arguments_are_errors() {
    for args in [
        vec!["--engine", "cmd=x"],
        vec!["--engine", "cmd=x", "--engine", "cmd=y", "--tc", "abc"],
        vec![
            "--engine",
            "cmd=x",
            "--engine",
            "cmd=y",
            "--depth",
            "1",
            "--movetime",
            "5",
        ],
        vec!["--engine", "nocmd", "--engine", "cmd=y", "--depth", "1"],
        vec![
            "--engine",
            "cmd=x",
            "--engine",
            "cmd=y",
            "--depth",
            "1",
            "--variant",
            "chess",
        ],
    ] {
        let (_, stderr, ok) = run_match(&args);
        assert!(!ok && stderr.contains("error"), "{args:?}: {stderr}");
    }
}

/// Short controls, no time margin, and a loaded machine (eight search
/// threads per engine on this test's cores): nobody loses on time.
#[test]
fn short_controls_under_load_never_lose_on_time() {
    let rec = tmp("clock.txt");
    let me = format!("cmd={KONAKIS}");
    let (stdout, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "name=a",
        "option.Threads=8",
        "option.Hash=8",
        "--engine",
        &me,
        "name=b",
        "option.Threads=8",
        "option.Hash=8",
        "--variant",
        "tablut",
        "--tc",
        "1+0.03",
        "--timemargin",
        "0",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--records",
        rec.to_str().unwrap(),
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let recs = records(&rec);
    assert_eq!(recs.len(), 4);
    for r in &recs {
        assert_ne!(r.reason.name(), "time", "{}", r.line());
    }
}

/// The runner ends games on the engines' own scores: a resignation when
/// one engine is hopeless and the other agrees, a draw when both stay near
/// zero, a draw at the length limit. Records keep each move's score and
/// replay as games still in play.
#[test]
fn games_are_adjudicated_on_the_engines_scores() {
    let fake = format!("cmd={FAKE}");
    let cases: [(&str, &str, Vec<&str>, &str); 3] = [
        (
            "-2000",
            "2000",
            vec![
                "--resign",
                "movecount=2",
                "score=1000",
                "twosided=true",
                "--maxplies",
                "0",
            ],
            "adjudicated-resign",
        ),
        (
            "3",
            "-4",
            vec![
                "--draw",
                "movenumber=6",
                "movecount=2",
                "score=10",
                "--resign",
                "off",
            ],
            "adjudicated-draw",
        ),
        (
            "0",
            "0",
            // datagen's spelling is accepted too
            vec!["--max-plies", "5", "--resign", "off"],
            "adjudicated-length",
        ),
    ];
    for (a_score, b_score, extra, reason) in cases {
        let rec = tmp(&format!("adjudicated-{reason}.txt"));
        let a_arg = format!("arg={a_score}");
        let b_arg = format!("arg={b_score}");
        let rec_s = rec.to_string_lossy().to_string();
        let mut args = vec![
            "--engine",
            &fake,
            "name=a",
            "arg=--score",
            &a_arg,
            "--engine",
            &fake,
            "name=b",
            "arg=--score",
            &b_arg,
            "--depth",
            "1",
            "--games",
            "2",
            "--repeat",
            "--records",
            &rec_s,
        ];
        args.extend(extra.iter().copied());
        let (stdout, stderr, ok) = run_match(&args);
        assert!(ok, "{reason}: {stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("{reason} 2")),
            "{reason}: {stdout}"
        );
        for r in records(&rec) {
            assert_eq!(r.reason.name(), reason, "{}", r.line());
            let game = r.replay().expect("an adjudicated game replays");
            assert!(game.outcome().is_none(), "still in play: {}", r.line());
            assert!(r.moves.iter().any(|m| m.score.is_some()), "{}", r.line());
            if reason == "adjudicated-resign" {
                // Engine a, hopeless, loses with either side.
                let loser = if r.attackers == "a" {
                    "attackers"
                } else {
                    "defenders"
                };
                assert_ne!(r.winner.map(|s| s.name()), Some(loser), "{}", r.line());
            } else {
                assert_eq!(r.winner, None);
            }
        }
    }
}

/// `konakis openings` builds opening files from the three record formats,
/// without repeats, and `match --openings` plays them.
#[test]
fn openings_from_game_records_load_in_match() {
    let csv = common::cases_dir().join("real/copenhagen.csv");
    let csv = csv.to_string_lossy().to_string();
    let openings = |args: &[&str]| -> Vec<String> {
        let out = Command::new(KONAKIS)
            .arg("openings")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    // People's games: no repeats, even from the same file given twice.
    let once = openings(&["--variant", "copenhagen", "--from", &csv, "--plies", "4"]);
    let twice = openings(&[
        "--variant",
        "copenhagen",
        "--from",
        &csv,
        &csv,
        "--plies",
        "4",
    ]);
    assert_eq!(once, twice);
    let unique: std::collections::HashSet<&String> = once.iter().collect();
    assert_eq!(unique.len(), once.len());
    assert!(once.len() > 100 && once.iter().all(|l| l.starts_with("startpos moves ")));
    // A short search leaves lopsided ones out.
    let balanced = openings(&[
        "--variant",
        "copenhagen",
        "--from",
        &csv,
        "--plies",
        "4",
        "--count",
        "60",
        "--balanced",
        "2",
        "--margin",
        "60",
    ]);
    assert!(!balanced.is_empty() && balanced.len() <= 60);
    // The runner's records, and OpenTafl's records of the same games.
    let rec = tmp("for-openings.txt");
    let me = format!("cmd={KONAKIS}");
    let rec_s = rec.to_string_lossy().to_string();
    let (stdout, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "--engine",
        &me,
        "--variant",
        "brandubh",
        "--depth",
        "1",
        "--games",
        "4",
        "--openings",
        "random:2",
        "--records",
        &rec_s,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let from_records = openings(&["--variant", "brandubh", "--from", &rec_s, "--plies", "3"]);
    let otr = tmp("for-openings.otr");
    let out = Command::new(KONAKIS)
        .args(["replay", "--opentafl", &rec_s])
        .output()
        .unwrap();
    std::fs::write(&otr, &out.stdout).unwrap();
    let otr_s = otr.to_string_lossy().to_string();
    let from_opentafl = openings(&["--variant", "brandubh", "--from", &otr_s, "--plies", "3"]);
    assert!(!from_records.is_empty());
    assert_eq!(from_records, from_opentafl);
    // Another variant's records are refused.
    let out = Command::new(KONAKIS)
        .args([
            "openings",
            "--variant",
            "tablut",
            "--from",
            &rec_s,
            "--plies",
            "3",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // The file plays.
    let file = tmp("people-openings.txt");
    std::fs::write(&file, once[..6].join("\n")).unwrap();
    let file_s = file.to_string_lossy().to_string();
    let (stdout, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "--engine",
        &me,
        "--variant",
        "copenhagen",
        "--depth",
        "1",
        "--games",
        "2",
        "--openings",
        &file_s,
    ]);
    assert!(ok && stdout.contains("2 games"), "{stdout}\n{stderr}");
}

/// Shards run separately (through docs/cluster/run-shard.sh, as a Slurm
/// array job and as a Kubernetes Indexed Job would run them) and merged by
/// `konakis stats` give the report of the whole match, exactly.
#[test]
fn shards_merge_into_the_whole_match() {
    let me = format!("cmd={KONAKIS}");
    let common = [
        "--engine",
        &me,
        "name=a",
        "--engine",
        &me,
        "name=b",
        "--variant",
        "brandubh",
        "--depth",
        "2",
        "--games",
        "10",
        "--repeat",
        "--openings",
        "random:2",
        "--seed",
        "7",
    ];
    let whole = tmp("whole.txt");
    let whole_s = whole.to_string_lossy().to_string();
    let mut args = common.to_vec();
    args.extend(["--records", &whole_s]);
    let (whole_report, stderr, ok) = run_match(&args);
    assert!(ok, "{stderr}");
    let script =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/cluster/run-shard.sh");
    for (scheduler, env) in [
        (
            "slurm",
            [("SLURM_ARRAY_TASK_ID", ""), ("SLURM_ARRAY_TASK_COUNT", "3")],
        ),
        (
            "kubernetes",
            [("JOB_COMPLETION_INDEX", ""), ("SHARDS", "3")],
        ),
    ] {
        let dir = tmp(&format!("shards-{scheduler}"));
        let _ = std::fs::remove_dir_all(&dir);
        for k in 0..3 {
            let k = k.to_string();
            let out = Command::new("sh")
                .arg(&script)
                .arg(&dir)
                .args(common)
                .env("KONAKIS", KONAKIS)
                .env(env[0].0, &k)
                .env(env[1].0, env[1].1)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{scheduler} {k}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let files: Vec<String> = (0..3)
            .map(|k| {
                dir.join(format!("shard-{k}.txt"))
                    .to_string_lossy()
                    .to_string()
            })
            .collect();
        let out = Command::new(KONAKIS)
            .arg("stats")
            .args(&files)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            whole_report,
            "{scheduler}"
        );
    }
    // The same game twice, or a shard of another match, is refused.
    let out = Command::new(KONAKIS)
        .args(["stats", &whole_s, &whole_s])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let (_, stderr, ok) = run_match(&[
        "--engine",
        &me,
        "--engine",
        &me,
        "--depth",
        "1",
        "--games",
        "2",
        "--shard",
        "0/2",
        "--sprt",
        "elo0=0",
        "elo1=10",
        "alpha=0.05",
        "beta=0.05",
    ]);
    assert!(!ok && stderr.contains("konakis stats"), "{stderr}");
}

/// A test continued over runs whose records are gone: `konakis stats
/// --pairs` adds the pair counts a report printed to the records' pairs,
/// and gives the same totals however the runs are carried. Two runs'
/// records read together count as one test, the later run after the earlier.
#[test]
fn carried_pair_counts_join_the_records() {
    let me = format!("cmd={KONAKIS}");
    let mut reports = Vec::new();
    let mut files = Vec::new();
    for seed in ["7", "8"] {
        let file = tmp(&format!("carried-{seed}.txt"));
        let file_s = file.to_string_lossy().to_string();
        let (report, stderr, ok) = run_match(&[
            "--engine",
            &me,
            "name=a",
            "--engine",
            &me,
            "name=b",
            "--variant",
            "brandubh",
            "--depth",
            "1",
            "--games",
            "6",
            "--repeat",
            "--openings",
            "random:2",
            "--seed",
            seed,
            "--records",
            &file_s,
        ]);
        assert!(ok, "{stderr}");
        reports.push(report);
        files.push(file_s);
    }
    let counts = |report: &str| -> Vec<u32> {
        let line = report
            .lines()
            .find(|l| l.contains("pentanomial"))
            .unwrap_or_else(|| panic!("no pair counts in {report}"));
        let nums: Vec<u32> = line
            .rsplit(':')
            .next()
            .unwrap()
            .split_whitespace()
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(nums.len(), 5, "{line}");
        nums
    };
    let (first, second) = (counts(&reports[0]), counts(&reports[1]));
    let carried = |c: &[u32]| c.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let total: Vec<u32> = first.iter().zip(&second).map(|(a, b)| a + b).collect();
    let stats = |args: &[&str]| run_konakis("stats", args);
    let sprt = ["--sprt", "elo0=0", "elo1=10", "alpha=0.05", "beta=0.05"];
    let with_records = {
        let mut a = vec![files[1].as_str(), "--pairs"];
        let c = carried(&first);
        a.push(&c);
        a.extend(sprt);
        stats(&a)
    };
    assert!(with_records.2, "{}", with_records.1);
    let counts_only = {
        let (c1, c2) = (carried(&first), carried(&second));
        let mut a = vec!["--pairs", &c1, "--pairs", &c2];
        a.extend(sprt);
        stats(&a)
    };
    assert!(counts_only.2, "{}", counts_only.1);
    let carried_section = |out: &str| -> String {
        out.lines()
            .skip_while(|l| !l.starts_with("Carried pairs"))
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    for out in [&with_records.0, &counts_only.0] {
        let head = out
            .lines()
            .find(|l| l.starts_with("Carried pairs"))
            .unwrap();
        let want = total
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(head.ends_with(&want), "{head} / {want}");
        assert!(out.contains("SPRT elo0 0 elo1 10"), "{out}");
    }
    assert_eq!(
        carried_section(&with_records.0),
        carried_section(&counts_only.0)
    );
    // Malformed counts, and nothing to read, are errors.
    for bad in [
        vec!["--pairs", "1,2,3"],
        vec!["--pairs", "1,2,x,4,5"],
        vec![],
    ] {
        let (_, stderr, ok) = stats(&bad);
        assert!(!ok && !stderr.is_empty(), "{bad:?}");
    }
    // The two runs' records together: the second run's games are numbered
    // after the first's, and the pairs are both runs' pairs.
    let (merged, stderr, ok) = stats(&[files[0].as_str(), files[1].as_str()]);
    assert!(ok, "{stderr}");
    assert!(merged.contains("later runs"), "{merged}");
    assert!(merged.contains("games 7+"), "{merged}");
    assert_eq!(counts(&merged), total, "{merged}");
    assert!(merged.contains(", 12 games,"), "{merged}");
    // The same records twice are the same games, not another run.
    let (_, stderr, ok) = stats(&[files[0].as_str(), files[0].as_str()]);
    assert!(!ok && stderr.contains("recorded twice"), "{stderr}");
}

/// `konakis openings` takes the rules the records name, and says why it
/// has no openings instead of writing an empty file: records that name no
/// rules need --variant, games that do not replay under the rules asked
/// for are counted with the first reason, and plies beyond every game are
/// named.
#[test]
fn openings_say_why_they_have_none() {
    let csv = common::cases_dir().join("real/copenhagen.csv");
    let csv = csv.to_string_lossy().to_string();
    let openings = |args: &[&str]| {
        let out = Command::new(KONAKIS)
            .arg("openings")
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, _, err) = openings(&["--from", &csv, "--plies", "8", "--count", "5"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--variant"), "{err}");
    let (code, _, err) = openings(&["--variant", "tablut", "--from", &csv, "--plies", "8"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("games cannot be replayed under tablut"),
        "{err}"
    );
    assert!(err.contains("--variant"), "{err}");
    let (code, _, err) = openings(&["--variant", "copenhagen", "--from", &csv, "--plies", "5000"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("no game is longer than --plies 5000"), "{err}");
    // Records that name their rules need no --variant.
    let rec = tmp("named-openings.txt");
    std::fs::write(
        &rec,
        "konakis-game 1 | game 1 | variant brandubh | rules - | start startpos | attackers a | defenders b | result draw unfinished | plies 4 | moves d6-f6:0 d5-f5:0 d7-e7:0 d4-d5:0\n",
    )
    .unwrap();
    let (code, out, err) = openings(&["--from", &rec.to_string_lossy(), "--plies", "3"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("startpos moves d6-f6 d5-f5 d7-e7"), "{out}");
}

/// `konakis stats` merges what it is given, but says when the files may
/// not be one match: some in pairs and some not, or other rule changes.
/// Its Elo interval gives both ends, unbounded ones named.
#[test]
fn stats_warns_about_files_that_may_not_be_one_match() {
    let line = |n: usize, opening: Option<usize>, rules: &str, a: &str, d: &str, winner: &str| {
        let opening = opening
            .map(|o| format!(" | opening {o}"))
            .unwrap_or_default();
        format!("konakis-game 1 | game {n}{opening} | variant brandubh | rules {rules} | start startpos | attackers {a} | defenders {d} | result {winner} unfinished | plies 0 | moves \n")
    };
    let paired = tmp("stats-paired.rec");
    std::fs::write(
        &paired,
        line(1, Some(0), "-", "new", "old", "draw") + &line(2, Some(0), "-", "old", "new", "draw"),
    )
    .unwrap();
    let single = tmp("stats-single.rec");
    std::fs::write(
        &single,
        line(3, None, "-", "new", "old", "draw") + &line(4, None, "-", "old", "new", "draw"),
    )
    .unwrap();
    let other = tmp("stats-other.rec");
    std::fs::write(
        &other,
        line(5, Some(2), "KingArmed=false", "new", "old", "draw")
            + &line(6, Some(2), "KingArmed=false", "old", "new", "draw"),
    )
    .unwrap();
    let stats = |files: &[&std::path::PathBuf]| {
        let out = Command::new(KONAKIS)
            .arg("stats")
            .args(files)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let report = stats(&[&paired, &paired.clone()][..1]);
    assert!(!report.contains("warning"), "{report}");
    assert!(
        report.contains("Elo +0.0 ± ") && report.contains(" ["),
        "{report}"
    );
    let report = stats(&[&paired, &single]);
    assert!(
        report.contains("holds games in pairs (--repeat)"),
        "{report}"
    );
    let report = stats(&[&paired, &other]);
    assert!(report.contains("other rule changes"), "{report}");
}
