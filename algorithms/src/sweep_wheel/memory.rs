//! Giving memory back.
//!
//! A slot's vector keeps its capacity when the slot is taken, since the slot
//! fills again a revolution later, and the arena keeps its entries, since
//! live handles point into it; kept without a limit, both would hold a
//! spike's memory for ever (netty #5647, tokio-util's `DelayQueue` before
//! `compact`). Two rules give it back, neither on the path of an insert or a
//! cancel:
//!
//! * **A taken slot's vector is freed** rather than kept when it has room for
//!   more than [`KEEP_HANDLES`] handles and fewer than one in
//!   [`SHRINK_RATIO`] of the arena's entries (its high-water mark, or the
//!   population `reserve` announced if that is more) hold a pending timer
//!   ([`empty_slot_vector`]). In a steady state the population stays near its
//!   high-water mark and nothing is freed; the check is two loads and a
//!   compare per slot taken.
//! * **A wheel that empties gives everything back**
//!   ([`SweepWheel::release`]): every slot vector, the overdue list, the run
//!   and the arena, once the arena had at least `RELEASE_MIN_TIMERS`
//!   entries. It is tested where an advance has just found no slot left to
//!   take, so it costs a compare there and nothing elsewhere. The arena
//!   remembers the newest generation it issued, so that no handle from before
//!   can match a timer made after
//!   ([`Arena::release`](crate::arena::Arena::release)).
//!
//! What is left after a spike is the arena's entries while any timer of it is
//! pending (their indices are scattered and in use), and after that the slot
//! table itself: 1,600 vector headers and 576 slot minimums, 43,008 bytes.
//!
//! The other way round, `reserve` for at least `NEAR_SLOTS` timers gives
//! each empty ring slot room for `RESERVE_RING_HANDLES` handles: the
//! allocations a populated ring makes on its first lap anyway, made before
//! the caller's work starts rather than one per slot as the clock first
//! reaches it.

use super::SweepWheel;
use super::params::{KEEP_HANDLES, SHRINK_RATIO};
use crate::Tick;
use crate::arena::Handle;

/// Empties a taken slot's vector of `handles`: frees it when it has room for
/// more than [`KEEP_HANDLES`] and the wheel is `shrinking` (after a spike the
/// vector was sized by timers that are gone, and its next filling is likely
/// far smaller), else keeps its capacity for the slot's next filling.
#[inline]
pub(super) fn empty_slot_vector(handles: &mut Vec<Handle>, shrinking: bool) {
    if handles.capacity() > KEEP_HANDLES && shrinking {
        *handles = Vec::new();
    } else {
        handles.clear();
    }
}

impl<P> SweepWheel<P> {
    /// Whether the wheel holds far fewer timers than it once did, or than it
    /// was told to expect: fewer than one in [`SHRINK_RATIO`] of the arena's
    /// entries (its high-water mark since it was last given back, or its
    /// reserve) are pending.
    #[inline]
    pub(super) fn is_shrinking(&self) -> bool {
        self.timers.len() * SHRINK_RATIO < self.timers.capacity()
    }

    /// Gives back the storage of a wheel with no slot occupied and nothing
    /// pending, once it had held at least
    /// `RELEASE_MIN_TIMERS`: every slot's vector,
    /// the overdue list's, and the arena's. O(slots + arena entries),
    /// paid once per emptying of a large wheel, and when nothing is pending,
    /// so that no timer can be late for it.
    #[cold]
    #[inline(never)]
    pub(super) fn release(&mut self) {
        debug_assert!(self.timers.is_empty() && self.occupied.summary == 0);
        debug_assert!(self.overdue.is_empty());
        for handles in self.slots.iter_mut() {
            *handles = Vec::new();
        }
        self.overdue = Vec::new();
        self.run = Vec::new();
        self.run_scratch = Vec::new();
        self.far_start = Tick::MAX;
        self.timers.release();
    }
}
