//! The three ways a threaded run shares its timers between the producer
//! threads and the thread that fires them, each named after the systems that
//! use it.
//!
//! * `locked`: one queue behind one lock, taken by every producer for each
//!   operation and by the timer thread for each advance. Kafka's `SystemTimer`
//!   (a read-write lock over its wheel) and the JDK's
//!   `ScheduledThreadPoolExecutor` (a `ReentrantLock` over its heap) work so.
//! * `handoff`: the timer thread owns the queue; producers push their
//!   inserts, cancels and reschedules into a multi-producer queue that the
//!   timer thread drains at each wakeup. Netty's `HashedWheelTimer` works so.
//! * `sharded`: one queue per producer thread, which that thread advances
//!   itself between its operations: no lock and no hand-off, and no timer
//!   thread. The Go runtime (a heap per P), Linux (a wheel per CPU) and
//!   tokio's proposed per-worker wheels work so.

use std::fmt;

/// How a threaded run shares its queue (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sharing {
    /// One queue behind a lock (Kafka, the JDK's STPE).
    Locked,
    /// Producers hand requests to the timer thread through an MPSC queue (Netty).
    Handoff,
    /// A queue per producer, advanced by its owner (Go, Linux).
    Sharded,
}

impl Sharing {
    /// Every sharing, in the order runs and reports list them.
    pub const ALL: [Sharing; 3] = [Sharing::Locked, Sharing::Handoff, Sharing::Sharded];

    /// Its name on the command line and in `threaded.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Sharing::Locked => "locked",
            Sharing::Handoff => "handoff",
            Sharing::Sharded => "sharded",
        }
    }

    /// The systems that share their timers this way, for the report.
    pub fn systems(self) -> &'static str {
        match self {
            Sharing::Locked => "Kafka's SystemTimer, the JDK's ScheduledThreadPoolExecutor",
            Sharing::Handoff => "Netty's HashedWheelTimer",
            Sharing::Sharded => "the Go runtime, Linux, tokio's per-worker RFC",
        }
    }

    /// The sharing named `name`, or a message naming the valid ones.
    pub fn parse(name: &str) -> Result<Sharing, String> {
        Sharing::ALL
            .into_iter()
            .find(|sharing| sharing.name() == name)
            .ok_or_else(|| {
                let valid: Vec<&str> = Sharing::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "{name:?} is not a sharing; the sharings are {}",
                    valid.join(", ")
                )
            })
    }
}

impl fmt::Display for Sharing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sharing_parses_from_its_name_and_nothing_else_does() {
        for sharing in Sharing::ALL {
            assert_eq!(Sharing::parse(sharing.name()), Ok(sharing));
        }
        let error = Sharing::parse("mutex").unwrap_err();
        assert!(error.contains("locked, handoff, sharded"), "{error}");
    }
}
