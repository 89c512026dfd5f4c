//! The timerbench report: reads a results directory (`runs.csv`,
//! `throughput.csv`, `latency.csv`, `metadata.json`, schema in
//! `results/README.md`) and writes `<results>/report/`: SVG charts, `index.html`
//! and `REPORT.md`.
//!
//! Architecture invariant: this crate reads only results files. It does not
//! depend on `algorithms` or `harness`; every algorithm name, family and
//! workload it shows comes from the files, so it reports algorithms it has
//! never heard of.
//!
//! Layers: [`input`] reads and checks the files (the one place that knows the
//! schema), [`model`] indexes them, gives each algorithm its family, colour
//! and marker, and sets the variant rows of parameter sweeps apart,
//! [`summary`], [`parameters`], [`predicted`], [`threaded`], [`real`] and [`tables`] compute the tables, [`charts`]
//! draws the SVGs, [`page`] assembles the documents and [`output`] writes the
//! directory atomically.

pub mod charts;
pub mod input;
pub mod markdown;
pub mod model;
pub mod output;
pub mod page;
pub mod parameters;
pub mod predicted;
pub mod real;
pub mod summary;
pub mod tables;
pub mod threaded;

use std::path::{Path, PathBuf};

use anyhow::Result;

/// The report's directory name inside the results directory.
pub const REPORT_DIR: &str = "report";
/// The page.
pub const INDEX_FILE: &str = "index.html";
/// The Markdown version.
pub const MARKDOWN_FILE: &str = "REPORT.md";

/// Why generating a report failed, which decides the exit code.
#[derive(Debug)]
pub enum Failure {
    /// The results are missing or malformed: exit code 2.
    Input(input::InputError),
    /// Drawing or writing failed: exit code 1.
    Output(anyhow::Error),
}

/// The files of a report (name, contents) for `model`; `results_dir` is only
/// quoted in the documents.
pub fn render(model: &model::Model, results_dir: &str) -> Result<Vec<(String, String)>> {
    let charts = charts::all_charts(model)?;
    let mut files = vec![
        (
            INDEX_FILE.to_owned(),
            page::html(model, &charts, results_dir),
        ),
        (
            MARKDOWN_FILE.to_owned(),
            page::markdown(model, &charts, results_dir),
        ),
    ];
    // Each chart says it is generated, in a comment after the `<svg>` line.
    let note = page::generated_comment(results_dir);
    files.extend(charts.into_iter().map(|c| {
        let svg = match c.svg.split_once('\n') {
            Some((first, rest)) => format!("{first}\n{note}\n{rest}"),
            None => c.svg,
        };
        (c.file, svg)
    }));
    Ok(files)
}

/// Reads `results_dir` and writes its report into `results_dir/report/`,
/// returning that directory and the number of files written. The x-y charts
/// draw the algorithms of `highlight` in colour and the rest in grey (all in
/// colour when it is empty).
pub fn generate(results_dir: &Path, highlight: &[String]) -> Result<(PathBuf, usize), Failure> {
    let results = input::read_results(results_dir).map_err(Failure::Input)?;
    let target = results_dir.join(REPORT_DIR);
    if target.exists() && !target.is_dir() {
        return Err(Failure::Input(input::InputError::new(
            &target,
            None,
            "is a file, not a report directory: move or remove it, then make the report again",
        )));
    }
    let mut model = model::Model::new(results);
    model.set_predictions(input::read_predictions(results_dir).map_err(Failure::Input)?);
    let threaded = model.results.threaded.clone();
    model.set_threaded(threaded);
    model
        .set_highlight(highlight)
        .map_err(|message| Failure::Input(input::InputError::new(results_dir, None, message)))?;
    let quoted = results_dir.display().to_string();
    let quoted = quoted.trim_end_matches('/');
    let files =
        render(&model, if quoted.is_empty() { "/" } else { quoted }).map_err(Failure::Output)?;
    output::write_dir(&target, &files).map_err(Failure::Output)?;
    Ok((target, files.len()))
}

/// The results of a checked-in fixture directory under `report/tests/`,
/// read at compile time, for the unit tests.
#[cfg(test)]
macro_rules! fixture_results {
    ($dir:literal) => {{
        use std::path::Path;
        input::Results {
            metadata: input::parse_metadata(
                Path::new("metadata.json"),
                include_str!(concat!("../tests/", $dir, "/metadata.json")),
            )
            .expect("fixture metadata"),
            runs: input::parse_csv(
                Path::new("runs.csv"),
                include_str!(concat!("../tests/", $dir, "/runs.csv")),
            )
            .expect("fixture runs"),
            throughput: input::parse_csv(
                Path::new("throughput.csv"),
                include_str!(concat!("../tests/", $dir, "/throughput.csv")),
            )
            .expect("fixture throughput"),
            repetitions: input::parse_csv(
                Path::new("repetitions.csv"),
                include_str!(concat!("../tests/", $dir, "/repetitions.csv")),
            )
            .expect("fixture repetitions"),
            latency: input::parse_csv(
                Path::new("latency.csv"),
                include_str!(concat!("../tests/", $dir, "/latency.csv")),
            )
            .expect("fixture latency"),
            contract_cost: Vec::new(),
            counts: Vec::new(),
            counts_build: None,
            comparison: Vec::new(),
            threaded: Vec::new(),
        }
    }};
}

/// The checked-in fixture's files (a small-scale run,
/// `report/tests/fixture/`), for a unit test that changes them first.
#[cfg(test)]
pub(crate) fn fixture_files() -> input::Results {
    fixture_results!("fixture")
}

/// The checked-in fixture (a small-scale run, `report/tests/fixture/`) as a
/// model, for the unit tests.
#[cfg(test)]
pub(crate) fn fixture_model() -> model::Model {
    model::Model::new(fixture_results!("fixture"))
}

/// A fixture's model with every throughput row read as if it stood on
/// [`schema::MIN_REPETITIONS`] repetitions. The fixtures are runs of three
/// repetitions, whose min..max intervals and ties the report does not show
/// (too few to judge); the tests of how intervals and ties are drawn need
/// some, so they take the files' figures at their word.
#[cfg(test)]
pub(crate) fn judged(mut results: input::Results) -> model::Model {
    for row in &mut results.throughput {
        row.repetitions = row.repetitions.max(schema::MIN_REPETITIONS as u64);
    }
    model::Model::new(results)
}

/// [`fixture_model`] through [`judged`].
#[cfg(test)]
pub(crate) fn judged_fixture_model() -> model::Model {
    judged(fixture_results!("fixture"))
}

/// [`fixture_sweep_model`] through [`judged`].
#[cfg(test)]
pub(crate) fn judged_fixture_sweep_model() -> model::Model {
    judged(fixture_results!("fixture-sweep"))
}

/// The fixture with parameter sweeps (`report/tests/fixture-sweep/`: variant
/// rows, and `netty-wheel` as a design that is also a sweep point) as a
/// model, for the unit tests.
#[cfg(test)]
pub(crate) fn fixture_sweep_model() -> model::Model {
    model::Model::new(fixture_results!("fixture-sweep"))
}
