//! The standard library's `BTreeMap` keyed by `(deadline, sequence)`: the
//! ordered-map baseline a Rust user writes without a timer crate.
//!
//! # Idea
//!
//! An ordered map is the most direct way to keep timers: key each one by its
//! deadline, made unique by an increasing sequence number so that equal
//! deadlines are distinct keys and leave in insertion (FIFO) order. Advance
//! pops the first entry while it is due; cancel removes the key. The handle has
//! to lead back to the key, so every timer also has a slot in an [`Arena`] (a
//! `Vec` with a free list, what a user would write as a slab) holding its key;
//! the map's value holds the payload and the slot's index, so that a fired timer
//! frees its slot. This is also how the reference model is built
//! ([`crate::reference`]), with a slab where the model uses a `HashMap`.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(log n) `BTreeMap::insert`, plus an O(1) slab insert |
//! | cancel | O(1) slab lookup, then O(log n) `BTreeMap::remove` |
//! | reschedule | in place: O(1) slab lookup, O(log n) remove and O(log n) insert of the moved key; the handle stays |
//! | advance | O(log n) per fired timer (`first_entry` then `remove_entry`) |
//! | next expiry | O(log n), exact: the map's first key (a walk down the left edge) |
//!
//! The logarithms are base 6 to 11 (std's B-tree has `B = 6`, up to 11 keys per
//! node), so the tree is shallow; the cost is in the comparisons inside each node
//! and the pointer chase between nodes.
//!
//! # Allocation
//!
//! Unlike every other queue here, this one allocates in steady state: a B-tree
//! node is allocated when a full node splits and freed when an emptied node
//! merges, and under churn both keep happening at a fixed population. The
//! harness reports those calls (`allocs_measured`); they are part of what the
//! baseline costs, so nothing tries to hide them.
//!
//! # Invariants
//!
//! * The map and the arena hold the same timers: for every entry
//!   `(key, (payload, slot))` of the map, the arena's `slot` holds `key`, and
//!   conversely.
//! * Sequence numbers are unique and increasing, so no two timers share a key
//!   and ties between equal deadlines fire first-in, first-out. A `u64`
//!   sequence does not wrap in any run (2^64 inserts).
//!
//! # Counters
//!
//! An ordered map has no slots, rounds or cascades, so those counters stay 0.
//! The search of an insert or a reschedule inside the B-tree is not visible
//! from outside it: both rows declare `insert_scan_steps` and
//! `reschedule_scan_steps` uncounted ([`Algorithm::UNCOUNTED`]).
//!
//! # Parameters
//!
//! None.
//!
//! # The plain set: `btree-map-plain`
//!
//! [`PlainBTreeSet`] is the same idea written the shortest way, as a native
//! row (see [`crate::driven`]): a `BTreeSet<(deadline, id)>`, the timer id
//! making keys unique, and per timer, in the caller's own record of it, its
//! current deadline (or [`NOT_PENDING`]), which with the id rebuilds the key
//! that cancel removes. No slab, no handles, no sequence numbers: ties fire by
//! id, which is insert order. What `btree-map` pays on top of it (the slab of
//! keys behind generation-checked handles, the payload beside each key) is the
//! price of the contract, shown beside it in the reports. In the reference run
//! (`results/contract_cost.csv`) that price was 1.05x (`periodic`) to 1.57x
//! (`scaling-1e6`) the plain set's time, within 1.10x on 4 of the 11
//! built-ins: a map entry is 32 bytes (key and value) where the set's is 16, so
//! a node holds the same 11 keys in twice the memory, and every operation also
//! touches the slab; both cost most when the tree no longer fits in cache.

use std::collections::{BTreeMap, BTreeSet};

use crate::arena::{Arena, Handle};
use crate::driven::{self, NOT_PENDING};
use crate::{
    Algorithm, Counter, Counters, Expired, Family, Payload, Tick, TimerQueue, check_deadline,
};

/// The counters whose work happens inside `std`, out of sight.
const SIFTS_IN_STD: &[Counter] = &[Counter::InsertScanSteps, Counter::RescheduleScanSteps];

/// The map's key: the deadline, then the insert's sequence number.
type Key = (Tick, u64);

/// A `BTreeMap` of timers with slab handles. See the module documentation.
#[derive(Debug)]
pub struct BTreeMapQueue<P> {
    /// Pending timers by key: iteration order is firing order. The value is the
    /// payload and the timer's slot in `keys`.
    map: BTreeMap<Key, (P, u32)>,
    /// The key of every pending timer, by the slot its handle names.
    keys: Arena<Key>,
    /// The sequence number the next insert takes.
    next_sequence: u64,
    now: Tick,
}

impl<P> Default for BTreeMapQueue<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> BTreeMapQueue<P> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        Self {
            map: BTreeMap::new(),
            keys: Arena::new(),
            next_sequence: 0,
            now: 0,
        }
    }
}

impl<P> Algorithm for BTreeMapQueue<P> {
    const NAME: &'static str = "btree-map";
    const FAMILY: Family = Family::Baseline;
    const UNCOUNTED: &'static [Counter] = SIFTS_IN_STD;
    const SUMMARY: &'static str = "`std::collections::BTreeMap` keyed by (deadline, sequence)";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl<P> TimerQueue<P> for BTreeMapQueue<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let key = (deadline, self.next_sequence);
        self.next_sequence += 1;
        let handle = self.keys.insert(key);
        let previous = self.map.insert(key, (payload, handle.index()));
        debug_assert!(previous.is_none(), "sequence numbers are unique: {key:?}");
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let key = self.keys.remove(handle)?;
        let (payload, _) = self
            .map
            .remove(&key)
            .expect("a pending timer's key is in the map");
        Some(payload)
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        // In place: the slot and the handle stay, the key moves (a new
        // sequence number, so the moved timer fires after the ties already
        // there, as a new insert would).
        let key = self.keys.get_mut(handle)?;
        let value = self
            .map
            .remove(key)
            .expect("a pending timer's key is in the map");
        *key = (deadline, self.next_sequence);
        self.next_sequence += 1;
        self.map.insert(*key, value);
        Some(handle)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(entry) = self.map.first_entry() {
            let (deadline, _) = *entry.key();
            if deadline > now {
                break;
            }
            let (payload, slot) = entry.remove();
            self.keys.remove_at(slot);
            out.push(Expired { payload, deadline });
        }
    }

    fn reserve(&mut self, additional: usize) {
        // A `BTreeMap` cannot reserve: it allocates a node whenever one fills,
        // which is part of what this baseline costs.
        self.keys.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.map
            .first_key_value()
            .map(|(&(deadline, _), _)| deadline)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

/// The ordered set as a user writes it, driven natively. See the module
/// documentation.
#[derive(Debug, Default)]
pub struct PlainBTreeSet {
    set: BTreeSet<(Tick, Payload)>,
    now: Tick,
}

impl Algorithm for PlainBTreeSet {
    const NAME: &'static str = "btree-map-plain";
    const FAMILY: Family = Family::Baseline;
    const UNCOUNTED: &'static [Counter] = SIFTS_IN_STD;
    const NATIVE_OF: Option<&'static str> = Some("btree-map");
    const SUMMARY: &'static str = "the same map written the shortest way, driven natively: \
         `BTreeSet<(deadline, id)>`, the current deadline per id in the caller's record";

    fn with_defaults() -> Self {
        Self::default()
    }

    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl driven::Driven for PlainBTreeSet {
    /// The timer's current deadline, or [`NOT_PENDING`].
    type Key = Tick;

    fn vacant_key() -> Tick {
        NOT_PENDING
    }

    fn insert(&mut self, deadline: Tick, timer: Payload) -> Tick {
        self.set.insert((deadline, timer));
        deadline
    }

    fn cancel(&mut self, key: &mut Tick, timer: Payload) -> bool {
        if *key == NOT_PENDING {
            return false;
        }
        self.set.remove(&(*key, timer));
        *key = NOT_PENDING;
        true
    }

    fn reschedule(&mut self, key: &mut Tick, timer: Payload, deadline: Tick) -> bool {
        if *key == NOT_PENDING {
            return false;
        }
        self.set.remove(&(*key, timer));
        self.set.insert((deadline, timer));
        *key = deadline;
        true
    }

    fn advance(&mut self, now: Tick, keys: &mut [Tick], out: &mut Vec<Expired<Payload>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(&(deadline, timer)) = self.set.first() {
            if deadline > now {
                break;
            }
            self.set.pop_first();
            keys[timer as usize] = NOT_PENDING;
            out.push(Expired {
                payload: timer,
                deadline,
            });
        }
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.set.first().map(|&(deadline, _)| deadline)
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.set.len()
    }

    fn reserve(&mut self, _additional: usize) {
        // A `BTreeSet` cannot reserve, as for `btree-map`.
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_deadlines_fire_first_in_first_out() {
        let mut queue = BTreeMapQueue::new();
        let handles: Vec<Handle> = (0..6).map(|i| queue.insert(9, i)).collect();
        queue.insert(3, 100);
        assert_eq!(queue.cancel(handles[1]), Some(1));
        let mut out = Vec::new();
        queue.advance(9, &mut out);
        let payloads: Vec<_> = out.iter().map(|e| e.payload).collect();
        assert_eq!(payloads, [100, 0, 2, 3, 4, 5]);
        assert!(queue.keys.is_empty(), "fired timers free their slots");
    }

    #[test]
    fn stale_handle_leaves_the_timer_in_its_slot_alone() {
        let mut queue = BTreeMapQueue::new();
        let old = queue.insert(10, 'a');
        let mut out = Vec::new();
        queue.advance(10, &mut out);
        let new = queue.insert(10, 'b');
        assert_eq!(old.index(), new.index(), "the slot is reused");
        assert_eq!(queue.cancel(old), None);
        assert_eq!(queue.len(), 1);
        assert_eq!(queue.cancel(new), Some('b'));
        assert_eq!(queue.next_expiry(), None);
    }
}

#[cfg(test)]
mod native_tests {
    use super::PlainBTreeSet;
    use crate::driven::Driven;

    #[test]
    fn the_plain_set_fires_by_its_keys() {
        let mut set = PlainBTreeSet::default();
        let mut keys = vec![set.insert(10, 0), set.insert(20, 1), set.insert(30, 2)];
        assert!(set.cancel(&mut keys[1], 1));
        assert!(!set.cancel(&mut keys[1], 1), "cancelled already");
        assert!(set.reschedule(&mut keys[0], 0, 25));
        let mut out = Vec::new();
        set.advance(30, &mut keys, &mut out);
        let fired: Vec<_> = out.iter().map(|e| (e.payload, e.deadline)).collect();
        assert_eq!(fired, [(0, 25), (2, 30)]);
        assert!(!set.cancel(&mut keys[0], 0), "fired already");
        assert!(set.is_empty());
    }
}
