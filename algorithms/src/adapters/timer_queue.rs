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
//!
//! # What the contract costs here
//!
//! In the reference run (`results/contract_cost.csv`) this adapter took 1.04x
//! (`scaling-1e3`) to 1.52x (`bimodal`) the native row's time, within 1.10x on
//! 1 of the 11 built-ins (10.5 against 13.1 ns on `timeouts`). The crate is the
//! cheapest here per operation, so the contract's fixed price weighs most: the
//! `Timers` entry touched by every operation and fired timer (the stale-safe
//! handle: the crate's `remove` of a stale key reaches whatever reused its slab
//! slot), a 16-byte value in the crate's slab where a user stores an 8-byte id,
//! and the overdue bookkeeping of every arm (the crate clamps a past deadline to
//! its clock, so the adapter records the true one for the contract's
//! `next_expiry()` and batch order).
//!
//! # The crate as its users call it: `timer-queue-native`
//!
//! [`TimerQueueCrateNative`] is the same queue driven the way the crate's README
//! shows, as a native row (see [`crate::driven`]): the value is the timer's id,
//! `insert(deadline, id)` returns the crate's `Timer` key, which the caller
//! keeps in its own record of the timer (`Option`, `None` once the timer fired
//! or was cancelled: the crate's `remove` of a stale key would reach whatever
//! reused its slab slot), `remove(timer)`, `reset(timer, deadline)`,
//! `poll(now)` until it returns `None`, and `next_timeout()` once per wakeup.
//! No arena and no overdue bookkeeping: an overdue insert is clamped to the
//! crate's clock, which is the current tick, so `next_timeout()` already
//! reports it due.

use timer_queue::Timer;

use super::{Armed, Taken, Timers, begin_advance};
use crate::arena::Handle;
use crate::driven;
use crate::{Algorithm, Counters, Expired, Family, Payload, Tick, TimerQueue, check_deadline};

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
    const SUMMARY: &'static str = "`timer-queue` 0.1.1 (feature `crate-timer-queue`): 11 levels \
         x 64 slots over all of `u64`, one timer per `poll`; shrinks its slab after removals, \
         so it allocates in steady state";

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

/// `timer-queue`'s `TimerQueue` driven through its own API. See the module
/// documentation.
#[derive(Debug, Default)]
pub struct TimerQueueCrateNative {
    queue: timer_queue::TimerQueue<Payload>,
    now: Tick,
}

impl Algorithm for TimerQueueCrateNative {
    const NAME: &'static str = "timer-queue-native";
    const FAMILY: Family = Family::Crate;
    const COUNTS_WORK: bool = false;
    const NATIVE_OF: Option<&'static str> = Some("timer-queue");
    const SUMMARY: &'static str = "`timer-queue` 0.1.1 through its own API: `insert(deadline, \
         id)`, the `Timer` key kept by the caller (`Option`), `remove(timer)`, `reset(timer, \
         deadline)`, `poll(now)` until `None`, `next_timeout()` once per wakeup";

    fn with_defaults() -> Self {
        Self::default()
    }

    fn params(&self) -> String {
        "timer-queue=0.1.1,slots=64,levels=11,api=native".to_owned()
    }
}

impl driven::Driven for TimerQueueCrateNative {
    /// The crate's key, until the timer fires or is cancelled.
    type Key = Option<Timer>;

    fn vacant_key() -> Self::Key {
        None
    }

    #[inline]
    fn insert(&mut self, deadline: Tick, timer: Payload) -> Self::Key {
        Some(self.queue.insert(deadline, timer))
    }

    #[inline]
    fn cancel(&mut self, key: &mut Self::Key, _timer: Payload) -> bool {
        key.take().map(|timer| self.queue.remove(timer)).is_some()
    }

    #[inline]
    fn reschedule(&mut self, key: &mut Self::Key, _timer: Payload, deadline: Tick) -> bool {
        let Some(timer) = *key else {
            return false;
        };
        self.queue.reset(timer, deadline);
        true
    }

    #[inline]
    fn advance(&mut self, now: Tick, keys: &mut [Self::Key], out: &mut Vec<Expired<Payload>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(timer) = self.queue.poll(now) {
            keys[timer as usize] = None;
            // The crate hands back the value alone; the timer fired at `now`.
            out.push(Expired {
                payload: timer,
                deadline: now,
            });
        }
    }

    #[inline]
    fn next_expiry(&self) -> Option<Tick> {
        self.queue.next_timeout()
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn reserve(&mut self, _additional: usize) {
        // The crate sizes its slab itself (and shrinks it after removals).
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

#[cfg(test)]
mod native_tests {
    use super::TimerQueueCrateNative;
    use crate::Algorithm;
    use crate::driven::Driven;

    #[test]
    fn the_native_queue_clears_keys_of_fired_timers_and_misses_after() {
        let mut queue = TimerQueueCrateNative::with_defaults();
        let mut keys: Vec<_> = [5, 70, 600]
            .into_iter()
            .zip(0..)
            .map(|(d, t)| queue.insert(d, t))
            .collect();
        assert!(queue.cancel(&mut keys[1], 1));
        assert!(!queue.cancel(&mut keys[1], 1), "cancelled already");
        assert!(queue.reschedule(&mut keys[2], 2, 6));
        let mut out = Vec::new();
        queue.advance(6, &mut keys, &mut out);
        let mut fired: Vec<_> = out.iter().map(|e| e.payload).collect();
        fired.sort_unstable();
        assert_eq!(fired, [0, 2]);
        assert!(keys.iter().all(Option::is_none));
        assert!(!queue.reschedule(&mut keys[0], 0, 9), "fired already");
        assert_eq!(queue.next_expiry(), None);
        // An overdue insert is due at once.
        keys.push(queue.insert(3, 3));
        assert!(queue.next_expiry().is_some_and(|at| at <= 6));
        out.clear();
        queue.advance(6, &mut keys, &mut out);
        assert_eq!(out.len(), 1);
    }
}
