//! Output formats of `calib resume`, one file each behind [`Exporter`]: a
//! table for people, JSON for programs, and the `sbatch` lines to run.

mod json;
mod sbatch;
mod table;

pub use self::json::JsonExporter;
pub use self::sbatch::SbatchExporter;
pub use self::table::TableExporter;

use std::collections::BTreeMap;

use super::{ResumePlan, StratumResume, Submission};
use crate::budget::export::{
    exported_variables, job_comment, job_name, script_argument, GridDerivation,
};
use crate::shell::quote;
use crate::slurm::time::format_minutes;

/// What every format may need beyond the plan itself.
#[derive(Debug, Clone)]
pub struct ExportContext {
    /// The batch script the `sbatch` lines submit (the campaign's own).
    pub script: String,
    /// With `--script-dir`, each stratum's job script that `calib budget
    /// --script-dir` wrote there (the file that exports its `CALIB_STRATUM`:
    /// [`crate::budget::export::written_job_script`]), by stratum: its lines
    /// submit that script (which exports the variables and derives the cell
    /// itself) instead of `script`. The line's options override the script's
    /// `#SBATCH` directives, `--time-min` included.
    pub job_scripts: Option<BTreeMap<String, String>>,
    /// With a campaign grid (`--grid FILE.toml`): the tasks derive their cell
    /// from it, and the lines export `CALIB_GRID`, as `calib budget`'s do.
    pub grid: Option<GridDerivation>,
    /// Name the partition in the `sbatch` lines (see `calib budget
    /// --name-partition`).
    pub name_partition: bool,
    /// RFC 3339 time of this plan.
    pub created_at: String,
    /// Every note, whole (`--explain`); by default only those that need the
    /// user's action.
    pub explain: bool,
}

/// The closing line of a default output: what `--explain` would add.
pub(crate) fn explain_line(plan: &ResumePlan) -> Option<String> {
    crate::note::explain_line(plan.strata.iter().flat_map(|s| &s.notes).chain(&plan.notes))
}

/// One output format. Writes go straight to `out` and their errors come back
/// to the caller.
pub trait Exporter {
    fn export(
        &self,
        plan: &ResumePlan,
        context: &ExportContext,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()>;
}

/// The formats `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for people: per stratum the tasks, the remainder and its
    /// --time, the notes, then the sbatch lines.
    Table,
    /// The same for programs.
    Json,
    /// Only what to run: per stratum a comment on what its --time rests on and
    /// the sbatch lines.
    Sbatch,
}

impl Format {
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Table => Box::new(TableExporter),
            Format::Json => Box::new(JsonExporter),
            Format::Sbatch => Box::new(SbatchExporter),
        }
    }
}

/// The `sbatch` command of one submission, every word quoted by
/// [`crate::shell::quote`]: the options of `calib budget`'s lines (job name,
/// comment, and the variables of [`exported_variables`]: `CALIB_STRATUM`,
/// `CALIB_UNITS`, `CALIB_GRID` with a grid) with the killed tasks' indexes
/// and the remainder's time, so that `calib audit` groups the resubmitted
/// tasks with their stratum.
pub fn command_line(
    plan: &ResumePlan,
    s: &StratumResume,
    submission: &Submission,
    context: &ExportContext,
) -> String {
    let mut options: Vec<(&str, String)> = Vec::new();
    if let Some(array) = &submission.array {
        options.push(("array", array.clone()));
    }
    // over_cap: the line of one segment, at the largest cap (see the notes).
    let time = s.segment_minutes().map_or_else(|| s.time(), format_minutes);
    options.push(("time", time.clone()));
    if context.job_scripts.is_some() {
        // A job script of `calib budget --time-min` asks for the whole run's
        // measured cost as its minimum; above the remainder's --time, Slurm
        // refuses the job. The remainder's minimum is its time.
        options.push(("time-min", time));
    }
    if let Some(partition) = s
        .decision
        .partition
        .as_deref()
        .filter(|_| context.name_partition)
    {
        options.push(("partition", partition.to_string()));
    }
    options.push(("job-name", job_name(&s.stratum)));
    options.push(("comment", job_comment(&s.stratum)));
    options.push((
        "export",
        exported_variables(
            &s.stratum,
            plan.units,
            context.grid.as_ref().map(|g| g.grid.as_str()),
        ),
    ));
    let mut words = vec!["sbatch".to_string()];
    words.extend(
        options
            .into_iter()
            .map(|(name, value)| format!("--{name}={}", quote(&value))),
    );
    words.push(script_argument(script_of(s, context)));
    words.join(" ")
}

/// The script a stratum's lines submit: its job script of
/// [`ExportContext::job_scripts`], else [`ExportContext::script`].
pub fn script_of<'c>(s: &StratumResume, context: &'c ExportContext) -> &'c str {
    context
        .job_scripts
        .as_ref()
        .and_then(|scripts| scripts.get(&s.stratum))
        .unwrap_or(&context.script)
}

/// Every live `sbatch` line of the plan, in order: (stratum, line).
pub fn command_lines<'a>(
    plan: &'a ResumePlan,
    context: &ExportContext,
) -> Vec<(&'a StratumResume, String)> {
    plan.strata
        .iter()
        .filter(|s| s.submittable())
        .flat_map(|s| {
            s.submissions()
                .into_iter()
                .map(move |sub| (s, command_line(plan, s, &sub, context)))
                .collect::<Vec<_>>()
        })
        .collect()
}
