//! Helpers shared by the report's integration tests: scratch directories, a
//! copy of the checked-in fixture results, and running the binary.

#![allow(dead_code, unreachable_pub)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// The checked-in results of a small-scale run.
pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixture");

/// A scratch directory for one test, removed when the test ends (when this
/// guard is dropped), pass or fail. It dereferences to the directory a test
/// works in: the scratch directory itself, or the results directory inside it.
pub struct Scratch {
    root: PathBuf,
    dir: PathBuf,
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// A fresh, empty scratch directory for one test.
pub fn scratch(name: &str) -> Scratch {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "timerbench-report-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch directory");
    Scratch {
        root: dir.clone(),
        dir,
    }
}

/// The checked-in synthetic run with parameter sweeps (variant rows, and a
/// design that is also a sweep point).
pub const FIXTURE_SWEEP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixture-sweep");

/// A scratch results directory holding a copy of the fixture.
pub fn copy_fixture(name: &str) -> Scratch {
    copy_fixture_from(FIXTURE, name)
}

/// A scratch results directory holding a copy of the fixture directory
/// `fixture`.
pub fn copy_fixture_from(fixture: &str, name: &str) -> Scratch {
    let mut scratch = scratch(name);
    let results = scratch.root.join("results");
    fs::create_dir_all(&results).expect("results directory");
    for entry in fs::read_dir(fixture).expect("fixture") {
        let entry = entry.expect("fixture entry");
        fs::copy(entry.path(), results.join(entry.file_name())).expect("copy fixture");
    }
    scratch.dir = results;
    scratch
}

/// Runs `timerbench-report --results <results>`.
pub fn report(results: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_timerbench-report"))
        .arg("--results")
        .arg(results)
        .output()
        .expect("timerbench-report runs")
}

/// Runs the report on `results`, asserts that it succeeded, and returns the
/// `REPORT.md` it wrote.
pub fn report_markdown(results: &Path) -> String {
    let out = report(results);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(results.join("report").join("REPORT.md")).expect("REPORT.md written")
}

/// Asserts a bad-input failure: exit code 2 and a message containing every
/// fragment.
pub fn assert_input_error(out: &Output, fragments: &[&str]) {
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code; stderr: {message}");
    for fragment in fragments {
        assert!(
            message.contains(fragment),
            "stderr lacks {fragment:?}: {message}"
        );
    }
}

/// File names in `dir`, sorted (empty when it does not exist).
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}
