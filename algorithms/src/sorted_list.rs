//! Ordered doubly-linked list: Varghese & Lauck scheme 2.
//!
//! # Idea
//!
//! Keep every pending timer on one list sorted by deadline. Expiry is then
//! trivial: pop from the head while the head is due. The price is paid at insert,
//! which walks the list to find the new timer's place. This is the "sorted task
//! queue" of the seed documents, and the classic structure of BSD's callout list
//! before wheels. It is a textbook structure: the paper is its reference, and no
//! one implementation was followed.
//!
//! The walk starts from whichever end is nearer to the new deadline, judged by
//! comparing it with the head's and the tail's deadlines. Timers of one duration
//! inserted in time order (request timeouts, say) always land at the tail, so they
//! cost O(1): libevent's "common timeout" insight, here without separate queues.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(n) worst case, O(1) when the deadline is near either end |
//! | cancel | O(1): an unlink through the handle's index |
//! | advance | O(1) per fired timer, plus one comparison |
//! | next expiry | O(1), exact: the head's deadline |
//!
//! # Invariants
//!
//! Deadlines are non-decreasing from head to tail; equal deadlines keep insertion
//! order (a new timer goes after its equals when walking from the tail, before them
//! when walking from the head; the contract allows ties in any order). Every
//! arena entry is on the list.
//!
//! # Counters
//!
//! `insert_scan_steps` counts the entries an insert stepped over, and
//! `reschedule_scan_steps` those a reschedule (a cancel and an insert) stepped
//! over. The list has no slots, so slot visits, empty ticks, cascades and
//! bucket expirations stay 0.
//!
//! # Parameters
//!
//! None. `PENDING_LIMIT` is 20,000: benchmarks skip it on workloads that keep
//! more timers pending, where its O(n) insert would take minutes per pass.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List, NIL};
use crate::{
    Algorithm, Counters, Expired, Family, Tick, TimerQueue, cancel_then_insert, check_deadline,
};

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

/// A timer queue kept as one list sorted by deadline. See the module documentation.
#[derive(Debug)]
pub struct SortedList<P> {
    nodes: Arena<Node<P>>,
    list: List,
    now: Tick,
    counters: Counters,
}

impl<P> Default for SortedList<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> SortedList<P> {
    /// An empty list at time 0.
    pub fn new() -> Self {
        Self {
            nodes: Arena::new(),
            list: List::EMPTY,
            now: 0,
            counters: Counters::default(),
        }
    }

    fn deadline_of(&self, index: u32) -> Tick {
        self.nodes.at(index).deadline
    }

    /// Finds the entry after which a new timer with `deadline` belongs ([`NIL`]
    /// for the head), walking from the nearer end of the list.
    fn find_predecessor(&mut self, deadline: Tick) -> u32 {
        let (head, tail) = (self.list.head(), self.list.tail());
        if head == NIL {
            return NIL;
        }
        let steps;
        let predecessor;
        if walk_from_tail(self.deadline_of(head), self.deadline_of(tail), deadline) {
            // Walk back over every entry with a later deadline.
            let mut at = tail;
            let mut n = 0;
            while at != NIL && self.deadline_of(at) > deadline {
                at = List::prev_of(&self.nodes, at);
                n += 1;
            }
            (steps, predecessor) = (n, at);
        } else {
            // Walk forward over every entry with an earlier deadline; the new
            // timer goes before the first entry at or after its deadline.
            let mut prev = NIL;
            let mut at = head;
            let mut n = 0;
            while at != NIL && self.deadline_of(at) < deadline {
                prev = at;
                at = List::next_of(&self.nodes, at);
                n += 1;
            }
            (steps, predecessor) = (n, prev);
        }
        self.counters.insert_scan_steps += steps;
        predecessor
    }
}

/// Whether a walk for `deadline` should start at the tail: true when the
/// deadline is at least as close to the tail's deadline as to the head's.
#[inline]
fn walk_from_tail(head: Tick, tail: Tick, deadline: Tick) -> bool {
    deadline >= tail || (deadline > head && tail - deadline <= deadline - head)
}

impl<P> Algorithm for SortedList<P> {
    const NAME: &'static str = "sorted-list";
    const FAMILY: Family = Family::Seed;
    const SUMMARY: &'static str = "Varghese & Lauck 2: doubly-linked list sorted by deadline, \
         walked from the nearer end";
    /// At 20,000 pending timers with random deadlines an insert walks about 5,000
    /// entries; beyond that one workload would take minutes per pass.
    const PENDING_LIMIT: usize = 20_000;

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl<P> TimerQueue<P> for SortedList<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let predecessor = self.find_predecessor(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            links: Links::UNLINKED,
        });
        self.list
            .insert_after(&mut self.nodes, predecessor, handle.index());
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        self.nodes.get(handle)?;
        self.list.unlink(&mut self.nodes, handle.index());
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
        self.now = now;
        loop {
            let head = self.list.head();
            if head == NIL || self.deadline_of(head) > now {
                break;
            }
            self.list.unlink(&mut self.nodes, head);
            let node = self.nodes.remove_at(head);
            out.push(Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
        }
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        let head = self.list.head();
        (head != NIL).then(|| self.deadline_of(head))
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

    #[test]
    fn walk_direction_picks_the_nearer_end() {
        assert!(walk_from_tail(0, 100, 100), "at the tail");
        assert!(walk_from_tail(0, 100, 200), "beyond the tail");
        assert!(walk_from_tail(0, 100, 60));
        assert!(!walk_from_tail(0, 100, 40));
        assert!(!walk_from_tail(10, 100, 5), "before the head");
        assert!(!walk_from_tail(10, 100, 10), "at the head");
    }

    #[test]
    fn equal_durations_insert_without_scanning() {
        let mut list = SortedList::new();
        for i in 0..1000 {
            list.insert(i + 30_000, i);
        }
        assert_eq!(list.counters().insert_scan_steps, 0);
    }

    #[test]
    fn a_reschedules_walk_is_not_an_inserts() {
        let mut list = SortedList::new();
        let handles: Vec<Handle> = (0..10).map(|i| list.insert(100 + i, i)).collect();
        assert_eq!(list.counters().insert_scan_steps, 0);
        // From the head end: 100 and 101 lie before 101.5's place.
        list.reschedule(handles[9], 102).unwrap();
        let counters = list.counters();
        assert_eq!(counters.insert_scan_steps, 0, "no insert walked");
        assert!(counters.reschedule_scan_steps > 0, "{counters:?}");
    }

    #[test]
    fn keeps_deadline_order_from_both_ends() {
        let mut list = SortedList::new();
        for (i, d) in [50, 10, 90, 30, 70, 10, 90, 0].into_iter().enumerate() {
            list.insert(d, i);
        }
        let mut out = Vec::new();
        list.advance(100, &mut out);
        let deadlines: Vec<Tick> = out.iter().map(|e| e.deadline).collect();
        assert_eq!(deadlines, [0, 10, 10, 30, 50, 70, 90, 90]);
    }
}
