//! A game: a setup position, the moves played, and the result, with the
//! rules that need history (repetition) and counters (ply limits).

use super::notation::parse_record;
use super::options::{Repetition, Rules};
use super::position::{MoveList, Outcome, Position, Reason};
use super::types::{Move, Side};

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

    /// A game from a position record, side token and optional counters.
    pub fn from_record(
        rules: Rules,
        record: &str,
        side: Side,
        plies_since_capture: u32,
        ply: u32,
    ) -> Result<Game, String> {
        let setup = parse_record(record)?;
        let pos = Position::from_setup(&setup, side, &rules, plies_since_capture, ply)?;
        Ok(Game::from_position(rules, pos))
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
            self.position().generate_moves(&self.rules, &mut list);
        }
        list
    }

    /// Parses and plays a move given as text. On error nothing changes.
    pub fn play_str(&mut self, text: &str) -> Result<Move, String> {
        let mv = Move::parse(text, self.rules.size())?;
        self.play(mv)?;
        Ok(mv)
    }

    /// Plays a move after checking it. On error nothing changes.
    pub fn play(&mut self, mv: Move) -> Result<(), String> {
        if let Some(o) = self.outcome {
            return Err(format!("the game is over ({o}); {mv} cannot be played"));
        }
        let pos = self.position();
        if !pos.is_legal(&self.rules, mv) {
            return Err(format!(
                "illegal move {mv} for the {} in this position",
                pos.side_to_move().name()
            ));
        }
        let next = pos.make(&self.rules, mv);
        self.positions.push(next);
        self.moves.push(mv);
        self.outcome = self.compute_outcome();
        Ok(())
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

    /// The rules applied after a move, in order: the move's own result
    /// (escape, capture, encirclement, exit fort); no legal move for the
    /// side to move; repetition; ply limits.
    fn compute_outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if let Some(o) = pos.outcome() {
            return Some(o);
        }
        let to_move = pos.side_to_move();
        if !pos.has_moves(&self.rules) {
            return Some(Outcome::win(to_move.other(), Reason::NoMoves));
        }
        if self.rules.repetition != Repetition::None && self.occurrences() >= 3 {
            let mover = to_move.other();
            return Some(match self.rules.repetition {
                Repetition::Draw | Repetition::None => Outcome::draw(Reason::Repetition),
                Repetition::MoverLoses => Outcome::win(mover.other(), Reason::Repetition),
                Repetition::DefendersLose => Outcome::win(Side::Attackers, Reason::Repetition),
            });
        }
        let limit = self.rules.no_capture_limit;
        if limit > 0 && pos.plies_since_capture >= limit {
            return Some(Outcome::draw(Reason::NoCaptureLimit));
        }
        let limit = self.rules.ply_limit;
        if limit > 0 && pos.ply >= limit {
            return Some(Outcome::draw(Reason::MoveLimit));
        }
        None
    }
}
