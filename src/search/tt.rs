//! The transposition table: a lossy hash table of search results shared by
//! all search threads.
//!
//! Layout: the table is an array of 64-byte buckets (one cache line), each
//! holding four 16-byte entries. An entry is two 64-bit words: the packed
//! data (move, value, static eval, depth, bound, age) and the position's
//! key XORed with that data. A reader recomputes `check ^ data` and trusts
//! the entry only if it equals its own key, so an entry torn by two threads
//! writing at once reads as a miss, never as another position's result, and
//! no lock is needed.
//!
//! Replacement: a store goes to the entry that already holds the position,
//! else to the entry of least worth, where worth is depth minus a penalty
//! for each search generation (age) the entry is old. An existing entry of
//! the same position is overwritten unless it is much deeper and the new
//! result is not exact.
//!
//! Values are stored relative to the node: a mate score counts plies from
//! the node, not from the root, so it stays right wherever the position
//! recurs ([`value_to_tt`], [`value_from_tt`]).

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

use memmap2::MmapMut;

use crate::chess::score::{NONE, TB_BOUND};

/// Kind of bound a stored value is, as negamax with a table defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The search failed low: the true value is at most this (upper bound).
    Upper = 1,
    /// The search failed high: the true value is at least this (lower bound).
    Lower = 2,
    /// The true value (a PV node that ended inside its window).
    Exact = 3,
}

impl Bound {
    /// The bound a fail-soft search's `best` value proves, given the
    /// window `(alpha, beta)` it was searched with.
    #[inline]
    pub fn of_result(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    fn from_bits(bits: u64) -> Option<Bound> {
        match bits {
            1 => Some(Bound::Upper),
            2 => Some(Bound::Lower),
            3 => Some(Bound::Exact),
            _ => None,
        }
    }
}

/// What a probe finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Packed best move ([`crate::chess::moves::pack`]), 0 for none.
    pub mv: u16,
    /// Search value, relative to the node (see [`value_from_tt`]).
    pub value: i32,
    /// Static evaluation, or [`NONE`].
    pub eval: i32,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    pub bound: Bound,
}

impl Entry {
    /// The value as a usable cutoff at `depth` inside window `alpha, beta`:
    /// exact values always, lower bounds at or above beta, upper bounds at
    /// or below alpha, and only from a search at least as deep.
    pub fn cutoff(&self, depth: i32, alpha: i32, beta: i32, ply: i32) -> Option<i32> {
        if self.depth < depth {
            return None;
        }
        let v = value_from_tt(self.value, ply);
        match self.bound {
            Bound::Exact => Some(v),
            Bound::Lower if v >= beta => Some(v),
            Bound::Upper if v <= alpha => Some(v),
            _ => None,
        }
    }
}

const ENTRIES_PER_BUCKET: usize = 4;
/// Depth is stored with this offset so that quiescence depths (down to -1) fit a byte.
const DEPTH_OFFSET: i32 = 2;
/// Age counts search generations modulo 64.
const AGE_MASK: u8 = 63;

#[repr(C, align(64))]
struct Bucket {
    words: [AtomicU64; 2 * ENTRIES_PER_BUCKET],
}

/// The shared table.
pub struct TranspositionTable {
    /// The buckets' memory: an anonymous mapping, which the operating
    /// system hands out as zero pages on first touch (see [`Self::try_new`]).
    memory: MmapMut,
    len: usize,
    age: AtomicU8,
    /// Something was stored into the table since it was made or cleared.
    used: AtomicBool,
}

fn pack(mv: u16, value: i32, eval: i32, depth: i32, bound: Bound, age: u8) -> u64 {
    (mv as u64)
        | ((value as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth + DEPTH_OFFSET).clamp(0, 255) as u64) << 48)
        | ((bound as u64) << 56)
        | (((age & AGE_MASK) as u64) << 58)
}

fn unpack(data: u64) -> Option<(Entry, u8)> {
    let bound = Bound::from_bits((data >> 56) & 3)?;
    Some((
        Entry {
            mv: data as u16,
            value: (data >> 16) as u16 as i16 as i32,
            eval: (data >> 32) as u16 as i16 as i32,
            depth: ((data >> 48) & 0xff) as i32 - DEPTH_OFFSET,
            bound,
        },
        ((data >> 58) as u8) & AGE_MASK,
    ))
}

impl TranspositionTable {
    /// A table of about `mb` megabytes; if that much memory cannot be had,
    /// the smallest one that can.
    ///
    /// # Panics
    /// If not even one bucket can be mapped.
    pub fn new(mb: usize) -> TranspositionTable {
        Self::try_new(mb)
            .or_else(|| Self::with_buckets(1))
            .expect("cannot map memory for the hash table")
    }

    /// A table of about `mb` megabytes, or `None` if the memory cannot be
    /// reserved.
    pub fn try_new(mb: usize) -> Option<TranspositionTable> {
        let bytes = mb.max(1).checked_mul(1024 * 1024)?;
        Self::with_buckets((bytes / std::mem::size_of::<Bucket>()).max(1))
    }

    /// Maps `n` buckets of zero pages (an empty entry is all zero bits).
    /// The pages are only backed by memory once the search writes to them,
    /// so even gigabytes take no time to set up; on Linux they are asked
    /// for as transparent huge pages, which makes first touches and TLB
    /// misses 512 times rarer (Stockfish does the same).
    fn with_buckets(n: usize) -> Option<TranspositionTable> {
        let bytes = n.checked_mul(std::mem::size_of::<Bucket>())?;
        let memory = MmapMut::map_anon(bytes).ok()?;
        #[cfg(target_os = "linux")]
        let _ = memory.advise(memmap2::Advice::HugePage);
        Some(TranspositionTable {
            memory,
            len: n,
            age: AtomicU8::new(0),
            used: AtomicBool::new(false),
        })
    }

    #[inline]
    fn buckets(&self) -> &[Bucket] {
        // SAFETY: the mapping is page-aligned (buckets need 64 bytes), holds
        // exactly `len` buckets, lives as long as `self`, and all bit
        // patterns, zero pages included, are valid buckets (atomics).
        // Every access goes through the atomics, so sharing is sound.
        unsafe { std::slice::from_raw_parts(self.memory.as_ptr() as *const Bucket, self.len) }
    }

    /// Size in megabytes.
    pub fn size_mb(&self) -> usize {
        self.len * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    /// Empties the table (for `ucinewgame` and `Clear Hash`) on this thread.
    pub fn clear(&self) {
        self.clear_part(0, 1);
        self.cleared();
    }

    /// Empties part `index` of `parts` equal parts of the table, so that
    /// several threads can clear it together; part 0 also resets the age.
    /// A table nothing was stored into since it was made or cleared is
    /// already empty and is left alone (its pages stay untouched).
    pub fn clear_part(&self, index: usize, parts: usize) {
        if !self.used.load(Ordering::Relaxed) {
            return;
        }
        let parts = parts.max(1);
        let len = self.len;
        let (from, to) = (len * index / parts, len * (index + 1) / parts);
        for b in self.buckets().get(from..to).unwrap_or_default() {
            for w in &b.words {
                w.store(0, Ordering::Relaxed);
            }
        }
        if index == 0 {
            self.age.store(0, Ordering::Relaxed);
        }
    }

    /// Writes zeros over the whole (empty) table so that its pages are
    /// backed by memory now rather than at the search's first touches:
    /// `bench` does this before its clock starts, so that it measures the
    /// search and not the kernel zeroing fresh pages (a game's table is
    /// made once, not once a move).
    pub fn touch(&self) {
        for b in self.buckets() {
            for w in &b.words {
                w.store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the table empty after every part has been cleared.
    pub fn cleared(&self) {
        self.used.store(false, Ordering::Relaxed);
    }

    /// Starts a new search generation: older entries become cheaper to replace.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age
            .store(a.wrapping_add(1) & AGE_MASK, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let i = ((key as u128 * self.len as u128) >> 64) as usize;
        &self.buckets()[i]
    }

    /// Hints the processor to load the bucket of `key`.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: prefetching is a hint; the pointer is to a live bucket.
            unsafe { std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks a position up.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for i in 0..ENTRIES_PER_BUCKET {
            let check = b.words[2 * i].load(Ordering::Relaxed);
            let data = b.words[2 * i + 1].load(Ordering::Relaxed);
            if check ^ data == key
                && let Some((e, _)) = unpack(data)
            {
                return Some(e);
            }
        }
        None
    }

    /// Stores a search result; `value` must already be node-relative
    /// ([`value_to_tt`]).
    pub fn store(&self, key: u64, mv: u16, value: i32, eval: i32, depth: i32, bound: Bound) {
        if !self.used.load(Ordering::Relaxed) {
            self.used.store(true, Ordering::Relaxed);
        }
        let b = self.bucket(key);
        let age = self.age.load(Ordering::Relaxed);
        let mut slot = 0;
        let mut worst = i32::MAX;
        for i in 0..ENTRIES_PER_BUCKET {
            let check = b.words[2 * i].load(Ordering::Relaxed);
            let data = b.words[2 * i + 1].load(Ordering::Relaxed);
            let Some((old, old_age)) = unpack(data) else {
                // Empty slot: the cheapest to take, unless the same key is further on.
                if worst > i32::MIN {
                    slot = i;
                    worst = i32::MIN;
                }
                continue;
            };
            if check ^ data == key {
                // Same position: keep a much deeper result unless the new one is exact.
                if bound != Bound::Exact && old.depth > depth + 3 && old_age == age {
                    return;
                }
                let mv = if mv == 0 { old.mv } else { mv };
                let data = pack(mv, value, eval, depth, bound, age);
                b.words[2 * i].store(key ^ data, Ordering::Relaxed);
                b.words[2 * i + 1].store(data, Ordering::Relaxed);
                return;
            }
            let stale = (age.wrapping_sub(old_age) & AGE_MASK) as i32;
            let worth = old.depth - 8 * stale;
            if worth < worst {
                worst = worth;
                slot = i;
            }
        }
        let data = pack(mv, value, eval, depth, bound, age);
        b.words[2 * slot].store(key ^ data, Ordering::Relaxed);
        b.words[2 * slot + 1].store(data, Ordering::Relaxed);
    }

    /// Occupancy in per mille of entries written in the current search
    /// generation, sampled over the first thousand buckets (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let n = self.len.min(1000);
        let mut used = 0;
        for b in &self.buckets()[..n] {
            for i in 0..ENTRIES_PER_BUCKET {
                let data = b.words[2 * i + 1].load(Ordering::Relaxed);
                if let Some((_, a)) = unpack(data)
                    && a == age
                {
                    used += 1;
                }
            }
        }
        (used * 1000 / (n * ENTRIES_PER_BUCKET)) as u32
    }
}

/// Converts a root-relative value to a node-relative one for storage: mate
/// and tablebase scores count plies from this node.
#[inline]
pub fn value_to_tt(v: i32, ply: i32) -> i32 {
    if v == NONE {
        v
    } else if v >= TB_BOUND {
        v + ply
    } else if v <= -TB_BOUND {
        v - ply
    } else {
        v
    }
}

/// Converts a stored node-relative value back to root-relative at `ply`.
#[inline]
pub fn value_from_tt(v: i32, ply: i32) -> i32 {
    if v == NONE {
        v
    } else if v >= TB_BOUND {
        v - ply
    } else if v <= -TB_BOUND {
        v + ply
    } else {
        v
    }
}
