//! `sharded`: one queue per producer thread, which that thread advances
//! itself, as the Go runtime keeps a timer heap per P and Linux a wheel per
//! CPU. There is no timer thread, no lock and no hand-off: between two of its
//! operations a producer sleeps until the earlier of its next operation's
//! instant and its queue's next expiry, and on waking advances its queue to
//! the wall clock's tick (never past the run's end) if anything may be due.
//! When its script is done it keeps firing until the end.
//!
//! Cancel-versus-fire contract: one thread does both, so there is no race. A
//! cancel issued after the advance that fired the timer returns `false`; one
//! issued before returns `true`. Which comes first depends only on when the
//! producer woke: an operation due at the same tick as a deadline finds the
//! timer fired when the producer's wakeup advanced first, as in the replay's
//! virtual time (advance to the operation's tick, then the operation).

use std::time::Instant;

use algorithms::driven::{self, Driven};
use algorithms::{Expired, Payload, Tick};

use super::duty::DutyLog;
use super::pace::{self, Pace};
use super::producer::Front;

/// A producer's own queue, the keys of its timers, and its duty's log.
pub struct ShardedFront<Q: Driven> {
    queue: Q,
    /// A key per timer of the tape, by number (the queue's advance is handed
    /// them all, as the replay's is; only this producer's are ever armed).
    keys: Vec<Q::Key>,
    pace: Pace,
    end: Tick,
    out: Vec<Expired<Payload>>,
    /// What this producer's timer duty did.
    pub log: DutyLog,
}

impl<Q: Driven> ShardedFront<Q> {
    /// A producer's shard: `queue`, for a tape of `timers` timers, run until
    /// tick `end`.
    pub fn new(queue: Q, timers: u32, end: Tick) -> Self {
        Self {
            queue,
            keys: driven::vacant_keys::<Q>(timers as usize),
            // Replaced by the run's clock when it starts (`Front::start`).
            pace: Pace::new(Instant::now(), 1),
            end,
            out: Vec::new(),
            log: DutyLog::default(),
        }
    }

    /// The timers its queue holds once the run is over; the keys of those
    /// still pending are given back to the queue (`Driven::release`).
    pub fn close(&mut self) -> usize {
        let queued = self.queue.len();
        self.queue.release(&mut self.keys);
        queued
    }

    /// Advances the queue to the wall clock's tick if its next expiry has
    /// come (or `force`), recording what fired.
    fn duty(&mut self, force: bool) {
        let tick = self.pace.tick_now().min(self.end);
        let due = self.queue.next_expiry().is_some_and(|next| next <= tick);
        if due || force {
            self.queue.advance(tick, &mut self.keys, &mut self.out);
            self.log
                .batch(tick, &self.pace, &mut self.out, |p| u32::try_from(p).ok());
        }
    }
}

impl<Q: Driven> Front for ShardedFront<Q> {
    fn insert(&mut self, timer: u32, deadline: Tick) {
        self.keys[timer as usize] = self.queue.insert(deadline, Payload::from(timer));
    }

    fn cancel(&mut self, timer: u32) -> bool {
        self.queue
            .cancel(&mut self.keys[timer as usize], Payload::from(timer))
    }

    fn reschedule(&mut self, timer: u32, deadline: Tick) -> bool {
        self.queue.reschedule(
            &mut self.keys[timer as usize],
            Payload::from(timer),
            deadline,
        )
    }

    fn start(&mut self, pace: Pace) {
        self.pace = pace;
    }

    fn wait(&mut self, until: Instant) {
        loop {
            self.duty(false);
            if Instant::now() >= until {
                return;
            }
            let next = self.queue.next_expiry().map_or(until, |next| {
                self.pace.instant(next.min(self.end)).min(until)
            });
            pace::sleep_until(next);
        }
    }

    fn finish(&mut self) {
        self.wait(self.pace.instant(self.end));
        self.duty(true);
    }
}
