//! The workload spec: what a TOML file says, and how each field is checked.
//! What the fields imply together (the plan: arrival rate, population split)
//! and the entry points that refuse an invalid spec are in `validate.rs`; the
//! tape a spec makes is in `generate.rs`.

use serde::{Deserialize, Serialize};

use crate::dist::{Distribution, FieldError, check_real, check_ticks};
use crate::error::WorkloadError;
use crate::input::{BOM, MAX_TAPE_OPS};
use crate::ratas::{MAX_PAIRS, MIN_PAIRS, Ratas};
use crate::spec_error;
use crate::tape::Tick;

/// Ticks in a second at the project's convention of 1 ms a tick.
const MS_TICKS_PER_SECOND: Tick = 1_000;

/// The longest name accepted: names go into CSV cells, file names and tables.
const MAX_NAME_LEN: usize = 64;

/// Whether `name` can name a workload (a spec's `name`, a trace's file stem):
/// 1 to [`MAX_NAME_LEN`] ASCII letters, digits, `-`, `_` or `.`, so that it
/// is a file name on every system and two names never make the same chart
/// file. `Err` says what it is and what is valid.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "is {name:?}; it must be 1 to {MAX_NAME_LEN} ASCII letters, digits, `-`, `_` or `.`"
        ))
    }
}

/// Whether `text` is one line with something on it: what a spec's
/// `description` and `source` must be, since `timerbench list` and the README
/// show each on a line of its own.
fn is_one_line(text: &str) -> bool {
    !text.trim().is_empty() && !text.contains(['\n', '\r'])
}

/// `bytes` as text without a leading byte-order mark; `Err` with the line
/// (from 1) and byte offset (from 0) of the first invalid UTF-8 sequence.
pub fn decode_text(bytes: &[u8]) -> Result<&str, (u64, usize)> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text.strip_prefix(BOM).unwrap_or(text)),
        Err(error) => {
            let offset = error.valid_up_to();
            let line = bytes[..offset].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            Err((line, offset))
        }
    }
}

/// The longest measured phase: 2^40 ticks, about 35 years at 1 ms. No driver
/// could tick through that, and it keeps `now + delay` far from overflow.
const MAX_DURATION: Tick = 1 << 40;

/// The most prefilled timers: 10^8, ten times the largest built-in.
const MAX_PENDING: u64 = 100_000_000;

/// The largest mean number of re-arms per idle timeout. A chain's intervals are
/// drawn when it starts, and the arrival-rate estimate follows 16,384 chains.
const MAX_REARMS: f64 = 1000.0;

/// The most operations a tape may be expected to hold, as a real number for
/// the estimates ([`MAX_TAPE_OPS`]: 2.4 GB).
pub(crate) const MAX_OPERATIONS: f64 = MAX_TAPE_OPS as f64;

/// A workload: a description of timer traffic that [`Spec::generate`] turns into
/// a [`Tape`]. Read from TOML with [`Spec::from_toml`]; unknown fields are
/// refused, with the list of valid ones.
///
/// ```toml
/// name = "timeouts"
/// description = "Network request timeouts: ..."
/// source = "ours: ..."         # optional: what it is modelled on
/// duration = 30_000            # ticks of measured phase
/// pending = 10_000             # timers at time 0, and on average
/// delay = { kind = "uniform", min = 29_500, max = 30_500 }
/// cancel = { fraction = 0.95, after = { kind = "lognormal", median = 20, sigma = 1.0 } }
/// ```
///
/// # What the generator does with it
///
/// At time 0 the queue is filled with `pending` timers in the state a queue
/// would be in after running this traffic for a long time (see the crate
/// documentation). Then, for `duration` ticks, timers arrive as a Poisson process
/// of rate `arrivals_per_tick`, each with a lifecycle: a one-shot timer with a
/// `delay`, perhaps cancelled (`cancel`), or an idle timeout re-armed by activity
/// (`rearm`). A fraction `periodic.fraction` of the population is instead a fixed
/// set of periodic tasks, re-inserted every time they fire.
///
/// A spec with a `[ratas]` section is instead ratas's benchmark (see
/// [`Ratas`]): its timers come from client/server units, so it takes no
/// `delay`, `cancel`, `rearm`, `periodic` or arrival fields, and `pending` is 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The workload's name, as results and `--workloads` show it: 1 to 64 ASCII
    /// letters, digits, `-`, `_` or `.`.
    pub name: String,
    /// One line naming the real system the workload models.
    pub description: String,
    /// One line naming the system, benchmark or issue the workload is modelled
    /// on, or saying that it is a synthetic shape of our own. Optional in a
    /// user's spec; every built-in has one (a test holds them to it), and
    /// `timerbench list` and the crate README's table show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Ticks in the measured phase, 1 to 2^40: operations happen at ticks
    /// `0..duration`, and the driver finally advances to `duration`. A driver
    /// that ticks visits every one of them, so this sets the cost of a ticked
    /// wheel on a sparse workload.
    pub duration: Tick,
    /// Timers pending at time 0 (the prefill, not measured), 0 to 10^8. With the
    /// derived arrival rate the population stays near this throughout.
    pub pending: u64,
    /// New timers per tick, a finite number at least 0; they arrive as a Poisson
    /// process (exponential gaps in continuous time, each arrival at the tick it
    /// falls in). Default: by Little's law, `pending` (less the periodic tasks)
    /// divided by the mean lifetime of an arrival, so the population stays near
    /// `pending`. Set it to study a growing or draining queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals_per_tick: Option<f64>,
    /// The tick at which arrivals stop, 1 to `duration`. Default: `duration`,
    /// so timers arrive throughout. After it the queue only fires and cancels
    /// what it holds and then sits idle: a spike that is drained, or a
    /// population armed and then cancelled (`mass-cancel`), which is where a
    /// queue that keeps its memory after the work is done shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals_until: Option<Tick>,
    /// The delay of a timer: its deadline minus the time it is inserted.
    /// Required, except in a `[ratas]` workload, which may not have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Distribution>,
    /// Deadlines are rounded up to a multiple of this many ticks, 1 to 2^40
    /// (default 1: no rounding). Timer coalescing does this (Linux's
    /// `round_jiffies`, a cache whose entries expire on the second), and it makes
    /// many timers share a few deadlines: a thundering herd.
    #[serde(default = "default_granularity")]
    pub granularity: Tick,
    /// Cancels. Without this section no timer is cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Cancel>,
    /// Periodic tasks. Without this section there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub periodic: Option<Periodic>,
    /// Idle timeouts re-armed by activity. Without this section there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rearm: Option<Rearm>,
    /// ratas's benchmark instead of timers with lifecycles (see [`Ratas`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratas: Option<Ratas>,
}

fn default_granularity() -> Tick {
    1
}

/// Cancels: `cancel = { fraction = 0.95, after = { ... } }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cancel {
    /// The probability, 0 to 1, that a timer's life ends with a cancel: a
    /// one-shot timer, or an idle timeout after its last re-arm.
    pub fraction: f64,
    /// Ticks from the insert (for an idle timeout, from its last arming) to the
    /// cancel. A cancel that would come at or after the timer's deadline is
    /// dropped: the timer fired first. So the fraction actually cancelled is
    /// `fraction` times the probability that `after` is shorter than the delay.
    pub after: Distribution,
}

/// Periodic tasks, cron-like: `periodic = { fraction = 1.0 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Periodic {
    /// The fraction, 0 to 1, of `pending` that are periodic tasks. They are a
    /// fixed set, as in a crontab: all present at time 0 (each at a uniformly
    /// random phase of its period), never cancelled, and each re-inserted with
    /// the same period at the tick it fires. Arrivals are never periodic, since
    /// a task that lives forever would make the population grow without bound.
    pub fraction: f64,
    /// The distribution of the tasks' periods, each task drawing one. Default:
    /// the spec's `delay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Distribution>,
}

/// Idle timeouts pushed back by activity, ratas-like:
/// `rearm = { fraction = 0.02, interval = { ... }, times = 30 }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rearm {
    /// The probability, 0 to 1, that an arriving timer is an idle timeout.
    pub fraction: f64,
    /// Ticks from one arming to the next activity, which re-arms the timer: a
    /// reschedule to the deadline `now + delay`. Activity at or after
    /// the deadline comes too late: the timer fired (the connection idled out).
    pub interval: Distribution,
    /// The mean number of re-arms per idle timeout, 0 to 1000. The count is
    /// geometric: after each arming, activity comes again with probability
    /// `times / (1 + times)`.
    pub times: f64,
    /// The idle timeout's delay, drawn once per timer and used for every
    /// arming. Default: the spec's `delay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Distribution>,
}

impl Spec {
    /// Parses a spec without validating its values.
    pub(crate) fn parse(text: &str, origin: &str) -> Result<Spec, WorkloadError> {
        // serde's own words name a Rust type; where the error is one of its
        // kinds, the message says instead which field, what was given and
        // what to write (`spec_error.rs`).
        toml::from_str(text).map_err(|error| WorkloadError::SpecSyntax {
            origin: origin.to_owned(),
            message: spec_error::explain(text, &error).unwrap_or_else(|| error.to_string()),
        })
    }

    /// The workload's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// One line naming the real system the workload models.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// One line naming what the workload is modelled on, if the spec says.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// Ticks in a second of the workload's time, for showing its delays as
    /// times: 1,000 by the project's convention (1 ms a tick), and ratas's
    /// 50,000 (20 µs) for a `[ratas]` workload.
    pub fn ticks_per_second(&self) -> Tick {
        if self.ratas.is_some() {
            crate::ratas::TICKS_PER_SECOND
        } else {
            MS_TICKS_PER_SECOND
        }
    }

    /// The ticks during which timers arrive: `0..arrivals_until`, all of the
    /// measured phase by default.
    pub(crate) fn arrival_window(&self) -> Tick {
        self.arrivals_until.unwrap_or(self.duration)
    }

    /// How this spec is named in messages when it has no file.
    pub(crate) fn origin(&self) -> String {
        format!("workload {:?}", self.name)
    }

    /// The checks of a `[ratas]` workload: its pairs in range, and none of
    /// the fields that describe timers with lifecycles.
    fn check_ratas(&self, ratas: &Ratas) -> Result<(), FieldError> {
        if !(MIN_PAIRS..=MAX_PAIRS).contains(&ratas.pairs) {
            return Err(FieldError::new(
                "ratas.pairs",
                format!(
                    "is {}; it must be a whole number from {MIN_PAIRS} to {MAX_PAIRS}",
                    ratas.pairs
                ),
            ));
        }
        let lifecycle_fields = [
            ("delay", self.delay.is_some()),
            ("arrivals_per_tick", self.arrivals_per_tick.is_some()),
            ("arrivals_until", self.arrivals_until.is_some()),
            ("granularity", self.granularity != 1),
            ("cancel", self.cancel.is_some()),
            ("periodic", self.periodic.is_some()),
            ("rearm", self.rearm.is_some()),
        ];
        if let Some((field, _)) = lifecycle_fields.iter().find(|(_, set)| *set) {
            return Err(FieldError::new(
                *field,
                "is set, but a `[ratas]` workload's timers come from its units, not from this \
                 field; remove it (or remove `[ratas]`)",
            ));
        }
        if self.pending != 0 {
            return Err(FieldError::new(
                "pending",
                format!(
                    "is {}, but a `[ratas]` workload starts empty and its units arm their own \
                     timers; set it to 0",
                    self.pending
                ),
            ));
        }
        Ok(())
    }

    /// The delay of a workload with lifecycles, which [`Spec::check_fields`]
    /// has made sure is there.
    pub(crate) fn lifecycle_delay(&self) -> &Distribution {
        self.delay
            .as_ref()
            .expect("a spec without `[ratas]` has a `delay` (checked)")
    }

    /// The field checks that need no sampling.
    pub(crate) fn check_fields(&self) -> Result<(), FieldError> {
        if let Err(problem) = check_name(&self.name) {
            return Err(FieldError::new("name", problem));
        }
        if !is_one_line(&self.description) {
            return Err(FieldError::new(
                "description",
                format!("is {:?}; it must be one non-empty line", self.description),
            ));
        }
        if let Some(source) = self.source.as_deref().filter(|s| !is_one_line(s)) {
            return Err(FieldError::new(
                "source",
                format!("is {source:?}; it must be one non-empty line, or be left out"),
            ));
        }
        check_ticks("duration", self.duration, 1, MAX_DURATION)?;
        if self.pending > MAX_PENDING {
            return Err(FieldError::new(
                "pending",
                format!("is {}; it must be at most {MAX_PENDING}", self.pending),
            ));
        }
        if let Some(rate) = self.arrivals_per_tick {
            check_real("arrivals_per_tick", rate, 0.0, MAX_OPERATIONS)?;
        }
        if let Some(until) = self.arrivals_until {
            check_ticks("arrivals_until", until, 1, self.duration)?;
        }
        if let Some(ratas) = &self.ratas {
            return self.check_ratas(ratas);
        }
        match &self.delay {
            Some(delay) => delay.validate("delay")?,
            None => {
                return Err(FieldError::new(
                    "delay",
                    "is missing; every workload but a `[ratas]` one needs it, e.g. \
                     `delay = { kind = \"uniform\", min = 1, max = 60_000 }`",
                ));
            }
        }
        check_ticks("granularity", self.granularity, 1, MAX_DURATION)?;
        if let Some(cancel) = &self.cancel {
            check_real("cancel.fraction", cancel.fraction, 0.0, 1.0)?;
            cancel.after.validate("cancel.after")?;
        }
        if let Some(periodic) = &self.periodic {
            check_real("periodic.fraction", periodic.fraction, 0.0, 1.0)?;
            if let Some(period) = &periodic.period {
                period.validate("periodic.period")?;
            }
        }
        if let Some(rearm) = &self.rearm {
            check_real("rearm.fraction", rearm.fraction, 0.0, 1.0)?;
            rearm.interval.validate("rearm.interval")?;
            check_real("rearm.times", rearm.times, 0.0, MAX_REARMS)?;
            if let Some(delay) = &rearm.delay {
                delay.validate("rearm.delay")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_text_are_checked_as_the_messages_say() {
        assert!(check_name("dense-timeouts_2.v1").is_ok());
        for bad in ["", "a b", "a/b", "é", &"x".repeat(65)] {
            let problem = check_name(bad).unwrap_err();
            assert!(
                problem.contains("1 to 64 ASCII letters"),
                "{bad:?}: {problem}"
            );
        }
        assert_eq!(decode_text(b"\xef\xbb\xbfname = 1"), Ok("name = 1"));
        assert!(is_one_line("Kafka's purgatory benchmark"));
        for bad in ["", " \t", "two\nlines", "a\rb"] {
            assert!(!is_one_line(bad), "{bad:?}");
        }
        assert_eq!(decode_text(b"a\nb\n\xffc"), Err((3, 4)));
    }
}
