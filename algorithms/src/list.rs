//! Intrusive doubly-linked lists threaded through an [`Arena`].
//!
//! Wheels and the sorted list keep their timers in lists whose links live inside
//! the entries themselves (`prev`/`next` as arena indices), so linking and
//! unlinking never allocate and cancel is an O(1) unlink given the entry's index.
//! A [`List`] is just the head and tail indices; the same entry type can be moved
//! between lists (a cascade) by unlinking it from one and pushing it onto another.
//!
//! Invariants: `head == NIL` if and only if `tail == NIL`; for every linked entry
//! `e`, `next(prev(e)) == e` and `prev(next(e)) == e`; an entry is on at most one
//! list at a time, and an unlinked entry has both links `NIL`.

use crate::arena::Arena;

/// The "no entry" index.
pub const NIL: u32 = u32::MAX;

/// The two links an entry needs to sit on a [`List`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Links {
    /// The previous entry on the list, or [`NIL`] at the head.
    pub prev: u32,
    /// The next entry on the list, or [`NIL`] at the tail.
    pub next: u32,
}

impl Links {
    /// Links of an entry that is on no list.
    pub const UNLINKED: Links = Links {
        prev: NIL,
        next: NIL,
    };
}

impl Default for Links {
    fn default() -> Self {
        Self::UNLINKED
    }
}

/// An entry type that carries [`Links`].
pub trait Linked {
    /// The entry's links.
    fn links(&self) -> &Links;
    /// The entry's links, mutably.
    fn links_mut(&mut self) -> &mut Links;
}

/// A list of arena entries: the head and tail indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct List {
    head: u32,
    tail: u32,
}

impl Default for List {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl List {
    /// A list with no entries.
    pub const EMPTY: List = List {
        head: NIL,
        tail: NIL,
    };

    /// Whether the list has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NIL
    }

    /// The first entry, or [`NIL`].
    #[inline]
    pub fn head(&self) -> u32 {
        self.head
    }

    /// The last entry, or [`NIL`].
    #[inline]
    pub fn tail(&self) -> u32 {
        self.tail
    }

    /// Appends the unlinked entry `index` at the tail.
    ///
    /// Written out rather than as `insert_after(tail)`: the tail's forward link
    /// is known to be [`NIL`], so the append reads no other entry, which every
    /// wheel's insert (an append to a slot) benefits from.
    #[inline]
    pub fn push_back<T: Linked>(&mut self, arena: &mut Arena<T>, index: u32) {
        debug_assert_eq!(
            *arena.at(index).links(),
            Links::UNLINKED,
            "entry {index} is already linked"
        );
        let tail = self.tail;
        arena.at_mut(index).links_mut().prev = tail;
        self.set_next(arena, tail, index);
        self.tail = index;
    }

    /// Prepends the unlinked entry `index` at the head.
    #[inline]
    pub fn push_front<T: Linked>(&mut self, arena: &mut Arena<T>, index: u32) {
        self.insert_before(arena, self.head, index);
    }

    /// Links the unlinked entry `index` right after `at`, which is on this list;
    /// `at == NIL` means "at the head".
    pub fn insert_after<T: Linked>(&mut self, arena: &mut Arena<T>, at: u32, index: u32) {
        debug_assert_eq!(
            *arena.at(index).links(),
            Links::UNLINKED,
            "entry {index} is already linked"
        );
        let next = if at == NIL {
            self.head
        } else {
            arena.at(at).links().next
        };
        *arena.at_mut(index).links_mut() = Links { prev: at, next };
        self.set_next(arena, at, index);
        self.set_prev(arena, next, index);
    }

    /// Links the unlinked entry `index` right before `at`, which is on this list;
    /// `at == NIL` means "at the tail".
    pub fn insert_before<T: Linked>(&mut self, arena: &mut Arena<T>, at: u32, index: u32) {
        let prev = if at == NIL {
            self.tail
        } else {
            arena.at(at).links().prev
        };
        self.insert_after(arena, prev, index);
    }

    /// Unlinks entry `index`, which must be on this list, and clears its links.
    pub fn unlink<T: Linked>(&mut self, arena: &mut Arena<T>, index: u32) {
        let Links { prev, next } = std::mem::take(arena.at_mut(index).links_mut());
        self.set_next(arena, prev, next);
        self.set_prev(arena, next, prev);
    }

    /// Unlinks and returns the head, or `None` if the list is empty.
    #[inline]
    pub fn pop_front<T: Linked>(&mut self, arena: &mut Arena<T>) -> Option<u32> {
        let head = self.head;
        if head == NIL {
            return None;
        }
        self.unlink(arena, head);
        Some(head)
    }

    /// Detaches the whole list and returns it, leaving this one empty. The
    /// entries keep their links; drain the returned list with [`List::pop_front`].
    #[inline]
    pub fn take(&mut self) -> List {
        std::mem::take(self)
    }

    /// The entry after `index` on its list, or [`NIL`].
    #[inline]
    pub fn next_of<T: Linked>(arena: &Arena<T>, index: u32) -> u32 {
        arena.at(index).links().next
    }

    /// The entry before `index` on its list, or [`NIL`].
    #[inline]
    pub fn prev_of<T: Linked>(arena: &Arena<T>, index: u32) -> u32 {
        arena.at(index).links().prev
    }

    /// Sets the forward link of `at` (or the head, when `at` is [`NIL`]).
    #[inline]
    fn set_next<T: Linked>(&mut self, arena: &mut Arena<T>, at: u32, next: u32) {
        if at == NIL {
            self.head = next;
        } else {
            arena.at_mut(at).links_mut().next = next;
        }
    }

    /// Sets the backward link of `at` (or the tail, when `at` is [`NIL`]).
    #[inline]
    fn set_prev<T: Linked>(&mut self, arena: &mut Arena<T>, at: u32, prev: u32) {
        if at == NIL {
            self.tail = prev;
        } else {
            arena.at_mut(at).links_mut().prev = prev;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Node {
        value: u32,
        links: Links,
    }

    impl Linked for Node {
        fn links(&self) -> &Links {
            &self.links
        }
        fn links_mut(&mut self) -> &mut Links {
            &mut self.links
        }
    }

    fn node(arena: &mut Arena<Node>, value: u32) -> u32 {
        arena
            .insert(Node {
                value,
                links: Links::UNLINKED,
            })
            .index()
    }

    fn values(arena: &Arena<Node>, list: &List) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = list.head();
        while at != NIL {
            out.push(arena.at(at).value);
            at = List::next_of(arena, at);
        }
        // Walking backwards must give the same entries reversed.
        let mut back = Vec::new();
        let mut at = list.tail();
        while at != NIL {
            back.push(arena.at(at).value);
            at = List::prev_of(arena, at);
        }
        back.reverse();
        assert_eq!(out, back, "forward and backward walks disagree");
        out
    }

    #[test]
    fn push_insert_unlink_keep_both_directions() {
        let mut arena = Arena::new();
        let mut list = List::EMPTY;
        let a = node(&mut arena, 1);
        let b = node(&mut arena, 2);
        let c = node(&mut arena, 3);
        let d = node(&mut arena, 4);
        list.push_back(&mut arena, b);
        list.push_front(&mut arena, a);
        list.push_back(&mut arena, d);
        list.insert_before(&mut arena, d, c);
        assert_eq!(values(&arena, &list), [1, 2, 3, 4]);
        list.unlink(&mut arena, b);
        assert_eq!(values(&arena, &list), [1, 3, 4]);
        assert_eq!(*arena.at(b).links(), Links::UNLINKED);
        list.unlink(&mut arena, d);
        list.unlink(&mut arena, a);
        assert_eq!(values(&arena, &list), [3]);
        assert_eq!(list.pop_front(&mut arena), Some(c));
        assert!(list.is_empty());
        assert_eq!(list.tail(), NIL);
        assert_eq!(list.pop_front(&mut arena), None);
    }

    #[test]
    fn take_detaches_the_whole_list() {
        let mut arena = Arena::new();
        let mut list = List::EMPTY;
        for v in 0..3 {
            let i = node(&mut arena, v);
            list.push_back(&mut arena, i);
        }
        let mut taken = list.take();
        assert!(list.is_empty());
        assert_eq!(values(&arena, &taken), [0, 1, 2]);
        while taken.pop_front(&mut arena).is_some() {}
        assert!(taken.is_empty());
    }
}
