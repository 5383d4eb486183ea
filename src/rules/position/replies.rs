//! Counting the replies to every move at once: the last two plies of perft.
//!
//! A move that captures nothing and ends nothing leaves the opponent's
//! pieces where they were and changes the occupancy of three lines only
//! (the one it runs along and the two crossing its ends). The opponent's move
//! count is a sum over lines, so the count after such a move is the count
//! before it with those three lines recounted — no child position is built.
//! Moves that might capture or end the game are made in full.

use super::{line_occupancy, shift, MoveList, Position, EAST, MAX_SIZE, NORTH, SOUTH, WEST};
use crate::rules::options::{Encirclement, ExitFort, Masks, Rules, Shieldwall};
use crate::rules::tables::{SLIDES, SLIDE_COUNTS};
use crate::rules::types::{Bitboard, Move, Side, Square};

/// The moves of the soldiers on one line with occupancy `occ`, along that
/// line only (`own`: the soldiers' bits).
#[inline(always)]
fn line_count(m: &Masks, line: usize, occ: u16, own: u16) -> u32 {
    if m.camp_lines[line] != 0 {
        return camp_line_count(m, line, occ, own);
    }
    count_on_line(m, line, occ, own, |_| 0)
}

/// [`line_count`] on a line with camps: each soldier is blocked by the
/// camps it does not stand in.
#[inline(never)]
fn camp_line_count(m: &Masks, line: usize, occ: u16, own: u16) -> u32 {
    count_on_line(m, line, occ, own, |p| m.origin_blocks[line][p])
}

/// The count itself; `blocks(p)`: what else stops the soldier at `p`.
#[inline(always)]
fn count_on_line(m: &Masks, line: usize, occ: u16, own: u16, blocks: impl Fn(usize) -> u16) -> u32 {
    let line_occ = occ | m.soldier_blocks[line];
    let pass = m.soldier_pass_only[line];
    let mut n = 0;
    let mut bits = own;
    while bits != 0 {
        let p = bits.trailing_zeros() as usize % MAX_SIZE;
        bits &= bits - 1;
        let occ = (line_occ | blocks(p)) as usize & 0x7ff;
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

/// What the opponent's move count is made of, line by line, before the
/// move; and what decides whether a move is counted from line deltas.
struct Before {
    /// The opponent's soldiers on each line (ranks, then files).
    own: [u16; 2 * MAX_SIZE],
    /// Their moves along each line.
    count: [u32; 2 * MAX_SIZE],
    /// The sum of `count`.
    total: u32,
    /// Destinations whose moves are made in full
    /// ([`Position::eventful_squares`]).
    eventful: Bitboard,
    /// Whether each move must be checked for encirclement.
    encircling: bool,
    /// The king, when he is the opponent's: his moves are recounted.
    king: Option<Square>,
}

/// One soldier's moves along one of its two lines: that line and the
/// crossing line it leaves, each with its occupancy without the mover.
#[derive(Clone, Copy)]
struct Slide {
    along: usize,
    along_without: u16,
    left: usize,
    left_without: u16,
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
        let before = self.before_move(rules);

        let mut sum = 0u64;
        let soldiers = self.soldiers(mover);
        for from in soldiers.squares() {
            let (rank_reach, file_reach) = self.reach(from, false, m);
            let rank = from.rank();
            let file = MAX_SIZE + from.file();
            let rank_without = self.lines[rank] ^ (1 << from.file());
            let file_without = self.lines[file] ^ (1 << from.rank());
            // Along the rank: the rank changes, the file left loses the
            // mover, the file arrived on gains it; and the other way round.
            let along_rank = Slide {
                along: rank,
                along_without: rank_without,
                left: file,
                left_without: file_without,
            };
            let along_file = Slide {
                along: file,
                along_without: file_without,
                left: rank,
                left_without: rank_without,
            };
            sum += self.slide_replies(rules, &before, from, &along_rank, rank_reach);
            sum += self.slide_replies(rules, &before, from, &along_file, file_reach);
        }
        // King moves may escape or close a fort: made in full.
        if mover == Side::Defenders {
            let mut moves = MoveList::new();
            for from in self.king.squares() {
                self.generate_moves_from(rules, from, &mut moves);
            }
            sum += moves
                .iter()
                .map(|&mv| self.full_count(rules, mv))
                .sum::<u64>();
        }
        sum
    }

    /// The replies summed over one soldier's moves along one line (`reach`:
    /// the destinations, as bits of that line).
    #[inline(always)]
    fn slide_replies(
        &self,
        rules: &Rules,
        before: &Before,
        from: Square,
        slide: &Slide,
        reach: u16,
    ) -> u64 {
        let m = rules.masks();
        let Slide {
            along,
            along_without,
            left,
            left_without,
        } = *slide;
        let on_rank = along < MAX_SIZE;
        // The mover's bit in the line it arrives on across `along`.
        let cross_bit = 1u16 << (along % MAX_SIZE);
        let unchanged = line_count(m, left, left_without, before.own[left]) + before.total
            - before.count[left]
            - before.count[along];
        let mut sum = 0u64;
        let mut bits = reach;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize % MAX_SIZE;
            bits &= bits - 1;
            let (to, cross) = if on_rank {
                (Square::new(along, j), MAX_SIZE + j)
            } else {
                (Square::new(j, along - MAX_SIZE), j)
            };
            if before.eventful.has(to) || before.encircling && self.encircled_after(rules, from, to)
            {
                sum += self.full_count(rules, Move::new(from, to));
                continue;
            }
            let along_occ = along_without | (1 << j);
            let cross_occ = self.lines[cross] | cross_bit;
            let mut n = unchanged
                + line_count(m, along, along_occ, before.own[along])
                + line_count(m, cross, cross_occ, before.own[cross])
                - before.count[cross];
            if let Some(k) = before.king {
                let occ_after = |line: usize| {
                    if line == along {
                        along_occ
                    } else if line == left {
                        left_without
                    } else if line == cross {
                        cross_occ
                    } else {
                        self.lines[line]
                    }
                };
                let (kr, kf) = (k.rank(), MAX_SIZE + k.file());
                n += king_line_count(m, kr, k.file(), occ_after(kr))
                    + king_line_count(m, kf, k.rank(), occ_after(kf));
            }
            sum += n as u64;
        }
        sum
    }

    /// Destinations where a soldier of the side to move arriving might
    /// capture (an enemy next to it with a possible anvil beyond: a piece of
    /// the mover, the throne or a corner), capture the king, close a
    /// shieldwall or an exit fort. A soldier move elsewhere captures nothing
    /// and ends the game only by encirclement. A superset, cheap to compute.
    pub fn eventful_squares(&self, rules: &Rules) -> Bitboard {
        self.eventful(rules, true)
    }

    /// [`Position::eventful_squares`] for the search's late-move pruning:
    /// blind to the server's cannot-escape rule, under which any move may
    /// end the game. A late quiet move pruned unmade may then miss that
    /// rare win — an approximation of the search, which perft (exact) does
    /// not make; without it the search of `hnefatafl-org-11` loses a third
    /// of its speed.
    pub fn pruning_eventful_squares(&self, rules: &Rules) -> Bitboard {
        self.eventful(rules, false)
    }

    fn eventful(&self, rules: &Rules, exact: bool) -> Bitboard {
        let m = rules.masks();
        let mover = self.side;
        // With the king on the edge any defender move may close an exit fort.
        // Any move may complete the server's forts (with the king on the
        // edge) or shut the last way out.
        let fort = rules.options().exit_fort;
        if (exact && rules.options().cannot_escape)
            || ((self.king & m.edge).any()
                && (fort == ExitFort::Flood
                    || (mover == Side::Defenders && fort != ExitFort::None)))
        {
            return m.board;
        }
        let own = self.pieces(mover);
        let anvils = own | m.throne | m.corners | m.extra_hostile;
        let enemies = match mover {
            Side::Attackers => self.defenders,
            Side::Defenders => self.attackers,
        };
        let mut eventful = Bitboard::EMPTY;
        for dir in 0..4 {
            eventful |= shift(enemies & shift(anvils, dir), dir);
        }
        if rules.options().shieldwall != Shieldwall::None {
            if !rules.options().shieldwall_flank && ((enemies | self.king) & m.edge).count() >= 2 {
                // Relaxed shieldwalls: any move may take a closed wall.
                return m.board;
            }
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

    /// Destinations where an attacker arriving without a capture might
    /// complete an encirclement (a superset, cheap to compute): none while a
    /// defender or the king stands on the edge, else the squares whose
    /// filling could split the space free of attackers — a square whose free
    /// neighbours all meet around it (through the diagonal squares between
    /// them) cuts no path, and leaving `from` only opens more. Off the board
    /// counts as free: the edge is one place, reaching it is what counts.
    /// (In a position already encircled, which play never reaches, any
    /// attacker move encircles.)
    pub fn encirclement_cuts(&self, rules: &Rules) -> Bitboard {
        let m = rules.masks();
        if rules.options().encirclement == Encirclement::None
            || ((self.defenders | self.king) & m.edge).any()
        {
            return Bitboard::EMPTY;
        }
        // Each square's neighbour in one direction is free (not an
        // attacker): the attackers shifted the other way, complemented.
        let a = self.attackers;
        let free_beyond = |dirs: &[usize]| !dirs.iter().fold(a, |b, &d| shift(b, d)).0;
        let n = free_beyond(&[SOUTH]);
        let s = free_beyond(&[NORTH]);
        let e = free_beyond(&[WEST]);
        let w = free_beyond(&[EAST]);
        let ne = free_beyond(&[SOUTH, WEST]);
        let nw = free_beyond(&[SOUTH, EAST]);
        let se = free_beyond(&[NORTH, WEST]);
        let sw = free_beyond(&[NORTH, EAST]);
        // Going round the square clockwise, a free neighbour whose run of
        // free squares ends before the next one: one per separate group.
        let end_n = n & !(ne & e);
        let end_e = e & !(se & s);
        let end_s = s & !(sw & w);
        let end_w = w & !(nw & n);
        let two_groups = (end_n & end_e) | (end_s & end_w) | ((end_n | end_e) & (end_s | end_w));
        Bitboard(two_groups) & m.board & !a
    }

    #[inline(never)]
    fn full_count(&self, rules: &Rules, mv: Move) -> u64 {
        self.make(rules, mv).count_moves(rules) as u64
    }

    /// Whether an attacker moving `from`→`to` leaves the defenders encircled.
    #[inline]
    fn encircled_after(&self, rules: &Rules, from: Square, to: Square) -> bool {
        let attackers = self.attackers ^ from.bb() ^ to.bb();
        super::encirclement_holds(rules, attackers, self.defenders, self.king)
    }

    /// The opponent's soldiers and their moves, line by line, and what
    /// decides which moves are made in full.
    fn before_move(&self, rules: &Rules) -> Before {
        let m = rules.masks();
        let opponent = self.side.other();
        let soldiers = self.soldiers(opponent);
        let own = line_occupancy(soldiers);
        let mut count = [0u32; 2 * MAX_SIZE];
        let mut total = 0;
        for line in 0..2 * MAX_SIZE {
            if own[line] != 0 {
                count[line] = line_count(m, line, self.lines[line], own[line]);
                total += count[line];
            }
        }
        Before {
            own,
            count,
            total,
            eventful: self.eventful_squares(rules),
            encircling: self.side == Side::Attackers
                && rules.options().encirclement != Encirclement::None,
            king: match opponent {
                Side::Defenders => self.king.first(),
                Side::Attackers => None,
            },
        }
    }
}
