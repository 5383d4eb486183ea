//! The learned evaluation's features: what a position is made of, as
//! counts, from the defenders' point of view (a positive weight favours
//! the defenders). One function, [`extract`], computes them for both uses:
//! summing weights in the search, and recording counts for the tuner.
//!
//! The terms: material (asymmetric); piece-square tables folded by the
//! board's 8 symmetries; the king's fewest moves to an escape square (one,
//! two, more, or none he can walk to), the escape squares he reaches in
//! one and two moves and the squares from which he has a road; open roads
//! when the attackers must answer them (raichi, tuichu); the king's
//! reachable area (capped, and in full) and his freedom; attackers and
//! defenders in rings around him, and the pressure of attackers beside
//! him under each capture rule;
//! corner blockades (the diagonal walls in front of each corner, and those
//! of the corners nearest the king) and empty edges; rank and file
//! control; the attackers' walls (diagonal links) and enclosure (the area their
//! wall shuts off from the edge, defenders left outside it, and the edge squares
//! the king can still reach, and the squares the attackers must still fill
//! to shut him in); mobility of both sides; pieces en prise;
//! the side to move.

use crate::rules::options::{Escape, KingCapture, Masks};
use crate::rules::types::{FILE_0, FILE_10};
use crate::rules::{Bitboard, Position, Rules, Side, Square};
use arrayvec::ArrayVec;

/// Where a feature's count goes: a running sum of weights, or a vector of
/// counts. `wants` lets the search skip the costly groups its weights do
/// not use.
pub trait Sink {
    fn add(&mut self, feature: usize, count: i32);
    fn wants(&self, group: Group) -> bool;
    /// One count for each of `pieces` on its square class, in the
    /// piece-square table from feature `table` on; a sum may look each
    /// square's weight up at once instead.
    #[inline(always)]
    fn add_pst(&mut self, table: usize, pieces: Bitboard, n: usize) {
        let classes = &CLASSES[n];
        for sq in pieces.squares() {
            self.add(table + classes[sq.index()] as usize, 1);
        }
    }
}

/// Groups of features that cost enough to skip when unweighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Mobility,
    Enclosure,
    KingDistance,
    RingGaps,
}

macro_rules! features {
    ($($name:ident => $text:literal),* $(,)?) => {
        /// Feature indices of the scalar terms (the piece-square tables follow).
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        pub enum F { $($name),* }
        /// Names of the scalar terms, in index order.
        pub const SCALAR_NAMES: &[&str] = &[$($text),*];
    };
}

features! {
    Attacker => "attacker",
    Defender => "defender",
    KingMoves => "king-moves",
    KingArea => "king-area",
    KingRoom => "king-room",
    KingEdgeDistance => "king-escape-distance",
    EscapeIn1 => "escapes-in-1",
    EscapeIn2 => "escapes-in-2",
    EscapeRoutes2 => "escape-routes-2",
    KingToEscape1 => "king-to-escape-1",
    KingToEscape2 => "king-to-escape-2",
    KingToEscapeFar => "king-to-escape-3+",
    KingNoEscape => "king-no-escape",
    Raichi => "raichi",
    Tuichu => "tuichu",
    AttackersRing1 => "attackers-ring-1",
    AttackersRing2 => "attackers-ring-2",
    DefendersRing1 => "defenders-ring-1",
    DefendersRing2 => "defenders-ring-2",
    PressureWeak => "pressure-weak",
    PressureLinnaeus => "pressure-linnaeus",
    PressureStrong => "pressure-strong",
    CornerDiagonal => "corner-diagonal",
    CornerWall => "corner-wall",
    CornerClosed => "corner-closed",
    CornerNearKing => "corner-near-king",
    AttackerDiagonals => "attacker-diagonals",
    EmptyEdges => "empty-edges",
    LinesAttackers => "lines-attackers",
    LinesDefenders => "lines-defenders",
    Enclosed => "enclosed-area",
    DefendersOutside => "defenders-outside",
    KingEnclosed => "king-enclosed",
    KingEdgeReach => "king-edge-reach",
    RingGaps => "ring-gaps",
    AttackerMobility => "attacker-mobility",
    DefenderMobility => "defender-mobility",
    EnPrise => "en-prise",
    Tempo => "tempo",
}

/// Scalar features, then three piece-square tables (attackers, defenders,
/// king) of [`PST_CLASSES`] entries each.
pub const SCALARS: usize = SCALAR_NAMES.len();
/// Square classes under the 8 symmetries on the largest (11x11) board.
pub const PST_CLASSES: usize = 21;
pub const PST_ATTACKER: usize = SCALARS;
pub const PST_DEFENDER: usize = SCALARS + PST_CLASSES;
pub const PST_KING: usize = SCALARS + 2 * PST_CLASSES;
/// All features.
pub const COUNT: usize = SCALARS + 3 * PST_CLASSES;

/// A feature's name (`pst-attacker-3` for table entries).
pub fn name(feature: usize) -> String {
    match feature {
        f if f < SCALARS => SCALAR_NAMES[f].to_string(),
        f if f < PST_DEFENDER => format!("pst-attacker-{}", f - PST_ATTACKER),
        f if f < PST_KING => format!("pst-defender-{}", f - PST_DEFENDER),
        f => format!("pst-king-{}", f - PST_KING),
    }
}

/// The feature index named `text`.
pub fn index(text: &str) -> Option<usize> {
    (0..COUNT).find(|&f| name(f) == text)
}

/// The square class of `sq` on an `n`x`n` board: folded onto one eighth of
/// the board (rank and file from the nearest edge, smaller first).
pub const fn square_class(sq: usize, n: usize) -> usize {
    let r = sq / 11;
    let f = sq % 11;
    let r = if r < n - 1 - r { r } else { n - 1 - r };
    let f = if f < n - 1 - f { f } else { n - 1 - f };
    let (a, b) = if r < f { (r, f) } else { (f, r) };
    b * (b + 1) / 2 + a
}

const fn class_table(n: usize) -> [u8; 121] {
    let mut t = [0u8; 121];
    let mut sq = 0;
    while sq < 121 {
        if sq / 11 < n && sq % 11 < n {
            t[sq] = square_class(sq, n) as u8;
        }
        sq += 1;
    }
    t
}

/// Square classes per board size (5 to 11; odd sizes only are played).
pub const CLASSES: [[u8; 121]; 12] = {
    let mut all = [[0u8; 121]; 12];
    let mut n = 5;
    while n <= 11 {
        all[n] = class_table(n);
        n += 1;
    }
    all
};

/// Ranks and files as bitboards on the widest board.
const LINES: [Bitboard; 22] = {
    let mut lines = [Bitboard::EMPTY; 22];
    let mut i = 0;
    while i < 11 {
        lines[i] = Bitboard(0x7ffu128 << (11 * i));
        let mut r = 0;
        let mut file = 0u128;
        while r < 11 {
            file |= 1u128 << (11 * r + i);
            r += 1;
        }
        lines[11 + i] = Bitboard(file);
        i += 1;
    }
    lines
};

/// Computes every feature of `pos` into `sink`.
#[inline(always)]
pub fn extract(pos: &Position, rules: &Rules, sink: &mut impl Sink) {
    let m: &Masks = rules.masks();
    let n = rules.size();
    let o = rules.options();
    let attackers = pos.attackers();
    let defenders = pos.defenders();
    let mover = pos.side_to_move();
    let sign = if mover == Side::Defenders { 1 } else { -1 };
    sink.add(F::Attacker as usize, attackers.count() as i32);
    sink.add(F::Defender as usize, defenders.count() as i32);
    sink.add(F::Tempo as usize, sign);
    sink.add_pst(PST_ATTACKER, attackers, n);
    sink.add_pst(PST_DEFENDER, defenders, n);
    sink.add_pst(PST_KING, pos.king(), n);
    if sink.wants(Group::Mobility) {
        sink.add(
            F::AttackerMobility as usize,
            pos.count_moves_of(rules, Side::Attackers) as i32,
        );
        sink.add(
            F::DefenderMobility as usize,
            pos.count_moves_of(rules, Side::Defenders) as i32,
        );
    }
    // Pieces the side to move can take next move (roughly).
    let targets = pos.capture_targets(rules, mover);
    if targets
        .squares()
        .any(|t| pos.soldiers_reaching(rules, t, mover).any())
    {
        sink.add(F::EnPrise as usize, sign);
    }
    lines(attackers, defenders | pos.king(), n, sink);
    sink.add(F::AttackerDiagonals as usize, diagonal_links(attackers));
    corners(m, attackers, pos.king_square(), n, o.escape, sink);
    if sink.wants(Group::Enclosure) {
        enclosure(m, attackers, defenders, pos.king(), sink);
    }
    let Some(k) = pos.king_square() else {
        return;
    };
    king(pos, rules, k, sink);
    if sink.wants(Group::RingGaps) {
        let solid = defenders | pos.king() | m.soldier_forbidden;
        let gaps = ring_gaps(m, attackers, solid, k, RING_GAPS_CAP);
        sink.add(F::RingGaps as usize, gaps as i32);
    }
    let adjacent = (k.bb().neighbours(m.board) & attackers).count() as i32;
    let pressure = match o.king_capture {
        KingCapture::Weak | KingCapture::Sandwich => F::PressureWeak,
        KingCapture::Linnaeus => F::PressureLinnaeus,
        KingCapture::Strong => F::PressureStrong,
    };
    sink.add(pressure as usize, adjacent * adjacent);
    // Rings by Manhattan distance: beside the king, and two steps away.
    let ring1 = k.bb().neighbours(m.board);
    let ring2 = ring1.neighbours(m.board) & !ring1 & !k.bb();
    sink.add(
        F::AttackersRing1 as usize,
        (attackers & ring1).count() as i32,
    );
    sink.add(
        F::AttackersRing2 as usize,
        (attackers & ring2).count() as i32,
    );
    sink.add(
        F::DefendersRing1 as usize,
        (defenders & ring1).count() as i32,
    );
    sink.add(
        F::DefendersRing2 as usize,
        (defenders & ring2).count() as i32,
    );
}

/// The king's freedom, area, roads and distance to the escape squares.
#[inline(always)]
fn king(pos: &Position, rules: &Rules, k: Square, sink: &mut impl Sink) {
    let m = rules.masks();
    let n = rules.size();
    let empty = m.board & !pos.occupied();
    let moves = pos.destinations(rules, k);
    sink.add(F::KingMoves as usize, moves.count() as i32);
    let roads = moves & m.escape;
    if pos.side_to_move() == Side::Attackers {
        match roads.count() {
            0 => {}
            1 => sink.add(F::Raichi as usize, 1),
            _ => sink.add(F::Tuichu as usize, 1),
        }
    }
    sink.add(F::EscapeIn1 as usize, roads.count() as i32);
    let edge_distance = {
        let (r, f) = (k.rank(), k.file());
        let (dr, df) = (r.min(n - 1 - r), f.min(n - 1 - f));
        match rules.options().escape {
            Escape::Edge => dr.min(df),
            Escape::Corner => dr + df,
        }
    };
    sink.add(F::KingEdgeDistance as usize, edge_distance as i32);
    // Flooded from his moves as well as his square: they are empty squares
    // joined to him along his lines, so the area is the same, and a flood
    // from a cross reaches the far squares in half the steps (each step
    // waits for the one before).
    let area = (k.bb() | moves).flood(empty, m.board);
    let room = area.count() as i32 - 1;
    sink.add(F::KingArea as usize, room.min(40));
    // Uncapped: on 11x11 boards the king's room stays above the cap of 40
    // for most of a game, so only this count shows the attackers' wall
    // shrinking it.
    sink.add(F::KingRoom as usize, room);
    if !sink.wants(Group::KingDistance) {
        return;
    }
    // Escape squares two king moves away: from each square he can reach,
    // the escape squares on its lines.
    // The squares with a road are counted too: two of them are two threats
    // the attackers must meet, even when both roads lead to one corner.
    let (in_two, routes) = pos.escapes_in_two(rules, k);
    sink.add(F::EscapeIn2 as usize, in_two.count().min(4) as i32);
    sink.add(F::EscapeRoutes2 as usize, routes.min(4) as i32);
    let reachable = (area.neighbours(m.board) | area) & m.escape;
    let feature = if roads.any() {
        F::KingToEscape1
    } else if in_two.any() {
        F::KingToEscape2
    } else if reachable.any() {
        F::KingToEscapeFar
    } else {
        F::KingNoEscape
    };
    sink.add(feature as usize, 1);
}

/// Ranks and files where one side outnumbers the other.
#[inline(always)]
fn lines(attackers: Bitboard, defenders: Bitboard, n: usize, sink: &mut impl Sink) {
    let (att, def) = lines_won(attackers, defenders, n);
    sink.add(F::LinesAttackers as usize, att as i32);
    sink.add(F::LinesDefenders as usize, def as i32);
}

/// The ranks and the files (of the first `n`) where the attackers
/// outnumber the defenders, and where the defenders outnumber them: two
/// masks and two counts a line (the evaluation runs in a copy built for
/// `POPCNT`, where that beats table lookups and bit-sliced counters).
#[inline(always)]
fn lines_won(attackers: Bitboard, defenders: Bitboard, n: usize) -> (u32, u32) {
    let (mut att, mut def) = (0u32, 0u32);
    for i in 0..n {
        for line in [LINES[i], LINES[11 + i]] {
            let ca = (attackers & line).count();
            let cd = (defenders & line).count();
            att += (ca > cd) as u32;
            def += (cd > ca) as u32;
        }
    }
    (att, def)
}

/// Corner blockades (attackers on the diagonal wall in front of each
/// corner: the square diagonally in front, the two beside the corner's
/// neighbours, and the whole wall closed; and the blockade pieces of the
/// corners nearest the king, which are the ones that must hold) and, on
/// edge-escape boards, the edges without an attacker.
#[inline(always)]
fn corners(
    m: &Masks,
    attackers: Bitboard,
    king: Option<Square>,
    n: usize,
    escape: Escape,
    sink: &mut impl Sink,
) {
    let far = n - 1;
    let (mut diagonal, mut wall, mut closed) = (0, 0, 0);
    // The king's distance (rank plus file) to each corner, and each
    // corner's blockade pieces (corner-escape boards only).
    let king = king.filter(|_| escape == Escape::Corner);
    let mut near = [(usize::MAX, 0i32); 4];
    for (c, (rs, fs)) in [(false, false), (false, true), (true, false), (true, true)]
        .into_iter()
        .enumerate()
    {
        let at = |r: usize, f: usize| {
            let r = if rs { far - r } else { r };
            let f = if fs { far - f } else { f };
            attackers.has(Square::new(r, f))
        };
        let d = at(1, 1);
        let w = [at(0, 2), at(2, 0)];
        diagonal += d as i32;
        let walls = w.iter().filter(|x| **x).count() as i32;
        wall += walls;
        closed += (d && w[0] && w[1]) as i32;
        if let Some(k) = king {
            let r = if rs { far - k.rank() } else { k.rank() };
            let f = if fs { far - k.file() } else { k.file() };
            near[c] = (r + f, d as i32 + walls);
        }
    }
    if king.is_some() {
        let nearest = near.iter().map(|c| c.0).min().unwrap_or(usize::MAX);
        let pieces: i32 = near.iter().filter(|c| c.0 == nearest).map(|c| c.1).sum();
        sink.add(F::CornerNearKing as usize, pieces);
    }
    sink.add(F::CornerDiagonal as usize, diagonal);
    sink.add(F::CornerWall as usize, wall);
    sink.add(F::CornerClosed as usize, closed);
    if escape == Escape::Edge {
        let edges = [LINES[0], LINES[far], LINES[11], LINES[11 + far]];
        let empty = edges
            .iter()
            .filter(|e| (**e & m.board & attackers).is_empty())
            .count();
        sink.add(F::EmptyEdges as usize, empty as i32);
    }
}

/// Pairs of attackers on diagonally adjacent squares: the links of the
/// walls that shut the king off from the edge (a diagonal chain stops his
/// orthogonal moves with the fewest pieces).
#[inline(always)]
fn diagonal_links(attackers: Bitboard) -> i32 {
    ((attackers & attackers.north_east()).count() + (attackers & attackers.north_west()).count())
        as i32
}

/// The attackers' enclosure: squares their wall shuts off from the edge,
/// the defenders left outside it, whether the king is inside, and the edge
/// squares he could reach were his own men out of the way (a graded
/// measure of the wall's progress: none once he is enclosed).
#[inline(always)]
fn enclosure(
    m: &Masks,
    attackers: Bitboard,
    defenders: Bitboard,
    king: Bitboard,
    sink: &mut impl Sink,
) {
    let free = m.board & !attackers;
    let outside = (m.edge & free).flood(free, m.board);
    let enclosed = free & !outside;
    sink.add(F::Enclosed as usize, enclosed.count() as i32);
    sink.add(
        F::DefendersOutside as usize,
        ((defenders | king) & outside).count() as i32,
    );
    sink.add(F::KingEnclosed as usize, (king & enclosed).any() as i32);
    // Edge-escape boards have no such squares: no flood there.
    let targets = m.edge & !m.escape;
    let reach = if targets.any() && (king & outside).any() {
        (king.flood(free, m.board) & targets).count() as i32
    } else {
        0
    };
    sink.add(F::KingEdgeReach as usize, reach);
}

/// Where [`ring_gaps`] stops counting in the evaluation: a ring with more
/// gaps than this is no ring yet, and each gap costs one more search of the
/// board.
pub const RING_GAPS_CAP: u32 = 8;

/// The fewest squares the attackers must still fill to shut the king off
/// from the edge: the size of the smallest set of squares that cuts every
/// path he could walk there, or `cap` when that is `cap` or more (he stands
/// on the edge, or his men link him to it). Attackers already fill their
/// squares; defenders and the squares soldiers may not stop on (`solid`)
/// cannot be filled. A graded measure of the ring the attackers are
/// building: `king-enclosed` only says when it has closed.
///
/// Menger: the smallest cut is the largest number of paths from the king to
/// the edge that share no fillable square. They are found one at a time
/// (at most `cap` of them) by a breadth-first search for an augmenting path
/// in the residual network where each square is split into an entry and an
/// exit joined by one unit of capacity (unlimited for `solid` squares, whose
/// entry and exit are one node). The search runs on whole bitboards, one
/// layer of nodes per step; the path is then traced back through the layers.
pub fn ring_gaps(m: &Masks, attackers: Bitboard, solid: Bitboard, king: Square, cap: u32) -> u32 {
    let board = m.board.0;
    let passable = board & !attackers.0;
    let solid = solid.0 & passable;
    let edge = m.edge.0;
    let k = king.index();
    if edge >> k & 1 == 1 {
        return cap;
    }
    // `flow[d]`: squares that send one unit to their neighbour in direction
    // `d` (edges with a fillable end; between two solid squares the
    // capacity is unlimited both ways, so nothing needs recording).
    let mut flow = [0u128; 4];
    // Fillable squares a path already runs through.
    let mut through = 0u128;
    let shift = |b: u128, d: usize| -> u128 {
        board
            & match d {
                0 => b << 11,
                1 => b >> 11,
                2 => (b << 1) & !FILE_0.0,
                _ => (b >> 1) & !FILE_10.0,
            }
    };
    let around = |b: u128| shift(b, 0) | shift(b, 1) | shift(b, 2) | shift(b, 3);
    let has = |set: u128, sq: usize| set >> sq & 1 == 1;
    for paths in 0..cap {
        // Layer i holds the entries and exits first reached at step i; a
        // solid square's entry and exit are reached together.
        let mut layers: ArrayVec<(u128, u128), 256> = ArrayVec::new();
        let (mut seen_in, mut seen_out) = (1u128 << k, 1u128 << k);
        layers.push((seen_in, seen_out));
        let mut reached = None;
        while let Some(&(entries, exits)) = layers.last() {
            if exits & edge != 0 {
                reached = Some((exits & edge).trailing_zeros() as usize);
                break;
            }
            let mut new_in = (around(exits) & passable) | (exits & through & !solid);
            let mut new_out = entries & (solid | !through);
            for (d, f) in flow.iter().enumerate() {
                new_out |= shift(entries, d ^ 1) & f;
            }
            new_in |= new_out & solid;
            new_out |= new_in & solid;
            new_in &= !seen_in;
            new_out &= !seen_out;
            if new_in | new_out == 0 || layers.is_full() {
                break;
            }
            seen_in |= new_in;
            seen_out |= new_out;
            layers.push((new_in, new_out));
        }
        let Some(mut sq) = reached else {
            return paths;
        };
        // Trace the path back: at each layer, a node of the layer before
        // that leads to the current one. `exit` says which node of a
        // fillable square we are at.
        let mut exit = true;
        for i in (1..layers.len()).rev() {
            let (entries, exits) = layers[i - 1];
            let here = 1u128 << sq;
            // A neighbour's exit leading here, or an entry of the layer
            // before that this square sent a unit to (and is taken back
            // from): `(direction, the neighbour, whether it is an exit)`.
            let from_exit = || {
                (0..4).find_map(|d| Some((d, shift(here, d) & exits, true)).filter(|x| x.1 != 0))
            };
            let from_entry = || {
                (0..4).find_map(|d| {
                    Some((d, shift(here & flow[d], d) & entries, false)).filter(|x| x.1 != 0)
                })
            };
            let neighbour = if has(solid, sq) {
                from_exit().or_else(from_entry)
            } else if exit {
                // A fillable square's exit: from its own entry first.
                if has(entries, sq) && !has(through, sq) {
                    through |= here;
                    exit = false;
                    continue;
                }
                from_entry()
            } else {
                // A fillable square's entry: else from its own exit, when a
                // path runs through it.
                let found = from_exit();
                if found.is_none() && has(exits, sq) && has(through, sq) {
                    through &= !here;
                    exit = true;
                }
                found
            };
            if let Some((d, set, was_exit)) = neighbour {
                let n = set.trailing_zeros() as usize;
                send(&mut flow, solid, n, sq, d ^ 1);
                sq = n;
                exit = was_exit;
            }
        }
    }
    cap
}

/// One unit sent from `from` to its neighbour `to` (in direction `d`): it
/// cancels a unit sent the other way, if there is one.
fn send(flow: &mut [u128; 4], solid: u128, from: usize, to: usize, d: usize) {
    if flow[d ^ 1] >> to & 1 == 1 {
        flow[d ^ 1] &= !(1u128 << to);
    } else if (solid >> from & solid >> to) & 1 == 0 {
        flow[d] |= 1u128 << from;
    }
}

/// Counts every feature into a vector (for the tuner and for tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counts(pub [i32; COUNT]);

impl Default for Counts {
    fn default() -> Self {
        Counts([0; COUNT])
    }
}

impl Sink for Counts {
    fn add(&mut self, feature: usize, count: i32) {
        self.0[feature] += count;
    }
    fn wants(&self, _: Group) -> bool {
        true
    }
}

/// The features of a position, as counts.
pub fn counts(pos: &Position, rules: &Rules) -> Counts {
    let mut c = Counts::default();
    extract(pos, rules, &mut c);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The king's moves are in his area: flooding from them too gives the
    /// area flooded from his square alone, on every preset's random games.
    #[test]
    fn the_kings_moves_seed_his_area_without_changing_it() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        for preset in crate::rules::Preset::ALL {
            let rules = Rules::preset(preset);
            let m = rules.masks();
            for _ in 0..20 {
                let mut game = crate::rules::Game::new(rules.clone());
                for _ in 0..rng.gen_range(0..120) {
                    let moves = game.legal_moves();
                    if game.outcome().is_some() || moves.is_empty() {
                        break;
                    }
                    let _ = game.play(moves[rng.gen_range(0..moves.len())]);
                }
                let pos = game.position();
                let Some(k) = pos.king_square() else { continue };
                let empty = m.board & !pos.occupied();
                let seeds = k.bb() | pos.destinations(&rules, k);
                assert_eq!(
                    seeds.flood(empty, m.board),
                    k.bb().flood(empty, m.board),
                    "{preset:?}"
                );
            }
        }
    }

    /// The counts of the position `record` with `side` to move.
    fn counts_of(rules: &Rules, record: &str, side: Side) -> Counts {
        let game = crate::rules::Game::from_record(rules.clone(), record, side, 0, 0)
            .expect("a valid test position");
        counts(game.position(), rules)
    }

    /// [`ring_gaps`] written plainly, over arrays (the tests' reference).
    /// The fewest squares the attackers must still fill to shut the king off
    /// from the edge: the size of the smallest set of squares that cuts every
    /// path he could walk there, or `cap` when that is `cap` or more (he stands
    /// on the edge, or his men link him to it). Attackers already fill their
    /// squares; defenders and the squares soldiers may not stop on (`solid`)
    /// cannot be filled. A graded measure of the ring the attackers are
    /// building: `king-enclosed` only says when it has closed.
    ///
    /// Menger: the smallest cut is the largest number of paths from the king to
    /// the edge that share no fillable square, found one at a time by
    /// breadth-first search for an augmenting path (each square split into an
    /// entry and an exit joined by one unit of capacity, unlimited for `solid`
    /// squares), at most `cap` times.
    fn ring_gaps_by_arrays(
        m: &Masks,
        attackers: Bitboard,
        solid: Bitboard,
        king: Square,
        cap: u32,
    ) -> u32 {
        let (board, walls, solid, edge) = (m.board.0, attackers.0, solid.0, m.edge.0);
        let bit = |set: u128, sq: usize| set >> sq & 1 == 1;
        // North, south, east, west; `d ^ 1` is the opposite direction.
        let step = |sq: usize, d: usize| -> Option<usize> {
            let to = match d {
                0 => sq + 11,
                1 => sq.checked_sub(11)?,
                2 if sq % 11 != 10 => sq + 1,
                3 if !sq.is_multiple_of(11) => sq - 1,
                _ => return None,
            };
            (to < 121 && bit(board, to)).then_some(to)
        };
        let k = king.index();
        if bit(edge, k) {
            return cap;
        }
        // Net flow from each square to its neighbour in each direction, and the
        // fillable squares a path already runs through.
        let mut flow = [[0i8; 4]; 121];
        let mut through = 0u128;
        for paths in 0..cap {
            let mut bfs = Bfs {
                parent: [NONE; 242],
                queue: [0; 242],
                tail: 0,
            };
            let start = 2 * k + 1;
            bfs.visit(start, start);
            let mut head = 0;
            let mut reached = None;
            while head < bfs.tail {
                let node = bfs.queue[head] as usize;
                head += 1;
                let sq = node / 2;
                if node % 2 == 1 {
                    // An exit: the edge, the neighbours' entries, and back into
                    // its own entry when a path runs through it.
                    if bit(edge, sq) {
                        reached = Some(node);
                        break;
                    }
                    for d in 0..4 {
                        if let Some(to) = step(sq, d).filter(|&to| !bit(walls, to)) {
                            bfs.visit(2 * to, node);
                        }
                    }
                    if bit(solid, sq) || bit(through, sq) {
                        bfs.visit(2 * sq, node);
                    }
                } else {
                    // An entry: its exit while it has capacity left, and back
                    // along a path that enters it to the square it came from.
                    if bit(solid, sq) || !bit(through, sq) {
                        bfs.visit(node + 1, node);
                    }
                    for (d, f) in flow[sq].iter().enumerate() {
                        if *f < 0 {
                            if let Some(from) = step(sq, d) {
                                bfs.visit(2 * from + 1, node);
                            }
                        }
                    }
                }
            }
            let parent = &bfs.parent;
            let Some(mut node) = reached else {
                return paths;
            };
            // Send one unit back along the path found.
            while node != start {
                let prev = parent[node] as usize;
                let (a, b) = (prev / 2, node / 2);
                if a == b {
                    if !bit(solid, a) {
                        if node % 2 == 1 {
                            through |= 1 << a;
                        } else {
                            through &= !(1 << a);
                        }
                    }
                } else if let Some(d) = (0..4).find(|&d| step(a, d) == Some(b)) {
                    flow[a][d] += 1;
                    flow[b][d ^ 1] -= 1;
                }
                node = prev;
            }
        }
        cap
    }

    const NONE: u16 = u16::MAX;

    /// A breadth-first search over squares' entries (`2 * square`) and exits
    /// (`2 * square + 1`), for [`ring_gaps`].
    struct Bfs {
        parent: [u16; 242],
        queue: [u16; 242],
        tail: usize,
    }

    impl Bfs {
        fn visit(&mut self, node: usize, from: usize) {
            if self.parent[node] == NONE {
                self.parent[node] = from as u16;
                self.queue[self.tail] = node as u16;
                self.tail += 1;
            }
        }
    }
    use crate::rules::Preset;

    #[test]
    fn square_classes_fold_the_eight_symmetries() {
        for n in [7usize, 9, 11] {
            let k = n.div_ceil(2);
            let mut seen = std::collections::BTreeSet::new();
            for r in 0..n {
                for f in 0..n {
                    let c = square_class(r * 11 + f, n);
                    assert_eq!(c, square_class((n - 1 - r) * 11 + f, n));
                    assert_eq!(c, square_class(f * 11 + r, n));
                    seen.insert(c);
                }
            }
            assert_eq!(seen.len(), k * (k + 1) / 2);
            assert!(seen.iter().all(|&c| c < PST_CLASSES));
        }
        assert_eq!(index("tempo"), Some(F::Tempo as usize));
        assert_eq!(index(&name(PST_KING + 3)), Some(PST_KING + 3));
    }

    #[test]
    fn the_kings_room_is_counted_past_the_areas_cap() {
        let rules = Rules::preset(Preset::Copenhagen);
        // The king alone in the middle, one attacker and one defender on the
        // edges: every other square is his.
        let c = counts_of(
            &rules,
            "/11/5t5/11/11/11/5K5/11/11/11/5T5/11/",
            Side::Defenders,
        );
        assert_eq!(c.0[F::KingArea as usize], 40);
        assert_eq!(c.0[F::KingRoom as usize], 121 - 3);
    }

    #[test]
    fn start_positions_have_the_expected_counts() {
        let rules = Rules::preset(Preset::Copenhagen);
        let c = counts(&Position::start(&rules), &rules);
        assert_eq!(c.0[F::Attacker as usize], 24);
        assert_eq!(c.0[F::Defender as usize], 12);
        assert_eq!(c.0[F::Tempo as usize], -1);
        assert_eq!(c.0[PST_KING..].iter().sum::<i32>(), 1);
        // The king is walled in by his own men: no road, no area.
        assert_eq!(c.0[F::KingArea as usize], 0);
        assert_eq!(c.0[F::KingRoom as usize], 0);
        assert_eq!(c.0[F::KingNoEscape as usize], 1);
        assert_eq!(c.0[F::DefendersRing1 as usize], 4);
        // Nothing is enclosed at the start.
        assert_eq!(c.0[F::Enclosed as usize], 0);
        assert_eq!(c.0[F::DefendersOutside as usize], 13);
    }

    #[test]
    fn king_distances_by_slides() {
        // Tablut: king on c5 with an empty board but one attacker: the
        // edge squares a5, c1, c9 are one move away.
        let rules = Rules::preset(Preset::Tablut);
        let c = counts_of(&rules, "/9/9/9/9/2K6/9/9/9/5t3/", Side::Attackers);
        assert_eq!(c.0[F::KingToEscape1 as usize], 1);
        assert_eq!(c.0[F::Tuichu as usize], 1);
        // Copenhagen: king on f6 in an empty board: a corner is two moves away.
        let rules = Rules::preset(Preset::Copenhagen);
        let c = counts_of(
            &rules,
            "/11/11/11/11/11/5K5/11/11/11/4t6/11/",
            Side::Defenders,
        );
        assert_eq!(c.0[F::KingToEscape2 as usize], 1);
        assert_eq!(
            c.0[F::EscapeIn2 as usize],
            4,
            "every corner, through f1, f11, a6 or k6"
        );
        assert_eq!(c.0[F::EscapeRoutes2 as usize], 4, "f1, f11, a6 and k6");
        // Every corner is as near (5 + 5): the attacker on e2 guards none.
        assert_eq!(c.0[F::CornerNearKing as usize], 0);
    }

    #[test]
    fn the_blockade_of_the_corner_nearest_the_king() {
        // Copenhagen, king on j3: the nearest corner is k1 (rank 1, file k),
        // guarded by j2 (diagonal) and i1 (wall); a1's guard b2 is far.
        let rules = Rules::preset(Preset::Copenhagen);
        let c = counts_of(
            &rules,
            "/11/11/11/11/11/11/11/11/9K1/1t7t1/8t2/",
            Side::Attackers,
        );
        assert_eq!(c.0[F::CornerDiagonal as usize], 2);
        assert_eq!(c.0[F::CornerWall as usize], 1);
        assert_eq!(c.0[F::CornerNearKing as usize], 2);
        // Edge-escape boards have no corners to guard.
        let rules = Rules::preset(Preset::Tablut);
        let c = counts(&Position::start(&rules), &rules);
        assert_eq!(c.0[F::CornerNearKing as usize], 0);
    }

    #[test]
    fn the_attackers_walls_and_the_edge_the_king_still_reaches() {
        let rules = Rules::preset(Preset::Copenhagen);
        let at = |record: &str| counts_of(&rules, record, Side::Defenders);
        // A diagonal wall a4-b3-c2-d1 (three links) shuts a2, a3, b1 and c1
        // off from the king on f6: of the 36 edge squares that are not
        // corners, a4 and d1 hold attackers, so he reaches 30.
        let c = at("/11/11/11/11/11/5K5/11/t10/1t9/2t8/3t7/");
        assert_eq!(c.0[F::AttackerDiagonals as usize], 3);
        assert_eq!(c.0[F::KingEdgeReach as usize], 30);
        // Behind the wall (b2) he reaches only those four.
        let c = at("/11/11/11/11/11/11/11/t10/1t9/1Kt8/3t7/");
        assert_eq!(c.0[F::KingEdgeReach as usize], 4);
        // A diamond of eight around him (eight links) encloses him.
        let c = at("/11/11/11/5t5/4t1t4/3t1K1t3/4t1t4/5t5/11/11/11/");
        assert_eq!(c.0[F::AttackerDiagonals as usize], 8);
        assert_eq!(c.0[F::KingEnclosed as usize], 1);
        assert_eq!(c.0[F::KingEdgeReach as usize], 0);
    }

    #[test]
    fn ring_gaps_count_the_squares_left_to_fill() {
        let rules = Rules::preset(Preset::Copenhagen);
        let gaps = |record: &str| {
            let game =
                crate::rules::Game::from_record(rules.clone(), record, Side::Defenders, 0, 0)
                    .unwrap();
            let p = game.position();
            let solid = p.defenders() | p.king() | rules.masks().soldier_forbidden;
            let k = p.king_square().unwrap();
            let fast = ring_gaps(rules.masks(), p.attackers(), solid, k, 32);
            let plain = ring_gaps_by_arrays(rules.masks(), p.attackers(), solid, k, 32);
            assert_eq!(fast, plain, "{record}");
            (fast, counts(p, &rules).0[F::RingGaps as usize])
        };
        // Alone on an open board: his four neighbours.
        assert_eq!(gaps("/11/11/11/11/11/5K5/11/11/11/4t6/11/"), (4, 4));
        // The diamond of eight shuts him in; take one away and one square is left.
        assert_eq!(
            gaps("/11/11/11/5t5/4t1t4/3t1K1t3/4t1t4/5t5/11/11/11/"),
            (0, 0)
        );
        assert_eq!(
            gaps("/11/11/11/5t5/4t1t4/3t1K5/4t1t4/5t5/11/11/11/"),
            (1, 1)
        );
        // A defender beside him cannot be filled: the ring must go round both.
        assert_eq!(gaps("/11/11/11/11/11/5KT4/11/11/11/11/11/"), (6, 6));
        // On the edge he cannot be shut in; the evaluation counts the cap.
        assert_eq!(
            gaps("/11/11/11/11/11/K10/11/11/11/11/11/"),
            (32, RING_GAPS_CAP as i32)
        );
        // Linked to the edge by his own men: neither.
        assert_eq!(gaps("/11/11/11/11/11/TTK8/11/11/11/11/11/").0, 32);
        // The start: eight squares to fill.
        let start = Position::start(&rules);
        let solid = start.defenders() | start.king() | rules.masks().soldier_forbidden;
        let k = start.king_square().unwrap();
        assert_eq!(ring_gaps(rules.masks(), start.attackers(), solid, k, 32), 8);
    }

    #[test]
    fn ring_gaps_on_bitboards_agree_with_the_plain_search() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for preset in [Preset::Brandubh, Preset::Tablut, Preset::Copenhagen] {
            let rules = Rules::preset(preset);
            let m = rules.masks();
            for _ in 0..3000 {
                let (mut attackers, mut solid) = (Bitboard::EMPTY, m.soldier_forbidden);
                let (pa, pd) = (rng.gen_range(0.05..0.6), rng.gen_range(0.0..0.3));
                for sq in m.board.squares() {
                    let x: f64 = rng.gen();
                    if m.soldier_forbidden.has(sq) {
                    } else if x < pa {
                        attackers.set(sq);
                    } else if x < pa + pd {
                        solid.set(sq);
                    }
                }
                let free: Vec<Square> = (m.board & !attackers).squares().collect();
                let Some(&k) = free.get(rng.gen_range(0..free.len().max(1))) else {
                    continue;
                };
                solid.set(k);
                for cap in [3, 8, 40] {
                    assert_eq!(
                        ring_gaps(m, attackers, solid, k, cap),
                        ring_gaps_by_arrays(m, attackers, solid, k, cap),
                        "{preset:?} attackers {:#x} solid {:#x} king {k:?} cap {cap}",
                        attackers.0,
                        solid.0
                    );
                }
            }
        }
    }

    /// Each rank and file counted once, ties to neither side, and only the
    /// board's own lines.
    #[test]
    fn lines_won_counts_each_rank_and_file() {
        let sq = |r: usize, f: usize| Square::new(r, f).bb();
        // Rank 1: two attackers against one defender. Files a and b hold an
        // attacker each, file c a defender; file d one of each.
        let attackers = sq(0, 0) | sq(0, 1) | sq(4, 3);
        let defenders = sq(0, 2) | sq(5, 3);
        // Ranks 5 and 6 hold one piece each, for their side.
        assert_eq!(lines_won(attackers, defenders, 7), (4, 2));
        // On an 11x11 board the same, and nothing past the 7th line counts
        // on a 7x7 one.
        assert_eq!(lines_won(attackers, defenders, 11), (4, 2));
        assert_eq!(lines_won(sq(8, 8), Bitboard::EMPTY, 7), (0, 0));
    }
}
