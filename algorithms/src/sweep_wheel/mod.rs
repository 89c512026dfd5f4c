//! A bitmap wheel laid out for the cache: slots are arrays of handles, a
//! cancel is one generation bump, and dead entries are swept when their slot
//! is taken.
//!
//! # Idea
//!
//! The wheel is tokio's (see [`crate::bitmap_wheel`]): levels of slots with an
//! occupancy bitmap, a clock that jumps to the next occupied slot, and a lazy
//! cascade. What changes is how a slot holds its timers, what a cancel
//! touches, how wide level 0 is, and what the next expiry says.
//!
//! * **A slot is a `Vec` of handles** (8 bytes each: the timer's index in the
//!   arena and its generation), not an intrusive doubly-linked list. An insert
//!   appends to the slot's vector, whose tail is in cache when the slot was
//!   used recently. Taking a slot walks a contiguous array: every timer's
//!   index is known before any timer is read, so the loads of the timers
//!   overlap, where a list walk is a chain of dependent loads.
//! * **A cancel touches one cache line**: the timer's own arena entry, whose
//!   generation it checks and bumps as it frees the entry. The handle in the
//!   slot is left there, stale, and dropped when its slot is taken (its
//!   generation no longer matches). An unlink from a linked list writes both
//!   neighbours, two more lines anywhere in memory.
//! * **A reschedule to a later deadline is one store**, as tokio's `reset`
//!   and Go's `modify` make it: the deadline changes and the handle stays in
//!   its slot, which is reached no later than the old deadline; the timer is
//!   then filed again by its new deadline. A reschedule to an earlier
//!   deadline renews the generation (the old handle goes stale) and files
//!   the new handle.
//! * **Level 0 is a ring of 1,024 one-tick slots that slides with the clock**
//!   ([`NEAR_BITS`] = 10): a deadline within 1,023 ticks of the clock is filed
//!   there by its low 10 bits and never cascades. The levels above are
//!   tokio's, 64 aligned slots each. With an aligned level 0, a short delay
//!   that crosses a window boundary goes a level up and moves down once; on
//!   `periodic` a one-second timer did so before almost every firing. The
//!   price is the next expiration: the first occupied ring slot is searched
//!   from the clock round the ring (`ring.rs`).
//! * **The next expiry is the earliest slot's smallest deadline**, kept per
//!   slot of level 1 and above as timers are filed, not the slot's start, so
//!   an event loop sleeps until a timer is due, and the advance that wakes it
//!   fires a higher slot's due timers straight from there. Between expiries
//!   an advance is one compare against a cached start.
//! * **A small higher slot is taken whole into a sorted run** (`run.rs`): its
//!   timers are sorted by deadline once rather than moved down level by
//!   level, and later advances fire from the run's end.
//! * **A sweep prefetches** the arena entry of the handle `PREFETCH_AHEAD`
//!   places on ([`Arena::prefetch`]), so that the loads of a long slot overlap
//!   even when each handle's work fills the CPU's window.
//! * **A short list comes first** (`short.rs`): while at most [`SHORT_MAX`]
//!   handles are pending and no larger population was announced, the wheel is
//!   one sorted ring of handles, which a few dozen timers keep in L1 where
//!   1,024 ring slots do not.
//!
//! Taking a slot reads each handle's timer once: a stale handle is dropped, a
//! timer due by the advance's `now` fires, and any other is filed again
//! relative to the new clock (a cascade, or a timer whose deadline was pushed
//! back). A cascade reads the deadline from the arena, so a slot keeps no copy.
//!
//! Each choice was measured against its alternatives, and the record of those
//! tries, one line each, is `docs/lab/sweep-wheel.md`. What it taught: on the
//! machines measured, the time followed the instructions executed and the
//! branches mispredicted, not the simulated L1 misses. Changes aimed at misses
//! (a slot's first handles inline, spare buffers, slots as chunks, an eager
//! cancel) cut them and lost; changes that took instructions off the common
//! paths (straight-line inserts, the ring, the run's radix sort) won.
//!
//! # Source
//!
//! The wheel is tokio's `runtime/time/wheel` (read at tokio 1.54.1, the version
//! this workspace pins: 6 levels of 64 slots at 1 ms; here a wider level 0 and
//! 9 levels above it for the contract's 2^62 range). The lazy reset is
//! tokio's `TimerEntry::reset` (which only extends the cached deadline and
//! files the entry again when its old slot comes due) and Go's
//! `runtime/time.go` `modify`. The rest was designed here.
//!
//! # Files
//!
//! * `mod.rs`: the wheel's fields, and the contract's methods, which choose
//!   between the short list and the wheel;
//! * `params.rs`: the parameters' values, re-exported here;
//! * `levels.rs`: the slot numbering, the per-level tables filing reads, and
//!   where a slot starts;
//! * `occupancy.rs`: the bitmap of occupied slots and its searches;
//! * `filing.rs`: the insert and the filing of a handle into its slot;
//! * `ring.rs`: level 0, and the advance that takes one of its slots;
//! * `advance.rs`: finding the next slot, taking higher slots, the sweep;
//! * `run.rs`: the sorted run and its radix sort;
//! * `short.rs`: the short list;
//! * `memory.rs`: giving memory back;
//! * `tests.rs`: the wheel's tests and its invariant checker.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1): an `ilog2`, table reads, a push onto a vector and a bit set; amortised, as a slot's vector grows until it is as long as the slot ever was |
//! | cancel | O(1): a generation check and bump, and a free-list push |
//! | reschedule | O(1): a store when the deadline moves later, else a renew and an insert |
//! | advance, nothing due | O(1): one compare against the cached `next_start` |
//! | advance, slots due | O(levels) per slot taken to find it; O(1) per handle in it, current or stale; O(k log k) for k timers fired from one higher slot out of order; no empty slot is visited |
//! | into the run | k timers: O(k log k) below `RADIX_MIN`, else one O(k + 256) pass per byte in which their deadlines differ; O(1) per entry taken |
//! | next expiry | O(1): two cached bounds, set afresh by each advance that takes a slot |
//! | as a short list | insert O(1) at either end, else O(k) for a walk of k entries (at most [`SHORT_MAX`]); advance O(1) per handle popped; leaving the list O([`SHORT_MAX`]), once |
//! | giving back | a taken slot's vector: O(1); a wheel that empties: O(slots + arena entries), once per emptying |
//!
//! Memory is the price of the lazy cancel: a slot holds one handle per timer
//! inserted (or moved earlier) within the span of its level, not per pending
//! timer. A handle is 8 bytes, a fifth of a linked wheel's 40-byte node, but
//! on `timeouts` (95% cancelled within a few ticks) there are far more handles
//! than pending timers; the reference run's `bytes_per_pending` gives the
//! figure. `memory.rs` says when the wheel gives storage back.
//!
//! # Invariants
//!
//! Between calls `elapsed == now`; during an advance `elapsed` is the start of
//! the slot last taken. Always:
//!
//! * every pending timer has exactly one *current* handle (its index and its
//!   entry's present generation) in the wheel: on the overdue list, or in a slot
//!   that starts at or before its deadline. Any other handle in a slot is stale;
//! * every handle in level 0's slot `s` was filed for a deadline less than
//!   1,024 ticks after the clock of its filing, and `s` is not the clock's
//!   own slot: the slot starts at `elapsed + ((s - elapsed) mod 1,024)`, the
//!   first tick after the clock whose low 10 bits are `s` (a ring: the slots
//!   below the clock's are its next lap);
//! * every handle in a slot of level `k >= 1` was filed for a deadline `when`
//!   at least 1,024 ticks after the clock of its filing, that shares every
//!   digit above `k` with `elapsed` and whose digit `k` is greater than
//!   `elapsed`'s, so every occupied higher slot lies ahead of the clock (the
//!   invariant of [`crate::bitmap_wheel`]), and `far_start` is the earlier of
//!   the start of the earliest of them and the run's first deadline
//!   (`Tick::MAX` when neither is). The clock never passes a higher slot's
//!   start without taking it, so it stays inside the blocks that hold them;
//! * a slot's occupancy bit is set if and only if the slot holds a handle,
//!   current or stale, and level 0's summary bit `w` is set if and only if
//!   word `w` of its bitmap is not zero;
//! * the minimum kept for a slot of level 1 and above is at most the deadline
//!   of every pending timer whose current handle is there, and the cached
//!   `next_start` and `next_min` are at most the earliest slot's start and
//!   minimum;
//! * the overdue list's running minimum is at most the deadline of every
//!   pending timer whose current handle is on it;
//! * while the wheel is a short list (`is_short`), every pending timer's
//!   current handle is on `short` instead, at a deadline at most its own;
//!   `short` is sorted by deadline, holds at most [`SHORT_MAX`] handles, and
//!   its first deadline is at least the cached `next_start` and `next_min`;
//!   the slots, the run and the overdue list are empty. Once it is a wheel,
//!   `short` is empty for good;
//! * the run holds at most [`RUN_MAX`] entries, by deadline, latest first,
//!   each after the clock and at most its timer's deadline when the handle
//!   is current (a later reschedule leaves it, and it is filed again when
//!   taken), and `run_start` is its last entry's deadline (`Tick::MAX` when
//!   it is empty); the cached `next_start` and `next_min` are at most it.
//!
//! So the earlier of the first ring slot's start and the earliest higher
//! slot's minimum is a lower bound on every deadline (every other slot
//! covers later ticks), which is what [`TimerQueue::next_expiry`] reports,
//! with the overdue list's minimum. It is not always a deadline: a
//! cancelled timer's or a pushed-back timer's filing may be what set it, and
//! an advance there may fire nothing (`empty_slot_visits` counts the slots
//! taken with stale handles only).
//!
//! # Output order
//!
//! The overdue batch first, sorted (see [`crate::overdue`] for why it can go
//! first); then slots in increasing start order. A level-0 slot fires timers
//! due at its start; a higher slot, taken because it is the earliest, fires
//! the timers due by `now` that lie within its span and before the first
//! occupied ring slot, sorted, and these come before every timer in any other
//! slot; its later timers are filed again (or go into the run). The run,
//! when its first deadline is the earliest, fires its entries in order up to
//! the start of the earliest slot; a pushed-back timer taken from it is
//! filed again, and nothing after that slot's start fires before it.
//!
//! # Counters
//!
//! * `slot_visits`: one per slot taken, and one per advance that takes
//!   entries from the run.
//! * `empty_slot_visits`: a slot taken (or a run visit) that fired nothing:
//!   it held only stale handles (left by cancels and moves), or every
//!   current timer in it was filed again.
//! * `entries_examined_not_due`: stale handles swept.
//! * `cascades`: current handles filed again when their slot was taken
//!   without firing: moved down from a higher level or into the run, or a
//!   timer whose deadline was pushed back.
//! * `insert_scan_steps`: the short list's entries walked past by an insert;
//!   `reschedule_scan_steps` the same for a reschedule that moves a timer
//!   earlier into the short list.
//! * `bucket_expirations` stays 0.
//!
//! # Parameters
//!
//! * [`NEAR_BITS`] = 10, a 1,024-slot ring: wide enough that `periodic`'s
//!   one-second timers never cascade; 2,048 aligned slots cost `sparse` and
//!   `kafka-purgatory` more than they saved, and 64 slots made `periodic` and
//!   `uniform` slower.
//! * [`FAR_BITS`] = 6, tokio's 64 slots a level (one `u64` of bitmap each), so
//!   [`LEVELS`] = 10 cover 2^62; 256 slots a level cost no less.
//!   `params()` is `"near=1024,levels=10,slots=64"`.
//! * `PREFETCH_AHEAD` = 8: 4 and 16 measured the same. Not in `params()`:
//!   it changes how fast the wheel is, not what it does.
//! * [`RUN_MAX`] = 256: 128 to 512 counted the same on `sparse`, 4,096 more
//!   (a large slot's sort grows as k log k where moving it grows as k);
//!   `RADIX_MIN` = 24: 8 measured the same, 64 slower.
//! * [`SHORT_MAX`] = 128: above the few dozen timers of the small queues
//!   measured (`kafka-purgatory` at most 42, `ratas-connections` 104), small
//!   enough that a walk between the ends stays short. Neither it nor
//!   [`RUN_MAX`] is in `params()`: they change which structure holds a timer,
//!   not when it fires.
//! * [`KEEP_HANDLES`] = 64, [`SHRINK_RATIO`] = 8 and [`RELEASE_MIN_TIMERS`] =
//!   4,096 decide when memory is given back, and [`RESERVE_RING_HANDLES`] = 4
//!   how much room `reserve` gives each ring slot (`memory.rs`); they change
//!   what the wheel holds, not what it does, and are not in `params()`.

mod advance;
mod filing;
mod levels;
mod memory;
mod occupancy;
mod params;
mod ring;
mod run;
mod short;
#[cfg(test)]
mod tests;

use crate::arena::{Arena, Handle};
use crate::sorted_ring::SortedRing;
use crate::{Algorithm, Counters, Expired, Family, Tick, TimerQueue, check_deadline};
use levels::SLOT_COUNT;
use occupancy::Occupancy;
pub use params::{
    FAR_BITS, FAR_SLOTS, KEEP_HANDLES, LEVELS, NEAR_BITS, NEAR_SLOTS, RELEASE_MIN_TIMERS,
    RESERVE_RING_HANDLES, RUN_MAX, SHORT_MAX, SHRINK_RATIO,
};

/// One timer: what the arena keeps per timer. The slot that holds its handle
/// is not recorded; a cancel never goes there.
#[derive(Debug)]
struct Timer<P> {
    /// The deadline in force: the inserted one, or the last rescheduled one.
    deadline: Tick,
    payload: P,
}

/// A bitmap wheel with vector slots, one-line cancels and lazy sweeping. See
/// the module documentation.
#[derive(Debug)]
pub struct SweepWheel<P> {
    timers: Arena<Timer<P>>,
    /// Every level's slots, by slot number (`levels.rs`): the handles filed
    /// there, current or stale, in filing order.
    slots: Box<[Vec<Handle>; SLOT_COUNT]>,
    /// A slot's bit is set exactly when it holds a handle.
    occupied: Occupancy,
    /// Per slot of level 1 and above (by slot number minus [`NEAR_SLOTS`]),
    /// at most every deadline filed there since it was last taken (`Tick::MAX` for
    /// an empty slot): what [`TimerQueue::next_expiry`] reports for the
    /// earliest slot, rather than its start.
    slot_min: Box<[Tick; SLOT_COUNT - NEAR_SLOTS]>,
    /// At most the start of the earliest occupied slot (`Tick::MAX` when none
    /// is): an advance to a time before it has no slot to take.
    next_start: Tick,
    /// At most every deadline filed in a slot: the earliest slot's minimum
    /// after an advance, lowered by every filing since.
    next_min: Tick,
    /// The start of the earliest occupied slot of level 1 and above
    /// (`Tick::MAX` when none is).
    far_start: Tick,
    /// Handles of timers filed with a deadline at or before the clock.
    overdue: Vec<Handle>,
    /// At most the deadline of every pending timer on `overdue`; `Tick::MAX`
    /// when it is empty.
    overdue_min: Tick,
    /// The wheel's clock: `now` between calls, the start of the slot last taken
    /// during an advance.
    elapsed: Tick,
    /// The timers of one small higher slot, taken whole: `(deadline, handle)`
    /// by deadline, latest first, each deadline after the clock. A handle
    /// here is in no slot.
    run: Vec<(Tick, Handle)>,
    /// The deadline of the run's last entry, its earliest (`Tick::MAX` when
    /// it is empty), kept beside it so that finding the next expiration
    /// reads one field.
    run_start: Tick,
    /// The second buffer of the run's radix sort.
    run_scratch: Vec<(Tick, Handle)>,
    /// Whether the wheel is still a short list: every pending timer's handle
    /// is on `short`, and the slots, the run and the overdue list are empty.
    /// Once false, it stays false.
    is_short: bool,
    /// The short list: `(deadline, handle)` by deadline, earliest first, the
    /// deadline the one in force when the handle was filed (a later
    /// reschedule leaves it). At most [`SHORT_MAX`] entries.
    short: SortedRing,
    counters: Counters,
}

impl<P> Default for SweepWheel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> SweepWheel<P> {
    /// An empty wheel at time 0.
    pub fn new() -> Self {
        Self {
            timers: Arena::new(),
            slots: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: Occupancy::default(),
            slot_min: Box::new([Tick::MAX; SLOT_COUNT - NEAR_SLOTS]),
            next_start: Tick::MAX,
            next_min: Tick::MAX,
            far_start: Tick::MAX,
            overdue: Vec::new(),
            overdue_min: Tick::MAX,
            elapsed: 0,
            run: Vec::new(),
            run_start: Tick::MAX,
            run_scratch: Vec::new(),
            is_short: true,
            short: SortedRing::new(),
            counters: Counters::default(),
        }
    }
}

impl<P> Algorithm for SweepWheel<P> {
    const NAME: &'static str = "sweep-wheel";
    const FAMILY: Family = Family::Modern;
    const SUMMARY: &'static str = "designed here: tokio's bitmap wheel with a 1,024-slot level \
         0 that slides with the clock, slots as vectors of 8-byte handles swept with prefetch, a \
         cancel that bumps a generation (stale handles swept when their slot is taken), a later \
         reschedule in one store, the earliest slot's smallest deadline as next expiry, a small \
         far slot taken whole into a sorted run, and a sorted ring of at most 128 handles \
         before the wheel while the queue is that small";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("near={NEAR_SLOTS},levels={LEVELS},slots={FAR_SLOTS}")
    }
}

impl<P> TimerQueue<P> for SweepWheel<P> {
    #[inline]
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        if self.is_short {
            self.insert_short(deadline, payload)
        } else {
            self.insert_wheel(deadline, payload)
        }
    }

    #[inline]
    fn cancel(&mut self, handle: Handle) -> Option<P> {
        // The handle in the slot goes stale with the generation bump.
        self.timers.remove(handle).map(|timer| timer.payload)
    }

    #[inline]
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let timer = self.timers.get_mut(handle)?;
        let old = timer.deadline;
        timer.deadline = deadline;
        if deadline >= old {
            // The current handle is filed no later than `old`, so it is reached
            // before `deadline` and filed again then.
            return Some(handle);
        }
        // The short list's walk, if the move takes it there, is the
        // reschedule's to count.
        let before = self.counters.insert_scan_steps;
        let moved = self.move_earlier(handle, deadline);
        self.counters.charge_walk_to_reschedule(before);
        Some(moved)
    }

    #[inline]
    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.next_start && self.overdue.is_empty() {
            // No slot to take and nothing overdue: the common wakeup of an
            // event loop between expiries is two compares and a store, inlined
            // into the caller. (An advance backwards leaves the clock, and
            // every occupied slot starts after it, so `now < elapsed` lands
            // here too.)
            self.elapsed = self.elapsed.max(now);
            return;
        }
        if self.is_short {
            self.take_short(now, out);
        } else {
            self.take_due(now, out);
        }
    }

    fn reserve(&mut self, additional: usize) {
        if additional > SHORT_MAX {
            self.leave_short();
        }
        self.timers.reserve(additional);
        if additional >= NEAR_SLOTS {
            for handles in &mut self.slots[..NEAR_SLOTS] {
                if handles.capacity() == 0 {
                    handles.reserve_exact(RESERVE_RING_HANDLES);
                }
            }
        }
    }

    fn next_expiry(&self) -> Option<Tick> {
        // Every pending timer is filed in a slot (at or after `next_min`) or on
        // the overdue list (at or after `overdue_min`, `Tick::MAX` when empty).
        (!self.timers.is_empty()).then(|| self.next_min.min(self.overdue_min))
    }

    fn now(&self) -> Tick {
        self.elapsed
    }

    fn len(&self) -> usize {
        self.timers.len()
    }

    fn counters(&self) -> Counters {
        self.counters
    }
}
