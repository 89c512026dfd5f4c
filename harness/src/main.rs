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
//! library (`run`, `counts_command`, `plain`, `ab`, `compare`, `lead`,
//! `paired`, `list`), which returns a `Failure` that decides the exit code.

use std::path::PathBuf;
use std::process::ExitCode;

use algorithms::registry;
use clap::{Parser, Subcommand};

use harness::cli::{AbArgs, CountCellArgs, CountsArgs, CrosscheckArgs, RunArgs, ScaleArg};
use harness::compare::{self, CompareOptions};
use harness::failure::Failure;
use harness::{ab, alloc, counts_command, lead, list, paired, plain, run};

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
        #[arg(long, default_value_t = compare::NOISE_THRESHOLD)]
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
    /// Rewrite the README's generated blocks: the algorithm tables from the
    /// registry (each row's summary, parameters and source file, and the count
    /// of rows) between its `<!-- algorithms: ... -->` markers, the systems
    /// table, and the headline and findings from the run in `--results`; with
    /// `--workloads-readme`
    /// the table of built-in workloads and their tapes' shapes between its
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
    /// design as a second row; see docs/judging-changes.md).
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List { scale } => {
            list::list(scale.into());
            Ok(())
        }
        Command::Run(args) => run::run(&args.config()),
        Command::Crosscheck(args) => plain::crosscheck(&args.config()),
        Command::Ab(args) => ab::ab(&args.config()),
        Command::Agreement { base, new } => compare::agreement_command(&base, &new),
        Command::Docs {
            readme,
            results,
            workloads_readme,
            check,
        } => docs(&readme, &results, workloads_readme.as_deref(), check),
        Command::Compare {
            base,
            new,
            noise,
            changes_only,
            normalise,
            save,
        } => compare::compare_command(
            &base,
            &new,
            CompareOptions {
                noise,
                changes_only,
                normalise,
                save,
            },
        ),
        Command::Lead { results, row } => lead::lead_command(&results, &row),
        Command::Paired {
            results,
            base,
            new,
            swapped,
        } => paired::paired_command(&results, &base, &new, swapped.as_deref()),
        Command::Counts(args) => counts_command::counts(&args.config()),
        Command::CountCell(args) => counts_command::count_cell(&args.config()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("timerbench: error: {:#}", failure.error());
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
    let changed =
        harness::docs::update_readme(readme, &catalog, results).map_err(Failure::Input)?;
    report(readme, changed);
    if let Some(path) = workloads_readme {
        let changed = harness::docs::update_workloads_readme(path).map_err(Failure::Input)?;
        report(path, changed);
    }
    Ok(())
}
