//! ratas's benchmark as a workload: client/server pairs of units, each unit
//! holding five timers, driven as the benchmark's own event loop drives them.
//!
//! # The source
//!
//! ratas (Juho Snellman, `github.com/jsnell/ratas`, read at ratas commit becd5fc)
//! ships a benchmark, `src/test/test_benchmark.cc`, that replays the timers of
//! a network server: pairs of *units*, a client and a server, created evenly
//! over the first second, each unit holding five timers.
//!
//! * **idle**: re-armed by every message a unit sends or receives, with
//!   `schedule_in_range(60 s, 61 s)`, which leaves the timer alone while it is
//!   already due within that range; it fires only for a unit that has been
//!   idle for a minute (which none is).
//! * **pace**: a response of 128 messages goes out one message per 10 ticks;
//!   after each message the pace timer is armed for 10 ticks, and it always
//!   fires.
//! * **request**: when a response is complete the client arms its next
//!   request a second (plus 0 to 99 ticks of jitter) later; it always fires.
//! * **request deadline**: armed with 4 response-times when a request goes
//!   out, moved to 2 response-times at the first message of the response, and
//!   always cancelled when the response is complete.
//! * **close**: armed for 180 s when the unit starts; the first firing stops new
//!   requests and re-arms it for 10 s, the second deletes the unit, which
//!   cancels whatever timers it still holds.
//!
//! Its clock ticks every 20 µs (50,000 ticks a second) and it runs for 300 s.
//! Everything here is the benchmark's logic and constants; what differs:
//!
//! * The random draws (how many pairs each tick of the first second creates, a
//!   client's request jitter) come from this crate's seeded streams, not C's
//!   `rand()`; as in ratas, the first second creates `pairs` pairs or one
//!   fewer (see [`MIN_PAIRS`]).
//! * Timers due at the same tick all fire before any of their callbacks runs
//!   (the order the harness replays a tape in: an advance fires what is due,
//!   then the tick's operations follow), and the callbacks run in the order
//!   their timers were armed. ratas runs each callback as its timer comes out
//!   of the slot, so a callback could cancel a timer due in the same tick
//!   before it fires; in this benchmark no callback touches another unit's
//!   timers, and a unit's own timers due at the same tick do not interact.
//! * ratas's `schedule` on a timer that is pending moves it (a reschedule
//!   here); on one that is not (never armed, fired or cancelled) it arms it
//!   again, which on the tape is an insert of a new timer. A cancel of a timer
//!   that is not pending is a no-op in ratas and writes nothing here.
//!
//! # Cost
//!
//! One pass over the events in time order with a binary heap of armed timers:
//! O(ops log pending). About 140 operations a second per pair while the pairs
//! talk (for 180 s): 128 pace timers, the request, its deadline armed, moved
//! and cancelled, and about seven idle re-arms.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::streams::{self, RATAS_STREAM};
use crate::tape::{Op, Tape, Tick, TimedOp};

/// Ticks in a second of the benchmark: its ticks are 20 µs.
pub const TICKS_PER_SECOND: Tick = 50_000;

/// Messages in a response.
const RESPONSE_SIZE: u32 = 128;

/// Ticks between two messages of a response: the pace timer's delay.
const PACE_INTERVAL: Tick = 10;

/// A request's first deadline: four response-times.
const REQUEST_DEADLINE: Tick = PACE_INTERVAL * RESPONSE_SIZE as Tick * 4;

/// The deadline once the response has begun: two response-times.
const RESPONSE_DEADLINE: Tick = PACE_INTERVAL * RESPONSE_SIZE as Tick * 2;

/// The idle timer's range: it is due between 60 and 61 s after the last
/// activity.
const IDLE_RANGE: (Tick, Tick) = (60 * TICKS_PER_SECOND, 61 * TICKS_PER_SECOND);

/// A unit starts closing this long after it starts...
const CLOSE_AFTER: Tick = 180 * TICKS_PER_SECOND;

/// ...and is deleted this long after that.
const CLOSE_GRACE: Tick = 10 * TICKS_PER_SECOND;

/// The pairs are created over the first second.
const CREATE_PERIOD: Tick = TICKS_PER_SECOND;

/// A client's request interval is a second plus a jitter below this.
const REQUEST_JITTER: Tick = 100;

/// The level width of ratas's wheel (256 slots), which `schedule_in_range`
/// uses to pick a delay with as many low bits clear as the range allows.
const WIDTH_BITS: u32 = 8;

/// About how many operations a pair makes per second while it talks: the
/// estimate behind [`expected_ops`]; `tests/builtins.rs` holds it to the tape.
const OPS_PER_PAIR_SECOND: f64 = 150.0;

/// The fewest pairs a spec may ask for. ratas's creation rule adds `pairs`
/// times a uniform draw's share each tick and creates a pair each time the
/// sum passes 1, so the first second creates `pairs` or one fewer (the sum
/// ends within a few thousandths of `pairs`): with 1, half the seeds would
/// create none.
pub const MIN_PAIRS: u32 = 2;

/// The most pairs a spec may ask for: 10^5 pairs make about 3 x 10^9
/// operations in a full run, past any tape's budget, so the operation
/// estimate refuses a long run of them first.
pub const MAX_PAIRS: u32 = 100_000;

/// `[ratas]`: the workload is ratas's benchmark with `pairs` client/server
/// pairs (its `BENCH_PAIR_COUNT`, 5 by default there). See the module
/// documentation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ratas {
    /// Client/server pairs created over the first second, `pairs` or one
    /// fewer: [`MIN_PAIRS`] to [`MAX_PAIRS`].
    pub pairs: u32,
}

/// The operations a run of `duration` ticks with `pairs` pairs is expected
/// to hold: the pairs talk until they close, 180 s after they start.
pub(crate) fn expected_ops(pairs: u32, duration: Tick) -> f64 {
    let talking = duration.min(CLOSE_AFTER + CREATE_PERIOD) as f64 / TICKS_PER_SECOND as f64;
    f64::from(pairs) * OPS_PER_PAIR_SECOND * talking.max(1.0)
}

/// The delay `schedule_in_range(start, end)` arms a timer with: `end` with as
/// many whole 8-bit digits cleared as keeps it within `[start, end]` (ratas's
/// rule, so that the timer lands in a coarse slot and is not cascaded).
fn in_range_delay(start: Tick, end: Tick) -> Tick {
    debug_assert!(start < end);
    let mut mask = Tick::MAX;
    while start & mask != end & mask {
        mask <<= WIDTH_BITS;
    }
    end & (mask >> WIDTH_BITS)
}

/// The five timers of a unit, in the order ratas's destructor cancels them
/// (the reverse of their declaration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    RequestDeadline,
    Request,
    Pace,
    Close,
    Idle,
}

const KINDS: [Kind; 5] = [
    Kind::RequestDeadline,
    Kind::Request,
    Kind::Pace,
    Kind::Close,
    Kind::Idle,
];

/// A pending timer: its number on the tape and its deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Armed {
    timer: u32,
    deadline: Tick,
}

/// One endpoint: ratas's `Unit`.
#[derive(Debug)]
struct Unit {
    other: usize,
    alive: bool,
    tx_count: u32,
    rx_count: u32,
    pace_quota: u32,
    request_interval: Tick,
    closing: bool,
    waiting_for_response: bool,
    timers: [Option<Armed>; 5],
}

/// An armed timer in the time-ordered queue: stale once its unit's timer of
/// that kind is no longer this one.
type Due = Reverse<(Tick, u64, usize, Kind, u32)>;

/// The simulation: the units, the queue of their armed timers and the tape
/// being written.
struct Bench {
    units: Vec<Unit>,
    due: BinaryHeap<Due>,
    seq: u64,
    ops: Vec<TimedOp>,
    timers: u32,
    now: Tick,
}

/// Generates the tape of ratas's benchmark with `ratas.pairs` pairs, running
/// for `duration` ticks, for `seed`. See the module documentation.
pub(crate) fn generate(name: &str, ratas: &Ratas, duration: Tick, seed: u64) -> Tape {
    let mut rng = streams::stream(&streams::key(seed, name), RATAS_STREAM);
    let mut bench = Bench {
        units: Vec::new(),
        due: BinaryHeap::new(),
        seq: 0,
        ops: Vec::with_capacity(expected_ops(ratas.pairs, duration) as usize + 16),
        timers: 0,
        now: 0,
    };
    // ratas draws `rand() * per_iter / RAND_MAX` a tick: a uniform share of
    // twice the mean rate, so that `pairs` pairs arrive over the period.
    let per_tick = 2.0 * f64::from(ratas.pairs) / CREATE_PERIOD as f64;
    let mut progress = 0.0;
    let mut tick = 0;
    while tick < duration {
        bench.now = tick;
        bench.fire_due();
        if tick < CREATE_PERIOD {
            progress += rng.random::<f64>() * per_tick;
            while progress > 1.0 {
                progress -= 1.0;
                let jitter = rng.random_range(0..REQUEST_JITTER);
                bench.make_pair(TICKS_PER_SECOND + jitter);
            }
            tick += 1;
        } else {
            match bench.next_due() {
                Some(next) => tick = next,
                None => break,
            }
        }
    }
    Tape {
        name: name.to_owned(),
        ops: bench.ops,
        prefill: 0,
        end: duration,
        timers: bench.timers,
    }
}

impl Bench {
    /// The deadline of the earliest timer still armed, dropping stale entries.
    fn next_due(&mut self) -> Option<Tick> {
        while let Some(&Reverse((deadline, _, unit, kind, timer))) = self.due.peek() {
            if self.units[unit].timers[kind as usize] == Some(Armed { timer, deadline }) {
                return Some(deadline);
            }
            self.due.pop();
        }
        None
    }

    /// Fires every timer due now: first all of them (so that none is pending
    /// when the callbacks run, as in the harness's replay), then their
    /// callbacks, in the order the timers were armed.
    fn fire_due(&mut self) {
        let mut fired = Vec::new();
        while let Some(&Reverse((deadline, _, unit, kind, timer))) = self.due.peek() {
            if deadline > self.now {
                break;
            }
            self.due.pop();
            let slot = &mut self.units[unit].timers[kind as usize];
            if *slot == Some(Armed { timer, deadline }) {
                debug_assert_eq!(deadline, self.now, "a timer was passed over");
                *slot = None;
                fired.push((unit, kind));
            }
        }
        for (unit, kind) in fired {
            if !self.units[unit].alive {
                continue;
            }
            match kind {
                Kind::Idle => self.delete(unit),
                Kind::Close => self.on_close(unit),
                Kind::Pace => self.on_pace(unit),
                Kind::Request => self.on_request(unit),
                Kind::RequestDeadline => {
                    // A response that did not finish in time: ratas deletes
                    // both ends. (It never happens at these constants.)
                    let other = self.units[unit].other;
                    self.delete(unit);
                    self.delete(other);
                }
            }
        }
    }

    fn push(&mut self, op: Op) {
        self.ops.push(TimedOp { at: self.now, op });
    }

    /// ratas's `schedule(timer, delta)`: moves a pending timer, arms one that
    /// is not pending as a new timer.
    fn schedule(&mut self, unit: usize, kind: Kind, delta: Tick) {
        let deadline = self.now + delta;
        let armed = match self.units[unit].timers[kind as usize] {
            Some(Armed { timer, .. }) => {
                self.push(Op::Reschedule { timer, deadline });
                Armed { timer, deadline }
            }
            None => {
                let timer = self.timers;
                self.timers += 1;
                self.push(Op::Insert { timer, deadline });
                Armed { timer, deadline }
            }
        };
        self.units[unit].timers[kind as usize] = Some(armed);
        self.seq += 1;
        self.due
            .push(Reverse((deadline, self.seq, unit, kind, armed.timer)));
    }

    /// ratas's `cancel()`: a no-op for a timer that is not pending.
    fn cancel(&mut self, unit: usize, kind: Kind) {
        if let Some(Armed { timer, .. }) = self.units[unit].timers[kind as usize].take() {
            self.push(Op::Cancel { timer });
        }
    }

    /// Deletes a unit: its destructor cancels every timer it still holds.
    fn delete(&mut self, unit: usize) {
        if !self.units[unit].alive {
            return;
        }
        self.units[unit].alive = false;
        for kind in KINDS {
            self.cancel(unit, kind);
        }
    }

    fn make_pair(&mut self, client_interval: Tick) {
        let server = self.units.len();
        let client = server + 1;
        for (other, request_interval) in [(client, TICKS_PER_SECOND), (server, client_interval)] {
            self.units.push(Unit {
                other,
                alive: true,
                tx_count: 0,
                rx_count: 0,
                pace_quota: 1,
                request_interval,
                closing: false,
                waiting_for_response: false,
                timers: [None; 5],
            });
        }
        self.start(server, true);
        self.start(client, false);
    }

    fn start(&mut self, unit: usize, server: bool) {
        self.unidle(unit);
        self.schedule(unit, Kind::Close, CLOSE_AFTER);
        if !server {
            self.on_request(unit);
        }
    }

    fn transmit(&mut self, unit: usize, count: u32) {
        if !self.units[unit].alive {
            return;
        }
        self.units[unit].tx_count += count;
        self.deliver(unit);
    }

    fn deliver(&mut self, unit: usize) {
        self.unidle(unit);
        let u = &mut self.units[unit];
        let amount = u.pace_quota.min(u.tx_count);
        u.pace_quota -= amount;
        u.tx_count -= amount;
        let (other, quota) = (u.other, u.pace_quota);
        self.receive(other, amount);
        if quota == 0 {
            self.schedule(unit, Kind::Pace, PACE_INTERVAL);
        }
    }

    fn receive(&mut self, unit: usize, _count: u32) {
        if !self.units[unit].alive {
            return;
        }
        self.unidle(unit);
        if self.units[unit].waiting_for_response {
            self.schedule(unit, Kind::RequestDeadline, RESPONSE_DEADLINE);
            self.units[unit].waiting_for_response = false;
        }
        let u = &mut self.units[unit];
        u.rx_count += 1;
        if u.rx_count.is_multiple_of(RESPONSE_SIZE) {
            let interval = u.request_interval;
            self.cancel(unit, Kind::RequestDeadline);
            self.schedule(unit, Kind::Request, interval);
        }
    }

    fn on_close(&mut self, unit: usize) {
        if self.units[unit].closing {
            self.delete(unit);
        } else {
            self.units[unit].closing = true;
            self.schedule(unit, Kind::Close, CLOSE_GRACE);
        }
    }

    fn on_pace(&mut self, unit: usize) {
        if self.units[unit].tx_count > 0 {
            self.units[unit].pace_quota = 1;
            self.deliver(unit);
        }
    }

    fn on_request(&mut self, unit: usize) {
        if !self.units[unit].closing {
            self.schedule(unit, Kind::RequestDeadline, REQUEST_DEADLINE);
            self.units[unit].waiting_for_response = true;
            let other = self.units[unit].other;
            self.transmit(other, RESPONSE_SIZE);
        }
    }

    /// ratas's `unidle`: `schedule_in_range(idle, 60 s, 61 s)`, which leaves a
    /// pending idle timer alone while it is due within that range from now.
    fn unidle(&mut self, unit: usize) {
        let (start, end) = IDLE_RANGE;
        if let Some(Armed { deadline, .. }) = self.units[unit].timers[Kind::Idle as usize] {
            let current = deadline - self.now;
            if (start..=end).contains(&current) {
                return;
            }
        }
        self.schedule(unit, Kind::Idle, in_range_delay(start, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_range_delays_clear_whole_digits_within_the_range() {
        // 60 s to 61 s at 20 us: 3,000,000 to 3,050,000 share only the digits
        // above bit 24, so the delay keeps `end`'s bits 16 and up: 0x2E0000.
        assert_eq!(in_range_delay(3_000_000, 3_050_000), 0x2E_0000);
        // Ends that differ in the lowest digit only keep `end` whole; a
        // difference in the second digit clears the lowest.
        assert_eq!(in_range_delay(5, 9), 9);
        assert_eq!(in_range_delay(0x100, 0x1FF), 0x1FF);
        assert_eq!(in_range_delay(0x100, 0x2FF), 0x200);
    }

    #[test]
    fn two_pairs_talk_close_and_leave_nothing_pending() {
        let ratas = Ratas { pairs: MIN_PAIRS };
        let tape = generate("two", &ratas, 300 * TICKS_PER_SECOND, 7);
        tape.check().expect("a valid tape");
        assert_eq!(tape, generate("two", &ratas, 300 * TICKS_PER_SECOND, 7));
        let inserts = tape
            .ops
            .iter()
            .filter(|op| matches!(op.op, Op::Insert { .. }))
            .count();
        // One or two pairs: about 180 responses of 128 paced messages each.
        assert!(inserts > 10_000, "{inserts} inserts");
        // Every pair is deleted at 190 s, after it started in the first
        // second, which cancels the timers it holds: nothing is armed after.
        let last = tape.ops.last().expect("operations").at;
        assert!(
            (190 * TICKS_PER_SECOND..191 * TICKS_PER_SECOND).contains(&last),
            "the last operation at {last}"
        );
    }
}
