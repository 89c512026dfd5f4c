//! Turning the command line's names and files into what to run, or into an
//! error that says what was wrong and what is valid. Nothing is measured or
//! written until this has succeeded.
//!
//! A [`Choice`] is what a command was asked for; [`Choice::resolve`] checks
//! it against the registry, the built-ins and the files into a
//! [`Selection`]. Two checks of a selection follow before anything is
//! generated: [`check_tick_driver`] (the tick driver cannot reach a far end)
//! and [`check_memory`] (the estimate of [`memory_estimate`] against
//! `--max-memory-gib`).

use std::path::PathBuf;

use algorithms::registry::{self, AlgorithmInfo};
use anyhow::{Result, bail};
use workloads::{FtraceOptions, REAL_TRACES, RealTrace, Scale, Spec, Tape};

use crate::closest;
use crate::wrap::{TERMINAL_WIDTH, wrap_words};

/// How far a trace import's summary is indented under the file's name, and
/// an error's explanation under its first line.
const DETAIL_INDENT: &str = "  ";

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
    /// queue may grow), or five timers a unit for a `[ratas]` workload; for a
    /// trace, its operations and timers.
    pub fn size(&self) -> (u64, u64) {
        match self {
            WorkloadSource::Spec { spec, .. } => {
                let ops = spec.expected_ops().unwrap_or(0.0).ceil() as u64;
                let pending = if let Some(ratas) = &spec.ratas {
                    // Each unit of a pair holds at most its five timers.
                    u64::from(ratas.pairs) * 2 * 5
                } else if spec.arrivals_per_tick.is_some() {
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
    /// The committed kernel traces among the workloads, in their order.
    pub reals: Vec<&'static RealTrace>,
}

impl Selection {
    /// Resolves the command line's choices. Every name is checked against what
    /// exists, and every file is read and validated, before anything runs.
    pub fn resolve(
        algorithms: &[String],
        params: &[String],
        sweeps: bool,
        workload_names: &[String],
        files: &Inputs,
        scale: Scale,
    ) -> Result<Self> {
        let algorithms = resolve_algorithms(algorithms, params, sweeps)?;
        let builtins = workloads::builtins(scale);
        let mut workloads = Vec::new();
        let mut chosen_reals = Vec::new();
        let wants_builtins = !workload_names.is_empty() || files.is_empty();
        if wants_builtins {
            let (specs, reals) = resolve_builtins(workload_names, builtins)?;
            for spec in specs {
                workloads.push(WorkloadSource::Spec {
                    spec: Box::new(spec),
                    scale_name: scale.to_string(),
                });
            }
            // The committed kernel traces, the same tape at every scale.
            for real in reals {
                workloads.push(WorkloadSource::Trace {
                    tape: real.import()?.tape,
                });
                chosen_reals.push(real);
            }
        }
        for path in &files.specs {
            let spec = workloads::load_spec(path)?;
            workloads.push(WorkloadSource::Spec {
                spec: Box::new(spec),
                scale_name: "spec".to_owned(),
            });
        }
        for path in &files.traces {
            workloads.push(WorkloadSource::Trace {
                tape: workloads::load_trace(path)?,
            });
        }
        for path in &files.ftraces {
            let import = workloads::import_ftrace(path, &files.ftrace)?;
            // What the import kept and skipped, said once, before measuring.
            eprintln!("timerbench: {}:", path.display());
            let summary = import.summary.to_string();
            for line in wrap_words(DETAIL_INDENT, &summary, TERMINAL_WIDTH) {
                eprintln!("{line}");
            }
            workloads.push(WorkloadSource::Trace { tape: import.tape });
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
            reals: chosen_reals,
        })
    }
}

/// The workload files a command was given: specs, CSV traces and raw kernel
/// traces with the options of their import.
#[derive(Default)]
pub struct Inputs {
    /// Spec files (`--spec`).
    pub specs: Vec<PathBuf>,
    /// CSV trace files (`--trace`).
    pub traces: Vec<PathBuf>,
    /// Raw ftrace captures (`--ftrace`), imported with `ftrace`.
    pub ftraces: Vec<PathBuf>,
    /// Which kernel timers, and which CPU, an `--ftrace` import keeps.
    pub ftrace: FtraceOptions,
}

impl Inputs {
    /// Whether no file was given (then the built-ins run).
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty() && self.traces.is_empty() && self.ftraces.is_empty()
    }
}

/// What a command asked to replay, before it is checked: the rows, the
/// workloads and their seed and scale (`run` and `counts`).
pub struct Choice {
    /// Algorithm names (`--algorithms`).
    pub algorithms: Vec<String>,
    /// Parameter sweeps (`--param`).
    pub params: Vec<String>,
    /// Built-in workload names (`--workloads`).
    pub workloads: Vec<String>,
    /// Spec, trace and kernel-trace files.
    pub files: Inputs,
    /// Seed of every random stream.
    pub seed: u64,
    /// Size of the built-in workloads.
    pub scale: Scale,
}

impl Choice {
    /// Checks every name and file against what exists (bad input). With
    /// neither --algorithms nor --param, every row, and the compiled sweep
    /// points too when `sweeps` is set.
    pub fn resolve(&self, sweeps: bool) -> Result<Selection> {
        Selection::resolve(
            &self.algorithms,
            &self.params,
            sweeps,
            &self.workloads,
            &self.files,
            self.scale,
        )
    }
}

/// Refuses a selection with a workload that runs beyond `max_ticks`, which
/// the tick driver would advance through one tick at a time (the reference
/// model first, before any algorithm): 2^40 ticks take hours.
pub fn check_tick_driver(selection: &Selection, max_ticks: u64) -> Result<()> {
    for source in &selection.workloads {
        let end = source.end_tick();
        if end > max_ticks {
            bail!(
                "workload {} runs to tick {end}, and the tick driver advances every tick up to \
                 it: beyond the limit of {max_ticks} ticks; use --driver event, shorten the \
                 workload, or raise --max-ticks",
                source.name()
            );
        }
    }
    Ok(())
}

/// The fewest operations a workload's measured phase (its inserts, cancels
/// and reschedules after the prefill) must hold to be timed. A whole pass
/// reads the clock twice, which costs about 27 ns together on this
/// project's VMs (`clock_floor_ns`); over 1,000 operations that is 0.03 ns
/// a operation, under 1% of the fastest cell the suite has measured (about
/// 6 ns). Fewer, and the clock's share becomes the figure, yet it would
/// still be ranked.
pub const MIN_MEASURED_OPS: usize = 1_000;

/// A spec expected to hold more operations than this is taken to measure
/// enough without generating it twice: only a prefill of nearly all of it
/// could leave fewer than [`MIN_MEASURED_OPS`], which the run checks again
/// on the tape it generates.
const GENERATE_TO_CHECK_BELOW_OPS: f64 = 1e6;

/// The operations of `tape`'s measured phase.
pub fn measured_ops(tape: &Tape) -> usize {
    tape.ops.len() - tape.prefill.min(tape.ops.len())
}

/// The error of a workload whose measured phase holds `measured`
/// operations, fewer than [`MIN_MEASURED_OPS`].
pub fn too_few_measured(workload: &str, measured: usize) -> anyhow::Error {
    anyhow::anyhow!(
        "workload {workload}: its measured phase holds {measured} operations (inserts, cancels \
         and reschedules after the prefill), fewer than the {MIN_MEASURED_OPS} a run times: a \
         whole pass's two clock reads would be a large part of its time per operation, which \
         would still be ranked; give it at least {MIN_MEASURED_OPS} operations to measure (a \
         longer trace, or a longer `duration` or higher rate in the spec)"
    )
}

/// Refuses, before anything is measured, a workload whose measured phase
/// holds fewer than [`MIN_MEASURED_OPS`] operations: a trace's count is
/// exact, and a small spec is generated once with `seed` to count it.
pub fn check_measured(selection: &Selection, seed: u64) -> Result<()> {
    for source in &selection.workloads {
        let measured = match source {
            WorkloadSource::Trace { tape } => measured_ops(tape),
            WorkloadSource::Spec { spec, .. } => {
                if spec
                    .expected_ops()
                    .is_ok_and(|ops| ops > GENERATE_TO_CHECK_BELOW_OPS)
                {
                    continue;
                }
                measured_ops(&spec.generate(seed))
            }
        };
        if measured < MIN_MEASURED_OPS {
            return Err(too_few_measured(source.name(), measured));
        }
    }
    Ok(())
}

/// Refuses a workload whose estimated memory is above `max_gib`, saying how
/// the estimate is made; warns of one above what the machine has available.
pub fn check_memory(selection: &Selection, max_gib: u64) -> Result<()> {
    const GIB: f64 = (1u64 << 30) as f64;
    let available = available_memory();
    for source in &selection.workloads {
        let (ops, pending) = source.size();
        let estimate = memory_estimate(ops, pending);
        let how = format!(
            "{ops} operations of {} bytes, up to {pending} pending timers of {} bytes, and {} MiB",
            BYTES_PER_OP,
            BYTES_PER_PENDING,
            FIXED_BYTES >> 20
        );
        if estimate > max_gib.saturating_mul(1 << 30) {
            bail!(
                "workload {} is estimated to need {:.1} GiB ({how}), above the limit of {max_gib} \
                 GiB; lower its `pending` or `duration`, or raise --max-memory-gib",
                source.name(),
                estimate as f64 / GIB
            );
        }
        if let Some(available) = available.filter(|&a| estimate > a) {
            let warning = format!(
                "workload {} is estimated to need {:.1} GiB ({how}), more than the {:.1} GiB this \
                 machine has available; it may swap, and its times with it",
                source.name(),
                estimate as f64 / GIB,
                available as f64 / GIB
            );
            for line in wrap_words("timerbench: warning: ", &warning, TERMINAL_WIDTH) {
                eprintln!("{line}");
            }
        }
    }
    Ok(())
}

/// Checks algorithm names (`--algorithms`) and parameter sweeps (`--param`)
/// against the registry. With neither, every row: each design at its
/// defaults, each native row, and each compiled sweep point if `sweeps`.
/// Otherwise the rows named, and the rows of every value swept. The result is
/// in registry order, without duplicates.
fn resolve_algorithms(names: &[String], params: &[String], sweeps: bool) -> Result<Vec<String>> {
    let catalog = registry::catalog();
    for name in names {
        if !catalog.iter().any(|info| info.name == name) {
            let valid: Vec<&str> = catalog.iter().map(|info| info.name).collect();
            bail!(closest::unknown_name(
                &format!("unknown algorithm {name:?} in --algorithms"),
                "valid names",
                name,
                &valid
            ));
        }
    }
    let mut wanted: Vec<&str> = names.iter().map(String::as_str).collect();
    for text in params {
        wanted.extend(sweep_rows(&catalog, text)?);
    }
    let everything = names.is_empty() && params.is_empty();
    Ok(catalog
        .iter()
        .filter(|info| {
            if everything {
                sweeps || !info.variant
            } else {
                wanted.contains(&info.name)
            }
        })
        .map(|info| info.name.to_owned())
        .collect())
}

/// The rows of one `--param` value, `<design>:<parameter>=<v1>,<v2>,...`:
/// for each value, the design's own row at its default, or the compiled sweep
/// point at that value. Any other input is an error that says what is valid.
pub fn sweep_rows(catalog: &[AlgorithmInfo], text: &str) -> Result<Vec<&'static str>> {
    // The form goes on a line of its own: the value given may be long.
    let form =
        "\n  expected <design>:<parameter>=<value>,<value>,..., e.g. rounds-wheel:tick=1,10,100";
    let tunable: Vec<&AlgorithmInfo> = catalog
        .iter()
        .filter(|info| info.sweep.is_none() && !info.tunables.is_empty())
        .collect();
    let designs: Vec<&str> = tunable.iter().map(|info| info.name).collect();
    let Some((design, setting)) = text.split_once(':') else {
        bail!("--param {text:?}:{form}");
    };
    let Some((param, values)) = setting.split_once('=') else {
        bail!("--param {text:?}:{form}");
    };
    let Some(info) = tunable.iter().find(|info| info.name == design) else {
        bail!(closest::unknown_name(
            &format!("--param {text:?}: {design:?} is not a design with tunable parameters"),
            "those are",
            design,
            &designs
        ));
    };
    let Some(declared) = info.tunables.iter().find(|p| p.name == param) else {
        let names: Vec<&str> = info.tunables.iter().map(|p| p.name).collect();
        bail!(
            "--param {text:?}: {design} has no parameter {param:?}; its parameters: {}",
            names.join(", ")
        );
    };
    let points = registry::sweep_points(catalog, info, declared);
    let mut rows = Vec::new();
    for value in values.split(',') {
        let point = value
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|v| points.iter().find(|(known, _)| *known == v));
        let Some(&(_, row)) = point else {
            let compiled: Vec<String> = points.iter().map(|(v, _)| v.to_string()).collect();
            let valid = format!(
                "the values a run can use are {} (default {}); another is one line in \
                 algorithms/src/registry.rs, for_each_variant",
                compiled.join(", "),
                declared.default
            );
            bail!(
                "--param {text:?}: {design}'s {param} has no compiled point at {value:?};\n{}",
                wrap_words(DETAIL_INDENT, &valid, TERMINAL_WIDTH).join("\n")
            );
        };
        rows.push(row);
    }
    Ok(rows)
}

/// Picks built-ins by name (or the scaling group), and the committed kernel
/// traces (`workloads::REAL_TRACES`) among them; no name means all of both.
/// The result keeps the built-ins' fixed order.
fn resolve_builtins(
    names: &[String],
    builtins: Vec<Spec>,
) -> Result<(Vec<Spec>, Vec<&'static RealTrace>)> {
    for name in names {
        let known = name == SCALING_GROUP
            || builtins.iter().any(|spec| spec.name() == name)
            || workloads::real_trace(name).is_some();
        if !known {
            let mut valid: Vec<&str> = builtins.iter().map(Spec::name).collect();
            valid.push(SCALING_GROUP);
            valid.extend(REAL_TRACES.iter().map(|real| real.name));
            bail!(closest::unknown_name(
                &format!("unknown workload {name:?} in --workloads"),
                "valid names at this scale",
                name,
                &valid
            ));
        }
    }
    let wanted = |name: &str| {
        names.is_empty()
            || names
                .iter()
                .any(|n| n == name || (n == SCALING_GROUP && name.starts_with(SCALING_PREFIX)))
    };
    let specs = builtins
        .into_iter()
        .filter(|spec| wanted(spec.name()))
        .collect();
    let reals = REAL_TRACES
        .iter()
        .filter(|real| wanted(real.name))
        .collect();
    Ok((specs, reals))
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
        // ratas's units hold five timers each.
        let ratas = workloads::builtins(workloads::Scale::Default)
            .into_iter()
            .find(|spec| spec.name() == "ratas-connections")
            .expect("a built-in");
        let source = WorkloadSource::Spec {
            spec: Box::new(ratas),
            scale_name: "default".to_owned(),
        };
        assert_eq!(source.size().1, 20 * 2 * 5);
    }

    #[test]
    fn a_sweep_names_the_rows_of_its_values() {
        let catalog = registry::catalog();
        assert_eq!(
            sweep_rows(&catalog, "rounds-wheel:tick=1,10,100").unwrap(),
            ["rounds-wheel", "rounds-wheel@tick=10", "netty-wheel"]
        );
        assert_eq!(
            sweep_rows(&catalog, "hashed-wheel:slots=65536").unwrap(),
            ["hashed-wheel"]
        );
        let error = |text: &str| sweep_rows(&catalog, text).unwrap_err().to_string();
        assert!(error("rounds-wheel").contains("expected <design>:"));
        assert!(error("rounds-wheel:tick").contains("expected <design>:"));
        assert!(error("binary-heap:arity=2").contains("those are, the closest first:\n"));
        assert!(error("rounds-wheel:size=2").contains("its parameters: slots, tick"));
        let missing = error("rounds-wheel:tick=1,37");
        assert!(missing.contains("at \"37\""), "{missing}");
        assert!(
            missing.contains("1, 10, 100, 1000 (default 1)"),
            "{missing}"
        );
        assert!(error("rounds-wheel:tick=x").contains("at \"x\""));
    }

    #[test]
    fn params_add_rows_and_nothing_means_everything() {
        let all = resolve_algorithms(&[], &[], true).unwrap();
        assert!(all.iter().any(|n| n == "hashed-wheel@slots=4096"));
        let designs = resolve_algorithms(&[], &[], false).unwrap();
        assert!(designs.iter().all(|n| !n.contains('@')));
        assert!(designs.iter().any(|n| n == "netty-wheel"));
        let some = resolve_algorithms(
            &["binary-heap".to_owned()],
            &["hashed-wheel:slots=4096,65536".to_owned()],
            false,
        )
        .unwrap();
        assert_eq!(
            some,
            ["binary-heap", "hashed-wheel", "hashed-wheel@slots=4096"]
        );
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree: 100 kB\nMemAvailable:   20000000 kB\n";
        assert_eq!(parse_mem_available(text), Some(20_000_000 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
    }
}
