//! The transposition table, shared by all search threads without locks:
//! each slot is two atomics holding `key ^ data` and `data`, so a
//! slot torn by two threads writing at once fails the key check and is
//! simply not used.

use super::params::TT_SAME_KEY_DEPTH_MARGIN;
use crate::rules::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// How a stored score bounds the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact = 1,
    Lower = 2,
    Upper = 3,
}

/// One probed entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub mv: Option<Move>,
    /// Score relative to the node (win distances already adjusted).
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

/// A slot: `check` holds `key ^ data`. All zero is an empty slot.
#[repr(C)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const SLOTS_PER_BUCKET: usize = 2;
const SLOT_BYTES: usize = std::mem::size_of::<Slot>();
const _: () = assert!(SLOT_BYTES == 16);

/// A bucket: the slots one key may use. Aligned to its size, so that a
/// bucket never straddles two cache lines and a probe costs one miss.
#[repr(C, align(32))]
struct Bucket([Slot; SLOTS_PER_BUCKET]);
const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();
const _: () = assert!(BUCKET_BYTES == SLOTS_PER_BUCKET * SLOT_BYTES);

// The 64 bits of a slot's data, low to high: move, score, static
// evaluation, depth, bound, age.
const MOVE_SHIFT: u32 = 0;
const SCORE_SHIFT: u32 = 16;
const EVAL_SHIFT: u32 = 32;
const DEPTH_SHIFT: u32 = 48;
const BOUND_SHIFT: u32 = 56;
const AGE_SHIFT: u32 = 58;
const FIELD_16: u64 = 0xffff;
const DEPTH_MASK: u64 = 0xff;
const BOUND_MASK: u64 = 0b11;
/// Ages count searches modulo 64.
pub const AGE_MASK: u8 = 0x3f;

// Scores and evaluations are stored as i16: every win score, moved by at
// most a whole line of plies (`score_to_tt`), must fit, and so must every
// evaluation (clamped below).
const _: () = assert!((super::WIN as i64) + (super::MAX_PLY as i64) <= i16::MAX as i64);
const _: () = assert!(AGE_SHIFT + 6 == 64 && BOUND_SHIFT + 2 == AGE_SHIFT);
const _: () = assert!(super::MAX_PLY as u64 <= DEPTH_MASK);

/// The largest evaluation stored; far above any static evaluation.
const EVAL_LIMIT: i32 = i16::MAX as i32;

fn pack(mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    let as_u16 = |v: i32| v.clamp(-EVAL_LIMIT, EVAL_LIMIT) as i16 as u16 as u64;
    ((mv.map_or(0, Move::raw) as u64) << MOVE_SHIFT)
        | (as_u16(score) << SCORE_SHIFT)
        | (as_u16(eval) << EVAL_SHIFT)
        | ((depth.clamp(0, DEPTH_MASK as i32) as u64) << DEPTH_SHIFT)
        | ((bound as u64) << BOUND_SHIFT)
        | (((age & AGE_MASK) as u64) << AGE_SHIFT)
}

fn unpack(data: u64) -> Option<Entry> {
    let bound = match (data >> BOUND_SHIFT) & BOUND_MASK {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    let field = |shift: u32| ((data >> shift) & FIELD_16) as u16;
    Some(Entry {
        mv: Move::from_raw(field(MOVE_SHIFT)),
        score: field(SCORE_SHIFT) as i16 as i32,
        eval: field(EVAL_SHIFT) as i16 as i32,
        depth: ((data >> DEPTH_SHIFT) & DEPTH_MASK) as i32,
        bound,
    })
}

/// Whether a new entry for a key replaces the one stored for it: an exact
/// score, an entry from an older search, or one not much shallower does;
/// a shallow bound does not push out a deep one of the same search.
#[inline]
fn replaces_same_key(old: Entry, old_age: u8, depth: i32, bound: Bound, age: u8) -> bool {
    bound == Bound::Exact || old_age != age || depth + TT_SAME_KEY_DEPTH_MARGIN > old.depth
}

fn age_of(data: u64) -> u8 {
    ((data >> AGE_SHIFT) as u8) & AGE_MASK
}

fn depth_of(data: u64) -> i32 {
    ((data >> DEPTH_SHIFT) & DEPTH_MASK) as i32
}

/// A table of `2^k` buckets of two slots: the first keeps the deeper (or
/// newer) entry, the second always takes the latest.
pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    mask: usize,
    age: AtomicU8,
}

/// `len` empty buckets in zeroed memory. The allocator hands large zeroed
/// blocks out as untouched pages, so a table of any size is ready at once
/// and memory is taken only as the search writes to it.
fn zeroed_buckets(len: usize) -> Option<Box<[Bucket]>> {
    let layout = std::alloc::Layout::array::<Bucket>(len.max(1)).ok()?;
    // SAFETY: the layout has a non-zero size (at least one bucket).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<Bucket>();
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of an
    // array of `len.max(1)` buckets (size and alignment), which is the
    // layout a `Box<[Bucket]>` of that length frees with; the memory is
    // zeroed, and all-zero bytes are a valid `Bucket` (`AtomicU64`s, which
    // have the representation of `u64`); the box takes sole ownership.
    Some(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len.max(1))) })
}

/// Bytes of memory the machine can still give, where the system says
/// (Linux's `MemAvailable`).
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Memory a table may not take: what the rest of the process and the
/// machine need.
const MEMORY_HEADROOM: u64 = 256 << 20;

/// The most buckets (a power of two) that fit in `bytes`.
fn buckets_for(bytes: usize) -> usize {
    let mut buckets = 1usize;
    while buckets * 2 * BUCKET_BYTES <= bytes {
        buckets *= 2;
    }
    buckets
}

/// The MiB a table asked for as `mib` MiB really takes: the largest power
/// of two of buckets that fits (100 MiB gives 64).
pub fn used_mib(mib: usize) -> usize {
    (buckets_for(mib.max(1).saturating_mul(1 << 20)) * BUCKET_BYTES) >> 20
}

impl TranspositionTable {
    /// A table of at most `mib` MiB (at least one bucket).
    pub fn new(mib: usize) -> TranspositionTable {
        // The smallest table can always be had.
        Self::try_new(mib).unwrap_or_else(|_| Self::with_buckets(1))
    }

    /// A table of at most `mib` MiB, or an error when the machine cannot
    /// hold it (more than its available memory less a headroom) or the
    /// memory cannot be had.
    pub fn try_new(mib: usize) -> Result<TranspositionTable, String> {
        let bytes = mib.max(1).saturating_mul(1 << 20);
        if let Some(available) = available_memory() {
            if bytes as u64 > available.saturating_sub(MEMORY_HEADROOM) {
                return Err(format!(
                    "a {mib} MiB hash table is more than this machine can hold ({} MiB available)",
                    available >> 20
                ));
            }
        }
        let buckets = buckets_for(bytes);
        let buckets_memory = zeroed_buckets(buckets)
            .ok_or_else(|| format!("cannot allocate a {mib} MiB hash table"))?;
        Ok(TranspositionTable {
            buckets: buckets_memory,
            mask: buckets - 1,
            age: AtomicU8::new(0),
        })
    }

    fn with_buckets(buckets: usize) -> TranspositionTable {
        let empty = || Slot {
            check: AtomicU64::new(0),
            data: AtomicU64::new(0),
        };
        let buckets_memory = (0..buckets).map(|_| Bucket([empty(), empty()])).collect();
        TranspositionTable {
            buckets: buckets_memory,
            mask: buckets - 1,
            age: AtomicU8::new(0),
        }
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * BUCKET_BYTES
    }

    /// Empties every slot.
    pub fn clear(&self) {
        for s in self.buckets.iter().flat_map(|b| &b.0) {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store((a + 1) & AGE_MASK, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Slot; SLOTS_PER_BUCKET] {
        &self.buckets[(key as usize) & self.mask].0
    }

    /// Asks the CPU to bring `key`'s bucket into the cache: called when a
    /// move is made, its probe a few hundred cycles later finds it there
    /// instead of waiting on memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const Bucket = &self.buckets[(key as usize) & self.mask];
            // SAFETY: a prefetch is a hint that reads nothing and cannot
            // fault; SSE is part of every x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in self.bucket(key) {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key {
                return unpack(data);
            }
        }
        None
    }

    /// Stores an entry; keeps an existing best move when none is given.
    #[inline]
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        eval: i32,
        depth: i32,
        bound: Bound,
    ) {
        let age = self.age.load(Ordering::Relaxed);
        let bucket = self.bucket(key);
        // Same position already stored: overwrite in place.
        let mut target = None;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key {
                target = Some((i, unpack(data)));
                break;
            }
        }
        let (index, old) = match target {
            Some((i, Some(old)))
                if !replaces_same_key(
                    old,
                    age_of(bucket[i].data.load(Ordering::Relaxed)),
                    depth,
                    bound,
                    age,
                ) =>
            {
                // A deeper entry of this search stays; only a new best
                // move is taken into it.
                if let Some(mv) = mv.filter(|m| Some(*m) != old.mv) {
                    let data = pack(Some(mv), old.score, old.eval, old.depth, old.bound, age);
                    bucket[i].data.store(data, Ordering::Relaxed);
                    bucket[i].check.store(key ^ data, Ordering::Relaxed);
                }
                return;
            }
            Some(t) => t,
            None => {
                // Replace the first slot if it is stale or not deeper; else the second.
                let data = bucket[0].data.load(Ordering::Relaxed);
                let stale = age_of(data) != age;
                let old_depth = depth_of(data);
                if stale || depth >= old_depth || unpack(data).is_none() {
                    (0, None)
                } else {
                    (1, None)
                }
            }
        };
        let mv = mv.or(old.and_then(|e| e.mv));
        let data = pack(mv, score, eval, depth, bound, age);
        let slot = &bucket[index];
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of sampled slots written during the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let sample = (self.buckets.len() * SLOTS_PER_BUCKET).min(2000);
        let used = self
            .buckets
            .iter()
            .flat_map(|b| &b.0)
            .take(sample)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                unpack(d).is_some() && age_of(d) == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Square;

    #[test]
    fn store_and_probe() {
        let tt = TranspositionTable::new(1);
        let mv = Move::new(Square::new(0, 3), Square::new(2, 3));
        tt.store(0xDEAD_BEEF_1234_5678, Some(mv), -123, 45, 7, Bound::Lower);
        let e = tt.probe(0xDEAD_BEEF_1234_5678).unwrap();
        assert_eq!(
            (e.mv, e.score, e.eval, e.depth, e.bound),
            (Some(mv), -123, 45, 7, Bound::Lower)
        );
    }

    #[test]
    fn a_deep_entry_keeps_its_place_against_a_shallow_bound() {
        let tt = TranspositionTable::new(1);
        let key = 0x5555_0000_1111_2222u64;
        let deep = Move::new(Square::new(0, 3), Square::new(2, 3));
        let shallow = Move::new(Square::new(0, 4), Square::new(1, 4));
        tt.store(key, Some(deep), 50, 0, 12, Bound::Lower);
        // A shallow bound of the same search keeps the deep score but
        // takes the newer move.
        tt.store(key, Some(shallow), -20, 0, 2, Bound::Upper);
        let e = tt.probe(key).unwrap();
        assert_eq!(
            (e.score, e.depth, e.bound, e.mv),
            (50, 12, Bound::Lower, Some(shallow))
        );
        // An exact score replaces it whatever its depth.
        tt.store(key, None, 7, 0, 2, Bound::Exact);
        let e = tt.probe(key).unwrap();
        assert_eq!(
            (e.score, e.depth, e.bound, e.mv),
            (7, 2, Bound::Exact, Some(shallow))
        );
        // So does any entry of a later search.
        tt.store(key, Some(deep), 60, 0, 12, Bound::Lower);
        tt.new_search();
        tt.store(key, None, 1, 0, 1, Bound::Upper);
        let e = tt.probe(key).unwrap();
        assert_eq!((e.score, e.depth, e.bound), (1, 1, Bound::Upper));
    }

    #[test]
    fn wrong_key_is_never_used() {
        let tt = TranspositionTable::new(1);
        let key = 0x0123_4567_89AB_CDEFu64;
        tt.store(key, None, 10, 0, 3, Bound::Exact);
        // Same bucket, different key.
        let other = key ^ (1u64 << 63);
        assert!(tt.probe(other).is_none());
        // A torn write (check from one entry, data from another) fails the check.
        for s in tt.bucket(key) {
            s.data.fetch_xor(1 << 20, Ordering::Relaxed);
        }
        assert!(tt.probe(key).is_none());
    }

    #[test]
    fn size_and_hashfull() {
        let tt = TranspositionTable::new(16);
        assert!(tt.bytes() <= 16 << 20 && tt.bytes() > 8 << 20);
        assert_eq!(tt.hashfull(), 0);
        for k in 0..100_000u64 {
            tt.store(
                k.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                None,
                0,
                0,
                1,
                Bound::Exact,
            );
        }
        assert!(tt.hashfull() > 0);
        tt.clear();
        assert_eq!(tt.hashfull(), 0);
    }
}
