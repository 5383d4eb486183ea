//! Static evaluation, from the side to move's view, in centi-soldiers.
//!
//! Three evaluations, option `Eval`: `nnue` (the default: a small
//! network, [`nnue`], trained by `konakis train`, where the board family
//! has a net or one is loaded with `EvalFile`; elsewhere `learned`),
//! `learned` (also called `classic`: a linear model over [`features`], its
//! weights fitted by `konakis tune` to Konakis's own games, where the
//! family has weights; elsewhere `hand`) and `hand` (the hand-set terms,
//! kept for comparison).

pub mod cache;
pub mod features;
pub mod hand;
pub mod learned;
pub mod nnue;
pub mod nnue_simd;

use crate::rules::{Bitboard, Position, Rules, Side};
pub use hand::{breakdown, Breakdown};
pub use learned::Family;
use std::sync::Arc;

/// Which evaluation a search uses.
#[derive(Clone, Debug)]
pub enum Evaluator {
    Hand,
    Learned(Arc<learned::Weights>),
    Nnue(Arc<nnue::Network>),
}

/// The evaluation choices of the `Eval` option (`classic` is `learned`).
pub const EVAL_NAMES: &[&str] = &["learned", "hand", "nnue", "classic"];

impl Evaluator {
    /// The evaluator named for these rules: a net where `nnue` is asked for
    /// and one fits the board family (`file`, loaded by `EvalFile`, before
    /// the embedded one), else the learned weights (`weights`, loaded by
    /// `WeightsFile`, or the family's embedded ones), else the hand
    /// evaluation.
    pub fn for_rules(
        name: &str,
        rules: &Rules,
        file: Option<&Arc<nnue::Network>>,
        weights: Option<&Arc<learned::Weights>>,
    ) -> Evaluator {
        let family = Family::of(rules);
        if name == "nnue" {
            let net = file
                .filter(|n| n.family == family)
                .cloned()
                .or_else(|| nnue::embedded_net(family));
            if let Some(net) = net {
                return Evaluator::Nnue(net);
            }
        }
        match (
            name,
            weights.cloned().or_else(|| learned::weights_for(rules)),
        ) {
            ("hand", _) | (_, None) => Evaluator::Hand,
            (_, Some(w)) => Evaluator::Learned(w),
        }
    }

    /// The evaluator for a search by the engine playing `side` (the side to
    /// move at the root): learned weights with that side's overrides.
    pub fn for_side(self, side: Side) -> Evaluator {
        match self {
            Evaluator::Learned(w) => Evaluator::Learned(w.for_side(side)),
            e => e,
        }
    }

    /// What the evaluator is, for `eval` and `info string`.
    pub fn describe(&self, rules: &Rules) -> String {
        match self {
            Evaluator::Hand => "hand".to_string(),
            Evaluator::Learned(w) => match &w.file {
                Some(path) => format!("learned {path}"),
                None => {
                    let family = Family::of(rules);
                    match learned::source(family) {
                        Some(from) if from != family => {
                            format!("learned {} ({}'s weights)", family.name(), from.name())
                        }
                        _ => format!("learned {}", family.name()),
                    }
                }
            },
            Evaluator::Nnue(net) => format!("nnue {} {}x2", net.family.name(), net.hidden),
        }
    }

    /// The evaluation from the side to move's point of view.
    #[inline]
    pub fn evaluate(&self, pos: &Position, rules: &Rules) -> i32 {
        let defenders_view = match self {
            Evaluator::Hand => breakdown(pos, rules).total(),
            Evaluator::Learned(w) => w.evaluate(pos, rules),
            Evaluator::Nnue(net) => return net.evaluate(pos),
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
