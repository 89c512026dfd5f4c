//! The measuring side of timerbench: replaying operation tapes against the
//! registered algorithms and turning what happened into result rows.
//!
//! The `timerbench` binary (`src/main.rs`) is a thin command line over this
//! library; the benches reuse the same replay engine. Architecture invariant: the
//! algorithms never read a clock, and only [`passes`], [`clock`] and the
//! threaded mode ([`threaded`], which runs against the wall clock) here do.
//!
//! * [`replay`]: the drivers (event, tick) and the one replay loop every pass runs.
//! * [`passes`]: the verification, throughput and latency passes as hooks.
//! * [`bench`](mod@bench): the reference run and the three passes per (algorithm, workload).
//! * [`plan`]: the seeded interleaved order of a workload's passes.
//! * [`select`]: command-line names and files to a validated selection.
//! * [`output`]: the aggregation into result rows (the `schema` crate's), the checks before a run.
//! * [`swap`]: a set of files written whole or not at all (staged, then renamed).
//! * [`metadata`]: the run metadata, with [`real_traces`], its entries of the real kernel traces.
//! * [`stats`]: medians, their intervals, ratio intervals.
//! * [`alloc`]: the counting global allocator (installed by the binary).
//! * [`clock`]: the clock floor and clock source.
//! * [`memory`]: the memory latency probe (the cost of a cache miss by buffer size).
//! * [`threaded`]: the threaded mode: producer threads, a timer thread, three sharings.
//!
//! The commands, one module each, called by the binary with a config built
//! by [`cli`] and returning a [`failure::Failure`]: [`run`], [`list`],
//! [`plain`] (crosscheck), [`counts_command`] (over [`counts`]) and
//! [`judge`] (compare: two sets of runs, two rows of a run, a row against
//! its rivals, over [`recorded`], a recorded run's whole passes), with
//! [`summary`] the terminal summary of a run; [`docs`] is the binary's `docs`
//! command's.

pub mod alloc;
pub mod bench;
pub mod child;
pub mod cli;
pub mod clock;
pub mod closest;
pub mod counts;
pub mod counts_command;
pub mod dir_lock;
pub mod docs;
pub mod failure;
#[cfg(test)]
mod fixture;
pub mod headline;
pub mod judge;
pub mod list;
pub mod memory;
pub mod metadata;
pub mod output;
pub mod passes;
pub mod plain;
pub mod plan;
pub mod real_traces;
pub mod recorded;
pub mod replay;
pub mod run;
pub mod sampled;
pub mod select;
pub mod stats;
pub mod summary;
pub mod swap;
pub mod theory;
pub mod threaded;
pub mod wrap;

/// The default seed of `timerbench run` and of the micro-benchmarks. Nothing up
/// our sleeves: the first hex digits of pi's fractional part. It is the
/// workloads crate's, so that the README's table of built-in shapes, which
/// that crate tests, is made from the tapes a default run replays.
pub const DEFAULT_SEED: u64 = workloads::DEFAULT_SEED;
