//! The host side of the OpenTafl Engine Protocol, so that `konakis match`
//! can play OpenTafl's AI or any other OTEP engine.

use super::player::{parse_score, Answer, Failure, Player, Protocol, Turn, HANDSHAKE_TIMEOUT};
use super::TimeControl;
use crate::rules::otn::{otn_expressible, otn_rules_string};
use crate::rules::{Move, Rules};
use std::time::{Duration, Instant};

/// The OpenTafl Engine Protocol.
pub struct Otep;

impl Protocol for Otep {
    /// Sends the rules and waits for `hello` (OTEP hosts allow 5 seconds;
    /// we allow the handshake timeout).
    fn handshake(
        &self,
        p: &mut Player,
        _variant: &str,
        _overrides: &[(String, String)],
        rules: &Rules,
    ) -> Result<(), String> {
        otn_expressible(rules).map_err(|e| format!("engine '{}' speaks OTEP: {e}", p.spec.name))?;
        p.send(&format!("rules {}", otn_rules_string(rules)))
            .map_err(|_| format!("engine '{}' exited at start", p.spec.name))?;
        p.wait_for("hello", HANDSHAKE_TIMEOUT)
            .map_err(|f| format!("engine '{}': no hello ({f:?})", p.spec.name))?;
        Ok(())
    }

    /// OTEP has no readiness check: an engine that said hello is ready.
    fn ready(&self, _p: &mut Player) -> Result<(), String> {
        Ok(())
    }

    /// The engine is told the position again at its first move.
    fn new_game(&self, p: &mut Player) -> Result<(), String> {
        p.known_plies = None;
        Ok(())
    }

    fn request_move(&self, p: &mut Player, turn: &Turn) -> Result<Answer, Failure> {
        request_move(p, turn)
    }

    fn quit(&self, p: &mut Player) {
        let _ = p.send("finish 0");
        let _ = p.send("goodbye");
    }
}

/// Brings the engine up to date, sends the clock and `play`, and waits for
/// its `move`; acknowledges a legal move with the board after it.
fn request_move(p: &mut Player, turn: &Turn) -> Result<Answer, Failure> {
    let (game, moves, cfg, clocks) = (turn.game, turn.moves, turn.cfg, turn.clocks);
    let rules = game.rules();
    let record = game.position().setup(rules.size()).record();
    let known = p.known_plies;
    match known {
        Some(k) if k + 1 == moves.len() => {
            let last = &moves[k].text;
            p.send(&format!("opponent-move {last} {record}"))?;
        }
        Some(k) if k == moves.len() => {}
        _ => {
            p.send(&format!("position {record}"))?;
            p.send(&format!("side {}", game.side_to_move().name()))?;
        }
    }
    let timeout = match cfg.tc {
        TimeControl::Clock { .. } => {
            p.send(&format!(
                "clock {} {} 0 0 0",
                clocks[0].max(0),
                clocks[1].max(0)
            ))?;
            Duration::from_millis(
                clocks[game.side_to_move().index()].max(0) as u64 + cfg.time_margin,
            )
        }
        TimeControl::MoveTime(ms) => {
            // OTEP has no per-move time: give the engine a clock of this much.
            let ms = ms as i64;
            p.send(&format!("clock {ms} {ms} 0 0 0"))?;
            Duration::from_millis(ms as u64 + cfg.time_margin.max(1000))
        }
        TimeControl::Depth(_) | TimeControl::Nodes(_) => cfg.stall,
    };
    p.send(&format!("play {}", game.side_to_move().name()))?;
    let deadline = Instant::now() + timeout;
    let mut score = None;
    loop {
        let line = p.next_line(deadline.saturating_duration_since(Instant::now()))?;
        let (cmd, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
        if cmd == "status" {
            score = parse_score(rest).or(score);
        }
        match cmd {
            "move" => {
                let text = rest.trim().to_string();
                if let Ok(mv) = Move::parse(&text, rules.size()) {
                    if game.position().is_legal(rules, mv) {
                        let after = game.position().make(rules, mv);
                        let _ = p.send(&format!("move {}", after.setup(rules.size()).record()));
                        p.known_plies = Some(moves.len() + 1);
                    }
                }
                return Ok(Answer { text, score });
            }
            "error" if rest.trim_start().starts_with("-1") => {
                // A critical error: the engine resigns.
                return Err(Failure::Malformed(format!("resigned: {rest}")));
            }
            // The engine asks for state again.
            "rules" if rest.trim().is_empty() => {
                p.send(&format!("rules {}", otn_rules_string(rules)))?
            }
            "position" if rest.trim().is_empty() => p.send(&format!("position {record}"))?,
            "side" if rest.trim().is_empty() => {
                p.send(&format!("side {}", game.side_to_move().name()))?
            }
            _ => {}
        }
    }
}
