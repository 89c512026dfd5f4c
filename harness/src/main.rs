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
//!
//! This file is the command tree and the dispatch only: each command's flag
//! groups are in `harness::cli`, and its body in its own module of the
//! library (`run`, `counts_command`, `plain`, `judge`, `list`), which returns a `Failure` that decides the exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use algorithms::registry;
use clap::{Parser, Subcommand};

use harness::cli::{CompareArgs, CountCellArgs, CountsArgs, CrosscheckArgs, RunArgs, ScaleArg};
use harness::failure::Failure;
use harness::{alloc, counts_command, judge, list, plain, run, wrap};

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

#[derive(Parser)]
#[command(
    name = "timerbench",
    version,
    about = "Benchmark timer-queue algorithms on seeded workloads",
    max_term_width = 100
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the algorithms (name, parameters, description) and built-in workloads.
    List {
        /// Scale whose built-in workloads to list.
        #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
        scale: ScaleArg,
    },
    /// Replay workloads against algorithms and write CSV results.
    Run(RunArgs),
    /// Check the headline against a plain loop replaying the same operations.
    ///
    /// Times the harness's whole pass and a plain event loop over the same
    /// operations, interleaved, and prints their medians and ratio per
    /// (algorithm, workload). Writes nothing.
    Crosscheck(CrosscheckArgs),
    /// Set measurements side by side and judge them: two sets of runs, two
    /// rows of one run, or one row against its rivals.
    ///
    /// Every form pairs times measured close together and judges the median of
    /// the pairs' ratios (subject over reference: below 1, faster) by one rule:
    /// faster or slower only when its whole 95% distribution-free interval lies
    /// beyond 2% either side of 1, else no significant change; with fewer than
    /// six pairs, the figures and "cannot tell". Measures nothing.
    ///
    /// `compare BASE NEW`: runs paired in the order given, each run's median per
    /// cell (one run a side is one pair: figures only). `make ab` builds a git
    /// revision and runs both builds in turn, then calls this.
    ///
    /// `compare RUN --rows A,B`: B's whole passes over A's, repetition by
    /// repetition (`make paired` judges a patch to one design this way).
    ///
    /// `compare RUN --lead ROW`: ROW against the best native crate, the best
    /// std baseline and the next exact design on each workload.
    Compare(CompareArgs),
    /// Rewrite the README's generated blocks from the registry and a recorded run.
    ///
    /// The algorithm tables from the registry (each row's summary, parameters
    /// and source file, and the count of rows) between its `<!-- algorithms:
    /// ... -->` markers, the systems table, and the headline and findings from
    /// the run in `--results`; with `--workloads-readme` the table of built-in workloads and their tapes' shapes between its
    /// `<!-- builtins: ... -->` markers. `--check` changes nothing and fails
    /// when a README is out of date.
    Docs {
        /// The README to update.
        #[arg(long, default_value = "README.md")]
        readme: PathBuf,
        /// The recorded run the README's headline and findings are made from.
        #[arg(long, default_value = "results")]
        results: PathBuf,
        /// The workloads README to update too (`workloads/README.md`); its
        /// table generates every default-scale tape, a few seconds' work.
        #[arg(long, value_name = "PATH")]
        workloads_readme: Option<PathBuf>,
        /// Only check: fail when a generated block is out of date.
        #[arg(long)]
        check: bool,
    },
    /// Count instructions and simulated cache misses per operation under callgrind.
    ///
    /// Counts instructions, simulated cache misses and simulated branch
    /// mispredictions per operation under Valgrind's callgrind, and writes
    /// counts.csv and counts.json. Exact and repeatable: the same binary and
    /// seed give the same counts on any run (but for the rows of crates that
    /// take real Instants, marked `reproducible = false`, and the branch
    /// figures, which agree to within a few in 100,000).
    Counts(CountsArgs),
    /// One cell of `timerbench counts`, run by it under callgrind.
    #[command(hide = true)]
    CountCell(CountCellArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List { scale } => list::list(scale.into()),
        Command::Run(args) => run::run(&args.config()),
        Command::Crosscheck(args) => plain::crosscheck(&args.config()),
        Command::Docs {
            readme,
            results,
            workloads_readme,
            check,
        } => docs(&readme, &results, workloads_readme.as_deref(), check),
        Command::Compare(args) => match args.config() {
            Ok(config) => judge::command::compare(&config),
            Err(message) => Err(Failure::Input(anyhow::anyhow!(message))),
        },
        Command::Counts(args) => counts_command::counts(&args.config()),
        Command::CountCell(args) => counts_command::count_cell(&args.config()),
    };
    // A command refused after it took an output directory's lock leaves no
    // lock file behind.
    harness::dir_lock::release_all();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // Wrapped to the terminal: an error may list every valid name.
            if let Some(error) = failure.error() {
                let text = format!("{error:#}");
                for line in wrap::fit_message("timerbench: error: ", &text, wrap::TERMINAL_WIDTH) {
                    eprintln!("{line}");
                }
            }
            failure.exit_code()
        }
    }
}

/// `timerbench docs`: the README's algorithm tables from the registry, and
/// the workloads README's table of built-ins from their tapes.
fn docs(
    readme: &std::path::Path,
    results: &std::path::Path,
    workloads_readme: Option<&std::path::Path>,
    check: bool,
) -> Result<(), Failure> {
    let catalog = registry::catalog();
    if check {
        let current =
            harness::docs::readme_is_current(readme, &catalog, results).map_err(Failure::Input)?;
        if !current {
            return Err(Failure::Run(anyhow::anyhow!(
                "{}'s generated blocks differ from the registry, algorithms/src/systems.rs or the run in {}: run `make docs`",
                readme.display(),
                results.display()
            )));
        }
        harness::failure::print(&format!("{} is up to date\n", readme.display()))?;
        if let Some(path) = workloads_readme {
            let current =
                harness::docs::workloads_readme_is_current(path).map_err(Failure::Input)?;
            if !current {
                return Err(Failure::Run(anyhow::anyhow!(
                    "{}'s table of built-in workloads differs from the specs and their tapes: run `make docs`",
                    path.display()
                )));
            }
            harness::failure::print(&format!("{} is up to date\n", path.display()))?;
        }
        return Ok(());
    }
    let report = |path: &std::path::Path, changed: bool| {
        harness::failure::print(&format!(
            "{} {}\n",
            path.display(),
            if changed { "updated" } else { "was up to date" }
        ))
    };
    let changed =
        harness::docs::update_readme(readme, &catalog, results).map_err(Failure::Input)?;
    report(readme, changed)?;
    if let Some(path) = workloads_readme {
        let changed = harness::docs::update_workloads_readme(path).map_err(Failure::Input)?;
        report(path, changed)?;
    }
    Ok(())
}
