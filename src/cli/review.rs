//! `konakis wdl` (label games, fit the win–draw–loss model, show its
//! calibration) and `konakis review` (a game's moves judged by the winning
//! chances they gave away).

use super::{command_line, RuleArgs};
use crate::learn::wdl::{self, Calibration, FitConfig, LabelConfig};
use crate::review::{Budget, STANDARD_BUDGET};
use crate::rules::{Game, Move, Side};
use clap::{Args, Subcommand};

#[derive(Args, Debug)]
pub struct WdlArgs {
    #[command(subcommand)]
    pub action: WdlAction,
}

#[derive(Subcommand, Debug)]
pub enum WdlAction {
    /// Search every position of a file of games (the review's searcher, at a
    /// fixed budget) and write one labelled line a position.
    Label(WdlLabelArgs),
    /// Fit the model to label files, holding out whole games, and report its
    /// calibration (log loss, Brier skill, reliability table).
    Fit(WdlFitArgs),
}

#[derive(Args, Debug)]
pub struct WdlLabelArgs {
    /// Game records: the runner's, OpenTafl's, or comma-separated people's
    /// games (../shared/cases/real/). Games without a result are left out.
    #[arg(long)]
    pub games: String,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// What each position is searched to: nodes:N, depth:N or movetime:MS.
    #[arg(long, default_value_t = STANDARD_BUDGET)]
    pub budget: Budget,
    /// Positions searched at once (one thread each) [default: every core].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Only the first N games of the file.
    #[arg(long)]
    pub limit: Option<usize>,
    /// The label file to write.
    #[arg(long)]
    pub out: String,
}

#[derive(Args, Debug)]
pub struct WdlFitArgs {
    /// Label files written by `konakis wdl label` (one board family, one budget).
    #[arg(long = "labels", required = true, num_args = 1..)]
    pub labels: Vec<String>,
    /// Folds of whole games for the held-out figures: each fold is predicted
    /// by a model fitted on the others.
    #[arg(long, default_value_t = 4)]
    pub folds: usize,
    /// Seed of the split into folds.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Steps of gradient descent.
    #[arg(long, default_value_t = 3000)]
    pub steps: usize,
    /// Equal-count bins of the reliability table.
    #[arg(long, default_value_t = 10)]
    pub bins: usize,
    /// Where to write the fitted model (src/search/wdl/<family>.txt for the engine).
    #[arg(long)]
    pub out: Option<String>,
    /// Which population the games are (written into the model file).
    #[arg(long, default_value = "")]
    pub population: String,
    /// A reliability diagram (SVG) of the held-out games.
    #[arg(long)]
    pub svg: Option<String>,
}

pub fn run_wdl(args: &WdlArgs) -> Result<(), String> {
    match &args.action {
        WdlAction::Label(a) => run_label(a),
        WdlAction::Fit(a) => run_fit(a),
    }
}

fn workers(threads: Option<usize>) -> Result<usize, String> {
    match threads {
        Some(0) => Err("--threads must be at least 1".into()),
        Some(n) => Ok(n.min(crate::search::settings::MAX_THREADS)),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

fn run_label(a: &WdlLabelArgs) -> Result<(), String> {
    let (preset, overrides) = a.rules.parts()?;
    let cfg = LabelConfig {
        games: a.games.clone(),
        rules_text: crate::learn::data::rules_text(preset, &overrides),
        budget: a.budget,
        workers: workers(a.threads)?,
        limit: a.limit,
        out: a.out.clone(),
        command: command_line(),
    };
    let r = wdl::label(&cfg, |line| eprintln!("{line}"))?;
    say!(
        "{} positions of {} games labelled at {} into {} ({} games left out: no result, other rules or unreadable; {} repeats of earlier games)",
        r.positions,
        r.games,
        a.budget,
        a.out,
        r.skipped,
        r.repeats
    );
    Ok(())
}

fn calibration_lines(c: &Calibration) -> String {
    format!(
        "{} positions of {} games: log loss {:.4}, Brier {:.4} (base rate {:.4}), Brier skill {:.3}, calibration error {:.4}",
        c.positions, c.games, c.log_loss, c.brier, c.brier_base, c.skill, c.calibration_error
    )
}

fn run_fit(a: &WdlFitArgs) -> Result<(), String> {
    if a.bins == 0 || a.steps == 0 {
        return Err("--bins and --steps must be at least 1".into());
    }
    let cfg = FitConfig {
        labels: a.labels.clone(),
        folds: a.folds,
        seed: a.seed,
        steps: a.steps,
        bins: a.bins,
    };
    let r = wdl::run_fit(&cfg)?;
    say!(
        "family {} ({}), budget {}: {} positions of {} games (attackers won {}, defenders {}, drawn {}; the defenders' mean score {:.3}); held-out figures by {}-fold cross-validation over whole games (seed {})",
        r.family.name(),
        r.rules_text,
        r.budget,
        r.positions,
        r.games,
        r.results[0],
        r.results[1],
        r.results[2],
        r.base,
        a.folds,
        a.seed
    );
    for m in &r.models {
        say!("\n{}: {}", m.name, params_line(&m.params));
        say!("  held out: {}", calibration_lines(&m.held_out));
        say!("  fit set:  {}", calibration_lines(&m.fit_set));
    }
    let fitted = r.model(r.chosen).ok_or("no fitted model")?;
    say!(
        "\nchosen: {} (the better held-out log loss)\nreliability of the chosen model on held-out games (the defenders' expected score):",
        r.chosen
    );
    say!("  predicted  observed  positions");
    for (pred, obs, n) in &fitted.held_out.bins {
        say!("  {pred:9.3} {obs:9.3} {n:10}");
    }
    if let Some(path) = &a.svg {
        let naive = r.model("naive").ok_or("no naive model")?;
        let title = format!(
            "{} ({}), {}: held-out games",
            r.family.name(),
            r.rules_text,
            r.budget
        );
        let svg = wdl::reliability_svg(
            &title,
            &[
                ("fitted model", &fitted.held_out),
                ("naive reading of the score", &naive.held_out),
            ],
        );
        std::fs::write(path, svg).map_err(|e| format!("{path}: {e}"))?;
        say!("reliability diagram written to {path}");
    }
    if let Some(path) = &a.out {
        let held = &fitted.held_out;
        let header = format!(
            "WDL model of the {} family (see src/search/wdl.rs).\n\
             Population: {}\n\
             Labels: {} at {} per position, the review's searcher, by:\n{}\n\
             Fitted by: {}\n\
             Fitted on {} positions of {} games; the {} form (the better held-out log loss).\n\
             Held out ({}-fold cross-validation over whole games):\n\
             log loss {:.4}, Brier {:.4} (base rate {:.4}), Brier skill {:.3}, calibration error {:.4} ({} bins).",
            r.family.name(),
            if a.population.is_empty() { "(not stated)" } else { &a.population },
            r.rules_text,
            r.budget,
            r.labelled_by
                .iter()
                .map(|c| format!("  {c}"))
                .collect::<Vec<_>>()
                .join("\n"),
            command_line(),
            r.positions,
            r.games,
            r.chosen,
            a.folds,
            held.log_loss,
            held.brier,
            held.brier_base,
            held.skill,
            held.calibration_error,
            a.bins
        );
        std::fs::write(path, fitted.params.file_text(&header))
            .map_err(|e| format!("{path}: {e}"))?;
        say!("model written to {path}");
    }
    Ok(())
}

fn params_line(p: &crate::search::wdl::WdlParams) -> String {
    crate::search::wdl::PARAM_NAMES
        .iter()
        .zip(p.to_array())
        .map(|(n, v)| format!("{n} {v:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// A file of games: the runner's records, OpenTafl's, comma-separated
    /// people's games, or a move list.
    #[arg(long)]
    pub games: String,
    /// Which game of the file (from 1).
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// The rules, when the record names none (default: the record's, else the
    /// first preset that plays every move).
    #[arg(long)]
    pub variant: Option<String>,
    /// Override one rule option (repeatable; needs --variant).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rules: Vec<String>,
    /// What each position is searched to: nodes:N, depth:N (both repeatable
    /// to the node) or movetime:MS (faster to reason about, not repeatable).
    #[arg(long, default_value_t = STANDARD_BUDGET)]
    pub budget: Budget,
    /// Positions searched at once (one thread each) [default: every core].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Show every move, not only the marked ones.
    #[arg(long)]
    pub all: bool,
}

fn percent(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run_review(a: &ReviewArgs) -> Result<(), String> {
    let preferred = match &a.variant {
        Some(v) => Some(
            RuleArgs {
                variant: v.clone(),
                rules: a.rules.clone(),
            }
            .build()?,
        ),
        None if !a.rules.is_empty() => return Err("--rule needs --variant".into()),
        None => None,
    };
    let text = std::fs::read_to_string(&a.games).map_err(|e| format!("{}: {e}", a.games))?;
    let read =
        crate::records::import::read_games(&text).map_err(|e| format!("{}: {e}", a.games))?;
    let g = read.games.get(a.game.wrapping_sub(1)).ok_or_else(|| {
        format!(
            "{}: no game {} (it has {})",
            a.games,
            a.game,
            read.games.len()
        )
    })?;
    let (rules, _) = g.choose_rules(preferred.as_ref())?;
    let replayed = g.replay(&rules)?;
    let start = Game::from_start(rules.clone(), &g.start)?;
    let moves: Vec<Move> = replayed.game.moves().to_vec();
    let stop = std::sync::atomic::AtomicBool::new(false);
    let started = std::time::Instant::now();
    let review = crate::review::review_line(
        &start,
        &moves,
        a.budget,
        workers(a.threads)?,
        &stop,
        &|_, _| {},
    )?
    .ok_or("the review was stopped")?;
    say!(
        "game {} of {} ({}, {} moves), {} per position{}, {:.1} s",
        a.game,
        a.games,
        rules.options().preset.name(),
        moves.len(),
        a.budget,
        if a.budget.repeatable() {
            ""
        } else {
            " (not repeatable)"
        },
        started.elapsed().as_secs_f64()
    );
    for (i, r) in review.moves.iter().enumerate() {
        if !a.all && r.mark.is_none() {
            continue;
        }
        let number = format!("{}.", i / 2 + 1);
        let mut line = format!(
            "{number:<5}{:<10} {:<9} {:>4} -> {:>4} (-{:.1}) {:<3}",
            r.played.to_string(),
            r.mover.name(),
            percent(r.before),
            percent(r.after),
            100.0 * r.loss,
            r.mark.map_or("", |m| m.sign())
        );
        if let Some(b) = r.better {
            line.push_str(&format!(" better {b} ({})", moves_text(&r.better_line)));
        }
        say!("{}", line.trim_end());
    }
    for (side, s) in [Side::Attackers, Side::Defenders].iter().zip(&review.sides) {
        say!(
            "{:<9} accuracy {:.1}%, {} moves: {} inaccuracies, {} mistakes, {} blunders, {:.1} points lost a move",
            side.name(),
            s.accuracy,
            s.moves,
            s.inaccuracies,
            s.mistakes,
            s.blunders,
            s.average_loss
        );
    }
    if let Some(result) = &g.result {
        say!(
            "recorded result: {} ({})",
            result.winner.map_or("draw", Side::name),
            result.reason
        );
    }
    Ok(())
}
