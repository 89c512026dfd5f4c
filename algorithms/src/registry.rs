//! The one list of algorithms.
//!
//! [`for_each`] calls a visitor once per registered algorithm with the concrete
//! type as a generic parameter, so whatever the visitor does (a conformance test, a
//! measured replay) is monomorphised for that algorithm: static dispatch, no `dyn`
//! call per operation. Registering an algorithm is one line in [`for_each`]; the
//! conformance suite, and every tool built on this module, pick it up from there.

use crate::{Algorithm, Family, TimerQueue};

/// The payload type used by everything that walks the registry.
pub type Payload = u64;

/// Something done once per registered algorithm.
pub trait AlgorithmVisitor {
    /// Called with each registered algorithm type, in registry order. The types are
    /// `'static` (they own their timers), so a visitor may box them as trait objects.
    fn visit<Q: Algorithm + TimerQueue<Payload> + 'static>(&mut self);
}

/// Calls `visitor.visit::<Q>()` for every registered algorithm, in a fixed order.
///
/// To register an algorithm, add one line here.
pub fn for_each<V: AlgorithmVisitor>(visitor: &mut V) {
    // The seed schemes (Varghese & Lauck, Netty, Kafka).
    visitor.visit::<crate::sorted_list::SortedList<Payload>>();
    visitor.visit::<crate::binary_heap::IndexedBinaryHeap<Payload>>();
    visitor.visit::<crate::rounds_wheel::RoundsWheel<Payload>>();
    visitor.visit::<crate::hashed_wheel::HashedWheel<Payload>>();
    visitor.visit::<crate::hierarchical_wheel::HierarchicalWheel<Payload>>();
    visitor.visit::<crate::ticked_hierarchical_wheel::TickedHierarchicalWheel<Payload>>();
    // The designs that came after them.
    visitor.visit::<crate::bitmap_wheel::BitmapWheel<Payload>>();
    visitor.visit::<crate::linux_wheel::LinuxWheel<Payload>>();
    visitor.visit::<crate::quad_heap::QuadHeap<Payload>>();
    visitor.visit::<crate::calendar_queue::CalendarQueue<Payload>>();
    // The standard library baselines.
    visitor.visit::<crate::std_binary_heap::StdBinaryHeap<Payload>>();
    visitor.visit::<crate::btree_map::BTreeMapQueue<Payload>>();
    // Off-the-shelf crates, each behind its Cargo feature (on by default).
    #[cfg(feature = "crate-nexus-timer")]
    visitor.visit::<crate::adapters::nexus_timer::NexusTimer<Payload>>();
    #[cfg(feature = "crate-timer-queue")]
    visitor.visit::<crate::adapters::timer_queue::TimerQueueCrate<Payload>>();
    #[cfg(feature = "crate-tokio")]
    visitor.visit::<crate::adapters::tokio_delay_queue::TokioDelayQueue<Payload>>();
    #[cfg(feature = "crate-hash-wheel-timer")]
    visitor.visit::<crate::adapters::hash_wheel_timer::HashWheelTimer<Payload>>();
}

/// Name, summary and default parameters of a registered algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlgorithmInfo {
    /// [`Algorithm::NAME`].
    pub name: &'static str,
    /// [`Algorithm::SUMMARY`].
    pub summary: &'static str,
    /// [`Algorithm::FAMILY`].
    pub family: Family,
    /// [`Algorithm::EXACT`].
    pub exact: bool,
    /// [`Algorithm::COUNTS_WORK`].
    pub counts_work: bool,
    /// [`Algorithm::params`] of the default configuration.
    pub params: String,
}

/// The registered algorithms, in registry order.
pub fn catalog() -> Vec<AlgorithmInfo> {
    struct Collect(Vec<AlgorithmInfo>);
    impl AlgorithmVisitor for Collect {
        fn visit<Q: Algorithm + TimerQueue<Payload>>(&mut self) {
            self.0.push(AlgorithmInfo {
                name: Q::NAME,
                summary: Q::SUMMARY,
                family: Q::FAMILY,
                exact: Q::EXACT,
                counts_work: Q::COUNTS_WORK,
                params: Q::with_defaults().params(),
            });
        }
    }
    let mut collect = Collect(Vec::new());
    for_each(&mut collect);
    collect.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_command_line_friendly() {
        let catalog = catalog();
        assert!(!catalog.is_empty());
        for (i, info) in catalog.iter().enumerate() {
            assert!(
                info.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "name {:?} must be lowercase, digits and dashes",
                info.name
            );
            assert!(!info.summary.is_empty(), "{} has no summary", info.name);
            assert!(
                catalog[..i].iter().all(|other| other.name != info.name),
                "{} is registered twice",
                info.name
            );
        }
    }
}
