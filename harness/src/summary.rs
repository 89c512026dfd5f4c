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
//! wrapped by [`wrap`] (from `wrap.rs`, which the error messages share).
//!
//! The `print_` functions print what `timerbench run` says at its end, in
//! order: the summary table and ties ([`write_summary`]), what the contract
//! costs each native row ([`write_contract_cost`]), the replay loop's own
//! cost ([`write_overhead`]), the memory probe ([`write_memory_latency`]) and
//! the files written ([`write_swapped`], which `timerbench counts` prints
//! too).

use std::fmt::Write as _;

use algorithms::Family;
use algorithms::registry::{self, AlgorithmInfo};

use crate::memory::MemoryLatency;
use crate::metadata::ReplayOverhead;
use crate::output::{Headline, Rows};
use crate::select::Selection;
use crate::swap::Swapped;
pub use crate::wrap::wrap;

/// The widest line the summary prints: a terminal's, as everything else.
pub const SUMMARY_WIDTH: usize = crate::wrap::TERMINAL_WIDTH;

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

/// Writes the memory probe: what one cache miss costs at each buffer size, the
/// floor under a cancel once a queue outgrows the caches.
pub fn write_memory_latency(out: &mut String, memory: &[MemoryLatency]) {
    out.push('\n');
    let items: Vec<String> = memory
        .iter()
        .map(|probe| format!("{} KiB {:.1}", probe.bytes >> 10, probe.ns_per_load))
        .collect();
    write_wrapped(
        out,
        "Dependent random load, ns (the cost of a miss; not subtracted): ",
        &items,
    );
}

/// Writes `items` after `lead`, wrapped to the summary's width.
pub fn write_wrapped(out: &mut String, lead: &str, items: &[String]) {
    for line in wrap(lead, items, ", ", SUMMARY_WIDTH) {
        let _ = writeln!(out, "{line}");
    }
}

/// Writes the replay loop's own cost per workload.
pub fn write_overhead(out: &mut String, overheads: &[ReplayOverhead]) {
    out.push('\n');
    let _ = writeln!(
        out,
        "Replay loop's own cost, ns per operation (in every figure above; not subtracted):"
    );
    let items: Vec<String> = overheads
        .iter()
        .map(|overhead| format!("{} {:.1}", overhead.workload, overhead.ns_per_op))
        .collect();
    write_wrapped(out, "  ", &items);
}

/// Writes, within [`SUMMARY_WIDTH`] columns, per workload the
/// fastest algorithm's all-in median (ns per insert, cancel or reschedule,
/// advances included, whole passes), the algorithms tied with it, and the best
/// crate and baseline with their ratio to it; then the empty slot visits of
/// the algorithms that have any. Every cell is in the files and the report.
pub fn write_summary(out: &mut String, rows: &Rows, selection: &Selection, repeat: u32) {
    let catalog = registry::catalog();
    let headlines: Vec<Headline> = rows.headlines().collect();
    out.push('\n');
    let _ = writeln!(
        out,
        "All-in median of {repeat} whole passes, ns per insert, cancel or reschedule (advances included).\n\
         Per workload: the fastest; how many tie with it (median intervals overlap); the best crate (driven through\n\
         its own API) and the best baseline, as their median over the fastest's. Every cell: throughput.csv, the report.\n"
    );
    let few = headlines.iter().filter(|h| !h.summary.judged()).count();
    if few > 0 {
        let _ = writeln!(
            out,
            "{few} of {} cells had fewer than {} whole passes: their medians stand without an interval,\n\
             and they tie with nothing and are told from nothing (too few passes give no verdict).\n",
            headlines.len(),
            schema::MIN_REPETITIONS
        );
    }
    let mut lines = Vec::new();
    for source in &selection.workloads {
        let workload = source.name();
        let cells: Vec<&Headline> = headlines
            .iter()
            .filter(|h| h.workload == workload)
            .collect();
        lines.push(workload_line(workload, &cells, &catalog));
    }
    for line in workload_table(&lines) {
        let _ = writeln!(out, "{line}");
    }
    let ties: Vec<&WorkloadLine> = lines.iter().filter(|l| !l.tied.is_empty()).collect();
    if !ties.is_empty() {
        out.push('\n');
        let _ = writeln!(
            out,
            "Tied with the fastest (a tie is a tie: no winner is named between them):"
        );
        for line in ties {
            write_wrapped(out, &format!("  {}: ", line.workload), &line.tied);
        }
    }
    let shown = if selection.algorithms.len() <= ROWS_SHOWN_IN_FULL {
        "every row asked for".to_owned()
    } else {
        format!(
            "the fastest {FASTEST_SHOWN} of {} rows",
            selection.algorithms.len()
        )
    };
    out.push('\n');
    let _ = writeln!(
        out,
        "Per workload, {shown}, ns per operation (fastest first; = tied with the fastest):"
    );
    for source in &selection.workloads {
        let workload = source.name();
        let mut cells: Vec<&Headline> = headlines
            .iter()
            .filter(|h| h.workload == workload)
            .collect();
        cells.sort_by(|a, b| a.summary.median.total_cmp(&b.summary.median));
        let limit = if selection.algorithms.len() <= ROWS_SHOWN_IN_FULL {
            cells.len()
        } else {
            FASTEST_SHOWN
        };
        let items = row_items(&cells[..limit.min(cells.len())]);
        if !items.is_empty() {
            write_wrapped(out, &format!("  {workload}: "), &items);
        }
    }
    let mut visits = Vec::new();
    for source in &selection.workloads {
        let workload = source.name();
        let items: Vec<String> = selection
            .algorithms
            .iter()
            .filter_map(|name| {
                rows.run_summaries()
                    .find(|(a, w, _, _)| a == name && *w == workload)
                    .and_then(|(_, _, status, visits)| match (status, visits) {
                        ("ok", Some(n)) if n > 0 => Some(format!("{name} {n}")),
                        _ => None,
                    })
            })
            .collect();
        if !items.is_empty() {
            visits.push((workload, items));
        }
    }
    // The heading only when something stands under it.
    if !visits.is_empty() {
        out.push('\n');
        let _ = writeln!(
            out,
            "Empty slot visits (empty ticks) in the measured phase, where any:"
        );
        for (workload, items) in visits {
            write_wrapped(out, &format!("  {workload}: "), &items);
        }
    }
}

/// A run of at most this many rows has each of them in the summary, per
/// workload; a larger one has its [`FASTEST_SHOWN`] fastest.
pub const ROWS_SHOWN_IN_FULL: usize = 8;
/// How many rows per workload the summary names when a run has more than
/// [`ROWS_SHOWN_IN_FULL`].
pub const FASTEST_SHOWN: usize = 5;

/// Each cell, fastest first, as `name median`, with `=` after the others
/// tied with the fastest.
pub fn row_items(cells: &[&Headline]) -> Vec<String> {
    cells
        .iter()
        .enumerate()
        .map(|(index, cell)| {
            format!(
                "{} {}{}",
                cell.algorithm,
                crate::headline::ns(cell.summary.median),
                if index > 0 && cell.tied_with_best {
                    " ="
                } else {
                    ""
                }
            )
        })
        .collect()
}

/// What a write did: each file written, and each stale file removed.
pub fn write_swapped(out: &mut String, swapped: &Swapped) {
    for path in &swapped.written {
        let _ = writeln!(out, "wrote {}", path.display());
    }
    for path in &swapped.removed {
        let _ = writeln!(
            out,
            "removed {}: it described the previous run",
            path.display()
        );
    }
}

/// What the contract costs each native row's structure, one line per pair.
pub fn write_contract_cost(out: &mut String, rows: &Rows) {
    let costs = rows.contract_costs();
    if costs.is_empty() {
        return;
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "What the contract costs: the contract row's median over the native row's (same structure, its own API),\n\
         [95% interval]; = when the medians' intervals overlap:"
    );
    for cost in costs {
        let interval = cost
            .ratio_ci_low
            .zip(cost.ratio_ci_high)
            .map_or_else(String::new, |(low, high)| format!(" [{low:.2}, {high:.2}]"));
        let _ = writeln!(
            out,
            "  {:<12} {:<26} {:>6.1} ns over {:<24} {:>6.1} ns: {:.2}x{interval}{}",
            cost.workload,
            cost.contract,
            cost.contract_ns,
            cost.native,
            cost.native_ns,
            cost.ratio,
            if cost.tied == Some(true) { " =" } else { "" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn every_row_is_named_with_its_median_and_the_ties_after_the_fastest() {
        let (a, b, c) = (
            headline("a", 7.3, true),
            headline("b", 7.5, true),
            headline("c", 131.0, false),
        );
        assert_eq!(row_items(&[&a, &b, &c]), ["a 7.30", "b 7.50 =", "c 131"]);
        assert!(row_items(&[]).is_empty());
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
