//! The whole passes of a recorded run, by cell: what the commands that judge
//! runs (`compare`, `lead`, `paired`) set side by side.
//!
//! A whole pass is a `repetitions.csv` row with pass `whole` and operation
//! `all`: one timed replay of the measured phase, its total over every
//! measured operation. Its time per operation is the headline's sample; the
//! headline median of a cell is the median of these. The rows come from the
//! `schema` crate's reader, which has already checked them and that they are
//! of one run; this module only indexes them.

use std::collections::BTreeMap;

use schema::RepetitionRow;

/// (algorithm, workload) -> ns per operation of each whole pass, in file order.
pub type Times = BTreeMap<(String, String), Vec<f64>>;

/// Every whole pass of a run's `repetitions.csv` rows, by cell.
pub fn whole_pass_times(repetitions: &[RepetitionRow]) -> Times {
    let mut times = Times::new();
    for_each_whole_pass(repetitions, |algorithm, workload, _, ns| {
        times
            .entry((algorithm.to_owned(), workload.to_owned()))
            .or_default()
            .push(ns);
    });
    times
}

/// Calls `keep(algorithm, workload, repetition, ns per operation)` for every
/// whole pass among a run's `repetitions.csv` rows, in file order.
pub fn for_each_whole_pass(
    repetitions: &[RepetitionRow],
    mut keep: impl FnMut(&str, &str, u32, f64),
) {
    for row in repetitions {
        if let Some(ns) = row.whole_pass_ns() {
            keep(&row.algorithm, &row.workload, row.repetition, ns);
        }
    }
}
