//! The tape: the complete operation sequence of a workload, what the harness
//! replays against every algorithm, and the time it is counted in.

/// Virtual time in integer ticks; one tick is one millisecond by convention.
pub type Tick = u64;

/// No deadline or time is beyond this: 2^62 ticks, about 146 million years at
/// 1 ms. It equals the algorithms' `MAX_DEADLINE`; generated deadlines are
/// clamped to it.
pub const MAX_TIME: Tick = 1 << 62;

/// One operation of a tape and the tick it happens at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedOp {
    /// The driver first advances the queue to `at` (firing everything due by
    /// then), then applies `op`.
    pub at: Tick,
    /// The operation.
    pub op: Op,
}

/// An operation on a timer queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Insert timer number `timer` with an absolute `deadline` (at most
    /// [`MAX_TIME`]). Inserts number their timers densely from 0, in tape order,
    /// so a driver can keep its handles in a `Vec` indexed by `timer` and use the
    /// number as the payload.
    Insert {
        /// The timer's number: the count of inserts before this one.
        timer: u32,
        /// When the timer is due.
        deadline: Tick,
    },
    /// Cancel timer number `timer`, inserted earlier on the tape. The timer may
    /// already have fired or been cancelled (only traces do that; generated
    /// tapes cancel only pending timers): the queue then answers `None`, which
    /// is legal and deterministic.
    Cancel {
        /// The number of the timer's insert.
        timer: u32,
    },
    /// Move timer number `timer`, inserted earlier on the tape, to a new absolute
    /// `deadline` (an idle timeout pushed back by activity). The timer keeps its
    /// number. Generated tapes reschedule only pending timers; a trace may name
    /// one that already fired or was cancelled, and the queue then answers
    /// `None` and nothing changes.
    Reschedule {
        /// The number of the timer's insert.
        timer: u32,
        /// The new deadline.
        deadline: Tick,
    },
}

/// A complete operation sequence: what the harness replays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tape {
    /// The workload's name (a trace's file stem).
    pub name: String,
    /// The operations, in non-decreasing `at` order.
    pub ops: Vec<TimedOp>,
    /// `ops[..prefill]` build the initial population: all inserts at `at = 0`,
    /// not measured. 0 for a trace.
    pub prefill: usize,
    /// After the last operation the driver advances to `end`: the spec's
    /// `duration`, or a trace's last `at`.
    pub end: Tick,
    /// The number of inserts.
    pub timers: u32,
}

impl Tape {
    /// Checks the tape's invariants: times never decrease and stay within
    /// `end`; the prefill is inserts at time 0; timers are numbered densely in
    /// insert order and cancels name earlier inserts; deadlines are at most
    /// [`MAX_TIME`]; `timers` counts the inserts. Tapes from this crate always
    /// pass; this is for tests and for tapes built elsewhere.
    ///
    /// # Errors
    ///
    /// A description of the first violation, with the operation's index.
    pub fn check(&self) -> Result<(), String> {
        if self.prefill > self.ops.len() {
            return Err(format!(
                "prefill {} exceeds the {} operations",
                self.prefill,
                self.ops.len()
            ));
        }
        if self.end > MAX_TIME {
            return Err(format!("end {} is beyond MAX_TIME", self.end));
        }
        let mut inserted: u32 = 0;
        let mut previous = 0;
        for (i, op) in self.ops.iter().enumerate() {
            if op.at < previous {
                return Err(format!(
                    "op {i}: at {} is before the previous op's {previous}",
                    op.at
                ));
            }
            if op.at > self.end {
                return Err(format!(
                    "op {i}: at {} is after the end, {}",
                    op.at, self.end
                ));
            }
            previous = op.at;
            match op.op {
                Op::Insert { timer, deadline } => {
                    if timer != inserted {
                        return Err(format!(
                            "op {i}: insert numbers timer {timer}, expected {inserted}"
                        ));
                    }
                    if deadline > MAX_TIME {
                        return Err(format!("op {i}: deadline {deadline} is beyond MAX_TIME"));
                    }
                    inserted += 1;
                }
                Op::Cancel { timer } => {
                    if i < self.prefill {
                        return Err(format!("op {i}: a cancel in the prefill"));
                    }
                    if timer >= inserted {
                        return Err(format!("op {i}: cancel of timer {timer}, not yet inserted"));
                    }
                }
                Op::Reschedule { timer, deadline } => {
                    if i < self.prefill {
                        return Err(format!("op {i}: a reschedule in the prefill"));
                    }
                    if timer >= inserted {
                        return Err(format!(
                            "op {i}: reschedule of timer {timer}, not yet inserted"
                        ));
                    }
                    if deadline > MAX_TIME {
                        return Err(format!("op {i}: deadline {deadline} is beyond MAX_TIME"));
                    }
                }
            }
            if i < self.prefill && op.at != 0 {
                return Err(format!("op {i}: prefill op at {}, not 0", op.at));
            }
        }
        if inserted != self.timers {
            return Err(format!("{inserted} inserts, but timers = {}", self.timers));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_finds_broken_tapes() {
        let insert = |at, timer, deadline| TimedOp {
            at,
            op: Op::Insert { timer, deadline },
        };
        let good = Tape {
            name: "t".into(),
            ops: vec![
                insert(0, 0, 5),
                insert(0, 1, 9),
                TimedOp {
                    at: 3,
                    op: Op::Cancel { timer: 0 },
                },
            ],
            prefill: 2,
            end: 10,
            timers: 2,
        };
        good.check().unwrap();
        let mut bad = good.clone();
        bad.ops[2].at = 11;
        assert!(bad.check().unwrap_err().contains("after the end"));
        let mut bad = good.clone();
        bad.ops[1] = insert(0, 2, 9);
        assert!(bad.check().unwrap_err().contains("expected 1"));
        let mut bad = good.clone();
        bad.ops[2].op = Op::Cancel { timer: 2 };
        assert!(bad.check().unwrap_err().contains("not yet inserted"));
        let mut bad = good.clone();
        bad.ops[2].op = Op::Reschedule {
            timer: 2,
            deadline: 4,
        };
        assert!(bad.check().unwrap_err().contains("not yet inserted"));
        let mut bad = good.clone();
        bad.ops[1].op = Op::Reschedule {
            timer: 0,
            deadline: 4,
        };
        assert!(bad.check().unwrap_err().contains("in the prefill"));
        let mut bad = good.clone();
        bad.timers = 3;
        assert!(bad.check().unwrap_err().contains("timers = 3"));
        let mut bad = good;
        bad.prefill = 3;
        assert!(bad.check().unwrap_err().contains("cancel in the prefill"));
    }
}
