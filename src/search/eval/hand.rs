//! The hand-made evaluation, in centi-soldiers: the terms and weights set
//! by hand before the learned evaluation, kept for comparison (option
//! `Eval value hand`) and for families without learned weights.
//!
//! Terms (each reported by [`breakdown`] for the protocol's `eval`):
//! material; the king's freedom (his moves) and his distance to the nearest
//! escape square; open roads (raichi: one road to an escape square, tuichu:
//! two or more); escape squares the king reaches in two moves; the attackers'
//! blockade of escape approaches (corner guards); the king's exposure to
//! capture, weighted by the capture rule; pieces en prise; mobility (edge
//! games only). All weights live in [`Weights`], ready for tuning by
//! self-play.

use crate::rules::options::{Escape, KingCapture};
use crate::rules::{Bitboard, Position, Rules, Side, Square};

/// Every evaluation weight, in centi-soldiers (one attacker = 100).
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    pub attacker: i32,
    pub defender: i32,
    pub king_move: i32,
    pub king_distance: i32,
    /// One open road with the attackers to move (they must block it).
    pub raichi: i32,
    /// Two or more open roads with the attackers to move.
    pub tuichu: i32,
    pub two_move_escape: i32,
    pub corner_guard: i32,
    /// Per attacker next to the king, by capture rule (weak, linnaeus, strong).
    pub king_pressure: [i32; 3],
    pub en_prise: i32,
    /// Per move the defenders have more than the attackers (both sides'
    /// moves counted as if each were to move).
    pub mobility: i32,
    pub tempo: i32,
}

pub const WEIGHTS: Weights = Weights {
    attacker: 100,
    defender: 180,
    king_move: 6,
    king_distance: 12,
    raichi: 150,
    tuichu: 2500,
    two_move_escape: 30,
    corner_guard: 25,
    king_pressure: [45, 30, 22],
    en_prise: 25,
    mobility: 0,
    tempo: 10,
};

/// Overrides for edge-escape games (the tablut family), where the side with
/// more moves usually wins the race to the edge (measured at 20k nodes in
/// tablut: +77.7 ± 35.9 Elo, and +92.5 ± 58.4 at 2 s + 0.02 s; the same term
/// is neutral in brandubh and loses 151 Elo in copenhagen).
pub const EDGE_WEIGHTS: Weights = Weights {
    mobility: 4,
    ..WEIGHTS
};

/// Overrides for corner-escape boards of 11x11 and more, where the king's
/// approaches to the corners decide the game (measured: +164 ± 65 Elo in
/// Copenhagen self-play at 20k nodes; the same weights lose on 7x7 and 9x9).
pub const LARGE_CORNER_WEIGHTS: Weights = Weights {
    two_move_escape: 60,
    corner_guard: 60,
    ..WEIGHTS
};

/// The weights for a rule set.
pub fn weights_for(rules: &Rules) -> &'static Weights {
    match rules.options().escape {
        Escape::Edge => &EDGE_WEIGHTS,
        Escape::Corner if rules.size() >= 11 => &LARGE_CORNER_WEIGHTS,
        Escape::Corner => &WEIGHTS,
    }
}

/// The terms of one evaluation, each from the defenders' point of view.
#[derive(Clone, Copy, Debug, Default)]
pub struct Breakdown {
    pub material: i32,
    pub king_freedom: i32,
    pub king_distance: i32,
    pub roads: i32,
    pub two_move_escapes: i32,
    pub blockade: i32,
    pub king_exposure: i32,
    pub en_prise: i32,
    pub mobility: i32,
    pub tempo: i32,
    /// Open roads from the king to escape squares (for `roads` and GUIs).
    pub open_roads: u32,
}

impl Breakdown {
    /// Sum from the defenders' point of view.
    pub fn total(&self) -> i32 {
        self.material
            + self.king_freedom
            + self.king_distance
            + self.roads
            + self.two_move_escapes
            + self.blockade
            + self.king_exposure
            + self.en_prise
            + self.mobility
            + self.tempo
    }
}

fn distance_to_escape(k: Square, rules: &Rules) -> i32 {
    let n = rules.size() as i32;
    let r = k.rank() as i32;
    let f = k.file() as i32;
    match rules.options().escape {
        Escape::Edge => r.min(f).min(n - 1 - r).min(n - 1 - f),
        Escape::Corner => r.min(n - 1 - r) + f.min(n - 1 - f),
    }
}

/// Every term, from the defenders' point of view.
pub fn breakdown(pos: &Position, rules: &Rules) -> Breakdown {
    let w = weights_for(rules);
    let m = rules.masks();
    let mut b = Breakdown {
        material: pos.defenders().count() as i32 * w.defender
            - pos.attackers().count() as i32 * w.attacker,
        ..Breakdown::default()
    };
    if w.mobility != 0 {
        let defender_moves = pos.count_moves_of(rules, Side::Defenders) as i32;
        let attacker_moves = pos.count_moves_of(rules, Side::Attackers) as i32;
        b.mobility = (defender_moves - attacker_moves) * w.mobility;
    }
    let Some(k) = pos.king_square() else {
        return b;
    };
    let king_moves = pos.destinations(rules, k);
    b.king_freedom = king_moves.count() as i32 * w.king_move;
    b.king_distance = -distance_to_escape(k, rules) * w.king_distance;
    let roads = king_moves & m.escape;
    b.open_roads = roads.count();
    if pos.side_to_move() == Side::Attackers {
        b.roads = match b.open_roads {
            0 => 0,
            1 => w.raichi,
            _ => w.tuichu,
        };
    }
    // Escape squares reachable in two king moves (through empty squares).
    let (second, _) = pos.escapes_in_two(rules, k);
    b.two_move_escapes = second.count().min(4) as i32 * w.two_move_escape;
    if rules.options().escape == Escape::Corner {
        // Attackers on the squares diagonally in front of each corner.
        // The diagonal wall in front of each corner: c1, b2, a3 and the
        // like (on 7x7, only b2: the wider wall measured worse there).
        let n = rules.size();
        let far = n - 1;
        let mut guards = Bitboard::EMPTY;
        let wall: &[(usize, usize)] = if n >= 9 {
            &[(0, 2), (1, 1), (2, 0)]
        } else {
            &[(1, 1)]
        };
        for &(r, f) in wall {
            guards.set(Square::new(r, f));
            guards.set(Square::new(r, far - f));
            guards.set(Square::new(far - r, f));
            guards.set(Square::new(far - r, far - f));
        }
        b.blockade = -((pos.attackers() & guards).count() as i32) * w.corner_guard;
    }
    let pressure = w.king_pressure[match rules.options().king_capture {
        KingCapture::Weak | KingCapture::Sandwich => 0,
        KingCapture::Linnaeus => 1,
        KingCapture::Strong => 2,
    }];
    let adjacent = (k.bb().neighbours(m.board) & pos.attackers()).count() as i32;
    b.king_exposure = -adjacent * adjacent * pressure / 2;
    // Soldiers the side to move can take next move (roughly).
    let mover = pos.side_to_move();
    let targets = pos.capture_targets(rules, mover);
    let threats = targets
        .squares()
        .any(|t| pos.soldiers_reaching(rules, t, mover).any()) as i32
        * w.en_prise;
    b.en_prise = match mover {
        Side::Defenders => threats,
        Side::Attackers => -threats,
    };
    b.tempo = match mover {
        Side::Defenders => w.tempo,
        Side::Attackers => -w.tempo,
    };
    b
}

/// The hand evaluation as weights of the learned evaluation's features (in
/// centi-soldiers): the two agree on every position, up to rounding. The
/// tuner starts from these.
pub fn as_features(rules: &Rules) -> [f64; super::features::COUNT] {
    use super::features::F;
    let w = weights_for(rules);
    let mut v = [0.0; super::features::COUNT];
    v[F::Attacker as usize] = -w.attacker as f64;
    v[F::Defender as usize] = w.defender as f64;
    v[F::KingMoves as usize] = w.king_move as f64;
    v[F::KingEdgeDistance as usize] = -w.king_distance as f64;
    v[F::Raichi as usize] = w.raichi as f64;
    v[F::Tuichu as usize] = w.tuichu as f64;
    v[F::EscapeIn2 as usize] = w.two_move_escape as f64;
    if rules.options().escape == Escape::Corner {
        v[F::CornerDiagonal as usize] = -w.corner_guard as f64;
        if rules.size() >= 9 {
            v[F::CornerWall as usize] = -w.corner_guard as f64;
        }
    }
    let (pressure, feature) = match rules.options().king_capture {
        KingCapture::Weak | KingCapture::Sandwich => (w.king_pressure[0], F::PressureWeak),
        KingCapture::Linnaeus => (w.king_pressure[1], F::PressureLinnaeus),
        KingCapture::Strong => (w.king_pressure[2], F::PressureStrong),
    };
    v[feature as usize] = -pressure as f64 / 2.0;
    v[F::EnPrise as usize] = w.en_prise as f64;
    v[F::DefenderMobility as usize] = w.mobility as f64;
    v[F::AttackerMobility as usize] = -w.mobility as f64;
    v[F::Tempo as usize] = w.tempo as f64;
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{MoveList, Preset};
    use crate::search::eval::learned::Weights;
    use rand::{Rng, SeedableRng};

    /// The learned evaluation with the hand weights is the hand evaluation.
    #[test]
    fn hand_weights_as_features_agree() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for preset in Preset::ALL {
            let rules = Rules::preset(preset);
            let learned = Weights::from_centi(&as_features(&rules));
            let mut pos = Position::start(&rules);
            for _ in 0..120 {
                let hand = breakdown(&pos, &rules).total();
                let got = learned.evaluate(&pos, &rules);
                assert!(
                    (hand - got).abs() <= 2,
                    "{preset}: {hand} vs {got} at {}",
                    pos.record(&rules)
                );
                let mut moves = MoveList::new();
                pos.generate_moves(&rules, &mut moves);
                if moves.is_empty() {
                    break;
                }
                pos = pos.make(&rules, moves[rng.gen_range(0..moves.len())]);
            }
        }
    }
}
