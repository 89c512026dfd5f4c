//! Results on disk: four tidy CSV files and a metadata file, written atomically;
//! and the aggregation of a workload's repetitions into them (medians,
//! intervals, ratios to the best, ties: `crate::stats`).
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

use crate::bench::{AlgorithmResult, Measurement, Outcome, PERCENTILES, Rep, quantile};
use crate::passes::{Batches, Kind};
use crate::replay::mix;
use crate::stats::{self, Summary};

/// How far the batched pass's total may stray from the whole pass's before its
/// per-kind split is flagged as not adding up (`consistent = false`).
pub const CONSISTENCY_TOLERANCE: f64 = 0.15;

/// Version of the CSV and metadata schema; bump on any change a reader would notice.
pub const SCHEMA_VERSION: u32 = 3;

/// The result files, by name.
pub const RUNS_FILE: &str = "runs.csv";
/// Per operation, the statistics over the repetitions.
pub const THROUGHPUT_FILE: &str = "throughput.csv";
/// Every timed repetition, raw.
pub const REPETITIONS_FILE: &str = "repetitions.csv";
/// Per-operation latency percentiles.
pub const LATENCY_FILE: &str = "latency.csv";
/// What the contract costs each native row's structure.
pub const CONTRACT_COST_FILE: &str = "contract_cost.csv";
/// Run metadata (JSON).
pub const METADATA_FILE: &str = "metadata.json";
/// `timerbench counts`: instructions and simulated cache misses per operation.
pub const COUNTS_FILE: &str = "counts.csv";
/// `timerbench counts`' metadata (JSON): the tool, the cache geometry, the settings.
pub const COUNTS_METADATA_FILE: &str = "counts.json";
/// `timerbench compare BASE NEW --save`'s file, written into NEW: each cell's
/// change against BASE, which the report draws when it is there.
pub const COMPARISON_FILE: &str = "comparison.csv";

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
    repetitions: Option<usize>,
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

/// One row of `throughput.csv`: one operation of one run, over its repetitions.
#[derive(Debug, Serialize)]
pub struct ThroughputRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    scale: String,
    driver: String,
    operation: &'static str,
    method: &'static str,
    count: u64,
    repetitions: usize,
    median_ns: Option<f64>,
    ci_low_ns: Option<f64>,
    ci_high_ns: Option<f64>,
    ci_level: Option<f64>,
    min_ns: Option<f64>,
    max_ns: Option<f64>,
    clock_reads_per_op: f64,
    batch_over_whole: Option<f64>,
    consistent: Option<bool>,
    ratio_to_best: Option<f64>,
    ratio_ci_low: Option<f64>,
    ratio_ci_high: Option<f64>,
    tied_with_best: Option<bool>,
}

/// One row of `contract_cost.csv`: a native row (a crate or baseline driven
/// through its own API) against its contract row (the same structure behind
/// `TimerQueue`) on one workload, both as whole passes.
#[derive(Debug, Serialize)]
pub struct ContractCostRow {
    schema_version: u32,
    /// The workload.
    pub workload: String,
    scale: String,
    driver: String,
    /// The native row.
    pub native: String,
    /// Its contract row.
    pub contract: String,
    /// The native row's median ns per operation.
    pub native_ns: f64,
    /// The contract row's.
    pub contract_ns: f64,
    /// `contract_ns / native_ns`: what the contract (an adapter's handle map
    /// and batch sort, a baseline's stale-safe handles) multiplies the
    /// structure's own cost by.
    pub ratio: f64,
    /// The ratio's 95% bootstrap interval.
    pub ratio_ci_low: Option<f64>,
    /// Its upper end.
    pub ratio_ci_high: Option<f64>,
    /// Whether the two medians' intervals overlap: no measurable cost.
    pub tied: bool,
}

/// One row of `repetitions.csv`: one operation of one timed pass.
#[derive(Debug, Serialize)]
pub struct RepetitionRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    scale: String,
    driver: String,
    repetition: u32,
    position: u32,
    pass: &'static str,
    operation: &'static str,
    count: u64,
    total_ns: u64,
    batches: u64,
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
    repetitions: Vec<RepetitionRow>,
    latency: Vec<LatencyRow>,
    contract_cost: Vec<ContractCostRow>,
}

/// The headline of one measured cell, for the terminal summary.
#[derive(Clone, Debug)]
pub struct Headline {
    /// Algorithm name.
    pub algorithm: String,
    /// Workload name.
    pub workload: String,
    /// Median ns per operation of the whole passes, and its interval.
    pub summary: Summary,
    /// Whether its interval overlaps the workload's best.
    pub tied_with_best: bool,
}

/// Per-operation ns of each repetition of a whole pass (an algorithm's, or
/// the overhead probe's) over `measured_ops` operations.
pub fn whole_per_op(whole: &[Rep<u64>], measured_ops: u64) -> Vec<f64> {
    whole
        .iter()
        .map(|rep| rep.value as f64 / measured_ops.max(1) as f64)
        .collect()
}

impl Rows {
    /// Adds every algorithm's result on one workload: the rows of each, and
    /// the comparison of each with the workload's best. `seed` seeds the
    /// bootstrap intervals (mixed with each algorithm's place).
    pub fn add_workload(
        &mut self,
        key: &Key,
        facts: &TapeFacts,
        results: &[AlgorithmResult],
        floor: Floor,
        seed: u64,
    ) {
        let measured_ops = facts.inserts + facts.cancels + facts.reschedules;
        // The headline of every measured cell, then the best of them.
        let headlines: Vec<Option<(Vec<f64>, Summary)>> = results
            .iter()
            .map(|result| match &result.outcome {
                Outcome::Measured(m) => {
                    let values = whole_per_op(&m.whole, measured_ops);
                    stats::summarise(&values).map(|summary| (values, summary))
                }
                Outcome::Skipped(_) => None,
            })
            .collect();
        let best = headlines
            .iter()
            .flatten()
            .min_by(|a, b| a.1.median.total_cmp(&b.1.median))
            .cloned();
        for (index, (result, headline)) in results.iter().zip(&headlines).enumerate() {
            let key = Key {
                algorithm: result.algorithm.to_owned(),
                ..key.clone()
            };
            let comparison = match (headline, &best) {
                (Some((values, summary)), Some((best_values, best_summary))) => {
                    let ratio_seed = mix(seed ^ mix(index as u64 + 1));
                    Some(Comparison {
                        ratio: summary.median / best_summary.median,
                        interval: stats::ratio_interval(values, best_values, ratio_seed),
                        tied: summary.overlaps(best_summary),
                    })
                }
                _ => None,
            };
            self.add(&key, facts, result, floor, comparison);
        }
        self.add_contract_costs(key, results, &headlines, seed);
    }

    /// A `contract_cost.csv` row per native row measured beside its contract
    /// row.
    fn add_contract_costs(
        &mut self,
        key: &Key,
        results: &[AlgorithmResult],
        headlines: &[Option<(Vec<f64>, Summary)>],
        seed: u64,
    ) {
        let headline = |name: &str| {
            results
                .iter()
                .position(|r| r.algorithm == name)
                .and_then(|i| headlines[i].as_ref().map(|h| (i, h)))
        };
        for result in results {
            let Some(contract) = result.native_of else {
                continue;
            };
            let (Some((native_index, native)), Some((_, contracted))) =
                (headline(result.algorithm), headline(contract))
            else {
                continue;
            };
            let ratio_seed = mix(seed ^ mix(!(native_index as u64)));
            let interval = stats::ratio_interval(&contracted.0, &native.0, ratio_seed);
            self.contract_cost.push(ContractCostRow {
                schema_version: SCHEMA_VERSION,
                workload: key.workload.clone(),
                scale: key.scale.clone(),
                driver: key.driver.clone(),
                native: result.algorithm.to_owned(),
                contract: contract.to_owned(),
                native_ns: native.1.median,
                contract_ns: contracted.1.median,
                ratio: contracted.1.median / native.1.median,
                ratio_ci_low: interval.map(|i| i.0),
                ratio_ci_high: interval.map(|i| i.1),
                tied: contracted.1.overlaps(&native.1),
            });
        }
    }

    /// Adds one algorithm's result on one workload.
    fn add(
        &mut self,
        key: &Key,
        facts: &TapeFacts,
        result: &AlgorithmResult,
        floor: Floor,
        comparison: Option<Comparison>,
    ) {
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
            repetitions: m.map(|m| m.whole.len()),
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
        self.add_throughput(key, m, measured_ops, comparison);
        self.add_repetitions(key, m, measured_ops);
        self.add_latency(key, m, floor);
    }

    /// The `all` row (whole passes) and a row per operation kind (batched).
    fn add_throughput(
        &mut self,
        key: &Key,
        m: &Measurement,
        measured_ops: u64,
        comparison: Option<Comparison>,
    ) {
        let row = |operation, method, count: u64, values: &[f64], clock_reads_per_op| {
            let summary = stats::summarise(values).filter(|_| count > 0);
            ThroughputRow {
                schema_version: SCHEMA_VERSION,
                algorithm: key.algorithm.clone(),
                workload: key.workload.clone(),
                scale: key.scale.clone(),
                driver: key.driver.clone(),
                operation,
                method,
                count,
                repetitions: values.len(),
                median_ns: summary.map(|s| s.median),
                ci_low_ns: summary.map(|s| s.ci_low),
                ci_high_ns: summary.map(|s| s.ci_high),
                ci_level: summary.map(|s| s.ci_level),
                min_ns: summary.map(|s| s.min),
                max_ns: summary.map(|s| s.max),
                clock_reads_per_op,
                batch_over_whole: None,
                consistent: None,
                ratio_to_best: None,
                ratio_ci_low: None,
                ratio_ci_high: None,
                tied_with_best: None,
            }
        };
        let mut all = row(
            "all",
            "whole",
            measured_ops,
            &whole_per_op(&m.whole, measured_ops),
            2.0 / measured_ops.max(1) as f64,
        );
        if let Some(comparison) = comparison {
            all.ratio_to_best = Some(comparison.ratio);
            all.ratio_ci_low = comparison.interval.map(|i| i.0);
            all.ratio_ci_high = comparison.interval.map(|i| i.1);
            all.tied_with_best = Some(comparison.tied);
        }
        self.throughput.push(all);

        let batch_over_whole = batch_over_whole(&m.whole, &m.batched);
        let consistent = batch_over_whole.map(|ratio| (ratio - 1.0).abs() <= CONSISTENCY_TOLERANCE);
        let first = m.batched.first().map(|rep| rep.value).unwrap_or_default();
        let per_kind = |total: &dyn Fn(&Batches) -> (u64, u64)| -> Vec<f64> {
            m.batched
                .iter()
                .map(|rep| {
                    let (ns, count) = total(&rep.value);
                    ns as f64 / count.max(1) as f64
                })
                .collect()
        };
        // A row per kind, then `expire`: the advances' time over the timers
        // they fired.
        let advance = Kind::Advance as usize;
        let kinds = Kind::ALL
            .into_iter()
            .map(|kind| {
                let i = kind as usize;
                (kind.name(), Some(kind), first.count[i], first.batches[i])
            })
            .chain([("expire", None, first.fired, first.batches[advance])]);
        for (operation, kind, count, batches) in kinds {
            let total = |b: &Batches| kind.map_or_else(|| expire_total(b), |k| kind_total(b, k));
            let mut kind_row = row(
                operation,
                "batched",
                count,
                &per_kind(&total),
                batches as f64 / count.max(1) as f64,
            );
            kind_row.batch_over_whole = batch_over_whole;
            kind_row.consistent = consistent;
            self.throughput.push(kind_row);
        }
    }

    /// Every timed pass, raw.
    fn add_repetitions(&mut self, key: &Key, m: &Measurement, measured_ops: u64) {
        let row =
            |rep: u32, position: u32, pass, operation, count, total_ns, batches| RepetitionRow {
                schema_version: SCHEMA_VERSION,
                algorithm: key.algorithm.clone(),
                workload: key.workload.clone(),
                scale: key.scale.clone(),
                driver: key.driver.clone(),
                repetition: rep,
                position,
                pass,
                operation,
                count,
                total_ns,
                batches,
            };
        let mut rows = Vec::new();
        for rep in &m.whole {
            rows.push(row(
                rep.repetition,
                rep.position,
                "whole",
                "all",
                measured_ops,
                rep.value,
                0,
            ));
        }
        for rep in &m.batched {
            let b = &rep.value;
            for kind in Kind::ALL {
                let i = kind as usize;
                rows.push(row(
                    rep.repetition,
                    rep.position,
                    "batched",
                    kind.name(),
                    b.count[i],
                    b.total_ns[i],
                    b.batches[i],
                ));
            }
            let advance = Kind::Advance as usize;
            rows.push(row(
                rep.repetition,
                rep.position,
                "batched",
                "expire",
                b.fired,
                b.total_ns[advance],
                b.batches[advance],
            ));
        }
        rows.sort_by_key(|r| r.position);
        self.repetitions.extend(rows);
    }

    /// The latency pass's percentiles per operation kind.
    fn add_latency(&mut self, key: &Key, m: &Measurement, floor: Floor) {
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

    /// The headline of every measured cell, for the terminal summary.
    pub fn headlines(&self) -> impl Iterator<Item = Headline> + '_ {
        self.throughput
            .iter()
            .filter(|row| row.operation == "all")
            .filter_map(|row| {
                Some(Headline {
                    algorithm: row.algorithm.clone(),
                    workload: row.workload.clone(),
                    summary: Summary {
                        n: row.repetitions,
                        median: row.median_ns?,
                        ci_low: row.ci_low_ns?,
                        ci_high: row.ci_high_ns?,
                        ci_level: row.ci_level?,
                        min: row.min_ns?,
                        max: row.max_ns?,
                    },
                    tied_with_best: row.tied_with_best.unwrap_or(false),
                })
            })
    }

    /// The `contract_cost.csv` rows, for the terminal summary.
    pub fn contract_costs(&self) -> &[ContractCostRow] {
        &self.contract_cost
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

/// How a cell compares with its workload's best.
#[derive(Clone, Copy, Debug)]
struct Comparison {
    ratio: f64,
    interval: Option<(f64, f64)>,
    tied: bool,
}

/// (nanoseconds, operations) of one kind in a batched pass.
fn kind_total(b: &Batches, kind: Kind) -> (u64, u64) {
    (b.total_ns[kind as usize], b.count[kind as usize])
}

/// (nanoseconds of advances, timers they fired) in a batched pass.
fn expire_total(b: &Batches) -> (u64, u64) {
    (b.total_ns[Kind::Advance as usize], b.fired)
}

/// The batched passes' median total over the whole passes' median total: how
/// much the batch clock reads inflate the per-kind split.
pub fn batch_over_whole(whole: &[Rep<u64>], batched: &[Rep<Batches>]) -> Option<f64> {
    let whole: Vec<f64> = whole.iter().map(|rep| rep.value as f64).collect();
    let batched: Vec<f64> = batched
        .iter()
        .map(|rep| rep.value.total_ns.iter().sum::<u64>() as f64)
        .collect();
    let whole = stats::summarise(&whole)?.median;
    let batched = stats::summarise(&batched)?.median;
    (whole > 0.0).then(|| batched / whole)
}

/// The files of a run, in the order they are moved into place.
pub const RUN_FILES: [&str; 6] = [
    RUNS_FILE,
    THROUGHPUT_FILE,
    REPETITIONS_FILE,
    LATENCY_FILE,
    CONTRACT_COST_FILE,
    METADATA_FILE,
];

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
    write_staged(dir, |staged| {
        staged.push(stage_csv(dir, RUNS_FILE, &rows.runs)?);
        staged.push(stage_csv(dir, THROUGHPUT_FILE, &rows.throughput)?);
        staged.push(stage_csv(dir, REPETITIONS_FILE, &rows.repetitions)?);
        staged.push(stage_csv(dir, LATENCY_FILE, &rows.latency)?);
        // Written even when empty, so that no earlier run's rows stay behind.
        staged.push(stage_csv(dir, CONTRACT_COST_FILE, &rows.contract_cost)?);
        staged.push(stage_json(dir, METADATA_FILE, metadata)?);
        Ok(())
    })
}

/// Writes `timerbench counts`' rows and their metadata into `dir`, as
/// [`write_all`] writes a run's: both staged, then both renamed into place.
pub fn write_counts<T: Serialize>(
    dir: &Path,
    rows: &[T],
    metadata: &impl Serialize,
) -> Result<Vec<PathBuf>> {
    write_staged(dir, |staged| {
        staged.push(stage_csv(dir, COUNTS_FILE, rows)?);
        staged.push(stage_json(dir, COUNTS_METADATA_FILE, metadata)?);
        Ok(())
    })
}

/// Writes `comparison.csv` into `dir` (a temporary name renamed into place).
pub fn write_comparison<T: Serialize>(dir: &Path, rows: &[T]) -> Result<Vec<PathBuf>> {
    write_staged(dir, |staged| {
        staged.push(stage_csv(dir, COMPARISON_FILE, rows)?);
        Ok(())
    })
}

/// Runs `stage`, which writes files under temporary names and records each
/// (temporary, target) pair; if it fails, removes what it staged, otherwise
/// renames every file into place.
fn write_staged(
    dir: &Path,
    stage: impl FnOnce(&mut Vec<(PathBuf, PathBuf)>) -> Result<()>,
) -> Result<Vec<PathBuf>> {
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    if let Err(error) = stage(&mut staged) {
        for (temp, _) in &staged {
            fs::remove_file(temp).ok();
        }
        return Err(error.context(format!("nothing was written to {}", dir.display())));
    }
    let mut written = Vec::new();
    for (temp, target) in staged {
        fs::rename(&temp, &target)
            .with_context(|| format!("cannot move {} into place", target.display()))?;
        written.push(target);
    }
    Ok(written)
}

fn stage_json(dir: &Path, name: &str, value: &impl Serialize) -> Result<(PathBuf, PathBuf)> {
    let json = serde_json::to_string_pretty(value)? + "\n";
    stage_bytes(dir, name, json.as_bytes())
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
