//! `tokio-util` 0.7.20's `DelayQueue` on a `tokio` 1.54.1 current-thread runtime
//! with paused time, measured through an adapter (feature `crate-tokio`).
//!
//! # The crate
//!
//! `tokio_util::time::DelayQueue<T>` is the public face of tokio's timer wheel
//! (`tokio-util/src/time/wheel`): 6 levels of 64 slots at 1 ms resolution, an
//! occupancy bitmap per level, the next occupied slot found with a rotate and a
//! trailing-zeros count, a higher level's slot cascaded into the lower ones when
//! it is reached. Values live in a slab; a timer's `Key` is its slab index.
//! `poll_expired(cx)` hands back one expired value per call. It does not read
//! the wheel against a clock of its own: the queue keeps one tokio `Sleep`, armed
//! at the wheel's next expiration, and polls the wheel only when the runtime's
//! time driver has fired that `Sleep`. So a `DelayQueue` needs a tokio runtime
//! with its time driver, and **its measured cost includes that runtime's**: the
//! time driver's own wheel (where the `Sleep` is registered and re-registered),
//! a `block_on` and a driver turn per advance, and entering the runtime's
//! context (a thread-local swap and a reference count) around every operation
//! that may arm the `Sleep`. The queue also allocates: each time it polls the
//! wheel it boxes a new `Sleep` (`Box::pin(sleep_until(..))`).
//!
//! # Mapping to the contract
//!
//! The adapter owns a current-thread runtime built with `enable_time()` and
//! `start_paused(true)`: tokio's clock is virtual and moves only when told to.
//! Tick `t` is the queue's start instant plus `t` ms (the queue is built inside
//! the runtime at its virtual time 0).
//!
//! | contract | crate |
//! |---|---|
//! | `insert` | `DelayQueue::insert_at(Armed { payload, index }, start + deadline ms)` inside the runtime's context; the `Key` is kept in the adapter's arena (see [`crate::adapters`]) |
//! | `cancel` | `DelayQueue::remove(&key)` (which panics on a key it does not hold: the arena's generation check keeps stale handles away) |
//! | `reschedule` | `DelayQueue::reset_at(&key, start + deadline ms)`: in place, same handle |
//! | `advance` | one `block_on`: `tokio::time::advance(now - previous ms)` (moves the paused clock and yields, so the time driver fires the queue's `Sleep`), then `poll_expired` with a no-op waker until it is `Pending` or empty |
//! | `next_expiry` | derived from `DelayQueue::peek` (see below) |
//!
//! * **No real sleeping, no auto-advance.** The `block_on` future never waits on
//!   anything but the yield inside `tokio::time::advance`, so the paused clock
//!   never jumps ahead on its own (tokio auto-advances a paused clock only when
//!   the runtime would otherwise sleep). The runtime's clock is read once, when
//!   it is built (the base of the virtual clock), and never again for real: this
//!   is the one place `algorithms` runs a runtime (see ARCHITECTURE.md's
//!   invariants), and the results do not depend on the clock's value.
//! * **Overdue inserts.** The queue clamps a deadline at or before its wheel's
//!   elapsed time to that time and returns such values first, from a stack (last
//!   in, first out). The adapter sorts that prefix of the next batch by deadline
//!   and reports the smallest overdue deadline in `next_expiry()` (see
//!   [`crate::adapters`]).
//! * **Far deadlines.** The wheel takes deadlines at most `2^36 - 1` ms (about
//!   2.2 years) past its elapsed time and panics beyond. The elapsed time is
//!   private and lags the clock: it moves when the queue processes an
//!   expiration, and a timer popped from a level-0 slot leaves it behind, at or
//!   after the start of that timer's 64-tick block (a timer sits in level 0 only
//!   while the elapsed time is in its block, or after a cascade that set the
//!   elapsed time to the block's start). So the adapter keeps a lower bound on
//!   it, the floor: the latest deadline the queue fired, rounded down to a
//!   multiple of 64. (The latest deadline itself is not one: the conformance
//!   suite caught the queue's elapsed time behind it.) A timer due later than
//!   `floor + REACH` stays in the adapter's far map, moves into the queue when
//!   the floor catches up, and fires from the map if it is due first. No
//!   workload comes near.
//! * **A bug in the crate, and [`REACH`].** The conformance suite found that
//!   `DelayQueue` 0.7.20 fires timers a whole top-level rotation (2^36 ms) late,
//!   or trips its own debug assertion, when it holds a timer that it accepts (at
//!   most `MAX_DURATION` past its elapsed time) but that falls in the top
//!   level's *current* slot one rotation ahead: the top level's next-slot search
//!   starts at the current slot, so that timer's (wrapped) slot is found before
//!   every later top-level slot, whose timers are then late by a rotation. (The
//!   runtime's own wheel had the same class of bug, fixed by tokio's "time:
//!   handle wrapped top-level timer-wheel slots"; `DelayQueue` keeps its own copy
//!   of the wheel.) The adapter hands the queue only deadlines up to
//!   `floor + REACH`, `REACH = 2^36 - 2^30`: one top slot short, so no timer can
//!   land in the current top slot a rotation ahead, now or later. The test
//!   `a_timer_near_the_crates_limit_does_not_delay_earlier_ones` reproduces the
//!   bug when `REACH` is raised to `MAX_DURATION`.
//! * **`next_expiry`.** The queue has no public next-deadline query (its
//!   `Sleep` is armed at the start of its earliest occupied slot, but that is
//!   private), so the adapter keeps a lower bound of its own: every arm lowers
//!   it to the new deadline, and an advance that leaves it at or below `now`
//!   recomputes it. `peek()` gives the earliest timer of the earliest occupied
//!   slot (walking that slot: O(slot size)); the slot starts at that deadline
//!   rounded down to the slot's width, which depends on the level, which
//!   depends on the elapsed time. Computed from the floor (at or below the
//!   elapsed time) the level can only come out coarser, so the rounded-down
//!   deadline is a lower bound on every pending deadline. When the floor is too
//!   stale to place it after `now`, the adapter reads the elapsed time with a
//!   probe (a value inserted at tick 0, which the queue clamps to its elapsed
//!   time and reports as its deadline, removed at once) and recomputes: the
//!   bound is then the queue's own next expiration, where a real user's task
//!   would wake. The adapter reports the larger of it and `now + 1`, the
//!   overdue minimum when there are overdue inserts, and the far map's first
//!   deadline. Recomputing only when the bound is passed keeps the `peek` walk
//!   to about one per slot reached, not one per operation (a `peek` per call
//!   made a workload with thousands of timers per slot 50 times slower).
//! * **Exact.** The queue rounds deadlines up to whole milliseconds, and ticks
//!   are whole milliseconds, so every timer fires in the first advance that
//!   reaches its deadline: `EXACT`, no declared lateness.
//!
//! # Cost per operation (adapter included)
//!
//! | operation | cost |
//! |---|---|
//! | insert | entering the runtime context + the queue's O(1) slab insert and wheel insert, and re-arming its `Sleep` in the time driver when the new deadline is the earliest + an arena insert |
//! | cancel | entering the context + an arena lookup + the queue's O(1) removal, re-arming the `Sleep` when the next expiration changed |
//! | reschedule | entering the context + the queue's O(1) move and a `Sleep` re-arm |
//! | advance | a `block_on` with one yield and one time-driver turn; per expiration processed, a wheel poll and a new boxed `Sleep`; per fired timer, a `poll_expired` and an arena removal; the cascades of higher-level slots |
//! | next expiry | O(1): the adapter's cached bound (recomputed by an advance that passes it: a `peek`, O(levels + earliest slot's size), and at times a probe) |
//!
//! # Counters
//!
//! All zero: neither the queue nor the runtime reports work counters.
//!
//! # Parameters
//!
//! None to tune. `params()` says
//! `tokio-util=0.7.20,tokio=1.54.1,runtime=current_thread,time=paused`.
//!
//! # What the contract costs here
//!
//! In the reference run (`results/contract_cost.csv`) this adapter took 1.02x
//! (`scaling-1e3`) to 1.36x (`scaling-1e5`) the native row's time, within 1.10x on
//! 6 of the 11 built-ins: the runtime's share (a `block_on` and a time-driver
//! turn per advance, a context entry per operation) is the same for both rows
//! and dominates at small populations; at 10^5 and 10^6 pending the adapter's
//! `Timers` entry, touched by every operation and fired timer for the
//! stale-safe handle (`remove` panics on a stale key), is a cache miss of its
//! own.
//!
//! # The crate as its users call it: `tokio-delay-queue-native`
//!
//! [`TokioDelayQueueNative`] is the same queue on the same paused runtime,
//! driven through its own API as a native row (see [`crate::driven`]): the
//! value is the timer's id, `insert_at(id, start + deadline ms)` returns the
//! crate's `Key`, which the caller keeps in its own record of the timer
//! (`Option`, `None` once the timer fired or was cancelled: `remove` panics on
//! a key the queue no longer holds), `remove(&key)`, `reset_at(&key, at)`, and
//! an advance as above (`tokio::time::advance`, then `poll_expired` until
//! `Pending`). No arena, no far map, no sort. `next_expiry()` is the same
//! bound as above, which is where the runtime's time driver would wake a
//! user's task (the start of the queue's earliest slot); an overdue insert
//! lowers it to its deadline, so the next advance, at the same tick, fires it.
//! It takes ticks up to [`REACH`] ([`TokioDelayQueueNative::TICK_LIMIT`]): the
//! queue's elapsed time is never below 0, so every deadline is within `REACH`
//! of it, away from the crate's bug; a workload that goes further skips it.

use std::future::poll_fn;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::runtime::Runtime;
use tokio::time::Instant;
use tokio_util::time::DelayQueue;
use tokio_util::time::delay_queue::Key;

use super::{Armed, Taken, Timers, begin_advance};
use crate::arena::Handle;
use crate::driven;
use crate::{Algorithm, Counters, Expired, Family, Payload, Tick, TimerQueue, check_deadline};

/// The farthest a deadline may lie past the queue's wheel's elapsed time:
/// tokio's `MAX_DURATION`, 6 levels of 64 slots at 1 ms, `2^36 - 1` ms.
pub const MAX_DURATION: Tick = (1 << 36) - 1;

/// How far past the floor the adapter hands a deadline to the queue: one top
/// slot (2^30 ms) short of [`MAX_DURATION`], to stay clear of the crate's bug
/// with deadlines in the top level's current slot one rotation ahead (see the
/// module documentation).
pub const REACH: Tick = (1 << 36) - (1 << 30);

/// Bits of a tick per wheel level: 64 slots.
const LEVEL_BITS: u32 = 6;

/// The ticks of one level-0 slot run: `when & !SLOT_MASK` is where a slot of
/// 64 starts.
const SLOT_MASK: Tick = (1 << LEVEL_BITS) - 1;

/// The level tokio's wheel puts a deadline `when` in while its elapsed time is
/// `elapsed` (tokio-util's `wheel::level_for`).
fn level_for(elapsed: Tick, when: Tick) -> u32 {
    let masked = ((elapsed ^ when) | SLOT_MASK).min(MAX_DURATION - 1);
    (63 - masked.leading_zeros()) / LEVEL_BITS
}

/// The start of the slot that holds `when` in tokio's wheel, for any elapsed
/// time at or above `floor`: `when` rounded down to the width of its level
/// computed from `floor`, the coarsest it can be.
fn slot_start_bound(floor: Tick, when: Tick) -> Tick {
    let width_bits = LEVEL_BITS * level_for(floor, when);
    when >> width_bits << width_bits
}

/// The queue's elapsed time, read with a probe: a value inserted at tick 0
/// is clamped to the elapsed time and reports it as its deadline; it is
/// removed at once. The probe leaves the queue's `Sleep` armed at the
/// elapsed time, which costs the next advance one extra wheel poll.
fn probe_elapsed<T>(
    queue: &mut DelayQueue<T>,
    runtime: &Runtime,
    start: Instant,
    probe: T,
) -> Tick {
    let _context = runtime.enter();
    let key = queue.insert_at(probe, start);
    let elapsed = (queue.deadline(&key) - start).as_millis();
    queue.remove(&key);
    Tick::try_from(elapsed).expect("the elapsed time is a tick")
}

/// A lower bound on every deadline in `queue` after an advance to `now`,
/// greater than `now`: the start of the queue's earliest slot (see the module
/// doc), or `Tick::MAX` when the queue is empty. `peek` walks that slot; when
/// `floor` is too stale to place it above `now`, a probe (made by `probe`)
/// reads the elapsed time into `floor`. Shared by the adapter and the native
/// row.
fn earliest_slot_bound<T>(
    queue: &mut DelayQueue<T>,
    runtime: &Runtime,
    start: Instant,
    floor: &mut Tick,
    now: Tick,
    probe: impl FnOnce() -> T,
) -> Tick {
    let Some(key) = queue.peek() else {
        return Tick::MAX;
    };
    let when = (queue.deadline(&key) - start).as_millis();
    let when = Tick::try_from(when).expect("within the queue's reach");
    let mut bound = slot_start_bound(*floor, when);
    if bound <= now {
        *floor = probe_elapsed(queue, runtime, start, probe());
        bound = slot_start_bound(*floor, when);
    }
    bound.max(now + 1)
}

/// What the adapter stores in the queue: a timer, or the probe that reads the
/// queue's elapsed time (inserted and removed at once, never fired).
#[derive(Debug)]
enum Item<P> {
    Timer(Armed<P>),
    Probe,
}

/// `tokio-util`'s `DelayQueue` on a paused current-thread runtime, behind the
/// contract. See the module documentation.
pub struct TokioDelayQueue<P> {
    /// Declared before the runtime, so that it (and its `Sleep`) is dropped
    /// first.
    queue: DelayQueue<Item<P>>,
    runtime: Runtime,
    /// The queue's start: tick 0.
    start: Instant,
    timers: Timers<Key, P>,
    /// A lower bound on the queue's wheel's elapsed time: the latest deadline it
    /// fired, rounded down to a multiple of 64 (0 at first), or the elapsed
    /// time itself when last probed. See the module doc.
    floor: Tick,
    /// A lower bound on every deadline in the queue (`Tick::MAX` when none was
    /// ever armed): the start of the queue's earliest slot after an advance that
    /// had to recompute it, lowered by every later arm.
    bound: Tick,
    now: Tick,
}

impl<P> std::fmt::Debug for TokioDelayQueue<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioDelayQueue")
            .field("len", &self.timers.len())
            .field("floor", &self.floor)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<P> Default for TokioDelayQueue<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> TokioDelayQueue<P> {
    /// An empty queue at time 0, on a runtime of its own.
    ///
    /// # Panics
    ///
    /// If the runtime cannot be built.
    pub fn new() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime builds");
        let (queue, start) = {
            let _context = runtime.enter();
            (DelayQueue::new(), Instant::now())
        };
        Self {
            queue,
            runtime,
            start,
            timers: Timers::new(),
            floor: 0,
            bound: Tick::MAX,
            now: 0,
        }
    }

    /// The largest deadline the adapter gives the queue now.
    fn reach(&self) -> Tick {
        self.floor.saturating_add(REACH)
    }

    fn instant(&self, tick: Tick) -> Instant {
        self.start + Duration::from_millis(tick)
    }

    /// Moves the far timers the queue can now take into it.
    fn take_in_far_timers(&mut self) {
        let reach = self.reach();
        let _context = self.runtime.enter();
        while let Some((deadline, index, payload)) = self.timers.pop_far_within(reach) {
            let at = self.start + Duration::from_millis(deadline);
            let key = self
                .queue
                .insert_at(Item::Timer(Armed { payload, index }), at);
            self.bound = self.bound.min(deadline);
            self.timers.set_key(index, key);
        }
    }
}

impl<P> Algorithm for TokioDelayQueue<P> {
    const NAME: &'static str = "tokio-delay-queue";
    const FAMILY: Family = Family::Crate;
    // The crate counts no slot visits, cascades or scans.
    const COUNTS_WORK: bool = false;
    const CLOCK_EPOCH: bool = true;
    const SUMMARY: &'static str = "`tokio-util` 0.7.20 `DelayQueue` on `tokio` 1.54.1 (feature \
         `crate-tokio`): tokio's 6x64 wheel on a paused current-thread runtime advanced in \
         virtual time: its cost includes the runtime's (a `block_on` and a time-driver turn per \
         advance, a context entry per operation, a boxed `Sleep` per wheel poll)";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "tokio-util=0.7.20,tokio=1.54.1,runtime=current_thread,time=paused".to_owned()
    }
}

impl<P> TimerQueue<P> for TokioDelayQueue<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        if deadline > self.reach() {
            return self.timers.insert_far(deadline, payload);
        }
        self.timers.note_armed(deadline, self.now);
        self.bound = self.bound.min(deadline);
        let at = self.instant(deadline);
        let _context = self.runtime.enter();
        let queue = &mut self.queue;
        self.timers.insert_in_crate(deadline, |index| {
            queue.insert_at(Item::Timer(Armed { payload, index }), at)
        })
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        match self.timers.remove(handle)? {
            Taken::InCrate(key) => {
                let _context = self.runtime.enter();
                match self.queue.remove(&key).into_inner() {
                    Item::Timer(armed) => Some(armed.payload),
                    Item::Probe => unreachable!("the probe is never left in the queue"),
                }
            }
            Taken::Far(payload) => Some(payload),
        }
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let (reach, now) = (self.reach(), self.now);
        let at = self.instant(deadline.min(reach));
        let place = self.timers.get_mut(handle)?;
        if deadline <= reach
            && let Some(key) = place.key
        {
            place.deadline = deadline;
            {
                let _context = self.runtime.enter();
                self.queue.reset_at(&key, at);
            }
            self.timers.note_armed(deadline, now);
            self.bound = self.bound.min(deadline);
            return Some(handle);
        }
        // A far timer, or a move to a far deadline: cancel and insert.
        let payload = self.cancel(handle)?;
        Some(self.insert(deadline, payload))
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        let Some(previous) = begin_advance(&mut self.now, now) else {
            return;
        };
        let start = out.len();
        let Self {
            queue,
            runtime,
            timers,
            floor,
            ..
        } = self;
        runtime.block_on(async {
            tokio::time::advance(Duration::from_millis(now - previous)).await;
            // Unconstrained: tokio's cooperative budget (128 polls of a
            // resource per task poll) would otherwise make the queue's `Sleep`
            // report `Pending` part-way through a large batch.
            tokio::task::unconstrained(poll_fn(|_| {
                let mut cx = Context::from_waker(Waker::noop());
                while let Poll::Ready(Some(expired)) = queue.poll_expired(&mut cx) {
                    let Item::Timer(Armed { payload, index }) = expired.into_inner() else {
                        unreachable!("the probe is never left in the queue");
                    };
                    let (_, deadline) = timers.fired(index);
                    *floor = (*floor).max(deadline & !SLOT_MASK);
                    out.push(Expired { payload, deadline });
                }
                Poll::Ready(())
            }))
            .await;
        });
        self.timers.finish_advance(now, previous, out, start, false);
        self.take_in_far_timers();
        if self.bound <= now {
            self.bound = earliest_slot_bound(
                &mut self.queue,
                &self.runtime,
                self.start,
                &mut self.floor,
                now,
                || Item::Probe,
            );
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.timers.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.timers
            .bound(Some(self.bound).filter(|&bound| bound != Tick::MAX))
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

/// What the native row stores in the queue: a timer's id, or the probe.
#[derive(Debug)]
enum NativeItem {
    Timer(Payload),
    Probe,
}

/// `tokio-util`'s `DelayQueue` on a paused current-thread runtime, driven
/// through its own API. See the module documentation.
pub struct TokioDelayQueueNative {
    /// Declared before the runtime, so that it (and its `Sleep`) is dropped
    /// first.
    queue: DelayQueue<NativeItem>,
    runtime: Runtime,
    /// The queue's start: tick 0.
    start: Instant,
    /// A lower bound on the queue's elapsed time, as the adapter's `floor`.
    floor: Tick,
    /// A lower bound on every deadline in the queue, as the adapter's `bound`.
    bound: Tick,
    now: Tick,
}

impl std::fmt::Debug for TokioDelayQueueNative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioDelayQueueNative")
            .field("len", &self.queue.len())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl TokioDelayQueueNative {
    #[inline]
    fn instant(&self, tick: Tick) -> Instant {
        self.start + Duration::from_millis(tick)
    }
}

impl Algorithm for TokioDelayQueueNative {
    const NAME: &'static str = "tokio-delay-queue-native";
    const FAMILY: Family = Family::Crate;
    const COUNTS_WORK: bool = false;
    const CLOCK_EPOCH: bool = true;
    const NATIVE_OF: Option<&'static str> = Some("tokio-delay-queue");
    const TICK_LIMIT: Tick = REACH;
    const SUMMARY: &'static str = "`tokio-util` 0.7.20 `DelayQueue` through its own API, on the \
         same paused runtime: `insert_at(id, at)`, the `Key` kept by the caller (`Option`), \
         `remove(&key)`, `reset_at(&key, at)`, `tokio::time::advance` then `poll_expired` until \
         `Pending`; the same next-slot bound as the adapter; ticks up to about 2.1 years";

    fn with_defaults() -> Self {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime builds");
        let (queue, start) = {
            let _context = runtime.enter();
            (DelayQueue::new(), Instant::now())
        };
        Self {
            queue,
            runtime,
            start,
            floor: 0,
            bound: Tick::MAX,
            now: 0,
        }
    }

    fn params(&self) -> String {
        "tokio-util=0.7.20,tokio=1.54.1,runtime=current_thread,time=paused,api=native".to_owned()
    }
}

impl driven::Driven for TokioDelayQueueNative {
    /// The crate's key, until the timer fires or is cancelled.
    type Key = Option<Key>;

    fn vacant_key() -> Self::Key {
        None
    }

    fn insert(&mut self, deadline: Tick, timer: Payload) -> Self::Key {
        self.bound = self.bound.min(deadline);
        let at = self.instant(deadline);
        let _context = self.runtime.enter();
        Some(self.queue.insert_at(NativeItem::Timer(timer), at))
    }

    fn cancel(&mut self, key: &mut Self::Key, _timer: Payload) -> bool {
        let Some(key) = key.take() else {
            return false;
        };
        let _context = self.runtime.enter();
        self.queue.remove(&key);
        true
    }

    fn reschedule(&mut self, key: &mut Self::Key, _timer: Payload, deadline: Tick) -> bool {
        let Some(key) = *key else {
            return false;
        };
        self.bound = self.bound.min(deadline);
        let at = self.instant(deadline);
        let _context = self.runtime.enter();
        self.queue.reset_at(&key, at);
        true
    }

    fn advance(&mut self, now: Tick, keys: &mut [Self::Key], out: &mut Vec<Expired<Payload>>) {
        if now < self.now {
            return;
        }
        let previous = std::mem::replace(&mut self.now, now);
        let Self {
            queue,
            runtime,
            floor,
            start,
            ..
        } = self;
        runtime.block_on(async {
            tokio::time::advance(Duration::from_millis(now - previous)).await;
            // Unconstrained, as the adapter's (tokio's cooperative budget).
            tokio::task::unconstrained(poll_fn(|_| {
                let mut cx = Context::from_waker(Waker::noop());
                while let Poll::Ready(Some(expired)) = queue.poll_expired(&mut cx) {
                    let deadline =
                        Tick::try_from((expired.deadline() - *start).as_millis()).expect("a tick");
                    let NativeItem::Timer(timer) = expired.into_inner() else {
                        unreachable!("the probe is never left in the queue");
                    };
                    keys[timer as usize] = None;
                    *floor = (*floor).max(deadline & !SLOT_MASK);
                    out.push(Expired {
                        payload: timer,
                        deadline,
                    });
                }
                Poll::Ready(())
            }))
            .await;
        });
        if self.bound <= now {
            self.bound = earliest_slot_bound(
                &mut self.queue,
                &self.runtime,
                self.start,
                &mut self.floor,
                now,
                || NativeItem::Probe,
            );
        }
    }

    fn next_expiry(&self) -> Option<Tick> {
        (!self.queue.is_empty() && self.bound != Tick::MAX).then_some(self.bound)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.queue.len()
    }

    fn reserve(&mut self, _additional: usize) {
        // The queue is measured as it sizes itself, as behind the adapter.
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_for_matches_tokio() {
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(level_for(0, 4_095), 1);
        assert_eq!(level_for(0, 4_096), 2);
        assert_eq!(level_for(4_096, 4_100), 0);
        assert_eq!(level_for(0, MAX_DURATION), 5);
        assert_eq!(level_for(0, 1 << 40), 5, "clamped to the top level");
    }

    #[test]
    fn slot_start_bound_rounds_down_to_the_level_width() {
        assert_eq!(slot_start_bound(0, 50), 50);
        assert_eq!(slot_start_bound(0, 100), 64);
        assert_eq!(slot_start_bound(0, 5_000), 4_096);
        assert_eq!(slot_start_bound(4_990, 5_000), 4_992);
        assert_eq!(slot_start_bound(4_992, 5_000), 5_000);
    }

    /// The crate's bug that [`REACH`] avoids: a timer that the crate accepts
    /// (at most `MAX_DURATION` past its elapsed time) but that lands in the top
    /// level's current slot, one rotation ahead, hides every timer in the later
    /// top-level slots, which then fire a rotation (2^36 ms) late. With
    /// `REACH`, the far timer waits in the adapter's map and the other fires on
    /// time.
    #[test]
    fn a_timer_near_the_crates_limit_does_not_delay_earlier_ones() {
        let mut queue = TokioDelayQueue::new();
        let mut out = Vec::new();
        // Lift the floor (and the crate's elapsed time) off zero.
        queue.insert(1_000, 0);
        queue.advance(1_000, &mut out);
        assert!(queue.floor > 0);
        let near_limit = queue.floor + MAX_DURATION;
        queue.insert(near_limit, 1);
        let earlier = (1 << 33) + 5;
        queue.insert(earlier, 2);
        out.clear();
        queue.advance(earlier, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [(2, earlier)], "the earlier timer fires on time");
        out.clear();
        queue.advance(near_limit, &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn virtual_time_fires_exactly_and_never_sleeps() {
        let mut queue = TokioDelayQueue::new();
        // Two years of virtual time in a few advances.
        let year = 365 * 24 * 3_600 * 1_000;
        queue.insert(2 * year, 'b');
        queue.insert(10, 'a');
        let mut out = Vec::new();
        queue.advance(9, &mut out);
        assert!(out.is_empty());
        queue.advance(10, &mut out);
        queue.advance(2 * year, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [('a', 10), ('b', 2 * year)]);
    }
}

#[cfg(test)]
mod native_tests {
    use super::TokioDelayQueueNative;
    use crate::Algorithm;
    use crate::driven::Driven;

    #[test]
    fn the_native_queue_clears_keys_of_fired_timers_and_misses_after() {
        let mut queue = TokioDelayQueueNative::with_defaults();
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
        let mut fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        fired.sort_unstable();
        assert_eq!(fired, [(0, 5), (2, 6)]);
        assert!(keys.iter().all(Option::is_none));
        assert!(!queue.reschedule(&mut keys[0], 0, 9), "fired already");
        assert_eq!(queue.next_expiry(), None);
        // An overdue insert lowers the bound to its deadline: due now.
        keys.push(queue.insert(3, 3));
        assert!(queue.next_expiry().is_some_and(|at| at <= 6));
        out.clear();
        queue.advance(6, &mut keys, &mut out);
        assert_eq!(out.len(), 1);
    }
}
