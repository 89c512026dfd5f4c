//! Two rows of one recorded run, paired by repetition: `timerbench compare
//! RUN --rows A,B`.
//!
//! For every workload both rows ran, the two rows' whole passes of the same
//! repetition make a pair (B's time over A's), and the pairs are judged by
//! the one rule ([`super::judge`]). This is how a change to one design is
//! judged on a host whose speed drifts: register the changed design as a
//! second row beside the unchanged one, run both in one `timerbench run`
//! with many repetitions, and pair them (`make paired` does all of it).
//!
//! A second row is compiled and placed apart from the first, so even an
//! unchanged copy can differ from the original by a percent or two.
//! `--swapped RUN2` takes a second run in which the change was on A's row
//! instead, and pools its pairs (A over B there, so that every pair is the
//! changed row's time over the unchanged one's) with the first run's. A
//! placement effect then falls on the two halves with opposite signs and
//! widens the interval, instead of passing for the change's effect.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, bail};
use schema::RunFiles;

use super::table::Line;
use super::{judge, median};
use crate::recorded::for_each_whole_pass;

/// A workload and the two rows' whole passes on it, repetition by
/// repetition: (A's ns per operation, B's).
type Paired = (String, Vec<(f64, f64)>);

/// Per workload (in the run's order) that both rows ran in the same
/// repetition, the two rows' whole passes.
fn passes(files: &RunFiles, a: &str, b: &str) -> Result<Vec<Paired>> {
    // (workload, repetition) -> (A's ns per operation, B's).
    let mut by_repetition: BTreeMap<(String, u32), (Option<f64>, Option<f64>)> = BTreeMap::new();
    for_each_whole_pass(
        files.repetitions()?,
        |algorithm, workload, repetition, ns| {
            let side = if algorithm == a {
                0
            } else if algorithm == b {
                1
            } else {
                return;
            };
            let entry = by_repetition
                .entry((workload.to_owned(), repetition))
                .or_default();
            if side == 0 {
                entry.0 = Some(ns);
            } else {
                entry.1 = Some(ns);
            }
        },
    );
    let mut workloads = Vec::new();
    for workload in &files.metadata.workloads {
        let pairs: Vec<(f64, f64)> = by_repetition
            .range((workload.clone(), 0)..=(workload.clone(), u32::MAX))
            .filter_map(|(_, &(a_ns, b_ns))| Some((a_ns?, b_ns?)))
            .collect();
        if !pairs.is_empty() {
            workloads.push((workload.clone(), pairs));
        }
    }
    Ok(workloads)
}

/// Refuses `a` and `b` unless they are two different rows the run in `dir`
/// ran.
pub fn check_rows(files: &RunFiles, dir: &Path, a: &str, b: &str) -> Result<()> {
    if a == b {
        bail!("--rows names {a:?} twice: name two different rows of the run");
    }
    for row in [a, b] {
        if !files.metadata.algorithms.iter().any(|x| x.name == row) {
            let names: Vec<&str> = files
                .metadata
                .algorithms
                .iter()
                .map(|x| x.name.as_str())
                .collect();
            bail!(crate::closest::unknown_name(
                &format!(
                    "--rows {row:?}: {} did not run an algorithm by that name",
                    dir.display()
                ),
                "the rows it ran",
                row,
                &names
            ));
        }
    }
    Ok(())
}

/// Row `b` against row `a` in the run in `dir`, per workload; with
/// `swapped`, a second run of the same rows whose pairs are pooled the other
/// way round (see the module's documentation).
///
/// # Errors
///
/// When a directory is not one run's results, when `a` or `b` is not one of
/// its rows (the message lists those it ran), when they are the same row, or
/// when no workload has a repetition of both.
pub fn compare_rows(dir: &Path, a: &str, b: &str, swapped: Option<&Path>) -> Result<Vec<Line>> {
    let files = RunFiles::read(dir)?;
    check_rows(&files, dir, a, b)?;
    let mut second = BTreeMap::new();
    if let Some(other) = swapped {
        let other_files = RunFiles::read(other)?;
        check_rows(&other_files, other, a, b)?;
        if other_files.metadata.run_id == files.metadata.run_id {
            bail!(
                "--swapped {} is the same run as {}: give the run in which the change was on {a}'s row",
                other.display(),
                dir.display()
            );
        }
        if other_files.metadata.seed != files.metadata.seed {
            bail!(
                "--swapped {} has seed {}, but {} has seed {}: both runs must replay the same workloads",
                other.display(),
                other_files.metadata.seed,
                dir.display(),
                files.metadata.seed
            );
        }
        second = passes(&other_files, a, b)?.into_iter().collect();
    }
    let mut lines = Vec::new();
    for (workload, pairs) in passes(&files, a, b)? {
        let mut ratios: Vec<f64> = pairs.iter().map(|(a_ns, b_ns)| b_ns / a_ns).collect();
        if let Some(flipped) = second.get(&workload) {
            ratios.extend(flipped.iter().map(|(a_ns, b_ns)| a_ns / b_ns));
        }
        let a_times: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let b_times: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let (Some(judgement), Some(reference_ns), Some(subject_ns)) =
            (judge(&ratios), median(&a_times), median(&b_times))
        else {
            continue;
        };
        lines.push(Line {
            workload,
            subject: b.to_owned(),
            reference: a.to_owned(),
            reference_ns,
            subject_ns,
            judgement,
        });
    }
    if lines.is_empty() {
        bail!(
            "{} has no workload with a whole pass of both {a} and {b} in the same repetition",
            dir.display()
        );
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Algorithm, Cell, Run};
    use crate::judge::Verdict;

    /// Two rows on two workloads: on `drift` the host slows both alike
    /// from repetition to repetition, and `new` stays 10% faster; on `same`
    /// they are equal.
    fn tiny_run(dir: &Path) {
        let algorithm = |name| Algorithm {
            name,
            family: "seed",
            exact: true,
            native_of: None,
        };
        let cell = |algorithm, workload, factor: f64| Cell {
            algorithm,
            workload,
            ns: (0..8)
                .map(|repetition| factor * (10.0 + 3.0 * f64::from(repetition)))
                .collect(),
        };
        Run {
            algorithms: vec![algorithm("old"), algorithm("new")],
            ..Run::of(vec![
                cell("old", "drift", 1.0),
                cell("new", "drift", 0.9),
                cell("old", "same", 1.0),
                cell("new", "same", 1.0),
            ])
        }
        .write(dir);
    }

    #[test]
    fn passes_pair_by_repetition_and_the_drift_cancels() {
        let dir = std::env::temp_dir().join(format!("timerbench-rows-{}", std::process::id()));
        tiny_run(&dir);
        let lines = compare_rows(&dir, "old", "new", None).unwrap();
        let drift = &lines[0];
        assert_eq!(drift.workload, "drift");
        assert!((drift.judgement.ratio - 0.9).abs() < 1e-9);
        assert_eq!(drift.judgement.verdict, Verdict::Faster);
        assert_eq!(lines[1].judgement.verdict, Verdict::NoChange);
        let error = compare_rows(&dir, "old", "nobody", None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("the rows it ran") && error.contains("old"),
            "{error}"
        );
        let error = compare_rows(&dir, "old", "old", None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("twice"), "{error}");
        let error = compare_rows(&dir, "old", "new", Some(&dir))
            .unwrap_err()
            .to_string();
        assert!(error.contains("same run"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
