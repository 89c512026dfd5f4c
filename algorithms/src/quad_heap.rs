//! The Go runtime's timer heap: a 4-ary min-heap in which stopping a timer and
//! resetting it are both lazy, and the heap is put right when it is next run.
//!
//! # Source
//!
//! `src/runtime/time.go` of the Go repository, read at Go commit 2297c34c (the
//! Go 1.24 line: the timer code of Go 1.23's rewrite, with synctest's
//! `syncGroup`, which Go 1.25 renamed to `bubble`): `(*timer).stop`,
//! `(*timer).modify`, `(*timer).maybeAdd`, `(*timer).updateHeap`,
//! `(*timers).cleanHead`, `(*timers).adjust`, `(*timers).check`,
//! `(*timers).run`, `deleteMin`, `siftUp`, `siftDown` and `initHeap`. The code
//! here is written from that reading; none of it is Go's.
//!
//! # Idea
//!
//! Go keeps each P's timers in a min-heap of arity 4: the children of position
//! `i` are `4i + 1 ..= 4i + 4` and its parent is `(i - 1) / 4`. Against a binary
//! heap the tree has half the levels, so a sift-up (every insert) makes half the
//! moves, and a sift-down compares four siblings that sit next to each other in
//! memory (here 4 x 16 bytes: one or two cache lines) for each level it
//! descends: more comparisons, but half the dependent loads, and loads are what
//! a large heap waits for. Each heap entry carries a copy of its timer's
//! deadline (Go's `timerWhen`), so a sift reads only the heap.
//!
//! Neither a stop nor a reset touches the heap:
//!
//! * **Stop is a mark.** `cancel` (Go's `stop`) takes the payload out and leaves
//!   the timer's entry where it is, as a *zombie*, and counts it. Here the
//!   payload leaves with the timer's arena slot, which makes the handle stale and
//!   the entry a zombie in one step: an entry is a zombie exactly when the arena
//!   no longer holds its handle.
//! * **Reset is a mark too.** `reschedule` (Go's `modify`) writes the new
//!   deadline into the timer, marks it *modified* (Go's `timerModified`) and
//!   lowers `min_when_modified` (Go's `minWhenModified`, a lower bound on the new
//!   deadline of every modified timer) if the new deadline is earlier. The
//!   entry keeps the old deadline, and the handle stays the same, as Go keeps the
//!   same `*timer`.
//!
//! The heap is put right by the one who runs it, in three places:
//!
//! * **At the top** (Go's `updateHeap`, from `run` and `cleanHead`). When the top
//!   entry is a zombie it is removed like a fired timer; when it belongs to a
//!   modified timer it takes the new deadline and sifts down. Either way the loop
//!   looks at the new top, until the top is live and exact.
//! * **In `adjust`**, when a modified timer may be due: once `now` reaches
//!   `min_when_modified`, one pass over the whole heap gives every modified
//!   entry its new deadline and removes every zombie, and the heap is rebuilt
//!   bottom-up in O(m). Until then no modified timer can be due (each one's new
//!   deadline is at least `min_when_modified`), so a timer pushed back again and
//!   again costs one O(1) write per push, and nothing more until it either
//!   reaches the top or comes due.
//! * **By the quarter rule** (Go's `check` with `force`): when zombies are more
//!   than a quarter of the heap (`zombies > len/4`, integer division), `adjust`
//!   runs in full whether or not anything is due, and sweeps them all.
//!
//! An advance is Go's `check`: it returns at once if nothing can be due
//! (`now` is before `min(top, min_when_modified)`, Go's `wakeTime`) and the
//! quarter rule holds; otherwise it runs `adjust` (which does nothing unless a
//! modified timer may be due), then fires from the top until the top is live,
//! exact and later than `now`, and then applies the quarter rule, after the
//! firing as Go does.
//!
//! Why Go chose this: most timers are stopped or reset before they fire
//! (`context` deadlines, network I/O deadlines reset by every read, `time.Timer`
//! guards), and a stop or reset may come from any goroutine while the heap
//! belongs to one P. Marking the timer costs O(1), needs no lock on the heap
//! and no knowledge of where the entry sits (so no position index to keep up
//! to date on every move); the P that owns the heap does the repair when it runs
//! its timers anyway, and often never has to: a timer reset to a later deadline
//! many times is sifted once, when its entry reaches the top (or fixed in place
//! by the next `adjust` pass), however many resets came before.
//!
//! # Where this differs from Go
//!
//! * **No zombie is revived.** Go's `modify` of a stopped timer whose entry is
//!   still in the heap clears the zombie mark and reuses the entry. Here a
//!   cancel hands the payload back and makes the handle stale, and the contract
//!   requires a reschedule through a stale handle to return `None` and change
//!   nothing, so no operation can reach a zombie's timer again. Go's
//!   stop-then-reset of one `time.Timer` becomes, in this contract, a cancel and
//!   an insert, and an insert is a new timer, which Go adds as a new entry
//!   (`maybeAdd`) even when an old zombie is still in the heap: so does this
//!   file, even when the arena hands the insert the slot the cancel freed (the
//!   zombie's handle has the old generation, so it stays a zombie and never
//!   touches the new timer).
//! * **Where the quarter rule runs, between advances.** Go's P runs `check`
//!   each time its scheduler looks for work, so in a Go program the rule is
//!   applied about as often as goroutines block; `stop` and `modify` never sweep, and the add path
//!   (`maybeAdd`) only runs `cleanHead`, which removes zombies from the tail and
//!   the top but not from the middle. In this contract `advance` is the only
//!   `check`, and a caller may insert and cancel any number of timers between
//!   two advances. `insert` runs `cleanHead` as Go's add path does, and, to keep
//!   memory bounded, it also sweeps in one case: when appending would have to
//!   grow the heap's allocation while more than a quarter of it is zombies. At
//!   that moment Go's `append` would copy the whole slice into a larger one,
//!   O(m); the sweep is O(m) too and makes the copy unnecessary. So the heap's
//!   allocation grows only when at least three quarters of it is live, and it
//!   stays below three times the peak number of pending timers (or what
//!   [`TimerQueue::reserve`] asked for, if more); an insert into a heap with
//!   room never sweeps.
//! * **`next_expiry` when no timer is pending.** Go's `wakeTime` would report a
//!   zombie's deadline; the contract asks for `None` when the queue is empty,
//!   so that is what is returned then. Otherwise [`TimerQueue::next_expiry`] is
//!   Go's `wakeTime`: a lower bound, which after a cancel or a reschedule may be
//!   the deadline of a zombie or the old deadline of a modified timer, so an
//!   event-driven caller can wake up for a timer that is no longer there, as a
//!   Go P can. After an advance to `now` it is later than `now`.
//! * Go's concurrency (per-timer locks, `astate`, the order of the atomic
//!   updates to `minWhenHeap` and `minWhenModified`), periodic timers, channel
//!   timers and the preemption check in `cleanHead` have no counterpart in a
//!   single-threaded queue of one-shot timers. Go's 4-child sift-down keeps the
//!   first of equal children; so does this one.
//!
//! # Cost
//!
//! With `n` pending timers and a heap of `m` entries (`m <= 4n/3` after an
//! advance, see the invariants):
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(log4 m) sift-up, after `cleanHead`: one O(log4 m) sift per zombie or modified timer at the top, O(1) per zombie at the tail; a sweep, O(m), only instead of growing the heap's allocation |
//! | cancel | O(1): a mark, no sift, no sweep (Go's `stop`) |
//! | reschedule | O(1): a mark, no sift (Go's `modify`) |
//! | advance | O(1) when nothing can be due and the quarter rule holds; otherwise O(log4 m) per entry leaving the top (fired or zombie) and per modified timer re-sifted there, plus an O(m) `adjust` when `now` has reached `min_when_modified` or the quarter rule calls for a sweep |
//! | next expiry | O(1), a lower bound (see above) |
//!
//! A sweep for the quarter rule removes more than `m/4` zombies in O(m) work, so
//! it is amortised O(1) per cancel, paid by the advance (or, between advances,
//! the insert) that finds it due. The `adjust` that a due modified timer
//! triggers is not amortised against anything: it costs O(m) at the first
//! advance that reaches `min_when_modified`, which Go resets only when it scans
//! (a modified timer re-sifted at the top leaves it behind as a stale, lower
//! bound). That is Go's trade: no sift per reset, an O(m) pass when a reset
//! timer may come due. A workload that reschedules timers to earlier deadlines
//! every tick pays it every tick; one that pushes idle timeouts back pays it
//! about once per timeout period.
//!
//! # Invariants
//!
//! * Heap order on entries' `when`: for every position `i > 0`,
//!   `heap[parent(i)].when <= heap[i].when`. Only deadlines are compared, as in
//!   Go, so ties leave in an order that is a deterministic function of the
//!   operation sequence but not FIFO; the contract allows any order among ties.
//! * Every pending timer has exactly one entry, which carries its handle; every
//!   other entry is a zombie, and `zombies` counts them.
//! * A pending timer not marked modified has `entry.when == timer.when`; every
//!   modified timer has `timer.when >= min_when_modified`, which is `Some`
//!   whenever a pending timer is modified. Hence `min(top.when,
//!   min_when_modified)` is at most every pending deadline.
//! * After an advance to `now` (not one that goes back in time): the top
//!   entry's `when`, if any, and `min_when_modified`, if any, are later than
//!   `now`, so no pending timer is due; and `zombies <= m / 4`, so `m <= 4n/3`
//!   (the heap is empty when no timer is pending). An advance that found
//!   something to do leaves a live, exact top; one that returned at once (Go's
//!   early return from `check`) may leave a zombie or a modified timer there,
//!   whose old deadline is still later than `now`. Cancels may then raise the
//!   zombie count above a quarter until the next advance, or the next insert
//!   that would grow the allocation.
//!
//! # Counters
//!
//! A heap has no slots, rounds or cascades: those counters stay 0. Its sifts
//! are not counted, so it declares `insert_scan_steps` and
//! `reschedule_scan_steps` uncounted ([`Algorithm::UNCOUNTED`]). The zombies
//! it removes, the modified timers it re-sifts and the `adjust` passes it makes
//! are real work, but [`Counters`] has no field for them; only the timings
//! show them.
//!
//! # Parameters
//!
//! None to choose: [`ARITY`] and [`COMPACT_DIVISOR`] are Go's constants.

use crate::arena::{Arena, Handle};
use crate::{Algorithm, Counter, Counters, Expired, Family, Tick, TimerQueue, check_deadline};

/// Children per heap node: Go's `timerHeapN`, 4. Four 16-byte entries fill
/// 64 bytes, one cache line's worth, so the siblings a sift-down compares arrive
/// in one or two line fills.
pub const ARITY: usize = 4;

/// Zombies are swept out of the heap when they are more than
/// `1 / COMPACT_DIVISOR` of its entries: Go's `zombies > len/4`. Smaller divisors
/// sweep more often and waste less; 4 keeps the heap within 4/3 of the live
/// timers after every advance while each sweep is paid for by at least a quarter
/// of the heap's worth of cancels.
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

/// Go's quarter rule: whether `zombies` in a heap of `len` entries call for a
/// sweep (`check`'s `force`).
#[inline]
fn should_compact(zombies: usize, len: usize) -> bool {
    zombies > len / COMPACT_DIVISOR
}

/// One heap position, Go's `timerWhen`: the deadline the entry is ordered by,
/// kept in the heap for locality, and the handle of the timer it stands for. The
/// entry is a zombie when the arena no longer holds the handle. For a live timer
/// marked modified, `when` is stale: the timer's own `when` is the truth.
#[derive(Clone, Copy, Debug)]
struct Entry {
    when: Tick,
    handle: Handle,
}

/// A pending timer, Go's `timer` cut down to what the contract needs.
#[derive(Debug)]
struct Timer<P> {
    payload: P,
    /// The deadline the timer fires at (Go's `t.when`).
    when: Tick,
    /// Go's `timerModified`: `when` changed after the timer's heap entry was
    /// placed, and the entry's `when` still has the old value.
    modified: bool,
}

/// Go's 4-ary timer heap with lazy stop and lazy reset. See the module
/// documentation.
#[derive(Debug)]
pub struct QuadHeap<P> {
    /// The 4-ary min-heap, ordered by `Entry::when`, of live entries and zombies.
    heap: Vec<Entry>,
    /// The pending timers; an entry whose handle it no longer holds is a zombie.
    timers: Arena<Timer<P>>,
    /// The number of zombies in `heap` (Go's `ts.zombies`).
    zombies: usize,
    /// A lower bound on the `when` of every pending timer marked modified, or
    /// `None` when no pending timer is (Go's `minWhenModified`, whose 0 is our
    /// `None`: a deadline here may be 0).
    min_when_modified: Option<Tick>,
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
            timers: Arena::new(),
            zombies: 0,
            min_when_modified: None,
            now: 0,
        }
    }

    /// Whether `entry` stands for a pending timer (not a zombie).
    #[inline]
    fn is_live(&self, entry: Entry) -> bool {
        self.timers.contains(entry.handle)
    }

    /// Go's `wakeTime`: the earlier of the top entry's `when` and
    /// `min_when_modified`, a lower bound on every pending deadline; `None` when
    /// the heap is empty.
    fn wake_time(&self) -> Option<Tick> {
        let top = self.heap.first()?.when;
        Some(match self.min_when_modified {
            Some(modified) => top.min(modified),
            None => top,
        })
    }

    /// Moves the entry at position `i` up until its parent is not later (Go's
    /// `siftUp`).
    fn sift_up(&mut self, mut i: usize) {
        let entry = self.heap[i];
        while i > 0 {
            let p = parent(i);
            if self.heap[p].when <= entry.when {
                break;
            }
            self.heap[i] = self.heap[p];
            i = p;
        }
        self.heap[i] = entry;
    }

    /// Moves the entry at position `i` down until no child is earlier (Go's
    /// `siftDown`): at each level, the earliest of up to four children takes its
    /// place.
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
                if self.heap[child].when < self.heap[best].when {
                    best = child;
                }
            }
            if self.heap[best].when >= entry.when {
                break;
            }
            self.heap[i] = self.heap[best];
            i = best;
        }
        self.heap[i] = entry;
    }

    /// Removes the top entry, live or zombie (Go's `deleteMin`). An empty heap
    /// holds no modified timer, so `min_when_modified` is cleared with it.
    fn delete_min(&mut self) {
        self.heap.swap_remove(0);
        if self.heap.is_empty() {
            self.min_when_modified = None;
        } else {
            self.sift_down(0);
        }
    }

    /// Go's `updateHeap` for the top entry: a zombie is removed, a modified
    /// timer's entry takes its new `when` and sifts down. Returns whether the top
    /// changed; `false` means the top is live and its `when` is exact.
    fn update_top(&mut self) -> bool {
        let Some(&top) = self.heap.first() else {
            return false;
        };
        match self.timers.get_mut(top.handle) {
            None => {
                self.zombies -= 1;
                self.delete_min();
                true
            }
            Some(timer) if timer.modified => {
                timer.modified = false;
                self.heap[0].when = timer.when;
                self.sift_down(0);
                true
            }
            Some(_) => false,
        }
    }

    /// Go's `cleanHead`, run before an insert: drops zombies from the tail (free:
    /// no sift) and fixes the top until it is live and exact.
    fn clean_head(&mut self) {
        while let Some(&last) = self.heap.last() {
            if !self.is_live(last) {
                self.heap.pop();
                self.zombies -= 1;
                if self.heap.is_empty() {
                    self.min_when_modified = None;
                }
                continue;
            }
            if !self.update_top() {
                return;
            }
        }
    }

    /// Go's `adjust`. Unless `force`, it does nothing until `now` reaches
    /// `min_when_modified` (no modified timer can be due before it). Otherwise it
    /// scans the whole heap once: zombies are removed (swapped with the last
    /// entry), every modified timer's entry takes its new `when`, and if anything
    /// changed the heap is rebuilt bottom-up in O(m) (Go's `initHeap`).
    fn adjust(&mut self, now: Tick, force: bool) {
        if !force && self.min_when_modified.is_none_or(|first| first > now) {
            return;
        }
        self.min_when_modified = None;
        let mut changed = false;
        let mut i = 0;
        while i < self.heap.len() {
            let entry = self.heap[i];
            match self.timers.get_mut(entry.handle) {
                None => {
                    // The last entry moves here and is looked at next.
                    self.heap.swap_remove(i);
                    self.zombies -= 1;
                    changed = true;
                }
                Some(timer) => {
                    if timer.modified {
                        timer.modified = false;
                        self.heap[i].when = timer.when;
                        changed = true;
                    }
                    i += 1;
                }
            }
        }
        debug_assert_eq!(self.zombies, 0, "a sweep leaves no zombie");
        if changed {
            self.heapify();
        }
    }

    /// Restores heap order over the whole vector in O(m): sift down every
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
    const UNCOUNTED: &'static [Counter] = &[Counter::InsertScanSteps, Counter::RescheduleScanSteps];
    const SUMMARY: &'static str = "Go runtime's timer heap: 4-ary, lazy stop (zombies) and lazy \
         reset (re-sifted at the top or in adjust), zombies swept past a quarter";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("arity={ARITY},compact=dead>len/{COMPACT_DIVISOR}")
    }
}

impl<P> TimerQueue<P> for QuadHeap<P> {
    /// Go's `maybeAdd` for a new timer: clean the head, then append and sift up.
    /// When the append would have to grow the heap's allocation while more than
    /// a quarter of it is zombies, the zombies are swept instead (see the module
    /// documentation, "Where this differs from Go").
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        self.clean_head();
        if self.heap.len() == self.heap.capacity() && should_compact(self.zombies, self.heap.len())
        {
            self.adjust(self.now, true);
        }
        let handle = self.timers.insert(Timer {
            payload,
            when: deadline,
            modified: false,
        });
        self.heap.push(Entry {
            when: deadline,
            handle,
        });
        self.sift_up(self.heap.len() - 1);
        handle
    }

    /// Go's `stop`: the timer's entry stays in the heap as a zombie; nothing
    /// moves. The payload leaves with the arena slot, which makes the handle
    /// stale and the entry a zombie in one step.
    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let timer = self.timers.remove(handle)?;
        self.zombies += 1;
        Some(timer.payload)
    }

    /// Go's `modify` of a timer in the heap: set the new `when`, mark the timer
    /// modified, lower `min_when_modified` if the new deadline is earlier, and
    /// leave the heap alone. The handle stays valid.
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let timer = self.timers.get_mut(handle)?;
        timer.when = deadline;
        timer.modified = true;
        if self.min_when_modified.is_none_or(|min| deadline < min) {
            self.min_when_modified = Some(deadline);
        }
        Some(handle)
    }

    /// Go's `check` with `run`: see the module documentation.
    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.now = now;
        let Some(next) = self.wake_time() else {
            return;
        };
        if now < next && !should_compact(self.zombies, self.heap.len()) {
            // Nothing can be due and the zombies are within the quarter rule.
            return;
        }
        self.adjust(now, false);
        while let Some(&top) = self.heap.first() {
            if self.update_top() {
                continue;
            }
            if top.when > now {
                break;
            }
            self.delete_min();
            let timer = self
                .timers
                .remove(top.handle)
                .expect("update_top leaves a live timer at the top");
            out.push(Expired {
                payload: timer.payload,
                deadline: timer.when,
            });
        }
        // Go applies the quarter rule after running the due timers, which may
        // have shrunk the heap.
        if should_compact(self.zombies, self.heap.len()) {
            self.adjust(now, true);
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.timers.reserve(additional);
        // An advance leaves zombies at most a quarter of the heap, so the heap
        // holds at most a third more entries than there are live timers.
        self.heap.reserve(additional + additional / 3 + 1);
    }

    /// Go's `wakeTime`: a lower bound, which may be the deadline of a zombie at
    /// the top or an old deadline of a modified timer; `None` when no timer is
    /// pending, zombies or not.
    fn next_expiry(&self) -> Option<Tick> {
        if self.timers.is_empty() {
            return None;
        }
        self.wake_time()
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.timers.len()
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks what holds after every operation: heap order, the zombie count,
    /// one entry per pending timer, and `min_when_modified` as a lower bound.
    fn assert_invariants<P>(queue: &QuadHeap<P>) {
        for i in 1..queue.heap.len() {
            assert!(
                queue.heap[parent(i)].when <= queue.heap[i].when,
                "heap order broken at {i}: parent {:?} child {:?}",
                queue.heap[parent(i)],
                queue.heap[i]
            );
        }
        let zombies = queue.heap.iter().filter(|e| !queue.is_live(**e)).count();
        assert_eq!(zombies, queue.zombies, "zombie count");
        assert_eq!(
            queue.heap.len() - zombies,
            queue.timers.len(),
            "one entry per pending timer"
        );
        for entry in &queue.heap {
            if let Some(timer) = queue.timers.get(entry.handle) {
                if timer.modified {
                    let min = queue.min_when_modified.expect("a timer is modified");
                    assert!(min <= timer.when, "{min} is above modified {}", timer.when);
                } else {
                    assert_eq!(entry.when, timer.when, "an unmodified entry is exact");
                }
            }
        }
    }

    /// What holds after an advance to `now`: the top entry is later than
    /// `now`, no modified timer can be due, and the quarter rule holds.
    fn assert_after_advance<P>(queue: &QuadHeap<P>, now: Tick) {
        assert_invariants(queue);
        if let Some(&top) = queue.heap.first() {
            assert!(top.when > now, "the top {} is due at {now}", top.when);
        }
        assert!(queue.min_when_modified.is_none_or(|min| min > now));
        assert!(
            !should_compact(queue.zombies, queue.heap.len()),
            "{} zombies in {} entries break the quarter rule",
            queue.zombies,
            queue.heap.len()
        );
    }

    /// A queue with timers at deadlines 1..=n, payload = deadline.
    fn filled(n: u64) -> (QuadHeap<u64>, Vec<Handle>) {
        let mut queue = QuadHeap::new();
        let handles = (1..=n).map(|d| queue.insert(d, d)).collect();
        (queue, handles)
    }

    /// The heap's entries as (when, payload or None for a zombie), in position
    /// order: to show that an operation moved nothing.
    fn layout(queue: &QuadHeap<u64>) -> Vec<(Tick, Option<u64>)> {
        queue
            .heap
            .iter()
            .map(|e| (e.when, queue.timers.get(e.handle).map(|t| t.payload)))
            .collect()
    }

    /// (deadline, payload) of every timer an advance to `now` fires.
    fn fire(queue: &mut QuadHeap<u64>, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        queue.advance(now, &mut out);
        assert_after_advance(queue, now);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
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
    fn cancel_marks_a_zombie_without_moving_anything() {
        let (mut queue, handles) = filled(50);
        let before: Vec<Tick> = queue.heap.iter().map(|e| e.when).collect();
        assert_eq!(queue.cancel(handles[30]), Some(31));
        // The top too: Go's stop does not clean the head.
        assert_eq!(queue.cancel(handles[0]), Some(1));
        let after: Vec<Tick> = queue.heap.iter().map(|e| e.when).collect();
        assert_eq!(before, after, "the heap is untouched");
        assert_eq!((queue.zombies, queue.len()), (2, 48));
        assert_eq!(
            queue.next_expiry(),
            Some(1),
            "a lower bound: the zombie at the top still counts"
        );
        assert_invariants(&queue);
        assert_eq!(fire(&mut queue, 1), [], "the advance drops the zombie");
        assert_eq!(queue.next_expiry(), Some(2));
    }

    #[test]
    fn zombie_is_dropped_when_it_reaches_the_top() {
        let (mut queue, handles) = filled(10);
        queue.cancel(handles[1]);
        queue.cancel(handles[2]);
        assert_eq!(fire(&mut queue, 1), [(1, 1)]);
        assert_eq!(
            queue.next_expiry(),
            Some(4),
            "the zombies 2 and 3 were popped"
        );
        assert_eq!((queue.heap.len(), queue.zombies), (7, 0));
        let fired: Vec<u64> = fire(&mut queue, 10).iter().map(|f| f.1).collect();
        assert_eq!(fired, [4, 5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn insert_cleans_the_head_and_the_tail_first() {
        let (mut queue, handles) = filled(20);
        queue.cancel(handles[0]);
        queue.cancel(handles[1]);
        queue.cancel(handles[19]);
        assert_eq!((queue.heap.len(), queue.zombies), (20, 3));
        queue.insert(1_000, 1_000);
        // The tail zombie (20) went for free, the two at the top with a sift
        // each; then the new entry was appended.
        assert_eq!((queue.heap.len(), queue.zombies), (18, 0));
        assert_eq!(queue.next_expiry(), Some(3));
        assert_invariants(&queue);
    }

    #[test]
    fn cancel_does_not_compact_the_next_advance_does() {
        let (mut queue, handles) = filled(100);
        // From the latest deadline down: zombies in the middle and at the tail.
        for (k, handle) in handles.iter().rev().take(26).enumerate() {
            assert_eq!(queue.cancel(*handle), Some(100 - k as u64));
        }
        assert_eq!(
            (queue.zombies, queue.heap.len()),
            (26, 100),
            "26 > 100/4, but a cancel never sweeps"
        );
        assert_invariants(&queue);
        // Nothing is due at 0, but the quarter rule forces the sweep (Go's
        // `check` with `force`).
        assert_eq!(fire(&mut queue, 0), []);
        assert_eq!((queue.zombies, queue.heap.len()), (0, 74));
    }

    #[test]
    fn an_advance_within_the_quarter_rule_leaves_zombies_in_place() {
        let (mut queue, handles) = filled(100);
        for handle in handles.iter().rev().take(25) {
            queue.cancel(*handle);
        }
        let before = layout(&queue);
        assert_eq!(fire(&mut queue, 0), []);
        assert_eq!(layout(&queue), before, "25 > 100/4 is false: no sweep");
        assert_eq!(queue.zombies, 25);
    }

    #[test]
    fn firing_can_trigger_the_sweep() {
        let (mut queue, handles) = filled(100);
        for handle in &handles[80..] {
            queue.cancel(*handle);
        }
        assert_eq!(fire(&mut queue, 20).len(), 20);
        assert_eq!(
            (queue.zombies, queue.heap.len()),
            (20, 80),
            "20 > 80/4 is false"
        );
        assert_eq!(fire(&mut queue, 21), [(21, 21)]);
        assert_eq!(
            (queue.zombies, queue.heap.len()),
            (0, 59),
            "20 > 79/4 = 19: swept after the firing"
        );
    }

    #[test]
    fn zombies_stay_below_the_threshold_under_cancel_only_traffic() {
        // Every timer is cancelled before it fires; time moves a tick a round.
        let mut queue = QuadHeap::new();
        let mut pending: Vec<(Handle, u64)> = Vec::new();
        let mut peak_heap = 0;
        let mut next_payload = 0;
        for round in 0..2_000u64 {
            for k in 0..5 {
                pending.push((
                    queue.insert(round + 1_000_000 + k * 37, next_payload),
                    next_payload,
                ));
                next_payload += 1;
            }
            // Keep 200 pending, cancelling from a spread of positions.
            while pending.len() > 200 {
                let (handle, payload) = pending.swap_remove((round as usize * 13) % 150);
                assert_eq!(queue.cancel(handle), Some(payload));
            }
            assert_eq!(fire(&mut queue, round), [], "nothing ever comes due");
            peak_heap = peak_heap.max(queue.heap.len());
        }
        assert!(peak_heap <= 200 * 4 / 3, "the heap peaked at {peak_heap}");
    }

    #[test]
    fn heap_allocation_stays_bounded_without_any_advance() {
        // 1,000 timers, then 100,000 more among them in batches of 8, each batch
        // cancelled once it is in, and never an advance: Go's add path cleans
        // only the tail and the top, so zombies pile up in the middle until the
        // heap is full.
        let mut queue = QuadHeap::new();
        for k in 0..1_000u64 {
            queue.insert(1_000_000 + 1_000 * k, k);
        }
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut swept = 0;
        let mut most_zombies = 0;
        for batch in 0..12_500u64 {
            let mut handles = Vec::with_capacity(8);
            for _ in 0..8 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let (len, zombies) = (queue.heap.len(), queue.zombies);
                handles.push(queue.insert(1_000_000 + (state >> 33) % 1_000_000, batch));
                if should_compact(zombies, len) && queue.zombies == 0 {
                    assert_eq!(len, queue.heap.capacity(), "only a full heap is swept");
                    swept += 1;
                }
            }
            for handle in handles {
                assert_eq!(queue.cancel(handle), Some(batch));
            }
            most_zombies = most_zombies.max(queue.zombies);
            assert!(
                queue.heap.capacity() < 3 * 1_008,
                "capacity {} after batch {batch}",
                queue.heap.capacity()
            );
        }
        assert!(swept > 0, "inserts swept instead of growing the heap");
        assert!(
            most_zombies > 1_000 / 4,
            "between advances zombies may pass a quarter ({most_zombies})"
        );
        assert_invariants(&queue);
        assert_eq!(queue.len(), 1_000);
    }

    #[test]
    fn a_later_reschedule_keeps_the_handle_and_resifts_only_at_the_top() {
        let (mut queue, handles) = filled(10);
        let before = layout(&queue);
        assert_eq!(queue.reschedule(handles[0], 50), Some(handles[0]));
        assert_eq!(queue.reschedule(handles[5], 60), Some(handles[5]));
        assert_eq!(layout(&queue), before, "a reschedule moves nothing");
        assert_eq!(queue.min_when_modified, Some(50));
        assert_eq!(
            queue.next_expiry(),
            Some(1),
            "a lower bound: the old deadline"
        );
        assert_invariants(&queue);

        // At 1 the top is the modified timer: it takes 50 and sifts down, and
        // nothing fires. The one at 6 is not at the top and keeps its old entry.
        assert_eq!(fire(&mut queue, 1), []);
        assert_eq!(queue.next_expiry(), Some(2));
        let six = queue.heap.iter().find(|e| e.handle == handles[5]).unwrap();
        assert_eq!(six.when, 6, "not at the top yet: not re-sifted");
        assert_eq!(
            queue.min_when_modified,
            Some(50),
            "a re-sift at the top leaves the bound behind, as in Go"
        );

        assert_eq!(
            fire(&mut queue, 49),
            [
                (2, 2),
                (3, 3),
                (4, 4),
                (5, 5),
                (7, 7),
                (8, 8),
                (9, 9),
                (10, 10)
            ]
        );
        assert_eq!(queue.len(), 2);
        // At 50 `adjust` runs (the stale bound has been reached): 60's entry is
        // fixed there, and 50 fires with its new deadline.
        assert_eq!(fire(&mut queue, 50), [(50, 1)]);
        assert_eq!(queue.min_when_modified, None);
        assert_eq!(
            queue.cancel(handles[5]),
            Some(6),
            "the same handle, still good"
        );
    }

    #[test]
    fn an_earlier_reschedule_is_fixed_by_adjust_when_it_comes_due() {
        let mut queue = QuadHeap::new();
        let handles: Vec<Handle> = (1..=40u64).map(|k| queue.insert(100 * k, k)).collect();
        assert_eq!(queue.reschedule(handles[30], 5), Some(handles[30]));
        assert_eq!(queue.next_expiry(), Some(5), "min_when_modified bounds it");
        let before = layout(&queue);
        assert_eq!(fire(&mut queue, 4), []);
        assert_eq!(
            layout(&queue),
            before,
            "before 5 no modified timer can be due"
        );
        assert_eq!(fire(&mut queue, 5), [(5, 31)]);
        assert_eq!(queue.next_expiry(), Some(100));
        assert_eq!(queue.reschedule(handles[30], 7), None, "fired");
    }

    #[test]
    fn a_reschedule_into_the_past_fires_at_the_next_advance() {
        let (mut queue, handles) = filled(10);
        assert_eq!(fire(&mut queue, 3).len(), 3);
        queue.reschedule(handles[8], 2).unwrap();
        assert_eq!(queue.next_expiry(), Some(2));
        assert_eq!(fire(&mut queue, 3), [(2, 9)], "without moving the clock");
    }

    #[test]
    fn a_stale_handle_neither_reschedules_nor_revives_its_zombie() {
        let (mut queue, handles) = filled(10);
        // 5 sits in the middle of the heap, neither at the top nor at the tail.
        assert_eq!(queue.cancel(handles[4]), Some(5));
        assert_eq!(queue.reschedule(handles[4], 3), None, "cancelled");
        // The arena hands the next insert the freed slot; its zombie entry stays
        // (an insert is a new timer, with its own entry, as in Go).
        let fresh = queue.insert(7, 99);
        assert_eq!(fresh.index(), handles[4].index(), "the slot was reused");
        assert_eq!((queue.heap.len(), queue.zombies), (11, 1));
        assert_eq!(queue.reschedule(handles[4], 3), None, "still stale");
        assert_eq!(queue.cancel(handles[4]), None);
        // Push the new timer back; the zombie of the slot's old timer reaches the
        // top first and is dropped without touching the new timer's mark.
        assert_eq!(queue.reschedule(fresh, 50), Some(fresh));
        assert_eq!(fire(&mut queue, 5), [(1, 1), (2, 2), (3, 3), (4, 4)]);
        assert_eq!(queue.zombies, 0);
        assert!(queue.timers.get(fresh).unwrap().modified);
        assert_eq!(
            fire(&mut queue, 50),
            [(6, 6), (7, 7), (8, 8), (9, 9), (10, 10), (50, 99)]
        );
    }

    #[test]
    fn handles_survive_sweeps_and_stale_ones_stay_stale() {
        let (mut queue, handles) = filled(100);
        for handle in handles[60..].iter().rev() {
            queue.cancel(*handle);
        }
        assert_eq!(fire(&mut queue, 0), [], "the sweep");
        assert_eq!((queue.zombies, queue.heap.len()), (0, 60));
        let fresh: Vec<Handle> = (0..40).map(|k| queue.insert(500 + k, 1000 + k)).collect();
        assert!(fresh.iter().all(|h| h.index() >= 60), "slots were reused");
        for handle in &handles[60..] {
            assert_eq!(queue.cancel(*handle), None);
            assert_eq!(queue.reschedule(*handle, 1), None);
        }
        assert_eq!(queue.len(), 100, "the stale handles touched no timer");
        assert_eq!(queue.cancel(handles[10]), Some(11));
        assert_eq!(queue.reschedule(fresh[3], 2_000), Some(fresh[3]));
        assert_eq!(queue.cancel(fresh[4]), Some(1004));
        let fired = fire(&mut queue, 2_000);
        assert_eq!(fired.len(), 98);
        assert!(fired.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(fired.last(), Some(&(2_000, 1003)));
        assert!(queue.heap.is_empty());
    }

    #[test]
    fn random_operations_keep_the_invariants() {
        let mut queue = QuadHeap::new();
        let mut handles = Vec::new();
        let mut out = Vec::new();
        // A small linear congruential generator: deterministic, no dependency.
        let mut state: u64 = 0x243F_6A88_85A3_08D3;
        for step in 0..20_000u64 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = state >> 33;
            match r % 6 {
                0 | 1 => handles.push(queue.insert(queue.now() + r % 300, step)),
                2 if !handles.is_empty() => {
                    let handle = handles.swap_remove((r as usize / 6) % handles.len());
                    queue.cancel(handle);
                }
                3 if !handles.is_empty() => {
                    let i = (r as usize / 6) % handles.len();
                    // Earlier or later, sometimes into the past.
                    let deadline = (queue.now() + (r >> 8) % 400).saturating_sub(50);
                    match queue.reschedule(handles[i], deadline) {
                        Some(handle) => assert_eq!(handle, handles[i]),
                        None => {
                            handles.swap_remove(i);
                        }
                    }
                }
                _ => {
                    out.clear();
                    let now = queue.now() + r % 20;
                    let bound = queue.next_expiry();
                    queue.advance(now, &mut out);
                    assert!(out.iter().all(|e| e.deadline <= now));
                    assert!(out.windows(2).all(|w| w[0].deadline <= w[1].deadline));
                    if let (Some(bound), Some(first)) = (bound, out.first()) {
                        assert!(bound <= first.deadline, "next_expiry was no lower bound");
                    }
                    assert_after_advance(&queue, now);
                }
            }
            assert_invariants(&queue);
        }
    }
}
