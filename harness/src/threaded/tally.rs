//! The exact correctness tally of a threaded run: every timer fired once, or
//! was cancelled, or is still pending at the end for a reason, and never two
//! of those; nothing fired before its deadline.
//!
//! The producers record each of their timers' [`Fate`] as their own calls
//! saw it (the deadline last set, whether a cancel won, the cancels and
//! reschedules that found the timer gone); the firing side records each
//! [`Fire`] with the tick it advanced to and its wall time. [`check`] sets
//! the two side by side after the run, each fire against the deadline its
//! producer last set: a queue need not hand a fired timer's deadline back (a
//! native row whose crate keeps none reports the tick it fired at), and the
//! producer's record is the truth a caller holds. It
//! needs no reference model and no replay in virtual time: the race between
//! threads makes the set of fired timers legitimately differ from run to run
//! (a cancel issued late loses to the firing), and the tally holds each run
//! to the contract instead:
//!
//! * a timer fires at most once, and only with the deadline it last had;
//! * a fire is never early: its tick reaches the deadline, and its wall
//!   instant is at or after the deadline's instant;
//! * a cancel that won means the timer never fires; a cancel or a reschedule
//!   that found the timer gone means it had fired or been cancelled;
//! * a timer neither fired nor cancelled must still be due after the end
//!   (else it was lost), and the queues must hold exactly those.

use algorithms::Tick;

/// What a producer's own calls saw of one of its timers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fate {
    /// Whether the timer was inserted.
    pub armed: bool,
    /// The deadline it was inserted with, or last rescheduled to.
    pub deadline: Tick,
    /// Whether a cancel won: the timer was pending and will never fire.
    pub cancelled: bool,
    /// Cancels that found it no longer pending (lost to its firing).
    pub missed_cancels: u32,
    /// Reschedules that found it no longer pending.
    pub missed_reschedules: u32,
}

/// One timer fired, as the firing side saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fire {
    /// The timer's number.
    pub timer: u32,
    /// The tick the queue was advanced to when it fired.
    pub tick: Tick,
    /// Wall nanoseconds from the clock's start to the fire (one reading per
    /// wakeup, after the advance returned).
    pub at_ns: u64,
}

/// Nanoseconds from `deadline_ns` to `now_ns`, negative when early, clamped
/// to `i64`.
pub fn late_nanos(now_ns: u64, deadline_ns: u64) -> i64 {
    let late = i128::from(now_ns) - i128::from(deadline_ns);
    i64::try_from(late).unwrap_or(if late < 0 { i64::MIN } else { i64::MAX })
}

/// The counts of a run that passed [`check`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Timers inserted.
    pub armed: u64,
    /// Timers fired.
    pub fired: u64,
    /// Timers whose cancel won.
    pub cancelled: u64,
    /// Timers pending at the end, due after it.
    pub pending: u64,
    /// Cancels that lost the race to a firing (or named a gone timer).
    pub missed_cancels: u64,
    /// Reschedules that found the timer gone.
    pub missed_reschedules: u64,
}

/// Checks `fires` against `fates` (indexed by timer): see the module doc.
/// `queued` is what the queues hold at the end, `end` the last tick advanced
/// to, `due_by(deadline)` the latest tick a timer with that deadline may
/// fire at (the deadline for an exact design), and `instant_ns(deadline)`
/// the wall nanoseconds from the clock's start to the deadline's instant.
pub fn check(
    fates: &[Fate],
    fires: &[Fire],
    queued: usize,
    end: Tick,
    due_by: impl Fn(Tick) -> Tick,
    instant_ns: impl Fn(Tick) -> u64,
) -> Result<Tally, String> {
    let mut fired = vec![false; fates.len()];
    for fire in fires {
        let timer = fire.timer as usize;
        let fate = fates
            .get(timer)
            .filter(|fate| fate.armed)
            .ok_or_else(|| format!("timer {timer} fired but was never inserted"))?;
        if std::mem::replace(&mut fired[timer], true) {
            return Err(format!("timer {timer} fired twice"));
        }
        if fate.cancelled {
            return Err(format!(
                "timer {timer} fired at tick {} although its cancel won",
                fire.tick
            ));
        }
        // An entry left behind by a reschedule fires at its old deadline:
        // before the timer's own (early), or after the new entry fired (twice).
        let late = late_nanos(fire.at_ns, instant_ns(fate.deadline));
        if fire.tick < fate.deadline || late < 0 {
            return Err(format!(
                "timer {timer} fired early: at tick {} ({late} ns from its deadline's instant) for \
                 deadline {}",
                fire.tick, fate.deadline
            ));
        }
    }
    let mut tally = Tally::default();
    for (timer, (fate, &fired)) in fates.iter().zip(&fired).enumerate() {
        if !fate.armed {
            continue;
        }
        tally.armed += 1;
        tally.missed_cancels += u64::from(fate.missed_cancels);
        tally.missed_reschedules += u64::from(fate.missed_reschedules);
        let gone = fired || fate.cancelled;
        if !gone && (fate.missed_cancels > 0 || fate.missed_reschedules > 0) {
            return Err(format!(
                "a cancel or reschedule of timer {timer} found it gone, but it neither fired nor \
                 was cancelled"
            ));
        }
        if fired {
            tally.fired += 1;
        } else if fate.cancelled {
            tally.cancelled += 1;
        } else if due_by(fate.deadline) <= end {
            return Err(format!(
                "timer {timer} (deadline {}) was lost: neither fired nor cancelled by tick {end}",
                fate.deadline
            ));
        } else {
            tally.pending += 1;
        }
    }
    if tally.pending != queued as u64 {
        return Err(format!(
            "the queues hold {queued} timers at the end, but {} are pending",
            tally.pending
        ));
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn armed(deadline: Tick) -> Fate {
        Fate {
            armed: true,
            deadline,
            ..Fate::default()
        }
    }

    /// A fire at `tick`, a nanosecond after the tick's instant.
    fn fire(timer: u32, tick: Tick) -> Fire {
        Fire {
            timer,
            tick,
            at_ns: instant(tick) + 1,
        }
    }

    /// A tick lasts a microsecond.
    fn instant(tick: Tick) -> u64 {
        tick * 1_000
    }

    fn exact(deadline: Tick) -> Tick {
        deadline
    }

    fn check(
        fates: &[Fate],
        fires: &[Fire],
        queued: usize,
        end: Tick,
        due_by: impl Fn(Tick) -> Tick,
    ) -> Result<Tally, String> {
        super::check(fates, fires, queued, end, due_by, instant)
    }

    #[test]
    fn lateness_is_signed_and_clamped() {
        assert_eq!(late_nanos(10, 4), 6);
        assert_eq!(late_nanos(4, 10), -6);
        assert_eq!(late_nanos(u64::MAX, 0), i64::MAX);
    }

    #[test]
    fn a_run_where_each_timer_fired_was_cancelled_or_is_due_later_passes() {
        let cancelled = Fate {
            cancelled: true,
            ..armed(5)
        };
        let raced = Fate {
            missed_cancels: 1,
            ..armed(7)
        };
        let fates = [armed(3), cancelled, raced, armed(50)];
        let tally = check(&fates, &[fire(0, 3), fire(2, 8)], 1, 10, exact).unwrap();
        assert_eq!(
            (
                tally.fired,
                tally.cancelled,
                tally.pending,
                tally.missed_cancels
            ),
            (2, 1, 1, 1)
        );
    }

    #[test]
    fn every_way_of_breaking_the_contract_is_named() {
        let cases: Vec<(Vec<Fate>, Vec<Fire>, usize, &str)> = vec![
            (vec![armed(3)], vec![fire(0, 3), fire(0, 4)], 0, "twice"),
            (vec![armed(3)], vec![fire(0, 2)], 0, "early"),
            (
                vec![armed(3)],
                vec![Fire {
                    at_ns: instant(3) - 1,
                    ..fire(0, 3)
                }],
                0,
                "early",
            ),
            // An entry of an earlier deadline fires after a reschedule moved
            // the timer later.
            (vec![armed(9)], vec![fire(0, 3)], 0, "for deadline 9"),
            (
                vec![Fate {
                    cancelled: true,
                    ..armed(3)
                }],
                vec![fire(0, 3)],
                0,
                "cancel won",
            ),
            (vec![armed(3)], vec![], 0, "lost"),
            (
                vec![Fate {
                    missed_cancels: 1,
                    ..armed(30)
                }],
                vec![],
                1,
                "found it gone",
            ),
            (vec![armed(30)], vec![], 0, "the queues hold 0"),
            (vec![Fate::default()], vec![fire(0, 3)], 0, "never inserted"),
        ];
        for (fates, fires, queued, want) in cases {
            let error = check(&fates, &fires, queued, 10, exact).unwrap_err();
            assert!(error.contains(want), "{error} (wanted {want})");
        }
    }

    #[test]
    fn an_inexact_design_may_hold_a_timer_past_its_deadline_within_its_bound() {
        let late = |deadline: Tick| deadline + 100;
        assert!(check(&[armed(5)], &[], 1, 10, late).is_ok());
        assert!(check(&[armed(5)], &[], 1, 200, late).is_err());
    }
}
