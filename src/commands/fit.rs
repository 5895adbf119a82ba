//! `calib fit`: read timings, fit a cost model per stratum, print the table, write
//! the model file and (optionally) a plot. The statistics live in `crate::fit`.

use std::path::PathBuf;

use crate::atomic::same_file;
use crate::commands::flags;
use crate::commands::input::refuse_overwriting_inputs;
use crate::error::{Error, Origin, Result};
use crate::fit::{self, FitOptions};
use crate::output::{self, Format};
use crate::timings::{read_as_timings, read_timings, IngestOptions, TimeColumnKind};

/// The description `--help` and the manual page show (set on the subcommand
/// in `crate::cli`, where the one-line `about` comes from).
pub const LONG_ABOUT: &str = "\
Fit per-stratum cost models to timings files

Per stratum, calib fits the probe's per-unit cost over the second half of each run as a \
power of the unit index, shared by the runs, each run at its own pace, and projects each \
run to N units; calib budget multiplies the slowest run's projection by a factor measured \
on real programs. Warnings go to stderr and say what to do. Bad input exits with status \
2, naming the file and line.";

const AFTER_HELP: &str = "\
Examples:
  calib fit calib-timings/ -o calib-model.json
  calib fit calib-timings/ --units 100 --plot cost.png
  calib fit runs.csv --by dataset,model --run-col seed --unit-col epoch --time-col seconds \\
      --per-unit
  cat timings.csv | calib fit - --format json

The output: the table gives per stratum the runs and units probed, the per-unit cost at \
the first and the last probed unit and its trend, the centre's shape, and the mean-rate \
shortfall: the predicted time of a run divided by the \
probe's mean time per unit times its units (above 1.00x, a --time sized from the plain \
mean would be too short). With --units N it adds the projection of an N-unit run as \
calib budget computes it: predicted, measured cost (the slowest run's projection, below \
which no --time goes) and upper bound. A footnote under the table says the same.";

/// Arguments of `calib fit`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct FitArgs {
    /// Timings files or folders; `-` reads standard input.
    ///
    /// Timings files or folders (every *.csv inside); `-` reads standard input.
    /// CSV only: a Parquet table is refused with a command that converts it.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Write the model here (atomically).
    ///
    /// Write the model (calib-model.json) here, atomically: a temporary file in the
    /// same folder renamed over the target, so a reader never sees half a file.
    /// A file replaced keeps its mode; a write-protected one (chmod a-w) is
    /// refused. Example: `-o calib-model.json`, then `calib budget --model
    /// calib-model.json`.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Length of the run to budget: adds the projection at N.
    ///
    /// Length of the run to budget, in units: adds the projection at N (predicted,
    /// measured cost, upper bound) to the table and warns when N is far beyond the probe.
    /// Example: `--units 100` for 100 generations.
    #[arg(long, value_name = "N", value_parser = flags::count)]
    pub units: Option<u64>,

    /// Draw each stratum into a PNG or SVG file.
    ///
    /// Draw each stratum into a PNG or SVG file (chosen by the extension), two
    /// panels: the time of a run against its units, each probe run as measured
    /// with the projection of a new run up to --units (predicted, the band up to
    /// the upper bound at --confidence, the measured cost); and the per-unit cost
    /// of each run with the fitted curve, for the first 36 strata. A file there
    /// is replaced. Example: `--units 100 --plot fit.svg`.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,

    /// The calibration table for the projection at --units.
    ///
    /// The calibration table for the projection at --units, as `calib budget
    /// --calibration` takes it.
    #[arg(long, value_name = "FILE")]
    pub calibration: Option<PathBuf>,

    /// Output format: table or json.
    ///
    /// `table` for people, `json` for programs (the model file's content plus the
    /// projections and warnings).
    #[arg(
        long,
        short = 'f',
        value_enum,
        default_value = "table",
        hide_possible_values = true
    )]
    pub format: Format,

    /// Confidence of the upper bound shown.
    ///
    /// One-sided confidence of the upper bound shown, above 0.5 and below 1. `calib budget`
    /// uses its own --confidence on the model file. Example: `--confidence 0.95`.
    #[arg(long, default_value_t = crate::calibrate::DEFAULT_CONFIDENCE, value_name = "P", value_parser = flags::confidence)]
    pub confidence: f64,

    /// Columns whose values become stratum labels.
    ///
    /// Columns whose values become stratum labels, for tables without a `stratum`
    /// column (or to split one further). Example: `--by dataset,model`.
    #[arg(long, value_delimiter = ',', value_name = "COL,...")]
    pub by: Vec<String>,

    /// The run identifier column of a foreign table.
    ///
    /// Name of the run identifier column in a foreign table. Example: `--run-col seed`.
    /// A run is its identifier within its stratum, so seeds numbered 0, 1, 2 in
    /// every configuration are distinct runs.
    #[arg(long, default_value = "run", value_name = "COL")]
    pub run_col: String,

    /// The unit index column (1-based).
    ///
    /// Name of the 1-based unit index column. Example: `--unit-col epoch`.
    #[arg(long, default_value = "unit", value_name = "COL")]
    pub unit_col: String,

    /// The time column, in seconds since the run's start.
    ///
    /// Name of the time column, in seconds: elapsed since the run's start unless
    /// --per-unit. Example: `--time-col wall_s`.
    #[arg(long, default_value = "elapsed_s", value_name = "COL")]
    pub time_col: String,

    /// The time column holds each unit's own duration.
    ///
    /// The time column holds each unit's own duration, not the cumulative time;
    /// units of a run must then be 1, 2, 3, ... without gaps.
    #[arg(long)]
    pub per_unit: bool,
}

pub fn run(args: &FitArgs) -> Result<i32> {
    let ingest = IngestOptions {
        by: args.by.clone(),
        run_col: args.run_col.clone(),
        unit_col: args.unit_col.clone(),
        time_col: args.time_col.clone(),
        column_flags: true,
        time_kind: if args.per_unit {
            TimeColumnKind::PerUnit
        } else {
            TimeColumnKind::Cumulative
        },
    };
    if let Some(path) = &args.plot {
        // Before any work or any write: a bad --plot must not leave a model behind.
        crate::plot::check_target(path, "--plot")?;
    }
    if let (Some(model), Some(plot)) = (&args.output, &args.plot) {
        // The figure is written after the model: it would replace it.
        if same_file(model, plot) {
            return Err(Error::input(
                Origin::Argument("--plot".into()),
                None,
                format!(
                    "{} is also the model file (-o {}): the figure would replace the model; expected another file name, such as cost.svg",
                    plot.display(),
                    model.display()
                ),
            ));
        }
    }
    if let Some(path) = &args.output {
        // Where the write lands, links followed: a link onto a timings CSV
        // would turn it into JSON. Checked before the fit, as the target's
        // kind (`-o /dev/null` is no file to replace).
        let target = crate::atomic::write_target(path)?;
        if read_as_timings(path) || read_as_timings(&target) {
            return Err(Error::input(
                Origin::Argument("-o".into()),
                None,
                format!(
                    "{} names the model file, which is JSON: under a .csv name, calib fit would read it as timings from its folder; expected a name such as calib-model.json",
                    if target == *path {
                        path.display().to_string()
                    } else {
                        format!("{} (a link to {})", path.display(), target.display())
                    }
                ),
            ));
        }
        crate::atomic::check_replaceable(path)?;
    }
    let timings = read_timings(&args.paths, &ingest)?;
    for w in &timings.warnings {
        output::warn(w);
    }
    // Before any write: neither output may replace a file just read.
    let outputs = [("-o", &args.output), ("--plot", &args.plot)];
    for (flag, path) in outputs.iter().filter_map(|(f, p)| Some((f, p.as_ref()?))) {
        refuse_overwriting_inputs(flag, path, &timings.sources)?;
    }
    let options = FitOptions {
        confidence: args.confidence,
        units: args.units,
    };
    let calibration =
        crate::commands::input::calibration_table(args.calibration.as_deref(), args.confidence)?;
    let report = fit::fit_timings(&timings, &options)?;
    for w in &report.warnings {
        output::warn(w);
    }
    if let Some(defect) = report.model.defect() {
        return Err(Error::Refused(format!(
            "the fit gives no usable projection: {defect}; check the time column's unit (seconds) and magnitude"
        )));
    }
    if let Some(path) = &args.output {
        report.model.save(path)?;
    }
    if let Some(path) = &args.plot {
        fit::plot::draw(&report, &calibration, path)?;
        let strata = report.model.strata.len();
        if strata > fit::plot::MAX_PANELS {
            output::warn(format_args!(
                "{} draws the first {} of the {strata} strata (in the table's order); \
                 to see the others, fit their timings apart with --plot",
                path.display(),
                fit::plot::MAX_PANELS
            ));
        }
    }
    let export = |out: &mut dyn std::io::Write| {
        fit::export::exporter(args.format).export(&report, &calibration, out)
    };
    match args.format {
        Format::Table => output::write_table(export)?,
        Format::Json => output::write_result(export)?,
    }
    Ok(0)
}
