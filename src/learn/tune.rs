//! `konakis tune`: Texel tuning of the learned evaluation. The weights are
//! fitted so that `sigmoid(K * eval)` predicts each position's target — the
//! game's result for the defenders, blended with the search's score — by
//! full-batch gradient descent (Adam) over the feature counts of every
//! position, with a held-out validation split by game.
//!
//! `K` is a convention by default, `ln 10 / 400` (a lead of 400 means 10 to
//! 1, as on the Elo scale), which keeps the learned weights in
//! centi-soldiers on the scale the search's margins expect; it can instead
//! be fitted to the search scores (`--k fit`), which only makes sense when
//! the evaluation that made them already predicts the results.
//! Sums over positions run on rayon in fixed chunks added in order, so the
//! same data and seed give the same weights on any number of threads.

use super::data::{self, Record};
use crate::rules::{Rules, Side};
use crate::search::eval::features::{self, COUNT};
use crate::search::eval::learned::{self, Family, Weights};
use rayon::prelude::*;

/// One position's features, sparse: (feature, count) pairs.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    pub features: Vec<(u16, i16)>,
    /// What the evaluation should predict, as a defenders' score in [0, 1].
    pub target: f64,
}

/// What `konakis tune` is asked for.
#[derive(Clone, Debug)]
pub struct TuneConfig {
    pub data: Vec<String>,
    pub family: Option<Family>,
    pub epochs: usize,
    /// Weight of the search score in the target (1 - lambda: the result).
    pub lambda: f64,
    /// The scale of the sigmoid; `None`: fitted to the search scores.
    pub k: Option<f64>,
    /// Where the fit starts.
    pub start: Start,
    /// Pull towards the starting weights: this much times the squared
    /// distance (in centi-soldiers) is added to the loss.
    pub l2: f64,
    /// Features kept at their starting weights (names, or prefixes ending
    /// in `*` such as `pst-*`).
    pub fixed: Vec<String>,
    /// If any: the only features fitted (the same forms); all others keep
    /// their starting weights.
    pub free: Vec<String>,
    pub learning_rate: f64,
    /// Share of games held out for validation.
    pub validation: f64,
    pub seed: u64,
    /// Leave out the positions of games the length limit ended: on corner
    /// boards their shuffling is a few games but most of the positions.
    pub drop_adjudicated: bool,
    pub progress: bool,
}

/// Where a fit starts (`--init`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// The hand evaluation's weights.
    Hand,
    /// Every weight zero.
    Zero,
    /// The family's weights as the engine embeds them, so that a new fit
    /// refines what already won its matches instead of starting over.
    Learned,
    /// A weights file in `WeightsFile`'s format.
    File(String),
}

impl std::str::FromStr for Start {
    type Err = String;
    fn from_str(s: &str) -> Result<Start, String> {
        Ok(match s {
            "hand" => Start::Hand,
            "zero" => Start::Zero,
            "learned" => Start::Learned,
            "" => return Err("--init takes hand, zero, learned or a weights file".into()),
            path => Start::File(path.to_string()),
        })
    }
}

impl Start {
    /// The starting weights in centi-soldiers; `hand` is the hand
    /// evaluation's, already computed for the data's rules.
    fn weights(&self, family: Family, hand: &[f64; COUNT]) -> Result<[f64; COUNT], String> {
        let parsed = match self {
            Start::Hand => return Ok(*hand),
            Start::Zero => return Ok([0.0; COUNT]),
            Start::Learned => learned::embedded(family).ok_or_else(|| {
                format!(
                    "family {} has no learned weights: use --init hand",
                    family.name()
                )
            })?,
            Start::File(path) => std::sync::Arc::new(Weights::load(path)?),
        };
        // A fit has one weight a feature; a side's own weights would be
        // silently lost from the file it writes.
        if !parsed.side_overrides.is_empty() {
            return Err(
                "the starting weights have 'attackers:'/'defenders:' lines, which a fit cannot \
                 carry: start from a file without them"
                    .into(),
            );
        }
        Ok(parsed.to_centi())
    }
}

/// What a tuning run found.
pub struct TuneReport {
    pub family: Family,
    pub weights: Weights,
    pub k: f64,
    pub positions: usize,
    /// Positions left out by `drop_adjudicated` (not in `positions`).
    pub dropped: usize,
    pub train: usize,
    pub validation: usize,
    /// The loss of the starting weights, and of the fitted ones (fit set,
    /// held-out set).
    pub loss_before: (f64, f64),
    pub loss_after: (f64, f64),
    /// The loss of the hand evaluation's weights.
    pub loss_hand: (f64, f64),
}

const CHUNK: usize = 4096;

/// A record read for tuning: its sample, its search score (defenders'
/// view, if it has one) and whether it is held out; `None` if it is left out.
type Extracted = Option<(Sample, Option<f64>, bool)>;

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The defenders' view of a record's search score.
fn defenders_score(r: &Record) -> f64 {
    match r.side {
        Side::Defenders => r.score as f64,
        Side::Attackers => -(r.score as f64),
    }
}

/// Mean squared error of `sigmoid(k * (score - even))` against the results.
fn calibration_loss(scores_and_results: &[(f64, f64)], k: f64, even: f64) -> f64 {
    scores_and_results
        .par_chunks(CHUNK)
        .map(|c| {
            c.iter()
                .map(|(s, r)| (sigmoid(k * (s - even)) - r).powi(2))
                .sum::<f64>()
        })
        .collect::<Vec<_>>()
        .iter()
        .sum::<f64>()
        / scores_and_results.len().max(1) as f64
}

/// The minimum of a unimodal `f` on `[lo, hi]` (golden-section search).
fn golden_min(mut lo: f64, mut hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if f(a) < f(b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// The range searched for `K`.
const K_RANGE: (f64, f64) = (1e-5, 0.05);

/// Fits `K` so that `sigmoid(K * score)` predicts the results best
/// (least squares, golden-section search).
pub fn fit_k(scores_and_results: &[(f64, f64)]) -> f64 {
    golden_min(K_RANGE.0, K_RANGE.1, |k| {
        calibration_loss(scores_and_results, k, 0.0)
    })
}

/// How a search score (defenders' view) maps to the defenders' expected
/// result: `sigmoid(k * (score - even))`. `even` is the score at which both
/// sides do equally well: zero for a well-calibrated evaluation, far from it
/// for one that misjudges a variant (the hand evaluation gives Copenhagen's
/// attackers +500 to +2,000 in positions the defenders win 97% of the time).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    pub k: f64,
    pub even: f64,
}

impl Calibration {
    /// The fixed scale the nets and the tuner use: `K = ln 10 / 400`, no offset.
    pub const FIXED: Calibration = Calibration {
        k: DEFAULT_K,
        even: 0.0,
    };

    /// The side to move's expected result for its own search score.
    pub fn expected(&self, score: f64, side: Side) -> f64 {
        match side {
            Side::Defenders => sigmoid(self.k * (score - self.even)),
            Side::Attackers => sigmoid(self.k * (score + self.even)),
        }
    }
}

/// The range searched for the even score, in centi-soldiers.
const EVEN_RANGE: (f64, f64) = (-5000.0, 5000.0);

/// Fits `k` and `even` together (least squares; golden-section searches on
/// each in turn until neither moves). Pairs are (defenders' score,
/// defenders' result).
pub fn fit_calibration(scores_and_results: &[(f64, f64)]) -> Calibration {
    let mut c = Calibration {
        k: fit_k(scores_and_results),
        even: 0.0,
    };
    for _ in 0..12 {
        let even = golden_min(EVEN_RANGE.0, EVEN_RANGE.1, |e| {
            calibration_loss(scores_and_results, c.k, e)
        });
        let k = golden_min(K_RANGE.0, K_RANGE.1, |k| {
            calibration_loss(scores_and_results, k, even)
        });
        let settled = (even - c.even).abs() < 0.5 && (k - c.k).abs() < 1e-3 * c.k;
        c = Calibration { k, even };
        if settled {
            break;
        }
    }
    c
}

/// A game's side of the split, from the seed: a stable hash, so that every
/// position of a game lands on the same side.
pub(crate) fn held_out(file: usize, game: u32, seed: u64, share: f64) -> bool {
    let mut x = seed ^ ((file as u64) << 40) ^ game as u64;
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x as f64 / u64::MAX as f64) < share
}

/// Feature counts of a record under its file's rules.
fn sample_features(r: &Record, rules: &Rules) -> Result<Vec<(u16, i16)>, String> {
    let pos = r.position(rules)?;
    let counts = features::counts(&pos, rules);
    Ok(counts
        .0
        .iter()
        .enumerate()
        .filter(|(_, c)| **c != 0)
        .map(|(f, c)| {
            (
                f as u16,
                (*c).clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            )
        })
        .collect())
}

/// Mean squared error of `weights` (centi-soldiers) over `samples`.
pub fn loss(samples: &[Sample], weights: &[f64; COUNT], k: f64) -> f64 {
    samples
        .par_chunks(CHUNK)
        .map(|c| {
            c.iter()
                .map(|s| (sigmoid(k * eval(s, weights)) - s.target).powi(2))
                .sum::<f64>()
        })
        .collect::<Vec<_>>()
        .iter()
        .sum::<f64>()
        / samples.len().max(1) as f64
}

#[inline]
fn eval(s: &Sample, w: &[f64; COUNT]) -> f64 {
    s.features
        .iter()
        .map(|&(f, c)| w[f as usize] * c as f64)
        .sum()
}

/// How a fit moves the weights.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub epochs: usize,
    pub learning_rate: f64,
    /// Pull towards the starting weights.
    pub l2: f64,
    /// Features that keep their starting weights.
    pub fixed: [bool; COUNT],
}

/// Full-batch Adam on the mean squared error, plus `l2` times the squared
/// distance from `start`; returns the weights.
pub fn fit(
    samples: &[Sample],
    start: [f64; COUNT],
    k: f64,
    schedule: &Schedule,
    mut each_epoch: impl FnMut(usize, f64, &[f64; COUNT]),
) -> [f64; COUNT] {
    let Schedule {
        epochs,
        learning_rate,
        l2,
        fixed,
    } = *schedule;
    let mut w = start;
    let (mut m, mut v) = ([0.0; COUNT], [0.0; COUNT]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8);
    let n = samples.len().max(1) as f64;
    for epoch in 1..=epochs {
        let parts: Vec<([f64; COUNT], f64)> = samples
            .par_chunks(CHUNK)
            .map(|c| {
                let mut g = [0.0; COUNT];
                let mut l = 0.0;
                for s in c {
                    let p = sigmoid(k * eval(s, &w));
                    let err = p - s.target;
                    l += err * err;
                    let d = 2.0 * err * k * p * (1.0 - p);
                    for &(f, cnt) in &s.features {
                        g[f as usize] += d * cnt as f64;
                    }
                }
                (g, l)
            })
            .collect();
        let mut grad = [0.0; COUNT];
        let mut total = 0.0;
        for (g, l) in &parts {
            for (a, b) in grad.iter_mut().zip(g) {
                *a += b;
            }
            total += l;
        }
        let t = epoch as i32;
        for f in (0..COUNT).filter(|f| !fixed[*f]) {
            let g = grad[f] / n + 2.0 * l2 * (w[f] - start[f]);
            m[f] = b1 * m[f] + (1.0 - b1) * g;
            v[f] = b2 * v[f] + (1.0 - b2) * g * g;
            let mh = m[f] / (1.0 - b1.powi(t));
            let vh = v[f] / (1.0 - b2.powi(t));
            w[f] -= learning_rate * mh / (vh.sqrt() + eps);
        }
        each_epoch(epoch, total / n, &w);
    }
    w
}

/// The default scale: a lead of 400 centi-soldiers predicts 10 to 1.
pub const DEFAULT_K: f64 = std::f64::consts::LN_10 / 400.0;

/// Reads the data, fits K and the weights, and reports.
pub fn run(cfg: &TuneConfig) -> Result<TuneReport, String> {
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
    let mut train = Vec::new();
    let mut validation = Vec::new();
    let mut scored = Vec::new();
    let mut positions = 0;
    let mut dropped = 0;
    let mut first_rules = None;
    for (i, path) in cfg.data.iter().enumerate() {
        let file = data::read_file(path)?;
        first_rules.get_or_insert_with(|| file.rules.clone());
        data::check_family(&mut family, path, &file)?;
        let rules = file.rules.clone();
        let extracted: Vec<Result<Extracted, String>> = file
            .records
            .par_chunks(CHUNK)
            .flat_map_iter(|c| {
                c.iter().map(|r| {
                    if cfg.drop_adjudicated && r.adjudicated {
                        return Ok(None);
                    }
                    let features = sample_features(r, &rules)?;
                    let result = r.result.defenders_score();
                    let score = (!r.no_score).then(|| defenders_score(r));
                    let out = held_out(i, r.game, cfg.seed, cfg.validation);
                    Ok(Some((
                        Sample {
                            features,
                            target: result,
                        },
                        score,
                        out,
                    )))
                })
            })
            .collect();
        for (j, e) in extracted.into_iter().enumerate() {
            let Some((sample, score, out)) =
                e.map_err(|e| format!("{path}: record {}: {e}", j + 1))?
            else {
                dropped += 1;
                continue;
            };
            positions += 1;
            if let Some(s) = score {
                scored.push((s, sample.target));
            }
            let slot = if out { &mut validation } else { &mut train };
            slot.push((sample, score));
        }
    }
    let family = family.ok_or("no data")?;
    if positions == 0 {
        return Err(format!(
            "no positions to fit ({dropped} from games the length limit ended left out)"
        ));
    }
    if scored.is_empty() && cfg.lambda > 0.0 {
        return Err("no position has a search score: use --lambda 0".into());
    }
    let k = match cfg.k {
        Some(k) => k,
        None if scored.is_empty() => {
            return Err("--k fit needs positions with search scores".into())
        }
        None => fit_k(&scored),
    };
    let finish = |set: Vec<(Sample, Option<f64>)>| -> Vec<Sample> {
        set.into_iter()
            .map(|(mut s, score)| {
                if let Some(sc) = score {
                    s.target = cfg.lambda * sigmoid(k * sc) + (1.0 - cfg.lambda) * s.target;
                }
                s
            })
            .collect()
    };
    let train = finish(train);
    let validation = finish(validation);
    let hand = crate::search::eval::hand::as_features(&first_rules.ok_or("no data")?);
    let start = cfg.start.weights(family, &hand)?;
    let loss_before = (loss(&train, &start, k), loss(&validation, &start, k));
    let loss_hand = (loss(&train, &hand, k), loss(&validation, &hand, k));
    let bar = cfg.progress.then(|| {
        let b = indicatif::ProgressBar::new(cfg.epochs as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} epoch {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let named = |option: &str, names: &[String]| -> Result<[bool; COUNT], String> {
        let mut set = [false; COUNT];
        for name in names {
            let matching: Vec<usize> = (0..COUNT)
                .filter(|&f| match name.strip_suffix('*') {
                    Some(prefix) => features::name(f).starts_with(prefix),
                    None => features::name(f) == *name,
                })
                .collect();
            if matching.is_empty() {
                return Err(format!("{option}: no feature is named '{name}'"));
            }
            for f in matching {
                set[f] = true;
            }
        }
        Ok(set)
    };
    let mut fixed = named("--fix", &cfg.fixed)?;
    if !cfg.free.is_empty() {
        let free = named("--free", &cfg.free)?;
        for f in 0..COUNT {
            fixed[f] |= !free[f];
        }
    }
    let schedule = Schedule {
        epochs: cfg.epochs,
        learning_rate: cfg.learning_rate,
        l2: cfg.l2,
        fixed,
    };
    let fitted = fit(&train, start, k, &schedule, |e, l, w| {
        if let Some(b) = &bar {
            b.set_position(e as u64);
            if e % 25 == 0 || e == cfg.epochs {
                b.set_message(format!(
                    "train loss {l:.6}, validation {:.6}",
                    loss(&validation, w, k)
                ));
            }
        }
    });
    if let Some(b) = bar {
        b.finish();
    }
    let weights = Weights::from_centi(&fitted);
    // The loss of the weights as the engine will use them (rounded).
    let rounded: [f64; COUNT] = std::array::from_fn(|f| weights.centi(f));
    let loss_after = (loss(&train, &rounded, k), loss(&validation, &rounded, k));
    Ok(TuneReport {
        family,
        weights,
        k,
        positions,
        dropped,
        train: train.len(),
        validation: validation.len(),
        loss_before,
        loss_after,
        loss_hand,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A synthetic set where the true weights are known: the fit finds
    /// weights that predict as well as the true ones.
    #[test]
    fn tuning_recovers_known_weights() {
        let mut rng = 12345u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut truth = [0.0; COUNT];
        truth[0] = -80.0;
        truth[1] = 150.0;
        truth[5] = 40.0;
        let k = 1.0 / 150.0;
        let samples: Vec<Sample> = (0..4000)
            .map(|_| {
                let features = vec![
                    (0, (next() % 20) as i16),
                    (1, (next() % 10) as i16),
                    (5, (next() % 4) as i16),
                ];
                let e: f64 = features
                    .iter()
                    .map(|&(f, c)| truth[f as usize] * c as f64)
                    .sum();
                Sample {
                    features,
                    target: sigmoid(k * e),
                }
            })
            .collect();
        let before = loss(&samples, &[0.0; COUNT], k);
        let schedule = Schedule {
            epochs: 600,
            learning_rate: 2.0,
            l2: 0.0,
            fixed: [false; COUNT],
        };
        let w = fit(&samples, [0.0; COUNT], k, &schedule, |_, _, _| {});
        let after = loss(&samples, &w, k);
        assert!(after < before / 50.0, "{before} -> {after}");
        for f in [0usize, 1, 5] {
            assert!(
                (w[f] - truth[f]).abs() < 5.0,
                "{f}: {} vs {}",
                w[f],
                truth[f]
            );
        }
        // A fixed feature keeps its weight.
        let mut fixed = [false; COUNT];
        fixed[5] = true;
        let held = fit(
            &samples,
            [0.0; COUNT],
            k,
            &Schedule { fixed, ..schedule },
            |_, _, _| {},
        );
        assert_eq!(held[5], 0.0);
        // Same data, same weights, every time.
        let again = fit(&samples, [0.0; COUNT], k, &schedule, |_, _, _| {});
        assert_eq!(w, again);
    }

    #[test]
    fn k_is_found_from_scores() {
        let k = 1.0 / 250.0;
        let data: Vec<(f64, f64)> = (-50..50)
            .map(|i| {
                let s = i as f64 * 20.0;
                (s, sigmoid(k * s))
            })
            .collect();
        assert!((fit_k(&data) - k).abs() < 1e-5);
    }

    #[test]
    fn calibration_finds_scale_and_offset() {
        // Results drawn as win/loss with the true chance, as real data is:
        // the fit must recover both the scale and where the sides are even.
        let truth = Calibration {
            k: 1.0 / 600.0,
            even: -1500.0,
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let data: Vec<(f64, f64)> = (0..200_000)
            .map(|_| {
                let s = rng.gen_range(-6000.0..3000.0);
                let p = truth.expected(s, Side::Defenders);
                (s, if rng.gen::<f64>() < p { 1.0 } else { 0.0 })
            })
            .collect();
        let fitted = fit_calibration(&data);
        assert!((fitted.k / truth.k - 1.0).abs() < 0.05, "{fitted:?}");
        assert!((fitted.even - truth.even).abs() < 30.0, "{fitted:?}");
        // The attackers' view is the mirror image.
        let p = fitted.expected(200.0, Side::Attackers);
        assert!((p - (1.0 - fitted.expected(-200.0, Side::Defenders))).abs() < 1e-12);
        // Calibrated data keeps a fixed calibration's answer.
        assert_eq!(Calibration::FIXED.expected(0.0, Side::Attackers), 0.5);
    }
}
