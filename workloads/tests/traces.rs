//! Trace files: the shipped example loads, and errors in a real file name it
//! with the line.

use std::path::{Path, PathBuf};

use workloads::{Op, load_trace};

#[test]
fn the_example_trace_loads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/trace.csv");
    let tape = load_trace(&path).unwrap();
    tape.check().unwrap();
    assert_eq!(tape.name, "trace");
    assert_eq!((tape.prefill, tape.end, tape.timers), (0, 70_000, 5));
    // The keep-alive (timer 1) is pushed back twice and keeps its number.
    assert_eq!(
        tape.ops[7].op,
        Op::Reschedule {
            timer: 1,
            deadline: 61_200
        }
    );
    // The reused id 1 is a new timer; the second cancel of 3 names the same one.
    assert_eq!(
        tape.ops[8].op,
        Op::Insert {
            timer: 4,
            deadline: 31_500
        }
    );
    assert_eq!(tape.ops[9].op, Op::Cancel { timer: 3 });
    assert_eq!(tape.ops[10].op, Op::Cancel { timer: 3 });
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str, text: &str) -> Self {
        let path = std::env::temp_dir().join(format!("workloads-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Self(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn errors_name_the_file_and_line() {
    let file = TempFile::new(
        "bad.csv",
        "# header next\nat,op,timer,deadline\n0,insert,1,10\n5,insrt,2,20\n",
    );
    let message = load_trace(&file.0).unwrap_err().to_string();
    assert_eq!(
        message,
        format!(
            "{}:4: invalid trace: `op` is \"insrt\"; valid operations are `insert`, `cancel`, `reschedule` and `advance`",
            file.0.display()
        )
    );
    let empty = TempFile::new("empty.csv", "");
    let message = load_trace(&empty.0).unwrap_err().to_string();
    assert!(message.ends_with(":1: invalid trace: the file is empty; a trace starts with the header line `at,op,timer,deadline`"), "{message}");
}
