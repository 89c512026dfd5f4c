//! `threaded.csv`: what the threaded mode (`timerbench run --threaded`)
//! measured, one row per (algorithm, workload, sharing, producers,
//! repetition). Producer threads issue a workload's operations against the
//! wall clock, sped up `speedup` times, over its first `window_ticks` ticks,
//! and the timers fire on a timer thread (or, `sharded`, on the producers
//! themselves). The file is optional to a reader: a run without `--threaded`
//! writes none, and removes one an earlier run left.
//!
//! Times are wall-clock nanoseconds as measured, never scaled back: a
//! lateness of 10 ms at a speed-up of 10 is a 100 ms slot's worth of virtual
//! time, while the scheduling delays in it are not sped up at all.

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};
use crate::runs::{STATUS_OK, STATUS_SKIPPED};

/// One row of `threaded.csv`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ThreadedRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The row, as in `runs.csv`.
    pub algorithm: String,
    /// The workload.
    pub workload: String,
    /// The size of the built-in workloads.
    pub scale: String,
    /// How the queue was shared: `locked`, `handoff` or `sharded`.
    pub sharing: String,
    /// Producer threads.
    pub producers: u32,
    /// The repetition, from 0.
    pub repetition: u32,
    /// How many times faster than real time the tape was replayed (a tick is
    /// 1 ms of virtual time, `1 / speedup` ms of wall time).
    pub speedup: u64,
    /// The last tick replayed: the window's end, or the tape's if sooner.
    pub window_ticks: u64,
    /// Whether producers issued as fast as they could (the saturating
    /// variant) rather than at the workload's rate.
    pub saturated: bool,
    /// `ok`, or `skipped` (with the reason in `skip_reason`).
    pub status: String,
    /// Why the cell was not run; empty when it was.
    pub skip_reason: String,
    /// Wall time of the run from the clock's start, in milliseconds.
    pub wall_ms: f64,
    /// Producer operations measured (the prefill's are not).
    pub ops: u64,
    /// Those operations per second of wall time, from the clock's start to
    /// the last one's return: the workload's own rate when paced, the
    /// producers' throughput when saturated.
    pub ops_per_s: f64,
    /// Producer operation latency: median, in nanoseconds.
    pub op_p50_ns: u64,
    /// Producer operation latency: 99th percentile.
    pub op_p99_ns: u64,
    /// Producer operation latency: 99.9th percentile.
    pub op_p999_ns: u64,
    /// Producer operation latency: the largest.
    pub op_max_ns: u64,
    /// Timers inserted.
    pub armed: u64,
    /// Timers fired.
    pub fired: u64,
    /// Timers whose cancel won.
    pub cancelled: u64,
    /// Timers pending at the end, due after it.
    pub pending: u64,
    /// Cancels that found the timer already fired (lost the race to it).
    pub missed_cancels: u64,
    /// Lateness of a fire against its deadline's wall instant: median, in
    /// nanoseconds.
    pub late_p50_ns: u64,
    /// Lateness: 99th percentile.
    pub late_p99_ns: u64,
    /// Lateness: the largest.
    pub late_max_ns: u64,
    /// Advances of the queue by the timer duty.
    pub wakeups: u64,
    /// Advances that fired nothing.
    pub empty_wakeups: u64,
    /// Wakeups per second of wall time.
    pub wakeups_per_s: f64,
    /// CPU time of the timer thread (under `sharded`, of the producers, which
    /// do the timer duty), in milliseconds; empty where the system does not
    /// say.
    pub timer_cpu_ms: Option<f64>,
    /// CPU time of the producer threads together, in milliseconds.
    pub producer_cpu_ms: Option<f64>,
    /// The run that wrote the row.
    #[serde(default)]
    pub run_id: String,
}

impl ThreadedRow {
    /// Whether the cell was run.
    pub fn is_ok(&self) -> bool {
        self.status == STATUS_OK
    }
}

impl CheckRow for ThreadedRow {
    fn check(&self) -> Result<(), String> {
        if self.status != STATUS_OK && self.status != STATUS_SKIPPED {
            return Err(format!(
                "column `status` is {:?}; it must be `{STATUS_OK}` or `{STATUS_SKIPPED}`",
                self.status
            ));
        }
        non_negative("wall_ms", self.wall_ms)?;
        non_negative("wakeups_per_s", self.wakeups_per_s)?;
        non_negative("ops_per_s", self.ops_per_s)?;
        self.timer_cpu_ms
            .map_or(Ok(()), |ms| non_negative("timer_cpu_ms", ms))?;
        self.producer_cpu_ms
            .map_or(Ok(()), |ms| non_negative("producer_cpu_ms", ms))?;
        if self.empty_wakeups > self.wakeups {
            return Err(format!(
                "column `empty_wakeups` is {}, more than the {} wakeups",
                self.empty_wakeups, self.wakeups
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_that_no_writer_makes_is_refused() {
        let ok = ThreadedRow {
            status: STATUS_OK.to_owned(),
            ..ThreadedRow::default()
        };
        assert!(ok.check().is_ok());
        let bad_status = ThreadedRow {
            status: "maybe".to_owned(),
            ..ok.clone()
        };
        assert!(bad_status.check().unwrap_err().contains("status"));
        let more_empty = ThreadedRow {
            empty_wakeups: 2,
            wakeups: 1,
            ..ok.clone()
        };
        assert!(more_empty.check().unwrap_err().contains("empty_wakeups"));
        let negative = ThreadedRow {
            timer_cpu_ms: Some(-1.0),
            ..ok
        };
        assert!(negative.check().unwrap_err().contains("timer_cpu_ms"));
    }
}
