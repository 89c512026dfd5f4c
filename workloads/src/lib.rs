//! Workloads: seeded descriptions of timer traffic, turned into operation tapes
//! before anything is measured.
//!
//! A [`Spec`] describes traffic: how many timers are pending, how they arrive,
//! their delays, how many are cancelled, re-armed or periodic. [`Spec::generate`]
//! turns it and a seed into a [`Tape`], the complete list of inserts, cancels and reschedules
//! with the tick of each. The harness replays the same tape against every
//! algorithm, so they all do exactly the same work, and no random number is drawn
//! while the clock runs. A recorded trace ([`load_trace`]) is a tape too,
//! and so is a capture of the Linux kernel's own timer events
//! ([`import_ftrace`]); [`write_trace`] saves any tape as a trace file.
//! [`Shape::of`] measures a tape (operations, cancels, reschedules, delay
//! percentiles, peak pending); the README's table of built-ins shows it.
//! Architecture invariant: this crate knows no algorithm; it does not depend on
//! the `algorithms` crate.
//!
//! # Determinism
//!
//! The same spec and seed give the same tape on every platform and every run:
//!
//! * Random numbers come from `ChaCha8Rng`, keyed with the seed and a hash of the
//!   workload's name, one stream per kind of choice (`streams.rs`). Adding or
//!   renaming a workload never changes another's tape.
//! * Sampling uses only correctly rounded arithmetic and a portable logarithm
//!   and exponential (`math.rs`), never the platform's `ln`, `exp` or `powf`.
//! * Generation runs in time order from a heap keyed by (tick, sequence number);
//!   nothing iterates a hash map or reads a clock.
//!
//! [`GENERATOR_VERSION`] names the generator's behaviour; a golden test pins a
//! tape's operations, so a change that alters tapes cannot go unnoticed.
//!
//! # Time 0 looks like the steady state
//!
//! The prefill is not `pending` fresh timers. A queue that has run for a while
//! holds mostly long-lived timers, each part-way through its life; fresh timers
//! would all expire one delay later in an artificial wave. The prefill is drawn
//! from the stationary state instead: each timer's lifecycle with probability
//! proportional to its length, at a uniformly random age within it. Without an
//! explicit rate, arrivals follow Little's law so the population stays near
//! `pending`. The method is explained in `lifecycle.rs`.
//!
//! # Scales
//!
//! [`builtins`] returns the built-in workloads at a [`Scale`]: the shipped
//! `specs/*.toml` files are the default scale; `small` and `large` multiply one
//! size knob of each by 1/10 or 10 (see `builtin.rs`).
//!
//! # Example
//!
//! ```
//! use workloads::{Op, Scale};
//!
//! let uniform = workloads::builtins(Scale::Small).into_iter().next().unwrap();
//! assert_eq!(uniform.name(), "uniform");
//! let tape = uniform.generate(42);
//! assert_eq!(tape, uniform.generate(42));
//! let inserts = tape.ops.iter().filter(|o| matches!(o.op, Op::Insert { .. })).count();
//! assert_eq!(inserts, tape.timers as usize);
//! ```

mod builtin;
mod dist;
mod error;
mod ftrace;
mod ftrace_line;
mod generate;
mod input;
mod lifecycle;
mod math;
mod ratas;
pub mod readme;
mod real;
mod scale;
mod shape;
mod spec;
mod spec_error;
mod spec_help;
mod streams;
mod tape;
mod text;
mod trace;
mod trace_write;
mod validate;

pub use builtin::builtins;
pub use dist::{Distribution, Part};
pub use error::WorkloadError;
pub use ftrace::{
    FtraceImport, FtraceOptions, FtraceSummary, HRTIMER_TICK_NS, HZ_CHOICES, KernelTimerStart,
    KernelTimers, MIN_HZ_SPAN_NS, OTHER_CLOCK_NS, REARM_WINDOW_NS, import_ftrace,
    kernel_timer_starts, parse_ftrace,
};
pub use ftrace_line::TimerFlags;
pub use input::BOM;
pub use input::{MAX_SPEC_BYTES, MAX_TAPE_OPS, MAX_TRACE_LINE_BYTES, read_text_file};
pub use ratas::{MAX_PAIRS, MIN_PAIRS, Ratas, TICKS_PER_SECOND as RATAS_TICKS_PER_SECOND};
pub use real::{REAL_PREFIX, REAL_SOURCE, REAL_TRACES, RealTrace, real_trace};
pub use scale::Scale;
pub use shape::{Delays, Shape};
pub use spec::{Cancel, Periodic, Rearm, Spec, check_name, decode_text};
pub use tape::{MAX_TIME, Op, Tape, Tick, TimedOp};
pub use trace::load_trace;
pub use trace_write::write_trace;
pub use validate::load_spec;

/// The seed `timerbench run` uses unless told otherwise, and the one the
/// README's table of built-in shapes is generated with. Nothing up our
/// sleeves: the first hex digits of pi's fractional part.
pub const DEFAULT_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// The version of the generator's behaviour. It is bumped whenever the same spec
/// and seed would produce a different tape, and it is written into results so
/// that tapes are compared only with tapes of the same version.
pub const GENERATOR_VERSION: u32 = 2;
