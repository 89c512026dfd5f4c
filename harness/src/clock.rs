//! The cost of reading the clock, and which clock it is.
//!
//! On the VMs this project is measured on, one `Instant::now()` costs about as
//! much as a timer operation, so every timed figure includes clock overhead. The
//! harness never subtracts it; instead it measures the floor, an empty timed
//! region timed exactly as the latency pass times an operation, and reports it
//! beside every percentile and in the run metadata.

use std::time::Instant;

use hdrhistogram::Histogram;

use crate::passes::{elapsed_ns, new_histogram};

/// Empty regions timed to measure the floor.
pub const FLOOR_SAMPLES: u32 = 200_000;

/// Times `FLOOR_SAMPLES` empty regions, each as `Instant::now()` before and after
/// nothing, and returns their histogram in nanoseconds.
pub fn floor() -> Histogram<u64> {
    let mut histogram = new_histogram();
    for _ in 0..FLOOR_SAMPLES {
        let start = Instant::now();
        std::hint::black_box(());
        let ns = elapsed_ns(start, Instant::now());
        histogram.saturating_record(ns.max(1));
    }
    histogram
}

/// The kernel's current clock source (e.g. `tsc`, `kvm-clock`), or `unknown`.
pub fn clock_source() -> String {
    std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "unknown".to_owned())
}
