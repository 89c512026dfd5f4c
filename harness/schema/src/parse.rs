//! Parsing one results file: the only code that turns the text of a CSV or
//! JSON file into rows, and every problem into an [`InputError`] naming the
//! file, the line, the column and the value where there are some.
//!
//! A CSV file must start with the `schema_version` column, every row must
//! carry [`SCHEMA_VERSION`] and as many fields as the header, every field must
//! parse as its column's type, and every row must pass its type's
//! [`CheckRow`]. Columns a row type does not name are ignored, so the harness
//! may add columns without breaking a reader, as long as it bumps the version
//! for any change of meaning. A file whose last line has no newline was cut
//! short: timerbench ends every row with one.
//!
//! Lines are counted from byte offsets, not by the csv crate, whose count is
//! off by one for files with CRLF line ends.

use std::fs;
use std::io::Read;
use std::path::Path;

use serde::de::DeserializeOwned;

use crate::check::CheckRow;
use crate::error::InputError;
use crate::files::{SCHEMA_VERSION, VERSION_COLUMN};

/// The error for a JSON file that does not parse, with its line and column.
pub fn json_error(path: &Path, error: &serde_json::Error) -> InputError {
    InputError::new(
        path,
        Some(error.line() as u64),
        format!("not valid JSON (column {}): {error}", error.column()),
    )
}

/// The largest results file read: the reference run's largest is a few
/// megabytes, so a file near this is not one, and reading it whole would
/// only fill memory.
pub const MAX_RESULTS_FILE_BYTES: u64 = 1 << 30;

/// The text of the file `path`, or an error saying what makes it. Only a
/// regular file of at most [`MAX_RESULTS_FILE_BYTES`] is read: a FIFO would
/// block the reader and a device such as `/dev/zero` never end.
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let refuse = |what: String| InputError::new(path, None, what);
    let kind = fs::metadata(path).map_err(|e| {
        refuse(format!(
            "cannot read the file ({e}); `make results` writes it"
        ))
    })?;
    if !kind.is_file() {
        return Err(refuse(
            "it is not a regular file (a directory, a pipe or a device); a results file is \
             read only from a regular file, which `make results` writes"
                .to_owned(),
        ));
    }
    let mut text = String::new();
    fs::File::open(path)
        .and_then(|file| {
            file.take(MAX_RESULTS_FILE_BYTES + 1)
                .read_to_string(&mut text)
        })
        .map_err(|e| {
            refuse(format!(
                "cannot read the file ({e}); `make results` writes it"
            ))
        })?;
    if text.len() as u64 > MAX_RESULTS_FILE_BYTES {
        return Err(refuse(format!(
            "it is larger than {MAX_RESULTS_FILE_BYTES} bytes, far more than any run writes; \
             it is not a results file"
        )));
    }
    Ok(text)
}

/// Reads a CSV file of `T` rows: the header must start with `schema_version`,
/// every row must carry [`SCHEMA_VERSION`] and have as many fields as the
/// header, and every field must parse.
pub fn read_csv<T: DeserializeOwned + CheckRow>(path: &Path) -> Result<Vec<T>, InputError> {
    read_csv_lined(path).map(|(rows, _)| rows)
}

/// [`read_csv`], with the 1-based line each row starts on, for the checks
/// across rows that name the line of the row at fault.
pub fn read_csv_lined<T: DeserializeOwned + CheckRow>(
    path: &Path,
) -> Result<(Vec<T>, Vec<u64>), InputError> {
    let text = read_text(path)?;
    check_last_line(path, &text)?;
    parse_csv_lined(path, &text)
}

/// Refuses a file whose last line has no newline after it: timerbench ends
/// every row with one, so such a file was cut short (a full disk, a copy
/// interrupted), even when its last line still has every field.
fn check_last_line(path: &Path, text: &str) -> Result<(), InputError> {
    if text.is_empty() || text.ends_with('\n') {
        return Ok(());
    }
    Err(InputError::new(
        path,
        Some(text.lines().count() as u64),
        "the file ends inside this line, with no newline after it: it was cut short \
         (timerbench ends every row with a newline); make the results again",
    ))
}

/// [`read_csv`] for a file that may be absent; an absent or empty file has no
/// rows.
pub fn read_optional_csv<T: DeserializeOwned + CheckRow>(
    path: &Path,
) -> Result<Vec<T>, InputError> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = read_text(path)?;
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    check_last_line(path, &text)?;
    parse_csv(path, &text)
}

/// [`read_csv`] on text already in memory; `path` only names it in errors.
pub fn parse_csv<T: DeserializeOwned + CheckRow>(
    path: &Path,
    text: &str,
) -> Result<Vec<T>, InputError> {
    parse_csv_lined(path, text).map(|(rows, _)| rows)
}

/// [`parse_csv`], with the 1-based line each row starts on.
pub fn parse_csv_lined<T: DeserializeOwned + CheckRow>(
    path: &Path,
    text: &str,
) -> Result<(Vec<T>, Vec<u64>), InputError> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| csv_error(path, text, &e))?
        .clone();
    if headers.get(0) != Some(VERSION_COLUMN) {
        return Err(InputError::new(
            path,
            Some(1),
            format!(
                "the header must start with `{VERSION_COLUMN}`, found {:?}; \
                 this is not a timerbench results file of schema version {SCHEMA_VERSION}",
                headers.get(0).unwrap_or("")
            ),
        ));
    }
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut counter = LineCounter::default();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, text, &e))?;
        // Counted from where the previous row's count stopped, so that
        // counting every row's line stays linear in the file's length.
        let at = record.position().map(|p| counter.line_at(text, p));
        let line = || at;
        let version = record.get(0).unwrap_or("");
        if version != SCHEMA_VERSION.to_string() {
            return Err(InputError::new(
                path,
                line(),
                format!(
                    "schema_version is {version:?}; this timerbench reads version {SCHEMA_VERSION} \
                     (rerun `make results` with this checkout)"
                ),
            ));
        }
        let row = record
            .deserialize(Some(&headers))
            .map_err(|e| field_error(path, line(), &headers, &record, &e))?;
        if let Err(message) = T::check(&row) {
            return Err(InputError::new(path, line(), message));
        }
        rows.push(row);
        lines.push(at.unwrap_or(0));
    }
    Ok((rows, lines))
}

/// Counts lines forward through a text, for positions met in increasing
/// order: each call counts only the bytes since the previous one, with the
/// rule of [`line_of`].
#[derive(Default)]
struct LineCounter {
    /// Bytes counted so far.
    counted: usize,
    /// Line ends among them.
    newlines: u64,
}

impl LineCounter {
    /// The 1-based line of `position`, as [`line_of`] gives it.
    fn line_at(&mut self, text: &str, position: &csv::Position) -> u64 {
        let end = usize::try_from(position.byte()).map_or(text.len(), |b| (b + 1).min(text.len()));
        if end > self.counted {
            self.newlines += text.as_bytes()[self.counted..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            self.counted = end;
        }
        self.newlines + 1
    }
}

/// The error for a row whose field does not parse: names the column and the
/// value found.
fn field_error(
    path: &Path,
    line: Option<u64>,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
    error: &csv::Error,
) -> InputError {
    let field = match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err.field().map(|i| i as usize),
        _ => None,
    };
    let column = field
        .and_then(|i| headers.get(i))
        .map_or_else(String::new, |name| format!(" in column `{name}`"));
    let found = field
        .and_then(|i| record.get(i))
        .map_or_else(String::new, |value| format!(" (found {value:?})"));
    let what = match error.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err.kind().to_string(),
        _ => error.to_string(),
    };
    InputError::new(
        path,
        line,
        format!("bad value{column}{found}: {what}; see results/README.md for the columns"),
    )
}

/// The 1-based line of a position, counted from its byte offset: the csv
/// crate's own line count is off by one for files with CRLF line ends, where
/// a record's position is the `\n` of the line end before it (so that byte is
/// counted too; a record never starts with `\n`).
fn line_of(text: &str, position: &csv::Position) -> u64 {
    let end = usize::try_from(position.byte()).map_or(text.len(), |b| (b + 1).min(text.len()));
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// The error for a file the csv crate cannot read as CSV: a row with the
/// wrong number of fields is said to be cut short or damaged.
fn csv_error(path: &Path, text: &str, error: &csv::Error) -> InputError {
    let line = error.position().map(|p| line_of(text, p));
    let message = match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!(
            "this row has {len} fields where the header has {expected_len}; \
             the file is truncated or damaged (rerun `make results`)"
        ),
        _ => format!("not a valid CSV file: {error}"),
    };
    InputError::new(path, line, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::RunRow;
    use crate::throughput::ThroughputRow;

    const HEADER: &str = "schema_version,algorithm,workload,operation,method,count,repetitions,\
                          median_ns,ci_low_ns,ci_high_ns,consistent,tied_with_best\n";
    const INSERT: &str = "3,a,w,insert,batched,3,6,4.5,4.0,5.0,false,\n";
    const ALL: &str = "3,b,w,all,whole,1,6,7,6.5,7.5,,true\n";

    fn parse(text: &str) -> Result<Vec<ThroughputRow>, InputError> {
        parse_csv(Path::new("t.csv"), text)
    }

    #[test]
    fn good_rows_parse() {
        let rows = parse(&format!("{HEADER}{INSERT}{ALL}")).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].median_ns, Some(7.0));
        assert_eq!(rows[1].ci_low_ns, Some(6.5));
        assert_eq!(rows[0].consistent, Some(false));
        assert_eq!(rows[0].tied_with_best, None);
        assert_eq!(rows[1].tied_with_best, Some(true));
    }

    #[test]
    fn wrong_version_names_the_line() {
        let error = parse(&format!("{HEADER}{INSERT}{}", ALL.replacen('3', "2", 1))).unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.message.contains("schema_version is \"2\""), "{error}");
    }

    #[test]
    fn every_row_gets_the_line_it_starts_on() {
        let quoted = "3,c,\"w\nx\",all,whole,1,6,7,6.5,7.5,,true\n";
        for text in [
            format!("{HEADER}{INSERT}{quoted}{ALL}"),
            format!("{HEADER}{INSERT}{quoted}{ALL}").replace('\n', "\r\n"),
        ] {
            let (_, lines): (Vec<ThroughputRow>, _) =
                parse_csv_lined(Path::new("t"), &text).unwrap();
            assert_eq!(lines, [2, 3, 5]);
        }
    }

    #[test]
    fn lines_are_counted_with_crlf_line_ends_too() {
        let text = format!("{HEADER}{INSERT}{}", ALL.replacen('3', "2", 1)).replace('\n', "\r\n");
        assert_eq!(parse(&text).unwrap_err().line, Some(3));
    }

    #[test]
    fn missing_version_column_is_refused() {
        let error = parse("algorithm,workload\na,w\n").unwrap_err();
        assert_eq!(error.line, Some(1));
        assert!(error.message.contains("schema_version"), "{error}");
    }

    #[test]
    fn non_numeric_field_names_the_column_and_value() {
        let error = parse(&format!(
            "{HEADER}3,a,w,insert,batched,3,6,fast,4,5,true,\n"
        ))
        .unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.message.contains("`median_ns`"), "{error}");
        assert!(error.message.contains("\"fast\""), "{error}");
    }

    #[test]
    fn a_flag_must_be_true_or_false() {
        let error = parse(&format!("{HEADER}3,a,w,insert,batched,3,6,4.5,4,5,yes,\n")).unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(error.message.contains("`consistent`"), "{error}");
    }

    #[test]
    fn impossible_values_are_refused() {
        for value in ["NaN", "-5", "inf"] {
            let error = parse(&format!(
                "{HEADER}3,a,w,insert,batched,3,6,{value},4,5,true,\n"
            ))
            .unwrap_err();
            assert_eq!(error.line, Some(2));
            assert!(error.message.contains("`median_ns`"), "{error}");
        }
    }

    #[test]
    fn an_interval_that_misses_its_median_is_refused() {
        let error =
            parse(&format!("{HEADER}3,a,w,insert,batched,3,6,4.5,5,4,true,\n")).unwrap_err();
        assert_eq!(error.line, Some(2));
        assert!(
            error
                .message
                .contains("ci_low_ns <= median_ns <= ci_high_ns"),
            "{error}"
        );
    }

    #[test]
    fn short_row_is_reported_as_truncated() {
        let error = parse(&format!("{HEADER}{INSERT}3,b,w,al")).unwrap_err();
        assert_eq!(error.line, Some(3));
        assert!(error.message.contains("truncated"), "{error}");
    }

    #[test]
    fn a_run_id_column_is_read_and_may_be_absent() {
        let with = parse(&format!(
            "{},run_id\n{},20261125T130501Z-1\n",
            HEADER.trim_end(),
            INSERT.trim_end()
        ))
        .unwrap();
        assert_eq!(with[0].run_id, "20261125T130501Z-1");
        let without = parse(&format!("{HEADER}{INSERT}")).unwrap();
        assert_eq!(without[0].run_id, "");
    }

    #[test]
    fn empty_optional_fields_are_none() {
        let text = "schema_version,algorithm,workload,status,skip_reason,max_pending,\
                    empty_slot_visits,entries_examined_not_due,cascades,bytes_per_pending,max_lateness_ticks\n\
                    3,a,w,skipped,too many,10,,,,,\n";
        let rows: Vec<RunRow> = parse_csv(Path::new("runs.csv"), text).unwrap();
        assert!(!rows[0].is_ok());
        assert_eq!(rows[0].cascades, None);
    }
}
