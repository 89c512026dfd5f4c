//! The numbers behind the summary tables: per workload, the all-in median ns
//! per operation of every algorithm with its interval, the best, each one's
//! cost relative to the best (with the harness's bootstrap interval), which
//! cells are statistically tied with the best, and the verdict (a winner only
//! when nothing ties with it; the best `crate` algorithm and the best
//! `baseline`, each with the members of its family it ties with).
//!
//! The report computes no statistics of its own beyond comparing intervals:
//! the medians, intervals, ratios and `tied_with_best` come from the harness
//! (`results/README.md`). Pure functions over plain values, so the HTML and
//! Markdown writers share them and the tests need no files.

use crate::model::Model;

/// The throughput operation the summary ranks by: all time over all timer
/// operations, expiry included, timed as a whole pass (`results/README.md`).
pub const SUMMARY_OPERATION: &str = "all";

/// The family of third-party crate adapters.
pub const CRATE_FAMILY: &str = "crate";
/// The family shown for a crate's adapter when the crate's native row ran
/// beside it (see [`workload_verdict`]).
pub const ADAPTER_FAMILY: &str = "crate adapter";
/// The family of standard-library baselines.
pub const BASELINE_FAMILY: &str = "baseline";

/// A measured cell: the median, its interval, and how it compares with the
/// workload's best.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Median ns per operation.
    pub ns: f64,
    /// The interval of the median.
    pub ci_low: f64,
    /// The interval of the median.
    pub ci_high: f64,
    /// Whether its interval overlaps the best's.
    pub tied: bool,
    /// The bootstrap interval of its ratio to the best, when the harness gave one.
    pub ratio_ci: Option<(f64, f64)>,
}

impl Figure {
    /// A figure with a point interval and no comparison (for tests).
    pub fn point(ns: f64) -> Self {
        Self {
            ns,
            ci_low: ns,
            ci_high: ns,
            tied: false,
            ratio_ci: None,
        }
    }

    /// Whether this interval and `other`'s share a point.
    pub fn overlaps(&self, other: &Figure) -> bool {
        self.ci_low <= other.ci_high && other.ci_low <= self.ci_high
    }
}

/// One algorithm's cell in the summary: its figure, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// Measured.
    Measured(Figure),
    /// Skipped by the algorithm's pending limit.
    Skipped,
    /// Not run on this workload (or no row).
    Missing,
}

impl Cell {
    /// The measured median, if any.
    pub fn value(&self) -> Option<f64> {
        self.figure().map(|f| f.ns)
    }

    /// The measured figure, if any.
    pub fn figure(&self) -> Option<&Figure> {
        match self {
            Self::Measured(figure) => Some(figure),
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
    /// Its figure.
    pub figure: Figure,
}

impl Standing {
    /// Median ns per operation.
    pub fn ns(&self) -> f64 {
        self.figure.ns
    }
}

/// The best of a family, and the others of the family it cannot be told from.
#[derive(Clone, Debug, PartialEq)]
pub struct FamilyBest {
    /// The family's lowest median.
    pub best: Standing,
    /// Members of the family whose interval overlaps the best's.
    pub tied: Vec<Standing>,
}

/// Who wins a workload, and by how much.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The lowest median.
    pub best: Standing,
    /// Every other algorithm statistically tied with it (`tied_with_best`); a
    /// winner is named only when this is empty.
    pub tied: Vec<Standing>,
    /// The second lowest median, if two were measured.
    pub runner_up: Option<Standing>,
    /// The best of the `crate` family, if any was measured.
    pub best_crate: Option<FamilyBest>,
    /// The best of the `baseline` family, if any was measured.
    pub best_baseline: Option<FamilyBest>,
}

impl Verdict {
    /// Whether one algorithm wins outright.
    pub fn has_winner(&self) -> bool {
        self.tied.is_empty()
    }
}

/// The headline cell of one row (`algorithm`, a design or a variant) on
/// `workload`: the whole pass's median ns per operation with its interval,
/// and the harness's comparison with the best.
pub fn cell(model: &Model, algorithm: &str, workload: &str) -> Cell {
    if model.skipped(algorithm, workload) {
        return Cell::Skipped;
    }
    let Some(row) = model.throughput_row(algorithm, workload, SUMMARY_OPERATION) else {
        return Cell::Missing;
    };
    let Some(ns) = row.median_ns else {
        return Cell::Missing;
    };
    // Below the minimum of repetitions a cell is its median alone: no
    // interval, no tie (the schema's accessors say so whatever the file
    // claims).
    let (ci_low, ci_high) = row.interval().unwrap_or((ns, ns));
    Cell::Measured(Figure {
        ns,
        ci_low,
        ci_high,
        tied: row.tie().unwrap_or(false),
        ratio_ci: row.ratio_interval(),
    })
}

/// What the summary tables say of the cells below the minimum of
/// repetitions, which show a median alone: how many, which, and why. `None`
/// when every measured cell has enough.
pub fn unjudged_note(model: &Model) -> Option<String> {
    let mut few: Vec<String> = Vec::new();
    let mut measured = 0;
    for workload in &model.workloads {
        for algorithm in &model.algorithms {
            let Some(row) = model.throughput_row(&algorithm.name, workload, SUMMARY_OPERATION)
            else {
                continue;
            };
            if row.median_ns.is_none() {
                continue;
            }
            measured += 1;
            if !row.judged() {
                few.push(format!("{} on {workload}", algorithm.name));
            }
        }
    }
    if few.is_empty() {
        return None;
    }
    const NAMED: usize = 12;
    let named = few
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = few.len().saturating_sub(NAMED);
    Some(format!(
        "{} of {measured} cells had fewer than {} repetitions (a heavy cell, hundreds of times \
         slower than the best, runs 3): each shows its median alone, with no interval, and is \
         marked neither tied nor apart, since so few passes give no verdict either way: {named}{}.",
        few.len(),
        schema::MIN_REPETITIONS,
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// How far above 1 the best design's `ratio_to_best` may be before the
/// harness's best is taken to be another row (the ratio is the median over
/// the smallest median, so the best's own is 1 up to rounding).
const RATIO_OF_THE_BEST_SLACK: f64 = 1e-9;

/// The summary cell of every algorithm (in display order) on `workload`.
pub fn cells(model: &Model, workload: &str) -> Vec<Cell> {
    let mut cells: Vec<Cell> = model
        .algorithms
        .iter()
        .map(|a| cell(model, &a.name, workload))
        .collect();
    // The harness compares each cell with the best of every row it ran. When
    // that best is a variant (the best design's ratio to it is above 1), its
    // ties and ratio intervals are against a row the summary does not show:
    // the ties are taken again against the best design.
    let best_design = model
        .algorithms
        .iter()
        .zip(&cells)
        .filter_map(|(a, c)| c.value().map(|ns| (a, ns)))
        .min_by(|x, y| x.1.total_cmp(&y.1))
        .map(|(a, _)| a);
    let ratio = best_design
        .and_then(|a| model.throughput_row(&a.name, workload, SUMMARY_OPERATION))
        .and_then(|row| row.ratio_to_best);
    if ratio.is_some_and(|r| r > 1.0 + RATIO_OF_THE_BEST_SLACK) {
        rebase_ties(&mut cells);
    }
    cells
}

/// Takes the ties of `cells` again against their own best, by the
/// harness's rule (a cell ties with the best when their median intervals
/// overlap; the best ties with itself), and drops the ratio intervals, which
/// were the harness's bootstrap against another best and cannot be redone
/// from the medians.
pub fn rebase_ties(cells: &mut [Cell]) {
    let Some(best) = cells
        .iter()
        .filter_map(Cell::figure)
        .min_by(|a, b| a.ns.total_cmp(&b.ns))
        .cloned()
    else {
        return;
    };
    for cell in cells {
        if let Cell::Measured(figure) = cell {
            figure.tied = figure.overlaps(&best);
            figure.ratio_ci = None;
        }
    }
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
            cell.figure().map(|figure| Standing {
                name: (*name).to_owned(),
                family: (*family).to_owned(),
                figure: figure.clone(),
            })
        })
        .collect();
    measured.sort_by(|a, b| a.ns().total_cmp(&b.ns()).then_with(|| a.name.cmp(&b.name)));
    let best = measured.first()?.clone();
    let best_of = |family: &str| {
        let members: Vec<&Standing> = measured.iter().filter(|s| s.family == family).collect();
        let (first, rest) = members.split_first()?;
        Some(FamilyBest {
            best: (*first).clone(),
            tied: rest
                .iter()
                .filter(|s| s.figure.overlaps(&first.figure))
                .map(|s| (*s).clone())
                .collect(),
        })
    };
    Some(Verdict {
        tied: measured[1..]
            .iter()
            .filter(|s| s.figure.tied)
            .cloned()
            .collect(),
        best_crate: best_of(CRATE_FAMILY),
        best_baseline: best_of(BASELINE_FAMILY),
        runner_up: measured.get(1).cloned(),
        best,
    })
}

/// The verdict on `workload` in `model`.
pub fn workload_verdict(model: &Model, workload: &str) -> Option<Verdict> {
    let cells = cells(model, workload);
    // A crate measured through its own API on this workload stands for the
    // crate: its adapter (the contract row) leaves the `crate` family's
    // contest, so the best crate is the crate's own figure, not our glue's.
    let has_native = |name: &str| {
        model
            .results
            .contract_cost
            .iter()
            .any(|c| c.workload == workload && c.contract == name)
    };
    let entries: Vec<(&str, &str, Cell)> = model
        .algorithms
        .iter()
        .zip(cells)
        .map(|(a, c)| {
            let family = if a.family == CRATE_FAMILY && has_native(&a.name) {
                ADAPTER_FAMILY
            } else {
                a.family.as_str()
            };
            (a.name.as_str(), family, c)
        })
        .collect();
    verdict(&entries)
}

/// How `other` compares with the best, as a phrase: "2.41x [2.30, 2.52]
/// slower", "1.03x, tied with the best" when their intervals overlap, or "the
/// best" when it is the best.
pub fn ratio_phrase(best: &Standing, other: &Standing) -> String {
    if other.name == best.name {
        return "the best".to_owned();
    }
    let ratio = other.ns() / best.ns();
    let interval = other
        .figure
        .ratio_ci
        .map_or_else(String::new, |(lo, hi)| format!(" [{lo:.2}, {hi:.2}]"));
    if other.figure.tied {
        format!("{ratio:.2}x{interval}, tied with the best")
    } else {
        format!("{ratio:.2}x{interval} slower")
    }
}

/// A median with its interval: "19.0 [18.7, 19.4]".
pub fn format_interval(figure: &Figure) -> String {
    format!(
        "{} [{}, {}]",
        format_ns(figure.ns),
        format_ns(figure.ci_low),
        format_ns(figure.ci_high)
    )
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
            Cell::Measured(Figure::point(30.0)),
            Cell::Missing,
            Cell::Measured(Figure::point(20.0)),
        ];
        assert_eq!(best(&cells), Some(20.0));
        assert_eq!(best(&[Cell::Skipped]), None);
    }

    #[test]
    fn ties_are_taken_again_against_the_best_shown() {
        let mut cells = [
            cell(12.0, 11.0, 13.0, false),
            Cell::Skipped,
            cell(10.0, 9.0, 11.5, false),
            cell(20.0, 19.0, 21.0, true),
        ];
        if let Cell::Measured(f) = &mut cells[3] {
            f.ratio_ci = Some((1.9, 2.1));
        }
        rebase_ties(&mut cells);
        let tied: Vec<Option<bool>> = cells.iter().map(|c| c.figure().map(|f| f.tied)).collect();
        assert_eq!(tied, [Some(true), None, Some(true), Some(false)]);
        assert!(
            cells
                .iter()
                .filter_map(Cell::figure)
                .all(|f| f.ratio_ci.is_none())
        );
        let mut none = [Cell::Missing];
        rebase_ties(&mut none);
        assert_eq!(none, [Cell::Missing]);
    }

    #[test]
    fn below_the_minimum_of_repetitions_a_cell_has_no_interval_and_no_tie() {
        // The fixture is a run of three repetitions.
        let model = crate::fixture_model();
        let figures: Vec<Figure> = model
            .workloads
            .iter()
            .flat_map(|w| cells(&model, w))
            .filter_map(|c| c.figure().cloned())
            .collect();
        assert!(!figures.is_empty());
        assert!(
            figures
                .iter()
                .all(|f| f.ci_low == f.ns && f.ci_high == f.ns)
        );
        assert!(figures.iter().all(|f| !f.tied && f.ratio_ci.is_none()));
        let v = workload_verdict(&model, "timeouts").expect("measured");
        assert!(v.tied.is_empty());
        let note = unjudged_note(&model).expect("a note");
        assert!(
            note.starts_with(&format!(
                "{} of {} cells had fewer than 6",
                figures.len(),
                figures.len()
            )),
            "{note}"
        );
        assert!(unjudged_note(&crate::judged_fixture_model()).is_none());
    }

    #[test]
    fn a_variant_faster_than_every_design_changes_no_verdict() {
        // On `timeouts` the fixture's variant `rounds-wheel@tick=10` is the
        // harness's best, so its flags say nothing ties with binary-heap.
        let model = crate::judged_fixture_sweep_model();
        let v = workload_verdict(&model, "timeouts").expect("measured");
        assert_eq!(v.best.name, "binary-heap");
        let tied: Vec<&str> = v.tied.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(tied, ["netty-wheel", "linux-wheel", "hashed-wheel"]);
        assert!(
            cells(&model, "timeouts")
                .iter()
                .filter_map(Cell::figure)
                .all(|f| f.ratio_ci.is_none()),
            "ratio intervals against the variant are not shown"
        );
        // Where the harness's best is a design, its figures stand.
        let uniform = cells(&model, "uniform");
        assert!(
            uniform
                .iter()
                .filter_map(Cell::figure)
                .all(|f| f.ratio_ci.is_some())
        );
        assert_eq!(
            workload_verdict(&model, "uniform").unwrap().best.name,
            "linux-wheel"
        );
    }

    #[test]
    fn percentages() {
        assert_eq!(percent_of_best(50.0, 20.0), 250.0);
        assert_eq!(percent_of_best(20.0, 20.0), 100.0);
    }

    /// A measured cell with interval `[lo, hi]` around `ns`.
    fn cell(ns: f64, lo: f64, hi: f64, tied: bool) -> Cell {
        Cell::Measured(Figure {
            ns,
            ci_low: lo,
            ci_high: hi,
            tied,
            ratio_ci: None,
        })
    }

    #[test]
    fn verdict_names_winner_runner_up_crate_and_baseline() {
        let entries = [
            ("heap", "seed", cell(40.0, 38.0, 42.0, false)),
            ("wheel", "modern", cell(10.0, 9.5, 10.5, true)),
            ("tokio", "crate", cell(25.0, 24.0, 26.0, false)),
            ("btree", "baseline", cell(80.0, 78.0, 82.0, false)),
            ("list", "seed", Cell::Skipped),
        ];
        let v = verdict(&entries).unwrap();
        assert!(v.has_winner());
        assert_eq!(v.best.name, "wheel");
        assert_eq!(v.runner_up.as_ref().unwrap().name, "tokio");
        assert_eq!(
            ratio_phrase(&v.best, v.runner_up.as_ref().unwrap()),
            "2.50x slower"
        );
        let best_crate = v.best_crate.unwrap();
        assert_eq!(best_crate.best.name, "tokio");
        assert!(best_crate.tied.is_empty());
        assert_eq!(v.best_baseline.unwrap().best.ns(), 80.0);
    }

    #[test]
    fn a_tie_names_no_winner() {
        let entries = [
            ("heap", "seed", cell(10.4, 9.9, 11.0, true)),
            ("wheel", "modern", cell(10.0, 9.5, 10.5, true)),
            ("tokio", "crate", cell(25.0, 24.0, 26.0, false)),
            ("nexus", "crate", cell(25.5, 25.2, 27.0, false)),
        ];
        let v = verdict(&entries).unwrap();
        assert!(!v.has_winner());
        assert_eq!(v.best.name, "wheel");
        assert_eq!(v.tied.len(), 1);
        assert_eq!(v.tied[0].name, "heap");
        assert_eq!(
            ratio_phrase(&v.best, &v.tied[0]),
            "1.04x, tied with the best"
        );
        // Within a family, ties are interval overlaps.
        let crates = v.best_crate.unwrap();
        assert_eq!(crates.best.name, "tokio");
        assert_eq!(crates.tied.len(), 1);
        assert_eq!(crates.tied[0].name, "nexus");
    }

    #[test]
    fn verdict_without_families_or_measurements() {
        let only = [("heap", "seed", Cell::Measured(Figure::point(40.0)))];
        let v = verdict(&only).unwrap();
        assert!(v.runner_up.is_none() && v.best_crate.is_none() && v.best_baseline.is_none());
        assert_eq!(ratio_phrase(&v.best, &v.best), "the best");
        assert!(verdict(&[("list", "seed", Cell::Skipped)]).is_none());
    }

    #[test]
    fn intervals_and_ratio_intervals_format() {
        let mut figure = Figure::point(19.04);
        figure.ci_low = 18.7;
        figure.ci_high = 19.44;
        assert_eq!(format_interval(&figure), "19.0 [18.7, 19.4]");
        figure.ratio_ci = Some((1.3, 1.41));
        let best = Standing {
            name: "a".to_owned(),
            family: "seed".to_owned(),
            figure: Figure::point(10.0),
        };
        let other = Standing {
            name: "b".to_owned(),
            family: "seed".to_owned(),
            figure,
        };
        assert_eq!(ratio_phrase(&best, &other), "1.90x [1.30, 1.41] slower");
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
