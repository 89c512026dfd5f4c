//! The conformance suite: every registered algorithm against the contract.
//!
//! The suite walks `algorithms::registry` (the algorithms and the compiled
//! points of their parameter sweeps), so registering an algorithm is all it
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
//!   it in release mode, each algorithm's within a wall-clock budget
//!   ([`SOAK_BUDGET_ENV`], default [`DEFAULT_SOAK_BUDGET_SECS`]) after which
//!   its trial fails with the reason, rather than the suite hanging.

mod differential;
mod edge_cases;
mod lateness;

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use algorithms::registry::{self, AlgorithmVisitor, Payload};
use algorithms::variant::row_name;
use algorithms::{Algorithm, TimerQueue};
use libtest_mimic::{Arguments, Failed, Trial};

/// The environment variable that sets each soak trial's budget, in seconds.
const SOAK_BUDGET_ENV: &str = "TIMERBENCH_SOAK_BUDGET_SECS";

/// Each algorithm's soak budget unless [`SOAK_BUDGET_ENV`] says otherwise:
/// ten minutes for 10^7 operations, far more than any algorithm here needs
/// (the slowest, `sorted-list`, is capped at 20,000 pending).
const DEFAULT_SOAK_BUDGET_SECS: u64 = 600;

/// The stack of the thread a soak runs on: the default test thread's, with
/// room to spare for the reference model's recursion-free but deep frames.
const SOAK_STACK_BYTES: usize = 16 << 20;

/// The soak budget: [`SOAK_BUDGET_ENV`] if set to a whole number of seconds
/// above 0, else the default (a bad value is said, not ignored silently).
fn soak_budget() -> Result<Duration, Failed> {
    match std::env::var(SOAK_BUDGET_ENV) {
        Err(_) => Ok(Duration::from_secs(DEFAULT_SOAK_BUDGET_SECS)),
        Ok(text) => match text.parse::<u64>() {
            Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
            _ => Err(format!(
                "{SOAK_BUDGET_ENV} is {text:?}; it must be a whole number of seconds above 0"
            )
            .into()),
        },
    }
}

/// Runs `check` on a thread of its own and waits at most `budget` for it. A
/// check past its budget fails its trial with the reason (the thread, stuck
/// perhaps inside one call, is left to end with the process); a check that
/// panics fails with its message.
fn within_budget(name: String, budget: Duration, check: Check) -> Result<(), Failed> {
    let (done, finished) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name(name.clone())
        .stack_size(SOAK_STACK_BYTES)
        .spawn(move || {
            check();
            let _ = done.send(());
        })
        .map_err(|error| Failed::from(format!("cannot start {name}: {error}")))?;
    match finished.recv_timeout(budget) {
        Ok(()) => worker
            .join()
            .map_err(|_| Failed::from(format!("{name} panicked after it finished"))),
        Err(RecvTimeoutError::Disconnected) => {
            let payload = worker.join().err();
            let message = payload
                .as_ref()
                .and_then(|p| {
                    p.downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                })
                .unwrap_or_else(|| "a panic without a message".to_owned());
            Err(format!("{name} failed: {message}").into())
        }
        Err(RecvTimeoutError::Timeout) => Err(format!(
            "{name} ran past its budget of {} s without finishing (perhaps stuck in one call); \
             raise {SOAK_BUDGET_ENV} if the machine is just slow",
            budget.as_secs()
        )
        .into()),
    }
}

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
            (
                "differential_spikes",
                differential::spikes_against_model::<Q>,
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
            self.0.push(Trial::test(
                format!("{}::{check}", row_name::<Q>()),
                move || {
                    run();
                    Ok(())
                },
            ));
        }
        self.0.push(
            Trial::test(format!("{}::soak", row_name::<Q>()), || {
                within_budget(
                    format!("{}::soak", row_name::<Q>()),
                    soak_budget()?,
                    differential::soak_against_model::<Q>,
                )
            })
            .with_ignored_flag(true),
        );
    }
}

/// The suite's own check of [`within_budget`]: a check past its budget, one
/// within it and one that panics.
fn a_check_past_its_budget_fails_with_the_reason() {
    fn stuck() {
        std::thread::sleep(Duration::from_secs(5));
    }
    fn quick() {}
    fn broken() {
        panic!("the model disagrees");
    }
    let failed =
        within_budget("stuck::soak".to_owned(), Duration::from_millis(50), stuck).unwrap_err();
    assert!(
        format!("{failed:?}").contains("ran past its budget"),
        "{failed:?}"
    );
    assert!(within_budget("quick::soak".to_owned(), Duration::from_secs(60), quick).is_ok());
    let failed = within_budget(
        "a-check-that-panics-on-purpose".to_owned(),
        Duration::from_secs(60),
        broken,
    )
    .unwrap_err();
    assert!(
        format!("{failed:?}").contains("the model disagrees"),
        "{failed:?}"
    );
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Trials(Vec::new());
    registry::for_each(&mut trials);
    // Every compiled sweep point is an algorithm of its own: a wheel at
    // another tick fires at other ticks, one at another size takes other paths.
    registry::for_each_variant(&mut trials);
    trials.0.push(Trial::test("suite::soak_budget", || {
        a_check_past_its_budget_fails_with_the_reason();
        Ok(())
    }));
    libtest_mimic::run(&args, trials.0).exit();
}
