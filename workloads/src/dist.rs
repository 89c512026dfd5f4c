//! Distributions of durations in ticks: delays, cancel times, re-arm intervals.
//!
//! A [`Distribution`] is written in a spec as a table with a `kind` and that
//! kind's parameters. Every sample is a whole number of ticks: a real-valued
//! sample is rounded to the nearest tick and clamped to `1..=MAX_TIME`, so a
//! timer always outlives the tick it was inserted in and no deadline overflows.
//!
//! Besides plain samples, the generator needs **length-biased** samples (drawn
//! with probability proportional to their value) to build a steady-state
//! population at time 0: see `lifecycle.rs`. Each kind has a closed form for
//! that, listed with [`Distribution::sample_length_biased`].
//!
//! Sampling uses only the portable functions of `math.rs`, so a given random
//! stream yields the same ticks on every platform.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::math::{exp, ln};
use crate::tape::{MAX_TIME, Tick};

/// The most parts a mixture may have; more would only hide a mistake.
const MAX_PARTS: usize = 64;

/// The largest log-normal `sigma` accepted. At 10 the mean is e^50 times the
/// median, already far past any useful timer; beyond that the mean overflows
/// the estimates that derive arrival rates.
const MAX_SIGMA: f64 = 10.0;

/// The largest Pareto `shape` accepted. At 1000 the distribution is all but a
/// constant at `min`; larger values only lose precision.
const MAX_SHAPE: f64 = 1000.0;

/// The range of a mixture part's `weight`. Weights are relative, so nothing is
/// lost by bounding them; unbounded, two weights of 1e308 sum to infinity and
/// the mixture's mean becomes NaN, which once turned a spec's arrival rate
/// into 0 and its run into one of 0 measured operations.
const WEIGHT_RANGE: (f64, f64) = (1e-9, 1e9);

/// A distribution of durations in ticks. In TOML, a table whose `kind` names the
/// variant, for example `{ kind = "uniform", min = 1, max = 60_000 }`.
///
/// Every parameter is in ticks (1 tick = 1 ms by convention) and at least 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Distribution {
    /// Always `value` ticks. `value`: 1 to 2^62.
    Constant {
        /// The duration in ticks.
        value: Tick,
    },
    /// A whole number of ticks from `min` to `max` inclusive, each equally likely.
    /// `1 <= min <= max <= 2^62`.
    Uniform {
        /// The smallest duration.
        min: Tick,
        /// The largest duration.
        max: Tick,
    },
    /// Exponential with the given mean (memoryless: the time to the next event
    /// of a Poisson process). `mean`: 1 to 2^62.
    Exponential {
        /// The mean duration.
        mean: f64,
    },
    /// Log-normal: `median * e^(sigma * Z)` with `Z` standard normal. Response
    /// times are typically log-normal. `median`: 1 to 2^62; `sigma`: 0 to 10
    /// (the mean is `median * e^(sigma^2 / 2)`).
    Lognormal {
        /// The median duration, e^mu.
        median: f64,
        /// The standard deviation of the logarithm.
        sigma: f64,
    },
    /// Pareto: `min * U^(-1/shape)`, a heavy tail (`P(X > x) = (min / x)^shape`).
    /// `min`: 1 to 2^62; `shape`: greater than 1 (at or below 1 the mean is
    /// infinite and no steady state exists), at most 1000.
    Pareto {
        /// The scale: the smallest duration.
        min: f64,
        /// The tail index; smaller is heavier.
        shape: f64,
    },
    /// Log-uniform: `min * (max / min)^U` with `U` uniform on the unit
    /// interval, so every order of magnitude between `min` and `max` is equally
    /// likely: delays spread over many scales (the "heavy tail" of a system
    /// whose timeouts range from milliseconds to days). `1 <= min < max <= 2^62`,
    /// reals. The mean is `(max - min) / ln(max / min)`.
    Loguniform {
        /// The smallest duration.
        min: f64,
        /// The largest duration.
        max: f64,
    },
    /// A weighted mixture: each sample comes from one part, chosen with
    /// probability proportional to its weight. 1 to 64 parts; parts may be
    /// mixtures themselves.
    Mixture {
        /// The parts and their weights.
        parts: Vec<Part>,
    },
}

/// One part of a [`Distribution::Mixture`]:
/// `{ weight = 9, dist = { kind = "constant", value = 100 } }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// Relative weight, from 1e-9 to 1e9; weights need not sum to 1.
    pub weight: f64,
    /// The part's distribution.
    pub dist: Distribution,
}

/// A field that failed validation: its path (such as `delay.max`) and what is
/// wrong with it, phrased to follow the path ("is 0; it must be at least 1").
#[derive(Debug)]
pub(crate) struct FieldError {
    pub(crate) field: String,
    pub(crate) problem: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// Checks that a real parameter is finite and within `[low, high]`.
pub(crate) fn check_real(field: &str, value: f64, low: f64, high: f64) -> Result<(), FieldError> {
    if value.is_finite() && value >= low && value <= high {
        Ok(())
    } else {
        Err(FieldError::new(
            field,
            format!(
                "is {}; it must be a finite number from {} to {}",
                shown(value),
                shown(low),
                shown(high)
            ),
        ))
    }
}

/// A real number as a message shows it: plainly, unless that would take more
/// than about 20 digits (1e308 written out has 309), then in exponent form.
fn shown(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// Checks that a tick parameter is within `[low, high]`.
pub(crate) fn check_ticks(
    field: &str,
    value: Tick,
    low: Tick,
    high: Tick,
) -> Result<(), FieldError> {
    if (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(FieldError::new(
            field,
            format!("is {value}; it must be a whole number of ticks from {low} to {high}"),
        ))
    }
}

/// Rounds a real duration to the nearest whole tick, clamped to `1..=MAX_TIME`
/// (NaN, which no valid parameter produces, becomes 1).
pub(crate) fn ticks(x: f64) -> Tick {
    if x.is_nan() || x < 1.0 {
        1
    } else if x >= MAX_TIME as f64 {
        MAX_TIME
    } else {
        x.round() as Tick
    }
}

/// A uniform real in (0, 1]: never 0, so its logarithm is finite.
pub(crate) fn open_unit<R: Rng>(rng: &mut R) -> f64 {
    1.0 - rng.random::<f64>()
}

/// A standard normal variate, by Marsaglia's polar method (one logarithm and one
/// square root, both portable; the second variate of each pair is discarded so
/// that every call consumes its own draws).
fn standard_normal<R: Rng>(rng: &mut R) -> f64 {
    loop {
        let u = 2.0 * rng.random::<f64>() - 1.0;
        let v = 2.0 * rng.random::<f64>() - 1.0;
        let s = u * u + v * v;
        if s > 0.0 && s < 1.0 {
            return u * (-2.0 * ln(s) / s).sqrt();
        }
    }
}

impl Distribution {
    /// Checks every parameter; `field` is this distribution's path in the spec.
    pub(crate) fn validate(&self, field: &str) -> Result<(), FieldError> {
        let max = MAX_TIME as f64;
        match self {
            Distribution::Constant { value } => {
                check_ticks(&format!("{field}.value"), *value, 1, MAX_TIME)
            }
            Distribution::Uniform { min, max } => {
                check_ticks(&format!("{field}.min"), *min, 1, MAX_TIME)?;
                check_ticks(&format!("{field}.max"), *max, 1, MAX_TIME)?;
                if max < min {
                    return Err(FieldError::new(
                        format!("{field}.max"),
                        format!(
                            "is {max}, below `{field}.min` ({min}); it must be at least `{field}.min`"
                        ),
                    ));
                }
                Ok(())
            }
            Distribution::Exponential { mean } => {
                check_real(&format!("{field}.mean"), *mean, 1.0, max)
            }
            Distribution::Lognormal { median, sigma } => {
                check_real(&format!("{field}.median"), *median, 1.0, max)?;
                check_real(&format!("{field}.sigma"), *sigma, 0.0, MAX_SIGMA)
            }
            Distribution::Pareto { min, shape } => {
                check_real(&format!("{field}.min"), *min, 1.0, max)?;
                if !(shape.is_finite() && *shape > 1.0 && *shape <= MAX_SHAPE) {
                    return Err(FieldError::new(
                        format!("{field}.shape"),
                        format!(
                            "is {shape}; it must be greater than 1 (at or below 1 the mean delay is \
                             infinite, so no steady state exists) and at most {MAX_SHAPE}"
                        ),
                    ));
                }
                Ok(())
            }
            Distribution::Loguniform { min, max: top } => {
                check_real(&format!("{field}.min"), *min, 1.0, max)?;
                check_real(&format!("{field}.max"), *top, 1.0, max)?;
                if top <= min {
                    return Err(FieldError::new(
                        format!("{field}.max"),
                        format!(
                            "is {}, not above `{field}.min` ({}); it must be greater (for a single \
                             value use `constant`)",
                            shown(*top),
                            shown(*min)
                        ),
                    ));
                }
                Ok(())
            }
            Distribution::Mixture { parts } => {
                if parts.is_empty() || parts.len() > MAX_PARTS {
                    return Err(FieldError::new(
                        format!("{field}.parts"),
                        format!(
                            "has {} parts; a mixture needs 1 to {MAX_PARTS}",
                            parts.len()
                        ),
                    ));
                }
                for (i, part) in parts.iter().enumerate() {
                    let path = format!("{field}.parts[{i}]");
                    let (low, high) = WEIGHT_RANGE;
                    check_real(&format!("{path}.weight"), part.weight, low, high)?;
                    part.dist.validate(&format!("{path}.dist"))?;
                }
                Ok(())
            }
        }
    }

    /// The mean in ticks, before rounding and clamping (which move it by well
    /// under a tick for every valid parameter set, except at the 2^62 clamp).
    pub(crate) fn mean(&self) -> f64 {
        match self {
            Distribution::Constant { value } => *value as f64,
            Distribution::Uniform { min, max } => (*min as f64 + *max as f64) / 2.0,
            Distribution::Exponential { mean } => *mean,
            Distribution::Lognormal { median, sigma } => median * exp(sigma * sigma / 2.0),
            Distribution::Pareto { min, shape } => shape * min / (shape - 1.0),
            Distribution::Loguniform { min, max } => (max - min) / ln(max / min),
            Distribution::Mixture { parts } => {
                let total: f64 = parts.iter().map(|p| p.weight).sum();
                parts.iter().map(|p| p.weight * p.dist.mean()).sum::<f64>() / total
            }
        }
    }

    /// One sample, in ticks.
    pub(crate) fn sample<R: Rng>(&self, rng: &mut R) -> Tick {
        match self {
            Distribution::Constant { value } => *value,
            Distribution::Uniform { min, max } => rng.random_range(*min..=*max),
            Distribution::Exponential { mean } => ticks(-mean * ln(open_unit(rng))),
            Distribution::Lognormal { median, sigma } => {
                ticks(median * exp(sigma * standard_normal(rng)))
            }
            Distribution::Pareto { min, shape } => ticks(min * exp(-ln(open_unit(rng)) / shape)),
            Distribution::Loguniform { min, max } => {
                ticks(min * exp(rng.random::<f64>() * ln(max / min)))
            }
            Distribution::Mixture { parts } => pick(parts, |p| p.weight, rng).dist.sample(rng),
        }
    }

    /// One length-biased sample: the density at `x` is proportional to
    /// `x * f(x)`. This is the length of the interval that covers a random point
    /// in time, the "inspection paradox". Closed forms:
    ///
    /// | kind | length-biased |
    /// |---|---|
    /// | constant `v` | `v` |
    /// | uniform `a..=b` | `d` uniform, accepted with probability `d / b` (exact on whole ticks; at most 2 tries on average) |
    /// | exponential, mean `m` | gamma(2, `m`): the sum of two exponentials |
    /// | log-normal (`median`, `sigma`) | log-normal (`median * e^(sigma^2)`, `sigma`) |
    /// | Pareto (`min`, `shape`) | Pareto (`min`, `shape - 1`) |
    /// | log-uniform `min..max` | uniform (real) on `min..max`: `x * f(x)` is constant there |
    /// | mixture | part `i` with probability ∝ `weight_i * mean_i`, then that part length-biased |
    pub(crate) fn sample_length_biased<R: Rng>(&self, rng: &mut R) -> Tick {
        match self {
            Distribution::Constant { value } => *value,
            Distribution::Uniform { min, max } => loop {
                let d = rng.random_range(*min..=*max);
                if rng.random_range(1..=*max) <= d {
                    return d;
                }
            },
            Distribution::Exponential { mean } => {
                ticks(-mean * ln(open_unit(rng) * open_unit(rng)))
            }
            Distribution::Lognormal { median, sigma } => {
                ticks(median * exp(sigma * sigma + sigma * standard_normal(rng)))
            }
            Distribution::Pareto { min, shape } => {
                ticks(min * exp(-ln(open_unit(rng)) / (shape - 1.0)))
            }
            Distribution::Loguniform { min, max } => ticks(min + rng.random::<f64>() * (max - min)),
            Distribution::Mixture { parts } => pick(parts, |p| p.weight * p.dist.mean(), rng)
                .dist
                .sample_length_biased(rng),
        }
    }
}

/// Picks one item with probability proportional to `weight(item)`. Items of
/// weight 0 are never picked; at least one weight must be positive. The last
/// positive item also takes any rounding remainder.
pub(crate) fn pick<'a, T, R: Rng>(
    items: &'a [T],
    weight: impl Fn(&T) -> f64,
    rng: &mut R,
) -> &'a T {
    let total: f64 = items.iter().map(&weight).sum();
    debug_assert!(total > 0.0, "no positive weight to pick from");
    let mut target = rng.random::<f64>() * total;
    let mut last = &items[0];
    for item in items {
        let w = weight(item);
        if w > 0.0 {
            if target < w {
                return item;
            }
            target -= w;
            last = item;
        }
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const SAMPLES: usize = 200_000;

    fn rng() -> ChaCha8Rng {
        // Nothing up our sleeves: the first digits of pi.
        ChaCha8Rng::seed_from_u64(0x243F_6A88_85A3_08D3)
    }

    fn mean_of(dist: &Distribution, biased: bool) -> f64 {
        let mut rng = rng();
        let total: f64 = (0..SAMPLES)
            .map(|_| {
                let x = if biased {
                    dist.sample_length_biased(&mut rng)
                } else {
                    dist.sample(&mut rng)
                };
                x as f64
            })
            .sum();
        total / SAMPLES as f64
    }

    /// E[X^2] / E[X], the mean of the length-biased distribution.
    fn biased_mean(dist: &Distribution) -> f64 {
        let mut rng = rng();
        let (mut sum, mut squares) = (0.0, 0.0);
        for _ in 0..SAMPLES {
            let x = dist.sample(&mut rng) as f64;
            sum += x;
            squares += x * x;
        }
        squares / sum
    }

    fn examples() -> Vec<Distribution> {
        vec![
            Distribution::Constant { value: 1000 },
            Distribution::Uniform {
                min: 1,
                max: 60_000,
            },
            Distribution::Uniform {
                min: 29_500,
                max: 30_500,
            },
            Distribution::Exponential { mean: 5000.0 },
            Distribution::Lognormal {
                median: 50.0,
                sigma: 0.8,
            },
            Distribution::Pareto {
                min: 100.0,
                shape: 3.5,
            },
            Distribution::Loguniform {
                min: 10.0,
                max: 100_000.0,
            },
            Distribution::Mixture {
                parts: vec![
                    Part {
                        weight: 9.0,
                        dist: Distribution::Constant { value: 100 },
                    },
                    Part {
                        weight: 1.0,
                        dist: Distribution::Uniform {
                            min: 1000,
                            max: 3000,
                        },
                    },
                ],
            },
        ]
    }

    #[test]
    fn sample_means_match_the_formulas() {
        for dist in examples() {
            let (expected, measured) = (dist.mean(), mean_of(&dist, false));
            assert!(
                (measured - expected).abs() <= 0.01 * expected + 0.5,
                "{dist:?}: mean {measured}, formula {expected}"
            );
        }
    }

    #[test]
    fn length_biased_samples_match_e_x2_over_e_x() {
        for dist in examples() {
            let (expected, measured) = (biased_mean(&dist), mean_of(&dist, true));
            assert!(
                (measured - expected).abs() <= 0.02 * expected + 0.5,
                "{dist:?}: length-biased mean {measured}, E[X^2]/E[X] {expected}"
            );
        }
    }

    #[test]
    fn samples_stay_in_range() {
        let mut rng = rng();
        let dist = Distribution::Pareto {
            min: 1.0,
            shape: 1.01,
        };
        for _ in 0..10_000 {
            let x = dist.sample_length_biased(&mut rng);
            assert!((1..=MAX_TIME).contains(&x), "{x} out of range");
        }
        let dist = Distribution::Uniform { min: 7, max: 9 };
        for _ in 0..1000 {
            assert!((7..=9).contains(&dist.sample(&mut rng)));
            assert!((7..=9).contains(&dist.sample_length_biased(&mut rng)));
        }
    }

    #[test]
    fn reals_are_shown_short() {
        assert_eq!(shown(0.5), "0.5");
        assert_eq!(shown(100_000_000.0), "100000000");
        assert_eq!(shown(1e308), "1e308");
        assert_eq!(shown(1e-9), "1e-9");
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(f64::NAN), "NaN");
    }

    #[test]
    fn log_uniform_puts_each_decade_equally() {
        let dist = Distribution::Loguniform { min: 1.0, max: 1e8 };
        let mut rng = rng();
        let mut decades = [0u32; 8];
        let n = 80_000;
        for _ in 0..n {
            let x = dist.sample(&mut rng);
            assert!((1..=100_000_000).contains(&x), "{x}");
            // Decade k holds [10^k, 10^(k+1)); rounding puts the top edge in the last.
            let k = ((x as f64).log10().floor() as usize).min(7);
            decades[k] += 1;
        }
        for (k, &count) in decades.iter().enumerate() {
            let share = f64::from(count) / f64::from(n);
            // Decade 0 is [1, 10), where rounding to whole ticks moves about 5%.
            let tolerance = if k == 0 { 0.03 } else { 0.01 };
            assert!((share - 0.125).abs() < tolerance, "decade {k}: {share}");
        }
    }

    #[test]
    fn log_uniform_needs_max_above_min() {
        let equal = Distribution::Loguniform {
            min: 50.0,
            max: 50.0,
        };
        let err = equal.validate("delay").unwrap_err();
        assert_eq!(err.field, "delay.max");
        assert!(err.problem.contains("use `constant`"), "{}", err.problem);
        let zero = Distribution::Loguniform { min: 0.5, max: 9.0 };
        assert_eq!(zero.validate("delay").unwrap_err().field, "delay.min");
    }

    #[test]
    fn pick_skips_zero_weights() {
        let mut rng = rng();
        let items = [(0, 0.0), (1, 2.0), (2, 0.0), (3, 1.0), (4, 0.0)];
        let mut counts = [0; 5];
        for _ in 0..30_000 {
            counts[pick(&items, |i| i.1, &mut rng).0] += 1;
        }
        assert_eq!((counts[0], counts[2], counts[4]), (0, 0, 0));
        assert!((19_000..21_000).contains(&counts[1]), "{counts:?}");
    }

    #[test]
    fn ticks_rounds_and_clamps() {
        assert_eq!(ticks(0.2), 1);
        assert_eq!(ticks(-5.0), 1);
        assert_eq!(ticks(f64::NAN), 1);
        assert_eq!(ticks(1.49), 1);
        assert_eq!(ticks(1.5), 2);
        assert_eq!(ticks(12345.6), 12346);
        assert_eq!(ticks(1e30), MAX_TIME);
        assert_eq!(ticks(f64::INFINITY), MAX_TIME);
    }

    #[test]
    fn validation_names_the_field() {
        let bad = Distribution::Mixture {
            parts: vec![Part {
                weight: 1.0,
                dist: Distribution::Uniform { min: 10, max: 5 },
            }],
        };
        let error = bad.validate("delay").unwrap_err();
        assert_eq!(error.field, "delay.parts[0].dist.max");
        assert!(
            error
                .problem
                .contains("below `delay.parts[0].dist.min` (10)"),
            "{}",
            error.problem
        );
        let error = Distribution::Pareto {
            min: 5.0,
            shape: 1.0,
        }
        .validate("cancel.after")
        .unwrap_err();
        assert_eq!(error.field, "cancel.after.shape");
        assert!(
            error.problem.contains("greater than 1"),
            "{}",
            error.problem
        );
    }
}
