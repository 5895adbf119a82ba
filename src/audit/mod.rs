//! Reading sacct afterwards: what each task of a campaign really used of the
//! time it asked for.
//!
//! Input: job rows of `sacct -P -X` (step rows are skipped: the job row carries
//! the outcome; a `.batch` step of a timed-out job reads `CANCELLED`, see
//! docs/slurm-formats.md, section 4). Rows are grouped by stratum,
//! recognised in this order:
//!
//! 1. the comment `calib stratum=<canonical stratum>` that `calib budget`'s
//!    sbatch lines set (stored by sacct only where the site sets
//!    `AccountingStoreFlags=job_comment`);
//! 2. `--by-name REGEX` on the job name (its first capture group, or the match);
//! 3. the job name `calib-<stratum slug>` that `calib budget` sets;
//! 4. otherwise the job name itself.
//!
//! Within a group, tasks are also summarised per array (the array's master job
//! id; a job outside any array is its own "array").
//!
//! The figure that matters (design case 7): the **share of its budget that the
//! slowest task used**, `max(elapsed / time limit)` over the tasks that ran to an
//! end set by their work or their limit (COMPLETED and TIMEOUT), and the real
//! **headroom**, its inverse (68% used is 1.47x, whatever the budget was meant to
//! be). Advice follows when the headroom is far above need (the slowest task
//! used less than [`LOW_USE`]: a shorter request starts sooner) or below it (a
//! TIMEOUT, or more than [`HIGH_USE`] used).
//!
//! A task may use more than 100%: Slurm enforces limits about once a minute,
//! lets a job run `OverTimeLimit` minutes past its limit, and an administrator
//! may raise a running job's limit. A COMPLETED task past its limit gets its
//! own advice ([`Advice::PastLimit`]); shares from 1000% on are shown as
//! `>999%` (sacct's `Elapsed` is bounded at 10 years, see [`crate::limits`]).

pub mod export;
mod query;
mod whole_runs;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use regex::Regex;
use serde::Serialize;

use crate::slurm::partitions::PartitionList;
use crate::slurm::sacct::{JobId, JobState, SacctRow, SacctTable};
use crate::slurm::time::{format_sbatch_time, sbatch_minutes, PrintedLimit, SlurmTime};
use crate::stats::median;
use crate::stratum::Stratum;
use crate::timings::Timings;

pub(crate) use query::{check_columns, SacctQuery};
pub use query::{SACCT_DELIMITER, SACCT_FORMAT};
pub(crate) use whole_runs::whole_run_rows;

/// Below this share of its budget used by the slowest task, calib suggests a
/// shorter request.
pub(crate) const LOW_USE: f64 = 0.40;
/// Above this share, calib warns that the margin is too thin.
pub(crate) const HIGH_USE: f64 = 0.90;
/// The headroom calib suggests over the slowest task when it proposes a time.
pub(crate) const SUGGESTED_HEADROOM: f64 = 1.5;

/// A share as a whole percentage; `<1%` for a small nonzero share (so that a
/// task that did run never reads as having used nothing).
pub fn percent(used: f64) -> String {
    if used > 0.0 && used < 0.005 {
        "<1%".to_string()
    } else if used * 100.0 >= 999.5 {
        ">999%".to_string()
    } else {
        crate::output::percent(used, 0)
    }
}

/// The comment prefix that `calib budget` puts in `--comment`.
pub(crate) const COMMENT_PREFIX: &str = "calib stratum=";
/// The job-name prefix that `calib budget` puts in `--job-name`.
pub(crate) const NAME_PREFIX: &str = "calib-";

/// How a group's name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupSource {
    /// `--comment="calib stratum=..."`.
    Comment,
    /// `--by-name REGEX`.
    NameRegex,
    /// `--job-name=calib-<slug>`.
    CalibName,
    /// Any other job name.
    JobName,
}

impl fmt::Display for GroupSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GroupSource::Comment => "from the job comment",
            GroupSource::NameRegex => "from the job name, by --by-name",
            GroupSource::CalibName => "from the calib- job name",
            GroupSource::JobName => "by job name",
        })
    }
}

/// How to group and what to match.
#[derive(Debug, Default)]
pub struct AuditOptions<'a> {
    /// `--by-name`: a regex on the job name; its first capture group (or the
    /// whole match) names the group.
    pub by_name: Option<Regex>,
    /// Probe timings of the campaign's tasks, matched by job id.
    pub timings: Option<&'a Timings>,
    /// The number of units each task had to do (`--units`).
    pub units: Option<u64>,
    /// The cluster's partitions and their caps (`--partitions`): PENDING tasks
    /// over every cap they wait for are flagged.
    pub partitions: Option<&'a PartitionList>,
}

/// The task that used the largest share of its budget.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slowest {
    pub job_id: String,
    pub state: String,
    pub elapsed_s: u64,
    pub limit_s: u64,
    /// elapsed / limit.
    pub used: f64,
}

/// A task killed at its time limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimedOut {
    pub job_id: String,
    pub elapsed_s: u64,
    pub limit_s: Option<u64>,
    /// The last unit its probe timings recorded, when they were given.
    pub unit_reached: Option<u64>,
    /// Seconds from the run's start to that unit.
    pub unit_elapsed_s: Option<f64>,
    /// With `--units`: the time a whole run would need at the pace measured
    /// up to the unit reached (a linear estimate, a floor when cost grows).
    pub projected_s: Option<f64>,
}

/// Outcome and use of a set of tasks.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Usage {
    /// Tasks counted (an unsplit pending range counts its tasks when known).
    pub tasks: u64,
    /// Tasks by state (`CANCELLED by 0` counts as `CANCELLED`).
    pub states: BTreeMap<String, u64>,
    /// The distinct finite time limits, in seconds.
    pub limits_s: Vec<u64>,
    /// Elapsed of COMPLETED tasks: fewest, median, most seconds.
    pub completed_min_s: Option<u64>,
    pub completed_median_s: Option<f64>,
    pub completed_max_s: Option<u64>,
    pub slowest: Option<Slowest>,
    /// limit / elapsed of the slowest task: the real headroom.
    pub headroom: Option<f64>,
    pub timeouts: Vec<TimedOut>,
}

/// One array (or single job) inside a group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArrayAudit {
    /// The array's master job id, or the job id of a job outside any array.
    pub array: String,
    /// Whether `array` is an array's (its rows' job ids are `<array>_<task>`),
    /// not a single job's.
    pub is_array: bool,
    pub usage: Usage,
}

/// What calib suggests for a group.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Advice {
    /// Some tasks were killed at their limit.
    Timeouts {
        count: u64,
        /// A time for `sbatch --time` when a projection exists.
        suggest: Option<String>,
    },
    /// The slowest task came too close to its limit.
    TooClose { used: f64, suggest: String },
    /// The slowest task completed although it ran past its limit.
    PastLimit {
        job_id: String,
        used: f64,
        suggest: String,
    },
    /// The slowest task used little of its budget: ask for less, start sooner.
    TooLoose { used: f64, suggest: String },
    /// No task finished with a known limit: nothing to measure.
    NothingMeasured,
    /// Tasks completed, but under no finite time limit (UNLIMITED, or none
    /// sacct gave): no budget to measure their use against.
    NoFiniteLimit { slowest_s: u64 },
    /// COMPLETED tasks whose probe timings stop short of `--units` units.
    CompletedShort {
        /// (job id, last unit recorded), the first few.
        tasks: Vec<(String, u64)>,
        count: usize,
        units: u64,
    },
    /// PENDING tasks whose time limit is over the cap of every partition
    /// they wait for: Slurm never starts them.
    PendingOverCap {
        /// (job id, its time limit, its partitions, the largest of their caps,
        /// seconds), the first few. The limit is `None` for UNLIMITED (JSON
        /// null), which no finite cap holds.
        tasks: Vec<(String, Option<u64>, String, u64)>,
        /// Tasks in all (an unsplit pending array range counts its tasks).
        count: usize,
        /// `scancel` with every such job id, shell-quoted.
        cancel: String,
    },
    /// COMPLETED tasks with no probe timings among those given.
    CompletedWithoutTimings {
        /// Job ids, the first few.
        tasks: Vec<String>,
        count: usize,
    },
}

impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Advice::Timeouts { count, suggest } => {
                write!(
                    f,
                    "{count} task{} hit the time limit: the budget was too short",
                    if *count == 1 { "" } else { "s" }
                )?;
                match suggest {
                    Some(time) => write!(
                        f,
                        "; ask for {time} ({SUGGESTED_HEADROOM}x what a whole run projects to at the \
                         pace they reached, a linear estimate that growing costs exceed), and feed \
                         their timings to calib fit"
                    ),
                    None => write!(
                        f,
                        "; pass --timings with their probe files (and --units) to see how far they got, \
                         then re-run calib fit and calib budget"
                    ),
                }?;
                // The tasks' own units are the best evidence for the rest of them.
                write!(
                    f,
                    "; if the program resumes from a checkpoint, calib resume sizes the rest of \
                     exactly these tasks and prints their resubmission line"
                )
            }
            Advice::TooClose { used, suggest } => write!(
                f,
                "the slowest task used {} of its budget: a slightly slower node or input \
                 would be killed; ask for {suggest} ({SUGGESTED_HEADROOM}x the slowest)",
                percent(*used)
            ),
            Advice::PastLimit {
                job_id,
                used,
                suggest,
            } => write!(
                f,
                "the slowest task ({job_id}) ran past its time limit (it used {}): Slurm let it \
                 finish, within its OverTimeLimit grace or under a limit raised while it ran, \
                 which the next run cannot count on; ask for {suggest} ({SUGGESTED_HEADROOM}x \
                 the slowest)",
                percent(*used)
            ),
            Advice::TooLoose { used, suggest } => write!(
                f,
                "the slowest task used only {} of its budget: you could ask for {suggest} \
                 ({SUGGESTED_HEADROOM}x the slowest) and start sooner (shorter jobs backfill \
                 earlier and may fit a smaller partition)",
                percent(*used)
            ),
            Advice::NothingMeasured => write!(
                f,
                "no task completed or timed out with a known time limit: nothing to measure yet"
            ),
            Advice::NoFiniteLimit { slowest_s } => write!(
                f,
                "tasks completed (the slowest in {}), but under no finite time limit \
                 (UNLIMITED, or none in the sacct text), so there is no budget to measure \
                 their use against; ask for {} ({SUGGESTED_HEADROOM}x the slowest) next time, \
                 or let calib budget size it from probes",
                crate::output::human_duration(*slowest_s as f64),
                format_sbatch_time(*slowest_s as f64 * SUGGESTED_HEADROOM)
            ),
            Advice::CompletedShort {
                tasks,
                count,
                units,
            } => {
                let listed: Vec<String> = tasks
                    .iter()
                    .map(|(job, unit)| format!("{job} at unit {unit}"))
                    .collect();
                write!(
                    f,
                    "{count} COMPLETED task{} recorded fewer than {units} units ({}{}): \
                     COMPLETED means the script exited 0, not that the work was done; check \
                     their outputs before counting them, and resubmit the ones that stopped early",
                    if *count == 1 { "" } else { "s" },
                    listed.join(", "),
                    if *count > tasks.len() { ", ..." } else { "" }
                )
            }
            Advice::PendingOverCap {
                tasks,
                count,
                cancel,
            } => {
                let listed: Vec<String> = tasks
                    .iter()
                    .map(|(job, limit, partition, cap)| {
                        format!(
                            "{job} asked --time={} of {partition}, whose cap is {}",
                            limit.map_or_else(
                                || "UNLIMITED".to_string(),
                                |s| format_sbatch_time(s as f64)
                            ),
                            format_sbatch_time(*cap as f64)
                        )
                    })
                    .collect();
                write!(
                    f,
                    "{count} PENDING task{} ask{} for more time than any partition {} wait{} for \
                     allows ({}{}): Slurm will never start {} (the reason shows \
                     PartitionTimeLimit, or Priority when `scontrol update` raised the limit \
                     after submission); cancel and resubmit within a cap (calib budget picks \
                     the partition): {cancel}",
                    if *count == 1 { "" } else { "s" },
                    if *count == 1 { "s" } else { "" },
                    if *count == 1 { "it" } else { "they" },
                    if *count == 1 { "s" } else { "" },
                    listed.join("; "),
                    if *count > tasks.len() { "; ..." } else { "" },
                    if *count == 1 { "it" } else { "them" },
                )
            }
            Advice::CompletedWithoutTimings { tasks, count } => write!(
                f,
                "{count} COMPLETED task{} left no timings among those given ({}{}): COMPLETED \
                 means the script exited 0; a task that never started its work (a wrong path, \
                 a missing input) exits 0 too: look for their outputs",
                if *count == 1 { "" } else { "s" },
                tasks.join(", "),
                if *count > tasks.len() { ", ..." } else { "" }
            ),
        }
    }
}

/// One stratum (or job name) of the campaign.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupAudit {
    /// The canonical stratum, the name's slug, the regex capture or the job name.
    pub group: String,
    pub source: GroupSource,
    pub usage: Usage,
    pub arrays: Vec<ArrayAudit>,
    /// Every task of the group: its elapsed time against its limit.
    pub tasks: Vec<TaskUse>,
    pub advice: Vec<Advice>,
}

/// One task: elapsed against its time limit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskUse {
    pub job_id: String,
    pub state: String,
    pub elapsed_s: Option<u64>,
    /// The finite time limit; `None` for UNLIMITED, Partition_Limit or unknown.
    pub limit_s: Option<u64>,
    /// elapsed / limit when both are known.
    pub used: Option<f64>,
}

/// The audit of a sacct table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    pub groups: Vec<GroupAudit>,
    /// Job rows used.
    pub job_rows: usize,
    /// Step rows left out.
    pub skipped_rows: usize,
    /// Rows that repeated a JobID already seen (the last one was kept).
    pub duplicate_rows: usize,
}

/// True for the rows `sacct -X` keeps for outcome: not a step. Each
/// component of a heterogeneous job (`200+0`, `200+1`) is a job record of its
/// own, with its own state: one that timed out is counted as such.
pub(crate) fn is_job_row(id: &JobId) -> bool {
    !id.is_step()
}

/// The stratum in a job's comment `calib stratum=<canonical>`, if any.
pub(crate) fn comment_stratum(row: &SacctRow) -> Option<Stratum> {
    let comment = row.comment.as_deref()?;
    let pos = comment.find(COMMENT_PREFIX)?;
    Stratum::parse(comment[pos + COMMENT_PREFIX.len()..].trim()).ok()
}

/// The first job row whose group would come from a value that sacct cut to
/// its column width (fixed-width output, the `+`): a job name, when no
/// comment names the stratum, or a comment that may hold `calib stratum=`.
/// Cut, the names of two strata read alike (`calib-dataset-X` and
/// `calib-dataset-Y` both print `calib-dat+` at sacct's default width), and
/// their tasks would be audited, and written by `--write-timings`, as one
/// stratum. Returns the row, the column and the value as printed.
pub(crate) fn cut_group_key(table: &SacctTable) -> Option<(&SacctRow, &'static str, &str)> {
    let cut =
        |row: &SacctRow, column: &str| row.truncated.iter().any(|t| t.eq_ignore_ascii_case(column));
    table
        .rows
        .iter()
        .filter(|row| row.job_id.as_ref().is_some_and(is_job_row))
        .find_map(|row| {
            if let Some(comment) = row.comment.as_deref().filter(|_| cut(row, "comment")) {
                let shown = comment.strip_suffix('+').unwrap_or(comment);
                if shown.contains(COMMENT_PREFIX) || COMMENT_PREFIX.starts_with(shown) {
                    return Some((row, "Comment", comment));
                }
            }
            if comment_stratum(row).is_some() {
                return None;
            }
            row.job_name
                .as_deref()
                .filter(|_| cut(row, "jobname"))
                .map(|name| (row, "JobName", name))
        })
}

/// The group a row belongs to.
pub fn group_of(row: &SacctRow, by_name: Option<&Regex>) -> (String, GroupSource) {
    if let Some(stratum) = comment_stratum(row) {
        return (stratum.to_string(), GroupSource::Comment);
    }
    let name = row.job_name.as_deref().unwrap_or("");
    if let Some(re) = by_name {
        if let Some(caps) = re.captures(name) {
            let found = caps.get(1).or_else(|| caps.get(0)).map(|m| m.as_str());
            if let Some(found) = found.filter(|s| !s.is_empty()) {
                return (found.to_string(), GroupSource::NameRegex);
            }
        }
    }
    if let Some(slug) = name.strip_prefix(NAME_PREFIX).filter(|s| !s.is_empty()) {
        return (slug.to_string(), GroupSource::CalibName);
    }
    let name = if name.is_empty() { "(no name)" } else { name };
    (name.to_string(), GroupSource::JobName)
}

/// How far a run got, from its probe timings.
#[derive(Debug, Clone, Copy)]
struct Reached {
    unit: u64,
    elapsed_s: f64,
}

fn reached_by_job(timings: Option<&Timings>) -> HashMap<String, Reached> {
    let mut out = HashMap::new();
    let Some(timings) = timings else {
        return out;
    };
    for run in &timings.runs {
        let Some(job) = &run.fingerprint.job_id else {
            continue;
        };
        if let Some(&(unit, elapsed_s)) = run.points.last() {
            let entry = out
                .entry(job.clone())
                .or_insert(Reached { unit, elapsed_s });
            if unit > entry.unit {
                *entry = Reached { unit, elapsed_s };
            }
        }
    }
    out
}

/// Tasks listed by name in an artifact advice; the rest are counted.
const LISTED_TASKS: usize = 5;

/// "COMPLETED means the script exited 0": among the COMPLETED tasks, those
/// whose probe timings (matched by job id) stop short of `units`, and those
/// with no timings at all. Only called when timings were given.
fn artifact_advice(
    rows: &[&SacctRow],
    reached: &HashMap<String, Reached>,
    units: Option<u64>,
) -> Vec<Advice> {
    let completed: Vec<(&str, Option<&Reached>)> = rows
        .iter()
        .filter(|row| row.state == Some(JobState::Completed))
        .filter_map(|row| {
            Some((
                row.job_id.as_ref()?.text.as_str(),
                reached_for(row, reached),
            ))
        })
        .collect();
    let mut advice = Vec::new();
    if let Some(units) = units {
        let short: Vec<(String, u64)> = completed
            .iter()
            .filter_map(|&(job, got)| {
                let got = got?;
                (got.unit < units).then(|| (job.to_string(), got.unit))
            })
            .collect();
        if !short.is_empty() {
            advice.push(Advice::CompletedShort {
                count: short.len(),
                tasks: short.into_iter().take(LISTED_TASKS).collect(),
                units,
            });
        }
    }
    let missing: Vec<String> = completed
        .iter()
        .filter(|(_, got)| got.is_none())
        .map(|(job, _)| job.to_string())
        .collect();
    if !missing.is_empty() {
        advice.push(Advice::CompletedWithoutTimings {
            count: missing.len(),
            tasks: missing.into_iter().take(LISTED_TASKS).collect(),
        });
    }
    advice
}

/// The PENDING tasks whose time limit is over the cap of every partition
/// they wait for (sacct's Partition, a comma list while pending). A limit of
/// UNLIMITED (the job asked `--time=UNLIMITED`, or 0) is over every finite
/// cap: Slurm keeps such a job pending with PartitionTimeLimit, as one that
/// asked a day too much. Partition_Limit (the job asked for none, so the
/// partition's own applies) and an unknown limit are not judged; nor are
/// tasks in a partition the list does not name, or in one without a cap,
/// which holds any limit.
fn pending_over_cap(rows: &[&SacctRow], list: &PartitionList) -> Option<Advice> {
    let cap_of = |name: &str| {
        list.partitions
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.limit.seconds())
    };
    let mut over: Vec<(String, Option<u64>, String, u64)> = Vec::new();
    // An unsplit pending array range counts its tasks.
    let mut task_count = 0usize;
    for row in rows.iter().filter(|r| r.state == Some(JobState::Pending)) {
        // Some(None): UNLIMITED, over any finite cap.
        let limit = match row.timelimit {
            Some(PrintedLimit::Time(SlurmTime::Limited(s))) => Some(Some(s)),
            Some(PrintedLimit::Time(SlurmTime::Unlimited)) => Some(None),
            _ => None,
        };
        let (Some(id), Some(limit), Some(partition)) =
            (&row.job_id, limit, row.partition.as_deref())
        else {
            continue;
        };
        // Every partition named, and each with a finite cap.
        let caps: Option<Vec<Option<u64>>> = partition.split(',').map(cap_of).collect();
        let Some(caps) = caps.and_then(|c| c.into_iter().collect::<Option<Vec<u64>>>()) else {
            continue;
        };
        let Some(&largest) = caps.iter().max() else {
            continue;
        };
        if limit.is_none_or(|limit| limit > largest) {
            let tasks = id.pending_task_count().unwrap_or(1);
            task_count = task_count.saturating_add(usize::try_from(tasks).unwrap_or(usize::MAX));
            over.push((id.text.clone(), limit, partition.to_string(), largest));
        }
    }
    if over.is_empty() {
        return None;
    }
    let jobs: Vec<String> = over
        .iter()
        .map(|(job, ..)| crate::shell::quote(job))
        .collect();
    Some(Advice::PendingOverCap {
        count: task_count,
        cancel: format!("scancel {}", jobs.join(" ")),
        tasks: over.into_iter().take(LISTED_TASKS).collect(),
    })
}

/// A task's probe timings, matched by its JobID or by its JobIDRaw (what
/// SLURM_JOB_ID holds inside an array task).
fn reached_for<'r>(row: &SacctRow, reached: &'r HashMap<String, Reached>) -> Option<&'r Reached> {
    let by_id = row.job_id.as_ref().and_then(|id| reached.get(&id.text));
    by_id.or_else(|| {
        row.job_id_raw
            .as_ref()
            .and_then(|raw| reached.get(&raw.text))
    })
}

/// Audits the job rows of a sacct table.
pub fn audit(table: &SacctTable, options: &AuditOptions) -> Audit {
    let reached = reached_by_job(options.timings);
    // Job rows only, the last row of each JobID.
    let mut skipped_rows = 0;
    let mut duplicate_rows = 0;
    let mut order: Vec<String> = Vec::new();
    let mut latest: HashMap<String, &SacctRow> = HashMap::new();
    for row in &table.rows {
        let Some(id) = &row.job_id else {
            skipped_rows += 1;
            continue;
        };
        if !is_job_row(id) {
            skipped_rows += 1;
            continue;
        }
        if latest.insert(id.text.clone(), row).is_some() {
            duplicate_rows += 1;
        } else {
            order.push(id.text.clone());
        }
    }
    // Group, keeping first-seen order.
    // Each group found by its key in a map, not by a scan of the groups: a
    // scan per job made 100,000 jobs of distinct names take 25 s.
    let mut groups: Vec<(String, GroupSource, Vec<&SacctRow>)> = Vec::new();
    let mut group_at: HashMap<(String, GroupSource), usize> = HashMap::new();
    for id in &order {
        let row = latest[id];
        let (name, source) = group_of(row, options.by_name.as_ref());
        match group_at.get(&(name.clone(), source)) {
            Some(&k) => groups[k].2.push(row),
            None => {
                group_at.insert((name.clone(), source), groups.len());
                groups.push((name, source, vec![row]));
            }
        }
    }
    let groups = groups
        .into_iter()
        .map(|(group, source, rows)| {
            let usage = usage_of(&rows, &reached, options.units);
            let mut arrays: Vec<(String, bool, Vec<&SacctRow>)> = Vec::new();
            let mut array_at: HashMap<String, usize> = HashMap::new();
            for row in &rows {
                let (key, is_array) = row
                    .job_id
                    .as_ref()
                    .map(|id| match id.array_job() {
                        Some(job) => (job.to_string(), true),
                        None => (id.allocation_text().to_string(), false),
                    })
                    .unwrap_or_default();
                match array_at.get(&key) {
                    Some(&k) => arrays[k].2.push(row),
                    None => {
                        array_at.insert(key.clone(), arrays.len());
                        arrays.push((key, is_array, vec![row]));
                    }
                }
            }
            let arrays = arrays
                .into_iter()
                .map(|(array, is_array, rows)| ArrayAudit {
                    array,
                    is_array,
                    usage: usage_of(&rows, &reached, options.units),
                })
                .collect();
            let mut advice = advise(&usage);
            if options.timings.is_some() {
                advice.extend(artifact_advice(&rows, &reached, options.units));
            }
            if let Some(list) = options.partitions {
                advice.extend(pending_over_cap(&rows, list));
            }
            let tasks = rows
                .iter()
                .map(|row| {
                    let limit_s = row.timelimit_s();
                    TaskUse {
                        job_id: row
                            .job_id
                            .as_ref()
                            .map(|j| j.text.clone())
                            .unwrap_or_default(),
                        state: row
                            .state
                            .as_ref()
                            .map(|s| s.to_string())
                            .unwrap_or_default(),
                        elapsed_s: row.elapsed_s,
                        limit_s,
                        used: match (row.elapsed_s, limit_s) {
                            (Some(e), Some(l)) if l > 0 => Some(e as f64 / l as f64),
                            _ => None,
                        },
                    }
                })
                .collect();
            GroupAudit {
                group,
                source,
                usage,
                arrays,
                tasks,
                advice,
            }
        })
        .collect();
    Audit {
        groups,
        job_rows: order.len(),
        skipped_rows,
        duplicate_rows,
    }
}

fn usage_of(rows: &[&SacctRow], reached: &HashMap<String, Reached>, units: Option<u64>) -> Usage {
    let mut u = Usage::default();
    let mut completed: Vec<u64> = Vec::new();
    for row in rows {
        let tasks = row
            .job_id
            .as_ref()
            .and_then(|id| id.pending_task_count())
            .unwrap_or(1);
        // Saturating: many unsplit ranges of 2^32 tasks each must not wrap.
        u.tasks = u.tasks.saturating_add(tasks);
        let state = row
            .state
            .clone()
            .unwrap_or_else(|| JobState::Other("(unknown)".into()));
        let count = u.states.entry(state.name().to_string()).or_insert(0);
        *count = count.saturating_add(tasks);
        let limit = row.timelimit_s();
        if let Some(l) = limit {
            u.limits_s.push(l);
        }
        let id = row
            .job_id
            .as_ref()
            .map(|j| j.text.clone())
            .unwrap_or_default();
        if state == JobState::Completed {
            if let Some(e) = row.elapsed_s {
                completed.push(e);
            }
        }
        if matches!(state, JobState::Completed | JobState::Timeout) {
            if let (Some(e), Some(l)) = (row.elapsed_s, limit.filter(|&l| l > 0)) {
                let used = e as f64 / l as f64;
                if u.slowest.as_ref().is_none_or(|s| used > s.used) {
                    u.slowest = Some(Slowest {
                        job_id: id.clone(),
                        state: state.name().to_string(),
                        elapsed_s: e,
                        limit_s: l,
                        used,
                    });
                }
            }
        }
        if state == JobState::Timeout {
            let hit = reached_for(row, reached);
            let projected_s = match (hit, units) {
                (Some(r), Some(n)) if r.unit > 0 => Some(r.elapsed_s * n as f64 / r.unit as f64),
                _ => None,
            };
            u.timeouts.push(TimedOut {
                job_id: id,
                elapsed_s: row.elapsed_s.unwrap_or(0),
                limit_s: limit,
                unit_reached: hit.map(|r| r.unit),
                unit_elapsed_s: hit.map(|r| r.elapsed_s),
                projected_s,
            });
        }
    }
    u.limits_s.sort_unstable();
    u.limits_s.dedup();
    completed.sort_unstable();
    u.completed_min_s = completed.first().copied();
    u.completed_max_s = completed.last().copied();
    // In f64: the sum of two u64 elapsed times may not fit a u64.
    u.completed_median_s = median(&completed.iter().map(|&e| e as f64).collect::<Vec<_>>());
    u.headroom = u
        .slowest
        .as_ref()
        .filter(|s| s.elapsed_s > 0)
        .map(|s| s.limit_s as f64 / s.elapsed_s as f64);
    u
}

/// What to tell the user about a group.
pub(crate) fn advise(usage: &Usage) -> Vec<Advice> {
    let mut advice = Vec::new();
    if !usage.timeouts.is_empty() {
        let projected = usage
            .timeouts
            .iter()
            .filter_map(|t| t.projected_s)
            .fold(None, |acc: Option<f64>, p| {
                Some(acc.map_or(p, |a| a.max(p)))
            });
        advice.push(Advice::Timeouts {
            count: usage.timeouts.len() as u64,
            suggest: projected.map(|p| format_sbatch_time(p * SUGGESTED_HEADROOM)),
        });
        return advice;
    }
    match &usage.slowest {
        None => advice.push(match usage.completed_max_s {
            Some(slowest_s) => Advice::NoFiniteLimit { slowest_s },
            None => Advice::NothingMeasured,
        }),
        Some(s) if s.used > 1.0 => advice.push(Advice::PastLimit {
            job_id: s.job_id.clone(),
            used: s.used,
            suggest: format_sbatch_time(s.elapsed_s as f64 * SUGGESTED_HEADROOM),
        }),
        Some(s) if s.used > HIGH_USE => advice.push(Advice::TooClose {
            used: s.used,
            suggest: format_sbatch_time(s.elapsed_s as f64 * SUGGESTED_HEADROOM),
        }),
        // Only when the suggestion is shorter than what was asked (Slurm counts
        // whole minutes, so a 1-minute limit cannot shrink).
        Some(s)
            if s.used < LOW_USE
                && sbatch_minutes(s.elapsed_s as f64 * SUGGESTED_HEADROOM) * 60 < s.limit_s =>
        {
            advice.push(Advice::TooLoose {
                used: s.used,
                suggest: format_sbatch_time(s.elapsed_s as f64 * SUGGESTED_HEADROOM),
            })
        }
        Some(_) => {}
    }
    advice
}
