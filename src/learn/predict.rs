//! `konakis predict`: how well each evaluation foretells the winners of
//! games people played, from one position of each game. A check of an
//! evaluation's knowledge that needs no engine games: the evaluation (from
//! the defenders' view) predicts the defenders when positive, the
//! attackers when negative.

use super::data::GameResult;
use crate::rules::{Game, Preset, Rules, Side};
use crate::search::eval::{nnue::Network, Evaluator};
use std::sync::Arc;

/// One evaluation's record.
#[derive(Clone, Debug)]
pub struct Prediction {
    /// What the evaluation is (`hand`, `learned corner11`, `nnue …`).
    pub evaluation: String,
    pub correct: usize,
    pub games: usize,
}

impl Prediction {
    pub fn accuracy(&self) -> f64 {
        self.correct as f64 / self.games.max(1) as f64
    }
}

/// What `predict` found: per evaluation, and the share of the games the
/// defenders won (the accuracy of always guessing them).
pub struct PredictReport {
    pub games: usize,
    pub skipped: usize,
    pub defenders_won: usize,
    pub evaluations: Vec<Prediction>,
}

/// Reads the games (the CSV format of `../shared/cases/real/`), plays each
/// to `ply` (games with a winner that reach it), and scores each evaluation.
pub fn run(
    csv: &str,
    preset: Preset,
    overrides: &[(String, String)],
    ply: usize,
    net: Option<Arc<Network>>,
) -> Result<PredictReport, String> {
    let rules = Rules::build(preset, overrides)?;
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{csv}: {e}"))?;
    let mut evaluators = vec![Evaluator::for_rules("hand", &rules, None, None)];
    let learned = Evaluator::for_rules("learned", &rules, None, None);
    if !matches!(learned, Evaluator::Hand) {
        evaluators.push(learned);
    }
    if let Some(net) = &net {
        match Evaluator::for_rules("nnue", &rules, Some(net), None) {
            e @ Evaluator::Nnue(_) => evaluators.push(e),
            _ => {
                return Err(format!(
                    "the net is for {} boards, not these rules'",
                    net.family.name()
                ))
            }
        }
    }
    let mut report = PredictReport {
        games: 0,
        skipped: 0,
        defenders_won: 0,
        evaluations: evaluators
            .iter()
            .map(|e| Prediction {
                evaluation: e.describe(&rules),
                correct: 0,
                games: 0,
            })
            .collect(),
    };
    for g in super::data::people_games(csv, &text)? {
        let winner = match g.result {
            Some(GameResult::DefendersWon) => Side::Defenders,
            Some(GameResult::AttackersWon) => Side::Attackers,
            _ => {
                report.skipped += 1;
                continue;
            }
        };
        let mut game = Game::new(rules.clone());
        for token in g.moves.iter().take(ply) {
            if game.outcome().is_some() {
                break;
            }
            game.play_str(token)
                .map_err(|e| format!("{csv}:{}: {e}", g.line))?;
        }
        if game.position().ply as usize != ply || game.outcome().is_some() {
            report.skipped += 1;
            continue;
        }
        report.games += 1;
        report.defenders_won += usize::from(winner == Side::Defenders);
        let pos = game.position();
        for (e, p) in evaluators.iter().zip(report.evaluations.iter_mut()) {
            let stm = e.evaluate(pos, &rules);
            let defenders_view = match pos.side_to_move() {
                Side::Defenders => stm,
                Side::Attackers => -stm,
            };
            let predicted = if defenders_view > 0 {
                Side::Defenders
            } else {
                Side::Attackers
            };
            p.games += 1;
            p.correct += usize::from(predicted == winner);
        }
    }
    Ok(report)
}
