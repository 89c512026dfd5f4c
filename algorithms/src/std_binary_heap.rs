//! The standard library's `BinaryHeap` with lazy cancellation: the baseline a
//! Rust user writes without a timer crate.
//!
//! # Idea
//!
//! `std::collections::BinaryHeap` has no way to remove an element from the
//! middle, so the usual pattern is to keep each timer's state beside the heap,
//! in a `Vec` with a free list (a slab), and to push `Reverse((deadline, key))`
//! onto the heap. Cancel takes the timer out of the slab and leaves the heap
//! entry where it is, as a *tombstone*; whoever pops the heap throws tombstones
//! away. That is what this file does, with the crate's [`Arena`] as the slab:
//! a `Vec` plus a free list, exactly what a user would write, and its
//! generation is the detail a careful user adds so that a tombstone is not
//! mistaken for the timer that reused its slot. The key in the heap is the full
//! [`Handle`] (slot index and generation).
//!
//! A heap entry is live exactly when the slab still holds its handle. So a
//! reschedule is as cheap as an insert: it gives the timer a new handle in the
//! same slot ([`Arena::renew`], a generation bump, which makes the old entry a
//! tombstone) and pushes an entry with the new handle; the payload does not
//! move. The contract allows a reschedule to hand back a new handle.
//!
//! Nothing here is clever: no position index, no custom sift, no compaction.
//! The point of the baseline is to show what the specialised designs buy over
//! it, and `std-binary-heap-plain` beside it (below) shows what the contract's
//! stale-safe handles cost on top of the shortest code.
//!
//! # Tombstones: when they are discarded, and what they cost
//!
//! A tombstone is discarded when it reaches the top of the heap: an advance
//! pops every entry that is due, live or not, and then every tombstone left on
//! top, so that after an advance the top is live. A cancel or reschedule does
//! not touch the heap, so between advances the top may be a tombstone:
//! [`TimerQueue::next_expiry`] is then a lower bound (the contract allows it),
//! and an event-driven caller may wake once for nothing.
//!
//! The memory cost is the weakness of the scheme: a cancelled timer's entry stays
//! in the heap until everything earlier has left, that is, roughly until its own
//! deadline. In a request-timeout workload where nearly every timer is cancelled
//! long before it is due, the heap holds about `insert rate x timeout` entries
//! (16 bytes each) however few timers are pending, and every sift pays
//! `log2` of that size rather than of the pending count. The slab only holds the
//! pending timers, because cancel frees the slot at once.
//!
//! # Cost
//!
//! With `n` pending timers and `d` tombstones in the heap:
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(log(n + d)) `BinaryHeap::push` and an O(1) slab insert |
//! | cancel | O(1) slab removal |
//! | reschedule | O(1) generation bump and an O(log(n + d)) push |
//! | advance | O(log(n + d)) per entry popped, fired or tombstone (each entry is popped once) |
//! | next expiry | O(1), a lower bound (exact after an advance) |
//!
//! # Invariants
//!
//! * Every pending timer has exactly one heap entry whose handle the slab holds
//!   (the one `insert` or the last `reschedule` returned); every other heap
//!   entry is a tombstone whose handle is stale.
//! * After an advance the heap's top, if any, is live.
//! * Heap order is `(deadline, slot index, generation)`: ties between equal
//!   deadlines come out in a deterministic order (by slot), not FIFO, which the
//!   contract allows.
//!
//! # Counters
//!
//! A heap has no slots, rounds or cascades, so those counters stay 0. The
//! sifts of an insert and a reschedule happen inside `std`, where they cannot
//! be counted: both rows declare `insert_scan_steps` and
//! `reschedule_scan_steps` uncounted ([`Algorithm::UNCOUNTED`]). The
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
//! reports. In the reference run (`results/contract_cost.csv`) that price was
//! 0.91x (`scaling-1e3`) to 1.41x (`burst`) the plain heap's time, within 1.10x
//! on 8 of the 11 built-ins; above it where the slab beside the heap (16 bytes
//! per pending timer, touched by every operation and fired timer) is what the
//! plain heap does not have: `bimodal` (1.34x, reschedule-heavy), `burst`
//! (thousands of timers fired per tick) and `scaling-1e5` (1.11x).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::arena::{Arena, Handle};
use crate::driven::{self, NOT_PENDING};
use crate::{
    Algorithm, Counter, Counters, Expired, Family, Payload, Tick, TimerQueue, check_deadline,
};

/// The counters whose work happens inside `std`, out of sight.
const SIFTS_IN_STD: &[Counter] = &[Counter::InsertScanSteps, Counter::RescheduleScanSteps];

/// A `BinaryHeap` of `(deadline, handle)` with tombstones. See the module
/// documentation.
#[derive(Debug)]
pub struct StdBinaryHeap<P> {
    /// Min-heap (through `Reverse`) of every pending timer's deadline and handle,
    /// plus the tombstones of cancelled and moved timers not yet popped.
    heap: BinaryHeap<Reverse<(Tick, Handle)>>,
    /// The payloads of the pending timers; a handle it no longer holds marks
    /// its heap entry as a tombstone.
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
}

impl<P> Algorithm for StdBinaryHeap<P> {
    const NAME: &'static str = "std-binary-heap";
    const FAMILY: Family = Family::Baseline;
    const UNCOUNTED: &'static [Counter] = SIFTS_IN_STD;
    const SUMMARY: &'static str = "`std::collections::BinaryHeap` beside a slab, lazy \
         cancellation by tombstone";

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
        // The heap entry stays as a tombstone.
        self.payloads.remove(handle)
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        // The old entry's handle goes stale: a tombstone.
        let renewed = self.payloads.renew(handle)?;
        self.heap.push(Reverse((deadline, renewed)));
        Some(renewed)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(&Reverse((deadline, handle))) = self.heap.peek() {
            let live = self.payloads.contains(handle);
            if deadline > now && live {
                break;
            }
            self.heap.pop();
            if live {
                // Live, so the slot is occupied by this handle: no second check.
                let payload = self.payloads.remove_at(handle.index());
                out.push(Expired { payload, deadline });
            }
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.payloads.reserve(additional);
        // Room for the live entries only: tombstones come on top, as many as
        // cancels and reschedules leave behind, which is the scheme's cost (see
        // above).
        self.heap.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.payloads.is_empty() {
            return None;
        }
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
    const UNCOUNTED: &'static [Counter] = SIFTS_IN_STD;
    const NATIVE_OF: Option<&'static str> = Some("std-binary-heap");
    const SUMMARY: &'static str = "the same heap written the shortest way, driven natively: \
         `BinaryHeap<Reverse<(deadline, id)>>`, the current deadline per id in the caller's \
         record, lazy cancel by one store, no slab, no generations";

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

    fn vacant_key() -> Tick {
        NOT_PENDING
    }

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

    /// Checks that every pending timer has a heap entry with its slab deadline,
    /// and (`after_advance`) that the top is live.
    fn assert_invariants<P>(queue: &StdBinaryHeap<P>, after_advance: bool) {
        if after_advance && let Some(&Reverse((_, top))) = queue.heap.peek() {
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
            "one live entry per pending timer"
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
        assert_invariants(&queue, false);

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
        assert_invariants(&queue, true);

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
    fn a_cancelled_top_is_a_lower_bound_until_the_next_advance() {
        let mut queue = StdBinaryHeap::new();
        let a = queue.insert(10, 'a');
        queue.insert(30, 'c');
        queue.cancel(a);
        assert_eq!(queue.next_expiry(), Some(10), "a lower bound");
        let mut out = Vec::new();
        queue.advance(10, &mut out);
        assert!(out.is_empty());
        assert_eq!(queue.next_expiry(), Some(30), "exact after an advance");
        queue.cancel(queue.payloads.handle_at(1));
        assert_eq!(queue.next_expiry(), None, "nothing pending");
    }

    #[test]
    fn reschedule_renews_the_handle_and_leaves_a_tombstone() {
        let mut queue = StdBinaryHeap::new();
        let a = queue.insert(10, 'a');
        let b = queue.reschedule(a, 50).expect("pending");
        assert_ne!(a, b);
        assert_eq!(queue.reschedule(a, 60), None, "the old handle is stale");
        let c = queue.reschedule(b, 10).expect("pending");
        assert_eq!(queue.heap.len(), 3);
        assert_invariants(&queue, false);
        let mut out = Vec::new();
        queue.advance(100, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [('a', 10)], "fires once, at its last deadline");
        assert!(queue.heap.is_empty());
        assert_eq!(queue.reschedule(c, 200), None, "fired: stale");
    }

    #[test]
    fn tombstone_of_a_reused_slot_is_not_mistaken_for_the_new_timer() {
        let mut queue = StdBinaryHeap::new();
        queue.insert(5, 'x');
        let old = queue.insert(50, 'a');
        queue.cancel(old);
        // The new timer reuses the slot; the old heap entry is still there.
        let new = queue.insert(50, 'b');
        assert_eq!(old.index(), new.index());
        assert_eq!(queue.heap.len(), 3);
        assert_eq!(queue.cancel(old), None, "the stale handle reaches nothing");
        let mut out = Vec::new();
        queue.advance(100, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [('x', 5), ('b', 50)], "'b' fires once, at 50");
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
