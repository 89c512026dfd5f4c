//! The wall clock a threaded run keeps: virtual ticks mapped onto `Instant`s,
//! sped up by a constant factor.
//!
//! A tick is one millisecond of virtual time. At speed-up `s`, tick `t` falls
//! `t * 1 ms / s` after the run's start, so a tape of 75,000 ticks (75 s)
//! replayed ten times faster takes 7.5 s. Every thread of a run shares one
//! [`Pace`]: producers wait for their operations' instants, the timer thread
//! for its queue's next expiry, and both read the current tick from it.
//!
//! The clock starts once every thread is ready and every producer has
//! issued its share of the tape's prefill (a [`StartGate`]), so that arming
//! a large initial population is not charged as lateness to what follows.
//!
//! The invariant that keeps a threaded run from firing early: [`Pace::tick_now`]
//! rounds down, so whenever it reads `t`, the wall clock has passed
//! [`Pace::nanos`]`(t)`, the instant of tick `t`. A queue advanced to a tick
//! read here therefore fires nothing before its deadline's instant.

use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

use algorithms::Tick;

/// Nanoseconds of wall time in one tick when nothing is sped up (1 ms).
pub const NANOS_PER_TICK: u64 = 1_000_000;

/// The furthest a run looks ahead when it sleeps: a deadline beyond this is
/// waited for this long at a time (a day; no run lasts that long, and the
/// figure keeps `Instant` arithmetic far from overflow).
const LONGEST_WAIT: Duration = Duration::from_secs(86_400);

/// A run's start instant and speed-up: ticks to instants and back.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    start: Instant,
    speedup: u64,
}

impl Pace {
    /// A clock whose tick 0 is `start`, running `speedup` times faster than
    /// real time (`speedup >= 1`).
    pub fn new(start: Instant, speedup: u64) -> Self {
        debug_assert!(speedup >= 1, "a speed-up of {speedup}");
        Self {
            start,
            speedup: speedup.max(1),
        }
    }

    /// Wall nanoseconds from the start to tick `tick`, saturating.
    pub fn nanos(&self, tick: Tick) -> u64 {
        tick_nanos(tick, self.speedup)
    }

    /// The instant of tick `tick`, at most [`LONGEST_WAIT`] from now.
    pub fn instant(&self, tick: Tick) -> Instant {
        let at = Duration::from_nanos(self.nanos(tick));
        let far = self.start.elapsed() + LONGEST_WAIT;
        self.start + at.min(far)
    }

    /// Wall nanoseconds since the start, saturating.
    pub fn elapsed_nanos(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The tick the wall clock has reached, rounded down.
    pub fn tick_now(&self) -> Tick {
        nanos_tick(self.elapsed_nanos(), self.speedup)
    }
}

/// Where a run's threads wait for each other before the clock starts.
pub struct StartGate {
    barrier: Barrier,
    start: OnceLock<Instant>,
    speedup: u64,
}

impl StartGate {
    /// A gate for `threads` threads of a run at `speedup`.
    pub fn new(threads: usize, speedup: u64) -> Self {
        Self {
            barrier: Barrier::new(threads),
            start: OnceLock::new(),
            speedup,
        }
    }

    /// Waits for every thread, then returns the run's clock, started when
    /// the last one arrived.
    pub fn pass(&self) -> Pace {
        if self.barrier.wait().is_leader() {
            let _ = self.start.set(Instant::now());
        }
        self.barrier.wait();
        let start = *self
            .start
            .get()
            .expect("the leader set it before the second wait");
        Pace::new(start, self.speedup)
    }
}

/// Wall nanoseconds of `tick` ticks at `speedup`, rounded down and saturating.
pub fn tick_nanos(tick: Tick, speedup: u64) -> u64 {
    let nanos = u128::from(tick) * u128::from(NANOS_PER_TICK) / u128::from(speedup.max(1));
    u64::try_from(nanos).unwrap_or(u64::MAX)
}

/// The last tick whose instant is at or before `nanos` at `speedup`.
pub fn nanos_tick(nanos: u64, speedup: u64) -> Tick {
    let tick = u128::from(nanos) * u128::from(speedup.max(1)) / u128::from(NANOS_PER_TICK);
    u64::try_from(tick).unwrap_or(u64::MAX)
}

/// Sleeps until `deadline` (returns at once if it has passed).
pub fn sleep_until(deadline: Instant) {
    let now = Instant::now();
    if deadline > now {
        std::thread::sleep(deadline - now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_read_from_the_clock_has_always_passed_its_instant() {
        for speedup in [1, 3, 7, 10, 1_000] {
            for nanos in (0..5_000_000).step_by(99_991) {
                let tick = nanos_tick(nanos, speedup);
                assert!(
                    tick_nanos(tick, speedup) <= nanos,
                    "{nanos} ns at {speedup}x"
                );
                assert!(
                    tick_nanos(tick + 1, speedup) > nanos,
                    "{nanos} ns at {speedup}x"
                );
            }
        }
    }

    #[test]
    fn every_thread_through_a_gate_gets_the_same_clock() {
        let gate = StartGate::new(3, 10);
        let starts: Vec<Instant> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..3).map(|_| scope.spawn(|| gate.pass().start)).collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(starts.iter().all(|start| *start == starts[0]));
    }

    #[test]
    fn ten_times_faster_makes_a_tick_a_tenth_of_a_millisecond() {
        assert_eq!(tick_nanos(75_000, 10), 7_500_000_000);
        assert_eq!(tick_nanos(u64::MAX, 1), u64::MAX);
    }
}
