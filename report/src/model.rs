//! The results as the report sees them: algorithms in display order (grouped
//! by family) with a stable colour and marker each, the workloads in run
//! order, and lookups by (algorithm, workload, operation).
//!
//! Order and colour depend only on an algorithm's family and name, never on
//! the order of rows or on which other algorithms ran in other families, so an
//! algorithm keeps its colour in every chart of a report and across reports
//! as long as its family's membership is the same. Within a family algorithms
//! are sorted by name; each family draws from its own palette (blues for the
//! seed schemes, greens for modern designs, browns and greys for baselines,
//! reds and oranges for crates), so the family is visible at a glance.
//!
//! Variant rows (`metadata.json`'s `variant`: a design run at another value
//! of one parameter, only as a point of a parameter sweep) are split off
//! here, once: [`Model::algorithms`] holds the designs, which every chart,
//! table and verdict iterates, and [`Model::variants`] the variants, which
//! only the parameters section reads. The lookups by name ([`Model::run`],
//! [`Model::throughput_row`]) answer for both, since a caller only asks for a
//! name it took from one of the two lists.

use std::collections::BTreeMap;

use crate::input::{
    AlgorithmEntry, CountRow, LatencyRow, PredictionRow, Results, RunRow, SweepPoint, ThreadedRow,
    ThroughputRow,
};

/// An RGB colour.
pub type Rgb = (u8, u8, u8);

/// The families the harness knows, in display order; any other family name
/// found in the metadata is shown after them, in name order.
pub const KNOWN_FAMILIES: [&str; 4] = ["seed", "modern", "baseline", "crate"];

/// The family of an algorithm that `metadata.json` does not list.
pub const UNLISTED_FAMILY: &str = "unlisted";

/// Palettes per family: eight distinguishable colours each, reused with a
/// different marker beyond eight members.
const SEED_PALETTE: [Rgb; 8] = [
    (31, 119, 180),
    (23, 190, 207),
    (57, 59, 121),
    (107, 110, 207),
    (148, 103, 189),
    (66, 146, 198),
    (8, 69, 148),
    (158, 154, 200),
];
const MODERN_PALETTE: [Rgb; 8] = [
    (44, 160, 44),
    (188, 189, 34),
    (0, 109, 44),
    (116, 196, 118),
    (99, 121, 57),
    (26, 152, 134),
    (140, 162, 82),
    (65, 171, 93),
];
const BASELINE_PALETTE: [Rgb; 8] = [
    (127, 127, 127),
    (140, 86, 75),
    (40, 40, 40),
    (196, 156, 148),
    (99, 64, 42),
    (170, 170, 170),
    (82, 82, 82),
    (166, 118, 29),
];
const CRATE_PALETTE: [Rgb; 8] = [
    (214, 39, 40),
    (255, 127, 14),
    (227, 119, 194),
    (132, 60, 57),
    (231, 186, 82),
    (173, 73, 74),
    (253, 141, 60),
    (122, 1, 119),
];
const OTHER_PALETTE: [Rgb; 8] = [
    (102, 194, 165),
    (252, 141, 98),
    (141, 160, 203),
    (231, 138, 195),
    (166, 216, 84),
    (255, 217, 47),
    (229, 196, 148),
    (179, 179, 179),
];

/// The marker shapes drawn at data points, cycled by index within a family so
/// that two similar colours still differ in shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled triangle.
    Triangle,
    /// A filled square.
    Square,
    /// A cross.
    Cross,
}

/// The marker cycle.
const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Cross,
];

/// An algorithm with everything the report needs to show it.
#[derive(Clone, Debug)]
pub struct Algorithm {
    /// Registry name.
    pub name: String,
    /// Family name (`seed`, `modern`, `baseline`, `crate`, or another).
    pub family: String,
    /// `false` for an algorithm that fires late within a declared bound.
    pub exact: bool,
    /// Parameters as the metadata lists them.
    pub params: String,
    /// One-line description.
    pub summary: String,
    /// Colour in every chart and table.
    pub colour: Rgb,
    /// Marker in every chart.
    pub marker: Marker,
    /// The parameter sweep this row is a point of, if any (a variant always
    /// has one; a design has one when it is also another design's point, as
    /// `netty-wheel` is `rounds-wheel` at `tick=100`).
    pub sweep: Option<SweepPoint>,
}

impl Algorithm {
    /// The algorithm of a metadata entry, with its style.
    fn from_entry(entry: AlgorithmEntry, colour: Rgb, marker: Marker) -> Self {
        Self {
            name: entry.name,
            family: entry.family,
            exact: entry.exact,
            params: entry.params,
            summary: entry.summary,
            colour,
            marker,
            sweep: entry.sweep,
        }
    }

    /// The name with a note for an inexact algorithm, for legends.
    pub fn label(&self) -> String {
        if self.exact {
            self.name.clone()
        } else {
            format!("{} (inexact)", self.name)
        }
    }
}

/// The colour as `#rrggbb`.
pub fn hex(colour: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", colour.0, colour.1, colour.2)
}

/// The rank of a family in display order: known families first.
fn family_rank(family: &str) -> usize {
    KNOWN_FAMILIES
        .iter()
        .position(|f| *f == family)
        .unwrap_or(KNOWN_FAMILIES.len())
}

fn palette(family: &str) -> &'static [Rgb; 8] {
    match family {
        "seed" => &SEED_PALETTE,
        "modern" => &MODERN_PALETTE,
        "baseline" => &BASELINE_PALETTE,
        "crate" => &CRATE_PALETTE,
        _ => &OTHER_PALETTE,
    }
}

/// The colour and marker of the `index`-th member (by name) of `family`.
pub fn style_for(family: &str, index: usize) -> (Rgb, Marker) {
    let colours = palette(family);
    (
        colours[index % colours.len()],
        MARKERS[(index / colours.len() + index) % MARKERS.len()],
    )
}

/// Key of a per-operation row.
type OpKey = (String, String, String);

/// The results, indexed for the charts and tables.
#[derive(Debug)]
pub struct Model {
    /// The files as read, less the variant rows of `comparison.csv`,
    /// `counts.csv` and `contract_cost.csv`, which only the sections about
    /// designs read. (`runs.csv`, `throughput.csv` and `latency.csv` keep
    /// theirs: the parameters section looks them up by name.)
    pub results: Results,
    /// The designs in display order: by family, then by name. Every chart,
    /// table and verdict but the parameters section shows these and only
    /// these.
    pub algorithms: Vec<Algorithm>,
    /// The variant rows (`variant` in the metadata), by name: points of a
    /// parameter sweep, shown only in the parameters section.
    pub variants: Vec<Algorithm>,
    /// Workloads in run order (the metadata's, then any others found).
    pub workloads: Vec<String>,
    /// The algorithms the x-y charts draw in colour (`--highlight`); every
    /// other line is grey. Empty: all in colour.
    pub highlight: Vec<String>,
    /// `predictions.csv`'s rows (empty for a run made before predictions):
    /// read apart from `results`, see [`Model::set_predictions`].
    pub predictions: Vec<PredictionRow>,
    /// `threaded.csv`'s rows (empty for a run without `--threaded`): read
    /// apart from `results`, see [`Model::set_threaded`].
    pub threaded: Vec<ThreadedRow>,
    runs: BTreeMap<(String, String), RunRow>,
    throughput: BTreeMap<OpKey, ThroughputRow>,
    latency: BTreeMap<OpKey, LatencyRow>,
}

/// The width the list of valid names in a `--highlight` error is wrapped
/// at, leaving room for the program's prefix on a 120-column terminal.
const HIGHLIGHT_ERROR_WIDTH: usize = 100;

impl Model {
    /// Indexes `results`. Algorithms and workloads found in the CSV files but
    /// not in the metadata are kept (an algorithm without an entry is placed in
    /// the [`UNLISTED_FAMILY`] and treated as exact).
    pub fn new(mut results: Results) -> Self {
        let mut entries: Vec<AlgorithmEntry> = results.metadata.algorithms.clone();
        for run in &results.runs {
            if !entries.iter().any(|e| e.name == run.algorithm) {
                entries.push(AlgorithmEntry {
                    name: run.algorithm.clone(),
                    family: UNLISTED_FAMILY.to_owned(),
                    exact: true,
                    params: String::new(),
                    summary: String::new(),
                    native_of: None,
                    sweep: None,
                    variant: false,
                });
            }
        }
        entries.sort_by(|a, b| {
            (family_rank(&a.family), &a.family, &a.name).cmp(&(
                family_rank(&b.family),
                &b.family,
                &b.name,
            ))
        });
        entries.dedup_by(|a, b| a.name == b.name);
        // Variants take no part in the styles of the designs: a sweep added to
        // a run must not change the colour of any design.
        let (variant_entries, entries): (Vec<AlgorithmEntry>, Vec<AlgorithmEntry>) =
            entries.into_iter().partition(|e| e.variant);
        let mut algorithms: Vec<Algorithm> = Vec::with_capacity(entries.len());
        for entry in entries {
            let index = algorithms
                .iter()
                .filter(|a| a.family == entry.family)
                .count();
            let (colour, marker) = style_for(&entry.family, index);
            algorithms.push(Algorithm::from_entry(entry, colour, marker));
        }
        let mut variants: Vec<Algorithm> = Vec::with_capacity(variant_entries.len());
        for entry in variant_entries {
            // A variant wears its design's colour where the design ran.
            let design = entry.sweep.as_ref().and_then(|s| {
                algorithms
                    .iter()
                    .find(|a| a.name == s.design)
                    .map(|a| (a.colour, a.marker))
            });
            let (colour, marker) = design.unwrap_or_else(|| {
                let index = variants.iter().filter(|a| a.family == entry.family).count();
                style_for(&entry.family, index)
            });
            variants.push(Algorithm::from_entry(entry, colour, marker));
        }
        variants.sort_by(|a, b| a.name.cmp(&b.name));
        let is_variant = |name: &str| variants.iter().any(|v| v.name == name);
        results.comparison.retain(|r| !is_variant(&r.algorithm));
        results.counts.retain(|r| !is_variant(&r.algorithm));
        results
            .contract_cost
            .retain(|r| !is_variant(&r.contract) && !is_variant(&r.native));

        let mut workloads = results.metadata.workloads.clone();
        for run in &results.runs {
            if !workloads.contains(&run.workload) {
                workloads.push(run.workload.clone());
            }
        }
        // A workload the metadata lists but no row mentions has nothing to show.
        workloads.retain(|w| results.runs.iter().any(|r| &r.workload == w));

        let runs = results
            .runs
            .iter()
            .map(|r| ((r.algorithm.clone(), r.workload.clone()), r.clone()))
            .collect();
        let throughput = results
            .throughput
            .iter()
            .filter(|t| t.count > 0 && t.median_ns.is_some())
            .map(|t| {
                (
                    (t.algorithm.clone(), t.workload.clone(), t.operation.clone()),
                    t.clone(),
                )
            })
            .collect();
        let latency = results
            .latency
            .iter()
            .filter(|l| l.count > 0)
            .map(|l| {
                (
                    (l.algorithm.clone(), l.workload.clone(), l.operation.clone()),
                    l.clone(),
                )
            })
            .collect();
        Self {
            results,
            algorithms,
            variants,
            workloads,
            highlight: Vec::new(),
            predictions: Vec::new(),
            threaded: Vec::new(),
            runs,
            throughput,
            latency,
        }
    }

    /// Sets the closed-form predictions of the work counters
    /// (`predictions.csv`, which the schema's reader has held to the run).
    pub fn set_predictions(&mut self, predictions: Vec<PredictionRow>) {
        self.predictions = predictions;
    }

    /// Sets the threaded mode's rows (`threaded.csv`, which the schema's
    /// reader has held to the run and its threaded settings).
    pub fn set_threaded(&mut self, threaded: Vec<ThreadedRow>) {
        self.threaded = threaded;
    }

    /// Sets the algorithms the x-y charts draw in colour; an error naming the
    /// valid names when one is not an algorithm of these results.
    pub fn set_highlight(&mut self, names: &[String]) -> Result<(), String> {
        for name in names {
            if !self.algorithms.iter().any(|a| &a.name == name) {
                // Names that contain the one given (or that it contains) come
                // first, and the list goes on lines of its own, wrapped.
                let (near, far): (Vec<String>, Vec<String>) = self
                    .algorithms
                    .iter()
                    .map(|a| a.name.clone())
                    .partition(|valid| valid.contains(name.as_str()) || name.contains(valid));
                let valid = [near, far].concat().join(", ");
                return Err(format!(
                    "--highlight: no algorithm is named {name:?} in these results; they have:\n{}",
                    crate::markdown::wrap("  ", "  ", &valid, HIGHLIGHT_ERROR_WIDTH)
                ));
            }
        }
        self.highlight = names.to_vec();
        Ok(())
    }

    /// Whether the x-y charts draw `name` in grey: some algorithms are
    /// highlighted and it is not one of them.
    pub fn dimmed(&self, name: &str) -> bool {
        !self.highlight.is_empty() && !self.highlight.iter().any(|h| h == name)
    }

    /// Whether `name` is a variant row (shown only in the parameters section).
    pub fn is_variant(&self, name: &str) -> bool {
        self.variants.iter().any(|v| v.name == name)
    }

    /// The families present, in display order.
    pub fn families(&self) -> Vec<&str> {
        let mut families: Vec<&str> = Vec::new();
        for algorithm in &self.algorithms {
            if !families.contains(&algorithm.family.as_str()) {
                families.push(&algorithm.family);
            }
        }
        families
    }

    /// The `runs.csv` row of (algorithm, workload).
    pub fn run(&self, algorithm: &str, workload: &str) -> Option<&RunRow> {
        self.runs.get(&(algorithm.to_owned(), workload.to_owned()))
    }

    /// The `counts.csv` row of (algorithm, workload, operation), if counted.
    pub fn count(&self, algorithm: &str, workload: &str, operation: &str) -> Option<&CountRow> {
        self.results.counts.iter().find(|row| {
            row.algorithm == algorithm && row.workload == workload && row.operation == operation
        })
    }

    /// Whether (algorithm, workload) was skipped by its pending limit.
    pub fn skipped(&self, algorithm: &str, workload: &str) -> bool {
        self.run(algorithm, workload).is_some_and(|r| !r.is_ok())
    }

    /// The median ns per operation of `operation` over the repetitions (the
    /// whole pass for `all`, the batched pass for a kind), when it was
    /// measured and happened at least once.
    pub fn median_ns(&self, algorithm: &str, workload: &str, operation: &str) -> Option<f64> {
        self.throughput_row(algorithm, workload, operation)
            .and_then(|t| t.median_ns)
    }

    /// The `throughput.csv` row of `operation`, when it happened at least once.
    pub fn throughput_row(
        &self,
        algorithm: &str,
        workload: &str,
        operation: &str,
    ) -> Option<&ThroughputRow> {
        self.throughput.get(&(
            algorithm.to_owned(),
            workload.to_owned(),
            operation.to_owned(),
        ))
    }

    /// The latency percentiles of `operation`, when it was measured and
    /// happened at least once.
    pub fn latency(&self, algorithm: &str, workload: &str, operation: &str) -> Option<&LatencyRow> {
        self.latency.get(&(
            algorithm.to_owned(),
            workload.to_owned(),
            operation.to_owned(),
        ))
    }

    /// The scaling workloads (`scaling-*`) with their pending count N, in
    /// increasing N. N is the `max_pending` of runs.csv: the smallest over the
    /// workload's rows, which is the exact reference model's (an inexact
    /// algorithm keeps late timers pending longer and reports more).
    pub fn scaling_workloads(&self) -> Vec<(String, u64)> {
        let mut scaling: Vec<(String, u64)> = self
            .workloads
            .iter()
            .filter(|w| w.starts_with(SCALING_PREFIX))
            .filter_map(|w| {
                let n = self
                    .results
                    .runs
                    .iter()
                    .filter(|r| &r.workload == w && !self.is_variant(&r.algorithm))
                    .map(|r| r.max_pending)
                    .min()?;
                Some((w.clone(), n))
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        scaling.sort_by_key(|(_, n)| *n);
        scaling
    }
}

/// The name prefix of the scaling sweep's workloads.
pub const SCALING_PREFIX: &str = "scaling-";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_is_per_family_and_index() {
        assert_eq!(style_for("seed", 0), (SEED_PALETTE[0], Marker::Circle));
        assert_eq!(style_for("crate", 1), (CRATE_PALETTE[1], Marker::Triangle));
        // Beyond the palette the colour repeats with another marker.
        assert_ne!(style_for("modern", 8).1, style_for("modern", 0).1);
        assert_eq!(style_for("someday", 0).0, OTHER_PALETTE[0]);
    }

    #[test]
    fn palettes_have_distinct_colours() {
        let all: Vec<Rgb> = [
            SEED_PALETTE,
            MODERN_PALETTE,
            BASELINE_PALETTE,
            CRATE_PALETTE,
        ]
        .concat();
        for (i, a) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(a), "{a:?} appears twice");
        }
    }

    /// The metadata of [`small_model`], with `extra` appended to its
    /// algorithms (JSON elements after a comma, or empty).
    fn small_metadata(extra: &str) -> String {
        format!(
            r#"{{"schema_version": 3, "seed": 1, "scale": "small", "driver": "event",
            "repetitions": 6, "replay_overhead": [],
            "statistics": {{"median_ci": "m", "ratio_ci": "r", "bootstrap_resamples": 10,
                           "tie_rule": "t", "consistency_tolerance": 0.15}},
            "workloads": ["scaling-1e4", "scaling-1e3"],
            "clock_floor_ns": {{"p50_ns": 20, "p99_ns": 30, "p999_ns": 40, "max_ns": 50}},
            "algorithms": [
              {{"name": "zeta-crate", "family": "crate", "exact": true}},
              {{"name": "b-heap", "family": "seed", "exact": true}},
              {{"name": "a-wheel", "family": "seed", "exact": false}}{extra}]}}"#
        )
    }

    /// The rows of [`small_model`].
    const SMALL_RUNS: &str = "schema_version,algorithm,workload,status,skip_reason,max_pending,\
                    empty_slot_visits,entries_examined_not_due,cascades,bytes_per_pending,\
                    max_lateness_ticks\n\
                    3,b-heap,scaling-1e4,ok,,10000,0,0,0,40,0\n\
                    3,a-wheel,scaling-1e4,ok,,10400,5,0,0,60,12\n\
                    3,stranger,scaling-1e3,skipped,too many,1000,,,,,\n\
                    3,b-heap,scaling-1e3,ok,,1000,0,0,0,50,0\n";

    /// A model of two workloads and four algorithms, one of them a crate
    /// adapter and one missing from the metadata.
    fn small_model() -> Model {
        model_of(&small_metadata(""), SMALL_RUNS)
    }

    /// A model of `metadata` and `runs` with no other file.
    fn model_of(metadata: &str, runs: &str) -> Model {
        Model::new(results_of(metadata, runs))
    }

    /// The results of `metadata` and `runs` with no other file.
    fn results_of(metadata: &str, runs: &str) -> Results {
        use crate::input::{parse_csv, parse_metadata};
        use std::path::Path;
        Results {
            metadata: parse_metadata(Path::new("metadata.json"), metadata).unwrap(),
            runs: parse_csv(Path::new("runs.csv"), runs).unwrap(),
            throughput: Vec::new(),
            repetitions: Vec::new(),
            latency: Vec::new(),
            contract_cost: Vec::new(),
            counts: Vec::new(),
            counts_build: None,
            comparison: Vec::new(),
            threaded: Vec::new(),
        }
    }

    #[test]
    fn algorithms_are_grouped_by_family_then_name_with_unlisted_ones_kept() {
        let model = small_model();
        let order: Vec<(&str, &str)> = model
            .algorithms
            .iter()
            .map(|a| (a.family.as_str(), a.name.as_str()))
            .collect();
        assert_eq!(
            order,
            [
                ("seed", "a-wheel"),
                ("seed", "b-heap"),
                ("crate", "zeta-crate"),
                (UNLISTED_FAMILY, "stranger"),
            ]
        );
        assert_eq!(model.families(), ["seed", "crate", UNLISTED_FAMILY]);
        assert_eq!(model.algorithms[0].label(), "a-wheel (inexact)");
        assert_eq!(model.algorithms[2].colour, CRATE_PALETTE[0]);
        assert!(model.skipped("stranger", "scaling-1e3"));
    }

    #[test]
    fn variants_are_split_off_without_changing_the_designs() {
        let variant = r#", {"name": "a-wheel@tick=0", "family": "seed", "exact": true,
            "variant": true, "sweep": {"design": "a-wheel", "param": "tick", "value": 0}},
            {"name": "c-wheel", "family": "seed", "exact": true, "variant": false,
             "sweep": {"design": "a-wheel", "param": "tick", "value": 100}}"#;
        // The variant's own row claims a smaller N than the reference's.
        let runs = format!(
            "{SMALL_RUNS}3,a-wheel@tick=0,scaling-1e4,ok,,9000,0,0,0,40,0\n\
             3,c-wheel,scaling-1e4,ok,,10000,0,0,0,40,50\n"
        );
        let plain = small_model();
        let mut results = results_of(&small_metadata(variant), &runs);
        results.comparison = crate::input::parse_csv(
            std::path::Path::new("comparison.csv"),
            "schema_version,base,workload,algorithm,base_ns,new_ns,ratio,ratio_ci_low,\
             ratio_ci_high,verdict,noise,normalised,shift\n\
             3,old,scaling-1e4,a-wheel,10,11,1.1,,,no significant change,0.1,false,\n\
             3,old,scaling-1e4,a-wheel@tick=0,10,5,0.5,,,faster,0.1,false,\n",
        )
        .unwrap();
        let mut model = Model::new(results);
        let compared: Vec<&str> = model
            .results
            .comparison
            .iter()
            .map(|r| r.algorithm.as_str())
            .collect();
        assert_eq!(
            compared,
            ["a-wheel"],
            "the variant's comparison is set aside"
        );
        let names: Vec<&str> = model.algorithms.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(
            names,
            ["a-wheel", "b-heap", "c-wheel", "zeta-crate", "stranger"]
        );
        let variants: Vec<&str> = model.variants.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(variants, ["a-wheel@tick=0"]);
        assert!(model.is_variant("a-wheel@tick=0") && !model.is_variant("c-wheel"));
        // The designs keep the colours they have without the sweep, and the
        // variant wears its design's.
        for a in &plain.algorithms {
            let same = model.algorithms.iter().find(|b| b.name == a.name).unwrap();
            assert_eq!(
                (same.colour, same.marker),
                (a.colour, a.marker),
                "{}",
                a.name
            );
        }
        assert_eq!(model.variants[0].colour, model.algorithms[0].colour);
        assert_eq!(
            model.algorithms[2]
                .sweep
                .as_ref()
                .map(|s| s.design.as_str()),
            Some("a-wheel")
        );
        // The variant's rows are still found by name, but count for no N.
        assert!(model.run("a-wheel@tick=0", "scaling-1e4").is_some());
        assert_eq!(
            model.scaling_workloads()[1],
            ("scaling-1e4".to_owned(), 10_000)
        );
        assert!(model.set_highlight(&["a-wheel@tick=0".to_owned()]).is_err());
    }

    #[test]
    fn scaling_n_is_the_smallest_max_pending_in_increasing_order() {
        let model = small_model();
        assert_eq!(
            model.scaling_workloads(),
            [
                ("scaling-1e3".to_owned(), 1000),
                ("scaling-1e4".to_owned(), 10_000)
            ]
        );
    }

    #[test]
    fn family_order() {
        assert!(family_rank("seed") < family_rank("crate"));
        assert_eq!(family_rank("other"), KNOWN_FAMILIES.len());
        assert_eq!(hex((255, 0, 16)), "#ff0010");
    }
}
