//! The win–draw–loss model: from a search score and the position it was
//! searched from to the chances of each result, per board family, fitted
//! to the results of real games (`konakis wdl fit`). Scores alone mislead
//! people: on the Copenhagen games people played, an even score means the
//! attackers win most games. The model says who wins.
//!
//! The form is an ordered logistic on the defenders' view of the score `x`
//! (centi-soldiers), with the point where the sides are even and the
//! scale moving with the ply and the side to move:
//!
//! ```text
//! t      = min(ply, 300) / 100
//! even   = even0 + even_defenders_to_move * [defenders to move] + even_per_100_plies * t
//! scale  = exp(ln_scale + ln_scale_per_100_plies * t)
//! z      = (x - even) / scale
//! P(defenders win) = sigmoid(z - draw),  P(attackers win) = sigmoid(-z - draw)
//! P(draw) = 1 - both,                    draw = exp(ln_draw) >= 0
//! ```
//!
//! So a side's chances never fall as its score rises, and the three always
//! sum to one. A proven win or loss, and a game the rules have ended, is
//! certain. The numbers of each family are embedded from
//! `src/search/wdl/<family>.txt`, each with the command that fitted it and
//! the population of games it describes.

use super::eval::learned::Family;
use super::score::{Score, Wdl};
use crate::rules::{Position, Rules, Side};
use std::sync::OnceLock;

/// The plies after which the model stops moving with the ply.
pub const PLY_CAP: u32 = 300;

/// The numbers of one family's model (see the module's formula).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlParams {
    pub even: f64,
    pub even_defenders_to_move: f64,
    pub even_per_100_plies: f64,
    pub ln_scale: f64,
    pub ln_scale_per_100_plies: f64,
    pub ln_draw: f64,
}

/// The names of [`WdlParams`]' fields, in file order.
pub const PARAM_NAMES: [&str; 6] = [
    "even",
    "even-defenders-to-move",
    "even-per-100-plies",
    "ln-scale",
    "ln-scale-per-100-plies",
    "ln-draw",
];

/// What the model reads of a position and its score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlInputs {
    /// The score in centi-soldiers from the defenders' view.
    pub defenders_view: f64,
    pub side_to_move: Side,
    pub ply: u32,
}

impl WdlInputs {
    /// The inputs of a (non-proven) score for the side to move of `pos`.
    pub fn new(score_for_side_to_move: i32, pos: &Position) -> WdlInputs {
        WdlInputs::of(score_for_side_to_move, pos.side_to_move(), pos.ply)
    }

    /// The inputs of a score for `side`, to move at `ply`.
    pub fn of(score_for_side_to_move: i32, side: Side, ply: u32) -> WdlInputs {
        let x = f64::from(score_for_side_to_move);
        WdlInputs {
            defenders_view: if side == Side::Defenders { x } else { -x },
            side_to_move: side,
            ply,
        }
    }

    fn t(&self) -> f64 {
        f64::from(self.ply.min(PLY_CAP)) / 100.0
    }
}

/// The chances of one position, as probabilities.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chances {
    pub attackers: f64,
    pub draw: f64,
    pub defenders: f64,
}

impl Chances {
    /// The defenders' expected score, 0 to 1.
    pub fn defenders_expected(&self) -> f64 {
        self.defenders + 0.5 * self.draw
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl WdlParams {
    pub fn to_array(self) -> [f64; 6] {
        [
            self.even,
            self.even_defenders_to_move,
            self.even_per_100_plies,
            self.ln_scale,
            self.ln_scale_per_100_plies,
            self.ln_draw,
        ]
    }

    pub fn from_array(a: [f64; 6]) -> WdlParams {
        WdlParams {
            even: a[0],
            even_defenders_to_move: a[1],
            even_per_100_plies: a[2],
            ln_scale: a[3],
            ln_scale_per_100_plies: a[4],
            ln_draw: a[5],
        }
    }

    /// The parts of the formula for some inputs: `z` and the draw band.
    pub fn latent(&self, x: &WdlInputs) -> (f64, f64) {
        let t = x.t();
        let defenders_to_move = f64::from(u8::from(x.side_to_move == Side::Defenders));
        let even = self.even
            + self.even_defenders_to_move * defenders_to_move
            + self.even_per_100_plies * t;
        let scale = (self.ln_scale + self.ln_scale_per_100_plies * t).exp();
        ((x.defenders_view - even) / scale, self.ln_draw.exp())
    }

    /// The chances the model gives.
    pub fn chances(&self, x: &WdlInputs) -> Chances {
        let (z, draw) = self.latent(x);
        let defenders = sigmoid(z - draw);
        let attackers = sigmoid(-z - draw);
        Chances {
            attackers,
            draw: (1.0 - defenders - attackers).max(0.0),
            defenders,
        }
    }

    /// Parses a model file: `name value` lines, `#` comments. Every
    /// parameter must be there once.
    pub fn parse(text: &str) -> Result<WdlParams, String> {
        let mut values: [Option<f64>; 6] = [None; 6];
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (name, value) = line
                .split_once(char::is_whitespace)
                .ok_or_else(|| format!("line {}: expected 'name value'", i + 1))?;
            let at = PARAM_NAMES
                .iter()
                .position(|n| *n == name)
                .ok_or_else(|| format!("line {}: unknown parameter '{name}'", i + 1))?;
            let value: f64 = value
                .trim()
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("line {}: bad value '{}'", i + 1, value.trim()))?;
            if values[at].replace(value).is_some() {
                return Err(format!("line {}: '{name}' given twice", i + 1));
            }
        }
        let mut out = [0.0; 6];
        for (i, v) in values.iter().enumerate() {
            out[i] = v.ok_or_else(|| format!("'{}' is missing", PARAM_NAMES[i]))?;
        }
        Ok(WdlParams::from_array(out))
    }

    /// The file text of these numbers (after a comment header).
    pub fn file_text(&self, header: &str) -> String {
        let mut text = String::new();
        for line in header.lines() {
            text.push_str(&format!("# {line}\n").replace("# \n", "#\n"));
        }
        for (name, value) in PARAM_NAMES.iter().zip(self.to_array()) {
            text.push_str(&format!("{name} {value:.6}\n"));
        }
        text
    }
}

/// The model a search reports its chances by: the numbers of the rules'
/// board family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WdlModel {
    pub family: Family,
    pub params: WdlParams,
}

impl WdlModel {
    /// The embedded model of the rules' family.
    pub fn for_rules(rules: &Rules) -> WdlModel {
        WdlModel::for_family(Family::of(rules))
    }

    /// The embedded model of a family.
    ///
    /// # Panics
    /// If an embedded model file does not parse: a broken build, which
    /// [`check_embedded`] reports at start-up and the tests catch.
    pub fn for_family(family: Family) -> WdlModel {
        match embedded_params() {
            Ok(all) => WdlModel {
                family,
                params: all[family.index()],
            },
            Err(e) => panic!("{e}"),
        }
    }

    /// The chances for the side to move of `pos` after a search scored it
    /// `score` (the search's number: centi-soldiers or a proven result).
    pub fn wdl(&self, score: i32, pos: &Position) -> Wdl {
        match Score::from_search(score) {
            Score::Win(_) => Wdl::WON,
            Score::Loss(_) => Wdl::LOST,
            Score::Cp(cp) => {
                let c = self.params.chances(&WdlInputs::new(cp, pos));
                let (mine, theirs) = match pos.side_to_move() {
                    Side::Defenders => (c.defenders, c.attackers),
                    Side::Attackers => (c.attackers, c.defenders),
                };
                Wdl::from_probabilities(mine, c.draw, theirs)
            }
        }
    }
}

/// The chances of a position the rules have ended, for its side to move.
pub fn wdl_of_outcome(winner: Option<Side>, side_to_move: Side) -> Wdl {
    match winner {
        Some(w) if w == side_to_move => Wdl::WON,
        Some(_) => Wdl::LOST,
        None => Wdl::DRAWN,
    }
}

/// The model file of a family, as embedded.
pub fn embedded_text(family: Family) -> &'static str {
    match family {
        Family::Corner7 => include_str!("wdl/corner7.txt"),
        Family::Edge9 => include_str!("wdl/edge9.txt"),
        Family::Corner9 => include_str!("wdl/corner9.txt"),
        Family::Corner11 => include_str!("wdl/corner11.txt"),
        Family::Corner11Plain => include_str!("wdl/corner11-plain.txt"),
        Family::Ashton => include_str!("wdl/ashton.txt"),
    }
}

fn embedded_params() -> &'static Result<Vec<WdlParams>, String> {
    static PARAMS: OnceLock<Result<Vec<WdlParams>, String>> = OnceLock::new();
    PARAMS.get_or_init(|| {
        Family::ALL
            .iter()
            .map(|&f| {
                WdlParams::parse(embedded_text(f))
                    .map_err(|e| format!("the embedded {} WDL model is broken: {e}", f.name()))
            })
            .collect()
    })
}

/// Whether every embedded model parses (checked at start-up).
pub fn check_embedded() -> Result<(), String> {
    embedded_params().as_ref().map(|_| ()).map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, Preset};

    #[test]
    fn every_embedded_model_parses_and_round_trips() {
        check_embedded().expect("embedded models");
        for f in Family::ALL {
            let p = WdlModel::for_family(f).params;
            let again = WdlParams::parse(&p.file_text("a header\n\nsecond")).expect("parses");
            for (a, b) in p.to_array().iter().zip(again.to_array()) {
                assert!((a - b).abs() < 1e-6, "{}: {a} {b}", f.name());
            }
        }
        assert!(WdlParams::parse("even 1").is_err());
        assert!(WdlParams::parse("even x").is_err());
        assert!(WdlParams::parse("nonsense 1").is_err());
    }

    /// The side to move's chance of winning never falls as its score
    /// rises, and its chance of losing never rises; the three sum to 1000.
    #[test]
    fn chances_rise_with_the_score_and_sum_to_a_thousand() {
        for preset in Preset::ALL {
            let rules = Rules::preset(preset);
            let mut game = Game::new(rules.clone());
            for ply in 0..2 {
                let model = WdlModel::for_rules(&rules);
                let pos = *game.position();
                let mut last: Option<Wdl> = None;
                for score in (-5000..=5000).step_by(25) {
                    let w = model.wdl(score, &pos);
                    assert_eq!(w.win + w.draw + w.loss, 1000);
                    if let Some(l) = last {
                        assert!(
                            w.win >= l.win && w.loss <= l.loss,
                            "{preset} {ply}: {l} -> {w}"
                        );
                    }
                    last = Some(w);
                }
                assert_eq!(model.wdl(crate::search::WIN - 5, &pos), Wdl::WON);
                assert_eq!(model.wdl(-crate::search::WIN + 4, &pos), Wdl::LOST);
                let mv = game.legal_moves()[0];
                game.play(mv).expect("legal");
            }
        }
    }
}
