//! Search limits and time management.

use super::params::{
    CLOCK_SAFETY_MS, HARD_LIMIT_FACTOR, HARD_MAX_PERCENT, MOVES_TO_GO_DEFAULT, MOVES_TO_GO_MAX,
    OPENING_MIN_BOARD, OPENING_PLIES, OPENING_SCALE, RESERVE_MAX_PERCENT,
    RESERVE_MAX_PERCENT_SUDDEN_DEATH,
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
    /// Checked between iterations; on a clock, scaled by how stable the
    /// best move and its score are.
    pub soft: Option<Duration>,
    /// Checked every ~1,000 nodes; never passed.
    pub hard: Option<Duration>,
    /// Whether the search may spend more or less than `soft` as it judges
    /// (a clock), rather than exactly the time it was given (`movetime`).
    pub flexible: bool,
    /// The latest the answer may come. Past `hard` the answer waits for the
    /// first iteration to complete, but only until this: a search starved
    /// of CPU (many threads on few cores, a loaded machine) then answers
    /// with a move chosen without search rather than lose on time.
    pub last: Option<Duration>,
}

/// Computes the deadlines for `side` from the limits, the move overhead
/// (time lost in communication, per move), the game's ply and the board's
/// side.
///
/// On a clock: the time to spend now is the clock plus every increment
/// still to come, less an overhead for each move to come (capped at a
/// share of the clock, so a fast game is played with its clock rather than
/// beside it), shared over the moves assumed left; on large boards the
/// first moves of a game take less. No move may take more than a tenth of
/// the clock.
pub fn deadlines(
    limits: &Limits,
    side: Side,
    overhead: Duration,
    ply: u32,
    board_size: usize,
) -> Deadlines {
    if let Some(mt) = limits.move_time {
        let t = mt.saturating_sub(overhead).max(Duration::from_millis(1));
        return Deadlines {
            soft: Some(t),
            hard: Some(t),
            flexible: false,
            last: Some(mt.max(t)),
        };
    }
    let Some(remaining) = limits.time[side.index()] else {
        return Deadlines {
            soft: None,
            hard: None,
            flexible: false,
            last: None,
        };
    };
    let inc = limits.inc[side.index()];
    let moves_left = limits
        .moves_to_go
        .unwrap_or(MOVES_TO_GO_DEFAULT)
        .clamp(1, MOVES_TO_GO_MAX);
    let safety = Duration::from_millis(CLOCK_SAFETY_MS);
    // Without an increment to pay them, the overheads to come are kept in
    // hand up to a larger share of the clock.
    let share = if inc >= overhead {
        RESERVE_MAX_PERCENT
    } else {
        RESERVE_MAX_PERCENT_SUDDEN_DEATH
    };
    let reserve = (overhead * (moves_left + 2) + safety).min(remaining * share / 100);
    let pool = (remaining + inc * (moves_left - 1)).saturating_sub(reserve);
    let opening = if board_size >= OPENING_MIN_BOARD {
        let plies = ply.min(OPENING_PLIES) as f64 / OPENING_PLIES as f64;
        OPENING_SCALE + (1.0 - OPENING_SCALE) * plies
    } else {
        1.0
    };
    let planned = (pool / moves_left).mul_f64(opening);
    let ceiling = (remaining * HARD_MAX_PERCENT / 100).saturating_sub(overhead + safety);
    let floor = Duration::from_millis(1);
    let hard = (planned * HARD_LIMIT_FACTOR).min(ceiling).max(floor);
    Deadlines {
        soft: Some(planned.min(hard).max(floor)),
        hard: Some(hard),
        flexible: true,
        // Half the clock: the rest covers the overhead and a starved process.
        last: Some((remaining.saturating_sub(overhead) / 2).max(hard)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(ms: u64, inc_ms: u64) -> Limits {
        Limits {
            time: [Some(Duration::from_millis(ms)); 2],
            inc: [Duration::from_millis(inc_ms); 2],
            ..Limits::default()
        }
    }

    #[test]
    fn deadlines_stay_inside_the_clock() {
        for ms in [0u64, 1, 10, 50, 200, 1000, 10_000, 600_000] {
            for ply in [0, 10, 100] {
                let d = deadlines(
                    &clock(ms, 100),
                    Side::Attackers,
                    Duration::from_millis(10),
                    ply,
                    9,
                );
                let hard = d.hard.unwrap();
                assert!(d.soft.unwrap() <= hard);
                assert!(d.flexible);
                if ms > 100 {
                    assert!(hard <= Duration::from_millis(ms / 10), "{ms}: {hard:?}");
                    let last = d.last.unwrap();
                    assert!(hard <= last && last <= Duration::from_millis(ms / 2));
                }
            }
        }
        let d = deadlines(
            &Limits::move_time(1000),
            Side::Defenders,
            Duration::from_millis(10),
            0,
            11,
        );
        assert_eq!(d.hard, Some(Duration::from_millis(990)));
        assert_eq!(d.last, Some(Duration::from_millis(1000)));
        assert!(!d.flexible);
        assert!(
            deadlines(&Limits::depth(5), Side::Attackers, Duration::ZERO, 0, 11)
                .hard
                .is_none()
        );
    }

    /// The most the search stretches the soft limit: four best-move
    /// changes and a falling score.
    const MOST_STRETCH: f64 = 2.0 * 1.3;

    /// A game on a clock, played by the deadlines: each move takes its
    /// soft time stretched as far as the search stretches it, never more
    /// than the hard limit, plus `latency` the engine does not see, for
    /// `moves` moves of one side, on a board of side `size`. Returns the
    /// lowest the clock fell to and the average time a move took, in ms.
    fn play_out(
        base_ms: u64,
        inc_ms: u64,
        latency_ms: u64,
        moves: usize,
        size: usize,
    ) -> (i64, f64) {
        let overhead = Duration::from_millis(10);
        let mut clock_ms = base_ms as i64;
        let mut lowest = clock_ms;
        let mut spent_total = 0.0;
        for ply in 0..moves {
            let l = clock(clock_ms.max(0) as u64, inc_ms);
            let d = deadlines(&l, Side::Attackers, overhead, 2 * ply as u32, size);
            let spent = d.soft.unwrap().mul_f64(MOST_STRETCH).min(d.hard.unwrap());
            let spent = spent.as_millis() as i64 + latency_ms as i64;
            spent_total += spent as f64;
            clock_ms -= spent;
            lowest = lowest.min(clock_ms);
            clock_ms += inc_ms as i64;
        }
        (lowest, spent_total / moves as f64)
    }

    /// Long games at short controls never lose on time while the latency
    /// the engine does not see stays within half the increment. Without
    /// an increment the clock is spent over the moves assumed left (50),
    /// so it holds for 150 moves a side (300 plies), not for ever.
    #[test]
    fn long_games_at_short_controls_keep_the_clock() {
        for (base, inc, latency, moves) in [
            (1_000, 10, 5, 1_500),
            (1_000, 0, 0, 150),
            (2_000, 20, 10, 1_500),
            (5_000, 50, 25, 1_500),
            (10_000, 100, 30, 1_500),
            (60_000, 0, 3, 150),
        ] {
            for size in [7, 9, 11] {
                let (lowest, _) = play_out(base, inc, latency, moves, size);
                assert!(
                    lowest > 0,
                    "{size}x{size}, {base}+{inc} ms with {latency} ms unseen: \
                     the clock fell to {lowest} ms"
                );
            }
        }
    }

    /// The clock is spent, not hoarded: at 1 s + 10 ms a move of a
    /// 60-move game takes 15 ms or more on average (the old manager kept
    /// 1.1 s of the second in hand and played its moves in 2 ms).
    #[test]
    fn a_fast_game_spends_its_clock() {
        let (_, average) = play_out(1_000, 10, 0, 60, 11);
        assert!(average >= 15.0, "{average} ms a move");
    }

    /// No move takes more than a tenth of the clock, and the first move of
    /// a 15 min + 10 s game (the hnefatafl bot: 300 ms overhead) ends
    /// within 30 s.
    #[test]
    fn no_move_takes_a_large_share() {
        for ply in [0, 10, 40, 80] {
            for size in [7, 9, 11] {
                let d = deadlines(
                    &clock(60_000, 1_000),
                    Side::Defenders,
                    Duration::from_millis(10),
                    ply,
                    size,
                );
                assert!(d.hard.unwrap() <= Duration::from_millis(6_000), "{d:?}");
            }
        }
        let d = deadlines(
            &clock(900_000, 10_000),
            Side::Attackers,
            Duration::from_millis(300),
            0,
            11,
        );
        assert!(d.hard.unwrap() <= Duration::from_secs(30), "{d:?}");
    }

    /// The first moves take less on 11x11 boards only: on smaller boards
    /// the opening decides the game, and a first move plans as much as one
    /// of the middle game.
    #[test]
    fn the_opening_is_shortened_on_large_boards_only() {
        let plan = |ply, size| {
            deadlines(
                &clock(10_000, 100),
                Side::Attackers,
                Duration::from_millis(10),
                ply,
                size,
            )
            .soft
            .unwrap()
        };
        assert!(plan(0, 11) < plan(OPENING_PLIES, 11).mul_f64(0.5));
        for size in [7, 9] {
            assert_eq!(plan(0, size), plan(OPENING_PLIES, size));
        }
    }
}
