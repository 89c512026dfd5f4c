//! `handoff`: the timer thread owns the queue, and producers hand it their
//! operations through a multi-producer queue, as Netty's `HashedWheelTimer`
//! does (`newTimeout` pushes into `timeouts`, `cancel` into
//! `cancelledTimeouts`, and the worker drains both at each tick).
//!
//! # The handle
//!
//! A producer cannot wait for the timer thread to give it the queue's
//! `Handle`. Netty's answer is that the `Timeout` object is the handle: it
//! carries an atomic state (`INIT`, `CANCELLED`, `EXPIRED`) that the caller's
//! `cancel` and the worker's `expire` both compare-and-set. Here the timer's
//! number plays the `Timeout`'s part: the producer keeps an atomic word per
//! timer (a generation and a state), and the timer thread keeps the map from
//! number to the queue's key (`Driven::Key`: the contract's handle, or a
//! crate's own key for a native row) and the generation that key's entry was
//! armed in. Netty has no reschedule (a user cancels and makes a new
//! timeout), so a reschedule is one here too: it bumps the generation, and
//! the timer thread cancels the old entry and arms a new one. An entry of an
//! earlier generation that fires before the timer thread drained the
//! reschedule fails its compare-and-set (the word holds the new generation)
//! and is dropped. The queue holds at most one entry per timer, so the
//! generation a firing entry was armed in is the one the timer thread
//! recorded, and its payload is the timer's number alone, as a native row's
//! keys require.
//!
//! # Cancel-versus-fire contract
//!
//! Netty's: whoever moves the state word out of pending first wins. A cancel
//! that wins returns `true` at once, before the timer thread has removed the
//! entry, and the timer never fires (the entry, if it comes out first, fails
//! its compare-and-set and is dropped). A cancel that loses returns `false`:
//! the timer has fired. A reschedule that wins returns `true` and the timer
//! fires at the new deadline only.
//!
//! # Wakeups
//!
//! The timer thread drains up to [`MAX_TRANSFER`] requests (Netty's
//! 100,000 per tick), advances, then sleeps until the queue's next expiry
//! (the next tick for a ticked wheel, which is Netty's own loop), publishing
//! that tick in `wake_at`; requests that arrive while it plans are applied
//! before it sleeps (earlier than Netty, which leaves them to the next tick;
//! the work is the same, and no timer fires sooner for it). A producer that hands over a timer that may be due
//! earlier rings a bell (a one-slot channel) so the thread replans; a timer
//! that a coarse wheel would fire at a later boundary anyway rings nothing,
//! as Netty's producers never wake its worker. Lost wakeups are ruled
//! out by a store-fence-load on each side: the timer thread stores `wake_at`
//! and then looks at the request queue; a producer sends and then loads
//! `wake_at`, so one of them sees the other's write.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, fence};
use std::time::Instant;

use algorithms::driven::{self, Driven};
use algorithms::{Algorithm, Expired, Payload, Tick};
use crossbeam_channel::{Receiver, Sender};

use super::duty::{CpuSpan, DutyLog};
use super::locked::FINISH_POLL;
use super::pace::{self, StartGate};
use super::producer::Front;

/// The most requests the timer thread drains at one wakeup: Netty's bound on
/// the timeouts moved into buckets per tick.
pub const MAX_TRANSFER: usize = 100_000;

/// A timer's state word: pending.
const PENDING: u64 = 0;
/// A timer's state word: a cancel won.
const CANCELLED: u64 = 1;
/// A timer's state word: it fired.
const FIRED: u64 = 2;
/// The bits of a state word that hold the state; the rest is the generation.
const STATE_BITS: u32 = 2;

/// A state word: `generation` and `state`.
fn word(generation: u64, state: u64) -> u64 {
    (generation << STATE_BITS) | state
}

/// A state word's generation and state.
fn parts(word: u64) -> (u64, u64) {
    (word >> STATE_BITS, word & ((1 << STATE_BITS) - 1))
}

/// What a producer hands the timer thread.
#[derive(Clone, Copy, Debug)]
enum Request {
    /// Arm `timer` at `deadline` in generation `generation`.
    Arm {
        timer: u32,
        deadline: Tick,
        generation: u64,
    },
    /// Remove `timer`'s entry (its cancel won).
    Remove { timer: u32 },
}

/// What producers and the timer thread share.
pub struct Board {
    /// Each timer's state word, by number.
    states: Vec<AtomicU64>,
    /// The tick the timer thread sleeps until.
    wake_at: AtomicU64,
    producers_left: AtomicUsize,
}

/// The channels and shared state of one run.
pub struct Handoff {
    board: Arc<Board>,
    requests: (Sender<Request>, Receiver<Request>),
    bell: (Sender<()>, Receiver<()>),
}

impl Handoff {
    /// The shared state for `producers` producers of a tape of `timers` timers.
    pub fn new(producers: usize, timers: u32) -> Self {
        Self {
            board: Arc::new(Board {
                states: (0..timers)
                    .map(|_| AtomicU64::new(word(0, PENDING)))
                    .collect(),
                wake_at: AtomicU64::new(Tick::MAX),
                producers_left: AtomicUsize::new(producers),
            }),
            requests: crossbeam_channel::unbounded(),
            bell: crossbeam_channel::bounded(1),
        }
    }

    /// A producer's side, for a queue of type `Q`.
    pub fn front<Q: Algorithm>(&self) -> HandoffFront {
        HandoffFront {
            board: Arc::clone(&self.board),
            requests: self.requests.0.clone(),
            bell: self.bell.0.clone(),
            soonest: soonest::<Q>,
            finished: false,
        }
    }
}

/// The soonest tick at which `Q` fires a timer with `deadline`: its due tick
/// when armed one tick before the deadline (the deadline itself for an exact
/// design, the slot's boundary for a coarse wheel). A producer does not know
/// the tick the timer thread will arm it at, and a later one never makes a
/// design fire sooner.
fn soonest<Q: Algorithm>(deadline: Tick) -> Tick {
    Q::due_at(deadline.saturating_sub(1), deadline)
}

/// A producer's side: the state words and the two channels' senders.
pub struct HandoffFront {
    board: Arc<Board>,
    requests: Sender<Request>,
    bell: Sender<()>,
    /// [`soonest`] for the run's queue type.
    soonest: fn(Tick) -> Tick,
    /// Whether this producer has told the timer thread it is done.
    finished: bool,
}

impl HandoffFront {
    /// Hands `request` over, and rings if a timer with `deadline` may be due
    /// before the timer thread's planned wakeup.
    fn hand(&self, request: Request, deadline: Option<Tick>) {
        self.requests
            .send(request)
            .expect("the timer thread outlives the producers");
        if let Some(deadline) = deadline {
            let due = (self.soonest)(deadline);
            fence(Ordering::SeqCst);
            if due < self.board.wake_at.load(Ordering::SeqCst) {
                self.board.wake_at.fetch_min(due, Ordering::SeqCst);
                self.ring();
            }
        }
    }

    /// Rings the bell. A full bell has already rung; a bell without a
    /// receiver (only while a panicking run unwinds) has nobody to wake.
    fn ring(&self) {
        let _ = self.bell.try_send(());
    }
}

impl Front for HandoffFront {
    fn insert(&mut self, timer: u32, deadline: Tick) {
        self.board.states[timer as usize].store(word(0, PENDING), Ordering::Release);
        let request = Request::Arm {
            timer,
            deadline,
            generation: 0,
        };
        self.hand(request, Some(deadline));
    }

    fn cancel(&mut self, timer: u32) -> bool {
        let state = &self.board.states[timer as usize];
        let mut current = state.load(Ordering::Acquire);
        loop {
            let (generation, now) = parts(current);
            if now != PENDING {
                return false;
            }
            match state.compare_exchange_weak(
                current,
                word(generation, CANCELLED),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(seen) => current = seen,
            }
        }
        self.hand(Request::Remove { timer }, None);
        true
    }

    fn reschedule(&mut self, timer: u32, deadline: Tick) -> bool {
        let state = &self.board.states[timer as usize];
        let mut current = state.load(Ordering::Acquire);
        let generation = loop {
            let (generation, now) = parts(current);
            if now != PENDING {
                return false;
            }
            match state.compare_exchange_weak(
                current,
                word(generation + 1, PENDING),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break generation + 1,
                Err(seen) => current = seen,
            }
        };
        let request = Request::Arm {
            timer,
            deadline,
            generation,
        };
        self.hand(request, Some(deadline));
        true
    }

    fn wait(&mut self, until: Instant) {
        pace::sleep_until(until);
    }

    fn finish(&mut self) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        if self.board.producers_left.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.ring();
        }
    }
}

impl Drop for HandoffFront {
    /// A producer that unwinds still counts itself out, so the timer thread
    /// ends and the run reports the panic instead of waiting forever.
    fn drop(&mut self) {
        self.finish();
    }
}

/// The timer thread: builds its queue with `build` and owns it; at each
/// wakeup drains the requests, advances to the wall clock's tick (never past
/// `end`) and fires; returns the log and the timers left in the queue after
/// the advance to `end` that follows the last producer's finish.
pub fn timer_thread<Q: Driven>(
    handoff: &Handoff,
    build: impl FnOnce() -> Q,
    gate: &StartGate,
    end: Tick,
) -> (DutyLog, usize) {
    let cpu = CpuSpan::start();
    let mut queue = build();
    let pace = &gate.pass();
    let board = &*handoff.board;
    let requests = &handoff.requests.1;
    let mut armed = Armed::new::<Q>(board.states.len());
    let mut log = DutyLog::default();
    let mut out: Vec<Expired<Payload>> = Vec::new();
    loop {
        let finished = board.producers_left.load(Ordering::Acquire) == 0;
        for request in requests.try_iter().take(MAX_TRANSFER) {
            armed.apply(&mut queue, request);
        }
        let tick = pace.tick_now().min(end);
        queue.advance(tick, &mut armed.keys, &mut out);
        log.batch(tick, pace, &mut out, |payload| {
            let timer = u32::try_from(payload).ok()?;
            let generation = armed.generations[timer as usize];
            board.states[timer as usize]
                .compare_exchange(
                    word(generation, PENDING),
                    word(generation, FIRED),
                    Ordering::AcqRel,
                    Ordering::Acquire,
                )
                .ok()
                .map(|_| timer)
        });
        if tick >= end && finished && requests.is_empty() {
            break;
        }
        // Plan the sleep. A request handed over after the drain above, by a
        // producer that read the previous plan, may be due sooner than the
        // new one: it is seen here (store, fence, look) and applied before
        // the thread sleeps, without waking it again.
        let next = loop {
            let next = if tick >= end {
                Tick::MAX
            } else {
                queue.next_expiry().map_or(end, |next| next.min(end))
            };
            board.wake_at.store(next, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if requests.is_empty() {
                break next;
            }
            for request in requests.try_iter().take(MAX_TRANSFER) {
                armed.apply(&mut queue, request);
            }
        };
        let until = if tick >= end {
            Instant::now() + FINISH_POLL
        } else {
            pace.instant(next)
        };
        let _ = handoff.bell.1.recv_deadline(until);
    }
    log.cpu_ns = cpu.end();
    let queued = queue.len();
    queue.release(&mut armed.keys);
    (log, queued)
}

/// The timer thread's record of each timer: the queue's key for it and the
/// generation its entry was armed in, by number.
struct Armed<K> {
    keys: Vec<K>,
    generations: Vec<u64>,
}

impl<K> Armed<K> {
    /// The record of `timers` timers, none armed.
    fn new<Q: Driven<Key = K>>(timers: usize) -> Self {
        Self {
            keys: driven::vacant_keys::<Q>(timers),
            generations: vec![0; timers],
        }
    }

    /// Applies one request to `queue`, which the timer thread owns.
    fn apply<Q: Driven<Key = K>>(&mut self, queue: &mut Q, request: Request) {
        match request {
            Request::Arm {
                timer,
                deadline,
                generation,
            } => {
                let key = &mut self.keys[timer as usize];
                // A reschedule's earlier entry is still queued unless it fired
                // (a cancel of a fired timer's key misses and changes nothing).
                if generation > 0 {
                    queue.cancel(key, Payload::from(timer));
                }
                *key = queue.insert(deadline, Payload::from(timer));
                self.generations[timer as usize] = generation;
            }
            Request::Remove { timer } => {
                queue.cancel(&mut self.keys[timer as usize], Payload::from(timer));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_word_carries_its_generation_and_state() {
        assert_eq!(parts(word(5, CANCELLED)), (5, CANCELLED));
        assert_eq!(parts(word(0, PENDING)), (0, PENDING));
        assert_eq!(parts(word(1 << 40, FIRED)), (1 << 40, FIRED));
    }

    #[test]
    fn a_rescheduled_timer_has_one_entry_armed_in_its_latest_generation() {
        let mut queue = algorithms::binary_heap::IndexedBinaryHeap::<Payload>::with_defaults();
        let mut armed = Armed::new::<algorithms::binary_heap::IndexedBinaryHeap<Payload>>(2);
        let arm = |timer, deadline, generation| Request::Arm {
            timer,
            deadline,
            generation,
        };
        armed.apply(&mut queue, arm(1, 10, 0));
        armed.apply(&mut queue, arm(1, 20, 1));
        assert_eq!(
            (
                algorithms::driven::Driven::len(&queue),
                armed.generations[1]
            ),
            (1, 1)
        );
        armed.apply(&mut queue, Request::Remove { timer: 1 });
        assert_eq!(algorithms::driven::Driven::len(&queue), 0);
        // A vacant key cancels nothing.
        armed.apply(&mut queue, Request::Remove { timer: 0 });
        assert_eq!(algorithms::driven::Driven::len(&queue), 0);
    }
}
