//! Running every selected algorithm on one prepared workload: the reference run,
//! then per algorithm the verification, throughput and latency passes.
//!
//! Order of work for one (algorithm, workload):
//!
//! 1. Skip it, with the reason, if the workload keeps more timers pending than the
//!    algorithm's declared `PENDING_LIMIT`.
//! 2. Verification pass (untimed): replay the whole tape; compare the checksum of
//!    every (timer, fire tick) and every cancel's outcome with the reference
//!    model's. A difference is a hard error naming the algorithm. The work
//!    counters, driver wakeups and lateness of the measured phase, and the peak
//!    memory of the queue, come from this pass.
//! 3. Throughput pass: prefill untimed, then the measured phase timed in batches.
//!    The allocation calls made during the measured phase are counted.
//! 4. Latency pass: prefill untimed, then every measured operation timed alone.
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
use crate::replay::{Buffers, Checksum, Driver, Hooks, replay};

/// A workload ready to be replayed: its tape and what the reference model did.
pub struct Prepared {
    /// The operation tape.
    pub tape: Tape,
    /// The reference model's checksum under the run's driver.
    pub checksum: Checksum,
    /// The reference's largest pending population.
    pub max_pending: usize,
}

impl Prepared {
    /// Replays `tape` against the reference model under `driver`.
    pub fn new(tape: Tape, driver: Driver) -> Self {
        let mut model = Reference::default();
        let mut verify = Verify::new(tape.timers as usize);
        let mut buffers = Buffers::default();
        replay(
            &mut model,
            &tape,
            0..tape.ops.len(),
            true,
            driver,
            &mut buffers,
            &mut verify,
        );
        let (checksum, max_pending) = (verify.checksum, verify.max_pending);
        Self {
            tape,
            checksum,
            max_pending,
        }
    }
}

/// The reference model behind the `TimerQueue` trait, so the same replay code
/// drives it. Its handles map to the model's own through an arena.
#[derive(Default)]
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

    /// Builds a fresh queue with the algorithm's defaults and replays the
    /// prefill into it with `hooks`.
    fn prefilled<Q: Algorithm + TimerQueue<Payload>, H: Hooks<Q>>(&mut self, hooks: &mut H) -> Q {
        let tape = &self.prepared.tape;
        self.buffers.handles.clear();
        let mut queue = Q::with_defaults();
        replay(
            &mut queue,
            tape,
            0..tape.prefill,
            false,
            self.driver,
            &mut self.buffers,
            hooks,
        );
        queue
    }

    /// Replays the measured phase, and the advance to the tape's end, with `hooks`.
    fn replay_measured<Q: TimerQueue<Payload>, H: Hooks<Q>>(
        &mut self,
        queue: &mut Q,
        hooks: &mut H,
    ) {
        let tape = &self.prepared.tape;
        let measured = tape.prefill..tape.ops.len();
        replay(
            queue,
            tape,
            measured,
            true,
            self.driver,
            &mut self.buffers,
            hooks,
        );
    }

    fn measure<Q: Algorithm + TimerQueue<Payload>>(&mut self) -> Result<Measurement, Mismatch> {
        let started = Instant::now();

        // Verification pass, with the queue's memory (the pass's own table is
        // allocated before the peak is reset, so it is not counted).
        let mut verify = Verify::new(self.prepared.tape.timers as usize);
        alloc::reset_peak();
        let baseline = alloc::snapshot().live;
        let mut queue: Q = self.prefilled(&mut verify);
        let counters_at_prefill = queue.counters();
        let (wakeups_at_prefill, empty_at_prefill) = (verify.wakeups, verify.empty_wakeups);
        self.replay_measured(&mut queue, &mut verify);
        let counters = queue.counters().since(&counters_at_prefill);
        let peak_bytes = alloc::snapshot().peak.saturating_sub(baseline);
        drop(queue);
        if verify.checksum != self.prepared.checksum {
            return Err(Mismatch {
                algorithm: Q::NAME,
                got: verify.checksum,
                want: self.prepared.checksum,
            });
        }

        // Throughput pass.
        let mut queue: Q = self.prefilled(&mut Untimed);
        let calls_before = alloc::snapshot().calls;
        let mut throughput = Throughput::start();
        self.replay_measured(&mut queue, &mut throughput);
        throughput.finish();
        let allocs_measured = alloc::snapshot().calls - calls_before;
        drop(queue);

        // Latency pass.
        let mut queue: Q = self.prefilled(&mut Untimed);
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
        let outcome = if self.prepared.max_pending > Q::PENDING_LIMIT {
            Outcome::Skipped(format!(
                "the workload keeps up to {} timers pending, beyond {}'s declared limit of {}",
                self.prepared.max_pending,
                Q::NAME,
                Q::PENDING_LIMIT
            ))
        } else {
            match self.measure::<Q>() {
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
        assert_eq!(m.max_lateness, 0, "an exact algorithm is never late");
    }
}
