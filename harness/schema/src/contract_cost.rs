//! `contract_cost.csv`: what the `TimerQueue` contract costs a structure.
//! A native row drives a crate or baseline through its own API; its contract
//! row runs the same structure behind the contract (an adapter's handle map
//! and batch sort, a baseline's stale-safe handles). Their ratio, with a
//! bootstrap interval, is what the contract multiplies the structure's own
//! cost by; `tied` says the two medians' intervals overlap.

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};

/// One row of `contract_cost.csv`: a native row against its contract row on
/// one workload, both as whole passes. `scale` and `driver` may be absent
/// from a file a reader reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ContractCostRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The workload.
    pub workload: String,
    /// `small`, `default`, `large`, `trace` or `spec`.
    #[serde(default)]
    pub scale: String,
    /// `event` or `tick`.
    #[serde(default)]
    pub driver: String,
    /// The native row.
    pub native: String,
    /// Its contract row.
    pub contract: String,
    /// The native row's median ns per operation.
    pub native_ns: f64,
    /// The contract row's.
    pub contract_ns: f64,
    /// `contract_ns / native_ns`.
    pub ratio: f64,
    /// The ratio's 95% bootstrap interval.
    pub ratio_ci_low: Option<f64>,
    /// Its upper end.
    pub ratio_ci_high: Option<f64>,
    /// Whether the two medians' intervals overlap: no measurable cost.
    /// Empty when either row has fewer than [`crate::MIN_REPETITIONS`]
    /// repetitions, which can tell neither way.
    pub tied: Option<bool>,
    /// The run that wrote the row (empty in files made before run ids).
    #[serde(default)]
    pub run_id: String,
}

impl CheckRow for ContractCostRow {
    fn check(&self) -> Result<(), String> {
        non_negative("native_ns", self.native_ns)?;
        non_negative("contract_ns", self.contract_ns)?;
        non_negative("ratio", self.ratio)
    }
}
