//! `runs.csv`: one row per (algorithm, workload) of a run, measured or
//! skipped. It says what the workload's tape holds (the same on every row of
//! a workload), what the algorithm's own counters saw in the measured phase,
//! and the memory it held; the timings are in the other files.
//!
//! The column order is the file's: a column is only ever added at the end
//! (before `run_id`, which is last), so that columns placed by position stay
//! where they were. A measured column is empty on a skipped row, and a counter
//! column is empty for an algorithm that counts no work ("not counted" must
//! not read as "none").

use serde::{Deserialize, Serialize};

use crate::check::{CheckRow, non_negative};

/// The `status` of a measured row.
pub const STATUS_OK: &str = "ok";
/// The `status` of a skipped row (its reason in `skip_reason`).
pub const STATUS_SKIPPED: &str = "skipped";

/// One row of `runs.csv`: one (algorithm, workload, scale). Columns no
/// reader needs (`scale`, `driver`, `params`, the tape's counts, `checksum`)
/// may be absent from a file it reads; the others must be there.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RunRow {
    /// [`crate::SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The algorithm's registry name.
    pub algorithm: String,
    /// The workload's name.
    pub workload: String,
    /// `small`, `default`, `large`, or `trace`/`spec` for user input.
    #[serde(default)]
    pub scale: String,
    /// `event` or `tick`.
    #[serde(default)]
    pub driver: String,
    /// The algorithm's parameters, e.g. `slots=512`.
    #[serde(default)]
    pub params: String,
    /// [`STATUS_OK`] or [`STATUS_SKIPPED`].
    pub status: String,
    /// Why a skipped row was skipped (empty otherwise).
    pub skip_reason: String,
    /// Operations in the measured phase: inserts, cancels and reschedules.
    #[serde(default)]
    pub measured_ops: u64,
    /// Timed repetitions of each pass.
    pub repetitions: Option<u64>,
    /// Inserts in the measured phase.
    #[serde(default)]
    pub inserts: u64,
    /// Cancels in the measured phase.
    #[serde(default)]
    pub cancels: u64,
    /// Reschedules in the measured phase.
    #[serde(default)]
    pub reschedules: u64,
    /// Cancels that found their timer pending.
    pub cancel_hits: Option<u64>,
    /// Reschedules that found their timer pending.
    pub reschedule_hits: Option<u64>,
    /// Timers fired.
    pub fired: Option<u64>,
    /// The largest number of pending timers (the reference model's on a
    /// skipped row).
    pub max_pending: u64,
    /// Advances that found something due.
    pub wakeups: Option<u64>,
    /// Advances that fired nothing.
    pub empty_wakeups: Option<u64>,
    /// Wheel slots visited.
    pub slot_visits: Option<u64>,
    /// Slot visits that fired nothing: empty ticks.
    pub empty_slot_visits: Option<u64>,
    /// Entries looked at but not due.
    pub entries_examined_not_due: Option<u64>,
    /// Entries moved from a coarser wheel level to a finer one.
    pub cascades: Option<u64>,
    /// Buckets expired whole.
    pub bucket_expirations: Option<u64>,
    /// Steps of an insert's scan for its place.
    pub insert_scan_steps: Option<u64>,
    /// Peak heap bytes held by the queue.
    pub peak_bytes: Option<u64>,
    /// Peak heap bytes over the largest pending population.
    pub bytes_per_pending: Option<f64>,
    /// Allocations in the measured phase.
    pub allocs_measured: Option<u64>,
    /// The largest lateness in ticks (0 for an exact algorithm).
    pub max_lateness_ticks: Option<u64>,
    /// The checksum of what fired, in hex (empty on a skipped row).
    #[serde(default)]
    pub checksum: String,
    /// Wall time of the cell's untimed checks, in milliseconds.
    pub wall_ms: Option<u64>,
    /// Heap bytes the queue held at the end of the measured phase (absent in
    /// files made before the memory kept after the work was recorded, like
    /// the three below).
    pub retained_bytes: Option<u64>,
    /// Timers pending then.
    pub retained_pending: Option<u64>,
    /// Heap bytes the queue held after the quiet period that follows.
    pub quiet_bytes: Option<u64>,
    /// Timers pending then.
    pub quiet_pending: Option<u64>,
    /// Steps of a reschedule's scan for the timer's new place (absent in
    /// files made before reschedule walks were counted apart from inserts',
    /// which counted them in `insert_scan_steps`).
    pub reschedule_scan_steps: Option<u64>,
    /// Batched passes of the cell (the per-kind split): the run's
    /// `batched_repetitions`, one for a heavy cell, none for a sweep point
    /// (absent in files made before it was recorded per cell).
    pub batched_repetitions: Option<u64>,
    /// The run that wrote the row (empty in files made before run ids).
    #[serde(default)]
    pub run_id: String,
}

impl RunRow {
    /// Whether the row was measured (not skipped).
    pub fn is_ok(&self) -> bool {
        self.status == STATUS_OK
    }

    /// A work counter by its column's name: `None` when the field is empty
    /// (not counted, or a skipped row) or the name is no counter's.
    pub fn counter(&self, column: &str) -> Option<u64> {
        match column {
            "slot_visits" => self.slot_visits,
            "empty_slot_visits" => self.empty_slot_visits,
            "entries_examined_not_due" => self.entries_examined_not_due,
            "cascades" => self.cascades,
            "bucket_expirations" => self.bucket_expirations,
            "insert_scan_steps" => self.insert_scan_steps,
            "reschedule_scan_steps" => self.reschedule_scan_steps,
            _ => None,
        }
    }
}

impl CheckRow for RunRow {
    fn check(&self) -> Result<(), String> {
        self.bytes_per_pending
            .map_or(Ok(()), |b| non_negative("bytes_per_pending", b))
    }
}
