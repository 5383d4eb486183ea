//! Basic newtypes: sides, squares, bitboards and moves.
//!
//! Every board from 7x7 to 11x11 uses the same square numbering with a fixed
//! stride of 11: `index = rank * 11 + file` (both from 0, rank 0 = rank 1 =
//! the row listed first in an OpenTafl position record). A fixed stride keeps
//! neighbour offsets constant and lets one line-occupancy table serve every
//! board size; squares beyond the board's size are simply never set.

use std::fmt;
use std::num::NonZeroU16;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Distance between two ranks in a square index.
pub const STRIDE: usize = 11;
/// Largest supported board side.
pub const MAX_SIZE: usize = 11;
/// Smallest supported board side.
pub const MIN_SIZE: usize = 5;
/// Number of square indices (11 x 11).
pub const NUM_SQUARES: usize = STRIDE * MAX_SIZE;

/// The two sides of a tafl game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    Attackers = 0,
    Defenders = 1,
}

impl Side {
    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    /// `a` or `d`, as used after a position record.
    pub fn token(self) -> char {
        match self {
            Side::Attackers => 'a',
            Side::Defenders => 'd',
        }
    }
    /// `attackers` or `defenders`.
    pub fn name(self) -> &'static str {
        match self {
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        }
    }
}

impl std::str::FromStr for Side {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "a" | "attackers" | "attacker" | "black" | "b" => Ok(Side::Attackers),
            "d" | "defenders" | "defender" | "white" | "w" => Ok(Side::Defenders),
            _ => Err(format!("unknown side '{s}' (expected a or d)")),
        }
    }
}

/// The kinds of piece on a tafl board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    Attacker = 0,
    Defender = 1,
    King = 2,
}

impl Piece {
    pub fn side(self) -> Side {
        match self {
            Piece::Attacker => Side::Attackers,
            Piece::Defender | Piece::King => Side::Defenders,
        }
    }
    /// The OpenTafl letter: `t`, `T` or `K`.
    pub fn letter(self) -> char {
        match self {
            Piece::Attacker => 't',
            Piece::Defender => 'T',
            Piece::King => 'K',
        }
    }
}

/// A square index (`rank * 11 + file`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// Rank and file of each square's index (any u8, so that indexing needs no
/// bounds check): a load costs less than the division by 11, which the
/// search's hot paths did hundreds of millions of times a bench.
const RANK_FILE: [(u8, u8); 256] = {
    let mut table = [(0u8, 0u8); 256];
    let mut i = 0;
    while i < 256 {
        table[i] = ((i / STRIDE) as u8, (i % STRIDE) as u8);
        i += 1;
    }
    table
};

impl Square {
    #[inline]
    pub const fn new(rank: usize, file: usize) -> Square {
        debug_assert!(rank < MAX_SIZE && file < MAX_SIZE);
        Square((rank * STRIDE + file) as u8)
    }
    #[inline]
    pub const fn from_index(index: usize) -> Square {
        debug_assert!(index < NUM_SQUARES);
        Square(index as u8)
    }
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    #[inline]
    pub const fn rank(self) -> usize {
        RANK_FILE[self.0 as usize].0 as usize
    }
    #[inline]
    pub const fn file(self) -> usize {
        RANK_FILE[self.0 as usize].1 as usize
    }
    #[inline]
    pub const fn bb(self) -> Bitboard {
        // The bit in one 64-bit half: cheaper than a variable u128 shift.
        let bit = 1u64 << (self.0 & 63);
        if self.0 < 64 {
            Bitboard(bit as u128)
        } else {
            Bitboard((bit as u128) << 64)
        }
    }
    /// The squares of this square's rank and file, on the widest board
    /// (callers mask with their board).
    #[inline]
    pub const fn rank_and_file(self) -> Bitboard {
        Bitboard((0x7ffu128 << (self.rank() * STRIDE)) | (FILE_0.0 << self.file()))
    }
    /// Index of this square in the transposed (file-major) numbering.
    #[inline]
    pub const fn transposed(self) -> usize {
        self.file() * STRIDE + self.rank()
    }

    /// Parses `a1`…`k11` for a board of side `size`.
    pub fn parse(s: &str, size: usize) -> Result<Square, String> {
        let mut chars = s.chars();
        let file_char = chars
            .next()
            .ok_or_else(|| "empty square name".to_string())?
            .to_ascii_lowercase();
        if !file_char.is_ascii_lowercase() {
            return Err(format!("bad square '{s}': expected a file letter first"));
        }
        let file = (file_char as u8 - b'a') as usize;
        let rank_str = chars.as_str();
        let rank: usize = rank_str
            .parse()
            .map_err(|_| format!("bad square '{s}': expected a rank number after the file"))?;
        if file >= size || rank == 0 || rank > size {
            return Err(format!("square '{s}' is off the {size}x{size} board"));
        }
        Ok(Square::new(rank - 1, file))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            self.rank() + 1
        )
    }
}

/// A set of squares in one `u128`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(transparent)]
pub struct Bitboard(pub u128);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }
    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    #[inline]
    pub const fn has(self, sq: Square) -> bool {
        // One 64-bit half, then a 64-bit shift: cheaper than shifting the
        // u128 by a variable amount, and this runs for every move ordered.
        let half = if sq.0 < 64 {
            self.0 as u64
        } else {
            (self.0 >> 64) as u64
        };
        half >> (sq.0 & 63) & 1 != 0
    }
    #[inline]
    pub fn set(&mut self, sq: Square) {
        self.0 |= sq.bb().0;
    }
    #[inline]
    pub fn clear(&mut self, sq: Square) {
        self.0 &= !sq.bb().0;
    }
    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square(self.0.trailing_zeros() as u8))
        }
    }
    /// Iterates the squares from low to high.
    #[inline]
    pub fn squares(self) -> SquareIter {
        SquareIter {
            low: self.0 as u64,
            high: (self.0 >> 64) as u64,
        }
    }
    /// This set and every square of `through` connected to it by steps
    /// north, south, east or west (a flood fill; `board` as for
    /// [`Bitboard::neighbours`]).
    #[inline]
    pub fn flood(self, through: Bitboard, board: Bitboard) -> Bitboard {
        let mut set = self;
        loop {
            // Two steps a test: the comparison of two u128s is a fair
            // share of a step.
            let next = set | (set.neighbours(board) & through);
            let after = next | (next.neighbours(board) & through);
            if after == next {
                return next;
            }
            set = after;
        }
    }

    /// The squares one step north, south, east and west of this set,
    /// kept inside `board` (which must exclude squares beyond the board).
    #[inline]
    pub fn neighbours(self, board: Bitboard) -> Bitboard {
        let b = self.0;
        let east = (b << 1) & !FILE_0.0;
        let west = (b >> 1) & !FILE_10.0;
        Bitboard((east | west | (b << STRIDE) | (b >> STRIDE)) & board.0)
    }

    /// Each square moved one step north-east (rank and file up), dropping
    /// those that would wrap past the last file; squares beyond the board
    /// are not cleared (intersect with a set on the board).
    #[inline]
    pub fn north_east(self) -> Bitboard {
        Bitboard((self.0 << (STRIDE + 1)) & !FILE_0.0)
    }

    /// Each square moved one step north-west (rank up, file down), as
    /// [`Bitboard::north_east`].
    #[inline]
    pub fn north_west(self) -> Bitboard {
        Bitboard((self.0 << (STRIDE - 1)) & !FILE_10.0)
    }
}

/// File a (index 0) on every rank.
pub const FILE_0: Bitboard = Bitboard(file_mask(0));
/// File index 10 on every rank.
pub const FILE_10: Bitboard = Bitboard(file_mask(10));

const fn file_mask(file: usize) -> u128 {
    let mut m = 0u128;
    let mut r = 0;
    while r < MAX_SIZE {
        m |= 1u128 << (r * STRIDE + file);
        r += 1;
    }
    m
}

/// The squares of a set, lowest first, one 64-bit half at a time: 64-bit
/// trailing-zero counts and lowest-bit clears cost a third of the u128
/// ones, and the evaluation walks every piece this way.
pub struct SquareIter {
    low: u64,
    high: u64,
}

impl Iterator for SquareIter {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.low != 0 {
            let sq = self.low.trailing_zeros() as u8;
            self.low &= self.low - 1;
            Some(Square(sq))
        } else if self.high != 0 {
            let sq = 64 + self.high.trailing_zeros() as u8;
            self.high &= self.high - 1;
            Some(Square(sq))
        } else {
            None
        }
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bitop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bitop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.squares().map(|s| s.to_string()).collect();
        write!(f, "Bitboard[{}]", names.join(" "))
    }
}

/// A move from one square to another: `from | to << 7 | MOVE_TAG`. The tag
/// bit makes every move non-zero, so `Option<Move>` is as small as a move
/// and "no move" is `None`, never a sentinel.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

/// Set in every move's raw value.
const MOVE_TAG: u16 = 1 << 14;

const _: () = assert!(std::mem::size_of::<Option<Move>>() == 2);

impl Move {
    #[inline]
    pub const fn new(from: Square, to: Square) -> Move {
        debug_assert!(from.0 != to.0 && (from.0 as usize) < NUM_SQUARES);
        debug_assert!((to.0 as usize) < NUM_SQUARES);
        let raw = (from.0 as u16) | ((to.0 as u16) << 7) | MOVE_TAG;
        match NonZeroU16::new(raw) {
            Some(v) => Move(v),
            None => unreachable!(), // ok: the tag bit is set
        }
    }
    #[inline]
    pub const fn from(self) -> Square {
        Square((self.0.get() & 0x7f) as u8)
    }
    #[inline]
    pub const fn to(self) -> Square {
        Square(((self.0.get() >> 7) & 0x7f) as u8)
    }
    /// The origin and destination as one index below 2^14 (origin in the
    /// low 7 bits), for tables of moves.
    #[inline]
    pub const fn squares_index(self) -> usize {
        (self.0.get() & 0x3fff) as usize
    }
    /// The move as 16 bits (never 0), for packing into tables.
    #[inline]
    pub const fn raw(self) -> u16 {
        self.0.get()
    }
    /// A move back from [`Move::raw`]; `None` for 0 or anything that is not
    /// a move's raw value.
    #[inline]
    pub const fn from_raw(raw: u16) -> Option<Move> {
        let from = (raw & 0x7f) as usize;
        let to = ((raw >> 7) & 0x7f) as usize;
        if raw & !0x7fff != 0 || raw & MOVE_TAG == 0 || from == to {
            return None;
        }
        if from >= NUM_SQUARES || to >= NUM_SQUARES {
            return None;
        }
        match NonZeroU16::new(raw) {
            Some(v) => Some(Move(v)),
            None => None,
        }
    }

    /// Parses `e1-e3` or `e1e3` (capture annotations such as `xe4` after
    /// the destination are ignored). Legality is not checked here.
    pub fn parse(s: &str, size: usize) -> Result<Move, String> {
        let s = s.trim();
        let main = s.split('x').next().unwrap_or(s);
        let (a, b) = if let Some((a, b)) = main.split_once('-') {
            (a, b)
        } else {
            // e1e3 / a10a11: the second square starts at the second letter.
            let pos = main
                .char_indices()
                .skip(1)
                .find(|(_, c)| c.is_ascii_alphabetic())
                .map(|(i, _)| i)
                .ok_or_else(|| format!("bad move '{s}': expected from-to such as e1-e3"))?;
            main.split_at(pos)
        };
        let from = Square::parse(a, size).map_err(|e| format!("bad move '{s}': {e}"))?;
        let to = Square::parse(b, size).map_err(|e| format!("bad move '{s}': {e}"))?;
        if from == to {
            return Err(format!("bad move '{s}': from and to are the same square"));
        }
        Ok(Move::new(from, to))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_round_trip_through_raw() {
        for from in 0..NUM_SQUARES {
            for to in [0, 5, 60, NUM_SQUARES - 1] {
                if from == to {
                    continue;
                }
                let mv = Move::new(Square::from_index(from), Square::from_index(to));
                assert_eq!(Move::from_raw(mv.raw()), Some(mv));
                assert_eq!((mv.from().index(), mv.to().index()), (from, to));
            }
        }
        assert_eq!(Move::from_raw(0), None);
        assert_eq!(Move::from_raw(5), None);
    }

    #[test]
    fn rank_and_file_hold_both_lines() {
        let sq = Square::new(3, 5);
        let lines = sq.rank_and_file();
        assert_eq!(lines.count() as usize, 2 * MAX_SIZE - 1);
        for i in 0..MAX_SIZE {
            assert!(lines.has(Square::new(3, i)) && lines.has(Square::new(i, 5)));
        }
    }
}
