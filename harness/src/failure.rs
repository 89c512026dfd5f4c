//! Why a command failed, which decides its exit code: bad input (2) or a
//! failure of the work itself (1). Every command of `timerbench` returns a
//! [`Failure`], and the binary prints it as one line, `timerbench: error: `
//! and the error with its causes.
//!
//! The split is the user's question "is it me or is it the tool?": unknown
//! names, invalid specs and traces, an unusable output directory, results
//! files of different runs are the input's; an algorithm that disagrees with
//! the reference model, a file that cannot be written, a child process that
//! fails are the run's.

use std::process::ExitCode;

/// Why a command failed, which decides the exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit 2.
    Input(anyhow::Error),
    /// The run itself failed: exit 1.
    Run(anyhow::Error),
}

/// The exit code of bad input.
const INPUT_EXIT: u8 = 2;
/// The exit code of a failed run.
const RUN_EXIT: u8 = 1;

impl Failure {
    /// The process's exit code for this failure.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Input(_) => ExitCode::from(INPUT_EXIT),
            Failure::Run(_) => ExitCode::from(RUN_EXIT),
        }
    }

    /// The error, with its causes.
    pub fn error(&self) -> &anyhow::Error {
        match self {
            Failure::Input(error) | Failure::Run(error) => error,
        }
    }
}

/// Writes `text` to standard output at once. A reader that closed the pipe
/// early (`| head`) ends the output quietly, as `head` expects; a stdout that
/// cannot take it (a full disk, `/dev/full`) is a failure of the run, said
/// in one line, never a panic.
pub fn print(text: &str) -> Result<(), Failure> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(Failure::Run(anyhow::anyhow!(
            "cannot write to standard output: {error}"
        ))),
    }
}
