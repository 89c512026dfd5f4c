//! Recorded traces: a user's own operation sequence, as a CSV file.
//!
//! ```text
//! # A comment line starts with '#'.
//! at,op,timer,deadline
//! 0,insert,7,30000
//! 12,insert,8,30012
//! 40,cancel,7,
//! 45,reschedule,8,31000
//! 60000,advance,,
//! ```
//!
//! * The first line that is not a comment is the header, exactly
//!   `at,op,timer,deadline`.
//! * `at`: the tick of the operation, 0 to 2^62, never smaller than the line
//!   before. The driver advances the queue to `at`, then applies the operation.
//! * `op`: `insert`, `cancel`, `reschedule` or `advance`.
//! * `timer`: for `insert`, `cancel` and `reschedule`, any whole number from 0
//!   to 2^64 - 1 chosen by the recorder. An `insert` starts a new timer, even if
//!   the id was used before (ids may be recycled); a `cancel` or `reschedule`
//!   names the most recent insert with that id, which must exist. Cancelling or
//!   rescheduling a timer that has already fired or been cancelled is legal: the
//!   queue answers "not pending" and nothing changes. Empty for `advance`.
//! * `deadline`: for `insert`, the absolute tick the timer is due, and for
//!   `reschedule` its new one, 0 to 2^62 (one at or before `at` fires at the
//!   next advance). Empty otherwise.
//! * `advance` moves the clock without an operation. The tape ends at the last
//!   line's `at`: the driver advances there after the last operation. Timers
//!   due later stay pending, so end the trace with an `advance` line to let
//!   them fire.
//!
//! Spaces around fields are ignored, and so are empty lines; fields are never
//! quoted. Ids are mapped to dense timer numbers in order of their inserts. A
//! trace has no prefill: every operation is measured.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::error::WorkloadError;
use crate::input::{MAX_TAPE_OPS, MAX_TRACE_LINE_BYTES, TextLine, next_text_line, open_regular};
use crate::spec::check_name;
use crate::tape::{MAX_TIME, Op, Tape, Tick, TimedOp};

/// The header every trace starts with.
pub(crate) const HEADER: [&str; 4] = ["at", "op", "timer", "deadline"];

/// Reads a trace file into a tape named after the file (its stem).
///
/// # Errors
///
/// [`WorkloadError::TraceUnreadable`] if the file cannot be read;
/// [`WorkloadError::InvalidTrace`], with the line and what would be valid, for
/// a malformed file.
pub fn load_trace(path: &Path) -> Result<Tape, WorkloadError> {
    let name = path.file_stem().map_or_else(
        || "trace".to_owned(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    // A trace is named by its file, and the name goes where a spec's does
    // (CSV cells, chart file names), so it is held to the same rule.
    if let Err(problem) = check_name(&name) {
        return Err(WorkloadError::InvalidTrace {
            path: path.to_owned(),
            line: 0,
            problem: format!("its name, the file's stem, {problem}; rename the file"),
        });
    }
    let file = open_regular(path).map_err(|error| WorkloadError::TraceUnreadable {
        path: path.to_owned(),
        error,
    })?;
    parse_trace(BufReader::new(file), name, path)
}

/// Parses trace text, streamed a line at a time so that only the tape is
/// held, never the file; `path` is only for messages.
///
/// The format needs no quoting (every field is a number or a word), so lines
/// are split on commas here rather than by a CSV library: that keeps line
/// numbers exact, comments included.
pub(crate) fn parse_trace(
    mut reader: impl BufRead,
    name: String,
    path: &Path,
) -> Result<Tape, WorkloadError> {
    let mut parser = Parser {
        path: path.to_owned(),
        ids: HashMap::new(),
        ops: Vec::new(),
        timers: 0,
        last: None,
        header_seen: false,
    };
    let mut raw = Vec::new();
    let mut line = 0u64;
    loop {
        let next = next_text_line(&mut reader, &mut raw, line == 0).map_err(|error| {
            WorkloadError::TraceUnreadable {
                path: path.to_owned(),
                error,
            }
        })?;
        let Some(next) = next else { break };
        line += 1;
        let content = match next {
            TextLine::Line(content) => content,
            TextLine::TooLong => {
                return Err(parser.error(
                    line,
                    format!(
                        "the line is longer than {MAX_TRACE_LINE_BYTES} bytes; a trace's lines are \
                         `at,op,timer,deadline` or comments (is this a text file?)"
                    ),
                ));
            }
        };
        let Ok(text) = std::str::from_utf8(content) else {
            return Err(parser.error(line, "the line is not valid UTF-8 text"));
        };
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split(',').map(str::trim).collect();
        parser.line(line, &fields)?;
    }
    parser.finish(name)
}

/// A note naming the invisible characters in `text` (zero-width spaces,
/// byte-order marks, control characters), which make a line differ from one
/// that looks the same; empty when it has none.
fn invisible_note(text: &str) -> String {
    let invisible: Vec<String> = text
        .chars()
        .filter(|c| {
            c.is_control()
                || matches!(
                    c,
                    '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}' | '\u{00a0}'
                )
        })
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    if invisible.is_empty() {
        String::new()
    } else {
        format!(
            " (with the invisible character{} {} in it)",
            if invisible.len() == 1 { "" } else { "s" },
            invisible.join(", ")
        )
    }
}

/// The state of a trace being read.
struct Parser {
    path: PathBuf,
    /// The dense timer number of the most recent insert of each id. Only looked
    /// up, never iterated, so its order cannot reach the tape.
    ids: HashMap<u64, u32>,
    ops: Vec<TimedOp>,
    timers: u32,
    /// The last line's `at` and line number.
    last: Option<(Tick, u64)>,
    header_seen: bool,
}

impl Parser {
    fn error(&self, line: u64, problem: impl Into<String>) -> WorkloadError {
        WorkloadError::InvalidTrace {
            path: self.path.clone(),
            line,
            problem: problem.into(),
        }
    }

    fn line(&mut self, line: u64, record: &[&str]) -> Result<(), WorkloadError> {
        if !self.header_seen {
            self.header_seen = true;
            if record != HEADER {
                return Err(self.error(
                    line,
                    format!(
                        "the header is `{}`{}; the first line that is not a comment must be exactly `{}`",
                        record.join(","),
                        invisible_note(&record.join(",")),
                        HEADER.join(",")
                    ),
                ));
            }
            return Ok(());
        }
        if self.ops.len() as u64 >= MAX_TAPE_OPS {
            return Err(self.error(
                line,
                format!(
                    "the trace has more than {MAX_TAPE_OPS} operations, the most a tape holds \
                     (24 bytes each: 2.4 GB); split it into shorter traces"
                ),
            ));
        }
        if record.len() != HEADER.len() {
            return Err(self.error(
                line,
                format!(
                    "{} fields; every line needs exactly 4, `{}` (leave `timer` and `deadline` empty \
                     where they do not apply, keeping the commas)",
                    record.len(),
                    HEADER.join(",")
                ),
            ));
        }
        let at = self.tick(line, "at", record[0])?;
        if let Some((previous, previous_line)) = self.last
            && at < previous
        {
            return Err(self.error(
                line,
                format!(
                    "`at` goes back in time: {at} is before {previous} on line {previous_line}; \
                     times must never decrease"
                ),
            ));
        }
        self.last = Some((at, line));
        let (timer, deadline) = (record[2], record[3]);
        match record[1] {
            "insert" => {
                let id = self.id(line, timer)?;
                if deadline.is_empty() {
                    return Err(self.error(
                        line,
                        "`insert` needs a `deadline`: the absolute tick it is due",
                    ));
                }
                let deadline = self.tick(line, "deadline", deadline)?;
                let number = self.timers;
                self.timers = self.timers.checked_add(1).ok_or_else(|| {
                    self.error(
                        line,
                        format!(
                            "more than {} inserts; a trace may have at most that many",
                            u32::MAX
                        ),
                    )
                })?;
                self.ids.insert(id, number);
                self.ops.push(TimedOp {
                    at,
                    op: Op::Insert {
                        timer: number,
                        deadline,
                    },
                });
            }
            "cancel" => {
                let id = self.id(line, timer)?;
                if !deadline.is_empty() {
                    return Err(self.error(
                        line,
                        format!("`cancel` takes no `deadline`, found {deadline:?}; leave it empty"),
                    ));
                }
                let Some(&number) = self.ids.get(&id) else {
                    return Err(self.error(
                        line,
                        format!("`cancel` of timer {id}, which no earlier line inserted; a cancel must name an inserted timer's id"),
                    ));
                };
                self.ops.push(TimedOp {
                    at,
                    op: Op::Cancel { timer: number },
                });
            }
            "reschedule" => {
                let id = self.id(line, timer)?;
                if deadline.is_empty() {
                    return Err(self.error(
                        line,
                        "`reschedule` needs a `deadline`: the new absolute tick it is due",
                    ));
                }
                let deadline = self.tick(line, "deadline", deadline)?;
                let Some(&number) = self.ids.get(&id) else {
                    return Err(self.error(
                        line,
                        format!("`reschedule` of timer {id}, which no earlier line inserted; a reschedule must name an inserted timer's id"),
                    ));
                };
                self.ops.push(TimedOp {
                    at,
                    op: Op::Reschedule {
                        timer: number,
                        deadline,
                    },
                });
            }
            "advance" => {
                if !timer.is_empty() || !deadline.is_empty() {
                    return Err(self.error(
                        line,
                        "`advance` takes no `timer` or `deadline`; leave both empty",
                    ));
                }
            }
            other => {
                return Err(self.error(
                    line,
                    format!(
                        "`op` is {other:?}; valid operations are `insert`, `cancel`, `reschedule` and `advance`"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A tick field: a whole number from 0 to 2^62.
    fn tick(&self, line: u64, field: &str, text: &str) -> Result<Tick, WorkloadError> {
        match text.parse::<Tick>() {
            Ok(value) if value <= MAX_TIME => Ok(value),
            Ok(value) => Err(self.error(
                line,
                format!("`{field}` is {value}, beyond the largest time, 2^62 = {MAX_TIME}"),
            )),
            Err(_) => Err(self.error(
                line,
                format!("`{field}` is {text:?}; it must be a whole number of ticks from 0 to 2^62 = {MAX_TIME}"),
            )),
        }
    }

    /// A timer id: a whole number from 0 to 2^64 - 1.
    fn id(&self, line: u64, text: &str) -> Result<u64, WorkloadError> {
        text.parse::<u64>().map_err(|_| {
            let shown = if text.is_empty() { "empty".to_owned() } else { format!("{text:?}") };
            self.error(
                line,
                format!("`timer` is {shown}; it must be the timer's id, a whole number from 0 to 2^64 - 1"),
            )
        })
    }

    fn finish(self, name: String) -> Result<Tape, WorkloadError> {
        let Some((end, _)) = self.last else {
            let problem = if self.header_seen {
                "the trace has a header but no operations; add lines `at,op,timer,deadline`"
            } else {
                "the file is empty; a trace starts with the header line `at,op,timer,deadline`"
            };
            return Err(self.error(1, problem));
        };
        Ok(Tape {
            name,
            ops: self.ops,
            prefill: 0,
            end,
            timers: self.timers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Tape, WorkloadError> {
        parse_trace(text.as_bytes(), "t".to_owned(), Path::new("t.csv"))
    }

    fn error_of(text: &str) -> String {
        parse(text)
            .expect_err("the trace should be refused")
            .to_string()
    }

    #[test]
    fn parses_every_operation() {
        let tape = parse(
            "# recorded on a test box\n\
             at,op,timer,deadline\n\
             0,insert,7,100\n\
             5, insert ,9,50\n\
             \n\
             # a comment between lines\n\
             10,cancel,7,\n\
             20,insert,7,300\n\
             30,cancel,7,\n\
             30,cancel,7,\n\
             35,reschedule,9,60\n\
             400,advance,,\n",
        )
        .unwrap();
        assert_eq!(tape.prefill, 0);
        assert_eq!(tape.end, 400);
        assert_eq!(tape.timers, 3);
        let ops: Vec<(Tick, Op)> = tape.ops.iter().map(|o| (o.at, o.op)).collect();
        assert_eq!(
            ops,
            [
                (
                    0,
                    Op::Insert {
                        timer: 0,
                        deadline: 100
                    }
                ),
                (
                    5,
                    Op::Insert {
                        timer: 1,
                        deadline: 50
                    }
                ),
                (10, Op::Cancel { timer: 0 }),
                (
                    20,
                    Op::Insert {
                        timer: 2,
                        deadline: 300
                    }
                ),
                (30, Op::Cancel { timer: 2 }),
                (30, Op::Cancel { timer: 2 }),
                (
                    35,
                    Op::Reschedule {
                        timer: 1,
                        deadline: 60
                    }
                ),
            ]
        );
        tape.check().unwrap();
    }

    #[test]
    fn end_is_the_last_line() {
        let tape = parse("at,op,timer,deadline\n3,insert,1,1000\n").unwrap();
        assert_eq!(tape.end, 3);
    }

    #[test]
    fn errors_name_the_line_and_what_is_valid() {
        let header = "at,op,timer,deadline\n";
        let cases = [
            ("", "t.csv:1: invalid trace: the file is empty"),
            (
                "# only a comment\n",
                "t.csv:1: invalid trace: the file is empty",
            ),
            (
                header,
                "t.csv:1: invalid trace: the trace has a header but no operations",
            ),
            (
                "at,op,id,deadline\n",
                "t.csv:1: invalid trace: the header is `at,op,id,deadline`; the first line that is not a comment must be exactly `at,op,timer,deadline`",
            ),
            (
                "# c\nat,op,timer\n",
                "t.csv:2: invalid trace: the header is `at,op,timer`",
            ),
            (
                "at,op,timer,deadline\n0,insert,1\n",
                "t.csv:2: invalid trace: 3 fields; every line needs exactly 4",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,5,9\n",
                "t.csv:2: invalid trace: 5 fields",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,5\n0,remove,1,\n",
                "t.csv:3: invalid trace: `op` is \"remove\"; valid operations are `insert`, `cancel`, `reschedule` and `advance`",
            ),
            (
                "at,op,timer,deadline\nsoon,insert,1,5\n",
                "t.csv:2: invalid trace: `at` is \"soon\"; it must be a whole number of ticks from 0 to 2^62",
            ),
            (
                "at,op,timer,deadline\n-1,insert,1,5\n",
                "t.csv:2: invalid trace: `at` is \"-1\"",
            ),
            (
                "at,op,timer,deadline\n0,insert,x,5\n",
                "t.csv:2: invalid trace: `timer` is \"x\"; it must be the timer's id",
            ),
            (
                "at,op,timer,deadline\n0,insert,,5\n",
                "t.csv:2: invalid trace: `timer` is empty",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,5.5\n",
                "t.csv:2: invalid trace: `deadline` is \"5.5\"",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,\n",
                "t.csv:2: invalid trace: `insert` needs a `deadline`",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,4611686018427387905\n",
                "t.csv:2: invalid trace: `deadline` is 4611686018427387905, beyond the largest time, 2^62 = 4611686018427387904",
            ),
            (
                "at,op,timer,deadline\n10,insert,1,50\n\n# c\n9,cancel,1,\n",
                "t.csv:5: invalid trace: `at` goes back in time: 9 is before 10 on line 2; times must never decrease",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,50\n1,cancel,2,\n",
                "t.csv:3: invalid trace: `cancel` of timer 2, which no earlier line inserted",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,5\n1,reschedule,1,\n",
                "t.csv:3: invalid trace: `reschedule` needs a `deadline`",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,5\n1,reschedule,2,9\n",
                "t.csv:3: invalid trace: `reschedule` of timer 2, which no earlier line inserted",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,50\n1,cancel,1,50\n",
                "t.csv:3: invalid trace: `cancel` takes no `deadline`",
            ),
            (
                "at,op,timer,deadline\n0,advance,1,\n",
                "t.csv:2: invalid trace: `advance` takes no `timer` or `deadline`",
            ),
            (
                "at,op,timer,deadline\n0,insert,1,50\n\"1\",insert,2,60\n",
                "t.csv:3: invalid trace: `at` is \"\\\"1\\\"\"",
            ),
            (
                "\r\n# c\r\n  # indented comment\r\nat,op,timer,deadline\r\n5,insert,1,50\r\n4,advance,,\r\n",
                "t.csv:6: invalid trace: `at` goes back in time: 4 is before 5 on line 5",
            ),
        ];
        for (text, expected) in cases {
            let message = error_of(text);
            assert!(
                message.starts_with(expected),
                "for {text:?}:\n  got      {message}\n  expected {expected}"
            );
        }
    }

    #[test]
    fn invalid_utf8_is_reported_with_its_line() {
        let bytes = b"at,op,timer,deadline\n0,insert,1,50\n1,canc\xffel,1,\n";
        let error = parse_trace(&bytes[..], "t".to_owned(), Path::new("t.csv")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "t.csv:3: invalid trace: the line is not valid UTF-8 text"
        );
    }

    #[test]
    fn an_unreadable_file_names_the_path() {
        let error = load_trace(Path::new("/nonexistent/trace.csv")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("/nonexistent/trace.csv: cannot read the trace:"),
            "{message}"
        );
        // The OS error is in the message, and not again as its source: a
        // chain printed whole says it once.
        assert!(std::error::Error::source(&error).is_none());
        assert_eq!(message.matches("os error").count(), 1, "{message}");
    }

    #[test]
    fn a_line_longer_than_the_bound_is_refused_without_reading_on() {
        let long = format!(
            "at,op,timer,deadline\n# {}\n0,insert,1,5\n",
            "x".repeat(5000)
        );
        let message = error_of(&long);
        assert!(
            message.starts_with("t.csv:2: invalid trace: the line is longer than 4096 bytes"),
            "{message}"
        );
        // A line of exactly the bound is a line like any other.
        let fits = format!("at,op,timer,deadline\n#{}\n0,insert,1,5", "x".repeat(4095));
        assert_eq!(parse(&fits).unwrap().ops.len(), 1);
    }

    #[test]
    fn a_device_or_directory_is_not_read() {
        let message = load_trace(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(
            message.starts_with(
                "/dev/zero: cannot read the trace: it is a device, not a regular file"
            ),
            "{message}"
        );
        assert_eq!(
            message.matches("regular file").count(),
            2,
            "said once: {message}"
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_an_invisible_character_is_named() {
        let tape = parse("\u{feff}at,op,timer,deadline\n0,insert,1,5\n").unwrap();
        assert_eq!(tape.ops.len(), 1);
        let message = error_of("at,op,timer\u{200b},deadline\n0,insert,1,5\n");
        assert!(
            message.contains("(with the invisible character U+200B in it)"),
            "{message}"
        );
        assert!(!error_of("at,op,id,deadline\n").contains("invisible"));
    }

    #[test]
    fn a_trace_is_named_by_its_file_under_the_spec_rules() {
        let dir =
            std::env::temp_dir().join(format!("timerbench-trace-name-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a b.csv");
        std::fs::write(&path, "at,op,timer,deadline\n0,insert,1,5\n").unwrap();
        let message = load_trace(&path).unwrap_err().to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            message.ends_with(
                "a b.csv: invalid trace: its name, the file's stem, is \"a b\"; it must be 1 to 64 \
                 ASCII letters, digits, `-`, `_` or `.`; rename the file"
            ),
            "{message}"
        );
    }
}
