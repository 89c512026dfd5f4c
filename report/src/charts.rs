//! The SVG charts, drawn with plotters' SVG backend (no font library: the
//! browser renders the text, plotters only estimates its size for layout).
//!
//! Every chart has a title, axis descriptions with units, and a legend panel
//! on its right drawn by `draw_legend`: algorithms grouped under their family,
//! in the model's display order, each with its colour and marker, and a note
//! where it was skipped or is inexact. Value axes are logarithmic, because
//! the algorithms differ by orders of magnitude.
//!
//! - [`latency_chart`]: per workload, p50, p99 and p99.9 of insert, cancel and
//!   expire, one line per algorithm, with the clock floor drawn.
//! - [`scaling_chart`]: ns per operation against the pending count N (log-log),
//!   with O(1), O(log n) and O(n) reference slopes. Like every line chart
//!   over N, it colours at most [`MAX_COLOURED_SERIES`] lines (the lowest at
//!   the largest N, unless `--highlight` chooses) and draws the rest in grey
//!   behind them: past about eight, colours a glance can tell apart run out.
//! - [`memory_chart`]: peak bytes per pending timer against N.
//! - [`counter_chart`]: a wasted-work counter per algorithm and workload.
//! - [`heatmap_chart`]: the summary, all-in ns per operation, algorithm x
//!   workload, coloured by the ratio to each column's best; its column
//!   headers read upwards, so that long workload names never run together.
//! - [`parameter_chart`]: per swept design and parameter, cost against
//!   lateness and against memory, one series per workload, the Pareto
//!   frontier filled and joined; each parameter value labelled once, above
//!   its highest point, labels lifted apart where they would overlap.
//!
//! Every chart but the last draws the designs only ([`Model::algorithms`]):
//! variant rows appear in the parameters charts alone.

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::model::{Algorithm, Marker, Model, Rgb};
use crate::parameters;
use crate::summary::{self, Cell, SUMMARY_OPERATION, format_count, format_ns, percent_of_best};
use crate::tables::{CountMetric, MISSING, SKIPPED, TIE_MARK, heat_colour};

/// Width of every chart, pixels (plot and legend).
pub const WIDTH: u32 = 1200;
/// Height of every chart, pixels.
pub const HEIGHT: u32 = 560;
/// Width of the legend panel on the right.
const LEGEND_WIDTH: u32 = 250;
/// Font family of all text; the browser picks the face.
const FONT: &str = "sans-serif";
/// Title font size, pixels.
const TITLE_SIZE: u32 = 22;
/// Axis description and panel caption size.
const DESC_SIZE: u32 = 15;
/// Tick label size.
const LABEL_SIZE: u32 = 13;
/// Legend text size.
const LEGEND_SIZE: u32 = 13;
/// Line width of a data series.
const LINE_WIDTH: u32 = 2;
/// Radius of a data marker.
const MARKER_SIZE: i32 = 4;
/// Headroom above and below the data on a log axis (a factor).
const LOG_MARGIN: f64 = 1.6;
/// The percentiles of the latency chart, as (column label, x position).
const PERCENTILES: [&str; 3] = ["p50", "p99", "p99.9"];
/// The operations of the latency chart.
pub const LATENCY_OPERATIONS: [&str; 3] = ["insert", "cancel", "expire"];
/// The operations of the scaling charts, when the workloads have them.
pub const SCALING_OPERATIONS: [&str; 5] = ["insert", "cancel", "reschedule", "expire", "all"];
/// Grey of reference lines and the clock floor.
const REFERENCE_GREY: RGBColor = RGBColor(90, 90, 90);

/// A drawn chart: its file name, title and SVG text, and the algorithms it
/// draws a series for.
#[derive(Clone, Debug)]
pub struct Chart {
    /// File name in the report directory, e.g. `latency-uniform.svg`.
    pub file: String,
    /// The chart's title.
    pub title: String,
    /// The SVG document.
    pub svg: String,
    /// Its height in pixels (the width is [`WIDTH`]).
    pub height: u32,
    /// Names of the algorithms with at least one drawn point.
    pub series: Vec<String>,
}

/// A wasted-work counter of `runs.csv`.
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    /// The column name (and file name stem).
    pub column: &'static str,
    /// What the counter is, for the title.
    pub title: &'static str,
}

/// The counters of the wasted-work charts.
pub const COUNTERS: [Counter; 3] = [
    Counter {
        column: "empty_slot_visits",
        title: "Empty ticks: slot visits that fired nothing",
    },
    Counter {
        column: "entries_examined_not_due",
        title: "Entries examined but not due",
    },
    Counter {
        column: "cascades",
        title: "Cascades: entries moved to a finer wheel level",
    },
];

impl Counter {
    /// The counter's value on a run row (`None` when skipped).
    fn value(self, run: &crate::input::RunRow) -> Option<u64> {
        match self.column {
            "empty_slot_visits" => run.empty_slot_visits,
            "entries_examined_not_due" => run.entries_examined_not_due,
            _ => run.cascades,
        }
    }
}

/// One legend line.
struct LegendEntry {
    label: String,
    colour: RGBColor,
    marker: Option<Marker>,
    dashed: bool,
    dimmed: bool,
    /// Whether the swatch has a line (a series) or only its marker (a kind
    /// of point).
    line: bool,
    /// Whether the marker is drawn hollow.
    hollow: bool,
}

impl LegendEntry {
    fn algorithm(algorithm: &Algorithm, note: Option<String>) -> Self {
        // Greyed out only when the chart has nothing of the algorithm.
        let dimmed = matches!(note.as_deref(), Some("skipped" | "no data"));
        let label = match note {
            Some(note) => format!("{} ({note})", algorithm.label()),
            None => algorithm.label(),
        };
        Self {
            label,
            colour: rgb(algorithm.colour),
            marker: Some(algorithm.marker),
            dashed: false,
            dimmed,
            line: true,
            hollow: false,
        }
    }

    fn reference(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            colour: REFERENCE_GREY,
            marker: None,
            dashed: true,
            dimmed: false,
            line: true,
            hollow: false,
        }
    }

    /// A series that is not an algorithm (a workload), in `colour`.
    fn series(label: &str, colour: RGBColor, marker: Marker) -> Self {
        Self {
            label: label.to_owned(),
            colour,
            marker: Some(marker),
            dashed: false,
            dimmed: false,
            line: true,
            hollow: false,
        }
    }

    /// A kind of point: its marker alone, filled or hollow.
    fn point(label: &str, hollow: bool) -> Self {
        Self {
            label: label.to_owned(),
            colour: REFERENCE_GREY,
            marker: Some(Marker::Circle),
            dashed: false,
            dimmed: false,
            line: false,
            hollow,
        }
    }
}

fn rgb(colour: Rgb) -> RGBColor {
    RGBColor(colour.0, colour.1, colour.2)
}

/// Converts a plotters error (generic over the backend) into anyhow.
fn plot_err<E: std::fmt::Debug>(error: E) -> anyhow::Error {
    anyhow!("drawing a chart failed: {error:?}")
}

/// Draws `marker` at each of `points` on a chart with f64 axes.
fn draw_markers<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    marker: Marker,
    colour: RGBColor,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let filled = colour.filled();
    let s = MARKER_SIZE;
    let at = points.iter().copied();
    match marker {
        Marker::Circle => chart
            .draw_series(at.map(|p| Circle::new(p, s, filled)))
            .map(drop),
        Marker::Triangle => chart
            .draw_series(at.map(|p| TriangleMarker::new(p, s + 1, filled)))
            .map(drop),
        Marker::Square => chart
            .draw_series(
                at.map(|p| EmptyElement::at(p) + Rectangle::new([(-s, -s), (s, s)], filled)),
            )
            .map(drop),
        Marker::Cross => chart
            .draw_series(at.map(|p| Cross::new(p, s, colour.stroke_width(2))))
            .map(drop),
    }
    .map_err(plot_err)
}

/// Draws an algorithm's series: a line through `points` with its marker at
/// each, in its colour.
fn draw_line<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    algorithm: &Algorithm,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let colour = rgb(algorithm.colour);
    chart
        .draw_series(LineSeries::new(
            points.iter().copied(),
            colour.stroke_width(LINE_WIDTH),
        ))
        .map_err(plot_err)?;
    draw_markers(chart, points, algorithm.marker, colour)
}

/// Draws each point's interval as a vertical error bar with caps, and a white
/// centre on every flagged point, so that it reads as hollow.
fn draw_extras<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    points: &[(f64, f64)],
    extras: &[PointExtra],
    algorithm: &Algorithm,
) -> Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let colour = rgb(algorithm.colour);
    for (&(x, y), extra) in points.iter().zip(extras) {
        if let Some((lo, hi)) = extra.interval {
            let cap = ERROR_CAP;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, lo), (x, hi)],
                    colour.stroke_width(1),
                )))
                .map_err(plot_err)?;
            for end in [lo, hi] {
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x, end))
                            + PathElement::new(vec![(-cap, 0), (cap, 0)], colour.stroke_width(1)),
                    ))
                    .map_err(plot_err)?;
            }
        }
        if extra.flagged {
            chart
                .draw_series(std::iter::once(Circle::new(
                    (x, y),
                    MARKER_SIZE - 2,
                    WHITE.filled(),
                )))
                .map_err(plot_err)?;
        }
    }
    Ok(())
}

/// Half the width of an error bar's caps, in pixels.
const ERROR_CAP: i32 = 4;

/// Draws `marker` at pixel `at` of a plain drawing area (the legend).
fn draw_pixel_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    marker: Marker,
    colour: RGBColor,
) -> Result<()> {
    let filled = colour.filled();
    let s = MARKER_SIZE;
    let (x, y) = at;
    match marker {
        Marker::Circle => area.draw(&Circle::new(at, s, filled)),
        Marker::Triangle => area.draw(&TriangleMarker::new(at, s + 1, filled)),
        Marker::Square => area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], filled)),
        Marker::Cross => area.draw(&Cross::new(at, s, colour.stroke_width(2))),
    }
    .map_err(plot_err)
}

/// An f64 axis with chosen ticks: it maps values as the axis it wraps
/// (linear or logarithmic), but its ticks are exactly the given points, so
/// that a category axis can name its categories and a log axis spanning less
/// than a decade still has labels.
#[derive(Clone)]
struct Ticked<R> {
    axis: R,
    ticks: Vec<f64>,
}

impl<R: Ranged<ValueType = f64>> Ranged for Ticked<R> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.axis.map(value, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.axis.range()
    }
}

/// A linear axis over `range` whose ticks are category centres.
fn categories(range: std::ops::Range<f64>, centres: Vec<f64>) -> Ticked<RangedCoordf64> {
    Ticked {
        axis: range.into(),
        ticks: centres,
    }
}

/// A logarithmic axis from `lo` to `hi` with [`log_ticks`].
fn log_axis((lo, hi): (f64, f64)) -> Ticked<LogCoord<f64>> {
    Ticked {
        axis: (lo..hi).log_scale().into(),
        ticks: log_ticks(lo, hi),
    }
}

/// Ticks of a log axis: 1, 2 and 5 times each power of ten inside `[lo, hi]`,
/// or only the powers of ten when that would be more than `MAX_TICKS`, or every
/// integer mantissa when 1-2-5 would give fewer than `MIN_TICKS`.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    const MAX_TICKS: usize = 12;
    const MIN_TICKS: usize = 4;
    let ticks = |mantissas: &[f64]| -> Vec<f64> {
        (lo.log10().floor() as i32..=hi.log10().ceil() as i32)
            .flat_map(|d| mantissas.iter().map(move |m| m * 10f64.powi(d)))
            .filter(|t| (lo..=hi).contains(t))
            .collect()
    };
    let one_two_five = ticks(&[1.0, 2.0, 5.0]);
    if one_two_five.len() > MAX_TICKS {
        ticks(&[1.0])
    } else if one_two_five.len() < MIN_TICKS {
        // Less than a decade: every integer mantissa.
        ticks(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    } else {
        one_two_five
    }
}

/// Draws the legend into `area`: entries grouped under headings.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    groups: &[(String, Vec<LegendEntry>)],
) -> Result<()> {
    const TOP: i32 = 8;
    const LEFT: i32 = 6;
    const SWATCH: i32 = 26;
    let rows: i32 = groups.iter().map(|(_, e)| e.len() as i32 + 1).sum();
    let height = area.dim_in_pixel().1 as i32;
    let step = ((height - 2 * TOP) / rows.max(1)).clamp(11, 19);
    let heading = (FONT, LEGEND_SIZE).into_font().style(FontStyle::Bold);
    let mut y = TOP;
    for (title, entries) in groups {
        area.draw(&Text::new(title.clone(), (LEFT, y), heading.clone()))
            .map_err(plot_err)?;
        y += step;
        for entry in entries {
            let mid = y + step / 2 - 2;
            let colour = if entry.dimmed {
                entry.colour.mix(0.35)
            } else {
                entry.colour.to_rgba()
            };
            let line = [(LEFT, mid), (LEFT + SWATCH, mid)];
            if !entry.line {
                // A kind of point: no line, only the marker below.
            } else if entry.dashed {
                // Three dashes, drawn as separate segments.
                for dash in 0..3 {
                    let x = LEFT + dash * 10;
                    area.draw(&PathElement::new(
                        [(x, mid), (x + 6, mid)],
                        colour.stroke_width(LINE_WIDTH),
                    ))
                    .map_err(plot_err)?;
                }
            } else {
                area.draw(&PathElement::new(line, colour.stroke_width(LINE_WIDTH)))
                    .map_err(plot_err)?;
            }
            if let Some(marker) = entry.marker {
                draw_pixel_marker(
                    area,
                    (LEFT + SWATCH / 2, mid),
                    marker,
                    RGBColor(colour.0, colour.1, colour.2),
                )?;
                if entry.hollow {
                    area.draw(&Circle::new(
                        (LEFT + SWATCH / 2, mid),
                        MARKER_SIZE - 2,
                        WHITE.filled(),
                    ))
                    .map_err(plot_err)?;
                }
            }
            let text_colour = if entry.dimmed {
                RGBColor(140, 140, 140)
            } else {
                BLACK
            };
            area.draw(&Text::new(
                entry.label.clone(),
                (LEFT + SWATCH + 6, y),
                (FONT, LEGEND_SIZE).into_font().color(&text_colour),
            ))
            .map_err(plot_err)?;
            y += step;
        }
    }
    Ok(())
}

/// The legend groups of the model's algorithms with per-algorithm notes, and
/// an extra group for reference lines.
fn legend_groups(
    model: &Model,
    note: impl Fn(&Algorithm) -> Option<String>,
    references: &[&str],
    dimmed: &dyn Fn(&str) -> bool,
) -> Vec<(String, Vec<LegendEntry>)> {
    let mut groups: Vec<(String, Vec<LegendEntry>)> = model
        .families()
        .into_iter()
        .map(|family| {
            let entries = model
                .algorithms
                .iter()
                .filter(|a| a.family == family)
                .map(|a| {
                    let mut entry = LegendEntry::algorithm(a, note(a));
                    if dimmed(&a.name) {
                        entry.colour = CONTEXT_GREY;
                        entry.dimmed = true;
                    }
                    entry
                })
                .collect();
            (format!("{family} family"), entries)
        })
        .collect();
    if !references.is_empty() {
        groups.push((
            "reference".to_owned(),
            references
                .iter()
                .map(|r| LegendEntry::reference(r))
                .collect(),
        ));
    }
    groups
}

/// A log-scale range covering `values` with headroom; `None` without a
/// positive value.
pub fn log_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    (hi > 0.0).then(|| (lo / LOG_MARGIN, hi * LOG_MARGIN))
}

/// A count for an axis label: `1e6`-style powers of ten, plain digits below 10 000.
pub fn axis_number(v: f64) -> String {
    if v <= 0.0 {
        return "0".to_owned();
    }
    if v >= 10_000.0 {
        let exponent = v.log10().floor();
        let mantissa = v / 10f64.powf(exponent);
        if (mantissa - mantissa.round()).abs() < 1e-6 {
            format!("{}e{exponent}", mantissa.round())
        } else {
            format!("{mantissa:.1}e{exponent}")
        }
    } else if v >= 1.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// A drawing area of an SVG document, in pixels.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Sets up an SVG document: white background, title, and the split into a
/// plot area and a legend area.
fn canvas<'a>(svg: &'a mut String, title: &str) -> Result<(Area<'a>, Area<'a>, Area<'a>)> {
    let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    let body = root
        .titled(title, (FONT, TITLE_SIZE).into_font().style(FontStyle::Bold))
        .map_err(plot_err)?;
    let (plot, legend) = body.split_horizontally(WIDTH - LEGEND_WIDTH);
    Ok((root, plot, legend))
}

/// The latency chart of one workload: three panels (insert, cancel, expire),
/// each with p50, p99 and p99.9 per algorithm on a log axis, and the clock
/// floor's p50 as a dashed line.
pub fn latency_chart(model: &Model, workload: &str) -> Result<Chart> {
    let floor = model.results.metadata.clock_floor_ns.p50_ns as f64;
    let values = model.algorithms.iter().flat_map(|a| {
        LATENCY_OPERATIONS
            .iter()
            .filter_map(|op| model.latency(&a.name, workload, op))
            .flat_map(|l| [l.p50_ns as f64, l.p99_ns as f64, l.p999_ns as f64])
    });
    let (y_lo, y_hi) = log_range(values.chain([floor])).unwrap_or((1.0, 10.0));
    let title = format!("Latency percentiles on {workload} (ns per operation, log scale)");
    let mut svg = String::new();
    let mut series: Vec<String> = Vec::new();
    {
        let (root, plot, legend) = canvas(&mut svg, &title)?;
        let panels = plot.split_evenly((1, LATENCY_OPERATIONS.len()));
        let spread = 0.3 / model.algorithms.len().max(1) as f64;
        for (panel, op) in panels.iter().zip(LATENCY_OPERATIONS) {
            let mut chart = ChartBuilder::on(panel)
                .caption(op, (FONT, DESC_SIZE + 2))
                .margin(8)
                .x_label_area_size(42)
                .y_label_area_size(62)
                .build_cartesian_2d(
                    categories(-0.4..2.4, vec![0.0, 1.0, 2.0]),
                    log_axis((y_lo, y_hi)),
                )
                .map_err(plot_err)?;
            chart
                .configure_mesh()
                .x_desc("percentile")
                .y_desc("latency, ns")
                .axis_desc_style((FONT, DESC_SIZE))
                .label_style((FONT, LABEL_SIZE))
                .x_label_formatter(&|x| {
                    PERCENTILES
                        .get(x.round().max(0.0) as usize)
                        .map_or_else(String::new, |p| (*p).to_owned())
                })
                .y_label_formatter(&|y| axis_number(*y))
                .draw()
                .map_err(plot_err)?;
            chart
                .draw_series(DashedLineSeries::new(
                    [(-0.4, floor), (2.4, floor)],
                    6,
                    4,
                    REFERENCE_GREY.stroke_width(LINE_WIDTH),
                ))
                .map_err(plot_err)?;
            let mut drawn = 0;
            for (i, a) in model.algorithms.iter().enumerate() {
                let Some(l) = model.latency(&a.name, workload, op) else {
                    continue;
                };
                let dx = (i as f64 - model.algorithms.len() as f64 / 2.0) * spread;
                let points: Vec<(f64, f64)> = [l.p50_ns, l.p99_ns, l.p999_ns]
                    .iter()
                    .enumerate()
                    .map(|(x, &ns)| (x as f64 + dx, (ns as f64).max(y_lo)))
                    .collect();
                draw_line(&mut chart, &points, a)?;
                if !series.contains(&a.name) {
                    series.push(a.name.clone());
                }
                drawn += 1;
            }
            if drawn == 0 {
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("no {op} in this workload"),
                        (0.2, (y_lo * y_hi).sqrt()),
                        (FONT, DESC_SIZE),
                    )))
                    .map_err(plot_err)?;
            }
        }
        let groups = legend_groups(
            model,
            |a| {
                model
                    .skipped(&a.name, workload)
                    .then(|| "skipped".to_owned())
            },
            &[&format!("clock floor p50 ({floor:.0} ns)")],
            &|name| model.dimmed(name),
        );
        draw_legend(&legend, &groups)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Chart {
        file: format!("latency-{}.svg", file_stem(workload)),
        title,
        svg,
        height: HEIGHT,
        series,
    })
}

/// A series of a log-log chart: an algorithm and its (x, y) points.
type Series<'m> = (&'m Algorithm, Vec<(f64, f64)>);

/// What a sweep chart knows of one point besides (x, y): the interval of the
/// median, when there is one, and whether the point is flagged (a per-kind
/// figure whose batched pass does not add up to the whole pass).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct PointExtra {
    interval: Option<(f64, f64)>,
    flagged: bool,
}

/// What an x-y chart over the scaling sweep draws.
struct XyChart<'m> {
    file: String,
    title: String,
    y_desc: &'static str,
    series: Vec<Series<'m>>,
    /// Per series, per point: its interval and flag (empty: none).
    extras: Vec<Vec<PointExtra>>,
    /// Whether to draw the O(1), O(log n), O(n) reference slopes.
    references: bool,
}

/// How a reference slope grows from `n0` to `n`: `growth(n, n0)`.
type Growth = fn(f64, f64) -> f64;

/// The reference slopes: name and growth relative to `n0`.
const SLOPES: [(&str, Growth); 3] = [
    ("O(1)", |_, _| 1.0),
    ("O(log n)", |n, n0| n.ln() / n0.ln()),
    ("O(n)", |n, n0| n / n0),
];

/// Points along the log axis from `x0` to `x1` where the curve stays inside
/// `[y_lo, y_hi]`.
fn slope_points(
    growth: Growth,
    (x0, x1): (f64, f64),
    y0: f64,
    (y_lo, y_hi): (f64, f64),
) -> Vec<(f64, f64)> {
    const STEPS: u32 = 48;
    (0..=STEPS)
        .map(|i| {
            let x = x0 * (x1 / x0).powf(f64::from(i) / f64::from(STEPS));
            (x, y0 * growth(x, x0))
        })
        .take_while(|&(_, y)| y <= y_hi && y >= y_lo)
        .collect()
}

/// The median of `values` (which must not be empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The coordinates of a log-log chart.
type LogLog = Cartesian2d<Ticked<LogCoord<f64>>, Ticked<LogCoord<f64>>>;

/// Draws the grid, tick labels and axis descriptions `(x, y)` of a log-log
/// chart, the descriptions at `desc_size`.
fn draw_log_mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, LogLog>,
    (x_desc, y_desc): (&str, &str),
    desc_size: u32,
) -> Result<()> {
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style((FONT, desc_size))
        .label_style((FONT, LABEL_SIZE))
        .x_label_formatter(&|x| axis_number(*x))
        .y_label_formatter(&|y| axis_number(*y))
        .draw()
        .map_err(plot_err)
}

fn draw_xy(
    model: &Model,
    spec: XyChart<'_>,
    notes: impl Fn(&Algorithm) -> Option<String>,
) -> Result<Chart> {
    let xs = spec
        .series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(x, _)| x));
    let ys = spec
        .series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .chain(
            spec.extras
                .iter()
                .flatten()
                .filter_map(|e| e.interval)
                .flat_map(|(lo, hi)| [lo, hi]),
        );
    let (x_lo, x_hi) = log_range(xs).unwrap_or((1.0, 10.0));
    let (y_lo, y_hi) = log_range(ys).unwrap_or((1.0, 10.0));
    let coloured = coloured_series(model, &spec.series);
    let dimmed = |name: &str| !coloured.iter().any(|c| c == name);
    let mut svg = String::new();
    let mut drawn: Vec<String> = Vec::new();
    {
        let (root, plot, legend) = canvas(&mut svg, &spec.title)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(70)
            .build_cartesian_2d(log_axis((x_lo, x_hi)), log_axis((y_lo, y_hi)))
            .map_err(plot_err)?;
        draw_log_mesh(
            &mut chart,
            ("pending timers N (max_pending, log scale)", spec.y_desc),
            DESC_SIZE,
        )?;
        let mut reference_labels: Vec<&str> = Vec::new();
        if spec.references {
            // Anchor the slopes at the median value of the smallest N, so that
            // they start in the middle of the pack.
            let first_x = spec
                .series
                .iter()
                .filter_map(|(_, p)| p.first().map(|&(x, _)| x))
                .min_by(f64::total_cmp);
            if let Some(x0) = first_x {
                let at_x0: Vec<f64> = spec
                    .series
                    .iter()
                    .filter_map(|(_, p)| p.iter().find(|&&(x, _)| x == x0).map(|&(_, y)| y))
                    .collect();
                let y0 = median(at_x0);
                for (name, growth) in SLOPES {
                    let points = slope_points(growth, (x0, x_hi / LOG_MARGIN), y0, (y_lo, y_hi));
                    let Some(&end) = points.last() else { continue };
                    chart
                        .draw_series(DashedLineSeries::new(
                            points,
                            6,
                            4,
                            REFERENCE_GREY.stroke_width(1),
                        ))
                        .map_err(plot_err)?;
                    chart
                        .draw_series(std::iter::once(Text::new(
                            name,
                            end,
                            (FONT, LABEL_SIZE).into_font().color(&REFERENCE_GREY),
                        )))
                        .map_err(plot_err)?;
                }
                reference_labels.push("reference slopes O(1), O(log n), O(n)");
            }
        }
        // The lines not in colour (not highlighted, or past the most a chart
        // colours) go first, thin and grey, so that the others are drawn
        // over them.
        for (_, points) in spec.series.iter().filter(|(a, _)| dimmed(&a.name)) {
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    CONTEXT_GREY.stroke_width(1),
                ))
                .map_err(plot_err)?;
        }
        for (i, (a, points)) in spec.series.iter().enumerate() {
            if points.is_empty() || dimmed(&a.name) {
                continue;
            }
            draw_line(&mut chart, points, a)?;
            if let Some(extras) = spec.extras.get(i) {
                draw_extras(&mut chart, points, extras, a)?;
            }
            drawn.push(a.name.clone());
        }
        let mut groups = legend_groups(model, notes, &reference_labels, &dimmed);
        let with_points = spec.series.iter().filter(|(_, p)| !p.is_empty()).count();
        if model.highlight.is_empty() && with_points > MAX_COLOURED_SERIES {
            let mut entry = LegendEntry::series(GREYED_NOTE, CONTEXT_GREY, Marker::Circle);
            entry.marker = None;
            groups.push(("in grey".to_owned(), vec![entry]));
        }
        draw_legend(&legend, &groups)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Chart {
        file: spec.file,
        title: spec.title,
        svg,
        height: HEIGHT,
        series: drawn,
    })
}

/// The most lines an x-y chart draws in colour when `--highlight` does not
/// choose: past about eight, colours a glance can tell apart run out.
pub const MAX_COLOURED_SERIES: usize = 8;

/// The legend's note on the lines drawn grey by default.
const GREYED_NOTE: &str = "the rest (--highlight picks)";

/// The algorithms an x-y chart draws in colour: those `--highlight` names;
/// else, when more than [`MAX_COLOURED_SERIES`] have points, that many that
/// reach furthest in N and are lowest there (the fastest or leanest at
/// scale); else every one with points.
fn coloured_series(model: &Model, series: &[Series<'_>]) -> Vec<String> {
    if !model.highlight.is_empty() {
        return model.highlight.clone();
    }
    let mut ends: Vec<(&str, (f64, f64))> = series
        .iter()
        .filter_map(|(a, points)| Some((a.name.as_str(), *points.last()?)))
        .collect();
    if ends.len() > MAX_COLOURED_SERIES {
        // Furthest in N first, then lowest: a line that stops early (skipped
        // at large N) is not the one to follow.
        ends.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(a.1.1.total_cmp(&b.1.1)));
        ends.truncate(MAX_COLOURED_SERIES);
    }
    ends.into_iter().map(|(name, _)| name.to_owned()).collect()
}

/// A note for the legend of a scaling chart: where the algorithm was skipped,
/// or that it has no data at all.
fn scaling_note(model: &Model, a: &Algorithm, has_data: bool) -> Option<String> {
    let skipped_from = model
        .scaling_workloads()
        .into_iter()
        .find(|(w, _)| model.skipped(&a.name, w))
        .map(|(_, n)| n);
    match (skipped_from, has_data) {
        (Some(n), _) => Some(format!("skipped at N >= {}", format_count(n))),
        (None, false) => Some("no data".to_owned()),
        (None, true) => None,
    }
}

/// Every algorithm's points over the scaling sweep, in display order:
/// `value(algorithm, workload)` against N, with each point's extra (an
/// algorithm without a value has no points).
fn sweep_series<'m>(
    model: &'m Model,
    value: impl Fn(&str, &str) -> Option<(f64, PointExtra)>,
) -> Vec<SweepSeries<'m>> {
    let sweep = model.scaling_workloads();
    model
        .algorithms
        .iter()
        .map(|a| {
            let (points, extras): (Vec<(f64, f64)>, Vec<PointExtra>) = sweep
                .iter()
                .filter_map(|(w, n)| value(&a.name, w).map(|(v, e)| ((*n as f64, v), e)))
                .unzip();
            (a, points, extras)
        })
        .collect()
}

/// A chart over the scaling sweep: `value(algorithm, workload)` against N,
/// one line per algorithm, with each point's interval and flag. `None` when
/// no algorithm has a value.
fn sweep_chart<'m>(
    model: &'m Model,
    mut spec: XyChart<'m>,
    value: impl Fn(&str, &str) -> Option<(f64, PointExtra)>,
) -> Result<Option<Chart>> {
    let (series, extras): (Vec<Series<'m>>, Vec<Vec<PointExtra>>) = sweep_series(model, value)
        .into_iter()
        .map(|(a, points, extras)| ((a, points), extras))
        .unzip();
    spec.series = series;
    spec.extras = extras;
    let has: Vec<String> = spec
        .series
        .iter()
        .filter(|(_, p)| !p.is_empty())
        .map(|(a, _)| a.name.clone())
        .collect();
    if has.is_empty() {
        return Ok(None);
    }
    draw_xy(model, spec, |a| {
        scaling_note(model, a, has.contains(&a.name))
    })
    .map(Some)
}

/// The scaling chart of one operation: the median ns per operation with its
/// interval against N over the `scaling-*` workloads. `all` is the whole
/// pass; a kind is the batched pass, drawn hollow where the batched pass does
/// not add up to the whole pass (`consistent = false`). `None` when no
/// algorithm has the operation.
pub fn scaling_chart(model: &Model, operation: &str) -> Result<Option<Chart>> {
    let method = if operation == SUMMARY_OPERATION {
        "whole pass"
    } else {
        "batched; hollow: clock-dominated"
    };
    let spec = XyChart {
        file: format!("scaling-{operation}.svg"),
        title: format!(
            "Scaling: {operation}, median ns per operation vs pending timers (log-log; {method})"
        ),
        y_desc: "median ns per operation, with interval (log scale)",
        series: Vec::new(),
        extras: Vec::new(),
        references: true,
    };
    sweep_chart(model, spec, |a, w| {
        let row = model.throughput_row(a, w, operation)?;
        let median = row.median_ns?;
        Some((
            median,
            PointExtra {
                interval: row.interval(),
                flagged: row.consistent == Some(false),
            },
        ))
    })
}

/// Height of one panel of the scaling chart by family, pixels.
const FAMILY_PANEL_HEIGHT: u32 = 420;
/// A line over the scaling sweep: its algorithm, points and their extras.
type SweepSeries<'m> = (&'m Algorithm, Vec<(f64, f64)>, Vec<PointExtra>);

/// The least vertical distance between two line names, pixels.
const LABEL_GAP: i32 = 14;
/// The grey of the other families' lines behind a family's panel.
const CONTEXT_GREY: RGBColor = RGBColor(214, 214, 214);

/// The whole-pass scaling chart as small multiples: one panel per family,
/// on shared axes, its algorithms in colour (each named at its last point,
/// with its intervals) and every other algorithm's line in light grey behind,
/// so that 20-odd series stay readable and each family is seen against the
/// rest. `None` when no algorithm has a whole-pass figure on the sweep.
pub fn scaling_family_chart(model: &Model) -> Result<Option<Chart>> {
    family_chart(
        model,
        FamilyChart {
            file: "scaling-all-by-family.svg",
            title: "Scaling by family: median ns per operation (whole pass) vs pending timers, \
                    log-log; the other families in grey",
            y_desc: "median ns per operation",
        },
        |a, w| {
            let row = model.throughput_row(a, w, SUMMARY_OPERATION)?;
            let extra = PointExtra {
                interval: row.interval(),
                flagged: false,
            };
            Some((row.median_ns?, extra))
        },
    )
}

/// [`counts_chart`]'s instructions as small multiples by family, as
/// [`scaling_family_chart`] draws the times. `None` without counts of the
/// scaling workloads.
pub fn counts_family_chart(model: &Model) -> Result<Option<Chart>> {
    family_chart(
        model,
        FamilyChart {
            file: "counts-instructions-by-family.svg",
            title: "Counts by family: instructions per operation vs pending timers (callgrind; \
                    log-log); the other families in grey",
            y_desc: "instructions per operation",
        },
        |a, w| {
            let value = CountMetric::Instructions.of(model.count(a, w, "all")?);
            (value > 0.0).then(|| (value, PointExtra::default()))
        },
    )
}

/// What a chart by family draws, besides its data.
struct FamilyChart {
    file: &'static str,
    title: &'static str,
    y_desc: &'static str,
}

/// Small multiples over the scaling sweep: `value(algorithm, workload)`
/// against N, one panel per family (see [`scaling_family_chart`]).
fn family_chart(
    model: &Model,
    spec: FamilyChart,
    value: impl Fn(&str, &str) -> Option<(f64, PointExtra)>,
) -> Result<Option<Chart>> {
    let mut series = sweep_series(model, value);
    series.retain(|(_, points, _)| !points.is_empty());
    if series.is_empty() {
        return Ok(None);
    }
    let mut families: Vec<&str> = Vec::new();
    for (a, _, _) in &series {
        if !families.contains(&a.family.as_str()) {
            families.push(&a.family);
        }
    }
    let xs = series
        .iter()
        .flat_map(|(_, p, _)| p.iter().map(|&(x, _)| x));
    let ys = series.iter().flat_map(|(_, p, e)| {
        p.iter().map(|&(_, y)| y).chain(
            e.iter()
                .filter_map(|e| e.interval)
                .flat_map(|(lo, hi)| [lo, hi]),
        )
    });
    let (x_lo, x_hi) = log_range(xs).unwrap_or((1.0, 10.0));
    let (y_lo, y_hi) = log_range(ys).unwrap_or((1.0, 10.0));
    let rows = families.len().div_ceil(2);
    let height = FAMILY_PANEL_HEIGHT * u32::try_from(rows).unwrap_or(1) + 40;
    let title = spec.title.to_owned();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let body = root
            .titled(
                &title,
                (FONT, TITLE_SIZE).into_font().style(FontStyle::Bold),
            )
            .map_err(plot_err)?;
        let panels = body.split_evenly((rows, 2));
        for (family, panel) in families.iter().zip(panels.iter()) {
            let mut chart = ChartBuilder::on(panel)
                .caption(
                    *family,
                    (FONT, DESC_SIZE).into_font().style(FontStyle::Bold),
                )
                .margin(10)
                .x_label_area_size(36)
                .y_label_area_size(60)
                .build_cartesian_2d(log_axis((x_lo, x_hi)), log_axis((y_lo, y_hi)))
                .map_err(plot_err)?;
            draw_log_mesh(&mut chart, ("pending timers N", spec.y_desc), LABEL_SIZE)?;
            for (_, points, _) in series.iter().filter(|(a, _, _)| a.family != *family) {
                chart
                    .draw_series(LineSeries::new(
                        points.iter().copied(),
                        CONTEXT_GREY.stroke_width(1),
                    ))
                    .map_err(plot_err)?;
            }
            let mut labels: Vec<(i32, i32, &Algorithm)> = Vec::new();
            for (a, points, extras) in series.iter().filter(|(a, _, _)| a.family == *family) {
                draw_line(&mut chart, points, a)?;
                draw_extras(&mut chart, points, extras, a)?;
                if let Some(&last) = points.last() {
                    let (x, y) = chart.backend_coord(&last);
                    labels.push((x, y, a));
                }
            }
            // Each line is named left of its last point; names that would
            // overlap are pushed apart vertically.
            let (base_x, base_y) = panel.get_base_pixel();
            let ys = spread_labels(labels.iter().map(|&(_, y, _)| y).collect(), LABEL_GAP);
            for (&(x, _, a), y) in labels.iter().zip(ys) {
                let style = (FONT, LABEL_SIZE)
                    .into_font()
                    .color(&rgb(a.colour))
                    .pos(Pos::new(HPos::Right, VPos::Center));
                panel
                    .draw(&Text::new(
                        a.label(),
                        (x - base_x - 8, y - base_y - 8),
                        style,
                    ))
                    .map_err(plot_err)?;
            }
        }
        root.present().map_err(plot_err)?;
    }
    Ok(Some(Chart {
        file: spec.file.to_owned(),
        title,
        svg,
        height,
        series: series.iter().map(|(a, _, _)| a.name.clone()).collect(),
    }))
}

/// Label positions `ys` (pixels, in any order) moved apart so that any two
/// are at least `gap` apart, each as little as possible: sorted, pushed down
/// past its predecessor, and the whole run shifted back up by half of what
/// it gained, so that a crowd of labels stays centred on its points. The
/// result is in the input's order.
pub fn spread_labels(ys: Vec<i32>, gap: i32) -> Vec<i32> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    order.sort_by_key(|&i| ys[i]);
    let mut placed = ys.clone();
    let mut previous: Option<i32> = None;
    for &i in &order {
        if let Some(p) = previous {
            placed[i] = placed[i].max(p + gap);
        }
        previous = Some(placed[i]);
    }
    let pushed: i32 = order.iter().map(|&i| placed[i] - ys[i]).sum();
    let shift = if order.is_empty() {
        0
    } else {
        pushed / (2 * i32::try_from(order.len()).unwrap_or(1))
    };
    placed.iter().map(|y| y - shift).collect()
}

/// The counts chart of one metric: `counts.csv`'s figure per measured
/// operation against N over the scaling workloads (log-log; a zero, which a
/// log axis cannot show, is left out). `None` without counts of them.
pub fn counts_chart(model: &Model, metric: CountMetric) -> Result<Option<Chart>> {
    let spec = XyChart {
        file: format!("counts-{}.svg", metric.slug()),
        title: format!(
            "Counts: {} per operation vs pending timers (callgrind; log-log)",
            metric.name()
        ),
        y_desc: match metric {
            CountMetric::Instructions => "instructions per operation (log scale)",
            CountMetric::LlMisses => "simulated last-level misses per operation (log scale)",
            CountMetric::BranchMisses => "simulated mispredictions per operation (log scale)",
        },
        series: Vec::new(),
        extras: Vec::new(),
        references: metric == CountMetric::Instructions,
    };
    sweep_chart(model, spec, |a, w| {
        let value = metric.of(model.count(a, w, "all")?);
        (value > 0.0).then(|| (value, PointExtra::default()))
    })
}

/// The memory chart: peak heap bytes per pending timer against N over the
/// scaling workloads. `None` without scaling workloads.
pub fn memory_chart(model: &Model) -> Result<Option<Chart>> {
    let spec = XyChart {
        file: "memory.svg".to_owned(),
        title: "Memory: peak heap bytes per pending timer vs pending timers".to_owned(),
        y_desc: "bytes per pending timer (log scale)",
        series: Vec::new(),
        extras: Vec::new(),
        references: false,
    };
    sweep_chart(model, spec, |a, w| {
        model
            .run(a, w)
            .and_then(|r| r.bytes_per_pending)
            .map(|b| (b, PointExtra::default()))
    })
}

/// A wasted-work chart: one group of bars per workload, one bar per
/// algorithm, on a log axis. A zero draws no bar; a skipped run draws a cross
/// on the axis.
pub fn counter_chart(model: &Model, counter: Counter) -> Result<Chart> {
    let workloads = &model.workloads;
    let count = model.algorithms.len().max(1) as f64;
    let max = workloads
        .iter()
        .flat_map(|w| {
            model
                .algorithms
                .iter()
                .filter_map(|a| model.run(&a.name, w).and_then(|r| counter.value(r)))
        })
        .max()
        .unwrap_or(0);
    // The axis starts below 1 so that a count of 1 still shows as a bar.
    let y_lo = 0.5;
    let y_hi = (max.max(10) as f64) * LOG_MARGIN;
    let title = format!("{} (per algorithm and workload, log scale)", counter.title);
    let mut svg = String::new();
    let mut series: Vec<String> = Vec::new();
    {
        let (root, plot, legend) = canvas(&mut svg, &title)?;
        let centres: Vec<f64> = (0..workloads.len()).map(|i| i as f64 + 0.5).collect();
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(70)
            .build_cartesian_2d(
                categories(0.0..workloads.len().max(1) as f64, centres),
                log_axis((y_lo, y_hi)),
            )
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("workload")
            .y_desc(format!("{} (count, log scale)", counter.column))
            .axis_desc_style((FONT, DESC_SIZE))
            .label_style((FONT, LABEL_SIZE - 1))
            .x_label_formatter(&|x| {
                workloads
                    .get(x.floor().max(0.0) as usize)
                    .cloned()
                    .unwrap_or_default()
            })
            .y_label_formatter(&|y| axis_number(*y))
            .draw()
            .map_err(plot_err)?;
        let width = 0.84 / count;
        for (i, w) in workloads.iter().enumerate() {
            for (j, a) in model.algorithms.iter().enumerate() {
                let x0 = i as f64 + 0.08 + j as f64 * width;
                let colour = rgb(a.colour);
                match model.run(&a.name, w) {
                    Some(run) if !run.is_ok() => {
                        chart
                            .draw_series(std::iter::once(Cross::new(
                                (x0 + width / 2.0, y_lo * 1.3),
                                4,
                                colour.stroke_width(2),
                            )))
                            .map_err(plot_err)?;
                    }
                    Some(run) => {
                        let Some(value) = counter.value(run).filter(|v| *v > 0) else {
                            continue;
                        };
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(x0, y_lo), (x0 + width * 0.9, value as f64)],
                                colour.filled(),
                            )))
                            .map_err(plot_err)?;
                        if !series.contains(&a.name) {
                            series.push(a.name.clone());
                        }
                    }
                    None => {}
                }
            }
        }
        let groups = legend_groups(model, |a| counter_note(model, a, counter), &[], &|name| {
            model.dimmed(name)
        });
        draw_legend(&legend, &groups)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Chart {
        file: format!("wasted-{}.svg", counter.column.replace('_', "-")),
        title,
        svg,
        height: HEIGHT,
        series,
    })
}

/// A note for the legend of a counter chart: "not counted" for an algorithm
/// whose measured runs leave the counter empty (an adapter over a crate that
/// reports no work counts), so that its missing bars do not read as zeros.
fn counter_note(model: &Model, a: &Algorithm, counter: Counter) -> Option<String> {
    let mut measured = model
        .workloads
        .iter()
        .filter_map(|w| model.run(&a.name, w))
        .filter(|run| run.is_ok())
        .peekable();
    let has_measured = measured.peek().is_some();
    let none_counted = measured.all(|run| counter.value(run).is_none());
    (has_measured && none_counted).then(|| "not counted".to_owned())
}

/// Room above the heatmap's column headers, for its title.
const HEATMAP_TITLE_HEIGHT: i32 = 40;
/// Space between a column header and the first row.
const HEADER_GAP: i32 = 6;
/// The width of an average character as a share of the font size: what the
/// layout assumes a browser's sans-serif face takes (plotters measures no
/// text without a font library).
const CHAR_WIDTH_EM: f64 = 0.6;

/// The estimated width in pixels of `text` at font `size`.
pub fn text_width(text: &str, size: u32) -> i32 {
    (text.chars().count() as f64 * f64::from(size) * CHAR_WIDTH_EM).ceil() as i32
}

/// The summary heat-map: all-in ns per operation, algorithm (rows, grouped
/// by family) x workload (columns), each cell coloured by its ratio to the
/// column's best (green for the best, deepening red up to 100 times slower);
/// a skipped run is grey and says so.
pub fn heatmap_chart(model: &Model) -> Result<Chart> {
    // The column headers are turned to read upwards, so that a column can
    // be as narrow as its figures however long the workload's name: the
    // headers take the height of the longest name instead of overlapping.
    let longest = model
        .workloads
        .iter()
        .map(|w| text_width(w, LABEL_SIZE))
        .max()
        .unwrap_or(0);
    let top = HEATMAP_TITLE_HEIGHT + longest + HEADER_GAP;
    const ROW: i32 = 22;
    const LABEL_WIDTH: i32 = 230;
    const SWATCH: i32 = 10;
    const SKIPPED_GREY: RGBColor = RGBColor(225, 225, 225);
    let title = format!(
        "All-in median ns per operation: algorithm x workload (green: best; bold outline: best, \
         thin outline and {TIE_MARK}: tied with it within noise)"
    );
    let columns = summary::columns(model);
    let families = model.families();
    let rows = model.algorithms.len() + families.len();
    let height = (top + ROW * rows as i32 + ROW) as u32;
    let width = WIDTH as i32;
    let column = (width - LABEL_WIDTH - 10) / model.workloads.len().max(1) as i32;
    let centre = Pos::new(HPos::Center, VPos::Center);
    let left = Pos::new(HPos::Left, VPos::Center);
    let mut svg = String::new();
    let mut series = Vec::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        // Centred text, bold or not.
        let text = |size: u32, bold: bool| {
            let font = (FONT, size).into_font();
            let font = if bold {
                font.style(FontStyle::Bold)
            } else {
                font
            };
            font.into_text_style(&root).pos(centre)
        };
        root.draw(&Text::new(
            title.clone(),
            (width / 2, 16),
            text(TITLE_SIZE, true),
        ))
        .map_err(plot_err)?;
        let upwards = (FONT, LABEL_SIZE)
            .into_font()
            .transform(FontTransform::Rotate270)
            .into_text_style(&root)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (j, w) in model.workloads.iter().enumerate() {
            let x = LABEL_WIDTH + j as i32 * column + column / 2;
            root.draw(&Text::new(
                w.clone(),
                (x, top - HEADER_GAP),
                upwards.clone(),
            ))
            .map_err(plot_err)?;
        }
        let mut y = top;
        let mut family: Option<&str> = None;
        for (i, a) in model.algorithms.iter().enumerate() {
            if family != Some(a.family.as_str()) {
                family = Some(&a.family);
                root.draw(&Text::new(
                    format!("{} family", a.family),
                    (4, y + ROW / 2),
                    (FONT, LEGEND_SIZE)
                        .into_font()
                        .style(FontStyle::Bold)
                        .into_text_style(&root)
                        .pos(left),
                ))
                .map_err(plot_err)?;
                y += ROW;
            }
            root.draw(&Rectangle::new(
                [
                    (4, y + (ROW - SWATCH) / 2),
                    (4 + SWATCH, y + (ROW + SWATCH) / 2),
                ],
                rgb(a.colour).filled(),
            ))
            .map_err(plot_err)?;
            root.draw(&Text::new(
                a.label(),
                (8 + SWATCH, y + ROW / 2),
                (FONT, LEGEND_SIZE)
                    .into_font()
                    .into_text_style(&root)
                    .pos(left),
            ))
            .map_err(plot_err)?;
            for (j, (cells, best)) in columns.iter().enumerate() {
                let x = LABEL_WIDTH + j as i32 * column;
                let corners = [(x + 1, y + 1), (x + column - 1, y + ROW - 1)];
                let (fill, label, is_best, tied) = match (&cells[i], best) {
                    (Cell::Measured(figure), Some(best)) => {
                        let (r, g, b) = heat_colour(percent_of_best(figure.ns, *best));
                        let is_best = figure.ns == *best;
                        let tied = figure.tied && !is_best;
                        let label = if tied {
                            format!("{TIE_MARK}{}", format_ns(figure.ns))
                        } else {
                            format_ns(figure.ns)
                        };
                        (RGBColor(r, g, b), label, is_best, tied)
                    }
                    (Cell::Skipped, _) => (SKIPPED_GREY, SKIPPED.to_owned(), false, false),
                    _ => (WHITE, MISSING.to_owned(), false, false),
                };
                root.draw(&Rectangle::new(corners, fill.filled()))
                    .map_err(plot_err)?;
                if is_best {
                    root.draw(&Rectangle::new(corners, BLACK.stroke_width(2)))
                        .map_err(plot_err)?;
                } else if tied {
                    root.draw(&Rectangle::new(corners, BLACK.stroke_width(1)))
                        .map_err(plot_err)?;
                }
                let style = text(LABEL_SIZE - 1, is_best);
                root.draw(&Text::new(label, (x + column / 2, y + ROW / 2), style))
                    .map_err(plot_err)?;
            }
            if columns.iter().any(|(cells, _)| cells[i].value().is_some()) {
                series.push(a.name.clone());
            }
            y += ROW;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(Chart {
        file: "summary-heatmap.svg".to_owned(),
        title,
        svg,
        height,
        series,
    })
}

/// The colours of the workloads in a parameters chart (a categorical
/// palette: there the series are workloads, not algorithms), reused with
/// another marker beyond ten workloads.
const WORKLOAD_PALETTE: [Rgb; 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// The markers of the workloads beyond the palette: shapes that can be
/// drawn hollow (a cross cannot).
const WORKLOAD_MARKERS: [Marker; 3] = [Marker::Circle, Marker::Square, Marker::Triangle];

/// The colour and marker of the `index`-th workload of a parameters chart.
pub fn workload_style(index: usize) -> (Rgb, Marker) {
    (
        WORKLOAD_PALETTE[index % WORKLOAD_PALETTE.len()],
        WORKLOAD_MARKERS[(index / WORKLOAD_PALETTE.len()) % WORKLOAD_MARKERS.len()],
    )
}

/// Ticks of the lateness axis, which plots a lateness `l` at `l + 1` on a
/// log scale (so that 0, an exact row, has a place): the positions of 0 and
/// of 1, 10, 100, ... ticks (with 2 and 5 times them when that gives no more
/// than a dozen) that fall inside `[lo, hi]`, positions being lateness + 1.
pub fn lateness_ticks(lo: f64, hi: f64) -> Vec<f64> {
    const MAX_TICKS: usize = 12;
    let ticks = |mantissas: &[f64]| -> Vec<f64> {
        let decades = hi.max(1.0).log10().ceil() as i32;
        std::iter::once(1.0)
            .chain(
                (0..=decades).flat_map(|d| mantissas.iter().map(move |m| m * 10f64.powi(d) + 1.0)),
            )
            .filter(|t| (lo..=hi).contains(t))
            .collect()
    };
    let one_two_five = ticks(&[1.0, 2.0, 5.0]);
    if one_two_five.len() > MAX_TICKS {
        ticks(&[1.0])
    } else {
        one_two_five
    }
}

/// A point of a parameters panel: where it is, its interval, the label
/// beside it, and whether it is on the panel's frontier.
struct FrontierPoint {
    at: (f64, f64),
    interval: (f64, f64),
    label: String,
    on_frontier: bool,
}

/// One workload's points in one panel of a parameters chart.
struct FrontierSeries {
    colour: RGBColor,
    marker: Marker,
    points: Vec<FrontierPoint>,
}

/// What a panel of a parameters chart draws besides its series.
struct FrontierPanel<'a> {
    caption: &'a str,
    x_desc: &'a str,
    x_axis: Ticked<LogCoord<f64>>,
    x_label: &'a dyn Fn(&f64) -> String,
}

/// The size of a point's label in a parameters chart.
const POINT_LABEL_SIZE: u32 = LABEL_SIZE - 2;

/// Draws one panel of a parameters chart: per workload, each point's
/// interval, the points on the frontier filled and joined by a line in
/// increasing x, the others hollow, each labelled with its parameter value.
fn draw_frontier_panel(
    area: &Area<'_>,
    panel: FrontierPanel<'_>,
    y_axis: Ticked<LogCoord<f64>>,
    series: &[FrontierSeries],
) -> Result<()> {
    let mut chart = ChartBuilder::on(area)
        .caption(
            panel.caption,
            (FONT, DESC_SIZE).into_font().style(FontStyle::Bold),
        )
        .margin(10)
        .x_label_area_size(46)
        .y_label_area_size(64)
        .build_cartesian_2d(panel.x_axis, y_axis)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc(panel.x_desc)
        .y_desc("median ns per operation, whole pass (log scale)")
        .axis_desc_style((FONT, LABEL_SIZE))
        .label_style((FONT, LABEL_SIZE))
        .x_label_formatter(panel.x_label)
        .y_label_formatter(&|y| axis_number(*y))
        .draw()
        .map_err(plot_err)?;
    for s in series {
        for p in &s.points {
            let (lo, hi) = p.interval;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(p.at.0, lo), (p.at.0, hi)],
                    s.colour.mix(0.6).stroke_width(1),
                )))
                .map_err(plot_err)?;
        }
        let mut frontier: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.on_frontier)
            .map(|p| p.at)
            .collect();
        frontier.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        chart
            .draw_series(LineSeries::new(frontier, s.colour.stroke_width(LINE_WIDTH)))
            .map_err(plot_err)?;
        let at: Vec<(f64, f64)> = s.points.iter().map(|p| p.at).collect();
        draw_markers(&mut chart, &at, s.marker, s.colour)?;
        for p in s.points.iter().filter(|p| !p.on_frontier) {
            chart
                .draw_series(std::iter::once(Circle::new(
                    p.at,
                    MARKER_SIZE - 2,
                    WHITE.filled(),
                )))
                .map_err(plot_err)?;
        }
    }
    // Each parameter value is labelled once, above its highest point, in
    // grey: the workloads' points of one value stand in a column, and a label
    // per workload would pile a dozen copies on each other.
    // Labels of values whose highest points are near each other are lifted
    // until no two overlap.
    let style = (FONT, POINT_LABEL_SIZE).into_font().color(&REFERENCE_GREY);
    let labels = label_points(series);
    let boxes: Vec<LabelBox> = labels
        .iter()
        .map(|(label, at)| {
            let (x, y) = chart.backend_coord(at);
            LabelBox {
                left: x + LABEL_OFFSET.0,
                bottom: y + LABEL_OFFSET.1,
                width: text_width(label, POINT_LABEL_SIZE),
            }
        })
        .collect();
    let lifts = lift_labels(&boxes, POINT_LABEL_SIZE as i32 + 2);
    chart
        .draw_series(labels.into_iter().zip(lifts).map(|((label, at), lift)| {
            EmptyElement::at(at)
                + Text::new(
                    label,
                    (LABEL_OFFSET.0, LABEL_OFFSET.1 - lift),
                    style.clone(),
                )
        }))
        .map_err(plot_err)?;
    Ok(())
}

/// Where a point's label starts, in pixels from the point: right and up.
const LABEL_OFFSET: (i32, i32) = (7, -14);

/// A label's place before it is lifted: its left edge and the bottom of its
/// line, in pixels, and its estimated width.
#[derive(Clone, Copy, Debug)]
struct LabelBox {
    left: i32,
    bottom: i32,
    width: i32,
}

/// How far to lift each label (pixels, in the input's order) so that no two
/// overlap: each, in turn, goes up a line of `height` at a time until it is
/// clear of those placed before it.
fn lift_labels(boxes: &[LabelBox], height: i32) -> Vec<i32> {
    let mut placed: Vec<(LabelBox, i32)> = Vec::new();
    for &label in boxes {
        let overlaps = |lift: i32, other: &(LabelBox, i32)| {
            let (o, o_lift) = *other;
            let across = label.left < o.left + o.width && o.left < label.left + label.width;
            let (top, o_top) = (label.bottom - lift - height, o.bottom - o_lift - height);
            across && top < o_top + height && o_top < top + height
        };
        let mut lift = 0;
        while placed.iter().any(|other| overlaps(lift, other)) {
            lift += height;
        }
        placed.push((label, lift));
    }
    placed.into_iter().map(|(_, lift)| lift).collect()
}

/// Where each distinct label of `series` goes: beside its point of highest
/// cost, once, in the order the labels first appear.
fn label_points(series: &[FrontierSeries]) -> Vec<(String, (f64, f64))> {
    let mut labels: Vec<(String, (f64, f64))> = Vec::new();
    for p in series.iter().flat_map(|s| &s.points) {
        match labels.iter_mut().find(|(label, _)| *label == p.label) {
            Some((_, at)) if p.at.1 > at.1 => *at = p.at,
            Some(_) => {}
            None => labels.push((p.label.clone(), p.at)),
        }
    }
    labels
}

/// The parameters chart of one sweep: two panels side by side, the headline
/// median ns per operation (with its interval) against the largest lateness
/// on the left and against peak bytes per pending timer on the right, one
/// series per workload, each point labelled with its parameter value; the
/// points on each panel's Pareto frontier are filled and joined, the others
/// hollow. `None` when no point of the sweep was measured.
pub fn parameter_chart(
    sweep: &parameters::Sweep<'_>,
    workloads: &[parameters::OnWorkload],
) -> Result<Option<Chart>> {
    // Per workload with a point: its style and, per panel, its points.
    let mut drawn: Vec<String> = Vec::new();
    let mut lateness_series = Vec::new();
    let mut memory_series = Vec::new();
    let mut legend = Vec::new();
    let mut costs = Vec::new();
    for (index, on) in workloads.iter().enumerate() {
        if !on.has_points() {
            continue;
        }
        let (colour, marker) = workload_style(index);
        let colour = rgb(colour);
        let (mut late, mut memory) = (Vec::new(), Vec::new());
        for (i, member) in sweep.members.iter().enumerate() {
            let parameters::Outcome::Point {
                figure,
                lateness,
                bytes,
            } = &on.outcomes[i]
            else {
                continue;
            };
            let point = |x: f64, on_frontier: bool| FrontierPoint {
                at: (x, figure.ns),
                interval: (figure.ci_low, figure.ci_high),
                label: member.label.clone(),
                on_frontier,
            };
            if let Some(l) = lateness {
                late.push(point(*l as f64 + 1.0, on.lateness_frontier[i]));
            }
            if let Some(b) = bytes.filter(|b| *b > 0.0) {
                memory.push(point(b, on.memory_frontier[i]));
            }
            costs.extend([figure.ns, figure.ci_low, figure.ci_high]);
            if !drawn.contains(&member.algorithm.name) {
                drawn.push(member.algorithm.name.clone());
            }
        }
        legend.push(LegendEntry::series(&on.workload, colour, marker));
        lateness_series.push(FrontierSeries {
            colour,
            marker,
            points: late,
        });
        memory_series.push(FrontierSeries {
            colour,
            marker,
            points: memory,
        });
    }
    let Some(y_range) = log_range(costs) else {
        return Ok(None);
    };
    // A log axis has no place for 0: a zero median or interval end sits on
    // the axis's floor instead.
    for p in lateness_series
        .iter_mut()
        .chain(memory_series.iter_mut())
        .flat_map(|s| s.points.iter_mut())
    {
        p.at.1 = p.at.1.max(y_range.0);
        p.interval.0 = p.interval.0.max(y_range.0);
    }
    let x_of = |series: &[FrontierSeries]| -> Vec<f64> {
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.at.0))
            .collect()
    };
    let (late_lo, late_hi) = log_range(x_of(&lateness_series)).unwrap_or((1.0 / LOG_MARGIN, 10.0));
    let memory_range = log_range(x_of(&memory_series)).unwrap_or((1.0, 10.0));
    // A sweep whose every point is exact (lateness 0, drawn at 1) has
    // nothing to show against lateness: its chart is the memory panel alone.
    let exact = x_of(&lateness_series).iter().all(|&x| x <= 1.0);
    let title = if exact {
        format!(
            "{} over {}: cost against memory, every point exact (filled: Pareto frontier)",
            sweep.design, sweep.param
        )
    } else {
        format!(
            "{} over {}: cost against lateness and memory (filled: Pareto frontier)",
            sweep.design, sweep.param
        )
    };
    let mut svg = String::new();
    {
        let (root, plot, legend_area) = canvas(&mut svg, &title)?;
        let panels = if exact {
            vec![plot]
        } else {
            plot.split_evenly((1, 2))
        };
        let lateness_label = |x: &f64| axis_number((x - 1.0).round().max(0.0));
        if !exact {
            draw_frontier_panel(
                &panels[0],
                FrontierPanel {
                    caption: "cost against lateness",
                    x_desc: "largest lateness, ticks (log scale of ticks + 1; 0 is exact)",
                    x_axis: Ticked {
                        axis: (late_lo..late_hi).log_scale().into(),
                        ticks: lateness_ticks(late_lo, late_hi),
                    },
                    x_label: &lateness_label,
                },
                log_axis(y_range),
                &lateness_series,
            )?;
        }
        let memory_label = |x: &f64| axis_number(*x);
        draw_frontier_panel(
            &panels[panels.len() - 1],
            FrontierPanel {
                caption: "cost against memory",
                x_desc: "peak heap bytes per pending timer (log scale)",
                x_axis: log_axis(memory_range),
                x_label: &memory_label,
            },
            log_axis(y_range),
            &memory_series,
        )?;
        let groups = vec![
            ("workloads".to_owned(), legend),
            (
                "points".to_owned(),
                vec![
                    LegendEntry::point("on the frontier (joined)", false),
                    LegendEntry::point("dominated", true),
                ],
            ),
        ];
        draw_legend(&legend_area, &groups)?;
        root.present().map_err(plot_err)?;
    }
    Ok(Some(Chart {
        file: parameter_chart_file(sweep),
        title,
        svg,
        height: HEIGHT,
        series: drawn,
    }))
}

/// The file of a sweep's parameters chart.
pub fn parameter_chart_file(sweep: &parameters::Sweep<'_>) -> String {
    format!("parameters-{}.svg", file_stem(&sweep.slug()))
}

/// A workload name made safe for a file name: letters, digits, `-`, `_`, `.`
/// kept, anything else replaced by `_`.
pub fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Every chart of the report, in page order.
pub fn all_charts(model: &Model) -> Result<Vec<Chart>> {
    let mut charts = vec![heatmap_chart(model)?];
    for op in SCALING_OPERATIONS {
        charts.extend(scaling_chart(model, op)?);
    }
    charts.extend(scaling_family_chart(model)?);
    charts.extend(memory_chart(model)?);
    for metric in CountMetric::ALL {
        charts.extend(counts_chart(model, metric)?);
    }
    charts.extend(counts_family_chart(model)?);
    for counter in COUNTERS {
        charts.push(counter_chart(model, counter)?);
    }
    for workload in &model.workloads {
        charts.push(latency_chart(model, workload)?);
    }
    for sweep in parameters::sweeps(model) {
        let workloads = parameters::on_workloads(model, &sweep);
        charts.extend(parameter_chart(&sweep, &workloads)?);
    }
    Ok(charts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_spread_to_the_gap_in_their_own_order() {
        assert_eq!(
            spread_labels(vec![100, 0, 50], 14),
            [100, 0, 50],
            "apart already"
        );
        let placed = spread_labels(vec![10, 12, 11, 200], 14);
        let mut sorted = placed.clone();
        sorted.sort_unstable();
        assert!(sorted.windows(2).all(|w| w[1] - w[0] >= 14), "{placed:?}");
        // The order of the points is kept, and the crowd stays near them.
        assert!(placed[0] < placed[2] && placed[2] < placed[1], "{placed:?}");
        assert!(placed[0] < 10 && placed[1] > 12, "{placed:?}");
        assert!(spread_labels(Vec::new(), 14).is_empty());
    }

    #[test]
    fn an_algorithm_that_counts_no_work_is_noted_not_drawn_as_zero() {
        use crate::input::{Results, parse_csv, parse_metadata};
        use std::path::Path;
        let metadata = r#"{"schema_version": 3, "seed": 1, "scale": "small", "driver": "event",
            "repetitions": 6, "replay_overhead": [],
            "statistics": {"median_ci": "m", "ratio_ci": "r", "bootstrap_resamples": 10,
                           "tie_rule": "t", "consistency_tolerance": 0.15},
            "workloads": ["uniform"],
            "clock_floor_ns": {"p50_ns": 20, "p99_ns": 30, "p999_ns": 40, "max_ns": 50},
            "algorithms": [
              {"name": "a-crate", "family": "crate", "exact": true},
              {"name": "b-wheel", "family": "seed", "exact": true}]}"#;
        let runs = "schema_version,algorithm,workload,status,skip_reason,max_pending,empty_slot_visits,\
                    entries_examined_not_due,cascades,bytes_per_pending,max_lateness_ticks\n\
                    3,a-crate,uniform,ok,,100,,,,90,0\n\
                    3,b-wheel,uniform,ok,,100,0,0,0,40,0\n";
        let model = Model::new(Results {
            metadata: parse_metadata(Path::new("metadata.json"), metadata).unwrap(),
            runs: parse_csv(Path::new("runs.csv"), runs).unwrap(),
            throughput: Vec::new(),
            repetitions: Vec::new(),
            latency: Vec::new(),
            contract_cost: Vec::new(),
            counts: Vec::new(),
            counts_build: None,
            comparison: Vec::new(),
            threaded: Vec::new(),
        });
        let find = |name: &str| model.algorithms.iter().find(|a| a.name == name).unwrap();
        let counter = COUNTERS[0];
        assert_eq!(
            counter_note(&model, find("a-crate"), counter).as_deref(),
            Some("not counted")
        );
        assert_eq!(counter_note(&model, find("b-wheel"), counter), None);
        let chart = counter_chart(&model, counter).unwrap();
        assert!(chart.svg.contains("not counted"), "the legend says so");
    }

    #[test]
    fn log_range_has_headroom_and_ignores_zero() {
        let (lo, hi) = log_range([0.0, 10.0, 100.0]).unwrap();
        assert!((lo - 10.0 / LOG_MARGIN).abs() < 1e-9);
        assert!((hi - 100.0 * LOG_MARGIN).abs() < 1e-9);
        assert!(log_range([0.0, f64::NAN]).is_none());
    }

    #[test]
    fn axis_numbers() {
        assert_eq!(axis_number(100.0), "100");
        assert_eq!(axis_number(100_000.0), "1e5");
        assert_eq!(axis_number(250_000.0), "2.5e5");
        assert_eq!(axis_number(20_000.0), "2e4");
        assert_eq!(axis_number(0.5), "0.50");
    }

    #[test]
    fn slopes_stay_in_range() {
        let points = slope_points(SLOPES[2].1, (1e3, 1e6), 10.0, (1.0, 1000.0));
        assert!(points.len() > 1);
        assert!(points.iter().all(|&(_, y)| y <= 1000.0));
        assert!((points[0].1 - 10.0).abs() < 1e-9);
        let flat = slope_points(SLOPES[0].1, (1e3, 1e6), 10.0, (1.0, 1000.0));
        assert_eq!(flat.last().unwrap().0.round(), 1e6);
    }

    #[test]
    fn log_ticks_in_and_across_decades() {
        assert_eq!(
            log_ticks(30.0, 160.0),
            [30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0]
        );
        assert_eq!(log_ticks(0.5, 2e6), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        assert_eq!(log_ticks(700.0, 1.6e5), [1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5]);
    }

    /// Parses `chart` as XML and returns the text of every `<text>` element
    /// and every stroke or fill colour, lower-cased.
    fn parse(chart: &Chart) -> (Vec<String>, Vec<String>) {
        let doc = roxmltree::Document::parse(&chart.svg)
            .unwrap_or_else(|e| panic!("{} is not well-formed XML: {e}", chart.file));
        assert_eq!(
            doc.root_element().tag_name().name(),
            "svg",
            "{}",
            chart.file
        );
        let texts = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .map(|t| t.trim().to_owned())
            .collect();
        let colours = doc
            .descendants()
            .flat_map(|n| [n.attribute("stroke"), n.attribute("fill")])
            .flatten()
            .map(str::to_lowercase)
            .collect();
        (texts, colours)
    }

    /// The algorithms with a measured `operation` on some scaling workload,
    /// straight from the rows.
    fn expected_scaling_series(model: &Model, operation: &str) -> Vec<String> {
        let mut names: Vec<String> = model
            .results
            .throughput
            .iter()
            .filter(|t| {
                t.workload.starts_with("scaling-") && t.operation == operation && t.count > 0
            })
            .map(|t| t.algorithm.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    #[test]
    fn every_chart_is_well_formed_with_title_legend_and_series_colours() {
        let model = crate::fixture_model();
        let charts = all_charts(&model).unwrap();
        // The heat-map, 4 scaling operations with data (no reschedules in the
        // fixture) and the whole pass by family, memory, 3 counters, one
        // latency chart per workload.
        assert_eq!(charts.len(), 1 + 4 + 1 + 1 + 3 + model.workloads.len());
        for chart in &charts {
            let (texts, colours) = parse(chart);
            assert!(texts.contains(&chart.title), "{}: title", chart.file);
            for a in &model.algorithms {
                assert!(
                    texts.iter().any(|t| t.starts_with(&a.label())),
                    "{}: legend lacks {}",
                    chart.file,
                    a.name
                );
            }
            for name in &chart.series {
                let a = model.algorithms.iter().find(|a| &a.name == name).unwrap();
                assert!(
                    colours.contains(&crate::model::hex(a.colour)),
                    "{}: no element in {}'s colour",
                    chart.file,
                    name
                );
            }
        }
    }

    #[test]
    fn highlighted_lines_keep_their_colour_and_the_rest_turn_grey() {
        let mut model = crate::fixture_model();
        model
            .set_highlight(&["binary-heap".to_owned(), "bitmap-wheel".to_owned()])
            .unwrap();
        let chart = scaling_chart(&model, "all").unwrap().unwrap();
        assert_eq!(chart.series, ["binary-heap", "bitmap-wheel"]);
        let (_, colours) = parse(&chart);
        let sorted = model
            .algorithms
            .iter()
            .find(|a| a.name == "sorted-list")
            .unwrap();
        assert!(colours.contains(&crate::model::hex((214, 214, 214))));
        assert!(
            !colours.contains(&crate::model::hex(sorted.colour)),
            "sorted-list keeps its colour"
        );
        let error = model.set_highlight(&["nobody".to_owned()]).unwrap_err();
        assert!(
            error.contains("\"nobody\"") && error.contains("binary-heap"),
            "{error}"
        );
    }

    #[test]
    fn the_family_chart_has_a_panel_per_family_and_every_measured_line() {
        let model = crate::fixture_model();
        let chart = scaling_family_chart(&model).unwrap().unwrap();
        let mut series = chart.series.clone();
        series.sort();
        assert_eq!(series, expected_scaling_series(&model, "all"));
        let (texts, _) = parse(&chart);
        let mut families: Vec<&str> = model.algorithms.iter().map(|a| a.family.as_str()).collect();
        families.dedup();
        for family in families {
            assert!(texts.iter().any(|t| t == family), "no {family} panel");
        }
    }

    #[test]
    fn scaling_chart_colours_at_most_eight_measured_lines_and_draws_reference_slopes() {
        let model = crate::fixture_model();
        for op in ["insert", "all"] {
            let chart = scaling_chart(&model, op).unwrap().unwrap();
            let measured = expected_scaling_series(&model, op);
            assert!(
                measured.len() > MAX_COLOURED_SERIES,
                "the fixture has more lines"
            );
            assert_eq!(chart.series.len(), MAX_COLOURED_SERIES, "{op}");
            assert!(chart.series.iter().all(|s| measured.contains(s)), "{op}");
            let (texts, _) = parse(&chart);
            assert!(
                texts.iter().any(|t| t == GREYED_NOTE),
                "{op}: the grey lines are named"
            );
            // The lines in colour are the lowest at the largest N.
            let sweep = model.scaling_workloads();
            let largest = &sweep.last().unwrap().0;
            let cost = |name: &str| {
                model
                    .throughput_row(name, largest, op)
                    .and_then(|row| row.median_ns)
                    .unwrap_or(f64::INFINITY)
            };
            let worst_coloured = chart.series.iter().map(|s| cost(s)).fold(0.0, f64::max);
            for name in measured.iter().filter(|m| !chart.series.contains(m)) {
                assert!(
                    cost(name) >= worst_coloured,
                    "{op}: {name} is lower but grey"
                );
            }
            let (texts, _) = parse(&chart);
            for slope in ["O(1)", "O(log n)", "O(n)"] {
                assert!(texts.iter().any(|t| t == slope), "{op}: no {slope} slope");
            }
        }
        // The fixture has no reschedules: no chart rather than an empty one.
        assert!(scaling_chart(&model, "reschedule").unwrap().is_none());
    }

    #[test]
    fn latency_chart_draws_the_clock_floor_and_marks_skipped_runs() {
        let model = crate::fixture_model();
        let chart = latency_chart(&model, "scaling-1e5").unwrap();
        let (texts, _) = parse(&chart);
        let floor = model.results.metadata.clock_floor_ns.p50_ns;
        assert!(
            texts
                .iter()
                .any(|t| t == &format!("clock floor p50 ({floor} ns)"))
        );
        assert!(
            texts.iter().any(|t| t == "sorted-list (skipped)"),
            "{texts:?}"
        );
        assert!(!chart.series.contains(&"sorted-list".to_owned()));
        assert!(texts.iter().any(|t| t == "linux-wheel (inexact)"));
    }

    #[test]
    fn heatmap_has_every_workload_and_marks_skipped_cells() {
        let model = crate::fixture_model();
        let chart = heatmap_chart(&model).unwrap();
        let (texts, colours) = parse(&chart);
        for w in &model.workloads {
            assert!(texts.contains(w), "{w}");
        }
        assert!(texts.iter().any(|t| t == SKIPPED));
        assert!(colours.contains(&crate::model::hex(crate::tables::BEST_COLOUR)));
        assert_eq!(chart.series.len(), model.algorithms.len());
    }

    #[test]
    fn heatmap_headers_read_upwards_apart_from_each_other_and_the_title() {
        let model = crate::fixture_model();
        let chart = heatmap_chart(&model).unwrap();
        let doc = roxmltree::Document::parse(&chart.svg).unwrap();
        // Each header's box: across, its x and the font's height; down, from
        // its start upwards by the estimated width of its name.
        let mut boxes: Vec<(f64, f64, f64, f64, &str)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter(|n| {
                n.attribute("transform")
                    .is_some_and(|t| t.starts_with("rotate(270"))
            })
            .map(|n| {
                let number = |name: &str| n.attribute(name).unwrap().parse::<f64>().unwrap();
                let name = n.text().unwrap().trim();
                let size = number("font-size");
                let (x, y) = (number("x"), number("y"));
                let length = f64::from(text_width(name, LABEL_SIZE));
                (x - size / 2.0, x + size / 2.0, y - length, y, name)
            })
            .collect();
        let names: Vec<&str> = boxes.iter().map(|b| b.4).collect();
        assert_eq!(names, model.workloads, "every workload's header, turned");
        boxes.sort_by(|a, b| a.0.total_cmp(&b.0));
        for pair in boxes.windows(2) {
            assert!(
                pair[0].1 <= pair[1].0,
                "{} and {} overlap",
                pair[0].4,
                pair[1].4
            );
        }
        for b in &boxes {
            assert!(
                b.2 >= f64::from(HEATMAP_TITLE_HEIGHT) - 1.0,
                "{} reaches the title",
                b.4
            );
        }
    }

    #[test]
    fn each_parameter_value_is_labelled_once_above_its_highest_point() {
        let point = |label: &str, x: f64, y: f64| FrontierPoint {
            at: (x, y),
            interval: (y, y),
            label: label.to_owned(),
            on_frontier: true,
        };
        let series = |points| FrontierSeries {
            colour: REFERENCE_GREY,
            marker: Marker::Circle,
            points,
        };
        let all = [
            series(vec![
                point("default", 1.0, 10.0),
                point("tick=10", 10.0, 5.0),
            ]),
            series(vec![
                point("default", 1.0, 30.0),
                point("tick=10", 10.0, 2.0),
            ]),
            series(vec![point("default", 1.5, 20.0)]),
        ];
        assert_eq!(
            label_points(&all),
            [
                ("default".to_owned(), (1.0, 30.0)),
                ("tick=10".to_owned(), (10.0, 5.0))
            ]
        );
    }

    #[test]
    fn labels_near_each_other_are_lifted_apart() {
        let at = |left: i32, bottom: i32| LabelBox {
            left,
            bottom,
            width: 60,
        };
        // Two labels on one spot, one beside them, one far away.
        let boxes = [at(100, 50), at(105, 50), at(300, 50), at(110, 200)];
        assert_eq!(lift_labels(&boxes, 12), [0, 12, 0, 0]);
        // A label a little lower needs two lines to clear the first.
        let lower = [at(100, 50), at(105, 52)];
        assert_eq!(lift_labels(&lower, 12), [0, 24]);
        // Three on one spot stack up.
        assert_eq!(
            lift_labels(&[at(0, 0), at(0, 0), at(0, 0)], 10),
            [0, 10, 20]
        );
    }

    /// White circles: the hollow centres of flagged points.
    fn hollow_points(chart: &Chart) -> usize {
        chart
            .svg
            .split("<circle")
            .skip(1)
            .filter(|tag| {
                tag.split('>')
                    .next()
                    .is_some_and(|t| t.contains("fill=\"#FFFFFF\""))
            })
            .count()
    }

    #[test]
    fn heatmap_marks_every_cell_tied_with_the_best() {
        // The fixture's three repetitions give no tie to mark.
        let unjudged = crate::fixture_model();
        let (texts, _) = parse(&heatmap_chart(&unjudged).unwrap());
        assert!(!texts.iter().any(|t| t.starts_with(TIE_MARK)));
        let model = crate::judged_fixture_model();
        let tied = summary::columns(&model)
            .iter()
            .flat_map(|(cells, best)| {
                cells
                    .iter()
                    .filter_map(Cell::figure)
                    .filter(|f| f.tied && Some(f.ns) != *best)
                    .collect::<Vec<_>>()
            })
            .count();
        assert!(tied > 0, "the fixture has ties");
        let chart = heatmap_chart(&model).unwrap();
        let (texts, _) = parse(&chart);
        let marked = texts.iter().filter(|t| t.starts_with(TIE_MARK)).count();
        assert_eq!(marked, tied);
    }

    #[test]
    fn per_kind_scaling_draws_flagged_points_hollow_and_the_headline_never() {
        let model = crate::fixture_model();
        let flagged = model
            .scaling_workloads()
            .iter()
            .flat_map(|(w, _)| {
                model
                    .algorithms
                    .iter()
                    .filter_map(|a| model.throughput_row(&a.name, w, "insert"))
                    .filter(|row| row.consistent == Some(false))
                    .collect::<Vec<_>>()
            })
            .count();
        assert!(flagged > 0, "the fixture has clock-dominated cells");
        // Every line in colour, so that every flagged point is drawn.
        let mut model = model;
        let everyone: Vec<String> = model.algorithms.iter().map(|a| a.name.clone()).collect();
        model.set_highlight(&everyone).unwrap();
        let insert = scaling_chart(&model, "insert").unwrap().unwrap();
        assert_eq!(hollow_points(&insert), flagged);
        let all = scaling_chart(&model, "all").unwrap().unwrap();
        assert_eq!(hollow_points(&all), 0, "the whole pass is never flagged");
    }

    #[test]
    fn lateness_ticks_start_at_exact_and_thin_out_over_many_decades() {
        // Positions are lateness + 1: 0, 1, 2, 5, 10, 20, 50 and 100 ticks.
        assert_eq!(
            lateness_ticks(1.0 / LOG_MARGIN, 160.0),
            [1.0, 2.0, 3.0, 6.0, 11.0, 21.0, 51.0, 101.0]
        );
        assert_eq!(
            lateness_ticks(1.0 / LOG_MARGIN, 1.6e6),
            [
                1.0,
                2.0,
                11.0,
                101.0,
                1001.0,
                10_001.0,
                100_001.0,
                1_000_001.0
            ]
        );
        // Every row exact: only 0.
        assert_eq!(lateness_ticks(1.0 / LOG_MARGIN, LOG_MARGIN), [1.0]);
    }

    #[test]
    fn workloads_get_distinct_colours_then_another_marker() {
        let colours: Vec<Rgb> = (0..WORKLOAD_PALETTE.len())
            .map(|i| workload_style(i).0)
            .collect();
        for (i, c) in colours.iter().enumerate() {
            assert!(!colours[i + 1..].contains(c), "{c:?} appears twice");
        }
        assert_eq!(workload_style(0).1, Marker::Circle);
        assert_eq!(workload_style(WORKLOAD_PALETTE.len()).1, Marker::Square);
    }

    #[test]
    fn variants_appear_in_the_parameters_charts_only() {
        let model = crate::fixture_sweep_model();
        let charts = all_charts(&model).unwrap();
        let files: Vec<&str> = charts.iter().map(|c| c.file.as_str()).collect();
        for file in [
            "parameters-hashed-wheel-slots.svg",
            "parameters-rounds-wheel-tick.svg",
        ] {
            assert!(files.contains(&file), "{files:?}");
        }
        assert!(!model.variants.is_empty());
        for chart in &charts {
            parse(chart);
            if chart.file.starts_with("parameters-") {
                continue;
            }
            for v in &model.variants {
                assert!(
                    !chart.svg.contains(&v.name) && !chart.series.contains(&v.name),
                    "{} names the variant {}",
                    chart.file,
                    v.name
                );
            }
        }
        // A design that is also a sweep point stays where it was.
        let heatmap = charts
            .iter()
            .find(|c| c.file == "summary-heatmap.svg")
            .unwrap();
        assert!(heatmap.series.contains(&"netty-wheel".to_owned()));
        assert!(
            parse(heatmap)
                .0
                .iter()
                .any(|t| t == "netty-wheel (inexact)")
        );
        let scaling = charts.iter().find(|c| c.file == "scaling-all.svg").unwrap();
        assert!(scaling.series.contains(&"netty-wheel".to_owned()));
    }

    #[test]
    fn a_parameters_chart_draws_dominated_points_hollow_and_labels_every_value_once() {
        let model = crate::fixture_sweep_model();
        let sweeps = parameters::sweeps(&model);
        let rounds = &sweeps[1];
        let workloads = parameters::on_workloads(&model, rounds);
        let chart = parameter_chart(rounds, &workloads).unwrap().unwrap();
        assert_eq!(chart.file, "parameters-rounds-wheel-tick.svg");
        assert_eq!(
            chart.series,
            ["rounds-wheel", "rounds-wheel@tick=10", "netty-wheel"]
        );
        let (texts, colours) = parse(&chart);
        assert!(texts.contains(&chart.title));
        for (i, w) in workloads.iter().enumerate() {
            assert!(texts.contains(&w.workload), "no legend for {}", w.workload);
            assert!(colours.contains(&crate::model::hex(workload_style(i).0)));
        }
        // Every value is labelled once in each of the two panels, however
        // many workloads have a point at it.
        assert!(workloads.len() > 1);
        for member in &rounds.members {
            let labels = texts.iter().filter(|t| **t == member.label).count();
            assert_eq!(labels, 2, "{}", member.label);
        }
        let dominated: usize = workloads
            .iter()
            .map(|w| {
                w.lateness_frontier.iter().filter(|on| !**on).count()
                    + w.memory_frontier.iter().filter(|on| !**on).count()
            })
            .sum();
        assert!(dominated > 0, "the fixture has dominated points");
        // One more hollow circle: the legend's.
        assert_eq!(hollow_points(&chart), dominated + 1);
        // No point measured, no chart.
        let nothing = [parameters::OnWorkload::new(
            "w",
            vec![parameters::Outcome::Missing; rounds.members.len()],
        )];
        assert!(parameter_chart(rounds, &nothing).unwrap().is_none());
    }

    #[test]
    fn file_stems_are_safe() {
        assert_eq!(file_stem("scaling-1e3"), "scaling-1e3");
        assert_eq!(file_stem("my trace/x"), "my_trace_x");
    }
}
