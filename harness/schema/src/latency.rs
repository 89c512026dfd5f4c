//! `latency.csv`: per (algorithm, workload), the percentiles of each
//! operation's latency from the latency pass, which reads the
//! clock around every single operation (so each figure includes a clock read;
//! the clock floor's own percentiles are on every row, to subtract by eye).

use serde::{Deserialize, Serialize};

use crate::check::CheckRow;

/// One row of `latency.csv`: one operation of one run. `scale`, `driver`,
/// `mean_ns`, `p90_ns`, `max_ns` and the floor may be absent from a file a
/// reader reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct LatencyRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// `small`, `default`, `large`, `trace` or `spec`.
    #[serde(default)]
    pub scale: String,
    /// `event` or `tick`.
    #[serde(default)]
    pub driver: String,
    /// `insert`, `cancel`, `reschedule`, `advance` or `expire`.
    pub operation: String,
    /// Samples.
    pub count: u64,
    /// Mean, ns.
    #[serde(default)]
    pub mean_ns: f64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 90th percentile, ns.
    #[serde(default)]
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// Largest sample, ns.
    #[serde(default)]
    pub max_ns: u64,
    /// The clock floor's median, ns.
    #[serde(default)]
    pub floor_p50_ns: u64,
    /// The clock floor's 99th percentile, ns.
    #[serde(default)]
    pub floor_p99_ns: u64,
    /// The run that wrote the row (empty in files made before run ids).
    #[serde(default)]
    pub run_id: String,
}

impl CheckRow for LatencyRow {}
