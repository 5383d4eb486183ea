//! Static evaluation, from the side to move's view, in centi-soldiers.
//!
//! Two evaluations: `learned` (the default where weights for the board
//! family exist: a linear model over [`features`], its weights fitted by
//! `konakis tune` to Konakis's own games) and `hand` (the hand-set terms it
//! replaces, kept for comparison; option `Eval`).

pub mod features;
pub mod hand;
pub mod learned;

use crate::rules::{Bitboard, Position, Rules, Side};
pub use hand::{breakdown, Breakdown};
pub use learned::Family;

/// Which evaluation a search uses.
#[derive(Clone, Copy, Debug)]
pub enum Evaluator {
    Hand,
    Learned(&'static learned::Weights),
}

/// The evaluation choices of the `Eval` option.
pub const EVAL_NAMES: &[&str] = &["learned", "hand"];

impl Evaluator {
    /// The evaluator named (`learned` or `hand`) for these rules: learned
    /// weights are used where the board family has them.
    pub fn for_rules(name: &str, rules: &Rules) -> Evaluator {
        match (name, learned::weights_for(rules)) {
            ("learned", Some(w)) => Evaluator::Learned(w),
            _ => Evaluator::Hand,
        }
    }

    /// The evaluation from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, pos: &Position, rules: &Rules) -> i32 {
        let defenders_view = match self {
            Evaluator::Hand => breakdown(pos, rules).total(),
            Evaluator::Learned(w) => w.evaluate(pos, rules),
        };
        match pos.side_to_move() {
            Side::Defenders => defenders_view,
            Side::Attackers => -defenders_view,
        }
    }
}

/// The escape squares the king reaches in one move: his open roads.
#[inline]
pub fn open_roads(pos: &Position, rules: &Rules) -> Bitboard {
    pos.open_roads(rules)
}
