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

use algorithms::{Expired, Handle, Payload, Tick, TimerQueue};

use super::duty::DutyLog;
use super::pace::{self, Pace};
use super::producer::Front;
use super::script::slot;

/// A producer's own queue, the handles of its timers, and its duty's log.
pub struct ShardedFront<Q> {
    queue: Q,
    handles: Vec<Option<Handle>>,
    producers: usize,
    pace: Pace,
    end: Tick,
    out: Vec<Expired<Payload>>,
    /// What this producer's timer duty did.
    pub log: DutyLog,
}

impl<Q: TimerQueue<Payload>> ShardedFront<Q> {
    /// A producer's shard: `queue`, for one of `producers` producers of a
    /// tape of `timers` timers, run until tick `end`.
    pub fn new(queue: Q, producers: usize, timers: u32, end: Tick) -> Self {
        Self {
            queue,
            handles: vec![None; slot(timers, producers) + 1],
            producers,
            // Replaced by the run's clock when it starts (`Front::start`).
            pace: Pace::new(Instant::now(), 1),
            end,
            out: Vec::new(),
            log: DutyLog::default(),
        }
    }

    /// The timers its queue holds.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Advances the queue to the wall clock's tick if its next expiry has
    /// come (or `force`), recording what fired.
    fn duty(&mut self, force: bool) {
        let tick = self.pace.tick_now().min(self.end);
        let due = self.queue.next_expiry().is_some_and(|next| next <= tick);
        if due || force {
            self.queue.advance(tick, &mut self.out);
            self.log
                .batch(tick, &self.pace, &mut self.out, |p| u32::try_from(p).ok());
        }
    }
}

impl<Q: TimerQueue<Payload>> Front for ShardedFront<Q> {
    fn insert(&mut self, timer: u32, deadline: Tick) {
        let handle = self.queue.insert(deadline, Payload::from(timer));
        self.handles[slot(timer, self.producers)] = Some(handle);
    }

    fn cancel(&mut self, timer: u32) -> bool {
        self.handles[slot(timer, self.producers)]
            .take()
            .is_some_and(|handle| self.queue.cancel(handle).is_some())
    }

    fn reschedule(&mut self, timer: u32, deadline: Tick) -> bool {
        let entry = &mut self.handles[slot(timer, self.producers)];
        let Some(handle) = *entry else {
            return false;
        };
        *entry = self.queue.reschedule(handle, deadline);
        entry.is_some()
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
