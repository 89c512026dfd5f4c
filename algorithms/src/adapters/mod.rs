//! Adapters that put published timer crates behind [`TimerQueue`](crate::TimerQueue), so that they
//! are measured on the same workloads and held to the same conformance suite as
//! the algorithms written here.
//!
//! Each adapter is one file behind a Cargo feature of its own, all on by default
//! (`cargo build --no-default-features` builds none of them and pulls in no
//! third-party crate):
//!
//! | file | feature | crate, version measured |
//! |---|---|---|
//! | `nexus_timer.rs` | `crate-nexus-timer` | `nexus-timer` 1.5.0 |
//! | `timer_queue.rs` | `crate-timer-queue` | `timer-queue` 0.1.1 |
//! | `tokio_delay_queue.rs` | `crate-tokio` | `tokio-util` 0.7.20 `DelayQueue` on `tokio` 1.54.1 |
//! | `hash_wheel_timer.rs` | `crate-hash-wheel-timer` | `hierarchical_hash_wheel_timer` 1.4.0 |
//!
//! The versions are pinned exactly in the workspace manifest, so the version an
//! adapter names in its `params()` (and so in every result's metadata) is the one
//! that was built.
//!
//! # What every adapter shares: `Timers`
//!
//! No crate here gives handles that the contract accepts as they are: their keys
//! are bare slab indices (`timer-queue`, `DelayQueue`) that the next insert
//! reuses, and a stale one reaches the timer that took its place or panics, or
//! move-only tokens that must be consumed exactly once (`nexus-timer`). So each
//! adapter keeps an [`Arena`] of its own, `Timers`, that maps the contract's
//! generation-checked [`Handle`] to the crate's key, and stores in the crate, as
//! the timer's value, the payload and the arena index (`Armed`). When the crate
//! hands a value back, the index finds the arena entry, which is removed (so the
//! handle goes stale) and gives back the deadline as inserted. A stale handle
//! fails the generation check in the arena and never reaches the crate. This is
//! one slab lookup per operation on top of the crate's own work: the price of the
//! contract, paid the same way by every adapter.
//!
//! `Timers` also holds the two things that some crates need and that do not
//! belong to any one of them:
//!
//! * **Far timers.** A crate whose range ends before [`crate::MAX_DEADLINE`]
//!   (`DelayQueue`: about 2.2 years from its clock; `nexus-timer`: `u64`
//!   nanoseconds, about 584 years) cannot take every deadline the contract allows.
//!   The adapter keeps such a timer in a `BTreeMap` keyed by (deadline, arena
//!   index) and fires it from there, merged into the crate's batch in deadline
//!   order. No built-in workload comes near those ranges, so the map stays empty
//!   in every measured run; only the conformance suite's far deadlines use it.
//! * **Overdue inserts.** A crate that clamps a deadline in the past to its own
//!   clock (`timer-queue`, `DelayQueue`) fires the timers inserted overdue since
//!   the last advance first, but in its own order, not by deadline. They are the
//!   only timers in a batch with a deadline at or before the previous `now`, and
//!   they come first, so `order_batch` sorts just that prefix (O(1) when there
//!   is none). The smallest such deadline is also the lower bound
//!   `next_expiry()` must report for them, which such a crate's own bound (its
//!   clock) is not.
//!
//! # What the contract costs, and the native rows
//!
//! Each crate here also runs as a *native* row (`<name>-native`, in the same
//! file as its adapter): the crate driven through its own API, its keys kept by
//! the caller, no `Timers`, no sort (see [`crate::driven`]). The harness replays
//! both on every workload and writes the adapter's median over the native
//! row's to `contract_cost.csv`. What the adapter adds per operation is the
//! contract's price, paid the same way by every adapter: the lookup in
//! `Timers` (a second memory region, touched by every insert, cancel,
//! reschedule and fired timer; at 10^5 pending and more it is a cache miss of
//! its own), a crate value twice as wide (`Armed`: payload and index, where a
//! user stores an id), the end of every advance (`finish_advance`: the far map,
//! the overdue prefix, and for a crate that fires in slot order a sort), and
//! `next_expiry()` combining three bounds. A crate's user pays none of these,
//! but gets no stale-safe handles (a stale key reaches whatever reused its slot
//! or panics) and no deadline order. Each adapter's module doc gives the range
//! its contract cost took in the reference run; the report's "What the contract
//! costs" table gives it per workload.
//!
//! [`Handle`]: crate::Handle

// With only some of the adapters built, some shared helpers have no caller.
#![cfg_attr(
    not(all(
        feature = "crate-nexus-timer",
        feature = "crate-timer-queue",
        feature = "crate-tokio",
        feature = "crate-hash-wheel-timer"
    )),
    allow(dead_code)
)]

use std::collections::BTreeMap;

use crate::arena::{Arena, Handle};
use crate::{Expired, Tick, check_deadline};

#[cfg(feature = "crate-hash-wheel-timer")]
pub mod hash_wheel_timer;
#[cfg(feature = "crate-nexus-timer")]
pub mod nexus_timer;
#[cfg(feature = "crate-timer-queue")]
pub mod timer_queue;
#[cfg(feature = "crate-tokio")]
pub mod tokio_delay_queue;

/// The value an adapter stores in a crate for one timer: the payload, and the
/// index of the timer's entry in the adapter's [`Timers`], which the crate hands
/// back when the timer fires.
#[derive(Debug)]
struct Armed<P> {
    payload: P,
    index: u32,
}

/// Where one pending timer is, in an adapter's [`Timers`].
#[derive(Debug)]
struct Place<K> {
    /// The deadline as inserted (or last rescheduled): what the contract hands
    /// back, whatever the crate rounds it to.
    deadline: Tick,
    /// The crate's key for the timer, or `None` for a far timer, kept in
    /// [`Timers::far`].
    key: Option<K>,
}

/// What [`Timers::remove`] took out: a crate's key, or a far timer's payload.
enum Taken<K, P> {
    InCrate(K),
    Far(P),
}

/// An adapter's map from the contract's handles to a crate's keys, with the far
/// timers and the overdue bound. See the module documentation.
#[derive(Debug)]
struct Timers<K, P> {
    places: Arena<Place<K>>,
    /// Far timers by (deadline, arena index); the index makes keys unique.
    far: BTreeMap<(Tick, u32), P>,
    /// The smallest deadline armed at or before the clock since the last
    /// advance (`Tick::MAX` when none). A cancel does not raise it: it stays a
    /// lower bound.
    overdue_min: Tick,
}

impl<K, P> Timers<K, P> {
    fn new() -> Self {
        Self {
            places: Arena::new(),
            far: BTreeMap::new(),
            overdue_min: Tick::MAX,
        }
    }

    fn len(&self) -> usize {
        self.places.len()
    }

    /// Room for `additional` more timers in the adapter's own map: the side of
    /// [`crate::TimerQueue::reserve`] an adapter controls (a crate's storage is
    /// measured as the crate sizes it).
    fn reserve(&mut self, additional: usize) {
        self.places.reserve(additional);
    }

    /// Records a timer armed in the crate: `arm` gets the arena index to store
    /// in the crate's value, puts the timer in the crate and returns its key.
    fn insert_in_crate(&mut self, deadline: Tick, arm: impl FnOnce(u32) -> K) -> Handle {
        self.places.insert_with(|handle| Place {
            deadline,
            key: Some(arm(handle.index())),
        })
    }

    /// Records a far timer, kept here rather than in the crate.
    fn insert_far(&mut self, deadline: Tick, payload: P) -> Handle {
        let handle = self.places.insert(Place {
            deadline,
            key: None,
        });
        self.far.insert((deadline, handle.index()), payload);
        handle
    }

    /// Notes a timer armed with `deadline` while the clock reads `now`, for the
    /// overdue bound of a crate that clamps past deadlines to its clock.
    fn note_armed(&mut self, deadline: Tick, now: Tick) {
        if deadline <= now {
            self.overdue_min = self.overdue_min.min(deadline);
        }
    }

    /// Removes a pending timer; `None` for a stale handle.
    fn remove(&mut self, handle: Handle) -> Option<Taken<K, P>> {
        let place = self.places.remove(handle)?;
        Some(match place.key {
            Some(key) => Taken::InCrate(key),
            None => Taken::Far(
                self.far
                    .remove(&(place.deadline, handle.index()))
                    .expect("a far place has a far entry"),
            ),
        })
    }

    /// The place of a pending timer, to move it in place; `None` for a stale
    /// handle.
    fn get_mut(&mut self, handle: Handle) -> Option<&mut Place<K>> {
        self.places.get_mut(handle)
    }

    /// Removes the timer the crate just fired, by the index it carried, and
    /// returns its key and deadline.
    fn fired(&mut self, index: u32) -> (K, Tick) {
        let place = self.places.remove_at(index);
        (
            place.key.expect("the crate fired a timer it holds"),
            place.deadline,
        )
    }

    /// Removes every pending timer, handing each crate key to `release`: for a
    /// crate whose keys must be consumed before it is dropped.
    fn clear(&mut self, mut release: impl FnMut(K)) {
        let mut indices = Vec::with_capacity(self.places.len());
        self.places.for_each_index(|index, _| indices.push(index));
        for index in indices {
            if let Some(key) = self.places.remove_at(index).key {
                release(key);
            }
        }
        self.far.clear();
    }

    /// Appends every far timer due by `now`, in deadline order, and says whether
    /// there was any.
    fn drain_far(&mut self, now: Tick, out: &mut Vec<Expired<P>>) -> bool {
        let mut any = false;
        while let Some(entry) = self.far.first_entry() {
            let (deadline, index) = *entry.key();
            if deadline > now {
                break;
            }
            let payload = entry.remove();
            self.places.remove_at(index);
            out.push(Expired { payload, deadline });
            any = true;
        }
        any
    }

    /// Takes the earliest far timer if its deadline is at most `limit`, for an
    /// adapter to move into the crate (then [`Timers::set_key`]).
    fn pop_far_within(&mut self, limit: Tick) -> Option<(Tick, u32, P)> {
        let entry = self.far.first_entry()?;
        let (deadline, index) = *entry.key();
        (deadline <= limit).then(|| (deadline, index, entry.remove()))
    }

    /// The handle of the pending timer at `index`.
    fn handle_at(&self, index: u32) -> Handle {
        self.places.handle_at(index)
    }

    /// Records the crate's key for a timer moved into it by index.
    fn set_key(&mut self, index: u32, key: K) {
        self.places.at_mut(index).key = Some(key);
    }

    /// Combines the crate's lower bound with the far timers' and the overdue
    /// inserts', for `next_expiry()`.
    fn bound(&self, in_crate: Option<Tick>) -> Option<Tick> {
        if self.places.is_empty() {
            return None;
        }
        let far = self
            .far
            .first_key_value()
            .map(|(&(deadline, _), _)| deadline);
        let bound = [in_crate, far]
            .into_iter()
            .flatten()
            .fold(self.overdue_min, Tick::min);
        debug_assert!(bound != Tick::MAX, "a pending timer has a bound");
        Some(bound)
    }

    /// Ends an advance whose crate batch is `out[start..]`: appends the far
    /// timers due by `now` and puts the batch in deadline order (see
    /// [`order_batch`]; the whole batch is sorted when far timers joined it or
    /// when the crate's order is `unordered`).
    fn finish_advance(
        &mut self,
        now: Tick,
        previous: Tick,
        out: &mut Vec<Expired<P>>,
        start: usize,
        unordered: bool,
    ) {
        let far = self.drain_far(now, out);
        let batch = &mut out[start..];
        if far || unordered {
            batch.sort_unstable_by_key(|expired| expired.deadline);
        } else {
            order_batch(batch, previous);
        }
        self.overdue_min = Tick::MAX;
    }
}

/// Starts an advance to `now` of an adapter whose clock is `clock`: checks `now`
/// against [`crate::MAX_DEADLINE`], moves the clock, and returns where it was;
/// `None` (and the clock unchanged) for an earlier `now`, which does nothing.
fn begin_advance(clock: &mut Tick, now: Tick) -> Option<Tick> {
    check_deadline(now);
    (now >= *clock).then(|| std::mem::replace(clock, now))
}

/// Puts in deadline order a batch that a crate fired in deadline order except
/// for its prefix of overdue inserts (deadline at or before `previous`, the
/// clock before the advance), which it fired first in an order of its own. The
/// sort is unstable (the contract allows ties in any order) and touches only the
/// prefix: nothing but one comparison when there were no overdue inserts.
fn order_batch<P>(batch: &mut [Expired<P>], previous: Tick) {
    let overdue = batch
        .iter()
        .take_while(|expired| expired.deadline <= previous)
        .count();
    if overdue > 1 {
        batch[..overdue].sort_unstable_by_key(|expired| expired.deadline);
    }
    debug_assert!(
        batch.is_sorted_by_key(|expired| expired.deadline),
        "the crate fired out of deadline order beyond its overdue prefix"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expired(deadline: Tick) -> Expired<u32> {
        Expired {
            payload: 0,
            deadline,
        }
    }

    #[test]
    fn order_batch_sorts_only_the_overdue_prefix() {
        let mut batch: Vec<_> = [9, 3, 7, 12, 15].into_iter().map(expired).collect();
        order_batch(&mut batch, 10);
        let deadlines: Vec<_> = batch.iter().map(|e| e.deadline).collect();
        assert_eq!(deadlines, [3, 7, 9, 12, 15]);
    }

    #[test]
    fn far_timers_fire_from_the_map_and_stale_handles_miss() {
        let mut timers: Timers<u8, &str> = Timers::new();
        let far = timers.insert_far(1 << 50, "far");
        let near = timers.insert_in_crate(5, |_| 7);
        assert_eq!(timers.bound(Some(5)), Some(5));
        assert!(matches!(timers.remove(near), Some(Taken::InCrate(7))));
        assert!(timers.remove(near).is_none(), "stale");
        assert_eq!(timers.bound(None), Some(1 << 50));
        let mut out = Vec::new();
        timers.finish_advance(1 << 50, 0, &mut out, 0, false);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].payload, out[0].deadline), ("far", 1 << 50));
        assert!(timers.remove(far).is_none(), "fired, so stale");
        assert_eq!(timers.bound(None), None);
    }
}
