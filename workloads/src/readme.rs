//! The crate README's table of built-in workloads, generated: what each
//! models, what it is modelled on, and the [`Shape`] of its default-scale tape.
//!
//! The README holds the text between [`BEGIN_MARKER`] and [`END_MARKER`]. The
//! harness rewrites it (`make docs`, `timerbench docs --workloads-readme`), and
//! a test in `tests/builtins.rs` fails when it differs from what
//! [`builtin_table`] makes from the tapes now, so a change to a spec or to the
//! generator cannot leave the figures behind. The text is made here, beside the
//! specs, so that the test can reuse the tapes the other tests generate.

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

/// The generated block, markers included, for the built-ins and their tapes'
/// shapes at `seed`: a table of what each models and its source, then a
/// table of the shapes, then what each column means.
pub fn builtin_table(rows: &[(&Spec, Shape)], seed: u64) -> String {
    let mut text =
        format!("{BEGIN_MARKER}\n| workload | what it models | source |\n|---|---|---|\n");
    for (spec, _) in rows {
        text += &format!(
            "| `{}` | {} | {} |\n",
            spec.name(),
            cell(headline(spec.description())),
            cell(spec.source().unwrap_or("not stated"))
        );
    }
    text += &format!(
        "\nThe tapes at the default scale and seed {seed:#X} (`timerbench run`'s default):\n\n\
         | workload | measured ops | inserts | cancelled | reschedules | delay p50 | p90 | p99 \
         | max | peak pending |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
    );
    for (spec, shape) in rows {
        let delays = match shape.delays {
            Some(d) => [d.p50, d.p90, d.p99, d.max].map(|t| delay(t, spec.ticks_per_second())),
            None => ["-"; 4].map(str::to_owned),
        };
        text += &format!(
            "| `{}` | {} | {} | {} | {} | {} | {} |\n",
            spec.name(),
            thousands(shape.measured_ops as u64),
            thousands(shape.inserts as u64),
            percent(shape.cancelled()),
            percent(shape.rescheduled()),
            delays.join(" | "),
            thousands(shape.peak_pending as u64),
        );
    }
    text + "\n*Measured ops*: the operations after the prefill (which only builds the \
             population at time 0). *Inserts*: the measured inserts; a periodic task's \
             re-insert is one. *Cancelled*: the measured cancels that find their timer \
             pending, as a share of the measured inserts (in a steady state, the share of \
             timers whose life ends in a cancel). *Reschedules*: their share of the measured \
             operations. *Delay*: a deadline minus the tick of the insert or reschedule that \
             set it, over the measured ones, as a time at the workload's tick (1 ms by \
             convention; 20 µs in `ratas-connections`, as in ratas) (nearest-rank percentiles). \
             *Peak pending*: the most timers pending at once, the prefill included, each \
             firing at its deadline. Computed by `workloads::Shape::of` from the tape.\n"
        + END_MARKER
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
        let block = builtin_table(&[(&spec, shape)], 42);
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
