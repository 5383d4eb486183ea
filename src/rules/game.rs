//! A game: a setup position, the moves played, and the result, with the
//! rules that need history (repetition) and counters (ply limits).

use super::notation::{parse_record, Setup};
use super::options::{Repetition, Rules};
use super::position::{MoveList, Outcome, Position, Reason};
use super::types::{Move, Side};
use std::fmt;
use std::str::FromStr;

/// Where a game starts: the rules' start position, or any position given
/// as a record with the side to move and the two ply counters. Text form
/// (as in `position` commands, openings and game records): `startpos`, or
/// `<record> <a|d> [<plies-since-capture> <ply>]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPoint {
    Initial,
    Position {
        setup: Setup,
        side: Side,
        plies_since_capture: u32,
        ply: u32,
    },
}

impl StartPoint {
    /// Parses the words of a start point (`startpos`, or a record, a side
    /// and optionally the two counters).
    pub fn from_words(words: &[&str]) -> Result<StartPoint, String> {
        let counter = |name: &str, t: &str| -> Result<u32, String> {
            t.parse::<u32>()
                .ok()
                .filter(|v| *v <= super::position::MAX_COUNTER)
                .ok_or_else(|| {
                    format!(
                        "bad {name} counter '{t}': expected a number from 0 to {}",
                        super::position::MAX_COUNTER
                    )
                })
        };
        let (record, side, since, ply) = match words {
            ["startpos"] => return Ok(StartPoint::Initial),
            [record, side] => (record, side, 0, 0),
            [record, side, since, ply] => (
                record,
                side,
                counter("plies-since-capture", since)?,
                counter("ply", ply)?,
            ),
            [] => return Err("expected 'startpos' or a position record and side".into()),
            _ => {
                return Err(format!(
                "expected 'startpos' or '<record> <a|d> [<plies-since-capture> <ply>]', got '{}'",
                words.join(" ")
            ))
            }
        };
        Ok(StartPoint::Position {
            setup: parse_record(record)?,
            side: side.parse()?,
            plies_since_capture: since,
            ply,
        })
    }

    /// A start point at an existing position.
    pub fn at(pos: &Position, rules: &Rules) -> StartPoint {
        StartPoint::Position {
            setup: pos.setup(rules.size()),
            side: pos.side_to_move(),
            plies_since_capture: pos.plies_since_capture,
            ply: pos.ply,
        }
    }
}

impl FromStr for StartPoint {
    type Err = String;
    fn from_str(s: &str) -> Result<StartPoint, String> {
        StartPoint::from_words(&s.split_whitespace().collect::<Vec<_>>())
    }
}

impl fmt::Display for StartPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StartPoint::Initial => f.write_str("startpos"),
            StartPoint::Position {
                setup,
                side,
                plies_since_capture,
                ply,
            } => write!(
                f,
                "{} {} {plies_since_capture} {ply}",
                setup.record(),
                side.token()
            ),
        }
    }
}

/// A move of a list that could not be played: its index (from 0), its text
/// and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveFailure {
    pub index: usize,
    pub text: String,
    pub why: String,
}

impl fmt::Display for MoveFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} '{}': {}", self.index + 1, self.text, self.why)
    }
}

/// A game from a setup position: every position reached, and its status.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    /// Positions from the setup on; the last is the current one.
    positions: Vec<Position>,
    moves: Vec<Move>,
    outcome: Option<Outcome>,
}

impl Game {
    /// A game from the start position of the rules.
    pub fn new(rules: Rules) -> Game {
        let start = Position::start(&rules);
        Game::from_position(rules, start)
    }

    /// A game from any position.
    pub fn from_position(rules: Rules, position: Position) -> Game {
        let mut game = Game {
            rules,
            positions: vec![position],
            moves: Vec::new(),
            outcome: None,
        };
        game.outcome = game.compute_outcome();
        game
    }

    /// A game from a start point, checked against the rules: the one place
    /// where a record, a side and counters become a game.
    pub fn from_start(rules: Rules, start: &StartPoint) -> Result<Game, String> {
        let pos = match start {
            StartPoint::Initial => Position::start(&rules),
            StartPoint::Position {
                setup,
                side,
                plies_since_capture,
                ply,
            } => Position::from_setup(setup, *side, &rules, *plies_since_capture, *ply)?,
        };
        Ok(Game::from_position(rules, pos))
    }

    /// A game from a start point followed by moves given as text. An
    /// illegal or unreadable move is named with its number.
    pub fn from_start_and_moves<M: AsRef<str>>(
        rules: Rules,
        start: &StartPoint,
        moves: &[M],
    ) -> Result<Game, String> {
        let mut game = Game::from_start(rules, start)?;
        game.play_all(moves).map_err(|e| e.to_string())?;
        Ok(game)
    }

    /// Plays moves given as text, in order, until one cannot be played:
    /// that one is returned with its index and the reason, and the moves
    /// before it stay played.
    pub fn play_all<M: AsRef<str>>(&mut self, moves: &[M]) -> Result<(), MoveFailure> {
        for (index, m) in moves.iter().enumerate() {
            let text = m.as_ref();
            let failure = |why| MoveFailure {
                index,
                text: text.to_string(),
                why,
            };
            let mv = Move::parse(text, self.rules.size()).map_err(failure)?;
            if let Some(why) = self.why_refused(mv) {
                return Err(failure(why));
            }
            self.play(mv).map_err(failure)?;
        }
        Ok(())
    }

    /// A game from a position record (rank 1 first), the side to move and
    /// the two counters; for tests and tools.
    pub fn from_record(
        rules: Rules,
        record: &str,
        side: Side,
        plies_since_capture: u32,
        ply: u32,
    ) -> Result<Game, String> {
        let start = StartPoint::Position {
            setup: parse_record(record)?,
            side,
            plies_since_capture,
            ply,
        };
        Game::from_start(rules, &start)
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    pub fn position(&self) -> &Position {
        self.positions
            .last()
            .unwrap_or_else(|| unreachable!("a game always has a position"))
    }
    pub fn setup_position(&self) -> &Position {
        &self.positions[0]
    }
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }
    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }
    pub fn side_to_move(&self) -> Side {
        self.position().side_to_move()
    }

    /// The legal moves now (none once the game is over).
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.outcome.is_none() {
            self.moves_of_position(&mut list);
        }
        list
    }

    /// The moves the current position allows, the game's history
    /// considered, even when these rules say the game is over (for a
    /// client whose server plays on).
    pub fn playable_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.moves_of_position(&mut list);
        list
    }

    /// The moves the current position allows, the game's history
    /// considered (the defenders' forbidden repetitions), whether or not
    /// the game is over.
    fn moves_of_position(&self, list: &mut MoveList) {
        let pos = self.position();
        pos.generate_moves(&self.rules, list);
        if let Some(earlier) = self.forbidden_boards() {
            list.retain(|m| !pos.recreates_board(*m, &earlier));
        }
    }

    /// Under `Repetition=defenders-forbidden` with the defenders to move:
    /// the hashes of the boards their move may not recreate (those since
    /// the last capture: earlier ones hold more pieces).
    fn forbidden_boards(&self) -> Option<Vec<u64>> {
        let pos = self.position();
        if self.rules.options().repetition != Repetition::DefendersForbidden
            || pos.side_to_move() != Side::Defenders
        {
            return None;
        }
        let n = self.positions.len();
        let window = (pos.plies_since_capture as usize + 1).min(n);
        Some(
            self.positions[n - window..]
                .iter()
                .map(Position::hash)
                .collect(),
        )
    }

    /// Parses and plays a move given as text. On error nothing changes.
    pub fn play_str(&mut self, text: &str) -> Result<Move, String> {
        let mv = Move::parse(text, self.rules.size())?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Plays a move after checking it. On error nothing changes.
    pub fn play(&mut self, mv: Move) -> Result<(), String> {
        if let Some(why) = self.why_refused(mv) {
            return Err(match self.outcome {
                Some(_) => format!("{why}; {mv} cannot be played"),
                None => format!("illegal move {mv}: {why}"),
            });
        }
        let next = self.position().make(&self.rules, mv);
        self.positions.push(next);
        self.moves.push(mv);
        self.outcome = self.compute_outcome();
        Ok(())
    }

    /// Why `mv` cannot be played now, in a player's words (the game is
    /// over, a rule of the board, or a forbidden repetition), or `None`
    /// when it can.
    pub fn why_refused(&self, mv: Move) -> Option<String> {
        if let Some(o) = self.outcome {
            return Some(format!("the game is over ({o})"));
        }
        let pos = self.position();
        if let Some(why) = pos.why_illegal(&self.rules, mv) {
            return Some(why);
        }
        match self.forbidden_boards() {
            Some(earlier) if pos.recreates_board(mv, &earlier) => {
                Some("the defenders may not recreate an earlier board".into())
            }
            _ => None,
        }
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        if self.moves.is_empty() {
            return None;
        }
        self.positions.pop();
        let mv = self.moves.pop();
        self.outcome = self.compute_outcome();
        mv
    }

    /// How many times the current position has occurred in this game.
    pub fn occurrences(&self) -> usize {
        let h = self.position().hash();
        self.positions.iter().filter(|p| p.hash() == h).count()
    }

    /// The positions that count as occurrences for repetition: all of
    /// them, or with `RepetitionCount=2` those reached by a move (the
    /// Tablut Challenge server keeps no earlier states than those). The
    /// game's repetition rule and the search's history both read this.
    pub fn counted_positions(&self) -> &[Position] {
        let skip =
            usize::from(self.rules.options().repetition_count == 2 && !self.moves.is_empty());
        &self.positions[skip..]
    }

    /// Whether the current position ends the game by repetition: its
    /// `RepetitionCount`-th occurrence (3: the start position counts; 2: the
    /// first recurrence of a position reached by a move).
    fn repeated(&self) -> bool {
        let h = self.position().hash();
        let seen = self
            .counted_positions()
            .iter()
            .filter(|p| p.hash() == h)
            .count();
        seen >= self.rules.options().repetition_count as usize
    }

    /// The rules applied after a move, in order: the move's own result
    /// (escape, capture, encirclement, exit fort); no legal move for the
    /// side to move; repetition; ply limits.
    fn compute_outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if let Some(o) = pos.outcome() {
            return Some(o);
        }
        let to_move = pos.side_to_move();
        let no_moves = match self.forbidden_boards() {
            None => !pos.has_moves(&self.rules),
            Some(earlier) => {
                let mut list = MoveList::new();
                pos.generate_moves(&self.rules, &mut list);
                list.iter().all(|m| pos.recreates_board(*m, &earlier))
            }
        };
        if no_moves {
            return Some(Outcome::win(to_move.other(), Reason::NoMoves));
        }
        if !matches!(
            self.rules.options().repetition,
            Repetition::None | Repetition::DefendersForbidden
        ) && self.repeated()
        {
            let mover = to_move.other();
            return Some(match self.rules.options().repetition {
                Repetition::Draw | Repetition::None | Repetition::DefendersForbidden => {
                    Outcome::draw(Reason::Repetition)
                }
                Repetition::MoverLoses => Outcome::win(mover.other(), Reason::Repetition),
                Repetition::DefendersLose => Outcome::win(Side::Attackers, Reason::Repetition),
            });
        }
        let limit = self.rules.options().no_capture_limit;
        if limit > 0 && pos.plies_since_capture >= limit {
            return Some(Outcome::draw(Reason::NoCaptureLimit));
        }
        let limit = self.rules.options().ply_limit;
        if limit > 0 && pos.ply >= limit {
            return Some(Outcome::draw(Reason::MoveLimit));
        }
        None
    }
}
