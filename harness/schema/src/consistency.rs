//! The checks across a run's files, which no single row can fail: each row
//! once, each name one the metadata lists, each cell as many passes as
//! `runs.csv` promises, and `runs.csv` as many rows as the metadata says the
//! run measured.
//!
//! **Why.** Every file of a run parses alone, row by row; what goes wrong
//! between them is silent. A `repetitions.csv` whose rows were all written
//! twice narrows every interval; one cut at a line boundary drops a cell's
//! last passes, or whole cells, and still parses; a row of a workload the run
//! never had is judged beside the others. Each of these is refused here with
//! the file, the line of the row at fault and what the run promised.
//!
//! **Invariants a run keeps, and so a reader may hold it to.**
//! * One row per key in each file: `runs.csv` per (algorithm, workload),
//!   `throughput.csv` per (algorithm, workload, operation, method),
//!   `repetitions.csv` per (algorithm, workload, repetition, pass, operation),
//!   `latency.csv` per (algorithm, workload, operation).
//! * Every algorithm and workload a row names is one `metadata.json` lists,
//!   and the metadata lists no algorithm or workload `runs.csv` lacks.
//! * A figure file has rows for exactly the cells `runs.csv` calls measured.
//! * A measured cell has, for each pass and operation it has rows of, one
//!   row per repetition `runs.csv` gives it, numbered from 0; batched
//!   passes, when the metadata gives `batched_repetitions`, that many (at
//!   most one per repetition).
//! * `runs.csv` has the number of rows `metadata.json`'s `cells` gives (a
//!   field runs made before it lack; then the check is skipped).
//! * `threaded.csv`, when the metadata records the threaded settings, has
//!   for each (algorithm, workload) it names a cell for every sharing and
//!   producer count the settings list, and each cell one row per
//!   repetition, numbered from 0, at the settings' speed-up and variant.
//!
//! **Cost.** One pass over each file's rows with an ordered map of keys: a
//! few hundred milliseconds at most on the reference run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::path::Path;

use crate::error::InputError;
use crate::files::{METADATA_FILE, RUNS_FILE};
use crate::metadata::{Metadata, ThreadedSettings};
use crate::repetitions::{PASS_WHOLE, RepetitionRow};
use crate::runs::RunRow;
use crate::threaded::ThreadedRow;

/// What the reader remakes a run from when a check fails.
const REMAKE: &str = "make the results again (`make results`)";

/// A file's rows with the line each starts on, as the checks see them.
pub struct Table<'a, T> {
    /// The file's name in the run's directory.
    pub file: &'static str,
    /// Its rows.
    pub rows: &'a [T],
    /// The 1-based line each row starts on.
    pub lines: &'a [u64],
}

impl<T> Table<'_, T> {
    /// The line of row `index`.
    fn line(&self, index: usize) -> Option<u64> {
        self.lines.get(index).copied()
    }
}

/// Refuses a second row with the key of an earlier one; `what` names the
/// key's parts, e.g. "(algorithm, workload)".
pub fn check_unique<'a, T, K: Ord + Debug>(
    dir: &Path,
    table: &Table<'a, T>,
    what: &str,
    key: impl Fn(&'a T) -> K,
) -> Result<(), InputError> {
    let mut seen = BTreeMap::new();
    for (index, row) in table.rows.iter().enumerate() {
        let line = table.line(index);
        if let Some(first) = seen.insert(key(row), line) {
            return Err(InputError::new(
                &dir.join(table.file),
                line,
                format!(
                    "this row is a duplicate of the row on line {} (the same {what}: {:?}); a \
                     run writes one row per {what}, so the file was edited or copied into \
                     itself; {REMAKE}",
                    first.unwrap_or(0),
                    key(row)
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a row whose algorithm or workload `metadata.json` does not list.
pub fn check_listed<T>(
    dir: &Path,
    metadata: &Metadata,
    table: &Table<'_, T>,
    cell: impl Fn(&T) -> (&str, &str),
) -> Result<(), InputError> {
    let algorithms: BTreeSet<&str> = metadata
        .algorithms
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    let workloads: BTreeSet<&str> = metadata.workloads.iter().map(String::as_str).collect();
    for (index, row) in table.rows.iter().enumerate() {
        let (algorithm, workload) = cell(row);
        let unlisted = if !algorithms.contains(algorithm) {
            Some(("algorithm", algorithm))
        } else if !workloads.contains(workload) {
            Some(("workload", workload))
        } else {
            None
        };
        if let Some((what, name)) = unlisted {
            return Err(InputError::new(
                &dir.join(table.file),
                table.line(index),
                format!(
                    "{what} `{name}` is not one {METADATA_FILE} lists, so this row is not of \
                     the run the metadata describes; {REMAKE}"
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a metadata that lists an algorithm or workload no `runs.csv` row
/// names: the rows of the rest were lost.
pub fn check_metadata_covered(
    dir: &Path,
    metadata: &Metadata,
    runs: &[RunRow],
) -> Result<(), InputError> {
    let algorithms: BTreeSet<&str> = runs.iter().map(|r| r.algorithm.as_str()).collect();
    let workloads: BTreeSet<&str> = runs.iter().map(|r| r.workload.as_str()).collect();
    let missing_algorithm = metadata
        .algorithms
        .iter()
        .map(|a| a.name.as_str())
        .find(|name| !algorithms.contains(name));
    let missing_workload = metadata
        .workloads
        .iter()
        .map(String::as_str)
        .find(|name| !workloads.contains(name));
    let missing = missing_algorithm
        .map(|name| ("algorithm", name))
        .or(missing_workload.map(|name| ("workload", name)));
    if let Some((what, name)) = missing {
        return Err(InputError::new(
            &dir.join(RUNS_FILE),
            None,
            format!(
                "no row names the {what} `{name}`, which {METADATA_FILE} lists: the file lost \
                 rows (cut short) or comes from another run; {REMAKE}"
            ),
        ));
    }
    match metadata.cells {
        Some(cells) if cells != runs.len() as u64 => Err(InputError::new(
            &dir.join(RUNS_FILE),
            None,
            format!(
                "{} rows where {METADATA_FILE} says the run had {cells} cells (algorithm, \
                 workload): the file lost rows (cut short) or gained some; {REMAKE}",
                runs.len()
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuses a figure file whose cells are not the measured cells of
/// `runs.csv`: a row of a cell `runs.csv` does not call measured, or a
/// measured cell with no row.
pub fn check_measured_cells<T>(
    dir: &Path,
    runs: &[RunRow],
    table: &Table<'_, T>,
    cell: impl Fn(&T) -> (&str, &str),
) -> Result<(), InputError> {
    let measured: BTreeSet<(&str, &str)> = runs
        .iter()
        .filter(|r| r.is_ok())
        .map(|r| (r.algorithm.as_str(), r.workload.as_str()))
        .collect();
    let mut found = BTreeSet::new();
    for (index, row) in table.rows.iter().enumerate() {
        let (algorithm, workload) = cell(row);
        if !measured.contains(&(algorithm, workload)) {
            return Err(InputError::new(
                &dir.join(table.file),
                table.line(index),
                format!(
                    "a row for {algorithm} on {workload}, which {RUNS_FILE} does not list as \
                     measured: the files come from different runs, or {RUNS_FILE} lost rows; \
                     {REMAKE}"
                ),
            ));
        }
        found.insert((algorithm, workload));
    }
    if let Some((algorithm, workload)) = measured.difference(&found).next() {
        return Err(InputError::new(
            &dir.join(table.file),
            None,
            format!(
                "no rows for {algorithm} on {workload}, which {RUNS_FILE} lists as measured; \
                 the file is truncated or from another run; {REMAKE}"
            ),
        ));
    }
    Ok(())
}

/// A `repetitions.csv` row's key: algorithm, workload, repetition, pass,
/// operation.
pub type PassKey<'a> = (&'a str, &'a str, u32, &'a str, &'a str);

/// The key of a `repetitions.csv` row, of which a run writes one.
pub fn pass_key(row: &RepetitionRow) -> PassKey<'_> {
    (
        &row.algorithm,
        &row.workload,
        row.repetition,
        &row.pass,
        &row.operation,
    )
}

/// Refuses a measured cell whose passes of one kind (pass, operation) are
/// not one per repetition `runs.csv` gives it, numbered from 0.
///
/// A whole pass is run once per repetition. A batched pass is run once per
/// repetition too, or, when `runs.csv` says how many batched passes the cell
/// ran (its `batched_repetitions`, which a heavy cell's differs in), that
/// many, or else when the metadata says how many each cell ran, that many,
/// at most one per repetition.
pub fn check_repetition_counts(
    dir: &Path,
    runs: &[RunRow],
    batched_repetitions: Option<u64>,
    table: &Table<'_, RepetitionRow>,
) -> Result<(), InputError> {
    let promised: BTreeMap<(&str, &str), Option<u64>> = runs
        .iter()
        .filter(|r| r.is_ok())
        .map(|r| ((r.algorithm.as_str(), r.workload.as_str()), r.repetitions))
        .collect();
    let batched_of: BTreeMap<(&str, &str), u64> = runs
        .iter()
        .filter(|r| r.is_ok())
        .filter_map(|r| {
            Some((
                (r.algorithm.as_str(), r.workload.as_str()),
                r.batched_repetitions?,
            ))
        })
        .collect();
    // (algorithm, workload, pass, operation) -> rows and the last row's index.
    let mut counts: BTreeMap<(&str, &str, &str, &str), (u64, usize)> = BTreeMap::new();
    for (index, row) in table.rows.iter().enumerate() {
        let (algorithm, workload, repetition, pass, operation) = pass_key(row);
        let Some(Some(repetitions)) = promised.get(&(algorithm, workload)) else {
            continue;
        };
        if u64::from(repetition) >= *repetitions {
            return Err(InputError::new(
                &dir.join(table.file),
                table.line(index),
                format!(
                    "repetition {repetition} of {algorithm} on {workload}, which {RUNS_FILE} \
                     says had {repetitions} repetitions (numbered from 0); {REMAKE}"
                ),
            ));
        }
        let entry = counts
            .entry((algorithm, workload, pass, operation))
            .or_default();
        *entry = (entry.0 + 1, index);
    }
    for ((algorithm, workload, pass, operation), (count, index)) in counts {
        let Some(Some(repetitions)) = promised.get(&(algorithm, workload)) else {
            continue;
        };
        let cell_batched = batched_of.get(&(algorithm, workload)).copied();
        let (expected, promise) = match (cell_batched, batched_repetitions) {
            (Some(batched), _) if pass != PASS_WHOLE => (
                batched,
                format!("{RUNS_FILE} says the cell ran {batched} batched passes"),
            ),
            (None, Some(batched)) if pass != PASS_WHOLE => (
                batched.min(*repetitions),
                format!(
                    "{METADATA_FILE} says each cell ran {batched} batched passes and {RUNS_FILE} \
                     that it had {repetitions} repetitions"
                ),
            ),
            _ => (
                *repetitions,
                format!("{RUNS_FILE} says it had {repetitions} repetitions"),
            ),
        };
        if count != expected {
            return Err(InputError::new(
                &dir.join(table.file),
                table.line(index),
                format!(
                    "{algorithm} on {workload} has {count} {pass} passes of `{operation}` where \
                     {promise}: the file lost rows (cut short) or gained some; {REMAKE}"
                ),
            ));
        }
    }
    Ok(())
}

/// A `threaded.csv` row's key: algorithm, workload, sharing, producers,
/// repetition.
pub type ThreadedKey<'a> = (&'a str, &'a str, &'a str, u32, u32);

/// The key of a `threaded.csv` row, of which a run writes one.
pub fn threaded_key(row: &ThreadedRow) -> ThreadedKey<'_> {
    (
        &row.algorithm,
        &row.workload,
        &row.sharing,
        row.producers,
        row.repetition,
    )
}

/// An (algorithm, workload)'s threaded cells: per (sharing, producers), its
/// rows and the index of the last.
type CellRows<'a> = BTreeMap<(&'a str, u32), (u32, usize)>;

/// Refuses a `threaded.csv` that is not what the run's threaded settings
/// (`metadata.json`'s `threaded`) make: a row of a sharing, producer count,
/// repetition, speed-up or variant the settings do not give, an (algorithm,
/// workload) without a cell for each sharing and producer count, or a cell
/// without one row per repetition.
pub fn check_threaded(
    dir: &Path,
    settings: &ThreadedSettings,
    table: &Table<'_, ThreadedRow>,
) -> Result<(), InputError> {
    let refuse = |index: Option<usize>, message: String| {
        Err(InputError::new(
            &dir.join(table.file),
            index.and_then(|i| table.line(i)),
            format!("{message}; {REMAKE}"),
        ))
    };
    let list = |items: &[String]| items.join(", ");
    let mut cells: BTreeMap<(&str, &str), CellRows<'_>> = BTreeMap::new();
    for (index, row) in table.rows.iter().enumerate() {
        let given = if !settings.sharings.contains(&row.sharing) {
            Some(format!(
                "sharing `{}`, which {METADATA_FILE}'s `threaded.sharings` does not list ({})",
                row.sharing,
                list(&settings.sharings)
            ))
        } else if !settings.producers.contains(&row.producers) {
            let producers: Vec<String> = settings.producers.iter().map(u32::to_string).collect();
            Some(format!(
                "{} producers, which {METADATA_FILE}'s `threaded.producers` does not list ({})",
                row.producers,
                list(&producers)
            ))
        } else if row.repetition >= settings.repetitions {
            Some(format!(
                "repetition {}, where {METADATA_FILE}'s `threaded.repetitions` gives {} \
                 (numbered from 0)",
                row.repetition, settings.repetitions
            ))
        } else if row.speedup != settings.speedup {
            Some(format!(
                "a speed-up of {}, where {METADATA_FILE}'s `threaded.speedup` is {}",
                row.speedup, settings.speedup
            ))
        } else if row.saturated != settings.saturate {
            Some(format!(
                "`saturated` {}, where {METADATA_FILE}'s `threaded.saturate` is {}",
                row.saturated, settings.saturate
            ))
        } else {
            None
        };
        if let Some(given) = given {
            return refuse(
                Some(index),
                format!(
                    "this row of {} on {} has {given}, so it is not of the run the metadata \
                     describes",
                    row.algorithm, row.workload
                ),
            );
        }
        let entry = cells
            .entry((&row.algorithm, &row.workload))
            .or_default()
            .entry((&row.sharing, row.producers))
            .or_default();
        *entry = (entry.0 + 1, index);
    }
    for ((algorithm, workload), found) in &cells {
        for sharing in &settings.sharings {
            for &producers in &settings.producers {
                let Some(&(count, index)) = found.get(&(sharing.as_str(), producers)) else {
                    return refuse(
                        None,
                        format!(
                            "no rows for {algorithm} on {workload} under {sharing} with \
                             {producers} producers, which {METADATA_FILE}'s `threaded` settings \
                             give every cell: the file lost rows (cut short)"
                        ),
                    );
                };
                if count != settings.repetitions {
                    return refuse(
                        Some(index),
                        format!(
                            "{algorithm} on {workload} under {sharing} with {producers} \
                             producers has {count} rows where {METADATA_FILE}'s \
                             `threaded.repetitions` gives {}: the file lost rows (cut short) \
                             or gained some",
                            settings.repetitions
                        ),
                    );
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table<'a>(rows: &'a [(&'a str, u32)], lines: &'a [u64]) -> Table<'a, (&'a str, u32)> {
        Table {
            file: "f.csv",
            rows,
            lines,
        }
    }

    #[test]
    fn a_duplicate_names_both_lines() {
        let rows = [("a", 1), ("b", 1), ("a", 1)];
        let error =
            check_unique(Path::new("d"), &table(&rows, &[2, 3, 5]), "(name)", |r| r.0).unwrap_err();
        assert_eq!(error.line, Some(5));
        assert!(error.message.contains("line 2"), "{error}");
        assert!(error.message.contains("\"a\""), "{error}");
        check_unique(Path::new("d"), &table(&rows, &[2, 3, 5]), "(row)", |r| *r).unwrap_err();
        check_unique(Path::new("d"), &table(&rows[..2], &[2, 3]), "(row)", |r| {
            r.0
        })
        .unwrap();
    }

    fn threaded_row(sharing: &str, producers: u32, repetition: u32) -> ThreadedRow {
        ThreadedRow {
            algorithm: "heap".to_owned(),
            workload: "w".to_owned(),
            sharing: sharing.to_owned(),
            producers,
            repetition,
            speedup: 10,
            status: "ok".to_owned(),
            ..ThreadedRow::default()
        }
    }

    #[test]
    fn threaded_rows_are_held_to_the_settings_with_file_and_line() {
        let settings = ThreadedSettings {
            producers: vec![1, 2],
            sharings: vec!["locked".to_owned()],
            speedup: 10,
            window_ticks: 2_000,
            repetitions: 2,
            saturate: false,
        };
        let full: Vec<ThreadedRow> = [(1, 0), (1, 1), (2, 0), (2, 1)]
            .into_iter()
            .map(|(p, r)| threaded_row("locked", p, r))
            .collect();
        let lines: Vec<u64> = (2..).take(full.len()).collect();
        let check = |rows: &[ThreadedRow]| {
            check_threaded(
                Path::new("d"),
                &settings,
                &Table {
                    file: "threaded.csv",
                    rows,
                    lines: &lines[..rows.len()],
                },
            )
        };
        check(&full).unwrap();
        let mut other = full.clone();
        other[2].sharing = "sharded".to_owned();
        let error = check(&other).unwrap_err();
        assert_eq!(
            (error.path.as_path(), error.line),
            (Path::new("d/threaded.csv"), Some(4))
        );
        assert!(error.message.contains("sharing `sharded`"), "{error}");
        other = full.clone();
        other[3].producers = 4;
        assert!(check(&other).unwrap_err().message.contains("4 producers"));
        other = full.clone();
        other[1].repetition = 2;
        assert!(check(&other).unwrap_err().message.contains("repetition 2"));
        other = full.clone();
        other[0].speedup = 100;
        assert!(
            check(&other)
                .unwrap_err()
                .message
                .contains("speed-up of 100")
        );
        let error = check(&full[..3]).unwrap_err();
        assert!(
            error.message.contains("has 1 rows") && error.line == Some(4),
            "{error}"
        );
        let error = check(&full[..2]).unwrap_err();
        assert!(error.message.contains("with 2 producers"), "{error}");
        assert_eq!(error.line, None);
    }
}
