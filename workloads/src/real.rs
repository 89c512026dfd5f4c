//! The real kernel traces committed under `traces/`, as workloads every
//! default run replays beside the synthetic ones.
//!
//! The synthetic built-ins are laws: a delay distribution, a cancel share, an
//! arrival rate, each argued from a source. The real ones are what this
//! machine's kernel did while a real program ran (`traces/README.md` says how
//! each was captured): the timers of every CPU as one queue, imported by
//! [`import_ftrace`]'s rules. Each file holds both of the kernel's timer
//! facilities, and each entry here names the one it replays
//! ([`RealTrace::timers`]): `timer_list` timers count jiffies (4 ms at the
//! captures' `HZ=250`), hrtimers count 1 µs ticks and carry `-hrtimer` after
//! the file's stem. They answer the question the laws cannot: does the
//! ranking hold on timers nobody designed?
//!
//! The traces are compiled into the crate (`include_bytes!`, 3.9 MB of
//! gzip), so a binary replays them from any directory, and a reader of the
//! results can tell them by name: each is `real-` and the file's stem. A
//! trace is the same tape at every scale and seed; the results give it the
//! scale `trace`, as any `--trace` or `--ftrace`.
//!
//! The tapes are small (4,000 to 84,000 operations, 3 to 60 s), so a whole
//! pass lasts a few milliseconds at most: their figures carry more noise than
//! the synthetic ones, and the intervals say how much. An hrtimer tape spans
//! a thousand times more ticks than a `timer_list` tape of the same capture,
//! which is what a design that visits every tick pays for.

use std::io::BufReader;
use std::path::Path;

use crate::error::WorkloadError;
use crate::ftrace::{FtraceImport, FtraceOptions, HRTIMER_TICK_NS, KernelTimers, parse_ftrace};
use crate::tape::Tick;

/// One committed trace.
#[derive(Clone, Copy, Debug)]
pub struct RealTrace {
    /// The workload's name.
    pub name: &'static str,
    /// Its file in the repository, for messages and readers.
    pub file: &'static str,
    /// What ran while it was captured, in a few words.
    pub description: &'static str,
    /// The synthetic built-in it is closest to in purpose, which the
    /// generated tables set it beside.
    pub resembles: &'static str,
    /// Which of the file's timers the tape replays.
    pub timers: KernelTimers,
    /// Its gzip bytes.
    bytes: &'static [u8],
}

/// The prefix every real trace's name carries.
pub const REAL_PREFIX: &str = "real-";

/// `nginx-wrk.txt.gz`, compiled in once for its two tapes.
const NGINX_WRK: &[u8] = include_bytes!("../traces/nginx-wrk.txt.gz");

/// The committed traces, in the order a run replays them.
pub const REAL_TRACES: [RealTrace; 4] = [
    RealTrace {
        name: "real-nginx-wrk",
        file: "workloads/traces/nginx-wrk.txt.gz",
        description: "nginx serving a static file to wrk over loopback for 3 s: the kernel's \
                      TCP and poll timers",
        resembles: "kernel-timeouts",
        timers: KernelTimers::TimerList,
        bytes: NGINX_WRK,
    },
    // `timeouts` is its twin because epoll_wait's timeout is a request
    // timeout: armed for every call and cancelled when an event answers
    // first, which is nearly always.
    RealTrace {
        name: "real-nginx-wrk-hrtimer",
        file: "workloads/traces/nginx-wrk.txt.gz",
        description: "the hrtimers of the nginx-wrk capture, in 1 µs ticks: mostly \
                      epoll_wait's timeout, armed and torn down on every call",
        resembles: "timeouts",
        timers: KernelTimers::Hrtimer,
        bytes: NGINX_WRK,
    },
    RealTrace {
        name: "real-redis-benchmark",
        file: "workloads/traces/redis-benchmark.txt.gz",
        description: "redis-server under redis-benchmark (50,000 SETs then GETs) over \
                      loopback: the kernel's TCP and poll timers",
        resembles: "kernel-timeouts",
        timers: KernelTimers::TimerList,
        bytes: include_bytes!("../traces/redis-benchmark.txt.gz"),
    },
    RealTrace {
        name: "real-rest-60s",
        file: "workloads/traces/rest-60s.txt.gz",
        description: "the machine at rest for 60 s: housekeeping, writeback, the \
                      scheduler's and the network stack's timers",
        resembles: "kernel-timeouts",
        timers: KernelTimers::TimerList,
        bytes: include_bytes!("../traces/rest-60s.txt.gz"),
    },
];

/// Where the captures' README is, the source every real trace names.
pub const REAL_SOURCE: &str =
    "captured on this project's VM (Linux 6.18, HZ=250): `workloads/traces/README.md`";

impl RealTrace {
    /// The trace imported: its [`RealTrace::timers`] of every CPU as one
    /// queue, named [`RealTrace::name`].
    ///
    /// # Errors
    ///
    /// What [`parse_ftrace`] says of a malformed trace; the committed ones
    /// import cleanly (a test holds it), so this happens only to a build whose
    /// files were changed.
    pub fn import(&self) -> Result<FtraceImport, WorkloadError> {
        let reader = BufReader::new(flate2::read::GzDecoder::new(self.bytes));
        let options = FtraceOptions {
            timers: self.timers,
            ..FtraceOptions::default()
        };
        // The import names a timer_list tape by the stem it is given and an
        // hrtimer tape by the stem and `-hrtimer`, which this name ends with
        // (a test holds it).
        let stem = match self.timers {
            KernelTimers::TimerList => self.name,
            KernelTimers::Hrtimer => self.name.strip_suffix(HRTIMER_SUFFIX).unwrap_or(self.name),
        };
        parse_ftrace(reader, stem, Path::new(self.file), &options)
    }

    /// The tape's ticks a second: the captures' HZ for `timer_list` timers
    /// (every committed trace's header names it; a test holds them to it),
    /// a million for hrtimers.
    pub fn ticks_per_second(&self) -> Tick {
        match self.timers {
            KernelTimers::TimerList => Tick::from(CAPTURE_HZ),
            KernelTimers::Hrtimer => NANOS_PER_SECOND / HRTIMER_TICK_NS,
        }
    }
}

/// What an hrtimer tape's name ends with, after the file's stem.
const HRTIMER_SUFFIX: &str = "-hrtimer";

/// The `CONFIG_HZ` of the machine the traces were captured on.
const CAPTURE_HZ: u32 = 250;

/// Nanoseconds in a second.
const NANOS_PER_SECOND: Tick = 1_000_000_000;

/// The committed trace named `name`.
pub fn real_trace(name: &str) -> Option<&'static RealTrace> {
    REAL_TRACES.iter().find(|trace| trace.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_trace_imports_under_its_name_in_jiffies() {
        for trace in &REAL_TRACES {
            let import = trace.import().expect(trace.name);
            assert_eq!(import.tape.name, trace.name);
            assert!(trace.name.starts_with(REAL_PREFIX));
            assert_eq!(import.summary.timers, trace.timers);
            let per_second = trace.ticks_per_second();
            match trace.timers {
                KernelTimers::TimerList => {
                    assert_eq!(import.summary.hz, Some(CAPTURE_HZ), "{}", trace.name);
                    assert_eq!(per_second, 250);
                }
                KernelTimers::Hrtimer => {
                    assert!(trace.name.ends_with(HRTIMER_SUFFIX), "{}", trace.name);
                    assert_eq!(per_second, 1_000_000);
                }
            }
            assert_eq!(import.summary.lost_events, 0);
            assert!(import.tape.ops.len() > 1_000, "{}", trace.name);
            assert_eq!(real_trace(trace.name).map(|t| t.file), Some(trace.file));
        }
        assert!(real_trace("nginx-wrk").is_none());
        // Every name is registered once, and every twin is a built-in.
        for (i, trace) in REAL_TRACES.iter().enumerate() {
            assert!(REAL_TRACES[..i].iter().all(|t| t.name != trace.name));
            let twin = crate::builtins(crate::Scale::Default)
                .into_iter()
                .any(|spec| spec.name() == trace.resembles);
            assert!(twin, "{}'s twin {}", trace.name, trace.resembles);
        }
    }
}
