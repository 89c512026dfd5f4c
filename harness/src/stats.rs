//! How sure a figure is: the median of a cell's repetitions, a confidence
//! interval of that median, the ratio of two cells with an interval of its own,
//! and the rule that calls two cells a tie.
//!
//! * **Interval of a median**: distribution-free, from order statistics
//!   ([`summarise`], which lives in the schema crate's `interval` module so
//!   that the readers of a run summarise repetitions with the same function;
//!   it is re-exported here). We take the largest `k` whose coverage is at
//!   least [`CONFIDENCE`]. Below [`schema::MIN_REPETITIONS`] (six) none is,
//!   and a cell gets no interval at all ([`Summary::interval`]): the min and
//!   max of three values cover 75%, and printed in the place of an interval
//!   they would read as one.
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
use schema::interval::median_of_sorted;
pub use schema::interval::{CONFIDENCE, Summary, order_statistic_rank, summarise};

/// Resamples drawn for each bootstrap interval.
pub const BOOTSTRAP_RESAMPLES: usize = 10_000;

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
