//! Perft: counting the leaves of the move tree, to check the move generator
//! and the capture and game-end rules against independent counts.
//!
//! Convention: a position won or lost by escape, king capture, encirclement
//! or exit fort has no children; repetition and ply limits are ignored.

use super::options::Rules;
use super::position::{MoveList, Position};
use super::types::Move;

/// Leaf count at `depth`, with bulk counting over the last two plies.
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(rules) as u64,
        2 => pos.count_replies(rules),
        _ => {
            let mut moves = MoveList::new();
            pos.generate_moves(rules, &mut moves);
            moves
                .iter()
                .map(|&mv| perft(&pos.make(rules, mv), rules, depth - 1))
                .sum()
        }
    }
}

/// Leaf counts per root move (`--divide`).
pub fn divide(pos: &Position, rules: &Rules, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let mut moves = MoveList::new();
    pos.generate_moves(rules, &mut moves);
    moves
        .iter()
        .map(|&mv| (mv, perft(&pos.make(rules, mv), rules, depth - 1)))
        .collect()
}
