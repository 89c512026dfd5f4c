//! The one table every form of `timerbench compare` prints: per cell, the
//! reference's and the subject's median, the ratio with its interval and
//! the verdict, then a line counting the verdicts. It fits 120 columns: names
//! longer than their column are cut with a `~`, and the reasons for *cannot
//! tell* are said once under the table, not on every row.

use std::fmt::Write as _;

use super::{Judgement, Verdict};
use crate::wrap::TERMINAL_WIDTH as WIDTH;

/// One row of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The workload.
    pub workload: String,
    /// What is judged (an algorithm, or a rival's name for a lead).
    pub subject: String,
    /// What it is judged against.
    pub reference: String,
    /// The reference's median, ns per operation.
    pub reference_ns: f64,
    /// The subject's median, ns per operation.
    pub subject_ns: f64,
    /// The judgement of the subject over the reference.
    pub judgement: Judgement,
}

/// The widest the workload column grows.
const WORKLOAD_WIDTH: usize = 18;
/// Width of each ns column.
const NS_WIDTH: usize = 9;
/// Width of the ratio column.
const RATIO_WIDTH: usize = 7;
/// Width of the interval column: `[10.000, 12.000]` and a space.
const INTERVAL_WIDTH: usize = 17;
/// Width of the longest short verdict, "cannot tell".
const VERDICT_WIDTH: usize = 11;

/// `text` cut to `width` characters, a `~` marking a cut. A closing tag in
/// parentheses (a lead's rival kind, `(baseline)`) is kept whole and the
/// name before it cut instead, when at least two of its characters fit.
pub fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    if let Some(at) = text.rfind(" (").filter(|_| text.ends_with(')')) {
        let (name, tag) = text.split_at(at);
        let tag_width = tag.chars().count();
        if tag_width + 2 <= width {
            return fit(name, width - tag_width) + tag;
        }
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('~');
    cut
}

/// The widths of two name columns whose longest entries are `first` and
/// `second` characters, sharing `budget` columns: each gets what it needs
/// when both fit, else the shorter keeps its width and the longer is cut.
pub fn share(first: usize, second: usize, budget: usize) -> (usize, usize) {
    let half = budget / 2;
    if first + second <= budget {
        (first, second)
    } else if second <= half {
        (budget - second, second)
    } else if first <= half {
        (first, budget - first)
    } else {
        (half, budget - half)
    }
}

/// The verdict as a table prints it (short, so that rows fit).
fn short(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::NoChange => "no change",
        Verdict::CannotTell => "cannot tell",
    }
}

/// The table of `lines`, with the column titles of the two sides. No row is
/// wider than 120 columns.
pub fn render(lines: &[Line], reference_title: &str, subject_title: &str) -> String {
    let longest = |title: &str, of: &dyn Fn(&Line) -> &str| {
        lines
            .iter()
            .map(|l| of(l).chars().count())
            .chain([title.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let workload_width = longest("workload", &|l| &l.workload).min(WORKLOAD_WIDTH);
    let fixed =
        workload_width + 2 * (NS_WIDTH + 2) + RATIO_WIDTH + 2 + INTERVAL_WIDTH + VERDICT_WIDTH + 1;
    let (rw, sw) = share(
        longest(reference_title, &|l| &l.reference),
        longest(subject_title, &|l| &l.subject),
        WIDTH - fixed,
    );
    let mut text = format!(
        "{:<w$} {:<rw$} {:>ns$} {:<sw$} {:>ns$} {:>rt$}  {:<iw$}verdict\n",
        "workload",
        fit(reference_title, rw),
        "ns",
        fit(subject_title, sw),
        "ns",
        "ratio",
        "95% interval",
        w = workload_width,
        ns = NS_WIDTH,
        rt = RATIO_WIDTH,
        iw = INTERVAL_WIDTH,
    );
    for line in lines {
        let interval = line.judgement.interval.map_or_else(
            || "-".to_owned(),
            |(low, high)| format!("[{low:.3}, {high:.3}]"),
        );
        let _ = writeln!(
            text,
            "{:<w$} {:<rw$} {:>ns$.1} {:<sw$} {:>ns$.1} {:>rt$.3}  {:<iw$}{}",
            fit(&line.workload, workload_width),
            fit(&line.reference, rw),
            line.reference_ns,
            fit(&line.subject, sw),
            line.subject_ns,
            line.judgement.ratio,
            interval,
            short(line.judgement.verdict),
            w = workload_width,
            ns = NS_WIDTH,
            rt = RATIO_WIDTH,
            iw = INTERVAL_WIDTH,
        );
    }
    text
}

/// How many of `lines` have each verdict, as one line.
pub fn counts(lines: &[Line]) -> String {
    let count = |verdict| {
        lines
            .iter()
            .filter(|line| line.judgement.verdict == verdict)
            .count()
    };
    format!(
        "{} cells: {} faster, {} slower, {} no significant change, {} cannot tell",
        lines.len(),
        count(Verdict::Faster),
        count(Verdict::Slower),
        count(Verdict::NoChange),
        count(Verdict::CannotTell)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::judge;

    #[test]
    fn long_names_are_cut_and_rows_fit_120_columns() {
        assert_eq!(fit("short", 8), "short");
        assert_eq!(fit("a-rather-long-name", 8), "a-rathe~");
        assert_eq!(
            fit("std-binary-heap-plain (baseline)", 28),
            "std-binary-heap-~ (baseline)"
        );
        assert_eq!(fit("std-binary-heap-plain (baseline)", 11), "std-binary~");
        let line = Line {
            workload: "a-workload-with-a-very-long-name".into(),
            subject: "x".repeat(40),
            reference: "y".repeat(40),
            reference_ns: 123_456.7,
            subject_ns: 98_765.4,
            judgement: judge(&[0.8, 0.81, 0.79, 0.8, 0.82, 0.8]).unwrap(),
        };
        let text = render(&[line.clone(), line], "BASE", "NEW");
        for row in text.lines() {
            assert!(row.chars().count() <= 120, "{} columns: {row}", row.len());
        }
        assert!(text.contains("faster"), "{text}");
    }

    #[test]
    fn the_shorter_name_column_keeps_its_width() {
        assert_eq!(share(10, 12, 40), (10, 12));
        assert_eq!(share(50, 11, 40), (29, 11));
        assert_eq!(share(11, 50, 40), (11, 29));
        assert_eq!(share(30, 30, 40), (20, 20));
    }
}
