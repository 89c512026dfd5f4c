//! Running every selected algorithm on one prepared workload: the executor of
//! the run plan.
//!
//! The reference model is run once per workload, exactly (every timer due at its
//! deadline), and every exact algorithm is checked against that run. An inexact
//! algorithm (`Algorithm::EXACT == false`) fires timers late, at
//! `Algorithm::due_at`, so it gets a reference run of its own, with the model
//! firing at that algorithm's due ticks; checking it against the exact run would
//! reject it, and checking it against nothing would trust its declaration.
//!
//! Order of work for one workload ([`run_workload`]):
//!
//! 1. Per selected algorithm, in registry order, the untimed work
//!    ([`Contender::check`]): for an inexact algorithm its own reference run;
//!    the skip, with the reason, if the workload keeps more timers pending than
//!    the algorithm's declared `PENDING_LIMIT`; the verification pass, which
//!    must reproduce the reference checksum of every (timer, fire tick) and every
//!    cancel's outcome (a difference is a hard error naming the algorithm) and
//!    gives the work counters, driver wakeups, lateness and peak memory; and the
//!    latency pass (every operation timed alone into a histogram).
//! 2. The timed passes, in the order of the run plan (`crate::plan`): every
//!    measured algorithm and the replay-overhead probe ([`NullQueue`]), each
//!    repetition a block in a seeded random order. A **whole** pass reads the
//!    clock once before and once after the measured phase, replayed with
//!    [`Untimed`] hooks: only the replay loop and the queue's own work are
//!    inside. A **batched** pass splits the time by operation kind
//!    ([`Throughput`]); a sweep point (a variant) runs none, since only its
//!    whole pass is ever shown.
//!
//! Every pass builds a fresh queue with the algorithm's defaults and replays the
//! prefill untimed, so no pass warms the next one's data structure.

use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use algorithms::arena::Arena;
use algorithms::driven;
use algorithms::reference::{ModelHandle, ReferenceModel};
use algorithms::registry::{self, Payload, RowVisitor};
use algorithms::variant::{is_variant, row_name};
use algorithms::{Algorithm, Counter, Counters, Expired, Family, Handle, Tick, TimerQueue};
use hdrhistogram::Histogram;
use workloads::{Op, Tape};

use crate::alloc;
use crate::passes::{Batches, Latency, OverBudget, Throughput, Untimed, Verify, elapsed_ns};
use crate::plan::{self, Ask, Pass};
use crate::replay::{
    Buffers, Checksum, Driver, Hooks, idle, prefilled, replay, replay_measured, retire,
};

/// A workload ready to be replayed: its tape and what the exact reference model
/// did.
pub struct Prepared {
    /// The operation tape.
    pub tape: Tape,
    /// The exact reference model's checksum under the run's driver.
    pub checksum: Checksum,
    /// The exact reference's largest pending population.
    pub max_pending: usize,
    /// The latest tick the tape reaches: its end, or a later deadline.
    pub max_tick: Tick,
    /// The longest delay on the tape: an insert's or reschedule's deadline
    /// minus its tick.
    pub max_delay: Tick,
    /// The last tick a ticked algorithm ([`Algorithm::TICKED`]) may be run to:
    /// [`DEFAULT_MAX_TICKS`] unless set with [`Prepared::with_max_ticks`].
    pub max_ticks: Tick,
}

/// The default limit on the ticks a workload may run to under a ticked
/// algorithm or the tick driver, which may step each one: 2^30, about 10^9,
/// ten times the furthest built-in (`sparse` at large scale, 10^8) and at one
/// to five nanoseconds a step, a few seconds a pass.
pub const DEFAULT_MAX_TICKS: Tick = 1 << 30;

impl Prepared {
    /// Replays `tape` against the exact reference model under `driver`.
    pub fn new(tape: Tape, driver: Driver) -> Self {
        match Self::within(tape, driver, None) {
            Ok(prepared) => prepared,
            Err(_) => unreachable!("a reference run with no deadline never stops early"),
        }
    }

    /// [`Prepared::new`], stopped at `deadline` when there is one: the tick
    /// driver steps the reference model through every tick to the tape's
    /// end, which a trace can put at 2^62. `Err` holds the operations
    /// replayed by then.
    pub fn within(tape: Tape, driver: Driver, deadline: Option<Instant>) -> Result<Self, u64> {
        let (mut max_tick, mut max_delay) = (tape.end, 0);
        for op in &tape.ops {
            if let Op::Insert { deadline, .. } | Op::Reschedule { deadline, .. } = op.op {
                max_tick = max_tick.max(deadline);
                max_delay = max_delay.max(deadline.saturating_sub(op.at));
            }
        }
        let mut prepared = Self {
            tape,
            checksum: Checksum::default(),
            max_pending: 0,
            max_tick,
            max_delay,
            max_ticks: DEFAULT_MAX_TICKS,
        };
        (prepared.checksum, prepared.max_pending) =
            prepared.reference_run(ReferenceModel::new(), driver, deadline)?;
        Ok(prepared)
    }

    /// The same, with `max_ticks` as the limit for ticked algorithms.
    #[must_use]
    pub fn with_max_ticks(mut self, max_ticks: Tick) -> Self {
        self.max_ticks = max_ticks;
        self
    }

    /// What the reference model does on the tape when it fires timers at
    /// `due_at`: the checksum `Q` must match, and the largest pending population.
    /// The exact run is shared (it was made by [`Prepared::new`]); an inexact
    /// algorithm's is made here, from its own due ticks.
    /// The run stops at `deadline`, when there is one, as
    /// [`Prepared::within`]'s does.
    pub fn reference_for<Q: Algorithm>(
        &self,
        driver: Driver,
        deadline: Option<Instant>,
    ) -> Result<(Checksum, usize), u64> {
        if Q::EXACT {
            Ok((self.checksum, self.max_pending))
        } else {
            self.reference_run(ReferenceModel::with_due_at(Q::due_at), driver, deadline)
        }
    }

    /// The reference model's replay of the whole tape, stopped at `deadline`
    /// (checked as the verification pass checks its budget, at every
    /// operation and every advance, so at every tick of the tick driver):
    /// `Err` holds the operations replayed by then.
    fn reference_run(
        &self,
        model: ReferenceModel<Payload>,
        driver: Driver,
        deadline: Option<Instant>,
    ) -> Result<(Checksum, usize), u64> {
        let mut reference = Reference {
            model,
            handles: Arena::new(),
        };
        let mut verify = Verify::new(self.tape.timers as usize);
        if let Some(deadline) = deadline {
            verify.stop_at(deadline);
        }
        let mut buffers = Buffers::default();
        let replayed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            replay(
                &mut reference,
                &self.tape,
                0..self.tape.ops.len(),
                true,
                driver,
                &mut buffers,
                &mut verify,
            );
        }));
        match replayed {
            Ok(()) => Ok((verify.checksum, verify.max_pending)),
            Err(payload) => match payload.downcast_ref::<OverBudget>() {
                Some(over) => Err(over.ops),
                None => std::panic::resume_unwind(payload),
            },
        }
    }
}

/// The reference model behind the `TimerQueue` trait, so the same replay code
/// drives it. Its handles map to the model's own through an arena.
struct Reference {
    model: ReferenceModel<Payload>,
    handles: Arena<ModelHandle>,
}

impl TimerQueue<Payload> for Reference {
    fn insert(&mut self, deadline: Tick, payload: Payload) -> Handle {
        let handle = self.model.insert(deadline, payload);
        self.handles.insert(handle)
    }

    fn cancel(&mut self, handle: Handle) -> Option<Payload> {
        self.model.cancel(self.handles.remove(handle)?)
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        let moved = self
            .model
            .reschedule(*self.handles.get(handle)?, deadline)?;
        *self.handles.get_mut(handle)? = moved;
        Some(handle)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<Payload>>) {
        self.model.advance(now, out);
    }

    fn next_expiry(&self) -> Option<Tick> {
        self.model.next_expiry()
    }

    fn now(&self) -> Tick {
        self.model.now()
    }

    fn len(&self) -> usize {
        self.model.len()
    }

    fn counters(&self) -> Counters {
        Counters::default()
    }
}

/// What happened to one (algorithm, workload).
pub enum Outcome {
    /// Measured.
    Measured(Box<Measurement>),
    /// Not run, and why.
    Skipped(String),
}

/// One timed pass as it ran: which repetition, where in the plan, what it took.
#[derive(Clone, Copy, Debug)]
pub struct Rep<T> {
    /// The repetition (block of the plan), from 0.
    pub repetition: u32,
    /// The pass's position in the workload's plan, from 0.
    pub position: u32,
    /// What it measured.
    pub value: T,
}

/// The figures of one measured (algorithm, workload).
pub struct Measurement {
    /// Work counters of the measured phase (after prefill).
    pub counters: Counters,
    /// [`Algorithm::UNCOUNTED`]: the counters that mean nothing for it.
    pub uncounted: &'static [Counter],
    /// Driver advance calls in the measured phase.
    pub wakeups: u64,
    /// Of those, calls that fired nothing.
    pub empty_wakeups: u64,
    /// Cancels that found their timer pending (whole run).
    pub cancel_hits: u64,
    /// Reschedules that found their timer pending (whole run).
    pub reschedule_hits: u64,
    /// Timers fired (whole run).
    pub fired: u64,
    /// The largest pending population (whole run): the exact reference's, or
    /// for an inexact algorithm, whose late timers stay pending longer, its own.
    pub max_pending: usize,
    /// The largest `fire tick - max(deadline, insert tick)`.
    pub max_lateness: Tick,
    /// The run's checksum (equal to the reference's, or the run is an error).
    pub checksum: Checksum,
    /// Peak bytes held by the queue during the verification pass.
    pub peak_bytes: u64,
    /// What the queue still held when the verification pass's measured phase
    /// ended, and after the quiet period that follows it (see [`Retained`]).
    pub retained: Retained,
    /// Allocation calls during the measured phase of the first whole pass.
    pub allocs_measured: u64,
    /// Nanoseconds of each whole pass's measured phase.
    pub whole: Vec<Rep<u64>>,
    /// Each batched pass's totals per operation kind.
    pub batched: Vec<Rep<Batches>>,
    /// Per-operation latency histograms.
    pub latency: Latency,
    /// Wall time of every pass, in milliseconds.
    pub wall_ms: u64,
}

/// The memory a queue keeps after the work is done: its heap bytes, and the
/// timers still pending, at the end of the verification pass's measured phase
/// and again after a quiet period ([`quiet_until`]) in which nothing is
/// inserted, cancelled or moved and the driver only fires what falls due. A
/// queue that frees what it no longer needs holds about its pending timers'
/// worth; one that keeps cancelled entries until their slot comes round, or
/// the capacity of its largest moment, holds more (`mass-cancel` shows it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retained {
    /// Heap bytes held at the end of the measured phase.
    pub end_bytes: u64,
    /// Timers pending then.
    pub end_pending: u64,
    /// Heap bytes held after the quiet period.
    pub quiet_bytes: u64,
    /// Timers pending then.
    pub quiet_pending: u64,
}

/// Where the quiet period after a measured phase ending at `end` stops: as
/// long again as the measured phase, cut short at the last tick `Q` takes
/// ([`Algorithm::TICK_LIMIT`]) and, for a ticked wheel, at the run's
/// `max_ticks`, so that it never asks of an algorithm what admitting it did
/// not check; never before `end`.
pub fn quiet_until<Q: Algorithm>(end: Tick, max_ticks: Tick) -> Tick {
    let mut until = end.saturating_mul(2).min(Q::TICK_LIMIT);
    if Q::TICKED {
        until = until.min(max_ticks);
    }
    until.max(end)
}

/// One algorithm's result on one workload.
pub struct AlgorithmResult {
    /// [`Algorithm::NAME`].
    pub algorithm: &'static str,
    /// [`Algorithm::params`] of the defaults.
    pub params: String,
    /// [`Algorithm::COUNTS_WORK`]: whether the counters mean anything.
    pub counts_work: bool,
    /// [`Algorithm::NATIVE_OF`]: for a native row, its contract row.
    pub native_of: Option<&'static str>,
    /// Whether it is a variant, a point of a parameter sweep only
    /// ([`algorithms::variant::is_variant`]): it is compared with the
    /// workload's best design, and is never that best itself.
    pub variant: bool,
    /// Measured or skipped.
    pub outcome: Outcome,
}

/// A checksum that differs from the reference model's.
#[derive(Debug)]
pub struct Mismatch {
    /// The algorithm that disagreed.
    pub algorithm: &'static str,
    /// Its checksum.
    pub got: Checksum,
    /// The reference model's.
    pub want: Checksum,
}

/// Everything measured on one workload.
pub struct WorkloadResult {
    /// Per selected algorithm, in registry order.
    pub results: Vec<AlgorithmResult>,
    /// Nanoseconds of each whole pass of the replay-overhead probe.
    pub overhead: Vec<Rep<u64>>,
}

/// How a workload is run: the repetitions and the seed of the plan's order.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The event or tick driver.
    pub driver: Driver,
    /// Timed repetitions of the whole pass.
    pub repeat: u32,
    /// Batched passes of each contender that runs them, spread over its
    /// repetitions (`plan::has_batched`).
    pub batched_repeat: u32,
    /// Seed of the run plan's shuffle.
    pub plan_seed: u64,
    /// The longest an algorithm's untimed verification pass may run before
    /// it is stopped and the algorithm recorded as timed out on the workload
    /// (`timerbench run --budget`).
    pub budget: Duration,
    /// Steps of work in the measured phase above which a verified cell is
    /// not timed ([`OPT_IN_WORK`] by default, `u64::MAX` under
    /// `timerbench run --heaviest`).
    pub opt_in_work: u64,
}

/// The default `--budget`: 60 seconds for one verification pass, several
/// times the longest a default cell's pass takes (`sorted-list` on
/// `periodic`, whose passes take seconds each: `wall_ms` in `runs.csv` over
/// its passes).
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(60);

/// What [`run_workload`] reports as it goes, for a progress display.
pub enum Step<'a> {
    /// The untimed passes of an algorithm start.
    Checking(&'a str),
    /// A timed pass starts: (algorithm, pass, repetition).
    Timing(&'a str, Pass, u32),
}

/// The shared state of a workload's passes: the tape and the driver. The
/// buffers a replay works in belong to each contender (their keys are of the
/// contender's own type), made once and presized, so no measured pass grows
/// them.
pub struct Workbench<'a> {
    prepared: &'a Prepared,
    driver: Driver,
    budget: Duration,
    opt_in_work: u64,
}

impl<'a> Workbench<'a> {
    /// A workbench for `prepared` under `settings`' driver, whose
    /// verification passes stop after its budget.
    pub fn new(prepared: &'a Prepared, settings: &Settings) -> Self {
        Self {
            prepared,
            driver: settings.driver,
            budget: settings.budget,
            opt_in_work: settings.opt_in_work,
        }
    }

    /// Buffers for one contender's replays of this workload: a key per timer,
    /// and room for `max_batch` fired timers (a batch never holds more timers
    /// than were ever pending, so neither grows inside a measured pass).
    fn buffers<K>(&self, max_batch: usize) -> Buffers<K> {
        Buffers::with_capacity(self.prepared.tape.timers as usize, max_batch)
    }

    /// A fresh queue with `Q`'s defaults, room for `max_pending` timers (see
    /// [`TimerQueue::reserve`]), and the prefill replayed into it with `hooks`.
    fn prefilled<Q: Algorithm + driven::Driven, H: Hooks<Q>>(
        &self,
        buffers: &mut Buffers<Q::Key>,
        max_pending: usize,
        hooks: &mut H,
    ) -> Q {
        prefilled(
            &self.prepared.tape,
            self.driver,
            max_pending,
            buffers,
            hooks,
        )
    }

    /// Replays the measured phase, and the advance to the tape's end, with `hooks`.
    fn replay_measured<Q: driven::Driven, H: Hooks<Q>>(
        &self,
        queue: &mut Q,
        buffers: &mut Buffers<Q::Key>,
        hooks: &mut H,
    ) {
        replay_measured(queue, &self.prepared.tape, self.driver, buffers, hooks);
    }

    /// Reads what `queue` holds at the end of its measured phase, lets it sit
    /// through the quiet period ([`quiet_until`]) and reads it again; bytes
    /// are counted above `baseline`, the live bytes before the queue was made.
    /// Untimed, and after the checksum's last event, so it changes no figure
    /// but these.
    fn quiet_period<Q: Algorithm + driven::Driven>(
        &self,
        queue: &mut Q,
        buffers: &mut Buffers<Q::Key>,
        baseline: u64,
    ) -> Retained {
        let held = || alloc::snapshot().live.saturating_sub(baseline);
        let (end_bytes, end_pending) = (held(), queue.len() as u64);
        let until = quiet_until::<Q>(self.prepared.tape.end, self.prepared.max_ticks);
        idle(queue, until, self.driver, buffers, &mut Untimed);
        Retained {
            end_bytes,
            end_pending,
            quiet_bytes: held(),
            quiet_pending: queue.len() as u64,
        }
    }

    /// A whole pass: the measured phase between two clock reads, with nothing
    /// timed inside. Returns the nanoseconds and the allocation calls made.
    fn whole<Q: Algorithm + driven::Driven>(
        &self,
        buffers: &mut Buffers<Q::Key>,
        max_pending: usize,
    ) -> (u64, u64) {
        let mut queue: Q = self.prefilled(buffers, max_pending, &mut Untimed);
        let calls_before = alloc::snapshot().calls;
        let start = Instant::now();
        self.replay_measured(&mut queue, buffers, &mut Untimed);
        let ns = elapsed_ns(start, Instant::now());
        let allocs = alloc::snapshot().calls - calls_before;
        retire(queue, buffers);
        (ns, allocs)
    }

    /// A batched pass: the measured phase timed per run of one operation kind.
    fn batched<Q: Algorithm + driven::Driven>(
        &self,
        buffers: &mut Buffers<Q::Key>,
        max_pending: usize,
    ) -> Batches {
        let mut queue: Q = self.prefilled(buffers, max_pending, &mut Untimed);
        let mut throughput = Throughput::start();
        self.replay_measured(&mut queue, buffers, &mut throughput);
        let batches = throughput.finish();
        retire(queue, buffers);
        batches
    }
}

/// One contender of a workload's plan: an algorithm (or the overhead probe)
/// with its concrete type erased, so the plan can call them in any order. The
/// calls are dynamic, the passes inside them monomorphised.
pub trait Contender {
    /// Its name.
    fn name(&self) -> &'static str;
    /// The untimed passes (see the module documentation); `Ok(None)` when it
    /// runs the timed passes, `Ok(Some(reason))` when it is skipped.
    fn check(&mut self, bench: &mut Workbench<'_>) -> Result<Option<String>, Mismatch>;
    /// One timed pass.
    fn time(&mut self, bench: &mut Workbench<'_>, pass: Pass, rep: Rep<()>);
    /// Whether it runs batched passes (the overhead probe does not).
    fn batched(&self) -> bool {
        true
    }
    /// Its repetitions, once checked: `requested`, or [`HEAVY_REPEAT`] for a
    /// contender whose verification did more than [`HEAVY_WORK_PER_OP`] steps
    /// of work per operation.
    fn repetitions(&self, requested: u32) -> u32 {
        requested
    }
    /// What it measured, once the plan is done.
    fn finish(self: Box<Self>) -> AlgorithmResult;
}

/// Steps of work per measured operation (the algorithm's own counters: slot
/// visits, entries examined, cascades, insert and reschedule scan steps) above which a
/// contender is **heavy**: a sorted list walking ten thousand entries per
/// insert, a ticked wheel stepping through hours of empty slots. A heavy cell
/// is hundreds of times slower than the best; repeating it as often as the
/// rest would spend most of the run on figures nobody needs to the percent.
pub const HEAVY_WORK_PER_OP: f64 = 100.0;
/// Repetitions of a heavy contender (when fewer are asked, those). The rule
/// uses the deterministic counters, not a time, so the plan is the same on
/// every run. Below [`schema::MIN_REPETITIONS`], a heavy cell's figure is its
/// median alone: no interval, and it ties with nothing (it is never near the
/// best, which is why it is heavy).
pub const HEAVY_REPEAT: u32 = 3;
/// Batched passes of a heavy contender (when fewer are asked, those): its
/// per-kind split is a figure without an interval either way, and each pass
/// of a heavy cell costs seconds, so one stands for it; `runs.csv` records
/// it (`batched_repetitions`).
pub const HEAVY_BATCHED: u32 = 1;

/// The batched passes of a contender that asks for `asked` of them (`None`:
/// it runs none) and was given `repeat` of the `requested` whole passes:
/// [`HEAVY_BATCHED`] for a heavy one (the only kind given fewer than
/// requested), else as many as asked, at most one per whole pass.
pub fn batched_passes(asked: Option<u32>, requested: u32, repeat: u32) -> u32 {
    match asked {
        None => 0,
        Some(asked) if repeat < requested => asked.min(HEAVY_BATCHED),
        Some(asked) => asked.min(repeat),
    }
}

/// Steps of work in the measured phase, from an algorithm's counters: slot
/// visits, entries examined, cascades, insert and reschedule scan steps.
pub fn work_steps(counters: &Counters) -> u64 {
    counters.slot_visits
        + counters.entries_examined_not_due
        + counters.cascades
        + counters.insert_scan_steps
        + counters.reschedule_scan_steps
}

/// Steps of work per measured operation, from an algorithm's counters.
pub fn work_per_op(counters: &Counters, measured_ops: usize) -> f64 {
    work_steps(counters) as f64 / measured_ops.max(1) as f64
}

/// Steps of work in a cell's measured phase above which, verified, it is
/// not timed unless asked (`timerbench run --heaviest`). Such a cell is
/// thousands of times slower than the best, and each of its passes takes
/// seconds: at the default scale `sorted-list` on `periodic` walks 1.1
/// billion entries a pass, 8 s each, an eighth of the whole run for one cell
/// of 547; the next, on `scaling-1e4`, 0.33 billion. The rule is on the
/// deterministic counters, so the same cells are left out on every run, and
/// the verification they pass is still run: their checksum is checked, and
/// the skip says what their work was. Three hundred million sits between
/// those two and everything else at the default scale (the most below it,
/// `sorted-list` on `kernel-timeouts`, does 0.22 billion in under a second a
/// pass).
pub const OPT_IN_WORK: u64 = 300_000_000;

/// The skip reason of a verified cell whose measured phase did `steps` steps
/// of work over `measured` operations, above `limit`.
fn opted_out(steps: u64, measured: usize, limit: u64) -> String {
    format!(
        "not timed by default: verified, but its measured phase does {steps} steps of work ({:.0} \
         per operation), above the {limit} past which each pass takes seconds; \
         `timerbench run --heaviest` times it",
        steps as f64 / measured.max(1) as f64
    )
}

/// The contender for algorithm `Q`.
struct Typed<Q: driven::Driven> {
    max_pending: usize,
    measured_ops: usize,
    measurement: Option<Measurement>,
    skipped: Option<String>,
    /// Its replays' buffers, made when it is checked.
    buffers: Buffers<Q::Key>,
    _queue: PhantomData<fn() -> Q>,
}

impl<Q: driven::Driven> Typed<Q> {
    fn new() -> Self {
        Self {
            max_pending: 0,
            measured_ops: 0,
            measurement: None,
            skipped: None,
            buffers: Buffers::default(),
            _queue: PhantomData,
        }
    }
}

impl<Q: Algorithm + driven::Driven> Contender for Typed<Q> {
    fn name(&self) -> &'static str {
        row_name::<Q>()
    }

    fn check(&mut self, bench: &mut Workbench<'_>) -> Result<Option<String>, Mismatch> {
        let started = Instant::now();
        // Only the tick driver's reference run can outgrow the tape (it steps
        // every tick to its end), so only it has a deadline.
        let reference_deadline = (bench.driver == Driver::Tick).then_some(started + bench.budget);
        let (want, max_pending) = match admit::<Q>(bench.prepared, bench.driver, reference_deadline)
        {
            Ok(admitted) => admitted,
            Err(reason) => {
                self.skipped = Some(reason.clone());
                return Ok(Some(reason));
            }
        };
        self.max_pending = max_pending;
        self.measured_ops = bench.prepared.tape.ops.len() - bench.prepared.tape.prefill;
        // The buffers, with the output presized for the largest batch this
        // algorithm can fire, so that no measured pass grows it.
        self.buffers = bench.buffers(max_pending);
        let buffers = &mut self.buffers;

        // Verification pass, with the queue's memory (the pass's own table is
        // allocated before the peak is reset, so it is not counted).
        let mut verify = Verify::new(bench.prepared.tape.timers as usize);
        alloc::reset_peak();
        let baseline = alloc::snapshot().live;
        let mut queue: Q = bench.prefilled(buffers, max_pending, &mut verify);
        let counters_at_prefill = queue.counters();
        let (wakeups_at_prefill, empty_at_prefill) = (verify.wakeups, verify.empty_wakeups);
        // The budget stops the measured phase between two operations (see
        // `OverBudget`); any other panic goes on up.
        let ops_at_prefill = verify.ops;
        verify.stop_at(started + bench.budget);
        let replayed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            bench.replay_measured(&mut queue, buffers, &mut verify);
        }));
        if let Err(payload) = replayed {
            let Some(over) = payload.downcast_ref::<OverBudget>() else {
                std::panic::resume_unwind(payload)
            };
            retire(queue, buffers);
            let reason = timed_out(bench.budget, over.ops - ops_at_prefill, self.measured_ops);
            self.skipped = Some(reason.clone());
            return Ok(Some(reason));
        }
        let counters = queue.counters().since(&counters_at_prefill);
        let peak_bytes = alloc::snapshot().peak.saturating_sub(baseline);
        let retained = bench.quiet_period(&mut queue, buffers, baseline);
        retire(queue, buffers);
        if verify.checksum != want {
            return Err(Mismatch {
                algorithm: row_name::<Q>(),
                got: verify.checksum,
                want,
            });
        }
        let steps = work_steps(&counters);
        if steps > bench.opt_in_work {
            let reason = opted_out(steps, self.measured_ops, bench.opt_in_work);
            self.skipped = Some(reason.clone());
            return Ok(Some(reason));
        }

        // Latency pass.
        let mut queue: Q = bench.prefilled(buffers, max_pending, &mut Untimed);
        let mut latency = Latency::new();
        bench.replay_measured(&mut queue, buffers, &mut latency);
        retire(queue, buffers);

        self.measurement = Some(Measurement {
            counters,
            uncounted: Q::UNCOUNTED,
            wakeups: verify.wakeups - wakeups_at_prefill,
            empty_wakeups: verify.empty_wakeups - empty_at_prefill,
            cancel_hits: verify.cancel_hits,
            reschedule_hits: verify.reschedule_hits,
            fired: verify.fired,
            max_pending: verify.max_pending,
            max_lateness: verify.max_lateness,
            checksum: verify.checksum,
            peak_bytes,
            retained,
            allocs_measured: 0,
            whole: Vec::new(),
            batched: Vec::new(),
            latency,
            wall_ms: 0,
        });
        self.measurement.as_mut().expect("just measured").wall_ms = millis(started);
        Ok(None)
    }

    /// A sweep point runs whole passes only: the parameters section, the only
    /// place it is shown, draws the whole pass's cost, and its per-kind split
    /// would double its time for nothing read.
    fn batched(&self) -> bool {
        !is_variant::<Q>()
    }

    fn repetitions(&self, requested: u32) -> u32 {
        match &self.measurement {
            Some(m) if work_per_op(&m.counters, self.measured_ops) > HEAVY_WORK_PER_OP => {
                requested.min(HEAVY_REPEAT)
            }
            _ => requested,
        }
    }

    fn time(&mut self, bench: &mut Workbench<'_>, pass: Pass, rep: Rep<()>) {
        let pass_started = Instant::now();
        let max_pending = self.max_pending;
        let m = self
            .measurement
            .as_mut()
            .expect("only a checked contender is timed");
        match pass {
            Pass::Whole => {
                let (ns, allocs) = bench.whole::<Q>(&mut self.buffers, max_pending);
                if m.whole.is_empty() {
                    m.allocs_measured = allocs;
                }
                m.whole.push(Rep {
                    repetition: rep.repetition,
                    position: rep.position,
                    value: ns,
                });
            }
            Pass::Batched => {
                let batches = bench.batched::<Q>(&mut self.buffers, max_pending);
                m.batched.push(Rep {
                    repetition: rep.repetition,
                    position: rep.position,
                    value: batches,
                });
            }
        }
        m.wall_ms += millis(pass_started);
    }

    fn finish(self: Box<Self>) -> AlgorithmResult {
        let outcome = match (self.measurement, self.skipped) {
            (Some(m), _) => Outcome::Measured(Box::new(m)),
            (None, Some(reason)) => Outcome::Skipped(reason),
            (None, None) => Outcome::Skipped("not checked".to_owned()),
        };
        AlgorithmResult {
            algorithm: row_name::<Q>(),
            params: Q::with_defaults().params(),
            counts_work: Q::COUNTS_WORK,
            native_of: Q::NATIVE_OF,
            variant: is_variant::<Q>(),
            outcome,
        }
    }
}

/// The skip reason of an algorithm whose verification pass ran past `budget`
/// after `done` of the measured phase's `measured` operations.
fn timed_out(budget: Duration, done: u64, measured: usize) -> String {
    format!(
        "timed out: its untimed verification pass ran past the budget of {} s (--budget) \
         after {done} of the workload's {measured} measured operations; its timed passes \
         would each take as long",
        budget.as_secs_f64()
    )
}

/// Whether `Q` can run `prepared` under `driver`: the reference checksum it
/// must match and the largest pending population it will hold, or why it is
/// skipped (a tick, delay or pending population beyond what it declares, or
/// a ticked wheel on a workload that runs beyond the tick limit).
///
/// An inexact algorithm's own reference run stops at `deadline`, when there
/// is one: the tick driver steps it through every tick of the tape.
pub fn admit<Q: Algorithm>(
    prepared: &Prepared,
    driver: Driver,
    deadline: Option<Instant>,
) -> Result<(Checksum, usize), String> {
    if prepared.max_tick > Q::TICK_LIMIT {
        return Err(format!(
            "the workload reaches tick {}, beyond the last tick {} takes ({})",
            prepared.max_tick,
            row_name::<Q>(),
            Q::TICK_LIMIT
        ));
    }
    if Q::TICKED && prepared.tape.end > prepared.max_ticks {
        return Err(format!(
            "the workload runs to tick {}, and {} is a ticked wheel that may step every tick up \
             to it: beyond the run's limit of {} ticks (--max-ticks)",
            prepared.tape.end,
            row_name::<Q>(),
            prepared.max_ticks
        ));
    }
    if prepared.max_delay > Q::DELAY_LIMIT {
        return Err(format!(
            "the workload has a delay of {} ticks, beyond the longest {} takes ({})",
            prepared.max_delay,
            row_name::<Q>(),
            Q::DELAY_LIMIT
        ));
    }
    // An inexact algorithm holds its late timers longer, so its pending
    // population (and largest fired batch) is its own reference run's.
    let (want, max_pending) = prepared
        .reference_for::<Q>(driver, deadline)
        .map_err(|ops| {
            format!(
                "timed out: the reference model's run at its due ticks ran past the budget \
                 (--budget) after {ops} operations; the {} driver steps it to tick {}",
                driver.name(),
                prepared.tape.end
            )
        })?;
    if max_pending > Q::PENDING_LIMIT {
        return Err(format!(
            "the workload keeps up to {max_pending} timers pending, beyond {}'s declared limit of {}",
            row_name::<Q>(),
            Q::PENDING_LIMIT
        ));
    }
    Ok((want, max_pending))
}

/// Milliseconds since `start`, saturating.
fn millis(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A queue that does nothing but keep the clock: what the replay loop costs
/// by itself (the driver, the handle bookkeeping, the hooks). Its whole-pass
/// time per operation is the harness's own share of every `all` figure, and is
/// reported beside them, never subtracted.
pub struct NullQueue {
    now: Tick,
    handle: Handle,
}

impl Algorithm for NullQueue {
    const NAME: &'static str = "replay-overhead";
    const SUMMARY: &'static str = "no queue: the replay loop's own cost";
    const FAMILY: Family = Family::Baseline;
    fn with_defaults() -> Self {
        // One real handle, handed out for every insert: the loop stores and
        // passes handles exactly as it does for a real queue.
        let handle = Arena::new().insert(());
        Self { now: 0, handle }
    }
    fn params(&self) -> String {
        "-".to_owned()
    }
}

impl TimerQueue<Payload> for NullQueue {
    #[inline]
    fn insert(&mut self, _deadline: Tick, _payload: Payload) -> Handle {
        self.handle
    }
    #[inline]
    fn cancel(&mut self, _handle: Handle) -> Option<Payload> {
        None
    }
    #[inline]
    fn reschedule(&mut self, _handle: Handle, _deadline: Tick) -> Option<Handle> {
        None
    }
    #[inline]
    fn advance(&mut self, now: Tick, _out: &mut Vec<Expired<Payload>>) {
        self.now = self.now.max(now);
    }
    #[inline]
    fn next_expiry(&self) -> Option<Tick> {
        None
    }
    #[inline]
    fn now(&self) -> Tick {
        self.now
    }
    #[inline]
    fn len(&self) -> usize {
        0
    }
    fn counters(&self) -> Counters {
        Counters::default()
    }
}

/// The overhead probe as a contender: whole passes only, no verification.
struct Overhead {
    whole: Vec<Rep<u64>>,
    buffers: Buffers,
}

impl Contender for Overhead {
    fn name(&self) -> &'static str {
        NullQueue::NAME
    }
    fn check(&mut self, bench: &mut Workbench<'_>) -> Result<Option<String>, Mismatch> {
        self.buffers = bench.buffers(0);
        Ok(None)
    }
    fn time(&mut self, bench: &mut Workbench<'_>, _pass: Pass, rep: Rep<()>) {
        let (ns, _) = bench.whole::<NullQueue>(&mut self.buffers, 0);
        self.whole.push(Rep {
            repetition: rep.repetition,
            position: rep.position,
            value: ns,
        });
    }
    fn batched(&self) -> bool {
        false
    }
    fn finish(self: Box<Self>) -> AlgorithmResult {
        AlgorithmResult {
            algorithm: NullQueue::NAME,
            params: "-".to_owned(),
            counts_work: false,
            native_of: None,
            variant: false,
            outcome: Outcome::Skipped("the overhead probe is not an algorithm".to_owned()),
        }
    }
}

/// Collects a contender for every selected algorithm, in registry order.
struct Collect<'a> {
    selected: &'a [String],
    contenders: Vec<Box<dyn Contender>>,
}

impl RowVisitor for Collect<'_> {
    fn visit<Q: Algorithm + driven::Driven + 'static>(&mut self) {
        if self.selected.iter().any(|name| name == row_name::<Q>()) {
            self.contenders.push(Box::new(Typed::<Q>::new()));
        }
    }
}

/// Runs every algorithm in `selected` on `prepared`: the untimed checks in
/// registry order, then the timed passes of the run plan. `on_step` hears of
/// each step before it starts. A checksum mismatch stops the workload.
pub fn run_workload(
    prepared: &Prepared,
    selected: &[String],
    settings: Settings,
    on_step: &mut dyn FnMut(Step<'_>),
) -> Result<WorkloadResult, Mismatch> {
    let mut collect = Collect {
        selected,
        contenders: Vec::new(),
    };
    registry::for_each_row(&mut collect);
    run_contenders(prepared, collect.contenders, settings, on_step)
}

/// [`run_workload`] over contenders already made (the tests bring their own).
pub fn run_contenders(
    prepared: &Prepared,
    mut contenders: Vec<Box<dyn Contender>>,
    settings: Settings,
    on_step: &mut dyn FnMut(Step<'_>),
) -> Result<WorkloadResult, Mismatch> {
    let mut bench = Workbench::new(prepared, &settings);
    let mut timed = Vec::new();
    for (index, contender) in contenders.iter_mut().enumerate() {
        on_step(Step::Checking(contender.name()));
        if contender.check(&mut bench)?.is_none() {
            timed.push(index);
        }
    }
    // The overhead probe is the plan's last contender.
    let mut overhead = Overhead {
        whole: Vec::new(),
        buffers: Buffers::default(),
    };
    overhead.check(&mut bench)?;
    let mut asks: Vec<Ask> = timed
        .iter()
        .map(|&i| {
            let repeat = contenders[i].repetitions(settings.repeat);
            let batched = contenders[i].batched().then_some(settings.batched_repeat);
            let batched = batched_passes(batched, settings.repeat, repeat);
            Ask { batched, repeat }
        })
        .collect();
    asks.push(Ask {
        batched: 0,
        repeat: settings.repeat,
    });
    let items = plan::plan(&asks, settings.plan_seed);
    for (position, item) in items.iter().enumerate() {
        let contender: &mut dyn Contender = match timed.get(item.contender) {
            Some(&index) => contenders[index].as_mut(),
            None => &mut overhead,
        };
        on_step(Step::Timing(contender.name(), item.pass, item.repetition));
        let rep = Rep {
            repetition: item.repetition,
            position: u32::try_from(position).unwrap_or(u32::MAX),
            value: (),
        };
        contender.time(&mut bench, item.pass, rep);
    }
    Ok(WorkloadResult {
        results: contenders.into_iter().map(Contender::finish).collect(),
        overhead: overhead.whole,
    })
}

/// Percentiles reported for every latency histogram, as (column suffix, quantile).
pub const PERCENTILES: [(&str, f64); 4] =
    [("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p999", 0.999)];

/// The value at quantile `q` of `histogram`, or 0 when it is empty.
pub fn quantile(histogram: &Histogram<u64>, q: f64) -> u64 {
    if histogram.is_empty() {
        0
    } else {
        histogram.value_at_quantile(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::passes::Kind;
    use algorithms::binary_heap::IndexedBinaryHeap;
    use algorithms::linux_wheel::LinuxWheel;
    use algorithms::sorted_list::SortedList;
    use workloads::Scale;

    #[test]
    fn a_heavy_contender_runs_one_batched_pass() {
        // Asked 3 of 6: a contender given its 6 runs 3, a heavy one (3 of 6) 1,
        // a sweep point none.
        assert_eq!(batched_passes(Some(3), 6, 6), 3);
        assert_eq!(batched_passes(Some(3), 6, HEAVY_REPEAT), HEAVY_BATCHED);
        assert_eq!(batched_passes(None, 6, 6), 0);
        // Fewer asked than that stand; more than the whole passes do not.
        assert_eq!(batched_passes(Some(2), 2, 2), 2);
        assert_eq!(batched_passes(Some(9), 6, 6), 6);
        assert_eq!(batched_passes(Some(0), 6, 3), 0);
    }

    /// Implements `TimerQueue` for a test wrapper around an `IndexedBinaryHeap`
    /// by handing every call to the heap: the wrappers differ only in their
    /// `Algorithm` declarations and, where given, in what an insert does.
    macro_rules! delegates_to_heap {
        ($wrapper:ty) => {
            delegates_to_heap!($wrapper, |heap, deadline, payload| heap
                .insert(deadline, payload));
        };
        ($wrapper:ty, |$heap:ident, $deadline:ident, $payload:ident| $insert:expr) => {
            impl TimerQueue<Payload> for $wrapper {
                fn insert(&mut self, $deadline: Tick, $payload: Payload) -> Handle {
                    let $heap = &mut self.0;
                    $insert
                }
                fn cancel(&mut self, handle: Handle) -> Option<Payload> {
                    self.0.cancel(handle)
                }
                fn advance(&mut self, now: Tick, out: &mut Vec<Expired<Payload>>) {
                    self.0.advance(now, out);
                }
                fn next_expiry(&self) -> Option<Tick> {
                    self.0.next_expiry()
                }
                fn now(&self) -> Tick {
                    self.0.now()
                }
                fn len(&self) -> usize {
                    self.0.len()
                }
                fn counters(&self) -> Counters {
                    self.0.counters()
                }
            }
        };
    }

    /// A heap that declares itself a ticked wheel whose last tick is 1,000,
    /// for the quiet period's bounds.
    struct ShortTicked(IndexedBinaryHeap<Payload>);
    delegates_to_heap!(ShortTicked);
    impl Algorithm for ShortTicked {
        const NAME: &'static str = "short-ticked";
        const SUMMARY: &'static str = "a ticked queue that ends at tick 1,000";
        const FAMILY: algorithms::Family = algorithms::Family::Seed;
        const TICKED: bool = true;
        const TICK_LIMIT: Tick = 1_000;
        fn with_defaults() -> Self {
            Self(IndexedBinaryHeap::new())
        }
        fn params(&self) -> String {
            "-".to_owned()
        }
    }

    #[test]
    fn the_quiet_period_is_as_long_as_the_run_within_what_the_queue_takes() {
        // As long again as the measured phase...
        assert_eq!(quiet_until::<IndexedBinaryHeap<Payload>>(400, 10), 800);
        assert_eq!(quiet_until::<IndexedBinaryHeap<Payload>>(0, 10), 0);
        let limit = IndexedBinaryHeap::<Payload>::TICK_LIMIT;
        assert_eq!(
            quiet_until::<IndexedBinaryHeap<Payload>>(limit / 2 + 1, 10),
            limit
        );
        // ...but not past the queue's last tick, nor a ticked wheel's
        // `--max-ticks`, nor before the end.
        assert_eq!(quiet_until::<ShortTicked>(400, 10_000), 800);
        assert_eq!(quiet_until::<ShortTicked>(700, 10_000), 1_000);
        assert_eq!(quiet_until::<ShortTicked>(400, 500), 500);
        assert_eq!(quiet_until::<ShortTicked>(400, 300), 400);
    }

    /// A heap that declares room for no timer: every workload skips it.
    struct NoRoom(IndexedBinaryHeap<Payload>);

    impl Algorithm for NoRoom {
        const NAME: &'static str = "no-room";
        const SUMMARY: &'static str = "a queue with a pending limit of 0, for the skip test";
        const FAMILY: algorithms::Family = algorithms::Family::Seed;
        const PENDING_LIMIT: usize = 0;
        fn with_defaults() -> Self {
            Self(IndexedBinaryHeap::new())
        }
        fn params(&self) -> String {
            "-".to_owned()
        }
    }

    delegates_to_heap!(NoRoom);

    /// A heap that silently loses timer 3: what a subtly wrong algorithm does.
    struct LosesATimer(IndexedBinaryHeap<Payload>);

    impl Algorithm for LosesATimer {
        const NAME: &'static str = "loses-a-timer";
        const SUMMARY: &'static str = "a broken queue, for the mismatch test";
        const FAMILY: algorithms::Family = algorithms::Family::Seed;
        fn with_defaults() -> Self {
            Self(IndexedBinaryHeap::new())
        }
        fn params(&self) -> String {
            "-".to_owned()
        }
    }

    delegates_to_heap!(LosesATimer, |heap, deadline, payload| {
        let handle = heap.insert(deadline, payload);
        if payload == 3 {
            heap.cancel(handle);
        }
        handle
    });

    /// A heap that declares itself one tick late but fires on time: an inexact
    /// algorithm whose behaviour does not match its declared due ticks.
    struct BreaksItsDeclaration(IndexedBinaryHeap<Payload>);

    impl Algorithm for BreaksItsDeclaration {
        const NAME: &'static str = "breaks-its-declaration";
        const SUMMARY: &'static str = "an inexact queue that is not, for the mismatch test";
        const FAMILY: algorithms::Family = algorithms::Family::Seed;
        const EXACT: bool = false;
        fn due_at(now: Tick, deadline: Tick) -> Tick {
            if deadline <= now {
                deadline
            } else {
                deadline + 1
            }
        }
        fn lateness_bound(_delay: Tick) -> Tick {
            1
        }
        fn with_defaults() -> Self {
            Self(IndexedBinaryHeap::new())
        }
        fn params(&self) -> String {
            "-".to_owned()
        }
    }

    delegates_to_heap!(BreaksItsDeclaration);

    fn small_uniform() -> Prepared {
        let spec = workloads::builtins(Scale::Small)
            .into_iter()
            .next()
            .expect("a built-in");
        Prepared::new(spec.generate(1), Driver::Event)
    }

    const SETTINGS: Settings = Settings {
        driver: Driver::Event,
        repeat: 2,
        batched_repeat: 2,
        plan_seed: 5,
        budget: DEFAULT_BUDGET,
        opt_in_work: OPT_IN_WORK,
    };

    /// Runs `contenders` on `prepared`, recording the steps.
    fn run(
        prepared: &Prepared,
        contenders: Vec<Box<dyn Contender>>,
    ) -> (Result<WorkloadResult, Mismatch>, Vec<String>) {
        let mut steps = Vec::new();
        let mut on_step = |step: Step<'_>| {
            steps.push(match step {
                Step::Checking(name) => format!("check {name}"),
                Step::Timing(name, pass, rep) => format!("{} {name} {rep}", pass.name()),
            });
        };
        let result = run_contenders(prepared, contenders, SETTINGS, &mut on_step);
        (result, steps)
    }

    fn measured(result: &AlgorithmResult) -> &Measurement {
        match &result.outcome {
            Outcome::Measured(m) => m,
            Outcome::Skipped(reason) => panic!("{} was skipped: {reason}", result.algorithm),
        }
    }

    #[test]
    fn a_checksum_mismatch_names_the_algorithm_and_stops() {
        let prepared = small_uniform();
        let (result, steps) = run(
            &prepared,
            vec![
                Box::new(Typed::<LosesATimer>::new()),
                Box::new(Typed::<IndexedBinaryHeap<Payload>>::new()),
            ],
        );
        let Err(mismatch) = result else {
            panic!("the broken queue is caught");
        };
        assert_eq!(mismatch.algorithm, "loses-a-timer");
        assert_ne!(mismatch.got, mismatch.want);
        assert_eq!(
            steps,
            ["check loses-a-timer"],
            "nothing runs after a mismatch"
        );
    }

    #[test]
    fn a_correct_algorithm_matches_the_reference_and_is_timed_per_plan() {
        let prepared = small_uniform();
        let (result, steps) = run(
            &prepared,
            vec![Box::new(Typed::<IndexedBinaryHeap<Payload>>::new())],
        );
        let result = result.expect("binary-heap matches");
        let m = measured(&result.results[0]);
        assert_eq!(m.checksum, prepared.checksum);
        assert_eq!(m.max_pending, prepared.max_pending);
        assert_eq!(m.max_lateness, 0, "an exact algorithm is never late");
        // Two repetitions of a whole and a batched pass, and the probe's.
        assert_eq!(m.whole.len(), 2);
        assert_eq!(m.batched.len(), 2);
        assert_eq!(result.overhead.len(), 2);
        assert_eq!(steps.len(), 1 + 2 * 3);
        // Positions are the plan's, each used once.
        let mut positions: Vec<u32> = m
            .whole
            .iter()
            .map(|r| r.position)
            .chain(m.batched.iter().map(|r| r.position))
            .chain(result.overhead.iter().map(|r| r.position))
            .collect();
        positions.sort_unstable();
        assert_eq!(positions, [0, 1, 2, 3, 4, 5]);
        // The batched pass counts every measured operation.
        let b = &m.batched[0].value;
        let ops: u64 = b.count[Kind::Insert as usize]
            + b.count[Kind::Cancel as usize]
            + b.count[Kind::Reschedule as usize];
        assert_eq!(
            ops,
            (prepared.tape.ops.len() - prepared.tape.prefill) as u64
        );
        assert!(m.whole.iter().all(|r| r.value > 0));
    }

    #[test]
    fn a_pending_limit_skips_with_the_reason() {
        let prepared = small_uniform();
        let (result, steps) = run(
            &prepared,
            vec![Box::new(Typed::<SortedList<Payload>>::new())],
        );
        let result = result.expect("no mismatch");
        // sorted-list's limit is far above a small uniform's population, so it
        // is measured; a limit of 0 is what the skip test needs.
        assert!(matches!(result.results[0].outcome, Outcome::Measured(_)));
        assert!(steps.iter().any(|s| s.starts_with("whole sorted-list")));
        let (result, steps) = run(&prepared, vec![Box::new(Typed::<NoRoom>::new())]);
        let result = result.expect("no mismatch");
        let Outcome::Skipped(reason) = &result.results[0].outcome else {
            panic!("skipped");
        };
        assert!(reason.contains("declared limit of 0"), "{reason}");
        assert!(
            steps
                .iter()
                .all(|s| !s.contains("no-room") || s.starts_with("check")),
            "a skipped algorithm is never timed: {steps:?}"
        );
    }

    #[test]
    fn a_cell_above_the_work_limit_is_verified_and_left_untimed() {
        let prepared = small_uniform();
        let sorted =
            || -> Vec<Box<dyn Contender>> { vec![Box::new(Typed::<SortedList<Payload>>::new())] };
        // A limit below what sorted-list's inserts walk on the tape.
        let settings = Settings {
            opt_in_work: 10,
            ..SETTINGS
        };
        let mut steps = Vec::new();
        let result = run_contenders(&prepared, sorted(), settings, &mut |step| {
            if let Step::Timing(name, ..) = step {
                steps.push(name.to_owned());
            }
        })
        .expect("verified: no mismatch");
        let Outcome::Skipped(reason) = &result.results[0].outcome else {
            panic!("left untimed");
        };
        assert!(
            reason.contains("not timed by default: verified"),
            "{reason}"
        );
        assert!(reason.contains("--heaviest"), "{reason}");
        assert!(!steps.iter().any(|name| name == "sorted-list"), "{steps:?}");
        // Under `--heaviest` (no limit) it is timed.
        let settings = Settings {
            opt_in_work: u64::MAX,
            ..SETTINGS
        };
        let result =
            run_contenders(&prepared, sorted(), settings, &mut |_| {}).expect("no mismatch");
        assert!(matches!(result.results[0].outcome, Outcome::Measured(_)));
    }

    #[test]
    fn an_inexact_algorithm_is_checked_against_its_own_due_ticks() {
        let prepared = small_uniform();
        let (result, _) = run(
            &prepared,
            vec![Box::new(Typed::<BreaksItsDeclaration>::new())],
        );
        let Err(mismatch) = result else {
            panic!("firing on time is not what it declared");
        };
        assert_eq!(mismatch.algorithm, "breaks-its-declaration");
        assert_eq!(
            mismatch.got, prepared.checksum,
            "it matched the exact run, which is not the one it is held to"
        );
    }

    #[test]
    fn an_inexact_algorithm_verifies_and_shows_its_lateness() {
        let prepared = small_uniform();
        let (result, _) = run(
            &prepared,
            vec![Box::new(Typed::<LinuxWheel<Payload>>::new())],
        );
        let result = result.expect("linux-wheel fires at its due ticks");
        let m = measured(&result.results[0]);
        let (want, max_pending) = prepared
            .reference_for::<LinuxWheel<Payload>>(Driver::Event, None)
            .unwrap();
        assert_eq!(m.checksum, want);
        assert_eq!(m.max_pending, max_pending);
        assert!(
            max_pending >= prepared.max_pending,
            "late timers stay pending longer"
        );
        assert_ne!(
            m.checksum, prepared.checksum,
            "late timers give other fire ticks than the exact run's"
        );
        // The lateness is real, and within the largest bound any insert declared.
        let declared = prepared
            .tape
            .ops
            .iter()
            .filter_map(|op| match op.op {
                workloads::Op::Insert { deadline, .. } if deadline > op.at => {
                    Some(LinuxWheel::<Payload>::lateness_bound(deadline - op.at))
                }
                _ => None,
            })
            .max()
            .expect("future inserts");
        assert!(
            0 < m.max_lateness && m.max_lateness <= declared,
            "max lateness {} outside (0, {declared}]",
            m.max_lateness
        );
    }

    #[test]
    fn the_null_queue_fires_nothing_and_keeps_the_clock() {
        let mut queue = NullQueue::with_defaults();
        let handle = queue.insert(5, 1);
        assert_eq!(queue.cancel(handle), None);
        let mut out = Vec::new();
        queue.advance(9, &mut out);
        queue.advance(3, &mut out);
        assert_eq!(queue.now(), 9);
        assert!(out.is_empty() && queue.next_expiry().is_none());
    }
}
