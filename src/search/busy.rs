//! The positions the search threads are searching now, each at its depth,
//! so that a thread reaching one of them puts it off to the end of its move
//! loop and searches its other moves first (a simplified ABDADA). Lazy SMP
//! threads otherwise often search the same subtree at once; by the time a
//! thread comes back to a put-off move, the table usually holds the other
//! thread's result. A mark lost to a slot shared by two keys, or left
//! behind, only changes the order of a thread's moves, never a score.

use std::sync::atomic::{AtomicU64, Ordering};

/// Slots: 2^15 keys, 256 KiB, one table for all threads of a search.
const SLOTS: usize = 1 << 15;

/// Below this depth a subtree is too small for the bookkeeping to pay.
pub const MIN_DEPTH: i32 = 3;

/// Moves a node may put off; more are searched in their turn.
pub const MAX_DEFERRED: usize = 32;

pub struct BusyTable {
    slots: Box<[AtomicU64]>,
}

impl BusyTable {
    /// A table for a search on `threads` threads; with one, no thread can
    /// be busy elsewhere and the table is empty.
    pub fn new(threads: usize) -> BusyTable {
        let len = if threads > 1 { SLOTS } else { 0 };
        BusyTable {
            slots: (0..len).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Whether the search has other threads to put moves off for.
    #[inline]
    pub fn in_use(&self) -> bool {
        !self.slots.is_empty()
    }

    /// The key of the position with this hash searched to `depth`: the
    /// same position at another depth is another search, not a duplicate.
    #[inline]
    pub fn key(hash: u64, depth: i32) -> u64 {
        hash ^ (depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The slot of a key, by its high bits (the table and the evaluation
    /// cache index by the low ones).
    #[inline]
    fn slot(&self, key: u64) -> Option<&AtomicU64> {
        self.slots.get((key >> 40) as usize & (SLOTS - 1))
    }

    /// Whether some thread is searching this key now.
    #[inline]
    pub fn is_busy(&self, key: u64) -> bool {
        self.slot(key)
            .is_some_and(|s| s.load(Ordering::Relaxed) == key)
    }

    /// Marks a key as being searched (replacing whatever held its slot).
    #[inline]
    pub fn enter(&self, key: u64) {
        if let Some(s) = self.slot(key) {
            s.store(key, Ordering::Relaxed);
        }
    }

    /// Clears a key's mark, unless another key took its slot since.
    #[inline]
    pub fn leave(&self, key: u64) {
        if let Some(s) = self.slot(key) {
            let _ = s.compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_busy_from_enter_to_leave_at_its_own_depth() {
        let table = BusyTable::new(2);
        let key = BusyTable::key(0x1234_5678_9ABC_DEF0, 5);
        assert!(!table.is_busy(key));
        table.enter(key);
        assert!(table.is_busy(key));
        assert!(!table.is_busy(BusyTable::key(0x1234_5678_9ABC_DEF0, 4)));
        table.leave(key);
        assert!(!table.is_busy(key));
    }

    #[test]
    fn a_key_that_took_the_slot_keeps_it_when_the_first_leaves() {
        let table = BusyTable::new(2);
        let first = 0x00AB_0000_0000_0001u64;
        let second = 0x00AB_0000_0000_0002u64; // same high bits: same slot
        table.enter(first);
        table.enter(second);
        table.leave(first);
        assert!(table.is_busy(second));
        table.leave(second);
        assert!(!table.is_busy(second) && !table.is_busy(first));
    }

    #[test]
    fn with_one_thread_nothing_is_ever_busy() {
        let table = BusyTable::new(1);
        assert!(!table.in_use() && BusyTable::new(2).in_use());
        table.enter(42);
        assert!(!table.is_busy(42));
        table.leave(42);
    }
}
