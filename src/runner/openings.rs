//! `konakis openings`: opening files for `konakis match --openings FILE`,
//! built from games people or engines played — the runner's own records,
//! OpenTafl game records (`konakis replay --opentafl`), and the
//! comma-separated Copenhagen records of `../shared/cases/real/` — cut at a
//! number of plies, without repeats, and without openings a short search
//! finds lopsided.

use super::Opening;
use crate::records::import;
use crate::rules::{Game, Position, Rules, Side, StartPoint};
use crate::search::{Engine, Limits, WIN_BOUND};
use std::collections::HashSet;

/// What `konakis openings` is asked for.
#[derive(Clone, Debug)]
pub struct OpeningsConfig {
    pub from: Vec<String>,
    /// The rules asked for (`--variant`); without them, the rules the
    /// records name.
    pub rules: Option<Rules>,
    /// Plies each opening keeps.
    pub plies: usize,
    /// At most this many openings (the first found, in file order).
    pub count: Option<usize>,
    /// Leave out openings whose score at this depth is a proven result or
    /// further than `margin` from the start position's.
    pub balanced: Option<i32>,
    pub margin: i32,
}

/// One game read from a file: where it starts and its moves as text, and
/// where it was read.
struct ReadGame {
    start: StartPoint,
    moves: Vec<String>,
    at: String,
}

/// The games of every file, and the rules they are taken under: the ones
/// asked for (runner records must name those), else the ones the records
/// name (all the same). Comma-separated games and move lists name none.
fn read_games(cfg: &OpeningsConfig) -> Result<(Vec<ReadGame>, Rules), String> {
    let mut games = Vec::new();
    let mut named: Option<(Rules, String)> = None;
    for path in &cfg.from {
        let text = super::read_text(path, "a game records file")?;
        let read = import::read_games(&text).map_err(|e| format!("{path}: {e}"))?;
        if let Some(e) = read.errors.first() {
            return Err(format!("{path}: {e}"));
        }
        for g in read.games {
            let at = format!("{path}:{}", g.line);
            match (&g.rules, &cfg.rules, &named) {
                (Some(r), Some(asked), _)
                    if read.format == import::Format::Konakis && r != asked =>
                {
                    return Err(format!(
                        "{at}: the game was played under other rules ({})",
                        r.summary()
                    ));
                }
                (Some(r), None, None) => named = Some((r.clone(), at.clone())),
                (Some(r), None, Some((first, first_at))) if r != first => {
                    return Err(format!(
                        "{at} names other rules than {first_at}: choose one with --variant"
                    ));
                }
                _ => {}
            }
            games.push(ReadGame {
                start: g.start,
                moves: g.moves,
                at,
            });
        }
    }
    let rules = match (&cfg.rules, named) {
        (Some(r), _) => r.clone(),
        (None, Some((r, _))) => r,
        (None, None) => {
            return Err("the records name no rules (comma-separated games and move lists do not): give them with --variant (the games of ../shared/cases/real/ are copenhagen)".into())
        }
    };
    Ok((games, rules))
}

/// Builds the openings, and says under which rules. Stops with an error
/// when most games cannot be replayed under the rules (they were played
/// under others) or when no game is longer than the plies asked for.
pub fn build(cfg: &OpeningsConfig) -> Result<(Vec<Opening>, Rules), String> {
    if cfg.plies == 0 {
        return Err("--plies must be at least 1".into());
    }
    let (games, rules) = read_games(cfg)?;
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
            engine.set_rules(rules.clone());
            let side = engine.game().side_to_move();
            let score = engine.search(Limits::depth(depth)).score;
            Some((depth, defenders_view(score, side)))
        }
        None => None,
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let (mut tried, mut failed, mut first_failure) = (0usize, 0usize, None);
    let longest = games.iter().map(|g| g.moves.len()).max().unwrap_or(0);
    for g in games {
        if cfg.count.is_some_and(|n| out.len() >= n) {
            break;
        }
        if g.moves.len() <= cfg.plies {
            continue;
        }
        tried += 1;
        let moves: Vec<String> = g.moves[..cfg.plies].to_vec();
        // A game that ends within the opening is no opening; one that
        // breaks the rules is counted.
        let game = match Game::from_start_and_moves(rules.clone(), &g.start, &moves) {
            Ok(game) => game,
            Err(e) => {
                failed += 1;
                first_failure.get_or_insert(format!("{}: {e}", g.at));
                continue;
            }
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
    if tried == 0 {
        return Err(format!(
            "no game is longer than --plies {} (the longest has {longest} plies)",
            cfg.plies
        ));
    }
    if failed * 2 > tried {
        return Err(format!(
            "{failed} of {tried} games cannot be replayed under {} (the first: {}): were they played under other rules? Say which with --variant",
            rules.options().preset,
            first_failure.unwrap_or_default()
        ));
    }
    Ok((out, rules))
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
