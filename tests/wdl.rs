//! Scores that say who wins: the WDL model in tei (`UCI_ShowWDL`), and the
//! game review built on it (repeatable marks, a thrown-away win marked a
//! blunder, the engine's own move never marked).

mod common;
#[path = "common/engine.rs"]
mod engine;

use engine::EngineProcess;
use konakis::review::{self, Budget, Mark};
use konakis::rules::{Game, Move, Preset, Rules, StartPoint};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const T: Duration = Duration::from_secs(30);

/// Brandubh, the defenders to move: the king on c1 escapes to a1 at once;
/// any other move lets b3-b1 capture him against d1.
const KING_ESCAPES_OR_DIES: &str = "/2Kt3/7/1t5/7/5T1/7/7/ d";

/// The `wdl W D L` of an info line, if it has one.
fn wdl_of(line: &str) -> Option<[u32; 3]> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "wdl")?;
    let n = |i: usize| words.get(at + i).and_then(|w| w.parse().ok());
    Some([n(1)?, n(2)?, n(3)?])
}

#[test]
fn show_wdl_adds_the_chances_to_every_scored_info_line() {
    let mut e = EngineProcess::start(&[]);
    e.send("tei");
    let listed = e.expect("teiok", T);
    assert!(
        listed
            .iter()
            .any(|l| l == "option name UCI_ShowWDL type check default false"),
        "{listed:?}"
    );
    e.send("setoption name Variant value copenhagen");
    e.send("go depth 3");
    let lines = e.expect("bestmove", T);
    assert!(
        lines.iter().all(|l| wdl_of(l).is_none()),
        "off by default: {lines:?}"
    );
    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name MultiPV value 2");
    e.send("go depth 4");
    let lines = e.expect("bestmove", T);
    let infos: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(!infos.is_empty());
    for l in infos {
        let w = wdl_of(l).unwrap_or_else(|| panic!("no wdl in {l}"));
        assert_eq!(w.iter().sum::<u32>(), 1000, "{l}");
        // `score cp` keeps its place and meaning: the wdl follows it.
        assert!(
            l.contains(" score cp ") || l.contains(" score mate "),
            "{l}"
        );
    }
    e.send("setoption name UCI_ShowWDL value maybe");
    let refused = e.expect("info string", T);
    assert!(refused.last().unwrap().contains("error"), "{refused:?}");
    e.send("quit");
}

#[test]
fn won_and_lost_positions_are_certain() {
    let mut e = EngineProcess::start(&[]);
    e.send("setoption name Variant value brandubh");
    e.send("setoption name UCI_ShowWDL value true");
    e.send(&format!("position {KING_ESCAPES_OR_DIES}"));
    e.send("go depth 2");
    let lines = e.expect("bestmove", T);
    let last = lines.iter().rev().find(|l| l.contains(" score ")).unwrap();
    assert!(last.contains("score mate 1 wdl 1000 0 0"), "{last}");
    // After f5-f6 b3-b1 the rules have captured the king: the defenders,
    // to move, have lost.
    e.send(&format!(
        "position {KING_ESCAPES_OR_DIES} moves f5-f6 b3-b1"
    ));
    e.send("go depth 2");
    let lines = e.expect("bestmove", T);
    assert!(
        lines.iter().any(|l| l == "info depth 0 wdl 0 0 1000"),
        "{lines:?}"
    );
    e.send("quit");
}

fn line_of(rules: &Rules, start: &StartPoint, moves: &[&str]) -> (Game, Vec<Move>) {
    let game = Game::from_start(rules.clone(), start).expect("a start");
    let mut end = game.clone();
    let moves = moves
        .iter()
        .map(|m| end.play_str(m).expect("a legal move"))
        .collect();
    (game, moves)
}

#[test]
fn a_move_that_throws_away_a_win_is_a_blunder_and_the_best_is_never_marked() {
    let rules = Rules::preset(Preset::Brandubh);
    let start: StartPoint = KING_ESCAPES_OR_DIES.parse().expect("a position");
    let stop = AtomicBool::new(false);
    let budget = Budget::Nodes(5_000);
    let (game, moves) = line_of(&rules, &start, &["f5-f6", "b3-b1"]);
    let r = review::review_line(&game, &moves, budget, 2, &stop, &|_, _| {})
        .expect("a review")
        .expect("not stopped");
    assert_eq!(r.moves[0].mark, Some(Mark::Blunder), "{:?}", r.moves[0]);
    assert!((r.moves[0].loss - 1.0).abs() < 1e-9);
    assert_eq!(
        r.moves[0].better.map(|m| m.to_string()).as_deref(),
        Some("c1-a1")
    );
    // The attackers' capture is the engine's move: no mark, no loss.
    assert_eq!(r.moves[1].mark, None);
    assert_eq!(r.moves[1].loss, 0.0);
    assert_eq!(r.sides[1].blunders, 1);
    let (game, moves) = line_of(&rules, &start, &["c1-a1"]);
    let r = review::review_line(&game, &moves, budget, 1, &stop, &|_, _| {})
        .expect("a review")
        .expect("not stopped");
    assert_eq!(r.moves[0].mark, None);
    assert!((r.sides[1].accuracy - 100.0).abs() < 1e-3);
}

/// The first decided game of people's Copenhagen games long enough to have
/// swings.
fn a_real_game() -> (Game, Vec<Move>) {
    let path = common::cases_dir().join("real/copenhagen.csv");
    let text = std::fs::read_to_string(&path).expect("the real games");
    let rules = Rules::preset(Preset::Copenhagen);
    let line = text
        .lines()
        .find(|l| l.ends_with(",White") && l.split(' ').count() > 40)
        .expect("a long game");
    let moves: Vec<&str> = line
        .split(',')
        .next()
        .unwrap()
        .split_whitespace()
        .filter(|w| *w != "timeout")
        .map(|w| w.split('x').next().unwrap())
        .collect();
    line_of(&rules, &StartPoint::Initial, &moves[..40])
}

#[test]
fn a_review_gives_the_same_marks_every_time_on_any_number_of_searchers() {
    let (game, moves) = a_real_game();
    let stop = AtomicBool::new(false);
    let run = |workers| {
        review::review_line(
            &game,
            &moves,
            Budget::Nodes(8_000),
            workers,
            &stop,
            &|_, _| {},
        )
        .expect("a review")
        .expect("not stopped")
    };
    let first = run(2);
    let again = run(2);
    let alone = run(1);
    assert_eq!(first, again);
    assert_eq!(first, alone);
    for (i, m) in first.moves.iter().enumerate() {
        if first.positions[i].best == Some(m.played) {
            assert_eq!(m.mark, None, "move {i}: the engine's own move is marked");
        }
        if m.mark.is_some() {
            assert!(m.better.is_some_and(|b| b != m.played), "move {i}: {m:?}");
        }
    }
}

#[test]
fn the_review_command_prints_the_same_review_twice() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("wdl-review-{}.csv", std::process::id()));
    let (_, moves) = a_real_game();
    let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    std::fs::write(&path, format!("{},0,0,White\n", text.join(" "))).unwrap();
    let run = || {
        let out = Command::new(env!("CARGO_BIN_EXE_konakis"))
            .args([
                "review",
                "--variant",
                "copenhagen",
                "--budget",
                "nodes:5000",
                "--all",
            ])
            .arg("--games")
            .arg(&path)
            .output()
            .expect("run konakis review");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        // The first line holds the time taken.
        text.lines().skip(1).map(str::to_string).collect::<Vec<_>>()
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert!(
        a.iter().any(|l| l.starts_with("attackers accuracy")),
        "{a:?}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_konakis"))
        .args(["review", "--budget", "nodes:0", "--games"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let _ = std::fs::remove_file(&path);
}
