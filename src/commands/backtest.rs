//! `calib backtest`: hold out whole runs, budget from the rest cut to a probe
//! design, and report how often and by how much the budget covered them. The
//! method lives in `crate::backtest`.

use std::path::PathBuf;

use crate::backtest::export::Format;
use crate::backtest::{self, BacktestOptions, ProbeDesign, ProbeLength};
use crate::commands::flags;
use crate::commands::input::read_timings_warned;
use crate::error::Result;
use crate::fit::FitOptions;
use crate::output;

/// The description `--help` and the manual page show (set on the subcommand
/// in `crate::cli`, where the one-line `about` comes from).
pub const LONG_ABOUT: &str = "\
Hold out whole runs and check how the budget from shorter probes covers them

It answers \"how short may my probe be?\" on your own data: record a few runs to their \
full length (plus, if you like, probes stopped by --units), then try probe designs.

A run is full-length when it ended by itself with status 0 (its `end` row is exit:0), \
or when it reached the stratum's largest unit count and calib stopped it there (`end` \
row limit: `calib probe --units N`) or it has no end row. A run that failed or was \
killed (exit:1, signal:KILL) is never held out, however far it got. Each full run is \
held out in turn; the probe runs come from the other runs of its stratum that reach the \
design's length and have a row within it (a run whose early rows are missing is passed \
over for the next), cut to that length. The budget is the upper bound at --confidence, scored in seconds \
before rounding to Slurm's minutes.";

const AFTER_HELP: &str = "\
Examples:
  calib backtest timings/ --probe-units 10 --seeds 3
  calib backtest timings/ --probe-fraction 0.1 --seeds 2 --long-run 0.3
  calib backtest timings/ --probe-units recorded --format csv > trials.csv
  calib backtest data/traces/xz/full --probe-units 10   (full runs in the repository)

The output: the probe design, then the table gives per stratum the held-out runs, how \
many the budget covered, and the headroom (budget / the held-out run's time; below \
1.00x the run would have been killed): median, worst and largest; then, for the \
baselines (mean rate x N, the same x1.5, the last quarter's rate x N), how many they \
covered and their median headroom. Under it, the campaign's coverage beside the stated \
confidence. --format csv gives one row per held-out run.";

/// Arguments of `calib backtest`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct BacktestArgs {
    /// Timings files or folders (every *.csv inside) holding full-length runs.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Probe length: the first K units of each run, or `recorded`.
    ///
    /// Probe length: the first K units of each probe run, or `recorded` for the
    /// probe runs as they were recorded (runs stopped by `calib probe --units`).
    /// Example: `--probe-units 10`.
    #[arg(long, value_name = "K|recorded", value_parser = parse_probe_units,
          conflicts_with = "probe_fraction", required_unless_present = "probe_fraction")]
    pub probe_units: Option<ProbeLength>,

    /// Probe length as a fraction of the held-out run's length.
    ///
    /// Probe length as a fraction of the held-out run's length N, in (0, 1).
    /// Example: `--probe-fraction 0.1` probes 10 units of a 100-unit run.
    #[arg(long, value_name = "F", value_parser = parse_fraction)]
    pub(crate) probe_fraction: Option<f64>,

    /// How many probe runs (seeds) the budget may use.
    ///
    /// How many probe runs (seeds) the budget may use. With `--probe-units
    /// recorded`, at most this many of each stratum's recorded probe runs (the
    /// first by run name); the design line says how many were used.
    #[arg(long, value_name = "S", default_value_t = 3,
          value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub seeds: u64,

    /// Take one probe run to this fraction of N (run-length probe).
    ///
    /// Take one of the probe runs to this fraction of N (the seed's run-length
    /// probe: one long run settles the trend). Example: `--long-run 0.3`.
    /// Never shorter than the other probe runs: with `--probe-units K` it has
    /// at least K units (where F x N is fewer); with `--probe-fraction`, F must
    /// be above that fraction. Not with `--probe-units recorded`, whose runs
    /// are used as recorded.
    #[arg(long, value_name = "F", value_parser = parse_fraction)]
    pub long_run: Option<f64>,

    /// Confidence of the budget's upper bound.
    ///
    /// One-sided confidence of the budget's upper bound, above 0.5 and below 1.
    #[arg(long, value_name = "P", default_value_t = crate::calibrate::DEFAULT_CONFIDENCE, value_parser = flags::confidence)]
    pub confidence: f64,

    /// The calibration table (see `calib budget --help`).
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,

    /// Output format: table, json or csv.
    ///
    /// `table` for people, `json` for programs, `csv` (one row per held-out run).
    #[arg(
        long,
        short = 'f',
        value_enum,
        default_value = "table",
        hide_possible_values = true
    )]
    pub format: Format,
}

fn parse_probe_units(text: &str) -> std::result::Result<ProbeLength, String> {
    if text == "recorded" {
        return Ok(ProbeLength::Recorded);
    }
    match text.parse::<u64>() {
        Ok(k) if k >= 1 => Ok(ProbeLength::Units(k)),
        _ => Err(format!(
            "expected a number of units (1 or more) or `recorded`, found {text:?}"
        )),
    }
}

fn parse_fraction(text: &str) -> std::result::Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if f > 0.0 && f < 1.0 => Ok(f),
        _ => Err(format!(
            "expected a fraction in (0, 1), e.g. 0.1; found {text:?}"
        )),
    }
}

pub fn run(args: &BacktestArgs) -> Result<i32> {
    let timings = read_timings_warned(&args.paths)?;
    let length = match (args.probe_units, args.probe_fraction) {
        (Some(length), _) => length,
        (None, Some(f)) => ProbeLength::Fraction(f),
        (None, None) => unreachable!("clap requires one of them"),
    };
    let options = BacktestOptions {
        design: ProbeDesign {
            length,
            seeds: args.seeds as usize,
            long_run: args.long_run,
        },
        confidence: args.confidence,
        fit: FitOptions {
            confidence: args.confidence,
            ..FitOptions::default()
        },
        calibration: crate::commands::input::calibration_table(
            args.calibration.as_deref(),
            args.confidence,
        )?,
    };
    let report = backtest::backtest(&timings, &options)?;
    let export =
        |out: &mut dyn std::io::Write| backtest::export::exporter(args.format).export(&report, out);
    match args.format {
        Format::Table => output::write_table(export)?,
        Format::Json | Format::Csv => output::write_result(export)?,
    }
    Ok(0)
}
