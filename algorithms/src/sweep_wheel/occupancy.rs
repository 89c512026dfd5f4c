//! Which slots hold handles: one bit per slot, under a summary word.
//!
//! The bitmap has a bit per slot number ([`WORDS`] words) and a summary word
//! whose bit `w` is set when word `w` is not zero, so that the first occupied
//! slot is two `trailing_zeros`. On every level above 0 the occupied slots lie
//! after the clock's digit and never wrap round (see the wheel's invariants),
//! and slot numbers go level by level, so the earliest occupied higher slot is
//! the lowest set bit above level 0's words ([`Occupancy::first_far`]). Level 0
//! is a ring, so its first slot is searched from the clock's slot round it
//! ([`Occupancy::first_near`]): one masked word, then the summary.
//!
//! A bit is set from a table of the 64 powers of two ([`BIT`]) rather than by
//! a shift by a variable amount, which takes more instructions on x86-64
//! without BMI2.

use super::levels::SLOT_COUNT;
use super::params::NEAR_SLOTS;

/// Words of the occupancy bitmap: one bit per slot, in slot-number order, so
/// that level 0 has [`NEAR_SLOTS`]` / 64` words and every higher level one.
pub(super) const WORDS: usize = SLOT_COUNT / 64;

/// The bits of the summary word that stand for level 0's words.
pub(super) const NEAR_SUMMARY: u64 = (1 << (NEAR_SLOTS / 64)) - 1;

const _: () = assert!(WORDS <= 64, "the summary word has a bit per word");

/// `BIT[i]` is `1 << i`: a table read is shorter than a shift by a
/// variable amount on x86-64 without BMI2.
pub(super) const BIT: [u64; 64] = {
    let mut bits = [0; 64];
    let mut i = 0;
    while i < 64 {
        bits[i] = 1 << i;
        i += 1;
    }
    bits
};

/// Which slots hold handles: a bit per slot number, in [`WORDS`] words under a
/// summary word whose bit `w` is set when word `w` is not zero.
///
/// On every level above 0 the occupied slots lie after the clock's digit and
/// never wrap round (see the invariants), and slot numbers go level by
/// level, so the earliest occupied higher slot is the lowest set bit above
/// level 0's words: two `trailing_zeros` ([`Self::first_far`]). Level 0 is a
/// ring, so its first slot is searched from the clock's slot round it
/// ([`Self::first_near`]).
#[derive(Clone, Debug, Default)]
pub(super) struct Occupancy {
    pub(super) words: [u64; WORDS],
    pub(super) summary: u64,
}

impl Occupancy {
    #[inline]
    pub(super) fn set(&mut self, id: usize) {
        self.words[id / 64] |= BIT[id % 64];
        self.summary |= BIT[id / 64 % 64];
    }

    #[inline]
    pub(super) fn clear(&mut self, id: usize) {
        let word = &mut self.words[id / 64];
        *word &= !(1 << (id % 64));
        if *word == 0 {
            self.summary &= !(1 << (id / 64));
        }
    }

    #[inline]
    pub(super) fn is_set(&self, id: usize) -> bool {
        self.words[id / 64] & (1 << (id % 64)) != 0
    }

    /// The first occupied level-0 slot at or after slot `from`, wrapping
    /// round level 0's ring.
    #[inline]
    pub(super) fn first_near(&self, from: usize) -> Option<usize> {
        let near = self.summary & NEAR_SUMMARY;
        if near == 0 {
            return None;
        }
        let word = from / 64;
        let bits = self.words[word] & (u64::MAX << (from % 64));
        if bits != 0 {
            return Some(word * 64 + bits.trailing_zeros() as usize);
        }
        let after = near & (u64::MAX << (word + 1));
        let word = if after != 0 { after } else { near }.trailing_zeros() as usize;
        Some(word * 64 + self.words[word].trailing_zeros() as usize)
    }

    /// The lowest occupied slot number of level 1 and above.
    #[inline]
    pub(super) fn first_far(&self) -> Option<usize> {
        let far = self.summary & !NEAR_SUMMARY;
        if far == 0 {
            return None;
        }
        let word = far.trailing_zeros() as usize;
        Some(word * 64 + self.words[word].trailing_zeros() as usize)
    }

    /// The lowest occupied slot number.
    #[cfg(test)]
    pub(super) fn first(&self) -> Option<usize> {
        if self.summary == 0 {
            return None;
        }
        let word = self.summary.trailing_zeros() as usize;
        Some(word * 64 + self.words[word].trailing_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::super::levels::slot_id;
    use super::*;

    #[test]
    fn bit_is_one_shifted() {
        for (i, &bit) in BIT.iter().enumerate() {
            assert_eq!(bit, 1 << i);
        }
    }

    #[test]
    fn the_first_occupied_slot_is_the_lowest_set_bit() {
        let mut occupancy = Occupancy::default();
        assert_eq!(occupancy.first(), None);
        occupancy.set(slot_id(3, 9));
        assert_eq!(occupancy.first(), Some(slot_id(3, 9)));
        occupancy.set(700);
        assert_eq!(occupancy.first(), Some(700));
        occupancy.set(70);
        assert_eq!(occupancy.first(), Some(70));
        occupancy.clear(70);
        occupancy.clear(700);
        assert_eq!(occupancy.summary, 1 << (slot_id(3, 9) / 64));
        assert_eq!(occupancy.first(), Some(slot_id(3, 9)));
    }
}
