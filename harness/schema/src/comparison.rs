//! `comparison.csv`: `timerbench compare BASE NEW --save`'s verdicts, written
//! into NEW, one row per cell both runs measured: the two headline medians,
//! their ratio with its interval, and the verdict with the noise band it was
//! judged against (`normalised` and `shift` stay in the schema for files
//! written before; the judge writes `false` and empty). It carries NEW's run id, so a
//! comparison left from an earlier run is refused like any file of another
//! run, and a new run removes it in its swap.

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};

/// The verdicts `comparison.csv` may hold, as `timerbench compare` words them.
pub const VERDICTS: [&str; 4] = ["faster", "slower", "no significant change", "cannot tell"];

/// One row of `comparison.csv`: one cell's change, with what the verdict
/// was judged against.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ComparisonRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The run compared against, as the command named it.
    pub base: String,
    /// The workload.
    pub workload: String,
    /// The algorithm.
    pub algorithm: String,
    /// BASE's headline median, ns per operation.
    pub base_ns: f64,
    /// NEW's headline median, ns per operation.
    pub new_ns: f64,
    /// NEW / BASE (divided by `shift` when `normalised`).
    pub ratio: f64,
    /// The ratio's 95% interval; empty when there were too few pairs to tell.
    pub ratio_ci_low: Option<f64>,
    /// See `ratio_ci_low`.
    pub ratio_ci_high: Option<f64>,
    /// One of [`VERDICTS`].
    pub verdict: String,
    /// The noise band, a fraction.
    pub noise: f64,
    /// Whether the ratios were divided by the run's common shift.
    pub normalised: bool,
    /// The median cell's ratio (empty with too few cells).
    pub shift: Option<f64>,
    /// NEW's run id, the run the file describes and sits beside (empty for a
    /// run made before run ids): the last column, as in the run's files.
    #[serde(default)]
    pub run_id: String,
}

impl CheckRow for ComparisonRow {
    fn check(&self) -> Result<(), String> {
        non_negative("base_ns", self.base_ns)?;
        non_negative("new_ns", self.new_ns)?;
        non_negative("ratio", self.ratio)?;
        non_negative("noise", self.noise)?;
        if !VERDICTS.contains(&self.verdict.as_str()) {
            return Err(format!(
                "column `verdict` is {:?}; it must be one of: {}",
                self.verdict,
                VERDICTS.join(", ")
            ));
        }
        Ok(())
    }
}
