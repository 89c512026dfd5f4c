//! Exact division by a divisor fixed at run time, by one multiplication.
//!
//! Kafka's wheel divides every deadline by its level's tick (a power of the
//! wheel size, 20 by default, so not a shift) and the quotient by the wheel
//! size. A 64-bit `div` instruction costs tens of cycles and sits on the path of
//! every insert and every cascade; the divisors, though, are fixed when a level
//! is made. Granlund and Montgomery ("Division by Invariant Integers using
//! Multiplication", PLDI 1994, theorem 4.2) show that for numerators below
//! `2^N` and a divisor `d` with `l = ceil(log2 d)`, the multiplier
//! `m = floor(2^(N + l) / d) + 1` gives `n / d == (n * m) >> (N + l)` exactly: the
//! error `m * d - 2^(N + l)` is at most `d <= 2^l`, too small to reach the next
//! integer. With `N = 63` the multiplier lies in `(2^63, 2^64)` and fits a
//! `u64`, and the product fits a `u128`, which compiles to one widening `mul`.
//! Compilers do exactly this for divisors known at compile time; this is the same
//! trick for divisors known when a level is made.
//!
//! Every numerator here is a tick, at most [`crate::MAX_DEADLINE`] = 2^62, well
//! inside the proven range.

/// The numerators a [`Divisor`] divides exactly: below `2^NUMERATOR_BITS`.
const NUMERATOR_BITS: u32 = 63;

/// A divisor with its precomputed multiplier. See the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Divisor {
    /// The divisor itself, at least 1.
    divisor: u64,
    /// `floor(2^shift / divisor) + 1`, in `(2^63, 2^64)`.
    multiplier: u64,
    /// `NUMERATOR_BITS + ceil(log2 divisor)`, at most 127.
    shift: u32,
}

impl Divisor {
    /// Precomputes the multiplier for `divisor`.
    ///
    /// # Panics
    ///
    /// If `divisor` is 0.
    pub(crate) fn new(divisor: u64) -> Self {
        assert!(divisor > 0, "division by zero");
        let shift = NUMERATOR_BITS + ceil_log2(divisor);
        let multiplier = (1u128 << shift) / u128::from(divisor) + 1;
        Self {
            divisor,
            multiplier: u64::try_from(multiplier).expect("the multiplier is below 2^64"),
            shift,
        }
    }

    /// The divisor.
    #[inline]
    pub(crate) fn get(self) -> u64 {
        self.divisor
    }

    /// `n / divisor`, exactly, for `n < 2^63`.
    #[inline]
    pub(crate) fn quotient(self, n: u64) -> u64 {
        debug_assert!(n >> NUMERATOR_BITS == 0, "numerator {n} is 2^63 or more");
        ((u128::from(n) * u128::from(self.multiplier)) >> self.shift) as u64
    }

    /// `n` rounded down to a multiple of the divisor, for `n < 2^63`.
    #[inline]
    pub(crate) fn round_down(self, n: u64) -> u64 {
        self.quotient(n) * self.divisor
    }
}

/// `ceil(log2 d)` for `d >= 1`: the bits needed to hold `d - 1`.
fn ceil_log2(d: u64) -> u32 {
    u64::BITS - (d - 1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceil_log2_of_powers_and_neighbours() {
        assert_eq!(ceil_log2(1), 0);
        assert_eq!(ceil_log2(2), 1);
        assert_eq!(ceil_log2(3), 2);
        assert_eq!(ceil_log2(20), 5);
        assert_eq!(ceil_log2(1 << 40), 40);
        assert_eq!(ceil_log2((1 << 40) + 1), 41);
        assert_eq!(ceil_log2(u64::MAX), 64);
    }

    /// Numerators around every multiple boundary that matters: small values,
    /// the neighbours of multiples of the divisor, and the top of the range.
    fn numerators(d: u64) -> Vec<u64> {
        let top = (1u64 << NUMERATOR_BITS) - 1;
        let mut out = vec![0, 1, 2, 3, top, top - 1, crate::MAX_DEADLINE];
        for q in [
            1u64,
            2,
            3,
            19,
            20,
            21,
            1_000,
            top / d,
            (top / d).saturating_sub(1),
        ] {
            if let Some(m) = q.checked_mul(d) {
                out.extend([m.saturating_sub(1), m, m.saturating_add(1)]);
            }
        }
        out.retain(|&n| n <= top);
        out
    }

    fn check(d: u64) {
        let divisor = Divisor::new(d);
        assert_eq!(divisor.get(), d);
        for n in numerators(d) {
            assert_eq!(divisor.quotient(n), n / d, "{n} / {d}");
            assert_eq!(divisor.round_down(n), n - n % d, "{n} rounded to {d}");
        }
    }

    #[test]
    fn exact_for_the_wheel_divisors() {
        // Kafka's ticks are powers of its wheel size; 20^14 is the last below 2^63.
        for wheel_size in [2u64, 3, 20, 64, 512, 1_000] {
            let mut tick = 1u64;
            loop {
                check(tick);
                check(wheel_size);
                match tick.checked_mul(wheel_size) {
                    Some(next) => tick = next,
                    None => break,
                }
            }
        }
    }

    #[test]
    fn exact_for_awkward_divisors() {
        for d in [
            1,
            7,
            641,
            6_700_417,
            (1 << 32) - 1,
            (1 << 32) + 1,
            (1 << 62) - 1,
            1 << 62,
            (1 << 62) + 1,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX,
        ] {
            check(d);
        }
    }

    #[test]
    fn exact_for_pseudo_random_pairs() {
        // A fixed xorshift sequence: many divisor sizes, no dependency needed.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..100_000 {
            let d = (next() >> (next() % 64)).max(1);
            let n = next() >> 1;
            assert_eq!(Divisor::new(d).quotient(n), n / d, "{n} / {d}");
        }
    }
}
