//! `metadata.json`'s `real_traces`: the run's replays of real kernel traces,
//! each with the synthetic workload it is set beside (its *twin*), and the
//! shape of both tapes.
//!
//! **Why in the metadata.** The report reads results only; it links no
//! workload and so cannot ask the workloads crate which workloads are real
//! or what their tapes hold. The harness knows both when it runs, and
//! writes them here: the trace's file, the kind of kernel timer, the twin's
//! name and, for each tape, the figures that say what it is (how many of its
//! timers were cancelled or re-armed, how far ahead they were set, how many
//! were pending at once). Delays are in seconds, so that a jiffy tape, a
//! microsecond tape and a millisecond synthetic tape read alike.
//!
//! **Invariants a reader holds the file to** ([`check_real_traces`]): every
//! entry names a workload the run lists, at most once; a twin, when there is
//! one, is a workload the run lists and carries its shape; a run whose
//! selection left the twin out writes `resembles: null`. Shares and delays
//! are finite and not negative, and the re-armed share is at most 1. Runs made before the field read as an
//! empty list.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// One real trace of the run (`metadata.json`'s `real_traces`). The harness
/// writes it with this type, so that writer and reader spell its fields
/// alike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RealTraceEntry {
    /// The workload's name, as `workloads` lists it.
    pub workload: String,
    /// The trace's file in the repository.
    pub file: String,
    /// `timer_list` (ticks are jiffies) or `hrtimer` (1 µs ticks).
    pub timers: String,
    /// The synthetic workload it is set beside, when the run has it.
    #[serde(default)]
    pub resembles: Option<String>,
    /// The shape of its tape.
    pub shape: TapeShape,
    /// The shape of the twin's tape at the run's scale and seed, when there
    /// is a twin.
    #[serde(default)]
    pub twin_shape: Option<TapeShape>,
}

/// What a tape holds, as `workloads::Shape` measures it, in units a reader
/// needs no tick to read.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TapeShape {
    /// Operations in the measured phase.
    pub measured_ops: u64,
    /// Inserts in the measured phase.
    pub inserts: u64,
    /// Cancels that found their timer pending, as a share of the measured
    /// inserts (above 1 when the measured phase cancels more timers of the
    /// prefill than it inserts).
    pub cancelled_share: f64,
    /// Reschedules, as a share of the measured operations.
    pub rescheduled_share: f64,
    /// Percentiles of the delays set, in seconds (`None` for a tape that
    /// sets none).
    pub delay_p50_s: Option<f64>,
    /// The 90th percentile.
    pub delay_p90_s: Option<f64>,
    /// The 99th percentile.
    pub delay_p99_s: Option<f64>,
    /// The longest.
    pub delay_max_s: Option<f64>,
    /// The most timers pending at once.
    pub peak_pending: u64,
}

/// Checks `entries` against the run's `workloads`; `Err` names the entry,
/// the field and what is valid.
pub fn check_real_traces(entries: &[RealTraceEntry], workloads: &[String]) -> Result<(), String> {
    let listed: BTreeSet<&str> = workloads.iter().map(String::as_str).collect();
    let mut seen = BTreeSet::new();
    for (i, entry) in entries.iter().enumerate() {
        let which = format!("real_traces[{i}]");
        if !listed.contains(entry.workload.as_str()) {
            return Err(format!(
                "{which}.workload is `{}`, which `workloads` does not list; an entry must name a \
                 workload of the run",
                entry.workload
            ));
        }
        if !seen.insert(entry.workload.as_str()) {
            return Err(format!(
                "{which}.workload `{}` has an entry before this one; a real trace has one entry",
                entry.workload
            ));
        }
        match (&entry.resembles, &entry.twin_shape) {
            (Some(twin), _) if !listed.contains(twin.as_str()) => {
                return Err(format!(
                    "{which}.resembles is `{twin}`, which `workloads` does not list; a twin must \
                     be a workload of the run, or null when the run left it out"
                ));
            }
            (Some(twin), None) => {
                return Err(format!(
                    "{which}.resembles is `{twin}` but the entry has no `twin_shape`; a twin's \
                     shape is written with its name"
                ));
            }
            _ => {}
        }
        for (field, shape) in [
            ("shape", Some(&entry.shape)),
            ("twin_shape", entry.twin_shape.as_ref()),
        ] {
            if let Some(problem) = shape.and_then(TapeShape::problem) {
                return Err(format!("{which}.{field}.{problem}"));
            }
        }
    }
    Ok(())
}

impl TapeShape {
    /// The first field out of its range, with what is valid.
    fn problem(&self) -> Option<String> {
        if !(self.cancelled_share.is_finite() && self.cancelled_share >= 0.0) {
            return Some(format!(
                "cancelled_share is {}; it is a finite share from 0",
                self.cancelled_share
            ));
        }
        if !(0.0..=1.0).contains(&self.rescheduled_share) {
            return Some(format!(
                "rescheduled_share is {}; a share of the operations is from 0 to 1",
                self.rescheduled_share
            ));
        }
        for (field, delay) in [
            ("delay_p50_s", self.delay_p50_s),
            ("delay_p90_s", self.delay_p90_s),
            ("delay_p99_s", self.delay_p99_s),
            ("delay_max_s", self.delay_max_s),
        ] {
            if let Some(delay) = delay.filter(|d| !(d.is_finite() && *d >= 0.0)) {
                return Some(format!(
                    "{field} is {delay}; a delay is a number of seconds from 0"
                ));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> TapeShape {
        TapeShape {
            measured_ops: 10,
            inserts: 5,
            cancelled_share: 0.4,
            rescheduled_share: 0.5,
            delay_p50_s: Some(0.2),
            delay_p90_s: Some(0.2),
            delay_p99_s: Some(1.0),
            delay_max_s: Some(60.0),
            peak_pending: 3,
        }
    }

    fn entry(workload: &str, twin: Option<&str>) -> RealTraceEntry {
        RealTraceEntry {
            workload: workload.to_owned(),
            file: "workloads/traces/a.txt.gz".to_owned(),
            timers: "timer_list".to_owned(),
            resembles: twin.map(str::to_owned),
            shape: shape(),
            twin_shape: twin.map(|_| shape()),
        }
    }

    fn run() -> Vec<String> {
        vec!["timeouts".to_owned(), "real-a".to_owned()]
    }

    #[test]
    fn entries_of_the_run_pass() {
        check_real_traces(&[entry("real-a", Some("timeouts"))], &run()).unwrap();
        check_real_traces(&[entry("real-a", None)], &run()).unwrap();
        check_real_traces(&[], &[]).unwrap();
    }

    #[test]
    fn a_workload_or_twin_the_run_lacks_is_refused_with_its_field() {
        let error = check_real_traces(&[entry("real-b", None)], &run()).unwrap_err();
        assert!(
            error.contains("real_traces[0].workload is `real-b`"),
            "{error}"
        );
        let error = check_real_traces(&[entry("real-a", Some("uniform"))], &run()).unwrap_err();
        assert!(
            error.contains("real_traces[0].resembles is `uniform`"),
            "{error}"
        );
        let twice = [entry("real-a", None), entry("real-a", None)];
        let error = check_real_traces(&twice, &run()).unwrap_err();
        assert!(error.contains("real_traces[1].workload"), "{error}");
    }

    #[test]
    fn a_twin_without_its_shape_or_a_share_out_of_range_is_refused() {
        let mut bare = entry("real-a", Some("timeouts"));
        bare.twin_shape = None;
        let error = check_real_traces(&[bare], &run()).unwrap_err();
        assert!(error.contains("no `twin_shape`"), "{error}");
        let mut odd = entry("real-a", None);
        odd.shape.rescheduled_share = 1.5;
        let error = check_real_traces(&[odd], &run()).unwrap_err();
        assert!(
            error.contains("real_traces[0].shape.rescheduled_share is 1.5"),
            "{error}"
        );
        let mut odd = entry("real-a", Some("timeouts"));
        odd.twin_shape.as_mut().unwrap().delay_p90_s = Some(-1.0);
        let error = check_real_traces(&[odd], &run()).unwrap_err();
        assert!(error.contains("twin_shape.delay_p90_s is -1"), "{error}");
    }
}
