//! `arrivals_until`: timers arrive only before it, what they started (cancels,
//! re-arms) goes on after it, and leaving it out is the same as setting it to
//! `duration`.

use workloads::{Op, Spec};

/// A spec whose arrivals may stop early: 5 a tick, each cancelled 100 to 200
/// ticks after it is armed, every delay longer than that.
fn spec(until: &str) -> Spec {
    Spec::from_toml(
        &format!(
            "name = \"window\"\n\
             description = \"Arrivals that stop\"\n\
             duration = 2_000\n\
             pending = 0\n\
             arrivals_per_tick = 5.0\n\
             {until}\
             delay = {{ kind = \"uniform\", min = 500, max = 1_000 }}\n\
             cancel = {{ fraction = 1.0, after = {{ kind = \"uniform\", min = 100, max = 200 }} }}\n"
        ),
        "window.toml",
    )
    .expect("a valid spec")
}

#[test]
fn timers_arrive_only_before_the_window_closes_and_are_still_cancelled_after_it() {
    let tape = spec("arrivals_until = 300\n").generate(11);
    tape.check().expect("a valid tape");
    let inserts: Vec<u64> = tape
        .ops
        .iter()
        .filter(|timed| matches!(timed.op, Op::Insert { .. }))
        .map(|timed| timed.at)
        .collect();
    // 5 a tick for 300 ticks: 1,500 expected, a Poisson count.
    assert!(
        (1_350..1_650).contains(&inserts.len()),
        "{} inserts",
        inserts.len()
    );
    assert!(
        inserts.iter().all(|&at| at < 300),
        "an insert after tick 300"
    );
    let cancels: Vec<u64> = tape
        .ops
        .iter()
        .filter(|timed| matches!(timed.op, Op::Cancel { .. }))
        .map(|timed| timed.at)
        .collect();
    assert_eq!(cancels.len(), inserts.len(), "every timer is cancelled");
    assert!(
        cancels.iter().any(|&at| at >= 300),
        "the cancels of the last arrivals come after the window"
    );
}

#[test]
fn a_window_as_long_as_the_run_is_the_default() {
    assert_eq!(
        spec("arrivals_until = 2_000\n").generate(3),
        spec("").generate(3)
    );
}
