//! `timerbench counts` and its hidden helper `timerbench count-cell`: the
//! commands around the counting machinery of [`crate::counts`].
//!
//! `counts` checks the selection and the output directory, plans every cell
//! natively (writing each workload's tape into a scratch directory), runs
//! each cell as `timerbench count-cell` under callgrind, `--jobs` at once,
//! and writes `counts.csv` and `counts.json` whole only when every cell has
//! been counted. `count-cell` is what callgrind runs: it reads the tape,
//! prefills the row's queue, and replays the counted range, the only region
//! callgrind collects. The configs are the command line's flags resolved
//! into plain values (`cli::CountsArgs::config`, `cli::CountCellArgs::config`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use algorithms::registry;
use indicatif::{ProgressBar, ProgressStyle};
use schema::CountRow;

use crate::bench::Prepared;
use crate::counts;
use crate::failure::Failure;
use crate::metadata::CountsMetadata;
use crate::output;
use crate::replay::Driver;
use crate::select::{self, Choice, Selection};
use crate::summary;

/// What `timerbench counts` was asked to do.
pub struct CountsConfig {
    /// The rows and workloads, not yet checked.
    pub choice: Choice,
    /// The directory for `counts.csv` and `counts.json`.
    pub out: PathBuf,
    /// Measured operations counted per cell (`None`: all of them).
    pub limit: Option<usize>,
    /// Cells counted at once (`None`: the number of cores).
    pub jobs: Option<u32>,
    /// Where to keep each cell's callgrind output, if anywhere.
    pub keep_callgrind: Option<PathBuf>,
    /// The most memory, in GiB, a workload may be estimated to need.
    pub max_memory_gib: u64,
}

/// What `timerbench count-cell` was asked to count.
pub struct CountCellConfig {
    /// The row.
    pub algorithm: String,
    /// The tape file `counts` wrote.
    pub tape: PathBuf,
    /// The pending population the row is admitted for.
    pub max_pending: usize,
    /// Measured operations counted (`None`: all of them).
    pub limit: Option<usize>,
}

/// `timerbench counts`: plans every cell natively, counts each under callgrind
/// (`--jobs` at once), and writes counts.csv and counts.json only when every
/// cell has been counted.
pub fn counts(config: &CountsConfig) -> Result<(), Failure> {
    let scale = config.choice.scale;
    // Counts are about designs: a sweep point is counted when asked for
    // (--param or --algorithms), not by default.
    let selection = config.choice.resolve(false).map_err(Failure::Input)?;
    // The parent generates each tape and its child replays it: the run's own
    // memory bound applies.
    select::check_memory(&selection, config.max_memory_gib).map_err(Failure::Input)?;
    let (valgrind, version) = counts::locate_valgrind().map_err(Failure::Input)?;
    let cells = (selection.algorithms.len() * selection.workloads.len()) as u64;
    let notes = output::prepare_output(&output::Destination {
        dir: &config.out,
        targets: &schema::COUNTS_FILES,
        writer: "timerbench counts",
        estimate: output::estimated_counts_bytes(cells),
        how: format!(
            "{cells} cells, {} bytes a row at most",
            output::BYTES_PER_ROW_BOUND
        ),
    })
    .map_err(Failure::Input)?;
    for note in notes {
        eprintln!("timerbench: {note}");
    }
    if let Some(keep) = &config.keep_callgrind {
        output::prepare_dir(keep)
            .map_err(|error| Failure::Input(error.context("--keep-callgrind")))?;
    }
    let exe = std::env::current_exe()
        .map_err(|error| Failure::Run(anyhow::anyhow!("cannot find this executable: {error}")))?;
    let limit = config.limit;
    let started = Instant::now();
    let scratch = std::path::absolute(&config.out)
        .map_err(|error| Failure::Input(anyhow::anyhow!("{}: {error}", config.out.display())))?
        .join(format!(
            "{}{}",
            crate::swap::COUNTS_SCRATCH_PREFIX,
            std::process::id()
        ));
    std::fs::create_dir_all(&scratch).map_err(|error| {
        Failure::Input(anyhow::anyhow!(
            "cannot create {}: {error}",
            scratch.display()
        ))
    })?;
    let result = count_cells(config, &selection, &scratch, &valgrind, &exe, limit);
    std::fs::remove_dir_all(&scratch).ok();
    let rows = result?;
    let metadata = CountsMetadata::collect(
        version,
        &scale.to_string(),
        config.choice.seed,
        limit,
        started,
    );
    let swapped = output::write_counts(&config.out, &rows, &metadata).map_err(Failure::Run)?;
    let mut text = counts_text(&rows);
    text.push('\n');
    summary::write_swapped(&mut text, &swapped);
    crate::failure::print(&text)
}

/// The work of `timerbench counts` between its checks and its output: plans
/// every cell natively (writing each workload's tape into `scratch`), counts
/// each under callgrind (`--jobs` at once), and returns every row, or the
/// first failure.
fn count_cells(
    config: &CountsConfig,
    selection: &Selection,
    scratch: &Path,
    valgrind: &Path,
    exe: &Path,
    limit: Option<usize>,
) -> Result<Vec<CountRow>, Failure> {
    let mut jobs = Vec::new();
    for (index, source) in selection.workloads.iter().enumerate() {
        let (tape, scale_name) = source.tape(config.choice.seed);
        let prepared = Prepared::new(tape, Driver::Event);
        let tape_file = format!("{index}.tape");
        counts::write_tape(&scratch.join(&tape_file), &prepared.tape).map_err(Failure::Run)?;
        let (range, _) = counts::counted_range(&prepared.tape, limit);
        let mut plan = counts::PlanCells {
            prepared: &prepared,
            selected: &selection.algorithms,
            cells: Vec::new(),
        };
        registry::for_each_row(&mut plan);
        for (algorithm, reproducible, admitted) in plan.cells {
            match admitted {
                Ok(max_pending) => {
                    jobs.push(counts::Job {
                        algorithm: algorithm.to_owned(),
                        workload: prepared.tape.name.clone(),
                        scale: scale_name.clone(),
                        tape_file: tape_file.clone(),
                        max_pending,
                        counted_ops: range.len() as u64,
                        reproducible,
                    });
                }
                Err(reason) => eprintln!("skipped {algorithm} on {}: {reason}", prepared.tape.name),
            }
        }
    }
    let setarch = counts::find_on_path("setarch");
    let settings = counts::JobSettings {
        valgrind,
        setarch: setarch.as_deref(),
        exe,
        limit,
        scratch,
        keep: config.keep_callgrind.as_deref(),
    };
    let workers = config.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, usize::from),
        |jobs| jobs as usize,
    );
    let progress = ProgressBar::new(jobs.len() as u64);
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} (eta {eta}) {msg}")
            .expect("constant template")
            .progress_chars("=> "),
    );
    let results = counts::run_jobs(&jobs, &settings, workers, |job| {
        progress.set_message(format!("{} on {}", job.algorithm, job.workload));
        progress.inc(1);
    });
    progress.finish_and_clear();
    let mut rows = Vec::new();
    for (job, result) in jobs.iter().zip(results) {
        let parsed = result.map_err(|error| {
            Failure::Run(error.context(format!(
                "no counts were written to {}",
                config.out.display()
            )))
        })?;
        let cell = counts::Cell {
            algorithm: &job.algorithm,
            workload: &job.workload,
            scale: &job.scale,
            reproducible: job.reproducible,
        };
        rows.extend(counts::cell_rows(&cell, job.counted_ops, &parsed));
    }
    Ok(rows)
}

/// Per (algorithm, workload), what `counts.csv` says of the whole counted region.
fn counts_text(rows: &[CountRow]) -> String {
    use std::fmt::Write as _;
    let mut text = String::from(
        "Per measured operation, under callgrind (the whole counted region: queue calls, next_expiry, replay loop)\n",
    );
    let _ = writeln!(
        text,
        "{:<14} {:<26} {:>12} {:>10} {:>10} {:>12} {:>12}",
        "workload",
        "algorithm",
        "instructions",
        "L1 misses",
        "LL misses",
        "mispredicts",
        "est. cycles"
    );
    for row in rows.iter().filter(|row| row.operation == "all") {
        let _ = writeln!(
            text,
            "{:<14} {:<26} {:>12.1} {:>10.2} {:>10.3} {:>12.3} {:>12.1}",
            row.workload,
            row.algorithm,
            row.instructions,
            row.l1_misses,
            row.ll_misses,
            row.branch_misses,
            row.estimated_cycles
        );
    }
    text
}

/// `timerbench count-cell`: one cell of `timerbench counts`, run by it under
/// callgrind. Reads the tape, prefills, and replays the counted range
/// through `counts::measured_phase`, the only region callgrind collects.
///
/// The work runs on a thread of its own. The main thread's stack starts below
/// the argument strings, whose length (this executable's path among them)
/// shifts every frame within its page and so moves simulated L1 misses; a
/// spawned thread's stack is a fresh mapping, and its allocations come from
/// an arena of its own, so the counted region's layout depends on the binary
/// and the cell alone.
pub fn count_cell(config: &CountCellConfig) -> Result<(), Failure> {
    // Everything the counted region touches is made on the counting thread:
    // its tape, and even its copy of the row's name.
    let count = || -> Result<bool, Failure> {
        let tape = counts::read_tape(&config.tape).map_err(Failure::Input)?;
        let algorithm = config.algorithm.clone();
        let mut cell = counts::CountCell {
            tape: &tape,
            algorithm: &algorithm,
            max_pending: config.max_pending,
            limit: config.limit,
            found: false,
        };
        registry::for_each_row(&mut cell);
        Ok(cell.found)
    };
    let found = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("count-cell".to_owned())
            .stack_size(counts::CELL_STACK_BYTES)
            .spawn_scoped(scope, count)
            .map_err(|error| {
                Failure::Run(anyhow::anyhow!("cannot start the counting thread: {error}"))
            })?;
        worker
            .join()
            .map_err(|_| Failure::Run(anyhow::anyhow!("the counting thread panicked")))?
    })?;
    if !found {
        return Err(Failure::Input(anyhow::anyhow!(
            "no algorithm is named {:?}",
            config.algorithm
        )));
    }
    Ok(())
}
