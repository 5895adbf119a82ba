//! What the user sees: the command's own output passed through unchanged, and
//! calib's lines on stderr.
//!
//! Pass-through writes each chunk read from the command with one `write(2)` per
//! chunk, straight to file descriptor 1 or 2 (no line buffering, no copy into a
//! second buffer): under Slurm the output goes to a file and costs the same as
//! without calib. When stderr is a terminal, calib keeps a live status line at
//! the bottom (units done, last unit's time, trend so far); it is erased before
//! any output of the command reaches the terminal and drawn again only when the
//! cursor is at the start of a line. Otherwise calib prints a start line, the
//! first marker lines it counted, and a summary line per run.

use std::io::{self, ErrorKind};
use std::time::{Duration, Instant};

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
pub struct Console {
    live: bool,
    /// Whether stdout is the same terminal (its output must erase the status too).
    stdout_on_terminal: bool,
    status_shown: bool,
    /// The last byte written to the terminal by the command ended a line.
    at_line_start: bool,
    last_draw: Option<Instant>,
    /// A stream whose reader went away (EPIPE): its output is dropped.
    closed: [bool; 2],
}

fn isatty(fd: i32) -> bool {
    // SAFETY: isatty only inspects the descriptor.
    unsafe { libc::isatty(fd) == 1 }
}

impl Console {
    pub fn new(mode: ProgressMode) -> Console {
        let live = match mode {
            ProgressMode::Auto => isatty(2),
            ProgressMode::Live => true,
            ProgressMode::Plain => false,
        };
        Console {
            live,
            stdout_on_terminal: live && isatty(1),
            status_shown: false,
            at_line_start: true,
            last_draw: None,
            closed: [false, false],
        }
    }

    pub fn is_live(&self) -> bool {
        self.live
    }

    /// Passes a chunk of the command's output through to calib's own `fd` (1 or 2).
    pub fn pass_through(&mut self, fd: i32, bytes: &[u8]) {
        let slot = (fd == 2) as usize;
        if self.closed[slot] || bytes.is_empty() {
            return;
        }
        let on_terminal = self.live && (fd == 2 || self.stdout_on_terminal);
        if on_terminal {
            self.erase_status();
        }
        match write_all_fd(fd, bytes) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::BrokenPipe => {
                self.closed[slot] = true;
                if fd == 1 {
                    self.line(&format!(
                        "calib: standard output is closed ({e}); the command's stdout is no longer shown, units are still recorded"
                    ));
                }
            }
            Err(_) => {}
        }
        if on_terminal {
            self.at_line_start = bytes.ends_with(b"\n");
        }
    }

    /// One line of calib's own (a newline is added).
    pub fn line(&mut self, text: &str) {
        self.erase_status();
        let mut bytes = Vec::with_capacity(text.len() + 2);
        if self.live && !self.at_line_start {
            bytes.push(b'\n');
            self.at_line_start = true;
        }
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        if !self.closed[1] {
            let _ = write_all_fd(2, &bytes);
        }
    }

    /// Draws the status line (live mode only), at most 10 times a second unless
    /// `force`.
    pub fn status(&mut self, text: &str, force: bool) {
        if !self.live || !self.at_line_start || self.closed[1] {
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
        let width = terminal_width().saturating_sub(1).max(20);
        let shown: String = text.chars().take(width).collect();
        let _ = write_all_fd(2, format!("\r\x1b[K{shown}").as_bytes());
        self.status_shown = true;
    }

    /// Removes the status line, leaving the cursor at the start of an empty line.
    pub fn erase_status(&mut self) {
        if self.status_shown {
            let _ = write_all_fd(2, b"\r\x1b[K");
            self.status_shown = false;
        }
    }
}

fn terminal_width() -> usize {
    // SAFETY: TIOCGWINSZ fills a winsize for a terminal descriptor.
    unsafe {
        let mut ws: libc::winsize = std::mem::zeroed();
        if libc::ioctl(2, libc::TIOCGWINSZ, &mut ws) == 0 && ws.ws_col > 0 {
            return ws.ws_col as usize;
        }
    }
    100
}

/// `write(2)` until done; waits when the descriptor is non-blocking and full.
pub fn write_all_fd(fd: i32, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        // SAFETY: writing from a valid slice.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n >= 0 {
            bytes = &bytes[n as usize..];
            continue;
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            ErrorKind::Interrupted => {}
            ErrorKind::WouldBlock => {
                let mut p = libc::pollfd {
                    fd,
                    events: libc::POLLOUT,
                    revents: 0,
                };
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut p, 1, 1000) };
            }
            _ => return Err(e),
        }
    }
    Ok(())
}

/// The units of one run so far, for the status and summary lines.
#[derive(Debug, Default, Clone)]
pub struct UnitStats {
    /// Each unit's own duration (unit 1 includes startup).
    pub unit_s: Vec<f64>,
}

impl UnitStats {
    pub fn push(&mut self, seconds: f64) {
        self.unit_s.push(seconds);
    }

    pub fn count(&self) -> usize {
        self.unit_s.len()
    }

    /// Mean unit time of the later half over the earlier half, unit 1 (which
    /// holds startup) left out; needs 4 units besides the first.
    pub fn trend(&self) -> Option<(f64, f64)> {
        let body = self.unit_s.get(1..)?;
        if body.len() < 4 {
            return None;
        }
        let half = body.len() / 2;
        let mean = |xs: &[f64]| xs.iter().sum::<f64>() / xs.len() as f64;
        Some((mean(&body[..half]), mean(&body[body.len() - half..])))
    }

    pub fn trend_text(&self) -> String {
        match self.trend() {
            Some((early, late)) if early > 0.0 => format!(
                "trend x{:.2} ({} -> {} per unit, early half -> late half)",
                late / early,
                seconds(early),
                seconds(late)
            ),
            Some(_) => "trend: n/a (the early units took no measurable time)".to_string(),
            None => "trend: needs 5 units".to_string(),
        }
    }

    pub fn median(&self) -> Option<f64> {
        let mut v = self.unit_s.get(1..)?.to_vec();
        if v.is_empty() {
            return None;
        }
        v.sort_by(|a, b| a.total_cmp(b));
        Some(v[v.len() / 2])
    }
}

/// Seconds in a short form: `0.012s`, `1.35s`, `2m05s`.
pub fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{s:.3}s")
    } else if s < 60.0 {
        format!("{s:.2}s")
    } else {
        super::duration::human(Duration::from_secs_f64(s))
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
        assert_eq!(stats.median(), Some(2.0));
        stats.unit_s.truncate(3);
        assert_eq!(stats.trend(), None);
    }

    #[test]
    fn short_seconds() {
        assert_eq!(seconds(0.0123), "0.012s");
        assert_eq!(seconds(1.349), "1.35s");
        assert_eq!(seconds(125.0), "2m05s");
    }
}
