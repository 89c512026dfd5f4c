//! Checking a spec as a whole, and what a valid spec implies.
//!
//! `spec.rs` checks each field on its own (`Spec::check_fields`); this module
//! checks what the fields make together, from the lifecycle model's estimate
//! (`lifecycle.rs`): that the prefill sampler keeps enough of its proposals,
//! that the derived arrival rate and lifetimes are finite, and that the tape
//! and the re-arm chains fit in memory. What it derives, the [`Plan`], is what
//! the generator needs. The public entry points that refuse an invalid spec
//! ([`Spec::from_toml`], [`load_spec`], [`Spec::validate`],
//! [`Spec::expected_ops`]) live here, so that `spec.rs` depends on neither
//! the model nor the generator.

use std::path::Path;

use crate::dist::FieldError;
use crate::error::WorkloadError;
use crate::input::{MAX_SPEC_BYTES, read_bounded};
use crate::lifecycle::{MIN_KEPT_FRACTION, Model};
use crate::ratas::Ratas;
use crate::spec::{MAX_OPERATIONS, Spec, decode_text};

/// What a valid spec implies: the quantities the generator needs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Arrivals per tick, explicit or derived.
    pub(crate) arrivals_per_tick: f64,
    /// Periodic tasks in the prefill.
    pub(crate) periodic_tasks: u64,
    /// Other timers in the prefill.
    pub(crate) mortal: u64,
    /// The expected number of operations on the tape.
    pub(crate) expected_ops: f64,
}

/// Reads a spec file (a regular file of at most [`MAX_SPEC_BYTES`], UTF-8 text,
/// a byte-order mark skipped), then parses and validates it like
/// [`Spec::from_toml`], its path naming it in messages.
///
/// # Errors
///
/// [`WorkloadError::SpecUnreadable`] if the file cannot be read, is not a
/// regular file or is too large; [`WorkloadError::SpecSyntax`] (with the line)
/// for text that is not UTF-8 or not a spec; [`WorkloadError::InvalidSpec`]
/// for a value out of range.
pub fn load_spec(path: &Path) -> Result<Spec, WorkloadError> {
    let origin = path.display().to_string();
    let bytes =
        read_bounded(path, MAX_SPEC_BYTES).map_err(|error| WorkloadError::SpecUnreadable {
            path: path.to_owned(),
            error,
        })?;
    let text = decode_text(&bytes).map_err(|(line, offset)| WorkloadError::SpecSyntax {
        origin: format!("{origin}:{line}"),
        message: format!("the text is not valid UTF-8 (at byte {offset}); save it as UTF-8"),
    })?;
    Spec::from_toml(text, &origin)
}

impl Spec {
    /// Parses and validates a spec written in TOML. `origin` names where the text
    /// came from (a file name) for error messages.
    ///
    /// # Errors
    ///
    /// [`WorkloadError::SpecSyntax`] if the text is not TOML or not shaped like a
    /// spec (the message shows the line); [`WorkloadError::InvalidSpec`] if a
    /// value is out of range (the message names the field).
    pub fn from_toml(text: &str, origin: &str) -> Result<Spec, WorkloadError> {
        let spec = Self::parse(text, origin)?;
        spec.plan_in(origin)?;
        Ok(spec)
    }

    /// Checks every field, and that the spec can be generated in reasonable
    /// time and memory.
    ///
    /// # Errors
    ///
    /// [`WorkloadError::InvalidSpec`], naming the field, what is wrong and what
    /// would be valid. The origin in the message is `workload <name>`.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        self.plan_in(&self.origin()).map(drop)
    }

    /// The operations its tape is expected to hold (prefill included), from
    /// the same estimate that bounds it by [`MAX_TAPE_OPS`]: what a caller
    /// needs to size a run's memory before generating anything.
    ///
    /// # Errors
    ///
    /// As [`Spec::validate`], for a spec that is not valid.
    pub fn expected_ops(&self) -> Result<f64, WorkloadError> {
        self.plan_in(&self.origin()).map(|plan| plan.expected_ops)
    }

    /// Validates and derives the plan.
    pub(crate) fn plan_in(&self, origin: &str) -> Result<Plan, WorkloadError> {
        self.plan()
            .map_err(|FieldError { field, problem }| WorkloadError::InvalidSpec {
                origin: origin.to_owned(),
                field,
                problem,
            })
    }

    fn plan(&self) -> Result<Plan, FieldError> {
        self.check_fields()?;
        if let Some(ratas) = &self.ratas {
            return self.plan_ratas(ratas);
        }
        let model = Model::new(self);
        let estimate = model.estimate();
        if estimate.kept < MIN_KEPT_FRACTION {
            return Err(self.hopeless_prefill(estimate.kept));
        }
        let periodic_fraction = self.periodic.as_ref().map_or(0.0, |p| p.fraction);
        let periodic_tasks = ((self.pending as f64) * periodic_fraction).round() as u64;
        let mortal = self.pending - periodic_tasks;
        let arrivals_per_tick = self
            .arrivals_per_tick
            .unwrap_or_else(|| mortal as f64 / estimate.mean_lifetime());
        let duration = self.duration as f64;
        let arriving = self.arrival_window() as f64;
        let expected_ops = self.pending as f64
            + arrivals_per_tick * arriving * estimate.ops_per_arrival
            + periodic_tasks as f64 * duration * estimate.fires_per_task_tick;
        // Every field is in range, but a derived quantity could still
        // overflow; refuse it here rather than run a tape built from a NaN.
        let mean_lifetime = estimate.mean_lifetime();
        let derived_ok = mean_lifetime.is_finite()
            && mean_lifetime > 0.0
            && arrivals_per_tick.is_finite()
            && expected_ops.is_finite();
        if !derived_ok {
            return Err(FieldError::new(
                "delay",
                format!(
                    "gives a mean lifetime of {mean_lifetime} ticks, {arrivals_per_tick} arrivals \
                     per tick and {expected_ops} expected operations; each must be a finite \
                     number (the lifetime above 0): bring the distributions' parameters closer \
                     to the workload's duration"
                ),
            ));
        }
        if expected_ops > MAX_OPERATIONS {
            return Err(FieldError::new(
                "duration",
                format!(
                    "is {}, which with `pending` = {} and {arrivals_per_tick:.3} arrivals per tick \
                     makes about {expected_ops} operations; a tape may hold at most {MAX_OPERATIONS} \
                     (1e8, 2.4 GB): shorten `duration` or lower `pending` or `arrivals_per_tick`",
                    self.duration, self.pending
                ),
            ));
        }
        let stored_gaps = mortal as f64 * estimate.gaps_per_prefilled;
        if stored_gaps > MAX_OPERATIONS {
            return Err(FieldError::new(
                "rearm.times",
                format!(
                    "is {}, and each idle timeout pending at time 0 draws its whole chain of re-arm \
                     intervals up front: about {stored_gaps} intervals for `pending` = {}, where \
                     at most {MAX_OPERATIONS} (1e8) fit in memory; lower `rearm.times` or `pending`",
                    self.rearm.as_ref().map_or(0.0, |r| r.times),
                    self.pending
                ),
            ));
        }
        if self.pending == 0 && arrivals_per_tick == 0.0 {
            return Err(FieldError::new(
                "pending",
                "is 0 and no timers arrive, so the tape would be empty; set `pending` to at least 1 \
                 or `arrivals_per_tick` above 0",
            ));
        }
        Ok(Plan {
            arrivals_per_tick,
            periodic_tasks,
            mortal,
            expected_ops,
        })
    }

    /// The plan of a `[ratas]` workload, whose other fields
    /// [`Spec::check_fields`] has checked.
    fn plan_ratas(&self, ratas: &Ratas) -> Result<Plan, FieldError> {
        let expected_ops = crate::ratas::expected_ops(ratas.pairs, self.duration);
        if expected_ops > MAX_OPERATIONS {
            return Err(FieldError::new(
                "ratas.pairs",
                format!(
                    "is {}, which for a `duration` of {} ticks makes about {expected_ops} \
                     operations; a tape may hold at most {MAX_OPERATIONS} (1e8, 2.4 GB): lower \
                     `ratas.pairs` or shorten `duration`",
                    ratas.pairs, self.duration
                ),
            ));
        }
        Ok(Plan {
            arrivals_per_tick: 0.0,
            periodic_tasks: 0,
            mortal: 0,
            expected_ops,
        })
    }

    /// The error for a spec whose prefill sampler would keep too few proposals,
    /// blaming the likeliest field.
    fn hopeless_prefill(&self, kept: f64) -> FieldError {
        let delay = self.lifecycle_delay().mean();
        let field = match &self.rearm {
            Some(rearm)
                if rearm.interval.mean()
                    > rearm
                        .delay
                        .as_ref()
                        .unwrap_or(self.lifecycle_delay())
                        .mean() =>
            {
                "rearm.interval"
            }
            _ if self.granularity as f64 > delay => "granularity",
            _ => "cancel.after",
        };
        FieldError::new(
            field,
            format!(
                "makes timers live far shorter than the bound the prefill sampler draws from: only \
                 {:.2}% of its proposals survive, and at least {:.0}% must. Typical causes: a \
                 `rearm.interval` much longer than the delay (most chains end at their first \
                 interval), or a `granularity` much larger than the delays",
                kept * 100.0,
                MIN_KEPT_FRACTION * 100.0
            ),
        )
    }
}
