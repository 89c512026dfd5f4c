//! The report's tables, built once and rendered twice: as HTML for
//! `index.html` (with heat colours and the best cell highlighted) and as
//! Markdown for `REPORT.md` (the best cell in bold).
//!
//! Algorithm tables list algorithms grouped by family, each family under a
//! heading row, in the model's display order; a skipped run reads `skipped`,
//! never zero.

use crate::markdown;
use crate::model::{Model, Rgb, hex};
use crate::parameters;
use crate::summary::{
    self, Cell, format_count, format_interval, format_ns, percent_of_best, ratio_phrase,
};

/// Text shown for a run skipped by its pending limit.
pub const SKIPPED: &str = "skipped";
/// Text shown where there is no row.
pub const MISSING: &str = "–";

/// One table cell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TableCell {
    /// The text.
    pub text: String,
    /// Whether this is the best value of its column.
    pub best: bool,
    /// For a heat-coloured cell, the value as a percentage of the column's best.
    pub percent: Option<f64>,
}

impl TableCell {
    fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// A row: a family heading or cells.
#[derive(Clone, Debug, PartialEq)]
pub enum Row {
    /// A heading spanning the table (a family name).
    Heading(String),
    /// Data cells, the first being the row's label.
    Cells(Vec<TableCell>),
}

/// A table.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Whether the cells after the first column are numbers (right-aligned).
    pub numeric: bool,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows in order.
    pub rows: Vec<Row>,
}

/// Escapes text for HTML.
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Escapes the characters that would break a Markdown table cell.
fn escape_markdown(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The colour of the best cell of a heat-coloured column.
pub const BEST_COLOUR: Rgb = (199, 233, 192);

/// The background of a heat-coloured cell: green for the best, then white to
/// red as the value grows to 100 times the best (log scale).
pub fn heat_colour(percent: f64) -> Rgb {
    const FULL_AT_PERCENT_LOG: f64 = 2.0;
    const DEEPEST: f64 = 140.0;
    if percent <= 100.0 {
        return BEST_COLOUR;
    }
    let t = ((percent / 100.0).log10() / FULL_AT_PERCENT_LOG).clamp(0.0, 1.0);
    let fade = (255.0 - DEEPEST * t).round() as u8;
    (255, fade, fade)
}

impl Table {
    /// The table as an HTML `<table>`.
    pub fn to_html(&self) -> String {
        let mut out = String::from(if self.numeric {
            "<table class=\"numeric\">\n<thead><tr>"
        } else {
            "<table>\n<thead><tr>"
        });
        for header in &self.headers {
            out.push_str(&format!("<th>{}</th>", escape_html(header)));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &self.rows {
            match row {
                Row::Heading(text) => out.push_str(&format!(
                    "<tr class=\"family\"><th colspan=\"{}\">{}</th></tr>\n",
                    self.headers.len(),
                    escape_html(text)
                )),
                Row::Cells(cells) => {
                    out.push_str("<tr>");
                    for (i, cell) in cells.iter().enumerate() {
                        let tag = if i == 0 { "th" } else { "td" };
                        let mut attributes = String::new();
                        if let Some(p) = cell.percent {
                            attributes.push_str(&format!(
                                " style=\"background:{}\"",
                                hex(heat_colour(p))
                            ));
                        }
                        if cell.best {
                            attributes.push_str(" class=\"best\"");
                        }
                        out.push_str(&format!(
                            "<{tag}{attributes}>{}</{tag}>",
                            escape_html(&cell.text)
                        ));
                    }
                    out.push_str("</tr>\n");
                }
            }
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }

    /// The table in GitHub-flavoured Markdown, split by column groups (or
    /// made a list) where a row would be too wide to read
    /// ([`markdown::table`]).
    pub fn to_markdown(&self) -> String {
        let headers: Vec<String> = self.headers.iter().map(|h| escape_markdown(h)).collect();
        let lines: Vec<markdown::Line> = self
            .rows
            .iter()
            .map(|row| match row {
                Row::Heading(text) => markdown::Line::Heading(escape_markdown(text)),
                Row::Cells(cells) => markdown::Line::Cells(
                    cells
                        .iter()
                        .map(|c| {
                            let text = escape_markdown(&c.text);
                            if c.best { format!("**{text}**") } else { text }
                        })
                        .collect(),
                ),
            })
            .collect();
        markdown::table(&headers, &lines)
    }
}

/// Rows of one cell list per algorithm, grouped under family headings.
fn family_rows(model: &Model, mut cells_of: impl FnMut(usize) -> Vec<TableCell>) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut family: Option<&str> = None;
    for (i, algorithm) in model.algorithms.iter().enumerate() {
        if family != Some(algorithm.family.as_str()) {
            family = Some(&algorithm.family);
            rows.push(Row::Heading(format!("{} family", algorithm.family)));
        }
        let mut cells = vec![TableCell::plain(algorithm.label())];
        cells.extend(cells_of(i));
        rows.push(Row::Cells(cells));
    }
    rows
}

fn workload_headers(model: &Model) -> Vec<String> {
    std::iter::once("algorithm".to_owned())
        .chain(model.workloads.iter().cloned())
        .collect()
}

/// The mark on a cell statistically tied with its column's best.
pub const TIE_MARK: &str = "≈";

/// The all-in median ns per operation with its interval, algorithm x
/// workload, heat-coloured by the ratio to the column's best, the best
/// highlighted and every cell tied with it marked [`TIE_MARK`]. With
/// `relative`, the cells show the ratio to the best with its bootstrap
/// interval instead.
pub fn summary_table(model: &Model, relative: bool) -> Table {
    let columns = summary::columns(model);
    let rows = family_rows(model, |i| {
        columns
            .iter()
            .map(|(cells, best)| match (&cells[i], best) {
                (Cell::Measured(figure), Some(best)) => {
                    let percent = percent_of_best(figure.ns, *best);
                    let is_best = figure.ns == *best;
                    let mark = if figure.tied && !is_best {
                        format!(" {TIE_MARK}")
                    } else {
                        String::new()
                    };
                    let text = if relative {
                        let interval = figure
                            .ratio_ci
                            .map_or_else(String::new, |(lo, hi)| format!(" [{lo:.2}, {hi:.2}]"));
                        format!("{:.2}x{interval}{mark}", percent / 100.0)
                    } else {
                        format!("{}{mark}", format_interval(figure))
                    };
                    TableCell {
                        text,
                        best: is_best,
                        percent: Some(percent),
                    }
                }
                (Cell::Skipped, _) => TableCell::plain(SKIPPED),
                _ => TableCell::plain(MISSING),
            })
            .collect()
    });
    Table {
        numeric: true,
        headers: workload_headers(model),
        rows,
    }
}

/// Per workload: the winner (or the tie), its median with its interval, and
/// how the runner-up, the best `crate` algorithm and the best `baseline`
/// compare (those two columns only when the family ran).
pub fn verdict_table(model: &Model) -> Table {
    let label = |name: &str| {
        model
            .algorithms
            .iter()
            .find(|a| a.name == name)
            .map_or_else(|| name.to_owned(), crate::model::Algorithm::label)
    };
    let phrase = |best: &summary::Standing, other: &summary::Standing| {
        format!(
            "{} ({}, {} ns)",
            label(&other.name),
            ratio_phrase(best, other),
            format_interval(&other.figure)
        )
    };
    let family_phrase = |best: &summary::Standing, family: &Option<summary::FamilyBest>| {
        family.as_ref().map_or_else(
            || MISSING.to_owned(),
            |f| {
                let mut text = phrase(best, &f.best);
                if !f.tied.is_empty() {
                    let names: Vec<String> = f.tied.iter().map(|s| label(&s.name)).collect();
                    text.push_str(&format!("; tie within noise with {}", names.join(", ")));
                }
                text
            },
        )
    };
    let has_family = |family: &str| model.algorithms.iter().any(|a| a.family == family);
    let (crates, baselines) = (
        has_family(summary::CRATE_FAMILY),
        has_family(summary::BASELINE_FAMILY),
    );
    let mut headers = vec![
        "workload",
        "winner (family)",
        "median ns/op [interval]",
        "runner-up",
    ];
    if crates {
        headers.push("best crate");
    }
    if baselines {
        headers.push("best baseline");
    }
    let rows = model
        .workloads
        .iter()
        .map(|w| {
            let mut cells = vec![TableCell::plain(w.clone())];
            match summary::workload_verdict(model, w) {
                Some(v) => {
                    let winner = format!("{} ({})", label(&v.best.name), v.best.family);
                    cells.push(TableCell::plain(if v.has_winner() {
                        winner
                    } else {
                        let others: Vec<String> = v.tied.iter().map(|s| label(&s.name)).collect();
                        format!("tie within noise: {winner}, {}", others.join(", "))
                    }));
                    cells.push(TableCell::plain(format_interval(&v.best.figure)));
                    cells.push(TableCell::plain(
                        v.runner_up
                            .as_ref()
                            .map_or_else(|| MISSING.to_owned(), |r| phrase(&v.best, r)),
                    ));
                    if crates {
                        cells.push(TableCell::plain(family_phrase(&v.best, &v.best_crate)));
                    }
                    if baselines {
                        cells.push(TableCell::plain(family_phrase(&v.best, &v.best_baseline)));
                    }
                }
                None => {
                    cells.push(TableCell::plain("nothing measured"));
                    cells.resize(headers.len(), TableCell::plain(MISSING));
                }
            }
            Row::Cells(cells)
        })
        .collect();
    Table {
        numeric: false,
        headers: headers.into_iter().map(str::to_owned).collect(),
        rows,
    }
}

/// Peak heap bytes per pending timer, algorithm x scaling workload.
pub fn memory_table(model: &Model) -> Table {
    let sweep = model.scaling_workloads();
    let rows = family_rows(model, |i| {
        let name = &model.algorithms[i].name;
        sweep
            .iter()
            .map(|(w, _)| match model.run(name, w) {
                Some(r) if !r.is_ok() => TableCell::plain(SKIPPED),
                Some(r) => TableCell::plain(
                    r.bytes_per_pending
                        .map_or_else(|| MISSING.to_owned(), |b| format!("{b:.1}")),
                ),
                None => TableCell::plain(MISSING),
            })
            .collect()
    });
    Table {
        numeric: true,
        headers: std::iter::once("algorithm".to_owned())
            .chain(
                sweep
                    .iter()
                    .map(|(w, n)| format!("{w} (N = {})", format_count(*n))),
            )
            .collect(),
        rows,
    }
}

/// A workload whose measured phase ends with at most this share of its largest
/// pending population still pending has done its work: what a queue holds
/// then is what it kept, not what it needs.
pub const DRAINED_SHARE: f64 = 0.1;

/// The workloads that drain by the end of their measured phase (see
/// [`DRAINED_SHARE`]), in the model's order: those on which every measured
/// row has the retained columns and ends with that few timers pending. (Every
/// row, not some: an inexact row's population peaks higher, as its late
/// timers wait, so against its own peak a workload that keeps its population
/// can look drained.)
pub fn drained_workloads(model: &Model) -> Vec<String> {
    model
        .workloads
        .iter()
        .filter(|workload| {
            let measured: Vec<_> = model
                .algorithms
                .iter()
                .filter_map(|a| model.run(&a.name, workload))
                .filter(|r| r.is_ok())
                .collect();
            !measured.is_empty()
                && measured.iter().all(|r| {
                    r.retained_pending
                        .is_some_and(|left| left as f64 <= DRAINED_SHARE * r.max_pending as f64)
                })
        })
        .cloned()
        .collect()
}

/// Bytes as a reader takes them in: bytes below a KiB, then KiB or MiB with
/// two decimals.
pub fn format_bytes(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.2} KiB", b / KIB)
    } else {
        format!("{:.2} MiB", b / (KIB * KIB))
    }
}

/// The memory each algorithm kept after the work of `workload` was done: its
/// peak, what it held at the end of the measured phase (with the timers still
/// pending), after the quiet period, and that last as a share of the peak. The
/// smallest figure after the quiet period is the column's best.
pub fn retained_table(model: &Model, workload: &str) -> Table {
    let quiet: Vec<Option<u64>> = model
        .algorithms
        .iter()
        .map(|a| {
            model
                .run(&a.name, workload)
                .filter(|r| r.is_ok())
                .and_then(|r| r.quiet_bytes)
        })
        .collect();
    let least = quiet.iter().flatten().min().copied();
    let rows = family_rows(model, |i| {
        let Some(r) = model.run(&model.algorithms[i].name, workload) else {
            return vec![TableCell::plain(MISSING); 4];
        };
        if !r.is_ok() {
            return vec![TableCell::plain(SKIPPED); 4];
        }
        let bytes = |b: Option<u64>| b.map_or_else(|| MISSING.to_owned(), format_bytes);
        let end = match (r.retained_bytes, r.retained_pending) {
            (Some(b), Some(left)) => {
                format!("{} ({} pending)", format_bytes(b), format_count(left))
            }
            _ => MISSING.to_owned(),
        };
        let kept = match (r.quiet_bytes, r.peak_bytes) {
            (Some(q), Some(p)) if p > 0 => format!("{:.0}%", 100.0 * q as f64 / p as f64),
            _ => MISSING.to_owned(),
        };
        vec![
            TableCell::plain(bytes(r.peak_bytes)),
            TableCell::plain(end),
            TableCell {
                best: quiet[i].is_some() && quiet[i] == least,
                ..TableCell::plain(bytes(r.quiet_bytes))
            },
            TableCell::plain(kept),
        ]
    });
    Table {
        numeric: true,
        headers: [
            "algorithm",
            "peak",
            "at the end (pending)",
            "after the quiet period",
            "kept of the peak",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows,
    }
}

/// The largest lateness in ticks of every inexact algorithm, per workload.
/// `None` when every algorithm is exact.
pub fn lateness_table(model: &Model) -> Option<Table> {
    let inexact: Vec<&crate::model::Algorithm> =
        model.algorithms.iter().filter(|a| !a.exact).collect();
    if inexact.is_empty() {
        return None;
    }
    let rows = inexact
        .iter()
        .map(|a| {
            let mut cells = vec![TableCell::plain(a.name.clone())];
            cells.extend(model.workloads.iter().map(|w| {
                match model.run(&a.name, w) {
                    Some(r) if !r.is_ok() => TableCell::plain(SKIPPED),
                    Some(r) => TableCell::plain(
                        r.max_lateness_ticks
                            .map_or_else(|| MISSING.to_owned(), format_count),
                    ),
                    None => TableCell::plain(MISSING),
                }
            }));
            Row::Cells(cells)
        })
        .collect();
    Some(Table {
        numeric: true,
        headers: workload_headers(model),
        rows,
    })
}

/// What the contract costs each native row's structure: per workload, the
/// contract row's median over the native row's, with its interval. `None`
/// when the results have no such pairs.
pub fn contract_cost_table(model: &Model) -> Option<Table> {
    let costs = &model.results.contract_cost;
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for cost in costs {
        let pair = (cost.contract.as_str(), cost.native.as_str());
        if !pairs.contains(&pair) {
            pairs.push(pair);
        }
    }
    if pairs.is_empty() {
        return None;
    }
    let mut headers = vec!["workload".to_owned()];
    headers.extend(
        pairs
            .iter()
            .map(|(contract, native)| format!("{contract} / {native}")),
    );
    let rows = model
        .workloads
        .iter()
        .filter(|w| costs.iter().any(|c| &c.workload == *w))
        .map(|w| {
            let mut cells = vec![TableCell::plain(w.clone())];
            cells.extend(pairs.iter().map(|&(contract, native)| {
                costs
                    .iter()
                    .find(|c| &c.workload == w && c.contract == contract && c.native == native)
                    .map_or_else(
                        || TableCell::plain(MISSING),
                        |c| {
                            let interval = c
                                .ratio_ci_low
                                .zip(c.ratio_ci_high)
                                .map_or_else(String::new, |(lo, hi)| {
                                    format!(" [{lo:.2}, {hi:.2}]")
                                });
                            let tie = if c.tied == Some(true) { " ≈" } else { "" };
                            TableCell::plain(format!(
                                "{:.2}x{interval}{tie} ({:.1} / {:.1} ns)",
                                c.ratio, c.contract_ns, c.native_ns
                            ))
                        },
                    )
            }));
            Row::Cells(cells)
        })
        .collect();
    Some(Table {
        numeric: true,
        headers,
        rows,
    })
}

/// A figure of `counts.csv` a counts table shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountMetric {
    /// Instructions per call.
    Instructions,
    /// Simulated last-level misses per call.
    LlMisses,
    /// Simulated branch mispredictions per call.
    BranchMisses,
}

impl CountMetric {
    /// The metric's value in a row.
    pub fn of(self, row: &crate::input::CountRow) -> f64 {
        match self {
            CountMetric::Instructions => row.instructions,
            CountMetric::LlMisses => row.ll_misses,
            CountMetric::BranchMisses => row.branch_misses,
        }
    }

    /// The value as a table shows it: instructions to one decimal, misses to
    /// three (a miss in a thousand operations still shows).
    pub fn format(self, value: f64) -> String {
        match self {
            CountMetric::Instructions => format!("{value:.1}"),
            CountMetric::LlMisses | CountMetric::BranchMisses => format!("{value:.3}"),
        }
    }

    /// What the metric is called in headers and titles.
    pub fn name(self) -> &'static str {
        match self {
            CountMetric::Instructions => "instructions",
            CountMetric::LlMisses => "LL misses",
            CountMetric::BranchMisses => "mispredicts",
        }
    }

    /// The metric's part of its chart's file name.
    pub fn slug(self) -> &'static str {
        match self {
            CountMetric::Instructions => "instructions",
            CountMetric::LlMisses => "ll-misses",
            CountMetric::BranchMisses => "branch-misses",
        }
    }

    /// Every metric, in the order the report shows them.
    pub const ALL: [CountMetric; 3] = [
        CountMetric::Instructions,
        CountMetric::LlMisses,
        CountMetric::BranchMisses,
    ];
}

/// The workloads `counts.csv` has rows for, in the model's order.
pub fn counted_workloads(model: &Model) -> Vec<&String> {
    model
        .workloads
        .iter()
        .filter(|w| model.results.counts.iter().any(|c| &c.workload == *w))
        .collect()
}

/// One `counts.csv` figure per measured operation (its `all` rows),
/// algorithm x workload, the column's smallest highlighted and the cells
/// heat-coloured by their ratio to it. `None` without counts.
pub fn counts_table(model: &Model, metric: CountMetric) -> Option<Table> {
    let workloads = counted_workloads(model);
    if workloads.is_empty() {
        return None;
    }
    let value = |a: &str, w: &str| model.count(a, w, "all").map(|row| metric.of(row));
    let best: Vec<Option<f64>> = workloads
        .iter()
        .map(|w| {
            model
                .algorithms
                .iter()
                .filter_map(|a| value(&a.name, w))
                .min_by(f64::total_cmp)
        })
        .collect();
    let rows = family_rows(model, |i| {
        let name = &model.algorithms[i].name;
        workloads
            .iter()
            .zip(&best)
            .map(|(w, best)| match (value(name, w), best) {
                (Some(v), Some(best)) => TableCell {
                    text: metric.format(v),
                    best: v == *best,
                    percent: (*best > 0.0).then(|| percent_of_best(v, *best)),
                },
                _ if model.skipped(name, w) => TableCell::plain(SKIPPED),
                _ => TableCell::plain(MISSING),
            })
            .collect()
    });
    Some(Table {
        numeric: true,
        headers: std::iter::once("algorithm".to_owned())
            .chain(workloads.into_iter().cloned())
            .collect(),
        rows,
    })
}

/// The operation kinds the per-kind counts table shows, in its column order.
const COUNTED_KINDS: [&str; 3] = ["insert", "cancel", "advance"];

/// At the largest counted scaling workload: per algorithm, instructions and
/// simulated last-level misses per insert, per cancel and per advance. `None`
/// without counts of a scaling workload. Returns the workload with the table.
pub fn counts_by_kind_table(model: &Model) -> Option<(String, Table)> {
    let (workload, _) = model
        .scaling_workloads()
        .into_iter()
        .rev()
        .find(|(w, _)| model.results.counts.iter().any(|c| &c.workload == w))?;
    let rows = family_rows(model, |i| {
        let name = &model.algorithms[i].name;
        COUNTED_KINDS
            .iter()
            .flat_map(|kind| {
                let row = model.count(name, &workload, kind);
                CountMetric::ALL.map(|metric| {
                    row.map_or_else(
                        || TableCell::plain(MISSING),
                        |row| TableCell::plain(metric.format(metric.of(row))),
                    )
                })
            })
            .collect()
    });
    let mut headers = vec!["algorithm".to_owned()];
    for kind in COUNTED_KINDS {
        for metric in CountMetric::ALL {
            headers.push(format!("{kind}: {}", metric.name()));
        }
    }
    Some((
        workload,
        Table {
            numeric: true,
            headers,
            rows,
        },
    ))
}

/// This run against an earlier one (`comparison.csv`), a heading per
/// workload and a row per algorithm: both medians, the ratio with its
/// interval, and the verdict. `None` without the file.
pub fn comparison_table(model: &Model) -> Option<Table> {
    let rows = &model.results.comparison;
    if rows.is_empty() {
        return None;
    }
    let mut workloads: Vec<&str> = Vec::new();
    for row in rows {
        if !workloads.contains(&row.workload.as_str()) {
            workloads.push(&row.workload);
        }
    }
    let mut table_rows = Vec::new();
    for workload in workloads {
        table_rows.push(Row::Heading(workload.to_owned()));
        for row in rows.iter().filter(|r| r.workload == workload) {
            let interval = row
                .ratio_ci_low
                .zip(row.ratio_ci_high)
                .map_or_else(String::new, |(low, high)| format!(" [{low:.2}, {high:.2}]"));
            table_rows.push(Row::Cells(vec![
                TableCell::plain(row.algorithm.clone()),
                TableCell::plain(format!("{:.1}", row.base_ns)),
                TableCell::plain(format!("{:.1}", row.new_ns)),
                TableCell::plain(format!("{:.2}x{interval}", row.ratio)),
                TableCell {
                    text: row.verdict.clone(),
                    // A change is what the reader looks for: mark it as a
                    // column's best is marked.
                    best: row.verdict == "faster" || row.verdict == "slower",
                    percent: None,
                },
            ]));
        }
    }
    Some(Table {
        numeric: true,
        headers: [
            "algorithm",
            "BASE ns",
            "this run ns",
            "ratio [95% interval]",
            "verdict",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows: table_rows,
    })
}

/// What a parameters table says of a point on a frontier, and of one off it.
const ON_FRONTIER: (&str, &str) = ("yes", "no");

/// A sweep's table: a heading per workload, a row per point: its value, the
/// row it is, its headline median ns per operation with its interval, its
/// largest lateness, its peak bytes per pending timer, and whether it is on
/// the frontier of cost against lateness and against memory (a point on one
/// in bold).
pub fn parameter_table(
    sweep: &parameters::Sweep<'_>,
    workloads: &[parameters::OnWorkload],
) -> Table {
    let frontier = |on: bool| TableCell {
        text: if on { ON_FRONTIER.0 } else { ON_FRONTIER.1 }.to_owned(),
        best: on,
        percent: None,
    };
    let mut rows = Vec::new();
    for on in workloads {
        rows.push(Row::Heading(on.workload.clone()));
        for (i, member) in sweep.members.iter().enumerate() {
            let mut cells = vec![
                TableCell::plain(member.label.clone()),
                TableCell::plain(member.algorithm.label()),
            ];
            match &on.outcomes[i] {
                parameters::Outcome::Point {
                    figure,
                    lateness,
                    bytes,
                } => {
                    cells.push(TableCell::plain(format_interval(figure)));
                    cells.push(TableCell::plain(
                        lateness.map_or_else(|| MISSING.to_owned(), format_count),
                    ));
                    cells.push(TableCell::plain(
                        bytes.map_or_else(|| MISSING.to_owned(), |b| format!("{b:.1}")),
                    ));
                    cells.push(if lateness.is_some() {
                        frontier(on.lateness_frontier[i])
                    } else {
                        TableCell::plain(MISSING)
                    });
                    cells.push(if bytes.is_some() {
                        frontier(on.memory_frontier[i])
                    } else {
                        TableCell::plain(MISSING)
                    });
                }
                parameters::Outcome::Skipped(_) => {
                    cells.resize(PARAMETER_HEADERS.len(), TableCell::plain(SKIPPED));
                }
                parameters::Outcome::Missing => {
                    cells.resize(PARAMETER_HEADERS.len(), TableCell::plain(MISSING));
                }
            }
            rows.push(Row::Cells(cells));
        }
    }
    Table {
        numeric: true,
        headers: PARAMETER_HEADERS.map(str::to_owned).to_vec(),
        rows,
    }
}

/// The columns of [`parameter_table`].
const PARAMETER_HEADERS: [&str; 7] = [
    "point",
    "row",
    "median ns/op [interval]",
    "max lateness (ticks)",
    "bytes per pending timer",
    "on the lateness frontier",
    "on the memory frontier",
];

/// Every skipped run with its reason. `None` when nothing was skipped.
pub fn skipped_table(model: &Model) -> Option<Table> {
    let rows: Vec<Row> = model
        .algorithms
        .iter()
        .flat_map(|a| model.workloads.iter().map(move |w| (a, w)))
        .filter_map(|(a, w)| {
            let run = model.run(&a.name, w).filter(|r| !r.is_ok())?;
            Some(Row::Cells(vec![
                TableCell::plain(a.name.clone()),
                TableCell::plain(w.clone()),
                TableCell::plain(run.skip_reason.clone()),
            ]))
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        numeric: false,
        headers: ["algorithm", "workload", "reason"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    })
}

/// The real systems and the rows that model them, from the metadata; a row
/// that this run did not measure is marked so. `None` when the metadata has
/// no systems (results made before it carried them).
pub fn systems_table(model: &Model) -> Option<Table> {
    let systems = &model.results.metadata.systems;
    let measured = |name: &String| model.algorithms.iter().any(|a| &a.name == name);
    let rows: Vec<Row> = systems
        .iter()
        .map(|system| {
            let missing: Vec<&str> = system
                .rows
                .iter()
                .filter(|row| !measured(row))
                .map(String::as_str)
                .collect();
            let row = if missing.is_empty() {
                system.row.clone()
            } else {
                format!("{} (not in this run: {})", system.row, missing.join(", "))
            };
            Row::Cells(vec![
                TableCell::plain(system.name.clone()),
                TableCell::plain(system.structure.clone()),
                TableCell::plain(row),
                TableCell::plain(system.differs.clone()),
            ])
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        numeric: false,
        headers: [
            "system",
            "its timer structure",
            "row here",
            "what differs, and whether it moves the numbers",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows,
    })
}

/// The algorithms with family, exactness, parameters and summary.
pub fn algorithms_table(model: &Model) -> Table {
    let rows = family_rows(model, |i| {
        let a = &model.algorithms[i];
        vec![
            TableCell::plain(if a.exact { "exact" } else { "inexact" }),
            TableCell::plain(a.params.clone()),
            TableCell::plain(a.summary.clone()),
        ]
    });
    Table {
        numeric: false,
        headers: ["algorithm", "timing", "parameters", "summary"]
            .map(str::to_owned)
            .to_vec(),
        rows,
    }
}

/// The memory probe as "16 KiB: 1.2 ns, ..., 64 MiB: 95 ns", or a note that
/// the results have none.
fn memory_latency(probe: &[crate::input::MemoryLatency]) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = KIB * KIB;
    if probe.is_empty() {
        return "not measured".to_owned();
    }
    probe
        .iter()
        .map(|p| {
            let size = if p.bytes >= MIB {
                format!("{} MiB", p.bytes / MIB)
            } else {
                format!("{} KiB", p.bytes / KIB)
            };
            format!("{size}: {} ns", format_ns(p.ns_per_load))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The run metadata as (field, value) rows.
pub fn metadata_table(model: &Model) -> Table {
    let m = &model.results.metadata;
    let floor = m.clock_floor_ns;
    let fields = [
        (
            "machine",
            format!("{} ({} logical cores)", m.cpu_model, m.cores),
        ),
        ("clock source", m.clock_source.clone()),
        (
            "clock floor (empty timed region)",
            format!(
                "p50 {} ns, p99 {} ns, p99.9 {} ns, max {} ns",
                floor.p50_ns, floor.p99_ns, floor.p999_ns, floor.max_ns
            ),
        ),
        (
            "memory latency (dependent load)",
            memory_latency(&m.memory_latency_ns),
        ),
        ("rustc", m.rustc.clone()),
        ("build profile", m.build_profile.clone()),
        ("seed", m.seed.to_string()),
        ("scale", m.scale.clone()),
        ("driver", m.driver.clone()),
        (
            "git commit",
            format!(
                "{}{}",
                m.git_commit,
                if m.git_dirty {
                    " (with uncommitted changes)"
                } else {
                    ""
                }
            ),
        ),
        ("date (UTC)", m.date_utc.clone()),
        ("run time", format!("{:.1} s", m.wall_seconds)),
        (
            "host contention (steal)",
            m.steal_seconds.map_or_else(
                || "not measured".to_owned(),
                |s| format!("{s:.1} s of CPU taken by the hypervisor during the run"),
            ),
        ),
        (
            "repetitions",
            match m.batched_repetitions {
                Some(batched) if batched < m.repetitions => format!(
                    "{} whole passes per cell and {batched} batched ones (the per-kind split) \
                     spread among them, interleaved; a heavy cell runs 3 and 1",
                    m.repetitions
                ),
                _ => format!("{} per timed pass, interleaved", m.repetitions),
            },
        ),
        ("interval of a median", m.statistics.median_ci.clone()),
        ("interval of a ratio", m.statistics.ratio_ci.clone()),
        ("ties", m.statistics.tie_rule.clone()),
        (
            "per-kind split",
            format!(
                "batched passes; flagged where their total strays more than {:.0}% from the whole pass's",
                m.statistics.consistency_tolerance * 100.0
            ),
        ),
        (
            "replay loop's own cost (in every all-in figure; not subtracted)",
            m.replay_overhead
                .iter()
                .map(|o| format!("{} {} ns", o.workload, format_ns(o.ns_per_op)))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ];
    Table {
        numeric: false,
        headers: ["field", "value"].map(str::to_owned).to_vec(),
        rows: fields
            .into_iter()
            .map(|(k, v)| Row::Cells(vec![TableCell::plain(k), TableCell::plain(v)]))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        Table {
            numeric: true,
            headers: vec!["algorithm".into(), "w|1".into()],
            rows: vec![
                Row::Heading("seed family".into()),
                Row::Cells(vec![
                    TableCell::plain("a<b"),
                    TableCell {
                        text: "12.5".into(),
                        best: true,
                        percent: Some(100.0),
                    },
                ]),
            ],
        }
    }

    #[test]
    fn html_escapes_and_highlights() {
        let html = sample().to_html();
        assert!(html.contains("<th>a&lt;b</th>"), "{html}");
        assert!(html.contains("class=\"best\""), "{html}");
        assert!(html.contains("colspan=\"2\""), "{html}");
    }

    #[test]
    fn markdown_bolds_the_best_and_escapes_pipes() {
        let md = sample().to_markdown();
        assert!(md.starts_with("| algorithm | w\\|1 |\n|---|---|\n"), "{md}");
        assert!(md.contains("| *seed family* |  |"), "{md}");
        assert!(md.contains("**12.5**"), "{md}");
    }

    #[test]
    fn memory_probe_sizes_read_as_kib_and_mib() {
        use crate::input::MemoryLatency;
        let probe = [
            MemoryLatency {
                bytes: 16 * 1024,
                ns_per_load: 1.25,
            },
            MemoryLatency {
                bytes: 64 << 20,
                ns_per_load: 95.04,
            },
        ];
        assert_eq!(memory_latency(&probe), "16 KiB: 1.25 ns, 64 MiB: 95.0 ns");
        assert_eq!(memory_latency(&[]), "not measured");
    }

    #[test]
    fn bytes_read_as_b_kib_and_mib() {
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1536), "1.50 KiB");
        assert_eq!(format_bytes(3 << 20), "3.00 MiB");
    }

    #[test]
    fn a_workload_that_drains_gets_a_table_of_the_memory_kept() {
        // The fixture predates the retained columns: no workload drains.
        let mut results = crate::fixture_model().results;
        assert!(drained_workloads(&Model::new(results.clone())).is_empty());
        // Give `uniform` a drained end: binary-heap keeps half its peak,
        // sorted-list gives everything back.
        for run in results.runs.iter_mut().filter(|r| r.workload == "uniform") {
            let peak = 1 << 20;
            let kept = if run.algorithm == "sorted-list" {
                0
            } else {
                peak / 2
            };
            run.peak_bytes = Some(peak);
            run.retained_bytes = Some(peak);
            run.retained_pending = Some(run.max_pending / 20);
            run.quiet_bytes = Some(kept);
            run.quiet_pending = Some(0);
        }
        let model = Model::new(results);
        assert_eq!(drained_workloads(&model), ["uniform"]);
        let table = retained_table(&model, "uniform");
        let row = |name: &str| -> Vec<TableCell> {
            table
                .rows
                .iter()
                .find_map(|row| match row {
                    Row::Cells(cells) if cells[0].text == name => Some(cells.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| panic!("no row {name}"))
        };
        let heap = row("binary-heap");
        assert_eq!(heap[1].text, "1.00 MiB");
        assert!(heap[2].text.starts_with("1.00 MiB ("), "{}", heap[2].text);
        assert_eq!(heap[3].text, "512.00 KiB");
        assert_eq!(heap[4].text, "50%");
        assert!(!heap[3].best);
        let list = row("sorted-list");
        assert_eq!((list[3].text.as_str(), list[3].best), ("0 B", true));
    }

    #[test]
    fn heat_goes_from_green_to_red() {
        assert_eq!(hex(heat_colour(100.0)), "#c7e9c0");
        assert_eq!(hex(heat_colour(10_000.0)), "#ff7373");
        assert_eq!(hex(heat_colour(1e9)), "#ff7373");
        assert!(heat_colour(150.0) > heat_colour(1000.0));
    }

    #[test]
    fn a_parameter_table_has_a_row_per_point_under_each_workload() {
        let model = crate::fixture_sweep_model();
        let sweeps = parameters::sweeps(&model);
        let hashed = &sweeps[0];
        let workloads = parameters::on_workloads(&model, hashed);
        let table = parameter_table(hashed, &workloads);
        assert_eq!(table.headers, PARAMETER_HEADERS);
        assert_eq!(
            table.rows.len(),
            workloads.len() * (1 + hashed.members.len())
        );
        let markdown = table.to_markdown();
        assert!(markdown.contains("| *scaling-1e4* |"), "{markdown}");
        assert!(
            markdown.contains(
                "| slots=4096 | hashed-wheel@slots=4096 | skipped | skipped | skipped | skipped | skipped |"
            ),
            "{markdown}"
        );
        // Exact rows at the same lateness: only the cheaper is on that
        // frontier; the larger wheel costs memory for its speed, so both are
        // on the other.
        let uniform = &table.rows[1..3];
        let flags = |row: &Row| match row {
            Row::Cells(cells) => (cells[5].text.clone(), cells[6].text.clone()),
            Row::Heading(_) => panic!("a heading"),
        };
        assert_eq!(flags(&uniform[0]), ("no".to_owned(), "yes".to_owned()));
        assert_eq!(flags(&uniform[1]), ("yes".to_owned(), "yes".to_owned()));
    }

    #[test]
    fn the_contract_cost_table_has_a_column_per_pair_and_sets_adapters_aside() {
        let mut model = crate::fixture_model();
        assert!(contract_cost_table(&model).is_none(), "no pairs, no table");
        model
            .results
            .contract_cost
            .push(crate::input::ContractCostRow {
                workload: "timeouts".into(),
                native: "nexus-timer-native".into(),
                contract: "nexus-timer".into(),
                native_ns: 20.0,
                contract_ns: 25.0,
                ratio: 1.25,
                ratio_ci_low: Some(1.2),
                ratio_ci_high: Some(1.3),
                tied: Some(false),
                ..Default::default()
            });
        let table = contract_cost_table(&model).expect("a pair");
        assert_eq!(table.headers[1], "nexus-timer / nexus-timer-native");
        assert_eq!(table.rows.len(), 1, "only the workload with a pair");
        let markdown = table.to_markdown();
        assert!(
            markdown.contains("1.25x [1.20, 1.30] (25.0 / 20.0 ns)"),
            "{markdown}"
        );
        // The adapter with a native twin leaves the `crate` family's contest.
        let verdict = summary::workload_verdict(&model, "timeouts").expect("measured");
        assert!(
            verdict
                .best_crate
                .is_none_or(|best| best.best.name != "nexus-timer"),
        );
    }
}
