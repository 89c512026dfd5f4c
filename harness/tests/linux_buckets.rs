//! `linux-wheel` against the kernel it models: for every `timer_start` in the
//! committed kernel traces (`workloads/traces/`, captured on Linux 6.18 at
//! HZ=250), the bucket expiry `linux-wheel` computes for (`now`, `expires`)
//! (`algorithms::linux_wheel::wheel_index`, Linux's `calc_wheel_index`) must
//! equal the kernel's own `bucket_expiry` field.
//!
//! `now` is the jiffies the event prints (`expires - timeout`). The kernel
//! files a timer against its base's clock, which can lag jiffies on an idle
//! CPU or for a deferrable timer (a separate base), and clamps delays beyond
//! its last level; the model files against `now` and has more levels. So a
//! disagreement is possible in principle: the test counts each kind and holds
//! the share that agree to [`MIN_AGREEMENT`]. On the committed traces every
//! start agrees.

use std::path::{Path, PathBuf};

use algorithms::linux_wheel::wheel_index;
use workloads::kernel_timer_starts;

/// The least share of starts whose bucket must agree with the kernel's.
const MIN_AGREEMENT: f64 = 0.999;

/// What the comparison found in one trace.
#[derive(Debug, Default)]
struct Agreement {
    /// Starts compared.
    compared: u64,
    /// Of which the model's bucket expiry equals the kernel's.
    agree: u64,
    /// Of the disagreements, deferrable timers (their base may lag).
    deferrable_disagree: u64,
    /// Starts not compared: no `timeout`/`bucket_expiry` printed, or already
    /// due (`expires <= now`, which the kernel files at the next tick).
    skipped: u64,
}

fn traces() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .join("workloads/traces");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("workloads/traces/")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".txt.gz"))
        .collect();
    paths.sort();
    paths
}

fn agreement(path: &Path) -> Agreement {
    let mut found = Agreement::default();
    for start in kernel_timer_starts(path).expect("a committed trace reads") {
        let (Some(now), Some(kernel)) = (start.now, start.bucket_expiry) else {
            found.skipped += 1;
            continue;
        };
        if start.expires <= now {
            found.skipped += 1;
            continue;
        }
        found.compared += 1;
        let (_, model) = wheel_index(now, start.expires);
        if model == kernel {
            found.agree += 1;
        } else if start.flags.deferrable {
            found.deferrable_disagree += 1;
        }
    }
    found
}

#[test]
fn linux_wheel_files_every_kernel_timer_in_the_kernels_bucket() {
    let paths = traces();
    assert!(paths.len() >= 3, "the committed traces: {paths:?}");
    for path in paths {
        let found = agreement(&path);
        let share = found.agree as f64 / found.compared.max(1) as f64;
        println!(
            "{}: {} of {} starts in the kernel's bucket ({:.4}); {} disagreements on deferrable timers; {} not compared",
            path.display(),
            found.agree,
            found.compared,
            share,
            found.deferrable_disagree,
            found.skipped
        );
        assert!(
            found.compared > 0,
            "{}: no start to compare",
            path.display()
        );
        assert!(
            share >= MIN_AGREEMENT,
            "{}: only {} of {} starts agree with the kernel's bucket_expiry ({found:?})",
            path.display(),
            found.agree,
            found.compared
        );
    }
}
