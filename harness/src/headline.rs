//! The README's headline and findings, generated from a recorded run
//! (`make docs` writes them from `results/`; `harness/tests/docs.rs` fails
//! when the README's blocks differ from what the committed run gives).
//!
//! The headline answers "which timer, where, by how much": per workload, the
//! fastest exact design of this suite (families `seed` and `modern`, at its
//! defaults), its whole-pass median with its interval, its lead over the best
//! crate driven through its own API and over the best standard-library
//! baseline (each the rival's time over the design's, paired by repetition
//! and judged by the one rule of [`crate::judge`], `timerbench compare --lead`),
//! and the fastest inexact design with the largest lateness it showed there.
//! A design the rule does not call faster than the next exact design is said
//! to be tied with it: a tie is a tie, and the table names both.
//!
//! The findings are at most [`MAX_FINDINGS`] sentences, each computed from the
//! same files: a sentence whose inputs the run lacks is left out, never
//! guessed. Nothing here measures; the same files always give the same text.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, bail};
use schema::{
    AlgorithmEntry, ContractCostRow, Metadata, OPERATION_ALL, PASS_WHOLE, PredictionRow, RunFiles,
    RunRow, STATUS_OK, ThreadedRow, ThroughputRow,
};

use crate::judge::Verdict;
use crate::judge::lead::{self as judged, Rival};

/// One lead as the headline quotes it: the rival's time over the design's
/// (above 1: the design is faster), with its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Lead {
    /// The workload.
    pub workload: String,
    /// Which rival.
    pub rival: Rival,
    /// The rival's name.
    pub rival_name: String,
    /// The rival's time over the design's.
    pub ratio: f64,
    /// The interval of `ratio`, when there were enough repetitions.
    pub interval: Option<(f64, f64)>,
    /// The one rule's verdict on the design against the rival.
    pub verdict: Verdict,
}

impl Lead {
    /// The headline's view of a lead of `timerbench compare --lead`.
    fn of(lead: judged::Lead) -> Self {
        let quoted = lead.lead();
        Lead {
            workload: lead.line.workload,
            rival: lead.rival,
            rival_name: lead.rival_name,
            ratio: quoted.ratio,
            interval: quoted.interval,
            verdict: lead.line.judgement.verdict,
        }
    }
}

/// The line that opens the headline block.
pub const HEADLINE_BEGIN: &str =
    "<!-- headline: generated from results/ by `make docs`; do not edit by hand -->";
/// The line that closes it.
pub const HEADLINE_END: &str = "<!-- headline: end -->";
/// The line that opens the findings block.
pub const FINDINGS_BEGIN: &str =
    "<!-- findings: generated from results/ by `make docs`; do not edit by hand -->";
/// The line that closes it.
pub const FINDINGS_END: &str = "<!-- findings: end -->";

/// The most findings the README states (the issue that shaped the README
/// asked for at most eight: a reader takes them in at a glance).
pub const MAX_FINDINGS: usize = 10;

/// The scaling workloads, smallest population first: the growth finding
/// compares the first and last the run measured.
const SCALING_WORKLOADS: [&str; 4] = ["scaling-1e3", "scaling-1e4", "scaling-1e5", "scaling-1e6"];

/// One workload's line of the headline.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadLine {
    /// The workload.
    pub workload: String,
    /// The fastest exact design.
    pub design: String,
    /// Its whole-pass median, ns per operation.
    pub ns: f64,
    /// The median's interval, when the run recorded one.
    pub interval: Option<(f64, f64)>,
    /// Its leads (over the best crate, baseline and next exact design).
    pub leads: Vec<Lead>,
    /// The fastest inexact design on the workload, if any ran.
    pub inexact: Option<Inexact>,
}

/// The fastest inexact design on a workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Inexact {
    /// Its name.
    pub name: String,
    /// Its whole-pass median, ns per operation.
    pub ns: f64,
    /// The most ticks late it fired a timer there (`runs.csv`'s
    /// `max_lateness_ticks`), when recorded.
    pub late: Option<u64>,
}

impl WorkloadLine {
    /// The lead over one rival, if the run had one.
    pub fn lead(&self, rival: Rival) -> Option<&Lead> {
        self.leads.iter().find(|lead| lead.rival == rival)
    }

    /// Whether the next exact design is statistically tied with the fastest.
    pub fn tied_with_next(&self) -> bool {
        self.lead(Rival::Exact)
            .is_some_and(|lead| lead.verdict != Verdict::Faster)
    }
}

/// Everything the two blocks are made from.
struct Run {
    facts: Metadata,
    medians: BTreeMap<(String, String), f64>,
    intervals: BTreeMap<(String, String), (f64, f64)>,
    runs: Vec<RunRow>,
    contract: Vec<ContractCostRow>,
    predictions: Vec<PredictionRow>,
    /// The threaded mode's rows (`threaded.csv`; empty without it).
    threaded: Vec<ThreadedRow>,
}

impl Run {
    /// Reads the run in `dir` through the one reader of recorded runs.
    fn read(dir: &Path) -> Result<Run> {
        let files = RunFiles::read(dir)?;
        let key = |row: &ThroughputRow| (row.algorithm.clone(), row.workload.clone());
        let headline: Vec<&ThroughputRow> = files
            .throughput()?
            .iter()
            .filter(|row| row.operation == OPERATION_ALL && row.method == PASS_WHOLE)
            .collect();
        let medians = headline
            .iter()
            .filter_map(|row| Some((key(row), row.median_ns?)))
            .filter(|(_, ns)| ns.is_finite() && *ns > 0.0)
            .collect();
        let intervals = headline
            .iter()
            .filter_map(|row| Some((key(row), row.interval()?)))
            .collect();
        let runs = files.runs()?.to_vec();
        // The reader has held `threaded.csv` to the run and its settings.
        let threaded = files.threaded.clone();
        Ok(Run {
            threaded,
            medians,
            intervals,
            runs,
            contract: files.contract_cost.clone(),
            predictions: files.predictions.clone(),
            facts: files.metadata,
        })
    }

    fn algorithm(&self, name: &str) -> Option<&AlgorithmEntry> {
        self.facts.algorithms.iter().find(|a| a.name == name)
    }

    fn run_row(&self, algorithm: &str, workload: &str) -> Option<&RunRow> {
        self.runs.iter().find(|row| {
            row.algorithm == algorithm && row.workload == workload && row.status == STATUS_OK
        })
    }

    /// The fastest row on `workload` among the algorithms `admit` accepts.
    fn fastest(
        &self,
        workload: &str,
        admit: impl Fn(&AlgorithmEntry) -> bool,
    ) -> Option<(&str, f64)> {
        self.facts
            .algorithms
            .iter()
            .filter(|a| !a.variant && admit(a))
            .filter_map(|a| {
                let ns = *self.medians.get(&(a.name.clone(), workload.to_owned()))?;
                Some((a.name.as_str(), ns))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// Whether an algorithm is one of this suite's designs (not a crate or a
/// standard-library baseline).
fn is_design(algorithm: &AlgorithmEntry) -> bool {
    algorithm.family == "seed" || algorithm.family == "modern"
}

/// The headline's lines, one per workload of the run (in its order) on which
/// some exact design was measured.
pub fn workload_lines(dir: &Path) -> Result<Vec<WorkloadLine>> {
    let run = Run::read(dir)?;
    lines_of(dir, &run)
}

fn lines_of(dir: &Path, run: &Run) -> Result<Vec<WorkloadLine>> {
    let mut leads_by_row: BTreeMap<String, Vec<Lead>> = BTreeMap::new();
    let mut lines = Vec::new();
    for workload in &run.facts.workloads {
        let Some((design, ns)) = run.fastest(workload, |a| a.exact && is_design(a)) else {
            continue;
        };
        if !leads_by_row.contains_key(design) {
            let leads = judged::leads(dir, design)?
                .into_iter()
                .map(Lead::of)
                .collect();
            leads_by_row.insert(design.to_owned(), leads);
        }
        let leads = leads_by_row[design]
            .iter()
            .filter(|lead| &lead.workload == workload)
            .cloned()
            .collect();
        let inexact = run
            .fastest(workload, |a| !a.exact)
            .map(|(name, ns)| Inexact {
                name: name.to_owned(),
                ns,
                late: run
                    .run_row(name, workload)
                    .and_then(|row| row.max_lateness_ticks),
            });
        lines.push(WorkloadLine {
            workload: workload.clone(),
            design: design.to_owned(),
            ns,
            interval: run
                .intervals
                .get(&(design.to_owned(), workload.clone()))
                .copied(),
            leads,
            inexact,
        });
    }
    if lines.is_empty() {
        bail!(
            "{} holds no measured exact design: nothing to put in a headline",
            dir.display()
        );
    }
    Ok(lines)
}

/// A median to three significant figures (two decimals below 10 ns).
pub fn ns(value: f64) -> String {
    if value < 10.0 {
        format!("{value:.2}")
    } else if value < 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    }
}

/// A median with its interval, e.g. `28.1 [26.4, 28.3]`.
pub fn ns_with_interval(value: f64, interval: Option<(f64, f64)>) -> String {
    match interval {
        Some((low, high)) => format!("{} [{}, {}]", ns(value), ns(low), ns(high)),
        None => ns(value),
    }
}

/// A ratio with its interval, e.g. `1.62x [1.55, 1.70]`.
pub fn ratio(value: f64, interval: Option<(f64, f64)>) -> String {
    match interval {
        Some((low, high)) => format!("{value:.2}x [{low:.2}, {high:.2}]"),
        None => format!("{value:.2}x"),
    }
}

/// A count with thousands separators, e.g. `4,096`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn lead_cell(line: &WorkloadLine, rival: Rival) -> String {
    match line.lead(rival) {
        Some(lead) => format!(
            "{} over `{}`",
            ratio(lead.ratio, lead.interval),
            lead.rival_name
        ),
        None => "-".to_owned(),
    }
}

/// The headline block, markers included.
pub fn headline_block(dir: &Path) -> Result<String> {
    let run = Run::read(dir)?;
    let lines = lines_of(dir, &run)?;
    let facts = &run.facts;
    // The heavy cells ran fewer whole passes: said, so that "every" is true.
    let fewer: Vec<u64> = run
        .runs
        .iter()
        .filter(|row| row.is_ok())
        .filter_map(|row| row.repetitions.filter(|&n| n < facts.repetitions))
        .collect();
    let heavy = match fewer.iter().max() {
        Some(most) => format!(
            " ({} for {} cells many times slower than the best, whose medians stand without an interval)",
            most,
            fewer.len()
        ),
        None => String::new(),
    };
    let mut text = format!(
        "{HEADLINE_BEGIN}\nThe committed reference run: scale `{}`, seed `{:#x}`, {} interleaved repetitions of every whole \
         pass{heavy}, on {} ({}), measuring for {:.0} minutes. ns/op is the whole-pass median per insert, cancel or reschedule, \
         advances included, with its 95% interval; a lead is the rival's time over the design's.\n\n\
         | workload | fastest exact design | ns/op | lead over the best crate | lead over the best std baseline | \
         fastest inexact: ns/op, most ticks late |\n|---|---|---|---|---|---|\n",
        facts.scale,
        facts.seed,
        facts.repetitions,
        if facts.cpu_model.is_empty() {
            "an unnamed CPU"
        } else {
            &facts.cpu_model
        },
        facts.date_utc.get(..10).unwrap_or("undated"),
        facts.wall_seconds / 60.0,
    );
    for line in &lines {
        let design = if line.tied_with_next() {
            let next = line
                .lead(Rival::Exact)
                .map(|l| l.rival_name.as_str())
                .unwrap_or("?");
            format!("`{}` (tied with `{next}`)", line.design)
        } else {
            format!("`{}`", line.design)
        };
        let inexact = match &line.inexact {
            Some(inexact) => format!(
                "`{}`: {}, {}",
                inexact.name,
                ns(inexact.ns),
                inexact.late.map_or("-".to_owned(), thousands)
            ),
            None => "-".to_owned(),
        };
        text += &format!(
            "| `{}` | {design} | {} | {} | {} | {inexact} |\n",
            line.workload,
            ns_with_interval(line.ns, line.interval),
            lead_cell(line, Rival::Crate),
            lead_cell(line, Rival::Baseline),
        );
    }
    Ok(text + HEADLINE_END)
}

/// The findings block, markers included.
pub fn findings_block(dir: &Path) -> Result<String> {
    let run = Run::read(dir)?;
    let lines = lines_of(dir, &run)?;
    let findings = findings(&run, &lines);
    let mut text = format!("{FINDINGS_BEGIN}\n");
    for finding in findings.iter().take(MAX_FINDINGS) {
        text += &format!("- {finding}\n");
    }
    Ok(text + FINDINGS_END)
}

/// The smallest prediction the findings set beside a count: below it a
/// Poisson count's own noise is several percent.
const MIN_PREDICTED: f64 = 1_000.0;

/// The prediction farthest from its count, and how many were compared.
struct WorstPrediction<'a> {
    row: &'a PredictionRow,
    ratio: f64,
    compared: usize,
}

/// Among the predictions of at least [`MIN_PREDICTED`] whose row counted
/// the counter, the one whose count over prediction lies farthest from 1
/// (by the size of its logarithm); `None` when there is none (a run made
/// before predictions, or one with no closed-form workload).
fn worst_prediction<'a>(
    runs: &[RunRow],
    predictions: &'a [PredictionRow],
) -> Option<WorstPrediction<'a>> {
    let ratios: Vec<(&PredictionRow, f64)> = predictions
        .iter()
        .filter_map(|row| {
            let predicted = row.predicted.filter(|p| *p >= MIN_PREDICTED)?;
            let run = runs
                .iter()
                .find(|r| r.algorithm == row.algorithm && r.workload == row.workload)?;
            Some((row, run.counter(&row.counter)? as f64 / predicted))
        })
        .collect();
    let (row, ratio) = ratios
        .iter()
        .max_by(|a, b| a.1.ln().abs().total_cmp(&b.1.ln().abs()))?;
    Some(WorstPrediction {
        row,
        ratio: *ratio,
        compared: ratios.len(),
    })
}

/// The extreme (smallest, largest) of `items` by `key`.
fn extremes<T, K: Fn(&T) -> f64>(items: &[T], key: K) -> Option<(&T, &T)> {
    let low = items.iter().min_by(|a, b| key(a).total_cmp(&key(b)))?;
    let high = items.iter().max_by(|a, b| key(a).total_cmp(&key(b)))?;
    Some((low, high))
}

/// The sharing the threaded finding reads: the timer on a thread of its own
/// behind one lock, as Kafka's reaper and the JDK's executor keep it.
const THREADED_SHARING: &str = "locked";

/// The producers the threaded finding reads: one, so that the figures are
/// the timer thread's and not contention's.
const THREADED_PRODUCERS: u32 = 1;

/// The median of `values`; `None` when empty or not finite.
fn median(values: &[f64]) -> Option<f64> {
    crate::stats::summarise(values).map(|s| s.median)
}

/// One row of the threaded finding: medians over a cell's repetitions.
struct Waking<'a> {
    algorithm: &'a str,
    per_second: f64,
    empty_share: f64,
    late_ms: f64,
}

/// What only a timer on its own thread shows: how often that thread wakes
/// against the wall clock, how many of its wakeups fire nothing, and how late
/// its timers fire, on the first workload the threaded mode ran (paced, under
/// [`THREADED_SHARING`] with [`THREADED_PRODUCERS`]): the row that wakes most
/// beside the one that wakes least, and the median lateness from the least
/// late row to the most. `None` without such rows.
fn threaded_finding(rows: &[ThreadedRow]) -> Option<String> {
    let paced = |row: &&ThreadedRow| {
        row.is_ok()
            && !row.saturated
            && row.sharing == THREADED_SHARING
            && row.producers == THREADED_PRODUCERS
    };
    let first = rows.iter().find(paced)?;
    let mut cells: BTreeMap<&str, Vec<&ThreadedRow>> = BTreeMap::new();
    for row in rows
        .iter()
        .filter(paced)
        .filter(|r| r.workload == first.workload)
    {
        cells.entry(row.algorithm.as_str()).or_default().push(row);
    }
    let wakings: Vec<Waking<'_>> = cells
        .iter()
        .filter_map(|(algorithm, reps)| {
            let wakeups: u64 = reps.iter().map(|r| r.wakeups).sum();
            let empty: u64 = reps.iter().map(|r| r.empty_wakeups).sum();
            Some(Waking {
                algorithm,
                per_second: median(&reps.iter().map(|r| r.wakeups_per_s).collect::<Vec<_>>())?,
                empty_share: if wakeups == 0 {
                    0.0
                } else {
                    empty as f64 / wakeups as f64
                },
                late_ms: median(
                    &reps
                        .iter()
                        .map(|r| r.late_p50_ns as f64)
                        .collect::<Vec<_>>(),
                )? / 1e6,
            })
        })
        .collect();
    let (least, most) = extremes(&wakings, |w| w.per_second)?;
    let (earliest, latest) = extremes(&wakings, |w| w.late_ms)?;
    Some(format!(
        "With the timer on a thread of its own (`{THREADED_SHARING}`, one producer, `{}` at {}x real \
         time), `{}` wakes {} times a second, {:.0}% of them to fire nothing, and `{}` {}; the \
         median timer fires {} ms after its deadline under `{}` to {} ms under `{}`.",
        first.workload,
        first.speedup,
        most.algorithm,
        thousands(most.per_second.round() as u64),
        most.empty_share * 100.0,
        least.algorithm,
        thousands(least.per_second.round() as u64),
        ns(earliest.late_ms),
        earliest.algorithm,
        ns(latest.late_ms),
        latest.algorithm
    ))
}

/// The fastest exact design on each real kernel trace of the run, and on
/// the synthetic workload each resembles (its twin), the traces grouped by
/// twin; `None` without real traces.
fn real_against_synthetic(lines: &[WorkloadLine]) -> Option<String> {
    let mut groups: Vec<(&str, Vec<&WorkloadLine>)> = Vec::new();
    for line in lines {
        let Some(real) = workloads::real_trace(&line.workload) else {
            continue;
        };
        match groups.iter_mut().find(|(twin, _)| *twin == real.resembles) {
            Some((_, group)) => group.push(line),
            None => groups.push((real.resembles, vec![line])),
        }
    }
    if groups.is_empty() {
        return None;
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(twin_name, group)| {
            let each: Vec<String> = group
                .iter()
                .map(|l| {
                    format!(
                        "`{}` on `{}` ({} ns/op{})",
                        l.design,
                        l.workload,
                        ns(l.ns),
                        if l.tied_with_next() { ", tied" } else { "" }
                    )
                })
                .collect();
            let they = if group.len() > 1 { "they" } else { "it" };
            let twin = lines.iter().find(|l| l.workload == *twin_name).map_or_else(
                || format!("`{twin_name}` was not run"),
                |t| {
                    format!(
                        "on `{twin_name}`, the synthetic workload {they} resemble{}, `{}`",
                        if group.len() > 1 { "" } else { "s" },
                        t.design
                    )
                },
            );
            format!("{}; {twin}", each.join(", "))
        })
        .collect();
    Some(format!(
        "On the timers this machine's kernel really ran (the `real-` traces, small: read their \
         intervals) the fastest exact design is {}.",
        parts.join("; and ")
    ))
}

fn findings(run: &Run, lines: &[WorkloadLine]) -> Vec<String> {
    let mut out = Vec::new();
    let total = lines.len();

    // Who wins most often among exact designs.
    let mut wins: BTreeMap<&str, usize> = BTreeMap::new();
    for line in lines {
        *wins.entry(line.design.as_str()).or_default() += 1;
    }
    if let Some((leader, count)) = wins.iter().max_by_key(|(name, count)| (**count, *name)) {
        let tied = lines
            .iter()
            .filter(|l| l.design == *leader && l.tied_with_next())
            .count();
        out.push(format!(
            "**`{leader}` is the fastest exact design on {count} of {total} workloads**{}.",
            if tied > 0 {
                format!(", tied with the next exact design on {tied} of them")
            } else {
                ", ahead of the next exact design on every one of them".to_owned()
            }
        ));
    }

    // The leads over the best crate and the best baseline, as ranges.
    for (rival, what) in [
        (Rival::Crate, "the best crate driven through its own API"),
        (Rival::Baseline, "the best standard-library baseline"),
    ] {
        let leads: Vec<&Lead> = lines.iter().filter_map(|l| l.lead(rival)).collect();
        if let Some((low, high)) = extremes(&leads, |lead| lead.ratio) {
            out.push(format!(
                "Over {what}, the fastest exact design leads by {} on `{}` (over `{}`) to {} on `{}` (over `{}`).",
                ratio(low.ratio, low.interval),
                low.workload,
                low.rival_name,
                ratio(high.ratio, high.interval),
                high.workload,
                high.rival_name
            ));
        }
    }

    // Where giving up exactness buys time, and how much lateness it costs.
    let faster: Vec<(&WorkloadLine, &Inexact)> = lines
        .iter()
        .filter_map(|l| l.inexact.as_ref().map(|i| (l, i)))
        .filter(|(line, inexact)| inexact.ns < line.ns)
        .collect();
    if faster.is_empty() {
        out.push(format!(
            "No inexact design (one that fires late within a declared bound) beats the fastest exact one on any of \
             the {total} workloads."
        ));
    } else {
        let (line, inexact) = faster
            .iter()
            .max_by(|a, b| (a.0.ns / a.1.ns).total_cmp(&(b.0.ns / b.1.ns)))
            .expect("not empty");
        out.push(format!(
            "An inexact design beats every exact one on {} of {total} workloads; the widest margin is `{}` on `{}`, \
             {} against {} ns/op, firing up to {} ticks late.",
            faster.len(),
            inexact.name,
            line.workload,
            ns(inexact.ns),
            ns(line.ns),
            inexact.late.map_or("an unknown number of".to_owned(), thousands)
        ));
    }

    if let Some(real) = real_against_synthetic(lines) {
        out.push(real);
    }
    if let Some(threaded) = threaded_finding(&run.threaded) {
        out.push(threaded);
    }

    // Growth with the pending population.
    let scaling: Vec<&str> = SCALING_WORKLOADS
        .iter()
        .copied()
        .filter(|w| lines.iter().any(|l| l.workload == *w))
        .collect();
    if let (Some(first), Some(last)) = (scaling.first(), scaling.last())
        && first != last
    {
        let growth = |name: &str| {
            let a = run.medians.get(&(name.to_owned(), (*first).to_owned()))?;
            let b = run.medians.get(&(name.to_owned(), (*last).to_owned()))?;
            Some(b / a)
        };
        let winner = &lines
            .iter()
            .find(|l| l.workload == *last)
            .expect("listed")
            .design;
        let heap = "binary-heap";
        if let (Some(w), Some(h)) = (growth(winner), growth(heap)) {
            out.push(format!(
                "From `{first}` to `{last}` (a thousand times the pending timers) `{winner}`'s cost per operation \
                 grows {w:.2}x and `{heap}`'s {h:.2}x."
            ));
        }
    }

    // Empty ticks: the largest share of wasted visits per operation.
    let wasted = run
        .runs
        .iter()
        .filter(|row| row.status == STATUS_OK)
        .filter(|row| run.algorithm(&row.algorithm).is_some_and(|a| !a.variant))
        .filter_map(|row| {
            let empty = row.empty_slot_visits?;
            let ops = Some(row.measured_ops).filter(|ops| *ops > 0)?;
            Some((row, empty as f64 / ops as f64))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((row, per_op)) = wasted
        && per_op >= 1.0
    {
        let visits = row.slot_visits.unwrap_or(0);
        let fastest = lines.iter().find(|l| l.workload == row.workload);
        let wakeups = fastest
            .and_then(|l| run.run_row(&l.design, &row.workload))
            .and_then(|r| r.wakeups);
        let mut sentence = format!(
            "Empty ticks are real: on `{}`, `{}` visits {} slots, {} of them empty ({per_op:.0} per operation)",
            row.workload,
            row.algorithm,
            thousands(visits),
            thousands(row.empty_slot_visits.unwrap_or(0)),
        );
        if let (Some(line), Some(wakeups)) = (fastest, wakeups) {
            sentence += &format!(
                ", while `{}` wakes {} times",
                line.design,
                thousands(wakeups)
            );
        }
        out.push(sentence + ".");
    }

    // The closed forms against the counts: the farthest ratio.
    if let Some(worst) = worst_prediction(&run.runs, &run.predictions) {
        out.push(format!(
            "Varghese & Lauck's closed forms hold: over {} predicted counters (rounds, cascades, insert steps, empty \
             ticks, visits; each of at least {} expected), the farthest count from its prediction is `{}`'s `{}` on \
             `{}`, {:.3} times the {} predicted.",
            worst.compared,
            thousands(MIN_PREDICTED as u64),
            worst.row.algorithm,
            worst.row.counter,
            worst.row.workload,
            worst.ratio,
            thousands(worst.row.predicted.unwrap_or(0.0).round() as u64),
        ));
    }

    // What the contract costs the crates.
    if let Some((low, high)) = extremes(&run.contract, |row| row.ratio) {
        out.push(format!(
            "Behind this suite's contract (stale-safe handles, batches in deadline order) a crate or baseline takes \
             from {:.2}x its native time (`{}` on `{}`) to {:.2}x (`{}` on `{}`).",
            low.ratio,
            low.contract,
            low.workload,
            high.ratio,
            high.contract,
            high.workload
        ));
    }

    // Memory per pending timer on the first workload.
    if let Some(first) = lines.first() {
        let rows: Vec<&RunRow> = run
            .runs
            .iter()
            .filter(|r| r.workload == first.workload && r.status == STATUS_OK)
            .filter(|r| run.algorithm(&r.algorithm).is_some_and(|a| !a.variant))
            .filter(|r| {
                r.bytes_per_pending
                    .is_some_and(|b| b.is_finite() && b > 0.0)
            })
            .collect();
        if let Some((low, high)) = extremes(&rows, |r| r.bytes_per_pending.unwrap_or(0.0)) {
            out.push(format!(
                "Memory at the peak of `{}`: from {:.0} bytes per pending timer (`{}`) to {:.0} (`{}`).",
                first.workload,
                low.bytes_per_pending.unwrap_or(0.0),
                low.algorithm,
                high.bytes_per_pending.unwrap_or(0.0),
                high.algorithm
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_prediction_is_the_farthest_ratio_of_those_large_enough() {
        let run = |algorithm: &str, cascades: u64| RunRow {
            algorithm: algorithm.to_owned(),
            workload: "w".to_owned(),
            cascades: Some(cascades),
            ..RunRow::default()
        };
        let predicted = |algorithm: &str, value: f64| PredictionRow {
            workload: "w".to_owned(),
            algorithm: algorithm.to_owned(),
            counter: "cascades".to_owned(),
            predicted: Some(value),
            ..PredictionRow::default()
        };
        let runs = [run("a", 10_100), run("b", 9_800), run("c", 50)];
        let predictions = [
            predicted("a", 10_000.0),
            predicted("b", 10_000.0),
            // Too small to judge, however far.
            predicted("c", 100.0),
            // No row measured it.
            predicted("d", 10_000.0),
        ];
        let worst = worst_prediction(&runs, &predictions).unwrap();
        assert_eq!(worst.row.algorithm, "b");
        assert!((worst.ratio - 0.98).abs() < 1e-12);
        assert_eq!(worst.compared, 2);
        assert!(
            worst_prediction(&runs, &[]).is_none(),
            "no predictions: no finding"
        );
    }

    #[test]
    fn figures_are_rounded_to_about_three_digits() {
        assert_eq!(ns(7.304), "7.30");
        assert_eq!(ns(28.14), "28.1");
        assert_eq!(ns(125.2), "125");
        assert_eq!(ratio(1.6234, Some((1.55, 1.7))), "1.62x [1.55, 1.70]");
        assert_eq!(ratio(2.0, None), "2.00x");
        assert_eq!(
            ns_with_interval(28.14, Some((26.4, 28.3))),
            "28.1 [26.4, 28.3]"
        );
    }

    #[test]
    fn counts_get_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(4096), "4,096");
        assert_eq!(thousands(10_000_000), "10,000,000");
    }

    #[test]
    fn a_design_the_rule_does_not_call_faster_is_tied() {
        let lead = |verdict| Lead {
            workload: "w".into(),
            rival: Rival::Exact,
            rival_name: "next".into(),
            ratio: 1.1,
            interval: None,
            verdict,
        };
        let mut line = WorkloadLine {
            workload: "w".into(),
            design: "d".into(),
            ns: 1.0,
            interval: None,
            leads: vec![lead(Verdict::NoChange)],
            inexact: None,
        };
        assert!(line.tied_with_next());
        line.leads = vec![lead(Verdict::Faster)];
        assert!(!line.tied_with_next());
        line.leads = vec![lead(Verdict::CannotTell)];
        assert!(line.tied_with_next());
    }

    #[test]
    fn the_threaded_finding_sets_the_most_waking_row_beside_the_least() {
        let row = |algorithm: &str, rep, per_second, late_ns, sharing: &str| ThreadedRow {
            algorithm: algorithm.into(),
            workload: "timeouts".into(),
            sharing: sharing.into(),
            producers: 1,
            repetition: rep,
            speedup: 10,
            status: STATUS_OK.into(),
            wakeups: 100,
            empty_wakeups: 90,
            wakeups_per_s: per_second,
            late_p50_ns: late_ns,
            ..ThreadedRow::default()
        };
        assert_eq!(threaded_finding(&[]), None);
        let rows = [
            row("ticked", 0, 9_000.0, 100_000, "locked"),
            row("ticked", 1, 9_200.0, 300_000, "locked"),
            row("kafka", 0, 120.0, 200_000, "locked"),
            row("coarse", 0, 100.0, 5_400_000, "locked"),
            row("coarse", 0, 1.0, 9_900_000_000, "handoff"),
        ];
        assert_eq!(
            threaded_finding(&rows).as_deref(),
            Some(
                "With the timer on a thread of its own (`locked`, one producer, `timeouts` at 10x \
                 real time), `ticked` wakes 9,100 times a second, 90% of them to fire nothing, and \
                 `coarse` 100; the median timer fires 0.20 ms after its deadline under `kafka` to \
                 5.40 ms under `coarse`."
            )
        );
    }

    #[test]
    fn the_real_traces_are_set_beside_the_workload_they_resemble() {
        let line = |workload: &str, design: &str| WorkloadLine {
            workload: workload.into(),
            design: design.into(),
            ns: 12.0,
            interval: None,
            leads: Vec::new(),
            inexact: None,
        };
        assert_eq!(real_against_synthetic(&[line("uniform", "a")]), None);
        let twin = workloads::REAL_TRACES[0].resembles;
        let found =
            real_against_synthetic(&[line(twin, "b"), line(workloads::REAL_TRACES[0].name, "a")])
                .expect("a finding");
        assert!(
            found.contains(&format!(
                "`a` on `{}` (12.0 ns/op)",
                workloads::REAL_TRACES[0].name
            )),
            "{found}"
        );
        assert!(
            found.ends_with(&format!(
                "on `{twin}`, the synthetic workload it resembles, `b`."
            )),
            "{found}"
        );
        // Traces of different twins are each set beside their own.
        let hrtimer = workloads::REAL_TRACES
            .iter()
            .find(|real| real.resembles != twin)
            .expect("a trace of another twin");
        let found = real_against_synthetic(&[
            line(twin, "b"),
            line(hrtimer.resembles, "c"),
            line(workloads::REAL_TRACES[0].name, "a"),
            line(hrtimer.name, "d"),
        ])
        .expect("a finding");
        assert!(
            found.contains(&format!(
                "; on `{twin}`, the synthetic workload it resembles, `b`; and `d` on `{}`",
                hrtimer.name
            )),
            "{found}"
        );
        assert!(
            found.ends_with(&format!(
                "on `{}`, the synthetic workload it resembles, `c`.",
                hrtimer.resembles
            )),
            "{found}"
        );
    }
}
