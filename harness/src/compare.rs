//! Two recorded runs side by side: `timerbench agreement` (are two runs of
//! the same code reproducible?) and `timerbench compare` (did a change make a
//! difference?).
//!
//! **Agreement**: for every (algorithm, workload) both measured, is the second
//! run's headline median inside the first run's interval, or within
//! [`AGREEMENT_TOLERANCE`] of its median? This is the reproducibility check
//! `docs/methodology.md` describes (`timerbench agreement BASE NEW`): two default runs of the
//! same commit on a quiet machine should agree on at least 90% of cells. It
//! uses the `all` rows of each run's `throughput.csv`, and refuses runs that
//! are not comparable (another seed, scale or driver).
//!
//! **Compare**: for every cell both runs measured, the change of the headline
//! (NEW's median over BASE's) with a percentile-bootstrap interval over the
//! two cells' whole-pass repetitions (`repetitions.csv`, the method of
//! `timerbench lead`), and a verdict in the manner of criterion's: *faster* or
//! *slower* only when the whole interval lies beyond the noise band
//! ([`NOISE_THRESHOLD`] by default, `--noise`), else *no significant change*.
//! The band is wider than criterion's 1% because the runs compared here are
//! separate processes, often minutes apart on a shared VM, and drift between
//! runs is larger than the spread within one (`docs/methodology.md`, "What the
//! machine does to the numbers"). Runs with another seed, scale, driver or workload generator, or a
//! workload of the same name whose operations differ, are refused with the
//! reason; runs from different machines, compilers or profiles, or with
//! uncommitted changes, are compared with a warning.
//!
//! Both read each run whole through the `schema` crate's reader, which
//! refuses a directory whose files are not one whole run, with the file and
//! line at fault.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, bail};
use schema::{
    ComparisonRow, Metadata, OPERATION_ALL, RunFiles, RunRow, SCHEMA_VERSION, ThroughputRow,
};

use crate::failure::Failure;
use crate::recorded::whole_pass_times;
use crate::replay::{mix, name_hash};
use crate::stats;

/// How far a median may stray from the other run's and still agree, when it is
/// outside that run's interval.
pub const AGREEMENT_TOLERANCE: f64 = 0.10;

/// One cell's agreement.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// The algorithm.
    pub algorithm: String,
    /// The workload.
    pub workload: String,
    /// The first run's median and interval.
    pub base: (f64, f64, f64),
    /// The second run's median.
    pub new: f64,
    /// Whether they agree.
    pub agrees: bool,
}

/// Whether `new` agrees with a first run's `median` and interval `low..=high`.
pub fn agrees(median: f64, low: f64, high: f64, new: f64) -> bool {
    (low..=high).contains(&new) || (new / median - 1.0).abs() <= AGREEMENT_TOLERANCE
}

/// Every cell measured in both runs, with its agreement.
pub fn agreement(base: &Path, new: &Path) -> Result<Vec<Agreement>> {
    let (base_run, new_run) = (RunFiles::read(base)?, RunFiles::read(new)?);
    let (base_settings, new_settings) = (&base_run.metadata, &new_run.metadata);
    let settings = |m: &Metadata| (m.seed, m.scale.clone(), m.driver.clone());
    if settings(base_settings) != settings(new_settings) {
        bail!(
            "the runs are not comparable: {} has seed {}, scale {}, driver {}, and {} has seed {}, scale {}, driver {}",
            base.display(),
            base_settings.seed,
            base_settings.scale,
            base_settings.driver,
            new.display(),
            new_settings.seed,
            new_settings.scale,
            new_settings.driver
        );
    }
    let base_rows = headlines(base_run.throughput()?);
    let new_rows = headlines(new_run.throughput()?);
    let mut cells = Vec::new();
    for (key, &(median, low, high)) in &base_rows {
        if let Some(&(new_median, _, _)) = new_rows.get(key) {
            cells.push(Agreement {
                algorithm: key.0.clone(),
                workload: key.1.clone(),
                base: (median, low, high),
                new: new_median,
                agrees: agrees(median, low, high, new_median),
            });
        }
    }
    Ok(cells)
}

/// (algorithm, workload) -> (median, interval low, interval high).
type Headlines = BTreeMap<(String, String), (f64, f64, f64)>;

/// The `all` rows of a run's `throughput.csv` that have an interval.
fn headlines(throughput: &[ThroughputRow]) -> Headlines {
    let mut rows = BTreeMap::new();
    for row in throughput {
        if let (OPERATION_ALL, Some(median), Some(low), Some(high)) = (
            row.operation.as_str(),
            row.median_ns,
            row.ci_low_ns,
            row.ci_high_ns,
        ) {
            rows.insert(
                (row.algorithm.clone(), row.workload.clone()),
                (median, low, high),
            );
        }
    }
    rows
}

/// The default noise band of `timerbench compare`: a change is called only
/// when its whole interval lies beyond 5% either side of no change.
pub const NOISE_THRESHOLD: f64 = 0.05;

/// Fewer whole-pass repetitions than this on either side give no verdict: a
/// bootstrap over one or two values is no interval.
pub const MIN_REPETITIONS: usize = 3;

impl Comparison {
    /// The rows of `comparison.csv` for this comparison against `base`,
    /// judged with the noise band `noise`.
    pub fn rows(&self, base: &Path, noise: f64) -> Vec<ComparisonRow> {
        self.changes
            .iter()
            .map(|change| ComparisonRow {
                schema_version: SCHEMA_VERSION,
                base: base.display().to_string(),
                workload: change.workload.clone(),
                algorithm: change.algorithm.clone(),
                base_ns: change.base_ns,
                new_ns: change.new_ns,
                ratio: change.ratio,
                ratio_ci_low: change.interval.map(|(low, _)| low),
                ratio_ci_high: change.interval.map(|(_, high)| high),
                verdict: change.verdict.label().to_owned(),
                noise,
                normalised: self.normalised,
                shift: self.shift,
                run_id: self.run_id.clone().unwrap_or_default(),
            })
            .collect()
    }
}

/// Cells a comparison needs before it names a shift common to all of them.
pub const MIN_CELLS_FOR_SHIFT: usize = 8;

/// Steal time (seconds the hypervisor gave this guest's CPUs to others) above
/// which a run is said to have shared its CPUs.
const STEAL_WARNING_SECONDS: f64 = 1.0;

/// What a comparison says of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// NEW is faster: the whole interval of NEW / BASE is below `1 - noise`.
    Faster,
    /// NEW is slower: the whole interval is above `1 + noise`.
    Slower,
    /// The interval reaches into the noise band.
    NoChange,
    /// A side has fewer than [`MIN_REPETITIONS`] repetitions.
    TooFewRepetitions,
}

impl Verdict {
    /// The verdict as the table prints it.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no significant change",
            Verdict::TooFewRepetitions => "too few repetitions",
        }
    }
}

/// The verdict on a ratio NEW / BASE whose interval is `low..=high`, with a
/// noise band of `noise` either side of 1.
pub fn verdict((low, high): (f64, f64), noise: f64) -> Verdict {
    if high < 1.0 - noise {
        Verdict::Faster
    } else if low > 1.0 + noise {
        Verdict::Slower
    } else {
        Verdict::NoChange
    }
}

/// One cell of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The workload.
    pub workload: String,
    /// The algorithm.
    pub algorithm: String,
    /// BASE's headline median, ns per operation.
    pub base_ns: f64,
    /// NEW's headline median, ns per operation.
    pub new_ns: f64,
    /// `new_ns / base_ns`: below 1 when NEW is faster.
    pub ratio: f64,
    /// The bootstrap interval of `ratio` (`None` with too few repetitions).
    pub interval: Option<(f64, f64)>,
    /// What the interval says.
    pub verdict: Verdict,
}

/// Two runs compared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Facts worth knowing that do not cast doubt: the two commits.
    pub notes: Vec<String>,
    /// Differences that may explain a change other than the code's.
    pub warnings: Vec<String>,
    /// Every cell measured in both, by workload (in BASE's order), then
    /// algorithm (in BASE's order).
    pub changes: Vec<Change>,
    /// The median of every cell's ratio (with at least [`MIN_CELLS_FOR_SHIFT`]
    /// cells): the shift common to the whole run, which a change of the
    /// machine (its clock, its neighbours) gives and a change of one design
    /// does not.
    pub shift: Option<f64>,
    /// Whether each ratio was divided by [`Comparison::shift`] (`--normalise`).
    pub normalised: bool,
    /// Cells measured in BASE only (`algorithm on workload`).
    pub only_base: Vec<String>,
    /// Cells measured in NEW only.
    pub only_new: Vec<String>,
    /// NEW's run id, when it has one.
    pub run_id: Option<String>,
}

impl Comparison {
    /// How many cells have `verdict`.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.changes.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// A workload's tape as `runs.csv` describes it: measured operations, inserts,
/// cancels, reschedules and the largest pending population.
type Shape = [u64; 5];

/// Each workload's [`Shape`] in a run's `runs.csv` (from its first row).
fn workload_shapes(runs: &[RunRow]) -> BTreeMap<String, Shape> {
    let mut shapes = BTreeMap::new();
    for row in runs {
        let shape = [
            row.measured_ops,
            row.inserts,
            row.cancels,
            row.reschedules,
            row.max_pending,
        ];
        shapes.entry(row.workload.clone()).or_insert(shape);
    }
    shapes
}

/// A shape as the refusal prints it.
fn describe(shape: &Shape) -> String {
    format!(
        "{} measured operations, {} inserts, {} cancels, {} reschedules, {} pending at most",
        shape[0], shape[1], shape[2], shape[3], shape[4]
    )
}

/// Compares NEW with BASE, two results directories, with a noise band of
/// `noise` (a fraction, `0 <= noise < 1`).
pub fn compare(base: &Path, new: &Path, noise: f64, normalise: bool) -> Result<Comparison> {
    if !(0.0..1.0).contains(&noise) {
        bail!(
            "--noise {noise}: the noise band is a fraction from 0 (inclusive) to 1, such as 0.05"
        );
    }
    let (base_run, new_run) = (RunFiles::read(base)?, RunFiles::read(new)?);
    let (b, n) = (&base_run.metadata, &new_run.metadata);
    let generator = |m: &Metadata| {
        m.generator_version
            .map_or_else(|| "unknown".to_owned(), |v| v.to_string())
    };
    let mut refusals = Vec::new();
    for (what, x, y) in [
        ("seed", b.seed.to_string(), n.seed.to_string()),
        ("scale", b.scale.clone(), n.scale.clone()),
        ("driver", b.driver.clone(), n.driver.clone()),
        ("workload generator version", generator(b), generator(n)),
    ] {
        if x != y {
            refusals.push(format!("{what} {x} in BASE, {y} in NEW"));
        }
    }
    // Settings that differ make every cell incomparable: say so before
    // reading the result files.
    if refusals.is_empty() {
        let (base_shapes, new_shapes) = (
            workload_shapes(base_run.runs()?),
            workload_shapes(new_run.runs()?),
        );
        for (workload, shape) in &base_shapes {
            if let Some(other) = new_shapes.get(workload)
                && other != shape
            {
                refusals.push(format!(
                    "workload {workload} is not the same: BASE has {}, NEW {}",
                    describe(shape),
                    describe(other)
                ));
            }
        }
    }
    let shared: Vec<&String> = b
        .workloads
        .iter()
        .filter(|w| n.workloads.contains(w))
        .collect();
    if shared.is_empty() {
        refusals.push(format!(
            "no workload in common (BASE ran {}; NEW ran {})",
            b.workloads.join(", "),
            n.workloads.join(", ")
        ));
    }
    if !refusals.is_empty() {
        bail!(
            "the runs are not comparable ({} as BASE, {} as NEW): {}",
            base.display(),
            new.display(),
            refusals.join("; ")
        );
    }
    let mut comparison = Comparison {
        run_id: n.run_id.clone(),
        ..Comparison::default()
    };
    describe_builds(b, n, &mut comparison);

    let (base_times, new_times) = (
        whole_pass_times(base_run.repetitions()?),
        whole_pass_times(new_run.repetitions()?),
    );
    let median = |values: &[f64]| stats::summarise(values).map(|s| s.median);
    for workload in &shared {
        for algorithm in &b.algorithms {
            let key = (algorithm.name.clone(), (*workload).clone());
            let (Some(base_values), Some(new_values)) = (base_times.get(&key), new_times.get(&key))
            else {
                continue;
            };
            let (Some(base_ns), Some(new_ns)) = (median(base_values), median(new_values)) else {
                continue;
            };
            let enough = base_values.len().min(new_values.len()) >= MIN_REPETITIONS;
            let seed = mix(b.seed ^ mix(name_hash(&key.0) ^ mix(name_hash(&key.1))));
            let interval = enough
                .then(|| stats::ratio_interval(new_values, base_values, seed))
                .flatten();
            comparison.changes.push(Change {
                workload: key.1,
                algorithm: key.0,
                base_ns,
                new_ns,
                ratio: new_ns / base_ns,
                interval,
                verdict: interval.map_or(Verdict::TooFewRepetitions, |i| verdict(i, noise)),
            });
        }
    }
    judge_shift(&mut comparison, noise, normalise);
    let cell = |(algorithm, workload): &(String, String)| format!("{algorithm} on {workload}");
    comparison.only_base = base_times
        .keys()
        .filter(|key| !new_times.contains_key(*key))
        .map(cell)
        .collect();
    comparison.only_new = new_times
        .keys()
        .filter(|key| !base_times.contains_key(*key))
        .map(cell)
        .collect();
    Ok(comparison)
}

/// Finds the shift common to every cell (the median ratio) and either warns
/// of it, when it lies outside the noise band, or (`normalise`) divides every
/// ratio and interval by it and judges each cell again, so that a design is
/// judged against the run rather than against the machine's day.
fn judge_shift(comparison: &mut Comparison, noise: f64, normalise: bool) {
    let ratios: Vec<f64> = comparison.changes.iter().map(|c| c.ratio).collect();
    if ratios.len() < MIN_CELLS_FOR_SHIFT {
        if normalise {
            comparison.warnings.push(format!(
                "--normalise needs at least {MIN_CELLS_FOR_SHIFT} cells measured in both runs; \
                 the ratios are shown as measured"
            ));
        }
        return;
    }
    let Some(shift) = stats::summarise(&ratios).map(|s| s.median) else {
        return;
    };
    comparison.shift = Some(shift);
    if normalise {
        comparison.normalised = true;
        for change in &mut comparison.changes {
            change.ratio /= shift;
            change.interval = change
                .interval
                .map(|(low, high)| (low / shift, high / shift));
            if let Some(interval) = change.interval {
                change.verdict = verdict(interval, noise);
            }
        }
        comparison.notes.push(format!(
            "every ratio is divided by the median cell's, {shift:.3}x: each cell is judged against the run's common shift"
        ));
    } else if (shift - 1.0).abs() > noise {
        comparison.warnings.push(format!(
            "the median cell moved {shift:.2}x: a shift common to the whole run comes from the machine \
             (its clock, its neighbours), not from one design; compare runs made back to back, or add \
             --normalise to judge each cell against it"
        ));
    }
}

/// The notes and warnings on how the two runs were made.
fn describe_builds(b: &Metadata, n: &Metadata, comparison: &mut Comparison) {
    // A field the metadata lacks reads as empty (or 0 cores): unknown.
    let show = |value: &String| {
        if value.is_empty() {
            "unknown".to_owned()
        } else {
            value.clone()
        }
    };
    let cores = |cores: u64| {
        if cores == 0 {
            "?".to_owned()
        } else {
            cores.to_string()
        }
    };
    if b.git_commit != n.git_commit {
        comparison.notes.push(format!(
            "BASE is commit {}, NEW is commit {}",
            show(&b.git_commit),
            show(&n.git_commit)
        ));
    }
    if (&b.cpu_model, b.cores) != (&n.cpu_model, n.cores) {
        comparison.warnings.push(format!(
            "different machines: BASE ran on {} ({} cores), NEW on {} ({} cores)",
            show(&b.cpu_model),
            cores(b.cores),
            show(&n.cpu_model),
            cores(n.cores)
        ));
    }
    for (what, x, y) in [
        ("compilers", &b.rustc, &n.rustc),
        ("build profiles", &b.build_profile, &n.build_profile),
    ] {
        if x != y {
            comparison.warnings.push(format!(
                "different {what}: BASE {}, NEW {}",
                show(x),
                show(y)
            ));
        }
    }
    for (side, facts) in [("BASE", b), ("NEW", n)] {
        if facts.git_dirty {
            comparison.warnings.push(format!(
                "{side} was built with uncommitted changes to commit {}",
                show(&facts.git_commit)
            ));
        }
        if let Some(steal) = facts.steal_seconds
            && steal > STEAL_WARNING_SECONDS
        {
            comparison.warnings.push(format!(
                "{side} lost {steal:.1} s to other guests on the host (steal time): its times may be inflated"
            ));
        }
    }
}

/// `timerbench agreement`: how many cells of NEW agree with BASE.
pub fn agreement_command(base: &Path, new: &Path) -> Result<(), Failure> {
    let cells = agreement(base, new).map_err(Failure::Input)?;
    let agreeing = cells.iter().filter(|c| c.agrees).count();
    for cell in cells.iter().filter(|c| !c.agrees) {
        let (median, low, high) = cell.base;
        println!(
            "differs: {} on {}: {:.1} [{:.1}, {:.1}] then {:.1} ({:+.1}%)",
            cell.algorithm,
            cell.workload,
            median,
            low,
            high,
            cell.new,
            (cell.new / median - 1.0) * 100.0
        );
    }
    println!(
        "{agreeing} of {} cells agree ({:.1}%): the second run's median inside the first run's interval or within 10% of its median",
        cells.len(),
        100.0 * agreeing as f64 / cells.len().max(1) as f64
    );
    Ok(())
}

/// `timerbench compare`'s flags.
pub struct CompareOptions {
    /// The noise band, a fraction.
    pub noise: f64,
    /// Print only the cells that changed.
    pub changes_only: bool,
    /// Divide every ratio by the median cell's.
    pub normalise: bool,
    /// Also write NEW/comparison.csv.
    pub save: bool,
}

/// `timerbench compare`: NEW against BASE, cell by cell, with verdicts.
pub fn compare_command(base: &Path, new: &Path, options: CompareOptions) -> Result<(), Failure> {
    let CompareOptions {
        noise,
        changes_only,
        normalise,
        save,
    } = options;
    use std::fmt::Write as _;
    use std::io::Write as _;
    let comparison = compare(base, new, noise, normalise).map_err(Failure::Input)?;
    let mut text = format!(
        "{} against {}: NEW's median over BASE's (below 1: NEW is faster), 95% bootstrap interval; noise band ±{:.0}%\n",
        new.display(),
        base.display(),
        noise * 100.0
    );
    for note in &comparison.notes {
        let _ = writeln!(text, "note: {note}");
    }
    for warning in &comparison.warnings {
        let _ = writeln!(text, "warning: {warning}");
    }
    let _ = writeln!(
        text,
        "\n{:<14} {:<26} {:>10} {:>10} {:>7}  {:<16} verdict",
        "workload", "algorithm", "base ns", "new ns", "ratio", "interval"
    );
    for change in &comparison.changes {
        if changes_only && !matches!(change.verdict, Verdict::Faster | Verdict::Slower) {
            continue;
        }
        let interval = change.interval.map_or_else(
            || "-".to_owned(),
            |(low, high)| format!("[{low:.2}, {high:.2}]"),
        );
        let _ = writeln!(
            text,
            "{:<14} {:<26} {:>10.1} {:>10.1} {:>6.2}x  {:<16} {}",
            change.workload,
            change.algorithm,
            change.base_ns,
            change.new_ns,
            change.ratio,
            interval,
            change.verdict.label()
        );
    }
    let _ = writeln!(
        text,
        "\n{} cells: {} faster, {} slower, {} no significant change, {} with too few repetitions",
        comparison.changes.len(),
        comparison.count(Verdict::Faster),
        comparison.count(Verdict::Slower),
        comparison.count(Verdict::NoChange),
        comparison.count(Verdict::TooFewRepetitions)
    );
    for (side, cells) in [
        ("BASE", &comparison.only_base),
        ("NEW", &comparison.only_new),
    ] {
        if !cells.is_empty() {
            let _ = writeln!(
                text,
                "measured in {side} only ({}): {}",
                cells.len(),
                cells.join(", ")
            );
        }
    }
    if save {
        let swapped = crate::output::write_comparison(new, &comparison.rows(base, noise))
            .map_err(Failure::Run)?;
        for path in swapped.written {
            let _ = writeln!(
                text,
                "wrote {} (`make report OUT={}` draws it)",
                path.display(),
                new.display()
            );
        }
    }
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use schema::METADATA_FILE;

    #[test]
    fn inside_the_interval_or_within_ten_percent() {
        assert!(agrees(100.0, 90.0, 120.0, 119.0), "inside the interval");
        assert!(agrees(100.0, 99.0, 101.0, 109.0), "within 10%");
        assert!(agrees(100.0, 99.0, 101.0, 91.0), "within 10% below");
        assert!(!agrees(100.0, 99.0, 101.0, 111.0), "outside both");
        assert!(!agrees(100.0, 95.0, 105.0, 85.0), "outside both, below");
    }

    #[test]
    fn a_verdict_needs_the_whole_interval_beyond_the_noise_band() {
        assert_eq!(verdict((0.80, 0.90), 0.05), Verdict::Faster);
        assert_eq!(verdict((1.10, 1.30), 0.05), Verdict::Slower);
        assert_eq!(
            verdict((0.90, 0.96), 0.05),
            Verdict::NoChange,
            "reaches the band"
        );
        assert_eq!(
            verdict((1.02, 1.08), 0.05),
            Verdict::NoChange,
            "starts in the band"
        );
        assert_eq!(verdict((0.98, 1.02), 0.0), Verdict::NoChange, "spans 1");
        assert_eq!(verdict((1.01, 1.02), 0.0), Verdict::Slower, "no band");
    }

    /// One run's files (see [`crate::fixture`]): `cells` is (algorithm,
    /// workload, ns per operation of each repetition); every workload has 100
    /// measured operations.
    struct Run<'a> {
        seed: u64,
        cpu: &'a str,
        commit: &'a str,
        cells: Vec<(&'a str, &'a str, Vec<u64>)>,
    }

    impl Run<'_> {
        fn write(&self, dir: &Path) {
            self.fixture(100).write(dir);
        }

        /// The fixture of this run with `measured_ops` operations per workload.
        fn fixture(&self, measured_ops: u64) -> fixture::Run<'_> {
            let cells = self
                .cells
                .iter()
                .map(|(algorithm, workload, ns)| fixture::Cell {
                    algorithm,
                    workload,
                    ns: ns.iter().map(|&ns| ns as f64).collect(),
                })
                .collect();
            fixture::Run {
                seed: self.seed,
                cpu: self.cpu,
                commit: self.commit,
                measured_ops,
                ..fixture::Run::of(cells)
            }
        }
    }

    /// A scratch directory removed when the test ends.
    struct Scratch(std::path::PathBuf);

    impl Scratch {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir()
                .join(format!("timerbench-compare-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            Self(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn each_cell_gets_its_verdict() {
        let scratch = Scratch::new("verdicts");
        let (base, new) = (scratch.0.join("base"), scratch.0.join("new"));
        let spread = |ns: u64| vec![ns, ns + 1, ns - 1, ns, ns + 1];
        Run {
            seed: 7,
            cpu: "one CPU",
            commit: "aaa",
            cells: vec![
                ("same", "w", spread(100)),
                ("slowed", "w", spread(100)),
                ("sped-up", "w", spread(100)),
                ("drifted", "w", spread(100)),
                ("few", "w", vec![100, 101]),
                ("gone", "w", spread(100)),
            ],
        }
        .write(&base);
        Run {
            seed: 7,
            cpu: "another CPU",
            commit: "bbb",
            cells: vec![
                ("same", "w", spread(100)),
                ("slowed", "w", spread(150)),
                ("sped-up", "w", spread(60)),
                ("drifted", "w", spread(103)),
                ("few", "w", vec![300, 301]),
                ("added", "w", spread(100)),
            ],
        }
        .write(&new);
        let comparison = compare(&base, &new, NOISE_THRESHOLD, false).unwrap();
        let verdicts: Vec<(&str, Verdict)> = comparison
            .changes
            .iter()
            .map(|c| (c.algorithm.as_str(), c.verdict))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("same", Verdict::NoChange),
                ("slowed", Verdict::Slower),
                ("sped-up", Verdict::Faster),
                ("drifted", Verdict::NoChange),
                ("few", Verdict::TooFewRepetitions),
            ]
        );
        let slowed = &comparison.changes[1];
        assert_eq!(slowed.ratio, 1.5);
        let (low, high) = slowed.interval.unwrap();
        assert!(low > 1.4 && high < 1.6, "{low}..{high}");
        assert_eq!(comparison.only_base, ["gone on w"]);
        assert_eq!(comparison.only_new, ["added on w"]);
        assert_eq!(comparison.notes, ["BASE is commit aaa, NEW is commit bbb"]);
        assert_eq!(comparison.warnings.len(), 1, "{:?}", comparison.warnings);
        assert!(comparison.warnings[0].contains("different machines"));
        // Without a noise band, a 3% drift with this little spread is a change.
        let strict = compare(&base, &new, 0.0, false).unwrap();
        assert_eq!(strict.changes[3].verdict, Verdict::Slower);
        let error = compare(&base, &new, 1.5, false).unwrap_err().to_string();
        assert!(error.contains("--noise 1.5"), "{error}");
    }

    #[test]
    fn runs_of_other_seeds_or_workloads_are_refused() {
        let scratch = Scratch::new("refused");
        let (base, other_seed, other_tape) = (
            scratch.0.join("base"),
            scratch.0.join("seed"),
            scratch.0.join("tape"),
        );
        let run = |seed| Run {
            seed,
            cpu: "one CPU",
            commit: "aaa",
            cells: vec![("a", "w", vec![10, 11, 12])],
        };
        run(7).write(&base);
        run(8).write(&other_seed);
        run(7).fixture(101).write(&other_tape);
        let error = compare(&base, &other_seed, NOISE_THRESHOLD, false)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("not comparable") && error.contains("seed 7 in BASE, 8 in NEW"),
            "{error}"
        );
        let error = compare(&base, &other_tape, NOISE_THRESHOLD, false)
            .unwrap_err()
            .to_string();
        assert!(error.contains("workload w is not the same"), "{error}");
        assert!(error.contains("101 measured operations"), "{error}");
    }

    #[test]
    fn a_directory_whose_files_name_different_runs_is_refused() {
        let scratch = Scratch::new("two-runs");
        let dir = scratch.0.join("run");
        Run {
            seed: 7,
            cpu: "one CPU",
            commit: "aaa",
            cells: vec![("a", "w", vec![10, 11, 12])],
        }
        .write(&dir);
        // No file has a run id: made before run ids, and accepted.
        assert!(compare(&dir, &dir, NOISE_THRESHOLD, false).is_ok());
        let path = dir.join(METADATA_FILE);
        let mut metadata: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        metadata["run_id"] = "20261125T130501Z-1".into();
        std::fs::write(&path, metadata.to_string()).unwrap();
        let error = compare(&dir, &dir, NOISE_THRESHOLD, false)
            .unwrap_err()
            .to_string();
        for fragment in [
            "different runs",
            "metadata.json has run id 20261125T130501Z-1",
            "runs.csv has no run id",
            "make the results again",
        ] {
            assert!(error.contains(fragment), "{fragment}: {error}");
        }
    }

    #[test]
    fn a_shift_common_to_every_cell_is_named_and_can_be_divided_out() {
        let scratch = Scratch::new("shift");
        let (base, new) = (scratch.0.join("base"), scratch.0.join("new"));
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
        let spread = |ns: u64| vec![ns, ns + 1, ns - 1, ns, ns + 1];
        let run = |scale: &dyn Fn(usize) -> u64| Run {
            seed: 7,
            cpu: "one CPU",
            commit: "aaa",
            cells: names
                .iter()
                .enumerate()
                .map(|(i, name)| (*name, "w", spread(scale(i))))
                .collect(),
        };
        run(&|_| 100).write(&base);
        // The whole machine 10% slower, and `a` 60% slower.
        run(&|i| if i == 0 { 160 } else { 110 }).write(&new);
        let raw = compare(&base, &new, NOISE_THRESHOLD, false).unwrap();
        assert_eq!(raw.count(Verdict::Slower), 10);
        assert_eq!(raw.shift, Some(1.1));
        assert!(
            raw.warnings
                .iter()
                .any(|w| w.contains("the median cell moved 1.10x")),
            "{:?}",
            raw.warnings
        );
        let normalised = compare(&base, &new, NOISE_THRESHOLD, true).unwrap();
        let slower: Vec<&str> = normalised
            .changes
            .iter()
            .filter(|c| c.verdict == Verdict::Slower)
            .map(|c| c.algorithm.as_str())
            .collect();
        assert_eq!(slower, ["a"]);
        assert_eq!(normalised.count(Verdict::NoChange), 9);
        assert!((normalised.changes[0].ratio - 160.0 / 110.0).abs() < 1e-9);
        assert!(
            normalised.notes.iter().any(|n| n.contains("1.100x")),
            "{:?}",
            normalised.notes
        );
    }
}
