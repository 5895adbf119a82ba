//! The one path by which calib writes to its standard output and standard error.
//!
//! Nothing else in the crate touches file descriptors 1 and 2: the crate roots
//! deny `print!`/`eprintln!` (clippy's `print_stdout`, `print_stderr`) and
//! `clippy.toml` disallows `std::io::stdout`/`std::io::stderr` everywhere but
//! here, so CI's clippy catches a stray write.
//!
//! The rules, as ripgrep has them:
//! - **stdout** carries a command's result, written by one of the command's
//!   exporters through [`write_result`]. A reader that goes away early
//!   (`calib budget ... | head -1`) is not a failure: it has what it wanted.
//!   Rust ignores SIGPIPE, so the write fails with EPIPE instead of killing
//!   the process; the error travels up like any other, and `main` recognises
//!   it with [`is_closed_stdout`] and ends quietly with status 0. Any other
//!   failed write (a full disk behind `>`) is an [`Error::Io`]: status 1. A
//!   descriptor 1 closed before calib starts (`calib fit ... >&-`) is, by
//!   then, `/dev/null`: Rust's runtime opens it there before `main`, so calib
//!   cannot tell it from `>/dev/null` and ends with status 0 as it does there.
//! - **stderr** carries warnings, notes and the final error ([`warn`],
//!   [`note`], [`error`]). A write to it that fails is dropped: there is
//!   nowhere left to report it, and a lost warning must neither stop nor
//!   panic the command (`calib fit ... 2>&1 | head -1`).
//! - **Colour**, sparingly: the `warning:` and `error:` prefixes, and the
//!   table cells that need attention ([`table::Cell::styled`]). Whether a
//!   stream gets it is anstream's choice for that stream: never where
//!   `NO_COLOR` is set or the stream is not a terminal (unless
//!   `CLICOLOR_FORCE` asks for it). Output for programs (JSON, CSV, sbatch
//!   lines) has no style and goes out byte for byte ([`write_result`]);
//!   tables go through [`write_table`], which removes the styles where colour
//!   is off.
//! - **Pass-through** of a probed command's output ([`write_raw`]) goes to the
//!   descriptor with plain `write(2)`, unbuffered, and returns the error for
//!   the caller (probe's console) to decide: probe goes on recording units
//!   whatever becomes of its echo.

#![allow(clippy::disallowed_methods)]

pub(crate) mod duration;
mod share;
pub mod table;

pub(crate) use duration::human_duration;
pub(crate) use share::{change, factor, percent, percent_as_given, trimmed};

use std::fmt::Display;
use std::io::{self, ErrorKind, IsTerminal, Write};
use std::os::fd::BorrowedFd;

use anstream::ColorChoice;
use anstyle::{AnsiColor, Style};
use rustix::event::{PollFd, PollFlags, Timespec};

use crate::error::{Error, Result};
use crate::shell::message_text;

/// `n` things for people: `1 unit`, `3 units`, `0 units`.
pub(crate) fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    match n.into() {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// The width notes are wrapped to: standard output's terminal, else 100
/// columns (a file, a pipe, a Slurm log).
pub(crate) fn text_width() -> usize {
    Stream::Stdout
        .columns()
        .filter(|&cols| cols >= 40)
        .unwrap_or(100)
        .min(100)
}

/// `text` wrapped at spaces into lines of at most `width` columns, the first
/// starting with `first` and the others with `rest` (a word longer than a
/// line stays whole).
pub(crate) fn wrap(text: &str, width: usize, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !empty && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The context of the error that a write to a closed stdout becomes; only
/// [`is_closed_stdout`] looks at it.
const STDOUT_CLOSED: &str = "standard output is closed";

/// The formats of a report that exists in two forms: for people and for
/// programs (`calib fit --format`, `calib audit --format`). `calib budget`
/// has more, see `budget::export::Format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    // No doc comments on the variants: clap would list them in `--help`, where
    // each command already says what its formats hold.
    Table,
    Json,
}

/// One of calib's two output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub(crate) fn fd(self) -> BorrowedFd<'static> {
        match self {
            Stream::Stdout => rustix::stdio::stdout(),
            Stream::Stderr => rustix::stdio::stderr(),
        }
    }

    /// The stream's terminal width, when it is a terminal that says.
    pub(crate) fn columns(self) -> Option<usize> {
        rustix::termios::tcgetwinsize(self.fd())
            .ok()
            .filter(|size| size.ws_col > 0)
            .map(|size| usize::from(size.ws_col))
    }

    /// Whether the stream is a terminal (probe's live status line).
    pub(crate) fn is_terminal(self) -> bool {
        match self {
            Stream::Stdout => io::stdout().is_terminal(),
            Stream::Stderr => io::stderr().is_terminal(),
        }
    }
}

/// Writes a command's result for programs to stdout, byte for byte: `export`
/// writes into a buffer in front of stdout, which is flushed before this
/// returns. A closed stdout comes back as an error that [`is_closed_stdout`]
/// recognises.
pub(crate) fn write_result(export: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let stdout = io::stdout();
    let out = io::BufWriter::new(stdout.lock());
    finish(out, export)
}

/// Writes a table for people to stdout, as [`write_result`] does, keeping its
/// styles where stdout takes colour and removing them (every escape sequence)
/// elsewhere.
pub(crate) fn write_table(export: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let stdout = io::stdout();
    let out = io::BufWriter::new(anstream::AutoStream::auto(stdout.lock()));
    finish(out, export)
}

fn finish<W: Write>(
    mut out: io::BufWriter<W>,
    export: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<()> {
    export(&mut out).and_then(|()| out.flush()).map_err(|e| {
        if e.kind() == ErrorKind::BrokenPipe {
            Error::io(STDOUT_CLOSED, e)
        } else {
            Error::io("cannot write to standard output", e)
        }
    })
}

/// The text clap renders for `--help` and `--version`, which is the command's
/// result: on stdout like any other (a failed write is an error, a closed
/// reader is not), its styles kept only where stdout takes colour.
pub fn write_help(rendered: impl Display) -> Result<()> {
    write_table(|out| write!(out, "{rendered}"))
}

/// True for the error a write to a closed stdout ends in: the program should
/// end quietly and successfully.
pub fn is_closed_stdout(error: &Error) -> bool {
    matches!(error, Error::Io { context, source }
        if context == STDOUT_CLOSED && source.kind() == ErrorKind::BrokenPipe)
}

/// The style of a word that warns (`warning:`, a status that needs a look).
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
/// The style of a word that says something failed or cannot be done
/// (`error:`, `over_cap`, `unsupported`).
pub const FAILURE: Style = AnsiColor::Red.on_default().bold();

/// `word` in `style` when stderr takes colour (see the module docs).
fn stderr_word(word: &str, style: Style) -> String {
    match anstream::AutoStream::choice(&io::stderr()) {
        ColorChoice::Never => word.to_string(),
        _ => format!("{style}{word}{style:#}"),
    }
}

/// `calib: warning: <message>` on stderr.
pub(crate) fn warn(message: impl Display) {
    to_stderr(&format!(
        "calib: {} {}\n",
        stderr_word("warning:", WARNING),
        message_text(&message.to_string())
    ));
}

/// `calib: <message>` on stderr: what calib did besides its result (`wrote 4
/// rows to ...`), or why its exit status is not 0.
pub fn note(message: impl Display) {
    to_stderr(&format!("calib: {}\n", message_text(&message.to_string())));
}

/// `calib: error: <error>` on stderr: the message of a failed command.
pub fn error(error: &Error) {
    to_stderr(&format!(
        "calib: {} {}\n",
        stderr_word("error:", FAILURE),
        message_text(&error.to_string())
    ));
}

/// A usage error clap rendered, with calib's prefix (`calib: error: ...`) so
/// that every error calib reports starts alike.
pub fn usage_error(error: &clap::Error) {
    let rendered = match anstream::AutoStream::choice(&io::stderr()) {
        ColorChoice::Never => error.render().to_string(),
        _ => error.render().ansi().to_string(),
    };
    to_stderr(&format!("calib: {rendered}"));
}

/// One line in one write, so that lines of concurrent writers do not mix; a
/// failure is dropped (see the module's rules).
fn to_stderr(line: &str) {
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// How long [`write_raw`] waits for a full descriptor before trying again.
const POLL_FULL_WAIT: Timespec = Timespec {
    tv_sec: 1,
    tv_nsec: 0,
};

/// `write(2)` of all of `bytes` to `stream`, unbuffered: probe's pass-through
/// and console. Waits when the descriptor is non-blocking and full (a
/// terminal or pipe the probed command left in that mode); retries when
/// interrupted by a signal. Other errors, EPIPE among them, are returned.
pub(crate) fn write_raw(stream: Stream, mut bytes: &[u8]) -> io::Result<()> {
    let fd = stream.fd();
    while !bytes.is_empty() {
        // A closed descriptor gives EBADF, returned like any other error.
        match rustix::io::write(fd, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => {
                let mut p = [PollFd::from_borrowed_fd(fd, PollFlags::OUT)];
                // Only a wait: a failed poll shows again in the next write.
                let _ = rustix::event::poll(&mut p, Some(&POLL_FULL_WAIT));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_broken_pipe_on_stdout_counts_as_a_closed_stdout() {
        let closed = Error::io(STDOUT_CLOSED, io::Error::from(ErrorKind::BrokenPipe));
        assert!(is_closed_stdout(&closed));
        let full = Error::io(
            "cannot write to standard output",
            io::Error::from(ErrorKind::StorageFull),
        );
        assert!(!is_closed_stdout(&full));
        // A broken pipe elsewhere (a command calib feeds) is a real failure.
        let elsewhere = Error::io(
            "cannot write to sacct",
            io::Error::from(ErrorKind::BrokenPipe),
        );
        assert!(!is_closed_stdout(&elsewhere));
    }
}
