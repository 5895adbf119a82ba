//! The command line: one subcommand per step of the pipeline.

use clap::{Parser, Subcommand};

use crate::commands;
use crate::error::Result;

const ABOUT: &str = "Measure, fit and budget Slurm walltimes, per stratum.";

const LONG_ABOUT: &str = "\
calib sizes `sbatch --time` from measurements taken on the cluster that will run the \
work, so that no task is killed at 90% by its walltime and no task queues in a scarcer \
partition than it needs.

The pipeline:
  1. calib probe  --stratum dataset=Y -- ./train --epochs 5     (on a compute node)
  2. calib fit    calib-timings/ -o calib-model.json
  3. calib budget --model calib-model.json --units 100 --partitions \"$(sinfo -h -o '%P %l')\"
  4. calib audit  (after the campaign: what each task really used, from sacct)

A unit is the smallest repeated piece of work (a generation, an epoch, a batch). A \
stratum is a set of key=value labels whose cells are expected to cost alike; calib \
gives each stratum its own --time and its own array submission.";

const AFTER_HELP: &str = "\
Exit status: 0 success; 1 a failure of the system or of a command calib ran; \
2 bad input, bad usage, or a refusal (the message says what to do); \
3 calib budget, calib resume: a stratum cannot fit under any partition's cap, or its probe cannot support a time; calib stage check: a check failed. \
calib probe exits with the status of the command it ran.";

#[derive(Debug, Parser)]
#[command(name = "calib", version, about = ABOUT, long_about = LONG_ABOUT, after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the real command briefly and record every unit as it finishes.
    #[command(long_about = commands::probe::LONG_ABOUT)]
    Probe(Box<commands::probe::ProbeArgs>),
    /// Fit per-stratum cost models to timings files.
    #[command(long_about = commands::fit::LONG_ABOUT)]
    Fit(Box<commands::fit::FitArgs>),
    /// Turn a model into one --time per stratum, rounded into partition buckets.
    #[command(long_about = commands::budget::LONG_ABOUT)]
    Budget(Box<commands::budget::BudgetArgs>),
    /// Read sacct afterwards: what each task really used of its budget.
    #[command(long_about = commands::audit::LONG_ABOUT)]
    Audit(Box<commands::audit::AuditArgs>),
    /// Resubmit tasks killed by their walltime, with the time the rest of each run needs.
    #[command(long_about = commands::resume::LONG_ABOUT)]
    Resume(Box<commands::resume::ResumeArgs>),
    /// Hold out whole runs and check how the budget from shorter probes covers them.
    #[command(long_about = commands::backtest::LONG_ABOUT)]
    Backtest(Box<commands::backtest::BacktestArgs>),
    /// Build the calibration table from probes and the full runs that followed.
    #[command(long_about = commands::calibrate::LONG_ABOUT)]
    Calibrate(Box<commands::calibrate::CalibrateArgs>),
    /// Derive every task's cell, tag and output path from a grid file.
    #[command(long_about = commands::grid::LONG_ABOUT)]
    Grid(Box<commands::grid::GridArgs>),
    /// Stage a campaign: a two-task smoke, and the stage-2 trigger written first.
    #[command(long_about = commands::stage::LONG_ABOUT)]
    Stage(Box<commands::stage::StageArgs>),
    /// Print the completion script for a shell (bash, zsh, fish, ...).
    Completions(commands::completions::CompletionsArgs),
    /// Print a manual page in roff: calib(1), or one subcommand's.
    Man(commands::man::ManArgs),
}

/// A usage error as calib reports it: clap's message, with a tip where the
/// mistake is a common one that clap cannot name. Forgetting `--` before the
/// probed command is the one users make first (`calib probe -o runs python3
/// train.py`), and clap can only say that `python3` is unexpected.
pub fn usage_error(mut error: clap::Error, args: &[std::ffi::OsString]) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let probing = args.get(1).is_some_and(|a| a == "probe");
    if error.kind() == ErrorKind::UnknownArgument
        && probing
        && !args.iter().any(|a| a == "--")
        && error.get(ContextKind::Suggested).is_none()
    {
        if let Some(ContextValue::String(word)) = error.get(ContextKind::InvalidArg) {
            let tip = format!(
                "the command to probe goes after `--`: calib probe [OPTIONS] -- {word} ..."
            );
            error.insert(
                ContextKind::Suggested,
                ContextValue::StyledStrs(vec![tip.into()]),
            );
        }
    }
    error
}

// The arguments are boxed: they differ a lot in size, and clippy would rather
// not move a large enum around for a value parsed once.

/// Runs the chosen subcommand; returns the process exit status.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Probe(args) => commands::probe::run(&args),
        Command::Fit(args) => commands::fit::run(&args),
        Command::Budget(args) => commands::budget::run(&args),
        Command::Audit(args) => commands::audit::run(&args),
        Command::Resume(args) => commands::resume::run(&args),
        Command::Backtest(args) => commands::backtest::run(&args),
        Command::Calibrate(args) => commands::calibrate::run(&args),
        Command::Grid(args) => commands::grid::run(&args),
        Command::Stage(args) => commands::stage::run(&args),
        Command::Completions(args) => commands::completions::run(&args),
        Command::Man(args) => commands::man::run(&args),
    }
}
