//! The ticked hierarchical timing wheel: Varghese & Lauck scheme 7 as the
//! seed documents draw it, a clock (or water meter) whose finest wheel is
//! visited every tick and whose coarser wheels move down a slot each time the
//! wheel below them wraps.
//!
//! # Idea
//!
//! Think of the clock with second, minute and hour hands from the seed documents.
//! A timer due at 7:30:20, set at 7:10:05, goes on the minute wheel in slot 30,
//! because the minute is the highest "digit" in which 7:30:20 differs from now.
//! The second hand ticks every second. Each time it wraps to 0 the minute hand
//! moves one slot, and the timers in the slot it reaches are taken out and put
//! back one wheel finer, by their second (the cascade): at 7:30:00 our timer
//! moves to slot 20 of the second wheel, and when the second hand reaches it at
//! 7:30:20 it fires. When the minute hand wraps in turn, the hour hand moves, and
//! so on up.
//!
//! Here the digits are base 64 instead of 60/60/24: level `k` has [`SLOTS`] = 64
//! slots of `64^k` ticks each, a deadline's slot on level `k` is its digit `k`
//! (bits `6k..6k + 6`), and a timer goes on the level of the highest digit in
//! which its deadline differs from the current tick. At tick `t` the levels that
//! move are those whose lower levels all wrapped, that is the levels `1..=z` for
//! `z` the number of trailing zero digits of `t`; each visits its slot `t` (its
//! digit of `t`) and cascades it, coarsest first; then level 0 visits its slot and
//! fires it whole. A timer cascades at most once per level it starts above 0.
//!
//! What this wheel does **not** have is the point of it: no DelayQueue
//! (`hierarchical-wheel`, Kafka) and no occupancy bitmaps (`bitmap-wheel`,
//! tokio). It visits every tick, empty or not, so the difference between it and
//! those two is exactly what they buy: the empty ticks they skip and the time
//! that saves. Its geometry is `bitmap-wheel`'s (same levels, slots and placement
//! rule, cascading at the same slot starts), so on the same workload the two
//! place and cascade every timer identically (their `cascades` counters agree,
//! which a unit test checks) and differ only in how they find the next slot.
//!
//! # Source
//!
//! G. Varghese and T. Lauck, "Hashed and Hierarchical Timing Wheels", SOSP 1987,
//! scheme 7, and the project's seed documents: the hour/minute/second clock
//! (seed 000), the water meter of month, week and day wheels (seed 001), and the
//! same water meter with second, minute and hour wheels (seed 003).
//! Seeds 000 and 001 move timers from the coarse wheel to the fine one, as V&L
//! do and as this wheel does. Seed 003's worked example (7:30:20 placed first on
//! the second wheel, then the minute, then the hour wheel) runs the other way;
//! read literally, the hour wheel's visit at 7:00:00 would fire it half an hour
//! early, so it is not followed. The digit placement is also how Linux's classic (pre-4.8) timer
//! wheel cascaded, with the same 64-slot upper levels.
//!
//! # The top level
//!
//! [`LEVELS`] = 11 levels of 6 bits cover 66 bits, and [`MAX_DEADLINE`] = 2^62
//! needs 63: every valid deadline has a level, and the top level (digit 10, only
//! slots 0..=4 ever used) never wraps within valid time. So no timer is ever
//! beyond the top level's range, and neither rounds nor an overflow list is
//! needed; the rule for "far" timers is simply "there is always a level". The
//! price is 11 * 64 list heads (5.5 KiB) allocated at construction, and one extra
//! slot visit per level at each wrap of the levels below (see Counters).
//!
//! # Placement, and why nothing fires early or cascades into the past
//!
//! Every placement is relative to the current tick `now` (between calls, the last
//! tick visited; during a cascade at tick `t`, `t`). A timer on level `k` shares
//! every digit above `k` with `now`, and its digit `k` is greater than `now`'s,
//! as the highest differing digit must be for a later deadline. When the clock
//! steps to `now + 1`, either no digit up to `k` carries, and the timer's slot is
//! still ahead, or the carry reaches digit `k` and then all digits below it are 0:
//! that is exactly the tick at which level `k` moves to the timer's slot (digit
//! `k` of the clock now equals the timer's) and cascades it. The carry cannot go
//! past digit `k`, since the clock's digit `k` was below the timer's. So a timer
//! is reached exactly at its slot's start `S <= deadline`; there it fires if
//! `deadline == S`, else it is placed relative to `S`, on a lower level and again
//! ahead. Its slot on the new level is never the one being visited at `S` (that
//! slot is the clock's digit, and the timer's is greater), so no timer is
//! cascaded into a slot the clock has already passed. On level 0 the slot is
//! visited at the tick equal to the deadline: never early, never late. The
//! wrap boundary is the carry case above; `t = 64^k * m` moves level `k` and
//! every level below it, coarsest first, so a timer can fall through several
//! levels at one tick and still land ahead of the clock on each.
//!
//! Timers inserted with a deadline at or before `now` go on the shared overdue
//! list, [`Overdue`], drained first and sorted at the next advance; see
//! [`crate::overdue`].
//!
//! # Fast-forward
//!
//! [`TimerQueue::next_expiry`] is `now + 1` while timers are pending, so a driver
//! that follows it (or the tick driver) steps the wheel one tick at a time and
//! every empty tick is visited and counted. For a single advance that covers more
//! than one revolution of level 0 ([`SLOTS`] ticks), which only a test or a
//! workload with a huge jump asks for, the wheel skips ticks that provably do
//! nothing, as `rounds-wheel` and `hashed-wheel` do:
//!
//! * with no timer left, it jumps straight to `now`;
//! * otherwise it finds the earliest start `S` of an occupied slot by scanning the
//!   slot lists level by level (no bitmap: a plain scan of up to 704 list heads),
//!   moves the clock to `min(S, now) - 1` without visiting the ticks in between
//!   (none of them cascades or fires anything), and then ticks by hand for up to
//!   one revolution before it may scan again.
//!
//! A scan is followed either by a full revolution ticked by hand or by the end of
//! the advance, so scanning adds at most 11 list-head checks per ticked tick,
//! plus one scan per advance. Skipped ticks are not counted as visits. Without this, the conformance check's jump of
//! 2^46 ticks would take 2^46 visits.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1): an `ilog2`, a push onto a slot's (or the overdue) list |
//! | cancel | O(1): an unlink through the handle's index |
//! | per tick | O(1) for the level-0 visit, plus one visit per level that moves (1/64 of ticks move level 1, 1/4096 level 2, ...), plus O(1) per timer fired or cascaded |
//! | advance | one tick per tick of the span (see Fast-forward for spans beyond a revolution), plus O(k log k) for k overdue timers |
//! | next expiry | O(1): `now + 1`, or the smallest overdue deadline |
//!
//! # Invariants
//!
//! Between calls:
//!
//! * every timer on level `k` has `deadline >> 6(k + 1) == now >> 6(k + 1)` and
//!   its digit `k` greater than `now`'s, and sits in slot (digit `k`) of level
//!   `k`, as its `slot` field records; so every wheel timer is due after `now`;
//! * every other timer is on the overdue list, with `deadline <= now`;
//! * `len()` is the arena's length: every timer is on exactly one list.
//!
//! # Counters
//!
//! * `slot_visits`: every slot visited, one on level 0 per tick ticked plus one
//!   per level that moved at that tick (a tick that is a multiple of 64 visits
//!   two slots, of 4096 three, ...): about 1.016 visits per tick.
//! * `empty_slot_visits`: the empty ticks, the ticks that fired nothing, one
//!   per tick however many slots it visited. A tick at a wrap whose cascade
//!   fires a timer is not empty, although its level-0 slot is (a timer due at
//!   a multiple of 64 fires from the level that held it); one whose cascade
//!   only moves timers down is.
//! * `cascades`: one per timer moved to a lower level without firing.
//! * `entries_examined_not_due` stays 0: every timer in a visited slot fires or
//!   moves down; none is looked at and left where it was.
//! * `bucket_expirations` stays 0 (no DelayQueue) and `insert_scan_steps` stays 0
//!   (an insert computes its slot and steps over nothing).
//!
//! # Parameters
//!
//! [`SLOTS`] = 64 per level: the same as `bitmap-wheel` (tokio) and Linux's
//! upper levels, so that the comparison isolates ticking from bitmaps rather
//! than a change of fan-out, and a power of two so that a digit is a shift and a
//! mask (the seeds' 60/60/24 clock would need divisions). A wider wheel, 256 as in
//! ratas, would cascade less often but visit the same one slot per tick; the empty
//! ticks, which are what this wheel exists to show, do not depend on it.
//! [`LEVELS`] = 11 so that 2^62 fits. `params()` is `"levels=11,slots=64"`.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List};
use crate::overdue::Overdue;
use crate::{Algorithm, Counters, Expired, Family, MAX_DEADLINE, Tick, TimerQueue, check_deadline};

/// Bits of a deadline per level: a level has `2^LEVEL_BITS` slots.
pub const LEVEL_BITS: u32 = 6;

/// Slots per level: 64, as in `bitmap-wheel`; see the module documentation.
pub const SLOTS: usize = 1 << LEVEL_BITS;

/// Levels: the smallest count whose digits cover every bit of [`MAX_DEADLINE`]
/// (2^62 has its highest set bit at 62, in digit 10).
pub const LEVELS: usize = (MAX_DEADLINE.ilog2() / LEVEL_BITS) as usize + 1;

const _: () = assert!(LEVELS == 11, "2^62 needs digits 0..=10");

/// One revolution of level 0, in ticks: an advance longer than this may
/// fast-forward.
const REVOLUTION: Tick = SLOTS as Tick;

/// Masks a deadline's digit on a level.
const SLOT_MASK: u64 = SLOTS as u64 - 1;

/// The `slot` of an entry on the overdue list rather than in a slot.
const OVERDUE: u32 = u32::MAX;

/// One pending timer.
#[derive(Debug)]
struct Node<P> {
    deadline: Tick,
    payload: P,
    /// The global slot id `level * SLOTS + slot` whose list holds the entry, or
    /// [`OVERDUE`].
    slot: u32,
    links: Links,
}

impl<P> Linked for Node<P> {
    fn links(&self) -> &Links {
        &self.links
    }
    fn links_mut(&mut self) -> &mut Links {
        &mut self.links
    }
}

/// A hierarchy of 64-slot wheels ticked one tick at a time, cascading when a
/// lower wheel wraps. See the module documentation.
#[derive(Debug)]
pub struct TickedHierarchicalWheel<P> {
    nodes: Arena<Node<P>>,
    /// Level `k`'s slots are `slots[k * SLOTS..(k + 1) * SLOTS]`; each an
    /// unordered list. Allocated once, at construction.
    slots: Box<[List]>,
    /// Timers inserted with a deadline at or before `now`; their `slot` is
    /// [`OVERDUE`].
    overdue: Overdue,
    /// The current time, and the last tick visited (or skipped by a
    /// fast-forward): the hand of level `k` points at digit `k` of it.
    now: Tick,
    counters: Counters,
}

/// The level for a timer due at `when > now`: the digit of the highest bit in
/// which the deadline differs from the current tick.
#[inline]
fn level_for(now: Tick, when: Tick) -> usize {
    debug_assert!(when > now, "deadline {when} is not after the tick {now}");
    // The `| SLOT_MASK` maps every difference within digit 0 to level 0.
    let highest_bit = ((now ^ when) | SLOT_MASK).ilog2();
    (highest_bit / LEVEL_BITS) as usize
}

/// The slot of `time` on `level`: its digit there. For a deadline, the slot it
/// goes in; for the current tick, where the level's hand points.
#[inline]
fn slot_for(time: Tick, level: usize) -> usize {
    // The digit is below SLOTS.
    ((time >> (LEVEL_BITS * level as u32)) & SLOT_MASK) as usize
}

/// The first tick of slot `slot` of `level` in the revolution that holds `time`.
/// Level 10's revolution is 2^66 ticks, beyond `u64`: it starts at 0.
#[inline]
fn slot_start(time: Tick, level: usize, slot: usize) -> Tick {
    let level_bits = LEVEL_BITS * (level as u32 + 1);
    let revolution_start = time
        .checked_shr(level_bits)
        .map_or(0, |high| high << level_bits);
    revolution_start + ((slot as u64) << (LEVEL_BITS * level as u32))
}

/// The levels above 0 that move at tick `t > 0`: `1..=moving_levels(t)`. A level
/// moves when every level below it wraps to slot 0 at `t`, that is when its
/// lower digits of `t` are all 0.
#[inline]
fn moving_levels(t: Tick) -> usize {
    debug_assert!(t > 0, "tick 0 is never visited");
    ((t.trailing_zeros() / LEVEL_BITS) as usize).min(LEVELS - 1)
}

impl<P> Default for TickedHierarchicalWheel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> TickedHierarchicalWheel<P> {
    /// An empty wheel at time 0.
    pub fn new() -> Self {
        Self {
            nodes: Arena::new(),
            slots: vec![List::EMPTY; LEVELS * SLOTS].into_boxed_slice(),
            overdue: Overdue::EMPTY,
            now: 0,
            counters: Counters::default(),
        }
    }

    /// Puts the unlinked entry `index`, due after `now`, in its slot relative to
    /// `now`.
    fn place(&mut self, index: u32) {
        let when = self.nodes.at(index).deadline;
        let level = level_for(self.now, when);
        let slot = slot_for(when, level);
        debug_assert!(
            slot > slot_for(self.now, level),
            "deadline {when} would go behind the hand of level {level} at {}",
            self.now
        );
        // Below LEVELS * SLOTS = 704.
        let id = level * SLOTS + slot;
        self.nodes.at_mut(index).slot = id as u32;
        self.slots[id].push_back(&mut self.nodes, index);
    }

    /// Moves the clock to `target`, ticking every tick on the way except for
    /// the fast-forwards of the module documentation.
    fn turn_to(&mut self, target: Tick, out: &mut Vec<Expired<P>>) {
        while self.now < target {
            if target - self.now > REVOLUTION {
                if self.nodes.is_empty() {
                    // Nothing left to fire: no tick can do anything.
                    self.now = target;
                    return;
                }
                // The overdue list was drained, so every timer is in a slot.
                let start = self
                    .earliest_slot_start()
                    .expect("timers are pending, so a slot is occupied");
                // No tick before `start` finds a timer, so the clock may stand
                // on the tick before it (or before `target`) without visiting
                // the ticks in between.
                self.now = self.now.max(start.min(target) - 1);
            }
            // Tick by hand through at most one revolution, then look again.
            let end = target.min(self.now + REVOLUTION);
            while self.now < end {
                self.now += 1;
                self.tick(self.now, out);
            }
        }
    }

    /// The earliest start of an occupied slot, by a plain scan: on each level
    /// from the slot after the hand, and the lowest occupied level holds the
    /// earliest one (its slots end before any slot ahead on the level above
    /// begins). `None` when every slot is empty. O(LEVELS * SLOTS).
    fn earliest_slot_start(&self) -> Option<Tick> {
        (0..LEVELS).find_map(|level| {
            let hand = slot_for(self.now, level);
            let level_slots = &self.slots[level * SLOTS..(level + 1) * SLOTS];
            (hand + 1..SLOTS)
                .find(|&slot| !level_slots[slot].is_empty())
                .map(|slot| slot_start(self.now, level, slot))
        })
    }

    /// Tick `t`, which the clock has just reached: the levels that move cascade
    /// the slot their hand reaches, coarsest first, then level 0 fires its slot.
    fn tick(&mut self, t: Tick, out: &mut Vec<Expired<P>>) {
        let fired_before = out.len();
        for level in (1..=moving_levels(t)).rev() {
            self.cascade(level, slot_for(t, level), t, out);
        }
        let slot = slot_for(t, 0);
        let mut due = self.slots[slot].take();
        self.counters.slot_visits += 1;
        // An empty tick is one that fires nothing, from level 0 or from a
        // cascade at a wrap; a tick is counted once, however many slots it
        // visits.
        let empty = due.is_empty() && out.len() == fired_before;
        self.counters.empty_slot_visits += u64::from(empty);
        while let Some(index) = due.pop_front(&mut self.nodes) {
            let node = self.nodes.remove_at(index);
            debug_assert_eq!(
                node.deadline, t,
                "level 0 slot {slot} at tick {t} held deadline {}",
                node.deadline
            );
            out.push(Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
        }
    }

    /// Visits slot `slot` of `level` at tick `t`, the slot's start: fires the
    /// timers due at `t` and places every other one again, relative to `t`, on a
    /// lower level.
    fn cascade(&mut self, level: usize, slot: usize, t: Tick, out: &mut Vec<Expired<P>>) {
        debug_assert_eq!(slot_start(t, level, slot), t);
        let mut entries = self.slots[level * SLOTS + slot].take();
        self.counters.slot_visits += 1;
        while let Some(index) = entries.pop_front(&mut self.nodes) {
            let when = self.nodes.at(index).deadline;
            debug_assert!(
                when >= t && (when - t) >> (LEVEL_BITS * level as u32) == 0,
                "level {level} slot {slot} reached at {t} held deadline {when}"
            );
            if when == t {
                let node = self.nodes.remove_at(index);
                out.push(Expired {
                    payload: node.payload,
                    deadline: node.deadline,
                });
            } else {
                self.place(index);
                self.counters.cascades += 1;
            }
        }
    }
}

impl<P> Algorithm for TickedHierarchicalWheel<P> {
    const NAME: &'static str = "ticked-hierarchical-wheel";
    const FAMILY: Family = Family::Seed;
    const TICKED: bool = true;
    const SUMMARY: &'static str = "V&L 7 as a \"water meter\": 11 levels of 64 slots, every \
         tick visited, cascade when a level wraps (what Kafka's DelayQueue saves)";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("levels={LEVELS},slots={SLOTS}")
    }
}

impl<P> TimerQueue<P> for TickedHierarchicalWheel<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            slot: OVERDUE,
            links: Links::UNLINKED,
        });
        if deadline <= self.now {
            self.overdue.push(&mut self.nodes, handle.index(), deadline);
        } else {
            self.place(handle.index());
        }
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let slot = self.nodes.get(handle)?.slot;
        let index = handle.index();
        if slot == OVERDUE {
            self.overdue.unlink(&mut self.nodes, index);
        } else {
            self.slots[slot as usize].unlink(&mut self.nodes, index);
        }
        Some(self.nodes.remove_at(index).payload)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        // Every timer in the wheel is due after the current time, so the overdue
        // ones come first.
        self.overdue
            .drain_sorted(&mut self.nodes, out, |node| Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
        self.turn_to(now, out);
        debug_assert_eq!(self.now, now, "the clock stopped short of now");
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.nodes.is_empty() {
            None
        } else if let Some(bound) = self.overdue.bound() {
            Some(bound)
        } else {
            // Every wheel timer is due after now, and the wheel must be ticked
            // to reach it. `now < MAX_DEADLINE` here, as a wheel timer's
            // deadline is above it.
            Some(self.now + 1)
        }
    }

    fn now(&self) -> Tick {
        self.now
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }

    fn counters(&self) -> Counters {
        self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitmap_wheel::BitmapWheel;
    use crate::list::NIL;

    /// Checks every invariant of the module documentation by walking the whole
    /// structure.
    fn assert_invariants<P>(wheel: &TickedHierarchicalWheel<P>) {
        let mut linked = 0;
        for level in 0..LEVELS {
            for slot in 0..SLOTS {
                let mut at = wheel.slots[level * SLOTS + slot].head();
                while at != NIL {
                    let node = wheel.nodes.at(at);
                    assert_eq!(node.slot as usize, level * SLOTS + slot);
                    assert_eq!(level_for(wheel.now, node.deadline), level);
                    assert_eq!(slot_for(node.deadline, level), slot);
                    assert!(slot > slot_for(wheel.now, level), "behind the hand");
                    linked += 1;
                    at = List::next_of(&wheel.nodes, at);
                }
            }
        }
        let mut at = wheel.overdue.head();
        while at != NIL {
            assert_eq!(wheel.nodes.at(at).slot, OVERDUE);
            assert!(wheel.nodes.at(at).deadline <= wheel.now);
            linked += 1;
            at = List::next_of(&wheel.nodes, at);
        }
        assert_eq!(linked, wheel.nodes.len(), "every entry is on one list");
    }

    fn fire(wheel: &mut TickedHierarchicalWheel<u64>, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        wheel.advance(now, &mut out);
        assert_invariants(wheel);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn the_level_is_the_highest_differing_digit() {
        assert_eq!(level_for(0, 1), 0);
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(level_for(63, 64), 1, "across the wrap: the minute differs");
        assert_eq!(level_for(64, 127), 0);
        assert_eq!(level_for(4095, 4096), 2);
        assert_eq!(level_for(0, MAX_DEADLINE), LEVELS - 1);
        assert_eq!(level_for(MAX_DEADLINE - 1, MAX_DEADLINE), LEVELS - 1);
    }

    #[test]
    fn slots_and_slot_starts() {
        assert_eq!(slot_for(64 + 5, 0), 5);
        assert_eq!(slot_for(3 * 64 + 5, 1), 3);
        assert_eq!(slot_for(MAX_DEADLINE, LEVELS - 1), 4);
        assert_eq!(slot_start(130, 0, 7), 135);
        assert_eq!(slot_start(130, 1, 3), 192);
        assert_eq!(slot_start(5, LEVELS - 1, 4), MAX_DEADLINE);
    }

    #[test]
    fn levels_move_when_every_level_below_wraps() {
        assert_eq!(moving_levels(1), 0);
        assert_eq!(moving_levels(63), 0);
        assert_eq!(moving_levels(64), 1);
        assert_eq!(moving_levels(128), 1);
        assert_eq!(moving_levels(4096), 2);
        assert_eq!(moving_levels(3 * 4096 + 64), 1);
        assert_eq!(moving_levels(1 << 60), 10);
        assert_eq!(moving_levels(MAX_DEADLINE), LEVELS - 1);
    }

    #[test]
    fn the_geometry_is_the_bitmap_wheels() {
        assert_eq!(LEVEL_BITS, crate::bitmap_wheel::LEVEL_BITS);
        assert_eq!(SLOTS, crate::bitmap_wheel::SLOTS);
        assert_eq!(LEVELS, crate::bitmap_wheel::LEVELS);
    }

    #[test]
    fn a_driver_stepping_tick_by_tick_sees_every_empty_tick() {
        let mut wheel = TickedHierarchicalWheel::new();
        // 1000 = 15 * 64 + 40: level 1, slot 15, reached at 960.
        wheel.insert(1_000, 1);
        assert_eq!(wheel.slots[SLOTS + 15].head(), 0);
        for now in 1..1_000 {
            assert_eq!(wheel.next_expiry(), Some(now));
            assert_eq!(fire(&mut wheel, now), [], "fired early at {now}");
        }
        assert_eq!(fire(&mut wheel, 1_000), [(1_000, 1)]);
        let counters = wheel.counters();
        // 1000 level-0 visits, plus level 1 at 64, 128, ..., 960.
        assert_eq!(counters.slot_visits, 1_000 + 15);
        // Every tick but 1000 fired nothing, the wrap at 960 that moved it
        // down included.
        assert_eq!(counters.empty_slot_visits, 999);
        assert_eq!(counters.cascades, 1);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn one_long_advance_skips_the_idle_ticks() {
        let mut wheel = TickedHierarchicalWheel::new();
        wheel.insert(1_000, 1);
        assert_eq!(fire(&mut wheel, 1_000), [(1_000, 1)]);
        // The scan finds level 1's slot 15 starting at 960; the clock jumps to
        // 959 and ticks 960..=1000: 41 level-0 visits and one level-1 visit.
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 42);
        assert_eq!(counters.empty_slot_visits, 40, "ticks 960..=999");
        // With nothing left, a long jump visits nothing; a short one is ticked.
        assert_eq!(fire(&mut wheel, 1 << 40), []);
        assert_eq!(wheel.counters().slot_visits, 42);
        assert_eq!(fire(&mut wheel, (1 << 40) + 64), []);
        assert_eq!(wheel.counters().slot_visits, 42 + 64 + 1);
    }

    #[test]
    fn a_timer_falls_through_several_levels_at_one_wrap() {
        let mut wheel = TickedHierarchicalWheel::new();
        // 2 * 4096 + 1: level 2 slot 2, reached at 8192, then straight to level 0.
        let when = 2 * 4096 + 1;
        wheel.insert(when, 1);
        wheel.insert(2 * 4096, 2);
        wheel.insert(4096 + 64, 3);
        assert_eq!(fire(&mut wheel, when - 1), [(4096 + 64, 3), (2 * 4096, 2)]);
        assert_eq!(fire(&mut wheel, when), [(when, 1)]);
        // 4160 moved level 2 -> 1 at 4096, fired from level 1 at 4160; 8192 fired
        // from level 2 at 8192; 8193 moved level 2 -> 0.
        assert_eq!(wheel.counters().cascades, 2);
    }

    #[test]
    fn the_farthest_deadline_and_a_huge_jump() {
        let mut wheel = TickedHierarchicalWheel::new();
        wheel.insert(MAX_DEADLINE, 1);
        wheel.insert(MAX_DEADLINE - 1, 2);
        wheel.insert(MAX_DEADLINE / 2 + 12_345, 3);
        assert_invariants(&wheel);
        assert_eq!(
            fire(&mut wheel, MAX_DEADLINE - 2),
            [(MAX_DEADLINE / 2 + 12_345, 3)]
        );
        assert_eq!(
            fire(&mut wheel, MAX_DEADLINE),
            [(MAX_DEADLINE - 1, 2), (MAX_DEADLINE, 1)]
        );
        assert!(
            wheel.counters().slot_visits < 10_000,
            "{:?}",
            wheel.counters()
        );
    }

    #[test]
    fn overdue_timers_come_first_and_sorted() {
        let mut wheel = TickedHierarchicalWheel::new();
        wheel.insert(120, 0);
        fire(&mut wheel, 100);
        for (p, d) in [(1, 90), (2, 10), (3, 100), (4, 50)] {
            wheel.insert(d, p);
        }
        assert_eq!(wheel.next_expiry(), Some(10));
        assert_eq!(
            fire(&mut wheel, 120),
            [(10, 2), (50, 4), (90, 1), (100, 3), (120, 0)]
        );
        assert_eq!(wheel.next_expiry(), None);
    }

    /// The same operations on this wheel and on `bitmap-wheel`: the same output,
    /// and the same cascades, since the two place timers by the same rule.
    #[test]
    fn it_places_and_cascades_like_the_bitmap_wheel() {
        let mut ticked = TickedHierarchicalWheel::new();
        let mut bitmap = BitmapWheel::new();
        let (mut handles, mut now) = (Vec::new(), 0);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..4_000u64 {
            let span = [70, 5_000, 300_000, 1 << 30][(i % 4) as usize];
            let deadline = now + (i * 7_919 + 13) % span;
            let h = ticked.insert(deadline, i);
            handles.push((h, bitmap.insert(deadline, i)));
            if i % 6 == 0 {
                let (h1, h2) = handles[(i * 31 % handles.len() as u64) as usize];
                assert_eq!(ticked.cancel(h1), bitmap.cancel(h2));
            }
            if i % 13 == 0 {
                now += (i * 17) % 4_000;
                ticked.advance(now, &mut a);
                bitmap.advance(now, &mut b);
                assert_eq!(a, b, "at {now}");
                assert_invariants(&ticked);
            }
        }
        ticked.advance(MAX_DEADLINE, &mut a);
        bitmap.advance(MAX_DEADLINE, &mut b);
        assert_eq!(a, b);
        assert!(ticked.is_empty() && bitmap.is_empty());
        let (t, m) = (ticked.counters(), bitmap.counters());
        assert!(t.cascades > 1_000, "{t:?}");
        assert_eq!(t.cascades, m.cascades);
        assert!(t.slot_visits > m.slot_visits, "{t:?} {m:?}");
        assert!(t.empty_slot_visits > m.empty_slot_visits, "{t:?} {m:?}");
    }

    #[test]
    fn a_wrap_whose_cascade_fires_is_not_an_empty_tick() {
        let mut wheel = TickedHierarchicalWheel::new();
        // 128: level 1, slot 2, reached at 128 and fired from there.
        wheel.insert(128, 1);
        for now in 1..128 {
            assert_eq!(fire(&mut wheel, now), []);
        }
        assert_eq!(fire(&mut wheel, 128), [(128, 1)]);
        let counters = wheel.counters();
        // 128 level-0 visits and level 1's at 64 and 128.
        assert_eq!(counters.slot_visits, 130);
        // Ticks 1..=127 fired nothing; tick 128 fired the timer although its
        // level-0 slot was empty.
        assert_eq!(counters.empty_slot_visits, 127);
        assert_eq!(counters.cascades, 0);
    }
}
