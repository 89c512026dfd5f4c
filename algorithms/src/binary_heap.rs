//! Indexed binary min-heap: Varghese & Lauck scheme 3.
//!
//! # Idea
//!
//! A binary min-heap of `(deadline, slot)` keys in a flat vector, plus a position
//! index per timer, so that cancel removes the timer at once (swap with the last
//! key, sift up or down) instead of leaving a tombstone. This is libevent's
//! `min_heap` (checked against `minheap-internal.h` on libevent's master at
//! libevent commit 0c3e47a, 2.2.1-alpha and later, June 2026: a flat array of event pointers,
//! each event keeping its `min_heap_idx`, erase by moving the last element into
//! the hole and sifting it up or down), the JDK's `DelayedWorkQueue` under
//! `setRemoveOnCancelPolicy(true)` (see `algorithms/SYSTEMS.md`), and what the
//! Varghese & Lauck paper calls a tree-based scheme. libuv's timer heap is the
//! same scheme with nodes linked by pointers rather than kept in an array.
//!
//! Layout, chosen for the sifts: the keys live in the heap vector itself, not
//! behind the arena index, so the comparisons touch one contiguous array; the
//! position index is a second dense vector of `u32` (4 bytes per timer, apart from
//! the payloads), because every level a key moves costs one write there. Removing
//! the root (every fired timer) uses Floyd's bottom-up refill, as `std`'s
//! `BinaryHeap::pop` does: one comparison per level instead of two.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(log n) sift-up |
//! | cancel | O(log n): remove at the stored position, then sift |
//! | reschedule | O(log n): the key changes in place and sifts; the handle stays valid |
//! | advance | O(log n) per fired timer |
//! | next expiry | O(1), exact: the root's deadline |
//!
//! # Invariants
//!
//! For every position `i > 0`, `key(parent(i)) <= key(i)`, where a key is
//! `(deadline, arena index)`: ties between equal deadlines are broken by the
//! arena index, so the order is a deterministic function of the operation
//! sequence. For every pending timer with arena index `e`,
//! `heap[positions[e]].index == e`.
//!
//! # Counters
//!
//! * `insert_scan_steps`: the levels an insert's key moved up past its
//!   parents (the entries it stepped over to find its place).
//! * `reschedule_scan_steps`: the levels a reschedule's key moved, up or down.
//! * A heap has no slots, rounds or cascades: the other counters stay 0. The
//!   sifts that fill the hole a fired or cancelled key leaves are real work,
//!   but no counter means them.
//!
//! # Parameters
//!
//! None.

use crate::arena::{Arena, Handle};
use crate::{Algorithm, Counters, Expired, Family, Tick, TimerQueue, check_deadline};

/// One heap position: the key, and which arena entry it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    deadline: Tick,
    index: u32,
}

/// A min-heap with a position index per timer. See the module documentation.
#[derive(Debug)]
pub struct IndexedBinaryHeap<P> {
    heap: Vec<Key>,
    /// The payloads; the arena issues the handles and their generations.
    payloads: Arena<P>,
    /// `positions[i]` is where the key of arena entry `i` sits in `heap`. Kept
    /// apart from the payloads so that the one write every sift level makes lands
    /// in a dense array of 4-byte cells, not in scattered arena entries.
    positions: Vec<u32>,
    now: Tick,
    counters: Counters,
}

impl<P> Default for IndexedBinaryHeap<P> {
    fn default() -> Self {
        Self::new()
    }
}

/// The parent of heap position `i > 0`.
#[inline]
fn parent(i: usize) -> usize {
    (i - 1) / 2
}

/// The levels between heap position `upper` and its descendant `lower`.
#[inline]
fn levels_between(upper: usize, lower: usize) -> u64 {
    u64::from((lower + 1).ilog2() - (upper + 1).ilog2())
}

/// The left child of heap position `i`; the right child is one after it.
#[inline]
fn left_child(i: usize) -> usize {
    2 * i + 1
}

impl<P> IndexedBinaryHeap<P> {
    /// An empty heap at time 0.
    pub fn new() -> Self {
        Self {
            heap: Vec::new(),
            payloads: Arena::new(),
            positions: Vec::new(),
            now: 0,
            counters: Counters::default(),
        }
    }

    /// Writes `key` at heap position `i` and records the position for its entry.
    #[inline]
    fn place(&mut self, i: usize, key: Key) {
        self.heap[i] = key;
        // Positions are below the heap's length, which is below u32::MAX.
        self.positions[key.index as usize] = i as u32;
    }

    /// Moves `key` up from the hole at position `i` until its parent is not
    /// larger, and places it; the levels it moved.
    fn sift_up(&mut self, mut i: usize, key: Key) -> u64 {
        let from = i;
        while i > 0 {
            let p = parent(i);
            let parent_key = self.heap[p];
            if parent_key <= key {
                break;
            }
            self.place(i, parent_key);
            i = p;
        }
        self.place(i, key);
        levels_between(i, from)
    }

    /// Moves `key` down from the hole at position `i` until no child is smaller,
    /// and places it; the levels it moved.
    fn sift_down(&mut self, mut i: usize, key: Key) -> u64 {
        let from = i;
        let len = self.heap.len();
        loop {
            let left = left_child(i);
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.heap[right] < self.heap[left] {
                right
            } else {
                left
            };
            let child_key = self.heap[child];
            if key <= child_key {
                break;
            }
            self.place(i, child_key);
            i = child;
        }
        self.place(i, key);
        levels_between(from, i)
    }

    /// Fills the hole at the root with `key` the way `std`'s `BinaryHeap::pop`
    /// does (Floyd's bottom-up variant): move the hole down to a leaf, always
    /// promoting the smaller child, then sift `key` up from there. The key that
    /// replaces a root came from the bottom of the heap and almost always belongs
    /// near the bottom again, so this needs one comparison per level instead of
    /// two, and the sift up back is usually zero or one level.
    fn refill_root(&mut self, key: Key) {
        let len = self.heap.len();
        let mut i = 0;
        loop {
            let left = left_child(i);
            if left >= len {
                break;
            }
            let right = left + 1;
            let child = if right < len && self.heap[right] < self.heap[left] {
                right
            } else {
                left
            };
            self.place(i, self.heap[child]);
            i = child;
        }
        self.sift_up(i, key);
    }

    /// Removes the key at position `i` and its arena entry.
    fn remove_position(&mut self, i: usize) -> (Key, P) {
        let key = self.heap[i];
        let last = self.heap.pop().expect("position is in the heap");
        if i < self.heap.len() {
            // The last key fills the hole; it may belong above or below it.
            if i == 0 {
                self.refill_root(last);
            } else if self.heap[parent(i)] > last {
                self.sift_up(i, last);
            } else {
                self.sift_down(i, last);
            }
        }
        let payload = self.payloads.remove_at(key.index);
        (key, payload)
    }
}

impl<P> Algorithm for IndexedBinaryHeap<P> {
    const NAME: &'static str = "binary-heap";
    const FAMILY: Family = Family::Seed;
    const SUMMARY: &'static str = "V&L 3: min-heap with a position index (real O(log n) cancel)";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl<P> TimerQueue<P> for IndexedBinaryHeap<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.payloads.insert(payload);
        let index = handle.index() as usize;
        if index >= self.positions.len() {
            // The arena grew to a new peak: so does the position index (set by
            // `sift_up`, which places every key it moves).
            self.positions.resize(index + 1, 0);
        }
        let key = Key {
            deadline,
            index: handle.index(),
        };
        let position = self.heap.len();
        self.heap.push(key);
        self.counters.insert_scan_steps += self.sift_up(position, key);
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        if !self.payloads.contains(handle) {
            return None;
        }
        let position = self.positions[handle.index() as usize] as usize;
        Some(self.remove_position(position).1)
    }

    /// In place: the key at the timer's position gets the new deadline and sifts
    /// up or down from there; the handle stays valid.
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        if !self.payloads.contains(handle) {
            return None;
        }
        let position = self.positions[handle.index() as usize] as usize;
        let key = Key {
            deadline,
            index: handle.index(),
        };
        let levels = if position > 0 && self.heap[parent(position)] > key {
            self.sift_up(position, key)
        } else {
            self.sift_down(position, key)
        };
        self.counters.reschedule_scan_steps += levels;
        Some(handle)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(&root) = self.heap.first() {
            if root.deadline > now {
                break;
            }
            let (key, payload) = self.remove_position(0);
            out.push(Expired {
                payload,
                deadline: key.deadline,
            });
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.payloads.reserve(additional);
        self.heap.reserve(additional);
        // One position per arena slot, and the arena grows by at most this much.
        self.positions.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.heap.first().map(|key| key.deadline)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    fn counters(&self) -> Counters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_counted_between_a_position_and_its_descendant() {
        assert_eq!(levels_between(0, 0), 0);
        assert_eq!(levels_between(0, 1), 1);
        assert_eq!(levels_between(0, 2), 1);
        assert_eq!(levels_between(0, 6), 2);
        assert_eq!(levels_between(1, 8), 2);
    }

    #[test]
    fn an_insert_counts_the_levels_it_sifted_up() {
        let mut heap = IndexedBinaryHeap::new();
        for deadline in [10, 20, 30, 40] {
            heap.insert(deadline, deadline);
        }
        assert_eq!(
            heap.counters().insert_scan_steps,
            0,
            "each later than its parent"
        );
        // Position 4, under 20 (position 1), under 10: two levels up.
        let early = heap.insert(5, 5);
        assert_eq!(heap.counters().insert_scan_steps, 2);
        // Back down to a leaf: two levels, a reschedule's.
        heap.reschedule(early, 50).unwrap();
        let counters = heap.counters();
        assert_eq!(counters.insert_scan_steps, 2);
        assert_eq!(counters.reschedule_scan_steps, 2);
    }

    /// Checks the heap order and the position index.
    fn assert_invariants<P>(heap: &IndexedBinaryHeap<P>) {
        for i in 1..heap.heap.len() {
            assert!(
                heap.heap[parent(i)] <= heap.heap[i],
                "heap order broken at {i}: parent {:?} child {:?}",
                heap.heap[parent(i)],
                heap.heap[i]
            );
        }
        for (i, key) in heap.heap.iter().enumerate() {
            assert_eq!(heap.positions[key.index as usize] as usize, i);
        }
        assert_eq!(heap.payloads.len(), heap.heap.len());
    }

    #[test]
    fn parent_and_children_are_inverse() {
        for i in 0..100 {
            assert_eq!(parent(left_child(i)), i);
            assert_eq!(parent(left_child(i) + 1), i);
        }
    }

    #[test]
    fn reschedule_sifts_in_place_and_keeps_the_handle() {
        let mut heap = IndexedBinaryHeap::new();
        let handles: Vec<Handle> = (0..100u64).map(|i| heap.insert(i * 10, i)).collect();
        // Later, earlier, and to the past.
        assert_eq!(heap.reschedule(handles[3], 5_000), Some(handles[3]));
        assert_invariants(&heap);
        assert_eq!(heap.reschedule(handles[90], 1), Some(handles[90]));
        assert_invariants(&heap);
        assert_eq!(heap.next_expiry(), Some(0));
        let mut out = Vec::new();
        heap.advance(1, &mut out);
        assert_eq!(out.iter().map(|e| e.payload).collect::<Vec<_>>(), [0, 90]);
        assert_eq!(heap.reschedule(handles[90], 7), None, "fired");
        assert_eq!(heap.cancel(handles[3]), Some(3));
        assert_eq!(heap.reschedule(handles[3], 7), None, "cancelled");
        assert_invariants(&heap);
    }

    #[test]
    fn cancel_from_the_middle_keeps_the_heap() {
        let mut heap = IndexedBinaryHeap::new();
        let handles: Vec<Handle> = (0..200u64)
            .map(|i| heap.insert((i * 7919) % 263, i))
            .collect();
        assert_invariants(&heap);
        for (i, h) in handles.iter().enumerate() {
            if i % 3 == 0 {
                assert_eq!(heap.cancel(*h), Some(i as u64));
                assert_invariants(&heap);
            }
        }
        let mut out = Vec::new();
        heap.advance(1000, &mut out);
        assert!(out.windows(2).all(|w| w[0].deadline <= w[1].deadline));
        assert_eq!(out.len(), 200 - 67);
    }
}
