//! Hand-written cases for the corners of the contract that random sequences reach
//! only by luck. Each is generic over the algorithm and is instantiated for every
//! registered one by `main.rs`.

use algorithms::registry::Payload;
use algorithms::{Algorithm, Expired, MAX_DEADLINE, Tick, TimerQueue};

/// Timers in one slot for `many_timers_in_one_slot`.
const TIMERS_IN_ONE_SLOT: u64 = 100_000;

/// Advances `queue` to `now` and returns what fired as `(deadline, payload)`.
fn fire<Q: TimerQueue<Payload>>(queue: &mut Q, now: Tick) -> Vec<(Tick, Payload)> {
    let mut out: Vec<Expired<Payload>> = Vec::new();
    queue.advance(now, &mut out);
    out.iter().map(|e| (e.deadline, e.payload)).collect()
}

/// Sorts a fired batch by payload, for comparing batches whose ties may come in
/// any order.
fn by_payload(mut fired: Vec<(Tick, Payload)>) -> Vec<(Tick, Payload)> {
    fired.sort_unstable_by_key(|&(_, payload)| payload);
    fired
}

pub(crate) fn deadline_at_now<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    assert!(fire(&mut q, 1_000).is_empty());
    q.insert(1_000, 7);
    assert_eq!(q.len(), 1);
    let bound = q.next_expiry().expect("a timer is pending");
    assert!(
        bound <= 1_000,
        "next_expiry() = {bound} for a timer due now"
    );
    assert_eq!(
        fire(&mut q, 1_000),
        [(1_000, 7)],
        "due at now: fires at the next advance"
    );
    assert!(q.is_empty());
}

pub(crate) fn deadline_in_the_past<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    fire(&mut q, 50_000);
    q.insert(10, 1);
    q.insert(49_999, 2);
    q.insert(0, 3);
    q.insert(50_001, 4);
    assert_eq!(
        fire(&mut q, 50_001),
        [(0, 3), (10, 1), (49_999, 2), (50_001, 4)],
        "overdue timers fire first, in deadline order, with their own deadlines"
    );
}

pub(crate) fn cancel_after_fire<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let h = q.insert(5, 1);
    assert_eq!(fire(&mut q, 5), [(5, 1)]);
    assert_eq!(q.cancel(h), None);
    assert!(q.is_empty());
}

pub(crate) fn cancel_twice<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let h = q.insert(5, 1);
    let other = q.insert(5, 2);
    assert_eq!(q.cancel(h), Some(1));
    assert_eq!(q.cancel(h), None);
    assert_eq!(q.len(), 1);
    assert_eq!(fire(&mut q, 5), [(5, 2)], "a cancelled timer never fires");
    assert_eq!(q.cancel(other), None);
}

pub(crate) fn stale_handle_after_reuse<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let old = q.insert(100, 1);
    assert_eq!(q.cancel(old), Some(1));
    // The next insert reuses the freed storage; the old handle must not reach it.
    let new = q.insert(200, 2);
    assert_eq!(
        q.cancel(old),
        None,
        "a stale handle cancelled another timer"
    );
    assert_eq!(q.len(), 1);
    let fired_old = q.insert(1, 3);
    assert_eq!(fire(&mut q, 1), [(1, 3)]);
    q.insert(300, 4);
    assert_eq!(
        q.cancel(fired_old),
        None,
        "the handle of a fired timer is stale"
    );
    assert_eq!(q.len(), 2);
    assert_eq!(q.cancel(new), Some(2));
    assert_eq!(fire(&mut q, 300), [(300, 4)]);
}

pub(crate) fn advance_backwards<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    q.insert(150, 1);
    fire(&mut q, 100);
    q.insert(90, 2);
    assert!(
        fire(&mut q, 50).is_empty(),
        "an earlier now fires nothing, not even overdue timers"
    );
    assert_eq!(q.now(), 100, "an earlier now leaves the clock unchanged");
    assert_eq!(q.len(), 2);
    assert_eq!(fire(&mut q, 100), [(90, 2)]);
    assert_eq!(fire(&mut q, 150), [(150, 1)]);
}

pub(crate) fn advance_by_zero_fires_overdue<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    fire(&mut q, 7);
    assert!(fire(&mut q, 7).is_empty());
    q.insert(3, 1);
    assert_eq!(fire(&mut q, 7), [(3, 1)]);
    assert_eq!(q.now(), 7);
}

pub(crate) fn many_timers_in_one_slot<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let deadline = 1_234;
    let handles: Vec<_> = (0..TIMERS_IN_ONE_SLOT)
        .map(|p| q.insert(deadline, p))
        .collect();
    // A neighbour on each side, and a cancel of every tenth timer.
    q.insert(deadline - 1, TIMERS_IN_ONE_SLOT);
    q.insert(deadline + 1, TIMERS_IN_ONE_SLOT + 1);
    for h in handles.iter().step_by(10) {
        assert!(q.cancel(*h).is_some());
    }
    assert_eq!(
        fire(&mut q, deadline - 1),
        [(deadline - 1, TIMERS_IN_ONE_SLOT)]
    );
    let fired = by_payload(fire(&mut q, deadline));
    let expected: Vec<_> = (0..TIMERS_IN_ONE_SLOT)
        .filter(|p| p % 10 != 0)
        .map(|p| (deadline, p))
        .collect();
    assert_eq!(fired.len(), expected.len());
    assert!(fired == expected, "the slot's timers fired wrongly");
    assert_eq!(
        fire(&mut q, deadline + 1),
        [(deadline + 1, TIMERS_IN_ONE_SLOT + 1)]
    );
}

pub(crate) fn deadlines_near_max<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    q.insert(MAX_DEADLINE, 1);
    q.insert(MAX_DEADLINE - 1, 2);
    let h = q.insert(MAX_DEADLINE - 2, 3);
    q.insert(MAX_DEADLINE / 2, 4);
    assert_eq!(fire(&mut q, MAX_DEADLINE / 2), [(MAX_DEADLINE / 2, 4)]);
    assert_eq!(q.cancel(h), Some(3));
    assert!(fire(&mut q, MAX_DEADLINE - 2).is_empty());
    assert_eq!(fire(&mut q, MAX_DEADLINE - 1), [(MAX_DEADLINE - 1, 2)]);
    assert_eq!(fire(&mut q, MAX_DEADLINE), [(MAX_DEADLINE, 1)]);
    // At the end of time, an insert is overdue at once and still fires.
    q.insert(MAX_DEADLINE, 5);
    assert_eq!(fire(&mut q, MAX_DEADLINE), [(MAX_DEADLINE, 5)]);
}

pub(crate) fn huge_jump_with_pending_timers<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let deadlines = [3, 700, 1 << 20, (1 << 33) + 5, 1 << 45, (1 << 45) + 1];
    for (p, d) in deadlines.into_iter().enumerate() {
        q.insert(d, p as Payload);
    }
    let fired = fire(&mut q, 1 << 46);
    let expected: Vec<_> = deadlines
        .iter()
        .enumerate()
        .map(|(p, &d)| (d, p as Payload))
        .collect();
    assert_eq!(fired, expected);
    assert_eq!(q.now(), 1 << 46);
    q.insert((1 << 46) + 10, 9);
    assert_eq!(
        fire(&mut q, (1 << 46) + 10),
        [((1 << 46) + 10, 9)],
        "the wheel works after the jump"
    );
}

pub(crate) fn empty_queue_reports_nothing<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    assert!(q.is_empty());
    assert_eq!(q.next_expiry(), None);
    let h = q.insert(10, 1);
    assert!(q.next_expiry().is_some());
    q.cancel(h);
    assert_eq!(
        q.next_expiry(),
        None,
        "None once the last timer is cancelled"
    );
    assert!(fire(&mut q, 1 << 40).is_empty());
    assert_eq!(q.now(), 1 << 40);
}

pub(crate) fn fires_in_deadline_order<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    // Deadlines scattered over several wheel revolutions and levels.
    let mut deadlines: Vec<Tick> = (0..5_000u64)
        .map(|i| (i * 7_919 + 13) % 1_000_003)
        .collect();
    for (p, &d) in deadlines.iter().enumerate() {
        q.insert(d, p as Payload);
    }
    let fired = fire(&mut q, 1_000_003);
    let got: Vec<Tick> = fired.iter().map(|&(d, _)| d).collect();
    deadlines.sort_unstable();
    assert_eq!(got, deadlines);
}

pub(crate) fn reschedule_moves_only_pending_timers<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    fire(&mut q, 1_000);
    let later = q.insert(1_010, 1);
    let earlier = q.insert(5_000, 2);
    let past = q.insert(2_000, 3);
    let later = q.reschedule(later, 70_000).expect("pending");
    let earlier = q.reschedule(earlier, 1_005).expect("pending");
    let past = q.reschedule(past, 10).expect("pending");
    assert_eq!(q.len(), 3, "a reschedule neither adds nor removes a timer");
    assert_eq!(
        fire(&mut q, 1_000),
        [(10, 3)],
        "moved into the past: fires at the next advance, with its new deadline"
    );
    assert!(
        q.reschedule(past, 3_000).is_none(),
        "a fired timer stays fired"
    );
    assert_eq!(fire(&mut q, 69_999), [(1_005, 2)], "moved earlier");
    assert_eq!(q.cancel(earlier), None);
    // Pushed back twice more, as an idle timeout is by every request.
    let later = q.reschedule(later, 80_000).expect("pending");
    let later = q.reschedule(later, 80_000).expect("pending, same deadline");
    assert_eq!(fire(&mut q, 79_999), []);
    assert_eq!(q.cancel(later), Some(1));
    assert!(
        q.reschedule(later, 90_000).is_none(),
        "a cancelled timer stays cancelled"
    );
    assert!(q.is_empty());
    assert_eq!(fire(&mut q, MAX_DEADLINE), []);
}
