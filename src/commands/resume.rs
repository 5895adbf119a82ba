//! `calib resume`: after a walltime kill, the time the rest of each killed
//! run needs and the `sbatch` line that resubmits exactly those tasks.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::audit::{check_columns, SacctQuery};
use crate::budget::export::GridDerivation;
use crate::budget::grid::{is_campaign_grid, Grid};
use crate::commands::budget::NamePartition;
use crate::commands::flags;
use crate::commands::input::{
    dashes, load_model_file, read_text_argument, read_timings_warned, refuse_stdin_named_twice,
};
use crate::error::{Error, Origin, Result, EXIT_OVER_CAP};
use crate::fit::{fit_timings, FitOptions};
use crate::output;
use crate::resume::export::{ExportContext, Format};
use crate::resume::{self, ResumeOptions};
use crate::shell::text_argument;
use crate::slurm::sacct::{parse_sacct, SacctOptions};

/// The description `--help` and the manual page show (set on the subcommand
/// in `crate::cli`, where the one-line `about` comes from).
pub const LONG_ABOUT: &str = "\
Resubmit the tasks killed by their walltime, with the time the rest of each run needs

A task killed after unit k of N (its probe timings show k; sacct shows TIMEOUT) of a \
program that resumes from a checkpoint needs only units k+1..N. calib projects them with \
the model, at the killed run's own measured rate (its current per-unit rate against the \
model's curve), adds the startup of the restart, applies the margin calib budget gives a \
new run of N units, and rounds into a partition bucket by budget's rule, never below the \
remainder projected at the run's own pace (its rate, measured against the \
model's chosen curve, applied to the units left under every cost form the probe cannot rule \
out; a projection, not a measurement). It prints the sbatch line for exactly the killed array tasks.

With --no-checkpoint (the program cannot resume), the killed runs' units are added to the \
probe timings, the stratum is fitted again, and the whole run is budgeted from unit 1.

Exit status: 0, or 3 when a stratum's remainder fits under no partition cap or its probe \
cannot support a bound (see the notes); 2 for bad input.";

const AFTER_HELP: &str = "\
Examples:
  calib resume data/spread-20.csv --timings data/campaign/timed-out-Y.csv --units 100 \\
      --partitions @data/campaign/partitions-narval.txt
  calib resume data/spread-20.csv --timings data/campaign/timed-out-Y.csv -n 100 \\
      -p @data/campaign/partitions-narval.txt --format sbatch \\
      --grid data/campaign/grid.toml --script evolve.sh
  calib resume data/spread-20.csv --timings data/campaign/timed-out-Y.csv -n 100 \\
      -p @data/campaign/partitions-narval.txt --no-checkpoint
  calib resume --model calib-model.json --timings calib-runs/ -j 4242 --units 100 \\
      --partitions \"$(sinfo -h -o '%P %l')\"
      (on the cluster: calib runs sacct -j 4242 itself)

The output: the table gives per stratum the killed tasks, the unit each reached, the units \
left, the remainder (predicted, projected at the runs' own pace, upper bound), the --time, its partition and the \
status; then per task what it measured (its level and current rate against the model), \
the tasks left out and why, and the sbatch lines. Each line carries calib budget's options \
(job name, comment, CALIB_STRATUM, CALIB_UNITS, and CALIB_GRID with --grid) with --array \
set to the killed tasks' indexes, the same indexes as in the first submission: your script \
resumes each from its checkpoint. A campaign budgeted with --grid grid.toml is resumed with \
--grid grid.toml and the same --script (the script that derives the cell), or with \
--script-dir DIR when budget wrote job scripts there.

First runs only: a resumed run's probe counts its units from 1 again, so calib resume \
cannot size a task killed a second time (it would read its unit j as unit j of N, not \
the one it reached). Write the resumed runs' probe timings to another folder, and do not \
give them to calib resume: timings holding both a run and its resumption are refused. \
A task killed again after a resume ran slower than its own pace, which its --time was never \
below: see calib audit on it before resubmitting it by hand.";

/// Arguments of `calib resume`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ResumeArgs {
    /// Probe timings to fit on the fly, instead of --model.
    ///
    /// Probe timings files or folders to fit the model from on the fly, instead
    /// of --model. Needed with --no-checkpoint, which fits them again with the
    /// killed runs added.
    #[arg(value_name = "PROBES")]
    pub probes: Vec<PathBuf>,

    /// Model file from `calib fit -o` [default: calib-model.json].
    ///
    /// The model written by `calib fit -o`. Default: calib-model.json when no
    /// PROBES are given.
    #[arg(long, short = 'm', value_name = "FILE", conflicts_with = "probes")]
    pub model: Option<PathBuf>,

    /// The campaign tasks' timings: how far each killed task got.
    ///
    /// The campaign tasks' probe timings (files or folders of calib probe CSVs):
    /// how far each killed task got. Tasks are matched to sacct rows by the
    /// job_id column, which calib probe fills in a Slurm job; a run without
    /// one did not run as a job and is left out (timings where no run has
    /// one, such as the probe's own, are refused).
    #[arg(long, value_name = "PATH", required = true)]
    pub timings: Vec<PathBuf>,

    /// `sacct -P` text: its TIMEOUT tasks are resubmitted.
    ///
    /// `sacct -P` output with its header line (the text itself, @FILE, or - for
    /// standard input): the tasks in state TIMEOUT are resubmitted. Without it
    /// (and without -j), every run of --timings with a job_id that stopped short
    /// of --units on a signal, or with no end row, is taken as killed by its
    /// walltime.
    #[arg(long, value_name = "SACCT", conflicts_with = "jobs")]
    pub sacct: Option<String>,

    /// Run `sacct -P -X -j IDS` for the tasks' states.
    ///
    /// Run `sacct -P -X -j IDS` for the tasks' states (on the cluster): a comma
    /// list of job ids.
    #[arg(short = 'j', long = "jobs", value_name = "IDS", value_parser = flags::job_ids)]
    pub jobs: Option<String>,

    /// Units of a whole run.
    ///
    /// Units of a whole run (N): the killed tasks resume at their last
    /// recorded unit and go on to N.
    #[arg(long, short = 'n', value_name = "N", required = true, value_parser = flags::count)]
    pub units: u64,

    #[command(flatten)]
    pub partition: flags::PartitionArgs,

    /// Confidence of the upper bound, as for calib budget.
    #[arg(long, value_name = "P", default_value_t = crate::calibrate::DEFAULT_CONFIDENCE, value_parser = flags::confidence)]
    pub confidence: f64,

    /// The calibration table (see `calib budget --help`).
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,

    /// The program cannot resume: budget whole runs again (needs PROBES).
    ///
    /// The program cannot resume from a checkpoint: budget the whole run again
    /// from unit 1, with the killed runs' units added to the fit (needs PROBES).
    #[arg(long)]
    pub no_checkpoint: bool,

    /// Output format: table, json or sbatch.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table, hide_possible_values = true)]
    pub format: Format,

    /// The campaign's batch script, as `calib budget --script` named it.
    ///
    /// The campaign's batch script, the last word of each sbatch line: the one
    /// `calib budget --script` named. It reads $CALIB_STRATUM and $CALIB_UNITS
    /// (with --grid, derives its cell from $CALIB_GRID with `calib grid cell`:
    /// the script that derives the cell, not the bare program), and resumes
    /// from its checkpoint.
    #[arg(long, value_name = "FILE", default_value = "job.sh", value_parser = text_argument)]
    pub script: String,

    /// The campaign grid (.toml) the tasks derive their cell from.
    ///
    /// The campaign grid (.toml) the tasks derive their cell from, as given to
    /// `calib budget --grid`: the lines export CALIB_GRID (its absolute path),
    /// and each killed task's array index is checked to be one of its
    /// stratum's cells.
    #[arg(long, value_name = "FILE.toml")]
    pub grid: Option<PathBuf>,

    /// The job scripts `calib budget --script-dir` wrote, instead of --script.
    ///
    /// The folder of the job scripts `calib budget --script-dir` wrote: each
    /// stratum's line submits its job script there (`DIR/calib-<stratum>.sh`,
    /// or `-2.sh`, `-3.sh`, ... where strata share a job name: the file that
    /// exports the stratum's CALIB_STRATUM), which exports the variables and
    /// derives the cell itself, instead of --script; the line's --array, --time
    /// and --time-min (set to the --time) override its #SBATCH lines.
    #[arg(long, value_name = "DIR", conflicts_with = "script", value_parser = text_argument)]
    pub script_dir: Option<String>,

    /// Whether the sbatch lines name the partition: auto, always or never.
    ///
    /// Whether the sbatch lines name the partition, as for calib budget: `auto`
    /// leaves it out when the partitions in play are one family of time buckets.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = NamePartition::Auto, hide_possible_values = true)]
    pub name_partition: NamePartition,

    /// Print every note whole (default: only what needs action).
    #[arg(long, short = 'v')]
    pub explain: bool,
}

pub fn run(args: &ResumeArgs) -> Result<i32> {
    refuse_stdin_named_twice(&[
        ("PROBES", dashes(&args.probes)),
        ("--timings", dashes(&args.timings)),
        ("--sacct", usize::from(args.sacct.as_deref() == Some("-"))),
        (
            "--partitions",
            usize::from(args.partition.partitions == "-"),
        ),
    ])?;
    let (partitions, selector) = args.partition.load()?;
    let selection = partitions.select(selector.as_ref())?;
    if args.no_checkpoint && args.probes.is_empty() {
        return Err(Error::Refused(
            "--no-checkpoint fits the probe timings again with the killed runs' units added, and a model file holds no timings: give the probe timings as PROBES instead of --model".into(),
        ));
    }

    let tasks = read_timings_warned(&args.timings)?;
    // One file read is named; several are named by the flag.
    let timings_origin = match tasks.sources.as_slice() {
        [one] => one.clone(),
        _ => Origin::Argument("--timings".into()),
    };
    resume::check_tasks(&tasks, args.units, timings_origin)?;
    // Nothing read is a wrong path, not a campaign without killed tasks.
    if tasks.runs.is_empty() {
        return Err(Error::input(
            Origin::Argument("--timings".into()),
            None,
            match tasks.sources.len() {
                0 => "no timings file was read (see the warnings above); expected the campaign tasks' probe timings (calib probe's CSV files, or their folder)",
                _ => "the files hold no run; expected the campaign tasks' probe timings (calib probe's CSV files, or their folder)",
            },
        ));
    }
    let sacct = match (&args.sacct, &args.jobs) {
        (Some(value), _) => {
            let (text, origin) = read_text_argument(value, "--sacct", &crate::limits::TABLE)?;
            Some((
                parse_sacct(&text, &origin, &SacctOptions::default())?,
                origin,
            ))
        }
        (None, Some(jobs)) => Some(
            SacctQuery {
                jobs: Some(jobs.clone()),
                since: None,
                names: None,
            }
            .run()?,
        ),
        (None, None) => None,
    };
    let sacct = match sacct {
        Some((table, origin)) => {
            for warning in check_columns(&table, &origin)? {
                output::warn(warning);
            }
            Some(table)
        }
        None => None,
    };
    let mut selected = resume::select(&tasks, sacct.as_ref(), args.units);
    resume::refuse_resumed_runs(&tasks, &selected, args.units)?;
    if !selected.tasks.is_empty() {
        selected
            .notes
            .push(crate::note::Note::FirstRunsOnly { units: args.units });
    }

    let model = if args.probes.is_empty() {
        load_model_file(args.model.as_deref(), "the probe timings as PROBES")?
    } else {
        let probes = read_timings_warned(&args.probes)?;
        if args.no_checkpoint {
            resume::refit_with(&probes, &selected.tasks)?
        } else {
            fit_timings(&probes, &FitOptions::default())?.model
        }
    };
    let options = ResumeOptions {
        units: args.units,
        confidence: args.confidence,
        checkpoint: !args.no_checkpoint,
        calibration: crate::commands::input::calibration_table(
            args.calibration.as_deref(),
            args.confidence,
        )?,
    };
    let plan = resume::plan(&model, &selection, selected, &options)?;
    let grid = match &args.grid {
        None => None,
        Some(path) if !is_campaign_grid(path) => {
            return Err(Error::Refused(format!(
                "--grid {}: give the campaign grid (.toml) the tasks derive their cell from; a sizes CSV gives no cells",
                path.display()
            )))
        }
        Some(path) => {
            resume::check_grid(&plan, &Grid::load(path)?, &path.display().to_string())?;
            Some(GridDerivation::for_grid(path)?)
        }
    };
    let job_scripts = match &args.script_dir {
        Some(dir) => Some(resume::job_scripts_in(&plan, Path::new(dir))?),
        None => None,
    };
    let context = ExportContext {
        script: args.script.clone(),
        job_scripts,
        grid,
        name_partition: match args.name_partition {
            NamePartition::Always => true,
            NamePartition::Never => false,
            NamePartition::Auto => !selection.is_one_bucket_family(),
        },
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        explain: args.explain,
    };
    let export = |out: &mut dyn std::io::Write| args.format.exporter().export(&plan, &context, out);
    match args.format {
        Format::Table => output::write_table(export)?,
        _ => output::write_result(export)?,
    }
    if plan.strata.is_empty() {
        output::note("no killed task to resubmit (see the tasks left out, if any)");
    }
    let refused = plan.refused();
    if !refused.is_empty() {
        output::note(format_args!(
            "{} no resubmission: {}; see the notes",
            output::count(refused.len() as u64, "stratum gets", "strata get"),
            refused
                .iter()
                .map(|s| s.stratum.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Ok(EXIT_OVER_CAP);
    }
    Ok(0)
}
