//! A fixed ring of at most [`CAPACITY`] `(deadline, handle)` entries kept in
//! deadline order: `sweep-wheel`'s short list (see `short.rs` in
//! [`crate::sweep_wheel`]).
//!
//! Why not `std::collections::VecDeque`: the deque's capacity is a run-time
//! value, so each of its reads at an end and each push computes a wrapped
//! index from it and checks for growth, and its `insert` finds the shorter
//! side to shift after the caller has already walked to the place. Here the
//! capacity is a power-of-two constant, so every index is one mask; the
//! storage lives inline in its owner; and an insert in the middle walks and
//! shifts in one loop, as an insertion sort does, moving each entry it passes
//! one place toward the end it came from.
//!
//! Cost: the ends and a push or pop at either end O(1); an insert between
//! the ends O(k) for k entries passed; [`SortedRing::retain`] O(len).
//!
//! Invariants: `len <= CAPACITY`; the entries at logical positions
//! `0..len` (physical `(head + i) & MASK`) are sorted by deadline, ties in
//! the order they were inserted; the other places hold old entries or
//! [`Handle::NONE`] and are never read as entries.

use crate::Tick;
use crate::arena::Handle;

/// How many entries the ring holds: a power of two, so that a position
/// wraps with one mask.
pub const CAPACITY: usize = 128;

/// Wraps a position into the ring.
const MASK: usize = CAPACITY - 1;

const _: () = assert!(CAPACITY.is_power_of_two());

/// See the module documentation.
#[derive(Debug)]
pub struct SortedRing {
    entries: [(Tick, Handle); CAPACITY],
    /// The physical place of the first entry.
    head: usize,
    len: usize,
}

impl Default for SortedRing {
    fn default() -> Self {
        Self::new()
    }
}

impl SortedRing {
    /// An empty ring.
    pub fn new() -> Self {
        Self {
            entries: [(0, Handle::NONE); CAPACITY],
            head: 0,
            len: 0,
        }
    }

    /// The number of entries.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the ring holds no entry.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry at logical position `i` (`i < len`).
    #[inline(always)]
    fn at(&self, i: usize) -> (Tick, Handle) {
        self.entries[(self.head + i) & MASK]
    }

    /// The earliest entry.
    #[inline(always)]
    pub fn front(&self) -> Option<(Tick, Handle)> {
        (self.len > 0).then(|| self.at(0))
    }

    /// The latest entry.
    #[inline(always)]
    pub fn back(&self) -> Option<(Tick, Handle)> {
        (self.len > 0).then(|| self.at(self.len - 1))
    }

    /// Appends an entry due at or after every other. The ring is not full.
    #[inline(always)]
    pub fn push_back(&mut self, entry: (Tick, Handle)) {
        debug_assert!(self.len < CAPACITY);
        debug_assert!(self.back().is_none_or(|(last, _)| last <= entry.0));
        self.entries[(self.head + self.len) & MASK] = entry;
        self.len += 1;
    }

    /// Prepends an entry due before every other. The ring is not full.
    #[inline(always)]
    pub fn push_front(&mut self, entry: (Tick, Handle)) {
        debug_assert!(self.len < CAPACITY);
        debug_assert!(self.front().is_none_or(|(first, _)| entry.0 < first));
        self.head = self.head.wrapping_sub(1) & MASK;
        self.entries[self.head] = entry;
        self.len += 1;
    }

    /// Removes the earliest entry.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<(Tick, Handle)> {
        let first = self.front()?;
        self.head = (self.head + 1) & MASK;
        self.len -= 1;
        Some(first)
    }

    /// Inserts `entry` after every entry due at or before it, where the ring
    /// is not full and its first entry is due at or before `entry` and its
    /// last after it (so that a walk from either end stops inside). Walks
    /// from the front if `from_front`, else from the back, shifting each
    /// entry passed one place outward; returns the number passed.
    #[inline(always)]
    pub fn insert_between(&mut self, entry: (Tick, Handle), from_front: bool) -> usize {
        debug_assert!(self.len >= 2 && self.len < CAPACITY);
        debug_assert!(self.at(0).0 <= entry.0 && entry.0 < self.at(self.len - 1).0);
        let when = entry.0;
        if from_front {
            // The new first place is one before the head; entries due at or
            // before `when` move down into the place before them.
            self.head = self.head.wrapping_sub(1) & MASK;
            let mut place = self.head;
            let mut passed = 0;
            loop {
                let next = (place + 1) & MASK;
                let moved = self.entries[next];
                if moved.0 > when {
                    break;
                }
                self.entries[place] = moved;
                place = next;
                passed += 1;
            }
            self.entries[place] = entry;
            self.len += 1;
            passed
        } else {
            // Entries due after `when` move up into the place after them.
            let mut place = (self.head + self.len) & MASK;
            let mut passed = 0;
            loop {
                let before = place.wrapping_sub(1) & MASK;
                let moved = self.entries[before];
                if moved.0 <= when {
                    break;
                }
                self.entries[place] = moved;
                place = before;
                passed += 1;
            }
            self.entries[place] = entry;
            self.len += 1;
            passed
        }
    }

    /// Keeps only the entries for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&(Tick, Handle)) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            let entry = self.at(i);
            if keep(&entry) {
                self.entries[(self.head + kept) & MASK] = entry;
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// The entries, earliest first.
    pub fn iter(&self) -> impl Iterator<Item = (Tick, Handle)> + '_ {
        (0..self.len).map(|i| self.at(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Arena;

    /// `count` distinct handles.
    fn handles(count: usize) -> Vec<Handle> {
        let mut arena = Arena::new();
        (0..count).map(|i| arena.insert(i)).collect()
    }

    /// Inserts as `sweep-wheel` does: at an end when it can, else between.
    fn insert(ring: &mut SortedRing, entry: (Tick, Handle), from_front: bool) {
        match (ring.front(), ring.back()) {
            (Some((first, _)), Some((last, _))) if first <= entry.0 && entry.0 < last => {
                ring.insert_between(entry, from_front);
            }
            (Some((first, _)), _) if entry.0 < first => ring.push_front(entry),
            _ => ring.push_back(entry),
        }
    }

    #[test]
    fn inserts_from_either_end_keep_deadline_order_across_the_wrap() {
        for from_front in [false, true] {
            let handles = handles(CAPACITY - 1);
            let mut ring = SortedRing::new();
            // Pops first so that the head sits near the end of the storage
            // and the entries wrap.
            for &handle in &handles[..100] {
                ring.push_back((0, handle));
            }
            while ring.pop_front().is_some() {}
            let mut expected = Vec::new();
            for (i, &handle) in handles.iter().enumerate() {
                // A deadline pattern with ties and both ends hit.
                let when = ((i * 37) % 50) as Tick;
                insert(&mut ring, (when, handle), from_front);
                expected.push((when, handle));
            }
            // A stable sort: ties keep their order of insertion.
            expected.sort_by_key(|&(when, _)| when);
            assert_eq!(ring.iter().collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn insert_between_counts_the_entries_it_passes() {
        let handles = handles(5);
        let mut ring = SortedRing::new();
        for (when, &handle) in [10, 20, 30, 40].iter().zip(&handles) {
            ring.push_back((*when, handle));
        }
        assert_eq!(ring.insert_between((20, handles[4]), true), 2);
        assert_eq!(ring.iter().nth(2), Some((20, handles[4])));
        let mut ring = SortedRing::new();
        for (when, &handle) in [10, 20, 30, 40].iter().zip(&handles) {
            ring.push_back((*when, handle));
        }
        assert_eq!(ring.insert_between((20, handles[4]), false), 2);
        assert_eq!(ring.iter().nth(2), Some((20, handles[4])));
    }

    #[test]
    fn retain_keeps_order_and_pop_front_empties() {
        let handles = handles(10);
        let mut ring = SortedRing::new();
        for (i, &handle) in handles.iter().enumerate() {
            ring.push_back((i as Tick, handle));
        }
        ring.retain(|&(when, _)| when % 3 == 0);
        let kept: Vec<Tick> = ring.iter().map(|(when, _)| when).collect();
        assert_eq!(kept, [0, 3, 6, 9]);
        assert_eq!(std::iter::from_fn(|| ring.pop_front()).count(), 4);
        assert!(ring.is_empty() && ring.front().is_none() && ring.back().is_none());
    }
}
