//! Criterion micro-benchmarks: the cost of one timer operation on a queue that
//! holds a fixed number of pending timers, for every registered row (the
//! algorithms behind the contract, and the native rows: each crate through its
//! own API, each baseline as the shortest user code; see `algorithms::driven`),
//! and the cost of replaying two small built-in workloads. A crate's
//! `-native` row is the figure to set beside the crate's own published ones.
//!
//! `make results` measures whole workloads (tapes with prefill, arrivals,
//! cancels and expiries, verified against the reference model). This bench
//! isolates one operation at a time at a pending population N of 10^3, 10^4,
//! 10^5 and 10^6, where criterion's statistics (confidence intervals, change
//! since the last run) are worth having.
//!
//! # Groups
//!
//! Every benchmark is named `<group>/<algorithm>/<N>` (`replay/<algorithm>/<workload>`).
//! An iteration is one operation: criterion's time is per operation, and its
//! throughput line counts operations (fired timers for `expire`).
//!
//! * `insert`: insert one timer. Timed in batches of [`BATCH`] inserts; after
//!   each batch, untimed, as many random pending timers are cancelled, so the
//!   population goes from N to N + [`BATCH`] and back.
//! * `cancel`: cancel one random pending timer (a hit, never a stale handle).
//!   Timed in batches of [`BATCH`] cancels; after each batch, untimed, as many
//!   new timers are inserted in their place (N to N - [`BATCH`] and back).
//! * `insert-cancel`: insert a timer and cancel that same timer, as a request
//!   timeout that is armed and then cancelled when the response arrives. Timed
//!   in batches of [`BATCH`] inserts followed by the [`BATCH`] cancels of the
//!   same timers (N to N + [`BATCH`] and back); the time is per pair.
//! * `expire`: the advances that fire timers, driven as the harness's event
//!   driver does (`harness/src/replay.rs`): the clock goes to the queue's
//!   `next_expiry()`, so a list or heap jumps to its next deadline, Kafka's wheel
//!   to its next bucket, and the ticked wheels (`next_expiry() = now + 1`) tick,
//!   paying for their empty ticks. Timed until at least [`BATCH`] timers have
//!   fired; then, untimed, as many new timers are inserted (N to about
//!   N - [`BATCH`] and back). The time is per fired timer: the timed advances of
//!   a call divided by the timers they fired, times the `iters` criterion asked
//!   for.
//! * `replay`: the measured phase of the built-in workloads [`REPLAY_WORKLOADS`]
//!   at [`REPLAY_SCALE`] scale and the harness's default seed, replayed with the
//!   harness's own code (`harness::replay`) and event driver, on a fresh queue
//!   per iteration whose prefill is untimed. Throughput is the tape's measured
//!   operations (inserts, cancels, reschedules; advances are the driver's).
//! * `plain`: the same replays through `harness::plain::plain_loop`, an event
//!   loop written as a user would write it, sharing no code with the harness's
//!   replay: `replay/<algorithm>/<workload>` beside `plain/<algorithm>/<workload>`
//!   is the harness's own overhead, which `timerbench crosscheck` also reports.
//!
//! # Why a fixed N
//!
//! Criterion calls a routine with a growing number of iterations. A benchmark
//! that inserted once per iteration would measure a queue that grows with
//! criterion's iteration count, not one at N; so every operation is paired with
//! its untimed inverse (insert with cancel, fire with insert), in batches of
//! [`BATCH`] so that one clock-read pair (about 30 to 80 ns on the project's VMs,
//! as much as an operation) is spread over [`BATCH`] operations. Each routine
//! honours `iters`: it runs exactly `iters` operations (a last partial batch if
//! need be), or for `expire` scales the time of the timers it fired to `iters`.
//!
//! The queue is built once per (group, algorithm, N), lazily, so a filtered-out
//! benchmark costs nothing, and outside the timed routine, so the build is not
//! counted as warm-up. The trait has no `Clone`, so the queue is not copied:
//! it lives on across criterion's calls, each of which leaves it at N. One
//! design keeps state that a fixed N does not bound: `std-binary-heap` leaves a
//! tombstone per cancel until its deadline passes, and a queue whose clock does
//! not move would collect them forever. The bench therefore watches the
//! process's live heap bytes (the harness's counting allocator) after each batch
//! and rebuilds the queue, untimed, once it holds more than [`GROWTH_LIMIT`]
//! times the bytes its timers took when it was built (measured after one
//! excursion to N + [`BATCH`], so that a buffer doubled by the excursion does
//! not count; what `with_defaults` allocates up front is not counted either);
//! it prints how often it did. The rule is the same for every algorithm; a
//! queue that recycles its storage never hits it.
//!
//! # Deadlines and seeds
//!
//! Deadlines are drawn from a `ChaCha8Rng` seeded with [`SEED`] (nothing up our
//! sleeves: the first hex digits of pi's fractional part, the harness's default
//! seed), never inside a timed region. A new timer's delay is uniform over
//! `1..=`[`SPREAD`] ticks, one minute at 1 ms per tick as in the `uniform`
//! workload, so N sets the density of deadlines (about 17 per tick at 10^6, one
//! per 60 ticks at 10^3). The prefill is that churn's steady state, not N fresh
//! timers: the remaining time of a pending timer is the minimum of two such
//! delays (triangular, denser near now), so `expire`, which keeps inserting
//! uniform delays, starts where it stays.
//!
//! # Skips and the time budget
//!
//! An algorithm runs only at the N within its declared `PENDING_LIMIT`
//! (`sorted-list` 20,000); the bench prints one line per
//! group for what it skipped and why. Every algorithm comes from
//! `algorithms::registry`, so a new one is benchmarked without editing this
//! file. To keep the whole default run near 10 minutes on two cores with about
//! 20 algorithms (about 18 benchmarks each), each benchmark warms up for
//! [`WARM_UP`] and measures for [`MEASUREMENT`] with [`SAMPLES`] samples and
//! [`RESAMPLES`] bootstrap resamples. These are the `Criterion` defaults set
//! here, so the command line (`--warm-up-time`, `--measurement-time`,
//! `--sample-size`, `--quick`) still overrides them. `cargo bench -- <regex>`
//! runs a subset, e.g. `cargo bench -p micro --bench timers -- '^expire/'`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use algorithms::driven::Driven;
use algorithms::registry::{self, Payload, RowVisitor};
use algorithms::variant::{is_variant, row_name};
use algorithms::{Algorithm, Expired, Tick};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main,
};
use harness::alloc;
use harness::bench::Prepared;
use harness::passes::Untimed;
use harness::plain::plain_loop;
use harness::replay::{Buffers, Driver, prefilled, replay_measured, retire};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use workloads::Scale;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

/// The pending populations every micro-benchmark runs at, within each
/// algorithm's `PENDING_LIMIT`.
const PENDING: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

/// The largest delay of a new timer, in ticks: one minute at 1 ms per tick.
const SPREAD: Tick = 60_000;

/// Operations per timed batch: one clock-read pair per batch, and the most the
/// population strays from N.
const BATCH: usize = 64;

/// The seed of every deadline and victim choice. Nothing up our sleeves: the
/// first hex digits of pi's fractional part, as `timerbench run`'s default.
const SEED: u64 = harness::DEFAULT_SEED;

/// The queue is rebuilt (untimed) when it holds more than this many times the
/// heap bytes its timers took when it was built. See the module documentation.
const GROWTH_LIMIT: u64 = 2;

/// The built-in workloads of the `replay` group.
const REPLAY_WORKLOADS: [&str; 2] = ["timeouts", "uniform"];

/// The scale of the `replay` group's workloads: small, so a replay takes
/// milliseconds (tens of thousands of operations, 10^3 to 10^4 pending).
const REPLAY_SCALE: Scale = Scale::Small;

/// Warm-up time of each benchmark.
const WARM_UP: Duration = Duration::from_millis(200);

/// Measurement time of each benchmark.
const MEASUREMENT: Duration = Duration::from_millis(500);

/// Samples per benchmark: criterion's minimum.
const SAMPLES: usize = 10;

/// Bootstrap resamples of each analysis (criterion's default is 100,000, which
/// costs more than a short measurement on two cores).
const RESAMPLES: usize = 10_000;

/// The operation a micro-benchmark group measures.
#[derive(Clone, Copy, Debug)]
enum Operation {
    Insert,
    Cancel,
    InsertCancel,
    Expire,
}

impl Operation {
    /// Every micro-benchmark operation, in run order.
    const ALL: [Operation; 4] = [
        Operation::Insert,
        Operation::Cancel,
        Operation::InsertCancel,
        Operation::Expire,
    ];

    /// The criterion group name.
    fn name(self) -> &'static str {
        match self {
            Operation::Insert => "insert",
            Operation::Cancel => "cancel",
            Operation::InsertCancel => "insert-cancel",
            Operation::Expire => "expire",
        }
    }
}

/// A queue held at N pending timers, with what the routines need around it.
///
/// Timers are numbered, and the number is the payload, as in a replay: the
/// caller's record of its timers is `keys`, indexed by number, holding what the
/// queue handed out (the contract's `Handle`, or a native row's own key, see
/// `algorithms::driven`). Numbers are recycled through `free`, so `keys` stays
/// at N + [`BATCH`] entries however long criterion runs. A timed operation
/// reads its timer's key from `keys` at the timer's number, as a server reads
/// the key from the record of the connection it is about to touch.
struct Fixture<Q: Driven> {
    /// The queue under test, built with the algorithm's defaults.
    queue: Q,
    /// N, the population every routine returns the queue to.
    pending: usize,
    /// The key of every timer, by number (see above).
    keys: Vec<Q::Key>,
    /// Numbers not in use, taken by the next inserts.
    free: Vec<u32>,
    /// The numbers of the N timers the insert and cancel routines keep
    /// pending (the `expire` routine does not use it).
    table: Vec<u32>,
    /// A random permutation of the table's indices, walked cyclically to choose
    /// the timers to cancel: a batch never names one twice.
    victims: Vec<u32>,
    /// The next position in `victims`.
    cursor: usize,
    /// Every deadline and the victims' order come from this generator.
    rng: ChaCha8Rng,
    /// Live heap bytes just before the queue was built.
    live_before: u64,
    /// The queue's heap bytes when built.
    built_bytes: u64,
    /// Times the queue was rebuilt because it grew past [`GROWTH_LIMIT`].
    rebuilds: u32,
    /// Scratch, presized: one batch's deadlines and timer numbers.
    deadlines: Vec<Tick>,
    batch: Vec<u32>,
    /// The output buffer of `advance`, presized for the whole queue.
    out: Vec<Expired<Payload>>,
}

impl<Q: Driven> Drop for Fixture<Q> {
    /// Hands the keys still held back to the queue (a crate whose keys must be
    /// consumed asserts so in debug builds).
    fn drop(&mut self) {
        self.queue.release(&mut self.keys);
    }
}

impl<Q: Algorithm + Driven> Fixture<Q> {
    /// A queue of `pending` timers in the steady state of the churn (see the
    /// module documentation).
    fn new(pending: usize) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let index = u32::try_from(pending).expect("N fits in u32");
        let mut victims: Vec<u32> = (0..index).collect();
        victims.shuffle(&mut rng);
        let mut fixture = Self {
            queue: Q::with_defaults(),
            pending,
            keys: Vec::with_capacity(pending + BATCH),
            free: Vec::with_capacity(pending + BATCH),
            table: Vec::with_capacity(pending),
            victims,
            cursor: 0,
            rng,
            live_before: 0,
            built_bytes: 0,
            rebuilds: 0,
            deadlines: Vec::with_capacity(BATCH),
            batch: Vec::with_capacity(BATCH),
            out: Vec::with_capacity(pending + BATCH),
        };
        fixture.build();
        fixture
    }

    /// (Re)builds the queue with N steady-state timers and records its size.
    fn build(&mut self) {
        self.queue.release(&mut self.keys);
        self.keys.clear();
        self.queue = Q::with_defaults();
        self.table.clear();
        self.live_before = alloc::snapshot().live;
        // Room for every timer a batch can hold, as the harness gives its queues.
        self.queue.reserve(self.pending + BATCH);
        let now = self.queue.now();
        // N + BATCH timers numbered in order, the last BATCH cancelled at once:
        // every number a routine uses has its entry in `keys` from here on, and
        // the size recorded includes the growth of any buffer that one
        // excursion to N + BATCH doubles, as every batch makes.
        for number in 0..self.pending + BATCH {
            let remaining = self.delay().min(self.delay());
            let timer = number as Payload;
            let key = self.queue.insert(now + remaining, timer);
            self.keys.push(key);
        }
        self.table.extend(0..self.pending as u32);
        self.free.clear();
        for number in self.pending..self.pending + BATCH {
            let number = number as u32;
            self.queue
                .cancel(&mut self.keys[number as usize], Payload::from(number));
            self.free.push(number);
        }
        self.built_bytes = alloc::snapshot().live.saturating_sub(self.live_before);
    }

    /// Rebuilds the queue if it has outgrown [`GROWTH_LIMIT`]; called after
    /// every batch, untimed.
    fn bound_growth(&mut self) {
        let bytes = alloc::snapshot().live.saturating_sub(self.live_before);
        if bytes > GROWTH_LIMIT * self.built_bytes.max(1) {
            self.rebuilds += 1;
            self.build();
        }
    }

    /// A new timer's delay: uniform over `1..=SPREAD` ticks.
    fn delay(&mut self) -> Tick {
        self.rng.random_range(1..=SPREAD)
    }

    /// Draws `k` deadlines from now into `self.deadlines`, and `k` free
    /// numbers into `self.batch`, for the next inserts.
    fn draw(&mut self, k: usize) {
        self.deadlines.clear();
        self.batch.clear();
        let now = self.queue.now();
        for _ in 0..k {
            let delay = self.delay();
            self.deadlines.push(now + delay);
            let number = self
                .free
                .pop()
                .expect("N + BATCH numbers cover every timer");
            self.batch.push(number);
        }
    }

    /// The table index of the next timer to cancel.
    fn next_victim(&mut self) -> usize {
        let victim = self.victims[self.cursor] as usize;
        self.cursor = (self.cursor + 1) % self.victims.len();
        victim
    }

    /// Inserts the drawn timers. This is the timed part of `insert` and
    /// `insert-cancel`.
    #[inline(always)]
    fn insert_drawn(&mut self) {
        for (&deadline, &number) in self.deadlines.iter().zip(&self.batch) {
            self.keys[number as usize] = self.queue.insert(deadline, Payload::from(number));
        }
    }

    /// Cancels every timer in `self.batch`, each a pending one.
    #[inline(always)]
    fn cancel_batch_timers(&mut self) {
        for &number in &self.batch {
            let key = &mut self.keys[number as usize];
            black_box(self.queue.cancel(key, Payload::from(number)));
        }
    }

    /// Runs `iters` operations of `operation` and returns their time.
    fn run(&mut self, operation: Operation, iters: u64) -> Duration {
        if let Operation::Expire = operation {
            return self.expire(iters);
        }
        let mut elapsed = Duration::ZERO;
        let mut left = iters;
        while left > 0 {
            let k = usize::try_from(left).unwrap_or(BATCH).min(BATCH);
            elapsed += match operation {
                Operation::Insert => self.insert_batch(k),
                Operation::Cancel => self.cancel_batch(k),
                Operation::InsertCancel => self.insert_cancel_batch(k),
                Operation::Expire => unreachable!("handled above"),
            };
            self.bound_growth();
            left -= k as u64;
        }
        elapsed
    }

    /// `k` timed inserts, then `k` untimed cancels of random pending timers,
    /// whose table entries the new timers take.
    fn insert_batch(&mut self, k: usize) -> Duration {
        self.draw(k);
        let start = Instant::now();
        self.insert_drawn();
        let elapsed = start.elapsed();
        for j in 0..k {
            let victim = self.next_victim();
            let old = self.table[victim];
            black_box(
                self.queue
                    .cancel(&mut self.keys[old as usize], Payload::from(old)),
            );
            self.free.push(old);
            self.table[victim] = self.batch[j];
        }
        elapsed
    }

    /// `k` timed cancels of random pending timers, then `k` untimed inserts
    /// that take their table entries.
    fn cancel_batch(&mut self, k: usize) -> Duration {
        let mut victims = [0usize; BATCH];
        self.batch.clear();
        for victim in &mut victims[..k] {
            *victim = self.next_victim();
            self.batch.push(self.table[*victim]);
        }
        let start = Instant::now();
        self.cancel_batch_timers();
        let elapsed = start.elapsed();
        self.free.extend_from_slice(&self.batch);
        self.draw(k);
        self.insert_drawn();
        for (j, &victim) in victims[..k].iter().enumerate() {
            self.table[victim] = self.batch[j];
        }
        elapsed
    }

    /// `k` timed inserts followed by the timed cancels of the same `k` timers.
    fn insert_cancel_batch(&mut self, k: usize) -> Duration {
        self.draw(k);
        let start = Instant::now();
        self.insert_drawn();
        self.cancel_batch_timers();
        let elapsed = start.elapsed();
        self.free.extend_from_slice(&self.batch);
        elapsed
    }

    /// Fires timers until `iters` have fired, in timed batches of at least
    /// [`BATCH`], each followed by untimed inserts of as many new timers; the
    /// time is scaled to exactly `iters` fired timers.
    fn expire(&mut self, iters: u64) -> Duration {
        let mut elapsed = Duration::ZERO;
        let mut fired: u64 = 0;
        while fired < iters {
            let (batch_time, batch_fired) = self.expire_batch();
            elapsed += batch_time;
            fired += batch_fired as u64;
            // The fired timers' numbers are free again; as many new timers
            // take them.
            self.free
                .extend(self.out.iter().map(|expired| expired.payload as u32));
            self.out.clear();
            let mut left = batch_fired;
            while left > 0 {
                let k = left.min(BATCH);
                self.draw(k);
                self.insert_drawn();
                left -= k;
            }
            self.bound_growth();
        }
        elapsed.mul_f64(iters as f64 / fired as f64)
    }

    /// Advances as the event driver does until at least [`BATCH`] timers have
    /// fired; returns the time taken and the timers fired, which stay in
    /// `self.out` (presized for every timer, so it does not grow).
    fn expire_batch(&mut self) -> (Duration, usize) {
        let start = Instant::now();
        while self.out.len() < BATCH {
            let next = self
                .queue
                .next_expiry()
                .expect("the queue holds N timers, so it has a next expiry");
            let to = next.max(self.queue.now());
            self.queue.advance(to, &mut self.keys, &mut self.out);
        }
        black_box(self.out.as_slice());
        (start.elapsed(), self.out.len())
    }
}

/// Registers one micro-benchmark group's benchmarks for every algorithm it
/// visits.
struct MicroBenches<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    operation: Operation,
    /// Whether to say which sizes an algorithm skips: once for all groups,
    /// while the first is registered, so that a filtered run is not flooded.
    announce_skips: bool,
}

impl RowVisitor for MicroBenches<'_, '_> {
    fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
        // The micro-benchmarks are about designs at their defaults; a
        // parameter sweep is `timerbench run --param`'s.
        if is_variant::<Q>() {
            return;
        }
        let group = self.operation.name();
        let (run, skipped): (Vec<usize>, Vec<usize>) =
            PENDING.iter().partition(|&&n| n <= Q::PENDING_LIMIT);
        if self.announce_skips && !skipped.is_empty() {
            eprintln!(
                "{}: skipped at N = {skipped:?} in every group, beyond its declared pending limit of {}",
                row_name::<Q>(),
                Q::PENDING_LIMIT
            );
        }
        for n in run {
            let mut fixture: Option<Fixture<Q>> = None;
            let operation = self.operation;
            self.group
                .bench_function(BenchmarkId::new(row_name::<Q>(), n), |b| {
                    let fixture = fixture.get_or_insert_with(|| Fixture::new(n));
                    b.iter_custom(|iters| fixture.run(operation, iters));
                });
            if let Some(fixture) = &fixture
                && fixture.rebuilds > 0
            {
                eprintln!(
                    "{group}/{}/{n}: queue rebuilt {} times, when it held over {GROWTH_LIMIT}x its built size",
                    row_name::<Q>(),
                    fixture.rebuilds
                );
            }
        }
    }
}

/// Registers the `replay` group's benchmarks for every algorithm it visits.
struct ReplayBenches<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    workloads: &'g [Prepared],
    /// Replay with the plain loop (`harness::plain`) instead of the harness's.
    plain: bool,
}

impl RowVisitor for ReplayBenches<'_, '_> {
    fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
        if is_variant::<Q>() {
            return;
        }
        let group = if self.plain { "plain" } else { "replay" };
        for prepared in self.workloads {
            let tape = &prepared.tape;
            if prepared.max_pending > Q::PENDING_LIMIT {
                eprintln!(
                    "{group}/{}/{}: skipped, the workload keeps up to {} timers pending, beyond its declared limit of {}",
                    row_name::<Q>(),
                    tape.name,
                    prepared.max_pending,
                    Q::PENDING_LIMIT
                );
                continue;
            }
            // Sized for every timer of the tape, so neither buffer grows in a
            // timed replay (an inexact algorithm may fire larger batches than
            // the reference model).
            let timers = tape.timers as usize;
            let mut buffers: Buffers<Q::Key> = Buffers::with_capacity(timers, timers);
            let measured = (tape.ops.len() - tape.prefill) as u64;
            self.group.throughput(Throughput::Elements(measured));
            self.group
                .bench_function(BenchmarkId::new(row_name::<Q>(), &tape.name), |b| {
                    b.iter_custom(|iters| {
                        (0..iters)
                            .map(|_| replay_once::<Q>(prepared, &mut buffers, self.plain))
                            .sum()
                    });
                });
        }
    }
}

/// One replay of `prepared`'s measured phase on a fresh queue whose prefill is
/// untimed, by the harness's replay or (`plain`) the plain loop; returns the
/// measured phase's time.
fn replay_once<Q: Algorithm + Driven>(
    prepared: &Prepared,
    buffers: &mut Buffers<Q::Key>,
    plain: bool,
) -> Duration {
    let tape = &prepared.tape;
    let mut queue: Q = prefilled(
        tape,
        Driver::Event,
        prepared.max_pending,
        buffers,
        &mut Untimed,
    );
    let start = Instant::now();
    if plain {
        black_box(plain_loop(
            &mut queue,
            tape,
            tape.prefill,
            &mut buffers.handles,
            &mut buffers.out,
        ));
    } else {
        replay_measured(&mut queue, tape, Driver::Event, buffers, &mut Untimed);
    }
    let elapsed = start.elapsed();
    black_box(&queue);
    retire(queue, buffers);
    elapsed
}

/// The `insert`, `cancel`, `insert-cancel` and `expire` groups.
fn micro(c: &mut Criterion) {
    for (i, operation) in Operation::ALL.into_iter().enumerate() {
        let mut group = c.benchmark_group(operation.name());
        group.throughput(Throughput::Elements(1));
        registry::for_each_row(&mut MicroBenches {
            group: &mut group,
            operation,
            announce_skips: i == 0,
        });
        group.finish();
    }
}

/// The `replay` and `plain` groups.
fn replay(c: &mut Criterion) {
    let workloads: Vec<Prepared> = workloads::builtins(REPLAY_SCALE)
        .into_iter()
        .filter(|spec| REPLAY_WORKLOADS.contains(&spec.name()))
        .map(|spec| Prepared::new(spec.generate(SEED), Driver::Event))
        .collect();
    assert_eq!(
        workloads.len(),
        REPLAY_WORKLOADS.len(),
        "every replay workload is a built-in"
    );
    for (name, plain) in [("replay", false), ("plain", true)] {
        let mut group = c.benchmark_group(name);
        // A replay takes milliseconds (a sorted list's, a tenth of a second): the
        // same iteration count per sample keeps the sample count, not the time, fixed.
        group.sampling_mode(SamplingMode::Flat);
        registry::for_each_row(&mut ReplayBenches {
            group: &mut group,
            workloads: &workloads,
            plain,
        });
        group.finish();
    }
}

/// The suite's defaults; the command line overrides them.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT)
        .sample_size(SAMPLES)
        .nresamples(RESAMPLES)
}

criterion_group! {
    name = benches;
    config = config();
    targets = micro, replay
}
criterion_main!(benches);
