//! What `timerbench run --threaded` covers when not told, and why.
//!
//! A threaded run takes real time: its window of virtual time divided by the
//! speed-up, whatever the machine. The defaults keep the threaded part of a
//! default run (`make results`) to about two minutes on a two-core machine:
//!
//! * every contract row of the registry (each exact design, the three
//!   inexact ones, the baselines and the crates); native rows and sweep
//!   points are not run threaded;
//! * two workloads: `timeouts` (an RPC client's request timeouts, ten
//!   thousand pending, nearly all cancelled soon: the producers' side is
//!   busy) and `kafka-purgatory` (Kafka's own purgatory benchmark, a few
//!   timers pending: the timer thread's wakeups dominate);
//! * P = 1 and 2 producers (the machine has two cores; the flag takes any
//!   count, and scaling beyond the cores needs a larger machine), the three
//!   sharings, two repetitions;
//! * ten times faster than real time ([`DEFAULT_SPEEDUP`], as the issue that
//!   asked for the mode allows), over the first 2,000 ticks (2 s of virtual
//!   time, 0.2 s of wall time; [`DEFAULT_WINDOW`]).
//!
//! That is 19 rows x 3 sharings x 2 producer counts, less the two crates that
//! are not `Send` under `locked`: 110 cells per workload and repetition, 440
//! in all, about 0.2 s each plus the prefill, some 90 to 120 s, and before a
//! workload's cells, untimed, the reference model's replay of its tape (and
//! each inexact row's own) that admits the rows as the single-threaded
//! passes do. A workload or
//! algorithm named on the command line runs instead of these. The saturating
//! variant (producers as fast as they can, `--saturate`) is not part of the
//! default: it replaces the paced run rather than adding to it, and takes as
//! long, since the timers still fire at their deadlines' instants.

use algorithms::Tick;

/// How many times faster than real time a threaded run replays its tape.
pub const DEFAULT_SPEEDUP: u64 = 10;

/// The last tick a threaded run replays, by default: 2 s of virtual time.
pub const DEFAULT_WINDOW: Tick = 2_000;

/// Repetitions of each threaded cell, by default.
pub const DEFAULT_REPEAT: u32 = 2;

/// Producer thread counts, by default: the two this machine's cores allow.
pub const DEFAULT_PRODUCERS: [u32; 2] = [1, 2];

/// The most producer threads a cell may have: far beyond any core count the
/// suite runs on, and a bound on the threads a typo could start.
pub const MAX_PRODUCERS: u32 = 256;

/// The most a tape may be sped up: a tick is then a microsecond.
pub const MAX_SPEEDUP: u64 = 1_000;

/// The workloads a threaded run replays when none was named.
pub const DEFAULT_WORKLOADS: [&str; 2] = ["timeouts", "kafka-purgatory"];
