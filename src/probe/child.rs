//! The command's process and calib's means of stopping it.
//!
//! The command runs in its own process group (unless stdin is a terminal, where
//! it stays in calib's group so that it can still read the terminal), so that
//! `TERM` and `KILL` reach its children too (a shell loop's `sleep`, a data
//! loader's workers). It gets `PR_SET_PDEATHSIG` = `TERM` on Linux: if calib is
//! killed outright, the command is told to stop rather than left running with
//! nobody recording it. Its output goes to two pipes, which the runner reads.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use super::signals::{Received, PASS_SIGNALS, STOP_SIGNALS};
use crate::error::{Error, Result};

/// Why calib itself stopped the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// `--units` reached.
    Limit,
    /// `--timeout` reached.
    Timeout,
    /// calib was sent this signal (and passed it on).
    Signal(i32),
    /// A row could not be written: the probe is worthless, stop.
    WriteFailed,
}

/// A running command.
pub struct Supervised {
    child: Child,
    /// What signals are sent to: `-pgid` (its own group) or its pid.
    target: i32,
    own_group: bool,
    grace: Duration,
    /// When a `KILL` follows calib's `TERM`.
    kill_at: Option<Instant>,
    /// The first reason calib stopped it, if any.
    pub stopped: Option<StopReason>,
    /// A stop signal calib received (no further run may start).
    pub stop_signal: Option<i32>,
    /// Its exit status and when calib saw it.
    pub exit: Option<(ExitStatus, Instant)>,
}

/// A freshly started command: its control, its launch instant and its output.
pub struct Started {
    pub process: Supervised,
    /// The monotonic instant of the launch: `elapsed_s` counts from here.
    pub start: Instant,
    pub started_at: chrono::DateTime<chrono::Utc>,
    pub stdout: Option<OwnedFd>,
    pub stderr: Option<OwnedFd>,
}

impl Supervised {
    /// Starts `argv`; `unbuffered` sets `PYTHONUNBUFFERED=1` unless it is set.
    pub fn spawn(argv: &[OsString], unbuffered: bool, grace: Duration) -> Result<Started> {
        // SAFETY: isatty only inspects descriptor 0.
        let own_group = unsafe { libc::isatty(0) } != 1;
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if unbuffered && std::env::var_os("PYTHONUNBUFFERED").is_none() {
            command.env("PYTHONUNBUFFERED", "1");
        }
        // SAFETY: the closure runs between fork and exec and calls only
        // async-signal-safe functions (setpgid, prctl).
        unsafe {
            command.pre_exec(move || {
                if own_group {
                    libc::setpgid(0, 0);
                }
                #[cfg(target_os = "linux")]
                libc::prctl(
                    libc::PR_SET_PDEATHSIG,
                    libc::SIGTERM as libc::c_ulong,
                    0,
                    0,
                    0,
                );
                Ok(())
            });
        }
        let started_at = chrono::Utc::now();
        let start = Instant::now();
        let mut child = command
            .spawn()
            .map_err(|e| Error::io(format!("cannot start `{}`", argv[0].to_string_lossy()), e))?;
        let pid = child.id() as i32;
        let stdout = child.stdout.take().map(OwnedFd::from);
        let stderr = child.stderr.take().map(OwnedFd::from);
        Ok(Started {
            process: Supervised {
                child,
                target: if own_group { -pid } else { pid },
                own_group,
                grace,
                kill_at: None,
                stopped: None,
                stop_signal: None,
                exit: None,
            },
            start,
            started_at,
            stdout,
            stderr,
        })
    }

    fn signal(&self, sig: i32) {
        if self.exit.is_none() {
            // SAFETY: signalling our own, not yet reaped child (or its group).
            unsafe { libc::kill(self.target, sig) };
        }
    }

    /// Stops the command: `TERM` and `CONT` (so that a stopped command can act
    /// on it), then `KILL` after the grace period. Only the first reason counts.
    pub fn stop(&mut self, reason: StopReason) {
        if self.stopped.is_some() || self.exit.is_some() {
            return;
        }
        self.stopped = Some(reason);
        self.signal(libc::SIGTERM);
        self.signal(libc::SIGCONT);
        self.kill_at = Some(Instant::now() + self.grace);
    }

    /// Acts on the probe's deadline and on a due `KILL`.
    pub fn on_time(&mut self, now: Instant, deadline: Option<Instant>) {
        if self.exit.is_some() {
            return;
        }
        if deadline.is_some_and(|d| now >= d) {
            self.stop(StopReason::Timeout);
        }
        if self.kill_at.is_some_and(|k| now >= k) {
            self.signal(libc::SIGKILL);
            self.kill_at = None;
        }
    }

    /// The next moment [`Supervised::on_time`] has something to do.
    pub fn next_time(&self, deadline: Option<Instant>) -> Option<Instant> {
        if self.exit.is_some() {
            return None;
        }
        let deadline = deadline.filter(|_| self.stopped.is_none());
        match (self.kill_at, deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Passes a signal calib received on to the command. Stop signals also
    /// mark the run as stopped. A signal the terminal sent to the whole
    /// foreground group already reached a command that shares calib's group,
    /// and is not sent twice.
    pub fn on_signal(&mut self, received: Received) {
        let sig = received.signal;
        let forward = !received.from_terminal || self.own_group;
        if STOP_SIGNALS.contains(&sig) {
            self.stop_signal.get_or_insert(sig);
            self.stopped.get_or_insert(StopReason::Signal(sig));
            if forward {
                self.signal(sig);
                self.signal(libc::SIGCONT);
            }
        } else if PASS_SIGNALS.contains(&sig) && forward {
            self.signal(sig);
        }
    }

    /// Reaps the command if it has exited.
    pub fn reap(&mut self) -> Result<()> {
        if self.exit.is_none() {
            if let Some(status) = self
                .child
                .try_wait()
                .map_err(|e| Error::io("cannot wait for the command", e))?
            {
                self.exit = Some((status, Instant::now()));
            }
        }
        Ok(())
    }
}
