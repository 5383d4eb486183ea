//! Perft: counting the leaves of the move tree, to check the move generator
//! and the capture and game-end rules against independent counts.
//!
//! Convention: a position won or lost by escape, king capture, encirclement
//! or exit fort has no children; repetition and ply limits are ignored.

use super::options::Rules;
use super::position::{MoveList, Position};
use super::types::Move;
use std::sync::atomic::{AtomicBool, Ordering};

/// The deepest perft the command line and the protocol accept (depth 12
/// already takes days on any board).
pub const MAX_DEPTH: u32 = 20;

/// How the plies next to the leaves are counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counting {
    /// The last two plies at once, from line deltas
    /// ([`Position::count_replies`]): the fastest.
    #[default]
    Replies,
    /// Every move made down to the last ply, which is counted without
    /// listing it: the make-and-generate path the search runs on.
    LastPly,
}

/// Leaf count at `depth`, counting the last two plies at once.
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    perft_with(pos, rules, depth, Counting::Replies)
}

/// Leaf count at `depth`, counting the last plies as `counting` says.
pub fn perft_with(pos: &Position, rules: &Rules, depth: u32, counting: Counting) -> u64 {
    match (depth, counting) {
        (0, _) => 1,
        (1, _) => pos.count_moves(rules) as u64,
        (2, Counting::Replies) => pos.count_replies(rules),
        _ => {
            let mut moves = MoveList::new();
            pos.generate_moves(rules, &mut moves);
            moves
                .iter()
                .map(|&mv| perft_with(&pos.make(rules, mv), rules, depth - 1, counting))
                .sum()
        }
    }
}

/// Like [`perft_with`], but gives up (`None`) once `stop` is set; it is
/// looked at in every node three or more plies above the leaves, so the
/// count stops within a fraction of a second.
pub fn perft_until(
    pos: &Position,
    rules: &Rules,
    depth: u32,
    counting: Counting,
    stop: &AtomicBool,
) -> Option<u64> {
    if depth < 3 {
        return Some(perft_with(pos, rules, depth, counting));
    }
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let mut moves = MoveList::new();
    pos.generate_moves(rules, &mut moves);
    let mut total = 0;
    for &mv in moves.iter() {
        total += perft_until(&pos.make(rules, mv), rules, depth - 1, counting, stop)?;
    }
    Some(total)
}

/// Leaf counts per root move (`--divide`).
pub fn divide(pos: &Position, rules: &Rules, depth: u32, counting: Counting) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut moves = MoveList::new();
    pos.generate_moves(rules, &mut moves);
    moves
        .iter()
        .map(|&mv| {
            (
                mv,
                perft_with(&pos.make(rules, mv), rules, depth - 1, counting),
            )
        })
        .collect()
}
