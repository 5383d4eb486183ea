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

/// The score of a quiet move not scored yet: below every score, so that
/// picking never takes one before [`score_quiets`] has run.
const UNSCORED: i32 = i32::MIN + 1;
// Every scored move goes before every quiet one, and a quiet one's score
// before an unscored one: the order is the same as if all were scored.
const _: () = assert!(ORDER_KILLER_2 - HISTORY_MAX > HISTORY_MAX && UNSCORED < -HISTORY_MAX);

/// Ordering scores for `moves` (picked best-first by [`pick_next`]) into
/// `scores`; `targets` are the squares where the side to move captures.
/// Every move but the quiet ones (the table's move, captures, road
/// blocks, king roads, killers) is scored; quiet ones, scored by history
/// alone and all below the others, get [`UNSCORED`] until
/// [`score_quiets`]. Returns how many moves were scored: picking takes
/// them first.
#[allow(clippy::too_many_arguments)]
pub fn score_all_but_quiets(
    scores: &mut ScoreList,
    pos: &Position,
    rules: &Rules,
    moves: &MoveList,
    targets: Bitboard,
    tt_move: Option<Move>,
    history: &History,
    killers: &[Option<Move>; 2],
) -> usize {
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
    let special_to = targets | road_block;
    // Most moves are quiet: a table by square marks the destinations that
    // make a move special and the squares a special mover may start from
    // (the king's, the table move's, the killers'), and two bytes clear a
    // quiet move.
    const SPECIAL_TO: u8 = 1;
    const MAY_FROM: u8 = 2;
    let mut marks = [0u8; 128];
    for sq in special_to.squares() {
        marks[sq.index() & 127] |= SPECIAL_TO;
    }
    for sq in [
        king,
        tt_move.map(Move::from),
        killers[0].map(Move::from),
        killers[1].map(Move::from),
    ]
    .into_iter()
    .flatten()
    {
        marks[sq.index() & 127] |= MAY_FROM;
    }
    let mut scored = 0;
    for &mv in moves.iter() {
        if (marks[mv.to().index() & 127] & SPECIAL_TO) | (marks[mv.from().index() & 127] & MAY_FROM)
            == 0
        {
            scores.push(UNSCORED);
            continue;
        }
        let s = if Some(mv) == tt_move {
            ORDER_TT_MOVE
        } else {
            let bonus = if special_to.has(mv.to()) {
                if targets.has(mv.to()) {
                    ORDER_CAPTURE
                } else {
                    ORDER_ROAD_BLOCK
                }
            } else if Some(mv.from()) == king {
                // King moves that open a road to an escape square (a
                // killer of his that opens none is a quiet move).
                if pos.escapes_from(rules, mv.to()).any() {
                    ORDER_KING_TO_ROAD
                } else {
                    0
                }
            } else if Some(mv) == killers[0] {
                ORDER_KILLER_1
            } else if Some(mv) == killers[1] {
                ORDER_KILLER_2
            } else {
                0
            };
            if bonus == 0 {
                scores.push(UNSCORED);
                continue;
            }
            bonus + history.score(side, mv)
        };
        scores.push(s);
        scored += 1;
    }
    scored
}

/// Scores the quiet moves among `moves[from..]` by history.
pub fn score_quiets(
    scores: &mut ScoreList,
    side: Side,
    moves: &MoveList,
    from: usize,
    history: &History,
) {
    for (s, &mv) in scores[from..].iter_mut().zip(&moves[from..]) {
        if *s == UNSCORED {
            *s = history.score(side, mv);
        }
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

/// Which moves late-move pruning may drop without making them: moves to
/// squares where nothing can happen (no capture, no win, no encirclement
/// completed), by soldiers that cannot open the king a road.
pub struct QuietFilter {
    pub quiet_squares: Bitboard,
    /// The soldiers whose moving away may open the king a road.
    pub road_openers: Bitboard,
    pub king: Option<Square>,
    pub killers: [Option<Move>; 2],
}

impl QuietFilter {
    pub fn holds(&self, mv: Move) -> bool {
        self.quiet_squares.has(mv.to())
            && !self.road_openers.has(mv.from())
            && Some(mv.from()) != self.king
            && !self.killers.contains(&Some(mv))
    }
}
