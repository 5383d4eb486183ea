//! SPSA tuning of the search's numbers (`src/search/params.rs`), the way
//! fishtest tunes Stockfish: each iteration perturbs every tuned number
//! at once by ±c, plays the engine with θ + cΔ against itself with θ − cΔ
//! (hidden `Tune<Name>` options) over a pair of games or more, and moves θ
//! along Δ by the result. Gains follow Spall's schedule (α = 0.602,
//! γ = 0.101, A = N/10), with each number's `c` ending at its step and its
//! learning rate ending at `r_end`.

use super::player::EngineSpec;
use super::{run_match, MatchConfig};
use crate::search::params::{SearchParams, Tunable, TUNABLES};
use rand::{Rng, SeedableRng};
use std::io::Write;

const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;

/// A tuning session.
#[derive(Clone, Debug)]
pub struct SpsaConfig {
    /// The match every iteration plays: its two engines are replaced by
    /// `engine` with the perturbed numbers; `games` per iteration.
    pub base: MatchConfig,
    pub engine: EngineSpec,
    /// The numbers tuned ([`tunables`] picks them by name).
    pub tuned: Vec<&'static Tunable>,
    pub iterations: usize,
    /// The learning rate at the last iteration (fishtest's `r_end`).
    pub r_end: f64,
    /// Where each iteration's θ is appended, as a line (optional).
    pub log: Option<String>,
}

/// One iteration's outcome.
#[derive(Clone, Debug)]
pub struct SpsaStep {
    pub iteration: usize,
    /// Wins less losses of θ + cΔ.
    pub result: i32,
    pub theta: Vec<f64>,
}

/// The tuned numbers' names (all when `names` is empty), checked.
pub fn tunables(names: &[String]) -> Result<Vec<&'static Tunable>, String> {
    if names.is_empty() {
        return Ok(TUNABLES.iter().collect());
    }
    names
        .iter()
        .map(|n| {
            SearchParams::find(n.trim_start_matches("Tune")).ok_or_else(|| {
                let all: Vec<&str> = TUNABLES.iter().map(|t| t.name).collect();
                format!("no tunable named '{n}'; there are {}", all.join(", "))
            })
        })
        .collect()
}

/// The engine with the numbers `values` (rounded) as its options.
fn engine_with(spec: &EngineSpec, name: &str, tuned: &[&Tunable], values: &[f64]) -> EngineSpec {
    let mut e = spec.clone();
    e.name = name.into();
    for (t, v) in tuned.iter().zip(values) {
        let v = (v.round() as i32).clamp(t.min, t.max);
        e.options.push((format!("Tune{}", t.name), v.to_string()));
    }
    e
}

/// Runs the session; `each` sees every iteration. Returns the final θ.
pub fn run_spsa(cfg: &SpsaConfig, mut each: impl FnMut(&SpsaStep)) -> Result<Vec<f64>, String> {
    if cfg.iterations == 0 {
        return Err("--iterations must be at least 1".into());
    }
    let tuned = &cfg.tuned;
    if tuned.is_empty() {
        return Err("no numbers to tune".into());
    }
    let mut log = match &cfg.log {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{path}: {e}"))?,
        ),
        None => None,
    };
    if let Some(f) = log.as_mut() {
        let names: Vec<&str> = tuned.iter().map(|t| t.name).collect();
        let _ = writeln!(f, "# iteration result {}", names.join(" "));
    }
    let n = cfg.iterations as f64;
    let big_a = 0.1 * n;
    let mut theta: Vec<f64> = tuned.iter().map(|t| t.default as f64).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(cfg.base.seed);
    for k in 0..cfg.iterations {
        let kf = k as f64;
        let c: Vec<f64> = tuned
            .iter()
            .map(|t| t.step * (n / (kf + 1.0)).powf(GAMMA))
            .collect();
        let delta: Vec<f64> = tuned
            .iter()
            .map(|_| if rng.gen::<bool>() { 1.0 } else { -1.0 })
            .collect();
        let plus: Vec<f64> = (0..tuned.len())
            .map(|i| theta[i] + c[i] * delta[i])
            .collect();
        let minus: Vec<f64> = (0..tuned.len())
            .map(|i| theta[i] - c[i] * delta[i])
            .collect();
        let mut match_cfg = cfg.base.clone();
        match_cfg.engines = [
            engine_with(&cfg.engine, "plus", tuned, &plus),
            engine_with(&cfg.engine, "minus", tuned, &minus),
        ];
        match_cfg.seed = cfg.base.seed.wrapping_add(1 + k as u64);
        match_cfg.sprt = None;
        let outcome = run_match(&match_cfg)?;
        let w = outcome.tally.overall;
        let result = w.wins as i32 - w.losses as i32;
        for (i, t) in tuned.iter().enumerate() {
            let a_end = cfg.r_end * t.step * t.step;
            let a_k = a_end * (big_a + n).powf(ALPHA) / (big_a + kf + 1.0).powf(ALPHA);
            let r_k = a_k / (c[i] * c[i]);
            theta[i] = (theta[i] + r_k * c[i] * result as f64 * delta[i])
                .clamp(t.min as f64, t.max as f64);
        }
        let step = SpsaStep {
            iteration: k + 1,
            result,
            theta: theta.clone(),
        };
        if let Some(f) = log.as_mut() {
            let values: Vec<String> = theta.iter().map(|v| format!("{v:.3}")).collect();
            let _ = writeln!(f, "{} {} {}", k + 1, result, values.join(" "));
            let _ = f.flush();
        }
        each(&step);
    }
    Ok(theta)
}

/// θ as the engine options that play it: `option.Tune<Name>=<v>` words for
/// `konakis match --engine`.
pub fn options_text(tuned: &[&Tunable], theta: &[f64]) -> String {
    tuned
        .iter()
        .zip(theta)
        .map(|(t, v)| {
            format!(
                "option.Tune{}={}",
                t.name,
                (v.round() as i32).clamp(t.min, t.max)
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}
