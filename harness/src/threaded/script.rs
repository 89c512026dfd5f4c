//! A producer's share of a tape: the operations on the timers it owns.
//!
//! Timer `t` belongs to producer `t mod P`, so every producer issues about
//! the same number of operations, and all of one timer's operations (its
//! insert, its cancels, its reschedules) come from one thread, in tape order:
//! no producer ever touches another's timer, as in the systems modelled (a
//! connection's timeouts are set and cleared by the thread that serves it).
//! A threaded run may replay a window of the tape only, its first ticks:
//! operations after the window's end are left out.

use algorithms::Tick;
use workloads::{Op, Tape, TimedOp};

/// One producer's operations, in tape order.
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// The operations, each on a timer this producer owns.
    pub ops: Vec<TimedOp>,
    /// How many of `ops` belong to the tape's prefill (they come first and
    /// are not measured).
    pub prefill: usize,
}

/// The timer an operation is on.
pub fn timer_of(op: &Op) -> u32 {
    match *op {
        Op::Insert { timer, .. } | Op::Cancel { timer } | Op::Reschedule { timer, .. } => timer,
    }
}

/// The producer that owns timer `timer` among `producers`.
pub fn owner(timer: u32, producers: usize) -> usize {
    timer as usize % producers.max(1)
}

/// The index of timer `timer` among its owner's timers.
pub fn slot(timer: u32, producers: usize) -> usize {
    timer as usize / producers.max(1)
}

/// `tape`'s operations up to tick `end`, split among `producers` threads.
pub fn split(tape: &Tape, producers: usize, end: Tick) -> Vec<Script> {
    let mut scripts = vec![Script::default(); producers.max(1)];
    for (index, op) in tape.ops.iter().enumerate() {
        if op.at > end {
            break;
        }
        let script = &mut scripts[owner(timer_of(&op.op), producers)];
        script.ops.push(*op);
        if index < tape.prefill {
            script.prefill += 1;
        }
    }
    scripts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape() -> Tape {
        let insert = |at, timer| TimedOp {
            at,
            op: Op::Insert {
                timer,
                deadline: at + 10,
            },
        };
        Tape {
            name: "t".to_owned(),
            ops: vec![
                insert(0, 0),
                insert(0, 1),
                insert(5, 2),
                TimedOp {
                    at: 6,
                    op: Op::Cancel { timer: 1 },
                },
                insert(20, 3),
            ],
            prefill: 2,
            end: 30,
            timers: 4,
        }
    }

    #[test]
    fn each_timer_goes_to_one_producer_with_all_its_operations_in_order() {
        let scripts = split(&tape(), 2, 30);
        let timers: Vec<Vec<u32>> = scripts
            .iter()
            .map(|s| s.ops.iter().map(|op| timer_of(&op.op)).collect())
            .collect();
        assert_eq!(timers, [vec![0, 2], vec![1, 1, 3]]);
        assert_eq!((scripts[0].prefill, scripts[1].prefill), (1, 1));
        assert_eq!((slot(3, 2), owner(3, 2)), (1, 1));
    }

    #[test]
    fn a_window_leaves_out_what_comes_after_it() {
        let scripts = split(&tape(), 1, 10);
        assert_eq!(scripts[0].ops.len(), 4);
    }
}
