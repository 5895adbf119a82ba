//! `calib probe`: its flags, each documented where it is defined, and the
//! function that turns them into a checked [`ProbeConfig`] and runs it.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::{Error, Origin, Result};
use crate::probe::duration::parse_duration;
use crate::probe::marker::{UnitMatcher, DEFAULT_UNIT_REGEX};
use crate::probe::progress::ProgressMode;
use crate::probe::{gate, plan, probe, ProbeConfig};
use crate::shell::text_argument;
use crate::stratum::Stratum;

/// The description `--help` and the manual page show (set on the subcommand
/// in `crate::cli`, where the one-line `about` comes from).
pub const LONG_ABOUT: &str = "\
Run the real command briefly and record every unit as it finishes

Run it on the node that will run the campaign: calib records one row per finished unit \
in this task's own timings file (the input of `calib fit`).

calib runs CMD directly (no shell unless you write one), passes its stdout and stderr \
through unchanged, and counts a unit each time a line of either matches --unit-regex. \
Each row is on disk before the next unit can finish, so a walltime kill loses nothing \
already measured. The file is named after the Slurm job and array task, the stratum, \
the host and the pid, and created exclusively: 64 array tasks write 64 files.

CMD runs in its own process group (unless stdin is a terminal), and whatever stops it \
stops what it started too: --units, --timeout, a TERM or INT sent to calib, and calib \
being killed outright (then a small watchdog process sends the group TERM, and KILL \
after --grace). When CMD exits, processes of its group still running (work it started \
in the background) are stopped the same way, and the run's summary line says how many: \
what they had not finished is lost, and their output is recorded for at most 2 s after \
CMD's exit; a command that hands work to background processes should wait for them.

On a login node (Slurm commands present, no SLURM_JOB_ID) calib refuses and shows the \
salloc line to use instead. calib exits with CMD's status (128+signal if it was killed), \
or 0 when it stopped CMD itself after --units; 1 when no unit was recorded (CMD exited 0 \
or --timeout stopped it first).";

const AFTER_HELP: &str = "\
Examples:
  # 5 epochs of the real training run, in an interactive allocation:
  calib probe --stratum dataset=Y,model=7B --units 5 -- python train.py --data Y

  # one probe per array task (4 seeds of one stratum); each task writes its own file:
  sbatch --array=0-3 --time=30 --wrap \\
      'calib probe -s dataset=Y --units 10 -- ./evolve --data Y --seed $SLURM_ARRAY_TASK_ID'

  # three seeds, run one after the other; {rep} becomes 1, 2, 3:
  calib probe -s dataset=Y --repeat 3 --units 7 -- ./evolve --seed {rep}

  # a program that prints its own marker:
  calib probe -s size=L --unit-regex '^DONE batch' -- ./solve big.cfg

  # run-length mode: whole runs of 100 and 1000 units, one row each:
  calib probe -s dataset=Y --lengths 100,1000 -- ./sim --steps {units}

  # a shell pipeline is a command like any other:
  calib probe -s n=1e6 --timeout 10m -- sh -c './gen | ./reduce'

  # try it anywhere (3 seconds, so --allow-login is fine): a loop printing `epoch N`:
  calib probe -s demo=1 --units 3 --allow-login -- sh -c \\
      'for i in 1 2 3 4 5; do echo \"epoch $i\"; sleep 1; done'

The output: in --out, one timings file per probe task (the input of calib fit): a row \
per finished unit (run, stratum, unit, elapsed_s since the run's start, unit_s, and the \
host, cluster, CPU, GPUs, job id and partition it ran on), then a last row whose `end` \
column says how the run stopped: exit:CODE, signal:NAME, or limit when calib stopped it \
after --units. CMD's output passes through unchanged; calib's own lines go to stderr.

Then: calib fit calib-timings/ -o calib-model.json";

/// Arguments of `calib probe`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ProbeArgs {
    /// The stratum of this run, as key=value labels (repeatable).
    ///
    /// The stratum this run belongs to, as key=value labels: the axes along which
    /// cost varies (dataset, model size, problem size). Repeatable; labels are
    /// merged. Every row carries it, and calib budgets each stratum on its own.
    /// Example: --stratum dataset=Y,model=7B
    #[arg(short = 's', long, value_name = "K=V[,K=V]", value_parser = text_argument)]
    pub stratum: Vec<String>,

    /// Which output lines mark a finished unit (default: `epoch 3`, CALIB_UNIT...).
    ///
    /// Which output lines mark a finished unit: a regex tried on each line of
    /// stdout and stderr (a line ends at \n or \r; ^ and $ anchor at its ends; a
    /// line counts once however often it matches). The default matches common
    /// progress lines, a word then a number: `generation 12`, `epoch 3/100`,
    /// `Step: 400`, `iter 7`, and the explicit marker CALIB_UNIT (ASCII case
    /// ignored). Print the marker when a unit ends. A progress bar redrawn
    /// with \r counts once per label (tqdm's `Epoch 3: 45%|...` is one unit,
    /// counted when it first shows), a counter redrawn in place counts every
    /// value. If your program prints several kinds of progress lines, name the
    /// one that is your unit.
    /// Example: --unit-regex '^Epoch \d+ done'
    #[arg(short = 'u', long, value_name = "REGEX", conflicts_with = "lengths")]
    pub(crate) unit_regex: Option<String>,

    /// Stop each run after K units and exit 0: a long run, probed briefly.
    ///
    /// Stop the command after K units of each run (TERM, then KILL after
    /// --grace), record `end=limit` and exit 0: probe a long run briefly. A
    /// handful of units shows startup and per-unit cost; more show the trend.
    /// Example: --units 5
    #[arg(short = 'n', long, value_name = "K", value_parser = crate::commands::flags::count)]
    pub units: Option<u64>,

    /// Run the command R times, `{rep}` replaced by 1..R (seeds).
    ///
    /// Run the command R times, one after the other, each a run of its own (its
    /// own run id, same file). `{rep}` in the command becomes the repetition
    /// number, for seeds: runs of one stratum differ, and a budget must cover
    /// the slow one. Stops at the first run that fails.
    /// Example: --repeat 3 -- ./evolve --seed {rep}
    #[arg(long, value_name = "R", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub repeat: u64,

    /// The first value of `{rep}`.
    ///
    /// The first value of `{rep}` (then +1 for each repetition), to line probe
    /// seeds up with the campaign's. Example: --first-rep 0
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) first_rep: u64,

    /// Run-length mode: one whole run per length, `{units}` replaced by it.
    ///
    /// Run-length mode: run the whole command once per length, with `{units}`
    /// in the command replaced by the length, and record one row per run (unit =
    /// the length, elapsed_s = the whole run). For workloads whose cost per unit
    /// depends on how long the run is, measured at several lengths.
    /// Example: --lengths 100,1000 -- ./sim --steps {units}
    // At most MAX_COUNT: the length is the row's `unit`, which calib fit reads
    // up to that bound; a longer run would be run in full, then refused.
    #[arg(long, value_name = "L,L,...", value_delimiter = ',', conflicts_with = "units",
          value_parser = crate::commands::flags::count)]
    pub lengths: Vec<u64>,

    /// The folder for timings files.
    ///
    /// The folder for timings files (created if needed). Each probe task writes
    /// its own file there, never shared or overwritten; point `calib fit` at the
    /// folder. Example: --out $SCRATCH/calib-timings
    #[arg(short = 'o', long, value_name = "DIR", default_value = "calib-timings")]
    pub out: PathBuf,

    /// Stop the whole probe after DURATION (30 = 30 min, 1:30:00, 90s, 1.5h).
    ///
    /// Bound on the whole probe: when it is reached the command is stopped
    /// (TERM, then KILL after --grace) and calib exits with the command's
    /// status (1 if no unit was recorded). Slurm's --time grammar (30 = 30 minutes, 1:30:00, 1-00:00:00) or
    /// a number with a unit: 90s, 10m, 1.5h, 2d. Example: --timeout 15m
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,

    /// Time from calib's TERM to its KILL.
    ///
    /// Time between calib's TERM and its KILL when calib stops the command
    /// (--units, --timeout, a TERM, INT, HUP or QUIT sent to calib, or calib
    /// killed outright), or the processes it left running when it exited (the
    /// summary line counts them), so that they can flush and exit cleanly.
    /// Same grammar as --timeout. Example: --grace 30s
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub grace: String,

    /// Echo the first N unit lines of each run.
    ///
    /// How many of the first marker lines of each run to echo on stderr, so you
    /// can check what was counted as a unit. Example: --show-units 0
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub(crate) show_units: usize,

    /// Leave Python's output buffering alone (calib sets PYTHONUNBUFFERED=1).
    ///
    /// Leave Python's output buffering alone. By default calib sets
    /// PYTHONUNBUFFERED=1 for the command (unless already set), because a
    /// block-buffered stdout delivers markers late and in bursts and falsifies
    /// unit times; for a program that prints a great many lines this costs one
    /// write per line.
    #[arg(long)]
    pub(crate) keep_buffering: bool,

    /// Progress display on stderr: auto, live or plain.
    ///
    /// Progress display on stderr: `auto` shows a live status line (units done,
    /// last unit's time, trend) when stderr is a terminal, and only a start and
    /// a summary line per run otherwise (a Slurm log); `live` and `plain` force
    /// one or the other.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value = "auto",
        hide_possible_values = true
    )]
    pub progress: ProgressMode,

    /// Probe even on what looks like a login node.
    ///
    /// Probe even on what looks like a login node (Slurm commands on PATH, no
    /// SLURM_JOB_ID). Login nodes are shared: use it for seconds of work at most.
    #[arg(long)]
    pub(crate) allow_login: bool,

    /// The command to probe, after `--`; run directly, not through a shell.
    ///
    /// The command to probe and its arguments, after `--`. Run directly, not
    /// through a shell; write `sh -c '...'` for pipes or redirections.
    #[arg(last = true, required = true, value_name = "CMD ARGS")]
    pub command: Vec<OsString>,
}

pub fn run(args: &ProbeArgs) -> Result<i32> {
    probe(&config_from(args)?)
}

/// Checks the flags and builds the probe's configuration.
pub(crate) fn config_from(args: &ProbeArgs) -> Result<ProbeConfig> {
    let mut stratum = Stratum::default();
    for text in &args.stratum {
        let part = Stratum::parse(text).map_err(|e| bad_stratum(text, &e))?;
        stratum.merge(&part).map_err(|e| bad_stratum(text, &e))?;
    }
    // Every row carries the stratum: past a quarter of the longest line
    // calib reads (its quotes may double it), `calib fit` would refuse the
    // rows this probe wrote.
    let stratum_bytes = stratum.canonical().len();
    if stratum_bytes > crate::limits::MAX_LINE_BYTES / 4 {
        return Err(Error::input(
            Origin::Argument("--stratum".into()),
            None,
            format!(
                "the stratum's labels are {stratum_bytes} bytes long; expected at most {} \
                 (every row carries them, and calib reads lines of at most 1 MiB): name the \
                 configuration by short labels",
                crate::limits::MAX_LINE_BYTES / 4
            ),
        ));
    }
    if args.first_rep.checked_add(args.repeat).is_none() {
        // Named by the flag that took the sum past 2^64, the larger.
        let flag = if args.first_rep > args.repeat {
            "--first-rep"
        } else {
            "--repeat"
        };
        return Err(Error::input(
            Origin::Argument(flag.into()),
            None,
            format!(
                "--first-rep {} + --repeat {} is past 2^64; expected repetition numbers below 2^64",
                args.first_rep, args.repeat
            ),
        ));
    }
    // One run per length and repetition, named by both: a length given twice
    // would write two runs under one name, which calib fit refuses.
    if let Some(twice) = args
        .lengths
        .iter()
        .enumerate()
        .find_map(|(i, l)| args.lengths[..i].contains(l).then_some(l))
    {
        return Err(Error::input(
            Origin::Argument("--lengths".into()),
            None,
            format!(
                "{twice} is given twice; expected distinct lengths (for more runs of one length, use --repeat)"
            ),
        ));
    }
    let matcher = UnitMatcher::new(args.unit_regex.as_deref().unwrap_or(DEFAULT_UNIT_REGEX))?;
    let timeout = match &args.timeout {
        Some(text) => parse_duration("--timeout", text)?,
        None => None,
    };
    if timeout.is_some_and(|t| t.is_zero()) {
        return Err(Error::input(
            Origin::Argument("--timeout".into()),
            None,
            "a timeout of 0 would stop the command at once; give a duration such as 10m",
        ));
    }
    let grace = parse_duration("--grace", &args.grace)?.ok_or_else(|| {
        Error::input(
            Origin::Argument("--grace".into()),
            None,
            "the grace period must be finite (e.g. 10s)",
        )
    })?;
    let command_line = gate::shell_join(
        &std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
    );
    let config = ProbeConfig {
        command: args.command.clone(),
        stratum,
        out: args.out.clone(),
        matcher,
        units: args.units,
        repeat: args.repeat,
        first_rep: args.first_rep,
        lengths: args.lengths.clone(),
        timeout,
        grace,
        show_units: args.show_units,
        unbuffered: !args.keep_buffering,
        progress: args.progress,
        allow_login: args.allow_login,
        command_line,
    };
    plan::check(&config)?;
    Ok(config)
}

fn bad_stratum(text: &str, why: &str) -> Error {
    Error::input(
        Origin::Argument("--stratum".into()),
        None,
        // The reason may quote the whole text already (a single label).
        match why.starts_with(&format!("`{text}`")) {
            true => format!("{why}; expected key=value labels such as dataset=Y,model=7B"),
            false => {
                format!("`{text}`: {why}; expected key=value labels such as dataset=Y,model=7B")
            }
        },
    )
}
