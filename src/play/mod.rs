//! Playing against others: what every front end that plays a game needs
//! beside the search, in one place. The clock a host keeps becomes search
//! limits (the engine's time manager then shares the time out); a host's
//! refused moves are kept out of the next search; and when to resign or
//! take a draw. OTEP, the hnefatafl bot, the Tablut Challenge client and
//! the browser board use it; they keep only parsing and formatting.

use crate::rules::{Game, Move, Side};
use crate::search::{Limits, WIN_BOUND};
use std::time::Duration;

/// The clock a host keeps, as it tells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostClock {
    /// Fischer: each side's time left and its increment a move (the
    /// hnefatafl.org server, the browser board, UCI-style `go`).
    Fischer {
        remaining_ms: [u64; 2],
        increment_ms: [u64; 2],
    },
    /// OpenTafl's: main time, then overtime periods (byo-yomi) of
    /// `period_ms`, of which each side has `periods_left`; a side in
    /// overtime must move within the period it is in (`remaining_ms`).
    Overtime {
        remaining_ms: [u64; 2],
        in_overtime: [bool; 2],
        periods_left: [u32; 2],
        period_ms: u64,
    },
    /// A fixed time a move the host enforces (the Tablut Challenge), of
    /// which `margin_ms` is kept for the host's polling and the network.
    PerMove { budget_ms: u64, margin_ms: u64 },
    /// No clock: think this long.
    Untimed { move_ms: u64 },
}

/// Of an overtime period, the share a move may take of it: the rest is
/// kept for the host's latency, so the period is never lost.
const OVERTIME_SHARE_PERCENT: u64 = 70;
/// Over how many moves the main time is spread while overtime periods are
/// in hand (the search's own default moves to go).
const MAIN_TIME_MOVES: u64 = crate::search::params::MOVES_TO_GO_DEFAULT as u64;

impl HostClock {
    /// The limits of `side`'s search under this clock.
    pub fn limits(&self, side: Side) -> Limits {
        let ms = Duration::from_millis;
        let s = side.index();
        match *self {
            HostClock::Fischer {
                remaining_ms,
                increment_ms,
            } => Limits {
                time: [Some(ms(remaining_ms[0])), Some(ms(remaining_ms[1]))],
                inc: [ms(increment_ms[0]), ms(increment_ms[1])],
                ..Limits::default()
            },
            HostClock::Overtime {
                remaining_ms,
                in_overtime,
                periods_left,
                period_ms,
            } => {
                let share = |t: u64| t.saturating_mul(OVERTIME_SHARE_PERCENT) / 100;
                if in_overtime[s] {
                    Limits::move_time(share(remaining_ms[s]).max(1))
                } else if periods_left[s] > 0 {
                    // Byo-yomi (OpenTafl's overtime): once main time is
                    // gone every move has a whole period, and a move that
                    // runs out of main time goes on into a period without
                    // losing it. So main time and periods are one budget:
                    // each move takes what a move in overtime would, plus
                    // its part of the main time. It never drops to a
                    // fraction of a second with a period in hand, and a
                    // move that spills over uses less than the period.
                    Limits::move_time(
                        share(period_ms)
                            .saturating_add(remaining_ms[s] / MAIN_TIME_MOVES)
                            .max(1),
                    )
                } else {
                    Limits {
                        time: [Some(ms(remaining_ms[0])), Some(ms(remaining_ms[1]))],
                        ..Limits::default()
                    }
                }
            }
            HostClock::PerMove {
                budget_ms,
                margin_ms,
            } => {
                let budget = budget_ms.max(1);
                Limits::move_time(budget.saturating_sub(margin_ms.min(budget / 2)))
            }
            HostClock::Untimed { move_ms } => Limits::move_time(move_ms.max(1)),
        }
    }
}

/// Keeps the moves a host refused out of the next search (its rules may
/// differ from ours in a case no game decided yet), and lets a search run
/// where our rules say the game is over but the host plays on. `None`
/// when no move is left to play.
pub fn avoiding_refused(mut limits: Limits, game: &Game, refused: &[Move]) -> Option<Limits> {
    let over = game.outcome().is_some();
    if refused.is_empty() && !over {
        return Some(limits);
    }
    let mut playable = game.playable_moves();
    playable.retain(|m| !refused.contains(m));
    if playable.is_empty() {
        return None;
    }
    limits.search_moves = playable.to_vec();
    Some(limits)
}

/// Resign when the search proves a loss (a win for the opponent).
pub fn should_resign(score: i32) -> bool {
    score <= -WIN_BOUND
}

/// A draw is taken when the search's score (ours, in centi-soldiers) is
/// this bad or worse: two soldiers down.
pub const DRAW_WHEN_WORSE_THAN_CP: i32 = -200;
/// Within this many plies of the ply limit (which draws the game anyway) a
/// draw is taken unless we see a win.
pub const DRAW_NEAR_LIMIT_PLIES: u32 = 10;

/// Take a draw offer only when a draw is a good result: the search thinks
/// we stand clearly worse, or the ply limit is near and we see no win.
pub fn accept_draw(last_score: Option<i32>, plies: u32, ply_limit: u32) -> bool {
    let Some(score) = last_score else {
        return false;
    };
    let near_limit = ply_limit > 0 && plies.saturating_add(DRAW_NEAR_LIMIT_PLIES) >= ply_limit;
    score <= DRAW_WHEN_WORSE_THAN_CP || (near_limit && score < WIN_BOUND)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Preset, Rules};

    #[test]
    fn clocks_become_limits() {
        let f = HostClock::Fischer {
            remaining_ms: [60_000, 30_000],
            increment_ms: [1_000, 1_000],
        }
        .limits(Side::Defenders);
        assert_eq!(f.time[1], Some(Duration::from_secs(30)));
        assert_eq!(f.inc[0], Duration::from_secs(1));
        let over = HostClock::Overtime {
            remaining_ms: [50_000, 10_000],
            in_overtime: [false, true],
            periods_left: [3, 2],
            period_ms: 10_000,
        };
        assert_eq!(
            over.limits(Side::Defenders).move_time,
            Some(Duration::from_millis(7_000))
        );
        // In main time with periods in hand: a period's share plus a
        // fiftieth of the main time.
        let main = over.limits(Side::Attackers);
        assert_eq!(main.move_time, Some(Duration::from_millis(7_000 + 1_000)));
        // Main time nearly gone: still most of a period, not 0.25 s.
        let late = HostClock::Overtime {
            remaining_ms: [2_500, 2_500],
            in_overtime: [false, false],
            periods_left: [3, 3],
            period_ms: 10_000,
        };
        let t = late.limits(Side::Attackers).move_time.unwrap();
        assert_eq!(t, Duration::from_millis(7_050));
        assert!(
            t < Duration::from_millis(2_500 + 10_000),
            "a spill stays inside the period"
        );
        // No periods: main time is a sudden-death clock.
        let sudden = HostClock::Overtime {
            remaining_ms: [60_000, 60_000],
            in_overtime: [false, false],
            periods_left: [0, 0],
            period_ms: 10_000,
        };
        let l = sudden.limits(Side::Defenders);
        assert_eq!(l.time[1], Some(Duration::from_secs(60)));
        assert_eq!(l.move_time, None);
        // A host's absurd numbers do not overflow.
        let huge = HostClock::Overtime {
            remaining_ms: [u64::MAX, u64::MAX],
            in_overtime: [true, false],
            periods_left: [1, 1],
            period_ms: u64::MAX,
        };
        assert!(huge.limits(Side::Attackers).move_time.is_some());
        assert!(huge.limits(Side::Defenders).move_time.is_some());
        let per_move = HostClock::PerMove {
            budget_ms: 60_000,
            margin_ms: 2_500,
        };
        assert_eq!(
            per_move.limits(Side::Attackers).move_time,
            Some(Duration::from_millis(57_500))
        );
        let tight = HostClock::PerMove {
            budget_ms: 3_000,
            margin_ms: 2_500,
        };
        assert_eq!(
            tight.limits(Side::Attackers).move_time,
            Some(Duration::from_millis(1_500))
        );
    }

    #[test]
    fn refused_moves_are_left_out() {
        let game = Game::new(Rules::preset(Preset::Brandubh));
        let all = game.legal_moves();
        let limits = avoiding_refused(Limits::depth(2), &game, &all[..1]).unwrap();
        assert_eq!(limits.search_moves.len(), all.len() - 1);
        assert!(!limits.search_moves.contains(&all[0]));
        assert!(avoiding_refused(Limits::depth(2), &game, &all).is_none());
        assert!(avoiding_refused(Limits::depth(2), &game, &[])
            .unwrap()
            .search_moves
            .is_empty());
    }

    #[test]
    fn resign_and_draw() {
        assert!(should_resign(-WIN_BOUND));
        assert!(!should_resign(-5_000));
        assert!(accept_draw(Some(-300), 10, 0));
        assert!(!accept_draw(Some(0), 10, 141));
        assert!(accept_draw(Some(0), 135, 141));
        assert!(!accept_draw(None, 135, 141));
    }
}
