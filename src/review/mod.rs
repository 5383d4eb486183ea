//! Game review: every position of a game searched to a fixed budget, each
//! move judged by how much of its side's winning chances it gave away, as
//! the programs people use for chess judge them.
//!
//! A review must give the same marks when it is run again, so each
//! position is searched on its own: one thread, an empty table sized to the
//! budget, no history from other searches, and a budget of nodes or depth
//! (a time budget is offered too, faster to reason about but not
//! repeatable). The positions are independent, so they are shared out
//! among several such searchers at once, and the answer does not depend on
//! how many there are or in what order they finish. `konakis wdl label`
//! labels games for the WDL model's fit through the same searcher, so the
//! model is fitted on exactly the numbers a review reads.

use crate::rules::{Game, Move, Side};
use crate::search::wdl::wdl_of_outcome;
use crate::search::{Engine, Limits, Wdl};
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// How hard each position is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    Nodes(u64),
    Depth(i32),
    /// Milliseconds: not repeatable (the machine's speed decides).
    Millis(u64),
}

/// The budget the WDL models were fitted at, and a review's default.
pub const STANDARD_BUDGET: Budget = Budget::Nodes(20_000);
/// The largest budgets a review may ask for.
pub const MAX_NODES: u64 = 1_000_000_000;
pub const MAX_DEPTH: i32 = 64;
pub const MAX_MILLIS: u64 = 60_000;

impl Budget {
    pub fn limits(self) -> Limits {
        match self {
            Budget::Nodes(n) => Limits::nodes(n),
            Budget::Depth(d) => Limits::depth(d),
            Budget::Millis(ms) => Limits::move_time(ms),
        }
    }

    /// Whether two reviews with this budget give the same marks.
    pub fn repeatable(self) -> bool {
        !matches!(self, Budget::Millis(_))
    }

    /// The table for one search of this budget: room for every node a few
    /// times over, so a bigger budget is not starved, and small enough to
    /// clear for every position.
    fn hash_mib(self) -> usize {
        match self {
            // 16 bytes an entry, about four entries a node.
            Budget::Nodes(n) => (n.saturating_mul(64) >> 20).clamp(2, 256) as usize,
            Budget::Depth(d) => (1usize << (d.clamp(0, 16) / 2)).clamp(2, 256),
            Budget::Millis(ms) => (ms as usize).clamp(2, 256),
        }
    }
}

/// `nodes:20000`, `depth:8`, `movetime:500`.
impl FromStr for Budget {
    type Err = String;
    fn from_str(s: &str) -> Result<Budget, String> {
        let (kind, value) = s
            .trim()
            .split_once(':')
            .ok_or_else(|| format!("a budget is nodes:N, depth:N or movetime:MS, not '{s}'"))?;
        let number = |max: u64| {
            value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|v| (1..=max).contains(v))
                .ok_or_else(|| format!("{kind} takes 1 to {max}, not '{value}'"))
        };
        match kind.trim() {
            "nodes" => Ok(Budget::Nodes(number(MAX_NODES)?)),
            "depth" => Ok(Budget::Depth(number(MAX_DEPTH as u64)? as i32)),
            "movetime" => Ok(Budget::Millis(number(MAX_MILLIS)?)),
            other => Err(format!(
                "a budget is nodes:N, depth:N or movetime:MS, not '{other}:'"
            )),
        }
    }
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Nodes(n) => write!(f, "nodes:{n}"),
            Budget::Depth(d) => write!(f, "depth:{d}"),
            Budget::Millis(ms) => write!(f, "movetime:{ms}"),
        }
    }
}

/// What the search of one position found.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The side to move.
    pub side: Side,
    /// The search's score for the side to move; `None` when the rules
    /// have ended the game.
    pub score: Option<i32>,
    /// The side to move's chances.
    pub wdl: Wdl,
    pub best: Option<Move>,
    pub pv: Vec<Move>,
    pub depth: i32,
    pub nodes: u64,
}

impl Judged {
    /// The chances of `side` here, as an expected score from 0 to 1.
    pub fn expected_for(&self, side: Side) -> f64 {
        let e = self.wdl.expected();
        if side == self.side {
            e
        } else {
            1.0 - e
        }
    }
}

/// Searches positions one at a time, each from nothing.
pub struct PositionSearcher {
    engine: Engine,
    budget: Budget,
}

impl PositionSearcher {
    pub fn new(budget: Budget) -> Result<PositionSearcher, String> {
        let mut engine = Engine::new();
        engine.set_option("Threads", Some("1"))?;
        engine.set_hash(budget.hash_mib())?;
        Ok(PositionSearcher { engine, budget })
    }

    /// The search of the game's current position; `None` when `stop` was
    /// set before it ended.
    pub fn judge(&mut self, game: &Game, stop: &AtomicBool) -> Result<Option<Judged>, String> {
        let side = game.side_to_move();
        if let Some(o) = game.outcome() {
            return Ok(Some(Judged {
                side,
                score: None,
                wdl: wdl_of_outcome(o.winner, side),
                best: None,
                pv: Vec::new(),
                depth: 0,
                nodes: 0,
            }));
        }
        self.engine.set_game(game.clone());
        self.engine.clear_search_state();
        let (r, stopped) = self.engine.search_until(self.budget.limits(), stop)?;
        Ok((!stopped).then_some(Judged {
            side,
            score: Some(r.score),
            wdl: r.wdl,
            best: r.best,
            pv: r.pv,
            depth: r.depth,
            nodes: r.nodes,
        }))
    }
}

/// Searches every game's current position with `workers` searchers at
/// once; `on_each(index, judged)` hears of each as it is done (in any
/// order). `None` when `stop` was set before the end.
pub fn judge_all(
    games: &[Game],
    budget: Budget,
    workers: usize,
    stop: &AtomicBool,
    on_each: &(dyn Fn(usize, &Judged) + Sync),
) -> Result<Option<Vec<Judged>>, String> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Judged>>> = Mutex::new(vec![None; games.len()]);
    let workers = workers.clamp(1, games.len().max(1));
    let failed: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut searcher = match PositionSearcher::new(budget) {
                    Ok(s) => s,
                    Err(e) => {
                        *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        stop_all(&next, games.len());
                        return;
                    }
                };
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(game) = games.get(i) else {
                        return;
                    };
                    let judged = match searcher.judge(game, stop) {
                        Ok(Some(j)) => j,
                        Ok(None) => return,
                        Err(e) => {
                            *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                            stop_all(&next, games.len());
                            return;
                        }
                    };
                    on_each(i, &judged);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(judged);
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(results.into_iter().collect())
}

fn stop_all(next: &AtomicUsize, len: usize) {
    next.store(len, Ordering::Relaxed);
}

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    /// The smallest loss of expected score (0 to 1) that earns each mark:
    /// lichess's drops of 0.1, 0.2 and 0.3 in winning chances on its −1…+1
    /// scale, i.e. 5, 10 and 15 points of expected score.
    pub const THRESHOLDS: [(Mark, f64); 3] = [
        (Mark::Blunder, 0.15),
        (Mark::Mistake, 0.10),
        (Mark::Inaccuracy, 0.05),
    ];

    pub fn for_loss(loss: f64) -> Option<Mark> {
        Mark::THRESHOLDS
            .iter()
            .find(|(_, min)| loss >= *min)
            .map(|(m, _)| *m)
    }

    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }

    pub fn sign(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }
}

/// One move judged.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    pub mover: Side,
    pub played: Move,
    /// The mover's expected score before and after the move (0 to 1).
    pub before: f64,
    pub after: f64,
    /// What the move gave away: `before - after`, at least 0; 0 for the
    /// move the search itself chose.
    pub loss: f64,
    /// lichess's accuracy of a move, 0 to 100, from the loss in percent.
    pub accuracy: f64,
    pub mark: Option<Mark>,
    /// The search's move and line in the position before, when the move
    /// is marked.
    pub better: Option<Move>,
    pub better_line: Vec<Move>,
}

/// lichess's accuracy of a move from the winning chances (percent, the
/// mover's view) it gave away: 100 for none, falling exponentially.
pub fn move_accuracy(loss_percent: f64) -> f64 {
    (103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * loss_percent.max(0.0)).exp()
        - 3.166_924_740_191_411)
        .clamp(0.0, 100.0)
}

/// Judges each move from the searches of the positions before and after
/// it: `positions[i]` is the position before `moves[i]`.
pub fn judge_moves(positions: &[Judged], moves: &[Move]) -> Vec<MoveReview> {
    moves
        .iter()
        .zip(positions.windows(2))
        .map(|(&played, pair)| {
            let (before_pos, after_pos) = (&pair[0], &pair[1]);
            let mover = before_pos.side;
            let before = before_pos.expected_for(mover);
            let after = after_pos.expected_for(mover);
            let loss = if before_pos.best == Some(played) {
                0.0
            } else {
                (before - after).max(0.0)
            };
            let mark = Mark::for_loss(loss);
            MoveReview {
                mover,
                played,
                before,
                after,
                loss,
                accuracy: move_accuracy(100.0 * loss),
                mark,
                better: mark.and(before_pos.best),
                better_line: if mark.is_some() {
                    before_pos.pv.clone()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// One side's figures over a game.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SideSummary {
    pub moves: usize,
    pub inaccuracies: usize,
    pub mistakes: usize,
    pub blunders: usize,
    /// Average loss of expected score a move, in points (0 to 100).
    pub average_loss: f64,
    /// The side's accuracy, 0 to 100 (see [`game_accuracy`]).
    pub accuracy: f64,
}

/// Each side's figures: attackers first.
pub fn summarise(positions: &[Judged], reviews: &[MoveReview]) -> [SideSummary; 2] {
    [Side::Attackers, Side::Defenders].map(|side| {
        let mine: Vec<&MoveReview> = reviews.iter().filter(|r| r.mover == side).collect();
        let count = |m: Mark| mine.iter().filter(|r| r.mark == Some(m)).count();
        SideSummary {
            moves: mine.len(),
            inaccuracies: count(Mark::Inaccuracy),
            mistakes: count(Mark::Mistake),
            blunders: count(Mark::Blunder),
            average_loss: 100.0 * mine.iter().map(|r| r.loss).sum::<f64>()
                / mine.len().max(1) as f64,
            accuracy: game_accuracy(positions, reviews, side),
        }
    })
}

/// A side's accuracy over a game, as lichess computes it: the mean of two
/// means of its moves' accuracies, one weighted by how much the winning
/// chances swung around each move (a move in a sharp stretch counts
/// more), the other harmonic (a few bad moves pull it down).
pub fn game_accuracy(positions: &[Judged], reviews: &[MoveReview], side: Side) -> f64 {
    if reviews.is_empty() {
        return 100.0;
    }
    // The attackers' chances in percent, position by position.
    let chances: Vec<f64> = positions
        .iter()
        .map(|p| 100.0 * p.expected_for(Side::Attackers))
        .collect();
    let window = (reviews.len() / 10).clamp(2, 8);
    let (mut weighted, mut weights, mut inverse, mut count) = (0.0, 0.0, 0.0, 0usize);
    for (i, r) in reviews.iter().enumerate() {
        if r.mover != side {
            continue;
        }
        let start = (i + 1).saturating_sub(window);
        let slice = &chances[start..=(i + 1).min(chances.len() - 1)];
        let mean = slice.iter().sum::<f64>() / slice.len() as f64;
        let var = slice.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / slice.len() as f64;
        let weight = var.sqrt().clamp(0.5, 12.0);
        weighted += r.accuracy * weight;
        weights += weight;
        inverse += 1.0 / r.accuracy.max(1.0);
        count += 1;
    }
    if count == 0 {
        return 100.0;
    }
    let harmonic = count as f64 / inverse;
    ((weighted / weights + harmonic) / 2.0).clamp(0.0, 100.0)
}

/// A whole review.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    pub budget: Budget,
    pub positions: Vec<Judged>,
    pub moves: Vec<MoveReview>,
    /// Attackers, then defenders.
    pub sides: [SideSummary; 2],
}

/// The game at each point of a line: the start and then after each move
/// (`moves.len() + 1` games). An illegal move is an error naming it.
pub fn line_games(start: &Game, moves: &[Move]) -> Result<Vec<Game>, String> {
    let mut games = Vec::with_capacity(moves.len() + 1);
    let mut game = start.clone();
    games.push(game.clone());
    for (i, &mv) in moves.iter().enumerate() {
        game.play(mv)
            .map_err(|e| format!("move {} ({mv}): {e}", i + 1))?;
        games.push(game.clone());
    }
    Ok(games)
}

/// Reviews a line from `start`: every position searched, every move
/// judged. `on_position` hears of each position as it is searched. `None`
/// when stopped.
pub fn review_line(
    start: &Game,
    moves: &[Move],
    budget: Budget,
    workers: usize,
    stop: &AtomicBool,
    on_position: &(dyn Fn(usize, &Judged) + Sync),
) -> Result<Option<Review>, String> {
    let games = line_games(start, moves)?;
    let Some(positions) = judge_all(&games, budget, workers, stop, on_position)? else {
        return Ok(None);
    };
    let reviews = judge_moves(&positions, moves);
    let sides = summarise(&positions, &reviews);
    Ok(Some(Review {
        budget,
        positions,
        moves: reviews,
        sides,
    }))
}

/// How long a review's searches took on this machine, for an estimate of
/// the time left: the average so far.
pub fn time_left(done: usize, total: usize, elapsed: Duration) -> Duration {
    if done == 0 {
        return Duration::ZERO;
    }
    elapsed.mul_f64((total - done.min(total)) as f64 / done as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_and_print() {
        for text in ["nodes:20000", "depth:8", "movetime:500"] {
            let b: Budget = text.parse().expect(text);
            assert_eq!(b.to_string(), text);
        }
        for bad in [
            "nodes", "nodes:0", "depth:65", "time:5", "nodes:-3", "nodes:x",
        ] {
            assert!(bad.parse::<Budget>().is_err(), "{bad}");
        }
        assert!(!Budget::Millis(5).repeatable());
        assert!(STANDARD_BUDGET.repeatable());
    }

    #[test]
    fn marks_follow_the_loss() {
        assert_eq!(Mark::for_loss(0.0), None);
        assert_eq!(Mark::for_loss(0.049), None);
        assert_eq!(Mark::for_loss(0.05), Some(Mark::Inaccuracy));
        assert_eq!(Mark::for_loss(0.12), Some(Mark::Mistake));
        assert_eq!(Mark::for_loss(0.9), Some(Mark::Blunder));
        assert!((move_accuracy(0.0) - 100.0).abs() < 1e-3);
        assert!(move_accuracy(10.0) < move_accuracy(5.0));
        assert_eq!(move_accuracy(100.0), 0.0);
    }
}
