//! The short list: a wheel starts as one sorted ring of handles.
//!
//! While it holds at most [`SHORT_MAX`] handles, current or stale, every
//! timer's handle is kept with the deadline it was filed for in one ring
//! sorted by deadline (`short`, a [`SortedRing`](crate::sorted_ring::SortedRing)).
//! An insert at or after the last deadline is a push onto the back (timers of
//! one duration inserted in time order), before the first a push onto the
//! front, and else a walk from the nearer end, judged by the deadlines at the
//! ends as the `sorted-list` judges it; an advance pops from the front. A
//! cancel and a later reschedule are the wheel's: a generation bump and a
//! store, the stale handle dropped when it reaches the front, the pushed-back
//! timer filed again there.
//!
//! Why: with a few dozen timers pending, the ring spreads them over 1,024
//! slots whose vectors and headers (about 72 KiB) do not stay in a 48 KiB L1,
//! so an insert lands in a slot last touched a lap before; a list of a
//! hundred entries stays in cache.
//!
//! The list's first deadline is kept in the wheel's `next_start` and
//! `next_min`, so that an advance with nothing due and `next_expiry` read the
//! same fields in either form and pay nothing for the list. `advance` calls
//! [`SweepWheel::take_short`] directly, not through `take_due`, whose entry
//! saves the registers the wheel's path needs. When the list is full its stale
//! handles are dropped, and if more than half of it is still pending its
//! timers are filed in the wheel, for good ([`SweepWheel::leave_short`]);
//! [`TimerQueue::reserve`](crate::TimerQueue::reserve) for more than
//! [`SHORT_MAX`] timers does the same at once, so that a queue told of its
//! population is a wheel from its first insert.

use super::params::SHORT_MAX;
use super::{SweepWheel, Timer};
use crate::arena::Handle;
use crate::{Expired, Tick};

impl<P> SweepWheel<P> {
    /// Files `handle`, whose timer is due at `when`, on the short list, or,
    /// if the list is full of pending timers, leaves it for the wheel and
    /// files it there.
    #[inline(always)]
    pub(super) fn file_short(&mut self, handle: Handle, when: Tick) {
        if self.short.len() == SHORT_MAX && !self.compact_short() {
            self.leave_short();
            self.file(handle, when);
            return;
        }
        // The list's first deadline bounds the wheel's next start and
        // expiry, so that `advance` and `next_expiry` read the same fields
        // in either form. The two are equal while the wheel is a list (both
        // are lowered together, and `take_short` sets both to the first
        // deadline), so one compare tells whether either moves.
        if when < self.next_min {
            self.next_start = self.next_start.min(when);
            self.next_min = when;
        }
        let (Some((first, _)), Some((last, _))) = (self.short.front(), self.short.back()) else {
            self.short.push_back((when, handle));
            return;
        };
        if when >= last {
            // Timers of one duration, inserted in time order, land here.
            self.short.push_back((when, handle));
        } else if when < first {
            self.short.push_front((when, handle));
        } else {
            self.insert_short_between(first, last, when, handle);
        }
    }

    /// The insert of a short list, when it has room and the arena room
    /// without allocating: written so that it calls nothing except in tail position
    /// (the walk between the ends, or the general path), and so saves no
    /// registers.
    #[inline(never)]
    pub(super) fn insert_short(&mut self, deadline: Tick, payload: P) -> Handle {
        if self.short.len() == SHORT_MAX || !self.timers.has_room() {
            return self.insert_short_slow(deadline, payload);
        }
        let handle = self.timers.insert(Timer { deadline, payload });
        let when = deadline;
        if when < self.next_min {
            self.next_start = self.next_start.min(when);
            self.next_min = when;
        }
        let (Some((first, _)), Some((last, _))) = (self.short.front(), self.short.back()) else {
            self.short.push_back((when, handle));
            return handle;
        };
        if when >= last {
            self.short.push_back((when, handle));
        } else if when < first {
            self.short.push_front((when, handle));
        } else {
            return self.insert_short_between(first, last, when, handle);
        }
        handle
    }

    /// The short list's insert when it is full or the arena must allocate.
    #[cold]
    #[inline(never)]
    pub(super) fn insert_short_slow(&mut self, deadline: Tick, payload: P) -> Handle {
        let handle = self.timers.insert(Timer { deadline, payload });
        self.file_short(handle, deadline);
        handle
    }

    /// Inserts `(when, handle)` into the short list, where `first <= when <
    /// last`, after its equals: found by a walk from the nearer end (judged
    /// by the deadlines at the ends, as the `sorted-list` does), which for
    /// short timeouts among long ones is a step or two from the front.
    #[inline(never)]
    pub(super) fn insert_short_between(
        &mut self,
        first: Tick,
        last: Tick,
        when: Tick,
        handle: Handle,
    ) -> Handle {
        let steps = self
            .short
            .insert_between((when, handle), when - first < last - when);
        self.counters.insert_scan_steps += steps as u64;
        handle
    }

    /// Drops the short list's stale handles; whether that left it at most
    /// half full, so that it stays a short list.
    #[cold]
    #[inline(never)]
    pub(super) fn compact_short(&mut self) -> bool {
        let timers = &self.timers;
        self.short
            .retain(|&(_, handle)| timers.get(handle).is_some());
        self.short.len() <= SHORT_MAX / 2
    }

    /// Files every pending timer of the short list in the wheel, for good.
    #[cold]
    #[inline(never)]
    pub(super) fn leave_short(&mut self) {
        if !self.is_short {
            return;
        }
        self.is_short = false;
        // Filing sets the bounds afresh from the wheel's slots.
        (self.next_start, self.next_min) = (Tick::MAX, Tick::MAX);
        while let Some((_, handle)) = self.short.pop_front() {
            if let Some(timer) = self.timers.get(handle) {
                let when = timer.deadline;
                self.file(handle, when);
            }
        }
    }

    /// The advance to `now` of the short list when something may be due: fires
    /// its timers due by `now`, in deadline order, files again the ones whose
    /// deadline was pushed back, and moves the clock to `now`. Called from
    /// `advance` directly rather than through [`Self::take_due`], whose entry
    /// saves the registers the wheel's path needs: going through it cost
    /// about 14 instructions more per advance that takes something
    /// (callgrind, `kafka-purgatory`).
    #[inline(never)]
    pub(super) fn take_short(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        if now < self.elapsed {
            return;
        }
        // The common case, written so that it calls nothing except in tail
        // position and so saves no registers: each entry due is current and
        // due at the deadline it was filed for, and `out` has room.
        while let Some((first, handle)) = self.short.front() {
            if first > now {
                break;
            }
            let Some(timer) = self.timers.get(handle) else {
                self.short.pop_front();
                self.counters.entries_examined_not_due += 1;
                continue;
            };
            if timer.deadline != first || out.len() == out.capacity() {
                return self.take_short_slow(now, out);
            }
            self.short.pop_front();
            let timer = self.timers.remove_at(handle.index());
            out.push(Expired {
                payload: timer.payload,
                deadline: timer.deadline,
            });
        }
        let first = self.short.front().map_or(Tick::MAX, |(first, _)| first);
        (self.next_start, self.next_min) = (first, first);
        self.elapsed = now;
    }

    /// [`Self::take_short`] in general: a timer pushed back since it was
    /// filed is filed again, and `out` grows as it must.
    #[cold]
    #[inline(never)]
    pub(super) fn take_short_slow(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        while let Some((first, handle)) = self.short.front() {
            if first > now {
                break;
            }
            self.short.pop_front();
            let Some(timer) = self.timers.get(handle) else {
                self.counters.entries_examined_not_due += 1;
                continue;
            };
            let when = timer.deadline;
            if when == first {
                let timer = self.timers.remove_at(handle.index());
                out.push(Expired {
                    payload: timer.payload,
                    deadline: timer.deadline,
                });
            } else {
                // Pushed back since it was filed: filed again at its new
                // deadline, and fired from there if that is due too, so that
                // what fires comes out in deadline order.
                self.file_short(handle, when);
            }
        }
        let first = self.short.front().map_or(Tick::MAX, |(first, _)| first);
        (self.next_start, self.next_min) = (first, first);
        self.elapsed = now;
    }
}
