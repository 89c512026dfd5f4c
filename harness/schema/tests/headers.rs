//! Every row type's header is the header of the committed reference run's
//! file, column for column: the writer and every reader share these types, so
//! this is what keeps a run's files in the layout `results/README.md`
//! describes (and a new column where it belongs, at the end).

use std::path::Path;

use serde::Serialize;

use schema::{
    COMPARISON_FILE, CONTRACT_COST_FILE, COUNTS_FILE, ComparisonRow, ContractCostRow, CountRow,
    LATENCY_FILE, LatencyRow, REPETITIONS_FILE, RUNS_FILE, RepetitionRow, RunRow, THROUGHPUT_FILE,
    ThroughputRow,
};

/// The header line a writer of `T` rows writes.
fn header_of<T: Serialize + Default>() -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.serialize(T::default()).unwrap();
    let bytes = writer.into_inner().unwrap();
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned()
}

/// The header line of the committed reference run's file `name`.
fn committed_header(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../results")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines().next().unwrap().to_owned()
}

/// Columns added at the end (before `run_id`) since the committed reference
/// run was made, by file: the writer's header is the committed one with
/// these. Empty once the reference run is made again.
const ADDED_SINCE_REFERENCE: &[(&str, &str)] = &[];

/// `header` without the columns added since the reference run to `name`.
fn without_added(name: &str, header: &str) -> String {
    header
        .split(',')
        .filter(|column| !ADDED_SINCE_REFERENCE.contains(&(name, column)))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn added_columns_sit_before_run_id() {
    let header = header_of::<RunRow>();
    let columns: Vec<&str> = header.split(',').collect();
    for &(name, added) in ADDED_SINCE_REFERENCE {
        assert_eq!(name, RUNS_FILE, "only runs.csv has added columns");
        let at = columns.iter().position(|c| *c == added).unwrap();
        assert_eq!(columns[at + 1..].last(), Some(&"run_id"), "{added}");
    }
}

#[test]
fn every_row_type_writes_the_reference_runs_header() {
    for (name, header) in [
        (RUNS_FILE, header_of::<RunRow>()),
        (THROUGHPUT_FILE, header_of::<ThroughputRow>()),
        (REPETITIONS_FILE, header_of::<RepetitionRow>()),
        (LATENCY_FILE, header_of::<LatencyRow>()),
        (CONTRACT_COST_FILE, header_of::<ContractCostRow>()),
        (COUNTS_FILE, header_of::<CountRow>()),
    ] {
        let committed = committed_header(name);
        if header != committed {
            assert_eq!(without_added(name, &header), committed, "{name}");
        }
    }
}

/// The reference run has no comparison; its header is the one
/// `results/README.md` documents.
#[test]
fn the_comparison_header_is_the_documented_one() {
    assert_eq!(
        header_of::<ComparisonRow>(),
        "schema_version,base,workload,algorithm,base_ns,new_ns,ratio,ratio_ci_low,\
         ratio_ci_high,verdict,noise,normalised,shift,run_id",
        "{COMPARISON_FILE}"
    );
}

/// The one reader accepts the committed reference run whole.
#[test]
fn the_reference_run_reads_whole() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../results");
    let results = schema::read_results(&dir).unwrap();
    assert!(!results.runs.is_empty());
    assert_eq!(
        results.metadata.workloads.len(),
        results
            .runs
            .iter()
            .map(|r| &r.workload)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
}
