//! The shape of a tape, measured from its operations: how much it measures,
//! how many timers are cancelled or re-armed, how far ahead deadlines fall and
//! how many timers are pending at once.
//!
//! [`Shape::of`] is what the crate README's table of built-ins shows (see
//! `readme.rs`) and what the tests in `tests/builtins.rs` hold a built-in to
//! when its source states a figure. It reads the tape only, never the spec, so
//! it measures what the generator made, not what the spec asked for; it works
//! on a recorded trace too.
//!
//! Every figure except the peak is over the measured phase, `ops[prefill..]`:
//! the prefill only builds the population at time 0. Pending timers are
//! followed the way the event driver runs a tape: before each operation,
//! every timer due by its tick fires; a cancel or reschedule of a timer that
//! is no longer pending changes nothing (only a trace has those).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::tape::{Op, Tape, Tick};

/// What a tape does, in counts and delays. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Operations in the measured phase: every operation after the prefill.
    pub measured_ops: usize,
    /// Inserts in the measured phase (a periodic task's re-insert counts: it
    /// is a new timer).
    pub inserts: usize,
    /// Cancels in the measured phase that found their timer pending, whether
    /// it was inserted in the prefill or later.
    pub cancels: usize,
    /// Reschedules in the measured phase, pending timer or not: each is an
    /// operation the queue serves.
    pub reschedules: usize,
    /// Percentiles of the delay of the measured inserts and reschedules; `None`
    /// when the measured phase has neither.
    pub delays: Option<Delays>,
    /// The most timers pending at once, after any operation, the prefill
    /// included.
    pub peak_pending: usize,
}

/// Percentiles of delays: a deadline minus the tick of the operation that
/// set it, 0 for a deadline already past. Each is a nearest-rank percentile:
/// the smallest delay that at least that share of the delays do not exceed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delays {
    /// The median.
    pub p50: Tick,
    /// The 90th percentile.
    pub p90: Tick,
    /// The 99th percentile.
    pub p99: Tick,
    /// The longest.
    pub max: Tick,
}

impl Shape {
    /// Measures `tape`. It follows every timer's state, so it takes a heap of
    /// every deadline set and a word per timer: about the tape's own size.
    pub fn of(tape: &Tape) -> Shape {
        let mut pending = Pending::new(tape.timers as usize);
        let mut shape = Shape {
            measured_ops: tape.ops.len() - tape.prefill,
            inserts: 0,
            cancels: 0,
            reschedules: 0,
            delays: None,
            peak_pending: 0,
        };
        let mut delays = Vec::new();
        for (index, timed) in tape.ops.iter().enumerate() {
            pending.advance(timed.at);
            let measured = index >= tape.prefill;
            match timed.op {
                Op::Insert { timer, deadline } => {
                    pending.insert(timer, deadline);
                    if measured {
                        shape.inserts += 1;
                        delays.push(deadline.saturating_sub(timed.at));
                    }
                }
                Op::Cancel { timer } => {
                    if pending.cancel(timer) && measured {
                        shape.cancels += 1;
                    }
                }
                Op::Reschedule { timer, deadline } => {
                    pending.reschedule(timer, deadline);
                    if measured {
                        shape.reschedules += 1;
                        delays.push(deadline.saturating_sub(timed.at));
                    }
                }
            }
            shape.peak_pending = shape.peak_pending.max(pending.count);
        }
        delays.sort_unstable();
        shape.delays = Delays::of_sorted(&delays);
        shape
    }

    /// Measured cancels that found their timer pending, as a share of
    /// measured inserts (0 when there are none). In a steady state cancels
    /// and inserts come at steady rates, so this is the share of timers whose
    /// life ends in a cancel, even though the measured phase cuts some lives
    /// short at either end.
    pub fn cancelled(&self) -> f64 {
        ratio(self.cancels, self.inserts)
    }

    /// Reschedules as a share of the measured operations (0 when there are
    /// none).
    pub fn rescheduled(&self) -> f64 {
        ratio(self.reschedules, self.measured_ops)
    }
}

impl Delays {
    /// The percentiles of `sorted`, which is in ascending order; `None` when
    /// it is empty.
    fn of_sorted(sorted: &[Tick]) -> Option<Delays> {
        Some(Delays {
            p50: percentile(sorted, 50)?,
            p90: percentile(sorted, 90)?,
            p99: percentile(sorted, 99)?,
            max: *sorted.last()?,
        })
    }
}

/// The nearest-rank `percent`th percentile of `sorted` (ascending): the value
/// at rank `ceil(percent / 100 * n)`, counting from 1. `None` when empty.
fn percentile(sorted: &[Tick], percent: usize) -> Option<Tick> {
    debug_assert!(
        (1..=100).contains(&percent),
        "percentile {percent} is not 1 to 100"
    );
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied()
}

/// `part / whole`, 0 when `whole` is 0.
fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The pending timers of a replay, firing each at its deadline.
struct Pending {
    /// Every deadline set, earliest first, with its timer. An entry whose
    /// timer was since cancelled or moved is stale and skipped when it comes
    /// out; removing it at once would need an indexed heap.
    heap: BinaryHeap<Reverse<(Tick, u32)>>,
    /// Each timer's deadline while it is pending, by number; `None` before its
    /// insert and after it fired or was cancelled.
    deadline: Vec<Option<Tick>>,
    /// How many timers are pending.
    count: usize,
}

impl Pending {
    fn new(timers: usize) -> Pending {
        Pending {
            heap: BinaryHeap::new(),
            deadline: vec![None; timers],
            count: 0,
        }
    }

    /// Fires every timer due by `now`.
    fn advance(&mut self, now: Tick) {
        while let Some(&Reverse((deadline, timer))) = self.heap.peek() {
            if deadline > now {
                break;
            }
            self.heap.pop();
            // A stale entry: the timer was cancelled or moved since.
            if self.deadline[timer as usize] == Some(deadline) {
                self.remove(timer);
            }
        }
    }

    fn insert(&mut self, timer: u32, deadline: Tick) {
        // A tape that passes `Tape::check` has room for every timer it
        // numbers; one built by hand might not, and is measured all the same.
        if self.deadline.len() <= timer as usize {
            self.deadline.resize(timer as usize + 1, None);
        }
        self.deadline[timer as usize] = Some(deadline);
        self.heap.push(Reverse((deadline, timer)));
        self.count += 1;
    }

    /// Cancels `timer`; whether it was pending.
    fn cancel(&mut self, timer: u32) -> bool {
        self.remove(timer)
    }

    fn reschedule(&mut self, timer: u32, deadline: Tick) {
        if let Some(current) = self
            .deadline
            .get_mut(timer as usize)
            .and_then(Option::as_mut)
        {
            *current = deadline;
            self.heap.push(Reverse((deadline, timer)));
        }
    }

    /// Takes `timer` out of the pending set; whether it was in it.
    fn remove(&mut self, timer: u32) -> bool {
        let was_pending = self
            .deadline
            .get_mut(timer as usize)
            .and_then(Option::take)
            .is_some();
        if was_pending {
            self.count -= 1;
        }
        was_pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tape::TimedOp;

    fn op(at: Tick, op: Op) -> TimedOp {
        TimedOp { at, op }
    }

    fn insert(at: Tick, timer: u32, deadline: Tick) -> TimedOp {
        op(at, Op::Insert { timer, deadline })
    }

    fn tape(ops: Vec<TimedOp>, prefill: usize, end: Tick) -> Tape {
        let timers = ops
            .iter()
            .filter(|o| matches!(o.op, Op::Insert { .. }))
            .count() as u32;
        let tape = Tape {
            name: "t".into(),
            ops,
            prefill,
            end,
            timers,
        };
        tape.check().expect("a valid hand-made tape");
        tape
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let hundred: Vec<Tick> = (1..=100).collect();
        assert_eq!(percentile(&hundred, 50), Some(50));
        assert_eq!(percentile(&hundred, 99), Some(99));
        assert_eq!(percentile(&hundred, 100), Some(100));
        // Ten values: the 99th percentile is the largest, the median the fifth.
        let ten: Vec<Tick> = (1..=10).collect();
        assert_eq!(percentile(&ten, 99), Some(10));
        assert_eq!(percentile(&ten, 50), Some(5));
        assert_eq!(percentile(&[7], 50), Some(7));
        assert_eq!(percentile(&[], 50), None);
    }

    /// Two prefilled timers, then an insert, a cancel of a pending timer, a
    /// cancel of one that already fired, and a reschedule: every count, and
    /// delays over the measured insert and reschedule only.
    #[test]
    fn counts_follow_the_timers_state() {
        let shape = Shape::of(&tape(
            vec![
                insert(0, 0, 5),
                insert(0, 1, 50),
                insert(2, 2, 12),
                op(3, Op::Cancel { timer: 1 }),
                // Timer 0 fired at 5.
                op(6, Op::Cancel { timer: 0 }),
                op(
                    7,
                    Op::Reschedule {
                        timer: 2,
                        deadline: 37,
                    },
                ),
            ],
            2,
            40,
        ));
        assert_eq!(shape.measured_ops, 4);
        assert_eq!(shape.inserts, 1);
        assert_eq!(shape.cancels, 1, "the cancel after timer 0 fired misses");
        assert_eq!(shape.reschedules, 1);
        assert_eq!(shape.cancelled(), 1.0);
        assert_eq!(shape.rescheduled(), 0.25);
        assert_eq!(
            shape.delays,
            Some(Delays {
                p50: 10,
                p90: 30,
                p99: 30,
                max: 30
            })
        );
        assert_eq!(shape.peak_pending, 3);
    }

    /// A timer fires before an operation at its deadline's tick, and the
    /// entry a reschedule leaves behind fires nothing.
    #[test]
    fn the_peak_counts_timers_fired_by_their_deadlines() {
        let shape = Shape::of(&tape(
            vec![
                insert(0, 0, 4),
                op(
                    1,
                    Op::Reschedule {
                        timer: 0,
                        deadline: 20,
                    },
                ),
                insert(2, 1, 3),
                // Timer 1 fires at 3; timer 0's old entry at 4 is stale.
                insert(4, 2, 9),
                insert(5, 3, 9),
            ],
            0,
            20,
        ));
        assert_eq!(shape.peak_pending, 3, "timers 0, 2 and 3");
        assert_eq!(shape.inserts, 4);
        assert_eq!(shape.delays.map(|d| d.max), Some(19));
    }

    #[test]
    fn an_empty_measured_phase_has_no_delays_and_no_shares() {
        let shape = Shape::of(&tape(vec![insert(0, 0, 5)], 1, 10));
        assert_eq!(shape.measured_ops, 0);
        assert_eq!(shape.delays, None);
        assert_eq!((shape.cancelled(), shape.rescheduled()), (0.0, 0.0));
        assert_eq!(shape.peak_pending, 1);
    }
}
