//! `konakis match`: a tournament runner for protocol engines, in the spirit
//! of cutechess-cli and fastchess. The runner owns every game: it keeps the
//! board with the rules core, runs the clocks and adjudicates; an engine
//! that crashes, stalls, overruns its clock or sends an illegal or
//! malformed move loses that game, is restarted, and the match goes on.

pub mod adjudication;
pub mod openings;
pub mod otep_client;
pub mod player;
pub mod spsa;
pub mod stats;
pub mod tei_client;

use crate::records::game::{EndReason, GameRecord, RecordedMove};
use crate::rules::{Game, Move, Position, Preset, Rules, Side, StartPoint};
use crate::search::{Engine, Limits, WIN_BOUND};
use adjudication::Adjudication;
use player::{EngineSpec, Failure, Player, Proto};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use stats::{Pentanomial, Sprt, SprtState, Wdl};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The runner's side of each protocol an engine may speak.
fn protocol_of(proto: Proto) -> &'static dyn player::Protocol {
    match proto {
        Proto::Tei => &tei_client::Tei,
        Proto::Otep => &otep_client::Otep,
    }
}
/// A text file's contents; a file that is not text (a binary file given by
/// mistake) is named as not being `what`, not as bad UTF-8.
pub(crate) fn read_text(path: &str, what: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => format!("{path}: not {what} (it is not text)"),
        _ => format!("{path}: {e}"),
    })
}

/// The values of `key=value` command-line words, in the order of `keys`
/// (`None` for a key not given); `option` names the flag in errors.
pub(crate) fn key_values<'a>(
    option: &str,
    words: &'a [String],
    keys: &[&str],
) -> Result<Vec<Option<&'a str>>, String> {
    let mut values = vec![None; keys.len()];
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("{option}: '{w}' is not key=value"))?;
        let i = keys
            .iter()
            .position(|key| *key == k)
            .ok_or_else(|| format!("{option}: unknown key '{k}' (expected {})", keys.join(", ")))?;
        values[i] = Some(v);
    }
    Ok(values)
}

/// A required number among [`key_values`]'s results.
pub(crate) fn number<T: std::str::FromStr>(
    option: &str,
    key: &str,
    v: Option<&str>,
) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{option} needs {key}="))?;
    v.parse()
        .map_err(|_| format!("{option}: {key}={v} is not a number"))
}

/// How long each move may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl {
    /// Base and increment per move, in ms.
    Clock {
        base: u64,
        inc: u64,
    },
    MoveTime(u64),
    Depth(u32),
    Nodes(u64),
}

impl TimeControl {
    /// Parses `<base>+<inc>` in seconds (e.g. `10+0.1`).
    pub fn parse_tc(s: &str) -> Result<TimeControl, String> {
        let (b, i) = s.split_once('+').unwrap_or((s, "0"));
        let secs = |t: &str| -> Result<u64, String> {
            let v: f64 = t
                .parse()
                .map_err(|_| format!("--tc: '{t}' is not a number of seconds"))?;
            if !(0.0..=86_400.0).contains(&v) {
                return Err(format!("--tc: '{t}' is out of range"));
            }
            Ok((v * 1000.0).round() as u64)
        };
        let base = secs(b)?;
        if base == 0 {
            return Err("--tc: the base time must be positive".into());
        }
        Ok(TimeControl::Clock {
            base,
            inc: secs(i)?,
        })
    }
}

/// Where the openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    Random(u32),
    File(String),
}

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub engines: [EngineSpec; 2],
    pub variant: Preset,
    pub overrides: Vec<(String, String)>,
    pub games: usize,
    pub concurrency: usize,
    pub tc: TimeControl,
    pub openings: OpeningSource,
    pub repeat: bool,
    pub sprt: Option<Sprt>,
    pub records: Option<String>,
    pub seed: u64,
    /// Extra ms an engine may overrun its clock before it loses on time.
    pub time_margin: u64,
    /// How long an engine may think without a clock before it counts as stalled.
    pub stall: Duration,
    /// Print a line per game even on a terminal.
    pub quiet: bool,
    /// When the runner ends games the rules have not.
    pub adjudication: Adjudication,
    /// `(k, n)`: play only the k-th (from 0) of n disjoint slices of the
    /// openings; the n shards together play the whole match.
    pub shard: Option<(usize, usize)>,
}

impl MatchConfig {
    pub fn rules(&self) -> Result<Rules, String> {
        Rules::build(self.variant, &self.overrides)
    }
}

/// An opening: a start position and moves from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Written out as a record, side and counters (`/…/ a 0 0`), so that a
    /// game record stands on its own.
    pub start: StartPoint,
    pub moves: Vec<String>,
}

/// Plays up to `plies` uniformly random legal moves (fewer where a side has
/// none) and returns them: the random walk of `match --openings random:N` and
/// of `datagen`'s openings and `--random-plies`.
pub fn play_random_plies(
    game: &mut Game,
    plies: u32,
    rng: &mut impl Rng,
) -> Result<Vec<Move>, String> {
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = legal[rng.gen_range(0..legal.len())];
        game.play(mv)?;
        moves.push(mv);
    }
    Ok(moves)
}

/// Random openings of `plies` plies from the start, kept only when a short
/// search sees neither side winning outright; no opening twice.
pub fn random_openings(
    rules: &Rules,
    plies: u32,
    count: usize,
    seed: u64,
) -> Result<Vec<Opening>, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut engine = Engine::new();
    engine.set_hash(4)?;
    let start = StartPoint::at(&Position::start(rules), rules);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < count {
        tries += 1;
        if tries > 200 * count + 1000 {
            return Err(format!(
                "could not find {count} balanced random openings of {plies} plies"
            ));
        }
        let mut game = Game::new(rules.clone());
        let moves = play_random_plies(&mut game, plies, &mut rng)?;
        if game.outcome().is_some()
            || moves.len() < plies as usize
            || !seen.insert(game.position().hash())
        {
            continue;
        }
        engine.set_game(game);
        let verdict = engine.search(Limits::depth(3));
        if verdict.score.abs() >= WIN_BOUND {
            continue;
        }
        out.push(Opening {
            start: start.clone(),
            moves: moves.iter().map(Move::to_string).collect(),
        });
    }
    Ok(out)
}

/// Openings from a file: each line is `<record> <a|d> [<since> <ply>] [moves m…]`,
/// `startpos [moves m…]` or a bare move list; `#` starts a comment.
pub fn file_openings(rules: &Rules, path: &str) -> Result<Vec<Opening>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--openings {path}: {e}"))?;
    let start = StartPoint::at(&Position::start(rules), rules);
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (head, moves): (&str, Vec<String>) = match line.split_once("moves") {
            Some((h, m)) => (h.trim(), m.split_whitespace().map(String::from).collect()),
            None if line.starts_with('/') || line == "startpos" => (line, Vec::new()),
            None => ("", line.split_whitespace().map(String::from).collect()),
        };
        let opening_start = match head {
            "" | "startpos" => start.clone(),
            _ => StartPoint::from_words(&head.split_whitespace().collect::<Vec<_>>())
                .map_err(|e| format!("{path}:{}: {e}", i + 1))?,
        };
        let opening = Opening {
            start: opening_start,
            moves,
        };
        // Check it now, so that a bad line is named.
        opening_game(rules, &opening).map_err(|e| format!("{path}:{}: {e}", i + 1))?;
        out.push(opening);
    }
    if out.is_empty() {
        return Err(format!("{path}: no openings"));
    }
    Ok(out)
}

/// The game after an opening's moves.
pub fn opening_game(rules: &Rules, opening: &Opening) -> Result<Game, String> {
    let game = Game::from_start_and_moves(rules.clone(), &opening.start, &opening.moves)?;
    if let Some(o) = game.outcome() {
        return Err(format!("the opening ends the game ({o})"));
    }
    Ok(game)
}

/// One scheduled game.
#[derive(Clone, Copy, Debug)]
struct Pairing {
    number: usize,
    opening: usize,
    /// Which engine (0 or 1) plays the attackers.
    attacker: usize,
}

/// A finished game as the workers report it.
#[derive(Clone, Debug)]
struct Finished {
    pairing: Pairing,
    record: GameRecord,
}

/// Plays one game between two running engines (`players[side]`). Returns
/// the record and, for each side, whether its engine must be restarted.
fn play_game(
    cfg: &MatchConfig,
    rules: &Rules,
    (opening_index, opening): (usize, &Opening),
    number: usize,
    players: [&mut Player; 2],
) -> (GameRecord, [bool; 2]) {
    let names = [players[0].spec.name.clone(), players[1].spec.name.clone()];
    let mut players = players;
    let mut game = match opening_game(rules, opening) {
        Ok(g) => g,
        Err(_) => Game::new(rules.clone()),
    };
    let mut moves: Vec<RecordedMove> = opening
        .moves
        .iter()
        .map(|m| RecordedMove::opening(m))
        .collect();
    let first = game.setup_position().side_to_move();
    let mut clocks: [i64; 2] = match cfg.tc {
        TimeControl::Clock { base, .. } => [base as i64; 2],
        _ => [0; 2],
    };
    let mut restart = [false; 2];
    for p in players.iter_mut() {
        if let Err(_e) = p.new_game() {
            // Treated below as a crash of that side at its first move.
        }
    }
    let finish = |winner: Option<Side>,
                  reason: EndReason,
                  moves: Vec<RecordedMove>,
                  illegal: Option<String>| GameRecord {
        number,
        opening: Some(opening_index),
        variant: cfg.variant,
        overrides: cfg.overrides.clone(),
        start: opening.start.clone(),
        attackers: names[0].clone(),
        defenders: names[1].clone(),
        winner,
        reason,
        moves,
        illegal,
    };
    loop {
        if let Some(o) = game.outcome() {
            return (
                finish(o.winner, EndReason::Rule(o.reason), moves, None),
                restart,
            );
        }
        let side = game.side_to_move();
        let s = side.index();
        let loser_wins = Some(side.other());
        let player = &mut *players[s];
        if let Some((winner, reason)) = cfg.adjudication.verdict(&moves, first) {
            return (finish(winner, reason, moves, None), restart);
        }
        let start = Instant::now();
        let answer = player.request_move(&player::Turn {
            game: &game,
            start: &opening.start,
            moves: &moves,
            cfg,
            clocks: &clocks,
        });
        let elapsed = start.elapsed().as_millis() as u64;
        let answer = match answer {
            Ok(a) => a,
            Err(f) => {
                restart[s] = true;
                let reason = match (f, cfg.tc) {
                    (Failure::Timeout, TimeControl::Clock { .. }) => EndReason::Time,
                    (Failure::Timeout, _) => EndReason::Stall,
                    (Failure::Crashed, _) => EndReason::Crash,
                    (Failure::Malformed(text), _) => {
                        return (
                            finish(loser_wins, EndReason::IllegalMove, moves, Some(text)),
                            restart,
                        );
                    }
                };
                return (finish(loser_wins, reason, moves, None), restart);
            }
        };
        if let TimeControl::Clock { inc, .. } = cfg.tc {
            if elapsed as i64 > clocks[s] + cfg.time_margin as i64 {
                return (finish(loser_wins, EndReason::Time, moves, None), restart);
            }
            clocks[s] = clocks[s] - elapsed as i64 + inc as i64;
        }
        let text = answer.text;
        let legal = Move::parse(&text, rules.size())
            .ok()
            .filter(|m| game.position().is_legal(rules, *m));
        match legal {
            Some(mv) => {
                // Checked legal above, so play cannot fail.
                let _ = game.play(mv);
                moves.push(RecordedMove {
                    text: mv.to_string(),
                    ms: elapsed,
                    score: answer.score,
                });
            }
            None => {
                restart[s] = true;
                return (
                    finish(loser_wins, EndReason::IllegalMove, moves, Some(text)),
                    restart,
                );
            }
        }
    }
}

/// Per-engine, per-side tallies and the end reasons.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// First engine's results.
    pub overall: Wdl,
    /// `[engine][side]` results of that engine playing that side.
    pub by_side: [[Wdl; 2]; 2],
    pub pentanomial: Pentanomial,
    pub reasons: BTreeMap<String, u32>,
    /// Side results regardless of engine: attackers wins, defenders wins, draws.
    pub sides: [u32; 3],
    pub plies: u64,
    pub games: u32,
    pending_pairs: HashMap<usize, f64>,
}

impl Tally {
    fn add(&mut self, f: &Finished, repeat: bool) {
        let rec = &f.record;
        let attacker_engine = f.pairing.attacker;
        let score_first = match rec.winner {
            None => 0.5,
            Some(Side::Attackers) => (attacker_engine == 0) as u8 as f64,
            Some(Side::Defenders) => (attacker_engine == 1) as u8 as f64,
        };
        let bump = |w: &mut Wdl, score: f64| {
            if score == 1.0 {
                w.wins += 1;
            } else if score == 0.0 {
                w.losses += 1;
            } else {
                w.draws += 1;
            }
        };
        bump(&mut self.overall, score_first);
        bump(
            &mut self.by_side[0][if attacker_engine == 0 { 0 } else { 1 }],
            score_first,
        );
        bump(
            &mut self.by_side[1][if attacker_engine == 1 { 0 } else { 1 }],
            1.0 - score_first,
        );
        *self
            .reasons
            .entry(rec.reason.name().to_string())
            .or_default() += 1;
        self.sides[match rec.winner {
            Some(Side::Attackers) => 0,
            Some(Side::Defenders) => 1,
            None => 2,
        }] += 1;
        self.plies += rec.moves.len() as u64;
        self.games += 1;
        if repeat {
            if let Some(first) = self.pending_pairs.remove(&f.pairing.opening) {
                self.pentanomial.add(first, score_first);
            } else {
                self.pending_pairs.insert(f.pairing.opening, score_first);
            }
        }
    }

    fn elo_text(&self, repeat: bool) -> String {
        let est = if repeat && self.pentanomial.pairs() > 0 {
            stats::elo_pentanomial(&self.pentanomial)
        } else {
            stats::elo_trinomial(&self.overall)
        };
        elo_text(est)
    }

    fn sprt_state(&self, sprt: &Sprt, repeat: bool) -> SprtState {
        if repeat {
            sprt.state_pentanomial(&self.pentanomial)
        } else {
            sprt.state_trinomial(&self.overall)
        }
    }
}

/// `Elo +X ± M [low, high]`: the interval's two ends as well, since it
/// is not symmetric in Elo; an end the score's interval puts at 0 or 1 is
/// unbounded and named so.
fn elo_text(est: Option<stats::EloEstimate>) -> String {
    match est {
        Some(e) => {
            let end = |v: Option<f64>, inf: &str| v.map_or(inf.to_string(), |v| format!("{v:+.1}"));
            let unbounded = if e.low.is_none() || e.high.is_none() {
                " (the score's interval reaches 0 or 1: unbounded)"
            } else {
                ""
            };
            format!(
                "Elo {:+.1} ± {:.1} [{}, {}]{unbounded}, LOS {:.1}%",
                e.elo,
                e.margin,
                end(e.low, "-inf"),
                end(e.high, "+inf"),
                e.los * 100.0
            )
        }
        None => "Elo -".into(),
    }
}

fn llr_text(st: &SprtState) -> String {
    format!("LLR {:.2} [{:.2}, {:.2}]", st.llr, st.lower, st.upper)
}

/// Where an SPRT stopped a match: the games finished when the ratio first
/// crossed a bound. The games of pairs begun by then are still played, so
/// the final tally (and its ratio) can differ a little from the one that
/// decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStop {
    pub accepted_h1: bool,
    pub games: u32,
    pub llr: f64,
}

impl SprtStop {
    /// The stop that a test in state `st` after `games` games has reached, if any.
    fn reached(st: &SprtState, games: u32) -> Option<SprtStop> {
        st.verdict().map(|accepted_h1| SprtStop {
            accepted_h1,
            games,
            llr: st.llr,
        })
    }

    /// "H1 accepted at game N (LLR x; M more games were played)", for a
    /// report on `total_games` games.
    fn describe(&self, total_games: u32) -> String {
        let verdict = if self.accepted_h1 {
            "H1 accepted"
        } else {
            "H0 accepted"
        };
        let more = match total_games.saturating_sub(self.games) {
            0 => String::new(),
            1 => "; 1 more game was played".to_string(),
            n => format!("; {n} more games were played"),
        };
        format!(
            "{verdict} at game {} (LLR {:.2}{more})",
            self.games, self.llr
        )
    }
}

/// The result of a whole match.
pub struct MatchOutcome {
    pub tally: Tally,
    pub records: Vec<GameRecord>,
    pub sprt_stop: Option<SprtStop>,
}

/// The games still to play. Once the match is stopped (an SPRT verdict),
/// only the second games of pairs already begun are played, so that the
/// statistics stay on whole pairs.
struct Schedule {
    pending: VecDeque<Pairing>,
    begun: std::collections::HashSet<usize>,
    repeat: bool,
}

impl Schedule {
    fn next(&mut self, stopped: bool) -> Option<Pairing> {
        let index = if !stopped {
            0
        } else if self.repeat {
            self.pending
                .iter()
                .position(|p| self.begun.contains(&p.opening))?
        } else {
            return None;
        };
        let pairing = self.pending.remove(index)?;
        self.begun.insert(pairing.opening);
        Some(pairing)
    }
}

/// Starts each engine once and quits it, so that a match with an engine
/// that cannot start (or refuses an option) is refused with the reason
/// instead of being played as a string of crashes.
fn check_engines_start(cfg: &MatchConfig, rules: &Rules) -> Result<(), String> {
    for spec in &cfg.engines {
        let player = Player::start(
            spec,
            protocol_of(spec.proto),
            cfg.variant.name(),
            &cfg.overrides,
            rules,
        )?;
        player.quit();
    }
    Ok(())
}

/// Runs a match; progress goes to stderr, the report is returned.
pub fn run_match(cfg: &MatchConfig) -> Result<MatchOutcome, String> {
    let rules = cfg.rules()?;
    if cfg.games == 0 {
        return Err("--games must be at least 1".into());
    }
    if cfg.concurrency == 0 {
        return Err("--concurrency must be at least 1".into());
    }
    let games = if cfg.repeat {
        cfg.games.div_ceil(2) * 2
    } else {
        cfg.games
    };
    let opening_count = if cfg.repeat { games / 2 } else { games };
    let openings = match &cfg.openings {
        OpeningSource::Random(plies) => random_openings(&rules, *plies, opening_count, cfg.seed)?,
        OpeningSource::File(path) => {
            let all = file_openings(&rules, path)?;
            (0..opening_count)
                .map(|i| all[i % all.len()].clone())
                .collect()
        }
    };
    check_engines_start(cfg, &rules)?;
    if cfg.shard.is_some() && cfg.sprt.is_some() {
        return Err(
            "--sprt cannot stop a shard: run the shards, then 'konakis stats --sprt …' on their records"
                .into(),
        );
    }
    let pending: VecDeque<Pairing> = (0..games)
        .map(|g| Pairing {
            number: g + 1,
            opening: if cfg.repeat { g / 2 } else { g },
            attacker: g % 2,
        })
        .filter(|p| cfg.shard.is_none_or(|(k, n)| p.opening % n == k))
        .collect();
    let games = pending.len();
    let queue = Arc::new(Mutex::new(Schedule {
        pending,
        begun: Default::default(),
        repeat: cfg.repeat,
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = channel::<Finished>();
    let mut records_file = match &cfg.records {
        Some(path) => {
            Some(std::fs::File::create(path).map_err(|e| format!("--records {path}: {e}"))?)
        }
        None => None,
    };
    let openings = Arc::new(openings);
    let mut handles = Vec::new();
    for w in 0..cfg.concurrency.max(1) {
        let queue = queue.clone();
        let stop = stop.clone();
        let tx = tx.clone();
        let cfg = cfg.clone();
        let rules = rules.clone();
        let openings = openings.clone();
        let h = std::thread::Builder::new()
            .name(format!("match-worker-{w}"))
            .spawn(move || worker(&cfg, &rules, &openings, &queue, &stop, &tx))
            .map_err(|e| format!("cannot start a match worker: {e}"))?;
        handles.push(h);
    }
    drop(tx);

    let terminal = std::io::stderr().is_terminal() && !cfg.quiet;
    let bar = if terminal {
        let b = indicatif::ProgressBar::new(games as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let mut tally = Tally::default();
    let mut records = Vec::new();
    let mut sprt_stop = None;
    let names = [cfg.engines[0].name.clone(), cfg.engines[1].name.clone()];
    for f in rx {
        tally.add(&f, cfg.repeat);
        if let Some(file) = records_file.as_mut() {
            let _ = writeln!(file, "{}", f.record.line());
            let _ = file.flush();
        }
        let w = tally.overall;
        let mut msg = format!(
            "{} vs {}: +{} ={} -{} ({:.3}) {}",
            names[0],
            names[1],
            w.wins,
            w.draws,
            w.losses,
            w.score(),
            tally.elo_text(cfg.repeat)
        );
        if let Some(sprt) = &cfg.sprt {
            let st = tally.sprt_state(sprt, cfg.repeat);
            msg.push_str(&format!(", {}", llr_text(&st)));
            if sprt_stop.is_none() {
                sprt_stop = SprtStop::reached(&st, tally.games);
                if sprt_stop.is_some() {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
        match &bar {
            Some(b) => {
                b.set_position(tally.games as u64);
                b.set_message(msg);
            }
            None => {
                let _ = writeln!(
                    std::io::stderr(),
                    "game {}/{}: {} {} ({} plies) | {msg}",
                    tally.games,
                    games,
                    f.record.winner.map(|s| s.name()).unwrap_or("draw"),
                    f.record.reason,
                    f.record.moves.len()
                );
            }
        }
        records.push(f.record);
    }
    if let Some(b) = bar {
        b.finish();
    }
    for h in handles {
        let _ = h.join();
    }
    records.sort_by_key(|r| r.number);
    Ok(MatchOutcome {
        tally,
        records,
        sprt_stop,
    })
}

fn worker(
    cfg: &MatchConfig,
    rules: &Rules,
    openings: &[Opening],
    queue: &Mutex<Schedule>,
    stop: &AtomicBool,
    tx: &std::sync::mpsc::Sender<Finished>,
) {
    let mut engines: [Option<Player>; 2] = [None, None];
    let variant = cfg.variant.name();
    loop {
        let stopped = stop.load(Ordering::Relaxed);
        let next = queue.lock().ok().and_then(|mut q| q.next(stopped));
        let Some(pairing) = next else { break };
        // Start (or restart) both engines.
        let mut start_failure = None;
        for (i, slot) in engines.iter_mut().enumerate() {
            if slot.as_mut().is_some_and(|p| !p.alive()) {
                *slot = None;
            }
            if slot.is_none() {
                match Player::start(
                    &cfg.engines[i],
                    protocol_of(cfg.engines[i].proto),
                    variant,
                    &cfg.overrides,
                    rules,
                ) {
                    Ok(p) => *slot = Some(p),
                    Err(_) => start_failure = Some(i),
                }
            }
        }
        let opening = &openings[pairing.opening];
        let record = if let Some(bad) = start_failure {
            let bad_side = if pairing.attacker == bad {
                Side::Attackers
            } else {
                Side::Defenders
            };
            GameRecord {
                number: pairing.number,
                opening: Some(pairing.opening),
                variant: cfg.variant,
                overrides: cfg.overrides.clone(),
                start: opening.start.clone(),
                attackers: cfg.engines[pairing.attacker].name.clone(),
                defenders: cfg.engines[1 - pairing.attacker].name.clone(),
                winner: Some(bad_side.other()),
                reason: EndReason::Crash,
                moves: opening
                    .moves
                    .iter()
                    .map(|m| RecordedMove::opening(m))
                    .collect(),
                illegal: None,
            }
        } else {
            let [a, b] = &mut engines;
            let (Some(a), Some(b)) = (a.as_mut(), b.as_mut()) else {
                break;
            };
            let players: [&mut Player; 2] = if pairing.attacker == 0 {
                [a, b]
            } else {
                [b, a]
            };
            let (record, restart) = play_game(
                cfg,
                rules,
                (pairing.opening, opening),
                pairing.number,
                players,
            );
            for (side, r) in restart.iter().enumerate() {
                if *r {
                    let engine = if side == 0 {
                        pairing.attacker
                    } else {
                        1 - pairing.attacker
                    };
                    if let Some(mut p) = engines[engine].take() {
                        p.kill();
                    }
                }
            }
            // OTEP has no "new game": such engines start afresh for every game.
            for slot in engines.iter_mut() {
                if slot.as_ref().is_some_and(|p| p.spec.proto == Proto::Otep) {
                    if let Some(p) = slot.take() {
                        p.quit();
                    }
                }
            }
            record
        };
        if tx.send(Finished { pairing, record }).is_err() {
            break;
        }
    }
    for p in engines.into_iter().flatten() {
        p.quit();
    }
}

/// The final report, as text.
pub fn report(cfg: &MatchConfig, outcome: &MatchOutcome) -> String {
    let header = ReportHeader {
        names: [cfg.engines[0].name.clone(), cfg.engines[1].name.clone()],
        variant: cfg.variant,
        repeat: cfg.repeat,
        sprt: cfg.sprt,
        later_runs: Vec::new(),
        warnings: Vec::new(),
    };
    report_tally(&header, &outcome.tally, outcome.sprt_stop)
}

/// What a report says besides the tally.
pub struct ReportHeader {
    pub names: [String; 2],
    pub variant: Preset,
    pub repeat: bool,
    pub sprt: Option<Sprt>,
    /// Merged files that were further runs of the match, renumbered after
    /// the earlier files' games: `FILE: games N+`.
    pub later_runs: Vec<String>,
    /// Merged files that may not be one match: some played in pairs and
    /// some not, or under other rule changes. (Engine options are not in
    /// the records, so they cannot be compared.)
    pub warnings: Vec<String>,
}

/// The report of a tally (a match's, or merged records').
pub fn report_tally(head: &ReportHeader, t: &Tally, sprt_stop: Option<SprtStop>) -> String {
    let cfg = head;
    let names = [&head.names[0], &head.names[1]];
    let mut s = String::new();
    let w = t.overall;
    s.push_str(&format!(
        "Match {} vs {}, {} games, variant {}\n",
        names[0], names[1], t.games, cfg.variant
    ));
    if !head.later_runs.is_empty() {
        s.push_str(&format!(
            "  later runs, numbered after the earlier files' games: {}\n",
            head.later_runs.join(", ")
        ));
    }
    for w in &head.warnings {
        s.push_str(&format!("  warning: {w}\n"));
    }
    s.push_str(&format!(
        "  {}: +{} ={} -{}, score {:.3}, {}\n",
        names[0],
        w.wins,
        w.draws,
        w.losses,
        w.score(),
        t.elo_text(cfg.repeat)
    ));
    if cfg.repeat {
        let p = t.pentanomial.0;
        s.push_str(&format!(
            "  pairs (pentanomial 0/0.5/1/1.5/2): {} {} {} {} {}\n",
            p[0], p[1], p[2], p[3], p[4]
        ));
    }
    if let Some(sprt) = &cfg.sprt {
        let text = llr_text(&t.sprt_state(sprt, cfg.repeat));
        let verdict = sprt_stop.map_or("inconclusive".to_string(), |stop| stop.describe(t.games));
        s.push_str(&format!(
            "  SPRT elo0 {} elo1 {} alpha {} beta {}: {text}, {verdict}\n",
            sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta
        ));
    }
    s.push_str("  per engine and side (wins draws losses):\n");
    for (e, name) in names.iter().enumerate() {
        for (side, label) in [(0, "attackers"), (1, "defenders")] {
            let x = t.by_side[e][side];
            s.push_str(&format!(
                "    {name} as {label}: +{} ={} -{}\n",
                x.wins, x.draws, x.losses
            ));
        }
    }
    let n = t.games.max(1) as f64;
    let avg = t.plies as f64 / n;
    s.push_str(&format!(
        "  sides: attackers {:.0}% / defenders {:.0}% / draws {:.0}% ({:.1} plies, {:.1} moves on average)\n",
        100.0 * t.sides[0] as f64 / n,
        100.0 * t.sides[1] as f64 / n,
        100.0 * t.sides[2] as f64 / n,
        avg,
        avg / 2.0
    ));
    let reasons: Vec<String> = t.reasons.iter().map(|(r, c)| format!("{r} {c}")).collect();
    s.push_str(&format!("  end reasons: {}\n", reasons.join(", ")));
    s
}

/// Merges record files (say, the shards of one match) into one report:
/// identical to the match's own when the records are the whole match.
pub fn merge_records(paths: &[String], sprt: Option<Sprt>) -> Result<String, String> {
    let (head, tally, sprt_stop) = merged_tally(paths, sprt)?;
    Ok(report_tally(&head, &tally, sprt_stop))
}

/// The report of one test continued over runs whose records are gone (a
/// stopped run, a finished session): their pair counts, as their reports
/// printed them, added to the pairs of `records` (a merged tally of paired
/// games, or none). The ratio is the totals'; where it first crossed a
/// bound cannot be known for pairs carried over as counts.
pub fn carried_pairs_report(
    carried: &[Pentanomial],
    records: Option<&Tally>,
    sprt: Option<Sprt>,
) -> Result<String, String> {
    if let Some(t) = records {
        if t.games > 0 && t.pentanomial.pairs() == 0 {
            return Err("--pairs: the records hold no paired games (a match without --repeat); pair counts cannot join them".into());
        }
    }
    let from_records = records.map(|t| t.pentanomial).unwrap_or_default();
    let total = carried.iter().fold(from_records, |sum, p| sum.plus(p));
    let p = total.0;
    let mut s = format!(
        "Carried pairs ({}) and the records' ({}): {} pairs, pentanomial 0/0.5/1/1.5/2: {} {} {} {} {}\n",
        carried.iter().map(Pentanomial::pairs).sum::<u32>(),
        from_records.pairs(),
        total.pairs(),
        p[0],
        p[1],
        p[2],
        p[3],
        p[4]
    );
    s.push_str(&format!("  {}\n", elo_text(stats::elo_pentanomial(&total))));
    if let Some(sprt) = &sprt {
        let st = sprt.state_pentanomial(&total);
        let verdict = match st.verdict() {
            Some(true) => "H1 accepted",
            Some(false) => "H0 accepted",
            None => "inconclusive",
        };
        s.push_str(&format!(
            "  SPRT elo0 {} elo1 {} alpha {} beta {}: {}, {verdict} (on the totals)\n",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            llr_text(&st)
        ));
    }
    Ok(s)
}

/// A merged records file: its path, whether its games came in pairs, and
/// its rule changes.
type FileKind = (String, bool, Vec<(String, String)>);

/// What the records files hold, read in order.
struct Runs {
    records: Vec<GameRecord>,
    /// A note for each file that is a later run of the same match.
    later_runs: Vec<String>,
    kinds: Vec<FileKind>,
}

/// The records' games read into one tally, in the order of their numbers.
///
/// A file whose game numbers are already taken by an earlier file's
/// different games is another run of the same match (a continuation with a
/// new seed, say, in a later session): its games are numbered after the
/// earlier files' and its openings after theirs, so that its pairs stay its
/// own and the SPRT reads the runs one after another. The same game in two
/// files is an error.
pub fn merged_tally(
    paths: &[String],
    sprt: Option<Sprt>,
) -> Result<(ReportHeader, Tally, Option<SprtStop>), String> {
    let Runs {
        mut records,
        later_runs,
        kinds,
    } = read_runs(paths)?;
    if records.is_empty() {
        return Err("no game records".into());
    }
    records.sort_by_key(|r| r.number);
    if let Some(w) = records.windows(2).find(|w| w[0].number == w[1].number) {
        return Err(format!("game {} is recorded twice", w[0].number));
    }
    let variant = records[0].variant;
    if let Some(r) = records.iter().find(|r| r.variant != variant) {
        return Err(format!(
            "game {} is {}, game {} is {variant}",
            r.number, r.variant, records[0].number
        ));
    }
    let names = engine_names(&records)?;
    let mut openings = std::collections::HashMap::new();
    for r in &records {
        *openings.entry(r.opening.unwrap_or(r.number)).or_insert(0) += 1;
    }
    let repeat = openings.values().any(|&c| c > 1);
    let (tally, sprt_stop) = tally_in_order(&records, repeat, sprt.as_ref());
    let head = ReportHeader {
        names: names.map(|n| n.unwrap_or_else(|| "?".into())),
        variant,
        repeat,
        sprt,
        later_runs,
        warnings: file_warnings(&kinds),
    };
    Ok((head, tally, sprt_stop))
}

/// The games of every file, numbered on from the files before when a file
/// is a later run of the same match; with a note per later run and each
/// file's kind.
fn read_runs(paths: &[String]) -> Result<Runs, String> {
    let mut records: Vec<GameRecord> = Vec::new();
    // Where each game number so far came from: the file and its line.
    let mut seen: std::collections::HashMap<usize, (usize, String)> = Default::default();
    let mut later_runs = Vec::new();
    // Per file: whether its games came in pairs, and its rule changes.
    let mut kinds: Vec<FileKind> = Vec::new();
    for (file, path) in paths.iter().enumerate() {
        let text = read_text(path, "a records file")?;
        let mut run = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let r = GameRecord::parse(line).map_err(|e| format!("{path}:{}: {e}", i + 1))?;
            run.push((line.trim().to_string(), r));
        }
        let mut per_opening = std::collections::HashMap::new();
        for (_, r) in &run {
            *per_opening
                .entry(r.opening.unwrap_or(r.number))
                .or_insert(0) += 1;
        }
        if let Some((_, r)) = run.first() {
            let paired = per_opening.values().any(|&c| c > 1);
            kinds.push((path.clone(), paired, r.overrides.clone()));
        }
        let mut another_run = false;
        for (line, r) in &run {
            match seen.get(&r.number) {
                Some((f, known)) if known == line => {
                    return Err(format!(
                        "game {} is recorded twice ({} and {path})",
                        r.number, paths[*f]
                    ))
                }
                Some((f, _)) if *f != file => another_run = true,
                _ => {}
            }
        }
        if another_run {
            // Even, so that each game keeps its engines' sides.
            let last = records.iter().map(|r| r.number).max().unwrap_or(0);
            let number_shift = last + last % 2;
            let opening_shift = records
                .iter()
                .map(|r| r.opening.unwrap_or(r.number) + 1)
                .max()
                .unwrap_or(0);
            for (_, r) in &mut run {
                r.opening = Some(r.opening.unwrap_or(r.number) + opening_shift);
                r.number += number_shift;
            }
            later_runs.push(format!("{path}: games {}+", number_shift + 1));
        }
        for (line, r) in run {
            seen.entry(r.number).or_insert((file, line));
            records.push(r);
        }
    }
    Ok(Runs {
        records,
        later_runs,
        kinds,
    })
}

/// Which engine played which games: the runner gives the attackers of game
/// n to engine (n - 1) % 2. An error if the names do not make one match.
fn engine_names(records: &[GameRecord]) -> Result<[Option<String>; 2], String> {
    let mut names: [Option<String>; 2] = [None, None];
    for r in records {
        let a = (r.number - 1) % 2;
        for (engine, name) in [(a, &r.attackers), (1 - a, &r.defenders)] {
            match &names[engine] {
                None => names[engine] = Some(name.clone()),
                Some(known) if known == name => {}
                Some(known) => {
                    return Err(format!(
                        "game {}: '{name}' plays where '{known}' did; not one match",
                        r.number
                    ))
                }
            }
        }
    }
    Ok(names)
}

/// The tally of `records` read in the order of their numbers, and where the
/// SPRT first crosses a bound, as the match would have stopped.
fn tally_in_order(
    records: &[GameRecord],
    repeat: bool,
    sprt: Option<&Sprt>,
) -> (Tally, Option<SprtStop>) {
    let mut tally = Tally::default();
    let mut sprt_stop = None;
    for r in records {
        let pairing = Pairing {
            number: r.number,
            opening: r.opening.unwrap_or(r.number),
            attacker: (r.number - 1) % 2,
        };
        tally.add(
            &Finished {
                pairing,
                record: r.clone(),
            },
            repeat,
        );
        if let (Some(s), None) = (sprt, sprt_stop) {
            sprt_stop = SprtStop::reached(&tally.sprt_state(s, repeat), tally.games);
        }
    }
    (tally, sprt_stop)
}

/// Warnings where merged files look like different matches.
fn file_warnings(kinds: &[FileKind]) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some((first, paired, overrides)) = kinds.first() {
        for (path, p, o) in &kinds[1..] {
            if p != paired {
                let (pairs, single) = if *paired {
                    (first, path)
                } else {
                    (path, first)
                };
                warnings.push(format!(
                    "{pairs} holds games in pairs (--repeat), {single} does not: are they one match?"
                ));
            }
            if o != overrides {
                warnings.push(format!(
                    "{path} was played under other rule changes than {first}"
                ));
            }
        }
    }
    warnings
}
