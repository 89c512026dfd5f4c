//! The three passes over a tape, as [`Hooks`] implementations.
//!
//! * [`Verify`]: untimed. Computes the equivalence checksum, lateness, driver
//!   wakeups and the largest pending population. Its results are deterministic.
//! * [`Untimed`]: times nothing. The whole pass (`harness/src/bench.rs`) runs
//!   the measured phase with these hooks between two clock reads, so nothing but
//!   the replay loop and the queue is inside the timed region: the headline.
//! * [`Throughput`]: the batched pass. Times batches of consecutive operations
//!   of one kind (a run of inserts, a run of advances...), so the clock is read
//!   only where the kind changes. Each batch boundary costs one clock read,
//!   which is reported beside the figures, never subtracted; the batched pass's
//!   total against the whole pass's says how much it inflates the split.
//! * [`Latency`]: times every operation on its own into HdrHistograms. Each
//!   sample includes the cost of one clock-read pair: the floor, measured by
//!   [`crate::clock::floor`], is reported beside every percentile.

use std::time::Instant;

use algorithms::driven::Driven;
use algorithms::registry::Payload;
use algorithms::{Expired, Tick};
use hdrhistogram::Histogram;

use crate::replay::{Checksum, Hooks};

/// The kinds of operation the passes account for separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `insert`.
    Insert = 0,
    /// `cancel`.
    Cancel = 1,
    /// `advance`, whether or not it fired anything.
    Advance = 2,
    /// `reschedule`.
    Reschedule = 3,
}

/// Number of [`Kind`]s.
pub const KINDS: usize = 4;

impl Kind {
    /// Every kind, in the order results list them.
    pub const ALL: [Kind; KINDS] = [Kind::Insert, Kind::Cancel, Kind::Reschedule, Kind::Advance];

    /// The name used in results.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Insert => "insert",
            Kind::Cancel => "cancel",
            Kind::Advance => "advance",
            Kind::Reschedule => "reschedule",
        }
    }
}

/// The verification pass. See the module documentation.
pub struct Verify {
    /// When each timer was last armed (inserted or rescheduled), by timer
    /// number, for lateness.
    armed_at: Vec<Tick>,
    /// What happened, order-independently.
    pub checksum: Checksum,
    /// Timers fired.
    pub fired: u64,
    /// Cancels that found their timer pending.
    pub cancel_hits: u64,
    /// Reschedules that found their timer pending.
    pub reschedule_hits: u64,
    /// Advance calls made by the driver.
    pub wakeups: u64,
    /// Advance calls that fired nothing.
    pub empty_wakeups: u64,
    /// The largest number of pending timers seen after an insert.
    pub max_pending: usize,
    /// The largest `fire tick - max(deadline, arming tick)` seen.
    pub max_lateness: Tick,
    /// Inserts, cancels and reschedules replayed with these hooks.
    pub ops: u64,
    /// When the pass must stop (see [`Verify::stop_at`]), and the operations
    /// left before the clock is next read.
    budget: Option<(Instant, u32)>,
}

/// How many operations [`Verify`] replays between two looks at the clock once
/// it has a deadline: a clock read costs about as much as an operation, and
/// this pass times nothing, so one in 64 is cheap and still stops a pass whose
/// operations take milliseconds each within a fraction of a second.
pub const BUDGET_CHECK_EVERY: u32 = 64;

/// The payload a [`Verify`] pass unwinds with when it runs past its
/// deadline: how many inserts, cancels and reschedules it had replayed. Raised with
/// [`std::panic::resume_unwind`], so that no panic message is printed; the
/// caller catches it between two operations of the queue, never inside one,
/// so the queue it holds is whole and is retired as usual.
#[derive(Debug)]
pub struct OverBudget {
    /// Operations replayed before the pass stopped.
    pub ops: u64,
}

impl Verify {
    /// A verification pass for a tape of `timers` inserts.
    pub fn new(timers: usize) -> Self {
        Self {
            armed_at: vec![0; timers],
            checksum: Checksum::default(),
            fired: 0,
            cancel_hits: 0,
            reschedule_hits: 0,
            wakeups: 0,
            empty_wakeups: 0,
            max_pending: 0,
            max_lateness: 0,
            ops: 0,
            budget: None,
        }
    }

    /// Makes the rest of the pass stop at `deadline`: an operation that ends
    /// after it unwinds with [`OverBudget`] (looked for every
    /// [`BUDGET_CHECK_EVERY`] operations). No timed pass has this check.
    pub fn stop_at(&mut self, deadline: Instant) {
        self.budget = Some((deadline, BUDGET_CHECK_EVERY));
    }

    /// Stops the pass if its deadline has passed (looking at the clock once
    /// every [`BUDGET_CHECK_EVERY`] calls).
    fn charge(&mut self) {
        if let Some((deadline, left)) = &mut self.budget {
            *left -= 1;
            if *left == 0 {
                *left = BUDGET_CHECK_EVERY;
                if Instant::now() >= *deadline {
                    std::panic::resume_unwind(Box::new(OverBudget { ops: self.ops }));
                }
            }
        }
    }
}

impl<Q: Driven> Hooks<Q> for Verify {
    fn advance(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
    ) {
        // Every hook looks at its budget before it calls the queue, so that a
        // pass stopped here leaves no key in flight and no batch half read.
        self.charge();
        queue.advance(to, keys, out);
        let now = queue.now();
        self.wakeups += 1;
        if out.is_empty() {
            self.empty_wakeups += 1;
        }
        for expired in out.drain(..) {
            self.fired += 1;
            self.checksum.fired(expired.payload, now);
            let due = expired
                .deadline
                .max(self.armed_at[expired.payload as usize]);
            self.max_lateness = self.max_lateness.max(now.saturating_sub(due));
        }
    }

    fn insert(&mut self, queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key {
        self.charge();
        self.ops += 1;
        let key = queue.insert(deadline, timer);
        self.armed_at[timer as usize] = queue.now();
        self.max_pending = self.max_pending.max(queue.len());
        key
    }

    fn cancel(&mut self, queue: &mut Q, key: &mut Q::Key, timer: Payload) {
        self.charge();
        self.ops += 1;
        let hit = queue.cancel(key, timer);
        self.cancel_hits += u64::from(hit);
        self.checksum.cancelled(timer, hit);
    }

    fn reschedule(&mut self, queue: &mut Q, key: &mut Q::Key, deadline: Tick, timer: Payload) {
        self.charge();
        self.ops += 1;
        let hit = queue.reschedule(key, timer, deadline);
        if hit {
            self.armed_at[timer as usize] = queue.now();
        }
        self.reschedule_hits += u64::from(hit);
        self.checksum.rescheduled(timer, deadline, hit);
    }
}

/// What a batched pass measured, per [`Kind`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Batches {
    /// Nanoseconds spent per kind.
    pub total_ns: [u64; KINDS],
    /// Operations per kind.
    pub count: [u64; KINDS],
    /// Batches (runs of one kind) per kind: one clock read each.
    pub batches: [u64; KINDS],
    /// Timers fired by the timed advances.
    pub fired: u64,
}

/// The batched pass. See the module documentation.
pub struct Throughput {
    current: Kind,
    batch_start: Instant,
    totals: Batches,
}

impl Throughput {
    /// Starts timing; the first batch is an advance batch.
    pub fn start() -> Self {
        Self {
            current: Kind::Advance,
            batch_start: Instant::now(),
            totals: Batches {
                batches: [0, 0, 1, 0],
                ..Batches::default()
            },
        }
    }

    /// Closes the current batch at a kind change. Inlined into the loop: the
    /// common case, same kind as before, is one compare.
    #[inline(always)]
    fn switch(&mut self, kind: Kind) {
        if kind != self.current {
            let now = Instant::now();
            self.totals.total_ns[self.current as usize] += elapsed_ns(self.batch_start, now);
            self.batch_start = now;
            self.current = kind;
            self.totals.batches[kind as usize] += 1;
        }
        self.totals.count[kind as usize] += 1;
    }

    /// Closes the last batch and returns the totals.
    pub fn finish(mut self) -> Batches {
        let now = Instant::now();
        self.totals.total_ns[self.current as usize] += elapsed_ns(self.batch_start, now);
        self.totals
    }
}

impl<Q: Driven> Hooks<Q> for Throughput {
    #[inline(always)]
    fn advance(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
    ) {
        self.switch(Kind::Advance);
        queue.advance(to, keys, out);
        self.totals.fired += out.len() as u64;
        out.clear();
    }

    #[inline(always)]
    fn insert(&mut self, queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key {
        self.switch(Kind::Insert);
        queue.insert(deadline, timer)
    }

    #[inline(always)]
    fn cancel(&mut self, queue: &mut Q, key: &mut Q::Key, timer: Payload) {
        self.switch(Kind::Cancel);
        std::hint::black_box(queue.cancel(key, timer));
    }

    #[inline(always)]
    fn reschedule(&mut self, queue: &mut Q, key: &mut Q::Key, deadline: Tick, timer: Payload) {
        self.switch(Kind::Reschedule);
        std::hint::black_box(queue.reschedule(key, timer, deadline));
    }
}

/// Highest latency the histograms track: one minute, in nanoseconds. A larger
/// sample is clamped to it (and would show as the max).
pub const HIGHEST_TRACKABLE_NS: u64 = 60_000_000_000;
/// Significant figures kept by the histograms.
const SIGNIFICANT_FIGURES: u8 = 3;

/// A histogram of nanoseconds with the project's bounds.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, HIGHEST_TRACKABLE_NS, SIGNIFICANT_FIGURES)
        .expect("constant bounds are valid")
}

/// The latency pass. See the module documentation.
pub struct Latency {
    /// One histogram per [`Kind`].
    pub per_kind: [Histogram<u64>; KINDS],
    /// Cost per fired timer of each advance that fired any: the advance's time
    /// divided by the timers it fired, recorded once per fired timer.
    pub expire: Histogram<u64>,
}

impl Default for Latency {
    fn default() -> Self {
        Self::new()
    }
}

impl Latency {
    /// Empty histograms, allocated up front so that recording never allocates.
    pub fn new() -> Self {
        Self {
            per_kind: [
                new_histogram(),
                new_histogram(),
                new_histogram(),
                new_histogram(),
            ],
            expire: new_histogram(),
        }
    }

    #[inline(always)]
    fn record(&mut self, kind: Kind, ns: u64) {
        self.per_kind[kind as usize].saturating_record(ns.max(1));
    }
}

impl<Q: Driven> Hooks<Q> for Latency {
    #[inline(always)]
    fn advance(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
    ) {
        let start = Instant::now();
        queue.advance(to, keys, out);
        let ns = elapsed_ns(start, Instant::now());
        self.record(Kind::Advance, ns);
        let fired = out.len() as u64;
        if let Some(per_timer) = ns.checked_div(fired) {
            let per_timer = per_timer.max(1);
            // Recording n samples of one value is a single counter update.
            let _ = self
                .expire
                .record_n(per_timer.min(HIGHEST_TRACKABLE_NS), fired);
        }
        out.clear();
    }

    #[inline(always)]
    fn insert(&mut self, queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key {
        let start = Instant::now();
        let key = queue.insert(deadline, timer);
        self.record(Kind::Insert, elapsed_ns(start, Instant::now()));
        key
    }

    #[inline(always)]
    fn cancel(&mut self, queue: &mut Q, key: &mut Q::Key, timer: Payload) {
        let start = Instant::now();
        std::hint::black_box(queue.cancel(key, timer));
        self.record(Kind::Cancel, elapsed_ns(start, Instant::now()));
    }

    #[inline(always)]
    fn reschedule(&mut self, queue: &mut Q, key: &mut Q::Key, deadline: Tick, timer: Payload) {
        let start = Instant::now();
        std::hint::black_box(queue.reschedule(key, timer, deadline));
        self.record(Kind::Reschedule, elapsed_ns(start, Instant::now()));
    }
}

/// Hooks that time nothing themselves: for the prefill phase of the timed
/// passes, and for a replay timed as a whole from outside (the criterion
/// micro-benchmarks' `replay` group). Every result is passed through
/// [`std::hint::black_box`], so that a replay timed from outside does all the
/// work it appears to.
pub struct Untimed;

impl<Q: Driven> Hooks<Q> for Untimed {
    #[inline(always)]
    fn advance(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
    ) {
        queue.advance(to, keys, out);
        std::hint::black_box(out.as_slice());
        out.clear();
    }

    #[inline(always)]
    fn insert(&mut self, queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key {
        queue.insert(deadline, timer)
    }

    #[inline(always)]
    fn cancel(&mut self, queue: &mut Q, key: &mut Q::Key, timer: Payload) {
        std::hint::black_box(queue.cancel(key, timer));
    }

    #[inline(always)]
    fn reschedule(&mut self, queue: &mut Q, key: &mut Q::Key, deadline: Tick, timer: Payload) {
        std::hint::black_box(queue.reschedule(key, timer, deadline));
    }
}

/// Nanoseconds from `start` to `end`, saturating (a 584-year span fits).
#[inline(always)]
pub fn elapsed_ns(start: Instant, end: Instant) -> u64 {
    u64::try_from(end.duration_since(start).as_nanos()).unwrap_or(u64::MAX)
}
