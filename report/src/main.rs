//! `timerbench-report`: draws the charts and tables of a results directory
//! into `<results>/report/` (`make report`).
//!
//! Exit codes: 0 success, 1 the report could not be drawn or written, 2 bad
//! input (no results directory, a missing file, a wrong schema version, a
//! malformed row), with a message naming the file and line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

use report::{Failure, INDEX_FILE, MARKDOWN_FILE};

#[derive(Parser)]
#[command(
    name = "timerbench-report",
    version,
    about = "Draw SVG charts, an HTML page and a Markdown report from timerbench results"
)]
struct Cli {
    /// The results directory (as written by `make results`); the report goes
    /// into its `report/` subdirectory.
    #[arg(long, default_value = "results")]
    results: PathBuf,
    /// Draw these algorithms (comma-separated) in colour in the line charts
    /// over the pending population (scaling, memory, counts), and every other
    /// line in grey.
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    highlight: Vec<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let started = Instant::now();
    match report::generate(&cli.results, &cli.highlight) {
        Ok((dir, files)) => {
            println!(
                "wrote {files} files into {} in {:.1} s: open {} (or read {})",
                dir.display(),
                started.elapsed().as_secs_f64(),
                dir.join(INDEX_FILE).display(),
                dir.join(MARKDOWN_FILE).display()
            );
            ExitCode::SUCCESS
        }
        Err(Failure::Input(error)) => {
            eprintln!("timerbench-report: error: {error}");
            ExitCode::from(2)
        }
        Err(Failure::Output(error)) => {
            eprintln!("timerbench-report: error: {error:#}");
            ExitCode::from(1)
        }
    }
}
