//! Running every selected algorithm on one prepared workload: the reference run,
//! then per algorithm the verification, throughput and latency passes.
//!
//! The reference model is run once per workload, exactly (every timer due at its
//! deadline), and every exact algorithm is checked against that run. An inexact
//! algorithm (`Algorithm::EXACT == false`) fires timers late, at
//! `Algorithm::due_at`, so it gets a reference run of its own, with the model
//! firing at that algorithm's due ticks; checking it against the exact run would
//! reject it, and checking it against nothing would trust its declaration.
//!
//! Order of work for one (algorithm, workload):
//!
//! 1. For an inexact algorithm, its own reference run (untimed).
//! 2. Skip it, with the reason, if the workload keeps more timers pending than the
//!    algorithm's declared `PENDING_LIMIT`.
//! 3. Verification pass (untimed): replay the whole tape; compare the checksum of
//!    every (timer, fire tick) and every cancel's outcome with the reference
//!    model's. A difference is a hard error naming the algorithm. The work
//!    counters, driver wakeups and lateness of the measured phase, and the peak
//!    memory of the queue, come from this pass.
//! 4. Throughput pass: prefill untimed, then the measured phase timed in batches.
//!    The allocation calls made during the measured phase are counted.
//! 5. Latency pass: prefill untimed, then every measured operation timed alone.
//!
//! Each pass builds a fresh queue with the algorithm's defaults, so no pass warms
//! the next one's data structure.

use std::time::Instant;

use algorithms::arena::Arena;
use algorithms::reference::{ModelHandle, ReferenceModel};
use algorithms::registry::{AlgorithmVisitor, Payload};
use algorithms::{Algorithm, Counters, Expired, Handle, Tick, TimerQueue};
use hdrhistogram::Histogram;
use workloads::Tape;

use crate::alloc;
use crate::passes::{Latency, Throughput, Untimed, Verify};
use crate::replay::{Buffers, Checksum, Driver, Hooks, prefilled, replay, replay_measured};

/// A workload ready to be replayed: its tape and what the exact reference model
/// did.
pub struct Prepared {
    /// The operation tape.
    pub tape: Tape,
    /// The exact reference model's checksum under the run's driver.
    pub checksum: Checksum,
    /// The exact reference's largest pending population.
    pub max_pending: usize,
}

impl Prepared {
    /// Replays `tape` against the exact reference model under `driver`.
    pub fn new(tape: Tape, driver: Driver) -> Self {
        let mut prepared = Self {
            tape,
            checksum: Checksum::default(),
            max_pending: 0,
        };
        (prepared.checksum, prepared.max_pending) =
            prepared.reference_run(ReferenceModel::new(), driver);
        prepared
    }

    /// What the reference model does on the tape when it fires timers at
    /// `due_at`: the checksum `Q` must match, and the largest pending population.
    /// The exact run is shared (it was made by [`Prepared::new`]); an inexact
    /// algorithm's is made here, from its own due ticks.
    pub fn reference_for<Q: Algorithm>(&self, driver: Driver) -> (Checksum, usize) {
        if Q::EXACT {
            (self.checksum, self.max_pending)
        } else {
            self.reference_run(ReferenceModel::with_due_at(Q::due_at), driver)
        }
    }

    fn reference_run(&self, model: ReferenceModel<Payload>, driver: Driver) -> (Checksum, usize) {
        let mut reference = Reference {
            model,
            handles: Arena::new(),
        };
        let mut verify = Verify::new(self.tape.timers as usize);
        let mut buffers = Buffers::default();
        replay(
            &mut reference,
            &self.tape,
            0..self.tape.ops.len(),
            true,
            driver,
            &mut buffers,
            &mut verify,
        );
        (verify.checksum, verify.max_pending)
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

/// The figures of one measured (algorithm, workload).
pub struct Measurement {
    /// Work counters of the measured phase (after prefill).
    pub counters: Counters,
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
    /// Allocation calls during the measured phase of the throughput pass.
    pub allocs_measured: u64,
    /// Batch-timed totals per operation kind.
    pub throughput: Throughput,
    /// Per-operation latency histograms.
    pub latency: Latency,
    /// Wall time of all three passes, in milliseconds.
    pub wall_ms: u64,
}

/// One algorithm's result on one workload.
pub struct AlgorithmResult {
    /// [`Algorithm::NAME`].
    pub algorithm: &'static str,
    /// [`Algorithm::params`] of the defaults.
    pub params: String,
    /// [`Algorithm::COUNTS_WORK`]: whether the counters mean anything.
    pub counts_work: bool,
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

/// Runs every selected algorithm on one prepared workload. Visit it with
/// `algorithms::registry::for_each`.
pub struct Bench<'a> {
    prepared: &'a Prepared,
    driver: Driver,
    selected: &'a [String],
    buffers: Buffers,
    /// Called before each algorithm with its name, for progress display.
    on_start: &'a mut dyn FnMut(&str),
    /// Results in registry order.
    pub results: Vec<AlgorithmResult>,
    /// The first checksum mismatch, which stops the run.
    pub mismatch: Option<Mismatch>,
}

impl<'a> Bench<'a> {
    /// A bench of the algorithms named in `selected` on `prepared`.
    pub fn new(
        prepared: &'a Prepared,
        driver: Driver,
        selected: &'a [String],
        on_start: &'a mut dyn FnMut(&str),
    ) -> Self {
        Self {
            prepared,
            driver,
            selected,
            // A batch never holds more timers than were ever pending, so neither
            // buffer grows (and allocates) inside a measured pass.
            buffers: Buffers::with_capacity(prepared.tape.timers as usize, prepared.max_pending),
            on_start,
            results: Vec::new(),
            mismatch: None,
        }
    }

    /// Builds a fresh queue with the algorithm's defaults, room for
    /// `max_pending` timers (see [`TimerQueue::reserve`]), and replays the
    /// prefill into it with `hooks`.
    fn prefilled<Q: Algorithm + TimerQueue<Payload>, H: Hooks<Q>>(
        &mut self,
        max_pending: usize,
        hooks: &mut H,
    ) -> Q {
        prefilled(
            &self.prepared.tape,
            self.driver,
            max_pending,
            &mut self.buffers,
            hooks,
        )
    }

    /// Replays the measured phase, and the advance to the tape's end, with `hooks`.
    fn replay_measured<Q: TimerQueue<Payload>, H: Hooks<Q>>(
        &mut self,
        queue: &mut Q,
        hooks: &mut H,
    ) {
        replay_measured(
            queue,
            &self.prepared.tape,
            self.driver,
            &mut self.buffers,
            hooks,
        );
    }

    /// Runs the three passes; the verification pass must reproduce `want`, the
    /// checksum of `Q`'s reference run, in which at most `max_pending` timers
    /// were pending at once.
    fn measure<Q: Algorithm + TimerQueue<Payload>>(
        &mut self,
        want: Checksum,
        max_pending: usize,
    ) -> Result<Measurement, Mismatch> {
        let started = Instant::now();

        // Verification pass, with the queue's memory (the pass's own table is
        // allocated before the peak is reset, so it is not counted).
        let mut verify = Verify::new(self.prepared.tape.timers as usize);
        alloc::reset_peak();
        let baseline = alloc::snapshot().live;
        let mut queue: Q = self.prefilled(max_pending, &mut verify);
        let counters_at_prefill = queue.counters();
        let (wakeups_at_prefill, empty_at_prefill) = (verify.wakeups, verify.empty_wakeups);
        self.replay_measured(&mut queue, &mut verify);
        let counters = queue.counters().since(&counters_at_prefill);
        let peak_bytes = alloc::snapshot().peak.saturating_sub(baseline);
        drop(queue);
        if verify.checksum != want {
            return Err(Mismatch {
                algorithm: Q::NAME,
                got: verify.checksum,
                want,
            });
        }

        // Throughput pass.
        let mut queue: Q = self.prefilled(max_pending, &mut Untimed);
        let calls_before = alloc::snapshot().calls;
        let mut throughput = Throughput::start();
        self.replay_measured(&mut queue, &mut throughput);
        throughput.finish();
        let allocs_measured = alloc::snapshot().calls - calls_before;
        drop(queue);

        // Latency pass.
        let mut queue: Q = self.prefilled(max_pending, &mut Untimed);
        let mut latency = Latency::new();
        self.replay_measured(&mut queue, &mut latency);
        drop(queue);

        Ok(Measurement {
            counters,
            wakeups: verify.wakeups - wakeups_at_prefill,
            empty_wakeups: verify.empty_wakeups - empty_at_prefill,
            cancel_hits: verify.cancel_hits,
            reschedule_hits: verify.reschedule_hits,
            fired: verify.fired,
            max_pending: verify.max_pending,
            max_lateness: verify.max_lateness,
            checksum: verify.checksum,
            peak_bytes,
            allocs_measured,
            throughput,
            latency,
            wall_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

impl AlgorithmVisitor for Bench<'_> {
    fn visit<Q: Algorithm + TimerQueue<Payload>>(&mut self) {
        if self.mismatch.is_some() || !self.selected.iter().any(|name| name == Q::NAME) {
            return;
        }
        (self.on_start)(Q::NAME);
        let params = Q::with_defaults().params();
        // An inexact algorithm holds its late timers longer, so its pending
        // population (and largest fired batch) is its own reference run's.
        let (want, max_pending) = self.prepared.reference_for::<Q>(self.driver);
        let outcome = if max_pending > Q::PENDING_LIMIT {
            Outcome::Skipped(format!(
                "the workload keeps up to {max_pending} timers pending, beyond {}'s declared limit of {}",
                Q::NAME,
                Q::PENDING_LIMIT
            ))
        } else {
            // Presize the output buffer for the largest batch this algorithm
            // can fire, so that no measured pass grows it.
            self.buffers.out.reserve(max_pending);
            match self.measure::<Q>(want, max_pending) {
                Ok(measurement) => Outcome::Measured(Box::new(measurement)),
                Err(mismatch) => {
                    self.mismatch = Some(mismatch);
                    return;
                }
            }
        };
        self.results.push(AlgorithmResult {
            algorithm: Q::NAME,
            params,
            counts_work: Q::COUNTS_WORK,
            outcome,
        });
    }
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
    use algorithms::binary_heap::IndexedBinaryHeap;
    use algorithms::linux_wheel::LinuxWheel;
    use workloads::Scale;

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

    impl TimerQueue<Payload> for LosesATimer {
        fn insert(&mut self, deadline: Tick, payload: Payload) -> Handle {
            let handle = self.0.insert(deadline, payload);
            if payload == 3 {
                self.0.cancel(handle);
            }
            handle
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

    impl TimerQueue<Payload> for BreaksItsDeclaration {
        fn insert(&mut self, deadline: Tick, payload: Payload) -> Handle {
            self.0.insert(deadline, payload)
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

    fn small_uniform() -> Prepared {
        let spec = workloads::builtins(Scale::Small)
            .into_iter()
            .next()
            .expect("a built-in");
        Prepared::new(spec.generate(1), Driver::Event)
    }

    #[test]
    fn a_checksum_mismatch_names_the_algorithm_and_stops() {
        let prepared = small_uniform();
        let selected = vec!["loses-a-timer".to_owned(), "binary-heap".to_owned()];
        let mut started = Vec::new();
        let mut on_start = |name: &str| started.push(name.to_owned());
        let mut bench = Bench::new(&prepared, Driver::Event, &selected, &mut on_start);
        bench.visit::<LosesATimer>();
        bench.visit::<IndexedBinaryHeap<Payload>>();
        let mismatch = bench.mismatch.take().expect("the broken queue is caught");
        assert_eq!(mismatch.algorithm, "loses-a-timer");
        assert_ne!(mismatch.got, mismatch.want);
        assert!(
            bench.results.is_empty(),
            "nothing is measured after a mismatch"
        );
        drop(bench);
        assert_eq!(started, ["loses-a-timer"]);
    }

    #[test]
    fn a_correct_algorithm_matches_the_reference() {
        let prepared = small_uniform();
        let selected = vec!["binary-heap".to_owned()];
        let mut on_start = |_: &str| {};
        let mut bench = Bench::new(&prepared, Driver::Event, &selected, &mut on_start);
        bench.visit::<IndexedBinaryHeap<Payload>>();
        assert!(bench.mismatch.is_none());
        let Some(AlgorithmResult {
            outcome: Outcome::Measured(m),
            ..
        }) = bench.results.first()
        else {
            panic!("binary-heap was measured");
        };
        assert_eq!(m.checksum, prepared.checksum);
        assert_eq!(m.max_pending, prepared.max_pending);
        assert_eq!(m.max_lateness, 0, "an exact algorithm is never late");
    }

    #[test]
    fn an_inexact_algorithm_is_checked_against_its_own_due_ticks() {
        let prepared = small_uniform();
        let selected = vec!["breaks-its-declaration".to_owned()];
        let mut on_start = |_: &str| {};
        let mut bench = Bench::new(&prepared, Driver::Event, &selected, &mut on_start);
        bench.visit::<BreaksItsDeclaration>();
        let mismatch = bench
            .mismatch
            .take()
            .expect("firing on time is not what it declared");
        assert_eq!(mismatch.algorithm, "breaks-its-declaration");
        assert_eq!(
            mismatch.got, prepared.checksum,
            "it matched the exact run, which is not the one it is held to"
        );
    }

    #[test]
    fn an_inexact_algorithm_verifies_and_shows_its_lateness() {
        let prepared = small_uniform();
        let selected = vec!["linux-wheel".to_owned()];
        let mut on_start = |_: &str| {};
        let mut bench = Bench::new(&prepared, Driver::Event, &selected, &mut on_start);
        bench.visit::<LinuxWheel<Payload>>();
        assert!(
            bench.mismatch.is_none(),
            "linux-wheel fires at its due ticks"
        );
        let Some(AlgorithmResult {
            outcome: Outcome::Measured(m),
            ..
        }) = bench.results.first()
        else {
            panic!("linux-wheel was measured");
        };
        let (want, max_pending) = prepared.reference_for::<LinuxWheel<Payload>>(Driver::Event);
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
}
