//! The Go runtime's timer heap: a 4-ary min-heap with lazy cancellation and
//! compaction once a quarter of it is dead.
//!
//! # Idea
//!
//! Go keeps each P's timers in a min-heap of arity 4 (`runtime/time.go`): the
//! children of position `i` are `4i + 1 ..= 4i + 4` and its parent is
//! `(i - 1) / 4`. Against a binary heap the tree has half the levels, so a
//! sift-up (every insert) makes half the moves, and a sift-down compares four
//! siblings that sit next to each other in memory (here 4 x 16 bytes: one or
//! two cache lines) for each level it descends: more comparisons, but half the
//! dependent loads, and loads are what a large heap waits for.
//!
//! Stopping a timer does not touch the heap. Go marks the timer deleted (a
//! "zombie" since Go 1.23), counts it, and leaves its entry in place; this file
//! does the same by freeing the timer's payload slot, which turns its heap entry
//! into a dead one (the handle in the entry no longer matches the slot's
//! generation). Dead entries go away in two ways:
//!
//! * **At the top.** A dead entry that reaches the top is popped like a fired one
//!   (Go's `cleantimers`, later `cleanHead`).
//! * **By compaction.** When dead entries are more than a quarter of the heap
//!   (Go's `deletedTimers > len(timers)/4`, later `zombies > len(heap)/4`), the
//!   heap keeps only its live entries and is rebuilt bottom-up in O(n)
//!   (Go's `clearDeletedTimers`, later `adjust` with `initHeap`).
//!
//! Why Go chose this: most timers are stopped or reset before they fire
//! (`context` deadlines, network I/O deadlines, `time.AfterFunc` guards), and a
//! stop may come from any goroutine while the heap belongs to one P. Marking the
//! timer dead costs O(1) with no sift and no need to know where the entry sits
//! in the heap (so no position index to keep up to date on every move); the P
//! that owns the heap does the cleaning when it runs its timers anyway. The
//! quarter rule bounds the waste: the heap is never more than 4/3 of the live
//! timers, unlike a plain heap with tombstones (see `std_binary_heap.rs`), whose
//! dead entries stay until their deadline.
//!
//! # Where this differs from Go
//!
//! * Go applies the quarter rule when the P checks its timers; here it is applied
//!   at the end of every cancel and every advance, the first moments it can turn
//!   true (cancels add dead entries, fired timers shrink the heap). The rule is
//!   the same, with the same integer division.
//! * Go cleans the head when it next checks or adds timers, so it can wake up
//!   for a timer that was already stopped. Here a cancel that kills the top pops
//!   it (and every dead entry beneath it) at once, so the top is always live and
//!   [`TimerQueue::next_expiry`] is exact: an event-driven caller never wakes for
//!   a cancelled timer, as for the other heaps in this crate.
//! * Go's modify/reset path (`modtimer`, the `timerModified*` states) is lazy too;
//!   the contract here has no reset, so a reset is a cancel plus an insert.
//!
//! # Cost
//!
//! With `n` pending timers and a heap of `m` entries (`m <= 4n/3`, see the
//! invariants):
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(log4 m) sift-up |
//! | cancel | O(1) to mark dead; if the timer was the top, one O(log4 m) pop per dead entry uncovered; plus an O(1) amortised share of compaction |
//! | advance | O(log4 m) per entry popped, fired or dead (up to 4 comparisons per level) |
//! | next expiry | O(1), exact: the top is always live |
//!
//! Compaction is amortised O(1) per cancel: it runs when more than `m/4` entries
//! are dead and costs O(m) (a filter and a bottom-up heapify), which is at most
//! O(4) per dead entry removed, and every dead entry was made by one cancel and
//! is removed once. A dead entry popped at the top instead costs one O(log4 m)
//! sift, also paid once.
//!
//! # Invariants
//!
//! * Heap order on deadlines: for every position `i > 0`,
//!   `heap[parent(i)].deadline <= heap[i].deadline`. Only deadlines are compared,
//!   as in Go, so ties leave in an order that is a deterministic function of the
//!   operation sequence but not FIFO; the contract allows any order among ties.
//! * An entry is live when the arena holds its handle. Every pending timer has
//!   exactly one live entry; `dead` counts the others.
//! * After every operation, the top (if any) is live and `dead <= m / 4` (the
//!   quarter rule, integer division). Hence `m - n <= m / 4`, so `m <= 4n/3`, and
//!   the heap is empty when no timer is pending.
//!
//! # Counters
//!
//! A heap has no slots, rounds or cascades: every counter stays 0. The dead
//! entries it discards and the compactions it runs are real work, but
//! [`Counters`] has no field for them.
//!
//! # Parameters
//!
//! None to choose: [`ARITY`] and [`COMPACT_DIVISOR`] are Go's constants.

use crate::arena::{Arena, Handle};
use crate::{Algorithm, Counters, Expired, Family, Tick, TimerQueue, check_deadline};

/// Children per heap node: Go's 4. Four 16-byte entries fill 64 bytes, one cache
/// line's worth, so the siblings a sift-down compares arrive in one or two line
/// fills.
pub const ARITY: usize = 4;

/// The heap is compacted when more than `1 / COMPACT_DIVISOR` of its entries are
/// dead: Go's `> len/4`. Smaller divisors compact more often and waste less
/// memory; 4 keeps the heap within 4/3 of the live timers while each compaction
/// is paid for by at least a quarter of the heap's worth of cancels.
pub const COMPACT_DIVISOR: usize = 4;

/// The parent of heap position `i > 0`.
#[inline]
fn parent(i: usize) -> usize {
    (i - 1) / ARITY
}

/// The first child of heap position `i`; the others follow it.
#[inline]
fn first_child(i: usize) -> usize {
    ARITY * i + 1
}

/// Go's quarter rule: whether `dead` entries in a heap of `len` call for a
/// compaction.
#[inline]
fn should_compact(dead: usize, len: usize) -> bool {
    dead > len / COMPACT_DIVISOR
}

/// One heap position: the deadline, kept in the heap for locality as Go's
/// `timerWhen` does, and the timer's handle, which tells a live entry from a
/// dead one.
#[derive(Clone, Copy, Debug)]
struct Entry {
    deadline: Tick,
    handle: Handle,
}

/// Go's 4-ary timer heap with lazy cancellation. See the module documentation.
#[derive(Debug)]
pub struct QuadHeap<P> {
    /// The 4-ary min-heap of live and dead entries.
    heap: Vec<Entry>,
    /// The payloads of the pending timers; an entry whose handle it no longer
    /// holds is dead.
    payloads: Arena<P>,
    /// The number of dead entries in `heap`.
    dead: usize,
    now: Tick,
}

impl<P> Default for QuadHeap<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> QuadHeap<P> {
    /// An empty heap at time 0.
    pub fn new() -> Self {
        Self {
            heap: Vec::new(),
            payloads: Arena::new(),
            dead: 0,
            now: 0,
        }
    }

    /// Whether `entry` belongs to a pending timer.
    #[inline]
    fn is_live(&self, entry: Entry) -> bool {
        self.payloads.contains(entry.handle)
    }

    /// Moves the entry at position `i` up until its parent is not later (Go's
    /// `siftupTimer`).
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let p = parent(i);
            if self.heap[p].deadline <= entry.deadline {
                break;
            }
            self.heap[i] = self.heap[p];
            i = p;
        }
        self.heap[i] = entry;
    }

    /// Moves the entry at position `i` down until no child is earlier (Go's
    /// `siftdownTimer`): at each level, the earliest of up to four children
    /// takes its place.
    fn sift_down(&mut self, mut i: usize) {
        let entry = self.heap[i];
        let len = self.heap.len();
        loop {
            let first = first_child(i);
            if first >= len {
                break;
            }
            let mut best = first;
            for child in first + 1..(first + ARITY).min(len) {
                if self.heap[child].deadline < self.heap[best].deadline {
                    best = child;
                }
            }
            if self.heap[best].deadline >= entry.deadline {
                break;
            }
            self.heap[i] = self.heap[best];
            i = best;
        }
        self.heap[i] = entry;
    }

    /// Removes and returns the top entry, live or dead.
    fn pop_top(&mut self) -> Entry {
        let top = self.heap.swap_remove(0);
        if !self.heap.is_empty() {
            self.sift_down(0);
        }
        top
    }

    /// Pops dead entries off the top until the top is live or the heap is empty.
    fn discard_dead_top(&mut self) {
        while let Some(&top) = self.heap.first() {
            if self.is_live(top) {
                break;
            }
            self.pop_top();
            self.dead -= 1;
        }
    }

    /// Applies the quarter rule: drops every dead entry and rebuilds the heap
    /// bottom-up when more than a quarter of it is dead.
    fn maybe_compact(&mut self) {
        if !should_compact(self.dead, self.heap.len()) {
            return;
        }
        let payloads = &self.payloads;
        // `retain` keeps the vector's capacity: no allocation.
        self.heap.retain(|entry| payloads.contains(entry.handle));
        debug_assert_eq!(
            self.heap.len(),
            self.payloads.len(),
            "after compaction only live entries remain ({} dead were counted)",
            self.dead
        );
        self.dead = 0;
        self.heapify();
    }

    /// Restores heap order over the whole vector in O(n): sift down every
    /// position that has a child, deepest first (Go's `initHeap`).
    fn heapify(&mut self) {
        let len = self.heap.len();
        if len < 2 {
            return;
        }
        for i in (0..=parent(len - 1)).rev() {
            self.sift_down(i);
        }
    }
}

impl<P> Algorithm for QuadHeap<P> {
    const NAME: &'static str = "4-ary-heap";
    const FAMILY: Family = Family::Modern;
    const SUMMARY: &'static str = "Go runtime's timer heap: 4-ary, cancel marks dead, \
         compaction past a quarter dead";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("arity={ARITY},compact=dead>len/{COMPACT_DIVISOR}")
    }
}

impl<P> TimerQueue<P> for QuadHeap<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.payloads.insert(payload);
        self.heap.push(Entry { deadline, handle });
        self.sift_up(self.heap.len() - 1);
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let payload = self.payloads.remove(handle)?;
        // The entry stays where it is, now dead.
        self.dead += 1;
        self.discard_dead_top();
        self.maybe_compact();
        Some(payload)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(&top) = self.heap.first() {
            if top.deadline > now {
                break;
            }
            self.pop_top();
            match self.payloads.remove(top.handle) {
                Some(payload) => out.push(Expired {
                    payload,
                    deadline: top.deadline,
                }),
                None => self.dead -= 1,
            }
        }
        self.discard_dead_top();
        // Firing shrank the heap, which may have tipped the quarter rule.
        self.maybe_compact();
    }

    fn reserve(&mut self, additional: usize) {
        self.payloads.reserve(additional);
        // Dead entries are purged once they exceed a quarter of the heap, so the
        // heap holds at most a third more entries than there are live timers.
        self.heap.reserve(additional + additional / 3 + 1);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.heap.first().map(|entry| entry.deadline)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks heap order, the dead count, the live top and the quarter rule.
    fn assert_invariants<P>(queue: &QuadHeap<P>) {
        for i in 1..queue.heap.len() {
            assert!(
                queue.heap[parent(i)].deadline <= queue.heap[i].deadline,
                "heap order broken at {i}: parent {:?} child {:?}",
                queue.heap[parent(i)],
                queue.heap[i]
            );
        }
        let dead = queue.heap.iter().filter(|e| !queue.is_live(**e)).count();
        assert_eq!(dead, queue.dead, "dead count");
        assert_eq!(queue.heap.len() - dead, queue.payloads.len(), "live count");
        if let Some(&top) = queue.heap.first() {
            assert!(queue.is_live(top), "top {top:?} is dead");
        }
        assert!(
            !should_compact(queue.dead, queue.heap.len()),
            "{} dead in {} entries breaks the quarter rule",
            queue.dead,
            queue.heap.len()
        );
    }

    /// A queue with timers at deadlines 1..=n, payload = deadline.
    fn filled(n: u64) -> (QuadHeap<u64>, Vec<Handle>) {
        let mut queue = QuadHeap::new();
        let handles = (1..=n).map(|d| queue.insert(d, d)).collect();
        (queue, handles)
    }

    #[test]
    fn parent_and_children_are_inverse() {
        for i in 0..200 {
            for k in 0..ARITY {
                assert_eq!(parent(first_child(i) + k), i);
            }
        }
    }

    #[test]
    fn quarter_rule_uses_integer_division() {
        assert!(!should_compact(0, 0));
        assert!(!should_compact(0, 3));
        assert!(should_compact(1, 3), "1 > 3/4 = 0");
        assert!(!should_compact(25, 100));
        assert!(should_compact(26, 100));
        assert!(should_compact(26, 103), "26 > 103/4 = 25");
        assert!(!should_compact(26, 104), "26 > 104/4 = 26 is false");
    }

    #[test]
    fn cancel_marks_dead_without_moving_anything() {
        let (mut queue, handles) = filled(50);
        let before: Vec<Tick> = queue.heap.iter().map(|e| e.deadline).collect();
        assert_eq!(queue.cancel(handles[30]), Some(31));
        let after: Vec<Tick> = queue.heap.iter().map(|e| e.deadline).collect();
        assert_eq!(before, after, "the heap is untouched");
        assert_eq!(queue.dead, 1);
        assert_eq!(queue.len(), 49);
        assert_invariants(&queue);
    }

    #[test]
    fn dead_entry_is_skipped_when_it_reaches_the_top() {
        let (mut queue, handles) = filled(10);
        queue.cancel(handles[1]);
        queue.cancel(handles[2]);
        assert_eq!(queue.heap.len(), 10, "two dead entries, no compaction yet");
        let mut out = Vec::new();
        queue.advance(1, &mut out);
        assert_eq!(
            out,
            [Expired {
                payload: 1,
                deadline: 1
            }]
        );
        assert_eq!(queue.next_expiry(), Some(4), "the dead 2 and 3 were popped");
        assert_eq!(queue.heap.len(), 7);
        assert_eq!(queue.dead, 0);
        out.clear();
        queue.advance(10, &mut out);
        let fired: Vec<u64> = out.iter().map(|e| e.payload).collect();
        assert_eq!(fired, [4, 5, 6, 7, 8, 9, 10]);
        assert_invariants(&queue);
    }

    #[test]
    fn cancelling_the_top_keeps_next_expiry_exact() {
        let (mut queue, handles) = filled(20);
        queue.cancel(handles[1]);
        queue.cancel(handles[0]);
        assert_eq!(queue.next_expiry(), Some(3));
        assert_eq!(queue.dead, 0, "both were popped off the top");
        assert_invariants(&queue);
    }

    #[test]
    fn cancels_trigger_compaction_at_the_twenty_sixth_of_a_hundred() {
        let (mut queue, handles) = filled(100);
        // Cancel from the latest deadline down, so nothing dead reaches the top.
        for (k, handle) in handles.iter().rev().take(25).enumerate() {
            assert_eq!(queue.cancel(*handle), Some(100 - k as u64));
        }
        assert_eq!(
            (queue.dead, queue.heap.len()),
            (25, 100),
            "25 > 25 is false"
        );
        assert_invariants(&queue);
        assert_eq!(queue.cancel(handles[74]), Some(75));
        assert_eq!(
            (queue.dead, queue.heap.len()),
            (0, 74),
            "26 > 25: compacted to the live entries"
        );
        assert_invariants(&queue);
    }

    #[test]
    fn firing_can_trigger_compaction() {
        let (mut queue, handles) = filled(100);
        for handle in &handles[80..] {
            queue.cancel(*handle);
        }
        let mut out = Vec::new();
        queue.advance(20, &mut out);
        assert_eq!(out.len(), 20);
        assert_eq!(
            (queue.dead, queue.heap.len()),
            (20, 80),
            "20 > 80/4 is false"
        );
        queue.advance(21, &mut out);
        assert_eq!(
            (queue.dead, queue.heap.len()),
            (0, 59),
            "20 > 79/4 = 19: compacted"
        );
        assert_invariants(&queue);
    }

    #[test]
    fn handles_survive_compaction_and_stale_ones_stay_stale() {
        let (mut queue, handles) = filled(100);
        for handle in handles[60..].iter().rev() {
            queue.cancel(*handle);
        }
        // The 26th cancel compacted 100 entries to 74; the 14 after it are dead
        // entries still in the heap.
        assert_eq!((queue.dead, queue.heap.len()), (14, 74));
        // Cancelled handles stay stale, whether their entry was compacted away or
        // is still in the heap, also once their slots are reused by new timers.
        let fresh: Vec<Handle> = (0..40).map(|k| queue.insert(500 + k, 1000 + k)).collect();
        assert!(fresh.iter().all(|h| h.index() >= 60), "slots were reused");
        for handle in &handles[60..] {
            assert_eq!(queue.cancel(*handle), None);
        }
        assert_eq!(queue.len(), 100, "the stale handles touched no timer");
        // Live handles from before the compaction still reach their timers.
        assert_eq!(queue.cancel(handles[10]), Some(11));
        assert_eq!(queue.cancel(fresh[3]), Some(1003));
        assert_invariants(&queue);
        let mut out = Vec::new();
        queue.advance(1000, &mut out);
        assert_eq!(out.len(), 98);
        assert!(out.windows(2).all(|w| w[0].deadline <= w[1].deadline));
        assert!(queue.heap.is_empty());
    }

    #[test]
    fn random_operations_keep_the_invariants() {
        let mut queue = QuadHeap::new();
        let mut handles = Vec::new();
        let mut out = Vec::new();
        // A small linear congruential generator: deterministic, no dependency.
        let mut state: u64 = 0x243F_6A88_85A3_08D3;
        for step in 0..5_000u64 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = state >> 33;
            match r % 4 {
                0 | 1 => handles.push(queue.insert(queue.now() + r % 300, step)),
                2 if !handles.is_empty() => {
                    let handle = handles.swap_remove((r as usize / 4) % handles.len());
                    queue.cancel(handle);
                }
                _ => {
                    out.clear();
                    let now = queue.now() + r % 20;
                    queue.advance(now, &mut out);
                    assert!(out.iter().all(|e| e.deadline <= now));
                    assert!(out.windows(2).all(|w| w[0].deadline <= w[1].deadline));
                    assert!(queue.next_expiry().is_none_or(|next| next > now));
                }
            }
            assert_invariants(&queue);
        }
    }
}
