//! A producer thread: it issues its [`Script`] against the wall clock, each
//! operation at its tick's instant, through a [`Front`], the sharing's side
//! that producers call, and records each operation's latency and each of its
//! timers' [`Fate`].
//!
//! The replay is open-loop, as a server's requests are: an operation waits
//! for its instant, never for the previous one's result beyond its own call,
//! and a producer that falls behind issues what is due at once. The latency of
//! an operation is its call alone (lock wait, hand-off, or the structure's own
//! work), one clock read either side, in an HdrHistogram; the prefill's
//! operations are issued first and not recorded.

use std::time::Instant;

use algorithms::Tick;
use hdrhistogram::Histogram;
use workloads::Op;

use crate::passes::new_histogram;

use super::duty::CpuSpan;
use super::pace::{Pace, StartGate};
use super::script::{Script, slot};
use super::tally::Fate;

/// The producers' side of a sharing: what a producer calls for each of its
/// operations, and how it waits for the next.
pub trait Front {
    /// Arms timer `timer` at `deadline`.
    fn insert(&mut self, timer: u32, deadline: Tick);
    /// Cancels timer `timer`: `true` if it was pending and now will never
    /// fire, `false` if it had fired or was cancelled.
    fn cancel(&mut self, timer: u32) -> bool;
    /// Moves timer `timer` to `deadline`: `true` if it was pending, `false`
    /// (and nothing changes) if not.
    fn reschedule(&mut self, timer: u32, deadline: Tick) -> bool;
    /// The clock has started (a `sharded` front keeps it for its duty).
    fn start(&mut self, pace: Pace) {
        let _ = pace;
    }
    /// Waits until `until` (a `sharded` front fires its own timers meanwhile).
    fn wait(&mut self, until: Instant);
    /// The script is done: a `sharded` front keeps firing until the run's end.
    fn finish(&mut self);
}

/// What one producer recorded.
#[derive(Debug)]
pub struct ProducerLog {
    /// Latency of each measured operation, in nanoseconds.
    pub latency: Histogram<u64>,
    /// Its timers' fates, by [`slot`].
    pub fates: Vec<Fate>,
    /// Its thread's CPU time over the run, where the system says.
    pub cpu_ns: Option<u64>,
    /// Wall time from the clock's start until its last operation returned.
    pub issue_ns: u64,
}

/// Issues `script` through `front`: its prefill at once, then, once every
/// thread has passed `gate`, each operation at its instant (or, when
/// `saturate`, each as soon as the previous one returned). `producers` is
/// how many share the tape and `timers` how many timers it has.
pub fn produce<F: Front>(
    front: &mut F,
    script: &Script,
    gate: &StartGate,
    producers: usize,
    timers: u32,
    saturate: bool,
) -> ProducerLog {
    let cpu = CpuSpan::start();
    let mut latency = new_histogram();
    let mut fates = vec![Fate::default(); slot(timers, producers) + 1];
    let mut pace = None;
    for (index, op) in script.ops.iter().enumerate() {
        if index == script.prefill {
            pace = Some(start(front, gate));
        }
        if let Some(pace) = &pace {
            // Saturating, the wait returns at once (a `sharded` front still
            // fires what is due).
            let until = if saturate {
                Instant::now()
            } else {
                pace.instant(op.at)
            };
            front.wait(until);
        }
        let started = Instant::now();
        let answer = match op.op {
            Op::Insert { timer, deadline } => {
                front.insert(timer, deadline);
                true
            }
            Op::Cancel { timer } => front.cancel(timer),
            Op::Reschedule { timer, deadline } => front.reschedule(timer, deadline),
        };
        let took = started.elapsed();
        note(
            &mut fates[slot(super::script::timer_of(&op.op), producers)],
            &op.op,
            answer,
        );
        if index >= script.prefill {
            latency.saturating_record(u64::try_from(took.as_nanos()).unwrap_or(u64::MAX));
        }
    }
    let pace = pace.unwrap_or_else(|| start(front, gate));
    let issue_ns = pace.elapsed_nanos();
    front.finish();
    ProducerLog {
        latency,
        fates,
        cpu_ns: cpu.end(),
        issue_ns,
    }
}

/// Passes the gate and tells `front` the clock has started.
fn start<F: Front>(front: &mut F, gate: &StartGate) -> Pace {
    let pace = gate.pass();
    front.start(pace);
    pace
}

/// Records in `fate` what `op` did: `answer` is the front's (always `true`
/// for an insert).
fn note(fate: &mut Fate, op: &Op, answer: bool) {
    match (*op, answer) {
        (Op::Insert { deadline, .. }, _) => {
            fate.armed = true;
            fate.deadline = deadline;
        }
        (Op::Cancel { .. }, true) => fate.cancelled = true,
        (Op::Cancel { .. }, false) => fate.missed_cancels += 1,
        (Op::Reschedule { deadline, .. }, true) => fate.deadline = deadline,
        (Op::Reschedule { .. }, false) => fate.missed_reschedules += 1,
    }
}
