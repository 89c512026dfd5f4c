//! The threaded mode's section (`threaded.csv`, from `timerbench run
//! --threaded`): per workload, each (algorithm, sharing, producer count)
//! with its firing lateness against the wall clock, the timer thread's
//! wakeups and how many fired nothing, its CPU time, and the producers'
//! operation latency.
//!
//! `threaded.csv` holds one row per repetition, raw; the aggregation is
//! here. Each figure is the median over the cell's repetitions of that
//! repetition's figure (a percentile of one run's histogram, a rate), by the
//! schema's `interval::summarise`, the harness's own. With at least
//! `schema::MIN_REPETITIONS` repetitions the figures the threaded mode is
//! read for (operation latency p50 and p99, lateness p50 and p99, wakeups
//! per second, the empty share, the timer thread's CPU) carry the median's
//! interval; below it they are printed alone, and the prose says why
//! ([`interval_note`]). A cell that was not run (a crate that is not `Send`
//! cannot sit behind a lock) says why. The file is optional: a run without
//! `--threaded` has none, and the section is then left out. The schema's
//! reader has held its rows to the run and to the settings `metadata.json`
//! records, which the prose states ([`settings`]).
//!
//! The ranking ([`ranking`]) sets each design's single-threaded rank beside
//! its rank by median producer latency under each sharing and producer
//! count, with Spearman's correlation, and its sentence ([`ranking_moves`])
//! names the designs whose place moves most, by how many places and where,
//! from those ranks: no figure in it is typed by hand.

use schema::MIN_REPETITIONS;
use schema::interval::summarise;

use crate::input::{ThreadedRow, ThreadedSettings};
use crate::tables::{Row, Table, TableCell};

/// Nanoseconds in a microsecond.
const NANOS_PER_MICRO: f64 = 1e3;

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

/// The median of `values` (the schema's, the harness's own); `None` when
/// empty.
pub fn median(values: &[f64]) -> Option<f64> {
    summarise(values).map(|s| s.median)
}

/// A cell's figure over its repetitions as printed with `decimals`: the
/// median, and with `interval` and at least [`MIN_REPETITIONS`] values its
/// interval in parentheses; `-` without values.
pub fn figure_text(values: &[f64], decimals: usize, interval: bool) -> String {
    match summarise(values) {
        None => "-".to_owned(),
        Some(s) if interval && s.n >= MIN_REPETITIONS => format!(
            "{:.decimals$} ({:.decimals$}..{:.decimals$})",
            s.median, s.ci_low, s.ci_high
        ),
        Some(s) => format!("{:.decimals$}", s.median),
    }
}

/// The sentence on the figures' intervals for cells of `repetitions`
/// repetitions: given, or why not.
pub fn interval_note(repetitions: u32) -> String {
    if repetitions as usize >= MIN_REPETITIONS {
        format!(
            "`threaded.csv` holds one row per repetition; this report takes each cell's median \
             over its {repetitions} repetitions, and for operation latency (p50, p99), lateness \
             (p50, p99), wakeups/s, the empty share and the timer CPU the median's \
             distribution-free interval in parentheses (order statistics of the repetitions, at \
             least 95% coverage)"
        )
    } else {
        format!(
            "`threaded.csv` holds one row per repetition; this report takes each cell's median \
             over its {repetitions} repetition(s), printed without an interval: fewer than \
             {MIN_REPETITIONS} repetitions give no interval of a median at 95% coverage \
             (`--threaded-repeat {MIN_REPETITIONS}` or more gives one)"
        )
    }
}

fn cell(text: impl Into<String>) -> TableCell {
    TableCell {
        text: text.into(),
        ..TableCell::default()
    }
}

/// The columns after the cell's name: each a figure of one repetition, how
/// many decimals it is printed with, and whether it gets an interval (the
/// figures the mode is read for; the maxima and p99.9 are one extreme of a
/// run each, and the rate is the workload's own when paced).
type Column = (&'static str, fn(&ThreadedRow) -> Option<f64>, usize, bool);

/// The figures, in table order.
const COLUMNS: [Column; 11] = [
    ("ops/s", |r| Some(r.ops_per_s), 0, false),
    (
        "late p50 us",
        |r| Some(r.late_p50_ns as f64 / NANOS_PER_MICRO),
        0,
        true,
    ),
    (
        "late p99 us",
        |r| Some(r.late_p99_ns as f64 / NANOS_PER_MICRO),
        0,
        true,
    ),
    (
        "late max us",
        |r| Some(r.late_max_ns as f64 / NANOS_PER_MICRO),
        0,
        false,
    ),
    ("wakeups/s", |r| Some(r.wakeups_per_s), 0, true),
    (
        "empty %",
        |r| empty_percent(r.empty_wakeups, r.wakeups),
        1,
        true,
    ),
    ("timer CPU ms", |r| r.timer_cpu_ms, 1, true),
    ("op p50 ns", |r| Some(r.op_p50_ns as f64), 0, true),
    ("op p99 ns", |r| Some(r.op_p99_ns as f64), 0, true),
    ("op p99.9 ns", |r| Some(r.op_p999_ns as f64), 0, false),
    ("op max ns", |r| Some(r.op_max_ns as f64), 0, false),
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
            Some(_) => cells.extend(COLUMNS.iter().map(|&(_, figure, decimals, interval)| {
                let values: Vec<f64> = measured.iter().filter_map(|r| figure(r)).collect();
                cell(figure_text(&values, decimals, interval))
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
    headers.extend(COLUMNS.iter().map(|(name, ..)| (*name).to_owned()));
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

/// Each design's rank on one workload single-threaded and under each
/// threaded (sharing, producer count), for [`ranking_table`] and
/// [`ranking_moves`].
#[derive(Clone, Debug)]
pub struct Ranking<'a> {
    /// The designs measured both ways, in the file's order.
    pub algorithms: Vec<&'a str>,
    /// The (sharing, producers) columns, in the file's order.
    pub columns: Vec<(&'a str, u32)>,
    /// Each design's figure single-threaded.
    pub single: Vec<f64>,
    /// Per column, each design's median producer operation latency.
    pub threaded: Vec<Vec<f64>>,
}

impl Ranking<'_> {
    /// Each design's single-threaded rank (1 the fastest).
    pub fn single_ranks(&self) -> Vec<f64> {
        ranks(&self.single)
    }

    /// Per column, each design's threaded rank.
    pub fn threaded_ranks(&self) -> Vec<Vec<f64>> {
        self.threaded.iter().map(|f| ranks(f)).collect()
    }
}

/// The ranking on `workload`: each design measured both ways, its
/// single-threaded figure (the summary's all-in median, `single`) and its
/// median producer operation latency under each (sharing, producer count).
/// `None` when fewer than three designs were measured both ways.
pub fn ranking<'a>(
    rows: &'a [ThreadedRow],
    workload: &str,
    single: impl Fn(&str) -> Option<f64>,
) -> Option<Ranking<'a>> {
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
        let values: Vec<f64> = group
            .rows
            .iter()
            .filter(|r| r.is_ok())
            .map(|r| r.op_p50_ns as f64)
            .collect();
        median(&values)
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
    let single = figures(&|a| single(a));
    let threaded = columns
        .iter()
        .map(|&c| figures(&|a| op_p50(a, c)))
        .collect();
    Some(Ranking {
        algorithms,
        columns,
        single,
        threaded,
    })
}

/// The table of `ranking`: each design's single-threaded rank beside its
/// rank under each (sharing, producer count), and a last row with each
/// ranking's Spearman correlation with the single-threaded one.
pub fn ranking_table(ranking: &Ranking<'_>) -> Table {
    let single_ranks = ranking.single_ranks();
    let threaded_ranks = ranking.threaded_ranks();
    let mut table_rows: Vec<Row> = ranking
        .algorithms
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
        ranking.threaded.iter().map(|f| {
            cell(spearman(&ranking.single, f).map_or("-".to_owned(), |r| format!("{r:.2}")))
        }),
    );
    table_rows.push(Row::Cells(correlation));
    let mut headers = vec!["algorithm".to_owned(), "single-threaded".to_owned()];
    headers.extend(
        ranking
            .columns
            .iter()
            .map(|(sharing, p)| format!("{sharing} P={p}")),
    );
    Table {
        numeric: true,
        headers,
        rows: table_rows,
    }
}

/// How many designs [`ranking_moves`] names.
const MOVERS_NAMED: usize = 3;

/// The sharing whose producers only push onto the timer thread's queues:
/// their operation is the same whatever the design, so a rank by it is the
/// draw's order, and [`ranking_moves`] reads no move from it.
const PUSH_ONLY_SHARING: &str = "handoff";

/// The sentence on which designs move most between the single-threaded
/// ranking and the threaded ones: up to [`MOVERS_NAMED`] designs, each with
/// the (sharing, producer count) where its place differs most, its place
/// there and single-threaded, and by how many places; or that no design
/// changes place. Columns of [`PUSH_ONLY_SHARING`] are left out, and the
/// sentence says why.
pub fn ranking_moves(ranking: &Ranking<'_>) -> String {
    let single_ranks = ranking.single_ranks();
    let threaded_ranks = ranking.threaded_ranks();
    // Per design: its largest move, and the column (the first) it is in.
    let mut moves: Vec<(f64, usize, usize)> = (0..ranking.algorithms.len())
        .map(|design| {
            let mut best = (0.0, design, 0);
            for (column, ranks) in threaded_ranks.iter().enumerate() {
                if ranking.columns[column].0 == PUSH_ONLY_SHARING {
                    continue;
                }
                let shift = (ranks[design] - single_ranks[design]).abs();
                if shift > best.0 {
                    best = (shift, design, column);
                }
            }
            best
        })
        .collect();
    moves.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let named: Vec<String> = moves
        .iter()
        .take(MOVERS_NAMED)
        .filter(|(shift, ..)| *shift > 0.0)
        .map(|&(shift, design, column)| {
            let (sharing, producers) = ranking.columns[column];
            format!(
                "{} (place {} single-threaded, {} under {sharing} P={producers}: {} {})",
                ranking.algorithms[design],
                single_ranks[design],
                threaded_ranks[column][design],
                shift,
                if shift == 1.0 { "place" } else { "places" }
            )
        })
        .collect();
    let pushes = ranking
        .columns
        .iter()
        .any(|(sharing, _)| *sharing == PUSH_ONLY_SHARING);
    let caveat = if pushes {
        format!(
            " Under {PUSH_ONLY_SHARING} a producer's operation is a push onto the timer thread's \
             queue, the same whatever the design, so its ranks are the draw's order and no move \
             is read from them."
        )
    } else {
        String::new()
    };
    if named.is_empty() {
        return format!(
            "No design changes place between the single-threaded ranking and a threaded one where \
             the producers run the design.{caveat}"
        );
    }
    let mut running: Vec<&str> = Vec::new();
    for (sharing, _) in &ranking.columns {
        if *sharing != PUSH_ONLY_SHARING && !running.contains(sharing) {
            running.push(sharing);
        }
    }
    format!(
        "The designs that move most between the single-threaded ranking and a threaded one where \
         the producers run the design ({}): {}.{caveat}",
        running.join(", "),
        named.join("; ")
    )
}

/// The run's threaded settings: those `metadata.json` records (the schema's
/// reader has held every row to them), or for a run made before the metadata
/// recorded them, what its rows show (the first row's speed-up, window and
/// variant, every producer count and sharing, the most repetitions); `None`
/// without rows.
pub fn run_settings(
    rows: &[ThreadedRow],
    recorded: Option<&ThreadedSettings>,
) -> Option<ThreadedSettings> {
    let first = rows.first()?;
    if let Some(recorded) = recorded {
        return Some(recorded.clone());
    }
    let mut producers: Vec<u32> = rows.iter().map(|r| r.producers).collect();
    producers.sort_unstable();
    producers.dedup();
    let mut sharings: Vec<String> = Vec::new();
    for row in rows {
        if !sharings.contains(&row.sharing) {
            sharings.push(row.sharing.clone());
        }
    }
    Some(ThreadedSettings {
        producers,
        sharings,
        speedup: first.speedup,
        window_ticks: first.window_ticks,
        repetitions: rows.iter().map(|r| r.repetition + 1).max().unwrap_or(1),
        saturate: first.saturated,
    })
}

/// The settings as the section's prose states them.
pub fn settings(settings: &ThreadedSettings) -> String {
    let producers: Vec<String> = settings.producers.iter().map(u32::to_string).collect();
    format!(
        "replayed {}x faster than real time over the first {} ticks (a tape that ends sooner, \
         whole){}, with {} producer thread(s), {} repetition(s) of each cell",
        settings.speedup,
        settings.window_ticks,
        if settings.saturate {
            ", producers saturating (issuing as fast as they can: ops/s is their throughput)"
        } else {
            ", producers at the workload's rate (ops/s is that rate)"
        },
        producers.join(" and "),
        settings.repetitions
    )
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
        let ranking = ranking(&rows, "w", single).expect("three designs");
        let table = ranking_table(&ranking);
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
        assert!(super::ranking(&rows, "other", single).is_none());
        assert_eq!(
            ranking_moves(&ranking),
            "The designs that move most between the single-threaded ranking and a threaded \
             one where the producers run the design (locked): y (place 2 single-threaded, 3 \
             under locked P=1: 1 place); z (place 3 single-threaded, 2 under locked P=1: 1 \
             place)."
        );
        // Under handoff the producers only push: its ranks move nothing.
        let pushes = Ranking {
            columns: vec![("handoff", 1)],
            ..ranking.clone()
        };
        let said = ranking_moves(&pushes);
        assert!(said.starts_with("No design changes place"), "{said}");
        assert!(
            said.contains("Under handoff a producer's operation is a push"),
            "{said}"
        );
        let same = Ranking {
            threaded: vec![ranking.single.clone()],
            ..ranking
        };
        assert!(ranking_moves(&same).starts_with("No design changes place"));
    }

    #[test]
    fn a_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(empty_percent(1, 4), Some(25.0));
        assert_eq!(empty_percent(0, 0), None);
    }

    #[test]
    fn an_interval_needs_the_minimum_of_repetitions_and_the_prose_says_so() {
        let five = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(figure_text(&five, 0, true), "3");
        let six = [5.0, 1.0, 4.0, 2.0, 3.0, 6.0];
        assert_eq!(figure_text(&six, 1, true), "3.5 (1.0..6.0)");
        assert_eq!(figure_text(&six, 1, false), "3.5");
        assert_eq!(figure_text(&[], 1, true), "-");
        assert!(interval_note(2).contains("without an interval: fewer than 6 repetitions"));
        assert!(interval_note(6).contains("interval in parentheses"));
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
        let inferred = run_settings(&rows, None).expect("rows");
        assert_eq!((inferred.repetitions, inferred.speedup), (2, 10));
        assert_eq!(inferred.sharings, ["locked"]);
        assert!(settings(&inferred).contains("10x faster"));
        let recorded = ThreadedSettings {
            speedup: 20,
            ..inferred
        };
        assert_eq!(run_settings(&rows, Some(&recorded)), Some(recorded.clone()));
        assert!(settings(&recorded).contains("20x faster"));
        assert_eq!(run_settings(&[], Some(&recorded)), None);
    }
}
