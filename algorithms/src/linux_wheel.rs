//! Linux's non-cascading timer wheel (`kernel/time/timer.c` since 4.8): every
//! timer is placed once, rounded up to its level's granularity, and never moved.
//! The one inexact algorithm here: it fires late, by a bounded fraction of the
//! delay, so that it never cascades.
//!
//! # Idea
//!
//! Levels of 64 buckets; level `n`'s buckets are `8^n` ticks wide
//! (`LVL_CLK_SHIFT = 3`), so each level is eight times coarser than the one below
//! and covers eight times the span. A timer inserted while the clock reads `now`
//! goes into the level whose range holds its delay `deadline - now`: level 0 for
//! delays below 63, level `n` for delays in `[63 * 8^(n-1), 63 * 8^n)` (Linux's
//! `LVL_START(n)` thresholds). Its *bucket expiry* is its deadline rounded up to
//! the level's granularity, and it fires when the clock reaches that expiry: never
//! early, and late by less than one granularity. It is never moved to a finer
//! level as time passes (no cascade), because, as the Linux commit that
//! introduced the design argues, the vast majority of timers (timeouts) are
//! cancelled or re-armed long before they expire, so the work of cascading them
//! is wasted; a coarser expiry is the price.
//!
//! Each level keeps a pending bitmap, bit `s` set when bucket `s` holds a timer.
//! The next expiry is found from the bitmaps (one rotate and one
//! trailing-zeros count per level that holds anything), and the clock jumps
//! straight to it: an empty bucket is never visited.
//!
//! Source: the Linux kernel's `kernel/time/timer.c` (Thomas Gleixner's 2016
//! rework, "timers: Switch to a non-cascading wheel"), its constants
//! `LVL_CLK_SHIFT`, `LVL_BITS`, `LVL_START`, the rounding of `calc_index` and the
//! bitmap search of `next_pending_bucket`. This file is written from that design,
//! not from the kernel's code; the differences below are deliberate.
//!
//! # The due tick, and how it differs from Linux
//!
//! `due_at(now, deadline)` is [`level_for`]`(deadline - now)`'s granularity `g`
//! applied as `ceil(deadline / g) * g`, for `deadline > now`; an overdue deadline
//! (`deadline <= now`) is due at once, on the overdue list. It depends on `now`
//! only through the level, and the rounding is to the absolute grid of the level
//! (multiples of `g`), not to the clock: so it is a pure function of the clock at
//! insert and the deadline, whatever the clock's alignment, and however the
//! advances between insert and expiry jump.
//!
//! * **Rounding up, not "plus one granularity".** Linux computes
//!   `((expires >> shift) + 1) << shift`, which is always at least one tick late,
//!   even at level 0 and for an aligned deadline, because a jiffy timer may be
//!   armed at the very end of a tick and must not fire a fraction of a tick early.
//!   Virtual ticks have no inside, so the plain ceiling is enough to never fire
//!   early, and level 0 (delays below 63) is exact.
//! * **The level is chosen from `now`.** Linux measures the delay from
//!   `base->clk`, which may lag `jiffies` when the CPU was idle; here the clock at
//!   insert is the queue's `now`, so the due tick depends on nothing hidden.
//! * **No clamping.** Linux has 8 or 9 levels (about 12 days at 1000 Hz) and
//!   clamps a farther timer to the wheel's capacity, which fires it early. The
//!   contract forbids early firing and accepts deadlines up to `MAX_DEADLINE`
//!   (2^62), so this wheel has [`LEVELS`] = 20 levels: level 19's granularity is
//!   2^57 and its range reaches delays of `63 * 2^57 - 1 > 2^62`. The 11 extra
//!   levels cost 704 empty buckets (5.5 KiB) and nothing else: a bitmap of
//!   occupied levels skips every level that holds no timer, so a workload whose
//!   delays stay below 12 days never looks at them. An overflow structure instead
//!   (a heap of far timers) would have to hand its timers to the wheel when they
//!   come within range, which is the cascade this design exists to avoid.
//!
//! # The lateness bound
//!
//! A timer with delay `d = deadline - now` in level `n = level_for(d)` fires
//! `ceil(deadline / 8^n) * 8^n - deadline` ticks late, between 0 and `8^n - 1`.
//! So `lateness_bound(d) = 8^level_for(d) - 1`, exactly:
//!
//! * `d < 63` (level 0): 0, exact;
//! * `63 * 8^(n-1) <= d < 63 * 8^n` (level `n >= 1`): at most `8^n - 1`, which is
//!   below `8 * d / 63`: less than 12.7% of the delay. That worst ratio belongs
//!   to delays just above a level's threshold (a delay of `64 * 8^(n-1)` may be
//!   late by an eighth of it, less one tick); at the top of a level the same
//!   `8^n - 1` is 1.6% of the delay.
//!
//! A 1 s timeout (level 2, granularity 64) fires up to 63 ms late, a 60 s one
//! (level 4, granularity 4,096) up to 4,095 ms late.
//!
//! # Why a bucket is never taken early, and holds one expiry
//!
//! Bucket `s` of level `n` can hold expiries `E` with `(E / 8^n) % 64 == s`: one
//! per `64 * 8^n` ticks. Every expiry placed from clock `t` satisfies
//! `t < E <= t + 64 * 8^n - 2` (the delay is below `63 * 8^n`, rounding adds
//! less than `8^n`: Linux's threshold of 63, not 64, is that slack). So at any
//! clock `p` at or after the insert, before the timer fires, `E` is one of the
//! 64 multiples of `8^n` in `(p, p + 64 * 8^n)`, one per bucket: a set bucket's
//! expiry is the unique one of its residue in that window. Two timers in one
//! bucket therefore share their expiry, and the next expiry of a level is the
//! first set bit after the clock's own bucket, found by [`next_in_level`].
//!
//! # Output order
//!
//! An advance first drains the overdue list (sorted, due at their deadlines, all
//! at or before the previous `now`), then takes buckets in increasing expiry,
//! each bucket's timers all due at that expiry: non-decreasing due tick, as the
//! contract asks. Within one bucket the order is insertion order, not deadline
//! order: an inexact algorithm promises due-tick order only.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1): the level from one division and a leading-zeros count, a list push, a bit set |
//! | cancel | O(1): an unlink, a bit clear when the bucket empties; O(occupied levels) when that bucket was the next to expire (the next expiry is recomputed) |
//! | advance | O(1) per timer fired, O(occupied levels) per distinct expiry reached, O(k log k) for k overdue timers; nothing per tick skipped |
//! | next expiry | O(1): cached |
//!
//! "Occupied levels" is at most [`LEVELS`] and in practice the handful a workload's
//! delays span (levels 0-4 for delays up to a minute).
//!
//! # Invariants
//!
//! * A timer inserted with its deadline after the clock sits in bucket
//!   `slot_for(E, n)` of level `n`, where `n` and `E` were fixed at insert by
//!   [`level_for`] and [`bucket_expiry`]: `deadline <= E < deadline + 8^n`,
//!   `now < E` (a late timer's deadline may already be past), and every timer of
//!   that bucket has the same `E`. A timer inserted with its deadline at or
//!   before the clock is on the overdue list until the next advance. Its
//!   `bucket` field records which.
//! * Bit `s` of `pending[n]` is set if and only if bucket `s` of level `n` is not
//!   empty; bit `n` of `occupied` if and only if `pending[n] != 0`.
//! * `next` is the smallest expiry in the wheel (`Tick::MAX` when the wheel is
//!   empty), and so greater than `now`.
//!
//! # Counters
//!
//! * `slot_visits`: one per bucket taken by an advance.
//! * `empty_slot_visits` stays 0: an advance takes only buckets whose pending bit
//!   is set, and a cancel clears the bit when it empties a bucket, so every
//!   bucket taken fires at least one timer. (Linux likewise reads the bitmap, not
//!   the buckets.)
//! * `cascades` stays 0: that is the design. A timer is placed once.
//! * `entries_examined_not_due` stays 0: every timer of a bucket taken is due.
//! * `bucket_expirations` stays 0 (there is no DelayQueue) and
//!   `insert_scan_steps` stays 0 (an insert computes its bucket).
//!
//! # Parameters
//!
//! None to tune, all Linux's: [`LEVEL_SIZE`] = 64 buckets per level,
//! [`LEVEL_CLK_SHIFT`] = 3 (each level 8x coarser), and [`LEVELS`] = 20, derived
//! from `MAX_DEADLINE` as above. `params()` is `"levels=20,level_size=64,clk_shift=3"`.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List};
use crate::overdue::Overdue;
use crate::{Algorithm, Counters, Expired, Family, MAX_DEADLINE, Tick, TimerQueue, check_deadline};

/// Each level's buckets are `2^LEVEL_CLK_SHIFT = 8` times as wide as the level
/// below's: Linux's `LVL_CLK_SHIFT`.
pub const LEVEL_CLK_SHIFT: u32 = 3;

/// Bits of a bucket index: Linux's `LVL_BITS`.
const LEVEL_BITS: u32 = 6;

/// Buckets per level, one bit each in a `u64` bitmap: Linux's `LVL_SIZE`.
pub const LEVEL_SIZE: usize = 1 << LEVEL_BITS;

/// The number of levels: the fewest whose top level's range reaches a delay of
/// `MAX_DEADLINE` (checked below). Linux has 8 or 9 and clamps farther timers.
pub const LEVELS: usize = 20;

/// The smallest delay that goes to level `n >= 1`: Linux's `LVL_START(n)`,
/// `63 * 8^(n-1)`. Level `n`'s range ends where level `n + 1`'s starts.
const fn level_start(n: usize) -> Tick {
    ((LEVEL_SIZE as Tick) - 1) << ((n as u32 - 1) * LEVEL_CLK_SHIFT)
}

// The top level reaches every delay the contract allows, and one level fewer
// would not.
const _: () = assert!(level_start(LEVELS) > MAX_DEADLINE);
const _: () = assert!(level_start(LEVELS - 1) <= MAX_DEADLINE);
// Every level's bucket ids fit the `u32` below `OVERDUE`, and `occupied` has a
// bit per level.
const _: () = assert!(LEVELS * LEVEL_SIZE < u32::MAX as usize && LEVELS <= 32);

/// The `bucket` of an entry on the overdue list rather than in a bucket.
const OVERDUE: u32 = u32::MAX;

/// The level a timer `delay` ticks away goes to: the `n` with
/// `level_start(n) <= delay < level_start(n + 1)`, or 0 below `level_start(1)`.
///
/// `delay < 63 * 8^n` exactly when `delay / 63 < 8^n`, that is when
/// `delay / 63` has at most `3n` significant bits: so `n` is that bit count
/// divided by 3, rounded up.
#[inline]
pub fn level_for(delay: Tick) -> usize {
    let units = delay / (LEVEL_SIZE as Tick - 1);
    let bits = Tick::BITS - units.leading_zeros();
    bits.div_ceil(LEVEL_CLK_SHIFT) as usize
}

/// The width of level `n`'s buckets: `8^n` ticks (Linux's `LVL_GRAN(n)`).
#[inline]
pub fn granularity(level: usize) -> Tick {
    1 << (level as u32 * LEVEL_CLK_SHIFT)
}

/// The expiry of the level-`level` bucket that takes `deadline` (at most
/// `MAX_DEADLINE`): the deadline rounded up to a multiple of the level's
/// granularity. No overflow, and never beyond `MAX_DEADLINE`: `2^62` is a
/// multiple of every granularity up to level 20.
#[inline]
pub fn bucket_expiry(deadline: Tick, level: usize) -> Tick {
    let shift = level as u32 * LEVEL_CLK_SHIFT;
    let mask = (1 << shift) - 1;
    (deadline + mask) & !mask
}

/// The bucket of level `level` that holds `expiry` (a multiple of its
/// granularity): its granularity count modulo 64.
#[inline]
fn slot_for(expiry: Tick, level: usize) -> usize {
    ((expiry >> (level as u32 * LEVEL_CLK_SHIFT)) as usize) & (LEVEL_SIZE - 1)
}

/// The earliest expiry after `from` of a set bucket of level `level`, whose
/// pending bitmap is `pending`, or `None` if no bucket is set.
///
/// Every set bucket's expiry lies in `(from, from + 64 * 8^level)` (see the module
/// documentation), one multiple of the granularity per bucket, starting with the
/// bucket after `from`'s own. Rotating the bitmap to start there, the number of
/// trailing zeros is how many granularities past that first one the expiry is.
#[inline]
pub fn next_in_level(pending: u64, from: Tick, level: usize) -> Option<Tick> {
    if pending == 0 {
        return None;
    }
    let shift = level as u32 * LEVEL_CLK_SHIFT;
    let first = (from >> shift) + 1;
    let skipped = Tick::from(
        pending
            .rotate_right((first & (LEVEL_SIZE as Tick - 1)) as u32)
            .trailing_zeros(),
    );
    // No overflow: `from` is at most 2^62 and `64 << shift` at most 2^63.
    Some((first + skipped) << shift)
}

/// One pending timer.
#[derive(Debug)]
struct Node<P> {
    deadline: Tick,
    payload: P,
    /// The bucket whose list holds the entry (`level * LEVEL_SIZE + slot`), or
    /// [`OVERDUE`].
    bucket: u32,
    links: Links,
}

impl<P> Linked for Node<P> {
    fn links(&self) -> &Links {
        &self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// Linux's non-cascading timer wheel. See the module documentation.
#[derive(Debug)]
pub struct LinuxWheel<P> {
    nodes: Arena<Node<P>>,
    /// Level `n`'s buckets are `buckets[n * LEVEL_SIZE..(n + 1) * LEVEL_SIZE]`;
    /// their timers in insertion order.
    buckets: Vec<List>,
    /// Per level, bit `s` set when bucket `s` is not empty (Linux's
    /// `pending_map`); the least-significant bit is bucket 0.
    pending: [u64; LEVELS],
    /// Bit `n` set when `pending[n] != 0`, so that searches skip empty levels.
    occupied: u32,
    /// Timers inserted with a deadline at or before `now`; their `bucket` is
    /// [`OVERDUE`].
    overdue: Overdue,
    /// The smallest bucket expiry in the wheel, `Tick::MAX` when it is empty
    /// (Linux's `next_expiry`).
    next: Tick,
    now: Tick,
    counters: Counters,
}

impl<P> Default for LinuxWheel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> LinuxWheel<P> {
    /// An empty wheel at time 0.
    pub fn new() -> Self {
        Self {
            nodes: Arena::new(),
            buckets: vec![List::EMPTY; LEVELS * LEVEL_SIZE],
            pending: [0; LEVELS],
            occupied: 0,
            overdue: Overdue::EMPTY,
            next: Tick::MAX,
            now: 0,
            counters: Counters::default(),
        }
    }

    /// The smallest bucket expiry after `from` over every occupied level, or
    /// `Tick::MAX`. `from` is a clock at or after every timer's insert, below
    /// every expiry in the wheel.
    fn next_after(&self, from: Tick) -> Tick {
        let mut next = Tick::MAX;
        let mut levels = self.occupied;
        while levels != 0 {
            let level = levels.trailing_zeros() as usize;
            levels &= levels - 1;
            if let Some(expiry) = next_in_level(self.pending[level], from, level) {
                next = next.min(expiry);
            }
        }
        next
    }

    /// Takes every bucket whose expiry is `expiry`, the smallest in the wheel,
    /// and fires its timers: at most one bucket per level, that of `expiry`'s
    /// residue in each level whose granularity divides it. A set bucket of that
    /// residue has exactly that expiry (its expiry is unique in the window after
    /// the clock, and not below the smallest).
    fn expire(&mut self, expiry: Tick, out: &mut Vec<Expired<P>>) {
        let mut levels = self.occupied;
        while levels != 0 {
            let level = levels.trailing_zeros() as usize;
            levels &= levels - 1;
            if expiry & (granularity(level) - 1) != 0 {
                // Coarser levels are not aligned either.
                break;
            }
            let slot = slot_for(expiry, level);
            if self.pending[level] & (1 << slot) == 0 {
                continue;
            }
            self.pending[level] &= !(1 << slot);
            if self.pending[level] == 0 {
                self.occupied &= !(1 << level);
            }
            self.counters.slot_visits += 1;
            let mut entries = self.buckets[level * LEVEL_SIZE + slot].take();
            debug_assert!(
                !entries.is_empty(),
                "level {level} bucket {slot} is set but empty"
            );
            while let Some(index) = entries.pop_front(&mut self.nodes) {
                let node = self.nodes.remove_at(index);
                debug_assert_eq!(
                    bucket_expiry(node.deadline, level),
                    expiry,
                    "level {level} bucket {slot} taken at {expiry} held deadline {}",
                    node.deadline
                );
                out.push(Expired {
                    payload: node.payload,
                    deadline: node.deadline,
                });
            }
        }
    }
}

impl<P> Algorithm for LinuxWheel<P> {
    const NAME: &'static str = "linux-wheel";
    const FAMILY: Family = Family::Modern;
    const SUMMARY: &'static str = "Linux's wheel since 4.8: 20 levels of 64 buckets, each 8x \
         coarser; a timer placed once, rounded up, never cascaded. Inexact: fires up to `8^n - \
         1` ticks late in level `n` (under 12.7% of the delay)";
    const EXACT: bool = false;

    fn due_at(now: Tick, deadline: Tick) -> Tick {
        if deadline <= now {
            deadline
        } else {
            bucket_expiry(deadline, level_for(deadline - now))
        }
    }

    fn lateness_bound(delay: Tick) -> Tick {
        granularity(level_for(delay)) - 1
    }

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("levels={LEVELS},level_size={LEVEL_SIZE},clk_shift={LEVEL_CLK_SHIFT}")
    }
}

impl<P> TimerQueue<P> for LinuxWheel<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            bucket: OVERDUE,
            links: Links::UNLINKED,
        });
        let index = handle.index();
        if deadline <= self.now {
            self.overdue.push(&mut self.nodes, index, deadline);
            return handle;
        }
        let level = level_for(deadline - self.now);
        let expiry = bucket_expiry(deadline, level);
        let slot = slot_for(expiry, level);
        let id = level * LEVEL_SIZE + slot;
        let bucket = &mut self.buckets[id];
        debug_assert!(
            bucket.is_empty()
                || bucket_expiry(self.nodes.at(bucket.head()).deadline, level) == expiry,
            "level {level} bucket {slot} holds another expiry than {expiry}"
        );
        bucket.push_back(&mut self.nodes, index);
        // Below LEVELS * LEVEL_SIZE, checked at compile time.
        self.nodes.at_mut(index).bucket = id as u32;
        self.pending[level] |= 1 << slot;
        self.occupied |= 1 << level;
        self.next = self.next.min(expiry);
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let node = self.nodes.get(handle)?;
        let (bucket, deadline) = (node.bucket, node.deadline);
        let index = handle.index();
        if bucket == OVERDUE {
            self.overdue.unlink(&mut self.nodes, index);
            return Some(self.nodes.remove_at(index).payload);
        }
        let id = bucket as usize;
        let list = &mut self.buckets[id];
        list.unlink(&mut self.nodes, index);
        if list.is_empty() {
            let (level, slot) = (id / LEVEL_SIZE, id % LEVEL_SIZE);
            self.pending[level] &= !(1 << slot);
            if self.pending[level] == 0 {
                self.occupied &= !(1 << level);
            }
            // Keep `next` exact, so that a driver never wakes for a bucket that
            // is gone. Only the earliest bucket's emptying changes it.
            if bucket_expiry(deadline, level) == self.next {
                self.next = self.next_after(self.now);
            }
        }
        Some(self.nodes.remove_at(index).payload)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.overdue
            .drain_sorted(&mut self.nodes, out, |node| Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
        // Jump from expiry to expiry; each is after the one before, so every
        // expiry left in the wheel stays within a window of the last one taken.
        while self.next <= now {
            let expiry = self.next;
            self.expire(expiry, out);
            self.next = self.next_after(expiry);
        }
        self.now = now;
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.nodes.is_empty() {
            return None;
        }
        let bound = self.next.min(self.overdue.bound().unwrap_or(Tick::MAX));
        debug_assert_ne!(
            bound,
            Tick::MAX,
            "{} timers pending but no bound",
            self.len()
        );
        Some(bound)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    fn counters(&self) -> Counters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::NIL;

    type Wheel = LinuxWheel<u64>;

    /// Checks every invariant of the module documentation by walking the whole
    /// structure.
    fn assert_invariants(wheel: &Wheel) {
        let mut linked = 0;
        let mut smallest = Tick::MAX;
        for level in 0..LEVELS {
            assert_eq!(
                wheel.occupied & (1 << level) != 0,
                wheel.pending[level] != 0,
                "occupied bit of level {level}"
            );
            for slot in 0..LEVEL_SIZE {
                let list = wheel.buckets[level * LEVEL_SIZE + slot];
                assert_eq!(
                    wheel.pending[level] & (1 << slot) != 0,
                    !list.is_empty(),
                    "pending bit of level {level} bucket {slot}"
                );
                let mut expiry = None;
                let mut at = list.head();
                while at != NIL {
                    let node = wheel.nodes.at(at);
                    assert_eq!(node.bucket as usize, level * LEVEL_SIZE + slot);
                    let e = bucket_expiry(node.deadline, level);
                    assert_eq!(*expiry.get_or_insert(e), e, "one expiry per bucket");
                    assert_eq!(slot_for(e, level), slot);
                    assert!(e > wheel.now, "a due timer was left in the wheel");
                    assert!(
                        e - wheel.now < 64 * granularity(level),
                        "expiry {e} is out of level {level}'s window after {}",
                        wheel.now
                    );
                    smallest = smallest.min(e);
                    linked += 1;
                    at = List::next_of(&wheel.nodes, at);
                }
            }
        }
        assert_eq!(wheel.next, smallest, "next is the smallest expiry");
        let mut at = wheel.overdue.head();
        while at != NIL {
            assert!(wheel.nodes.at(at).deadline <= wheel.now);
            assert_eq!(wheel.nodes.at(at).bucket, OVERDUE);
            linked += 1;
            at = List::next_of(&wheel.nodes, at);
        }
        assert_eq!(linked, wheel.nodes.len(), "every entry is on one list");
    }

    fn fire(wheel: &mut Wheel, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        wheel.advance(now, &mut out);
        assert_invariants(wheel);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn levels_start_at_linux_thresholds() {
        assert_eq!(level_for(0), 0);
        assert_eq!(level_for(1), 0);
        assert_eq!(level_for(62), 0);
        assert_eq!(level_for(63), 1, "LVL_START(1) = 63");
        assert_eq!(level_for(503), 1);
        assert_eq!(level_for(504), 2, "LVL_START(2) = 63 << 3");
        for n in 1..LEVELS {
            let start = level_start(n);
            assert_eq!(level_for(start - 1), n - 1, "just below LVL_START({n})");
            assert_eq!(level_for(start), n, "at LVL_START({n})");
        }
        assert_eq!(level_for(MAX_DEADLINE), LEVELS - 1);
        assert_eq!(level_start(LEVELS - 1), 63 << 54);
    }

    #[test]
    fn expiries_round_up_to_the_level_grid() {
        assert_eq!(granularity(0), 1);
        assert_eq!(granularity(3), 512);
        assert_eq!(bucket_expiry(100, 0), 100, "level 0 is exact");
        assert_eq!(bucket_expiry(100, 1), 104);
        assert_eq!(
            bucket_expiry(104, 1),
            104,
            "an aligned deadline is not moved"
        );
        assert_eq!(bucket_expiry(105, 1), 112);
        assert_eq!(bucket_expiry(1_000, 3), 1_024);
        assert_eq!(bucket_expiry(MAX_DEADLINE, LEVELS - 1), MAX_DEADLINE);
        assert_eq!(bucket_expiry(MAX_DEADLINE - 1, LEVELS - 1), MAX_DEADLINE);
        assert_eq!(bucket_expiry(1, LEVELS - 1), 1 << 57);
        assert_eq!(slot_for(104, 1), 13);
        assert_eq!(slot_for(104 + 512, 1), 13, "a revolution later");
    }

    #[test]
    fn due_ticks_keep_the_declared_bound() {
        type L = Wheel;
        const { assert!(!L::EXACT) };
        // Level 0: exact.
        assert_eq!(L::due_at(10, 72), 72);
        assert_eq!(L::lateness_bound(62), 0);
        // 63 ticks away: level 1, rounded up to a multiple of 8.
        assert_eq!(L::due_at(10, 73), 80);
        assert_eq!(L::lateness_bound(63), 7);
        // The same deadline from a later clock lands in a finer level.
        assert_eq!(L::due_at(11, 73), 73);
        // A 1 s timeout from an unaligned clock: level 2, granularity 64.
        assert_eq!(L::due_at(777, 1_777), 1_792);
        assert_eq!(L::lateness_bound(1_000), 63);
        // A minute: level 4, granularity 4,096.
        assert_eq!(L::due_at(0, 60_000), 61_440);
        assert_eq!(L::lateness_bound(60_000), 4_095);
        // Overdue: at once.
        assert_eq!(L::due_at(500, 500), 500);
        assert_eq!(L::due_at(500, 3), 3);
        // The bound is 8^n - 1, below 8/63 of the delay from level 1 on.
        for n in 1..LEVELS {
            let start = level_start(n);
            assert_eq!(L::lateness_bound(start), granularity(n) - 1);
            assert!(u128::from(L::lateness_bound(start)) * 63 < u128::from(start) * 8);
        }
        // Far deadlines never pass MAX_DEADLINE.
        assert_eq!(L::due_at(0, MAX_DEADLINE), MAX_DEADLINE);
        assert_eq!(L::due_at(3, MAX_DEADLINE - 5), MAX_DEADLINE);
        for now in [0, 1, 4_095, 1 << 40, MAX_DEADLINE - 1_000] {
            for delay in [1, 62, 63, 64, 503, 504, 1_000, 1 << 30, MAX_DEADLINE - now] {
                if delay > MAX_DEADLINE - now {
                    continue;
                }
                let deadline = now + delay;
                let due = L::due_at(now, deadline);
                assert!(deadline <= due && due - deadline <= L::lateness_bound(delay));
                assert!(due <= MAX_DEADLINE);
            }
        }
    }

    #[test]
    fn the_next_bucket_is_found_from_any_clock() {
        // Level 1 (granularity 8), bucket 13 (expiry 104 in this revolution).
        let pending = 1 << 13;
        assert_eq!(next_in_level(pending, 0, 1), Some(104));
        assert_eq!(next_in_level(pending, 103, 1), Some(104));
        assert_eq!(next_in_level(pending, 96, 1), Some(104), "aligned clock");
        assert_eq!(
            next_in_level(pending, 104, 1),
            Some(104 + 512),
            "the clock's own bucket is behind it"
        );
        assert_eq!(next_in_level(pending, 500, 1), Some(616), "wrapped");
        assert_eq!(next_in_level(0, 500, 1), None);
        // Several set buckets: the first after the clock's.
        let pending = (1 << 2) | (1 << 40);
        assert_eq!(next_in_level(pending, 0, 0), Some(2));
        assert_eq!(next_in_level(pending, 2, 0), Some(40));
        assert_eq!(next_in_level(pending, 41, 0), Some(66));
        // The top level at the end of time does not overflow.
        assert_eq!(
            next_in_level(1 << 32, MAX_DEADLINE - 1, LEVELS - 1),
            Some(MAX_DEADLINE)
        );
    }

    #[test]
    fn a_timer_is_placed_once_and_fires_late_without_cascading() {
        let mut wheel = Wheel::new();
        // 1,000 ticks away: level 2 (granularity 64), due at 1,024.
        wheel.insert(1_000, 1);
        wheel.insert(30, 2);
        assert_eq!(wheel.next_expiry(), Some(30));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 999), [(30, 2)]);
        assert_eq!(wheel.next_expiry(), Some(1_024));
        assert_eq!(fire(&mut wheel, 1_023), []);
        assert_eq!(fire(&mut wheel, 1_024), [(1_000, 1)]);
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 2);
        assert_eq!(counters.empty_slot_visits, 0);
        assert_eq!(counters.cascades, 0);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn a_late_timer_can_be_cancelled_after_its_deadline() {
        let mut wheel = Wheel::new();
        let late = wheel.insert(100, 1);
        assert_eq!(fire(&mut wheel, 100), [], "due at 104");
        assert_eq!(wheel.cancel(late), Some(1));
        assert_invariants(&wheel);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn a_cancel_that_empties_the_next_bucket_moves_the_next_expiry() {
        let mut wheel = Wheel::new();
        let first = wheel.insert(100, 1);
        wheel.insert(2_000, 2);
        assert_eq!(wheel.next_expiry(), Some(104));
        assert_eq!(wheel.cancel(first), Some(1));
        assert_eq!(wheel.next_expiry(), Some(2_048));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 5_000), [(2_000, 2)]);
        assert_eq!(wheel.counters().empty_slot_visits, 0);
    }

    #[test]
    fn buckets_of_several_levels_due_together_fire_in_one_step() {
        let mut wheel = Wheel::new();
        // Due at 512 from level 2 (inserted at 0), level 1 (at 440) and level 0
        // (at 450), and one level-0 timer due at its own deadline before them.
        wheel.insert(510, 1);
        fire(&mut wheel, 440);
        wheel.insert(507, 2);
        fire(&mut wheel, 450);
        wheel.insert(512, 3);
        wheel.insert(509, 4);
        assert_invariants(&wheel);
        assert_eq!(wheel.next_expiry(), Some(509));
        assert_eq!(fire(&mut wheel, 511), [(509, 4)], "level 0 is exact");
        let mut fired = fire(&mut wheel, 600);
        fired.sort_unstable_by_key(|&(_, p)| p);
        assert_eq!(fired, [(510, 1), (507, 2), (512, 3)]);
        assert_eq!(
            wheel.counters().slot_visits,
            4,
            "one bucket per level at 512"
        );
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn inserts_from_unaligned_clocks_follow_due_at() {
        // A jumpy clock and deadlines at every distance: each timer fires in the
        // advance that first reaches due_at of its insert, never earlier.
        let mut wheel = Wheel::new();
        let mut due = Vec::new();
        let mut now = 0;
        for i in 0..4_000u64 {
            let delay = 1 + (i * 2_654_435_761) % (1 << (i % 40));
            let deadline = (now + delay).min(MAX_DEADLINE);
            due.push(Wheel::due_at(now, deadline));
            wheel.insert(deadline, i);
            if i % 3 == 0 {
                now += (i * 40_503) % 3_001;
                for (_, p) in fire(&mut wheel, now) {
                    assert!(due[p as usize] <= now, "{p} fired early");
                    due[p as usize] = Tick::MAX;
                }
                assert!(
                    due.iter().all(|&d| d == Tick::MAX || d > now),
                    "a due timer stayed"
                );
            }
        }
        let rest = wheel.len();
        assert_eq!(fire(&mut wheel, MAX_DEADLINE).len(), rest);
        assert_eq!(wheel.counters().cascades, 0);
    }

    #[test]
    fn overdue_timers_come_first_and_sorted() {
        let mut wheel = Wheel::new();
        wheel.insert(120, 0);
        fire(&mut wheel, 100);
        for (p, d) in [(1, 90), (2, 10), (3, 100), (4, 50)] {
            wheel.insert(d, p);
        }
        assert_eq!(wheel.next_expiry(), Some(10));
        assert_invariants(&wheel);
        assert_eq!(
            fire(&mut wheel, 120),
            [(10, 2), (50, 4), (90, 1), (100, 3), (120, 0)]
        );
    }
}
