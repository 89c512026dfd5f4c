//! The real systems the user's documents name (Netty, Dubbo, Kafka,
//! ZooKeeper, Quartz, Linux, the JDK's `Timer` and
//! `ScheduledThreadPoolExecutor`, xxl-job), what each keeps its timers in, and
//! the row here that models it: the one list from which `make docs` writes
//! the README's "Which row stands for which system" table and the harness
//! writes `metadata.json`'s `systems`, which the report draws.
//!
//! Each entry was read in the system's own source; `algorithms/SYSTEMS.md`
//! names the repository, file and version of each and has the longer notes.
//! An entry names its rows by [`Algorithm::NAME`](crate::Algorithm::NAME), and
//! a test holds every name to the registry.

/// A system and the row that models its timer structure.
#[derive(Clone, Copy, Debug)]
pub struct System {
    /// The system and its timer class, as a reader would look it up.
    pub name: &'static str,
    /// What it keeps its timers in, and how it cancels and fires them.
    pub structure: &'static str,
    /// The rows here that model it, by name (none when no row fits).
    pub rows: &'static [&'static str],
    /// The rows as a table shows them, with when each applies.
    pub row: &'static str,
    /// What differs from the row, and whether that moves the numbers.
    pub differs: &'static str,
}

/// Every system the user's documents name, in the README's order.
pub const SYSTEMS: &[System] = &[
    System {
        name: "Netty `HashedWheelTimer` (4.1)",
        structure: "one wheel of 512 unsorted bucket lists, `remainingRounds`, a worker ticking every 100 ms; cancel queued, unlinked at the next tick",
        rows: &["netty-wheel", "rounds-wheel"],
        row: "`netty-wheel` (its defaults: 512 slots of 100 ms); `rounds-wheel` (the same scheme at a 1 ms tick, exact)",
        differs: "inserts and cancels reach the worker through queues: no in the single-threaded rows, and the threaded mode's `handoff` measures them (threaded.csv). A timer on a 100 ms boundary fires at it here, a tick later in Netty, whose nanosecond deadlines practically never lie on one",
    },
    System {
        name: "Dubbo `HashedWheelTimer`",
        structure: "a 2018 copy of Netty 4.1.23–4.1.25's; request timeouts on a 30 ms tick",
        rows: &["netty-wheel", "rounds-wheel"],
        row: "`netty-wheel` (Netty's defaults); `rounds-wheel` (1 ms)",
        differs: "lock-based hand-off queues instead of Netty's: no. Its RPC timeouts tick every 30 ms, between the two rows",
    },
    System {
        name: "Kafka `TimingWheel` / `SystemTimer`",
        structure: "20-slot wheels of 1 ms, overflow wheels made on demand, a `DelayQueue` of buckets; cancel unlinks at once",
        rows: &["hierarchical-wheel"],
        row: "`hierarchical-wheel`",
        differs: "locks and the executor hand-off only: no in the single-threaded rows, and the threaded mode's `locked` measures the lock (threaded.csv)",
    },
    System {
        name: "ZooKeeper `ExpiryQueue`",
        structure: "expiry rounded up to the next multiple of `tickTime` (2,000 ms in `zoo_sample.cfg`, 3,000 ms in code), a map from that time to a set, one set taken per interval, a touch in the same bucket a no-op",
        rows: &["zookeeper-expiry"],
        row: "`zookeeper-expiry`",
        differs: "hash sets where the row has intrusive lists, one more map removal per expiry, concurrent maps: constant factors only",
    },
    System {
        name: "Quartz `RAMJobStore`",
        structure: "a `TreeSet` (red-black tree) of triggers by next fire time, then priority, then key; removal at once",
        rows: &["btree-map"],
        row: "`btree-map`",
        differs: "a red-black tree is deeper than std's B-tree, with a node per trigger: yes, `btree-map` is the optimistic stand-in (std has no red-black tree, and no row is one)",
    },
    System {
        name: "Linux `kernel/time/timer.c` (since 4.8)",
        structure: "non-cascading wheel, 64-bucket levels each 8x coarser, a timer placed once and rounded up",
        rows: &["linux-wheel"],
        row: "`linux-wheel`",
        differs: "the row rounds as Linux does (a granule past the deadline) and has `mod_timer`'s same-bucket fast path; it has 20 levels where Linux clamps, measures delays from `now` where Linux's `base->clk` can be a tick ahead, fires an expired timer at the next advance, and sends an unchanged expiry through the same-bucket test rather than returning at once (so that a reschedule fires where a fresh insert would): constant factors only",
    },
    System {
        name: "JDK `java.util.Timer`",
        structure: "a binary min-heap (1-based array), one thread; cancel only marks the task, `purge()` on request",
        rows: &["std-binary-heap", "std-binary-heap-plain"],
        row: "`std-binary-heap` (lazy cancel; `std-binary-heap-plain` for the bare storage)",
        differs: "`binary-heap`'s eager removal would overstate cancel and understate the heap's size: the lazy rows are the model",
    },
    System {
        name: "JDK `ScheduledThreadPoolExecutor`",
        structure: "`DelayedWorkQueue`, a binary heap whose tasks know their `heapIndex`; ties first-in first-out",
        rows: &["std-binary-heap-plain", "binary-heap"],
        row: "`std-binary-heap-plain` by default; `binary-heap` with `setRemoveOnCancelPolicy(true)`",
        differs: "by default a cancelled task stays until its own deadline, even at the head, then runs as a no-op: the policy decides which row applies",
    },
    System {
        name: "xxl-job `JobScheduleHelper`",
        structure: "a database scan for jobs due in the next 5 s feeding a 60-slot ring of 1 s (second-of-minute to job ids); no cancel on the ring",
        rows: &[],
        row: "none; the ring alone is closest to `zookeeper-expiry` at a 1,000-tick interval",
        differs: "the ring rounds down (up to a second early) and database round trips dominate: not comparable without a two-tier variant",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_named_is_registered_and_shown() {
        let catalog = crate::registry::catalog();
        for system in SYSTEMS {
            for row in system.rows {
                assert!(
                    catalog.iter().any(|info| info.name == *row),
                    "{} names the row {row}, which is not registered",
                    system.name
                );
                assert!(
                    system.row.contains(&format!("`{row}`")),
                    "{}: the row column does not show {row}",
                    system.name
                );
            }
        }
    }
}
