//! Turning the command line's names and files into what to run, or into an
//! error that says what was wrong and what is valid. Nothing is measured or
//! written until this has succeeded.

use std::path::PathBuf;

use algorithms::registry;
use anyhow::{Result, bail};
use workloads::{Scale, Spec, Tape};

/// The name that selects every scaling workload at once.
pub const SCALING_GROUP: &str = "scaling";
/// The prefix of the scaling sweep's workload names.
const SCALING_PREFIX: &str = "scaling-";

/// Bytes a run holds per operation on the tape, whatever the algorithm: the
/// 24-byte operation and the harness's tables per timer (its key, the
/// verification's record). Measured: 56.6 bytes an operation, peak resident
/// size over operations, for a spec of 2 × 10^7 operations and 1,000 pending.
pub const BYTES_PER_OP: u64 = 64;

/// Bytes a run holds per pending timer on top of [`BYTES_PER_OP`]: the
/// reference model's entry and the algorithm's own. Measured: 135 bytes with
/// `hash-wheel-timer`, the largest structure here (129 bytes a timer at 10^6
/// in `results/runs.csv`), 98 with `binary-heap`, at 2 × 10^6 pending.
pub const BYTES_PER_PENDING: u64 = 200;

/// Bytes a run holds whatever its workloads: the binary, the memory probe's
/// 64 MiB buffer, the wheels' fixed arrays.
pub const FIXED_BYTES: u64 = 128 << 20;

/// The default limit on a run's estimated memory (`--max-memory-gib`): 8 GiB,
/// twice the largest built-in's estimate (`scaling-1e7` at large scale) and a
/// third of this project's 24 GiB machines.
pub const DEFAULT_MAX_MEMORY_GIB: u64 = 8;

/// The estimated peak memory of replaying a tape of `ops` operations that
/// keeps at most `pending` timers pending (see [`BYTES_PER_OP`]).
pub fn memory_estimate(ops: u64, pending: u64) -> u64 {
    FIXED_BYTES
        .saturating_add(ops.saturating_mul(BYTES_PER_OP))
        .saturating_add(pending.saturating_mul(BYTES_PER_PENDING))
}

/// The memory the kernel says is available to a new process
/// (`MemAvailable` in `/proc/meminfo`), where there is one to read.
pub fn available_memory() -> Option<u64> {
    parse_mem_available(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemAvailable` of `/proc/meminfo`'s text, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

/// One workload to run.
pub enum WorkloadSource {
    /// A generated workload: a built-in or a user's spec file.
    Spec {
        /// The spec.
        spec: Box<Spec>,
        /// `small`/`default`/`large` for a built-in, `spec` for a user file.
        scale_name: String,
    },
    /// A user's recorded trace, already parsed.
    Trace {
        /// The tape read from the trace.
        tape: Tape,
    },
}

impl WorkloadSource {
    /// The tape to replay (a spec generated from `seed`, or the trace's), and
    /// the scale the result files give it: a built-in's, `spec` or `trace`.
    pub fn tape(&self, seed: u64) -> (Tape, String) {
        match self {
            WorkloadSource::Spec { spec, scale_name } => (spec.generate(seed), scale_name.clone()),
            WorkloadSource::Trace { tape } => (tape.clone(), "trace".to_owned()),
        }
    }

    /// The tick the workload runs to: a spec's `duration`, a trace's last
    /// line. Known before any tape is generated.
    pub fn end_tick(&self) -> u64 {
        match self {
            WorkloadSource::Spec { spec, .. } => spec.duration,
            WorkloadSource::Trace { tape } => tape.end,
        }
    }

    /// The operations on its tape and a bound on its pending population, as
    /// known before the tape is generated: for a spec, the expected operations
    /// and `pending` with a quarter's margin (the population fluctuates about
    /// it), or every operation when the spec sets its own arrival rate (the
    /// queue may grow); for a trace, its operations and timers.
    pub fn size(&self) -> (u64, u64) {
        match self {
            WorkloadSource::Spec { spec, .. } => {
                let ops = spec.expected_ops().unwrap_or(0.0).ceil() as u64;
                let pending = if spec.arrivals_per_tick.is_some() {
                    ops
                } else {
                    spec.pending.saturating_add(spec.pending / 4).min(ops)
                };
                (ops, pending)
            }
            WorkloadSource::Trace { tape } => (tape.ops.len() as u64, u64::from(tape.timers)),
        }
    }

    /// The workload's name.
    pub fn name(&self) -> &str {
        match self {
            WorkloadSource::Spec { spec, .. } => spec.name(),
            WorkloadSource::Trace { tape } => &tape.name,
        }
    }
}

/// What a run measures.
pub struct Selection {
    /// Algorithm names, in registry order.
    pub algorithms: Vec<String>,
    /// Workloads, in the order given (built-ins in their fixed order).
    pub workloads: Vec<WorkloadSource>,
}

impl Selection {
    /// Resolves the command line's choices. Every name is checked against what
    /// exists, and every file is read and validated, before anything runs.
    pub fn resolve(
        algorithms: &[String],
        workload_names: &[String],
        specs: &[PathBuf],
        traces: &[PathBuf],
        scale: Scale,
    ) -> Result<Self> {
        let algorithms = resolve_algorithms(algorithms)?;
        let builtins = workloads::builtins(scale);
        let mut workloads = Vec::new();
        let wants_builtins = !workload_names.is_empty() || (specs.is_empty() && traces.is_empty());
        if wants_builtins {
            for spec in resolve_builtins(workload_names, builtins)? {
                workloads.push(WorkloadSource::Spec {
                    spec: Box::new(spec),
                    scale_name: scale.to_string(),
                });
            }
        }
        for path in specs {
            let spec = workloads::load_spec(path)?;
            workloads.push(WorkloadSource::Spec {
                spec: Box::new(spec),
                scale_name: "spec".to_owned(),
            });
        }
        for path in traces {
            workloads.push(WorkloadSource::Trace {
                tape: workloads::load_trace(path)?,
            });
        }
        let mut seen = std::collections::BTreeSet::new();
        for source in &workloads {
            if !seen.insert(source.name().to_owned()) {
                bail!(
                    "two workloads are named {:?}; give each spec or trace a distinct name",
                    source.name()
                );
            }
        }
        Ok(Self {
            algorithms,
            workloads,
        })
    }
}

/// Checks algorithm names against the registry; empty means all. The result is
/// in registry order, without duplicates.
fn resolve_algorithms(names: &[String]) -> Result<Vec<String>> {
    let catalog = registry::catalog();
    for name in names {
        if !catalog.iter().any(|info| info.name == name) {
            let valid: Vec<&str> = catalog.iter().map(|info| info.name).collect();
            bail!(
                "unknown algorithm {name:?} in --algorithms; valid names are: {}",
                valid.join(", ")
            );
        }
    }
    Ok(catalog
        .iter()
        .filter(|info| names.is_empty() || names.iter().any(|n| n == info.name))
        .map(|info| info.name.to_owned())
        .collect())
}

/// Picks built-ins by name (or the scaling group); empty means all. The result
/// keeps the built-ins' fixed order.
fn resolve_builtins(names: &[String], builtins: Vec<Spec>) -> Result<Vec<Spec>> {
    for name in names {
        let known = name == SCALING_GROUP || builtins.iter().any(|spec| spec.name() == name);
        if !known {
            let mut valid: Vec<&str> = builtins.iter().map(Spec::name).collect();
            valid.push(SCALING_GROUP);
            bail!(
                "unknown workload {name:?} in --workloads; valid names at this scale are: {}",
                valid.join(", ")
            );
        }
    }
    let wanted = |spec: &Spec| {
        names.is_empty()
            || names.iter().any(|n| {
                n == spec.name() || (n == SCALING_GROUP && spec.name().starts_with(SCALING_PREFIX))
            })
    };
    Ok(builtins.into_iter().filter(|spec| wanted(spec)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_adds_the_tape_the_population_and_the_fixed_part() {
        assert_eq!(memory_estimate(0, 0), FIXED_BYTES);
        assert_eq!(
            memory_estimate(1_000, 10),
            FIXED_BYTES + 1_000 * BYTES_PER_OP + 10 * BYTES_PER_PENDING
        );
        assert_eq!(memory_estimate(u64::MAX, u64::MAX), u64::MAX);
        // The case that took 12.9 GB: 10^8 pending (and as many operations)
        // is estimated above that, and above the default limit.
        let estimate = memory_estimate(100_000_000, 125_000_000);
        assert!(estimate > 12_900_000_000, "{estimate}");
        assert!(estimate > DEFAULT_MAX_MEMORY_GIB << 30);
    }

    #[test]
    fn a_spec_is_sized_before_it_is_generated() {
        let spec = |extra: &str| WorkloadSource::Spec {
            spec: Box::new(
                Spec::from_toml(
                    &format!(
                        "name = \"s\"\ndescription = \"d\"\nduration = 1_000\npending = 1_000\n\
                         delay = {{ kind = \"constant\", value = 500 }}\n{extra}"
                    ),
                    "s.toml",
                )
                .unwrap(),
            ),
            scale_name: "spec".to_owned(),
        };
        // Steady state: 1,000 pending, 2 arrivals a tick for 1,000 ticks.
        let (ops, pending) = spec("").size();
        assert!((2_900..3_100).contains(&ops), "{ops}");
        assert_eq!(pending, 1_250);
        // An explicit rate may grow the queue: every operation may be pending.
        let (ops, pending) = spec("arrivals_per_tick = 5.0\n").size();
        assert_eq!(pending, ops);
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree: 100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(20_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    }
}
