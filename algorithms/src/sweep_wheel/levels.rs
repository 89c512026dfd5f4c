//! The slot numbering: which level and slot a deadline goes to, and where a
//! slot starts.
//!
//! Level 0 resolves the low [`NEAR_BITS`] bits of a deadline, and each level
//! above it the next [`FAR_BITS`]. A deadline goes to the level whose digit
//! holds the highest bit in which it and the clock differ (tokio's rule, with
//! a wider level 0), to that digit's slot. Slots are numbered level by level,
//! level 0's first, so that one array of [`SLOT_COUNT`] vectors and one bitmap
//! cover them all.
//!
//! Filing is on every insert and every cascade, so it reads the level's
//! shift, digit mask, first slot and floor mask from tables indexed by the
//! highest differing bit ([`far_slot`]), built at compile time, rather than
//! dividing by the digit width to find the level first; fixed-size arrays let
//! one compare bound the slot and its occupancy word. Each table has a `const
//! fn` it is built from, and the tests check that the two agree.

use super::params::{FAR_BITS, FAR_SLOTS, LEVELS, NEAR_BITS, NEAR_SLOTS};
use crate::Tick;

/// Slots of all levels together, numbered level by level: level 0's first,
/// then each higher level's 64 (see [`BASE`]).
pub(super) const SLOT_COUNT: usize = NEAR_SLOTS + (LEVELS - 1) * FAR_SLOTS;

const _: () = assert!(
    NEAR_SLOTS.is_multiple_of(64) && FAR_SLOTS == 64,
    "levels fill whole words"
);

const _: () = assert!(
    LEVELS == 10,
    "a 10-bit level 0 and nine 6-bit levels cover 2^62"
);

/// The lowest bit of a deadline that is part of `level`'s digit.
pub(super) const fn digit_shift(level: usize) -> u32 {
    if level == 0 {
        0
    } else {
        NEAR_BITS + FAR_BITS * (level as u32 - 1)
    }
}

/// The number of bits of `level`'s digit.
pub(super) const fn digit_bits(level: usize) -> u32 {
    if level == 0 { NEAR_BITS } else { FAR_BITS }
}

/// The first slot number of `level` among all [`SLOT_COUNT`].
pub(super) const fn level_base(level: usize) -> usize {
    if level == 0 {
        0
    } else {
        NEAR_SLOTS + (level - 1) * FAR_SLOTS
    }
}

/// The mask of the digits above `level`: `time & mask` is the start of the
/// level's revolution that holds `time` (0 for the top level, whose
/// revolution is 2^64 ticks).
pub(super) const fn above_mask(level: usize) -> u64 {
    match u64::MAX.checked_shl(digit_shift(level) + digit_bits(level)) {
        Some(mask) => mask,
        None => 0,
    }
}

/// A table of `value` for every `level`, built at compile time, so that the
/// hot paths index instead of branching on the level.
macro_rules! per_level {
    (|$level:ident| $value:expr) => {{
        let mut table = [0; LEVELS];
        let mut $level = 0;
        while $level < LEVELS {
            table[$level] = $value;
            $level += 1;
        }
        table
    }};
}

/// Per level, [`digit_shift`].
pub(super) const SHIFT: [u32; LEVELS] = per_level!(|level| digit_shift(level));

/// Per level, the mask of a digit once shifted down: the slot within the
/// level.
#[cfg(test)]
pub(super) const DIGIT_MASK: [u64; LEVELS] = per_level!(|level| (1 << digit_bits(level)) - 1);

/// Per level, [`level_base`].
pub(super) const BASE: [usize; LEVELS] = per_level!(|level| level_base(level));

/// Per level, [`above_mask`].
pub(super) const ABOVE: [u64; LEVELS] = per_level!(|level| above_mask(level));

/// The highest bit in which `elapsed` and `when` differ, or a bit of level
/// 0's digit if they differ in none above it: the low mask makes the
/// logarithm defined when the two are equal, and maps every difference
/// within level 0's digit into that digit.
#[inline]
pub(super) fn highest_differing_bit(elapsed: Tick, when: Tick) -> usize {
    ((elapsed ^ when) | (NEAR_SLOTS as u64 - 1)).ilog2() as usize
}

/// The slot of level 1 or above for a deadline `when` at least
/// [`NEAR_SLOTS`] ticks after the clock `elapsed`, and the level's
/// [`slot_floor_mask`]: `slot_id(level, slot_for(when, level))` for the level
/// of `level_for(elapsed, when)`, read from tables by the highest bit.
#[inline(always)]
pub(super) fn far_slot(elapsed: Tick, when: Tick) -> (usize, Tick) {
    let bit = highest_differing_bit(elapsed, when);
    let shift = SHIFT_AT_BIT[bit];
    let id = BASE_AT_BIT[bit] + ((when >> shift) & DIGIT_MASK_AT_BIT[bit]) as usize;
    (id, FLOOR_AT_BIT[bit])
}

/// The level whose digit holds bit `bit` of a deadline.
pub(super) const fn level_at_bit(bit: usize) -> usize {
    // Bits below NEAR_BITS give (bit + FAR_BITS - NEAR_BITS) / FAR_BITS = 0
    // (saturating for the bits below NEAR_BITS - FAR_BITS).
    (bit + FAR_BITS as usize).saturating_sub(NEAR_BITS as usize) / FAR_BITS as usize
}

/// A table of `value` for every bit of a `u64`, built at compile time.
macro_rules! per_bit {
    (|$bit:ident| $value:expr) => {{
        let mut table = [0; 64];
        let mut $bit = 0;
        while $bit < 64 {
            table[$bit] = $value;
            $bit += 1;
        }
        table
    }};
}

// Per highest differing bit (see `highest_differing_bit`), the level's
// `SHIFT`, `DIGIT_MASK`, `BASE` and `slot_floor_mask`: filing reads these straight from the bit,
// with no division by the digit width to find the level first (`place`).
// Bit 63 never differs (deadlines are at most 2^62) and maps to the top level.
pub(super) const SHIFT_AT_BIT: [u32; 64] = per_bit!(|bit| digit_shift(level_at_bit(bit)));

pub(super) const DIGIT_MASK_AT_BIT: [u64; 64] =
    per_bit!(|bit| (1 << digit_bits(level_at_bit(bit))) - 1);

pub(super) const BASE_AT_BIT: [usize; 64] = per_bit!(|bit| level_base(level_at_bit(bit)));

pub(super) const FLOOR_AT_BIT: [Tick; 64] =
    per_bit!(|bit| Tick::MAX << digit_shift(level_at_bit(bit)));

/// The level for a timer due at `when > elapsed` on a wheel whose clock is
/// `elapsed`: the level whose digit holds the highest bit in which the two
/// differ (tokio's rule, with a wider level 0).
#[cfg(test)]
pub(super) fn level_for(elapsed: Tick, when: Tick) -> usize {
    level_at_bit(highest_differing_bit(elapsed, when))
}

/// The slot of `when` on `level`: its digit there.
#[cfg(test)]
pub(super) fn slot_for(when: Tick, level: usize) -> usize {
    ((when >> SHIFT[level]) & DIGIT_MASK[level]) as usize
}

/// The number of `level`'s slot `slot` among all [`SLOT_COUNT`] slots.
#[cfg(test)]
pub(super) fn slot_id(level: usize, slot: usize) -> usize {
    BASE[level] + slot
}

/// The level of slot number `id`.
#[inline]
pub(super) fn level_of(id: usize) -> usize {
    // Level 0's numbers, below NEAR_SLOTS, all give 0.
    id.saturating_sub(NEAR_SLOTS - FAR_SLOTS) / FAR_SLOTS
}

/// Clears the digits below `level`: `when & slot_floor_mask(level)` is the
/// start of the level-`level` slot that holds `when`, for a deadline that
/// shares every higher digit with the clock.
#[inline]
pub(super) fn slot_floor_mask(level: usize) -> Tick {
    Tick::MAX << SHIFT[level]
}

/// The first tick of slot `slot` of `level` in the revolution that holds
/// `time`.
#[inline]
pub(super) fn slot_start(time: Tick, level: usize, slot: usize) -> Tick {
    (time & ABOVE[level]) | ((slot as u64) << SHIFT[level])
}

/// The first tick after `elapsed` whose low [`NEAR_BITS`] bits are `slot`:
/// the start of level 0's ring slot `slot` (see the invariants), which is
/// never the clock's own slot.
#[inline]
pub(super) fn ring_start(elapsed: Tick, slot: usize) -> Tick {
    elapsed + ((slot as u64).wrapping_sub(elapsed) & (NEAR_SLOTS as u64 - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MAX_DEADLINE;

    #[test]
    fn the_level_is_the_digit_of_the_highest_differing_bit() {
        assert_eq!(level_for(0, 1), 0);
        assert_eq!(level_for(0, 1_023), 0);
        assert_eq!(level_for(0, 1_024), 1);
        assert_eq!(level_for(1_000, 1_030), 1, "crosses a level-0 revolution");
        assert_eq!(level_for(0, (1 << 16) - 1), 1);
        assert_eq!(level_for(0, 1 << 16), 2);
        assert_eq!(level_for(0, MAX_DEADLINE), LEVELS - 1);
        assert_eq!(slot_for(MAX_DEADLINE, LEVELS - 1), 1 << 4);
        assert_eq!(slot_start(5_000, 1, 4), 4_096);
        assert_eq!(slot_start(MAX_DEADLINE, LEVELS - 1, 16), MAX_DEADLINE);
        assert_eq!(5_000 & slot_floor_mask(1), 4_096);
    }

    #[test]
    fn the_far_slot_is_the_slot_of_the_level_of_the_highest_differing_bit() {
        for (elapsed, when) in [
            (0, NEAR_SLOTS as Tick),
            (5, 70_000),
            (1 << 20, (1 << 20) + 123_456_789),
            (3, MAX_DEADLINE),
        ] {
            let level = level_for(elapsed, when);
            assert!(level >= 1);
            assert_eq!(
                far_slot(elapsed, when),
                (
                    slot_id(level, slot_for(when, level)),
                    slot_floor_mask(level)
                )
            );
        }
    }

    #[test]
    fn the_level_tables_agree_with_the_level_functions() {
        for level in 0..LEVELS {
            assert_eq!(SHIFT[level], digit_shift(level));
            assert_eq!(level_of(BASE[level]), level);
            assert_eq!(level_of(BASE[level] + DIGIT_MASK[level] as usize), level);
            let covered = digit_shift(level) + digit_bits(level);
            assert_eq!(ABOVE[level], u64::MAX.checked_shl(covered).unwrap_or(0));
        }
        assert_eq!(BASE[LEVELS - 1] + FAR_SLOTS, SLOT_COUNT);
        for bit in 0..64 {
            let level = level_at_bit(bit);
            assert!(level < LEVELS, "bit {bit}");
            assert_eq!(SHIFT_AT_BIT[bit], SHIFT[level]);
            assert_eq!(DIGIT_MASK_AT_BIT[bit], DIGIT_MASK[level]);
            assert_eq!(BASE_AT_BIT[bit], BASE[level]);
            assert_eq!(FLOOR_AT_BIT[bit], slot_floor_mask(level));
        }
    }

    #[test]
    fn a_ring_slot_starts_at_the_next_tick_with_its_low_bits() {
        assert_eq!(ring_start(0, 5), 5);
        assert_eq!(ring_start(1_000, 1_001), 1_001);
        assert_eq!(ring_start(5_000, 5_000 % 1_024 + 1), 5_001);
        // Below the clock's slot: the next lap.
        assert_eq!(ring_start(1_000, 3), 1_027);
        assert_eq!(ring_start(1_023, 0), 1_024);
    }
}
