//! Turning a valid spec and a seed into a tape.
//!
//! The generator runs in time order. The prefill comes first: the periodic
//! tasks, each at a uniformly random phase of its period, then the other timers,
//! drawn from the steady state (see `lifecycle.rs`), all inserted at time 0.
//! Then the measured phase: a small event queue, a `BinaryHeap` ordered by
//! (tick, sequence number), holds what is due next: the next arrival, re-arms,
//! cancels and periodic firings. Events at the same tick come out in the order
//! they were scheduled, so the tape is a pure function of the spec and the seed.
//! Nothing iterates over a hash map, and nothing reads a clock.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::Rng;

use crate::dist::open_unit;
use crate::lifecycle::{Model, Next, Path, deadline_after, next_after_arm};
use crate::spec::Spec;
use crate::streams::{self, ARRIVAL_STREAMS, PERIODIC_STREAM, PREFILL_STREAMS, Streams};
use crate::tape::{Op, Tape, Tick, TimedOp};
use crate::validate::Plan;

impl Spec {
    /// Generates the workload's operation tape for `seed`: the same spec and seed
    /// give the same tape on every platform. See the crate documentation.
    ///
    /// # Panics
    ///
    /// If the spec does not validate. Specs from [`Spec::from_toml`] and
    /// [`builtins`](crate::builtins) always do; call [`Spec::validate`] first
    /// for a spec built or changed in code.
    pub fn generate(&self, seed: u64) -> Tape {
        let plan = match self.plan_in(&self.origin()) {
            Ok(plan) => plan,
            Err(error) => panic!("Spec::generate needs a valid spec: {error}"),
        };
        match &self.ratas {
            Some(ratas) => crate::ratas::generate(&self.name, ratas, self.duration, seed),
            None => generate(self, &plan, seed),
        }
    }
}

/// Something due at a tick of the measured phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Event {
    at: Tick,
    /// Scheduling order; unique, so ties at a tick never compare `what`.
    seq: u64,
    what: What,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum What {
    /// The next arrival.
    Arrival,
    /// An idle timeout's next activity.
    Rearm { chain: u32 },
    /// A cancel that comes before the timer's deadline.
    Cancel { timer: u32 },
    /// A periodic task's firing, where it is re-inserted.
    Fire { task: u32 },
}

/// An idle timeout between re-arms.
struct Chain {
    /// The timer number: every re-arm reschedules the same timer.
    timer: u32,
    /// The delay of every arming.
    delay: Tick,
    /// The intervals between armings.
    gaps: Vec<Tick>,
    /// The index of the gap the next scheduled re-arm is followed by.
    next_gap: usize,
    cancel_after: Option<Tick>,
}

struct Generator<'a> {
    model: Model<'a>,
    duration: Tick,
    ops: Vec<TimedOp>,
    timers: u32,
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    chains: Vec<Chain>,
    periods: Vec<Tick>,
    arrivals: Streams,
    arrivals_per_tick: f64,
    /// The tick at which arrivals stop: the spec's `arrivals_until`, or its
    /// `duration`.
    arrivals_until: Tick,
    /// The continuous time of the last arrival.
    clock: f64,
}

/// Generates the tape of a valid spec. See the module documentation.
pub(crate) fn generate(spec: &Spec, plan: &Plan, seed: u64) -> Tape {
    let key = streams::key(seed, &spec.name);
    let mut generator = Generator {
        model: Model::new(spec),
        duration: spec.duration,
        // The estimate is within a few percent; the margin avoids a late doubling.
        ops: Vec::with_capacity((plan.expected_ops * 1.05) as usize + 16),
        timers: 0,
        events: BinaryHeap::new(),
        seq: 0,
        chains: Vec::new(),
        periods: Vec::new(),
        arrivals: Streams::new(&key, ARRIVAL_STREAMS),
        arrivals_per_tick: plan.arrivals_per_tick,
        arrivals_until: spec.arrival_window(),
        clock: 0.0,
    };
    generator.prefill_periodic(
        plan.periodic_tasks,
        &mut streams::stream(&key, PERIODIC_STREAM),
    );
    generator.prefill_mortal(plan.mortal, &mut Streams::new(&key, PREFILL_STREAMS));
    let prefill = generator.ops.len();
    generator.run();
    Tape {
        name: spec.name.clone(),
        ops: generator.ops,
        prefill,
        end: spec.duration,
        timers: generator.timers,
    }
}

impl Generator<'_> {
    /// Appends an insert and returns its timer number.
    fn insert(&mut self, at: Tick, deadline: i64) -> u32 {
        let timer = self.timers;
        self.timers = self
            .timers
            .checked_add(1)
            .expect("validation bounds a tape far below 2^32 timers");
        debug_assert!(deadline > at as i64, "deadline {deadline} not after {at}");
        self.ops.push(TimedOp {
            at,
            op: Op::Insert {
                timer,
                deadline: deadline as Tick,
            },
        });
        timer
    }

    fn schedule(&mut self, at: i64, what: What) {
        debug_assert!(at >= 0, "an event at {at}, before time 0");
        self.seq += 1;
        self.events.push(Reverse(Event {
            at: at as Tick,
            seq: self.seq,
            what,
        }));
    }

    /// The periodic tasks: each draws its period, and its first deadline
    /// uniformly within one period of time 0 (the phase of a task that has been
    /// running for a long time).
    fn prefill_periodic<R: Rng>(&mut self, tasks: u64, rng: &mut R) {
        for _ in 0..tasks {
            let period = self.model.draw_period(rng);
            let phase = rng.random_range(1..=period);
            let deadline = deadline_after(0, phase, self.model.granularity());
            self.insert(0, deadline);
            let task = self.periods.len() as u32;
            self.periods.push(period);
            self.schedule(deadline, What::Fire { task });
        }
    }

    /// The other timers, drawn from the steady state by rejection (see
    /// `lifecycle.rs`). Validation guarantees that at least 1% of proposals
    /// are kept.
    fn prefill_mortal(&mut self, count: u64, streams: &mut Streams) {
        let mut kept = 0;
        while kept < count {
            let (path, start) = self.model.propose(streams);
            let walk = self.model.walk(&path, start, 0);
            if let Some(alive) = walk.alive {
                let timer = self.insert(0, alive.deadline);
                self.follow(timer, path, alive.next, alive.next_gap);
                kept += 1;
            }
        }
    }

    /// Schedules what comes after the arming of `timer`.
    fn follow(&mut self, timer: u32, path: Path, next: Next, next_gap: usize) {
        match next {
            Next::Rearm(at) => {
                let chain = self.chains.len() as u32;
                self.chains.push(Chain {
                    timer,
                    delay: path.delay,
                    gaps: path.gaps,
                    next_gap,
                    cancel_after: path.cancel_after,
                });
                self.schedule(at, What::Rearm { chain });
            }
            Next::Cancel(at) => self.schedule(at, What::Cancel { timer }),
            Next::Fire => {}
        }
    }

    /// Schedules the next arrival, if it falls before arrivals stop. The stop
    /// is checked on the continuous clock, like the end, so that a spec
    /// without `arrivals_until` makes the same tape as before the field existed.
    fn schedule_arrival(&mut self) {
        if self.arrivals_per_tick <= 0.0 {
            return;
        }
        self.clock +=
            -crate::math::ln(open_unit(&mut self.arrivals.choice)) / self.arrivals_per_tick;
        if self.clock < self.arrivals_until as f64 {
            self.schedule(self.clock.floor() as i64, What::Arrival);
        }
    }

    /// The measured phase: every event before `duration`, in time order.
    fn run(&mut self) {
        self.schedule_arrival();
        while let Some(Reverse(event)) = self.events.pop() {
            if event.at >= self.duration {
                break;
            }
            let at = event.at;
            match event.what {
                What::Arrival => {
                    let path = self.model.draw_arrival(&mut self.arrivals);
                    let deadline = deadline_after(at as i64, path.delay, self.model.granularity());
                    let timer = self.insert(at, deadline);
                    let next = next_after_arm(
                        at as i64,
                        deadline,
                        path.gaps.first().copied(),
                        path.cancel_after,
                    );
                    self.follow(timer, path, next, 1);
                    self.schedule_arrival();
                }
                What::Rearm { chain } => self.rearm(at, chain),
                What::Cancel { timer } => self.ops.push(TimedOp {
                    at,
                    op: Op::Cancel { timer },
                }),
                What::Fire { task } => {
                    let deadline = deadline_after(
                        at as i64,
                        self.periods[task as usize],
                        self.model.granularity(),
                    );
                    self.insert(at, deadline);
                    self.schedule(deadline, What::Fire { task });
                }
            }
        }
    }

    /// An idle timeout's activity: reschedule the timer to its new deadline,
    /// and schedule what follows.
    fn rearm(&mut self, at: Tick, index: u32) {
        let (timer, delay) = {
            let chain = &self.chains[index as usize];
            (chain.timer, chain.delay)
        };
        let deadline = deadline_after(at as i64, delay, self.model.granularity());
        debug_assert!(deadline > at as i64, "deadline {deadline} not after {at}");
        self.ops.push(TimedOp {
            at,
            op: Op::Reschedule {
                timer,
                deadline: deadline as Tick,
            },
        });
        let chain = &mut self.chains[index as usize];
        let gap = chain.gaps.get(chain.next_gap).copied();
        match next_after_arm(at as i64, deadline, gap, chain.cancel_after) {
            Next::Rearm(next) => {
                chain.next_gap += 1;
                self.schedule(next, What::Rearm { chain: index });
            }
            Next::Cancel(next) => {
                chain.gaps = Vec::new();
                self.schedule(next, What::Cancel { timer });
            }
            Next::Fire => chain.gaps = Vec::new(),
        }
    }
}
