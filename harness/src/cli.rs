//! The command line's flag groups: the `clap` types of each command's flags,
//! their value parsers and bounds, and how each group becomes the plain
//! config struct its command runs with ([`RunConfig`], [`CountsConfig`],
//! [`CrosscheckConfig`], [`CompareConfig`], [`CountCellConfig`]).
//!
//! The binary (`src/main.rs`) holds the command tree and the dispatch; the
//! groups live here, in the library, so that the binary stays a page and the
//! commands never see a `clap` type. The doc comments of the fields are the
//! `--help` text: a test of the command line holds what matters of it.

use std::path::PathBuf;

use clap::ValueEnum;
use workloads::{FtraceOptions, KernelTimers};

use crate::bench;
use crate::counts_command::{CountCellConfig, CountsConfig};
use crate::judge::command::{CompareConfig, Form};
use crate::judge::runs;
use crate::plain::CrosscheckConfig;
use crate::replay::Driver;
use crate::run::{DEFAULT_BATCHED_REPEAT, DEFAULT_REPEAT, RunConfig};
use crate::select::{self, Choice, Inputs};
use crate::threaded::sharing::Sharing;
use crate::threaded::{self, defaults};

// `timerbench counts`' flags.
#[allow(missing_docs)]
#[derive(clap::Args)]
pub struct CountsArgs {
    #[command(flatten)]
    pub chosen: Chosen,
    /// Directory for counts.csv and counts.json.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Measured operations counted per cell, from the start of its measured
    /// phase, or `all` [default: all].
    #[arg(long, value_parser = parse_ops)]
    pub ops: Option<Ops>,
    /// Cells counted at once [default: the number of cores].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_JOBS))]
    pub jobs: Option<u32>,
    /// Keep each cell's callgrind output in DIR, as
    /// `<algorithm>.<workload>.callgrind`, for `callgrind_annotate` or
    /// KCachegrind (default: deleted once read).
    #[arg(long, value_name = "DIR")]
    pub keep_callgrind: Option<PathBuf>,
    /// The most memory, in GiB, a workload may be estimated to need, as for
    /// `timerbench run`.
    #[arg(long, default_value_t = select::DEFAULT_MAX_MEMORY_GIB, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory_gib: u64,
}

impl CountsArgs {
    /// The config `timerbench counts` runs with.
    pub fn config(self) -> CountsConfig {
        CountsConfig {
            choice: self.chosen.choice(),
            out: self.out,
            limit: match self.ops {
                Some(Ops::First(count)) => Some(count),
                Some(Ops::All) | None => None,
            },
            jobs: self.jobs,
            keep_callgrind: self.keep_callgrind,
            max_memory_gib: self.max_memory_gib,
        }
    }
}

// The hidden `timerbench count-cell`'s flags, which `counts` passes.
#[allow(missing_docs)]
#[derive(clap::Args)]
pub struct CountCellArgs {
    #[arg(long)]
    pub algorithm: String,
    #[arg(long)]
    pub tape: PathBuf,
    #[arg(long)]
    pub max_pending: usize,
    #[arg(long)]
    pub ops: Option<usize>,
}

impl CountCellArgs {
    /// The config `timerbench count-cell` runs with.
    pub fn config(self) -> CountCellConfig {
        CountCellConfig {
            algorithm: self.algorithm,
            tape: self.tape,
            max_pending: self.max_pending,
            limit: self.ops,
        }
    }
}

/// How many measured operations a counted cell replays.
#[derive(Clone, Copy, Debug)]
pub enum Ops {
    /// The whole measured phase.
    All,
    /// The first this many.
    First(usize),
}

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

/// Parses `--ops`: `all`, or a positive number.
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

// `timerbench crosscheck`'s flags.
#[allow(missing_docs)]
#[derive(clap::Args)]
pub struct CrosscheckArgs {
    /// Algorithms to check, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Built-in workloads to check, comma-separated (default: all built-ins).
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// Seed of every random stream.
    #[arg(long, default_value_t = crate::DEFAULT_SEED)]
    pub seed: u64,
    /// Size of the built-in workloads.
    #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
    pub scale: ScaleArg,
    /// Timed repetitions of each side.
    #[arg(long, default_value_t = DEFAULT_REPEAT, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT))]
    pub repeat: u32,
}

impl CrosscheckArgs {
    /// The config `timerbench crosscheck` runs with.
    pub fn config(self) -> CrosscheckConfig {
        CrosscheckConfig {
            algorithms: self.algorithms,
            workloads: self.workloads,
            seed: self.seed,
            scale: self.scale.into(),
            repeat: self.repeat,
        }
    }
}

// `timerbench compare`'s flags.
#[allow(missing_docs)]
#[derive(clap::Args)]
pub struct CompareArgs {
    /// BASE and NEW: each a results directory, or several separated by
    /// commas, paired in the order given (the i-th NEW run against the i-th
    /// BASE run). With --rows or --lead: the one run to read.
    #[arg(value_name = "RUNS", num_args = 1..=2, required = true)]
    pub runs: Vec<String>,
    /// Two rows of one run, A,B: B's whole passes over A's in the same
    /// repetition.
    #[arg(
        long,
        value_name = "A,B",
        value_delimiter = ',',
        conflicts_with = "lead"
    )]
    pub rows: Vec<String>,
    /// One row against its rivals in one run: the best native crate, the best
    /// std baseline and the next exact design, per workload.
    #[arg(long, value_name = "ROW")]
    pub lead: Option<String>,
    /// With --rows: a second run of the same two rows in which the change was
    /// on A's row instead; its pairs are pooled the other way round, so that
    /// a placement effect widens the interval instead of passing for the
    /// change.
    #[arg(long, value_name = "RUN", requires = "rows")]
    pub swapped: Option<PathBuf>,
    /// Print only the cells called faster or slower (and the counts).
    #[arg(long)]
    pub changes_only: bool,
    /// Also write NEW/comparison.csv, which `make report OUT=NEW` draws (two
    /// sets of runs only, NEW one directory).
    #[arg(long)]
    pub save: bool,
}

impl CompareArgs {
    /// The config `timerbench compare` runs with, or why the flags do not
    /// make one.
    pub fn config(self) -> Result<CompareConfig, String> {
        let form = match (self.rows.as_slice(), self.lead, self.runs.as_slice()) {
            ([], None, [base, new]) => Form::Runs {
                base: runs::directories(base),
                new: runs::directories(new),
            },
            ([], None, _) => {
                return Err(
                    "give BASE and NEW (two results directories, or comma-separated lists of \
                     them), or one run with --rows A,B or --lead ROW"
                        .to_owned(),
                );
            }
            (_, _, [_, _]) => {
                return Err("--rows and --lead read one run: give one results directory".to_owned());
            }
            ([a, b], None, [run]) => Form::Rows {
                run: PathBuf::from(run),
                a: a.clone(),
                b: b.clone(),
                swapped: self.swapped,
            },
            (rows, None, _) => {
                return Err(format!(
                    "--rows takes two rows of the run, A,B; it was given {}",
                    rows.len()
                ));
            }
            (_, Some(row), [run]) => Form::Lead {
                run: PathBuf::from(run),
                row,
            },
            (_, Some(_), _) => {
                return Err("--lead reads one run: give one results directory".to_owned());
            }
        };
        if self.save && !matches!(form, Form::Runs { .. }) {
            return Err(
                "--save writes a comparison of two sets of runs, not of --rows or --lead"
                    .to_owned(),
            );
        }
        Ok(CompareConfig {
            form,
            changes_only: self.changes_only,
            save: self.save,
        })
    }
}

/// What to replay: the rows, the workloads and their seed and scale. Shared
/// by `run` and `counts`.
#[allow(missing_docs)]
#[derive(clap::Args)]
pub struct Chosen {
    /// Algorithms to run, comma-separated (default: all; for `run`, with
    /// every compiled point of every parameter sweep, unless --param is given).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// A parameter sweep to run besides --algorithms: one design at several
    /// values of one parameter, e.g. `rounds-wheel:tick=1,10,100`; may be
    /// repeated. `timerbench list` shows each design's parameters and the
    /// values compiled for it.
    #[arg(long = "param", value_name = "DESIGN:PARAM=V1,V2")]
    pub params: Vec<String>,
    /// Built-in workloads to run, comma-separated; `scaling` selects the whole
    /// scaling sweep (default: all built-ins, unless --spec or --trace is given).
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// A workload spec file (TOML) to run; may be repeated.
    #[arg(long = "spec", value_name = "FILE")]
    pub specs: Vec<PathBuf>,
    /// A recorded trace (CSV, see workloads/README.md) to replay; may be repeated.
    #[arg(long = "trace", value_name = "FILE")]
    pub traces: Vec<PathBuf>,
    /// A raw kernel timer trace (ftrace text, as `make capture` writes it,
    /// `.gz` allowed) to import and replay; may be repeated.
    #[arg(long = "ftrace", value_name = "FILE")]
    pub ftraces: Vec<PathBuf>,
    /// Which kernel timers an --ftrace import replays: timer-list (the
    /// timer wheel, ticks are jiffies) or hrtimer (ticks of 1 us).
    #[arg(long, value_enum, default_value_t = KernelTimersArg::TimerList)]
    pub ftrace_timers: KernelTimersArg,
    /// Keep only the timers of this CPU in an --ftrace import (default: every
    /// CPU's timers as one queue).
    #[arg(long, value_name = "N")]
    pub ftrace_cpu: Option<u32>,
    /// Seed of every random stream.
    #[arg(long, default_value_t = crate::DEFAULT_SEED)]
    pub seed: u64,
    /// Size of the built-in workloads.
    #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
    pub scale: ScaleArg,
}

impl Chosen {
    /// The names and files asked for, not yet checked.
    pub fn choice(self) -> Choice {
        Choice {
            algorithms: self.algorithms,
            params: self.params,
            workloads: self.workloads,
            files: Inputs {
                specs: self.specs,
                traces: self.traces,
                ftraces: self.ftraces,
                ftrace: FtraceOptions {
                    timers: self.ftrace_timers.into(),
                    cpu: self.ftrace_cpu,
                    hz: None,
                },
            },
            seed: self.seed,
            scale: self.scale.into(),
        }
    }
}

// `timerbench run`'s flags.
#[allow(missing_docs)]
#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub chosen: Chosen,
    /// How the clock is advanced between operations.
    #[arg(long, value_enum, default_value_t = DriverArg::Event)]
    pub driver: DriverArg,
    /// Directory for the result files. Without it, a new directory
    /// `runs/<run id>/` (git-ignored), so that a run never replaces the
    /// committed reference run in `results/` unless asked to (`--out results`,
    /// as `make results` does).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Timed repetitions of each (algorithm, workload) pass, in a seeded
    /// interleaved order; 6 or more give every median a 95% interval.
    #[arg(long, default_value_t = DEFAULT_REPEAT, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT))]
    pub repeat: u32,
    /// Batched passes (the per-operation-kind split) of each (algorithm,
    /// workload), spread evenly over its repetitions; at most --repeat. The
    /// split is a secondary figure and each batched pass costs about as much as
    /// a whole one, so by default it gets fewer; 6 give its medians 95%
    /// intervals too.
    #[arg(long, default_value_t = DEFAULT_BATCHED_REPEAT, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT))]
    pub batched_repeat: u32,
    /// The furthest tick a workload may run to under a ticked wheel (which
    /// may step every tick; it is skipped beyond, with the reason in runs.csv)
    /// or under the tick driver (which advances every tick; such a workload is
    /// refused before anything is measured).
    #[arg(long, default_value_t = bench::DEFAULT_MAX_TICKS, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_ticks: u64,
    /// The most memory, in GiB, the run may be estimated to need (the tape,
    /// the harness's tables and the largest structure, per pending timer; see
    /// `select::memory_estimate`); a workload estimated above it is refused
    /// before anything is generated or measured.
    #[arg(long, default_value_t = select::DEFAULT_MAX_MEMORY_GIB, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory_gib: u64,
    /// Seconds an algorithm's untimed verification pass on a workload may
    /// run before it is stopped and recorded as timed out (runs.csv
    /// `skip_reason`); its timed passes would each take about as long.
    #[arg(long, default_value_t = bench::DEFAULT_BUDGET.as_secs_f64(), value_parser = parse_budget)]
    pub budget: f64,
    /// Also time the heaviest cells: those whose measured phase does more
    /// than 300 million steps of work (a sorted list walking thousands of
    /// entries per insert, seconds a pass). By default they are verified
    /// and skipped, with their work in runs.csv's skip_reason.
    #[arg(long)]
    pub heaviest: bool,
    /// After the single-threaded passes, also run the threaded mode:
    /// producer threads issue each workload's operations against the wall
    /// clock and a timer thread fires them (see --producers, --sharing);
    /// writes threaded.csv beside the other files. Without --algorithms or
    /// --workloads it runs every row (a crate through its native row; no
    /// sweep point) on timeouts and kafka-purgatory.
    #[arg(long)]
    pub threaded: bool,
    /// With --threaded: producer thread counts, comma-separated, each from 1
    /// (this machine has the cores for 1 and 2).
    #[arg(long, value_delimiter = ',', default_values_t = defaults::DEFAULT_PRODUCERS, requires = "threaded",
          value_parser = clap::value_parser!(u32).range(1..=i64::from(defaults::MAX_PRODUCERS)))]
    pub producers: Vec<u32>,
    /// With --threaded: how producers and the timer thread share the queue,
    /// comma-separated: locked (one queue behind a lock: Kafka, the JDK),
    /// handoff (an MPSC queue drained by the timer thread: Netty), sharded
    /// (a queue per producer, advanced by it: Go, Linux).
    #[arg(long, value_enum, value_delimiter = ',', requires = "threaded",
          default_values_t = [SharingArg::Locked, SharingArg::Handoff, SharingArg::Sharded])]
    pub sharing: Vec<SharingArg>,
    /// With --threaded: how many times faster than real time the tapes are
    /// replayed (a tick, 1 ms of virtual time, lasts 1/N ms).
    #[arg(long, default_value_t = defaults::DEFAULT_SPEEDUP, requires = "threaded",
          value_parser = clap::value_parser!(u64).range(1..=defaults::MAX_SPEEDUP))]
    pub speedup: u64,
    /// With --threaded: replay each tape's first TICKS ticks only (its
    /// whole length if shorter); a cell takes TICKS / --speedup ms.
    #[arg(long, value_name = "TICKS", default_value_t = defaults::DEFAULT_WINDOW, requires = "threaded",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub threaded_window: u64,
    /// With --threaded: repetitions of each threaded cell.
    #[arg(long, default_value_t = defaults::DEFAULT_REPEAT, requires = "threaded",
          value_parser = clap::value_parser!(u32).range(1..=MAX_REPEAT))]
    pub threaded_repeat: u32,
    /// With --threaded: the saturating variant, producers issuing their
    /// operations as fast as they can instead of at the workload's rate
    /// (threaded.csv's ops_per_s is then their throughput).
    #[arg(long, requires = "threaded")]
    pub saturate: bool,
}

impl RunArgs {
    /// The config `timerbench run` runs with.
    pub fn config(self) -> RunConfig {
        RunConfig {
            choice: self.chosen.choice(),
            driver: self.driver.into(),
            out: self.out,
            repeat: self.repeat,
            batched_repeat: self.batched_repeat.min(self.repeat),
            max_ticks: self.max_ticks,
            heaviest: self.heaviest,
            max_memory_gib: self.max_memory_gib,
            budget: self.budget,
            threaded: self.threaded.then(|| threaded::pass::Settings {
                producers: unique(self.producers.iter().map(|&p| p as usize)),
                sharings: unique(self.sharing.iter().map(|&s| s.into())),
                speedup: self.speedup,
                window: self.threaded_window,
                repeat: self.threaded_repeat,
                saturate: self.saturate,
            }),
        }
    }
}

/// `items` without repeats, in the order first given.
fn unique<T: PartialEq>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// `--sharing`.
#[allow(missing_docs)]
#[derive(Clone, Copy, ValueEnum)]
pub enum SharingArg {
    Locked,
    Handoff,
    Sharded,
}

impl From<SharingArg> for Sharing {
    fn from(arg: SharingArg) -> Self {
        match arg {
            SharingArg::Locked => Sharing::Locked,
            SharingArg::Handoff => Sharing::Handoff,
            SharingArg::Sharded => Sharing::Sharded,
        }
    }
}

/// The most repetitions accepted: more would only lengthen the run.
const MAX_REPEAT: i64 = 1000;

/// `--ftrace-timers`.
#[allow(missing_docs)]
#[derive(Clone, Copy, ValueEnum)]
pub enum KernelTimersArg {
    TimerList,
    Hrtimer,
}

impl From<KernelTimersArg> for KernelTimers {
    fn from(arg: KernelTimersArg) -> Self {
        match arg {
            KernelTimersArg::TimerList => KernelTimers::TimerList,
            KernelTimersArg::Hrtimer => KernelTimers::Hrtimer,
        }
    }
}

/// `--scale`.
#[allow(missing_docs)]
#[derive(Clone, Copy, ValueEnum)]
pub enum ScaleArg {
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

/// `--driver`.
#[derive(Clone, Copy, ValueEnum)]
pub enum DriverArg {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_a_finite_positive_number_of_seconds_up_to_a_day() {
        assert_eq!(parse_budget("2.5"), Ok(2.5));
        assert_eq!(parse_budget("86400"), Ok(MAX_BUDGET_SECS));
        for bad in ["0", "-1", "NaN", "inf", "86401", "soon"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ops_are_all_or_a_positive_count() {
        assert!(matches!(parse_ops("all"), Ok(Ops::All)));
        assert!(matches!(parse_ops("5"), Ok(Ops::First(5))));
        for bad in ["0", "-3", "some"] {
            assert!(parse_ops(bad).is_err(), "{bad}");
        }
    }
}
