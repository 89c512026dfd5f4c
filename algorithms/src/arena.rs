//! A slab of entries with a free list and generation-checked handles.
//!
//! Every algorithm keeps its timers here, so that no operation allocates in steady
//! state: a removed entry's slot goes on a free list and the next insert reuses
//! it. The vector grows (and so allocates) only when more timers are pending at
//! once than ever before (or since the arena last gave its storage back).
//!
//! A [`Handle`] is the slot index plus the slot's generation at insert time. The
//! generation is bumped on every removal, so a handle that outlived its timer no
//! longer matches and cannot reach the timer that reused the slot. Generations
//! are 32 bits and wrap: a handle kept while its slot is reused 2^32 times would
//! match again. No workload here comes near that; a long-lived service would
//! widen the generation.
//!
//! [`Arena::reserve`] makes its room as vacant entries, linked onto the free
//! list in index order, rather than as spare capacity of the vector. The
//! entries an insert then takes are the same, in the same order (the free
//! list's older entries first, then the new ones by index, as pushes would
//! have made them), but every insert takes the free list's path: with
//! spare capacity, an insert reused a freed entry or pushed a new one as the
//! timers that had just fired decided, a branch no predictor can learn.
//! Under callgrind's branch simulator that branch was 72,021 of
//! `sweep-wheel`'s 384,852 mispredicted branches on `heavy-tail`, where the
//! queue grows by half while a third of the timers fire;
//! `docs/lab/sweep-wheel.md` records what it bought in time.
//!
//! An empty arena can give its storage back ([`Arena::release`]). Handles
//! issued before must stay stale after that, so the arena remembers one past
//! the newest generation it had issued, and every entry it makes afterwards
//! starts there instead of at 0.
//!
//! Inside an algorithm, entries link to each other by bare `u32` index (see
//! [`crate::list`]); those links are trusted, and [`Arena::at`] panics on a vacant
//! slot because reaching one is a bug in the algorithm, not bad input.

/// The largest number of entries an arena holds: indices are `u32` and
/// `u32::MAX` is kept free as the "no entry" sentinel of intrusive links.
pub const MAX_ENTRIES: usize = (u32::MAX - 1) as usize;

/// A generation-checked reference to a timer, returned by `insert`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle {
    index: u32,
    generation: u32,
}

impl Handle {
    /// A handle that no arena issues (its index is past [`MAX_ENTRIES`]), so
    /// that it is stale everywhere: a filler for storage that must hold a
    /// handle before it holds a real one.
    pub const NONE: Handle = Handle {
        index: u32::MAX,
        generation: 0,
    };

    /// The slot index inside the arena that issued the handle.
    #[inline]
    pub fn index(self) -> u32 {
        self.index
    }

    /// The slot's generation when the handle was issued.
    #[inline]
    pub fn generation(self) -> u32 {
        self.generation
    }
}

/// One slot: an entry, or a link in the free list.
#[derive(Debug)]
enum Slot<T> {
    Occupied { generation: u32, value: T },
    Vacant { generation: u32, next_free: u32 },
}

/// A slab with generation-checked handles. See the module documentation.
#[derive(Debug)]
pub struct Arena<T> {
    slots: Vec<Slot<T>>,
    /// Index of the first vacant slot, or `NO_FREE` when every slot is occupied.
    free_head: u32,
    /// The number of occupied slots.
    len: usize,
    /// The generation a newly made slot starts at: 0 until the arena gives its
    /// storage back, then one past every generation it had issued, so that no
    /// handle from before matches an entry made after.
    first_generation: u32,
}

/// Free-list terminator.
const NO_FREE: u32 = u32::MAX;

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Arena<T> {
    /// An empty arena; it allocates on the first insert.
    pub fn new() -> Self {
        Self {
            slots: Vec::new(),
            free_head: NO_FREE,
            len: 0,
            first_generation: 0,
        }
    }

    /// The number of occupied slots.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no slot is occupied.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the next [`Self::insert`] has room without allocating: a
    /// vacant slot to reuse, or spare capacity for a new one.
    #[inline]
    pub fn has_room(&self) -> bool {
        self.free_head != NO_FREE || self.slots.len() < self.slots.capacity()
    }

    /// The number of slots made, occupied or vacant: the most ever
    /// occupied at once, or more if [`Self::reserve`] made room for more.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Frees the storage of an arena that holds no entry, and returns whether
    /// it did (an arena with an entry keeps everything). Every handle issued
    /// before stays stale: slots made afterwards start one past the newest
    /// generation issued so far. O(slots): it reads every slot's generation,
    /// so a caller should do it when the slots are many and all vacant, not
    /// on every emptying.
    pub fn release(&mut self) -> bool {
        if self.len != 0 {
            return false;
        }
        let newest = self
            .slots
            .iter()
            .map(|slot| match slot {
                Slot::Occupied { generation, .. } | Slot::Vacant { generation, .. } => *generation,
            })
            .max();
        if let Some(newest) = newest {
            self.first_generation = newest.wrapping_add(1);
        }
        self.slots = Vec::new();
        self.free_head = NO_FREE;
        true
    }

    /// Makes room for at least `additional` more entries than are stored now
    /// (vacant slots count as room), so that storing them does not allocate.
    /// The room is made as vacant slots, linked in index order at the end
    /// of the free list (see the module documentation), so this writes every
    /// slot it adds and walks the vacant slots already there, fewer than
    /// `additional` when any slot is added: O(`additional`).
    pub fn reserve(&mut self, additional: usize) {
        let vacant = self.slots.len() - self.len;
        let start = self.slots.len();
        let more = additional.saturating_sub(vacant).min(MAX_ENTRIES - start);
        if more == 0 {
            return;
        }
        self.slots.reserve_exact(more);
        let end = start + more;
        self.slots.extend((start..end).map(|index| Slot::Vacant {
            generation: self.first_generation,
            // Below MAX_ENTRIES, so the index fits and is not NO_FREE.
            next_free: if index + 1 < end {
                index as u32 + 1
            } else {
                NO_FREE
            },
        }));
        // The new slots go after the ones already free, which an insert
        // would have reused before pushing a new slot.
        let first_new = start as u32;
        if self.free_head == NO_FREE {
            self.free_head = first_new;
            return;
        }
        let mut tail = self.free_head;
        loop {
            let Slot::Vacant { next_free, .. } = &mut self.slots[tail as usize] else {
                unreachable!("free list points at occupied slot {tail}");
            };
            if *next_free == NO_FREE {
                *next_free = first_new;
                return;
            }
            tail = *next_free;
        }
    }

    /// Stores `value` and returns its handle, reusing a vacant slot when there is one.
    ///
    /// # Panics
    ///
    /// If the arena already holds [`MAX_ENTRIES`] entries.
    #[inline]
    pub fn insert(&mut self, value: T) -> Handle {
        self.insert_with(|_| value)
    }

    /// Stores the value `make` builds from the handle it will have, and returns
    /// that handle. For a value that must carry its own index, such as an
    /// adapter's entry in a third-party timer crate that hands the index back
    /// when the timer fires.
    ///
    /// # Panics
    ///
    /// If the arena already holds [`MAX_ENTRIES`] entries.
    #[inline(always)]
    pub fn insert_with(&mut self, make: impl FnOnce(Handle) -> T) -> Handle {
        if self.free_head != NO_FREE {
            let index = self.free_head;
            let slot = &mut self.slots[index as usize];
            let Slot::Vacant {
                generation,
                next_free,
            } = *slot
            else {
                unreachable!("free list points at occupied slot {index}");
            };
            let handle = Handle { index, generation };
            *slot = Slot::Occupied {
                generation,
                value: make(handle),
            };
            self.free_head = next_free;
            self.len += 1;
            handle
        } else {
            assert!(self.slots.len() < MAX_ENTRIES, "arena is full");
            let index = u32::try_from(self.slots.len()).expect("checked against MAX_ENTRIES");
            let generation = self.first_generation;
            let handle = Handle { index, generation };
            self.slots.push(Slot::Occupied {
                generation,
                value: make(handle),
            });
            self.len += 1;
            handle
        }
    }

    /// The entry behind `handle`, if the handle is still current.
    #[inline]
    pub fn get(&self, handle: Handle) -> Option<&T> {
        let slot = self.slots.get(handle.index as usize)?;
        // A vacant slot's generation was bumped past every handle it issued,
        // so the generation alone tells a stale handle; it is read first,
        // from the same place in either variant, so that a stale handle costs
        // one compare.
        let (Slot::Occupied { generation, .. } | Slot::Vacant { generation, .. }) = slot;
        if *generation != handle.generation {
            return None;
        }
        match slot {
            Slot::Occupied { value, .. } => Some(value),
            Slot::Vacant { .. } => None,
        }
    }

    /// The entry behind `handle`, mutably, if the handle is still current.
    #[inline]
    pub fn get_mut(&mut self, handle: Handle) -> Option<&mut T> {
        match self.slots.get_mut(handle.index as usize)? {
            Slot::Occupied { generation, value } if *generation == handle.generation => Some(value),
            _ => None,
        }
    }

    /// Gives the entry behind `handle` a new handle in the same slot and
    /// returns it, leaving `handle` stale, as a remove and an insert would but
    /// without touching the free list; `None` (and nothing changed) if `handle`
    /// is not current. For a structure that marks entries elsewhere with the
    /// handle (a heap's tombstones): renewing kills every such mark at once.
    #[inline]
    pub fn renew(&mut self, handle: Handle) -> Option<Handle> {
        match self.slots.get_mut(handle.index as usize)? {
            Slot::Occupied { generation, .. } if *generation == handle.generation => {
                *generation = generation.wrapping_add(1);
                Some(Handle {
                    index: handle.index,
                    generation: *generation,
                })
            }
            _ => None,
        }
    }

    /// Whether `handle` refers to an entry that is still stored.
    #[inline]
    pub fn contains(&self, handle: Handle) -> bool {
        self.get(handle).is_some()
    }

    /// Removes the entry behind `handle`, if the handle is still current.
    #[inline]
    pub fn remove(&mut self, handle: Handle) -> Option<T> {
        if self.contains(handle) {
            Some(self.remove_at(handle.index))
        } else {
            None
        }
    }

    /// The current handle of the entry at a trusted internal index.
    ///
    /// # Panics
    ///
    /// If the slot is vacant.
    pub fn handle_at(&self, index: u32) -> Handle {
        match &self.slots[index as usize] {
            Slot::Occupied { generation, .. } => Handle {
                index,
                generation: *generation,
            },
            Slot::Vacant { .. } => panic!("no handle for vacant slot {index}"),
        }
    }

    /// The entry at a trusted internal index.
    ///
    /// # Panics
    ///
    /// If the slot is vacant: an algorithm followed a dangling link.
    #[inline]
    pub fn at(&self, index: u32) -> &T {
        match &self.slots[index as usize] {
            Slot::Occupied { value, .. } => value,
            Slot::Vacant { .. } => panic!("dangling link to vacant slot {index}"),
        }
    }

    /// The entry at a trusted internal index, mutably.
    ///
    /// # Panics
    ///
    /// If the slot is vacant: an algorithm followed a dangling link.
    #[inline]
    pub fn at_mut(&mut self, index: u32) -> &mut T {
        match &mut self.slots[index as usize] {
            Slot::Occupied { value, .. } => value,
            Slot::Vacant { .. } => panic!("dangling link to vacant slot {index}"),
        }
    }

    /// Removes the entry at a trusted internal index, bumps the slot's
    /// generation so that outstanding handles go stale, and frees the slot.
    ///
    /// # Panics
    ///
    /// If the slot is vacant.
    pub fn remove_at(&mut self, index: u32) -> T {
        let slot = &mut self.slots[index as usize];
        let Slot::Occupied { generation, .. } = *slot else {
            panic!("removing vacant slot {index}");
        };
        let old = std::mem::replace(
            slot,
            Slot::Vacant {
                generation: generation.wrapping_add(1),
                next_free: self.free_head,
            },
        );
        self.free_head = index;
        self.len -= 1;
        match old {
            Slot::Occupied { value, .. } => value,
            Slot::Vacant { .. } => unreachable!("checked above"),
        }
    }

    /// Asks the CPU to start loading the entry behind `handle` into the cache,
    /// for a caller that will read it soon and has other work to do
    /// meanwhile (a sweep of many handles). A hint only: it reads nothing,
    /// and its address is not checked against the arena's length (a
    /// prefetch of any address is harmless), so that it costs a sweep no
    /// branch. On targets other than x86-64 it does nothing.
    #[inline(always)]
    pub fn prefetch(&self, handle: Handle) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let entry = self.slots.as_ptr().wrapping_add(handle.index as usize);
            // SAFETY: a prefetch is a hint that reads nothing and never
            // faults, whatever the address.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(entry.cast::<i8>());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = handle;
    }

    /// Calls `f` with the index of every occupied slot, in index order. Used by
    /// algorithms' whole-structure passes (invariant checks, fast-forwards).
    pub fn for_each_index(&self, mut f: impl FnMut(u32, &T)) {
        for (index, slot) in self.slots.iter().enumerate() {
            if let Slot::Occupied { value, .. } = slot {
                f(u32::try_from(index).expect("arena indices fit u32"), value);
            }
        }
    }

    /// Calls `f` with every occupied entry, mutably, in index order.
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut T)) {
        for slot in &mut self.slots {
            if let Slot::Occupied { value, .. } = slot {
                f(value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_remove() {
        let mut arena = Arena::new();
        let a = arena.insert("a");
        let b = arena.insert("b");
        assert_eq!(arena.len(), 2);
        assert_eq!(arena.get(a), Some(&"a"));
        assert_eq!(arena.remove(a), Some("a"));
        assert_eq!(arena.remove(a), None, "a removed handle is stale");
        assert_eq!(arena.get(b), Some(&"b"));
        assert_eq!(arena.len(), 1);
    }

    #[test]
    fn reused_slot_rejects_the_old_handle() {
        let mut arena = Arena::new();
        let old = arena.insert(1);
        arena.remove(old);
        let new = arena.insert(2);
        assert_eq!(old.index(), new.index(), "the slot is reused");
        assert_ne!(old.generation(), new.generation());
        assert_eq!(arena.get(old), None);
        assert_eq!(arena.remove(old), None);
        assert_eq!(
            arena.get(new),
            Some(&2),
            "the stale handle left the new entry alone"
        );
    }

    #[test]
    fn release_frees_only_an_empty_arena() {
        let mut arena = Arena::new();
        let kept = arena.insert(1);
        assert!(!arena.release(), "an entry is stored");
        assert_eq!(arena.get(kept), Some(&1));
        arena.remove(kept);
        assert!(arena.release());
        assert_eq!(arena.capacity(), 0);
        assert_eq!(arena.len(), 0);
    }

    #[test]
    fn handles_from_before_a_release_stay_stale() {
        let mut arena = Arena::new();
        // Slot 0 reused a few times, so its generation is ahead of slot 1's.
        let mut old = Vec::new();
        for round in 0..3 {
            let handle = arena.insert(round);
            old.push(handle);
            arena.remove(handle);
        }
        let other = arena.insert(10);
        let second = arena.insert(11);
        old.push(other);
        old.push(second);
        arena.remove(other);
        arena.remove(second);
        assert!(arena.release());
        for round in 0..2 {
            let fresh: Vec<_> = (0..4).map(|i| arena.insert(100 + i)).collect();
            for &stale in &old {
                assert_eq!(arena.get(stale), None, "{stale:?} after release {round}");
                assert_eq!(arena.remove(stale), None);
            }
            for (i, &handle) in fresh.iter().enumerate() {
                assert_eq!(arena.get(handle), Some(&(100 + i)));
            }
            for handle in fresh {
                old.push(handle);
                arena.remove(handle);
            }
            assert!(arena.release());
        }
    }

    #[test]
    fn free_list_is_last_in_first_out() {
        let mut arena = Arena::new();
        let handles: Vec<_> = (0..4).map(|i| arena.insert(i)).collect();
        arena.remove(handles[1]);
        arena.remove(handles[3]);
        assert_eq!(arena.insert(10).index(), 3);
        assert_eq!(arena.insert(11).index(), 1);
        assert_eq!(arena.capacity(), 4, "no growth while slots are free");
    }

    #[test]
    fn reserved_room_is_taken_in_index_order_after_the_freed_slots() {
        let mut arena = Arena::new();
        let handles: Vec<_> = (0..3).map(|i| arena.insert(i)).collect();
        arena.remove(handles[1]);
        arena.reserve(4);
        assert_eq!(arena.capacity(), 6, "one vacant slot counts as room");
        assert_eq!(arena.len(), 2);
        assert!(arena.has_room());
        let taken: Vec<u32> = (0..4).map(|i| arena.insert(10 + i).index()).collect();
        assert_eq!(
            taken,
            [1, 3, 4, 5],
            "the freed slot, then new ones by index"
        );
        assert_eq!(arena.capacity(), 6, "no growth within the reserve");
        assert!(!arena.has_room());
        assert_eq!(arena.insert(20).index(), 6, "past the reserve, a push");
        arena.reserve(0);
        assert_eq!(arena.capacity(), 7, "nothing to make");
    }

    #[test]
    fn reserved_slots_match_no_handle_from_before_a_release() {
        let mut arena = Arena::new();
        let old: Vec<_> = (0..3).map(|i| arena.insert(i)).collect();
        for &handle in &old {
            arena.remove(handle);
        }
        assert!(arena.release());
        arena.reserve(3);
        for &stale in &old {
            assert_eq!(arena.get(stale), None, "a reserved slot is vacant");
        }
        let fresh: Vec<_> = (0..3).map(|i| arena.insert(10 + i)).collect();
        for (&stale, &handle) in old.iter().zip(&fresh) {
            assert_eq!(stale.index(), handle.index());
            assert_ne!(stale, handle, "a newer generation");
            assert_eq!(arena.get(stale), None);
        }
    }

    #[test]
    fn insert_with_sees_the_handle_it_gets() {
        let mut arena = Arena::new();
        let first = arena.insert_with(|h| h.index());
        assert_eq!(arena.get(first), Some(&0));
        let second = arena.insert_with(|h| h.index());
        arena.remove(first);
        let reused = arena.insert_with(|h| h.index() + 100);
        assert_eq!(reused.index(), first.index());
        assert_ne!(reused, first, "a new generation");
        assert_eq!(arena.get(reused), Some(&100));
        assert_eq!(arena.get(second), Some(&1));
    }

    #[test]
    fn handle_from_beyond_the_arena_is_rejected() {
        let mut big = Arena::new();
        for i in 0..10 {
            big.insert(i);
        }
        let foreign = big.insert(99);
        let small: Arena<i32> = Arena::new();
        assert_eq!(small.get(foreign), None);
    }

    #[test]
    fn renew_stales_the_old_handle_and_keeps_the_value() {
        let mut arena = Arena::new();
        let old = arena.insert('a');
        let new = arena.renew(old).expect("current");
        assert_eq!(new.index(), old.index());
        assert_ne!(new, old);
        assert_eq!(arena.get(old), None, "stale");
        assert_eq!(arena.renew(old), None);
        assert_eq!(arena.get(new), Some(&'a'));
        assert_eq!(arena.remove(new), Some('a'));
        let reused = arena.insert('b');
        assert_eq!(reused.index(), old.index());
        assert!(
            reused != old && reused != new,
            "no earlier handle comes back"
        );
        assert_eq!(arena.len(), 1);
    }

    #[test]
    fn a_vacant_slot_matches_no_handle_it_issued() {
        // `get` tells a stale handle by the generation alone, before it looks
        // at whether the slot is occupied: every handle the slot ever issued,
        // renewed or not, must miss it once it is vacant.
        let mut arena = Arena::new();
        let first = arena.insert(1);
        let renewed = arena.renew(first).expect("current");
        assert_eq!(arena.remove(renewed), Some(1));
        let second = arena.insert(2);
        assert_eq!(arena.remove(second), Some(2));
        for handle in [first, renewed, second] {
            assert_eq!(arena.get(handle), None);
            assert!(!arena.contains(handle));
            assert_eq!(arena.remove(handle), None);
        }
        assert!(arena.release(), "empty");
        for handle in [first, renewed, second] {
            assert_eq!(arena.get(handle), None, "stale after a release too");
        }
    }
}
