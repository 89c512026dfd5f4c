//! Predicted against counted work: each work counter that Varghese and
//! Lauck's analysis predicts for a design on a workload (`predictions.csv`,
//! written by the harness's `theory` module from the workload's law and the
//! design's parameters) beside what the design counted (`runs.csv`), and
//! their ratio.
//!
//! The ratio is counted over predicted. A prediction is an expectation over
//! the workload's random arrivals, so a ratio near 1 is agreement within the
//! noise of one draw; a small prediction (tens) carries a wide relative noise.
//! A workload with no closed form is named with the reason, and has no row:
//! nothing is guessed. A counter the design does not count (an empty
//! `runs.csv` field) reads "not counted", never 0.

use crate::input::{PredictionRow, RunRow};
use crate::model::Model;
use crate::tables::{Row, Table, TableCell};

/// A count in `runs.csv` by its column's name: `None` when the field is
/// empty (not counted, or a skipped row) or the name is no counter's.
pub fn counted(run: &RunRow, column: &str) -> Option<u64> {
    run.counter(column)
}

/// The smallest prediction a ratio is shown for: below one expected event
/// a ratio says nothing.
const MIN_FOR_RATIO: f64 = 1.0;

/// `counted / predicted`, when at least one event is predicted.
pub fn ratio(predicted: f64, counted: u64) -> Option<f64> {
    (predicted >= MIN_FOR_RATIO).then(|| counted as f64 / predicted)
}

/// How far `counted` lies from `predicted` in standard deviations of a
/// Poisson count of that mean (`sqrt(predicted)`), signed: a ratio beyond
/// a few percent within a few of them is the draw's noise, not the
/// formula's. `None` below one expected event.
pub fn deviations(predicted: f64, counted: u64) -> Option<f64> {
    (predicted >= MIN_FOR_RATIO).then(|| (counted as f64 - predicted) / predicted.sqrt())
}

/// A figure with thousands separated, rounded to a whole number.
fn whole(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn cell(text: impl Into<String>) -> TableCell {
    TableCell {
        text: text.into(),
        ..TableCell::default()
    }
}

/// The rows with a prediction, in the file's order.
fn predicted_rows(model: &Model) -> impl Iterator<Item = (&PredictionRow, f64)> {
    model
        .predictions
        .iter()
        .filter_map(|row| row.predicted.map(|p| (row, p)))
}

/// The table: workload, row, counter, predicted, counted, ratio. `None` when
/// no workload of the run has a prediction.
pub fn predicted_table(model: &Model) -> Option<Table> {
    let rows: Vec<Row> = predicted_rows(model)
        .map(|(row, predicted)| {
            let count = model
                .run(&row.algorithm, &row.workload)
                .and_then(|run| counted(run, &row.counter));
            let (count_text, ratio_text, off_text) = match count {
                Some(count) => (
                    whole(count as f64),
                    ratio(predicted, count).map_or("-".to_owned(), |r| format!("{r:.3}")),
                    deviations(predicted, count).map_or("-".to_owned(), |d| format!("{d:+.1}")),
                ),
                None => ("not counted".to_owned(), "-".to_owned(), "-".to_owned()),
            };
            Row::Cells(vec![
                cell(row.workload.clone()),
                cell(row.algorithm.clone()),
                cell(row.counter.clone()),
                cell(whole(predicted)),
                cell(count_text),
                cell(ratio_text),
                cell(off_text),
            ])
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        numeric: true,
        headers: [
            "workload",
            "algorithm",
            "counter",
            "predicted",
            "counted",
            "ratio",
            "off, in sd",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows,
    })
}

/// The workloads with no closed form, each with the reason, in words.
pub fn without_closed_form(model: &Model) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for row in model.predictions.iter().filter(|r| r.predicted.is_none()) {
        if !out.iter().any(|(workload, _)| *workload == row.workload) {
            out.push((row.workload.clone(), row.basis.clone()));
        }
    }
    out
}

/// The worst agreement: the (workload, row, counter) whose ratio lies
/// farthest from 1, with its ratio, among predictions of at least
/// `at_least` (smaller ones are noise-bound).
pub fn worst_ratio(model: &Model, at_least: f64) -> Option<(&PredictionRow, f64)> {
    predicted_rows(model)
        .filter(|(_, predicted)| *predicted >= at_least)
        .filter_map(|(row, predicted)| {
            let run = model.run(&row.algorithm, &row.workload)?;
            Some((row, ratio(predicted, counted(run, &row.counter)?)?))
        })
        .max_by(|a, b| (a.1.ln().abs()).total_cmp(&b.1.ln().abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_have_thousands_separated() {
        assert_eq!(whole(0.0), "0");
        assert_eq!(whole(999.4), "999");
        assert_eq!(whole(1_234_567.0), "1,234,567");
    }

    #[test]
    fn deviations_are_in_poisson_standard_deviations() {
        assert_eq!(deviations(1_600.0, 1_520), Some(-2.0));
        assert_eq!(deviations(100.0, 100), Some(0.0));
        assert_eq!(deviations(0.5, 3), None);
    }

    #[test]
    fn a_counter_is_found_by_its_column() {
        let run = RunRow {
            cascades: Some(7),
            ..RunRow::default()
        };
        assert_eq!(counted(&run, "cascades"), Some(7));
        assert_eq!(counted(&run, "slot_visits"), None, "not counted");
        assert_eq!(counted(&run, "nonsense"), None);
    }

    #[test]
    fn a_ratio_needs_a_prediction() {
        assert_eq!(ratio(0.0, 5), None);
        assert_eq!(ratio(1e-100, 0), None, "nothing expected");
        assert_eq!(ratio(4.0, 5), Some(1.25));
    }
}
