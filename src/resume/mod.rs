//! Resuming the tasks that hit their walltime: the time the rest of each run
//! needs, and the `sbatch` line that resubmits exactly those array tasks.
//!
//! A task killed by its time limit after unit k of N (its probe timings show
//! k; sacct shows `TIMEOUT`) of a program that checkpoints needs only units
//! k+1..N. calib sizes that remainder with the same model, the same margin
//! rules and the same bucket rule as `calib budget` ([`crate::budget`]),
//! updated with what the killed run itself measured.
//!
//! # The remainder of one run
//!
//! The killed run's own pace is measured against the stratum's centre
//! ([`crate::fit`]): the shape of per-unit cost h the probe fitted, and the
//! run's own scale s over the second half of its units, as `calib fit`
//! takes each probe run's. After unit k of N, the rest costs
//!
//! `R = S r + s Σ_{i=k+1..N} h(i)`
//!
//! - the units k+1..N cost what the shape says for them, at the run's own
//!   pace (r = s over the median run's scale, shown as the run's pace);
//! - the restarted process pays the startup S (the probe's median) again,
//!   at that pace (assumption: loading the checkpoint costs about what
//!   starting did; a program whose checkpoint takes much longer to load
//!   should be probed resuming);
//! - the program resumes after the last unit its probe recorded (assumption:
//!   it writes its checkpoint before it reports the unit done, as the probe's
//!   marker line; one that checkpoints every m units loses up to m - 1 more).
//!
//! Then, per run, `predicted_s` = `floor_s` = R, the **remainder projected
//! at the run's own pace** (a projection: the units k+1..N have not run),
//! and `upper_s` = R times the margin of `calib budget`'s bound for a new
//! run of N units at the same confidence (`upper_s / predicted_s` of
//! [`crate::model::StratumModel::project`]). That margin counts the spread
//! between seeds although this run's own pace is measured: it is wider than
//! a bound conditioned on the run would be.
//!
//! The tasks of one stratum share one resubmission: its `floor_s` and
//! `upper_s` are the largest of its tasks', and the budgeting rule
//! ([`crate::budget::rule`]) turns them into the `--time` and the partition,
//! never below the remainder projected at the runs' own pace (`over_cap`
//! when even that exceeds the largest cap: the run needs several
//! resubmissions, each resuming and paying the startup again, with the
//! startup and the unit a kill loses scaled as the bound scales the run;
//! see [`rule::segments`] and [`RestartCosts::at_bound`]).
//!
//! # A program that cannot resume
//!
//! With `checkpoint: false` the whole run starts again from unit 1. The killed
//! runs are new evidence of the stratum's cost (longer than the probe, on the
//! cluster that runs the campaign): [`refit_with`] fits the probe timings with
//! their units added, and the stratum is budgeted for a whole run of N units
//! exactly as `calib budget` does.
//!
//! # Which tasks
//!
//! With sacct rows, the tasks in state `TIMEOUT`, matched to their probe
//! timings by job id (the `job_id` column holds `JOB_TASK` for an array task,
//! as sacct's JobID; JobIDRaw is tried too). Without sacct, every run of the
//! timings that stopped short of N units on a signal or with no end row (a
//! walltime kill gives one or the other); a run that exited by itself did not
//! hit its walltime, and resubmitting it would not help. Each task left out
//! is listed with the reason.
//!
//! # First runs only
//!
//! A task's timings are taken as a first run: unit 1 is the run's first unit.
//! A resumed run's probe counts from 1 again (it cannot know where the
//! checkpoint left off), so its timings are not what this module sizes: a
//! task killed again after a resume would be read as at unit j of N rather
//! than k + j. [`refuse_resumed_runs`] refuses timings that hold both
//! segments of one task; timings of resumed runs alone cannot be told apart
//! from first runs, which the help, the notes and the README say.

pub mod export;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Serialize;

use crate::budget::{self, rule, BudgetOptions, Cap, Decision, Status, Target};
use crate::error::{Error, Origin, Result};
use crate::fit::{fit_timings, FitOptions};
use crate::model::{ModelFile, StratumModel};
use crate::note::{Note, SegmentWork, Segments};
use crate::slurm::partitions::Selection;
use crate::slurm::sacct::{JobId, JobKind, JobState, SacctTable};
use crate::slurm::time::format_minutes;
use crate::timings::{RunEnd, RunTimings, Timings};

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct ResumeOptions {
    /// Units of a whole run (N).
    pub units: u64,
    /// One-sided confidence of the upper bound, above 0.5 and below 1.
    pub confidence: f64,
    /// Whether the program resumes from a checkpoint; when not, the whole run
    /// is budgeted again from unit 1.
    pub checkpoint: bool,
    /// The cases the bound is calibrated on, as `calib budget` takes them.
    pub calibration: crate::calibrate::Table,
}

/// A task killed by its walltime, with the units its probe recorded.
#[derive(Debug, Clone)]
pub struct TimedOutTask {
    /// The job id as sacct prints it (`4242_3`), when known.
    pub job_id: Option<String>,
    /// The array's master job and this task's index, for an array task.
    pub array: Option<(u64, u64)>,
    pub timings: RunTimings,
}

impl TimedOutTask {
    /// The last unit recorded (k).
    pub fn unit_reached(&self) -> u64 {
        self.timings.points.last().map_or(0, |p| p.0)
    }

    /// Seconds from the run's start to unit k.
    pub fn elapsed_s(&self) -> f64 {
        self.timings.points.last().map_or(0.0, |p| p.1)
    }

    /// The job id, else the run id.
    pub fn task_label(&self) -> &str {
        self.job_id.as_deref().unwrap_or(&self.timings.run)
    }
}

/// A task calib does not resubmit, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// The job id, else the run id.
    pub task: String,
    pub reason: String,
}

/// The tasks to resume, and those left out.
#[derive(Debug, Clone, Default)]
pub struct Selected {
    pub tasks: Vec<TimedOutTask>,
    pub skipped: Vec<Skipped>,
    /// How the tasks were chosen, when the user should know.
    pub notes: Vec<Note>,
}

/// The array master and task index of an array task's job id.
fn array_task(id: &JobId) -> Option<(u64, u64)> {
    match id.kind {
        JobKind::ArrayTask(index) => Some((id.job, index)),
        _ => None,
    }
}

/// [`array_task`] of a job id as text, such as `4242_3`.
fn array_of(job_id: &str) -> Option<(u64, u64)> {
    array_task(&JobId::parse(job_id).ok()?)
}

/// Checks the killed tasks' timings before anything is chosen from them:
/// every run's `job_id` is a job or an array task as Slurm prints it
/// (`4242`, `4242_3`), since a resubmission keeps a task's array index only
/// when its id parses, and a task resubmitted without it runs with no
/// `SLURM_ARRAY_TASK_ID` (no seed, no cell); and no killed run (ended by a
/// signal, or with no end row) recorded more units than the `units` of a
/// whole run: it would look finished and be left out, while its walltime
/// killed it short of the campaign's length (the `--units` given is not the
/// campaign's; a run of another stratum that ended by itself may be longer).
/// Timings none of whose runs has a `job_id` are no campaign's tasks (runs
/// probed outside Slurm, such as the probe itself): there is no task to
/// resubmit. The error names the run, its stratum and why; its origin is
/// `origin` (the timings given).
pub fn check_tasks(timings: &Timings, units: u64, origin: Origin) -> Result<()> {
    if let Some(first) = timings.runs.first() {
        if timings
            .runs
            .iter()
            .all(|run| run.fingerprint.job_id.is_none())
        {
            return Err(Error::input(
                origin,
                None,
                format!(
                    "none of its {} runs (the first: `{}` of stratum `{}`) has a job_id, so none ran as a Slurm job and none can be resubmitted (the probe's own timings?); expected the timings the campaign's tasks wrote, where calib probe records each task's job id",
                    timings.runs.len(),
                    first.run,
                    first.stratum
                ),
            ));
        }
    }
    // One task's runs follow one another (calib probe --repeat), and a kill
    // ends the task: two killed runs under one job id are two tasks' rows.
    let mut killed_in: std::collections::HashMap<&str, &RunTimings> =
        std::collections::HashMap::new();
    for run in &timings.runs {
        let killed = matches!(run.end, None | Some((RunEnd::Signal(_), _, _)));
        if let (true, Some(job)) = (killed, run.fingerprint.job_id.as_deref()) {
            if let Some(other) = killed_in.insert(job, run) {
                return Err(Error::input(
                    origin,
                    None,
                    format!(
                        "runs `{}` and `{}` (stratum `{}`) were both killed under job id {job}: a task's runs follow one another and a kill ends it, so these are two tasks' rows under one id; expected each killed task's timings once, with its own job id",
                        other.run, run.run, run.stratum
                    ),
                ));
            }
        }
        let reached = run.points.last().map_or(0, |p| p.0);
        if killed && reached > units {
            return Err(Error::input(
                origin,
                None,
                format!(
                    "run `{}` of stratum `{}` was killed after recording {reached} units, more than --units {units}: give the units of a whole run of the campaign",
                    run.run, run.stratum
                ),
            ));
        }
        let Some(text) = run.fingerprint.job_id.as_deref() else {
            continue;
        };
        let Err(why) = JobId::parse_task(text) else {
            continue;
        };
        return Err(Error::input(
            origin,
            None,
            format!(
                "run `{}` of stratum `{}`: its job_id {why}; expected JOB or JOB_INDEX (4242, 4242_3), as calib probe records it",
                run.run, run.stratum
            ),
        ));
    }
    Ok(())
}

/// The task a run belongs to, for messages: its job id, else its run id.
fn task_name(run: &RunTimings) -> String {
    run.fingerprint
        .job_id
        .clone()
        .unwrap_or_else(|| run.run.clone())
}

/// Chooses the tasks to resume from their probe timings and, when given, the
/// sacct rows of their jobs (see the module docs).
pub fn select(timings: &Timings, sacct: Option<&SacctTable>, units: u64) -> Selected {
    let mut selected = Selected::default();
    let short_of = |run: &RunTimings| run.points.last().is_none_or(|p| p.0 < units);
    match sacct {
        None => {
            selected.notes.push(Note::NoSacct { units });
            for run in &timings.runs {
                let name = task_name(run);
                if !short_of(run) {
                    continue;
                }
                if run.fingerprint.job_id.is_none() {
                    selected.skipped.push(Skipped {
                        task: name,
                        reason: "no job_id: it did not run as a Slurm job, so there is no task to resubmit for it".into(),
                    });
                    continue;
                }
                if run.points.is_empty() {
                    selected.skipped.push(Skipped {
                        task: name,
                        reason: "no unit recorded: nothing to resume from; budget it from unit 1 with calib budget".into(),
                    });
                    continue;
                }
                if let Some((RunEnd::Exit(code), _, _)) = &run.end {
                    selected.skipped.push(Skipped {
                        task: name,
                        reason: format!(
                            "exited by itself (status {code}) at unit {} of {units}, not killed by its walltime: a longer time would not help; see its log",
                            run.points.last().map_or(0, |p| p.0)
                        ),
                    });
                    continue;
                }
                selected.tasks.push(TimedOutTask {
                    job_id: run.fingerprint.job_id.clone(),
                    array: run.fingerprint.job_id.as_deref().and_then(array_of),
                    timings: run.clone(),
                });
            }
        }
        Some(table) => {
            // Job rows only, the last row of each JobID (as calib audit reads them).
            let mut order: Vec<&JobId> = Vec::new();
            let mut latest: HashMap<&str, &crate::slurm::sacct::SacctRow> = HashMap::new();
            for row in &table.rows {
                let Some(id) = row
                    .job_id
                    .as_ref()
                    .filter(|id| crate::audit::is_job_row(id))
                else {
                    continue;
                };
                if latest.insert(id.text.as_str(), row).is_none() {
                    order.push(id);
                }
            }
            // Each run by the job id its probe recorded; the longest run of a job.
            let mut by_job: HashMap<&str, &RunTimings> = HashMap::new();
            for run in &timings.runs {
                if let Some(job) = run.fingerprint.job_id.as_deref() {
                    let entry = by_job.entry(job).or_insert(run);
                    if run.points.last().map(|p| p.0) > entry.points.last().map(|p| p.0) {
                        *entry = run;
                    }
                }
            }
            let mut matched: std::collections::HashSet<&str> = Default::default();
            for id in order {
                let row = latest[id.text.as_str()];
                let found = [Some(id), row.job_id_raw.as_ref()]
                    .into_iter()
                    .flatten()
                    .find_map(|j| by_job.get(j.text.as_str()).map(|r| (j.text.as_str(), *r)));
                if let Some((job, _)) = found {
                    matched.insert(job);
                }
                if row.state != Some(JobState::Timeout) {
                    if let Some((_, run)) = found.filter(|(_, run)| short_of(run)) {
                        let state = row.state.as_ref().map_or("(no state)", |s| s.name());
                        let reached = run.points.last().map_or(0, |p| p.0);
                        let reason = if row.state.as_ref().is_some_and(|s| s.is_finished()) {
                            format!("{state} in sacct, not TIMEOUT, after unit {reached} of {units}: not a walltime kill, so a longer time would not help; see its log")
                        } else {
                            format!("{state} in sacct (at unit {reached} of {units}): not over yet; run calib resume again once it has ended")
                        };
                        selected.skipped.push(Skipped {
                            task: id.text.clone(),
                            reason,
                        });
                    }
                    continue;
                }
                let array = array_task(id);
                match found {
                    None => selected.skipped.push(Skipped {
                        task: id.text.clone(),
                        reason: "TIMEOUT, but no probe timings of this job among --timings: how far it got is unknown; give its timings file, or budget it from unit 1 with calib budget".into(),
                    }),
                    Some((_, run)) if !short_of(run) => selected.skipped.push(Skipped {
                        task: id.text.clone(),
                        reason: format!("TIMEOUT after recording all {units} units: its work is done; check its outputs"),
                    }),
                    Some((_, run)) if run.points.is_empty() => selected.skipped.push(Skipped {
                        task: id.text.clone(),
                        reason: "TIMEOUT before any unit was recorded: nothing to resume from; budget it from unit 1 with calib budget".into(),
                    }),
                    Some((_, run)) => selected.tasks.push(TimedOutTask {
                        job_id: Some(id.text.clone()),
                        array,
                        timings: run.clone(),
                    }),
                }
            }
            for run in &timings.runs {
                let known = run
                    .fingerprint
                    .job_id
                    .as_deref()
                    .is_some_and(|j| matched.contains(&j));
                if !known && short_of(run) {
                    selected.skipped.push(Skipped {
                        task: task_name(run),
                        reason: "stopped short of the run's units, but its job is not in the sacct text: not resumed".into(),
                    });
                }
            }
        }
    }
    selected
}

/// Refuses timings that hold a resumed run beside the run it resumed: two
/// runs killed short of `units` (on a signal or with no end row) in the
/// same stratum at the same array index of two different arrays, one of
/// them a task to resume. A resumed run counts its units from 1 again, so
/// calib would take its unit j for unit j of the run rather than k + j, and
/// would resubmit the first kill's remainder again beside it. calib sizes
/// first runs only (see the module docs).
pub fn refuse_resumed_runs(timings: &Timings, selected: &Selected, units: u64) -> Result<()> {
    let killed = |run: &RunTimings| {
        run.points.last().is_some_and(|p| p.0 < units)
            && !matches!(run.end, Some((RunEnd::Exit(_), _, _)))
    };
    // The killed runs by (stratum, array index): one look-up per task, not a
    // scan of every run (20,000 killed tasks took 27 s).
    let mut by_index: HashMap<(String, u64), Vec<(u64, &RunTimings)>> = HashMap::new();
    for run in timings.runs.iter().filter(|r| killed(r)) {
        if let Some((job, index)) = run.fingerprint.job_id.as_deref().and_then(array_of) {
            by_index
                .entry((run.stratum.canonical(), index))
                .or_default()
                .push((job, run));
        }
    }
    for task in &selected.tasks {
        let Some((job, index)) = task.array else {
            continue;
        };
        let other = by_index
            .get(&(task.timings.stratum.canonical(), index))
            .and_then(|runs| runs.iter().find(|(j, _)| *j != job))
            .map(|(_, run)| *run);
        if let Some(other) = other {
            return Err(Error::Refused(format!(
                "{} and {} are both index {index} of stratum `{}` and both stopped short of {units} units: if one resumed the other, its units count from 1 again, and calib resume would size it from the wrong unit and resubmit the first kill's remainder beside it. calib resume sizes first runs only: give the timings of the first submission alone; a task killed again after a resume needs its remainder sized by hand (see calib resume --help)",
                task.task_label(),
                task_name(other),
                task.timings.stratum.canonical()
            )));
        }
    }
    Ok(())
}

/// What one killed run measured against the centre, and the time its
/// remaining units need (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Remainder {
    /// The run's pace against the median probe run's (a factor).
    pub level: f64,
    /// The same (kept beside `level` for the JSON output's readers).
    pub rate: f64,
    /// Units left to do (N - k).
    pub units: u64,
    pub predicted_s: f64,
    /// The remainder projected at this run's own pace.
    pub floor_s: f64,
    pub upper_s: f64,
    /// The restart's startup at the run's pace.
    pub startup_s: f64,
    /// The costliest unit left at the run's pace: what a kill in the middle
    /// of a unit loses at most.
    pub unit_s: f64,
}

/// The remainder of a run that recorded `points` (unit, elapsed seconds;
/// last unit k < `units`) of a stratum of `model`, with `margin_ln` the
/// log-scale margin of the bound (see the module docs). `None` when the
/// stratum's probe shows no per-unit cost.
pub fn remainder(
    model: &StratumModel,
    points: &[(u64, f64)],
    units: u64,
    margin_ln: f64,
) -> Option<Remainder> {
    let centre = model.centre.as_ref().ok()?;
    let median = centre.scale();
    let scale = centre.fit_run(points).map_or(median, |r| r.scale);
    let pace = scale / median.max(f64::MIN_POSITIVE);
    let k = points.last().map_or(0, |p| p.0).min(units);
    let startup_s = centre.startup_s() * pace;
    let remaining = startup_s + scale * centre.shape.sum(k, units);
    Some(Remainder {
        level: pace,
        rate: pace,
        units: units - k,
        predicted_s: remaining,
        floor_s: remaining,
        upper_s: remaining * margin_ln.max(0.0).exp(),
        startup_s,
        unit_s: scale * centre.shape.sum(units.saturating_sub(1), units),
    })
}

/// One killed task and, when it resumes, its remainder.
#[derive(Debug, Clone)]
pub struct TaskPlan {
    pub task: TimedOutTask,
    /// `None` when the run starts again from unit 1 (no checkpoint).
    pub remainder: Option<Remainder>,
}

/// The resubmission of one stratum's killed tasks.
#[derive(Debug, Clone)]
pub struct StratumResume {
    pub stratum: String,
    pub tasks: Vec<TaskPlan>,
    /// For the tasks' common `--time`: the largest of their remainders (or,
    /// without a checkpoint, the budget of a whole run).
    pub predicted_s: f64,
    pub floor_s: f64,
    pub upper_s: f64,
    pub decision: Decision,
    pub notes: Vec<Note>,
}

impl StratumResume {
    /// Whether the stratum gets a live resubmission.
    pub fn submittable(&self) -> bool {
        matches!(self.decision.status, Status::Ok | Status::RoundedDown)
    }

    /// `--time` as Slurm parses it.
    pub fn time(&self) -> String {
        format_minutes(self.decision.minutes)
    }

    /// For `over_cap`: the `--time` of each segment, the largest cap in
    /// whole minutes (see [`rule::segments`]).
    pub fn segment_minutes(&self) -> Option<u64> {
        (self.decision.status == Status::OverCap).then(|| self.decision.segment_minutes())
    }

    /// The resubmissions: one per array the killed tasks came from (its
    /// task indexes as an `--array` list), one per task outside any array.
    pub fn submissions(&self) -> Vec<Submission> {
        let mut arrays: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        let mut singles = Vec::new();
        for t in &self.tasks {
            match t.task.array {
                Some((job, index)) => arrays.entry(job).or_default().push(index),
                None => singles.push(Submission {
                    array: None,
                    replaces: t
                        .task
                        .job_id
                        .clone()
                        .unwrap_or_else(|| t.task.timings.run.clone()),
                }),
            }
        }
        let mut out: Vec<Submission> = arrays
            .into_iter()
            .map(|(job, mut indexes)| {
                indexes.sort_unstable();
                indexes.dedup();
                Submission {
                    array: Some(index_list(&indexes)),
                    replaces: format!("{job}_[{}]", index_list(&indexes)),
                }
            })
            .collect();
        out.extend(singles);
        out
    }
}

/// One `sbatch` submission of a stratum's killed tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Submission {
    /// The `--array` value (`1,3-5`); `None` for a job outside any array.
    pub array: Option<String>,
    /// The job (or tasks) it replaces, for the record.
    pub replaces: String,
}

/// Sorted, distinct indexes as Slurm's `--array` list: runs of consecutive
/// indexes as ranges (`1,3-5`).
pub fn index_list(indexes: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indexes.len() {
        let start = indexes[i];
        let mut end = start;
        while i + 1 < indexes.len() && end.checked_add(1) == Some(indexes[i + 1]) {
            end += 1;
            i += 1;
        }
        parts.push(if end > start {
            format!("{start}-{end}")
        } else {
            start.to_string()
        });
        i += 1;
    }
    parts.join(",")
}

/// The resubmission plan of every stratum with killed tasks.
#[derive(Debug, Clone)]
pub struct ResumePlan {
    pub units: u64,
    pub confidence: f64,
    pub checkpoint: bool,
    /// Which partitions were in play, in words.
    pub partitions: String,
    pub strata: Vec<StratumResume>,
    pub skipped: Vec<Skipped>,
    pub notes: Vec<Note>,
}

impl ResumePlan {
    /// The strata given no usable time (`over_cap`, `unsupported`): exit 3.
    pub fn refused(&self) -> Vec<&StratumResume> {
        self.strata.iter().filter(|s| !s.submittable()).collect()
    }
}

/// Checks a plan against the campaign grid its tasks derive their cells from
/// (`grid`, read from `path`): each resubmitted stratum is one of the grid's,
/// sized for the same units, and each array index is one of its cells
/// (`0..cells`, per stratum, as `calib budget --grid` numbers them). A task
/// outside would resume with no cell, or with another cell's, so the plan is
/// refused before any line is printed.
pub fn check_grid(plan: &ResumePlan, grid: &budget::grid::Grid, path: &str) -> Result<()> {
    for s in &plan.strata {
        let Some(size) = grid.sizes.get(&s.stratum) else {
            return Err(Error::Refused(format!(
                "stratum `{}` is not in the grid {path}: its tasks could not derive a cell from it; give the grid the campaign ran with",
                s.stratum
            )));
        };
        if let Some(units) = size.units.filter(|&u| u != plan.units) {
            return Err(Error::Refused(format!(
                "the grid {path} gives stratum `{}` {units} units, not --units {}: give the units the campaign ran with",
                s.stratum, plan.units
            )));
        }
        let cells = size.tasks.unwrap_or(0);
        for t in &s.tasks {
            match t.task.array {
                Some((_, index)) if index < cells => {}
                Some((_, index)) => {
                    return Err(Error::Refused(format!(
                        "task {} has array index {index}, but stratum `{}` has {cells} cells in the grid {path} (indexes 0-{}): it did not run as one of the grid's per-stratum arrays, and resubmitted it would derive no cell",
                        t.task.task_label(),
                        s.stratum,
                        cells.saturating_sub(1)
                    )));
                }
                None => {
                    return Err(Error::Refused(format!(
                        "task {} is not an array task: with --grid each task derives its cell from its array index; give the timings of the grid's array tasks (their job_id JOB_INDEX)",
                        t.task.task_label()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Each submittable stratum's job script in `dir`, the folder `calib budget
/// --script-dir` wrote: the file that exports the stratum's `CALIB_STRATUM`
/// ([`budget::export::written_job_script`]). A stratum without one is
/// refused before any line is printed: its line would fail on submit, or,
/// under a name another stratum's labels also give, run that stratum's cell.
pub fn job_scripts_in(plan: &ResumePlan, dir: &Path) -> Result<BTreeMap<String, String>> {
    let mut scripts = BTreeMap::new();
    for s in plan.strata.iter().filter(|s| s.submittable()) {
        let found = budget::export::written_job_script(dir, &s.stratum)?;
        let Some(path) = found else {
            return Err(Error::Refused(format!(
                "--script-dir: no job script in {} exports stratum `{}` (calib budget names it {}.sh, or -2, -3, ... after it where strata's job names are the same); give the folder calib budget --script-dir wrote, or --script",
                dir.display(),
                s.stratum,
                budget::export::job_name(&s.stratum)
            )));
        };
        scripts.insert(s.stratum.clone(), path.to_string_lossy().into_owned());
    }
    Ok(scripts)
}

/// The probe timings with the killed runs' units added (a run already among
/// them, by its stratum and run id, is not added twice), fitted as `calib fit` does: the
/// model for a program that cannot resume.
pub fn refit_with(probes: &Timings, tasks: &[TimedOutTask]) -> Result<ModelFile> {
    let mut merged = probes.clone();
    for task in tasks {
        let same = |r: &RunTimings| r.run == task.timings.run && r.stratum == task.timings.stratum;
        if !merged.runs.iter().any(same) {
            merged.runs.push(task.timings.clone());
        }
    }
    Ok(fit_timings(&merged, &FitOptions::default())?.model)
}

/// Plans the resubmission of `selected`'s tasks under the partitions of
/// `selection`, with `model` (for a program that cannot resume: the model of
/// [`refit_with`]).
pub fn plan(
    model: &ModelFile,
    selection: &Selection,
    selected: Selected,
    options: &ResumeOptions,
) -> Result<ResumePlan> {
    // The tasks by stratum, in the model's order.
    let mut by_stratum: BTreeMap<String, Vec<TimedOutTask>> = BTreeMap::new();
    for task in selected.tasks {
        by_stratum
            .entry(task.timings.stratum.canonical())
            .or_default()
            .push(task);
    }
    for (stratum, tasks) in &by_stratum {
        if !model.strata.iter().any(|s| &s.stratum == stratum) {
            return Err(Error::Refused(format!(
                "{} was killed in stratum {}, which the model has no measurement of; give the model (or probe timings) of that stratum. Measured strata: {}",
                task_name(&tasks[0].timings),
                crate::model::check::show(stratum),
                model.strata.iter().map(|s| s.display_name()).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    // calib budget's own plan of a new whole run for these strata: the caps,
    // the support, the margin rules and (without a checkpoint) the budget.
    let restricted = ModelFile {
        strata: model
            .strata
            .iter()
            .filter(|s| by_stratum.contains_key(&s.stratum))
            .cloned()
            .collect(),
        ..model.clone()
    };
    let mut strata = Vec::new();
    if !restricted.strata.is_empty() {
        let whole = budget::plan(
            &restricted,
            selection,
            &BudgetOptions {
                units: Some(options.units),
                tasks: 1,
                grid: None,
                confidence: options.confidence,
                // The killed runs ran on the cluster that runs the campaign.
                target: Target::default(),
                allow_transfer: false,
                allow_guess: false,
                calibration: options.calibration.clone(),
            },
        )?;
        for (model_stratum, new_run) in restricted.strata.iter().zip(&whole.strata) {
            let tasks = by_stratum
                .remove(&model_stratum.stratum)
                .unwrap_or_default();
            strata.push(if options.checkpoint {
                resume_stratum(model_stratum, new_run, tasks, &whole.caps, options)
            } else {
                rerun_stratum(new_run, tasks, options)
            });
        }
    }
    let mut notes = selected.notes;
    if strata
        .iter()
        .any(|s| s.decision.needs_a_longer_cap(s.upper_s))
    {
        notes.extend(budget::longer_partitions_note(selection));
    }
    Ok(ResumePlan {
        units: options.units,
        confidence: options.confidence,
        checkpoint: options.checkpoint,
        partitions: selection.description.clone(),
        strata,
        skipped: selected.skipped,
        notes,
    })
}

fn resume_stratum(
    model: &crate::model::StratumModel,
    new_run: &budget::StratumBudget,
    tasks: Vec<TimedOutTask>,
    caps: &[Cap],
    options: &ResumeOptions,
) -> StratumResume {
    let projection = &new_run.projection;
    let margin_ln = if projection.predicted_s > 0.0 && projection.upper_s > 0.0 {
        (projection.upper_s / projection.predicted_s).ln()
    } else {
        0.0
    };
    let tasks: Vec<TaskPlan> = tasks
        .into_iter()
        .map(|task| {
            let remainder = remainder(model, &task.timings.points, options.units, margin_ln);
            TaskPlan { task, remainder }
        })
        .collect();
    let most = |f: fn(&Remainder) -> f64| {
        tasks
            .iter()
            .filter_map(|t| t.remainder.as_ref().map(f))
            .fold(0.0, f64::max)
    };
    let (predicted_s, floor_s, upper_s) = (
        most(|r| r.predicted_s),
        most(|r| r.floor_s),
        most(|r| r.upper_s),
    );
    let mut notes = Vec::new();
    for t in &tasks {
        if let Some(r) = &t.remainder {
            notes.push(Note::Remainder {
                task: t.task.task_label().to_string(),
                unit: t.task.unit_reached(),
                units: options.units,
                elapsed_s: t.task.elapsed_s(),
                pace: r.level,
                left: r.units,
                floor_s: r.floor_s,
                upper_s: r.upper_s,
            });
        }
    }
    // A resumed run pays its startup again and loses a unit at each kill,
    // both as large as the bound makes them.
    let scale = (upper_s / predicted_s.max(f64::MIN_POSITIVE)).max(1.0);
    let (startup_s, unit_s) = (most(|r| r.startup_s) * scale, most(|r| r.unit_s) * scale);
    let mut decision =
        rule::decide(floor_s, upper_s, caps).with_restart_costs(upper_s, startup_s, unit_s);
    if new_run.decision.status == Status::Unsupported {
        decision = Decision {
            minutes: 0,
            partition: None,
            status: Status::Unsupported,
            segments: None,
            largest_cap_s: decision.largest_cap_s,
        };
        if let Some(why) = new_run.projection.unsupported {
            notes.push(Note::Unsupported {
                why,
                units: options.units,
                probe_units: model.probe_units(),
                guess_possible: false,
            });
        }
        notes.push(Note::RemainderUnsupported {
            units: options.units,
        });
    }
    notes.extend(decision_notes(
        &decision, floor_s, upper_s, startup_s, unit_s,
    ));
    notes.push(Note::RemainderMargin {
        units: options.units,
        margin: margin_ln.exp_m1(),
    });
    // The model's own notes (distance, spread, forms); budget's notes on a new
    // run's bucket are not this remainder's.
    notes.extend(new_run.projection.notes.iter().cloned());
    StratumResume {
        stratum: model.stratum.clone(),
        tasks,
        predicted_s,
        floor_s,
        upper_s,
        decision,
        notes,
    }
}

fn rerun_stratum(
    new_run: &budget::StratumBudget,
    tasks: Vec<TimedOutTask>,
    options: &ResumeOptions,
) -> StratumResume {
    let reached: Vec<String> = tasks
        .iter()
        .map(|t| format!("{} at unit {}", t.task_label(), t.unit_reached()))
        .collect();
    let mut notes = vec![Note::Rerun {
        units: options.units,
        reached,
    }];
    notes.extend(new_run.notes.iter().cloned());
    StratumResume {
        stratum: new_run.stratum.clone(),
        tasks: tasks
            .into_iter()
            .map(|task| TaskPlan {
                task,
                remainder: None,
            })
            .collect(),
        predicted_s: new_run.projection.predicted_s,
        floor_s: new_run.projection.floor_s,
        upper_s: new_run.projection.upper_s,
        decision: new_run.decision.clone(),
        notes,
    }
}

/// What the bucket rule did (`calib budget`'s notes, for a remainder;
/// `startup_s` and `unit_s` as [`rule::segments`] takes them).
fn decision_notes(
    decision: &Decision,
    floor_s: f64,
    upper_s: f64,
    startup_s: f64,
    unit_s: f64,
) -> Vec<Note> {
    match decision.status {
        Status::RoundedDown => vec![Note::RoundedDown {
            partition: decision.partition.clone().unwrap_or_default(),
            time: format_minutes(decision.minutes),
            given_up_s: upper_s - decision.time_s() as f64,
            upper_s,
            above_floor_s: decision.time_s() as f64 - floor_s,
            remainder: true,
        }],
        Status::OverCap => {
            let segment_minutes = decision.segment_minutes();
            vec![Note::OverCap {
                floor_s,
                cap: format_minutes(segment_minutes),
                segments: decision.segments.map(|count| Segments {
                    count,
                    time: format_minutes(segment_minutes),
                    each: SegmentWork::Remainder {
                        work_each_s: (segment_minutes * 60) as f64 - startup_s - unit_s,
                        left_s: (upper_s - startup_s).max(0.0),
                    },
                }),
                startup_s,
                unit_s,
                remainder: true,
            }]
        }
        Status::Ok | Status::Unsupported => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::centre::{Centre, Form};
    use crate::model::ModelFingerprint;

    /// A run of constant cost `unit_s` after `startup_s`, to unit `k`.
    fn run(startup_s: f64, unit_s: f64, k: u64) -> Vec<(u64, f64)> {
        (1..=k)
            .map(|i| (i, startup_s + unit_s * i as f64))
            .collect()
    }

    /// The model of probe runs `probes`.
    fn model(probes: &[Vec<(u64, f64)>]) -> StratumModel {
        let refs: Vec<&[(u64, f64)]> = probes.iter().map(Vec::as_slice).collect();
        StratumModel {
            stratum: "s=1".into(),
            runs: probes.len(),
            units_probed: probes.iter().map(|p| p.len() as u64).sum(),
            centre: Centre::fit(&refs, Form::Power),
            fingerprint: ModelFingerprint::default(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_run_is_resumed_at_its_own_pace_with_the_startup_paid_again() {
        let m = model(&[run(10.0, 2.0, 20), run(10.0, 2.0, 20)]);
        // Killed at unit 74 at 1.3 times the probes' pace.
        let points: Vec<(u64, f64)> = run(13.0, 2.6, 74);
        let r = remainder(&m, &points, 100, 0.0).unwrap();
        assert!((r.level - 1.3).abs() < 1e-9, "{r:?}");
        assert_eq!(r.units, 26);
        let expected = 1.3 * 10.0 + 26.0 * 2.6;
        assert!((r.floor_s - expected).abs() < 1e-6, "{r:?}");
        // No margin asked: the bound is the own-pace remainder itself.
        assert!((r.upper_s - expected).abs() < 1e-6);
    }

    #[test]
    fn the_margin_multiplies_the_remainder() {
        let m = model(&[run(0.0, 2.0, 20)]);
        let r = remainder(&m, &run(0.0, 2.0, 40), 100, 1.5f64.ln()).unwrap();
        assert!((r.predicted_s - 120.0).abs() < 1e-6, "{r:?}");
        assert!((r.upper_s - 180.0).abs() < 1e-6, "{r:?}");
    }

    #[test]
    fn a_run_that_slowed_down_is_projected_at_its_recent_pace() {
        // Units 1..30 at 2 s, then 31..40 at 3 s: its second half runs at
        // 3 s, and the remainder takes that pace.
        let m = model(&[run(0.0, 2.0, 20)]);
        let points: Vec<(u64, f64)> = (1..=40u64)
            .map(|i| {
                (
                    i,
                    2.0 * i.min(30) as f64 + 3.0 * i.saturating_sub(30) as f64,
                )
            })
            .collect();
        let r = remainder(&m, &points, 100, 0.0).unwrap();
        assert!(r.floor_s > 60.0 * 2.4, "{r:?}");
    }

    #[test]
    fn no_remainder_without_a_per_unit_signal() {
        let m = model(&[vec![(1, 5.0)]]);
        assert_eq!(remainder(&m, &run(0.0, 2.0, 40), 100, 0.0), None);
    }

    #[test]
    fn array_indexes_become_ranges() {
        assert_eq!(index_list(&[0]), "0");
        assert_eq!(index_list(&[1, 2, 3, 7, 9, 10]), "1-3,7,9-10");
        assert_eq!(index_list(&[]), "");
        // The largest index a file could claim ends a range without overflow.
        assert_eq!(
            index_list(&[u64::MAX - 1, u64::MAX]),
            format!("{}-{}", u64::MAX - 1, u64::MAX)
        );
    }

    #[test]
    fn array_tasks_are_read_from_their_job_ids() {
        assert_eq!(array_of("4242_7"), Some((4242, 7)));
        assert_eq!(array_of("4242"), None);
        assert_eq!(array_of("not a job"), None);
    }
}
