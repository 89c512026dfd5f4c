//! `predictions.csv`: what Varghese and Lauck's analysis predicts for a work
//! counter of a row on a workload (the harness's `theory` module), to set
//! beside the count in `runs.csv`. A prediction is an expectation over the
//! workload's arrivals; a workload with no closed form has its rows with an
//! empty `predicted` and the reason in `basis`, never a guess.

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};

/// One row of `predictions.csv`: one (workload, algorithm, counter).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PredictionRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The workload.
    pub workload: String,
    /// The row, as in `runs.csv`.
    pub algorithm: String,
    /// The counter: the name of its column in `runs.csv`.
    pub counter: String,
    /// The expected count over the measured phase; empty when the workload
    /// has no closed form.
    pub predicted: Option<f64>,
    /// What the prediction rests on (the workload's law), or why there is
    /// none.
    pub basis: String,
    /// The run that wrote the row.
    #[serde(default)]
    pub run_id: String,
}

impl CheckRow for PredictionRow {
    fn check(&self) -> Result<(), String> {
        self.predicted
            .map_or(Ok(()), |p| non_negative("predicted", p))
    }
}
