//! Search limits and time management.

use super::params::{
    CLOCK_SAFETY_MS, FUTURE_INCREMENTS_PERCENT, HARD_LIMIT_FACTOR, MOVES_TO_GO_DEFAULT,
    MOVES_TO_GO_MAX,
};
use crate::rules::{Move, Side};
use std::time::Duration;

/// What bounds one search. With no limit set the search runs to its
/// maximum depth and then answers; only `infinite` and `ponder` make it
/// wait for `stop` (or `ponderhit`) before answering.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Remaining clock time of the attackers and the defenders.
    pub time: [Option<Duration>; 2],
    /// Increment per move of the attackers and the defenders.
    pub inc: [Duration; 2],
    pub moves_to_go: Option<u32>,
    pub move_time: Option<Duration>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Stop once a win in at most this many moves (of the side to move) is found.
    pub mate: Option<u32>,
    pub infinite: bool,
    /// Search as `infinite` until `ponderhit`, then by the clock.
    pub ponder: bool,
    /// Only these root moves (empty = all).
    pub search_moves: Vec<Move>,
}

impl Limits {
    pub fn depth(d: i32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }
    pub fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }
    pub fn move_time(ms: u64) -> Limits {
        Limits {
            move_time: Some(Duration::from_millis(ms)),
            ..Limits::default()
        }
    }
    /// Whether the clock of `side` bounds this search.
    pub fn uses_clock(&self, side: Side) -> bool {
        self.time[side.index()].is_some()
    }
}

/// The soft and hard deadlines of one search, measured from its start.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    /// Checked between iterations; stretched when the best move is unstable.
    pub soft: Option<Duration>,
    /// Checked every ~1,000 nodes; never passed.
    pub hard: Option<Duration>,
}

/// Computes the deadlines for `side` from the limits and the move overhead
/// (time lost in communication, per move).
pub fn deadlines(limits: &Limits, side: Side, overhead: Duration) -> Deadlines {
    if let Some(mt) = limits.move_time {
        let t = mt.saturating_sub(overhead).max(Duration::from_millis(1));
        return Deadlines {
            soft: Some(t),
            hard: Some(t),
        };
    }
    let Some(remaining) = limits.time[side.index()] else {
        return Deadlines {
            soft: None,
            hard: None,
        };
    };
    let inc = limits.inc[side.index()];
    let moves_left = limits
        .moves_to_go
        .unwrap_or(MOVES_TO_GO_DEFAULT)
        .clamp(1, MOVES_TO_GO_MAX);
    let safety = Duration::from_millis(CLOCK_SAFETY_MS);
    // Each move still to play loses one overhead the engine's own clock
    // does not see (the GUI's, the pipes', the scheduler's): keep that
    // many in hand. The reserve grows with the pace of the game, so a fast
    // game is played with a deeper cushion than its increment suggests.
    let reserve = overhead * (moves_left + 2) + safety;
    // Increments still to come are counted in part only: a game that is
    // fast for the latency it suffers must not spend them before they come.
    let future_increments = inc * (moves_left - 1) * FUTURE_INCREMENTS_PERCENT / 100;
    let pool = (remaining + future_increments).saturating_sub(reserve);
    // Never more than what the clock holds now, less this move's overhead.
    let ceiling = (remaining * 3 / 4).saturating_sub(overhead + safety);
    let soft = (pool / moves_left).min(ceiling);
    let hard = (soft * HARD_LIMIT_FACTOR).min(ceiling);
    let floor = Duration::from_millis(1);
    Deadlines {
        soft: Some(soft.max(floor)),
        hard: Some(hard.max(floor)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_stay_inside_the_clock() {
        let mut l = Limits::default();
        for ms in [0u64, 1, 10, 50, 200, 1000, 10_000, 600_000] {
            l.time = [Some(Duration::from_millis(ms)); 2];
            l.inc = [Duration::from_millis(100); 2];
            let d = deadlines(&l, Side::Attackers, Duration::from_millis(30));
            let hard = d.hard.unwrap();
            assert!(d.soft.unwrap() <= hard);
            if ms > 100 {
                assert!(hard < Duration::from_millis(ms), "{ms}: {hard:?}");
            }
        }
        let d = deadlines(
            &Limits::move_time(1000),
            Side::Defenders,
            Duration::from_millis(10),
        );
        assert_eq!(d.hard, Some(Duration::from_millis(990)));
        assert!(
            deadlines(&Limits::depth(5), Side::Attackers, Duration::ZERO)
                .hard
                .is_none()
        );
    }

    /// A long game on a clock, played by the deadlines: each move takes its
    /// soft time stretched to the most the search stretches it (twice),
    /// never more than the hard limit, plus `latency` the engine does not
    /// see, for `moves` moves of one side. Returns the lowest the clock fell
    /// to, in ms (negative: the flag fell).
    fn lowest_clock(base_ms: u64, inc_ms: u64, latency_ms: u64, moves: usize) -> i64 {
        let overhead = Duration::from_millis(30);
        let mut clock = base_ms as i64;
        let mut lowest = clock;
        for _ in 0..moves {
            let l = Limits {
                time: [Some(Duration::from_millis(clock.max(0) as u64)); 2],
                inc: [Duration::from_millis(inc_ms); 2],
                ..Limits::default()
            };
            let d = deadlines(&l, Side::Attackers, overhead);
            let spent = (d.soft.unwrap() * 2).min(d.hard.unwrap());
            clock -= spent.as_millis() as i64 + latency_ms as i64;
            lowest = lowest.min(clock);
            clock += inc_ms as i64;
        }
        lowest
    }

    /// Long games at short controls never lose on time while the latency
    /// the engine does not see stays within half the increment, and the
    /// clock keeps a cushion of ten moves' overhead. The old rule (a 35th
    /// of the clock plus three quarters of the increment, less one
    /// overhead) kept 19 to 32 ms here, and flagged in sudden death.
    #[test]
    fn long_games_at_short_controls_keep_the_clock() {
        for (base, inc, latency, moves) in [
            (1_000, 10, 5, 1_500),
            (1_000, 0, 0, 300),
            (2_000, 20, 10, 1_500),
            (5_000, 50, 25, 1_500),
            (10_000, 100, 30, 1_500),
            (60_000, 0, 3, 300),
        ] {
            let lowest = lowest_clock(base, inc, latency, moves);
            assert!(
                lowest > 300,
                "{base}+{inc} ms with {latency} ms unseen: the clock fell to {lowest} ms"
            );
        }
    }
}
