//! How far one row leads its rivals in a recorded run: `timerbench lead
//! RESULTS --row NAME`.
//!
//! For every workload the run measured `NAME` on, the row is set beside three
//! rivals: the best crate driven through its own API (family `crate`, a native
//! row), the best standard-library baseline (family `baseline`), and the best
//! other exact design (families `seed` and `modern`). Each lead is the rival's
//! headline median over the row's, with a percentile-bootstrap interval over
//! the two cells' recorded repetitions ([`stats::ratio_interval`], the method
//! of the report's ratio to the best). It uses the metadata and the
//! whole-pass rows of `repetitions.csv` (read, with the rest of the run, by
//! the `schema` crate's reader), so it reproduces its figures from a
//! committed run without measuring anything; the README's generated headline
//! (`headline.rs`) quotes its leads for each workload's fastest exact design.

use std::path::Path;

use anyhow::{Result, bail};
use schema::{AlgorithmEntry, RunFiles};

use crate::failure::Failure;
use crate::recorded::whole_pass_times;
use crate::replay::{mix, name_hash};
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
    fn admits(self, algorithm: &AlgorithmEntry, row: &str) -> bool {
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

/// Every lead of `row` in the run recorded in `dir`, by workload (in the
/// run's order; a workload that skipped the row has none) and rival. A rival group with no member on a workload gives
/// no lead there.
pub fn leads(dir: &Path, row: &str) -> Result<Vec<Lead>> {
    let files = RunFiles::read(dir)?;
    let facts = &files.metadata;
    if !facts.algorithms.iter().any(|a| a.name == row) {
        let names: Vec<&str> = facts.algorithms.iter().map(|a| a.name.as_str()).collect();
        bail!(
            "{} did not run an algorithm named {row:?}; it ran: {}",
            dir.display(),
            names.join(", ")
        );
    }
    let times = whole_pass_times(files.repetitions()?);
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

/// `timerbench lead`: one algorithm against its rivals in a recorded run.
pub fn lead_command(results: &Path, row: &str) -> Result<(), Failure> {
    use std::fmt::Write as _;
    use std::io::Write as _;
    let leads = leads(results, row).map_err(Failure::Input)?;
    // Written whole and then printed once: a reader that closes the pipe early
    // (`| head`) ends the output, not the program with a panic.
    let mut text = format!(
        "{row}'s lead in {}: the rival's median over {row}'s (above 1: {row} is faster), 95% bootstrap interval\n",
        results.display()
    );
    let _ = writeln!(
        text,
        "{:<14} {:>9}  {:<20} {:<26} {:>9} {:>7}  interval",
        "workload", "ns", "rival", "name", "ns", "lead"
    );
    for lead in &leads {
        let interval = lead.interval.map_or_else(
            || "-".to_owned(),
            |(low, high)| format!("[{low:.2}, {high:.2}]"),
        );
        let _ = writeln!(
            text,
            "{:<14} {:>9.1}  {:<20} {:<26} {:>9.1} {:>6.2}x  {interval}",
            lead.workload,
            lead.row_ns,
            lead.rival.label(),
            lead.rival_name,
            lead.rival_ns,
            lead.ratio
        );
    }
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Algorithm, Cell, Run};

    /// A results directory with five rows on one workload: `ours` at 10 ns,
    /// a native crate at 20, its adapter at 5, a baseline at 40, and a
    /// slower exact design at 15.
    fn tiny_run(dir: &Path) {
        let algorithm = |name, family, native_of| Algorithm {
            name,
            family,
            exact: true,
            native_of,
        };
        let cell = |algorithm, ns: f64| Cell {
            algorithm,
            workload: "w",
            ns: (0..5)
                .map(|repetition| ns + f64::from(repetition % 2))
                .collect(),
        };
        Run {
            algorithms: vec![
                algorithm("ours", "modern", None),
                algorithm("other", "seed", None),
                algorithm("crate-native", "crate", Some("crate")),
                algorithm("crate", "crate", None),
                algorithm("heap", "baseline", None),
            ],
            ..Run::of(vec![
                cell("ours", 10.0),
                cell("other", 15.0),
                cell("crate-native", 20.0),
                cell("crate", 5.0),
                cell("heap", 40.0),
            ])
        }
        .write(dir);
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
