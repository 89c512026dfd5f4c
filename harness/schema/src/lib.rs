//! The result files of timerbench, owned in one place: what each file is
//! called, which columns its rows have and in which order, which schema
//! version it carries, how a set of files is known to be one run, and the one
//! reader that turns a results directory into checked rows.
//!
//! **Why a crate of its own.** Three parties touch the files: the harness
//! writes them, the harness's judging commands (`compare`, `agreement`,
//! `lead`, `paired`) read them back, and the report draws them. When each
//! spelled the columns for itself, a column added by the writer could be
//! missed by one reader and caught by another, and the run-id rule was
//! written twice, word for word. Here a row type is written once, deriving
//! both `Serialize` (the writer's) and `Deserialize` (every reader's), so the
//! header a run writes and the header a reader expects cannot drift apart: a
//! test holds every row type's header to the committed reference run's.
//!
//! **What it depends on.** serde, csv, serde_json and statrs (the binomial
//! tail of [`interval`], the one median interval every reader and the
//! harness use) only: no algorithm and no workload. The report depends on this crate and not on the harness, so
//! it links no measured code and reports algorithms it has never heard of.
//!
//! **Invariants.**
//! * Every CSV row starts with [`SCHEMA_VERSION`] and every metadata file
//!   carries it; a reader refuses another version, because a column could
//!   mean something else. Columns are read by name, so a column added at
//!   the end of a row needs no bump; a change of meaning does.
//! * Every row of a run ends with its [`RUN_ID_COLUMN`], and `metadata.json`
//!   carries it; files naming different runs are refused ([`mixed_runs`]).
//! * A column no reader needs may be absent from a file a reader reads (it
//!   reads as empty or zero); a column a reader needs must be there.
//! * Every problem is an [`InputError`] that names the file, the line, the
//!   column and the value where there are some, and what is valid.
//!
//! **Cost.** Reading is one pass over each file's text with serde; the
//! reference run (about 3.5 MB of CSV) reads in well under a second. The
//! reader reads every file of a run even when its caller needs one, so that
//! every caller gets the whole run checked.
//!
//! Modules: [`files`] (names, version, sets), [`error`], [`check`] (checks
//! beyond parsing), a module per file's row type ([`runs`], [`throughput`],
//! [`repetitions`], [`latency`], [`contract_cost`], [`predictions`],
//! [`threaded`], [`counts`], [`comparison`]), [`metadata`] (with
//! [`real_traces`], its entries of the real traces), [`interval`] (a
//! median and its interval), [`parse`] (one file's text into rows),
//! [`consistency`] (the checks across a run's files), [`interrupted`] (a swap
//! a writer did not finish),
//! [`run_ids`] (the one-run rule) and [`reader`] (the whole directory).

pub mod check;
pub mod comparison;
pub mod consistency;
pub mod contract_cost;
pub mod counts;
pub mod error;
pub mod files;
pub mod interrupted;
pub mod interval;
pub mod latency;
pub mod metadata;
pub mod parse;
pub mod predictions;
pub mod reader;
pub mod real_traces;
pub mod repetitions;
pub mod run_ids;
pub mod runs;
pub mod threaded;
pub mod throughput;

/// The fewest repetitions (or pairs of runs) that give an interval, a tie or a
/// verdict, the same everywhere a figure is judged: the run's intervals and
/// ties, the threaded figures, the report and `timerbench compare`.
///
/// It is the smallest count whose distribution-free interval of a median
/// reaches 95% coverage: with `n` values, the smallest and the largest
/// cover `1 - 2 / 2^n`, which is 93.8% at five and 96.9% at six. Below it a
/// figure is printed as its median alone, and the text says why; a min..max
/// at a lower coverage would read as an interval it is not.
pub const MIN_REPETITIONS: usize = 6;

pub use check::CheckRow;
pub use comparison::{ComparisonRow, VERDICTS};
pub use contract_cost::ContractCostRow;
pub use counts::{CountRow, CountsBuild};
pub use error::InputError;
pub use files::{
    COMPARISON_FILE, CONTRACT_COST_FILE, COUNTS_FILE, COUNTS_FILES, COUNTS_METADATA_FILE,
    LATENCY_FILE, METADATA_FILE, PREDICTIONS_FILE, REPETITIONS_FILE, RUN_FILES, RUN_ID_COLUMN,
    RUN_STALE_FILES, RUNS_FILE, SCHEMA_VERSION, THREADED_FILE, THREADED_FILES, THROUGHPUT_FILE,
    VERSION_COLUMN,
};
pub use interrupted::{PREVIOUS_DIR, STAGING_PREFIX, previous_sets, restore_hint};
pub use latency::LatencyRow;
pub use metadata::{
    AlgorithmEntry, ClockFloor, MemoryLatency, Metadata, ParamValue, ReplayOverhead, Statistics,
    SweepPoint, SystemEntry, ThreadedSettings, parse_counts_build, parse_metadata,
    read_counts_build, read_metadata,
};
pub use parse::{parse_csv, parse_csv_lined, read_csv, read_csv_lined, read_optional_csv};
pub use predictions::PredictionRow;
pub use reader::{Results, RunFiles, read_predictions, read_results};
pub use real_traces::{RealTraceEntry, TapeShape};
pub use repetitions::{PASS_WHOLE, RepetitionRow};
pub use run_ids::mixed_runs;
pub use runs::{RunRow, STATUS_OK, STATUS_SKIPPED};
pub use threaded::ThreadedRow;
pub use throughput::{OPERATION_ALL, ThroughputRow};
