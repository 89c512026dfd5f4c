//! The one judge: every figure `timerbench compare` sets side by side is a
//! ratio of paired times, and every verdict on it comes from one rule.
//!
//! **What is paired.** A verdict is about a *subject* against a *reference*
//! (NEW against BASE, row B against row A, a design against a rival), and it
//! is made from pairs of times measured close together, so that what the
//! machine did meanwhile falls on both sides of a pair alike:
//!
//! * two rows of one run ([`rows`]) and a row against its rivals ([`lead`]):
//!   the two rows' whole passes of the same repetition. `timerbench run`
//!   plays each repetition as a round of every row's passes, a few passes
//!   apart, so a drift of the host slows both about as much;
//! * two sets of runs ([`runs`]), such as the two builds `make ab` runs in
//!   turn: each run's median, the i-th NEW run paired with the i-th BASE run.
//!   Here the unit is the whole run, so the variance *between* runs (another
//!   process, another placement in memory, a neighbour on the host) is in the
//!   spread of the pairs, not only the variance within one run.
//!
//! **The interval.** The ratio is the median of the pairs' ratios (subject's
//! time over the reference's: below 1, the subject is faster), and its
//! interval is the distribution-free one of a median
//! ([`stats::summarise`]: order statistics, binomial coverage of at least
//! 95%). It assumes only that the pairs are independent and alike, which is
//! what pairing buys; no normality, no bootstrap of a handful of values.
//!
//! **The rule.** *Faster* when the whole interval lies below
//! `1 / (1 + NOISE_BAND)`, *slower* when it lies above `1 + NOISE_BAND`,
//! else *no significant change*. The band is symmetric in the logarithm, so
//! a lead read either way round gives the same verdict. It is wider than
//! zero because where code lies in memory moves one design's time by up to
//! about 1.5% between two builds of the same source (the A/A checks of
//! `docs/judging-changes.md`); a change smaller than that is not one a
//! benchmark can attribute to the code.
//!
//! **Too little.** No distribution-free interval of a median reaches 95%
//! with fewer than [`MIN_PAIRS`] values (with six, the smallest and the
//! largest cover 96.9%). Below that every form prints its figures, says
//! *cannot tell* and why, and calls nothing. So one run against one run,
//! however many repetitions each holds, never gives a verdict: a single pair
//! of runs cannot tell a change from the drift between two processes.

pub mod command;
pub mod lead;
pub mod rows;
pub mod runs;
pub mod table;

use crate::stats;

/// The noise band: a change is called only when its whole interval lies
/// beyond this fraction either side of 1 (in the logarithm).
pub const NOISE_BAND: f64 = 0.02;

/// The fewest pairs that give a verdict: the one minimum of the suite,
/// [`schema::MIN_REPETITIONS`], the smallest count whose distribution-free
/// interval of the median covers at least [`stats::CONFIDENCE`] (a test
/// holds it against the binomial).
pub const MIN_PAIRS: usize = schema::MIN_REPETITIONS;

/// What the judge says of one subject against one reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval lies below `1 / (1 + NOISE_BAND)`.
    Faster,
    /// The whole interval lies above `1 + NOISE_BAND`.
    Slower,
    /// The interval reaches into the noise band.
    NoChange,
    /// Fewer than [`MIN_PAIRS`] pairs: figures, no verdict.
    CannotTell,
}

impl Verdict {
    /// The verdict's words, as tables and `comparison.csv` print them (the
    /// schema crate's `VERDICTS`, in this order).
    pub fn label(self) -> &'static str {
        schema::VERDICTS[match self {
            Verdict::Faster => 0,
            Verdict::Slower => 1,
            Verdict::NoChange => 2,
            Verdict::CannotTell => 3,
        }]
    }

    /// The same verdict read the other way round (reference against
    /// subject).
    pub fn inverted(self) -> Verdict {
        match self {
            Verdict::Faster => Verdict::Slower,
            Verdict::Slower => Verdict::Faster,
            other => other,
        }
    }
}

/// A ratio of paired times with its interval and verdict.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judgement {
    /// How many pairs it was made from.
    pub pairs: usize,
    /// The median of the pairs' ratios, subject over reference.
    pub ratio: f64,
    /// The interval of `ratio` (`None` below [`MIN_PAIRS`]).
    pub interval: Option<(f64, f64)>,
    /// What the rule says.
    pub verdict: Verdict,
}

impl Judgement {
    /// The same judgement read the other way round: reference over subject,
    /// as a lead is quoted ("2.1x faster").
    pub fn inverted(self) -> Judgement {
        Judgement {
            pairs: self.pairs,
            ratio: 1.0 / self.ratio,
            interval: self.interval.map(|(low, high)| (1.0 / high, 1.0 / low)),
            verdict: self.verdict.inverted(),
        }
    }
}

/// The verdict on a ratio whose interval is `low..=high`.
pub fn rule((low, high): (f64, f64)) -> Verdict {
    if high < 1.0 / (1.0 + NOISE_BAND) {
        Verdict::Faster
    } else if low > 1.0 + NOISE_BAND {
        Verdict::Slower
    } else {
        Verdict::NoChange
    }
}

/// Judges paired ratios (subject's time over the reference's). `None` when
/// there is no ratio, or one is not a finite positive number.
pub fn judge(ratios: &[f64]) -> Option<Judgement> {
    if ratios.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
        return None;
    }
    let summary = stats::summarise(ratios)?;
    let interval = (ratios.len() >= MIN_PAIRS).then_some((summary.ci_low, summary.ci_high));
    Some(Judgement {
        pairs: ratios.len(),
        ratio: summary.median,
        interval,
        verdict: interval.map_or(Verdict::CannotTell, rule),
    })
}

/// The median of `values` (`None` when empty or not all finite).
pub fn median(values: &[f64]) -> Option<f64> {
    stats::summarise(values).map(|s| s.median)
}

/// Why a judgement without an interval has none, for the tables.
pub fn too_few(pairs: usize, unit: &str) -> String {
    format!(
        "cannot tell from {pairs} {unit}{}: a verdict needs {MIN_PAIRS} (the fewest whose median \
         has a 95% distribution-free interval)",
        if pairs == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_pairs_is_the_fewest_with_a_95_percent_interval() {
        assert!(stats::order_statistic_rank(MIN_PAIRS).1 >= stats::CONFIDENCE);
        assert!(stats::order_statistic_rank(MIN_PAIRS - 1).1 < stats::CONFIDENCE);
    }

    #[test]
    fn the_rule_calls_only_a_whole_interval_beyond_the_band() {
        assert_eq!(rule((0.90, 0.97)), Verdict::Faster);
        assert_eq!(rule((0.90, 0.99)), Verdict::NoChange);
        assert_eq!(rule((1.03, 1.10)), Verdict::Slower);
        assert_eq!(rule((1.01, 1.10)), Verdict::NoChange);
        assert_eq!(rule((0.5, 2.0)), Verdict::NoChange);
        // Symmetric in the logarithm: the band's edges are each other's inverse.
        let edge = 1.0 + NOISE_BAND;
        assert_eq!(
            rule((1.0 / (edge * 1.001), 1.0 / (edge * 1.0001))),
            Verdict::Faster
        );
        assert_eq!(rule((edge * 1.0001, edge * 1.001)), Verdict::Slower);
    }

    #[test]
    fn too_few_pairs_give_figures_and_no_verdict() {
        let five = judge(&[0.5, 0.5, 0.5, 0.5, 0.5]).unwrap();
        assert_eq!((five.verdict, five.interval), (Verdict::CannotTell, None));
        assert_eq!(five.ratio, 0.5);
        let six = judge(&[0.5, 0.6, 0.5, 0.55, 0.5, 0.52]).unwrap();
        assert_eq!(six.verdict, Verdict::Faster);
        assert_eq!(six.interval, Some((0.5, 0.6)));
        assert!(judge(&[]).is_none());
        assert!(judge(&[1.0, f64::NAN]).is_none());
        assert!(judge(&[1.0, -1.0]).is_none());
    }

    #[test]
    fn an_inverted_judgement_reads_the_other_way_round() {
        let j = judge(&[0.5, 0.5, 0.4, 0.5, 0.5, 0.45]).unwrap();
        let i = j.inverted();
        assert_eq!(i.verdict, Verdict::Slower);
        assert_eq!(i.interval, Some((2.0, 2.5)));
        assert_eq!(i.inverted().verdict, Verdict::Faster);
        assert_eq!(Verdict::CannotTell.inverted(), Verdict::CannotTell);
    }

    #[test]
    fn labels_are_the_schema_words() {
        assert_eq!(Verdict::NoChange.label(), "no significant change");
        assert_eq!(Verdict::CannotTell.label(), "cannot tell");
    }
}
