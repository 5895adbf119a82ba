//! One run: start the command, pass its output through, record a row per unit,
//! stop it when asked, and record how it ended.
//!
//! Everything happens in one thread around `poll(2)`: the command's stdout and
//! stderr pipes, and the wake-up pipe of [`super::signals`]. Rows are therefore
//! written in the order their marker lines are read, whichever stream carried
//! them, and a unit's row is written (one `write(2)`, see
//! [`crate::timings::TimingsWriter`]) *before* the chunk that holds its marker is
//! passed through: whatever a user sees in the command's log is already on disk.
//! The process itself (its group, stopping, signals, reaping) is
//! [`super::child`].

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;
use rustix::io::Errno;

use super::child::{Leftovers, StopReason, Supervised};
use super::marker::{LineScanner, UnitMatcher};
use super::progress::{Console, UnitStats};
use super::signals::{signal_name, SignalGuard};
use crate::error::{Error, Result};
use crate::output::human_duration;
use crate::stratum::Stratum;
use crate::timings::{Fingerprint, RunEnd, TimingRow, TimingsWriter};

/// How long to keep reading the pipes after the command exited, when something
/// it started in the background still holds them open.
pub(crate) const DRAIN_AFTER_EXIT: Duration = Duration::from_secs(2);

/// The nap between reads while a command prints in small pieces.
const BUSY_NAP: Duration = Duration::from_millis(1);

/// A batch this large is worth a wake-up of its own.
const BUSY_BATCH: usize = 64 * 1024;

/// Bytes read from a pipe at once.
const READ_SIZE: usize = 256 * 1024;

/// One execution of the command.
#[derive(Debug, Clone)]
pub(crate) struct RunSpec {
    /// Run-length mode: the length substituted for `{units}`.
    pub(crate) length: Option<u64>,
    /// The command and its arguments, placeholders substituted.
    pub(crate) argv: Vec<OsString>,
    pub(crate) run_id: String,
}

/// What a run needs from the probe around it.
pub(crate) struct RunContext<'a> {
    pub(crate) writer: &'a mut TimingsWriter,
    pub(crate) stratum: &'a Stratum,
    /// The fingerprint without `started_at`.
    pub(crate) fingerprint: &'a Fingerprint,
    /// `None` in run-length mode (no unit rows).
    pub(crate) matcher: Option<&'a UnitMatcher>,
    pub(crate) unit_limit: Option<u64>,
    pub(crate) grace: Duration,
    /// When the whole probe must stop (`--timeout`).
    pub(crate) deadline: Option<Instant>,
    pub(crate) show_units: usize,
    pub(crate) unbuffered: bool,
    pub(crate) console: &'a mut Console,
    pub(crate) signals: &'a SignalGuard,
    /// Text shown before the status line, e.g. `run 2/3`.
    pub(crate) label: String,
}

/// How a run went.
#[derive(Debug)]
pub(crate) struct RunOutcome {
    pub(crate) end: RunEnd,
    /// Unit rows written (run-length mode: 1 when the run completed).
    pub(crate) units: u64,
    pub(crate) elapsed_s: f64,
    /// calib's exit status for this run: 0 after `--units`, else the command's
    /// status, 128 + signal when it was killed.
    pub(crate) status: i32,
    pub(crate) stopped: Option<StopReason>,
    /// A stop signal calib received during the run.
    pub(crate) stop_signal: Option<i32>,
    pub(crate) stats: UnitStats,
    pub(crate) write_error: Option<Error>,
    /// What the command left running when it exited, stopped by calib.
    pub(crate) leftovers: Option<Leftovers>,
}

/// One of the command's output streams.
struct Stream {
    /// The read end of its pipe; `None` once it is closed.
    fd: Option<OwnedFd>,
    /// Where its output is passed through (1 or 2).
    out: i32,
    name: &'static str,
    scanner: LineScanner,
    /// The last read (at first: the launch), to spot bursts after silence.
    last_read: Instant,
}

impl Stream {
    fn new(fd: Option<OwnedFd>, out: i32, name: &'static str, start: Instant) -> Stream {
        if let Some(fd) = &fd {
            prepare_pipe(fd);
        }
        Stream {
            fd,
            out,
            name,
            scanner: LineScanner::new(),
            last_read: start,
        }
    }
}

/// Runs `spec` to its end: start the command, read its output until it has
/// exited, then record how it ended.
pub(crate) fn run_once(spec: &RunSpec, ctx: &mut RunContext<'_>) -> Result<RunOutcome> {
    let mut run = Run::launch(spec, ctx)?;
    run.read_until_exit(ctx)?;
    Ok(run.finish(spec, ctx))
}

/// A run in progress: the command, its output streams and its rows.
struct Run {
    process: Supervised,
    streams: [Stream; 2],
    recorder: Recorder,
    /// Every read lands here.
    buf: Vec<u8>,
    /// The marker lines of one read, reused (a line is kept only to be shown).
    markers: Vec<Vec<u8>>,
    /// When output last came, to spot a command that prints in small pieces.
    last_data: Option<Instant>,
    /// The unit count on the status line, which is redrawn when it changes.
    units_shown: u64,
    /// What the command left running when it exited, stopped by calib.
    leftovers: Option<Leftovers>,
}

/// What one wake-up's reads found.
#[derive(Default)]
struct Reads {
    bytes: usize,
    /// A stream reached its end (the command may have exited).
    closed: bool,
}

impl Run {
    /// Starts the command; its rows will carry the fingerprint with this
    /// run's `started_at`.
    fn launch(spec: &RunSpec, ctx: &mut RunContext<'_>) -> Result<Run> {
        let started = Supervised::spawn(&spec.argv, ctx.unbuffered, ctx.grace)?;
        if let Some(e) = &started.watchdog_error {
            ctx.console.line(&format!("calib: warning: {e}"));
        }
        let start = started.start;
        let mut fingerprint = ctx.fingerprint.clone();
        fingerprint.started_at = Some(
            started
                .started_at
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        );
        Ok(Run {
            process: started.process,
            streams: [
                Stream::new(started.stdout, 1, "stdout", start),
                Stream::new(started.stderr, 2, "stderr", start),
            ],
            recorder: Recorder {
                row: TimingRow {
                    run: spec.run_id.clone(),
                    stratum: ctx.stratum.clone(),
                    unit: 0,
                    elapsed_s: 0.0,
                    unit_s: None,
                    fingerprint,
                    end: None,
                },
                start,
                units: 0,
                last_elapsed: 0.0,
                stats: UnitStats::default(),
                write_error: None,
                warned_burst: false,
            },
            buf: vec![0u8; READ_SIZE],
            markers: Vec::new(),
            last_data: None,
            units_shown: 0,
            leftovers: None,
        })
    }

    /// The read loop: passes the output through, records units, acts on
    /// signals and deadlines, until the command has exited and its streams
    /// are drained.
    fn read_until_exit(&mut self, ctx: &mut RunContext<'_>) -> Result<()> {
        loop {
            let now = Instant::now();
            self.process.on_time(now, ctx.deadline);
            if self.drained(now) {
                break;
            }
            let timeout = self.poll_timeout(now, ctx.deadline);
            let polled = wait_for_events(ctx.signals, &self.streams, timeout)?;
            // The command is reaped only when it may have changed state (CHLD,
            // a closed stream, or a quiet second), not on every read.
            let mut check_child = polled.timed_out();
            if !polled.timed_out() {
                check_child |= self.take_signals(ctx);
            }
            let reads = self.read_output(ctx, polled.readable);
            check_child |= reads.closed;
            self.nap_if_busy(ctx, reads.bytes);
            if check_child || self.streams.iter().all(|s| s.fd.is_none()) {
                self.process.reap()?;
            }
            self.show_status(ctx);
        }
        self.leftovers = self.process.end_group();
        ctx.console.erase_status();
        Ok(())
    }

    /// Whether reading is over: the command has exited and closed its
    /// streams, or something it started in the background still holds them
    /// open `DRAIN_AFTER_EXIT` after its exit.
    fn drained(&self, now: Instant) -> bool {
        self.process.exit.is_some_and(|(_, exited)| {
            let open = self.streams.iter().any(|s| s.fd.is_some());
            !open || now >= exited + DRAIN_AFTER_EXIT
        })
    }

    /// How long to sleep waiting for output or a signal: until the next
    /// deadline, at most 1 s.
    fn poll_timeout(&self, now: Instant, deadline: Option<Instant>) -> Duration {
        let wake_at = match (self.process.next_time(deadline), self.process.exit) {
            (Some(t), _) => Some(t),
            (None, Some((_, exited))) => Some(exited + DRAIN_AFTER_EXIT),
            (None, None) => None,
        };
        wake_at.map_or(Duration::from_secs(1), |t| {
            let ms = t.saturating_duration_since(now).as_millis().min(999) as u64;
            Duration::from_millis(ms + 1)
        })
    }

    /// Acts on the signals calib received; returns whether one was `CHLD`.
    fn take_signals(&mut self, ctx: &RunContext<'_>) -> bool {
        let mut child_changed = false;
        for received in ctx.signals.take() {
            if received.signal == libc::SIGCHLD {
                child_changed = true;
            } else {
                self.process.on_signal(received);
            }
        }
        child_changed
    }

    /// Reads the streams that `poll` found readable.
    fn read_output(&mut self, ctx: &mut RunContext<'_>, readable: [bool; 2]) -> Reads {
        let mut reads = Reads::default();
        for (i, readable) in readable.into_iter().enumerate() {
            if readable {
                self.read_stream(i, ctx, &mut reads);
            }
        }
        reads
    }

    /// A few reads of stream `i` per wake-up, so that one busy stream cannot
    /// starve the other or the signals.
    fn read_stream(&mut self, i: usize, ctx: &mut RunContext<'_>, reads: &mut Reads) {
        for _ in 0..4 {
            let Some(fd) = &self.streams[i].fd else { break };
            match rustix::io::read(fd, &mut self.buf[..]) {
                Ok(0) => {
                    self.end_of_stream(i, ctx);
                    reads.closed = true;
                    break;
                }
                Ok(n) => {
                    reads.bytes += n;
                    self.take_chunk(i, n, Instant::now(), ctx);
                    if n < self.buf.len() {
                        break;
                    }
                }
                Err(Errno::INTR) => continue,
                Err(Errno::AGAIN) => break,
                Err(_) => {
                    self.streams[i].fd = None;
                    break;
                }
            }
        }
    }

    /// The first `n` bytes of `buf`, read from stream `i` at `read_at`: their
    /// units are recorded, then they are passed through.
    fn take_chunk(&mut self, i: usize, n: usize, read_at: Instant, ctx: &mut RunContext<'_>) {
        let chunk = &self.buf[..n];
        let stream = &mut self.streams[i];
        let gap = read_at - stream.last_read;
        stream.last_read = read_at;
        if let Some(matcher) = ctx.matcher {
            self.markers.clear();
            // Lines are kept only to be shown (the first few units).
            let shown = ctx.show_units.saturating_sub(self.recorder.units as usize);
            let markers = &mut self.markers;
            stream.scanner.scan(matcher, chunk, |line| {
                let keep = markers.len() < shown;
                markers.push(if keep { line.to_vec() } else { Vec::new() });
            });
            if !self.markers.is_empty() {
                self.recorder.on_markers(
                    ctx,
                    &mut self.process,
                    &self.markers,
                    stream.name,
                    read_at,
                    Some(gap),
                );
            }
        }
        ctx.console.pass_through(stream.out, chunk);
    }

    /// Stream `i` has closed: a last line without its newline may still be a
    /// unit.
    fn end_of_stream(&mut self, i: usize, ctx: &mut RunContext<'_>) {
        let stream = &mut self.streams[i];
        if let Some(matcher) = ctx.matcher {
            self.markers.clear();
            let markers = &mut self.markers;
            stream
                .scanner
                .finish(matcher, |line| markers.push(line.to_vec()));
            if !self.markers.is_empty() {
                self.recorder.on_markers(
                    ctx,
                    &mut self.process,
                    &self.markers,
                    stream.name,
                    Instant::now(),
                    None,
                );
            }
        }
        stream.fd = None;
    }

    /// A chatty command writes many small pieces (stdio flushes 4 KiB at a
    /// time into a pipe); waking for each costs more than the pass-through
    /// itself. When data keeps coming in small pieces, nap for BUSY_NAP so
    /// the next read takes a larger batch (the 1 MiB pipe holds it). A
    /// marker after a quiet spell is read at once; one amid busy output is
    /// timed to within about a millisecond.
    fn nap_if_busy(&mut self, ctx: &RunContext<'_>, bytes_read: usize) {
        if bytes_read == 0 {
            return;
        }
        let now = Instant::now();
        let busy = self.last_data.is_some_and(|t| now - t < BUSY_NAP * 2);
        self.last_data = Some(now);
        if busy && bytes_read < BUSY_BATCH && self.process.exit.is_none() {
            let mut wake = [PollFd::from_borrowed_fd(
                ctx.signals.wake_fd(),
                PollFlags::IN,
            )];
            // Only signals end the nap early; a failed poll just ends it.
            let _ = rustix::event::poll(&mut wake, Some(&timespec(BUSY_NAP)));
        }
    }

    /// Redraws the live status line (on a terminal, while the command runs).
    fn show_status(&mut self, ctx: &mut RunContext<'_>) {
        if ctx.console.is_live() && self.process.exit.is_none() {
            let text = self.recorder.status_text(&ctx.label, ctx.unit_limit);
            ctx.console
                .status(&text, self.recorder.units != self.units_shown);
            self.units_shown = self.recorder.units;
        }
    }

    /// Records how the run ended and says how it went.
    fn finish(self, spec: &RunSpec, ctx: &mut RunContext<'_>) -> RunOutcome {
        let Run {
            process,
            streams,
            mut recorder,
            leftovers,
            ..
        } = self;
        recorder.stats.cut_lines = streams.iter().map(|s| s.scanner.cut_lines).sum();
        drop(streams);
        let (status, exited) = process.exit.expect("the loop ends after the command exits");
        let stopped = process.stopped;
        let exit_elapsed = (exited - recorder.start)
            .as_secs_f64()
            .max(recorder.last_elapsed);
        let Ending { end, status: code } = Ending::of(status, stopped);
        let units = recorder.record_end(ctx.writer, spec.length, &end, stopped, exit_elapsed);
        RunOutcome {
            end,
            units,
            elapsed_s: exit_elapsed,
            status: code,
            stopped,
            stop_signal: process.stop_signal,
            stats: recorder.stats,
            write_error: recorder.write_error,
            leftovers,
        }
    }
}

/// What one poll of the wake-up pipe and the command's streams found.
struct Polled {
    /// `None`: interrupted by a signal, which the wake-up pipe then holds.
    ready: Option<usize>,
    /// Which streams are readable (or closed), by their index in `streams`.
    readable: [bool; 2],
}

impl Polled {
    /// Nothing happened within the timeout.
    fn timed_out(&self) -> bool {
        self.ready == Some(0)
    }
}

/// Sleeps until a signal, output on (or the end of) a stream, or `timeout`.
fn wait_for_events(
    signals: &SignalGuard,
    streams: &[Stream; 2],
    timeout: Duration,
) -> Result<Polled> {
    let wake = PollFd::from_borrowed_fd(signals.wake_fd(), PollFlags::IN);
    let mut fds = [wake.clone(), wake.clone(), wake];
    let mut polled = 1;
    let mut which = [0usize; 2];
    for (i, s) in streams.iter().enumerate() {
        if let Some(fd) = &s.fd {
            fds[polled] = PollFd::new(fd, PollFlags::IN);
            which[polled - 1] = i;
            polled += 1;
        }
    }
    let ready = match rustix::event::poll(&mut fds[..polled], Some(&timespec(timeout))) {
        Ok(n) => Some(n),
        Err(Errno::INTR) => None,
        Err(e) => return Err(Error::io("poll failed", e.into())),
    };
    let mut readable = [false; 2];
    for k in 0..polled - 1 {
        readable[which[k]] = !fds[k + 1].revents().is_empty();
    }
    Ok(Polled { ready, readable })
}

/// How a run ended, as recorded and as calib's exit status.
struct Ending {
    end: RunEnd,
    /// The command's exit code, or 128 + the signal that killed it.
    status: i32,
}

impl Ending {
    fn of(status: ExitStatus, stopped: Option<StopReason>) -> Ending {
        if stopped == Some(StopReason::Limit) {
            // Stopped at the unit limit: the run did what was asked.
            return Ending {
                end: RunEnd::Limit,
                status: 0,
            };
        }
        // The signal that stopped the run, where calib stopped it: TERM at
        // --timeout, or the signal calib received and passed on.
        let stopped_by = match stopped {
            Some(StopReason::Timeout) => Some(libc::SIGTERM),
            Some(StopReason::Signal(sig)) => Some(sig),
            _ => None,
        };
        match (status.code(), status.signal(), stopped_by) {
            // Exited on its own in answer (a program that traps TERM to save
            // a checkpoint): the run ended by that signal, not by a failure.
            (Some(code), _, Some(sig)) => Ending {
                end: RunEnd::Signal(signal_name(sig)),
                status: code,
            },
            (Some(code), _, None) => Ending {
                end: RunEnd::Exit(code),
                status: code,
            },
            (None, Some(sig), _) => Ending {
                end: RunEnd::Signal(signal_name(sig)),
                status: 128 + sig,
            },
            (None, None, _) => Ending {
                end: RunEnd::Exit(1),
                status: 1,
            },
        }
    }
}

fn prepare_pipe(fd: &OwnedFd) {
    // Best effort: a blocking pipe still works, only a busy stream could then
    // delay the signals.
    if let Ok(flags) = rustix::fs::fcntl_getfl(fd) {
        let _ = rustix::fs::fcntl_setfl(fd, flags | OFlags::NONBLOCK);
    }
    // A larger pipe means fewer wake-ups for a chatty command (best effort).
    #[cfg(target_os = "linux")]
    let _ = rustix::pipe::fcntl_setpipe_size(fd, 1 << 20);
}

/// A poll timeout.
fn timespec(wait: Duration) -> Timespec {
    Timespec {
        tv_sec: wait.as_secs() as _,
        tv_nsec: wait.subsec_nanos() as _,
    }
}

/// The rows of one run.
struct Recorder {
    /// The row being written, reused: only unit, times and end change.
    row: TimingRow,
    start: Instant,
    units: u64,
    last_elapsed: f64,
    stats: UnitStats,
    write_error: Option<Error>,
    warned_burst: bool,
}

impl Recorder {
    /// Records the marker lines read at `read_at` (after `gap` of silence on
    /// their stream), and stops the command at `--units`.
    fn on_markers(
        &mut self,
        ctx: &mut RunContext<'_>,
        process: &mut Supervised,
        lines: &[Vec<u8>],
        stream: &str,
        read_at: Instant,
        gap: Option<Duration>,
    ) {
        if self.write_error.is_some() {
            return;
        }
        let elapsed = (read_at - self.start).as_secs_f64().max(self.last_elapsed);
        let before = self.units;
        for line in lines {
            if ctx.unit_limit.is_some_and(|k| self.units >= k) {
                break;
            }
            self.units += 1;
            let unit_s = elapsed - self.last_elapsed;
            let unit = self.units;
            self.append(ctx.writer, unit, elapsed, Some(unit_s), None);
            if self.write_error.is_some() {
                // Finished, but not in the file: the run's end row and the
                // closing line count the units the file holds.
                self.units -= 1;
                process.stop(StopReason::WriteFailed);
                return;
            }
            self.last_elapsed = elapsed;
            self.stats.push(unit_s);
            self.stats.count_on(stream);
            if (unit as usize) <= ctx.show_units {
                ctx.console.line(&format!(
                    "calib: unit {unit} at {} ({stream}): {}",
                    human_duration(elapsed),
                    shown_line(line)
                ));
            }
            if ctx.unit_limit == Some(unit) {
                process.stop(StopReason::Limit);
            }
        }
        let counted = self.units - before;
        if counted >= 3
            && !self.warned_burst
            && gap.is_some_and(|g| g >= Duration::from_millis(500))
        {
            self.warned_burst = true;
            ctx.console.line(&format!(
                "calib: warning: {counted} unit markers arrived at once on {stream} after {} of silence: \
                 the command seems to buffer its output, so these units get one time between them. \
                 Flush after each marker line (Python: print(..., flush=True) or python -u; C: stdbuf -oL; \
                 or print CALIB_UNIT to stderr).",
                human_duration(gap.unwrap_or_default().as_secs_f64())
            ));
        }
    }

    /// Writes the run's last rows: in run-length mode the run's one row if
    /// it completed, then the `end` row. Returns the run's unit rows.
    fn record_end(
        &mut self,
        writer: &mut TimingsWriter,
        length: Option<u64>,
        end: &RunEnd,
        stopped: Option<StopReason>,
        elapsed_s: f64,
    ) -> u64 {
        let Some(length) = length else {
            self.append(writer, self.units, elapsed_s, None, Some(end.clone()));
            return self.units;
        };
        let mut completed = *end == RunEnd::Exit(0) && stopped.is_none();
        if completed {
            self.append(writer, length, elapsed_s, None, None);
            // A run-length row not written is no completed run in the file.
            completed = self.write_error.is_none();
        }
        let done = if completed { length } else { 0 };
        self.append(writer, done, elapsed_s, None, Some(end.clone()));
        u64::from(completed)
    }

    fn append(
        &mut self,
        writer: &mut TimingsWriter,
        unit: u64,
        elapsed_s: f64,
        unit_s: Option<f64>,
        end: Option<RunEnd>,
    ) {
        if self.write_error.is_some() && end.is_none() {
            return;
        }
        self.row.unit = unit;
        self.row.elapsed_s = elapsed_s;
        self.row.unit_s = unit_s;
        self.row.end = end;
        if let Err(e) = writer.append(&self.row) {
            self.write_error.get_or_insert(e);
        }
    }

    fn status_text(&self, label: &str, limit: Option<u64>) -> String {
        let elapsed = self.start.elapsed().as_secs_f64();
        let units = match limit {
            Some(k) => format!("{}/{k} units", self.units),
            None => format!("{} units", self.units),
        };
        let last = self
            .stats
            .unit_s
            .last()
            .map_or("-".to_string(), |s| human_duration(*s));
        format!(
            "calib {label}: {units} | last unit {last} | {} | {} elapsed",
            self.stats.trend_text(),
            human_duration(elapsed)
        )
    }
}

/// A marker line as shown to the user: lossy UTF-8, at most 160 characters.
fn shown_line(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end();
    if text.chars().count() > 160 {
        format!("{}...", text.chars().take(160).collect::<String>())
    } else {
        text.to_string()
    }
}
