//! Level 0: a ring of `NEAR_SLOTS` one-tick slots that slides with the clock,
//! and the advance that takes one of its slots.
//!
//! A deadline less than `NEAR_SLOTS` ticks after the clock is filed in the
//! ring slot of its low `NEAR_BITS` bits, whatever the clock's position in
//! tokio's aligned windows, so it never cascades: the slots below the clock's
//! own are the ring's next lap (`ring_start` in `levels.rs`). A ring slot
//! spans one tick, so it keeps no minimum (its start is its deadline) and every current timer
//! in it is due at its start unless its deadline was pushed back.
//!
//! That is what lets [`SweepWheel::take_near`] be the general slot's sweep cut
//! down: the handles are read where they lie (nothing is filed into the slot
//! while it is swept, since a later deadline goes to another ring slot or a
//! higher level), no vector is taken out and put back, and what fires comes
//! out in deadline order. The small queues advance at almost every tick and
//! most advances take one ring slot holding one handle, so the fixed cost
//! round the timers is most of their work.

use super::SweepWheel;
use super::advance::Swept;
use super::memory::empty_slot_vector;
use super::params::PREFETCH_AHEAD;
use crate::{Expired, Tick};

impl<P> SweepWheel<P> {
    /// Takes level 0's slot `id`, which starts (and ends) at `start`: the
    /// common case of [`Self::take_slot`], cut down to what a one-tick slot
    /// needs. Every current timer there is due at `start` (and so by the
    /// advance's `now`), unless its deadline was pushed back, and what fires
    /// comes out in deadline order. Nothing is ever filed into this slot
    /// while it is swept (a deadline after `start` is another tick of level 0
    /// or on a higher level), so the handles are read where they lie instead
    /// of the vector being taken out and put back.
    #[inline]
    pub(super) fn take_near(&mut self, id: usize, start: Tick, out: &mut Vec<Expired<P>>) {
        self.counters.slot_visits += 1;
        self.elapsed = start;
        self.occupied.clear(id);
        let mut current = 0;
        let mut refiled = 0;
        let mut next = 0;
        // Indexed rather than iterated, since a pushed-back timer is filed
        // (into another slot) while the loop runs.
        while let Some(&handle) = self.slots[id].get(next) {
            if let Some(&ahead) = self.slots[id].get(next + PREFETCH_AHEAD) {
                self.timers.prefetch(ahead);
            }
            next += 1;
            let Some(timer) = self.timers.get(handle) else {
                continue;
            };
            current += 1;
            let when = timer.deadline;
            if when <= start {
                let timer = self.timers.remove_at(handle.index());
                out.push(Expired {
                    payload: timer.payload,
                    deadline: timer.deadline,
                });
            } else {
                self.place(handle, when);
                refiled += 1;
            }
        }
        // Counted as the difference rather than one by one, so that a stale
        // handle costs the loop nothing but its generation check.
        let stale = next as u64 - current;
        let shrinking = self.is_shrinking();
        empty_slot_vector(&mut self.slots[id], shrinking);
        self.count_swept(Swept {
            current,
            stale,
            refiled,
            sorted: true,
        });
    }
}
