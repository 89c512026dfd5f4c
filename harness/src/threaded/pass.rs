//! The threaded pass of `timerbench run --threaded`: which rows and
//! workloads it replays, the loop over its cells, and `threaded.csv`
//! written beside the run's other files.
//!
//! It runs after the single-threaded passes, so that their timings never
//! share the machine with a threaded run's threads. Its cells go workload by
//! workload (the tape generated once), then repetition, row, sharing and
//! producer count. Each row is first admitted on each workload by the
//! single-threaded passes' rule (`super::admit_row`), which also gives the
//! pending population its queues are presized for. A row refused there, and
//! a cell the sharing cannot hold (a queue that is not `Send` under
//! `locked`), is written as skipped, with the reason; a cell whose tally
//! finds a lost, doubled or early timer fails the run, and nothing is written.
//! The file is a set of its own, written after the run's set, whose swap has
//! already removed any earlier run's `threaded.csv`.

use std::path::Path;

use algorithms::Tick;
use indicatif::{ProgressBar, ProgressStyle};
use schema::{THREADED_FILE, THREADED_FILES, ThreadedRow};

use super::defaults::DEFAULT_WORKLOADS;
use super::row::{self, Key};
use super::sharing::Sharing;
use super::{Config, Refusal};
use crate::bench::Prepared;
use crate::replay::Driver;
use crate::select::{Selection, WorkloadSource};
use crate::swap::{self, FileSet, Swapped};

/// The threaded flags of `timerbench run`, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Producer thread counts, each at least 1.
    pub producers: Vec<usize>,
    /// The sharings.
    pub sharings: Vec<Sharing>,
    /// How many times faster than real time.
    pub speedup: u64,
    /// The last tick replayed.
    pub window: Tick,
    /// Repetitions of each cell.
    pub repeat: u32,
    /// Whether producers issue as fast as they can (the saturating variant).
    pub saturate: bool,
}

impl Settings {
    /// The settings as `metadata.json` records them, which the readers hold
    /// `threaded.csv` to.
    pub fn recorded(&self) -> schema::ThreadedSettings {
        schema::ThreadedSettings {
            producers: self
                .producers
                .iter()
                .map(|&p| u32::try_from(p).unwrap_or(u32::MAX))
                .collect(),
            sharings: self.sharings.iter().map(|s| s.name().to_owned()).collect(),
            speedup: self.speedup,
            window_ticks: self.window,
            repetitions: self.repeat,
            saturate: self.saturate,
        }
    }
}

/// What a threaded pass replays.
pub struct Plan<'a> {
    /// The rows, in registry order.
    pub algorithms: Vec<&'static str>,
    /// The workloads.
    pub workloads: Vec<&'a WorkloadSource>,
    /// Rows of the selection that the threaded mode does not run (sweep
    /// points), for a note.
    pub left_out: Vec<String>,
}

/// The plan over `selection`: the rows and workloads named, or (when
/// `algorithms_named` or `workloads_named` is false) the defaults among them.
/// The default rows are every row the threaded mode runs but a crate's
/// adapter where the crate's native row runs: the native row stands for the
/// crate, driven as its users drive it (`crate::sampled`), and an adapter
/// runs threaded when named.
pub fn plan<'a>(
    selection: &'a Selection,
    algorithms_named: bool,
    workloads_named: bool,
) -> Plan<'a> {
    let rows = super::rows();
    let (algorithms, left_out) = if algorithms_named {
        let algorithms = rows
            .iter()
            .copied()
            .filter(|row| selection.algorithms.iter().any(|name| name == row))
            .collect();
        let left_out = selection
            .algorithms
            .iter()
            .filter(|name| !rows.contains(&name.as_str()))
            .cloned()
            .collect();
        (algorithms, left_out)
    } else {
        let catalog = algorithms::registry::catalog();
        let rows = rows
            .into_iter()
            .filter(|row| !crate::sampled::is_sampled(&catalog, row))
            .collect();
        (rows, Vec::new())
    };
    let workloads = selection
        .workloads
        .iter()
        .filter(|source| workloads_named || DEFAULT_WORKLOADS.contains(&source.name()))
        .collect();
    Plan {
        algorithms,
        workloads,
        left_out,
    }
}

/// The number of cells `plan` makes under `settings`.
pub fn cells(plan: &Plan<'_>, settings: &Settings) -> u64 {
    (plan.algorithms.len()
        * plan.workloads.len()
        * settings.sharings.len()
        * settings.producers.len()) as u64
        * u64::from(settings.repeat)
}

/// Runs every cell of `plan` under `settings` on the tapes of `seed`, a
/// ticked wheel admitted only on a tape that ends by `max_ticks` (as the
/// single-threaded passes admit it), and returns the rows of
/// `threaded.csv`.
///
/// # Errors
///
/// The first cell whose tally found a violation of the contract, named.
pub fn measure(
    plan: &Plan<'_>,
    settings: &Settings,
    seed: u64,
    max_ticks: Tick,
    run_id: &str,
) -> Result<Vec<ThreadedRow>, String> {
    let progress = ProgressBar::new(cells(plan, settings));
    progress.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:20}] {pos}/{len} (eta {eta}) threaded: {wide_msg}",
        )
        .expect("constant template")
        .progress_chars("=> "),
    );
    let mut rows = Vec::new();
    for source in &plan.workloads {
        let (tape, scale) = source.tape(seed);
        progress.set_message(format!("{}: admitting the rows", tape.name));
        let prepared = Prepared::new(tape, Driver::Event).with_max_ticks(max_ticks);
        let tape = &prepared.tape;
        let admitted: Vec<Result<usize, String>> = plan
            .algorithms
            .iter()
            .map(|algorithm| {
                super::admit_row(algorithm, &prepared).expect("the plan holds registered rows only")
            })
            .collect();
        for repetition in 0..settings.repeat {
            for (&algorithm, admission) in plan.algorithms.iter().zip(&admitted) {
                for &sharing in &settings.sharings {
                    for &producers in &settings.producers {
                        let config = Config {
                            sharing,
                            producers,
                            speedup: settings.speedup,
                            window: Some(settings.window),
                            saturate: settings.saturate,
                            presize: *admission.as_ref().unwrap_or(&0),
                        };
                        progress.set_message(format!(
                            "{}: {algorithm} {sharing} P={producers} (repetition {}/{})",
                            tape.name,
                            repetition + 1,
                            settings.repeat
                        ));
                        let key = Key {
                            algorithm,
                            workload: &tape.name,
                            scale: &scale,
                            repetition,
                            run_id,
                        };
                        let result = match admission {
                            Ok(_) => super::run_row(algorithm, tape, &config)
                                .expect("the plan holds registered rows only"),
                            Err(reason) => {
                                rows.push(row::skipped(&key, &config, reason));
                                progress.inc(1);
                                continue;
                            }
                        };
                        rows.push(match result {
                            Ok(cell) => row::measured(&key, &config, &cell),
                            Err(Refusal::Unshareable(reason)) => {
                                row::skipped(&key, &config, &reason)
                            }
                            Err(Refusal::Violation(violation)) => {
                                progress.abandon();
                                return Err(format!(
                                    "{algorithm} broke the contract in the threaded mode on \
                                     workload {} ({sharing}, {producers} producers, seed {seed}): \
                                     {violation}; no results were written",
                                    tape.name
                                ));
                            }
                        });
                        progress.inc(1);
                    }
                }
            }
        }
    }
    progress.finish_and_clear();
    Ok(rows)
}

/// Writes `threaded.csv` into `dir`, whole (staged and renamed into place).
pub fn write(dir: &Path, rows: &[ThreadedRow], run_id: &str) -> anyhow::Result<Swapped> {
    let set = FileSet {
        dir,
        staging: swap::staging_name("threaded", run_id),
        files: &THREADED_FILES,
        stale: &[],
        writer: "timerbench run --threaded",
    };
    let stage = |staging: &Path| swap::write_csv(&staging.join(THREADED_FILE), rows);
    swap::write_set(&set, stage, |from, to| std::fs::rename(from, to))
}
