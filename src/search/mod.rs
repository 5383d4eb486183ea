//! The engine: evaluation, transposition table, search threads (Lazy SMP
//! on a dedicated rayon pool) and time management, behind an API with a
//! non-blocking `go`/`stop` and callbacks for `info` and the best move.
//! Protocols (tei, OTEP) and the match runner all sit on this API.

pub mod bench;
pub mod eval;
mod searcher;
pub mod time;
pub mod tt;

use crate::rules::{Game, Move, Position, Rules, Side};
use searcher::{SearchSetup, Searcher, Shared};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;
pub use time::Limits;
use tt::TranspositionTable;

/// A won position scores `WIN - plies to the win`.
pub const WIN: i32 = 30_000;
/// Scores beyond this are proven wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;
/// Longest line searched.
pub const MAX_PLY: usize = 128;
/// The draw score before contempt.
const DRAW_VALUE_BASE: i32 = 0;

/// Search features that can be switched off (to measure what each is worth).
#[derive(Clone, Copy, Debug)]
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

/// Engine settings a user can change.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    pub threads: usize,
    pub hash_mib: usize,
    pub move_overhead: Duration,
    pub multipv: usize,
    /// Centi-soldiers the engine gives up to avoid a draw (negative: seeks draws).
    pub contempt: i32,
    pub features: Features,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 1,
            hash_mib: 64,
            move_overhead: Duration::from_millis(30),
            multipv: 1,
            contempt: 0,
            features: Features::default(),
        }
    }
}

/// One progress report of the main search thread.
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: i32,
    pub seldepth: i32,
    pub multipv: usize,
    /// Centi-soldiers for the side to move, or a win/loss (see [`score_text`]).
    pub score: i32,
    pub bound: Option<tt::Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub time: Duration,
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// `None` when the game is over or the side to move has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    /// All MultiPV lines, best first.
    pub lines: Vec<(Move, i32, Vec<Move>)>,
}

/// `cp <x>` or `mate <n>` (moves; negative when the side to move is lost).
pub fn score_text(score: i32) -> String {
    if score >= WIN_BOUND {
        format!("mate {}", (WIN - score + 1) / 2)
    } else if score <= -WIN_BOUND {
        format!("mate -{}", (WIN + score + 1) / 2)
    } else {
        format!("cp {score}")
    }
}

type InfoCallback = Box<dyn FnMut(&Info) + Send>;
type DoneCallback = Box<dyn FnOnce(&SearchResult) + Send>;

/// The engine: owns the transposition table and the thread pool.
pub struct Engine {
    pub options: EngineOptions,
    tt: Arc<TranspositionTable>,
    pool: Arc<rayon::ThreadPool>,
    pool_threads: usize,
    shared: Option<Arc<Shared>>,
    running: Option<JoinHandle<SearchResult>>,
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
    pub fn new() -> Engine {
        let options = EngineOptions::default();
        let pool = build_pool(options.threads).unwrap_or_else(|_| {
            // One thread can always be had; fall back silently.
            build_pool(1).unwrap_or_else(|e| panic!("no search thread: {e}")) // ok: the OS refuses all threads
        });
        Engine {
            tt: Arc::new(TranspositionTable::new(options.hash_mib)),
            pool: Arc::new(pool),
            pool_threads: options.threads,
            options,
            shared: None,
            running: None,
        }
    }

    /// Sets the number of search threads (1 to 256).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        if !(1..=256).contains(&threads) {
            return Err(format!("Threads must be 1 to 256, not {threads}"));
        }
        self.wait();
        if threads != self.pool_threads {
            self.pool = Arc::new(build_pool(threads)?);
            self.pool_threads = threads;
        }
        self.options.threads = threads;
        Ok(())
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_hash(&mut self, mib: usize) -> Result<(), String> {
        if !(1..=65536).contains(&mib) {
            return Err(format!("Hash must be 1 to 65536 MiB, not {mib}"));
        }
        self.wait();
        // Free the old table first, so that resizing needs no room for both.
        self.tt = Arc::new(TranspositionTable::new(1));
        match TranspositionTable::try_new(mib) {
            Ok(t) => self.tt = Arc::new(t),
            Err(e) => {
                self.tt = Arc::new(TranspositionTable::new(self.options.hash_mib));
                return Err(e);
            }
        }
        self.options.hash_mib = mib;
        Ok(())
    }

    /// Forgets everything learnt (new game).
    pub fn clear(&mut self) {
        self.wait();
        self.tt.clear();
    }

    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Starts a search and returns at once. `on_info` receives progress from
    /// the main thread; `on_done` receives the result once the search ends
    /// (by its limits or by [`Engine::stop`]). A search already running is
    /// stopped first.
    pub fn go(
        &mut self,
        game: &Game,
        limits: Limits,
        on_info: InfoCallback,
        on_done: DoneCallback,
    ) {
        self.stop();
        self.wait();
        // Infinite and ponder searches answer only after stop (or ponderhit).
        let hold = limits.ponder || limits.infinite;
        let shared = Arc::new(Shared::new(self.tt.clone(), hold));
        self.shared = Some(shared.clone());
        let setup = self.setup_for(game, &limits);
        let pool = self.pool.clone();
        let handle = std::thread::Builder::new()
            .name("konakis-controller".into())
            .spawn(move || {
                let result = run_search(&pool, &setup, &shared, on_info);
                on_done(&result);
                result
            });
        match handle {
            Ok(h) => self.running = Some(h),
            Err(_) => {
                self.running = None;
            }
        }
    }

    /// Runs a search to its end and returns the result (for bench, matches
    /// and tests).
    pub fn search(&mut self, game: &Game, limits: Limits) -> SearchResult {
        self.search_with(game, limits, |_| {})
    }

    /// Like [`Engine::search`], with progress reports.
    pub fn search_with(
        &mut self,
        game: &Game,
        limits: Limits,
        on_info: impl FnMut(&Info) + Send,
    ) -> SearchResult {
        self.stop();
        self.wait();
        let shared = Arc::new(Shared::new(self.tt.clone(), limits.ponder));
        let setup = self.setup_for(game, &limits);
        let mut cb = on_info;
        run_search(&self.pool, &setup, &shared, &mut cb)
    }

    fn setup_for(&self, game: &Game, limits: &Limits) -> SearchSetup {
        let root = *game.position();
        let side = root.side_to_move();
        let deadlines = time::deadlines(limits, side, self.options.move_overhead);
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 8)
            .clamp(1, MAX_PLY as i32 - 8);
        let max_depth = match limits.mate {
            Some(m) => max_depth.min((2 * m as i32).clamp(1, MAX_PLY as i32 - 8)),
            None => max_depth,
        };
        let mut root_moves = limits.search_moves.clone();
        root_moves.retain(|m| root.is_legal(game.rules(), *m));
        SearchSetup {
            rules: game.rules().clone(),
            root,
            history: game.positions().iter().map(Position::hash).collect(),
            max_depth,
            node_limit: limits.nodes,
            deadlines,
            mate_moves: limits.mate,
            multipv: self.options.multipv.max(1),
            root_moves,
            contempt: self.options.contempt,
            features: self.options.features,
            threads: self.options.threads,
        }
    }

    /// Asks the running search to stop; `on_done` follows promptly.
    pub fn stop(&self) {
        if let Some(s) = &self.shared {
            s.pondering.store(false, Ordering::Relaxed);
            s.stop.store(true, Ordering::Relaxed);
        }
    }

    /// The opponent played the expected move: the pondering search goes on
    /// under the clock, which starts now.
    pub fn ponderhit(&self) {
        if let Some(s) = &self.shared {
            let now = s.start.elapsed().as_nanos() as u64;
            s.clock_offset_ns.store(now, Ordering::Relaxed);
            s.pondering.store(false, Ordering::Relaxed);
        }
    }

    /// Waits for a running search to end and returns its result.
    pub fn wait(&mut self) -> Option<SearchResult> {
        let h = self.running.take()?;
        h.join().ok()
    }

    /// The transposition table's fill, in permille.
    pub fn hashfull(&self) -> u32 {
        self.tt.hashfull()
    }
}

fn run_search(
    pool: &rayon::ThreadPool,
    setup: &SearchSetup,
    shared: &Shared,
    mut on_info: impl FnMut(&Info) + Send,
) -> SearchResult {
    shared.tt.new_search();
    let root = &setup.root;
    let mut legal = crate::rules::MoveList::new();
    root.generate_moves(&setup.rules, &mut legal);
    let empty = SearchResult {
        best: None,
        ponder: None,
        score: 0,
        depth: 0,
        nodes: 0,
        time: Duration::ZERO,
        pv: Vec::new(),
        lines: Vec::new(),
    };
    if legal.is_empty() || root_is_over(setup) {
        wait_while_pondering(shared);
        return empty;
    }
    let main_lines = Mutex::new(Vec::new());
    let threads = setup.threads.max(1);
    pool.scope(|scope| {
        for id in 1..threads {
            scope.spawn(move |_| {
                let mut s = Searcher::new(id, setup, shared);
                s.iterate(|_| {});
                s.flush_nodes();
            });
        }
        let mut s = Searcher::new(0, setup, shared);
        let lines = s.iterate(&mut on_info);
        s.flush_nodes();
        // An infinite or pondering search waits for `stop` before answering.
        wait_while_pondering(shared);
        shared.stop.store(true, Ordering::Relaxed);
        if let Ok(mut m) = main_lines.lock() {
            *m = lines;
        }
    });
    let lines = main_lines.into_inner().unwrap_or_default();
    let nodes = shared.nodes.load(Ordering::Relaxed);
    let time = shared.start.elapsed();
    let Some(first) = lines.first() else {
        // Stopped before depth 1 finished: play the first legal move.
        return SearchResult {
            best: Some(legal[0]),
            nodes,
            time,
            pv: vec![legal[0]],
            ..empty
        };
    };
    let mut ponder = first.pv.get(1).copied();
    if ponder.is_none() {
        let child = root.make(&setup.rules, first.mv);
        if let Some(e) = shared.tt.probe(child.hash()) {
            if child.is_legal(&setup.rules, e.mv) {
                ponder = Some(e.mv);
            }
        }
    }
    SearchResult {
        best: Some(first.mv),
        ponder,
        score: first.score,
        depth: first.depth,
        nodes,
        time,
        pv: first.pv.clone(),
        lines: lines
            .iter()
            .map(|l| (l.mv, l.score, l.pv.clone()))
            .collect(),
    }
}

/// Whether the root position's game has already ended by a history rule
/// (the caller normally checks `Game::outcome` first).
fn root_is_over(setup: &SearchSetup) -> bool {
    setup.root.outcome().is_some()
}

/// `go infinite` and `go ponder` must not answer before `stop` (or
/// `ponderhit`, for ponder searches whose clock then runs out at once).
fn wait_while_pondering(shared: &Shared) {
    while shared.pondering.load(Ordering::Relaxed) && !shared.stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The side a search result's score favours, for reports.
pub fn winner_of_score(score: i32, to_move: Side) -> Option<Side> {
    if score >= WIN_BOUND {
        Some(to_move)
    } else if score <= -WIN_BOUND {
        Some(to_move.other())
    } else {
        None
    }
}

/// A fresh game position and rules for tests and tools.
pub fn game_from(rules: Rules, record: &str, side: Side) -> Result<Game, String> {
    Game::from_record(rules, record, side, 0, 0)
}
