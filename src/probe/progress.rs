//! What the user sees: the command's own output passed through unchanged, and
//! calib's lines on stderr.
//!
//! Pass-through writes each chunk read from the command with one `write(2)` per
//! chunk, straight to file descriptor 1 or 2 (no line buffering, no copy into a
//! second buffer; see [`output::write_raw`]): under Slurm the output goes to a
//! file and costs the same as without calib. When stderr is a terminal, calib
//! keeps a live status line at the bottom (units done, last unit's time, trend
//! so far); it is erased before any output of the command reaches the terminal
//! and drawn again only when the cursor is at the start of a line. Otherwise
//! calib prints a start line, the first marker lines it counted, and a summary
//! line per run.
//!
//! A stream whose reader went away (EPIPE: Rust ignores SIGPIPE) is closed for
//! the rest of the probe and its output dropped; other write errors (a full
//! disk under the Slurm log, EIO) drop that one write, the next may pass.
//! Neither stops the probe: the units are what it is for, the echo is a
//! courtesy. Either is said once on stderr, with the OS error for the
//! latter: output missing from a log with no word of why would pass for
//! output the command never printed.

use std::io::ErrorKind;
use std::time::{Duration, Instant};

use crate::output::{self, human_duration, Stream};
use crate::stats::median;

/// How calib reports progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// A live status line when stderr is a terminal, else plain lines.
    Auto,
    /// Always the live status line (for terminals calib does not recognise).
    Live,
    /// A start line and a summary line per run, no status line.
    Plain,
}

/// calib's view of its own stdout and stderr.
pub(crate) struct Console {
    live: bool,
    /// Whether stdout is the same terminal (its output must erase the status too).
    stdout_on_terminal: bool,
    status_shown: bool,
    /// The last byte of the command's output that reached calib's stderr (on
    /// a terminal, or in a log stdout shares with it) ended a line.
    at_line_start: bool,
    /// stdout and stderr are one file or terminal (a Slurm log by default):
    /// the command's stdout then ends lines on calib's stderr too.
    stdout_shares_stderr: bool,
    last_draw: Option<Instant>,
    stdout_closed: bool,
    stderr_closed: bool,
    /// A write of the command's output failed (not EPIPE) and was said.
    stdout_lost_said: bool,
    stderr_lost_said: bool,
}

/// What became of a write.
#[derive(Debug, PartialEq, Eq)]
enum Written {
    /// Written.
    Done,
    /// Dropped for an error that may pass (the error's text).
    Lost(String),
    /// The stream's reader went away with this write.
    NowClosed,
    /// The stream was closed before: nothing written.
    WasClosed,
}

/// Whether two of calib's streams are the same open file or terminal.
fn same_file(a: Stream, b: Stream) -> bool {
    let stat = |s: Stream| {
        rustix::fs::fstat(s.fd())
            .ok()
            .map(|st| (st.st_dev, st.st_ino))
    };
    matches!((stat(a), stat(b)), (Some(x), Some(y)) if x == y)
}

impl Console {
    pub(crate) fn new(mode: ProgressMode) -> Console {
        let live = match mode {
            ProgressMode::Auto => Stream::Stderr.is_terminal(),
            ProgressMode::Live => true,
            ProgressMode::Plain => false,
        };
        Console {
            live,
            stdout_on_terminal: live && Stream::Stdout.is_terminal(),
            status_shown: false,
            at_line_start: true,
            stdout_shares_stderr: same_file(Stream::Stdout, Stream::Stderr),
            last_draw: None,
            stdout_closed: false,
            stderr_closed: false,
            stdout_lost_said: false,
            stderr_lost_said: false,
        }
    }

    pub(crate) fn is_live(&self) -> bool {
        self.live
    }

    fn write(&mut self, stream: Stream, bytes: &[u8]) -> Written {
        let closed = match stream {
            Stream::Stdout => &mut self.stdout_closed,
            Stream::Stderr => &mut self.stderr_closed,
        };
        if *closed {
            return Written::WasClosed;
        }
        match output::write_raw(stream, bytes) {
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                *closed = true;
                Written::NowClosed
            }
            // Anything else (a full disk under the Slurm log, EIO) loses this
            // chunk only; the next may pass.
            Err(e) => Written::Lost(e.to_string()),
            Ok(()) => Written::Done,
        }
    }

    /// Passes a chunk of the command's output through to calib's own `fd` (1 or 2).
    pub(crate) fn pass_through(&mut self, fd: i32, bytes: &[u8]) {
        let stream = if fd == 2 {
            Stream::Stderr
        } else {
            Stream::Stdout
        };
        let closed = match stream {
            Stream::Stdout => self.stdout_closed,
            Stream::Stderr => self.stderr_closed,
        };
        if closed || bytes.is_empty() {
            return;
        }
        let on_terminal = self.live && (stream == Stream::Stderr || self.stdout_on_terminal);
        if on_terminal {
            self.erase_status();
        }
        match self.write(stream, bytes) {
            Written::NowClosed if stream == Stream::Stdout => self.line(
                "calib: standard output is closed (its reader went away); the command's stdout is no longer shown, units are still recorded",
            ),
            Written::Lost(e) => {
                let (said, name) = match stream {
                    Stream::Stdout => (&mut self.stdout_lost_said, "stdout"),
                    Stream::Stderr => (&mut self.stderr_lost_said, "stderr"),
                };
                if !std::mem::replace(said, true) {
                    // On stderr, which may fail the same way: then nothing
                    // can be said anywhere.
                    self.line(&format!(
                        "calib: warning: the command's {name} could not be passed through to calib's {name} ({e}): some of its output is missing there (said once); units are still recorded"
                    ));
                }
            }
            _ => {}
        }
        if on_terminal || stream == Stream::Stderr || self.stdout_shares_stderr {
            self.at_line_start = bytes.ends_with(b"\n");
        }
    }

    /// One line of calib's own (a newline is added).
    pub(crate) fn line(&mut self, text: &str) {
        self.erase_status();
        let mut bytes = Vec::with_capacity(text.len() + 2);
        // A line of its own, also in a log: never `step 1calib: ...`.
        if !self.at_line_start {
            bytes.push(b'\n');
            self.at_line_start = true;
        }
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        self.write(Stream::Stderr, &bytes);
    }

    /// Draws the status line (live mode only), at most 10 times a second unless
    /// `force`.
    pub(crate) fn status(&mut self, text: &str, force: bool) {
        if !self.live || !self.at_line_start || self.stderr_closed {
            return;
        }
        let now = Instant::now();
        if !force
            && self
                .last_draw
                .is_some_and(|t| now - t < Duration::from_millis(100))
        {
            return;
        }
        self.last_draw = Some(now);
        let width = Stream::Stderr
            .columns()
            .unwrap_or(100)
            .saturating_sub(1)
            .max(20);
        let shown: String = text.chars().take(width).collect();
        if self.write(Stream::Stderr, format!("\r\x1b[K{shown}").as_bytes()) == Written::Done {
            self.status_shown = true;
        }
    }

    /// Removes the status line, leaving the cursor at the start of an empty line.
    pub(crate) fn erase_status(&mut self) {
        if self.status_shown {
            self.write(Stream::Stderr, b"\r\x1b[K");
            self.status_shown = false;
        }
    }
}

/// The units of one run so far, for the status and summary lines.
#[derive(Debug, Default, Clone)]
pub(crate) struct UnitStats {
    /// Each unit's own duration (unit 1 includes startup).
    pub(crate) unit_s: Vec<f64>,
    /// Units counted on stdout and on stderr.
    pub(crate) on_stdout: u64,
    pub(crate) on_stderr: u64,
    /// Output lines longer than the marker scanner keeps, matched on their
    /// start only ([`super::marker::LineScanner::cut_lines`]).
    pub(crate) cut_lines: u64,
}

impl UnitStats {
    pub(crate) fn push(&mut self, seconds: f64) {
        self.unit_s.push(seconds);
    }

    /// Counts one unit read on `stream` (`stdout` or `stderr`).
    pub(crate) fn count_on(&mut self, stream: &str) {
        match stream {
            "stderr" => self.on_stderr += 1,
            _ => self.on_stdout += 1,
        }
    }

    /// When units were counted on both streams: a program that reports each
    /// unit on both (a progress line on stdout, a log line on stderr) has
    /// every unit counted twice, and nothing in the timings shows it.
    pub(crate) fn both_streams_text(&self) -> Option<String> {
        (self.on_stdout > 0 && self.on_stderr > 0).then(|| {
            format!(
                "units were counted on both stdout ({}) and stderr ({}): if both report the same units, each is counted twice; give a --unit-regex that only one of them matches",
                self.on_stdout, self.on_stderr
            )
        })
    }

    /// When output lines were too long to search whole: a unit marker past
    /// the first 64 KiB of a line is not seen, and nothing in the timings
    /// shows that a unit is missing.
    pub(crate) fn cut_lines_text(&self) -> Option<String> {
        (self.cut_lines > 0).then(|| {
            format!(
                "{} output line(s) longer than {} KiB were searched for unit markers on their first {} KiB only, so a unit marker later in such a line would not be counted; print each marker on a line of its own",
                self.cut_lines,
                super::marker::MAX_LINE / 1024,
                super::marker::MAX_LINE / 1024
            )
        })
    }

    /// Mean unit time of the later half over the earlier half, unit 1 (which
    /// holds startup) left out; needs 4 units besides the first.
    pub(crate) fn trend(&self) -> Option<(f64, f64)> {
        let body = self.unit_s.get(1..)?;
        if body.len() < 4 {
            return None;
        }
        let half = body.len() / 2;
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
        Some((mean(&body[..half]), mean(&body[body.len() - half..])))
    }

    pub(crate) fn trend_text(&self) -> String {
        match self.trend() {
            Some((early, late)) if early > 0.0 => format!(
                "trend x{:.2} ({} -> {} per unit, early half -> late half)",
                late / early,
                human_duration(early),
                human_duration(late)
            ),
            Some(_) => "trend: n/a (the early units took no measurable time)".to_string(),
            None => "trend: needs 5 units".to_string(),
        }
    }

    /// The median unit time, unit 1 (which holds startup) left out.
    pub(crate) fn median(&self) -> Option<f64> {
        median(self.unit_s.get(1..)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trend_compares_halves_without_the_first_unit() {
        let mut stats = UnitStats::default();
        for s in [30.0, 1.0, 1.0, 2.0, 2.0] {
            stats.push(s);
        }
        assert_eq!(stats.trend(), Some((1.0, 2.0)));
        assert!(stats.trend_text().contains("x2.00"));
        // The middle two of 1, 1, 2, 2 (unit 1 left out).
        assert_eq!(stats.median(), Some(1.5));
        stats.unit_s.truncate(3);
        assert_eq!(stats.trend(), None);
    }
}
