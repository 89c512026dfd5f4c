//! The declared lateness bound: `Algorithm::due_at` against
//! `Algorithm::lateness_bound`, over many `(now, deadline)` pairs.
//!
//! The differential checks prove that an algorithm fires every timer at
//! `Q::due_at`; this check proves that `Q::due_at` keeps the contract's
//! promises, for pairs that random operation sequences reach only by luck:
//! every clock from 0 to `MAX_DEADLINE`, delays on the boundaries wheels care
//! about, huge delays and deadlines at `MAX_DEADLINE` itself. For every pair:
//!
//! * a future deadline (`deadline > now`) is never due early, is due at most
//!   `lateness_bound(deadline - now)` late, and is due by `MAX_DEADLINE`;
//! * an overdue deadline (`deadline <= now`) is due by `now`, so it fires at the
//!   next advance;
//! * an exact algorithm (`Q::EXACT`) is due at its deadline and declares a bound
//!   of 0.

use algorithms::registry::Payload;
use algorithms::{Algorithm, MAX_DEADLINE, Tick, TimerQueue};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Seed of the random clocks and delays. Nothing up our sleeves: digits of the
/// square root of 2.
const SEED: u64 = 0x1414_2135_6237_3095;
/// Random clocks sampled on top of the fixed ones.
const RANDOM_NOWS: usize = 400;
/// Random delays sampled per clock on top of the fixed ones.
const RANDOM_DELAYS: usize = 200;
/// Every delay from 1 to this is sampled: the finest levels of any wheel.
const SMALL_DELAYS: Tick = 200;

/// Clocks on the boundaries: 0, level edges of 8-, 20- and 64-fold wheels,
/// and the end of time.
fn fixed_nows() -> Vec<Tick> {
    let mut nows = vec![0, 1, 2, 7, 8, 9, 62, 63, 64, 65, 511, 512, 513, 1_000];
    for shift in [12, 20, 21, 32, 45, 57, 60, 61] {
        let at: Tick = 1 << shift;
        nows.extend([at - 1, at, at + 1, at + 3]);
    }
    nows.extend([
        MAX_DEADLINE / 2,
        MAX_DEADLINE - 64,
        MAX_DEADLINE - 1,
        MAX_DEADLINE,
    ]);
    nows
}

/// Delays on the boundaries: powers of two, powers of 20, `63 * 8^k` (Linux's
/// level thresholds), each one below, at and one above.
fn boundary_delays() -> Vec<Tick> {
    let mut bases: Vec<Tick> = (0..63).map(|k| 1 << k).collect();
    bases.extend((0..15).map(|k| 20u64.pow(k)));
    bases.extend((0..21).map(|k| 63u64 << (3 * k)));
    let mut delays = Vec::new();
    for base in bases {
        delays.extend([base - 1, base, base + 1]);
    }
    delays.retain(|&delay| delay >= 1);
    delays
}

/// Checks one `(now, deadline)` pair against the contract.
fn check<Q: Algorithm>(now: Tick, deadline: Tick) {
    let due = Q::due_at(now, deadline);
    if deadline <= now {
        assert!(
            due <= now,
            "{}: overdue insert at now={now}, deadline={deadline} is due at {due}, after now",
            algorithms::variant::row_name::<Q>()
        );
        if Q::EXACT {
            assert_eq!(
                due,
                deadline,
                "{}: exact but not due at deadline",
                algorithms::variant::row_name::<Q>()
            );
        }
        return;
    }
    let delay = deadline - now;
    let bound = Q::lateness_bound(delay);
    assert!(
        due >= deadline,
        "{}: now={now}, deadline={deadline} is due at {due}: early",
        algorithms::variant::row_name::<Q>()
    );
    assert!(
        due - deadline <= bound,
        "{}: now={now}, deadline={deadline} is due at {due}, {} late, beyond lateness_bound({delay}) = {bound}",
        algorithms::variant::row_name::<Q>(),
        due - deadline
    );
    assert!(
        due <= MAX_DEADLINE,
        "{}: now={now}, deadline={deadline} is due at {due}, beyond MAX_DEADLINE",
        algorithms::variant::row_name::<Q>()
    );
    if Q::EXACT {
        assert_eq!(
            due,
            deadline,
            "{}: exact but not due at deadline",
            algorithms::variant::row_name::<Q>()
        );
        assert_eq!(
            bound,
            0,
            "{}: exact but declares lateness",
            algorithms::variant::row_name::<Q>()
        );
    }
}

pub(crate) fn lateness_within_bound<Q: Algorithm + TimerQueue<Payload>>() {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut nows = fixed_nows();
    for _ in 0..RANDOM_NOWS {
        // Half anywhere, half small, where the finest levels turn.
        let now = if rng.random() {
            rng.random_range(0..=MAX_DEADLINE)
        } else {
            rng.random_range(0..1 << 20)
        };
        nows.push(now);
    }
    let boundary = boundary_delays();
    let mut checked = 0u64;
    for &now in &nows {
        // Overdue deadlines.
        for deadline in [0, now / 2, now.saturating_sub(1), now] {
            check::<Q>(now, deadline);
        }
        // Future deadlines: small, on boundaries, random (log-uniform, so every
        // level is sampled), and the farthest one.
        let random = (0..RANDOM_DELAYS).map(|_| {
            let bits = rng.random_range(0..63);
            1 + (rng.random::<u64>() >> (64 - bits.max(1)))
        });
        let delays = (1..=SMALL_DELAYS)
            .chain(boundary.iter().copied())
            .chain(random);
        for delay in delays {
            if delay <= MAX_DEADLINE - now {
                check::<Q>(now, now + delay);
                checked += 1;
            }
        }
        if now < MAX_DEADLINE {
            check::<Q>(now, MAX_DEADLINE);
        }
    }
    assert!(checked > 100_000, "only {checked} pairs were checked");
}
