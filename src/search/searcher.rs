//! One search thread: iterative deepening, principal-variation alpha-beta
//! with aspiration windows, reverse futility, null-move (verified) and
//! late-move pruning, late-move reductions, king-threat extensions and a
//! quiescence stage for captures and escape threats.

use super::eval::{evaluate, open_roads};
use super::time::Deadlines;
use super::tt::{Bound, TranspositionTable};
use super::{Features, Info, DRAW_VALUE_BASE, MAX_PLY, WIN, WIN_BOUND};
use crate::rules::options::Repetition;
use crate::rules::{Bitboard, Move, MoveList, Position, Rules, Side, Square};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What all threads of one search share.
pub struct Shared {
    pub tt: std::sync::Arc<TranspositionTable>,
    pub stop: AtomicBool,
    /// True while a `go ponder` search waits for `ponderhit`.
    pub pondering: AtomicBool,
    /// Nanoseconds after the search start at which the clock started
    /// (moved forward by `ponderhit`).
    pub clock_offset_ns: AtomicU64,
    pub nodes: AtomicU64,
    pub start: Instant,
}

impl Shared {
    pub fn new(tt: std::sync::Arc<TranspositionTable>, pondering: bool) -> Shared {
        Shared {
            tt,
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            clock_offset_ns: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            start: Instant::now(),
        }
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
    pub threads: usize,
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

const NODE_BATCH: u64 = 1024;
const QSEARCH_MAX: i32 = 8;
/// Reverse futility pruning: deepest remaining depth, and the margin per ply.
const FUTILITY_DEPTH: i32 = 3;
const FUTILITY_MARGIN: i32 = 150;
/// Late-move pruning: deepest remaining depth it applies at.
const LMP_DEPTH: i32 = 3;

/// How many moves are searched before quiet ones are pruned, by depth.
fn late_move_limit(depth: i32) -> usize {
    (8 + 4 * depth * depth) as usize
}

pub struct Searcher<'a> {
    pub id: usize,
    setup: &'a SearchSetup,
    shared: &'a Shared,
    rules: &'a Rules,
    /// Hashes of history + search path, for repetition.
    path: Vec<u64>,
    killers: [[Move; 2]; MAX_PLY + 1],
    history: Vec<i32>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    pub nodes: u64,
    unreported: u64,
    seldepth: usize,
    stopped: bool,
    root_side: Side,
    lmr: [[u8; 64]; 64],
    /// Root moves already taken by earlier MultiPV lines this iteration.
    excluded_root: Vec<Move>,
}

fn history_index(side: Side, mv: Move) -> usize {
    (side.index() * 128 + mv.from().index()) * 128 + mv.to().index()
}

impl<'a> Searcher<'a> {
    pub fn new(id: usize, setup: &'a SearchSetup, shared: &'a Shared) -> Searcher<'a> {
        let mut lmr = [[0u8; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (i, cell) in row.iter_mut().enumerate().skip(1) {
                *cell = (0.5 + (d as f64).ln() * (i as f64).ln() / 2.2) as u8;
            }
        }
        Searcher {
            id,
            setup,
            shared,
            rules: &setup.rules,
            path: setup.history.clone(),
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            history: vec![0; 2 * 128 * 128],
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            unreported: 0,
            seldepth: 0,
            stopped: false,
            root_side: setup.root.side_to_move(),
            lmr,
            excluded_root: Vec::new(),
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
        if !self.stopped && self.shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
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
    /// counters (repetition, ply limits), if one applies. Inside the search
    /// a repetition is scored on its second occurrence, as the third would be.
    fn rule_score(&self, pos: &Position, ply: usize) -> Option<i32> {
        let rules = self.rules;
        {
            // `path` ends with this position; earlier ones since the last
            // capture may repeat it.
            let h = pos.hash();
            let n = self.path.len();
            let window = (pos.plies_since_capture as usize + 1).min(n);
            let repeated = self.path[n - window..n.saturating_sub(1)].contains(&h);
            if repeated {
                let to_move = pos.side_to_move();
                return Some(match rules.repetition {
                    Repetition::None | Repetition::Draw => self.draw_score(pos),
                    // The side that just moved made the repetition.
                    Repetition::MoverLoses => WIN - ply as i32,
                    Repetition::DefendersLose => {
                        if to_move == Side::Defenders {
                            -(WIN - ply as i32)
                        } else {
                            WIN - ply as i32
                        }
                    }
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

    /// A move that wins at once (escape, or king capture), if the side to
    /// move has one.
    fn immediate_win(&self, pos: &Position) -> Option<Move> {
        let rules = self.rules;
        let k = pos.king_square()?;
        match pos.side_to_move() {
            Side::Defenders => {
                let roads = open_roads(pos, rules);
                roads.first().map(|e| Move::new(k, e))
            }
            Side::Attackers => {
                let around = k.bb().neighbours(rules.masks().board) & !pos.occupied();
                for to in around.squares() {
                    for from in pos.soldiers_reaching(rules, to, Side::Attackers).squares() {
                        let mv = Move::new(from, to);
                        if pos.make(rules, mv).outcome().is_some() {
                            return Some(mv);
                        }
                    }
                }
                None
            }
        }
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = mv;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Ordering scores for `moves` (picked best-first by [`pick_next`]).
    fn order_moves(
        &self,
        pos: &Position,
        moves: &MoveList,
        tt_move: Move,
        ply: usize,
    ) -> ScoreList {
        let rules = self.rules;
        let side = pos.side_to_move();
        let targets = pos.capture_targets(rules, side);
        let king = pos.king_square();
        // Squares on the king's open roads (attackers block them).
        let road_block = if side == Side::Attackers {
            king.map(|k| road_squares(pos, rules, k))
                .unwrap_or_default()
        } else {
            Bitboard::EMPTY
        };
        let mut scores = ScoreList::new();
        for &mv in moves.iter() {
            let mut s = self.history[history_index(side, mv)];
            if mv == tt_move {
                s = 10_000_000;
            } else if targets.has(mv.to()) {
                s += 1_000_000;
            } else if road_block.has(mv.to()) {
                s += 900_000;
            } else if Some(mv.from()) == king {
                // King moves that open a road to an escape square.
                if pos.escapes_from(rules, mv.to()).any() {
                    s += 950_000;
                }
            } else if mv == self.killers[ply][0] {
                s += 800_000;
            } else if mv == self.killers[ply][1] {
                s += 700_000;
            }
            scores.push(s);
        }
        scores
    }

    /// Common start of every node: resets the PV, tracks the selective
    /// depth, and scores a position the last move already won.
    #[inline]
    fn enter_node(&mut self, pos: &Position, ply: usize) -> Option<i32> {
        self.pv_len[ply] = ply;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        // The move that led here won for the side that made it.
        pos.outcome().map(|_| -(WIN - ply as i32))
    }

    /// Principal-variation search.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        pv_node: bool,
        allow_null: bool,
    ) -> i32 {
        if let Some(lost) = self.enter_node(pos, ply) {
            return lost;
        }
        let root = ply == 0;
        if !root {
            if let Some(s) = self.rule_score(pos, ply) {
                return s;
            }
            if ply >= MAX_PLY - 2 {
                return evaluate(pos, self.rules);
            }
            alpha = alpha.max(-(WIN - ply as i32));
            beta = beta.min(WIN - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if self.should_stop() {
            return 0;
        }
        if depth <= 0 {
            return if self.setup.features.quiescence {
                self.qsearch(pos, alpha, beta, ply, 0)
            } else {
                evaluate(pos, self.rules)
            };
        }
        let rules = self.rules;
        let key = pos.hash();
        let entry = self.shared.tt.probe(key);
        let mut tt_move = Move::NONE;
        if let Some(e) = entry {
            tt_move = e.mv;
            if !pv_node && e.depth >= depth {
                let s = score_from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        if !root {
            if let Some(_win) = self.immediate_win(pos) {
                return WIN - ply as i32 - 1;
            }
        }
        let mut moves = MoveList::new();
        pos.generate_moves(rules, &mut moves);
        if root && !self.setup.root_moves.is_empty() {
            moves.retain(|m| self.setup.root_moves.contains(m));
        }
        if root && !self.excluded_root.is_empty() {
            let ex = self.excluded_root.clone();
            moves.retain(|m| !ex.contains(m));
        }
        if moves.is_empty() {
            if root {
                return -WIN;
            }
            return -(WIN - ply as i32);
        }
        let side = pos.side_to_move();
        let king = pos.king_square();
        // Under an escape threat the attackers must answer: no pruning.
        let threatened = side == Side::Attackers && open_roads(pos, rules).any();
        let static_eval = match entry {
            Some(e) => e.eval,
            None => evaluate(pos, rules),
        };
        // Reverse futility: far enough above beta at a shallow depth, the
        // side to move keeps its lead. Not under an escape threat, nor with
        // an attacker beside the king when the defenders move.
        if self.setup.features.futility
            && !pv_node
            && !threatened
            && depth <= FUTILITY_DEPTH
            && beta.abs() < WIN_BOUND
            && static_eval - FUTILITY_MARGIN * depth >= beta
            && !(side == Side::Defenders && king_pressed(pos, rules))
        {
            return static_eval;
        }
        if self.setup.features.null_move
            && !pv_node
            && allow_null
            && !threatened
            && depth >= 3
            && static_eval >= beta
            && beta.abs() < WIN_BOUND
            && pos.pieces(side).count() >= 4
        {
            let r = 2 + depth / 4;
            let child = pos.make_null();
            self.path.push(child.hash());
            let score = -self.search(
                &child,
                depth - 1 - r,
                -beta,
                -beta + 1,
                ply + 1,
                false,
                false,
            );
            self.path.pop();
            if self.stopped {
                return 0;
            }
            if score >= beta {
                // Verify at high depth: tafl has zugzwang-like positions
                // (an attacker cordon in which every move opens a gap).
                if depth < 8 {
                    return if score >= WIN_BOUND { beta } else { score };
                }
                let v = self.search(pos, depth - r, beta - 1, beta, ply, false, false);
                if v >= beta {
                    return v;
                }
            }
        }

        let mut scores = self.order_moves(pos, &moves, tt_move, ply);
        let targets = pos.capture_targets(rules, side);
        let mut best = -WIN - 1;
        let mut best_move = Move::NONE;
        let original_alpha = alpha;
        // Late-move pruning decides most moves before making them: a soldier
        // move to a square outside `quiet_squares` captures nothing and ends
        // nothing, and a defender soldier moving off the king's lines cannot
        // open a road for him (he has none, or the game would be won).
        let lmp_node =
            self.setup.features.late_move_pruning && !pv_node && !threatened && depth <= LMP_DEPTH;
        let (quiet_squares, king_lines) = if lmp_node {
            let eventful = pos.eventful_squares(rules);
            let lines = match (side, king) {
                (Side::Defenders, Some(k)) => k.rank_and_file(),
                _ => Bitboard::EMPTY,
            };
            (!eventful & !targets, lines)
        } else {
            (Bitboard::EMPTY, Bitboard::EMPTY)
        };
        let encircling = side == Side::Attackers && rules.encirclement;
        let killers = self.killers[ply];
        let surely_quiet = |mv: Move| {
            quiet_squares.has(mv.to())
                && !king_lines.has(mv.from())
                && !encircling
                && Some(mv.from()) != king
                && !killers.contains(&mv)
        };
        let mut next = 0;
        while next < moves.len() {
            if lmp_node && next == late_move_limit(depth) && best > -WIN_BOUND {
                // From here on every surely quiet move is pruned: drop them
                // all at once rather than sorting them one by one.
                let mut kept = next;
                for j in next..moves.len() {
                    if !surely_quiet(moves[j]) {
                        moves[kept] = moves[j];
                        scores[kept] = scores[j];
                        kept += 1;
                    }
                }
                moves.truncate(kept);
                scores.truncate(kept);
                if next == moves.len() {
                    break;
                }
            }
            let i = next;
            next += 1;
            let mv = pick_next(&mut moves, &mut scores, i);
            let child = pos.make(rules, mv);
            let is_king_move = Some(mv.from()) == king;
            let capture = child.captured > 0;
            // King threat: after a defender move the king has an open road.
            let gives_threat = side == Side::Defenders
                && child.outcome().is_none()
                && open_roads(&child, rules).any();
            let extension = i32::from(gives_threat && (ply as i32) < 2 * depth + 8);
            let new_depth = depth - 1 + extension;
            let quiet = !capture
                && !is_king_move
                && extension == 0
                && !threatened
                && child.outcome().is_none()
                && !targets.has(mv.to())
                && mv != self.killers[ply][0]
                && mv != self.killers[ply][1];
            // Late-move pruning: near the leaves, quiet moves ordered this
            // late are not searched once a move has been.
            if lmp_node && quiet && i >= late_move_limit(depth) && best > -WIN_BOUND {
                continue;
            }
            self.count_node();
            self.path.push(child.hash());
            let mut score;
            if i == 0 {
                score = -self.search(&child, new_depth, -beta, -alpha, ply + 1, pv_node, true);
            } else {
                let mut reduction = 0;
                if self.setup.features.lmr && depth >= 3 && i >= 3 && quiet {
                    reduction = self.lmr[(depth as usize).min(63)][i.min(63)] as i32;
                    if pv_node {
                        reduction -= 1;
                    }
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                score = -self.search(
                    &child,
                    new_depth - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    false,
                    true,
                );
                if score > alpha && reduction > 0 {
                    score =
                        -self.search(&child, new_depth, -alpha - 1, -alpha, ply + 1, false, true);
                }
                if score > alpha && score < beta && pv_node {
                    score = -self.search(&child, new_depth, -beta, -alpha, ply + 1, true, true);
                }
            }
            self.path.pop();
            if self.stopped {
                return if best > -WIN - 1 { best } else { 0 };
            }
            if score > best {
                best = score;
                best_move = mv;
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        self.update_pv(ply, mv);
                    }
                    if score >= beta {
                        if !capture {
                            if self.killers[ply][0] != mv {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = mv;
                            }
                            let bonus = depth * depth;
                            let h = &mut self.history[history_index(side, mv)];
                            *h += bonus - *h * bonus.abs() / 16384;
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if !root || self.excluded_root.is_empty() {
            self.shared.tt.store(
                key,
                best_move,
                score_to_tt(best, ply),
                static_eval,
                depth,
                bound,
            );
        }
        best
    }

    /// Quiescence: captures, and the forced answers to escape threats.
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
            return evaluate(pos, self.rules);
        }
        if self.immediate_win(pos).is_some() {
            return WIN - ply as i32 - 1;
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
        let targets = pos.capture_targets(rules, side);
        let mut best;
        let destinations = if forced {
            // Raichi: only moves onto the road (or captures) can matter.
            best = -(WIN - ply as i32 - 2);
            let block = pos
                .king_square()
                .map(|k| road_squares(pos, rules, k))
                .unwrap_or_default();
            block | targets
        } else {
            let stand_pat = evaluate(pos, rules);
            if stand_pat >= beta || qdepth >= QSEARCH_MAX {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            targets
        };
        let mut moves = MoveList::new();
        for to in destinations.squares() {
            for from in pos.soldiers_reaching(rules, to, side).squares() {
                moves.push(Move::new(from, to));
            }
        }
        if side == Side::Defenders && rules.king_armed.hammer() {
            if let Some(k) = pos.king_square() {
                for to in (pos.destinations(rules, k) & targets).squares() {
                    moves.push(Move::new(k, to));
                }
            }
        }
        for &mv in moves.iter() {
            let child = pos.make(rules, mv);
            self.count_node();
            if !forced && child.captured == 0 && child.outcome().is_none() {
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
        self.pv[0][..self.pv_len[0]].to_vec()
    }

    /// Iterative deepening. The main thread reports through `report` and
    /// returns its lines of the deepest completed iteration.
    pub fn iterate(&mut self, mut report: impl FnMut(&Info)) -> Vec<RootLine> {
        let setup = self.setup;
        let mut lines: Vec<RootLine> = Vec::new();
        let mut root_moves = MoveList::new();
        setup.root.generate_moves(self.rules, &mut root_moves);
        if !setup.root_moves.is_empty() {
            root_moves.retain(|m| setup.root_moves.contains(m));
        }
        if root_moves.is_empty() {
            return lines;
        }
        let multipv = setup.multipv.clamp(1, root_moves.len());
        let mut best_changes = 0u32;
        let mut last_best = Move::NONE;
        let mut depth = 1;
        while depth <= setup.max_depth {
            // Helpers search some iterations one ply deeper.
            let search_depth = if self.id > 0 && (self.id + depth as usize) % 2 == 1 {
                depth + 1
            } else {
                depth
            };
            let mut iteration: Vec<RootLine> = Vec::new();
            self.excluded_root.clear();
            for pv_index in 0..multipv {
                self.seldepth = 0;
                let prev = lines.get(pv_index).map(|l| l.score);
                let score = self.aspiration(search_depth, prev, pv_index == 0);
                if self.stopped {
                    break;
                }
                let pv = self.pv_line();
                let Some(&mv) = pv.first() else { break };
                iteration.push(RootLine {
                    mv,
                    score,
                    pv: pv.clone(),
                    depth: search_depth,
                    seldepth: self.seldepth as i32,
                });
                self.excluded_root.push(mv);
            }
            self.excluded_root.clear();
            if self.stopped && iteration.is_empty() {
                break;
            }
            if self.stopped {
                // Partial MultiPV iteration: keep the completed lines' order.
                if lines.is_empty() {
                    lines = iteration;
                }
                break;
            }
            iteration.sort_by_key(|l| std::cmp::Reverse(l.score));
            lines = iteration;
            if self.is_main() {
                self.flush_nodes();
                let elapsed = self.shared.start.elapsed();
                let nodes = self.shared.nodes.load(Ordering::Relaxed);
                for (k, line) in lines.iter().enumerate() {
                    report(&Info {
                        depth: line.depth,
                        seldepth: line.seldepth,
                        multipv: k + 1,
                        score: line.score,
                        bound: None,
                        nodes,
                        nps: (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64,
                        hashfull: self.shared.tt.hashfull(),
                        time: elapsed,
                        pv: line.pv.clone(),
                    });
                }
                let best = lines[0].mv;
                if best != last_best && depth > 1 {
                    best_changes += 1;
                }
                last_best = best;
                if let Some(mate) = setup.mate_moves {
                    let s = lines[0].score;
                    if s >= WIN_BOUND && (WIN - s + 1) / 2 <= mate as i32 {
                        break;
                    }
                }
                // A proven result cannot change with more depth.
                if lines[0].score.abs() >= WIN_BOUND
                    && depth >= 2 * (WIN - lines[0].score.abs()) + 2
                    && setup.deadlines.soft.is_some()
                {
                    break;
                }
                if !self.shared.pondering.load(Ordering::Relaxed) {
                    if let Some(soft) = setup.deadlines.soft {
                        let stretch = 1.0 + 0.25 * best_changes.min(4) as f64;
                        let soft = soft.mul_f64(stretch);
                        let hard = setup.deadlines.hard.unwrap_or(soft);
                        if self.shared.clock_elapsed() >= soft.min(hard) {
                            break;
                        }
                    }
                }
                if best_changes > 0 && depth % 4 == 0 {
                    best_changes -= 1;
                }
            }
            depth += 1;
        }
        lines
    }

    fn aspiration(&mut self, depth: i32, prev: Option<i32>, first_line: bool) -> i32 {
        let root = self.setup.root;
        let use_window = self.setup.features.aspiration && depth >= 4 && first_line;
        let (mut alpha, mut beta, mut delta) = match prev {
            Some(p) if use_window && p.abs() < WIN_BOUND => (p - 30, p + 30, 30),
            _ => (-WIN - 1, WIN + 1, 0),
        };
        loop {
            let score = self.search(&root, depth, alpha, beta, 0, true, false);
            if self.stopped {
                return score;
            }
            if delta == 0 || (score > alpha && score < beta) {
                return score;
            }
            delta *= 3;
            if delta > 1000 {
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

/// The squares of the king's open roads: any piece landing on one blocks it.
pub fn road_squares(pos: &Position, rules: &Rules, k: Square) -> Bitboard {
    let dests = pos.destinations(rules, k);
    let roads = dests & rules.masks().escape;
    let mut squares = Bitboard::EMPTY;
    for e in roads.squares() {
        for s in dests.squares() {
            let same_line = (s.rank() == k.rank() && e.rank() == k.rank())
                || (s.file() == k.file() && e.file() == k.file());
            let same_side = (s.index() > k.index()) == (e.index() > k.index());
            if same_line && same_side {
                squares.set(s);
            }
        }
    }
    squares
}

type ScoreList = arrayvec::ArrayVec<i32, { crate::rules::position::MAX_MOVES }>;

/// Whether an attacker stands beside the king.
fn king_pressed(pos: &Position, rules: &Rules) -> bool {
    (pos.king().neighbours(rules.masks().board) & pos.attackers()).any()
}

/// Moves the best-scored of `moves[i..]` to `i` and returns it.
#[inline]
fn pick_next(moves: &mut MoveList, scores: &mut ScoreList, i: usize) -> Move {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
    moves[i]
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
