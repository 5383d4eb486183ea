//! Helpers shared by the integration tests.
#![allow(dead_code)]

use konakis::rules::{Move, MoveList, Position, Preset, Rules, Setup, Side, Square};
use std::path::PathBuf;

/// OpenTafl's built-in variants (`variants.otr`): the copy in
/// `tests/data/opentafl/` (of `../shared/opentafl/`), or `KONAKIS_OPENTAFL`.
pub fn opentafl_dir() -> PathBuf {
    match std::env::var_os("KONAKIS_OPENTAFL") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/opentafl"),
    }
}

/// The rule cases and people's games: the copy in `tests/data/cases/` (of
/// `../shared/cases/`, kept equal by a test), or `KONAKIS_CASES`.
pub fn cases_dir() -> PathBuf {
    match std::env::var_os("KONAKIS_CASES") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/cases"),
    }
}

pub fn rules(preset: Preset, overrides: &[(&str, &str)]) -> Rules {
    let mut r = Rules::preset(preset);
    for (k, v) in overrides {
        r.set(k, v).unwrap();
    }
    r
}

/// A position from (square, piece) pairs: `t` attacker, `T` defender, `K` king.
pub fn build(r: &Rules, pieces: &[(&str, char)], side: Side) -> Position {
    let n = r.size();
    let mut setup = Setup {
        size: n,
        attackers: Default::default(),
        defenders: Default::default(),
        king: Default::default(),
    };
    for (name, c) in pieces {
        let s = Square::parse(name, n).unwrap();
        match c {
            't' => setup.attackers.set(s),
            'T' => setup.defenders.set(s),
            'K' => setup.king.set(s),
            _ => panic!("bad piece"),
        }
    }
    let pos = Position::from_setup(&setup, side, r, 0, 0).expect("valid position");
    assert_reply_count(&pos, r);
    pos
}

/// Perft's two-ply reply count equals making every move and counting. Every
/// hand-made position is checked, as they hold the rare shieldwalls, forts
/// and encirclements that random games seldom reach.
pub fn assert_reply_count(pos: &Position, r: &Rules) {
    let mut moves = MoveList::new();
    pos.generate_moves(r, &mut moves);
    let made: u64 = moves
        .iter()
        .map(|&m| pos.make(r, m).count_moves(r) as u64)
        .sum();
    assert_eq!(
        pos.count_replies(r),
        made,
        "reply count of {}",
        pos.record(r)
    );
}

pub fn mv(r: &Rules, text: &str) -> Move {
    Move::parse(text, r.size()).unwrap()
}

/// Brute force: can the side to move force a decisive win within `plies`
/// (odd) plies? Wins only by escape, king capture, encirclement, fort or
/// the opponent having no move.
pub fn wins_within(pos: &Position, rules: &Rules, plies: u32) -> bool {
    let mut moves = MoveList::new();
    pos.generate_moves(rules, &mut moves);
    moves.iter().any(|&m| {
        let c = pos.make(rules, m);
        if c.outcome().is_some() {
            return true;
        }
        if plies < 3 {
            return false;
        }
        let mut replies = MoveList::new();
        c.generate_moves(rules, &mut replies);
        replies.iter().all(|&r| {
            let g = c.make(rules, r);
            g.outcome().is_none() && wins_within(&g, rules, plies - 2)
        })
    })
}

/// The moves after which the opponent has no win in one.
pub fn safe_moves(pos: &Position, rules: &Rules) -> Vec<Move> {
    let mut moves = MoveList::new();
    pos.generate_moves(rules, &mut moves);
    moves
        .iter()
        .copied()
        .filter(|&m| {
            let c = pos.make(rules, m);
            c.outcome().is_some() || !wins_within(&c, rules, 1)
        })
        .collect()
}

/// Words of the tei protocol, and values that stress it, for fuzzing.
pub const PROTOCOL_WORDS: &[&str] = &[
    "tei",
    "isready",
    "setoption",
    "name",
    "value",
    "newgame",
    "position",
    "startpos",
    "moves",
    "go",
    "stop",
    "ponderhit",
    "d",
    "result",
    "perft",
    "eval",
    "roads",
    "bench",
    "depth",
    "nodes",
    "movetime",
    "infinite",
    "ponder",
    "atime",
    "dtime",
    "wtime",
    "ainc",
    "searchmoves",
    "mate",
    "Hash",
    "Threads",
    "Variant",
    "Start",
    "MultiPV",
    "copenhagen",
    "brandubh",
    "e1-e3",
    "d1-d2",
    "a",
    "d",
    "-1",
    "0",
    "1",
    "2",
    "3",
    "99999999999999999999",
    "4294967295",
    "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
    "/9/",
    "K",
    "\u{e9}",
    "\x1b[2J",
    "\t",
    "",
    "x",
];
pub mod server;
