//! Reading `metadata.json` and `counts.json`: what a run was given and where
//! it ran, as the readers of results need it.
//!
//! The version is checked before any other field, so that a file of another
//! layout is refused for its version rather than for a field it lacks. Fields
//! added after the first runs (`run_id`, `systems`, `real_traces`, `memory_latency_ns`,
//! the sweep fields of an algorithm, the build facts) may be absent, and
//! read as absent; the fields every run has always written must be there.
//! Fields no reader needs are ignored, so the harness may record more.
//!
//! The sweep fields are checked beyond parsing: a variant row must name the
//! design, parameter and value it is a point of, or a reader could not place
//! it; a design's default row cannot be a variant. The real traces' entries
//! must name workloads of the run (`real_traces`).
//!
//! The harness writes the file (its `metadata` module gathers the facts from
//! the registry, the clock and the machine); this module is what every reader
//! shares.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::counts::CountsBuild;
use crate::error::InputError;
use crate::files::{SCHEMA_VERSION, VERSION_COLUMN};
use crate::parse::{json_error, read_text};
use crate::real_traces::{RealTraceEntry, check_real_traces};

/// An algorithm as `metadata.json` lists it.
#[derive(Clone, Debug, Deserialize)]
pub struct AlgorithmEntry {
    /// Registry name.
    pub name: String,
    /// `seed`, `modern`, `baseline` or `crate` (any other value is kept and
    /// shown after those).
    pub family: String,
    /// `false` for an algorithm that fires late within a declared bound.
    pub exact: bool,
    /// Parameters, e.g. `slots=512`.
    #[serde(default)]
    pub params: String,
    /// One-line description.
    #[serde(default)]
    pub summary: String,
    /// For a native row (a crate driven through its own API), the contract
    /// row that runs the same structure.
    #[serde(default)]
    pub native_of: Option<String>,
    /// The parameter sweep this row is a point of (absent in results made
    /// before sweeps, and on a design's default row).
    #[serde(default)]
    pub sweep: Option<SweepPoint>,
    /// Whether the row exists only as a sweep point (`<design>@<param>=<value>`):
    /// readers keep it to parameter sweeps and out of every best and verdict.
    #[serde(default)]
    pub variant: bool,
}

/// Where a row sits in a parameter sweep (`metadata.json`'s `sweep`): its
/// design run with one parameter set to a value, the others at their
/// defaults.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct SweepPoint {
    /// The design swept: the name of its default row.
    pub design: String,
    /// The parameter varied, e.g. `tick`.
    pub param: String,
    /// Its value on this row.
    pub value: ParamValue,
}

/// A swept parameter's value as the metadata writes it, a number or a
/// string, kept as text: readers only show it and order by it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ParamValue(pub String);

impl ParamValue {
    /// The value as a number, when it is one (for ordering the points).
    pub fn number(&self) -> Option<f64> {
        self.0.parse().ok()
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for ParamValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Accepts a number or a string; anything else is refused with a
        /// message naming the field and what is valid.
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = ParamValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`sweep.value` to be a number or a string (e.g. 10 or \"1ms\")")
            }
            fn visit_u64<E>(self, v: u64) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<ParamValue, E> {
                Ok(ParamValue(v.to_owned()))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Checks the sweep fields of the metadata's algorithms: a variant row must
/// say which design and parameter it is a point of (a reader would not
/// know where to place it), names must not be empty, and a design's default
/// row (the row named as the design) cannot be a variant. `Err` names the
/// entry, the field and what is valid.
fn check_sweeps(algorithms: &[AlgorithmEntry]) -> Result<(), String> {
    for (i, entry) in algorithms.iter().enumerate() {
        let which = format!("algorithms[{i}] ({:?})", entry.name);
        match &entry.sweep {
            None if entry.variant => {
                return Err(format!(
                    "{which} has `variant` true but no `sweep`; a variant row must name its design, \
                     parameter and value, e.g. \"sweep\": {{\"design\": \"rounds-wheel\", \
                     \"param\": \"tick\", \"value\": 10}}"
                ));
            }
            None => {}
            Some(sweep) => {
                for (field, value) in [("design", &sweep.design), ("param", &sweep.param)] {
                    if value.trim().is_empty() {
                        return Err(format!(
                            "{which} has an empty `sweep.{field}`; it must name the {} \
                             (e.g. \"{}\")",
                            if field == "design" {
                                "design's default row"
                            } else {
                                "parameter varied"
                            },
                            if field == "design" {
                                "rounds-wheel"
                            } else {
                                "tick"
                            }
                        ));
                    }
                }
                if entry.variant && sweep.design == entry.name {
                    return Err(format!(
                        "{which} has `variant` true but is named as its design ({:?}); a design's \
                         default row is not a variant: set `variant` false, or name the row \
                         {:?}",
                        sweep.design,
                        format!("{}@{}={}", sweep.design, sweep.param, sweep.value)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The clock floor: percentiles of an empty timed region, in nanoseconds.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct ClockFloor {
    /// Median.
    pub p50_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest sample.
    pub max_ns: u64,
}

/// One size of the memory latency probe.
#[derive(Clone, Copy, Debug, Deserialize)]
pub struct MemoryLatency {
    /// The probed buffer's size in bytes.
    pub bytes: u64,
    /// Mean nanoseconds per dependent load.
    pub ns_per_load: f64,
}

/// The fields of `metadata.json` that readers use.
#[derive(Clone, Debug, Deserialize)]
pub struct Metadata {
    /// The seed of every random stream.
    pub seed: u64,
    /// `small`, `default` or `large`.
    pub scale: String,
    /// `event` or `tick`.
    pub driver: String,
    /// The version of the workload generator that made the tapes: runs of
    /// different generators replayed different operations.
    #[serde(default)]
    pub generator_version: Option<u64>,
    /// The algorithms run, with their families.
    pub algorithms: Vec<AlgorithmEntry>,
    /// The workloads run, in run order.
    pub workloads: Vec<String>,
    /// The (algorithm, workload) cells of the run, measured or skipped:
    /// `runs.csv`'s rows (absent in results made before it was written).
    #[serde(default)]
    pub cells: Option<u64>,
    /// The commit the harness was built from.
    #[serde(default)]
    pub git_commit: String,
    /// Whether the work tree had changes.
    #[serde(default)]
    pub git_dirty: bool,
    /// The compiler's version line.
    #[serde(default)]
    pub rustc: String,
    /// `release` or `debug`.
    #[serde(default)]
    pub build_profile: String,
    /// The CPU's model name.
    #[serde(default)]
    pub cpu_model: String,
    /// Logical cores (0: not recorded).
    #[serde(default)]
    pub cores: u64,
    /// The kernel's clock source.
    #[serde(default)]
    pub clock_source: String,
    /// The clock floor.
    pub clock_floor_ns: ClockFloor,
    /// The memory latency probe (absent in results made before it existed).
    #[serde(default)]
    pub memory_latency_ns: Vec<MemoryLatency>,
    /// When the run finished.
    #[serde(default)]
    pub date_utc: String,
    /// How long the run took.
    #[serde(default)]
    pub wall_seconds: f64,
    /// CPU seconds the hypervisor took from the VM during the run.
    #[serde(default)]
    pub steal_seconds: Option<f64>,
    /// Timed repetitions of the whole pass.
    pub repetitions: u64,
    /// Batched passes of each cell (`None` in runs made when every cell ran
    /// as many batched passes as whole ones).
    #[serde(default)]
    pub batched_repetitions: Option<u64>,
    /// How the intervals and ties were computed.
    pub statistics: Statistics,
    /// Per workload, the replay loop's own cost.
    pub replay_overhead: Vec<ReplayOverhead>,
    /// The run's id (`None` in results made before run ids).
    #[serde(default)]
    pub run_id: Option<String>,
    /// The real systems and the rows that model them (empty in results made
    /// before the list was written into the metadata).
    #[serde(default)]
    pub systems: Vec<SystemEntry>,
    /// The real kernel traces of the run, each with its synthetic twin and
    /// both tapes' shapes (empty in results made before the field).
    #[serde(default)]
    pub real_traces: Vec<RealTraceEntry>,
    /// The threaded mode's settings (`None` in a run without `--threaded`,
    /// and in results made before the metadata recorded them).
    #[serde(default)]
    pub threaded: Option<ThreadedSettings>,
}

/// What `timerbench run --threaded` was given (`metadata.json`'s
/// `threaded`): every cell of `threaded.csv` is one (algorithm, workload)
/// under each sharing and producer count, `repetitions` times.
///
/// The harness writes it with this type, so that writer and readers spell
/// its fields alike.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadedSettings {
    /// Producer thread counts, in the order run.
    pub producers: Vec<u32>,
    /// The sharings, by name (`locked`, `handoff`, `sharded`), in the order
    /// run.
    pub sharings: Vec<String>,
    /// How many times faster than real time the tapes were replayed.
    pub speedup: u64,
    /// The last tick replayed (a tape that ends sooner is replayed whole).
    pub window_ticks: u64,
    /// Repetitions of each cell.
    pub repetitions: u32,
    /// Whether producers issued as fast as they could (the saturating
    /// variant).
    pub saturate: bool,
}

/// A real system and the rows that model it (`metadata.json`'s `systems`).
#[derive(Clone, Debug, Deserialize)]
pub struct SystemEntry {
    /// The system and its timer class.
    pub name: String,
    /// What it keeps its timers in.
    pub structure: String,
    /// The rows that model it, by name.
    pub rows: Vec<String>,
    /// The rows as the table shows them.
    pub row: String,
    /// What differs, and whether it moves the numbers.
    pub differs: String,
}

/// How the harness computed intervals and ties (`metadata.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct Statistics {
    /// The interval of a median.
    pub median_ci: String,
    /// The interval of a ratio.
    pub ratio_ci: String,
    /// Resamples of the ratio bootstrap.
    pub bootstrap_resamples: u64,
    /// When two cells tie.
    pub tie_rule: String,
    /// How far the batched pass may stray from the whole pass.
    pub consistency_tolerance: f64,
}

/// The replay loop's own cost on one workload (`metadata.json`).
#[derive(Clone, Debug, Deserialize)]
pub struct ReplayOverhead {
    /// The workload.
    pub workload: String,
    /// Median ns per measured operation.
    pub ns_per_op: f64,
}

/// Reads `metadata.json`, checking its schema version before its fields.
pub fn read_metadata(path: &Path) -> Result<Metadata, InputError> {
    parse_metadata(path, &read_text(path)?)
}

/// [`read_metadata`] on text already in memory; `path` only names it in errors.
pub fn parse_metadata(path: &Path, text: &str) -> Result<Metadata, InputError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| json_error(path, &e))?;
    match value
        .get(VERSION_COLUMN)
        .and_then(serde_json::Value::as_u64)
    {
        Some(v) if v == u64::from(SCHEMA_VERSION) => {}
        Some(v) => {
            return Err(InputError::new(
                path,
                None,
                format!(
                    "schema_version is {v}; this timerbench reads version {SCHEMA_VERSION} \
                     (rerun `make results` with this checkout)"
                ),
            ));
        }
        None => {
            return Err(InputError::new(
                path,
                None,
                format!(
                    "no numeric schema_version field; expected schema_version {SCHEMA_VERSION} \
                     (see results/README.md)"
                ),
            ));
        }
    }
    let metadata: Metadata = serde_json::from_value(value).map_err(|e| {
        InputError::new(
            path,
            None,
            format!("{e} (the fields are described in results/README.md)"),
        )
    })?;
    check_sweeps(&metadata.algorithms).map_err(|message| InputError::new(path, None, message))?;
    check_real_traces(&metadata.real_traces, &metadata.workloads)
        .map_err(|message| InputError::new(path, None, message))?;
    Ok(metadata)
}

/// Reads the build named by `counts.json` at `path`, or `None` when the file
/// is absent (a run without counts).
pub fn read_counts_build(path: &Path) -> Result<Option<CountsBuild>, InputError> {
    if !path.exists() {
        return Ok(None);
    }
    parse_counts_build(path, &read_text(path)?).map(Some)
}

/// [`read_counts_build`] on text already in memory; `path` only names it in
/// errors.
pub fn parse_counts_build(path: &Path, text: &str) -> Result<CountsBuild, InputError> {
    serde_json::from_str(text).map_err(|e| json_error(path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minimal metadata whose algorithms are `algorithms` (a JSON array's
    /// elements).
    fn metadata_with(algorithms: &str) -> Result<Metadata, InputError> {
        parse_metadata(
            Path::new("metadata.json"),
            &format!(
                r#"{{"schema_version": 3, "seed": 1, "scale": "small", "driver": "event",
                "repetitions": 6, "replay_overhead": [], "workloads": ["w"],
                "statistics": {{"median_ci": "m", "ratio_ci": "r", "bootstrap_resamples": 10,
                               "tie_rule": "t", "consistency_tolerance": 0.15}},
                "clock_floor_ns": {{"p50_ns": 20, "p99_ns": 30, "p999_ns": 40, "max_ns": 50}},
                "algorithms": [{algorithms}]}}"#
            ),
        )
    }

    #[test]
    fn the_threaded_settings_read_when_there_and_are_absent_in_older_runs() {
        let metadata = metadata_with("").unwrap();
        assert_eq!(metadata.threaded, None);
        let text = r#"{"schema_version": 3, "seed": 1, "scale": "small", "driver": "event",
            "repetitions": 6, "replay_overhead": [], "workloads": ["w"], "algorithms": [],
            "statistics": {"median_ci": "m", "ratio_ci": "r", "bootstrap_resamples": 10,
                           "tie_rule": "t", "consistency_tolerance": 0.15},
            "clock_floor_ns": {"p50_ns": 20, "p99_ns": 30, "p999_ns": 40, "max_ns": 50},
            "threaded": {"producers": [1, 2], "sharings": ["locked", "sharded"],
                         "speedup": 10, "window_ticks": 2000, "repetitions": 2,
                         "saturate": false}}"#;
        let threaded = parse_metadata(Path::new("metadata.json"), text)
            .unwrap()
            .threaded
            .expect("written");
        assert_eq!(threaded.producers, [1, 2]);
        assert_eq!(threaded.sharings, ["locked", "sharded"]);
        assert_eq!((threaded.speedup, threaded.window_ticks), (10, 2_000));
        assert_eq!((threaded.repetitions, threaded.saturate), (2, false));
    }

    #[test]
    fn another_version_is_refused_before_any_field() {
        let error = parse_metadata(Path::new("m.json"), r#"{"schema_version": 4}"#).unwrap_err();
        assert!(error.message.contains("schema_version is 4"), "{error}");
        let error = parse_metadata(Path::new("m.json"), r#"{"seed": 1}"#).unwrap_err();
        assert!(
            error.message.contains("no numeric schema_version"),
            "{error}"
        );
    }

    #[test]
    fn metadata_without_sweep_fields_reads_as_designs() {
        let metadata =
            metadata_with(r#"{"name": "rounds-wheel", "family": "seed", "exact": true}"#).unwrap();
        assert_eq!(metadata.algorithms[0].sweep, None);
        assert!(!metadata.algorithms[0].variant);
        assert_eq!(metadata.algorithms[0].native_of, None);
        assert_eq!(metadata.generator_version, None);
    }

    #[test]
    fn sweep_points_read_numbers_and_strings() {
        let metadata = metadata_with(
            r#"{"name": "rounds-wheel@tick=10", "family": "seed", "exact": false, "variant": true,
                "sweep": {"design": "rounds-wheel", "param": "tick", "value": 10}},
               {"name": "netty-wheel", "family": "seed", "exact": false, "variant": false,
                "sweep": {"design": "rounds-wheel", "param": "tick", "value": "100"}},
               {"name": "x@f=0.5", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "x", "param": "f", "value": 0.5}, "params": "f=0.5"},
               {"name": "y", "family": "seed", "exact": true, "sweep": null}"#,
        )
        .unwrap();
        let sweep = metadata.algorithms[0].sweep.as_ref().unwrap();
        assert_eq!(
            (sweep.design.as_str(), sweep.param.as_str()),
            ("rounds-wheel", "tick")
        );
        assert_eq!(sweep.value.to_string(), "10");
        assert_eq!(sweep.value.number(), Some(10.0));
        assert!(metadata.algorithms[0].variant);
        assert!(!metadata.algorithms[1].variant);
        assert_eq!(
            metadata.algorithms[1]
                .sweep
                .as_ref()
                .unwrap()
                .value
                .number(),
            Some(100.0)
        );
        assert_eq!(
            metadata.algorithms[2]
                .sweep
                .as_ref()
                .unwrap()
                .value
                .to_string(),
            "0.5"
        );
        assert_eq!(metadata.algorithms[3].sweep, None);
    }

    #[test]
    fn bad_sweep_fields_name_the_entry_and_what_is_valid() {
        let error = metadata_with(
            r#"{"name": "a", "family": "seed", "exact": true},
               {"name": "a@t=1", "family": "seed", "exact": true, "variant": true}"#,
        )
        .unwrap_err();
        assert!(
            error.message.contains("algorithms[1] (\"a@t=1\")")
                && error.message.contains("no `sweep`"),
            "{error}"
        );
        let error = metadata_with(
            r#"{"name": "a@t=1", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "a", "param": " ", "value": 1}}"#,
        )
        .unwrap_err();
        assert!(error.message.contains("empty `sweep.param`"), "{error}");
        let error = metadata_with(
            r#"{"name": "a", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "a", "param": "t", "value": 1}}"#,
        )
        .unwrap_err();
        assert!(error.message.contains("\"a@t=1\""), "{error}");
        let error = metadata_with(
            r#"{"name": "a@t=1", "family": "seed", "exact": true, "variant": true,
                "sweep": {"design": "a", "param": "t", "value": true}}"#,
        )
        .unwrap_err();
        assert!(
            error
                .message
                .contains("`sweep.value` to be a number or a string"),
            "{error}"
        );
        assert_eq!(error.path, Path::new("metadata.json"));
    }
}
