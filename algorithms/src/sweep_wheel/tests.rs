//! The wheel's tests: each behaviour of the design on a small case, and
//! [`assert_invariants`], which walks every slot, the run, the overdue list
//! and the short list after each advance and checks the invariants of the
//! module documentation.

use super::levels::{BASE, level_of, ring_start, slot_for, slot_id, slot_start};
use super::*;
use crate::arena::Handle;

/// A wheel that has left the short list, as one told of a large
/// population has: what the tests of the slots need.
fn wheel() -> SweepWheel<u64> {
    let mut wheel = SweepWheel::new();
    wheel.leave_short();
    wheel
}

/// Checks the module's invariants by walking every slot.
fn assert_invariants<P>(wheel: &SweepWheel<P>) {
    let mut current = std::collections::HashMap::new();
    assert!(wheel.short.len() <= SHORT_MAX);
    assert!(
        wheel.is_short || wheel.short.is_empty(),
        "a list beside the wheel"
    );
    assert!(
        wheel
            .short
            .iter()
            .zip(wheel.short.iter().skip(1))
            .all(|(a, b)| a.0 <= b.0),
        "short list out of order"
    );
    for (deadline, handle) in wheel.short.iter() {
        if let Some(timer) = wheel.timers.get(handle) {
            assert!(deadline <= timer.deadline, "listed after its deadline");
            assert!(wheel.next_min <= deadline && wheel.next_start <= deadline);
            assert!(
                current.insert(handle, usize::MAX - 2).is_none(),
                "filed twice"
            );
        }
    }
    for (word, &bits) in wheel.occupied.words.iter().enumerate() {
        assert_eq!(wheel.occupied.summary & (1 << word) != 0, bits != 0);
    }
    for (id, handles) in wheel.slots.iter().enumerate() {
        let (level, slot) = if id < NEAR_SLOTS {
            (0, id)
        } else {
            (
                1 + (id - NEAR_SLOTS) / FAR_SLOTS,
                (id - NEAR_SLOTS) % FAR_SLOTS,
            )
        };
        assert_eq!(slot_id(level, slot), id);
        assert_eq!(level_of(id), level);
        assert_eq!(
            wheel.occupied.is_set(id),
            !handles.is_empty(),
            "bit of level {level} slot {slot}"
        );
        if !handles.is_empty() {
            assert!(
                if level == 0 {
                    slot != slot_for(wheel.elapsed, 0)
                } else {
                    slot > slot_for(wheel.elapsed, level)
                },
                "slot behind the clock"
            );
        }
        for &handle in handles {
            if let Some(timer) = wheel.timers.get(handle) {
                let start = if level == 0 {
                    ring_start(wheel.elapsed, slot)
                } else {
                    slot_start(wheel.elapsed, level, slot)
                };
                assert!(start <= timer.deadline, "filed after its deadline");
                if level > 0 {
                    assert!(wheel.slot_min[id - NEAR_SLOTS] <= timer.deadline);
                }
                assert!(current.insert(handle, id).is_none(), "filed twice");
            }
        }
    }
    assert!(
        wheel.run.windows(2).all(|pair| pair[0].0 >= pair[1].0),
        "run out of order"
    );
    assert_eq!(
        wheel.run_start,
        wheel
            .run
            .last()
            .map_or(Tick::MAX, |&(deadline, _)| deadline)
    );
    let first_far = wheel.occupied.first_far().map_or(Tick::MAX, |id| {
        let level = level_of(id);
        slot_start(wheel.elapsed, level, id - BASE[level])
    });
    assert_eq!(wheel.far_start, first_far.min(wheel.run_start), "far_start");
    for &(deadline, handle) in &wheel.run {
        assert!(deadline > wheel.elapsed, "run entry behind the clock");
        assert!(wheel.next_min <= deadline && wheel.next_start <= deadline);
        if let Some(timer) = wheel.timers.get(handle) {
            assert!(deadline <= timer.deadline, "run entry after its deadline");
            assert!(
                current.insert(handle, usize::MAX - 1).is_none(),
                "filed twice"
            );
        }
    }
    for &handle in &wheel.overdue {
        if let Some(timer) = wheel.timers.get(handle) {
            assert!(wheel.overdue_min <= timer.deadline);
            assert!(current.insert(handle, usize::MAX).is_none(), "filed twice");
        }
    }
    assert_eq!(
        current.len(),
        wheel.timers.len(),
        "a pending timer is not filed"
    );
}

fn fire(wheel: &mut SweepWheel<u64>, now: Tick) -> Vec<(Tick, u64)> {
    let mut out = Vec::new();
    wheel.advance(now, &mut out);
    assert_invariants(wheel);
    out.into_iter().map(|e| (e.deadline, e.payload)).collect()
}

#[test]
fn a_cancel_leaves_a_stale_handle_that_the_slot_sweeps() {
    let mut wheel = wheel();
    let cancelled = wheel.insert(10, 1);
    wheel.insert(10, 2);
    assert_eq!(wheel.cancel(cancelled), Some(1));
    assert_eq!(
        wheel.slots[10].len(),
        2,
        "the cancel did not touch the slot"
    );
    assert_eq!(fire(&mut wheel, 10), vec![(10, 2)]);
    assert_eq!(wheel.counters.entries_examined_not_due, 1);
    assert_eq!(wheel.counters.empty_slot_visits, 0);
}

#[test]
fn a_stale_handle_never_fires_the_timer_that_reused_its_entry() {
    let mut wheel = wheel();
    let first = wheel.insert(5, 1);
    wheel.cancel(first);
    let second = wheel.insert(9, 2);
    assert_eq!(second.index(), first.index(), "the entry was reused");
    assert_eq!(fire(&mut wheel, 5), vec![]);
    assert_eq!(wheel.counters.empty_slot_visits, 1);
    assert_eq!(wheel.next_expiry(), Some(9));
    assert_eq!(fire(&mut wheel, 9), vec![(9, 2)]);
    assert_eq!(wheel.next_expiry(), None);
}

#[test]
fn a_later_reschedule_keeps_the_handle_and_refiles_when_reached() {
    let mut wheel = wheel();
    let handle = wheel.insert(100, 7);
    assert_eq!(wheel.reschedule(handle, 5_000), Some(handle));
    assert_invariants(&wheel);
    // The deadline it was filed for is still the bound: a lower bound, not
    // the deadline.
    assert_eq!(wheel.next_expiry(), Some(100));
    assert_eq!(fire(&mut wheel, 4_999), vec![]);
    // Filed again at 100 (to level 1's slot at 4096), then down to level 0
    // at 4096.
    assert_eq!(wheel.counters.cascades, 2);
    assert_eq!(fire(&mut wheel, 5_000), vec![(5_000, 7)]);
}

#[test]
fn the_first_expiration_read_from_next_start_is_the_searchs() {
    let mut wheel = wheel();
    // Ring slots, a stale handle, and a level-1 slot (ticks 1,024 to
    // 2,047) that a ring slot at 1,024 ties with once the clock is past
    // 1,000.
    for deadline in [5, 6, 6, 900, 1_024, 1_500, 70_000] {
        wheel.insert(deadline, deadline);
    }
    let stale = wheel.insert(7, 7);
    wheel.cancel(stale);
    let mut read = 0;
    for now in [5, 6, 7, 1_000, 1_024, 1_500, 70_000] {
        if now == 1_024 {
            wheel.insert(1_024, 1);
        }
        let searched = wheel.next_expiration();
        read += usize::from(searched.is_some_and(|e| e.level == 0 && e.start == wheel.next_start));
        assert_eq!(
            wheel.first_expiration(),
            searched,
            "before the advance to {now}"
        );
        fire(&mut wheel, now);
    }
    assert!(
        read >= 3,
        "the ring slot at next_start was the answer {read} times"
    );
}

#[test]
fn a_lone_far_timer_fires_in_one_advance_without_cascading() {
    let mut wheel = wheel();
    wheel.insert(3_600_000, 1);
    assert_eq!(wheel.next_expiry(), Some(3_600_000));
    assert_eq!(fire(&mut wheel, 3_600_000), vec![(3_600_000, 1)]);
    assert_eq!(wheel.counters.slot_visits, 1);
    assert_eq!(wheel.counters.cascades, 0);
}

#[test]
fn timers_fired_from_a_higher_slot_come_out_sorted() {
    let mut wheel = wheel();
    let deadlines = [100_000, 80_000, 120_000, 90_000, 130_000];
    for (i, deadline) in deadlines.into_iter().enumerate() {
        wheel.insert(deadline, i as u64);
    }
    // All five are in level 2's slot 1, ticks 65,536..=131,071, filed out
    // of order; the last two are after `now` and cascade.
    let fired: Vec<Tick> = fire(&mut wheel, 110_000)
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    assert_eq!(fired, vec![80_000, 90_000, 100_000]);
    assert_eq!(wheel.counters.slot_visits, 1);
    assert_eq!(wheel.counters.cascades, 2);
    assert_eq!(fire(&mut wheel, 130_000), vec![(120_000, 2), (130_000, 4)]);
}

#[test]
fn a_small_higher_slot_is_taken_whole_into_the_sorted_run() {
    let mut wheel = wheel();
    let handles: Vec<Handle> = [100_000, 70_000, 120_000, 90_000, 130_000]
        .into_iter()
        .enumerate()
        .map(|(i, deadline)| wheel.insert(deadline, i as u64))
        .collect();
    // All five are in level 2's slot 1, ticks 65,536..=131,071: taken at
    // 70,000, the first fires and the other four go into the run.
    assert_eq!(fire(&mut wheel, 70_000), vec![(70_000, 1)]);
    let run: Vec<Tick> = wheel.run.iter().map(|&(deadline, _)| deadline).collect();
    assert_eq!(run, vec![130_000, 120_000, 100_000, 90_000]);
    assert_eq!(wheel.next_expiry(), Some(90_000));
    // A cancelled entry is dropped, a pushed-back one filed again when
    // taken, and a timer inserted between entries fires in its turn.
    wheel.cancel(handles[3]);
    assert_eq!(wheel.reschedule(handles[0], 125_000), Some(handles[0]));
    wheel.insert(110_000, 9);
    assert_eq!(fire(&mut wheel, 120_000), vec![(110_000, 9), (120_000, 2)]);
    assert_eq!(fire(&mut wheel, 200_000), vec![(125_000, 0), (130_000, 4)]);
    assert!(wheel.is_empty() && wheel.run.is_empty());
}

#[test]
fn a_level_one_or_large_slot_is_not_taken_into_the_run() {
    let mut wheel = wheel();
    // Level 1's slot 1 (ticks 1,024..=2,047): the timer that does not
    // fire is moved to the ring, as before.
    wheel.insert(2_000, 0);
    wheel.insert(2_040, 1);
    assert_eq!(fire(&mut wheel, 2_000), vec![(2_000, 0)]);
    assert!(wheel.run.is_empty());
    assert!(wheel.occupied.is_set(2_040 % NEAR_SLOTS));
    // Level 2's slot 1 with more than RUN_MAX handles: moved down.
    for i in 0..=RUN_MAX as u64 {
        wheel.insert(70_000 + i, i);
    }
    assert_eq!(fire(&mut wheel, 70_000), vec![(2_040, 1), (70_000, 0)]);
    assert!(wheel.run.is_empty());
}

#[test]
fn a_new_wheel_is_a_short_list_in_deadline_order() {
    let mut list = SweepWheel::new();
    for (deadline, payload) in [(30, 0), (10, 1), (20, 2), (10, 3), (40, 4)] {
        list.insert(deadline, payload);
    }
    assert!(list.is_short);
    assert!(list.slots.iter().all(Vec::is_empty));
    assert_eq!(list.next_expiry(), Some(10));
    assert_eq!(fire(&mut list, 9), vec![]);
    assert_eq!(fire(&mut list, 25), vec![(10, 1), (10, 3), (20, 2)]);
    assert_eq!(list.next_expiry(), Some(30));
}

#[test]
fn the_short_list_refiles_a_pushed_back_timer_and_drops_a_cancelled_one() {
    let mut list = SweepWheel::new();
    let late = list.insert(10, 0);
    let gone = list.insert(12, 1);
    list.insert(15, 2);
    assert_eq!(list.reschedule(late, 20), Some(late));
    assert_eq!(list.cancel(gone), Some(1));
    assert_eq!(fire(&mut list, 16), vec![(15, 2)]);
    assert_eq!(list.short.len(), 1);
    assert_eq!(fire(&mut list, 20), vec![(20, 0)]);
    assert!(list.is_empty() && list.is_short);
}

#[test]
fn a_full_short_list_of_pending_timers_moves_into_the_wheel() {
    let mut list = SweepWheel::new();
    for i in 0..SHORT_MAX as u64 {
        list.insert(5_000 - i, i);
    }
    assert!(list.is_short);
    list.insert(70_000, 999);
    assert!(!list.is_short);
    assert_invariants(&list);
    let fired = fire(&mut list, 70_000);
    assert_eq!(fired.len(), SHORT_MAX + 1);
    assert!(fired.windows(2).all(|pair| pair[0].0 <= pair[1].0));
}

#[test]
fn a_short_list_full_of_stale_handles_drops_them_and_stays() {
    let mut list = SweepWheel::new();
    let handles: Vec<_> = (0..SHORT_MAX as u64)
        .map(|i| list.insert(100 + i, i))
        .collect();
    for &handle in &handles[..SHORT_MAX - 1] {
        list.cancel(handle);
    }
    list.insert(50, 7);
    assert!(list.is_short);
    assert_eq!(list.short.len(), 2);
    assert_invariants(&list);
    assert_eq!(fire(&mut list, 1_000), vec![(50, 7), (227, 127)]);
}

#[test]
fn reserve_gives_the_ring_room_only_for_a_large_population() {
    let mut small = wheel();
    small.reserve(NEAR_SLOTS - 1);
    assert!(small.slots.iter().all(|handles| handles.capacity() == 0));
    let mut large = SweepWheel::<u64>::new();
    large.reserve(NEAR_SLOTS);
    assert!(!large.is_short, "told of a large population, it is a wheel");
    assert!(
        large.slots[..NEAR_SLOTS]
            .iter()
            .all(|handles| handles.capacity() >= RESERVE_RING_HANDLES)
    );
    assert!(
        large.slots[NEAR_SLOTS..]
            .iter()
            .all(|handles| handles.capacity() == 0)
    );
    // Reserved room is used like any other: a timer filed and fired.
    large.insert(10, 7);
    assert_eq!(fire(&mut large, 10), vec![(10, 7)]);
}

#[test]
fn inserts_that_grow_the_arena_or_a_slot_file_like_the_others() {
    // A wheel told of nothing: every arena entry and slot vector grows
    // at its first use, so both general paths are taken, then the fast
    // ones once entries are reused.
    let mut wheel = wheel();
    let mut handles = Vec::new();
    for i in 0..3_000u64 {
        handles.push(wheel.insert(1 + (i * 7_919) % 200_000, i));
        if i % 3 == 0 {
            wheel.cancel(handles[(i / 2) as usize]);
        }
    }
    assert_invariants(&wheel);
    let fired = fire(&mut wheel, 300_000);
    assert!(fired.windows(2).all(|pair| pair[0].0 <= pair[1].0));
    assert_eq!(fired.len() + 1_000, 3_000);
    assert_eq!(wheel.len(), 0);
}

#[test]
fn an_earlier_reschedule_renews_the_handle() {
    let mut wheel = wheel();
    let handle = wheel.insert(5_000, 7);
    let renewed = wheel.reschedule(handle, 20).expect("pending");
    assert_ne!(renewed, handle);
    assert_eq!(wheel.cancel(handle), None, "the old handle is stale");
    assert_eq!(fire(&mut wheel, 20), vec![(20, 7)]);
    assert_eq!(fire(&mut wheel, 6_000), vec![]);
    assert_eq!(wheel.reschedule(renewed, 30), None);
}

#[test]
fn an_overdue_timer_pushed_past_the_clock_goes_to_the_wheel() {
    let mut wheel = wheel();
    fire(&mut wheel, 50);
    let late = wheel.insert(40, 1);
    wheel.insert(30, 2);
    assert_eq!(wheel.reschedule(late, 80), Some(late));
    assert_eq!(fire(&mut wheel, 50), vec![(30, 2)]);
    assert_eq!(wheel.next_expiry(), Some(80));
    assert_eq!(fire(&mut wheel, 80), vec![(80, 1)]);
}

#[test]
fn scattered_timers_keep_the_invariants_and_fire_in_order() {
    let mut wheel = wheel();
    let mut handles = Vec::new();
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..2_000u64 {
        let deadline = next() % (1 << (next() % 40));
        handles.push(wheel.insert(deadline, i));
        if next() % 3 == 0 {
            let victim = handles[(next() % handles.len() as u64) as usize];
            wheel.cancel(victim);
        }
        if next() % 5 == 0 {
            let moved = (next() % handles.len() as u64) as usize;
            if let Some(renewed) = wheel.reschedule(handles[moved], next() % (1 << 30)) {
                handles[moved] = renewed;
            }
        }
    }
    assert_invariants(&wheel);
    let mut last = 0;
    while let Some(bound) = wheel.next_expiry() {
        let to = bound.max(wheel.now());
        for (deadline, _) in fire(&mut wheel, to) {
            assert!(deadline >= last);
            last = deadline;
        }
    }
    assert!(wheel.is_empty());
}

/// The capacity held by every slot vector together, in handles.
fn slot_capacity(wheel: &SweepWheel<u64>) -> usize {
    wheel.slots.iter().map(Vec::capacity).sum()
}

#[test]
fn a_level_zero_slot_fires_drops_and_refiles_in_one_sweep() {
    let mut wheel = wheel();
    let cancelled = wheel.insert(10, 1);
    let pushed = wheel.insert(10, 2);
    wheel.insert(10, 3);
    wheel.cancel(cancelled);
    assert_eq!(wheel.reschedule(pushed, 20), Some(pushed));
    assert_eq!(fire(&mut wheel, 10), vec![(10, 3)]);
    assert_eq!(wheel.counters.slot_visits, 1);
    assert_eq!(wheel.counters.entries_examined_not_due, 1, "the stale one");
    assert_eq!(wheel.counters.cascades, 1, "the pushed-back one");
    assert!(wheel.slots[10].is_empty() && wheel.slots[20].len() == 1);
    assert_eq!(fire(&mut wheel, 25), vec![(20, 2)]);
}

#[test]
fn an_advance_with_nothing_to_take_never_moves_the_clock_back() {
    let mut wheel = wheel();
    wheel.insert(100, 1);
    assert_eq!(fire(&mut wheel, 50), vec![]);
    assert_eq!(fire(&mut wheel, 40), vec![]);
    assert_eq!(wheel.now(), 50);
    assert_eq!(wheel.counters.slot_visits, 0);
    assert_eq!(fire(&mut wheel, 100), vec![(100, 1)]);
}

#[test]
fn a_level_zero_slot_taken_after_a_spike_gives_its_vector_back() {
    let mut wheel = wheel();
    let handles: Vec<_> = (0..1_000u64).map(|i| wheel.insert(500, i)).collect();
    for &handle in &handles[1..] {
        wheel.cancel(handle);
    }
    assert!(wheel.slots[500].capacity() >= 1_000);
    assert_eq!(fire(&mut wheel, 500), vec![(500, 0)]);
    assert_eq!(wheel.slots[500].capacity(), 0, "given back");
}

#[test]
fn a_slot_taken_after_a_spike_gives_its_vector_back() {
    let mut wheel = wheel();
    // A spike in one level-1 slot (ticks 2,048 to 3,071), then all but
    // one cancelled: one pending timer among 1,000 arena entries.
    let handles: Vec<_> = (0..1_000u64).map(|i| wheel.insert(2_048 + i, i)).collect();
    for &handle in &handles[1..] {
        wheel.cancel(handle);
    }
    let spike_slot = NEAR_SLOTS + 2;
    assert!(wheel.slots[spike_slot].capacity() >= 1_000);
    assert_eq!(fire(&mut wheel, 2_048), vec![(2_048, 0)]);
    assert_eq!(wheel.slots[spike_slot].capacity(), 0, "given back");
    assert_eq!(wheel.counters.entries_examined_not_due, 999);
}

#[test]
fn a_steady_wheel_keeps_its_slot_vectors() {
    let mut wheel = wheel();
    for i in 0..1_000u64 {
        wheel.insert(2_048 + i, i);
    }
    // As many pending as ever: the slot's vector is kept for its next
    // filling, as are the level-0 vectors the cascade filled.
    fire(&mut wheel, 2_048);
    assert!(wheel.slots[NEAR_SLOTS + 2].capacity() >= 1_000);
}

#[test]
fn an_emptied_large_wheel_gives_all_its_storage_back() {
    let mut wheel = wheel();
    let spike: Vec<_> = (0..RELEASE_MIN_TIMERS as u64)
        .map(|i| wheel.insert(1 + i * 37 % 200_000, i))
        .collect();
    for &handle in &spike[10..] {
        wheel.cancel(handle);
    }
    let last = spike[..10]
        .iter()
        .map(|&handle| wheel.timers.get(handle).expect("pending").deadline)
        .max()
        .expect("ten timers");
    fire(&mut wheel, last);
    assert!(wheel.is_empty());
    assert!(
        wheel.timers.capacity() > 0,
        "kept while slots hold stale handles"
    );
    // Past every deadline: the stale handles are swept and no slot is
    // occupied.
    let last = 200_000;
    fire(&mut wheel, last);
    assert_eq!(wheel.timers.capacity(), 0, "the arena was given back");
    assert_eq!(slot_capacity(&wheel), 0, "every slot vector was given back");
    assert_eq!(wheel.occupied.first(), None);
    assert_eq!(wheel.next_expiry(), None);
    // Every handle from before is stale, and the wheel works as new.
    let fresh = wheel.insert(last + 5, 99);
    for &old in &spike {
        assert_eq!(wheel.cancel(old), None);
        assert_eq!(wheel.reschedule(old, last + 1), None);
    }
    assert_eq!(wheel.next_expiry(), Some(last + 5));
    assert_eq!(fire(&mut wheel, last + 5), vec![(last + 5, 99)]);
    assert_eq!(wheel.cancel(fresh), None);
}

#[test]
fn a_small_wheel_that_empties_keeps_its_storage() {
    let mut wheel = wheel();
    for i in 0..100u64 {
        wheel.insert(1 + i, i);
    }
    fire(&mut wheel, 100);
    assert!(wheel.is_empty());
    assert_eq!(wheel.timers.capacity(), 100, "below RELEASE_MIN_TIMERS");
}

#[test]
fn a_slot_whose_timers_are_all_filed_again_is_an_empty_tick() {
    let mut wheel = wheel();
    wheel.insert(120_000, 1);
    // Level 2's slot 1 (65,536..=131,071) is taken at 110,000 and its one
    // timer, due later, is filed again: a visit that fired nothing.
    assert_eq!(fire(&mut wheel, 110_000), vec![]);
    assert_eq!(wheel.counters.slot_visits, 1);
    assert_eq!(wheel.counters.cascades, 1);
    assert_eq!(wheel.counters.empty_slot_visits, 1);
}
