//! `konakis bench`: fixed positions across the presets searched at a fixed
//! depth on one thread with a 16 MiB table. The total node count is the
//! search's signature: any change to it means the search behaves
//! differently.

use super::{Engine, Limits};
use crate::rules::{parse_record, Preset, Rules, Side, StartPoint};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Default bench depth.
pub const DEFAULT_DEPTH: i32 = 6;

/// The node count of `konakis bench` (depth 6, one thread): the search's
/// signature. A change of search behaviour changes it; update it in the
/// same commit, whose message states it as `Bench: N`. A test checks it.
pub const SIGNATURE: u64 = 1_135_958;

/// The bench with the classical (learned linear) evaluation everywhere
/// (`konakis bench --eval learned`): the signature before the nets.
pub const LEARNED_SIGNATURE: u64 = 1_061_654;

/// The bench with the hand evaluation (`konakis bench --eval hand`): the
/// signature before the learned weights. A change of weights must not move
/// it; a change of the search or of the positions does.
pub const HAND_SIGNATURE: u64 = 1_094_668;

/// (preset, position record or "start", side to move).
pub const POSITIONS: &[(Preset, &str, Side)] = &[
    (Preset::Tablut, "start", Side::Attackers),
    (Preset::TablutLatin, "start", Side::Attackers),
    (Preset::Tablut1811, "start", Side::Attackers),
    (Preset::TablutEnglish, "start", Side::Attackers),
    (Preset::TablutCorner, "start", Side::Attackers),
    (Preset::Brandubh, "start", Side::Attackers),
    (Preset::Copenhagen, "start", Side::Attackers),
    (Preset::Fetlar, "start", Side::Attackers),
    (Preset::Ashton, "start", Side::Defenders),
    (
        Preset::Tablut,
        "/3tt2tt/3tT3T/3t5/4t2t1/ttT1K3t/4T1T1t/1T7/tt3tT2/2T3t2/",
        Side::Defenders,
    ),
    (
        Preset::Tablut,
        "/t1t4t1/3TT4/3T1t3/4T3t/t3KT1t1/6Tt1/3T5/3tt4/1t1ttt1Tt/",
        Side::Defenders,
    ),
    (
        Preset::Tablut,
        "/9/1t3Tt2/9/1T2K4/7t1/t1t1t2tT/5t3/8t/9/",
        Side::Defenders,
    ),
    (
        Preset::TablutLatin,
        "/t3t2tt/1T1tt1Tt1/1t7/2TT5/3TK2Tt/3t3Tt/1t2T4/t3t4/3t5/",
        Side::Defenders,
    ),
    (
        Preset::TablutLatin,
        "/9/2t2T3/2t6/4T2t1/4K2t1/1t2t4/2t3t2/1t7/9/",
        Side::Attackers,
    ),
    (
        Preset::Tablut1811,
        "/3tt4/1t3t3/2T1TT2t/t2TT2t1/tt2KT2t/5t2t/t6T1/4t4/1T1t3t1/",
        Side::Defenders,
    ),
    (
        Preset::Tablut1811,
        "/3T5/4T4/1t3t3/2T1t4/4K1t2/2TT5/5t3/3t3t1/6T2/",
        Side::Attackers,
    ),
    (
        Preset::TablutEnglish,
        "/3tt4/4t2t1/T4t3/t2T4t/ttTTKTT1t/4T3t/t2tT4/4t4/4tt3/",
        Side::Defenders,
    ),
    (
        Preset::TablutEnglish,
        "/9/5T1T1/9/1T2t3t/8t/2t1K1T2/1tt2t3/1T4T2/6t2/",
        Side::Attackers,
    ),
    (
        Preset::TablutCorner,
        "/3ttt3/t4TT2/4T4/t7t/tt1T1t3/3tK1T1t/9/2Ttt1t2/3tT2t1/",
        Side::Attackers,
    ),
    (
        Preset::TablutCorner,
        "/9/7T1/1t1t5/3t3T1/1t2K4/1T4tt1/t8/2TTt4/7t1/",
        Side::Attackers,
    ),
    (
        Preset::Brandubh,
        "/7/5tt/2T2t1/1t4t/1T2t2/1K5/5t1/",
        Side::Defenders,
    ),
    (
        Preset::Brandubh,
        "/3t3/4t2/4T1T/5K1/6t/tT2Tt1/2tt3/",
        Side::Attackers,
    ),
    (
        Preset::Brandubh,
        "/2T4/1tt2T1/6t/T2K1t1/2t4/t3tt1/1t5/",
        Side::Attackers,
    ),
    (
        Preset::Copenhagen,
        "/4tttt3/1t5t3/2t2T5/t3T2t3/t1t3T3t/t6T2t/t1T1TK3t1/t4TT4/4tT5/t2T1tT3t/3t2ttT2/",
        Side::Attackers,
    ),
    (
        Preset::Copenhagen,
        "/2t2ttt3/10t/2TT5t1/ttT7t/3tTTTt3/t3TK1T1tt/6T1t2/t4TT4/t10/1t3t1t2t/4ttt4/",
        Side::Attackers,
    ),
    (
        Preset::Copenhagen,
        "/11/11/3t7/11/2T8/1TT1t6/2T2K5/2t8/3t3t3/1t9/8T2/",
        Side::Defenders,
    ),
    (
        Preset::Fetlar,
        "/3ttt1t3/tt5t3/2T3KT3/t4T2T1t/T7T1t/tt2T4tt/3TT1T2t1/3t2tT2t/6t1T2/1t8t/3tt3t2/",
        Side::Defenders,
    ),
    (
        Preset::Fetlar,
        "/7t1T1/3t4t2/t2t1t2T2/2TT1t5/t2T1T1T2t/t1t1T1K2tt/3t6t/2t1t5t/11/4Tt5/2ttTt1Ttt1/",
        Side::Attackers,
    ),
    (
        Preset::Fetlar,
        "/11/9t1/2t8/7t3/2t3t1T2/2t2K5/7T3/t6T3/3T7/11/11/",
        Side::Attackers,
    ),
    (
        Preset::Tablut,
        "/9/1t5t1/1T5t1/t8/1t1TK2T1/4T4/4t4/1T1T5/9/",
        Side::Attackers,
    ),
    (
        Preset::Tablut,
        "/1t7/3t3t1/1t7/9/4K1tt1/1t1t5/tt7/3Tt2T1/2t6/",
        Side::Defenders,
    ),
    (
        Preset::Ashton,
        "/3tt4/4t4/2tT1t1T1/6T1t/tt4T1t/t1T2tK1t/4t1t2/7T1/3t5/",
        Side::Defenders,
    ),
];

/// One bench position's result.
pub struct BenchLine {
    pub index: usize,
    pub preset: Preset,
    pub nodes: u64,
    pub time: Duration,
    pub best: String,
}

/// The deepest bench the command line and the protocol accept.
pub const MAX_DEPTH: i32 = 64;

/// How the bench searches: the signature run is depth 6, one thread, the
/// default evaluation.
#[derive(Clone, Debug)]
pub struct BenchSettings {
    pub depth: i32,
    /// Search threads (for Lazy SMP time-to-depth measurements; node counts
    /// then vary from run to run).
    pub threads: usize,
    /// `learned`, `hand` or `nnue` (option `Eval`), to measure each one's
    /// speed on the same positions.
    pub eval: &'static str,
    /// A net for `nnue` (option `EvalFile`); positions of other board
    /// families use the classical evaluation.
    pub eval_file: Option<String>,
}

impl BenchSettings {
    pub fn signature(depth: i32) -> BenchSettings {
        BenchSettings {
            depth,
            threads: 1,
            eval: "nnue",
            eval_file: None,
        }
    }
}

/// Searches every bench position on one thread with a 16 MiB table (the
/// signature run); returns the total nodes and time.
pub fn run(depth: i32, each: impl FnMut(&BenchLine)) -> Result<(u64, Duration), String> {
    run_with(BenchSettings::signature(depth), each)
}

/// The bench with other settings.
pub fn run_with(
    settings: BenchSettings,
    each: impl FnMut(&BenchLine),
) -> Result<(u64, Duration), String> {
    let never = AtomicBool::new(false);
    run_until(settings, &never, each).map(|r| r.unwrap_or_default())
}

/// The bench, given up (`None`) once `stop` is set.
pub fn run_until(
    settings: BenchSettings,
    stop: &AtomicBool,
    mut each: impl FnMut(&BenchLine),
) -> Result<Option<(u64, Duration)>, String> {
    let BenchSettings {
        depth,
        threads,
        eval,
        eval_file,
    } = settings;
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(format!("bench depth must be 1 to {MAX_DEPTH}, not {depth}"));
    }
    let mut engine = Engine::new();
    engine.set_hash(16)?;
    engine.set_threads(threads)?;
    engine.set_option("Eval", Some(eval))?;
    if let Some(path) = &eval_file {
        engine.set_option("EvalFile", Some(path))?;
    }
    let mut total = 0;
    let mut time = Duration::ZERO;
    for (i, &(preset, record, side)) in POSITIONS.iter().enumerate() {
        engine.set_rules(Rules::preset(preset));
        let start = if record == "start" {
            StartPoint::Initial
        } else {
            StartPoint::Position {
                setup: parse_record(record)?,
                side,
                plies_since_capture: 0,
                ply: 0,
            }
        };
        engine.set_position::<&str>(&start, &[])?;
        engine.clear_search_state();
        let started = Instant::now();
        let (result, stopped) = engine.search_until(Limits::depth(depth), stop)?;
        if stopped {
            return Ok(None);
        }
        let elapsed = started.elapsed();
        total += result.nodes;
        time += elapsed;
        each(&BenchLine {
            index: i + 1,
            preset,
            nodes: result.nodes,
            time: elapsed,
            best: result
                .best
                .map(|m| m.to_string())
                .unwrap_or_else(|| "(none)".into()),
        });
    }
    Ok(Some((total, time)))
}
