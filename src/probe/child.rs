//! The command's process and calib's means of stopping it.
//!
//! The command runs in its own process group (unless stdin is a terminal, where
//! it stays in calib's group so that it can still read the terminal), so that
//! every signal calib sends it, `TERM`, `KILL` and the ones it passes on,
//! reaches its children too (a shell loop's `sleep`, a data loader's workers).
//! Its output goes to two pipes, which the runner reads.
//!
//! When calib stops the command (`--units`, `--timeout`, or a `TERM`, `INT`,
//! `HUP` or `QUIT` sent to calib and passed on), the command gets `--grace` to
//! exit, then `KILL`: a command that ignores `TERM` cannot keep a probe (and
//! its allocation) waiting.
//!
//! If calib itself is killed outright (`kill -9`, the OOM killer), it can do
//! nothing more, and the rest is up to:
//!
//! * `PR_SET_PDEATHSIG` = `TERM` (Linux): the kernel sends `TERM` to the
//!   command itself, its direct child only, the moment calib dies;
//! * the **watchdog**: a small `/bin/sh` process in a group of its own, started
//!   before the command, that waits for end-of-file on a pipe whose only
//!   writer is calib. It sees that end-of-file when calib dies, however it
//!   dies, and then sends `TERM` to the command's whole group, and `KILL` after
//!   `--grace` (rounded up to whole seconds) if any of the group is still
//!   there. When a run ends normally calib kills the watchdog first. What to
//!   signal is the pipe's first line, written by the command's own process
//!   between fork and exec: calib cannot die at a moment when the command runs
//!   and the watchdog does not know it (the forked process holds a copy of the
//!   pipe's write end until its exec, so the end-of-file comes after that line).
//!
//! When the command exits, whatever it left running in its group (a worker
//! started in the background, a child that ignored `TERM`) gets `TERM`, then
//! `KILL` after `--grace` ([`Supervised::end_group`]): a run's processes end
//! with the run, not with the allocation. How many there were is counted
//! (from `/proc`, Linux) and said in the run's summary: work a program hands
//! to background processes is lost with them, and nothing else would show it.
//!
//! The output pipes alone would not be enough: a process that writes to them
//! after calib died gets `SIGPIPE`, but one that never writes (a `sleep`, a
//! worker waiting on a socket) is never told.
//!
//! Not covered: processes that left the group (`setsid`, daemons), which no
//! signal to the group reaches; with stdin a terminal, the command's children
//! (only the command itself is signalled, since the group is calib's own and
//! the terminal's); a watchdog that could not be started (no `/bin/sh`: calib
//! warns), that ended before the command started (the command then runs
//! unguarded, and calib warns) or that was killed too; and, in the instants
//! after the group has emptied, a new group given the same number (pids are
//! reused only after the whole pid range has gone round).

use std::ffi::OsString;
use std::io::{IsTerminal, PipeWriter};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

use super::signals::{to_signal, Received, PASS_SIGNALS, STOP_SIGNALS};
use crate::error::{Error, Result};

/// Why calib itself stopped the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopReason {
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
pub(crate) struct Supervised {
    child: Child,
    /// What signals are sent to: `-pgid` (its own group) or its pid.
    target: i32,
    own_group: bool,
    grace: Duration,
    /// When a `KILL` follows calib's `TERM`.
    kill_at: Option<Instant>,
    /// The first reason calib stopped it, if any.
    pub(crate) stopped: Option<StopReason>,
    /// A stop signal calib received (no further run may start).
    pub(crate) stop_signal: Option<i32>,
    /// Its exit status and when calib saw it.
    pub(crate) exit: Option<(ExitStatus, Instant)>,
    /// Stops the command's group if calib dies; `None` if it could not start.
    watchdog: Option<Watchdog>,
}

/// A freshly started command: its control, its launch instant and its output.
pub(crate) struct Started {
    pub(crate) process: Supervised,
    /// The monotonic instant of the launch: `elapsed_s` counts from here.
    pub(crate) start: Instant,
    pub(crate) started_at: chrono::DateTime<chrono::Utc>,
    pub(crate) stdout: Option<OwnedFd>,
    pub(crate) stderr: Option<OwnedFd>,
    /// Why no watchdog could be started, for a warning.
    pub(crate) watchdog_error: Option<String>,
}

impl Supervised {
    /// Starts `argv`; `unbuffered` sets `PYTHONUNBUFFERED=1` unless it is set.
    pub(crate) fn spawn(argv: &[OsString], unbuffered: bool, grace: Duration) -> Result<Started> {
        let own_group = !std::io::stdin().is_terminal();
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .stdin(Stdio::inherit())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if own_group {
            command.process_group(0);
        }
        if unbuffered && std::env::var_os("PYTHONUNBUFFERED").is_none() {
            command.env("PYTHONUNBUFFERED", "1");
        }
        let (watchdog, watchdog_error) = match Watchdog::start(grace) {
            Ok(w) => (Some(w), None),
            Err(e) => (
                None,
                Some(format!(
                    "cannot start the watchdog ({WATCHDOG_SHELL}: {e}): if calib is killed \
                     outright, what the command started may keep running"
                )),
            ),
        };
        let lifeline = watchdog.as_ref().map(|w| w.lifeline.as_raw_fd());
        // SAFETY: std makes pre_exec unsafe because the closure runs in the
        // forked child before exec, where only async-signal-safe calls are
        // allowed; it makes system calls (prctl, getpid, signal, write) on a
        // stack buffer and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                #[cfg(target_os = "linux")]
                let _ = rustix::process::set_parent_process_death_signal(Some(Signal::TERM));
                if let Some(fd) = lifeline {
                    let pid = rustix::process::getpid().as_raw_nonzero().get();
                    let mut line = TargetLine::default();
                    let text = line.format(if own_group { -pid } else { pid });
                    // The fd is calib's open pipe, inherited by this fork. A
                    // watchdog that died already leaves no reader: the write
                    // fails (EPIPE) and the command runs unguarded, rather
                    // than SIGPIPE (which std reset to its default before
                    // this closure) killing it before its exec.
                    let fd = std::os::fd::BorrowedFd::borrow_raw(fd);
                    libc::signal(libc::SIGPIPE, libc::SIG_IGN);
                    let _ = rustix::io::write(fd, text);
                    libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let started_at = chrono::Utc::now();
        let start = Instant::now();
        let spawned = command.spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                if let Some(watchdog) = watchdog {
                    watchdog.stand_down();
                }
                return Err(Error::io(
                    format!("cannot start `{}`", argv[0].to_string_lossy()),
                    e,
                ));
            }
        };
        let pid = child.id() as i32;
        let target = if own_group { -pid } else { pid };
        // A watchdog that is gone already guards nothing: say so, as when it
        // could not start.
        let (watchdog, watchdog_error) = match watchdog {
            Some(mut w) => match w.process.try_wait() {
                Ok(None) => (Some(w), watchdog_error),
                _ => (
                    None,
                    Some(format!(
                        "the watchdog ({WATCHDOG_SHELL}) ended before the command started: if \
                         calib is killed outright, what the command started may keep running"
                    )),
                ),
            },
            None => (None, watchdog_error),
        };
        let stdout = child.stdout.take().map(OwnedFd::from);
        let stderr = child.stderr.take().map(OwnedFd::from);
        Ok(Started {
            process: Supervised {
                child,
                target,
                own_group,
                grace,
                kill_at: None,
                stopped: None,
                stop_signal: None,
                exit: None,
                watchdog,
            },
            start,
            started_at,
            stdout,
            stderr,
            watchdog_error,
        })
    }

    fn signal(&self, sig: i32) {
        if self.exit.is_some() {
            return;
        }
        // Our own, not yet reaped child (or its group), so the pid is not reused.
        let (Some(sig), Some(pid)) = (to_signal(sig), Pid::from_raw(self.target.abs())) else {
            return;
        };
        // A failure means the command (or its whole group) is already gone.
        let _ = if self.own_group {
            rustix::process::kill_process_group(pid, sig)
        } else {
            rustix::process::kill_process(pid, sig)
        };
    }

    /// Stops the command: `TERM` and `CONT` (so that a stopped command can act
    /// on it), then `KILL` after the grace period. Only the first reason counts.
    pub(crate) fn stop(&mut self, reason: StopReason) {
        if self.stopped.is_some() || self.exit.is_some() {
            return;
        }
        self.stopped = Some(reason);
        self.signal(libc::SIGTERM);
        self.signal(libc::SIGCONT);
        self.kill_at = Some(Instant::now() + self.grace);
    }

    /// Acts on the probe's deadline and on a due `KILL`.
    pub(crate) fn on_time(&mut self, now: Instant, deadline: Option<Instant>) {
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
    pub(crate) fn next_time(&self, deadline: Option<Instant>) -> Option<Instant> {
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
    /// mark the run as stopped and set the `KILL` at the end of `--grace`. A
    /// signal the terminal sent to the whole foreground group already reached
    /// a command that shares calib's group, and is not sent twice.
    pub(crate) fn on_signal(&mut self, received: Received) {
        let sig = received.signal;
        let forward = !received.from_terminal || self.own_group;
        if STOP_SIGNALS.contains(&sig) {
            self.stop_signal.get_or_insert(sig);
            self.stopped.get_or_insert(StopReason::Signal(sig));
            if forward {
                self.signal(sig);
                self.signal(libc::SIGCONT);
            }
            // Asked to stop, the command gets --grace, like a stop of calib's
            // own; an earlier KILL already due is not put off.
            if self.exit.is_none() {
                self.kill_at.get_or_insert(Instant::now() + self.grace);
            }
        } else if PASS_SIGNALS.contains(&sig) && forward {
            self.signal(sig);
        }
    }

    /// After the command has exited: what it left running in its group (a
    /// worker it started in the background, a child that ignores `TERM`)
    /// gets `TERM` and `CONT`, then `KILL` if any of it is still there after
    /// `--grace`. A run's processes end with the run: left behind, they
    /// would take the allocation's cores from the next repetition, or keep
    /// running after calib. Blocks for at most the grace. Nothing to do for
    /// a command in calib's own group (stdin a terminal), whose group is not
    /// the command's to end. Returns the leftovers it stopped, if any.
    pub(crate) fn end_group(&mut self) -> Option<Leftovers> {
        if !self.own_group || self.exit.is_none() {
            return None;
        }
        let group = Pid::from_raw(self.target.abs())?;
        // The group id stays taken while any member is alive, so these
        // signals reach the command's own leftovers and nothing else.
        let alive = || rustix::process::test_kill_process_group(group).is_ok();
        if !alive() {
            return None;
        }
        let count = running_in_group(self.target.abs());
        for sig in [Signal::TERM, Signal::CONT] {
            let _ = rustix::process::kill_process_group(group, sig);
        }
        let until = Instant::now() + self.grace;
        while alive() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        if alive() {
            let _ = rustix::process::kill_process_group(group, Signal::KILL);
        }
        // Members that had all ended (zombies not yet reaped) were no work.
        (count != Some(0)).then_some(Leftovers { count })
    }

    /// Reaps the command if it has exited.
    pub(crate) fn reap(&mut self) -> Result<()> {
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

/// The processes the command left running when it exited, which
/// [`Supervised::end_group`] stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Leftovers {
    /// How many, where `/proc` tells.
    pub(crate) count: Option<usize>,
}

/// How many processes of group `group` are running, zombies (ended, not yet
/// reaped) left out, from `/proc/PID/stat`; `None` without a readable
/// `/proc`.
fn running_in_group(group: i32) -> Option<usize> {
    let group = group.to_string();
    let mut count = 0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        if !name
            .to_str()
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue; // it ended meanwhile
        };
        // `pid (comm) state ppid pgrp ...`: comm may hold spaces and `)`,
        // so the fields are counted from the last `)`.
        let Some(fields) = stat.rfind(')').map(|k| &stat[k + 1..]) else {
            continue;
        };
        let mut fields = fields.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1);
        if pgrp == Some(group.as_str()) && state != Some("Z") {
            count += 1;
        }
    }
    Some(count)
}

impl Drop for Supervised {
    /// A command that exited needs no watchdog. One that is still running
    /// when calib lets go of it (an error ended the run) is left to the
    /// watchdog, which then stops it as if calib had died.
    fn drop(&mut self) {
        if let Some(watchdog) = self.watchdog.take() {
            if self.exit.is_some() {
                watchdog.stand_down();
            } else {
                watchdog.release();
            }
        }
    }
}

/// The shell that runs the watchdog (POSIX places one there).
const WATCHDOG_SHELL: &str = "/bin/sh";

/// The watchdog's script. `$1` is the grace in whole seconds. It ignores the
/// signals a terminal or a batch system sends to stop things, reads what to
/// signal (`-<group>` or a pid: the first line on stdin, which the command's
/// process writes before its exec; none when calib died before the command
/// was started), waits for end-of-file, then stops it: `TERM` and `CONT`, and
/// `KILL` if anything of it is left after the grace.
const WATCHDOG_SCRIPT: &str = r#"trap '' HUP INT QUIT TERM USR1 USR2 PIPE
read -r target || exit 0
while read -r _; do :; done
kill -s TERM -- "$target" 2>/dev/null || exit 0
kill -s CONT -- "$target" 2>/dev/null
i=0
while [ "$i" -lt "$1" ]; do
  sleep 1
  kill -s 0 -- "$target" 2>/dev/null || exit 0
  i=$((i + 1))
done
kill -s KILL -- "$target" 2>/dev/null
"#;

/// The watchdog's first line, `<target>\n`, formatted in place: the forked
/// child that writes it may not allocate.
#[derive(Default)]
struct TargetLine {
    bytes: [u8; 24],
}

impl TargetLine {
    fn format(&mut self, target: i32) -> &[u8] {
        let mut end = self.bytes.len();
        end -= 1;
        self.bytes[end] = b'\n';
        // i64: the magnitude of i32::MIN does not fit an i32.
        let mut rest = i64::from(target).abs();
        loop {
            end -= 1;
            self.bytes[end] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        if target < 0 {
            end -= 1;
            self.bytes[end] = b'-';
        }
        &self.bytes[end..]
    }
}

/// The process that stops the command's group when calib dies (module docs).
struct Watchdog {
    process: Child,
    /// The only write end of the watchdog's stdin: closed by the kernel when
    /// calib dies. It is close-on-exec, so neither the command nor the
    /// watchdog inherits it.
    lifeline: PipeWriter,
}

impl Watchdog {
    fn start(grace: Duration) -> std::io::Result<Watchdog> {
        let (reader, lifeline) = std::io::pipe()?;
        let grace_s = grace.as_secs() + u64::from(grace.subsec_nanos() > 0);
        let process = Command::new(WATCHDOG_SHELL)
            .arg("-c")
            .arg(WATCHDOG_SCRIPT)
            .arg("calib-watchdog")
            .arg(grace_s.to_string())
            .stdin(reader)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own group: a Ctrl-C or a kill of calib's group spares it.
            .process_group(0)
            .spawn()?;
        Ok(Watchdog { process, lifeline })
    }

    /// The command is gone: end the watchdog before it could act.
    fn stand_down(mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }

    /// Closes the lifeline so that the watchdog stops the command now; it is
    /// not waited for (that takes up to the grace).
    fn release(self) {
        drop(self.lifeline);
    }
}

#[cfg(test)]
mod tests {
    use super::TargetLine;

    #[test]
    fn the_watchdogs_first_line_is_the_target_in_decimal() {
        for target in [0, 7, -7, 4_194_304, -4_194_304, i32::MAX, i32::MIN] {
            let mut line = TargetLine::default();
            assert_eq!(line.format(target), format!("{target}\n").as_bytes());
        }
    }
}
