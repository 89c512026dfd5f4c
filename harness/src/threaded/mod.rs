//! The threaded mode: producers on threads of their own issue a workload's
//! operations against the wall clock, and the timers fire on a thread that
//! sleeps until the next expiry, as the systems the suite stands for run them.
//!
//! # The idea
//!
//! Every other figure of the suite comes from one thread replaying a tape in
//! virtual time. What a user of Netty, Kafka or Go feels lives outside that
//! loop: the cost of handing a timer over, contention on a lock, how late a
//! timer really fires against the wall clock, how often the timer thread wakes
//! for nothing. A threaded run measures those. `P` producer threads split the
//! tape's timers (timer `t` belongs to producer `t mod P`, with all its
//! operations: `script`), each issuing its operations at their instants
//! (`producer`); the queue is shared in one of three ways (`sharing`):
//! behind a lock (`locked`), owned by a timer thread that producers hand
//! requests to (`handoff`), or one per producer (`sharded`). The timer
//! thread (or, sharded, each producer between its operations) sleeps until
//! the queue's `next_expiry()`, which for a ticked wheel is the next tick, as
//! Netty's worker sleeps to each tick, then advances the queue to the tick
//! the wall clock has reached and fires what is due (`duty`).
//!
//! # Time
//!
//! A tick is a millisecond of virtual time, and a run is sped up by a
//! constant factor (`Config::speedup`; `pace`): at 10x a tick is 100 us of
//! wall time, so a wheel's 100-tick slot makes it up to 10 ms late on the wall
//! clock, while the scheduling and hand-off delays are not scaled. A run may
//! replay only a window of the tape, its first ticks (`Config::window`), to
//! keep runs short; every threaded figure says which speed-up and window it
//! comes from. The clock starts after every producer has armed its share of
//! the prefill.
//!
//! # Correctness
//!
//! Threads make the outcome of a run vary: a cancel issued a little late can
//! lose to the firing. So a run is not compared with the reference model
//! but tallied exactly (`tally`): every timer fires at most once and only
//! with its latest deadline, never before the deadline's tick nor its wall
//! instant; a cancel that won means it never fires, one that lost means it
//! had fired; every timer still pending at the end is due after it, and the
//! queues hold exactly those. A violation fails the run. The race between a
//! cancel and a firing is resolved by each sharing's contract, written in its
//! module: under `locked` the lock orders them, under `handoff` the first
//! compare-and-set of the timer's state word wins (Netty's), under `sharded`
//! one thread does both. In all three, `cancel` returns `true` exactly when the
//! timer was pending and will never fire.
//!
//! # Cost
//!
//! A run lasts its window divided by the speed-up, plus the prefill. Every
//! row is monomorphised in it ([`run`] is generic over the queue, and
//! [`run_row`] walks `registry::for_each_row` for the concrete type): the
//! contract algorithms and the native rows (a crate or a baseline through its
//! own API), all driven through `Driven`, whose per-timer keys each sharing
//! keeps where its advance can reach them (`locked` under the lock,
//! `handoff` on the timer thread, `sharded` in each shard). The queue and
//! its keys must be `Send` to sit behind `locked`'s lock (two crates' are
//! not, adapter and native row alike, and run the other two sharings only:
//! [`run_local`]). Sweep points are not run threaded.
//!
//! # Admission and presizing
//!
//! A threaded cell admits a row on a workload as the single-threaded passes
//! do, by the same function (`bench::admit`: the pending population, tick
//! and delay within what the row declares, a ticked wheel within
//! `--max-ticks`), once per (row, workload) ([`admit_row`]); a row refused
//! there is a skipped cell, with the reason. Every queue a threaded run
//! builds is made as the single-threaded passes make theirs
//! (`replay::fresh`): with room reserved for the workload's largest pending
//! population (`Config::presize`), so that a threaded figure, like theirs,
//! leaves out the arena's growth. Under `sharded` each producer's queue
//! reserves that whole population, since no share of it is known before
//! the run.
//! The wall clock is read around each producer operation and once per
//! wakeup, never inside the structure.

pub mod cpu;
pub mod defaults;
pub mod duty;
pub mod handoff;
pub mod locked;
pub mod pace;
pub mod pass;
pub mod producer;
pub mod row;
pub mod script;
pub mod sharded;
pub mod sharing;
pub mod tally;

use std::time::Instant;

use algorithms::driven::Driven;
use algorithms::registry::{self, RowVisitor};
use algorithms::variant::{is_variant, row_name};
use algorithms::{Algorithm, Tick};
use hdrhistogram::Histogram;
use workloads::Tape;

use duty::DutyLog;
use producer::{ProducerLog, produce};

use crate::bench::{Prepared, admit};
use crate::passes::new_histogram;
use crate::replay::{Driver, fresh};
use sharing::Sharing;
use tally::{Fate, Tally};

/// How one threaded run is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// How the queue is shared.
    pub sharing: Sharing,
    /// Producer threads (at least 1).
    pub producers: usize,
    /// How many times faster than real time the tape is replayed.
    pub speedup: u64,
    /// Replay only the tape's ticks up to this one (`None`: the whole tape).
    pub window: Option<Tick>,
    /// Whether producers issue their operations as fast as they can instead
    /// of at their instants: the saturating variant, a throughput test (the
    /// timers still fire at their deadlines' instants).
    pub saturate: bool,
    /// Pending timers each queue reserves room for when it is built: the
    /// workload's largest pending population ([`admit_row`]), or 0.
    pub presize: usize,
}

/// What one threaded run measured, after its tally passed.
#[derive(Debug)]
pub struct Cell {
    /// The last tick replayed: the tape's end, or the window's.
    pub end: Tick,
    /// Wall time of the run from the clock's start, in nanoseconds.
    pub wall_ns: u64,
    /// Wall time from the clock's start until the last producer issued its
    /// last operation, in nanoseconds: what the saturating variant's
    /// throughput is over.
    pub issue_ns: u64,
    /// Each measured producer operation's latency, in nanoseconds.
    pub latency: Histogram<u64>,
    /// Each fire's lateness against its deadline's wall instant, in
    /// nanoseconds.
    pub lateness: Histogram<u64>,
    /// Advances of the queue(s) by the timer duty.
    pub wakeups: u64,
    /// Advances that fired nothing.
    pub empty_wakeups: u64,
    /// CPU time of the thread(s) that advanced the queue: the timer thread,
    /// or under `sharded` the producers (which also issue the operations).
    pub timer_cpu_ns: Option<u64>,
    /// CPU time of the producer threads together.
    pub producer_cpu_ns: Option<u64>,
    /// The tally's counts.
    pub tally: Tally,
}

/// Why a threaded run produced no cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The sharing cannot hold this queue (a queue that is not `Send` cannot
    /// sit behind a lock that several threads take): a skip, with the reason.
    Unshareable(String),
    /// The tally found a violation of the contract: a failure.
    Violation(String),
}

/// A sharing's runner: the producers' scripts, the run's config, the timers
/// and the end tick to what the threads recorded.
type Runner = fn(&[script::Script], &Config, u32, Tick) -> Outcome;

/// Runs `tape` threaded under `config` with queue type `Q`, and tallies it.
///
/// # Errors
///
/// The first violation of the contract the tally found.
pub fn run<Q: Algorithm + Driven<Key: Send> + Send>(
    tape: &Tape,
    config: &Config,
) -> Result<Cell, Refusal> {
    let runner = match config.sharing {
        Sharing::Locked => run_locked::<Q> as Runner,
        Sharing::Handoff => run_handoff::<Q>,
        Sharing::Sharded => run_sharded::<Q>,
    };
    run_with::<Q>(tape, config, runner)
}

/// [`run`] for a queue that is not `Send`: it never leaves the thread that
/// built it, which `handoff` (the timer thread builds it) and `sharded` (each
/// producer builds its own) allow, and `locked` does not.
///
/// # Errors
///
/// [`Refusal::Unshareable`] under `locked`; else as [`run`].
pub fn run_local<Q: Algorithm + Driven>(tape: &Tape, config: &Config) -> Result<Cell, Refusal> {
    let runner = match config.sharing {
        Sharing::Locked => {
            return Err(Refusal::Unshareable(format!(
                "{} is not Send (the crate's structure holds Rc or raw pointers), so no lock can \
                 share it between threads",
                row_name::<Q>()
            )));
        }
        Sharing::Handoff => run_handoff::<Q> as Runner,
        Sharing::Sharded => run_sharded::<Q>,
    };
    run_with::<Q>(tape, config, runner)
}

/// Runs `tape` with `runner` and tallies what its threads recorded.
fn run_with<Q: Algorithm>(tape: &Tape, config: &Config, runner: Runner) -> Result<Cell, Refusal> {
    let producers = config.producers.max(1);
    let end = config
        .window
        .map_or(tape.end, |window| window.min(tape.end));
    let scripts = script::split(tape, producers, end);
    let timers = tape.timers;
    let (logs, duties, queued, wall_ns) = runner(&scripts, config, timers, end);
    let mut fates = vec![Fate::default(); timers as usize];
    for (timer, fate) in fates.iter_mut().enumerate() {
        let timer = timer as u32;
        if let Some(log) = logs.get(script::owner(timer, producers)) {
            *fate = log.fates[script::slot(timer, producers)];
        }
    }
    let fires: Vec<tally::Fire> = duties
        .iter()
        .flat_map(|d| d.fires.iter().copied())
        .collect();
    let due_by = |deadline: Tick| {
        if Q::EXACT {
            deadline
        } else {
            deadline.saturating_add(Q::lateness_bound(deadline.max(1)))
        }
    };
    let instant_ns = |deadline: Tick| pace::tick_nanos(deadline, config.speedup);
    let tally = tally::check(&fates, &fires, queued, end, due_by, instant_ns)
        .map_err(Refusal::Violation)?;
    let mut latency = new_histogram();
    for log in &logs {
        latency
            .add(&log.latency)
            .expect("histograms of one precision add");
    }
    let mut lateness = new_histogram();
    for fire in &fires {
        // Against the producer's deadline, which the tally has just checked
        // the fire is not early for.
        let deadline = fates[fire.timer as usize].deadline;
        let late = tally::late_nanos(fire.at_ns, instant_ns(deadline));
        lateness.saturating_record(u64::try_from(late).unwrap_or(0));
    }
    let producer_cpu_ns = sum(logs.iter().map(|log| log.cpu_ns));
    let timer_cpu_ns = match config.sharing {
        Sharing::Sharded => producer_cpu_ns,
        Sharing::Locked | Sharing::Handoff => sum(duties.iter().map(|d| d.cpu_ns)),
    };
    Ok(Cell {
        end,
        wall_ns,
        issue_ns: logs.iter().map(|log| log.issue_ns).max().unwrap_or(0),
        latency,
        lateness,
        wakeups: duties.iter().map(|d| d.wakeups).sum(),
        empty_wakeups: duties.iter().map(|d| d.empty_wakeups).sum(),
        timer_cpu_ns,
        producer_cpu_ns,
        tally,
    })
}

/// The sum of figures that are all known, or `None`.
fn sum(figures: impl Iterator<Item = Option<u64>>) -> Option<u64> {
    figures.sum()
}

/// What the three runners hand back: each producer's log, each duty's log,
/// the timers left in the queues, and the wall time from the clock's start.
type Outcome = (Vec<ProducerLog>, Vec<DutyLog>, usize, u64);

/// Wall nanoseconds since `start`.
fn since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

fn run_locked<Q: Algorithm + Driven<Key: Send> + Send>(
    scripts: &[script::Script],
    config: &Config,
    timers: u32,
    end: Tick,
) -> Outcome {
    let producers = scripts.len();
    let shared = locked::Shared::new(fresh::<Q>(config.presize), producers, timers);
    let gate = pace::StartGate::new(producers + 1, config.speedup);
    let began = Instant::now();
    let (logs, duty) = std::thread::scope(|scope| {
        let timer = scope.spawn(|| locked::timer_thread(&shared, &gate, end));
        let logs = run_producers(scope, scripts, &gate, config, timers, || {
            locked::LockedFront::new(shared.clone())
        });
        (logs, join(timer))
    });
    let queued = shared.close();
    (logs, vec![duty], queued, since(began))
}

fn run_handoff<Q: Algorithm + Driven>(
    scripts: &[script::Script],
    config: &Config,
    timers: u32,
    end: Tick,
) -> Outcome {
    let producers = scripts.len();
    let handoff = handoff::Handoff::new(producers, timers);
    let gate = pace::StartGate::new(producers + 1, config.speedup);
    let began = Instant::now();
    let (logs, (duty, queued)) = std::thread::scope(|scope| {
        // The timer thread builds the queue it owns, which therefore never
        // crosses a thread.
        let timer = scope
            .spawn(|| handoff::timer_thread(&handoff, || fresh::<Q>(config.presize), &gate, end));
        let logs = run_producers(scope, scripts, &gate, config, timers, || {
            handoff.front::<Q>()
        });
        (logs, join(timer))
    });
    (logs, vec![duty], queued, since(began))
}

fn run_sharded<Q: Algorithm + Driven>(
    scripts: &[script::Script],
    config: &Config,
    timers: u32,
    end: Tick,
) -> Outcome {
    let producers = scripts.len();
    let gate = pace::StartGate::new(producers, config.speedup);
    let began = Instant::now();
    let results: Vec<(ProducerLog, DutyLog, usize)> = std::thread::scope(|scope| {
        let workers: Vec<_> = scripts
            .iter()
            .map(|script| {
                let gate = &gate;
                scope.spawn(move || {
                    let mut front =
                        sharded::ShardedFront::new(fresh::<Q>(config.presize), timers, end);
                    let log = produce(&mut front, script, gate, producers, timers, config.saturate);
                    let queued = front.close();
                    (log, front.log, queued)
                })
            })
            .collect();
        workers.into_iter().map(join).collect()
    });
    let queued = results.iter().map(|r| r.2).sum();
    let (logs, duties) = results.into_iter().map(|(l, d, _)| (l, d)).unzip();
    (logs, duties, queued, since(began))
}

/// Starts a producer thread per script, each with a front `make` builds
/// (on this thread, in script order), and returns their logs once all have
/// ended: the producers' side of the `locked` and `handoff` sharings, whose
/// timer thread the caller starts first.
fn run_producers<'scope, 'env, F>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    scripts: &'env [script::Script],
    gate: &'env pace::StartGate,
    config: &'env Config,
    timers: u32,
    mut make: impl FnMut() -> F,
) -> Vec<ProducerLog>
where
    F: producer::Front + Send + 'scope,
{
    let producers = scripts.len();
    let workers: Vec<_> = scripts
        .iter()
        .map(|script| {
            let mut front = make();
            scope.spawn(move || {
                produce(&mut front, script, gate, producers, timers, config.saturate)
            })
        })
        .collect();
    workers.into_iter().map(join).collect()
}

/// Joins a thread of the run, passing on its panic.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Runs `tape` threaded with the registered row named `name` (a contract
/// algorithm or a native row): `None` if no such row has that name (sweep
/// points are not run threaded).
pub fn run_row(name: &str, tape: &Tape, config: &Config) -> Option<Result<Cell, Refusal>> {
    struct Find<'a> {
        name: &'a str,
        tape: &'a Tape,
        config: &'a Config,
        result: Option<Result<Cell, Refusal>>,
    }
    impl Find<'_> {
        fn wanted<Q: Algorithm>(&self) -> bool {
            self.result.is_none() && is_row::<Q>() && row_name::<Q>() == self.name
        }
    }
    impl RowVisitor for Find<'_> {
        fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
            if self.wanted::<Q>() {
                self.result = Some(run_local::<Q>(self.tape, self.config));
            }
        }
        fn visit_send<Q: Algorithm + Driven<Key: Send> + Send + 'static>(&mut self) {
            if self.wanted::<Q>() {
                self.result = Some(run::<Q>(self.tape, self.config));
            }
        }
    }
    let mut find = Find {
        name,
        tape,
        config,
        result: None,
    };
    registry::for_each_row(&mut find);
    find.result
}

/// Whether the registered row `name` may run on `prepared`'s workload, by
/// the single-threaded passes' rule (`bench::admit`, under the event
/// driver, as the timer thread sleeps to each next expiry): `Ok` with the
/// largest pending population to presize its queues for, `Err` with the
/// reason it is skipped; `None` if no row the threaded mode runs has that
/// name.
pub fn admit_row(name: &str, prepared: &Prepared) -> Option<Result<usize, String>> {
    struct Admit<'a> {
        name: &'a str,
        prepared: &'a Prepared,
        result: Option<Result<usize, String>>,
    }
    impl RowVisitor for Admit<'_> {
        fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
            if self.result.is_none() && is_row::<Q>() && row_name::<Q>() == self.name {
                self.result = Some(
                    admit::<Q>(self.prepared, Driver::Event, None).map(|(_, pending)| pending),
                );
            }
        }
    }
    let mut visitor = Admit {
        name,
        prepared,
        result: None,
    };
    registry::for_each_row(&mut visitor);
    visitor.result
}

/// The names of the rows a threaded run can use: every contract algorithm
/// and every native row, in the registry's order.
pub fn rows() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl RowVisitor for Names {
        fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
            if is_row::<Q>() {
                self.0.push(row_name::<Q>());
            }
        }
    }
    let mut names = Names(Vec::new());
    registry::for_each_row(&mut names);
    names.0
}

/// Whether the threaded mode runs `Q`: every row but a sweep point.
fn is_row<Q: Algorithm>() -> bool {
    !is_variant::<Q>()
}
