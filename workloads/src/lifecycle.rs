//! Timer lifecycles, and how the population at time 0 is made to look like the
//! steady state.
//!
//! # Lifecycles
//!
//! Every timer that arrives has one of two lifecycles:
//!
//! * **One-shot**: inserted with deadline `now + delay`. It fires, or, with
//!   probability `cancel.fraction`, it is cancelled `cancel.after` ticks after the
//!   insert. A cancel that would come at or after the deadline is dropped: the
//!   timer fired first.
//! * **Idle timeout** (probability `rearm.fraction`): inserted like a one-shot
//!   (with `rearm.delay` if given), then re-armed `K` times, `K` geometric with
//!   mean `rearm.times` (after each arming, activity comes again with a fixed
//!   probability). Each re-arm comes `rearm.interval` ticks after the previous
//!   arming and reschedules the timer to the deadline `now + delay`. A re-arm that would come at or after the current deadline
//!   never happens: the timer fired first (the connection idled out) and the
//!   chain ends there. After the last re-arm the timer fires, or, with
//!   probability `cancel.fraction`, is cancelled `cancel.after` ticks after the
//!   last arming (the connection closed).
//!
//! Periodic tasks are not arrivals: they are a fixed set, prefilled at time 0 and
//! re-inserted at every firing (see `generate.rs`). Every deadline is rounded up
//! to a multiple of `granularity` and clamped to `MAX_TIME`.
//!
//! # The population at time 0
//!
//! A queue that has run for a long time holds, at any instant, the timers whose
//! lives cover that instant. They are not a fair sample of arrivals: a timer is
//! there with probability proportional to its lifetime ℓ (the inspection
//! paradox), and it is at a uniformly random age within its life. Prefilling
//! with fresh timers would be wrong twice. The population would hold far too
//! many short-lived timers (in `timeouts`, 95% of arrivals are cancelled within
//! tens of milliseconds, yet 97% of the pending timers are the ones that will
//! time out), and every prefilled timer would be at the start of its life, so a
//! wave of expiries would follow one delay later (with a constant delay, all of
//! them in the same tick) while the arrivals built up a second population.
//!
//! So each prefilled timer's whole lifecycle is drawn with probability
//! proportional to ℓ, its age uniformly in `[0, ℓ)`, and it enters the queue in
//! the state its lifecycle is in at that age (perhaps after several re-arms).
//! Its remaining events (re-arms, a cancel) then happen in the measured phase
//! exactly as for any other timer. This is the stationary state of Poisson
//! arrivals with independent lifetimes (an M/G/∞ system).
//!
//! Lifetimes have no closed form once cancels, re-arms and granularity interact,
//! so the bias towards long lives is obtained by rejection against an
//! **envelope**: a bound `B >= ℓ` built from independent parts whose
//! length-biased distributions are known (see
//! `Distribution::sample_length_biased`):
//!
//! * one-shot: `B = delay + granularity - 1` (the rounded-up deadline is at most
//!   that far away);
//! * cancelled: also `B = cancel.after` bounds the life; of the two, the one
//!   with the smaller mean is used, as it rejects less;
//! * idle timeout: the `K` re-arm intervals are added to either.
//!
//! A sum is length-biased by picking one part with probability proportional to
//! its mean and length-biasing that part alone (for the intervals: `K`
//! length-biased, then one of the `K` intervals). The lifecycle class is picked
//! with probability proportional to its arrival probability times its mean `B`.
//! With `B` length-biased and the age uniform in `[0, B)`, keeping the proposal
//! only if the timer is still alive at that age keeps it with probability
//! `ℓ / B`, which turns the bias in `B` into exactly a bias in `ℓ` (up to the
//! rounding of samples to whole ticks). For `uniform` every proposal is kept;
//! a spec where fewer than [`MIN_KEPT_FRACTION`] would be kept is refused.
//!
//! # The arrival rate
//!
//! By Little's law the population is `λ E[ℓ]`, and the sampler above gives
//! `E[ℓ] = E[B] × P(kept)`. [`Model::estimate`] measures `P(kept)` on a fixed
//! number of proposals from a fixed stream that depends on neither the seed nor
//! the name, so a derived rate belongs to the spec alone. When every proposal is
//! kept (no timer can end early), the estimate is exact.

use rand::Rng;

use crate::dist::{Distribution, pick};
use crate::math::ln;
use crate::spec::Spec;
use crate::streams::{self, Streams};
use crate::tape::{MAX_TIME, Tick};

/// Below this fraction of kept proposals the prefill would need more than 100
/// proposals per timer (minutes for a million timers), so the spec is refused.
pub(crate) const MIN_KEPT_FRACTION: f64 = 0.01;

/// Proposals and arrivals drawn by [`Model::estimate`]: 2^14 gives the kept
/// fraction to about ±0.4% at worst (a binomial proportion near 1/2), and well
/// under ±0.1% near 1, where the built-ins are; it takes about a millisecond.
const ESTIMATE_SAMPLES: u32 = 1 << 14;

/// The seed of the estimation stream. Nothing up our sleeves: the first digits
/// of pi in hexadecimal.
const ESTIMATE_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// The longest re-arm chain drawn. A geometric count with the largest valid mean
/// (1000) exceeds it with probability e^-1000.
const MAX_CHAIN: u64 = 1_000_000;

/// MAX_TIME as a signed time, for lifecycles that began before time 0.
const MAX_SIGNED: i64 = MAX_TIME as i64;

/// Which part of an envelope a proposal length-biases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Term {
    /// The re-arm intervals.
    Gaps,
    /// The delay.
    Delay,
    /// The constant `granularity - 1`: nothing is biased.
    Rounding,
    /// The cancel time.
    Cancel,
}

/// One of the four lifecycle classes of an arriving timer.
#[derive(Clone, Copy, Debug)]
struct Class {
    /// An idle timeout (re-armed), rather than a one-shot timer.
    chain: bool,
    /// Ends with a cancel (if the cancel comes before the deadline).
    cancelled: bool,
    /// The probability that an arriving timer is of this class.
    probability: f64,
    /// The envelope ends with the cancel time rather than the delay.
    ends_with_cancel: bool,
    /// The means of the envelope's parts, by [`Term`]; unused parts are 0.
    terms: [(Term, f64); 4],
}

impl Class {
    /// The mean of the envelope `B`.
    fn mean_envelope(&self) -> f64 {
        self.terms.iter().map(|(_, mean)| mean).sum()
    }
}

/// One drawn lifecycle: everything random about a timer, drawn when it arrives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Path {
    /// The delay of every arming.
    pub(crate) delay: Tick,
    /// The intervals between armings; empty for a one-shot timer.
    pub(crate) gaps: Vec<Tick>,
    /// When the last arming is followed by a cancel, the ticks from that arming.
    pub(crate) cancel_after: Option<Tick>,
}

/// What follows an arming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// A re-arm at this time, before the current deadline.
    Rearm(i64),
    /// A cancel at this time, before the current deadline.
    Cancel(i64),
    /// Nothing: the timer fires at its deadline.
    Fire,
}

/// A lifecycle's state at some time: alive with this deadline and what comes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Alive {
    /// The current timer's deadline.
    pub(crate) deadline: i64,
    /// The next event.
    pub(crate) next: Next,
    /// The index of the gap after the one a scheduled re-arm uses.
    pub(crate) next_gap: usize,
}

/// The result of following a lifecycle up to some time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Walk {
    /// The state at that time, or `None` if the timer has fired or been cancelled.
    pub(crate) alive: Option<Alive>,
    /// Re-arms that happened up to that time.
    pub(crate) rearms: u64,
    /// Whether the lifecycle ended with a cancel by that time.
    pub(crate) cancelled: bool,
}

/// The deadline of a timer armed at `arm` with `delay`: rounded up to a multiple
/// of `granularity`, clamped to `MAX_TIME`.
pub(crate) fn deadline_after(arm: i64, delay: Tick, granularity: Tick) -> i64 {
    let due = arm.saturating_add(delay as i64).min(MAX_SIGNED);
    round_up(due, granularity as i64).min(MAX_SIGNED)
}

/// The smallest multiple of `step` at or after `x` (also for negative `x`).
fn round_up(x: i64, step: i64) -> i64 {
    match x.rem_euclid(step) {
        0 => x,
        rest => x + (step - rest),
    }
}

/// What follows an arming at `arm` with `deadline`: a re-arm after `gap`, if
/// there is one and it comes before the deadline; otherwise a cancel after
/// `cancel_after`, if it comes before the deadline; otherwise the firing.
pub(crate) fn next_after_arm(
    arm: i64,
    deadline: i64,
    gap: Option<Tick>,
    cancel_after: Option<Tick>,
) -> Next {
    let before_deadline = |after: Tick| {
        let at = arm.saturating_add(after as i64);
        (at < deadline).then_some(at)
    };
    match gap {
        Some(gap) => before_deadline(gap).map_or(Next::Fire, Next::Rearm),
        None => cancel_after
            .and_then(before_deadline)
            .map_or(Next::Fire, Next::Cancel),
    }
}

/// A geometric count on {0, 1, ...} with the given mean, by inversion.
fn geometric<R: Rng>(mean: f64, rng: &mut R) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    // P(K >= k) = q^k with q = mean / (1 + mean).
    let q = mean / (1.0 + mean);
    let k = (ln(crate::dist::open_unit(rng)) / ln(q)).floor();
    (k as u64).min(MAX_CHAIN)
}

/// The lifecycle model of a valid spec.
pub(crate) struct Model<'a> {
    delay: &'a Distribution,
    chain_delay: &'a Distribution,
    granularity: Tick,
    rearm_fraction: f64,
    interval: Option<&'a Distribution>,
    times: f64,
    cancel_fraction: f64,
    after: Option<&'a Distribution>,
    period: &'a Distribution,
    /// The classes with a non-zero probability.
    classes: Vec<Class>,
}

/// What [`Model::estimate`] measures.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Estimate {
    /// The fraction of prefill proposals kept.
    pub(crate) kept: f64,
    /// The mean envelope `E[B]` over arrivals.
    pub(crate) mean_envelope: f64,
    /// Operations on the tape per arrival: its insert, two per re-arm, one per
    /// cancel that happens.
    pub(crate) ops_per_arrival: f64,
    /// Firings per tick of one periodic task, `E[1 / period]`.
    pub(crate) fires_per_task_tick: f64,
    /// Re-arm intervals drawn per prefilled timer (a chain's are all drawn
    /// when it is proposed, and kept while it lives).
    pub(crate) gaps_per_prefilled: f64,
}

impl Estimate {
    /// The mean lifetime of an arrival, by Little's law's bookkeeping.
    pub(crate) fn mean_lifetime(&self) -> f64 {
        self.mean_envelope * self.kept
    }
}

impl<'a> Model<'a> {
    /// The model of `spec`, which must have passed its field checks.
    pub(crate) fn new(spec: &'a Spec) -> Self {
        let delay = spec.lifecycle_delay();
        let (rearm_fraction, interval, times, chain_delay) = match &spec.rearm {
            Some(r) => (
                r.fraction,
                Some(&r.interval),
                r.times,
                r.delay.as_ref().unwrap_or(delay),
            ),
            None => (0.0, None, 0.0, delay),
        };
        let (cancel_fraction, after) = match &spec.cancel {
            Some(c) => (c.fraction, Some(&c.after)),
            None => (0.0, None),
        };
        let period = spec
            .periodic
            .as_ref()
            .and_then(|p| p.period.as_ref())
            .unwrap_or(delay);
        let mut model = Self {
            delay,
            chain_delay,
            granularity: spec.granularity,
            rearm_fraction,
            interval,
            times,
            cancel_fraction,
            after,
            period,
            classes: Vec::new(),
        };
        for chain in [false, true] {
            for cancelled in [false, true] {
                let class = model.class(chain, cancelled);
                if class.probability > 0.0 {
                    model.classes.push(class);
                }
            }
        }
        debug_assert!(!model.classes.is_empty(), "the probabilities sum to 1");
        model
    }

    /// A class with its probability and envelope.
    fn class(&self, chain: bool, cancelled: bool) -> Class {
        let p_chain = if chain {
            self.rearm_fraction
        } else {
            1.0 - self.rearm_fraction
        };
        let p_cancel = if cancelled {
            self.cancel_fraction
        } else {
            1.0 - self.cancel_fraction
        };
        let delay = if chain { self.chain_delay } else { self.delay }.mean();
        let rounding = (self.granularity - 1) as f64;
        let gaps = match (chain, self.interval) {
            (true, Some(interval)) => self.times * interval.mean(),
            _ => 0.0,
        };
        let cancel = match (cancelled, self.after) {
            (true, Some(after)) => after.mean(),
            _ => f64::INFINITY,
        };
        let ends_with_cancel = cancel < delay + rounding;
        let terms = if ends_with_cancel {
            [
                (Term::Gaps, gaps),
                (Term::Delay, 0.0),
                (Term::Rounding, 0.0),
                (Term::Cancel, cancel),
            ]
        } else {
            [
                (Term::Gaps, gaps),
                (Term::Delay, delay),
                (Term::Rounding, rounding),
                (Term::Cancel, 0.0),
            ]
        };
        Class {
            chain,
            cancelled,
            probability: p_chain * p_cancel,
            ends_with_cancel,
            terms,
        }
    }

    /// The lifecycle of an arriving timer.
    pub(crate) fn draw_arrival(&self, streams: &mut Streams) -> Path {
        let chain = streams.delays.random::<f64>() < self.rearm_fraction;
        let cancelled = streams.cancels.random::<f64>() < self.cancel_fraction;
        self.draw(chain, cancelled, None, streams)
    }

    /// A lifecycle of the given class, with one part of its envelope
    /// length-biased (or none).
    fn draw(
        &self,
        chain: bool,
        cancelled: bool,
        biased: Option<Term>,
        streams: &mut Streams,
    ) -> Path {
        let sample = |dist: &Distribution, term: Term, rng: &mut rand_chacha::ChaCha8Rng| {
            if biased == Some(term) {
                dist.sample_length_biased(rng)
            } else {
                dist.sample(rng)
            }
        };
        let delay = sample(
            if chain { self.chain_delay } else { self.delay },
            Term::Delay,
            &mut streams.delays,
        );
        let gaps = match (chain, self.interval) {
            (true, Some(interval)) => {
                self.draw_gaps(interval, biased == Some(Term::Gaps), &mut streams.rearms)
            }
            _ => Vec::new(),
        };
        let cancel_after = match (cancelled, self.after) {
            (true, Some(after)) => Some(sample(after, Term::Cancel, &mut streams.cancels)),
            _ => None,
        };
        Path {
            delay,
            gaps,
            cancel_after,
        }
    }

    /// The re-arm intervals of one chain. Length-biased, the count is
    /// `1 + G + G'` (two independent geometric counts: the distribution
    /// proportional to `k P(K = k)`) and one interval, chosen uniformly, is
    /// length-biased.
    fn draw_gaps<R: Rng>(&self, interval: &Distribution, biased: bool, rng: &mut R) -> Vec<Tick> {
        let count = if biased {
            (1 + geometric(self.times, rng) + geometric(self.times, rng)).min(MAX_CHAIN)
        } else {
            geometric(self.times, rng)
        };
        let special = biased.then(|| rng.random_range(0..count));
        (0..count)
            .map(|i| {
                if special == Some(i) {
                    interval.sample_length_biased(rng)
                } else {
                    interval.sample(rng)
                }
            })
            .collect()
    }

    /// A prefill proposal: a lifecycle with its envelope length-biased, and its
    /// start, `-age` with the age uniform in `[0, B)`. See the module
    /// documentation.
    pub(crate) fn propose(&self, streams: &mut Streams) -> (Path, i64) {
        let class = *pick(
            &self.classes,
            |c| c.probability * c.mean_envelope(),
            &mut streams.choice,
        );
        let (term, _) = *pick(&class.terms, |(_, mean)| *mean, &mut streams.choice);
        let path = self.draw(class.chain, class.cancelled, Some(term), streams);
        let bound = self.envelope(&path, &class);
        let age = streams.choice.random_range(0..bound);
        (path, -(age as i64))
    }

    /// The envelope `B` of a drawn lifecycle, at least 1 and at most `MAX_TIME`.
    fn envelope(&self, path: &Path, class: &Class) -> Tick {
        let last = if class.ends_with_cancel {
            path.cancel_after
                .expect("a class whose envelope ends with a cancel draws one")
        } else {
            path.delay.saturating_add(self.granularity - 1)
        };
        path.gaps
            .iter()
            .fold(last, |sum, &gap| sum.saturating_add(gap))
            .min(MAX_TIME)
    }

    /// Follows a lifecycle that began at `start` through every event at or
    /// before `now`.
    pub(crate) fn walk(&self, path: &Path, start: i64, now: i64) -> Walk {
        let mut arm = start;
        let mut deadline = deadline_after(arm, path.delay, self.granularity);
        let mut rearms = 0;
        let mut gap = 0;
        loop {
            let next = next_after_arm(
                arm,
                deadline,
                path.gaps.get(gap).copied(),
                path.cancel_after,
            );
            let (alive, cancelled) = match next {
                Next::Rearm(at) if at <= now => {
                    arm = at;
                    deadline = deadline_after(arm, path.delay, self.granularity);
                    rearms += 1;
                    gap += 1;
                    continue;
                }
                Next::Rearm(_) => (true, false),
                Next::Cancel(at) => (at > now, at <= now),
                Next::Fire => (deadline > now, false),
            };
            let alive = alive.then_some(Alive {
                deadline,
                next,
                next_gap: gap + 1,
            });
            return Walk {
                alive,
                rearms,
                cancelled,
            };
        }
    }

    /// The period of a periodic task.
    pub(crate) fn draw_period<R: Rng>(&self, rng: &mut R) -> Tick {
        self.period.sample(rng)
    }

    /// The granularity deadlines are rounded up to.
    pub(crate) fn granularity(&self) -> Tick {
        self.granularity
    }

    /// Measures what Little's law and the operation count need, on a fixed
    /// stream. See the module documentation.
    pub(crate) fn estimate(&self) -> Estimate {
        let key = streams::key(ESTIMATE_SEED, "");
        let mut streams = Streams::new(&key, 0);
        let (mut kept, mut kept_gaps) = (0u32, 0usize);
        for _ in 0..ESTIMATE_SAMPLES {
            let (path, start) = self.propose(&mut streams);
            if self.walk(&path, start, 0).alive.is_some() {
                kept += 1;
                kept_gaps += path.gaps.len();
            }
        }
        let mut ops = 0u64;
        for _ in 0..ESTIMATE_SAMPLES {
            let path = self.draw_arrival(&mut streams);
            // Deadlines depend on the phase within the granularity.
            let start = streams.choice.random_range(0..self.granularity) as i64;
            let walk = self.walk(&path, start, i64::MAX);
            // An insert, a reschedule per re-arm, and maybe a cancel.
            ops += 1 + walk.rearms + u64::from(walk.cancelled);
        }
        let mut fires = 0.0;
        for _ in 0..ESTIMATE_SAMPLES {
            fires += 1.0 / self.draw_period(&mut streams.delays) as f64;
        }
        let samples = f64::from(ESTIMATE_SAMPLES);
        Estimate {
            kept: f64::from(kept) / samples,
            mean_envelope: self
                .classes
                .iter()
                .map(|c| c.probability * c.mean_envelope())
                .sum(),
            ops_per_arrival: ops as f64 / samples,
            fires_per_task_tick: fires / samples,
            gaps_per_prefilled: kept_gaps as f64 / f64::from(kept.max(1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_up_handles_negative_times() {
        assert_eq!(round_up(0, 1000), 0);
        assert_eq!(round_up(1, 1000), 1000);
        assert_eq!(round_up(1000, 1000), 1000);
        assert_eq!(round_up(-1, 1000), 0);
        assert_eq!(round_up(-1000, 1000), -1000);
        assert_eq!(round_up(-1001, 1000), -1000);
        assert_eq!(round_up(7, 1), 7);
    }

    #[test]
    fn deadlines_clamp_at_max_time() {
        assert_eq!(deadline_after(10, 5, 1), 15);
        assert_eq!(deadline_after(10, 5, 4), 16);
        assert_eq!(deadline_after(MAX_SIGNED - 1, MAX_TIME, 1), MAX_SIGNED);
        assert_eq!(deadline_after(MAX_SIGNED - 1, 1, 1000), MAX_SIGNED);
    }

    #[test]
    fn next_event_respects_the_deadline() {
        assert_eq!(next_after_arm(0, 100, Some(30), Some(5)), Next::Rearm(30));
        assert_eq!(
            next_after_arm(0, 100, Some(100), Some(5)),
            Next::Fire,
            "re-arm at the deadline: fired first"
        );
        assert_eq!(next_after_arm(0, 100, None, Some(99)), Next::Cancel(99));
        assert_eq!(
            next_after_arm(0, 100, None, Some(100)),
            Next::Fire,
            "cancel at the deadline is dropped"
        );
        assert_eq!(next_after_arm(-50, 100, None, None), Next::Fire);
    }

    fn spec(extra: &str) -> Spec {
        let text =
            format!("name = \"t\"\ndescription = \"t\"\nduration = 10\npending = 10\n{extra}");
        Spec::from_toml(&text, "test").unwrap()
    }

    /// With a constant delay, a timer alive at time 0 is due at a uniformly
    /// random tick of the next `delay` ticks: every proposal is kept, and no
    /// remaining time is favoured.
    #[test]
    fn constant_delays_prefill_with_uniform_remaining_times() {
        let spec = spec("delay = { kind = \"constant\", value = 10 }\n");
        let model = Model::new(&spec);
        let mut streams = Streams::new(&streams::key(3, "t"), 0);
        let mut counts = [0u32; 11];
        for _ in 0..20_000 {
            let (path, start) = model.propose(&mut streams);
            let alive = model.walk(&path, start, 0).alive.expect("always kept");
            counts[alive.deadline as usize] += 1;
        }
        assert_eq!(counts[0], 0, "nothing is due at time 0");
        for (remaining, &count) in counts.iter().enumerate().skip(1) {
            assert!(
                (1_800..2_200).contains(&count),
                "{remaining} ticks: {count} of 20,000"
            );
        }
        assert_eq!(model.estimate().kept, 1.0);
    }

    /// A chain re-armed every 10 ticks with a 100-tick delay and 4 re-arms on
    /// average lives 140 ticks on average; the estimate finds it.
    #[test]
    fn the_estimate_measures_chain_lifetimes() {
        let spec = spec(
            "delay = { kind = \"constant\", value = 100 }\n\
             rearm = { fraction = 1.0, interval = { kind = \"constant\", value = 10 }, times = 4 }\n",
        );
        let estimate = Model::new(&spec).estimate();
        assert!(
            (estimate.mean_lifetime() - 140.0).abs() < 1.0,
            "{estimate:?}"
        );
        // An insert, then a reschedule per re-arm.
        assert!((estimate.ops_per_arrival - 5.0).abs() < 0.2, "{estimate:?}");
    }

    #[test]
    fn geometric_has_the_requested_mean() {
        let mut rng = streams::stream(&streams::key(1, "geometric"), 0);
        let n = 100_000;
        let total: u64 = (0..n).map(|_| geometric(4.0, &mut rng)).sum();
        let mean = total as f64 / n as f64;
        assert!((mean - 4.0).abs() < 0.05, "mean {mean}");
        assert_eq!(geometric(0.0, &mut rng), 0);
    }
}
