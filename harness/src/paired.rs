//! Two rows of one recorded run, paired by repetition: `timerbench paired
//! RESULTS --base A --new B`.
//!
//! `timerbench lead` and `timerbench compare` bootstrap a ratio of medians
//! over each cell's repetitions as independent draws. On a host whose speed
//! drifts while a run goes on (a shared VM whose neighbours come and go),
//! that drift is in every cell's spread, and the intervals widen with it.
//! But `timerbench run` plays a workload's repetitions as rounds, each round
//! every row's passes once in a seeded order, so the two rows' passes of a
//! repetition on a workload are measured a few passes apart, and the drift
//! that slows one slows the other about as much. Their ratio cancels most
//! of it.
//!
//! For every workload both rows ran, this pairs the two rows' whole passes
//! by repetition and reports each row's median, the median of the paired
//! ratios (NEW's over BASE's) with its distribution-free interval
//! ([`stats::summarise`], as `timerbench ab` does for its rounds), and
//! `ab`'s verdict: **faster** or **slower** only when the whole interval lies
//! on one side of 1, else **tied**. It uses the metadata and the
//! whole-pass rows of `repetitions.csv` (read, with the rest of the run, by
//! the `schema` crate's reader) and measures nothing.
//!
//! What it is for: judging a change to a design on a noisy host, where `ab`
//! (two builds, in separate processes, seconds apart) cannot. Register the
//! changed design as a second row beside the unchanged one, run both in one
//! `timerbench run` with many repetitions, and pair them. Mind what a second
//! row also changes: its code is compiled and placed apart from the first's,
//! so an unchanged copy can differ from the original by a percent or two
//! (`docs/judging-changes.md` gives an A/A check of that, and why to
//! swap which row carries the change). `--swapped` takes the run where the
//! change was on the other row and sets the two orientations side by side
//! ([`both_orientations`]); `make paired` makes both runs and prints that.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, bail};

use crate::ab::{Cell, verdict_table};
use crate::failure::Failure;
use crate::recorded::for_each_whole_pass;

/// Per workload of the run recorded in `dir` (in the run's order) that both
/// `base` and `new` ran, a [`Cell`] of their whole passes paired by
/// repetition: `base[i]` and `new[i]` are the two rows' ns per operation in
/// the same repetition. A repetition that one row lacks is left out.
///
/// # Errors
///
/// When `dir` is not one run's results, when `base` or `new` is not one of
/// its algorithms (the message lists those it ran), when the two are the
/// same row, or when no workload has a repetition of both.
pub fn paired(dir: &Path, base: &str, new: &str) -> Result<Vec<Cell>> {
    let files = schema::RunFiles::read(dir)?;
    let facts = &files.metadata;
    if base == new {
        bail!("--base and --new are both {base:?}: name two different rows of the run");
    }
    for (flag, row) in [("--base", base), ("--new", new)] {
        if !facts.algorithms.iter().any(|a| a.name == row) {
            let names: Vec<&str> = facts.algorithms.iter().map(|a| a.name.as_str()).collect();
            bail!(
                "{flag} {row:?}: {} did not run an algorithm by that name; it ran: {}",
                dir.display(),
                names.join(", ")
            );
        }
    }
    // (workload, repetition) -> (base's ns per operation, new's).
    let mut passes: BTreeMap<(String, u32), (Option<f64>, Option<f64>)> = BTreeMap::new();
    for_each_whole_pass(
        files.repetitions()?,
        |algorithm, workload, repetition, ns| {
            let is_base = algorithm == base;
            if !is_base && algorithm != new {
                return;
            }
            let entry = passes.entry((workload.to_owned(), repetition)).or_default();
            if is_base {
                entry.0 = Some(ns);
            } else {
                entry.1 = Some(ns);
            }
        },
    );
    let mut cells = Vec::new();
    for workload in &facts.workloads {
        let mut cell = Cell {
            workload: workload.clone(),
            algorithm: new.to_owned(),
            base: Vec::new(),
            new: Vec::new(),
        };
        let repetitions = passes.range((workload.clone(), 0)..=(workload.clone(), u32::MAX));
        for (_, &(base_ns, new_ns)) in repetitions {
            if let (Some(base_ns), Some(new_ns)) = (base_ns, new_ns) {
                cell.base.push(base_ns);
                cell.new.push(new_ns);
            }
        }
        if !cell.base.is_empty() {
            cells.push(cell);
        }
    }
    if cells.is_empty() {
        bail!(
            "{} has no workload with a whole pass of both {base} and {new} in the same repetition",
            dir.display()
        );
    }
    Ok(cells)
}

/// How far apart (as a ratio) the two orientations' median ratios may lie
/// before they are said to disagree: where code lies moves a copy of
/// `sweep-wheel` by up to about 1.5% against the original (an A/A check, the
/// README's "Did my change help?"), and the two orientations take that
/// effect with opposite signs, so two readings of one change may lie about
/// 3% apart; 5% leaves room for that and flags what is more.
pub const DISAGREE_FACTOR: f64 = 1.05;

/// What a change's two orientations say together on one workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// Both intervals lie below 1.
    Faster,
    /// Both intervals lie above 1.
    Slower,
    /// The intervals overlap, and at least one holds 1.
    Tied,
    /// The medians differ by more than [`DISAGREE_FACTOR`] and the intervals
    /// do not overlap: the two measured different things (a change that
    /// depends on where the code lies, or a host that slowed one row of one
    /// binary for a while), and neither is the change's effect.
    Disagree,
}

impl Agreement {
    /// The words the table prints.
    pub fn words(self) -> &'static str {
        match self {
            Agreement::Faster => "faster",
            Agreement::Slower => "slower",
            Agreement::Tied => "tied",
            Agreement::Disagree => "disagree: run again",
        }
    }
}

/// One workload's two orientations of a change, each the changed row's time
/// over the unchanged one's.
#[derive(Clone, Debug, PartialEq)]
pub struct Oriented {
    /// The workload.
    pub workload: String,
    /// The change on NEW's row (the first run).
    pub first: crate::stats::Summary,
    /// The change on BASE's row (the second run).
    pub second: crate::stats::Summary,
    /// The geometric mean of the two median ratios: what is left of the
    /// change when a placement's effect falls on the two orientations alike
    /// and in opposite directions.
    pub mean: f64,
    /// What the two say together.
    pub agreement: Agreement,
}

/// Sets the two orientations of a change side by side, per workload that
/// both judged (in `first`'s order): `first`'s cells pair the changed row
/// over the unchanged one in one run, `second`'s the same in a run where the
/// change was on the other row.
pub fn both_orientations(first: &[Cell], second: &[Cell]) -> Vec<Oriented> {
    let mut rows = Vec::new();
    for cell in first {
        let Some(other) = second.iter().find(|other| other.workload == cell.workload) else {
            continue;
        };
        let (Some(one), Some(two)) = (cell.judge(), other.judge()) else {
            continue;
        };
        let (one, two) = (one.ratio, two.ratio);
        let apart = (one.median / two.median).max(two.median / one.median);
        let overlap = one.ci_high >= two.ci_low && two.ci_high >= one.ci_low;
        let agreement = if apart > DISAGREE_FACTOR && !overlap {
            Agreement::Disagree
        } else if one.ci_high < 1.0 && two.ci_high < 1.0 {
            Agreement::Faster
        } else if one.ci_low > 1.0 && two.ci_low > 1.0 {
            Agreement::Slower
        } else {
            Agreement::Tied
        };
        rows.push(Oriented {
            workload: cell.workload.clone(),
            first: one,
            second: two,
            mean: (one.median * two.median).sqrt(),
            agreement,
        });
    }
    rows
}

/// The table of [`both_orientations`].
pub fn orientations_table(rows: &[Oriented]) -> String {
    use std::fmt::Write as _;
    let mut text = format!(
        "{:<18} {:>7}  {:<17} {:>7}  {:<17} {:>9}  verdict\n",
        "workload", "first", "interval", "second", "interval", "geo. mean"
    );
    for row in rows {
        let _ = writeln!(
            text,
            "{:<18} {:>7.3}  [{:.3}, {:.3}]  {:>7.3}  [{:.3}, {:.3}]  {:>9.3}  {}",
            row.workload,
            row.first.median,
            row.first.ci_low,
            row.first.ci_high,
            row.second.median,
            row.second.ci_low,
            row.second.ci_high,
            row.mean,
            row.agreement.words()
        );
    }
    let count = |agreement| rows.iter().filter(|row| row.agreement == agreement).count();
    let _ = writeln!(
        text,
        "{} faster, {} slower, {} tied, {} disagree (faster or slower only when both \
         orientations' intervals lie on that side of 1; disagree when their medians lie more \
         than {:.0}% apart and their intervals do not overlap)",
        count(Agreement::Faster),
        count(Agreement::Slower),
        count(Agreement::Tied),
        count(Agreement::Disagree),
        100.0 * (DISAGREE_FACTOR - 1.0)
    );
    text
}

/// `timerbench paired`: two rows of one run, paired by repetition.
pub fn paired_command(
    results: &Path,
    base: &str,
    new: &str,
    swapped: Option<&Path>,
) -> Result<(), Failure> {
    use std::io::Write as _;
    let table = |results: &Path, base: &str, new: &str| {
        let cells = paired(results, base, new).map_err(Failure::Input)?;
        let text = format!(
            "{new} against {base} in {}, paired by repetition: ns per operation, median over \
             the repetitions; ratio: median of the paired ratios, {new}'s over {base}'s\n{}",
            results.display(),
            verdict_table(&cells, "new")
        );
        Ok::<_, Failure>((cells, text))
    };
    // Written whole and then printed once, as `lead` does.
    let (first, mut text) = table(results, base, new)?;
    if let Some(other) = swapped {
        let (second, second_text) = table(other, new, base)?;
        let rows = both_orientations(&first, &second);
        text += &format!(
            "{second_text}both orientations, each the changed row's time over the unchanged \
             one's: first {new} over {base} in {}, second {base} over {new} in {}\n{}",
            results.display(),
            other.display(),
            orientations_table(&rows)
        );
    }
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ab::Verdict;
    use crate::fixture;
    use std::fs;

    /// A results directory of three rows on two workloads, 9 repetitions
    /// each. On `w`, `base` and `new` both drift with the repetition (as a
    /// host's speed does), `new` always 10% faster than `base` in the same
    /// repetition. On `v`, `base` and a third row, `other`, ran.
    fn tiny_run(dir: &Path) {
        // The host's speed in each repetition: 1x to 3x.
        let drift: Vec<f64> = (0..9u32).map(|r| 1.0 + 0.25 * f64::from(r)).collect();
        let cell = |algorithm, workload, ns: f64| fixture::Cell {
            algorithm,
            workload,
            ns: drift.iter().map(|d| ns * d).collect(),
        };
        fixture::Run::of(vec![
            cell("base", "w", 10.0),
            cell("new", "w", 9.0),
            cell("other", "v", 30.0),
            cell("base", "v", 10.0),
        ])
        .write(dir);
    }

    #[test]
    fn passes_pair_by_repetition_and_the_drift_cancels() {
        let dir = std::env::temp_dir().join(format!("timerbench-paired-{}", std::process::id()));
        tiny_run(&dir);
        let cells = paired(&dir, "base", "new").unwrap();
        // `new` did not run `v`, so only `w` is paired.
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].workload, "w");
        assert_eq!(cells[0].base.len(), 9);
        let judged = cells[0].judge().unwrap();
        // Each cell's own spread is threefold, but every paired ratio is 0.9.
        assert!((judged.ratio.median - 0.9).abs() < 1e-12);
        assert!((judged.ratio.ci_low - 0.9).abs() < 1e-12);
        assert!((judged.ratio.ci_high - 0.9).abs() < 1e-12);
        assert_eq!(judged.verdict, Verdict::Faster);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_row_the_run_lacks_is_named_with_those_it_ran() {
        let dir =
            std::env::temp_dir().join(format!("timerbench-paired-bad-{}", std::process::id()));
        tiny_run(&dir);
        let unknown = paired(&dir, "base", "nobody").unwrap_err().to_string();
        assert!(
            unknown.contains("--new \"nobody\"") && unknown.contains("base, new, other"),
            "{unknown}"
        );
        let same = paired(&dir, "base", "base").unwrap_err().to_string();
        assert!(same.contains("two different rows"), "{same}");
        // `other` ran only `v`, and `new` only `w`: nothing to pair.
        let apart = paired(&dir, "other", "new").unwrap_err().to_string();
        assert!(
            apart.contains("no workload with a whole pass of both"),
            "{apart}"
        );
        assert_eq!(paired(&dir, "base", "other").unwrap()[0].workload, "v");
        fs::remove_dir_all(&dir).unwrap();
    }

    fn cell(workload: &str, ratios: &[f64]) -> Cell {
        Cell {
            workload: workload.to_owned(),
            algorithm: "x".to_owned(),
            base: vec![100.0; ratios.len()],
            new: ratios.iter().map(|ratio| 100.0 * ratio).collect(),
        }
    }

    #[test]
    fn two_orientations_agree_only_when_their_intervals_overlap() {
        let faster = [0.97, 0.98, 0.975, 0.985, 0.98, 0.97, 0.975];
        let tied = [0.99, 1.01, 1.0, 0.995, 1.005, 0.98, 1.02];
        let much_faster = [0.80, 0.81, 0.805, 0.79, 0.80, 0.815, 0.795];
        // Apart without overlap, but by less than DISAGREE_FACTOR: layout.
        let a_little_faster = [0.96, 0.965, 0.962, 0.958, 0.961, 0.963, 0.96];
        let first = [
            cell("a", &faster),
            cell("b", &faster),
            cell("c", &much_faster),
            cell("d", &tied),
            cell("only-first", &faster),
        ];
        let second = [
            cell("c", &tied),
            cell("b", &tied),
            cell("a", &faster),
            cell("d", &a_little_faster),
        ];
        let rows = both_orientations(&first, &second);
        let agreements: Vec<(&str, Agreement)> = rows
            .iter()
            .map(|row| (row.workload.as_str(), row.agreement))
            .collect();
        assert_eq!(
            agreements,
            [
                ("a", Agreement::Faster),
                ("b", Agreement::Tied),
                ("c", Agreement::Disagree),
                ("d", Agreement::Tied),
            ]
        );
        assert!((rows[0].mean - 0.975).abs() < 1e-9, "{}", rows[0].mean);
        let table = orientations_table(&rows);
        assert!(table.contains("disagree: run again"), "{table}");
        assert!(
            table.contains("1 faster, 0 slower, 2 tied, 1 disagree"),
            "{table}"
        );
    }
}
