//! The timer duty's record: what the thread that advances a queue saw at each
//! wakeup (a timer thread's, or under `sharded` a producer's own).
//!
//! A *wakeup* is one advance of the queue by the duty; an *empty* one fired
//! nothing (a ticked wheel's tick with no timer due, a lower bound that was
//! not a deadline, a producer's ring for an earlier timer). The fires are
//! kept whole, for the tally and the lateness, each stamped with one wall
//! reading per wakeup, taken after the advance returned: a batch's timers are
//! handed out together, as the systems run their expired tasks. A fire's
//! lateness is taken after the run against the deadline its producer last
//! set (`tally`), not the one the queue hands back, which a crate that keeps
//! no deadlines reports as the tick it fired at.

use algorithms::{Expired, Payload, Tick};

use super::cpu;
use super::pace::Pace;
use super::tally::Fire;

/// What a timer duty did in one run.
#[derive(Debug, Default)]
pub struct DutyLog {
    /// Advances of the queue.
    pub wakeups: u64,
    /// Advances that fired nothing.
    pub empty_wakeups: u64,
    /// Every timer fired, in firing order.
    pub fires: Vec<Fire>,
    /// CPU time of the duty's thread over the run, where the system says.
    pub cpu_ns: Option<u64>,
}

impl DutyLog {
    /// Records one wakeup's batch: each expired entry in `out` that `accept`
    /// maps to a timer number (a `handoff` entry cancelled or moved while it
    /// was being drained maps to none) is a fire at `tick`. Empties `out`.
    pub fn batch(
        &mut self,
        tick: Tick,
        pace: &Pace,
        out: &mut Vec<Expired<Payload>>,
        mut accept: impl FnMut(Payload) -> Option<u32>,
    ) {
        self.wakeups += 1;
        let before = self.fires.len();
        if !out.is_empty() {
            let now = pace.elapsed_nanos();
            for expired in out.drain(..) {
                if let Some(timer) = accept(expired.payload) {
                    self.fires.push(Fire {
                        timer,
                        tick,
                        at_ns: now,
                    });
                }
            }
        }
        if self.fires.len() == before {
            self.empty_wakeups += 1;
        }
    }
}

/// Reads the calling thread's CPU clock at the start of a duty, and turns it
/// into the time spent at the end.
pub struct CpuSpan(Option<u64>);

impl CpuSpan {
    /// Starts the span on the calling thread.
    pub fn start() -> Self {
        Self(cpu::thread_cpu_nanos())
    }

    /// The calling thread's CPU time since [`CpuSpan::start`].
    pub fn end(self) -> Option<u64> {
        cpu::spent(self.0, cpu::thread_cpu_nanos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wakeup_that_fires_nothing_is_counted_empty() {
        let pace = Pace::new(std::time::Instant::now(), 10);
        let mut log = DutyLog::default();
        let mut out = vec![Expired {
            payload: 7,
            deadline: 0,
        }];
        log.batch(1, &pace, &mut out, |p| u32::try_from(p).ok());
        log.batch(2, &pace, &mut out, |p| u32::try_from(p).ok());
        assert_eq!((log.wakeups, log.empty_wakeups, log.fires.len()), (2, 1, 1));
        assert_eq!((log.fires[0].timer, log.fires[0].tick), (7, 1));
        assert!(log.fires[0].at_ns <= pace.elapsed_nanos());
        assert!(out.is_empty());
    }
}
