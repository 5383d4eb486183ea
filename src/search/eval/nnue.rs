//! NNUE: a small neural evaluation, updated incrementally as moves are made.
//!
//! Inputs are one-hot (piece kind, square): attackers, defending soldiers
//! and the king, 3 x 121 on the 11-stride board every size uses. One hidden
//! layer of `2 * hidden` neurons in two halves, one per side (the
//! attackers' accumulator and the defenders'): tafl's sides are not mirror
//! images, so each side has its own half instead of chess's flipped board.
//! The output weighs the side to move's half with the first `hidden`
//! output weights and the other half with the rest, so one net serves both
//! sides to move. Clipped ReLU, int16 weights, int32 sums: the two inner
//! loops are in `nnue_simd`, vectorised for the CPU found at run time.
//!
//! The search keeps one accumulator per ply ([`NnueStack`]) and updates a
//! child's from its parent's by the pieces that moved or fell (a bitboard
//! difference: the rules need know nothing of the net), so a position is
//! summed from scratch only at the root.
//!
//! File format (little-endian), written by `konakis train`:
//! `KNKSNNUE`, u16 version, u16 + bytes family name, u16 + bytes the
//! command that made it, u16 inputs, u16 hidden, u16 QA, u16 QB, then i16
//! feature weights (inputs rows of `2 * hidden`), i16 feature biases
//! (`2 * hidden`), i16 output weights (`2 * hidden`), i32 output bias, and
//! a u64 FNV-1a checksum of every byte before it.

use super::learned::Family;
pub use super::nnue_simd::Simd;
use super::nnue_simd::{accumulate, dot_crelu};
use crate::rules::{Bitboard, Position, Side, Square};
use arrayvec::ArrayVec;
use std::sync::{Arc, OnceLock};

/// One-hot inputs: three piece kinds on the 121 squares of the widest board.
pub const INPUTS: usize = 3 * 121;
/// Quantisation of the feature layer: an activation of 1.0 is `QA`.
pub const QA: i32 = 255;
/// Quantisation of the output weights: 1.0 is `QB`.
pub const QB: i32 = 64;
/// The net's output is a logit; centi-soldiers are logit / K with the
/// tuner's K = ln 10 / 400, so the search's margins keep their meaning.
pub const CENTI_PER_LOGIT: f64 = 400.0 / std::f64::consts::LN_10;
/// Largest weight magnitude the trainer allows (so that sums of 41 pieces
/// stay inside i16 after quantisation).
pub const WEIGHT_CLIP: f32 = 1.98;
/// Hidden sizes (per side) a net may have.
pub const MAX_HIDDEN: usize = 1024;

const MAGIC: &[u8; 8] = b"KNKSNNUE";
const VERSION: u16 = 1;

/// Piece kinds as the net sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Attacker = 0,
    Defender = 1,
    King = 2,
}

/// The input index of a piece kind on a square.
#[inline]
pub const fn input(kind: Kind, sq: usize) -> usize {
    kind as usize * 121 + sq
}

/// The active inputs of a position.
pub fn active_inputs(attackers: Bitboard, defenders: Bitboard, king: Option<Square>) -> Vec<u16> {
    let mut out = Vec::with_capacity(48);
    out.extend(
        attackers
            .squares()
            .map(|s| input(Kind::Attacker, s.index()) as u16),
    );
    out.extend(
        defenders
            .squares()
            .map(|s| input(Kind::Defender, s.index()) as u16),
    );
    out.extend(king.map(|k| input(Kind::King, k.index()) as u16));
    out
}

/// A quantised network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub family: Family,
    /// Neurons per side.
    pub hidden: usize,
    /// The command that made it.
    pub about: String,
    /// `INPUTS` rows of `2 * hidden`.
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    /// The first `hidden` weigh the side to move's half.
    pub output_weights: Vec<i16>,
    pub output_bias: i32,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Reads little-endian fields from a byte slice, with errors instead of
/// panics on short input.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or("the file is truncated")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn text(&mut self) -> Result<String, String> {
        let n = self.u16()? as usize;
        String::from_utf8(self.take(n)?.to_vec())
            .map_err(|_| "a name in the header is not text".into())
    }
    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, String> {
        Ok(self
            .take(n * 2)?
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

impl Network {
    /// A net with random weights (small enough that no sum overflows):
    /// what the tests of the incremental update and the file format use.
    pub fn random(family: Family, hidden: usize, seed: u64) -> Network {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut r =
            |n: usize, m: i16| -> Vec<i16> { (0..n).map(|_| rng.gen_range(-m..=m)).collect() };
        Network {
            family,
            hidden,
            about: "random weights".into(),
            feature_weights: r(INPUTS * 2 * hidden, 200),
            feature_bias: r(2 * hidden, 200),
            output_weights: r(2 * hidden, 100),
            output_bias: 1234,
        }
    }

    /// Reads a net from its file's bytes, checking everything.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        if bytes.len() < 8 + 8 || &bytes[..8] != MAGIC {
            return Err("not a Konakis NNUE file".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        let mut s = [0u8; 8];
        s.copy_from_slice(sum);
        if fnv1a(body) != u64::from_le_bytes(s) {
            return Err("checksum mismatch: the file is damaged or truncated".into());
        }
        let mut r = Reader { bytes: body, at: 8 };
        let version = r.u16()?;
        if version != VERSION {
            return Err(format!(
                "net format version {version}; this build reads {VERSION}"
            ));
        }
        let family: Family = r.text()?.parse()?;
        let about = r.text()?;
        let inputs = r.u16()? as usize;
        let hidden = r.u16()? as usize;
        let (qa, qb) = (r.u16()? as i32, r.u16()? as i32);
        if inputs != INPUTS {
            return Err(format!("{inputs} inputs; this build's nets have {INPUTS}"));
        }
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(format!("hidden size {hidden}: must be 1 to {MAX_HIDDEN}"));
        }
        if (qa, qb) != (QA, QB) {
            return Err(format!("quantisation {qa}/{qb}; this build uses {QA}/{QB}"));
        }
        let feature_weights = r.i16s(INPUTS * 2 * hidden)?;
        let feature_bias = r.i16s(2 * hidden)?;
        let output_weights = r.i16s(2 * hidden)?;
        let b = r.take(4)?;
        let output_bias = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        if r.at != body.len() {
            return Err(format!("{} bytes too many", body.len() - r.at));
        }
        Ok(Network {
            family,
            hidden,
            about,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        for text in [self.family.name(), self.about.as_str()] {
            let t = &text.as_bytes()[..text.len().min(u16::MAX as usize)];
            out.extend_from_slice(&(t.len() as u16).to_le_bytes());
            out.extend_from_slice(t);
        }
        for v in [INPUTS, self.hidden, QA as usize, QB as usize] {
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        for v in self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights)
        {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.output_bias.to_le_bytes());
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a net file.
    pub fn load(path: &str) -> Result<Network, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        Network::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))
    }

    /// Accumulator length: both halves.
    #[inline]
    pub fn width(&self) -> usize {
        2 * self.hidden
    }

    #[inline]
    fn row(&self, input: usize) -> &[i16] {
        let w = self.width();
        &self.feature_weights[input * w..(input + 1) * w]
    }

    /// Sums a position's accumulator from scratch.
    pub fn refresh(&self, simd: Simd, pos: &Position, acc: &mut [i16]) {
        self.refresh_key(simd, &BoardKey::of(pos), acc);
    }

    /// Sums the accumulator of the pieces `key` from scratch.
    fn refresh_key(&self, simd: Simd, key: &BoardKey, acc: &mut [i16]) {
        // Each square holds one piece at most: at most `INPUTS` rows.
        let mut rows = ArrayVec::<&[i16], INPUTS>::new();
        for (kind, pieces) in [
            (Kind::Attacker, key.attackers),
            (Kind::Defender, key.defenders),
            (Kind::King, key.king),
        ] {
            for s in Bitboard(pieces).squares() {
                rows.push(self.row(input(kind, s.index())));
            }
        }
        accumulate(simd, acc, &self.feature_bias, &[], &rows);
    }

    /// Makes `acc` the accumulator of the position `to` from `parent`, the
    /// accumulator of the position `from`, in one pass over the pieces
    /// that differ. False (and `acc` untouched) when more pieces differ
    /// than an update is worth: then refresh instead.
    #[inline]
    pub fn update(
        &self,
        simd: Simd,
        acc: &mut [i16],
        parent: &[i16],
        from: &BoardKey,
        to: &BoardKey,
    ) -> bool {
        let mut subs = ArrayVec::<&[i16], MAX_UPDATE_ROWS>::new();
        let mut adds = ArrayVec::<&[i16], MAX_UPDATE_ROWS>::new();
        for (kind, before, after) in [
            (Kind::Attacker, from.attackers, to.attackers),
            (Kind::Defender, from.defenders, to.defenders),
            (Kind::King, from.king, to.king),
        ] {
            for s in Bitboard(before & !after).squares() {
                if subs.try_push(self.row(input(kind, s.index()))).is_err() {
                    return false;
                }
            }
            for s in Bitboard(after & !before).squares() {
                if adds.try_push(self.row(input(kind, s.index()))).is_err() {
                    return false;
                }
            }
        }
        accumulate(simd, acc, parent, &subs, &adds);
        true
    }

    /// The evaluation of an accumulator, centi-soldiers from the view of
    /// `side` to move.
    #[inline]
    pub fn output(&self, simd: Simd, acc: &[i16], side: Side) -> i32 {
        let h = self.hidden;
        let (attackers, defenders) = acc.split_at(h);
        let (us, them) = match side {
            Side::Attackers => (attackers, defenders),
            Side::Defenders => (defenders, attackers),
        };
        let (w_us, w_them) = self.output_weights.split_at(h);
        let sum = dot_crelu(simd, us, w_us) + dot_crelu(simd, them, w_them) + self.output_bias;
        centi_of_sum(sum)
    }

    /// The evaluation of a list of active inputs (the trainer's view of a
    /// position), from the view of `side` to move.
    pub fn evaluate_inputs(&self, inputs: &[u16], side: Side) -> i32 {
        let rows: Vec<&[i16]> = inputs.iter().map(|&i| self.row(i as usize)).collect();
        let mut acc = vec![0; self.width()];
        accumulate(Simd::best(), &mut acc, &self.feature_bias, &[], &rows);
        self.output(Simd::best(), &acc, side)
    }

    /// The evaluation of a position summed from scratch (side to move's
    /// view), with the kernels `simd`.
    pub fn evaluate_with(&self, simd: Simd, pos: &Position) -> i32 {
        let mut acc = [0i16; 2 * MAX_HIDDEN];
        let acc = &mut acc[..self.width()];
        self.refresh(simd, pos, acc);
        self.output(simd, acc, pos.side_to_move())
    }

    /// The evaluation of a position summed from scratch (side to move's view).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.evaluate_with(Simd::best(), pos)
    }
}

/// The net's evaluations stay well inside the search's won scores.
pub const EVAL_LIMIT: i32 = 20_000;

/// `CENTI_PER_LOGIT / (QA * QB)` in fixed point with `CENTI_SHIFT`
/// fraction bits, so the output needs no floating point: for every sum a
/// net of `MAX_HIDDEN` can make, it differs from the f64 product
/// truncated by 1 centi-soldier for 1 sum in 60,000 (a test bounds it).
const CENTI_SHIFT: u32 = 40;
const CENTI_SCALE: i64 =
    (CENTI_PER_LOGIT / (QA * QB) as f64 * (1u64 << CENTI_SHIFT) as f64 + 0.5) as i64;

/// The output layer's sum in centi-soldiers, rounded towards zero.
#[inline]
fn centi_of_sum(sum: i32) -> i32 {
    // Far beyond EVAL_LIMIT, and small enough that the product fits i64.
    let sum_magnitude = sum.unsigned_abs().min(1 << 28) as i64;
    let magnitude = ((sum_magnitude * CENTI_SCALE) >> CENTI_SHIFT) as i32;
    (if sum < 0 { -magnitude } else { magnitude }).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// An update subtracts and adds at most this many rows each; a bigger
/// difference (a slot left from a distant line) is summed from scratch.
const MAX_UPDATE_ROWS: usize = 16;

/// The pieces of a position, as the accumulator sees them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardKey {
    pub attackers: u128,
    pub defenders: u128,
    pub king: u128,
}

impl BoardKey {
    pub fn of(pos: &Position) -> BoardKey {
        BoardKey {
            attackers: pos.attackers().0,
            defenders: pos.defenders().0,
            king: pos.king().0,
        }
    }
}

/// The search's accumulators, one per ply of the current line. A node's is
/// made from its parent's, or from scratch at the root or when the parent's
/// is missing. The search evaluates few of the nodes it visits, so a
/// parent's slot may hold another position (an earlier sibling of the
/// parent): when the line is known ([`NnueStack::visit`]), the parent's
/// accumulator is brought up to date first, from its own parent, so that
/// each of its children costs one move's rows, not the stale slot's
/// difference.
pub struct NnueStack {
    net: Arc<Network>,
    simd: Simd,
    acc: Vec<i16>,
    /// The pieces each slot's accumulator holds.
    keys: Vec<Option<BoardKey>>,
    /// The pieces of the current line's position at each ply, as visited.
    line: Vec<Option<BoardKey>>,
}

impl NnueStack {
    /// A stack using the widest kernels the CPU has.
    pub fn new(net: Arc<Network>, plies: usize) -> NnueStack {
        NnueStack::with_simd(net, plies, Simd::best())
    }

    /// A stack using the kernels `simd` (which the CPU must have: take it
    /// from [`Simd::available`]).
    pub fn with_simd(net: Arc<Network>, plies: usize, simd: Simd) -> NnueStack {
        let w = net.width();
        NnueStack {
            acc: vec![0; w * plies],
            keys: vec![None; plies],
            line: vec![None; plies],
            simd,
            net,
        }
    }

    /// Forgets every accumulator: the next position entered is summed from
    /// scratch.
    pub fn clear(&mut self) {
        self.keys.fill(None);
        self.line.fill(None);
    }

    /// Records that the search entered `pos` at `ply`: its children's
    /// accumulators will be made from its own.
    #[inline]
    pub fn visit(&mut self, pos: &Position, ply: usize) {
        self.line[ply] = Some(BoardKey::of(pos));
    }

    /// Makes the accumulator of the pieces `key` at `ply` current: from
    /// the line's position one ply up, made current first where the line
    /// is known, else from whatever that slot holds.
    fn enter(&mut self, key: BoardKey, ply: usize) {
        if self.keys[ply] == Some(key) {
            return;
        }
        if let Some(parent) = ply.checked_sub(1).and_then(|p| self.line[p]) {
            self.enter(parent, ply - 1);
        }
        let w = self.net.width();
        let (before, here) = self.acc.split_at_mut(ply * w);
        let child = &mut here[..w];
        let updated = match ply.checked_sub(1).and_then(|p| self.keys[p]) {
            Some(parent) => {
                let parent_acc = &before[(ply - 1) * w..];
                self.net.update(self.simd, child, parent_acc, &parent, &key)
            }
            None => false,
        };
        if !updated {
            self.net.refresh_key(self.simd, &key, child);
        }
        // An accumulator is a function of its key alone, so an entry left
        // from another line is still right for its key: the parent's slot
        // need not hold the parent, only some position to update from.
        self.keys[ply] = Some(key);
    }

    /// The evaluation of `pos` entered at `ply` (side to move's view).
    #[inline]
    pub fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        self.enter(BoardKey::of(pos), ply);
        let w = self.net.width();
        let acc = &self.acc[ply * w..(ply + 1) * w];
        let score = self.net.output(self.simd, acc, pos.side_to_move());
        debug_assert_eq!(score, self.net.evaluate(pos), "incremental NNUE drifted");
        score
    }
}

/// Nets embedded in the binary: families whose net beat the classical
/// evaluation by SPRT (README, "NNUE"). Each file records the command that
/// trained it.
fn embedded(family: Family) -> Option<&'static [u8]> {
    match family {
        Family::Edge9 => Some(include_bytes!("nets/edge9.nnue")),
        _ => None,
    }
}

/// Every embedded net, read once: `Err` names a net that does not parse,
/// a broken build. The program checks this at start-up
/// ([`check_embedded_nets`]) and stops with the message, rather than play
/// on quietly with another evaluation.
fn embedded_nets() -> &'static Result<Vec<Option<Arc<Network>>>, String> {
    static NETS: OnceLock<Result<Vec<Option<Arc<Network>>>, String>> = OnceLock::new();
    NETS.get_or_init(|| {
        Family::ALL
            .iter()
            .map(|f| match embedded(*f) {
                None => Ok(None),
                Some(bytes) => Network::from_bytes(bytes)
                    .map(|net| Some(Arc::new(net)))
                    .map_err(|e| format!("the embedded {} net is broken: {e}", f.name())),
            })
            .collect()
    })
}

/// Checks that every net built into the binary parses.
pub fn check_embedded_nets() -> Result<(), String> {
    embedded_nets().as_ref().map(|_| ()).map_err(Clone::clone)
}

/// The embedded net for a family, if it has one.
///
/// # Panics
/// If an embedded net does not parse: a broken build, which
/// [`check_embedded_nets`] reports at start-up before any search runs.
pub fn embedded_net(family: Family) -> Option<Arc<Network>> {
    match embedded_nets() {
        Ok(nets) => nets[family.index()].clone(),
        Err(e) => panic!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, Preset, Rules};
    use rand::{Rng, SeedableRng};

    #[test]
    fn embedded_nets_load() {
        for f in Family::ALL {
            if let Some(bytes) = embedded(f) {
                let net =
                    Network::from_bytes(bytes).unwrap_or_else(|e| panic!("{}: {e}", f.name()));
                assert_eq!(net.family, f);
                assert!(embedded_net(f).is_some());
            }
        }
        assert!(embedded_net(Family::Edge9).is_some());
        assert_eq!(check_embedded_nets(), Ok(()));
    }

    /// The fixed-point output scale against the f64 one it replaced.
    #[test]
    fn integer_output_scaling_matches_floating_point() {
        let float = |sum: i32| {
            ((sum as f64 * CENTI_PER_LOGIT / (QA * QB) as f64) as i32)
                .clamp(-EVAL_LIMIT, EVAL_LIMIT)
        };
        let mut differ = 0;
        for sum in (-2_000_000..=2_000_000).chain([i32::MIN, i32::MAX, -70_000_000, 70_000_000]) {
            let (int, f) = (centi_of_sum(sum), float(sum));
            assert!((int - f).abs() <= 1, "sum {sum}: {int} against {f}");
            differ += usize::from(int != f);
        }
        assert!(differ < 100, "{differ} sums differ");
        assert_eq!(centi_of_sum(0), 0);
        assert_eq!(centi_of_sum(-1), 0, "rounded towards zero");
    }

    #[test]
    fn file_round_trip_and_damage() {
        let net = Network::random(Family::Edge9, 16, 1);
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes).unwrap(), net);
        let mut bad = bytes.clone();
        bad[100] ^= 1;
        assert!(Network::from_bytes(&bad).unwrap_err().contains("checksum"));
        assert!(Network::from_bytes(&bytes[..bytes.len() - 3]).is_err());
        assert!(Network::from_bytes(b"KNKSDATA and more bytes").is_err());
        assert!(Network::from_bytes(&[]).is_err());
    }

    /// Runs `check` with a random net of each preset's family (40 per
    /// side: the vector kernels' tails are used too) and a stack of `plies`
    /// on each kernel set the CPU has.
    fn with_each_kernel(
        presets: &[(Preset, Family)],
        seed: u64,
        plies: usize,
        mut check: impl FnMut(&Rules, &Network, &mut NnueStack, Simd),
    ) {
        for &(preset, family) in presets {
            let rules = Rules::preset(preset);
            let net = Arc::new(Network::random(family, 40, seed));
            for simd in Simd::available() {
                let mut stack = NnueStack::with_simd(net.clone(), plies, simd);
                check(&rules, &net, &mut stack, simd);
            }
        }
    }

    #[test]
    fn incremental_equals_scratch_over_random_games() {
        let presets = [
            (Preset::Tablut, Family::Edge9),
            (Preset::Copenhagen, Family::Corner11),
            (Preset::Brandubh, Family::Corner7),
        ];
        with_each_kernel(&presets, 7, 400, check_incremental_against_scratch);
    }

    /// As the search uses the stack: every node visited, few evaluated,
    /// so a parent's slot is often stale and is brought up to date from the
    /// line (null moves included) before its children's.
    #[test]
    fn incremental_equals_scratch_in_a_sparsely_evaluated_tree() {
        let presets = [
            (Preset::Tablut, Family::Edge9),
            (Preset::Copenhagen, Family::Corner11),
        ];
        with_each_kernel(&presets, 9, 64, |rules, net, stack, _| {
            let mut rng = rand::rngs::StdRng::seed_from_u64(5);
            let root = *Game::new(rules.clone()).position();
            let mut evaluated = 0;
            walk(rules, net, stack, &mut rng, &root, 0, &mut evaluated);
            assert!(evaluated > 100, "{evaluated} evaluations");
        });
    }

    fn walk(
        rules: &Rules,
        net: &Network,
        stack: &mut NnueStack,
        rng: &mut rand::rngs::StdRng,
        pos: &Position,
        ply: usize,
        evaluated: &mut usize,
    ) {
        stack.visit(pos, ply);
        if rng.gen_range(0..3) == 0 {
            let want = net.evaluate_with(Simd::scalar(), pos);
            assert_eq!(stack.evaluate(pos, ply), want, "ply {ply}");
            *evaluated += 1;
        }
        if ply == 7 || pos.outcome().is_some() {
            return;
        }
        let mut moves = crate::rules::MoveList::new();
        pos.generate_moves(rules, &mut moves);
        for _ in 0..rng.gen_range(1..=4) {
            let child = match moves.is_empty() || rng.gen_range(0..8) == 0 {
                true => pos.make_null(),
                false => pos.make(rules, moves[rng.gen_range(0..moves.len())]),
            };
            walk(rules, net, stack, rng, &child, ply + 1, evaluated);
        }
    }

    fn check_incremental_against_scratch(
        rules: &Rules,
        net: &Network,
        stack: &mut NnueStack,
        simd: Simd,
    ) {
        {
            let mut rng = rand::rngs::StdRng::seed_from_u64(3);
            for _game in 0..5 {
                let mut game = Game::new(rules.clone());
                let mut ply = 0;
                stack.evaluate(game.position(), 0);
                while game.outcome().is_none() && ply < 300 {
                    let moves = game.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let mv = moves[rng.gen_range(0..moves.len())];
                    if game.play(mv).is_err() {
                        break;
                    }
                    ply += 1;
                    let pos = *game.position();
                    let inc = stack.evaluate(&pos, ply);
                    assert_eq!(
                        inc,
                        net.evaluate_with(Simd::scalar(), &pos),
                        "{}",
                        simd.name()
                    );
                }
            }
        }
    }
}
