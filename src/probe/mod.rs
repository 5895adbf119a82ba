//! `calib probe`: run the real command briefly and record every unit as it
//! finishes, on the node that will run the campaign.
//!
//! # What is assumed
//!
//! - **Time.** All times come from a monotonic clock ([`std::time::Instant`],
//!   `CLOCK_MONOTONIC` on Linux) started just before the command is spawned:
//!   `elapsed_s` is seconds from process launch, so unit 1 includes startup
//!   (interpreter start, imports, data loading), which a budget must pay too.
//!   Wall-clock time appears only in `started_at` (RFC 3339, UTC).
//! - **Markers.** A unit has finished when calib *reads* a line that matches the
//!   unit regex (see [`marker`]); its time is the moment of that read. The
//!   command must therefore print the marker when a unit ends, and flush it: a
//!   block-buffered stdout delivers markers in bursts (calib warns when it sees
//!   one). Python's output is unbuffered by default under calib
//!   (`PYTHONUNBUFFERED=1` unless set, see `--keep-buffering`). A program that
//!   prints its marker when a unit *starts* shifts every row by one unit.
//! - **Order.** Stdout and stderr are read by one `poll(2)` loop; rows are
//!   numbered in the order their lines are read. Pass-through keeps each stream's
//!   bytes unchanged and in order; between the two streams, order is as close as
//!   two pipes allow.
//! - **Durability.** A unit's row is handed to the kernel, in one `write(2)`,
//!   before the output holding its marker is passed on and before the next read:
//!   a kill of calib at any moment loses no unit that it had seen, and can leave
//!   at most a torn last line, which `calib fit` skips with a warning. (The
//!   kernel holds the row from then on: it survives any kill of calib; only a
//!   crash of the node itself could lose the last rows, as calib does not
//!   `fsync`.) The file never exists without its header (see [`naming`]).
//! - **Stopping.** `--units` and `--timeout` stop the command with `TERM` (and
//!   `CONT`), then `KILL` after `--grace`. A `TERM`/`INT`/`HUP`/`QUIT` sent to
//!   calib (Slurm's walltime kill, `scancel`, Ctrl-C) is passed on, followed
//!   by `KILL` after `--grace` if the command ignores it; no further run
//!   starts, and the `end` row is written once the command has exited; under
//!   Slurm the command also gets the job's own `TERM`, so it may see two. If
//!   the scheduler's `KILL` comes before the command has exited, the rows
//!   written so far stay and the run simply has no `end` row. If calib is
//!   killed outright, a watchdog stops the command's process group (see
//!   [`child`] for what that does and does not reach).
//!
//! # Modules
//!
//! [`marker`] (which lines are units), [`runner`] (one run: the read loop and
//! its rows), [`child`] (the command's process: group, stopping, signals),
//! [`signals`] (calib's own signal handling),
//! [`fingerprint`] (where the run was measured), [`naming`] (file and run ids),
//! [`gate`] (the login-node refusal), [`duration`] (`--timeout`), [`progress`]
//! (what the user sees), [`plan`] (repetitions and run lengths).

pub(crate) mod child;
pub(crate) mod duration;
pub(crate) mod fingerprint;
pub(crate) mod gate;
pub(crate) mod marker;
pub(crate) mod naming;
pub(crate) mod plan;
pub(crate) mod progress;
pub(crate) mod runner;
pub(crate) mod signals;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Origin, Result};
use crate::output::human_duration;
use crate::stratum::Stratum;
use crate::timings::{Fingerprint, RunEnd, TimingsWriter};

use child::StopReason;
use marker::UnitMatcher;
use progress::{Console, ProgressMode};
use runner::{RunContext, RunSpec};

/// Everything a probe needs, checked.
#[derive(Debug, Clone)]
pub(crate) struct ProbeConfig {
    /// The command and its arguments (may hold `{rep}` and `{units}`).
    pub(crate) command: Vec<OsString>,
    pub(crate) stratum: Stratum,
    pub(crate) out: PathBuf,
    pub(crate) matcher: UnitMatcher,
    /// Stop each run after this many units.
    pub(crate) units: Option<u64>,
    pub(crate) repeat: u64,
    pub(crate) first_rep: u64,
    /// Run-length mode: one run per length.
    pub(crate) lengths: Vec<u64>,
    /// Bound on the whole probe.
    pub(crate) timeout: Option<Duration>,
    /// From TERM to KILL when calib stops the command.
    pub(crate) grace: Duration,
    pub(crate) show_units: usize,
    pub(crate) unbuffered: bool,
    pub(crate) progress: ProgressMode,
    pub(crate) allow_login: bool,
    /// The user's calib command line, for messages.
    pub(crate) command_line: String,
}

/// Runs the whole probe: checks, the timings file, every planned run. Returns
/// calib's exit status: the command's (see `calib probe --help`).
pub(crate) fn probe(config: &ProbeConfig) -> Result<i32> {
    let mut console = check_before_start(config)?;
    // Before the file is made: a file-size limit met by its header is then
    // said too (XFSZ), and a stop request while it is made is kept for the loop.
    let signals = signals::SignalGuard::install()?;
    let session = Session::open(config)?;
    console.line(&announcement(config, &session));
    let file = session.file.clone();
    let started = Instant::now();
    let tally = run_all(config, session, &signals, &mut console)?;
    drop(signals);
    console.line(&tally.closing_line(config, &file));
    let timed_out = config.timeout.is_some_and(|t| started.elapsed() >= t);
    if tally.unit_rows == 0 && (tally.status == 0 || timed_out) {
        // The command ended well, or calib's --timeout stopped it, without
        // one unit: a probe that measured nothing is no success.
        return Err(Error::Failed(format!(
            "no unit finished, so {} holds no measurement: {}",
            file.display(),
            if config.timeout.is_some() {
                "give --timeout room for at least a few units, or check --unit-regex against the command's lines"
            } else {
                "check that --unit-regex matches the line the command prints as each unit ends (--show-units shows the first lines)"
            }
        )));
    }
    Ok(tally.status)
}

/// Everything that can refuse a probe before any file is created or anything
/// is run; returns the console, with the plan's warnings shown.
fn check_before_start(config: &ProbeConfig) -> Result<Console> {
    plan::check(config)?;
    gate::check(config.allow_login, config.timeout, &config.command_line)?;
    check_program(&config.command[0])?;
    let mut console = Console::new(config.progress);
    for warning in plan::warnings(config) {
        console.line(&format!("calib: warning: {warning}"));
    }
    Ok(console)
}

/// A probe whose timings file exists: where its rows go and the runs to make.
struct Session {
    writer: TimingsWriter,
    /// The timings file's final name (the writer may hold a staged name).
    file: PathBuf,
    /// Where the runs are measured, without `started_at` (set per run).
    fingerprint: Fingerprint,
    specs: Vec<RunSpec>,
    /// When the whole probe must stop (`--timeout`), from before the fingerprint.
    deadline: Option<Instant>,
}

impl Session {
    /// Fingerprints the node, creates the timings file (header only) and
    /// plans the runs, whose ids carry the file's tag.
    fn open(config: &ProbeConfig) -> Result<Session> {
        let deadline = config.timeout.map(|t| Instant::now() + t);
        let started = chrono::Utc::now();
        let fingerprint = fingerprint::collect()?;
        let tag = naming::task_tag(
            &fingerprint::JobIds::from_env(),
            fingerprint.host.as_deref().unwrap_or("host"),
            std::process::id(),
            started,
        );
        let (writer, tag, file) = naming::create_timings_file(&config.out, &config.stratum, &tag)?;
        Ok(Session {
            writer,
            file,
            fingerprint,
            specs: plan::runs(config, &tag),
            deadline,
        })
    }

    /// Gives up after a run failed to start: with nothing measured, no
    /// header-only file is left behind.
    fn discard_if_empty(self, runs_done: u64) {
        if runs_done == 0 {
            let Session { writer, file, .. } = self;
            drop(writer);
            let _ = std::fs::remove_file(&file);
        }
    }
}

/// The line that says what is probed, where, how, and where the rows go.
fn announcement(config: &ProbeConfig, session: &Session) -> String {
    let what = if config.lengths.is_empty() {
        let limit = config
            .units
            .map_or("until it exits".to_string(), |k| format!("for {k} units"));
        let regex = if config.matcher.pattern() == marker::DEFAULT_UNIT_REGEX {
            "the default unit regex (generation|epoch|step|iteration|iter N, CALIB_UNIT)"
                .to_string()
        } else {
            format!("/{}/", config.matcher.pattern())
        };
        format!("counting lines that match {regex}, {limit}")
    } else {
        "timing whole runs (run-length mode)".to_string()
    };
    let fingerprint = &session.fingerprint;
    format!(
        "calib: probing stratum {} on {} ({}, {} CPUs, GPUs: {}): {}, {what}{}; rows -> {}",
        config.stratum,
        fingerprint.host.as_deref().unwrap_or("?"),
        fingerprint.cluster.as_deref().unwrap_or("?"),
        fingerprint.cpus.as_deref().unwrap_or("?"),
        fingerprint.gpus.as_deref().unwrap_or("?"),
        crate::output::count(session.specs.len() as u64, "run", "runs"),
        config.timeout.map_or(String::new(), |t| format!(
            ", at most {}",
            human_duration(t.as_secs_f64())
        )),
        session.file.display()
    )
}

/// What the runs of a probe added up to.
#[derive(Debug, Default)]
struct Tally {
    /// calib's exit status: the last run's, or 128 + a signal that stopped
    /// the probe between runs.
    status: i32,
    unit_rows: u64,
    runs_done: u64,
}

impl Tally {
    fn closing_line(&self, config: &ProbeConfig, file: &Path) -> String {
        format!(
            "calib: {}, {} {} recorded in {}",
            crate::output::count(self.runs_done, "run", "runs"),
            self.unit_rows,
            if config.lengths.is_empty() {
                "unit rows"
            } else {
                "run-length rows"
            },
            file.display()
        )
    }
}

/// Makes the planned runs in order, until one fails, is stopped, or a stop
/// signal or `--timeout` comes between two runs.
fn run_all(
    config: &ProbeConfig,
    mut session: Session,
    signals: &signals::SignalGuard,
    console: &mut Console,
) -> Result<Tally> {
    let mut tally = Tally::default();
    let total = session.specs.len();
    for i in 0..total {
        if let Some(halt) = halt_before_run(signals, session.deadline, total - i, console) {
            if let Halt::Signal(sig) = halt {
                tally.status = 128 + sig;
            }
            break;
        }
        let spec = &session.specs[i];
        let label = run_label(i, total);
        if total > 1 {
            console.line(&run_header(&label, spec));
        }
        let mut ctx = RunContext {
            writer: &mut session.writer,
            stratum: &config.stratum,
            fingerprint: &session.fingerprint,
            matcher: config.lengths.is_empty().then_some(&config.matcher),
            unit_limit: config.units,
            grace: config.grace,
            deadline: session.deadline,
            show_units: config.show_units,
            unbuffered: config.unbuffered,
            console,
            signals,
            label: label.clone(),
        };
        let outcome = match runner::run_once(spec, &mut ctx) {
            Ok(outcome) => outcome,
            Err(e) => {
                session.discard_if_empty(tally.runs_done);
                return Err(e);
            }
        };
        tally.runs_done += 1;
        tally.unit_rows += outcome.units;
        tally.status = outcome.status;
        console.line(&summary(&label, spec, &outcome, config));
        if let Some(e) = outcome.write_error {
            return Err(Error::Failed(format!(
                "{e} (the timings file is {}); the command was stopped, rows written so far are kept",
                session.file.display()
            )));
        }
        if !go_on_after(&outcome, total - i - 1, config, console) {
            break;
        }
    }
    Ok(tally)
}

/// Why no further run may start.
enum Halt {
    /// calib was sent this stop signal between runs (it then exits 128 + it).
    Signal(i32),
    /// `--timeout` has passed.
    Timeout,
}

/// Checked before each run: whether it may start, saying why not when it may
/// not. `left` counts this run too.
fn halt_before_run(
    signals: &signals::SignalGuard,
    deadline: Option<Instant>,
    left: usize,
    console: &mut Console,
) -> Option<Halt> {
    let pending = signals.take();
    if let Some(stop) = pending
        .iter()
        .find(|r| signals::STOP_SIGNALS.contains(&r.signal))
    {
        console.line(&format!(
            "calib: received SIG{} between runs; {} not started",
            signals::signal_name(stop.signal),
            crate::output::count(left as u64, "run", "runs"),
        ));
        return Some(Halt::Signal(stop.signal));
    }
    if deadline.is_some_and(|d| Instant::now() >= d) {
        console.line(&format!(
            "calib: --timeout reached; {} not started",
            crate::output::count(left as u64, "run", "runs"),
        ));
        return Some(Halt::Timeout);
    }
    None
}

/// `run 2/3` when there are several runs, else `run`.
fn run_label(i: usize, total: usize) -> String {
    if total > 1 {
        format!("run {}/{total}", i + 1)
    } else {
        "run".to_string()
    }
}

/// The line before each of several runs: its id and its command line.
fn run_header(label: &str, spec: &RunSpec) -> String {
    let argv: Vec<String> = spec
        .argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    format!(
        "calib: {label} {}: {}",
        spec.run_id,
        gate::shell_join(&argv)
    )
}

/// Whether the next run may start after `outcome` (`left` runs remain), saying
/// why not when it may not.
fn go_on_after(
    outcome: &runner::RunOutcome,
    left: usize,
    config: &ProbeConfig,
    console: &mut Console,
) -> bool {
    match outcome.stopped {
        Some(StopReason::Timeout) => {
            console.line(&format!(
                "calib: --timeout {} reached: stopped the command; raise --timeout or lower --units",
                human_duration(config.timeout.unwrap_or_default().as_secs_f64())
            ));
            return false;
        }
        Some(StopReason::Signal(sig)) => {
            console.line(&format!(
                "calib: received SIG{} (a walltime kill or a cancel?): passed it to the command; rows written so far are kept",
                signals::signal_name(sig)
            ));
            return false;
        }
        _ => {}
    }
    if outcome.stop_signal.is_some() {
        return false;
    }
    if outcome.status != 0 {
        if left > 0 {
            console.line(&format!(
                "calib: the command failed ({}); the remaining {} not started",
                outcome.end.to_field(),
                crate::output::count(left as u64, "run is", "runs are"),
            ));
        }
        return false;
    }
    true
}

fn summary(
    label: &str,
    spec: &RunSpec,
    outcome: &runner::RunOutcome,
    config: &ProbeConfig,
) -> String {
    let how = match &outcome.end {
        RunEnd::Limit => format!("stopped by --units {}", config.units.unwrap_or(0)),
        RunEnd::Exit(0) => "exited 0".to_string(),
        RunEnd::Exit(code) => format!("exited {code}"),
        RunEnd::Signal(name) => format!("killed by SIG{name}"),
    };
    if let Some(length) = spec.length {
        return format!(
            "calib: {label} ({} = {length} units) {how} in {}{}{}",
            spec.run_id,
            human_duration(outcome.elapsed_s),
            if outcome.units == 1 {
                format!(
                    ", {} per unit",
                    human_duration(outcome.elapsed_s / length.max(1) as f64)
                )
            } else {
                ", not recorded as a run length".to_string()
            },
            leftovers_text(outcome).map_or(String::new(), |t| format!("; {t}"))
        );
    }
    let stats = &outcome.stats;
    let mut text = format!(
        "calib: {label} {} {how}: {} units in {}",
        spec.run_id,
        outcome.units,
        human_duration(outcome.elapsed_s)
    );
    if let Some(first) = stats.unit_s.first() {
        text.push_str(&format!(
            "; unit 1 (with startup) {}",
            human_duration(*first)
        ));
    }
    if let Some(median) = stats.median() {
        text.push_str(&format!(
            ", median unit {}, {}",
            human_duration(median),
            stats.trend_text()
        ));
    }
    if outcome.units == 0 {
        text.push_str(&format!(
            "; no line matched /{}/: check --unit-regex against the command's output",
            config.matcher.pattern()
        ));
    }
    if let Some(late) = start_markers_text(outcome) {
        text.push_str("; ");
        text.push_str(&late);
    }
    if let Some(both) = stats.both_streams_text() {
        text.push_str("; ");
        text.push_str(&both);
    }
    if let Some(cut) = stats.cut_lines_text() {
        text.push_str("; ");
        text.push_str(&cut);
    }
    if let Some(left) = leftovers_text(outcome) {
        text.push_str("; ");
        text.push_str(&left);
    }
    text
}

/// When the command left processes running as it exited, which calib then
/// stopped ([`child::Supervised::end_group`]): a program that hands its work
/// to background processes (a daemon, `cmd &` in a script) loses that work
/// and its units, and the timings alone would not show it.
fn leftovers_text(outcome: &runner::RunOutcome) -> Option<String> {
    let left = outcome.leftovers?;
    let how_many = left.count.map_or("leftover processes".to_string(), |n| {
        format!("{n} leftover process(es)")
    });
    Some(format!(
        "{how_many} of the command, still running after it exited, were stopped (TERM, then KILL after --grace): what they had not finished is lost, and of their output and units only those of the first {} after the command's exit are recorded; if the command hands work to background processes, make it wait for them (in a shell script: wait)",
        human_duration(runner::DRAIN_AFTER_EXIT.as_secs_f64())
    ))
}

/// The shortest time after the last unit that [`start_markers_text`] speaks
/// of. Markers a unit late shift a run's total by one unit: under a second,
/// Slurm's one-minute `--time` cannot show it, and a second is what an
/// interpreter's exit (Python freeing its modules) takes, which is the likelier
/// reading of such a tail after sub-second units.
const LATE_TAIL_MIN_S: f64 = 1.0;

/// When a run that ended by itself went on for about one more unit after its
/// last marker: the sign of markers printed as a unit *starts* (Keras's
/// `Epoch k/N`, a tqdm bar per epoch), which make every row a unit late and
/// leave the last unit out of the timings. A teardown as long as a unit looks
/// the same, hence "if"; under [`LATE_TAIL_MIN_S`] it is not mentioned.
fn start_markers_text(outcome: &runner::RunOutcome) -> Option<String> {
    let stats = &outcome.stats;
    if outcome.end != RunEnd::Exit(0) || stats.unit_s.len() < 3 {
        return None;
    }
    let last_unit_at: f64 = stats.unit_s.iter().sum();
    let after = outcome.elapsed_s - last_unit_at;
    if after < LATE_TAIL_MIN_S {
        return None;
    }
    let median = stats.median()?;
    (median > 0.0 && (0.5 * median..=2.0 * median).contains(&after)).then(|| {
        format!(
            "the command ran {} after its last unit, about one unit's time: if its progress lines mark where a unit starts (Keras prints `Epoch k/N` as an epoch begins), every row is a unit late and the last unit is missing; print CALIB_UNIT when a unit ends, or give a --unit-regex for a line printed at its end",
            human_duration(after)
        )
    })
}

/// The program must exist before any file is created or anything is run.
fn check_program(program: &OsString) -> Result<()> {
    let name = program.to_string_lossy();
    let bad = |why: &str| {
        Error::input(
            Origin::Argument("the command after --".into()),
            None,
            format!("`{name}` {why}"),
        )
    };
    if name.is_empty() {
        return Err(bad("is empty; give the command to probe after --"));
    }
    let executable = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let path = std::path::Path::new(program);
    if name.contains('/') {
        return if executable(path) {
            Ok(())
        } else if path.is_file() {
            Err(bad(
                "is not executable; chmod +x it, or name its interpreter: -- python3 script.py",
            ))
        } else if path.is_dir() {
            Err(bad(
                "is a folder, not a program; give the program (or script) to run",
            ))
        } else {
            Err(bad("does not exist or is not a file"))
        };
    }
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|dir| executable(&dir.join(program))))
        .unwrap_or(false);
    if found {
        Ok(())
    } else {
        Err(bad(
            "is not a program on PATH; give its path, or run it through a shell: -- sh -c '...'",
        ))
    }
}
