//! `calib stage`: write the smoke submission and the stage-2 trigger before
//! anything runs; `calib stage check`: evaluate the trigger afterwards.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::audit::SacctQuery;
use crate::campaign::export;
use crate::campaign::stage::{evaluate, find_smoke_job, stage, StagePlan, Trigger};
use crate::commands::flags;
use crate::commands::input::read_text_argument;
use crate::error::{Error, Origin, Result, EXIT_CHECK_FAILED};
use crate::output;
use crate::shell::text_argument;
use crate::slurm::sacct::{parse_sacct, SacctOptions};
use crate::slurm::time::{parse_time, SlurmTime};

/// The description `--help` and the manual page show.
pub const LONG_ABOUT: &str = "\
Stage a campaign: a two-task smoke first, and the stage-2 trigger written before it runs

Writes, into --out-dir, before anything runs: stage1-smoke.sh, the smoke submission (two \
tasks of one stratum at a few units, the same script, the same grid and the same \
`calib grid cell` derivation of tags and output paths as stage 2; two, because one task \
cannot collide with anything), and stage2-trigger.toml, the checks stage 2 waits for, each \
with what its failure means, and the stage-2 submission itself (the output of `calib \
budget --grid GRID --format sbatch`, as command lines: its sbatch lines must run --script \
and export this grid as CALIB_GRID; job scripts from --script-dir are refused). Existing files are never overwritten, and a smoke \
whose output paths exist already (an earlier run's files) is refused.

Then `calib stage check TRIGGER --job ID` evaluates the checks against sacct and the \
smoke's files, and prints the stage-2 submission only when all pass. Stage 1 shows that \
the pipeline works; its numbers are not results, nor estimates of them.";

const AFTER_HELP: &str = "\
Examples:
  calib stage grid.toml --script train.sh --stage2 @stage2.sh --out-dir stage
  calib stage grid.toml --script train.sh --stage2 @stage2.sh --out-dir stage2 \\
      --stratum dataset=X,model=7B --smoke-units 2 --records 1 --field seed

Where stage2.sh comes from:
  calib budget --model calib-model.json --grid grid.toml --partitions @partitions.txt \\
      --format sbatch --script train.sh > stage2.sh

The output: the files written, the smoke's stratum, tasks and units, the checks, and the \
two commands to run next (submit the smoke; check the trigger).";

/// Arguments of `calib stage`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
pub struct StageArgs {
    #[command(subcommand)]
    pub check: Option<StageAction>,

    #[command(flatten)]
    pub plan: Option<PlanArgs>,
}

#[derive(Debug, Subcommand)]
pub enum StageAction {
    /// Evaluate the stage-2 trigger; print stage 2 only when every check passes.
    #[command(long_about = CHECK_ABOUT, after_long_help = CHECK_AFTER_HELP)]
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The grid file (TOML; see `calib grid --help`).
    #[arg(value_name = "GRID", required = true)]
    pub grid: Option<PathBuf>,

    /// Your batch script, the one stage 2 runs.
    ///
    /// Your batch script, the one stage 2 runs; it derives its cell with
    /// `calib grid cell "$CALIB_GRID" --stratum "$CALIB_STRATUM" --index
    /// "$SLURM_ARRAY_TASK_ID"`.
    #[arg(long, value_name = "FILE", required = true, value_parser = text_argument)]
    pub script: Option<String>,

    /// The stage-2 submission, as `calib budget --format sbatch` printed it.
    ///
    /// The stage-2 submission: what `calib budget --grid GRID --format sbatch`
    /// printed, as the text itself, @FILE, or - for standard input. Comments,
    /// blank lines and `sbatch` lines only (another line is refused); each
    /// `sbatch` line must submit a stratum of the grid within its cells. The
    /// trigger keeps each line written again from the words calib read (a
    /// `$(...)` inside a word is text then, not a command).
    #[arg(long, value_name = "SBATCH", required = true)]
    pub stage2: Option<String>,

    /// The folder for the smoke script, the trigger and logs/.
    ///
    /// The folder to write stage1-smoke.sh, stage2-trigger.toml and logs/ into
    /// (created if missing; files there are never overwritten). The smoke's
    /// `--output` names logs/ as a sbatch filename pattern: a `%` in the path
    /// is written `%%`, and a `\` is refused (sbatch would then fill in
    /// neither %A nor %a).
    #[arg(long, value_name = "DIR", required = true)]
    pub out_dir: Option<PathBuf>,

    /// The smoke's stratum [default: the cheapest with two cells].
    ///
    /// The smoke's stratum. Default: of the grid's strata with two cells, the
    /// cheapest per unit by stage 2's `--time` (the first with two cells when
    /// stage 2's lines give no time).
    #[arg(long, short = 's', value_name = "STRATUM")]
    pub stratum: Option<String>,

    /// Units each smoke task runs.
    ///
    /// Units each smoke task runs (exported as CALIB_UNITS): minimum scale.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub smoke_units: u64,

    /// The smoke's --time (minutes, or H:MM:SS).
    ///
    /// The smoke's --time, as sbatch reads it (minutes, or H:MM:SS). A warning
    /// says when stage 2's own --time per unit, times --smoke-units, is more.
    #[arg(long, value_name = "TIME", default_value = "10")]
    pub smoke_time: String,

    /// Records each smoke task's output file must hold.
    ///
    /// Records (non-empty lines) each smoke task's output file must hold.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub records: u64,

    /// A text every record must contain (a field name, e.g. loss); repeatable.
    #[arg(long = "field", value_name = "TEXT", value_parser = text_argument)]
    pub fields: Vec<String>,
}

const CHECK_ABOUT: &str = "\
Evaluate the stage-2 trigger; print stage 2 only when every check passes

Reads the trigger that `calib stage` wrote, finds the smoke array in sacct (by --job, or \
in pasted sacct text, by the smoke's job name), and checks: every smoke task COMPLETED; \
each task's output path exists and was written after the trigger (a file an earlier run \
left does not count), the files are distinct, each holds the expected records; each \
task's log holds its derived config line. Prints each check with pass or FAIL and, \
for a failure, what it means, as the trigger stated it before stage 1 ran.";

const CHECK_AFTER_HELP: &str = "\
Examples:
  calib stage check stage/stage2-trigger.toml --job 4242
  calib stage check stage/stage2-trigger.toml --sacct @sacct.txt

The output: a table of the checks (name, pass or FAIL, what was found); under it, each \
failure's interpretation. When every check passes: `stage 1 passed: the pipeline works` \
and the stage-2 submission to run (one array per stratum). Exit status 0 when every \
check passes, 3 when one fails, 2 for bad input.";

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The trigger written by `calib stage` (stage2-trigger.toml).
    #[arg(value_name = "TRIGGER")]
    pub trigger: PathBuf,

    /// The smoke array's job id: calib runs `sacct -P -X -j ID` itself.
    #[arg(long, short = 'j', value_name = "ID", conflicts_with = "sacct", value_parser = flags::job_id)]
    pub job: Option<String>,

    /// `sacct -P -X` output with its header line (the columns of `calib
    /// audit`), as the text itself, @FILE, or - for standard input.
    #[arg(long, value_name = "SACCT")]
    pub sacct: Option<String>,
}

fn run_plan(args: &PlanArgs) -> Result<i32> {
    // All four are `required`: clap has refused their absence already.
    let (Some(grid), Some(script), Some(stage2), Some(out_dir)) =
        (&args.grid, &args.script, &args.stage2, &args.out_dir)
    else {
        return Err(Error::Refused(
            "give GRID, --script, --stage2 and --out-dir".into(),
        ));
    };
    // The shared parser says what is wrong (a text outside the grammar, or a
    // value beyond what Slurm accepts, with the bound); what is left is a
    // time that means no limit, which a smoke must not ask for.
    let smoke_time =
        |message: String| Error::input(Origin::Argument("--smoke-time".into()), None, message);
    let smoke_s = match parse_time(&args.smoke_time) {
        Ok(SlurmTime::Limited(s)) if s > 0 => s,
        Ok(_) => {
            return Err(smoke_time(format!(
                "`{}` means no limit to sbatch; expected a finite --time (e.g. 10 or 0:10:00)",
                args.smoke_time
            )))
        }
        Err(e) => return Err(smoke_time(e.to_string())),
    };
    let (text, origin) = read_text_argument(stage2, "--stage2", &crate::limits::GRID)?;
    let plan = StagePlan {
        grid_path: grid.clone(),
        script: script.clone(),
        stage2: text,
        stage2_origin: origin,
        out_dir: out_dir.clone(),
        stratum: args.stratum.clone(),
        smoke_units: args.smoke_units,
        smoke_time: args.smoke_time.clone(),
        smoke_s,
        records: args.records,
        fields: args.fields.clone(),
        created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let staged = stage(&plan)?;
    staged.write()?;
    for warning in &staged.warnings {
        output::warn(warning);
    }
    output::write_result(|out| export::write_staged(&staged, out))?;
    Ok(0)
}

fn run_check(args: &CheckArgs) -> Result<i32> {
    let trigger = Trigger::load(&args.trigger)?;
    let (table, _origin) = match (&args.sacct, &args.job) {
        (Some(text), _) => {
            let (text, origin) = read_text_argument(text, "--sacct", &crate::limits::TABLE)?;
            (
                parse_sacct(&text, &origin, &SacctOptions::default())?,
                origin,
            )
        }
        (None, Some(job)) => SacctQuery {
            jobs: Some(job.clone()),
            ..SacctQuery::default()
        }
        .run()?,
        (None, None) => {
            return Err(Error::Refused(
                "give the smoke array's job id (--job ID) or sacct's text (--sacct @FILE)".into(),
            ))
        }
    };
    let smoke = find_smoke_job(&trigger, &table)?;
    let outcomes = evaluate(&trigger, &smoke);
    let passed = outcomes.iter().all(|o| o.passed);
    output::write_table(|out| export::write_check(&trigger, &outcomes, out))?;
    if passed {
        Ok(0)
    } else {
        output::note("stage 2 is not printed: a check failed; fix what it says, then stage again");
        Ok(EXIT_CHECK_FAILED)
    }
}

pub fn run(args: &StageArgs) -> Result<i32> {
    match (&args.check, &args.plan) {
        (Some(StageAction::Check(check)), _) => run_check(check),
        (None, Some(plan)) => run_plan(plan),
        (None, None) => Err(Error::Refused(
            "give a grid file (calib stage GRID --script ... --stage2 ... --out-dir ...) or `check TRIGGER`".into(),
        )),
    }
}
