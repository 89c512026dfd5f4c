//! The numbers behind the summary tables: per workload, the all-in ns per
//! operation of every algorithm, the best, each one's cost relative to the
//! best, and the verdict (which design wins and by how much against the
//! runner-up, the best `crate` algorithm and the best `baseline`).
//!
//! Pure functions over plain values, so the HTML and Markdown writers share
//! them and the tests need no files.

use crate::model::Model;

/// The throughput operation the summary ranks by: all time over all timer
/// operations, expiry included (`results/README.md`).
pub const SUMMARY_OPERATION: &str = "all";

/// The family of third-party crate adapters.
pub const CRATE_FAMILY: &str = "crate";
/// The family of standard-library baselines.
pub const BASELINE_FAMILY: &str = "baseline";

/// One algorithm's cell in the summary: its mean, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Measured mean ns per operation.
    Measured(f64),
    /// Skipped by the algorithm's pending limit.
    Skipped,
    /// Not run on this workload (or no row).
    Missing,
}

impl Cell {
    /// The measured value, if any.
    pub fn value(&self) -> Option<f64> {
        match self {
            Self::Measured(ns) => Some(*ns),
            Self::Skipped | Self::Missing => None,
        }
    }
}

/// An algorithm's standing on one workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// Algorithm name.
    pub name: String,
    /// Its family.
    pub family: String,
    /// Mean ns per operation.
    pub ns: f64,
}

/// Who wins a workload, and by how much.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The fastest algorithm.
    pub best: Standing,
    /// The second fastest, if two were measured.
    pub runner_up: Option<Standing>,
    /// The fastest of the `crate` family, if any was measured.
    pub best_crate: Option<Standing>,
    /// The fastest of the `baseline` family, if any was measured.
    pub best_baseline: Option<Standing>,
}

/// The summary cell of every algorithm (in display order) on `workload`.
pub fn cells(model: &Model, workload: &str) -> Vec<Cell> {
    model
        .algorithms
        .iter()
        .map(|a| {
            if model.skipped(&a.name, workload) {
                Cell::Skipped
            } else {
                model
                    .mean_ns(&a.name, workload, SUMMARY_OPERATION)
                    .map_or(Cell::Missing, Cell::Measured)
            }
        })
        .collect()
}

/// Per workload (in order), the cells of every algorithm and their best.
pub fn columns(model: &Model) -> Vec<(Vec<Cell>, Option<f64>)> {
    model
        .workloads
        .iter()
        .map(|w| {
            let cells = cells(model, w);
            let best = best(&cells);
            (cells, best)
        })
        .collect()
}

/// The smallest measured value.
pub fn best(cells: &[Cell]) -> Option<f64> {
    cells.iter().filter_map(Cell::value).min_by(f64::total_cmp)
}

/// `value` as a percentage of `best` (100 is the best; 250 is 2.5 times slower).
pub fn percent_of_best(value: f64, best: f64) -> f64 {
    if best > 0.0 {
        value / best * 100.0
    } else {
        f64::INFINITY
    }
}

/// The verdict on one workload from (name, family, cell) triples; `None` when
/// nothing was measured.
pub fn verdict(entries: &[(&str, &str, Cell)]) -> Option<Verdict> {
    let mut measured: Vec<Standing> = entries
        .iter()
        .filter_map(|(name, family, cell)| {
            cell.value().map(|ns| Standing {
                name: (*name).to_owned(),
                family: (*family).to_owned(),
                ns,
            })
        })
        .collect();
    measured.sort_by(|a, b| a.ns.total_cmp(&b.ns).then_with(|| a.name.cmp(&b.name)));
    let best_of = |family: &str| measured.iter().find(|s| s.family == family).cloned();
    Some(Verdict {
        best_crate: best_of(CRATE_FAMILY),
        best_baseline: best_of(BASELINE_FAMILY),
        runner_up: measured.get(1).cloned(),
        best: measured.first()?.clone(),
    })
}

/// The verdict on `workload` in `model`.
pub fn workload_verdict(model: &Model, workload: &str) -> Option<Verdict> {
    let cells = cells(model, workload);
    let entries: Vec<(&str, &str, Cell)> = model
        .algorithms
        .iter()
        .zip(cells)
        .map(|(a, c)| (a.name.as_str(), a.family.as_str(), c))
        .collect();
    verdict(&entries)
}

/// How `other` compares with the winner, as a phrase: "2.41x slower", or
/// "the winner" when it is the winner.
pub fn ratio_phrase(best: &Standing, other: &Standing) -> String {
    if other.name == best.name {
        "the winner".to_owned()
    } else {
        format!("{:.2}x slower", other.ns / best.ns)
    }
}

/// A nanosecond figure with precision that suits its size.
pub fn format_ns(ns: f64) -> String {
    if ns >= 1000.0 {
        format!("{ns:.0}")
    } else if ns >= 10.0 {
        format!("{ns:.1}")
    } else {
        format!("{ns:.2}")
    }
}

/// A count with thousands separators, for the counter tables.
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_ignores_skipped_and_missing() {
        let cells = [
            Cell::Skipped,
            Cell::Measured(30.0),
            Cell::Missing,
            Cell::Measured(20.0),
        ];
        assert_eq!(best(&cells), Some(20.0));
        assert_eq!(best(&[Cell::Skipped]), None);
    }

    #[test]
    fn percentages() {
        assert_eq!(percent_of_best(50.0, 20.0), 250.0);
        assert_eq!(percent_of_best(20.0, 20.0), 100.0);
    }

    #[test]
    fn verdict_names_winner_runner_up_crate_and_baseline() {
        let entries = [
            ("heap", "seed", Cell::Measured(40.0)),
            ("wheel", "modern", Cell::Measured(10.0)),
            ("tokio", "crate", Cell::Measured(25.0)),
            ("btree", "baseline", Cell::Measured(80.0)),
            ("list", "seed", Cell::Skipped),
        ];
        let v = verdict(&entries).unwrap();
        assert_eq!(v.best.name, "wheel");
        assert_eq!(v.runner_up.as_ref().unwrap().name, "tokio");
        assert_eq!(
            ratio_phrase(&v.best, v.runner_up.as_ref().unwrap()),
            "2.50x slower"
        );
        assert_eq!(v.best_crate.unwrap().name, "tokio");
        assert_eq!(v.best_baseline.unwrap().ns, 80.0);
    }

    #[test]
    fn verdict_without_families_or_measurements() {
        let only = [("heap", "seed", Cell::Measured(40.0))];
        let v = verdict(&only).unwrap();
        assert!(v.runner_up.is_none() && v.best_crate.is_none() && v.best_baseline.is_none());
        assert_eq!(ratio_phrase(&v.best, &v.best), "the winner");
        assert!(verdict(&[("list", "seed", Cell::Skipped)]).is_none());
    }

    #[test]
    fn number_formats() {
        assert_eq!(format_ns(1234.56), "1235");
        assert_eq!(format_ns(56.78), "56.8");
        assert_eq!(format_ns(5.678), "5.68");
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(1234567), "1,234,567");
        assert_eq!(format_count(999), "999");
    }
}
