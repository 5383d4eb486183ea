//! The engine's options: their values, and the table every front end shows
//! (tei lists it as `option` lines). Rule options are listed here too, so
//! that one table says what can be set and in what range.

use super::eval::learned::Weights;
use super::eval::nnue::Network;
use super::params::SearchParams;
use crate::rules::options::{
    Corners, Encirclement, Escape, ExitFort, Hostility, KingArmed, KingCapture, Repetition,
    Shieldwall, ThronePassage, MAX_PLY_LIMIT, RULE_OPTION_NAMES,
};
use crate::rules::otn::otn_rules_string;
use crate::rules::{Preset, Rules};
use std::sync::Arc;
use std::time::Duration;

/// Search features that can be switched off (to measure what each is worth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    pub null_move: bool,
    pub lmr: bool,
    pub aspiration: bool,
    pub quiescence: bool,
    /// Reverse futility pruning: a shallow node whose static evaluation
    /// beats beta by a margin per ply is cut without searching.
    pub futility: bool,
    /// Late-move pruning: near the leaves, late quiet moves are skipped.
    pub late_move_pruning: bool,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            null_move: true,
            lmr: true,
            aspiration: true,
            quiescence: true,
            futility: true,
            late_move_pruning: true,
        }
    }
}

pub const MAX_THREADS: usize = 256;
pub const MAX_HASH_MIB: usize = 65536;
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
pub const MAX_MULTIPV: usize = 64;
pub const MAX_CONTEMPT: i32 = 1000;

/// Engine settings a user can change (the rules aside).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub threads: usize,
    pub hash_mib: usize,
    pub move_overhead: Duration,
    pub multipv: usize,
    /// Centi-soldiers the engine gives up to avoid a draw (negative: seeks draws).
    pub contempt: i32,
    /// Whether the GUI may send `go ponder` (the engine itself only stores it).
    pub ponder: bool,
    /// Whether `info` lines carry the chances of a win, a draw and a loss
    /// (`wdl W D L`, UCI's `UCI_ShowWDL`); the search computes them anyway.
    pub show_wdl: bool,
    pub features: Features,
    /// The tunable search numbers, set by the hidden `Tune<Name>` options.
    pub params: SearchParams,
    /// The evaluation: `learned` (where the board family has weights),
    /// `hand`, or `nnue` (where a net fits the board family).
    pub eval: &'static str,
    /// A net loaded with `EvalFile`: its path and the net.
    pub eval_file: Option<(String, Arc<Network>)>,
    /// Linear weights loaded with `WeightsFile` (for `Eval` = `learned`,
    /// on any rules): their path and the weights.
    pub weights_file: Option<(String, Arc<Weights>)>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            threads: 1,
            hash_mib: 64,
            move_overhead: Duration::from_millis(10),
            multipv: 1,
            contempt: 0,
            ponder: false,
            show_wdl: false,
            features: Features::default(),
            params: SearchParams::default(),
            eval: "nnue",
            eval_file: None,
            weights_file: None,
        }
    }
}

/// The type of an option and the values it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin { min: i64, max: i64 },
    Check,
    Combo(&'static [&'static str]),
    Text,
    Button,
}

/// One option as a GUI sees it: its name, type and current value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionInfo {
    pub name: &'static str,
    pub kind: OptionKind,
    pub value: String,
}

/// A number in a range, for spin options.
pub fn parse_spin(name: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    match value.trim().parse::<i64>() {
        Ok(x) if (min..=max).contains(&x) => Ok(x),
        _ => Err(format!(
            "option {name} takes a number from {min} to {max}, not '{value}'"
        )),
    }
}

/// `true` or `false`, for check options.
pub fn parse_check(name: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(format!("option {name} takes true or false, not '{value}'")),
    }
}

/// `EvalFile`'s value when no net is loaded (setting it unloads the net).
pub const NO_EVAL_FILE: &str = "<empty>";

/// Whether a file option's value unloads the file (`<empty>` or `none`).
pub fn unloads_file(value: &str) -> bool {
    value == NO_EVAL_FILE || value == "none"
}

/// A file option's value as listed: the loaded file's path, or `<empty>`.
fn file_value<T>(file: &Option<(String, T)>) -> String {
    file.as_ref()
        .map_or(NO_EVAL_FILE.to_string(), |(path, _)| path.clone())
}

const SIDES: &[&str] = &["attackers", "defenders"];

/// The whole option table: engine settings, then the rules.
pub fn option_table(s: &Settings, rules: &Rules) -> Vec<OptionInfo> {
    let spin = |name, value: String, min: i64, max: i64| OptionInfo {
        name,
        kind: OptionKind::Spin { min, max },
        value,
    };
    let check = |name, value: bool| OptionInfo {
        name,
        kind: OptionKind::Check,
        value: value.to_string(),
    };
    let f = s.features;
    let mut table = vec![
        spin("Threads", s.threads.to_string(), 1, MAX_THREADS as i64),
        spin("Hash", s.hash_mib.to_string(), 1, MAX_HASH_MIB as i64),
        OptionInfo {
            name: "Clear Hash",
            kind: OptionKind::Button,
            value: String::new(),
        },
        spin(
            "MoveOverhead",
            s.move_overhead.as_millis().to_string(),
            0,
            MAX_MOVE_OVERHEAD_MS as i64,
        ),
        spin("MultiPV", s.multipv.to_string(), 1, MAX_MULTIPV as i64),
        check("Ponder", s.ponder),
        check("UCI_ShowWDL", s.show_wdl),
        spin(
            "Contempt",
            s.contempt.to_string(),
            -(MAX_CONTEMPT as i64),
            MAX_CONTEMPT as i64,
        ),
        check("NullMove", f.null_move),
        check("LMR", f.lmr),
        check("Aspiration", f.aspiration),
        check("Quiescence", f.quiescence),
        check("Futility", f.futility),
        check("LMP", f.late_move_pruning),
        OptionInfo {
            name: "Eval",
            kind: OptionKind::Combo(super::eval::EVAL_NAMES),
            value: s.eval.to_string(),
        },
        OptionInfo {
            name: "EvalFile",
            kind: OptionKind::Text,
            value: file_value(&s.eval_file),
        },
        OptionInfo {
            name: "WeightsFile",
            kind: OptionKind::Text,
            value: file_value(&s.weights_file),
        },
        OptionInfo {
            name: "Variant",
            kind: OptionKind::Combo(Preset::NAMES),
            value: rules.options().preset.name().to_string(),
        },
        OptionInfo {
            name: "OpenTaflRules",
            kind: OptionKind::Text,
            value: otn_rules_string(rules),
        },
    ];
    for &name in RULE_OPTION_NAMES {
        let kind = match name {
            "Start" => OptionKind::Text,
            "FirstMove" => OptionKind::Combo(SIDES),
            "Escape" => OptionKind::Combo(Escape::NAMES),
            "ThronePassage" => OptionKind::Combo(ThronePassage::NAMES),
            "EmptyThroneHostile" | "OccupiedThroneHostile" => OptionKind::Combo(Hostility::NAMES),
            "Corners" => OptionKind::Combo(Corners::NAMES),
            "KingArmed" => OptionKind::Combo(KingArmed::NAMES),
            "Shieldwall" => OptionKind::Combo(Shieldwall::NAMES),
            "KingCapture" => OptionKind::Combo(KingCapture::NAMES),
            "Repetition" => OptionKind::Combo(Repetition::NAMES),
            "ExitFort" => OptionKind::Combo(ExitFort::NAMES),
            "Encirclement" => OptionKind::Combo(Encirclement::NAMES),
            "Camps" | "HostileToAttackers" | "HostileToDefenders" => OptionKind::Text,
            "RepetitionCount" => OptionKind::Spin { min: 2, max: 3 },
            "NoCaptureLimit" | "PlyLimit" => OptionKind::Spin {
                min: 0,
                max: MAX_PLY_LIMIT as i64,
            },
            _ => OptionKind::Check,
        };
        // An empty list shows as `<empty>`, which `setoption` takes back.
        let value = rules
            .get(name)
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| NO_EVAL_FILE.to_string());
        table.push(OptionInfo { name, kind, value });
    }
    table
}
