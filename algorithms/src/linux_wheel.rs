//! Linux's non-cascading timer wheel (`kernel/time/timer.c` since 4.8): every
//! timer is placed once, in the bucket after its deadline's on its level's
//! grid, and never moved. Inexact: it fires late, by at least one tick and at
//! most a bounded fraction of the delay, so that it never cascades.
//!
//! # Idea
//!
//! Levels of 64 buckets; level `n`'s buckets are `8^n` ticks wide
//! (`LVL_CLK_SHIFT = 3`), so each level is eight times coarser than the one below
//! and covers eight times the span. A timer inserted while the clock reads `now`
//! goes into the level whose range holds its delay `deadline - now`: level 0 for
//! delays below 63, level `n` for delays in `[63 * 8^(n-1), 63 * 8^n)` (Linux's
//! `LVL_START(n)` thresholds). Its *bucket expiry* is the first multiple of the
//! level's granularity strictly after its deadline (Linux's `calc_index`:
//! `(expires >> LVL_SHIFT(n)) + 1`, shifted back), and it fires when the clock
//! reaches that expiry: never early, at least one tick late, and at most one
//! granularity late. It is never moved to a finer level as time passes (no
//! cascade), because, as the Linux commit that introduced the design argues,
//! the vast majority of timers (timeouts) are cancelled or re-armed long before
//! they expire, so the work of cascading them is wasted; a coarser expiry is
//! the price.
//!
//! Each level keeps a pending bitmap, bit `s` set when bucket `s` holds a timer.
//! The next expiry is found from the bitmaps (one rotate and one
//! trailing-zeros count per level that holds anything), and the clock jumps
//! straight to it: an empty bucket is never visited.
//!
//! A reschedule is `mod_timer`'s: a timer whose new deadline maps to the bucket
//! it is in only has its deadline rewritten; any other is detached and filed
//! again (see "Reschedule" below).
//!
//! Source: the Linux kernel's `kernel/time/timer.c` (Thomas Gleixner's 2016
//! rework, "timers: Switch to a non-cascading wheel"), read at v6.1.91 (a stored
//! snapshot of the 6.1 stable tree as Android's common kernel carries it,
//! Android common kernel commit 0010b838db9f; its one vendor hook in `calc_index` does nothing in mainline
//! and is ignored here) and checked against a later copy whose `__mod_timer`
//! has the shutdown check that came with `timer_shutdown()` in 6.2: the
//! functions below are the same in both. Read: the constants `LVL_CLK_SHIFT`,
//! `LVL_BITS`, `LVL_START`, `WHEEL_TIMEOUT_CUTOFF` and `WHEEL_TIMEOUT_MAX`;
//! `calc_index` and `calc_wheel_index` (the bucket and its expiry);
//! `__mod_timer` (the reschedule's fast paths); `forward_timer_base`,
//! `collect_expired_timers` and `__run_timers` (what `base->clk` is when a
//! timer is filed); `next_pending_bucket` (the bitmap search). This file is
//! written from that design, not from the kernel's code; the differences below
//! are deliberate.
//!
//! # The due tick, and how it differs from Linux
//!
//! `due_at(now, deadline)`, for `deadline > now`, is the bucket expiry Linux's
//! `calc_wheel_index(deadline, clk)` gives with `clk = now`: with
//! `n = `[`level_for`]`(deadline - now)` and granularity `g = 8^n`, it is
//! `(deadline / g + 1) * g`, [`bucket_expiry`]. An overdue deadline
//! (`deadline <= now`) is due at once, at its deadline, on the overdue list. The
//! due tick depends on `now` only through the level, and the rounding is to the
//! absolute grid of the level (multiples of `g`), not to the clock: so it is a
//! pure function of the clock at insert and the deadline, whatever the clock's
//! alignment, and however the advances between insert and expiry jump.
//!
//! * **Rounding: Linux's "plus one granule".** `calc_index` computes
//!   `((expires >> shift) + 1) << shift`, so a timer is always at least one tick
//!   late, even at level 0, and a deadline on its level's grid is a whole
//!   granularity late: a jiffy timer may be armed at the very end of a tick and
//!   must not fire a fraction of a tick early, and in coarser levels the same
//!   `+ 1` rounds away the truncated bits. Virtual ticks have no inside, so a
//!   plain ceiling would be enough never to fire early (this row used one until
//!   issue 19); the row stands for Linux, so it rounds as Linux does and pays
//!   the same lateness. `LVL_START(n)` is `63 * 8^(n-1)`, one granularity short
//!   of the level's 64 buckets, to leave room for that extra granule (the
//!   kernel's comment on `LVL_START`), and the argument below uses it.
//! * **`clk` is `now`.** Linux measures the delay from `base->clk`. Before a
//!   timer is filed, `forward_timer_base` moves a lagging `clk` up to `jiffies`,
//!   which is this row's `now`; but right after the base ran a bucket at the
//!   current jiffy, `clk` is one ahead of `jiffies` ("1 offset ahead of jiffies
//!   to avoid endless requeuing", `__run_timers`), and the delay one tick
//!   shorter, which moves a deadline exactly on a level threshold one level
//!   finer. Here `clk` is always the queue's `now`, so the due tick depends on
//!   nothing hidden.
//! * **Expired timers.** For an `expires` before `clk`, `calc_wheel_index` takes
//!   `clk`'s level-0 bucket with bucket expiry `clk`, and for `expires == clk`
//!   (delay 0, level 0) it gives `clk + 1`: either way the timer runs at the next
//!   tick the base processes. The contract says a deadline at or before `now`
//!   fires at the next advance, even one that does not move the clock, so here
//!   such a timer goes on the overdue list, is due at its deadline, and fires in
//!   deadline order at the next advance: under a tick driver, which advances one
//!   tick at a time, that is Linux's next tick.
//! * **No clamping.** Linux has 8 or 9 levels (about 12 days at 1000 Hz) and,
//!   for a delay of `WHEEL_TIMEOUT_CUTOFF` (`LVL_START(LVL_DEPTH)`) or more, files
//!   the timer at `clk + WHEEL_TIMEOUT_MAX` in the top level, which fires it
//!   early. The contract forbids early firing and accepts deadlines up to
//!   `MAX_DEADLINE` (2^62), so this wheel has [`LEVELS`] = 20 levels: level 19's
//!   granularity is 2^57 and its range reaches delays of `63 * 2^57 - 1 > 2^62`,
//!   so the clamp is never needed. The 11 extra levels cost 704 empty buckets
//!   (5.5 KiB) and nothing else: a bitmap of occupied levels skips every level
//!   that holds no timer, so a workload whose delays stay below 12 days never
//!   looks at them. An overflow structure instead (a heap of far timers) would
//!   have to hand its timers to the wheel when they come within range, which is
//!   the cascade this design exists to avoid.
//! * **The end of time.** One granule past `MAX_DEADLINE` is beyond it, and the
//!   contract asks that advancing to `MAX_DEADLINE` fire everything. Since 2^62
//!   is a multiple of every granularity, only a deadline of exactly
//!   `MAX_DEADLINE` would be due after it; its bucket expiry is capped to
//!   `MAX_DEADLINE` itself, the one timer this row fires on time (Linux's
//!   `unsigned long` jiffies wrap instead, and it has no such end).
//!
//! # Reschedule: `mod_timer`'s fast paths
//!
//! `__mod_timer` on a pending timer first returns at once if the new `expires`
//! equals the old one; otherwise it forwards the base, computes
//! `calc_wheel_index(expires, clk)`, and if that is the bucket the timer is in,
//! only stores the new `expires` ("avoid the whole dequeue/enqueue dance");
//! otherwise it detaches the timer and enqueues it in its new bucket. Here:
//!
//! * **Same bucket: store the deadline.** A reschedule of a timer in a bucket to
//!   a deadline after `now` computes the new bucket with the same function as an
//!   insert ([`wheel_index`], this row's `calc_wheel_index`); if it is the
//!   timer's bucket (same level, same slot), only the deadline is stored. The fire
//!   tick is then exactly a fresh insert's, `due_at(now, deadline)`, as the
//!   contract judges a reschedule: the bucket's expiry and the new one are both in
//!   the level's window after `now` (see below) and have the same slot, and the
//!   window holds one expiry per slot, so they are equal.
//! * **Equal deadline: not a shortcut.** Linux's first test returns without
//!   looking at the bucket, and its own comment says the price: the timer keeps
//!   the bucket it was filed in from an earlier clock, which "can result in
//!   larger granularity than you would get from adding a new timer with this
//!   expiry". That fire tick is not `due_at(now, deadline)` when the clock has
//!   since brought the deadline into a finer level's range (a deadline 100
//!   filed at 0 is in level 1, due at 104; re-armed to 100 at 50 it belongs in
//!   level 0, due at 101), and the contract would count it a wrong fire. So an
//!   equal deadline takes the same-bucket test like any other: where the bucket
//!   is the same (the common case: a re-arm soon after the last) it costs one
//!   index computation and a store, otherwise the timer moves, to the fire tick
//!   a fresh insert would get.
//! * **Otherwise: detach and file again**, keeping the handle; a deadline at or
//!   before `now` goes on the overdue list, as for an insert. A timer on the
//!   overdue list is always unlinked and linked again.
//!
//! # The lateness bound
//!
//! A timer with delay `d = deadline - now` in level `n = level_for(d)` fires
//! `8^n - deadline % 8^n` ticks late: between 1 and `8^n`, the whole `8^n` for a
//! deadline on the level's grid (0 only for a deadline of `MAX_DEADLINE`). So
//! `lateness_bound(d) = 8^level_for(d)`, exactly:
//!
//! * `d < 63` (level 0): 1 tick, on every timer;
//! * `63 * 8^(n-1) <= d < 63 * 8^n` (level `n >= 1`): at most `8^n`, which is
//!   at most `8 * d / 63`: 12.7% of the delay. That worst ratio belongs to the
//!   delay on a level's threshold (a delay of `63 * 8^(n-1)` may be late by
//!   `8^n`, 8/63 of it); at the top of a level the same `8^n` is 1.6% of the
//!   delay.
//!
//! A 1 s timeout (level 2, granularity 64) fires 1 to 64 ms late, a 60 s one
//! (level 4, granularity 4,096) 1 to 4,096 ms late.
//!
//! # Why a bucket is never taken early, and holds one expiry
//!
//! Bucket `s` of level `n` can hold expiries `E` with `(E / 8^n) % 64 == s`: one
//! per `64 * 8^n` ticks. Every expiry placed from clock `t` satisfies
//! `t < E <= t + 64 * 8^n - 1` (the delay is at most `63 * 8^n - 1`, and the
//! rounding adds at most one granularity, `8^n`: Linux's threshold of 63, not
//! 64, is exactly that room). So at any clock `p` at or after the insert,
//! before the timer fires, `E` is one of the 64 multiples of `8^n` in
//! `(p, p + 64 * 8^n)`, one per bucket: a set bucket's expiry is the unique one
//! of its residue in that window. Two timers in one bucket therefore share
//! their expiry, a same-bucket reschedule keeps it, and the next expiry of a
//! level is the first set bit after the clock's own bucket, found by
//! [`next_in_level`].
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
//! | reschedule | O(1), handle kept: into the same bucket, the index computation and one store; into another, a cancel's unlink and an insert's push |
//! | advance | O(1) per timer fired, O(occupied levels) per distinct expiry reached, O(k log k) for k overdue timers; nothing per tick skipped |
//! | next expiry | O(1): cached |
//!
//! "Occupied levels" is at most [`LEVELS`] and in practice the handful a workload's
//! delays span (levels 0-4 for delays up to a minute).
//!
//! # Invariants
//!
//! * A timer whose deadline was after the clock when it was last filed (by an
//!   insert or a reschedule that moved it) sits in bucket `slot_for(E, n)` of
//!   level `n`, where `n` and `E` were fixed then by [`wheel_index`]:
//!   `deadline < E <= deadline + 8^n` (or `E = deadline = MAX_DEADLINE`),
//!   `now < E` (a late timer's deadline may already be past), and every timer of
//!   that bucket has the same `E`, which is `bucket_expiry(deadline, n)` for
//!   each (a same-bucket reschedule keeps this, see above). A timer filed with
//!   its deadline at or before the clock is on the overdue list until the next
//!   advance. Its `bucket` field records which.
//! * Bit `s` of `pending[n]` is set if and only if bucket `s` of level `n` is not
//!   empty; bit `n` of `occupied` if and only if `pending[n] != 0`.
//! * `next` is the smallest expiry in the wheel (`Tick::MAX` when the wheel is
//!   empty), and so greater than `now`.
//!
//! # Counters
//!
//! * `slot_visits`: one per bucket taken by an advance.
//! * `empty_slot_visits` stays 0: an advance takes only buckets whose pending bit
//!   is set, and a cancel (or a reschedule that moves a timer) clears the bit
//!   when it empties a bucket, so every bucket taken fires at least one timer.
//!   (Linux likewise reads the bitmap, not the buckets.)
//! * `cascades` stays 0: that is the design. A timer is placed once per insert
//!   or moving reschedule.
//! * `entries_examined_not_due` stays 0: every timer of a bucket taken is due.
//! * `bucket_expirations` stays 0 (there is no DelayQueue) and
//!   `insert_scan_steps` stays 0 (an insert computes its bucket). A reschedule
//!   counts nothing, on either path.
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
/// `MAX_DEADLINE`): Linux's `calc_index`, the next multiple of the level's
/// granularity strictly after the deadline, `((deadline >> shift) + 1) << shift`,
/// so at least one tick late and a whole granularity late for a deadline on
/// the grid. Capped at `MAX_DEADLINE` so that advancing there fires everything
/// (see the module documentation); since `2^62` is a multiple of every
/// granularity up to level 20, the cap changes only a deadline of exactly
/// `MAX_DEADLINE`. No overflow: `(2^62 >> 57) + 1` shifted back by 57 is below
/// 2^63.
#[inline]
pub fn bucket_expiry(deadline: Tick, level: usize) -> Tick {
    let shift = level as u32 * LEVEL_CLK_SHIFT;
    (((deadline >> shift) + 1) << shift).min(MAX_DEADLINE)
}

/// The bucket (`level * LEVEL_SIZE + slot`) and bucket expiry of a timer due
/// at `deadline`, filed while the clock reads `now < deadline`: Linux's
/// `calc_wheel_index(expires, clk)` with `clk = now`, for a delay in the
/// wheel's range (which every delay up to `MAX_DEADLINE` is). Insert and the
/// reschedule's same-bucket test both use it, so that "the same bucket" means
/// what it means in `__mod_timer`.
#[inline]
pub fn wheel_index(now: Tick, deadline: Tick) -> (usize, Tick) {
    debug_assert!(deadline > now, "deadline {deadline} is not after {now}");
    let level = level_for(deadline - now);
    let expiry = bucket_expiry(deadline, level);
    (level * LEVEL_SIZE + slot_for(expiry, level), expiry)
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

    /// Files the unlinked entry `index` as an insert does: onto the overdue list
    /// if its deadline is at or before the clock, else into the bucket
    /// [`wheel_index`] gives.
    fn link(&mut self, index: u32) {
        let deadline = self.nodes.at(index).deadline;
        if deadline <= self.now {
            self.nodes.at_mut(index).bucket = OVERDUE;
            self.overdue.push(&mut self.nodes, index, deadline);
            return;
        }
        let (id, expiry) = wheel_index(self.now, deadline);
        let (level, slot) = (id / LEVEL_SIZE, id % LEVEL_SIZE);
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
    }

    /// Unlinks the pending entry `index` from its list. A bucket it empties has
    /// its pending bit cleared, so that no bucket is taken empty, and if that
    /// bucket was the next to expire, `next` is recomputed, so that it stays
    /// exact and a driver never wakes for a bucket that is gone.
    fn unlink(&mut self, index: u32) {
        let node = self.nodes.at(index);
        let (bucket, deadline) = (node.bucket, node.deadline);
        if bucket == OVERDUE {
            self.overdue.unlink(&mut self.nodes, index);
            return;
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
            if bucket_expiry(deadline, level) == self.next {
                self.next = self.next_after(self.now);
            }
        }
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
         coarser; a timer placed once, in the next bucket of its level's grid, never cascaded; \
         `mod_timer`'s same-bucket reschedule. Inexact: fires 1 to `8^n` ticks late in level \
         `n` (at most 8/63, 12.7%, of the delay)";
    const EXACT: bool = false;

    fn due_at(now: Tick, deadline: Tick) -> Tick {
        if deadline <= now {
            deadline
        } else {
            bucket_expiry(deadline, level_for(deadline - now))
        }
    }

    fn lateness_bound(delay: Tick) -> Tick {
        granularity(level_for(delay))
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
        self.link(handle.index());
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        self.nodes.get(handle)?;
        let index = handle.index();
        self.unlink(index);
        Some(self.nodes.remove_at(index).payload)
    }

    /// `__mod_timer`'s way, keeping the handle: a timer in a bucket whose new
    /// deadline, after `now`, maps to that same bucket ([`wheel_index`]) only
    /// has its deadline stored, and fires at the bucket's expiry, which is the
    /// new deadline's; any other is unlinked and linked again, as a cancel and an
    /// insert. An equal deadline takes the same test rather than Linux's
    /// early return, which could leave it later than a fresh insert's due tick
    /// (see the module documentation).
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let bucket = self.nodes.get(handle)?.bucket;
        let index = handle.index();
        if bucket != OVERDUE
            && deadline > self.now
            && wheel_index(self.now, deadline).0 == bucket as usize
        {
            self.nodes.at_mut(index).deadline = deadline;
            return Some(handle);
        }
        self.unlink(index);
        self.nodes.at_mut(index).deadline = deadline;
        self.link(index);
        Some(handle)
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

    /// Advances to `now` and checks the fired timers against `due`, each
    /// timer's due tick by payload (`Tick::MAX` once fired): none fires
    /// before its due tick and none due by `now` stays.
    fn fire_checking_due(wheel: &mut Wheel, now: Tick, due: &mut [Tick]) {
        for (_, p) in fire(wheel, now) {
            assert!(due[p as usize] <= now, "{p} fired early");
            due[p as usize] = Tick::MAX;
        }
        assert!(
            due.iter().all(|&d| d == Tick::MAX || d > now),
            "a due timer stayed"
        );
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
    fn expiries_take_the_next_granule_of_the_level_grid() {
        assert_eq!(granularity(0), 1);
        assert_eq!(granularity(3), 512);
        assert_eq!(bucket_expiry(100, 0), 101, "level 0 is one tick late");
        assert_eq!(bucket_expiry(100, 1), 104);
        assert_eq!(bucket_expiry(103, 1), 104);
        assert_eq!(bucket_expiry(104, 1), 112, "an aligned deadline: a granule");
        assert_eq!(bucket_expiry(105, 1), 112);
        assert_eq!(bucket_expiry(1_000, 3), 1_024);
        assert_eq!(bucket_expiry(1_024, 3), 1_536);
        // The end of time: only MAX_DEADLINE itself is capped.
        assert_eq!(bucket_expiry(MAX_DEADLINE, 0), MAX_DEADLINE);
        assert_eq!(bucket_expiry(MAX_DEADLINE, LEVELS - 1), MAX_DEADLINE);
        assert_eq!(bucket_expiry(MAX_DEADLINE - 1, LEVELS - 1), MAX_DEADLINE);
        assert_eq!(bucket_expiry(MAX_DEADLINE - 1, 0), MAX_DEADLINE);
        assert_eq!(bucket_expiry(MAX_DEADLINE - 2, 0), MAX_DEADLINE - 1);
        assert_eq!(bucket_expiry(1, LEVELS - 1), 1 << 57);
        assert_eq!(slot_for(104, 1), 13);
        assert_eq!(slot_for(104 + 512, 1), 13, "a revolution later");
    }

    #[test]
    fn due_ticks_keep_the_declared_bound() {
        type L = Wheel;
        const { assert!(!L::EXACT) };
        // Level 0: one tick late, as Linux's `+ 1`.
        assert_eq!(L::due_at(10, 72), 73);
        assert_eq!(L::due_at(10, 11), 12);
        assert_eq!(L::lateness_bound(1), 1);
        assert_eq!(L::lateness_bound(62), 1);
        // 63 ticks away: level 1, the next multiple of 8.
        assert_eq!(L::due_at(10, 73), 80);
        assert_eq!(L::lateness_bound(63), 8);
        // The same deadline from a later clock lands in a finer level.
        assert_eq!(L::due_at(11, 73), 74);
        // A 1 s timeout from an unaligned clock: level 2, granularity 64.
        assert_eq!(L::due_at(777, 1_777), 1_792);
        assert_eq!(L::lateness_bound(1_000), 64);
        // A minute: level 4, granularity 4,096.
        assert_eq!(L::due_at(0, 60_000), 61_440);
        assert_eq!(L::lateness_bound(60_000), 4_096);
        // Overdue, even a deadline equal to the clock: at once.
        assert_eq!(L::due_at(500, 500), 500);
        assert_eq!(L::due_at(500, 3), 3);
        // The bound is 8^n, at most 8/63 of the delay from level 1 on, with
        // equality on the level's threshold.
        for n in 1..LEVELS {
            let start = level_start(n);
            assert_eq!(L::lateness_bound(start), granularity(n));
            assert_eq!(
                u128::from(L::lateness_bound(start)) * 63,
                u128::from(start) * 8
            );
            assert_eq!(L::lateness_bound(level_start(n + 1) - 1), granularity(n));
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
        assert_eq!(wheel.next_expiry(), Some(31), "level 0: one tick late");
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
        // (at 450), and one level-0 timer due a tick after its deadline, before
        // them.
        wheel.insert(510, 1);
        fire(&mut wheel, 440);
        wheel.insert(507, 2);
        fire(&mut wheel, 450);
        wheel.insert(511, 3);
        wheel.insert(509, 4);
        assert_invariants(&wheel);
        assert_eq!(wheel.next_expiry(), Some(510));
        assert_eq!(fire(&mut wheel, 511), [(509, 4)], "level 0 is a tick late");
        let mut fired = fire(&mut wheel, 600);
        fired.sort_unstable_by_key(|&(_, p)| p);
        assert_eq!(fired, [(510, 1), (507, 2), (511, 3)]);
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
                fire_checking_due(&mut wheel, now, &mut due);
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
        // 120, inserted at 0 in level 1, is due at 128.
        assert_eq!(fire(&mut wheel, 120), [(10, 2), (50, 4), (90, 1), (100, 3)]);
        assert_eq!(fire(&mut wheel, 128), [(120, 0)]);
    }

    #[test]
    fn an_aligned_deadline_is_a_whole_granule_late() {
        // Level 1 (delays 63 to 503) has granularity 8: 80 is on its grid.
        assert_eq!(Wheel::due_at(0, 79), 80);
        assert_eq!(Wheel::due_at(0, 80), 88);
        assert_eq!(Wheel::due_at(0, 81), 88);
        // Level 0: every deadline is on the grid, a tick late.
        assert_eq!(Wheel::due_at(0, 5), 6);
        let mut wheel = Wheel::new();
        wheel.insert(80, 1);
        wheel.insert(79, 2);
        assert_eq!(fire(&mut wheel, 80), [(79, 2)]);
        assert_eq!(fire(&mut wheel, 87), []);
        assert_eq!(fire(&mut wheel, 88), [(80, 1)], "8 ticks late");
    }

    #[test]
    fn the_wheel_index_is_calc_wheel_index_from_now() {
        // Delay 62: level 0, the bucket of 63.
        assert_eq!(wheel_index(0, 62), (63, 63));
        // Delay 63 (LVL_START(1)): level 1, the bucket of 64, slot 8.
        assert_eq!(wheel_index(0, 63), (LEVEL_SIZE + 8, 64));
        // The slot is the expiry's, not the deadline's: 127 + 1 wraps to 0.
        assert_eq!(wheel_index(100, 127), (0, 128));
        // Delay 504 (LVL_START(2)) from an unaligned clock.
        assert_eq!(wheel_index(3, 507), (2 * LEVEL_SIZE + 8, 512));
        // The farthest deadline: the top level, capped at MAX_DEADLINE.
        let (id, expiry) = wheel_index(0, MAX_DEADLINE);
        assert_eq!(id / LEVEL_SIZE, LEVELS - 1);
        assert_eq!(expiry, MAX_DEADLINE);
        assert_eq!(id % LEVEL_SIZE, slot_for(MAX_DEADLINE, LEVELS - 1));
        // Always the due tick the contract is judged by.
        for (now, deadline) in [(0, 1), (5, 70), (777, 1_777), (1 << 40, 1 << 41)] {
            assert_eq!(wheel_index(now, deadline).1, Wheel::due_at(now, deadline));
        }
    }

    #[test]
    fn a_same_bucket_mod_timer_only_stores_the_expiry() {
        let mut wheel = Wheel::new();
        // 1,000 from 0: level 2, the bucket of 1,024 (deadlines 960 to 1,023).
        let handle = wheel.insert(1_000, 1);
        let other = wheel.insert(1_010, 2);
        let bucket = wheel.nodes.at(handle.index()).bucket;
        let head = wheel.buckets[bucket as usize].head();
        assert_eq!(wheel.reschedule(handle, 1_020), Some(handle), "same handle");
        assert_eq!(
            wheel.reschedule(handle, 970),
            Some(handle),
            "earlier, same bucket"
        );
        let node = wheel.nodes.at(handle.index());
        assert_eq!(
            (node.bucket, node.deadline),
            (bucket, 970),
            "stored, not moved"
        );
        assert_eq!(
            wheel.buckets[bucket as usize].head(),
            head,
            "the list is untouched"
        );
        assert_eq!(wheel.next_expiry(), Some(1_024));
        assert_invariants(&wheel);
        // 1,024 is on the grid: the next bucket, 1,088. The timer moves.
        assert_eq!(wheel.reschedule(other, 1_024), Some(other));
        assert_ne!(wheel.nodes.at(other.index()).bucket, bucket);
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 1_023), []);
        assert_eq!(fire(&mut wheel, 1_024), [(970, 1)]);
        assert_eq!(fire(&mut wheel, 1_088), [(1_024, 2)]);
        assert_eq!(wheel.reschedule(handle, 2_000), None, "fired: stale");
        assert_eq!(wheel.counters().slot_visits, 2);
        assert_eq!(wheel.counters().empty_slot_visits, 0);
    }

    #[test]
    fn an_equal_expiry_moves_when_the_clock_brings_it_into_a_finer_level() {
        let mut wheel = Wheel::new();
        // 100 from 0: level 1, due at 104.
        let handle = wheel.insert(100, 1);
        let bucket = wheel.nodes.at(handle.index()).bucket;
        assert_eq!(wheel.reschedule(handle, 100), Some(handle));
        assert_eq!(wheel.nodes.at(handle.index()).bucket, bucket, "same bucket");
        fire(&mut wheel, 50);
        // From 50 the delay is 50: level 0, due at 101, as a fresh insert. Linux's
        // early return for an equal expiry would have left it due at 104.
        assert_eq!(Wheel::due_at(50, 100), 101);
        assert_eq!(wheel.reschedule(handle, 100), Some(handle));
        assert_ne!(wheel.nodes.at(handle.index()).bucket, bucket, "moved");
        assert_eq!(wheel.next_expiry(), Some(101));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 101), [(100, 1)]);
    }

    #[test]
    fn a_reschedule_to_the_clock_or_before_fires_at_the_next_advance() {
        let mut wheel = Wheel::new();
        let handle = wheel.insert(1_000, 1);
        fire(&mut wheel, 200);
        assert_eq!(wheel.reschedule(handle, 200), Some(handle));
        assert_eq!(wheel.next_expiry(), Some(200));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 200), [(200, 1)], "an advance by zero");
        // From the overdue list to the wheel.
        let handle = wheel.insert(150, 2);
        assert_eq!(wheel.reschedule(handle, 300), Some(handle));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 200), []);
        // 100 ticks away: level 1, the next multiple of 8.
        assert_eq!(fire(&mut wheel, 303), []);
        assert_eq!(fire(&mut wheel, 304), [(300, 2)]);
        let cancelled = wheel.insert(400, 3);
        assert_eq!(wheel.cancel(cancelled), Some(3));
        assert_eq!(wheel.reschedule(cancelled, 500), None, "cancelled: stale");
    }

    #[test]
    fn reschedules_fire_where_a_fresh_insert_would() {
        // Idle timeouts re-armed to the clock plus their timeout (the fast
        // path's case), mixed with re-arms to the past and far away, from a
        // clock that mostly creeps and sometimes jumps: each timer fires in the
        // first advance that reaches `due_at` of its last insert or reschedule.
        let mut wheel = Wheel::new();
        let mut due = Vec::new();
        let mut timeouts = Vec::new();
        let mut handles = Vec::new();
        let mut now = 0;
        let mut in_place = 0;
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..4_000u64 {
            let timeout = 1 + next() % (1 << (next() % 24));
            due.push(Wheel::due_at(now, now + timeout));
            timeouts.push(timeout);
            handles.push(wheel.insert(now + timeout, i));
            for _ in 0..3 {
                let p = (next() % due.len() as u64) as usize;
                if due[p] == Tick::MAX {
                    assert_eq!(wheel.reschedule(handles[p], now + 5), None);
                    continue;
                }
                let deadline = match next() % 8 {
                    0 => now.saturating_sub(next() % 100),
                    1 => now + next() % (1 << (next() % 30)),
                    _ => now + timeouts[p],
                };
                let before = wheel.nodes.at(handles[p].index()).bucket;
                assert_eq!(wheel.reschedule(handles[p], deadline), Some(handles[p]));
                if before != OVERDUE && wheel.nodes.at(handles[p].index()).bucket == before {
                    in_place += 1;
                }
                due[p] = Wheel::due_at(now, deadline);
            }
            if i % 5 == 0 {
                now += next() % if next() % 10 == 0 { 30_000 } else { 50 };
                fire_checking_due(&mut wheel, now, &mut due);
            }
        }
        assert!(in_place > 100, "only {in_place} same-bucket reschedules");
        let rest = wheel.len();
        assert_eq!(fire(&mut wheel, MAX_DEADLINE).len(), rest);
        assert_eq!(wheel.counters().empty_slot_visits, 0);
    }
}
