//! How sure a figure is: the median of a cell's repetitions, a confidence
//! interval of that median, the ratio of two cells with an interval of its own,
//! and the rule that calls two cells a tie.
//!
//! * **Interval of a median**: distribution-free, from order statistics. For `n`
//!   independent repetitions, the interval `[x(k), x(n+1-k)]` (1-based order
//!   statistics) contains the true median with probability
//!   `1 - 2 P(B < k)`, `B ~ Binomial(n, 1/2)`, whatever the distribution of the
//!   times (Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*,
//!   3rd ed., section 3.6; Le Boudec, *Performance Evaluation of Computer and
//!   Communication Systems*, 2010, Theorem 2.1). We take the largest `k` whose
//!   coverage is at least [`CONFIDENCE`]. Below [`schema::MIN_REPETITIONS`]
//!   (six) none is, and a cell gets no interval at all ([`Summary::interval`]):
//!   the min and max of three values cover 75%, and printed in the place of an
//!   interval they would read as one.
//!   `statrs` provides the binomial tail.
//! * **Interval of a ratio**: a percentile bootstrap (Efron & Tibshirani, *An
//!   Introduction to the Bootstrap*, 1993, ch. 13), in the spirit of Kalibera &
//!   Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013), who bootstrap
//!   ratios of execution times over repetitions: each resample draws both cells'
//!   repetitions with replacement and divides their medians; the interval is the
//!   2.5th and 97.5th percentiles of [`BOOTSTRAP_RESAMPLES`] such ratios. The
//!   resamples come from a ChaCha8 stream seeded by the caller, so the same
//!   repetitions always give the same interval. No maintained crate offers a
//!   bootstrap of a ratio of medians; it is a dozen lines here, tested below.
//! * **Ties**: two cells tie when their median intervals overlap. That is
//!   conservative (two overlapping 95% intervals can still differ
//!   significantly), which is the side to err on before naming a winner. A
//!   cell without an interval ties with nothing and is told from nothing
//!   ([`Summary::ties_with`] is `None`): too few repetitions give no verdict
//!   either way.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use statrs::distribution::{Binomial, DiscreteCDF};

/// The coverage asked of every interval.
pub const CONFIDENCE: f64 = 0.95;
/// Resamples drawn for each bootstrap interval.
pub const BOOTSTRAP_RESAMPLES: usize = 10_000;

/// What [`summarise`] says about one cell's repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Number of repetitions.
    pub n: usize,
    /// Their median.
    pub median: f64,
    /// The interval of the median.
    pub ci_low: f64,
    /// The interval of the median.
    pub ci_high: f64,
    /// The interval's exact coverage.
    pub ci_level: f64,
    /// The smallest repetition.
    pub min: f64,
    /// The largest repetition.
    pub max: f64,
}

impl Summary {
    /// Whether this interval and `other`'s share a point.
    pub fn overlaps(&self, other: &Summary) -> bool {
        self.ci_low <= other.ci_high && other.ci_low <= self.ci_high
    }

    /// Whether the values are enough for an interval: at least
    /// [`schema::MIN_REPETITIONS`], the one minimum of the suite.
    pub fn judged(&self) -> bool {
        self.n >= schema::MIN_REPETITIONS
    }

    /// The interval of the median, or `None` below the minimum of
    /// repetitions.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.judged().then_some((self.ci_low, self.ci_high))
    }

    /// Whether this cell and `other` tie (their intervals overlap), or `None`
    /// when either has too few repetitions to say.
    pub fn ties_with(&self, other: &Summary) -> Option<bool> {
        (self.judged() && other.judged()).then(|| self.overlaps(other))
    }
}

/// The median, its interval and the range of `values`; `None` for no values or
/// a value that is not finite.
pub fn summarise(values: &[f64]) -> Option<Summary> {
    if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let (k, ci_level) = order_statistic_rank(n);
    Some(Summary {
        n,
        median: median_of_sorted(&sorted),
        ci_low: sorted[k - 1],
        ci_high: sorted[n - k],
        ci_level,
        min: sorted[0],
        max: sorted[n - 1],
    })
}

/// The median of sorted values (the mean of the middle two for an even count).
fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// For `n` repetitions, the 1-based rank `k` of the interval
/// `[x(k), x(n+1-k)]` and its coverage `1 - 2 P(Binomial(n, 1/2) < k)`: the
/// largest `k` with coverage at least [`CONFIDENCE`], or 1 (min and max) when
/// even that falls short.
pub fn order_statistic_rank(n: usize) -> (usize, f64) {
    assert!(n > 0, "an interval needs at least one value");
    let coverage = |k: usize| -> f64 {
        if k == 0 {
            return 1.0;
        }
        let binomial = Binomial::new(0.5, n as u64).expect("p = 1/2 is valid");
        // P(B < k) = P(B <= k - 1).
        1.0 - 2.0 * binomial.cdf(k as u64 - 1)
    };
    let mut k = 1;
    while k < n.div_ceil(2) && coverage(k + 1) >= CONFIDENCE {
        k += 1;
    }
    (k, coverage(k).max(0.0))
}

/// A percentile-bootstrap [`CONFIDENCE`] interval of `median(a) / median(b)`
/// from [`BOOTSTRAP_RESAMPLES`] resamples drawn with `seed`. `None` when either
/// side has fewer than [`schema::MIN_REPETITIONS`] values or a median is not
/// positive.
pub fn ratio_interval(a: &[f64], b: &[f64], seed: u64) -> Option<(f64, f64)> {
    if a.len() < schema::MIN_REPETITIONS || b.len() < schema::MIN_REPETITIONS {
        return None;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ratios = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    let (mut ra, mut rb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
    for _ in 0..BOOTSTRAP_RESAMPLES {
        resample(a, &mut ra, &mut rng);
        resample(b, &mut rb, &mut rng);
        let denominator = median_of_sorted(&rb);
        if denominator <= 0.0 {
            return None;
        }
        ratios.push(median_of_sorted(&ra) / denominator);
    }
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - CONFIDENCE) / 2.0;
    Some((
        percentile_of_sorted(&ratios, tail),
        percentile_of_sorted(&ratios, 1.0 - tail),
    ))
}

/// Fills `into` with draws from `from` with replacement, sorted.
fn resample(from: &[f64], into: &mut [f64], rng: &mut ChaCha8Rng) {
    for slot in into.iter_mut() {
        *slot = from[rng.random_range(0..from.len())];
    }
    into.sort_by(f64::total_cmp);
}

/// The value at quantile `q` of sorted values, by the nearest rank.
fn percentile_of_sorted(sorted: &[f64], q: f64) -> f64 {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_coverage_match_the_binomial_tables() {
        // n = 5: even the min and max cover only 1 - 2/32.
        let (k, level) = order_statistic_rank(5);
        assert_eq!(k, 1);
        assert!((level - 0.9375).abs() < 1e-12);
        // n = 6: min and max, 1 - 2/64.
        let (k, level) = order_statistic_rank(6);
        assert_eq!(k, 1);
        assert!((level - 0.96875).abs() < 1e-12);
        // n = 9: x(2)..x(8), 1 - 2 * 10/512.
        let (k, level) = order_statistic_rank(9);
        assert_eq!(k, 2);
        assert!((level - (1.0 - 20.0 / 512.0)).abs() < 1e-12);
        // n = 20: x(6)..x(15), coverage 0.9586 (the textbook value).
        let (k, level) = order_statistic_rank(20);
        assert_eq!(k, 6);
        assert!((level - 0.958_610_5).abs() < 1e-6);
        // One value: the interval is that value, with no real coverage.
        assert_eq!(order_statistic_rank(1).0, 1);
    }

    #[test]
    fn summary_of_known_values() {
        let s = summarise(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0]).expect("values");
        assert_eq!(s.median, 3.5);
        assert_eq!((s.ci_low, s.ci_high), (1.0, 6.0));
        assert_eq!((s.min, s.max), (1.0, 6.0));
        assert_eq!(s.n, 6);
        let s = summarise(&[9.0, 1.0, 8.0, 2.0, 7.0, 3.0, 6.0, 4.0, 5.0]).expect("values");
        assert_eq!(s.median, 5.0);
        assert_eq!((s.ci_low, s.ci_high), (2.0, 8.0));
        assert!(summarise(&[]).is_none());
        assert!(summarise(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn overlap_is_symmetric_and_touching_counts() {
        let a = summarise(&[1.0, 2.0, 3.0]).expect("values");
        let b = summarise(&[3.0, 4.0, 5.0]).expect("values");
        let c = summarise(&[3.5, 4.0, 5.0]).expect("values");
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c) && !c.overlaps(&a));
    }

    #[test]
    fn bootstrap_is_deterministic_and_brackets_the_ratio() {
        let a = [20.0, 21.0, 19.5, 20.5, 22.0, 20.2];
        let b = [10.0, 10.4, 9.8, 10.1, 10.2, 9.9];
        let first = ratio_interval(&a, &b, 7).expect("interval");
        assert_eq!(first, ratio_interval(&a, &b, 7).expect("interval"));
        let point = 20.35 / 10.05;
        assert!(
            first.0 <= point && point <= first.1,
            "{first:?} around {point}"
        );
        assert!(first.0 > 1.8 && first.1 < 2.3, "{first:?}");
        // A cell against itself: the interval straddles 1.
        let own = ratio_interval(&b, &b, 7).expect("interval");
        assert!(own.0 <= 1.0 && 1.0 <= own.1);
        assert!(ratio_interval(&a, &[], 7).is_none());
        assert!(ratio_interval(&a, &[0.0; 6], 7).is_none());
        // Below the minimum of repetitions, no interval.
        assert!(ratio_interval(&a, &b[..5], 7).is_none());
    }

    #[test]
    fn below_the_minimum_a_summary_has_no_interval_and_no_tie() {
        let five = summarise(&[1.0, 2.0, 3.0, 4.0, 5.0]).expect("values");
        let six = summarise(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).expect("values");
        assert!(!five.judged() && six.judged());
        assert_eq!(five.interval(), None);
        assert_eq!(six.interval(), Some((1.0, 6.0)));
        assert_eq!(five.ties_with(&six), None);
        assert_eq!(six.ties_with(&five), None);
        assert_eq!(six.ties_with(&six), Some(true));
        // The minimum is the smallest count whose min..max reaches 95%.
        assert!(order_statistic_rank(schema::MIN_REPETITIONS).1 >= CONFIDENCE);
        assert!(order_statistic_rank(schema::MIN_REPETITIONS - 1).1 < CONFIDENCE);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile_of_sorted(&v, 0.025), 3.0);
        assert_eq!(percentile_of_sorted(&v, 0.975), 98.0);
        assert_eq!(percentile_of_sorted(&v, 0.0), 1.0);
        assert_eq!(percentile_of_sorted(&v, 1.0), 100.0);
    }
}
