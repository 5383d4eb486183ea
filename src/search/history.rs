//! Quiet-move history: how often a quiet move (by side, from, to) caused a
//! cutoff, less how often it was tried and failed before another move cut
//! off. Each search thread keeps its own table, and the tables outlive a
//! `go`: the engine hands each thread its table back at the next search of
//! the same game, aged, and empties them for a new game or new rules.

use std::sync::Mutex;

use crate::rules::{Move, Side};
use crate::search::params::{history_bonus, HISTORY_AGE_SHIFT, HISTORY_MAX};

const _: () = assert!(HISTORY_MAX <= i16::MAX as i32);

const ENTRIES: usize = 2 * 128 * 128;
// The journal keeps an entry's index in 16 bits.
const _: () = assert!(ENTRIES <= 1 << 16);

/// One thread's history table. Entries stay within `HISTORY_MAX`, so they
/// are kept as i16: half the memory, more of it in the cache.
///
/// A node scores its quiet moves only once its other moves have failed to
/// cut off (most nodes never need them). Meanwhile it keeps a *stage*
/// open, in which every write is journaled, so that it can score them
/// with the table as it stood when it began: the order, and so the tree,
/// is the one that scoring every move at once gives.
pub struct History {
    table: Vec<i16>,
    journal: Vec<Write>,
    open_stages: u32,
}

/// One journaled write: the entry, its value before and after.
#[derive(Clone, Copy)]
struct Write {
    index: u16,
    old: i16,
    new: i16,
}

#[inline]
fn index(side: Side, mv: Move) -> usize {
    side.index() << 14 | mv.squares_index()
}

impl Default for History {
    fn default() -> Self {
        History::new()
    }
}

impl History {
    pub fn new() -> History {
        History {
            table: vec![0; ENTRIES],
            journal: Vec::new(),
            open_stages: 0,
        }
    }

    #[inline]
    pub fn score(&self, side: Side, mv: Move) -> i32 {
        self.table[index(side, mv)] as i32
    }

    /// A quiet move that cut off at `depth`.
    #[inline]
    pub fn reward(&mut self, side: Side, mv: Move, depth: i32) {
        self.update(side, mv, history_bonus(depth));
    }

    /// A quiet move searched before the move that cut off at `depth`.
    #[inline]
    pub fn penalise(&mut self, side: Side, mv: Move, depth: i32) {
        self.update(side, mv, -history_bonus(depth));
    }

    /// Adds `delta`, pulled back towards zero so that every entry stays
    /// within `HISTORY_MAX` (gravity: recent results weigh most).
    #[inline]
    fn update(&mut self, side: Side, mv: Move, delta: i32) {
        let delta = delta.clamp(-HISTORY_MAX, HISTORY_MAX);
        let i = index(side, mv);
        let h = &mut self.table[i];
        let old = *h;
        let new = (old as i32 + delta - old as i32 * delta.abs() / HISTORY_MAX) as i16;
        *h = new;
        if self.open_stages > 0 {
            self.journal.push(Write {
                index: i as u16,
                old,
                new,
            });
        }
    }

    /// Opens a stage: writes from now on are journaled. Returns the mark
    /// that [`History::as_at`] takes.
    #[inline]
    pub fn open_stage(&mut self) -> usize {
        self.open_stages += 1;
        self.journal.len()
    }

    /// Closes the innermost open stage; the journal empties with the
    /// outermost.
    #[inline]
    pub fn close_stage(&mut self) {
        self.open_stages -= 1;
        if self.open_stages == 0 {
            self.journal.clear();
        }
    }

    /// Runs `f` on the table as it stood at `mark` (of a stage still
    /// open), then puts back the writes made since.
    pub fn as_at<R>(&mut self, mark: usize, f: impl FnOnce(&History) -> R) -> R {
        let History { table, journal, .. } = self;
        for w in journal[mark..].iter().rev() {
            table[w.index as usize] = w.old;
        }
        let result = f(self);
        let History { table, journal, .. } = self;
        for w in &journal[mark..] {
            table[w.index as usize] = w.new;
        }
        result
    }

    /// Scales every entry down for a new search: what the last move's
    /// search learnt still orders moves, but counts less than what this
    /// one finds.
    pub fn age(&mut self) {
        debug_assert_eq!(self.open_stages, 0);
        for h in &mut self.table {
            *h >>= HISTORY_AGE_SHIFT;
        }
    }
}

/// The engine's history tables between searches, one per search thread.
#[derive(Default)]
pub struct HistoryStore {
    tables: Mutex<Vec<Option<History>>>,
}

impl HistoryStore {
    /// Thread `id`'s table for a new search: the one it left, aged, or an
    /// empty one.
    pub fn take(&self, id: usize) -> History {
        let kept = self
            .tables
            .lock()
            .ok()
            .and_then(|mut tables| tables.get_mut(id).and_then(Option::take));
        match kept {
            Some(mut history) => {
                history.age();
                history
            }
            None => History::new(),
        }
    }

    /// Keeps thread `id`'s table for the next search.
    pub fn keep(&self, id: usize, history: History) {
        if let Ok(mut tables) = self.tables.lock() {
            if tables.len() <= id {
                tables.resize_with(id + 1, || None);
            }
            tables[id] = Some(history);
        }
    }

    /// Forgets every table: a new game, or new rules.
    pub fn clear(&self) {
        if let Ok(mut tables) = self.tables.lock() {
            tables.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Square;

    fn mv(from: (usize, usize), to: (usize, usize)) -> Move {
        Move::new(Square::new(from.0, from.1), Square::new(to.0, to.1))
    }

    #[test]
    fn rewards_and_penalties_stay_within_the_bound() {
        let mut h = History::new();
        let m = mv((0, 3), (0, 5));
        for _ in 0..10_000 {
            h.reward(Side::Attackers, m, 20);
        }
        assert!(h.score(Side::Attackers, m) <= HISTORY_MAX);
        assert_eq!(h.score(Side::Defenders, m), 0);
        for _ in 0..10_000 {
            h.penalise(Side::Attackers, m, 20);
        }
        assert!(h.score(Side::Attackers, m) >= -HISTORY_MAX);
        assert!(h.score(Side::Attackers, m) < 0);
    }

    #[test]
    fn a_stage_sees_the_table_as_it_was_when_it_opened() {
        let mut h = History::new();
        let (a, b) = (mv((0, 3), (0, 5)), mv((2, 2), (6, 2)));
        h.reward(Side::Attackers, a, 4);
        let a0 = h.score(Side::Attackers, a);
        let outer = h.open_stage();
        h.reward(Side::Attackers, a, 6);
        let inner = h.open_stage();
        h.penalise(Side::Defenders, b, 3);
        h.reward(Side::Attackers, a, 2);
        let (a_now, b_now) = (h.score(Side::Attackers, a), h.score(Side::Defenders, b));
        let seen = h.as_at(outer, |t| {
            (t.score(Side::Attackers, a), t.score(Side::Defenders, b))
        });
        assert_eq!(seen, (a0, 0));
        let a_inner = h.as_at(inner, |t| t.score(Side::Attackers, a));
        assert!(a0 < a_inner && a_inner < a_now);
        assert_eq!(h.score(Side::Attackers, a), a_now);
        assert_eq!(h.score(Side::Defenders, b), b_now);
        h.close_stage();
        h.close_stage();
        assert!(h.journal.is_empty());
        h.reward(Side::Attackers, a, 2);
        assert!(h.journal.is_empty(), "no stage open, nothing journaled");
    }

    #[test]
    fn a_kept_table_comes_back_aged_and_a_cleared_one_empty() {
        let store = HistoryStore::default();
        let m = mv((1, 1), (1, 4));
        let mut h = store.take(1);
        h.reward(Side::Defenders, m, 8);
        let before = h.score(Side::Defenders, m);
        store.keep(1, h);
        let again = store.take(1);
        assert_eq!(again.score(Side::Defenders, m), before >> HISTORY_AGE_SHIFT);
        store.keep(1, again);
        store.clear();
        assert_eq!(store.take(1).score(Side::Defenders, m), 0);
        assert_eq!(store.take(0).score(Side::Defenders, m), 0);
    }
}
