//! Portable logarithm and exponential.
//!
//! # Why not `f64::ln` and `f64::exp`
//!
//! A tape must be identical on every platform for a given spec and seed: that is
//! what lets two machines, or two runs months apart, compare like with like.
//! IEEE 754 requires `+`, `-`, `*`, `/` and `sqrt` to be correctly rounded, so
//! they give the same bits everywhere, but it does not pin down `ln`, `exp` or
//! `powf`: `std` hands them to the platform's C library, whose last bit differs
//! between glibc, musl, macOS and Windows. A last-bit difference can move a
//! sampled delay across a rounding boundary and change a tape.
//!
//! `rand_distr` has the same problem in a subtler form: it uses `libm` unless any
//! crate in the build enables `num-traits/std`, and `hdrhistogram` (in the
//! harness) does. The same spec would then give one tape in this crate's tests and
//! another in the `timerbench` binary. So the generator does its own sampling,
//! with the two functions below, written with basic arithmetic only. Rust never
//! contracts `a * b + c` into a fused multiply-add on its own, so the operations
//! below run in exactly the order written, on every target.
//!
//! Accuracy is within a few units in the last place, far finer than the whole
//! ticks every sample is rounded to; the unit tests compare with `std`.

/// The high part of ln 2 (fdlibm's `ln2_hi`, 6.93147180369123816490e-01): the
/// last 21 bits of its significand are zero, so `k * LN2_HI` is exact for every
/// exponent `k` an `f64` can have (|k| < 2^11). Given by its bits, so no decimal
/// rounding is involved.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// The rest of ln 2 (fdlibm's `ln2_lo`, 1.90821492927058770002e-10):
/// `LN2_HI + LN2_LO` is ln 2 to about 2^-85.
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// Coefficients of the atanh series in [`ln`], `1 / (2k + 1)`. The reduced
/// argument is at most (√2 - 1) / (√2 + 1) ≈ 0.172, whose square is 0.0295;
/// eleven terms leave an error below 0.0295^11 / 23 ≈ 10^-18. Constant
/// evaluation rounds correctly, so the table is the same on every target.
const ATANH: [f64; 11] = {
    let mut table = [0.0; 11];
    let mut k = 0;
    while k < table.len() {
        table[k] = 1.0 / (2 * k + 1) as f64;
        k += 1;
    }
    table
};

/// Coefficients of the Taylor series in [`exp`], `1 / n!`, each correctly
/// rounded (n! is exact in an `f64` up to 18!). The reduced argument is at most
/// ln 2 / 2 ≈ 0.347 in magnitude; the first omitted term is below
/// 0.347^18 / 18! ≈ 4 × 10^-24.
const EXP: [f64; 18] = {
    let mut table = [0.0; 18];
    let mut factorial = 1.0;
    let mut n = 0;
    while n < table.len() {
        if n > 0 {
            factorial *= n as f64;
        }
        table[n] = 1.0 / factorial;
        n += 1;
    }
    table
};

/// Above this, `exp` overflows an `f64` (e^709.78 is `f64::MAX`).
const EXP_OVERFLOW: f64 = 709.0;
/// Below this, `exp` would need a subnormal result; it returns 0 instead, which
/// is what every caller here needs (a probability or a scale that small is 0).
const EXP_UNDERFLOW: f64 = -708.0;

/// Natural logarithm of a positive finite `x`.
pub(crate) fn ln(x: f64) -> f64 {
    debug_assert!(x > 0.0 && x.is_finite(), "ln({x}) is not defined here");
    let (mut mantissa, mut exponent) = split(x);
    // Centre the mantissa on 1 so that the series argument is small.
    if mantissa > std::f64::consts::SQRT_2 {
        mantissa *= 0.5;
        exponent += 1;
    }
    // ln(m) = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...) with s = (m - 1) / (m + 1).
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let s2 = s * s;
    let series = ATANH.iter().rev().fold(0.0, |sum, &c| sum * s2 + c);
    let k = f64::from(exponent);
    k * LN2_HI + (k * LN2_LO + 2.0 * s * series)
}

/// Splits a positive finite `x` into a mantissa in [1, 2) and a binary exponent:
/// `x = mantissa * 2^exponent`.
fn split(x: f64) -> (f64, i32) {
    const MANTISSA_BITS: u64 = (1 << 52) - 1;
    const ONE_EXPONENT: u64 = 1023 << 52;
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first (2^54 is exact).
        let (mantissa, exponent) = split(x * f64::from_bits((1023 + 54) << 52));
        return (mantissa, exponent - 54);
    }
    (
        f64::from_bits((bits & MANTISSA_BITS) | ONE_EXPONENT),
        biased - 1023,
    )
}

/// e^x. Returns infinity above about 709 and 0 below -708.
pub(crate) fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > EXP_OVERFLOW {
        return f64::INFINITY;
    }
    if x < EXP_UNDERFLOW {
        return 0.0;
    }
    // x = k ln 2 + r with |r| <= ln 2 / 2, so e^x = 2^k e^r.
    let k = (x / std::f64::consts::LN_2).round();
    let r = (x - k * LN2_HI) - k * LN2_LO;
    let series = EXP.iter().rev().fold(0.0, |sum, &c| sum * r + c);
    // |k| <= 1022 here, so 2^k is a normal number built from its bits.
    let power = f64::from_bits(((k as i64 + 1023) as u64) << 52);
    series * power
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(ours: f64, reference: f64, what: &str) {
        let tolerance = 4.0 * f64::EPSILON * reference.abs().max(f64::MIN_POSITIVE);
        assert!(
            (ours - reference).abs() <= tolerance,
            "{what}: ours {ours:e}, std {reference:e}, difference {:e}",
            ours - reference
        );
    }

    #[test]
    fn ln_matches_std() {
        let mut x = 1e-300;
        while x < 1e300 {
            assert_close(ln(x), x.ln(), &format!("ln({x:e})"));
            x *= 1.37;
        }
        for x in [
            1.0,
            2.0,
            0.5,
            std::f64::consts::E,
            1.0 - 1e-12,
            1.0 + 1e-12,
            2f64.powi(-53),
        ] {
            assert_close(ln(x), x.ln(), &format!("ln({x:e})"));
        }
        assert_eq!(ln(1.0), 0.0);
    }

    #[test]
    fn ln_of_subnormals() {
        let x = f64::MIN_POSITIVE / 1024.0;
        assert_close(ln(x), x.ln(), "ln of a subnormal");
    }

    #[test]
    fn exp_matches_std() {
        let mut x = -700.0;
        while x < 700.0 {
            assert_close(exp(x), x.exp(), &format!("exp({x})"));
            x += 0.731;
        }
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert_eq!(exp(-800.0), 0.0);
    }

    #[test]
    fn the_split_of_ln_2_is_ln_2() {
        assert_eq!(LN2_HI + LN2_LO, std::f64::consts::LN_2);
        // 21 zero bits leave 32 significant ones: times an 11-bit k, 43 <= 53.
        assert!(
            LN2_HI.to_bits().trailing_zeros() >= 21,
            "k * LN2_HI must be exact"
        );
    }

    #[test]
    fn exp_inverts_ln() {
        // ln's last-place error is magnified by |ln x| in the round trip.
        for x in [1e-9, 0.3, 1.0, 7.5, 1234.5, 1e12] {
            let back = exp(ln(x));
            assert!((back - x).abs() <= 1e-14 * x, "exp(ln({x})) = {back}");
        }
    }
}
