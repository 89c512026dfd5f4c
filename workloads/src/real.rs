//! The real kernel traces committed under `traces/`, as workloads every
//! default run replays beside the synthetic ones.
//!
//! The synthetic built-ins are laws: a delay distribution, a cancel share, an
//! arrival rate, each argued from a source. The real ones are what this
//! machine's kernel did while a real program ran (`traces/README.md` says how
//! each was captured): the `timer_list` timers of every CPU as one queue, in
//! jiffies (4 ms at the captures' `HZ=250`), imported by [`import_ftrace`]'s
//! rules. They answer the question the laws cannot: does the ranking hold on
//! timers nobody designed?
//!
//! The traces are compiled into the crate (`include_bytes!`, 3.9 MB of
//! gzip), so a binary replays them from any directory, and a reader of the
//! results can tell them by name: each is `real-` and the file's stem. A
//! trace is the same tape at every scale and seed; the results give it the
//! scale `trace`, as any `--trace` or `--ftrace`.
//!
//! The tapes are small (4,000 to 34,000 operations, 3 to 60 s), so a whole
//! pass lasts a fraction of a millisecond: their figures carry more noise
//! than the synthetic ones, and the intervals say how much.

use std::io::BufReader;
use std::path::Path;

use crate::error::WorkloadError;
use crate::ftrace::{FtraceImport, FtraceOptions, KernelTimers, parse_ftrace};

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
    /// Its gzip bytes.
    bytes: &'static [u8],
}

/// The prefix every real trace's name carries.
pub const REAL_PREFIX: &str = "real-";

/// The committed traces, in the order a run replays them.
pub const REAL_TRACES: [RealTrace; 3] = [
    RealTrace {
        name: "real-nginx-wrk",
        file: "workloads/traces/nginx-wrk.txt.gz",
        description: "nginx serving a static file to wrk over loopback for 3 s: the kernel's \
                      TCP and poll timers",
        resembles: "kernel-timeouts",
        bytes: include_bytes!("../traces/nginx-wrk.txt.gz"),
    },
    RealTrace {
        name: "real-redis-benchmark",
        file: "workloads/traces/redis-benchmark.txt.gz",
        description: "redis-server under redis-benchmark (50,000 SETs then GETs) over \
                      loopback: the kernel's TCP and poll timers",
        resembles: "kernel-timeouts",
        bytes: include_bytes!("../traces/redis-benchmark.txt.gz"),
    },
    RealTrace {
        name: "real-rest-60s",
        file: "workloads/traces/rest-60s.txt.gz",
        description: "the machine at rest for 60 s: housekeeping, writeback, the \
                      scheduler's and the network stack's timers",
        resembles: "kernel-timeouts",
        bytes: include_bytes!("../traces/rest-60s.txt.gz"),
    },
];

/// Where the captures' README is, the source every real trace names.
pub const REAL_SOURCE: &str =
    "captured on this project's VM (Linux 6.18, HZ=250): `workloads/traces/README.md`";

impl RealTrace {
    /// The trace imported: its `timer_list` timers of every CPU as one queue,
    /// named [`RealTrace::name`].
    ///
    /// # Errors
    ///
    /// What [`parse_ftrace`] says of a malformed trace; the committed ones
    /// import cleanly (a test holds it), so this happens only to a build whose
    /// files were changed.
    pub fn import(&self) -> Result<FtraceImport, WorkloadError> {
        let reader = BufReader::new(flate2::read::GzDecoder::new(self.bytes));
        let options = FtraceOptions {
            timers: KernelTimers::TimerList,
            ..FtraceOptions::default()
        };
        // The import names a timer_list tape by the stem it is given.
        parse_ftrace(reader, self.name, Path::new(self.file), &options)
    }
}

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
            assert_eq!(import.summary.hz, Some(250), "{}", trace.name);
            assert_eq!(import.summary.lost_events, 0);
            assert!(import.tape.ops.len() > 1_000, "{}", trace.name);
            assert_eq!(real_trace(trace.name).map(|t| t.file), Some(trace.file));
        }
        assert!(real_trace("nginx-wrk").is_none());
    }
}
