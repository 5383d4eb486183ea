//! Counting the replies to every move at once: the last two plies of perft.
//!
//! A move that captures nothing and ends nothing leaves the opponent's
//! pieces where they were and changes the occupancy of three lines only
//! (the one it runs along and the two crossing its ends). The opponent's move
//! count is a sum over lines, so the count after such a move is the count
//! before it with those three lines recounted — no child position is built.
//! Moves that might capture or end the game are made in full.

use super::{shift, Position, MAX_SIZE};
use crate::rules::options::{Masks, Rules, Shieldwall};
use crate::rules::tables::{SLIDES, SLIDE_COUNTS};
use crate::rules::types::{Bitboard, Move, Side, Square};

/// The moves of the soldiers on one line with occupancy `occ`, along that
/// line only (`own`: the soldiers' bits).
#[inline(always)]
fn line_count(m: &Masks, line: usize, occ: u16, own: u16) -> u32 {
    let occ = (occ | m.soldier_blocks[line]) as usize & 0x7ff;
    let pass = m.soldier_pass_only[line];
    let mut n = 0;
    let mut bits = own;
    while bits != 0 {
        let p = bits.trailing_zeros() as usize % MAX_SIZE;
        bits &= bits - 1;
        n += SLIDE_COUNTS[p][occ] as u32;
        if pass != 0 {
            n -= ((SLIDES[p][occ] & pass) != 0) as u32;
        }
    }
    n
}

/// The king's moves along one line with occupancy `occ`, standing at `p`.
#[inline(always)]
fn king_line_count(m: &Masks, line: usize, p: usize, occ: u16) -> u32 {
    let reach = SLIDES[p % MAX_SIZE][(occ | m.king_blocks[line]) as usize & 0x7ff];
    (reach & !m.king_pass_only[line]).count_ones()
}

/// What the opponent's move count is made of, line by line, before the move.
struct Lines {
    /// The opponent's soldiers on each line (ranks, then files).
    own: [u16; 2 * MAX_SIZE],
    /// Their moves along each line.
    count: [u32; 2 * MAX_SIZE],
    /// The sum of `count`.
    total: u32,
}

impl Position {
    /// The number of legal replies summed over every legal move of the side
    /// to move: perft 2 with bulk counting, without making most moves.
    pub fn count_replies(&self, rules: &Rules) -> u64 {
        if self.outcome.is_some() {
            return 0;
        }
        let m = rules.masks();
        let mover = self.side;
        let opponent = mover.other();
        let lines = self.opponent_lines(rules, opponent);

        let full = self.eventful_squares(rules);
        let encirclement = mover == Side::Attackers && rules.encirclement;
        let king = if opponent == Side::Defenders {
            self.king.first()
        } else {
            None
        };

        let mut sum = 0u64;
        let soldiers = match mover {
            Side::Attackers => self.attackers,
            Side::Defenders => self.defenders,
        };
        for from in soldiers.squares() {
            let (rank_reach, file_reach) = self.reach(from, false, m);
            let r = from.rank();
            let f = from.file();
            let rank_line = r;
            let file_line = MAX_SIZE + f;
            let rank_without = self.lines[rank_line] ^ (1 << f);
            let file_without = self.lines[file_line] ^ (1 << r);
            // Along the rank: the rank changes, the file left loses the
            // mover, the file arrived on gains it.
            let left_file = line_count(m, file_line, file_without, lines.own[file_line])
                + lines.total
                - lines.count[file_line]
                - lines.count[rank_line];
            let mut bits = rank_reach;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize % MAX_SIZE;
                bits &= bits - 1;
                let to = Square::new(r, j);
                let mv = Move::new(from, to);
                if full.has(to) || encirclement && self.encircled_after(m, from, to) {
                    sum += self.full_count(rules, mv);
                    continue;
                }
                let rank_occ = rank_without | (1 << j);
                let cross = MAX_SIZE + j;
                let cross_occ = self.lines[cross] | (1 << r);
                let mut n = left_file
                    + line_count(m, rank_line, rank_occ, lines.own[rank_line])
                    + line_count(m, cross, cross_occ, lines.own[cross])
                    - lines.count[cross];
                if let Some(k) = king {
                    let (kr, kf) = (k.rank(), k.file());
                    let kfl = MAX_SIZE + kf;
                    let k_rank_occ = if kr == r { rank_occ } else { self.lines[kr] };
                    let k_file_occ = if kf == f {
                        file_without
                    } else if kf == j {
                        cross_occ
                    } else {
                        self.lines[kfl]
                    };
                    n += king_line_count(m, kr, kf, k_rank_occ)
                        + king_line_count(m, kfl, kr, k_file_occ);
                }
                sum += n as u64;
            }
            // Along the file: the file changes, the rank left loses the
            // mover, the rank arrived on gains it.
            let left_rank = line_count(m, rank_line, rank_without, lines.own[rank_line])
                + lines.total
                - lines.count[rank_line]
                - lines.count[file_line];
            let mut bits = file_reach;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize % MAX_SIZE;
                bits &= bits - 1;
                let to = Square::new(i, f);
                let mv = Move::new(from, to);
                if full.has(to) || encirclement && self.encircled_after(m, from, to) {
                    sum += self.full_count(rules, mv);
                    continue;
                }
                let file_occ = file_without | (1 << i);
                let cross = i;
                let cross_occ = self.lines[cross] | (1 << f);
                let mut n = left_rank
                    + line_count(m, file_line, file_occ, lines.own[file_line])
                    + line_count(m, cross, cross_occ, lines.own[cross])
                    - lines.count[cross];
                if let Some(k) = king {
                    let (kr, kf) = (k.rank(), k.file());
                    let kfl = MAX_SIZE + kf;
                    let k_rank_occ = if kr == r {
                        rank_without
                    } else if kr == i {
                        cross_occ
                    } else {
                        self.lines[kr]
                    };
                    let k_file_occ = if kf == f { file_occ } else { self.lines[kfl] };
                    n += king_line_count(m, kr, kf, k_rank_occ)
                        + king_line_count(m, kfl, kr, k_file_occ);
                }
                sum += n as u64;
            }
        }
        if mover == Side::Defenders {
            for from in self.king.squares() {
                let (rank_reach, file_reach) = self.reach(from, true, m);
                let mut bits = rank_reach;
                while bits != 0 {
                    let j = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let mv = Move::new(from, Square::new(from.rank(), j));
                    sum += self.full_count(rules, mv);
                }
                let mut bits = file_reach;
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let mv = Move::new(from, Square::new(i, from.file()));
                    sum += self.full_count(rules, mv);
                }
            }
        }
        sum
    }

    /// Destinations where a soldier of the side to move arriving might
    /// capture (an enemy next to it with a possible anvil beyond: a piece of
    /// the mover, the throne or a corner), capture the king, close a
    /// shieldwall or an exit fort. A soldier move elsewhere captures nothing
    /// and ends the game only by encirclement. A superset, cheap to compute.
    pub fn eventful_squares(&self, rules: &Rules) -> Bitboard {
        let m = rules.masks();
        let mover = self.side;
        // With the king on the edge any defender move may close an exit fort.
        if mover == Side::Defenders && rules.exit_fort && (self.king & m.edge).any() {
            return m.board;
        }
        let own = self.pieces(mover);
        let anvils = own | m.throne | m.corners;
        let enemies = match mover {
            Side::Attackers => self.defenders,
            Side::Defenders => self.attackers,
        };
        let mut eventful = Bitboard::EMPTY;
        for dir in 0..4 {
            eventful |= shift(enemies & shift(anvils, dir), dir);
        }
        if rules.shieldwall != Shieldwall::None {
            // A wall's first member stands on the edge beside the
            // destination with a piece of the mover in front of it.
            let fronted = (enemies | self.king) & m.edge & own.neighbours(m.board);
            eventful |= fronted.neighbours(m.board) & m.edge;
        }
        if mover == Side::Attackers {
            eventful |= self.king.neighbours(m.board);
        }
        eventful
    }

    #[inline(never)]
    fn full_count(&self, rules: &Rules, mv: Move) -> u64 {
        self.make(rules, mv).count_moves(rules) as u64
    }

    /// Whether an attacker moving `from`→`to` leaves the defenders encircled.
    #[inline]
    fn encircled_after(&self, m: &Masks, from: Square, to: Square) -> bool {
        let attackers = self.attackers ^ from.bb() ^ to.bb();
        super::encircled(m, attackers, self.defenders | self.king)
    }

    /// The opponent's soldiers and their moves, line by line.
    fn opponent_lines(&self, rules: &Rules, opponent: Side) -> Lines {
        let m = rules.masks();
        let ranks = &self.soldier_ranks[opponent.index()];
        let mut own = [0u16; 2 * MAX_SIZE];
        for (r, &bits) in ranks.iter().enumerate().take(rules.size()) {
            own[r] = bits;
            let mut bits = bits;
            while bits != 0 {
                let f = bits.trailing_zeros() as usize % MAX_SIZE;
                bits &= bits - 1;
                own[MAX_SIZE + f] |= 1 << r;
            }
        }
        let mut count = [0u32; 2 * MAX_SIZE];
        let mut total = 0;
        for line in 0..2 * MAX_SIZE {
            if own[line] != 0 {
                count[line] = line_count(m, line, self.lines[line], own[line]);
                total += count[line];
            }
        }
        Lines { own, count, total }
    }
}
