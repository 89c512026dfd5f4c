//! The numbers behind the parameters section: per design and swept
//! parameter, every point of the sweep (the design's default row, its
//! variants, and any design that is also one of its points, as
//! `netty-wheel` is `rounds-wheel` at `tick=100`), and per workload each
//! point's cost, lateness and memory, and whether it is on the Pareto
//! frontier of cost against lateness and of cost against memory.
//!
//! A point's cost is the summary's headline cell ([`summary::cell`]): the
//! whole pass's median ns per operation with its interval. Its lateness is
//! `runs.csv`'s `max_lateness_ticks` and its memory `bytes_per_pending`. A row
//! skipped on a workload is not a point there; the section lists it with its
//! reason. The frontier is taken per workload, among the points of one sweep,
//! on the medians: the intervals are shown, but a frontier of overlapping
//! intervals is a frontier within noise, which the page says.
//!
//! Pure functions over the model, so the charts, the tables and the tests
//! share them.

use crate::input::RunRow;
use crate::model::{Algorithm, Model};
use crate::summary::{self, Cell, Figure};

/// The label of a design's default row in its sweep.
pub const DEFAULT_LABEL: &str = "default";

/// The indices of `points`, each `(x, cost)`, on the Pareto frontier: those
/// that no other point dominates, where a point dominates another when it is
/// no larger in x, no costlier, and strictly better in one of the two.
/// Identical points do not dominate each other, so both stay on the
/// frontier; a point with a coordinate that is not a number is never on it
/// and dominates nothing. The indices are in increasing order.
pub fn pareto_frontier(points: &[(f64, f64)]) -> Vec<usize> {
    let comparable = |&(x, cost): &(f64, f64)| !x.is_nan() && !cost.is_nan();
    let dominates =
        |a: &(f64, f64), b: &(f64, f64)| a.0 <= b.0 && a.1 <= b.1 && (a.0 < b.0 || a.1 < b.1);
    (0..points.len())
        .filter(|&i| {
            comparable(&points[i])
                && !points
                    .iter()
                    .any(|other| comparable(other) && dominates(other, &points[i]))
        })
        .collect()
}

/// The value of `param` in a metadata `params` string (`slots=512,tick=1`),
/// when it is there.
pub fn param_value<'p>(params: &'p str, param: &str) -> Option<&'p str> {
    params.split(',').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (name.trim() == param).then(|| value.trim())
    })
}

/// One point of a sweep: a row and how the section names it.
#[derive(Clone, Debug)]
pub struct Member<'m> {
    /// The row (a design or a variant).
    pub algorithm: &'m Algorithm,
    /// The point's label: `tick=10`, or for the default row `default` with
    /// its parameters, `default (slots=512,tick=1)`.
    pub label: String,
    /// Whether this is the design's default row.
    pub default: bool,
    /// The swept parameter's value, as text, when known (from the sweep, or
    /// for the default row from its parameters).
    pub value: Option<String>,
}

/// A design swept over one parameter: its points in increasing value.
#[derive(Clone, Debug)]
pub struct Sweep<'m> {
    /// The design (its default row's name).
    pub design: String,
    /// The parameter varied.
    pub param: String,
    /// The points: the default row (when it ran) and every row whose sweep
    /// names this design and parameter, ordered by value.
    pub members: Vec<Member<'m>>,
}

impl Sweep<'_> {
    /// A name for files and anchors: `<design>-<param>`.
    pub fn slug(&self) -> String {
        format!("{}-{}", self.design, self.param)
    }
}

/// Every sweep of the run, ordered by design then parameter: one per (design,
/// parameter) with at least one sweep point. Empty when the run has none.
pub fn sweeps(model: &Model) -> Vec<Sweep<'_>> {
    let rows = || model.algorithms.iter().chain(&model.variants);
    let mut keys: Vec<(String, String)> = rows()
        .filter_map(|a| a.sweep.as_ref())
        .map(|s| (s.design.clone(), s.param.clone()))
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .map(|(design, param)| {
            let mut members: Vec<Member<'_>> = Vec::new();
            if let Some(default) = model.algorithms.iter().find(|a| a.name == design) {
                let params = default.params.trim();
                members.push(Member {
                    algorithm: default,
                    label: if params.is_empty() || params == "-" {
                        DEFAULT_LABEL.to_owned()
                    } else {
                        format!("{DEFAULT_LABEL} ({params})")
                    },
                    default: true,
                    value: param_value(params, &param).map(str::to_owned),
                });
            }
            for a in rows() {
                let Some(sweep) = &a.sweep else { continue };
                if sweep.design == design && sweep.param == param && a.name != design {
                    members.push(Member {
                        algorithm: a,
                        label: format!("{param}={}", sweep.value),
                        default: false,
                        value: Some(sweep.value.to_string()),
                    });
                }
            }
            members.sort_by(compare_members);
            Sweep {
                design,
                param,
                members,
            }
        })
        // A row whose sweep names itself as the design is its own default:
        // with no other point there is nothing to compare.
        .filter(|s| s.members.iter().any(|m| !m.default))
        .collect()
}

/// The order of a sweep's points: a default of unknown value first, then
/// numeric values in increasing order, then other values as text; equal
/// values by label.
fn compare_members(a: &Member<'_>, b: &Member<'_>) -> std::cmp::Ordering {
    let key = |m: &Member<'_>| {
        let number = m.value.as_deref().and_then(|v| v.parse::<f64>().ok());
        let rank: u8 = match (&m.value, number) {
            (None, _) => 0,
            (Some(_), Some(_)) => 1,
            (Some(_), None) => 2,
        };
        (rank, number.unwrap_or(0.0))
    };
    let ((rank_a, number_a), (rank_b, number_b)) = (key(a), key(b));
    rank_a
        .cmp(&rank_b)
        .then(number_a.total_cmp(&number_b))
        .then_with(|| a.value.cmp(&b.value))
        .then_with(|| a.label.cmp(&b.label))
}

/// What a point shows on one workload.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Measured: its headline figure, largest lateness in ticks and peak
    /// bytes per pending timer (either may be absent in a row).
    Point {
        /// The whole pass's median ns per operation with its interval.
        figure: Figure,
        /// `max_lateness_ticks`.
        lateness: Option<u64>,
        /// `bytes_per_pending`.
        bytes: Option<f64>,
    },
    /// Skipped, with `runs.csv`'s reason.
    Skipped(String),
    /// No row, or no headline figure.
    Missing,
}

/// A sweep on one workload: each member's outcome (in the sweep's order) and
/// whether it is on each frontier.
#[derive(Clone, Debug)]
pub struct OnWorkload {
    /// The workload.
    pub workload: String,
    /// Per member, its outcome.
    pub outcomes: Vec<Outcome>,
    /// Per member, whether it is on the frontier of cost against lateness.
    pub lateness_frontier: Vec<bool>,
    /// Per member, whether it is on the frontier of cost against memory.
    pub memory_frontier: Vec<bool>,
}

impl OnWorkload {
    /// A sweep's `outcomes` (one per member) on `workload`, with the two
    /// frontiers taken over its measured points.
    pub fn new(workload: &str, outcomes: Vec<Outcome>) -> Self {
        let frontier = |x: fn(&Outcome) -> Option<f64>| {
            let points: Vec<(usize, (f64, f64))> = outcomes
                .iter()
                .enumerate()
                .filter_map(|(i, o)| match o {
                    Outcome::Point { figure, .. } => x(o).map(|x| (i, (x, figure.ns))),
                    _ => None,
                })
                .collect();
            let on: Vec<(f64, f64)> = points.iter().map(|&(_, p)| p).collect();
            let mut flags = vec![false; outcomes.len()];
            for k in pareto_frontier(&on) {
                flags[points[k].0] = true;
            }
            flags
        };
        let lateness_frontier = frontier(|o| match o {
            Outcome::Point { lateness, .. } => lateness.map(|l| l as f64),
            _ => None,
        });
        let memory_frontier = frontier(|o| match o {
            Outcome::Point { bytes, .. } => *bytes,
            _ => None,
        });
        Self {
            workload: workload.to_owned(),
            outcomes,
            lateness_frontier,
            memory_frontier,
        }
    }

    /// Whether any member was measured here.
    pub fn has_points(&self) -> bool {
        self.outcomes
            .iter()
            .any(|o| matches!(o, Outcome::Point { .. }))
    }
}

/// The outcome of one row on one workload, from its `runs.csv` row and its
/// headline cell.
fn outcome(run: Option<&RunRow>, cell: Cell) -> Outcome {
    match (run, cell) {
        (Some(run), _) if !run.is_ok() => Outcome::Skipped(run.skip_reason.clone()),
        (Some(run), Cell::Measured(figure)) => Outcome::Point {
            figure,
            lateness: run.max_lateness_ticks,
            bytes: run.bytes_per_pending,
        },
        _ => Outcome::Missing,
    }
}

/// The sweep on every workload of the run (in the model's order) that has a
/// row of one of its members.
pub fn on_workloads(model: &Model, sweep: &Sweep<'_>) -> Vec<OnWorkload> {
    // A workload is drawn where a sweep point ran: the design rows run on
    // every workload, the points (variants) by default on a few.
    let has_points = sweep
        .members
        .iter()
        .any(|m| model.is_variant(&m.algorithm.name));
    model
        .workloads
        .iter()
        .filter(|w| {
            sweep.members.iter().any(|m| {
                (!has_points || model.is_variant(&m.algorithm.name))
                    && model.run(&m.algorithm.name, w).is_some()
            })
        })
        .map(|w| {
            let outcomes = sweep
                .members
                .iter()
                .map(|m| {
                    outcome(
                        model.run(&m.algorithm.name, w),
                        summary::cell(model, &m.algorithm.name, w),
                    )
                })
                .collect();
            OnWorkload::new(w, outcomes)
        })
        .collect()
}

/// One sentence on a sweep from its workloads: on how many workloads (of
/// those where it has a point) each value is on each frontier.
pub fn frontier_sentence(sweep: &Sweep<'_>, workloads: &[OnWorkload]) -> String {
    let measured = workloads.iter().filter(|w| w.has_points()).count();
    if measured == 0 {
        return format!(
            "{} over {}: no point was measured on any workload.",
            sweep.design, sweep.param
        );
    }
    let counts = |frontier: fn(&OnWorkload) -> &Vec<bool>| -> String {
        let parts: Vec<String> = sweep
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let on = workloads.iter().filter(|w| frontier(w)[i]).count();
                format!("{} on {on}", m.label)
            })
            .collect();
        parts.join(", ")
    };
    format!(
        "{} over {}, on the {measured} workload{} measured: on the frontier of cost against \
         lateness, {}; on the frontier of cost against memory, {}.",
        sweep.design,
        sweep.param,
        if measured == 1 { "" } else { "s" },
        counts(|w| &w.lateness_frontier),
        counts(|w| &w.memory_frontier),
    )
}

/// The rows skipped on some workload, as `(member label, row, workload,
/// reason)`, in the sweep's order then the workloads'.
pub fn skipped<'s>(
    sweep: &'s Sweep<'_>,
    workloads: &'s [OnWorkload],
) -> Vec<(&'s str, &'s str, &'s str, &'s str)> {
    sweep
        .members
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            workloads.iter().filter_map(move |w| match &w.outcomes[i] {
                Outcome::Skipped(reason) => Some((
                    m.label.as_str(),
                    m.algorithm.name.as_str(),
                    w.workload.as_str(),
                    reason.as_str(),
                )),
                _ => None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_point_is_the_frontier() {
        assert_eq!(pareto_frontier(&[(3.0, 7.0)]), [0]);
        assert!(pareto_frontier(&[]).is_empty());
    }

    #[test]
    fn one_point_better_in_both_dominates_all() {
        let points = [
            (5.0, 50.0),
            (1.0, 10.0),
            (2.0, 20.0),
            (1.0, 30.0),
            (3.0, 10.0),
        ];
        assert_eq!(pareto_frontier(&points), [1]);
    }

    #[test]
    fn a_trade_off_keeps_every_point_and_drops_the_dominated() {
        // Lateness against cost: more lateness buys less cost, except the
        // last point, which is later and no cheaper than the one before.
        let points = [(0.0, 40.0), (9.0, 25.0), (99.0, 12.0), (150.0, 12.0)];
        assert_eq!(pareto_frontier(&points), [0, 1, 2]);
    }

    #[test]
    fn ties_stay_on_the_frontier_together() {
        // Identical points: neither is strictly better.
        assert_eq!(pareto_frontier(&[(1.0, 10.0), (1.0, 10.0)]), [0, 1]);
        // An identical pair dominated by a third leaves together.
        assert_eq!(
            pareto_frontier(&[(2.0, 10.0), (2.0, 10.0), (1.0, 10.0)]),
            [2]
        );
    }

    #[test]
    fn at_equal_x_only_the_cheapest_is_on_it() {
        assert_eq!(
            pareto_frontier(&[(0.0, 30.0), (0.0, 20.0), (0.0, 25.0)]),
            [1]
        );
        // Equal cost: the smaller x wins.
        assert_eq!(pareto_frontier(&[(4.0, 20.0), (2.0, 20.0)]), [1]);
    }

    #[test]
    fn a_point_that_is_not_a_number_is_never_on_it() {
        assert_eq!(pareto_frontier(&[(f64::NAN, 1.0), (2.0, 5.0)]), [1]);
    }

    #[test]
    fn parameter_values_are_found_in_params() {
        assert_eq!(param_value("slots=512,tick=1", "tick"), Some("1"));
        assert_eq!(param_value("slots=512, tick = 1", "tick"), Some("1"));
        assert_eq!(param_value("slots=512", "tick"), None);
        assert_eq!(param_value("-", "tick"), None);
        assert_eq!(param_value("ticks=5", "tick"), None);
    }

    fn figure(ns: f64) -> Figure {
        Figure::point(ns)
    }

    fn point(ns: f64, lateness: u64, bytes: f64) -> Outcome {
        Outcome::Point {
            figure: figure(ns),
            lateness: Some(lateness),
            bytes: Some(bytes),
        }
    }

    #[test]
    fn frontiers_are_taken_among_the_measured_points_of_a_workload() {
        let on = OnWorkload::new(
            "w",
            vec![
                point(40.0, 0, 48.0),
                Outcome::Skipped("too many".into()),
                point(25.0, 9, 48.0),
                Outcome::Missing,
                point(30.0, 99, 32.0),
            ],
        );
        assert_eq!(on.lateness_frontier, [true, false, true, false, false]);
        assert_eq!(on.memory_frontier, [false, false, true, false, true]);
        assert!(on.has_points());
        assert!(!OnWorkload::new("w", vec![Outcome::Missing]).has_points());
    }

    #[test]
    fn the_fixture_sweeps_group_default_variants_and_designs_in_value_order() {
        let model = crate::fixture_sweep_model();
        let sweeps = sweeps(&model);
        let shape: Vec<(String, String, Vec<String>)> = sweeps
            .iter()
            .map(|s| {
                (
                    s.design.clone(),
                    s.param.clone(),
                    s.members.iter().map(|m| m.algorithm.name.clone()).collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "hashed-wheel".to_owned(),
                    "slots".to_owned(),
                    vec![
                        "hashed-wheel".to_owned(),
                        "hashed-wheel@slots=4096".to_owned()
                    ]
                ),
                (
                    "rounds-wheel".to_owned(),
                    "tick".to_owned(),
                    vec![
                        "rounds-wheel".to_owned(),
                        "rounds-wheel@tick=10".to_owned(),
                        "netty-wheel".to_owned()
                    ]
                ),
            ]
        );
        let rounds = &sweeps[1];
        let labels: Vec<&str> = rounds.members.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(
            labels,
            ["default (slots=512,tick=1)", "tick=10", "tick=100"]
        );
        assert!(rounds.members[0].default && !rounds.members[2].default);
        assert_eq!(rounds.slug(), "rounds-wheel-tick");
    }

    #[test]
    fn the_fixture_sweeps_have_points_skips_and_a_sentence() {
        let model = crate::fixture_sweep_model();
        let sweeps = sweeps(&model);
        let rounds = &sweeps[1];
        let workloads = on_workloads(&model, rounds);
        assert_eq!(workloads.len(), model.workloads.len());
        for w in &workloads {
            // The exact default row is always on the lateness frontier: no
            // other point is as punctual.
            assert!(w.lateness_frontier[0], "{}", w.workload);
            match &w.outcomes[2] {
                Outcome::Point { lateness, .. } => assert!(lateness.unwrap() > 0),
                other => panic!("netty-wheel on {}: {other:?}", w.workload),
            }
        }
        let sentence = frontier_sentence(rounds, &workloads);
        assert!(
            sentence.starts_with("rounds-wheel over tick, on the 4 workloads measured:"),
            "{sentence}"
        );
        assert!(
            sentence.contains("default (slots=512,tick=1) on 4"),
            "{sentence}"
        );
        let hashed = &sweeps[0];
        let workloads = on_workloads(&model, hashed);
        let skips = skipped(hashed, &workloads);
        assert_eq!(skips.len(), 1, "{skips:?}");
        assert_eq!(skips[0].1, "hashed-wheel@slots=4096");
        assert_eq!(skips[0].2, "scaling-1e4");
        assert!(frontier_sentence(hashed, &workloads).contains("on the 4 workloads"));
    }

    #[test]
    fn a_row_that_names_itself_its_design_makes_no_sweep() {
        let mut model = crate::fixture_sweep_model();
        let heap = model
            .algorithms
            .iter_mut()
            .find(|a| a.name == "binary-heap")
            .unwrap();
        heap.sweep = Some(crate::input::SweepPoint {
            design: "binary-heap".to_owned(),
            param: "arity".to_owned(),
            value: crate::input::ParamValue("2".to_owned()),
        });
        let designs: Vec<String> = sweeps(&model).into_iter().map(|s| s.design).collect();
        assert_eq!(designs, ["hashed-wheel", "rounds-wheel"]);
    }

    #[test]
    fn a_run_without_sweeps_has_none() {
        assert!(sweeps(&crate::fixture_model()).is_empty());
    }
}
