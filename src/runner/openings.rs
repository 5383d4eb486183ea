//! `konakis openings`: opening files for `konakis match --openings FILE`,
//! built from games people or engines played — the runner's own records,
//! OpenTafl game records (`konakis replay --opentafl`), and the
//! comma-separated Copenhagen records of `../shared/cases/real/` — cut at a
//! number of plies, without repeats, and without openings a short search
//! finds lopsided.

use super::import;
use super::Opening;
use crate::rules::{Game, Position, Rules, Side, StartPoint};
use crate::search::{Engine, Limits, WIN_BOUND};
use std::collections::HashSet;

/// What `konakis openings` is asked for.
#[derive(Clone, Debug)]
pub struct OpeningsConfig {
    pub from: Vec<String>,
    pub rules: Rules,
    /// Plies each opening keeps.
    pub plies: usize,
    /// At most this many openings (the first found, in file order).
    pub count: Option<usize>,
    /// Leave out openings whose score at this depth is a proven result or
    /// further than `margin` from the start position's.
    pub balanced: Option<i32>,
    pub margin: i32,
}

/// One game read from a file: where it starts and its moves as text.
struct ReadGame {
    start: StartPoint,
    moves: Vec<String>,
}

/// The games of a file, whichever format it holds. Runner records name
/// their rules, which must be these; the other formats' games are taken
/// under these rules.
fn read_games(path: &str, rules: &Rules) -> Result<Vec<ReadGame>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let read = import::read_games(&text).map_err(|e| format!("{path}: {e}"))?;
    if read.format == import::Format::Konakis {
        if let Some(e) = read.errors.first() {
            return Err(format!("{path}: {e}"));
        }
        if let Some(g) = read.games.iter().find(|g| g.rules.as_ref() != Some(rules)) {
            let named = g.rules.as_ref().map(Rules::summary).unwrap_or_default();
            return Err(format!(
                "{path}:{}: the game was played under other rules ({named})",
                g.line
            ));
        }
    }
    Ok(read
        .games
        .into_iter()
        .map(|g| ReadGame {
            start: g.start,
            moves: g.moves,
        })
        .collect())
}

/// Builds the openings.
pub fn build(cfg: &OpeningsConfig) -> Result<Vec<Opening>, String> {
    if cfg.plies == 0 {
        return Err("--plies must be at least 1".into());
    }
    let mut engine = Engine::new();
    engine.set_hash(16)?;
    // Scores in the defenders' view, so that openings ending with either
    // side to move compare with the start.
    let defenders_view = |score: i32, side: Side| match side {
        Side::Defenders => score,
        Side::Attackers => -score,
    };
    let reference = match cfg.balanced {
        Some(depth) => {
            engine.set_rules(cfg.rules.clone());
            let side = engine.game().side_to_move();
            let score = engine.search(Limits::depth(depth)).score;
            Some((depth, defenders_view(score, side)))
        }
        None => None,
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for path in &cfg.from {
        for g in read_games(path, &cfg.rules)? {
            if cfg.count.is_some_and(|n| out.len() >= n) {
                return Ok(out);
            }
            if g.moves.len() <= cfg.plies {
                continue;
            }
            let moves: Vec<String> = g.moves[..cfg.plies]
                .iter()
                .map(|m| m.split('x').next().unwrap_or(m).to_string())
                .collect();
            // A game that breaks the rules or ends within the opening is no
            // opening.
            let Ok(game) = Game::from_start_and_moves(cfg.rules.clone(), &g.start, &moves) else {
                continue;
            };
            if game.outcome().is_some() || !seen.insert(game.position().hash()) {
                continue;
            }
            if let Some((depth, start_score)) = reference {
                let side = game.side_to_move();
                engine.set_game(game);
                let s = defenders_view(engine.search(Limits::depth(depth)).score, side);
                if s.abs() >= WIN_BOUND || (s - start_score).abs() > cfg.margin {
                    continue;
                }
            }
            out.push(Opening {
                start: g.start,
                moves,
            });
        }
    }
    Ok(out)
}

/// The openings as a file for `konakis match --openings`.
pub fn file_text(openings: &[Opening], rules: &Rules, header: &str) -> String {
    let start = Position::start(rules);
    let mut text = format!("# {header}\n");
    for o in openings {
        let moves = o.moves.join(" ");
        let is_start = match &o.start {
            StartPoint::Initial => true,
            StartPoint::Position { .. } => Game::from_start(rules.clone(), &o.start)
                .is_ok_and(|g| g.position().hash() == start.hash() && g.position().ply == 0),
        };
        if is_start {
            text.push_str(&format!("startpos moves {moves}\n"));
        } else {
            text.push_str(&format!("{} moves {moves}\n", o.start));
        }
    }
    text
}
