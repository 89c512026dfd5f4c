//! What names a results file and says which layout it has: the file names,
//! the sets a command writes whole, the schema version and the two columns
//! every run file shares.
//!
//! A results directory holds one run's files (`timerbench run`), optionally
//! `timerbench counts`' pair of files, and optionally `timerbench compare
//! --save`'s `comparison.csv`, which describes the run it sits beside. Each
//! set is written whole by staging and renames (the harness's `swap` module),
//! so the names here are also the order in which the renames happen.
//!
//! [`SCHEMA_VERSION`] is the first column of every CSV row and a field of
//! both metadata files: a reader refuses a version it does not know, because
//! a column could mean something else. Bump it on any change a reader would
//! notice; adding a column at the end of a row is not one (columns are read by
//! name), changing what a column means is.

/// Version of the CSV and metadata schema; bump on any change a reader would notice.
pub const SCHEMA_VERSION: u32 = 3;

/// The column every CSV row starts with, and the metadata field of the same name.
pub const VERSION_COLUMN: &str = "schema_version";

/// The column of every run CSV, and the field of `metadata.json`, that names
/// the run a file was written by: the last column, so that columns placed by
/// position stay where they were.
pub const RUN_ID_COLUMN: &str = "run_id";

/// One row per (algorithm, workload): the cell's status, tape and counters.
pub const RUNS_FILE: &str = "runs.csv";
/// Per operation, the statistics over the repetitions.
pub const THROUGHPUT_FILE: &str = "throughput.csv";
/// Every timed repetition, raw.
pub const REPETITIONS_FILE: &str = "repetitions.csv";
/// Per-operation latency percentiles.
pub const LATENCY_FILE: &str = "latency.csv";
/// What the contract costs each native row's structure: optional for a
/// reader (a run without native rows, or one made before they existed, has
/// none).
pub const CONTRACT_COST_FILE: &str = "contract_cost.csv";
/// What the closed forms predict for the work counters (the harness's
/// `theory`): optional for a reader (a run made before predictions has none).
pub const PREDICTIONS_FILE: &str = "predictions.csv";
/// What the threaded mode measured (`timerbench run --threaded`): optional
/// for a reader (a run without `--threaded` has none). Written after the
/// run's other files, as a set of its own ([`THREADED_FILES`]).
pub const THREADED_FILE: &str = "threaded.csv";
/// Run metadata (JSON).
pub const METADATA_FILE: &str = "metadata.json";
/// `timerbench counts`: instructions, simulated cache misses and
/// mispredictions per operation; optional for a reader (most runs have none).
pub const COUNTS_FILE: &str = "counts.csv";
/// `timerbench counts`' metadata (JSON): the tool, the cache geometry, the
/// settings, and the build it counted.
pub const COUNTS_METADATA_FILE: &str = "counts.json";
/// `timerbench compare BASE NEW --save`'s file, written into NEW: each cell's
/// change against BASE, which the report draws when it is there.
pub const COMPARISON_FILE: &str = "comparison.csv";

/// The files of a run, in the order they are moved into place.
pub const RUN_FILES: [&str; 7] = [
    RUNS_FILE,
    THROUGHPUT_FILE,
    REPETITIONS_FILE,
    LATENCY_FILE,
    CONTRACT_COST_FILE,
    PREDICTIONS_FILE,
    METADATA_FILE,
];

/// Files a run makes stale, removed as part of its swap: a `comparison.csv`
/// describes the run it was made from, not the next one, and a
/// `threaded.csv` was measured by an earlier run (a run with `--threaded`
/// writes its own right after the swap).
pub const RUN_STALE_FILES: [&str; 2] = [COMPARISON_FILE, THREADED_FILE];

/// The threaded mode's file, written whole after the run's other files.
pub const THREADED_FILES: [&str; 1] = [THREADED_FILE];

/// `timerbench counts`' files, in the order they are moved into place.
pub const COUNTS_FILES: [&str; 2] = [COUNTS_FILE, COUNTS_METADATA_FILE];
