//! `timerbench`: replays seeded workloads against every registered timer
//! algorithm and writes CSV results.
//!
//! `timerbench list` shows the algorithms and workloads; `timerbench run` measures
//! them. See the README for the method and `results/README.md` for the schema.
//! Exit codes: 0 success, 1 a failure of the run itself (an algorithm disagreed
//! with the reference model, a file could not be written), 2 bad input (unknown
//! names, an invalid spec or trace, an unusable output directory: not
//! writable, a directory where a result file goes, too little free space;
//! results files of different runs).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use algorithms::registry;
use clap::{Parser, Subcommand, ValueEnum};
use harness::summary;
use indicatif::{ProgressBar, ProgressStyle};

use harness::bench::{self, Outcome, Prepared, Step};
use harness::memory::{self, MemoryLatency};
use harness::metadata::ReplayOverhead;
use harness::output::{self, Floor, Headline, Key, Rows, TapeFacts};
use harness::replay::Driver;
use harness::replay::mix;
use harness::select::{self, Selection, WorkloadSource};
use harness::{DEFAULT_SEED, alloc, clock, counts, metadata, plain};

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

#[derive(Parser)]
#[command(
    name = "timerbench",
    version,
    about = "Benchmark timer-queue algorithms on seeded workloads"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the algorithms (name, parameters, description) and the built-in workloads.
    List {
        /// Scale whose built-in workloads to list.
        #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
        scale: ScaleArg,
    },
    /// Replay workloads against algorithms and write CSV results.
    Run(RunArgs),
    /// Check the headline against a plain loop: time the harness's whole pass
    /// and a plain event loop over the same operations, interleaved, and print
    /// their medians and ratio per (algorithm, workload). Writes nothing.
    Crosscheck(CrosscheckArgs),
    /// Did a change help, measured back to back: run `timerbench crosscheck`
    /// from another build (--base-exe; `make ab REV=main` builds one) and from
    /// this one in turn, --rounds times, and print per (algorithm, workload)
    /// each side's median, the median of the paired ratios (this build's over
    /// the base's) with its interval, and a verdict: faster or slower only
    /// when the whole interval lies on one side of 1, else tied. Writes
    /// nothing.
    Ab(AbArgs),
    /// How well two runs agree: for each cell both measured, whether NEW's
    /// median lies inside BASE's interval or within 10% of its median.
    Agreement {
        /// The first run's results directory.
        base: PathBuf,
        /// The second run's results directory.
        new: PathBuf,
    },
    /// Did a change make a difference? Per cell both runs measured, NEW's
    /// median over BASE's with a 95% bootstrap interval from the recorded
    /// repetitions, and a verdict: faster or slower only when the whole
    /// interval lies beyond the noise band. Refuses runs that are not
    /// comparable; warns when machines or builds differ. Measures nothing.
    Compare {
        /// The results directory to compare against (say, `results`).
        base: PathBuf,
        /// The results directory of the run to judge.
        new: PathBuf,
        /// The noise band, a fraction: a change is called only when its whole
        /// interval lies beyond 1 ± NOISE.
        #[arg(long, default_value_t = harness::compare::NOISE_THRESHOLD)]
        noise: f64,
        /// Print only the cells that changed (and the summary).
        #[arg(long)]
        changes_only: bool,
        /// Divide every ratio by the median cell's before judging it: for
        /// runs made hours apart, when the machine itself got faster or
        /// slower (a shift common to every cell), so that each design is
        /// judged against the run.
        #[arg(long)]
        normalise: bool,
        /// Also write each cell's change into NEW/comparison.csv, which
        /// `make report OUT=NEW` then draws as its comparison section.
        #[arg(long)]
        save: bool,
    },
    /// Rewrite the README's algorithm tables from the registry (each row's
    /// summary, parameters and source file, and the count of rows), between
    /// its `<!-- algorithms: ... -->` markers, and with `--workloads-readme`
    /// the table of built-in workloads and their tapes' shapes between its
    /// `<!-- builtins: ... -->` markers. `--check` changes nothing and fails
    /// when a README is out of date.
    Docs {
        /// The README to update.
        #[arg(long, default_value = "README.md")]
        readme: PathBuf,
        /// The workloads README to update too (`workloads/README.md`); its
        /// table generates every default-scale tape, a few seconds' work.
        #[arg(long, value_name = "PATH")]
        workloads_readme: Option<PathBuf>,
        /// Only check: exit 1 when the README's tables differ from the registry.
        #[arg(long)]
        check: bool,
    },
    /// How far one algorithm leads its rivals in a recorded run: per workload,
    /// the best native crate's, the best baseline's and the next exact
    /// design's median over its own, with a bootstrap interval. Measures
    /// nothing; reads RESULTS.
    Lead {
        /// A results directory written by `timerbench run`.
        results: PathBuf,
        /// The algorithm whose lead to show.
        #[arg(long)]
        row: String,
    },
    /// Two rows of one recorded run, paired by repetition: per workload both
    /// ran, each row's median, the median of NEW's whole pass over BASE's in
    /// the same repetition with its interval, and a verdict: faster or slower
    /// only when the whole interval lies on one side of 1, else tied. For
    /// judging a change on a host whose speed drifts (register the changed
    /// design as a second row; see the README's "Did my change help?").
    /// Measures nothing; reads RESULTS
    Paired {
        /// A results directory written by `timerbench run`.
        results: PathBuf,
        /// The row to judge against.
        #[arg(long)]
        base: String,
        /// The row to judge.
        #[arg(long)]
        new: String,
        /// A second run of the same two rows in which the change was on
        /// BASE's row instead (`make paired` makes both): its passes are
        /// paired BASE over NEW, so that both orientations give the changed
        /// row's time over the unchanged one's, and the two are set side by
        /// side with their geometric mean and whether they agree.
        #[arg(long, value_name = "RESULTS")]
        swapped: Option<PathBuf>,
    },
    /// Count instructions, simulated cache misses and simulated branch
    /// mispredictions per operation under Valgrind's callgrind, and write
    /// counts.csv and counts.json. Exact and repeatable: the same binary and
    /// seed give the same counts on any run (but for the rows of crates that
    /// take real Instants, marked `reproducible = false`, and the branch
    /// figures, which agree to within a few in 100,000).
    Counts(CountsArgs),
    /// One cell of `timerbench counts`, run by it under callgrind.
    #[command(hide = true)]
    CountCell(CountCellArgs),
}

#[derive(clap::Args)]
struct CountsArgs {
    #[command(flatten)]
    chosen: Chosen,
    /// Directory for counts.csv and counts.json.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Measured operations counted per cell, from the start of its measured
    /// phase, or `all` [default: all].
    #[arg(long, value_parser = parse_ops)]
    ops: Option<Ops>,
    /// Cells counted at once [default: the number of cores].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_JOBS))]
    jobs: Option<u32>,
    /// Keep each cell's callgrind output in DIR, as
    /// `<algorithm>.<workload>.callgrind`, for `callgrind_annotate` or
    /// KCachegrind (default: deleted once read).
    #[arg(long, value_name = "DIR")]
    keep_callgrind: Option<PathBuf>,
    /// The most memory, in GiB, a workload may be estimated to need, as for
    /// `timerbench run`.
    #[arg(long, default_value_t = select::DEFAULT_MAX_MEMORY_GIB, value_parser = clap::value_parser!(u64).range(1..))]
    max_memory_gib: u64,
}

#[derive(clap::Args)]
struct CountCellArgs {
    #[arg(long)]
    algorithm: String,
    #[arg(long)]
    tape: PathBuf,
    #[arg(long)]
    max_pending: usize,
    #[arg(long)]
    ops: Option<usize>,
}

/// How many measured operations a counted cell replays.
#[derive(Clone, Copy, Debug)]
enum Ops {
    /// The whole measured phase.
    All,
    /// The first this many.
    First(usize),
}

/// Parses `--ops`: `all`, or a positive number.
/// The longest `--budget`: a day.
const MAX_BUDGET_SECS: f64 = 86_400.0;

/// Parses `--budget`: seconds, a finite number above 0 and at most a day.
fn parse_budget(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= MAX_BUDGET_SECS => Ok(secs),
        _ => Err(format!(
            "{text:?} is not a budget; give seconds, a number above 0 and at most {MAX_BUDGET_SECS}"
        )),
    }
}

fn parse_ops(text: &str) -> Result<Ops, String> {
    if text == "all" {
        return Ok(Ops::All);
    }
    match text.parse::<usize>() {
        Ok(count) if count > 0 => Ok(Ops::First(count)),
        _ => Err(format!(
            "{text:?} is neither `all` nor a positive number of operations"
        )),
    }
}

/// The most cells `timerbench counts` runs at once.
const MAX_JOBS: i64 = 64;

#[derive(clap::Args)]
struct CrosscheckArgs {
    /// Algorithms to check, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// Built-in workloads to check, comma-separated (default: all built-ins).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// Seed of every random stream.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Size of the built-in workloads.
    #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
    scale: ScaleArg,
    /// Timed repetitions of each side.
    #[arg(long, default_value_t = DEFAULT_REPEAT, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT))]
    repeat: u32,
}

#[derive(clap::Args)]
struct AbArgs {
    /// The `timerbench` executable of the build to judge against (any commit
    /// that has `timerbench crosscheck`).
    #[arg(long)]
    base_exe: PathBuf,
    /// Rounds: each runs crosscheck once from each build, the order
    /// alternating from round to round.
    #[arg(long, default_value_t = harness::ab::DEFAULT_ROUNDS, value_parser = clap::value_parser!(u32).range(1..=i64::from(harness::ab::MAX_ROUNDS)))]
    rounds: u32,
    #[command(flatten)]
    crosscheck: CrosscheckArgs,
}

impl CrosscheckArgs {
    /// The rows and built-in workloads asked for (no sweep points, specs or
    /// traces: crosscheck replays built-ins only).
    fn resolve(&self) -> Result<Selection, Failure> {
        Selection::resolve(
            &self.algorithms,
            &[],
            false,
            &self.workloads,
            &[],
            &[],
            self.scale.into(),
        )
        .map_err(Failure::Input)
    }
}

/// What to replay: the rows, the workloads and their seed and scale. Shared
/// by `run` and `counts`.
#[derive(clap::Args)]
struct Chosen {
    /// Algorithms to run, comma-separated (default: all; for `run`, with
    /// every compiled point of every parameter sweep, unless --param is given).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
    /// A parameter sweep to run besides --algorithms: one design at several
    /// values of one parameter, e.g. `rounds-wheel:tick=1,10,100`; may be
    /// repeated. `timerbench list` shows each design's parameters and the
    /// values compiled for it.
    #[arg(long = "param", value_name = "DESIGN:PARAM=V1,V2")]
    params: Vec<String>,
    /// Built-in workloads to run, comma-separated; `scaling` selects the whole
    /// scaling sweep (default: all built-ins, unless --spec or --trace is given).
    #[arg(long, value_delimiter = ',')]
    workloads: Vec<String>,
    /// A workload spec file (TOML) to run; may be repeated.
    #[arg(long = "spec", value_name = "FILE")]
    specs: Vec<PathBuf>,
    /// A recorded trace (CSV, see workloads/README.md) to replay; may be repeated.
    #[arg(long = "trace", value_name = "FILE")]
    traces: Vec<PathBuf>,
    /// Seed of every random stream.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Size of the built-in workloads.
    #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
    scale: ScaleArg,
}

impl Chosen {
    /// Checks every name and file against what exists (bad input: exit 2).
    /// With neither --algorithms nor --param, every row, and the compiled
    /// sweep points too when `sweeps` is set.
    fn resolve(&self, sweeps: bool) -> Result<Selection, Failure> {
        Selection::resolve(
            &self.algorithms,
            &self.params,
            sweeps,
            &self.workloads,
            &self.specs,
            &self.traces,
            self.scale.into(),
        )
        .map_err(Failure::Input)
    }
}

#[derive(clap::Args)]
struct RunArgs {
    #[command(flatten)]
    chosen: Chosen,
    /// How the clock is advanced between operations.
    #[arg(long, value_enum, default_value_t = DriverArg::Event)]
    driver: DriverArg,
    /// Directory for the result files.
    #[arg(long, default_value = "results")]
    out: PathBuf,
    /// Timed repetitions of each (algorithm, workload) pass, in a seeded
    /// interleaved order; 6 or more give every median a 95% interval.
    #[arg(long, default_value_t = DEFAULT_REPEAT, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT))]
    repeat: u32,
    /// The furthest tick a workload may run to under a ticked wheel (which
    /// may step every tick; it is skipped beyond, with the reason in runs.csv)
    /// or under the tick driver (which advances every tick; such a workload is
    /// refused before anything is measured).
    #[arg(long, default_value_t = bench::DEFAULT_MAX_TICKS, value_parser = clap::value_parser!(u64).range(1..))]
    max_ticks: u64,
    /// The most memory, in GiB, the run may be estimated to need (the tape,
    /// the harness's tables and the largest structure, per pending timer; see
    /// `select::memory_estimate`); a workload estimated above it is refused
    /// before anything is generated or measured.
    #[arg(long, default_value_t = select::DEFAULT_MAX_MEMORY_GIB, value_parser = clap::value_parser!(u64).range(1..))]
    max_memory_gib: u64,
    /// Seconds an algorithm's untimed verification pass on a workload may
    /// run before it is stopped and recorded as timed out (runs.csv
    /// `skip_reason`); its timed passes would each take about as long.
    #[arg(long, default_value_t = bench::DEFAULT_BUDGET.as_secs_f64(), value_parser = parse_budget)]
    budget: f64,
}

/// Default repetitions: the fewest for which the distribution-free interval
/// of a median (min to max) covers at least 95% (1 - 2/64 = 96.9%).
const DEFAULT_REPEAT: u32 = 6;
/// The most repetitions accepted: more would only lengthen the run.
const MAX_REPEAT: i64 = 1000;

#[derive(Clone, Copy, ValueEnum)]
enum ScaleArg {
    Small,
    Default,
    Large,
}

impl From<ScaleArg> for workloads::Scale {
    fn from(scale: ScaleArg) -> Self {
        match scale {
            ScaleArg::Small => workloads::Scale::Small,
            ScaleArg::Default => workloads::Scale::Default,
            ScaleArg::Large => workloads::Scale::Large,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum DriverArg {
    /// Advance to the next operation or the queue's next expiry.
    Event,
    /// Advance one tick at a time, as a naive poller.
    Tick,
}

impl From<DriverArg> for Driver {
    fn from(driver: DriverArg) -> Self {
        match driver {
            DriverArg::Event => Driver::Event,
            DriverArg::Tick => Driver::Tick,
        }
    }
}

/// Why a command failed, which decides the exit code.
enum Failure {
    /// Bad input: exit 2.
    Input(anyhow::Error),
    /// The run itself failed: exit 1.
    Run(anyhow::Error),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List { scale } => {
            list(scale.into());
            Ok(())
        }
        Command::Run(args) => run(args),
        Command::Crosscheck(args) => crosscheck(args),
        Command::Ab(args) => ab(args),
        Command::Agreement { base, new } => agreement(&base, &new),
        Command::Docs {
            readme,
            workloads_readme,
            check,
        } => docs(&readme, workloads_readme.as_deref(), check),
        Command::Compare {
            base,
            new,
            noise,
            changes_only,
            normalise,
            save,
        } => compare(
            &base,
            &new,
            CompareOptions {
                noise,
                changes_only,
                normalise,
                save,
            },
        ),
        Command::Lead { results, row } => lead(&results, &row),
        Command::Paired {
            results,
            base,
            new,
            swapped,
        } => paired(&results, &base, &new, swapped.as_deref()),
        Command::Counts(args) => counts(args),
        Command::CountCell(args) => count_cell(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(error)) => {
            eprintln!("timerbench: error: {error:#}");
            ExitCode::from(2)
        }
        Err(Failure::Run(error)) => {
            eprintln!("timerbench: error: {error:#}");
            ExitCode::from(1)
        }
    }
}

fn list(scale: workloads::Scale) {
    println!("Algorithms:");
    let catalog = registry::catalog();
    let width = catalog.iter().map(|a| a.name.len()).max().unwrap_or(0);
    let params_width = catalog.iter().map(|a| a.params.len()).max().unwrap_or(0);
    for info in catalog.iter().filter(|info| !info.variant) {
        println!(
            "  {:width$}  {:params_width$}  {}",
            info.name, info.params, info.summary
        );
    }
    println!();
    println!(
        "Parameters (timerbench run --param <design>:<parameter>=<v1>,<v2>; compiled points):"
    );
    for info in catalog.iter().filter(|info| info.sweep.is_none()) {
        for param in info.tunables {
            let values: Vec<String> = registry::sweep_points(&catalog, info, param)
                .into_iter()
                .map(|(value, row)| {
                    let row = if row == info.name { "default" } else { row };
                    format!("{value} ({row})")
                })
                .collect();
            println!(
                "  {}:{}  {}: {}",
                info.name,
                param.name,
                param.meaning,
                values.join(", ")
            );
        }
    }
    println!();
    println!("Workloads (scale {scale}):");
    let specs = workloads::builtins(scale);
    let width = specs.iter().map(|s| s.name().len()).max().unwrap_or(0);
    for spec in &specs {
        println!("  {:width$}  {}", spec.name(), spec.description());
        // The source goes on a second line, under the description, so that
        // the names and descriptions stay one line each to scan. Every
        // built-in has one (a test in `workloads` holds them to it).
        if let Some(source) = spec.source() {
            println!("  {:width$}  source: {source}", "");
        }
    }
}

fn run(args: RunArgs) -> Result<(), Failure> {
    let scale: workloads::Scale = args.chosen.scale.into();
    let driver: Driver = args.driver.into();
    if cfg!(debug_assertions) {
        eprintln!(
            "timerbench: warning: this is a debug build; measure with `cargo run --release` or `make results`"
        );
    }
    // Everything the user named is checked before anything is measured or
    // written, and so is everything about the output directory that could
    // fail the run at its end.
    let selection = args.chosen.resolve(true)?;
    if driver == Driver::Tick {
        check_tick_driver(&selection, args.max_ticks)?;
    }
    check_memory(&selection, args.max_memory_gib)?;
    let cells = (selection.algorithms.len() * selection.workloads.len()) as u64;
    let repeat = u64::from(args.repeat);
    let targets = [&schema::RUN_FILES[..], &schema::RUN_STALE_FILES[..]].concat();
    let notes = output::prepare_output(&output::Destination {
        dir: &args.out,
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

    let start = metadata::Start::now();
    let floor_histogram = clock::floor();
    let floor = Floor {
        p50_ns: floor_histogram.value_at_quantile(0.5),
        p99_ns: floor_histogram.value_at_quantile(0.99),
        p999_ns: floor_histogram.value_at_quantile(0.999),
        max_ns: floor_histogram.max(),
    };
    let memory = memory::probe();

    if args.repeat < DEFAULT_REPEAT {
        eprintln!(
            "timerbench: warning: with {} repetitions an interval of a median covers less than 95%; \
             the files say how much (ci_level)",
            args.repeat
        );
    }
    // Per workload: each algorithm's untimed checks and 2 timed passes per
    // repetition, and the overhead probe's one pass per repetition.
    let steps_per_workload = selection.algorithms.len() as u64 * (1 + 2 * repeat) + repeat;
    let progress = ProgressBar::new(selection.workloads.len() as u64 * steps_per_workload);
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} (eta {eta}) {msg}")
            .expect("constant template")
            .progress_chars("=> "),
    );
    let mut rows = Rows::new(&start.run_id);
    let mut overheads = Vec::new();
    for (index, source) in selection.workloads.iter().enumerate() {
        // The message names the workload by its place in the run, so that a
        // reader sees how many are left as well as the passes.
        let place = format!("{}/{}", index + 1, selection.workloads.len());
        progress.set_message(format!("[{place}] {}: generating", source.name()));
        let (tape, scale_name) = source.tape(args.chosen.seed);
        let workload = tape.name.clone();
        progress.set_message(format!("[{place}] {workload}: reference model"));
        let prepared = Prepared::new(tape, driver).with_max_ticks(args.max_ticks);
        let facts = tape_facts(&prepared);
        let plan_seed = workload_seed(args.chosen.seed, &workload);
        let settings = bench::Settings {
            driver,
            repeat: args.repeat,
            plan_seed,
            budget: std::time::Duration::from_secs_f64(args.budget),
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
                    args.repeat
                )),
            }
            progress.inc(1);
        };
        let result = bench::run_workload(&prepared, &selection.algorithms, settings, &mut on_step)
            .map_err(|mismatch| {
                progress.abandon();
                Failure::Run(anyhow::anyhow!(
                    "{} disagrees with the reference model on workload {workload} (seed {}, driver {}): \
                     checksum {} where the reference has {}; no results were written",
                    mismatch.algorithm,
                    args.chosen.seed,
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
        let measured_ops = facts.inserts + facts.cancels + facts.reschedules;
        let per_op = output::whole_per_op(&result.overhead, measured_ops);
        overheads.push(ReplayOverhead {
            workload: workload.clone(),
            ns_per_op: harness::stats::summarise(&per_op).map_or(0.0, |s| s.median),
        });
        for result in &result.results {
            if let Outcome::Skipped(reason) = &result.outcome {
                let line = format!("skipped {} on {workload}: {reason}", result.algorithm);
                // A hidden bar (output not a terminal) drops its printed
                // lines, and a skip must be seen in a log too.
                if progress.is_hidden() {
                    eprintln!("{line}");
                } else {
                    progress.println(line);
                }
            }
        }
    }
    progress.finish_and_clear();

    let metadata = metadata::Metadata::collect(
        args_summary(&args, scale),
        &selection,
        floor,
        memory.clone(),
        overheads.clone(),
        &start,
    );
    let swapped = output::write_all(&args.out, &rows, &metadata).map_err(Failure::Run)?;
    print_summary(&rows, &selection, args.repeat);
    print_contract_cost(&rows);
    print_overhead(&overheads);
    if let Some((at_start, at_end)) = start.steal_seconds.zip(clock::steal_seconds()) {
        println!(
            "CPU time the hypervisor took from this VM during the run (steal): {:.1} s of {:.0} s\n\
             (a run with much steal is not one to compare absolute times with)",
            at_end - at_start,
            start.instant.elapsed().as_secs_f64()
        );
    }
    print_memory_latency(&memory);
    println!();
    println!("run {}:", start.run_id);
    print_swapped(&swapped);
    Ok(())
}

/// What a write did: each file written, and each stale file removed.
fn print_swapped(swapped: &harness::swap::Swapped) {
    for path in &swapped.written {
        println!("wrote {}", path.display());
    }
    for path in &swapped.removed {
        println!("removed {}: it described the previous run", path.display());
    }
}

/// What the contract costs each native row's structure, one line per pair.
fn print_contract_cost(rows: &Rows) {
    let costs = rows.contract_costs();
    if costs.is_empty() {
        return;
    }
    println!();
    println!(
        "What the contract costs: the contract row's median over the native row's (same structure, its own API),\n\
         [95% interval]; = when the medians' intervals overlap:"
    );
    for cost in costs {
        let interval = cost
            .ratio_ci_low
            .zip(cost.ratio_ci_high)
            .map_or_else(String::new, |(low, high)| format!(" [{low:.2}, {high:.2}]"));
        println!(
            "  {:<12} {:<26} {:>6.1} ns over {:<24} {:>6.1} ns: {:.2}x{interval}{}",
            cost.workload,
            cost.contract,
            cost.contract_ns,
            cost.native,
            cost.native_ns,
            cost.ratio,
            if cost.tied { " =" } else { "" }
        );
    }
}

/// `timerbench agreement`: how many cells of NEW agree with BASE.
fn agreement(base: &std::path::Path, new: &std::path::Path) -> Result<(), Failure> {
    let cells = harness::compare::agreement(base, new).map_err(Failure::Input)?;
    let agreeing = cells.iter().filter(|c| c.agrees).count();
    for cell in cells.iter().filter(|c| !c.agrees) {
        let (median, low, high) = cell.base;
        println!(
            "differs: {} on {}: {:.1} [{:.1}, {:.1}] then {:.1} ({:+.1}%)",
            cell.algorithm,
            cell.workload,
            median,
            low,
            high,
            cell.new,
            (cell.new / median - 1.0) * 100.0
        );
    }
    println!(
        "{agreeing} of {} cells agree ({:.1}%): the second run's median inside the first run's interval or within 10% of its median",
        cells.len(),
        100.0 * agreeing as f64 / cells.len().max(1) as f64
    );
    Ok(())
}

/// `timerbench docs`: the README's algorithm tables from the registry, and
/// the workloads README's table of built-ins from their tapes.
fn docs(
    readme: &std::path::Path,
    workloads_readme: Option<&std::path::Path>,
    check: bool,
) -> Result<(), Failure> {
    let catalog = registry::catalog();
    if check {
        let current = harness::docs::readme_is_current(readme, &catalog).map_err(Failure::Input)?;
        if !current {
            return Err(Failure::Run(anyhow::anyhow!(
                "{}'s generated tables differ from the registry or algorithms/src/systems.rs: run `make docs`",
                readme.display()
            )));
        }
        println!("{} is up to date", readme.display());
        if let Some(path) = workloads_readme {
            let current =
                harness::docs::workloads_readme_is_current(path).map_err(Failure::Input)?;
            if !current {
                return Err(Failure::Run(anyhow::anyhow!(
                    "{}'s table of built-in workloads differs from the specs and their tapes: run `make docs`",
                    path.display()
                )));
            }
            println!("{} is up to date", path.display());
        }
        return Ok(());
    }
    let report = |path: &std::path::Path, changed: bool| {
        println!(
            "{} {}",
            path.display(),
            if changed { "updated" } else { "was up to date" }
        );
    };
    let changed = harness::docs::update_readme(readme, &catalog).map_err(Failure::Input)?;
    report(readme, changed);
    if let Some(path) = workloads_readme {
        let changed = harness::docs::update_workloads_readme(path).map_err(Failure::Input)?;
        report(path, changed);
    }
    Ok(())
}

/// `timerbench compare`'s flags.
struct CompareOptions {
    noise: f64,
    changes_only: bool,
    normalise: bool,
    save: bool,
}

/// `timerbench compare`: NEW against BASE, cell by cell, with verdicts.
fn compare(
    base: &std::path::Path,
    new: &std::path::Path,
    options: CompareOptions,
) -> Result<(), Failure> {
    let CompareOptions {
        noise,
        changes_only,
        normalise,
        save,
    } = options;
    use harness::compare::Verdict;
    use std::fmt::Write as _;
    use std::io::Write as _;
    let comparison =
        harness::compare::compare(base, new, noise, normalise).map_err(Failure::Input)?;
    let mut text = format!(
        "{} against {}: NEW's median over BASE's (below 1: NEW is faster), 95% bootstrap interval; noise band ±{:.0}%\n",
        new.display(),
        base.display(),
        noise * 100.0
    );
    for note in &comparison.notes {
        let _ = writeln!(text, "note: {note}");
    }
    for warning in &comparison.warnings {
        let _ = writeln!(text, "warning: {warning}");
    }
    let _ = writeln!(
        text,
        "\n{:<14} {:<26} {:>10} {:>10} {:>7}  {:<16} verdict",
        "workload", "algorithm", "base ns", "new ns", "ratio", "interval"
    );
    for change in &comparison.changes {
        if changes_only && !matches!(change.verdict, Verdict::Faster | Verdict::Slower) {
            continue;
        }
        let interval = change.interval.map_or_else(
            || "-".to_owned(),
            |(low, high)| format!("[{low:.2}, {high:.2}]"),
        );
        let _ = writeln!(
            text,
            "{:<14} {:<26} {:>10.1} {:>10.1} {:>6.2}x  {:<16} {}",
            change.workload,
            change.algorithm,
            change.base_ns,
            change.new_ns,
            change.ratio,
            interval,
            change.verdict.label()
        );
    }
    let _ = writeln!(
        text,
        "\n{} cells: {} faster, {} slower, {} no significant change, {} with too few repetitions",
        comparison.changes.len(),
        comparison.count(Verdict::Faster),
        comparison.count(Verdict::Slower),
        comparison.count(Verdict::NoChange),
        comparison.count(Verdict::TooFewRepetitions)
    );
    for (side, cells) in [
        ("BASE", &comparison.only_base),
        ("NEW", &comparison.only_new),
    ] {
        if !cells.is_empty() {
            let _ = writeln!(
                text,
                "measured in {side} only ({}): {}",
                cells.len(),
                cells.join(", ")
            );
        }
    }
    if save {
        let swapped =
            output::write_comparison(new, &comparison.rows(base, noise)).map_err(Failure::Run)?;
        for path in swapped.written {
            let _ = writeln!(
                text,
                "wrote {} (`make report OUT={}` draws it)",
                path.display(),
                new.display()
            );
        }
    }
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

/// `timerbench lead`: one algorithm against its rivals in a recorded run.
fn lead(results: &std::path::Path, row: &str) -> Result<(), Failure> {
    use std::fmt::Write as _;
    use std::io::Write as _;
    let leads = harness::lead::leads(results, row).map_err(Failure::Input)?;
    // Written whole and then printed once: a reader that closes the pipe early
    // (`| head`) ends the output, not the program with a panic.
    let mut text = format!(
        "{row}'s lead in {}: the rival's median over {row}'s (above 1: {row} is faster), 95% bootstrap interval\n",
        results.display()
    );
    let _ = writeln!(
        text,
        "{:<14} {:>9}  {:<20} {:<26} {:>9} {:>7}  interval",
        "workload", "ns", "rival", "name", "ns", "lead"
    );
    for lead in &leads {
        let interval = lead.interval.map_or_else(
            || "-".to_owned(),
            |(low, high)| format!("[{low:.2}, {high:.2}]"),
        );
        let _ = writeln!(
            text,
            "{:<14} {:>9.1}  {:<20} {:<26} {:>9.1} {:>6.2}x  {interval}",
            lead.workload,
            lead.row_ns,
            lead.rival.label(),
            lead.rival_name,
            lead.rival_ns,
            lead.ratio
        );
    }
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

/// `timerbench paired`: two rows of one run, paired by repetition.
fn paired(
    results: &std::path::Path,
    base: &str,
    new: &str,
    swapped: Option<&std::path::Path>,
) -> Result<(), Failure> {
    use std::io::Write as _;
    let table = |results: &std::path::Path, base: &str, new: &str| {
        let cells = harness::paired::paired(results, base, new).map_err(Failure::Input)?;
        let text = format!(
            "{new} against {base} in {}, paired by repetition: ns per operation, median over \
             the repetitions; ratio: median of the paired ratios, {new}'s over {base}'s\n{}",
            results.display(),
            harness::ab::verdict_table(&cells, "new")
        );
        Ok::<_, Failure>((cells, text))
    };
    // Written whole and then printed once, as `lead` does.
    let (first, mut text) = table(results, base, new)?;
    if let Some(other) = swapped {
        let (second, second_text) = table(other, new, base)?;
        let rows = harness::paired::both_orientations(&first, &second);
        text += &format!(
            "{second_text}both orientations, each the changed row's time over the unchanged \
             one's: first {new} over {base} in {}, second {base} over {new} in {}\n{}",
            results.display(),
            other.display(),
            harness::paired::orientations_table(&rows)
        );
    }
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

/// `timerbench crosscheck`: the harness's whole pass against a plain loop.
fn crosscheck(args: CrosscheckArgs) -> Result<(), Failure> {
    let selection = args.resolve()?;
    println!(
        "Whole-pass ns per operation (median of {}), event driver: the harness's replay and a plain loop, interleaved",
        args.repeat
    );
    println!(
        "{:<14} {:<26} {:>10} {:>10} {:>8}",
        "workload", "algorithm", "harness", "plain", "ratio"
    );
    let mut worst: Option<(String, f64)> = None;
    for source in &selection.workloads {
        let WorkloadSource::Spec { spec, .. } = source else {
            continue;
        };
        let prepared = Prepared::new(spec.generate(args.seed), Driver::Event);
        let mut check = plain::CrossCheck {
            prepared: &prepared,
            selected: &selection.algorithms,
            repeat: args.repeat,
            seed: workload_seed(args.seed, spec.name()),
            rows: Vec::new(),
        };
        registry::for_each_row(&mut check);
        for row in &check.rows {
            if row.plain_fired != row.harness_fired {
                return Err(Failure::Run(anyhow::anyhow!(
                    "the plain loop fired {} timers of {} on {} where the harness's replay fired {}: \
                     they did not replay the same operations, so their times cannot be compared",
                    row.plain_fired,
                    row.algorithm,
                    spec.name(),
                    row.harness_fired
                )));
            }
            let ratio = row.harness_ns / row.plain_ns;
            println!(
                "{:<14} {:<26} {:>10.1} {:>10.1} {:>8.3}",
                spec.name(),
                row.algorithm,
                row.harness_ns,
                row.plain_ns,
                ratio
            );
            let off = (ratio - 1.0).abs();
            if worst.as_ref().is_none_or(|(_, w)| off > (w - 1.0).abs()) {
                worst = Some((format!("{} on {}", row.algorithm, spec.name()), ratio));
            }
        }
    }
    if let Some((cell, ratio)) = worst {
        println!("largest departure from 1: {ratio:.3} ({cell})");
    }
    Ok(())
}

/// `timerbench ab`: crosscheck from the base build and from this one in turn,
/// the rounds paired cell by cell (see [`harness::ab`]).
fn ab(args: AbArgs) -> Result<(), Failure> {
    let check = &args.crosscheck;
    // Refuse a selection this build does not know before starting either
    // build, with the same words crosscheck would use.
    check.resolve()?;
    if !args.base_exe.is_file() {
        return Err(Failure::Input(anyhow::anyhow!(
            "--base-exe {}: no such file; give the timerbench executable of the build to judge              against (`make ab REV=main` builds one from a git revision)",
            args.base_exe.display()
        )));
    }
    let this_exe = std::env::current_exe()
        .map_err(|error| Failure::Run(anyhow::anyhow!("cannot find this executable: {error}")))?;
    let scale = check
        .scale
        .to_possible_value()
        .expect("every scale has a name");
    let mut crosscheck_args = vec![
        "crosscheck".to_owned(),
        format!("--scale={}", scale.get_name()),
        format!("--seed={}", check.seed),
        format!("--repeat={}", check.repeat),
    ];
    if !check.algorithms.is_empty() {
        crosscheck_args.push(format!("--algorithms={}", check.algorithms.join(",")));
    }
    if !check.workloads.is_empty() {
        crosscheck_args.push(format!("--workloads={}", check.workloads.join(",")));
    }
    let run_side = |exe: &std::path::Path, side: &str| -> Result<Vec<harness::ab::Row>, Failure> {
        let output = std::process::Command::new(exe)
            .args(&crosscheck_args)
            .output()
            .map_err(|error| {
                Failure::Run(anyhow::anyhow!(
                    "cannot start {side} ({}): {error}",
                    exe.display()
                ))
            })?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
            return Err(Failure::Run(anyhow::anyhow!(
                "{side} ({}) failed ({}); the last lines it printed:\n{}",
                exe.display(),
                output.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )));
        }
        harness::ab::parse_crosscheck(&String::from_utf8_lossy(&output.stdout))
            .map_err(|error| {
                error.context(format!("reading what {side} ({}) printed", exe.display()))
            })
            .map_err(Failure::Run)
    };
    let mut rounds = Vec::new();
    for round in 0..args.rounds {
        eprintln!("timerbench ab: round {} of {}", round + 1, args.rounds);
        // Alternate which build goes first, so that a drift within a round
        // falls on both alike.
        let (base, new) = if round % 2 == 0 {
            let base = run_side(&args.base_exe, "the base")?;
            (base, run_side(&this_exe, "this build")?)
        } else {
            let new = run_side(&this_exe, "this build")?;
            (run_side(&args.base_exe, "the base")?, new)
        };
        rounds.push((base, new));
    }
    let cells = harness::ab::pair_rounds(&rounds).map_err(Failure::Run)?;
    println!(
        "This build against {} ({} rounds, the order alternating): crosscheck's harness column, \
         ns per operation, median over the rounds; ratio: median of the paired ratios, this \
         build's over the base's",
        args.base_exe.display(),
        args.rounds
    );
    print!("{}", harness::ab::verdict_table(&cells, "this"));
    Ok(())
}

/// `timerbench counts`: plans every cell natively, counts each under callgrind
/// (`--jobs` at once), and writes counts.csv and counts.json only when every
/// cell has been counted.
fn counts(args: CountsArgs) -> Result<(), Failure> {
    let scale: workloads::Scale = args.chosen.scale.into();
    // Counts are about designs: a sweep point is counted when asked for
    // (--param or --algorithms), not by default.
    let selection = args.chosen.resolve(false)?;
    // The parent generates each tape and its child replays it: the run's own
    // memory bound applies.
    check_memory(&selection, args.max_memory_gib)?;
    let (valgrind, version) = counts::locate_valgrind().map_err(Failure::Input)?;
    let cells = (selection.algorithms.len() * selection.workloads.len()) as u64;
    let notes = output::prepare_output(&output::Destination {
        dir: &args.out,
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
    if let Some(keep) = &args.keep_callgrind {
        output::prepare_dir(keep).map_err(Failure::Input)?;
    }
    let exe = std::env::current_exe()
        .map_err(|error| Failure::Run(anyhow::anyhow!("cannot find this executable: {error}")))?;
    let limit = match args.ops {
        Some(Ops::First(count)) => Some(count),
        Some(Ops::All) | None => None,
    };
    let started = Instant::now();
    let scratch = std::path::absolute(&args.out)
        .map_err(|error| Failure::Input(anyhow::anyhow!("{}: {error}", args.out.display())))?
        .join(format!(".counts-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).map_err(|error| {
        Failure::Input(anyhow::anyhow!(
            "cannot create {}: {error}",
            scratch.display()
        ))
    })?;
    let result = count_cells(&args, &selection, &scratch, &valgrind, &exe, limit);
    std::fs::remove_dir_all(&scratch).ok();
    let rows = result?;
    let metadata = metadata::CountsMetadata::collect(
        version,
        &scale.to_string(),
        args.chosen.seed,
        limit,
        started,
    );
    let swapped = output::write_counts(&args.out, &rows, &metadata).map_err(Failure::Run)?;
    print_counts(&rows);
    println!();
    print_swapped(&swapped);
    Ok(())
}

/// The work of `timerbench counts` between its checks and its output: plans
/// every cell natively (writing each workload's tape into `scratch`), counts
/// each under callgrind (`--jobs` at once), and returns every row, or the
/// first failure.
fn count_cells(
    args: &CountsArgs,
    selection: &Selection,
    scratch: &std::path::Path,
    valgrind: &std::path::Path,
    exe: &std::path::Path,
    limit: Option<usize>,
) -> Result<Vec<schema::CountRow>, Failure> {
    let mut jobs = Vec::new();
    for (index, source) in selection.workloads.iter().enumerate() {
        let (tape, scale_name) = source.tape(args.chosen.seed);
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
                Err(reason) => println!("skipped {algorithm} on {}: {reason}", prepared.tape.name),
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
        keep: args.keep_callgrind.as_deref(),
    };
    let workers = args.jobs.map_or_else(
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
            Failure::Run(error.context(format!("no counts were written to {}", args.out.display())))
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
fn print_counts(rows: &[schema::CountRow]) {
    println!(
        "Per measured operation, under callgrind (the whole counted region: queue calls, next_expiry, replay loop)"
    );
    println!(
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
        println!(
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
fn count_cell(args: CountCellArgs) -> Result<(), Failure> {
    // Everything the counted region touches is made on the counting thread:
    // its tape, and even its copy of the row's name.
    let count = || -> Result<bool, Failure> {
        let tape = counts::read_tape(&args.tape).map_err(Failure::Input)?;
        let algorithm = args.algorithm.clone();
        let mut cell = counts::CountCell {
            tape: &tape,
            algorithm: &algorithm,
            max_pending: args.max_pending,
            limit: args.ops,
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
            args.algorithm
        )));
    }
    Ok(())
}

/// Refuses a selection with a workload that runs beyond `max_ticks`, which
/// the tick driver would advance through one tick at a time (the reference
/// model first, before any algorithm): 2^40 ticks take hours.
fn check_tick_driver(selection: &Selection, max_ticks: u64) -> Result<(), Failure> {
    for source in &selection.workloads {
        let end = source.end_tick();
        if end > max_ticks {
            return Err(Failure::Input(anyhow::anyhow!(
                "workload {} runs to tick {end}, and the tick driver advances every tick up to \
                 it: beyond the limit of {max_ticks} ticks; use --driver event, shorten the \
                 workload, or raise --max-ticks",
                source.name()
            )));
        }
    }
    Ok(())
}

/// Refuses a workload whose estimated memory is above `max_gib`, saying how
/// the estimate is made; warns of one above what the machine has available.
fn check_memory(selection: &Selection, max_gib: u64) -> Result<(), Failure> {
    const GIB: f64 = (1u64 << 30) as f64;
    let available = select::available_memory();
    for source in &selection.workloads {
        let (ops, pending) = source.size();
        let estimate = select::memory_estimate(ops, pending);
        let how = format!(
            "{ops} operations of {} bytes, up to {pending} pending timers of {} bytes, and {} MiB",
            select::BYTES_PER_OP,
            select::BYTES_PER_PENDING,
            select::FIXED_BYTES >> 20
        );
        if estimate > max_gib.saturating_mul(1 << 30) {
            return Err(Failure::Input(anyhow::anyhow!(
                "workload {} is estimated to need {:.1} GiB ({how}), above the limit of {max_gib} \
                 GiB; lower its `pending` or `duration`, or raise --max-memory-gib",
                source.name(),
                estimate as f64 / GIB
            )));
        }
        if let Some(available) = available.filter(|&a| estimate > a) {
            eprintln!(
                "timerbench: warning: workload {} is estimated to need {:.1} GiB ({how}), more \
                 than the {:.1} GiB this machine has available; it may swap, and its times with it",
                source.name(),
                estimate as f64 / GIB,
                available as f64 / GIB
            );
        }
    }
    Ok(())
}

/// The run's settings as the metadata records them.
fn args_summary(args: &RunArgs, scale: workloads::Scale) -> metadata::Settings {
    metadata::Settings {
        seed: args.chosen.seed,
        scale: scale.to_string(),
        driver: Driver::from(args.driver).name().to_owned(),
        repetitions: args.repeat,
        max_ticks: args.max_ticks,
        budget_seconds: args.budget,
    }
}

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

/// Prints the memory probe: what one cache miss costs at each buffer size, the
/// floor under a cancel once a queue outgrows the caches.
fn print_memory_latency(memory: &[MemoryLatency]) {
    println!();
    let items: Vec<String> = memory
        .iter()
        .map(|probe| format!("{} KiB {:.1}", probe.bytes >> 10, probe.ns_per_load))
        .collect();
    print_wrapped(
        "Dependent random load, ns (the cost of a miss; not subtracted): ",
        &items,
    );
}

/// Prints `items` after `lead`, wrapped to the summary's width.
fn print_wrapped(lead: &str, items: &[String]) {
    for line in summary::wrap(lead, items, ", ", summary::SUMMARY_WIDTH) {
        println!("{line}");
    }
}

/// The seed of a workload's plan (and of its bootstrap resamples): the run's
/// seed mixed with an FNV-1a hash of the workload's name, so each workload has
/// its own.
fn workload_seed(seed: u64, workload: &str) -> u64 {
    let name_hash = workload.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    });
    mix(seed ^ mix(name_hash))
}

/// Prints the replay loop's own cost per workload.
fn print_overhead(overheads: &[ReplayOverhead]) {
    println!();
    println!("Replay loop's own cost, ns per operation (in every figure above; not subtracted):");
    let items: Vec<String> = overheads
        .iter()
        .map(|overhead| format!("{} {:.1}", overhead.workload, overhead.ns_per_op))
        .collect();
    print_wrapped("  ", &items);
}

/// Prints, within [`summary::SUMMARY_WIDTH`] columns, per workload the
/// fastest algorithm's all-in median (ns per insert, cancel or reschedule,
/// advances included, whole passes), the algorithms tied with it, and the best
/// crate and baseline with their ratio to it; then the empty slot visits of
/// the algorithms that have any. Every cell is in the files and the report.
fn print_summary(rows: &Rows, selection: &Selection, repeat: u32) {
    let catalog = registry::catalog();
    let headlines: Vec<Headline> = rows.headlines().collect();
    println!();
    println!(
        "All-in median of {repeat} whole passes, ns per insert, cancel or reschedule (advances included).\n\
         Per workload: the fastest; how many tie with it (median intervals overlap); the best crate (driven through\n\
         its own API) and the best baseline, as their median over the fastest's. Every cell: throughput.csv, the report.\n"
    );
    let mut lines = Vec::new();
    for source in &selection.workloads {
        let workload = source.name();
        let cells: Vec<&Headline> = headlines
            .iter()
            .filter(|h| h.workload == workload)
            .collect();
        lines.push(summary::workload_line(workload, &cells, &catalog));
    }
    for line in summary::workload_table(&lines) {
        println!("{line}");
    }
    let ties: Vec<&summary::WorkloadLine> = lines.iter().filter(|l| !l.tied.is_empty()).collect();
    if !ties.is_empty() {
        println!();
        println!("Tied with the fastest (a tie is a tie: no winner is named between them):");
        for line in ties {
            print_wrapped(&format!("  {}: ", line.workload), &line.tied);
        }
    }
    println!();
    println!("Empty slot visits (empty ticks) in the measured phase, where any:");
    for source in &selection.workloads {
        let workload = source.name();
        let items: Vec<String> = selection
            .algorithms
            .iter()
            .filter_map(|name| {
                rows.run_summaries()
                    .find(|(a, w, _, _)| a == name && *w == workload)
                    .and_then(|(_, _, status, visits)| match (status, visits) {
                        ("ok", Some(n)) if n > 0 => Some(format!("{name} {n}")),
                        _ => None,
                    })
            })
            .collect();
        if !items.is_empty() {
            print_wrapped(&format!("  {workload}: "), &items);
        }
    }
}
