//! The one reader of a recorded run, so that whoever reads a run (the
//! report, the commands that judge runs) reads the same rows and is refused
//! for the same reasons, in the same words.
//!
//! [`RunFiles::read`] reads a run: the directory must be there;
//! `metadata.json` must have this schema version and its fields; every run
//! file that is there is parsed with the schema's checks; a run in which
//! nothing was measured is refused; and the files must name one run
//! ([`mixed_runs`]). A command asks for the files it needs and is refused,
//! naming the file, when one is absent: `compare` needs `runs.csv` and
//! `repetitions.csv`, `agreement` only `throughput.csv`.
//!
//! [`read_results`] reads a whole results directory, as the report draws
//! it: the run with all four figure files, `timerbench counts`' files when
//! they are there, and two checks more: the metadata lists exactly the
//! algorithms and workloads of `runs.csv`, and every measured cell has
//! throughput, repetition and latency rows (a file cut at a line boundary
//! parses, but loses rows).
//!
//! Every file there is read whole, a few megabytes for the reference run:
//! a command that needs one file still gets the run checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::check::CheckRow;
use crate::comparison::ComparisonRow;
use crate::contract_cost::ContractCostRow;
use crate::counts::{CountRow, CountsBuild};
use crate::error::InputError;
use crate::files::{
    COMPARISON_FILE, CONTRACT_COST_FILE, COUNTS_FILE, COUNTS_METADATA_FILE, LATENCY_FILE,
    METADATA_FILE, PREDICTIONS_FILE, REPETITIONS_FILE, RUNS_FILE, THROUGHPUT_FILE,
};
use crate::latency::LatencyRow;
use crate::metadata::{Metadata, read_counts_build, read_metadata};
use crate::parse::{read_csv, read_optional_csv};
use crate::predictions::PredictionRow;
use crate::repetitions::RepetitionRow;
use crate::run_ids::mixed_runs;
use crate::runs::RunRow;
use crate::throughput::ThroughputRow;

/// Everything in a results directory.
#[derive(Clone, Debug)]
pub struct Results {
    /// `metadata.json`.
    pub metadata: Metadata,
    /// `runs.csv`.
    pub runs: Vec<RunRow>,
    /// `throughput.csv`.
    pub throughput: Vec<ThroughputRow>,
    /// `repetitions.csv`.
    pub repetitions: Vec<RepetitionRow>,
    /// `latency.csv`.
    pub latency: Vec<LatencyRow>,
    /// `contract_cost.csv`, empty when the file is absent or empty.
    pub contract_cost: Vec<ContractCostRow>,
    /// `counts.csv`, empty when the file is absent or empty.
    pub counts: Vec<CountRow>,
    /// The build `counts.json` says was counted, when the file is there: the
    /// counts may come from another commit than the timed run.
    pub counts_build: Option<CountsBuild>,
    /// `comparison.csv`, empty when the file is absent or empty.
    pub comparison: Vec<ComparisonRow>,
}

/// A recorded run's files as read: its metadata and each run file that is
/// there, every one parsed and checked, and all of one run. A command that
/// needs a file asks for it ([`RunFiles::runs`] and the like) and is refused
/// when it is absent; files it does not need may be absent.
#[derive(Clone, Debug)]
pub struct RunFiles {
    dir: PathBuf,
    /// `metadata.json`.
    pub metadata: Metadata,
    runs: Option<Vec<RunRow>>,
    throughput: Option<Vec<ThroughputRow>>,
    repetitions: Option<Vec<RepetitionRow>>,
    latency: Option<Vec<LatencyRow>>,
    /// `contract_cost.csv`, empty when the file is absent or empty.
    pub contract_cost: Vec<ContractCostRow>,
    /// `comparison.csv`, empty when the file is absent or empty.
    pub comparison: Vec<ComparisonRow>,
    /// `predictions.csv`, empty when the file is absent or empty (the
    /// report reads it with [`read_predictions`], after this check).
    pub predictions: Vec<PredictionRow>,
}

impl RunFiles {
    /// Reads the run recorded in `dir`: the directory must be there, with
    /// its `metadata.json`; every run file that is there is parsed; a run in
    /// which nothing was measured is refused (its figure files hold no row);
    /// and the files must name one run.
    pub fn read(dir: &Path) -> Result<Self, InputError> {
        if !dir.is_dir() {
            return Err(InputError::new(
                dir,
                None,
                "no results directory here; produce one with `make results` \
                 (or `make results SCALE=small` for a quick run), then run `make report`",
            ));
        }
        let metadata = read_metadata(&dir.join(METADATA_FILE))?;
        let runs: Option<Vec<RunRow>> = read_present(&dir.join(RUNS_FILE))?;
        // With every cell skipped, the figure files hold no row (not even a
        // header), and there is nothing to read: say so, with a reason.
        if let Some(runs) = &runs
            && let Some(first) = runs.first()
            && runs.iter().all(|run| !run.is_ok())
        {
            return Err(InputError::new(
                &dir.join(RUNS_FILE),
                None,
                format!(
                    "no (algorithm, workload) was measured: all {} were skipped (the reasons are \
                     in its skip_reason column; the first: {} on {}: {}), so there is nothing \
                     to chart or compare",
                    runs.len(),
                    first.algorithm,
                    first.workload,
                    first.skip_reason
                ),
            ));
        }
        let files = Self {
            dir: dir.to_path_buf(),
            metadata,
            runs,
            throughput: read_present(&dir.join(THROUGHPUT_FILE))?,
            repetitions: read_present(&dir.join(REPETITIONS_FILE))?,
            latency: read_present(&dir.join(LATENCY_FILE))?,
            contract_cost: read_optional_csv(&dir.join(CONTRACT_COST_FILE))?,
            comparison: read_optional_csv(&dir.join(COMPARISON_FILE))?,
            predictions: read_optional_csv(&dir.join(PREDICTIONS_FILE))?,
        };
        files.check_one_run()?;
        Ok(files)
    }

    /// `runs.csv`'s rows.
    pub fn runs(&self) -> Result<&[RunRow], InputError> {
        self.required(&self.runs, RUNS_FILE)
    }

    /// `throughput.csv`'s rows.
    pub fn throughput(&self) -> Result<&[ThroughputRow], InputError> {
        self.required(&self.throughput, THROUGHPUT_FILE)
    }

    /// `repetitions.csv`'s rows.
    pub fn repetitions(&self) -> Result<&[RepetitionRow], InputError> {
        self.required(&self.repetitions, REPETITIONS_FILE)
    }

    /// `latency.csv`'s rows.
    pub fn latency(&self) -> Result<&[LatencyRow], InputError> {
        self.required(&self.latency, LATENCY_FILE)
    }

    /// The rows of the file `name`, or the error of an absent file.
    fn required<'a, T>(&self, rows: &'a Option<Vec<T>>, name: &str) -> Result<&'a [T], InputError> {
        match rows {
            Some(rows) => Ok(rows),
            None => Err(InputError::new(
                &self.dir.join(name),
                None,
                "cannot read the file (it is not there); `make results` writes it",
            )),
        }
    }

    /// Refuses files that do not all come from one run ([`mixed_runs`]).
    /// `comparison.csv` carries the id of the run it describes, so one left
    /// from an earlier run is refused too.
    fn check_one_run(&self) -> Result<(), InputError> {
        fn ids<'a, T: 'a>(
            rows: impl IntoIterator<Item = &'a T>,
            id: fn(&T) -> &String,
        ) -> BTreeSet<String> {
            rows.into_iter().map(|row| id(row).clone()).collect()
        }
        let metadata_id = self.metadata.run_id.clone().unwrap_or_default();
        let files = [
            (METADATA_FILE, BTreeSet::from([metadata_id])),
            (RUNS_FILE, ids(self.runs.iter().flatten(), |r| &r.run_id)),
            (
                THROUGHPUT_FILE,
                ids(self.throughput.iter().flatten(), |r| &r.run_id),
            ),
            (
                REPETITIONS_FILE,
                ids(self.repetitions.iter().flatten(), |r| &r.run_id),
            ),
            (
                LATENCY_FILE,
                ids(self.latency.iter().flatten(), |r| &r.run_id),
            ),
            (CONTRACT_COST_FILE, ids(&self.contract_cost, |r| &r.run_id)),
            (COMPARISON_FILE, ids(&self.comparison, |r| &r.run_id)),
            (PREDICTIONS_FILE, ids(&self.predictions, |r| &r.run_id)),
        ];
        match mixed_runs(&files) {
            Some(which) => Err(InputError::new(
                &self.dir,
                None,
                format!("the files come from different runs ({which}); make the results again"),
            )),
            None => Ok(()),
        }
    }
}

/// The rows of the CSV file `path` when it is there (all of them, checked),
/// `None` when it is not.
fn read_present<T: DeserializeOwned + CheckRow>(path: &Path) -> Result<Option<Vec<T>>, InputError> {
    if path.exists() {
        read_csv(path).map(Some)
    } else {
        Ok(None)
    }
}

/// `predictions.csv` of the results directory `dir`, checked; empty when it
/// is absent (a run made before predictions). [`read_results`] has already
/// held it to the run's id.
pub fn read_predictions(dir: &Path) -> Result<Vec<PredictionRow>, InputError> {
    read_optional_csv(&dir.join(PREDICTIONS_FILE))
}

/// Reads and checks every file of the results directory `dir`: the run's
/// files, all of which but the contract costs and a saved comparison must be
/// there, and `timerbench counts`' files when they are.
pub fn read_results(dir: &Path) -> Result<Results, InputError> {
    let files = RunFiles::read(dir)?;
    // Each required file, asked for first so that an absent one is named.
    files.runs()?;
    files.throughput()?;
    files.repetitions()?;
    files.latency()?;
    let results = Results {
        runs: files.runs.unwrap_or_default(),
        throughput: files.throughput.unwrap_or_default(),
        repetitions: files.repetitions.unwrap_or_default(),
        latency: files.latency.unwrap_or_default(),
        counts: read_optional_csv(&dir.join(COUNTS_FILE))?,
        counts_build: read_counts_build(&dir.join(COUNTS_METADATA_FILE))?,
        metadata: files.metadata,
        contract_cost: files.contract_cost,
        comparison: files.comparison,
    };
    check_complete(dir, &results)?;
    Ok(results)
}

/// Checks that the files agree: the metadata lists the algorithms and
/// workloads of `runs.csv`, and every measured run has its throughput,
/// repetition and latency rows.
fn check_complete(dir: &Path, results: &Results) -> Result<(), InputError> {
    if results.runs.is_empty() {
        return Err(InputError::new(
            &dir.join(RUNS_FILE),
            None,
            "no rows: nothing to report (run `make results`)",
        ));
    }
    // The metadata and runs.csv must describe the same run: one file left
    // from another run would mix its algorithms or workloads into this one.
    let metadata = &results.metadata;
    for (what, listed, found) in [
        (
            "algorithms",
            metadata
                .algorithms
                .iter()
                .map(|a| a.name.as_str())
                .collect::<BTreeSet<_>>(),
            results
                .runs
                .iter()
                .map(|r| r.algorithm.as_str())
                .collect::<BTreeSet<_>>(),
        ),
        (
            "workloads",
            metadata.workloads.iter().map(String::as_str).collect(),
            results.runs.iter().map(|r| r.workload.as_str()).collect(),
        ),
    ] {
        if listed != found {
            let only = |a: &BTreeSet<&str>, b: &BTreeSet<&str>| {
                let names: Vec<&str> = a.difference(b).copied().collect();
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            };
            return Err(InputError::new(
                &dir.join(METADATA_FILE),
                None,
                format!(
                    "its {what} are not those of {RUNS_FILE} (only in {METADATA_FILE}: {}; only in \
                     {RUNS_FILE}: {}): the files come from different runs; make the results again",
                    only(&listed, &found),
                    only(&found, &listed)
                ),
            ));
        }
    }
    for run in results.runs.iter().filter(|r| r.is_ok()) {
        let has = |algorithm: &str, workload: &str| {
            algorithm == run.algorithm && workload == run.workload
        };
        if !results
            .throughput
            .iter()
            .any(|t| has(&t.algorithm, &t.workload))
        {
            return Err(missing_rows(dir, THROUGHPUT_FILE, run));
        }
        if !results
            .latency
            .iter()
            .any(|l| has(&l.algorithm, &l.workload))
        {
            return Err(missing_rows(dir, LATENCY_FILE, run));
        }
        if !results
            .repetitions
            .iter()
            .any(|r| has(&r.algorithm, &r.workload))
        {
            return Err(missing_rows(dir, REPETITIONS_FILE, run));
        }
    }
    Ok(())
}

/// The error for a measured cell that a figure file has no row of.
fn missing_rows(dir: &Path, file: &str, run: &RunRow) -> InputError {
    InputError::new(
        &dir.join(file),
        None,
        format!(
            "no rows for {} on {}, which {RUNS_FILE} lists as measured; \
             the file is truncated or from another run (rerun `make results`)",
            run.algorithm, run.workload
        ),
    )
}
