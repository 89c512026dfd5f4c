//! What `timerbench run --threaded` covers when not told, and why.
//!
//! A threaded run takes real time: its window of virtual time divided by the
//! speed-up, whatever the machine. The defaults keep the threaded part of a
//! default run (`make results`) to about two and a half minutes on a
//! two-core machine, within the three its issue allows, with every cell
//! repeated the suite's minimum of times for an interval:
//!
//! * every row of the registry but the sweep points and the adapters of the
//!   crates that also run natively: each exact design, the three inexact
//!   ones, the baselines and their `-plain` rows, and each crate through its
//!   own API (its `-native` row stands for it, as in the single-threaded
//!   rankings; an adapter runs threaded when named);
//! * two workloads: `timeouts` (an RPC client's request timeouts, ten
//!   thousand pending, nearly all cancelled soon: the producers' side is
//!   busy) and `kafka-purgatory` (Kafka's own purgatory benchmark, a few
//!   timers pending: the timer thread's wakeups dominate);
//! * P = 1 and 2 producers (the machine has two cores; the flag takes any
//!   count, and scaling beyond the cores needs a larger machine), the three
//!   sharings, six repetitions ([`DEFAULT_REPEAT`], `schema::MIN_REPETITIONS`:
//!   fewer give a median without an interval);
//! * twenty times faster than real time ([`DEFAULT_SPEEDUP`]; the issue that
//!   asked for the mode allows a time-scaled replay when the report says so),
//!   over the first 2,000 ticks (2 s of virtual time, 0.1 s of wall time;
//!   [`DEFAULT_WINDOW`]).
//!
//! The window cannot be shorter: `zookeeper-expiry` rounds every deadline
//! up to a multiple of 2,000 ticks, so a shorter window would see it fire
//! nothing, and its lateness is what the threaded mode shows best. The speed
//! is what gives way instead: at 20x a tick lasts 50 us of wall time, about
//! the operating system's own wake-up delay on these machines, which is the
//! same for every design and is reported in wall nanoseconds beside each
//! design's own lateness (a 100-tick slot is then up to 5 ms late).
//!
//! That is 21 rows x 3 sharings x 2 producer counts, less the two crates that
//! are not `Send` under `locked`: 122 cells per workload and repetition,
//! 1,464 in all, about 0.1 s each plus the prefill, some 150 to 170 s, and
//! before a workload's cells, untimed, the reference model's replay of its
//! tape (and each inexact row's own) that admits the rows as the
//! single-threaded passes do. A workload or
//! algorithm named on the command line runs instead of these. The saturating
//! variant (producers as fast as they can, `--saturate`) is not part of the
//! default: it replaces the paced run rather than adding to it, and takes as
//! long, since the timers still fire at their deadlines' instants.

use algorithms::Tick;

/// How many times faster than real time a threaded run replays its tape.
pub const DEFAULT_SPEEDUP: u64 = 20;

/// The last tick a threaded run replays, by default: 2 s of virtual time.
pub const DEFAULT_WINDOW: Tick = 2_000;

/// Repetitions of each threaded cell, by default: the suite's minimum for
/// an interval of a median.
pub const DEFAULT_REPEAT: u32 = schema::MIN_REPETITIONS as u32;

/// Producer thread counts, by default: the two this machine's cores allow.
pub const DEFAULT_PRODUCERS: [u32; 2] = [1, 2];

/// The most producer threads a cell may have: far beyond any core count the
/// suite runs on, and a bound on the threads a typo could start.
pub const MAX_PRODUCERS: u32 = 256;

/// The most a tape may be sped up: a tick is then a microsecond.
pub const MAX_SPEEDUP: u64 = 1_000;

/// The workloads a threaded run replays when none was named.
pub const DEFAULT_WORKLOADS: [&str; 2] = ["timeouts", "kafka-purgatory"];
