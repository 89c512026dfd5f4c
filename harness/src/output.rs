//! Results on disk: three tidy CSV files and a metadata file, written atomically.
//!
//! The schema is documented in `results/README.md`; [`SCHEMA_VERSION`] is the
//! first column of every CSV row and a field of the metadata, so that a reader can
//! refuse files it does not understand. Every file is first written under a
//! temporary name in the output directory and renamed into place only when all of
//! them were written, so an interrupted or failed run leaves no half-written CSV
//! (and no mix of old and new files).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::bench::{AlgorithmResult, Outcome, PERCENTILES, quantile};
use crate::passes::Kind;

/// Version of the CSV and metadata schema; bump on any change a reader would notice.
pub const SCHEMA_VERSION: u32 = 2;

/// The result files, by name.
pub const RUNS_FILE: &str = "runs.csv";
/// Batch-timed means per operation.
pub const THROUGHPUT_FILE: &str = "throughput.csv";
/// Per-operation latency percentiles.
pub const LATENCY_FILE: &str = "latency.csv";
/// Run metadata (JSON).
pub const METADATA_FILE: &str = "metadata.json";

/// The identifying columns shared by every row.
#[derive(Clone, Debug, Serialize)]
pub struct Key {
    /// Algorithm name.
    pub algorithm: String,
    /// Workload name.
    pub workload: String,
    /// `small`, `default`, `large`, or `trace`/`spec` for user input.
    pub scale: String,
    /// `event` or `tick`.
    pub driver: String,
}

/// One row of `runs.csv`: one (algorithm, workload, scale).
#[derive(Debug, Serialize)]
pub struct RunRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    scale: String,
    driver: String,
    params: String,
    status: &'static str,
    skip_reason: String,
    measured_ops: u64,
    inserts: u64,
    cancels: u64,
    reschedules: u64,
    cancel_hits: Option<u64>,
    reschedule_hits: Option<u64>,
    fired: Option<u64>,
    max_pending: u64,
    wakeups: Option<u64>,
    empty_wakeups: Option<u64>,
    slot_visits: Option<u64>,
    empty_slot_visits: Option<u64>,
    entries_examined_not_due: Option<u64>,
    cascades: Option<u64>,
    bucket_expirations: Option<u64>,
    insert_scan_steps: Option<u64>,
    peak_bytes: Option<u64>,
    bytes_per_pending: Option<f64>,
    allocs_measured: Option<u64>,
    max_lateness_ticks: Option<u64>,
    checksum: String,
    wall_ms: Option<u64>,
}

/// One row of `throughput.csv`: one operation of one run.
#[derive(Debug, Serialize)]
pub struct ThroughputRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    scale: String,
    driver: String,
    operation: &'static str,
    count: u64,
    total_ns: u64,
    mean_ns: f64,
    batches: u64,
    clock_reads_per_op: f64,
}

/// One row of `latency.csv`: one operation of one run.
#[derive(Debug, Serialize)]
pub struct LatencyRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    scale: String,
    driver: String,
    operation: &'static str,
    count: u64,
    mean_ns: f64,
    p50_ns: u64,
    p90_ns: u64,
    p99_ns: u64,
    p999_ns: u64,
    max_ns: u64,
    floor_p50_ns: u64,
    floor_p99_ns: u64,
}

/// Facts about a workload's tape that every row of it shares.
pub struct TapeFacts {
    /// Inserts in the measured phase.
    pub inserts: u64,
    /// Cancels in the measured phase.
    pub cancels: u64,
    /// Reschedules in the measured phase.
    pub reschedules: u64,
    /// The exact reference model's largest pending population: the figure of a
    /// skipped row (a measured row reports the algorithm's own).
    pub max_pending: u64,
}

/// The clock floor's percentiles, in nanoseconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Floor {
    /// Median of an empty timed region.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest sample.
    pub max_ns: u64,
}

/// All rows of a run, accumulated workload by workload.
#[derive(Default)]
pub struct Rows {
    runs: Vec<RunRow>,
    throughput: Vec<ThroughputRow>,
    latency: Vec<LatencyRow>,
}

impl Rows {
    /// Adds one algorithm's result on one workload.
    pub fn add(&mut self, key: Key, facts: &TapeFacts, result: &AlgorithmResult, floor: Floor) {
        let measured_ops = facts.inserts + facts.cancels + facts.reschedules;
        let (m, skip_reason) = match &result.outcome {
            Outcome::Measured(m) => (Some(m.as_ref()), String::new()),
            Outcome::Skipped(reason) => (None, reason.clone()),
        };
        // An algorithm that counts no work leaves the counter columns empty:
        // "not counted" must not read as "none".
        let c = m.filter(|_| result.counts_work).map(|m| m.counters);
        self.runs.push(RunRow {
            schema_version: SCHEMA_VERSION,
            algorithm: key.algorithm.clone(),
            workload: key.workload.clone(),
            scale: key.scale.clone(),
            driver: key.driver.clone(),
            params: result.params.clone(),
            status: if m.is_some() { "ok" } else { "skipped" },
            skip_reason,
            measured_ops,
            inserts: facts.inserts,
            cancels: facts.cancels,
            reschedules: facts.reschedules,
            cancel_hits: m.map(|m| m.cancel_hits),
            reschedule_hits: m.map(|m| m.reschedule_hits),
            fired: m.map(|m| m.fired),
            max_pending: m.map_or(facts.max_pending, |m| m.max_pending as u64),
            wakeups: m.map(|m| m.wakeups),
            empty_wakeups: m.map(|m| m.empty_wakeups),
            slot_visits: c.map(|c| c.slot_visits),
            empty_slot_visits: c.map(|c| c.empty_slot_visits),
            entries_examined_not_due: c.map(|c| c.entries_examined_not_due),
            cascades: c.map(|c| c.cascades),
            bucket_expirations: c.map(|c| c.bucket_expirations),
            insert_scan_steps: c.map(|c| c.insert_scan_steps),
            peak_bytes: m.map(|m| m.peak_bytes),
            bytes_per_pending: m.map(|m| m.peak_bytes as f64 / m.max_pending.max(1) as f64),
            allocs_measured: m.map(|m| m.allocs_measured),
            max_lateness_ticks: m.map(|m| m.max_lateness),
            checksum: m.map_or_else(String::new, |m| m.checksum.to_hex()),
            wall_ms: m.map(|m| m.wall_ms),
        });
        // A skipped run has no timings.
        let Some(m) = m else { return };

        let t = &m.throughput;
        let throughput_row = |operation, count: u64, total_ns: u64, batches: u64| ThroughputRow {
            schema_version: SCHEMA_VERSION,
            algorithm: key.algorithm.clone(),
            workload: key.workload.clone(),
            scale: key.scale.clone(),
            driver: key.driver.clone(),
            operation,
            count,
            total_ns,
            mean_ns: mean(total_ns, count),
            batches,
            clock_reads_per_op: batches as f64 / count.max(1) as f64,
        };
        for kind in Kind::ALL {
            let i = kind as usize;
            self.throughput.push(throughput_row(
                kind.name(),
                t.count[i],
                t.total_ns[i],
                t.batches[i],
            ));
        }
        let advance = Kind::Advance as usize;
        self.throughput.push(throughput_row(
            "expire",
            t.fired,
            t.total_ns[advance],
            t.batches[advance],
        ));
        self.throughput.push(throughput_row(
            "all",
            measured_ops,
            t.total_ns.iter().sum(),
            t.batches.iter().sum(),
        ));

        let latency_row = |operation, h: &hdrhistogram::Histogram<u64>| LatencyRow {
            schema_version: SCHEMA_VERSION,
            algorithm: key.algorithm.clone(),
            workload: key.workload.clone(),
            scale: key.scale.clone(),
            driver: key.driver.clone(),
            operation,
            count: h.len(),
            mean_ns: if h.is_empty() { 0.0 } else { h.mean() },
            p50_ns: quantile(h, PERCENTILES[0].1),
            p90_ns: quantile(h, PERCENTILES[1].1),
            p99_ns: quantile(h, PERCENTILES[2].1),
            p999_ns: quantile(h, PERCENTILES[3].1),
            max_ns: h.max(),
            floor_p50_ns: floor.p50_ns,
            floor_p99_ns: floor.p99_ns,
        };
        for kind in Kind::ALL {
            self.latency
                .push(latency_row(kind.name(), &m.latency.per_kind[kind as usize]));
        }
        self.latency.push(latency_row("expire", &m.latency.expire));
    }

    /// The `all` throughput rows, for the summary table:
    /// (algorithm, workload, mean ns per operation).
    pub fn all_in_means(&self) -> impl Iterator<Item = (&str, &str, f64)> {
        self.throughput
            .iter()
            .filter(|row| row.operation == "all")
            .map(|row| (row.algorithm.as_str(), row.workload.as_str(), row.mean_ns))
    }

    /// The `runs.csv` rows, for the summary table:
    /// (algorithm, workload, status, empty slot visits).
    pub fn run_summaries(&self) -> impl Iterator<Item = (&str, &str, &'static str, Option<u64>)> {
        self.runs.iter().map(|row| {
            (
                row.algorithm.as_str(),
                row.workload.as_str(),
                row.status,
                row.empty_slot_visits,
            )
        })
    }
}

/// `total / count`, or 0 for no operations.
fn mean(total: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        total as f64 / count as f64
    }
}

/// Checks that `dir` exists or can be created, and that a file can be written
/// in it, before any measurement starts. Creates the directory.
pub fn prepare_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the output directory {}", dir.display()))?;
    let probe = dir.join(format!(".timerbench-probe-{}", std::process::id()));
    fs::write(&probe, b"")
        .with_context(|| format!("the output directory {} is not writable", dir.display()))?;
    fs::remove_file(&probe).ok();
    Ok(())
}

/// Writes the rows and `metadata` into `dir`: every file under a temporary
/// name first, then all renamed into place.
pub fn write_all(dir: &Path, rows: &Rows, metadata: &impl Serialize) -> Result<Vec<PathBuf>> {
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let result = (|| -> Result<()> {
        staged.push(stage_csv(dir, RUNS_FILE, &rows.runs)?);
        staged.push(stage_csv(dir, THROUGHPUT_FILE, &rows.throughput)?);
        staged.push(stage_csv(dir, LATENCY_FILE, &rows.latency)?);
        let json = serde_json::to_string_pretty(metadata)? + "\n";
        staged.push(stage_bytes(dir, METADATA_FILE, json.as_bytes())?);
        Ok(())
    })();
    if let Err(error) = result {
        for (temp, _) in &staged {
            fs::remove_file(temp).ok();
        }
        return Err(error);
    }
    let mut written = Vec::new();
    for (temp, target) in staged {
        fs::rename(&temp, &target)
            .with_context(|| format!("cannot move {} into place", target.display()))?;
        written.push(target);
    }
    Ok(written)
}

fn temp_path(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!(".{name}.tmp-{}", std::process::id())),
        dir.join(name),
    )
}

fn stage_csv<T: Serialize>(dir: &Path, name: &str, rows: &[T]) -> Result<(PathBuf, PathBuf)> {
    let (temp, target) = temp_path(dir, name);
    let mut writer = csv::Writer::from_path(&temp)
        .with_context(|| format!("cannot write {}", temp.display()))?;
    for row in rows {
        writer.serialize(row)?;
    }
    writer
        .flush()
        .with_context(|| format!("cannot write {}", temp.display()))?;
    Ok((temp, target))
}

fn stage_bytes(dir: &Path, name: &str, bytes: &[u8]) -> Result<(PathBuf, PathBuf)> {
    let (temp, target) = temp_path(dir, name);
    fs::write(&temp, bytes).with_context(|| format!("cannot write {}", temp.display()))?;
    Ok((temp, target))
}
