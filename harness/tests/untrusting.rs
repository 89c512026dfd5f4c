//! The second round of bad input, as a user met it: commands that hung, or
//! read what they should have refused. Each test is named by the class of
//! the case (`hang_`, `loss_`, `unclear_`) and runs the binary with a
//! deadline of its own, so that a hang fails the test instead of stalling
//! the suite.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::Scratch;

/// How long any command here may take before the test calls it a hang: a
/// budget of one second plus a debug build's start-up, many times over.
const HANG_AFTER: Duration = Duration::from_secs(60);

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> Scratch {
    Scratch::new("untrusting", name)
}

/// Runs timerbench with `args`, killing it and failing the test if it has
/// not ended within [`HANG_AFTER`].
fn timerbench(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_timerbench"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("timerbench runs");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > HANG_AFTER {
            let _ = child.kill();
            let _ = child.wait();
            panic!("timerbench {args:?} ran past {HANG_AFTER:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// Standard error as text, with the lines an error is wrapped into joined
/// again (one space between words), so that a test looks for a phrase
/// wherever the wrap fell.
fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes `text` into `dir/name` and returns its path as a string.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write input");
    path.to_str().expect("utf-8 path").to_owned()
}

#[test]
fn hang_the_reference_replay_under_the_tick_driver_stops_at_the_budget() {
    let dir = scratch("tick-reference");
    let trace = write(
        dir.path(),
        "far.csv",
        &common::padded_trace(
            "at,op,timer,deadline\n0,insert,1,5\n4611686018427387904,advance,,\n",
        ),
    );
    let out_dir = dir.join("out");
    let started = Instant::now();
    let out = timerbench(&[
        "run",
        "--trace",
        &trace,
        "--algorithms",
        "binary-heap",
        "--driver",
        "tick",
        "--max-ticks",
        "18446744073709551615",
        "--budget",
        "1",
        "--repeat",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("ran past the budget of 1 s"), "{message}");
    assert!(message.contains("--driver event"), "{message}");
    assert!(!out_dir.join("runs.csv").exists(), "nothing is written");
    assert!(
        !out_dir.join(".timerbench-lock").exists(),
        "no lock is left behind"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
}

#[cfg(unix)]
#[test]
fn hang_docs_refuses_a_readme_that_is_a_device_or_a_fifo() {
    let dir = scratch("docs-readme");
    let fifo = dir.join("README.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    for (path, kind) in [
        (Path::new("/dev/zero"), "a device"),
        (fifo.as_path(), "a FIFO"),
    ] {
        let out = timerbench(&["docs", "--readme", path.to_str().unwrap()]);
        let message = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{message}");
        assert!(message.contains(kind), "{message}");
        assert!(message.contains("not a regular file"), "{message}");
    }
}

#[test]
fn loss_a_second_writer_of_one_directory_is_refused_at_once_naming_the_first() {
    let dir = scratch("two-writers");
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    // This test holds the lock as a first writer would, with its id.
    let lock_path = out_dir.join(".timerbench-lock");
    std::fs::write(&lock_path, "4242\n").unwrap();
    let held = std::fs::File::open(&lock_path).unwrap();
    held.try_lock().expect("the test takes the lock");
    let out = timerbench(&[
        "run",
        "--scale",
        "small",
        "--algorithms",
        "binary-heap",
        "--workloads",
        "uniform",
        "--repeat",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("process 4242"), "{message}");
    assert!(message.contains("is writing into"), "{message}");
    assert!(!out_dir.join("runs.csv").exists(), "nothing is written");

    // Once the first writer is gone, the second one writes.
    drop(held);
    let out = timerbench(&[
        "run",
        "--scale",
        "small",
        "--algorithms",
        "binary-heap",
        "--workloads",
        "uniform",
        "--repeat",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out_dir.join("runs.csv").exists());
}

#[test]
fn loss_the_next_run_keeps_the_previous_set_of_a_writer_that_died_mid_swap() {
    let dir = scratch("died-mid-swap");
    let out_dir = dir.join("out");
    // A process id above any kernel's pid_max: a writer that is gone.
    let staging = out_dir.join(".timerbench-run-20261128T000000Z-4294967290");
    let previous = staging.join("previous");
    std::fs::create_dir_all(&previous).unwrap();
    std::fs::write(previous.join("runs.csv"), "the old runs\n").unwrap();
    let out = timerbench(&[
        "run",
        "--scale",
        "small",
        "--algorithms",
        "binary-heap",
        "--workloads",
        "uniform",
        "--repeat",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert!(out.status.success(), "{message}");
    assert_eq!(
        std::fs::read_to_string(previous.join("runs.csv")).unwrap(),
        "the old runs\n",
        "the previous set is kept"
    );
    assert!(message.contains("kept"), "{message}");
    assert!(message.contains("cp -p"), "{message}");
}

#[test]
fn silent_a_trace_with_no_measured_operation_is_refused_before_measuring() {
    let dir = scratch("nothing-measured");
    let trace = write(
        dir.path(),
        "empty.csv",
        "at,op,timer,deadline\n100,advance,,\n",
    );
    let out_dir = dir.join("out");
    let out = timerbench(&[
        "run",
        "--trace",
        &trace,
        "--algorithms",
        "binary-heap,sorted-list",
        "--repeat",
        "3",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let message = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("holds 0 operations"), "{message}");
    assert!(
        !out_dir.join("throughput.csv").exists(),
        "nothing is written"
    );
}
