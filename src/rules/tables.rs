//! Tables built at compile time: line slides and Zobrist keys.

use super::types::{MAX_SIZE, NUM_SQUARES, STRIDE};

/// Number of distinct occupancies of one line of up to 11 squares.
pub const LINE_STATES: usize = 1 << MAX_SIZE;

/// `SLIDES[pos][occ]`: the squares a rook-mover standing at `pos` on a line
/// with occupancy `occ` can reach (bit `i` = square `i` of the line). The
/// mover's own bit in `occ` is ignored. Shared by ranks and files and by every
/// board size (callers mask the result to the board's line length).
pub static SLIDES: [[u16; LINE_STATES]; MAX_SIZE] = build_slides();

const fn build_slides() -> [[u16; LINE_STATES]; MAX_SIZE] {
    let mut table = [[0u16; LINE_STATES]; MAX_SIZE];
    let mut pos = 0;
    while pos < MAX_SIZE {
        let mut occ = 0;
        while occ < LINE_STATES {
            let mut reach = 0u16;
            let mut i = pos + 1;
            while i < MAX_SIZE && (occ >> i) & 1 == 0 {
                reach |= 1 << i;
                i += 1;
            }
            let mut j = pos;
            while j > 0 && (occ >> (j - 1)) & 1 == 0 {
                reach |= 1 << (j - 1);
                j -= 1;
            }
            table[pos][occ] = reach;
            occ += 1;
        }
        pos += 1;
    }
    table
}

/// `SLIDE_COUNTS[pos][occ]`: the number of squares in `SLIDES[pos][occ]`
/// (a table, because the portable baseline has no popcount instruction).
pub static SLIDE_COUNTS: [[u8; LINE_STATES]; MAX_SIZE] = build_counts();

const fn build_counts() -> [[u8; LINE_STATES]; MAX_SIZE] {
    let slides = build_slides();
    let mut table = [[0u8; LINE_STATES]; MAX_SIZE];
    let mut pos = 0;
    while pos < MAX_SIZE {
        let mut occ = 0;
        while occ < LINE_STATES {
            table[pos][occ] = slides[pos][occ].count_ones() as u8;
            occ += 1;
        }
        pos += 1;
    }
    table
}

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// Zobrist keys: one per piece kind (attacker, defender, king) and square.
pub static ZOBRIST_PIECES: [[u64; NUM_SQUARES]; 3] = build_zobrist().0;
/// Zobrist key XORed in when the defenders are to move.
pub const ZOBRIST_DEFENDERS_TO_MOVE: u64 = build_zobrist().1;

const fn build_zobrist() -> ([[u64; NUM_SQUARES]; 3], u64) {
    let mut keys = [[0u64; NUM_SQUARES]; 3];
    let mut state = 0x4B4F_4E41_4B49_5321u64; // "KONAKIS!"
    let mut p = 0;
    while p < 3 {
        let mut s = 0;
        while s < NUM_SQUARES {
            let (next, value) = splitmix64(state);
            state = next;
            keys[p][s] = value;
            s += 1;
        }
        p += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

/// Marks a step off the widest board in [`STEPS`].
pub const NO_SQUARE: u8 = u8::MAX;

/// `STEPS[dir][sq]`: the square one step from `sq` in direction `dir`
/// (north, south, east, west: rank up, rank down, file up, file down) on
/// the widest board, or [`NO_SQUARE`]. Smaller boards mask what they read
/// there, as with a shifted bitboard.
pub static STEPS: [[u8; 256]; 4] = build_steps();

const fn build_steps() -> [[u8; 256]; 4] {
    let mut table = [[NO_SQUARE; 256]; 4];
    let mut sq = 0;
    while sq < NUM_SQUARES {
        let (rank, file) = (sq / STRIDE, sq % STRIDE);
        if rank + 1 < MAX_SIZE {
            table[0][sq] = (sq + STRIDE) as u8;
        }
        if rank > 0 {
            table[1][sq] = (sq - STRIDE) as u8;
        }
        if file + 1 < MAX_SIZE {
            table[2][sq] = (sq + 1) as u8;
        }
        if file > 0 {
            table[3][sq] = (sq - 1) as u8;
        }
        sq += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slides_stop_before_blockers() {
        // Line: mover at 3, blockers at 1 and 6.
        let occ = (1 << 1) | (1 << 3) | (1 << 6);
        assert_eq!(SLIDES[3][occ], (1 << 2) | (1 << 4) | (1 << 5));
        // Nothing in the way: the whole 11-square line except the mover.
        assert_eq!(SLIDES[0][1], 0b111_1111_1110);
    }

    #[test]
    fn steps_are_shifts_of_one_square() {
        use crate::rules::position::shift;
        use crate::rules::types::{Bitboard, Square};
        for (dir, steps) in STEPS.iter().enumerate() {
            for (sq, &step) in steps.iter().enumerate().take(NUM_SQUARES) {
                let widest = Bitboard((1u128 << NUM_SQUARES) - 1);
                let shifted = shift(Square::from_index(sq).bb(), dir) & widest;
                match shifted.first() {
                    Some(to) => assert_eq!(step as usize, to.index(), "dir {dir} from {sq}"),
                    None => assert_eq!(step, NO_SQUARE, "dir {dir} from {sq}"),
                }
            }
        }
    }

    #[test]
    fn zobrist_keys_distinct() {
        let mut all: Vec<u64> = ZOBRIST_PIECES.iter().flatten().copied().collect();
        all.push(ZOBRIST_DEFENDERS_TO_MOVE);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
