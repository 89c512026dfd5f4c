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
use crate::consistency::{
    Table, check_listed, check_measured_cells, check_metadata_covered, check_repetition_counts,
    check_threaded, check_unique, pass_key, threaded_key,
};
use crate::contract_cost::ContractCostRow;
use crate::counts::{CountRow, CountsBuild};
use crate::error::InputError;
use crate::files::{
    COMPARISON_FILE, CONTRACT_COST_FILE, COUNTS_FILE, COUNTS_METADATA_FILE, LATENCY_FILE,
    METADATA_FILE, PREDICTIONS_FILE, REPETITIONS_FILE, RUNS_FILE, THREADED_FILE, THROUGHPUT_FILE,
};
use crate::interrupted::{previous_sets, restore_hint};
use crate::latency::LatencyRow;
use crate::metadata::{Metadata, read_counts_build, read_metadata};
use crate::parse::{read_csv_lined, read_optional_csv, read_text};
use crate::predictions::PredictionRow;
use crate::repetitions::RepetitionRow;
use crate::run_ids::mixed_runs;
use crate::runs::RunRow;
use crate::threaded::ThreadedRow;
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
    /// `threaded.csv`, empty when the file is absent or empty (a run
    /// without `--threaded`).
    pub threaded: Vec<ThreadedRow>,
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
    /// `threaded.csv`, empty when the file is absent or empty (a run
    /// without `--threaded`).
    pub threaded: Vec<ThreadedRow>,
}

impl RunFiles {
    /// Reads the run recorded in `dir`: the directory must be there, with
    /// its `metadata.json`; every run file that is there is parsed; a run in
    /// which nothing was measured is refused (its figure files hold no row);
    /// and the files must name one run.
    ///
    /// When the read fails and a writer left a `previous/` set in the
    /// directory (it stopped in the middle of its swap), the error says
    /// where that set is and how to restore it ([`crate::interrupted`]).
    pub fn read(dir: &Path) -> Result<Self, InputError> {
        Self::read_checked(dir).map_err(|mut error| {
            for previous in previous_sets(dir) {
                error.message = format!("{}; {}", error.message, restore_hint(dir, &previous));
            }
            error
        })
    }

    /// [`RunFiles::read`] without the hint.
    fn read_checked(dir: &Path) -> Result<Self, InputError> {
        if !dir.is_dir() {
            return Err(InputError::new(
                dir,
                None,
                "no results directory here; produce one with `make results` \
                 (or `make results SCALE=small` for a quick run), then run `make report`",
            ));
        }
        let metadata = read_metadata(&dir.join(METADATA_FILE))?;
        let runs: Option<Lined<RunRow>> = read_present(&dir.join(RUNS_FILE))?;
        if let Some((runs, _)) = &runs {
            check_measured_something(dir, runs)?;
        }
        let throughput = read_present(&dir.join(THROUGHPUT_FILE))?;
        let repetitions = read_present(&dir.join(REPETITIONS_FILE))?;
        let latency = read_present(&dir.join(LATENCY_FILE))?;
        let (threaded, threaded_lines) = read_optional_lined(&dir.join(THREADED_FILE))?;
        let (runs, runs_lines) = split(runs);
        let (throughput, throughput_lines) = split(throughput);
        let (repetitions, repetitions_lines) = split(repetitions);
        let (latency, latency_lines) = split(latency);
        let lines = Lines {
            runs: runs_lines,
            throughput: throughput_lines,
            repetitions: repetitions_lines,
            latency: latency_lines,
            threaded: threaded_lines,
        };
        let files = Self {
            dir: dir.to_path_buf(),
            metadata,
            runs,
            throughput,
            repetitions,
            latency,
            contract_cost: read_optional_csv(&dir.join(CONTRACT_COST_FILE))?,
            comparison: read_optional_csv(&dir.join(COMPARISON_FILE))?,
            predictions: read_optional_csv(&dir.join(PREDICTIONS_FILE))?,
            threaded,
        };
        files.check_one_run()?;
        files.check_consistent(&lines)?;
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

    /// The checks across files ([`crate::consistency`]), on each file that
    /// is there, with `lines` the line of each row.
    fn check_consistent(&self, lines: &Lines) -> Result<(), InputError> {
        let dir = &self.dir;
        let runs = table(RUNS_FILE, &self.runs, &lines.runs);
        if let Some(runs) = &runs {
            check_unique(dir, runs, "(algorithm, workload)", |r| {
                (&r.algorithm, &r.workload)
            })?;
            check_listed(dir, &self.metadata, runs, |r| (&r.algorithm, &r.workload))?;
            check_metadata_covered(dir, &self.metadata, runs.rows)?;
        }
        if let Some(throughput) = table(THROUGHPUT_FILE, &self.throughput, &lines.throughput) {
            check_unique(
                dir,
                &throughput,
                "(algorithm, workload, operation, method)",
                |r| (&r.algorithm, &r.workload, &r.operation, &r.method),
            )?;
            check_listed(dir, &self.metadata, &throughput, |r| {
                (&r.algorithm, &r.workload)
            })?;
            if let Some(runs) = &runs {
                check_measured_cells(dir, runs.rows, &throughput, |r| (&r.algorithm, &r.workload))?;
            }
        }
        if let Some(repetitions) = table(REPETITIONS_FILE, &self.repetitions, &lines.repetitions) {
            check_unique(
                dir,
                &repetitions,
                "(algorithm, workload, repetition, pass, operation)",
                pass_key,
            )?;
            check_listed(dir, &self.metadata, &repetitions, |r| {
                (&r.algorithm, &r.workload)
            })?;
            if let Some(runs) = &runs {
                check_measured_cells(dir, runs.rows, &repetitions, |r| {
                    (&r.algorithm, &r.workload)
                })?;
                check_repetition_counts(
                    dir,
                    runs.rows,
                    self.metadata.batched_repetitions,
                    &repetitions,
                )?;
            }
        }
        if let Some(latency) = table(LATENCY_FILE, &self.latency, &lines.latency) {
            check_unique(dir, &latency, "(algorithm, workload, operation)", |r| {
                (&r.algorithm, &r.workload, &r.operation)
            })?;
            check_listed(dir, &self.metadata, &latency, |r| {
                (&r.algorithm, &r.workload)
            })?;
            if let Some(runs) = &runs {
                check_measured_cells(dir, runs.rows, &latency, |r| (&r.algorithm, &r.workload))?;
            }
        }
        let threaded = Table {
            file: THREADED_FILE,
            rows: &self.threaded,
            lines: &lines.threaded,
        };
        check_unique(
            dir,
            &threaded,
            "(algorithm, workload, sharing, producers, repetition)",
            threaded_key,
        )?;
        check_listed(dir, &self.metadata, &threaded, |r| {
            (&r.algorithm, &r.workload)
        })?;
        // A run made before the metadata recorded the threaded settings
        // cannot be held to them.
        if let Some(settings) = &self.metadata.threaded {
            check_threaded(dir, settings, &threaded)?;
        }
        Ok(())
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
            (THREADED_FILE, ids(&self.threaded, |r| &r.run_id)),
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

/// A file's rows and the line each starts on.
type Lined<T> = (Vec<T>, Vec<u64>);

/// The rows and the lines of a file that may be absent, apart.
fn split<T>(lined: Option<Lined<T>>) -> (Option<Vec<T>>, Option<Vec<u64>>) {
    match lined {
        Some((rows, lines)) => (Some(rows), Some(lines)),
        None => (None, None),
    }
}

/// The [`Table`] of a file that is there.
fn table<'a, T>(
    file: &'static str,
    rows: &'a Option<Vec<T>>,
    lines: &'a Option<Vec<u64>>,
) -> Option<Table<'a, T>> {
    rows.as_deref()
        .zip(lines.as_deref())
        .map(|(rows, lines)| Table { file, rows, lines })
}

/// The line each row of each figure file that is there starts on, for the
/// checks across files.
struct Lines {
    runs: Option<Vec<u64>>,
    throughput: Option<Vec<u64>>,
    repetitions: Option<Vec<u64>>,
    latency: Option<Vec<u64>>,
    threaded: Vec<u64>,
}

/// The rows of the CSV file `path` when it is there (all of them, checked,
/// with their lines), `None` when it is not.
fn read_present<T: DeserializeOwned + CheckRow>(
    path: &Path,
) -> Result<Option<Lined<T>>, InputError> {
    if path.exists() {
        read_csv_lined(path).map(Some)
    } else {
        Ok(None)
    }
}

/// The rows of an optional CSV file with their lines: none when it is
/// absent or empty, as [`read_optional_csv`] reads it.
fn read_optional_lined<T: DeserializeOwned + CheckRow>(
    path: &Path,
) -> Result<Lined<T>, InputError> {
    if !path.exists() || read_text(path)?.trim().is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    read_csv_lined(path)
}

/// Refuses a `runs.csv` with no rows, or whose every cell was skipped (the
/// figure files then hold no row, not even a header): there is nothing to
/// read, and the reason is said.
fn check_measured_something(dir: &Path, runs: &[RunRow]) -> Result<(), InputError> {
    let Some(first) = runs.first() else {
        return Err(InputError::new(
            &dir.join(RUNS_FILE),
            None,
            "a header and no rows: a run writes a row for every (algorithm, workload) it was \
             given, measured or skipped, so the file was cut short; make the results again \
             (`make results`)",
        ));
    };
    if runs.iter().all(|run| !run.is_ok()) {
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
    Ok(())
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
        threaded: files.threaded,
    };
    Ok(results)
}
