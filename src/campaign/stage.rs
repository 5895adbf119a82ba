//! Staging a campaign: a two-task smoke array first, and the stage-2 trigger
//! written down before it runs (`calib stage`), then the trigger evaluated
//! against sacct and the smoke's artifacts (`calib stage check`).
//!
//! What stage 1 is for: it exercises the machinery the real arrays will use
//! (the same script, the same `calib grid cell` derivation of tags and output
//! paths, the same grid file) at minimum scale: two tasks of one stratum, a
//! few units each. Two, because one task cannot collide with anything. Its
//! numbers say that the pipeline works; they are not results, nor estimates
//! of results: the smoke stratum is, of the strata with two cells (two
//! distinct cells to collide), the cheapest per unit by stage 2's own
//! `--time` (or the one `--stratum` names), chosen because that makes the
//! smoke cheap, not because it is representative (the cheapest cells are the
//! least representative of a campaign), and its few units say nothing of
//! stage 2's times.
//!
//! Why the trigger is a file written first: afterwards one rationalises
//! whatever stage 1 shows. The file holds the exact checks, each with its
//! failure interpretation in words, and the stage-2 submission (what `calib
//! budget --grid GRID --format sbatch` printed), which `calib stage check`
//! prints only when every check passes:
//!
//! - `completed`: every smoke task is COMPLETED in sacct;
//! - `outputs_exist`: each task's output path (from the grid) exists and
//!   was modified at or after the trigger's `created_at`, give or take a
//!   minute of clock difference (a file from an
//!   earlier run would otherwise pass for the smoke's: `calib stage` refuses
//!   to stage a smoke whose output paths exist already, and this catches one
//!   that appears before the smoke runs);
//! - `outputs_distinct`: the files are distinct files (not one file under
//!   two names);
//! - `records`: each file holds exactly the expected number of records
//!   (non-empty lines), each containing every expected field text;
//! - `log_line`: each task's log holds the line `calib grid cell` wrote for
//!   its cell (the derived config line), so the log can be traced to the cell.
//!
//! Stage 2 is read, never passed through: `calib stage check` prints it for
//! the user to run, so it may hold only comments, blank lines and `sbatch`
//! lines, each `sbatch` line is checked against the grid and the script (its
//! stratum, its array indexes, its `CALIB_GRID`, its script), and the trigger
//! keeps each line written again from the words calib read, through the
//! quoting function ([`crate::shell`]): what is printed submits exactly the
//! arrays that were checked and counted, and a `$(...)` in a word stays text.
//!
//! Assumptions: the smoke tasks run in the folder `calib stage` ran in (the
//! submission says `--chdir`), so relative output paths resolve there; their
//! logs go where the submission's `--output` says (`%A` the array's job id,
//! `%a` the task index, a `%` of the folder's name written `%%`, as sbatch
//! reads a filename pattern); the smoke job is found in sacct by its job name, the
//! latest such array when several were submitted; stage 2 is submitted
//! from that folder too, so a relative script path in its sbatch lines
//! names the same file as `--script` there; the clock that stamps the
//! smoke's files (a compute node's, a file server's) lags the one `calib
//! stage` ran on by less than a minute ([`CLOCK_TOLERANCE_S`]), and an
//! earlier run's file is older than the trigger by more than that.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::grid::{cell_log_line, CampaignGrid, StratumCells};
use crate::atomic::CreatedFiles;
use crate::budget::export::{
    absolute, exported_variables, refuse_split_in_export, script_argument, GRID_VARIABLE,
};
use crate::error::{Error, Origin, Result};
use crate::limits::excerpt;
use crate::shell::{comment_text, quote, quote_option, refuse_control};
use crate::slurm::sacct::{JobKind, SacctTable};

/// The checks a trigger may hold, by name.
pub const CHECKS: [&str; 5] = [
    "completed",
    "outputs_exist",
    "outputs_distinct",
    "records",
    "log_line",
];

/// One smoke task: what it must leave behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmokeTask {
    pub index: u64,
    pub tag: String,
    /// The cell's output path, as the grid derives it.
    pub output: String,
    /// The line `calib grid cell` writes to the task's log.
    pub log_line: String,
}

/// One check of the trigger: what it checks and what a failure means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub name: String,
    pub checks: String,
    pub if_failed: String,
}

/// The stage-2 trigger file (TOML).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    pub about: String,
    pub calib_version: String,
    pub created_at: String,
    /// The grid file, absolute.
    pub grid: String,
    /// Where the smoke tasks run (absolute): relative outputs resolve here.
    pub workdir: String,
    pub stratum: String,
    pub smoke_job_name: String,
    pub smoke_units: u64,
    /// The smoke logs (absolute), as sbatch's `--output` reads them: `%A`
    /// the job id, `%a` the task index, `%%` a `%` of the folder's name.
    pub log_pattern: String,
    /// Records (non-empty lines) each output file must hold.
    pub records: u64,
    /// Texts each record must contain.
    pub fields: Vec<String>,
    /// The stage-2 submission, printed when every check passes.
    pub stage2: String,
    pub tasks: Vec<SmokeTask>,
    pub checks: Vec<Check>,
}

/// What `calib stage` was asked for.
#[derive(Debug, Clone)]
pub struct StagePlan {
    /// The grid file as given.
    pub grid_path: PathBuf,
    /// The user's batch script (the same as stage 2's).
    pub script: String,
    /// The stage-2 submission: `calib budget --grid GRID --format sbatch` output.
    pub stage2: String,
    pub stage2_origin: Origin,
    pub out_dir: PathBuf,
    /// The smoke stratum; default the first with two cells or more.
    pub stratum: Option<String>,
    pub smoke_units: u64,
    /// The smoke's `--time`, as given and as sbatch reads it.
    pub smoke_time: String,
    /// The same in seconds, as the command parsed it (finite, above 0).
    pub smoke_s: u64,
    pub records: u64,
    pub fields: Vec<String>,
    pub created_at: String,
}

/// The files `calib stage` writes.
#[derive(Debug, Clone)]
pub struct Staged {
    pub smoke_path: PathBuf,
    pub smoke_text: String,
    pub trigger_path: PathBuf,
    pub trigger_text: String,
    pub log_dir: PathBuf,
    pub trigger: Trigger,
    /// The stage-2 arrays (its `sbatch` lines).
    pub stage2_arrays: usize,
    /// What the user should know before submitting the smoke.
    pub warnings: Vec<String>,
}

/// The words of a failure, as the trigger states them (the seed's own for
/// the outputs: a missing file means the identifier is not reaching the code).
fn standard_checks(tasks: usize, records: u64, fields: &[String]) -> Vec<Check> {
    let fields_text = if fields.is_empty() {
        String::new()
    } else {
        format!(
            ", each containing {}",
            fields
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        )
    };
    vec![
        Check {
            name: "completed".into(),
            checks: format!("all {tasks} smoke tasks are COMPLETED in sacct"),
            if_failed: "A task TIMEOUT: the smoke's --time was too short for its units; raise \
                --smoke-time or lower --smoke-units and stage again (this says nothing about \
                stage 2's times). A task FAILED: the script, its environment or the cell \
                derivation fails at the smoke's scale, and stage 2's tasks run the same script \
                and derivation: read the task's log and fix that first. Another state \
                (OUT_OF_MEMORY, NODE_FAIL, CANCELLED): read the task's log and sacct before \
                staging again."
                .into(),
        },
        Check {
            name: "outputs_exist".into(),
            checks: "each task's output path, derived from the grid, exists and was modified at or \
                after the trigger was written"
                .into(),
            if_failed: "If only one file exists, the identifier is not reaching the code and the \
                real array would clobber itself: fix that first. If none exists, the program does \
                not write where the grid says ($CALIB_OUTPUT). If a file is older than the \
                trigger, the file predates this smoke: an earlier run wrote it, and the smoke \
                did not (re)write it."
                .into(),
        },
        Check {
            name: "outputs_distinct".into(),
            checks: "the output files are distinct files".into(),
            if_failed: "Two tasks' paths lead to one file (a link): the tasks would overwrite \
                each other's results in stage 2."
                .into(),
        },
        Check {
            name: "records".into(),
            checks: format!(
                "each output file holds exactly {records} record{} (non-empty lines){fields_text}",
                if records == 1 { "" } else { "s" }
            ),
            if_failed: "More records than expected: another task wrote into this file (two tasks, \
                one path), so the identifier is not reaching the code. Fewer, or a missing field: \
                the program did not finish its minimum run, or writes another format than the \
                analysis expects."
                .into(),
        },
        Check {
            name: "log_line".into(),
            checks: "each task's log holds the config line `calib grid cell` derived for it".into(),
            if_failed: "The log does not show the derived config line: the script does not derive \
                its cell with calib grid cell (a hand-written mapping may be in use), or its stderr \
                goes elsewhere; no log could then be traced back to its cell."
                .into(),
        },
    ]
}

/// The smoke stratum: the one asked for; else, of the strata with two cells
/// that stage 2 submits, the cheapest per unit by stage 2's own `--time`
/// (what makes a smoke cheap; the first in the grid among equals); else the
/// first with two cells.
fn smoke_stratum<'g>(
    grid: &'g CampaignGrid,
    asked: Option<&str>,
    arrays: &[Stage2Array],
) -> Result<(&'g StratumCells, &'static str)> {
    let two = || {
        grid.strata
            .iter()
            .filter(|s| s.cells.len() >= 2)
            .map(|s| crate::stratum::display_name(&s.stratum))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Stage 2 names a stratum as CALIB_STRATUM does (`;` for `,`): the grid
    // reads it back.
    // Each array's stratum is read once, with its time per unit.
    let priced: Vec<(&StratumCells, f64)> = arrays
        .iter()
        .filter_map(|a| {
            Some((
                grid.stratum(a.stratum.as_deref()?).ok()?,
                a.seconds_per_unit?,
            ))
        })
        .collect();
    let per_unit = |s: &StratumCells| {
        priced
            .iter()
            .find(|(named, _)| named.stratum == s.stratum)
            .map(|&(_, seconds)| seconds)
    };
    let cheapest = grid
        .strata
        .iter()
        .filter(|s| s.cells.len() >= 2)
        .filter_map(|s| Some((s, per_unit(s)?)))
        .reduce(|best, next| if next.1 < best.1 { next } else { best })
        .map(|(s, _)| s);
    let (chosen, why) = match (asked, cheapest) {
        (Some(text), _) => (grid.stratum(text)?, "the one asked for (--stratum)"),
        (None, Some(cheapest)) => (
            cheapest,
            "the cheapest per unit, by stage 2's --time, of the strata with two cells",
        ),
        (None, None) => grid
            .strata
            .iter()
            .find(|s| s.cells.len() >= 2)
            .map(|s| (s, "the grid's first stratum with two cells"))
            .ok_or_else(|| {
                Error::Refused(format!(
                    "no stratum of {} has two cells: a smoke of one task cannot test that tags and \
                     output paths do not collide; add a second value to an axis outside the stratum",
                    grid.origin
                ))
            })?,
    };
    if chosen.cells.len() < 2 {
        return Err(Error::Refused(format!(
            "stratum {} has one cell: a smoke of one task cannot collide with anything; choose a \
             stratum with two cells or more: {}",
            crate::stratum::display_name(&chosen.stratum),
            two()
        )));
    }
    Ok((chosen, why))
}

/// A path as the file it names: canonical (links and `..` resolved) when
/// it exists; else absolute, as far as that goes (`..` kept).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// One line of the stage-2 text, as calib reads it and writes it again.
enum Stage2Line {
    /// A blank line or a comment: written again as it was, control
    /// characters escaped ([`comment_text`]).
    Text(String),
    /// An `sbatch` command: its words, as a POSIX shell splits the line
    /// (`shlex`), and its line number in the text.
    Sbatch { line: u64, words: Vec<String> },
}

/// What stage 2 may hold, for messages.
const STAGE2_LINES: &str =
    "comments, blank lines and `sbatch ...` command lines only (what `calib \
    budget --format sbatch` writes)";

/// Reads stage 2 line by line: blank lines, comments, and `sbatch` commands;
/// any other line is refused, naming it. Why not pass other lines through:
/// `calib stage check` prints stage 2 for the user to run, and a line calib
/// did not read (`touch x; sbatch ...`, `rm ...`) would run unseen, and its
/// arrays would escape the checks and the count.
fn read_stage2(text: &str, origin: &Origin) -> Result<Vec<Stage2Line>> {
    let mut lines = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let at = Some(k as u64 + 1);
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            lines.push(Stage2Line::Text(String::new()));
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            lines.push(Stage2Line::Text(format!("#{}", comment_text(comment))));
            continue;
        }
        let words = shlex::split(raw).ok_or_else(|| {
            Error::input(
                origin.clone(),
                at,
                "this line does not read as shell words (an unclosed quote, or a `\\` at its \
                 end?)",
            )
        })?;
        if words.first().map(String::as_str) != Some("sbatch") {
            return Err(Error::input(
                origin.clone(),
                at,
                format!(
                    "this line is not an sbatch command: stage 2 may hold {STAGE2_LINES}, because \
                     calib stage check prints it for you to run; remove the line, or make it a \
                     comment"
                ),
            ));
        }
        for word in &words {
            refuse_control("a word of this sbatch line", word)
                .map_err(|why| Error::input(origin.clone(), at, why))?;
        }
        lines.push(Stage2Line::Sbatch {
            line: k as u64 + 1,
            words,
        });
    }
    Ok(lines)
}

/// Stage 2 written again from what [`read_stage2`] read: each `sbatch` line
/// from its words, each through the quoting function ([`quote_option`]), so
/// that what calib prints runs exactly the words it checked (a `$(...)`, a
/// backtick, a `;` inside a word is text for sbatch, never code). A line that
/// would not split back into the same words is refused rather than printed.
fn write_stage2(lines: &[Stage2Line], origin: &Origin) -> Result<String> {
    let mut text = String::new();
    for line in lines {
        match line {
            Stage2Line::Text(t) => text.push_str(t),
            Stage2Line::Sbatch { line, words } => {
                let written = words
                    .iter()
                    .map(|w| quote_option(w))
                    .collect::<Vec<_>>()
                    .join(" ");
                if shlex::split(&written).as_ref() != Some(words) {
                    return Err(Error::input(
                        origin.clone(),
                        Some(*line),
                        "this sbatch line cannot be written again as the same shell words",
                    ));
                }
                text.push_str(&written);
            }
        }
        text.push('\n');
    }
    Ok(text)
}

/// Stage 2 as the trigger keeps it and `calib stage check` prints it:
/// [`read_stage2`] then [`write_stage2`].
fn rewritten_stage2(text: &str, origin: &Origin) -> Result<String> {
    write_stage2(&read_stage2(text, origin)?, origin)
}

/// Checks that stage 2 is this grid's submission running `plan.script`, as
/// `calib budget --grid GRID --format sbatch --script SCRIPT` writes it: only
/// comments, blank lines and `sbatch` lines ([`read_stage2`]); each `sbatch`
/// line exports `CALIB_GRID` naming the grid file, its last word is the
/// script, and it submits a stratum of the grid with array indexes within
/// that stratum's cells. Relative scripts resolve in the folder `calib stage`
/// runs in, where stage 2 is assumed to be submitted from as well. Returns
/// the arrays (one per `sbatch` line: what stage 2 submits) and stage 2
/// written again ([`write_stage2`]).
fn same_submission(
    plan: &StagePlan,
    grid: &CampaignGrid,
    grid_file: &Path,
) -> Result<(Vec<Stage2Array>, String)> {
    check_submission(
        &plan.stage2,
        &plan.stage2_origin,
        grid,
        grid_file,
        Some(&plan.script),
    )
}

/// [`same_submission`] of a stage 2 and its grid, running `script`, or where
/// `script` is `None` (`calib stage check`, whose trigger keeps no script)
/// the one script every line runs.
fn check_submission(
    stage2: &str,
    origin: &Origin,
    grid: &CampaignGrid,
    grid_file: &Path,
    script: Option<&str>,
) -> Result<(Vec<Stage2Array>, String)> {
    let expected = || {
        format!(
            "expected the stage-2 submission of this grid: the output of `calib budget --grid {} \
             --format sbatch --script {}` (its sbatch lines export CALIB_GRID={})",
            quote(&grid_file.to_string_lossy()),
            quote(script.unwrap_or("SCRIPT")),
            grid_file.display()
        )
    };
    let lines = read_stage2(stage2, origin)?;
    let mut arrays: Vec<Stage2Array> = Vec::new();
    // The stratum of each line so far (as the grid names it), and its line.
    let mut submitted_strata: Vec<(String, u64)> = Vec::new();
    let mut first_script: Option<String> = None;
    for line in &lines {
        let Stage2Line::Sbatch { line, words } = line else {
            continue;
        };
        let at = Some(*line);
        sbatch_shape(words).map_err(|why| Error::input(origin.clone(), at, why))?;
        let variable = |name: &str| {
            export_items(words).find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
        };
        arrays.push(
            Stage2Array::of(words, variable)
                .map_err(|why| Error::input(origin.clone(), at, why))?,
        );
        let exported = variable(GRID_VARIABLE);
        let Some(exported) = exported else {
            if words.len() == 2 {
                return Err(Error::input(
                    origin.clone(),
                    at,
                    format!(
                        "stage 2 submits the job script {} (calib budget --script-dir): a job \
                         script exports stage 2's own CALIB_UNITS and derives its cell itself, so \
                         a smoke can neither run it at a few units nor run your script bare in its \
                         place; make stage 2 as command lines (the same calib budget without \
                         --script-dir) and stage that",
                        words[1]
                    ),
                ));
            }
            return Err(Error::input(
                origin.clone(),
                at,
                format!(
                    "this sbatch line exports no {GRID_VARIABLE}; {}",
                    expected()
                ),
            ));
        };
        if resolved(Path::new(exported)) != grid_file {
            return Err(Error::input(
                origin.clone(),
                at,
                format!(
                    "this sbatch line runs the grid {exported}, not {}; {}",
                    grid_file.display(),
                    expected()
                ),
            ));
        }
        let submitted = words.last().map(String::as_str).unwrap_or_default();
        match script {
            Some(script) if resolved(Path::new(submitted)) != resolved(Path::new(script)) => {
                return Err(Error::input(
                    origin.clone(),
                    at,
                    format!(
                        "stage 2 runs the script {submitted}, and --script is {script}: the smoke \
                         must run the script stage 2 runs (give --script {})",
                        quote(submitted)
                    ),
                ));
            }
            Some(_) => {}
            None => match &first_script {
                Some(first) if resolved(Path::new(submitted)) != resolved(Path::new(first)) => {
                    return Err(Error::input(
                        origin.clone(),
                        at,
                        format!(
                            "this line runs the script {submitted}, and the ones before it {first}: \
                             the smoke ran one script for all of stage 2"
                        ),
                    ));
                }
                Some(_) => {}
                None => first_script = Some(submitted.to_string()),
            },
        }
        let stratum = within_grid(grid, words, variable("CALIB_STRATUM"))
            .map_err(|why| Error::input(origin.clone(), at, why))?;
        // A stratum submitted twice runs each of its cells twice, each
        // writing the other's output.
        if let Some((_, first)) = submitted_strata.iter().find(|(s, _)| *s == stratum) {
            return Err(Error::input(
                origin.clone(),
                at,
                format!(
                    "stratum {} is submitted here and on line {first}: each of its cells would \
                     run twice and write the same output; keep one line per stratum",
                    crate::stratum::display_name(&stratum)
                ),
            ));
        }
        submitted_strata.push((stratum, *line));
    }
    // Budget writes a comment per stratum; a stratum without a submittable
    // time (over_cap, unsupported) gets no live sbatch line.
    let strata = stage2
        .lines()
        .filter(|l| l.starts_with("# stratum "))
        .count();
    if arrays.is_empty() && strata > 0 {
        return Err(Error::input(
            origin.clone(),
            None,
            format!(
                "no stratum of stage 2 is submittable: each of its {strata} strata is over_cap or \
                 unsupported (its sbatch line is commented out or absent), so there is nothing a \
                 smoke could prepare; do what the budget's comments say (checkpoint the runs, or \
                 probe more), budget again and stage that"
            ),
        ));
    }
    if arrays.is_empty() {
        return Err(Error::input(origin.clone(), None, expected()));
    }
    Ok((arrays, write_stage2(&lines, origin)?))
}

/// The strata of `grid` a message lists at most.
const STRATA_SHOWN: usize = 12;

/// Checks that an `sbatch` line of stage 2 submits cells of `grid`: the
/// stratum it exports as `CALIB_STRATUM` (absent: the grid's one stratum,
/// `(all)`, as `calib grid cell --stratum ""` reads it) is one of the grid's,
/// and every index of its `--array` is one of that stratum's cells. A task
/// outside them would fail at `calib grid cell` in stage 2, after the smoke
/// passed. Returns why not, naming the grid's cells.
fn within_grid(
    grid: &CampaignGrid,
    words: &[String],
    stratum: Option<&str>,
) -> std::result::Result<String, String> {
    let cells = |s: &StratumCells| {
        let n = s.cells.len();
        format!(
            "{} ({n} cell{}, --array=0-{})",
            crate::stratum::display_name(&s.stratum),
            if n == 1 { "" } else { "s" },
            n.saturating_sub(1)
        )
    };
    let stratum_text = stratum.unwrap_or("");
    let Ok(s) = grid.stratum(stratum_text) else {
        let mut listed: Vec<String> = grid.strata.iter().take(STRATA_SHOWN).map(cells).collect();
        if grid.strata.len() > STRATA_SHOWN {
            listed.push(format!("and {} more", grid.strata.len() - STRATA_SHOWN));
        }
        return Err(format!(
            "this sbatch line submits CALIB_STRATUM={}, which is not a stratum of the grid {}: \
             its strata are {}",
            comment_text(stratum_text),
            grid.origin,
            listed.join(", ")
        ));
    };
    let n = s.cells.len() as u64;
    let Some(spec) = array_option(words) else {
        return Err(format!(
            "this sbatch line has no --array: each task finds its cell by $SLURM_ARRAY_TASK_ID, \
             which only an array sets; stratum {} is submitted as --array=0-{}",
            cells(s),
            n.saturating_sub(1)
        ));
    };
    match array_last_index(spec) {
        None => Err(format!(
            "--array={} does not read as sbatch's array indexes (0-2, 0,3-5, 0-9:2, with %N for \
             a limit); stratum {}",
            comment_text(spec),
            cells(s)
        )),
        Some(last) if last >= n => Err(format!(
            "this sbatch line submits --array={} for stratum {}: index {last} is past its last \
             cell, and its task would fail at calib grid cell; submit --array=0-{} (the grid {})",
            comment_text(spec),
            cells(s),
            n.saturating_sub(1),
            grid.origin
        )),
        Some(_) => Ok(s.stratum.clone()),
    }
}

/// The items of an sbatch line's `--export=` lists (`ALL`, `CALIB_UNITS=10`,
/// ...), in order.
fn export_items(words: &[String]) -> impl Iterator<Item = &str> {
    words
        .iter()
        .filter_map(|w| w.strip_prefix("--export="))
        .flat_map(|list| list.split(','))
}

/// Each word of `words` that gives the option `long` (or `short`), in the
/// forms sbatch reads (`--LONG=V`, `--LONG V`, `-S V`, `-SV`), with its value:
/// `None` where a separate value is missing.
fn option_given<'w>(
    words: &'w [String],
    long: &'w str,
    short: Option<&'w str>,
) -> impl Iterator<Item = Option<&'w str>> + 'w {
    words.iter().enumerate().filter_map(move |(k, word)| {
        let next = || words.get(k + 1).map(String::as_str);
        if let Some(rest) = word.strip_prefix(long) {
            if rest.is_empty() {
                return Some(next());
            }
            if let Some(value) = rest.strip_prefix('=') {
                return Some(Some(value));
            }
        }
        let rest = word.strip_prefix(short?)?;
        Some(if rest.is_empty() { next() } else { Some(rest) })
    })
}

/// sbatch's options that take no value, when given without `=` (long) or
/// alone (short): every other option takes the next word as its value.
/// From sbatch.1: `--contiguous`, `--exclusive`, `--get-user-env`, `-h`,
/// `-H`, `--ignore-pbs`, `-k`, `--nice`, `-O`, `--parsable`, `--propagate`,
/// `-Q`, `--reboot`, `--requeue`, `--no-requeue`, `-s`, `--spread-job`,
/// `--test-only`, `--usage`, `--use-min-nodes`, `-v`, `-V`, `-W`.
const SBATCH_FLAGS: [&str; 32] = [
    "--contiguous",
    "--exclusive",
    "--get-user-env",
    "--help",
    "-h",
    "--hold",
    "-H",
    "--ignore-pbs",
    "--no-kill",
    "-k",
    "--nice",
    "--overcommit",
    "-O",
    "--parsable",
    "--propagate",
    "--quiet",
    "-Q",
    "--reboot",
    "--requeue",
    "--no-requeue",
    "--oversubscribe",
    "-s",
    "--spread-job",
    "--test-only",
    "--usage",
    "--use-min-nodes",
    "--verbose",
    "-v",
    "--version",
    "-V",
    "--wait",
    "-W",
];

/// Checks the shape of an `sbatch` line as budget writes it: the script is
/// the first word after the options, as sbatch reads it, and the last word
/// (the words after it would be the script's arguments: a hand edit, or a
/// value split by the shell, `--job-name=$(x) y`); `--array` and `--export`
/// given once, each of calib's variables exported once (sbatch takes the
/// last, calib would check the first); and not `--export=NONE`, which the
/// smoke (`ALL`) does not vouch for.
fn sbatch_shape(words: &[String]) -> std::result::Result<(), String> {
    let mut k = 1;
    let script_at = loop {
        let Some(word) = words.get(k) else {
            return Err(
                "this sbatch line names no script to run; budget's lines end with it".into(),
            );
        };
        if word == "--" {
            break k + 1;
        }
        let takes_next = if word.starts_with("--") {
            !word.contains('=') && !SBATCH_FLAGS.contains(&word.as_str())
        } else if word.starts_with('-') && word.len() > 1 {
            word.chars().count() == 2 && !SBATCH_FLAGS.contains(&word.as_str())
        } else {
            break k;
        };
        k += if takes_next { 2 } else { 1 };
    };
    match words.get(script_at) {
        Some(_) if script_at + 1 == words.len() => {}
        Some(script) => {
            return Err(format!(
                "sbatch runs `{}` as the script (the first word after the options) and gives it the \
                 {} word(s) after it as arguments; budget's lines end with the script alone (a value \
                 with a space or `$(...)` must be quoted)",
                comment_text(script),
                words.len() - script_at - 1
            ))
        }
        None => return Err("this sbatch line names no script after `--`".into()),
    }
    let options = &words[1..script_at];
    let given = |long: &str, short: Option<&str>| option_given(options, long, short).count();
    for (long, short) in [("--array", Some("-a")), ("--export", None)] {
        if given(long, short) > 1 {
            return Err(format!(
                "{long} is given more than once: sbatch takes the last, calib checked the first; give it once"
            ));
        }
    }
    // The smoke ran in the folder calib stage ran in, and its outputs were
    // checked there: stage 2 elsewhere writes where nothing was checked.
    if given("--chdir", Some("-D")) > 0 {
        return Err(
            "--chdir: stage 2 runs in the folder it is submitted from, as the smoke did and where \
             its outputs were checked; leave it out, and submit stage 2 from that folder"
                .into(),
        );
    }
    let exported: Vec<&str> = export_items(options).collect();
    if exported
        .first()
        .is_some_and(|v| v.eq_ignore_ascii_case("NONE"))
    {
        return Err(
            "--export=NONE: the job would not see your environment (PATH, to find calib), which \
             the smoke ran with (ALL); export ALL as budget writes it"
                .into(),
        );
    }
    for name in ["CALIB_STRATUM", "CALIB_UNITS", GRID_VARIABLE] {
        let times = exported
            .iter()
            .filter(|kv| kv.split_once('=').is_some_and(|(k, _)| k == name))
            .count();
        if times > 1 {
            return Err(format!(
                "{name} is exported {times} times: sbatch takes the last, calib checked the first; export it once"
            ));
        }
    }
    Ok(())
}

/// The value of an sbatch line's `--array` (`--array=V`, `--array V` or
/// `-a V`; the last one given, as sbatch takes it).
fn array_option(words: &[String]) -> Option<&str> {
    let mut value = None;
    for (k, w) in words.iter().enumerate() {
        if let Some(v) = w.strip_prefix("--array=") {
            value = Some(v);
        } else if w == "--array" || w == "-a" {
            value = words.get(k + 1).map(String::as_str);
        }
    }
    value
}

/// The highest index an sbatch `--array` value names: a comma-separated list
/// of `N`, `N-M` and `N-M:S`, with an optional `%K` (tasks at once) after
/// it; `None` when it does not read as such.
fn array_last_index(spec: &str) -> Option<u64> {
    let number = |t: &str| {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<u64>().ok())
            .flatten()
    };
    let list = match spec.split_once('%') {
        Some((list, limit)) => {
            number(limit)?;
            list
        }
        None => spec,
    };
    let mut last: Option<u64> = None;
    for part in list.split(',') {
        let (range, step) = match part.split_once(':') {
            Some((range, step)) => (range, Some(number(step).filter(|&s| s > 0)?)),
            None => (part, None),
        };
        let top = match (range.split_once('-'), step) {
            (Some((a, b)), step) => {
                let (a, b) = (number(a)?, number(b)?);
                if b < a {
                    return None;
                }
                b - (b - a) % step.unwrap_or(1)
            }
            (None, None) => number(range)?,
            (None, Some(_)) => return None,
        };
        last = Some(last.map_or(top, |l| l.max(top)));
    }
    last
}

/// One stage-2 array: the stratum it exports and its `--time` per unit, when
/// the line says them (budget's lines do; a hand-edited one may not).
struct Stage2Array {
    stratum: Option<String>,
    seconds_per_unit: Option<f64>,
    /// Its `--partition`, which the smoke of its stratum takes too: the
    /// smoke shows the pipeline works where stage 2 will run it.
    partition: Option<String>,
}

impl Stage2Array {
    /// Reads one sbatch line's array; `variable` the values of its
    /// `--export`. Refused, with why: a `--time` that is no Slurm time, or a
    /// `CALIB_UNITS` that is no count of units. sbatch would refuse the first
    /// only once the smoke has passed and the line is run, and the second
    /// would run the campaign at a length nobody meant; the smoke's time is
    /// derived from both.
    fn of<'w>(
        words: &'w [String],
        variable: impl Fn(&str) -> Option<&'w str>,
    ) -> std::result::Result<Stage2Array, String> {
        // The last one given, as sbatch takes it.
        let partition = option_given(words, "--partition", Some("-p"))
            .flatten()
            .last()
            .map(str::to_string);
        let mut time_s = None;
        for time in option_given(words, "--time", Some("-t")).flatten() {
            let parsed = crate::slurm::time::parse_time(time)
                .map_err(|e| format!("its --time `{}` is no Slurm time: {e}", excerpt(time)))?;
            // The last one given, as sbatch takes it; `0` is no limit to
            // sbatch, so no rate either.
            time_s = parsed.seconds().filter(|&s| s > 0);
        }
        let units = match variable("CALIB_UNITS") {
            None => None,
            Some(text) => match crate::limits::parse_count(text) {
                Some(n) => Some(n),
                None => {
                    return Err(format!(
                        "its CALIB_UNITS is `{}`; expected {} (units)",
                        excerpt(text),
                        crate::limits::COUNT_EXPECTED
                    ))
                }
            },
        };
        Ok(Stage2Array {
            partition,
            stratum: variable("CALIB_STRATUM").map(str::to_string),
            seconds_per_unit: match (time_s, units) {
                (Some(t), Some(n)) => Some(t as f64 / n as f64),
                _ => None,
            },
        })
    }
}

/// Builds the smoke submission and the trigger (nothing is written here).
pub fn stage(plan: &StagePlan) -> Result<Staged> {
    let grid = CampaignGrid::load(&plan.grid_path)?;
    // Canonical: the grid stage 2 exports is compared as a file, whatever
    // `..` or links its path went through.
    let grid_abs = std::fs::canonicalize(&plan.grid_path)
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| Error::Refused(format!("the grid {}: {e}", plan.grid_path.display())))?;
    refuse_split_in_export(&grid_abs, "the grid")?;
    let (arrays, stage2) = same_submission(plan, &grid, Path::new(&grid_abs))?;
    let (stratum, why) = smoke_stratum(&grid, plan.stratum.as_deref(), &arrays)?;
    let warnings = smoke_time_warning(plan, &grid, &stratum.stratum, &arrays)
        .into_iter()
        .collect();
    let workdir = absolute(Path::new("."), "the working folder")?;
    let out_dir = absolute(&plan.out_dir, "--out-dir")?;
    let log_dir = PathBuf::from(&out_dir).join("logs");
    let log_pattern = log_pattern(&log_dir)?;
    let script = absolute(Path::new(&plan.script), "--script")?;
    let slug = crate::stratum::Stratum::parse(&stratum.stratum)
        .map(|s| s.slug())
        .unwrap_or_else(|_| "all".into());
    let job_name = format!("calib-smoke-{slug}");
    let tasks: Vec<SmokeTask> = stratum.cells[..2]
        .iter()
        .map(|c| SmokeTask {
            index: c.index,
            tag: c.tag.clone(),
            output: c.output.clone(),
            log_line: cell_log_line(c),
        })
        .collect();
    let shown = crate::stratum::display_name(&stratum.stratum);
    // A file already at a smoke output's path would pass the checks for the
    // smoke's own: refuse before anything is written.
    if let Some((task, path)) = tasks
        .iter()
        .map(|t| (t, Path::new(&workdir).join(&t.output)))
        .find(|(_, p)| std::fs::symlink_metadata(p).is_ok())
    {
        return Err(Error::Refused(format!(
            "{} already exists: it is the output path of smoke task {} (cell {}, stratum \
             {shown}), and calib stage check could not tell an earlier run's file from the \
             smoke's; move it away, or stage another stratum (--stratum)",
            path.display(),
            task.index,
            task.tag
        )));
    }
    let trigger = Trigger {
        about: format!(
            "The stage-2 trigger, written by calib stage before stage 1 ran. Submit stage 2 only \
             if every check below passes: `calib stage check` evaluates them against sacct and the \
             smoke's files, and prints stage 2 then. Stage 1 shows that the pipeline works; its \
             numbers are not results, nor estimates of them (stratum {shown} ran at {} units because \
             it is {why}, not because it is representative).",
            plan.smoke_units
        ),
        calib_version: crate::VERSION.to_string(),
        created_at: plan.created_at.clone(),
        grid: grid_abs.clone(),
        workdir: workdir.clone(),
        stratum: stratum.stratum.clone(),
        smoke_job_name: job_name.clone(),
        smoke_units: plan.smoke_units,
        log_pattern: log_pattern.clone(),
        records: plan.records,
        fields: plan.fields.clone(),
        stage2,
        checks: standard_checks(tasks.len(), plan.records, &plan.fields),
        tasks,
    };
    let trigger_text = toml::to_string(&trigger)
        .map_err(|e| Error::Failed(format!("cannot write the trigger as TOML: {e}")))?;
    let trigger_path = PathBuf::from(&out_dir).join("stage2-trigger.toml");

    let exports = exported_variables(&stratum.stratum, plan.smoke_units, Some(&grid_abs));
    let partition =
        arrays_of(&grid, &stratum.stratum, &arrays).find_map(|a| a.partition.as_deref());
    let words = [
        "sbatch".to_string(),
        "--array=0-1".to_string(),
        format!("--time={}", quote(&plan.smoke_time)),
    ]
    .into_iter()
    .chain(partition.map(|p| format!("--partition={}", quote(p))))
    .chain([
        format!("--job-name={}", quote(&job_name)),
        format!("--chdir={}", quote(&workdir)),
        format!("--output={}", quote(&log_pattern)),
        format!("--export={}", quote(&exports)),
        script_argument(&script),
    ])
    .collect::<Vec<_>>();
    let comment = |text: &str| format!("# {}\n", crate::shell::comment_text(text));
    let mut smoke_text = String::from("#!/bin/sh\n");
    smoke_text.push_str(&comment(&format!(
        "calib {} stage 1 (smoke), {}: 2 tasks of stratum {shown} at {} units, running the same \
         script and the same cell derivation (calib grid cell on {grid_abs}) as stage 2.",
        crate::VERSION,
        plan.created_at,
        plan.smoke_units
    )));
    smoke_text.push_str(&comment(
        "It shows that the pipeline works; what it produces is not a result, nor an estimate of one.",
    ));
    smoke_text.push_str(&comment(&format!(
        "The stage-2 trigger was written before it, in {}; when both tasks have ended, run:",
        trigger_path.display()
    )));
    smoke_text.push_str(&comment(&format!(
        "  calib stage check {} --job JOBID",
        quote(&trigger_path.to_string_lossy())
    )));
    smoke_text.push_str(&words.join(" "));
    smoke_text.push('\n');
    Ok(Staged {
        smoke_path: PathBuf::from(&out_dir).join("stage1-smoke.sh"),
        smoke_text,
        trigger_path,
        trigger_text,
        log_dir,
        trigger,
        stage2_arrays: arrays.len(),
        warnings,
    })
}

/// The stage-2 arrays of `stratum` (canonical, as the grid names it).
fn arrays_of<'a>(
    grid: &'a CampaignGrid,
    stratum: &'a str,
    arrays: &'a [Stage2Array],
) -> impl Iterator<Item = &'a Stage2Array> {
    arrays.iter().filter(move |a| {
        a.stratum
            .as_deref()
            .and_then(|s| grid.stratum(s).ok())
            .is_some_and(|s| s.stratum == stratum)
    })
}

/// Where stage 2's own `--time` for the smoke stratum, per unit, times the
/// smoke's units is more than `--smoke-time`, the smoke is likely to end
/// TIMEOUT and be staged again. A warning, not a refusal: stage 2's time is
/// an upper bound with margin, so its units may well run faster; and its
/// startup, spread over stage 2's units there, is paid whole by each smoke
/// task, so the figure is no upper bound either.
fn smoke_time_warning(
    plan: &StagePlan,
    grid: &CampaignGrid,
    stratum: &str,
    arrays: &[Stage2Array],
) -> Option<String> {
    let smoke_s = plan.smoke_s;
    let per_unit_s = arrays_of(grid, stratum, arrays).find_map(|a| a.seconds_per_unit)?;
    let smoke_need_s = per_unit_s * plan.smoke_units as f64;
    (smoke_need_s > smoke_s as f64).then(|| {
        format!(
            "stage 2 gives stratum {} {} per unit (its --time over its units); at that rate the \
             smoke's {} take up to {}, more than --smoke-time {} ({}): raise --smoke-time or lower \
             --smoke-units, or the smoke may end TIMEOUT",
            crate::stratum::display_name(stratum),
            crate::output::human_duration(per_unit_s),
            crate::output::count(plan.smoke_units, "unit", "units"),
            crate::output::human_duration(smoke_need_s),
            plan.smoke_time,
            crate::output::human_duration(smoke_s as f64),
        )
    })
}

impl Staged {
    /// Writes the trigger and the smoke submission, each atomically, and
    /// creates the logs' folder (sbatch does not). Refuses before writing
    /// either when one exists, and never replaces a file that appeared
    /// since: a trigger written before stage 1 must stay as it was. When the
    /// smoke cannot be written (a full disk), the trigger written before it
    /// is removed: it would refuse the retry, for a smoke that never existed.
    pub fn write(&self) -> Result<()> {
        let files = [
            (&self.trigger_path, &self.trigger_text),
            (&self.smoke_path, &self.smoke_text),
        ];
        let refuse = |path: &Path| {
            Error::Refused(format!(
                "{} already exists; calib stage never overwrites a trigger or a submission (it \
                 may have run): remove it, or give another --out-dir",
                path.display()
            ))
        };
        if let Some((path, _)) = files
            .iter()
            .find(|(p, _)| std::fs::symlink_metadata(p).is_ok())
        {
            return Err(refuse(path));
        }
        let mut created = CreatedFiles::default();
        created
            .create_folder(&self.log_dir)
            .map_err(|e| Error::io(format!("cannot create {}", self.log_dir.display()), e))?;
        for (path, text) in files {
            created.write_new(path, text.as_bytes(), || refuse(path))?;
        }
        created.commit();
        Ok(())
    }
}

impl Trigger {
    pub fn load(path: &Path) -> Result<Trigger> {
        let origin = Origin::file(path);
        let bytes = crate::limits::read_file_bounded(path, "the trigger", &crate::limits::TRIGGER)?;
        let text = crate::limits::into_text(bytes, &origin, &crate::limits::TRIGGER)?;
        let mut trigger: Trigger = toml::from_str(&text).map_err(|e| {
            let line = e.span().map(|s| {
                text.as_bytes()[..s.start.min(text.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count() as u64
                    + 1
            });
            Error::input(
                origin.clone(),
                line,
                format!(
                    "not a stage-2 trigger (as `calib stage` writes it): {}",
                    e.message().trim_end()
                ),
            )
        })?;
        // Printed for the user to run when every check passes: written again
        // from its words as `calib stage` does, whoever wrote the file, and
        // checked again against its grid as `calib stage` checked it (a
        // trigger is a text file: an edit since must not reach the user's
        // shell unchecked).
        let in_stage2 = |e: Error| match e {
            Error::Input {
                line: Some(line),
                message,
                ..
            } => Error::input(
                origin.clone(),
                None,
                format!("stage2, its line {line}: {message}"),
            ),
            other => other,
        };
        trigger.stage2 = rewritten_stage2(&trigger.stage2, &origin).map_err(in_stage2)?;
        let grid = CampaignGrid::load(Path::new(&trigger.grid))?;
        check_submission(
            &trigger.stage2,
            &origin,
            &grid,
            Path::new(&trigger.grid),
            None,
        )
        .map_err(in_stage2)?;
        if trigger.checks.is_empty() || trigger.tasks.len() < 2 {
            return Err(Error::input(
                origin,
                None,
                "a trigger needs its checks and its two smoke tasks; write it again with calib stage",
            ));
        }
        // The outputs are judged against it: a file older is an earlier run's.
        if chrono::DateTime::parse_from_rfc3339(&trigger.created_at).is_err() {
            return Err(Error::input(
                origin,
                None,
                format!(
                    "created_at `{}` is not an RFC 3339 time (as calib stage writes it, e.g. \
                     2026-11-30T16:00:00Z)",
                    trigger.created_at
                ),
            ));
        }
        if let Some(c) = trigger
            .checks
            .iter()
            .find(|c| !CHECKS.contains(&c.name.as_str()))
        {
            return Err(Error::input(
                origin,
                None,
                format!(
                    "unknown check `{}`; the checks calib evaluates are {}",
                    c.name,
                    CHECKS.join(", ")
                ),
            ));
        }
        Ok(trigger)
    }
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub name: String,
    pub checks: String,
    pub passed: bool,
    /// What was found, per task.
    pub detail: String,
    pub if_failed: String,
}

/// The smoke array as sacct shows it: its job id and each task's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmokeJob {
    pub job: u64,
    /// (task index, state and exit code as sacct prints them).
    pub tasks: Vec<(u64, String)>,
}

/// Finds the smoke array in sacct's rows: job rows named as the trigger
/// says, the latest array (the highest job id) when several were submitted.
pub fn find_smoke_job(trigger: &Trigger, table: &SacctTable) -> Result<SmokeJob> {
    let rows: Vec<_> = table
        .rows
        .iter()
        .filter(|r| !r.is_step())
        .filter(|r| r.job_name.as_deref() == Some(trigger.smoke_job_name.as_str()))
        .collect();
    let job = rows
        .iter()
        .filter_map(|r| r.job_id.as_ref().map(|j| j.job))
        .max()
        .ok_or_else(|| {
            Error::Refused(format!(
                "sacct shows no job named {}: give the smoke array's id (--job ID, as sbatch \
                 printed it) or sacct text that holds it",
                trigger.smoke_job_name
            ))
        })?;
    let mut tasks = Vec::new();
    for r in rows {
        let Some(id) = &r.job_id else { continue };
        if id.job != job {
            continue;
        }
        // A task still queued or running has not failed a check yet.
        if r.state.as_ref().is_some_and(|s| !s.is_finished()) {
            return Err(Error::Refused(format!(
                "smoke task {} is {}: check the trigger when both tasks have ended",
                id.text,
                r.state.as_ref().map_or("", |s| s.name())
            )));
        }
        let state = r
            .state
            .as_ref()
            .map(|s| s.name().to_string())
            .unwrap_or_else(|| "?".into());
        let exit = r
            .exit_code
            .as_ref()
            .map(|e| format!(" (exit {}:{})", e.code, e.signal))
            .unwrap_or_default();
        match &id.kind {
            JobKind::ArrayTask(k) => tasks.push((*k, format!("{state}{exit}"))),
            JobKind::ArrayPending(_) => {
                return Err(Error::Refused(format!(
                    "smoke array {job} still has pending tasks ({}): wait until both have ended",
                    id.text
                )))
            }
            _ => tasks.push((0, format!("{state}{exit}"))),
        }
    }
    tasks.sort();
    Ok(SmokeJob { job, tasks })
}

/// A task's log path: the trigger's pattern read as sbatch reads it
/// ([`log_pattern`]): `%A` the job, `%a` the task, `%%` one `%`.
fn log_path(trigger: &Trigger, job: u64, index: u64) -> PathBuf {
    let mut path = String::with_capacity(trigger.log_pattern.len() + 16);
    let mut chars = trigger.log_pattern.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            path.push(c);
            continue;
        }
        match chars.next() {
            Some('A') => path.push_str(&job.to_string()),
            Some('a') => path.push_str(&index.to_string()),
            Some('%') => path.push('%'),
            Some(other) => {
                path.push('%');
                path.push(other);
            }
            None => path.push('%'),
        }
    }
    PathBuf::from(path)
}

/// The smoke's `--output` in `log_dir`, as sbatch reads a filename pattern:
/// `%A` the array's job id and `%a` the task index are what calib means; a
/// `%` of the folder's own name is written `%%` (sbatch's escape), which
/// sbatch would otherwise read as a replacement of its own (`%u` the user
/// name, `%j` the job id) and write the logs elsewhere. A `\` in the folder
/// is refused: sbatch then replaces nothing at all (not `%A`, not `%a`) and
/// drops the backslashes.
fn log_pattern(log_dir: &Path) -> Result<String> {
    let folder = log_dir.to_string_lossy();
    if folder.contains('\\') {
        return Err(Error::Refused(format!(
            "--out-dir {} holds a `\\`: sbatch reads its --output as a filename pattern, in which \
             a `\\` turns off every replacement (%A, %a), so the smoke's logs could not be told \
             apart nor found; give a folder without one",
            comment_text(&folder)
        )));
    }
    Ok(format!("{}/smoke-%A_%a.out", folder.replace('%', "%%")))
}

/// What is at a smoke output's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    /// A file modified at or after the trigger was written.
    Written,
    /// A file older than the trigger: an earlier run's.
    Older,
    Missing,
}

fn presence(path: &Path, written_at: Option<SystemTime>) -> Presence {
    match std::fs::metadata(path) {
        Err(_) => Presence::Missing,
        Ok(meta) => match (meta.modified(), written_at) {
            (Ok(modified), Some(at)) if modified < at => Presence::Older,
            // No time to compare (a trigger edited by hand, a filesystem
            // without mtimes): `created_at` is then no evidence either way.
            _ => Presence::Written,
        },
    }
}

/// How far the clock that stamps the smoke's files may lag the one
/// `calib stage` ran on before a fresh file looks older than the trigger.
const CLOCK_TOLERANCE_S: u64 = 60;

/// A smoke task's output or log as text: bytes that are not UTF-8 (a
/// progress bar's, a Latin-1 name in a record) become U+FFFD, so that the
/// lines around them still count; a file that holds one is not unreadable.
/// Read under the bound of a smoke's file ([`crate::limits::SMOKE_FILE`]):
/// `Err` says why a file cannot be read, for the check's detail.
fn read_lossy(path: &Path) -> std::result::Result<String, String> {
    match crate::limits::read_file_bounded(path, "it", &crate::limits::SMOKE_FILE) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        // The detail names the file already.
        Err(Error::Input { message, .. }) => Err(message),
        Err(e) => Err(e.to_string()),
    }
}

/// Evaluates every check of `trigger` against the smoke job and the files.
pub fn evaluate(trigger: &Trigger, smoke: &SmokeJob) -> Vec<Outcome> {
    let workdir = Path::new(&trigger.workdir);
    // `created_at` is written in whole seconds, rounded down, on the machine
    // `calib stage` ran on; the smoke's files get their times from a compute
    // node or a file server, whose clock may differ a little. An earlier run's
    // file is older by far more than the tolerance.
    let written_at = chrono::DateTime::parse_from_rfc3339(&trigger.created_at)
        .ok()
        .map(|t| SystemTime::from(t) - std::time::Duration::from_secs(CLOCK_TOLERANCE_S));
    let outputs: Vec<PathBuf> = trigger
        .tasks
        .iter()
        .map(|t| workdir.join(&t.output))
        .collect();
    trigger
        .checks
        .iter()
        .map(|check| {
            let (passed, detail) = match check.name.as_str() {
                "completed" => {
                    let states: Vec<String> = trigger
                        .tasks
                        .iter()
                        .map(|t| {
                            let state = smoke
                                .tasks
                                .iter()
                                .find(|(k, _)| *k == t.index)
                                .map_or("not in sacct", |(_, s)| s.as_str());
                            format!("task {} {state}", t.index)
                        })
                        .collect();
                    let all = trigger.tasks.iter().all(|t| {
                        smoke
                            .tasks
                            .iter()
                            .any(|(k, s)| *k == t.index && s.starts_with("COMPLETED"))
                    });
                    (all, format!("job {}: {}", smoke.job, states.join(", ")))
                }
                "outputs_exist" => {
                    let found: Vec<Presence> =
                        outputs.iter().map(|p| presence(p, written_at)).collect();
                    let words: Vec<String> = trigger
                        .tasks
                        .iter()
                        .zip(&outputs)
                        .zip(&found)
                        .map(|((t, p), f)| {
                            let there = match f {
                                Presence::Written => "exists",
                                Presence::Older => "PREDATES the trigger",
                                Presence::Missing => "MISSING",
                            };
                            format!("task {} {} {there}", t.index, p.display())
                        })
                        .collect();
                    let n = found.iter().filter(|f| **f != Presence::Missing).count();
                    let new = found.iter().filter(|f| **f == Presence::Written).count();
                    let older = if new < n {
                        format!(" ({} older than the trigger)", n - new)
                    } else {
                        String::new()
                    };
                    (
                        new == outputs.len(),
                        format!(
                            "{n} of {} files{older}: {}",
                            outputs.len(),
                            words.join("; ")
                        ),
                    )
                }
                "outputs_distinct" => {
                    use std::os::unix::fs::MetadataExt;
                    let ids: Vec<Option<(u64, u64)>> = outputs
                        .iter()
                        .map(|p| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino())))
                        .collect();
                    let all_there = ids.iter().all(Option::is_some);
                    let mut unique = ids.clone();
                    unique.sort();
                    unique.dedup();
                    let distinct = all_there && unique.len() == ids.len();
                    let detail = if !all_there {
                        "cannot tell: not every file exists (see outputs_exist)".to_string()
                    } else if distinct {
                        format!("{} distinct files", ids.len())
                    } else {
                        "two tasks' paths are one file".to_string()
                    };
                    (distinct, detail)
                }
                "records" => {
                    let mut ok = true;
                    let mut found = Vec::new();
                    for (t, p) in trigger.tasks.iter().zip(&outputs) {
                        match read_lossy(p) {
                            Ok(text) => {
                                let records: Vec<&str> =
                                    text.lines().filter(|l| !l.trim().is_empty()).collect();
                                let missing = trigger
                                    .fields
                                    .iter()
                                    .filter(|f| !records.iter().all(|r| r.contains(f.as_str())))
                                    .map(|f| format!("`{f}`"))
                                    .collect::<Vec<_>>();
                                let good =
                                    records.len() as u64 == trigger.records && missing.is_empty();
                                ok &= good;
                                let mut d = format!(
                                    "task {} {} record{}",
                                    t.index,
                                    records.len(),
                                    if records.len() == 1 { "" } else { "s" }
                                );
                                if !missing.is_empty() {
                                    d.push_str(&format!(", a record lacks {}", missing.join(", ")));
                                }
                                found.push(d);
                            }
                            Err(why) => {
                                ok = false;
                                found.push(format!("task {} no readable file ({why})", t.index));
                            }
                        }
                    }
                    (
                        ok,
                        format!("expected {} each: {}", trigger.records, found.join("; ")),
                    )
                }
                "log_line" => {
                    let mut ok = true;
                    let mut found = Vec::new();
                    for t in &trigger.tasks {
                        let path = log_path(trigger, smoke.job, t.index);
                        let seen = read_lossy(&path)
                            .map(|log| log.lines().any(|l| l.ends_with(&t.log_line)));
                        let word = match &seen {
                            Ok(true) => "has it".to_string(),
                            Ok(false) => "LACKS it".to_string(),
                            Err(why) => format!("UNREADABLE ({why})"),
                        };
                        ok &= matches!(seen, Ok(true));
                        found.push(format!("task {} {} {word}", t.index, path.display()));
                    }
                    (ok, found.join("; "))
                }
                _ => (false, "unknown check".to_string()),
            };
            Outcome {
                name: check.name.clone(),
                checks: check.checks.clone(),
                passed,
                detail,
                if_failed: check.if_failed.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(dir: &Path, stage2: &str) -> StagePlan {
        StagePlan {
            grid_path: dir.join("grid.toml"),
            script: "work.sh".into(),
            stage2: stage2.into(),
            stage2_origin: Origin::file("stage2.sh"),
            out_dir: dir.join("stage"),
            stratum: None,
            smoke_units: 3,
            smoke_time: "10".into(),
            smoke_s: 600,
            records: 1,
            fields: vec!["\"tag\"".into()],
            created_at: "2026-11-30T00:00:00Z".into(),
        }
    }

    #[test]
    fn the_trigger_round_trips_and_the_smoke_is_two_tasks_at_minimum_scale() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("grid.toml"),
            "stratum = [\"d\"]\noutput = \"out/{tag}.jsonl\"\nunits = 50\n[axes]\nd = [\"a\", \"b\"]\nseed = [1, 2, 3]\n",
        )
        .unwrap();
        let grid = dir.path().join("grid.toml").to_string_lossy().into_owned();
        let stage2 =
            format!("# budget\nsbatch --array=0-2 --export=ALL,CALIB_STRATUM=d=a,CALIB_GRID={grid} work.sh\n");
        let staged = stage(&plan(dir.path(), &stage2)).unwrap();
        let back: Trigger = toml::from_str(&staged.trigger_text).unwrap();
        assert_eq!(back, staged.trigger);
        assert_eq!(back.tasks.len(), 2);
        assert_eq!(back.stratum, "d=a");
        assert_eq!(back.stage2, stage2);
        let names: Vec<&str> = back.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, CHECKS);
        let line = staged.smoke_text.lines().last().unwrap();
        assert!(
            line.starts_with("sbatch --array=0-1 --time=10 --job-name=calib-smoke-d-a "),
            "{line}"
        );
        assert!(line.contains(",CALIB_UNITS=3,"), "{line}");
        assert!(staged.smoke_text.contains("not a result"));

        // A submission made from another grid is refused.
        let e = stage(&plan(dir.path(), "sbatch --array=0-2 work.sh\n")).unwrap_err();
        assert!(e.to_string().starts_with("stage2.sh, line 1:"), "{e}");
    }

    #[test]
    fn array_values_are_read_as_sbatch_reads_them() {
        assert_eq!(array_last_index("0-2"), Some(2));
        assert_eq!(array_last_index("0,3-5%2"), Some(5));
        assert_eq!(array_last_index("0-9:4"), Some(8));
        assert_eq!(array_last_index("7"), Some(7));
        for bad in ["", "0-", "2-1", "+1", "0-9:0", "x", "0-2%", "1:2", "0-2,"] {
            assert_eq!(array_last_index(bad), None, "{bad}");
        }
    }

    // What calib prints of stage 2 is its words written again: a `$(...)`
    // stays one word of text, and budget's own lines keep their text.
    #[test]
    fn stage_two_is_written_again_from_its_words() {
        let origin = Origin::file("stage2.sh");
        let budget = "# b\n\nsbatch --array=0-2 --comment='calib stratum=d=a' work.sh\n";
        assert_eq!(rewritten_stage2(budget, &origin).unwrap(), budget);
        let text = rewritten_stage2(
            "  sbatch \"--job-name=$(touch x)\" `y` a;b w.sh # c\r\n",
            &origin,
        )
        .unwrap();
        assert_eq!(text, "sbatch --job-name='$(touch x)' '`y`' 'a;b' w.sh\n");
        let e = rewritten_stage2("# ok\ntouch x; sbatch w.sh\n", &origin).unwrap_err();
        assert!(e.to_string().starts_with("stage2.sh, line 2:"), "{e}");
    }

    // A stratum of two axes reaches stage 2's lines as CALIB_STRATUM with `;`
    // for `,` (sbatch splits --export at commas); the cheaper per unit is
    // still found: d=b,m=y at 10 min for 10 units against 1 h.
    #[test]
    fn the_cheapest_stratum_is_found_through_calib_stratum_semicolons() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("grid.toml"),
            "stratum = [\"d\", \"m\"]\noutput = \"out/{tag}.jsonl\"\nunits = 10\n[axes]\nd = [\"a\", \"b\"]\nm = [\"x\", \"y\"]\nseed = [1, 2]\n",
        )
        .unwrap();
        let grid = dir.path().join("grid.toml").to_string_lossy().into_owned();
        let line = |stratum: &str, time: &str| {
            format!(
                "sbatch --array=0-1 --time={time} --export=ALL,CALIB_STRATUM={stratum},CALIB_UNITS=10,CALIB_GRID={grid} work.sh\n"
            )
        };
        let stage2 = ["d=a;m=x", "d=a;m=y", "d=b;m=x"]
            .map(|s| line(s, "1:00:00"))
            .concat()
            + &line("d=b;m=y", "10:00");
        let staged = stage(&plan(dir.path(), &stage2)).unwrap();
        assert_eq!(staged.trigger.stratum, "d=b,m=y");
        // `--time=0` is no limit to sbatch, not the cheapest rate.
        let stage2 = ["d=a;m=x", "d=a;m=y", "d=b;m=x"]
            .map(|s| line(s, "1:00:00"))
            .concat()
            + &line("d=b;m=y", "0");
        let staged = stage(&plan(dir.path(), &stage2)).unwrap();
        assert_ne!(staged.trigger.stratum, "d=b,m=y");
    }

    // What sbatch would run is what calib checks: the script is the first
    // word after the options and must be the last; an option sbatch takes
    // the last of is given once; a stratum is submitted once; and a trigger
    // edited since is checked again when it is read.
    #[test]
    fn stage_two_runs_what_was_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("grid.toml"),
            "stratum = [\"d\"]\noutput = \"out/{tag}.jsonl\"\nunits = 10\n[axes]\nd = [\"a\", \"b\"]\nseed = [1, 2]\n",
        )
        .unwrap();
        let grid = std::fs::canonicalize(dir.path().join("grid.toml")).unwrap();
        let grid = grid.display();
        let export = |stratum: &str| {
            format!("--export=ALL,CALIB_STRATUM={stratum},CALIB_UNITS=10,CALIB_GRID={grid}")
        };
        let refused = [
            (format!("sbatch --array=0-1 {} other.sh work.sh\n", export("d=a")), "`other.sh` as the script"),
            (format!("sbatch --array=0-1 --job-name x y {} work.sh\n", export("d=a")), "`y` as the script"),
            (format!("sbatch --array=0-1 {} {} work.sh\n", export("d=a"), export("d=b")), "--export is given more than once"),
            (format!("sbatch --array=0-1 -a 0 {} work.sh\n", export("d=a")), "--array is given more than once"),
            (format!("sbatch --array=0-1 --export=ALL,CALIB_STRATUM=d=b,CALIB_STRATUM=d=a,CALIB_GRID={grid} work.sh\n"), "CALIB_STRATUM is exported 2 times"),
            (format!("sbatch --array=0-1 --export=NONE,CALIB_STRATUM=d=a,CALIB_GRID={grid} work.sh\n"), "--export=NONE"),
            (format!("sbatch --array=0-1 --chdir=/elsewhere {} work.sh\n", export("d=a")), "--chdir"),
            (format!("sbatch --array=0-1 {e} work.sh\nsbatch --array=0-1 {e} work.sh\n", e = export("d=a")), "submitted here and on line 1"),
        ];
        for (stage2, why) in refused {
            let e = stage(&plan(dir.path(), &stage2)).unwrap_err();
            assert!(e.to_string().contains(why), "{stage2}: {e}");
            assert_eq!(e.exit_code(), 2);
        }
        // Options with their values as separate words, and flags, still read.
        let fine = format!(
            "sbatch --parsable --array 0-1 -J smoke -p short --time 60 {} work.sh\n",
            export("d=a")
        );
        let staged = stage(&plan(dir.path(), &fine)).unwrap();
        // The trigger written, then edited to run another script: refused on reading.
        let path = dir.path().join("trigger.toml");
        let line = staged
            .trigger
            .stage2
            .lines()
            .find(|l| l.starts_with("sbatch"))
            .unwrap();
        for (edit, why) in [
            (format!("{line}\n{line}"), "submitted here and on line"),
            (
                format!("{line}\n{}", line.replace("work.sh", "other.sh")),
                "runs the script other.sh",
            ),
        ] {
            std::fs::write(&path, staged.trigger_text.replace(line, &edit)).unwrap();
            let e = Trigger::load(&path).unwrap_err();
            assert!(
                e.to_string().contains("stage2, its line") && e.to_string().contains(why),
                "{e}"
            );
        }
        std::fs::write(&path, &staged.trigger_text).unwrap();
        assert!(Trigger::load(&path).is_ok());
    }

    // The smoke runs in the partition stage 2 gives its stratum, in each form
    // sbatch reads, and names none where stage 2 names none.
    #[test]
    fn the_smoke_takes_its_strata_partition() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("grid.toml"),
            "stratum = [\"d\"]\noutput = \"out/{tag}.jsonl\"\nunits = 10\n[axes]\nd = [\"a\", \"b\"]\nseed = [1, 2]\n",
        )
        .unwrap();
        let grid = dir.path().join("grid.toml").to_string_lossy().into_owned();
        let smoke_line = |options_a: &str, options_b: &str| {
            let line = |stratum: &str, options: &str| {
                format!("sbatch --array=0-1 {options} --export=ALL,CALIB_STRATUM={stratum},CALIB_UNITS=10,CALIB_GRID={grid} work.sh\n")
            };
            let mut p = plan(
                dir.path(),
                &(line("d=a", options_a) + &line("d=b", options_b)),
            );
            p.stratum = Some("d=b".into());
            let staged = stage(&p).unwrap();
            staged.smoke_text.lines().last().unwrap().to_string()
        };
        for options in [
            "--partition=gpu_b2 --time=1:00:00",
            "--partition gpu_b2 --time=1:00:00",
            "-p gpu_b2 -t 60",
            "-pgpu_b2 -t60",
            "-p short --partition=gpu_b2",
        ] {
            let line = smoke_line("--partition=other --time=10", options);
            assert!(line.contains(" --partition=gpu_b2 "), "{options}: {line}");
            assert!(!line.contains("other"), "{options}: {line}");
        }
        let line = smoke_line("--partition=other", "--time=10");
        assert!(!line.contains("--partition"), "{line}");
        // A name that needs quoting is quoted.
        let line = smoke_line("", "'--partition=a b'");
        assert!(line.contains(" --partition='a b' "), "{line}");
    }
}
