//! The threaded mode's section (`threaded.csv`, from `timerbench run
//! --threaded`): per workload, each (algorithm, sharing, producer count)
//! with its firing lateness against the wall clock, the timer thread's
//! wakeups and how many fired nothing, its CPU time, and the producers'
//! operation latency.
//!
//! Each figure is the median over the cell's repetitions of that
//! repetition's figure (a percentile of one run's histogram, a rate). A cell
//! that was not run (a crate that is not `Send` cannot sit behind a lock)
//! says why. The file is optional: a run without `--threaded` has none, and
//! the section is then left out. Its rows must name the run the other files
//! name, as every file of a run must.

use std::path::Path;

use crate::input::{InputError, Metadata, ThreadedRow};
use crate::tables::{Row, Table, TableCell};

/// Nanoseconds in a microsecond.
const NANOS_PER_MICRO: f64 = 1e3;

/// `threaded.csv` of the results directory `dir`, checked, and held to the
/// run `metadata` names; empty when the file is absent.
pub fn read(dir: &Path, metadata: &Metadata) -> Result<Vec<ThreadedRow>, InputError> {
    let path = dir.join(schema::THREADED_FILE);
    let rows: Vec<ThreadedRow> = schema::read_optional_csv(&path)?;
    let run_id = metadata.run_id.clone().unwrap_or_default();
    if let Some(other) = rows.iter().find(|row| row.run_id != run_id) {
        return Err(InputError::new(
            &path,
            None,
            format!(
                "comes from run {:?}, and metadata.json from run {run_id:?}: the files come from \
                 different runs; make the results again",
                other.run_id
            ),
        ));
    }
    Ok(rows)
}

/// One (workload, algorithm, sharing, producers) and its repetitions.
struct Group<'a> {
    workload: &'a str,
    algorithm: &'a str,
    sharing: &'a str,
    producers: u32,
    rows: Vec<&'a ThreadedRow>,
}

/// The rows grouped by cell, in the file's order.
fn groups(rows: &[ThreadedRow]) -> Vec<Group<'_>> {
    let mut out: Vec<Group<'_>> = Vec::new();
    for row in rows {
        let same = |g: &Group<'_>| {
            g.workload == row.workload
                && g.algorithm == row.algorithm
                && g.sharing == row.sharing
                && g.producers == row.producers
        };
        match out.iter_mut().find(|g| same(g)) {
            Some(group) => group.rows.push(row),
            None => out.push(Group {
                workload: &row.workload,
                algorithm: &row.algorithm,
                sharing: &row.sharing,
                producers: row.producers,
                rows: vec![row],
            }),
        }
    }
    out
}

/// The median of `values` (the mean of the middle two for an even count);
/// `None` when empty.
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[middle]
    } else {
        (values[middle - 1] + values[middle]) / 2.0
    })
}

fn cell(text: impl Into<String>) -> TableCell {
    TableCell {
        text: text.into(),
        ..TableCell::default()
    }
}

/// The columns after the cell's name, each a figure of one repetition and
/// how it is printed.
type Column = (&'static str, fn(&ThreadedRow) -> Option<f64>, usize);

/// The figures, in table order.
const COLUMNS: [Column; 11] = [
    ("ops/s", |r| Some(r.ops_per_s), 0),
    (
        "late p50 us",
        |r| Some(r.late_p50_ns as f64 / NANOS_PER_MICRO),
        0,
    ),
    (
        "late p99 us",
        |r| Some(r.late_p99_ns as f64 / NANOS_PER_MICRO),
        0,
    ),
    (
        "late max us",
        |r| Some(r.late_max_ns as f64 / NANOS_PER_MICRO),
        0,
    ),
    ("wakeups/s", |r| Some(r.wakeups_per_s), 0),
    ("empty %", |r| empty_percent(r.empty_wakeups, r.wakeups), 1),
    ("timer CPU ms", |r| r.timer_cpu_ms, 1),
    ("op p50 ns", |r| Some(r.op_p50_ns as f64), 0),
    ("op p99 ns", |r| Some(r.op_p99_ns as f64), 0),
    ("op p99.9 ns", |r| Some(r.op_p999_ns as f64), 0),
    ("op max ns", |r| Some(r.op_max_ns as f64), 0),
];

/// The share of wakeups that fired nothing, in percent; `None` without one.
pub fn empty_percent(empty: u64, wakeups: u64) -> Option<f64> {
    (wakeups > 0).then(|| 100.0 * empty as f64 / wakeups as f64)
}

/// Per workload (in the file's order), the table of its cells.
pub fn tables(rows: &[ThreadedRow]) -> Vec<(String, Table)> {
    let mut out: Vec<(String, Table)> = Vec::new();
    for group in groups(rows) {
        let measured: Vec<&ThreadedRow> =
            group.rows.iter().copied().filter(|r| r.is_ok()).collect();
        let mut cells = vec![
            cell(group.algorithm),
            cell(group.sharing),
            cell(group.producers.to_string()),
        ];
        match measured.first() {
            None => {
                let reason = group.rows.first().map_or("", |r| r.skip_reason.as_str());
                cells.push(cell(format!("skipped: {reason}")));
                cells.extend((1..COLUMNS.len()).map(|_| cell("")));
            }
            Some(_) => cells.extend(COLUMNS.iter().map(|(_, figure, decimals)| {
                let values: Vec<f64> = measured.iter().filter_map(|r| figure(r)).collect();
                cell(median(values).map_or("-".to_owned(), |v| format!("{v:.decimals$}")))
            })),
        }
        let table = match out
            .iter_mut()
            .find(|(workload, _)| workload == group.workload)
        {
            Some((_, table)) => table,
            None => {
                out.push((group.workload.to_owned(), empty_table()));
                &mut out.last_mut().expect("just pushed").1
            }
        };
        table.rows.push(Row::Cells(cells));
    }
    out
}

fn empty_table() -> Table {
    let mut headers: Vec<String> = ["algorithm", "sharing", "P"].map(str::to_owned).to_vec();
    headers.extend(COLUMNS.iter().map(|(name, _, _)| (*name).to_owned()));
    Table {
        numeric: true,
        headers,
        rows: Vec::new(),
    }
}

/// Ranks of `values` from 1 (the smallest), ties sharing the mean of the
/// ranks they span, as Spearman's correlation takes them.
pub fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Ranks start..end (0-based) share their mean, 1-based.
        let shared = (start + end + 1) as f64 / 2.0;
        for &index in &order[start..end] {
            out[index] = shared;
        }
        start = end;
    }
    out
}

/// Spearman's rank correlation of two equally long lists: 1 when they
/// order the items alike, -1 when in reverse; `None` for fewer than three
/// items or a list whose items all tie.
pub fn spearman(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 3 {
        return None;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let mean = (a.len() + 1) as f64 / 2.0;
    let (mut covariance, mut var_a, mut var_b) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        covariance += (x - mean) * (y - mean);
        var_a += (x - mean) * (x - mean);
        var_b += (y - mean) * (y - mean);
    }
    (var_a > 0.0 && var_b > 0.0).then(|| covariance / (var_a * var_b).sqrt())
}

/// The ranking on `workload`: each design measured both ways, its
/// single-threaded rank (the summary's all-in median, `single`) beside its
/// rank by median producer operation latency under each (sharing, producer
/// count), and a last row with each ranking's Spearman correlation with the
/// single-threaded one. `None` when fewer than three designs were measured
/// both ways.
pub fn ranking_table(
    rows: &[ThreadedRow],
    workload: &str,
    single: impl Fn(&str) -> Option<f64>,
) -> Option<Table> {
    let groups: Vec<Group<'_>> = groups(rows)
        .into_iter()
        .filter(|g| g.workload == workload)
        .collect();
    let mut columns: Vec<(&str, u32)> = Vec::new();
    for group in &groups {
        if !columns.contains(&(group.sharing, group.producers)) {
            columns.push((group.sharing, group.producers));
        }
    }
    let op_p50 = |algorithm: &str, (sharing, producers): (&str, u32)| {
        let group = groups.iter().find(|g| {
            g.algorithm == algorithm && g.sharing == sharing && g.producers == producers
        })?;
        median(
            group
                .rows
                .iter()
                .filter(|r| r.is_ok())
                .map(|r| r.op_p50_ns as f64)
                .collect(),
        )
    };
    let mut algorithms: Vec<&str> = Vec::new();
    for group in &groups {
        let both = single(group.algorithm).is_some()
            && columns
                .iter()
                .all(|&c| op_p50(group.algorithm, c).is_some());
        if both && !algorithms.contains(&group.algorithm) {
            algorithms.push(group.algorithm);
        }
    }
    if algorithms.len() < 3 {
        return None;
    }
    let figures = |figure: &dyn Fn(&str) -> Option<f64>| -> Vec<f64> {
        algorithms
            .iter()
            .map(|a| figure(a).unwrap_or(f64::NAN))
            .collect()
    };
    let single_figures = figures(&|a| single(a));
    let threaded: Vec<Vec<f64>> = columns
        .iter()
        .map(|&c| figures(&|a| op_p50(a, c)))
        .collect();
    let single_ranks = ranks(&single_figures);
    let threaded_ranks: Vec<Vec<f64>> = threaded.iter().map(|f| ranks(f)).collect();
    let mut table_rows: Vec<Row> = algorithms
        .iter()
        .enumerate()
        .map(|(i, algorithm)| {
            let mut cells = vec![cell(*algorithm), cell(format!("{:.0}", single_ranks[i]))];
            cells.extend(threaded_ranks.iter().map(|r| cell(format!("{:.0}", r[i]))));
            Row::Cells(cells)
        })
        .collect();
    let mut correlation = vec![cell("Spearman with single-threaded"), cell("1")];
    correlation.extend(
        threaded.iter().map(|f| {
            cell(spearman(&single_figures, f).map_or("-".to_owned(), |r| format!("{r:.2}")))
        }),
    );
    table_rows.push(Row::Cells(correlation));
    let mut headers = vec!["algorithm".to_owned(), "single-threaded".to_owned()];
    headers.extend(
        columns
            .iter()
            .map(|(sharing, p)| format!("{sharing} P={p}")),
    );
    Some(Table {
        numeric: true,
        headers,
        rows: table_rows,
    })
}

/// What every row of the file shares, for the section's prose: the speed-up,
/// the window, the producer counts and the repetitions (the first row's,
/// and whether they vary).
pub fn settings(rows: &[ThreadedRow]) -> Option<String> {
    let first = rows.first()?;
    let mut producers: Vec<u32> = rows.iter().map(|r| r.producers).collect();
    producers.sort_unstable();
    producers.dedup();
    let repetitions = rows.iter().map(|r| r.repetition + 1).max().unwrap_or(1);
    let same = rows.iter().all(|r| {
        r.speedup == first.speedup
            && r.window_ticks == first.window_ticks
            && r.saturated == first.saturated
    });
    let producers: Vec<String> = producers.iter().map(u32::to_string).collect();
    Some(format!(
        "replayed {}x faster than real time over the first {} ticks{}{}, with {} producer \
         thread(s), medians of {repetitions} repetition(s)",
        first.speedup,
        first.window_ticks,
        if first.saturated {
            ", producers saturating (issuing as fast as they can: ops/s is their throughput)"
        } else {
            ", producers at the workload's rate (ops/s is that rate)"
        },
        if same {
            ""
        } else {
            " (some cells at other settings)"
        },
        producers.join(" and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(workload: &str, algorithm: &str, repetition: u32, late_p50_ns: u64) -> ThreadedRow {
        ThreadedRow {
            workload: workload.to_owned(),
            algorithm: algorithm.to_owned(),
            sharing: "locked".to_owned(),
            producers: 1,
            repetition,
            speedup: 10,
            window_ticks: 2_000,
            status: "ok".to_owned(),
            late_p50_ns,
            wakeups: 4,
            empty_wakeups: 1,
            ..ThreadedRow::default()
        }
    }

    #[test]
    fn ties_share_their_mean_rank_and_alike_orders_correlate_fully() {
        assert_eq!(ranks(&[30.0, 10.0, 20.0, 10.0]), [4.0, 1.5, 3.0, 1.5]);
        let a = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(spearman(&a, &[10.0, 20.0, 30.0, 40.0]), Some(1.0));
        assert_eq!(spearman(&a, &[4.0, 3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(spearman(&a, &[5.0, 5.0, 5.0, 5.0]), None, "all tie");
        assert_eq!(spearman(&a[..2], &a[..2]), None, "too few");
    }

    #[test]
    fn the_ranking_sets_each_sharing_beside_the_single_threaded_order() {
        let rows: Vec<ThreadedRow> = [("x", 100), ("y", 300), ("z", 200)]
            .into_iter()
            .map(|(algorithm, op)| ThreadedRow {
                op_p50_ns: op,
                ..row("w", algorithm, 0, 0)
            })
            .collect();
        let single = |a: &str| match a {
            "x" => Some(1.0),
            "y" => Some(2.0),
            "z" => Some(3.0),
            _ => None,
        };
        let table = ranking_table(&rows, "w", single).expect("three designs");
        assert_eq!(
            table.headers,
            ["algorithm", "single-threaded", "locked P=1"]
        );
        let texts: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|r| match r {
                Row::Cells(cells) => cells.iter().map(|c| c.text.clone()).collect(),
                Row::Heading(h) => vec![h.clone()],
            })
            .collect();
        assert_eq!(texts[1], ["y", "2", "3"]);
        assert_eq!(texts[3], ["Spearman with single-threaded", "1", "0.50"]);
        assert!(ranking_table(&rows, "other", single).is_none());
    }

    #[test]
    fn a_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(empty_percent(1, 4), Some(25.0));
        assert_eq!(empty_percent(0, 0), None);
    }

    #[test]
    fn repetitions_fold_into_one_row_per_cell_and_a_table_per_workload() {
        let mut skipped = row("b", "crate", 0, 0);
        skipped.status = "skipped".to_owned();
        skipped.skip_reason = "not Send".to_owned();
        let rows = [
            row("a", "heap", 0, 1_000),
            row("a", "heap", 1, 3_000),
            row("a", "wheel", 0, 5_000),
            skipped,
        ];
        let tables = tables(&rows);
        assert_eq!(tables.len(), 2);
        let (workload, table) = &tables[0];
        assert_eq!((workload.as_str(), table.rows.len()), ("a", 2));
        let Row::Cells(cells) = &table.rows[0] else {
            panic!("a data row")
        };
        assert_eq!(cells[4].text, "2", "the median lateness in us");
        assert_eq!(cells[8].text, "25.0", "empty wakeups in percent");
        let Row::Cells(cells) = &tables[1].1.rows[0] else {
            panic!("a data row")
        };
        assert_eq!(cells[3].text, "skipped: not Send");
        assert!(settings(&rows).unwrap().contains("10x faster"));
    }
}
