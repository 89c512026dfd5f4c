//! What `metadata.json`'s `real_traces` says of the run's real kernel traces:
//! each one's file, timer kind and synthetic twin, and the shape of both
//! tapes, so that the report, which links no workload, can set them side by
//! side.
//!
//! The shapes are measured from the tapes the run replayed
//! ([`workloads::Shape::of`], the same figures as the workloads README's
//! table), while each tape is in hand: [`Shapes`] keeps those of the
//! workloads [`Shapes::wanted`] names and drops the rest. Delays leave here
//! in seconds, at each tape's own tick (a jiffy, a microsecond, a
//! millisecond), so that the reader needs no tick. A twin the run's
//! selection left out is written as `null`, never invented: the schema's
//! reader refuses a twin the run does not list.
//!
//! Cost: one pass over each real tape and each twin's, a heap of its
//! deadlines; a fraction of a second beside the run.

use std::collections::BTreeMap;

use schema::{RealTraceEntry, TapeShape};
use workloads::{RealTrace, Shape, Tick};

use crate::select::Selection;

/// `shape` of a tape of `ticks_per_second` ticks a second, as the metadata
/// carries it (the schema's type, which the report reads).
pub fn tape_shape(shape: &Shape, ticks_per_second: Tick) -> TapeShape {
    let seconds = |ticks: Tick| ticks as f64 / ticks_per_second.max(1) as f64;
    let delays = shape.delays;
    TapeShape {
        measured_ops: shape.measured_ops as u64,
        inserts: shape.inserts as u64,
        cancelled_share: shape.cancelled(),
        rescheduled_share: shape.rescheduled(),
        delay_p50_s: delays.map(|d| seconds(d.p50)),
        delay_p90_s: delays.map(|d| seconds(d.p90)),
        delay_p99_s: delays.map(|d| seconds(d.p99)),
        delay_max_s: delays.map(|d| seconds(d.max)),
        peak_pending: shape.peak_pending as u64,
    }
}

/// The shapes a run measures for its real traces, by workload name.
#[derive(Debug, Default)]
pub struct Shapes {
    wanted: BTreeMap<String, Tick>,
    measured: BTreeMap<String, TapeShape>,
}

impl Shapes {
    /// The workloads of `selection` whose shapes the metadata needs, with
    /// their ticks a second: each real trace, and its twin when the run has
    /// it.
    pub fn wanted(selection: &Selection) -> Self {
        let mut wanted = BTreeMap::new();
        for real in &selection.reals {
            wanted.insert(real.name.to_owned(), real.ticks_per_second());
            if let Some(twin) = twin_spec(selection, real) {
                wanted.insert(twin.name().to_owned(), twin.ticks_per_second());
            }
        }
        Self {
            wanted,
            measured: BTreeMap::new(),
        }
    }

    /// Measures `tape` if its workload is wanted.
    pub fn measure(&mut self, tape: &workloads::Tape) {
        if let Some(&per_second) = self.wanted.get(&tape.name) {
            let shape = tape_shape(&Shape::of(tape), per_second);
            self.measured.insert(tape.name.clone(), shape);
        }
    }

    /// The metadata's entries, one per real trace of `selection` that was
    /// measured, in the run's order.
    pub fn entries(&self, selection: &Selection) -> Vec<RealTraceEntry> {
        selection
            .reals
            .iter()
            .filter_map(|real| {
                let shape = *self.measured.get(real.name)?;
                let twin = twin_spec(selection, real)
                    .and_then(|twin| Some((twin.name(), *self.measured.get(twin.name())?)));
                Some(RealTraceEntry {
                    workload: real.name.to_owned(),
                    file: real.file.to_owned(),
                    timers: real.timers.to_string(),
                    resembles: twin.map(|_| real.resembles.to_owned()),
                    shape,
                    twin_shape: twin.map(|(_, shape)| shape),
                })
            })
            .collect()
    }
}

/// The built-in spec of the run that `real` resembles, if the run has it.
fn twin_spec<'a>(selection: &'a Selection, real: &RealTrace) -> Option<&'a workloads::Spec> {
    selection.workloads.iter().find_map(|source| match source {
        crate::select::WorkloadSource::Spec { spec, .. } if spec.name() == real.resembles => {
            Some(spec.as_ref())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_leave_in_seconds_at_the_tapes_tick() {
        let shape = Shape {
            measured_ops: 10,
            inserts: 4,
            cancels: 2,
            reschedules: 5,
            delays: Some(workloads::Delays {
                p50: 50,
                p90: 250,
                p99: 500,
                max: 1_000,
            }),
            peak_pending: 3,
        };
        let at_hz = tape_shape(&shape, 250);
        assert_eq!(at_hz.delay_p50_s, Some(0.2));
        assert_eq!(at_hz.delay_max_s, Some(4.0));
        assert_eq!(at_hz.cancelled_share, 0.5);
        assert_eq!(at_hz.rescheduled_share, 0.5);
        let at_us = tape_shape(&shape, 1_000_000);
        assert_eq!(at_us.delay_p90_s, Some(0.000_25));
        let none = tape_shape(
            &Shape {
                delays: None,
                ..shape
            },
            1_000,
        );
        assert_eq!(none.delay_p99_s, None);
    }
}
