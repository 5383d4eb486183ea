//! The command line: `konakis` (protocol engine), `konakis perft`, `konakis bench`.

use crate::rules::perft::{divide, perft};
use crate::rules::{parse_record, Position, Preset, Rules, Side};
use clap::{Args, Parser, Subcommand};
use std::time::Instant;

#[derive(Parser, Debug)]
#[command(
    name = "konakis",
    version,
    about = "A tafl engine (Tablut, Brandubh, Copenhagen, Fetlar). With no subcommand it speaks the engine protocol (protocol.md) on stdin/stdout."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the leaves of the move tree (checks the rules; measures movegen speed).
    Perft(PerftArgs),
    /// Search fixed positions at a fixed depth; the node count is the search's signature.
    Bench(BenchArgs),
}

/// Rule selection shared by the subcommands.
#[derive(Args, Debug, Clone)]
pub struct RuleArgs {
    /// Rule preset: tablut, tablut-latin, tablut-1811, tablut-english, tablut-corner, brandubh, copenhagen, fetlar.
    #[arg(long, default_value = "tablut")]
    pub variant: String,
    /// Override one rule option, e.g. --rule ExitFort=false (repeatable; see docs/rules.md).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rules: Vec<String>,
}

impl RuleArgs {
    pub fn build(&self) -> Result<Rules, String> {
        let preset: Preset = self
            .variant
            .parse()
            .map_err(|e| format!("--variant: {e}"))?;
        let mut rules = Rules::preset(preset);
        for r in &self.rules {
            let (k, v) = r
                .split_once('=')
                .ok_or_else(|| format!("--rule '{r}': expected NAME=VALUE"))?;
            rules.set(k.trim(), v)?;
        }
        Ok(rules)
    }
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// A position record (rank 1 first); default: the rules' start position.
    #[arg(long)]
    pub position: Option<String>,
    /// Side to move with --position: a or d.
    #[arg(long, default_value = "a")]
    pub side: String,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Depth in plies.
    pub depth: u32,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth for every bench position.
    pub depth: Option<u32>,
}

pub fn run_bench(args: &BenchArgs) -> Result<(), String> {
    let depth = args
        .depth
        .map(|d| d as i32)
        .unwrap_or(crate::search::bench::DEFAULT_DEPTH);
    if !(1..=64).contains(&depth) {
        return Err(format!("bench depth must be 1 to 64, not {depth}"));
    }
    let (nodes, time) = crate::search::bench::run(depth, |line| {
        println!(
            "position {:>2} {:<15} best {:<8} nodes {:>10} time {:>6} ms",
            line.index,
            line.preset.name(),
            line.best,
            line.nodes,
            line.time.as_millis()
        );
    })?;
    let nps = (nodes as f64 / time.as_secs_f64().max(1e-9)) as u64;
    println!("{nodes} nodes {nps} nps");
    Ok(())
}

pub fn run_perft(args: &PerftArgs) -> Result<(), String> {
    let rules = args.rules.build()?;
    let pos = match &args.position {
        Some(record) => {
            let setup = parse_record(record)?;
            let side: Side = args.side.parse()?;
            Position::from_setup(&setup, side, &rules, 0, 0)?
        }
        None => Position::start(&rules),
    };
    let start = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        for (mv, n) in divide(&pos, &rules, args.depth) {
            println!("{mv} {n}");
            total += n;
        }
        total
    } else {
        perft(&pos, &rules, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "time {:.3} s, {:.0} leaves/s",
        secs,
        nodes as f64 / secs.max(1e-9)
    );
    println!("nodes {nodes}");
    Ok(())
}
