//! The advance: finding the next slot to take, taking the higher levels'
//! slots, and the sweep of a slot's handles.
//!
//! The next slot to take is the earlier of the first occupied ring slot after
//! the clock and the earliest of the far side: the earliest occupied higher
//! slot, whose start is cached in `far_start`, or the sorted run's first
//! entry. A tie goes to the ring, whose slot spans one tick. An advance that
//! drained nothing first tries the slot at `next_start`, which in a busy
//! wheel is an occupied ring slot, and so skips one of its two searches.
//!
//! A higher slot, taken because it is the earliest, fires its timers due by
//! `now` that lie within its span and before the first occupied ring slot,
//! without cascading them through the levels below: they come before every
//! timer elsewhere, and sorting the ones fired keeps the output in order. Its
//! other timers are filed again relative to the new clock, or go into the run.
//!
//! A sweep reads each handle's arena entry once, prefetching the entry
//! [`PREFETCH_AHEAD`] handles on: a stale handle costs its generation
//! compare (counted as the difference between the handles read and the
//! timers found, not one by one), a due timer fires, and any other is filed
//! again. The work is out of line (`take_due`) so that an advance with nothing
//! to do, the common wakeup, is two compares inlined into the caller and saves
//! no registers.

use super::SweepWheel;
use super::levels::ring_start;
use super::levels::{BASE, level_of, slot_floor_mask, slot_start};
use super::memory::empty_slot_vector;
use super::params::{NEAR_SLOTS, PREFETCH_AHEAD, RELEASE_MIN_TIMERS, RUN_MAX};
use crate::arena::Handle;
use crate::{Expired, Tick};

/// The `level` of an [`Expiration`] that is the sorted run's earliest entry.
pub(super) const RUN_LEVEL: usize = usize::MAX;

/// What a sweep of a slot's handles found, for the counters and the output's
/// order.
#[derive(Clone, Copy, Debug)]
pub(super) struct Swept {
    /// Handles whose timer was pending.
    pub(super) current: u64,
    /// Handles left by a cancel or a move, dropped.
    pub(super) stale: u64,
    /// Pending timers filed again rather than fired.
    pub(super) refiled: u64,
    /// Whether what was fired came out in deadline order.
    pub(super) sorted: bool,
}

impl Swept {
    /// Nothing found yet.
    pub(super) const EMPTY: Swept = Swept {
        current: 0,
        stale: 0,
        refiled: 0,
        sorted: true,
    };
}

/// The next slot to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Expiration {
    pub(super) level: usize,
    /// The slot's number among all [`SLOT_COUNT`](super::levels::SLOT_COUNT).
    pub(super) id: usize,
    /// The slot's start: the first tick it covers.
    pub(super) start: Tick,
    /// The start of the earliest occupied level-0 slot (`Tick::MAX` if none):
    /// a higher slot taken before it fires only what is due before it.
    pub(super) near: Tick,
}

impl<P> SweepWheel<P> {
    /// Sets the cached bounds from `next`, the wheel's next expiration.
    #[inline]
    pub(super) fn set_bounds(&mut self, next: Option<Expiration>) {
        (self.next_start, self.next_min) = match next {
            Some(expiration) if expiration.level == 0 || expiration.level == RUN_LEVEL => {
                (expiration.start, expiration.start)
            }
            Some(expiration) => (
                expiration.start,
                self.slot_min[expiration.id - NEAR_SLOTS].min(expiration.near),
            ),
            None => (Tick::MAX, Tick::MAX),
        };
    }

    /// The next slot to take: the earlier of the first occupied ring slot
    /// after the clock and the earliest occupied higher slot (whose start is
    /// cached in `far_start`); a tie goes to the ring, whose slot spans one
    /// tick.
    #[inline(always)]
    pub(super) fn next_expiration(&self) -> Option<Expiration> {
        let mask = NEAR_SLOTS as u64 - 1;
        let near = self
            .occupied
            .first_near((self.elapsed & mask) as usize)
            .map(|id| (id, ring_start(self.elapsed, id)));
        let near_start = near.map_or(Tick::MAX, |(_, start)| start);
        if self.far_start < near_start {
            if self.far_start == self.run_start {
                return Some(Expiration {
                    level: RUN_LEVEL,
                    id: 0,
                    start: self.run_start,
                    near: near_start,
                });
            }
            let id = self.occupied.first_far().expect("a far slot is occupied");
            let level = level_of(id);
            debug_assert_eq!(
                slot_start(self.elapsed, level, id - BASE[level]),
                self.far_start
            );
            return Some(Expiration {
                level,
                id,
                start: self.far_start,
                near: near_start.min(self.run_start),
            });
        }
        let (id, start) = near?;
        Some(Expiration {
            level: 0,
            id,
            start,
            near: start,
        })
    }

    /// [`Self::next_expiration`] at the start of an advance that drained
    /// nothing, read from `next_start` when that is an occupied ring slot:
    /// the usual advance of a busy wheel takes one ring slot, and this spares
    /// it one of its two searches of the bitmap.
    ///
    /// `next_start` is at most the start of every occupied slot, so a ring
    /// slot that starts there and is occupied is the earliest, and a tie with
    /// a higher slot goes to the ring as in the search.
    #[inline(always)]
    pub(super) fn first_expiration(&self) -> Option<Expiration> {
        let start = self.next_start;
        let id = start as usize & (NEAR_SLOTS - 1);
        let next = if start > self.elapsed
            && start - self.elapsed < NEAR_SLOTS as u64
            && self.occupied.is_set(id)
        {
            Some(Expiration {
                level: 0,
                id,
                start,
                near: start,
            })
        } else {
            self.next_expiration()
        };
        debug_assert_eq!(next, self.next_expiration());
        next
    }

    /// Recomputes [`Self::far_start`] from the occupancy bitmap and the run.
    pub(super) fn reset_far_start(&mut self) {
        self.far_start = self.first_far_start().min(self.run_start);
    }

    /// The start of the earliest occupied slot of level 1 and above
    /// (`Tick::MAX` when none is).
    #[inline]
    pub(super) fn first_far_start(&self) -> Tick {
        self.occupied.first_far().map_or(Tick::MAX, |id| {
            let level = level_of(id);
            slot_start(self.elapsed, level, id - BASE[level])
        })
    }

    /// The advance to `now` when there is something to do: drains the overdue
    /// list, takes every slot that starts by `now`, and sets the cached bounds
    /// afresh. Out of line, so that the advance that has nothing to do does
    /// not save the registers this needs: inlined into `advance`, those saves
    /// and restores were 15 of its instructions on every call (callgrind,
    /// `kafka-purgatory`, where half the advances take no slot).
    #[inline(never)]
    pub(super) fn take_due(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        debug_assert!(!self.is_short, "the short list's advance is take_short's");
        if now < self.elapsed {
            return;
        }
        let mut next = if self.overdue.is_empty() {
            self.first_expiration()
        } else {
            self.drain_overdue(out);
            self.next_expiration()
        };
        while let Some(expiration) = next.filter(|expiration| expiration.start <= now) {
            if expiration.level == 0 {
                self.take_near(expiration.id, expiration.start, out);
            } else if expiration.level != RUN_LEVEL {
                self.take_slot(expiration, now, out);
            } else {
                self.take_run(expiration.near.min(now), out);
            }
            next = self.next_expiration();
        }
        // With no slot occupied and the overdue list drained, nothing is
        // pending: the one moment to test whether to give everything back.
        if next.is_none() && self.timers.capacity() >= RELEASE_MIN_TIMERS {
            self.release();
        }
        self.set_bounds(next);
        // Nothing starts before the next expiration, so moving the clock up to
        // `now` keeps every handle ahead of it on its level.
        self.elapsed = now;
    }

    /// Takes the whole slot of `expiration`, a slot of level 1 or above
    /// (level 0's go to [`Self::take_near`]), during an advance to `now`:
    /// moves the clock to the slot's start, drops its stale handles, fires its
    /// timers due by `now` and files the others again.
    ///
    /// A timer of a higher-level slot that is due by `now` fires from here,
    /// without cascading through the levels below: this slot is the earliest
    /// in the wheel and its timers are due before the slot ends, so they come
    /// before every timer elsewhere, and sorting the ones fired here keeps the
    /// output in order. A timer pushed back past the slot's end is filed again,
    /// even if it is due by `now`, since other slots may hold earlier ones.
    pub(super) fn take_slot(
        &mut self,
        expiration: Expiration,
        now: Tick,
        out: &mut Vec<Expired<P>>,
    ) {
        let Expiration {
            level, id, start, ..
        } = expiration;
        debug_assert!(level > 0, "level 0's slots are taken by take_near");
        self.counters.slot_visits += 1;
        self.elapsed = start;
        self.occupied.clear(id);
        self.slot_min[id - NEAR_SLOTS] = Tick::MAX;
        self.reset_far_start();
        // The last tick the slot covers. The top level's slots span 2^58
        // ticks and start at most at 2^62, so this does not overflow.
        // Timers due at or after level 0's earliest slot are filed there
        // rather than fired, so that what fires comes out in order.
        let end = (start + !slot_floor_mask(level)).min(expiration.near - 1);
        let first = out.len();
        // Taken out so that filing can borrow the wheel; nothing is filed into
        // this slot meanwhile (every deadline in it is at or after its start,
        // and a deadline after the clock goes to a slot ahead of it), and the
        // vector goes back with its capacity.
        let mut handles = std::mem::take(&mut self.slots[id]);
        // A small slot whose span is wider than the ring's goes into the run,
        // if the run is free.
        let swept = if level >= 2 && handles.len() <= RUN_MAX && self.run_start == Tick::MAX {
            let last = start + !slot_floor_mask(level);
            let swept = self.sweep_into_run(&handles, now, end, last, out);
            self.far_start = self.far_start.min(self.run_start);
            swept
        } else {
            self.sweep(&handles, now, end, out)
        };
        empty_slot_vector(&mut handles, self.is_shrinking());
        self.slots[id] = handles;
        self.count_swept(swept);
        if !swept.sorted {
            // Unstable: ties may come in any order, and it allocates nothing.
            out[first..].sort_unstable_by_key(|expired| expired.deadline);
        }
    }

    /// Adds what a slot's sweep found to the counters.
    #[inline]
    pub(super) fn count_swept(&mut self, swept: Swept) {
        self.counters.cascades += swept.refiled;
        self.counters.entries_examined_not_due += swept.stale;
        // Every current timer either fired or was filed again, so the visit
        // fired nothing (an empty tick) when all of them were filed again.
        self.counters.empty_slot_visits += u64::from(swept.current == swept.refiled);
    }

    /// Sweeps `handles`: drops the stale ones, fires every timer due by
    /// `due_by` that lies no later than `end` (appending it to `out`), and
    /// files the others again, noting whether what fires came out in
    /// deadline order.
    #[inline(never)]
    pub(super) fn sweep(
        &mut self,
        handles: &[Handle],
        due_by: Tick,
        end: Tick,
        out: &mut Vec<Expired<P>>,
    ) -> Swept {
        self.sweep_with::<false>(handles, due_by, end, Tick::MAX, out)
    }

    /// The loop of [`Self::sweep`] and [`Self::sweep_into_run`]: with `RUN`,
    /// a timer that is not fired and is due by `last` is pushed onto the run
    /// (unsorted) instead of being filed.
    #[inline(always)]
    pub(super) fn sweep_with<const RUN: bool>(
        &mut self,
        handles: &[Handle],
        due_by: Tick,
        end: Tick,
        last: Tick,
        out: &mut Vec<Expired<P>>,
    ) -> Swept {
        let mut swept = Swept::EMPTY;
        for (next, &handle) in handles.iter().enumerate() {
            if let Some(&ahead) = handles.get(next + PREFETCH_AHEAD) {
                self.timers.prefetch(ahead);
            }
            let Some(timer) = self.timers.get(handle) else {
                continue;
            };
            swept.current += 1;
            let when = timer.deadline;
            if when <= due_by && when <= end {
                let timer = self.timers.remove_at(handle.index());
                swept.sorted &= out.last().is_none_or(|last| last.deadline <= when);
                out.push(Expired {
                    payload: timer.payload,
                    deadline: timer.deadline,
                });
            } else if RUN && when <= last {
                self.run.push((when, handle));
                swept.refiled += 1;
            } else {
                self.place(handle, when);
                swept.refiled += 1;
            }
        }
        // As in `take_near`: a stale handle costs only its check.
        swept.stale = handles.len() as u64 - swept.current;
        swept
    }

    /// Fires the overdue list's pending timers, sorted by deadline, and files
    /// again the ones whose deadline was pushed back past the clock.
    pub(super) fn drain_overdue(&mut self, out: &mut Vec<Expired<P>>) {
        let first = out.len();
        let mut handles = std::mem::take(&mut self.overdue);
        let elapsed = self.elapsed;
        let swept = self.sweep(&handles, elapsed, elapsed, out);
        handles.clear();
        self.overdue = handles;
        self.overdue_min = Tick::MAX;
        self.counters.entries_examined_not_due += swept.stale;
        if !swept.sorted {
            // Unstable: ties may come in any order, and it allocates nothing.
            out[first..].sort_unstable_by_key(|expired| expired.deadline);
        }
    }
}
