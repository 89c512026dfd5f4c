//! The one error of reading results: a problem with the user's input, said
//! with the file, the line where there is one, what was wrong and what is
//! valid. Every reader of a recorded run (the report, the harness commands
//! that judge runs) shows it as it is, so a message is written once, here or
//! beside the check that makes it.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with the user's input: a missing directory or file, or a file
/// that is not what the schema says. Its message names the file and, where
/// there is one, the line.
#[derive(Debug)]
pub struct InputError {
    /// The file (or directory) at fault.
    pub path: PathBuf,
    /// The 1-based line, when the problem is on one line.
    pub line: Option<u64>,
    /// What was wrong and what is valid, as a sentence.
    pub message: String,
}

impl InputError {
    /// An error about `path` (at `line`, when the problem is on one).
    pub fn new(path: &Path, line: Option<u64>, message: impl Into<String>) -> Self {
        Self {
            path: path.to_path_buf(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path.display(), self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for InputError {}
