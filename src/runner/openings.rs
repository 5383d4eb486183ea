//! `konakis openings`: opening files for `konakis match --openings FILE`,
//! built from games people or engines played — the runner's own records,
//! OpenTafl game records (`konakis replay --opentafl`), and the
//! comma-separated Copenhagen records of `../shared/cases/real/` — cut at a
//! number of plies, without repeats, and without openings a short search
//! finds lopsided.

use super::record::GameRecord;
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

/// The games of a file, whichever of the three formats it holds.
fn read_games(path: &str, rules: &Rules) -> Result<Vec<ReadGame>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.starts_with("konakis-game") {
        let mut games = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let rec = GameRecord::parse(line).map_err(|e| format!("{path}:{}: {e}", i + 1))?;
            let record_rules = Rules::build(rec.variant, &rec.overrides)?;
            if record_rules != *rules {
                return Err(format!(
                    "{path}:{}: the game was played under other rules ({}{})",
                    i + 1,
                    rec.variant,
                    rec.overrides
                        .iter()
                        .map(|(k, v)| format!(" {k}={v}"))
                        .collect::<String>()
                ));
            }
            games.push(ReadGame {
                start: rec.start.clone(),
                moves: rec.moves.iter().map(|m| m.text.clone()).collect(),
            });
        }
        return Ok(games);
    }
    if first.starts_with('[') {
        return Ok(read_opentafl(&text));
    }
    // The comma-separated records of people's games: moves first.
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| ReadGame {
            start: StartPoint::Initial,
            moves: l
                .split(',')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .filter(|t| *t != "timeout")
                .map(String::from)
                .collect(),
        })
        .collect())
}

/// OpenTafl game records: tags, the rules, an optional start record, then
/// numbered turns (`1. d1-d2 e3-f3xf2`, `...` for a missing move).
fn read_opentafl(text: &str) -> Vec<ReadGame> {
    let mut games = Vec::new();
    let mut current: Option<ReadGame> = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            games.extend(current.take());
            current = Some(ReadGame {
                start: StartPoint::Initial,
                moves: Vec::new(),
            });
            continue;
        }
        let Some(game) = current.as_mut() else {
            continue;
        };
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        if first.ends_with('.') && first[..first.len() - 1].chars().all(|c| c.is_ascii_digit()) {
            game.moves
                .extend(words.filter(|w| *w != "...").map(String::from));
        }
    }
    games.extend(current);
    games
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
