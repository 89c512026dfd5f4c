//! The one error type of the crate. Every message says what was wrong, where
//! (file and line, or the field's path in a spec) and what would be valid, so a
//! user can fix the input without reading this crate.

use std::fmt;
use std::path::PathBuf;

use crate::text::{MESSAGE_WIDTH, wrap_words};

/// Why a spec, a trace or a scale name was refused.
#[derive(Debug)]
#[non_exhaustive]
pub enum WorkloadError {
    /// The spec is not valid TOML or does not have the shape of a spec: an
    /// unknown or missing field, a value of the wrong type, an unknown `kind`.
    /// The message shows the line and column; for a shape error it names the
    /// field, quotes what was given and shows how to write it
    /// (`spec_error.rs`), for bad TOML it is the parser's.
    SpecSyntax {
        /// Where the spec came from: its file name, or `workload <name>`.
        origin: String,
        /// The parser's message, with the line and column and the valid choices.
        message: String,
    },
    /// A field of a spec has a value outside its valid range.
    InvalidSpec {
        /// Where the spec came from: its file name, or `workload <name>`.
        origin: String,
        /// The field's path, such as `delay.max` or `delay.parts[1].weight`.
        field: String,
        /// What is wrong and what is valid, phrased to follow the field's name.
        problem: String,
    },
    /// A spec file could not be read: missing, unreadable, not a regular
    /// file, or larger than a spec can be.
    SpecUnreadable {
        /// The spec file.
        path: PathBuf,
        /// What went wrong, from the operating system or the bound.
        error: std::io::Error,
    },
    /// A trace file could not be read.
    TraceUnreadable {
        /// The trace file.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// A line of a trace file is malformed.
    InvalidTrace {
        /// The trace file.
        path: PathBuf,
        /// The line, counting from 1; 0 for the file as a whole (its name).
        line: u64,
        /// What is wrong and what is valid.
        problem: String,
    },
    /// A scale name other than `small`, `default` or `large`.
    UnknownScale {
        /// The name given.
        given: String,
    },
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::SpecSyntax { origin, message } => {
                write!(f, "{origin}: invalid workload spec: {}", message.trim_end())
            }
            WorkloadError::InvalidSpec {
                origin,
                field,
                problem,
            } => {
                let body = wrap_words(&format!("  `{field}` "), problem, MESSAGE_WIDTH);
                write!(f, "{origin}: invalid workload spec:\n{body}")
            }
            WorkloadError::SpecUnreadable { path, error } => {
                write!(
                    f,
                    "{}: cannot read the workload spec: {error}",
                    path.display()
                )
            }
            WorkloadError::TraceUnreadable { path, error } => {
                write!(f, "{}: cannot read the trace: {error}", path.display())
            }
            WorkloadError::InvalidTrace {
                path,
                line,
                problem,
            } => {
                if *line == 0 {
                    write!(f, "{}: invalid trace: {problem}", path.display())
                } else {
                    write!(f, "{}:{line}: invalid trace: {problem}", path.display())
                }
            }
            WorkloadError::UnknownScale { given } => {
                write!(
                    f,
                    "unknown scale {given:?}; valid scales are: small, default, large"
                )
            }
        }
    }
}

/// The operating system's error is part of the message already, so it is not
/// also given as the source: a caller printing the chain (`{:#}`) would say it
/// twice.
impl std::error::Error for WorkloadError {}
