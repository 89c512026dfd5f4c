//! The two documents: `index.html`, one static page with every chart, table,
//! the run metadata and a "how to read this" per chart (no script, no network:
//! the charts are SVG files beside it), and `REPORT.md`, the same tables and
//! chart links for viewing on a code host.
//!
//! Both are assembled from one list of `Section`s, so they cannot drift.

use crate::charts::{COUNTERS, Chart, SCALING_OPERATIONS};
use crate::markdown;
use crate::model::{Model, hex};
use crate::parameters;
use crate::summary;
use crate::tables::{self, Table, escape_html};

/// The command that regenerates the report, quoted in both documents.
pub const COMMAND: &str = "make report";

/// A part of a section: prose, a table, or a chart.
enum Part {
    Text(String),
    Table(Table),
    Chart(Chart),
}

/// A section with a heading.
struct Section {
    title: String,
    parts: Vec<Part>,
}

/// How to read each kind of chart.
const READ_SCALING: &str = "Each line is one algorithm: its median cost of one operation over the \
    run's repetitions at each size of the scaling sweep, with the interval of the median as an error \
    bar. The `all` chart is the whole pass (one clock read before and one after the measured phase); \
    the per-kind charts are the batched passes, which read the clock at every change of operation \
    kind: a hollow point is a cell whose batched pass takes more than the tolerance in the run table \
    longer than its whole pass, so its per-kind split is dominated by the clock and overstates the \
    operation (where kinds alternate one by one, as at N = 10^3). Both axes are logarithmic, \
    so a line parallel to the dashed O(1) slope is constant-time, one parallel to O(n) is linear; where \
    two lines cross, the faster design changes (the heap/wheel crossover). N is the workload's \
    max_pending in runs.csv (the exact reference model's largest pending count). A missing point is a \
    skipped run (the legend says from which N), not a zero. At most eight lines are in colour, the \
    lowest at the largest N; the others are the grey lines behind them (`make report \
    REPORT_ARGS='--highlight a,b'` chooses which are coloured), and the chart by family shows every \
    line in colour within its family.";
const READ_COUNTS: &str = "From `counts.csv` (`timerbench counts`, `make counts`): each cell's \
measured phase replayed under Valgrind's callgrind with one fixed simulated cache (32 KiB L1i, 48 KiB \
L1d, 32 MiB last level), counting only the measured phase, after the same prefill as a timed pass. \
Counts, not times: the same binary and seed give the same figures on any machine, whatever else it \
is doing (the mispredictions to within a few in 100,000). A last-level miss is a load from memory in that model (no prefetcher, no overlap); a \
misprediction is one of Valgrind's branch predictor, a model of about 2004 that a core of today \
beats except where a branch's outcome is random; \
`counts.json` says how many operations of each cell were counted.";
const READ_MEMORY: &str = "Peak heap bytes held by the queue divided by the largest pending count, \
    per algorithm and size. A wheel's fixed slot arrays dominate at small N and amortise at large N; \
    a flat line is a per-timer cost.";
const READ_RETAINED: &str = "On each workload whose measured phase ends with under a tenth of its \
    largest pending population still pending, the heap bytes each queue held at its peak, at the end \
    of the measured phase, and after a quiet period as long again in which nothing is inserted or \
    cancelled and the driver only fires what falls due (every figure from the verification pass). A \
    queue that gives back what it no longer needs ends near zero; one that keeps its arena's \
    capacity, or cancelled entries until their slot comes round, keeps its peak. The smallest figure \
    after the quiet period is in bold.";
const READ_COUNTERS: &str = "Deterministic work counters of the measured phase (the same seed gives \
    the same values on every machine), one bar per algorithm, grouped by workload, on a log axis. A \
    zero draws no bar; a cross on the axis marks a skipped run. These counters show work that fires \
    nothing: empty ticks of ticked wheels, entries looked at but not due (rounds counted down, heads \
    compared), and cascades between wheel levels.";
const READ_LATENCY: &str = "Per operation, the 50th, 99th and 99.9th percentile of single-operation \
    latency (each operation timed alone), one line per algorithm, on a log axis. The dashed line is the \
    clock floor's p50: the cost of the clock reads alone, which is included in every sample and not \
    subtracted, so values near the line are at the limit of what this method can resolve. Expire is per \
    fired timer. Algorithms skipped on the workload are greyed in the legend.";
const READ_SUMMARY: &str = "The all-in median: the whole pass's time over all timer operations \
    (inserts, cancels, reschedules), expiry included, the median of the run's interleaved repetitions, \
    with the interval of the median in brackets. Each column is a workload; the best is highlighted, \
    every cell whose interval overlaps the best's is marked ≈ (tied with it within noise), and the \
    colour deepens to red as an algorithm gets up to 100 times slower than the best. `skipped` marks a \
    cell not measured, not a zero: above the algorithm's pending limit, or verified but not timed by \
    default (its measured phase does more than 300 million steps of work); the section \"Skipped \
    runs\" gives each reason. Absolute times move with the host's load \
    (the run table gives the steal time): compare within a column.";

/// What the summary tables say of the crate adapters that ran on fewer
/// workloads than the rest: a default run measures the adapter of a crate
/// that also runs through its own API on a sample of workloads only
/// (`harness/src/sampled.rs`), since the native row stands for the crate and
/// the adapter's one figure is the contract's cost. `None` when every such
/// adapter ran everywhere.
pub fn sampled_note(model: &Model) -> Option<String> {
    let ran_on = |name: &str| {
        model
            .workloads
            .iter()
            .filter(|w| {
                model
                    .throughput_row(name, w, summary::SUMMARY_OPERATION)
                    .is_some_and(|row| row.median_ns.is_some())
            })
            .count()
    };
    let adapters: Vec<(&str, usize)> = model
        .algorithms
        .iter()
        .filter(|a| {
            a.family == summary::CRATE_FAMILY
                && model
                    .results
                    .contract_cost
                    .iter()
                    .any(|c| c.contract == a.name)
        })
        .map(|a| (a.name.as_str(), ran_on(&a.name)))
        .collect();
    let fewest = adapters.iter().map(|&(_, n)| n).min()?;
    let most = adapters.iter().map(|&(_, n)| n).max()?;
    if most >= model.workloads.len() {
        return None;
    }
    let names = adapters
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let count = if fewest == most {
        fewest.to_string()
    } else {
        format!("{fewest} to {most}")
    };
    Some(format!(
        "The crate adapters ({names}) ran on {count} of the {} workloads, `{}` elsewhere: a \
         crate that also runs through its own API is ranked by that native row, so a default run \
         measures its adapter, whose one figure is what the contract costs the crate (the section \
         \"What the contract costs\"), on the sample workloads of `harness/src/sampled.rs` only. \
         `timerbench run --algorithms NAME` measures one on every workload.",
        model.workloads.len(),
        tables::MISSING
    ))
}

const READ_PARAMETERS: &str = "Some designs ran at several values of one parameter, the other \
    parameters at their defaults. A row that exists only as such a point (a variant, named \
    `<design>@<param>=<value>`) is shown here and nowhere else: the sections above compare the \
    designs as their references set them. A design that is also another design's point is in both. \
    A run measures the points on a few workloads (by default the five of `harness/src/sampled.rs`, \
    whole passes only), and each chart draws the workloads its points ran on. \
    For each design and parameter, the left panel draws the headline cost (the whole pass's median \
    ns per operation with its interval, the figure of the summary) against the largest lateness \
    in ticks (runs.csv's max_lateness_ticks, plotted at lateness + 1 on a log axis so that an exact \
    row, at 0, has a place), the right panel against peak heap bytes per pending timer (log axis; \
    a sweep whose every point is exact has this panel alone); each colour is a workload, each point is labelled with its parameter value. A point is on a \
    panel's Pareto frontier when no other point of the same workload is both no costlier and no \
    larger in x and strictly better in one; those are filled and joined, the dominated points \
    hollow. The frontier is taken on the medians: where intervals overlap, a point just off it may \
    be as good within noise. A row skipped on a workload is no point there and is listed below \
    its chart.";

/// The parameter sweeps, when the run has any: per design and parameter, a
/// sentence on its frontiers, its chart, the rows skipped, and its table.
fn parameters_section(model: &Model, chart: &dyn Fn(&str) -> Option<Chart>) -> Option<Section> {
    let sweeps = parameters::sweeps(model);
    if sweeps.is_empty() {
        return None;
    }
    let mut parts = vec![Part::Text(READ_PARAMETERS.to_owned())];
    for sweep in &sweeps {
        let workloads = parameters::on_workloads(model, sweep);
        parts.push(Part::Text(parameters::frontier_sentence(sweep, &workloads)));
        parts.extend(chart(&crate::charts::parameter_chart_file(sweep)).map(Part::Chart));
        let skipped: Vec<String> = parameters::skipped(sweep, &workloads)
            .into_iter()
            .map(|(label, row, workload, reason)| {
                format!("{label} ({row}) on {workload}: {reason}")
            })
            .collect();
        if !skipped.is_empty() {
            parts.push(Part::Text(format!(
                "Skipped, so not drawn: {}.",
                skipped.join("; ")
            )));
        }
        parts.push(Part::Table(tables::parameter_table(sweep, &workloads)));
    }
    Some(Section {
        title: PARAMETERS_TITLE.to_owned(),
        parts,
    })
}

/// The title of the parameters section.
pub const PARAMETERS_TITLE: &str = "Parameters";

/// The report's sections in page order.
fn sections(model: &Model, charts: &[Chart]) -> Vec<Section> {
    let chart = |file: &str| charts.iter().find(|c| c.file == file).cloned();
    let mut out = vec![
        Section {
            title: "Run".to_owned(),
            parts: vec![Part::Table(tables::metadata_table(model))],
        },
        Section {
            title: "Summary: who wins each workload".to_owned(),
            parts: vec![
                Part::Text(
                    "The fastest algorithm per workload by all-in median ns per operation, or \
                     \"tie within noise\" with every algorithm whose interval overlaps the best's; and \
                     how far behind the runner-up, the best third-party crate (family `crate`; where a \
                     crate also ran through its own API, that native row stands for it and its \
                     adapter is set aside as `crate adapter`) and the \
                     best standard-library baseline (family `baseline`) are, each ratio with its \
                     bootstrap interval; those two columns appear when their family ran, and say when \
                     the best of the family ties with another member."
                        .to_owned(),
                ),
                Part::Table(tables::verdict_table(model)),
            ],
        },
        Section {
            title: "Summary: ns per operation, algorithm x workload".to_owned(),
            parts: std::iter::once(Part::Text(READ_SUMMARY.to_owned()))
                .chain(summary::unjudged_note(model).map(Part::Text))
                .chain(sampled_note(model).map(Part::Text))
                .chain(chart("summary-heatmap.svg").map(Part::Chart))
                .chain([Part::Table(tables::summary_table(model, false))])
                .collect(),
        },
        Section {
            title: "Summary: relative to the best of each workload".to_owned(),
            parts: vec![
                Part::Text("The same table as the ratio to the column's best median (1.00x is the best; 2.50x is 2.5 times slower), with the harness's 95% bootstrap interval of the ratio; ≈ marks a tie with the best.".to_owned()),
                Part::Table(tables::summary_table(model, true)),
            ],
        },
    ];
    if let Some(section) = comparison_section(model) {
        out.push(section);
    }
    let scaling: Vec<Part> = SCALING_OPERATIONS
        .iter()
        .map(|op| format!("scaling-{op}.svg"))
        .chain(std::iter::once("scaling-all-by-family.svg".to_owned()))
        .filter_map(|file| chart(&file))
        .map(Part::Chart)
        .collect();
    if !scaling.is_empty() {
        out.push(Section {
            title: "Scaling with the number of pending timers".to_owned(),
            parts: std::iter::once(Part::Text(READ_SCALING.to_owned()))
                .chain(scaling)
                .collect(),
        });
    }
    if let Some(memory) = chart("memory.svg") {
        out.push(Section {
            title: "Memory per pending timer".to_owned(),
            parts: vec![
                Part::Text(READ_MEMORY.to_owned()),
                Part::Chart(memory),
                Part::Table(tables::memory_table(model)),
            ],
        });
    }
    let drained = tables::drained_workloads(model);
    if !drained.is_empty() {
        out.push(Section {
            title: "Memory kept after the work".to_owned(),
            parts: std::iter::once(Part::Text(READ_RETAINED.to_owned()))
                .chain(drained.iter().flat_map(|workload| {
                    [
                        Part::Text(format!("`{workload}`:")),
                        Part::Table(tables::retained_table(model, workload)),
                    ]
                }))
                .collect(),
        });
    }
    if let Some(section) = counts_section(model, &chart) {
        out.push(section);
    }
    out.push(Section {
        title: "Wasted work".to_owned(),
        parts: std::iter::once(Part::Text(READ_COUNTERS.to_owned()))
            .chain(
                COUNTERS
                    .iter()
                    .filter_map(|c| chart(&format!("wasted-{}.svg", c.column.replace('_', "-"))))
                    .map(Part::Chart),
            )
            .collect(),
    });
    if let Some(section) = predicted_section(model) {
        out.push(section);
    }
    if let Some(section) = threaded_section(model) {
        out.push(section);
    }
    if let Some(section) = real_section(model) {
        out.push(section);
    }
    out.push(Section {
        title: "Latency percentiles per workload".to_owned(),
        parts: std::iter::once(Part::Text(READ_LATENCY.to_owned()))
            .chain(
                charts
                    .iter()
                    .filter(|c| c.file.starts_with("latency-"))
                    .cloned()
                    .map(Part::Chart),
            )
            .collect(),
    });
    if let Some(table) = tables::contract_cost_table(model) {
        out.push(Section {
            title: "What the contract costs: crates and baselines through their own API".to_owned(),
            parts: [
                Part::Text(
                    "Each crate (family `crate`) and each standard-library baseline runs twice: \
                     behind this project's `TimerQueue` contract (its row without a suffix), and \
                     driven the way its own users drive it (the `-native` or `-plain` row: its own \
                     keys kept by the caller, its own poll, no handle map, no batch sort). Each cell \
                     is the contract row's all-in median over the native row's, with the bootstrap \
                     interval of the ratio and both medians; ≈ marks overlapping median intervals \
                     (no measurable cost). Above 1 is what the contract (stale-safe handles, deadline \
                     order) costs that structure."
                        .to_owned(),
                ),
            ]
            .into_iter()
            .chain(sampled_note(model).map(Part::Text))
            .chain([Part::Table(table)])
            .collect(),
        });
    }
    if let Some(table) = tables::lateness_table(model) {
        out.push(Section {
            title: "Inexact algorithms: largest lateness (ticks)".to_owned(),
            parts: vec![
                Part::Text(
                    "An inexact algorithm fires at its declared due tick, up to its declared bound \
                     after the deadline (the checksum verifies it); this is the largest lateness it \
                     showed on each workload, in ticks (1 tick = 1 ms by convention)."
                        .to_owned(),
                ),
                Part::Table(table),
            ],
        });
    }
    if let Some(table) = tables::skipped_table(model) {
        out.push(Section {
            title: "Skipped runs".to_owned(),
            parts: vec![Part::Table(table)],
        });
    }
    if let Some(table) = tables::systems_table(model) {
        out.push(Section {
            title: "Which row stands for which system".to_owned(),
            parts: vec![
                Part::Text(
                    "The systems the user's documents name, what each keeps its timers in, and the \
                     row that models it; each was read in its own source (algorithms/SYSTEMS.md \
                     names the versions)."
                        .to_owned(),
                ),
                Part::Table(table),
            ],
        });
    }
    out.push(Section {
        title: "Algorithms".to_owned(),
        parts: vec![Part::Table(tables::algorithms_table(model))],
    });
    if let Some(section) = parameters_section(model, &chart) {
        out.push(section);
    }
    out
}

/// The callgrind counts, when the results have `counts.csv`: the two tables
/// of figures per measured operation, their scaling charts, and the per-kind
/// table at the largest counted N.
fn counts_section(model: &Model, chart: &dyn Fn(&str) -> Option<Chart>) -> Option<Section> {
    let mut parts = vec![Part::Text(READ_COUNTS.to_owned())];
    if let Some(build) = &model.results.counts_build {
        parts.push(Part::Text(counted_build(
            build,
            &model.results.metadata.git_commit,
        )));
    }
    for metric in tables::CountMetric::ALL {
        let table = tables::counts_table(model, metric)?;
        let what = match metric {
            tables::CountMetric::Instructions => "Instructions",
            tables::CountMetric::LlMisses => "Simulated last-level misses",
            tables::CountMetric::BranchMisses => "Simulated branch mispredictions",
        };
        parts.push(Part::Text(format!(
            "{what} per measured operation (the whole counted region); the smallest of each workload highlighted."
        )));
        parts.push(Part::Table(table));
        parts.extend(chart(&format!("counts-{}.svg", metric.slug())).map(Part::Chart));
        if metric == tables::CountMetric::Instructions {
            parts.extend(chart("counts-instructions-by-family.svg").map(Part::Chart));
        }
    }
    if let Some((workload, table)) = tables::counts_by_kind_table(model) {
        parts.push(Part::Text(format!(
            "Per call of each kind on {workload}: instructions, simulated last-level misses and \
             mispredictions \
             (each figure includes the call into the counted function and its return)."
        )));
        parts.push(Part::Table(table));
    }
    Some(Section {
        title:
            "Counts that noise cannot move: instructions, simulated cache misses and mispredictions"
                .to_owned(),
        parts,
    })
}

/// Which build the counts are of, beside the timed run's: the two are made by
/// separate commands and may be of different commits.
fn counted_build(build: &crate::input::CountsBuild, run_commit: &str) -> String {
    let short = |commit: &str| commit.chars().take(7).collect::<String>();
    let dirty = if build.git_dirty {
        " (with uncommitted changes)"
    } else {
        ""
    };
    if build.git_commit == run_commit {
        format!(
            "Counted from the build of the timed run's commit, {}{dirty}.",
            short(run_commit)
        )
    } else {
        format!(
            "Counted from the build of commit {}{dirty} (`counts.json`), not the timed run's \
             {}: where a row's code changed between the two, its counts and its times describe \
             different code.",
            short(&build.git_commit),
            short(run_commit)
        )
    }
}

/// The work counters beside their closed-form predictions, when the
/// results have `predictions.csv` with a workload that has one.
fn predicted_section(model: &Model) -> Option<Section> {
    let table = crate::predicted::predicted_table(model)?;
    let none: Vec<String> = crate::predicted::without_closed_form(model)
        .into_iter()
        .map(|(workload, why)| format!("`{workload}` ({why})"))
        .collect();
    let none = if none.is_empty() {
        String::new()
    } else {
        format!(
            " Workloads with no closed form, so no row: {}.",
            none.join(", ")
        )
    };
    Some(Section {
        title: "Predicted and counted work".to_owned(),
        parts: vec![
            Part::Text(format!(
                "From `predictions.csv`: what Varghese and Lauck's analysis predicts for a work \
                 counter from the workload's law (Poisson arrivals, constant or uniform delays \
                 and cancels) and the design's parameters, beside the count in `runs.csv`, and \
                 the ratio counted / predicted. A prediction is an expectation over the \
                 arrivals, so a small one (tens) is noise-bound: the last column is the count's \
                 distance from its prediction in standard deviations of a Poisson count of that \
                 mean (the square root of the prediction), and a ratio beyond a few percent \
                 within about two of them is the draw's noise, not the formula's. The formulas \
                 and the section of the paper for each are in `harness/src/theory.rs`.{none}"
            )),
            Part::Table(table),
        ],
    })
}

/// The threaded mode, when the results have `threaded.csv`: per workload,
/// each design under each sharing and producer count.
fn threaded_section(model: &Model) -> Option<Section> {
    let recorded =
        crate::threaded::run_settings(&model.threaded, model.results.metadata.threaded.as_ref())?;
    let settings = crate::threaded::settings(&recorded);
    let intervals = crate::threaded::interval_note(recorded.repetitions);
    let mut parts = vec![Part::Text(format!(
        "From `threaded.csv` (`timerbench run --threaded`): producer threads split each \
         workload's timers and issue their operations against the wall clock while the timers \
         fire on a timer thread that sleeps until the queue's next expiry (the next tick for a \
         ticked wheel), {settings}. Sharings: `locked` is one queue behind a lock that producers \
         and the timer thread take (Kafka, the JDK's ScheduledThreadPoolExecutor); `handoff` \
         hands inserts, cancels and reschedules to the timer thread through an MPSC queue \
         (Netty); `sharded` gives each producer its own queue, which it advances itself (Go, \
         Linux), so its timer CPU is the producers'. Lateness is a fire's wall instant minus its \
         deadline's, as measured: a coarse wheel's slot lasts its ticks divided by the speed-up \
         on the wall clock, while the thread's wake-up delay is not sped up. A wakeup is an \
         advance of the queue; an empty one fired nothing. An operation's latency is the \
         producer's call alone (lock wait, hand-off, the structure's work). Every run was \
         tallied: no timer lost, fired twice, fired after its cancel won, or early. \
         {intervals}. The tails \
         (p99, max) of lateness and of operation latency are mostly the operating system's \
         scheduling of a few threads on few cores, and move several-fold between repetitions of \
         one cell: read the medians, and compare tails only over many repetitions \
         (`--threaded-repeat`). This machine \
         has two cores, so one and two producers are what it can measure; scaling beyond two \
         cores needs a larger machine."
    ))];
    for (workload, table) in crate::threaded::tables(&model.threaded) {
        parts.push(Part::Text(format!("**{workload}**")));
        parts.push(Part::Table(table));
        let single = |algorithm: &str| crate::summary::cell(model, algorithm, &workload).value();
        if let Some(ranking) = crate::threaded::ranking(&model.threaded, &workload, single) {
            parts.push(Part::Text(format!(
                "How the ranking on {workload} changes when the timer lives on its own thread: \
                 each design's rank single-threaded (the summary's all-in median) beside its \
                 rank by median producer operation latency under each sharing and producer \
                 count (1 is the fastest; ties share their mean rank), and each ranking's \
                 Spearman correlation with the single-threaded one (1: the same order). {}",
                crate::threaded::ranking_moves(&ranking)
            )));
            parts.push(Part::Table(crate::threaded::ranking_table(&ranking)));
        }
    }
    Some(Section {
        title: "Threaded: lateness, wakeups and producer latency".to_owned(),
        parts,
    })
}

/// The real kernel traces beside their synthetic twins, when the run has
/// real traces ([`crate::real`]).
fn real_section(model: &Model) -> Option<Section> {
    let parts = match crate::real::section(model)? {
        crate::real::RealSection::Predates(sentence) => vec![Part::Text(sentence)],
        crate::real::RealSection::Pairs(pairs) => {
            let mut parts = vec![Part::Text(READ_REAL.to_owned())];
            for pair in pairs {
                parts.push(Part::Text(pair.heading));
                parts.push(Part::Table(pair.shape));
                parts.extend(pair.times.map(Part::Table));
                if !pair.prose.is_empty() {
                    parts.push(Part::Text(pair.prose));
                }
            }
            parts
        }
    };
    Some(Section {
        title: crate::real::REAL_TITLE.to_owned(),
        parts,
    })
}

/// How to read the real traces' section.
const READ_REAL: &str = "Each real trace (a capture of this machine's kernel timers, replayed as \
    a workload) beside the synthetic built-in it resembles, its twin, from `metadata.json`'s \
    `real_traces`. The first table is the two tapes' shapes as the workloads README measures them \
    (cancelled: the cancels that found their timer pending, as a share of the inserts; re-armed: \
    the reschedules' share of the operations; delays: a deadline minus the tick that set it, \
    nearest-rank percentiles; peak pending: the most timers pending at once), each pair *near* \
    when within a factor of 1.5 (a share only when what is left of it is too, so 68% and 96% are \
    not; and two shares within a percentage point always are); the twin's \
    tape is the one this run replayed, at its scale and seed. The second is every design measured on both: its all-in median \
    ns per operation (the summary's figure) and its rank on each (1 is the fastest; ties share \
    their mean rank), with Spearman's correlation of the two rankings (1: the same order, -1: the \
    reverse). A trace's tape is small, so its figures carry more noise than the twin's.";

/// This run against an earlier one, when the results have `comparison.csv`
/// (`timerbench compare BASE NEW --save`).
fn comparison_section(model: &Model) -> Option<Section> {
    let table = tables::comparison_table(model)?;
    let rows = &model.results.comparison;
    let first = rows.first()?;
    let count = |verdict: &str| rows.iter().filter(|r| r.verdict == verdict).count();
    // Files of the earlier judge may carry a shift it divided out.
    let shift = match (first.shift, first.normalised) {
        (Some(shift), true) => {
            format!(" Every ratio was divided by the median cell's, {shift:.3}x.")
        }
        _ => String::new(),
    };
    Some(Section {
        title: format!("Compared with {}", first.base),
        parts: vec![
            Part::Text(format!(
                "From `comparison.csv` (`timerbench compare {} <this run> --save`): this run's \
                 median over BASE's, paired run by run, with the 95% distribution-free interval \
                 of the paired ratios; *faster* or *slower* only when the whole interval lies \
                 beyond ±{:.0}%, and no verdict from fewer than six pairs of runs.{shift} {} \
                 cells: {} faster, {} slower, {} no significant change, {} cannot tell.",
                first.base,
                first.noise * 100.0,
                rows.len(),
                count("faster"),
                count("slower"),
                count("no significant change"),
                count("cannot tell"),
            )),
            Part::Table(table),
        ],
    })
}

/// The "generated" notice, naming the command and the results directory.
fn generated_note(results_dir: &str) -> String {
    format!(
        "Generated by `{COMMAND}` (timerbench-report) from the files in `{results_dir}/`; \
         do not edit, regenerate."
    )
}

/// The notice as an HTML or XML comment; a comment may not contain `--`, so
/// any in the directory name is broken up.
pub fn generated_comment(results_dir: &str) -> String {
    format!(
        "<!-- {} -->",
        generated_note(results_dir).replace("--", "- -")
    )
}

/// The page's style sheet: readable tables that scroll sideways when wide.
const CSS: &str = "body{font-family:sans-serif;max-width:1240px;margin:1em auto;padding:0 1em;color:#222}\
    h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}\
    .scroll{overflow-x:auto}table{border-collapse:collapse;font-size:13px;margin:.5em 0}\
    th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;white-space:nowrap}\
    table.numeric td{text-align:right}table:not(.numeric) td{white-space:normal}\
    tr.family th{background:#eee}\
    td.best{font-weight:bold;outline:2px solid #238b45}\
    figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #ddd}\
    .note{color:#555;font-size:.9em}.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.3em}";

/// An HTML id for a heading: lower-case letters and digits, the rest `-`.
fn anchor(title: &str) -> String {
    let id: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    id.split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// `index.html`.
pub fn html(model: &Model, charts: &[Chart], results_dir: &str) -> String {
    let note = generated_note(results_dir);
    let comment = generated_comment(results_dir);
    let mut out = format!(
        "<!DOCTYPE html>\n{comment}\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <title>timerbench report</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <h1>timerbench report</h1>\n<p class=\"note\">{}</p>\n",
        escape_html(&note)
    );
    out.push_str("<p>Colours per algorithm, the same in every chart: ");
    for a in &model.algorithms {
        out.push_str(&format!(
            "<span><span class=\"swatch\" style=\"background:{}\"></span>{} ({})</span> ",
            hex(a.colour),
            escape_html(&a.label()),
            escape_html(&a.family)
        ));
    }
    out.push_str("</p>\n");
    let sections = sections(model, charts);
    out.push_str("<nav><p>Contents: ");
    let links: Vec<String> = sections
        .iter()
        .map(|s| {
            format!(
                "<a href=\"#{}\">{}</a>",
                anchor(&s.title),
                escape_html(&s.title)
            )
        })
        .collect();
    out.push_str(&links.join(" · "));
    out.push_str("</p></nav>\n");
    for section in sections {
        out.push_str(&format!(
            "<h2 id=\"{}\">{}</h2>\n",
            anchor(&section.title),
            escape_html(&section.title)
        ));
        for part in section.parts {
            match part {
                Part::Text(text) => out.push_str(&format!("<p>{}</p>\n", escape_html(&text))),
                Part::Table(table) => {
                    out.push_str(&format!(
                        "<div class=\"scroll\">{}</div>\n",
                        table.to_html()
                    ));
                }
                Part::Chart(chart) => out.push_str(&format!(
                    "<figure><img src=\"{}\" alt=\"{}\" width=\"{}\" height=\"{}\"/></figure>\n",
                    escape_html(&chart.file),
                    escape_html(&chart.title),
                    crate::charts::WIDTH,
                    chart.height
                )),
            }
        }
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// `REPORT.md`.
pub fn markdown(model: &Model, charts: &[Chart], results_dir: &str) -> String {
    let mut out = format!(
        "{}\n\n# timerbench report\n\n{}\n",
        generated_comment(results_dir),
        markdown::paragraph(&generated_note(results_dir))
    );
    for section in sections(model, charts) {
        out.push_str(&format!("\n## {}\n\n", section.title));
        for part in section.parts {
            match part {
                Part::Text(text) => {
                    out.push_str(&format!("{}\n\n", markdown::paragraph(&text)));
                }
                Part::Table(table) => out.push_str(&format!("{}\n", table.to_markdown())),
                Part::Chart(chart) => {
                    out.push_str(&format!("![{}]({})\n\n", chart.title, chart.file))
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_adapter_measured_on_a_sample_of_workloads_is_said_so() {
        let with_cost = |drop_on: Option<&str>| {
            let mut results = crate::fixture_files();
            results.contract_cost.push(schema::ContractCostRow {
                workload: "uniform".to_owned(),
                native: "nexus-timer-native".to_owned(),
                contract: "nexus-timer".to_owned(),
                ..Default::default()
            });
            if let Some(workload) = drop_on {
                results
                    .throughput
                    .retain(|r| !(r.algorithm == "nexus-timer" && r.workload == workload));
            }
            crate::model::Model::new(results)
        };
        // Run on every workload: nothing to say.
        assert_eq!(sampled_note(&with_cost(None)), None);
        let note = sampled_note(&with_cost(Some("sparse"))).expect("a note");
        assert!(
            note.starts_with("The crate adapters (`nexus-timer`) ran on 9 of the 10 workloads"),
            "{note}"
        );
        assert!(note.contains("harness/src/sampled.rs"), "{note}");
        // An adapter without a native row is ranked as itself: no note.
        assert_eq!(sampled_note(&crate::fixture_model()), None);
    }

    #[test]
    fn the_counted_build_is_named_when_it_is_not_the_runs() {
        let build = |commit: &str, dirty| crate::input::CountsBuild {
            git_commit: commit.to_owned(),
            git_dirty: dirty,
        };
        let same = counted_build(&build("71e6281046", false), "71e6281046");
        assert_eq!(
            same,
            "Counted from the build of the timed run's commit, 71e6281."
        );
        let other = counted_build(&build("71e6281046", true), "9589188eb4");
        assert!(other.starts_with(
            "Counted from the build of commit 71e6281 (with uncommitted changes) (`counts.json`), \
             not the timed run's 9589188:"
        ));
    }

    #[test]
    fn anchors_are_plain() {
        assert_eq!(
            anchor("Summary: who wins each workload"),
            "summary-who-wins-each-workload"
        );
        assert_eq!(
            anchor("Memory per pending timer"),
            "memory-per-pending-timer"
        );
    }

    #[test]
    fn page_and_markdown_share_the_sections() {
        let model = crate::fixture_model();
        let charts = crate::charts::all_charts(&model).unwrap();
        let html = html(&model, &charts, "odd--dir");
        let markdown = markdown(&model, &charts, "results");
        for section in sections(&model, &charts) {
            assert!(html.contains(&format!("id=\"{}\"", anchor(&section.title))));
            assert!(markdown.contains(&format!("## {}", section.title)));
        }
        // The page is well-formed enough to parse as XML once the doctype is dropped.
        let body = html.split_once('\n').unwrap().1;
        roxmltree::Document::parse(body).expect("index.html parses as XML");
        assert!(
            !markdown.contains(PARAMETERS_TITLE),
            "no sweeps, no parameters section"
        );
    }

    #[test]
    fn sweeps_add_the_parameters_section_last() {
        let model = crate::fixture_sweep_model();
        let charts = crate::charts::all_charts(&model).unwrap();
        let sections = sections(&model, &charts);
        let last = sections.last().unwrap();
        assert_eq!(last.title, PARAMETERS_TITLE);
        // Per sweep: a sentence, the chart, and the table; one sweep has a
        // skipped point, listed under its chart.
        let count = |f: fn(&Part) -> bool| last.parts.iter().filter(|p| f(p)).count();
        assert_eq!(count(|p| matches!(p, Part::Chart(_))), 2);
        assert_eq!(count(|p| matches!(p, Part::Table(_))), 2);
        assert_eq!(count(|p| matches!(p, Part::Text(_))), 1 + 2 + 1);
        let html = html(&model, &charts, "results");
        roxmltree::Document::parse(html.split_once('\n').unwrap().1)
            .expect("index.html parses as XML");
    }
}
