//! Distribution kinds as a spec uses them: a `loguniform` delay gives a tape
//! whose delays spread evenly over orders of magnitude, with the arrival rate
//! Little's law derives from its mean.

use workloads::{Op, Spec};

#[test]
fn log_uniform_delays_spread_over_the_orders_of_magnitude() {
    let spec = Spec::from_toml(
        "name = \"decades\"\n\
         description = \"Delays log-uniform over six orders of magnitude\"\n\
         duration = 200_000\n\
         pending = 1_000\n\
         delay = { kind = \"loguniform\", min = 1, max = 1_000_000 }\n",
        "decades.toml",
    )
    .expect("a valid spec");
    let tape = spec.generate(7);
    assert_eq!(tape, spec.generate(7), "seeded and deterministic");
    // The inserts of the measured phase, as delays from their tick.
    let mut delays: Vec<u64> = tape.ops[tape.prefill..]
        .iter()
        .filter_map(|timed| match timed.op {
            Op::Insert { deadline, .. } => Some(deadline - timed.at),
            _ => None,
        })
        .collect();
    // Little's law: 1,000 pending over a mean of (10^6 - 1) / ln(10^6), about
    // 72,382 ticks, is 0.0138 arrivals a tick, about 2,763 in 200,000 ticks.
    assert!(
        (2_400..3_100).contains(&delays.len()),
        "{} inserts",
        delays.len()
    );
    delays.sort_unstable();
    let median = delays[delays.len() / 2];
    // The median of a log-uniform over [1, 10^6] is 10^3.
    assert!((600..1_700).contains(&median), "median {median}");
    assert!(
        delays[0] < 10 && delays[delays.len() - 1] > 100_000,
        "{delays:?}"
    );
}
