//! What the harness's integration tests share: a fresh scratch directory for
//! each test, removed when the test ends. Each test binary uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A fresh, empty scratch directory, removed when dropped. It derefs to its
/// path, so `dir.join("x")` names a file in it.
pub(crate) struct Scratch(PathBuf);

impl Scratch {
    /// A fresh, empty directory for the test `name` of the test binary
    /// `suite`, unique within the process (several tests may share a name).
    pub(crate) fn new(suite: &str, name: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "timerbench-{suite}-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch directory");
        Self(dir)
    }

    /// Its path.
    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Its path as a command-line argument.
    pub(crate) fn arg(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temporary directory")
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The fewest operations a run measures (`select::MIN_MEASURED_OPS`),
/// spelled here because a test binary sees the harness's public items only.
pub(crate) const MIN_MEASURED_OPS: usize = harness::select::MIN_MEASURED_OPS;

/// A CSV trace (a header, then lines) with enough operations added for a
/// run to measure it: pairs of an insert and a cancel of timers of their own,
/// at the first line's instant, so that nothing more fires and every other
/// line keeps its meaning. A test of how a small trace behaves writes it
/// through this.
pub(crate) fn padded_trace(trace: &str) -> String {
    let (header, lines) = trace.split_once('\n').expect("a header and lines");
    let at: u64 = lines
        .split(',')
        .next()
        .and_then(|at| at.parse().ok())
        .expect("the first line's instant");
    let mut out = format!("{header}\n");
    for i in 0..MIN_MEASURED_OPS.div_ceil(2) {
        let timer = 1_000_000_000 + i;
        out.push_str(&format!(
            "{at},insert,{timer},{}\n{at},cancel,{timer},\n",
            at + 1
        ));
    }
    out.push_str(lines);
    out
}
