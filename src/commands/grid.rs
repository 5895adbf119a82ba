//! `calib grid`: the campaign's cells, derived from one grid file (`show`),
//! and one array task's cell as shell assignments (`cell`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::campaign::export;
use crate::campaign::grid::{cell_log_line, CampaignGrid};
use crate::error::Result;
use crate::output::{self, Format};

/// The description `--help` and the manual page show.
pub const LONG_ABOUT: &str = "\
Derive every task's cell, tag and output path from one grid file

A grid file (TOML) declares the axes (dataset x model x seed), which axes form the \
stratum, the output-path template and the units per run. Each stratum is one array: \
its cells are numbered 0 to n-1 by the other axes, the last axis fastest. A task \
finds its cell from its array index with `calib grid cell`, never by hand-written \
shell; the same file sizes the campaign in `calib budget --grid`.

The grid file:
  stratum = [\"dataset\"]                       # the axes that form the stratum
  output = \"results/{dataset}/{tag}.jsonl\"    # {axis}, {tag}, {stratum}, {index}
  units = 100                                 # units per run (optional)
  [axes]                                      # in this order, the last fastest
  dataset = [\"X\", \"Y\"]
  seed = [0, 1, 2]
  [units_by_stratum]                          # optional, per stratum
  \"dataset=Y\" = 60

TOML rather than CSV: axes are lists of different lengths, which a CSV row cannot hold \
without a second syntax inside its cells. Axis names are the names of shell variables \
(letters, digits, _), and may not be PATH, IFS, SLURM_*, CALIB_* and the like.";

const AFTER_HELP: &str = "\
Examples:
  calib grid show grid.toml
  calib grid cell grid.toml --stratum dataset=X,model=7B --index 1

In a batch script (each stratum its own array), capture first, then eval:
  cell=$(calib grid cell grid.toml --stratum \"$CALIB_STRATUM\" --index \"$SLURM_ARRAY_TASK_ID\") \\
      || exit 3
  eval \"$cell\"
Never `eval \"$(calib grid cell ...)\"` alone: eval discards the exit status, so a \
refused index would run with no cell at all.";

/// Arguments of `calib grid`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct GridArgs {
    #[command(subcommand)]
    pub action: GridAction,
}

#[derive(Debug, Subcommand)]
pub enum GridAction {
    /// Every cell with its stratum, array index, tag and output path.
    #[command(long_about = SHOW_ABOUT, after_long_help = SHOW_AFTER_HELP)]
    Show(ShowArgs),
    /// One array task's cell as shell assignments to eval.
    #[command(long_about = CELL_ABOUT, after_long_help = CELL_AFTER_HELP)]
    Cell(CellArgs),
}

const SHOW_ABOUT: &str = "\
Every cell with its stratum, array index, tag and output path

Refuses (exit 2) a grid whose output template gives two cells the same path, naming \
both cells: they would overwrite each other's results.";

const SHOW_AFTER_HELP: &str = "\
Examples:
  calib grid show grid.toml
  calib grid show grid.toml --format json

The output: the table gives a row per cell (stratum, index inside the stratum's array, \
tag, output path, the axis values), then per stratum its cell count, its --array range \
and its units. --format json holds the axes, the stratum axes, the template and per \
stratum its units, tasks and cells (index, tag, output, values).";

const CELL_ABOUT: &str = "\
One array task's cell as shell assignments to eval

Prints `export NAME=VALUE` lines, every value shell-quoted: one per axis (named as the \
axis), then CALIB_TAG and CALIB_OUTPUT. Writes the mapping (stratum, index, tag, \
output, values) on stderr, one line, for the job's log. An index outside the \
stratum's cells, negative or not a number is refused with exit 2, never wrapped: an \
--array larger than the grid would otherwise run a cell twice under one tag.";

const CELL_AFTER_HELP: &str = "\
Examples:
  calib grid cell grid.toml --stratum dataset=X,model=7B --index 0
  calib grid cell grid.toml --stratum 'dataset=X;model=7B' --index 2

In a batch script, capture, test, then eval (eval alone discards the exit status):
  cell=$(calib grid cell grid.toml --stratum \"$CALIB_STRATUM\" --index \"$SLURM_ARRAY_TASK_ID\") \\
      || exit 3
  eval \"$cell\"
  ./train --data \"$dataset\" --seed \"$seed\" --out \"$CALIB_OUTPUT\"

The output: the assignments on stdout; on stderr `calib: grid cell: stratum S index I \
-> tag T output O (values)`.";

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The grid file (TOML; see `calib grid --help`).
    #[arg(value_name = "GRID")]
    pub grid: PathBuf,

    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct CellArgs {
    /// The grid file (TOML; see `calib grid --help`).
    #[arg(value_name = "GRID")]
    pub grid: PathBuf,

    /// The stratum whose array the task belongs to: `dataset=X,model=7B`, or
    /// with `;` between the pairs as $CALIB_STRATUM carries it; `(all)` for a
    /// grid without stratum axes.
    #[arg(long, short = 's', value_name = "STRATUM")]
    pub stratum: String,

    /// The task's index in the stratum's array: "$SLURM_ARRAY_TASK_ID". Digits
    /// only, below the stratum's cell count; anything else is refused.
    // Text, not a number: clap would report a negative index as an unknown flag.
    #[arg(long, short = 'i', value_name = "INDEX", allow_hyphen_values = true)]
    pub index: String,
}

pub fn run(args: &GridArgs) -> Result<i32> {
    match &args.action {
        GridAction::Show(show) => {
            let grid = CampaignGrid::load(&show.grid)?;
            match show.format {
                Format::Table => output::write_table(|out| export::write_table(&grid, out))?,
                Format::Json => output::write_result(|out| export::write_json(&grid, out))?,
            }
        }
        GridAction::Cell(cell) => {
            let grid = CampaignGrid::load(&cell.grid)?;
            let found = grid.cell(&cell.stratum, &cell.index)?;
            output::note(cell_log_line(found));
            let text = export::assignments(found);
            output::write_result(|out| out.write_all(text.as_bytes()))?;
        }
    }
    Ok(0)
}
