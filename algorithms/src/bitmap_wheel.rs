//! tokio's timer wheel: hierarchical levels of 64 slots, each level with a
//! `u64` occupancy bitmap, and a clock that jumps straight to the next occupied
//! slot.
//!
//! # Idea
//!
//! A deadline is a number written in base 64: digit `k` (bits `6k..6k + 6`) is
//! its slot on level `k`, whose slots each span `64^k` ticks. A timer goes on the
//! level of the highest digit in which its deadline differs from the wheel's
//! current time, `elapsed`:
//!
//! ```text
//! level = ((elapsed ^ when) | 63).ilog2() / 6
//! ```
//!
//! (the `| 63` puts deadlines that differ only in digit 0, or not at all, on
//! level 0). So every timer on level `k` shares digits `k + 1` and above with
//! `elapsed`, and its digit `k` is greater than `elapsed`'s: its slot lies ahead
//! in the current revolution of level `k`, never behind it.
//!
//! Each level keeps a `u64` whose bit `s` is set exactly when slot `s` is not
//! empty. The next slot a level must handle is the first set bit at or after the
//! level's current digit: one `rotate_right` by that digit and one
//! `trailing_zeros`. The earliest slot of the whole wheel is the first occupied
//! slot of the *lowest* level that has one, because every slot of level `k + 1`
//! starts after every slot of level `k` ends (a level-`k` timer shares digit
//! `k + 1` with `elapsed`; a level-`k + 1` timer's digit `k + 1` is greater). So
//! an advance never visits an empty slot: it takes the next occupied slot, sets
//! the clock to that slot's start, and repeats while that start is at most `now`.
//!
//! Cascading is lazy. A slot of level `k > 0` is taken whole when its start comes
//! due; each of its timers is either due at exactly that start, and fires, or is
//! placed again relative to the new clock, which puts it on a level below `k`
//! (its deadline now differs from the clock only below digit `k`).
//!
//! # Reschedule: a later deadline is only stored
//!
//! An idle timeout pushed back by every request is rescheduled far more often
//! than it fires, so tokio makes the push-back cheap. A timer keeps two
//! deadlines: the one its slot was chosen from (tokio's `registered_when`) and
//! the true one (the timer's state). `TimerEntry::reset` to a deadline at or
//! after the true one only stores the new true deadline
//! (`StateCell::extend_expiration`); the entry stays in its slot. That slot
//! still starts at or before the new deadline, so taking it is never early:
//! when it comes due, the driver's `process_expiration` sees that the true
//! deadline is later (`mark_pending` fails) and files the entry again from
//! the new clock. A reset to an earlier deadline, or of a timer already on the
//! driver's pending-fire list, is a remove and an insert (`reregister`).
//!
//! This wheel does the same, with one deadline field: the true one. It needs
//! no copy of the filed one, because an entry's list is named by its `slot`
//! field (tokio recomputes the list from `registered_when` on a remove). A
//! timer in a slot rescheduled to a deadline at or after its current one keeps
//! its handle and its slot and only has its deadline overwritten: O(1), no list
//! touched. An earlier deadline, or a timer on the overdue list (this wheel's
//! pending-fire list), is unlinked and linked again as a fresh insert, also
//! keeping its handle. When a slot is taken, each of its entries is one of
//! three cases: due at the slot's start (it fires), due later within the slot
//! (a lazy cascade down, counted in `cascades`), or due beyond the slot's end,
//! which only a reschedule can make (filed again, from the new clock, on
//! whatever level its deadline now calls for, possibly the same level or a
//! higher one; counted in `entries_examined_not_due`).
//!
//! Source: tokio 1.53.1 (tokio commit ea91b33ca57f, `tokio/Cargo.toml` version
//! 1.53.1), `tokio/src/runtime/time/wheel/mod.rs` and `level.rs` (the `Wheel`
//! of the runtime's time driver, also behind tokio-util's `DelayQueue`), which
//! has 6 levels of 64 slots at 1 ms, and `tokio/src/runtime/time/entry.rs` and
//! `mod.rs` for the reschedule (`TimerShared::registered_when`, called
//! `cached_when` before tokio's #7333, `true_when`,
//! `StateCell::extend_expiration`, `TimerEntry::reset`, `Handle::reregister`,
//! `Wheel::process_expiration`). It descends from the hierarchical wheels of
//! Varghese & Lauck (scheme 7); the bitmap is what tokio adds. This file is
//! written from that design, not from tokio's code.
//!
//! # Levels: 11, not tokio's 6
//!
//! tokio's 6 levels cover 2^36 ms (about 2.2 years) and it clamps longer delays
//! to that horizon, treating the top level as a ring. The contract here needs
//! every deadline up to [`MAX_DEADLINE`] = 2^62, whose highest set bit, 62, is in
//! digit 10. This wheel therefore has [`LEVELS`] = 11 levels (66 bits) instead of
//! an overflow structure beside 6 levels. The cost of the extra 5 levels:
//!
//! * 5 * 64 more list heads (2.5 KiB) and 5 more bitmaps, allocated once;
//! * finding the next slot looks at up to 11 bitmaps instead of 6, but stops at
//!   the first non-zero one, so a wheel whose timers are all within 2^36 ticks
//!   never looks past level 5;
//! * a timer 2^60 ticks out cascades up to 10 times instead of 5; only such
//!   timers pay it.
//!
//! An overflow structure (a heap or sorted list of the far timers, drained into
//! the top level as it comes within range) would keep 6 levels but add a second
//! data structure, its own ordering invariant and an O(log n) insert for far
//! timers, for deadlines that no workload comes near. With 11 levels no deadline
//! is out of range, the top level never wraps, and tokio's "slot behind the
//! clock means one revolution later" correction is never needed.
//!
//! # Next expiry
//!
//! [`TimerQueue::next_expiry`] is the start of the next slot the wheel would
//! take, as tokio's driver uses it for its sleep. It is a lower bound on every
//! deadline in the wheel: a slot starts at or before every deadline it holds
//! (at or before the deadline it was filed for, and a reschedule in place only
//! moves a deadline later). Without reschedules it is exact on level 0, where a
//! slot spans one tick, and on a higher level at most `64^k - 1` ticks early; a
//! timer pushed back in place may make it as early as the push-back is long,
//! which is allowed, since it is a lower bound. It is tight in the sense that
//! matters: the wheel has work to do at that tick (a cascade or a re-filing),
//! and finding the exact minimum would mean walking the slot's list, which
//! taking the slot does anyway. A driver that follows `next_expiry()`
//! therefore wakes at slot starts where nothing may fire (each of them moves at
//! least one timer, so there are at most `cascades + entries_examined_not_due`
//! of them): those wakeups are the price of the lazy cascade and of the cheap
//! push-back, and the harness's wakeup count shows them. Timers on the overdue
//! list contribute their running minimum (see [`crate::overdue`]).
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1): an `ilog2`, a push onto a list and a bit set |
//! | cancel | O(1): an unlink, and a bit clear if the slot empties |
//! | reschedule | O(1), handle kept: to a later or equal deadline, one store (the slot is left as it is); to an earlier one, or from the overdue list, an unlink and a link, as a cancel and an insert |
//! | advance | O(levels) to find each slot taken (a few bitmap tests), O(1) per timer fired, cascaded or filed again after a reschedule; no empty slot is visited, whatever the span; plus O(k log k) for k overdue timers |
//! | next expiry | O(levels): the first non-zero bitmap, one rotate and one `trailing_zeros` |
//!
//! A timer cascades at most once per level it starts above level 0, counting
//! from its last insert or its last filing again. It is filed again at most
//! once per reschedule in place, and only once for all the reschedules made
//! before its slot comes due: a filing again places it by its true deadline.
//! Memory:
//! `LEVELS * SLOTS` list heads (5.5 KiB), allocated at construction.
//!
//! # Invariants
//!
//! Between calls `elapsed == now`; during an advance `elapsed` is the start of
//! the slot last taken (at most the advance's `now`). Always:
//!
//! * every timer on level `k` was filed for a deadline `filed` (its deadline at
//!   its last insert, reschedule that moved it, or filing again) with
//!   `filed >> 6(k + 1) == elapsed >> 6(k + 1)` and digit `k` of `filed`
//!   greater than digit `k` of `elapsed`, so its slot starts after `elapsed`.
//!   Moving `elapsed` forward to at most the earliest slot start keeps this,
//!   since a value between `elapsed` and `filed` shares their common leading
//!   digits. Its deadline is `filed` or later (a reschedule in place only moves
//!   it later): so its slot starts after `elapsed` and at or before its
//!   deadline. When its deadline lies before the slot's end, its slot is the
//!   one `level_for` and `slot_for` give for its deadline (the deadline
//!   then shares the slot's leading digits); beyond the slot's end, the entry
//!   was pushed back in place and is filed again when the slot is taken;
//! * bit `s` of `occupied[k]` is set if and only if slot `s` of level `k` holds
//!   an entry;
//! * every entry is on exactly one list, a slot's or the overdue list, as its
//!   `slot` field records; the overdue list holds only deadlines at or before
//!   `now`.
//!
//! # Output order
//!
//! A timer fires only when the slot holding it is taken at a start equal to its
//! deadline: the others of the slot, due later (after a cascade's start, or
//! pushed back by a reschedule), are filed again, never fired. Slots are taken
//! in increasing start order (the next one is always the earliest, and every
//! slot that a cascade or a filing again fills starts after the slot being
//! emptied, whose start is the clock), so the wheel's output is sorted by
//! deadline, and every timer fires at exactly its deadline. The overdue batch
//! goes first, see [`crate::overdue`].
//!
//! # Counters
//!
//! * `slot_visits`: one per slot taken.
//! * `empty_slot_visits`: a slot taken that fired nothing (an empty tick of a
//!   clock that jumps): a higher-level slot whose timers all moved down, or
//!   were filed again. Never a slot with no timer: a slot is taken only when
//!   its bit is set, a bit is set only while its slot holds an entry, and a
//!   cancel that empties a slot clears its bit (unlike Kafka's DelayQueue,
//!   which keeps a bucket emptied by cancels and polls it anyway).
//! * `cascades`: one per timer moved from a taken slot to a lower level because
//!   its deadline lies inside the slot, after its start: the lazy cascade.
//! * `entries_examined_not_due`: one per timer of a taken slot whose deadline
//!   lies beyond the slot's end, which only a reschedule in place makes: it was
//!   examined, found not due, and filed again from the new clock (tokio's
//!   failed `mark_pending`). Without reschedules it stays 0: every timer of a
//!   taken slot then either fires or moves down.
//! * `bucket_expirations` stays 0 (no DelayQueue) and `insert_scan_steps` stays 0
//!   (an insert computes its slot, it never steps over entries).
//!
//! # Parameters
//!
//! None to tune. [`SLOTS`] = 64 so that a level's occupancy is one `u64` and the
//! next occupied slot is one machine instruction away, as in tokio and in Linux's
//! timer wheel; [`LEVELS`] = 11 so that 2^62 fits, see above. `params()` is
//! `"levels=11,slots=64"`.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List};
use crate::overdue::Overdue;
use crate::{Algorithm, Counters, Expired, Family, MAX_DEADLINE, Tick, TimerQueue, check_deadline};

/// Bits of a deadline per level: a level has `2^LEVEL_BITS` slots.
pub const LEVEL_BITS: u32 = 6;

/// Slots per level: 64, one bit each in a `u64` occupancy bitmap.
pub const SLOTS: usize = 1 << LEVEL_BITS;

/// Levels: the smallest count whose digits cover every bit of [`MAX_DEADLINE`]
/// (2^62 has its highest set bit at 62, in digit 62 / 6 = 10). tokio has 6.
pub const LEVELS: usize = (MAX_DEADLINE.ilog2() / LEVEL_BITS) as usize + 1;

const _: () = assert!(LEVELS == 11, "2^62 needs digits 0..=10");

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

/// The next slot to take: tokio's `Expiration`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Expiration {
    level: usize,
    slot: usize,
    /// The slot's start: the first tick it covers.
    deadline: Tick,
}

/// tokio's hierarchical timer wheel with occupancy bitmaps. See the module
/// documentation.
#[derive(Debug)]
pub struct BitmapWheel<P> {
    nodes: Arena<Node<P>>,
    /// Level `k`'s slots are `slots[k * SLOTS..(k + 1) * SLOTS]`; each an
    /// unordered list. Allocated once, at construction.
    slots: Box<[List]>,
    /// Bit `s` of `occupied[k]` is set exactly when slot `s` of level `k` holds
    /// an entry; the least significant bit is slot 0.
    occupied: [u64; LEVELS],
    /// Timers inserted with a deadline at or before `now`; their `slot` is
    /// [`OVERDUE`].
    overdue: Overdue,
    /// The wheel's clock: `now` between calls, the start of the slot last taken
    /// during an advance. Every placement is relative to it.
    elapsed: Tick,
    counters: Counters,
}

/// The level for a timer due at `when` on a wheel whose clock is `elapsed`: the
/// digit of the highest bit in which the two differ. `when` is clamped to at
/// least `elapsed`, as in tokio (a deadline already passed would go on level 0);
/// the wheel never relies on the clamp, since it puts such timers on the
/// overdue list.
#[inline]
fn level_for(elapsed: Tick, when: Tick) -> usize {
    let when = when.max(elapsed);
    // The `| SLOT_MASK` makes the logarithm defined when the two are equal and
    // maps every difference within digit 0 to level 0.
    let highest_bit = ((elapsed ^ when) | SLOT_MASK).ilog2();
    (highest_bit / LEVEL_BITS) as usize
}

/// The slot of a timer due at `when` on `level`: its digit there.
#[inline]
fn slot_for(when: Tick, level: usize) -> usize {
    // The digit is below SLOTS.
    ((when >> (LEVEL_BITS * level as u32)) & SLOT_MASK) as usize
}

/// The first occupied slot at or after `from`, wrapping around, in a level with
/// occupancy bitmap `occupied`; `None` if the level is empty. One rotation brings
/// slot `from` to bit 0, and the trailing zeros count the empty slots after it.
#[inline]
fn next_occupied(occupied: u64, from: usize) -> Option<usize> {
    if occupied == 0 {
        return None;
    }
    let rotated = occupied.rotate_right(from as u32);
    Some((rotated.trailing_zeros() as usize + from) % SLOTS)
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

impl<P> Default for BitmapWheel<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> BitmapWheel<P> {
    /// An empty wheel at time 0.
    pub fn new() -> Self {
        Self {
            nodes: Arena::new(),
            slots: vec![List::EMPTY; LEVELS * SLOTS].into_boxed_slice(),
            occupied: [0; LEVELS],
            overdue: Overdue::EMPTY,
            elapsed: 0,
            counters: Counters::default(),
        }
    }

    /// Puts the unlinked entry `index`, due after `elapsed`, in its slot and
    /// returns the level it went to.
    fn place(&mut self, index: u32) -> usize {
        let when = self.nodes.at(index).deadline;
        debug_assert!(
            when > self.elapsed,
            "placing deadline {when} at or before the clock {}",
            self.elapsed
        );
        let level = level_for(self.elapsed, when);
        let slot = slot_for(when, level);
        // Below LEVELS * SLOTS = 704.
        let id = level * SLOTS + slot;
        self.nodes.at_mut(index).slot = id as u32;
        self.slots[id].push_back(&mut self.nodes, index);
        self.occupied[level] |= 1 << slot;
        level
    }

    /// Links the unlinked entry `index`, between calls: onto the overdue list if
    /// its deadline is at or before the clock (which is `now` between calls),
    /// else into its slot.
    fn link(&mut self, index: u32) {
        let deadline = self.nodes.at(index).deadline;
        if deadline <= self.elapsed {
            self.nodes.at_mut(index).slot = OVERDUE;
            self.overdue.push(&mut self.nodes, index, deadline);
        } else {
            self.place(index);
        }
    }

    /// Unlinks the pending entry `index` from the list it is on, clearing its
    /// slot's bit if the slot empties, so that no slot is ever taken empty.
    fn unlink(&mut self, index: u32) {
        let slot = self.nodes.at(index).slot;
        if slot == OVERDUE {
            self.overdue.unlink(&mut self.nodes, index);
        } else {
            let list = &mut self.slots[slot as usize];
            list.unlink(&mut self.nodes, index);
            if list.is_empty() {
                let (level, bit) = (slot as usize / SLOTS, slot as usize % SLOTS);
                self.occupied[level] &= !(1 << bit);
            }
        }
    }

    /// The next slot to take: the first occupied slot of the lowest level that
    /// has one, which is the earliest slot of the wheel (see the module doc).
    fn next_expiration(&self) -> Option<Expiration> {
        let level = self.occupied.iter().position(|&bits| bits != 0)?;
        let digit = slot_for(self.elapsed, level);
        let slot = next_occupied(self.occupied[level], digit).expect("the level is occupied");
        let deadline = slot_start(self.elapsed, level, slot);
        // Every occupied slot lies ahead of the clock on its level, so the search
        // never wraps and the start is after the clock (tokio needs a correction
        // here for its top level, which this wheel's 11 levels never wrap).
        debug_assert!(
            slot > digit && deadline > self.elapsed,
            "level {level} slot {slot} (start {deadline}) is not ahead of the clock {} (digit {digit})",
            self.elapsed
        );
        Some(Expiration {
            level,
            slot,
            deadline,
        })
    }

    /// Takes the whole slot of `expiration`, moves the clock to its start, fires
    /// its timers that are due there and moves the others to lower levels.
    fn take_slot(&mut self, expiration: Expiration, out: &mut Vec<Expired<P>>) {
        let Expiration {
            level,
            slot,
            deadline,
        } = expiration;
        self.counters.slot_visits += 1;
        let fired_before = out.len();
        self.elapsed = deadline;
        self.occupied[level] &= !(1 << slot);
        let mut entries = self.slots[level * SLOTS + slot].take();
        debug_assert!(
            !entries.is_empty(),
            "level {level} slot {slot} was marked occupied but empty"
        );
        // The slot's end: no overflow, since the start is at most 2^62 and the
        // top level's span is 2^60.
        let end = deadline + (1 << (LEVEL_BITS * level as u32));
        while let Some(index) = entries.pop_front(&mut self.nodes) {
            let when = self.nodes.at(index).deadline;
            debug_assert!(
                when >= deadline,
                "level {level} slot {slot} starting at {deadline} held deadline {when}"
            );
            if when == deadline {
                let node = self.nodes.remove_at(index);
                out.push(Expired {
                    payload: node.payload,
                    deadline: node.deadline,
                });
            } else if when < end {
                // Due within the slot, after its start: the lazy cascade moves
                // it to a finer level.
                let to = self.place(index);
                debug_assert!(
                    to < level,
                    "deadline {when} cascaded from level {level} to {to}"
                );
                self.counters.cascades += 1;
            } else {
                // A reschedule pushed the deadline past the slot it was filed
                // in, and left it there: file it now, from the new clock, on
                // whatever level its deadline calls for (tokio's
                // `process_expiration` when `mark_pending` fails).
                self.place(index);
                self.counters.entries_examined_not_due += 1;
            }
        }
        // A slot whose timers all moved down or were filed again fired
        // nothing: a step of the clock that did no firing, an empty tick.
        self.counters.empty_slot_visits += u64::from(out.len() == fired_before);
    }
}

impl<P> Algorithm for BitmapWheel<P> {
    const NAME: &'static str = "bitmap-wheel";
    const FAMILY: Family = Family::Modern;
    const SUMMARY: &'static str = "tokio's wheel: 64-slot levels with a `u64` occupancy bitmap \
         each, the clock jumps to the next occupied slot, lazy cascade";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("levels={LEVELS},slots={SLOTS}")
    }
}

impl<P> TimerQueue<P> for BitmapWheel<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            slot: OVERDUE,
            links: Links::UNLINKED,
        });
        self.link(handle.index());
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        self.nodes.get(handle)?;
        let index = handle.index();
        self.unlink(index);
        Some(self.nodes.remove_at(index).payload)
    }

    /// As tokio's `TimerEntry::reset` does it, keeping the handle: a later (or
    /// equal) deadline for a timer in a slot is only stored, and the timer stays
    /// in the slot it was filed in, which starts at or before its old deadline
    /// and so before the new one; when that slot is taken, the timer is found
    /// not due and filed again (see `take_slot`). An earlier deadline, or a timer
    /// on the overdue list (tokio's "pending fire" state, which `reset` cannot
    /// extend either), is unlinked and linked again as a fresh insert would be.
    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        check_deadline(deadline);
        let node = self.nodes.get_mut(handle)?;
        if node.slot != OVERDUE && deadline >= node.deadline {
            node.deadline = deadline;
            return Some(handle);
        }
        let index = handle.index();
        self.unlink(index);
        self.nodes.at_mut(index).deadline = deadline;
        self.link(index);
        Some(handle)
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.elapsed {
            return;
        }
        self.overdue
            .drain_sorted(&mut self.nodes, out, |node| Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
        while let Some(expiration) = self.next_expiration() {
            if expiration.deadline > now {
                break;
            }
            self.take_slot(expiration, out);
        }
        // Nothing starts before the next expiration, so moving the clock up to
        // `now` keeps every timer ahead of it on its level.
        self.elapsed = now;
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        let wheel = self.next_expiration().map(|expiration| expiration.deadline);
        match (wheel, self.overdue.bound()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn now(&self) -> Tick {
        self.elapsed
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
    use crate::list::NIL;

    /// Checks every invariant of the module documentation by walking the whole
    /// structure.
    fn assert_invariants<P>(wheel: &BitmapWheel<P>) {
        let mut linked = 0;
        for level in 0..LEVELS {
            for slot in 0..SLOTS {
                let list = &wheel.slots[level * SLOTS + slot];
                let bit = wheel.occupied[level] >> slot & 1 == 1;
                assert_eq!(bit, !list.is_empty(), "level {level} slot {slot}");
                let mut at = list.head();
                while at != NIL {
                    let node = wheel.nodes.at(at);
                    assert_eq!(node.slot as usize, level * SLOTS + slot);
                    assert!(slot > slot_for(wheel.elapsed, level));
                    let start = slot_start(wheel.elapsed, level, slot);
                    assert!(
                        wheel.elapsed < start && start <= node.deadline,
                        "level {level} slot {slot} (start {start}) holds deadline {} at clock {}",
                        node.deadline,
                        wheel.elapsed
                    );
                    // A deadline beyond the slot's end was pushed back in place;
                    // any other is in the slot a fresh insert would choose.
                    if node.deadline - start < 1 << (LEVEL_BITS * level as u32) {
                        assert_eq!(level_for(wheel.elapsed, node.deadline), level);
                        assert_eq!(slot_for(node.deadline, level), slot);
                    }
                    linked += 1;
                    at = List::next_of(&wheel.nodes, at);
                }
            }
        }
        let mut at = wheel.overdue.head();
        while at != NIL {
            assert_eq!(wheel.nodes.at(at).slot, OVERDUE);
            assert!(wheel.nodes.at(at).deadline <= wheel.elapsed);
            linked += 1;
            at = List::next_of(&wheel.nodes, at);
        }
        assert_eq!(linked, wheel.nodes.len(), "every entry is on one list");
    }

    fn fire(wheel: &mut BitmapWheel<u64>, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        wheel.advance(now, &mut out);
        assert_invariants(wheel);
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn the_level_is_the_highest_differing_digit() {
        assert_eq!(level_for(0, 0), 0, "equal: level 0");
        assert_eq!(level_for(0, 63), 0);
        assert_eq!(level_for(0, 64), 1);
        assert_eq!(
            level_for(63, 64),
            1,
            "one tick away, but across a level-1 slot"
        );
        assert_eq!(level_for(64, 127), 0);
        assert_eq!(level_for(0, 4095), 1);
        assert_eq!(level_for(0, 4096), 2);
        assert_eq!(
            level_for(100, 50),
            0,
            "a past deadline is clamped to the clock"
        );
        assert_eq!(level_for(0, 1 << 36), 6, "beyond tokio's 6 levels");
        assert_eq!(level_for(0, MAX_DEADLINE), LEVELS - 1);
        assert_eq!(level_for(MAX_DEADLINE - 1, MAX_DEADLINE), LEVELS - 1);
        assert_eq!(level_for(MAX_DEADLINE, MAX_DEADLINE), 0);
    }

    #[test]
    fn the_slot_is_the_digit_on_its_level() {
        assert_eq!(slot_for(5, 0), 5);
        assert_eq!(slot_for(64 + 5, 0), 5);
        assert_eq!(slot_for(3 * 64 + 5, 1), 3);
        assert_eq!(slot_for(7 << 12, 2), 7);
        assert_eq!(
            slot_for(MAX_DEADLINE, LEVELS - 1),
            4,
            "2^62 is digit 4 of level 10"
        );
        // A slot's start holds the slot: the two helpers agree.
        for (time, when) in [
            (0, 5),
            (10, 700),
            (4095, 4096),
            (1 << 40, (1 << 40) + 123_456_789),
        ] {
            let level = level_for(time, when);
            let start = slot_start(time, level, slot_for(when, level));
            assert!(
                start <= when && start > time,
                "time {time} when {when}: start {start}"
            );
            assert!(when - start < 1 << (LEVEL_BITS * level as u32));
        }
        assert_eq!(slot_start(MAX_DEADLINE - 1, LEVELS - 1, 4), MAX_DEADLINE);
        assert_eq!(slot_start(130, 0, 7), 135);
        assert_eq!(slot_start(130, 1, 3), 192);
    }

    #[test]
    fn the_next_occupied_slot_is_one_rotate_away() {
        assert_eq!(next_occupied(0, 0), None);
        assert_eq!(next_occupied(1, 0), Some(0));
        assert_eq!(next_occupied(1 << 5, 3), Some(5));
        assert_eq!(next_occupied(1 << 5 | 1 << 40, 6), Some(40));
        assert_eq!(next_occupied(1 << 2, 10), Some(2), "wraps around");
        assert_eq!(next_occupied(1 << 63, 63), Some(63));
        assert_eq!(next_occupied(u64::MAX, 17), Some(17));
        // Against a plain search, for a spread of bitmaps and starting points.
        for seed in 0..200u64 {
            let bits = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (seed % 64);
            for from in 0..SLOTS {
                let plain = (0..SLOTS)
                    .map(|i| (from + i) % SLOTS)
                    .find(|&slot| bits >> slot & 1 == 1);
                assert_eq!(
                    next_occupied(bits, from),
                    plain,
                    "bits {bits:#x} from {from}"
                );
            }
        }
    }

    #[test]
    fn a_far_timer_cascades_through_slot_starts_with_empty_ticks() {
        let mut wheel = BitmapWheel::new();
        let when = 3 * 4096 + 5 * 64 + 7;
        wheel.insert(when, 1);
        assert_invariants(&wheel);
        assert_eq!(wheel.next_expiry(), Some(3 * 4096), "level 2's slot start");
        assert_eq!(fire(&mut wheel, 3 * 4096), []);
        assert_eq!(wheel.next_expiry(), Some(3 * 4096 + 5 * 64));
        assert_eq!(fire(&mut wheel, when - 1), []);
        assert_eq!(wheel.next_expiry(), Some(when), "exact on level 0");
        assert_eq!(fire(&mut wheel, when), [(when, 1)]);
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 3, "one slot per level");
        assert_eq!(counters.cascades, 2);
        // The two visits that only moved it down fired nothing.
        assert_eq!(counters.empty_slot_visits, 2);
        assert_eq!(wheel.next_expiry(), None);
    }

    #[test]
    fn a_timer_at_a_slot_start_fires_from_its_level() {
        let mut wheel = BitmapWheel::new();
        wheel.insert(2 * 64, 1);
        wheel.insert(2 * 64 + 1, 2);
        assert_eq!(fire(&mut wheel, 1_000), [(128, 1), (129, 2)]);
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 2);
        assert_eq!(counters.cascades, 1, "only the later one moved down");
    }

    #[test]
    fn a_cancel_that_empties_a_slot_clears_its_bit() {
        let mut wheel = BitmapWheel::new();
        let a = wheel.insert(70, 1);
        let b = wheel.insert(71, 2);
        assert_eq!(wheel.occupied[1], 1 << 1);
        assert_eq!(wheel.cancel(a), Some(1));
        assert_eq!(wheel.occupied[1], 1 << 1, "one timer left");
        assert_eq!(wheel.cancel(b), Some(2));
        assert_eq!(wheel.occupied[1], 0);
        assert_eq!(wheel.next_expiry(), None);
        assert_eq!(fire(&mut wheel, 1 << 40), []);
        assert_eq!(wheel.counters(), Counters::default(), "nothing was visited");
    }

    /// A slot is taken only while it holds a timer, so a taken slot that
    /// fired nothing moved at least one timer down or filed it again.
    fn assert_every_empty_tick_moved_a_timer(wheel: &BitmapWheel<u64>) {
        let c = wheel.counters();
        assert!(
            c.empty_slot_visits <= c.cascades + c.entries_examined_not_due,
            "{c:?}"
        );
    }

    #[test]
    fn the_farthest_deadline_is_on_the_top_level() {
        let mut wheel = BitmapWheel::new();
        wheel.insert(MAX_DEADLINE, 1);
        wheel.insert(MAX_DEADLINE - 1, 2);
        assert_invariants(&wheel);
        assert_eq!(wheel.occupied[LEVELS - 1], 1 << 3 | 1 << 4);
        assert_eq!(fire(&mut wheel, MAX_DEADLINE - 2), []);
        assert_eq!(
            fire(&mut wheel, MAX_DEADLINE),
            [(MAX_DEADLINE - 1, 2), (MAX_DEADLINE, 1)]
        );
        assert_every_empty_tick_moved_a_timer(&wheel);
    }

    #[test]
    fn overdue_timers_come_first_and_sorted() {
        let mut wheel = BitmapWheel::new();
        wheel.insert(120, 0);
        fire(&mut wheel, 100);
        for (p, d) in [(1, 90), (2, 10), (3, 100), (4, 50)] {
            wheel.insert(d, p);
        }
        assert_eq!(wheel.next_expiry(), Some(10));
        assert_invariants(&wheel);
        assert_eq!(
            fire(&mut wheel, 120),
            [(10, 2), (50, 4), (90, 1), (100, 3), (120, 0)]
        );
    }

    #[test]
    fn scattered_timers_keep_the_invariants() {
        let mut wheel = BitmapWheel::new();
        let mut handles = Vec::new();
        let mut now = 0;
        let mut fired = 0;
        for i in 0..3_000u64 {
            let deadline = now + (i * 7_919 + 13) % (1 + (i % 7) * 20_011);
            handles.push(wheel.insert(deadline, i));
            if i % 5 == 0 {
                wheel.cancel(handles[(i * 31 % handles.len() as u64) as usize]);
            }
            if i % 17 == 0 {
                now += i % 900;
                let batch = fire(&mut wheel, now);
                assert!(batch.windows(2).all(|w| w[0].0 <= w[1].0));
                assert!(batch.iter().all(|&(d, _)| d <= now));
                fired += batch.len();
                assert!(wheel.next_expiry().is_none_or(|next| next > now));
            }
        }
        assert_invariants(&wheel);
        let rest = wheel.len();
        assert_eq!(fire(&mut wheel, MAX_DEADLINE).len(), rest);
        assert!(fired > 0 && wheel.is_empty());
        assert_every_empty_tick_moved_a_timer(&wheel);
    }

    #[test]
    fn a_later_reschedule_keeps_the_slot_and_refiles_when_the_slot_comes_due() {
        let mut wheel = BitmapWheel::new();
        // 100 is on level 1, slot 1 (ticks 64..128).
        let handle = wheel.insert(100, 7);
        let id = wheel.nodes.at(handle.index()).slot;
        assert_eq!(wheel.reschedule(handle, 5_000), Some(handle), "same handle");
        assert_eq!(wheel.nodes.at(handle.index()).slot, id, "same slot");
        assert_eq!(wheel.occupied[1], 1 << 1);
        assert_invariants(&wheel);
        // The old slot's start is still the bound: early, but a lower bound.
        assert_eq!(wheel.next_expiry(), Some(64));
        assert_eq!(
            fire(&mut wheel, 64),
            [],
            "the slot comes due: not the timer"
        );
        let counters = wheel.counters();
        assert_eq!(counters.slot_visits, 1);
        assert_eq!(counters.entries_examined_not_due, 1, "filed again");
        assert_eq!(counters.cascades, 0);
        // Filed from clock 64 by its true deadline: level 2, slot 1 (4096..8192).
        assert_eq!(wheel.occupied[1], 0);
        assert_eq!(wheel.occupied[2], 1 << 1);
        assert_eq!(wheel.next_expiry(), Some(4_096));
        assert_eq!(fire(&mut wheel, 4_999), []);
        assert_eq!(wheel.next_expiry(), Some(5_000));
        assert_eq!(
            fire(&mut wheel, 5_000),
            [(5_000, 7)],
            "exactly at its deadline"
        );
        assert_eq!(wheel.counters().entries_examined_not_due, 1);
        assert_eq!(wheel.reschedule(handle, 6_000), None, "fired: stale");
    }

    #[test]
    fn push_backs_before_the_slot_comes_due_cost_one_refiling() {
        let mut wheel = BitmapWheel::new();
        // A level-0 timer pushed back 100 times before its tick comes.
        let handle = wheel.insert(10, 1);
        for deadline in 11..=110 {
            assert_eq!(wheel.reschedule(handle, deadline), Some(handle));
        }
        assert_eq!(wheel.occupied[0], 1 << 10, "still in slot 10 of level 0");
        assert_eq!(
            wheel.reschedule(handle, 110),
            Some(handle),
            "an equal deadline"
        );
        assert_eq!(fire(&mut wheel, 109), []);
        assert_eq!(fire(&mut wheel, 110), [(110, 1)]);
        let counters = wheel.counters();
        assert_eq!(counters.entries_examined_not_due, 1);
        // 110 from clock 10 is on level 1, and cascades once at 64.
        assert_eq!(counters.cascades, 1);
        assert_eq!(counters.slot_visits, 3);
    }

    #[test]
    fn an_earlier_reschedule_moves_the_timer() {
        let mut wheel = BitmapWheel::new();
        let handle = wheel.insert(5_000, 1);
        assert_eq!(wheel.occupied[2], 1 << 1);
        assert_eq!(wheel.reschedule(handle, 100), Some(handle));
        assert_eq!(wheel.occupied[2], 0, "taken out of its old slot");
        assert_eq!(wheel.occupied[1], 1 << 1);
        assert_eq!(wheel.next_expiry(), Some(64));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 99), []);
        // At or before the clock: onto the overdue list, fired by the next
        // advance even one that does not move the clock.
        assert_eq!(wheel.reschedule(handle, 30), Some(handle));
        assert_eq!(wheel.next_expiry(), Some(30));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 99), [(30, 1)]);
        assert_eq!(wheel.counters().entries_examined_not_due, 0);
    }

    #[test]
    fn an_overdue_timer_rescheduled_later_leaves_the_overdue_list() {
        let mut wheel = BitmapWheel::new();
        fire(&mut wheel, 1_000);
        let handle = wheel.insert(900, 1);
        assert_eq!(wheel.reschedule(handle, 1_500), Some(handle));
        assert_invariants(&wheel);
        assert_eq!(fire(&mut wheel, 1_000), [], "no longer overdue");
        assert_eq!(fire(&mut wheel, 1_500), [(1_500, 1)]);
        let cancelled = wheel.insert(2_000, 2);
        assert_eq!(wheel.cancel(cancelled), Some(2));
        assert_eq!(wheel.reschedule(cancelled, 3_000), None, "cancelled: stale");
    }

    #[test]
    fn rescheduled_timers_fire_at_their_deadlines_in_order() {
        // Many timers pushed back and pulled in at random, some far past their
        // slots: every one fires exactly in the advance that reaches its
        // deadline, each advance's batch in deadline order.
        let mut wheel = BitmapWheel::new();
        let mut deadlines = Vec::new();
        let mut handles = Vec::new();
        let mut now = 0;
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for i in 0..5_000u64 {
            let deadline = now + next() % (1 << (next() % 24));
            handles.push(wheel.insert(deadline, i));
            deadlines.push(deadline);
            for _ in 0..3 {
                let p = (next() % deadlines.len() as u64) as usize;
                if deadlines[p] == Tick::MAX {
                    continue;
                }
                // Mostly later (in place), sometimes earlier (moved).
                let deadline = if next() % 4 == 0 {
                    now + next() % 5_000
                } else {
                    deadlines[p] + next() % (1 << (next() % 30))
                };
                assert_eq!(wheel.reschedule(handles[p], deadline), Some(handles[p]));
                deadlines[p] = deadline;
            }
            if i % 7 == 0 {
                now += next() % 20_000;
                let batch = fire(&mut wheel, now);
                assert!(batch.windows(2).all(|w| w[0].0 <= w[1].0), "sorted");
                for (deadline, p) in batch {
                    assert_eq!(deadlines[p as usize], deadline);
                    assert!(deadline <= now, "{p} fired early");
                    deadlines[p as usize] = Tick::MAX;
                }
                assert!(
                    deadlines.iter().all(|&d| d == Tick::MAX || d > now),
                    "a due timer stayed"
                );
                assert!(
                    wheel.next_expiry().is_none_or(|bound| {
                        bound > now && deadlines.iter().all(|&d| d >= bound)
                    })
                );
            }
        }
        let rest = wheel.len();
        let batch = fire(&mut wheel, MAX_DEADLINE);
        assert_eq!(batch.len(), rest);
        assert!(batch.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(wheel.counters().entries_examined_not_due > 0);
        assert_every_empty_tick_moved_a_timer(&wheel);
    }
}
