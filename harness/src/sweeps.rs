//! Where the points of a parameter sweep run by default.
//!
//! A sweep point (a variant, `<design>@<param>=<value>`) exists for the
//! report's parameters section only, which draws each point's whole-pass
//! cost against its lateness and memory, one colour per workload. A full run
//! used to measure every point on every built-in workload: a quarter of the
//! reference run's time, most of it on the largest tapes, for charts of
//! seventeen colours that no eye could follow. By default the points now run
//! on [`SWEEP_WORKLOADS`], eight workloads that span the shapes a parameter
//! trades on (a population from a thousand to a hundred thousand, short and
//! far deadlines, cancels and reschedules, sparse time), and with whole passes
//! only (`bench.rs`). A sweep asked for by name (`--param`, or a variant in
//! `--algorithms`) runs on every selected workload.

/// The built-in workloads the compiled sweep points run on by default.
pub const SWEEP_WORKLOADS: [&str; 8] = [
    "uniform",
    "timeouts",
    "sparse",
    "far-future",
    "heavy-tail",
    "kernel-timeouts",
    "scaling-1e3",
    "scaling-1e5",
];

/// The rows of `algorithms` that run on `workload`: every row, but for the
/// sweep points, which run on [`SWEEP_WORKLOADS`] only when they came by
/// default (`by_default`: neither `--algorithms` nor `--param` was given).
pub fn rows_on(algorithms: &[String], workload: &str, by_default: bool) -> Vec<String> {
    let keeps_points = !by_default || SWEEP_WORKLOADS.contains(&workload);
    let catalog = algorithms::registry::catalog();
    let is_point = |name: &str| catalog.iter().any(|info| info.name == name && info.variant);
    algorithms
        .iter()
        .filter(|name| keeps_points || !is_point(name))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_points_run_on_the_sweep_workloads_only() {
        let rows: Vec<String> = ["binary-heap", "rounds-wheel@tick=10"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(rows_on(&rows, "uniform", true), rows);
        assert_eq!(rows_on(&rows, "scaling-1e6", true), ["binary-heap"]);
        assert_eq!(rows_on(&rows, "scaling-1e6", false), rows);
    }

    #[test]
    fn every_sweep_workload_is_a_built_in() {
        let names: Vec<String> = workloads::builtins(workloads::Scale::Default)
            .iter()
            .map(|spec| spec.name.clone())
            .collect();
        for name in SWEEP_WORKLOADS {
            assert!(names.iter().any(|n| n == name), "{name} is not a built-in");
        }
    }
}
