//! One search thread: iterative deepening, principal-variation alpha-beta
//! with aspiration windows, reverse futility, null-move (verified) and
//! late-move pruning, late-move reductions, king-threat extensions and a
//! quiescence stage for captures, escape threats and the king's steps beside
//! a restricted corner (a threat no soldier can block). The tuning numbers
//! live in [`super::params`].

use super::busy::{self, BusyTable};
use super::eval::cache::EvalCache;
use super::eval::nnue::NnueStack;
use super::eval::{open_roads, Evaluator};
use super::history::{History, HistoryStore};
use super::movepick::{
    pick_next, retain_moves, score_all_but_quiets, score_quiets, QuietFilter, ScoreList,
};
use super::params::*;
use super::time::Deadlines;
use super::tt::{Bound, Entry, TranspositionTable};
use super::{Features, Info, DEEPEST, DRAW_VALUE_BASE, MAX_PLY, WIN, WIN_BOUND};
use crate::rules::options::Repetition;
use crate::rules::{Bitboard, Move, MoveList, Position, Rules, Side, Square};
use arrayvec::ArrayVec;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the main thread's time management knows of the iterations so
/// far: how often and how lately the best move changed, whether the score
/// fell, and how long the last two iterations took.
#[derive(Default)]
struct IterationClock {
    best: Option<Move>,
    best_changes: u32,
    stable_iterations: u32,
    score: Option<i32>,
    score_fell: bool,
    last: Duration,
    before_last: Duration,
}

impl IterationClock {
    fn completed(&mut self, line: &RootLine, depth: i32, took: Duration) {
        if self.best == Some(line.mv) {
            self.stable_iterations += 1;
        } else {
            if depth > 1 {
                self.best_changes += 1;
            }
            self.stable_iterations = 0;
        }
        self.best = Some(line.mv);
        self.score_fell = self
            .score
            .is_some_and(|before| line.score <= before - FALLING_SCORE_CP);
        self.score = Some(line.score);
        self.before_last = self.last;
        self.last = took;
    }

    fn next_depth(&mut self, depth: i32) {
        if self.best_changes > 0 && depth % BEST_MOVE_CHANGE_DECAY_DEPTHS == 0 {
            self.best_changes -= 1;
        }
    }

    /// The soft limit's factor: stretched while the best move keeps
    /// changing or the score falls, shrunk while the best move holds.
    fn soft_scale(&self) -> f64 {
        let changing = 1.0
            + BEST_MOVE_CHANGE_STRETCH * self.best_changes.min(BEST_MOVE_CHANGES_COUNTED) as f64;
        let stable = if self.stable_iterations >= STABLE_ITERATIONS {
            STABLE_SCALE
        } else {
            1.0
        };
        let falling = if self.score_fell { FALLING_SCALE } else { 1.0 };
        changing * stable * falling
    }

    /// How long the next iteration should take.
    fn next_iteration(&self) -> Duration {
        let growth = if self.before_last.is_zero() {
            ITERATION_GROWTH_MIN
        } else {
            (self.last.as_secs_f64() / self.before_last.as_secs_f64())
                .clamp(ITERATION_GROWTH_MIN, ITERATION_GROWTH_MAX)
        };
        self.last.mul_f64(growth)
    }
}

/// What all threads of one search share.
pub struct Shared {
    pub tt: std::sync::Arc<TranspositionTable>,
    /// The game's history tables, one per thread, kept between searches.
    pub histories: std::sync::Arc<HistoryStore>,
    pub stop: AtomicBool,
    /// Set once the answer was given without the main thread's first
    /// iteration (it was starved past the last deadline): it may stop too.
    pub answered: AtomicBool,
    /// True while a `go ponder` search waits for `ponderhit`.
    pub pondering: AtomicBool,
    /// Nanoseconds after the search start at which the clock started
    /// (moved forward by `ponderhit`).
    pub clock_offset_ns: AtomicU64,
    pub nodes: AtomicU64,
    pub start: Instant,
    /// The deepest iteration a helper completed (single-line searches),
    /// and its lines: the main thread takes it rather than search that
    /// depth again, and stops an iteration it makes redundant.
    helper_depth: AtomicI32,
    helper_lines: Mutex<Vec<RootLine>>,
    /// The depth the main thread is searching: helpers keep ahead of it.
    main_depth: AtomicI32,
    /// The children being searched now, which other threads put off.
    busy: BusyTable,
}

impl Shared {
    pub fn new(
        tt: std::sync::Arc<TranspositionTable>,
        histories: std::sync::Arc<HistoryStore>,
        pondering: bool,
        threads: usize,
    ) -> Shared {
        Shared {
            tt,
            histories,
            stop: AtomicBool::new(false),
            answered: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            clock_offset_ns: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            start: Instant::now(),
            helper_depth: AtomicI32::new(0),
            helper_lines: Mutex::new(Vec::new()),
            main_depth: AtomicI32::new(0),
            busy: BusyTable::new(threads),
        }
    }

    /// A helper's completed iteration, kept if it is the deepest yet.
    fn offer_lines(&self, lines: &[RootLine]) {
        let Some(depth) = lines.first().map(|l| l.depth) else {
            return;
        };
        if depth <= self.helper_depth.load(Ordering::Relaxed) {
            return;
        }
        if let Ok(mut kept) = self.helper_lines.lock() {
            if depth > self.helper_depth.load(Ordering::Relaxed) {
                *kept = lines.to_vec();
                self.helper_depth.store(depth, Ordering::Relaxed);
            }
        }
    }

    /// The helpers' deepest completed iteration, if it reaches `depth`.
    fn lines_at_least(&self, depth: i32) -> Option<Vec<RootLine>> {
        if self.helper_depth.load(Ordering::Relaxed) < depth {
            return None;
        }
        let kept = self.helper_lines.lock().ok()?;
        (!kept.is_empty()).then(|| kept.clone())
    }
    /// Time on the clock since it started for this move.
    pub fn clock_elapsed(&self) -> Duration {
        let offset = Duration::from_nanos(self.clock_offset_ns.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(offset)
    }
}

/// Settings of one search, the same for all threads.
#[derive(Clone)]
pub struct SearchSetup {
    pub rules: Rules,
    /// The game already ended by a rule that needs history (repetition,
    /// ply limits): there is nothing to search.
    pub game_over: bool,
    /// The side to move's chances in a game the rules have ended.
    pub verdict: Option<super::Wdl>,
    /// The model that turns the root's scores into chances.
    pub wdl: super::wdl::WdlModel,
    pub root: Position,
    /// Hashes of the game's positions before the root (oldest first).
    pub history: Vec<u64>,
    pub max_depth: i32,
    pub node_limit: Option<u64>,
    pub deadlines: Deadlines,
    pub mate_moves: Option<u32>,
    pub multipv: usize,
    pub root_moves: Vec<Move>,
    pub contempt: i32,
    pub features: Features,
    /// The tunable search numbers (`Tune*` options).
    pub params: SearchParams,
    pub evaluator: Evaluator,
    pub threads: usize,
    /// More search threads than the machine has cores.
    pub oversubscribed: bool,
}

/// A root move with its latest score and line.
#[derive(Clone, Debug)]
pub struct RootLine {
    pub mv: Move,
    pub score: i32,
    pub pv: Vec<Move>,
    pub depth: i32,
    pub seldepth: i32,
}

/// Nodes a thread counts before it adds them to the shared total (and the
/// main thread looks at the clock).
const NODE_BATCH: u64 = 1024;

/// The alpha-beta window of a node.
#[derive(Clone, Copy, Debug)]
struct Window {
    alpha: i32,
    beta: i32,
}

impl Window {
    fn new(alpha: i32, beta: i32) -> Window {
        Window { alpha, beta }
    }
    /// The child's window: negated and swapped.
    fn flipped(self) -> Window {
        Window::new(-self.beta, -self.alpha)
    }
    /// The null window just above alpha, from the child's side.
    fn null_above_alpha(self) -> Window {
        Window::new(-self.alpha - 1, -self.alpha)
    }
}

/// What kind of node is searched: on the principal variation (full
/// window, no pruning), or off it, where a null move may be tried unless
/// the node follows one (no two null moves in a row) or verifies one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeKind {
    Pv,
    NonPv,
    NoNull,
}

impl NodeKind {
    fn is_pv(self) -> bool {
        self == NodeKind::Pv
    }
    /// The kind of a node's first child: PV below PV, else an ordinary
    /// node (where a null move may be tried again).
    fn pv_child(self) -> NodeKind {
        if self.is_pv() {
            NodeKind::Pv
        } else {
            NodeKind::NonPv
        }
    }
}

/// A move's place in the move loop, for late-move reductions.
#[derive(Clone, Copy, Debug)]
struct LateMove {
    index: usize,
    quiet: bool,
}

/// Where a node stands: its remaining depth, its distance from the root,
/// and its kind.
#[derive(Clone, Copy, Debug)]
struct Frame {
    depth: i32,
    ply: usize,
    kind: NodeKind,
}

/// What a node knows when it starts searching its moves.
struct NodeFacts {
    side: Side,
    king: Option<Square>,
    /// The attackers face an open road to an escape square: they must
    /// answer it, so nothing is pruned. (A road to a square beside a
    /// restricted corner is answered too, but pruning there as usual
    /// measured better: it is common on open boards.)
    threatened: bool,
    static_eval: i32,
}

pub struct Searcher<'a> {
    pub id: usize,
    setup: &'a SearchSetup,
    shared: &'a Shared,
    rules: &'a Rules,
    /// Hashes of history + search path, for repetition.
    path: Vec<u64>,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    history: History,
    pv: Vec<[Option<Move>; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    pub nodes: u64,
    unreported: u64,
    seldepth: usize,
    stopped: bool,
    /// Until the main thread completes depth 1 it does not stop: a move is
    /// always a searched one (a stop, a node limit or a tiny clock then
    /// ends the search right after it), unless the answer could not wait.
    first_iteration_done: bool,
    /// The depth of the main thread's iteration under way, which a helper
    /// completing it first makes redundant (single-line searches).
    supersedable_depth: i32,
    /// Set when the main thread stopped its iteration for a helper's.
    superseded: bool,
    root_side: Side,
    lmr: [[u8; 64]; 64],
    /// Root moves already taken by earlier MultiPV lines this iteration.
    excluded_root: Vec<Move>,
    /// The net's accumulators when the evaluation is NNUE.
    nnue: Option<NnueStack>,
    /// Evaluations already computed, when the evaluation is not NNUE (a
    /// net's incremental update is cheaper than a lookup's miss).
    eval_cache: EvalCache,
}

impl<'a> Searcher<'a> {
    pub fn new(id: usize, setup: &'a SearchSetup, shared: &'a Shared) -> Searcher<'a> {
        let mut lmr = [[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (i, cell) in row.iter_mut().enumerate().skip(1) {
                *cell = setup.params.lmr_reduction(d, i);
            }
        }
        Searcher {
            id,
            setup,
            shared,
            rules: &setup.rules,
            path: setup.history.clone(),
            killers: [[None; 2]; MAX_PLY + 1],
            history: shared.histories.take(id),
            pv: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            unreported: 0,
            seldepth: 0,
            stopped: false,
            first_iteration_done: false,
            supersedable_depth: i32::MAX,
            superseded: false,
            root_side: setup.root.side_to_move(),
            lmr,
            excluded_root: Vec::new(),
            nnue: match &setup.evaluator {
                Evaluator::Nnue(net) => Some(NnueStack::new(net.clone(), MAX_PLY + 1)),
                _ => None,
            },
            eval_cache: EvalCache::new(),
        }
    }

    /// The static evaluation of `pos`, entered at `ply` (a net's
    /// accumulator is kept per ply and updated from the ply above).
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        match &mut self.nnue {
            Some(stack) => stack.evaluate(pos, ply),
            None => {
                let (evaluator, rules) = (&self.setup.evaluator, self.rules);
                self.eval_cache
                    .get_or_insert(pos.hash(), || evaluator.evaluate(pos, rules))
            }
        }
    }

    pub fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Counts a node and checks the limits.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unreported += 1;
        if let Some(limit) = self.setup.node_limit {
            let total = if self.setup.threads == 1 {
                self.nodes
            } else {
                self.shared.nodes.load(Ordering::Relaxed) + self.unreported
            };
            if total >= limit {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
        }
        if self.unreported >= NODE_BATCH {
            self.shared
                .nodes
                .fetch_add(self.unreported, Ordering::Relaxed);
            self.unreported = 0;
            if self.setup.oversubscribed {
                // More search threads than cores: give the controller,
                // which keeps the clock, its turn.
                std::thread::yield_now();
            }
            if self.is_main() && !self.shared.pondering.load(Ordering::Relaxed) {
                if let Some(hard) = self.setup.deadlines.hard {
                    if self.shared.clock_elapsed() >= hard {
                        self.shared.stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
    }

    pub fn flush_nodes(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.unreported, Ordering::Relaxed);
        self.unreported = 0;
    }

    #[inline]
    fn should_stop(&mut self) -> bool {
        if !self.first_iteration_done
            && self.is_main()
            && !self.shared.answered.load(Ordering::Relaxed)
        {
            return false;
        }
        if !self.stopped && self.shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
        }
        if !self.stopped
            && self.shared.helper_depth.load(Ordering::Relaxed) >= self.supersedable_depth
        {
            self.stopped = true;
            self.superseded = true;
        }
        self.stopped
    }

    fn draw_score(&self, pos: &Position) -> i32 {
        let c = self.setup.contempt + DRAW_VALUE_BASE;
        if pos.side_to_move() == self.root_side {
            -c
        } else {
            c
        }
    }

    /// The score of a position ended by a rule that needs history or
    /// counters (repetition, ply limits), if one applies.
    ///
    /// A repetition ends the game when it is the rules' count of
    /// occurrences, the game's positions before the root counted as the
    /// rules count them. Inside the tree a first recurrence of a position
    /// the search itself reached again is scored as the rules' outcome too
    /// (the side could repeat once more), as a heuristic. A decisive
    /// repetition depends on the path, not the position, so it is scored
    /// below `WIN_BOUND`: never a proof the table keeps, the iteration
    /// stops on, the bot resigns on or training drops.
    fn rule_score(&self, pos: &Position, ply: usize) -> Option<i32> {
        let rules = self.rules.options();
        // `path` ends with this position; earlier ones since the last
        // capture may repeat it.
        let h = pos.hash();
        let n = self.path.len();
        let window = n - (pos.plies_since_capture as usize + 1).min(n);
        let ends_games = !matches!(rules.repetition, Repetition::DefendersForbidden);
        if ends_games && n > 0 {
            // Only a position with the same side to move can be this one
            // (the hash holds the side), and no position comes back sooner
            // than four plies (both sides' moves undone): every second
            // position from four plies back to the last capture.
            let last = n - 1;
            let root = self.setup.history.len().saturating_sub(1).max(window);
            let mut occurrences = 1;
            let mut searched_again = false;
            for i in (window..last.saturating_sub(3)).rev().step_by(2) {
                if self.path[i] == h {
                    occurrences += 1;
                    searched_again |= i >= root;
                }
            }
            if occurrences > 1 && (occurrences >= rules.repetition_count as usize || searched_again)
            {
                let win = REPETITION_WIN - ply as i32;
                return Some(match rules.repetition {
                    Repetition::None | Repetition::Draw | Repetition::DefendersForbidden => {
                        self.draw_score(pos)
                    }
                    // The side that just moved made the repetition.
                    Repetition::MoverLoses => win,
                    Repetition::DefendersLose if pos.side_to_move() == Side::Defenders => -win,
                    Repetition::DefendersLose => win,
                });
            }
        }
        if rules.no_capture_limit > 0 && pos.plies_since_capture >= rules.no_capture_limit {
            return Some(self.draw_score(pos));
        }
        if rules.ply_limit > 0 && pos.ply >= rules.ply_limit {
            return Some(self.draw_score(pos));
        }
        None
    }

    /// A move that wins at once, if the side to move has one: an escape, a
    /// king capture, or (where the rules have them) an encirclement or the
    /// cannot-escape rule completed by a move beside the king.
    fn immediate_win(&self, pos: &Position) -> Option<Move> {
        let rules = self.rules;
        let k = pos.king_square()?;
        match pos.side_to_move() {
            Side::Defenders => open_roads(pos, rules).first().map(|e| Move::new(k, e)),
            Side::Attackers => {
                let around = k.bb().neighbours(rules.masks().board) & !pos.occupied();
                // The king's capture is read off the board, the cheap test
                // first; a move is made only where another rule might end
                // the game with it.
                for to in around.squares() {
                    if pos.captures_king_on_arrival(rules, to) {
                        let reachers = pos.soldiers_reaching(rules, to, Side::Attackers);
                        if let Some(from) = reachers.first() {
                            return Some(Move::new(from, to));
                        }
                    }
                }
                if !pos.attacker_may_win_otherwise(rules, around) {
                    return None;
                }
                for to in around.squares() {
                    for from in pos.soldiers_reaching(rules, to, Side::Attackers).squares() {
                        let mv = Move::new(from, to);
                        let outcome = pos.make(rules, mv).outcome();
                        if outcome.is_some_and(|o| o.winner == Some(Side::Attackers)) {
                            return Some(mv);
                        }
                    }
                }
                None
            }
        }
    }

    /// The score of a position the side to move wins with `mv`, which ends
    /// the line's PV (so a reported win shows its winning move).
    fn win_now(&mut self, ply: usize, mv: Move) -> i32 {
        if ply + 1 < self.pv_len.len() {
            self.pv[ply][ply] = Some(mv);
            self.pv_len[ply] = ply + 1;
        }
        WIN - ply as i32 - 1
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = Some(mv);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Common start of every node: resets the PV, tracks the selective
    /// depth, and scores a position the last move already won.
    #[inline]
    fn enter_node(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        self.pv_len[ply] = ply;
        if let Some(stack) = &mut self.nnue {
            stack.visit(pos, ply);
        }
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        // The move that led here won for the side that made it.
        pos.outcome().map(|_| -(WIN - ply as i32))
    }

    /// The checks before any work at a node below the root: the game ended
    /// by a rule, the line is too long, or the window closes because a
    /// shorter win is already known (mate-distance pruning).
    fn early_score(&mut self, pos: &Position, ply: usize, w: &mut Window) -> Option<i32> {
        if let Some(s) = self.rule_score(pos, ply) {
            return Some(s);
        }
        if ply >= MAX_PLY - 2 {
            return Some(self.evaluate(pos, ply));
        }
        w.alpha = w.alpha.max(-(WIN - ply as i32));
        w.beta = w.beta.min(WIN - ply as i32 - 1);
        (w.alpha >= w.beta).then_some(w.alpha)
    }

    /// The stored entry of a node, and its score when it settles the node.
    fn probe_tt(
        &self,
        key: u64,
        depth: i32,
        w: Window,
        ply: usize,
        pv_node: bool,
    ) -> (Option<Entry>, Option<i32>) {
        let entry = self.shared.tt.probe(key);
        let cutoff = entry.and_then(|e| {
            if pv_node || e.depth < depth {
                return None;
            }
            let s = score_from_tt(e.score, ply);
            match e.bound {
                Bound::Exact => Some(s),
                Bound::Lower if s >= w.beta => Some(s),
                Bound::Upper if s <= w.alpha => Some(s),
                _ => None,
            }
        });
        (entry, cutoff)
    }

    /// The moves to search at a node: at the root, only the requested root
    /// moves less those of earlier MultiPV lines.
    /// (Filled in place: a returned list would be copied whole, 1 KiB.)
    fn node_moves(&self, pos: &Position, root: bool, moves: &mut MoveList) {
        moves.clear();
        pos.generate_moves(self.rules, moves);
        if self.rules.options().repetition == Repetition::DefendersForbidden
            && pos.side_to_move() == Side::Defenders
        {
            // `path` ends with this position; the boards since the last
            // capture are the ones a defenders' move may not recreate.
            let n = self.path.len();
            let window = (pos.plies_since_capture as usize + 1).min(n);
            let earlier = &self.path[n - window..];
            moves.retain(|m| !pos.recreates_board(*m, earlier));
        }
        if root && !self.setup.root_moves.is_empty() {
            moves.retain(|m| self.setup.root_moves.contains(m));
        }
        if root && !self.excluded_root.is_empty() {
            moves.retain(|m| !self.excluded_root.contains(m));
        }
    }

    /// Facing an open road, a move that blocks none of it loses to the
    /// king's walk out, unless it ends the game first by a rule that needs
    /// history (a repetition, a ply limit): keeps only the moves that may
    /// not lose at once. Most of a search's nodes were such children when a
    /// king chased roads near a corner, and each cost a `make`.
    fn keep_road_blocks(&self, pos: &Position, moves: &mut MoveList) {
        let Some(k) = pos.king_square() else {
            return;
        };
        let options = self.rules.options();
        let limit_next = (options.ply_limit > 0 && pos.ply + 1 >= options.ply_limit)
            || (options.no_capture_limit > 0
                && pos.plies_since_capture + 1 >= options.no_capture_limit);
        if limit_next {
            return;
        }
        let blocks = pos.road_squares(self.rules, k);
        let repeats = matches!(
            options.repetition,
            Repetition::Draw | Repetition::DefendersLose
        );
        // `path` ends with this position; a child can repeat one since the
        // last capture (a capture starts a new window, so it repeats none).
        let n = self.path.len();
        let window = (pos.plies_since_capture as usize + 1).min(n);
        let earlier = &self.path[n - window..];
        moves.retain(|m| blocks.has(m.to()) || (repeats && pos.recreates_board(*m, earlier)));
    }

    /// Reverse futility: far enough above beta at a shallow depth, the side
    /// to move keeps its lead. Not under an escape threat, nor with an
    /// attacker beside the king when the defenders move.
    fn reverse_futility_cuts(
        &self,
        pos: &Position,
        facts: &NodeFacts,
        depth: i32,
        beta: i32,
        pv_node: bool,
    ) -> bool {
        self.setup.features.futility
            && !pv_node
            && !facts.threatened
            && depth <= self.setup.params.get(Tune::FutilityMaxDepth)
            && beta.abs() < WIN_BOUND
            && facts.static_eval - self.setup.params.get(Tune::FutilityMarginPerPly) * depth >= beta
            && !(facts.side == Side::Defenders && pos.king_pressed(self.rules))
    }

    /// Null move: let the opponent move twice; if the side to move still
    /// beats beta, cut (verified by a reduced search at high depth, as tafl
    /// has zugzwang-like positions: an attacker cordon in which every move
    /// opens a gap). Returns the score to cut with.
    fn null_move_cutoff(
        &mut self,
        pos: &Position,
        facts: &NodeFacts,
        depth: i32,
        beta: i32,
        ply: usize,
    ) -> Option<i32> {
        let tried = self.setup.features.null_move
            && !facts.threatened
            && depth >= self.setup.params.get(Tune::NullMoveMinDepth)
            && facts.static_eval >= beta
            && beta.abs() < WIN_BOUND
            && pos.pieces(facts.side).count() >= NULL_MOVE_MIN_PIECES;
        if !tried {
            return None;
        }
        let r = self.setup.params.null_move_reduction(depth);
        let child = pos.make_null();
        self.path.push(child.hash());
        let child_window = Window::new(-beta, -beta + 1);
        let score = -self.search(
            &child,
            depth - 1 - r,
            child_window,
            ply + 1,
            NodeKind::NoNull,
        );
        self.path.pop();
        if self.stopped {
            return Some(0);
        }
        if score < beta {
            return None;
        }
        if depth < NULL_MOVE_VERIFY_DEPTH {
            return Some(if score >= WIN_BOUND { beta } else { score });
        }
        let v = self.search(
            pos,
            depth - r,
            Window::new(beta - 1, beta),
            ply,
            NodeKind::NoNull,
        );
        (v >= beta).then_some(v)
    }

    /// Principal-variation search of one node.
    fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut w: Window,
        ply: usize,
        kind: NodeKind,
    ) -> i32 {
        if let Some(lost) = self.enter_node(pos, ply) {
            return lost;
        }
        let root = ply == 0;
        let pv_node = kind.is_pv();
        if !root {
            if let Some(s) = self.early_score(pos, ply, &mut w) {
                return s;
            }
        }
        if self.should_stop() {
            return 0;
        }
        if depth <= 0 {
            return if self.setup.features.quiescence {
                self.qsearch(pos, w.alpha, w.beta, ply, 0)
            } else {
                self.evaluate(pos, ply)
            };
        }
        let key = pos.hash();
        let (entry, tt_cutoff) = self.probe_tt(key, depth, w, ply, pv_node);
        if let Some(s) = tt_cutoff {
            return s;
        }
        if !root {
            if let Some(mv) = self.immediate_win(pos) {
                return self.win_now(ply, mv);
            }
        }
        let side = pos.side_to_move();
        let threatened = side == Side::Attackers && open_roads(pos, self.rules).any();
        // The moves are listed after the pruning that may cut without them,
        // unless something needs them first: the root's filters, the road
        // blocks, the repetitions a defenders' move may not make.
        let list_first = root
            || threatened
            || (side == Side::Defenders
                && self.rules.options().repetition == Repetition::DefendersForbidden);
        let mut moves = MoveList::new();
        let no_moves = if list_first {
            self.node_moves(pos, root, &mut moves);
            moves.is_empty()
        } else {
            !pos.has_moves(self.rules)
        };
        if no_moves {
            return if root { -WIN } else { -(WIN - ply as i32) };
        }
        let facts = NodeFacts {
            side,
            king: pos.king_square(),
            threatened,
            static_eval: match entry {
                Some(e) => e.eval,
                None => self.evaluate(pos, ply),
            },
        };
        if facts.threatened && !root {
            self.keep_road_blocks(pos, &mut moves);
            if moves.is_empty() {
                // Every move leaves the road open: the king walks out next.
                return -(WIN - ply as i32 - 2);
            }
        }
        if self.reverse_futility_cuts(pos, &facts, depth, w.beta, pv_node) {
            return facts.static_eval;
        }
        if kind == NodeKind::NonPv {
            if let Some(s) = self.null_move_cutoff(pos, &facts, depth, w.beta, ply) {
                return s;
            }
        }
        if !list_first {
            self.node_moves(pos, root, &mut moves);
        }
        let tt_move = entry.and_then(|e| e.mv);
        let frame = Frame { depth, ply, kind };
        let (best, best_move) = self.search_moves(pos, &facts, &mut moves, tt_move, frame, w);
        if self.stopped {
            return best;
        }
        let bound = if best >= w.beta {
            Bound::Lower
        } else if best > w.alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if !root || self.excluded_root.is_empty() {
            self.shared.tt.store(
                key,
                best_move,
                score_to_tt(best, ply),
                facts.static_eval,
                depth,
                bound,
            );
        }
        best
    }

    /// The move loop of a node: picks moves best-first, prunes late quiet
    /// moves near the leaves, searches each child, and keeps the best.
    /// Returns the best score and its move; on a stop, the best score so
    /// far (or 0).
    fn search_moves(
        &mut self,
        pos: &Position,
        facts: &NodeFacts,
        moves: &mut MoveList,
        tt_move: Option<Move>,
        frame: Frame,
        mut w: Window,
    ) -> (i32, Option<Move>) {
        let Frame { depth, ply, kind } = frame;
        let pv_node = kind.is_pv();
        let rules = self.rules;
        let side = facts.side;
        let targets = pos.capture_targets(rules, side);
        let mut scores = ScoreList::new();
        let scored = score_all_but_quiets(
            &mut scores,
            pos,
            rules,
            moves,
            targets,
            tt_move,
            &self.history,
            &self.killers[ply],
        );
        // The quiet moves are scored only when picking reaches them, as
        // most nodes cut off before; meanwhile a history stage is open
        // (its mark kept here), so that they are scored as they would
        // have been now. Not at high depth, where the journal would grow
        // with a large subtree, and such nodes are few; nor where no move
        // but quiet ones is scored (picking reaches them at once).
        let mut stage = None;
        if scored < moves.len() {
            if scored > 0 && depth <= QUIETS_DEFERRED_MAX_DEPTH {
                stage = Some(self.history.open_stage());
            } else {
                score_quiets(&mut scores, side, moves, 0, &self.history);
            }
        }
        let mut best = -WIN - 1;
        let mut best_move = None;
        let lmp_node = self.setup.features.late_move_pruning
            && !pv_node
            && !facts.threatened
            && depth <= self.setup.params.get(Tune::LmpMaxDepth);
        let surely_quiet = self.surely_quiet_filter(pos, facts, targets, lmp_node, ply);
        let late_move_limit = self.setup.params.late_move_limit(depth);
        let extension_slack = self.setup.params.get(Tune::ThreatExtensionSlack);
        let approaches_before = if side == Side::Defenders {
            pos.approach_roads(rules)
        } else {
            Bitboard::EMPTY
        };
        // Quiet moves searched without a cutoff, to lose history if a later
        // move cuts off.
        let mut failed_quiets = ArrayVec::<Move, 64>::new();
        // With other threads searching, a later move whose child one of
        // them is searching at this depth waits until the others are done.
        let defers = depth >= busy::MIN_DEPTH && self.shared.busy.in_use();
        let mut deferred = ArrayVec::<(Move, usize), { busy::MAX_DEFERRED }>::new();
        let mut deferred_taken = 0;
        let mut next = 0;
        loop {
            let (mv, i, was_deferred) = if next < moves.len() {
                let prune_late = lmp_node && next == late_move_limit && best > -WIN_BOUND;
                if let Some(mark) = stage {
                    if next == scored || prune_late {
                        // Every move but the quiet ones is picked (or
                        // late-move pruning needs the scores).
                        self.history.as_at(mark, |history| {
                            score_quiets(&mut scores, side, moves, next, history)
                        });
                        self.history.close_stage();
                        stage = None;
                    }
                }
                if prune_late {
                    // From here on every surely quiet move is pruned: drop
                    // them all at once rather than sorting them one by one.
                    retain_moves(moves, &mut scores, next, |m| !surely_quiet.holds(m));
                    if next == moves.len() {
                        continue;
                    }
                }
                let i = next;
                next += 1;
                (pick_next(moves, &mut scores, i), i, false)
            } else if let Some(&(mv, i)) = deferred.get(deferred_taken) {
                // A put-off move keeps its place in the order (reductions).
                deferred_taken += 1;
                (mv, i, true)
            } else {
                break;
            };
            let child = pos.make(rules, mv);
            if depth > 1 {
                // The child will probe the table: start fetching its bucket.
                self.shared.tt.prefetch(child.hash());
            }
            let capture = child.captured > 0;
            // King threat: after a defender move the king has an open road,
            // or a new road to a square beside a restricted corner.
            let gives_threat = side == Side::Defenders
                && child.outcome().is_none()
                && (open_roads(&child, rules).any()
                    || (child.approach_roads(rules) & !approaches_before).any());
            let extension = i32::from(gives_threat && (ply as i32) < 2 * depth + extension_slack);
            let quiet = !capture
                && Some(mv.from()) != facts.king
                && extension == 0
                && !facts.threatened
                && child.outcome().is_none()
                && !targets.has(mv.to())
                && !self.killers[ply].contains(&Some(mv));
            // Late-move pruning: near the leaves, quiet moves ordered this
            // late are not searched once a move has been.
            if lmp_node && quiet && i >= late_move_limit && best > -WIN_BOUND {
                continue;
            }
            let busy_key = defers.then(|| BusyTable::key(child.hash(), depth));
            if let Some(key) = busy_key {
                if i > 0 && !was_deferred && !deferred.is_full() && self.shared.busy.is_busy(key) {
                    deferred.push((mv, i));
                    continue;
                }
                self.shared.busy.enter(key);
            }
            self.count_node();
            self.path.push(child.hash());
            let late = LateMove { index: i, quiet };
            let score = self.search_child(&child, frame, depth - 1 + extension, w, late);
            self.path.pop();
            if let Some(key) = busy_key {
                self.shared.busy.leave(key);
            }
            if self.stopped {
                if stage.is_some() {
                    self.history.close_stage();
                }
                return (if best > -WIN - 1 { best } else { 0 }, best_move);
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > w.alpha {
                    w.alpha = score;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= w.beta {
                        if !capture {
                            self.reward_quiet_cutoff(side, mv, depth, ply, &failed_quiets);
                        }
                        break;
                    }
                }
            }
            if !capture && !failed_quiets.is_full() {
                failed_quiets.push(mv);
            }
        }
        if stage.is_some() {
            self.history.close_stage();
        }
        (best, best_move)
    }

    /// Searches one child: the first move with the full window, later ones
    /// with a null window, reduced when late and quiet, re-searched when
    /// they beat alpha.
    fn search_child(
        &mut self,
        child: &Position,
        parent: Frame,
        new_depth: i32,
        w: Window,
        late: LateMove,
    ) -> i32 {
        let ply = parent.ply + 1;
        let pv_node = parent.kind.is_pv();
        if late.index == 0 {
            return -self.search(child, new_depth, w.flipped(), ply, parent.kind.pv_child());
        }
        let mut reduction = 0;
        if self.setup.features.lmr
            && parent.depth >= self.setup.params.get(Tune::LmrMinDepth)
            && late.index >= self.setup.params.get(Tune::LmrMinMoveIndex) as usize
            && late.quiet
        {
            reduction = self.lmr[(parent.depth as usize).min(63)][late.index.min(63)] as i32;
            if pv_node {
                reduction -= 1;
            }
            reduction = reduction.clamp(0, new_depth - 1);
        }
        let null_window = w.null_above_alpha();
        let mut score = -self.search(
            child,
            new_depth - reduction,
            null_window,
            ply,
            NodeKind::NonPv,
        );
        if score > w.alpha && reduction > 0 {
            score = -self.search(child, new_depth, null_window, ply, NodeKind::NonPv);
        }
        if score > w.alpha && score < w.beta && pv_node {
            score = -self.search(child, new_depth, w.flipped(), ply, NodeKind::Pv);
        }
        score
    }

    /// Late-move pruning decides most moves before making them: a soldier
    /// move to a square outside the node's eventful squares captures nothing
    /// and ends nothing, and a defender soldier moving off the king's lines
    /// cannot open a road for him (he has none, or the game would be won).
    fn surely_quiet_filter(
        &self,
        pos: &Position,
        facts: &NodeFacts,
        targets: Bitboard,
        lmp_node: bool,
        ply: usize,
    ) -> QuietFilter {
        let (quiet_squares, road_openers) = if lmp_node {
            let eventful = pos.pruning_eventful_squares(self.rules);
            let (cuts, openers) = match (facts.side, facts.king) {
                (Side::Attackers, _) => (pos.encirclement_cuts(self.rules), Bitboard::EMPTY),
                (Side::Defenders, Some(k)) => (Bitboard::EMPTY, pos.nearest_on_king_lines(k)),
                (Side::Defenders, None) => (Bitboard::EMPTY, Bitboard::EMPTY),
            };
            (!eventful & !targets & !cuts, openers)
        } else {
            (Bitboard::EMPTY, Bitboard::EMPTY)
        };
        QuietFilter {
            quiet_squares,
            road_openers,
            king: facts.king,
            killers: self.killers[ply],
        }
    }

    /// A quiet move that beat beta: a killer at this ply, and history;
    /// the quiet moves searched before it, which did not, lose history.
    fn reward_quiet_cutoff(
        &mut self,
        side: Side,
        mv: Move,
        depth: i32,
        ply: usize,
        failed: &[Move],
    ) {
        if self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
        self.history.reward(side, mv, depth);
        for &other in failed {
            self.history.penalise(side, other, depth);
        }
    }

    /// Hands this thread's history to the engine for the game's next
    /// search.
    pub fn keep_history(self) {
        self.shared.histories.keep(self.id, self.history);
    }

    /// Quiescence: captures, the king's steps beside a restricted corner,
    /// and the forced answers to escape threats.
    fn qsearch(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: i32,
    ) -> i32 {
        if let Some(lost) = self.enter_node(pos, ply) {
            return lost;
        }
        if let Some(s) = self.rule_score(pos, ply) {
            return s;
        }
        if self.should_stop() || ply >= MAX_PLY - 2 {
            return self.evaluate(pos, ply);
        }
        if let Some(mv) = self.immediate_win(pos) {
            return self.win_now(ply, mv);
        }
        let rules = self.rules;
        let side = pos.side_to_move();
        if !pos.has_moves(rules) {
            return -(WIN - ply as i32);
        }
        let roads = if side == Side::Attackers {
            open_roads(pos, rules)
        } else {
            Bitboard::EMPTY
        };
        if roads.count() >= 2 {
            // Tuichu: one move blocks one road at most.
            return -(WIN - ply as i32 - 2);
        }
        let forced = roads.any();
        let mut best;
        if forced {
            // Raichi: only moves onto the road (or captures) can matter.
            best = -(WIN - ply as i32 - 2);
        } else {
            let stand_pat = self.evaluate(pos, ply);
            if stand_pat >= beta || qdepth >= self.setup.params.get(Tune::QsearchMaxDepth) {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        // (The capture squares only once standing pat did not cut.)
        let targets = pos.capture_targets(rules, side);
        let destinations = match pos.king_square() {
            Some(k) if forced => targets | pos.road_squares(rules, k),
            _ => targets,
        };
        let mut moves = MoveList::new();
        for to in destinations.squares() {
            for from in pos.soldiers_reaching(rules, to, side).squares() {
                moves.push(Move::new(from, to));
            }
        }
        // King moves beside a restricted corner: no soldier can block the
        // last step, so they win unless the king is captured at once, a
        // threat as forcing as a capture (the attackers' answers are then
        // searched as forced ones).
        let mut king_threats = Bitboard::EMPTY;
        if side == Side::Defenders {
            if let Some(k) = pos.king_square() {
                let dests = pos.destinations(rules, k);
                king_threats = dests & rules.masks().escape_approach;
                let hammer = if rules.options().king_armed.hammer() {
                    targets
                } else {
                    Bitboard::EMPTY
                };
                for to in (dests & (hammer | king_threats)).squares() {
                    moves.push(Move::new(k, to));
                }
            }
        }
        for &mv in moves.iter() {
            let child = pos.make(rules, mv);
            self.count_node();
            let threat = king_threats.has(mv.to()) && Some(mv.from()) == pos.king_square();
            if !forced && !threat && child.captured == 0 && child.outcome().is_none() {
                continue;
            }
            self.path.push(child.hash());
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1, qdepth + 1);
            self.path.pop();
            if self.stopped {
                return best;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn pv_line(&self) -> Vec<Move> {
        self.pv[0][..self.pv_len[0]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }

    /// Iterative deepening. The main thread reports progress through
    /// `report`, each completed iteration's lines through `completed`, and
    /// returns its lines of the deepest completed iteration, or (one line)
    /// of the stopped iteration when it found a better root move.
    pub fn iterate(
        &mut self,
        mut report: impl FnMut(&Info),
        mut completed: impl FnMut(&[RootLine]),
    ) -> Vec<RootLine> {
        let setup = self.setup;
        let mut lines: Vec<RootLine> = Vec::new();
        let mut root_moves = MoveList::new();
        self.node_moves(&setup.root, true, &mut root_moves);
        if root_moves.is_empty() {
            return lines;
        }
        let multipv = setup.multipv.clamp(1, root_moves.len());
        let mut clock = IterationClock::default();
        let mut depth = 1;
        while depth <= setup.max_depth {
            // Wall time, not the clock: a `ponderhit` moves the clock's
            // origin, and the iteration's length is what the next predicts.
            let iteration_start = Instant::now();
            let single_line = multipv == 1 && self.first_iteration_done;
            if self.is_main() {
                self.shared.main_depth.store(depth, Ordering::Relaxed);
                if single_line {
                    self.supersedable_depth = depth;
                }
            } else {
                // A helper never searches below the main thread's depth.
                depth = depth.max(self.shared.main_depth.load(Ordering::Relaxed));
            }
            // Odd helpers search one ply deeper: with two threads, the
            // helper is a ply ahead of the main thread, which takes its
            // iteration when it ends first. Never past the depth asked
            // for: that iteration could not be taken, and at an odd
            // `go depth` the main thread searched the last one alone.
            let mut search_depth = depth + (self.id % 2) as i32;
            // Under a depth limit, an odd helper keeps to the limit's
            // parity: it reaches the limit from two plies below while the
            // main thread searches the ply between, a head start on the
            // last iteration, instead of starting it with the main thread.
            if self.id % 2 == 1
                && setup.max_depth < DEEPEST
                && (setup.max_depth - search_depth) % 2 != 0
            {
                search_depth += 1;
            }
            let search_depth = search_depth.min(setup.max_depth);
            let mut iteration: Vec<RootLine> = Vec::new();
            let mut partial = None;
            self.excluded_root.clear();
            for pv_index in 0..multipv {
                self.seldepth = 0;
                let prev = lines.get(pv_index).map(|l| l.score);
                let score = self.aspiration(search_depth, prev, pv_index == 0, &mut report);
                if self.stopped {
                    if multipv == 1 {
                        partial = self.partial_line(score, search_depth);
                    }
                    break;
                }
                let pv = self.pv_line();
                let Some(&mv) = pv.first() else { break };
                iteration.push(RootLine {
                    mv,
                    score,
                    pv,
                    depth: search_depth,
                    seldepth: self.seldepth as i32,
                });
                self.excluded_root.push(mv);
            }
            self.excluded_root.clear();
            self.supersedable_depth = i32::MAX;
            let mut helped = None;
            if self.superseded {
                // A helper completed this depth (or deeper) first: take its
                // lines as this iteration's, and go on from its depth.
                self.superseded = false;
                helped = self.shared.lines_at_least(depth);
                self.stopped = helped.is_none();
            }
            if let Some(taken) = helped {
                iteration = taken;
                depth = iteration[0].depth;
            } else if self.stopped {
                // A partial MultiPV iteration counts only if nothing did.
                if lines.is_empty() {
                    lines = iteration;
                }
                // A root move the stopped iteration searched in full and
                // found better than the window's floor is the deeper
                // opinion: play it.
                if let Some(line) = partial {
                    if self.is_main() {
                        report(&self.line_info(&line, 1));
                    }
                    lines = vec![line];
                }
                break;
            }
            iteration.sort_by_key(|l| std::cmp::Reverse(l.score));
            lines = iteration;
            self.first_iteration_done = true;
            if !self.is_main() {
                if single_line {
                    self.shared.offer_lines(&lines);
                }
                // The main thread takes this depth and searches the next:
                // a helper a ply ahead goes two on, to stay ahead.
                depth = search_depth + 1;
                continue;
            }
            completed(&lines);
            for (k, line) in lines.iter().enumerate() {
                report(&self.line_info(line, k + 1));
            }
            clock.completed(&lines[0], depth, iteration_start.elapsed());
            if self.iteration_ends_search(&lines[0], depth, &clock) {
                break;
            }
            clock.next_depth(depth);
            depth += 1;
        }
        lines
    }

    /// The line of a stopped iteration, if some root move was searched in
    /// full and beat alpha: `update_pv` ran at the root only then (the
    /// root's PV is reset on entry), and on a stop the root returns the
    /// best score of the moves it finished.
    fn partial_line(&self, score: i32, depth: i32) -> Option<RootLine> {
        let pv = self.pv_line();
        Some(RootLine {
            mv: *pv.first()?,
            score,
            pv,
            depth,
            seldepth: self.seldepth as i32,
        })
    }

    /// Whether the main thread stops after a completed iteration: a
    /// requested mate found, a proven result, or time: the soft limit
    /// (on a clock, scaled by how stable the search is), or a next
    /// iteration that would not end before the hard limit.
    fn iteration_ends_search(&self, best: &RootLine, depth: i32, clock: &IterationClock) -> bool {
        let setup = self.setup;
        if let Some(mate) = setup.mate_moves {
            if best.score >= WIN_BOUND && (WIN - best.score + 1) / 2 <= mate as i32 {
                return true;
            }
        }
        // A proven result cannot change with more depth.
        if best.score.abs() >= WIN_BOUND
            && depth >= 2 * (WIN - best.score.abs()) + 2
            && setup.deadlines.soft.is_some()
        {
            return true;
        }
        if self.shared.pondering.load(Ordering::Relaxed) {
            return false;
        }
        let Some(soft) = setup.deadlines.soft else {
            return false;
        };
        let hard = setup.deadlines.hard.unwrap_or(soft);
        let now = self.shared.clock_elapsed();
        if !setup.deadlines.flexible {
            return now >= soft.min(hard);
        }
        now >= soft.mul_f64(clock.soft_scale()).min(hard) || now + clock.next_iteration() > hard
    }

    /// The report of a finished root line (MultiPV index from 1).
    fn line_info(&mut self, line: &RootLine, multipv: usize) -> Info {
        self.info(
            line.depth,
            line.seldepth,
            multipv,
            line.score,
            None,
            &line.pv,
        )
    }

    /// A progress report of the main thread.
    fn info(
        &mut self,
        depth: i32,
        seldepth: i32,
        multipv: usize,
        score: i32,
        bound: Option<Bound>,
        pv: &[Move],
    ) -> Info {
        self.flush_nodes();
        let elapsed = self.shared.start.elapsed();
        let nodes = self.shared.nodes.load(Ordering::Relaxed);
        Info {
            depth,
            seldepth,
            multipv,
            score,
            wdl: self.setup.wdl.wdl(score, &self.setup.root),
            bound,
            nodes,
            nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
            hashfull: self.shared.tt.hashfull(),
            time: elapsed,
            pv: pv.to_vec(),
        }
    }

    /// Searches the root with a window around the previous score, widening
    /// it after each fail; the main thread reports each fail as a
    /// `lowerbound` or `upperbound` line.
    fn aspiration(
        &mut self,
        depth: i32,
        prev: Option<i32>,
        first_line: bool,
        report: &mut impl FnMut(&Info),
    ) -> i32 {
        let root = self.setup.root;
        let use_window =
            self.setup.features.aspiration && depth >= ASPIRATION_MIN_DEPTH && first_line;
        let window = self.setup.params.get(Tune::AspirationWindow);
        let (mut alpha, mut beta, mut delta) = match prev {
            Some(p) if use_window && p.abs() < WIN_BOUND => (p - window, p + window, window),
            _ => (-WIN - 1, WIN + 1, 0),
        };
        loop {
            let score = self.search(&root, depth, Window::new(alpha, beta), 0, NodeKind::Pv);
            if self.stopped || delta == 0 || (score > alpha && score < beta) {
                return score;
            }
            if self.is_main() {
                let bound = if score >= beta {
                    Bound::Lower
                } else {
                    Bound::Upper
                };
                let pv = self.pv_line();
                let info = self.info(depth, self.seldepth as i32, 1, score, Some(bound), &pv);
                report(&info);
            }
            delta *= ASPIRATION_WIDENING;
            if delta > ASPIRATION_MAX_WINDOW {
                alpha = -WIN - 1;
                beta = WIN + 1;
                delta = 0;
            } else if score <= alpha {
                alpha = (score - delta).max(-WIN - 1);
            } else {
                beta = (score + delta).min(WIN + 1);
            }
        }
    }
}

fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}
