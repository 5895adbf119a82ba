//! calib's errors and the exit status each one maps to.
//!
//! Exit statuses (documented in `calib --help`):
//! 0 success; 1 a failure of the machine or of a command calib ran;
//! 2 bad input, bad usage or a refusal (the message says what to do);
//! 3 `calib budget`: some stratum cannot fit under any partition's cap;
//! `calib stage check`: a check of the stage-2 trigger failed.

use std::fmt;
use std::path::{Path, PathBuf};

/// Exit status for bad input, bad usage and refusals.
pub(crate) const EXIT_INPUT: i32 = 2;
/// Exit status for failures of the system (I/O, a command that could not start).
pub(crate) const EXIT_FAILURE: i32 = 1;
/// Exit status of `calib budget` when a stratum is `over_cap`.
pub(crate) const EXIT_OVER_CAP: i32 = 3;
/// Exit status of `calib stage check` when a check of the trigger fails.
pub(crate) const EXIT_CHECK_FAILED: i32 = 3;

/// Where a piece of input came from, for messages: a file, stdin, or an argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    File(PathBuf),
    Stdin,
    /// A command-line option, named with its dashes (`--partitions`).
    Argument(String),
}

impl Origin {
    pub fn file(path: impl AsRef<Path>) -> Self {
        Origin::File(path.as_ref().to_path_buf())
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File(p) => write!(f, "{}", p.display()),
            Origin::Stdin => write!(f, "<stdin>"),
            Origin::Argument(name) => write!(f, "the value of {name}"),
        }
    }
}

#[derive(Debug)]
pub enum Error {
    /// Input that does not parse: names the origin, the line when known, and
    /// what was expected.
    Input {
        origin: Origin,
        line: Option<u64>,
        message: String,
    },
    /// A request calib will not carry out; the message says how to proceed.
    Refused(String),
    /// A failure of the system: reading, writing, starting a command.
    Io {
        context: String,
        source: std::io::Error,
    },
    /// Anything else that stops a command; exits with status 1.
    Failed(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn input(origin: Origin, line: Option<u64>, message: impl Into<String>) -> Self {
        Error::Input {
            origin,
            line,
            message: message.into(),
        }
    }

    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }

    /// The process exit status this error maps to.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input { .. } | Error::Refused(_) => EXIT_INPUT,
            Error::Io { .. } | Error::Failed(_) => EXIT_FAILURE,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input {
                origin,
                line: Some(line),
                message,
            } => write!(f, "{origin}, line {line}: {message}"),
            Error::Input {
                origin,
                line: None,
                message,
            } => write!(f, "{origin}: {message}"),
            Error::Refused(message) => write!(f, "{message}"),
            Error::Io { context, source } => write!(f, "{context}: {source}"),
            Error::Failed(message) => write!(f, "{message}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
