//! The conformance suite: every registered algorithm against the contract.
//!
//! The suite walks `algorithms::registry`, so registering an algorithm is all it
//! takes to put it here. Each (algorithm, check) pair is its own named test,
//! `<algorithm>::<check>`, so `cargo test -- --list` shows the coverage and
//! `cargo test -- hashed-wheel::` runs one algorithm's checks.
//!
//! * `differential` (see `differential.rs`): random operation sequences replayed
//!   against the algorithm and the reference model built with the algorithm's
//!   `Algorithm::due_at` (the exact model, for an exact algorithm), compared
//!   after every step.
//! * `edge_cases.rs`: the hand-written cases the contract names.
//! * `lateness_within_bound` (see `lateness.rs`): the algorithm's declared due
//!   tick keeps its declared lateness bound, and an exact one is exact.
//! * `soak`: a long seeded differential run, ignored by default; `make soak` runs
//!   it in release mode.

mod differential;
mod edge_cases;
mod lateness;

use algorithms::registry::{self, AlgorithmVisitor, Payload};
use algorithms::{Algorithm, TimerQueue};
use libtest_mimic::{Arguments, Trial};

/// One conformance check, instantiated for one algorithm.
type Check = fn();

/// Collects one trial per (algorithm, check).
struct Trials(Vec<Trial>);

impl AlgorithmVisitor for Trials {
    fn visit<Q: Algorithm + TimerQueue<Payload>>(&mut self) {
        let checks: &[(&str, Check)] = &[
            (
                "differential_proptest",
                differential::proptest_against_model::<Q>,
            ),
            (
                "differential_seeded",
                differential::seeded_against_model::<Q>,
            ),
            ("deadline_at_now", edge_cases::deadline_at_now::<Q>),
            (
                "deadline_in_the_past",
                edge_cases::deadline_in_the_past::<Q>,
            ),
            ("cancel_after_fire", edge_cases::cancel_after_fire::<Q>),
            ("cancel_twice", edge_cases::cancel_twice::<Q>),
            (
                "stale_handle_after_reuse",
                edge_cases::stale_handle_after_reuse::<Q>,
            ),
            ("advance_backwards", edge_cases::advance_backwards::<Q>),
            (
                "advance_by_zero_fires_overdue",
                edge_cases::advance_by_zero_fires_overdue::<Q>,
            ),
            (
                "many_timers_in_one_slot",
                edge_cases::many_timers_in_one_slot::<Q>,
            ),
            ("deadlines_near_max", edge_cases::deadlines_near_max::<Q>),
            (
                "huge_jump_with_pending_timers",
                edge_cases::huge_jump_with_pending_timers::<Q>,
            ),
            (
                "empty_queue_reports_nothing",
                edge_cases::empty_queue_reports_nothing::<Q>,
            ),
            (
                "fires_in_deadline_order",
                edge_cases::fires_in_deadline_order::<Q>,
            ),
            (
                "reschedule_moves_only_pending_timers",
                edge_cases::reschedule_moves_only_pending_timers::<Q>,
            ),
            (
                "lateness_within_bound",
                lateness::lateness_within_bound::<Q>,
            ),
        ];
        for &(check, run) in checks {
            self.0
                .push(Trial::test(format!("{}::{check}", Q::NAME), move || {
                    run();
                    Ok(())
                }));
        }
        self.0.push(
            Trial::test(format!("{}::soak", Q::NAME), || {
                differential::soak_against_model::<Q>();
                Ok(())
            })
            .with_ignored_flag(true),
        );
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Trials(Vec::new());
    registry::for_each(&mut trials);
    libtest_mimic::run(&args, trials.0).exit();
}
