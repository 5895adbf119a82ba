//! Output formats of `calib budget`, one file each behind [`Exporter`].

mod csv;
mod json;
mod sbatch;
mod table;

pub use self::csv::CsvExporter;
pub(crate) use self::json::round3;
pub use self::json::JsonExporter;
pub(crate) use self::sbatch::script_argument;
pub use self::sbatch::{
    cell_derivation, exported_variables, job_scripts, written_job_script, JobScript,
    SbatchExporter, GRID_VARIABLE,
};
pub use self::table::TableExporter;

use super::Budget;

/// What every format may need beyond the budget itself.
#[derive(Debug, Clone)]
pub struct ExportContext {
    /// The batch script the `sbatch` lines submit, or the job scripts run.
    pub script: String,
    /// sbatch format: write one job script per stratum in this folder and
    /// print the `sbatch FILE` lines that submit them, instead of command
    /// lines that carry every option (see [`job_scripts`]).
    pub script_dir: Option<std::path::PathBuf>,
    /// Also emit `--time-min` at the measured cost (lets backfill start the task sooner).
    pub time_min: bool,
    /// What one unit is called (`generation`, `epoch`), for the record.
    pub unit_name: String,
    /// RFC 3339 time of this budget.
    pub created_at: String,
    /// Name the partition in the sbatch lines. Off where the partitions in play
    /// are one family of time buckets, which clusters route by `--time` (the
    /// Alliance's `_b1`..`_b6`: naming a bucket there only pins what routing does).
    pub name_partition: bool,
    /// With a campaign grid (`--grid FILE.toml`): how each task derives its
    /// cell with `calib grid cell` instead of a hand-written mapping.
    pub grid: Option<GridDerivation>,
    /// Every note, whole (`--explain`); by default only those that need the
    /// user's action.
    pub explain: bool,
}

/// `path` made absolute (against the current folder, `..` kept), as text
/// for a submission; `what` names it if that fails (the current folder is
/// gone).
pub(crate) fn absolute(path: &std::path::Path, what: &str) -> crate::error::Result<String> {
    std::path::absolute(path)
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| crate::error::Error::Refused(format!("{what} {}: {e}", path.display())))
}

/// Refuses a path that sbatch's `--export` list would split at its comma or
/// group from a quote (`what` names it): the task would get a truncated
/// value, or the other variables inside this one.
pub(crate) fn refuse_split_in_export(path: &str, what: &str) -> crate::error::Result<()> {
    if path.contains(',') {
        return Err(crate::error::Error::Refused(format!(
            "{what} {path}: the path holds a comma, which sbatch's --export would split; move or rename the file"
        )));
    }
    crate::stratum::refuse_export_quote(&format!("{what} {path}"), path)
        .map_err(|why| crate::error::Error::Refused(format!("{why}; move or rename the file")))
}

/// The two absolute paths a task needs to derive its cell: the calib that
/// made the budget and the grid file. The command lines export the grid as
/// `CALIB_GRID`; a job script also runs the derivation itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridDerivation {
    pub calib: String,
    pub grid: String,
}

impl GridDerivation {
    /// The derivation for the campaign grid at `path`: its absolute path and
    /// this calib's, so that a job submitted from any folder finds both. A
    /// grid path with a comma is refused: sbatch's `--export` would split it.
    pub fn for_grid(path: &std::path::Path) -> crate::error::Result<GridDerivation> {
        use crate::error::Error;
        let grid = absolute(path, "--grid")?;
        refuse_split_in_export(&grid, "--grid")?;
        let calib = std::env::current_exe()
            .map_err(|e| Error::io("cannot find calib's own path for the job scripts", e))?;
        Ok(GridDerivation {
            calib: absolute(&calib, "calib's path")?,
            grid,
        })
    }
}

/// One output format. Writes go straight to `out` and their errors come back
/// to the caller: never dropped, so that a closed or full stdout is seen.
pub trait Exporter {
    fn export(
        &self,
        budget: &Budget,
        context: &ExportContext,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()>;
}

/// The formats `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for people, with notes and a campaign summary.
    Table,
    /// The JSON contract (docs/design.md), for programs.
    Json,
    /// One CSV row per stratum.
    Csv,
    /// Per stratum, a comment on what its --time rests on and one `sbatch
    /// --array` command line carrying every option (with --script-dir: one
    /// job script per stratum, and the `sbatch FILE` lines).
    Sbatch,
}

impl Format {
    pub fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Table => Box::new(TableExporter),
            Format::Json => Box::new(JsonExporter),
            Format::Csv => Box::new(CsvExporter),
            Format::Sbatch => Box::new(SbatchExporter),
        }
    }
}

/// The job name calib gives a stratum's array, so `calib audit` can map it back:
/// `calib-` and the stratum's slug (`[A-Za-z0-9._-]`, bounded), or
/// `calib-stratum` for a stratum text that does not parse. Raw text: a script
/// writer quotes it ([`crate::shell::quote`]).
pub fn job_name(stratum: &str) -> String {
    let slug = crate::stratum::Stratum::parse(stratum)
        .map(|s| s.slug())
        .unwrap_or_else(|_| "stratum".to_string());
    format!("calib-{slug}")
}

/// The `--comment` calib sets on a stratum's array: `calib stratum=<canonical>`.
/// Raw text, the stratum as given: a script writer quotes it
/// ([`crate::shell::quote`]).
pub fn job_comment(stratum: &str) -> String {
    format!("calib stratum={stratum}")
}
