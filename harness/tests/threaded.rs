//! The threaded mode under stress: several producers, every sharing, exact
//! and inexact designs, two crate adapters (one of them not `Send`) and
//! every native row (a crate or a baseline through its own API, two of them
//! not `Send`), on random
//! tapes built to race cancels and reschedules against firings, each run
//! tallied exactly: no timer lost, fired twice, fired after its cancel won,
//! or fired before its deadline.

use harness::threaded::sharing::Sharing;
use harness::threaded::{self, Config, Refusal};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use workloads::{Op, Tape, TimedOp};

mod common;
use common::Scratch;

/// The rows stressed: an exact heap, a ticked exact wheel, the three
/// inexact designs' two kinds (a coarse ticked wheel and Linux's), a design
/// of ours, a `Send` crate adapter and one that is not, and every native row
/// (their keys are the caller's, kept per timer, which the sharings must
/// hand to the queue's advance).
const ROWS: [&str; 13] = [
    "binary-heap",
    "rounds-wheel",
    "netty-wheel",
    "linux-wheel",
    "sweep-wheel",
    "timer-queue",
    "hash-wheel-timer",
    "std-binary-heap-plain",
    "btree-map-plain",
    "nexus-timer-native",
    "timer-queue-native",
    "tokio-delay-queue-native",
    "hash-wheel-timer-native",
];

/// The rows of [`ROWS`] that are not `Send`, which `locked` refuses.
const NOT_SEND: [&str; 3] = [
    "hash-wheel-timer",
    "nexus-timer-native",
    "hash-wheel-timer-native",
];

/// Random tapes per (row, sharing, producers): the repetitions.
const SEEDS: u64 = 5;
/// Operations per random tape.
const OPS: usize = 3_000;
/// A tick is a microsecond of wall time: producers fall behind their
/// operations' instants all the time, which is what races them against the
/// firings.
const SPEEDUP: u64 = 1_000;

/// A random tape: bursts of operations at a slowly moving clock, many
/// deadlines a tick or two ahead (cancelled or moved just as they come due),
/// cancels and reschedules of any earlier timer, pending or not.
fn random_tape(seed: u64) -> Tape {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ops = Vec::with_capacity(OPS);
    let (mut at, mut timers) = (0u64, 0u32);
    for _ in 0..OPS {
        if rng.random_bool(0.3) {
            at += rng.random_range(0..8);
        }
        let deadline = match rng.random_range(0..10) {
            0 => at.saturating_sub(rng.random_range(0..5)),
            1..=3 => at + rng.random_range(0..3),
            _ => at + rng.random_range(1..400),
        };
        // Mostly the latest timers, whose deadlines are near.
        let recent =
            |rng: &mut ChaCha8Rng, timers: u32| timers - 1 - rng.random_range(0..timers.min(20));
        let op = match rng.random_range(0..10) {
            0..=4 => None,
            5..=7 if timers > 0 => Some(Op::Cancel {
                timer: recent(&mut rng, timers),
            }),
            _ if timers > 0 => Some(Op::Reschedule {
                timer: recent(&mut rng, timers),
                deadline,
            }),
            _ => None,
        };
        let op = op.unwrap_or_else(|| {
            timers += 1;
            Op::Insert {
                timer: timers - 1,
                deadline,
            }
        });
        ops.push(TimedOp { at, op });
    }
    let tape = Tape {
        name: format!("random-{seed}"),
        ops,
        prefill: 0,
        end: at + 500,
        timers,
    };
    tape.check().expect("a valid tape");
    tape
}

#[test]
fn no_timer_is_lost_doubled_or_early_under_any_sharing() {
    let mut runs = 0;
    let mut missed_cancels = 0;
    for seed in 0..SEEDS {
        let tape = random_tape(seed);
        for row in ROWS {
            for sharing in Sharing::ALL {
                for producers in 1..=3 {
                    // Every other tape saturates: producers as fast as they
                    // can, far ahead of the clock.
                    let config = Config {
                        sharing,
                        producers,
                        speedup: SPEEDUP,
                        window: None,
                        saturate: seed % 2 == 1,
                        presize: 0,
                    };
                    let what = format!("{row} {sharing} P={producers} seed {seed}");
                    match threaded::run_row(row, &tape, &config).expect(row) {
                        Ok(cell) => {
                            assert_eq!(cell.tally.armed, u64::from(tape.timers), "{what}");
                            assert_eq!(
                                cell.tally.fired + cell.tally.cancelled + cell.tally.pending,
                                cell.tally.armed,
                                "{what}"
                            );
                            assert!(cell.wakeups >= cell.empty_wakeups, "{what}");
                            missed_cancels += cell.tally.missed_cancels;
                            runs += 1;
                        }
                        Err(Refusal::Unshareable(reason)) => {
                            assert!(NOT_SEND.contains(&row), "{what}: {reason}");
                            assert_eq!(sharing, Sharing::Locked, "{what}");
                            assert!(reason.contains("not Send"), "{reason}");
                        }
                        Err(Refusal::Violation(violation)) => panic!("{what}: {violation}"),
                    }
                }
            }
        }
    }
    assert!(runs > 0);
    // The tapes cancel timers that already fired: some cancels must miss.
    assert!(missed_cancels > 0, "no cancel ever missed in {runs} runs");
}

#[test]
fn a_window_replays_the_first_ticks_only() {
    let tape = random_tape(7);
    let config = Config {
        sharing: Sharing::Handoff,
        producers: 2,
        speedup: SPEEDUP,
        window: Some(200),
        saturate: false,
        presize: 0,
    };
    let cell = threaded::run_row("4-ary-heap", &tape, &config)
        .expect("a registered row")
        .expect("a clean run");
    assert_eq!(cell.end, 200);
    assert!(cell.tally.armed < u64::from(tape.timers));
    assert!(threaded::run_row("no-such-row", &tape, &config).is_none());
    let rows = threaded::rows();
    assert!(rows.contains(&"4-ary-heap"));
    // The native rows run threaded, the sweep points do not.
    assert!(rows.contains(&"tokio-delay-queue-native"));
    assert!(!rows.iter().any(|row| row.contains('@')));
    assert!(threaded::run_row("rounds-wheel@tick=10", &tape, &config).is_none());
}

fn scratch(name: &str) -> Scratch {
    Scratch::new("threaded", name)
}

fn timerbench(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_timerbench"))
        .args(args)
        .output()
        .expect("timerbench runs")
}

/// A small run's flags: one workload, two rows (one a crate that is not
/// `Send`), one repetition, in `out`.
fn small_run<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "run",
        "--scale",
        "small",
        "--repeat",
        "1",
        "--algorithms",
        "binary-heap,nexus-timer",
        "--workloads",
        "kafka-purgatory",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn run_threaded_writes_the_runs_threaded_csv_and_a_plain_run_removes_it() {
    let dir = scratch("csv");
    let out = dir.arg();
    let threaded_flags = [
        "--threaded",
        "--producers",
        "1,2",
        "--sharing",
        "locked,handoff",
        "--speedup",
        "100",
        "--threaded-window",
        "300",
        "--threaded-repeat",
        "1",
        "--saturate",
    ];
    let run = timerbench(&small_run(out, &threaded_flags));
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let path = dir.join(schema::THREADED_FILE);
    let rows: Vec<schema::ThreadedRow> = schema::read_csv(&path).expect("threaded.csv reads");
    assert_eq!(rows.len(), 2 * 2 * 2, "rows x sharings x producer counts");
    let metadata = schema::read_metadata(&dir.join(schema::METADATA_FILE)).expect("metadata");
    for row in &rows {
        assert_eq!(Some(&row.run_id), metadata.run_id.as_ref());
        assert_eq!((row.speedup, row.window_ticks.min(300)), (100, 300));
        assert!(row.saturated);
        let unshareable = row.algorithm == "nexus-timer" && row.sharing == "locked";
        assert_eq!(row.is_ok(), !unshareable, "{row:?}");
        if row.is_ok() {
            assert_eq!(
                row.fired + row.cancelled + row.pending,
                row.armed,
                "{row:?}"
            );
            assert!(row.wakeups > 0, "{row:?}");
            assert!(row.ops_per_s > 0.0, "{row:?}");
        } else {
            assert!(row.skip_reason.contains("not Send"), "{row:?}");
        }
    }
    assert_eq!(
        metadata.threaded,
        Some(schema::ThreadedSettings {
            producers: vec![1, 2],
            sharings: vec!["locked".to_owned(), "handoff".to_owned()],
            speedup: 100,
            window_ticks: 300,
            repetitions: 1,
            saturate: true,
        }),
        "the metadata records the threaded settings"
    );
    let files = schema::RunFiles::read(&dir).expect("the strict reader holds the rows to them");
    assert_eq!(files.threaded.len(), rows.len());
    let plain = timerbench(&small_run(out, &[]));
    assert!(plain.status.success());
    assert!(
        !path.exists(),
        "a run without --threaded removes the earlier threaded.csv"
    );
}

#[test]
fn a_row_the_single_threaded_passes_refuse_is_skipped_threaded_for_the_same_reason() {
    let dir = scratch("admit");
    let out = dir.arg();
    let mut args = small_run(
        out,
        &[
            "--threaded",
            "--producers",
            "1",
            "--sharing",
            "handoff",
            "--speedup",
            "100",
            "--threaded-window",
            "300",
            "--threaded-repeat",
            "1",
            "--max-ticks",
            "10",
        ],
    );
    args[6] = "binary-heap,rounds-wheel";
    let run = timerbench(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let runs: Vec<schema::RunRow> = schema::read_csv(&dir.join(schema::RUNS_FILE)).expect("runs");
    let rows: Vec<schema::ThreadedRow> =
        schema::read_csv(&dir.join(schema::THREADED_FILE)).expect("threaded.csv reads");
    let reason = |algorithm: &str| {
        let single = runs
            .iter()
            .find(|r| r.algorithm == algorithm)
            .expect("a runs.csv row");
        let threaded = rows
            .iter()
            .find(|r| r.algorithm == algorithm)
            .expect("a threaded row");
        (single.skip_reason.clone(), threaded.skip_reason.clone())
    };
    let (single, threaded) = reason("rounds-wheel");
    assert!(single.contains("--max-ticks"), "{single}");
    assert_eq!(threaded, single, "the same rule, the same words");
    assert_eq!(reason("binary-heap"), (String::new(), String::new()));
}

#[test]
fn bad_threaded_flags_are_refused_with_what_is_valid() {
    let dir = scratch("flags");
    let out = dir.arg();
    for (flags, fragment) in [
        (&["--threaded", "--sharing", "mutex"][..], "locked"),
        (&["--threaded", "--producers", "0"][..], "0"),
        (&["--threaded", "--speedup", "0"][..], "0"),
        (&["--producers", "3"][..], "--threaded"),
    ] {
        let run = timerbench(&small_run(out, flags));
        let message = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{flags:?}: {message}");
        assert!(message.contains(fragment), "{flags:?}: {message}");
        assert!(!dir.join(schema::RUNS_FILE).exists());
    }
}

/// `binary-heap` that panics when timer 5 is inserted: a queue that breaks
/// under a producer.
struct Panicky(algorithms::binary_heap::IndexedBinaryHeap<u64>);

impl algorithms::Algorithm for Panicky {
    const NAME: &'static str = "panicky";
    const SUMMARY: &'static str = "a heap that panics on timer 5";
    const FAMILY: algorithms::Family = algorithms::Family::Baseline;
    fn with_defaults() -> Self {
        Self(algorithms::Algorithm::with_defaults())
    }
    fn params(&self) -> String {
        String::new()
    }
}

impl algorithms::TimerQueue<u64> for Panicky {
    fn insert(&mut self, deadline: u64, payload: u64) -> algorithms::Handle {
        assert_ne!(payload, 5, "timer 5 breaks the queue");
        self.0.insert(deadline, payload)
    }
    fn cancel(&mut self, handle: algorithms::Handle) -> Option<u64> {
        self.0.cancel(handle)
    }
    fn advance(&mut self, now: u64, out: &mut Vec<algorithms::Expired<u64>>) {
        self.0.advance(now, out);
    }
    fn next_expiry(&self) -> Option<u64> {
        self.0.next_expiry()
    }
    fn now(&self) -> u64 {
        self.0.now()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn counters(&self) -> algorithms::Counters {
        self.0.counters()
    }
}

#[test]
fn a_queue_that_panics_under_a_producer_fails_the_run_instead_of_hanging_it() {
    let tape = random_tape(11);
    for sharing in Sharing::ALL {
        let config = Config {
            sharing,
            producers: 2,
            speedup: SPEEDUP,
            window: None,
            saturate: false,
            presize: 0,
        };
        let outcome = std::panic::catch_unwind(|| threaded::run::<Panicky>(&tape, &config));
        assert!(outcome.is_err(), "{sharing}: the panic reaches the caller");
    }
}
