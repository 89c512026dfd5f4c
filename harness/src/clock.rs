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

/// `/proc/stat` counts CPU time in `USER_HZ` ticks, 100 a second on every
/// Linux architecture this project runs on.
const USER_HZ: f64 = 100.0;

/// Seconds of CPU time the hypervisor has taken from this VM since boot (the
/// `steal` column of `/proc/stat`, summed over CPUs), or `None` off Linux. The
/// difference over a run says how contended the host was while it measured:
/// a run with much steal is not one to compare absolute times with.
pub fn steal_seconds() -> Option<f64> {
    parse_steal(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// The steal seconds of `/proc/stat`'s aggregate `cpu` line.
fn parse_steal(stat: &str) -> Option<f64> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    // user nice system idle iowait irq softirq steal ...
    let steal: u64 = line.split_whitespace().nth(8)?.parse().ok()?;
    Some(steal as f64 / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_is_the_eighth_counter_of_the_cpu_line() {
        let stat = "cpu  238580 0 13244 1819004 1739 0 180 7353 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n";
        assert_eq!(parse_steal(stat), Some(73.53));
        assert_eq!(parse_steal("intr 5\n"), None);
        assert_eq!(parse_steal("cpu  1 2 3\n"), None);
    }
}
