//! Randomised differential testing against the reference model.
//!
//! An operation sequence is a list of `(selector, raw)` pairs. Each pair is
//! decoded against the state at the moment it runs (the current time, the handles
//! issued so far, the model's next due tick), so that every generated sequence is
//! meaningful and proptest's shrinking keeps it so. The same sequence is applied
//! to the algorithm under test and to `ReferenceModel::with_due_at(Q::due_at)`,
//! which for an exact algorithm is the exact model and for an inexact one fires
//! each timer at the tick the algorithm declares, and after every step:
//!
//! * an insert: nothing to compare yet;
//! * a cancel (of a pending, fired, cancelled, rescheduled-away or reused-slot
//!   handle): both return the same `Option<payload>`;
//! * a reschedule (of a pending timer to a deadline of any kind, or of any handle
//!   ever issued): both agree on whether the timer was pending; a handle the
//!   algorithm replaced joins the stale handles that later cancels try;
//! * an advance: the algorithm's output is in non-decreasing order of due tick
//!   (deadline order, for an exact algorithm) and is the same multiset of
//!   `(deadline, payload)` as the model's; `now()` agrees;
//!
//! and always: `len()` agrees, the work counters never decrease (and empty slot
//! visits never exceed slot visits), and `next_expiry()` is a valid lower bound (`None`
//! exactly when empty, at most the model's exact next due tick, and after a
//! forward advance greater than `now`).

use algorithms::reference::{ModelHandle, ReferenceModel};
use algorithms::registry::Payload;
use algorithms::{Algorithm, Counters, Expired, Handle, MAX_DEADLINE, Tick, TimerQueue};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Number of proptest cases per algorithm in the fast tier (`make test`);
/// `PROPTEST_CASES` overrides it: the slow tier (`make test-all`, which CI
/// runs) runs every algorithm's proptest trial again with 1,000 cases.
const PROPTEST_CASES: u32 = 100;
/// Longest generated sequence in the proptest run.
const PROPTEST_MAX_OPS: usize = 400;
/// Seeds of the seeded run. Nothing up our sleeves: digits of pi and e.
const SEEDS: [u64; 4] = [0x3141_5926_5358_9793, 0x2718_2818_2845_9045, 1, 2];
/// Operations per seed in the seeded run.
const SEEDED_OPS: usize = 100_000;
/// Operations in the soak run (release mode, `make soak`).
const SOAK_OPS: usize = 10_000_000;
/// Pending timers beyond which an insert is turned into a cancel, so that the
/// O(n) sorted list stays affordable in long runs.
const PENDING_CAP: usize = 2_000;
const SOAK_PENDING_CAP: usize = 20_000;
/// Timers armed in each spike of the spike run: more than a queue that gives
/// its storage back when it empties waits for (`sweep-wheel` waits for 4,096),
/// so that the giving back is tested too.
const SPIKE_TIMERS: usize = 5_000;
/// Spikes per seed: the handles of every earlier spike are tried against the
/// timers of each later one.
const SPIKES: usize = 3;
/// Timers of a spike left pending after its mass cancel, one in this many.
const SPIKE_SURVIVOR_ONE_IN: usize = 100;
/// A spike's delays are uniform in 1 to this many ticks: past level 1 of a
/// 1,024-slot wheel, so that spikes cascade as well as fire.
const SPIKE_SPAN: Tick = 100_000;

/// Deadlines that are not random but sit on the boundaries wheels care about:
/// powers of two (tokio, Linux, Netty's rounded slot counts), powers of 20
/// (Kafka's default wheel size), multiples of 512 (Netty's default) and
/// `63 * 8^k` (where Linux's wheel moves a delay to a coarser level).
fn boundary_delay(raw: u64) -> Tick {
    let base = match raw % 4 {
        0 => 1u64 << ((raw >> 2) % 62),
        1 => 20u64.pow(((raw >> 2) % 14) as u32),
        2 => 512 * ((raw >> 2) % 64 + 1),
        _ => 63u64 << (3 * ((raw >> 2) % 20)),
    };
    // One below, at, or one above the boundary.
    (base + ((raw >> 8) % 3)).saturating_sub(1)
}

/// The state a sequence is decoded against, and the two queues it drives.
struct Run<Q> {
    queue: Q,
    model: ReferenceModel<Payload>,
    /// The current handle of every timer ever inserted, by payload (the payload
    /// is the insert's number), with its latest deadline and due tick (`Q::due_at`
    /// when it was armed).
    issued: Vec<(Handle, ModelHandle, Tick, Tick)>,
    /// Handles that a reschedule replaced with a new one: stale from then on.
    retired: Vec<(Handle, ModelHandle)>,
    /// Payloads of the timers still pending, for picking a pending one to cancel.
    pending: Vec<Payload>,
    /// Where each payload sits in `pending`, or `usize::MAX` once it is gone.
    pending_position: Vec<usize>,
    pending_cap: usize,
    /// The counters after the previous step: counters only ever grow.
    counters: Counters,
    out: Vec<Expired<Payload>>,
    model_out: Vec<Expired<Payload>>,
}

impl<Q: Algorithm + TimerQueue<Payload>> Run<Q> {
    fn new(pending_cap: usize) -> Self {
        Self {
            queue: Q::with_defaults(),
            model: ReferenceModel::with_due_at(Q::due_at),
            issued: Vec::new(),
            retired: Vec::new(),
            pending: Vec::new(),
            pending_position: Vec::new(),
            pending_cap,
            counters: Counters::default(),
            out: Vec::new(),
            model_out: Vec::new(),
        }
    }

    fn forget(&mut self, payload: Payload) {
        let position = std::mem::replace(&mut self.pending_position[payload as usize], usize::MAX);
        assert_ne!(position, usize::MAX, "payload {payload} was not pending");
        self.pending.swap_remove(position);
        if let Some(&moved) = self.pending.get(position) {
            self.pending_position[moved as usize] = position;
        }
    }

    /// Decodes and applies one operation, then checks the invariants.
    fn step(&mut self, selector: u8, raw: u64) {
        let now = self.model.now();
        match selector % 100 {
            // 40%: insert, with deadlines of every kind.
            0..40 => {
                if self.model.len() >= self.pending_cap && !self.pending.is_empty() {
                    self.cancel_pending(raw);
                } else {
                    let deadline = self.pick_deadline(raw);
                    self.insert(deadline);
                }
            }
            // 5%: reschedule a pending timer to a deadline of any kind.
            40..45 => {
                if !self.pending.is_empty() {
                    let payload = self.pending[(raw % self.pending.len() as u64) as usize];
                    let deadline = self.pick_deadline(raw.rotate_left(17));
                    self.reschedule(payload, deadline);
                }
            }
            // 10%: cancel a pending timer.
            45..55 => self.cancel_pending(raw),
            // 5%: cancel any handle ever issued: fired, cancelled, pending, or
            // replaced by a reschedule.
            55..60 => {
                let all = self.issued.len() + self.retired.len();
                if all > 0 {
                    let pick = (raw % all as u64) as usize;
                    let (handle, model_handle) = match self.issued.get(pick) {
                        Some(&(handle, model_handle, _, _)) => (handle, model_handle),
                        None => self.retired[pick - self.issued.len()],
                    };
                    self.cancel(handle, model_handle);
                }
            }
            // 3%: reschedule any timer ever inserted, pending or not.
            60..63 => {
                if !self.issued.is_empty() {
                    let payload = raw % self.issued.len() as u64;
                    let deadline = self.pick_deadline(raw.rotate_left(29));
                    self.reschedule(payload, deadline);
                }
            }
            // The rest: advance by various amounts.
            63..70 => self.advance(now),
            70..80 => self.advance((now + 1).min(MAX_DEADLINE)),
            80..88 => self.advance((now + raw % 100).min(MAX_DEADLINE)),
            88..92 => self.advance((now + raw % 20_000).min(MAX_DEADLINE)),
            92..96 => {
                // To the model's next due tick, or just before or after it.
                let target = self.model.next_expiry().unwrap_or(now).max(now);
                self.advance((target + raw % 3).saturating_sub(1).min(MAX_DEADLINE));
            }
            // 1%: a capacity hint, which must change nothing the contract sees.
            96 => self.queue.reserve((raw % 300) as usize),
            97 => self.advance(now.saturating_sub(raw % 1000)),
            _ => self.advance((now + boundary_delay(raw)).min(MAX_DEADLINE)),
        }
        self.checked();
    }

    /// Counters never decrease, and a slot visit that fired nothing is still a visit.
    fn check_counters(&mut self) {
        let now = self.queue.counters();
        let before = self.counters;
        let pairs = [
            (now.slot_visits, before.slot_visits),
            (now.empty_slot_visits, before.empty_slot_visits),
            (
                now.entries_examined_not_due,
                before.entries_examined_not_due,
            ),
            (now.cascades, before.cascades),
            (now.bucket_expirations, before.bucket_expirations),
            (now.insert_scan_steps, before.insert_scan_steps),
            (now.reschedule_scan_steps, before.reschedule_scan_steps),
        ];
        assert!(
            pairs.iter().all(|(after, earlier)| after >= earlier),
            "a counter went down: {before:?} -> {now:?}"
        );
        assert!(
            now.empty_slot_visits <= now.slot_visits,
            "more empty slot visits than slot visits: {now:?}"
        );
        self.counters = now;
    }

    fn pick_deadline(&self, raw: u64) -> Tick {
        let now = self.model.now();
        let delay = match raw % 16 {
            // Near: within one 64-slot level.
            0..4 => (raw >> 8) & 63,
            4..7 => 64 + (raw >> 8) % 5_000,
            7..9 => 5_000 + (raw >> 8) % 10_000_000,
            // Very far: anywhere up to MAX_DEADLINE.
            9 => (raw >> 4) % (MAX_DEADLINE - now + 1),
            10..12 => boundary_delay(raw >> 4),
            12..14 => {
                // In the past, or exactly now.
                return now.saturating_sub((raw >> 8) % 2_000);
            }
            _ => {
                // Equal to an earlier timer's deadline.
                if self.issued.is_empty() {
                    0
                } else {
                    let (_, _, deadline, _) =
                        self.issued[((raw >> 8) % self.issued.len() as u64) as usize];
                    return deadline;
                }
            }
        };
        (now + delay).min(MAX_DEADLINE)
    }

    fn insert(&mut self, deadline: Tick) {
        let payload = self.issued.len() as Payload;
        let due = Q::due_at(self.model.now(), deadline);
        let handle = self.queue.insert(deadline, payload);
        let model_handle = self.model.insert(deadline, payload);
        self.issued.push((handle, model_handle, deadline, due));
        self.pending_position.push(self.pending.len());
        self.pending.push(payload);
    }

    fn cancel_pending(&mut self, raw: u64) {
        if self.pending.is_empty() {
            return;
        }
        let payload = self.pending[(raw % self.pending.len() as u64) as usize];
        let (handle, model_handle, _, _) = self.issued[payload as usize];
        self.cancel(handle, model_handle);
    }

    /// Reschedules timer `payload` (its current handles) in both queues.
    fn reschedule(&mut self, payload: Payload, deadline: Tick) {
        let (handle, model_handle, _, _) = self.issued[payload as usize];
        let due = Q::due_at(self.model.now(), deadline);
        let got = self.queue.reschedule(handle, deadline);
        let want = self.model.reschedule(model_handle, deadline);
        assert_eq!(
            got.is_some(),
            want.is_some(),
            "reschedule({handle:?}, {deadline}) of timer {payload} at now={}: {got:?}, the model {want:?}",
            self.model.now()
        );
        if let (Some(new), Some(new_model)) = (got, want) {
            // The model always issues a new handle. If the algorithm did too, its
            // old handle must now act as stale, exactly like the model's old one;
            // if it kept the handle, the model's old one is simply dropped.
            if new != handle {
                self.retired.push((handle, model_handle));
            }
            self.issued[payload as usize] = (new, new_model, deadline, due);
        }
    }

    fn cancel(&mut self, handle: Handle, model_handle: ModelHandle) {
        let got = self.queue.cancel(handle);
        let want = self.model.cancel(model_handle);
        assert_eq!(got, want, "cancel({handle:?}) at now={}", self.model.now());
        if let Some(payload) = want {
            self.forget(payload);
        }
    }

    fn advance(&mut self, to: Tick) {
        self.out.clear();
        self.model_out.clear();
        let before = self.model.now();
        self.queue.advance(to, &mut self.out);
        self.model.advance(to, &mut self.model_out);
        let due = |expired: &Expired<Payload>| self.issued[expired.payload as usize].3;
        assert!(
            self.out.windows(2).all(|w| due(&w[0]) <= due(&w[1])),
            "advance({to}) from {before} delivered out of due-tick order: {:?}",
            self.out
        );
        let mut got: Vec<(Tick, Payload)> =
            self.out.iter().map(|e| (e.deadline, e.payload)).collect();
        let mut want: Vec<(Tick, Payload)> = self
            .model_out
            .iter()
            .map(|e| (e.deadline, e.payload))
            .collect();
        got.sort_unstable();
        want.sort_unstable();
        if got != want {
            let missing: Vec<_> = want.iter().filter(|e| !got.contains(e)).take(10).collect();
            let extra: Vec<_> = got.iter().filter(|e| !want.contains(e)).take(10).collect();
            panic!(
                "advance({to}) from {before}: fired {} timers, the model {}; \
                 missing (deadline, payload) {missing:?}; unexpected {extra:?}",
                got.len(),
                want.len()
            );
        }
        assert_eq!(
            self.queue.now(),
            self.model.now(),
            "now() after advance({to}) from {before}"
        );
        for &(_, payload) in &want {
            self.forget(payload);
        }
        // A backwards advance is a no-op and may leave overdue timers behind.
        if let (true, Some(bound)) = (to >= before, self.queue.next_expiry()) {
            assert!(
                bound > self.model.now(),
                "after advance({to}), next_expiry() = {bound} is not after now"
            );
        }
    }

    fn check_len_and_bound(&self) {
        assert_eq!(
            self.queue.len(),
            self.model.len(),
            "len() at now={}",
            self.model.now()
        );
        assert_eq!(self.queue.is_empty(), self.model.is_empty());
        match (self.queue.next_expiry(), self.model.next_expiry()) {
            (None, None) => {}
            (Some(bound), Some(exact)) => assert!(
                bound <= exact,
                "next_expiry() = {bound} is after the next due tick {exact} (now={})",
                self.model.now()
            ),
            (got, want) => panic!(
                "next_expiry() = {got:?} but the next due tick is {want:?} (now={})",
                self.model.now()
            ),
        }
    }

    /// Checks what is checked after every step.
    fn checked(&mut self) {
        self.check_len_and_bound();
        self.check_counters();
    }

    /// One spike: [`SPIKE_TIMERS`] timers armed with short advances between
    /// them, all but one in [`SPIKE_SURVIVOR_ONE_IN`] cancelled in a random
    /// order, then advances in random steps until nothing is pending. Among
    /// these, a cancel or a reschedule of a handle from any time before: the
    /// handles of earlier spikes are all stale by now, and must stay so
    /// whatever the queue did with its storage when it emptied.
    fn spike(&mut self, rng: &mut ChaCha8Rng) {
        for _ in 0..SPIKE_TIMERS {
            let deadline = (self.model.now() + rng.random_range(1..=SPIKE_SPAN)).min(MAX_DEADLINE);
            self.insert(deadline);
            self.checked();
            self.stray(rng);
        }
        while self.pending.len() * SPIKE_SURVIVOR_ONE_IN > SPIKE_TIMERS {
            self.cancel_pending(rng.random());
            self.checked();
            self.stray(rng);
        }
        while !self.pending.is_empty() {
            let to = (self.model.now() + rng.random_range(0..2_000)).min(MAX_DEADLINE);
            self.advance(to);
            self.checked();
            self.stray(rng);
        }
    }

    /// Sometimes (one step in eight) a cancel or a reschedule of any handle or
    /// timer ever issued, and sometimes (one in sixteen) an advance of a few ticks.
    fn stray(&mut self, rng: &mut ChaCha8Rng) {
        match rng.random_range(0..16) {
            0 => self.step(55, rng.random()),
            1 => {
                // Any timer ever inserted, to a deadline within a spike's
                // span (or just past), so that the run still drains soon.
                let payload = rng.random_range(0..self.issued.len()) as Payload;
                let now = self.model.now();
                let deadline = (now + rng.random_range(0..SPIKE_SPAN))
                    .saturating_sub(rng.random_range(0..100))
                    .min(MAX_DEADLINE);
                self.reschedule(payload, deadline);
                self.checked();
            }
            2 => {
                let to = (self.model.now() + rng.random_range(1..10)).min(MAX_DEADLINE);
                self.advance(to);
                self.checked();
            }
            _ => {}
        }
    }

    /// Fires everything that is left, so that the final state is compared too.
    fn drain(&mut self) {
        self.advance(MAX_DEADLINE);
        assert!(
            self.queue.is_empty(),
            "timers left after advancing to MAX_DEADLINE"
        );
    }
}

/// Replays `ops` against `Q` and the model.
fn replay<Q: Algorithm + TimerQueue<Payload>>(ops: &[(u8, u64)], pending_cap: usize) {
    let mut run = Run::<Q>::new(pending_cap);
    for &(selector, raw) in ops {
        run.step(selector, raw);
    }
    run.drain();
}

/// Proptest-generated sequences, shrunk to a minimal failing one on failure.
pub(crate) fn proptest_against_model<Q: Algorithm + TimerQueue<Payload>>() {
    let config = Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(PROPTEST_CASES),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let strategy = prop::collection::vec((0u8..100, any::<u64>()), 0..PROPTEST_MAX_OPS);
    let result = runner.run(&strategy, |ops| {
        std::panic::catch_unwind(|| replay::<Q>(&ops, PENDING_CAP)).map_err(|panic| {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            TestCaseError::fail(message)
        })
    });
    if let Err(error) = result {
        panic!("{}: {error}", algorithms::variant::row_name::<Q>());
    }
}

/// Long sequences from fixed seeds: larger populations than proptest reaches.
pub(crate) fn seeded_against_model<Q: Algorithm + TimerQueue<Payload>>() {
    for seed in SEEDS {
        seeded_run::<Q>(seed, SEEDED_OPS, PENDING_CAP);
    }
}

/// Spikes armed, mostly cancelled and drained, one after another (see
/// [`Run::spike`]): the shape after which a queue may give memory back.
pub(crate) fn spikes_against_model<Q: Algorithm + TimerQueue<Payload>>() {
    for seed in SEEDS[..2].iter() {
        let mut rng = ChaCha8Rng::seed_from_u64(*seed);
        let mut run = Run::<Q>::new(SPIKE_TIMERS);
        for _ in 0..SPIKES {
            run.spike(&mut rng);
        }
        run.drain();
    }
}

/// The soak: millions of operations, run by `make soak` in release mode.
pub(crate) fn soak_against_model<Q: Algorithm + TimerQueue<Payload>>() {
    seeded_run::<Q>(SEEDS[0], SOAK_OPS, SOAK_PENDING_CAP);
}

fn seeded_run<Q: Algorithm + TimerQueue<Payload>>(seed: u64, ops: usize, pending_cap: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut run = Run::<Q>::new(pending_cap);
    for _ in 0..ops {
        let selector: u8 = rng.random_range(0..100);
        let raw: u64 = rng.random();
        run.step(selector, raw);
    }
    run.drain();
}
