//! The sorted run: a small higher slot taken whole and sorted once.
//!
//! When a slot of level 2 or above holding at most `RUN_MAX` handles is
//! taken and the run is empty, its timers that do not fire are not moved down
//! into level 1 and the ring: they are sorted by deadline into one vector of
//! `(deadline, handle)` pairs, latest first, and each later advance fires from
//! its end ([`SweepWheel::take_run`]). Filing them below costs k moves and, on
//! a wheel as sparse as `sparse` (thousands of timers hours apart), up to 64
//! more slots taken one by one, each with its search and bookkeeping; the sort
//! costs a pass or two over k entries. Level 1's slots are not taken into the
//! run (they hold one or two timers there, and the ring costs no more), nor is
//! a large slot, whose sort would grow as k log k where moving it grows as k.
//!
//! The run is one more structure on the far side: `far_start` is the earlier
//! of the earliest higher slot's start and the run's first deadline, so an
//! advance that finds the ring first looks at nothing new.
//!
//! The sort ([`sort_latest_first`]) is a least-significant-digit radix sort of
//! each deadline's distance below the latest, a byte a pass, with the passes
//! for bytes in which every distance agrees skipped (two passes for a level-2
//! slot's 65,536 ticks), into a second buffer kept beside the run. It executes
//! more instructions than a comparison sort, since a pass counts 256 digit
//! values however few entries there are, but none of its branches depends on
//! the data, and it measured faster; runs shorter than [`RADIX_MIN`] are
//! sorted by comparison.

use super::SweepWheel;
use super::advance::Swept;
use crate::arena::Handle;
use crate::{Expired, Tick};

/// Runs shorter than this are sorted by comparison: a radix pass costs a
/// count of every digit value however few entries there are.
pub(super) const RADIX_MIN: usize = 24;

/// Sorts `entries` by deadline, latest first: a stable least-significant-digit
/// radix sort of each deadline's distance below the latest, 8 bits a pass,
/// with the passes for digits in which every distance agrees skipped, and
/// `scratch` as the second buffer. Short runs are sorted by comparison.
pub(super) fn sort_latest_first(
    entries: &mut Vec<(Tick, Handle)>,
    scratch: &mut Vec<(Tick, Handle)>,
) {
    let Some(&first) = entries.first() else {
        return;
    };
    if entries.len() < RADIX_MIN {
        entries.sort_unstable_by_key(|&(deadline, _)| std::cmp::Reverse(deadline));
        return;
    }
    let latest = entries
        .iter()
        .map(|&(deadline, _)| deadline)
        .max()
        .unwrap_or(first.0);
    let differ = entries.iter().fold(0, |differ, &(deadline, _)| {
        differ | ((latest - deadline) ^ (latest - first.0))
    });
    let mut shift = 0;
    while shift < Tick::BITS && differ >> shift != 0 {
        if (differ >> shift) & 0xff != 0 {
            let digit = |deadline: Tick| ((latest - deadline) >> shift) as usize & 0xff;
            let mut starts = [0u32; 256];
            for &(deadline, _) in entries.iter() {
                starts[digit(deadline)] += 1;
            }
            let mut sum = 0;
            for start in &mut starts {
                (*start, sum) = (sum, sum + *start);
            }
            scratch.clear();
            scratch.resize(entries.len(), first);
            for &entry in entries.iter() {
                let start = &mut starts[digit(entry.0)];
                scratch[*start as usize] = entry;
                *start += 1;
            }
            std::mem::swap(entries, scratch);
        }
        shift += 8;
    }
}

impl<P> SweepWheel<P> {
    /// Fires the sorted run's timers due by `limit`, the advance's `now` or
    /// the start of the earliest slot if that is sooner, in deadline order:
    /// the clock moves to each entry's deadline as it is taken. A timer whose
    /// deadline was pushed back is filed again (and `limit` lowered to its
    /// slot's start, so that nothing after it fires first).
    #[inline(never)]
    pub(super) fn take_run(&mut self, limit: Tick, out: &mut Vec<Expired<P>>) {
        self.counters.slot_visits += 1;
        // The run's first entry is the earliest of the far side, so
        // `far_start` is its deadline: it becomes the slots' start here, then
        // takes in what is filed below and the run's new first entry.
        let slots = self.first_far_start();
        self.far_start = slots;
        let mut limit = limit.min(slots);
        let mut swept = Swept::EMPTY;
        while let Some(&(deadline, handle)) = self.run.last() {
            if deadline > limit {
                break;
            }
            self.run.pop();
            self.elapsed = deadline;
            let Some(timer) = self.timers.get(handle) else {
                swept.stale += 1;
                continue;
            };
            swept.current += 1;
            let when = timer.deadline;
            if when <= deadline {
                let timer = self.timers.remove_at(handle.index());
                out.push(Expired {
                    payload: timer.payload,
                    deadline: timer.deadline,
                });
            } else {
                let floor = self.place(handle, when);
                limit = limit.min(when & floor);
                swept.refiled += 1;
            }
        }
        self.run_start = self.run.last().map_or(Tick::MAX, |&(deadline, _)| deadline);
        self.far_start = self.far_start.min(self.run_start);
        self.count_swept(swept);
    }

    /// [`Self::sweep`] for a small slot whose last tick is `last`, when the
    /// run is empty: a timer that is not fired and is due by `last` goes into
    /// the run rather than into a slot below, and the run is sorted. Out of
    /// line, so that [`Self::take_slot`], which inlines the plain sweep,
    /// does not grow by this one.
    #[inline(never)]
    pub(super) fn sweep_into_run(
        &mut self,
        handles: &[Handle],
        due_by: Tick,
        end: Tick,
        last: Tick,
        out: &mut Vec<Expired<P>>,
    ) -> Swept {
        let swept = self.sweep_with::<true>(handles, due_by, end, last, out);
        sort_latest_first(&mut self.run, &mut self.run_scratch);
        self.run_start = self.run.last().map_or(Tick::MAX, |&(deadline, _)| deadline);
        swept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::Arena;

    #[test]
    fn the_run_sort_orders_latest_first_like_a_comparison_sort() {
        let mut arena = Arena::new();
        let mut scratch = Vec::new();
        for (len, spread) in [
            (0, 1),
            (1, 1),
            (23, 1_000),
            (24, 1),
            (100, 65_536),
            (256, 1 << 40),
        ] {
            let mut entries: Vec<(Tick, Handle)> = (0..len as u64)
                .map(|i| (5_000 + (i * 2_654_435_761) % spread, arena.insert(())))
                .collect();
            let mut expected = entries.clone();
            expected.sort_by_key(|&(deadline, _)| std::cmp::Reverse(deadline));
            sort_latest_first(&mut entries, &mut scratch);
            let deadlines = |v: &[(Tick, Handle)]| v.iter().map(|e| e.0).collect::<Vec<_>>();
            assert_eq!(deadlines(&entries), deadlines(&expected), "{len} entries");
        }
    }
}
