//! The king's roads: the squares an attacker must land on to block his way
//! to an escape square or to a square beside a restricted corner. Board
//! geometry the search's ordering, pruning and extensions ask about.

use super::{line_places, squares_on_lines, Position, MAX_SIZE};
use crate::rules::options::Rules;
use crate::rules::tables::SLIDES;
use crate::rules::types::{Bitboard, Square};

impl Position {
    /// The squares of the king's (on `k`) open roads: any piece landing on
    /// one blocks it.
    pub fn road_squares(&self, rules: &Rules, k: Square) -> Bitboard {
        self.road_squares_to(rules, k, rules.masks().escape)
    }

    /// The squares beside a restricted corner that the king reaches in one
    /// move. No soldier can stop his next step from there (into the
    /// corner), so a road to one threatens like an open road, a move later.
    pub fn approach_roads(&self, rules: &Rules) -> Bitboard {
        let approach = rules.masks().escape_approach;
        match self.king_square() {
            Some(k) if approach.any() => self.destinations(rules, k) & approach,
            _ => Bitboard::EMPTY,
        }
    }

    /// The pieces nearest the king (on `k`) along his rank and file, up to
    /// four: a move that opens him a road (to an escape square, or a new one
    /// to a square beside a restricted corner) moves one of them away, since
    /// a road is a line clear of pieces.
    pub fn nearest_on_king_lines(&self, k: Square) -> Bitboard {
        let (r, f) = (k.rank(), k.file());
        let mut nearest = Bitboard::EMPTY;
        for i in nearest_on_line(self.lines[r], f).into_iter().flatten() {
            nearest.set(Square::new(r, i));
        }
        for i in nearest_on_line(self.lines[MAX_SIZE + f], r)
            .into_iter()
            .flatten()
        {
            nearest.set(Square::new(i, f));
        }
        nearest
    }

    /// The king's (on `k`) escapes in two moves: the escape squares he
    /// would reach from the squares he reaches now (escape squares aside)
    /// that he cannot reach at once, and how many of those squares have an
    /// escape square in reach — along his own line such a square sees just
    /// his roads on its side of him, so only its crossing line is looked up.
    pub fn escapes_in_two(&self, rules: &Rules, k: Square) -> (Bitboard, u32) {
        let m = rules.masks();
        let (r, f) = (k.rank(), k.file());
        let (rank_reach, file_reach) = self.reach(k, true, m);
        let mut in_two = Bitboard::EMPTY;
        let mut routes = 0;
        // His rank (the squares' crossing lines are files), then his file.
        for (line, at, reach, across_rank) in [
            (r, f, rank_reach, false),
            (MAX_SIZE + f, r, file_reach, true),
        ] {
            let roads = reach & m.escape_lines[line];
            let road_below = roads & ((1 << at) - 1) != 0;
            let road_beyond = roads >> at != 0;
            for i in line_places(reach & !roads) {
                let (cross, cross_at) = if across_rank {
                    (i, f)
                } else {
                    (MAX_SIZE + i, r)
                };
                let occ = self.lines[cross] | m.king_blocks[cross];
                let escapes = SLIDES[cross_at][occ as usize]
                    & !m.king_pass_only[cross]
                    & m.escape_lines[cross];
                if escapes != 0 {
                    in_two |= if across_rank {
                        squares_on_lines(i, escapes, 0, 0)
                    } else {
                        squares_on_lines(0, 0, i, escapes)
                    };
                }
                routes += (escapes != 0 || if i > at { road_beyond } else { road_below }) as u32;
            }
        }
        (in_two, routes)
    }

    /// The squares of the king's (on `k`) roads to `goals`: any piece
    /// landing on one blocks that road.
    pub fn road_squares_to(&self, rules: &Rules, k: Square, goals: Bitboard) -> Bitboard {
        let dests = self.destinations(rules, k);
        let roads = dests & goals;
        let mut squares = Bitboard::EMPTY;
        for e in roads.squares() {
            for s in dests.squares() {
                let same_line = (s.rank() == k.rank() && e.rank() == k.rank())
                    || (s.file() == k.file() && e.file() == k.file());
                let same_side = (s.index() > k.index()) == (e.index() > k.index());
                if same_line && same_side {
                    squares.set(s);
                }
            }
        }
        squares
    }

    /// Whether an attacker stands beside the king.
    pub fn king_pressed(&self, rules: &Rules) -> bool {
        (self.king().neighbours(rules.masks().board) & self.attackers()).any()
    }
}

/// The nearest occupied places on either side of `at` on a line with
/// occupancy `occ`.
fn nearest_on_line(occ: u16, at: usize) -> [Option<usize>; 2] {
    let occ = occ as u32;
    let above = occ >> at >> 1;
    let below = occ & ((1 << at) - 1);
    [
        (above != 0).then(|| at + 1 + above.trailing_zeros() as usize),
        (below != 0).then(|| 31 - below.leading_zeros() as usize),
    ]
}
