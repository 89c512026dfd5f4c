//! Test fixtures: small recorded runs written with the schema's row types,
//! so that the commands that read runs are tested through the same reader,
//! with the same checks, as a real run. Every file of a run is written
//! (metadata, runs, throughput, repetitions, latency), each measured cell
//! with a row in each, and each repetition with a batched row beside its
//! whole pass, which readers of whole passes must skip.

use std::path::Path;

use schema::{
    LATENCY_FILE, LatencyRow, METADATA_FILE, OPERATION_ALL, PASS_WHOLE, REPETITIONS_FILE,
    RUNS_FILE, RepetitionRow, RunRow, SCHEMA_VERSION, STATUS_OK, THROUGHPUT_FILE, ThroughputRow,
};

/// An algorithm as the fixture's metadata lists it.
pub(crate) struct Algorithm<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its family: `seed`, `modern`, `baseline` or `crate`.
    pub family: &'a str,
    /// Whether it is exact.
    pub exact: bool,
    /// For a native row, its contract row.
    pub native_of: Option<&'a str>,
}

/// A measured cell: ns per operation of each repetition's whole pass.
pub(crate) struct Cell<'a> {
    /// The algorithm.
    pub algorithm: &'a str,
    /// The workload.
    pub workload: &'a str,
    /// ns per operation of each repetition, in repetition order.
    pub ns: Vec<f64>,
}

/// A recorded run to write.
pub(crate) struct Run<'a> {
    /// The run's seed.
    pub seed: u64,
    /// The machine it claims to have run on.
    pub cpu: &'a str,
    /// The commit it claims to have been built from.
    pub commit: &'a str,
    /// Its run id (empty: a run made before run ids).
    pub run_id: &'a str,
    /// Operations in every workload's measured phase.
    pub measured_ops: u64,
    /// The metadata's algorithms; an algorithm with a cell but no entry is
    /// listed as an exact `seed` design.
    pub algorithms: Vec<Algorithm<'a>>,
    /// The measured cells.
    pub cells: Vec<Cell<'a>>,
}

impl<'a> Run<'a> {
    /// A run of seed 7 on one machine and commit, without a run id, with 100
    /// measured operations per workload, of `cells`.
    pub(crate) fn of(cells: Vec<Cell<'a>>) -> Self {
        Self {
            seed: 7,
            cpu: "one CPU",
            commit: "aaa",
            run_id: "",
            measured_ops: 100,
            algorithms: Vec::new(),
            cells,
        }
    }

    /// Writes the run's files into `dir`, which is created.
    pub(crate) fn write(&self, dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        let mut workloads: Vec<&str> = Vec::new();
        let mut algorithms: Vec<serde_json::Value> = Vec::new();
        let mut listed: Vec<&str> = Vec::new();
        for entry in &self.algorithms {
            listed.push(entry.name);
            algorithms.push(serde_json::json!({
                "name": entry.name, "family": entry.family, "exact": entry.exact,
                "native_of": entry.native_of,
            }));
        }
        for cell in &self.cells {
            if !workloads.contains(&cell.workload) {
                workloads.push(cell.workload);
            }
            if !listed.contains(&cell.algorithm) {
                listed.push(cell.algorithm);
                algorithms.push(
                    serde_json::json!({"name": cell.algorithm, "family": "seed", "exact": true}),
                );
            }
        }
        let repetitions = self.cells.iter().map(|c| c.ns.len()).max().unwrap_or(0);
        let mut metadata = serde_json::json!({
            "schema_version": SCHEMA_VERSION, "seed": self.seed, "scale": "small",
            "driver": "event", "generator_version": 2, "repetitions": repetitions,
            "workloads": workloads, "algorithms": algorithms, "replay_overhead": [],
            "statistics": {"median_ci": "m", "ratio_ci": "r", "bootstrap_resamples": 10,
                           "tie_rule": "t", "consistency_tolerance": 0.15},
            "clock_floor_ns": {"p50_ns": 20, "p99_ns": 30, "p999_ns": 40, "max_ns": 50},
            "git_commit": self.commit, "git_dirty": false, "rustc": "rustc 1.95.0",
            "build_profile": "release", "cpu_model": self.cpu, "cores": 2, "steal_seconds": 0.0,
        });
        if !self.run_id.is_empty() {
            metadata["run_id"] = self.run_id.into();
        }
        std::fs::write(dir.join(METADATA_FILE), metadata.to_string()).unwrap();
        let ops = self.measured_ops;
        let (mut runs, mut throughput, mut passes, mut latency) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for cell in &self.cells {
            let (algorithm, workload) = (cell.algorithm.to_owned(), cell.workload.to_owned());
            let run_id = self.run_id.to_owned();
            runs.push(RunRow {
                schema_version: SCHEMA_VERSION,
                algorithm: algorithm.clone(),
                workload: workload.clone(),
                status: STATUS_OK.to_owned(),
                measured_ops: ops,
                repetitions: Some(cell.ns.len() as u64),
                inserts: ops * 3 / 5,
                cancels: ops - ops * 3 / 5,
                max_pending: 50,
                run_id: run_id.clone(),
                ..RunRow::default()
            });
            let mut sorted = cell.ns.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted[sorted.len() / 2];
            let judged = sorted.len() >= schema::MIN_REPETITIONS;
            throughput.push(ThroughputRow {
                schema_version: SCHEMA_VERSION,
                algorithm: algorithm.clone(),
                workload: workload.clone(),
                operation: OPERATION_ALL.to_owned(),
                method: "whole".to_owned(),
                count: ops,
                repetitions: cell.ns.len() as u64,
                median_ns: Some(median),
                // A run writes an interval only from enough repetitions.
                ci_low_ns: sorted.first().copied().filter(|_| judged),
                ci_high_ns: sorted.last().copied().filter(|_| judged),
                run_id: run_id.clone(),
                ..ThroughputRow::default()
            });
            latency.push(LatencyRow {
                schema_version: SCHEMA_VERSION,
                algorithm: algorithm.clone(),
                workload: workload.clone(),
                operation: "insert".to_owned(),
                count: ops,
                run_id: run_id.clone(),
                ..LatencyRow::default()
            });
            for (repetition, ns) in cell.ns.iter().enumerate() {
                let pass = |pass: &str, operation: &str, total_ns: u64| RepetitionRow {
                    schema_version: SCHEMA_VERSION,
                    algorithm: algorithm.clone(),
                    workload: workload.clone(),
                    repetition: repetition as u32,
                    pass: pass.to_owned(),
                    operation: operation.to_owned(),
                    count: ops,
                    total_ns,
                    run_id: run_id.clone(),
                    ..RepetitionRow::default()
                };
                passes.push(pass(
                    PASS_WHOLE,
                    OPERATION_ALL,
                    (ns * ops as f64).round() as u64,
                ));
                passes.push(pass("batched", "insert", 1));
            }
        }
        write_csv(&dir.join(RUNS_FILE), &runs);
        write_csv(&dir.join(THROUGHPUT_FILE), &throughput);
        write_csv(&dir.join(REPETITIONS_FILE), &passes);
        write_csv(&dir.join(LATENCY_FILE), &latency);
    }
}

/// Writes `rows` as CSV with a header into `path`.
fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) {
    let mut writer = csv::Writer::from_path(path).unwrap();
    for row in rows {
        writer.serialize(row).unwrap();
    }
    writer.flush().unwrap();
}
