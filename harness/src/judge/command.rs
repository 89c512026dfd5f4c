//! `timerbench compare`: the one command that sets measurements side by side,
//! in three forms (two sets of runs, two rows of one run, a row against its
//! rivals), each printed as the one table of [`super::table`] and judged by
//! the one rule of [`super`].

use std::fmt::Write as _;
use std::path::PathBuf;

use schema::{ComparisonRow, SCHEMA_VERSION};

use super::table::{self, Line};
use super::{MIN_PAIRS, NOISE_BAND, Verdict, lead, rows, runs, too_few};
use crate::failure::Failure;
use crate::wrap::{TERMINAL_WIDTH as WIDTH, wrap_words};

/// How far apart two runs' medians may lie and still be said to be close, in
/// the spread `compare` prints for one run a side (a description, not a
/// verdict).
const CLOSE: f64 = 0.10;

/// What `timerbench compare` sets side by side.
#[derive(Clone, Debug, PartialEq)]
pub enum Form {
    /// NEW's runs against BASE's, paired in the order given.
    Runs {
        /// BASE's results directories.
        base: Vec<PathBuf>,
        /// NEW's results directories.
        new: Vec<PathBuf>,
    },
    /// Row `b` against row `a` of one run, paired by repetition.
    Rows {
        /// The results directory.
        run: PathBuf,
        /// The reference row.
        a: String,
        /// The row judged.
        b: String,
        /// A run where the change was on `a`'s row instead.
        swapped: Option<PathBuf>,
    },
    /// One row against its rivals in one run.
    Lead {
        /// The results directory.
        run: PathBuf,
        /// The row.
        row: String,
    },
}

/// `timerbench compare`'s settings.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareConfig {
    /// What to set side by side.
    pub form: Form,
    /// Print only the cells called faster or slower.
    pub changes_only: bool,
    /// Also write NEW/comparison.csv (runs form, one NEW run).
    pub save: bool,
}

/// `text` wrapped between words to the terminal's width.
fn wrap(text: &str, width: usize) -> String {
    wrap_words("", text, width).join("\n")
}

/// `timerbench compare`.
pub fn compare(config: &CompareConfig) -> Result<(), Failure> {
    let mut text = match &config.form {
        Form::Runs { base, new } => runs_text(base, new, config)?,
        Form::Rows { run, a, b, swapped } => {
            let lines =
                rows::compare_rows(run, a, b, swapped.as_deref()).map_err(Failure::Input)?;
            let mut heading = format!(
                "{}: {b}'s whole pass over {a}'s in the same repetition (below 1: {b} is faster)",
                run.display()
            );
            if let Some(other) = swapped {
                let _ = write!(
                    heading,
                    ", pooled with {}'s pairs the other way round ({a}'s over {b}'s: the \
                     changed row's over the unchanged one's in both)",
                    other.display()
                );
            }
            judged_text(&heading, &lines, a, b, "repetition", config.changes_only)
        }
        Form::Lead { run, row } => {
            let leads = lead::leads(run, row).map_err(Failure::Input)?;
            let lines: Vec<Line> = leads.into_iter().map(|lead| lead.line).collect();
            let heading = format!(
                "{row} against its rivals in {}: per workload the best native crate, the best \
                 std baseline and the next exact design; {row}'s whole pass over the rival's in \
                 the same repetition (below 1: {row} is faster)",
                run.display()
            );
            judged_text(
                &heading,
                &lines,
                "rival",
                row,
                "repetition",
                config.changes_only,
            )
        }
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    crate::failure::print(&text)
}

/// The heading, the table, the counts and why any cell has no verdict.
fn judged_text(
    heading: &str,
    lines: &[Line],
    reference_title: &str,
    subject_title: &str,
    unit: &str,
    changes_only: bool,
) -> String {
    let mut text = wrap(heading, WIDTH);
    text.push('\n');
    let shown: Vec<Line> = lines
        .iter()
        .filter(|l| {
            !changes_only || matches!(l.judgement.verdict, Verdict::Faster | Verdict::Slower)
        })
        .cloned()
        .collect();
    text.push_str(&table::render(&shown, reference_title, subject_title));
    let _ = writeln!(
        text,
        "{}",
        wrap(
            &format!(
                "{}. Faster or slower only when the whole 95% interval lies beyond {:.0}% either \
                 side of 1.",
                table::counts(lines),
                NOISE_BAND * 100.0
            ),
            WIDTH
        )
    );
    if let Some(fewest) = lines
        .iter()
        .filter(|l| l.judgement.verdict == Verdict::CannotTell)
        .map(|l| l.judgement.pairs)
        .min()
    {
        let _ = writeln!(text, "{}", wrap(&too_few(fewest, unit), WIDTH));
    }
    text
}

/// The runs form's text; with `--save`, writes NEW/comparison.csv.
fn runs_text(base: &[PathBuf], new: &[PathBuf], config: &CompareConfig) -> Result<String, Failure> {
    let save_into = match (config.save, runs::single(new)) {
        (true, None) => {
            return Err(Failure::Input(anyhow::anyhow!(
                "--save writes comparison.csv into NEW, so NEW must be one results directory, \
                 not {}",
                new.len()
            )));
        }
        (true, Some(dir)) => Some(dir.to_path_buf()),
        (false, _) => None,
    };
    let comparison = runs::compare_runs(base, new).map_err(Failure::Input)?;
    let heading = format!(
        "{} against {}: each run's median per cell, NEW's over BASE's, the runs paired in the \
         order given (below 1: NEW is faster)",
        runs::show(new),
        runs::show(base)
    );
    let mut text = String::new();
    for note in &comparison.notes {
        let _ = writeln!(text, "{}", wrap(&format!("note: {note}"), WIDTH));
    }
    for warning in &comparison.warnings {
        let _ = writeln!(text, "{}", wrap(&format!("warning: {warning}"), WIDTH));
    }
    text.push_str(&judged_text(
        &heading,
        &comparison.lines,
        "BASE",
        "NEW",
        "pair of runs",
        config.changes_only,
    ));
    if comparison.pairs < MIN_PAIRS {
        let _ = writeln!(text, "{}", wrap(&spread(&comparison.lines), WIDTH));
    }
    if !comparison.unpaired.is_empty() {
        let _ = writeln!(
            text,
            "{}",
            wrap(
                &format!(
                    "not measured by every run ({}): {}",
                    comparison.unpaired.len(),
                    comparison.unpaired.join(", ")
                ),
                WIDTH
            )
        );
    }
    if let Some(dir) = save_into {
        let rows: Vec<ComparisonRow> = comparison
            .lines
            .iter()
            .map(|line| ComparisonRow {
                schema_version: SCHEMA_VERSION,
                base: runs::show(base),
                workload: line.workload.clone(),
                algorithm: line.subject.clone(),
                base_ns: line.reference_ns,
                new_ns: line.subject_ns,
                ratio: line.judgement.ratio,
                ratio_ci_low: line.judgement.interval.map(|(low, _)| low),
                ratio_ci_high: line.judgement.interval.map(|(_, high)| high),
                verdict: line.judgement.verdict.label().to_owned(),
                noise: NOISE_BAND,
                normalised: false,
                shift: None,
                run_id: comparison.run_id.clone().unwrap_or_default(),
            })
            .collect();
        let swapped = crate::output::write_comparison(&dir, &rows).map_err(Failure::Run)?;
        for path in swapped.written {
            let _ = writeln!(
                text,
                "wrote {} (`make report OUT={}` draws it)",
                path.display(),
                dir.display()
            );
        }
    }
    Ok(text)
}

/// How far one run's medians lie from another's, described without a
/// verdict: the range of the ratios and how many lie within [`CLOSE`].
fn spread(lines: &[Line]) -> String {
    let ratios: Vec<f64> = lines.iter().map(|l| l.judgement.ratio).collect();
    let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let close = ratios.iter().filter(|r| (**r - 1.0).abs() <= CLOSE).count();
    format!(
        "The spread, not a verdict: ratios from {low:.3} to {high:.3}; {close} of {} cells within \
         {:.0}% of 1. Separate runs on a shared host differ by more than most changes; \
         `make ab` runs two builds in turn, six pairs by default.",
        ratios.len(),
        CLOSE * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::judge;

    #[test]
    fn the_spread_counts_the_close_ratios() {
        let line = |ratio: f64| Line {
            workload: "w".into(),
            subject: "a".into(),
            reference: "a".into(),
            reference_ns: 1.0,
            subject_ns: ratio,
            judgement: judge(&[ratio]).unwrap(),
        };
        let text = spread(&[line(0.95), line(1.2), line(1.05)]);
        assert!(text.contains("from 0.950 to 1.200; 2 of 3 cells"), "{text}");
    }
}
