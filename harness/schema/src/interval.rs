//! The median of a cell's repetitions and a confidence interval of it, shared
//! by the harness, which writes every interval of a run, and the readers
//! that summarise repetitions a run wrote raw (the report's threaded
//! section), so that a median and its interval are computed in one place.
//!
//! The interval is distribution-free, from order statistics. For `n`
//! independent repetitions, the interval `[x(k), x(n+1-k)]` (1-based order
//! statistics) contains the true median with probability `1 - 2 P(B < k)`,
//! `B ~ Binomial(n, 1/2)`, whatever the distribution of the times (Hollander,
//! Wolfe & Chicken, *Nonparametric Statistical Methods*, 3rd ed., section
//! 3.6; Le Boudec, *Performance Evaluation of Computer and Communication
//! Systems*, 2010, Theorem 2.1). We take the largest `k` whose coverage is at
//! least [`CONFIDENCE`]; below [`crate::MIN_REPETITIONS`] none is, and
//! [`Summary::interval`] gives none (the min and max of three cover 75%, and
//! printed where an interval goes they would read as one). `statrs` provides
//! the binomial tail; this is why the schema crate depends on it.

use statrs::distribution::{Binomial, DiscreteCDF};

/// The coverage asked of every interval.
pub const CONFIDENCE: f64 = 0.95;

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
    /// [`crate::MIN_REPETITIONS`], the one minimum of the suite.
    pub fn judged(&self) -> bool {
        self.n >= crate::MIN_REPETITIONS
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
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
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
    fn the_minimum_of_repetitions_is_the_first_count_to_reach_the_confidence() {
        assert!(order_statistic_rank(crate::MIN_REPETITIONS).1 >= CONFIDENCE);
        assert!(order_statistic_rank(crate::MIN_REPETITIONS - 1).1 < CONFIDENCE);
    }
}
