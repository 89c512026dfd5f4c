//! `hierarchical_hash_wheel_timer` 1.4.0: a ticked four-level wheel with
//! cancellation by id, measured through an adapter (feature
//! `crate-hash-wheel-timer`).
//!
//! # The crate
//!
//! `hierarchical_hash_wheel_timer::wheels::cancellable::QuadWheelWithOverflow<E>`
//! (crates.io `hierarchical_hash_wheel_timer`, repository
//! Bathtor/rust-hash-wheel-timer, MIT, built with
//! its default `fx-hash` map) is the low-level wheel under the crate's threaded
//! and manual timers. Four byte-wide levels of 256 slots cover one `u32` cycle of
//! ticks (1 ms each: about 49.7 days); a longer delay goes to an overflow `Vec`
//! that is re-scheduled once per cycle. A timer is an `Rc<E>`: the wheel's slots
//! hold `Weak` references and a hash map from the entry's id holds the `Rc`.
//! `cancel(id)` only removes the map entry, so a cancelled timer stays in its
//! slot as a dead `Weak` until its slot is reached and pruned. The wheel is
//! *ticked*: `tick()` moves it one tick and returns a `Vec` of the timers that
//! fired, cascading a coarser slot when a finer level wraps; `can_skip()` says
//! how many ticks may be skipped with `skip(n)`: none while the finest level
//! holds anything (live or dead), else up to the end of the finest occupied
//! level's current span. A zero delay is refused (`Expired`).
//!
//! # Mapping to the contract
//!
//! | contract | crate |
//! |---|---|
//! | `insert` | `insert_ref_with_delay(Rc::new(Entry { id: handle }), deadline - now ms)`; the payload stays in the adapter's arena, keyed by the contract's handle, which is also the crate's id |
//! | `cancel` | `cancel(&handle)`: a hash-map removal |
//! | `reschedule` | the default: cancel and insert (the crate has no move) |
//! | `advance` | `can_skip()` then `skip(n)` or `tick()`, until the wheel's clock reaches `now` (or at once, when the wheel is empty) |
//! | `next_expiry` | the wheel's clock plus what `can_skip()` allows plus one: `now + 1` while the finest level holds anything |
//!
//! * **Overdue inserts** (a zero or negative delay, which the crate refuses) and
//!   **far deadlines** wait in the adapter's map (see [`crate::adapters`]); the
//!   far ones move into the wheel when they come within [`MAX_DELAY`], and
//!   either fires from the map if it is due first.
//! * **A bug in the crate, and [`MAX_DELAY`]**, `2^32 - 2^24 - 1` ticks (about
//!   49 days), not the crate's `2^32 - 1`. A delay within 2^24 of the crate's
//!   limit that crosses the end of the wheel's `u32` cycle wraps its absolute
//!   time back into the top level's current byte; the crate then places it by
//!   its lower bytes into a finer level, where it fires almost a whole cycle
//!   (about 49.7 days) **early**. The unit test
//!   `delays_near_the_cycle_stay_out_of_the_wheel_until_in_reach` shows it when
//!   `MAX_DELAY` is raised to the crate's limit (a timer due at 4,299,967,291
//!   fired at 5,000,251). The adapter never hands the crate such a delay (so the
//!   crate's own overflow list is never used either). No workload comes near.
//! * **Exact.** Each tick fires exactly the timers due at it, so every timer
//!   fires in the first advance that reaches its deadline: `EXACT`, no declared
//!   lateness.
//!
//! # Cost per operation (adapter included)
//!
//! | operation | cost |
//! |---|---|
//! | insert | an `Rc` allocation, a hash-map insert, a slot push + an arena insert |
//! | cancel | a hash-map removal (the dead `Weak` is pruned later) + an arena removal |
//! | advance | one `tick()` per tick while the finest level is occupied (a `Vec` per tick that fires or cascades; each fired timer a hash-map removal and an arena removal), one `skip` per idle span; the cascades |
//! | next expiry | O(1): `can_skip()` |
//!
//! Like the ticked wheels here, it makes an event-driven caller wake every tick
//! while a timer (or a dead one) is within 256 ticks; unlike them, it allocates
//! per insert and per firing tick.
//!
//! # Counters
//!
//! All zero: the crate reports no work counters (its ticks, skips and
//! cascades happen inside it).
//!
//! # Parameters
//!
//! None: the crate's constants. `params()` says
//! `hierarchical_hash_wheel_timer=1.4.0,levels=4x256,hash=fx`.
//!
//! # What the contract costs here
//!
//! In the reference run (`results/contract_cost.csv`) this adapter took 1.12x
//! (`periodic`) to 1.32x (`sparse`) the native row's time on the 10 built-ins
//! the native row runs (it skips `far-future`, whose delays pass
//! [`MAX_DELAY`]); it is above 1.10x on all of them. The crate keys its timers
//! by an id in its own hash map, which a user's id serves directly; the
//! contract needs the payload and the deadline as inserted beside it, so the
//! adapter keeps them in `Timers`, keyed by the handle it gives the crate as the
//! id: one more memory region per insert, cancel and fired timer, and a 16-byte
//! hashed key where the native row hashes a `u64`. The gap is the contract's.
//!
//! # The crate as its users call it: `hash-wheel-timer-native`
//!
//! [`HashWheelTimerNative`] is the same wheel driven through its own API, as a
//! native row (see [`crate::driven`]): the crate's entry is the timer's id
//! ([`NativeEntry`]), which is all the caller keeps to cancel it;
//! `insert_ref_with_delay(Rc::new(entry), delay)`, `cancel(&id)` (whose result
//! says whether the timer was pending), a reschedule as `cancel` then an insert
//! (the crate has no move), and the same `can_skip` / `skip` / `tick` loop as
//! the adapter. No arena and no far map. What a user must add, it adds: the
//! crate refuses a zero delay, so a timer armed at or before the current tick
//! waits in a short list that the next advance fires first (the caller's key
//! says whether a timer is in it). It takes delays up to [`MAX_DELAY`]
//! ([`HashWheelTimerNative::DELAY_LIMIT`]), below the crate's bug; a workload
//! with a longer delay skips it.

use std::rc::Rc;
use std::time::Duration;

use hierarchical_hash_wheel_timer::wheels::Skip;
use hierarchical_hash_wheel_timer::wheels::cancellable::{
    CancellableTimerEntry, QuadWheelWithOverflow,
};

use super::{Taken, Timers, begin_advance};
use crate::arena::Handle;
use crate::driven;
use crate::{Algorithm, Counters, Expired, Family, Payload, Tick, TimerQueue, check_deadline};

/// The longest delay the adapter hands the crate: one top-level byte (2^24
/// ticks) short of its `u32` cycle, so that no absolute time wraps into the top
/// level's current byte (see the module documentation).
pub const MAX_DELAY: Tick = (1 << 32) - (1 << 24) - 1;

/// Moves `wheel`, whose clock stands at `wheel_now`, to `now`: skips what
/// `can_skip()` allows, ticks the rest, and hands every timer fired to `fired`
/// with the tick it fired at. The loop a user of the crate writes, shared by
/// the adapter and the native row.
#[inline]
fn run_wheel_to<E: CancellableTimerEntry>(
    wheel: &mut QuadWheelWithOverflow<E>,
    wheel_now: &mut Tick,
    now: Tick,
    mut fired: impl FnMut(Rc<E>, Tick),
) {
    while *wheel_now < now {
        match wheel.can_skip() {
            Skip::Empty => *wheel_now = now,
            Skip::Millis(most) => {
                let step = u32::try_from(now - *wheel_now).map_or(most, |gap| gap.min(most));
                wheel.skip(step);
                *wheel_now += Tick::from(step);
            }
            Skip::None => {
                *wheel_now += 1;
                for entry in wheel.tick() {
                    fired(entry, *wheel_now);
                }
            }
        }
    }
}

/// The crate's timer entry: just the id, which is the contract's handle.
#[derive(Debug)]
struct Entry {
    id: Handle,
}

impl CancellableTimerEntry for Entry {
    type Id = Handle;

    fn id(&self) -> &Handle {
        &self.id
    }
}

/// `hierarchical_hash_wheel_timer`'s cancellable quad wheel behind the
/// contract. See the module documentation.
pub struct HashWheelTimer<P> {
    wheel: QuadWheelWithOverflow<Entry>,
    /// The payloads, by handle: here the crate's "key" is the payload itself.
    timers: Timers<P, P>,
    /// The tick the wheel's clock stands at (the crate counts relative ticks).
    wheel_now: Tick,
    now: Tick,
}

impl<P> std::fmt::Debug for HashWheelTimer<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashWheelTimer")
            .field("len", &self.timers.len())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl<P> Default for HashWheelTimer<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> HashWheelTimer<P> {
    /// An empty wheel at time 0.
    pub fn new() -> Self {
        Self {
            wheel: QuadWheelWithOverflow::new(),
            timers: Timers::new(),
            wheel_now: 0,
            now: 0,
        }
    }

    /// Schedules the timer of `handle` in the wheel, `deadline - now` ticks
    /// ahead (at least 1, at most [`MAX_DELAY`]).
    fn arm(&mut self, handle: Handle, deadline: Tick) {
        debug_assert_eq!(self.wheel_now, self.now, "the wheel is at the clock");
        let delay = deadline - self.now;
        debug_assert!((1..=MAX_DELAY).contains(&delay), "delay {delay}");
        let entry = Rc::new(Entry { id: handle });
        if self
            .wheel
            .insert_ref_with_delay(entry, Duration::from_millis(delay))
            .is_err()
        {
            unreachable!("a delay of 1 to MAX_DELAY ticks is accepted");
        }
    }

    /// Moves the far timers that have come within [`MAX_DELAY`] into the wheel.
    fn take_in_far_timers(&mut self) {
        let reach = self.now.saturating_add(MAX_DELAY);
        while let Some((deadline, index, payload)) = self.timers.pop_far_within(reach) {
            self.timers.set_key(index, payload);
            let handle = self.timers.handle_at(index);
            self.arm(handle, deadline);
        }
    }
}

impl<P> Algorithm for HashWheelTimer<P> {
    const NAME: &'static str = "hash-wheel-timer";
    const FAMILY: Family = Family::Crate;
    // The crate counts no slot visits, cascades or scans.
    const COUNTS_WORK: bool = false;
    const SUMMARY: &'static str = "`hierarchical_hash_wheel_timer` 1.4.0 (feature \
         `crate-hash-wheel-timer`): ticked 4 x 256-slot wheel over a `u32` cycle; `Rc` entries, \
         cancel by id in a hash map (lazy: dead entries stay until reached), an allocation per \
         insert. Needs Rust 1.94.1";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "hierarchical_hash_wheel_timer=1.4.0,levels=4x256,hash=fx".to_owned()
    }
}

impl<P> TimerQueue<P> for HashWheelTimer<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        if deadline <= self.now || deadline - self.now > MAX_DELAY {
            return self.timers.insert_far(deadline, payload);
        }
        let handle = self.timers.insert_in_crate(deadline, |_| payload);
        self.arm(handle, deadline);
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        match self.timers.remove(handle)? {
            Taken::InCrate(payload) => {
                let cancelled = self.wheel.cancel(&handle);
                debug_assert!(cancelled.is_ok(), "a pending timer is in the map");
                Some(payload)
            }
            Taken::Far(payload) => Some(payload),
        }
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        let Some(previous) = begin_advance(&mut self.now, now) else {
            return;
        };
        let start = out.len();
        let timers = &mut self.timers;
        run_wheel_to(&mut self.wheel, &mut self.wheel_now, now, |entry, tick| {
            let (payload, deadline) = timers.fired(entry.id.index());
            debug_assert_eq!(deadline, tick, "fired at its tick");
            out.push(Expired { payload, deadline });
        });
        self.timers.finish_advance(now, previous, out, start, false);
        self.take_in_far_timers();
    }

    fn reserve(&mut self, additional: usize) {
        self.timers.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        let in_wheel = match self.wheel.can_skip() {
            Skip::Empty => None,
            Skip::Millis(most) => Some(self.wheel_now + Tick::from(most) + 1),
            Skip::None => Some(self.wheel_now + 1),
        };
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

/// The native row's entry in the crate: the timer's id and nothing else.
#[derive(Debug)]
pub struct NativeEntry {
    id: Payload,
}

impl CancellableTimerEntry for NativeEntry {
    type Id = Payload;

    fn id(&self) -> &Payload {
        &self.id
    }
}

/// `hierarchical_hash_wheel_timer`'s cancellable quad wheel driven through its
/// own API. See the module documentation.
pub struct HashWheelTimerNative {
    wheel: QuadWheelWithOverflow<NativeEntry>,
    /// Timers armed at or before the current tick, which the crate refuses:
    /// fired by the next advance.
    due: Vec<Payload>,
    /// Timers in the wheel.
    in_wheel: usize,
    /// The tick the wheel's clock stands at.
    wheel_now: Tick,
    now: Tick,
}

impl std::fmt::Debug for HashWheelTimerNative {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HashWheelTimerNative")
            .field("in_wheel", &self.in_wheel)
            .field("due", &self.due.len())
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl HashWheelTimerNative {
    /// Arms `timer` at `deadline`: in the wheel, or (at or before now) in the
    /// due list. Returns the caller's key: whether it went to the due list.
    #[inline]
    fn arm(&mut self, deadline: Tick, timer: Payload) -> bool {
        if deadline <= self.now {
            self.due.push(timer);
            return true;
        }
        let delay = Duration::from_millis(deadline - self.now);
        if self
            .wheel
            .insert_ref_with_delay(Rc::new(NativeEntry { id: timer }), delay)
            .is_err()
        {
            unreachable!("a delay of at least 1 tick is accepted");
        }
        self.in_wheel += 1;
        false
    }

    /// Takes a pending timer out, wherever it is; says whether it was pending.
    #[inline]
    fn disarm(&mut self, in_due: &mut bool, timer: Payload) -> bool {
        if std::mem::take(in_due) {
            let at = self
                .due
                .iter()
                .position(|&t| t == timer)
                .expect("a timer marked due is in the due list");
            self.due.swap_remove(at);
            return true;
        }
        let hit = self.wheel.cancel(&timer).is_ok();
        self.in_wheel -= usize::from(hit);
        hit
    }
}

impl Algorithm for HashWheelTimerNative {
    const NAME: &'static str = "hash-wheel-timer-native";
    const FAMILY: Family = Family::Crate;
    const COUNTS_WORK: bool = false;
    const NATIVE_OF: Option<&'static str> = Some("hash-wheel-timer");
    const DELAY_LIMIT: Tick = MAX_DELAY;
    const SUMMARY: &'static str = "`hierarchical_hash_wheel_timer` 1.4.0 through its own API: \
         `insert_ref_with_delay(Rc::new(entry { id }), delay)`, `cancel(&id)` (the caller keeps \
         only the id), a reschedule as cancel then insert, `can_skip`/`skip`/`tick`; a zero \
         delay (refused by the crate) waits in a short list for the next advance; delays up to \
         about 49.5 days (it skips `far-future`)";

    fn with_defaults() -> Self {
        Self {
            wheel: QuadWheelWithOverflow::new(),
            due: Vec::new(),
            in_wheel: 0,
            wheel_now: 0,
            now: 0,
        }
    }

    fn params(&self) -> String {
        "hierarchical_hash_wheel_timer=1.4.0,levels=4x256,hash=fx,api=native".to_owned()
    }
}

impl driven::Driven for HashWheelTimerNative {
    /// Whether the timer waits in the due list (armed at or before its tick).
    type Key = bool;

    /// Not in the due list; a cancel by its id finds nothing in the wheel.
    fn vacant_key() -> bool {
        false
    }

    #[inline]
    fn insert(&mut self, deadline: Tick, timer: Payload) -> bool {
        self.arm(deadline, timer)
    }

    #[inline]
    fn cancel(&mut self, key: &mut bool, timer: Payload) -> bool {
        self.disarm(key, timer)
    }

    #[inline]
    fn reschedule(&mut self, key: &mut bool, timer: Payload, deadline: Tick) -> bool {
        if !self.disarm(key, timer) {
            return false;
        }
        *key = self.arm(deadline, timer);
        true
    }

    fn advance(&mut self, now: Tick, keys: &mut [bool], out: &mut Vec<Expired<Payload>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        for timer in self.due.drain(..) {
            keys[timer as usize] = false;
            out.push(Expired {
                payload: timer,
                deadline: now,
            });
        }
        let in_wheel = &mut self.in_wheel;
        run_wheel_to(&mut self.wheel, &mut self.wheel_now, now, |entry, tick| {
            *in_wheel -= 1;
            out.push(Expired {
                payload: entry.id,
                deadline: tick,
            });
        });
    }

    #[inline]
    fn next_expiry(&self) -> Option<Tick> {
        if !self.due.is_empty() {
            return Some(self.now);
        }
        // Cancelled timers stay in their slots until reached: with nothing
        // pending, there is nothing to wake for (as the adapter reports).
        if self.in_wheel == 0 {
            return None;
        }
        match self.wheel.can_skip() {
            Skip::Empty => None,
            Skip::Millis(most) => Some(self.wheel_now + Tick::from(most) + 1),
            Skip::None => Some(self.wheel_now + 1),
        }
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.in_wheel + self.due.len()
    }

    fn reserve(&mut self, _additional: usize) {
        // The crate's map and slots grow as they fill.
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_idle_spans_and_fires_on_the_tick() {
        let mut wheel = HashWheelTimer::new();
        wheel.insert(70_000, 'b');
        wheel.insert(300, 'a');
        let cancelled = wheel.insert(301, 'x');
        assert_eq!(wheel.cancel(cancelled), Some('x'));
        let mut out = Vec::new();
        wheel.advance(299, &mut out);
        assert!(out.is_empty());
        wheel.advance(100_000, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [('a', 300), ('b', 70_000)]);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn delays_near_the_cycle_stay_out_of_the_wheel_until_in_reach() {
        let mut wheel = HashWheelTimer::new();
        let mut out = Vec::new();
        // Move the wheel's clock off zero, into the cycle.
        wheel.insert(5_000_000, 0);
        wheel.advance(5_000_000, &mut out);
        let far = wheel.now() + (1 << 32) - 5;
        wheel.insert(far, 1);
        let near = wheel.now() + 10_000_000;
        wheel.insert(near, 2);
        out.clear();
        wheel.advance(near, &mut out);
        assert_eq!(out.len(), 1, "only the near timer: {out:?}");
        out.clear();
        wheel.advance(far, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].deadline, far);
    }
}

#[cfg(test)]
mod native_tests {
    use super::HashWheelTimerNative;
    use crate::Algorithm;
    use crate::driven::Driven;

    #[test]
    fn the_native_wheel_fires_by_id_and_misses_after() {
        let mut wheel = HashWheelTimerNative::with_defaults();
        let mut keys: Vec<_> = [5, 70, 600]
            .into_iter()
            .zip(0..)
            .map(|(d, t)| wheel.insert(d, t))
            .collect();
        assert!(wheel.cancel(&mut keys[1], 1));
        assert!(!wheel.cancel(&mut keys[1], 1), "cancelled already");
        assert!(wheel.reschedule(&mut keys[2], 2, 6));
        let mut out = Vec::new();
        wheel.advance(6, &mut keys, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [(0, 5), (2, 6)]);
        assert!(!wheel.reschedule(&mut keys[0], 0, 9), "fired already");
        assert_eq!(wheel.next_expiry(), None);
        // An overdue insert waits in the due list, cancellable, until the next
        // advance, even one at the same tick.
        keys.push(wheel.insert(4, 3));
        keys.push(wheel.insert(6, 4));
        assert_eq!(wheel.next_expiry(), Some(6));
        assert!(wheel.cancel(&mut keys[3], 3));
        out.clear();
        wheel.advance(6, &mut keys, &mut out);
        let fired: Vec<_> = out.iter().map(|e| e.payload).collect();
        assert_eq!(fired, [4]);
        assert_eq!(wheel.len(), 0);
    }
}
