//! Brown's calendar queue, with resizing: an O(1)-expected priority queue from
//! discrete-event simulation, used as a timer queue.
//!
//! # Idea
//!
//! Time is cut into *days* of `width` ticks, and `nbuckets` consecutive days make
//! a *year*. The calendar is an array of `nbuckets` buckets, one per day of the
//! year: a timer due at `deadline` lives in bucket `(deadline / width) % nbuckets`,
//! next to the timers due on the same day of other years, as appointments in a
//! desk calendar. Each bucket is a list sorted by deadline, so a bucket's timers of
//! the current year come first, ahead of those of later years.
//!
//! A dequeue starts at the *cursor*, the day of the last timer taken, and looks at
//! the head of that day's bucket: if the head is due on that very day (not a year
//! or more later), it is the minimum of the whole queue. Otherwise the cursor moves
//! to the next day, wrapping around the array. If a whole year of days passes
//! without finding a timer of the current year, the timers are sparse compared
//! with the year, and the dequeue falls back to a *direct search*: the minimum over
//! all the bucket heads, whose day becomes the cursor.
//!
//! The queue stays efficient only if a year holds about as many days as timers and
//! a day holds a few timers. So the number of buckets follows the population,
//! doubling when it exceeds twice the buckets and halving when it drops below half
//! of them, and every resize re-estimates the width from the separation of the
//! next few timers (see "Resizing").
//!
//! Source: R. Brown, "Calendar Queues: A Fast O(1) Priority Queue Implementation
//! for the Simulation Event Set Problem", Communications of the ACM 31(10),
//! 1988. The thresholds, the sample size and the width rule are Brown's; the
//! differences are listed under "Departures from Brown".
//!
//! # From dequeue to `advance`
//!
//! A simulation dequeues one event at a time; a timer queue is advanced to a time
//! and hands over everything due by then. Here `advance(now)` *peeks* at the
//! minimum with Brown's scan and pops it while it is due: the timers of the
//! cursor's day come off the head of one bucket, and when that day has nothing
//! left the cursor moves on. The scan stops at the first timer not yet due. That
//! timer is the exact minimum, which is kept as [`TimerQueue::next_expiry`], and
//! the cursor stays on its day, so the days between `now` and that timer, which
//! the scan has just crossed, are never looked at again. An event-driven caller
//! therefore jumps straight from one deadline to the next, and an advance over a
//! long idle span costs nothing at all: when the known minimum is after `now`,
//! `advance` does not scan. One scan visits at most a year of buckets and then
//! makes one direct search, as in Brown, so however far the next timer is, finding
//! it costs at most `2 * nbuckets` bucket looks.
//!
//! An insert before the cursor's day (possible because the cursor waits on the
//! day of the minimum, which may be far after `now`) moves the cursor back to the
//! new timer's day: it is the new minimum.
//!
//! Timers inserted with `deadline <= now` have no day the scan will come back to;
//! they wait on the shared overdue list, [`Overdue`], which the next advance drains
//! first and sorted; see [`crate::overdue`] for why that batch may go first. The
//! calendar proper holds only deadlines after `now`, so a deadline alone tells
//! cancel which list holds the timer.
//!
//! # `next_expiry`
//!
//! The calendar keeps `bound`, a lower bound on every deadline in it, which is the
//! exact minimum after every advance (the scan ends on the minimum) and stays exact
//! through inserts (an insert can only lower it). A cancel of the minimum cannot
//! find the next one without a scan, so it takes the cheapest bound at hand: the
//! deadline of the next timer in the same bucket if that one is due on the same
//! day (it is then the exact minimum), and otherwise the start of the next day,
//! below which no other timer can be due. A stale bound is still a lower bound; the
//! next advance that reaches it rescans, fires nothing if nothing is due, and makes
//! it exact again. `next_expiry()` is the smaller of `bound` and the overdue list's
//! running minimum, O(1).
//!
//! # Resizing
//!
//! After every operation that changes the number of timers in the calendar, `len`:
//! if `len > 2 * nbuckets` the bucket count doubles, and if `len < nbuckets / 2`
//! it halves (never below [`MIN_BUCKETS`] nor above [`MAX_BUCKETS`]); the count
//! jumps straight to the first power of two within both thresholds, so an advance
//! that fires most timers at once resizes once, not once per halving. A resize:
//!
//! 1. takes every timer out of the buckets in deadline order. The timers of the
//!    current year come out sorted for free: walking one year of days from the
//!    cursor, each day's timers are the run at the head of its bucket. The timers
//!    of later years are collected after them and sorted with an unstable sort
//!    (ties may fire in any order). This costs O(n + r log r) for `r` timers
//!    beyond the current year; in Brown's regime `r` is small, and where it is not
//!    (deadlines spread over many years, such as the `far-future` workload),
//!    re-enqueueing them in order through the scan, as Brown does, would cost a
//!    direct search of O(nbuckets) for each gap of a year, O(n^2) at worst;
//! 2. estimates the new width from the first deadlines of that order (Brown's
//!    rule, `estimate_width`): take up to 25 of the earliest timers, average
//!    their separations, average again only the separations below twice that
//!    average (discarding outliers), and multiply by 3; then round to the nearest
//!    power of two (`width_shift`);
//! 3. appends every timer, in deadline order, to the tail of its new bucket, which
//!    keeps every bucket sorted without a single comparison, and sets the cursor
//!    and `bound` to the first timer.
//!
//! After a one-step resize the calendar holds about one timer per bucket, and
//! its population must double or halve before the next (the thresholds are 4x
//! apart), so the resize's O(n) (O(n log n) at worst, for the sort) is spread over
//! at least n / 2 operations: amortised O(1) (O(log n) at worst). A jump of
//! several steps, after one advance fired many timers, may land next to a
//! threshold; the timers that advance fired pay for it and for the next resize.
//! Resizes count in no counter; [`CalendarQueue::resizes`] tells how many there
//! were. The bucket array and the sort buffer are reused, so a resize allocates
//! only when either grows beyond its previous peak.
//!
//! # Departures from Brown
//!
//! * The width is a power of two, so the day of a deadline is a shift rather than
//!   a 64-bit division on every insert, cancel and scan step. Rounding to the
//!   nearest power of two in log scale keeps it within a factor of `sqrt(2)` of
//!   Brown's estimate: where that estimate fits the timers, a day holds about 2
//!   to 4 of them instead of 3.
//! * The resize sorts the timers beyond the current year instead of re-enqueueing
//!   every timer through the dequeue scan, for the worst case above.
//! * Within a bucket, an insert first tries the tail and the head in O(1); a timer
//!   of the current year then walks forward from the head (past the timers of its
//!   own day only), a timer of a later year back from the tail (past the later
//!   timers of later years only). Brown walks from the head.
//! * Brown's enqueue assumes nothing is scheduled before the last event taken.
//!   Here an insert before the cursor's day moves the cursor back to it, as later
//!   implementations do, and an insert at or before `now` goes on the overdue list.
//!
//! # Cost
//!
//! | operation | cost |
//! |---|---|
//! | insert | O(1) at the tail or head of the bucket, else O(timers of its day) in the current year or O(later timers of its bucket) beyond it; plus an amortised resize |
//! | cancel | O(1): an unlink through the handle's index; plus an amortised resize |
//! | advance | nothing when the known minimum is after `now`; else O(1) per fired timer plus one bucket look per day crossed, at most a year (`nbuckets` looks) and a direct search (`nbuckets`) per timer found; O(k log k) for k overdue timers |
//! | next expiry | O(1): `bound`, exact after an advance and an insert |
//!
//! The O(1) of the paper is an expectation for a population whose deadlines the
//! sampled width describes; the worst cases above are real (a bucket can hold
//! every timer), which is what the counters show.
//!
//! # Invariants
//!
//! Between calls, with `day(d) = d >> shift` and `bucket(d) = day(d) & mask`:
//!
//! * `buckets.len()` is a power of two in `MIN_BUCKETS..=MAX_BUCKETS`, and
//!   `mask = buckets.len() - 1`;
//! * every calendar timer has `deadline > now` and is on bucket `bucket(deadline)`,
//!   whose list is sorted by deadline, non-decreasing from head to tail; every
//!   timer with `deadline <= now` is on the overdue list;
//! * every calendar timer has `day(deadline) >= cursor_day`;
//! * when the calendar is not empty, `bound` is at most every calendar deadline and
//!   `cursor_day <= day(bound)`; when it is empty, `bound` is `Tick::MAX`;
//! * `calendar_len` counts the calendar timers; with the overdue ones they are
//!   every arena entry.
//!
//! # Counters
//!
//! * `slot_visits`: one per bucket a scan looks at (one per day it crosses, one per
//!   bucket of a direct search). Firing several timers of one day is one visit.
//! * `empty_slot_visits`: the visits that found no timer of the day looked at, and
//!   every bucket of a direct search but the one holding the minimum.
//! * `entries_examined_not_due`: the heads a scan looked at that belong to a later
//!   year, the calendar's counterpart of a wheel's rounds. The one head per advance
//!   that is due on the cursor's day but after `now`, which stops the advance, is
//!   not counted: it is the minimum, read as a heap reads its root.
//! * `insert_scan_steps`: the timers an insert walked past in its bucket;
//!   `reschedule_scan_steps` the same for a reschedule (a cancel and an
//!   insert), with the steps of a resize it sets off.
//! * `cascades` and `bucket_expirations` stay 0: timers never move between buckets
//!   except in a resize, and there is no queue of buckets.
//!
//! # Parameters
//!
//! None to tune. The calendar starts as Brown's does, with [`MIN_BUCKETS`] = 2
//! buckets of width 1, and the constants below are Brown's: grow above 2 timers
//! per bucket, shrink below 1/2, sample up to [`MAX_WIDTH_SAMPLE`] = 25 timers,
//! width 3 times the average separation. `params()` is `"min_buckets=2,sample=25"`.

use crate::arena::{Arena, Handle};
use crate::list::{Linked, Links, List, NIL};
use crate::overdue::Overdue;
use crate::{
    Algorithm, Counters, Expired, Family, Tick, TimerQueue, cancel_then_insert, check_deadline,
};

/// The fewest buckets: Brown's calendar starts with 2, and halving stops there.
pub const MIN_BUCKETS: usize = 2;

/// The most buckets: 2^24, a 128 MiB bucket array (two `u32` per bucket). Beyond
/// 32 million pending timers the calendar stops growing and its days get fuller.
pub const MAX_BUCKETS: usize = 1 << 24;

/// Grow when the calendar holds more than this many timers per bucket (Brown's
/// top threshold, `2 * nbuckets`).
const GROW_ABOVE_PER_BUCKET: usize = 2;

/// Shrink when the calendar holds fewer than one timer per this many buckets
/// (Brown's bottom threshold, `nbuckets / 2`; he subtracts 2 more, which only
/// matters for tiny calendars that [`MIN_BUCKETS`] already protects).
const SHRINK_BELOW_BUCKETS_PER: usize = 2;

/// The most timers sampled for the width estimate: Brown's 25.
pub const MAX_WIDTH_SAMPLE: usize = 25;

/// The width is this multiple of the average separation, so that a day holds
/// about three timers: Brown's factor.
const WIDTH_FACTOR: u128 = 3;

/// Separations at or above this multiple of the first average are outliers and
/// left out of the second: Brown's factor.
const OUTLIER_FACTOR: u128 = 2;

/// The largest width exponent: a day of 2^62 ticks already holds every deadline
/// up to [`crate::MAX_DEADLINE`] in two days.
const MAX_SHIFT: u32 = 62;

/// One pending timer.
#[derive(Debug)]
struct Node<P> {
    deadline: Tick,
    payload: P,
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

/// Brown's calendar queue with resizing. See the module documentation.
#[derive(Debug)]
pub struct CalendarQueue<P> {
    /// Every pending timer, on a bucket or on the overdue list.
    nodes: Arena<Node<P>>,
    /// One sorted list per day of the year; bucket `i` holds the calendar timers
    /// with `(deadline >> shift) & mask == i`.
    buckets: Vec<List>,
    /// `buckets.len() - 1`; the length is a power of two.
    mask: u64,
    /// The width of a day is `1 << shift` ticks.
    shift: u32,
    /// The day the scan resumes from: no calendar timer is due on an earlier day.
    cursor_day: u64,
    /// A lower bound on every calendar deadline, exact after an advance or an
    /// insert; `Tick::MAX` when the calendar is empty.
    bound: Tick,
    /// The number of timers in the buckets (the overdue ones are not counted).
    calendar_len: usize,
    /// Timers inserted with `deadline <= now`, drained by the next advance.
    overdue: Overdue,
    /// The resize's buffer of `(deadline, index)`, kept so that a resize
    /// allocates only when the population reaches a new peak.
    scratch: Vec<(Tick, u32)>,
    /// The number of resizes so far.
    resizes: u64,
    now: Tick,
    counters: Counters,
}

/// The day of `deadline` for days of `1 << shift` ticks.
#[inline]
fn day_of(deadline: Tick, shift: u32) -> u64 {
    deadline >> shift
}

/// The bucket of `day` in a calendar with `mask + 1` buckets.
#[inline]
fn bucket_of(day: u64, mask: u64) -> usize {
    // At most `mask`, below MAX_BUCKETS, so it fits usize.
    (day & mask) as usize
}

/// The bucket count for `len` calendar timers in a calendar of `nbuckets`:
/// `nbuckets` itself while `len` is within Brown's thresholds, otherwise the
/// power of two reached by doubling (or halving) until it is, bounded by
/// [`MIN_BUCKETS`] and [`MAX_BUCKETS`].
fn resized_bucket_count(len: usize, nbuckets: usize) -> usize {
    let mut count = nbuckets;
    while len > GROW_ABOVE_PER_BUCKET * count && count < MAX_BUCKETS {
        count *= 2;
    }
    while len < count / SHRINK_BELOW_BUCKETS_PER && count > MIN_BUCKETS {
        count /= 2;
    }
    count
}

/// How many of the earliest timers Brown samples for the width, out of `len`:
/// all of them up to 5, then 5 plus a tenth of the rest, at most
/// [`MAX_WIDTH_SAMPLE`].
fn width_sample_size(len: usize) -> usize {
    if len <= 5 {
        len
    } else {
        (5 + len / 10).min(MAX_WIDTH_SAMPLE)
    }
}

/// Brown's width estimate from `sample`, the earliest deadlines in
/// non-decreasing order: the average separation of consecutive deadlines,
/// averaged again over the separations below [`OUTLIER_FACTOR`] times the first
/// average, times [`WIDTH_FACTOR`]; at least 1. Fewer than two deadlines, or
/// deadlines all equal, give 1.
fn estimate_width(sample: &[Tick]) -> Tick {
    if sample.len() < 2 {
        return 1;
    }
    let gaps = || sample.windows(2).map(|pair| u128::from(pair[1] - pair[0]));
    let count = gaps().count() as u128;
    let sum: u128 = gaps().sum();
    // Separation `g` is below `OUTLIER_FACTOR * sum / count` exactly when
    // `g * count < OUTLIER_FACTOR * sum`: no rounding of the first average.
    let (kept_sum, kept) = gaps()
        .filter(|&gap| gap * count < OUTLIER_FACTOR * sum)
        .fold((0u128, 0u128), |(s, n), gap| (s + gap, n + 1));
    if kept == 0 {
        // Only when every separation is 0 (then the first average is 0 too).
        return 1;
    }
    let width = WIDTH_FACTOR * kept_sum / kept;
    // The deadlines span at most MAX_DEADLINE = 2^62, so 3 times an average of
    // them fits u64; saturate anyway rather than trust that.
    Tick::try_from(width).unwrap_or(Tick::MAX).max(1)
}

/// The exponent of the power of two nearest to `width` in log scale (rounding up
/// from `2^k * sqrt(2)`), at most [`MAX_SHIFT`].
fn width_shift(width: Tick) -> u32 {
    debug_assert!(width >= 1, "a width of 0 ticks");
    let below = Tick::BITS - 1 - width.max(1).leading_zeros();
    // width >= 2^below * sqrt(2) exactly when width^2 >= 2^(2 * below + 1).
    let square = u128::from(width) * u128::from(width);
    let nearest = if square >= 1u128 << (2 * below + 1) {
        below + 1
    } else {
        below
    };
    nearest.min(MAX_SHIFT)
}

impl<P> Default for CalendarQueue<P> {
    fn default() -> Self {
        Self::new()
    }
}

impl<P> CalendarQueue<P> {
    /// An empty calendar at time 0: [`MIN_BUCKETS`] buckets of width 1, as Brown's
    /// starts.
    pub fn new() -> Self {
        Self {
            nodes: Arena::new(),
            buckets: vec![List::EMPTY; MIN_BUCKETS],
            mask: MIN_BUCKETS as u64 - 1,
            shift: 0,
            cursor_day: 0,
            bound: Tick::MAX,
            calendar_len: 0,
            overdue: Overdue::EMPTY,
            scratch: Vec::new(),
            resizes: 0,
            now: 0,
            counters: Counters::default(),
        }
    }

    /// The number of buckets, the days of a year.
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    /// The width of a day, in ticks (a power of two).
    pub fn width(&self) -> Tick {
        1 << self.shift
    }

    /// The number of resizes so far.
    pub fn resizes(&self) -> u64 {
        self.resizes
    }

    fn deadline_of(&self, index: u32) -> Tick {
        self.nodes.at(index).deadline
    }

    /// The number of days in a year, as a day count.
    #[inline]
    fn year(&self) -> u64 {
        self.mask + 1
    }

    /// Links the unlinked entry `index`, due at `deadline > now`, into its bucket
    /// in deadline order (ties in any order), and makes it the cursor's day and the
    /// bound if it is the new minimum.
    fn link(&mut self, index: u32, deadline: Tick) {
        let day = day_of(deadline, self.shift);
        if deadline < self.bound {
            // The new minimum (or the first timer): nothing is due before its day.
            self.cursor_day = day;
            self.bound = deadline;
        }
        debug_assert!(
            day >= self.cursor_day,
            "deadline {deadline} (day {day}) is before the cursor's day {}",
            self.cursor_day
        );
        let this_year = day - self.cursor_day < self.year();
        let bucket = &mut self.buckets[bucket_of(day, self.mask)];
        let (head, tail) = (bucket.head(), bucket.tail());
        let predecessor = if tail == NIL || self.nodes.at(tail).deadline <= deadline {
            // Timers of one duration inserted in time order always land here.
            tail
        } else if deadline <= self.nodes.at(head).deadline {
            // The earliest of its bucket, e.g. the only timer of its day.
            NIL
        } else if this_year {
            // Due this year: the bucket's timers of this year are those of this
            // very day, and they come first, so walk forward past the earlier ones.
            let mut at = head;
            let mut steps = 0;
            loop {
                let next = List::next_of(&self.nodes, at);
                // The tail is due later, so the walk stops before running off.
                if self.nodes.at(next).deadline >= deadline {
                    break;
                }
                at = next;
                steps += 1;
            }
            self.counters.insert_scan_steps += steps;
            at
        } else {
            // Due in a later year: walk back from the tail past the later timers.
            // The head is due earlier, so the walk stops before running off.
            let mut at = tail;
            let mut steps = 0;
            while self.nodes.at(at).deadline > deadline {
                at = List::prev_of(&self.nodes, at);
                steps += 1;
            }
            self.counters.insert_scan_steps += steps;
            at
        };
        bucket.insert_after(&mut self.nodes, predecessor, index);
        self.calendar_len += 1;
    }

    /// Brown's dequeue scan, without the removal: finds the calendar's earliest
    /// timer, moves the cursor to its day, makes `bound` its deadline and returns
    /// its index (the head of its bucket); `None` when the calendar is empty.
    fn find_min(&mut self) -> Option<u32> {
        if self.calendar_len == 0 {
            self.bound = Tick::MAX;
            return None;
        }
        // No overflow: the cursor's day is at most 2^62 and a year at most 2^24.
        for day in self.cursor_day..self.cursor_day + self.year() {
            self.counters.slot_visits += 1;
            let head = self.buckets[bucket_of(day, self.mask)].head();
            if head != NIL {
                let deadline = self.deadline_of(head);
                // No timer is due before the cursor's day and the days scanned so
                // far had none, so a head due by the end of `day` is due on `day`:
                // the minimum.
                if day_of(deadline, self.shift) == day {
                    self.cursor_day = day;
                    self.bound = deadline;
                    return Some(head);
                }
                self.counters.entries_examined_not_due += 1;
            }
            self.counters.empty_slot_visits += 1;
        }
        // A whole year without a timer of that year: search the heads directly.
        // Each head is its bucket's minimum, so the least head is the minimum.
        let (deadline, head) = self
            .buckets
            .iter()
            .filter(|bucket| !bucket.is_empty())
            .map(|bucket| (self.deadline_of(bucket.head()), bucket.head()))
            .min()
            .expect("calendar_len > 0, so some bucket has a timer");
        let looked = self.year();
        self.counters.slot_visits += looked;
        self.counters.empty_slot_visits += looked - 1;
        self.cursor_day = day_of(deadline, self.shift);
        self.bound = deadline;
        Some(head)
    }

    /// Fires every calendar timer due by `now` into `out`, in deadline order, and
    /// leaves the cursor and `bound` on the earliest timer left.
    fn fire_due(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        while let Some(first) = self.find_min() {
            if self.deadline_of(first) > now {
                return;
            }
            // Pop the cursor's day from the head of its bucket while it is due.
            let bucket = bucket_of(self.cursor_day, self.mask);
            loop {
                let head = self.buckets[bucket].head();
                if head == NIL {
                    break;
                }
                let deadline = self.deadline_of(head);
                if day_of(deadline, self.shift) != self.cursor_day {
                    break;
                }
                if deadline > now {
                    // The rest of the day is the minimum, and not due.
                    self.bound = deadline;
                    return;
                }
                self.buckets[bucket].unlink(&mut self.nodes, head);
                self.calendar_len -= 1;
                let node = self.nodes.remove_at(head);
                out.push(Expired {
                    payload: node.payload,
                    deadline: node.deadline,
                });
            }
            // The day is exhausted: every timer left is due on a later day.
            self.cursor_day += 1;
        }
    }

    /// Resizes if the calendar's population left Brown's thresholds.
    fn rebalance(&mut self) {
        let count = resized_bucket_count(self.calendar_len, self.buckets.len());
        if count != self.buckets.len() {
            self.resize(count);
        }
    }

    /// Rebuilds the calendar with `nbuckets` buckets and a width re-estimated from
    /// the earliest timers. See "Resizing" in the module documentation.
    fn resize(&mut self, nbuckets: usize) {
        debug_assert!(
            nbuckets.is_power_of_two() && (MIN_BUCKETS..=MAX_BUCKETS).contains(&nbuckets)
        );
        self.resizes += 1;
        self.scratch.clear();
        // The current year, day by day from the cursor: each day's timers are the
        // run at the head of its bucket, so they come out in deadline order.
        if self.calendar_len > 0 {
            for day in self.cursor_day..self.cursor_day + self.year() {
                let bucket = &mut self.buckets[bucket_of(day, self.mask)];
                loop {
                    let head = bucket.head();
                    if head == NIL {
                        break;
                    }
                    let deadline = self.nodes.at(head).deadline;
                    if day_of(deadline, self.shift) != day {
                        break;
                    }
                    bucket.unlink(&mut self.nodes, head);
                    self.scratch.push((deadline, head));
                }
            }
        }
        // Later years: every timer left, in bucket order, then sorted. They are
        // all due after every timer of the current year.
        let later = self.scratch.len();
        for bucket in &mut self.buckets {
            while let Some(index) = bucket.pop_front(&mut self.nodes) {
                self.scratch.push((self.nodes.at(index).deadline, index));
            }
        }
        self.scratch[later..].sort_unstable();
        debug_assert_eq!(self.scratch.len(), self.calendar_len);
        debug_assert!(
            self.scratch.windows(2).all(|pair| pair[0].0 <= pair[1].0),
            "the resize's order is not sorted"
        );

        let mut sample = [0; MAX_WIDTH_SAMPLE];
        let taken = width_sample_size(self.scratch.len());
        for (slot, &(deadline, _)) in sample.iter_mut().zip(&self.scratch[..taken]) {
            *slot = deadline;
        }
        self.shift = width_shift(estimate_width(&sample[..taken]));

        // Reuses the array's capacity: only a new peak allocates.
        self.buckets.clear();
        self.buckets.resize(nbuckets, List::EMPTY);
        self.mask = nbuckets as u64 - 1;
        for &(deadline, index) in &self.scratch {
            // In deadline order, so appending keeps every bucket sorted.
            self.buckets[bucket_of(day_of(deadline, self.shift), self.mask)]
                .push_back(&mut self.nodes, index);
        }
        match self.scratch.first() {
            Some(&(deadline, _)) => {
                self.cursor_day = day_of(deadline, self.shift);
                self.bound = deadline;
            }
            None => {
                self.cursor_day = 0;
                self.bound = Tick::MAX;
            }
        }
    }
}

impl<P> Algorithm for CalendarQueue<P> {
    const NAME: &'static str = "calendar-queue";
    const FAMILY: Family = Family::Modern;
    const SUMMARY: &'static str = "Brown's calendar queue (1988): sorted day buckets, resized \
         with the population";

    fn with_defaults() -> Self {
        Self::new()
    }

    fn params(&self) -> String {
        format!("min_buckets={MIN_BUCKETS},sample={MAX_WIDTH_SAMPLE}")
    }
}

impl<P> TimerQueue<P> for CalendarQueue<P> {
    fn insert(&mut self, deadline: Tick, payload: P) -> Handle {
        check_deadline(deadline);
        let handle = self.nodes.insert(Node {
            deadline,
            payload,
            links: Links::UNLINKED,
        });
        if deadline <= self.now {
            self.overdue.push(&mut self.nodes, handle.index(), deadline);
        } else {
            self.link(handle.index(), deadline);
            self.rebalance();
        }
        handle
    }

    fn cancel(&mut self, handle: Handle) -> Option<P> {
        let deadline = self.nodes.get(handle)?.deadline;
        let index = handle.index();
        // By the invariants the deadline says which list holds the timer.
        if deadline <= self.now {
            self.overdue.unlink(&mut self.nodes, index);
            return Some(self.nodes.remove_at(index).payload);
        }
        let day = day_of(deadline, self.shift);
        let bucket = &mut self.buckets[bucket_of(day, self.mask)];
        let was_head = bucket.head() == index;
        let next = List::next_of(&self.nodes, index);
        bucket.unlink(&mut self.nodes, index);
        self.calendar_len -= 1;
        if self.calendar_len == 0 {
            self.bound = Tick::MAX;
        } else if was_head && day == day_of(self.bound, self.shift) {
            // No timer is due before `bound`, so none on an earlier day, and the
            // timers of the bound's day all sit at the head of this bucket: the
            // cancelled head was the minimum. The next timer of its bucket is the
            // new minimum if it is due on the same day; otherwise no timer is due
            // before the next day starts. No overflow: day <= 2^62 >> shift.
            self.bound = if next != NIL && day_of(self.deadline_of(next), self.shift) == day {
                self.deadline_of(next)
            } else {
                (day + 1) << self.shift
            };
        }
        let payload = self.nodes.remove_at(index).payload;
        self.rebalance();
        Some(payload)
    }

    fn reschedule(&mut self, handle: Handle, deadline: Tick) -> Option<Handle> {
        // A cancel and an insert, whose walk is the reschedule's to count.
        let before = self.counters.insert_scan_steps;
        let moved = cancel_then_insert(self, handle, deadline);
        self.counters.charge_walk_to_reschedule(before);
        moved
    }

    fn advance(&mut self, now: Tick, out: &mut Vec<Expired<P>>) {
        check_deadline(now);
        if now < self.now {
            return;
        }
        // Every overdue deadline is at most the old `now`, before every calendar
        // deadline, so this batch goes first.
        self.overdue
            .drain_sorted(&mut self.nodes, out, |node| Expired {
                payload: node.payload,
                deadline: node.deadline,
            });
        // With the minimum known to be after `now`, an advance over any span is
        // free: no bucket is looked at.
        if self.bound <= now {
            let before = self.calendar_len;
            self.fire_due(now, out);
            if self.calendar_len != before {
                self.rebalance();
            }
        }
        self.now = now;
    }

    fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
        // A resize copies every calendar timer through the scratch buffer.
        self.scratch.reserve(self.calendar_len + additional);
    }

    fn next_expiry(&self) -> Option<Tick> {
        if self.nodes.is_empty() {
            return None;
        }
        // `bound` is Tick::MAX when the calendar is empty, and the overdue list
        // is not empty then.
        let bound = self.bound.min(self.overdue.bound().unwrap_or(Tick::MAX));
        debug_assert_ne!(
            bound,
            Tick::MAX,
            "{} timers pending but no bound",
            self.len()
        );
        Some(bound)
    }

    fn now(&self) -> Tick {
        self.now
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
    use crate::MAX_DEADLINE;

    /// Checks every invariant of the module documentation by walking the whole
    /// structure.
    fn assert_invariants<P>(queue: &CalendarQueue<P>) {
        let nbuckets = queue.buckets.len();
        assert!(nbuckets.is_power_of_two());
        assert!((MIN_BUCKETS..=MAX_BUCKETS).contains(&nbuckets));
        assert_eq!(queue.mask, nbuckets as u64 - 1);
        let mut linked = 0;
        let mut minimum = Tick::MAX;
        for (i, bucket) in queue.buckets.iter().enumerate() {
            let mut previous = 0;
            let mut at = bucket.head();
            while at != NIL {
                let deadline = queue.nodes.at(at).deadline;
                let day = day_of(deadline, queue.shift);
                assert_eq!(
                    bucket_of(day, queue.mask),
                    i,
                    "deadline {deadline} in bucket {i}"
                );
                assert!(deadline >= previous, "bucket {i} is out of order");
                assert!(deadline > queue.now, "a due timer was left in the calendar");
                assert!(
                    day >= queue.cursor_day,
                    "deadline {deadline} is before the cursor"
                );
                assert!(
                    deadline >= queue.bound,
                    "bound {} above {deadline}",
                    queue.bound
                );
                previous = deadline;
                minimum = minimum.min(deadline);
                linked += 1;
                at = List::next_of(&queue.nodes, at);
            }
        }
        assert_eq!(linked, queue.calendar_len);
        if linked == 0 {
            assert_eq!(queue.bound, Tick::MAX);
        } else {
            assert!(queue.cursor_day <= day_of(queue.bound, queue.shift));
        }
        let mut at = queue.overdue.head();
        while at != NIL {
            assert!(queue.nodes.at(at).deadline <= queue.now);
            linked += 1;
            at = List::next_of(&queue.nodes, at);
        }
        assert_eq!(linked, queue.nodes.len(), "every timer is on one list");
    }

    fn fire(queue: &mut CalendarQueue<u64>, now: Tick) -> Vec<(Tick, u64)> {
        let mut out = Vec::new();
        queue.advance(now, &mut out);
        assert_invariants(queue);
        if let Some(bound) = queue.next_expiry() {
            assert!(bound > now, "next_expiry {bound} not after {now}");
        }
        out.iter().map(|e| (e.deadline, e.payload)).collect()
    }

    #[test]
    fn day_and_bucket_of_a_deadline() {
        assert_eq!(day_of(37, 0), 37);
        assert_eq!(day_of(37, 3), 4, "days of 8 ticks: 37 is in day 4 (32..40)");
        assert_eq!(bucket_of(4, 3), 0, "4 buckets: day 4 is day 0 of year 1");
        assert_eq!(bucket_of(7, 3), 3);
        assert_eq!(day_of(MAX_DEADLINE, MAX_SHIFT), 1);
        assert_eq!(bucket_of(day_of(MAX_DEADLINE, 0), 1 << 10), 0);
    }

    #[test]
    fn bucket_count_follows_browns_thresholds() {
        // Within the thresholds: unchanged.
        assert_eq!(resized_bucket_count(8, 8), 8);
        assert_eq!(resized_bucket_count(16, 8), 8, "2 per bucket is not above");
        assert_eq!(resized_bucket_count(4, 8), 8, "1/2 per bucket is not below");
        // Past them: one step, or as many as it takes.
        assert_eq!(resized_bucket_count(17, 8), 16);
        assert_eq!(resized_bucket_count(3, 8), 4);
        assert_eq!(resized_bucket_count(1_000, 8), 512);
        assert_eq!(resized_bucket_count(1, 1 << 20), 2);
        // The limits.
        assert_eq!(resized_bucket_count(0, MIN_BUCKETS), MIN_BUCKETS);
        assert_eq!(resized_bucket_count(usize::MAX, MIN_BUCKETS), MAX_BUCKETS);
        // After a doubling the population sits between both thresholds.
        for len in 0..5_000 {
            let count = resized_bucket_count(len, MIN_BUCKETS);
            assert_eq!(resized_bucket_count(len, count), count, "len {len}");
        }
    }

    #[test]
    fn sample_size_is_browns() {
        assert_eq!(width_sample_size(0), 0);
        assert_eq!(width_sample_size(5), 5);
        assert_eq!(width_sample_size(6), 5);
        assert_eq!(width_sample_size(100), 15);
        assert_eq!(width_sample_size(200), 25);
        assert_eq!(width_sample_size(1 << 30), MAX_WIDTH_SAMPLE);
    }

    #[test]
    fn width_is_three_average_separations_without_outliers() {
        assert_eq!(estimate_width(&[]), 1);
        assert_eq!(estimate_width(&[40]), 1);
        assert_eq!(estimate_width(&[7, 7, 7]), 1, "all equal");
        // Separations 10, 10, 10: width 30.
        assert_eq!(estimate_width(&[0, 10, 20, 30]), 30);
        // Separations 10, 10, 10, 970: the first average is 250, so 970 is an
        // outlier and the second average is 10.
        assert_eq!(estimate_width(&[0, 10, 20, 30, 1_000]), 30);
        // Separations 1 and 2 average 1.5; both are below 3: width 3 * 1.5.
        assert_eq!(estimate_width(&[5, 6, 8]), 4);
        // Far deadlines do not overflow.
        assert_eq!(estimate_width(&[0, MAX_DEADLINE]), 3 * MAX_DEADLINE);
    }

    #[test]
    fn width_rounds_to_the_nearest_power_of_two_in_log_scale() {
        assert_eq!(width_shift(1), 0);
        assert_eq!(width_shift(2), 1);
        assert_eq!(width_shift(3), 2, "3 > 2 * sqrt(2)");
        assert_eq!(width_shift(5), 2, "5 < 4 * sqrt(2) = 5.66");
        assert_eq!(width_shift(6), 3);
        assert_eq!(width_shift(30), 5);
        assert_eq!(width_shift(46), 6, "46 > 32 * sqrt(2) = 45.25");
        assert_eq!(width_shift(45), 5);
        assert_eq!(width_shift(3 * MAX_DEADLINE), MAX_SHIFT);
        assert_eq!(width_shift(Tick::MAX), MAX_SHIFT);
    }

    #[test]
    fn grows_and_shrinks_with_the_population() {
        let mut queue = CalendarQueue::new();
        let handles: Vec<_> = (0..1_000u64)
            .map(|i| queue.insert(10 * i + 10, i))
            .collect();
        assert_invariants(&queue);
        assert_eq!(queue.buckets(), 512, "1,000 timers: at most 2 per bucket");
        // Separations of 10 ticks: width 30, rounded to 32.
        assert_eq!(queue.width(), 32);
        let grown = queue.resizes();
        for &handle in &handles[..900] {
            queue.cancel(handle);
        }
        assert_invariants(&queue);
        assert_eq!(
            queue.buckets(),
            128,
            "100 timers: below 1/2 per 256 buckets"
        );
        assert!(queue.resizes() > grown);
        assert_eq!(queue.next_expiry(), Some(9_010));
        assert_eq!(fire(&mut queue, 9_500).len(), 50);
        assert_eq!(queue.buckets(), 64, "50 timers left");
        assert_eq!(fire(&mut queue, MAX_DEADLINE).len(), 50);
        assert_eq!(queue.buckets(), MIN_BUCKETS);
        assert_eq!(queue.next_expiry(), None);
    }

    #[test]
    fn next_expiry_is_exact_after_advance_and_insert_and_a_bound_after_cancel() {
        let mut queue = CalendarQueue::new();
        let handles: Vec<_> = [(0, 100), (1, 103), (2, 300), (3, 600), (4, 900)]
            .into_iter()
            .map(|(payload, deadline)| queue.insert(deadline, payload))
            .collect();
        // The fifth timer is above 2 per bucket: a resize to 4 buckets, width from
        // separations 3, 197, 300, 300 (average 200, no outlier): 3 * 200 = 600,
        // rounded to 512. Day 0 holds 100, 103 and 300; day 1 holds 600 and 900.
        assert_eq!(queue.resizes(), 1);
        assert_eq!((queue.buckets(), queue.width()), (4, 512));
        assert_eq!(queue.next_expiry(), Some(100));
        let early = queue.insert(50, 5);
        assert_eq!(queue.next_expiry(), Some(50), "an insert lowers it exactly");
        assert_eq!(queue.cancel(early), Some(5));
        assert_eq!(queue.next_expiry(), Some(100), "the next one of its day");
        assert_eq!(fire(&mut queue, 100), [(100, 0)]);
        assert_eq!(queue.next_expiry(), Some(103));
        let visits = queue.counters().slot_visits;
        assert_eq!(fire(&mut queue, 102), [], "before the minimum: no scan");
        assert_eq!(queue.counters().slot_visits, visits);
        assert_eq!(fire(&mut queue, 103), [(103, 1)]);
        assert_eq!(queue.next_expiry(), Some(300));
        assert_eq!(queue.cancel(handles[2]), Some(2));
        assert_eq!(
            queue.next_expiry(),
            Some(512),
            "nothing else that day: the next day's start"
        );
        assert_eq!(fire(&mut queue, 512), []);
        assert_eq!(queue.next_expiry(), Some(600), "the rescan makes it exact");
        assert_invariants(&queue);
    }

    #[test]
    fn a_long_idle_span_costs_a_year_and_a_direct_search_at_most() {
        let mut queue = CalendarQueue::new();
        for i in 0..64u64 {
            queue.insert(1 + i, i);
        }
        let far = 1u64 << 40;
        queue.insert(far, 99);
        assert_eq!(fire(&mut queue, 64).len(), 64);
        let nbuckets = queue.buckets() as u64;
        // Finding the far timer took one year of empty days and one direct search.
        assert_eq!(queue.next_expiry(), Some(far));
        let before = queue.counters();
        assert_eq!(fire(&mut queue, far - 1), []);
        assert_eq!(queue.counters(), before, "the jump itself looks at nothing");
        assert_eq!(fire(&mut queue, far), [(far, 99)]);
        let spent = queue.counters().since(&before);
        assert!(spent.slot_visits <= 2 * nbuckets, "{spent:?}");
    }

    #[test]
    fn inserts_behind_the_cursor_and_overdue_inserts_fire_in_order() {
        let mut queue = CalendarQueue::new();
        queue.insert(10_000, 0);
        assert_eq!(fire(&mut queue, 100), []);
        // The cursor waits on 10,000's day; 500 is before it.
        queue.insert(500, 1);
        queue.insert(50, 2);
        queue.insert(100, 3);
        assert_eq!(queue.next_expiry(), Some(50));
        assert_invariants(&queue);
        assert_eq!(
            fire(&mut queue, 10_000),
            [(50, 2), (100, 3), (500, 1), (10_000, 0)]
        );
    }

    #[test]
    fn deadlines_near_the_maximum() {
        let mut queue = CalendarQueue::new();
        for i in 0..40u64 {
            queue.insert(MAX_DEADLINE - i * (1 << 50), i);
        }
        queue.insert(1, 100);
        assert_invariants(&queue);
        assert_eq!(fire(&mut queue, 1), [(1, 100)]);
        let rest = fire(&mut queue, MAX_DEADLINE);
        assert_eq!(rest.len(), 40);
        assert!(rest.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn scattered_timers_keep_the_invariants() {
        let mut queue = CalendarQueue::new();
        let mut handles = Vec::new();
        let mut now = 0;
        let mut fired = 0;
        for i in 0..4_000u64 {
            let deadline = now + (i * 7_919 + 13) % (1 + (i % 7) * 20_011);
            handles.push(queue.insert(deadline, i));
            if i % 5 == 0 {
                queue.cancel(handles[(i * 31 % handles.len() as u64) as usize]);
            }
            if i % 17 == 0 {
                now += i % 900;
                let batch = fire(&mut queue, now);
                assert!(batch.windows(2).all(|w| w[0].0 <= w[1].0));
                assert!(batch.iter().all(|&(d, _)| d <= now));
                fired += batch.len();
            }
        }
        assert_invariants(&queue);
        assert!(queue.resizes() > 0);
        let rest = queue.len();
        assert_eq!(fire(&mut queue, MAX_DEADLINE).len(), rest);
        assert!(fired > 0 && queue.is_empty());
        let counters = queue.counters();
        assert!(counters.empty_slot_visits <= counters.slot_visits);
    }
}
