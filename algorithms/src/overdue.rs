//! The overdue list: timers inserted already due, kept apart from a wheel.
//!
//! # Why wheels keep overdue timers apart
//!
//! The contract says that a timer inserted with `deadline <= now` fires at the
//! next [`TimerQueue::advance`], even one that does not move the clock, and that
//! each advance hands its timers over in non-decreasing deadline order. A wheel
//! has no bucket for such a timer: a ticked wheel's cursor has already passed
//! every tick up to `now`, and Kafka's wheel only fires a timer when a bucket
//! expires. So each wheel puts these timers on an [`Overdue`] list instead, and
//! every advance first drains the list into the caller's buffer and sorts just
//! the segment it appended. That batch can go first: everything left in a wheel
//! after an advance is due after that advance's `now`, and every overdue timer
//! was inserted due at or before it, so the wheel's part of the next advance
//! comes after the whole batch.
//!
//! # The running minimum
//!
//! [`Overdue`] keeps the smallest deadline pushed since the last drain, which
//! [`Overdue::bound`] reports for a wheel's [`TimerQueue::next_expiry`]. An
//! unlink (a cancel) does not raise it, because finding the new minimum would
//! mean a walk; a minimum left lower than it needs to be is still a lower bound
//! on every deadline on the list, which is all `next_expiry` promises. A drain
//! resets it to `Tick::MAX`.
//!
//! # Which list an entry is on
//!
//! The list does not record its members. Each wheel already knows where an entry
//! sits (`rounds-wheel` and `hierarchical-wheel` by a marker in the entry,
//! `hashed-wheel` by the rule that `deadline <= now` means overdue) and calls
//! [`Overdue::unlink`] only for an entry on this list.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | push | O(1): a push onto an intrusive [`List`] |
//! | unlink | O(1) |
//! | drain | O(k log k) for k entries; the sort is unstable, because the stable sort allocates a buffer and the contract allows ties in any order |
//! | bound | O(1) |
//!
//! Nothing allocates: the entries live in the wheel's [`Arena`], and the drain
//! appends to the caller's buffer.
//!
//! [`TimerQueue::advance`]: crate::TimerQueue::advance
//! [`TimerQueue::next_expiry`]: crate::TimerQueue::next_expiry

use crate::arena::Arena;
use crate::list::{Linked, List};
use crate::{Expired, Tick};

/// Timers inserted with a deadline at or before the current time, waiting for
/// the next advance. See the module documentation.
#[derive(Clone, Debug)]
pub struct Overdue {
    /// The overdue entries, in push order.
    list: List,
    /// The smallest deadline pushed since the last drain, or `Tick::MAX` when
    /// none was: at most every deadline on `list` (an unlink may leave it lower).
    min: Tick,
}

impl Default for Overdue {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Overdue {
    /// An empty overdue list.
    pub const EMPTY: Overdue = Overdue {
        list: List::EMPTY,
        min: Tick::MAX,
    };

    /// Whether no entry is on the list.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The first entry, or [`NIL`](crate::list::NIL): the start of a walk with
    /// [`List::next_of`], for invariant checks.
    #[inline]
    pub fn head(&self) -> u32 {
        self.list.head()
    }

    /// A lower bound on the deadlines on the list, `None` when it is empty: the
    /// running minimum, which an unlink may have left lower than it needs to be.
    #[inline]
    pub fn bound(&self) -> Option<Tick> {
        if self.is_empty() {
            None
        } else {
            Some(self.min)
        }
    }

    /// Appends the unlinked entry `index`, due at `deadline`, and lowers the
    /// running minimum to it.
    #[inline]
    pub fn push<T: Linked>(&mut self, arena: &mut Arena<T>, index: u32, deadline: Tick) {
        self.list.push_back(arena, index);
        self.min = self.min.min(deadline);
    }

    /// Unlinks entry `index`, which must be on this list. The running minimum is
    /// left as it is: it stays a lower bound.
    #[inline]
    pub fn unlink<T: Linked>(&mut self, arena: &mut Arena<T>, index: u32) {
        self.list.unlink(arena, index);
    }

    /// Removes every entry from `arena`, appends each to `out` as `into_expired`
    /// makes it, sorts the appended segment by deadline (the caller's earlier
    /// entries are left as they are), and resets the running minimum.
    pub fn drain_sorted<T: Linked, P>(
        &mut self,
        arena: &mut Arena<T>,
        out: &mut Vec<Expired<P>>,
        mut into_expired: impl FnMut(T) -> Expired<P>,
    ) {
        let start = out.len();
        while let Some(index) = self.list.pop_front(arena) {
            let expired = into_expired(arena.remove_at(index));
            debug_assert!(
                expired.deadline >= self.min,
                "overdue entry {index} has deadline {} below the running minimum {}",
                expired.deadline,
                self.min
            );
            out.push(expired);
        }
        // Unstable: the stable sort allocates a buffer, and ties may come in any
        // order.
        out[start..].sort_unstable_by_key(|expired| expired.deadline);
        self.min = Tick::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list::{Links, NIL};

    #[derive(Debug)]
    struct Node {
        deadline: Tick,
        payload: u32,
        links: Links,
    }

    impl Linked for Node {
        fn links(&self) -> &Links {
            &self.links
        }
        fn links_mut(&mut self) -> &mut Links {
            &mut self.links
        }
    }

    /// Stores a node due at `deadline` and pushes it onto `overdue`.
    fn push(arena: &mut Arena<Node>, overdue: &mut Overdue, deadline: Tick, payload: u32) -> u32 {
        let index = arena
            .insert(Node {
                deadline,
                payload,
                links: Links::UNLINKED,
            })
            .index();
        overdue.push(arena, index, deadline);
        index
    }

    fn drain(arena: &mut Arena<Node>, overdue: &mut Overdue, out: &mut Vec<Expired<u32>>) {
        overdue.drain_sorted(arena, out, |node| Expired {
            payload: node.payload,
            deadline: node.deadline,
        });
    }

    fn expired(deadline: Tick, payload: u32) -> Expired<u32> {
        Expired { payload, deadline }
    }

    /// The payloads on the list, walked from its head.
    fn payloads(arena: &Arena<Node>, overdue: &Overdue) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = overdue.head();
        while at != NIL {
            out.push(arena.at(at).payload);
            at = List::next_of(arena, at);
        }
        out
    }

    #[test]
    fn push_unlink_and_drain_in_deadline_order() {
        let mut arena = Arena::new();
        let mut overdue = Overdue::default();
        assert!(overdue.is_empty());
        assert_eq!(overdue.head(), NIL);
        for (payload, deadline) in [(0, 50), (1, 20), (2, 100), (3, 30)] {
            push(&mut arena, &mut overdue, deadline, payload);
        }
        let gone = push(&mut arena, &mut overdue, 60, 4);
        overdue.unlink(&mut arena, gone);
        arena.remove_at(gone);
        assert_eq!(payloads(&arena, &overdue), [0, 1, 2, 3], "push order");
        assert_eq!(overdue.bound(), Some(20));

        let mut out = Vec::new();
        drain(&mut arena, &mut overdue, &mut out);
        assert_eq!(
            out,
            [
                expired(20, 1),
                expired(30, 3),
                expired(50, 0),
                expired(100, 2)
            ]
        );
        assert!(arena.is_empty(), "drained entries leave the arena");
        assert!(overdue.is_empty());
        assert_eq!(overdue.bound(), None);
    }

    #[test]
    fn the_bound_stays_a_lower_bound_after_a_cancel() {
        let mut arena = Arena::new();
        let mut overdue = Overdue::EMPTY;
        let low = push(&mut arena, &mut overdue, 40, 0);
        let high = push(&mut arena, &mut overdue, 90, 1);
        assert_eq!(overdue.bound(), Some(40));
        overdue.unlink(&mut arena, low);
        arena.remove_at(low);
        assert_eq!(
            overdue.bound(),
            Some(40),
            "a stale minimum is still a bound"
        );
        overdue.unlink(&mut arena, high);
        arena.remove_at(high);
        assert_eq!(overdue.bound(), None, "an empty list bounds nothing");
        drain(&mut arena, &mut overdue, &mut Vec::new());
        assert_eq!(overdue.bound(), None, "a drain resets it");
    }

    #[test]
    fn a_drain_sorts_only_the_segment_it_appends() {
        let mut arena = Arena::new();
        let mut overdue = Overdue::EMPTY;
        for (payload, deadline) in [(0, 30), (1, 10), (2, 20)] {
            push(&mut arena, &mut overdue, deadline, payload);
        }
        let mut out = vec![expired(500, 7), expired(1, 8)];
        drain(&mut arena, &mut overdue, &mut out);
        assert_eq!(
            out,
            [
                expired(500, 7),
                expired(1, 8),
                expired(10, 1),
                expired(20, 2),
                expired(30, 0)
            ]
        );
    }

    #[test]
    fn an_empty_drain_leaves_out_untouched() {
        let mut arena = Arena::new();
        let mut overdue = Overdue::EMPTY;
        let before = vec![expired(9, 0), expired(3, 1)];
        let mut out = before.clone();
        drain(&mut arena, &mut overdue, &mut out);
        assert_eq!(out, before);
        // Also when the list was emptied by unlinks.
        let index = push(&mut arena, &mut overdue, 5, 2);
        overdue.unlink(&mut arena, index);
        arena.remove_at(index);
        drain(&mut arena, &mut overdue, &mut out);
        assert_eq!(out, before);
        assert_eq!(overdue.bound(), None);
    }
}
