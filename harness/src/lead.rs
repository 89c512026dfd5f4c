//! How far one row leads its rivals in a recorded run: `timerbench lead
//! RESULTS --row NAME`.
//!
//! For every workload the run measured `NAME` on, the row is set beside three
//! rivals: the best crate driven through its own API (family `crate`, a native
//! row), the best standard-library baseline (family `baseline`), and the best
//! other exact design (families `seed` and `modern`). Each lead is the rival's
//! headline median over the row's, with a percentile-bootstrap interval over
//! the two cells' recorded repetitions ([`stats::ratio_interval`], the method
//! of the report's ratio to the best). It reads only `metadata.json` and the
//! whole-pass rows of `repetitions.csv`, so it reproduces its figures from a
//! committed run without measuring anything, and the README quotes it for the
//! design the suite calls its best.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, bail};
use serde::Deserialize;

use crate::compare::{check_one_run, read_metadata, read_rows};
use crate::output::REPETITIONS_FILE;
use crate::replay::mix;
use crate::stats;

/// Which rival a lead is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rival {
    /// The fastest crate driven through its own API.
    Crate,
    /// The fastest standard-library baseline.
    Baseline,
    /// The fastest other exact design of this crate's own.
    Exact,
}

impl Rival {
    /// The rival's name in the printed table.
    pub fn label(self) -> &'static str {
        match self {
            Rival::Crate => "best crate (native)",
            Rival::Baseline => "best baseline",
            Rival::Exact => "next exact design",
        }
    }

    /// Whether `algorithm` competes in this rival's group against `row`.
    fn admits(self, algorithm: &AlgorithmFacts, row: &str) -> bool {
        algorithm.name != row
            && !algorithm.variant
            && match self {
                Rival::Crate => algorithm.family == "crate" && algorithm.native_of.is_some(),
                Rival::Baseline => algorithm.family == "baseline",
                Rival::Exact => {
                    algorithm.exact && (algorithm.family == "seed" || algorithm.family == "modern")
                }
            }
    }
}

/// One lead: the row against one rival on one workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Lead {
    /// The workload.
    pub workload: String,
    /// Which rival.
    pub rival: Rival,
    /// The rival's name.
    pub rival_name: String,
    /// The row's headline median, ns per operation.
    pub row_ns: f64,
    /// The rival's headline median, ns per operation.
    pub rival_ns: f64,
    /// `rival_ns / row_ns`: above 1 when the row is faster.
    pub ratio: f64,
    /// The bootstrap interval of `ratio`, when both cells have repetitions.
    pub interval: Option<(f64, f64)>,
}

/// What the metadata says of each algorithm.
#[derive(Debug, Deserialize)]
struct AlgorithmFacts {
    name: String,
    family: String,
    exact: bool,
    native_of: Option<String>,
    /// A sweep's variant is a point of a design, never a rival (absent in
    /// the metadata of runs made before sweeps).
    #[serde(default)]
    variant: bool,
}

/// The metadata fields this reads.
#[derive(Debug, Deserialize)]
struct RunFacts {
    seed: u64,
    algorithms: Vec<AlgorithmFacts>,
    /// The run's workloads, in its order.
    workloads: Vec<String>,
}

/// The columns of a `repetitions.csv` row that this reads.
#[derive(Debug, Deserialize)]
struct RepetitionRow {
    schema_version: u32,
    algorithm: String,
    workload: String,
    repetition: u32,
    pass: String,
    operation: String,
    count: u64,
    total_ns: u64,
}

/// Every lead of `row` in the run recorded in `dir`, by workload (in the
/// run's order; a workload that skipped the row has none) and rival. A rival group with no member on a workload gives
/// no lead there.
pub fn leads(dir: &Path, row: &str) -> Result<Vec<Lead>> {
    check_one_run(dir)?;
    let facts = run_facts(dir)?;
    if !facts.algorithms.iter().any(|a| a.name == row) {
        let names: Vec<&str> = facts.algorithms.iter().map(|a| a.name.as_str()).collect();
        bail!(
            "{} did not run an algorithm named {row:?}; it ran: {}",
            dir.display(),
            names.join(", ")
        );
    }
    let times = whole_pass_times(dir)?;
    let median = |values: &[f64]| stats::summarise(values).map(|s| s.median);
    let mut leads = Vec::new();
    for workload in &facts.workloads {
        let Some(row_values) = times.get(&(row.to_owned(), workload.clone())) else {
            continue;
        };
        let Some(row_ns) = median(row_values) else {
            continue;
        };
        for (index, rival) in [Rival::Crate, Rival::Baseline, Rival::Exact]
            .into_iter()
            .enumerate()
        {
            let best = facts
                .algorithms
                .iter()
                .filter(|a| rival.admits(a, row))
                .filter_map(|a| {
                    let values = times.get(&(a.name.clone(), workload.clone()))?;
                    Some((a.name.as_str(), values, median(values)?))
                })
                .min_by(|x, y| x.2.total_cmp(&y.2));
            let Some((rival_name, rival_values, rival_ns)) = best else {
                continue;
            };
            let seed = mix(facts.seed ^ mix(name_hash(workload) ^ index as u64));
            leads.push(Lead {
                workload: workload.clone(),
                rival,
                rival_name: rival_name.to_owned(),
                row_ns,
                rival_ns,
                ratio: rival_ns / row_ns,
                interval: stats::ratio_interval(rival_values, row_values, seed),
            });
        }
    }
    Ok(leads)
}

/// FNV-1a of a name, to give each workload its own resampling seed.
pub(crate) fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xCBF2_9CE4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3)
    })
}

fn run_facts(dir: &Path) -> Result<RunFacts> {
    read_metadata(dir, "seed, algorithm list and workload list")
}

/// (algorithm, workload) -> ns per operation of each whole pass, in file order.
pub(crate) type Times = BTreeMap<(String, String), Vec<f64>>;

/// Every whole-pass repetition of `dir`'s `repetitions.csv`.
pub(crate) fn whole_pass_times(dir: &Path) -> Result<Times> {
    let mut times = Times::new();
    for_each_whole_pass(dir, |algorithm, workload, _, ns| {
        times.entry((algorithm, workload)).or_default().push(ns);
    })?;
    Ok(times)
}

/// Calls `keep(algorithm, workload, repetition, ns per operation)` for every
/// whole pass recorded in `dir`'s `repetitions.csv`, in file order.
pub(crate) fn for_each_whole_pass(
    dir: &Path,
    mut keep: impl FnMut(String, String, u32, f64),
) -> Result<()> {
    read_rows(
        &dir.join(REPETITIONS_FILE),
        "repetition",
        |row: &RepetitionRow| row.schema_version,
        |row| {
            if row.pass == "whole" && row.operation == "all" && row.count > 0 {
                let ns = row.total_ns as f64 / row.count as f64;
                keep(row.algorithm, row.workload, row.repetition, ns);
            }
        },
    )
}

/// Test fixtures' rows of `repetitions.csv` for one pass of `name` on
/// `workload`: the whole pass's `total_ns` over 100 operations, and a
/// batched pass beside it, which readers of whole passes must skip.
#[cfg(test)]
pub(crate) fn fixture_pass_rows(
    name: &str,
    workload: &str,
    repetition: u64,
    total_ns: u64,
) -> String {
    use crate::output::SCHEMA_VERSION;
    format!(
        "{SCHEMA_VERSION},{name},{workload},small,event,{repetition},0,whole,all,100,{total_ns},0\n\
         {SCHEMA_VERSION},{name},{workload},small,event,{repetition},1,batched,insert,100,1,0\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::METADATA_FILE;
    use std::fs;

    /// A results directory with three rows on one workload: `ours` at 10 ns,
    /// a native crate at 20, a baseline at 40, and a slower exact design at 15.
    fn tiny_run(dir: &Path) {
        fs::create_dir_all(dir).unwrap();
        let algorithm = |name: &str, family: &str, native_of: Option<&str>| serde_json::json!({"name": name, "family": family, "exact": true, "native_of": native_of});
        let metadata = serde_json::json!({
            "seed": 7,
            "workloads": ["w"],
            "algorithms": [
                algorithm("ours", "modern", None),
                algorithm("other", "seed", None),
                algorithm("crate-native", "crate", Some("crate")),
                algorithm("crate", "crate", None),
                algorithm("heap", "baseline", None),
            ],
        });
        fs::write(dir.join(METADATA_FILE), metadata.to_string()).unwrap();
        let mut csv = String::from(
            "schema_version,algorithm,workload,scale,driver,repetition,position,pass,operation,count,total_ns,batches\n",
        );
        for (name, ns) in [
            ("ours", 10),
            ("other", 15),
            ("crate-native", 20),
            ("crate", 5),
            ("heap", 40),
        ] {
            for repetition in 0..5u64 {
                let total = 100 * (ns + repetition % 2);
                csv += &super::fixture_pass_rows(name, "w", repetition, total);
            }
        }
        fs::write(dir.join(REPETITIONS_FILE), csv).unwrap();
    }

    #[test]
    fn each_rival_is_the_fastest_of_its_group() {
        let dir = std::env::temp_dir().join(format!("timerbench-lead-{}", std::process::id()));
        tiny_run(&dir);
        let leads = leads(&dir, "ours").unwrap();
        let found: Vec<(Rival, &str, f64)> = leads
            .iter()
            .map(|l| (l.rival, l.rival_name.as_str(), l.ratio))
            .collect();
        // The adapter `crate` is faster, but only native rows stand for a crate.
        assert_eq!(
            found,
            vec![
                (Rival::Crate, "crate-native", 2.0),
                (Rival::Baseline, "heap", 4.0),
                (Rival::Exact, "other", 1.5),
            ]
        );
        let (low, high) = leads[0].interval.unwrap();
        assert!(low <= 2.0 && 2.0 <= high && low > 1.5, "{low}..{high}");
        let unknown = super::leads(&dir, "nobody").unwrap_err().to_string();
        assert!(unknown.contains("ours, other"), "{unknown}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
