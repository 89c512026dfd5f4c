//! `timerbench run`: the run loop. Everything the user named, and everything
//! about the output directory that could fail the run at its end, is checked
//! before anything is measured; then, workload by workload, the tape is
//! generated (or read), the reference model replays it, every selected
//! algorithm is verified against the model and timed in a seeded interleaved
//! order (`bench::run_workload`), and the rows are accumulated
//! (`output::Rows`). Only when every workload is done are the files written,
//! whole (`output::write_all`); then the terminal summary is printed.
//!
//! A failed check (a name, a spec, the output directory, the tick driver's
//! reach, the memory estimate) is bad input and writes nothing; an algorithm
//! that disagrees with the reference model fails the run and writes nothing.
//! [`RunConfig`] is the command line's `run` flags, resolved into plain
//! values (`cli::RunArgs::config`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::bench::{self, Outcome, Prepared, Step};
use crate::failure::Failure;
use crate::memory;
use crate::metadata::{self, ReplayOverhead};
use crate::output::{self, Floor, Key, Rows, TapeFacts};
use crate::replay::{self, Driver};
use crate::select::{self, Choice, WorkloadSource};
use crate::wrap::{TERMINAL_WIDTH, wrap_words};
use crate::{clock, real_traces, sampled, stats, summary, theory, threaded};

/// Default repetitions: the suite's one minimum ([`schema::MIN_REPETITIONS`]),
/// the fewest for which the distribution-free interval of a median (min to
/// max) covers at least 95% (1 - 2/64 = 96.9%).
pub const DEFAULT_REPEAT: u32 = schema::MIN_REPETITIONS as u32;

/// Default batched passes of a cell: one, in its last block
/// (`plan::has_batched`). The per-kind split it gives is a secondary
/// figure (the headline, every rank, tie and verdict use the whole passes),
/// shown as a median without an interval at any count below the minimum of
/// repetitions, as the latency pass's percentiles are from their one pass. A
/// batched pass costs as much as a whole one or more, so each one more adds
/// about a tenth to a run; a pass disturbed by the host is caught by the
/// split's check against the whole passes' median (`batch_over_whole`,
/// flagged `consistent = false` beyond 15%), and `--batched-repeat` gives a
/// median of more.
pub const DEFAULT_BATCHED_REPEAT: u32 = 1;

/// Where a run writes when not told (`--out`): a new directory per run under
/// this one, git-ignored, so the committed reference run in `results/` is
/// replaced only on purpose (`make results`, or `--out results`).
pub const DEFAULT_RUNS_DIR: &str = "runs";

/// The progress bar's line: the time, a short bar, the steps, the estimate,
/// then the message cut to what is left of the terminal's width.
const PROGRESS_TEMPLATE: &str = "{elapsed_precise} [{bar:20}] {pos}/{len} (eta {eta}) {wide_msg}";

/// The directory a run writes into: the one asked for, or a new one named
/// after the run under [`DEFAULT_RUNS_DIR`].
pub fn output_dir(asked: Option<&Path>, run_id: &str) -> PathBuf {
    match asked {
        Some(dir) => dir.to_path_buf(),
        None => Path::new(DEFAULT_RUNS_DIR).join(run_id),
    }
}

/// What `timerbench run` was asked to do.
pub struct RunConfig {
    /// The rows and workloads, not yet checked.
    pub choice: Choice,
    /// How the clock is advanced between operations.
    pub driver: Driver,
    /// The directory for the result files; `None` for a new
    /// [`DEFAULT_RUNS_DIR`]`/<run id>/`.
    pub out: Option<PathBuf>,
    /// Timed repetitions of the whole pass.
    pub repeat: u32,
    /// Batched passes of each cell, at most `repeat`.
    pub batched_repeat: u32,
    /// The furthest tick a ticked wheel, or the tick driver, may run to.
    pub max_ticks: u64,
    /// The most memory, in GiB, a workload may be estimated to need.
    pub max_memory_gib: u64,
    /// Seconds an untimed verification pass may run.
    pub budget: f64,
    /// Whether to time the cells whose measured phase does more than
    /// [`bench::OPT_IN_WORK`] steps of work, which are verified and
    /// skipped by default (`--heaviest`).
    pub heaviest: bool,
    /// The threaded mode's settings, when asked for (`--threaded`).
    pub threaded: Option<threaded::pass::Settings>,
}

/// Runs `config`: checks, measures every workload, writes the files, prints
/// the summary.
pub fn run(config: &RunConfig) -> Result<(), Failure> {
    let scale = config.choice.scale;
    let driver = config.driver;
    if cfg!(debug_assertions) {
        eprintln!(
            "timerbench: warning: this is a debug build; measure with `cargo run --release` or `make results`"
        );
    }
    // Everything the user named is checked before anything is measured or
    // written, and so is everything about the output directory that could
    // fail the run at its end.
    let selection = config.choice.resolve(true).map_err(Failure::Input)?;
    // The sampled rows (sweep points, crate adapters) came with everything
    // else (neither --algorithms nor --param): they run on the sample
    // workloads only.
    let sampled_by_default = config.choice.algorithms.is_empty() && config.choice.params.is_empty();
    if driver == Driver::Tick {
        select::check_tick_driver(&selection, config.max_ticks).map_err(Failure::Input)?;
    }
    select::check_memory(&selection, config.max_memory_gib).map_err(Failure::Input)?;
    select::check_measured(&selection, config.choice.seed).map_err(Failure::Input)?;
    let cells = (selection.algorithms.len() * selection.workloads.len()) as u64;
    let repeat = u64::from(config.repeat);
    let targets = [&schema::RUN_FILES[..], &schema::RUN_STALE_FILES[..]].concat();
    // The run's id names the default output directory, so the run starts
    // here, before that directory is checked.
    let start = metadata::Start::now();
    let out = output_dir(config.out.as_deref(), &start.run_id);
    if config.out.is_none() {
        eprintln!(
            "timerbench: writing into {} (--out DIR to choose; `make results` writes results/)",
            out.display()
        );
    }
    let notes = output::prepare_output(&output::Destination {
        dir: &out,
        targets: &targets,
        writer: "a run",
        estimate: output::estimated_run_bytes(cells, repeat),
        how: format!(
            "{cells} cells of {} rows, {} bytes a row at most",
            output::rows_per_cell(repeat),
            output::BYTES_PER_ROW_BOUND
        ),
    })
    .map_err(Failure::Input)?;
    for note in notes {
        eprintln!("timerbench: {note}");
    }

    let floor_histogram = clock::floor();
    let floor = Floor {
        p50_ns: floor_histogram.value_at_quantile(0.5),
        p99_ns: floor_histogram.value_at_quantile(0.99),
        p999_ns: floor_histogram.value_at_quantile(0.999),
        max_ns: floor_histogram.max(),
    };
    let memory = memory::probe();

    if config.repeat < DEFAULT_REPEAT {
        let warning = format!(
            "with {} repetitions (fewer than {}) no interval of a median reaches 95%: the files \
             give each cell's median with no interval, ratio interval or tie, and nothing is \
             called faster or tied",
            config.repeat,
            schema::MIN_REPETITIONS
        );
        for line in wrap_words("timerbench: warning: ", &warning, TERMINAL_WIDTH) {
            eprintln!("{line}");
        }
    }
    // Per workload: each algorithm's untimed checks and 2 timed passes per
    // repetition, and the overhead probe's one pass per repetition.
    let steps_per_workload = selection.algorithms.len() as u64 * (1 + 2 * repeat) + repeat;
    let progress = ProgressBar::new(selection.workloads.len() as u64 * steps_per_workload);
    progress.set_style(
        // `wide_msg` takes what the terminal has left and cuts the message to
        // it, so the bar's line never wraps however long the names are.
        ProgressStyle::with_template(PROGRESS_TEMPLATE)
            .expect("constant template")
            .progress_chars("=> "),
    );
    let mut rows = Rows::new(&start.run_id);
    let mut overheads = Vec::new();
    let mut real_shapes = real_traces::Shapes::wanted(&selection);
    for (index, source) in selection.workloads.iter().enumerate() {
        // The message names the workload by its place in the run, so that a
        // reader sees how many are left as well as the passes.
        let place = format!("{}/{}", index + 1, selection.workloads.len());
        progress.set_message(format!("[{place}] {}: generating", source.name()));
        let (tape, scale_name) = source.tape(config.choice.seed);
        let workload = tape.name.clone();
        // `select::check_measured` counted this before anything was
        // measured, but took a large spec's size on trust: a last check.
        let measured = select::measured_ops(&tape);
        if measured < select::MIN_MEASURED_OPS {
            return Err(Failure::Input(select::too_few_measured(
                &workload, measured,
            )));
        }
        progress.set_message(format!("[{place}] {workload}: reference model"));
        let budget = std::time::Duration::from_secs_f64(config.budget);
        let (tape_name, tape_end) = (tape.name.clone(), tape.end);
        // Only the tick driver's replay can outgrow the tape: it steps every
        // tick to the tape's end, which a trace may put at 2^62.
        let deadline = (driver == Driver::Tick).then(|| Instant::now() + budget);
        let prepared = Prepared::within(tape, driver, deadline)
            .map_err(|ops| {
                Failure::Input(reference_timed_out(
                    &tape_name,
                    driver,
                    tape_end,
                    config.budget,
                    ops,
                ))
            })?
            .with_max_ticks(config.max_ticks);
        let facts = tape_facts(&prepared);
        real_shapes.measure(&prepared.tape);
        let plan_seed = replay::workload_seed(config.choice.seed, &workload);
        let settings = bench::Settings {
            driver,
            repeat: config.repeat,
            batched_repeat: config.batched_repeat,
            plan_seed,
            budget,
            opt_in_work: if config.heaviest {
                u64::MAX
            } else {
                bench::OPT_IN_WORK
            },
        };
        let mut on_step = |step: Step<'_>| {
            match step {
                Step::Checking(algorithm) => {
                    progress.set_message(format!(
                        "[{place}] {workload}: {algorithm} (verify, latency)"
                    ));
                }
                Step::Timing(algorithm, pass, repetition) => progress.set_message(format!(
                    "[{place}] {workload}: {algorithm} ({} pass, repetition {}/{})",
                    pass.name(),
                    repetition + 1,
                    config.repeat
                )),
            }
            progress.inc(1);
        };
        let rows_here = sampled::rows_on(&selection.algorithms, &workload, sampled_by_default);
        let result = bench::run_workload(&prepared, &rows_here, settings, &mut on_step)
            .map_err(|mismatch| {
                progress.abandon();
                Failure::Run(anyhow::anyhow!(
                    "{} disagrees with the reference model on workload {workload} (seed {}, driver {}): \
                     checksum {} where the reference has {}; no results were written",
                    mismatch.algorithm,
                    config.choice.seed,
                    driver.name(),
                    mismatch.got.to_hex(),
                    mismatch.want.to_hex()
                ))
            })?;
        // Skipped algorithms ran no timed pass: catch the bar up.
        progress.set_position((index as u64 + 1) * steps_per_workload);
        let key = Key {
            algorithm: String::new(),
            workload: workload.clone(),
            scale: scale_name.clone(),
            driver: driver.name().to_owned(),
        };
        rows.add_workload(&key, &facts, &result.results, floor, plan_seed);
        let spec = match source {
            WorkloadSource::Spec { spec, .. } => Some(spec.as_ref()),
            WorkloadSource::Trace { .. } => None,
        };
        rows.add_predictions(
            &workload,
            theory::for_workload(spec, &prepared.tape),
            |algorithm| {
                result
                    .results
                    .iter()
                    .any(|r| r.algorithm == algorithm && matches!(r.outcome, Outcome::Measured(_)))
            },
        );
        let measured_ops = facts.inserts + facts.cancels + facts.reschedules;
        let per_op = output::whole_per_op(&result.overhead, measured_ops);
        overheads.push(ReplayOverhead {
            workload: workload.clone(),
            ns_per_op: stats::summarise(&per_op).map_or(0.0, |s| s.median),
        });
        for result in &result.results {
            if let Outcome::Skipped(reason) = &result.outcome {
                let lead = format!("skipped {} on {workload}: ", result.algorithm);
                // A hidden bar (output not a terminal) drops its printed
                // lines, and a skip must be seen in a log too.
                for line in wrap_words(&lead, reason, TERMINAL_WIDTH) {
                    if progress.is_hidden() {
                        eprintln!("{line}");
                    } else {
                        progress.println(line);
                    }
                }
            }
        }
    }
    progress.finish_and_clear();

    let threaded_rows = match &config.threaded {
        Some(settings) => Some(run_threaded(config, &selection, settings, &start.run_id)?),
        None => None,
    };
    let metadata = metadata::Metadata::collect(
        settings(config, scale),
        &selection,
        floor,
        memory.clone(),
        overheads.clone(),
        &start,
    )
    .with_cells(rows.cells())
    .with_threaded(
        config
            .threaded
            .as_ref()
            .map(threaded::pass::Settings::recorded),
    )
    .with_real_traces(real_shapes.entries(&selection));
    let mut swapped = output::write_all(&out, &rows, &metadata).map_err(Failure::Run)?;
    if let Some(threaded_rows) = &threaded_rows {
        let written =
            threaded::pass::write(&out, threaded_rows, &start.run_id).map_err(Failure::Run)?;
        // The run's swap removed an earlier run's threaded.csv; this one
        // replaces it.
        swapped
            .removed
            .retain(|path| !written.written.contains(path));
        swapped.written.extend(written.written);
    }
    // The summary is written whole once the files are in place: a reader
    // that closed the pipe ends it quietly, a full stdout is an error, and
    // neither touches the files.
    let mut text = String::new();
    summary::write_summary(&mut text, &rows, &selection, config.repeat);
    summary::write_contract_cost(&mut text, &rows);
    summary::write_overhead(&mut text, &overheads);
    if let Some((at_start, at_end)) = start.steal_seconds.zip(clock::steal_seconds()) {
        let _ = writeln!(
            text,
            "CPU time the hypervisor took from this VM during the run (steal): {:.1} s of {:.0} s\n\
             (a run with much steal is not one to compare absolute times with)",
            at_end - at_start,
            start.instant.elapsed().as_secs_f64()
        );
    }
    summary::write_memory_latency(&mut text, &memory);
    let _ = writeln!(text, "\nrun {}:", start.run_id);
    summary::write_swapped(&mut text, &swapped);
    crate::failure::print(&text)
}

/// The threaded pass (`--threaded`): its plan over the selection, a note of
/// the rows it leaves out, its cells; a broken contract fails the run.
fn run_threaded(
    config: &RunConfig,
    selection: &select::Selection,
    settings: &threaded::pass::Settings,
    run_id: &str,
) -> Result<Vec<schema::ThreadedRow>, Failure> {
    let choice = &config.choice;
    let workloads_named = !choice.workloads.is_empty() || !choice.files.is_empty();
    let plan = threaded::pass::plan(selection, !choice.algorithms.is_empty(), workloads_named);
    if !plan.left_out.is_empty() {
        let note = format!(
            "the threaded mode runs no sweep point; not run threaded: {}",
            plan.left_out.join(", ")
        );
        for line in wrap_words("timerbench: ", &note, TERMINAL_WIDTH) {
            eprintln!("{line}");
        }
    }
    threaded::pass::measure(&plan, settings, choice.seed, config.max_ticks, run_id)
        .map_err(|violation| Failure::Run(anyhow::anyhow!(violation)))
}

/// The error of a workload whose reference model's replay ran past the
/// budget: nothing can be checked against a reference that was not made, so
/// the run stops, before writing anything, and says what to change.
fn reference_timed_out(
    workload: &str,
    driver: Driver,
    end: u64,
    budget_seconds: f64,
    ops: u64,
) -> anyhow::Error {
    anyhow::anyhow!(
        "workload {workload}: the reference model's replay ran past the budget of \
         {budget_seconds} s (--budget) after {ops} operations; the {} driver steps it to the \
         tape's end, tick {end}. Use --driver event, a larger --budget, or a --max-ticks below \
         {end} to have the workload refused at once",
        driver.name()
    )
}

/// The run's settings as the metadata records them.
fn settings(config: &RunConfig, scale: workloads::Scale) -> metadata::Settings {
    metadata::Settings {
        seed: config.choice.seed,
        scale: scale.to_string(),
        driver: config.driver.name().to_owned(),
        repetitions: config.repeat,
        batched_repetitions: config.batched_repeat,
        max_ticks: config.max_ticks,
        budget_seconds: config.budget,
    }
}

/// What the measured phase of a prepared tape holds, for every row of it.
fn tape_facts(prepared: &Prepared) -> TapeFacts {
    let tape = &prepared.tape;
    let (mut inserts, mut cancels, mut reschedules) = (0, 0, 0);
    for op in &tape.ops[tape.prefill..] {
        match op.op {
            workloads::Op::Insert { .. } => inserts += 1,
            workloads::Op::Cancel { .. } => cancels += 1,
            workloads::Op::Reschedule { .. } => reschedules += 1,
        }
    }
    TapeFacts {
        inserts,
        cancels,
        reschedules,
        max_pending: prepared.max_pending as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_not_told_where_writes_a_directory_of_its_own() {
        assert_eq!(
            output_dir(None, "20261128T093000Z-42"),
            Path::new("runs").join("20261128T093000Z-42")
        );
        assert_eq!(
            output_dir(Some(Path::new("results")), "x"),
            Path::new("results")
        );
    }
}
