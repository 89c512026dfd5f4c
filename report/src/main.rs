//! `timerbench-report`: draws the charts and tables of a results directory
//! into `<results>/report/` (`make report`).
//!
//! Exit codes: 0 success, 1 the report could not be drawn or written (or
//! its one line not printed: a full stdout), 2 bad input (no results
//! directory, a missing file, a wrong schema version, a malformed row), with
//! a message naming the file and line, and 141 when the reader of stdout
//! closed it early, quietly, as a process SIGPIPE ended.

use std::io::Write as _;
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
        Ok((dir, files)) => print(&format!(
            "wrote {files} files into {} in {:.1} s: open {} (or read {})\n",
            dir.display(),
            started.elapsed().as_secs_f64(),
            dir.join(INDEX_FILE).display(),
            dir.join(MARKDOWN_FILE).display()
        )),
        Err(Failure::Input(error)) => fail(&error.to_string(), INPUT_EXIT),
        Err(Failure::Output(error)) => fail(&format!("{error:#}"), OUTPUT_EXIT),
    }
}

/// The exit code of bad input.
const INPUT_EXIT: u8 = 2;
/// The exit code of a report that could not be drawn, written or said.
const OUTPUT_EXIT: u8 = 1;
/// The exit code of a process that SIGPIPE ended: 128 + 13.
const CLOSED_PIPE_EXIT: u8 = 141;

/// Writes `text` to standard output: a reader that closed the pipe ends the
/// command quietly (141), a stdout that cannot take it (`/dev/full`) is a
/// one-line error (1), never a panic.
fn print(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(CLOSED_PIPE_EXIT)
        }
        Err(error) => fail(
            &format!("cannot write to standard output: {error}"),
            OUTPUT_EXIT,
        ),
    }
}

/// Says `message` on standard error, as one line, and gives `code`. A
/// standard error that cannot take it changes nothing but the line's loss.
fn fail(message: &str, code: u8) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "timerbench-report: error: {message}");
    ExitCode::from(code)
}
