//! Workloads: seeded descriptions of timer traffic, turned into operation tapes
//! before anything is measured.
//!
//! A [`Spec`] describes traffic: how many timers are pending, how they arrive,
//! their delays, how many are cancelled, re-armed or periodic. [`Spec::generate`]
//! turns it and a seed into a [`Tape`], the complete list of inserts, cancels and reschedules
//! with the tick of each. The harness replays the same tape against every
//! algorithm, so they all do exactly the same work, and no random number is drawn
//! while the clock runs. A recorded trace ([`load_trace`]) is a tape too.
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
mod generate;
mod input;
mod lifecycle;
mod math;
mod ratas;
pub mod readme;
mod shape;
mod spec;
mod streams;
mod trace;
mod validate;

use std::fmt;
use std::str::FromStr;

pub use builtin::builtins;
pub use dist::{Distribution, Part};
pub use error::WorkloadError;
pub use input::{MAX_SPEC_BYTES, MAX_TAPE_OPS, MAX_TRACE_LINE_BYTES};
pub use ratas::{MAX_PAIRS, MIN_PAIRS, Ratas, TICKS_PER_SECOND as RATAS_TICKS_PER_SECOND};
pub use shape::{Delays, Shape};
pub use spec::{BOM, Cancel, Periodic, Rearm, Spec, check_name, decode_text};
pub use trace::load_trace;
pub use validate::load_spec;

/// Virtual time in integer ticks; one tick is one millisecond by convention.
pub type Tick = u64;

/// No deadline or time is beyond this: 2^62 ticks, about 146 million years at
/// 1 ms. It equals the algorithms' `MAX_DEADLINE`; generated deadlines are
/// clamped to it.
pub const MAX_TIME: Tick = 1 << 62;

/// The seed `timerbench run` uses unless told otherwise, and the one the
/// README's table of built-in shapes is generated with. Nothing up our
/// sleeves: the first hex digits of pi's fractional part.
pub const DEFAULT_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// The version of the generator's behaviour. It is bumped whenever the same spec
/// and seed would produce a different tape, and it is written into results so
/// that tapes are compared only with tapes of the same version.
pub const GENERATOR_VERSION: u32 = 2;

/// The size of the built-in suite. See [`builtins`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scale {
    /// About a tenth of the default: a CI smoke run in under a minute.
    Small,
    /// The suite that `make results` runs, in about five minutes on two cores.
    #[default]
    Default,
    /// About ten times the default, with a scaling point at 10^7 timers.
    Large,
}

impl Scale {
    /// Every scale, smallest first.
    pub const ALL: [Scale; 3] = [Scale::Small, Scale::Default, Scale::Large];

    /// The scale's name: `small`, `default` or `large`.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Small => "small",
            Scale::Default => "default",
            Scale::Large => "large",
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scale {
    type Err = WorkloadError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scale::ALL
            .into_iter()
            .find(|scale| scale.name() == s)
            .ok_or_else(|| WorkloadError::UnknownScale {
                given: s.to_owned(),
            })
    }
}

/// One operation of a tape and the tick it happens at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimedOp {
    /// The driver first advances the queue to `at` (firing everything due by
    /// then), then applies `op`.
    pub at: Tick,
    /// The operation.
    pub op: Op,
}

/// An operation on a timer queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Insert timer number `timer` with an absolute `deadline` (at most
    /// [`MAX_TIME`]). Inserts number their timers densely from 0, in tape order,
    /// so a driver can keep its handles in a `Vec` indexed by `timer` and use the
    /// number as the payload.
    Insert {
        /// The timer's number: the count of inserts before this one.
        timer: u32,
        /// When the timer is due.
        deadline: Tick,
    },
    /// Cancel timer number `timer`, inserted earlier on the tape. The timer may
    /// already have fired or been cancelled (only traces do that; generated
    /// tapes cancel only pending timers): the queue then answers `None`, which
    /// is legal and deterministic.
    Cancel {
        /// The number of the timer's insert.
        timer: u32,
    },
    /// Move timer number `timer`, inserted earlier on the tape, to a new absolute
    /// `deadline` (an idle timeout pushed back by activity). The timer keeps its
    /// number. Generated tapes reschedule only pending timers; a trace may name
    /// one that already fired or was cancelled, and the queue then answers
    /// `None` and nothing changes.
    Reschedule {
        /// The number of the timer's insert.
        timer: u32,
        /// The new deadline.
        deadline: Tick,
    },
}

/// A complete operation sequence: what the harness replays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tape {
    /// The workload's name (a trace's file stem).
    pub name: String,
    /// The operations, in non-decreasing `at` order.
    pub ops: Vec<TimedOp>,
    /// `ops[..prefill]` build the initial population: all inserts at `at = 0`,
    /// not measured. 0 for a trace.
    pub prefill: usize,
    /// After the last operation the driver advances to `end`: the spec's
    /// `duration`, or a trace's last `at`.
    pub end: Tick,
    /// The number of inserts.
    pub timers: u32,
}

impl Tape {
    /// Checks the tape's invariants: times never decrease and stay within
    /// `end`; the prefill is inserts at time 0; timers are numbered densely in
    /// insert order and cancels name earlier inserts; deadlines are at most
    /// [`MAX_TIME`]; `timers` counts the inserts. Tapes from this crate always
    /// pass; this is for tests and for tapes built elsewhere.
    ///
    /// # Errors
    ///
    /// A description of the first violation, with the operation's index.
    pub fn check(&self) -> Result<(), String> {
        if self.prefill > self.ops.len() {
            return Err(format!(
                "prefill {} exceeds the {} operations",
                self.prefill,
                self.ops.len()
            ));
        }
        if self.end > MAX_TIME {
            return Err(format!("end {} is beyond MAX_TIME", self.end));
        }
        let mut inserted: u32 = 0;
        let mut previous = 0;
        for (i, op) in self.ops.iter().enumerate() {
            if op.at < previous {
                return Err(format!(
                    "op {i}: at {} is before the previous op's {previous}",
                    op.at
                ));
            }
            if op.at > self.end {
                return Err(format!(
                    "op {i}: at {} is after the end, {}",
                    op.at, self.end
                ));
            }
            previous = op.at;
            match op.op {
                Op::Insert { timer, deadline } => {
                    if timer != inserted {
                        return Err(format!(
                            "op {i}: insert numbers timer {timer}, expected {inserted}"
                        ));
                    }
                    if deadline > MAX_TIME {
                        return Err(format!("op {i}: deadline {deadline} is beyond MAX_TIME"));
                    }
                    inserted += 1;
                }
                Op::Cancel { timer } => {
                    if i < self.prefill {
                        return Err(format!("op {i}: a cancel in the prefill"));
                    }
                    if timer >= inserted {
                        return Err(format!("op {i}: cancel of timer {timer}, not yet inserted"));
                    }
                }
                Op::Reschedule { timer, deadline } => {
                    if i < self.prefill {
                        return Err(format!("op {i}: a reschedule in the prefill"));
                    }
                    if timer >= inserted {
                        return Err(format!(
                            "op {i}: reschedule of timer {timer}, not yet inserted"
                        ));
                    }
                    if deadline > MAX_TIME {
                        return Err(format!("op {i}: deadline {deadline} is beyond MAX_TIME"));
                    }
                }
            }
            if i < self.prefill && op.at != 0 {
                return Err(format!("op {i}: prefill op at {}, not 0", op.at));
            }
        }
        if inserted != self.timers {
            return Err(format!("{inserted} inserts, but timers = {}", self.timers));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_parse_and_print() {
        for scale in Scale::ALL {
            assert_eq!(scale.to_string().parse::<Scale>().unwrap(), scale);
        }
        let error = "huge".parse::<Scale>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown scale \"huge\"; valid scales are: small, default, large"
        );
    }

    #[test]
    fn check_finds_broken_tapes() {
        let insert = |at, timer, deadline| TimedOp {
            at,
            op: Op::Insert { timer, deadline },
        };
        let good = Tape {
            name: "t".into(),
            ops: vec![
                insert(0, 0, 5),
                insert(0, 1, 9),
                TimedOp {
                    at: 3,
                    op: Op::Cancel { timer: 0 },
                },
            ],
            prefill: 2,
            end: 10,
            timers: 2,
        };
        good.check().unwrap();
        let mut bad = good.clone();
        bad.ops[2].at = 11;
        assert!(bad.check().unwrap_err().contains("after the end"));
        let mut bad = good.clone();
        bad.ops[1] = insert(0, 2, 9);
        assert!(bad.check().unwrap_err().contains("expected 1"));
        let mut bad = good.clone();
        bad.ops[2].op = Op::Cancel { timer: 2 };
        assert!(bad.check().unwrap_err().contains("not yet inserted"));
        let mut bad = good.clone();
        bad.ops[2].op = Op::Reschedule {
            timer: 2,
            deadline: 4,
        };
        assert!(bad.check().unwrap_err().contains("not yet inserted"));
        let mut bad = good.clone();
        bad.ops[1].op = Op::Reschedule {
            timer: 0,
            deadline: 4,
        };
        assert!(bad.check().unwrap_err().contains("in the prefill"));
        let mut bad = good.clone();
        bad.timers = 3;
        assert!(bad.check().unwrap_err().contains("timers = 3"));
        let mut bad = good;
        bad.prefill = 3;
        assert!(bad.check().unwrap_err().contains("cancel in the prefill"));
    }
}
