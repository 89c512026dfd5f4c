//! Reading a results directory: the one layer that opens `runs.csv`,
//! `throughput.csv`, `repetitions.csv`, `latency.csv` and `metadata.json`,
//! checks their schema
//! version, and turns every problem into an [`InputError`] that names the file,
//! the line, what was wrong and what is valid.
//!
//! The schema is `results/README.md`. Every CSV row starts with
//! `schema_version`, and the metadata carries the same number; a version other
//! than [`SCHEMA_VERSION`] is refused, because a column could mean something
//! else. Columns this reader does not use are ignored, so the harness may add
//! columns without breaking the report as long as it bumps the version for any
//! change of meaning. Every row of a run ends with its `run_id` (absent in
//! files made before run ids), and the metadata carries it: files that name
//! different runs, or some an id and some none, are refused.

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The schema version this reader understands (see `results/README.md`).
pub const SCHEMA_VERSION: u32 = 3;

/// The run file: one row per (algorithm, workload).
pub const RUNS_FILE: &str = "runs.csv";
/// Per operation, the statistics over the repetitions.
pub const THROUGHPUT_FILE: &str = "throughput.csv";
/// Every timed repetition, raw.
pub const REPETITIONS_FILE: &str = "repetitions.csv";
/// Per-operation latency percentiles.
pub const LATENCY_FILE: &str = "latency.csv";
/// The run metadata.
pub const METADATA_FILE: &str = "metadata.json";
/// What the contract costs each native row: optional (a run without native
/// rows, or one made before they existed, has none).
pub const CONTRACT_COST_FILE: &str = "contract_cost.csv";
/// Instructions, simulated cache misses and mispredictions per operation, from `timerbench
/// counts`: optional (most runs have none).
pub const COUNTS_FILE: &str = "counts.csv";

/// The file `timerbench counts` writes beside `counts.csv`, naming the build
/// it counted: optional, like `counts.csv`.
pub const COUNTS_META_FILE: &str = "counts.json";
/// This run against an earlier one, from `timerbench compare BASE NEW --save`:
/// optional.
pub const COMPARISON_FILE: &str = "comparison.csv";

/// The verdicts `comparison.csv` may hold, as `timerbench compare` words them.
pub const VERDICTS: [&str; 4] = [
    "faster",
    "slower",
    "no significant change",
    "too few repetitions",
];

/// The name of the column every CSV row starts with.
const VERSION_COLUMN: &str = "schema_version";

/// A problem with the user's input: a missing directory or file, or a file
/// that is not what the schema says. Its message names the file and, where
/// there is one, the line.
#[derive(Debug)]
pub struct InputError {
    /// The file (or directory) at fault.
    pub path: PathBuf,
    /// The 1-based line, when the problem is on one line.
    pub line: Option<u64>,
    /// What was wrong and what is valid, as a sentence.
    pub message: String,
}

impl InputError {
    pub(crate) fn new(path: &Path, line: Option<u64>, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// A row type's checks beyond parsing: values the schema rules out.
pub trait CheckRow {
    /// `Err` with the column and what is valid when a value is out of range.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Checks that a measured figure is a finite, non-negative number.
fn non_negative(column: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "column `{column}` is {value}; it must be a finite number, 0 or more"
        ))
    }
}

/// One row of `runs.csv`, the columns the report uses. Measured columns are
/// `None` on a skipped row.
#[derive(Clone, Debug, Deserialize)]
pub struct RunRow {
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// `ok` or `skipped`.
    pub status: String,
    /// Why a skipped row was skipped (empty otherwise).
    pub skip_reason: String,
    /// The largest number of pending timers.
    pub max_pending: u64,
    /// Slot visits that fired nothing: empty ticks.
    pub empty_slot_visits: Option<u64>,
    /// Entries looked at but not due.
    pub entries_examined_not_due: Option<u64>,
    /// Entries moved from a coarser wheel level to a finer one.
    pub cascades: Option<u64>,
    /// Peak heap bytes over the largest pending population.
    pub bytes_per_pending: Option<f64>,
    /// Peak heap bytes held by the queue (absent in files made before the
    /// memory kept after the work was recorded, like the four below).
    #[serde(default)]
    pub peak_bytes: Option<u64>,
    /// Heap bytes the queue held at the end of the measured phase.
    #[serde(default)]
    pub retained_bytes: Option<u64>,
    /// Timers pending then.
    #[serde(default)]
    pub retained_pending: Option<u64>,
    /// Heap bytes the queue held after the quiet period that follows.
    #[serde(default)]
    pub quiet_bytes: Option<u64>,
    /// Timers pending then.
    #[serde(default)]
    pub quiet_pending: Option<u64>,
    /// The largest lateness in ticks (0 for an exact algorithm).
    pub max_lateness_ticks: Option<u64>,
    /// The run that wrote the row (`None` in files made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
}

impl CheckRow for RunRow {
    fn check(&self) -> Result<(), String> {
        self.bytes_per_pending
            .map_or(Ok(()), |b| non_negative("bytes_per_pending", b))
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

impl CheckRow for RepetitionRow {}

impl CheckRow for LatencyRow {}

/// One row of `contract_cost.csv`: a native row against its contract row.
#[derive(Clone, Debug, Deserialize)]
pub struct ContractCostRow {
    /// The workload's name.
    pub workload: String,
    /// The native row (a crate or baseline through its own API).
    pub native: String,
    /// The contract row running the same structure.
    pub contract: String,
    /// The native row's median ns per operation.
    pub native_ns: f64,
    /// The contract row's median ns per operation.
    pub contract_ns: f64,
    /// `contract_ns / native_ns`.
    pub ratio: f64,
    /// The ratio's bootstrap interval.
    pub ratio_ci_low: Option<f64>,
    /// The ratio's bootstrap interval.
    pub ratio_ci_high: Option<f64>,
    /// Whether the two medians' intervals overlap.
    pub tied: bool,
    /// The run that wrote the row (`None` in files made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
}

impl CheckRow for ContractCostRow {
    fn check(&self) -> Result<(), String> {
        non_negative("native_ns", self.native_ns)?;
        non_negative("contract_ns", self.contract_ns)?;
        non_negative("ratio", self.ratio)
    }
}

/// One row of `counts.csv`: callgrind's counts of one (algorithm, workload,
/// operation), per call.
#[derive(Clone, Debug, Deserialize)]
pub struct CountRow {
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// `all` (per measured operation) or a kind (per call of it).
    pub operation: String,
    /// What the figures divide by.
    pub calls: u64,
    /// Instructions per call.
    pub instructions: f64,
    /// Simulated L1 misses per call.
    pub l1_misses: f64,
    /// Simulated last-level misses per call.
    pub ll_misses: f64,
    /// Estimated cycles per call.
    pub estimated_cycles: f64,
    /// Simulated branch mispredictions per call.
    pub branch_misses: f64,
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

/// One row of `comparison.csv`: one cell of this run against BASE.
#[derive(Clone, Debug, Deserialize)]
pub struct ComparisonRow {
    /// The run compared against, as `timerbench compare` was given it.
    pub base: String,
    /// The workload's name.
    pub workload: String,
    /// The algorithm's registry name.
    pub algorithm: String,
    /// BASE's headline median, ns per operation.
    pub base_ns: f64,
    /// This run's headline median, ns per operation.
    pub new_ns: f64,
    /// This run's median over BASE's (over the common shift when normalised).
    pub ratio: f64,
    /// The ratio's bootstrap interval, when both cells had enough repetitions.
    pub ratio_ci_low: Option<f64>,
    /// See `ratio_ci_low`.
    pub ratio_ci_high: Option<f64>,
    /// One of [`VERDICTS`].
    pub verdict: String,
    /// The noise band, a fraction.
    pub noise: f64,
    /// Whether each ratio was divided by the median cell's.
    pub normalised: bool,
    /// The median cell's ratio.
    pub shift: Option<f64>,
    /// The run the comparison describes (`None` when it had no run id).
    #[serde(default)]
    pub run_id: Option<String>,
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

impl RunRow {
    /// Whether the row was measured (not skipped).
    pub fn is_ok(&self) -> bool {
        self.status == "ok"
    }
}

/// One row of `throughput.csv`.
#[derive(Clone, Debug, Deserialize)]
pub struct ThroughputRow {
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// `insert`, `cancel`, `reschedule`, `advance`, `expire` or `all`.
    pub operation: String,
    /// Operations counted.
    pub count: u64,
    /// `whole` (the `all` row) or `batched`.
    pub method: String,
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
    /// The run that wrote the row (`None` in files made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
}

/// One row of `repetitions.csv`, the columns the report checks.
#[derive(Clone, Debug, Deserialize)]
pub struct RepetitionRow {
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// The repetition, from 0.
    pub repetition: u64,
    /// `whole` or `batched`.
    pub pass: String,
    /// The operation.
    pub operation: String,
    /// Nanoseconds.
    pub total_ns: u64,
    /// The run that wrote the row (`None` in files made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
}

/// One row of `latency.csv`.
#[derive(Clone, Debug, Deserialize)]
pub struct LatencyRow {
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// `insert`, `cancel`, `reschedule`, `advance` or `expire`.
    pub operation: String,
    /// Samples.
    pub count: u64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_ns: u64,
    /// The run that wrote the row (`None` in files made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
}

/// An algorithm as `metadata.json` lists it.
#[derive(Clone, Debug, Deserialize)]
pub struct AlgorithmEntry {
    /// Registry name.
    pub name: String,
    /// `seed`, `modern`, `baseline` or `crate` (any other value is kept and
    /// shown after those).
    pub family: String,
    /// `false` for an algorithm that fires late within a declared bound.
    pub exact: bool,
    /// Parameters, e.g. `slots=512`.
    #[serde(default)]
    pub params: String,
    /// One-line description.
    #[serde(default)]
    pub summary: String,
    /// The parameter sweep this row is a point of (absent in results made
    /// before sweeps, and on a design's default row).
    #[serde(default)]
    pub sweep: Option<SweepPoint>,
    /// Whether the row exists only as a sweep point (`<design>@<param>=<value>`):
    /// the report shows it in its parameters section and nowhere else.
    #[serde(default)]
    pub variant: bool,
}

/// Where a row sits in a parameter sweep (`metadata.json`'s `sweep`): its
/// design run with one parameter set to a value, the others at their
/// defaults.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SweepPoint {
    /// The design swept: the name of its default row.
    pub design: String,
    /// The parameter varied, e.g. `tick`.
    pub param: String,
    /// Its value on this row.
    pub value: ParamValue,
}

/// A swept parameter's value as the metadata writes it, a number or a
/// string, kept as text: the report only shows it and orders by it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ParamValue(pub String);

impl ParamValue {
    /// The value as a number, when it is one (for ordering the points).
    pub fn number(&self) -> Option<f64> {
        self.0.parse().ok()
    }
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ParamValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Accepts a number or a string; anything else is refused with a
        /// message naming the field and what is valid.
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ParamValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`sweep.value` to be a number or a string (e.g. 10 or \"1ms\")")
            }
            fn visit_u64<E>(self, v: u64) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_owned()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Checks the sweep fields of the metadata's algorithms: a variant row must
/// say which design and parameter it is a point of (the report would not
/// know where to draw it), names must not be empty, and a design's default
/// row (the row named as the design) cannot be a variant. `Err` names the
/// entry, the field and what is valid.
fn check_sweeps(algorithms: &[AlgorithmEntry]) -> Result<(), String> {
    for (i, entry) in algorithms.iter().enumerate() {
        let which = format!("algorithms[{i}] ({:?})", entry.name);
        match &entry.sweep {
            None if entry.variant => {
                return Err(format!(
                    "{which} has `variant` true but no `sweep`; a variant row must name its design, \
                     parameter and value, e.g. \"sweep\": {{\"design\": \"rounds-wheel\", \
                     \"param\": \"tick\", \"value\": 10}}"
                ));
            }
            None => {}
            Some(sweep) => {
                for (field, value) in [("design", &sweep.design), ("param", &sweep.param)] {
                    if value.trim().is_empty() {
                        return Err(format!(
                            "{which} has an empty `sweep.{field}`; it must name the {} \
                             (e.g. \"{}\")",
                            if field == "design" {
                                "design's default row"
                            } else {
                                "parameter varied"
                            },
                            if field == "design" {
                                "rounds-wheel"
                            } else {
                                "tick"
                            }
                        ));
                    }
                }
                if entry.variant && sweep.design == entry.name {
                    return Err(format!(
                        "{which} has `variant` true but is named as its design ({:?}); a design's \
                         default row is not a variant: set `variant` false, or name the row \
                         {:?}",
                        sweep.design,
                        format!("{}@{}={}", sweep.design, sweep.param, sweep.value)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The clock floor: percentiles of an empty timed region, in nanoseconds.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct ClockFloor {
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest sample.
    pub max_ns: u64,
}

/// One size of the memory latency probe.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct MemoryLatency {
    /// The probed buffer's size in bytes.
    pub bytes: u64,
    /// Mean nanoseconds per dependent load.
    pub ns_per_load: f64,
}

/// The fields of `metadata.json` the report shows.
#[derive(Clone, Debug, Deserialize)]
pub struct Metadata {
    /// The seed of every random stream.
    pub seed: u64,
    /// `small`, `default` or `large`.
    pub scale: String,
    /// `event` or `tick`.
    pub driver: String,
    /// The algorithms run, with their families.
    pub algorithms: Vec<AlgorithmEntry>,
    /// The workloads run, in run order.
    pub workloads: Vec<String>,
    /// The commit the harness was built from.
    #[serde(default)]
    pub git_commit: String,
    /// Whether the work tree had changes.
    #[serde(default)]
    pub git_dirty: bool,
    /// The compiler's version line.
    #[serde(default)]
    pub rustc: String,
    /// `release` or `debug`.
    #[serde(default)]
    pub build_profile: String,
    /// The CPU's model name.
    #[serde(default)]
    pub cpu_model: String,
    /// Logical cores.
    #[serde(default)]
    pub cores: u64,
    /// The kernel's clock source.
    #[serde(default)]
    pub clock_source: String,
    /// The clock floor.
    pub clock_floor_ns: ClockFloor,
    /// The memory latency probe (absent in results made before it existed).
    #[serde(default)]
    pub memory_latency_ns: Vec<MemoryLatency>,
    /// When the run finished.
    #[serde(default)]
    pub date_utc: String,
    /// How long the run took.
    #[serde(default)]
    pub wall_seconds: f64,
    /// CPU seconds the hypervisor took from the VM during the run.
    #[serde(default)]
    pub steal_seconds: Option<f64>,
    /// Timed repetitions of each pass.
    pub repetitions: u64,
    /// How the intervals and ties were computed.
    pub statistics: Statistics,
    /// Per workload, the replay loop's own cost.
    pub replay_overhead: Vec<ReplayOverhead>,
    /// The run's id (`None` in results made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
    /// The real systems and the rows that model them (empty in results made
    /// before the list was written into the metadata).
    #[serde(default)]
    pub systems: Vec<SystemEntry>,
}

/// A real system and the rows that model it (`metadata.json`'s `systems`).
#[derive(Clone, Debug, Deserialize)]
pub struct SystemEntry {
    /// The system and its timer class.
    pub name: String,
    /// What it keeps its timers in.
    pub structure: String,
    /// The rows that model it, by name.
    pub rows: Vec<String>,
    /// The rows as the table shows them.
    pub row: String,
    /// What differs, and whether it moves the numbers.
    pub differs: String,
}

/// How the harness computed intervals and ties (`metadata.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct Statistics {
    /// The interval of a median.
    pub median_ci: String,
    /// The interval of a ratio.
    pub ratio_ci: String,
    /// Resamples of the ratio bootstrap.
    pub bootstrap_resamples: u64,
    /// When two cells tie.
    pub tie_rule: String,
    /// How far the batched pass may stray from the whole pass.
    pub consistency_tolerance: f64,
}

/// The replay loop's own cost on one workload (`metadata.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct ReplayOverhead {
    /// The workload.
    pub workload: String,
    /// Median ns per measured operation.
    pub ns_per_op: f64,
}

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

/// The build that `counts.json` says was counted.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct CountsBuild {
    /// The commit the counted binary was built from.
    #[serde(default)]
    pub git_commit: String,
    /// Whether its work tree had changes.
    #[serde(default)]
    pub git_dirty: bool,
}

/// Reads the build named by `counts.json` at `path`, or `None` when the file
/// is absent (a run without counts).
pub fn read_counts_build(path: &Path) -> Result<Option<CountsBuild>, InputError> {
    if !path.exists() {
        return Ok(None);
    }
    parse_counts_build(path, &read_text(path)?).map(Some)
}

/// [`read_counts_build`] on text already in memory; `path` only names it in
/// errors.
pub fn parse_counts_build(path: &Path, text: &str) -> Result<CountsBuild, InputError> {
    serde_json::from_str(text).map_err(|e| json_error(path, &e))
}

/// Reads and checks every file of the results directory `dir`.
pub fn read_results(dir: &Path) -> Result<Results, InputError> {
    if !dir.is_dir() {
        return Err(InputError::new(
            dir,
            None,
            "no results directory here; produce one with `make results` \
             (or `make results SCALE=small` for a quick run), then run `make report`",
        ));
    }
    let metadata = read_metadata(&dir.join(METADATA_FILE))?;
    let runs: Vec<RunRow> = read_csv(&dir.join(RUNS_FILE))?;
    // With every cell skipped, the figure files hold no row (not even a
    // header), and there is nothing to chart: say so, with a reason.
    if let Some(first) = runs.first()
        && runs.iter().all(|run| run.status != "ok")
    {
        return Err(InputError::new(
            &dir.join(RUNS_FILE),
            None,
            format!(
                "no (algorithm, workload) was measured: all {} were skipped (the reasons are in \
                 its skip_reason column; the first: {} on {}: {}), so there is nothing to chart",
                runs.len(),
                first.algorithm,
                first.workload,
                first.skip_reason
            ),
        ));
    }
    let results = Results {
        metadata,
        runs,
        throughput: read_csv(&dir.join(THROUGHPUT_FILE))?,
        repetitions: read_csv(&dir.join(REPETITIONS_FILE))?,
        latency: read_csv(&dir.join(LATENCY_FILE))?,
        contract_cost: read_optional_csv(&dir.join(CONTRACT_COST_FILE))?,
        counts: read_optional_csv(&dir.join(COUNTS_FILE))?,
        counts_build: read_counts_build(&dir.join(COUNTS_META_FILE))?,
        comparison: read_optional_csv(&dir.join(COMPARISON_FILE))?,
    };
    check_one_run(dir, &results)?;
    check_complete(dir, &results)?;
    Ok(results)
}

/// Refuses a results directory whose files do not all come from one run: a
/// run interrupted between two of its renames, or a file copied from
/// another run. Files made before run ids have none; a set in which no file
/// has one is accepted (it cannot be checked), a set in which some have one
/// and some none is not. `comparison.csv` carries the id of the run it
/// describes, so one left from an earlier run is refused too. The harness
/// checks the files it reads the same way (`harness/src/compare.rs`).
fn check_one_run(dir: &Path, results: &Results) -> Result<(), InputError> {
    fn ids<'a>(rows: impl Iterator<Item = &'a Option<String>>) -> BTreeSet<String> {
        rows.map(|id| id.clone().unwrap_or_default()).collect()
    }
    let files = [
        (
            METADATA_FILE,
            ids(std::iter::once(&results.metadata.run_id)),
        ),
        (RUNS_FILE, ids(results.runs.iter().map(|r| &r.run_id))),
        (
            THROUGHPUT_FILE,
            ids(results.throughput.iter().map(|r| &r.run_id)),
        ),
        (
            REPETITIONS_FILE,
            ids(results.repetitions.iter().map(|r| &r.run_id)),
        ),
        (LATENCY_FILE, ids(results.latency.iter().map(|r| &r.run_id))),
        (
            CONTRACT_COST_FILE,
            ids(results.contract_cost.iter().map(|r| &r.run_id)),
        ),
        (
            COMPARISON_FILE,
            ids(results.comparison.iter().map(|r| &r.run_id)),
        ),
    ];
    match mixed_runs(&files) {
        Some(which) => Err(InputError::new(
            dir,
            None,
            format!("the files come from different runs ({which}); make the results again"),
        )),
        None => Ok(()),
    }
}

/// `None` when the files (each a name and the run ids its rows name, the
/// empty string for "none") all name one run, or none; otherwise which file
/// names which. A file without rows names none: it tells nothing of its run.
/// The same rule as the harness's `compare::mixed_runs` (this crate does not
/// depend on the harness).
fn mixed_runs(files: &[(&str, BTreeSet<String>)]) -> Option<String> {
    let every: BTreeSet<&String> = files.iter().flat_map(|(_, ids)| ids).collect();
    if every.len() <= 1 {
        return None;
    }
    let named = |id: &String| {
        if id.is_empty() {
            "no run id".to_owned()
        } else {
            format!("run id {id}")
        }
    };
    let which: Vec<String> = files
        .iter()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(name, ids)| {
            let ids: Vec<String> = ids.iter().map(named).collect();
            format!("{name} has {}", ids.join(" and "))
        })
        .collect();
    Some(which.join("; "))
}

/// Reads `metadata.json`, checking its schema version before its fields.
pub fn read_metadata(path: &Path) -> Result<Metadata, InputError> {
    parse_metadata(path, &read_text(path)?)
}

/// [`read_metadata`] on text already in memory; `path` only names it in errors.
pub fn parse_metadata(path: &Path, text: &str) -> Result<Metadata, InputError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| json_error(path, &e))?;
    match value
        .get(VERSION_COLUMN)
        .and_then(serde_json::Value::as_u64)
    {
        Some(v) if v == u64::from(SCHEMA_VERSION) => {}
        Some(v) => {
            return Err(InputError::new(
                path,
                None,
                format!(
                    "schema_version is {v}; this report reads version {SCHEMA_VERSION} \
                     (rerun `make results` with this checkout)"
                ),
            ));
        }
        None => {
            return Err(InputError::new(
                path,
                None,
                format!(
                    "no numeric schema_version field; expected schema_version {SCHEMA_VERSION} \
                     (see results/README.md)"
                ),
            ));
        }
    }
    let metadata: Metadata = serde_json::from_value(value).map_err(|e| {
        InputError::new(
            path,
            None,
            format!("{e} (the fields are described in results/README.md)"),
        )
    })?;
    check_sweeps(&metadata.algorithms).map_err(|message| InputError::new(path, None, message))?;
    Ok(metadata)
}

fn json_error(path: &Path, error: &serde_json::Error) -> InputError {
    InputError::new(
        path,
        Some(error.line() as u64),
        format!("not valid JSON (column {}): {error}", error.column()),
    )
}

fn read_text(path: &Path) -> Result<String, InputError> {
    fs::read_to_string(path).map_err(|e| {
        InputError::new(
            path,
            None,
            format!("cannot read the file ({e}); `make results` writes it"),
        )
    })
}

/// Reads a CSV file of `T` rows: the header must start with `schema_version`,
/// every row must carry [`SCHEMA_VERSION`] and have as many fields as the
/// header, and every field must parse.
pub fn read_csv<T: DeserializeOwned + CheckRow>(path: &Path) -> Result<Vec<T>, InputError> {
    let text = read_text(path)?;
    check_last_line(path, &text)?;
    parse_csv(path, &text)
}

/// Refuses a file whose last line has no newline after it: timerbench ends
/// every row with one, so such a file was cut short (a full disk, a copy
/// interrupted), even when its last line still has every field.
fn check_last_line(path: &Path, text: &str) -> Result<(), InputError> {
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    Err(InputError::new(
        path,
        Some(text.lines().count() as u64),
        "the file ends inside this line, with no newline after it: it was cut short \
         (timerbench ends every row with a newline); make the results again",
    ))
}

/// [`read_csv`] for a file that may be absent; an absent or empty file has no
/// rows.
pub fn read_optional_csv<T: DeserializeOwned + CheckRow>(
    path: &Path,
) -> Result<Vec<T>, InputError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = read_text(path)?;
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    check_last_line(path, &text)?;
    parse_csv(path, &text)
}

/// [`read_csv`] on text already in memory; `path` only names it in errors.
pub fn parse_csv<T: DeserializeOwned + CheckRow>(
    path: &Path,
    text: &str,
) -> Result<Vec<T>, InputError> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| csv_error(path, text, &e))?
        .clone();
    if headers.get(0) != Some(VERSION_COLUMN) {
        return Err(InputError::new(
            path,
            Some(1),
            format!(
                "the header must start with `{VERSION_COLUMN}`, found {:?}; \
                 this is not a timerbench results file of schema version {SCHEMA_VERSION}",
                headers.get(0).unwrap_or("")
            ),
        ));
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, text, &e))?;
        let line = record.position().map(|p| line_of(text, p));
        let version = record.get(0).unwrap_or("");
        if version != SCHEMA_VERSION.to_string() {
            return Err(InputError::new(
                path,
                line,
                format!(
                    "schema_version is {version:?}; this report reads version {SCHEMA_VERSION} \
                     (rerun `make results` with this checkout)"
                ),
            ));
        }
        let row = record
            .deserialize(Some(&headers))
            .map_err(|e| field_error(path, line, &headers, &record, &e))?;
        if let Err(message) = T::check(&row) {
            return Err(InputError::new(path, line, message));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The error for a row whose field does not parse: names the column and the
/// value found.
fn field_error(
    path: &Path,
    line: Option<u64>,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
    error: &csv::Error,
) -> InputError {
    let field = match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err.field().map(|i| i as usize),
        _ => None,
    };
    let column = field
        .and_then(|i| headers.get(i))
        .map_or_else(String::new, |name| format!(" in column `{name}`"));
    let found = field
        .and_then(|i| record.get(i))
        .map_or_else(String::new, |value| format!(" (found {value:?})"));
    let what = match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err.kind().to_string(),
        _ => error.to_string(),
    };
    InputError::new(
        path,
        line,
        format!("bad value{column}{found}: {what}; see results/README.md for the columns"),
    )
}

/// The 1-based line of a position, counted from its byte offset: the csv
/// crate's own line count is off by one for files with CRLF line ends, where
/// a record's position is the `\n` of the line end before it (so that byte is
/// counted too; a record never starts with `\n`).
fn line_of(text: &str, position: &csv::Position) -> u64 {
    let end = usize::try_from(position.byte()).map_or(text.len(), |b| (b + 1).min(text.len()));
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

fn csv_error(path: &Path, text: &str, error: &csv::Error) -> InputError {
    let line = error.position().map(|p| line_of(text, p));
    let message = match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!(
            "this row has {len} fields where the header has {expected_len}; \
             the file is truncated or damaged (rerun `make results`)"
        ),
        _ => format!("not a valid CSV file: {error}"),
    };
    InputError::new(path, line, message)
}

/// Checks that the files agree: every measured run has its throughput,
/// repetition and latency rows (a file cut short at a line boundary parses,
/// but loses rows).
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

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "schema_version,algorithm,workload,operation,method,count,repetitions,\
                          median_ns,ci_low_ns,ci_high_ns,consistent,tied_with_best\n";
    const INSERT: &str = "3,a,w,insert,batched,3,6,4.5,4.0,5.0,false,\n";
    const ALL: &str = "3,b,w,all,whole,1,6,7,6.5,7.5,,true\n";

    fn parse(text: &str) -> Result<Vec<ThroughputRow>, InputError> {
        parse_csv(Path::new("t.csv"), text)
    }

    #[test]
    fn good_rows_parse() {
        let rows = parse(&format!("{HEADER}{INSERT}{ALL}")).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].median_ns, Some(7.0));
        assert_eq!(rows[1].ci_low_ns, Some(6.5));
        assert_eq!(rows[0].consistent, Some(false));
        assert_eq!(rows[0].tied_with_best, None);
        assert_eq!(rows[1].tied_with_best, Some(true));
    }

    #[test]
    fn wrong_version_names_the_line() {
        let error = parse(&format!("{HEADER}{INSERT}{}", ALL.replacen('3', "2", 1))).unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.message.contains("schema_version is \"2\""), "{error}");
    }

    #[test]
    fn lines_are_counted_with_crlf_line_ends_too() {
        let text = format!("{HEADER}{INSERT}{}", ALL.replacen('3', "2", 1)).replace('\n', "\r\n");
        assert_eq!(parse(&text).unwrap_err().line, Some(3));
    }

    #[test]
    fn missing_version_column_is_refused() {
        let error = parse("algorithm,workload\na,w\n").unwrap_err();
        assert_eq!(error.line, Some(1));
        assert!(error.message.contains("schema_version"), "{error}");
    }

    #[test]
    fn non_numeric_field_names_the_column_and_value() {
        let error = parse(&format!(
            "{HEADER}3,a,w,insert,batched,3,6,fast,4,5,true,\n"
        ))
        .unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.message.contains("`median_ns`"), "{error}");
        assert!(error.message.contains("\"fast\""), "{error}");
    }

    #[test]
    fn a_flag_must_be_true_or_false() {
        let error = parse(&format!("{HEADER}3,a,w,insert,batched,3,6,4.5,4,5,yes,\n")).unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.message.contains("`consistent`"), "{error}");
    }

    #[test]
    fn impossible_values_are_refused() {
        for value in ["NaN", "-5", "inf"] {
            let error = parse(&format!(
                "{HEADER}3,a,w,insert,batched,3,6,{value},4,5,true,\n"
            ))
            .unwrap_err();
            assert_eq!(error.line, Some(2));
            assert!(error.message.contains("`median_ns`"), "{error}");
        }
    }

    #[test]
    fn an_interval_that_misses_its_median_is_refused() {
        let error =
            parse(&format!("{HEADER}3,a,w,insert,batched,3,6,4.5,5,4,true,\n")).unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(
            error
                .message
                .contains("ci_low_ns <= median_ns <= ci_high_ns"),
            "{error}"
        );
    }

    #[test]
    fn short_row_is_reported_as_truncated() {
        let error = parse(&format!("{HEADER}{INSERT}3,b,w,al")).unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.message.contains("truncated"), "{error}");
    }

    #[test]
    fn run_ids_must_name_one_run() {
        let ids =
            |list: &[&str]| -> BTreeSet<String> { list.iter().map(|s| (*s).to_owned()).collect() };
        assert_eq!(
            mixed_runs(&[(METADATA_FILE, ids(&["a"])), (RUNS_FILE, ids(&["a"]))]),
            None
        );
        assert_eq!(
            mixed_runs(&[(METADATA_FILE, ids(&[""])), (RUNS_FILE, ids(&[""]))]),
            None,
            "files made before run ids"
        );
        assert_eq!(
            mixed_runs(&[
                (METADATA_FILE, ids(&["a"])),
                (RUNS_FILE, ids(&["a", "b"])),
                (LATENCY_FILE, ids(&[""])),
                (CONTRACT_COST_FILE, ids(&[])),
            ])
            .as_deref(),
            Some(
                "metadata.json has run id a; runs.csv has run id a and run id b; latency.csv has no run id"
            )
        );
    }

    #[test]
    fn a_run_id_column_is_read_and_may_be_absent() {
        let with = parse(&format!(
            "{},run_id\n{},20261125T130501Z-1\n",
            HEADER.trim_end(),
            INSERT.trim_end()
        ))
        .unwrap();
        assert_eq!(with[0].run_id.as_deref(), Some("20261125T130501Z-1"));
        let without = parse(&format!("{HEADER}{INSERT}")).unwrap();
        assert_eq!(without[0].run_id, None);
    }

    /// Minimal metadata whose algorithms are `algorithms` (a JSON array's
    /// elements).
    fn metadata_with(algorithms: &str) -> Result<Metadata, InputError> {
        parse_metadata(
            Path::new("metadata.json"),
            &format!(
                r#"{{"schema_version": 3, "seed": 1, "scale": "small", "driver": "event",
                "repetitions": 6, "replay_overhead": [], "workloads": ["w"],
                "statistics": {{"median_ci": "m", "ratio_ci": "r", "bootstrap_resamples": 10,
                               "tie_rule": "t", "consistency_tolerance": 0.15}},
                "clock_floor_ns": {{"p50_ns": 20, "p99_ns": 30, "p999_ns": 40, "max_ns": 50}},
                "algorithms": [{algorithms}]}}"#
            ),
        )
    }

    #[test]
    fn metadata_without_sweep_fields_reads_as_designs() {
        let metadata =
            metadata_with(r#"{"name": "rounds-wheel", "family": "seed", "exact": true}"#).unwrap();
        assert_eq!(metadata.algorithms[0].sweep, None);
        assert!(!metadata.algorithms[0].variant);
    }

    #[test]
    fn sweep_points_read_numbers_and_strings() {
        let metadata = metadata_with(
            r#"{"name": "rounds-wheel@tick=10", "family": "seed", "exact": false, "variant": true,
                "sweep": {"design": "rounds-wheel", "param": "tick", "value": 10}},
               {"name": "netty-wheel", "family": "seed", "exact": false, "variant": false,
                "sweep": {"design": "rounds-wheel", "param": "tick", "value": "100"}},
               {"name": "x@f=0.5", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "x", "param": "f", "value": 0.5}, "params": "f=0.5"},
               {"name": "y", "family": "seed", "exact": true, "sweep": null}"#,
        )
        .unwrap();
        let sweep = metadata.algorithms[0].sweep.as_ref().unwrap();
        assert_eq!(
            (sweep.design.as_str(), sweep.param.as_str()),
            ("rounds-wheel", "tick")
        );
        assert_eq!(sweep.value.to_string(), "10");
        assert_eq!(sweep.value.number(), Some(10.0));
        assert!(metadata.algorithms[0].variant);
        assert!(!metadata.algorithms[1].variant);
        assert_eq!(
            metadata.algorithms[1]
                .sweep
                .as_ref()
                .unwrap()
                .value
                .number(),
            Some(100.0)
        );
        assert_eq!(
            metadata.algorithms[2]
                .sweep
                .as_ref()
                .unwrap()
                .value
                .to_string(),
            "0.5"
        );
        assert_eq!(metadata.algorithms[3].sweep, None);
    }

    #[test]
    fn bad_sweep_fields_name_the_entry_and_what_is_valid() {
        let error = metadata_with(
            r#"{"name": "a", "family": "seed", "exact": true},
               {"name": "a@t=1", "family": "seed", "exact": true, "variant": true}"#,
        )
        .unwrap_err();
        assert!(
            error.message.contains("algorithms[1] (\"a@t=1\")")
                && error.message.contains("no `sweep`"),
            "{error}"
        );
        let error = metadata_with(
            r#"{"name": "a@t=1", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "a", "param": " ", "value": 1}}"#,
        )
        .unwrap_err();
        assert!(error.message.contains("empty `sweep.param`"), "{error}");
        let error = metadata_with(
            r#"{"name": "a", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "a", "param": "t", "value": 1}}"#,
        )
        .unwrap_err();
        assert!(error.message.contains("\"a@t=1\""), "{error}");
        let error = metadata_with(
            r#"{"name": "a@t=1", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "a", "param": "t", "value": true}}"#,
        )
        .unwrap_err();
        assert!(
            error
                .message
                .contains("`sweep.value` to be a number or a string"),
            "{error}"
        );
        assert_eq!(error.path, Path::new("metadata.json"));
    }

    #[test]
    fn empty_optional_fields_are_none() {
        let text = "schema_version,algorithm,workload,status,skip_reason,max_pending,\
                    empty_slot_visits,entries_examined_not_due,cascades,bytes_per_pending,max_lateness_ticks\n\
                    3,a,w,skipped,too many,10,,,,,\n";
        let rows: Vec<RunRow> = parse_csv(Path::new("runs.csv"), text).unwrap();
        assert!(!rows[0].is_ok());
        assert_eq!(rows[0].cascades, None);
    }
}
