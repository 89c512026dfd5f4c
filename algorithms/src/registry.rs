//! The one list of algorithms.
//!
//! [`for_each`] calls a visitor once per registered algorithm with the concrete
//! type as a generic parameter, so whatever the visitor does (a conformance test, a
//! measured replay) is monomorphised for that algorithm: static dispatch, no `dyn`
//! call per operation. Registering an algorithm is one line in [`for_each`]; the
//! conformance suite, and every tool built on this module, pick it up from there.
//!
//! [`for_each_native`] is the list of *native* rows (see [`crate::driven`]):
//! crates and baselines driven the way their users drive them. They are not
//! held to the contract, so the conformance suite does not walk them; the
//! harness walks both lists ([`for_each_row`]).

use crate::driven::Driven;
use crate::variant::{At, is_variant, row_name};
use crate::{Algorithm, Family, Param, Sweep, TimerQueue};

/// The payload type used by everything that walks the registry (defined in the
/// crate's root, re-exported here for the visitors' users).
pub use crate::Payload;

/// Something done once per registered algorithm.
pub trait AlgorithmVisitor {
    /// Called with each registered algorithm type, in registry order. The types are
    /// `'static` (they own their timers), so a visitor may box them as trait objects.
    fn visit<Q: Algorithm + TimerQueue<Payload> + 'static>(&mut self);

    /// Called instead of [`AlgorithmVisitor::visit`] for a type that is also
    /// `Send`, whose queue may therefore move between threads (the harness's
    /// threaded mode puts one behind a lock); the default calls `visit`. A
    /// crate whose structure holds `Rc`s or raw pointers is not `Send`, and
    /// its line in [`for_each`] calls `visit`.
    fn visit_send<Q: Algorithm + TimerQueue<Payload> + Send + 'static>(&mut self) {
        self.visit::<Q>();
    }
}

/// Calls `visitor.visit_send::<Q>()` (or, for a type that is not `Send`,
/// `visitor.visit::<Q>()`) for every registered algorithm, in a fixed order.
///
/// To register an algorithm, add one line here: `visit_send` for a `Send`
/// type (everything written in this crate), `visit` for one that is not.
pub fn for_each<V: AlgorithmVisitor>(visitor: &mut V) {
    // The seed schemes (Varghese & Lauck, Netty, Kafka, ZooKeeper).
    visitor.visit_send::<crate::sorted_list::SortedList<Payload>>();
    visitor.visit_send::<crate::binary_heap::IndexedBinaryHeap<Payload>>();
    visitor.visit_send::<crate::rounds_wheel::RoundsWheel<Payload>>();
    visitor.visit_send::<crate::rounds_wheel::NettyWheel<Payload>>();
    visitor.visit_send::<crate::hashed_wheel::HashedWheel<Payload>>();
    visitor.visit_send::<crate::hierarchical_wheel::HierarchicalWheel<Payload>>();
    visitor.visit_send::<crate::ticked_hierarchical_wheel::TickedHierarchicalWheel<Payload>>();
    visitor.visit_send::<crate::zookeeper_expiry::ZooKeeperExpiry<Payload>>();
    // The designs that came after them.
    visitor.visit_send::<crate::bitmap_wheel::BitmapWheel<Payload>>();
    visitor.visit_send::<crate::linux_wheel::LinuxWheel<Payload>>();
    visitor.visit_send::<crate::quad_heap::QuadHeap<Payload>>();
    visitor.visit_send::<crate::calendar_queue::CalendarQueue<Payload>>();
    visitor.visit_send::<crate::sweep_wheel::SweepWheel<Payload>>();
    // The standard library baselines.
    visitor.visit_send::<crate::std_binary_heap::StdBinaryHeap<Payload>>();
    visitor.visit_send::<crate::btree_map::BTreeMapQueue<Payload>>();
    // Off-the-shelf crates, each behind its Cargo feature (on by default).
    #[cfg(feature = "crate-nexus-timer")]
    visitor.visit::<crate::adapters::nexus_timer::NexusTimer<Payload>>();
    #[cfg(feature = "crate-timer-queue")]
    visitor.visit_send::<crate::adapters::timer_queue::TimerQueueCrate<Payload>>();
    #[cfg(feature = "crate-tokio")]
    visitor.visit_send::<crate::adapters::tokio_delay_queue::TokioDelayQueue<Payload>>();
    #[cfg(feature = "crate-hash-wheel-timer")]
    visitor.visit::<crate::adapters::hash_wheel_timer::HashWheelTimer<Payload>>();
}

/// Something done once per row the harness measures: every contract algorithm
/// and every native row, all through [`Driven`].
pub trait RowVisitor {
    /// Called with each row's type: the contract algorithms in [`for_each`]'s
    /// order, then the native rows in [`for_each_native`]'s.
    fn visit<Q: Algorithm + Driven + 'static>(&mut self);

    /// Called instead of [`RowVisitor::visit`] for a row whose type, and the
    /// key its caller keeps per timer, are also `Send` (see
    /// [`AlgorithmVisitor::visit_send`]); the default calls `visit`.
    fn visit_send<Q: Algorithm + Driven<Key: Send> + Send + 'static>(&mut self) {
        self.visit::<Q>();
    }
}

/// Calls `visitor.visit_send::<N>()` (or, for a type that is not `Send`,
/// `visitor.visit::<N>()`) for every native row, in a fixed order.
///
/// To register a native row, add one line here: `visit_send` for a `Send`
/// type, `visit` for one that is not (as in [`for_each`]).
pub fn for_each_native<V: RowVisitor>(visitor: &mut V) {
    // The standard library as a user writes it, beside `std-binary-heap` and
    // `btree-map`.
    visitor.visit_send::<crate::std_binary_heap::PlainBinaryHeap>();
    visitor.visit_send::<crate::btree_map::PlainBTreeSet>();
    // Each crate through its own API, beside its adapter.
    #[cfg(feature = "crate-nexus-timer")]
    visitor.visit::<crate::adapters::nexus_timer::NexusTimerNative>();
    #[cfg(feature = "crate-timer-queue")]
    visitor.visit_send::<crate::adapters::timer_queue::TimerQueueCrateNative>();
    #[cfg(feature = "crate-tokio")]
    visitor.visit_send::<crate::adapters::tokio_delay_queue::TokioDelayQueueNative>();
    #[cfg(feature = "crate-hash-wheel-timer")]
    visitor.visit::<crate::adapters::hash_wheel_timer::HashWheelTimerNative>();
}

/// Calls `visitor.visit::<Q>()` for every compiled point of a parameter
/// sweep: a design with one parameter at a value other than its default
/// (see [`crate::variant`]). The design's default row is in [`for_each`];
/// these are the other values a run can use (`timerbench run --param`), and
/// the conformance suite checks each of them like any algorithm.
///
/// To add a sweep point, add one line here: a parameter set at construction
/// through [`At`] (its index in the design's [`Algorithm::TUNABLES`] and the
/// value), a wheel tick as the design's own const generic.
pub fn for_each_variant<V: AlgorithmVisitor>(visitor: &mut V) {
    use crate::hashed_wheel::HashedWheel;
    use crate::hierarchical_wheel::HierarchicalWheel;
    use crate::rounds_wheel::RoundsWheel;
    // Netty's wheel at ticks of 10 ms and 1 s, beside 1 (`rounds-wheel`) and
    // Netty's own 100 (`netty-wheel`): what a coarser tick buys in cost and
    // charges in lateness.
    visitor.visit::<RoundsWheel<Payload, 10>>();
    visitor.visit::<RoundsWheel<Payload, 1_000>>();
    // The hashed wheel's table from 2^12 to 2^20 slots, beside the default
    // 2^16 (about the built-ins' pending population, as Varghese & Lauck
    // advise; 2^20 is theirs for `scaling-1e6`): shorter sorted slots against
    // a larger table. Not Netty's 512, whose slots at 10^6 pending hold 2,000
    // timers each: that one cell took 376 s of a reference run (46 us an
    // operation); `hashed-wheel@slots=4096` shows the same slope for 66 s.
    visitor.visit::<At<HashedWheel<Payload>, 0, 4_096>>();
    visitor.visit::<At<HashedWheel<Payload>, 0, 16_384>>();
    visitor.visit::<At<HashedWheel<Payload>, 0, { 1 << 20 }>>();
    // Kafka's wheel at 8, 64 and 512 buckets a level, beside Kafka's 20: fewer
    // levels (and cascades) against more buckets in the DelayQueue.
    visitor.visit::<At<HierarchicalWheel<Payload>, 0, 8>>();
    visitor.visit::<At<HierarchicalWheel<Payload>, 0, 64>>();
    visitor.visit::<At<HierarchicalWheel<Payload>, 0, 512>>();
}

/// Calls `visitor.visit::<Q>()` for every contract algorithm ([`for_each`]),
/// then for every native row ([`for_each_native`]), then for every sweep
/// point ([`for_each_variant`]).
pub fn for_each_row<V: RowVisitor>(visitor: &mut V) {
    struct Contract<'a, V>(&'a mut V);
    impl<V: RowVisitor> AlgorithmVisitor for Contract<'_, V> {
        fn visit<Q: Algorithm + TimerQueue<Payload> + 'static>(&mut self) {
            self.0.visit::<Q>();
        }
        fn visit_send<Q: Algorithm + TimerQueue<Payload> + Send + 'static>(&mut self) {
            self.0.visit_send::<Q>();
        }
    }
    for_each(&mut Contract(&mut *visitor));
    for_each_native(visitor);
    for_each_variant(&mut Contract(visitor));
}

/// Name, summary and default parameters of a registered algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlgorithmInfo {
    /// The row's name: [`Algorithm::NAME`], or `design@param=value` for a
    /// variant ([`row_name`]).
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
    /// [`Algorithm::NATIVE_OF`]: for a native row, its contract row.
    pub native_of: Option<&'static str>,
    /// The source file that implements it, relative to the workspace root
    /// (from its type's path: see [`source_file`]).
    pub source: String,
    /// [`Algorithm::TUNABLES`].
    pub tunables: &'static [Param],
    /// [`Algorithm::SWEEP`]: the design, parameter and value this row is a
    /// sweep point of.
    pub sweep: Option<Sweep>,
    /// Whether the row is a variant, a sweep point only (see
    /// [`crate::variant::is_variant`]), which reports keep to their sweeps.
    pub variant: bool,
}

/// The modules of this crate that are folders (`a/mod.rs` rather than
/// `a.rs`) and define an algorithm's type in their `mod.rs`: a design too
/// large for one file keeps its type there and its parts beside it.
const FOLDER_MODULES: &[&str] = &["sweep_wheel"];

/// The source file of a type of this crate, relative to the workspace root,
/// from its [`std::any::type_name`]: `algorithms::a::b::Type<P>` is
/// `algorithms/src/a/b.rs`, or `algorithms/src/a/b/mod.rs` when `a::b` is one
/// of the folder modules (`FOLDER_MODULES`). Every algorithm lives in a module of its own
/// (one algorithm per module), so its type's module path names the file.
pub fn source_file(type_name: &str) -> String {
    let path = type_name.split('<').next().unwrap_or(type_name);
    let mut segments: Vec<&str> = path.split("::").collect();
    segments.pop();
    match segments.split_first() {
        Some((krate, modules)) if !modules.is_empty() => {
            let module = modules.join("/");
            if FOLDER_MODULES.contains(&modules.join("::").as_str()) {
                format!("{krate}/src/{module}/mod.rs")
            } else {
                format!("{krate}/src/{module}.rs")
            }
        }
        Some((krate, _)) => format!("{krate}/src/lib.rs"),
        None => String::new(),
    }
}

/// Every registered row, in [`for_each_row`]'s order: the contract algorithms,
/// the native rows, then the sweep points.
pub fn catalog() -> Vec<AlgorithmInfo> {
    struct Collect(Vec<AlgorithmInfo>);
    impl RowVisitor for Collect {
        fn visit<Q: Algorithm + Driven>(&mut self) {
            self.0.push(AlgorithmInfo {
                name: row_name::<Q>(),
                summary: Q::SUMMARY,
                family: Q::FAMILY,
                exact: Q::EXACT,
                counts_work: Q::COUNTS_WORK,
                params: Q::with_defaults().params(),
                native_of: Q::NATIVE_OF,
                source: source_file(std::any::type_name::<Q>()),
                tunables: Q::TUNABLES,
                sweep: Q::SWEEP,
                variant: is_variant::<Q>(),
            });
        }
    }
    let mut collect = Collect(Vec::new());
    for_each_row(&mut collect);
    collect.0
}

/// The values of `design`'s parameter `param` a run can use, in increasing
/// order, each with its row: the design's default (its own row) and every
/// compiled sweep point ([`for_each_variant`], or a design of its own such as
/// `netty-wheel`). What `timerbench run --param` accepts, `timerbench list`
/// prints and the README's parameter table shows.
pub fn sweep_points(
    catalog: &[AlgorithmInfo],
    design: &AlgorithmInfo,
    param: &Param,
) -> Vec<(u64, &'static str)> {
    let mut points: Vec<(u64, &'static str)> = std::iter::once((param.default, design.name))
        .chain(catalog.iter().filter_map(|point| {
            let sweep = point.sweep?;
            (sweep.design == design.name && sweep.param == param.name)
                .then_some((sweep.value, point.name))
        }))
        .collect();
    points.sort_unstable();
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_path_names_its_file() {
        assert_eq!(
            source_file("algorithms::sweep_wheel::SweepWheel<u64>"),
            "algorithms/src/sweep_wheel/mod.rs"
        );
        assert_eq!(
            source_file("algorithms::quad_heap::QuadHeap<u64>"),
            "algorithms/src/quad_heap.rs"
        );
        assert_eq!(
            source_file("algorithms::adapters::nexus_timer::NexusTimerNative"),
            "algorithms/src/adapters/nexus_timer.rs"
        );
        assert_eq!(source_file("algorithms::Top"), "algorithms/src/lib.rs");
    }

    #[test]
    fn every_source_file_exists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace root");
        for info in catalog() {
            assert!(
                root.join(&info.source).is_file(),
                "{}: {} is not a file",
                info.name,
                info.source
            );
        }
    }

    #[test]
    fn every_sweep_point_names_a_design_and_one_of_its_parameters() {
        let catalog = catalog();
        let points: Vec<&AlgorithmInfo> = catalog.iter().filter(|i| i.sweep.is_some()).collect();
        assert!(
            points.iter().any(|i| i.variant),
            "the registry has variants"
        );
        for info in points {
            let sweep = info.sweep.expect("filtered");
            let design = catalog
                .iter()
                .find(|d| d.name == sweep.design && d.sweep.is_none())
                .unwrap_or_else(|| panic!("{}: no design {}", info.name, sweep.design));
            let param = design
                .tunables
                .iter()
                .find(|p| p.name == sweep.param)
                .unwrap_or_else(|| panic!("{}: {} has no {}", info.name, design.name, sweep.param));
            assert_ne!(
                param.default, sweep.value,
                "{}: the default is the design's row",
                info.name
            );
            assert_eq!(info.variant, info.name.contains('@'), "{}", info.name);
            if info.variant {
                assert_eq!(info.name, crate::variant::variant_name(&sweep));
                assert_eq!(info.family, design.family, "{}", info.name);
            }
            assert!(
                catalog
                    .iter()
                    .filter(|other| other.sweep == info.sweep)
                    .count()
                    == 1,
                "{} is registered twice",
                info.name
            );
        }
    }

    #[test]
    fn a_parameters_points_are_its_default_and_its_compiled_values_in_order() {
        let catalog = catalog();
        let design = catalog.iter().find(|i| i.name == "rounds-wheel").unwrap();
        let tick = design.tunables.iter().find(|p| p.name == "tick").unwrap();
        assert_eq!(
            sweep_points(&catalog, design, tick),
            [
                (1, "rounds-wheel"),
                (10, "rounds-wheel@tick=10"),
                (100, "netty-wheel"),
                (1_000, "rounds-wheel@tick=1000")
            ]
        );
    }

    #[test]
    fn names_are_unique_and_command_line_friendly() {
        let catalog = catalog();
        assert!(!catalog.is_empty());
        for (i, info) in catalog.iter().enumerate() {
            assert!(
                info.name.chars().all(|c| c.is_ascii_lowercase()
                    || c.is_ascii_digit()
                    || c == '-'
                    || (info.variant && matches!(c, '@' | '=' | '_'))),
                "name {:?} must be lowercase, digits and dashes",
                info.name
            );
            assert!(!info.summary.is_empty(), "{} has no summary", info.name);
            assert!(
                catalog[..i].iter().all(|other| other.name != info.name),
                "{} is registered twice",
                info.name
            );
            if let Some(contract) = info.native_of {
                assert!(
                    catalog
                        .iter()
                        .any(|other| other.name == contract && other.native_of.is_none()),
                    "{} is the native row of {contract}, which is not a contract row",
                    info.name
                );
            }
        }
    }
}
