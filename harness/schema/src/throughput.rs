//! `throughput.csv`: per (algorithm, workload), the statistics of each
//! operation over the timed repetitions. The `all` row is the headline: whole
//! passes, ns per measured operation, advances included, with its ratio to
//! the workload's best and whether it ties with it. A row per operation kind,
//! and `expire`, come from the batched passes, which read the clock around
//! batches of one kind; `batch_over_whole` says how far their total strays
//! from the whole pass's, and `consistent` whether that is within the
//! harness's tolerance.
//!
//! Below [`crate::MIN_REPETITIONS`] a row has a median and no interval, no
//! ratio interval and no tie; the accessors ([`ThroughputRow::interval`],
//! [`ThroughputRow::tie`]) hold a file that claims one from fewer to that
//! rule, so a reader never shows a verdict the repetitions cannot carry.

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};

/// The `operation` of the headline row.
pub const OPERATION_ALL: &str = "all";

/// One row of `throughput.csv`: one operation of one run, over its
/// repetitions. `scale`, `driver`, `min_ns`, `max_ns` and
/// `clock_reads_per_op` may be absent from a file a reader reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ThroughputRow {
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
    /// `insert`, `cancel`, `reschedule`, `advance`, `expire` or `all`.
    pub operation: String,
    /// `whole` (the `all` row) or `batched`.
    pub method: String,
    /// Operations counted.
    pub count: u64,
    /// Timed repetitions behind the figures.
    pub repetitions: u64,
    /// Median ns per operation over the repetitions (none when `count` is 0).
    pub median_ns: Option<f64>,
    /// The interval of the median.
    pub ci_low_ns: Option<f64>,
    /// The interval of the median.
    pub ci_high_ns: Option<f64>,
    /// The interval's coverage.
    pub ci_level: Option<f64>,
    /// The fastest repetition.
    pub min_ns: Option<f64>,
    /// The slowest repetition.
    pub max_ns: Option<f64>,
    /// Clock reads per operation that the figure includes.
    #[serde(default)]
    pub clock_reads_per_op: f64,
    /// Batched rows: the batched pass's total over the whole pass's.
    pub batch_over_whole: Option<f64>,
    /// Batched rows: whether the per-kind split adds up to the whole pass.
    pub consistent: Option<bool>,
    /// `all` rows: the median over the workload's best median.
    pub ratio_to_best: Option<f64>,
    /// `all` rows: the bootstrap interval of that ratio.
    pub ratio_ci_low: Option<f64>,
    /// `all` rows: the bootstrap interval of that ratio.
    pub ratio_ci_high: Option<f64>,
    /// `all` rows: whether the median intervals of this cell and the best overlap.
    pub tied_with_best: Option<bool>,
    /// The run that wrote the row (empty in files made before run ids).
    #[serde(default)]
    pub run_id: String,
}

impl ThroughputRow {
    /// Whether the row's repetitions are enough for an interval, a tie or a
    /// verdict: at least [`crate::MIN_REPETITIONS`]. A run writes none below
    /// that; a reader asks this rather than trusting the file.
    pub fn judged(&self) -> bool {
        self.repetitions >= crate::MIN_REPETITIONS as u64
    }

    /// The interval of the median, when there is one and enough repetitions
    /// stand behind it.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.ci_low_ns
            .zip(self.ci_high_ns)
            .filter(|_| self.judged())
    }

    /// The interval of `ratio_to_best`, on the same terms as
    /// [`ThroughputRow::interval`].
    pub fn ratio_interval(&self) -> Option<(f64, f64)> {
        self.ratio_ci_low
            .zip(self.ratio_ci_high)
            .filter(|_| self.judged())
    }

    /// Whether the cell ties with its workload's best, on the same terms.
    pub fn tie(&self) -> Option<bool> {
        self.tied_with_best.filter(|_| self.judged())
    }
}

impl CheckRow for ThroughputRow {
    fn check(&self) -> Result<(), String> {
        let figures = [
            ("median_ns", self.median_ns),
            ("ci_low_ns", self.ci_low_ns),
            ("ci_high_ns", self.ci_high_ns),
            ("ratio_to_best", self.ratio_to_best),
            ("ratio_ci_low", self.ratio_ci_low),
            ("ratio_ci_high", self.ratio_ci_high),
            ("batch_over_whole", self.batch_over_whole),
        ];
        for (column, value) in figures {
            if let Some(value) = value {
                non_negative(column, value)?;
            }
        }
        if let (Some(low), Some(median), Some(high)) =
            (self.ci_low_ns, self.median_ns, self.ci_high_ns)
            && !(low <= median && median <= high)
        {
            return Err(format!(
                "the interval [{low}, {high}] (`ci_low_ns`, `ci_high_ns`) does not contain \
                 the median {median}; it must satisfy ci_low_ns <= median_ns <= ci_high_ns"
            ));
        }
        Ok(())
    }
}
