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
