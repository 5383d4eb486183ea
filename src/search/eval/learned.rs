//! The learned evaluation: one weight per feature ([`super::features`]) for
//! each board family, fitted by `konakis tune` and kept as text files in
//! `src/search/eval/weights/` (embedded in the binary), each with the
//! command that produced it.

use super::features::{self, Group, Sink, COUNT};
use crate::rules::options::{Escape, ExitFort, Shieldwall};
use crate::rules::{Bitboard, Position, Rules, Side};
use std::sync::{Arc, OnceLock};

/// Boards that share weights: the size of the board and where the king
/// escapes decide what a good position looks like, and on 11x11 whether the
/// rules have shieldwalls and edge forts (which change what a safe king and a
/// strong attacking wall are).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// 7x7 (and smaller) boards, corner escape: brandubh.
    Corner7,
    /// Edge escape: the tablut family.
    Edge9,
    /// 9x9 boards, corner escape: tablut-corner.
    Corner9,
    /// 11x11 boards, corner escape, with shieldwalls or edge forts:
    /// Copenhagen, hnefatafl-org-11. They play with
    /// [`Family::Corner11Plain`]'s weights, which beat their own.
    Corner11,
    /// 11x11 boards, corner escape, with neither shieldwalls nor edge forts:
    /// Fetlar.
    Corner11Plain,
    /// Boards with camps: Ashton Tablut (the Tablut Challenge). Until it
    /// has weights of its own it uses [`Family::Edge9`]'s.
    Ashton,
}

impl Family {
    pub const ALL: [Family; 6] = [
        Family::Corner7,
        Family::Edge9,
        Family::Corner9,
        Family::Corner11,
        Family::Corner11Plain,
        Family::Ashton,
    ];

    /// The family's place in [`Family::ALL`] (its declaration order), for
    /// tables kept one entry a family.
    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn of(rules: &Rules) -> Family {
        if rules.masks().camps.any() {
            return Family::Ashton;
        }
        let options = rules.options();
        let plain = options.shieldwall == Shieldwall::None && options.exit_fort == ExitFort::None;
        match (options.escape, rules.size()) {
            (Escape::Edge, _) => Family::Edge9,
            (Escape::Corner, 0..=7) => Family::Corner7,
            (Escape::Corner, 8..=9) => Family::Corner9,
            (Escape::Corner, _) if plain => Family::Corner11Plain,
            (Escape::Corner, _) => Family::Corner11,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Corner7 => "corner7",
            Family::Edge9 => "edge9",
            Family::Corner9 => "corner9",
            Family::Corner11 => "corner11",
            Family::Corner11Plain => "corner11-plain",
            Family::Ashton => "ashton",
        }
    }

    /// The family whose weights this one plays with while its own file
    /// holds none: a family keeps its own file (and its own fits) but plays
    /// with its neighbour's weights where those beat its own by SPRT.
    pub fn borrows(self) -> Option<Family> {
        match self {
            Family::Ashton => Some(Family::Edge9),
            Family::Corner11 => Some(Family::Corner11Plain),
            _ => None,
        }
    }

    /// The family's weights file, as embedded.
    fn text(self) -> &'static str {
        match self {
            Family::Corner7 => include_str!("weights/corner7.txt"),
            Family::Edge9 => include_str!("weights/edge9.txt"),
            Family::Corner9 => include_str!("weights/corner9.txt"),
            Family::Corner11 => include_str!("weights/corner11.txt"),
            Family::Corner11Plain => include_str!("weights/corner11-plain.txt"),
            Family::Ashton => include_str!("weights/ashton.txt"),
        }
    }
}

impl std::str::FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Family, String> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
                format!("unknown board family '{s}' ({})", names.join(", "))
            })
    }
}

/// Weights are kept in 1/64 centi-soldier, so that small fitted weights
/// (a fraction of a centi-soldier per move of mobility) survive.
pub const SCALE: i32 = 64;

/// A family's weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub scaled: [i32; COUNT],
    wants_mobility: bool,
    wants_enclosure: bool,
    wants_king_distance: bool,
    wants_ring_gaps: bool,
    /// The piece-square weights by board size, table (attacker, defender,
    /// king) and square, built from `scaled`: one lookup a piece.
    pst_by_square: Box<[[[i32; 121]; 3]; 12]>,
    /// The file they were read from (`WeightsFile`); `None` when embedded.
    pub file: Option<String>,
    /// Weights that differ when the engine plays one side (`attackers:
    /// name value` lines): what makes a side play well need not be what
    /// makes it judge the other side's moves well. `(side, feature, scaled)`.
    pub side_overrides: Vec<(Side, usize, i32)>,
}

fn scaled_weight(centi: f64) -> i32 {
    (centi * SCALE as f64).round() as i32
}

impl Weights {
    /// Weights in centi-soldiers, by feature index.
    pub fn from_centi(values: &[f64; COUNT]) -> Weights {
        let mut scaled = [0; COUNT];
        for (s, v) in scaled.iter_mut().zip(values) {
            *s = scaled_weight(*v);
        }
        Weights::from_scaled(scaled)
    }

    fn from_scaled(scaled: [i32; COUNT]) -> Weights {
        let any = |fs: &[features::F]| fs.iter().any(|f| scaled[*f as usize] != 0);
        use features::F;
        Weights {
            wants_mobility: any(&[F::AttackerMobility, F::DefenderMobility]),
            wants_enclosure: any(&[
                F::Enclosed,
                F::DefendersOutside,
                F::KingEnclosed,
                F::KingEdgeReach,
            ]),
            wants_king_distance: any(&[
                F::EscapeIn2,
                F::EscapeRoutes2,
                F::KingToEscape1,
                F::KingToEscape2,
                F::KingToEscapeFar,
                F::KingNoEscape,
            ]),
            wants_ring_gaps: scaled[F::RingGaps as usize] != 0,
            pst_by_square: Box::new(std::array::from_fn(|n| {
                std::array::from_fn(|t| {
                    let table = features::PST_ATTACKER + t * features::PST_CLASSES;
                    std::array::from_fn(|sq| scaled[table + features::CLASSES[n][sq] as usize])
                })
            })),
            scaled,
            file: None,
            side_overrides: Vec::new(),
        }
    }

    /// The weights the engine uses when it plays `side`: these, with that
    /// side's overrides applied.
    pub fn for_side(self: &Arc<Self>, side: Side) -> Arc<Weights> {
        if !self.side_overrides.iter().any(|o| o.0 == side) {
            return self.clone();
        }
        let mut scaled = self.scaled;
        for &(_, f, w) in self.side_overrides.iter().filter(|o| o.0 == side) {
            scaled[f] = w;
        }
        let mut w = Weights::from_scaled(scaled);
        w.file = self.file.clone();
        Arc::new(w)
    }

    /// The weight of a feature in centi-soldiers.
    pub fn centi(&self, feature: usize) -> f64 {
        self.scaled[feature] as f64 / SCALE as f64
    }

    /// All weights in centi-soldiers, by feature index (the side overrides
    /// left out).
    pub fn to_centi(&self) -> [f64; COUNT] {
        std::array::from_fn(|f| self.centi(f))
    }

    /// Reads a weights file (option `WeightsFile`): weights that are not
    /// embedded, to try a change without building the engine again.
    pub fn load(path: &str) -> Result<Weights, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let mut w = Weights::parse(&text)
            .map_err(|e| format!("{path}: {e}"))?
            .ok_or_else(|| format!("{path}: no weights in the file"))?;
        w.file = Some(path.to_string());
        Ok(w)
    }

    /// Parses a weights file: `name value` lines (centi-soldiers), `#`
    /// comments, and `attackers: name value` (or `defenders: …`) for a
    /// weight used only when the engine plays that side. `None` for a file
    /// without weights.
    pub fn parse(text: &str) -> Result<Option<Weights>, String> {
        let mut values = [0.0; COUNT];
        let mut overrides = Vec::new();
        let mut any = false;
        for (i, raw) in text.lines().enumerate() {
            let mut line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut side = None;
            for (prefix, s) in [
                ("attackers:", Side::Attackers),
                ("defenders:", Side::Defenders),
            ] {
                if let Some(rest) = line.strip_prefix(prefix) {
                    side = Some(s);
                    line = rest.trim();
                }
            }
            let (name, value) = line
                .split_once(char::is_whitespace)
                .ok_or_else(|| format!("line {}: expected 'name value'", i + 1))?;
            let feature = features::index(name)
                .ok_or_else(|| format!("line {}: unknown feature '{name}'", i + 1))?;
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("line {}: bad value '{}'", i + 1, value.trim()))?;
            match side {
                Some(s) => overrides.push((s, feature, scaled_weight(value))),
                None => values[feature] = value,
            }
            any = true;
        }
        Ok(any.then(|| {
            let mut w = Weights::from_centi(&values);
            w.side_overrides = overrides;
            w
        }))
    }

    /// The weights as a file's lines (non-zero weights only).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for f in 0..COUNT {
            if self.scaled[f] != 0 {
                out.push_str(&format!("{} {:.3}\n", features::name(f), self.centi(f)));
            }
        }
        for &(side, f, w) in &self.side_overrides {
            let side = match side {
                Side::Attackers => "attackers",
                Side::Defenders => "defenders",
            };
            let centi = w as f64 / SCALE as f64;
            out.push_str(&format!("{side}: {} {centi:.3}\n", features::name(f)));
        }
        out
    }

    /// The evaluation from the defenders' point of view. Its terms count
    /// squares of bitboards all through: where the CPU has `POPCNT` (every
    /// x86-64 since 2008) a copy built for it runs, and the baseline
    /// x86-64 build counts bits without it.
    #[inline]
    pub fn evaluate(&self, pos: &Position, rules: &Rules) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT, checked just above.
            return unsafe { self.evaluate_popcnt(pos, rules) };
        }
        self.evaluate_portable(pos, rules)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn evaluate_popcnt(&self, pos: &Position, rules: &Rules) -> i32 {
        self.evaluate_portable(pos, rules)
    }

    #[inline(always)]
    fn evaluate_portable(&self, pos: &Position, rules: &Rules) -> i32 {
        let mut sum = Sum {
            total: 0,
            weights: self,
        };
        features::extract(pos, rules, &mut sum);
        sum.total / SCALE
    }
}

struct Sum<'a> {
    total: i32,
    weights: &'a Weights,
}

impl Sink for Sum<'_> {
    #[inline(always)]
    fn add(&mut self, feature: usize, count: i32) {
        self.total += self.weights.scaled[feature] * count;
    }
    #[inline(always)]
    fn add_pst(&mut self, table: usize, pieces: Bitboard, n: usize) {
        let weights = &self.weights.pst_by_square[n]
            [(table - features::PST_ATTACKER) / features::PST_CLASSES];
        for sq in pieces.squares() {
            self.total += weights[sq.index()];
        }
    }
    #[inline(always)]
    fn wants(&self, group: Group) -> bool {
        match group {
            Group::Mobility => self.weights.wants_mobility,
            Group::Enclosure => self.weights.wants_enclosure,
            Group::RingGaps => self.weights.wants_ring_gaps,
            Group::KingDistance => self.weights.wants_king_distance,
        }
    }
}

/// The embedded weights of every family, parsed once.
fn all() -> &'static [Option<Arc<Weights>>; Family::ALL.len()] {
    static ALL: OnceLock<[Option<Arc<Weights>>; Family::ALL.len()]> = OnceLock::new();
    // The files are checked by a test; one that failed to parse would
    // leave its family on the hand evaluation.
    ALL.get_or_init(|| Family::ALL.map(|f| Weights::parse(f.text()).ok().flatten().map(Arc::new)))
}

/// The family whose embedded file gives `family` its weights: itself, or
/// where its file holds none, the family it borrows from (if that has any).
pub fn source(family: Family) -> Option<Family> {
    match all()[family.index()] {
        Some(_) => Some(family),
        None => family.borrows().and_then(source),
    }
}

/// The weights the engine embeds for a family, parsed once: its own, or
/// those of the family it borrows from.
pub fn embedded(family: Family) -> Option<Arc<Weights>> {
    source(family).and_then(|from| all()[from.index()].clone())
}

/// The learned weights for these rules' board family, if it has any.
pub fn weights_for(rules: &Rules) -> Option<Arc<Weights>> {
    embedded(Family::of(rules))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_weights_parse() {
        for f in Family::ALL {
            Weights::parse(f.text()).unwrap_or_else(|e| panic!("{}: {e}", f.name()));
        }
    }

    #[test]
    fn every_preset_has_its_family() {
        use crate::rules::Preset;
        let family = |p| Family::of(&Rules::preset(p));
        assert_eq!(family(Preset::Tablut), Family::Edge9);
        assert_eq!(family(Preset::Brandubh), Family::Corner7);
        assert_eq!(family(Preset::TablutCorner), Family::Corner9);
        assert_eq!(family(Preset::Copenhagen), Family::Corner11);
        assert_eq!(family(Preset::HnefataflOrg11), Family::Corner11);
        assert_eq!(family(Preset::Fetlar), Family::Corner11Plain);
        assert_eq!(family(Preset::Ashton), Family::Ashton);
        for (i, f) in Family::ALL.into_iter().enumerate() {
            assert_eq!(f.name().parse::<Family>(), Ok(f));
            assert_eq!(f.index(), i);
        }
        let unknown = "corner13".parse::<Family>().unwrap_err();
        assert!(unknown.contains("corner11-plain"), "{unknown}");
    }

    #[test]
    fn copenhagen_plays_with_the_fetlar_weights() {
        // corner11.txt holds no weights: Fetlar's beat its own by SPRT
        // (README, "The learned evaluation"), for both sides.
        use crate::rules::Preset;
        assert!(Weights::parse(Family::Corner11.text()).unwrap().is_none());
        let fetlar = weights_for(&Rules::preset(Preset::Fetlar)).unwrap();
        for preset in [Preset::Copenhagen, Preset::HnefataflOrg11] {
            let w = weights_for(&Rules::preset(preset)).unwrap();
            assert!(Arc::ptr_eq(&w, &fetlar));
        }
        assert!(Arc::ptr_eq(
            &embedded(Family::Corner11).unwrap(),
            &embedded(Family::Corner11Plain).unwrap()
        ));
        assert_eq!(source(Family::Corner11), Some(Family::Corner11Plain));
        assert_eq!(source(Family::Corner11Plain), Some(Family::Corner11Plain));
    }

    #[test]
    fn the_sum_is_the_weighted_counts() {
        // The search's sum takes shortcuts (groups without weights skipped,
        // piece-square weights looked up by square); the tuner's counts
        // take none.
        use crate::rules::{MoveList, Preset};
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for preset in Preset::ALL {
            let rules = Rules::preset(preset);
            let Some(w) = weights_for(&rules) else {
                continue;
            };
            let mut pos = Position::start(&rules);
            for _ in 0..80 {
                let c = features::counts(&pos, &rules);
                let dot: i32 = (0..COUNT).map(|f| w.scaled[f] * c.0[f]).sum();
                assert_eq!(w.evaluate(&pos, &rules), dot / SCALE, "{preset:?}");
                let mut moves = MoveList::new();
                pos.generate_moves(&rules, &mut moves);
                if moves.is_empty() {
                    break;
                }
                pos = pos.make(&rules, moves[rng.gen_range(0..moves.len())]);
            }
        }
    }

    #[test]
    fn weights_round_trip_through_text() {
        let mut v = [0.0; COUNT];
        v[features::F::Attacker as usize] = -100.0;
        v[features::F::AttackerMobility as usize] = 0.5;
        let mut w = Weights::from_centi(&v);
        w.side_overrides = vec![(
            Side::Attackers,
            features::F::CornerWall as usize,
            -60 * SCALE,
        )];
        let back = Weights::parse(&w.to_text()).unwrap().unwrap();
        assert_eq!(back, w);
        // The override counts only for its side.
        let w = Arc::new(w);
        let wall = features::F::CornerWall as usize;
        assert_eq!(w.for_side(Side::Attackers).centi(wall), -60.0);
        assert_eq!(w.for_side(Side::Defenders).centi(wall), 0.0);
        assert!(Weights::parse("attackers: corner-wall x\n").is_err());
        assert!(Weights::parse("attackers:\n").is_err());
        assert!(Weights::parse("# nothing\n").unwrap().is_none());
        assert!(Weights::parse("nonsense 3\n").is_err());
    }
}
