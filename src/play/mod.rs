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

/// Of an overtime period, the share a move in overtime may take.
const OVERTIME_SHARE_PERCENT: u64 = 70;
/// Of an overtime period still in hand, the share counted like an
/// increment while main time lasts.
const OVERTIME_AS_INCREMENT_PERCENT: u64 = 50;

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
                if in_overtime[s] {
                    Limits::move_time(remaining_ms[s] * OVERTIME_SHARE_PERCENT / 100)
                } else {
                    // Overtime periods are a cushion, like an increment.
                    let cushion = |side: usize| {
                        if periods_left[side] > 0 {
                            ms(period_ms * OVERTIME_AS_INCREMENT_PERCENT / 100)
                        } else {
                            Duration::ZERO
                        }
                    };
                    Limits {
                        time: [Some(ms(remaining_ms[0])), Some(ms(remaining_ms[1]))],
                        inc: [cushion(0), cushion(1)],
                        ..Limits::default()
                    }
                }
            }
            HostClock::PerMove {
                budget_ms,
                margin_ms,
            } => {
                let budget = budget_ms.max(1);
                Limits::move_time(budget - margin_ms.min(budget / 2))
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

/// Take a draw offer only when a draw is a good result: the search thinks
/// we stand clearly worse, or the ply limit (which draws the game anyway)
/// is near and we see no win.
pub fn accept_draw(last_score: Option<i32>, plies: u32, ply_limit: u32) -> bool {
    let Some(score) = last_score else {
        return false;
    };
    let near_limit = ply_limit > 0 && plies + 10 >= ply_limit;
    score <= -200 || (near_limit && score < WIN_BOUND)
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
        let main = over.limits(Side::Attackers);
        assert_eq!(main.time[0], Some(Duration::from_secs(50)));
        assert_eq!(main.inc[0], Duration::from_secs(5));
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
