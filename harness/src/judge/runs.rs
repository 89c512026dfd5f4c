//! Two sets of recorded runs: `timerbench compare BASE NEW`, where BASE and
//! NEW are each a results directory or several separated by commas.
//!
//! The unit of evidence is the run. Per cell (algorithm, workload) every run
//! measured, each run gives its median of whole passes; the i-th NEW run's
//! median over the i-th BASE run's is one pair, and the pairs are judged by
//! the one rule ([`super::judge`]). Runs made in turn (BASE, NEW, BASE, NEW,
//! ..., as `make ab` makes them from two builds) pair a run with the one made
//! next to it, so a drift of the host over minutes falls on both sides of a
//! pair; and because every pair comes from two other processes, the
//! variance between processes is in the interval. One run a side is one
//! pair: it prints each cell's figures and the spread of the ratios, and
//! calls nothing.
//!
//! Runs that do not measure the same thing are refused with the reason:
//! another seed, scale, driver or workload generator, or a workload of the
//! same name whose tape differs (its measured operations, inserts, cancels
//! or reschedules, figures every row of a workload shares). Runs from
//! different machines, compilers or profiles, with uncommitted changes, or
//! that lost time to other guests, are compared with a warning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use schema::{Metadata, RunFiles, RunRow};

use super::table::Line;
use super::{judge, median};
use crate::recorded::whole_pass_times;

/// Steal time (seconds the hypervisor gave this guest's CPUs to others) above
/// which a run is said to have shared its CPUs.
const STEAL_WARNING_SECONDS: f64 = 1.0;

/// Two sets of runs compared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Facts worth knowing that do not cast doubt: the commits.
    pub notes: Vec<String>,
    /// Differences that may explain a change other than the code's.
    pub warnings: Vec<String>,
    /// Every cell every run measured, by workload (in BASE's order), then
    /// algorithm (in BASE's order).
    pub lines: Vec<Line>,
    /// Pairs of runs.
    pub pairs: usize,
    /// Cells some BASE run measured and some NEW run did not, or the other
    /// way round (`algorithm on workload`).
    pub unpaired: Vec<String>,
    /// NEW's first run's id, when it has one (`comparison.csv` carries it).
    pub run_id: Option<String>,
}

/// A workload's tape as `runs.csv` describes it: measured operations,
/// inserts, cancels and reschedules, which every row of it shares.
type Shape = [u64; 4];

/// Each workload's [`Shape`] in a run's `runs.csv`.
fn workload_shapes(runs: &[RunRow]) -> BTreeMap<String, Shape> {
    let mut shapes = BTreeMap::new();
    for row in runs {
        let shape = [row.measured_ops, row.inserts, row.cancels, row.reschedules];
        shapes.entry(row.workload.clone()).or_insert(shape);
    }
    shapes
}

/// A shape as the refusal prints it.
fn describe(shape: &Shape) -> String {
    format!(
        "{} measured operations, {} inserts, {} cancels, {} reschedules",
        shape[0], shape[1], shape[2], shape[3]
    )
}

/// Why run `other` (at `path`) does not measure what `first` measures, if
/// it does not.
fn refusals(first: &RunFiles, other: &RunFiles) -> Result<Vec<String>> {
    let (b, n) = (&first.metadata, &other.metadata);
    let generator = |m: &Metadata| {
        m.generator_version
            .map_or_else(|| "unknown".to_owned(), |v| v.to_string())
    };
    let mut refusals = Vec::new();
    for (what, x, y) in [
        ("seed", b.seed.to_string(), n.seed.to_string()),
        ("scale", b.scale.clone(), n.scale.clone()),
        ("driver", b.driver.clone(), n.driver.clone()),
        ("workload generator version", generator(b), generator(n)),
    ] {
        if x != y {
            refusals.push(format!("{what} {x} against {y}"));
        }
    }
    if refusals.is_empty() {
        let theirs = workload_shapes(other.runs()?);
        for (workload, shape) in &workload_shapes(first.runs()?) {
            if let Some(other_shape) = theirs.get(workload)
                && other_shape != shape
            {
                refusals.push(format!(
                    "workload {workload} is not the same: {} against {}",
                    describe(shape),
                    describe(other_shape)
                ));
            }
        }
    }
    Ok(refusals)
}

/// Compares the runs `new` with the runs `base`, pairing them in the order
/// given.
pub fn compare_runs(base: &[PathBuf], new: &[PathBuf]) -> Result<Comparison> {
    if base.is_empty() || new.is_empty() {
        bail!("give at least one results directory a side");
    }
    if base.len() != new.len() {
        bail!(
            "{} BASE runs and {} NEW runs: give as many of each, since the i-th NEW run is \
             paired with the i-th BASE run (`make ab` makes them in turn)",
            base.len(),
            new.len()
        );
    }
    let read = |paths: &[PathBuf]| -> Result<Vec<RunFiles>> {
        paths.iter().map(|p| Ok(RunFiles::read(p)?)).collect()
    };
    let (base_runs, new_runs) = (read(base)?, read(new)?);
    let first = &base_runs[0];
    let mut ids = BTreeMap::new();
    for (path, run) in base.iter().zip(&base_runs).chain(new.iter().zip(&new_runs)) {
        let problems = refusals(first, run)?;
        if !problems.is_empty() {
            bail!(
                "the runs are not comparable: {} against {}: {}",
                base[0].display(),
                path.display(),
                problems.join("; ")
            );
        }
        if let Some(id) = &run.metadata.run_id
            && let Some(earlier) = ids.insert(id.clone(), path.clone())
        {
            bail!(
                "{} and {} hold the same run ({id}): each pair needs two runs",
                earlier.display(),
                path.display()
            );
        }
    }
    let mut comparison = Comparison {
        pairs: base.len(),
        run_id: new_runs[0].metadata.run_id.clone(),
        ..Comparison::default()
    };
    describe_builds(&first.metadata, &new_runs[0].metadata, &mut comparison);
    for (side, runs) in [("BASE", &base_runs), ("NEW", &new_runs)] {
        for (index, run) in runs.iter().enumerate() {
            warn_of_the_host(side, index, runs.len(), &run.metadata, &mut comparison);
        }
    }

    // (algorithm, workload) -> each run's median, per side.
    let medians = |runs: &[RunFiles]| -> Result<Vec<BTreeMap<(String, String), f64>>> {
        runs.iter()
            .map(|run| {
                Ok(whole_pass_times(run.repetitions()?)
                    .into_iter()
                    .filter_map(|(key, values)| Some((key, median(&values)?)))
                    .collect())
            })
            .collect()
    };
    let (base_medians, new_medians) = (medians(&base_runs)?, medians(&new_runs)?);
    let facts = &first.metadata;
    for workload in &facts.workloads {
        for algorithm in &facts.algorithms {
            let key = (algorithm.name.clone(), workload.clone());
            let side = |all: &[BTreeMap<(String, String), f64>]| -> Option<Vec<f64>> {
                all.iter().map(|m| m.get(&key).copied()).collect()
            };
            let (Some(base_ns), Some(new_ns)) = (side(&base_medians), side(&new_medians)) else {
                continue;
            };
            let ratios: Vec<f64> = new_ns.iter().zip(&base_ns).map(|(n, b)| n / b).collect();
            let (Some(judgement), Some(reference_ns), Some(subject_ns)) =
                (judge(&ratios), median(&base_ns), median(&new_ns))
            else {
                continue;
            };
            comparison.lines.push(Line {
                workload: workload.clone(),
                subject: algorithm.name.clone(),
                reference: algorithm.name.clone(),
                reference_ns,
                subject_ns,
                judgement,
            });
        }
    }
    let judged: Vec<(String, String)> = comparison
        .lines
        .iter()
        .map(|l| (l.subject.clone(), l.workload.clone()))
        .collect();
    let mut unpaired: Vec<String> = base_medians
        .iter()
        .chain(&new_medians)
        .flat_map(|m| m.keys())
        .filter(|key| !judged.contains(key))
        .map(|(algorithm, workload)| format!("{algorithm} on {workload}"))
        .collect();
    unpaired.sort();
    unpaired.dedup();
    comparison.unpaired = unpaired;
    if comparison.lines.is_empty() {
        bail!(
            "no cell (algorithm on workload) was measured by every run given; BASE's first run \
             ran workloads {}",
            facts.workloads.join(", ")
        );
    }
    Ok(comparison)
}

/// The notes and warnings on how BASE's first run and NEW's were made.
fn describe_builds(b: &Metadata, n: &Metadata, comparison: &mut Comparison) {
    // A field the metadata lacks reads as empty (or 0 cores): unknown.
    let show = |value: &String| {
        if value.is_empty() {
            "unknown".to_owned()
        } else {
            value.clone()
        }
    };
    let cores = |cores: u64| {
        if cores == 0 {
            "?".to_owned()
        } else {
            cores.to_string()
        }
    };
    if b.git_commit != n.git_commit {
        comparison.notes.push(format!(
            "BASE is commit {}, NEW is commit {}",
            show(&b.git_commit),
            show(&n.git_commit)
        ));
    }
    if (&b.cpu_model, b.cores) != (&n.cpu_model, n.cores) {
        comparison.warnings.push(format!(
            "different machines: BASE ran on {} ({} cores), NEW on {} ({} cores)",
            show(&b.cpu_model),
            cores(b.cores),
            show(&n.cpu_model),
            cores(n.cores)
        ));
    }
    for (what, x, y) in [
        ("compilers", &b.rustc, &n.rustc),
        ("build profiles", &b.build_profile, &n.build_profile),
    ] {
        if x != y {
            comparison.warnings.push(format!(
                "different {what}: BASE {}, NEW {}",
                show(x),
                show(y)
            ));
        }
    }
}

/// Warns when run `index` of a side was built with uncommitted changes or
/// lost time to other guests.
fn warn_of_the_host(
    side: &str,
    index: usize,
    count: usize,
    facts: &Metadata,
    comparison: &mut Comparison,
) {
    let name = if count == 1 {
        side.to_owned()
    } else {
        format!("{side} run {}", index + 1)
    };
    if facts.git_dirty {
        comparison.warnings.push(format!(
            "{name} was built with uncommitted changes to commit {}",
            facts.git_commit
        ));
    }
    if let Some(steal) = facts.steal_seconds
        && steal > STEAL_WARNING_SECONDS
    {
        comparison.warnings.push(format!(
            "{name} lost {steal:.1} s to other guests on the host (steal time): its times may be inflated"
        ));
    }
}

/// Splits a command-line list of results directories on commas.
pub fn directories(list: &str) -> Vec<PathBuf> {
    list.split(',')
        .filter(|part| !part.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// The runs' directories as one argument, for messages.
pub fn show(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether `path` names one directory (for `--save`).
pub fn single(paths: &[PathBuf]) -> Option<&Path> {
    match paths {
        [one] => Some(one),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, Cell};
    use crate::judge::Verdict;

    /// A temporary directory removed when dropped.
    struct Temp(PathBuf);

    impl Temp {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!(
                "timerbench-judge-runs-{name}-{}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            Self(dir)
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A run of two cells whose whole passes take `fast` and `slow` ns.
    fn run(dir: &Path, id: &str, fast: f64, slow: f64) {
        let cell = |algorithm, ns: f64| Cell {
            algorithm,
            workload: "w",
            ns: vec![ns; 6],
        };
        fixture::Run {
            run_id: id,
            ..fixture::Run::of(vec![cell("a", fast), cell("b", slow)])
        }
        .write(dir);
    }

    #[test]
    fn one_run_a_side_gives_figures_and_no_verdict() {
        let temp = Temp::new("one");
        let (base, new) = (temp.0.join("base"), temp.0.join("new"));
        run(&base, "r1", 10.0, 20.0);
        run(&new, "r2", 5.0, 20.0);
        let one = std::slice::from_ref;
        let c = compare_runs(one(&base), one(&new)).unwrap();
        assert_eq!(c.pairs, 1);
        assert!(
            c.lines
                .iter()
                .all(|l| l.judgement.verdict == Verdict::CannotTell)
        );
        assert_eq!(c.lines[0].judgement.ratio, 0.5);
        let error = compare_runs(one(&base), one(&base))
            .unwrap_err()
            .to_string();
        assert!(error.contains("same run"), "{error}");
        let error = compare_runs(&[base.clone(), new.clone()], &[base])
            .unwrap_err()
            .to_string();
        assert!(error.contains("as many"), "{error}");
    }

    #[test]
    fn six_pairs_of_runs_give_a_verdict_with_the_spread_between_runs() {
        let temp = Temp::new("six");
        let (mut base, mut new) = (Vec::new(), Vec::new());
        // The host's speed differs from run to run by up to 30%; `a` is 20%
        // faster in NEW in every pair, `b` the same.
        for (index, host) in [1.0, 1.3, 0.9, 1.1, 1.2, 1.0].into_iter().enumerate() {
            let (b, n) = (
                temp.0.join(format!("base-{index}")),
                temp.0.join(format!("new-{index}")),
            );
            run(&b, &format!("b{index}"), 10.0 * host, 20.0 * host);
            run(&n, &format!("n{index}"), 8.0 * host, 20.0 * host * 1.01);
            base.push(b);
            new.push(n);
        }
        let c = compare_runs(&base, &new).unwrap();
        let verdicts: Vec<Verdict> = c.lines.iter().map(|l| l.judgement.verdict).collect();
        assert_eq!(verdicts, vec![Verdict::Faster, Verdict::NoChange]);
        assert_eq!(directories("x,y,,z").len(), 3);
    }

    #[test]
    fn runs_of_other_seeds_are_refused() {
        let temp = Temp::new("seed");
        let (base, new) = (temp.0.join("base"), temp.0.join("new"));
        run(&base, "r1", 10.0, 20.0);
        fixture::Run {
            seed: 8,
            run_id: "r2",
            ..fixture::Run::of(vec![Cell {
                algorithm: "a",
                workload: "w",
                ns: vec![1.0; 6],
            }])
        }
        .write(&new);
        let error = compare_runs(&[base], &[new]).unwrap_err().to_string();
        assert!(error.contains("seed 7 against 8"), "{error}");
    }
}
