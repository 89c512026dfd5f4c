//! Results on disk: five tidy CSV files and a metadata file, written whole;
//! and the aggregation of a workload's repetitions into them (medians,
//! intervals, ratios to the best, ties: `crate::stats`).
//!
//! The rows, file names and schema version are the `schema` crate's, which
//! every reader shares (the layout is documented in `results/README.md`);
//! this module fills the rows. The run's id ([`Rows::new`]) is the last
//! column of every row and a field of the metadata, so that a reader can
//! refuse files of different runs.
//!
//! Writing: before anything is measured, [`prepare_output`] checks the output
//! directory (writable, no directory where a file goes, room on its
//! filesystem for [`estimated_run_bytes`]) and removes what interrupted runs
//! left there. At the end, [`write_all`] writes every file into a staging
//! directory inside the output directory and swaps the set in by renames,
//! restoring the previous set if any rename fails ([`crate::swap`]): a failed
//! run leaves the previous results unchanged and nothing behind. A new run
//! removes a stale `comparison.csv` in the same swap. `timerbench counts` and
//! `timerbench compare --save` write their files the same way.

use std::fs;
use std::path::Path;

use algorithms::Counter;
use anyhow::{Context, Result};
use serde::Serialize;

use schema::{
    COMPARISON_FILE, CONTRACT_COST_FILE, COUNTS_FILE, COUNTS_FILES, COUNTS_METADATA_FILE,
    ComparisonRow, ContractCostRow, CountRow, LATENCY_FILE, LatencyRow, METADATA_FILE,
    PREDICTIONS_FILE, PredictionRow, REPETITIONS_FILE, RUN_FILES, RUN_STALE_FILES, RUNS_FILE,
    RepetitionRow, RunRow, SCHEMA_VERSION, STATUS_OK, STATUS_SKIPPED, THROUGHPUT_FILE,
    ThroughputRow,
};

use crate::bench::{AlgorithmResult, Measurement, Outcome, PERCENTILES, Rep, quantile};
use crate::passes::{Batches, Kind};
use crate::replay::mix;
use crate::stats::{self, Summary};
use crate::swap::{self, FileSet, Swapped};
use crate::theory::WorkloadPredictions;

/// How far the batched pass's total may stray from the whole pass's before its
/// per-kind split is flagged as not adding up (`consistent = false`).
pub const CONSISTENCY_TOLERANCE: f64 = 0.15;

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
pub struct Rows {
    run_id: String,
    runs: Vec<RunRow>,
    throughput: Vec<ThroughputRow>,
    repetitions: Vec<RepetitionRow>,
    latency: Vec<LatencyRow>,
    contract_cost: Vec<ContractCostRow>,
    predictions: Vec<PredictionRow>,
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
    /// The (algorithm, workload) cells with a `runs.csv` row so far,
    /// measured or skipped: the metadata's `cells`.
    pub fn cells(&self) -> usize {
        self.runs.len()
    }

    /// No rows yet, of the run `run_id` (`metadata::run_id`), which every
    /// row carries: a reader refuses files whose rows name different runs.
    pub fn new(run_id: &str) -> Self {
        Self {
            run_id: run_id.to_owned(),
            runs: Vec::new(),
            throughput: Vec::new(),
            repetitions: Vec::new(),
            latency: Vec::new(),
            contract_cost: Vec::new(),
            predictions: Vec::new(),
        }
    }

    /// The run the rows belong to.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Adds the predictions for `workload` ([`crate::theory::for_workload`])
    /// of the rows `measured` holds.
    pub fn add_predictions(
        &mut self,
        workload: &str,
        predicted: WorkloadPredictions,
        measured: impl Fn(&str) -> bool,
    ) {
        let basis = predicted.basis;
        for (algorithm, counter, value) in predicted.rows {
            if !measured(algorithm) {
                continue;
            }
            self.predictions.push(PredictionRow {
                schema_version: SCHEMA_VERSION,
                workload: workload.to_owned(),
                algorithm: algorithm.to_owned(),
                counter: counter.column().to_owned(),
                predicted: value,
                basis: basis.clone(),
                run_id: self.run_id.clone(),
            });
        }
    }

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
        // The headline of every measured cell, then the best of them: the
        // best design, for a sweep's variant is a point of a design, not a
        // contender of its own.
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
            .zip(results)
            .filter(|(_, result)| !result.variant)
            .filter_map(|(headline, _)| headline.as_ref())
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
                        tied: summary.ties_with(best_summary),
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
                tied: contracted.1.ties_with(&native.1),
                run_id: self.run_id.clone(),
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
        // An algorithm that counts no work leaves the counter columns empty,
        // and one that cannot count a counter leaves its column empty:
        // "not counted" must not read as "none".
        let counted = |counter: Counter| {
            m.filter(|m| result.counts_work && !m.uncounted.contains(&counter))
                .map(|m| m.counters.get(counter))
        };
        self.runs.push(RunRow {
            schema_version: SCHEMA_VERSION,
            algorithm: key.algorithm.clone(),
            workload: key.workload.clone(),
            scale: key.scale.clone(),
            driver: key.driver.clone(),
            params: result.params.clone(),
            status: if m.is_some() {
                STATUS_OK
            } else {
                STATUS_SKIPPED
            }
            .to_owned(),
            skip_reason,
            measured_ops,
            repetitions: m.map(|m| m.whole.len() as u64),
            inserts: facts.inserts,
            cancels: facts.cancels,
            reschedules: facts.reschedules,
            cancel_hits: m.map(|m| m.cancel_hits),
            reschedule_hits: m.map(|m| m.reschedule_hits),
            fired: m.map(|m| m.fired),
            max_pending: m.map_or(facts.max_pending, |m| m.max_pending as u64),
            wakeups: m.map(|m| m.wakeups),
            empty_wakeups: m.map(|m| m.empty_wakeups),
            slot_visits: counted(Counter::SlotVisits),
            empty_slot_visits: counted(Counter::EmptySlotVisits),
            entries_examined_not_due: counted(Counter::EntriesExaminedNotDue),
            cascades: counted(Counter::Cascades),
            bucket_expirations: counted(Counter::BucketExpirations),
            insert_scan_steps: counted(Counter::InsertScanSteps),
            reschedule_scan_steps: counted(Counter::RescheduleScanSteps),
            batched_repetitions: m.map(|m| m.batched.len() as u64),
            peak_bytes: m.map(|m| m.peak_bytes),
            bytes_per_pending: m.map(|m| m.peak_bytes as f64 / m.max_pending.max(1) as f64),
            allocs_measured: m.map(|m| m.allocs_measured),
            max_lateness_ticks: m.map(|m| m.max_lateness),
            checksum: m.map_or_else(String::new, |m| m.checksum.to_hex()),
            wall_ms: m.map(|m| m.wall_ms),
            retained_bytes: m.map(|m| m.retained.end_bytes),
            retained_pending: m.map(|m| m.retained.end_pending),
            quiet_bytes: m.map(|m| m.retained.quiet_bytes),
            quiet_pending: m.map(|m| m.retained.quiet_pending),
            run_id: self.run_id.clone(),
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
        let row =
            |operation: &str, method: &str, count: u64, values: &[f64], clock_reads_per_op| {
                let summary = stats::summarise(values).filter(|_| count > 0);
                ThroughputRow {
                    schema_version: SCHEMA_VERSION,
                    algorithm: key.algorithm.clone(),
                    workload: key.workload.clone(),
                    scale: key.scale.clone(),
                    driver: key.driver.clone(),
                    operation: operation.to_owned(),
                    method: method.to_owned(),
                    count,
                    repetitions: values.len() as u64,
                    median_ns: summary.map(|s| s.median),
                    // Below the minimum of repetitions the figure stands
                    // alone: no interval, no coverage.
                    ci_low_ns: summary.and_then(|s| s.interval()).map(|i| i.0),
                    ci_high_ns: summary.and_then(|s| s.interval()).map(|i| i.1),
                    ci_level: summary.filter(Summary::judged).map(|s| s.ci_level),
                    min_ns: summary.map(|s| s.min),
                    max_ns: summary.map(|s| s.max),
                    clock_reads_per_op,
                    batch_over_whole: None,
                    consistent: None,
                    ratio_to_best: None,
                    ratio_ci_low: None,
                    ratio_ci_high: None,
                    tied_with_best: None,
                    run_id: self.run_id.clone(),
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
            all.tied_with_best = comparison.tied;
        }
        self.throughput.push(all);

        // A contender without batched passes (a sweep point) has no split.
        if m.batched.is_empty() {
            return;
        }
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
            |rep: u32, position: u32, pass: &str, operation: &str, count, total_ns, batches| {
                RepetitionRow {
                    schema_version: SCHEMA_VERSION,
                    algorithm: key.algorithm.clone(),
                    workload: key.workload.clone(),
                    scale: key.scale.clone(),
                    driver: key.driver.clone(),
                    repetition: rep,
                    position,
                    pass: pass.to_owned(),
                    operation: operation.to_owned(),
                    count,
                    total_ns,
                    batches,
                    run_id: self.run_id.clone(),
                }
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
        let latency_row = |operation: &str, h: &hdrhistogram::Histogram<u64>| LatencyRow {
            schema_version: SCHEMA_VERSION,
            algorithm: key.algorithm.clone(),
            workload: key.workload.clone(),
            scale: key.scale.clone(),
            driver: key.driver.clone(),
            operation: operation.to_owned(),
            count: h.len(),
            mean_ns: if h.is_empty() { 0.0 } else { h.mean() },
            p50_ns: quantile(h, PERCENTILES[0].1),
            p90_ns: quantile(h, PERCENTILES[1].1),
            p99_ns: quantile(h, PERCENTILES[2].1),
            p999_ns: quantile(h, PERCENTILES[3].1),
            max_ns: h.max(),
            floor_p50_ns: floor.p50_ns,
            floor_p99_ns: floor.p99_ns,
            run_id: self.run_id.clone(),
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
                    // A cell below the minimum of repetitions has no
                    // interval; its summary's is the median alone, which
                    // `Summary::interval` does not give out.
                    summary: Summary {
                        n: row.repetitions as usize,
                        median: row.median_ns?,
                        ci_low: row.ci_low_ns.or(row.median_ns)?,
                        ci_high: row.ci_high_ns.or(row.median_ns)?,
                        ci_level: row.ci_level.unwrap_or(0.0),
                        min: row.min_ns?,
                        max: row.max_ns?,
                    },
                    tied_with_best: row.tie().unwrap_or(false),
                })
            })
    }

    /// The `contract_cost.csv` rows, for the terminal summary.
    pub fn contract_costs(&self) -> &[ContractCostRow] {
        &self.contract_cost
    }

    /// The `runs.csv` rows, for the summary table:
    /// (algorithm, workload, status, empty slot visits).
    pub fn run_summaries(&self) -> impl Iterator<Item = (&str, &str, &str, Option<u64>)> {
        self.runs.iter().map(|row| {
            (
                row.algorithm.as_str(),
                row.workload.as_str(),
                row.status.as_str(),
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
    /// `None` when either side has too few repetitions to tell.
    tied: Option<bool>,
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

/// A generous bound on the bytes of one CSV row with its run id: the longest
/// row of the committed reference run is under 400 bytes (a `runs.csv` row
/// with a skip reason), and most are under 150 (a test holds the bound to
/// that run).
pub const BYTES_PER_ROW_BOUND: u64 = 512;

/// A bound on the bytes of what does not grow with the cells: the CSV headers
/// and the metadata (the reference run's `metadata.json`, with every
/// algorithm and built-in workload, is 11 KB).
pub const FIXED_BYTES_BOUND: u64 = 64 * 1024;

/// The most counters [`crate::theory`] predicts for one row on one workload.
const MAX_PREDICTIONS_PER_CELL: u64 = 3;

/// The rows one measured (algorithm, workload) cell adds to the run files
/// with `repetitions` timed repetitions (see [`Rows::add_workload`]).
pub fn rows_per_cell(repetitions: u64) -> u64 {
    let kinds = Kind::ALL.len() as u64;
    let runs = 1;
    // `all`, a row per kind, and `expire`.
    let throughput = kinds + 2;
    // Per repetition: the whole pass's `all`; the batched pass's kinds and `expire`.
    let per_repetition = 1 + kinds + 1;
    // A row per kind, and `expire`.
    let latency = kinds + 1;
    // At most one: a native row against its contract row.
    let contract_cost = 1;
    // At most a prediction per counter a design has one for.
    let predictions = MAX_PREDICTIONS_PER_CELL;
    (runs + throughput + latency + contract_cost + predictions)
        .saturating_add(repetitions.saturating_mul(per_repetition))
}

/// A generous estimate of the bytes a run of `cells` (algorithm, workload)
/// cells with `repetitions` repetitions writes: every cell measured, every
/// row [`BYTES_PER_ROW_BOUND`] long, plus [`FIXED_BYTES_BOUND`].
pub fn estimated_run_bytes(cells: u64, repetitions: u64) -> u64 {
    cells
        .saturating_mul(rows_per_cell(repetitions))
        .saturating_mul(BYTES_PER_ROW_BOUND)
        .saturating_add(FIXED_BYTES_BOUND)
}

/// The same for `timerbench counts`: per cell, an `all` row and a row per
/// operation kind.
pub fn estimated_counts_bytes(cells: u64) -> u64 {
    let rows_per_cell = 1 + Kind::ALL.len() as u64;
    cells
        .saturating_mul(rows_per_cell)
        .saturating_mul(BYTES_PER_ROW_BOUND)
        .saturating_add(FIXED_BYTES_BOUND)
}

/// Checks that `dir` exists or can be created, and that a file can be written
/// in it, before any measurement starts. Creates the directory.
pub fn prepare_dir(dir: &Path) -> Result<()> {
    if fs::metadata(dir).is_ok_and(|metadata| !metadata.is_dir()) {
        anyhow::bail!(
            "{} is a file, not a directory; name a directory (it is made when absent)",
            dir.display()
        );
    }
    fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the output directory {}", dir.display()))?;
    let probe = dir.join(format!(".timerbench-probe-{}", std::process::id()));
    fs::write(&probe, b"").map_err(|error| {
        anyhow::anyhow!(
            "the output directory {} is not writable: {}",
            dir.display(),
            crate::dir_lock::describe(&error)
        )
    })?;
    fs::remove_file(&probe).ok();
    Ok(())
}

/// What a command that writes `targets` into `dir` needs, for `writer`
/// ("a run") to write them there.
pub struct Destination<'a> {
    /// The output directory.
    pub dir: &'a Path,
    /// Every name the command writes or removes there.
    pub targets: &'a [&'a str],
    /// Who writes, for messages.
    pub writer: &'a str,
    /// The bytes it will write, at most ([`estimated_run_bytes`]).
    pub estimate: u64,
    /// How the estimate was made, for the message that refuses it.
    pub how: String,
}

/// Everything checked of an output directory before a command measures
/// anything, so that minutes of work cannot fail at the end for a reason
/// known at the start: the directory is made and writable ([`prepare_dir`]);
/// every target is absent or a file ([`swap::check_targets`]); what
/// timerbench processes that are gone left there is removed
/// ([`swap::remove_abandoned`]; the sentences returned say what, for the
/// terminal); and its filesystem has room for the estimate
/// ([`swap::check_free_space`]). It takes the directory's lock once the
/// targets are checked ([`crate::dir_lock`]), so that a second writer is
/// refused before it measures anything; [`swap::write_set`] lets it go.
pub fn prepare_output(to: &Destination<'_>) -> Result<Vec<String>> {
    prepare_dir(to.dir)?;
    swap::check_targets(to.dir, to.targets, to.writer)?;
    crate::dir_lock::lock(to.dir, to.writer)?;
    let notes = swap::remove_abandoned(to.dir, to.targets);
    if let Err(error) = swap::check_free_space(to.dir, to.estimate, &to.how) {
        crate::dir_lock::release(to.dir);
        return Err(error);
    }
    Ok(notes)
}

/// Writes the rows and `metadata` into `dir` whole, replacing the previous
/// run's files and removing a stale `comparison.csv` (see [`swap`]).
pub fn write_all(dir: &Path, rows: &Rows, metadata: &impl Serialize) -> Result<Swapped> {
    write_all_with(dir, rows, metadata, |from, to| fs::rename(from, to))
}

/// [`write_all`] with the rename given, for tests.
fn write_all_with(
    dir: &Path,
    rows: &Rows,
    metadata: &impl Serialize,
    rename: impl FnMut(&Path, &Path) -> std::io::Result<()>,
) -> Result<Swapped> {
    let set = FileSet {
        dir,
        staging: swap::staging_name("run", &rows.run_id),
        files: &RUN_FILES,
        stale: &RUN_STALE_FILES,
        writer: "a run",
    };
    let stage = |staging: &Path| -> Result<()> {
        swap::write_csv(&staging.join(RUNS_FILE), &rows.runs)?;
        swap::write_csv(&staging.join(THROUGHPUT_FILE), &rows.throughput)?;
        swap::write_csv(&staging.join(REPETITIONS_FILE), &rows.repetitions)?;
        swap::write_csv(&staging.join(LATENCY_FILE), &rows.latency)?;
        // Written even when empty, so that no earlier run's rows stay behind.
        swap::write_csv(&staging.join(CONTRACT_COST_FILE), &rows.contract_cost)?;
        swap::write_csv(&staging.join(PREDICTIONS_FILE), &rows.predictions)?;
        write_json(&staging.join(METADATA_FILE), metadata)
    };
    swap::write_set(&set, stage, rename)
}

/// Writes `timerbench counts`' rows and their metadata into `dir`, whole, as
/// [`write_all`] writes a run's.
pub fn write_counts(dir: &Path, rows: &[CountRow], metadata: &impl Serialize) -> Result<Swapped> {
    let set = FileSet {
        dir,
        staging: swap::staging_name("counts", &std::process::id().to_string()),
        files: &COUNTS_FILES,
        stale: &[],
        writer: "timerbench counts",
    };
    let stage = |staging: &Path| -> Result<()> {
        swap::write_csv(&staging.join(COUNTS_FILE), rows)?;
        write_json(&staging.join(COUNTS_METADATA_FILE), metadata)
    };
    swap::write_set(&set, stage, |from, to| fs::rename(from, to))
}

/// Writes `comparison.csv` into `dir`, staged and renamed into place as
/// [`write_all`] writes a run's files.
pub fn write_comparison(dir: &Path, rows: &[ComparisonRow]) -> Result<Swapped> {
    let set = FileSet {
        dir,
        staging: swap::staging_name("compare", &std::process::id().to_string()),
        files: &[COMPARISON_FILE],
        stale: &[],
        writer: "timerbench compare --save",
    };
    let stage = |staging: &Path| swap::write_csv(&staging.join(COMPARISON_FILE), rows);
    swap::write_set(&set, stage, |from, to| fs::rename(from, to))
}

/// Writes `value` as pretty JSON, with a final newline, to the new file `path`.
fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let json = serde_json::to_string_pretty(value)? + "\n";
    swap::write_synced(path, json.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory removed when the test ends.
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("timerbench-output-{}-{name}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Self(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_file_where_a_directory_goes_is_named_as_such() {
        let file =
            std::env::temp_dir().join(format!("timerbench-not-a-dir-{}", std::process::id()));
        fs::write(&file, "notes").unwrap();
        let error = prepare_dir(&file).unwrap_err().to_string();
        assert!(error.contains("is a file, not a directory"), "{error}");
        assert_eq!(fs::read_to_string(&file).unwrap(), "notes");
        fs::remove_file(&file).unwrap();
    }

    /// Every entry of `dir` (hidden ones too, but the writers' lock, which
    /// holds no result) and its bytes; a directory has none.
    fn entries(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut entries: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
            .unwrap()
            .filter(|entry| entry.as_ref().unwrap().file_name() != crate::dir_lock::LOCK_FILE)
            .map(|entry| {
                let entry = entry.unwrap();
                let name = entry.file_name().to_string_lossy().into_owned();
                (name, fs::read(entry.path()).unwrap_or_default())
            })
            .collect();
        entries.sort();
        entries
    }

    /// Issue 16: a kill between two renames, simulated by making the second
    /// rename fail, cannot leave a mix: the previous run's files come back
    /// byte for byte, the file it lacked is not there, the stale comparison
    /// and the files of no run stay, and no staging directory or temporary
    /// file is left.
    #[test]
    fn a_failed_second_rename_leaves_the_previous_run_exactly() {
        let scratch = Scratch::new("second-rename");
        let dir = &scratch.0;
        // The previous run: every file but contract_cost.csv (a run made
        // before it existed).
        for name in RUN_FILES.iter().filter(|&&n| n != CONTRACT_COST_FILE) {
            fs::write(dir.join(name), format!("previous {name}\n")).unwrap();
        }
        for name in [COMPARISON_FILE, "README.md", COUNTS_FILE] {
            fs::write(dir.join(name), format!("kept {name}\n")).unwrap();
        }
        let before = entries(dir);
        let mut renames = Vec::new();
        let rows = Rows::new("20261125T130501Z-1");
        let error = write_all_with(
            dir,
            &rows,
            &serde_json::json!({"run_id": "new"}),
            |from, to| {
                renames.push(to.to_path_buf());
                if renames.len() == 2 {
                    return Err(std::io::Error::other("simulated kill"));
                }
                fs::rename(from, to)
            },
        )
        .unwrap_err();
        let message = format!("{error:#}");
        for fragment in [THROUGHPUT_FILE, "simulated kill", "are unchanged"] {
            assert!(message.contains(fragment), "{fragment}: {message}");
        }
        assert_eq!(entries(dir), before);
        assert_eq!(renames[0], dir.join(RUNS_FILE));
        assert_eq!(
            renames.len(),
            3,
            "runs.csv's rename was undone: {renames:?}"
        );
    }

    #[test]
    fn a_run_replaces_every_file_and_removes_a_stale_comparison() {
        let scratch = Scratch::new("whole");
        let dir = &scratch.0;
        for name in [RUNS_FILE, COMPARISON_FILE, "README.md"] {
            fs::write(dir.join(name), "previous\n").unwrap();
        }
        let rows = Rows::new("20261125T130501Z-1");
        let swapped = write_all(dir, &rows, &serde_json::json!({"run_id": "x"})).unwrap();
        assert_eq!(swapped.written.len(), RUN_FILES.len());
        assert_eq!(swapped.removed, [dir.join(COMPARISON_FILE)]);
        let names: Vec<String> = entries(dir).into_iter().map(|(name, _)| name).collect();
        let mut expected: Vec<&str> = RUN_FILES.to_vec();
        expected.push("README.md");
        expected.sort_unstable();
        assert_eq!(names, expected);
        assert_eq!(fs::read(dir.join(RUNS_FILE)).unwrap(), b"", "no rows");
    }

    #[test]
    fn rows_per_cell_follow_the_files() {
        // runs 1, throughput 6, latency 5, contract cost 1, predictions 3,
        // and 6 per repetition.
        assert_eq!(rows_per_cell(0), 16);
        assert_eq!(rows_per_cell(6), 52);
        assert_eq!(estimated_run_bytes(0, 6), FIXED_BYTES_BOUND);
        assert_eq!(estimated_run_bytes(2, 6), 2 * 52 * 512 + FIXED_BYTES_BOUND);
        assert_eq!(estimated_run_bytes(u64::MAX, 6), u64::MAX, "saturates");
        assert_eq!(estimated_counts_bytes(3), 3 * 5 * 512 + FIXED_BYTES_BOUND);
    }

    /// The estimate holds for the committed reference run: every row within
    /// the bound with room for a run id, and the whole above what it wrote.
    #[test]
    fn the_estimate_covers_the_reference_run() {
        let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results");
        // `20261125T130501Z-4194304` and its comma.
        let run_id_bytes = 25;
        let mut total = 0;
        for name in RUN_FILES {
            let text = fs::read_to_string(results.join(name)).unwrap();
            total += text.len() as u64;
            if name.ends_with(".csv") {
                let longest = text.lines().map(str::len).max().unwrap_or(0) as u64;
                assert!(
                    longest + run_id_bytes < BYTES_PER_ROW_BOUND,
                    "{name}: a row of {longest} bytes"
                );
            }
        }
        let metadata = fs::read_to_string(results.join(METADATA_FILE)).unwrap();
        assert!((metadata.len() as u64) < FIXED_BYTES_BOUND / 2);
        let runs = fs::read_to_string(results.join(RUNS_FILE)).unwrap();
        let cells = runs.lines().count() as u64 - 1;
        assert!(estimated_run_bytes(cells, 6) > 2 * total);
    }
}
