//! What a replay drives: a timer structure together with the record its caller
//! keeps of each timer, the [`Driven`] trait.
//!
//! # Why a second trait
//!
//! [`TimerQueue`] is the contract every algorithm here keeps: handles that
//! stay safe after their timer is gone, batches in deadline order, a payload of
//! any type. A crate is not written to that contract. Put behind it (an
//! adapter in `adapters/`), it pays for a second handle table and a sort of
//! every batch that its own users never pay, and a reader who picks a crate
//! from the report is misled. So the harness also replays a tape through each
//! crate **the way its documentation shows**: its own keys, kept by the caller
//! as a user keeps them, its own deadline type, its own poll. Those are the
//! *native* rows. The standard-library baselines get the same treatment: the
//! simplest correct code a Rust user writes (a heap of `(deadline, id)` with a
//! flag per id for lazy cancellation, a `BTreeSet` of `(deadline, id)`).
//!
//! The replay loop and the drivers stay written once: they drive any
//! [`Driven`]. Every [`TimerQueue`] of [`Payload`]s is one, through the blanket
//! implementation below, with the contract's [`Handle`] as its key; a native
//! row implements [`Driven`] itself, with the crate's key.
//!
//! # What the replay promises a `Driven`
//!
//! * Timers are numbered `0, 1, 2, ...` in insert order, and the number is the
//!   payload. The caller keeps one [`Driven::Key`] per timer, in a slice indexed
//!   by that number, exactly as a server keeps a timer key in each connection's
//!   record; [`Driven::advance`] gets that slice so that a native row can do
//!   what its user does with a fired timer's key (free it, forget it).
//! * Cancel and reschedule come with the timer's number as well as its key, so
//!   that a lazily cancelled structure can find its per-timer flag; they may be
//!   called for a timer that has already fired or been cancelled, and must then
//!   report a miss and change nothing.
//!
//! In return a `Driven` fires exactly what the reference model fires, at the
//! same ticks (the harness checks every run's checksum against the model's), but
//! it need not keep the rest of the contract: a batch may come out in any order,
//! a fired timer's `deadline` may be the tick it fired at when the structure
//! does not keep deadlines, and `next_expiry()` may be any lower bound.

use crate::arena::Handle;
use crate::{Counters, Expired, Payload, Tick, TimerQueue};

/// A timer structure as a replay drives it. See the module documentation.
pub trait Driven {
    /// What the caller keeps for each timer to cancel or move it: the contract's
    /// [`Handle`], or a crate's own key.
    type Key;

    /// The key of a timer that is not pending and never was: what a caller
    /// that keeps a slot per timer before arming it (the threaded mode, whose
    /// producers arm timers in no one order) holds there. Cancel and
    /// reschedule with it miss and change nothing, and no advance sees it.
    fn vacant_key() -> Self::Key;

    /// Arms timer number `timer` at `deadline` and returns its key.
    fn insert(&mut self, deadline: Tick, timer: Payload) -> Self::Key;

    /// Cancels timer `timer`, whose key is `key`; says whether it was pending.
    fn cancel(&mut self, key: &mut Self::Key, timer: Payload) -> bool;

    /// Moves timer `timer` to `deadline`, updating `key` if the structure hands
    /// out a new one; says whether it was pending (nothing changes if not).
    fn reschedule(&mut self, key: &mut Self::Key, timer: Payload, deadline: Tick) -> bool;

    /// Moves the clock to `now` and appends every timer due by then to `out`;
    /// `keys` holds every timer's key, by number.
    fn advance(&mut self, now: Tick, keys: &mut [Self::Key], out: &mut Vec<Expired<Payload>>);

    /// A lower bound on the next tick at which something fires; `None` when
    /// nothing is pending.
    fn next_expiry(&self) -> Option<Tick>;

    /// The current time: the largest `now` advanced to, or 0.
    fn now(&self) -> Tick;

    /// The number of pending timers.
    fn len(&self) -> usize;

    /// Whether no timer is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for `additional` more pending timers (see [`TimerQueue::reserve`]).
    fn reserve(&mut self, additional: usize);

    /// Work counters since the structure was built (all 0 where not counted).
    fn counters(&self) -> Counters;

    /// Gives back the keys of the timers still pending when a replay is done
    /// with the structure, before both are dropped: for a crate whose keys must
    /// be consumed (`nexus-timer`'s `TimerHandle`). The default does nothing.
    /// Never inside a timed region.
    fn release(&mut self, keys: &mut [Self::Key]) {
        let _ = keys;
    }
}

/// A vacant key ([`Driven::vacant_key`]) for each of `timers` timers: the
/// record of a caller that keeps a slot per timer before arming any.
pub fn vacant_keys<D: Driven>(timers: usize) -> Vec<D::Key> {
    (0..timers).map(|_| D::vacant_key()).collect()
}

/// The key that a native row keyed by deadline ([`crate::std_binary_heap::PlainBinaryHeap`],
/// [`crate::btree_map::PlainBTreeSet`]) keeps for a timer that is not pending: its
/// key is otherwise the timer's current deadline, which is at most
/// [`crate::MAX_DEADLINE`].
pub const NOT_PENDING: Tick = Tick::MAX;

/// Every contract queue is driven through the contract: its key is the
/// [`Handle`] the contract hands out, which stays valid (and stale-safe) after
/// the timer is gone, so a fired timer's key needs no care.
impl<Q: TimerQueue<Payload>> Driven for Q {
    type Key = Handle;

    fn vacant_key() -> Handle {
        Handle::NONE
    }

    #[inline(always)]
    fn insert(&mut self, deadline: Tick, timer: Payload) -> Handle {
        TimerQueue::insert(self, deadline, timer)
    }

    #[inline(always)]
    fn cancel(&mut self, key: &mut Handle, _timer: Payload) -> bool {
        TimerQueue::cancel(self, *key).is_some()
    }

    #[inline(always)]
    fn reschedule(&mut self, key: &mut Handle, _timer: Payload, deadline: Tick) -> bool {
        match TimerQueue::reschedule(self, *key, deadline) {
            Some(moved) => {
                *key = moved;
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    fn advance(&mut self, now: Tick, _keys: &mut [Handle], out: &mut Vec<Expired<Payload>>) {
        TimerQueue::advance(self, now, out);
    }

    #[inline(always)]
    fn next_expiry(&self) -> Option<Tick> {
        TimerQueue::next_expiry(self)
    }

    #[inline(always)]
    fn now(&self) -> Tick {
        TimerQueue::now(self)
    }

    #[inline(always)]
    fn len(&self) -> usize {
        TimerQueue::len(self)
    }

    fn reserve(&mut self, additional: usize) {
        TimerQueue::reserve(self, additional);
    }

    fn counters(&self) -> Counters {
        TimerQueue::counters(self)
    }
}
