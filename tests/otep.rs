//! `konakis otep` under a scripted OpenTafl host that behaves as OpenTafl
//! does: rules before hello, clocks before and after `play` (with the
//! trailing space OpenTafl sends), an `error 2` and its re-send, analysis,
//! finish and goodbye. Also `konakis match` driving an OTEP engine.

mod common;
#[path = "common/engine.rs"]
mod engine;

use engine::EngineProcess;
use konakis::rules::otn::{otn_rules_string, parse_otn_rules};
use konakis::rules::{Game, Move, Preset, Rules, Side};
use std::time::Duration;

const T: Duration = Duration::from_secs(20);

fn record(game: &Game) -> String {
    game.position().setup(game.rules().size()).record()
}

/// Plays `plies` plies with the engine on `engine_side`; the host plays the
/// other side's first legal move. Returns the game.
fn host_game(rules: Rules, engine_side: Side, plies: usize, reject_first: bool) -> Game {
    let mut e = EngineProcess::start(&["otep", "--movetime", "30"]);
    // OpenTafl sends the rules at once, before the engine has said hello.
    e.send(&format!("rules {}", otn_rules_string(&rules)));
    e.expect("hello", Duration::from_secs(5));
    let mut game = Game::new(rules);
    let mut last_host_move: Option<String> = None;
    let mut rejected_once = !reject_first;
    for ply in 0..plies {
        if game.outcome().is_some() {
            break;
        }
        let side = game.side_to_move();
        if side != engine_side {
            let mv = game.legal_moves()[ply % game.legal_moves().len().max(1)];
            game.play(mv).unwrap();
            last_host_move = Some(mv.to_string());
            continue;
        }
        let ask = |e: &mut EngineProcess, game: &Game, last: &Option<String>, clock_first: bool| {
            if let Some(m) = last {
                e.send(&format!("opponent-move {m} {}", record(game)));
            }
            let play = format!("play {}", game.side_to_move().name());
            if clock_first {
                e.send("clock 3000 3000 0 0 0 ");
                e.send(&play);
            } else {
                e.send(&play);
                e.send("clock 300* 300* 1 2 2 ");
            }
            e.expect_line("move ", T)
        };
        let line = ask(&mut e, &game, &last_host_move, ply % 4 < 2);
        let text = line.strip_prefix("move ").unwrap().trim().to_string();
        let mv =
            Move::parse(&text, game.rules().size()).unwrap_or_else(|err| panic!("{line}: {err}"));
        assert!(game.position().is_legal(game.rules(), mv), "illegal {text}");
        if !rejected_once {
            // Pretend the move was illegal: error 2, then the host re-sends
            // the opponent's move and play.
            rejected_once = true;
            e.send("error 2");
            let line = ask(&mut e, &game, &last_host_move, true);
            let again = line.strip_prefix("move ").unwrap().trim().to_string();
            assert_ne!(again, text, "a rejected move is not offered again");
            let mv = Move::parse(&again, game.rules().size()).unwrap();
            assert!(game.position().is_legal(game.rules(), mv));
            game.play(mv).unwrap();
        } else {
            game.play(mv).unwrap();
        }
        e.send(&format!("move {}", record(&game)));
    }
    let code = match game.outcome().and_then(|o| o.winner) {
        None if game.outcome().is_some() => 1,
        Some(Side::Attackers) => 2,
        Some(Side::Defenders) => 3,
        None => 0,
    };
    e.send(&format!("finish {code}"));
    e.send("goodbye");
    assert_eq!(e.finish(T), Some(0));
    game
}

#[test]
fn plays_whole_games_for_either_side() {
    for (preset, side) in [
        (Preset::Tablut, Side::Defenders),
        (Preset::Copenhagen, Side::Attackers),
        (Preset::Brandubh, Side::Defenders),
    ] {
        let game = host_game(Rules::preset(preset), side, 160, true);
        assert!(game.moves().len() >= 4, "{preset}");
    }
}

#[test]
fn every_supported_opentafl_variant_plays() {
    let dir = common::opentafl_dir();
    let text = std::fs::read_to_string(dir.join("variants.otr")).unwrap();
    let mut played = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(rules) = parse_otn_rules(line) else {
            refuses_at_the_first_play_or_analyze(line);
            continue;
        };
        // Send OpenTafl's own string, not ours.
        let mut e = EngineProcess::start(&["otep", "--movetime", "20"]);
        e.send(&format!("rules {line}"));
        e.expect("hello", Duration::from_secs(5));
        let mut game = Game::new(rules);
        for _ in 0..6 {
            if game.outcome().is_some() {
                break;
            }
            let side = game.side_to_move().name();
            e.send(&format!("play {side}"));
            let l = e.expect_line("move ", T);
            game.play_str(l.strip_prefix("move ").unwrap().trim())
                .unwrap_or_else(|err| panic!("{line}: {err}"));
            e.send(&format!("move {}", record(&game)));
            if game.outcome().is_some() {
                break;
            }
            let mv = game.legal_moves()[0];
            game.play(mv).unwrap();
            e.send(&format!("opponent-move {mv} {}", record(&game)));
        }
        e.send("finish 0");
        e.send("goodbye");
        assert_eq!(e.finish(T), Some(0));
        played += 1;
    }
    assert!(played >= 8);
}

/// Rules the engine cannot play: OpenTafl crashes on any `error` or
/// `status` sent before its game screen is attached (right after `rules`),
/// so the engine stays silent until the first `play` or `analyze`, then
/// says why in its status line and a non-critical `error 0` (OpenTafl
/// names the wrong winner on a critical `error -1`).
fn refuses_at_the_first_play_or_analyze(line: &str) {
    let refused = parse_otn_rules(line).unwrap_err();
    let start = line.split("start:").nth(1).unwrap_or("").trim();
    for ask in ["play attackers", "analyze 5 10"] {
        let mut e = EngineProcess::start(&["otep"]);
        e.send(&format!("rules {line}"));
        e.expect("hello", Duration::from_secs(5));
        // What OpenTafl sends next while it sets the game up.
        e.send(&format!("position {start}"));
        e.send("side attackers");
        e.send("clock 30000 30000 0 0 0 ");
        let early = e.drain(Duration::from_millis(300));
        assert!(early.is_empty(), "{line}: said {early:?} before play");
        e.send(ask);
        let verb = if ask.starts_with("play") {
            "play"
        } else {
            "analyse"
        };
        let lines = e.expect("error 0", T);
        let err = lines.last().unwrap();
        assert!(err.contains(&refused), "{err} should say {refused}");
        assert!(err.contains(verb), "{err}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("status ") && l.contains(&refused)),
            "{lines:?}"
        );
        if ask.starts_with("analyze") {
            e.expect("analysis 0", T);
        }
        e.send("goodbye");
        assert_eq!(e.finish(T), Some(0));
    }
}

#[test]
fn a_later_playable_rules_string_clears_a_refusal() {
    let mut e = EngineProcess::start(&["otep", "--movetime", "20"]);
    e.send("rules dim:7 name:Magpie surf:n atkf:y ks:m start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/");
    e.expect("hello", Duration::from_secs(5));
    let rules = Rules::preset(Preset::Brandubh);
    e.send(&format!("rules {}", otn_rules_string(&rules)));
    e.send("play attackers");
    let l = e.expect_line("move ", T);
    let mut game = Game::new(rules);
    game.play_str(l.strip_prefix("move ").unwrap().trim())
        .unwrap();
    e.send("goodbye");
    assert_eq!(e.finish(T), Some(0));
}

#[test]
fn analyze_answers_with_the_best_moves() {
    let mut e = EngineProcess::start(&["otep"]);
    let rules = Rules::preset(Preset::Tablut);
    e.send(&format!("rules {}", otn_rules_string(&rules)));
    e.expect("hello", Duration::from_secs(5));
    e.send("position /9/9/9/9/2K6/9/9/9/5t3/");
    e.send("side defenders");
    e.send("clock 1000 1000 0 0 0 ");
    e.send("analyze 3 1");
    let line = e.expect_line("analysis", T);
    let parts: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(parts[1], "3", "{line}");
    assert_eq!(parts.len(), 2 + 2 * 3, "{line}");
    // The king escapes: the best line is a win.
    assert_eq!(parts[3], "10000", "{line}");
    e.send("goodbye");
    assert_eq!(e.finish(T), Some(0));
}

/// A search stopped by a later command never answers as a move: after an
/// analysis, `side` and `play` must give a move for the side asked for
/// (issue 10, defect 2: the analysis's attackers' move came back).
#[test]
fn a_stopped_analysis_never_answers_play() {
    let rules = Rules::preset(Preset::Brandubh);
    for _ in 0..3 {
        let mut e = EngineProcess::start(&["otep", "--movetime", "200"]);
        e.send(&format!("rules {}", otn_rules_string(&rules)));
        e.expect("hello", Duration::from_secs(5));
        e.send("analyze 1 30");
        std::thread::sleep(Duration::from_millis(100));
        e.send("side defenders");
        e.send("play defenders");
        let lines = e.expect("move ", T);
        let mv = lines.last().unwrap().strip_prefix("move ").unwrap().trim();
        let game = Game::from_record(
            rules.clone(),
            &rules.options().setup.record(),
            Side::Defenders,
            0,
            0,
        )
        .unwrap();
        let parsed = Move::parse(mv, 7).unwrap();
        assert!(
            game.position().is_legal(game.rules(), parsed),
            "{mv} is not a defenders' move"
        );
        assert!(
            lines.iter().all(|l| !l.starts_with("analysis")),
            "a stopped analysis answered: {lines:?}"
        );
        e.send("goodbye");
        assert_eq!(e.finish(T), Some(0));
    }
}

/// Bytes that are not UTF-8 get an error and the session goes on.
#[test]
fn otep_survives_input_that_is_not_text() {
    let mut e = EngineProcess::start(&["otep", "--movetime", "30"]);
    e.send(&format!(
        "rules {}",
        otn_rules_string(&Rules::preset(Preset::Brandubh))
    ));
    e.expect("hello", Duration::from_secs(5));
    e.send_bytes(b"\xff\xfe");
    let l = e.expect_line("error 0", T);
    assert!(l.contains("not UTF-8"), "{l}");
    e.send("play attackers");
    e.expect("move ", T);
    e.send("goodbye");
    assert_eq!(e.finish(T), Some(0));
}

/// Settings the engine cannot take end `konakis otep` with an error.
#[test]
fn bad_otep_settings_are_refused() {
    for args in [
        ["otep", "--threads", "0"],
        ["otep", "--threads", "1000"],
        ["otep", "--hash", "0"],
        ["otep", "--hash", "65537"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_konakis"))
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("konakis: error:"), "{args:?}: {err}");
    }
}

#[test]
fn match_drives_an_otep_engine() {
    let konakis = env!("CARGO_BIN_EXE_konakis");
    let dir = std::env::temp_dir().join(format!("konakis-otep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rec = dir.join("otep.txt");
    let out = std::process::Command::new(konakis)
        .args([
            "match",
            "--engine",
            &format!("cmd={konakis}"),
            "name=tei",
            "--engine",
            &format!("cmd={konakis}"),
            "name=otep",
            "proto=otep",
            "arg=otep",
            "arg=--movetime",
            "arg=20",
            "--variant",
            "brandubh",
            "--tc",
            "5+0.05",
            "--games",
            "2",
            "--repeat",
            "--resign",
            "off",
            "--maxplies",
            "0",
            "--records",
            rec.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&rec).unwrap();
    for line in text.lines() {
        let r = konakis::records::game::GameRecord::parse(line).unwrap();
        assert!(
            matches!(r.reason, konakis::records::game::EndReason::Rule(_)),
            "{line}"
        );
        r.replay().unwrap();
    }
}

/// A side with no move at all: never `error -1`, which OpenTafl 0.4.8.0b
/// takes as a resignation and scores for the resigning side. A non-critical
/// error says who is stuck; OpenTafl then waits, and a timed game is lost
/// on time by that side, as the rules say.
#[test]
fn a_side_with_no_move_never_resigns_to_opentafl() {
    let mut e = EngineProcess::start(&["otep"]);
    let rules = Rules::preset(Preset::Brandubh);
    e.send(&format!("rules {}", otn_rules_string(&rules)));
    e.expect("hello", Duration::from_secs(5));
    // The attackers' two soldiers, on b1 and b7, are boxed in by the
    // corners and the defenders (the board reads the same from either end).
    e.send("position /1tT4/1T5/7/4K2/7/1T5/1tT4/");
    e.send("side attackers");
    e.send("clock 5000 5000 0 0 0 ");
    e.send("play attackers");
    let lines = e.expect("error 0", T);
    let err = lines.last().unwrap();
    assert!(
        err.contains("no legal move") && err.contains("attackers"),
        "{err}"
    );
    assert!(
        lines.iter().all(|l| !l.starts_with("error -1")),
        "{lines:?}"
    );
    assert!(lines.iter().all(|l| !l.starts_with("move ")), "{lines:?}");
    e.send("goodbye");
    assert_eq!(e.finish(T), Some(0));
}
