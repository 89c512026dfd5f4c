//! `timerbench ab`: did a change help, measured back to back.
//!
//! `timerbench compare` sets two runs side by side, but two runs are separate
//! processes minutes apart, and on a shared VM the machine's own speed drifts
//! by more than a small change moves a design. `ab` measures the two builds
//! in turn instead: it runs `timerbench crosscheck` from the build to judge
//! against (`--base-exe`, say `main` built in a worktree by `make ab`) and
//! from this build, alternately, `--rounds` times, and pairs the rounds. The
//! order alternates too (base first in even rounds, this build first in odd
//! ones), so that a drift within a round falls on each side alike.
//!
//! Per (algorithm, workload) it reports each side's median over the rounds
//! of crosscheck's harness column (itself the median of crosscheck's
//! interleaved whole passes, the headline's method), and the median of the
//! paired ratios (this build's over the base's) with the distribution-free
//! interval of that median ([`crate::stats::summarise`]: with 6 rounds, the
//! smallest to the largest ratio, at 96.9%). The verdict is **faster** or
//! **slower** only when the whole interval lies on one side of 1, else
//! **tied**.
//!
//! Why parse another build's printed table rather than share a file format:
//! the base is an older commit, built from its own source, and crosscheck's
//! table is what every commit since it was added prints. A line that does not
//! read as that table is an error that names the line.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::failure::Failure;
use crate::plain::CrosscheckConfig;
use crate::stats;

/// The rounds `ab` runs by default: six pairs give the min-to-max interval of
/// the median ratio at 96.9% coverage.
pub const DEFAULT_ROUNDS: u32 = 6;

/// The most rounds `ab` accepts: at about 15 s a crosscheck of one row on
/// every built-in workload, 50 rounds are 25 minutes.
pub const MAX_ROUNDS: u32 = 50;

/// One line of crosscheck's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The workload.
    pub workload: String,
    /// The algorithm's row name.
    pub algorithm: String,
    /// The harness's whole pass, ns per operation (median of crosscheck's
    /// repetitions).
    pub harness_ns: f64,
}

/// Reads crosscheck's printed table: the header line (`workload algorithm
/// harness plain ratio`), then one row per line until the closing line
/// (`largest departure ...`) or the end. Lines before the header are its
/// title and are skipped.
pub fn parse_crosscheck(text: &str) -> Result<Vec<Row>> {
    let mut lines = text.lines().enumerate();
    let header = lines.find(|(_, line)| {
        line.split_whitespace().collect::<Vec<_>>()
            == ["workload", "algorithm", "harness", "plain", "ratio"]
    });
    if header.is_none() {
        bail!(
            "no table header (`workload algorithm harness plain ratio`) in what crosscheck printed: \
             was the base built from a commit that has `timerbench crosscheck`?"
        );
    }
    let mut rows = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() || line.starts_with("largest departure") {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [workload, algorithm, harness, plain, ratio] = fields[..] else {
            bail!(
                "line {} of crosscheck's output has {} fields where its table has 5 \
                 (workload, algorithm, harness, plain, ratio): {line:?}",
                number + 1,
                fields.len()
            );
        };
        let number_at = |text: &str, column: &str| -> Result<f64> {
            text.parse::<f64>()
                .ok()
                .filter(|value| value.is_finite() && *value > 0.0)
                .with_context(|| {
                    format!(
                        "line {} of crosscheck's output: its {column} column {text:?} is not a \
                         positive number",
                        number + 1
                    )
                })
        };
        let harness_ns = number_at(harness, "harness")?;
        number_at(plain, "plain")?;
        number_at(ratio, "ratio")?;
        rows.push(Row {
            workload: workload.to_owned(),
            algorithm: algorithm.to_owned(),
            harness_ns,
        });
    }
    if rows.is_empty() {
        bail!("crosscheck printed its table's header but no row");
    }
    Ok(rows)
}

/// One (algorithm, workload) over every round.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The workload.
    pub workload: String,
    /// The algorithm's row name.
    pub algorithm: String,
    /// The base build's ns per operation, one per round.
    pub base: Vec<f64>,
    /// This build's, one per round, paired with `base`.
    pub new: Vec<f64>,
}

/// What a cell's rounds say.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judged {
    /// The base's median over the rounds.
    pub base_median: f64,
    /// This build's median over the rounds.
    pub new_median: f64,
    /// The median paired ratio (this build's over the base's) and its
    /// interval.
    pub ratio: stats::Summary,
    /// The verdict.
    pub verdict: Verdict,
}

/// Which way a cell moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval of the ratio lies below 1.
    Faster,
    /// The whole interval lies above 1.
    Slower,
    /// The interval holds 1.
    Tied,
}

impl Verdict {
    /// The word the table prints.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Tied => "tied",
        }
    }
}

impl Cell {
    /// The medians, the paired ratio with its interval, and the verdict.
    pub fn judge(&self) -> Option<Judged> {
        let ratios: Vec<f64> = self
            .new
            .iter()
            .zip(&self.base)
            .map(|(new, base)| new / base)
            .collect();
        let ratio = stats::summarise(&ratios)?;
        let verdict = if ratio.ci_high < 1.0 {
            Verdict::Faster
        } else if ratio.ci_low > 1.0 {
            Verdict::Slower
        } else {
            Verdict::Tied
        };
        Some(Judged {
            base_median: stats::summarise(&self.base)?.median,
            new_median: stats::summarise(&self.new)?.median,
            ratio,
            verdict,
        })
    }
}

/// The table `ab` prints, and `paired` too: a header, a line per cell that
/// can be judged (workload, algorithm, both medians, the median ratio, its
/// interval and the verdict), and a last line counting the verdicts with the
/// coverage of the intervals (the smallest, when cells have different
/// numbers of pairs). `new_label` heads the judged side's column.
pub fn verdict_table(cells: &[Cell], new_label: &str) -> String {
    use std::fmt::Write as _;
    let mut text = format!(
        "{:<18} {:<26} {:>9} {:>9} {:>7}  {:<17} verdict\n",
        "workload", "algorithm", "base", new_label, "ratio", "interval"
    );
    let mut verdicts = Vec::new();
    let mut coverage = f64::INFINITY;
    for cell in cells {
        let Some(judged) = cell.judge() else {
            continue;
        };
        verdicts.push(judged.verdict);
        coverage = coverage.min(judged.ratio.ci_level);
        let _ = writeln!(
            text,
            "{:<18} {:<26} {:>9.1} {:>9.1} {:>7.3}  [{:.3}, {:.3}]    {}",
            cell.workload,
            cell.algorithm,
            judged.base_median,
            judged.new_median,
            judged.ratio.median,
            judged.ratio.ci_low,
            judged.ratio.ci_high,
            judged.verdict.word()
        );
    }
    let count = |verdict| verdicts.iter().filter(|&&v| v == verdict).count();
    let _ = writeln!(
        text,
        "{} faster, {} slower, {} tied (interval of the median ratio at {:.1}% coverage)",
        count(Verdict::Faster),
        count(Verdict::Slower),
        count(Verdict::Tied),
        100.0 * if verdicts.is_empty() { 0.0 } else { coverage }
    );
    text
}

/// Pairs each round's two tables into cells, in the first round's order.
/// Every round must hold the same cells on both sides: a cell that one side
/// or one round lacks is an error, since its rounds could not be paired.
pub fn pair_rounds(rounds: &[(Vec<Row>, Vec<Row>)]) -> Result<Vec<Cell>> {
    let Some((first, _)) = rounds.first() else {
        bail!("no round to pair");
    };
    let mut cells: Vec<Cell> = first
        .iter()
        .map(|row| Cell {
            workload: row.workload.clone(),
            algorithm: row.algorithm.clone(),
            base: Vec::new(),
            new: Vec::new(),
        })
        .collect();
    for (round, (base, new)) in rounds.iter().enumerate() {
        for (side, rows, pick) in [("the base", base, true), ("this build", new, false)] {
            if rows.len() != cells.len() {
                bail!(
                    "round {}: {side} printed {} rows where the first round's base printed {}: \
                     the two builds do not measure the same cells (is an algorithm or workload \
                     missing from one of them?)",
                    round + 1,
                    rows.len(),
                    cells.len()
                );
            }
            for (cell, row) in cells.iter_mut().zip(rows) {
                if (row.workload.as_str(), row.algorithm.as_str())
                    != (&cell.workload[..], &cell.algorithm[..])
                {
                    bail!(
                        "round {}: {side} printed {} on {} where the first round has {} on {}: \
                         the two builds do not measure the same cells",
                        round + 1,
                        row.algorithm,
                        row.workload,
                        cell.algorithm,
                        cell.workload
                    );
                }
                if pick {
                    cell.base.push(row.harness_ns);
                } else {
                    cell.new.push(row.harness_ns);
                }
            }
        }
    }
    Ok(cells)
}

/// What `timerbench ab` was asked to judge.
pub struct AbConfig {
    /// The `timerbench` executable of the build to judge against.
    pub base_exe: PathBuf,
    /// Rounds: each runs crosscheck once from each build.
    pub rounds: u32,
    /// What each crosscheck checks.
    pub crosscheck: CrosscheckConfig,
}

/// `timerbench ab`: crosscheck from the base build and from this one in turn,
/// the rounds paired cell by cell (see the module's documentation).
pub fn ab(config: &AbConfig) -> Result<(), Failure> {
    let check = &config.crosscheck;
    // Refuse a selection this build does not know before starting either
    // build, with the same words crosscheck would use.
    check.resolve()?;
    if !config.base_exe.is_file() {
        return Err(Failure::Input(anyhow::anyhow!(
            "--base-exe {}: no such file; give the timerbench executable of the build to judge              against (`make ab REV=main` builds one from a git revision)",
            config.base_exe.display()
        )));
    }
    let this_exe = std::env::current_exe()
        .map_err(|error| Failure::Run(anyhow::anyhow!("cannot find this executable: {error}")))?;
    let mut crosscheck_args = vec![
        "crosscheck".to_owned(),
        format!("--scale={}", check.scale),
        format!("--seed={}", check.seed),
        format!("--repeat={}", check.repeat),
    ];
    if !check.algorithms.is_empty() {
        crosscheck_args.push(format!("--algorithms={}", check.algorithms.join(",")));
    }
    if !check.workloads.is_empty() {
        crosscheck_args.push(format!("--workloads={}", check.workloads.join(",")));
    }
    let run_side = |exe: &Path, side: &str| -> Result<Vec<Row>, Failure> {
        let output = std::process::Command::new(exe)
            .args(&crosscheck_args)
            .output()
            .map_err(|error| {
                Failure::Run(anyhow::anyhow!(
                    "cannot start {side} ({}): {error}",
                    exe.display()
                ))
            })?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
            return Err(Failure::Run(anyhow::anyhow!(
                "{side} ({}) failed ({}); the last lines it printed:\n{}",
                exe.display(),
                output.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )));
        }
        parse_crosscheck(&String::from_utf8_lossy(&output.stdout))
            .map_err(|error| {
                error.context(format!("reading what {side} ({}) printed", exe.display()))
            })
            .map_err(Failure::Run)
    };
    let mut rounds = Vec::new();
    for round in 0..config.rounds {
        eprintln!("timerbench ab: round {} of {}", round + 1, config.rounds);
        // Alternate which build goes first, so that a drift within a round
        // falls on both alike.
        let (base, new) = if round % 2 == 0 {
            let base = run_side(&config.base_exe, "the base")?;
            (base, run_side(&this_exe, "this build")?)
        } else {
            let new = run_side(&this_exe, "this build")?;
            (run_side(&config.base_exe, "the base")?, new)
        };
        rounds.push((base, new));
    }
    let cells = pair_rounds(&rounds).map_err(Failure::Run)?;
    println!(
        "This build against {} ({} rounds, the order alternating): crosscheck's harness column, \
         ns per operation, median over the rounds; ratio: median of the paired ratios, this \
         build's over the base's",
        config.base_exe.display(),
        config.rounds
    );
    print!("{}", verdict_table(&cells, "this"));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "Whole-pass ns per operation (median of 6), event driver: ...\n\
        workload       algorithm                     harness      plain    ratio\n\
        uniform        sweep-wheel                      35.8       35.5    1.009\n\
        timeouts       sweep-wheel                      10.0       10.6    0.951\n\
        largest departure from 1: 0.951 (sweep-wheel on timeouts)\n";

    fn row(workload: &str, harness_ns: f64) -> Row {
        Row {
            workload: workload.to_owned(),
            algorithm: "sweep-wheel".to_owned(),
            harness_ns,
        }
    }

    #[test]
    fn the_table_is_read_row_by_row() {
        assert_eq!(
            parse_crosscheck(TABLE).unwrap(),
            vec![row("uniform", 35.8), row("timeouts", 10.0)]
        );
    }

    #[test]
    fn a_line_that_is_not_a_row_is_named() {
        let broken = TABLE.replace("10.0       10.6", "ten       10.6");
        let error = parse_crosscheck(&broken).unwrap_err().to_string();
        assert!(
            error.contains("line 4") && error.contains("harness column"),
            "{error}"
        );
        let short = TABLE.replace("   0.951\n", "\n");
        let error = parse_crosscheck(&short).unwrap_err().to_string();
        assert!(error.contains("4 fields"), "{error}");
    }

    #[test]
    fn output_without_the_header_is_refused() {
        let error = parse_crosscheck("error: unrecognized subcommand 'crosscheck'\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("no table header"), "{error}");
    }

    #[test]
    fn rounds_pair_by_cell_and_the_ratio_decides_the_verdict() {
        let rounds: Vec<(Vec<Row>, Vec<Row>)> = (0..6)
            .map(|i| {
                let jitter = f64::from(i) * 0.1;
                (
                    vec![
                        row("uniform", 30.0 + jitter),
                        row("timeouts", 10.0 + jitter),
                    ],
                    vec![
                        row("uniform", 27.0 + jitter),
                        row("timeouts", 10.0 - jitter / 2.0),
                    ],
                )
            })
            .collect();
        let cells = pair_rounds(&rounds).unwrap();
        assert_eq!(cells.len(), 2);
        let uniform = cells[0].judge().unwrap();
        assert_eq!(uniform.verdict, Verdict::Faster);
        assert!(uniform.ratio.median < 0.92 && uniform.ratio.median > 0.89);
        // Ratios from 1.0 down to 0.975: the interval holds 1.
        assert_eq!(cells[1].judge().unwrap().verdict, Verdict::Tied);
        let table = verdict_table(&cells, "this");
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].contains("this") && lines[1].starts_with("uniform"));
        assert!(lines[1].ends_with("faster") && lines[2].ends_with("tied"));
        assert_eq!(
            lines[3],
            "1 faster, 0 slower, 1 tied (interval of the median ratio at 96.9% coverage)"
        );
    }

    #[test]
    fn rounds_that_measure_different_cells_are_refused() {
        let rounds = vec![
            (vec![row("uniform", 30.0)], vec![row("uniform", 29.0)]),
            (vec![row("uniform", 30.0)], vec![row("timeouts", 29.0)]),
        ];
        let error = pair_rounds(&rounds).unwrap_err().to_string();
        assert!(
            error.contains("round 2") && error.contains("this build"),
            "{error}"
        );
    }
}
