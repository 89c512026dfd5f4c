//! `locked`: one queue behind one lock, taken by every producer for each
//! operation and by the timer thread for each advance, as Kafka's
//! `SystemTimer` and the JDK's `ScheduledThreadPoolExecutor` do.
//!
//! The lock also guards the callers' record of their timers, a key per timer
//! (`Driven::Key`: the contract's handle, or a crate's own key for a native
//! row), as a server keeps a timer's key in the connection record it locks:
//! an advance that fires a timer may consume its key (a crate whose handle
//! must be freed), so a key is read and written only under the lock.
//!
//! The timer thread holds the lock while it advances and records what fired,
//! then sleeps on a condition variable until the queue's next expiry (the
//! next tick for a ticked wheel). It publishes the tick it sleeps until
//! (`Board::wake_at`); a producer that arms a timer due earlier than that, under
//! the same lock, lowers it and signals the condition variable, as the
//! JDK's `DelayedWorkQueue` signals its leader when a new task becomes the
//! head. Both sides read and write `wake_at` under the lock, so no signal is
//! lost between the timer thread's planning and its sleep.
//!
//! Cancel-versus-fire contract: the lock orders them. A cancel that takes the
//! lock before the advance that would fire the timer returns `true` and the
//! timer never fires; one that takes it after returns `false` (the contract's
//! `None` for a timer that is no longer pending). A reschedule likewise.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use algorithms::driven::{self, Driven};
use algorithms::{Algorithm, Expired, Payload, Tick};
use parking_lot::{Condvar, Mutex};

use super::duty::{CpuSpan, DutyLog};
use super::pace::{self, StartGate};
use super::producer::Front;

/// How long the timer thread waits for the last producers once the run's end
/// has passed (they signal when done, so this only bounds a missed signal).
pub const FINISH_POLL: Duration = Duration::from_millis(1);

/// What the lock guards: the queue, every timer's key, and the timer
/// thread's planned wakeup.
struct Board<Q: Driven> {
    queue: Q,
    /// Each timer's key, by number ([`Driven::vacant_key`] before it is armed).
    keys: Vec<Q::Key>,
    /// The tick the timer thread sleeps until; a producer arming an earlier
    /// timer lowers it and signals.
    wake_at: Tick,
}

/// The queue, its lock and condition variable, and the producers still
/// running.
pub struct Shared<Q: Driven> {
    board: Mutex<Board<Q>>,
    bell: Condvar,
    producers_left: AtomicUsize,
}

impl<Q: Driven> Shared<Q> {
    /// `queue` shared by `producers` producers of a tape of `timers` timers.
    pub fn new(queue: Q, producers: usize, timers: u32) -> Arc<Self> {
        Arc::new(Self {
            board: Mutex::new(Board {
                queue,
                keys: driven::vacant_keys::<Q>(timers as usize),
                wake_at: Tick::MAX,
            }),
            bell: Condvar::new(),
            producers_left: AtomicUsize::new(producers),
        })
    }

    /// The timers the queue holds once the run is over; the keys of those
    /// still pending are given back to the queue (`Driven::release`).
    pub fn close(&self) -> usize {
        let mut board = self.board.lock();
        let Board { queue, keys, .. } = &mut *board;
        let queued = queue.len();
        queue.release(keys);
        queued
    }
}

/// A producer's side: the shared queue.
pub struct LockedFront<Q: Driven> {
    shared: Arc<Shared<Q>>,
    /// Whether this producer has told the timer thread it is done.
    finished: bool,
}

impl<Q: Algorithm + Driven> LockedFront<Q> {
    /// A front on `shared`.
    pub fn new(shared: Arc<Shared<Q>>) -> Self {
        Self {
            shared,
            finished: false,
        }
    }

    /// Under the lock: if a timer armed now with `deadline` is due before
    /// the timer thread's planned wakeup, lowers it; says whether to signal.
    /// The due tick, not the deadline: a coarse wheel fires a timer at its
    /// slot's boundary whenever it is signalled, so a signal before then
    /// would only wake the thread for nothing.
    fn sooner(board: &mut Board<Q>, deadline: Tick) -> bool {
        let due = Q::due_at(board.queue.now(), deadline);
        let sooner = due < board.wake_at;
        if sooner {
            board.wake_at = due;
        }
        sooner
    }
}

impl<Q: Algorithm + Driven> Front for LockedFront<Q> {
    fn insert(&mut self, timer: u32, deadline: Tick) {
        let ring = {
            let mut board = self.shared.board.lock();
            let key = board.queue.insert(deadline, Payload::from(timer));
            board.keys[timer as usize] = key;
            Self::sooner(&mut board, deadline)
        };
        if ring {
            self.shared.bell.notify_one();
        }
    }

    fn cancel(&mut self, timer: u32) -> bool {
        let mut board = self.shared.board.lock();
        let Board { queue, keys, .. } = &mut *board;
        queue.cancel(&mut keys[timer as usize], Payload::from(timer))
    }

    fn reschedule(&mut self, timer: u32, deadline: Tick) -> bool {
        let (moved, ring) = {
            let mut board = self.shared.board.lock();
            let Board { queue, keys, .. } = &mut *board;
            let moved = queue.reschedule(&mut keys[timer as usize], Payload::from(timer), deadline);
            let ring = moved && Self::sooner(&mut board, deadline);
            (moved, ring)
        };
        if ring {
            self.shared.bell.notify_one();
        }
        moved
    }

    fn wait(&mut self, until: Instant) {
        pace::sleep_until(until);
    }

    fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        if self.shared.producers_left.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last producer wakes the timer thread for the final advance.
            let _board = self.shared.board.lock();
            self.shared.bell.notify_one();
        }
    }
}

impl<Q: Driven> Drop for LockedFront<Q> {
    /// A producer that unwinds (a queue that panicked) still counts itself
    /// out, so the timer thread ends and the run reports the panic instead
    /// of waiting for it forever.
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            self.shared.producers_left.fetch_sub(1, Ordering::AcqRel);
            self.shared.bell.notify_one();
        }
    }
}

/// The timer thread: advances the queue to the wall clock's tick (never past
/// `end`), records what fired, sleeps until the next expiry or a producer's
/// signal; returns after the advance to `end` that follows the last
/// producer's finish.
pub fn timer_thread<Q: Driven>(shared: &Shared<Q>, gate: &StartGate, end: Tick) -> DutyLog {
    let cpu = CpuSpan::start();
    let pace = &gate.pass();
    let mut log = DutyLog::default();
    let mut out: Vec<Expired<Payload>> = Vec::new();
    let mut board = shared.board.lock();
    loop {
        let finished = shared.producers_left.load(Ordering::Acquire) == 0;
        let tick = pace.tick_now().min(end);
        let Board { queue, keys, .. } = &mut *board;
        queue.advance(tick, keys, &mut out);
        log.batch(tick, pace, &mut out, |payload| u32::try_from(payload).ok());
        if tick >= end {
            if finished {
                break;
            }
            board.wake_at = Tick::MAX;
            shared.bell.wait_for(&mut board, FINISH_POLL);
            continue;
        }
        let next = board.queue.next_expiry().map_or(end, |next| next.min(end));
        board.wake_at = next;
        shared.bell.wait_until(&mut board, pace.instant(next));
    }
    drop(board);
    log.cpu_ns = cpu.end();
    log
}
