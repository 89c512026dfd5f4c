//! The reference model: the contract written as plainly as possible.
//!
//! This is not a contender. It exists so that every algorithm can be compared,
//! operation by operation, with something whose correctness is evident: pending
//! timers in a `BTreeMap` keyed by `(deadline, sequence)`, handles that are the
//! sequence number itself (so a stale handle can never name another timer), and an
//! advance that pops the map's first entries. The conformance suite and the
//! harness's equivalence checksum both use it.

use std::collections::{BTreeMap, HashMap};

use crate::{Expired, Tick};

/// A handle issued by the [`ReferenceModel`]: the insert's sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelHandle(u64);

/// The plain model of the contract. See the module documentation.
#[derive(Debug)]
pub struct ReferenceModel<P> {
    now: Tick,
    next_sequence: u64,
    /// Pending timers by `(deadline, sequence)`: iteration order is firing order.
    pending: BTreeMap<(Tick, u64), P>,
    /// The deadline of every pending timer, by sequence number.
    deadlines: HashMap<u64, Tick>,
}

impl<P> Default for ReferenceModel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> ReferenceModel<P> {
    /// An empty model at time 0.
    pub fn new() -> Self {
        Self {
            now: 0,
            next_sequence: 0,
            pending: BTreeMap::new(),
            deadlines: HashMap::new(),
        }
    }

    /// Schedules `payload` at `deadline`.
    pub fn insert(&mut self, deadline: Tick, payload: P) -> ModelHandle {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        self.pending.insert((deadline, sequence), payload);
        self.deadlines.insert(sequence, deadline);
        ModelHandle(sequence)
    }

    /// Moves a pending timer to `deadline` under a new handle (the old one is
    /// then stale); `None`, changing nothing, if it fired or was cancelled.
    pub fn reschedule(&mut self, handle: ModelHandle, deadline: Tick) -> Option<ModelHandle> {
        let payload = self.cancel(handle)?;
        Some(self.insert(deadline, payload))
    }

    /// Cancels a pending timer; `None` if it fired or was cancelled.
    pub fn cancel(&mut self, handle: ModelHandle) -> Option<P> {
        let deadline = self.deadlines.remove(&handle.0)?;
        self.pending.remove(&(deadline, handle.0))
    }

    /// Fires every timer with `deadline <= now`, earliest first, ties in insertion
    /// order. An earlier `now` does nothing.
    pub fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(entry) = self.pending.first_entry() {
            let (deadline, sequence) = *entry.key();
            if deadline > now {
                break;
            }
            let payload = entry.remove();
            self.deadlines.remove(&sequence);
            out.push(Expired { payload, deadline });
        }
    }

    /// The exact next deadline, or `None` when empty.
    pub fn next_expiry(&self) -> Option<Tick> {
        self.pending.keys().next().map(|&(deadline, _)| deadline)
    }

    /// The current time.
    pub fn now(&self) -> Tick {
        self.now
    }

    /// The number of pending timers.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether no timer is pending.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_in_deadline_then_insertion_order() {
        let mut model = ReferenceModel::new();
        model.insert(5, 'a');
        model.insert(3, 'b');
        model.insert(5, 'c');
        let mut out = Vec::new();
        model.advance(5, &mut out);
        let payloads: Vec<char> = out.iter().map(|e| e.payload).collect();
        assert_eq!(payloads, ['b', 'a', 'c']);
        assert!(model.is_empty());
    }

    #[test]
    fn stale_handle_and_backwards_time() {
        let mut model = ReferenceModel::new();
        let h = model.insert(1, ());
        let mut out = Vec::new();
        model.advance(10, &mut out);
        assert_eq!(model.cancel(h), None);
        model.insert(2, ());
        model.advance(5, &mut out);
        assert_eq!(model.now(), 10, "time never goes backwards");
        assert_eq!(out.len(), 1, "an earlier now fires nothing");
        model.advance(10, &mut out);
        assert_eq!(out.len(), 2, "an overdue timer fires at the next advance");
    }
}
