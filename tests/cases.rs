//! The shared rule cases (`../shared/cases/`, copied into
//! `tests/data/cases/`), computed by an independent implementation of the
//! same rules: every perft count and game result must match. Set
//! `KONAKIS_CASES` to read them from elsewhere.

mod common;

use konakis::rules::perft::{perft_with, Counting};
use konakis::rules::{parse_record, Game, Position, Preset, Rules, Side};
use std::path::PathBuf;

use common::cases_dir;

fn read_cases(name: &str) -> Vec<Vec<String>> {
    // Cases of our own (tests/data/…) are named from the repository root.
    let path = if name.starts_with("tests/") {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
    } else {
        cases_dir().join(name)
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('|').map(|f| f.trim().to_string()).collect())
        .collect()
}

fn rules_for(preset: &str, options: &[String]) -> Rules {
    let preset: Preset = preset.parse().expect("known preset");
    let mut rules = Rules::preset(preset);
    for opt in options {
        for pair in opt.split_whitespace() {
            let (k, v) = pair.split_once('=').expect("Option=value");
            rules.set(k, v).expect("valid rule option");
        }
    }
    rules
}

/// Runs every perft line of a file, counting the last plies both ways
/// (two plies at once, and making every move); returns how many lines ran.
fn check_perft_file(name: &str) -> usize {
    let mut failures = Vec::new();
    let mut ran = 0;
    for f in read_cases(name) {
        let rules = rules_for(&f[0], &f[5..]);
        let side: Side = f[2].parse().expect("side");
        let depth: u32 = f[3].parse().expect("depth");
        let expected: u64 = f[4].parse().expect("nodes");
        let setup = parse_record(&f[1]).expect("record");
        let pos = Position::from_setup(&setup, side, &rules, 0, 0).expect("position");
        ran += 1;
        for counting in [Counting::Replies, Counting::LastPly] {
            let got = perft_with(&pos, &rules, depth, counting);
            if got != expected {
                failures.push(format!(
                    "{} {} {} depth {} ({counting:?}): expected {expected}, got {got}",
                    f[0], f[1], f[2], depth
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "perft mismatches:\n{}",
        failures.join("\n")
    );
    ran
}

/// Every start count, up to tablut perft 5 (1.6 billion leaves).
#[test]
fn perft_start_positions() {
    assert!(check_perft_file("perft-start.txt") >= 20);
}

#[test]
fn perft_sample_positions() {
    assert!(check_perft_file("perft-sample.txt") > 0);
}

#[test]
fn perft_tricky_positions() {
    assert!(check_perft_file("perft-tricky.txt") > 0);
}

fn check_games_file(name: &str) {
    let mut failures = Vec::new();
    let cases = read_cases(name);
    assert!(!cases.is_empty());
    for (i, f) in cases.iter().enumerate() {
        let rules = rules_for(&f[0], &f[4..]);
        let mut game = Game::new(rules);
        let moves: Vec<&str> = f[1].split_whitespace().collect();
        let mut err = None;
        for (j, m) in moves.iter().enumerate() {
            if let Err(e) = game.play_str(m) {
                err = Some(format!("move {} ({m}): {e}", j + 1));
                break;
            }
            if j + 1 < moves.len() && game.outcome().is_some() {
                err = Some(format!(
                    "game ended early after move {} ({m}): {}",
                    j + 1,
                    game.outcome().unwrap()
                ));
                break;
            }
        }
        let expected = format!("{} {}", f[2], f[3]);
        let got = match (err, game.outcome()) {
            (Some(e), _) => e,
            (None, Some(o)) => o.to_string(),
            (None, None) => "ongoing".to_string(),
        };
        if got != expected {
            failures.push(format!(
                "{name} line {} ({}): expected {expected}, got {got}",
                i + 1,
                f[0]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "game mismatches:\n{}",
        failures.join("\n")
    );
}

#[test]
fn games_sample() {
    check_games_file("games-sample.txt");
}

#[test]
fn games_rules() {
    check_games_file("games-rules.txt");
}

/// Ashton Tablut as the Tablut Challenge server plays it: the start to
/// depth 5 (1.07 billion leaves) and every other position.
#[test]
fn perft_ashton() {
    assert!(check_perft_file("perft-ashton.txt") >= 45);
}

#[test]
fn games_ashton() {
    check_games_file("games-ashton.txt");
}

/// The hnefatafl.org server's rules (`hnefatafl-org-11`, `hnefatafl-org-7`):
/// cases computed by the hnefatafl-copenhagen crate's own rule code
/// (tests/data/hnefatafl-org/, made beside the project; docs/rules.md).
#[test]
fn perft_hnefatafl_org() {
    assert!(check_perft_file("tests/data/hnefatafl-org/perft.txt") >= 175);
}

#[test]
fn games_hnefatafl_org() {
    check_games_file("tests/data/hnefatafl-org/games.txt");
}

/// The copies in `tests/data/cases/` and `tests/data/opentafl/` equal
/// `../shared/cases/` and `../shared/opentafl/` wherever `../shared` is
/// present, so new or changed cases there are noticed.
#[test]
fn the_copy_of_the_shared_cases_is_current() {
    fn files(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for folder in ["cases", "opentafl"] {
        let shared = root.join("../shared").join(folder);
        if !shared.is_dir() {
            eprintln!(
                "no ../shared/{folder} here: the copy in tests/data/{folder} is used as it is"
            );
            continue;
        }
        let copy = root.join("tests/data").join(folder);
        let (mut theirs, mut ours) = (Vec::new(), Vec::new());
        files(&shared, &shared, &mut theirs);
        files(&copy, &copy, &mut ours);
        theirs.sort();
        ours.sort();
        let again = format!("copy ../shared/{folder}/ to tests/data/{folder}/ again");
        assert_eq!(theirs, ours, "the files differ: {again}");
        for f in theirs {
            assert!(
                std::fs::read(shared.join(&f)).unwrap() == std::fs::read(copy.join(&f)).unwrap(),
                "{} differs: {again}",
                f.display()
            );
        }
    }
}
