//! sacct's text output, parsed into job rows.
//!
//! What is read, following Slurm's sacct (`src/sacct/print.c`,
//! `src/common/print_fields.c`) and `sacct.1` as summarised in the project's notes
//! on Slurm formats (section 4) and on the Slurm lab:
//!
//! * **Layouts.** `-P`/`--parsable2`: fields separated by `|`, no trailing `|`;
//!   `-p`/`--parsable`: the same with a `|` after the last field;
//!   `--delimiter=<chars>`: any separator, possibly several characters (`^|^`).
//!   Values are not escaped (print_fields.c), so a value containing the
//!   delimiter shifts the columns: when a row has too many fields and exactly one
//!   free-text column (`JobName` or `Comment`) is present, the extra fields are
//!   given back to it; otherwise the line is refused. A line with fewer fields
//!   than the header, or with `-p` one that does not end with the delimiter,
//!   was cut short (a truncated file, the last line most often) and is refused
//!   too.
//!   The header line (`JobID|State|...`) is read when present; with `-n` (no
//!   header) the caller must give the column names (the `--format` list).
//! * **Fixed width** (no `-p`/`-P`): a header, a line of dashes, then values cut to
//!   the column width with their last character replaced by `+` (`CANCELLED+`).
//!   Columns are located from the dash runs; each blank-separated word goes to
//!   the column it overlaps most, so a line shifted by a character or two (as in
//!   hand-edited samples) still reads right. A cut value is flagged
//!   ([`SacctRow::truncated`]); a cut time cannot be read and is refused with the
//!   advice to use `sacct -P`.
//! * **JobID** ([`JobId`]): `239023`, steps `.batch` `.extern` `.interactive`
//!   `.TBD` `.<n>`, array tasks `1234_5`, not yet split tasks `1234_[6-10]` (also
//!   `1234_[1-2,6-8,11%9]`, and cut with `...`), heterogeneous components
//!   `1234+0` and step components `1234.0+1` (slurmdb_defs.c, log.c).
//! * **State** ([`JobState`]): the base states of `job_state_string`
//!   (slurm_protocol_defs.c), `CANCELLED by <uid>` (print.c), and anything else
//!   (state flags such as `REQUEUED`, future states) kept as text.
//! * **Times**: `Elapsed` `[D-]HH:MM:SS` (or `ElapsedRaw` seconds), `Timelimit`
//!   with `UNLIMITED`, `Partition_Limit` and empty (or `TimelimitRaw` minutes),
//!   through [`crate::slurm::time`].
//! * `NodeList` `None assigned` (a job that never started) reads as no node;
//!   `ExitCode` is `<code>:<signal>`.
//!
//! A column the caller needs but the output lacks is `None`, not an error. A
//! value that does not parse is an error naming the origin, the line and what
//! was expected. So is a value no Slurm prints (see [`crate::limits`]): an
//! `Elapsed` (or `ElapsedRaw`) over 10 years, a `TimelimitRaw` over Slurm's
//! 32-bit minute count, a minutes or seconds field over 59, and a line over
//! 1 MiB (checked before any line is split into fields).

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use crate::error::{Error, Origin, Result};
use crate::limits::{excerpt, MAX_LINE_BYTES, MAX_SECONDS, MAX_SECONDS_TEXT};
use crate::slurm::time::{
    parse_elapsed, parse_printed_limit, PrintedLimit, SlurmTime, PRINTED_MAX_SECONDS,
};

/// How the text was laid out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Layout {
    /// Delimited (`-P`, `-p` or `--delimiter`); `trailing` when each line ends
    /// with the delimiter (`-p`).
    Delimited { delimiter: String, trailing: bool },
    /// The default fixed-width table.
    FixedWidth,
}

/// How to read the text.
#[derive(Debug, Clone, Default)]
pub struct SacctOptions {
    /// The field separator; `None`: `|` when the text has one, else fixed width.
    pub delimiter: Option<String>,
    /// Column names for output without a header (`sacct -n`), in `--format`
    /// order. When the text does start with these names, that line is skipped.
    pub columns: Option<Vec<String>>,
}

/// The part of a JobID before any step: a job, an array task or a het component.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum JobKind {
    /// A plain job: `239023`.
    Plain,
    /// An array task: `37403870_1` (the task id).
    ArrayTask(u64),
    /// Array tasks not yet split off (pending): `1234_[6-10]`; the text between
    /// the brackets, as printed.
    ArrayPending(String),
    /// A heterogeneous job component: `1234+0`.
    HetComponent(u32),
}

/// A job step: what follows the `.` in a JobID.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Step {
    Batch,
    Extern,
    Interactive,
    /// `.TBD`: a step whose id is not yet known.
    Pending,
    /// `.0`, `.35`; `het`: the component in `1234.0+1`.
    Numbered {
        id: u32,
        het: Option<u32>,
    },
}

/// The largest array index any Slurm runs: slurm.conf's `MaxArraySize` is
/// at most 4000001, and indexes run to one less.
pub const MAX_ARRAY_INDEX: u64 = 4_000_000;

/// Slurm's largest MaxArraySize: the most tasks one array holds anywhere.
pub const MAX_ARRAY_SIZE: u64 = MAX_ARRAY_INDEX + 1;

/// Why `index` names no array task any Slurm runs.
fn index_past_max(index: impl fmt::Display) -> String {
    format!(
        "array index {index} is past the largest Slurm allows ({MAX_ARRAY_INDEX}: MaxArraySize is at most {MAX_ARRAY_SIZE})"
    )
}

/// Why `tasks` cannot be one array, where they cannot (`--tasks`, a sizes
/// CSV's `tasks`).
pub(crate) fn tasks_past_max(tasks: u64) -> Option<String> {
    (tasks > MAX_ARRAY_SIZE).then(|| {
        format!(
            "expected at most {MAX_ARRAY_SIZE} tasks: one array holds no more (Slurm's MaxArraySize)"
        )
    })
}

/// A parsed JobID, keeping the text as printed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct JobId {
    /// The leading number: the job, or the array's master job.
    pub job: u64,
    pub kind: JobKind,
    pub step: Option<Step>,
    pub text: String,
}

impl JobId {
    /// Parses the id of a job or of one array task as Slurm prints it
    /// (`4242`, `4242_3`): what a task's `job_id` must be for the task to be
    /// resubmitted with its array index. Else why it is not.
    pub fn parse_task(text: &str) -> std::result::Result<JobId, String> {
        let id = JobId::parse(text)?;
        if let JobKind::ArrayTask(index) = id.kind {
            if index > MAX_ARRAY_INDEX {
                return Err(format!("`{text}`: {}", index_past_max(index)));
            }
        }
        if id.step.is_none() && matches!(id.kind, JobKind::Plain | JobKind::ArrayTask(_)) {
            Ok(id)
        } else {
            Err(format!(
                "`{text}` is a job step, component or array range, not the job or array task that ran"
            ))
        }
    }

    /// Parses a JobID as sacct prints it (JobID or JobIDRaw column).
    pub fn parse(text: &str) -> std::result::Result<JobId, String> {
        let bad = |why: &str| format!("`{text}` is not a Slurm job id ({why})");
        let t = text.trim();
        if t.is_empty() {
            return Err(bad("it is empty"));
        }
        // The first `.` after the array range, if any, starts the step: a
        // range Slurm cut short ends in `...` (`1234_[2,4,6,...]`).
        let range_end = match t.find("_[") {
            Some(open) => t[open..].find(']').map_or(t.len(), |close| open + close),
            None => 0,
        };
        let (head, step_text) = match t[range_end..].find('.') {
            Some(dot) => (&t[..range_end + dot], Some(&t[range_end + dot + 1..])),
            None => (t, None),
        };
        let digits_end = head
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(head.len());
        if digits_end == 0 {
            return Err(bad("it does not start with a number"));
        }
        let job: u64 = slurm_id(&head[..digits_end])
            .ok_or_else(|| bad("the number is too large for a Slurm job id (32 bits)"))?;
        let rest = &head[digits_end..];
        let kind = if rest.is_empty() {
            JobKind::Plain
        } else if let Some(task) = rest.strip_prefix('_') {
            if let Some(spec) = task.strip_prefix('[') {
                let spec = spec
                    .strip_suffix(']')
                    .or_else(|| spec.ends_with("...").then_some(spec))
                    .ok_or_else(|| bad("an array range lacks its `]`"))?;
                pending_range(spec).map_err(|why| bad(&why))?;
                JobKind::ArrayPending(spec.to_string())
            } else {
                JobKind::ArrayTask(slurm_id(task).ok_or_else(|| {
                    bad("the array task is not a number that fits Slurm's 32 bits")
                })?)
            }
        } else if let Some(comp) = rest.strip_prefix('+') {
            JobKind::HetComponent(
                number(comp)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| bad("the het component is not a number"))?,
            )
        } else {
            return Err(bad(
                "expected `_<task>`, `_[<range>]`, `+<component>` or `.<step>` after the number",
            ));
        };
        let step = match step_text {
            None => None,
            Some("batch") => Some(Step::Batch),
            Some("extern") => Some(Step::Extern),
            Some("interactive") => Some(Step::Interactive),
            Some("TBD") => Some(Step::Pending),
            Some(s) => {
                let (id, het) = match s.split_once('+') {
                    Some((id, het)) => (id, Some(het)),
                    None => (s, None),
                };
                let id = number(id)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| {
                        bad("the step is not batch, extern, interactive, TBD or a number")
                    })?;
                let het = match het {
                    None => None,
                    Some(h) => Some(
                        number(h)
                            .and_then(|n| u32::try_from(n).ok())
                            .ok_or_else(|| bad("the step's het component is not a number"))?,
                    ),
                };
                Some(Step::Numbered { id, het })
            }
        };
        Ok(JobId {
            job,
            kind,
            step,
            text: t.to_string(),
        })
    }

    /// True for step rows (`.batch`, `.0`, ...), which `sacct -X` leaves out.
    pub fn is_step(&self) -> bool {
        self.step.is_some()
    }

    /// The array's master job id, for array tasks (split or not).
    pub fn array_job(&self) -> Option<u64> {
        match self.kind {
            JobKind::ArrayTask(_) | JobKind::ArrayPending(_) => Some(self.job),
            _ => None,
        }
    }

    /// The JobID without its step: `15_0.batch` -> `15_0`.
    pub fn allocation_text(&self) -> &str {
        self.text.split('.').next().unwrap_or(&self.text)
    }

    /// How many tasks an unsplit range such as `6-10`, `1-2,6-8,11%9` or
    /// `2-18:2` stands for; `None` when Slurm cut it short (`2,4,6,...`).
    pub fn pending_task_count(&self) -> Option<u64> {
        match &self.kind {
            JobKind::ArrayPending(spec) => pending_range(spec).ok().flatten(),
            _ => None,
        }
    }
}

/// Reads the text between the brackets of a pending array's JobID
/// (`1-2,6-8,11%9`, `2-18:2`; Slurm's `xlate_array_task_str` writes it as
/// comma-separated `A`, `A-B` or `A-B:STEP`, then `%THROTTLE`, and ends a
/// list too long to print with `...`): the number of tasks, `None` when the
/// list was cut, or why it is no such list. An index past
/// [`MAX_ARRAY_INDEX`], a range that runs backwards or a step of 0 was not
/// printed by Slurm.
fn pending_range(spec: &str) -> std::result::Result<Option<u64>, String> {
    let body = match spec.rsplit_once('%') {
        Some((body, throttle)) => {
            if number(throttle).is_none() {
                return Err(format!("the throttle `%{throttle}` is not a number"));
            }
            body
        }
        None => spec,
    };
    let (body, cut) = match body.strip_suffix("...") {
        Some(kept) => (kept, true),
        None => (body, false),
    };
    if body.is_empty() && !cut {
        return Err("the array range is empty".to_string());
    }
    let not_an_index = |text: &str| {
        format!(
            "`{text}` in the array range is not an index (expected A, A-B or A-B:STEP, separated by commas)"
        )
    };
    let mut parts: Vec<&str> = body.split(',').collect();
    if cut {
        // Slurm writes the dots over the end of a full buffer, so the last
        // element may be any beginning of one (`100-10` of `100-105`): only
        // its characters can be checked.
        let partial = parts.pop().unwrap_or_default();
        if !partial
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b':')
        {
            return Err(not_an_index(partial));
        }
    }
    let index = |text: &str| -> std::result::Result<u64, String> {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(not_an_index(text));
        }
        number(text)
            .filter(|&n| n <= MAX_ARRAY_INDEX)
            .ok_or_else(|| index_past_max(text))
    };
    let mut total = 0u64;
    for part in parts {
        let (range, step) = match part.split_once(':') {
            Some((range, step)) => match number(step) {
                Some(step) if step > 0 => (range, step),
                _ => return Err(format!("the step of `{part}` is not a number above 0")),
            },
            None => (part, 1),
        };
        let count = match range.split_once('-') {
            Some((first, last)) => {
                let (first, last) = (index(first)?, index(last)?);
                if last < first {
                    return Err(format!("the range `{part}` runs backwards"));
                }
                (last - first) / step + 1
            }
            None => {
                index(range)?;
                1
            }
        };
        total = total.saturating_add(count);
    }
    Ok((!cut).then_some(total))
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A job id or array task id: Slurm stores both as 32-bit integers, so a
/// larger number was not printed by sacct (and would overflow counts).
fn slurm_id(text: &str) -> Option<u64> {
    number(text).filter(|&n| n <= u64::from(u32::MAX))
}

fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A job or step state as sacct prints it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum JobState {
    Pending,
    Running,
    Suspended,
    Completed,
    /// `CANCELLED`, or `CANCELLED by <uid>` when the requester is known.
    Cancelled {
        by: Option<u32>,
    },
    Failed,
    Timeout,
    NodeFail,
    Preempted,
    BootFail,
    Deadline,
    OutOfMemory,
    /// A state flag printed instead of the base state (`REQUEUED`,
    /// `COMPLETING`, ...) or a state this version does not know: kept as text.
    Other(String),
}

impl JobState {
    /// Reads a state; never fails (unknown text is kept). A fixed-width value
    /// cut with `+` is matched by its prefix when that is unambiguous.
    pub fn parse(text: &str) -> JobState {
        let t = text.trim();
        if let Some(uid) = t.strip_prefix("CANCELLED by ") {
            return JobState::Cancelled {
                by: uid.trim().parse().ok(),
            };
        }
        let base = match t {
            "PENDING" => Some(JobState::Pending),
            "RUNNING" => Some(JobState::Running),
            "SUSPENDED" => Some(JobState::Suspended),
            "COMPLETED" => Some(JobState::Completed),
            "CANCELLED" => Some(JobState::Cancelled { by: None }),
            "FAILED" => Some(JobState::Failed),
            "TIMEOUT" => Some(JobState::Timeout),
            "NODE_FAIL" => Some(JobState::NodeFail),
            "PREEMPTED" => Some(JobState::Preempted),
            "BOOT_FAIL" => Some(JobState::BootFail),
            "DEADLINE" => Some(JobState::Deadline),
            "OUT_OF_MEMORY" => Some(JobState::OutOfMemory),
            _ => None,
        };
        if let Some(state) = base {
            return state;
        }
        if let Some(prefix) = t.strip_suffix('+') {
            // `CANCELLED+` is `CANCELLED by <uid>` cut to 10 characters.
            let candidates: Vec<JobState> = [
                "PENDING",
                "RUNNING",
                "SUSPENDED",
                "COMPLETED",
                "CANCELLED by",
                "FAILED",
                "TIMEOUT",
                "NODE_FAIL",
                "PREEMPTED",
                "BOOT_FAIL",
                "DEADLINE",
                "OUT_OF_MEMORY",
            ]
            .iter()
            .filter(|name| !prefix.is_empty() && name.starts_with(prefix))
            .map(|name| match *name {
                "CANCELLED by" => JobState::Cancelled { by: None },
                other => JobState::parse(other),
            })
            .collect();
            if candidates.len() == 1 {
                return candidates
                    .into_iter()
                    .next()
                    .unwrap_or(JobState::Other(t.to_string()));
            }
        }
        JobState::Other(t.to_string())
    }

    /// The base-state name (`CANCELLED` for every cancelled form).
    pub fn name(&self) -> &str {
        match self {
            JobState::Pending => "PENDING",
            JobState::Running => "RUNNING",
            JobState::Suspended => "SUSPENDED",
            JobState::Completed => "COMPLETED",
            JobState::Cancelled { .. } => "CANCELLED",
            JobState::Failed => "FAILED",
            JobState::Timeout => "TIMEOUT",
            JobState::NodeFail => "NODE_FAIL",
            JobState::Preempted => "PREEMPTED",
            JobState::BootFail => "BOOT_FAIL",
            JobState::Deadline => "DEADLINE",
            JobState::OutOfMemory => "OUT_OF_MEMORY",
            JobState::Other(text) => text,
        }
    }

    /// True once the job can change no more (every base state but pending,
    /// running and suspended).
    pub fn is_finished(&self) -> bool {
        !matches!(
            self,
            JobState::Pending | JobState::Running | JobState::Suspended | JobState::Other(_)
        )
    }
}

impl fmt::Display for JobState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobState::Cancelled { by: Some(uid) } => write!(f, "CANCELLED by {uid}"),
            other => f.write_str(other.name()),
        }
    }
}

/// `ExitCode`: the exit status and the signal that ended the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ExitCode {
    pub code: i32,
    pub signal: i32,
}

impl ExitCode {
    pub fn parse(text: &str) -> Option<ExitCode> {
        let (code, signal) = text.trim().split_once(':')?;
        Some(ExitCode {
            code: code.parse().ok()?,
            signal: signal.parse().ok()?,
        })
    }
}

/// One line of sacct output.
#[derive(Debug, Clone, PartialEq)]
pub struct SacctRow {
    /// 1-based line number in the text.
    pub line: u64,
    /// Every field by column, as printed (trimmed in fixed width).
    pub fields: Vec<String>,
    pub job_id: Option<JobId>,
    pub job_id_raw: Option<JobId>,
    pub job_name: Option<String>,
    pub partition: Option<String>,
    pub state: Option<JobState>,
    pub exit_code: Option<ExitCode>,
    /// Elapsed, or ElapsedRaw, in seconds.
    pub elapsed_s: Option<u64>,
    /// Timelimit, or TimelimitRaw (minutes).
    pub timelimit: Option<PrintedLimit>,
    /// NodeList; `None assigned` and empty read as `None`.
    pub node_list: Option<String>,
    pub comment: Option<String>,
    pub start: Option<String>,
    pub end: Option<String>,
    /// Fixed width only: the columns whose value was cut (ends with `+`).
    pub truncated: Vec<String>,
}

impl SacctRow {
    /// The time limit in seconds when it is a finite time.
    pub fn timelimit_s(&self) -> Option<u64> {
        match self.timelimit {
            Some(PrintedLimit::Time(SlurmTime::Limited(s))) => Some(s),
            _ => None,
        }
    }

    /// True for step rows (`.batch`, `.extern`, `.0`, ...).
    pub fn is_step(&self) -> bool {
        self.job_id.as_ref().is_some_and(JobId::is_step)
    }
}

/// Parsed sacct output.
#[derive(Debug, Clone)]
pub struct SacctTable {
    pub layout: Layout,
    /// Column names, as in the header or as given.
    pub columns: Vec<String>,
    /// True when the text had a header line.
    pub had_header: bool,
    pub rows: Vec<SacctRow>,
}

impl SacctTable {
    /// The index of a column, by name in any case.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
    }

    /// A field of a row by column name.
    pub fn get<'a>(&self, row: &'a SacctRow, name: &str) -> Option<&'a str> {
        self.column(name)
            .and_then(|i| row.fields.get(i))
            .map(String::as_str)
    }
}

/// The columns read into [`SacctRow`]'s typed fields.
const FREE_TEXT: [&str; 2] = ["jobname", "comment"];

/// Parses sacct output (see the module docs for what is accepted).
pub fn parse_sacct(text: &str, origin: &Origin, options: &SacctOptions) -> Result<SacctTable> {
    // A byte-order mark (a file saved by a Windows editor) is not part of the
    // header, as the other readers have it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Lines with their 1-based numbers; blank lines and leading `#` comments
    // (the source lines of recorded samples) are skipped.
    let mut lines: Vec<(u64, &str)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.len() > MAX_LINE_BYTES {
            return Err(Error::input(
                origin.clone(),
                Some(i as u64 + 1),
                format!(
                    "the line is longer than {} MiB; expected sacct's text, whose lines are a few hundred bytes",
                    MAX_LINE_BYTES >> 20
                ),
            ));
        }
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        if lines.is_empty() && line.starts_with('#') {
            continue;
        }
        lines.push((i as u64 + 1, line));
    }
    // Without a header there is nothing to read the columns from: sacct
    // prints one even when no job matched, so empty text is a sacct that
    // failed (`calib audit "$(sacct ...)"`, its error gone to stderr) or the
    // wrong text, not a campaign without jobs. Given the columns (`sacct
    // -n`), empty text is no job.
    if lines.is_empty() && options.columns.is_none() {
        return Err(Error::input(
            origin.clone(),
            None,
            "no sacct output: expected a header line (sacct -P --format=...) even where no job matched; if sacct itself failed, its error is on its stderr",
        ));
    }
    if lines.is_empty() {
        return Ok(SacctTable {
            layout: Layout::Delimited {
                delimiter: options.delimiter.clone().unwrap_or_else(|| "|".into()),
                trailing: false,
            },
            columns: options.columns.clone().unwrap_or_default(),
            had_header: false,
            rows: Vec::new(),
        });
    }
    let fixed = options.delimiter.is_none()
        && lines.len() >= 2
        && is_dash_line(lines[1].1)
        && !lines[0].1.contains('|');
    if fixed {
        return parse_fixed(&lines, origin);
    }
    let delimiter = match &options.delimiter {
        Some(d) if d.is_empty() => {
            return Err(Error::input(
                origin.clone(),
                None,
                "the delimiter is empty; give the --delimiter sacct was run with",
            ))
        }
        Some(d) => d.clone(),
        None => "|".to_string(),
    };
    parse_delimited(&lines, origin, options, &delimiter)
}

fn is_dash_line(line: &str) -> bool {
    line.contains('-') && line.chars().all(|c| c == '-' || c == ' ')
}

fn looks_like_header(fields: &[&str]) -> bool {
    fields.iter().all(|f| {
        let f = f.trim();
        !f.is_empty()
            && f.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn split_fields<'a>(line: &'a str, delimiter: &str) -> Vec<&'a str> {
    line.split(delimiter).collect()
}

fn parse_delimited(
    lines: &[(u64, &str)],
    origin: &Origin,
    options: &SacctOptions,
    delimiter: &str,
) -> Result<SacctTable> {
    let (first_no, first) = lines[0];
    let mut first_fields = split_fields(first, delimiter);
    let first_trailing = first.ends_with(delimiter) && first_fields.len() > 1;
    if first_trailing {
        first_fields.pop();
    }
    let (columns, had_header, body) = match &options.columns {
        Some(given) => {
            let same = first_fields.len() == given.len()
                && first_fields
                    .iter()
                    .zip(given)
                    .all(|(a, b)| a.trim().eq_ignore_ascii_case(b.trim()));
            (given.clone(), same, if same { &lines[1..] } else { lines })
        }
        None => {
            if !looks_like_header(&first_fields) {
                let hint = if first.contains('|') || options.delimiter.is_some() {
                    "the first line is not a header (column names such as JobID|State|Elapsed); \
                     run sacct without -n/--noheader, so that its first line names the columns"
                } else {
                    "this is neither `sacct -P` output (fields separated by `|`) nor sacct's \
                     fixed-width table (header, then a line of dashes); run `sacct -P` \
                     with a --format list"
                };
                return Err(Error::input(origin.clone(), Some(first_no), hint));
            }
            (
                first_fields.iter().map(|f| f.trim().to_string()).collect(),
                true,
                &lines[1..],
            )
        }
    };
    if columns.is_empty() {
        return Err(Error::input(origin.clone(), None, "no column names"));
    }
    let free_text: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| FREE_TEXT.contains(&c.to_ascii_lowercase().as_str()))
        .map(|(i, _)| i)
        .collect();
    let index = ColumnIndex::new(&columns);
    let mut trailing_seen = if had_header {
        Some(first_trailing)
    } else {
        None
    };
    let mut rows = Vec::with_capacity(body.len());
    for &(no, line) in body {
        let mut fields = split_fields(line, delimiter);
        let n = columns.len();
        let count_error = |found: usize, trailing: bool| {
            field_count_error(origin, no, line, found, &columns, delimiter, trailing)
        };
        if trailing_seen == Some(true) {
            // `-p` ends every field with the delimiter, the last one too, so
            // the part after the last delimiter is empty on a whole line. On a
            // line cut short it is the start of a value: refused, counting the
            // fields that did end (a cut just after a delimiter is one field short).
            let rest = fields.pop();
            if rest != Some("") {
                return Err(count_error(fields.len(), true));
            }
        } else {
            // Without a header, the first line says whether they all end with
            // the delimiter: its empty last field is dropped when the count
            // says so. A header that does not end with it (`-P`) has settled
            // that: an extra empty field there is an empty last value (a
            // Comment) after a JobName that holds the delimiter.
            if trailing_seen.is_none() {
                let trailing = fields.len() == n + 1
                    && fields.last() == Some(&"")
                    && line.ends_with(delimiter);
                if trailing {
                    fields.pop();
                }
                trailing_seen = Some(trailing);
            }
        }
        let fields: Vec<String> = if fields.len() == n {
            fields.iter().map(|f| f.to_string()).collect()
        } else if fields.len() > n && free_text.len() == 1 {
            // A JobName or Comment containing the delimiter: give it the extra fields.
            let k = free_text[0];
            let extra = fields.len() - n;
            let mut out: Vec<String> = fields[..k].iter().map(|f| f.to_string()).collect();
            out.push(fields[k..=k + extra].join(delimiter));
            out.extend(fields[k + extra + 1..].iter().map(|f| f.to_string()));
            out
        } else {
            return Err(count_error(fields.len(), trailing_seen == Some(true)));
        };
        rows.push(index.row(no, fields, Vec::new(), origin)?);
    }
    Ok(SacctTable {
        layout: Layout::Delimited {
            delimiter: delimiter.to_string(),
            trailing: trailing_seen.unwrap_or(false),
        },
        columns,
        had_header,
        rows,
    })
}

/// The refusal of `line` (number `no`), which has `found` fields where the
/// header (or the given column names) has `columns.len()`: one message for
/// every line that does not split into the columns. `trailing`: the lines end
/// with the delimiter (`-p`), so a field counts only with a delimiter after it.
/// Fewer fields, or a `-p` line not ending with the delimiter, is a line cut
/// short (a truncated file, or one read while sacct was writing it); more, a
/// value that contains the delimiter.
fn field_count_error(
    origin: &Origin,
    no: u64,
    line: &str,
    found: usize,
    columns: &[String],
    delimiter: &str,
    trailing: bool,
) -> Error {
    let n = columns.len();
    let layout = if trailing {
        format!("each followed by `{delimiter}` (sacct -p)")
    } else {
        format!("separated by `{delimiter}`")
    };
    let why = if found < n || (trailing && !line.ends_with(delimiter)) {
        "the line is cut short: the file was truncated or read before sacct finished writing it"
    } else {
        "a value may contain the delimiter: use sacct --delimiter with a string that no job \
         name contains, or put JobName last in --format"
    };
    Error::input(
        origin.clone(),
        Some(no),
        format!(
            "{found} fields, expected {n} ({}) {layout}; {why}",
            columns.join(delimiter)
        ),
    )
}

/// Blank-separated words of a line with their byte spans.
fn words(line: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c == ' ' || c == '\t' {
            if let Some(s) = start.take() {
                out.push((s, i, &line[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, line.len(), &line[s..]));
    }
    out
}

/// Assigns each word to the column span it overlaps most (or lies nearest to);
/// words of one column are joined by a space.
fn assign(line: &str, spans: &[(usize, usize)]) -> Vec<String> {
    let mut cells: Vec<Vec<&str>> = vec![Vec::new(); spans.len()];
    for (s, e, word) in words(line) {
        let best = spans
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                let overlap = e.min(b) as i64 - s.max(a) as i64;
                let distance = if overlap > 0 {
                    0
                } else if e <= a {
                    (a - e) as i64
                } else {
                    (s.saturating_sub(b)) as i64
                };
                (i, overlap, distance)
            })
            .max_by(|x, y| x.1.cmp(&y.1).then(y.2.cmp(&x.2)))
            .map(|(i, _, _)| i)
            .unwrap_or(0);
        cells[best].push(word);
    }
    cells.into_iter().map(|c| c.join(" ")).collect()
}

fn parse_fixed(lines: &[(u64, &str)], origin: &Origin) -> Result<SacctTable> {
    let (_, header) = lines[0];
    let (_, dashes) = lines[1];
    let spans: Vec<(usize, usize)> = words(dashes).iter().map(|&(s, e, _)| (s, e)).collect();
    let columns = assign(header, &spans);
    if columns.iter().any(String::is_empty) {
        return Err(Error::input(
            origin.clone(),
            Some(lines[0].0),
            "a fixed-width header whose names do not line up with the dashes below; \
             run `sacct -P` instead",
        ));
    }
    let index = ColumnIndex::new(&columns);
    let mut rows = Vec::new();
    for &(no, line) in &lines[2..] {
        let fields = assign(line, &spans);
        let truncated: Vec<String> = fields
            .iter()
            .zip(&columns)
            .filter(|(f, _)| f.ends_with('+'))
            .map(|(_, c)| c.clone())
            .collect();
        rows.push(index.row(no, fields, truncated, origin)?);
    }
    Ok(SacctTable {
        layout: Layout::FixedWidth,
        columns,
        had_header: true,
        rows,
    })
}

/// Where the typed columns are.
struct ColumnIndex {
    by_name: HashMap<String, usize>,
    columns: Vec<String>,
}

impl ColumnIndex {
    fn new(columns: &[String]) -> ColumnIndex {
        let mut by_name = HashMap::new();
        for (i, c) in columns.iter().enumerate() {
            by_name.entry(c.trim().to_ascii_lowercase()).or_insert(i);
        }
        ColumnIndex {
            by_name,
            columns: columns.to_vec(),
        }
    }

    /// The column's name as printed, for messages.
    fn shown(&self, key: &str) -> String {
        self.by_name
            .get(key)
            .and_then(|&i| self.columns.get(i))
            .map(|c| c.trim().to_string())
            .unwrap_or_else(|| key.to_string())
    }

    fn field<'a>(&self, fields: &'a [String], name: &str) -> Option<&'a str> {
        self.by_name
            .get(name)
            .and_then(|&i| fields.get(i))
            .map(|s| s.trim())
    }

    fn row(
        &self,
        line: u64,
        fields: Vec<String>,
        truncated: Vec<String>,
        origin: &Origin,
    ) -> Result<SacctRow> {
        let err = |what: String| Error::input(origin.clone(), Some(line), what);
        let too_long = |name: &str, value: &str| {
            err(format!(
                "{name} `{}` is longer than {MAX_SECONDS_TEXT}, which no job runs; the sacct text is corrupted",
                excerpt(value)
            ))
        };
        let cut = |name: &str| truncated.iter().any(|t| t.eq_ignore_ascii_case(name));
        let refuse_cut = |name: &str, value: &str| {
            err(format!(
                "{name} `{value}` was cut to the column width by sacct (the `+`); \
                 run `sacct -P` (or widen it with {name}%20)"
            ))
        };
        let job_id = |name: &str| -> Result<Option<JobId>> {
            match self.field(&fields, name) {
                None | Some("") => Ok(None),
                Some(v) if cut(name) => Err(refuse_cut(&self.shown(name), v)),
                Some(v) => JobId::parse(v)
                    .map(Some)
                    .map_err(|e| err(format!("{}: {e}", self.shown(name)))),
            }
        };
        let text = |name: &str| {
            self.field(&fields, name)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        };
        let elapsed_s = match (
            self.field(&fields, "elapsed"),
            self.field(&fields, "elapsedraw"),
        ) {
            (Some(v), _) if !v.is_empty() => {
                if cut("elapsed") {
                    return Err(refuse_cut("Elapsed", v));
                }
                match parse_elapsed(v) {
                    Ok(Some(s)) if s > MAX_SECONDS => return Err(too_long("Elapsed", v)),
                    Ok(s) => s.map(|s| s.round() as u64),
                    Err(e) => return Err(err(format!("Elapsed: {e}"))),
                }
            }
            (_, Some(v)) if !v.is_empty() => match number(v) {
                Some(s) if s as f64 > MAX_SECONDS => return Err(too_long("ElapsedRaw", v)),
                Some(s) => Some(s),
                None => {
                    return Err(err(format!(
                        "ElapsedRaw `{}` is not whole seconds",
                        excerpt(v)
                    )))
                }
            },
            _ => None,
        };
        let timelimit = match (
            self.field(&fields, "timelimit"),
            self.field(&fields, "timelimitraw"),
        ) {
            (Some(v), _) => {
                if cut("timelimit") {
                    return Err(refuse_cut("Timelimit", v));
                }
                Some(parse_printed_limit(v).map_err(|e| err(format!("Timelimit: {e}")))?)
            }
            (None, Some(v)) => Some(match number(v) {
                Some(minutes) if minutes <= PRINTED_MAX_SECONDS / 60 => {
                    PrintedLimit::Time(SlurmTime::Limited(minutes * 60))
                }
                Some(_) => {
                    return Err(err(format!(
                        "TimelimitRaw `{}` is more minutes than Slurm can store (a 32-bit count)",
                        excerpt(v)
                    )))
                }
                None => parse_printed_limit(v).map_err(|e| err(format!("TimelimitRaw: {e}")))?,
            }),
            (None, None) => None,
        };
        let exit_code = match self.field(&fields, "exitcode") {
            None | Some("") => None,
            Some(v) => Some(
                ExitCode::parse(v)
                    .ok_or_else(|| err(format!("ExitCode `{v}`: expected <code>:<signal>")))?,
            ),
        };
        let node_list = text("nodelist").filter(|v| v != "None assigned");
        Ok(SacctRow {
            line,
            job_id: job_id("jobid")?,
            job_id_raw: job_id("jobidraw")?,
            job_name: text("jobname"),
            partition: text("partition"),
            state: self
                .field(&fields, "state")
                .filter(|v| !v.is_empty())
                .map(JobState::parse),
            exit_code,
            elapsed_s,
            timelimit,
            node_list,
            comment: text("comment"),
            start: text("start"),
            end: text("end"),
            truncated,
            fields,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids() {
        let j = JobId::parse("239023.extern").unwrap();
        assert_eq!(
            (j.job, &j.kind, &j.step),
            (239023, &JobKind::Plain, &Some(Step::Extern))
        );
        let j = JobId::parse("1234_[1-2,6-8,11%9]").unwrap();
        assert_eq!(j.kind, JobKind::ArrayPending("1-2,6-8,11%9".into()));
        assert_eq!(j.pending_task_count(), Some(6));
        assert_eq!(
            JobId::parse("1234_[2-18:2]").unwrap().pending_task_count(),
            Some(9)
        );
        let j = JobId::parse("1234.0+1").unwrap();
        assert_eq!(
            j.step,
            Some(Step::Numbered {
                id: 0,
                het: Some(1)
            })
        );
        // A list too long to print, cut by Slurm, has no count, and its dots
        // start no step.
        for cut in [
            "1234_[2,4,6,...]",
            "1234_[0,2,44...]",
            "1234_[2,4,...",
            "1234_[2,4,6,...%9]",
            "1234_[1-3,7-...]",
            // The dots written over half of a range: `100-10` of `100-105`.
            "1234_[10-15,20-25,30-35,40-45,50-55,60-65,70-75,80-85,90-95,100-10...]",
            "1234_[2,4,...]",
        ] {
            let j = JobId::parse(cut).unwrap_or_else(|e| panic!("{cut}: {e}"));
            assert!(
                matches!(j.kind, JobKind::ArrayPending(_)) && j.step.is_none(),
                "{cut}"
            );
            assert_eq!(j.pending_task_count(), None, "{cut}");
        }
        let j = JobId::parse("1234_[2,4,...].batch").unwrap();
        assert_eq!(j.step, Some(Step::Batch));
        // Ranges Slurm never prints: backwards, a step of 0, past MaxArraySize.
        for bad in [
            "1_[4294967295-0]",
            "1_[5-3]",
            "1_[0-4000000:0]",
            "1_[0-4294967295]",
            "1_[4000001]",
            "1_[1-3%x]",
            "1_[]",
            "1_[1,,2]",
        ] {
            assert!(JobId::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            JobId::parse("1_[0-3999999:1000000]")
                .unwrap()
                .pending_task_count(),
            Some(4)
        );
        assert!(JobId::parse("abc").is_err());
        assert!(JobId::parse("12x").is_err());
        assert!(JobId::parse("12.").is_err());
    }

    #[test]
    fn states() {
        assert_eq!(
            JobState::parse("CANCELLED by 1001"),
            JobState::Cancelled { by: Some(1001) }
        );
        assert_eq!(
            JobState::parse("CANCELLED+"),
            JobState::Cancelled { by: None }
        );
        assert_eq!(
            JobState::parse("REQUEUED"),
            JobState::Other("REQUEUED".into())
        );
        assert_eq!(JobState::parse("OUT_OF_ME+"), JobState::OutOfMemory);
    }
}
