//! Writing a tape as the suite's CSV trace format (see `trace.rs`), so that
//! a tape made elsewhere, such as one imported from the kernel's own timer
//! events, can be saved, read by people and replayed with `--trace`.
//!
//! Each timer's id is its tape number, so that reading the file back
//! ([`load_trace`](crate::trace::load_trace)) numbers the inserts exactly as
//! the tape does, and a last `advance` line carries the tape's `end`. A tape
//! with no prefill (every trace and every imported tape) comes back equal,
//! its name aside, which is the file's stem; a prefill's inserts are written
//! as ordinary inserts at time 0, since a trace has no prefill.
//!
//! The cost is one line per operation, written through the caller's
//! writer; nothing is held.

use std::io::{self, Write};

use crate::tape::{Op, Tape};
use crate::trace::HEADER;

/// Writes `tape` as a CSV trace: each line of `comments` as a `# ` comment
/// (a line of several is split), the header, one line per operation, and a
/// closing `advance` to the tape's end.
///
/// # Errors
///
/// The writer's error.
pub fn write_trace(tape: &Tape, comments: &[String], mut out: impl Write) -> io::Result<()> {
    for comment in comments {
        for line in comment.lines() {
            writeln!(out, "# {line}")?;
        }
    }
    writeln!(out, "{}", HEADER.join(","))?;
    for timed in &tape.ops {
        let at = timed.at;
        match timed.op {
            Op::Insert { timer, deadline } => writeln!(out, "{at},insert,{timer},{deadline}")?,
            Op::Cancel { timer } => writeln!(out, "{at},cancel,{timer},")?,
            Op::Reschedule { timer, deadline } => {
                writeln!(out, "{at},reschedule,{timer},{deadline}")?;
            }
        }
    }
    writeln!(out, "{},advance,,", tape.end)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::tape::TimedOp;
    use crate::trace::parse_trace;

    #[test]
    fn a_tape_reads_back_equal() {
        let op = |at, op| TimedOp { at, op };
        let tape = Tape {
            name: "t".to_owned(),
            ops: vec![
                op(
                    0,
                    Op::Insert {
                        timer: 0,
                        deadline: 50,
                    },
                ),
                op(
                    3,
                    Op::Insert {
                        timer: 1,
                        deadline: 9,
                    },
                ),
                op(
                    4,
                    Op::Reschedule {
                        timer: 0,
                        deadline: 60,
                    },
                ),
                op(4, Op::Cancel { timer: 1 }),
                op(4, Op::Cancel { timer: 1 }),
            ],
            prefill: 0,
            end: 100,
            timers: 2,
        };
        let mut text = Vec::new();
        write_trace(
            &tape,
            &["made by a test\nover two lines".to_owned()],
            &mut text,
        )
        .unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text,
            "# made by a test\n# over two lines\nat,op,timer,deadline\n0,insert,0,50\n3,insert,1,9\n\
             4,reschedule,0,60\n4,cancel,1,\n4,cancel,1,\n100,advance,,\n"
        );
        let back = parse_trace(text.as_bytes(), "t".to_owned(), Path::new("t.csv")).unwrap();
        assert_eq!(back, tape);
    }
}
