//! Training data and tuning: `konakis datagen` files round-trip, the same
//! seed gives the same file whatever the threads, appending works, and bad
//! input gets a clear error.

use konakis::learn::data::read_file;
use konakis::rules::{Preset, Rules};
use std::process::Command;

fn konakis(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_konakis"))
        .args(args)
        .output()
        .expect("run konakis");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The engine's output for a protocol script on its input.
fn engine_session(script: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_konakis"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(script.as_bytes())?;
            child.wait_with_output()
        })
        .expect("run the engine");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tmp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("konakis-learn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    path.to_string_lossy().into_owned()
}

fn datagen(out: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "datagen",
        "--variant",
        "brandubh",
        "--nodes",
        "500",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = konakis(&args);
    assert!(ok, "{stdout}\n{stderr}");
    stdout
}

#[test]
fn datagen_files_are_reproducible_and_read_back() {
    let a = tmp("a.bin");
    let b = tmp("b.bin");
    datagen(&a, &["--games", "12", "--seed", "9", "--threads", "2"]);
    datagen(&b, &["--games", "12", "--seed", "9", "--threads", "1"]);
    let bytes = std::fs::read(&a).unwrap();
    assert_eq!(bytes, std::fs::read(&b).unwrap(), "same seed, same file");
    let file = read_file(&a).unwrap();
    assert_eq!(file.rules_text, "brandubh");
    assert!(!file.records.is_empty());
    let rules = Rules::preset(Preset::Brandubh);
    let mut games = std::collections::BTreeMap::new();
    for r in &file.records {
        let pos = r.position(&rules).expect("a legal position");
        // Positions that teach nothing are left out.
        assert!(r.score.abs() < 29_000);
        let best = r.best.expect("a best move");
        assert!(pos.is_legal(&rules, best));
        assert_eq!(pos.make(&rules, best).captured, 0);
        // One result per game.
        assert_eq!(*games.entry(r.game).or_insert(r.result), r.result);
    }
    assert!(games.len() <= 12);
    // Appending continues the game numbers; the stats read it all.
    datagen(&a, &["--games", "3", "--seed", "10"]);
    let more = read_file(&a).unwrap();
    assert!(more.records.len() > file.records.len());
    assert!(more.records.iter().map(|r| r.game).max() > file.records.iter().map(|r| r.game).max());
    let (ok, stats, _) = konakis(&["datagen", "--stats", &a]);
    assert!(ok);
    assert!(
        stats.contains(&format!("{} positions", more.records.len())),
        "{stats}"
    );
    assert!(stats.contains("histogram"), "{stats}");
    // Words, not Rust's debug maps; and why games may be fewer than played.
    assert!(
        !stats.contains('{') && stats.contains("results by game: attackers won "),
        "{stats}"
    );
    assert!(stats.contains("is not counted"), "{stats}");
}

#[test]
fn bad_data_files_are_named() {
    let a = tmp("c.bin");
    datagen(&a, &["--games", "2"]);
    // Another variant cannot be appended.
    let (ok, _, err) = konakis(&[
        "datagen",
        "--variant",
        "tablut",
        "--games",
        "1",
        "--out",
        &a,
    ]);
    assert!(
        !ok && err.contains("brandubh") && err.contains("tablut"),
        "{err}"
    );
    // A truncated record.
    let mut bytes = std::fs::read(&a).unwrap();
    bytes.truncate(bytes.len() - 5);
    let cut = tmp("cut.bin");
    std::fs::write(&cut, &bytes).unwrap();
    let (ok, _, err) = konakis(&["datagen", "--stats", &cut]);
    assert!(!ok && err.contains("truncated"), "{err}");
    // Not a data file, and no file at all.
    let junk = tmp("junk.bin");
    std::fs::write(&junk, b"hello").unwrap();
    let (ok, _, err) = konakis(&["datagen", "--stats", &junk]);
    assert!(!ok && err.contains("not a Konakis data file"), "{err}");
    let (ok, _, err) = konakis(&["datagen", "--stats", &tmp("missing.bin")]);
    assert!(!ok && err.contains("missing.bin"), "{err}");
    // Node counts of zero are refused; a stronger attacker side is allowed.
    let (ok, _, err) = konakis(&[
        "datagen",
        "--variant",
        "brandubh",
        "--games",
        "1",
        "--attacker-nodes",
        "0",
        "--out",
        &tmp("zero.bin"),
    ]);
    assert!(!ok && err.contains("at least 1"), "{err}");
    datagen(
        &tmp("strong.bin"),
        &["--games", "2", "--attacker-nodes", "2000"],
    );
}

/// An openings file of one line gives one game over and over (the search at
/// fixed nodes is deterministic); `--random-plies` makes each game its own,
/// still the same for the same seed.
#[test]
fn random_plies_after_file_openings_vary_the_games() {
    let openings = tmp("one-opening.txt");
    std::fs::write(&openings, "startpos\n").unwrap();
    let first_positions = |path: &str| {
        let file = read_file(path).unwrap();
        let mut firsts = std::collections::BTreeMap::new();
        for r in &file.records {
            firsts
                .entry(r.game)
                .or_insert((r.attackers, r.defenders, r.king));
        }
        firsts.into_values().collect::<Vec<_>>()
    };
    let same = tmp("same.bin");
    datagen(&same, &["--games", "4", "--openings", &openings]);
    let firsts = first_positions(&same);
    assert!(firsts.windows(2).all(|w| w[0] == w[1]), "{firsts:?}");
    let varied = tmp("varied.bin");
    let again = tmp("varied-again.bin");
    for out in [&varied, &again] {
        datagen(
            out,
            &[
                "--games",
                "4",
                "--openings",
                &openings,
                "--random-plies",
                "2",
                "--seed",
                "5",
            ],
        );
    }
    assert_eq!(
        std::fs::read(&varied).unwrap(),
        std::fs::read(&again).unwrap()
    );
    let firsts = first_positions(&varied);
    assert!(firsts.iter().any(|f| *f != firsts[0]), "{firsts:?}");
}

/// `konakis tune` fits weights that predict the data better than where it
/// started, writes a weights file the engine can read (with the command
/// that made it), and gives the same weights for the same data and seed.
#[test]
fn tune_writes_weights_that_fit_better() {
    let data = tmp("tune.bin");
    datagen(&data, &["--games", "40", "--seed", "4"]);
    let out_a = tmp("weights-a.txt");
    let out_b = tmp("weights-b.txt");
    for out in [&out_a, &out_b] {
        let (ok, stdout, stderr) = konakis(&[
            "tune", "--data", &data, "--epochs", "60", "--seed", "2", "--out", out,
        ]);
        assert!(ok, "{stdout}\n{stderr}");
    }
    let text = std::fs::read_to_string(&out_a).unwrap();
    let weight_lines = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    assert_eq!(
        weight_lines(&text),
        weight_lines(&std::fs::read_to_string(&out_b).unwrap()),
        "reproducible"
    );
    assert!(text.contains("# Made by: konakis tune --data"), "{text}");
    assert!(text.contains("board family corner7"), "{text}");
    let weights = konakis::search::eval::learned::Weights::parse(&text)
        .unwrap()
        .expect("some weights");
    assert!(weights.scaled.iter().any(|w| *w != 0));
    // start (hand) a / b; hand weights c / d; these weights e / f
    let losses: Vec<f64> = text
        .lines()
        .find(|l| l.contains("these weights"))
        .unwrap()
        .split([';', '/', ' '])
        .filter_map(|w| w.trim_end_matches('.').parse::<f64>().ok())
        .collect();
    assert_eq!(losses.len(), 6, "{losses:?}");
    assert!(
        losses[4] < losses[0],
        "the fit lowered the loss: {losses:?}"
    );
    // Files of another board family are refused.
    let other = tmp("tablut.bin");
    let (ok, _, _) = konakis(&[
        "datagen",
        "--variant",
        "tablut",
        "--games",
        "2",
        "--nodes",
        "300",
        "--out",
        &other,
    ]);
    assert!(ok);
    let (ok, _, err) = konakis(&["tune", "--data", &data, &other, "--out", &tmp("x.txt")]);
    assert!(!ok && err.contains("edge9"), "{err}");
}

/// `--init learned` starts a fit from the weights the engine embeds for the
/// data's family (no epochs: they come out unchanged), `--init FILE` from a
/// weights file; a file with one side's own weights is refused, since the
/// fit could not write them back.
#[test]
fn tune_starts_from_the_learned_weights_or_a_file() {
    let data = tmp("init.bin");
    datagen(&data, &["--games", "6", "--seed", "9"]);
    let weights = |t: &str| {
        konakis::search::eval::learned::Weights::parse(t)
            .unwrap()
            .expect("some weights")
    };
    use konakis::search::eval::learned::{embedded, Family};
    let embedded = embedded(Family::Corner7).expect("corner7 has weights");
    let out = tmp("init-learned.txt");
    let (ok, stdout, stderr) = konakis(&[
        "tune", "--data", &data, "--epochs", "0", "--init", "learned", "--out", &out,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(weights(&text).scaled, embedded.scaled, "{text}");
    assert!(text.contains("start (learned)"), "{text}");

    let start = tmp("init-start.txt");
    std::fs::write(&start, "attacker -90\ndefender 170\nking-area 12.5\n").unwrap();
    let (ok, stdout, stderr) = konakis(&[
        "tune", "--data", &data, "--epochs", "0", "--init", &start, "--out", &out,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert_eq!(
        weights(&std::fs::read_to_string(&out).unwrap()).scaled,
        weights("attacker -90\ndefender 170\nking-area 12.5\n").scaled
    );

    std::fs::write(&start, "attacker -90\nattackers: corner-wall -150\n").unwrap();
    let (ok, _, err) = konakis(&[
        "tune", "--data", &data, "--epochs", "0", "--init", &start, "--out", &out,
    ]);
    assert!(!ok && err.contains("attackers:"), "{err}");
    let (ok, _, err) = konakis(&[
        "tune",
        "--data",
        &data,
        "--init",
        &tmp("missing.txt"),
        "--out",
        &out,
    ]);
    assert!(!ok && err.contains("missing.txt"), "{err}");
}

/// `--drop-adjudicated` leaves out exactly the positions of games the length
/// limit ended (as `datagen --stats` counts them), says how many, and a file
/// of nothing else is refused with a clear error.
#[test]
fn tune_can_leave_out_games_the_length_limit_ended() {
    let data = tmp("adjudicated.bin");
    datagen(&data, &["--games", "8", "--seed", "5", "--max-plies", "24"]);
    let file = read_file(&data).unwrap();
    let adjudicated = file.records.iter().filter(|r| r.adjudicated).count();
    let total = file.records.len();
    assert!(
        0 < adjudicated && adjudicated < total,
        "{adjudicated} of {total}"
    );
    let out = tmp("adjudicated.txt");
    let (ok, stdout, stderr) = konakis(&[
        "tune",
        "--data",
        &data,
        "--epochs",
        "0",
        "--drop-adjudicated",
        "--out",
        &out,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.contains(&format!("# {} positions (", total - adjudicated)),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "; {adjudicated} from games the length limit ended left out)"
        )),
        "{text}"
    );

    let all_drawn = tmp("all-adjudicated.bin");
    datagen(
        &all_drawn,
        &["--games", "2", "--seed", "5", "--max-plies", "2"],
    );
    let (ok, _, err) = konakis(&[
        "tune",
        "--data",
        &all_drawn,
        "--drop-adjudicated",
        "--out",
        &out,
    ]);
    assert!(!ok && err.contains("no positions to fit"), "{err}");
}

/// `konakis train`: a net from datagen files, byte for byte the same on a
/// second run and on one thread; the engine loads it with `EvalFile`,
/// searches with it, shows it in `eval`, keeps it when a bad file is
/// offered, and bench measures it.
#[test]
fn train_writes_a_net_the_engine_plays_with() {
    let data = tmp("train.bin");
    datagen(&data, &["--games", "30", "--seed", "9"]);
    let (net_a, net_b) = (tmp("a.nnue"), tmp("b.nnue"));
    let args = |out: &str| -> Vec<String> {
        [
            "train", "--data", &data, "--hidden", "16", "--epochs", "3", "--seed", "3", "--out",
            out,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (ok, stdout, stderr) =
        konakis(&args(&net_a).iter().map(|s| s.as_str()).collect::<Vec<_>>());
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("net corner7 16x2 written"), "{stdout}");
    assert!(stderr.contains("epoch   3/3"), "{stderr}");
    assert!(
        stdout
            .contains("search scores read as sigmoid(0.005756 * (score - (0))), defenders' view\n"),
        "{stdout}"
    );
    // --calibrate fits the scores' scale and even point to the results.
    let (ok, stdout, stderr) = konakis(&[
        "train",
        "--data",
        &data,
        "--hidden",
        "8",
        "--epochs",
        "1",
        "--calibrate",
        "--out",
        &tmp("calibrated.nnue"),
    ]);
    assert!(
        ok && stdout.contains("defenders' view (fitted)"),
        "{stdout}\n{stderr}"
    );
    let one_thread = Command::new(env!("CARGO_BIN_EXE_konakis"))
        .args(args(&net_b))
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .expect("run konakis");
    assert!(one_thread.status.success());
    let bytes = std::fs::read(&net_a).unwrap();
    let read = |b: &[u8]| konakis::search::eval::nnue::Network::from_bytes(b).unwrap();
    let (a, mut b) = (read(&bytes), read(&std::fs::read(&net_b).unwrap()));
    assert!(a.about.starts_with("konakis train --data"), "{}", a.about);
    // The nets differ only in the command (its --out) they record.
    b.about = a.about.clone();
    assert!(a == b, "same data and seed, same net, on one thread or two");

    // The engine: a damaged file is refused and the loaded net stays.
    let damaged = tmp("damaged.nnue");
    std::fs::write(&damaged, &bytes[..bytes.len() - 5]).unwrap();
    let script = format!(
        "setoption name Variant value brandubh\n\
         setoption name EvalFile value {net_a}\n\
         setoption name Eval value nnue\n\
         setoption name EvalFile value {damaged}\n\
         position startpos\n\
         eval\n\
         go nodes 3000\n\
         isready\n\
         setoption name Variant value tablut\n\
         eval\n\
         quit\n"
    );
    let text = engine_session(&script);
    assert!(
        text.contains("info string error option EvalFile")
            && text.contains("the net in use is kept"),
        "{text}"
    );
    assert!(text.contains("eval nnue corner7 16x2 "), "{text}");
    assert!(text.contains("eval in use nnue corner7 16x2 "), "{text}");
    assert!(text.contains("bestmove "), "{text}");
    // A net of another board family is not used: tablut takes the embedded
    // edge9 net.
    assert!(text.contains("eval in use nnue edge9 256x2 "), "{text}");

    // bench measures the net where it fits.
    let (ok, stdout, stderr) = konakis(&["bench", "2", "--eval", "nnue", "--evalfile", &net_a]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains(" nps"), "{stdout}");
    let (ok, _, stderr) = konakis(&["bench", "2", "--eval", "nnue", "--evalfile", &damaged]);
    assert!(!ok && stderr.contains("checksum"), "{stderr}");
    // Bad training input gets a clear error.
    let (ok, _, stderr) = konakis(&["train", "--data", &damaged, "--out", &tmp("c.nnue")]);
    assert!(
        !ok && stderr.contains("not a Konakis data file"),
        "{stderr}"
    );
    let (ok, _, stderr) = konakis(&[
        "train",
        "--data",
        &data,
        "--hidden",
        "0",
        "--out",
        &tmp("c.nnue"),
    ]);
    assert!(!ok && stderr.contains("--hidden"), "{stderr}");
}

/// `WeightsFile`: linear weights read from a file replace the embedded
/// ones for `Eval` = `learned`; a bad file is refused with a message and
/// the weights in use stay; `none` goes back to the embedded weights.
#[test]
fn weights_file_replaces_the_embedded_weights() {
    let good = tmp("material.txt");
    std::fs::write(&good, "# material only\nattacker -100\ndefender 250\n").unwrap();
    let bad = tmp("bad.txt");
    std::fs::write(&bad, "attacker -100\nno-such-feature 3\n").unwrap();
    let script = format!(
        "setoption name Variant value copenhagen\n\
         setoption name Eval value learned\n\
         setoption name WeightsFile value {good}\n\
         eval\n\
         setoption name WeightsFile value {bad}\n\
         eval\n\
         go nodes 2000\n\
         isready\n\
         setoption name WeightsFile value none\n\
         eval\n\
         quit\n"
    );
    let text = engine_session(&script);
    // Copenhagen's start: 24 attackers, 12 defenders; attackers to move.
    let in_use = format!("eval in use learned {good} -{} ", 24 * -100 + 12 * 250);
    assert_eq!(text.matches(&in_use).count(), 2, "{text}");
    assert!(
        text.contains("info string error option WeightsFile")
            && text.contains("no-such-feature")
            && text.contains("the weights in use are kept"),
        "{text}"
    );
    assert!(text.contains("bestmove "), "{text}");
    assert!(text.contains("eval in use learned corner11 "), "{text}");
}

/// A failed import (the wrong variant for the games) leaves no file behind
/// to block the corrected command, which then works.
#[test]
fn a_failed_import_leaves_no_file() {
    let csv = tmp("people.csv");
    std::fs::write(&csv, "d1-d3 e5-e2 g1-g3 f4-c4 g3-e3xe2,1,0,White\n").unwrap();
    let out = tmp("imported.bin");
    let (ok, _, stderr) = konakis(&[
        "datagen",
        "--variant",
        "tablut",
        "--import-games",
        &csv,
        "--out",
        &out,
    ]);
    assert!(!ok);
    assert!(stderr.contains("konakis: error"), "{stderr}");
    assert!(
        !std::path::Path::new(&out).exists(),
        "a failed import left {out}"
    );
    assert!(!std::path::Path::new(&format!("{out}.partial")).exists());
    let (ok, stdout, stderr) = konakis(&[
        "datagen",
        "--variant",
        "copenhagen",
        "--import-games",
        &csv,
        "--out",
        &out,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(read_file(&out).is_ok());
}

/// Data generation on a cluster: `docs/cluster/datagen-shard.sh` under
/// either scheduler's convention plays one shard with its own seed, and
/// `datagen --merge` joins the shards into one training file whose games
/// stay apart, which the tuner reads.
#[test]
fn datagen_shards_merge_into_one_file() {
    let script =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/cluster/datagen-shard.sh");
    let dir = tmp("datagen-shards");
    let _ = std::fs::remove_dir_all(&dir);
    for (k, var) in [(0, "SLURM_ARRAY_TASK_ID"), (1, "JOB_COMPLETION_INDEX")] {
        let out = Command::new("sh")
            .arg(&script)
            .arg(&dir)
            .args([
                "--variant",
                "brandubh",
                "--games",
                "4",
                "--nodes",
                "300",
                "--threads",
                "1",
            ])
            .env("KONAKIS", env!("CARGO_BIN_EXE_konakis"))
            .env("SEED", "40")
            .env(var, k.to_string())
            .env_remove(if var == "SLURM_ARRAY_TASK_ID" {
                "JOB_COMPLETION_INDEX"
            } else {
                "SLURM_ARRAY_TASK_ID"
            })
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let shards: Vec<String> = (0..2).map(|k| format!("{dir}/shard-{k}.bin")).collect();
    let files: Vec<_> = shards.iter().map(|s| read_file(s).unwrap()).collect();
    assert_ne!(files[0].records, files[1].records, "the seeds differ");
    let merged = format!("{dir}/merged.bin");
    let (ok, stdout, stderr) = konakis(&[
        "datagen", "--merge", &shards[0], &shards[1], "--out", &merged,
    ]);
    assert!(ok, "{stdout}\n{stderr}");
    let m = read_file(&merged).unwrap();
    assert_eq!(
        m.records.len(),
        files[0].records.len() + files[1].records.len()
    );
    let games = |recs: &[konakis::learn::data::Record]| {
        recs.iter()
            .map(|r| r.game)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    assert_eq!(
        games(&m.records),
        games(&files[0].records) + games(&files[1].records)
    );
    let weights = format!("{dir}/w.txt");
    let (ok, _, stderr) = konakis(&[
        "tune", "--data", &merged, "--epochs", "2", "--out", &weights,
    ]);
    assert!(ok, "{stderr}");
    // Files of other rules are refused.
    let other = format!("{dir}/tablut.bin");
    let (ok, _, _) = konakis(&[
        "datagen",
        "--variant",
        "tablut",
        "--games",
        "1",
        "--nodes",
        "200",
        "--threads",
        "1",
        "--out",
        &other,
    ]);
    assert!(ok);
    let (ok, _, stderr) = konakis(&[
        "datagen",
        "--merge",
        &shards[0],
        &other,
        "--out",
        &format!("{dir}/bad.bin"),
    ]);
    assert!(!ok && stderr.contains("holds positions of"), "{stderr}");
}
