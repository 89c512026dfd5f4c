//! Hand-written cases for the corners of the contract that random sequences reach
//! only by luck. Each is generic over the algorithm and is instantiated for every
//! registered one by `main.rs`.
//!
//! A case advances to the tick its timers are *due* at, `Q::due_at` of the clock
//! at insert and the deadline, never to the bare deadline: for an exact algorithm
//! the two are the same tick, so the case is exactly as strict as a literal one,
//! and for an inexact algorithm it asks for what that algorithm declares. Cases
//! whose literal expectation would name two timers that an inexact algorithm may
//! make due at the same tick go through [`Case`], which checks each advance
//! against the due ticks of the timers it tracks.

use std::collections::BTreeMap;

use algorithms::registry::Payload;
use algorithms::{Algorithm, Expired, Handle, MAX_DEADLINE, Tick, TimerQueue};

/// Timers in one slot for `many_timers_in_one_slot`.
const TIMERS_IN_ONE_SLOT: u64 = 100_000;

/// Advances `queue` to `now` and returns what fired as `(deadline, payload)`.
fn fire<Q: TimerQueue<Payload>>(queue: &mut Q, now: Tick) -> Vec<(Tick, Payload)> {
    let mut out: Vec<Expired<Payload>> = Vec::new();
    queue.advance(now, &mut out);
    out.iter().map(|e| (e.deadline, e.payload)).collect()
}

/// The tick a timer with `deadline` inserted into `queue` now is due at.
fn due<Q: Algorithm + TimerQueue<Payload>>(queue: &Q, deadline: Tick) -> Tick {
    Q::due_at(queue.now(), deadline)
}

/// Sorts a fired batch by payload, for comparing batches whose ties may come in
/// any order.
fn by_payload(mut fired: Vec<(Tick, Payload)>) -> Vec<(Tick, Payload)> {
    fired.sort_unstable_by_key(|&(_, payload)| payload);
    fired
}

/// A queue and the timers a case has inserted and not yet seen fire or cancelled,
/// each with its deadline and due tick. [`Case::fire`] checks an advance against
/// them: exactly the tracked timers due by `now` fire, with their deadlines, in
/// non-decreasing order of due tick. For an exact algorithm, whose due tick is
/// the deadline, that is the literal expectation "every timer with
/// `deadline <= now`, in deadline order".
struct Case<Q> {
    queue: Q,
    /// `(deadline, due tick)` of every pending timer, by payload.
    pending: BTreeMap<Payload, (Tick, Tick)>,
}

impl<Q: Algorithm + TimerQueue<Payload>> Case<Q> {
    fn new() -> Self {
        Self {
            queue: Q::with_defaults(),
            pending: BTreeMap::new(),
        }
    }

    fn insert(&mut self, deadline: Tick, payload: Payload) -> Handle {
        let due = due(&self.queue, deadline);
        let previous = self.pending.insert(payload, (deadline, due));
        assert!(previous.is_none(), "payload {payload} is used twice");
        self.queue.insert(deadline, payload)
    }

    fn cancel(&mut self, handle: Handle) -> Option<Payload> {
        let got = self.queue.cancel(handle);
        if let Some(payload) = got {
            assert!(
                self.pending.remove(&payload).is_some(),
                "cancel returned {payload}, which is not pending"
            );
        }
        got
    }

    /// The due tick of the pending timer `payload`.
    fn due_of(&self, payload: Payload) -> Tick {
        self.pending[&payload].1
    }

    /// Advances to `now`, checks the output against the tracked due ticks (see
    /// the type's documentation) and returns it as `(deadline, payload)`.
    fn fire(&mut self, now: Tick) -> Vec<(Tick, Payload)> {
        let before = self.queue.now();
        let fired = fire(&mut self.queue, now);
        let mut dues = Vec::with_capacity(fired.len());
        for &(deadline, payload) in &fired {
            let (want_deadline, due) = self
                .pending
                .remove(&payload)
                .unwrap_or_else(|| panic!("advance({now}) fired {payload}, which is not pending"));
            assert_eq!(deadline, want_deadline, "timer {payload}'s deadline");
            assert!(
                due <= now,
                "advance({now}) fired {payload}, due at {due}: early"
            );
            dues.push(due);
        }
        assert!(
            dues.is_sorted(),
            "advance({now}) fired out of due-tick order: {fired:?} with due ticks {dues:?}"
        );
        if now >= before {
            let left: Vec<_> = self
                .pending
                .iter()
                .filter(|&(_, &(_, due))| due <= now)
                .collect();
            assert!(
                left.is_empty(),
                "advance({now}) left due timers pending: (payload, (deadline, due)) {left:?}"
            );
        } else {
            assert!(fired.is_empty(), "advance({now}) went back in time");
        }
        fired
    }
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
    let future = due(&q, 50_001);
    q.insert(50_001, 4);
    assert_eq!(
        fire(&mut q, future),
        [(0, 3), (10, 1), (49_999, 2), (50_001, 4)],
        "overdue timers fire first, in deadline order, with their own deadlines"
    );
}

pub(crate) fn cancel_after_fire<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let at = due(&q, 5);
    let h = q.insert(5, 1);
    assert_eq!(fire(&mut q, at), [(5, 1)]);
    assert_eq!(q.cancel(h), None);
    assert!(q.is_empty());
}

pub(crate) fn cancel_twice<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let at = due(&q, 5);
    let h = q.insert(5, 1);
    let other = q.insert(5, 2);
    assert_eq!(q.cancel(h), Some(1));
    assert_eq!(q.cancel(h), None);
    assert_eq!(q.len(), 1);
    assert_eq!(fire(&mut q, at), [(5, 2)], "a cancelled timer never fires");
    assert_eq!(q.cancel(other), None);
}

pub(crate) fn stale_handle_after_reuse<Q: Algorithm + TimerQueue<Payload>>() {
    let mut case = Case::<Q>::new();
    // The timers are spread by twice the declared lateness, so that an inexact
    // algorithm with coarse buckets (ZooKeeper's rounds to 2,000 ticks) does
    // not fire timer 2 with timer 3; for an exact one the spread is 0.
    let spread = 2 * Q::lateness_bound(1_000);
    let old = case.insert(100, 1);
    assert_eq!(case.cancel(old), Some(1));
    // The next insert reuses the freed storage; the old handle must not reach it.
    let new = case.insert(200 + spread, 2);
    assert_eq!(
        case.cancel(old),
        None,
        "a stale handle cancelled another timer"
    );
    assert_eq!(case.queue.len(), 1);
    let fired_old = case.insert(1, 3);
    assert_eq!(case.fire(case.due_of(3)), [(1, 3)]);
    case.insert(300 + 2 * spread, 4);
    assert_eq!(
        case.cancel(fired_old),
        None,
        "the handle of a fired timer is stale"
    );
    assert_eq!(case.queue.len(), 2);
    assert_eq!(case.cancel(new), Some(2));
    assert_eq!(case.fire(case.due_of(4)), [(300 + 2 * spread, 4)]);
}

pub(crate) fn advance_backwards<Q: Algorithm + TimerQueue<Payload>>() {
    let mut q = Q::with_defaults();
    let at = due(&q, 150);
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
    assert_eq!(fire(&mut q, at), [(150, 1)]);
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
    let mut case = Case::<Q>::new();
    let deadline = 1_234;
    let handles: Vec<_> = (0..TIMERS_IN_ONE_SLOT)
        .map(|p| case.insert(deadline, p))
        .collect();
    // A neighbour on each side, and a cancel of every tenth timer.
    let (before, after) = (TIMERS_IN_ONE_SLOT, TIMERS_IN_ONE_SLOT + 1);
    case.insert(deadline - 1, before);
    case.insert(deadline + 1, after);
    for h in handles.iter().step_by(10) {
        assert!(case.cancel(*h).is_some());
    }
    // An exact algorithm fires the neighbour, the slot, then the other
    // neighbour, one advance each; an inexact one may fire some of them together
    // (`Case::fire` checks each advance against the due ticks).
    let (due_before, due_slot, due_after) =
        (case.due_of(before), case.due_of(1), case.due_of(after));
    let first = case.fire(due_before);
    if due_before < due_slot {
        assert_eq!(first, [(deadline - 1, before)]);
    }
    let fired = case.fire(due_slot);
    let slot: Vec<_> = by_payload(first.into_iter().chain(fired).collect())
        .into_iter()
        .filter(|&(d, _)| d == deadline)
        .collect();
    let expected: Vec<_> = (0..TIMERS_IN_ONE_SLOT)
        .filter(|p| p % 10 != 0)
        .map(|p| (deadline, p))
        .collect();
    assert_eq!(slot.len(), expected.len());
    assert!(slot == expected, "the slot's timers fired wrongly");
    let last = case.fire(due_after);
    if due_slot < due_after {
        assert_eq!(last, [(deadline + 1, after)]);
    }
    assert!(case.queue.is_empty());
}

pub(crate) fn deadlines_near_max<Q: Algorithm + TimerQueue<Payload>>() {
    let mut case = Case::<Q>::new();
    case.insert(MAX_DEADLINE, 1);
    case.insert(MAX_DEADLINE - 1, 2);
    let h = case.insert(MAX_DEADLINE - 2, 3);
    case.insert(MAX_DEADLINE / 2, 4);
    assert_eq!(case.fire(case.due_of(4)), [(MAX_DEADLINE / 2, 4)]);
    assert_eq!(case.cancel(h), Some(3));
    assert!(case.fire(MAX_DEADLINE - 2).is_empty());
    // An exact algorithm fires 2 here and 1 at MAX_DEADLINE; an inexact one may
    // fire both at MAX_DEADLINE, but never beyond it.
    let near = case.fire(MAX_DEADLINE - 1);
    assert!(near.is_empty() || near == [(MAX_DEADLINE - 1, 2)]);
    case.fire(MAX_DEADLINE);
    assert!(case.queue.is_empty(), "everything is due by MAX_DEADLINE");
    // At the end of time, an insert is overdue at once and still fires.
    case.insert(MAX_DEADLINE, 5);
    assert_eq!(case.fire(MAX_DEADLINE), [(MAX_DEADLINE, 5)]);
    if Q::EXACT {
        assert_eq!(near, [(MAX_DEADLINE - 1, 2)]);
    }
}

pub(crate) fn huge_jump_with_pending_timers<Q: Algorithm + TimerQueue<Payload>>() {
    let mut case = Case::<Q>::new();
    let deadlines = [3, 700, 1 << 20, (1 << 33) + 5, 1 << 45, (1 << 45) + 1];
    for (p, d) in deadlines.into_iter().enumerate() {
        case.insert(d, p as Payload);
    }
    let last_due = (0..deadlines.len() as Payload)
        .map(|p| case.due_of(p))
        .max()
        .expect("timers");
    let jump = last_due.max(1 << 46);
    let fired = by_payload(case.fire(jump));
    let expected: Vec<_> = deadlines
        .iter()
        .enumerate()
        .map(|(p, &d)| (d, p as Payload))
        .collect();
    assert_eq!(fired, expected);
    assert_eq!(case.queue.now(), jump);
    case.insert(jump + 10, 9);
    assert_eq!(
        case.fire(case.due_of(9)),
        [(jump + 10, 9)],
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
    let mut case = Case::<Q>::new();
    // Deadlines scattered over several wheel revolutions and levels.
    let mut deadlines: Vec<Tick> = (0..5_000u64)
        .map(|i| (i * 7_919 + 13) % 1_000_003)
        .collect();
    for (p, &d) in deadlines.iter().enumerate() {
        case.insert(d, p as Payload);
    }
    let last_due = (0..5_000).map(|p| case.due_of(p)).max().expect("timers");
    // `Case::fire` checks the order: by due tick, which for an exact algorithm
    // is the deadline.
    let fired = case.fire(last_due.max(1_000_003));
    if Q::EXACT {
        let got: Vec<Tick> = fired.iter().map(|&(d, _)| d).collect();
        deadlines.sort_unstable();
        assert_eq!(got, deadlines);
    } else {
        assert_eq!(fired.len(), deadlines.len());
    }
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
