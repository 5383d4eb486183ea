//! Game records: one self-contained line per game, readable back and
//! replayable to the same result.
//!
//! ```text
//! konakis-game 1 | game 3 | variant tablut | rules NoCaptureLimit=100 | start /…/ a 0 0 | attackers A | defenders B | result defenders king-escaped | plies 57 | moves d1-d2:120 e3-f3:98 …
//! ```
//!
//! `opening` (when present) numbers the match's opening, shared by the two
//! games of a pair. `rules` lists the overrides applied to the preset (`-` for none); `start`
//! is the position record, side and counters before the first move; each
//! move carries the milliseconds it took and, after a second colon, the
//! score the engine reported for it (its own side's view), when it did.
//! `result` is the winner (or `draw`) and the reason: a rule reason
//! (`king-escaped`, `king-captured`, `encircled`, `exit-fort`, `no-moves`,
//! `repetition`, `no-capture-limit`, `move-limit`) or an adjudication
//! (`time`, `crash`, `illegal-move`, `stall`, `adjudicated-length`,
//! `adjudicated-draw`, `adjudicated-resign`), or `unfinished` for a game
//! saved while still in play. An illegal move's text follows as `| illegal <text>`.

use crate::rules::{Game, Preset, Reason, Rules, Side, StartPoint};
use std::fmt;

/// Why a match game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    Rule(Reason),
    Time,
    Crash,
    IllegalMove,
    Stall,
    /// Still going at `--maxplies`: a draw.
    AdjudicatedLength,
    /// Both engines' scores near zero for long enough: a draw.
    AdjudicatedDraw,
    /// One engine's score hopeless for long enough: it loses.
    AdjudicatedResign,
    /// Not over: a game saved while it was still being played (the
    /// browser board's export). Counted as a draw where results are summed.
    Unfinished,
}

impl EndReason {
    /// Whether the runner, not the rules, ended the game.
    pub fn adjudicated(self) -> bool {
        !matches!(self, EndReason::Rule(_))
    }
}

/// One move of a game: its text, the milliseconds it took, and the score
/// the engine reported for it (its own side's view), if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    pub text: String,
    pub ms: u64,
    pub score: Option<i32>,
}

impl RecordedMove {
    /// An opening move: no time, no score.
    pub fn opening(text: &str) -> RecordedMove {
        RecordedMove {
            text: text.to_string(),
            ms: 0,
            score: None,
        }
    }

    /// `m:ms` or `m:ms:score`.
    fn text_form(&self) -> String {
        match self.score {
            Some(s) => format!("{}:{}:{s}", self.text, self.ms),
            None => format!("{}:{}", self.text, self.ms),
        }
    }

    fn parse(word: &str) -> Result<RecordedMove, String> {
        let mut parts = word.split(':');
        let text = parts.next().unwrap_or_default().to_string();
        let ms = match parts.next() {
            Some(t) => t
                .parse()
                .map_err(|_| format!("bad move time in '{word}'"))?,
            None => 0,
        };
        let score = match parts.next() {
            Some(v) => Some(v.parse().map_err(|_| format!("bad score in '{word}'"))?),
            None => None,
        };
        Ok(RecordedMove { text, ms, score })
    }
}

impl EndReason {
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Rule(r) => r.name(),
            EndReason::Time => "time",
            EndReason::Crash => "crash",
            EndReason::IllegalMove => "illegal-move",
            EndReason::Stall => "stall",
            EndReason::AdjudicatedLength => "adjudicated-length",
            EndReason::AdjudicatedDraw => "adjudicated-draw",
            EndReason::AdjudicatedResign => "adjudicated-resign",
            EndReason::Unfinished => "unfinished",
        }
    }
    pub fn parse(s: &str) -> Result<EndReason, String> {
        Ok(match s {
            "time" => EndReason::Time,
            "crash" => EndReason::Crash,
            "illegal-move" => EndReason::IllegalMove,
            "stall" => EndReason::Stall,
            "adjudicated-length" => EndReason::AdjudicatedLength,
            "adjudicated-draw" => EndReason::AdjudicatedDraw,
            "adjudicated-resign" => EndReason::AdjudicatedResign,
            "unfinished" => EndReason::Unfinished,
            _ => EndReason::Rule(s.parse()?),
        })
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    pub number: usize,
    /// Which opening of the match (the two games of a pair share one), so
    /// that records from separate runs merge into pairs.
    pub opening: Option<usize>,
    pub variant: Preset,
    pub overrides: Vec<(String, String)>,
    /// Record, side token and counters: `/…/ a 0 0`.
    pub start: StartPoint,
    pub attackers: String,
    pub defenders: String,
    pub winner: Option<Side>,
    pub reason: EndReason,
    /// Moves with the milliseconds each took and the scores reported.
    pub moves: Vec<RecordedMove>,
    pub illegal: Option<String>,
}

impl GameRecord {
    pub fn line(&self) -> String {
        let rules = if self.overrides.is_empty() {
            "-".to_string()
        } else {
            self.overrides
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let winner = self.winner.map(|s| s.name()).unwrap_or("draw");
        let moves: Vec<String> = self.moves.iter().map(RecordedMove::text_form).collect();
        let opening = self
            .opening
            .map(|o| format!(" | opening {o}"))
            .unwrap_or_default();
        let mut line = format!(
            "konakis-game 1 | game {}{opening} | variant {} | rules {} | start {} | attackers {} | defenders {} | result {} {} | plies {} | moves {}",
            self.number,
            self.variant,
            rules,
            self.start,
            self.attackers,
            self.defenders,
            winner,
            self.reason,
            self.moves.len(),
            moves.join(" ")
        );
        if let Some(text) = &self.illegal {
            line.push_str(&format!(" | illegal {text}"));
        }
        line
    }

    pub fn parse(line: &str) -> Result<GameRecord, String> {
        let mut fields = line.split(" | ");
        if fields.next().map(str::trim) != Some("konakis-game 1") {
            return Err("not a konakis-game 1 record".into());
        }
        let mut rec = GameRecord {
            number: 0,
            opening: None,
            variant: Preset::Tablut,
            overrides: Vec::new(),
            start: StartPoint::Initial,
            attackers: String::new(),
            defenders: String::new(),
            winner: None,
            reason: EndReason::Crash,
            moves: Vec::new(),
            illegal: None,
        };
        for field in fields {
            let (key, value) = field.trim().split_once(' ').unwrap_or((field.trim(), ""));
            match key {
                "game" => {
                    rec.number = value
                        .parse()
                        .map_err(|_| format!("bad game number '{value}'"))?
                }
                "opening" => {
                    rec.opening = Some(
                        value
                            .parse()
                            .map_err(|_| format!("bad opening number '{value}'"))?,
                    )
                }
                "variant" => rec.variant = value.parse()?,
                "rules" => {
                    if value != "-" {
                        for pair in value.split(',') {
                            let (k, v) = pair
                                .split_once('=')
                                .ok_or_else(|| format!("bad rule '{pair}'"))?;
                            rec.overrides.push((k.to_string(), v.to_string()));
                        }
                    }
                }
                "start" => rec.start = value.parse().map_err(|e| format!("bad start: {e}"))?,
                "attackers" => rec.attackers = value.to_string(),
                "defenders" => rec.defenders = value.to_string(),
                "result" => {
                    let (w, r) = value.split_once(' ').ok_or("bad result")?;
                    rec.winner = match w {
                        "draw" => None,
                        other => Some(other.parse()?),
                    };
                    rec.reason = EndReason::parse(r)?;
                }
                "plies" => {}
                "moves" => {
                    for m in value.split_whitespace() {
                        rec.moves.push(RecordedMove::parse(m)?);
                    }
                }
                "illegal" => rec.illegal = Some(value.to_string()),
                _ => return Err(format!("unknown record field '{key}'")),
            }
        }
        Ok(rec)
    }

    /// The game in OpenTafl's game-record style: tags, the rules string,
    /// then numbered turns with captures (`1. d1-d2 e3-f3xf2`).
    pub fn to_opentafl(&self) -> Result<String, String> {
        let game = self.replay()?;
        let rules = game.rules();
        let result = match (self.winner, self.reason) {
            (_, EndReason::Unfinished) => "?",
            (Some(Side::Attackers), _) => "1",
            (Some(Side::Defenders), _) => "-1",
            (None, _) => "0",
        };
        let mut out = format!(
            "[variant:{}] [round:{}] [attackers:{}] [defenders:{}] [result:{}] [termination:{}]\n{}\n",
            self.variant, self.number, self.attackers, self.defenders, result, self.reason,
            crate::rules::otn::otn_rules_string(rules)
        );
        let start = game.setup_position();
        if start.setup(rules.size()) != rules.options().setup {
            out.push_str(&start.setup(rules.size()).record());
            out.push('\n');
        }
        let positions = game.positions();
        let mut turn = Vec::new();
        let mut number = 1;
        if start.side_to_move() == Side::Defenders {
            turn.push("...".to_string());
        }
        for (i, mv) in game.moves().iter().enumerate() {
            turn.push(crate::rules::otn::otn_move(
                &positions[i],
                &positions[i + 1],
                *mv,
            ));
            if turn.len() == 2 {
                out.push_str(&format!("{number}. {}\n", turn.join(" ")));
                turn.clear();
                number += 1;
            }
        }
        if !turn.is_empty() {
            out.push_str(&format!("{number}. {}\n", turn.join(" ")));
        }
        Ok(out)
    }

    /// Replays the moves under the recorded rules and checks the result: a
    /// rule result must come out the same; an adjudicated game must still be
    /// in play after its moves.
    pub fn replay(&self) -> Result<Game, String> {
        let rules = Rules::build(self.variant, &self.overrides)?;
        let moves: Vec<&str> = self.moves.iter().map(|m| m.text.as_str()).collect();
        let game = Game::from_start_and_moves(rules, &self.start, &moves)?;
        match (self.reason, game.outcome()) {
            (EndReason::Rule(r), Some(o)) if o.reason == r && o.winner == self.winner => Ok(game),
            (EndReason::Rule(_), other) => Err(format!(
                "recorded {} {}, replayed {}",
                self.winner.map(|s| s.name()).unwrap_or("draw"),
                self.reason,
                other
                    .map(|o| o.to_string())
                    .unwrap_or_else(|| "ongoing".into())
            )),
            (_, None) => Ok(game),
            (_, Some(o)) => Err(format!(
                "recorded an adjudication ({}), but the rules ended the game: {o}",
                self.reason
            )),
        }
    }
}
