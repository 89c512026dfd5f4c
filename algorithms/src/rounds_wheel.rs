//! Hashed timing wheel with rounds: Varghese & Lauck scheme 6, as in Netty's
//! `HashedWheelTimer`.
//!
//! # Idea
//!
//! One circular array of `slots` unsorted lists and a cursor that moves one slot
//! per tick. A timer goes into slot `deadline & mask`, whatever its distance, and
//! remembers how many times the cursor will pass that slot before the pass that
//! fires it: its **remaining rounds**. Each tick the cursor visits one slot and
//! walks all of it: an entry with no rounds left fires, every other entry loses
//! one round. Insert and cancel are O(1); the price is paid per tick, which walks
//! about `n / slots` entries whether or not any is due, and visits the slot even
//! when it is empty: the **empty ticks** of a ticked wheel.
//!
//! # Source
//!
//! Varghese & Lauck, "Hashed and Hierarchical Timing Wheels" (SOSP 1987), scheme 6;
//! Netty's `io.netty.util.HashedWheelTimer` (checked against 4.1.128.Final and
//! 4.2.7.Final, and again for `netty-wheel` against the 4.2 branch at Netty commit
//! 0bb88a3, November 2025: `newTimeout`, `transferTimeoutsToBuckets`,
//! `waitForNextTick`, `expireTimeouts`; defaults 512 slots of 100 ms; see
//! `algorithms/SYSTEMS.md`), whose `HashedWheelTimeout` carries `remainingRounds` and whose
//! `HashedWheelBucket` is an unsorted doubly-linked list. Dubbo ships a copy of it
//! (`org.apache.dubbo.common.timer.HashedWheelTimer`).
//!
//! # Two rows: the scheme, and Netty at its defaults
//!
//! The wheel tick is a type parameter, `TICK` contract ticks (milliseconds):
//!
//! * `rounds-wheel`, `TICK = 1`: the scheme at the contract's own granularity,
//!   exact, so that it is compared with the other exact designs on equal terms.
//!   It visits a slot every millisecond.
//! * `netty-wheel` ([`NettyWheel`], `TICK =` [`NETTY_TICK`]): Netty's defaults,
//!   512 slots of 100 ms (a revolution of 51.2 s), as Netty and Dubbo users run
//!   it. It visits one slot per 100 ms, and pays for it in lateness: it is
//!   inexact through [`Algorithm::due_at`] and [`Algorithm::lateness_bound`].
//!
//! # Netty's tick
//!
//! Netty files a timeout due at `deadline` (nanoseconds since the worker
//! started) under wheel tick `deadline / tickDuration` and expires that bucket
//! when the worker wakes at the end of the tick, at `(wheel tick + 1) *
//! tickDuration`: the first tick boundary after the deadline. Its deadlines are
//! in nanoseconds from an arbitrary start, so one that lies exactly on a
//! boundary practically never occurs. Here deadlines are whole milliseconds
//! from a start at 0, where boundaries are common (a 30,000 ms timeout set on a
//! whole second); taking Netty's formula literally would make this row a whole
//! tick late for every such timer, which Netty in practice never is. So a timer
//! here fires at the first boundary **at or after** its deadline, wheel tick
//! `ceil(deadline / TICK)`: never early, at most `TICK - 1` ticks late, and
//! exact when `TICK` is 1. (ZooKeeper's expiry queue, by contrast, rounds in
//! whole milliseconds with an explicit `+ 1`, and `zookeeper-expiry` keeps it.)
//! The boundary of the last wheel tick is clamped to [`MAX_DEADLINE`], so that an
//! advance to it fires everything.
//!
//! As in Netty, the rounds are computed at insert relative to the next wheel
//! tick the cursor will visit, `(due - next_tick) / slots`, so that the entry
//! reaches zero on exactly the visit of its due wheel tick. The slot count is a
//! power of two, so the division is a shift and the slot is a mask.
//!
//! # Deviations from Netty
//!
//! * Insert and cancel take effect at once. Netty's caller threads hand new and
//!   cancelled timeouts to the worker thread through MPSC queues, drained at the
//!   start of each tick; this project is single-threaded, so there is nothing to
//!   hand over. This is the one deviation in the scheme itself.
//! * A timer whose deadline is at or before the current time goes on the shared
//!   overdue list, [`Overdue`], not into the current bucket as in Netty; see
//!   [`crate::overdue`] for why.
//! * Two fast-forwards that Netty does not have, because its worker is driven by a
//!   real clock one tick at a time. Neither is triggered by a driver that advances
//!   one tick at a time, which is how the harness drives this wheel while it holds
//!   timers (`next_expiry()` is `now + 1`):
//!   - (a) when the wheel holds no timers and more than one revolution of the
//!     advance remains, the cursor jumps straight to `now` without visiting
//!     anything, so no counter moves. Shorter spans are ticked, so a driver that
//!     steps an empty wheel tick by tick (the harness's `tick` driver) sees every
//!     empty tick, as Netty's worker would; a driver guided by `next_expiry()`,
//!     which is `None` for an empty queue, jumps over idle time instead.
//!   - (b) when an advance spans more than [`FAST_FORWARD_REVOLUTIONS`]
//!     revolutions, the wheel skips `k` whole revolutions at once by subtracting
//!     `k` from every entry's rounds, where `k` is the smallest remaining rounds of
//!     any entry (so nothing can fire in the skipped revolutions), capped at one
//!     revolution less than the jump leaves. Then it ticks on by hand and repeats.
//!     Each skip is one O(n) pass over the arena; skipped ticks are not counted as
//!     visits. Without it, a jump of 2^46 ticks would take 2^46 visits.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1): a push onto the slot's (or the overdue) list |
//! | cancel | O(1): an unlink through the handle's index |
//! | reschedule | O(1), handle kept: new rounds only if the new deadline maps to the same slot, else an unlink and a push |
//! | advance | one visit per wheel tick, each walking its whole slot: O(n / slots) on average; plus O(m log m) to sort m overdue timers |
//! | next expiry | O(1): a lower bound, the next wheel tick's boundary (`now + 1` for `rounds-wheel`) unless an overdue timer is pending |
//!
//! # Invariants
//!
//! * Every entry on the wheel has `deadline > now` and sits in slot
//!   `due & mask`, where `due = ceil(deadline / TICK)` is its wheel tick; its
//!   `slot` field says so. Every other entry is on the overdue list, with
//!   `deadline <= now` at its insert, and `slot == OVERDUE`.
//! * For every wheel entry, `due == next_visit + remaining_rounds * slots`,
//!   where `next_visit` is the next wheel tick after the cursor that maps to its
//!   slot. So an entry fires exactly when its rounds are 0, on the visit of its
//!   due wheel tick; each visit checks this with a `debug_assert!`.
//! * `len()` is the arena's length: every pending timer is one arena entry, on
//!   exactly one list.
//! * After an advance to `now` the cursor is at the last wheel tick whose
//!   boundary is at or before `now`: every wheel tick up to it has been visited or
//!   skipped.
//!
//! # Counters
//!
//! `slot_visits` counts one per wheel tick visited (a tick of the wheel's own:
//! one per 100 contract ticks for `netty-wheel`); `empty_slot_visits` the visits that
//! fired nothing (including visits to slots holding only later rounds);
//! `entries_examined_not_due` one per round taken off an entry during a visit
//! (rounds taken off by fast-forward (b) are not counted, as nothing is visited).
//! `cascades` stay 0 because there is a single level; `bucket_expirations` stay 0
//! because no DelayQueue drives the wheel; `insert_scan_steps` stay 0 because the
//! slot lists are unsorted, so an insert steps over nothing.
//!
//! # Parameters
//!
//! `slots`: the number of slots, rounded up to a power of two, from 1 to
//! [`MAX_SLOTS`]; default [`DEFAULT_SLOTS`]. `TICK`: contract ticks per wheel
//! tick, a type parameter (the contract's `due_at` is a function of the type):
//! 1 for `rounds-wheel`, [`NETTY_TICK`] for `netty-wheel`; any other value is
//! a point of `rounds-wheel`'s tick sweep, named `rounds-wheel@tick=<value>`
//! (see `variant` and `registry::for_each_variant`). Shown as
//! `slots=512,tick=1` and `slots=512,tick=100`.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List, NIL};
use crate::overdue::Overdue;
use crate::variant::{Configurable, power_of_two, unknown_param};
use crate::{
    Algorithm, Counters, Expired, Family, MAX_DEADLINE, Param, Sweep, Tick, TimerQueue,
    check_deadline,
};

/// Netty's default `ticksPerWheel`.
pub const DEFAULT_SLOTS: usize = 512;

/// Netty's default `tickDuration`, 100 ms, in contract ticks of 1 ms.
pub const NETTY_TICK: Tick = 100;

/// Netty's `HashedWheelTimer` at its defaults: 512 slots of 100 ms.
pub type NettyWheel<P> = RoundsWheel<P, NETTY_TICK>;

/// What `rounds-wheel` lets a user tune: Netty's `ticksPerWheel` and
/// `tickDuration`.
const TUNABLES: [Param; 2] = [
    Param {
        name: "slots",
        default: DEFAULT_SLOTS as u64,
        meaning: "slots per revolution, a power of two (Netty's ticksPerWheel)",
    },
    Param {
        name: "tick",
        default: 1,
        meaning: "contract ticks per wheel tick (Netty's tickDuration); a timer fires up to tick - 1 late",
    },
];

/// The largest slot count: Netty rejects `ticksPerWheel` above 2^30. It also
/// keeps every slot index below the overdue marker (`u32::MAX`).
pub const MAX_SLOTS: usize = 1 << 30;

/// An advance that spans more than this many revolutions may use fast-forward
/// (b). Two, so that skipping (capped at one revolution less than the jump
/// leaves) always leaves at least one revolution to tick by hand.
pub const FAST_FORWARD_REVOLUTIONS: u64 = 2;

/// The `slot` of an entry that is on the overdue list rather than on the wheel.
const OVERDUE: u32 = u32::MAX;

/// One pending timer, Netty's `HashedWheelTimeout`.
#[derive(Debug)]
struct Entry<P> {
    deadline: Tick,
    payload: P,
    links: Links,
    /// The slot whose list holds the entry, or [`OVERDUE`] for the overdue list.
    slot: u32,
    /// Visits of the entry's slot still to come before the one that fires it;
    /// 0 on the overdue list, where it is not used.
    remaining_rounds: u64,
}

impl<P> Linked for Entry<P> {
    fn links(&self) -> &Links {
        &self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// A single hashed wheel whose entries count down rounds. See the module
/// documentation.
#[derive(Debug)]
pub struct RoundsWheel<P, const TICK: Tick = 1> {
    entries: Arena<Entry<P>>,
    /// One unsorted list per slot, allocated once at construction.
    slots: Box<[List]>,
    /// `slots.len() - 1`: the slot of tick `t` is `t & mask`.
    mask: u64,
    /// `log2(slots.len())`: dividing a distance in wheel ticks by the slot count
    /// is a shift.
    shift: u32,
    /// The wheel's cursor, in wheel ticks of `TICK` contract ticks: every wheel
    /// tick up to it has been visited (or skipped by a fast-forward). It is the
    /// last wheel tick whose boundary the clock has reached, [`cursor_at`]`(now)`.
    cursor: Tick,
    /// Timers inserted with `deadline <= now`; their `slot` is [`OVERDUE`].
    overdue: Overdue,
    /// The current time, in contract ticks.
    now: Tick,
    counters: Counters,
}

impl<P, const TICK: Tick> Default for RoundsWheel<P, TICK> {
    fn default() -> Self {
        Self::with_slots(DEFAULT_SLOTS)
    }
}

/// The slot count for a requested `slots`: rounded up to a power of two, as Netty
/// does.
///
/// # Panics
///
/// If `requested` is 0 or above [`MAX_SLOTS`].
fn round_up_slots(requested: usize) -> usize {
    assert!(
        (1..=MAX_SLOTS).contains(&requested),
        "slots must be between 1 and {MAX_SLOTS}, got {requested}"
    );
    requested.next_power_of_two()
}

/// The slot that tick (or deadline) `tick` maps to.
#[inline]
fn slot_of(tick: Tick, mask: u64) -> u32 {
    // The mask is below MAX_SLOTS, so the slot fits a u32 without loss.
    (tick & mask) as u32
}

/// The rounds of a timer due at wheel tick `due` when the next wheel tick to
/// visit is `next_tick <= due`: how often the cursor visits its slot before the
/// visit at `due`. Those visits are at `due - k * slots` for `k >= 1` while that
/// is at least `next_tick`, so there are `(due - next_tick) / slots`.
#[inline]
fn rounds_for(due: Tick, next_tick: Tick, shift: u32) -> u64 {
    debug_assert!(
        next_tick <= due,
        "wheel tick {due} is before the next tick {next_tick}"
    );
    (due - next_tick) >> shift
}

/// The wheel tick whose visit fires a timer due at `deadline`, for a wheel of
/// `tick` contract ticks: the first boundary at or after the deadline,
/// `ceil(deadline / tick)` (see "Netty's tick" in the module documentation).
#[inline]
fn wheel_tick_of(deadline: Tick, tick: Tick) -> Tick {
    deadline.div_ceil(tick)
}

/// When the cursor visits wheel tick `wheel_tick`: at its boundary,
/// `wheel_tick * tick`, clamped to [`MAX_DEADLINE`] (only the last wheel tick,
/// and only when `tick` does not divide [`MAX_DEADLINE`], reaches past it), so
/// that an advance to [`MAX_DEADLINE`] fires everything, as the contract asks.
#[inline]
fn boundary(wheel_tick: Tick, tick: Tick) -> Tick {
    wheel_tick.saturating_mul(tick).min(MAX_DEADLINE)
}

/// The last wheel tick whose boundary the clock has reached at `now`: `now /
/// tick`, except at [`MAX_DEADLINE`], where the clamped last wheel tick has come
/// too.
#[inline]
fn cursor_at(now: Tick, tick: Tick) -> Tick {
    if now >= MAX_DEADLINE {
        wheel_tick_of(MAX_DEADLINE, tick)
    } else {
        now / tick
    }
}

impl<P, const TICK: Tick> RoundsWheel<P, TICK> {
    /// An empty wheel at time 0 with `slots` slots, rounded up to a power of two.
    ///
    /// # Panics
    ///
    /// If `slots` is 0 or above [`MAX_SLOTS`]; at compile time, if `TICK` is 0.
    pub fn with_slots(slots: usize) -> Self {
        const { assert!(TICK > 0, "a wheel tick is at least one contract tick") };
        let slots = round_up_slots(slots);
        Self {
            entries: Arena::new(),
            slots: vec![List::EMPTY; slots].into_boxed_slice(),
            mask: slots as u64 - 1,
            shift: slots.trailing_zeros(),
            cursor: 0,
            overdue: Overdue::EMPTY,
            now: 0,
            counters: Counters::default(),
        }
    }

    /// The number of slots, a power of two.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Links the unlinked entry `index` by its deadline: onto the overdue list if
    /// it is due already, else at the back of its slot with its rounds set.
    fn link(&mut self, index: u32) {
        let deadline = self.entries.at(index).deadline;
        if deadline <= self.now {
            let entry = self.entries.at_mut(index);
            entry.slot = OVERDUE;
            entry.remaining_rounds = 0;
            self.overdue.push(&mut self.entries, index, deadline);
        } else {
            let due = wheel_tick_of(deadline, TICK);
            let slot = slot_of(due, self.mask);
            let entry = self.entries.at_mut(index);
            entry.slot = slot;
            // `now < deadline`, so the cursor (the last boundary at or before
            // `now`) is before `due`, and `cursor + 1` cannot overflow.
            entry.remaining_rounds = rounds_for(due, self.cursor + 1, self.shift);
            self.slots[slot as usize].push_back(&mut self.entries, index);
        }
    }

    /// Unlinks the pending entry `index` from its slot or the overdue list.
    fn unlink(&mut self, index: u32) {
        let slot = self.entries.at(index).slot;
        if slot == OVERDUE {
            self.overdue.unlink(&mut self.entries, index);
        } else {
            self.slots[slot as usize].unlink(&mut self.entries, index);
        }
    }

    /// Moves the cursor to wheel tick `target`, visiting every wheel tick on the
    /// way, except for the two fast-forwards of the module documentation.
    fn turn_to(&mut self, target: Tick, out: &mut Vec<Expired<P>>) {
        let slots = self.mask + 1;
        while self.cursor < target {
            let left = target - self.cursor;
            if self.entries.is_empty() && left > slots {
                // Fast-forward (a): nothing is left to visit. Spans up to one
                // revolution are still ticked, so that a driver stepping an empty
                // wheel tick by tick sees its empty ticks, as Netty's worker would.
                self.cursor = target;
                return;
            }
            if left > FAST_FORWARD_REVOLUTIONS * slots {
                self.skip_revolutions(left / slots - 1);
            }
            // Tick by hand through at most one revolution, then look again.
            let end = target.min(self.cursor + slots);
            while self.cursor < end {
                self.cursor += 1;
                self.visit(self.cursor, out);
            }
        }
    }

    /// Fast-forward (b): skips up to `limit` whole revolutions in which no entry
    /// can fire, taking one round off every wheel entry per revolution.
    fn skip_revolutions(&mut self, limit: u64) {
        let mut min_rounds = u64::MAX;
        self.entries.for_each_index(|_, entry| {
            if entry.slot != OVERDUE {
                min_rounds = min_rounds.min(entry.remaining_rounds);
            }
        });
        let skip = min_rounds.min(limit);
        if skip == 0 {
            return;
        }
        // Entries on the overdue list have no rounds to lose. (The list is empty
        // during an advance, but the pass does not rely on it.)
        self.entries.for_each_mut(|entry| {
            if entry.slot != OVERDUE {
                entry.remaining_rounds -= skip;
            }
        });
        // `skip < left / slots`, so the cursor stays before the advance's target.
        self.cursor += skip << self.shift;
    }

    /// Visits the slot of wheel tick `tick`, which the cursor has just reached:
    /// fires the entries with no rounds left and takes a round off every other
    /// one.
    fn visit(&mut self, tick: Tick, out: &mut Vec<Expired<P>>) {
        let slot = slot_of(tick, self.mask);
        let shift = self.shift;
        let fired_before = out.len();
        let mut at = self.slots[slot as usize].head();
        while at != NIL {
            let entry = self.entries.at_mut(at);
            let next = entry.links.next;
            debug_assert_eq!(
                entry.slot, slot,
                "entry {at} with deadline {} is on the list of slot {slot}",
                entry.deadline
            );
            debug_assert_eq!(
                wheel_tick_of(entry.deadline, TICK),
                tick + (entry.remaining_rounds << shift),
                "entry {at} at tick {tick} has {} rounds left",
                entry.remaining_rounds
            );
            if entry.remaining_rounds == 0 {
                self.slots[slot as usize].unlink(&mut self.entries, at);
                let entry = self.entries.remove_at(at);
                out.push(Expired {
                    payload: entry.payload,
                    deadline: entry.deadline,
                });
            } else {
                entry.remaining_rounds -= 1;
                self.counters.entries_examined_not_due += 1;
            }
            at = next;
        }
        self.counters.slot_visits += 1;
        if out.len() == fired_before {
            self.counters.empty_slot_visits += 1;
        }
    }
}

impl<P, const TICK: Tick> Algorithm for RoundsWheel<P, TICK> {
    const NAME: &'static str = match TICK {
        NETTY_TICK => "netty-wheel",
        _ => "rounds-wheel",
    };
    const FAMILY: Family = Family::Seed;
    const TICKED: bool = true;
    const SUMMARY: &'static str = match TICK {
        1 => {
            "V&L 6, the scheme of Netty's `HashedWheelTimer` at a 1-tick wheel tick: 512 \
             unsorted slots, rounds per timer, ticked; exact"
        }
        NETTY_TICK => {
            "Netty's `HashedWheelTimer` at its defaults (and Dubbo's copy): 512 unsorted \
             slots of 100 ticks (100 ms), rounds per timer, ticked. Inexact: fires at the first \
             100-tick boundary at or after the deadline, up to 99 ticks late"
        }
        _ => {
            "V&L 6, the scheme of Netty's `HashedWheelTimer`, at another wheel tick (a point of \
             rounds-wheel's tick sweep); inexact beyond a 1-tick tick"
        }
    };
    const EXACT: bool = TICK == 1;
    // `netty-wheel` is Netty's configuration, not a design with parameters of
    // its own: it is `rounds-wheel`'s point at `tick=100`.
    const TUNABLES: &'static [Param] = match TICK {
        NETTY_TICK => &[],
        _ => &TUNABLES,
    };
    const SWEEP: Option<Sweep> = match TICK {
        1 => None,
        _ => Some(Sweep {
            design: "rounds-wheel",
            param: "tick",
            value: TICK,
        }),
    };

    fn due_at(now: Tick, deadline: Tick) -> Tick {
        if deadline <= now {
            deadline
        } else {
            boundary(wheel_tick_of(deadline, TICK), TICK)
        }
    }

    fn lateness_bound(_delay: Tick) -> Tick {
        TICK - 1
    }

    fn with_defaults() -> Self {
        Self::default()
    }

    fn params(&self) -> String {
        format!("slots={},tick={TICK}", self.slots())
    }
}

impl<P, const TICK: Tick> Configurable for RoundsWheel<P, TICK> {
    fn with_param(param: &str, value: u64) -> Result<Self, String> {
        match param {
            "slots" => Ok(Self::with_slots(power_of_two(param, value, MAX_SLOTS)?)),
            // The tick decides when a timer is due, which the contract makes a
            // function of the type (`due_at`): each tick is a type of its own.
            "tick" if value == TICK => Ok(Self::default()),
            "tick" => Err(format!(
                "tick={value} is a type of its own (RoundsWheel<P, {value}>), not a \
                 constructor argument"
            )),
            _ => Err(unknown_param::<Self>(param)),
        }
    }
}

impl<P, const TICK: Tick> TimerQueue<P> for RoundsWheel<P, TICK> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.entries.insert(Entry {
            deadline,
            payload,
            links: Links::UNLINKED,
            slot: OVERDUE,
            remaining_rounds: 0,
        });
        self.link(handle.index());
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        self.entries.get(handle)?;
        self.unlink(handle.index());
        Some(self.entries.remove_at(handle.index()).payload)
    }

    /// In place, keeping the handle: a timer whose new deadline maps to the slot
    /// it is in (a re-arm by a whole number of revolutions, or within one) only
    /// has its rounds recomputed; any other is moved to its new slot's list.
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let slot = self.entries.get(handle)?.slot;
        let index = handle.index();
        // The wheel tick is computed once: at a coarser tick it is a division.
        let due = wheel_tick_of(deadline, TICK);
        if slot != OVERDUE && deadline > self.now && slot == slot_of(due, self.mask) {
            let entry = self.entries.at_mut(index);
            entry.deadline = deadline;
            entry.remaining_rounds = rounds_for(due, self.cursor + 1, self.shift);
        } else {
            self.unlink(index);
            self.entries.at_mut(index).deadline = deadline;
            self.link(index);
        }
        Some(handle)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        // Every timer on the wheel is due after the current time, so the overdue
        // ones come first.
        self.overdue
            .drain_sorted(&mut self.entries, out, |entry| Expired {
                payload: entry.payload,
                deadline: entry.deadline,
            });
        let target = cursor_at(now, TICK);
        self.turn_to(target, out);
        debug_assert_eq!(self.cursor, target, "the cursor stopped short of now");
        self.now = now;
    }

    fn reserve(&mut self, additional: usize) {
        self.entries.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.entries.is_empty() {
            None
        } else if let Some(bound) = self.overdue.bound() {
            Some(bound)
        } else {
            // Every wheel entry is due after now, and the wheel must be ticked to
            // find out which: at the next boundary, Netty's `waitForNextTick`.
            // A wheel entry is due at a boundary after now, so there is one.
            Some(boundary(self.cursor + 1, TICK))
        }
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn counters(&self) -> Counters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Advances `wheel` to `now` and returns the deadlines that fired.
    fn fire(wheel: &mut RoundsWheel<u64>, now: Tick) -> Vec<Tick> {
        let mut out = Vec::new();
        wheel.advance(now, &mut out);
        out.iter().map(|expired| expired.deadline).collect()
    }

    #[test]
    fn reschedule_to_the_same_slot_only_changes_rounds() {
        let mut wheel = RoundsWheel::with_slots(8);
        let handle = wheel.insert(3, 1u64);
        // 3 + 16 maps to the same slot two revolutions later: no move.
        assert_eq!(wheel.reschedule(handle, 19), Some(handle));
        assert_eq!(wheel.entries.at(handle.index()).remaining_rounds, 2);
        assert_eq!(fire(&mut wheel, 18), Vec::<Tick>::new());
        assert_eq!(fire(&mut wheel, 19), [19]);
        assert_eq!(wheel.reschedule(handle, 30), None, "fired");
        // To another slot, then into the past: fires at the next advance.
        let other = wheel.insert(25, 2);
        assert_eq!(wheel.reschedule(other, 26), Some(other));
        assert_eq!(wheel.reschedule(other, 5), Some(other));
        assert_eq!(fire(&mut wheel, 19), [5]);
        assert!(wheel.is_empty());
    }

    #[test]
    fn netty_ticks_fire_at_the_first_boundary_at_or_after_the_deadline() {
        type Netty = NettyWheel<u64>;
        assert_eq!(Netty::NAME, "netty-wheel");
        const { assert!(!Netty::EXACT && RoundsWheel::<u64>::EXACT) };
        assert_eq!(Netty::with_defaults().params(), "slots=512,tick=100");
        assert_eq!(Netty::due_at(0, 1), 100);
        assert_eq!(
            Netty::due_at(0, 100),
            100,
            "a deadline on a boundary fires at it"
        );
        assert_eq!(Netty::due_at(150, 180), 200);
        assert_eq!(Netty::due_at(150, 120), 120, "overdue: at the next advance");
        assert_eq!(Netty::due_at(0, MAX_DEADLINE), MAX_DEADLINE, "clamped");
        assert_eq!(Netty::lateness_bound(30_000), 99);
        assert_eq!(cursor_at(199, 100), 1);
        assert_eq!(cursor_at(MAX_DEADLINE, 100), MAX_DEADLINE.div_ceil(100));
        assert_eq!(cursor_at(MAX_DEADLINE - 1, 100), (MAX_DEADLINE - 1) / 100);
    }

    #[test]
    fn a_netty_wheel_visits_once_per_boundary() {
        let mut wheel = NettyWheel::with_slots(8);
        let mut out = Vec::new();
        wheel.advance(150, &mut out);
        wheel.insert(180, 1u64);
        wheel.insert(201, 2);
        // Due at 200 and 300; 300 + 8 * 100 shares 300's slot a revolution later.
        wheel.insert(1_100, 3);
        assert_eq!(wheel.next_expiry(), Some(200));
        wheel.advance(199, &mut out);
        assert!(out.is_empty());
        wheel.advance(200, &mut out);
        assert_eq!(out.iter().map(|e| e.payload).collect::<Vec<_>>(), [1]);
        assert_eq!(wheel.next_expiry(), Some(300));
        out.clear();
        wheel.advance(1_099, &mut out);
        assert_eq!(out.iter().map(|e| e.payload).collect::<Vec<_>>(), [2]);
        out.clear();
        wheel.advance(1_100, &mut out);
        assert_eq!(out.iter().map(|e| e.payload).collect::<Vec<_>>(), [3]);
        // Visits at 100, 200, ..., 1100: eleven boundaries, not 1,100 ticks; the
        // entry a revolution out lost one round on the way.
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 11);
        assert_eq!(counters.entries_examined_not_due, 1);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn a_netty_wheel_reaches_max_deadline() {
        let mut wheel = NettyWheel::with_slots(8);
        wheel.insert(MAX_DEADLINE, 1u64);
        wheel.insert(MAX_DEADLINE - 150, 2);
        let mut out = Vec::new();
        wheel.advance(MAX_DEADLINE - 1, &mut out);
        assert_eq!(out.iter().map(|e| e.payload).collect::<Vec<_>>(), [2]);
        out.clear();
        assert_eq!(wheel.next_expiry(), Some(MAX_DEADLINE));
        wheel.advance(MAX_DEADLINE, &mut out);
        assert_eq!(out.iter().map(|e| e.payload).collect::<Vec<_>>(), [1]);
        assert!(wheel.is_empty());
    }

    #[test]
    fn slot_counts_round_up_to_a_power_of_two() {
        assert_eq!(round_up_slots(1), 1);
        assert_eq!(round_up_slots(3), 4);
        assert_eq!(round_up_slots(512), 512);
        assert_eq!(round_up_slots(513), 1024);
        assert_eq!(round_up_slots(MAX_SLOTS), MAX_SLOTS);
        assert_eq!(
            RoundsWheel::<u64>::with_slots(500).params(),
            "slots=512,tick=1"
        );
        assert_eq!(
            RoundsWheel::<u64>::with_defaults().params(),
            "slots=512,tick=1"
        );
    }

    #[test]
    #[should_panic(expected = "slots must be between")]
    fn zero_slots_are_rejected() {
        round_up_slots(0);
    }

    #[test]
    fn rounds_count_the_earlier_visits_of_the_slot() {
        assert_eq!(rounds_for(100, 100, 9), 0, "due at the next tick");
        assert_eq!(rounds_for(100 + 511, 100, 9), 0);
        assert_eq!(rounds_for(100 + 512, 100, 9), 1);
        assert_eq!(rounds_for(100 + 3 * 512, 100, 9), 3);
        // Against a brute-force count of the visits to the deadline's slot strictly
        // between the current time and the deadline, for an 8-slot wheel.
        for now in 0..20u64 {
            for deadline in now + 1..now + 40 {
                let visits = (now + 1..deadline)
                    .filter(|t| t % 8 == deadline % 8)
                    .count();
                assert_eq!(
                    rounds_for(deadline, now + 1, 3),
                    visits as u64,
                    "now {now}, deadline {deadline}"
                );
            }
        }
    }

    #[test]
    fn a_timer_three_revolutions_ahead_is_examined_three_times() {
        let mut wheel = RoundsWheel::with_slots(8);
        let deadline = 5 + 3 * 8;
        wheel.insert(deadline, 1);
        for now in 1..deadline {
            assert!(fire(&mut wheel, now).is_empty(), "fired early at {now}");
            assert_eq!(wheel.next_expiry(), Some(now + 1));
        }
        assert_eq!(fire(&mut wheel, deadline), [deadline]);
        let counters = wheel.counters();
        assert_eq!(counters.entries_examined_not_due, 3);
        assert_eq!(counters.slot_visits, deadline, "one visit per tick");
        assert_eq!(
            counters.empty_slot_visits,
            deadline - 1,
            "every visit but the last fired nothing"
        );
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn fast_forwards_skip_empty_and_idle_revolutions() {
        let mut wheel = RoundsWheel::with_slots(8);
        assert!(fire(&mut wheel, 1 << 40).is_empty());
        assert_eq!(
            wheel.counters().slot_visits,
            0,
            "an empty wheel is not visited"
        );
        let start = 1 << 40;
        wheel.insert(start + 10_000, 1);
        wheel.insert(start + 10_001, 2);
        assert_eq!(
            fire(&mut wheel, start + 20_000),
            [start + 10_000, start + 10_001]
        );
        // One skip brings the first timer to its last round; one revolution by
        // hand fires it and takes the second to its last round; the next
        // revolution by hand fires that on its first tick and is ticked to its
        // end (a span of at most one revolution is always ticked), and then the
        // empty wheel jumps the rest of the way.
        assert_eq!(wheel.counters().slot_visits, 8 + 8);
        assert_eq!(wheel.now(), start + 20_000);
    }

    #[test]
    fn overdue_timers_fire_first_in_deadline_order() {
        let mut wheel = RoundsWheel::with_slots(8);
        fire(&mut wheel, 100);
        for (payload, deadline) in [50, 20, 101, 100, 30].into_iter().enumerate() {
            wheel.insert(deadline, payload as u64);
        }
        assert_eq!(
            wheel.next_expiry(),
            Some(20),
            "the smallest overdue deadline"
        );
        assert_eq!(fire(&mut wheel, 100), [20, 30, 50, 100]);
        assert_eq!(wheel.next_expiry(), Some(101));
        assert_eq!(fire(&mut wheel, 101), [101]);
    }
}
