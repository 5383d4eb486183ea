//! The engine: evaluation, transposition table, search threads (Lazy SMP
//! on a dedicated rayon pool) and time management, behind one API that
//! owns the rules, the game and the options. `go` returns at once;
//! progress and the result come back through callbacks. Every front end
//! (tei, OTEP, the match runner's openings, perft, bench) sets rules,
//! positions and options through it, so each is checked in one place.

pub mod bench;
mod busy;
pub mod eval;
pub mod history;
pub mod movepick;
pub mod params;
pub mod score;
mod searcher;
pub mod settings;
pub mod time;
pub mod tt;
pub mod wdl;

use crate::rules::otn::parse_otn_rules;
use crate::rules::perft::{divide, perft_until, perft_with, Counting};
use crate::rules::{Game, Move, MoveList, Position, Preset, Rules, StartPoint};
use history::HistoryStore;
use params::SearchParams;
pub use score::{Score, Wdl};
use searcher::{SearchSetup, Searcher, Shared};
use settings::{parse_check, parse_spin};
pub use settings::{Features, OptionInfo, OptionKind, Settings};
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
pub use time::Limits;
use tt::TranspositionTable;
use wdl::WdlModel;

/// A won position scores `WIN - plies to the win`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are proven wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Longest line searched.
pub const MAX_PLY: usize = 128;
/// The deepest iteration a search without a depth limit may reach.
pub const DEEPEST: i32 = MAX_PLY as i32 - 8;
/// The draw score before contempt.
const DRAW_VALUE_BASE: i32 = 0;

/// One progress report of the main search thread.
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: i32,
    pub seldepth: i32,
    pub multipv: usize,
    /// Centi-soldiers for the side to move, or a win/loss (see [`Score`]).
    pub score: i32,
    /// The side to move's chances by the rules' WDL model.
    pub wdl: Wdl,
    /// `Some` when an aspiration window failed: the score is only a bound.
    pub bound: Option<tt::Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub time: Duration,
    pub pv: Vec<Move>,
}

/// Which search a result belongs to: every `go` gets a new one, so a
/// front end can tell the current search's result from a stopped one's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchId(pub u64);

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    pub id: SearchId,
    /// `None` when the game is over or the side to move has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    /// The side to move's chances: by the WDL model, or the rules' verdict
    /// when the game is over.
    pub wdl: Wdl,
    /// All MultiPV lines, best first.
    pub lines: Vec<Line>,
}

/// One line of a search's answer.
#[derive(Clone, Debug)]
pub struct Line {
    pub mv: Move,
    pub score: i32,
    pub wdl: Wdl,
    pub pv: Vec<Move>,
}

pub type InfoCallback = Box<dyn FnMut(&Info) + Send>;
pub type DoneCallback = Box<dyn FnOnce(&SearchResult) + Send>;

/// A search running on its controller thread.
struct Running {
    id: SearchId,
    shared: Arc<Shared>,
    handle: JoinHandle<SearchResult>,
}

/// The engine: owns the rules, the game, the options, the transposition
/// table (allocated when first needed) and the thread pool.
pub struct Engine {
    settings: Settings,
    rules: Rules,
    game: Game,
    tt: Option<Arc<TranspositionTable>>,
    /// Each search thread's quiet-move history, kept across the searches
    /// of one game.
    histories: Arc<HistoryStore>,
    pool: Arc<rayon::ThreadPool>,
    pool_threads: usize,
    running: Option<Running>,
    searches: u64,
}

/// The tunable a hidden `Tune<Name>` option (lower case) sets.
fn tunable_option(lower: &str) -> Option<&'static params::Tunable> {
    lower.strip_prefix("tune").and_then(SearchParams::find)
}

fn build_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("konakis-search-{i}"))
        .stack_size(16 << 20)
        .build()
        .map_err(|e| format!("cannot start {threads} search threads: {e}"))
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine with default options, playing tablut from the start.
    pub fn new() -> Engine {
        let settings = Settings::default();
        let pool = build_pool(settings.threads).unwrap_or_else(|_| {
            // One thread can always be had; fall back silently.
            build_pool(1).unwrap_or_else(|e| panic!("no search thread: {e}")) // ok: the OS refuses all threads
        });
        let rules = Rules::default();
        Engine {
            game: Game::new(rules.clone()),
            rules,
            tt: None,
            histories: Arc::default(),
            pool: Arc::new(pool),
            pool_threads: settings.threads,
            settings,
            running: None,
            searches: 0,
        }
    }

    // ----- options -----

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Every option with its type and current value, engine settings first,
    /// then the rules.
    pub fn option_table(&self) -> Vec<OptionInfo> {
        settings::option_table(&self.settings, &self.rules)
    }

    /// Sets an option by name (case-insensitive), checking its value. A
    /// running search is stopped first. Rule options (`Variant`,
    /// `OpenTaflRules` and each rule) reset the game to the new rules' start
    /// position. On error nothing changes.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        self.stop_and_wait();
        let lower = name.to_ascii_lowercase();
        if lower == "clear hash" {
            self.clear_hash();
            return Ok(());
        }
        // The list options take an empty value (their empty list); every
        // other option needs one.
        let takes_empty = ["camps", "hostiletoattackers", "hostiletodefenders"];
        let value = value
            .map(str::trim)
            .filter(|v| !v.is_empty() || takes_empty.contains(&lower.as_str()))
            .ok_or_else(|| format!("option {name} needs a value"))?;
        let evaluation_before = (
            self.settings.eval,
            self.settings.eval_file.as_ref().map(|(p, _)| p.clone()),
            self.settings.weights_file.as_ref().map(|(p, _)| p.clone()),
        );
        let f = &mut self.settings.features;
        match lower.as_str() {
            "threads" => {
                let n = parse_spin(name, value, 1, settings::MAX_THREADS as i64)?;
                self.set_threads(n as usize)?;
            }
            "hash" => {
                let n = parse_spin(name, value, 1, settings::MAX_HASH_MIB as i64)?;
                self.set_hash(n as usize)?;
            }
            "moveoverhead" => {
                let n = parse_spin(name, value, 0, settings::MAX_MOVE_OVERHEAD_MS as i64)?;
                self.settings.move_overhead = Duration::from_millis(n as u64);
            }
            "multipv" => {
                self.settings.multipv =
                    parse_spin(name, value, 1, settings::MAX_MULTIPV as i64)? as usize
            }
            "ponder" => self.settings.ponder = parse_check(name, value)?,
            "uci_showwdl" => self.settings.show_wdl = parse_check(name, value)?,
            "contempt" => {
                let max = settings::MAX_CONTEMPT as i64;
                self.settings.contempt = parse_spin(name, value, -max, max)? as i32
            }
            "nullmove" => f.null_move = parse_check(name, value)?,
            "lmr" => f.lmr = parse_check(name, value)?,
            "aspiration" => f.aspiration = parse_check(name, value)?,
            "quiescence" => f.quiescence = parse_check(name, value)?,
            "futility" => f.futility = parse_check(name, value)?,
            "lmp" => f.late_move_pruning = parse_check(name, value)?,
            tune if tunable_option(tune).is_some() => {
                let t = tunable_option(tune).ok_or("no such tunable")?;
                let v = parse_spin(name, value, t.min as i64, t.max as i64)?;
                self.settings.params.set(t.tune, v as i32);
            }
            "eval" => {
                let lower = value.to_ascii_lowercase();
                self.settings.eval =
                    eval::EVAL_NAMES
                        .iter()
                        .find(|n| **n == lower)
                        .ok_or_else(|| {
                            format!(
                                "option Eval takes {}, not '{value}'",
                                eval::EVAL_NAMES.join(" or ")
                            )
                        })?;
            }
            "evalfile" => {
                self.settings.eval_file = if settings::unloads_file(value) {
                    None
                } else {
                    let net = eval::nnue::Network::load(value)
                        .map_err(|e| format!("option EvalFile: {e}; the net in use is kept"))?;
                    Some((value.to_string(), Arc::new(net)))
                };
            }
            "weightsfile" => {
                self.settings.weights_file = if settings::unloads_file(value) {
                    None
                } else {
                    let w = eval::learned::Weights::load(value).map_err(|e| {
                        format!("option WeightsFile: {e}; the weights in use are kept")
                    })?;
                    Some((value.to_string(), Arc::new(w)))
                };
            }
            "variant" => {
                let preset: Preset = value.parse().map_err(|e| format!("option Variant: {e}"))?;
                self.set_rules(Rules::preset(preset));
            }
            "opentaflrules" => self.set_rules(parse_otn_rules(value)?),
            _ => {
                if self.rules.get(name).is_none() {
                    return Err(format!("unknown option '{name}'"));
                }
                let mut rules = self.rules.clone();
                rules.set(name, value)?;
                self.set_rules(rules);
            }
        }
        // The table's entries hold static evaluations that pruning reads:
        // another evaluation must not find them.
        let evaluation_after = (
            self.settings.eval,
            self.settings.eval_file.as_ref().map(|(p, _)| p.clone()),
            self.settings.weights_file.as_ref().map(|(p, _)| p.clone()),
        );
        if evaluation_after != evaluation_before {
            self.clear_hash();
        }
        Ok(())
    }

    /// Sets the number of search threads (1 to 256).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        if !(1..=settings::MAX_THREADS).contains(&threads) {
            return Err(format!(
                "Threads must be 1 to {}, not {threads}",
                settings::MAX_THREADS
            ));
        }
        self.stop_and_wait();
        if threads != self.pool_threads {
            self.pool = Arc::new(build_pool(threads)?);
            self.pool_threads = threads;
        }
        self.settings.threads = threads;
        Ok(())
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_hash(&mut self, mib: usize) -> Result<(), String> {
        if !(1..=settings::MAX_HASH_MIB).contains(&mib) {
            return Err(format!(
                "Hash must be 1 to {} MiB, not {mib}",
                settings::MAX_HASH_MIB
            ));
        }
        self.stop_and_wait();
        // Free the old table first, so that resizing needs no room for both.
        let had_table = self.tt.take().is_some();
        match TranspositionTable::try_new(mib) {
            Ok(t) => self.tt = Some(Arc::new(t)),
            Err(e) => {
                if had_table {
                    self.tt = Some(Arc::new(TranspositionTable::new(self.settings.hash_mib)));
                }
                return Err(e);
            }
        }
        self.settings.hash_mib = mib;
        Ok(())
    }

    /// Makes what the first search would otherwise make on the clock: the
    /// transposition table (zeroing a large one takes tens of
    /// milliseconds). Protocols call it on `isready`; cheap once done.
    pub fn ready(&mut self) {
        self.table();
    }

    /// Empties the transposition table: a fresh zeroed table of the same
    /// size replaces it (at once, whatever its size).
    pub fn clear_hash(&mut self) {
        self.stop_and_wait();
        if self.tt.take().is_some() {
            self.tt = Some(Arc::new(TranspositionTable::new(self.settings.hash_mib)));
        }
    }

    // ----- rules and game -----

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// New rules; the game restarts from their start position.
    pub fn set_rules(&mut self, rules: Rules) {
        self.stop_and_wait();
        self.clear_hash_for(&rules);
        self.game = Game::new(rules.clone());
        self.rules = rules;
    }

    /// Empties the table when the rules change: a position's hash does not
    /// name the rules, so its entries would be another game's scores.
    fn clear_hash_for(&mut self, rules: &Rules) {
        if *rules != self.rules {
            self.clear_hash();
            self.histories.clear();
        }
    }

    /// Forgets what earlier searches learnt: the table and the histories.
    /// Each bench position starts from this, so its count is its own.
    pub fn clear_search_state(&mut self) {
        self.clear_hash();
        self.clear_histories();
    }

    /// Forgets the quiet-move histories of earlier searches (a new game).
    pub fn clear_histories(&mut self) {
        self.stop_and_wait();
        self.histories.clear();
    }

    /// A new game: the table and histories are cleared and the game
    /// restarts.
    pub fn new_game(&mut self) {
        self.clear_search_state();
        self.game = Game::new(self.rules.clone());
    }

    /// Sets up the game from a start point and moves (as text), under the
    /// current rules. On error (a bad position, an illegal move, named with
    /// its number) the game is unchanged.
    pub fn set_position<M: AsRef<str>>(
        &mut self,
        start: &StartPoint,
        moves: &[M],
    ) -> Result<(), String> {
        self.stop_and_wait();
        self.game = Game::from_start_and_moves(self.rules.clone(), start, moves)?;
        Ok(())
    }

    /// Takes over a game built elsewhere, with its rules.
    pub fn set_game(&mut self, game: Game) {
        self.stop_and_wait();
        self.clear_hash_for(game.rules());
        self.rules = game.rules().clone();
        self.game = game;
    }

    /// Plays one move in the current game. On error nothing changes.
    pub fn play(&mut self, mv: Move) -> Result<(), String> {
        self.stop_and_wait();
        self.game.play(mv)
    }

    /// Plays one move given as text (`e1-e3`). On error nothing changes.
    pub fn play_text(&mut self, text: &str) -> Result<Move, String> {
        self.stop_and_wait();
        self.game.play_str(text)
    }

    /// Leaf counts per legal move of the current position (perft divide).
    pub fn perft(&self, depth: u32, counting: Counting) -> Vec<(Move, u64)> {
        divide(self.game.position(), &self.rules, depth, counting)
    }

    /// Counts perft from the current position on a thread of its own, so
    /// that a protocol stays responsive: `each` receives every root move's
    /// count as it is known, `done` the total, or `None` once `stop` is set.
    pub fn perft_in_background(
        &self,
        depth: u32,
        counting: Counting,
        stop: Arc<AtomicBool>,
        mut each: impl FnMut(Move, u64) + Send + 'static,
        done: impl FnOnce(Option<u64>) + Send + 'static,
    ) -> Result<JoinHandle<()>, String> {
        let pos = *self.game.position();
        let rules = self.rules.clone();
        std::thread::Builder::new()
            .name("konakis-perft".into())
            .spawn(move || {
                let mut moves = MoveList::new();
                pos.generate_moves(&rules, &mut moves);
                let mut total = 0;
                for &mv in depth.checked_sub(1).map_or(&[][..], |_| &moves[..]) {
                    let child = pos.make(&rules, mv);
                    match perft_until(&child, &rules, depth - 1, counting, &stop) {
                        Some(n) => {
                            each(mv, n);
                            total += n;
                        }
                        None => return done(None),
                    }
                }
                done(Some(total))
            })
            .map_err(|e| format!("cannot start the perft thread: {e}"))
    }

    /// The leaf count of the current position at `depth`.
    pub fn perft_count(&self, depth: u32, counting: Counting) -> u64 {
        perft_with(self.game.position(), &self.rules, depth, counting)
    }

    /// The hand evaluation's terms for the current position.
    pub fn evaluation(&self) -> eval::Breakdown {
        eval::breakdown(self.game.position(), &self.rules)
    }

    /// The evaluation the search would use now, from the side to move's
    /// view, and which one it is.
    pub fn static_eval(&self) -> (i32, eval::Evaluator) {
        let e = self.evaluator();
        (e.evaluate(self.game.position(), &self.rules), e)
    }

    /// The evaluation a search would use now.
    pub fn evaluator(&self) -> eval::Evaluator {
        self.evaluator_named(self.settings.eval)
    }

    /// The evaluation option `Eval` set to `name` would give now.
    pub fn evaluator_named(&self, name: &str) -> eval::Evaluator {
        let file = self.settings.eval_file.as_ref().map(|(_, net)| net);
        let weights = self.settings.weights_file.as_ref().map(|(_, w)| w);
        eval::Evaluator::for_rules(name, &self.rules, file, weights)
            .for_side(self.game.position().side_to_move())
    }

    // ----- searching -----

    fn table(&mut self) -> Arc<TranspositionTable> {
        let hash_mib = self.settings.hash_mib;
        self.tt
            .get_or_insert_with(|| Arc::new(TranspositionTable::new(hash_mib)))
            .clone()
    }

    /// The state one search's threads share: the engine's table and
    /// histories, and a busy table sized for its threads. `hold`: the
    /// search answers only after `stop` or `ponderhit`.
    fn new_shared(&mut self, hold: bool) -> Shared {
        Shared::new(
            self.table(),
            self.histories.clone(),
            hold,
            self.settings.threads,
        )
    }

    fn next_id(&mut self) -> SearchId {
        self.searches += 1;
        SearchId(self.searches)
    }

    pub fn is_searching(&self) -> bool {
        self.running
            .as_ref()
            .is_some_and(|r| !r.handle.is_finished())
    }

    /// Starts a search of the current position and returns its id at once.
    /// `on_info` receives progress from the main thread; `on_done` receives
    /// the result once the search ends (by its limits or by
    /// [`Engine::stop`]). A search already running is stopped first. Fails
    /// only when no controller thread can be started.
    pub fn go(
        &mut self,
        limits: Limits,
        on_info: InfoCallback,
        on_done: DoneCallback,
    ) -> Result<SearchId, String> {
        self.stop_and_wait();
        // Infinite and ponder searches answer only after stop (or ponderhit).
        let hold = limits.ponder || limits.infinite;
        let shared = Arc::new(self.new_shared(hold));
        let setup = self.setup_for(&limits);
        let pool = self.pool.clone();
        let id = self.next_id();
        let thread_shared = shared.clone();
        let handle = std::thread::Builder::new()
            .name("konakis-controller".into())
            .spawn(move || run_search(id, &pool, &setup, &thread_shared, on_info, on_done))
            .map_err(|e| format!("cannot start the search thread: {e}"))?;
        self.running = Some(Running { id, shared, handle });
        Ok(id)
    }

    /// Searches the current position to the end of its limits and returns
    /// the result (for bench, matches, tools and tests).
    pub fn search(&mut self, limits: Limits) -> SearchResult {
        self.search_with(limits, |_| {})
    }

    /// Like [`Engine::search`], with progress reports.
    pub fn search_with(
        &mut self,
        limits: Limits,
        on_info: impl FnMut(&Info) + Send,
    ) -> SearchResult {
        self.stop_and_wait();
        let shared = self.new_shared(limits.ponder);
        let setup = self.setup_for(&limits);
        let id = self.next_id();
        run_search(id, &self.pool, &setup, &shared, on_info, |_| {})
    }

    /// Like [`Engine::search`], but stopped early once `stop` is set; the
    /// flag says whether it was.
    pub fn search_until(
        &mut self,
        limits: Limits,
        stop: &AtomicBool,
    ) -> Result<(SearchResult, bool), String> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.go(
            limits,
            Box::new(|_| {}),
            Box::new(move |r| {
                let _ = tx.send(r.clone());
            }),
        )?;
        let mut stopped = false;
        loop {
            match rx.recv_timeout(Duration::from_millis(5)) {
                Ok(result) => {
                    self.wait();
                    return Ok((result, stopped));
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if !stopped && stop.load(Ordering::Relaxed) {
                        stopped = true;
                        self.stop();
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    let result = self.wait();
                    return result
                        .map(|r| (r, stopped))
                        .ok_or_else(|| "the search thread failed".to_string());
                }
            }
        }
    }

    fn setup_for(&self, limits: &Limits) -> SearchSetup {
        let game = &self.game;
        let root = *game.position();
        let side = root.side_to_move();
        let deadlines = time::deadlines(
            limits,
            side,
            self.settings.move_overhead,
            root.ply,
            self.rules.size(),
        );
        let max_depth = limits.depth.unwrap_or(DEEPEST).clamp(1, DEEPEST);
        let max_depth = match limits.mate {
            Some(m) => max_depth.min((2 * m as i32).clamp(1, DEEPEST)),
            None => max_depth,
        };
        let mut root_moves = limits.search_moves.clone();
        root_moves.retain(|m| root.is_legal(&self.rules, *m));
        SearchSetup {
            rules: self.rules.clone(),
            game_over: game.outcome().is_some(),
            verdict: game.outcome().map(|o| wdl::wdl_of_outcome(o.winner, side)),
            wdl: WdlModel::for_rules(&self.rules),
            root,
            history: game
                .counted_positions()
                .iter()
                .map(Position::hash)
                .collect(),
            max_depth,
            node_limit: limits.nodes,
            deadlines,
            mate_moves: limits.mate,
            multipv: self.settings.multipv.max(1),
            root_moves,
            contempt: self.settings.contempt,
            features: self.settings.features,
            params: self.settings.params,
            evaluator: self.evaluator(),
            threads: self.settings.threads,
            oversubscribed: std::thread::available_parallelism()
                .is_ok_and(|cores| self.settings.threads > cores.get()),
        }
    }

    /// Asks the running search to stop; `on_done` follows promptly.
    pub fn stop(&self) {
        if let Some(r) = &self.running {
            r.shared.pondering.store(false, Ordering::Relaxed);
            r.shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// The search running now, if any (one started by [`Engine::go`] that
    /// has not yet finished).
    pub fn current_search(&self) -> Option<SearchId> {
        self.running
            .as_ref()
            .filter(|r| !r.handle.is_finished())
            .map(|r| r.id)
    }

    /// Stops the search `id` if it is still the one running: a front end
    /// that serves several clients stops its own search, never a newer
    /// one that replaced it.
    pub fn stop_search(&self, id: SearchId) {
        if self.running.as_ref().is_some_and(|r| r.id == id) {
            self.stop();
        }
    }

    /// How far the running search has got: its id, the nodes searched so
    /// far (counted in batches, so a little behind) and the time since it
    /// started. For front ends that show progress between `info` reports.
    pub fn progress(&self) -> Option<(SearchId, u64, Duration)> {
        self.running
            .as_ref()
            .filter(|r| !r.handle.is_finished())
            .map(|r| {
                (
                    r.id,
                    r.shared.nodes.load(Ordering::Relaxed),
                    r.shared.start.elapsed(),
                )
            })
    }

    /// The opponent played the expected move: the pondering search goes on
    /// under the clock, which starts now.
    pub fn ponderhit(&self) {
        if let Some(r) = &self.running {
            let now = r.shared.start.elapsed().as_nanos() as u64;
            r.shared.clock_offset_ns.store(now, Ordering::Relaxed);
            r.shared.pondering.store(false, Ordering::Relaxed);
        }
    }

    /// Waits for a running search to end and returns its result.
    pub fn wait(&mut self) -> Option<SearchResult> {
        let r = self.running.take()?;
        r.handle.join().ok()
    }

    fn stop_and_wait(&mut self) {
        self.stop();
        self.wait();
    }

    /// The transposition table's fill, in permille.
    pub fn hashfull(&self) -> u32 {
        self.tt.as_ref().map_or(0, |t| t.hashfull())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop_and_wait();
    }
}

/// How long the answer waits, past the hard deadline, for the main thread
/// to unwind before it is given from the last completed iteration.
const STOP_GRACE: Duration = Duration::from_millis(5);

/// Runs one search: the main thread and the helpers on the pool, kept to
/// the deadlines by this (controller) thread, which answers through
/// `on_done` as soon as the result is known, then waits for every search
/// thread to finish before returning the result.
fn run_search(
    id: SearchId,
    pool: &rayon::ThreadPool,
    setup: &SearchSetup,
    shared: &Shared,
    mut on_info: impl FnMut(&Info) + Send,
    on_done: impl FnOnce(&SearchResult),
) -> SearchResult {
    shared.tt.new_search();
    let root = &setup.root;
    let mut legal = MoveList::new();
    root.generate_moves(&setup.rules, &mut legal);
    let empty = SearchResult {
        id,
        best: None,
        ponder: None,
        score: 0,
        depth: 0,
        nodes: 0,
        time: Duration::ZERO,
        pv: Vec::new(),
        wdl: setup
            .verdict
            .unwrap_or_else(|| setup.wdl.wdl(0, &setup.root)),
        lines: Vec::new(),
    };
    if legal.is_empty() || setup.game_over {
        wait_while_pondering(shared);
        on_done(&empty);
        return empty;
    }
    let threads = setup.threads.max(1);
    let (report, reports) = std::sync::mpsc::channel::<MainReport>();
    std::thread::scope(|threads_scope| {
        let search = threads_scope.spawn(move || {
            pool.scope(|scope| {
                for helper in 1..threads {
                    scope.spawn(move |_| {
                        let mut s = Searcher::new(helper, setup, shared);
                        s.iterate(|_| {}, |_| {});
                        s.flush_nodes();
                        s.keep_history();
                    });
                }
                let mut s = Searcher::new(0, setup, shared);
                let lines = s.iterate(
                    |info: &Info| {
                        let _ = report.send(MainReport::Info(info.clone()));
                    },
                    |lines: &[searcher::RootLine]| {
                        let _ = report.send(MainReport::Iteration(lines.to_vec()));
                    },
                );
                s.flush_nodes();
                s.keep_history();
                // An infinite or pondering search waits for `stop` before answering.
                wait_while_pondering(shared);
                shared.stop.store(true, Ordering::Relaxed);
                let _ = report.send(MainReport::Done(lines));
            });
        });
        let lines = relay_main_thread(shared, &setup.deadlines, &reports, &mut on_info);
        let result = build_result(&empty, &legal, &lines, setup, shared);
        if lines.is_empty() {
            shared.answered.store(true, Ordering::Relaxed);
        }
        // Reports still on their way are dropped: nothing follows the answer.
        on_done(&result);
        let _ = search.join();
        result
    })
}

/// What the main search thread tells the controller.
enum MainReport {
    Info(Info),
    /// The lines of a completed iteration.
    Iteration(Vec<searcher::RootLine>),
    /// The final lines: the search is over.
    Done(Vec<searcher::RootLine>),
}

/// Passes the main thread's reports on until it is done, and returns its
/// final lines. With a hard deadline, stops the search when it passes (on
/// the clock, which a pondering search has not started yet) and waits only
/// a short grace after it for the main thread to unwind; then answers with
/// its last completed iteration. The main thread may be starved of CPU
/// (many threads on few cores, a loaded machine): this thread keeps time,
/// and past the last deadline answers without lines if the main thread has
/// not completed its first iteration.
fn relay_main_thread(
    shared: &Shared,
    deadlines: &time::Deadlines,
    reports: &std::sync::mpsc::Receiver<MainReport>,
    on_info: &mut impl FnMut(&Info),
) -> Vec<searcher::RootLine> {
    use std::sync::mpsc::RecvTimeoutError;
    let (hard, last) = (deadlines.hard, deadlines.last);
    let tick = Duration::from_millis(2);
    let mut grace_ends = None;
    let mut completed = Vec::new();
    loop {
        let wait = if let Some(end) = grace_ends {
            match shared.clock_elapsed() {
                now if now < end => Some(end - now),
                // The main thread always completes depth 1: wait for it,
                // up to the last moment.
                now if completed.is_empty() && last.is_none_or(|l| now < l) => {
                    Some(last.map_or(tick, |l| tick.min(l - now)))
                }
                _ => return completed,
            }
        } else if shared.pondering.load(Ordering::Relaxed) {
            hard.map(|_| tick)
        } else {
            hard.map(|h| h.saturating_sub(shared.clock_elapsed()))
        };
        let report = match wait {
            None => reports.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(w) if w.is_zero() => Err(RecvTimeoutError::Timeout),
            Some(w) => reports.recv_timeout(w),
        };
        match report {
            Ok(MainReport::Info(info)) => on_info(&info),
            Ok(MainReport::Iteration(lines)) => completed = lines,
            Ok(MainReport::Done(lines)) => return lines,
            Err(RecvTimeoutError::Disconnected) => return completed,
            Err(RecvTimeoutError::Timeout) => {
                let past_hard = hard.is_some_and(|h| shared.clock_elapsed() >= h);
                if grace_ends.is_none() && past_hard && !shared.pondering.load(Ordering::Relaxed) {
                    shared.stop.store(true, Ordering::Relaxed);
                    grace_ends = Some(shared.clock_elapsed() + STOP_GRACE);
                }
            }
        }
    }
}

/// The result from the main thread's lines (best first).
fn build_result(
    empty: &SearchResult,
    legal: &MoveList,
    lines: &[searcher::RootLine],
    setup: &SearchSetup,
    shared: &Shared,
) -> SearchResult {
    let nodes = shared.nodes.load(Ordering::Relaxed);
    let time = shared.start.elapsed();
    let Some(first) = lines.first() else {
        // No completed iteration: the main thread was starved past the
        // last deadline (or failed).
        let mv = move_without_search(setup, legal);
        return SearchResult {
            best: Some(mv),
            nodes,
            time,
            pv: vec![mv],
            ..empty.clone()
        };
    };
    let mut ponder = first.pv.get(1).copied();
    if ponder.is_none() {
        let child = setup.root.make(&setup.rules, first.mv);
        ponder = shared
            .tt
            .probe(child.hash())
            .and_then(|e| e.mv)
            .filter(|&m| child.is_legal(&setup.rules, m));
    }
    SearchResult {
        best: Some(first.mv),
        ponder,
        score: first.score,
        depth: first.depth,
        nodes,
        time,
        pv: first.pv.clone(),
        wdl: setup.wdl.wdl(first.score, &setup.root),
        lines: lines
            .iter()
            .map(|l| Line {
                mv: l.mv,
                score: l.score,
                wdl: setup.wdl.wdl(l.score, &setup.root),
                pv: l.pv.clone(),
            })
            .collect(),
        ..empty.clone()
    }
}

/// A move chosen without search, for an answer that cannot wait for the
/// first iteration: one that wins at once, else the best by the static
/// evaluation of the position after it.
fn move_without_search(setup: &SearchSetup, legal: &MoveList) -> Move {
    let (root, rules) = (&setup.root, &setup.rules);
    let mover = root.side_to_move();
    legal
        .iter()
        .copied()
        .filter(|mv| setup.root_moves.is_empty() || setup.root_moves.contains(mv))
        .max_by_key(|&mv| {
            let child = root.make(rules, mv);
            match child.outcome() {
                Some(outcome) if outcome.winner == Some(mover) => i32::MAX,
                Some(outcome) if outcome.winner.is_some() => i32::MIN,
                Some(_) => 0,
                None => -setup.evaluator.evaluate(&child, rules),
            }
        })
        .unwrap_or(legal[0])
}

/// `go infinite` and `go ponder` must not answer before `stop` (or
/// `ponderhit`, for ponder searches whose clock then runs out at once).
fn wait_while_pondering(shared: &Shared) {
    while shared.pondering.load(Ordering::Relaxed) && !shared.stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{parse_record, Side, Square};

    /// The answer that cannot wait for a search still takes a win in one,
    /// and keeps to `searchmoves`.
    #[test]
    fn a_move_without_search_takes_a_win_in_one() {
        let rules = Rules::preset(Preset::Copenhagen);
        // The king on a3, attackers on e2 and f2 (rank 1 first).
        let setup = parse_record("/11/4tt5/K10/11/11/11/11/11/11/11/11/").expect("a record");
        let pos = Position::from_setup(&setup, Side::Defenders, &rules, 0, 0).expect("valid");
        let mut engine = Engine::new();
        engine.set_game(Game::from_position(rules.clone(), pos));
        let mut limits = Limits::depth(1);
        let choose = |limits: &Limits| {
            let setup = engine.setup_for(limits);
            let mut legal = MoveList::new();
            pos.generate_moves(&rules, &mut legal);
            move_without_search(&setup, &legal).to_string()
        };
        // Both corners of the a-file win.
        let best = choose(&limits);
        assert!(["a3-a1", "a3-a11"].contains(&best.as_str()), "{best}");
        let square = |name| Square::parse(name, rules.size()).expect("a square");
        let other = Move::new(square("a3"), square("b3"));
        limits.search_moves = vec![other];
        assert_eq!(choose(&limits), "a3-b3");
    }
}
