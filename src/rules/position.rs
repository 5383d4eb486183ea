//! The position: pieces in bitboards, side to move, Zobrist hash, counters;
//! move generation, captures and the game-ending checks that follow a move.

use super::notation::Setup;
use super::options::{Encirclement, ExitFort, KingCapture, Masks, Rules, Shieldwall};
use super::tables::{
    NO_SQUARE, SLIDES, SLIDE_COUNTS, STEPS, ZOBRIST_DEFENDERS_TO_MOVE, ZOBRIST_PIECES,
};
use super::types::{
    Bitboard, Move, Piece, Side, Square, FILE_0, FILE_10, MAX_SIZE, NUM_SQUARES, STRIDE,
};
use arrayvec::ArrayVec;
use std::fmt;

mod fort;
mod replies;
mod roads;

/// Enough for any position: every empty square is reachable from at most
/// four directions, by one piece each.
pub const MAX_MOVES: usize = 512;
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    KingEscaped,
    KingCaptured,
    Encircled,
    ExitFort,
    CannotEscape,
    NoMoves,
    Repetition,
    NoCaptureLimit,
    MoveLimit,
}

impl Reason {
    pub const ALL: [Reason; 9] = [
        Reason::KingEscaped,
        Reason::KingCaptured,
        Reason::Encircled,
        Reason::ExitFort,
        Reason::CannotEscape,
        Reason::NoMoves,
        Reason::Repetition,
        Reason::NoCaptureLimit,
        Reason::MoveLimit,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Reason::KingEscaped => "king-escaped",
            Reason::KingCaptured => "king-captured",
            Reason::Encircled => "encircled",
            Reason::ExitFort => "exit-fort",
            Reason::CannotEscape => "cannot-escape",
            Reason::NoMoves => "no-moves",
            Reason::Repetition => "repetition",
            Reason::NoCaptureLimit => "no-capture-limit",
            Reason::MoveLimit => "move-limit",
        }
    }
}

impl std::str::FromStr for Reason {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Reason::ALL
            .iter()
            .copied()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown end reason '{s}'"))
    }
}

/// The end of a game: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub winner: Option<Side>,
    pub reason: Reason,
}

impl Outcome {
    pub fn win(side: Side, reason: Reason) -> Outcome {
        Outcome {
            winner: Some(side),
            reason,
        }
    }
    pub fn draw(reason: Reason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(side) => write!(f, "{} {}", side.name(), self.reason.name()),
            None => write!(f, "draw {}", self.reason.name()),
        }
    }
}

/// A position. Copy-make: [`Position::make`] returns a new value, so the
/// parent stays untouched and "unmake" is dropping the child.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Position {
    attackers: Bitboard,
    /// Defending soldiers, without the king.
    defenders: Bitboard,
    king: Bitboard,
    /// Occupancy of each line: ranks 0..11 (bit = file), then files
    /// 11..22 (bit = rank), so a slide is one table lookup per line.
    lines: [u16; 2 * MAX_SIZE],
    hash: u64,
    side: Side,
    /// Plies since the last capture (or since the setup).
    pub plies_since_capture: u32,
    /// Plies played since the game's start.
    pub ply: u32,
    /// Pieces taken by the move that led here.
    pub captured: u8,
    /// Set when the move that led here ended the game by escape, king
    /// capture, encirclement or exit fort.
    outcome: Option<Outcome>,
}

/// The squares strictly between two squares on one rank or file (empty
/// when they share neither).
fn squares_between(a: Square, b: Square) -> Bitboard {
    let span = |x: usize, y: usize| ((1u16 << x.max(y)) - 1) & !((2u16 << x.min(y)) - 1);
    if a.rank() == b.rank() {
        squares_on_lines(a.rank(), span(a.file(), b.file()), 0, 0)
    } else if a.file() == b.file() {
        squares_on_lines(0, 0, a.file(), span(a.rank(), b.rank()))
    } else {
        Bitboard::EMPTY
    }
}

/// The squares named by bits of rank `r` and of file `f`, as a bitboard.
#[inline]
fn squares_on_lines(r: usize, rank_bits: u16, f: usize, file_bits: u16) -> Bitboard {
    let mut bb = Bitboard::EMPTY;
    for j in line_places(rank_bits) {
        bb.set(Square::new(r, j));
    }
    for j in line_places(file_bits) {
        bb.set(Square::new(j, f));
    }
    bb
}

/// The places set in a line's bits, lowest first.
#[inline]
fn line_places(mut bits: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            j
        })
    })
}

/// Each rank's and file's squares of `bb`, as `Position::lines` keeps them.
fn line_occupancy(bb: Bitboard) -> [u16; 2 * MAX_SIZE] {
    let mut lines = [0u16; 2 * MAX_SIZE];
    for sq in bb.squares() {
        lines[sq.rank()] |= 1 << sq.file();
        lines[MAX_SIZE + sq.file()] |= 1 << sq.rank();
    }
    lines
}

// `make` copies the position at every node: at 128 bytes or less the
// copy is a few vector moves in place, above it a call to `memcpy`.
const _: () = assert!(std::mem::size_of::<Position>() <= 128);

/// The largest ply counter a position may be set up with; far beyond any
/// real game, and far from `u32` wrapping.
pub const MAX_COUNTER: u32 = 1_000_000_000;

impl Position {
    /// A position from pieces, side to move and counters. Rejects pieces
    /// standing where the rules forbid them (a soldier on the throne or a
    /// restricted corner), boards of the wrong size and counters beyond
    /// [`MAX_COUNTER`]. A king already on an escape square is a finished
    /// game, not an error.
    pub fn from_setup(
        setup: &Setup,
        side: Side,
        rules: &Rules,
        plies_since_capture: u32,
        ply: u32,
    ) -> Result<Position, String> {
        rules.check_setup(setup)?;
        for (name, v) in [("plies since capture", plies_since_capture), ("ply", ply)] {
            if v > MAX_COUNTER {
                return Err(format!("the {name} counter {v} is more than {MAX_COUNTER}"));
            }
        }
        Ok(Position::from_checked_setup(
            setup,
            side,
            rules,
            plies_since_capture,
            ply,
        ))
    }

    fn from_checked_setup(
        setup: &Setup,
        side: Side,
        rules: &Rules,
        plies_since_capture: u32,
        ply: u32,
    ) -> Position {
        let mut pos = Position {
            attackers: setup.attackers,
            defenders: setup.defenders,
            king: setup.king,
            lines: line_occupancy(setup.attackers | setup.defenders | setup.king),
            hash: 0,
            side,
            plies_since_capture,
            ply,
            captured: 0,
            outcome: None,
        };
        pos.hash = pos.compute_hash();
        if (pos.king & rules.masks().escape).any() {
            pos.outcome = Some(Outcome::win(Side::Defenders, Reason::KingEscaped));
        }
        pos
    }

    /// The start position of the rules. [`Rules`] are checked when built,
    /// so their start position is always legal.
    pub fn start(rules: &Rules) -> Position {
        let o = rules.options();
        Position::from_checked_setup(&o.setup, o.first, rules, 0, 0)
    }

    /// The pieces as a [`Setup`].
    pub fn setup(&self, size: usize) -> Setup {
        Setup {
            size,
            attackers: self.attackers,
            defenders: self.defenders,
            king: self.king,
        }
    }

    /// The Zobrist hash computed from scratch.
    pub fn compute_hash(&self) -> u64 {
        let mut h = 0u64;
        for (kind, bb) in [
            (Piece::Attacker, self.attackers),
            (Piece::Defender, self.defenders),
            (Piece::King, self.king),
        ] {
            for sq in bb.squares() {
                h ^= ZOBRIST_PIECES[kind as usize][sq.index()];
            }
        }
        if self.side == Side::Defenders {
            h ^= ZOBRIST_DEFENDERS_TO_MOVE;
        }
        h
    }

    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash of the pieces alone, the side to move left out: positions
    /// with equal boards have equal board hashes.
    #[inline]
    pub fn board_hash(&self) -> u64 {
        match self.side {
            Side::Attackers => self.hash,
            Side::Defenders => self.hash ^ ZOBRIST_DEFENDERS_TO_MOVE,
        }
    }

    /// Under `Repetition=defenders-forbidden`: whether the move `mv` of the
    /// side to move, with its piece slid but before any capture, makes a
    /// board equal to one of `earlier` (full position hashes, either side
    /// to move), as the hnefatafl.org server compares boards.
    pub fn recreates_board(&self, mv: Move, earlier: &[u64]) -> bool {
        let kind = if self.king.has(mv.from()) {
            Piece::King
        } else if self.side == Side::Attackers {
            Piece::Attacker
        } else {
            Piece::Defender
        };
        let board = self.board_hash()
            ^ ZOBRIST_PIECES[kind as usize][mv.from().index()]
            ^ ZOBRIST_PIECES[kind as usize][mv.to().index()];
        let other = board ^ ZOBRIST_DEFENDERS_TO_MOVE;
        earlier.iter().any(|&h| h == board || h == other)
    }
    #[inline]
    pub fn side_to_move(&self) -> Side {
        self.side
    }
    #[inline]
    pub fn attackers(&self) -> Bitboard {
        self.attackers
    }
    /// Defending soldiers (not the king).
    #[inline]
    pub fn defenders(&self) -> Bitboard {
        self.defenders
    }
    #[inline]
    pub fn king(&self) -> Bitboard {
        self.king
    }
    #[inline]
    pub fn king_square(&self) -> Option<Square> {
        self.king.first()
    }
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.attackers | self.defenders | self.king
    }
    /// The soldiers of a side: its pieces less the king.
    #[inline]
    pub fn soldiers(&self, side: Side) -> Bitboard {
        match side {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders,
        }
    }
    /// All pieces of a side (the king belongs to the defenders).
    #[inline]
    pub fn pieces(&self, side: Side) -> Bitboard {
        match side {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders | self.king,
        }
    }
    /// The game-ending result of the move that led here, if it ended the
    /// game by escape, king capture, encirclement or exit fort.
    #[inline]
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// What stands on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        if self.attackers.has(sq) {
            Some(Piece::Attacker)
        } else if self.defenders.has(sq) {
            Some(Piece::Defender)
        } else if self.king.has(sq) {
            Some(Piece::King)
        } else {
            None
        }
    }

    /// Destinations of the piece on `sq` (of either side) as rank bits and
    /// file bits: `(rank_reach, file_reach)`.
    #[inline(always)]
    fn reach(&self, sq: Square, is_king: bool, m: &Masks) -> (u16, u16) {
        let r = sq.rank();
        let f = sq.file();
        let fl = MAX_SIZE + f;
        if is_king {
            (
                SLIDES[f][(self.lines[r] | m.king_blocks[r]) as usize] & !m.king_pass_only[r],
                SLIDES[r][(self.lines[fl] | m.king_blocks[fl]) as usize] & !m.king_pass_only[fl],
            )
        } else {
            let mut rank_occ = self.lines[r] | m.soldier_blocks[r];
            let mut file_occ = self.lines[fl] | m.soldier_blocks[fl];
            if (m.camp_lines[r] | m.camp_lines[fl]) != 0 {
                rank_occ |= m.origin_blocks[r][f];
                file_occ |= m.origin_blocks[fl][r];
            }
            (
                SLIDES[f][rank_occ as usize] & !m.soldier_pass_only[r],
                SLIDES[r][file_occ as usize] & !m.soldier_pass_only[fl],
            )
        }
    }

    /// Appends every legal move of the side to move (none once the game has
    /// been decided by the move that led here).
    pub fn generate_moves(&self, rules: &Rules, out: &mut MoveList) {
        if self.outcome.is_some() {
            return;
        }
        let m = rules.masks();
        let soldiers = self.soldiers(self.side);
        for from in soldiers.squares() {
            self.push_moves(from, false, m, out);
        }
        if self.side == Side::Defenders {
            for from in self.king.squares() {
                self.push_moves(from, true, m, out);
            }
        }
    }

    /// Appends the moves of the king (if defenders to move) or of one piece.
    pub fn generate_moves_from(&self, rules: &Rules, from: Square, out: &mut MoveList) {
        if self.outcome.is_some() || !self.pieces(self.side).has(from) {
            return;
        }
        self.push_moves(from, self.king.has(from), rules.masks(), out);
    }

    #[inline(always)]
    fn push_moves(&self, from: Square, is_king: bool, m: &Masks, out: &mut MoveList) {
        let (rank_reach, file_reach) = self.reach(from, is_king, m);
        let r = from.rank();
        let f = from.file();
        // `extend` keeps the list's length in a register until it is done.
        out.extend(line_places(rank_reach).map(|j| Move::new(from, Square::new(r, j))));
        out.extend(line_places(file_reach).map(|j| Move::new(from, Square::new(j, f))));
    }

    /// The number of legal moves of the side to move, without listing them.
    #[inline]
    pub fn count_moves(&self, rules: &Rules) -> u32 {
        if self.outcome.is_some() {
            return 0;
        }
        self.count_moves_of(rules, self.side)
    }

    /// The number of moves `side` would have if it were to move (the
    /// game's end aside): its mobility.
    #[inline]
    pub fn count_moves_of(&self, rules: &Rules, side: Side) -> u32 {
        let m = rules.masks();
        let mut n = 0;
        let soldiers = self.soldiers(side);
        let camps = m.camps.any();
        for from in soldiers.squares() {
            // The masks only tell the compiler the indices are in range.
            let r = from.rank() % MAX_SIZE;
            let f = from.file();
            let fl = MAX_SIZE + f;
            let mut rank_occ = (self.lines[r] | m.soldier_blocks[r]) as usize & 0x7ff;
            let mut file_occ = (self.lines[fl] | m.soldier_blocks[fl]) as usize & 0x7ff;
            if camps {
                rank_occ |= m.origin_blocks[r][f] as usize & 0x7ff;
                file_occ |= m.origin_blocks[fl][r] as usize & 0x7ff;
            }
            n += SLIDE_COUNTS[f][rank_occ] as u32 + SLIDE_COUNTS[r][file_occ] as u32;
            // A soldier may cross a passable throne but not stop on it.
            let rank_pass = m.soldier_pass_only[r];
            let file_pass = m.soldier_pass_only[fl];
            if (rank_pass | file_pass) != 0 {
                n -= ((SLIDES[f][rank_occ] & rank_pass) != 0) as u32;
                n -= ((SLIDES[r][file_occ] & file_pass) != 0) as u32;
            }
        }
        if side == Side::Defenders {
            for from in self.king.squares() {
                let (a, b) = self.reach(from, true, m);
                n += a.count_ones() + b.count_ones();
            }
        }
        n
    }

    /// Whether the side to move has at least one legal move.
    pub fn has_moves(&self, rules: &Rules) -> bool {
        let m = rules.masks();
        self.pieces(self.side).squares().any(|from| {
            let (a, b) = self.reach(from, self.king.has(from), m);
            a | b != 0
        })
    }

    /// The squares the piece on `from` can move to, as a bitboard (empty if
    /// no piece of either side stands there).
    pub fn destinations(&self, rules: &Rules, from: Square) -> Bitboard {
        if !self.occupied().has(from) {
            return Bitboard::EMPTY;
        }
        let (rank_reach, file_reach) = self.reach(from, self.king.has(from), rules.masks());
        squares_on_lines(from.rank(), rank_reach, from.file(), file_reach)
    }

    /// The king's open roads: the escape squares he can reach in one move.
    #[inline]
    pub fn open_roads(&self, rules: &Rules) -> Bitboard {
        let Some(k) = self.king.first() else {
            return Bitboard::EMPTY;
        };
        self.escapes_from(rules, k)
    }

    /// Soldiers of `side` that can move to the empty square `to` in one
    /// move (none if soldiers may not stop there).
    pub fn soldiers_reaching(&self, rules: &Rules, to: Square, side: Side) -> Bitboard {
        let m = rules.masks();
        if m.soldier_forbidden.has(to) || self.occupied().has(to) {
            return Bitboard::EMPTY;
        }
        let soldiers = self.soldiers(side);
        let r = to.rank();
        let f = to.file();
        let fl = MAX_SIZE + f;
        // The run of squares a slide from `to` covers, plus `to`, then the
        // first square beyond each end: the nearest piece in each direction.
        let rank_run = SLIDES[f][(self.lines[r] | m.soldier_blocks[r]) as usize & 0x7ff] | 1 << f;
        let file_run = SLIDES[r][(self.lines[fl] | m.soldier_blocks[fl]) as usize & 0x7ff] | 1 << r;
        let mut rank_first = ((rank_run << 1) | (rank_run >> 1)) & !rank_run & self.lines[r];
        let mut file_first = ((file_run << 1) | (file_run >> 1)) & !file_run & self.lines[fl];
        if m.camps.any() {
            // Camps block by where a soldier starts: the nearest piece on
            // each side is the only one that may come, unless the squares it
            // would cross (up to `to`) hold a camp it may not enter.
            // `target`: where `to` lies on `line`.
            let blocked = |first: u16, run: u16, line: usize, target: usize| {
                let mut out = 0;
                let mut bits = first;
                while bits != 0 {
                    let at = bits.trailing_zeros() as usize % MAX_SIZE;
                    bits &= bits - 1;
                    // The part of the run on this piece's side of `to`.
                    let path = if at < target {
                        run & ((2u16 << target) - 1)
                    } else {
                        run & !((1u16 << target) - 1)
                    };
                    if path & m.origin_blocks[line][at] != 0 {
                        out |= 1 << at;
                    }
                }
                out
            };
            rank_first &= !blocked(rank_first, rank_run, r, f);
            file_first &= !blocked(file_first, file_run, fl, r);
        }
        let found = squares_on_lines(r, rank_first, f, file_first);
        found & soldiers
    }

    /// The escape squares a king standing on the empty square `via` would
    /// reach in one move, with every other piece where it is (the king's own
    /// square still counts as occupied: an escape through it is a road he
    /// already has).
    #[inline]
    pub fn escapes_from(&self, rules: &Rules, via: Square) -> Bitboard {
        let m = rules.masks();
        let (rank_reach, file_reach) = self.reach(via, true, m);
        let on_rank = rank_reach & m.escape_lines[via.rank()];
        let on_file = file_reach & m.escape_lines[MAX_SIZE + via.file()];
        squares_on_lines(via.rank(), on_rank, via.file(), on_file)
    }

    /// Empty squares where a piece of `side` arriving would (most likely)
    /// capture an enemy soldier: an enemy next to it with an anvil beyond.
    /// Used to order moves; it does not model shieldwalls, law 10, the
    /// king being unarmed, or the mover itself having been the anvil.
    pub fn capture_targets(&self, rules: &Rules, side: Side) -> Bitboard {
        let m = rules.masks();
        let king_on_throne = (self.king & m.throne).any();
        let victim = side.other().index();
        let hostile = if king_on_throne {
            m.hostile_throne_occupied[victim]
        } else {
            m.hostile_throne_empty[victim]
        };
        let (enemies, anvils) = match side {
            Side::Attackers => (self.defenders, self.attackers | hostile),
            Side::Defenders => (self.attackers, self.defenders | self.king | hostile),
        };
        let empty = m.board & !self.occupied();
        let mut targets = Bitboard::EMPTY;
        for back in [NORTH, SOUTH, EAST, WEST] {
            // Victims with an anvil one step against `back`; the hammer
            // lands one step along `back`.
            let victims = enemies & shift(anvils, back);
            targets |= shift(victims, back) & empty;
        }
        targets
    }

    /// Whether `mv` is a legal move here.
    pub fn is_legal(&self, rules: &Rules, mv: Move) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        let from = mv.from();
        let to = mv.to();
        if !self.pieces(self.side).has(from) || !rules.masks().board.has(to) {
            return false;
        }
        let (rank_reach, file_reach) = self.reach(from, self.king.has(from), rules.masks());
        if to.rank() == from.rank() {
            rank_reach >> to.file() & 1 != 0
        } else if to.file() == from.file() {
            file_reach >> to.rank() & 1 != 0
        } else {
            false
        }
    }

    /// Why `mv` is not legal here, in a player's words, or `None` when it
    /// is: for front ends that answer a refused move with its reason
    /// rather than a bare "illegal". The first rule the move breaks is
    /// named, in the order a player checks them: whose turn, the line, the
    /// pieces in the way, then the special squares.
    pub fn why_illegal(&self, rules: &Rules, mv: Move) -> Option<String> {
        if self.is_legal(rules, mv) {
            return None;
        }
        let (from, to) = (mv.from(), mv.to());
        let m = rules.masks();
        if let Some(o) = self.outcome {
            return Some(format!("the game is over ({o})"));
        }
        if !m.board.has(from) || !m.board.has(to) {
            return Some(format!("{mv} leaves the board"));
        }
        let Some(piece) = self.piece_at(from) else {
            return Some(format!("there is no piece on {from}"));
        };
        if piece.side() != self.side {
            return Some(format!(
                "it is the {}' turn, and {from} holds a piece of the {}",
                self.side.name(),
                piece.side().name()
            ));
        }
        if from.rank() != to.rank() && from.file() != to.file() {
            return Some("pieces move in a straight line along a rank or a file".into());
        }
        let between = squares_between(from, to);
        let blockers = between & self.occupied();
        if blockers.any() {
            // The blocker nearest the piece: the last square when moving down.
            let nearest = if to.index() < from.index() {
                Square::from_index(127 - blockers.0.leading_zeros() as usize)
            } else {
                blockers.first().unwrap_or(to)
            };
            return Some(format!("the piece on {nearest} is in the way"));
        }
        if self.occupied().has(to) {
            return Some(format!("{to} is taken"));
        }
        let own_camp = rules
            .options()
            .camps
            .iter()
            .copied()
            .find(|g| g.has(from))
            .unwrap_or(Bitboard::EMPTY);
        if let Some(sq) = ((between | to.bb()) & m.camps & !own_camp).first() {
            return Some(format!(
                "{sq} is a camp square: a piece may not enter or cross a camp it did not start in"
            ));
        }
        let is_king = piece == Piece::King;
        let throne = m.throne;
        if is_king {
            if (throne & to.bb()).any() {
                return Some("the king may not return to the throne".into());
            }
            if (throne & between).any() {
                return Some("the king may not cross the empty throne".into());
            }
        } else {
            if (throne & to.bb()).any() {
                return Some("only the king may stop on the throne".into());
            }
            if (m.soldier_forbidden & to.bb()).any() {
                return Some(format!("only the king may stop on the corner {to}"));
            }
            if ((m.soldier_walls | m.soldier_forbidden) & between).any() {
                return Some("soldiers may not cross the throne".into());
            }
        }
        Some(format!(
            "{mv} is not a legal move for the {} here",
            self.side.name()
        ))
    }

    #[inline(always)]
    fn toggle(&mut self, kind: Piece, sq: Square) {
        let bit = sq.bb();
        match kind {
            Piece::Attacker => self.attackers ^= bit,
            Piece::Defender => self.defenders ^= bit,
            Piece::King => self.king ^= bit,
        }
        self.lines[sq.rank()] ^= 1 << sq.file();
        self.lines[MAX_SIZE + sq.file()] ^= 1 << sq.rank();
        self.hash ^= ZOBRIST_PIECES[kind as usize][sq.index()];
    }

    fn remove_all(&mut self, kind: Piece, set: Bitboard) {
        for sq in set.squares() {
            self.toggle(kind, sq);
        }
    }

    /// Plays a pseudo-legal move (as produced by the generator) and returns
    /// the resulting position, with captures applied and the game-ending
    /// checks done. Callers holding user input check [`Position::is_legal`]
    /// first.
    #[inline]
    pub fn make(&self, rules: &Rules, mv: Move) -> Position {
        let mut next = *self;
        let from = mv.from();
        let to = mv.to();
        let mover = self.side;
        let kind = if self.king.has(from) {
            Piece::King
        } else if mover == Side::Attackers {
            Piece::Attacker
        } else {
            Piece::Defender
        };
        next.toggle(kind, from);
        next.toggle(kind, to);
        next.side = mover.other();
        next.hash ^= ZOBRIST_DEFENDERS_TO_MOVE;
        next.ply = self.ply.saturating_add(1);
        let m = rules.masks();

        let captured = if kind != Piece::King || rules.options().king_armed.hammer() {
            next.capture(rules, to, mover)
        } else {
            0
        };
        next.captured = captured;
        next.plies_since_capture = if captured > 0 {
            0
        } else {
            self.plies_since_capture.saturating_add(1)
        };

        next.outcome = match mover {
            Side::Defenders => {
                if kind == Piece::King && m.escape.has(to) {
                    Some(Outcome::win(Side::Defenders, Reason::KingEscaped))
                } else if rules.options().exit_fort != ExitFort::None && next.is_exit_fort(rules) {
                    Some(Outcome::win(Side::Defenders, Reason::ExitFort))
                } else {
                    None
                }
            }
            Side::Attackers => {
                if next.king_captured_by(rules, to) {
                    Some(Outcome::win(Side::Attackers, Reason::KingCaptured))
                } else if rules.options().exit_fort == ExitFort::Flood && next.is_flood_fort(rules)
                {
                    // The server tests forts after every move: an attacker
                    // leaving the king's region can complete one.
                    Some(Outcome::win(Side::Defenders, Reason::ExitFort))
                } else if rules.options().encirclement != Encirclement::None
                    && next.is_encircled(rules)
                {
                    Some(Outcome::win(Side::Attackers, Reason::Encircled))
                } else {
                    None
                }
            }
        };
        if next.outcome.is_none() && rules.options().cannot_escape {
            // After the move's own results, and not on the ply that the
            // ply limit draws (the server decides that one first).
            let limit = rules.options().ply_limit;
            if (limit == 0 || next.ply < limit) && next.cannot_escape(rules) {
                next.outcome = Some(Outcome::win(Side::Attackers, Reason::CannotEscape));
            }
        }
        next
    }

    /// Applies the captures made by the piece that just arrived on `to`;
    /// returns how many pieces were taken.
    fn capture(&mut self, rules: &Rules, to: Square, mover: Side) -> u8 {
        let m = rules.masks();
        let victim_side = mover.other();
        let king_on_throne = (self.king & m.throne).any();
        let hostile = if king_on_throne {
            m.hostile_throne_occupied[victim_side.index()]
        } else {
            m.hostile_throne_empty[victim_side.index()]
        };
        let (enemies, victim_kind, friends) = match mover {
            Side::Attackers => (self.defenders, Piece::Defender, self.attackers),
            Side::Defenders => (
                self.attackers,
                Piece::Attacker,
                if rules.options().king_armed.anvil() {
                    self.defenders | self.king
                } else {
                    self.defenders
                },
            ),
        };
        let mut anvils = friends | hostile;
        if rules.options().law10 && mover == Side::Attackers && king_on_throne {
            // Law 10: with attackers on three sides of the king on his
            // throne, the occupied throne is an anvil against the defender
            // on the fourth side.
            let around = m.throne.neighbours(m.board);
            let open = around & !self.attackers;
            if open.count() == 1 && (open & self.defenders).any() {
                anvils |= m.throne;
            }
        }
        // An enemy one step from the hammer, an anvil one step beyond (by
        // square tables: every move made runs this).
        let mut taken = Bitboard::EMPTY;
        for steps in &STEPS {
            let victim = steps[to.index()];
            if victim != NO_SQUARE && enemies.has(Square::from_index(victim as usize)) {
                let anvil = steps[victim as usize];
                if anvil != NO_SQUARE && anvils.has(Square::from_index(anvil as usize)) {
                    taken.set(Square::from_index(victim as usize));
                }
            }
        }
        if rules.options().shieldwall != Shieldwall::None {
            if m.edge.has(to) {
                taken |= self.shieldwall_captures(rules, to, mover, friends) & enemies;
            }
            if !rules.options().shieldwall_flank {
                taken |= self.closed_shieldwalls(rules, mover, friends) & enemies;
            }
        }
        if taken.any() {
            self.remove_all(victim_kind, taken);
        }
        taken.count() as u8
    }

    /// The enemy soldiers taken by a shieldwall move to the edge square `to`.
    fn shieldwall_captures(
        &self,
        rules: &Rules,
        to: Square,
        mover: Side,
        friends: Bitboard,
    ) -> Bitboard {
        let m = rules.masks();
        let n = rules.size();
        let (row_pieces, brackets) = self.shieldwall_parts(rules, mover, friends);
        let mut taken = Bitboard::EMPTY;
        // Each edge the square lies on: (direction inward, directions along).
        let r = to.rank();
        let f = to.file();
        let mut edges: ArrayVec<(usize, [usize; 2]), 2> = ArrayVec::new();
        if r == 0 {
            edges.push((NORTH, [EAST, WEST]));
        }
        if r == n - 1 {
            edges.push((SOUTH, [EAST, WEST]));
        }
        if f == 0 {
            edges.push((EAST, [NORTH, SOUTH]));
        }
        if f == n - 1 {
            edges.push((WEST, [NORTH, SOUTH]));
        }
        for (inward, along) in edges {
            for dir in along {
                let mut row = Bitboard::EMPTY;
                let mut cur = shift(to.bb(), dir) & m.board;
                while (cur & row_pieces).any() && (shift(cur, inward) & friends).any() {
                    row |= cur;
                    cur = shift(cur, dir) & m.board;
                }
                if row.count() >= 2 && (cur & brackets).any() && (cur & row_pieces).is_empty() {
                    taken |= row;
                }
            }
        }
        taken & !self.king
    }

    /// What a shieldwall of `mover`'s enemies is made of: the pieces that
    /// can stand in the row (the king among them), and what may bracket it
    /// (the mover's pieces, and hostile corners with strong shieldwalls).
    fn shieldwall_parts(
        &self,
        rules: &Rules,
        mover: Side,
        friends: Bitboard,
    ) -> (Bitboard, Bitboard) {
        let m = rules.masks();
        let row_pieces = match mover {
            Side::Attackers => self.defenders | self.king,
            Side::Defenders => self.attackers,
        };
        let corner_brackets = if rules.options().shieldwall == Shieldwall::Strong {
            m.corners & m.hostile_throne_empty[mover.other().index()]
        } else {
            Bitboard::EMPTY
        };
        (row_pieces, friends | corner_brackets)
    }

    /// Every closed shieldwall of the mover's enemies on any edge: two or
    /// more enemies (the king may stand among them, and is not taken) side
    /// by side on the edge, each with a piece of the mover in front of it,
    /// and a bracket at each end (a piece of the mover, or a hostile corner
    /// with strong shieldwalls). The relaxed rule (`ShieldwallFlank=false`)
    /// takes them after any move of the mover.
    fn closed_shieldwalls(&self, rules: &Rules, mover: Side, friends: Bitboard) -> Bitboard {
        let m = rules.masks();
        let n = rules.size();
        let (row_pieces, brackets) = self.shieldwall_parts(rules, mover, friends);
        if (row_pieces & m.edge).count() < 2 {
            return Bitboard::EMPTY;
        }
        let mut taken = Bitboard::EMPTY;
        // Each edge as (square at index i, the square in front of it).
        let edges: [&dyn Fn(usize) -> (Square, Square); 4] = [
            &|i| (Square::new(0, i), Square::new(1, i)),
            &|i| (Square::new(n - 1, i), Square::new(n - 2, i)),
            &|i| (Square::new(i, 0), Square::new(i, 1)),
            &|i| (Square::new(i, n - 1), Square::new(i, n - 2)),
        ];
        for at in edges {
            let member = |i: usize| {
                let (sq, front) = at(i);
                row_pieces.has(sq) && friends.has(front)
            };
            let mut i = 0;
            while i < n {
                if !member(i) {
                    i += 1;
                    continue;
                }
                let start = i;
                let mut row = Bitboard::EMPTY;
                while i < n && member(i) {
                    row.set(at(i).0);
                    i += 1;
                }
                if i - start >= 2
                    && start > 0
                    && i < n
                    && brackets.has(at(start - 1).0)
                    && brackets.has(at(i).0)
                {
                    taken |= row;
                }
            }
        }
        taken & !self.king
    }

    /// Whether the attacker that just arrived on `to` captured the king.
    fn king_captured_by(&self, rules: &Rules, to: Square) -> bool {
        self.king_captured_with(rules, self.attackers | to.bb(), to)
    }

    /// Whether an attacker moving to the empty square `to` would capture
    /// the king, without making the move: the capture reads only the
    /// attackers (the mover's old square is never beside the king nor
    /// beyond him on the line of `to`) and the squares around the king.
    pub fn captures_king_on_arrival(&self, rules: &Rules, to: Square) -> bool {
        self.king_captured_with(rules, self.attackers | to.bb(), to)
    }

    /// Whether the king is captured by the attacker on `to`, with
    /// `attackers` on the board. The test whether `to` is beside him at
    /// all, which most attacker moves fail, is inlined in `make`.
    #[inline(always)]
    fn king_captured_with(&self, rules: &Rules, attackers: Bitboard, to: Square) -> bool {
        let Some(k) = self.king.first() else {
            return false;
        };
        // Beside the king: one square apart on a rank, or one rank apart.
        let apart = k.index().abs_diff(to.index());
        if !(apart == STRIDE || (apart == 1 && k.rank() == to.rank())) {
            return false;
        }
        // Every rule needs an attacker or an anvil opposite `to`, across
        // the king (off the board, none): most squares beside him fail.
        let opposite = (2 * k.index()).wrapping_sub(to.index());
        let aligned = opposite < NUM_SQUARES && (apart == STRIDE || opposite / STRIDE == k.rank());
        if !aligned || !(attackers | rules.masks().king_anvils).has(Square::from_index(opposite)) {
            return false;
        }
        self.king_captured_beside(rules, attackers, k, to)
    }

    /// [`Position::king_captured_with`] for an attacker on `to` beside the
    /// king on `k`.
    fn king_captured_beside(
        &self,
        rules: &Rules,
        attackers: Bitboard,
        k: Square,
        to: Square,
    ) -> bool {
        let m = rules.masks();
        let kb = k.bb();
        let around = kb.neighbours(m.board);
        // Off the edge he has four neighbours, all to be filled.
        let surround =
            |extra: Bitboard| !m.edge.has(k) && (around & !(attackers | extra)).is_empty();
        let throne_empty = m.throne & !self.king;
        match rules.options().king_capture {
            KingCapture::Strong => surround(throne_empty),
            KingCapture::Sandwich if (kb & m.throne).any() => surround(Bitboard::EMPTY),
            KingCapture::Sandwich => {
                // Along the arriving attacker's line: an attacker or a
                // corner beyond; the throne is no anvil.
                let far = Bitboard(if to.index() > k.index() {
                    kb.0 >> (to.index() - k.index())
                } else {
                    kb.0 << (k.index() - to.index())
                }) & around;
                (far & (attackers | m.corners)).any()
            }
            KingCapture::Linnaeus if (kb & m.throne).any() => surround(Bitboard::EMPTY),
            KingCapture::Linnaeus if (around & m.throne).any() => surround(m.throne),
            KingCapture::Linnaeus | KingCapture::Weak => {
                // Custodial along the line through the arriving attacker.
                let far = Bitboard(if to.index() > k.index() {
                    kb.0 >> (to.index() - k.index())
                } else {
                    kb.0 << (k.index() - to.index())
                }) & around;
                let hostile = if (kb & m.throne).any() {
                    m.hostile_throne_occupied[Side::Defenders.index()]
                } else {
                    m.hostile_throne_empty[Side::Defenders.index()]
                };
                (far & (attackers | hostile)).any()
            }
        }
    }

    /// Whether an attacker moving onto one of the squares `onto` may win by
    /// a rule other than capturing the king (encirclement, the server's
    /// cannot-escape rule); `false` proves that none does. Under `Every`
    /// encirclement, adding attackers and removing defenders only helps
    /// it, so it is tried once with attackers on all of `onto` and without
    /// the defenders such moves could capture (those beside `onto`, and
    /// under shieldwall rules those on the edge).
    pub fn attacker_may_win_otherwise(&self, rules: &Rules, onto: Bitboard) -> bool {
        let m = rules.masks();
        let o = rules.options();
        o.cannot_escape
            || match o.encirclement {
                Encirclement::None => false,
                Encirclement::Every => {
                    let mut capturable = onto.neighbours(m.board);
                    if o.shieldwall != Shieldwall::None {
                        capturable |= m.edge;
                    }
                    let survivors = self.defenders & !capturable;
                    encircled(m, self.attackers | onto, survivors | self.king)
                }
                Encirclement::King => true,
            }
    }

    /// Encirclement, as the rules define it: `Every`: no defender and not
    /// the king can reach the edge by orthogonal steps through squares not
    /// held by attackers; `King`: the king's region of such squares touches
    /// no edge and holds every defender.
    pub fn is_encircled(&self, rules: &Rules) -> bool {
        encirclement_holds(rules, self.attackers, self.defenders, self.king)
    }

    /// The hnefatafl.org server's "defenders can't escape" rule (its
    /// `can_not_escape`, step for step), tested after every move: the
    /// attackers win when the king is trapped on the edge (see
    /// [`Position::king_trapped_on_edge`]), or when every corner is shut
    /// (see [`Position::corner_zone`]) and, along every edge, the squares
    /// outside the corners' zones and free of attackers form at most one
    /// run of at most two squares (three with fewer than six defenders
    /// left; any run with fewer than four defenders and 13 attackers or
    /// more).
    pub fn cannot_escape(&self, rules: &Rules) -> bool {
        let m = rules.masks();
        let defenders_left = self.defenders.count();
        let attackers_left = self.attackers.count();
        if self.king_trapped_on_edge(rules, defenders_left, attackers_left) {
            return true;
        }
        let mut zones = Bitboard::EMPTY;
        for c in m.corners.squares() {
            match self.corner_zone(rules, c) {
                Some(z) => zones |= z,
                None => return false,
            }
        }
        let open = m.edge & !self.attackers & !zones;
        let n = rules.size();
        let runs_at_most = |len: u32| {
            [0, n - 1].into_iter().all(|i| {
                let rank = (open.0 >> (i * STRIDE)) as u16 & ((1 << n) - 1);
                let file = (0..n).fold(0u16, |b, r| {
                    b | (u16::from(open.has(Square::new(r, i))) << r)
                });
                [rank, file].into_iter().all(|bits| {
                    let run = bits >> bits.trailing_zeros().min(15);
                    bits == 0 || (run & run.wrapping_add(1) == 0 && bits.count_ones() <= len)
                })
            })
        };
        (defenders_left < 4 && attackers_left >= 13)
            || (defenders_left < 6 && runs_at_most(3))
            || runs_at_most(2)
    }

    /// The server's `king_trapped`: the king on an edge (not beside a
    /// corner), the two squares on each side of him along the edge held by
    /// attackers (a corner stands in for one, and then counts as an
    /// attacker too); with more than five attackers, also the two squares
    /// straight in from him; and then fewer than two defenders left, or
    /// more than seven attackers with the two squares straight in from one
    /// of the king's edge neighbours held.
    fn king_trapped_on_edge(
        &self,
        rules: &Rules,
        defenders_left: u32,
        attackers_left: u32,
    ) -> bool {
        let m = rules.masks();
        let n = rules.size();
        let Some(k) = self.king.first() else {
            return false;
        };
        let (r, f) = (k.rank() as i32, k.file() as i32);
        let last = n as i32 - 1;
        // The edge the server looks at first: file a, the last file, the
        // top rank, the bottom rank (its x = 0, x = n-1, y = 0, y = n-1).
        let (along, inward): ((i32, i32), (i32, i32)) = if f == 0 {
            ((1, 0), (0, 1))
        } else if f == last {
            ((1, 0), (0, -1))
        } else if r == last {
            ((0, 1), (-1, 0))
        } else if r == 0 {
            ((0, 1), (1, 0))
        } else {
            return false;
        };
        let pos_along = if along.0 != 0 { r } else { f };
        if pos_along == 1 || pos_along == last - 1 {
            return false;
        }
        let at = |dr: i32, df: i32| -> Option<Square> {
            let (rr, ff) = (r + dr, f + df);
            (rr >= 0 && ff >= 0 && rr <= last && ff <= last)
                .then(|| Square::new(rr as usize, ff as usize))
        };
        let attacker = |dr: i32, df: i32| at(dr, df).is_some_and(|s| self.attackers.has(s));
        let mut attackers_left = attackers_left;
        for d in [-2, -1, 1, 2] {
            match at(along.0 * d, along.1 * d) {
                Some(s) if m.corners.has(s) => attackers_left += 1,
                Some(s) if self.attackers.has(s) => {}
                _ => return false,
            }
        }
        let straight_in = attacker(inward.0, inward.1) && attacker(2 * inward.0, 2 * inward.1);
        if attackers_left > 5 && !straight_in {
            return false;
        }
        let beside_in = |d: i32| {
            attacker(along.0 * d + inward.0, along.1 * d + inward.1)
                && attacker(along.0 * d + 2 * inward.0, along.1 * d + 2 * inward.1)
        };
        defenders_left < 2 || (attackers_left > 7 && (beside_in(1) || beside_in(-1)))
    }

    /// The server's `closed_off_exit` for corner `c`: the squares its
    /// attackers hold shut there, or `None` when a defender can come near.
    /// Two attackers in a row along both edges from the corner shut it by
    /// themselves. Otherwise the corner's two neighbours (when empty or
    /// attackers) and the edge squares of the empty region spreading from
    /// theirs count, and any defender or the king reached by the spread
    /// (beyond those two neighbours) opens the corner.
    fn corner_zone(&self, rules: &Rules, c: Square) -> Option<Bitboard> {
        let m = rules.masks();
        let near = c.bb().neighbours(m.board);
        let next = (near.neighbours(m.board) & m.edge) & !near & !c.bb();
        if ((near | next) & !self.attackers).is_empty() && near.count() == 2 && next.count() == 2 {
            return Some(c.bb() | near | next);
        }
        let empty = m.board & !self.occupied();
        let defenders = self.defenders | self.king;
        let seeds = near & (empty | self.attackers);
        let mut seen = c.bb() | near;
        let mut frontier = seeds.neighbours(m.board) & !seen;
        let mut reached_empty = Bitboard::EMPTY;
        while frontier.any() {
            if (frontier & defenders).any() {
                return None;
            }
            seen |= frontier;
            let spread = frontier & empty;
            reached_empty |= spread;
            frontier = spread.neighbours(m.board) & !seen;
        }
        Some(c.bb() | seeds | (reached_empty & m.edge))
    }

    /// The hnefatafl.org server's exit fort test, step for step (its
    /// `flood_fill_defender_wins`): the king is on the edge with an empty
    /// square beside him; a depth-first walk over the empty squares from
    /// his four neighbours meets no attacker; and each defender it meets
    /// (the king included) has, across the step by which it was first
    /// reached, a defender or the board's end on at least one side (this
    /// last only while the attackers have two pieces or more). The walk's
    /// order decides from which side a defender is first reached, so it is
    /// kept exactly: a stack, neighbours pushed up, left, down, right.
    pub fn is_flood_fort(&self, rules: &Rules) -> bool {
        let m = rules.masks();
        let Some(k) = self.king.first() else {
            return false;
        };
        let empty = m.board & !self.occupied();
        if !m.edge.has(k) || (k.bb().neighbours(m.board) & empty).is_empty() {
            return false;
        }
        let defenders = self.defenders | self.king;
        let many_attackers = self.attackers.count() > 1;
        // Direction order of the server: up (rank + 1), left, down, right;
        // a vertical step checks the flanks left and right of the square.
        const ORDER: [(usize, bool); 4] =
            [(NORTH, true), (WEST, false), (SOUTH, true), (EAST, false)];
        let step = |sq: Square, dir: usize| {
            let b = shift(sq.bb(), dir) & m.board;
            b.first()
        };
        // A side off the board counts as guarded.
        let guarded = |sq: Square, dir: usize| match step(sq, dir) {
            Some(n) => defenders.has(n),
            None => true,
        };
        let mut stack: ArrayVec<(Square, bool), 512> = ArrayVec::new();
        let mut seen = Bitboard::EMPTY;
        for (dir, vertical) in ORDER {
            if let Some(n) = step(k, dir) {
                stack.push((n, vertical));
            }
        }
        while let Some((sq, vertical)) = stack.pop() {
            if empty.has(sq) {
                for (dir, v) in ORDER {
                    if let Some(n) = step(sq, dir) {
                        if !seen.has(n) && !stack.is_full() {
                            seen.set(n);
                            stack.push((n, v));
                        }
                    }
                }
            } else if self.attackers.has(sq) {
                return false;
            } else if many_attackers {
                let (a, b) = if vertical {
                    (EAST, WEST)
                } else {
                    (NORTH, SOUTH)
                };
                if !guarded(sq, a) && !guarded(sq, b) {
                    return false;
                }
            }
        }
        true
    }

    /// Exit fort (Copenhagen): the king is on the edge, can move, and the
    /// attackers can never break the fort: whatever they play while the
    /// defenders stand still, no attacker reaches the king's region (the
    /// king's square and the empty squares he can walk to) and no defender
    /// next to it is ever captured. See [`fort::holds`] for how "never" is
    /// decided.
    pub fn is_exit_fort(&self, rules: &Rules) -> bool {
        if rules.options().exit_fort == ExitFort::Flood {
            return self.is_flood_fort(rules);
        }
        let m = rules.masks();
        let Some(k) = self.king.first() else {
            return false;
        };
        if !m.edge.has(k) {
            return false;
        }
        fort::holds(self, rules)
    }

    /// Plays a null move (only the side to move changes); for search.
    pub fn make_null(&self) -> Position {
        let mut next = *self;
        next.side = self.side.other();
        next.hash ^= ZOBRIST_DEFENDERS_TO_MOVE;
        next.captured = 0;
        next
    }

    /// A text diagram, rank 1 at the bottom: pieces by their letters, an
    /// empty throne `+`, a restricted corner `#`, an empty camp `^`.
    pub fn diagram(&self, rules: &Rules) -> String {
        let n = rules.size();
        let m = rules.masks();
        let mut s = String::new();
        for r in (0..n).rev() {
            s.push_str(&format!("{:>2} ", r + 1));
            for f in 0..n {
                let sq = Square::new(r, f);
                let c = match self.piece_at(sq) {
                    Some(p) => p.letter(),
                    None if m.throne.has(sq) => '+',
                    None if m.corners.has(sq) && m.soldier_forbidden.has(sq) => '#',
                    None if m.camps.has(sq) => '^',
                    None => '.',
                };
                s.push(c);
                s.push(' ');
            }
            s.push('\n');
        }
        s.push_str("   ");
        for f in 0..n {
            s.push((b'a' + f as u8) as char);
            s.push(' ');
        }
        s.push('\n');
        s
    }

    /// The position record followed by the side token, e.g. `/…/ a`.
    pub fn record(&self, rules: &Rules) -> String {
        format!(
            "{} {}",
            self.setup(rules.size()).record(),
            self.side.token()
        )
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Position {{ attackers: {:?}, defenders: {:?}, king: {:?}, side: {:?} }}",
            self.attackers, self.defenders, self.king, self.side
        )
    }
}

/// Whether the rules' encirclement holds with these pieces (`defenders`:
/// the soldiers, without the king).
fn encirclement_holds(
    rules: &Rules,
    attackers: Bitboard,
    defenders: Bitboard,
    king: Bitboard,
) -> bool {
    let m = rules.masks();
    match rules.options().encirclement {
        Encirclement::None => false,
        Encirclement::Every => encircled(m, attackers, defenders | king),
        Encirclement::King => {
            // The king's region, given up as soon as it reaches the edge.
            let free = m.board & !attackers;
            let mut region = king;
            if (region & m.edge).any() || region.is_empty() {
                return false;
            }
            loop {
                let next = (region | region.neighbours(m.board)) & free;
                if (next & m.edge).any() {
                    return false;
                }
                if next == region {
                    return (defenders & !region).is_empty();
                }
                region = next;
            }
        }
    }
}

/// Encirclement of the defenders (`defenders`, king included) by `attackers`.
fn encircled(m: &Masks, attackers: Bitboard, defenders: Bitboard) -> bool {
    let mut reach = defenders;
    if (reach & m.edge).any() {
        return false;
    }
    let free = m.board & !attackers;
    loop {
        let next = (reach | reach.neighbours(m.board)) & free;
        if (next & m.edge).any() {
            return false;
        }
        if next == reach {
            return true;
        }
        reach = next;
    }
}

pub const NORTH: usize = 0;
pub const SOUTH: usize = 1;
pub const EAST: usize = 2;
pub const WEST: usize = 3;

/// Shifts a set one step in a direction, dropping squares that wrap across
/// the side of the board. Callers mask with the board for smaller boards.
#[inline(always)]
pub fn shift(bb: Bitboard, dir: usize) -> Bitboard {
    match dir {
        NORTH => Bitboard(bb.0 << STRIDE),
        SOUTH => Bitboard(bb.0 >> STRIDE),
        EAST => Bitboard((bb.0 << 1) & !FILE_0.0),
        _ => Bitboard((bb.0 >> 1) & !FILE_10.0),
    }
}
