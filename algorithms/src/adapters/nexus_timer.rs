//! `nexus-timer` 1.5.0: a hierarchical timer wheel on a slab, measured through
//! an adapter (feature `crate-nexus-timer`).
//!
//! # The crate
//!
//! `nexus_timer::Wheel<T>` (crates.io `nexus-timer`, MIT OR Apache-2.0) is a
//! hierarchical wheel with Linux's shape by default: 1 ms ticks, 64 slots per
//! level, each level 8 times coarser (`clk_shift = 3`), 7 levels (about 4.7
//! hours). A timer goes into the level whose range covers its distance from the
//! wheel's clock, into an unsorted intrusive list; a farther one is clamped into
//! the top level. Unlike Linux it keeps each timer's exact deadline and fires it
//! exactly: a poll walks the active slots (a 64-bit occupancy mask per level)
//! whose cached minimum deadline has been reached, fires the entries that are
//! due and, in `poll_and_rebalance` (the crate's "batteries-included" poll, used
//! here), moves the others down to the finer level they now belong in. Entries
//! live in a `nexus-slab` slab that grows in chunks; cancel is an O(1) unlink
//! through the `TimerHandle` (a pointer, move-only, consumed by `cancel` or
//! `free`). `next_deadline()` is a lower bound: cached, or one compare per active
//! slot from per-slot minima that a cancel leaves stale-low. The crate's README
//! reports p50 schedule 40 cycles, cancel 26, poll 7 per expired timer at 100k
//! pending. The crate's `rust-version` is 1.94, above the workspace's 1.88.
//!
//! # Mapping to the contract
//!
//! | contract | crate |
//! |---|---|
//! | `insert` | `Wheel::schedule(epoch + deadline ms, Armed { payload, index })`; the `TimerHandle` is kept in the adapter's arena (see [`crate::adapters`]) |
//! | `cancel` | `Wheel::cancel(handle)` |
//! | `reschedule` | `Wheel::reschedule(handle, new deadline)`: in place, same handle |
//! | `advance` | `Wheel::poll_and_rebalance(epoch + now ms, buffer)`, then `Wheel::free` of each fired timer's handle (the crate keeps a fired timer's slab entry until its handle is consumed), then a sort |
//! | `next_expiry` | `Wheel::next_deadline()` converted back to ticks (a lower bound) |
//!
//! * **Time.** The wheel takes `std::time::Instant`s. The adapter reads the
//!   clock once, when it is built, for the wheel's epoch, and from then on passes
//!   `epoch + tick ms + 0.5 ms`: the crate converts an `Instant` to ticks with a
//!   reciprocal multiplication that may come out one tick low on an exact tick
//!   boundary, and the half tick makes every conversion exact (the error stays
//!   below half a tick for deadlines below [`HORIZON`]). So the results never
//!   depend on the clock's value; this is the one place `algorithms` reads a
//!   clock (see ARCHITECTURE.md's invariants).
//! * **Order.** A poll walks levels from finest to coarsest and each level's slots
//!   by index, not by time, and a slot's list is unsorted: a batch comes out in no
//!   particular order. The adapter sorts each advance's batch by deadline
//!   (`sort_unstable`, O(k log k) for k fired, O(k) when already in order); that
//!   sort is part of the measured cost, as it would be for any user who needs
//!   deadline order.
//! * **Far deadlines.** The crate measures time in `u64` nanoseconds from its
//!   epoch (about 584 years) and saturates beyond. Deadlines from [`HORIZON`]
//!   (2^43 ms, about 278 years) on are kept in the adapter's far map and fired
//!   from there; no workload comes near.
//! * **Exact.** Every timer fires in the first advance that reaches its deadline:
//!   `EXACT`, no declared lateness.
//!
//! # Cost per operation (adapter included)
//!
//! | operation | cost |
//! |---|---|
//! | insert | the crate's O(1) schedule (level choice, list push, slab slot) + an arena insert |
//! | cancel | an arena lookup + the crate's O(1) unlink and slab free |
//! | reschedule | an arena lookup + the crate's O(1) move |
//! | advance | the crate's poll: O(active slots reached + entries walked in them + entries rebalanced); per fired timer, an arena removal and a `free`; an O(k log k) sort |
//! | next expiry | O(1) cached, else O(active slots) |
//!
//! # Counters
//!
//! All zero: the crate reports no work counters, and the adapter does not
//! reach into it to count slot visits or rebalances.
//!
//! # Parameters
//!
//! The crate's defaults ([`WheelBuilder::default`]), with a slab chunk of
//! [`CHUNK`] entries: `params()` says `nexus-timer=1.5.0,tick=1ms,slots=64,
//! clk_shift=3,levels=7,chunk=4096,poll=poll_and_rebalance`.
//!
//! # What the contract costs here
//!
//! In the reference run (`results/contract_cost.csv`) this adapter took 1.02x
//! (`sparse`) to 1.39x (`bimodal`) the native row's time, within 1.10x on 6 of
//! the 11 built-ins, and 1.53x on `workloads/examples/dense-timeouts.toml` (50
//! timers armed per tick, 95% cancelled: 16.4 against 10.7 ns). The gap is the
//! contract's, not fixable glue: every insert, cancel, reschedule and fired
//! timer also touches the adapter's `Timers` entry (the stale-safe handle and
//! the deadline as inserted, which the crate does not give back), the crate's
//! value is 16 bytes (payload and index) where a user stores an 8-byte id, and
//! each batch is sorted into deadline order. It is largest where operations are
//! cheapest and most numerous per fired timer (reschedules on `bimodal`,
//! cancels on the dense tape), and nearly nothing where the crate's own poll
//! dominates (`sparse`, `periodic`).
//!
//! # The crate as its users call it: `nexus-timer-native`
//!
//! [`NexusTimerNative`] is the same wheel driven the way the crate's README
//! shows, as a native row (see [`crate::driven`]): the caller keeps each
//! timer's `TimerHandle` in its own record of the timer (`Option`, `None`
//! once it is consumed), the wheel's value is the timer's id,
//! `schedule(origin + deadline ms, id)`, `cancel(handle)`,
//! `reschedule(handle, at)`, and `poll_and_rebalance(origin + now ms, buf)`
//! followed, per fired id, by `free` of the handle its record holds (the crate
//! keeps a fired entry until its handle is consumed). No arena, no far map, no
//! sort: a batch comes out in the crate's order. It reaches
//! [`NexusTimerNative::TICK_LIMIT`] (just below [`HORIZON`]); a workload that
//! goes further skips it.

use std::time::{Duration, Instant};

use nexus_timer::{TimerHandle, Wheel, WheelBuilder};

use super::{Armed, Taken, Timers, begin_advance};
use crate::arena::Handle;
use crate::driven;
use crate::{Algorithm, Counters, Expired, Family, Payload, Tick, TimerQueue, check_deadline};

/// Deadlines from here on (2^43 ms, about 278 years) are kept in the adapter's
/// far map: below it the crate's tick conversion is exact (see the module doc).
pub const HORIZON: Tick = 1 << 43;

/// Entries per slab chunk: the crate's README's example value. The slab grows by
/// one chunk when full, so this is the allocation granularity.
pub const CHUNK: usize = 4096;

/// `nexus-timer`'s `Wheel` behind the contract. See the module documentation.
pub struct NexusTimer<P: 'static> {
    wheel: Wheel<Armed<P>>,
    /// The wheel's epoch: tick 0.
    epoch: Instant,
    /// Half a tick past the epoch: the instant given for tick `t` is
    /// `origin + t ms` (see *Time* above).
    origin: Instant,
    timers: Timers<TimerHandle<Armed<P>>, P>,
    /// The buffer `poll_and_rebalance` appends to, reused by every advance.
    fired: Vec<Armed<P>>,
    now: Tick,
}

impl<P: 'static> std::fmt::Debug for NexusTimer<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NexusTimer")
            .field("len", &self.timers.len())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<P: 'static> Default for NexusTimer<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P: 'static> NexusTimer<P> {
    /// An empty wheel with the crate's default configuration, at time 0.
    pub fn new() -> Self {
        let epoch = Instant::now();
        Self {
            wheel: WheelBuilder::default()
                .unbounded(CHUNK)
                .build(epoch)
                .expect("the default configuration is valid"),
            epoch,
            origin: epoch + Duration::from_micros(500),
            timers: Timers::new(),
            fired: Vec::new(),
            now: 0,
        }
    }

    /// The instant the crate sees for `tick` (below [`HORIZON`]): half a tick
    /// past it, so that the crate's conversion back gives exactly `tick`.
    fn instant(&self, tick: Tick) -> Instant {
        debug_assert!(tick <= HORIZON, "tick {tick} beyond the horizon");
        self.origin + Duration::from_millis(tick)
    }

    /// A tick from an instant the crate computed from its ticks (exact ms).
    fn tick(&self, instant: Instant) -> Tick {
        Tick::try_from((instant - self.epoch).as_millis()).expect("below the horizon")
    }
}

impl<P: 'static> Drop for NexusTimer<P> {
    /// Consumes every outstanding `TimerHandle`, as the crate requires (it
    /// asserts in debug builds that none is dropped unconsumed).
    fn drop(&mut self) {
        let wheel = &mut self.wheel;
        self.timers.clear(|key| {
            wheel.cancel(key);
        });
    }
}

impl<P: 'static> Algorithm for NexusTimer<P> {
    const NAME: &'static str = "nexus-timer";
    const FAMILY: Family = Family::Crate;
    // The crate counts no slot visits, cascades or scans.
    const COUNTS_WORK: bool = false;
    const CLOCK_EPOCH: bool = true;
    const SUMMARY: &'static str = "`nexus-timer` 1.5.0 (feature `crate-nexus-timer`): \
         hierarchical wheel (64 slots, 8x levels) keeping exact deadlines, rebalanced on poll; \
         the adapter sorts each batch (the crate fires in slot order). Needs Rust 1.94";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!(
            "nexus-timer=1.5.0,tick=1ms,slots=64,clk_shift=3,levels=7,chunk={CHUNK},\
             poll=poll_and_rebalance"
        )
    }
}

impl<P: 'static> TimerQueue<P> for NexusTimer<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        if deadline >= HORIZON {
            return self.timers.insert_far(deadline, payload);
        }
        let at = self.instant(deadline);
        let wheel = &mut self.wheel;
        self.timers.insert_in_crate(deadline, |index| {
            wheel.schedule(at, Armed { payload, index })
        })
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        match self.timers.remove(handle)? {
            Taken::InCrate(key) => {
                let armed = self
                    .wheel
                    .cancel(key)
                    .expect("a pending timer has not fired");
                Some(armed.payload)
            }
            Taken::Far(payload) => Some(payload),
        }
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let at = self.instant(deadline.min(HORIZON));
        let place = self.timers.get_mut(handle)?;
        if deadline < HORIZON
            && let Some(key) = place.key.take()
        {
            place.key = Some(self.wheel.reschedule(key, at));
            place.deadline = deadline;
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
        // Every wheel deadline is below the horizon, so polling there fires the
        // same timers as polling at any later `now`.
        let poll_at = self.instant(now.min(HORIZON));
        self.wheel.poll_and_rebalance(poll_at, &mut self.fired);
        for Armed { payload, index } in self.fired.drain(..) {
            let (key, deadline) = self.timers.fired(index);
            // The crate keeps a fired timer's entry for its handle: release it.
            self.wheel.free(key);
            out.push(Expired { payload, deadline });
        }
        self.timers.finish_advance(now, previous, out, start, true);
    }

    fn reserve(&mut self, additional: usize) {
        self.timers.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        let in_wheel = self.wheel.next_deadline().map(|at| self.tick(at));
        self.timers.bound(in_wheel)
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

/// `nexus-timer`'s `Wheel` driven through its own API. See the module
/// documentation.
pub struct NexusTimerNative {
    wheel: Wheel<Payload>,
    /// The wheel's epoch: the crate's tick 0, from which it converts ticks
    /// back to instants.
    epoch: Instant,
    /// Half a tick past the epoch (see the module documentation's *Time*):
    /// the instant given for tick `t` is `origin + t ms`.
    origin: Instant,
    /// The buffer `poll_and_rebalance` appends to, reused by every advance.
    fired: Vec<Payload>,
    now: Tick,
}

impl std::fmt::Debug for NexusTimerNative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NexusTimerNative")
            .field("len", &self.wheel.len())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl NexusTimerNative {
    /// The instant the crate is given for `tick`.
    #[inline]
    fn instant(&self, tick: Tick) -> Instant {
        self.origin + Duration::from_millis(tick)
    }
}

impl Algorithm for NexusTimerNative {
    const NAME: &'static str = "nexus-timer-native";
    const FAMILY: Family = Family::Crate;
    const COUNTS_WORK: bool = false;
    const CLOCK_EPOCH: bool = true;
    const NATIVE_OF: Option<&'static str> = Some("nexus-timer");
    const TICK_LIMIT: Tick = HORIZON - 1;
    const SUMMARY: &'static str = "`nexus-timer` 1.5.0 through its own API: \
         `Wheel::schedule(origin + deadline ms, id)`, the `TimerHandle` kept by the caller \
         (`Option`, per timer), `cancel(handle)`, `reschedule(handle, at)`, \
         `poll_and_rebalance(origin + now ms, buf)` then `free` of each fired timer's handle, \
         `next_deadline()` once per wakeup; no arena, no sort";

    fn with_defaults() -> Self {
        let epoch = Instant::now();
        Self {
            wheel: WheelBuilder::default()
                .unbounded(CHUNK)
                .build(epoch)
                .expect("the default configuration is valid"),
            epoch,
            origin: epoch + Duration::from_micros(500),
            fired: Vec::new(),
            now: 0,
        }
    }

    fn params(&self) -> String {
        format!(
            "nexus-timer=1.5.0,tick=1ms,slots=64,clk_shift=3,levels=7,chunk={CHUNK},\
             poll=poll_and_rebalance,api=native"
        )
    }
}

impl driven::Driven for NexusTimerNative {
    /// The crate's handle, until it is consumed.
    type Key = Option<TimerHandle<Payload>>;

    fn vacant_key() -> Self::Key {
        None
    }

    #[inline]
    fn insert(&mut self, deadline: Tick, timer: Payload) -> Self::Key {
        Some(self.wheel.schedule(self.instant(deadline), timer))
    }

    #[inline]
    fn cancel(&mut self, key: &mut Self::Key, _timer: Payload) -> bool {
        // A fired timer's handle was freed when it fired, so a handle still
        // held is a pending timer's.
        key.take()
            .is_some_and(|handle| self.wheel.cancel(handle).is_some())
    }

    #[inline]
    fn reschedule(&mut self, key: &mut Self::Key, _timer: Payload, deadline: Tick) -> bool {
        let Some(handle) = key.take() else {
            return false;
        };
        *key = Some(self.wheel.reschedule(handle, self.instant(deadline)));
        true
    }

    #[inline]
    fn advance(&mut self, now: Tick, keys: &mut [Self::Key], out: &mut Vec<Expired<Payload>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        let at = self.instant(now);
        self.wheel.poll_and_rebalance(at, &mut self.fired);
        for timer in self.fired.drain(..) {
            if let Some(handle) = keys[timer as usize].take() {
                self.wheel.free(handle);
            }
            // The wheel's value is the id alone; the timer fired at `now`.
            out.push(Expired {
                payload: timer,
                deadline: now,
            });
        }
    }

    #[inline]
    fn next_expiry(&self) -> Option<Tick> {
        self.wheel
            .next_deadline()
            .map(|at| Tick::try_from((at - self.epoch).as_millis()).unwrap_or(Tick::MAX))
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.wheel.len()
    }

    fn reserve(&mut self, _additional: usize) {
        // The crate's slab grows by chunks and has no reserve.
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }

    fn release(&mut self, keys: &mut [Self::Key]) {
        for handle in keys.iter_mut().filter_map(Option::take) {
            self.wheel.cancel(handle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_comes_out_in_deadline_order() {
        let mut wheel = NexusTimer::new();
        // Different levels and slots, inserted out of order.
        for (p, d) in [(0, 5_000), (1, 3), (2, 70), (3, 600), (4, 2)].into_iter() {
            wheel.insert(d, p);
        }
        let mut out = Vec::new();
        wheel.advance(10_000, &mut out);
        let deadlines: Vec<_> = out.iter().map(|e| e.deadline).collect();
        assert_eq!(deadlines, [2, 3, 70, 600, 5_000]);
    }

    #[test]
    fn tick_boundaries_are_exact() {
        let mut wheel = NexusTimer::new();
        wheel.insert(1, 'a');
        let mut out = Vec::new();
        wheel.advance(0, &mut out);
        assert!(out.is_empty(), "a deadline of 1 does not fire at 0");
        assert_eq!(wheel.next_expiry(), Some(1));
        wheel.advance(1, &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn dropping_with_pending_timers_consumes_their_handles() {
        let mut wheel = NexusTimer::new();
        wheel.insert(10, 1u64);
        wheel.insert(HORIZON, 2);
        let fired = wheel.insert(1, 3);
        let mut out = Vec::new();
        wheel.advance(1, &mut out);
        assert_eq!(wheel.cancel(fired), None);
        drop(wheel);
    }
}

#[cfg(test)]
mod native_tests {
    use super::NexusTimerNative;
    use crate::Algorithm;
    use crate::driven::Driven;

    #[test]
    fn the_native_wheel_frees_fired_handles_and_misses_after() {
        let mut wheel = NexusTimerNative::with_defaults();
        let mut keys: Vec<_> = [5, 70, 600]
            .into_iter()
            .zip(0..)
            .map(|(d, t)| wheel.insert(d, t))
            .collect();
        assert!(wheel.cancel(&mut keys[1], 1));
        assert!(wheel.reschedule(&mut keys[2], 2, 6));
        let mut out = Vec::new();
        wheel.advance(5, &mut keys, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(wheel.next_expiry(), Some(6));
        wheel.advance(6, &mut keys, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [(0, 5), (2, 6)]);
        assert!(keys.iter().all(Option::is_none), "every handle consumed");
        assert!(!wheel.cancel(&mut keys[0], 0));
        assert!(!wheel.reschedule(&mut keys[2], 2, 9));
        assert_eq!(wheel.len(), 0);
        let mut pending = vec![wheel.insert(50, 0)];
        wheel.release(&mut pending);
    }
}
