//! One row against its rivals in a recorded run: `timerbench compare RUN
//! --lead ROW`.
//!
//! For every workload the run measured `ROW` on, the row is set beside three
//! rivals: the best crate driven through its own API (family `crate`, a
//! native row), the best standard-library baseline (family `baseline`), and
//! the best other exact design (families `seed` and `modern`). "Best" is the
//! lowest median of whole passes. Each rival is then judged as two rows of
//! one run are ([`super::rows`]): the row's and the rival's whole passes of
//! the same repetition pair up, and the one rule judges the row's time over
//! the rival's. The README's generated headline (`headline.rs`) quotes these
//! leads the other way round, as "the rival's time over the design's"
//! ([`Lead::lead`]).

use std::path::Path;

use anyhow::{Result, bail};
use schema::{AlgorithmEntry, RunFiles};

use super::table::Line;
use super::{Judgement, judge, median};
use crate::recorded::for_each_whole_pass;

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

    /// The rival's group in one word, as the table tags its name.
    pub fn short(self) -> &'static str {
        match self {
            Rival::Crate => "crate",
            Rival::Baseline => "baseline",
            Rival::Exact => "exact",
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
    /// Which rival.
    pub rival: Rival,
    /// The rival's name.
    pub rival_name: String,
    /// The row against the rival: the rival is the reference, the row the
    /// subject, so a ratio below 1 means the row is faster.
    pub line: Line,
}

impl Lead {
    /// The lead as the headline quotes it: the rival's time over the row's
    /// (above 1: the row is faster), with the verdict read that way round.
    pub fn lead(&self) -> Judgement {
        self.line.judgement.inverted()
    }
}

/// Every lead of `row` in the run recorded in `dir`, by workload (in the
/// run's order; a workload that skipped the row has none) and rival. A rival
/// group with no member on a workload gives no lead there.
pub fn leads(dir: &Path, row: &str) -> Result<Vec<Lead>> {
    let files = RunFiles::read(dir)?;
    let facts = &files.metadata;
    if !facts.algorithms.iter().any(|a| a.name == row) {
        let names: Vec<&str> = facts.algorithms.iter().map(|a| a.name.as_str()).collect();
        bail!(crate::closest::unknown_name(
            &format!(
                "--lead {row:?}: {} did not run an algorithm by that name",
                dir.display()
            ),
            "the rows it ran",
            row,
            &names
        ));
    }
    // (algorithm, workload) -> ns per operation by repetition.
    let mut passes: std::collections::BTreeMap<(String, String), Vec<(u32, f64)>> =
        Default::default();
    for_each_whole_pass(
        files.repetitions()?,
        |algorithm, workload, repetition, ns| {
            passes
                .entry((algorithm.to_owned(), workload.to_owned()))
                .or_default()
                .push((repetition, ns));
        },
    );
    let times =
        |algorithm: &str, workload: &str| passes.get(&(algorithm.to_owned(), workload.to_owned()));
    let median_of =
        |values: &[(u32, f64)]| median(&values.iter().map(|(_, ns)| *ns).collect::<Vec<_>>());
    let mut leads = Vec::new();
    for workload in &facts.workloads {
        let Some(row_passes) = times(row, workload) else {
            continue;
        };
        let Some(row_ns) = median_of(row_passes) else {
            continue;
        };
        for rival in [Rival::Crate, Rival::Baseline, Rival::Exact] {
            let best = facts
                .algorithms
                .iter()
                .filter(|a| rival.admits(a, row))
                .filter_map(|a| {
                    let values = times(&a.name, workload)?;
                    Some((a.name.as_str(), values, median_of(values)?))
                })
                .min_by(|x, y| x.2.total_cmp(&y.2));
            let Some((rival_name, rival_passes, rival_ns)) = best else {
                continue;
            };
            let ratios: Vec<f64> = row_passes
                .iter()
                .filter_map(|(repetition, ns)| {
                    let rival_pass = rival_passes.iter().find(|(r, _)| r == repetition)?;
                    Some(ns / rival_pass.1)
                })
                .collect();
            let Some(judgement) = judge(&ratios) else {
                continue;
            };
            leads.push(Lead {
                rival,
                rival_name: rival_name.to_owned(),
                line: Line {
                    workload: workload.clone(),
                    subject: row.to_owned(),
                    reference: format!("{rival_name} ({})", rival.short()),
                    reference_ns: rival_ns,
                    subject_ns: row_ns,
                    judgement,
                },
            });
        }
    }
    Ok(leads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Algorithm, Cell, Run};
    use crate::judge::Verdict;

    /// A results directory with five rows on one workload: `ours` at 10 ns,
    /// a native crate at 20, its adapter at 5, a baseline at 40, and a
    /// slower exact design at 10.1 (inside the noise band).
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
            ns: (0..6)
                .map(|repetition| ns * (1.0 + 0.1 * f64::from(repetition % 3)))
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
                cell("other", 10.1),
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
        let found: Vec<(Rival, &str, Verdict)> = leads
            .iter()
            .map(|l| (l.rival, l.rival_name.as_str(), l.line.judgement.verdict))
            .collect();
        // The adapter `crate` is faster, but only native rows stand for a crate.
        assert_eq!(
            found,
            vec![
                (Rival::Crate, "crate-native", Verdict::Faster),
                (Rival::Baseline, "heap", Verdict::Faster),
                (Rival::Exact, "other", Verdict::NoChange),
            ]
        );
        let lead = leads[0].lead();
        assert!((lead.ratio - 2.0).abs() < 1e-9, "{lead:?}");
        assert_eq!(lead.verdict, Verdict::Slower);
        let unknown = super::leads(&dir, "nobody").unwrap_err().to_string();
        assert!(
            unknown.contains("the rows it ran") && unknown.contains("other"),
            "{unknown}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
