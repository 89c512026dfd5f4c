//! A threaded cell as a row of `threaded.csv` (`schema::ThreadedRow`): the
//! histograms' percentiles, the tally's counts, the rates.

use schema::{SCHEMA_VERSION, STATUS_OK, STATUS_SKIPPED, ThreadedRow};

use super::{Cell, Config};
use crate::bench::quantile;

/// Nanoseconds in a millisecond.
const NANOS_PER_MILLI: f64 = 1e6;

/// Nanoseconds in a second.
const NANOS_PER_SECOND: f64 = 1e9;

/// What names a cell: its row, workload, scale and repetition, and the run.
#[derive(Clone, Debug)]
pub struct Key<'a> {
    /// The algorithm's row.
    pub algorithm: &'a str,
    /// The workload.
    pub workload: &'a str,
    /// The scale of the built-ins (or `trace`).
    pub scale: &'a str,
    /// The repetition, from 0.
    pub repetition: u32,
    /// The run's id.
    pub run_id: &'a str,
}

/// The row of a measured cell.
pub fn measured(key: &Key<'_>, config: &Config, cell: &Cell) -> ThreadedRow {
    let wall_s = cell.wall_ns as f64 / NANOS_PER_SECOND;
    ThreadedRow {
        status: STATUS_OK.to_owned(),
        window_ticks: cell.end,
        wall_ms: cell.wall_ns as f64 / NANOS_PER_MILLI,
        ops: cell.latency.len(),
        ops_per_s: if cell.issue_ns > 0 {
            cell.latency.len() as f64 / (cell.issue_ns as f64 / NANOS_PER_SECOND)
        } else {
            0.0
        },
        op_p50_ns: quantile(&cell.latency, 0.5),
        op_p99_ns: quantile(&cell.latency, 0.99),
        op_p999_ns: quantile(&cell.latency, 0.999),
        op_max_ns: cell.latency.max(),
        armed: cell.tally.armed,
        fired: cell.tally.fired,
        cancelled: cell.tally.cancelled,
        pending: cell.tally.pending,
        missed_cancels: cell.tally.missed_cancels,
        late_p50_ns: quantile(&cell.lateness, 0.5),
        late_p99_ns: quantile(&cell.lateness, 0.99),
        late_max_ns: cell.lateness.max(),
        wakeups: cell.wakeups,
        empty_wakeups: cell.empty_wakeups,
        wakeups_per_s: if wall_s > 0.0 {
            cell.wakeups as f64 / wall_s
        } else {
            0.0
        },
        timer_cpu_ms: cell.timer_cpu_ns.map(|ns| ns as f64 / NANOS_PER_MILLI),
        producer_cpu_ms: cell.producer_cpu_ns.map(|ns| ns as f64 / NANOS_PER_MILLI),
        ..named(key, config)
    }
}

/// The row of a cell that was not run, with the reason.
pub fn skipped(key: &Key<'_>, config: &Config, reason: &str) -> ThreadedRow {
    ThreadedRow {
        status: STATUS_SKIPPED.to_owned(),
        skip_reason: reason.to_owned(),
        window_ticks: config.window.unwrap_or_default(),
        ..named(key, config)
    }
}

/// A row with its naming columns filled and every figure empty.
fn named(key: &Key<'_>, config: &Config) -> ThreadedRow {
    ThreadedRow {
        schema_version: SCHEMA_VERSION,
        algorithm: key.algorithm.to_owned(),
        workload: key.workload.to_owned(),
        scale: key.scale.to_owned(),
        sharing: config.sharing.name().to_owned(),
        producers: u32::try_from(config.producers).unwrap_or(u32::MAX),
        repetition: key.repetition,
        speedup: config.speedup,
        saturated: config.saturate,
        run_id: key.run_id.to_owned(),
        ..ThreadedRow::default()
    }
}
