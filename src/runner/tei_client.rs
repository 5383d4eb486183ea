//! The host side of the engine protocol (`protocol.md`), so that
//! `konakis match` can play Konakis or any other tei engine.

use super::player::{parse_score, Answer, Failure, Player, Protocol, Turn, HANDSHAKE_TIMEOUT};
use super::TimeControl;
use crate::rules::Rules;
use std::time::{Duration, Instant};

/// The engine protocol of `protocol.md`.
pub struct Tei;

impl Protocol for Tei {
    /// `tei` → `teiok`, then the variant, the rule overrides and the
    /// engine's options, each checked.
    fn handshake(
        &self,
        p: &mut Player,
        variant: &str,
        overrides: &[(String, String)],
        _rules: &Rules,
    ) -> Result<(), String> {
        p.send("tei").map_err(|_| p.describe("exited at start"))?;
        p.wait_for("teiok", HANDSHAKE_TIMEOUT)
            .map_err(|f| p.describe(&format!("no teiok ({f:?})")))?;
        p.send(&format!("setoption name Variant value {variant}"))
            .map_err(|_| p.describe("exited"))?;
        let options = p.spec.options.clone();
        for (k, v) in overrides.iter().chain(options.iter()) {
            p.send(&format!("setoption name {k} value {v}"))
                .map_err(|_| p.describe("exited"))?;
        }
        options_accepted(p)
    }

    /// `isready` → `readyok` within the handshake timeout.
    fn ready(&self, p: &mut Player) -> Result<(), String> {
        p.send("isready").map_err(|_| p.describe("exited"))?;
        p.wait_for("readyok", HANDSHAKE_TIMEOUT)
            .map(|_| ())
            .map_err(|f| p.describe(&format!("no readyok ({f:?})")))
    }

    fn new_game(&self, p: &mut Player) -> Result<(), String> {
        p.send("newgame").map_err(|_| p.describe("exited"))?;
        self.ready(p)
    }

    /// Sends the position and `go`, waits for `bestmove` until the
    /// deadline.
    fn request_move(&self, p: &mut Player, turn: &Turn) -> Result<Answer, Failure> {
        let (cfg, clocks) = (turn.cfg, turn.clocks);
        let moves: Vec<&str> = turn.moves.iter().map(|m| m.text.as_str()).collect();
        let position = format!("position {} moves {}", turn.start, moves.join(" "));
        let s = turn.game.side_to_move().index();
        let (go, timeout) = match cfg.tc {
            TimeControl::Clock { inc, .. } => (
                format!(
                    "go atime {} dtime {} ainc {inc} dinc {inc}",
                    clocks[0].max(0),
                    clocks[1].max(0)
                ),
                Duration::from_millis((clocks[s].max(0) as u64).saturating_add(cfg.time_margin)),
            ),
            TimeControl::MoveTime(ms) => (
                format!("go movetime {ms}"),
                Duration::from_millis(ms.saturating_add(cfg.time_margin.max(1000))),
            ),
            TimeControl::Depth(d) => (format!("go depth {d}"), cfg.stall),
            TimeControl::Nodes(n) => (format!("go nodes {n}"), cfg.stall),
        };
        p.send(&position)?;
        p.send(&go)?;
        let deadline = Instant::now() + timeout;
        let mut score = None;
        loop {
            let line = p.next_line(deadline.saturating_duration_since(Instant::now()))?;
            if line.starts_with("info") {
                // The last score reported counts (lower and upper bounds too).
                score = parse_score(&line).or(score);
                continue;
            }
            if line.starts_with("bestmove") {
                return match line.split_whitespace().nth(1) {
                    Some(m) => Ok(Answer {
                        text: m.to_string(),
                        score,
                    }),
                    None => Err(Failure::Malformed(line)),
                };
            }
        }
    }

    fn quit(&self, p: &mut Player) {
        let _ = p.send("quit");
    }
}

/// `isready` → `readyok`, failing if the engine answered an error to
/// anything sent since (an option it refused).
fn options_accepted(p: &mut Player) -> Result<(), String> {
    p.send("isready").map_err(|_| p.describe("exited"))?;
    let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = p
            .next_line(left)
            .map_err(|f| p.describe(&format!("no readyok ({f:?})")))?;
        if line.starts_with("readyok") {
            return Ok(());
        }
        if let Some(e) = line.strip_prefix("info string error") {
            return Err(p.describe(&format!("refused a setting:{e}")));
        }
    }
}
