//! Search limits and time management.

use super::params::{
    CLOCK_SAFETY_MS, HARD_LIMIT_FACTOR, INCREMENT_QUARTERS_SPENT, MOVES_TO_GO_DEFAULT,
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
    // Keep a reserve so that the flag never falls: the overhead per move
    // plus a small safety margin.
    let usable = remaining.saturating_sub(overhead + Duration::from_millis(CLOCK_SAFETY_MS));
    let moves_left = limits
        .moves_to_go
        .unwrap_or(MOVES_TO_GO_DEFAULT)
        .clamp(1, MOVES_TO_GO_MAX);
    let base = usable / moves_left + inc * INCREMENT_QUARTERS_SPENT / 4;
    let soft = base.min(usable / 2);
    let hard = (base * HARD_LIMIT_FACTOR).min(usable * 3 / 4).max(soft);
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
}
