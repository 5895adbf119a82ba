//! `--format sbatch`: what to submit, per stratum, in one of two forms (never
//! both in one output):
//!
//! * **Command lines** (the default): per stratum, a comment recording what
//!   was chosen and why (status, partition, predicted time, measured cost,
//!   upper bound, margin, and the measurements it rests on), then one `sbatch`
//!   command that carries every option (`--array`, `--time`, `--partition`,
//!   `--time-min`, `--job-name`, `--comment`, `--export`) and the user's
//!   `--script`. One script serves every stratum: what differs between strata
//!   is on the command line and in the environment it exports.
//! * **Job scripts** (`--script-dir DIR`, [`job_scripts`]): per stratum, a
//!   file holding the same options as `#SBATCH` directives, the environment
//!   exported, and `exec` of the user's script; the output is then the same
//!   comments, each followed by `sbatch FILE`.
//!
//! Either way a task sees `CALIB_STRATUM` (the stratum, `,` written `;`:
//! sbatch's `--export` splits on commas, and both forms give the same value)
//! and `CALIB_UNITS`. With a campaign grid (`--grid FILE.toml`,
//! [`ExportContext::grid`]) it also sees `CALIB_GRID`, the grid's absolute
//! path, and derives its cell with `calib grid cell` ([`cell_derivation`]):
//! a job script runs the derivation itself before `exec`, the command lines
//! leave it to the user's script and show the two lines in a comment; the
//! model's strata that the grid lacks are not budgeted (no task of theirs
//! could derive a cell). A stratum without a submittable time (`over_cap`,
//! `unsupported`) gets its comment and no live command and no file.
//!
//! The text is a shell script, and most of what it shows comes from outside
//! (labels, cluster and CPU names, the unit name, the script path, notes that
//! quote them): every comment line and `#SBATCH` directive is written by
//! [`comment`] or [`directive`], which pass it through [`comment_text`];
//! every word of a command goes through [`quote`], and every directive's
//! value through [`directive_word`] (see [`crate::shell`]), so that no value
//! can end a line or a word.

use std::collections::HashSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

#[cfg(doc)]
use super::GridDerivation;
use super::{job_comment, job_name, ExportContext, Exporter};
use crate::budget::{Budget, Status, StratumBudget};
use crate::note::shown;
use crate::output::human_duration;
use crate::output::percent_as_given;
use crate::shell::{comment_text, directive_word, quote};
use crate::slurm::time::{format_minutes, format_sbatch_time};
use crate::stratum::display_name;

pub struct SbatchExporter;

/// Appends `# <text>` as one line, whatever `text` holds.
fn comment(out: &mut String, text: &str) {
    out.push_str("# ");
    out.push_str(&comment_text(text));
    out.push('\n');
}

/// Appends the `#SBATCH --name=value` directive as one line.
fn directive(out: &mut String, name: &str, value: &str) {
    out.push_str("#SBATCH ");
    out.push_str(&comment_text(&format!(
        "--{name}={}",
        directive_word(value)
    )));
    out.push('\n');
}

/// A path as sbatch's last argument: sbatch would take a path that starts
/// with `-` for an option, and `./` keeps it the same relative path.
pub(crate) fn script_argument(script: &str) -> String {
    if script.starts_with('-') {
        quote(&format!("./{script}"))
    } else {
        quote(script)
    }
}

/// The user's script as the word `exec` runs: a name without a `/` would be
/// looked up on PATH and one that starts with `-` read as an option of
/// `exec`, so both get `./`.
fn exec_argument(script: &str) -> String {
    if script.starts_with('-') || !script.contains('/') {
        quote(&format!("./{script}"))
    } else {
        quote(script)
    }
}

/// Whether `s` gets a live submission (a command line, a job script).
fn submittable(s: &StratumBudget) -> bool {
    matches!(s.decision.status, Status::Ok | Status::RoundedDown)
}

/// The comment that comes before a stratum's submission. Short (`full`
/// false): one line of what was chosen and what it rests on, and the notes
/// that need action. Full (`--explain`, and every job script, which is a
/// record): what was chosen and why, the projection, the measurements it
/// rests on and every note.
fn provenance(
    s: &StratumBudget,
    budget: &Budget,
    context: &ExportContext,
    full: bool,
) -> Vec<String> {
    if !full {
        return short_provenance(s, budget, &context.unit_name);
    }
    let unit = &context.unit_name;
    let partition = s.decision.partition.as_deref().unwrap_or("-");
    let largest_cap = || {
        if s.decision.largest_cap_s.is_finite() {
            format_minutes(s.decision.segment_minutes())
        } else {
            "unlimited".to_string()
        }
    };
    // With --script-dir, a stratum without a time gets no job script and no line.
    let not_submitted = if context.script_dir.is_none() {
        "Not submitted: the line below is commented out"
    } else {
        "Not submitted: no job script is written for it"
    };
    let choice = match s.decision.status {
        Status::Ok => format!(
            "--time={} in {partition} (ok): the upper bound, rounded up to the minute, in the smallest partition that holds it",
            s.time()
        ),
        Status::RoundedDown => format!(
            "--time={} in {partition} (rounded_down): the largest cap between the measured cost and the upper bound",
            s.time()
        ),
        Status::OverCap => match s.decision.segments {
            Some(segments) => format!(
                "no --time (over_cap): even the measured cost exceeds the largest cap, {}; checkpoint the run into {segments} segments of at most that. {not_submitted}",
                largest_cap(),
            ),
            None => format!(
                "no --time (over_cap): even the measured cost exceeds the largest cap, {}, and a segment of that length cannot finish one unit after its startup (see the note below). {not_submitted}",
                largest_cap(),
            ),
        },
        Status::Unsupported => "no --time (unsupported): the probe cannot support one (see the note below); probe as it says, or pass --allow-guess".to_string(),
    };
    let mut lines = vec![format!("stratum {}: {choice}", display_name(&s.stratum))];

    let margin = if submittable(s) {
        format!(
            "; margin {} over the measured cost",
            human_duration(s.decision.time_s() as f64 - s.projection.floor_s)
        )
    } else {
        String::new()
    };
    lines.push(format!(
        "  {} {unit}s x {} task{}: predicted {}, measured cost {}, upper bound {} at {}{margin}{}",
        s.units,
        s.tasks,
        if s.tasks == 1 { "" } else { "s" },
        human_duration(s.projection.predicted_s),
        human_duration(s.projection.floor_s),
        human_duration(s.projection.upper_s),
        percent_as_given(budget.confidence),
        if budget.provenance.is_estimate() {
            " (ESTIMATE: measured on another machine)"
        } else {
            ""
        }
    ));

    let b = &s.basis;
    let machine = if b.clusters.is_empty() {
        "an unrecorded machine".to_string()
    } else {
        let mut m = format!("cluster {}", b.clusters.join("+"));
        if !b.cpu_models.is_empty() {
            let _ = write!(m, " ({})", b.cpu_models.join(" + "));
        }
        m
    };
    let when = b
        .measured_from
        .as_deref()
        .map(|d| format!(" on {}", d.get(..10).unwrap_or(d)))
        .unwrap_or_default();
    lines.push(format!(
        "  fitted: {} per {unit} at {unit} {} -> {} at {unit} {}, startup {} ({} model at the median run's pace), {} run{} / {} {unit}s probed, on {machine}{when}",
        human_duration(b.rate_first_s),
        b.fit_from,
        human_duration(b.rate_last_s),
        b.probe_units,
        human_duration(b.startup_s),
        b.model,
        b.runs,
        if b.runs == 1 { "" } else { "s" },
        b.units_probed,
    ));
    lines.extend(s.notes.iter().map(|note| format!("  note: {note}")));
    lines
}

/// [`provenance`] in one line, and the action notes' summaries.
fn short_provenance(s: &StratumBudget, budget: &Budget, unit: &str) -> Vec<String> {
    let choice = match (s.time_given(), &s.decision.partition) {
        (Some(time), Some(p)) if submittable(s) => format!("--time={time} in {p}"),
        _ => "no --time".to_string(),
    };
    let machine = match s.basis.clusters.as_slice() {
        [] => String::new(),
        clusters => format!(" on {}", clusters.join("+")),
    };
    let mut lines = vec![format!(
        "{}: {choice} ({}): upper bound at {} from {} / {} {unit}s probed{machine}",
        display_name(&s.stratum),
        s.decision.status.as_str(),
        percent_as_given(budget.confidence),
        crate::output::count(s.basis.runs as u64, "run", "runs"),
        s.basis.units_probed,
    )];
    lines.extend(shown(&s.notes, false).map(|note| format!("  note: {note}")));
    lines
}

/// The options of a stratum's submission, as (name, value) in the order they
/// are written, values raw (each writer quotes for its own grammar).
fn options(s: &StratumBudget, context: &ExportContext) -> Vec<(&'static str, String)> {
    let array = if s.tasks > 1 {
        format!("0-{}", s.tasks - 1)
    } else {
        "0".to_string()
    };
    let mut options = vec![("array", array), ("time", s.time())];
    if let Some(partition) = s
        .decision
        .partition
        .as_deref()
        .filter(|_| context.name_partition)
    {
        options.push(("partition", partition.to_string()));
    }
    if context.time_min {
        options.push(("time-min", format_sbatch_time(s.projection.floor_s)));
    }
    options.push(("job-name", job_name(&s.stratum)));
    options.push(("comment", job_comment(&s.stratum)));
    options
}

/// `CALIB_STRATUM`'s value: the stratum with `;` for `,`, because sbatch's
/// `--export` splits its list on commas.
pub(crate) fn stratum_variable(stratum: &str) -> String {
    stratum.replace(',', ";")
}

/// The variable that carries the grid file's path to a task.
pub const GRID_VARIABLE: &str = "CALIB_GRID";

/// The value of sbatch's `--export` for a stratum's tasks, raw (the caller
/// quotes the word): `ALL` (the submitting environment), `CALIB_STRATUM`
/// ([`stratum_variable`]), `CALIB_UNITS` and, when the tasks derive their
/// cell from a campaign grid, `CALIB_GRID` with the grid's path. The one
/// place these variables are listed, for every command that submits a
/// stratum's array (`calib budget`, `calib resume`, `calib stage`). sbatch
/// splits the list on commas: the caller refuses a grid path that holds one
/// ([`GridDerivation::for_grid`]).
pub fn exported_variables(stratum: &str, units: u64, grid: Option<&str>) -> String {
    let mut exports = format!(
        "ALL,CALIB_STRATUM={},CALIB_UNITS={units}",
        stratum_variable(stratum)
    );
    if let Some(grid) = grid {
        let _ = write!(exports, ",{GRID_VARIABLE}={grid}");
    }
    exports
}

/// The two lines with which a task derives its cell from the grid: capture
/// `calib grid cell`'s assignments and stop (exit 3) when it refuses, then
/// eval them. Not `eval "$(...)"`: eval would discard the refusal's status
/// and run the task with no cell. `calib` is the word that runs calib
/// (already quoted).
pub fn cell_derivation(calib: &str) -> [String; 2] {
    [
        format!(
            "cell=$({calib} grid cell \"${GRID_VARIABLE}\" --stratum \"$CALIB_STRATUM\" --index \"$SLURM_ARRAY_TASK_ID\") || exit 3"
        ),
        "eval \"$cell\"".to_string(),
    ]
}

/// The one `sbatch` command of a stratum, every option on it.
fn command_line(s: &StratumBudget, context: &ExportContext) -> String {
    let mut words = vec!["sbatch".to_string()];
    for (name, value) in options(s, context) {
        words.push(format!("--{name}={}", quote(&value)));
    }
    let grid = context.grid.as_ref().map(|g| g.grid.as_str());
    words.push(format!(
        "--export={}",
        quote(&exported_variables(&s.stratum, s.units, grid))
    ));
    words.push(script_argument(&context.script));
    words.join(" ")
}

/// The lines before the strata: version, date, partitions, campaign notes.
fn preamble(out: &mut String, budget: &Budget, context: &ExportContext, what: &str) {
    comment(
        out,
        &format!(
            "calib {} budget, {}: {what}",
            crate::VERSION,
            context.created_at
        ),
    );
    if context.explain && !context.name_partition {
        comment(out, "--partition is left out: the partitions in play are one family of time buckets, which Slurm routes by --time (--name-partition always names it)");
    }
    for note in shown(&budget.notes, context.explain) {
        comment(out, &format!("NOTE: {note}"));
    }
    if let Some(derivation) = &context.grid {
        comment(
            out,
            &format!(
                "each task's cell comes from the grid {}: {GRID_VARIABLE} is exported, and the array runs exactly its cells",
                derivation.grid
            ),
        );
        if context.script_dir.is_none() {
            comment(
                out,
                "your script derives its cell first, with these two lines:",
            );
            for line in cell_derivation("calib") {
                comment(out, &format!("  {line}"));
            }
        }
    }
}

impl Exporter for SbatchExporter {
    fn export(
        &self,
        budget: &Budget,
        context: &ExportContext,
        sink: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut out = String::new();
        match &context.script_dir {
            None => {
                preamble(
                    &mut out,
                    budget,
                    context,
                    "one array per stratum, each with its own --time.",
                );
                for s in &budget.strata {
                    out.push('\n');
                    for line in provenance(s, budget, context, context.explain) {
                        comment(&mut out, &line);
                    }
                    match s.decision.status {
                        Status::Ok | Status::RoundedDown => {
                            out.push_str(&command_line(s, context));
                            out.push('\n');
                        }
                        Status::OverCap => comment(&mut out, &command_line(s, context)),
                        Status::Unsupported => {}
                    }
                }
            }
            Some(dir) => {
                let scripts = job_scripts(budget, context, dir);
                preamble(
                    &mut out,
                    budget,
                    context,
                    &format!(
                        "one job script per stratum in {}, each with its own --time; submit them with the lines below.",
                        dir.display()
                    ),
                );
                for (k, s) in budget.strata.iter().enumerate() {
                    out.push('\n');
                    for line in provenance(s, budget, context, context.explain) {
                        comment(&mut out, &line);
                    }
                    if let Some(script) = scripts.iter().find(|j| j.stratum == k) {
                        out.push_str("sbatch ");
                        out.push_str(&script_argument(&script.path.to_string_lossy()));
                        out.push('\n');
                    }
                }
            }
        }
        if !context.explain {
            if let Some(line) = crate::note::explain_line(budget.every_note()) {
                out.push('\n');
                comment(&mut out, &line);
            }
        }
        sink.write_all(out.as_bytes())
    }
}

/// One stratum's job script for `--script-dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobScript {
    /// The stratum's index in the budget.
    pub stratum: usize,
    /// `dir` joined with the file's name: the job name and `.sh`, with `-2`,
    /// `-3`, ... where two strata's job names are the same.
    pub path: PathBuf,
    pub text: String,
}

/// The `n`-th file name a stratum of job name `base` may get in a folder of
/// job scripts: `base.sh`, then `base-2.sh`, `base-3.sh`, ... where strata's
/// job names are the same (their labels differ only in characters a job
/// name leaves out).
fn job_script_name(base: &str, n: usize) -> String {
    match n {
        1 => format!("{base}.sh"),
        n => format!("{base}-{n}.sh"),
    }
}

/// The job script that [`job_scripts`] wrote for `stratum` in `dir`: among
/// the names its job name may get ([`job_script_name`], in turn while such a
/// file is there), the one that exports this stratum's `CALIB_STRATUM`. Which
/// name a stratum got depends on the other strata of that budget, so the
/// name alone cannot tell: `calib resume` submitting another stratum's
/// script would run that stratum's cell. `None` when no file there is it.
/// Each file is read under the bound of a job script
/// ([`crate::limits::JOB_SCRIPT`]).
pub fn written_job_script(dir: &Path, stratum: &str) -> crate::error::Result<Option<PathBuf>> {
    let base = job_name(stratum);
    let wanted = format!("CALIB_STRATUM={}", stratum_variable(stratum));
    for n in 1.. {
        let path = dir.join(job_script_name(&base, n));
        if !path.is_file() {
            return Ok(None);
        }
        let bytes =
            crate::limits::read_file_bounded(&path, "the job script", &crate::limits::JOB_SCRIPT)?;
        let text = String::from_utf8_lossy(&bytes);
        let exports_it = text.lines().any(|line| {
            line.starts_with("export CALIB_STRATUM=")
                && shlex::split(line).is_some_and(|words| words == ["export", wanted.as_str()])
        });
        if exports_it {
            return Ok(Some(path));
        }
    }
    Ok(None)
}

/// The job scripts of `budget` in `dir`, one per stratum with a submittable
/// time: `#!/bin/sh`, the provenance comment, the options as `#SBATCH`
/// directives (sbatch reads them up to the first command), the environment
/// exported, and `exec` of `context.script` with the script's arguments.
/// Nothing is written here: the caller writes each file (atomically, never
/// over an existing one).
pub fn job_scripts(budget: &Budget, context: &ExportContext, dir: &Path) -> Vec<JobScript> {
    let mut taken = HashSet::new();
    let mut scripts = Vec::new();
    for (k, s) in budget.strata.iter().enumerate() {
        if !submittable(s) {
            continue;
        }
        let base = job_name(&s.stratum);
        let name = (1..)
            .map(|n| job_script_name(&base, n))
            .find(|name| !taken.contains(name))
            .expect("an unused name");
        taken.insert(name.clone());

        let mut text = String::from("#!/bin/sh\n");
        comment(
            &mut text,
            &format!(
                "Job script of calib {} budget, {}: submit it with `sbatch FILE`; it runs {} with the stratum's environment.",
                crate::VERSION,
                context.created_at,
                context.script
            ),
        );
        for line in provenance(s, budget, context, true) {
            comment(&mut text, &line);
        }
        for (name, value) in options(s, context) {
            directive(&mut text, name, &value);
        }
        // The rest of the submitting environment, as the command lines' --export=ALL.
        directive(&mut text, "export", "ALL");
        let _ = writeln!(
            text,
            "export CALIB_STRATUM={}",
            quote(&stratum_variable(&s.stratum))
        );
        let _ = writeln!(text, "export CALIB_UNITS={}", s.units);
        if let Some(derivation) = &context.grid {
            let _ = writeln!(text, "export {GRID_VARIABLE}={}", quote(&derivation.grid));
            for line in cell_derivation(&exec_argument(&derivation.calib)) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        let _ = writeln!(text, "exec {} \"$@\"", exec_argument(&context.script));
        scripts.push(JobScript {
            stratum: k,
            path: dir.join(name),
            text,
        });
    }
    scripts
}
