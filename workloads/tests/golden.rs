//! Pins the generator's output. If this test fails, a change has altered the
//! tapes that a spec and a seed produce: results made before and after are no
//! longer comparable. Bump `GENERATOR_VERSION`, then update the pinned values
//! below (the failure message prints them).

use workloads::{GENERATOR_VERSION, Op, Spec, Tape};

/// A short workload that uses every sampler and every lifecycle: all five kinds
/// of distribution, cancels, idle timeouts, periodic tasks and granularity.
const GOLDEN: &str = r#"
name = "golden"
description = "Pins the generator's output: every distribution and lifecycle, briefly"
duration = 3_000
pending = 12
granularity = 5

[delay]
kind = "mixture"
parts = [
    { weight = 2, dist = { kind = "exponential", mean = 300 } },
    { weight = 1, dist = { kind = "lognormal", median = 200, sigma = 0.5 } },
    { weight = 1, dist = { kind = "pareto", min = 100, shape = 2.5 } },
    { weight = 1, dist = { kind = "uniform", min = 50, max = 150 } },
]

[cancel]
fraction = 0.4
after = { kind = "uniform", min = 1, max = 400 }

[periodic]
fraction = 0.25
period = { kind = "constant", value = 700 }

[rearm]
fraction = 0.3
interval = { kind = "exponential", mean = 80 }
times = 3
"#;

/// Nothing up our sleeves: the first digits of pi.
const SEED: u64 = 0x243F_6A88_85A3_08D3;

/// A 64-bit FNV-1a digest of every field of every operation.
fn digest(tape: &Tape) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for byte in x.to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for op in &tape.ops {
        eat(op.at);
        match op.op {
            Op::Insert { timer, deadline } => {
                eat(0);
                eat(u64::from(timer));
                eat(deadline);
            }
            Op::Cancel { timer } => {
                eat(1);
                eat(u64::from(timer));
            }
            Op::Reschedule { timer, deadline } => {
                eat(2);
                eat(u64::from(timer));
                eat(deadline);
            }
        }
    }
    eat(tape.prefill as u64);
    eat(tape.end);
    hash
}

/// The tape's first operations, one per line, as `at insert timer deadline`,
/// `at cancel timer` or `at reschedule timer deadline`.
fn listing(tape: &Tape, count: usize) -> String {
    tape.ops
        .iter()
        .take(count)
        .map(|op| match op.op {
            Op::Insert { timer, deadline } => format!("{} insert {timer} {deadline}", op.at),
            Op::Cancel { timer } => format!("{} cancel {timer}", op.at),
            Op::Reschedule { timer, deadline } => {
                format!("{} reschedule {timer} {deadline}", op.at)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const PINNED_VERSION: u32 = 2;
const PINNED_LISTING: &str = "\
0 insert 0 385\n\
0 insert 1 240\n\
0 insert 2 110\n\
0 insert 3 50\n\
0 insert 4 75\n\
0 insert 5 140\n\
0 insert 6 35\n\
0 insert 7 1165\n\
0 insert 8 440\n\
0 insert 9 50\n\
0 insert 10 195\n\
0 insert 11 390\n\
12 insert 12 270\n\
28 cancel 12\n\
42 insert 13 215\n\
46 insert 14 195\n\
74 cancel 11\n\
89 insert 15 195\n\
110 insert 16 810\n\
138 insert 17 305\n\
144 insert 18 250\n\
146 reschedule 15 255\n\
158 insert 19 270\n\
186 reschedule 19 300\n\
198 insert 20 255\n\
240 insert 21 940\n\
242 insert 22 330\n\
243 reschedule 15 350\n\
243 cancel 19\n\
258 insert 23 360\n\
277 insert 24 605\n\
287 insert 25 435\n\
324 reschedule 15 430\n\
333 insert 26 470\n\
334 reschedule 26 475\n\
354 reschedule 26 495\n\
372 insert 27 715\n\
377 insert 28 575\n\
385 insert 29 1085\n\
447 insert 30 525";
const PINNED_COUNTS: (usize, usize, u32) = (215, 12, 144);
const PINNED_DIGEST: u64 = 0xf2931993bb41fb2f;

#[test]
fn the_golden_tape_is_unchanged() {
    let spec = Spec::from_toml(GOLDEN, "tests/golden.rs").unwrap();
    let tape = spec.generate(SEED);
    tape.check().unwrap();
    let (listing, counts, digest) = (
        listing(&tape, 40),
        (tape.ops.len(), tape.prefill, tape.timers),
        digest(&tape),
    );
    let report = format!(
        "the generator's output changed; if that is intended, bump GENERATOR_VERSION and pin:\n\
         const PINNED_VERSION: u32 = {GENERATOR_VERSION};\n\
         const PINNED_LISTING: &str = \"\\\n{}\";\n\
         const PINNED_COUNTS: (usize, usize, u32) = {counts:?};\n\
         const PINNED_DIGEST: u64 = {digest:#018x};",
        listing.replace('\n', "\\n\\\n")
    );
    assert_eq!(
        GENERATOR_VERSION, PINNED_VERSION,
        "GENERATOR_VERSION changed: update the pinned values\n{report}"
    );
    assert_eq!(listing, PINNED_LISTING, "{report}");
    assert_eq!(counts, PINNED_COUNTS, "{report}");
    assert_eq!(digest, PINNED_DIGEST, "{report}");
}
