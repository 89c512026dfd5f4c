//! The threaded mode under stress: several producers, every sharing, exact
//! and inexact designs and two crates (one of them not `Send`), on random
//! tapes built to race cancels and reschedules against firings, each run
//! tallied exactly: no timer lost, fired twice, fired after its cancel won,
//! or fired before its deadline.

use harness::threaded::sharing::Sharing;
use harness::threaded::{self, Config, Refusal};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use workloads::{Op, Tape, TimedOp};

/// The rows stressed: an exact heap, a ticked exact wheel, the three
/// inexact designs' two kinds (a coarse ticked wheel and Linux's), a design
/// of ours, a `Send` crate adapter and one that is not.
const ROWS: [&str; 7] = [
    "binary-heap",
    "rounds-wheel",
    "netty-wheel",
    "linux-wheel",
    "sweep-wheel",
    "timer-queue",
    "hash-wheel-timer",
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
                    let config = Config {
                        sharing,
                        producers,
                        speedup: SPEEDUP,
                        window: None,
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
                            assert_eq!((row, sharing), ("hash-wheel-timer", Sharing::Locked));
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
    };
    let cell = threaded::run_row("4-ary-heap", &tape, &config)
        .expect("a registered row")
        .expect("a clean run");
    assert_eq!(cell.end, 200);
    assert!(cell.tally.armed < u64::from(tape.timers));
    assert!(threaded::run_row("no-such-row", &tape, &config).is_none());
    assert!(threaded::rows().contains(&"4-ary-heap"));
}
