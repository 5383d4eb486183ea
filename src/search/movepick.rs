//! Move ordering: the scores that put the moves most likely to cut off
//! first (the table's move, captures, road blocks and king roads, killers,
//! then history), picking them best-first, and the filter that lets
//! late-move pruning drop quiet moves without making them.

use super::history::History;
use super::params::*;
use crate::rules::position::MAX_MOVES;
use crate::rules::{Bitboard, Move, MoveList, Position, Rules, Side, Square};
use arrayvec::ArrayVec;

/// One ordering score per move of a node.
pub type ScoreList = ArrayVec<i32, MAX_MOVES>;

/// Ordering scores for `moves` (picked best-first by [`pick_next`]) into
/// `scores`; `targets` are the squares where the side to move captures.
#[allow(clippy::too_many_arguments)]
pub fn score_moves(
    scores: &mut ScoreList,
    pos: &Position,
    rules: &Rules,
    moves: &MoveList,
    targets: Bitboard,
    tt_move: Option<Move>,
    history: &History,
    killers: &[Option<Move>; 2],
) {
    let side = pos.side_to_move();
    let king = pos.king_square();
    // Squares on the king's open roads and his roads to a corner's
    // neighbour (attackers block them).
    let road_block = match (side, king) {
        (Side::Attackers, Some(k)) => {
            let m = rules.masks();
            pos.road_squares_to(rules, k, m.escape | m.escape_approach)
        }
        _ => Bitboard::EMPTY,
    };
    scores.clear();
    for &mv in moves.iter() {
        let mut s = history.score(side, mv);
        if Some(mv) == tt_move {
            s = ORDER_TT_MOVE;
        } else if targets.has(mv.to()) {
            s += ORDER_CAPTURE;
        } else if road_block.has(mv.to()) {
            s += ORDER_ROAD_BLOCK;
        } else if Some(mv.from()) == king {
            // King moves that open a road to an escape square.
            if pos.escapes_from(rules, mv.to()).any() {
                s += ORDER_KING_TO_ROAD;
            }
        } else if Some(mv) == killers[0] {
            s += ORDER_KILLER_1;
        } else if Some(mv) == killers[1] {
            s += ORDER_KILLER_2;
        }
        scores.push(s);
    }
}

/// Moves the best-scored of `moves[i..]` (the first of equals) to `i` and
/// returns it. Two branch-free passes, the maximum and then its first
/// place, which the compiler vectorises: a node that searches all of its
/// hundred-odd moves picks each one this way.
#[inline]
pub fn pick_next(moves: &mut MoveList, scores: &mut ScoreList, i: usize) -> Move {
    let rest = &scores[i..moves.len()];
    let top = rest.iter().copied().fold(i32::MIN, i32::max);
    let best = i + rest.iter().position(|&s| s == top).unwrap_or(0);
    moves.swap(i, best);
    scores.swap(i, best);
    moves[i]
}

/// Keeps, from index `from` on, only the moves (and their scores) that
/// `keep` accepts.
pub fn retain_moves(
    moves: &mut MoveList,
    scores: &mut ScoreList,
    from: usize,
    keep: impl Fn(Move) -> bool,
) {
    let mut kept = from;
    for j in from..moves.len() {
        if keep(moves[j]) {
            moves[kept] = moves[j];
            scores[kept] = scores[j];
            kept += 1;
        }
    }
    moves.truncate(kept);
    scores.truncate(kept);
}

/// Which moves late-move pruning may drop without making them.
pub struct QuietFilter {
    pub quiet_squares: Bitboard,
    pub king_lines: Bitboard,
    pub encircling: bool,
    pub king: Option<Square>,
    pub killers: [Option<Move>; 2],
}

impl QuietFilter {
    pub fn holds(&self, mv: Move) -> bool {
        self.quiet_squares.has(mv.to())
            && !self.king_lines.has(mv.from())
            && !self.encircling
            && Some(mv.from()) != self.king
            && !self.killers.contains(&Some(mv))
    }
}
