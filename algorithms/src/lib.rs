//! Timer-queue algorithms behind one contract, [`TimerQueue`].
//!
//! Every algorithm in this crate keeps a set of pending timers, each an absolute
//! deadline plus a payload, and hands them back when virtual time reaches them.
//! Time is an integer [`Tick`] passed in by the caller: by convention one tick is
//! one millisecond. Architecture invariant: nothing in this crate reads a clock,
//! spawns a thread or does I/O, so the same operation sequence always produces
//! the same output and the same [`Counters`]. (Two crate adapters read a clock
//! once, when built, as an origin that every later instant is counted from; see
//! `adapters`.)
//!
//! # The contract
//!
//! * [`TimerQueue::insert`] takes an absolute deadline, anything from 0 to
//!   [`MAX_DEADLINE`] (2^62), and returns a [`Handle`]. A deadline at or before
//!   the queue's current time fires at the next [`TimerQueue::advance`], even one
//!   that does not move the clock.
//! * [`TimerQueue::reschedule`] moves a pending timer to a new deadline and
//!   returns the handle to use from then on (the same one, or a new one that
//!   leaves the old one stale); for a timer that is not pending it returns `None`
//!   and changes nothing.
//! * [`TimerQueue::cancel`] returns `Some(payload)` only for a pending timer. The
//!   handle of a timer that has fired or was cancelled returns `None`, and never
//!   cancels another timer that reused its storage: handles carry a generation.
//! * [`TimerQueue::advance`] moves the clock to `now` and appends every pending
//!   timer that is *due* by `now` (see below; for an exact algorithm, every timer
//!   with `deadline <= now`) to the caller's buffer, with the deadline it was
//!   inserted with, in non-decreasing order of due tick within the call (ties in
//!   any order; for an exact algorithm that is deadline order). Time never goes
//!   backwards: an earlier `now` fires nothing and leaves the clock as it was.
//!   `now` is at most [`MAX_DEADLINE`], like every deadline.
//! * [`TimerQueue::next_expiry`] is a lower bound `L`: advancing to any time
//!   before `L` fires nothing. It is `None` when the queue is empty. After an
//!   advance to `now` it is either `None` or greater than `now`, so a driver that
//!   advances to `max(now, next_expiry())` always makes progress.
//! * **Due tick and lateness.** A timer inserted while the queue's clock reads
//!   `now` is due at [`Algorithm::due_at`]`(now, deadline)`: it fires in the first
//!   advance whose `now` reaches that tick, and until then it is pending (a cancel
//!   returns its payload even after its deadline has passed). `due_at` is a pure
//!   function of the two ticks, so the reference model reproduces an algorithm's
//!   fire ticks and cancel outcomes exactly. An algorithm is *exact*
//!   ([`Algorithm::EXACT`], the default) when `due_at(now, deadline) == deadline`:
//!   every timer fires in the first advance that reaches its deadline. An inexact
//!   one declares how late it may be, [`Algorithm::lateness_bound`], and keeps it:
//!   for `deadline > now`,
//!   `deadline <= due_at(now, deadline) <= deadline + lateness_bound(deadline - now)`
//!   and `due_at(now, deadline) <= MAX_DEADLINE` (so advancing to [`MAX_DEADLINE`]
//!   fires everything); for an overdue insert, `deadline <= now`,
//!   `due_at(now, deadline) <= now` (it fires at the next advance). No algorithm
//!   ever fires a timer early. `linux-wheel`, `zookeeper-expiry` and
//!   `netty-wheel` are inexact; every other algorithm is exact.
//!
//! # Example
//!
//! ```
//! use algorithms::hierarchical_wheel::HierarchicalWheel;
//! use algorithms::{Algorithm, TimerQueue};
//!
//! let mut wheel = HierarchicalWheel::with_defaults();
//! let request = wheel.insert(30_000, "request timeout");
//! wheel.insert(250, "retry");
//! let mut fired = Vec::new();
//! wheel.advance(1_000, &mut fired);
//! assert_eq!(fired.len(), 1);
//! assert_eq!((fired[0].payload, fired[0].deadline), ("retry", 250));
//! // The response arrived: the timeout is cancelled and never fires.
//! assert_eq!(wheel.cancel(request), Some("request timeout"));
//! assert_eq!(wheel.cancel(request), None);
//! assert_eq!(wheel.next_expiry(), None);
//! ```
//!
//! # Adding an algorithm
//!
//! Write one file in `src/` that implements [`Algorithm`] and [`TimerQueue`],
//! declare its module below, and add one line to [`registry::for_each`]. That
//! line alone puts it into the conformance suite (`tests/conformance/`) and into
//! every tool that walks the registry.
//!
//! # Native rows
//!
//! A crate, or the standard library, used the way its own users use it (its
//! keys, its poll) rather than through [`TimerQueue`]: such a row implements
//! [`Algorithm`] (with [`Algorithm::NATIVE_OF`] naming its contract row) and
//! [`driven::Driven`], and is registered in [`registry::for_each_native`]. The
//! harness replays and verifies it like every other row; the conformance
//! suite checks its contract row.

#[cfg(any(
    feature = "crate-nexus-timer",
    feature = "crate-timer-queue",
    feature = "crate-tokio",
    feature = "crate-hash-wheel-timer"
))]
pub mod adapters;
pub mod arena;
pub mod binary_heap;
pub mod bitmap_wheel;
pub mod btree_map;
pub mod calendar_queue;
mod divisor;
pub mod driven;
pub mod hashed_wheel;
pub mod hierarchical_wheel;
pub mod linux_wheel;
pub mod list;
pub mod overdue;
pub mod quad_heap;
pub mod reference;
pub mod registry;
pub mod rounds_wheel;
pub mod sorted_list;
pub mod sorted_ring;
pub mod std_binary_heap;
pub mod sweep_wheel;
pub mod systems;
pub mod ticked_hierarchical_wheel;
pub mod variant;
pub mod zookeeper_expiry;

pub use arena::Handle;

/// Virtual time in integer ticks; one tick is one millisecond by convention.
pub type Tick = u64;

/// The payload type of every row the registry lists and the harness drives
/// (see [`registry`] and [`driven`]): a `u64` the caller chooses, such as a
/// connection's index. Defined here rather than in `registry.rs` so that the
/// designs with native rows, which the registry lists, need not import it.
pub type Payload = u64;

/// The largest deadline every algorithm must accept: 2^62 ticks, about
/// 146 million years at 1 ms. The headroom below `u64::MAX` lets wheels add a
/// span to a deadline without overflow.
pub const MAX_DEADLINE: Tick = 1 << 62;

/// A timer handed back by [`TimerQueue::advance`]: its payload and the deadline it
/// was inserted with (which may be earlier than the advance that fired it: for a
/// timer inserted already due, and for an inexact algorithm's late timer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Expired<P> {
    /// The payload given to [`TimerQueue::insert`].
    pub payload: P,
    /// The deadline given to [`TimerQueue::insert`].
    pub deadline: Tick,
}

/// Work counters that show where an algorithm spends its effort. They only ever
/// grow, and each has one meaning in every design (written once here and in
/// `results/README.md`):
///
/// * a **visit** is a slot, bucket or sorted run that an advance examines;
/// * an **empty tick** is a step of the design's own clock that fires nothing:
///   a tick of a ticked wheel (all the slots it visits at that tick
///   together), or a slot, bucket or run taken by a design that jumps to the
///   next occupied one;
/// * an entry **examined and not due** is one an advance looked at and left
///   pending (a round decremented, a head compared, a stale handle swept);
/// * a **cascade** is a pending timer moved by an advance from one level or
///   slot to another without firing;
/// * an **insert step** is an entry an insert stepped over to find its place
///   in an ordered structure;
/// * a **reschedule step** is the same, for a reschedule's walk: a design
///   whose reschedule is a cancel and an insert counts its walk here, never
///   among the insert steps.
///
/// A design with nothing to count in one of them (a heap has no slots) reports
/// 0 there and says so in its module doc; one that does the work but cannot
/// count it (the standard library's heap sifts inside `std`) declares it in
/// [`Algorithm::UNCOUNTED`], and the results leave that column empty.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counters {
    /// Visits: slots (buckets, runs) an advance examined, on every level. A
    /// ticked wheel visits one slot per tick of its own (a `netty-wheel` tick
    /// is 100 ticks) plus each higher-level slot it cascades; a design that
    /// jumps visits the slots it takes; Kafka's wheel the buckets it takes
    /// from its DelayQueue.
    pub slot_visits: u64,
    /// The **empty ticks**: steps of the design's clock that fired nothing
    /// (see the type's doc). At most `slot_visits`.
    pub empty_slot_visits: u64,
    /// Entries an advance looked at and left pending: rounds decremented in a
    /// wheel with rounds, the head of a sorted bucket that was still in the
    /// future, a stale handle swept.
    pub entries_examined_not_due: u64,
    /// Pending timers an advance moved between levels or slots without firing
    /// them.
    pub cascades: u64,
    /// Buckets taken from a DelayQueue (Kafka's wheel); 0 for every other design.
    pub bucket_expirations: u64,
    /// Entries an insert stepped over to find its place in an ordered structure:
    /// the O(n) of a sorted list, the per-bucket order of a hashed wheel. A
    /// reschedule's walk is not here but in `reschedule_scan_steps`.
    pub insert_scan_steps: u64,
    /// Entries a reschedule stepped over to find the timer's new place.
    pub reschedule_scan_steps: u64,
}

impl Counters {
    /// The work done since `earlier`, a reading of the same queue's counters.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            slot_visits: self.slot_visits - earlier.slot_visits,
            empty_slot_visits: self.empty_slot_visits - earlier.empty_slot_visits,
            entries_examined_not_due: self.entries_examined_not_due
                - earlier.entries_examined_not_due,
            cascades: self.cascades - earlier.cascades,
            bucket_expirations: self.bucket_expirations - earlier.bucket_expirations,
            insert_scan_steps: self.insert_scan_steps - earlier.insert_scan_steps,
            reschedule_scan_steps: self.reschedule_scan_steps - earlier.reschedule_scan_steps,
        }
    }

    /// Moves the insert steps counted since `insert_steps_before` (a reading
    /// of `insert_scan_steps` taken when a reschedule began) to
    /// `reschedule_scan_steps`: for a reschedule made of a cancel and an
    /// insert, whose insert counted its walk as an insert's.
    #[inline]
    pub fn charge_walk_to_reschedule(&mut self, insert_steps_before: u64) {
        let walked = self.insert_scan_steps - insert_steps_before;
        self.insert_scan_steps = insert_steps_before;
        self.reschedule_scan_steps += walked;
    }

    /// The value of one counter.
    pub fn get(&self, counter: Counter) -> u64 {
        match counter {
            Counter::SlotVisits => self.slot_visits,
            Counter::EmptySlotVisits => self.empty_slot_visits,
            Counter::EntriesExaminedNotDue => self.entries_examined_not_due,
            Counter::Cascades => self.cascades,
            Counter::BucketExpirations => self.bucket_expirations,
            Counter::InsertScanSteps => self.insert_scan_steps,
            Counter::RescheduleScanSteps => self.reschedule_scan_steps,
        }
    }
}

/// One field of [`Counters`], by name: what a design declares it cannot count
/// ([`Algorithm::UNCOUNTED`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// [`Counters::slot_visits`].
    SlotVisits,
    /// [`Counters::empty_slot_visits`].
    EmptySlotVisits,
    /// [`Counters::entries_examined_not_due`].
    EntriesExaminedNotDue,
    /// [`Counters::cascades`].
    Cascades,
    /// [`Counters::bucket_expirations`].
    BucketExpirations,
    /// [`Counters::insert_scan_steps`].
    InsertScanSteps,
    /// [`Counters::reschedule_scan_steps`].
    RescheduleScanSteps,
}

impl Counter {
    /// Every counter, in the order of the results' columns.
    pub const ALL: [Counter; 7] = [
        Counter::SlotVisits,
        Counter::EmptySlotVisits,
        Counter::EntriesExaminedNotDue,
        Counter::Cascades,
        Counter::BucketExpirations,
        Counter::InsertScanSteps,
        Counter::RescheduleScanSteps,
    ];

    /// Its column's name in the results.
    pub fn column(self) -> &'static str {
        match self {
            Counter::SlotVisits => "slot_visits",
            Counter::EmptySlotVisits => "empty_slot_visits",
            Counter::EntriesExaminedNotDue => "entries_examined_not_due",
            Counter::Cascades => "cascades",
            Counter::BucketExpirations => "bucket_expirations",
            Counter::InsertScanSteps => "insert_scan_steps",
            Counter::RescheduleScanSteps => "reschedule_scan_steps",
        }
    }
}

/// A reschedule as a cancel followed by an insert: [`TimerQueue::reschedule`]'s
/// default, for a design that overrides it only to count the insert's walk as
/// the reschedule's ([`Counters::charge_walk_to_reschedule`]).
#[inline]
pub fn cancel_then_insert<P, Q: TimerQueue<P> + ?Sized>(
    queue: &mut Q,
    handle: Handle,
    deadline: Tick,
) -> Option<Handle> {
    check_deadline(deadline);
    let payload = queue.cancel(handle)?;
    Some(queue.insert(deadline, payload))
}

/// Which group of designs an algorithm belongs to. Reports group and colour
/// algorithms by family, so that a reader compares like with like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// The classic schemes of Varghese and Lauck that the project started from:
    /// sorted list, binary heap, and the hashed, rounds and hierarchical wheels.
    Seed,
    /// Designs that came after them in production systems (tokio, Linux, Go) or
    /// in discrete-event simulation (calendar queue).
    Modern,
    /// What a Rust user writes with the standard library and no timer crate.
    Baseline,
    /// An adapter around a published timer crate.
    Crate,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 4] = [
        Family::Seed,
        Family::Modern,
        Family::Baseline,
        Family::Crate,
    ];

    /// The heading of the family's table in the README's algorithm list.
    pub fn heading(self) -> &'static str {
        match self {
            Family::Seed => {
                "**Seed schemes** (the textbook designs and the systems that made them famous)"
            }
            Family::Modern => "**Modern designs** (what came after)",
            Family::Baseline => {
                "**Standard-library baselines** (what a Rust user writes without a timer library)"
            }
            Family::Crate => {
                "**Off-the-shelf crates** (each behind an adapter, and through its own API as a `-native` row)"
            }
        }
    }

    /// The lowercase name used in results and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Seed => "seed",
            Family::Modern => "modern",
            Family::Baseline => "baseline",
            Family::Crate => "crate",
        }
    }
}

/// Static facts about an algorithm, and how to build it with its defaults.
///
/// Kept apart from [`TimerQueue`] so that the operations trait stays about
/// operations; the registry needs both.
pub trait Algorithm: Sized {
    /// The short name used on the command line and in results, e.g. `"binary-heap"`.
    const NAME: &'static str;
    /// A one-line description of the design and where it comes from.
    const SUMMARY: &'static str;
    /// The group of designs it belongs to, for grouping in reports.
    const FAMILY: Family;
    /// The largest pending population at which a benchmark should run this
    /// algorithm; a workload that keeps more timers pending skips it (and says so
    /// in the results). Only an algorithm with a super-logarithmic operation, such
    /// as the sorted list's O(n) insert, sets it below the default.
    const PENDING_LIMIT: usize = usize::MAX;
    /// Whether an advance may step through every tick between the queue's
    /// clock and `now`, one slot visit each, however few timers are due: a
    /// ticked wheel, as Netty's worker and Varghese and Lauck's schemes run.
    /// Its fast-forwards skip spans it can prove empty, but a workload that
    /// runs to a far tick (a trace that ends at 2^62) can still cost a step a
    /// tick, so the harness skips it on a workload that runs beyond the run's
    /// tick limit (`timerbench run --max-ticks`), with the reason in the results.
    const TICKED: bool = false;
    /// Whether [`TimerQueue::counters`] reports the algorithm's work. `true` (the
    /// default) for everything written here, even where most counters are 0 by
    /// design; `false` for an adapter over a crate that exposes no such counts,
    /// whose counters are then "not counted" in the results, never a zero.
    const COUNTS_WORK: bool = true;
    /// The counters that measure work the algorithm does but cannot count
    /// (see [`Counters`]): empty by default. The results leave their columns
    /// empty for it, so that "not counted" never reads as "none".
    const UNCOUNTED: &'static [Counter] = &[];
    /// Whether the structure takes real `std::time::Instant`s, so that its
    /// epoch comes from the machine's clock when it is built (a crate whose
    /// API has no other time type). Its results are as deterministic as any
    /// other's, but its instruction counts (`timerbench counts`) vary a little
    /// from run to run, with the carries of that epoch's nanoseconds.
    const CLOCK_EPOCH: bool = false;
    /// Whether every timer fires exactly at its deadline: `true` (the default)
    /// unless the algorithm overrides [`Algorithm::due_at`] to fire late. See the
    /// crate documentation's contract.
    const EXACT: bool = true;
    /// For a *native* row (a crate or a baseline driven the way its users
    /// drive it, see [`driven`]), the name of the contract row that runs the
    /// same structure behind [`TimerQueue`]: the reports divide one by the
    /// other to show what the contract costs. `None` for everything else.
    const NATIVE_OF: Option<&'static str> = None;
    /// The latest tick (deadline or `now`) the row accepts: [`MAX_DEADLINE`]
    /// for everything that keeps the contract. A native row of a crate with a
    /// shorter range says so here, and a workload that reaches beyond it skips
    /// the row (with the reason in the results) rather than fail the run.
    const TICK_LIMIT: Tick = MAX_DEADLINE;
    /// The longest delay (deadline minus the tick it is armed at) the row
    /// accepts: [`MAX_DEADLINE`] for everything that keeps the contract. Like
    /// [`Algorithm::TICK_LIMIT`], for a native row of a crate whose wheel
    /// misplaces longer delays; a workload with a longer one skips the row.
    const DELAY_LIMIT: Tick = MAX_DEADLINE;
    /// The tick from which a timer inserted while the queue's clock read `now`,
    /// with `deadline`, is due: it fires in the first advance whose `now` reaches
    /// this tick. The default, `deadline`, is an exact algorithm's. An override
    /// (which sets [`Algorithm::EXACT`] to `false`) must be a pure function that
    /// keeps [`Algorithm::lateness_bound`]'s guarantee, never exceeds
    /// [`MAX_DEADLINE`], and returns at most `now` for an overdue insert
    /// (`deadline <= now`), which fires at the next advance.
    fn due_at(_now: Tick, deadline: Tick) -> Tick {
        deadline
    }
    /// The declared lateness guarantee for a timer inserted `delay` ticks before
    /// its deadline (`delay >= 1`): for every `now` and `deadline > now`,
    /// `deadline <= due_at(now, deadline) <= deadline + lateness_bound(deadline - now)`.
    /// 0 (the default) for an exact algorithm.
    fn lateness_bound(_delay: Tick) -> Tick {
        0
    }
    /// The parameters a user may tune, each with the default this algorithm
    /// runs at (its reference's) and what it decides. Empty (the default) for
    /// a design with nothing to tune. The values a run can use are the compiled
    /// sweep points in [`registry::for_each_variant`].
    const TUNABLES: &'static [Param] = &[];
    /// For a type that runs a design with one parameter changed, which design,
    /// parameter and value ([`Sweep`]); `None` (the default) for a design at
    /// its defaults. A sweep point whose [`Algorithm::NAME`] is its design's
    /// is a *variant*: its row is named `design@param=value` and reports keep
    /// it to their parameter sweeps. One with a name of its own (`netty-wheel`
    /// is `rounds-wheel` at `tick=100`) is a design in its own right as well.
    const SWEEP: Option<Sweep> = None;
    /// Build the algorithm with its documented default parameters.
    fn with_defaults() -> Self;
    /// The parameters in force, as a short string for the results,
    /// e.g. `"slots=512"`.
    fn params(&self) -> String;
}

/// A priority queue of timers driven by virtual time. See the crate documentation
/// for the contract every implementation keeps; `tests/conformance/` checks it.
///
/// The trait is generic over the payload so that a caller's measured loop is
/// monomorphised per algorithm: no dynamic dispatch per operation.
pub trait TimerQueue<P> {
    /// Schedules `payload` to fire at the absolute `deadline` and returns a handle
    /// for [`TimerQueue::cancel`]. A deadline at or before [`TimerQueue::now`]
    /// fires at the next [`TimerQueue::advance`].
    ///
    /// # Panics
    ///
    /// If `deadline > MAX_DEADLINE`, or if the queue already holds `u32::MAX - 1`
    /// timers.
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle;

    /// Removes a pending timer and returns its payload; `None` if the timer has
    /// already fired or been cancelled.
    fn cancel(&mut self, handle: Handle) -> Option<P>;

    /// Moves a pending timer to a new absolute `deadline`, keeping its payload, and
    /// returns the handle to use from now on. The returned handle may be
    /// `handle` itself (a scheme that moves the timer in place) or a new one, in
    /// which case `handle` is stale, like the handle of a cancelled timer. If the
    /// timer is not pending (it fired or was cancelled), nothing changes and the
    /// result is `None`. A new deadline at or before [`TimerQueue::now`] fires at
    /// the next advance, as for an insert.
    ///
    /// The default is a cancel followed by an insert; a scheme specialises it
    /// where it can do better (a heap sifts the key in place, a wheel leaves a
    /// timer whose new deadline maps to the same slot where it is). Idle timeouts
    /// pushed back by every request are the common case.
    ///
    /// # Panics
    ///
    /// If `deadline > MAX_DEADLINE`.
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        cancel_then_insert(self, handle, deadline)
    }

    /// Moves the clock to `now` and appends every timer due by `now` to `out`
    /// (for an exact algorithm, every timer with `deadline <= now`; see
    /// [`Algorithm::due_at`]), in non-decreasing order of due tick. An earlier
    /// `now` does nothing.
    ///
    /// # Panics
    ///
    /// If `now > MAX_DEADLINE`.
    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>);

    /// Makes room for at least `additional` more pending timers than are pending
    /// now, so that holding them allocates nothing: what `Vec::reserve` is to a
    /// vector. A hint with no effect on behaviour; the default does nothing.
    /// The harness calls it once, on a fresh queue, with the workload's largest
    /// pending population, so that arena growth (the one allocation the
    /// contract allows in steady state) is taken out of the measured phase and
    /// any allocation left there is the algorithm's own.
    fn reserve(&mut self, additional: usize) {
        let _ = additional;
    }

    /// A lower bound on the next deadline: advancing to any time before it fires
    /// nothing. `None` when no timer is pending.
    fn next_expiry(&self) -> Option<Tick>;

    /// The current time: the largest `now` passed to [`TimerQueue::advance`], or 0.
    fn now(&self) -> Tick;

    /// The number of pending timers.
    fn len(&self) -> usize;

    /// Whether no timer is pending.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The work counters accumulated since the queue was built.
    fn counters(&self) -> Counters;
}

/// A parameter an algorithm declares tunable ([`Algorithm::TUNABLES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name on the command line and in results, e.g. `"slots"`.
    pub name: &'static str,
    /// The value the algorithm runs at by default: its reference's.
    pub default: u64,
    /// What it decides, in a phrase, e.g. `"slots per wheel (a power of two)"`.
    pub meaning: &'static str,
}

/// One point of a parameter sweep: design `design` with parameter `param` set
/// to `value` and every other parameter at its default ([`Algorithm::SWEEP`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// The design's name, [`Algorithm::NAME`] of its default row.
    pub design: &'static str,
    /// The parameter changed, one of the design's [`Algorithm::TUNABLES`].
    pub param: &'static str,
    /// Its value.
    pub value: u64,
}

/// Checks a deadline or a `now` against [`MAX_DEADLINE`]; every `insert` and
/// `advance` calls it first.
///
/// # Panics
///
/// If `deadline > MAX_DEADLINE`.
#[inline]
pub fn check_deadline(deadline: Tick) {
    assert!(
        deadline <= MAX_DEADLINE,
        "deadline {deadline} is beyond MAX_DEADLINE ({MAX_DEADLINE})"
    );
}
