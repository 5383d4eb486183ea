//! Match statistics: Elo with a 95% interval (from game or pair results),
//! likelihood of superiority, and the SPRT log-likelihood ratio.

/// Win/draw/loss counts from the first engine's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    pub fn score(&self) -> f64 {
        let n = self.games() as f64;
        if n == 0.0 {
            return 0.5;
        }
        (self.wins as f64 + 0.5 * self.draws as f64) / n
    }
    /// Per-game results as (score, frequency) pairs.
    fn distribution(&self) -> Vec<(f64, f64)> {
        let n = self.games() as f64;
        vec![
            (1.0, self.wins as f64 / n),
            (0.5, self.draws as f64 / n),
            (0.0, self.losses as f64 / n),
        ]
    }
}

/// Pair results (both games of an opening, sides swapped): counts of pair
/// scores 0, 0.5, 1, 1.5 and 2 for the first engine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }
    /// Adds a pair from the two game scores (each 0, 0.5 or 1).
    pub fn add(&mut self, a: f64, b: f64) {
        let idx = ((a + b) * 2.0).round() as usize;
        self.0[idx.min(4)] += 1;
    }
    /// The counts of `self` and `other` together.
    pub fn plus(&self, other: &Pentanomial) -> Pentanomial {
        Pentanomial(std::array::from_fn(|i| self.0[i] + other.0[i]))
    }
    /// Per-pair results (pair score / 2) as (score, frequency) pairs.
    fn distribution(&self) -> Vec<(f64, f64)> {
        let n = self.pairs() as f64;
        self.0
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as f64 / 4.0, c as f64 / n))
            .collect()
    }
}

/// `a,b,c,d,e`: the five counts as a match report prints them (pair
/// scores 0, 0.5, 1, 1.5, 2 for the first engine).
impl std::str::FromStr for Pentanomial {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!("expected five pair counts a,b,c,d,e (pair scores 0/0.5/1/1.5/2), not '{text}'")
        };
        let counts: Vec<u32> = text
            .split(',')
            .map(|c| c.trim().parse().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let counts: [u32; 5] = counts.try_into().map_err(|_| bad())?;
        Ok(Pentanomial(counts))
    }
}

/// Elo difference for an expected score.
pub fn elo_from_score(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Expected score for an Elo difference.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

fn mean_var(dist: &[(f64, f64)]) -> (f64, f64) {
    let mean: f64 = dist.iter().map(|(x, p)| x * p).sum();
    let var: f64 = dist.iter().map(|(x, p)| p * (x - mean).powi(2)).sum();
    (mean, var)
}

/// An Elo estimate: `elo ± margin` (95%), with the likelihood of
/// superiority.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    /// Half the interval's width (for a symmetric `±`).
    pub margin: f64,
    /// The interval's ends; `None` where the score's interval reaches 0
    /// or 1, whose Elo is unbounded.
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub los: f64,
}

/// The distribution with one pseudo-sample spread evenly over the
/// outcomes added: a run of identical samples (every pair split 1-1) then
/// still has a variance, and no statistic becomes infinite or exact.
fn regularised(dist: &[(f64, f64)], samples: f64) -> Vec<(f64, f64)> {
    let prior = 1.0 / dist.len() as f64;
    dist.iter()
        .map(|&(x, p)| (x, (p * samples + prior) / (samples + 1.0)))
        .collect()
}

fn estimate(dist: &[(f64, f64)], samples: f64) -> Option<EloEstimate> {
    if samples < 1.0 {
        return None;
    }
    let (mean, _) = mean_var(dist);
    let (_, var) = mean_var(&regularised(dist, samples));
    let stderr = (var / samples).sqrt();
    let (score_lo, score_hi) = (mean - 1.959964 * stderr, mean + 1.959964 * stderr);
    let lo = elo_from_score(score_lo);
    let hi = elo_from_score(score_hi);
    let los = if stderr > 0.0 {
        phi((mean - 0.5) / stderr)
    } else if mean > 0.5 {
        1.0
    } else if mean < 0.5 {
        0.0
    } else {
        0.5
    };
    Some(EloEstimate {
        // `+ 0.0` turns -0.0 into 0.0 for display.
        elo: elo_from_score(mean) + 0.0,
        margin: (hi - lo) / 2.0,
        low: (score_lo > 0.0).then_some(lo),
        high: (score_hi < 1.0).then_some(hi),
        los,
    })
}

/// Elo from single games (trinomial model).
pub fn elo_trinomial(wdl: &Wdl) -> Option<EloEstimate> {
    estimate(&wdl.distribution(), wdl.games() as f64)
}

/// Elo from game pairs (pentanomial model), which accounts for the
/// correlation of the two games of an opening.
pub fn elo_pentanomial(p: &Pentanomial) -> Option<EloEstimate> {
    estimate(&p.distribution(), p.pairs() as f64)
}

/// The standard normal distribution function.
pub fn phi(x: f64) -> f64 {
    0.5 * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-x * x).exp();
    sign * y
}

/// SPRT settings: H0 elo ≤ elo0 against H1 elo ≥ elo1 (logistic Elo).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// An SPRT's state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtState {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
}

impl SprtState {
    /// `Some(true)`: H1 accepted; `Some(false)`: H0 accepted; `None`: go on.
    pub fn verdict(&self) -> Option<bool> {
        if self.llr >= self.upper {
            Some(true)
        } else if self.llr <= self.lower {
            Some(false)
        } else {
            None
        }
    }
}

impl Sprt {
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The generalized SPRT log-likelihood ratio under the normal
    /// approximation, from per-sample results (games or pairs). The counts
    /// are regularised with one pseudo-sample spread evenly over the
    /// outcomes, so that a run of identical samples (every pair split 1-1,
    /// every game won) cannot make the variance zero and the ratio infinite.
    fn llr(&self, dist: &[(f64, f64)], samples: f64) -> f64 {
        if samples < 1.0 {
            return 0.0;
        }
        let (mean, var) = mean_var(&regularised(dist, samples));
        let s0 = score_from_elo(self.elo0);
        let s1 = score_from_elo(self.elo1);
        samples * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    pub fn state_trinomial(&self, wdl: &Wdl) -> SprtState {
        let (lower, upper) = self.bounds();
        SprtState {
            llr: self.llr(&wdl.distribution(), wdl.games() as f64),
            lower,
            upper,
        }
    }

    pub fn state_pentanomial(&self, p: &Pentanomial) -> SprtState {
        let (lower, upper) = self.bounds();
        SprtState {
            llr: self.llr(&p.distribution(), p.pairs() as f64),
            lower,
            upper,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        assert!(close(elo_from_score(0.5), 0.0, 1e-9));
        assert!(close(elo_from_score(0.75), 190.848, 1e-3));
        assert!(close(elo_from_score(0.25), -190.848, 1e-3));
        assert!(close(score_from_elo(100.0), 0.640065, 1e-6));
    }

    #[test]
    fn trinomial_interval_and_los() {
        // 60 wins, 20 draws, 20 losses: score 0.7, Elo 147.2.
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = elo_trinomial(&wdl).unwrap();
        assert!(close(e.elo, 147.19, 0.01), "{e:?}");
        // var = 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16 (0.1606 with the
        // prior of one pseudo-game); stderr 0.04: interval elo(0.7 ±
        // 0.0785) = 86.0 .. 218.3, half-width 66.1.
        assert!(close(e.margin, 66.11, 0.05), "{e:?}");
        assert!(
            close(e.low.unwrap(), 86.1, 0.1) && close(e.high.unwrap(), 218.4, 0.1),
            "{e:?}"
        );
        assert!(e.los > 0.9999);
        // Nearly every pair won: the score's interval passes 1, so the
        // upper end is unbounded (a symmetric ± was meaningless there).
        let lopsided = Pentanomial([0, 0, 1, 0, 9]);
        let e = elo_pentanomial(&lopsided).unwrap();
        assert!(e.high.is_none() && e.low.is_some(), "{e:?}");
        let even = Wdl {
            wins: 10,
            draws: 0,
            losses: 10,
        };
        assert!(close(elo_trinomial(&even).unwrap().los, 0.5, 1e-9));
    }

    #[test]
    fn erf_matches_tables() {
        assert!(close(erf(0.5), 0.520_499_9, 1e-6));
        assert!(close(erf(1.0), 0.842_700_8, 1e-6));
        assert!(close(phi(1.959964), 0.975, 1e-5));
    }

    #[test]
    fn sprt_llr_for_a_pentanomial_count() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_439, 1e-5) && close(hi, 2.944_439, 1e-5));
        // Pairs: [0, 0.5, 1, 1.5, 2] scores with counts 10, 40, 100, 40, 10
        // (plus the prior, 0.2 each): symmetric, mean 0.5, so the LLR is
        // negative: n (s1-s0)(1-s0-s1)/(2 var).
        let p = Pentanomial([10, 40, 100, 40, 10]);
        let st = sprt.state_pentanomial(&p);
        let s0 = 0.5;
        let s1 = score_from_elo(10.0);
        let var = (10.2 * 0.25 + 40.2 * 0.0625 + 40.2 * 0.0625 + 10.2 * 0.25) / 201.0;
        let expected = 200.0 * (s1 - s0) * (1.0 - s0 - s1) / (2.0 * var);
        assert!(close(st.llr, expected, 1e-9), "{st:?} {expected}");
        assert!(close(st.llr, -0.411, 0.001), "{st:?}");
        assert_eq!(st.verdict(), None);
        // All wins: decided despite zero variance, but not at once.
        let all = Pentanomial([0, 0, 0, 0, 20]);
        assert_eq!(sprt.state_pentanomial(&all).verdict(), Some(true));
        let few = Pentanomial([0, 0, 0, 0, 3]);
        assert_eq!(sprt.state_pentanomial(&few).verdict(), None);
        // Every pair split 1-1: no verdict after a few pairs (the LLR was
        // minus infinity after one), H0 only after many.
        for pairs in [1, 5, 20] {
            let split = Pentanomial([0, 0, pairs, 0, 0]);
            let st = sprt.state_pentanomial(&split);
            assert!(
                st.llr.is_finite() && st.verdict().is_none(),
                "{pairs}: {st:?}"
            );
        }
        let many = Pentanomial([0, 0, 400, 0, 0]);
        assert_eq!(sprt.state_pentanomial(&many).verdict(), Some(false));
        // A strong first engine is accepted.
        let strong = Pentanomial([0, 5, 50, 100, 100]);
        assert_eq!(sprt.state_pentanomial(&strong).verdict(), Some(true));
    }

    #[test]
    fn pentanomial_elo() {
        // Ten split pairs: Elo 0, and an interval that is not zero wide.
        let p = Pentanomial([0, 0, 10, 0, 0]);
        let e = elo_pentanomial(&p).unwrap();
        assert!(close(e.elo, 0.0, 1e-9) && e.margin > 10.0, "{e:?}");
        assert_eq!(format!("{:+.1}", e.elo), "+0.0");
        let mut q = Pentanomial::default();
        q.add(1.0, 0.5);
        q.add(0.0, 0.0);
        assert_eq!(q.0, [1, 0, 0, 1, 0]);
    }
}
