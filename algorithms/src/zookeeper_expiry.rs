//! ZooKeeper's expiry queue (`org.apache.zookeeper.server.ExpiryQueue`): every
//! expiration rounded up to the next multiple of a fixed interval, a hash map
//! from each rounded time to the timers that share it, and one bucket taken per
//! interval. The simplest coarse-grained design there is: inexact by a declared
//! bound of one interval, and what a reader running ZooKeeper sessions, or any
//! connection table with idle timeouts, will ask about.
//!
//! # Idea
//!
//! Time is cut into intervals of `INTERVAL` ticks. A timer due at `deadline`
//! goes into the bucket of interval `k = deadline / INTERVAL + 1` and fires when
//! the clock reaches `k * INTERVAL`: ZooKeeper's `roundToNextInterval`,
//! `(time / expirationInterval + 1) * expirationInterval`, which is always later
//! than the deadline, by 1 to `INTERVAL` ticks (a whole interval for a deadline
//! on a boundary): a grace period, never an early expiry. A map keyed by `k`
//! holds each bucket; the queue remembers the next interval to take, and each
//! expiry takes exactly that one bucket (ZooKeeper's `poll` moves
//! `nextExpirationTime` on by one interval and removes that time's set),
//! whether or not anything is in it, so the driver wakes once an interval while
//! anything is pending (`getWaitTime` counts down to the next interval, not to
//! the next non-empty bucket): those wakeups are this design's empty ticks.
//!
//! A session touch (ZooKeeper's `update`) moves the timer to the bucket of its
//! new expiration, and does nothing at all when the new expiration rounds to
//! the bucket it is already in: the fast path that makes the scheme cheap for
//! sessions that ping more often than once an interval. Here that is
//! [`TimerQueue::reschedule`], in place.
//!
//! # Source, and what is kept
//!
//! Read against Apache ZooKeeper's `zookeeper-server/.../server/ExpiryQueue.java`
//! (ZooKeeper commit 0e5a074 on master, unchanged in substance since 3.5): `elemMap`
//! (element to expiration), `expiryMap` (expiration to a set of elements),
//! `roundToNextInterval`, `update` with its "no change" fast path, `remove`
//! (which leaves an emptied set in the map, "they'll eventually be removed when
//! they expire"), and `poll` (one interval per call). `SessionTrackerImpl` runs
//! it with `expirationInterval = tickTime`, ZooKeeper's basic time unit: 2,000
//! ms in the shipped `conf/zoo_sample.cfg` (3,000 ms, `DEFAULT_TICK_TIME`, when
//! nothing sets it), so [`DEFAULT_INTERVAL`] is 2,000 ticks at this suite's
//! 1 ms a tick. `NIOServerCnxnFactory` keeps
//! connections in another `ExpiryQueue` the same way.
//!
//! What is simplified, and why it does not favour the design:
//!
//! * **One thread.** ZooKeeper's maps are `ConcurrentHashMap`s and its clock
//!   an atomic; the contract here is single-threaded, so both are plain.
//! * **A bucket's set is an intrusive list.** ZooKeeper's sets are hash sets
//!   (`ConcurrentHashMap.newKeySet`), with O(1) add and remove; a doubly linked
//!   list through the timer's own entry gives the same O(1) without a hash or
//!   an allocation per element. The map from interval to bucket is a hash map,
//!   as ZooKeeper's, with a multiplicative hash of the interval number (Java's
//!   `Long.hashCode` is about as cheap; SipHash would not be).
//! * **The element's own record is the arena entry**, found by the handle
//!   (ZooKeeper's `elemMap` lookup by element).
//! * **A jump over many intervals is fast-forwarded.** ZooKeeper's expirer
//!   thread wakes every interval, so it never jumps; the contract allows
//!   `advance` to any later tick (a trace may jump to 2^62), and polling every
//!   interval on the way would not end. Beyond [`FAST_FORWARD_INTERVALS`]
//!   intervals, the map's keys are scanned for the earliest bucket and the
//!   intervals before it are skipped without being visited or counted, as the
//!   ticked wheels' fast-forwards are. A driver that wakes at
//!   [`TimerQueue::next_expiry`] never takes this path.
//! * **Overdue inserts** (a deadline at or before the clock) fire at the next
//!   advance, from an [`Overdue`] list, as the contract requires; ZooKeeper's
//!   timeouts are never already past.
//! * **Deadlines near 2^62** round to a bucket past [`MAX_DEADLINE`], which is
//!   clamped to it: the last bucket's time is `MAX_DEADLINE`.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1) expected: a hash lookup (and a map entry for a new interval) and a list push |
//! | cancel | O(1): an unlink; an emptied bucket stays in the map until its interval comes |
//! | reschedule | O(1): nothing when the bucket is the same, else an unlink, a lookup and a push |
//! | advance | O(1) per interval crossed plus O(1) per timer fired |
//! | next expiry | O(1): the next interval boundary |
//!
//! # Invariants
//!
//! * Every pending timer is on exactly one list: the overdue list (`bucket ==
//!   OVERDUE`), or the list of bucket `bucket` in the map, with
//!   `bucket >= self.next`.
//! * `self.next` is the interval whose bucket is taken next; after an advance
//!   to `now`, `bucket_time(self.next) > now`, so a timer inserted with a
//!   deadline after `now` rounds to a bucket at or after `self.next`.
//! * No bucket in the map is below `self.next`: each is removed when taken.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List};
use crate::overdue::Overdue;
use crate::{Algorithm, Counters, Expired, Family, MAX_DEADLINE, Tick, TimerQueue, check_deadline};

/// The session expiry queue's interval, ZooKeeper's `tickTime` as its sample
/// configuration (`conf/zoo_sample.cfg`, which deployments start from) sets
/// it: 2,000 ms, in ticks of 1 ms. The code's own default when no
/// configuration sets it (`ZooKeeperServer.DEFAULT_TICK_TIME`) is 3,000 ms.
pub const DEFAULT_INTERVAL: Tick = 2_000;

/// The most intervals an advance polls one by one before it looks for the
/// earliest bucket instead: a driver that wakes at each interval crosses one,
/// and only a jump (a test, a trace) crosses more.
pub const FAST_FORWARD_INTERVALS: Tick = 64;

/// The `bucket` of an entry on the overdue list.
const OVERDUE: Tick = Tick::MAX;

/// The interval whose bucket holds a timer due at `deadline` (which is after
/// the clock): ZooKeeper's `roundToNextInterval`, as an interval number.
#[inline]
fn bucket_of(deadline: Tick, interval: Tick) -> Tick {
    deadline / interval + 1
}

/// When bucket `bucket` is taken: `bucket * interval`, clamped to
/// [`MAX_DEADLINE`] (only the last bucket reaches past it).
#[inline]
fn bucket_time(bucket: Tick, interval: Tick) -> Tick {
    bucket.saturating_mul(interval).min(MAX_DEADLINE)
}

/// The last bucket a deadline can round to.
#[inline]
fn last_bucket(interval: Tick) -> Tick {
    bucket_of(MAX_DEADLINE, interval)
}

/// A multiplicative (Fibonacci) hash of an interval number: the map's keys are
/// consecutive integers, which it spreads over the table in one multiply.
#[derive(Default)]
pub struct IntervalHasher(u64);

impl Hasher for IntervalHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(FIBONACCI);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 = value.wrapping_mul(FIBONACCI);
    }
}

/// 2^64 divided by the golden ratio, odd: the multiplier of Fibonacci hashing.
const FIBONACCI: u64 = 0x9e37_79b9_7f4a_7c15;

/// One pending timer.
#[derive(Debug)]
struct Node<P> {
    deadline: Tick,
    payload: P,
    /// The interval whose bucket's list holds the entry, or [`OVERDUE`].
    bucket: Tick,
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

/// ZooKeeper's `ExpiryQueue`, with an interval of `INTERVAL` ticks. See the
/// module documentation.
pub struct ZooKeeperExpiry<P, const INTERVAL: Tick = DEFAULT_INTERVAL> {
    nodes: Arena<Node<P>>,
    /// The buckets by interval number: ZooKeeper's `expiryMap`.
    buckets: HashMap<Tick, List, BuildHasherDefault<IntervalHasher>>,
    /// Timers inserted already due.
    overdue: Overdue,
    /// The interval whose bucket is taken next: ZooKeeper's
    /// `nextExpirationTime / expirationInterval`.
    next: Tick,
    now: Tick,
    counters: Counters,
}

impl<P, const INTERVAL: Tick> Default for ZooKeeperExpiry<P, INTERVAL> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P, const INTERVAL: Tick> ZooKeeperExpiry<P, INTERVAL> {
    /// An empty queue at time 0, whose first bucket is taken at `INTERVAL`
    /// (ZooKeeper's constructor rounds its clock up the same way).
    ///
    /// # Panics
    ///
    /// At compile time, if `INTERVAL` is 0.
    pub fn new() -> Self {
        const { assert!(INTERVAL > 0, "an expiry interval is at least one tick") };
        Self {
            nodes: Arena::new(),
            buckets: HashMap::default(),
            overdue: Overdue::EMPTY,
            next: bucket_of(0, INTERVAL),
            now: 0,
            counters: Counters::default(),
        }
    }

    /// Files the entry at `index`, due at `deadline`, into its bucket (or the
    /// overdue list), and records where.
    fn file(&mut self, index: u32, deadline: Tick) {
        let bucket = if deadline <= self.now {
            self.overdue.push(&mut self.nodes, index, deadline);
            OVERDUE
        } else {
            let bucket = bucket_of(deadline, INTERVAL);
            debug_assert!(
                bucket >= self.next,
                "deadline {deadline} after now {} rounds to bucket {bucket}, before the next {}",
                self.now,
                self.next
            );
            self.buckets
                .entry(bucket)
                .or_default()
                .push_back(&mut self.nodes, index);
            bucket
        };
        self.nodes.at_mut(index).bucket = bucket;
    }

    /// Takes the entry at `index` off its list. An emptied bucket stays in
    /// the map until its interval comes, as in ZooKeeper's `remove`.
    fn unfile(&mut self, index: u32) {
        let bucket = self.nodes.at(index).bucket;
        if bucket == OVERDUE {
            self.overdue.unlink(&mut self.nodes, index);
        } else if let Some(list) = self.buckets.get_mut(&bucket) {
            list.unlink(&mut self.nodes, index);
        } else {
            debug_assert!(false, "entry {index} names bucket {bucket}, not in the map");
        }
    }

    /// Takes bucket `self.next` (ZooKeeper's `poll`) and moves on one interval.
    fn take_next(&mut self, out: &mut Vec<Expired<P>>) {
        self.counters.slot_visits += 1;
        match self.buckets.remove(&self.next) {
            Some(mut list) if !list.is_empty() => {
                while let Some(index) = list.pop_front(&mut self.nodes) {
                    let node = self.nodes.remove_at(index);
                    out.push(Expired {
                        payload: node.payload,
                        deadline: node.deadline,
                    });
                }
            }
            _ => self.counters.empty_slot_visits += 1,
        }
        self.next += 1;
    }

    /// The earliest bucket in the map, by a scan of its keys: for a jump only.
    fn earliest_bucket(&self) -> Option<Tick> {
        self.buckets.keys().copied().min()
    }
}

impl<P, const INTERVAL: Tick> Algorithm for ZooKeeperExpiry<P, INTERVAL> {
    const NAME: &'static str = "zookeeper-expiry";
    const FAMILY: Family = Family::Seed;
    const SUMMARY: &'static str = "ZooKeeper's ExpiryQueue: each deadline rounded up to the next \
         multiple of a 2,000-tick interval (the tickTime of ZooKeeper's sample config), a hash map from that time to \
         its timers, one bucket taken per interval. Inexact: fires 1 to 2,000 ticks late";
    const EXACT: bool = false;

    fn due_at(now: Tick, deadline: Tick) -> Tick {
        if deadline <= now {
            deadline
        } else {
            bucket_time(bucket_of(deadline, INTERVAL), INTERVAL)
        }
    }

    fn lateness_bound(_delay: Tick) -> Tick {
        INTERVAL
    }

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("interval={INTERVAL}")
    }
}

impl<P, const INTERVAL: Tick> TimerQueue<P> for ZooKeeperExpiry<P, INTERVAL> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            bucket: OVERDUE,
            links: Links::UNLINKED,
        });
        self.file(handle.index(), deadline);
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        self.nodes.get(handle)?;
        let index = handle.index();
        self.unfile(index);
        Some(self.nodes.remove_at(index).payload)
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let bucket = self.nodes.get(handle)?.bucket;
        let index = handle.index();
        // ZooKeeper's fast path: the same rounded expiration changes nothing
        // but the deadline the timer reports when it fires.
        if deadline > self.now && bucket != OVERDUE && bucket_of(deadline, INTERVAL) == bucket {
            self.nodes.at_mut(index).deadline = deadline;
            return Some(handle);
        }
        self.unfile(index);
        self.nodes.at_mut(index).deadline = deadline;
        self.file(index, deadline);
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
        let last = last_bucket(INTERVAL);
        // The first bucket after `now`, where the clock's next interval is (at
        // most `last`, since `now` is at most `MAX_DEADLINE`).
        let target = bucket_of(now, INTERVAL);
        while self.next <= last && bucket_time(self.next, INTERVAL) <= now {
            if target.saturating_sub(self.next) > FAST_FORWARD_INTERVALS {
                // Nothing is due before the earliest bucket: skip to it (or
                // to the clock's interval), then look again.
                let jump = self.earliest_bucket().unwrap_or(target).min(target);
                if jump > self.next {
                    self.next = jump;
                    continue;
                }
            }
            self.take_next(out);
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
        // ZooKeeper's `getWaitTime`: the next interval, occupied or not.
        let next = bucket_time(self.next, INTERVAL);
        Some(next.min(self.overdue.bound().unwrap_or(Tick::MAX)))
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

    type Queue = ZooKeeperExpiry<u64, 10>;

    fn fire(queue: &mut Queue, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        queue.advance(now, &mut out);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn deadlines_round_up_to_the_next_interval_as_zookeeper_does() {
        assert_eq!(bucket_of(0, 10), 1);
        assert_eq!(bucket_of(9, 10), 1);
        // A deadline on a boundary waits a whole interval.
        assert_eq!(bucket_of(10, 10), 2);
        assert_eq!(Queue::due_at(0, 10), 20);
        assert_eq!(Queue::due_at(0, 11), 20);
        assert_eq!(Queue::due_at(5, 3), 3, "an overdue deadline is due at once");
        assert_eq!(bucket_time(last_bucket(10), 10), MAX_DEADLINE);
        assert_eq!(bucket_time(last_bucket(3), 3), MAX_DEADLINE);
    }

    #[test]
    fn a_bucket_fires_whole_at_its_interval_and_never_early() {
        let mut queue = Queue::new();
        queue.insert(12, 1);
        queue.insert(19, 2);
        queue.insert(20, 3);
        assert_eq!(
            queue.next_expiry(),
            Some(10),
            "the next interval, empty or not"
        );
        assert!(fire(&mut queue, 19).is_empty());
        let mut fired = fire(&mut queue, 20);
        fired.sort_unstable();
        assert_eq!(fired, [(12, 1), (19, 2)]);
        assert_eq!(fire(&mut queue, 30), [(20, 3)]);
        // Intervals 1, 2 and 3 were taken; the first fired nothing.
        assert_eq!(queue.counters().slot_visits, 3);
        assert_eq!(queue.counters().empty_slot_visits, 1);
    }

    #[test]
    fn a_touch_within_the_bucket_changes_only_the_deadline() {
        let mut queue = Queue::new();
        let h = queue.insert(12, 1);
        let before = queue.buckets.len();
        assert_eq!(queue.reschedule(h, 17), Some(h));
        assert_eq!(queue.buckets.len(), before);
        assert_eq!(queue.reschedule(h, 25), Some(h));
        assert!(fire(&mut queue, 20).is_empty());
        assert_eq!(fire(&mut queue, 30), [(25, 1)]);
        assert_eq!(
            queue.reschedule(h, 40),
            None,
            "a fired timer is not pending"
        );
    }

    #[test]
    fn a_far_jump_skips_to_the_earliest_bucket() {
        let mut queue = Queue::new();
        queue.insert(MAX_DEADLINE, 1);
        queue.insert(1_000_000, 2);
        assert_eq!(
            fire(&mut queue, MAX_DEADLINE),
            [(1_000_000, 2), (MAX_DEADLINE, 1)]
        );
        assert!(queue.is_empty());
        // Two buckets taken: the skipped intervals are not visited.
        assert_eq!(queue.counters().slot_visits, 2);
    }
}
