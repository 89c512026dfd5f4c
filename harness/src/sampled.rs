//! Where the **sampled rows** run by default: the rows that exist to show one
//! figure each, which a sample of workloads shows as well as all of them.
//!
//! Two kinds of row are sampled:
//!
//! * **Sweep points** (variants, `<design>@<param>=<value>`). The report's
//!   parameters section is the only place one is shown: each point's
//!   whole-pass cost against its lateness and memory, one colour per
//!   workload. Measured on every built-in, they took a quarter of the
//!   reference run, most of it on the largest tapes, for charts of seventeen
//!   colours no eye could follow. They also run whole passes only (`bench.rs`).
//! * **Crate adapters whose crate also runs natively**: a third-party crate
//!   behind this project's `TimerQueue` contract (its row without a suffix)
//!   when a `-native` row drives the same crate through its own API. The native
//!   row stands for the crate in every ranking and verdict (the report sets
//!   the adapter aside as `crate adapter`); the adapter's one figure is what
//!   the contract costs that crate, the report's contract-cost table, and the
//!   glue's cost is a per-operation constant that the sample shows. Measured
//!   everywhere, the four adapters took a sixth of the reference run, most of
//!   it on the workloads outside the sample.
//!
//! The sample is [`SAMPLE_WORKLOADS`], five workloads that span the shapes a
//! parameter or an adapter trades on: populations from ten thousand to two
//! hundred thousand, short deadlines mostly cancelled and deadlines over
//! every order of magnitude, sparse time. Five rather than more keeps each
//! parameter chart to as many colours, and the default run within its
//! budget (the three workloads it had beside these took 19 s). A sampled row asked for by name (`--algorithms`, or `--param` for a
//! sweep) runs on every selected workload, as does every row when
//! `--algorithms` is given.
//!
//! Everything else runs on every workload: the contract rows of the designs,
//! the baselines and their `-plain` rows (which are the model of the JDK
//! structures in the systems table), the native rows, and the crates that have
//! no native row.

use algorithms::Family;
use algorithms::registry::AlgorithmInfo;

/// The built-in workloads the sampled rows run on by default.
pub const SAMPLE_WORKLOADS: [&str; 5] =
    ["uniform", "timeouts", "sparse", "heavy-tail", "scaling-1e5"];

/// Whether `name` is a sampled row of `catalog`: a sweep point, or a crate's
/// contract row whose crate some native row also drives.
pub fn is_sampled(catalog: &[AlgorithmInfo], name: &str) -> bool {
    catalog.iter().any(|info| {
        info.name == name
            && (info.variant
                || (info.family == Family::Crate
                    && catalog.iter().any(|n| n.native_of == Some(name))))
    })
}

/// The rows of `algorithms` that run on `workload`: every row, but for the
/// sampled rows, which run on [`SAMPLE_WORKLOADS`] only when they came by
/// default (`by_default`: neither `--algorithms` nor `--param` was given).
pub fn rows_on(algorithms: &[String], workload: &str, by_default: bool) -> Vec<String> {
    let keeps_sampled = !by_default || SAMPLE_WORKLOADS.contains(&workload);
    let catalog = algorithms::registry::catalog();
    algorithms
        .iter()
        .filter(|name| keeps_sampled || !is_sampled(&catalog, name))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_points_run_on_the_sample_workloads_only() {
        let rows: Vec<String> = ["binary-heap", "rounds-wheel@tick=10"]
            .map(str::to_owned)
            .to_vec();
        assert_eq!(rows_on(&rows, "uniform", true), rows);
        assert_eq!(rows_on(&rows, "scaling-1e6", true), ["binary-heap"]);
        assert_eq!(rows_on(&rows, "scaling-1e6", false), rows);
    }

    #[test]
    fn an_adapter_is_sampled_only_where_its_crate_runs_natively() {
        let catalog = algorithms::registry::catalog();
        let mut adapters = 0;
        for info in &catalog {
            let native = info.family == Family::Crate
                && catalog.iter().any(|n| n.native_of == Some(info.name));
            if info.variant {
                assert!(is_sampled(&catalog, info.name), "{}", info.name);
            } else {
                assert_eq!(is_sampled(&catalog, info.name), native, "{}", info.name);
                adapters += usize::from(native);
            }
        }
        // Every crate's native row stands for one sampled adapter.
        let natives = catalog
            .iter()
            .filter(|n| n.native_of.is_some() && n.family == Family::Crate)
            .count();
        assert_eq!(adapters, natives);
        assert!(adapters > 0);
        // A native row itself, and a baseline with a `-plain` row, run everywhere.
        let rows = ["binary-heap", "std-binary-heap", "std-binary-heap-plain"].map(str::to_owned);
        assert_eq!(rows_on(&rows, "scaling-1e6", true), rows);
    }

    #[test]
    fn every_sample_workload_is_a_built_in() {
        let names: Vec<String> = workloads::builtins(workloads::Scale::Default)
            .iter()
            .map(|spec| spec.name.clone())
            .collect();
        for name in SAMPLE_WORKLOADS {
            assert!(names.iter().any(|n| n == name), "{name} is not a built-in");
        }
    }
}
