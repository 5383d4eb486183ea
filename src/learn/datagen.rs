//! `konakis datagen`: self-play games at a fixed number of nodes per move,
//! several at once, written as training positions with the search's score,
//! its best move and the game's result.

use super::data::{self, GameResult, Record};
use crate::rules::{Game, Preset, Rules, Side};
use crate::search::{Engine, Limits, WIN_BOUND};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rayon::prelude::*;
use std::io::Write;
use std::time::Instant;

/// What `konakis datagen` is asked for.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub preset: Preset,
    pub overrides: Vec<(String, String)>,
    pub games: usize,
    pub nodes: u64,
    /// Nodes per move for the attackers, when they differ (a stronger side
    /// gives one-sided rule sets data in which both sides win).
    pub attacker_nodes: Option<u64>,
    /// Games played at once.
    pub threads: usize,
    /// Where games start, so that they differ.
    pub openings: Openings,
    /// Random plies played after each opening, so that an openings file
    /// (games people played, say) gives more distinct games than it has lines.
    pub random_plies: u32,
    pub seed: u64,
    /// A game still going after this many plies is scored a draw.
    pub max_plies: u32,
    pub out: String,
    pub progress: bool,
    /// Engine options for both sides, such as `Eval` and `EvalFile`
    /// (checked before any game starts).
    pub engine_options: Vec<(String, String)>,
}

/// Where datagen games start.
#[derive(Clone, Debug)]
pub enum Openings {
    /// This many random plies from the start position.
    Random(u32),
    /// Openings from a file (`konakis match --openings` format), in turn.
    List(Vec<crate::runner::Opening>),
}

/// One finished game's training positions.
struct GameData {
    records: Vec<Record>,
}

/// What a run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagenSummary {
    pub games: usize,
    pub positions: usize,
}

/// Games are played in batches of this many; each batch is written in game
/// order, whatever the number of threads, so the same seed gives the same
/// file.
const BATCH: usize = 32;

/// Plays the games and appends their positions to the output file (which
/// is created with a header if it does not exist, and must name the same
/// rules if it does).
pub fn run(cfg: &DatagenConfig) -> Result<DatagenSummary, String> {
    if cfg.games == 0 || cfg.nodes == 0 || cfg.attacker_nodes == Some(0) {
        return Err("--games and --nodes must be at least 1".into());
    }
    if matches!(&cfg.openings, Openings::List(l) if l.is_empty()) {
        return Err("no openings".into());
    }
    let rules = Rules::build(cfg.preset, &cfg.overrides)?;
    let rules_text = data::rules_text(cfg.preset, &cfg.overrides);
    // The options are checked once here, so that every game's engine takes them.
    configured_engine(cfg)?;
    let first_game = open_for_append(&cfg.out, &rules_text)?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&cfg.out)
        .map_err(|e| format!("{}: {e}", cfg.out))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads.max(1))
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", cfg.threads))?;
    let bar = cfg.progress.then(|| {
        let b = indicatif::ProgressBar::new(cfg.games as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} games {msg} [{elapsed_precise}, eta {eta}]",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let started = Instant::now();
    let mut summary = DatagenSummary::default();
    for batch_start in (0..cfg.games).step_by(BATCH) {
        let batch: Vec<usize> = (batch_start..(batch_start + BATCH).min(cfg.games)).collect();
        let played: Vec<Result<GameData, String>> = pool.install(|| {
            batch
                .par_iter()
                .map_init(
                    || configured_engine(cfg),
                    |engine, &g| match engine {
                        Ok(engine) => play_game(engine, &rules, cfg, g, first_game + g as u32),
                        Err(e) => Err(e.clone()),
                    },
                )
                .collect()
        });
        let mut bytes = Vec::new();
        for game in played {
            let game = game?;
            summary.games += 1;
            summary.positions += game.records.len();
            for r in &game.records {
                bytes.extend_from_slice(&r.to_bytes());
            }
        }
        file.write_all(&bytes)
            .and_then(|_| file.flush())
            .map_err(|e| format!("{}: {e}", cfg.out))?;
        if let Some(b) = &bar {
            let rate = summary.positions as f64 / started.elapsed().as_secs_f64().max(1e-9);
            b.set_position(summary.games as u64);
            b.set_message(format!(
                "{} positions, {rate:.0} positions/s",
                summary.positions
            ));
        }
    }
    if let Some(b) = bar {
        b.finish();
    }
    Ok(summary)
}

/// Checks (or writes) the header; returns the number the next game gets.
fn open_for_append(path: &str, rules_text: &str) -> Result<u32, String> {
    match existing_games(path, rules_text)? {
        Some(next) => Ok(next),
        None => {
            let mut f = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
            data::write_header(&mut f, rules_text).map_err(|e| format!("{path}: {e}"))?;
            Ok(0)
        }
    }
}

/// For a data file that exists: checks its header and returns the number
/// the next game gets; `None` when there is no such file.
fn existing_games(path: &str, rules_text: &str) -> Result<Option<u32>, String> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let (text, body) = data::parse_header(&bytes).map_err(|e| format!("{path}: {e}"))?;
            if text != rules_text {
                return Err(format!(
                    "{path} holds positions of '{text}', not '{rules_text}'"
                ));
            }
            if body.len() % data::RECORD_BYTES != 0 {
                return Err(format!(
                    "{path}: truncated: {} bytes after the last whole record",
                    body.len() % data::RECORD_BYTES
                ));
            }
            let last_game = body
                .chunks_exact(data::RECORD_BYTES)
                .last()
                .map(|b| u32::from_le_bytes([b[42], b[43], b[44], b[45]]));
            Ok(Some(last_game.map_or(0, |g| g + 1)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{path}: {e}")),
    }
}

/// `plies` random plies from `start` that do not end the game (tried again
/// from `start` with the same generator when they do; after many tries,
/// `start` itself).
fn random_plies(start: &Game, plies: u32, rng: &mut StdRng) -> Result<Game, String> {
    const TRIES: usize = 1000;
    if plies == 0 {
        return Ok(start.clone());
    }
    for _ in 0..TRIES {
        let mut game = start.clone();
        crate::runner::play_random_plies(&mut game, plies, rng)?;
        if game.outcome().is_none() {
            return Ok(game);
        }
    }
    Ok(start.clone())
}

/// An engine with the run's options set.
fn configured_engine(cfg: &DatagenConfig) -> Result<Engine, String> {
    let mut engine = Engine::new();
    for (name, value) in &cfg.engine_options {
        engine.set_option(name, Some(value))?;
    }
    Ok(engine)
}

/// Plays game `index` of the run (numbered `number` in the file).
fn play_game(
    engine: &mut Engine,
    rules: &Rules,
    cfg: &DatagenConfig,
    index: usize,
    number: u32,
) -> Result<GameData, String> {
    let mut rng =
        StdRng::seed_from_u64(cfg.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // Each game starts from an empty table and no history, so that a
    // game's moves do not depend on which games the thread played before.
    engine.set_hash(16)?;
    engine.clear_histories();
    let opening = match &cfg.openings {
        Openings::Random(plies) => random_plies(&Game::new(rules.clone()), *plies, &mut rng)?,
        Openings::List(list) => crate::runner::opening_game(rules, &list[index % list.len()])?,
    };
    engine.set_game(random_plies(&opening, cfg.random_plies, &mut rng)?);
    let mut records = Vec::new();
    let mut adjudicated = false;
    while engine.game().outcome().is_none() {
        if engine.game().moves().len() as u32 >= cfg.max_plies {
            adjudicated = true;
            break;
        }
        let pos = *engine.position();
        let nodes = match pos.side_to_move() {
            Side::Attackers => cfg.attacker_nodes.unwrap_or(cfg.nodes),
            Side::Defenders => cfg.nodes,
        };
        let result = engine.search(Limits::nodes(nodes));
        let Some(best) = result.best else {
            break;
        };
        let captures = pos.make(rules, best).captured > 0;
        // What teaches nothing: proven wins and losses, and captures (the
        // position is not quiet).
        if result.score.abs() < WIN_BOUND && !captures {
            if let Some(r) = Record::new(&pos, result.score, Some(best), number) {
                records.push(r);
            }
        }
        engine.play(best)?;
    }
    let result = match engine.game().outcome() {
        Some(o) => GameResult::from_winner(o.winner),
        None => GameResult::Draw,
    };
    for r in &mut records {
        r.result = result;
        r.adjudicated = adjudicated;
    }
    Ok(GameData { records })
}

/// What `konakis datagen --stats` prints.
pub fn stats(path: &str) -> Result<String, String> {
    let file = data::read_file(path)?;
    let mut out = String::new();
    let n = file.records.len();
    let games: std::collections::BTreeSet<u32> = file.records.iter().map(|r| r.game).collect();
    out.push_str(&format!(
        "{path}: rules {}, {n} positions from {} games (a game none of whose positions was kept, say one decided at once, is not counted)\n",
        file.rules_text,
        games.len()
    ));
    // Attackers, defenders, draws: by position and by game.
    let mut results = [0usize; 3];
    let mut game_results = std::collections::BTreeMap::new();
    let mut adjudicated = 0;
    let mut to_move = [0usize; 2];
    let slot = |r: data::GameResult| match r {
        data::GameResult::AttackersWon => 0,
        data::GameResult::DefendersWon => 1,
        data::GameResult::Draw => 2,
    };
    for r in &file.records {
        results[slot(r.result)] += 1;
        game_results.insert(r.game, r.result);
        adjudicated += r.adjudicated as usize;
        to_move[(r.side == Side::Defenders) as usize] += 1;
    }
    let mut by_game = [0usize; 3];
    for result in game_results.values() {
        by_game[slot(*result)] += 1;
    }
    for (what, c) in [("position", results), ("game", by_game)] {
        out.push_str(&format!(
            "results by {what}: attackers won {}, defenders won {}, draws {}\n",
            c[0], c[1], c[2]
        ));
    }
    out.push_str(&format!(
        "adjudicated (length limit): {adjudicated} positions; to move: attackers {} defenders {}\n",
        to_move[0], to_move[1]
    ));
    out.push_str("search score (side to move) histogram:\n");
    let edges = [-1000, -500, -250, -100, -50, 0, 50, 100, 250, 500, 1000];
    let mut counts = vec![0usize; edges.len() + 1];
    for r in &file.records {
        let s = r.score as i32;
        let bucket = edges.iter().position(|&e| s < e).unwrap_or(edges.len());
        counts[bucket] += 1;
    }
    for (i, c) in counts.iter().enumerate() {
        let label = match i {
            0 => format!("< {}", edges[0]),
            i if i == edges.len() => format!(">= {}", edges[i - 1]),
            i => format!("{} .. {}", edges[i - 1], edges[i]),
        };
        out.push_str(&format!("  {label:>12}: {c}\n"));
    }
    Ok(out)
}

/// Merges data files of the same rules (the shards of a cluster run,
/// each with its own seed) into `out`, appended to it if it exists. Game
/// numbers are shifted so that the games of different files stay apart
/// (the tuner holds games out by their number). Returns the games and
/// positions merged.
pub fn merge(inputs: &[String], out: &str) -> Result<DatagenSummary, String> {
    if inputs.is_empty() {
        return Err("--merge needs at least one data file".into());
    }
    let mut files = Vec::new();
    for path in inputs {
        if path == out {
            return Err(format!("{path} is both merged and the output"));
        }
        files.push(data::read_file(path).map_err(|e| format!("{path}: {e}"))?);
    }
    let rules_text = files[0].rules_text.clone();
    if let Some((path, f)) = inputs
        .iter()
        .zip(&files)
        .find(|(_, f)| f.rules_text != rules_text)
    {
        return Err(format!(
            "{path} holds positions of '{}', {} of '{rules_text}'",
            f.rules_text, inputs[0]
        ));
    }
    let existing = existing_games(out, &rules_text)?;
    let mut next_game = existing.unwrap_or(0);
    let mut bytes = Vec::new();
    let mut summary = DatagenSummary::default();
    for f in &files {
        let base = next_game;
        for r in &f.records {
            let mut r = *r;
            r.game += base;
            next_game = next_game.max(r.game + 1);
            bytes.extend_from_slice(&r.to_bytes());
        }
        summary.games += f
            .records
            .iter()
            .map(|r| r.game)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        summary.positions += f.records.len();
    }
    write_records(out, &rules_text, existing.is_some(), &bytes)?;
    Ok(summary)
}

/// Appends records to an existing data file, or writes a new one whole
/// beside its place and renames it (a failure leaves nothing behind).
fn write_records(out: &str, rules_text: &str, exists: bool, bytes: &[u8]) -> Result<(), String> {
    if exists {
        return std::fs::OpenOptions::new()
            .append(true)
            .open(out)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(|e| format!("{out}: {e}"));
    }
    let partial = format!("{out}.partial");
    std::fs::File::create(&partial)
        .and_then(|mut f| {
            data::write_header(&mut f, rules_text)?;
            f.write_all(bytes)
        })
        .and_then(|()| std::fs::rename(&partial, out))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            format!("{out}: {e}")
        })
}

/// Imports games people played (the hnefatafl-copenhagen CSV format of
/// `../shared/cases/real/`: moves, two capture counts, `White`, `Black`,
/// `Draw` or `Ongoing`) as positions without a search score, appended to
/// `out`. Games without a result are skipped; so are positions after which
/// the game is over, and those whose move captures. Returns the games and
/// positions written.
pub fn import_games(
    csv: &str,
    preset: Preset,
    overrides: &[(String, String)],
    out: &str,
) -> Result<DatagenSummary, String> {
    let rules = Rules::build(preset, overrides)?;
    let rules_text = data::rules_text(preset, overrides);
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{csv}: {e}"))?;
    // Nothing is written before every game has been read: a failed import
    // leaves no file (or the old one as it was) to block the next try.
    let existing = existing_games(out, &rules_text)?;
    let first_game = existing.unwrap_or(0);
    let mut bytes = Vec::new();
    let mut summary = DatagenSummary::default();
    for g in data::people_games(csv, &text)? {
        let Some(result) = g.result else {
            continue;
        };
        let number = first_game + summary.games as u32;
        let mut game = Game::new(rules.clone());
        let mut records = Vec::new();
        for token in &g.moves {
            if game.outcome().is_some() {
                break;
            }
            let before = *game.position();
            let mv = game
                .play_str(token)
                .map_err(|e| format!("{csv}:{}: {e}", g.line))?;
            let quiet = game.position().captured == 0 && game.outcome().is_none();
            if quiet {
                if let Some(mut r) = Record::new(&before, 0, Some(mv), number) {
                    r.no_score = true;
                    r.result = result;
                    records.push(r);
                }
            }
        }
        summary.games += 1;
        summary.positions += records.len();
        for r in &records {
            bytes.extend_from_slice(&r.to_bytes());
        }
    }
    write_records(out, &rules_text, existing.is_some(), &bytes)?;
    Ok(summary)
}
