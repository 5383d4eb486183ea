//! `konakis wdl`: fitting the win–draw–loss model ([`crate::search::wdl`])
//! to games and showing how well it is calibrated.
//!
//! `label` searches every position of a file of games with the review's
//! searcher (so the model describes exactly the scores a review reads) and
//! writes one line a position: the game, the ply, the side to move, the
//! score and the game's result. `fit` reads label files, holds out whole
//! games, fits the model by maximum likelihood (Adam over the full batch,
//! sums in a fixed order: the same labels and seed give the same numbers)
//! and reports log loss, Brier score, Brier skill over the base rate and a
//! reliability table on the held-out games, with a reliability diagram as
//! SVG.

use super::data::{rules_from_text, GameResult};
use crate::review::{judge_all, line_games, Budget};
use crate::rules::{Game, Move, Rules, Side};
use crate::search::eval::learned::Family;
use crate::search::wdl::{WdlInputs, WdlModel, WdlParams};
use crate::search::WIN_BOUND;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::AtomicBool;

/// One labelled position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    /// Which game (the label file's index, then the game's number in it).
    pub game: (usize, u32),
    pub ply: u32,
    pub side: Side,
    /// The search's score for the side to move.
    pub score: i32,
    pub result: GameResult,
}

impl Label {
    fn inputs(&self) -> WdlInputs {
        WdlInputs::of(self.score, self.side, self.ply)
    }

    fn proven(&self) -> bool {
        self.score.abs() >= WIN_BOUND
    }

    /// The defenders' share of the game's points.
    fn outcome(&self) -> f64 {
        self.result.defenders_score()
    }
}

/// What `konakis wdl label` is asked for.
#[derive(Clone, Debug)]
pub struct LabelConfig {
    pub games: String,
    /// The rules as text (`copenhagen`, `tablut NoCaptureLimit=80`).
    pub rules_text: String,
    pub budget: Budget,
    pub workers: usize,
    /// At most this many games (the first of the file).
    pub limit: Option<usize>,
    pub out: String,
    pub command: String,
}

/// What a label run did.
pub struct LabelReport {
    pub games: usize,
    pub positions: usize,
    /// Games left out: no result, other rules, or unreadable.
    pub skipped: usize,
    /// Games left out as repeats of an earlier game of the file (a match
    /// of an engine against itself plays each opening's pair alike).
    pub repeats: usize,
}

const LABEL_HEADER: &str = "game\tply\tside\tscore\tresult";

fn result_word(r: GameResult) -> &'static str {
    match r {
        GameResult::AttackersWon => "a",
        GameResult::DefendersWon => "d",
        GameResult::Draw => "draw",
    }
}

/// Searches every position of every game with a result and writes the
/// labels, a batch of games at a time (so a long run shows its progress
/// and leaves what it has done).
pub fn label(cfg: &LabelConfig, progress: impl Fn(&str)) -> Result<LabelReport, String> {
    let rules = rules_from_text(&cfg.rules_text)?;
    let text = std::fs::read_to_string(&cfg.games).map_err(|e| format!("{}: {e}", cfg.games))?;
    let read =
        crate::records::import::read_games(&text).map_err(|e| format!("{}: {e}", cfg.games))?;
    let mut report = LabelReport {
        games: 0,
        positions: 0,
        skipped: read.errors.len(),
        repeats: 0,
    };
    let mut seen = std::collections::HashSet::new();
    // (game number, the games along it, its result)
    let mut lines: Vec<(u32, Vec<Game>, GameResult)> = Vec::new();
    for (number, g) in read.games.iter().enumerate() {
        if cfg.limit.is_some_and(|n| number >= n) {
            break;
        }
        let Some(result) = &g.result else {
            report.skipped += 1;
            continue;
        };
        let result = GameResult::from_winner(result.winner);
        if g.rules.as_ref().is_some_and(|r| *r != rules) {
            report.skipped += 1;
            continue;
        }
        let Ok(replayed) = g.replay(&rules) else {
            report.skipped += 1;
            continue;
        };
        let start = Game::from_start(rules.clone(), &g.start)?;
        let moves: Vec<Move> = replayed.game.moves().to_vec();
        // A repeated game would sit in two folds of the fit at once.
        if !seen.insert((start.position().hash(), moves.clone(), result)) {
            report.repeats += 1;
            continue;
        }
        let mut games = line_games(&start, &moves)?;
        // The last position of a game the rules ended needs no search.
        games.retain(|game| game.outcome().is_none());
        lines.push((number as u32, games, result));
    }
    let mut file = std::fs::File::create(&cfg.out).map_err(|e| format!("{}: {e}", cfg.out))?;
    let mut head = format!(
        "# konakis wdl labels; rules: {}; budget: {}\n# made by: {}\n{LABEL_HEADER}\n",
        cfg.rules_text, cfg.budget, cfg.command
    );
    head = head.replace("\r", "");
    file.write_all(head.as_bytes())
        .map_err(|e| format!("{}: {e}", cfg.out))?;
    let stop = AtomicBool::new(false);
    let total: usize = lines.iter().map(|(_, g, _)| g.len()).sum();
    let started = std::time::Instant::now();
    for batch in lines.chunks(64) {
        let games: Vec<Game> = batch
            .iter()
            .flat_map(|(_, g, _)| g.iter().cloned())
            .collect();
        let judged = judge_all(&games, cfg.budget, cfg.workers, &stop, &|_, _| {})?
            .ok_or("the search was stopped")?;
        let mut out = String::new();
        let mut at = 0;
        for (number, games, result) in batch {
            for game in games {
                let j = &judged[at];
                at += 1;
                let side = if j.side == Side::Attackers { "a" } else { "d" };
                let score = j.score.unwrap_or(0);
                let _ = writeln!(
                    out,
                    "{number}\t{}\t{side}\t{score}\t{}",
                    game.position().ply,
                    result_word(*result)
                );
            }
        }
        file.write_all(out.as_bytes())
            .map_err(|e| format!("{}: {e}", cfg.out))?;
        report.games += batch.len();
        report.positions += games.len();
        progress(&format!(
            "{} of {} games, {} of {total} positions, {:.0} s",
            report.games,
            lines.len(),
            report.positions,
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(report)
}

/// A label file read back.
pub struct LabelFile {
    pub rules_text: String,
    pub budget: String,
    /// The command that wrote it.
    pub made_by: String,
    pub labels: Vec<Label>,
}

/// Reads a label file (`index` tells its games from other files').
pub fn read_labels(path: &str, index: usize) -> Result<LabelFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut rules_text = None;
    let mut budget = String::new();
    let mut made_by = String::new();
    let mut labels = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |e: String| format!("{path}:{}: {e}", i + 1);
        if let Some(comment) = line.strip_prefix('#') {
            if let Some(m) = comment.trim().strip_prefix("made by:") {
                made_by = m.trim().to_string();
                continue;
            }
            for part in comment.split(';') {
                if let Some(r) = part.trim().strip_prefix("rules:") {
                    rules_text = Some(r.trim().to_string());
                }
                if let Some(b) = part.trim().strip_prefix("budget:") {
                    budget = b.trim().to_string();
                }
            }
            continue;
        }
        if line.trim().is_empty() || line == LABEL_HEADER {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [game, ply, side, score, result] = f.as_slice() else {
            return Err(at("expected five tab-separated fields".into()));
        };
        let number = |s: &str, what: &str| {
            s.parse::<i64>()
                .map_err(|_| at(format!("bad {what} '{s}'")))
        };
        labels.push(Label {
            game: (
                index,
                number(game, "game")?.clamp(0, u32::MAX as i64) as u32,
            ),
            ply: number(ply, "ply")?.clamp(0, u32::MAX as i64) as u32,
            side: match *side {
                "a" => Side::Attackers,
                "d" => Side::Defenders,
                _ => return Err(at(format!("bad side '{side}'"))),
            },
            score: number(score, "score")?
                .clamp(-crate::search::WIN as i64, crate::search::WIN as i64)
                as i32,
            result: match *result {
                "a" => GameResult::AttackersWon,
                "d" => GameResult::DefendersWon,
                "draw" => GameResult::Draw,
                _ => return Err(at(format!("bad result '{result}'"))),
            },
        });
    }
    Ok(LabelFile {
        rules_text: rules_text.ok_or_else(|| format!("{path}: no '# … rules: …' header"))?,
        budget,
        made_by,
        labels,
    })
}

/// Which parameters a fit may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelForm {
    /// The score alone: where the sides are even, the scale and draws.
    ScoreOnly,
    /// Every parameter of the model.
    Full,
}

impl ModelForm {
    fn free(self) -> [bool; 6] {
        match self {
            ModelForm::ScoreOnly => [true, false, false, true, false, true],
            ModelForm::Full => [true; 6],
        }
    }
}

/// The parameters in the units the optimiser moves: soldiers rather than
/// centi-soldiers for the even point, so that every step has a like size.
const UNITS: [f64; 6] = [100.0, 100.0, 100.0, 1.0, 1.0, 1.0];
/// The draw band's logarithm is kept above this (a family with no draws
/// would otherwise walk it off to minus infinity).
const MIN_LN_DRAW: f64 = -12.0;
/// The smallest probability a log loss counts (a proven result that did
/// not happen would otherwise cost infinity).
const FLOOR: f64 = 1e-3;

/// The mean negative log-likelihood of the labels under `p`, and its
/// gradient in optimiser units.
fn loss_and_gradient(p: &WdlParams, labels: &[&Label]) -> (f64, [f64; 6]) {
    let mut loss = 0.0;
    let mut grad = [0.0; 6];
    for l in labels {
        let x = l.inputs();
        let (z, w) = p.latent(&x);
        let t = f64::from(x.ply.min(crate::search::wdl::PLY_CAP)) / 100.0;
        let d = f64::from(u8::from(x.side_to_move == Side::Defenders));
        let s = (p.ln_scale + p.ln_scale_per_100_plies * t).exp();
        let pd = 1.0 / (1.0 + (w - z).exp());
        let pa = 1.0 / (1.0 + (w + z).exp());
        let pdraw = (1.0 - pd - pa).max(1e-12);
        let (prob, dz, dw) = match l.result {
            GameResult::DefendersWon => (pd, -(1.0 - pd), 1.0 - pd),
            GameResult::AttackersWon => (pa, 1.0 - pa, 1.0 - pa),
            GameResult::Draw => (
                pdraw,
                (pd * (1.0 - pd) - pa * (1.0 - pa)) / pdraw,
                -(pd * (1.0 - pd) + pa * (1.0 - pa)) / pdraw,
            ),
        };
        loss -= prob.max(1e-12).ln();
        let dz_dp = [-1.0 / s, -d / s, -t / s, -z, -z * t];
        for k in 0..5 {
            grad[k] += dz * dz_dp[k] * UNITS[k];
        }
        grad[5] += dw * w;
    }
    let n = labels.len().max(1) as f64;
    (loss / n, grad.map(|g| g / n))
}

/// Fits the model to the labels by maximum likelihood from `start`.
pub fn fit(labels: &[&Label], form: ModelForm, start: WdlParams, steps: usize) -> WdlParams {
    let free = form.free();
    let mut v: [f64; 6] = std::array::from_fn(|k| start.to_array()[k] / UNITS[k]);
    let (mut m, mut s2) = ([0.0; 6], [0.0; 6]);
    let (b1, b2, rate) = (0.9, 0.999, 0.02);
    let mut best = (f64::INFINITY, v);
    for step in 1..=steps {
        let p = params_of(&v);
        let (loss, g) = loss_and_gradient(&p, labels);
        if loss < best.0 {
            best = (loss, v);
        }
        for k in 0..6 {
            if !free[k] {
                continue;
            }
            m[k] = b1 * m[k] + (1.0 - b1) * g[k];
            s2[k] = b2 * s2[k] + (1.0 - b2) * g[k] * g[k];
            let mh = m[k] / (1.0 - b1.powi(step as i32));
            let sh = s2[k] / (1.0 - b2.powi(step as i32));
            // The rate falls to a tenth over the run, to settle.
            let r = rate * (1.0 - 0.9 * step as f64 / steps as f64);
            v[k] -= r * mh / (sh.sqrt() + 1e-12);
        }
        v[5] = v[5].max(MIN_LN_DRAW);
    }
    let p = params_of(&v);
    if loss_and_gradient(&p, labels).0 < best.0 {
        p
    } else {
        params_of(&best.1)
    }
}

fn params_of(v: &[f64; 6]) -> WdlParams {
    WdlParams::from_array(std::array::from_fn(|k| v[k] * UNITS[k]))
}

/// The defenders' expected score a model gives a label (a proven result
/// is certain).
pub fn predicted(p: &WdlParams, l: &Label) -> [f64; 3] {
    if l.proven() {
        let defenders_win = (l.score > 0) == (l.side == Side::Defenders);
        return if defenders_win {
            [0.0, 0.0, 1.0]
        } else {
            [1.0, 0.0, 0.0]
        };
    }
    let c = p.chances(&l.inputs());
    [c.attackers, c.draw, c.defenders]
}

/// How well a model's chances foretell the results.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    pub positions: usize,
    pub games: usize,
    /// Mean −ln of the chance given to what happened (chances floored at
    /// 0.001).
    pub log_loss: f64,
    /// Mean squared error of the defenders' expected score.
    pub brier: f64,
    /// The same for always saying the base rate (the fit set's mean).
    pub brier_base: f64,
    /// 1 − brier / brier_base.
    pub skill: f64,
    /// Expected calibration error over the bins: the count-weighted mean
    /// gap between what was predicted and what happened.
    pub calibration_error: f64,
    /// Equal-count bins by prediction: (mean predicted, mean observed,
    /// positions).
    pub bins: Vec<(f64, f64, usize)>,
}

/// One prediction to measure: the chances given (attackers, draw,
/// defenders), what happened, the base rate it is compared with, and its
/// game.
#[derive(Clone, Copy, Debug)]
pub struct Scored {
    pub chances: [f64; 3],
    pub result: GameResult,
    pub base: f64,
    pub game: (usize, u32),
}

/// A model's predictions of some labels, with the base rate `base`.
pub fn score_labels(p: &WdlParams, labels: &[&Label], base: f64) -> Vec<Scored> {
    labels
        .iter()
        .map(|l| Scored {
            chances: predicted(p, l),
            result: l.result,
            base,
            game: l.game,
        })
        .collect()
}

/// Measures predictions in `bins` equal-count bins.
pub fn calibration(predictions: &[Scored], bins: usize) -> Calibration {
    let mut scored: Vec<(f64, f64, f64, f64)> = predictions
        .iter()
        .map(|s| {
            let c = s.chances;
            let happened = match s.result {
                GameResult::AttackersWon => c[0],
                GameResult::Draw => c[1],
                GameResult::DefendersWon => c[2],
            };
            (
                c[2] + 0.5 * c[1],
                s.result.defenders_score(),
                happened,
                s.base,
            )
        })
        .collect();
    let n = scored.len().max(1) as f64;
    let log_loss = scored.iter().map(|s| -s.2.max(FLOOR).ln()).sum::<f64>() / n;
    let brier = scored.iter().map(|s| (s.0 - s.1).powi(2)).sum::<f64>() / n;
    let brier_base = scored.iter().map(|s| (s.3 - s.1).powi(2)).sum::<f64>() / n;
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut out_bins = Vec::new();
    let mut error = 0.0;
    let count = scored.len();
    for b in 0..bins {
        let (lo, hi) = (b * count / bins, (b + 1) * count / bins);
        let slice = &scored[lo..hi];
        if slice.is_empty() {
            continue;
        }
        let k = slice.len() as f64;
        let pred = slice.iter().map(|s| s.0).sum::<f64>() / k;
        let obs = slice.iter().map(|s| s.1).sum::<f64>() / k;
        error += k / n * (pred - obs).abs();
        out_bins.push((pred, obs, slice.len()));
    }
    let mut games: Vec<(usize, u32)> = predictions.iter().map(|s| s.game).collect();
    games.sort_unstable();
    games.dedup();
    Calibration {
        positions: count,
        games: games.len(),
        log_loss,
        brier,
        brier_base,
        skill: if brier_base > 0.0 {
            1.0 - brier / brier_base
        } else {
            0.0
        },
        calibration_error: error,
        bins: out_bins,
    }
}

/// Which of `folds` folds a game falls in: a hash of its id and the seed,
/// so a game's fold does not depend on what else is in the files.
pub fn fold_of(game: (usize, u32), seed: u64, folds: usize) -> usize {
    let mut h = seed ^ 0x9E37_79B9_7F4A_7C15;
    for v in [game.0 as u64, u64::from(game.1)] {
        h = (h ^ v).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 31;
    }
    (h % folds.max(1) as u64) as usize
}

/// What `konakis wdl fit` is asked for.
#[derive(Clone, Debug)]
pub struct FitConfig {
    pub labels: Vec<String>,
    /// Folds of whole games: each fold is predicted by a model fitted on
    /// the others, and every figure is measured on those predictions.
    pub folds: usize,
    pub seed: u64,
    pub steps: usize,
    pub bins: usize,
}

/// One model's figures.
pub struct ModelReport {
    pub name: &'static str,
    /// Fitted on every game (the numbers to embed).
    pub params: WdlParams,
    /// Measured on held-out games: each game predicted by a model fitted
    /// without it (the naive and embedded models are not fitted: they
    /// are measured on every game as they are).
    pub held_out: Calibration,
    /// Measured on the games it was fitted on.
    pub fit_set: Calibration,
}

/// A fit and its figures.
pub struct FitReport {
    pub family: Family,
    pub rules_text: String,
    pub budget: String,
    /// The commands that labelled the games.
    pub labelled_by: Vec<String>,
    pub positions: usize,
    pub games: usize,
    /// The defenders' mean score over every position.
    pub base: f64,
    /// Results of the games: attackers, defenders, draws.
    pub results: [usize; 3],
    pub models: Vec<ModelReport>,
    /// The form to embed: the full model unless the score-only one
    /// predicts held-out games better (by log loss, what the fit
    /// minimises), as when the plies of a few hundred games let the full
    /// form's ply terms run wild.
    pub chosen: &'static str,
}

impl FitReport {
    /// A model's figures by name.
    pub fn model(&self, name: &str) -> Option<&ModelReport> {
        self.models.iter().find(|m| m.name == name)
    }
}

/// The naive reading of a score: 0 means even, 400 centi-soldiers mean 10
/// to 1 (the scale the learned evaluation is trained on), no draws.
pub const NAIVE: WdlParams = WdlParams {
    even: 0.0,
    even_defenders_to_move: 0.0,
    even_per_100_plies: 0.0,
    ln_scale: 5.157_668_5, // ln(400 / ln 10)
    ln_scale_per_100_plies: 0.0,
    ln_draw: MIN_LN_DRAW,
};

/// Where every fit starts.
const START: WdlParams = WdlParams {
    ln_draw: -3.0,
    ..NAIVE
};

/// The score-only fit, then the full fit from it.
fn fit_both(labels: &[&Label], steps: usize) -> (WdlParams, WdlParams) {
    let trainable: Vec<&Label> = labels.iter().copied().filter(|l| !l.proven()).collect();
    let score_only = fit(&trainable, ModelForm::ScoreOnly, START, steps);
    let full = fit(&trainable, ModelForm::Full, score_only, steps);
    (score_only, full)
}

fn mean_outcome(labels: &[&Label]) -> f64 {
    labels.iter().map(|l| l.outcome()).sum::<f64>() / labels.len().max(1) as f64
}

/// Label files read together: one board family, one budget.
struct LabelSet {
    family: Family,
    rules_text: String,
    budget: String,
    labelled_by: Vec<String>,
    labels: Vec<Label>,
}

/// Reads label files, refusing a mix of families or budgets.
fn read_label_set(paths: &[String]) -> Result<LabelSet, String> {
    let mut all = Vec::new();
    let mut labelled_by = Vec::new();
    let (mut family, mut rules_text, mut budget): (Option<Family>, String, String) =
        (None, String::new(), String::new());
    for (i, path) in paths.iter().enumerate() {
        let f = read_labels(path, i)?;
        let rules: Rules = rules_from_text(&f.rules_text).map_err(|e| format!("{path}: {e}"))?;
        let fam = Family::of(&rules);
        if family.is_some_and(|known| known != fam) {
            return Err(format!(
                "{path}: rules of the {} family, not {}",
                fam.name(),
                family.map_or("", Family::name)
            ));
        }
        if i > 0 && f.budget != budget {
            return Err(format!("{path}: budget {}, not {budget}", f.budget));
        }
        family = Some(fam);
        labelled_by.push(f.made_by.clone());
        if i == 0 {
            rules_text = f.rules_text.clone();
            budget = f.budget.clone();
        } else if !rules_text.split(", ").any(|r| r == f.rules_text) {
            rules_text = format!("{rules_text}, {}", f.rules_text);
        }
        all.extend(f.labels);
    }
    Ok(LabelSet {
        family: family.ok_or("no label files")?,
        rules_text,
        budget,
        labelled_by,
        labels: all,
    })
}

/// The games among the labels, and their results: attackers, defenders,
/// draws.
fn count_games(labels: &[&Label]) -> (usize, [usize; 3]) {
    let mut games: Vec<((usize, u32), GameResult)> =
        labels.iter().map(|l| (l.game, l.result)).collect();
    games.sort_by_key(|g| g.0);
    games.dedup_by_key(|g| g.0);
    let mut results = [0; 3];
    for g in &games {
        results[match g.1 {
            GameResult::AttackersWon => 0,
            GameResult::DefendersWon => 1,
            GameResult::Draw => 2,
        }] += 1;
    }
    (games.len(), results)
}

/// Reads the label files and fits the score-only and the full model on
/// every game; measures them by cross-validation over whole games, beside
/// the embedded model and the naive reading.
pub fn run_fit(cfg: &FitConfig) -> Result<FitReport, String> {
    if !(2..=20).contains(&cfg.folds) {
        return Err(format!("--folds must be 2 to 20, not {}", cfg.folds));
    }
    if cfg.labels.is_empty() {
        return Err("no label files".into());
    }
    let set = read_label_set(&cfg.labels)?;
    let labels: Vec<&Label> = set.labels.iter().collect();
    if labels.is_empty() {
        return Err("no positions to fit".into());
    }
    let (games, results) = count_games(&labels);
    let family = set.family;
    // Out-of-fold predictions: each fold by the models fitted on the rest.
    let (mut naive, mut embedded_held, mut score_held, mut full_held) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let embedded = WdlModel::for_family(family).params;
    for k in 0..cfg.folds {
        let (rest, fold): (Vec<&Label>, Vec<&Label>) = labels
            .iter()
            .partition(|l| fold_of(l.game, cfg.seed, cfg.folds) != k);
        if rest.is_empty() || fold.is_empty() {
            continue;
        }
        let base = mean_outcome(&rest);
        let (score_only, full) = fit_both(&rest, cfg.steps);
        naive.extend(score_labels(&NAIVE, &fold, base));
        embedded_held.extend(score_labels(&embedded, &fold, base));
        score_held.extend(score_labels(&score_only, &fold, base));
        full_held.extend(score_labels(&full, &fold, base));
    }
    let base = mean_outcome(&labels);
    let (score_only, full) = fit_both(&labels, cfg.steps);
    let report = |name, params: WdlParams, held: &[Scored]| ModelReport {
        name,
        params,
        held_out: calibration(held, cfg.bins),
        fit_set: calibration(&score_labels(&params, &labels, base), cfg.bins),
    };
    let models = vec![
        report("naive", NAIVE, &naive),
        report("embedded", embedded, &embedded_held),
        report("score only", score_only, &score_held),
        report("full", full, &full_held),
    ];
    let chosen = if models[3].held_out.log_loss <= models[2].held_out.log_loss {
        models[3].name
    } else {
        models[2].name
    };
    Ok(FitReport {
        chosen,
        family,
        rules_text: set.rules_text,
        budget: set.budget,
        labelled_by: set.labelled_by,
        positions: labels.len(),
        games,
        base,
        results,
        models,
    })
}

/// The diagram's size and margin, in pixels.
const SVG_SIZE: f64 = 520.0;
const SVG_MARGIN: f64 = 60.0;

/// A reliability diagram: predicted against observed, one dot a bin (the
/// bins hold equal counts), a line per model named; the diagonal is
/// perfect.
pub fn reliability_svg(title: &str, curves: &[(&str, &Calibration)]) -> String {
    let (h, m) = (SVG_SIZE, SVG_MARGIN);
    let side = SVG_SIZE - 2.0 * m;
    let x = |p: f64| m + p * side;
    let y = |p: f64| h - m - p * side;
    let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];
    let mut s = svg_frame(title);
    for (i, (name, c)) in curves.iter().enumerate() {
        let colour = colours[i % colours.len()];
        let total = c.positions.max(1) as f64;
        let points: Vec<String> = c
            .bins
            .iter()
            .map(|b| format!("{:.1},{:.1}", x(b.0), y(b.1)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="1.5"/>"#,
            points.join(" ")
        );
        for b in &c.bins {
            // Equal-count bins: every dot weighs the same.
            let r = if b.2 as f64 >= total / c.bins.len().max(1) as f64 / 2.0 {
                5.0
            } else {
                3.0
            };
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="{colour}" fill-opacity="0.35" stroke="{colour}"/>"#,
                x(b.0),
                y(b.1)
            );
        }
        let ly = m + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="12" height="12" fill="{colour}"/><text x="{}" y="{}">{} (calibration error {:.3}, Brier skill {:.3})</text>"#,
            m + 8.0,
            ly - 10.0,
            m + 26.0,
            ly,
            escape(name),
            c.calibration_error,
            c.skill
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The diagram's page: title, grid, axes and their labels, the diagonal.
fn svg_frame(title: &str) -> String {
    let (w, h, m) = (SVG_SIZE, SVG_SIZE, SVG_MARGIN);
    let side = w - 2.0 * m;
    let x = |p: f64| m + p * side;
    let y = |p: f64| h - m - p * side;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r##"<rect width="{w}" height="{h}" fill="#fff"/>"##);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        w / 2.0,
        escape(title)
    );
    for i in 0..=10 {
        let v = i as f64 / 10.0;
        let _ = writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#eee"/><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#eee"/>"##,
            x(v),
            y(0.0),
            x(v),
            y(1.0),
            x(0.0),
            y(v),
            x(1.0),
            y(v)
        );
        if i % 2 == 0 {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" text-anchor="middle">{v:.1}</text><text x="{}" y="{}" text-anchor="end">{v:.1}</text>"#,
                x(v),
                y(0.0) + 18.0,
                x(0.0) - 6.0,
                y(v) + 4.0
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#888" stroke-dasharray="4 4"/>"##,
        x(0.0),
        y(0.0),
        x(1.0),
        y(1.0)
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">predicted: the defenders' expected score</text>"#,
        w / 2.0,
        h - 18.0
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{}" text-anchor="middle" transform="rotate(-90 18 {})">observed: the defenders' score</text>"#,
        h / 2.0,
        h / 2.0
    );
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels drawn from a known model: the fit finds it again, and gives
    /// the same numbers twice.
    #[test]
    fn the_fit_recovers_a_known_model_and_repeats() {
        use rand::{Rng, SeedableRng};
        let truth = WdlParams {
            even: -150.0,
            even_defenders_to_move: 40.0,
            even_per_100_plies: 60.0,
            ln_scale: 5.0,
            ln_scale_per_100_plies: -0.3,
            ln_draw: -1.5,
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let labels: Vec<Label> = (0..20_000)
            .map(|i| {
                let side = if rng.gen_bool(0.5) {
                    Side::Attackers
                } else {
                    Side::Defenders
                };
                let mut l = Label {
                    game: (0, i),
                    ply: rng.gen_range(0..200),
                    side,
                    score: rng.gen_range(-800..800),
                    result: GameResult::Draw,
                };
                let c = truth.chances(&l.inputs());
                let u: f64 = rng.gen();
                l.result = if u < c.attackers {
                    GameResult::AttackersWon
                } else if u < c.attackers + c.draw {
                    GameResult::Draw
                } else {
                    GameResult::DefendersWon
                };
                l
            })
            .collect();
        let refs: Vec<&Label> = labels.iter().collect();
        let start = WdlParams {
            ln_draw: -3.0,
            ..NAIVE
        };
        let a = fit(&refs, ModelForm::Full, start, 1500);
        let b = fit(&refs, ModelForm::Full, start, 1500);
        assert_eq!(a, b, "the same labels give the same numbers");
        assert!((a.even - truth.even).abs() < 25.0, "{a:?}");
        assert!(
            (a.even_per_100_plies - truth.even_per_100_plies).abs() < 30.0,
            "{a:?}"
        );
        assert!((a.ln_scale - truth.ln_scale).abs() < 0.15, "{a:?}");
        assert!((a.ln_draw - truth.ln_draw).abs() < 0.2, "{a:?}");
        let c = calibration(&score_labels(&a, &refs, 0.5), 10);
        assert!(c.calibration_error < 0.03, "{c:?}");
        assert!(c.skill > 0.0, "{c:?}");
        let fitted = loss_and_gradient(&a, &refs).0;
        assert!(fitted <= loss_and_gradient(&truth, &refs).0 + 1e-3);
    }

    #[test]
    fn folds_are_whole_games_and_stable() {
        let folds: Vec<usize> = (0..1000).map(|g| fold_of((0, g), 7, 4)).collect();
        for k in 0..4 {
            let n = folds.iter().filter(|f| **f == k).count();
            assert!((200..300).contains(&n), "fold {k}: {n}");
        }
        assert_eq!(
            folds,
            (0..1000).map(|g| fold_of((0, g), 7, 4)).collect::<Vec<_>>()
        );
    }
}
