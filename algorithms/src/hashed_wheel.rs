//! Hashed timing wheel with sorted buckets: Varghese & Lauck scheme 5.
//!
//! # Idea
//!
//! An array of `slots` buckets, a power of two, and a cursor that moves one slot
//! per tick. A timer due at `deadline` is hashed to slot `deadline & mask`, so the
//! slot the cursor visits at tick `t` holds every timer due at `t`, together with
//! timers due whole revolutions later (`t + slots`, `t + 2 * slots`, ...). Each
//! slot keeps its timers sorted by deadline, so a visit pops from the head while
//! the head is due and stops at the first timer that is not: it touches the due
//! timers plus one head comparison, never the timers of later revolutions. That is
//! the difference from scheme 6 (Netty's `HashedWheelTimer`), whose unsorted
//! buckets are walked whole on every visit to decrement each timer's rounds.
//!
//! This is the single-level wheel of the seed document, whose slots each keep a
//! priority queue ordered by execution time; here the queue is an intrusive
//! doubly-linked list ([`crate::list`]), so cancel is an O(1) unlink through the
//! handle and nothing allocates per operation.
//!
//! Source: G. Varghese and T. Lauck, "Hashed and Hierarchical Timing Wheels: Data
//! Structures for the Efficient Implementation of a Timer Facility", SOSP 1987
//! (IEEE/ACM Transactions on Networking, 1997), scheme 5.
//!
//! ## Insert
//!
//! The new timer is placed after every entry of its slot with an earlier
//! deadline. Two O(1) cases are tried first. At or after the tail: timers of one
//! duration inserted in time order always land there. At or before the head: a
//! timer due within one revolution always lands there, because every other entry
//! of its slot is due the same tick or a whole number of revolutions later.
//! Otherwise the insert walks back from the tail over the entries with later
//! deadlines. Equal deadlines are not kept in insertion order (the contract fires
//! ties in any order): a tie with the tail goes after it and a tie with the head
//! before it, both O(1), where first-in-first-out ties would walk the slot.
//!
//! ## Overdue timers
//!
//! A timer inserted with `deadline <= now` has no slot the cursor will reach in
//! time, so it goes on the shared overdue list, [`Overdue`], which the next
//! [`TimerQueue::advance`] drains first; see [`crate::overdue`].
//!
//! ## Fast-forward
//!
//! An addition to the scheme, never triggered by a driver that advances one tick
//! at a time, which is how a harness drives this wheel since
//! [`TimerQueue::next_expiry`] is `now + 1`. When more than one revolution of
//! ticks remains in an advance, the wheel does not tick through them: with no
//! timer left it jumps straight to the target, and otherwise it takes the earliest
//! pending deadline `D` as the minimum over the slot heads (each head is its
//! slot's minimum), moves the cursor to `min(D, now) - 1` without visiting the
//! skipped ticks, and resumes ticking. After a scan the wheel ticks at least one
//! revolution before it may scan again, so the O(slots) scans at most double the
//! work of plain ticking, while the span they skip is unbounded: a jump of 2^46
//! ticks costs a few scans instead of 2^46 visits. Skipped ticks are not counted
//! as slot visits.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1) at the slot's tail or before its head; else O(entries in the slot), n/slots on average |
//! | cancel | O(1): an unlink through the handle's index |
//! | per tick | O(1): one head comparison, plus O(1) per fired timer |
//! | advance | one tick per tick of the span (see Fast-forward for spans beyond a revolution), plus sorting the overdue timers |
//! | next expiry | O(1), a lower bound: `now + 1`, or the smallest overdue deadline |
//!
//! # Invariants
//!
//! Between calls, with `mask = slots - 1`:
//!
//! * every arena entry with `deadline > now` sits on slot `deadline & mask`, and
//!   every entry with `deadline <= now` on the overdue list: an entry's deadline
//!   alone says which list holds it, which is how cancel finds it;
//! * each slot's list is sorted by deadline, non-decreasing from head to tail
//!   (equal deadlines in no particular order);
//! * so every wheel entry has `deadline > now`: the ticks up to `now` have been
//!   visited, or skipped only when no entry was due in them;
//! * every entry is on exactly one list, so `len()` is the arena's length.
//!
//! # Counters
//!
//! `slot_visits` counts every slot the cursor visits, one per ticked tick;
//! `empty_slot_visits` the visits that fired nothing (the empty ticks);
//! `entries_examined_not_due` a head that was still in the future, at most one per
//! visit; `insert_scan_steps` the entries an insert walked over to find its place,
//! and `reschedule_scan_steps` those a reschedule (a cancel and an insert) walked
//! over.
//! `cascades` stays 0 because there is one level, so no timer ever moves between
//! slots, and `bucket_expirations` stays 0 because the cursor ticks through the
//! slots instead of taking buckets from a DelayQueue.
//!
//! # Parameters
//!
//! `slots`: the number of slots, rounded up to a power of two so that hashing is a
//! mask; default [`DEFAULT_SLOTS`], 2^16. Varghese & Lauck size scheme 5's table
//! to about the number of outstanding timers: then a slot holds O(1) timers and
//! an insert that cannot take one of the two O(1) cases walks O(1) entries. The
//! built-in workloads keep 10^4 to 10^5 timers pending at the default scale
//! (10^6 at the top of the scaling sweep), and a revolution of 2^16 ticks (65.5 s)
//! is longer than their 30 to 60 s timeouts, so a timeout-shaped insert always
//! lands at a slot's tail or head. The price is the slot array, 512 KiB, which
//! the cursor walks one slot per tick. (This row used to have 512 slots,
//! Netty's default for its scheme 6 wheel, which has nothing to do with scheme
//! 5: at 10^5 pending a slot then held about 200 timers spread over 60
//! revolutions, and a random insert walked about half of them.) The reference
//! run also measures 4,096, 16,384 and 2^20 slots (`hashed-wheel@slots=4096`,
//! ...: `registry::for_each_variant`), whose cost against memory the report
//! draws.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List, NIL};
use crate::overdue::Overdue;
use crate::variant::{Configurable, power_of_two, unknown_param};
use crate::{
    Algorithm, Counters, Expired, Family, Param, Tick, TimerQueue, cancel_then_insert,
    check_deadline,
};

/// The default number of slots, 2^16: about the pending population of the
/// built-in workloads, as Varghese & Lauck advise for scheme 5 (see the module
/// documentation). At one tick per millisecond a revolution is 65.5 s.
pub const DEFAULT_SLOTS: usize = 1 << 16;

/// The largest number of slots: 2^30, Netty's limit on `ticksPerWheel`. The slot
/// array alone is then 8 GiB (two `u32` per slot).
pub const MAX_SLOTS: usize = 1 << 30;

/// One pending timer.
#[derive(Debug)]
struct Node<P> {
    deadline: Tick,
    payload: P,
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

/// A hashed timing wheel whose slots are kept sorted by deadline. See the module
/// documentation.
#[derive(Debug)]
pub struct HashedWheel<P> {
    /// Every pending timer, on a slot list or on the overdue list.
    nodes: Arena<Node<P>>,
    /// One sorted list per slot; slot `i` holds the timers with
    /// `deadline & mask == i`. Allocated once, at construction.
    slots: Box<[List]>,
    /// `slots.len() - 1`: the slot of a deadline is `deadline & mask`.
    mask: u64,
    /// Timers inserted with `deadline <= now`, drained by the next advance.
    overdue: Overdue,
    /// The current time, which is also the last tick the cursor reached: the
    /// cursor's slot is `now & mask`.
    now: Tick,
    counters: Counters,
}

impl<P> Default for HashedWheel<P> {
    fn default() -> Self {
        Self::with_slots(DEFAULT_SLOTS)
    }
}

/// The slot count used for a request of `requested` slots: the next power of two.
///
/// # Panics
///
/// If `requested` is 0 or greater than [`MAX_SLOTS`].
fn rounded_slot_count(requested: usize) -> usize {
    assert!(requested > 0, "a wheel needs at least one slot");
    assert!(
        requested <= MAX_SLOTS,
        "{requested} slots is more than MAX_SLOTS ({MAX_SLOTS})"
    );
    requested.next_power_of_two()
}

/// The slot that holds a timer due at `deadline`, for a wheel with mask `mask`.
#[inline]
fn slot_index(deadline: Tick, mask: u64) -> usize {
    // The result is at most `mask`, which is below MAX_SLOTS and so fits usize.
    (deadline & mask) as usize
}

impl<P> HashedWheel<P> {
    /// An empty wheel at time 0 with `slots` slots, rounded up to a power of two.
    ///
    /// # Panics
    ///
    /// If `slots` is 0 or greater than [`MAX_SLOTS`].
    pub fn with_slots(slots: usize) -> Self {
        let count = rounded_slot_count(slots);
        Self {
            nodes: Arena::new(),
            slots: vec![List::EMPTY; count].into_boxed_slice(),
            mask: count as u64 - 1,
            overdue: Overdue::EMPTY,
            now: 0,
            counters: Counters::default(),
        }
    }

    fn deadline_of(&self, index: u32) -> Tick {
        self.nodes.at(index).deadline
    }

    /// The number of ticks in one revolution of the cursor.
    #[inline]
    fn revolution(&self) -> u64 {
        self.mask + 1
    }

    /// Links the unlinked entry `index`, due at `deadline > now`, into its slot
    /// after every entry with an equal or earlier deadline.
    fn link_into_slot(&mut self, index: u32, deadline: Tick) {
        let slot = &mut self.slots[slot_index(deadline, self.mask)];
        let (head, tail) = (slot.head(), slot.tail());
        let predecessor = if tail == NIL || self.nodes.at(tail).deadline <= deadline {
            // The common case for timers of one duration: the latest in its slot.
            tail
        } else if deadline <= self.nodes.at(head).deadline {
            // A timer due within one revolution: the earliest in its slot. A tie
            // with the head goes before it too: the contract lets equal deadlines
            // fire in any order, and keeping them first-in-first-out here would
            // walk back over every later entry of the slot, which on `bimodal`
            // (many timers share a deadline) made an insert tens of times dearer.
            NIL
        } else {
            // Walk back over the entries due later. The head is not due later, so
            // the walk stops on an entry before reaching NIL.
            let mut at = tail;
            let mut steps = 0;
            while self.nodes.at(at).deadline > deadline {
                at = List::prev_of(&self.nodes, at);
                steps += 1;
            }
            self.counters.insert_scan_steps += steps;
            at
        };
        slot.insert_after(&mut self.nodes, predecessor, index);
        debug_assert!(
            {
                let next = List::next_of(&self.nodes, index);
                next == NIL || self.deadline_of(next) >= deadline
            },
            "slot {} out of order after inserting deadline {deadline}",
            slot_index(deadline, self.mask)
        );
    }

    /// Visits the slot of tick `tick`, which the cursor has just reached, and
    /// fires its due timers: those at the head with `deadline <= tick`, which by
    /// the invariants are exactly the ones due at `tick`.
    fn visit(&mut self, tick: Tick, out: &mut Vec<Expired<P>>) {
        self.counters.slot_visits += 1;
        let slot = &mut self.slots[slot_index(tick, self.mask)];
        let mut fired = false;
        loop {
            let head = slot.head();
            if head == NIL {
                break;
            }
            let deadline = self.nodes.at(head).deadline;
            if deadline > tick {
                self.counters.entries_examined_not_due += 1;
                break;
            }
            debug_assert_eq!(
                deadline,
                tick,
                "slot {} held a timer the cursor passed",
                slot_index(tick, self.mask)
            );
            slot.unlink(&mut self.nodes, head);
            let node = self.nodes.remove_at(head);
            out.push(Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
            fired = true;
        }
        if !fired {
            self.counters.empty_slot_visits += 1;
        }
    }

    /// The earliest deadline in the wheel proper, the minimum over the slot heads
    /// since each slot is sorted; `None` when every slot is empty. O(slots).
    fn earliest_in_wheel(&self) -> Option<Tick> {
        self.slots
            .iter()
            .filter(|slot| !slot.is_empty())
            .map(|slot| self.deadline_of(slot.head()))
            .min()
    }
}

impl<P> Algorithm for HashedWheel<P> {
    const NAME: &'static str = "hashed-wheel";
    const FAMILY: Family = Family::Seed;
    const TICKED: bool = true;
    const SUMMARY: &'static str = "V&L 5: 65,536 slots (about the pending population, as V&L \
         advise), each sorted by deadline, ticked";

    fn with_defaults() -> Self {
        Self::with_slots(DEFAULT_SLOTS)
    }

    const TUNABLES: &'static [Param] = &[Param {
        name: "slots",
        default: DEFAULT_SLOTS as u64,
        meaning: "slots in the table, a power of two (V&L: about the pending population)",
    }];

    fn params(&self) -> String {
        format!("slots={}", self.slots.len())
    }
}

impl<P> Configurable for HashedWheel<P> {
    fn with_param(param: &str, value: u64) -> Result<Self, String> {
        match param {
            "slots" => Ok(Self::with_slots(power_of_two(param, value, MAX_SLOTS)?)),
            _ => Err(unknown_param::<Self>(param)),
        }
    }
}

impl<P> TimerQueue<P> for HashedWheel<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            links: Links::UNLINKED,
        });
        if deadline <= self.now {
            self.overdue.push(&mut self.nodes, handle.index(), deadline);
        } else {
            self.link_into_slot(handle.index(), deadline);
        }
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let deadline = self.nodes.get(handle)?.deadline;
        // By the invariants the deadline says which list holds the entry.
        if deadline <= self.now {
            self.overdue.unlink(&mut self.nodes, handle.index());
        } else {
            self.slots[slot_index(deadline, self.mask)].unlink(&mut self.nodes, handle.index());
        }
        Some(self.nodes.remove_at(handle.index()).payload)
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        // A cancel and an insert, whose walk is the reschedule's to count.
        let before = self.counters.insert_scan_steps;
        let moved = cancel_then_insert(self, handle, deadline);
        self.counters.charge_walk_to_reschedule(before);
        moved
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
        let revolution = self.revolution();
        // Ticks still to go before the next fast-forward scan is allowed.
        let mut ticks_before_scan = 0;
        while self.now < now {
            if now - self.now > revolution {
                if self.nodes.is_empty() {
                    // Nothing can fire: skip the whole span.
                    self.now = now;
                    break;
                }
                if ticks_before_scan == 0 {
                    let earliest = self
                        .earliest_in_wheel()
                        .expect("the overdue list is drained, so the wheel holds every timer");
                    debug_assert!(
                        earliest > self.now,
                        "wheel entry due at {earliest} is not after now {}",
                        self.now
                    );
                    // Stop one tick short so that the loop visits `earliest`.
                    self.now = earliest.min(now) - 1;
                    ticks_before_scan = revolution;
                }
            }
            self.now += 1;
            self.visit(self.now, out);
            ticks_before_scan = ticks_before_scan.saturating_sub(1);
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.nodes.is_empty() {
            None
        } else if let Some(bound) = self.overdue.bound() {
            Some(bound)
        } else {
            // The wheel must be ticked: every wheel entry is due after now. Here
            // now < MAX_DEADLINE, since a wheel entry is due after it.
            Some(self.now + 1)
        }
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

    /// Checks every invariant of the module documentation by walking the lists.
    fn assert_invariants<P>(wheel: &HashedWheel<P>) {
        let mut linked = 0;
        for (i, slot) in wheel.slots.iter().enumerate() {
            let mut previous = 0;
            let mut at = slot.head();
            while at != NIL {
                let deadline = wheel.deadline_of(at);
                assert_eq!(slot_index(deadline, wheel.mask), i, "deadline {deadline}");
                assert!(
                    deadline > wheel.now,
                    "deadline {deadline}, now {}",
                    wheel.now
                );
                assert!(
                    previous <= deadline,
                    "slot {i}: {previous} before {deadline}"
                );
                previous = deadline;
                linked += 1;
                at = List::next_of(&wheel.nodes, at);
            }
        }
        let mut at = wheel.overdue.head();
        while at != NIL {
            let deadline = wheel.deadline_of(at);
            assert!(
                deadline <= wheel.now,
                "overdue {deadline}, now {}",
                wheel.now
            );
            assert!(wheel.overdue.bound().is_some_and(|bound| bound <= deadline));
            linked += 1;
            at = List::next_of(&wheel.nodes, at);
        }
        assert_eq!(linked, wheel.nodes.len(), "entries on no list");
    }

    fn fire(wheel: &mut HashedWheel<u64>, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        wheel.advance(now, &mut out);
        assert_invariants(wheel);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn slot_count_rounds_up_to_a_power_of_two() {
        assert_eq!(rounded_slot_count(1), 1);
        assert_eq!(rounded_slot_count(3), 4);
        assert_eq!(rounded_slot_count(512), 512);
        assert_eq!(rounded_slot_count(513), 1024);
        assert_eq!(rounded_slot_count(MAX_SLOTS), MAX_SLOTS);
        assert_eq!(HashedWheel::<u64>::with_slots(500).params(), "slots=512");
    }

    #[test]
    #[should_panic(expected = "at least one slot")]
    fn zero_slots_is_rejected() {
        rounded_slot_count(0);
    }

    #[test]
    fn slot_index_is_the_low_bits() {
        assert_eq!(slot_index(0, 511), 0);
        assert_eq!(slot_index(511, 511), 511);
        assert_eq!(slot_index(512, 511), 0);
        assert_eq!(slot_index(1_234, 511), 1_234 - 1_024);
        assert_eq!(slot_index(MAX_DEADLINE, 511), 0);
        assert_eq!(slot_index(MAX_DEADLINE - 1, 511), 511);
        assert_eq!(slot_index(12_345, 0), 0, "one slot holds everything");
    }

    #[test]
    fn a_slot_stays_sorted_across_revolutions() {
        let mut wheel = HashedWheel::with_slots(512);
        let d = 700;
        for (payload, deadline) in [d + 1_024, d, d + 512, d + 1_024, d + 512]
            .into_iter()
            .enumerate()
        {
            wheel.insert(deadline, payload as u64);
            assert_invariants(&wheel);
        }
        // d + 512 was neither after the tail (d + 1024) nor before the head (d):
        // it walked back over d + 1024; the second d + 512 over both d + 1024.
        assert_eq!(wheel.counters().insert_scan_steps, 3);
        assert_eq!(fire(&mut wheel, d), [(d, 1)]);
        assert_eq!(wheel.counters().entries_examined_not_due, 1);
        assert_eq!(fire(&mut wheel, d + 512), [(d + 512, 2), (d + 512, 4)]);
        assert_eq!(
            fire(&mut wheel, d + 1_024),
            [(d + 1_024, 0), (d + 1_024, 3)]
        );
        assert!(wheel.is_empty());
    }

    #[test]
    fn a_reschedules_walk_is_not_an_inserts() {
        let mut wheel = HashedWheel::with_slots(512);
        let d = 700;
        let moved = wheel.insert(d + 2_048, 0);
        for (payload, deadline) in [d, d + 1_536].into_iter().enumerate() {
            wheel.insert(deadline, payload as u64 + 1);
        }
        // The slot holds d, d + 1536 and d + 2048; d + 1024 goes between the
        // head and the next, stepping over one entry, as a reschedule.
        let inserts_before = wheel.counters().insert_scan_steps;
        wheel.reschedule(moved, d + 1_024).unwrap();
        assert_invariants(&wheel);
        let counters = wheel.counters();
        assert_eq!(
            counters.insert_scan_steps, inserts_before,
            "no insert walked"
        );
        assert_eq!(counters.reschedule_scan_steps, 1, "{counters:?}");
    }

    #[test]
    fn a_tie_with_the_head_goes_before_it_without_a_walk() {
        let mut wheel = HashedWheel::with_slots(512);
        let d = 300;
        // A slot holding d and three timers a revolution or two later.
        for (payload, deadline) in [d, d + 512, d + 512, d + 1_024].into_iter().enumerate() {
            wheel.insert(deadline, payload as u64);
        }
        // Ties with the head and with the tail: each is placed in O(1).
        wheel.insert(d, 4);
        wheel.insert(d, 5);
        wheel.insert(d + 1_024, 6);
        assert_invariants(&wheel);
        assert_eq!(wheel.counters().insert_scan_steps, 0);
        let mut fired = fire(&mut wheel, d);
        fired.sort_unstable();
        assert_eq!(fired, [(d, 0), (d, 4), (d, 5)]);
    }

    #[test]
    fn empty_ticks_are_counted() {
        let mut wheel = HashedWheel::with_slots(512);
        wheel.insert(10, 1);
        assert_eq!(wheel.next_expiry(), Some(1), "the wheel must be ticked");
        assert_eq!(fire(&mut wheel, 10), [(10, 1)]);
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 10);
        assert_eq!(counters.empty_slot_visits, 9);
        assert_eq!(counters.entries_examined_not_due, 0);
        assert_eq!(wheel.next_expiry(), None);
        fire(&mut wheel, 20);
        assert_eq!(
            wheel.counters().empty_slot_visits,
            19,
            "an empty wheel still ticks"
        );
    }

    #[test]
    fn overdue_timers_bound_next_expiry_and_fire_first() {
        let mut wheel = HashedWheel::with_slots(8);
        fire(&mut wheel, 100);
        wheel.insert(101, 1);
        let low = wheel.insert(40, 2);
        wheel.insert(90, 3);
        assert_eq!(wheel.next_expiry(), Some(40));
        assert_eq!(wheel.cancel(low), Some(2));
        assert_eq!(
            wheel.next_expiry(),
            Some(40),
            "a stale minimum is still a bound"
        );
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 101), [(90, 3), (101, 1)]);
    }

    #[test]
    fn a_long_jump_skips_empty_revolutions() {
        let mut wheel = HashedWheel::with_slots(512);
        for (payload, deadline) in [5, 1 << 30, (1 << 40) + 3].into_iter().enumerate() {
            wheel.insert(deadline, payload as u64);
        }
        let fired = fire(&mut wheel, 1 << 41);
        assert_eq!(fired, [(5, 0), (1 << 30, 1), ((1 << 40) + 3, 2)]);
        assert_eq!(wheel.now(), 1 << 41);
        // After each of the three scans the wheel ticks one revolution.
        assert!(
            wheel.counters().slot_visits <= 3 * 512 + 3,
            "{:?}",
            wheel.counters()
        );
    }
}
