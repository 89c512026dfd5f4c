//! The terminal summary of `timerbench run`, kept within [`SUMMARY_WIDTH`]
//! columns however many algorithms a run has.
//!
//! The full algorithm × workload table has one column per algorithm (23 in a
//! default run, about 450 characters a line), so the terminal gets what a
//! reader looks for first: per workload the fastest, what ties with it, and
//! the best crate (driven through its own API) and the best baseline with
//! their median over the fastest's. Every cell stays in `throughput.csv` and
//! the report. Lists that grow with the number of algorithms or workloads
//! (ties, empty slot visits, the replay loop's cost, the memory probe) are
//! wrapped by [`wrap`].

use algorithms::Family;
use algorithms::registry::AlgorithmInfo;

use crate::output::Headline;

/// The widest line the summary prints.
pub const SUMMARY_WIDTH: usize = 120;

/// `items` after `lead`, separated by `separator`, in lines of at most
/// `width` characters; a line that breaks ends with the separator's visible
/// part (the comma of ", "), and lines after the first start with as many
/// spaces as `lead` is long. An item longer than a line gets a line of its own.
pub fn wrap(lead: &str, items: &[String], separator: &str, width: usize) -> Vec<String> {
    let indent = " ".repeat(lead.chars().count());
    let tail = separator.trim_end();
    let mut lines = Vec::new();
    let mut line = lead.to_owned();
    let mut first_on_line = true;
    for item in items {
        // Room is kept for the separator's tail, should the line break after
        // this item.
        let needed = separator.len() + item.chars().count() + tail.len();
        if !first_on_line && line.chars().count() + needed > width {
            line.push_str(tail);
            lines.push(std::mem::replace(&mut line, indent.clone()));
            first_on_line = true;
        }
        if !first_on_line {
            line.push_str(separator);
        }
        line.push_str(item);
        first_on_line = false;
    }
    lines.push(line);
    lines
}

/// One workload's line of the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadLine {
    /// The workload.
    pub workload: String,
    /// The fastest cell's algorithm and median (`None`: nothing measured).
    pub fastest: Option<(String, f64)>,
    /// The other algorithms whose interval overlaps the fastest's.
    pub tied: Vec<String>,
    /// The fastest native crate row, with its median over the fastest's.
    pub best_crate: Option<(String, f64)>,
    /// The fastest baseline, with its median over the fastest's.
    pub best_baseline: Option<(String, f64)>,
}

/// The summary line of one workload from its measured cells, given each
/// algorithm's registry entry.
pub fn workload_line(
    workload: &str,
    cells: &[&Headline],
    catalog: &[AlgorithmInfo],
) -> WorkloadLine {
    // A sweep's variants are points of a design, shown by the report's
    // parameter sweeps; the summary names designs.
    let cells: Vec<&Headline> = cells
        .iter()
        .copied()
        .filter(|cell| {
            !catalog
                .iter()
                .any(|info| info.name == cell.algorithm && info.variant)
        })
        .collect();
    let fastest = cells
        .iter()
        .min_by(|a, b| a.summary.median.total_cmp(&b.summary.median));
    let best_of = |admits: &dyn Fn(&AlgorithmInfo) -> bool| {
        let (fastest, best) = (
            fastest?,
            cells
                .iter()
                .filter(|cell| {
                    catalog
                        .iter()
                        .any(|info| info.name == cell.algorithm && admits(info))
                })
                .min_by(|a, b| a.summary.median.total_cmp(&b.summary.median))?,
        );
        Some((
            best.algorithm.clone(),
            best.summary.median / fastest.summary.median,
        ))
    };
    // An inexact algorithm buys its speed with lateness: its name says so
    // wherever it is named as fast, as the report's legends do.
    let shown = |name: &str| {
        let inexact = catalog.iter().any(|info| info.name == name && !info.exact);
        if inexact {
            format!("{name} (inexact)")
        } else {
            name.to_owned()
        }
    };
    WorkloadLine {
        workload: workload.to_owned(),
        fastest: fastest.map(|cell| (shown(&cell.algorithm), cell.summary.median)),
        tied: cells
            .iter()
            .filter(|cell| cell.tied_with_best)
            .filter(|cell| fastest.is_some_and(|f| f.algorithm != cell.algorithm))
            .map(|cell| shown(&cell.algorithm))
            .collect(),
        best_crate: best_of(&|info| info.family == Family::Crate && info.native_of.is_some()),
        best_baseline: best_of(&|info| info.family == Family::Baseline),
    }
}

/// The table of [`WorkloadLine`]s: a header and a line per workload, columns
/// as wide as their widest entry.
pub fn workload_table(lines: &[WorkloadLine]) -> Vec<String> {
    let named = |entry: &Option<(String, f64)>, ratio: bool| match entry {
        Some((name, value)) if ratio => format!("{name} {value:.2}x"),
        Some((name, value)) => format!("{name} {value:.1}"),
        None => "-".to_owned(),
    };
    let rows: Vec<[String; 5]> = lines
        .iter()
        .map(|line| {
            [
                line.workload.clone(),
                named(&line.fastest, false),
                if line.tied.is_empty() {
                    "-".to_owned()
                } else {
                    format!("{} tied", line.tied.len())
                },
                named(&line.best_crate, true),
                named(&line.best_baseline, true),
            ]
        })
        .collect();
    let header = [
        "workload",
        "fastest, ns",
        "ties",
        "best crate (native)",
        "best baseline",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let format_row = |cells: [&str; 5]| {
        let mut line = String::new();
        for (index, (cell, width)) in cells.iter().zip(widths).enumerate() {
            if index > 0 {
                line.push_str("  ");
            }
            line.push_str(&format!("{cell:<width$}"));
        }
        line.trim_end().to_owned()
    };
    let mut table = vec![format_row(header)];
    for row in &rows {
        table.push(format_row([&row[0], &row[1], &row[2], &row[3], &row[4]]));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn wrapped_lines_keep_to_the_width_and_indent_under_the_lead() {
        let items = strings(&["alpha 1", "beta 22", "gamma 333", "delta 4444"]);
        let lines = wrap("lead: ", &items, ", ", 24);
        assert_eq!(
            lines,
            [
                "lead: alpha 1, beta 22,",
                "      gamma 333,",
                "      delta 4444"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 24), "{lines:?}");
        // Nothing to wrap, and an item wider than the line.
        assert_eq!(wrap("x: ", &[], ", ", 10), ["x: "]);
        let long = strings(&["a", "much-longer-than-the-line"]);
        assert_eq!(wrap("", &long, " ", 10), ["a", "much-longer-than-the-line"]);
    }

    fn info(name: &'static str, family: Family, native_of: Option<&'static str>) -> AlgorithmInfo {
        AlgorithmInfo {
            name,
            summary: "",
            family,
            exact: true,
            counts_work: true,
            params: String::new(),
            native_of,
            source: String::new(),
            tunables: &[],
            sweep: None,
            variant: false,
        }
    }

    fn headline(algorithm: &str, median: f64, tied_with_best: bool) -> Headline {
        Headline {
            algorithm: algorithm.to_owned(),
            workload: "w".to_owned(),
            summary: crate::stats::Summary {
                n: 5,
                median,
                ci_low: median - 1.0,
                ci_high: median + 1.0,
                ci_level: 0.95,
                min: median - 1.0,
                max: median + 1.0,
            },
            tied_with_best,
        }
    }

    #[test]
    fn a_workload_line_names_the_fastest_its_ties_and_the_best_crate_and_baseline() {
        let catalog = [
            info("wheel", Family::Modern, None),
            info("heap", Family::Seed, None),
            info("adapter", Family::Crate, None),
            info("adapter-native", Family::Crate, Some("adapter")),
            info("std-heap", Family::Baseline, None),
        ];
        let cells = [
            headline("heap", 11.0, true),
            headline("wheel", 10.0, true),
            headline("adapter", 15.0, false),
            headline("adapter-native", 20.0, false),
            headline("std-heap", 40.0, false),
        ];
        let refs: Vec<&Headline> = cells.iter().collect();
        let line = workload_line("w", &refs, &catalog);
        assert_eq!(
            line,
            WorkloadLine {
                workload: "w".to_owned(),
                fastest: Some(("wheel".to_owned(), 10.0)),
                tied: vec!["heap".to_owned()],
                // The adapter is faster, but a crate is its native row.
                best_crate: Some(("adapter-native".to_owned(), 2.0)),
                best_baseline: Some(("std-heap".to_owned(), 4.0)),
            }
        );
        let table = workload_table(&[line, workload_line("empty", &[], &catalog)]);
        assert_eq!(
            table,
            [
                "workload  fastest, ns  ties    best crate (native)   best baseline",
                "w         wheel 10.0   1 tied  adapter-native 2.00x  std-heap 4.00x",
                "empty     -            -       -                     -",
            ]
        );
    }

    #[test]
    fn an_inexact_algorithm_is_named_so_where_it_is_fast() {
        let mut coarse = info("coarse", Family::Seed, None);
        coarse.exact = false;
        let catalog = [coarse, info("heap", Family::Seed, None)];
        let cells = [headline("heap", 11.0, true), headline("coarse", 10.0, true)];
        let refs: Vec<&Headline> = cells.iter().collect();
        let line = workload_line("w", &refs, &catalog);
        assert_eq!(line.fastest, Some(("coarse (inexact)".to_owned(), 10.0)));
        assert_eq!(line.tied, ["heap"]);
        let cells = [headline("heap", 9.0, true), headline("coarse", 10.0, true)];
        let refs: Vec<&Headline> = cells.iter().collect();
        assert_eq!(
            workload_line("w", &refs, &catalog).tied,
            ["coarse (inexact)"]
        );
    }
}
