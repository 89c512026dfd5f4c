//! `timerbench`: replays seeded workloads against every registered timer
//! algorithm and writes CSV results.
//!
//! `timerbench list` shows the algorithms and workloads; `timerbench run` measures
//! them. See the README for the method and `results/README.md` for the schema.
//! Exit codes: 0 success, 1 a failure of the run itself (an algorithm disagreed
//! with the reference model, a file could not be written), 2 bad input (unknown
//! names, an invalid spec or trace, an unusable output directory).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use algorithms::registry;
use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use harness::bench::{Bench, Outcome, Prepared};
use harness::memory::{self, MemoryLatency};
use harness::output::{self, Floor, Key, Rows, TapeFacts};
use harness::replay::Driver;
use harness::select::{Selection, WorkloadSource};
use harness::{DEFAULT_SEED, alloc, clock, metadata};

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
}

#[derive(clap::Args)]
struct RunArgs {
    /// Algorithms to run, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    algorithms: Vec<String>,
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
    /// How the clock is advanced between operations.
    #[arg(long, value_enum, default_value_t = DriverArg::Event)]
    driver: DriverArg,
    /// Directory for the result files.
    #[arg(long, default_value = "results")]
    out: PathBuf,
}

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
    for info in &catalog {
        println!(
            "  {:width$}  {:params_width$}  {}",
            info.name, info.params, info.summary
        );
    }
    println!();
    println!("Workloads (scale {scale}):");
    let specs = workloads::builtins(scale);
    let width = specs.iter().map(|s| s.name().len()).max().unwrap_or(0);
    for spec in &specs {
        println!("  {:width$}  {}", spec.name(), spec.description());
    }
}

fn run(args: RunArgs) -> Result<(), Failure> {
    let scale: workloads::Scale = args.scale.into();
    let driver: Driver = args.driver.into();
    if cfg!(debug_assertions) {
        eprintln!(
            "timerbench: warning: this is a debug build; measure with `cargo run --release` or `make results`"
        );
    }
    // Everything the user named is checked before anything is measured or written.
    let selection = Selection::resolve(
        &args.algorithms,
        &args.workloads,
        &args.specs,
        &args.traces,
        scale,
    )
    .map_err(Failure::Input)?;
    output::prepare_dir(&args.out).map_err(Failure::Input)?;

    let started = Instant::now();
    let floor_histogram = clock::floor();
    let floor = Floor {
        p50_ns: floor_histogram.value_at_quantile(0.5),
        p99_ns: floor_histogram.value_at_quantile(0.99),
        p999_ns: floor_histogram.value_at_quantile(0.999),
        max_ns: floor_histogram.max(),
    };
    let memory = memory::probe();

    let progress =
        ProgressBar::new((selection.workloads.len() * selection.algorithms.len()) as u64);
    progress.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .expect("constant template")
            .progress_chars("=> "),
    );
    let mut rows = Rows::default();
    for source in &selection.workloads {
        progress.set_message(format!("{}: generating", source.name()));
        let (tape, scale_name) = match source {
            WorkloadSource::Spec { spec, scale_name } => {
                (spec.generate(args.seed), scale_name.clone())
            }
            WorkloadSource::Trace { tape } => (tape.clone(), "trace".to_owned()),
        };
        let workload = tape.name.clone();
        progress.set_message(format!("{workload}: reference model"));
        let prepared = Prepared::new(tape, driver);
        let facts = tape_facts(&prepared);
        let mut on_start = |algorithm: &str| {
            progress.set_message(format!("{workload}: {algorithm}"));
            progress.inc(1);
        };
        let mut bench = Bench::new(&prepared, driver, &selection.algorithms, &mut on_start);
        registry::for_each(&mut bench);
        if let Some(mismatch) = bench.mismatch {
            progress.abandon();
            return Err(Failure::Run(anyhow::anyhow!(
                "{} disagrees with the reference model on workload {workload} (seed {}, driver {}): \
                 checksum {} where the reference has {}; no results were written",
                mismatch.algorithm,
                args.seed,
                driver.name(),
                mismatch.got.to_hex(),
                mismatch.want.to_hex()
            )));
        }
        for result in &bench.results {
            let key = Key {
                algorithm: result.algorithm.to_owned(),
                workload: workload.clone(),
                scale: scale_name.clone(),
                driver: driver.name().to_owned(),
            };
            rows.add(key, &facts, result, floor);
            if let Outcome::Skipped(reason) = &result.outcome {
                progress.println(format!(
                    "skipped {} on {workload}: {reason}",
                    result.algorithm
                ));
            }
        }
    }
    progress.finish_and_clear();

    let metadata = metadata::Metadata::collect(
        args_summary(&args, scale),
        &selection,
        floor,
        memory.clone(),
        started,
    );
    let written = output::write_all(&args.out, &rows, &metadata).map_err(Failure::Run)?;
    print_summary(&rows, &selection, floor);
    print_memory_latency(&memory);
    println!();
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// The run's settings as the metadata records them.
fn args_summary(args: &RunArgs, scale: workloads::Scale) -> metadata::Settings {
    metadata::Settings {
        seed: args.seed,
        scale: scale.to_string(),
        driver: Driver::from(args.driver).name().to_owned(),
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
    print!("Dependent random load, ns (the cost of a miss; not subtracted):");
    for probe in memory {
        print!("  {} KiB {:.1}", probe.bytes >> 10, probe.ns_per_load);
    }
    println!();
}

/// Prints the all-in mean (ns per insert, cancel or reschedule, advances included) of every
/// algorithm on every workload, and the empty slot visits, as two tables.
fn print_summary(rows: &Rows, selection: &Selection, floor: Floor) {
    let algorithms = &selection.algorithms;
    let workload_width = selection
        .workloads
        .iter()
        .map(|w| w.name().len())
        .max()
        .unwrap_or(8)
        .max(8);
    let column = algorithms.iter().map(String::len).max().unwrap_or(8).max(9);
    let header = |last: &str| {
        print!("{:workload_width$}", "workload");
        for name in algorithms {
            print!("  {name:>column$}");
        }
        println!("  {last}");
    };
    println!();
    println!(
        "All-in mean, ns per insert, cancel or reschedule (advances included); clock floor p50 {} ns:",
        floor.p50_ns
    );
    header("fastest");
    for source in &selection.workloads {
        let workload = source.name();
        print!("{workload:workload_width$}");
        let mut best: Option<(&str, f64)> = None;
        for name in algorithms {
            match rows
                .all_in_means()
                .find(|(a, w, _)| a == name && *w == workload)
            {
                Some((_, _, ns)) => {
                    print!("  {ns:>column$.1}");
                    if best.is_none_or(|(_, b)| ns < b) {
                        best = Some((name, ns));
                    }
                }
                None => print!("  {:>column$}", "skipped"),
            }
        }
        println!("  {}", best.map_or("-", |(name, _)| name));
    }
    println!();
    println!("Empty slot visits (empty ticks) in the measured phase:");
    header("");
    for source in &selection.workloads {
        let workload = source.name();
        print!("{workload:workload_width$}");
        for name in algorithms {
            let cell = match rows
                .run_summaries()
                .find(|(a, w, _, _)| a == name && *w == workload)
            {
                Some((_, _, "ok", Some(n))) => n.to_string(),
                Some((_, _, "ok", None)) => "not counted".to_owned(),
                _ => "skipped".to_owned(),
            };
            print!("  {cell:>column$}");
        }
        println!();
    }
}
