//! `timer-queue` 0.1.1: a hierarchical timer wheel over the whole `u64` range,
//! measured through an adapter (feature `crate-timer-queue`).
//!
//! # The crate
//!
//! `timer_queue::TimerQueue<T>` (crates.io `timer-queue`, repository Ralith/timer-queue,
//! MIT OR Apache-2.0 OR Zlib, `no_std`) keeps its
//! timers in a `slab::Slab` and indexes them with 11 levels of 64 slots, each
//! level's slot covering 64 times the one below, so that the levels together
//! cover every `u64` time: no overflow, no clamping. A timer goes into the level
//! of the highest base-64 digit in which its expiry differs from the clock
//! (`next_tick`), in an unsorted doubly-linked list. `poll(now)` returns **one**
//! expired timer per call: it moves the clock to the first occupied slot (one
//! trailing-zeros count per level), unpacks a higher level's slot into the lower
//! levels on the way (the cascade), and pops from level 0, whose slots are one
//! tick wide, so timers come out in expiry order. `next_timeout()` is a lower
//! bound: the start of the first occupied slot, found by a scan of up to 64
//! slots per level. Removal takes the crate's `Timer` key, a bare slab index.
//!
//! # Mapping to the contract
//!
//! | contract | crate |
//! |---|---|
//! | `insert` | `TimerQueue::insert(deadline, Armed { payload, index })`; the `Timer` key is kept in the adapter's arena (see [`crate::adapters`]) |
//! | `cancel` | `TimerQueue::remove(timer)` |
//! | `reschedule` | `TimerQueue::reset(timer, deadline)`: in place, same handle |
//! | `advance` | `TimerQueue::poll(now)` until it returns `None` |
//! | `next_expiry` | `TimerQueue::next_timeout()`, and the overdue inserts' smallest deadline |
//!
//! * **Handles.** `remove` of a key whose timer fired panics, or, once the slab
//!   slot is reused, removes another timer: the crate leaves that to the caller.
//!   The adapter's arena checks the generation first, so neither can happen.
//! * **Overdue inserts.** The crate stores `max(deadline, clock)`, so timers
//!   inserted overdue all expire at the clock and come out first, in list order
//!   (last in, first out). The adapter sorts that prefix of the next batch by
//!   deadline (see `order_batch` in [`crate::adapters`]), and reports their
//!   smallest deadline as `next_expiry()`'s bound, which `next_timeout()` (the
//!   clock) is not.
//! * **Exact**, over the whole range up to [`crate::MAX_DEADLINE`]: `EXACT`, no
//!   declared lateness, no far map needed.
//!
//! # Cost per operation (adapter included)
//!
//! | operation | cost |
//! |---|---|
//! | insert | the crate's O(1) slab insert and list push + an arena insert |
//! | cancel | an arena lookup + the crate's O(1) unlink and slab removal |
//! | reschedule | an arena lookup + the crate's O(1) unlink and relink |
//! | advance | per fired timer, one `poll` call (O(levels) to find the slot) and an arena removal; per higher-level slot reached, the cascade of its timers; one more `poll` that finds nothing |
//! | next expiry | O(levels x 64) slot checks at worst |
//!
//! **It allocates in steady state.** After every removal (a fire or a cancel) the
//! crate calls `shrink_to_fit` on its slab when fewer than 1/16 of the slab's
//! capacity is in use, so a queue whose population falls far below its peak (or
//! that empties, once it held 16 timers) reallocates, and grows again by
//! reallocation. That is the crate's behaviour, measured as it is; the harness's
//! allocation counts show it.
//!
//! # Counters
//!
//! All zero: the crate reports no work counters (cascades happen inside `poll`).
//!
//! # Parameters
//!
//! None: the crate's constants (64 slots, 11 levels). `params()` says
//! `timer-queue=0.1.1,slots=64,levels=11`.

use timer_queue::Timer;

use super::{Armed, Taken, Timers, begin_advance};
use crate::arena::Handle;
use crate::{Algorithm, Counters, Expired, Family, Tick, TimerQueue, check_deadline};

/// `timer-queue`'s `TimerQueue` behind the contract. See the module
/// documentation.
#[derive(Debug)]
pub struct TimerQueueCrate<P> {
    queue: timer_queue::TimerQueue<Armed<P>>,
    timers: Timers<Timer, P>,
    now: Tick,
}

impl<P> Default for TimerQueueCrate<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> TimerQueueCrate<P> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        Self {
            queue: timer_queue::TimerQueue::new(),
            timers: Timers::new(),
            now: 0,
        }
    }
}

impl<P> Algorithm for TimerQueueCrate<P> {
    const NAME: &'static str = "timer-queue";
    const FAMILY: Family = Family::Crate;
    // The crate counts no slot visits, cascades or scans.
    const COUNTS_WORK: bool = false;
    const SUMMARY: &'static str = "crate timer-queue 0.1.1: hierarchical wheel (11 levels x 64 slots) \
         over all of u64 on a slab, exact, one timer per poll";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "timer-queue=0.1.1,slots=64,levels=11".to_owned()
    }
}

impl<P> TimerQueue<P> for TimerQueueCrate<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        self.timers.note_armed(deadline, self.now);
        let queue = &mut self.queue;
        self.timers.insert_in_crate(deadline, |index| {
            queue.insert(deadline, Armed { payload, index })
        })
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        match self.timers.remove(handle)? {
            Taken::InCrate(timer) => Some(self.queue.remove(timer).payload),
            Taken::Far(_) => unreachable!("timer-queue covers every deadline"),
        }
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let place = self.timers.get_mut(handle)?;
        let timer = place.key.expect("every timer is in the crate");
        place.deadline = deadline;
        self.queue.reset(timer, deadline);
        self.timers.note_armed(deadline, self.now);
        Some(handle)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        let Some(previous) = begin_advance(&mut self.now, now) else {
            return;
        };
        let start = out.len();
        while let Some(Armed { payload, index }) = self.queue.poll(now) {
            let (_, deadline) = self.timers.fired(index);
            out.push(Expired { payload, deadline });
        }
        self.timers.finish_advance(now, previous, out, start, false);
    }

    fn reserve(&mut self, additional: usize) {
        self.timers.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.timers.bound(self.queue.next_timeout())
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

    #[test]
    fn overdue_inserts_come_out_in_deadline_order_before_the_rest() {
        let mut queue = TimerQueueCrate::new();
        let mut out = Vec::new();
        queue.advance(100, &mut out);
        queue.insert(101, 'd');
        for (p, d) in [('b', 50), ('a', 10), ('c', 100)] {
            queue.insert(d, p);
        }
        assert_eq!(queue.next_expiry(), Some(10), "the overdue minimum");
        queue.advance(101, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [('a', 10), ('b', 50), ('c', 100), ('d', 101)]);
        assert_eq!(queue.next_expiry(), None);
    }
}
