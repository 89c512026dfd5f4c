//! The run metadata: everything needed to judge or reproduce a set of results.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use schema::SCHEMA_VERSION;
use serde::Serialize;

use crate::clock;
use crate::memory::MemoryLatency;
use crate::output::Floor;
use crate::select::Selection;

/// Crates whose versions affect what is measured or generated.
const RECORDED_CRATES: [&str; 5] = ["rand", "rand_chacha", "hdrhistogram", "csv", "toml"];

/// The settings a run was given.
#[derive(Debug, Serialize)]
pub struct Settings {
    /// The seed of every random stream.
    pub seed: u64,
    /// The scale of the built-in workloads.
    pub scale: String,
    /// `event` or `tick`.
    pub driver: String,
    /// Timed repetitions of the whole pass.
    pub repetitions: u32,
    /// Batched passes of each cell (at most `repetitions`; fewer for a heavy
    /// contender, as its whole passes).
    pub batched_repetitions: u32,
    /// The furthest tick a ticked wheel or the tick driver may be run to
    /// (`--max-ticks`).
    pub max_ticks: u64,
    /// The seconds an untimed verification pass may run (`--budget`).
    pub budget_seconds: f64,
}

/// How the figures' intervals and ties are computed (`harness/src/stats.rs`).
#[derive(Debug, Serialize)]
pub struct Statistics {
    median_ci: &'static str,
    ratio_ci: &'static str,
    bootstrap_resamples: usize,
    tie_rule: &'static str,
    consistency_tolerance: f64,
}

impl Default for Statistics {
    fn default() -> Self {
        Self {
            median_ci: "distribution-free: order statistics x(k)..x(n+1-k) of the repetitions, \
                        k the largest with binomial(n, 1/2) coverage >= 95%; none below 6 \
                        repetitions (schema::MIN_REPETITIONS): the median alone, no tie",
            ratio_ci: "95% percentile bootstrap of median(a)/median(best), both resampled \
                       with replacement, seeded",
            bootstrap_resamples: crate::stats::BOOTSTRAP_RESAMPLES,
            tie_rule: "a cell ties with the best when their median intervals overlap; a \
                       workload has a winner only when no other cell ties with the best; a cell \
                       of fewer than 6 repetitions ties with nothing",
            consistency_tolerance: crate::output::CONSISTENCY_TOLERANCE,
        }
    }
}

/// The replay loop's own cost on one workload: the median whole-pass ns per
/// operation of a queue that does nothing.
#[derive(Clone, Debug, Serialize)]
pub struct ReplayOverhead {
    /// The workload.
    pub workload: String,
    /// Median ns per measured operation.
    pub ns_per_op: f64,
}

/// An algorithm as run: name, family (for grouping in reports), whether it is
/// exact (an inexact one fires late, within its declared bound), parameters and
/// one-line summary.
#[derive(Debug, Serialize)]
pub struct AlgorithmEntry {
    name: String,
    family: &'static str,
    exact: bool,
    counts_work: bool,
    params: String,
    summary: &'static str,
    /// For a native row, the contract row that runs the same structure.
    native_of: Option<&'static str>,
    /// For a point of a parameter sweep, its design, parameter and value.
    #[serde(skip_serializing_if = "Option::is_none")]
    sweep: Option<SweepEntry>,
    /// Whether the row is a variant, a sweep point only: reports keep it to
    /// their parameter sweeps and out of every verdict.
    variant: bool,
}

/// [`algorithms::Sweep`] as the metadata writes it.
#[derive(Clone, Debug, Serialize)]
pub struct SweepEntry {
    design: &'static str,
    param: &'static str,
    value: u64,
}

/// How a run started: its id and what is measured from its start.
#[derive(Clone, Debug)]
pub struct Start {
    /// The run's id ([`run_id`]).
    pub run_id: String,
    /// When it started, for its wall time.
    pub instant: Instant,
    /// The steal counter then (`clock::steal_seconds`), for its steal time.
    pub steal_seconds: Option<f64>,
}

impl Start {
    /// A run starting now, in this process.
    pub fn now() -> Self {
        Self {
            run_id: run_id(SystemTime::now(), std::process::id()),
            instant: Instant::now(),
            steal_seconds: clock::steal_seconds(),
        }
    }
}

/// A real system and the rows that model it ([`algorithms::systems`]), for
/// the report's table.
#[derive(Debug, Serialize)]
pub struct SystemEntry {
    name: &'static str,
    structure: &'static str,
    rows: &'static [&'static str],
    row: &'static str,
    differs: &'static str,
}

/// The contents of `metadata.json`.
#[derive(Debug, Serialize)]
pub struct Metadata {
    schema_version: u32,
    run_id: String,
    generator_version: u32,
    timerbench_version: &'static str,
    #[serde(flatten)]
    settings: Settings,
    statistics: Statistics,
    replay_overhead: Vec<ReplayOverhead>,
    algorithms: Vec<AlgorithmEntry>,
    workloads: Vec<String>,
    /// `runs.csv`'s rows, so that a reader can tell a file cut at a line
    /// boundary from a run with fewer cells; 0 until [`Metadata::with_cells`].
    cells: usize,
    #[serde(flatten)]
    build: Build,
    cpu_model: String,
    cores: usize,
    clock_source: String,
    clock_floor_ns: Floor,
    memory_latency_ns: Vec<MemoryLatency>,
    date_utc: String,
    wall_seconds: f64,
    steal_seconds: Option<f64>,
    crate_versions: BTreeMap<String, String>,
    systems: Vec<SystemEntry>,
    /// The threaded mode's settings, when the run had it (`--threaded`).
    #[serde(skip_serializing_if = "Option::is_none")]
    threaded: Option<schema::ThreadedSettings>,
    /// The run's real kernel traces; empty until
    /// [`Metadata::with_real_traces`].
    real_traces: Vec<schema::RealTraceEntry>,
}

impl Metadata {
    /// The metadata with the threaded mode's settings, when the run had it.
    pub fn with_threaded(self, threaded: Option<schema::ThreadedSettings>) -> Self {
        Self { threaded, ..self }
    }

    /// The metadata with the number of (algorithm, workload) cells the run
    /// wrote a `runs.csv` row for, measured or skipped.
    pub fn with_cells(self, cells: usize) -> Self {
        Self { cells, ..self }
    }

    /// The metadata with the run's real kernel traces, each with its twin
    /// and both tapes' shapes, measured as the run replayed them.
    pub fn with_real_traces(self, real_traces: Vec<schema::RealTraceEntry>) -> Self {
        Self {
            real_traces,
            ..self
        }
    }

    /// Gathers the metadata of the run that started as `start` said.
    pub fn collect(
        settings: Settings,
        selection: &Selection,
        floor: Floor,
        memory: Vec<MemoryLatency>,
        replay_overhead: Vec<ReplayOverhead>,
        start: &Start,
    ) -> Self {
        let catalog = algorithms::registry::catalog();
        Self {
            schema_version: SCHEMA_VERSION,
            run_id: start.run_id.clone(),
            generator_version: workloads::GENERATOR_VERSION,
            timerbench_version: env!("CARGO_PKG_VERSION"),
            settings,
            statistics: Statistics::default(),
            replay_overhead,
            algorithms: catalog
                .into_iter()
                .filter(|info| selection.algorithms.iter().any(|n| n == info.name))
                .map(|info| AlgorithmEntry {
                    name: info.name.to_owned(),
                    family: info.family.as_str(),
                    exact: info.exact,
                    counts_work: info.counts_work,
                    params: info.params,
                    summary: info.summary,
                    native_of: info.native_of,
                    sweep: info.sweep.map(|sweep| SweepEntry {
                        design: sweep.design,
                        param: sweep.param,
                        value: sweep.value,
                    }),
                    variant: info.variant,
                })
                .collect(),
            workloads: selection
                .workloads
                .iter()
                .map(|w| w.name().to_owned())
                .collect(),
            cells: 0,
            build: Build::current(),
            cpu_model: cpu_model(),
            cores: std::thread::available_parallelism().map_or(0, usize::from),
            clock_source: clock::clock_source(),
            clock_floor_ns: floor,
            memory_latency_ns: memory,
            date_utc: utc_timestamp(SystemTime::now()),
            wall_seconds: start.instant.elapsed().as_secs_f64(),
            steal_seconds: start
                .steal_seconds
                .zip(clock::steal_seconds())
                .map(|(start, end)| end - start),
            crate_versions: crate_versions(include_str!("../../Cargo.lock")),
            systems: algorithms::systems::SYSTEMS
                .iter()
                .map(|system| SystemEntry {
                    name: system.name,
                    structure: system.structure,
                    rows: system.rows,
                    row: system.row,
                    differs: system.differs,
                })
                .collect(),
            threaded: None,
            real_traces: Vec::new(),
        }
    }
}

/// `git status` over the tracked files that a build reads: everything but
/// `results/`. A run rewrites the tracked files under `results/`, so without
/// the exclusion a second `make results` straight after a first would call
/// its own unchanged build "built with uncommitted changes".
const GIT_STATUS_OF_SOURCES: [&str; 6] = [
    "status",
    "--porcelain",
    "--untracked-files=no",
    "--",
    ":(top)",
    ":(top,exclude)results",
];

/// What was built and from which source: the commit (and whether tracked
/// files outside `results/` differed from it), the compiler and the profile.
#[derive(Debug, Serialize)]
struct Build {
    git_commit: String,
    git_dirty: bool,
    rustc: &'static str,
    build_profile: &'static str,
}

impl Build {
    fn current() -> Self {
        Self {
            git_commit: git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".to_owned()),
            git_dirty: git(&GIT_STATUS_OF_SOURCES).is_some_and(|s| !s.is_empty()),
            rustc: env!("TIMERBENCH_RUSTC"),
            build_profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            },
        }
    }
}

/// The contents of `counts.json`: how `counts.csv` was made. Everything that
/// can differ between two runs of the same counts (the date, the time taken,
/// the machine) is here, not in the CSV.
#[derive(Debug, Serialize)]
pub struct CountsMetadata {
    schema_version: u32,
    generator_version: u32,
    timerbench_version: &'static str,
    scale: String,
    seed: u64,
    /// Measured operations counted per cell; `None` (null): all of them.
    counted_ops_per_cell: Option<usize>,
    valgrind: String,
    callgrind_options: Vec<String>,
    estimated_cycles: &'static str,
    #[serde(flatten)]
    build: Build,
    cpu_model: String,
    date_utc: String,
    wall_seconds: f64,
}

impl CountsMetadata {
    /// Gathers the metadata of a `timerbench counts` that started at `started`.
    pub fn collect(
        valgrind: String,
        scale: &str,
        seed: u64,
        counted_ops_per_cell: Option<usize>,
        started: Instant,
    ) -> Self {
        let mut callgrind_options =
            crate::counts::callgrind_options(std::path::Path::new("<cell>.callgrind"));
        callgrind_options.retain(|option| !option.starts_with("--callgrind-out-file"));
        Self {
            schema_version: SCHEMA_VERSION,
            generator_version: workloads::GENERATOR_VERSION,
            timerbench_version: env!("CARGO_PKG_VERSION"),
            scale: scale.to_owned(),
            seed,
            counted_ops_per_cell,
            valgrind,
            callgrind_options,
            estimated_cycles: "instructions + 10 x L1 misses + 100 x last-level misses",
            build: Build::current(),
            cpu_model: cpu_model(),
            date_utc: utc_timestamp(SystemTime::now()),
            wall_seconds: started.elapsed().as_secs_f64(),
        }
    }
}

/// Runs git with `args` in the current directory; `None` if git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The first `model name` in /proc/cpuinfo, or `unknown`.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines().find_map(|line| {
                line.strip_prefix("model name")?
                    .split_once(':')
                    .map(|(_, v)| v.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The versions of [`RECORDED_CRATES`] pinned in a Cargo.lock text. A crate
/// locked at several versions (one for us, one for a dependency) lists them all,
/// comma-separated, in lock-file order.
fn crate_versions(lock: &str) -> BTreeMap<String, String> {
    let mut versions: BTreeMap<String, String> = BTreeMap::new();
    let mut name: Option<&str> = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"'));
        } else if let (Some(current), Some(value)) = (name, line.strip_prefix("version = ")) {
            if RECORDED_CRATES.contains(&current) {
                let entry = versions.entry(current.to_owned()).or_default();
                if !entry.is_empty() {
                    entry.push_str(", ");
                }
                entry.push_str(value.trim_matches('"'));
            }
            name = None;
        }
    }
    versions
}

/// `time` as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_timestamp(time: SystemTime) -> String {
    let [year, month, day, hour, minute, second] = utc_fields(time);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z")
}

/// A run's id: its start in UTC to the second and the process id,
/// `YYYYMMDDTHHMMSSZ-PID` (e.g. `20261125T130501Z-12345`). No two runs share
/// one: a process runs one run, and no two live processes share an id. It
/// ends in the process id because the staging directory is named after it
/// (`crate::swap`), and a later run removes that directory only when its
/// process is gone. Metadata like the date: no figure depends on it.
pub fn run_id(time: SystemTime, pid: u32) -> String {
    let [year, month, day, hour, minute, second] = utc_fields(time);
    format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}Z-{pid}")
}

/// Year, month, day, hour, minute and second of `time` in UTC.
fn utc_fields(time: SystemTime) -> [u64; 6] {
    let seconds = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    [year, month, day, rest / 3600, rest % 3600 / 60, rest % 60]
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for non-negative days).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_779), (2026, 11, 22));
    }

    #[test]
    fn a_run_id_is_the_utc_second_and_the_process() {
        let time =
            UNIX_EPOCH + std::time::Duration::from_secs(20_779 * 86_400 + 13 * 3600 + 5 * 60 + 1);
        assert_eq!(run_id(time, 12_345), "20261122T130501Z-12345");
        assert_eq!(utc_timestamp(time), "2026-11-22T13:05:01Z");
    }

    #[test]
    fn crate_versions_from_a_lock_file() {
        let lock = "[[package]]\nname = \"rand\"\nversion = \"0.9.2\"\n\n[[package]]\nname = \"other\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"rand\"\nversion = \"0.10.3\"\n";
        let versions = crate_versions(lock);
        assert_eq!(
            versions.get("rand").map(String::as_str),
            Some("0.9.2, 0.10.3")
        );
        assert!(!versions.contains_key("other"));
    }
}
