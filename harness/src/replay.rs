//! Replaying a tape against a queue: the drivers, and the hooks that turn one
//! replay loop into the verification, throughput and latency passes.
//!
//! Every pass runs the same code, [`replay`], so that the passes execute exactly
//! the same sequence of queue calls; only the [`Hooks`] differ. The hooks are a
//! generic parameter, so each (algorithm, pass) pair is monomorphised: there is no
//! dynamic dispatch anywhere in the measured loop.
//!
//! # Drivers
//!
//! * [`Driver::Event`] (the default) sleeps, as an event loop does, until the
//!   earlier of the next operation's tick and the queue's `next_expiry()`, and
//!   advances the queue there. A list or heap is advanced straight to its next
//!   deadline, Kafka's wheel to its next bucket, and a wheel that must be ticked
//!   (its `next_expiry()` is `now + 1`) one tick at a time.
//! * [`Driver::Tick`] advances every algorithm one tick at a time through the whole
//!   run, as a naive poller that wakes every millisecond would.
//!
//! A **wakeup** is a tick at which the driver advances the queue: an expiry, or
//! a tick with operations. The driver asks the queue for `next_expiry()` once per
//! wakeup, after its advance and its operations, as an event loop asks before it
//! sleeps; it keeps its own copy of the clock, so it never asks the queue for
//! `now()`. Between queries the copy of `next_expiry()` is still a valid lower
//! bound for everything but an insert or reschedule made in the same wakeup,
//! which the query after the wakeup's operations covers.
//!
//! At a tick with operations, the driver first advances the queue to that tick
//! (firing what is due by then), then performs every operation of that tick in
//! tape order, then asks for `next_expiry()`: an overdue timer (inserted or
//! rescheduled to a deadline at or before `now`) makes it at most `now`, and the
//! driver advances again at the same tick, so the timer fires in the tick it was
//! inserted, after that tick's other operations.

use algorithms::driven::Driven;
use algorithms::registry::Payload;
use algorithms::{Algorithm, Expired, Handle, Tick};
use workloads::{Op, Tape};

/// How the clock is moved between operations. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    /// Advance to the next operation or the queue's next expiry, whichever is first.
    Event,
    /// Advance one tick at a time.
    Tick,
}

impl Driver {
    /// The name used on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            Driver::Event => "event",
            Driver::Tick => "tick",
        }
    }
}

/// What a pass does around each call to the queue (a [`Driven`]: a contract
/// algorithm, or a native row). Every method must perform the call it is named
/// after, exactly once.
pub trait Hooks<Q: Driven> {
    /// Calls `queue.advance(to, keys, out)` and consumes `out` (leaving it empty).
    fn advance(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
    );
    /// Calls `queue.insert(deadline, timer)`.
    fn insert(&mut self, queue: &mut Q, deadline: Tick, timer: Payload) -> Q::Key;
    /// Calls `queue.cancel(key, timer)`.
    fn cancel(&mut self, queue: &mut Q, key: &mut Q::Key, timer: Payload);
    /// Calls `queue.reschedule(key, timer, deadline)`.
    fn reschedule(&mut self, queue: &mut Q, key: &mut Q::Key, deadline: Tick, timer: Payload);
}

/// The caller-owned buffers a replay works in, reused across passes so that a
/// measured pass never grows (and so allocates) them. `K` is the key the
/// queue hands out: the contract's [`Handle`], or a native row's own.
pub struct Buffers<K = Handle> {
    /// The key of every timer inserted so far, by timer number: the caller's
    /// record of its timers.
    pub handles: Vec<K>,
    /// The queue's output buffer, empty between calls.
    pub out: Vec<Expired<Payload>>,
}

impl<K> Default for Buffers<K> {
    fn default() -> Self {
        Self {
            handles: Vec::new(),
            out: Vec::new(),
        }
    }
}

impl<K> Buffers<K> {
    /// Buffers sized for a tape of `timers` inserts whose advances fire at most
    /// `max_batch` timers at once.
    pub fn with_capacity(timers: usize, max_batch: usize) -> Self {
        Self {
            handles: Vec::with_capacity(timers),
            out: Vec::with_capacity(max_batch),
        }
    }
}

/// Replays `tape.ops[range]` against `queue`, then (if `finish`) advances to the
/// tape's end. `buffers.handles` holds the handle of every timer inserted so far,
/// by timer number; the replay appends to it.
///
/// The loop reads the queue's clock and bound once, on entry; from then on it
/// asks for `next_expiry()` once per wakeup (see the module documentation).
pub fn replay<Q: Driven, H: Hooks<Q>>(
    queue: &mut Q,
    tape: &Tape,
    range: std::ops::Range<usize>,
    finish: bool,
    driver: Driver,
    buffers: &mut Buffers<Q::Key>,
    hooks: &mut H,
) {
    // The driver is chosen here, once, so that the loop a pass runs holds only
    // its own driver's code: a loop carrying both drivers' branches was slower
    // than a plain event loop over the same operations for some algorithms
    // (`timerbench crosscheck`).
    match driver {
        Driver::Event => replay_driven::<Q, H, false>(queue, tape, range, finish, buffers, hooks),
        Driver::Tick => replay_driven::<Q, H, true>(queue, tape, range, finish, buffers, hooks),
    }
}

/// [`replay`] with the driver fixed at compile time: `TICK` is
/// [`Driver::Tick`], otherwise [`Driver::Event`].
#[inline]
fn replay_driven<Q: Driven, H: Hooks<Q>, const TICK: bool>(
    queue: &mut Q,
    tape: &Tape,
    range: std::ops::Range<usize>,
    finish: bool,
    buffers: &mut Buffers<Q::Key>,
    hooks: &mut H,
) {
    let Buffers { handles, out } = buffers;
    let mut wake = Wake::<TICK>::of(queue);
    let ops = &tape.ops[range];
    let mut i = 0;
    while i < ops.len() {
        let tick = ops[i].at;
        wake.arrive(queue, tick, handles, out, hooks);
        // Every operation of this tick, in tape order, then one question to the
        // queue about its next expiry.
        while let Some(op) = ops.get(i).filter(|op| op.at == tick) {
            match op.op {
                Op::Insert { timer, deadline } => {
                    debug_assert_eq!(
                        timer as usize,
                        handles.len(),
                        "timers are numbered in tape order"
                    );
                    let handle = hooks.insert(queue, deadline, Payload::from(timer));
                    handles.push(handle);
                }
                Op::Cancel { timer } => {
                    hooks.cancel(queue, &mut handles[timer as usize], Payload::from(timer));
                }
                Op::Reschedule { timer, deadline } => {
                    let key = &mut handles[timer as usize];
                    hooks.reschedule(queue, key, deadline, Payload::from(timer));
                }
            }
            i += 1;
        }
        wake.settle(queue, handles, out, hooks);
    }
    if finish {
        wake.arrive(queue, tape.end, handles, out, hooks);
    }
}

/// The driver's view of the queue between wakeups: its clock, and the last
/// `next_expiry()` it reported. `TICK` says which driver (see [`replay_driven`]).
struct Wake<const TICK: bool> {
    now: Tick,
    next: Option<Tick>,
}

impl<const TICK: bool> Wake<TICK> {
    /// Reads the queue's clock and bound once, at the start of a replay.
    #[inline]
    fn of<Q: Driven>(queue: &Q) -> Self {
        Self {
            now: queue.now(),
            next: queue.next_expiry(),
        }
    }

    /// Advances `queue` to `to` and asks for its next expiry: one wakeup. Always
    /// inlined: for a wheel that must be ticked, this is the loop's hot path
    /// (one call per tick), and a call per tick cost the ticked wheels up to
    /// a fifth of their time against a plain loop (`timerbench crosscheck`).
    #[inline(always)]
    fn wake<Q: Driven, H: Hooks<Q>>(
        &mut self,
        queue: &mut Q,
        to: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
        hooks: &mut H,
    ) {
        hooks.advance(queue, to, keys, out);
        self.now = to;
        self.next = queue.next_expiry();
    }

    /// Brings the queue to `tick`: every wakeup before it (each expiry for the
    /// event driver, each tick for the tick driver), then the advance to `tick`
    /// itself, which fires what is due by then. The bound is not asked for after
    /// that last advance: the operations of the tick follow, and
    /// [`Wake::settle`] asks once they are done.
    ///
    /// Always inlined, like [`Wake::settle`]: it runs once per tick with
    /// operations. With a plain `#[inline]`, LLVM left it out of line in 133
    /// of the binary's replays, `sweep-wheel`'s among them, so each of those
    /// wakeups paid a call and the driver's clock and bound went through
    /// memory. A plain event loop does not pay that: `timerbench crosscheck`
    /// had `sweep-wheel` on `ratas-connections` (an advance at almost every
    /// operation) 1.10x to 1.14x slower in the replay than in the plain loop
    /// (1.29x in one pass of every row), and 0.99x to 1.02x once inlined.
    #[inline(always)]
    fn arrive<Q: Driven, H: Hooks<Q>>(
        &mut self,
        queue: &mut Q,
        tick: Tick,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
        hooks: &mut H,
    ) {
        if TICK {
            while self.now + 1 < tick {
                self.wake(queue, self.now + 1, keys, out, hooks);
            }
        } else {
            while let Some(bound) = self.next.filter(|&bound| bound < tick) {
                self.wake(queue, bound.max(self.now), keys, out, hooks);
            }
        }
        if self.now < tick || self.next.is_some_and(|bound| bound <= tick) {
            hooks.advance(queue, tick, keys, out);
            self.now = tick;
            self.next = None;
        }
    }

    /// Ends a tick with operations: one `next_expiry()`, and while a timer is
    /// already due (an overdue insert or reschedule), another advance at the
    /// same tick. Always inlined: see [`Wake::arrive`].
    #[inline(always)]
    fn settle<Q: Driven, H: Hooks<Q>>(
        &mut self,
        queue: &mut Q,
        keys: &mut [Q::Key],
        out: &mut Vec<Expired<Payload>>,
        hooks: &mut H,
    ) {
        self.next = queue.next_expiry();
        while self.next.is_some_and(|bound| bound <= self.now) {
            self.wake(queue, self.now, keys, out, hooks);
        }
    }
}

/// A fresh queue with `Q`'s defaults and room for `max_pending` timers: how
/// every pass, single-threaded or threaded, makes its queue, so that arena
/// growth stays out of what is measured (see
/// [`algorithms::TimerQueue::reserve`]).
pub fn fresh<Q: Algorithm + Driven>(max_pending: usize) -> Q {
    let mut queue = Q::with_defaults();
    queue.reserve(max_pending);
    queue
}

/// Builds a fresh queue with `Q`'s defaults and room for `max_pending` timers
/// (the tape's largest pending population, so that arena growth stays out of
/// the measured phase: see [`algorithms::TimerQueue::reserve`]), and replays
/// the tape's prefill into it with `hooks`, starting `buffers.handles` afresh.
/// A queue made here is given back with [`retire`].
pub fn prefilled<Q: Algorithm + Driven, H: Hooks<Q>>(
    tape: &Tape,
    driver: Driver,
    max_pending: usize,
    buffers: &mut Buffers<Q::Key>,
    hooks: &mut H,
) -> Q {
    debug_assert!(
        buffers.handles.is_empty(),
        "the last replay's queue was retired"
    );
    buffers.handles.clear();
    let mut queue = fresh::<Q>(max_pending);
    replay(
        &mut queue,
        tape,
        0..tape.prefill,
        false,
        driver,
        buffers,
        hooks,
    );
    queue
}

/// Replays the tape's measured phase (every operation after the prefill) and
/// the advance to its end, with `hooks`, into a queue made by [`prefilled`].
pub fn replay_measured<Q: Driven, H: Hooks<Q>>(
    queue: &mut Q,
    tape: &Tape,
    driver: Driver,
    buffers: &mut Buffers<Q::Key>,
    hooks: &mut H,
) {
    let measured = tape.prefill..tape.ops.len();
    replay(queue, tape, measured, true, driver, buffers, hooks);
}

/// Lets `queue` sit idle until `until`: no operations, only the wakeups its
/// driver makes on the way (each expiry for the event driver, each tick for the
/// tick driver), which fire what falls due. The quiet period after a measured
/// phase, before the last reading of what the queue still holds.
pub fn idle<Q: Driven, H: Hooks<Q>>(
    queue: &mut Q,
    until: Tick,
    driver: Driver,
    buffers: &mut Buffers<Q::Key>,
    hooks: &mut H,
) {
    let Buffers { handles, out } = buffers;
    match driver {
        Driver::Event => Wake::<false>::of(queue).arrive(queue, until, handles, out, hooks),
        Driver::Tick => Wake::<true>::of(queue).arrive(queue, until, handles, out, hooks),
    }
}

/// Ends a replay: hands the keys of the timers still pending back to `queue`
/// ([`Driven::release`], for a crate whose keys must be consumed), empties
/// `buffers.handles` and drops the queue. Untimed.
pub fn retire<Q: Driven>(mut queue: Q, buffers: &mut Buffers<Q::Key>) {
    queue.release(&mut buffers.handles);
    buffers.handles.clear();
    drop(queue);
}

/// An order-independent checksum of what a run did: every fired timer with the
/// tick it fired at, and every cancel and reschedule with whether it hit. Ties may fire in any
/// order, so entries are combined by wrapping addition of a strong 64-bit mix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Checksum {
    sum: u64,
    count: u64,
}

/// Tags that keep a fire and a cancel of the same timer from colliding.
const FIRE_TAG: u64 = 0x9E37_79B9_7F4A_7C15;
const CANCEL_HIT_TAG: u64 = 0xC2B2_AE3D_27D4_EB4F;
const CANCEL_MISS_TAG: u64 = 0x1656_67B1_9E37_79F9;
const RESCHEDULE_HIT_TAG: u64 = 0xD6E8_FEB8_6659_FD93;
const RESCHEDULE_MISS_TAG: u64 = 0xA076_1D64_78BD_642F;

impl Checksum {
    /// Records that `timer` fired at `tick`.
    #[inline]
    pub fn fired(&mut self, timer: Payload, tick: Tick) {
        self.add(mix(mix(timer ^ FIRE_TAG) ^ tick));
    }

    /// Records a cancel of `timer`, and whether it found the timer pending.
    #[inline]
    pub fn cancelled(&mut self, timer: Payload, hit: bool) {
        let tag = if hit { CANCEL_HIT_TAG } else { CANCEL_MISS_TAG };
        self.add(mix(timer ^ tag));
    }

    /// Records a reschedule of `timer` to `deadline`, and whether it found the
    /// timer pending.
    #[inline]
    pub fn rescheduled(&mut self, timer: Payload, deadline: Tick, hit: bool) {
        let tag = if hit {
            RESCHEDULE_HIT_TAG
        } else {
            RESCHEDULE_MISS_TAG
        };
        self.add(mix(mix(timer ^ tag) ^ deadline));
    }

    #[inline]
    fn add(&mut self, value: u64) {
        self.sum = self.sum.wrapping_add(value);
        self.count += 1;
    }

    /// The checksum as 16 hex digits of the sum and the number of events.
    pub fn to_hex(self) -> String {
        format!("{:016x}-{}", self.sum, self.count)
    }
}

/// The splitmix64 finaliser: a bijective 64-bit mix.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a of a name: gives each workload (or cell) a seed of its own when
/// mixed into a run's seed with [`mix`].
pub fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

/// The seed of a workload's plan (and of its bootstrap resamples): the run's
/// seed mixed with the hash of the workload's name, so each workload has its
/// own.
pub fn workload_seed(seed: u64, workload: &str) -> u64 {
    mix(seed ^ mix(name_hash(workload)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_ignores_order_but_not_content() {
        let mut a = Checksum::default();
        a.fired(1, 10);
        a.fired(2, 10);
        a.cancelled(3, true);
        let mut b = Checksum::default();
        b.cancelled(3, true);
        b.fired(2, 10);
        b.fired(1, 10);
        assert_eq!(a, b);
        let mut c = Checksum::default();
        c.fired(1, 11);
        c.fired(2, 10);
        c.cancelled(3, true);
        assert_ne!(a, c, "a different fire tick changes the checksum");
        let mut d = Checksum::default();
        d.fired(1, 10);
        d.fired(2, 10);
        d.cancelled(3, false);
        assert_ne!(a, d, "a missed cancel changes the checksum");
    }

    #[test]
    fn mix_is_not_the_identity() {
        assert_ne!(mix(1), 1);
        assert_ne!(mix(1), mix(2));
    }
}
