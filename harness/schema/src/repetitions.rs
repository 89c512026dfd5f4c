//! `repetitions.csv`: every timed pass, raw, so that any statistic can be
//! recomputed from a committed run without measuring. A whole pass is one
//! row (`pass` `whole`, `operation` `all`, its total over every measured
//! operation); a batched pass is a row per operation kind and `expire`.
//! `position` is the pass's place in the workload's seeded interleaved order,
//! and the rows are written in that order; `repetition` pairs the passes of
//! two rows measured in the same round.

use serde::{Deserialize, Serialize};

use crate::check::CheckRow;
use crate::throughput::OPERATION_ALL;

/// The `pass` of a whole pass.
pub const PASS_WHOLE: &str = "whole";

/// One row of `repetitions.csv`: one operation of one timed pass. `scale`,
/// `driver`, `position`, `count` and `batches` may be absent from a file a
/// reader reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RepetitionRow {
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
    /// The repetition (round), from 0.
    pub repetition: u32,
    /// The pass's place in the workload's interleaved order.
    #[serde(default)]
    pub position: u32,
    /// `whole` or `batched`.
    pub pass: String,
    /// The operation: `all` for a whole pass, a kind or `expire` for a
    /// batched one.
    pub operation: String,
    /// Operations the total covers.
    #[serde(default)]
    pub count: u64,
    /// Nanoseconds.
    pub total_ns: u64,
    /// Clock-read batches the total was measured in (0 for a whole pass).
    #[serde(default)]
    pub batches: u64,
    /// The run that wrote the row (empty in files made before run ids).
    #[serde(default)]
    pub run_id: String,
}

impl RepetitionRow {
    /// ns per operation of a whole pass over its `count` operations; `None`
    /// for a batched pass's row, or a pass of no operation.
    pub fn whole_pass_ns(&self) -> Option<f64> {
        (self.pass == PASS_WHOLE && self.operation == OPERATION_ALL && self.count > 0)
            .then(|| self.total_ns as f64 / self.count as f64)
    }
}

impl CheckRow for RepetitionRow {}
