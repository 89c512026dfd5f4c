//! The standard library's `BinaryHeap` with lazy cancellation: the baseline a
//! Rust user writes without a timer crate.
//!
//! # Idea
//!
//! `std::collections::BinaryHeap` has no way to remove an element from the
//! middle, so the usual pattern is to keep the payloads beside the heap, in a
//! `Vec` with a free list (a slab), and to push `Reverse((deadline, key))` onto
//! the heap. Cancel takes the payload out of the slab and leaves the heap entry
//! where it is, as a *tombstone*; whoever pops the heap throws tombstones away.
//! That is what this file does, with the crate's [`Arena`] as the slab: it is a
//! `Vec` plus a free list, exactly what a user would write, and its generation
//! is the detail a careful user adds so that a tombstone is not mistaken for the
//! timer that reused its slot. The key in the heap is the full [`Handle`] (slot
//! index and generation), so an entry is live exactly when the arena still
//! holds that handle.
//!
//! Nothing here is clever: no position index, no custom sift, no compaction.
//! The point of the baseline is to show what the specialised designs buy over
//! it.
//!
//! # Tombstones: when they are discarded, and what they cost
//!
//! A tombstone is discarded when it reaches the top of the heap. The queue does
//! that eagerly: after a cancel, and at the end of every advance, it pops every
//! dead entry off the top, so the top is always live. That keeps
//! [`TimerQueue::next_expiry`] exact, so an event-driven caller never wakes for a
//! timer that was cancelled, and it makes `len() == 0` imply an empty heap. The
//! price is paid by the cancel that kills the earliest timer (one O(log n) pop
//! per dead entry uncovered), which is a cost each tombstone would pay once
//! anyway.
//!
//! The memory cost is the weakness of the scheme: a cancelled timer's entry stays
//! in the heap until everything earlier has left, that is, roughly until its own
//! deadline. In a request-timeout workload where nearly every timer is cancelled
//! long before it is due, the heap holds about `insert rate x timeout` entries
//! (16 bytes each) however few timers are pending, and every sift pays
//! `log2` of that size rather than of the pending count. The arena only holds the
//! pending timers, because cancel frees the slot at once.
//!
//! # Cost
//!
//! With `n` pending timers and `d` tombstones in the heap:
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(log(n + d)) `BinaryHeap::push` |
//! | cancel | O(1) slab removal; if the timer was the top, one O(log(n + d)) pop per dead entry uncovered (each tombstone is popped once, so O(log(n + d)) amortised) |
//! | advance | O(log(n + d)) per fired timer |
//! | next expiry | O(1), exact: the top is always live |
//!
//! # Invariants
//!
//! * The heap's top, if any, is live: the arena holds its handle. So the heap is
//!   empty whenever no timer is pending.
//! * Every pending timer has exactly one heap entry, whose handle is the one
//!   `insert` returned; every other heap entry is a tombstone whose handle the
//!   arena no longer holds.
//! * Heap order is `(deadline, slot index, generation)`: ties between equal
//!   deadlines come out in a deterministic order (by slot), not FIFO, which the
//!   contract allows.
//!
//! # Counters
//!
//! A heap has no slots, rounds or cascades, so every counter stays 0. The
//! tombstones it discards are real work, but [`Counters`] has no field for them.
//!
//! # Parameters
//!
//! None.
//!
//! # The plain heap: `std-binary-heap-plain`
//!
//! [`PlainBinaryHeap`] is the same idea written the shortest way, as a native
//! row (see [`crate::driven`]): a `BinaryHeap<Reverse<(deadline, id)>>` and,
//! per timer id, in the caller's own record of the timer, its current deadline
//! (or [`NOT_PENDING`]). Cancel writes that one word and touches nothing else;
//! a reschedule pushes a second entry and rewrites the word; a popped entry
//! fires only if it matches the word. No slab, no generations, no eager
//! discarding: a tombstone at the top makes `next_expiry()` a lower bound that
//! wakes the caller once for nothing. What `std-binary-heap` pays on top of
//! it (a slab of payloads with generation-checked handles, a tight
//! `next_expiry()`) is the price of the contract, shown beside it in the
//! reports.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::arena::{Arena, Handle};
use crate::driven::{self, NOT_PENDING};
use crate::registry::Payload;
use crate::{Algorithm, Counters, Expired, Family, Tick, TimerQueue, check_deadline};

/// A `BinaryHeap` of `(deadline, handle)` with tombstones. See the module
/// documentation.
#[derive(Debug)]
pub struct StdBinaryHeap<P> {
    /// Min-heap (through `Reverse`) of every pending timer's deadline and handle,
    /// plus the tombstones of cancelled timers not yet popped.
    heap: BinaryHeap<Reverse<(Tick, Handle)>>,
    /// The payloads of the pending timers; a handle it no longer holds marks its
    /// heap entry as a tombstone.
    payloads: Arena<P>,
    now: Tick,
}

impl<P> Default for StdBinaryHeap<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> StdBinaryHeap<P> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            payloads: Arena::new(),
            now: 0,
        }
    }

    /// Pops tombstones off the top until the top is live or the heap is empty.
    fn discard_dead_top(&mut self) {
        while let Some(&Reverse((_, handle))) = self.heap.peek() {
            if self.payloads.contains(handle) {
                break;
            }
            self.heap.pop();
        }
    }
}

impl<P> Algorithm for StdBinaryHeap<P> {
    const NAME: &'static str = "std-binary-heap";
    const FAMILY: Family = Family::Baseline;
    const SUMMARY: &'static str = "std BinaryHeap<Reverse<(deadline, handle)>> beside a slab; \
         cancel leaves a tombstone that is dropped when it reaches the top";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl<P> TimerQueue<P> for StdBinaryHeap<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.payloads.insert(payload);
        self.heap.push(Reverse((deadline, handle)));
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let payload = self.payloads.remove(handle)?;
        // The heap entry stays as a tombstone. If it was the top, pop it (and any
        // tombstones beneath it) now, so that `next_expiry` stays exact.
        self.discard_dead_top();
        Some(payload)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(&Reverse((deadline, handle))) = self.heap.peek() {
            if deadline > now {
                break;
            }
            self.heap.pop();
            // The top is live on entry (invariant), but firing it may uncover a
            // tombstone, whose removal returns `None` here.
            if let Some(payload) = self.payloads.remove(handle) {
                out.push(Expired { payload, deadline });
            }
        }
        self.discard_dead_top();
    }

    fn reserve(&mut self, additional: usize) {
        self.payloads.reserve(additional);
        // Room for the live entries only: tombstones come on top, as many as
        // cancels leave behind, which is the scheme's cost (see above).
        self.heap.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.heap.peek().map(|&Reverse((deadline, _))| deadline)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.payloads.len()
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

/// The heap as a user writes it, driven natively. See the module documentation.
#[derive(Debug, Default)]
pub struct PlainBinaryHeap {
    /// Every armed `(deadline, id)`, live or not: an entry is live while the
    /// id's key still holds that deadline.
    heap: BinaryHeap<Reverse<(Tick, Payload)>>,
    pending: usize,
    now: Tick,
}

impl Algorithm for PlainBinaryHeap {
    const NAME: &'static str = "std-binary-heap-plain";
    const FAMILY: Family = Family::Baseline;
    const NATIVE_OF: Option<&'static str> = Some("std-binary-heap");
    const SUMMARY: &'static str = "std BinaryHeap<Reverse<(deadline, id)>> with a deadline per id \
         in the caller's record: lazy cancel, no slab, no generations";

    fn with_defaults() -> Self {
        Self::default()
    }

    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl driven::Driven for PlainBinaryHeap {
    /// The timer's current deadline, or [`NOT_PENDING`].
    type Key = Tick;

    fn insert(&mut self, deadline: Tick, timer: Payload) -> Tick {
        self.heap.push(Reverse((deadline, timer)));
        self.pending += 1;
        deadline
    }

    fn cancel(&mut self, key: &mut Tick, _timer: Payload) -> bool {
        if *key == NOT_PENDING {
            return false;
        }
        *key = NOT_PENDING;
        self.pending -= 1;
        true
    }

    fn reschedule(&mut self, key: &mut Tick, timer: Payload, deadline: Tick) -> bool {
        if *key == NOT_PENDING {
            return false;
        }
        // An entry for the same deadline is live already.
        if *key != deadline {
            self.heap.push(Reverse((deadline, timer)));
            *key = deadline;
        }
        true
    }

    fn advance(&mut self, now: Tick, keys: &mut [Tick], out: &mut Vec<Expired<Payload>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(&Reverse((deadline, timer))) = self.heap.peek() {
            if deadline > now {
                break;
            }
            self.heap.pop();
            let key = &mut keys[timer as usize];
            // A duplicate of a fired entry, or the old entry of a moved or
            // cancelled timer, no longer matches.
            if *key == deadline {
                *key = NOT_PENDING;
                self.pending -= 1;
                out.push(Expired {
                    payload: timer,
                    deadline,
                });
            }
        }
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.pending == 0 {
            return None;
        }
        self.heap.peek().map(|&Reverse((deadline, _))| deadline)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.pending
    }

    fn reserve(&mut self, additional: usize) {
        self.heap.reserve(additional);
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that the top is live and that the heap holds one entry per pending
    /// timer plus tombstones only.
    fn assert_invariants<P>(queue: &StdBinaryHeap<P>) {
        if let Some(&Reverse((_, top))) = queue.heap.peek() {
            assert!(queue.payloads.contains(top), "top {top:?} is a tombstone");
        }
        let live = queue
            .heap
            .iter()
            .filter(|Reverse((_, h))| queue.payloads.contains(*h))
            .count();
        assert_eq!(
            live,
            queue.payloads.len(),
            "one heap entry per pending timer"
        );
    }

    #[test]
    fn tombstone_stays_until_it_reaches_the_top_and_never_fires() {
        let mut queue = StdBinaryHeap::new();
        queue.insert(10, 'a');
        let b = queue.insert(20, 'b');
        queue.insert(30, 'c');
        assert_eq!(queue.cancel(b), Some('b'));
        assert_eq!(queue.heap.len(), 3, "the cancelled entry is a tombstone");
        assert_eq!(queue.len(), 2);
        assert_invariants(&queue);

        let mut out = Vec::new();
        queue.advance(10, &mut out);
        assert_eq!(
            out,
            [Expired {
                payload: 'a',
                deadline: 10
            }]
        );
        assert_eq!(
            queue.heap.len(),
            1,
            "the tombstone reached the top and was discarded"
        );
        assert_eq!(queue.next_expiry(), Some(30), "not the tombstone's 20");
        assert_invariants(&queue);

        out.clear();
        queue.advance(30, &mut out);
        assert_eq!(
            out,
            [Expired {
                payload: 'c',
                deadline: 30
            }]
        );
        assert!(queue.heap.is_empty());
    }

    #[test]
    fn cancelling_the_top_discards_it_and_the_tombstones_beneath() {
        let mut queue = StdBinaryHeap::new();
        let a = queue.insert(10, 'a');
        let b = queue.insert(20, 'b');
        queue.insert(30, 'c');
        queue.cancel(b);
        assert_eq!(queue.next_expiry(), Some(10));
        queue.cancel(a);
        assert_eq!(queue.next_expiry(), Some(30), "tight after the cancel");
        assert_eq!(queue.heap.len(), 1);
        assert_invariants(&queue);
    }

    #[test]
    fn tombstone_of_a_reused_slot_is_not_mistaken_for_the_new_timer() {
        let mut queue = StdBinaryHeap::new();
        queue.insert(5, 'x');
        let old = queue.insert(50, 'a');
        queue.cancel(old);
        // The new timer reuses the slot; the old heap entry is still there.
        let new = queue.insert(40, 'b');
        assert_eq!(old.index(), new.index());
        assert_eq!(queue.heap.len(), 3);
        assert_eq!(queue.cancel(old), None, "the stale handle reaches nothing");
        let mut out = Vec::new();
        queue.advance(100, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [('x', 5), ('b', 40)], "'b' fires once, at 40");
        assert!(queue.heap.is_empty());
    }

    #[test]
    fn equal_deadlines_pop_in_slot_order() {
        let mut queue = StdBinaryHeap::new();
        let handles: Vec<Handle> = (0..8).map(|i| queue.insert(7, i)).collect();
        queue.cancel(handles[2]);
        queue.cancel(handles[5]);
        let mut out = Vec::new();
        queue.advance(7, &mut out);
        let payloads: Vec<_> = out.iter().map(|e| e.payload).collect();
        assert_eq!(payloads, [0, 1, 3, 4, 6, 7]);
    }
}

#[cfg(test)]
mod native_tests {
    use super::PlainBinaryHeap;
    use crate::driven::Driven;

    #[test]
    fn the_plain_heap_fires_by_its_keys() {
        let mut heap = PlainBinaryHeap::default();
        let mut keys = vec![heap.insert(10, 0), heap.insert(20, 1), heap.insert(30, 2)];
        assert!(heap.cancel(&mut keys[1], 1));
        assert!(!heap.cancel(&mut keys[1], 1), "cancelled already");
        assert!(heap.reschedule(&mut keys[0], 0, 25));
        assert!(
            heap.reschedule(&mut keys[0], 0, 10),
            "back to its first deadline"
        );
        assert_eq!(heap.len(), 2);
        let mut out = Vec::new();
        heap.advance(30, &mut keys, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(
            fired,
            [(0, 10), (2, 30)],
            "each fires once, the cancelled never"
        );
        assert!(!heap.reschedule(&mut keys[2], 2, 40), "fired already");
        assert_eq!(heap.next_expiry(), None);
    }
}
