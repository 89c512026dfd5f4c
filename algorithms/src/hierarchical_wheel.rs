//! Kafka's hierarchical timing wheel driven by a DelayQueue of buckets:
//! Varghese & Lauck scheme 7, as Apache Kafka runs it.
//!
//! # Idea
//!
//! Level 0 is a wheel of `wheel_size` buckets, one tick each. Level `k` has
//! buckets of `wheel_size^k` ticks, so a level covers `wheel_size` times the span
//! of the one below it, and a timer goes into the finest level whose span still
//! reaches its deadline. Levels above 0 are created on demand, the first time a
//! deadline does not fit below them (Kafka's "overflow wheel").
//!
//! What makes it Kafka's wheel rather than a ticked one is the clock. Nothing
//! visits the buckets tick by tick. Every bucket that receives a timer is given an
//! expiration, the start of the span it covers, and is pushed onto a min-heap of
//! `(expiration, bucket)`: Kafka's `DelayQueue`, a heap of *buckets*, not of
//! timers, so it never holds more than `levels * wheel_size` entries. An advance
//! pops the buckets whose expiration has come, moves the wheels' clocks to that
//! expiration, and re-adds every timer of the bucket from level 0: a timer whose
//! deadline the clock has reached fires, the others drop to a finer bucket (the
//! cascade). The clocks move only when a bucket expires, so an idle wheel costs
//! nothing, however long the gap between deadlines.
//!
//! Source: Kafka's `server-common` package `org.apache.kafka.server.util.timer`
//! (`TimingWheel`, `TimerTaskList`, `SystemTimer`), formerly `kafka.utils.timer`
//! in core; the design is described in Confluent's "Apache Kafka, Purgatory, and
//! Hierarchical Timing Wheels". Checked against Kafka commit 1eb7644
//! (trunk, 4.0.0-SNAPSHOT, October 2024): `TimingWheel.add` and `advanceClock`,
//! `TimerTaskList.setExpiration` and `SystemTimer.advanceClock`. Kafka's defaults
//! are kept: a 1 ms tick and 20 buckets per level.
//!
//! # The clocks
//!
//! Every level has a current time, a multiple of its tick. All of them are
//! truncations of one *wheel time* `T`, the expiration of the last bucket taken
//! from the heap (0 at first): level `k`'s current time is `T - T % tick_k`.
//! Kafka's `advanceClock` moves level 0 to the new expiration and walks upwards
//! while a level moves; a level that does not move leaves every level above it
//! with the same truncation, so the walk computes exactly that. A new level starts
//! at the truncation of the level below's current time, as Kafka's overflow wheel
//! starts at the lower wheel's `currentTime`.
//!
//! `T` lags `now`: it is the last *bucket* expiration, not the last advance. An
//! insert is placed relative to `T`, exactly as in Kafka, so a timer may land one
//! level coarser than its delay from `now` suggests and cascade once more, and the
//! bucket it lands in may already have an expiration at or before `now`. Neither
//! makes a timer fire early or late:
//!
//! * **Never early.** A timer fires only when it is re-added from level 0 and its
//!   deadline is at most level 0's current time, which is then the expiration of
//!   the bucket just taken, and the heap gives up a bucket only once its
//!   expiration is at most `now`.
//! * **Never late.** Every timer in the wheel sits in a bucket whose expiration is
//!   at most its deadline, and that bucket is on the heap. An advance takes every
//!   bucket due by `now`, and flushing a bucket of level `k` sends each of its
//!   timers either to `out` or to a level below `k` (its deadline is less than the
//!   expiration plus `tick_k`, which is level `k - 1`'s span from the new clock),
//!   into a bucket whose expiration is again at most its deadline. So within the
//!   same advance every timer due by `now` reaches level 0 and fires.
//!
//! # Output order
//!
//! The contract wants each advance's output in non-decreasing deadline order.
//! A timer in the wheel fires only when a bucket is flushed whose expiration
//! equals its deadline (its deadline lies in `[expiration, expiration + tick_k)`
//! and it fires when it is at most the expiration). Buckets leave the heap in
//! expiration order, and a bucket set during a flush has an expiration above the
//! one being flushed, so the wheel's part of the output is sorted by construction.
//!
//! Timers inserted with a deadline at or before `now` are *overdue*: Kafka hands
//! them to its executor at once, but here they must wait for the next advance. They
//! go on the shared overdue list, [`Overdue`], which the next advance drains into
//! `out` first, sorted; see [`crate::overdue`] for why that batch may go first.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(levels) to find the level, plus an O(log buckets) heap push when the bucket's expiration changes (at most once per bucket per revolution) |
//! | cancel | O(1): an unlink from the bucket's (or the overdue) list; the bucket stays on the heap |
//! | advance | O(log buckets) per bucket taken, O(1) per timer flushed (fired or cascaded), O(k log k) for k overdue timers |
//! | next expiry | O(1): the minimum of the heap's top and the overdue minimum |
//!
//! `levels` is about `log_20(span)` for the longest delay inserted so far: 7 levels
//! reach 20^7 ms, about 15 days. Levels are only ever added. A timer cascades at
//! most once per level it starts above level 0.
//!
//! # Invariants
//!
//! * Level `k + 1`'s tick is level `k`'s span (`interval`), and level 0's tick is 1.
//!   A level whose span would overflow `u64` saturates to `u64::MAX` and covers
//!   every deadline; no level is ever made above it.
//! * An entry in a bucket of level `k` with expiration `e` has its deadline in
//!   `[e, e + tick_k)`.
//! * Every bucket that has its expiration set (every non-empty bucket, and those
//!   emptied by cancels) has exactly one matching `(expiration, bucket)` entry on
//!   the heap, and that expiration is after level `k`'s current time: set buckets
//!   of one level cover distinct ticks of one revolution, so a slot is never asked
//!   to hold two expirations at once. A bucket's expiration goes back to "not set"
//!   only when the bucket is flushed, which happens only when its heap entry is
//!   popped, so the heap holds no stale entries.
//! * Every entry is on exactly one list: a bucket's or the overdue list, as its
//!   `bucket` field records. The overdue list holds only deadlines at or before
//!   `now`, the wheel only deadlines after it.
//!
//! # Counters
//!
//! * `bucket_expirations` and `slot_visits`: one per bucket taken from the heap.
//! * `empty_slot_visits`: a bucket taken from the heap that fired nothing (an
//!   empty tick of a clock that jumps): one emptied by cancels (the emptied
//!   bucket stays in its DelayQueue and its poll is wasted work), or one of a
//!   higher level whose timers all cascaded.
//! * `cascades`: one per entry re-added without firing, that is moved from a
//!   bucket of level `k > 0` to a finer one.
//! * `entries_examined_not_due` stays 0: every entry a flush looks at either fires
//!   or cascades; none is looked at and left where it was.
//! * `insert_scan_steps` stays 0: an insert finds its level by arithmetic on the
//!   level spans and never steps over other entries.
//!
//! # Parameters
//!
//! `wheel_size`, the buckets per level: 20 by default, as in Kafka
//! (`params()` is `"wheel_size=20"`), from [`MIN_WHEEL_SIZE`] to
//! [`MAX_WHEEL_SIZE`]. The tick is one contract tick, Kafka's `tickMs = 1`.
//! The reference run also measures 8, 64 and 512 buckets a level
//! (`hierarchical-wheel@wheel_size=8`, ...: `registry::for_each_variant`):
//! a wider level means fewer levels and cascades, and more buckets taken
//! from the DelayQueue.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::arena::{Arena, Handle};
use crate::divisor::Divisor;
use crate::list::{Linked, Links, List};
use crate::overdue::Overdue;
use crate::variant::{Configurable, in_range, unknown_param};
use crate::{Algorithm, Counters, Expired, Family, Param, Tick, TimerQueue, check_deadline};

/// Buckets per level by default: Kafka's `wheelSize` default of 20.
pub const DEFAULT_WHEEL_SIZE: usize = 20;

/// The smallest wheel size: with one bucket per level a level spans no more than
/// its tick, and the levels would never reach a far deadline.
pub const MIN_WHEEL_SIZE: usize = 2;

/// The largest wheel size. Bucket ids are `u32`s below the overdue marker; with at most
/// 64 levels this leaves ample room. Real wheels are far smaller:
/// Kafka uses 20, tokio and Linux 64, Netty 512.
pub const MAX_WHEEL_SIZE: usize = 1 << 16;

/// Level 0's tick: one contract tick, Kafka's `tickMs = 1`.
const LEVEL_0_TICK: Tick = 1;

/// An upper bound on the number of levels: each level's tick is at least twice
/// the one below (the wheel size is at least 2), ticks fit in `u64`, and the first
/// level whose span overflows covers everything.
const MAX_LEVELS: usize = 64;

/// A bucket's expiration when it is not set: the bucket holds no entries and has
/// no entry on the heap. Kafka uses -1.
const NOT_SET: Tick = Tick::MAX;

/// The `bucket` of an entry on the overdue list rather than in a bucket.
const OVERDUE: u32 = u32::MAX;

/// One pending timer.
#[derive(Debug)]
struct Node<P> {
    deadline: Tick,
    payload: P,
    /// The global id of the bucket whose list holds the entry
    /// (`level * wheel_size + slot`), or [`OVERDUE`].
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

/// One bucket: Kafka's `TimerTaskList`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    /// The entries, in no particular order.
    list: List,
    /// The start of the tick range the bucket covers in its current revolution,
    /// or [`NOT_SET`] when no entry has been added since the last flush.
    expiration: Tick,
}

impl Bucket {
    const EMPTY: Bucket = Bucket {
        list: List::EMPTY,
        expiration: NOT_SET,
    };
}

/// The clock and geometry of one level: Kafka's `TimingWheel`, minus its buckets.
#[derive(Clone, Copy, Debug)]
struct Level {
    /// The span of one bucket: `wheel_size^k` for level `k`, as a [`Divisor`]
    /// because every placement divides a deadline by it.
    tick: Divisor,
    /// The span of the whole level, `tick * wheel_size`, or `u64::MAX` when that
    /// overflows: such a level covers every deadline.
    interval: Tick,
    /// The level's clock, a multiple of `tick`: the wheel time truncated to it.
    current_time: Tick,
}

/// Kafka's hierarchical timing wheel with a DelayQueue of buckets. See the module
/// documentation.
#[derive(Debug)]
pub struct HierarchicalWheel<P> {
    nodes: Arena<Node<P>>,
    /// Level `k`'s buckets are `buckets[k * wheel_size..(k + 1) * wheel_size]`.
    buckets: Vec<Bucket>,
    /// The levels, finest first; level 0 always exists.
    levels: Vec<Level>,
    /// Kafka's DelayQueue: `(expiration, bucket id)` of every bucket whose
    /// expiration is set, smallest first. Ties pop the lower bucket id, and so the
    /// finer level, first.
    heap: BinaryHeap<Reverse<(Tick, u32)>>,
    /// Timers inserted with a deadline at or before `now`; their `bucket` is
    /// [`OVERDUE`].
    overdue: Overdue,
    /// Buckets per level.
    wheel_size: u32,
    /// `wheel_size` as a [`Divisor`], for the slot of a deadline's tick number.
    slots: Divisor,
    now: Tick,
    counters: Counters,
}

/// The bucket of a level with `tick` and `slots` (the wheel size) buckets that
/// holds `deadline`: its slot, the deadline's tick number (Kafka's "virtual id")
/// modulo the wheel size, and its expiration, the start of that tick. The tick
/// is a power of the wheel size, not of two, so neither step is a shift; both
/// are multiplications by precomputed reciprocals (see [`crate::divisor`]),
/// which is what a 64-bit division per placement would otherwise cost.
#[inline]
fn bucket_of(deadline: Tick, tick: Divisor, slots: Divisor) -> (u32, Tick) {
    let virtual_id = tick.quotient(deadline);
    // The remainder is below the wheel size, a `u32`.
    let slot = (virtual_id - slots.round_down(virtual_id)) as u32;
    (slot, virtual_id * tick.get())
}

/// The span of a level with `tick` and `wheel_size` buckets, saturated at
/// `u64::MAX`, which stands for "covers every deadline".
#[inline]
fn level_interval(tick: Tick, wheel_size: u32) -> Tick {
    tick.saturating_mul(u64::from(wheel_size))
}

impl<P> Default for HierarchicalWheel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> HierarchicalWheel<P> {
    /// An empty wheel of [`DEFAULT_WHEEL_SIZE`] buckets per level at time 0.
    pub fn new() -> Self {
        Self::with_wheel_size(DEFAULT_WHEEL_SIZE)
    }

    /// An empty wheel of `wheel_size` buckets per level at time 0.
    ///
    /// # Panics
    ///
    /// If `wheel_size` is outside [`MIN_WHEEL_SIZE`]`..=`[`MAX_WHEEL_SIZE`].
    pub fn with_wheel_size(wheel_size: usize) -> Self {
        assert!(
            (MIN_WHEEL_SIZE..=MAX_WHEEL_SIZE).contains(&wheel_size),
            "wheel size {wheel_size} is outside {MIN_WHEEL_SIZE}..={MAX_WHEEL_SIZE}"
        );
        let wheel_size = u32::try_from(wheel_size).expect("checked against MAX_WHEEL_SIZE");
        Self {
            nodes: Arena::new(),
            buckets: vec![Bucket::EMPTY; wheel_size as usize],
            levels: vec![Level {
                tick: Divisor::new(LEVEL_0_TICK),
                interval: level_interval(LEVEL_0_TICK, wheel_size),
                current_time: 0,
            }],
            // A bucket is in the DelayQueue at most once (it is offered again
            // only after it was taken and flushed), so one heap place per bucket
            // is all it ever needs: reserving it with the buckets keeps the heap
            // from growing, and allocating, in the middle of a run.
            heap: BinaryHeap::with_capacity(wheel_size as usize),
            overdue: Overdue::EMPTY,
            wheel_size,
            slots: Divisor::new(u64::from(wheel_size)),
            now: 0,
            counters: Counters::default(),
        }
    }

    /// Buckets per level.
    pub fn wheel_size(&self) -> usize {
        self.wheel_size as usize
    }

    /// The number of levels created so far.
    pub fn levels(&self) -> usize {
        self.levels.len()
    }

    /// Adds the overflow level above the current top, starting at the top
    /// level's clock truncated to the new tick, as Kafka's overflow wheel does.
    fn add_level(&mut self) {
        let top = *self.levels.last().expect("level 0 always exists");
        debug_assert!(
            top.interval != Tick::MAX && self.levels.len() < MAX_LEVELS,
            "no level above a saturated one: {} levels, top {top:?}",
            self.levels.len()
        );
        let tick = Divisor::new(top.interval);
        self.levels.push(Level {
            tick,
            interval: level_interval(tick.get(), self.wheel_size),
            current_time: tick.round_down(top.current_time),
        });
        let len = self.buckets.len() + self.wheel_size as usize;
        self.buckets.resize(len, Bucket::EMPTY);
        self.heap.reserve(self.wheel_size as usize);
    }

    /// Kafka's `TimingWheel.add` for the unlinked entry `index`, walking up the
    /// levels instead of recursing. Returns `false` if the entry is due (its
    /// deadline is at most level 0's clock) and so was left unlinked.
    fn place(&mut self, index: u32, deadline: Tick) -> bool {
        let level_0 = &self.levels[0];
        // Every caller passes a deadline at or after the wheel time: an insert's
        // is after `now`, a flushed entry's is at least its bucket's expiration.
        debug_assert!(
            deadline >= level_0.current_time,
            "deadline {deadline} is before the wheel time {}",
            level_0.current_time
        );
        if deadline - level_0.current_time < level_0.tick.get() {
            return false;
        }
        // Kafka also checks "already expired" at every higher level, but a
        // deadline reaches level k > 0 only when it is at least level k - 1's
        // clock plus its interval, which is at least level k's clock plus its tick.
        let mut k = 0;
        loop {
            if k == self.levels.len() {
                self.add_level();
            }
            let level = &self.levels[k];
            // No overflow: the deadline is at least every level's clock.
            if deadline - level.current_time < level.interval {
                let tick = level.tick;
                self.link(index, k, tick, deadline);
                return true;
            }
            k += 1;
        }
    }

    /// Puts entry `index` in the bucket of level `k` (with `tick`) that covers
    /// `deadline`, and offers the bucket to the heap if its expiration changed.
    fn link(&mut self, index: u32, k: usize, tick: Divisor, deadline: Tick) {
        let (slot, expiration) = bucket_of(deadline, tick, self.slots);
        // Below MAX_LEVELS * MAX_WHEEL_SIZE, far from u32::MAX.
        let id = k as u32 * self.wheel_size + slot;
        self.nodes.at_mut(index).bucket = id;
        let bucket = &mut self.buckets[id as usize];
        bucket.list.push_back(&mut self.nodes, index);
        if bucket.expiration != expiration {
            // Set buckets of one level cover distinct ticks of one revolution, so
            // a set bucket is only ever asked for the expiration it already has.
            debug_assert_eq!(
                bucket.expiration, NOT_SET,
                "bucket {id} (level {k}) has expiration {} but deadline {deadline} wants {expiration}",
                bucket.expiration
            );
            bucket.expiration = expiration;
            self.heap.push(Reverse((expiration, id)));
        }
    }

    /// Kafka's `advanceClock`: moves level 0's clock to `time` and each level
    /// above to `time` truncated to its tick, stopping at the first level that
    /// does not move (the levels above it would not move either).
    fn advance_clock(&mut self, time: Tick) {
        for level in &mut self.levels {
            debug_assert!(
                time >= level.current_time,
                "clock going back from {} to {time}",
                level.current_time
            );
            if time - level.current_time < level.tick.get() {
                break;
            }
            level.current_time = level.tick.round_down(time);
        }
    }

    /// Takes bucket `id`, popped from the heap with `expiration`: moves the
    /// clocks to it and re-adds every entry from level 0, firing the due ones.
    fn expire_bucket(&mut self, expiration: Tick, id: u32, out: &mut Vec<Expired<P>>) {
        self.counters.bucket_expirations += 1;
        self.counters.slot_visits += 1;
        self.advance_clock(expiration);
        let bucket = &mut self.buckets[id as usize];
        bucket.expiration = NOT_SET;
        let mut entries = bucket.list.take();
        if entries.is_empty() {
            // Every timer in it was cancelled: Kafka's empty DelayQueue poll.
            self.counters.empty_slot_visits += 1;
            return;
        }
        let fired_before = out.len();
        let tick = self.levels[(id / self.wheel_size) as usize].tick.get();
        while let Some(index) = entries.pop_front(&mut self.nodes) {
            let deadline = self.nodes.at(index).deadline;
            debug_assert!(
                deadline >= expiration && deadline - expiration < tick,
                "bucket {id} with expiration {expiration} and tick {tick} held deadline {deadline}"
            );
            if self.place(index, deadline) {
                self.counters.cascades += 1;
            } else {
                let node = self.nodes.remove_at(index);
                out.push(Expired {
                    payload: node.payload,
                    deadline: node.deadline,
                });
            }
        }
        // A bucket whose timers all cascaded fired nothing: an empty tick.
        self.counters.empty_slot_visits += u64::from(out.len() == fired_before);
    }
}

impl<P> Algorithm for HierarchicalWheel<P> {
    const NAME: &'static str = "hierarchical-wheel";
    const FAMILY: Family = Family::Seed;
    const SUMMARY: &'static str = "Kafka's `TimingWheel`: 20-slot levels created on demand, \
         driven by a DelayQueue of buckets";

    fn with_defaults() -> Self {
        Self::new()
    }

    const TUNABLES: &'static [Param] = &[Param {
        name: "wheel_size",
        default: DEFAULT_WHEEL_SIZE as u64,
        meaning: "buckets per level (Kafka's wheelSize); each level's tick is the span of the one below",
    }];

    fn params(&self) -> String {
        format!("wheel_size={}", self.wheel_size)
    }
}

impl<P> Configurable for HierarchicalWheel<P> {
    fn with_param(param: &str, value: u64) -> Result<Self, String> {
        match param {
            "wheel_size" => Ok(Self::with_wheel_size(in_range(
                param,
                value,
                MIN_WHEEL_SIZE,
                MAX_WHEEL_SIZE,
            )?)),
            _ => Err(unknown_param::<Self>(param)),
        }
    }
}

impl<P> TimerQueue<P> for HierarchicalWheel<P> {
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
        } else {
            // The wheel time is at most `now`, so the deadline is after it and
            // `place` always finds a bucket.
            let placed = self.place(index, deadline);
            debug_assert!(placed, "deadline {deadline} after now was due");
        }
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let bucket = self.nodes.get(handle)?.bucket;
        let index = handle.index();
        if bucket == OVERDUE {
            self.overdue.unlink(&mut self.nodes, index);
        } else {
            // The bucket keeps its expiration and its heap entry, as in Kafka;
            // if it is now empty, its expiry will count as an empty slot visit.
            self.buckets[bucket as usize]
                .list
                .unlink(&mut self.nodes, index);
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
        while let Some(&Reverse((expiration, id))) = self.heap.peek() {
            if expiration > now {
                break;
            }
            self.heap.pop();
            // A stale heap entry would be one whose bucket was flushed and set
            // again to another expiration. That cannot happen: a bucket is
            // flushed (and its expiration cleared) only here, when its one heap
            // entry is popped, and it is pushed again only when set anew. The
            // check is kept so that a broken invariant shows in debug builds and
            // costs nothing worse than a skipped entry in release builds.
            let current = self.buckets[id as usize].expiration;
            debug_assert_eq!(
                current, expiration,
                "stale heap entry for bucket {id}: popped {expiration}, bucket has {current}"
            );
            if current != expiration {
                continue;
            }
            self.expire_bucket(expiration, id, out);
        }
        self.now = now;
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.nodes.is_empty() {
            // Buckets emptied by cancels may linger on the heap.
            return None;
        }
        // A bucket's expiration is at most every deadline in it.
        let wheel_min = self.heap.peek().map_or(Tick::MAX, |&Reverse((e, _))| e);
        let bound = wheel_min.min(self.overdue.bound().unwrap_or(Tick::MAX));
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
    use crate::MAX_DEADLINE;

    /// Checks every invariant of the module documentation by walking the whole
    /// structure.
    fn assert_invariants<P>(wheel: &HierarchicalWheel<P>) {
        let ws = wheel.wheel_size as usize;
        assert_eq!(wheel.buckets.len(), wheel.levels.len() * ws);
        assert_eq!(wheel.levels[0].tick.get(), LEVEL_0_TICK);
        let time = wheel.levels[0].current_time;
        for pair in wheel.levels.windows(2) {
            assert_eq!(pair[1].tick.get(), pair[0].interval, "levels {pair:?}");
        }
        let mut linked = 0;
        for (id, bucket) in wheel.buckets.iter().enumerate() {
            let level = wheel.levels[id / ws];
            assert_eq!(level.current_time, time - time % level.tick.get());
            let on_heap = wheel
                .heap
                .iter()
                .filter(|&&Reverse((_, b))| b as usize == id)
                .count();
            if bucket.expiration == NOT_SET {
                assert!(
                    bucket.list.is_empty(),
                    "bucket {id} has entries but no expiration"
                );
                assert_eq!(on_heap, 0, "bucket {id} is not set but on the heap");
                continue;
            }
            assert_eq!(
                on_heap, 1,
                "bucket {id} is set but on the heap {on_heap} times"
            );
            assert!(
                wheel
                    .heap
                    .iter()
                    .any(|&r| r == Reverse((bucket.expiration, id as u32)))
            );
            assert!(bucket.expiration > level.current_time);
            let mut at = bucket.list.head();
            while at != crate::list::NIL {
                let node = wheel.nodes.at(at);
                assert_eq!(node.bucket as usize, id);
                assert!(node.deadline >= bucket.expiration);
                assert!(node.deadline - bucket.expiration < level.tick.get());
                assert!(
                    node.deadline > wheel.now,
                    "a due timer was left in the wheel"
                );
                linked += 1;
                at = List::next_of(&wheel.nodes, at);
            }
        }
        let mut at = wheel.overdue.head();
        while at != crate::list::NIL {
            assert!(wheel.nodes.at(at).deadline <= wheel.now);
            linked += 1;
            at = List::next_of(&wheel.nodes, at);
        }
        assert_eq!(linked, wheel.nodes.len(), "every entry is on one list");
    }

    fn fire(wheel: &mut HierarchicalWheel<u64>, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        wheel.advance(now, &mut out);
        assert_invariants(wheel);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn slot_and_expiration_of_a_deadline() {
        let bucket = |deadline, tick| bucket_of(deadline, Divisor::new(tick), Divisor::new(20));
        // Level 0 of a 20-bucket wheel: one tick per bucket.
        assert_eq!(bucket(3, 1), (3, 3));
        assert_eq!(bucket(23, 1), (3, 23));
        // Level 1: 20 ticks per bucket; 35 is in bucket 1, which starts at 20.
        assert_eq!(bucket(35, 20), (1, 20));
        assert_eq!(
            bucket(400, 20),
            (0, 400),
            "a revolution later, slot 0 again"
        );
        assert_eq!(
            bucket(MAX_DEADLINE, 400).1,
            MAX_DEADLINE - MAX_DEADLINE % 400
        );
        // The top level of a 20-bucket wheel: tick 20^14, slot 2^62 / 20^14 % 20.
        let top = 20u64.pow(14);
        assert_eq!(
            bucket(MAX_DEADLINE, top),
            ((MAX_DEADLINE / top % 20) as u32, MAX_DEADLINE / top * top)
        );
    }

    #[test]
    fn level_spans_grow_by_the_wheel_size_and_saturate() {
        let mut tick = LEVEL_0_TICK;
        for k in 0..14 {
            assert_eq!(tick, 20u64.pow(k));
            tick = level_interval(tick, 20);
        }
        assert_eq!(tick, 20u64.pow(14), "20^14 still fits");
        assert_eq!(level_interval(tick, 20), u64::MAX, "20^15 saturates");
        assert_eq!(level_interval(1 << 62, 2), 1 << 63);
        assert_eq!(level_interval(1 << 63, 2), u64::MAX);
    }

    #[test]
    fn the_farthest_deadline_reaches_a_saturated_level() {
        let mut wheel = HierarchicalWheel::new();
        wheel.insert(MAX_DEADLINE, 1);
        // 20^14 < 2^62 < 20^15: level 13 spans 20^14, and level 14 saturates.
        assert_eq!(wheel.levels(), 15);
        assert_eq!(wheel.levels[14].interval, u64::MAX);
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, MAX_DEADLINE), [(MAX_DEADLINE, 1)]);

        let mut binary = HierarchicalWheel::with_wheel_size(2);
        binary.insert(MAX_DEADLINE, 2);
        // Level k spans 2^(k + 1); level 62 is the first to reach 2^62.
        assert_eq!(binary.levels(), 63);
        assert_eq!(fire(&mut binary, MAX_DEADLINE - 1), []);
        assert_eq!(fire(&mut binary, MAX_DEADLINE), [(MAX_DEADLINE, 2)]);
    }

    #[test]
    fn a_timer_35_ticks_out_cascades_once_then_fires_at_35() {
        let mut wheel = HierarchicalWheel::new();
        wheel.insert(35, 7);
        assert_eq!(wheel.levels(), 2, "35 is beyond level 0's 20 ticks");
        assert_eq!(
            wheel.next_expiry(),
            Some(20),
            "level 1's bucket starts at 20"
        );
        assert_invariants(&wheel);

        assert_eq!(fire(&mut wheel, 34), []);
        let after_cascade = wheel.counters();
        assert_eq!(after_cascade.bucket_expirations, 1);
        assert_eq!(after_cascade.cascades, 1);
        assert_eq!(
            after_cascade.empty_slot_visits, 1,
            "a bucket that only cascades fires nothing"
        );
        assert_eq!(
            wheel.levels[0].current_time, 20,
            "the clock stopped at the bucket"
        );
        assert_eq!(wheel.next_expiry(), Some(35));

        assert_eq!(fire(&mut wheel, 35), [(35, 7)]);
        let counters = wheel.counters();
        assert_eq!(counters.bucket_expirations, 2);
        assert_eq!(counters.slot_visits, 2);
        assert_eq!(counters.cascades, 1);
        assert_eq!(counters.empty_slot_visits, 1);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn a_bucket_emptied_by_cancel_is_one_empty_expiration() {
        let mut wheel = HierarchicalWheel::new();
        let a = wheel.insert(5, 1);
        let b = wheel.insert(5, 2);
        assert_eq!(wheel.cancel(a), Some(1));
        assert_eq!(wheel.cancel(b), Some(2));
        assert_eq!(
            wheel.next_expiry(),
            None,
            "the lingering bucket is not reported"
        );
        assert_eq!(wheel.heap.len(), 1, "the emptied bucket stays on the heap");
        assert_eq!(fire(&mut wheel, 10), []);
        let counters = wheel.counters();
        assert_eq!(counters.bucket_expirations, 1);
        assert_eq!(counters.empty_slot_visits, 1);
        assert!(wheel.heap.is_empty());
    }

    #[test]
    fn an_insert_behind_a_lagging_clock_is_still_on_time() {
        let mut wheel = HierarchicalWheel::new();
        wheel.insert(5, 1);
        assert_eq!(fire(&mut wheel, 1_000), [(5, 1)]);
        // The wheel time is 5, not 1_000, so 1_001 goes to level 2 (tick 400),
        // into a bucket that expires at 800, before now.
        wheel.insert(1_001, 2);
        assert_eq!(wheel.levels(), 3);
        assert_eq!(wheel.next_expiry(), Some(800));
        assert_eq!(
            fire(&mut wheel, 1_000),
            [],
            "two buckets taken, nothing due"
        );
        assert_eq!(wheel.next_expiry(), Some(1_001));
        assert_eq!(fire(&mut wheel, 1_001), [(1_001, 2)]);
        assert_eq!(wheel.counters().cascades, 2);
    }

    #[test]
    fn overdue_timers_come_first_and_sorted() {
        let mut wheel = HierarchicalWheel::new();
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

    #[test]
    fn scattered_timers_keep_the_invariants() {
        let mut wheel = HierarchicalWheel::new();
        let mut handles = Vec::new();
        let mut now = 0;
        let mut fired = 0;
        for i in 0..3_000u64 {
            let deadline = now + (i * 7_919 + 13) % (1 + (i % 7) * 20_011);
            handles.push(wheel.insert(deadline, i));
            if i % 5 == 0 {
                wheel.cancel(handles[(i * 31 % handles.len() as u64) as usize]);
            }
            if i % 17 == 0 {
                now += i % 900;
                let batch = fire(&mut wheel, now);
                assert!(batch.windows(2).all(|w| w[0].0 <= w[1].0));
                assert!(batch.iter().all(|&(d, _)| d <= now));
                fired += batch.len();
            }
        }
        assert_invariants(&wheel);
        let rest = wheel.len();
        assert_eq!(fire(&mut wheel, MAX_DEADLINE).len(), rest);
        assert!(fired > 0 && wheel.is_empty());
    }
}
