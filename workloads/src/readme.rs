//! The crate README's table of built-in workloads, generated: what each
//! models, what it is modelled on, and the [`Shape`] of its default-scale tape.
//!
//! The README holds the text between [`BEGIN_MARKER`] and [`END_MARKER`]. The
//! harness rewrites it (`make docs`, `timerbench docs --workloads-readme`), and
//! a test in `tests/builtins.rs` fails when it differs from what
//! [`builtin_table`] makes from the tapes now, so a change to a spec or to the
//! generator cannot leave the figures behind. The text is made here, beside the
//! specs, so that the test can reuse the tapes the other tests generate.

use crate::ftrace::FtraceImport;
use crate::real::{REAL_SOURCE, RealTrace};
use crate::shape::Shape;
use crate::spec::Spec;
use crate::tape::Tick;

/// The line that opens the generated block in `workloads/README.md`.
pub const BEGIN_MARKER: &str = "<!-- builtins: generated from specs/*.toml and their tapes by `make docs`; edit the specs, not these tables -->";
/// The line that closes it.
pub const END_MARKER: &str = "<!-- builtins: end -->";

/// The units a delay is shown in, each with its length in seconds, longest
/// first. A delay is shown in the longest unit it reaches.
const UNITS: [(&str, f64); 6] = [
    ("d", 24.0 * 60.0 * 60.0),
    ("h", 60.0 * 60.0),
    ("min", 60.0),
    ("s", 1.0),
    ("ms", 1e-3),
    ("µs", 1e-6),
];

/// One workload of the table: a built-in spec or a committed kernel trace.
#[derive(Clone, Copy, Debug)]
pub struct TableRow<'a> {
    /// Its name.
    pub name: &'a str,
    /// What it models (a spec's description before its details).
    pub models: &'a str,
    /// What it is modelled on, or where it was captured.
    pub source: &'a str,
    /// Its tape's shape.
    pub shape: Shape,
    /// Its ticks a second, for the delays.
    pub ticks_per_second: Tick,
    /// For a real trace, the synthetic built-in it is set beside.
    pub resembles: Option<&'a str>,
}

impl<'a> TableRow<'a> {
    /// The row of a built-in spec whose tape has `shape`.
    pub fn of_spec(spec: &'a Spec, shape: Shape) -> Self {
        Self {
            name: spec.name(),
            models: headline(spec.description()),
            source: spec.source().unwrap_or("not stated"),
            shape,
            ticks_per_second: spec.ticks_per_second(),
            resembles: None,
        }
    }
}

impl TableRow<'static> {
    /// The row of a committed kernel trace, from its import.
    pub fn of_real(trace: &'static RealTrace, import: &FtraceImport) -> Self {
        Self {
            name: trace.name,
            models: trace.description,
            source: REAL_SOURCE,
            shape: Shape::of(&import.tape),
            ticks_per_second: trace.ticks_per_second(),
            resembles: Some(trace.resembles),
        }
    }
}

/// The generated block, markers included, for the built-ins and their tapes'
/// shapes at `seed`: a table of what each models and its source, then a
/// table of the shapes, then what each column means.
pub fn builtin_table(rows: &[TableRow<'_>], seed: u64) -> String {
    let mut text =
        format!("{BEGIN_MARKER}\n| workload | what it models | source |\n|---|---|---|\n");
    for row in rows {
        text += &format!(
            "| `{}` | {} | {} |\n",
            row.name,
            cell(row.models),
            cell(row.source)
        );
    }
    text += &format!(
        "\nThe tapes at the default scale and seed {seed:#X} (`timerbench run`'s default; a \
         `real-` trace is the same tape at every scale and seed):\n\n\
         | workload | measured ops | inserts | cancelled | reschedules | delay p50 | p90 | p99 \
         | max | peak pending |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
    );
    for row in rows {
        let shape = &row.shape;
        let delays = match shape.delays {
            Some(d) => [d.p50, d.p90, d.p99, d.max].map(|t| delay(t, row.ticks_per_second)),
            None => ["-"; 4].map(str::to_owned),
        };
        text += &format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            row.name,
            thousands(shape.measured_ops as u64),
            thousands(shape.inserts as u64),
            percent(shape.cancelled()),
            percent(shape.rescheduled()),
            delays.join(" | "),
            thousands(shape.peak_pending as u64),
        );
    }
    text += &real_against_synthetic(rows);
    text + "\n*Measured ops*: the operations after the prefill (which only builds the \
             population at time 0; a trace has none). *Inserts*: the measured inserts; a periodic task's \
             re-insert is one. *Cancelled*: the measured cancels that find their timer \
             pending, as a share of the measured inserts (in a steady state, the share of \
             timers whose life ends in a cancel). *Reschedules*: their share of the measured \
             operations. *Delay*: a deadline minus the tick of the insert or reschedule that \
             set it, over the measured ones, as a time at the workload's tick (1 ms by \
             convention; 20 µs in `ratas-connections`, as in ratas; a jiffy, 4 ms at HZ=250, in \
             the `real-` traces, and 1 µs in their `-hrtimer` tapes) (nearest-rank percentiles). \
             *Peak pending*: the most timers pending at once, the prefill included, each \
             firing at its deadline. Computed by `workloads::Shape::of` from the tape.\n"
        + END_MARKER
}

/// Each real trace beside the synthetic built-in it resembles, figure by
/// figure, with where the synthetic shape is near (within
/// [`NEAR_FACTOR`]) and where it is not; empty without real traces.
fn real_against_synthetic(rows: &[TableRow<'_>]) -> String {
    let mut text = String::new();
    for row in rows {
        let Some(twin) = row
            .resembles
            .and_then(|name| rows.iter().find(|other| other.name == name))
        else {
            continue;
        };
        if text.is_empty() {
            text += "\nThe real traces beside the synthetic workload they resemble (real first, \
                     then synthetic; *near* when within a factor of 1.5):\n\n";
        }
        let (real, synthetic) = (&row.shape, &twin.shape);
        let median = |shape: &Shape, per_second| {
            shape
                .delays
                .map(|d| (d.p50 as f64 / per_second as f64, delay(d.p50, per_second)))
        };
        let mut figures = vec![
            figure(
                "cancelled",
                (real.cancelled(), percent(real.cancelled())),
                (synthetic.cancelled(), percent(synthetic.cancelled())),
            ),
            figure(
                "reschedules",
                (real.rescheduled(), percent(real.rescheduled())),
                (synthetic.rescheduled(), percent(synthetic.rescheduled())),
            ),
        ];
        if let (Some(a), Some(b)) = (
            median(real, row.ticks_per_second),
            median(synthetic, twin.ticks_per_second),
        ) {
            figures.push(figure("median delay", a, b));
        }
        figures.push(figure(
            "peak pending",
            (
                real.peak_pending as f64,
                thousands(real.peak_pending as u64),
            ),
            (
                synthetic.peak_pending as f64,
                thousands(synthetic.peak_pending as u64),
            ),
        ));
        text += &format!(
            "- `{}` against `{}`: {}.\n",
            row.name,
            twin.name,
            figures.join("; ")
        );
    }
    text
}

/// How far apart two figures may be and still be called near.
const NEAR_FACTOR: f64 = 1.5;

/// One figure of a real trace beside a synthetic one's, each as (value,
/// text): `cancelled 67.7% against 96.0% (near)`.
fn figure(what: &str, real: (f64, String), synthetic: (f64, String)) -> String {
    let (a, b) = (real.0, synthetic.0);
    let near = if a == b {
        true
    } else if a > 0.0 && b > 0.0 {
        (a / b).max(b / a) <= NEAR_FACTOR
    } else {
        false
    };
    format!(
        "{what} {} against {}{}",
        real.1,
        synthetic.1,
        if near { " (near)" } else { "" }
    )
}

/// The part of a description before its first `": "`: by the specs'
/// convention, what the workload models, before the details of how. The
/// whole description when it has no such part.
fn headline(description: &str) -> &str {
    description
        .split_once(": ")
        .map_or(description, |(head, _)| head)
}

/// Text made safe for one Markdown table cell: a `|` would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `n` with a comma between each group of three digits: 1,234,567.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// A share as a percentage with one decimal; a share above 0 that would
/// round to 0.0% is `<0.1%`, so that none is mistaken for some.
fn percent(share: f64) -> String {
    let percent = share * 100.0;
    if percent > 0.0 && percent < 0.05 {
        "<0.1%".to_owned()
    } else {
        format!("{percent:.1}%")
    }
}

/// A delay of `ticks` at `per_second` ticks a second as a time, in the
/// longest unit it reaches, to three significant digits, and whole when it is
/// a whole number below a second: `20 ms`, `200 µs`, `1.50 s`, `49.7 d`.
fn delay(ticks: Tick, per_second: Tick) -> String {
    let seconds = ticks as f64 / per_second as f64;
    // A delay under a tick (0) is shown in the unit of one tick.
    let reach = seconds.max(1.0 / per_second as f64);
    let (unit, length) = UNITS
        .into_iter()
        .find(|&(_, length)| reach >= length)
        .unwrap_or(UNITS[UNITS.len() - 1]);
    let value = seconds / length;
    if length < 1.0 && (value - value.round()).abs() < 1e-9 {
        return format!("{} {unit}", value.round());
    }
    let decimals = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_to_be_read() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(100_341), "100,341");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(0.0004), "<0.1%");
        assert_eq!(percent(0.059), "5.9%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(delay(0, 1_000), "0 ms");
        assert_eq!(delay(20, 1_000), "20 ms");
        assert_eq!(delay(999, 1_000), "999 ms");
        assert_eq!(delay(1_500, 1_000), "1.50 s");
        assert_eq!(delay(30_000, 1_000), "30.0 s");
        assert_eq!(delay(60_000, 1_000), "1.00 min");
        assert_eq!(delay(3_600_000, 1_000), "1.00 h");
        assert_eq!(delay(1 << 32, 1_000), "49.7 d");
        // ratas's 20 µs ticks.
        assert_eq!(delay(10, 50_000), "200 µs");
        assert_eq!(delay(50, 50_000), "1 ms");
        assert_eq!(delay(9_000_000, 50_000), "3.00 min");
    }

    #[test]
    fn the_headline_is_what_comes_before_the_details() {
        assert_eq!(
            headline("Steady churn in a timer service: delays uniform"),
            "Steady churn in a timer service"
        );
        assert_eq!(headline("No details"), "No details");
        assert_eq!(cell("a | b"), "a \\| b");
    }

    #[test]
    fn the_block_has_a_row_per_workload_in_each_table() {
        let spec = Spec::from_toml(
            "name = \"w\"\ndescription = \"A test: details\"\nsource = \"ours | theirs\"\n\
             duration = 100\npending = 10\ndelay = { kind = \"constant\", value = 10 }\n",
            "w.toml",
        )
        .unwrap();
        let shape = Shape {
            measured_ops: 1_234,
            inserts: 1_000,
            cancels: 250,
            reschedules: 0,
            delays: None,
            peak_pending: 12,
        };
        let block = builtin_table(&[TableRow::of_spec(&spec, shape)], 42);
        assert!(block.starts_with(BEGIN_MARKER) && block.ends_with(END_MARKER));
        assert!(
            block.contains("| `w` | A test | ours \\| theirs |\n"),
            "{block}"
        );
        assert!(
            block.contains("| `w` | 1,234 | 1,000 | 25.0% | 0.0% | - | - | - | - | 12 |\n"),
            "{block}"
        );
        assert!(block.contains("seed 0x2A"), "{block}");
    }
}
