//! A design at another value of one of its parameters: the points of a
//! parameter sweep.
//!
//! The harness measures a type, not an instance: everything it does to a row
//! (the reference run, the conformance suite, the timed passes, the counts
//! under Valgrind in a child process) is monomorphised for that type and built
//! with [`Algorithm::with_defaults`]. So a sweep point is a type too. A
//! parameter that changes when a timer is due (a wheel's tick) is a const
//! generic of the algorithm itself, because [`Algorithm::due_at`] is a function
//! of the type (the reference model reproduces it without an instance); see
//! `RoundsWheel<P, TICK>`. A parameter that only changes the structure's shape
//! (slots, wheel size) is set at construction, through [`Configurable`], and
//! [`At`] makes `Q` at one such value a type of its own.
//!
//! `At` delegates every operation to `Q` with `#[inline]`, so a variant's
//! measured code is `Q`'s code at that value and nothing else: no adapter glue
//! is timed. Its row is named `design@param=value` ([`row_name`]); reports keep
//! it to their parameter sweeps.
//!
//! The compiled points are listed in one place,
//! [`crate::registry::for_each_variant`]: a run can use those values and no
//! others, and `timerbench` says which exist when asked for another.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::{
    Algorithm, Counter, Counters, Expired, Family, Handle, Param, Sweep, Tick, TimerQueue,
};

/// An algorithm whose [`Algorithm::TUNABLES`] can be set at construction.
pub trait Configurable: Algorithm {
    /// Builds the algorithm with the parameter named `param` set to `value`
    /// and every other parameter at its default.
    ///
    /// # Errors
    ///
    /// A message naming the parameter and its valid range, when `param` is
    /// not one of [`Algorithm::TUNABLES`] or `value` is outside its range.
    fn with_param(param: &str, value: u64) -> Result<Self, String>;
}

/// `Q` with its `PARAM`-th tunable ([`Algorithm::TUNABLES`]) set to `VALUE`.
/// Registered in [`crate::registry::for_each_variant`]; see the module doc.
pub struct At<Q, const PARAM: usize, const VALUE: u64>(Q);

impl<Q: Configurable, const PARAM: usize, const VALUE: u64> Algorithm for At<Q, PARAM, VALUE> {
    const NAME: &'static str = Q::NAME;
    const SUMMARY: &'static str = Q::SUMMARY;
    const FAMILY: Family = Q::FAMILY;
    const PENDING_LIMIT: usize = Q::PENDING_LIMIT;
    const TICKED: bool = Q::TICKED;
    const COUNTS_WORK: bool = Q::COUNTS_WORK;
    const UNCOUNTED: &'static [Counter] = Q::UNCOUNTED;
    const CLOCK_EPOCH: bool = Q::CLOCK_EPOCH;
    const EXACT: bool = Q::EXACT;
    const TICK_LIMIT: Tick = Q::TICK_LIMIT;
    const DELAY_LIMIT: Tick = Q::DELAY_LIMIT;
    const TUNABLES: &'static [Param] = Q::TUNABLES;
    const SWEEP: Option<Sweep> = Some(Sweep {
        design: Q::NAME,
        param: Q::TUNABLES[PARAM].name,
        value: VALUE,
    });

    fn due_at(now: Tick, deadline: Tick) -> Tick {
        Q::due_at(now, deadline)
    }

    fn lateness_bound(delay: Tick) -> Tick {
        Q::lateness_bound(delay)
    }

    /// `Q` at `VALUE`.
    ///
    /// # Panics
    ///
    /// If `Q` refuses `VALUE`: a registry entry out of range, which the
    /// registry's tests build and so catch.
    fn with_defaults() -> Self {
        let param = Q::TUNABLES[PARAM].name;
        match Q::with_param(param, VALUE) {
            Ok(queue) => At(queue),
            Err(why) => panic!("{}@{param}={VALUE} is not a valid variant: {why}", Q::NAME),
        }
    }

    fn params(&self) -> String {
        self.0.params()
    }
}

impl<P, Q, const PARAM: usize, const VALUE: u64> TimerQueue<P> for At<Q, PARAM, VALUE>
where
    Q: Configurable + TimerQueue<P>,
{
    #[inline]
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        self.0.insert(deadline, payload)
    }

    #[inline]
    fn cancel(&mut self, handle: Handle) -> Option<P> {
        self.0.cancel(handle)
    }

    #[inline]
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        self.0.reschedule(handle, deadline)
    }

    #[inline]
    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        self.0.advance(now, out);
    }

    #[inline]
    fn reserve(&mut self, additional: usize) {
        self.0.reserve(additional);
    }

    #[inline]
    fn next_expiry(&self) -> Option<Tick> {
        self.0.next_expiry()
    }

    #[inline]
    fn now(&self) -> Tick {
        self.0.now()
    }

    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn counters(&self) -> Counters {
        self.0.counters()
    }
}

/// Whether `Q` is a variant: a sweep point that carries its design's name,
/// so that it is a row only in parameter sweeps (see [`Algorithm::SWEEP`]).
pub fn is_variant<Q: Algorithm>() -> bool {
    Q::SWEEP.is_some_and(|sweep| sweep.design == Q::NAME)
}

/// The name of a sweep point's row: `design@param=value`.
pub fn variant_name(sweep: &Sweep) -> String {
    format!("{}@{}={}", sweep.design, sweep.param, sweep.value)
}

/// The name of `Q`'s row in results and on the command line:
/// [`Algorithm::NAME`], or [`variant_name`] for a variant. Each variant's name
/// is made once and kept for the life of the process (there are a handful),
/// so that it is a `&'static str` like every other row name.
pub fn row_name<Q: Algorithm>() -> &'static str {
    match Q::SWEEP {
        Some(sweep) if sweep.design == Q::NAME => intern(variant_name(&sweep)),
        _ => Q::NAME,
    }
}

/// `name` as a `&'static str`, leaked the first time it is seen.
fn intern(name: String) -> &'static str {
    static NAMES: Mutex<BTreeMap<String, &'static str>> = Mutex::new(BTreeMap::new());
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&known) = names.get(&name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.clone().into_boxed_str());
    names.insert(name, leaked);
    leaked
}

/// Parses a `u64` parameter value into the `usize` a constructor takes,
/// checked against `min..=max`, with a message naming the parameter.
pub fn in_range(param: &str, value: u64, min: usize, max: usize) -> Result<usize, String> {
    match usize::try_from(value) {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("{param}={value} is outside {min}..={max}")),
    }
}

/// Like [`in_range`], for a count that must also be a power of two (a wheel's
/// slots, so that hashing is a mask): a value that is not one is refused
/// rather than rounded, so that a sweep point is the structure it names.
pub fn power_of_two(param: &str, value: u64, max: usize) -> Result<usize, String> {
    let v = in_range(param, value, 1, max)?;
    if v.is_power_of_two() {
        Ok(v)
    } else {
        Err(format!("{param}={value} is not a power of two"))
    }
}

/// The error for a parameter `Q` does not declare.
pub fn unknown_param<Q: Algorithm>(param: &str) -> String {
    let names: Vec<&str> = Q::TUNABLES.iter().map(|p| p.name).collect();
    if names.is_empty() {
        format!("{} has no tunable parameters (asked for {param})", Q::NAME)
    } else {
        format!(
            "{} has no parameter {param}; its parameters: {}",
            Q::NAME,
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_name_says_design_parameter_and_value() {
        let sweep = Sweep {
            design: "hashed-wheel",
            param: "slots",
            value: 512,
        };
        assert_eq!(variant_name(&sweep), "hashed-wheel@slots=512");
    }

    #[test]
    fn interned_names_are_the_same_str() {
        let a = intern("x@y=1".to_owned());
        let b = intern("x@y=1".to_owned());
        assert!(std::ptr::eq(a, b));
    }

    #[test]
    fn a_value_out_of_range_is_named() {
        assert_eq!(in_range("slots", 8, 1, 16), Ok(8));
        assert_eq!(
            in_range("slots", 0, 1, 16),
            Err("slots=0 is outside 1..=16".to_owned())
        );
        assert!(in_range("slots", u64::MAX, 1, usize::MAX - 1).is_err());
        assert_eq!(power_of_two("slots", 64, 1 << 10), Ok(64));
        assert_eq!(
            power_of_two("slots", 100, 1 << 10),
            Err("slots=100 is not a power of two".to_owned())
        );
        assert!(power_of_two("slots", 1 << 11, 1 << 10).is_err());
    }
}
