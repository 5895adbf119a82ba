//! `calib budget`: one `--time` per stratum, rounded into partition buckets,
//! never below the measured cost.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use clap::Args;

use crate::atomic::CreatedFiles;
use crate::budget::export::{job_scripts, ExportContext, Format, GridDerivation};
use crate::budget::grid::is_campaign_grid;
use crate::budget::{self, BudgetOptions, Grid, Status, Target};
use crate::commands::flags;
use crate::commands::input::{
    calibration_table, dashes, load_model_file, read_timings_warned, refuse_stdin_named_twice,
};
use crate::error::{Error, Origin, Result, EXIT_OVER_CAP};
use crate::fit::{fit_timings, FitOptions};
use crate::model::ModelFile;
use crate::output;
use crate::shell::text_argument;
use crate::slurm::cluster::resolve_cluster;

/// The description `--help` and the manual page show (set on the subcommand
/// in `crate::cli`, where the one-line `about` comes from).
pub const LONG_ABOUT: &str = "\
Turn a model into one --time per stratum, rounded into partition buckets

The rule, per stratum: if a partition cap lies between the measured cost and the upper \
bound, round down into the largest such cap (status rounded_down); otherwise ask for the \
upper bound, rounded up to the minute, in the smallest partition that holds it (ok); if \
even the measured cost exceeds every cap, the run must checkpoint (over_cap, exit 3).";

const AFTER_HELP: &str = "\
Examples:
  calib budget --model calib-model.json --units 100 --partitions \"$(sinfo -h -o '%P %l')\"
  calib budget calib-timings/ --units 100 --partitions @partitions.txt --format sbatch \\
      --script train.sh
  calib budget -m calib-model.json -n 100 -p @partitions.txt -f sbatch --script train.sh \\
      --script-dir jobs/
  sinfo -h -o '%P %l' | calib budget --model calib-model.json --grid grid.csv --partitions -
  calib budget --model calib-model.json --units 100 --partitions @partitions.txt \\
      --plot budget.svg

The output: the table gives per stratum the projection (predicted, measured cost, upper \
bound), the --time, its partition and the status, then the notes and the campaign's \
buckets and task-hours. The sbatch format gives per stratum a comment on what its --time \
rests on and one `sbatch --array` line carrying every option; with --script-dir, one job \
script per stratum and the `sbatch FILE` lines. Every task sees CALIB_STRATUM and \
CALIB_UNITS.

The grid sizes each stratum. A campaign grid (grid.toml, `calib grid --help`) gives \
each stratum its cells as array tasks and its units; with --format sbatch, each task \
then derives its cell with `calib grid cell` (job scripts run it themselves; the \
command lines export CALIB_GRID for your script). A sizes CSV has columns stratum, \
units and/or tasks, e.g.
  stratum,units,tasks
  \"dataset=A,model=7B\",100,3";

/// Arguments of `calib budget`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct BudgetArgs {
    /// Timings files or folders to fit on the fly, instead of --model.
    #[arg(value_name = "TIMINGS")]
    pub timings: Vec<PathBuf>,

    /// Model file from `calib fit -o` [default: calib-model.json].
    ///
    /// The model written by `calib fit -o`. Default: calib-model.json when no
    /// TIMINGS are given.
    #[arg(long, short = 'm', value_name = "FILE", conflicts_with = "timings")]
    pub model: Option<PathBuf>,

    /// Units per run, for strata the grid does not size.
    ///
    /// Units per run (generations, epochs, ...) for every stratum the grid does
    /// not size. The projection covers a whole run of this many units.
    #[arg(long, short = 'n', value_name = "N", value_parser = flags::count)]
    pub units: Option<u64>,

    /// Per-stratum sizes: a campaign grid (.toml) or a sizes CSV.
    ///
    /// Per-stratum sizes, told apart by the extension: a campaign grid (.toml,
    /// see `calib grid --help`) gives each stratum its cells as tasks and its
    /// units, and in the sbatch format each task derives its cell from it with
    /// `calib grid cell`; any other file is a sizes CSV (a stratum column,
    /// and units and/or tasks).
    #[arg(long, value_name = "FILE")]
    pub grid: Option<PathBuf>,

    /// Array tasks per stratum, when the grid does not say.
    ///
    /// Array tasks per stratum (seeds, cells) when the grid does not say. Used for
    /// the --array range and the campaign's task-hours.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = flags::tasks)]
    pub tasks: u64,

    #[command(flatten)]
    pub partition: flags::PartitionArgs,

    /// One-sided confidence of the upper bound.
    ///
    /// One-sided confidence of the upper bound: the share of new runs it
    /// covered on the calibration's real programs, each left out in turn
    /// (the notes say how it did at this level). A level its programs cannot
    /// support is refused. The default is the level of least expected cost
    /// on calib's corpus: about 3 runs in 10 then go past it (calib resume
    /// resubmits them); ask for 0.9 or 0.99 where a killed task costs more
    /// than its hours.
    #[arg(long, value_name = "P", default_value_t = crate::calibrate::DEFAULT_CONFIDENCE, value_parser = flags::confidence)]
    pub confidence: f64,

    /// The cluster that will run the work.
    ///
    /// The cluster that will run the work. Default: a CLUSTER: line in the
    /// partition list, else $SLURM_CLUSTER_NAME, else $CC_CLUSTER.
    #[arg(long, value_name = "NAME", value_parser = text_argument)]
    pub cluster: Option<String>,

    /// The CPU model of the nodes that will run the work.
    ///
    /// The CPU model of the nodes that will run the work, to check against the
    /// CPU the timings were measured on.
    #[arg(long, value_name = "TEXT", value_parser = text_argument)]
    pub cpu_model: Option<String>,

    /// Budget from timings of another cluster or CPU (an estimate).
    ///
    /// Budget from timings measured on another cluster or CPU. The result is an
    /// estimate, not a calibration, and every output says so.
    #[arg(long)]
    pub allow_transfer: bool,

    /// Give the measured cost where the calibration is too thin (a guess).
    ///
    /// Give a time even for a stratum the calibration has too few programs
    /// like (status unsupported): the measured cost, the slowest seed's
    /// projection, with no margin. The time is then a guess, and every
    /// output says so. A probe that shows no per-unit cost gets no guess:
    /// there is nothing to guess from.
    #[arg(long)]
    pub allow_guess: bool,

    /// Your calibration table (`calib calibrate -o`), merged with calib's.
    ///
    /// The calibration table the bound's factor comes from: one `calib
    /// calibrate -o` wrote from your own campaigns, merged with calib's own
    /// (a program in both counts once, yours). Default: calib's own, built
    /// from the real programs in its repository's data/.
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Your batch script, run by every array (sbatch format).
    ///
    /// Your batch script, which every stratum's array runs (sbatch format): the
    /// last word of each `sbatch` line, or what each job script of --script-dir
    /// runs with `exec`. It reads $CALIB_STRATUM and $CALIB_UNITS.
    #[arg(long, value_name = "FILE", default_value = "job.sh", value_parser = text_argument)]
    pub script: String,

    /// Write one job script per stratum into DIR (sbatch format).
    ///
    /// Instead of `sbatch` lines that carry every option, write one job script
    /// per stratum into DIR (created if missing): its options as `#SBATCH`
    /// lines, CALIB_STRATUM and CALIB_UNITS exported, then `exec` of --script
    /// (by its absolute path). Prints the `sbatch DIR/FILE` lines that submit
    /// them. An existing file is never overwritten (exit 2). Example:
    /// `--format sbatch --script train.sh --script-dir jobs/`, then
    /// `sbatch jobs/calib-dataset-Y.sh`.
    #[arg(long, value_name = "DIR", value_parser = text_argument)]
    pub script_dir: Option<String>,

    /// Also emit --time-min at the measured cost (sbatch format).
    ///
    /// Also emit --time-min at the measured cost, so backfill may start a task
    /// sooner with a shorter limit (sbatch format).
    #[arg(long)]
    pub time_min: bool,

    /// Whether the sbatch lines name the partition.
    ///
    /// Whether the sbatch lines name the partition: `auto` leaves it out when the
    /// partitions in play are one family of time buckets (`_b1`, `_b2`, ...),
    /// which clusters such as the Alliance's route by --time, and names it
    /// otherwise (a cluster whose partitions are not routed by time).
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = NamePartition::Auto)]
    pub name_partition: NamePartition,

    /// Draw the campaign into a PNG or SVG file.
    ///
    /// Draw the campaign into a PNG or SVG file (chosen by the extension): per
    /// stratum the measured cost, the predicted time, the upper bound and the
    /// chosen --time, against the partition caps as horizontal lines named by
    /// their partitions; over_cap and unsupported strata are marked as such. A
    /// file there is replaced. Example: `--plot budget.svg`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,

    /// What one unit is called, for the record in the sbatch comments.
    #[arg(long, value_name = "WORD", default_value = "unit", value_parser = text_argument)]
    pub unit_name: String,

    /// Print every note whole, per stratum (default: only what needs action).
    #[arg(long, short = 'v')]
    pub explain: bool,
}

/// When the sbatch lines name the partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum NamePartition {
    /// Not for one family of time buckets (routed by --time), else yes.
    Auto,
    Always,
    Never,
}

fn load_model(args: &BudgetArgs) -> Result<ModelFile> {
    if !args.timings.is_empty() {
        let timings = read_timings_warned(&args.timings)?;
        return Ok(fit_timings(&timings, &FitOptions::default())?.model);
    }
    load_model_file(args.model.as_deref(), "timings paths to fit on the fly")
}

/// Writes the job scripts of `--script-dir`, each atomically, into
/// `created`. Refuses before writing any when one of the files exists: a job
/// script may have been edited or submitted, and calib does not overwrite it.
fn write_job_scripts(
    plan: &budget::Budget,
    context: &ExportContext,
    dir: &Path,
    created: &mut CreatedFiles,
) -> Result<()> {
    let scripts = job_scripts(plan, context, dir);
    let refuse = |path: &Path| {
        Error::Refused(format!(
            "{} already exists; calib does not overwrite a job script: remove it, or give another --script-dir",
            path.display()
        ))
    };
    // symlink_metadata: a link, even a dangling one, is a file there too.
    if let Some(existing) = scripts
        .iter()
        .find(|j| std::fs::symlink_metadata(&j.path).is_ok())
    {
        return Err(refuse(&existing.path));
    }
    crate::atomic::refuse_file_as_folder(dir, "--script-dir", "the job scripts")?;
    created
        .create_folder(dir)
        .map_err(|e| Error::io(format!("cannot create --script-dir {}", dir.display()), e))?;
    for script in &scripts {
        // Keep: a file that appeared since the check above is still not replaced.
        created.write_new(&script.path, script.text.as_bytes(), || {
            refuse(&script.path)
        })?;
    }
    Ok(())
}

/// Refuses a --script that can never run, before anything is written: an
/// empty one (the `sbatch` lines would end in `''`, the job scripts `exec` the
/// folder calib ran in) and a folder (sbatch and exec both fail on it, on the
/// node, after the wait in the queue). A file that is not there or not
/// executable yet is left to the warning after the job scripts: it may be
/// written or `chmod +x`ed before submission.
fn check_script(script: &str) -> Result<()> {
    let refuse = |message: String| Error::input(Origin::Argument("--script".into()), None, message);
    if script.is_empty() {
        return Err(refuse(
            "it is empty; expected the path of your batch script (e.g. --script job.sh)".into(),
        ));
    }
    if std::fs::metadata(script).is_ok_and(|m| m.is_dir()) {
        return Err(refuse(format!(
            "`{script}` is a folder; expected your batch script, a file"
        )));
    }
    Ok(())
}

/// With a campaign grid and the sbatch format: the absolute paths a task
/// needs to derive its cell (this calib, the grid), so that a job submitted
/// from any folder finds them. A grid path with a comma is refused: sbatch's
/// `--export` would split it.
fn grid_derivation(args: &BudgetArgs) -> Result<Option<GridDerivation>> {
    let Some(path) = args.grid.as_deref().filter(|p| is_campaign_grid(p)) else {
        return Ok(None);
    };
    if args.format != Format::Sbatch {
        return Ok(None);
    }
    GridDerivation::for_grid(path).map(Some)
}

pub fn run(args: &BudgetArgs) -> Result<i32> {
    refuse_stdin_named_twice(&[
        ("TIMINGS", dashes(&args.timings)),
        (
            "--partitions",
            usize::from(args.partition.partitions == "-"),
        ),
    ])?;
    if let Some(path) = &args.plot {
        // Before any work or any write: a bad --plot must not leave job scripts behind.
        crate::plot::check_target(path, "--plot")?;
    }
    let (partitions, selector) = args.partition.load()?;
    // The caps must be the target cluster's: a list of another one's would
    // budget these rates into the wrong partitions without a word.
    if let (Some(given), Some(listed)) = (args.cluster.as_deref(), partitions.cluster.as_deref()) {
        if given != listed {
            return Err(Error::input(
                Origin::Argument("--partitions".into()),
                None,
                format!(
                    "the list is {listed}'s (its CLUSTER: line), but --cluster is {given}; expected the partitions of {given} (sinfo -M {given} -h -o '%P %l'), or --cluster {listed}"
                ),
            ));
        }
    }
    let selection = partitions.select(selector.as_ref())?;
    let grid = args.grid.as_deref().map(Grid::load).transpose()?;
    let model = load_model(args)?;
    let options = BudgetOptions {
        units: args.units,
        tasks: args.tasks,
        grid,
        confidence: args.confidence,
        target: Target {
            cluster: resolve_cluster(args.cluster.as_deref(), partitions.cluster.as_deref())
                .map(|c| c.name),
            cpu_model: args.cpu_model.clone(),
        },
        allow_transfer: args.allow_transfer,
        allow_guess: args.allow_guess,
        calibration: calibration_table(args.calibration.as_deref(), args.confidence)?,
    };
    let mut plan = budget::plan(&model, &selection, &options)?;
    plan.notes.extend(
        partitions
            .notes
            .iter()
            .map(|text| crate::note::Note::PartitionList { text: text.clone() }),
    );
    if args.script_dir.is_some() && args.format != Format::Sbatch {
        return Err(Error::Refused(
            "--script-dir writes the job scripts of the sbatch format: add --format sbatch".into(),
        ));
    }
    if args.format == Format::Sbatch {
        check_script(&args.script)?;
    }
    let script = match &args.script_dir {
        // A job script may be submitted from any folder: it runs --script by
        // its absolute path (the folder calib ran in, for a relative one).
        Some(_) => std::path::absolute(&args.script)
            .map_err(|e| Error::Refused(format!("--script `{}`: {e}", args.script)))?
            .to_string_lossy()
            .into_owned(),
        None => args.script.clone(),
    };
    let context = ExportContext {
        script,
        script_dir: args.script_dir.as_ref().map(PathBuf::from),
        time_min: args.time_min,
        unit_name: args.unit_name.clone(),
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        name_partition: match args.name_partition {
            NamePartition::Always => true,
            NamePartition::Never => false,
            NamePartition::Auto => !selection.is_one_bucket_family(),
        },
        grid: grid_derivation(args)?,
        explain: args.explain,
    };
    // A write that fails (a full disk) after the first job script removes
    // the job scripts written before it: left there, they would refuse the
    // retry. Committed before standard output, whose closing by a reader
    // (`| head`) ends calib quietly and must not take the scripts with it.
    let mut created = CreatedFiles::default();
    if let Some(dir) = &context.script_dir {
        write_job_scripts(&plan, &context, dir, &mut created)?;
        // The job scripts `exec` it: say now what would fail on the node.
        let runnable = std::fs::metadata(&context.script)
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
        if !runnable {
            output::warn(format_args!(
                "{} is not an executable file yet; the job scripts run it with exec (chmod +x it)",
                context.script
            ));
        }
    }
    if let Some(path) = &args.plot {
        budget::plot::draw(&plan, path)?;
    }
    created.commit();
    let export = |out: &mut dyn std::io::Write| args.format.exporter().export(&plan, &context, out);
    match args.format {
        Format::Table => output::write_table(export)?,
        _ => output::write_result(export)?,
    }
    let refused = plan.refused();
    if !refused.is_empty() {
        for status in [Status::OverCap, Status::Unsupported] {
            let names: Vec<&str> = refused
                .iter()
                .filter(|s| s.decision.status == status)
                .map(|s| s.stratum.as_str())
                .collect();
            if names.is_empty() {
                continue;
            }
            let why = match status {
                Status::OverCap => "cannot fit under any partition cap; see the notes (checkpoint into segments, where a segment can finish a unit)",
                _ => "get no --time: their probes show no per-unit cost, or the calibration has too few programs like them; see the notes for the probe that would settle it",
            };
            output::note(format_args!(
                "{} {why}: {}",
                output::count(names.len() as u64, "stratum", "strata"),
                names.join(", ")
            ));
        }
        return Ok(EXIT_OVER_CAP);
    }
    Ok(0)
}
