//! What a search score says, in the one form every front end formats:
//! centi-soldiers, or a proven win or loss in so many moves, and beside it
//! the chances of a win, a draw and a loss ([`Wdl`]) that the model of
//! [`super::wdl`] gives it. tei, OTEP, the bots and the HTTP API all read
//! scores through here, so a mate distance is counted one way.

use super::{WIN, WIN_BOUND};
use std::fmt;

/// A search score from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centi-soldiers.
    Cp(i32),
    /// The side to move wins in this many of its own moves (at least 1).
    Win(i32),
    /// The side to move loses in this many of its own moves (at least 1).
    Loss(i32),
}

impl Score {
    /// The score a search reports (`WIN - plies` for a win).
    pub fn from_search(raw: i32) -> Score {
        if raw >= WIN_BOUND {
            Score::Win(((WIN - raw + 1) / 2).max(1))
        } else if raw <= -WIN_BOUND {
            Score::Loss(((WIN + raw + 1) / 2).max(1))
        } else {
            Score::Cp(raw)
        }
    }

    /// Centi-soldiers, with a proven result as `±proven`.
    pub fn cp_or(self, proven: i32) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Win(_) => proven,
            Score::Loss(_) => -proven,
        }
    }
}

/// The UCI form: `cp <x>`, `mate <n>`, `mate -<n>`.
impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Win(n) => write!(f, "mate {n}"),
            Score::Loss(n) => write!(f, "mate -{n}"),
        }
    }
}

/// Chances of a win, a draw and a loss for the side to move, in permille;
/// the three always sum to 1000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wdl {
    pub win: u16,
    pub draw: u16,
    pub loss: u16,
}

impl Wdl {
    /// A position the side to move has won (by the rules or by a proof).
    pub const WON: Wdl = Wdl {
        win: 1000,
        draw: 0,
        loss: 0,
    };
    /// A position the side to move has lost.
    pub const LOST: Wdl = Wdl {
        win: 0,
        draw: 0,
        loss: 1000,
    };
    /// A drawn position.
    pub const DRAWN: Wdl = Wdl {
        win: 0,
        draw: 1000,
        loss: 0,
    };

    /// Permille from probabilities (any non-negative weights): the win
    /// and the loss each rounded, the draw what is left, so that the three
    /// sum to 1000 and the win's permille never falls (nor the loss's
    /// rises) as its probability rises, as a share of the largest
    /// remainders could.
    pub fn from_probabilities(win: f64, draw: f64, loss: f64) -> Wdl {
        let clean = |p: f64| if p.is_finite() { p.max(0.0) } else { 0.0 };
        let (win, draw, loss) = (clean(win), clean(draw), clean(loss));
        let total = win + draw + loss;
        if total <= 0.0 {
            return Wdl::DRAWN;
        }
        let permille = |p: f64| (p / total * 1000.0).round().clamp(0.0, 1000.0) as u16;
        let win = permille(win);
        let loss = permille(loss).min(1000 - win);
        Wdl {
            win,
            draw: 1000 - win - loss,
            loss,
        }
    }

    /// The same chances seen by the other side.
    pub fn flipped(self) -> Wdl {
        Wdl {
            win: self.loss,
            draw: self.draw,
            loss: self.win,
        }
    }

    /// The expected score, 0 to 1: a win counts 1, a draw a half.
    pub fn expected(self) -> f64 {
        (f64::from(self.win) + 0.5 * f64::from(self.draw)) / 1000.0
    }
}

/// `W D L`, as UCI's `wdl` field.
impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.win, self.draw, self.loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_distances_are_counted_in_the_movers_moves() {
        assert_eq!(Score::from_search(WIN - 1), Score::Win(1));
        assert_eq!(Score::from_search(WIN - 3), Score::Win(2));
        assert_eq!(Score::from_search(-WIN + 2), Score::Loss(1));
        assert_eq!(Score::from_search(-WIN + 4), Score::Loss(2));
        assert_eq!(Score::from_search(WIN_BOUND - 1), Score::Cp(WIN_BOUND - 1));
        assert_eq!(Score::from_search(-37).to_string(), "cp -37");
        assert_eq!(Score::from_search(WIN - 3).to_string(), "mate 2");
        assert_eq!(Score::from_search(-WIN + 2).to_string(), "mate -1");
        assert_eq!(Score::from_search(WIN - 1).cp_or(10_000), 10_000);
    }

    #[test]
    fn permille_always_sum_to_a_thousand() {
        for (w, d, l) in [
            (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0),
            (0.9995, 0.0, 0.0005),
            (0.0, 0.0, 0.0),
            (f64::NAN, 1.0, 1.0),
            (0.123_456, 0.5, 0.376_544),
        ] {
            let x = Wdl::from_probabilities(w, d, l);
            assert_eq!(x.win + x.draw + x.loss, 1000, "{w} {d} {l}: {x}");
        }
        assert_eq!(Wdl::from_probabilities(1.0, 0.0, 0.0), Wdl::WON);
        // Near a wide draw band the win's permille never falls as its
        // probability rises, nor the loss's rises as its falls.
        let mut last = Wdl::LOST;
        for i in 0..=20_000 {
            let win = f64::from(i) / 20_000.0 * 0.01;
            let loss = 0.95 - 0.9 * f64::from(i) / 20_000.0;
            let x = Wdl::from_probabilities(win, 1.0 - win - loss, loss);
            assert!(x.win >= last.win && x.loss <= last.loss, "{last} -> {x}");
            assert_eq!(x.win + x.draw + x.loss, 1000);
            last = x;
        }
        assert_eq!(Wdl::WON.flipped(), Wdl::LOST);
        assert_eq!(Wdl::WON.to_string(), "1000 0 0");
    }
}
