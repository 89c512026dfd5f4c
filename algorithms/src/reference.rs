//! The reference model: the contract written as plainly as possible.
//!
//! This is not a contender. It exists so that every algorithm can be compared,
//! operation by operation, with something whose correctness is evident: pending
//! timers in a `BTreeMap` keyed by `(due tick, sequence)`, handles that are the
//! sequence number itself (so a stale handle can never name another timer), and an
//! advance that pops the map's first entries. The conformance suite and the
//! harness's equivalence checksum both use it.
//!
//! The due tick of a timer is its deadline for the exact model, [`ReferenceModel::new`].
//! For an inexact algorithm, [`ReferenceModel::with_due_at`] takes the algorithm's
//! [`Algorithm::due_at`](crate::Algorithm::due_at) and applies it at insert, to the
//! model's clock and the deadline, exactly as the contract defines the due tick; the
//! model then reproduces that algorithm's fire ticks and cancel outcomes (a late
//! timer stays cancellable after its deadline) while handing out the inserted
//! deadline in [`Expired`].

use std::collections::{BTreeMap, HashMap};

use crate::{Expired, Tick};

/// A handle issued by the [`ReferenceModel`]: the insert's sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelHandle(u64);

/// A due-tick function, `(clock at insert, deadline) -> due tick`: the type of
/// [`Algorithm::due_at`](crate::Algorithm::due_at).
pub type DueAt = fn(Tick, Tick) -> Tick;

/// The exact due tick: the deadline itself.
fn exact(_now: Tick, deadline: Tick) -> Tick {
    deadline
}

/// The plain model of the contract. See the module documentation.
#[derive(Debug)]
pub struct ReferenceModel<P> {
    now: Tick,
    next_sequence: u64,
    /// When a timer inserted at the model's clock is due; [`exact`] by default.
    due_at: DueAt,
    /// Pending timers by `(due tick, sequence)`, with their deadlines: iteration
    /// order is firing order.
    pending: BTreeMap<(Tick, u64), (Tick, P)>,
    /// The due tick of every pending timer, by sequence number.
    due: HashMap<u64, Tick>,
}

impl<P> Default for ReferenceModel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> ReferenceModel<P> {
    /// An empty exact model at time 0: every timer is due at its deadline.
    pub fn new() -> Self {
        Self::with_due_at(exact)
    }

    /// An empty model at time 0 whose timers are due at `due_at(now, deadline)`,
    /// `now` being the model's clock at insert: the model of an inexact algorithm.
    pub fn with_due_at(due_at: DueAt) -> Self {
        Self {
            now: 0,
            next_sequence: 0,
            due_at,
            pending: BTreeMap::new(),
            due: HashMap::new(),
        }
    }

    /// Schedules `payload` at `deadline`.
    pub fn insert(&mut self, deadline: Tick, payload: P) -> ModelHandle {
        let sequence = self.next_sequence;
        self.next_sequence += 1;
        let due = (self.due_at)(self.now, deadline);
        self.pending.insert((due, sequence), (deadline, payload));
        self.due.insert(sequence, due);
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
        let due = self.due.remove(&handle.0)?;
        self.pending
            .remove(&(due, handle.0))
            .map(|(_, payload)| payload)
    }

    /// Fires every timer due by `now`, earliest due tick first, ties in insertion
    /// order. An earlier `now` does nothing.
    pub fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        if now < self.now {
            return;
        }
        self.now = now;
        while let Some(entry) = self.pending.first_entry() {
            let (due, sequence) = *entry.key();
            if due > now {
                break;
            }
            let (deadline, payload) = entry.remove();
            self.due.remove(&sequence);
            out.push(Expired { payload, deadline });
        }
    }

    /// The exact next due tick (the next deadline, for the exact model), or
    /// `None` when empty.
    pub fn next_expiry(&self) -> Option<Tick> {
        self.pending.keys().next().map(|&(due, _)| due)
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

    #[test]
    fn an_inexact_model_fires_by_due_tick_and_keeps_late_timers_cancellable() {
        // Due at the next multiple of 10 after the deadline (overdue: at once).
        fn round_up_to_ten(now: Tick, deadline: Tick) -> Tick {
            if deadline <= now {
                deadline
            } else {
                deadline.div_ceil(10) * 10
            }
        }
        let mut model = ReferenceModel::with_due_at(round_up_to_ten);
        let late = model.insert(11, 'a');
        model.insert(20, 'b');
        model.insert(12, 'c');
        assert_eq!(model.next_expiry(), Some(20));
        let mut out = Vec::new();
        model.advance(15, &mut out);
        assert!(out.is_empty(), "nothing is due before 20");
        assert_eq!(model.cancel(late), Some('a'), "late, but still pending");
        model.insert(3, 'd');
        model.advance(20, &mut out);
        let fired: Vec<(Tick, char)> = out.iter().map(|e| (e.deadline, e.payload)).collect();
        assert_eq!(
            fired,
            [(3, 'd'), (20, 'b'), (12, 'c')],
            "by due tick, ties in insertion order (not deadline order), each with its own deadline"
        );
    }
}
