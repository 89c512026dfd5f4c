//! The real kernel traces beside the synthetic workloads they resemble: the
//! report's answer to "was the synthetic shape right?".
//!
//! Each real trace of the run (`metadata.json`'s `real_traces`, which the
//! harness writes because this crate links no workload) names its *twin*,
//! the synthetic built-in closest to it in purpose. For each pair the
//! section sets side by side two things:
//!
//! * **The shape**: the two tapes' cancelled and re-armed shares, delay
//!   percentiles and peak pending, as the metadata carries them, each pair
//!   called *near* when within [`NEAR_FACTOR`] of each other. A share is
//!   held to that on both sides, the share and what is left of it, so that
//!   68% and 96% cancelled, whose remainders are 32% and 4%, are not near;
//!   and two shares within [`NEAR_SHARE`], a percentage point, are (0.1%
//!   and none are alike). The tape's size is shown, not judged.
//! * **The times and the ranking**: every design's all-in median ns per
//!   operation (the summary's figure) on both workloads, its rank on each,
//!   and Spearman's correlation of the two rankings (the threaded section's
//!   [`spearman`], one helper for both). Only designs measured on both take
//!   part, so a design skipped on one does not shift the other's ranks.
//!
//! The prose is worded from those figures alone: which shape figures the twin
//! had near and which it did not, whether the two rankings agree, and which
//! design is fastest on each. Nothing in it is typed by hand.
//!
//! A run whose metadata lists no real traces but whose workloads carry the
//! traces' `real-` prefix predates the list: the section says so and names
//! `make results`, which writes it. A run without real traces has no section.

use crate::input::{RealTraceEntry, TapeShape};
use crate::model::Model;
use crate::summary::{self, format_count, format_ns};
use crate::tables::{Row, Table, TableCell};
use crate::threaded::{ranks, spearman};

/// The title of the section.
pub const REAL_TITLE: &str = "Real kernel traces against their synthetic twins";

/// The prefix the workloads crate gives every real trace's name.
const REAL_PREFIX: &str = "real-";

/// How far apart two shape figures may be and still be called near (the
/// factor the workloads README's comparison uses).
const NEAR_FACTOR: f64 = 1.5;

/// Two shares this close are near whatever their ratio: 0.1% and none
/// are both "almost never".
const NEAR_SHARE: f64 = 0.01;

/// How the names of the share figures end.
const SHARE_SUFFIX: &str = " share";

/// The figure that is the tape's size, not its shape: shown, never judged
/// near or off (a capture of seconds is as long as it was).
const SIZE_FIGURE: &str = "measured operations";

/// Spearman's correlation at or above which two rankings are said to agree.
const AGREE_RHO: f64 = 0.8;

/// Spearman's correlation below which two rankings are said to differ.
const DIFFER_RHO: f64 = 0.5;

/// What the section shows.
#[derive(Debug, PartialEq)]
pub enum RealSection {
    /// The run has real traces but predates their metadata: the sentence.
    Predates(String),
    /// Per real trace: its heading sentence, the shape table, the time
    /// table (when any design ran on it) and the prose.
    Pairs(Vec<Pair>),
}

/// One real trace and its twin.
#[derive(Debug, PartialEq)]
pub struct Pair {
    /// What the trace is and what it is set beside.
    pub heading: String,
    /// The two shapes, figure by figure.
    pub shape: Table,
    /// Each design's time and rank on both.
    pub times: Option<Table>,
    /// Where the twin was right and where not.
    pub prose: String,
}

/// The section for `model`, or `None` when the run has no real traces.
pub fn section(model: &Model) -> Option<RealSection> {
    let entries = &model.results.metadata.real_traces;
    if entries.is_empty() {
        let real: Vec<&str> = model
            .workloads
            .iter()
            .filter(|w| w.starts_with(REAL_PREFIX))
            .map(String::as_str)
            .collect();
        return (!real.is_empty()).then(|| {
            RealSection::Predates(format!(
                "This run predates the metadata's list of real traces (`real_traces` in \
                 metadata.json), so its real workloads ({}) cannot be set beside their synthetic \
                 twins here; `make results` with this checkout writes it.",
                real.join(", ")
            ))
        });
    }
    Some(RealSection::Pairs(
        entries.iter().map(|entry| pair(model, entry)).collect(),
    ))
}

/// One real trace's part of the section.
fn pair(model: &Model, entry: &RealTraceEntry) -> Pair {
    let twin = entry.resembles.as_deref().zip(entry.twin_shape.as_ref());
    let heading = match twin {
        Some((name, _)) => format!(
            "`{}` ({} timers of `{}`) beside its twin `{name}`:",
            entry.workload, entry.timers, entry.file
        ),
        None => format!(
            "`{}` ({} timers of `{}`); its twin was not in this run:",
            entry.workload, entry.timers, entry.file
        ),
    };
    let figures = shape_figures(&entry.shape, twin.map(|(_, shape)| shape));
    let ranking = twin.map(|(name, _)| Ranking::of(model, &entry.workload, name));
    let times = ranking
        .as_ref()
        .filter(|r| !r.algorithms.is_empty())
        .map(Ranking::table);
    let prose = match (twin, &ranking) {
        (Some((name, _)), Some(ranking)) => {
            format!(
                "{} {}",
                shape_prose(&entry.workload, name, &figures),
                ranking.prose(&entry.workload, name)
            )
        }
        _ => String::new(),
    };
    Pair {
        heading,
        shape: shape_table(&figures, twin.is_some()),
        times,
        prose,
    }
}

/// One figure of a shape: its name, and its value on the trace and on the
/// twin, each as (value, text).
#[derive(Debug, PartialEq)]
struct Figure {
    name: &'static str,
    real: Option<(f64, String)>,
    twin: Option<(f64, String)>,
}

impl Figure {
    /// Whether the two values are within [`NEAR_FACTOR`] (or both zero; a
    /// share and its remainder both); `None` when one is missing.
    fn near(&self) -> Option<bool> {
        if self.name == SIZE_FIGURE {
            return None;
        }
        let (a, b) = (self.real.as_ref()?.0, self.twin.as_ref()?.0);
        if !self.name.ends_with(SHARE_SUFFIX) {
            return Some(near(a, b));
        }
        Some((near(a, b) && near(1.0 - a, 1.0 - b)) || (a - b).abs() <= NEAR_SHARE)
    }
}

/// Whether `a` and `b` are within [`NEAR_FACTOR`] of each other: equal, or
/// both positive with the larger at most that factor above the smaller.
pub fn near(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    a > 0.0 && b > 0.0 && a.max(b) / a.min(b) <= NEAR_FACTOR
}

/// The shape figures of `real` and `twin`, in the table's order.
fn shape_figures(real: &TapeShape, twin: Option<&TapeShape>) -> Vec<Figure> {
    type Of = fn(&TapeShape) -> Option<(f64, String)>;
    let rows: [(&'static str, Of); 8] = [
        (SIZE_FIGURE, |s| count(s.measured_ops)),
        ("cancelled share", |s| share(s.cancelled_share)),
        ("re-armed share", |s| share(s.rescheduled_share)),
        ("delay p50", |s| delay(s.delay_p50_s)),
        ("delay p90", |s| delay(s.delay_p90_s)),
        ("delay p99", |s| delay(s.delay_p99_s)),
        ("delay max", |s| delay(s.delay_max_s)),
        ("peak pending", |s| count(s.peak_pending)),
    ];
    rows.into_iter()
        .map(|(name, of)| Figure {
            name,
            real: of(real),
            twin: twin.and_then(of),
        })
        .collect()
}

/// A share as a value and its text.
fn share(v: f64) -> Option<(f64, String)> {
    Some((v, format!("{:.1}%", v * 100.0)))
}

/// A delay in seconds, if any, as a value and its text.
fn delay(v: Option<f64>) -> Option<(f64, String)> {
    v.map(|s| (s, seconds(s)))
}

/// A count as a value and its text.
fn count(v: u64) -> Option<(f64, String)> {
    Some((v as f64, format_count(v)))
}

/// A delay in seconds, in the largest unit it reaches, to three significant
/// digits.
pub fn seconds(s: f64) -> String {
    let (value, unit) = [(3600.0, "h"), (60.0, "min"), (1.0, "s"), (1e-3, "ms")]
        .into_iter()
        .find(|&(size, _)| s >= size)
        .map_or((s * 1e6, "µs"), |(size, unit)| (s / size, unit));
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    format!("{value:.decimals$} {unit}")
}

/// The shape table: a figure a row, the trace's and the twin's values, and
/// whether they are near.
fn shape_table(figures: &[Figure], with_twin: bool) -> Table {
    let text = |v: &Option<(f64, String)>| v.as_ref().map_or("–".to_owned(), |(_, t)| t.clone());
    let rows = figures
        .iter()
        .map(|f| {
            let mut cells = vec![cell(f.name), cell(text(&f.real))];
            if with_twin {
                cells.push(cell(text(&f.twin)));
                cells.push(cell(match f.near() {
                    Some(true) => "near",
                    Some(false) => "off",
                    None => "–",
                }));
            }
            Row::Cells(cells)
        })
        .collect();
    let mut headers = vec!["figure".to_owned(), "real trace".to_owned()];
    if with_twin {
        headers.extend(["synthetic twin", "within 1.5x"].map(str::to_owned));
    }
    Table {
        numeric: true,
        headers,
        rows,
    }
}

/// The sentence of which shape figures the twin had near and which not.
fn shape_prose(real: &str, twin: &str, figures: &[Figure]) -> String {
    let (mut right, mut wrong) = (Vec::new(), Vec::new());
    for figure in figures {
        let (Some(near), Some((_, a)), Some((_, b))) = (figure.near(), &figure.real, &figure.twin)
        else {
            continue;
        };
        if near {
            right.push(format!("{} ({a} against {b})", figure.name));
        } else {
            wrong.push(format!("{} ({a} against {b})", figure.name));
        }
    }
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(", ")
        }
    };
    format!(
        "The shape of `{twin}` was near `{real}`'s in {} of {} figures: {}; it was off in {}.",
        right.len(),
        right.len() + wrong.len(),
        list(&right),
        list(&wrong)
    )
}

/// The designs measured on both workloads, their times and ranks.
#[derive(Debug, PartialEq)]
struct Ranking {
    algorithms: Vec<String>,
    real_ns: Vec<f64>,
    twin_ns: Vec<f64>,
}

impl Ranking {
    /// The designs of `model` (variant rows excluded) measured on both
    /// `real` and `twin`, in display order.
    fn of(model: &Model, real: &str, twin: &str) -> Self {
        let mut ranking = Ranking {
            algorithms: Vec::new(),
            real_ns: Vec::new(),
            twin_ns: Vec::new(),
        };
        for algorithm in &model.algorithms {
            let on = |workload| summary::cell(model, &algorithm.name, workload).value();
            if let (Some(a), Some(b)) = (on(real), on(twin)) {
                ranking.algorithms.push(algorithm.name.clone());
                ranking.real_ns.push(a);
                ranking.twin_ns.push(b);
            }
        }
        ranking
    }

    /// The table: a design a row, its time and rank on each, and Spearman's
    /// correlation in a last row.
    fn table(&self) -> Table {
        let (real_ranks, twin_ranks) = (ranks(&self.real_ns), ranks(&self.twin_ns));
        let mut rows: Vec<Row> = self
            .algorithms
            .iter()
            .enumerate()
            .map(|(i, algorithm)| {
                Row::Cells(vec![
                    cell(algorithm.clone()),
                    cell(format_ns(self.real_ns[i])),
                    cell(rank(real_ranks[i])),
                    cell(format_ns(self.twin_ns[i])),
                    cell(rank(twin_ranks[i])),
                ])
            })
            .collect();
        rows.push(Row::Cells(vec![
            cell("Spearman's rho of the two rankings"),
            cell(""),
            cell(self.rho().map_or("–".to_owned(), |r| format!("{r:.2}"))),
            cell(""),
            cell(""),
        ]));
        Table {
            numeric: true,
            headers: ["algorithm", "real: ns/op", "rank", "twin: ns/op", "rank"]
                .map(str::to_owned)
                .to_vec(),
            rows,
        }
    }

    /// Spearman's correlation of the two rankings.
    fn rho(&self) -> Option<f64> {
        spearman(&self.real_ns, &self.twin_ns)
    }

    /// The sentences on the ranking: its agreement and the fastest on each.
    fn prose(&self, real: &str, twin: &str) -> String {
        let Some(rho) = self.rho() else {
            return format!(
                "Fewer than three designs were measured on both `{real}` and `{twin}`, too few \
                 to compare their rankings."
            );
        };
        let agreement = if rho >= AGREE_RHO {
            "agree"
        } else if rho >= DIFFER_RHO {
            "agree in part"
        } else {
            "differ"
        };
        // The first in display order among equal medians.
        let fastest = |times: &[f64]| {
            let best = (0..times.len())
                .min_by(|&a, &b| times[a].total_cmp(&times[b]))
                .unwrap_or(0);
            self.algorithms[best].clone()
        };
        let (on_real, on_twin) = (fastest(&self.real_ns), fastest(&self.twin_ns));
        let fastest = if on_real == on_twin {
            format!("`{on_real}` is the fastest on both")
        } else {
            format!("the fastest is `{on_real}` on the trace and `{on_twin}` on the twin")
        };
        format!(
            "Over the {} designs measured on both, the rankings {agreement} (Spearman's rho \
             {rho:.2}; at least {AGREE_RHO} reads as agreeing, below {DIFFER_RHO} as differing), \
             and {fastest}.",
            self.algorithms.len()
        )
    }
}

/// A rank as the tables print it: whole, or halves for ties.
fn rank(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// A plain table cell.
fn cell(text: impl Into<String>) -> TableCell {
    TableCell {
        text: text.into(),
        ..TableCell::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(cancelled: f64, p50: f64, peak: u64) -> TapeShape {
        TapeShape {
            measured_ops: 1_000,
            inserts: 500,
            cancelled_share: cancelled,
            rescheduled_share: 0.0,
            delay_p50_s: Some(p50),
            delay_p90_s: Some(p50),
            delay_p99_s: Some(p50),
            delay_max_s: None,
            peak_pending: peak,
        }
    }

    #[test]
    fn near_is_within_the_factor_or_equal() {
        assert!(near(0.0, 0.0));
        assert!(near(1.0, 1.5));
        assert!(near(1.5, 1.0));
        assert!(!near(1.0, 1.51));
        assert!(!near(0.0, 0.1));
        let share = |a: f64, b: f64| Figure {
            name: "re-armed share",
            real: Some((a, String::new())),
            twin: Some((b, String::new())),
        };
        assert_eq!(share(0.001, 0.0).near(), Some(true));
        assert_eq!(share(0.02, 0.0).near(), Some(false));
        // Near by the factor, far by what is left: 32% against 4% uncancelled.
        assert_eq!(share(0.677, 0.960).near(), Some(false));
        assert_eq!(share(0.40, 0.50).near(), Some(true));
    }

    #[test]
    fn delays_read_in_their_largest_unit() {
        assert_eq!(seconds(0.2), "200 ms");
        assert_eq!(seconds(0.054_1), "54.1 ms");
        assert_eq!(seconds(75.0), "1.25 min");
        assert_eq!(seconds(7_200.0), "2.00 h");
        assert_eq!(seconds(0.000_2), "200 µs");
    }

    #[test]
    fn the_shape_prose_names_what_was_near_and_what_was_off() {
        let figures = shape_figures(&shape(0.96, 0.05, 13), Some(&shape(0.95, 30.0, 10_000)));
        let prose = shape_prose("real-a", "timeouts", &figures);
        assert!(
            prose.starts_with("The shape of `timeouts` was near `real-a`'s in 2 of 6 figures"),
            "{prose}"
        );
        assert!(
            prose.contains("cancelled share (96.0% against 95.0%)"),
            "{prose}"
        );
        assert!(
            prose.contains("off in delay p50 (50.0 ms against 30.0 s)"),
            "{prose}"
        );
        // The missing delay max and the size are left out, not counted
        // either way.
        assert!(!prose.contains("delay max"), "{prose}");
        assert!(!prose.contains("measured operations"), "{prose}");
        let table = shape_table(&figures, true);
        assert_eq!(table.headers.len(), 4);
        assert_eq!(table.rows.len(), 8);
    }

    #[test]
    fn the_ranking_prose_reads_rho_and_the_fastest() {
        let ranking = Ranking {
            algorithms: ["a", "b", "c", "d"].map(str::to_owned).to_vec(),
            real_ns: vec![10.0, 20.0, 30.0, 40.0],
            twin_ns: vec![15.0, 25.0, 35.0, 45.0],
        };
        let prose = ranking.prose("real-a", "timeouts");
        assert!(
            prose.contains("the rankings agree (Spearman's rho 1.00"),
            "{prose}"
        );
        assert!(prose.contains("`a` is the fastest on both"), "{prose}");
        let reversed = Ranking {
            twin_ns: vec![45.0, 35.0, 25.0, 15.0],
            ..ranking
        };
        let prose = reversed.prose("real-a", "timeouts");
        assert!(
            prose.contains("the rankings differ (Spearman's rho -1.00"),
            "{prose}"
        );
        assert!(
            prose.contains("the fastest is `a` on the trace and `d` on the twin"),
            "{prose}"
        );
        let table = reversed.table();
        assert_eq!(table.rows.len(), 5);
        let few = Ranking {
            algorithms: vec!["a".to_owned()],
            real_ns: vec![1.0],
            twin_ns: vec![2.0],
        };
        assert!(few.prose("r", "t").contains("too few"));
    }
}
