//! The native rows (crates and baselines driven through their own API, see
//! `algorithms::driven`) are not held to the contract, so the conformance
//! suite does not check them. What they must do is fire exactly what the
//! reference model fires, at the same ticks, and answer every cancel and
//! reschedule as it does: this differential test replays random tapes (overdue
//! inserts, ties, cancels and reschedules of fired and cancelled timers, far
//! deadlines) and the small built-ins through every native row, under both
//! drivers, and compares checksums with the exact reference model's.

use algorithms::Algorithm;
use algorithms::driven::Driven;
use algorithms::registry::{self, RowVisitor};
use harness::bench::Prepared;
use harness::passes::Verify;
use harness::replay::{Buffers, Driver, prefilled, replay_measured, retire};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use workloads::{Op, Scale, Tape, TimedOp};

/// Random tapes per seed list entry.
const SEEDS: u64 = 40;
/// Operations per random tape.
const OPS: usize = 600;

/// A random tape: bursts of operations at a slowly moving clock, deadlines
/// from overdue to a few thousand ticks ahead, cancels and reschedules of any
/// earlier timer (pending or not).
fn random_tape(seed: u64) -> Tape {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ops = Vec::with_capacity(OPS);
    let (mut at, mut timers) = (0u64, 0u32);
    for _ in 0..OPS {
        if rng.random_bool(0.3) {
            at += rng.random_range(0..40);
        }
        let deadline = match rng.random_range(0..10) {
            0 => at.saturating_sub(rng.random_range(0..5)),
            1 => at + rng.random_range(0..3),
            2 => at + rng.random_range(0..100_000),
            _ => at + rng.random_range(1..2_000),
        };
        let op = match rng.random_range(0..10) {
            0..=4 => None,
            5..=7 if timers > 0 => Some(Op::Cancel {
                timer: rng.random_range(0..timers),
            }),
            _ if timers > 0 => Some(Op::Reschedule {
                timer: rng.random_range(0..timers),
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
        end: at + 3_000,
        timers,
    };
    tape.check().expect("a valid tape");
    tape
}

/// Replays `prepared` through every native row with the verification hooks
/// and checks each checksum against the reference model's.
struct Differential<'a> {
    prepared: &'a Prepared,
    driver: Driver,
    checked: usize,
}

impl RowVisitor for Differential<'_> {
    fn visit<Q: Algorithm + Driven + 'static>(&mut self) {
        if self.prepared.max_tick > Q::TICK_LIMIT || self.prepared.max_delay > Q::DELAY_LIMIT {
            return;
        }
        let tape = &self.prepared.tape;
        let mut buffers: Buffers<Q::Key> = Buffers::default();
        let mut verify = Verify::new(tape.timers as usize);
        let mut queue: Q = prefilled(tape, self.driver, 0, &mut buffers, &mut verify);
        replay_measured(&mut queue, tape, self.driver, &mut buffers, &mut verify);
        assert!(queue.is_empty() || queue.next_expiry().is_some());
        retire(queue, &mut buffers);
        assert_eq!(
            verify.checksum,
            self.prepared.checksum,
            "{} disagrees with the reference model on {} ({} driver)",
            algorithms::variant::row_name::<Q>(),
            tape.name,
            self.driver.name()
        );
        self.checked += 1;
    }
}

fn check_all_natives(tape: Tape, driver: Driver) -> usize {
    let prepared = Prepared::new(tape, driver);
    let mut differential = Differential {
        prepared: &prepared,
        driver,
        checked: 0,
    };
    registry::for_each_native(&mut differential);
    differential.checked
}

#[test]
fn native_rows_match_the_reference_on_random_tapes() {
    for seed in 0..SEEDS {
        for driver in [Driver::Event, Driver::Tick] {
            assert!(check_all_natives(random_tape(seed), driver) > 0);
        }
    }
}

#[test]
fn native_rows_match_the_reference_on_the_small_builtins() {
    for spec in workloads::builtins(Scale::Small) {
        assert!(check_all_natives(spec.generate(7), Driver::Event) > 0);
    }
}
