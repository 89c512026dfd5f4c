//! The built-in workloads: they validate, generate valid tapes within the size
//! budget, are deterministic, and keep their population steady from time 0 on.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use workloads::readme::TableRow;
use workloads::{Op, Scale, Shape, Spec, Tape, Tick, TimedOp, builtins};

/// `timerbench run`'s default seed (the first digits of pi), so that these
/// tapes are the ones a default run replays and the README's table shows.
const SEED: u64 = workloads::DEFAULT_SEED;

fn builtin(scale: Scale, name: &str) -> Spec {
    builtins(scale)
        .into_iter()
        .find(|spec| spec.name() == name)
        .unwrap_or_else(|| panic!("no built-in {name} at {scale} scale"))
}

/// Every default-scale tape, generated once and shared by the tests that read
/// them (the test runner runs tests on several threads).
fn default_tapes() -> &'static [Tape] {
    static TAPES: OnceLock<Vec<Tape>> = OnceLock::new();
    TAPES.get_or_init(|| {
        builtins(Scale::Default)
            .iter()
            .map(|spec| spec.generate(SEED))
            .collect()
    })
}

/// The default-scale tape of a built-in.
fn default_tape(name: &str) -> &'static Tape {
    default_tapes()
        .iter()
        .find(|tape| tape.name == name)
        .unwrap_or_else(|| panic!("no built-in {name} at default scale"))
}

/// The shape of every default-scale tape, measured once.
fn default_shapes() -> &'static [Shape] {
    static SHAPES: OnceLock<Vec<Shape>> = OnceLock::new();
    SHAPES.get_or_init(|| default_tapes().iter().map(Shape::of).collect())
}

/// The shape of a built-in's default-scale tape.
fn default_shape(name: &str) -> &'static Shape {
    let index = default_tapes()
        .iter()
        .position(|tape| tape.name == name)
        .unwrap_or_else(|| panic!("no built-in {name} at default scale"));
    &default_shapes()[index]
}

/// Whether `got` is within `tolerance` (a share of `want`) of `want`.
fn near(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance * want.abs()
}

fn measured_ops(tape: &Tape) -> usize {
    tape.ops.len() - tape.prefill
}

/// Validates and generates the built-ins at `scale` whose names `wanted`
/// accepts, and checks their tapes.
fn builtins_generate_valid_tapes(scale: Scale, wanted: impl Fn(&str) -> bool) {
    for spec in builtins(scale)
        .into_iter()
        .filter(|spec| wanted(spec.name()))
    {
        spec.validate().unwrap();
        assert!(!spec.description().is_empty() && !spec.description().contains('\n'));
        let tape = spec.generate(SEED);
        tape.check()
            .unwrap_or_else(|e| panic!("{} at {scale}: {e}", spec.name()));
        assert_eq!(tape.name, spec.name());
        assert!(tape.timers > 0, "{} at {scale} has no timers", spec.name());
    }
}

// The tests below together cover every built-in at every scale. The large
// scale (3 million operations per workload, 12 million for `scaling-1e7`) is
// split so that the test runner can spread it over the cores.

#[test]
fn every_builtin_generates_a_valid_tape_at_small_scale() {
    builtins_generate_valid_tapes(Scale::Small, |_| true);
}

#[test]
fn every_builtin_generates_a_valid_tape_at_default_scale() {
    let specs = builtins(Scale::Default);
    assert_eq!(specs.len(), default_tapes().len());
    for (spec, tape) in specs.iter().zip(default_tapes()) {
        spec.validate().unwrap();
        tape.check()
            .unwrap_or_else(|e| panic!("{} at default: {e}", spec.name()));
        assert_eq!(tape.name, spec.name());
        assert!(tape.timers > 0, "{} has no timers", spec.name());
    }
}

#[test]
#[ignore = "slow tier: `make test-all` runs it"]
fn large_churn_workloads_generate_valid_tapes() {
    builtins_generate_valid_tapes(Scale::Large, |name| {
        ["uniform", "timeouts", "bimodal"].contains(&name)
    });
}

#[test]
#[ignore = "slow tier: `make test-all` runs it"]
fn large_other_workloads_generate_valid_tapes() {
    builtins_generate_valid_tapes(Scale::Large, |name| {
        !["uniform", "timeouts", "bimodal"].contains(&name) && !name.starts_with("scaling-")
    });
}

#[test]
#[ignore = "slow tier: `make test-all` runs it"]
fn large_scaling_workloads_generate_valid_tapes() {
    builtins_generate_valid_tapes(Scale::Large, |name| name.starts_with("scaling-"));
}

/// The harness replays every default tape for every algorithm, a verification
/// and a latency pass and six repetitions of two timed passes each, in about
/// twelve minutes on two cores (735 s in the reference run); these bounds
/// keep that true. Each tape must also measure enough: at least 10^4
/// operations.
#[test]
fn default_tapes_fit_the_time_budget() {
    println!(
        "{:<12} {:>9} {:>9} {:>11}",
        "workload", "prefill", "measured", "duration"
    );
    let mut total = 0;
    for tape in default_tapes() {
        let measured = measured_ops(tape);
        println!(
            "{:<12} {:>9} {:>9} {:>11}",
            tape.name, tape.prefill, measured, tape.end
        );
        assert!(
            tape.prefill <= 1_000_000,
            "{}: prefill {}",
            tape.name,
            tape.prefill
        );
        assert!(
            (10_000..=1_000_000).contains(&measured),
            "{}: {measured} measured operations",
            tape.name
        );
        assert!(tape.end <= 10_000_000, "{}: {} ticks", tape.name, tape.end);
        total += tape.ops.len();
    }
    assert!(total <= 9_000_000, "{total} operations in all");
}

#[test]
fn small_is_about_a_tenth_of_default() {
    for name in [
        "uniform",
        "timeouts",
        "bimodal",
        "burst",
        "periodic",
        "far-future",
        "scaling-1e4",
    ] {
        let small = measured_ops(&builtin(Scale::Small, name).generate(SEED)) as f64;
        let default = measured_ops(default_tape(name)) as f64;
        let ratio = small / default;
        assert!(
            (0.08..0.12).contains(&ratio),
            "{name}: small/default = {ratio}"
        );
    }
}

/// The sweep's members differ in population only: each measures about the
/// same number of inserts.
#[test]
fn the_scaling_sweep_measures_equal_work() {
    let counts: Vec<(&str, usize)> = default_tapes()
        .iter()
        .filter(|tape| tape.name.starts_with("scaling-"))
        .map(|tape| (tape.name.as_str(), tape.timers as usize - tape.prefill))
        .collect();
    assert_eq!(counts.len(), 4);
    for (name, inserts) in &counts {
        assert!(
            (133_000..147_000).contains(inserts),
            "{name}: {inserts} measured inserts"
        );
    }
}

#[test]
fn same_seed_same_tape_other_seed_other_tape() {
    for spec in builtins(Scale::Small) {
        let tape = spec.generate(7);
        assert_eq!(tape, spec.generate(7), "{}", spec.name());
        assert_ne!(tape.ops, spec.generate(8).ops, "{}", spec.name());
    }
}

#[test]
fn workloads_with_equal_specs_but_other_names_differ() {
    let uniform = builtin(Scale::Small, "uniform");
    let mut renamed = uniform.clone();
    renamed.name = "uniform-2".to_owned();
    assert_ne!(uniform.generate(1).ops, renamed.generate(1).ops);
}

/// A plain replay of a tape: timers fire at their deadlines.
#[derive(Default)]
struct Replay {
    /// Deadlines of inserted timers, earliest first (cancelled and rescheduled
    /// ones included, skipped when they come out).
    heap: BinaryHeap<Reverse<(Tick, u32)>>,
    /// Each timer's current deadline if it is pending, by number.
    pending: Vec<Option<Tick>>,
    /// How many are.
    count: usize,
}

impl Replay {
    fn advance(&mut self, to: Tick) {
        while let Some(&Reverse((deadline, timer))) = self.heap.peek() {
            if deadline > to {
                break;
            }
            self.heap.pop();
            // An entry left behind by a reschedule is not the timer's deadline.
            if self.pending[timer as usize] == Some(deadline) {
                self.remove(timer);
            }
        }
    }

    fn remove(&mut self, timer: u32) {
        if self.pending[timer as usize].take().is_some() {
            self.count -= 1;
        }
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Insert { timer, deadline } => {
                self.heap.push(Reverse((deadline, timer)));
                self.pending[timer as usize] = Some(deadline);
                self.count += 1;
            }
            Op::Cancel { timer } => self.remove(timer),
            Op::Reschedule { timer, deadline } => {
                if let Some(current) = self.pending[timer as usize].as_mut() {
                    *current = deadline;
                    self.heap.push(Reverse((deadline, timer)));
                }
            }
        }
    }
}

/// The pending population over the measured phase, sampled at `samples` evenly
/// spaced ticks, by replaying the tape with fires by deadline.
fn population(tape: &Tape, samples: u64) -> Vec<usize> {
    let mut replay = Replay {
        pending: vec![None; tape.timers as usize],
        ..Replay::default()
    };
    let step = (tape.end / samples).max(1);
    let mut next_sample = 0;
    let mut result = Vec::new();
    for op in &tape.ops {
        while next_sample < op.at {
            replay.advance(next_sample);
            result.push(replay.count);
            next_sample += step;
        }
        replay.advance(op.at);
        replay.apply(op.op);
    }
    while next_sample < tape.end {
        replay.advance(next_sample);
        result.push(replay.count);
        next_sample += step;
    }
    result
}

/// With the derived arrival rate and a steady-state prefill, the population
/// stays near `pending` from the first tick: no wave of expiries, no ramp.
#[test]
fn populations_stay_near_pending() {
    // (workload, lowest and highest population as fractions of `pending`)
    let bands = [
        ("uniform", 0.95, 1.05),
        ("timeouts", 0.93, 1.07),
        ("bimodal", 0.95, 1.05),
        // Between herds the population grows by 18% and falls back at each second.
        ("burst", 0.95, 1.25),
        ("periodic", 1.0, 1.0),
        ("far-future", 0.97, 1.03),
        ("kernel-timeouts", 0.9, 1.1),
        ("idle-reset", 0.97, 1.03),
        ("scaling-1e3", 0.85, 1.15),
    ];
    for (name, low, high) in bands {
        let tape = default_tape(name);
        let population = population(tape, 200);
        let pending = tape.prefill as f64;
        let (min, max) = (
            *population.iter().min().unwrap() as f64 / pending,
            *population.iter().max().unwrap() as f64 / pending,
        );
        assert!(
            min >= low && max <= high,
            "{name}: population from {min:.3} to {max:.3} of pending, band {low}..{high}"
        );
        // No drift: the first and last tenths of the run hold about as many.
        let tenth = population.len() / 10;
        let mean = |s: &[usize]| s.iter().sum::<usize>() as f64 / s.len() as f64 / pending;
        let (first, last) = (
            mean(&population[..tenth]),
            mean(&population[population.len() - tenth..]),
        );
        assert!(
            (first - last).abs() < 0.04,
            "{name}: first tenth {first:.3}, last tenth {last:.3}"
        );
    }
}

/// The prefill of `uniform` is the stationary one: a pending timer's remaining
/// time has density proportional to P(delay > x), whose mean is
/// E[D^2] / (2 E[D]) = 20,000 ticks for delays uniform on 1..=60,000, not the
/// 30,000 of fresh timers.
#[test]
fn the_uniform_prefill_has_stationary_remaining_times() {
    let tape = default_tape("uniform");
    let deadlines: Vec<f64> = tape.ops[..tape.prefill]
        .iter()
        .map(|op| match op.op {
            Op::Insert { deadline, .. } => deadline as f64,
            _ => unreachable!("the prefill only inserts"),
        })
        .collect();
    let mean = deadlines.iter().sum::<f64>() / deadlines.len() as f64;
    assert!(
        (mean - 20_000.0).abs() < 200.0,
        "mean remaining time {mean}"
    );
    let due_in_first_tenth =
        deadlines.iter().filter(|&&d| d <= 6_000.0).count() as f64 / deadlines.len() as f64;
    // P(residual <= 6000) = 1 - (1 - 0.1)^2 = 0.19.
    assert!(
        (due_in_first_tenth - 0.19).abs() < 0.01,
        "{due_in_first_tenth}"
    );
}

/// In `timeouts`, the pending timers are mostly the 5% that will time out.
#[test]
fn the_timeouts_prefill_is_dominated_by_long_lived_timers() {
    let tape = default_tape("timeouts");
    let mut cancelled = vec![false; tape.timers as usize];
    for op in &tape.ops {
        if let Op::Cancel { timer } = op.op {
            cancelled[timer as usize] = true;
        }
    }
    let prefill_cancelled =
        cancelled[..tape.prefill].iter().filter(|&&c| c).count() as f64 / tape.prefill as f64;
    // 0.95 x 31 ms of cancelled lifetimes against 0.05 x 30 s: about 2% of the pending.
    assert!(
        prefill_cancelled < 0.04,
        "{prefill_cancelled} of the prefill is cancelled"
    );
    let measured = &cancelled[tape.prefill..];
    let arrivals_cancelled = measured.iter().filter(|&&c| c).count() as f64 / measured.len() as f64;
    assert!(
        (arrivals_cancelled - 0.95).abs() < 0.01,
        "{arrivals_cancelled} of arrivals are cancelled"
    );
}

#[test]
fn burst_deadlines_fall_on_whole_seconds() {
    let tape = builtin(Scale::Small, "burst").generate(SEED);
    for op in &tape.ops {
        if let Op::Insert { deadline, .. } = op.op {
            assert_eq!(deadline % 1_000, 0, "deadline {deadline}");
        }
    }
}

/// `kafka-purgatory` keeps the shape of its source, `TestPurgatoryPerformance`
/// as KAFKA-2226 ran it: 100,000 requests at one a tick, every timer 20 ticks,
/// and the share cancelled in time the chance that a log-normal latency of
/// median 50 and sigma 0.601 comes first: Kafka truncates latencies to whole
/// ms, so P(L < 20) = Phi(ln(20 / 50) / 0.601) = 6.4%; the generator rounds a
/// duration to the nearest tick, so P(L < 19.5) = 5.9%.
#[test]
fn kafka_purgatory_keeps_its_source_shape() {
    let tape = default_tape("kafka-purgatory");
    let measured = &tape.ops[tape.prefill..];
    let delays: Vec<Tick> = measured
        .iter()
        .filter_map(|op| match op.op {
            Op::Insert { deadline, .. } => Some(deadline - op.at),
            _ => None,
        })
        .collect();
    let cancels = measured
        .iter()
        .filter(|op| matches!(op.op, Op::Cancel { .. }))
        .count();
    assert!(
        (98_000..102_000).contains(&delays.len()),
        "{} requests",
        delays.len()
    );
    assert!(
        delays.iter().all(|&delay| delay == 20),
        "a delay other than 20"
    );
    let share = cancels as f64 / delays.len() as f64;
    println!(
        "kafka-purgatory: {} requests, {:.2}% cancelled in time",
        delays.len(),
        share * 100.0
    );
    assert!(
        (0.052..0.070).contains(&share),
        "{share}: cancelled in time"
    );
}

/// `heavy-tail` keeps the shape its header states: about 200,000 arrivals at
/// one a tick, none cancelled, their delays log-uniform on [1, 2^32] (every
/// power of two equally likely: half of them under 2^16, a quarter under
/// 2^8 and a quarter above 2^24), and the 100,000 prefilled timers seen at a
/// random instant of lives drawn length-biased, which for a log-uniform law is
/// uniform on [1, 2^32]: a remaining life is a uniform share of such a life,
/// the product of two uniforms, whose median `t` solves `t - t ln t = 1/2`:
/// 0.1867 of 2^32.
#[test]
fn heavy_tail_spreads_its_delays_over_every_order_of_magnitude() {
    let tape = default_tape("heavy-tail");
    let delays = |ops: &[TimedOp]| -> Vec<Tick> {
        let mut delays: Vec<Tick> = ops
            .iter()
            .filter_map(|op| match op.op {
                Op::Insert { deadline, .. } => Some(deadline - op.at),
                _ => None,
            })
            .collect();
        delays.sort_unstable();
        delays
    };
    let measured = delays(&tape.ops[tape.prefill..]);
    assert!(
        (196_000..204_000).contains(&measured.len()),
        "{} arrivals",
        measured.len()
    );
    assert!(
        !tape.ops[tape.prefill..]
            .iter()
            .any(|op| matches!(op.op, Op::Cancel { .. } | Op::Reschedule { .. })),
        "nothing is cancelled or re-armed"
    );
    let below = |limit: Tick| {
        measured.iter().filter(|&&d| d < limit).count() as f64 / measured.len() as f64
    };
    for (limit, want) in [(1 << 8, 0.25), (1 << 16, 0.5), (1 << 24, 0.75)] {
        let share = below(limit);
        println!("heavy-tail: {:.3} of delays below {limit}", share);
        assert!(
            (share - want).abs() < 0.01,
            "{share} below {limit}, want {want}"
        );
    }
    assert!(*measured.last().unwrap() <= 1 << 32);
    let prefill = delays(&tape.ops[..tape.prefill]);
    assert_eq!(prefill.len(), 100_000);
    let median = prefill[prefill.len() / 2] as f64 / (1u64 << 32) as f64;
    assert!(
        (median - 0.1867).abs() < 0.005,
        "prefill median {median} x 2^32"
    );
}

/// `mass-cancel` is the spike its header describes: 500,000 timers armed in the
/// first 10,000 ticks and all pending at once, 99% of them cancelled between
/// ticks 10,000 and 30,000, none armed after, and a sixth of the survivors
/// (those armed late with long timeouts) still pending at the end.
#[test]
fn mass_cancel_arms_a_spike_then_cancels_almost_all_of_it() {
    let tape = default_tape("mass-cancel");
    assert_eq!(tape.prefill, 0, "the spike starts from an empty queue");
    let (mut inserts, mut cancels) = (0usize, 0usize);
    for timed in &tape.ops {
        match timed.op {
            Op::Insert { .. } => {
                assert!(timed.at < 10_000, "an insert at {}", timed.at);
                inserts += 1;
            }
            Op::Cancel { .. } => {
                assert!(
                    (10_000..30_000).contains(&timed.at),
                    "a cancel at {}",
                    timed.at
                );
                cancels += 1;
            }
            Op::Reschedule { .. } => panic!("nothing is re-armed"),
        }
    }
    assert!(
        (497_000..503_000).contains(&inserts),
        "{inserts} timers armed"
    );
    let cancelled = cancels as f64 / inserts as f64;
    assert!((cancelled - 0.99).abs() < 0.001, "{cancelled} cancelled");
    // One sample a thousand ticks: the peak is the whole spike, at tick 10,000.
    let population = population(tape, 60);
    let peak = *population.iter().max().unwrap();
    assert_eq!(peak, population[10], "the peak is when the spike ends");
    assert!(peak as f64 > 0.999 * inserts as f64, "peak {peak}");
    let survivors = inserts - cancels;
    assert_eq!(
        population[30], survivors,
        "after the cancels, the survivors"
    );
    let last = *population.last().unwrap() as f64 / survivors as f64;
    assert!(
        (0.12..0.22).contains(&last),
        "{last} of survivors at the end"
    );
}

/// What became of the timers a tape arms in its measured phase, and what its
/// operations are.
struct Fates {
    /// Timers inserted in the measured phase.
    armed: usize,
    /// Of those, how many have a cancel on the tape.
    cancelled: usize,
    /// Of those, how many are rescheduled at least once.
    rearmed: usize,
    /// Measured operations that are reschedules, as a share of all of them.
    reschedule_share: f64,
    /// Delays of the measured inserts, sorted.
    delays: Vec<Tick>,
}

fn fates(tape: &Tape) -> Fates {
    let first = tape.prefill as u32;
    let measured = &tape.ops[tape.prefill..];
    let mut cancelled = vec![false; tape.timers as usize];
    let mut rearmed = vec![false; tape.timers as usize];
    let mut delays = Vec::new();
    let mut reschedules = 0;
    for op in measured {
        match op.op {
            Op::Insert { deadline, .. } => delays.push(deadline - op.at),
            Op::Cancel { timer } => cancelled[timer as usize] = true,
            Op::Reschedule { timer, .. } => {
                rearmed[timer as usize] = true;
                reschedules += 1;
            }
        }
    }
    delays.sort_unstable();
    let count = |flags: &[bool]| flags[first as usize..].iter().filter(|&&f| f).count();
    Fates {
        armed: (tape.timers - first) as usize,
        cancelled: count(&cancelled),
        rearmed: count(&rearmed),
        reschedule_share: reschedules as f64 / measured.len() as f64,
        delays,
    }
}

/// `kernel-timeouts` keeps the shape of its sources: almost every short
/// timeout is cancelled (the spec's 98%, less those whose cancel falls after
/// the run or after the deadline), a fifth are re-armed first, delays centre
/// on the 200 ms RTO floor, one timer in a thousand is a 3,600 s keepalive,
/// and those keepalives are most of what is pending.
#[test]
fn kernel_timeouts_are_cancelled_short_timers_over_rare_long_ones() {
    let tape = default_tape("kernel-timeouts");
    let f = fates(tape);
    let share = |n: usize| n as f64 / f.armed as f64;
    assert!(
        (0.95..0.97).contains(&share(f.cancelled)),
        "cancelled {}",
        share(f.cancelled)
    );
    assert!(
        (0.21..0.24).contains(&share(f.rearmed)),
        "re-armed {}",
        share(f.rearmed)
    );
    let median = f.delays[f.delays.len() / 2];
    assert!((190..=210).contains(&median), "median delay {median}");
    let long = share(f.delays.iter().filter(|&&d| d == 3_600_000).count());
    assert!((0.0007..0.0013).contains(&long), "keepalives {long}");
    let staying = tape.ops[..tape.prefill]
        .iter()
        .filter(|op| matches!(op.op, Op::Insert { deadline, .. } if deadline > tape.end))
        .count() as f64
        / tape.prefill as f64;
    assert!(
        (0.55..0.7).contains(&staying),
        "{staying} of the prefill stays"
    );
}

/// `idle-reset` is reschedule-heavy: nine operations in ten are re-arms, every
/// delay is the 5 s idle timeout, and few connections close before the run
/// ends (their chains of requests last about 20 s).
#[test]
fn idle_reset_is_mostly_reschedules_of_a_five_second_timeout() {
    let f = fates(default_tape("idle-reset"));
    assert!(
        (0.92..0.95).contains(&f.reschedule_share),
        "{}",
        f.reschedule_share
    );
    assert!(f.delays.iter().all(|&d| d == 5_000));
    let cancelled = f.cancelled as f64 / f.armed as f64;
    assert!(cancelled < 0.05, "cancelled {cancelled}");
}

/// `workloads/README.md`'s table of built-ins is what the code makes from
/// these tapes now: a change to a spec, to the generator or to `Shape` fails
/// here until `make docs` rewrites it. The tapes and shapes are the ones the
/// other tests share, so the check costs almost nothing more.
#[test]
fn the_readme_table_matches_the_tapes() {
    let specs = builtins(Scale::Default);
    let mut rows: Vec<TableRow<'_>> = specs
        .iter()
        .zip(default_shapes().iter().copied())
        .map(|(spec, shape)| TableRow::of_spec(spec, shape))
        .collect();
    let imports: Vec<_> = workloads::REAL_TRACES
        .iter()
        .map(|real| (real, real.import().expect(real.name)))
        .collect();
    rows.extend(
        imports
            .iter()
            .map(|(real, import)| TableRow::of_real(real, import)),
    );
    let block = workloads::readme::builtin_table(&rows, SEED);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("workloads/README.md");
    assert!(
        readme.contains(&block),
        "workloads/README.md's table of built-ins differs from the specs and their tapes: \
         run `make docs` and commit the result"
    );
}

/// The figures each spec's header states for its default-scale tape (a
/// synthetic shape's are its design, a modelled one's come from its source):
/// measured inserts (with reschedules, for `bimodal`), and the share of
/// timers cancelled, each within 3% of the figure. The shapes particular to
/// one workload have tests of their own.
#[test]
fn the_tapes_hold_the_figures_their_headers_state() {
    // (workload, measured inserts and reschedules, share cancelled)
    let figures = [
        ("uniform", 200_000.0, 0.0),
        ("fixed-timeout", 100_000.0, 0.0),
        ("timeouts", 490_000.0, 0.95),
        ("bimodal", 280_000.0, 0.0),
        ("burst", 270_000.0, 0.0),
        ("periodic", 371_000.0, 0.0),
        ("sparse", 11_000.0, 0.0),
        ("far-future", 290_000.0, 0.0),
        ("scaling-1e3", 140_000.0, 0.37),
        ("scaling-1e4", 140_000.0, 0.37),
        ("scaling-1e5", 140_000.0, 0.37),
        // Its measured phase is 3 s of the 30 s in which cancels land, so the
        // share it sees leans on the cancels of timers armed in the prefill.
        ("scaling-1e6", 140_000.0, 0.38),
    ];
    for (name, operations, cancelled) in figures {
        let shape = default_shape(name);
        let got = (shape.inserts + shape.reschedules) as f64;
        assert!(
            near(got, operations, 0.03),
            "{name}: {got} measured inserts and reschedules, the header says {operations}"
        );
        assert!(
            near(shape.cancelled(), cancelled, 0.03),
            "{name}: {:.4} cancelled, the header says {cancelled}",
            shape.cancelled()
        );
    }
}

/// `bimodal`'s two populations, as its header states them: 2% of arrivals
/// are connections with a 60 s idle timeout, re-armed 15 times a tick in
/// all; the rest are 100-300 ms retransmit timers, 25 a tick.
#[test]
fn bimodal_has_short_timers_and_re_armed_idle_timeouts() {
    let tape = default_tape("bimodal");
    let shape = default_shape("bimodal");
    let ticks = tape.end as f64;
    let (mut connections, mut short) = (0usize, 0usize);
    for timed in &tape.ops[tape.prefill..] {
        match timed.op {
            Op::Insert { deadline, .. } => match deadline - timed.at {
                60_000 => connections += 1,
                100..=300 => short += 1,
                delay => panic!("an insert with delay {delay}"),
            },
            Op::Reschedule { deadline, timer } => {
                assert_eq!(deadline - timed.at, 60_000, "timer {timer} re-armed");
            }
            Op::Cancel { .. } => panic!("nothing is cancelled"),
        }
    }
    let share = connections as f64 / shape.inserts as f64;
    assert!(
        near(share, 0.02, 0.1),
        "{share} of arrivals are connections"
    );
    let rearms = shape.reschedules as f64 / ticks;
    assert!(near(rearms, 15.0, 0.05), "{rearms} re-arms a tick");
    let short_rate = short as f64 / ticks;
    assert!(
        near(short_rate, 25.0, 0.05),
        "{short_rate} short timers a tick"
    );
}

/// `burst`'s timers share deadlines, as its header states: each whole second
/// is the deadline of a herd of about 18,200 timers (18.2 arrivals a tick,
/// each landing on one of the nine seconds its 1-10 s delay reaches), and
/// about ten deadlines are pending at once (one second's arrivals reach ten). Only the seconds whose whole herd
/// is on the tape (the prefill holds those armed before time 0) are counted.
#[test]
fn burst_timers_share_each_whole_second_in_herds() {
    let tape = default_tape("burst");
    let mut herds = std::collections::BTreeMap::<Tick, usize>::new();
    for timed in &tape.ops {
        if let Op::Insert { deadline, .. } = timed.op {
            *herds.entry(deadline).or_default() += 1;
        }
    }
    let complete: Vec<(Tick, usize)> = herds
        .range(1_000..=tape.end)
        .map(|(&deadline, &count)| (deadline, count))
        .collect();
    assert_eq!(complete.len(), 15, "{complete:?}");
    for (deadline, count) in complete {
        assert!(
            near(count as f64, 18_200.0, 0.05),
            "{count} timers due at {deadline}"
        );
    }
    // The arrivals of one second, 5 s into the run, share ten or eleven
    // deadlines among them: what a queue holds is ten herds.
    let deadlines: std::collections::BTreeSet<Tick> = tape.ops[tape.prefill..]
        .iter()
        .filter(|timed| (5_000..6_000).contains(&timed.at))
        .filter_map(|timed| match timed.op {
            Op::Insert { deadline, .. } => Some(deadline),
            _ => None,
        })
        .collect();
    assert!(
        (10..=11).contains(&deadlines.len()),
        "one second's arrivals have deadlines {deadlines:?}"
    );
}

/// `periodic`'s tasks, as its header states: each re-inserted with its own
/// period, 1 s to 1 h, never cancelled; a task with period `p` fires
/// 225,000 / `p` times in the run, so the 1,000 one-second tasks (weight 1 of
/// 10) make about 225,000 of the re-inserts and the 2,000 five-second ones
/// 90,000.
#[test]
fn periodic_tasks_are_re_inserted_with_their_periods() {
    let tape = default_tape("periodic");
    let mut by_period = std::collections::BTreeMap::<Tick, usize>::new();
    for timed in &tape.ops[tape.prefill..] {
        match timed.op {
            Op::Insert { deadline, .. } => *by_period.entry(deadline - timed.at).or_default() += 1,
            _ => panic!("a periodic task is only re-inserted"),
        }
    }
    let periods: Vec<Tick> = by_period.keys().copied().collect();
    assert!(
        periods
            .iter()
            .all(|p| [1_000, 5_000, 10_000, 60_000, 300_000, 3_600_000].contains(p)),
        "periods {periods:?}"
    );
    for (period, want) in [(1_000, 225_000.0), (5_000, 90_000.0), (10_000, 45_000.0)] {
        let got = by_period[&period] as f64;
        assert!(
            near(got, want, 0.1),
            "{got} re-inserts with period {period}, expected about {want}"
        );
    }
    assert_eq!(default_shape("periodic").peak_pending, 10_000);
}

/// `far-future`'s decades, as its header states: nine arrivals in ten are
/// 1-10 s timers, and the longest reach months.
#[test]
fn far_future_arrivals_are_mostly_short_with_a_long_tail() {
    let tape = default_tape("far-future");
    let delays: Vec<Tick> = tape.ops[tape.prefill..]
        .iter()
        .filter_map(|timed| match timed.op {
            Op::Insert { deadline, .. } => Some(deadline - timed.at),
            _ => None,
        })
        .collect();
    let short = delays.iter().filter(|&&d| d <= 10_000).count() as f64 / delays.len() as f64;
    assert!(near(short, 0.9, 0.01), "{short} of arrivals are 1-10 s");
    let max = default_shape("far-future").delays.unwrap().max;
    assert!(max > 100_000_000, "the longest delay is {max} ticks");
}

/// `ratas-connections` is ratas's benchmark: 20 pairs (or 19, by ratas's
/// creation rule) each answering about 180 requests with 128 messages paced
/// 10 ticks apart, so almost every timer armed is a 10-tick pace timer; each
/// request's deadline is cancelled; every unit is deleted at about 191 s,
/// after which nothing is pending; and the spec's operation estimate is
/// within a third of the tape.
#[test]
fn ratas_connections_replays_ratas_benchmark() {
    let spec = builtin(Scale::Default, "ratas-connections");
    let tape = default_tape("ratas-connections");
    assert_eq!(tape.prefill, 0);
    let f = fates(tape);
    // 180 s of one request a second, a response of 128 messages each.
    let per_pair = 180.0 * 128.0;
    let pairs = f.armed as f64 / per_pair;
    assert!(
        (18.9..20.5).contains(&pairs),
        "{pairs} pairs' worth of timers"
    );
    let paced = f.delays.iter().filter(|&&d| d == 10).count() as f64 / f.delays.len() as f64;
    assert!(paced > 0.98, "{paced} of the inserts are pace timers");
    let cancels = tape
        .ops
        .iter()
        .filter(|op| matches!(op.op, Op::Cancel { .. }))
        .count() as f64;
    // A cancelled deadline per request, about 180 per pair, and a few more
    // when the units are deleted.
    let requests = pairs * 180.0;
    assert!(
        (0.95..1.1).contains(&(cancels / requests)),
        "{cancels} cancels for about {requests} requests"
    );
    let population = population(tape, 200);
    assert!(
        population[..190].iter().skip(2).all(|&n| n > 0),
        "the units hold timers while they talk"
    );
    assert!(
        population[192..].iter().all(|&n| n == 0),
        "nothing is pending once every unit is deleted"
    );
    let estimate = spec.expected_ops().unwrap() / tape.ops.len() as f64;
    assert!(
        (0.8..1.33).contains(&estimate),
        "estimate over tape {estimate}"
    );
}
