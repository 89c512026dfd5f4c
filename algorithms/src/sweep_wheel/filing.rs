//! The insert, and the filing of a handle into its slot.
//!
//! A deadline at or before the clock goes on the overdue list; one within
//! [`NEAR_SLOTS`] ticks of the clock into its ring slot; any other into the
//! slot of the level of the highest bit in which it and the clock differ
//! ([`far_slot`]). Filing lowers the cached bounds (`next_start`, `next_min`,
//! the slot's minimum and `far_start`) only when the deadline is below them,
//! which few filings are: a rarely taken branch is cheaper than a `min` and a
//! store on every insert. A higher slot that starts after `far_start` lowers
//! none of the wheel-wide bounds, so that most far inserts return before
//! comparing them ([`SweepWheel::note_filed`]).
//!
//! The insert is straight-line code in the common case, and saves no
//! registers: [`SweepWheel::insert_wheel`] calls nothing except in tail
//! position. It first asks whether the arena has room without allocating
//! ([`Arena::has_room`](crate::arena::Arena::has_room)) and whether the
//! deadline is after the clock, and else hands the whole insert to an
//! out-of-line general path. The slot's vector is tested for room right
//! before the push, with nothing written in between, so the compiler drops
//! the push's growth path; a full vector goes to a cold function in tail
//! position. `file` and `place` are always
//! inlined: as calls they spent a fifth to a sixth of their instructions
//! saving and restoring registers.

use super::levels::far_slot;
use super::params::NEAR_SLOTS;
use super::{SweepWheel, Timer};
use crate::Tick;
use crate::arena::Handle;

impl<P> SweepWheel<P> {
    /// Files `handle`, whose timer is due at `when`: on the overdue list if
    /// that is not after the clock, else in its slot. Always inlined: as a
    /// call it was most of an insert's instructions, a sixth of them spent
    /// saving and restoring registers (callgrind, `uniform`).
    #[inline(always)]
    pub(super) fn file(&mut self, handle: Handle, when: Tick) {
        if when <= self.elapsed {
            self.overdue.push(handle);
            self.overdue_min = self.overdue_min.min(when);
        } else {
            let floor = self.place(handle, when);
            // `when` shares every digit above its level's with the clock, so
            // its slot starts at `when` with the digits below that level's
            // cleared. (An advance sets both bounds afresh when it ends, so the
            // filings it makes itself skip this.) Each bound is stored only
            // when lowered, which few filings do: a branch that is rarely
            // taken is shorter than a `min` and a store on every insert.
            if when & floor < self.next_start {
                self.next_start = when & floor;
            }
            if when < self.next_min {
                self.next_min = when;
            }
        }
    }

    /// Renews `handle`, whose timer was just moved to the earlier `deadline`,
    /// and files the new handle. Out of line, so that the common reschedule,
    /// to a later deadline, does not save the registers that filing needs:
    /// with this inlined, a reschedule on `idle-reset` went from 28 to 53
    /// instructions (callgrind).
    #[inline(never)]
    pub(super) fn move_earlier(&mut self, handle: Handle, deadline: Tick) -> Handle {
        let renewed = self.timers.renew(handle).expect("the handle was current");
        if self.is_short {
            self.file_short(renewed, deadline);
        } else {
            self.file(renewed, deadline);
        }
        renewed
    }

    /// Puts `handle`, whose timer is due at `when > elapsed`, in its slot and
    /// returns the [`slot_floor_mask`](super::levels::slot_floor_mask) of
    /// the slot's level. Always inlined: it is on every insert and every
    /// cascade, and as a call it spent a fifth of its instructions saving and
    /// restoring registers (callgrind, `periodic`).
    #[inline(always)]
    pub(super) fn place(&mut self, handle: Handle, when: Tick) -> Tick {
        debug_assert!(
            when > self.elapsed,
            "placing deadline {when} at or before the clock {}",
            self.elapsed
        );
        // Within NEAR_SLOTS ticks of the clock: level 0's ring, by the low
        // digits. A ring slot spans one tick, so its minimum is its start and
        // it keeps none. The ring's path is its own, ahead of the higher
        // levels', so that a sweep that moves timers into the ring holds
        // none of the higher levels' values.
        if when - self.elapsed < NEAR_SLOTS as u64 {
            let id = when as usize & (NEAR_SLOTS - 1);
            self.slots[id].push(handle);
            self.occupied.set(id);
            return Tick::MAX;
        }
        let (id, floor) = far_slot(self.elapsed, when);
        // Fixed-size arrays: one check that `id` is a slot number covers the
        // slot and its occupancy word.
        self.slots[id].push(handle);
        self.occupied.set(id);
        // Both bounds are stored only when lowered, as in `file`.
        if let Some(min) = self.slot_min.get_mut(id.wrapping_sub(NEAR_SLOTS))
            && when < *min
        {
            *min = when;
        }
        if when & floor < self.far_start {
            self.far_start = when & floor;
        }
        floor
    }

    /// The insert of a wheel, when the deadline is after the clock and the
    /// arena and the slot's vector have room without allocating: like the
    /// short list's, it calls nothing except in tail position, and so saves
    /// no registers. What `file` and `place` do, for that case.
    #[inline(never)]
    pub(super) fn insert_wheel(&mut self, deadline: Tick, payload: P) -> Handle {
        let when = deadline;
        if when <= self.elapsed || !self.timers.has_room() {
            return self.insert_wheel_slow(deadline, payload);
        }
        let handle = self.timers.insert(Timer { deadline, payload });
        let (id, floor) = if when - self.elapsed < NEAR_SLOTS as u64 {
            (when as usize & (NEAR_SLOTS - 1), Tick::MAX)
        } else {
            far_slot(self.elapsed, when)
        };
        let handles = &mut self.slots[id];
        if handles.len() == handles.capacity() {
            return self.file_growing(handle, when, id, floor);
        }
        // Within capacity, checked just above with nothing written since:
        // the push has no path that grows the vector, and so no call.
        handles.push(handle);
        self.note_filed(when, id, floor);
        handle
    }

    /// The bookkeeping of an insert's filing at `when` in slot `id`, whose
    /// level's floor mask is `floor` (`Tick::MAX` for the ring): the slot's
    /// bit, and each bound that the deadline lowers.
    ///
    /// A higher slot that starts after `far_start` lowers none of the three
    /// wheel-wide bounds, so they are not compared: `next_start` is at most
    /// `far_start`, and `next_min` at most a deadline filed in the slot at
    /// `far_start` (or the run's first, or a ring slot's start before it),
    /// which ends before any later slot starts. Most far inserts take that
    /// return.
    #[inline(always)]
    pub(super) fn note_filed(&mut self, when: Tick, id: usize, floor: Tick) {
        self.occupied.set(id);
        if let Some(min) = self.slot_min.get_mut(id.wrapping_sub(NEAR_SLOTS)) {
            if when < *min {
                *min = when;
            }
            if when & floor > self.far_start {
                debug_assert!(when & floor > self.next_start && when > self.next_min);
                return;
            }
            if when & floor < self.far_start {
                self.far_start = when & floor;
            }
        }
        if when & floor < self.next_start {
            self.next_start = when & floor;
        }
        if when < self.next_min {
            self.next_min = when;
        }
    }

    /// Files `handle`, due at `when`, in slot `id` (floor mask `floor`), for
    /// an insert whose slot vector must grow.
    #[cold]
    #[inline(never)]
    pub(super) fn file_growing(
        &mut self,
        handle: Handle,
        when: Tick,
        id: usize,
        floor: Tick,
    ) -> Handle {
        self.slots[id].push(handle);
        self.note_filed(when, id, floor);
        handle
    }

    /// The wheel's insert in general: an overdue deadline, or an arena that
    /// must allocate.
    #[cold]
    #[inline(never)]
    pub(super) fn insert_wheel_slow(&mut self, deadline: Tick, payload: P) -> Handle {
        let handle = self.timers.insert(Timer { deadline, payload });
        self.file(handle, deadline);
        handle
    }
}
