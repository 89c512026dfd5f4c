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
    /// The reader of standard output went away (`| head`): the command ends
    /// quietly, with the status of a process that SIGPIPE ended (141), which
    /// is what a shell pipeline expects of it.
    ClosedPipe,
}

/// The exit code of bad input.
const INPUT_EXIT: u8 = 2;
/// The exit code of a failed run.
const RUN_EXIT: u8 = 1;
/// The exit code of a process that SIGPIPE ended: 128 + 13.
const CLOSED_PIPE_EXIT: u8 = 141;

impl Failure {
    /// The process's exit code for this failure.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Failure::Input(_) => ExitCode::from(INPUT_EXIT),
            Failure::Run(_) => ExitCode::from(RUN_EXIT),
            Failure::ClosedPipe => ExitCode::from(CLOSED_PIPE_EXIT),
        }
    }

    /// The error, with its causes (`None` for a closed pipe, which says
    /// nothing).
    pub fn error(&self) -> Option<&anyhow::Error> {
        match self {
            Failure::Input(error) | Failure::Run(error) => Some(error),
            Failure::ClosedPipe => None,
        }
    }
}

/// Writes `text` to standard output at once. A reader that closed the pipe
/// early (`| head`) is [`Failure::ClosedPipe`], which ends the command
/// quietly; a stdout that cannot take it (a full disk, `/dev/full`) is a
/// failure of the run, said in one line, never a panic.
pub fn print(text: &str) -> Result<(), Failure> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Err(Failure::ClosedPipe),
        Err(error) => Err(Failure::Run(anyhow::anyhow!(
            "cannot write to standard output: {error}"
        ))),
    }
}
