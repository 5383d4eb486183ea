//! A small table of static evaluations by position key, one per search
//! thread. The linear evaluations walk the board for dozens of features
//! (floods, mobility, line counts); quiescence reaches the same positions
//! by different capture orders, and a lookup is far cheaper than a second
//! walk. The evaluation is a function of the position alone, so a hit
//! returns exactly what a walk would: the tree does not change.

/// Slots in a table: 2^14 of 16 bytes, 256 KiB, which stays in L2.
const SLOTS: usize = 1 << 14;

/// A slot holds the key with its lowest bit set (keys sharing a slot share
/// their low bits, so nothing is lost) and the evaluation above it: an
/// all-zero slot is empty, and a table is zeroed memory that the system
/// hands out untouched. Each search thread makes a table, so with hundreds
/// of threads writing them out at every `go` would cost more than the
/// clock of a fast game.
pub struct EvalCache {
    slots: Box<[u128]>,
}

impl EvalCache {
    pub fn new() -> EvalCache {
        EvalCache {
            slots: vec![0u128; SLOTS].into_boxed_slice(),
        }
    }

    /// The evaluation of the position with this key, from the table or
    /// computed by `evaluate` and kept (replacing whatever held the slot).
    #[inline]
    pub fn get_or_insert(&mut self, key: u64, evaluate: impl FnOnce() -> i32) -> i32 {
        let slot = &mut self.slots[key as usize & (SLOTS - 1)];
        let check = key | 1;
        if *slot as u64 == check {
            return (*slot >> 64) as u32 as i32;
        }
        let value = evaluate();
        *slot = u128::from(check) | u128::from(value as u32) << 64;
        value
    }
}

impl Default for EvalCache {
    fn default() -> Self {
        EvalCache::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_returns_the_stored_value_and_a_clash_recomputes() {
        let mut cache = EvalCache::new();
        assert_eq!(cache.get_or_insert(7, || 42), 42);
        assert_eq!(cache.get_or_insert(7, || panic!("hit expected")), 42);
        // Same slot, other key: recomputed and replaced.
        let other = 7 + SLOTS as u64;
        assert_eq!(cache.get_or_insert(other, || -5), -5);
        assert_eq!(cache.get_or_insert(7, || 43), 43);
        // Key 0 and key 1 in a fresh table are no hit on an empty slot;
        // negative values come back whole.
        assert_eq!(EvalCache::new().get_or_insert(0, || 1), 1);
        assert_eq!(EvalCache::new().get_or_insert(1, || 1), 1);
        assert_eq!(cache.get_or_insert(9, || -30_000), -30_000);
        assert_eq!(cache.get_or_insert(9, || 0), -30_000);
    }
}
