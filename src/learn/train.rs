//! `konakis train`: fits an NNUE ([`crate::search::eval::nnue`]) to datagen
//! files. The net is trained in f32 and quantised at the end.
//!
//! The target, from the side to move's view, blends the game's result with
//! the search's score: `lambda * sigmoid(K * score) + (1 - lambda) * result`
//! (positions without a score use the result), with the tuner's
//! `K = ln 10 / 400` so the net's output is in centi-soldiers. With
//! `--calibrate`, `sigmoid(K * score)` becomes `sigmoid(k * (score - even))`
//! (defenders' view) with `k` and `even` fitted to the results first
//! ([`Calibration`]): the search scores of an evaluation that misjudges a
//! variant then still teach the net who is winning. Loss: mean
//! squared error of `sigmoid(output)`. Mini-batch Adam; each batch is cut
//! into a fixed number of chunks whose gradients rayon computes apart and
//! adds in order, so the same data and seed give the same net on any number
//! of threads. Each epoch shows every position under one of the board's 8
//! symmetries (chosen from the seed): every preset's rules are symmetric, so
//! this multiplies the data eightfold at no cost. A tenth of the games (by
//! game, so that no game is on both sides) is held out and its loss printed
//! every epoch.
//!
//! Hand-written loops rather than a tensor crate: the first layer is sparse
//! (about 30 of 363 inputs are on), which dense tensor libraries do not
//! exploit, and the loops vectorise over the hidden neurons.

use super::data::{self, Record};
use super::tune::{fit_calibration, held_out, Calibration, DEFAULT_K};
use crate::rules::Side;
use crate::search::eval::learned::Family;
use crate::search::eval::nnue::{self, Network, INPUTS, QA, QB, WEIGHT_CLIP};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

/// What `konakis train` is asked for.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub data: Vec<String>,
    pub family: Option<Family>,
    /// Neurons per side.
    pub hidden: usize,
    pub epochs: usize,
    /// Weight of the search score in the target.
    pub lambda: f64,
    /// Fit the score's scale and even point to the results (see
    /// [`Calibration`]) instead of the fixed `K`.
    pub calibrate: bool,
    pub seed: u64,
    /// Adam's step at the start (it falls linearly to a tenth).
    pub learning_rate: f64,
    pub batch: usize,
    /// Share of games held out.
    pub validation: f64,
    /// Show each position under a random one of the 8 board symmetries.
    pub augment: bool,
    pub progress: bool,
    /// The command line, written into the net.
    pub about: String,
}

/// Positions as the net sees them: active inputs, side to move, target.
#[derive(Default)]
pub struct Samples {
    inputs: Vec<u16>,
    /// `offsets[i]..offsets[i + 1]` are sample i's inputs.
    offsets: Vec<u32>,
    side: Vec<Side>,
    size: Vec<u8>,
    target: Vec<f32>,
}

impl Samples {
    fn new() -> Samples {
        Samples {
            offsets: vec![0],
            ..Samples::default()
        }
    }
    pub fn len(&self) -> usize {
        self.target.len()
    }
    pub fn is_empty(&self) -> bool {
        self.target.is_empty()
    }
    fn push(&mut self, r: &Record, size: usize, target: f32) {
        self.inputs
            .extend(nnue::active_inputs(r.attackers, r.defenders, Some(r.king)));
        self.offsets.push(self.inputs.len() as u32);
        self.side.push(r.side);
        self.size.push(size as u8);
        self.target.push(target);
    }
    fn inputs(&self, i: usize) -> &[u16] {
        &self.inputs[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

/// Square maps of the 8 symmetries of an `n`x`n` board (11-stride squares).
fn symmetries(n: usize) -> [[u8; 121]; 8] {
    let mut maps = [[0u8; 121]; 8];
    for (t, map) in maps.iter_mut().enumerate() {
        for r in 0..n {
            for f in 0..n {
                let (a, b) = if t & 4 != 0 { (f, r) } else { (r, f) };
                let a = if t & 1 != 0 { n - 1 - a } else { a };
                let b = if t & 2 != 0 { n - 1 - b } else { b };
                map[r * 11 + f] = (a * 11 + b) as u8;
            }
        }
    }
    maps
}

/// The input under a square map.
#[inline]
fn mapped(input: u16, map: &[u8; 121]) -> u16 {
    let (kind, sq) = (input / 121, input % 121);
    kind * 121 + map[sq as usize] as u16
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The float model: feature weights (`INPUTS` rows of `2h`), feature
/// biases, output weights, output bias, in one vector for Adam.
struct Model {
    h: usize,
    p: Vec<f32>,
}

impl Model {
    fn width(&self) -> usize {
        2 * self.h
    }
    fn bias_at(&self) -> usize {
        INPUTS * self.width()
    }
    fn out_at(&self) -> usize {
        self.bias_at() + self.width()
    }
    fn c_at(&self) -> usize {
        self.out_at() + self.width()
    }

    fn new(h: usize, seed: u64) -> Model {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x6e6e_7565);
        let w = 2 * h;
        let mut p = Vec::with_capacity(INPUTS * w + 2 * w + 1);
        p.extend((0..INPUTS * w).map(|_| rng.gen_range(-0.1f32..0.1)));
        p.extend((0..w).map(|_| rng.gen_range(0.0f32..0.5)));
        let scale = 1.0 / (w as f32).sqrt();
        p.extend((0..w).map(|_| rng.gen_range(-scale..scale)));
        p.push(0.0);
        Model { h, p }
    }

    /// The accumulator's pre-activations of a sample into `acc`, and the
    /// output (a logit, side to move's view).
    #[inline]
    fn forward(&self, inputs: &[u16], map: &[u8; 121], side: Side, acc: &mut [f32]) -> f32 {
        let w = self.width();
        acc.copy_from_slice(&self.p[self.bias_at()..self.bias_at() + w]);
        for &i in inputs {
            let row = mapped(i, map) as usize * w;
            for (a, x) in acc.iter_mut().zip(&self.p[row..row + w]) {
                *a += x;
            }
        }
        let (us, them) = halves(acc, side, self.h);
        let v = &self.p[self.out_at()..self.out_at() + w];
        let dot = |a: &[f32], v: &[f32]| -> f32 {
            a.iter().zip(v).map(|(a, v)| a.clamp(0.0, 1.0) * v).sum()
        };
        self.p[self.c_at()] + dot(us, &v[..self.h]) + dot(them, &v[self.h..])
    }

    /// Adds the gradient of one sample's loss to `grad`; returns the loss.
    #[inline]
    fn backward(
        &self,
        inputs: &[u16],
        map: &[u8; 121],
        side: Side,
        target: f32,
        grad: &mut [f32],
        acc: &mut [f32],
    ) -> f64 {
        let y = self.forward(inputs, map, side, acc) as f64;
        let p = sigmoid(y);
        let err = p - target as f64;
        let dy = (2.0 * err * p * (1.0 - p)) as f32;
        let (h, w) = (self.h, self.width());
        let (us_at, them_at) = match side {
            Side::Attackers => (0, h),
            Side::Defenders => (h, 0),
        };
        let v = &self.p[self.out_at()..self.out_at() + w];
        let (out_at, c_at) = (self.out_at(), self.c_at());
        grad[c_at] += dy;
        // The output weights' gradient, then acc becomes d loss / d acc.
        for (half_at, v_at) in [(us_at, 0), (them_at, h)] {
            for j in 0..h {
                let a = acc[half_at + j];
                grad[out_at + v_at + j] += dy * a.clamp(0.0, 1.0);
                acc[half_at + j] = if a > 0.0 && a < 1.0 {
                    dy * v[v_at + j]
                } else {
                    0.0
                };
            }
        }
        let bias_at = self.bias_at();
        for (g, d) in grad[bias_at..bias_at + w].iter_mut().zip(acc.iter()) {
            *g += d;
        }
        for &i in inputs {
            let row = mapped(i, map) as usize * w;
            for (g, d) in grad[row..row + w].iter_mut().zip(acc.iter()) {
                *g += d;
            }
        }
        err * err
    }

    fn quantise(&self, family: Family, about: &str) -> Network {
        let w = self.width();
        let q = |x: f32, s: i32| -> i16 { (x * s as f32).round().clamp(-32767.0, 32767.0) as i16 };
        Network {
            family,
            hidden: self.h,
            about: about.to_string(),
            feature_weights: self.p[..self.bias_at()].iter().map(|x| q(*x, QA)).collect(),
            feature_bias: self.p[self.bias_at()..self.bias_at() + w]
                .iter()
                .map(|x| q(*x, QA))
                .collect(),
            output_weights: self.p[self.out_at()..self.out_at() + w]
                .iter()
                .map(|x| q(*x, QB))
                .collect(),
            output_bias: (self.p[self.c_at()] * (QA * QB) as f32).round() as i32,
        }
    }
}

#[inline]
fn halves(acc: &[f32], side: Side, h: usize) -> (&[f32], &[f32]) {
    let (attackers, defenders) = acc.split_at(h);
    match side {
        Side::Attackers => (attackers, defenders),
        Side::Defenders => (defenders, attackers),
    }
}

/// Gradients of a batch are summed in this many chunks, in order.
const CHUNKS: usize = 8;

/// What a training run found.
pub struct TrainReport {
    pub family: Family,
    pub net: Network,
    pub positions: usize,
    pub train: usize,
    pub validation: usize,
    /// Held-out loss per epoch (float model).
    pub epoch_losses: Vec<(f64, f64)>,
    /// Held-out loss of the quantised net.
    pub quantised_loss: f64,
    /// How the search scores were turned into expected results.
    pub calibration: Calibration,
}

/// What [`read_samples`] read.
pub struct ReadSamples {
    pub family: Family,
    pub fit: Samples,
    pub held: Samples,
    pub positions: usize,
    /// How the search scores became expected results.
    pub calibration: Calibration,
}

/// Reads the data into samples (fit set, held-out set). With `calibrate`,
/// the score's calibration is fitted on the fit set's scored positions
/// first, so that the held-out games stay unseen.
pub fn read_samples(cfg: &TrainConfig) -> Result<ReadSamples, String> {
    if cfg.data.is_empty() {
        return Err("give at least one --data file".into());
    }
    if !(0.0..=1.0).contains(&cfg.lambda) {
        return Err(format!("--lambda must be 0 to 1, not {}", cfg.lambda));
    }
    if !(0.0..0.9).contains(&cfg.validation) {
        return Err(format!(
            "--validation must be from 0 to below 0.9, not {}",
            cfg.validation
        ));
    }
    let mut family = cfg.family;
    let mut files = Vec::with_capacity(cfg.data.len());
    for path in &cfg.data {
        let file = data::read_file(path)?;
        data::check_family(&mut family, path, &file)?;
        files.push(file);
    }
    let family = family.ok_or("no data")?;
    let is_held = |i: usize, r: &Record| held_out(i, r.game, cfg.seed, cfg.validation);
    let calibration = if cfg.calibrate {
        let pairs: Vec<(f64, f64)> = files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.records.iter().map(move |r| (i, r)))
            .filter(|&(i, r)| !r.no_score && !is_held(i, r))
            .map(|(_, r)| {
                let score = match r.side {
                    Side::Defenders => r.score as f64,
                    Side::Attackers => -(r.score as f64),
                };
                (score, r.result.defenders_score())
            })
            .collect();
        if pairs.is_empty() {
            return Err("--calibrate needs positions with search scores".into());
        }
        fit_calibration(&pairs)
    } else {
        Calibration::FIXED
    };
    let (mut fit, mut held) = (Samples::new(), Samples::new());
    let mut positions = 0;
    for (i, file) in files.iter().enumerate() {
        let size = file.rules.size();
        for r in &file.records {
            positions += 1;
            let result = match r.side {
                Side::Defenders => r.result.defenders_score(),
                Side::Attackers => 1.0 - r.result.defenders_score(),
            };
            let target = if r.no_score {
                result
            } else {
                cfg.lambda * calibration.expected(r.score as f64, r.side)
                    + (1.0 - cfg.lambda) * result
            };
            let set = if is_held(i, r) { &mut held } else { &mut fit };
            set.push(r, size, target as f32);
        }
    }
    if fit.is_empty() {
        return Err("no positions to fit".into());
    }
    Ok(ReadSamples {
        family,
        fit,
        held,
        positions,
        calibration,
    })
}

/// The mean of `loss(scratch, i)` over a sample set's indices, summed on
/// rayon in fixed chunks added in order (one scratch value per chunk).
fn mean_loss<S>(
    set: &Samples,
    scratch: impl Fn() -> S + Sync,
    loss: impl Fn(&mut S, usize) -> f64 + Sync,
) -> f64 {
    let n = set.len();
    if n == 0 {
        return 0.0;
    }
    let sums: Vec<f64> = (0..n)
        .collect::<Vec<_>>()
        .par_chunks(4096)
        .map(|c| {
            let mut s = scratch();
            c.iter().map(|&i| loss(&mut s, i)).sum()
        })
        .collect();
    sums.iter().sum::<f64>() / n as f64
}

/// Mean loss of the float model over a sample set (identity symmetry).
fn float_loss(model: &Model, set: &Samples, maps: &[[[u8; 121]; 8]; 12]) -> f64 {
    let scratch = || vec![0.0f32; model.width()];
    mean_loss(set, scratch, |acc, i| {
        let map = &maps[set.size[i] as usize][0];
        let y = model.forward(set.inputs(i), map, set.side[i], acc);
        (sigmoid(y as f64) - set.target[i] as f64).powi(2)
    })
}

/// Mean loss of the quantised net over a sample set.
fn net_loss(net: &Network, set: &Samples) -> f64 {
    mean_loss(
        set,
        || (),
        |_, i| {
            let cp = net.evaluate_inputs(set.inputs(i), set.side[i]);
            (sigmoid(DEFAULT_K * cp as f64) - set.target[i] as f64).powi(2)
        },
    )
}

/// Trains a net.
pub fn run(cfg: &TrainConfig) -> Result<TrainReport, String> {
    if !(1..=nnue::MAX_HIDDEN).contains(&cfg.hidden) {
        return Err(format!("--hidden must be 1 to {}", nnue::MAX_HIDDEN));
    }
    if cfg.batch == 0 || cfg.epochs == 0 {
        return Err("--batch and --epochs must be at least 1".into());
    }
    let ReadSamples {
        family,
        fit,
        held,
        positions,
        calibration,
    } = read_samples(cfg)?;
    let (net, epoch_losses) = fit_net(cfg, family, &fit, &held);
    let quantised_loss = net_loss(&net, &held);
    Ok(TrainReport {
        family,
        net,
        positions,
        train: fit.len(),
        validation: held.len(),
        epoch_losses,
        quantised_loss,
        calibration,
    })
}

/// Fits a net to `fit`, printing the loss on `held` every epoch; returns
/// the quantised net and the (fit, held-out) loss of each epoch.
fn fit_net(
    cfg: &TrainConfig,
    family: Family,
    fit: &Samples,
    held: &Samples,
) -> (Network, Vec<(f64, f64)>) {
    let mut maps = [[[0u8; 121]; 8]; 12];
    for (n, m) in maps.iter_mut().enumerate().skip(3) {
        *m = symmetries(n);
    }
    let mut model = Model::new(cfg.hidden, cfg.seed);
    let params = model.p.len();
    let (mut m1, mut m2) = (vec![0.0f32; params], vec![0.0f32; params]);
    let mut grads = vec![vec![0.0f32; params]; CHUNKS];
    let mut order: Vec<u32> = (0..fit.len() as u32).collect();
    let batches = fit.len().div_ceil(cfg.batch);
    let bar = cfg.progress.then(|| {
        let b = indicatif::ProgressBar::new((cfg.epochs * batches) as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} batches {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let mut epoch_losses = Vec::new();
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut step = 0i32;
    for epoch in 0..cfg.epochs {
        let started = std::time::Instant::now();
        let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.seed.wrapping_add(epoch as u64 * 7919));
        order.shuffle(&mut rng);
        let lr = (cfg.learning_rate * (1.0 - 0.9 * epoch as f64 / cfg.epochs as f64)) as f32;
        let mut fit_loss = 0.0;
        for batch in order.chunks(cfg.batch) {
            let per = batch.len().div_ceil(CHUNKS);
            let losses: Vec<f64> = grads
                .par_iter_mut()
                .enumerate()
                .map(|(c, grad)| {
                    grad.iter_mut().for_each(|g| *g = 0.0);
                    let mut acc = vec![0.0f32; model.width()];
                    let lo = (c * per).min(batch.len());
                    let hi = ((c + 1) * per).min(batch.len());
                    batch[lo..hi]
                        .iter()
                        .map(|&i| {
                            let i = i as usize;
                            let sym = if cfg.augment {
                                symmetry_of(cfg.seed, epoch, i)
                            } else {
                                0
                            };
                            let map = &maps[fit.size[i] as usize][sym];
                            model.backward(
                                fit.inputs(i),
                                map,
                                fit.side[i],
                                fit.target[i],
                                grad,
                                &mut acc,
                            )
                        })
                        .sum()
                })
                .collect();
            fit_loss += losses.iter().sum::<f64>();
            let (first, rest) = grads.split_at_mut(1);
            for g in rest.iter() {
                for (a, b) in first[0].iter_mut().zip(g) {
                    *a += b;
                }
            }
            step += 1;
            let scale = 1.0 / batch.len() as f32;
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            let clip_to = model.out_at() + model.width();
            for (k, ((p, g), (m, v))) in model
                .p
                .iter_mut()
                .zip(&first[0])
                .zip(m1.iter_mut().zip(m2.iter_mut()))
                .enumerate()
            {
                let g = g * scale;
                *m = b1 * *m + (1.0 - b1) * g;
                *v = b2 * *v + (1.0 - b2) * g * g;
                *p -= lr * (*m / c1) / ((*v / c2).sqrt() + eps);
                if k < clip_to {
                    *p = p.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
                }
            }
            if let Some(b) = &bar {
                b.inc(1);
            }
        }
        let val = float_loss(&model, held, &maps);
        let fit_mean = fit_loss / fit.len() as f64;
        epoch_losses.push((fit_mean, val));
        let line = format!(
            "epoch {:>3}/{} loss {:.6} held out {:.6} lr {:.5} ({:.1} s)",
            epoch + 1,
            cfg.epochs,
            fit_mean,
            val,
            lr,
            started.elapsed().as_secs_f64()
        );
        match &bar {
            Some(b) => {
                b.set_message(format!("held out {val:.6}"));
                b.println(line);
            }
            None => eprintln!("{line}"),
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    (model.quantise(family, &cfg.about), epoch_losses)
}

/// The symmetry a sample is shown under in an epoch (a hash of both).
fn symmetry_of(seed: u64, epoch: usize, i: usize) -> usize {
    let mut x = seed ^ ((epoch as u64) << 32) ^ i as u64;
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    ((x ^ (x >> 33)) & 7) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions with the king on a random square of a 9x9 board among a
    /// few soldiers; the defenders' score is high when he is near an edge.
    fn synthetic(n: usize, seed: u64) -> Samples {
        use crate::learn::data::GameResult;
        use crate::rules::{Bitboard, Square};
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut set = Samples::new();
        for game in 0..n {
            let (r, f) = (rng.gen_range(0..9), rng.gen_range(0..9));
            let edge = r.min(f).min(8 - r).min(8 - f);
            let target = if edge <= 1 { 0.9 } else { 0.1 };
            let record = Record {
                attackers: Square::new((r + 3) % 9, (f + 5) % 9).bb(),
                defenders: Bitboard::EMPTY,
                king: Square::new(r, f),
                side: Side::Defenders,
                plies_since_capture: 0,
                ply: 0,
                score: 0,
                best: None,
                result: GameResult::Draw,
                adjudicated: false,
                no_score: true,
                game: game as u32,
            };
            set.push(&record, 9, target);
        }
        set
    }

    fn config(hidden: usize, epochs: usize) -> TrainConfig {
        TrainConfig {
            data: Vec::new(),
            family: None,
            hidden,
            epochs,
            lambda: 0.0,
            calibrate: false,
            seed: 5,
            learning_rate: 0.01,
            batch: 64,
            validation: 0.1,
            augment: true,
            progress: false,
            about: "test".into(),
        }
    }

    #[test]
    fn training_learns_a_known_rule_and_is_reproducible() {
        let (fit, held) = (synthetic(4000, 1), synthetic(500, 2));
        let cfg = config(8, 12);
        let (net, losses) = fit_net(&cfg, Family::Edge9, &fit, &held);
        // A constant prediction of the mean scores about 0.16 here.
        let last = losses.last().unwrap().1;
        assert!(last < 0.03, "held-out loss {losses:?}");
        assert!(net_loss(&net, &held) < 0.035);
        let (again, _) = fit_net(&cfg, Family::Edge9, &fit, &held);
        assert_eq!(
            net.to_bytes(),
            again.to_bytes(),
            "same data and seed, same net"
        );
        let single = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (one_thread, _) = single.install(|| fit_net(&cfg, Family::Edge9, &fit, &held));
        assert_eq!(
            net.to_bytes(),
            one_thread.to_bytes(),
            "on any number of threads"
        );
    }

    #[test]
    fn symmetries_are_permutations_of_the_board() {
        for n in [7, 9, 11] {
            for map in symmetries(n) {
                let mut seen = std::collections::HashSet::new();
                for r in 0..n {
                    for f in 0..n {
                        let to = map[r * 11 + f] as usize;
                        assert!(to / 11 < n && to % 11 < n);
                        assert!(seen.insert(to));
                    }
                }
            }
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let model = Model::new(4, 9);
        let inputs = [3u16, 130, 250, 40];
        let map = symmetries(9)[0];
        let mut grad = vec![0.0f32; model.p.len()];
        let mut acc = vec![0.0f32; model.width()];
        model.backward(&inputs, &map, Side::Defenders, 0.8, &mut grad, &mut acc);
        let loss = |m: &Model| {
            let mut acc = vec![0.0f32; m.width()];
            let y = m.forward(&inputs, &map, Side::Defenders, &mut acc) as f64;
            (sigmoid(y) - 0.8).powi(2)
        };
        for k in [
            3 * 8,
            3 * 8 + 1,
            model.bias_at() + 2,
            model.out_at() + 5,
            model.c_at(),
        ] {
            let mut plus = Model {
                h: 4,
                p: model.p.clone(),
            };
            let mut minus = Model {
                h: 4,
                p: model.p.clone(),
            };
            plus.p[k] += 1e-3;
            minus.p[k] -= 1e-3;
            let numeric = (loss(&plus) - loss(&minus)) / 2e-3;
            assert!(
                (numeric - grad[k] as f64).abs() < 1e-4,
                "parameter {k}: numeric {numeric} analytic {}",
                grad[k]
            );
        }
    }
}
