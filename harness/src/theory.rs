//! What Varghese and Lauck's analysis predicts for the work counters, from a
//! workload's law and a design's parameters, to set beside what the designs
//! count (`algorithms::Counters`).
//!
//! # The model
//!
//! A workload has a closed form here when it is a stationary stream of
//! one-shot timers: arrivals a Poisson process of `lambda` a tick (the
//! generator draws exponential gaps, so a tick's arrivals are Poisson), each
//! with an independent delay `D` (constant or uniform, whole ticks) and, with
//! probability `c`, a cancel `A` ticks after its insert (constant or uniform)
//! that happens when `A < D`; the prefill is the steady state. Periodic tasks,
//! re-arms, rounded deadlines, a set arrival rate or window, other delay laws
//! and traces have none here ([`Law::of`] says why), and nothing is guessed
//! for them. `lambda` is the tape's measured inserts over its measured ticks,
//! so that the predictions follow the arrivals this tape drew.
//!
//! The replay advances to a tick before it applies that tick's operations,
//! so a timer counts at the visit of tick `t` when it was inserted at
//! `s <= t - 1` and is still pending. The one quantity everything follows
//! from is the **pending density** `f(r)`, the expected number of such timers
//! `r` ticks from their deadline (`r = 0`: due at `t`):
//!
//! `f(r) = lambda * sum_{a >= 1} P(D = a + r) * (1 - c + c * P(A >= a))`,
//!
//! the arrivals of `a` ticks ago whose delay is `a + r` and which were not
//! cancelled by age `a`. The timers due at a tick are a sum of independent
//! thinned Poisson counts, so Poisson with mean `mu = f(0)`, the expiries a
//! tick; and the pending population is a Poisson process over residuals, so
//! counts over disjoint sets of residuals are independent Poisson variables.
//! Over `T` measured ticks (ticks `1..=T`):
//!
//! * **Empty ticks** (V&L section 4, the idle ticks of schemes 4 to 7):
//!   `T e^-mu` for a ticked wheel at one tick; at a wheel tick of `tau`
//!   ticks, `(T / tau) e^(-tau mu)`.
//! * **Rounds decremented** (V&L 6, scheme 6: the per-tick work of the
//!   unsorted hashed wheel): each wheel tick visits one slot and decrements
//!   every timer there due a whole number of revolutions later, so per wheel
//!   tick `sum_{k >= 1} sum_{j < tau} f(k S tau - j)` for `S` slots.
//! * **Sorted hashed wheel insert steps** (V&L 6, scheme 5): an insert of
//!   delay `x` walks back from its slot's tail over the entries due later,
//!   `L(x) = sum_{k >= 1} f(x + kS)`, unless none is due earlier (then it goes
//!   to the head without a walk), `E(x) = sum_{k >= 1} f(x - kS)`. With the
//!   two independent Poisson counts, `E[steps] = sum_x P(D = x) L(x) (1 -
//!   e^-E(x))`, times the inserts.
//! * **Sorted list insert steps** (V&L 3, scheme 2): the walk starts at the
//!   end nearer in deadline (`head`, `tail`: the expected smallest and largest
//!   pending residuals, `sum_y e^-F(y)` and `sum_y (1 - e^-G(y))` for `F`, `G`
//!   the pending counts at or below and above `y`) and steps over the
//!   pending timers on that side: `G(x)` from the tail, `F(x - 1)` from the
//!   head. For uniform delays this is `N / 4`, for constant ones 0. The ends
//!   enter as their expectations, the one approximation here.
//! * **Ticked hierarchical wheel** (V&L 7, scheme 7, base 64): at a tick
//!   `t` that moves levels `1..=m` (`64^m` divides `t`, `64^(m+1)` does not),
//!   level `m`'s slot holds every pending timer due in `[t, t + 64^m)`, and
//!   the cascade moves all but those due at `t`: `F(64^m - 1)` cascades. So
//!   the cascades are `sum_m N_m F(64^m - 1)` with `N_m` the measured ticks
//!   at which exactly `m` levels move, and the visits `T + T/64 + T/4096 +
//!   ...`, counted exactly.
//!
//! * **Kafka's wheel** (V&L 7 with Kafka's placement, base `b` = 20): a
//!   timer armed when the wheel's clock reads `T` goes to the lowest level
//!   `k` with `floor(d / b^k) - floor(T / b^k) <= b - 1`, in the bucket that
//!   expires at `d` truncated to a multiple of `b^k`; when that bucket is
//!   taken it drops to the level of its highest non-zero digit below `k`.
//!   So it cascades into level `p` at the visit `t = d` truncated to `b^(p+1)`
//!   exactly when digit `p` of `d` is some `g >= 1` and it was placed above
//!   `p`. With `T` the arrival's tick, that is an arrival more than `a0 =
//!   (b - 1 - g) b^p` ticks before the visit: the cascades at a visit are
//!   `sum_r f(r | age > a0(r))` over residuals `b^p <= r < b^(p+1)`, and
//!   there are `floor(T / b^(p+1))` such visits. But `T` is the last
//!   *bucket's* expiration, which lags the arrival when no bucket came due
//!   at the ticks before it; a tick has none with probability `e^-mu` (no
//!   timer due at it), so an arrival `a <= a0` ticks before the visit is
//!   still placed above `p` with probability `e^(-mu (a0 - a + 1))`, when no
//!   bucket came due from the level's boundary to the arrival. That term is
//!   exact for laws without cancels; with cancels a bucket emptied by them
//!   still comes due, so `e^-mu` overstates the lag, and when the lag
//!   carries more than 2% of the figure there is no prediction.
//!
//! Every figure is an expectation over the arrivals, except the visits, which
//! are exact; a count lies within a few of its standard deviations.
//!
//! Not here, each for lack of a closed form written and checked so far:
//! Kafka's bucket expirations (a bucket comes due when any timer, pending
//! or since cancelled, entered it), the heaps' sift steps (no design counts
//! them), and every counter of the other designs.

use algorithms::Counter;
use workloads::{Distribution, Op, Spec, Tape, Tick};

/// The largest delay or cancel time (in ticks) a law may have here: the
/// density and its sums are vectors over residuals, a few of 16 MiB at this
/// bound, and every prediction costs O(this).
pub const MAX_LAW_TICKS: Tick = 1 << 21;

/// The share of Kafka's cascades that may rest on the lagging clock's model
/// in a law with cancels (where a bucket may come due with no timer in it,
/// so that `e^-mu` overstates the lag): beyond it, no prediction.
const KAFKA_LAG_SHARE: f64 = 0.02;

/// A weight of the lag's sum below which its terms are dropped.
const KAFKA_LAG_NEGLIGIBLE: f64 = 1e-12;

/// Kafka's wheels this module predicts: row, buckets a level.
const KAFKA_WHEELS: [(&str, u64); 4] = [
    ("hierarchical-wheel", 20),
    ("hierarchical-wheel@wheel_size=8", 8),
    ("hierarchical-wheel@wheel_size=64", 64),
    ("hierarchical-wheel@wheel_size=512", 512),
];

/// Fan-out of the ticked hierarchical wheel's levels
/// (`algorithms::ticked_hierarchical_wheel::SLOTS`).
const TICKED_FANOUT: u64 = 64;

/// The stationary law of a workload, with the density of pending timers by
/// residual. See the module documentation.
#[derive(Clone, Debug)]
pub struct Law {
    /// Arrivals a tick.
    lambda: f64,
    /// Measured ticks: the replay visits ticks `1..=ticks`.
    ticks: Tick,
    /// `delay[d]`: the probability of delay `d` (index 0 unused).
    delay: Vec<f64>,
    /// `pending[r]`: the expected pending timers `r` ticks from their
    /// deadline at a visit, `f(r)`.
    pending: Vec<f64>,
    /// `cumulative[r]`: the expected pending timers `1..=r` ticks from their
    /// deadline (`cumulative[0] = 0`).
    cumulative: Vec<f64>,
    /// `survived[a]`: the survival to each age summed over ages `1..=a`
    /// (`survived[0] = 0`), the chance of not being cancelled by then.
    survived: Vec<f64>,
    /// Whether any timer is cancelled.
    cancels: bool,
    /// The law in words, for the results' `basis`.
    basis: String,
}

/// A constant or uniform law in words: `5000` or `1..=60000`.
fn law_text(law: &Distribution) -> String {
    match law {
        Distribution::Constant { value } => value.to_string(),
        Distribution::Uniform { min, max } => format!("{min}..={max}"),
        _ => "-".to_owned(),
    }
}

/// Why a law of times has no closed form here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unfit {
    /// Neither constant nor uniform (or a time of 0).
    Kind,
    /// Longer than [`MAX_LAW_TICKS`].
    Long,
}

/// The probabilities of a constant or uniform law of whole ticks, indexed by
/// ticks; why not, for any other law or one longer than [`MAX_LAW_TICKS`].
fn whole_tick_law(law: &Distribution) -> Result<Vec<f64>, Unfit> {
    let (min, max) = match *law {
        Distribution::Constant { value } => (value, value),
        Distribution::Uniform { min, max } => (min, max),
        _ => return Err(Unfit::Kind),
    };
    if max > MAX_LAW_TICKS {
        return Err(Unfit::Long);
    }
    if min == 0 {
        return Err(Unfit::Kind);
    }
    let mut p = vec![0.0; max as usize + 1];
    let each = 1.0 / (max - min + 1) as f64;
    p[min as usize..].iter_mut().for_each(|v| *v = each);
    Ok(p)
}

/// The running sums of `pending` over residuals `1..=r`.
fn cumulative(pending: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; pending.len()];
    for r in 1..pending.len() {
        out[r] = out[r - 1] + pending[r];
    }
    out
}

/// `P(X >= a)` for `a` in `0..len`, from the probabilities `p` of `X`.
fn at_least(p: &[f64], len: usize) -> Vec<f64> {
    let mut tail = vec![0.0; len.max(p.len()) + 1];
    for a in (0..p.len()).rev() {
        tail[a] = tail[a + 1] + p[a];
    }
    tail.truncate(len);
    tail
}

/// The pending density `f(r)` for `r` in `0..delay.len()`, from the delay's
/// probabilities (uniform over the ticks where they are not 0: a constant or
/// uniform law) and the survival to each age `a >= 1` (`survival[a]`). With
/// one probability `p` over `min..=max`, `f(r)` is `lambda p` times the
/// survival summed over ages `max(1, min - r)..=max - r`: a difference of
/// prefix sums, so the whole density costs O(max).
fn pending_density(lambda: f64, delay: &[f64], survival: &[f64]) -> Vec<f64> {
    let max = delay.len() - 1;
    let min = delay.iter().position(|&p| p > 0.0).unwrap_or(max);
    let p = delay[max];
    let survived = survived(survival, max);
    (0..=max)
        .map(|r| {
            let (first, last) = (min.saturating_sub(r).max(1), max - r);
            if first > last {
                return 0.0;
            }
            lambda * p * (survived[last] - survived[first - 1])
        })
        .collect()
}

/// The survival summed over ages `1..=a`, for `a` in `0..=max`.
fn survived(survival: &[f64], max: usize) -> Vec<f64> {
    let mut out = vec![0.0; max + 1];
    for a in 1..=max {
        out[a] = out[a - 1] + survival[a];
    }
    out
}

impl Law {
    /// The law of `spec`, replayed as `tape`, or why it has no closed form here.
    pub fn of(spec: &Spec, tape: &Tape) -> Result<Law, &'static str> {
        if spec.ratas.is_some() || spec.periodic.is_some() || spec.rearm.is_some() {
            return Err("not a stream of one-shot timers");
        }
        if spec.granularity != 1 {
            return Err("rounded deadlines");
        }
        if spec.arrivals_per_tick.is_some() || spec.arrivals_until.is_some() {
            return Err("not a steady state");
        }
        let delay =
            whole_tick_law(spec.delay.as_ref().ok_or("no delay law")?).map_err(
                |why| match why {
                    Unfit::Kind => "a delay law other than constant or uniform",
                    Unfit::Long => "delays beyond 2^21 ticks",
                },
            )?;
        let max = delay.len() - 1;
        let survival = match &spec.cancel {
            None => vec![1.0; max + 1],
            Some(cancel) => {
                let after = whole_tick_law(&cancel.after).map_err(|why| match why {
                    Unfit::Kind => "a cancel law other than constant or uniform",
                    Unfit::Long => "cancels beyond 2^21 ticks",
                })?;
                at_least(&after, max + 1)
                    .into_iter()
                    .map(|p| 1.0 - cancel.fraction + cancel.fraction * p)
                    .collect()
            }
        };
        let inserts = tape.ops[tape.prefill..]
            .iter()
            .filter(|op| matches!(op.op, Op::Insert { .. }))
            .count();
        if tape.end == 0 {
            return Err("no measured ticks");
        }
        let lambda = inserts as f64 / tape.end as f64;
        let pending = pending_density(lambda, &delay, &survival);
        let cancels = spec.cancel.as_ref().map_or(String::new(), |cancel| {
            format!(
                ", a share {} cancelled {} ticks after the insert",
                cancel.fraction,
                law_text(&cancel.after)
            )
        });
        let basis = format!(
            "Poisson arrivals, {lambda:.4} a tick over {} ticks; delays {} ticks{cancels}",
            tape.end,
            spec.delay.as_ref().map_or("-".to_owned(), law_text)
        );
        Ok(Law {
            lambda,
            ticks: tape.end,
            cumulative: cumulative(&pending),
            survived: survived(&survival, max),
            cancels: survival.iter().any(|&s| s < 1.0),
            delay,
            pending,
            basis,
        })
    }

    /// What the predictions rest on, in words.
    pub fn basis(&self) -> &str {
        &self.basis
    }

    /// `f(r)`, 0 beyond the longest delay.
    fn f(&self, r: u64) -> f64 {
        self.pending.get(r as usize).copied().unwrap_or(0.0)
    }

    /// The expected pending timers `1..=r` ticks from their deadline.
    fn up_to(&self, r: u64) -> f64 {
        let last = self.cumulative.len() - 1;
        self.cumulative[r.min(last as u64) as usize]
    }

    /// Expiries a tick, `mu`.
    pub fn expiries_per_tick(&self) -> f64 {
        self.f(0)
    }

    /// Measured inserts.
    fn inserts(&self) -> f64 {
        self.lambda * self.ticks as f64
    }

    /// Wheel ticks of `tau` ticks in the measured ticks.
    fn wheel_ticks(&self, tau: Tick) -> f64 {
        (self.ticks / tau) as f64
    }

    /// Empty ticks of a ticked wheel whose tick is `tau` ticks.
    pub fn empty_ticks(&self, tau: Tick) -> f64 {
        self.wheel_ticks(tau) * (-(tau as f64) * self.expiries_per_tick()).exp()
    }

    /// Rounds decremented by a wheel of `slots` slots ticking every `tau`.
    pub fn rounds(&self, slots: u64, tau: Tick) -> f64 {
        let revolution = slots * tau;
        let per_visit: f64 = (1..)
            .map(|k| k * revolution)
            .take_while(|&r| r < self.pending.len() as u64 + tau)
            .map(|r| (0..tau).map(|j| self.f(r - j)).sum::<f64>())
            .sum();
        self.wheel_ticks(tau) * per_visit
    }

    /// Insert steps of a hashed wheel of `slots` slots with sorted slots.
    pub fn sorted_wheel_insert_steps(&self, slots: u64) -> f64 {
        let len = self.pending.len();
        let stride = slots.min(len as u64) as usize;
        // from[r]: f(r) + f(r + S) + f(r + 2S) + ...; to[r]: f(r) + f(r - S)
        // + ... down to residual 1. Each O(len), so the whole is O(len).
        let mut from = self.pending.clone();
        for r in (0..len.saturating_sub(stride)).rev() {
            from[r] += from[r + stride];
        }
        let mut to = self.pending.clone();
        to[0] = 0.0;
        for r in stride..len {
            to[r] += to[r - stride];
        }
        let per_insert: f64 = (1..self.delay.len())
            .filter(|&x| self.delay[x] > 0.0)
            .map(|x| {
                let later = from.get(x + stride).copied().unwrap_or(0.0);
                let earlier = x.checked_sub(stride).map_or(0.0, |r| to[r]);
                self.delay[x] * later * (1.0 - (-earlier).exp())
            })
            .sum();
        self.inserts() * per_insert
    }

    /// Insert steps of a sorted list walked from the nearer end.
    pub fn sorted_list_insert_steps(&self) -> f64 {
        let len = self.pending.len();
        // at_or_below[y]: pending with residual 1..=y; above[y]: beyond y.
        let at_or_below = &self.cumulative;
        let total = at_or_below[len - 1];
        let above = |y: usize| total - at_or_below[y.min(len - 1)];
        let head: f64 = (0..len).map(|y| (-at_or_below[y]).exp()).sum();
        let tail: f64 = (0..len).map(|y| 1.0 - (-above(y)).exp()).sum();
        let per_insert: f64 = (1..self.delay.len())
            .filter(|&x| self.delay[x] > 0.0)
            .map(|x| {
                let when = x as f64;
                let from_tail = when >= tail || (when > head && tail - when <= when - head);
                let steps = if from_tail {
                    above(x)
                } else {
                    at_or_below[x - 1]
                };
                self.delay[x] * steps
            })
            .sum();
        self.inserts() * per_insert
    }

    /// Measured ticks at which exactly `m >= 1` levels of the ticked
    /// hierarchical wheel move.
    fn ticks_moving(&self, m: u32) -> u64 {
        let multiples = |level: u32| {
            TICKED_FANOUT
                .checked_pow(level)
                .map_or(0, |span| self.ticks / span)
        };
        multiples(m) - multiples(m + 1)
    }

    /// The ticked hierarchical wheel's cascades.
    pub fn ticked_cascades(&self) -> f64 {
        (1..=10)
            .map(|m| self.ticks_moving(m) as f64 * self.up_to(TICKED_FANOUT.pow(m) - 1))
            .sum()
    }

    /// The survival to age `a >= 1`: the chance a timer is not cancelled by
    /// then.
    fn survival(&self, a: u64) -> f64 {
        let a = a as usize;
        self.survived[a] - self.survived[a - 1]
    }

    /// Cascades of Kafka's wheel with `base` buckets a level (see the module
    /// documentation); `None` when the law has cancels and the wheel's lagging
    /// clock carries more than [`KAFKA_LAG_SHARE`] of the figure, where the
    /// lag's model (no bucket due at a tick with probability `e^-mu`) no
    /// longer holds.
    pub fn kafka_cascades(&self, base: u64) -> Option<f64> {
        let max = (self.delay.len() - 1) as u64;
        let min = self.delay.iter().position(|&p| p > 0.0).unwrap_or(0) as u64;
        let mu = self.expiries_per_tick();
        let q = (-mu).exp();
        let (mut exact, mut lagged) = (0.0, 0.0);
        let mut span: u64 = 1;
        while let Some(visit) = span.checked_mul(base).filter(|&v| v <= self.ticks) {
            if mu <= 0.0 {
                return None;
            }
            let visits = (self.ticks / visit) as f64;
            let (mut e, mut l) = (0.0, 0.0);
            for r in span..visit.min(max) {
                // Above level p at the visit: placed there when the arrival
                // was more than `a0` ticks before it.
                let a0 = (base - 1 - r / span) * span;
                let (lo, hi) = (min.saturating_sub(r).max(1), max - r);
                if lo > hi {
                    continue;
                }
                let first = lo.max(a0 + 1);
                if first <= hi {
                    e += self.survived[hi as usize] - self.survived[first as usize - 1];
                }
                // Or later, when no bucket came due between the level's
                // boundary and the arrival, so the wheel's clock still read
                // a time before the boundary.
                let mut weight = q.powf((a0 + 1).saturating_sub(hi.min(a0)) as f64);
                let mut a = hi.min(a0);
                while a >= lo && weight > KAFKA_LAG_NEGLIGIBLE {
                    l += self.survival(a) * weight;
                    weight *= q;
                    a -= 1;
                }
            }
            exact += visits * e;
            lagged += visits * l;
            span = visit;
        }
        let scale = self.lambda * self.delay[max as usize];
        let (exact, lagged) = (scale * exact, scale * lagged);
        if self.cancels && lagged > KAFKA_LAG_SHARE * (exact + lagged) {
            return None;
        }
        Some(exact + lagged)
    }

    /// The ticked hierarchical wheel's slot visits: exact.
    pub fn ticked_visits(&self) -> f64 {
        let higher: u64 = (1..=10).map(|m| self.ticks_moving(m) * u64::from(m)).sum();
        (self.ticks + higher) as f64
    }
}

/// One predicted counter of one row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The row (`algorithms::variant::row_name`).
    pub algorithm: &'static str,
    /// The counter.
    pub counter: Counter,
    /// The expected count in the measured phase.
    pub value: f64,
}

/// The rounds wheels this module predicts: row, slots, wheel tick.
const ROUNDS_WHEELS: [(&str, u64, Tick); 4] = [
    ("rounds-wheel", 512, 1),
    ("rounds-wheel@tick=10", 512, 10),
    ("netty-wheel", 512, 100),
    ("rounds-wheel@tick=1000", 512, 1_000),
];

/// The sorted hashed wheels: row, slots.
const HASHED_WHEELS: [(&str, u64); 4] = [
    ("hashed-wheel", 1 << 16),
    ("hashed-wheel@slots=4096", 4_096),
    ("hashed-wheel@slots=16384", 16_384),
    ("hashed-wheel@slots=1048576", 1 << 20),
];

/// Every (row, counter) this module predicts on a workload with a closed form.
pub fn covered() -> Vec<(&'static str, Counter)> {
    let nothing = Law {
        lambda: 0.0,
        ticks: 0,
        delay: vec![0.0, 1.0],
        pending: vec![0.0; 2],
        cumulative: vec![0.0; 2],
        survived: vec![0.0, 1.0],
        cancels: false,
        basis: String::new(),
    };
    predictions(&nothing)
        .into_iter()
        .map(|p| (p.algorithm, p.counter))
        .collect()
}

/// The predictions for one workload, as the results record them.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadPredictions {
    /// Each covered (row, counter) with its expected count, or with none
    /// when the workload has no closed form.
    pub rows: Vec<(&'static str, Counter, Option<f64>)>,
    /// What they rest on, or why there are none.
    pub basis: String,
}

/// The predictions for a workload made from `spec` (`None`: a trace) as
/// `tape`.
pub fn for_workload(spec: Option<&Spec>, tape: &Tape) -> WorkloadPredictions {
    match spec.map_or(Err("a trace"), |spec| Law::of(spec, tape)) {
        Ok(law) => {
            let made = predictions(&law);
            let rows: Vec<_> = covered()
                .into_iter()
                .map(|(row, counter)| {
                    let value = made
                        .iter()
                        .find(|p| p.algorithm == row && p.counter == counter)
                        .map(|p| p.value);
                    (row, counter, value)
                })
                .collect();
            let mut basis = law.basis().to_owned();
            if rows.iter().any(|row| row.2.is_none()) {
                basis += &format!(
                    "; none for Kafka's wheels, whose clock lags the arrivals (no bucket due at a \
                     tick with probability {:.3}) in a law with cancels",
                    (-law.expiries_per_tick()).exp()
                );
            }
            WorkloadPredictions { rows, basis }
        }
        Err(why) => WorkloadPredictions {
            rows: covered()
                .into_iter()
                .map(|(row, counter)| (row, counter, None))
                .collect(),
            basis: format!("no closed form: {why}"),
        },
    }
}

/// Every counter this module predicts for `law`.
pub fn predictions(law: &Law) -> Vec<Prediction> {
    let mut out = Vec::new();
    let mut add = |algorithm, counter, value: f64| {
        out.push(Prediction {
            algorithm,
            counter,
            // An empty sum of floats is -0.0; a prediction of none is 0.
            value: value + 0.0,
        })
    };
    for (row, slots, tau) in ROUNDS_WHEELS {
        add(row, Counter::EntriesExaminedNotDue, law.rounds(slots, tau));
        add(row, Counter::EmptySlotVisits, law.empty_ticks(tau));
        add(row, Counter::SlotVisits, law.wheel_ticks(tau));
    }
    for (row, slots) in HASHED_WHEELS {
        add(
            row,
            Counter::InsertScanSteps,
            law.sorted_wheel_insert_steps(slots),
        );
        add(row, Counter::EmptySlotVisits, law.empty_ticks(1));
        add(row, Counter::SlotVisits, law.wheel_ticks(1));
    }
    let ticked = "ticked-hierarchical-wheel";
    add(ticked, Counter::Cascades, law.ticked_cascades());
    add(ticked, Counter::SlotVisits, law.ticked_visits());
    add(ticked, Counter::EmptySlotVisits, law.empty_ticks(1));
    add(
        "sorted-list",
        Counter::InsertScanSteps,
        law.sorted_list_insert_steps(),
    );
    for (row, base) in KAFKA_WHEELS {
        if let Some(cascades) = law.kafka_cascades(base) {
            add(row, Counter::Cascades, cascades);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law(delay: Vec<f64>, survival: Vec<f64>, lambda: f64, ticks: Tick) -> Law {
        let pending = pending_density(lambda, &delay, &survival);
        let max = delay.len() - 1;
        Law {
            lambda,
            ticks,
            cumulative: cumulative(&pending),
            survived: survived(&survival, max),
            cancels: survival.iter().any(|&s| s < 1.0),
            delay,
            pending,
            basis: String::new(),
        }
    }

    fn constant(d: usize, lambda: f64, ticks: Tick) -> Law {
        let mut delay = vec![0.0; d + 1];
        delay[d] = 1.0;
        law(delay, vec![1.0; d + 1], lambda, ticks)
    }

    #[test]
    fn a_constant_delay_keeps_lambda_per_residual() {
        let law = constant(10, 2.0, 1_000);
        assert_eq!(law.f(0), 2.0, "due now: the arrivals of 10 ticks ago");
        assert_eq!(law.f(9), 2.0);
        assert_eq!(law.f(10), 0.0, "an arrival of this tick is not there yet");
        assert_eq!(law.up_to(100), 18.0);
    }

    #[test]
    fn rounds_are_the_revolutions_before_the_deadline() {
        // 5,000 ticks on 512 slots: 9 revolutions before the deadline.
        let law = constant(5_000, 1.0, 600_000);
        assert!((law.rounds(512, 1) - 9.0 * 600_000.0).abs() < 1e-6);
        assert_eq!(law.sorted_list_insert_steps(), 0.0);
        assert_eq!(law.sorted_wheel_insert_steps(512), 0.0);
    }

    #[test]
    fn empty_ticks_are_poisson() {
        let law = constant(100, 1.0, 1_000);
        assert!((law.empty_ticks(1) - 1_000.0 * (-1.0f64).exp()).abs() < 1e-9);
    }

    #[test]
    fn ticked_visits_add_a_visit_per_moving_level() {
        let law = constant(10, 1.0, 4_096);
        // 64 multiples of 64, of which one (4096) moves two levels.
        assert_eq!(law.ticks_moving(1), 63);
        assert_eq!(law.ticks_moving(2), 1);
        assert_eq!(law.ticked_visits(), (4_096 + 64 + 1) as f64);
    }

    #[test]
    fn a_uniform_sorted_list_walks_a_quarter_of_the_population() {
        let max = 2_000;
        let mut delay = vec![1.0 / max as f64; max + 1];
        delay[0] = 0.0;
        let law = law(delay, vec![1.0; max + 1], 5.0, 100);
        let population = law.up_to(max as u64);
        let per_insert = law.sorted_list_insert_steps() / law.inserts();
        assert!(
            (per_insert / (population / 4.0) - 1.0).abs() < 0.02,
            "{per_insert} against {population} / 4"
        );
    }

    #[test]
    fn the_sorted_wheel_by_stride_sums_is_the_plain_sum() {
        let max = 300;
        let mut delay = vec![1.0 / max as f64; max + 1];
        delay[0] = 0.0;
        let law = law(delay, vec![1.0; max + 1], 0.5, 1_000);
        let slots = 64;
        let plain: f64 = (1..=max as u64)
            .map(|x| {
                let later: f64 = (1..)
                    .map(|k| x + k * slots)
                    .take_while(|&r| r <= max as u64)
                    .map(|r| law.f(r))
                    .sum();
                let earlier: f64 = (1..)
                    .take_while(|&k| k * slots < x)
                    .map(|k| law.f(x - k * slots))
                    .sum();
                law.delay[x as usize] * later * (1.0 - (-earlier).exp())
            })
            .sum::<f64>()
            * law.inserts();
        let fast = law.sorted_wheel_insert_steps(slots);
        assert!(
            (fast - plain).abs() < 1e-9 * plain.max(1.0),
            "{fast} against {plain}"
        );
        assert!(plain > 0.0);
    }

    #[test]
    fn kafka_cascades_once_per_timer_with_a_non_zero_last_digit() {
        // Delay 25 on 20 buckets a level: always placed on level 1, then
        // dropped to level 0 unless the deadline is a multiple of 20. An
        // arrival is always more than a0 ticks before its visit, so no lag
        // enters.
        let law = constant(25, 10.0, 2_000);
        assert!((law.kafka_cascades(20).unwrap() - 100.0 * 19.0 * 10.0).abs() < 1e-6);
    }

    #[test]
    fn kafka_places_a_timer_high_only_when_its_clock_lagged() {
        // Delay 10: level 0 from a clock that reads the arrival's tick, but a
        // level up when no bucket came due in the ten ticks from the level's
        // boundary to the arrival, probability e^(-10 mu).
        let (lambda, ticks) = (0.3, 4_000);
        let law = constant(10, lambda, ticks);
        let lag = (-10.0 * lambda).exp();
        let expected = (ticks / 20) as f64 * 9.0 * lambda * lag;
        let got = law.kafka_cascades(20).unwrap();
        assert!(
            (got - expected).abs() < 1e-9 * expected,
            "{got} against {expected}"
        );
    }

    #[test]
    fn at_least_is_the_upper_tail() {
        let tail = at_least(&[0.0, 0.0, 0.5, 0.5], 6);
        assert_eq!(tail, [1.0, 1.0, 1.0, 0.5, 0.0, 0.0]);
    }

    #[test]
    fn the_density_by_prefix_sums_is_the_plain_sum() {
        let (min, max) = (3, 40);
        let mut delay = vec![0.0; max + 1];
        delay[min..]
            .iter_mut()
            .for_each(|p| *p = 1.0 / (max - min + 1) as f64);
        let survival: Vec<f64> = (0..=max).map(|a| 1.0 / (1.0 + a as f64)).collect();
        let fast = pending_density(2.0, &delay, &survival);
        for (r, value) in fast.iter().enumerate() {
            let plain: f64 = (1..=max - r)
                .map(|a| 2.0 * delay[a + r] * survival[a])
                .sum();
            assert!(
                (value - plain).abs() < 1e-12,
                "f({r}) = {value}, not {plain}"
            );
        }
    }
}
