//! `counts.csv` and `counts.json`: `timerbench counts`' exact figures, the
//! instructions, simulated cache misses and simulated branch mispredictions of
//! each (algorithm, workload) under Valgrind's callgrind. The `all` row is per
//! measured operation over the whole counted region; a row per operation kind
//! is per call of that kind. Each per-call figure is rounded; the `total_`
//! columns keep the exact integers it comes from. `counts.json` names the
//! build that was counted, which may not be the build of the timed run beside
//! it.

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};

/// One row of `counts.csv`: one (algorithm, workload, operation). The
/// columns no reader needs (`scale`, `reproducible`, the split misses and
/// the totals) may be absent from a file it reads.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CountRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The algorithm.
    pub algorithm: String,
    /// The workload.
    pub workload: String,
    /// `small`, `default` or `large`.
    #[serde(default)]
    pub scale: String,
    /// `all` (the whole counted region, per measured operation), or a kind
    /// (per call of that kind).
    pub operation: String,
    /// What the per-call columns divide by: measured operations for `all`,
    /// calls of the kind otherwise.
    pub calls: u64,
    /// Whether the same binary and seed give the same counts (not for the
    /// rows of crates that read real clocks).
    #[serde(default)]
    pub reproducible: bool,
    /// Instructions per call.
    pub instructions: f64,
    /// Data reads per call.
    #[serde(default)]
    pub data_reads: f64,
    /// Data writes per call.
    #[serde(default)]
    pub data_writes: f64,
    /// Simulated L1 instruction-fetch misses per call (`I1mr`).
    #[serde(default)]
    pub l1i_misses: f64,
    /// Simulated L1 data-read misses per call (`D1mr`).
    #[serde(default)]
    pub l1d_read_misses: f64,
    /// Simulated L1 data-write misses per call (`D1mw`).
    #[serde(default)]
    pub l1d_write_misses: f64,
    /// Simulated last-level instruction-fetch misses per call (`ILmr`).
    #[serde(default)]
    pub lli_misses: f64,
    /// Simulated last-level data-read misses per call (`DLmr`): loads that
    /// went to memory.
    #[serde(default)]
    pub lld_read_misses: f64,
    /// Simulated last-level data-write misses per call (`DLmw`).
    #[serde(default)]
    pub lld_write_misses: f64,
    /// Simulated L1 misses of all three kinds per call.
    pub l1_misses: f64,
    /// Simulated last-level misses of all three kinds per call.
    pub ll_misses: f64,
    /// Estimated cycles per call (instructions plus weighted misses).
    pub estimated_cycles: f64,
    /// Instructions in all: the exact integer the per-call figures come from.
    #[serde(default)]
    pub total_instructions: u64,
    /// Simulated last-level misses in all.
    #[serde(default)]
    pub total_ll_misses: u64,
    /// Branches per call, conditional and indirect (`Bc` + `Bi`).
    #[serde(default)]
    pub branches: f64,
    /// Simulated branch mispredictions per call (`Bcm` + `Bim`).
    pub branch_misses: f64,
    /// Simulated branch mispredictions in all.
    #[serde(default)]
    pub total_branch_misses: u64,
}

impl CheckRow for CountRow {
    fn check(&self) -> Result<(), String> {
        non_negative("instructions", self.instructions)?;
        non_negative("l1_misses", self.l1_misses)?;
        non_negative("ll_misses", self.ll_misses)?;
        non_negative("estimated_cycles", self.estimated_cycles)?;
        non_negative("branch_misses", self.branch_misses)
    }
}

/// The build that `counts.json` says was counted: the counts may come from
/// another commit than the timed run beside them.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct CountsBuild {
    /// The commit the counted binary was built from.
    #[serde(default)]
    pub git_commit: String,
    /// Whether its work tree had changes.
    #[serde(default)]
    pub git_dirty: bool,
}
