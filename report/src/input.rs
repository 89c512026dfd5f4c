//! Reading a results directory, through the `schema` crate: the one reader
//! of a recorded run that the harness's judging commands use too. It opens
//! `runs.csv`, `throughput.csv`, `repetitions.csv`, `latency.csv`,
//! `metadata.json` and the optional files, checks their schema version and
//! that they come from one run, and turns every problem into an
//! [`InputError`] that names the file, the line, what was wrong and what is
//! valid.
//!
//! This module only gives the report's modules the schema's names; the rules
//! are written in `harness/schema/`.

pub use schema::{
    AlgorithmEntry, ClockFloor, ComparisonRow, ContractCostRow, CountRow, CountsBuild, InputError,
    LatencyRow, MemoryLatency, Metadata, ParamValue, PredictionRow, RealTraceEntry, RepetitionRow,
    ReplayOverhead, Results, RunRow, Statistics, SweepPoint, SystemEntry, TapeShape, ThreadedRow,
    ThreadedSettings, ThroughputRow, VERDICTS, parse_csv, parse_metadata, read_predictions,
    read_results,
};
