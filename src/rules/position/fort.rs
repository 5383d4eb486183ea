//! Exit forts: can the attackers ever break the defenders' fort around the
//! king on the edge?
//!
//! The rule (Copenhagen): the defenders win when the king has contact with
//! the edge, is able to move, and it is impossible for the attackers to
//! break the fort. Konakis reads "impossible" as: while the defenders stand
//! still, whatever the attackers play, no attacker ever reaches the king's
//! region (the king's square and the empty squares he can walk to) and no
//! defender next to the region is ever captured.
//!
//! The attackers are given every advantage short of breaking the rules of
//! movement: each square they can reach through empty squares is one they
//! may stand on, as many at once as they have pieces. A defender is taken
//! when an attacker can land on one side of it with an attacker or a
//! hostile square on the other (or in a shieldwall along the edge); every
//! defender so taken that is not next to the region is removed and the
//! question asked again, until nothing more can be taken. If a defender
//! next to the region falls, or the region is reached, the fort breaks.
//!
//! This is exact in the direction that matters: a fort it accepts can never
//! be broken. It may call a fort breakable when the attackers' traffic
//! (pieces in each other's way, or too few pieces in one part of the
//! board) would in fact stop them; the game then simply goes on.

use super::{shift, Position, EAST, NORTH, SOUTH, WEST};
use crate::rules::options::{Masks, Shieldwall};
use crate::rules::{Bitboard, Rules, Side, Square};

/// Whether the fort around the king (who stands on the edge) holds.
pub(super) fn holds(pos: &Position, rules: &Rules) -> bool {
    let m = rules.masks();
    let empty = m.board & !pos.occupied();
    let region = pos.king.flood(empty, m.board);
    if region.count() < 2 {
        return false; // the king cannot move
    }
    let wall = region.neighbours(m.board) & !region;
    if (wall & pos.attackers).any() {
        return false;
    }
    let attackers = pos.attackers.count();
    let hostile = m.hostile_throne_empty[Side::Defenders.index()];
    let mut standing = pos.defenders;
    loop {
        let reach = attacker_reach(m, pos.attackers, standing | pos.king);
        if (reach & region).any() {
            return false;
        }
        let stops = reach & !m.soldier_forbidden;
        let mut taken = custodial_captures(m, standing, stops, hostile, attackers);
        if rules.options().shieldwall != Shieldwall::None {
            let corners_close = rules.options().shieldwall == Shieldwall::Strong;
            taken |= shieldwall_captures(
                m,
                rules.size(),
                standing,
                pos.king,
                stops,
                corners_close.then_some(hostile & m.corners),
                attackers,
            );
        }
        if (taken & wall).any() {
            return false;
        }
        if taken.is_empty() {
            return true;
        }
        standing &= !taken;
    }
}

/// Every square some attacker could ever pass or stand on while `blockers`
/// stand still: the attackers' own squares and the empty squares connected
/// to them. Restricted corners and a walled throne stop soldiers; a
/// passable throne is crossed in a straight line only.
fn attacker_reach(m: &Masks, attackers: Bitboard, blockers: Bitboard) -> Bitboard {
    let open = m.board & !blockers & !m.soldier_forbidden;
    let mut reach = attackers.flood(open, m.board);
    let Some(throne) = m.throne_sq else {
        return reach;
    };
    let passable = !m.soldier_walls.has(throne) && !blockers.has(throne);
    if !passable {
        return reach;
    }
    loop {
        let mut crossed = Bitboard::EMPTY;
        for (a, b) in [(NORTH, SOUTH), (EAST, WEST)] {
            let one = shift(throne.bb(), a) & m.board;
            let other = shift(throne.bb(), b) & m.board;
            if (one & reach).any() {
                crossed |= other & open;
            }
            if (other & reach).any() {
                crossed |= one & open;
            }
        }
        let next = (reach | crossed).flood(open, m.board);
        if next == reach {
            return reach;
        }
        reach = next;
    }
}

/// The squares whose neighbour in direction `dir` is in `set`.
fn beside(set: Bitboard, dir: usize, board: Bitboard) -> Bitboard {
    let opposite = match dir {
        NORTH => SOUTH,
        SOUTH => NORTH,
        EAST => WEST,
        _ => EAST,
    };
    shift(set, opposite) & board
}

/// Defenders of `standing` that attackers could take custodially: an
/// attacker lands on one side with an attacker (a second piece) or a
/// hostile square on the other.
fn custodial_captures(
    m: &Masks,
    standing: Bitboard,
    stops: Bitboard,
    hostile: Bitboard,
    attackers: u32,
) -> Bitboard {
    let mut taken = Bitboard::EMPTY;
    for (a, b) in [(NORTH, SOUTH), (EAST, WEST)] {
        let (stop_a, stop_b) = (beside(stops, a, m.board), beside(stops, b, m.board));
        let (hostile_a, hostile_b) = (beside(hostile, a, m.board), beside(hostile, b, m.board));
        taken |= (stop_a & hostile_b) | (hostile_a & stop_b);
        if attackers >= 2 {
            taken |= stop_a & stop_b;
        }
    }
    taken & standing
}

/// Defenders of `standing` that attackers could take by shieldwall: a row
/// of two or more defenders (the king may be one, but is not taken) along
/// an edge, an attacker in front of each, closed at both ends by attackers
/// or (`corners`) hostile corners, at least one end an attacker's landing
/// square; with enough attackers for all of it at once.
fn shieldwall_captures(
    m: &Masks,
    n: usize,
    standing: Bitboard,
    king: Bitboard,
    stops: Bitboard,
    corners: Option<Bitboard>,
    attackers: u32,
) -> Bitboard {
    let members = standing | king;
    let corners = corners.unwrap_or(Bitboard::EMPTY);
    let mut taken = Bitboard::EMPTY;
    let last = n - 1;
    // Each edge: its i-th square, and the direction into the board.
    type EdgeSquare = fn(usize, usize) -> Square;
    let edges: [(EdgeSquare, usize); 4] = [
        (|_, i| Square::new(0, i), NORTH),
        (|last, i| Square::new(last, i), SOUTH),
        (|_, i| Square::new(i, 0), EAST),
        (|last, i| Square::new(i, last), WEST),
    ];
    for (square, inward) in edges {
        let mut i = 0;
        while i < n {
            if !members.has(square(last, i)) {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && members.has(square(last, i)) {
                i += 1;
            }
            // The run is start..i; its ends are start - 1 and i.
            let len = i - start;
            if len < 2 || start == 0 || i == n {
                continue;
            }
            let run: Bitboard = (start..i).fold(Bitboard::EMPTY, |b, j| b | square(last, j).bb());
            let fronts = shift(run, inward) & m.board;
            if (fronts & !stops).any() {
                continue;
            }
            let ends = [square(last, start - 1), square(last, i)];
            let hammer_ends = ends.iter().filter(|e| stops.has(**e)).count();
            let closed = ends.iter().all(|e| stops.has(*e) || corners.has(*e));
            let needed = len as u32 + hammer_ends as u32;
            if hammer_ends > 0 && closed && attackers >= needed {
                taken |= run & standing;
            }
        }
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{parse_record, Preset};

    fn copenhagen(record: &str, side: Side) -> (Rules, Position) {
        let rules = Rules::preset(Preset::Copenhagen);
        let setup = parse_record(record).unwrap();
        let pos = Position::from_setup(&setup, side, &rules, 0, 0).unwrap();
        (rules, pos)
    }

    #[test]
    fn reach_crosses_the_throne_only_straight() {
        // The attacker on g6 is boxed in by defenders but for the empty
        // throne f6: it crosses it westwards to e6, and cannot turn there.
        let (rules, pos) = copenhagen(
            "/11/11/11/11/4TTT4/3T2tT3/4TTT4/11/11/11/5K5/",
            Side::Attackers,
        );
        let m = rules.masks();
        let reach = attacker_reach(m, pos.attackers, pos.defenders | pos.king);
        let e6 = Square::parse("e6", 11).unwrap();
        assert_eq!(reach, pos.attackers | e6.bb());
    }

    fn squares(names: &[&str]) -> Bitboard {
        names.iter().fold(Bitboard::EMPTY, |b, n| {
            b | Square::parse(n, 11).unwrap().bb()
        })
    }

    #[test]
    fn a_hostile_corner_is_an_anvil_and_two_attackers_are_needed() {
        let rules = Rules::preset(Preset::Copenhagen);
        let m = rules.masks();
        let hostile = m.hostile_throne_empty[Side::Defenders.index()];
        let standing = squares(&["b1", "e5"]);
        let stops = squares(&["c1", "d5", "f5"]);
        // b1 falls against the corner a1 with one attacker; e5 needs two.
        assert_eq!(
            custodial_captures(m, standing, stops, hostile, 1),
            squares(&["b1"])
        );
        assert_eq!(custodial_captures(m, standing, stops, hostile, 2), standing);
    }

    #[test]
    fn shieldwalls_need_fronts_brackets_and_pieces() {
        let rules = Rules::preset(Preset::Copenhagen);
        let m = rules.masks();
        let row = squares(&["c1", "d1", "e1"]);
        let fronts = squares(&["c2", "d2", "e2"]);
        let ends = squares(&["b1", "f1"]);
        let none = Bitboard::EMPTY;
        let take = |stops: Bitboard, corners: Option<Bitboard>, n: u32| {
            shieldwall_captures(m, 11, row, none, stops, corners, n)
        };
        assert_eq!(take(fronts | ends, None, 5), row);
        assert_eq!(take(fronts | ends, None, 4), none, "five attackers at once");
        assert_eq!(take(fronts | squares(&["f1"]), None, 5), none, "b1 open");
        let open_front = squares(&["c2", "e2"]) | ends;
        assert_eq!(take(open_front, None, 5), none, "d1 unfronted");
        // Against a corner: b1 c1 d1 closed by a1 and e1.
        let row = squares(&["b1", "c1", "d1"]);
        let stops = squares(&["b2", "c2", "d2", "e1"]);
        let corner = Some(m.corners);
        assert_eq!(shieldwall_captures(m, 11, row, none, stops, corner, 4), row);
        assert_eq!(shieldwall_captures(m, 11, row, none, stops, None, 4), none);
    }
}
