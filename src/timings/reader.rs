//! Reading timings files: calib's own, and foreign tables with other column names.
//!
//! Errors name the file, the line and what was expected (exit status 2).
//!
//! **Torn last line.** A file whose last line does not end with a line break
//! (`\n`, or the `\r` of a CRLF file) has its last record skipped with a
//! warning, whatever that record holds: calib's writer ends every row with its
//! line break in the same `write`, so an unterminated line is one a kill cut
//! short, and a cut number can still parse (`12.3` from `12.345`) or even look
//! valid. The rule is the same for tables written by other programs (one
//! rule, no guess about who wrote a file): such a table keeps its last row only
//! if it ends with a line break, and the warning says so.
//!
//! **Bounds** ([`crate::limits`]): an input is read under a 1 MiB line and a
//! 4 GiB size bound, whatever it is (a regular file, a FIFO, a device, standard
//! input), so `calib fit /dev/zero` ends with an error. A folder contributes its
//! regular `*.csv` files only; anything else with that name (a FIFO, a socket)
//! is skipped with a warning, since opening a FIFO no one writes to blocks
//! forever; a link to nothing is skipped with a warning naming where it points.
//! A file given twice (named twice, or named and in a folder given too) is
//! read once, with a warning: read again, its rows would be the same units
//! twice. A path named on the command line is read whatever it is (the FIFO
//! of a shell's `<(...)`, a device), under the same bounds. A `unit` above 10^9, an `elapsed_s` or `unit_s` that is not finite
//! or is above 10 years, a NUL byte (anywhere, a torn last line included), a `cpus` that is not a count of 1 or more,
//! a `gpus` in none of the forms below, and a header naming one column twice are
//! bad input.
//!
//! **Quotes.** A quoted field that runs across a line break and is left open
//! to the end of the input, or closed with more than `,` or a line end after
//! its closing quote, is refused at the line where its quote opens: the csv
//! crate reads both without an error, the lines after the quote taken into
//! that field, so a stray `"` in a column calib does not read hid every row
//! after it. A field quoted whole across lines is read as CSV reads it.
//!
//! **End rows.** A row with a non-empty `end` is told by that column before
//! its time is read, whatever the time column (`--time-col`, `--per-unit`).
//! Its time may be empty (calib's `unit_s` is, on its end rows): the run then
//! stopped when its last recorded unit ended. Given, it is the time of the
//! stop, or with `--per-unit` the time from the last unit's end to the stop.
//!
//! **Gaps.** Units missing between two rows of a run (or before its first row,
//! when it has several) need no memory per missing unit: the fit takes the
//! interval between consecutive rows as one measurement of the units it covers.
//! Each run with gaps is reported as a warning naming the run and the missing
//! units. A run with a single row is a run-length measurement, not a gap.
//!
//! **CSV only.** A Parquet table (by its `.parquet` name, or by the `PAR1` its
//! bytes begin with) is refused with a command that converts it; a folder
//! holding Parquet tables but no `*.csv` is refused the same way rather than
//! read as empty. A JSON input (its first character `{` or `[`) is refused
//! as JSON, and a calib model file as one, with where it goes (`--model`):
//! read as CSV, its first line would fail with a message about columns.
//!
//! `gpus` holds what `calib probe` writes (`none`, `unknown ...`, or counts by
//! model such as `2x NVIDIA A100; 1x NVIDIA T4`) or a plain count.
//!
//! Speed: a table over 8 MiB is cut at line ends outside quoted fields into a
//! few pieces per core; the pieces are parsed in parallel into their own runs and
//! merged in file order, so messages and checks are those of a sequential read
//! (the first bad line of the file is the one reported). Consecutive rows of one
//! run skip the run and stratum lookups; records are swapped, never cloned.
//! Records that need none of the CSV quoting rules (calib's own rows) are split
//! by [`super::simple`]; from the first record of a piece that does need them,
//! the csv crate reads the rest of the piece, so records and messages are the
//! csv crate's throughout. Line numbers are the file's own, counted from its
//! `\n` bytes (blank lines and CRLF line ends included: an editor's), which
//! the csv crate's positions are corrected to ([`crate::limits::csv_record_line`]).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::HEADER;
use super::{Fingerprint, RunEnd, RunTimings};
use crate::error::{Error, Origin, Result};
use crate::limits::{
    columns_by_name, csv_record_line, csv_record_start, excerpt, line_of, nul_byte,
    nul_in_line_ending, read_file_bounded, read_stdin_bounded, Bounds, MAX_COUNT, MAX_SECONDS,
    MAX_SECONDS_TEXT, TABLE,
};
use crate::shell::refuse_control;
use crate::stratum::Stratum;

/// What the time column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeColumnKind {
    /// Seconds from the run's start to the end of the unit (calib's `elapsed_s`).
    #[default]
    Cumulative,
    /// Each unit's own duration; units of a run must then be 1, 2, 3, ... with no gap.
    PerUnit,
}

/// How to read the columns of a table.
#[derive(Debug, Clone)]
pub struct IngestOptions {
    /// Columns whose values become stratum labels (`--by`), merged with `stratum`.
    pub by: Vec<String>,
    pub run_col: String,
    pub unit_col: String,
    pub time_col: String,
    pub time_kind: TimeColumnKind,
    /// The reading command takes the flags above (`calib fit`): messages
    /// about a foreign header suggest them; elsewhere they point to `calib
    /// fit`, which reads such a table.
    pub column_flags: bool,
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            by: Vec::new(),
            run_col: "run".to_string(),
            unit_col: "unit".to_string(),
            time_col: "elapsed_s".to_string(),
            time_kind: TimeColumnKind::Cumulative,
            column_flags: false,
        }
    }
}

/// Something odd in the input that did not stop the read.
#[derive(Debug, Clone, PartialEq)]
pub enum IngestWarning {
    /// The last line of a file has no line break: taken as cut short by a kill
    /// while it was written, and skipped.
    TornLastLine { origin: String, line: u64 },
    /// A folder held no `*.csv` file; `subfolders` are those of its
    /// subfolders that do (calib reads one level only).
    EmptyFolder {
        path: PathBuf,
        subfolders: Vec<PathBuf>,
    },
    /// A file was empty (not even a header): skipped.
    EmptyFile { origin: String },
    /// A file with its header and no row: a probe stopped before its
    /// first unit finished (killed at startup, or its command failed first).
    HeaderOnly { origin: String },
    /// A `*.csv` entry of a folder that is not a regular file (a FIFO, a
    /// socket, a device): skipped, since reading it could block forever.
    NotARegularFile { path: PathBuf },
    /// A `*.csv` entry of a folder that is a symbolic link to nothing
    /// (`target`, as the link holds it): skipped, as a folder's other
    /// unreadable entries are.
    BrokenLink { path: PathBuf, target: PathBuf },
    /// A file given twice (`path`, already read as `first`: named twice, or
    /// named and in a folder given too): read once, since its rows read again
    /// would be the same units twice.
    GivenTwice { path: PathBuf, first: PathBuf },
    /// Units missing between the rows of a run: `first_missing` are the first
    /// few missing ranges (inclusive), out of `gaps` ranges and `units` units.
    UnitGaps {
        origin: String,
        /// The line of the first row after the first gap.
        line: u64,
        run: String,
        first_missing: Vec<(u64, u64)>,
        gaps: u64,
        units: u64,
    },
    /// More runs with gaps than are listed one by one.
    MoreRunsWithGaps { runs: usize },
    /// The time column's name says milliseconds; calib reads seconds.
    TimeNamedMilliseconds { origin: String, column: String },
    /// With `--per-unit`, every run of 5 units or more has each unit longer
    /// than the one before: what cumulative times read as durations look
    /// like (`runs` of them).
    PerUnitLooksCumulative { runs: usize },
    /// Runs whose unit 1 ended at 0 s (`runs` of them, the first named):
    /// their times count from the end of unit 1, not from the start.
    FirstUnitAtZero {
        runs: usize,
        run: String,
        stratum: String,
    },
}

/// Runs whose gaps are listed one by one; the others are counted.
const LISTED_GAP_RUNS: usize = 10;
/// Missing ranges shown per run.
const SHOWN_GAPS: usize = 3;

impl fmt::Display for IngestWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IngestWarning::TornLastLine { origin, line } => write!(
                f,
                "{origin}, line {line}: the last line has no line break, so it may be cut short (a run killed while writing it): skipped it, every earlier row is kept; a table written by another program keeps its last row if it ends with a line break"
            ),
            IngestWarning::NotARegularFile { path } => write!(
                f,
                "{}: not a regular file (a FIFO, socket or device named like a table); skipped it, since reading it could wait forever; name it on the command line to read it anyway",
                path.display()
            ),
            IngestWarning::BrokenLink { path, target } => write!(
                f,
                "{}: a broken link (to {}, which does not exist); skipped it",
                path.display(),
                target.display()
            ),
            IngestWarning::GivenTwice { path, first } if path == first => write!(
                f,
                "{}: given twice; read it once",
                path.display()
            ),
            IngestWarning::GivenTwice { path, first } => write!(
                f,
                "{}: given twice (also as {}); read it once",
                path.display(),
                first.display()
            ),
            IngestWarning::UnitGaps {
                origin,
                line,
                run,
                first_missing,
                gaps,
                units,
            } => {
                let shown: Vec<String> = first_missing
                    .iter()
                    .map(|&(a, b)| if a == b { format!("{a}") } else { format!("{a}-{b}") })
                    .collect();
                let more = if *gaps as usize > shown.len() { ", ..." } else { "" };
                write!(
                    f,
                    "{origin}, line {line}: run `{run}` has no row for unit{} {}{more} ({units} unit{} in {gaps} gap{}); calib fits each interval between recorded units as one measurement of the units it covers, so the fit holds, but check that no rows were lost",
                    if *units == 1 { "" } else { "s" },
                    shown.join(", "),
                    if *units == 1 { "" } else { "s" },
                    if *gaps == 1 { "" } else { "s" },
                )
            }
            IngestWarning::MoreRunsWithGaps { runs } => write!(
                f,
                "{runs} more run{} have gaps in their unit numbers (not listed one by one)",
                if *runs == 1 { "" } else { "s" }
            ),
            IngestWarning::TimeNamedMilliseconds { origin, column } => write!(
                f,
                "{origin}: the time column `{column}` is named as milliseconds, and calib reads \
                 seconds: every time would be a thousand times too long; divide it by 1000 first \
                 if it holds milliseconds"
            ),
            IngestWarning::PerUnitLooksCumulative { runs } => write!(
                f,
                "with --per-unit, each unit of every run ({runs} of 5 units or more) took longer \
                 than the one before, which is what times since the run's start look like read \
                 as durations; if the column holds those, leave out --per-unit"
            ),
            IngestWarning::FirstUnitAtZero { runs, run, stratum } => write!(
                f,
                "{runs} run(s) (the first: `{run}` of stratum {}) end unit 1 at 0 s: their times \
                 count from the end of unit 1, not from the run's start, so unit 1 and the startup \
                 are read as taking no time and every run is budgeted short of them; record the \
                 time since the process started (calib probe does)",
                crate::stratum::display_name(stratum)
            ),
            IngestWarning::EmptyFile { origin } => write!(
                f,
                "{origin}: the file is empty (a task killed before its first row?); skipped it"
            ),
            IngestWarning::HeaderOnly { origin } => write!(
                f,
                "{origin}: the file has its header and no row (a probe before its first unit: \
                 still starting, killed at startup, or its command failed first); it adds no run"
            ),
            IngestWarning::EmptyFolder { path, subfolders } if !subfolders.is_empty() => {
                // A few named, shell-quoted (ready to paste), and the count.
                const NAMED: usize = 4;
                let named: Vec<String> = subfolders
                    .iter()
                    .take(NAMED)
                    .map(|p| crate::shell::quote(&p.display().to_string()))
                    .collect();
                let more = match subfolders.len().saturating_sub(NAMED) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                write!(
                    f,
                    "{}: the folder holds no *.csv file, and calib does not look into its subfolders; nothing read from it. These hold *.csv files, name the ones you mean: {}{more}",
                    path.display(),
                    named.join(" ")
                )
            }
            IngestWarning::EmptyFolder { path, .. } => write!(
                f,
                "{}: the folder holds no *.csv file; nothing read from it",
                path.display()
            ),
        }
    }
}

/// Runs read from one or more tables, grouped and checked.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    pub runs: Vec<RunTimings>,
    pub warnings: Vec<IngestWarning>,
    /// Every input read, in order (for messages about the inputs as a whole).
    pub sources: Vec<Origin>,
}

/// Expands the command-line inputs: files as given, folders to their `*.csv`
/// files, sorted, and `-` for standard input. A folder with no `*.csv` file but
/// Parquet files is refused with the conversion hint rather than read as empty.
pub(super) fn expand_inputs(
    inputs: &[PathBuf],
    warnings: &mut Vec<IngestWarning>,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            files.push(input.clone());
            continue;
        }
        // A path the user named that cannot be read is bad input (exit 2).
        let meta = std::fs::metadata(input)
            .map_err(|e| Error::input(Origin::file(input), None, format!("cannot read it: {e}")))?;
        if meta.is_dir() {
            let (mut found, parquet): (Vec<PathBuf>, Vec<PathBuf>) = std::fs::read_dir(input)
                .map_err(|e| Error::io(format!("cannot list {}", input.display()), e))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| has_extension(p, "csv") || has_extension(p, "parquet"))
                .partition(|p| read_as_timings(p));
            found.sort();
            if found.is_empty() {
                // A folder of Parquet tables would otherwise read as empty and
                // end in "no runs", hiding the one step the user needs.
                if let Some(first) = parquet.iter().min() {
                    return Err(parquet_refused(Origin::file(first)));
                }
                warnings.push(IngestWarning::EmptyFolder {
                    path: input.clone(),
                    subfolders: subfolders_with_csv(input),
                });
            }
            // Only regular files (symbolic links followed): opening a FIFO
            // that no one writes to would block the whole fit.
            found.retain(|p| {
                let followed = std::fs::metadata(p);
                let regular = followed.as_ref().is_ok_and(|m| m.is_file());
                if !regular {
                    warnings.push(match std::fs::read_link(p) {
                        // A link that metadata could not follow.
                        Ok(target) if followed.is_err() => IngestWarning::BrokenLink {
                            path: p.clone(),
                            target,
                        },
                        _ => IngestWarning::NotARegularFile { path: p.clone() },
                    });
                }
                regular
            });
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    Ok(read_once(files, warnings))
}

/// `files` without those given before under any name (`d1` and
/// `d1/base.csv`, `./t.csv` and `t.csv`, a link and its target), each
/// dropped with a warning: its rows read again would be the same units
/// twice, refused as duplicates of themselves. Compared as files (device and
/// inode); standard input is read once whatever it is.
fn read_once(files: Vec<PathBuf>, warnings: &mut Vec<IngestWarning>) -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut first_of: HashMap<(u64, u64), PathBuf> = HashMap::new();
    let mut out = Vec::with_capacity(files.len());
    for path in files {
        let id = (path.as_os_str() != "-")
            .then(|| std::fs::metadata(&path).ok())
            .flatten()
            .map(|m| (m.dev(), m.ino()));
        match id {
            Some(id) if first_of.contains_key(&id) => warnings.push(IngestWarning::GivenTwice {
                first: first_of[&id].clone(),
                path,
            }),
            Some(id) => {
                first_of.insert(id, path.clone());
                out.push(path);
            }
            None => out.push(path),
        }
    }
    out
}

/// The subfolders of `folder` that hold a `*.csv` file, sorted, for the
/// warning about a folder that holds none itself.
fn subfolders_with_csv(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .filter(|p| {
            std::fs::read_dir(p)
                .is_ok_and(|mut inner| inner.any(|e| e.is_ok_and(|e| read_as_timings(&e.path()))))
        })
        .collect();
    found.sort();
    found
}

/// Reads every input and returns its runs, checked: no duplicate unit in a run
/// (a run is its identifier within its stratum), elapsed time never going
/// backwards within a run.
pub fn read_timings(inputs: &[PathBuf], options: &IngestOptions) -> Result<Timings> {
    let mut warnings = Vec::new();
    let files = expand_inputs(inputs, &mut warnings)?;
    let mut origins: Vec<Origin> = Vec::new();
    let mut all = Runs::default();
    for path in &files {
        let (origin, bytes) = read_source(path)?;
        origins.push(origin);
        let file_no = origins.len() - 1;
        read_table(
            &bytes,
            file_no,
            &origins[file_no],
            options,
            &mut all,
            &mut warnings,
        )?;
    }
    let mut out = Vec::with_capacity(all.runs.len());
    let mut runs_with_gaps = 0usize;
    // Runs are checked on every core; the first error in run order is the
    // one reported, as in a sequential pass.
    let finished = crate::parallel::map_mut(&mut all.runs, |builder| {
        finish_run(builder, &origins, options)
    });
    for result in finished {
        let (run, gaps) = result?;
        if let Some(warning) = gaps {
            runs_with_gaps += 1;
            if runs_with_gaps <= LISTED_GAP_RUNS {
                warnings.push(warning);
            }
        }
        out.push(run);
    }
    if runs_with_gaps > LISTED_GAP_RUNS {
        warnings.push(IngestWarning::MoreRunsWithGaps {
            runs: runs_with_gaps - LISTED_GAP_RUNS,
        });
    }
    // Durations that rise at every unit in every run: cumulative times read
    // as durations, most likely (a real cost under noise falls now and then).
    if options.time_kind == TimeColumnKind::PerUnit {
        let long: Vec<&RunTimings> = out.iter().filter(|r| r.points.len() >= 5).collect();
        let rising = |r: &RunTimings| {
            let durations: Vec<f64> = r.points.windows(2).map(|w| w[1].1 - w[0].1).collect();
            durations.windows(2).all(|d| d[1] > d[0])
        };
        if !long.is_empty() && long.iter().all(|r| rising(r)) {
            warnings.push(IngestWarning::PerUnitLooksCumulative { runs: long.len() });
        }
    }
    // Cumulative times whose unit 1 ends at 0: counted from its end.
    if options.time_kind == TimeColumnKind::Cumulative {
        let at_zero: Vec<&RunTimings> = out
            .iter()
            .filter(|r| {
                r.points
                    .first()
                    .is_some_and(|&(unit, t)| unit == 1 && t == 0.0)
            })
            .collect();
        if let Some(first) = at_zero.first() {
            warnings.push(IngestWarning::FirstUnitAtZero {
                runs: at_zero.len(),
                run: first.run.clone(),
                stratum: first.stratum.canonical(),
            });
        }
    }
    Ok(Timings {
        runs: out,
        warnings,
        sources: origins,
    })
}

/// Whether a folder's entry at `path` is read as a timings file (`*.csv`, any
/// case), as [`read_timings`] picks a folder's files.
pub(crate) fn read_as_timings(path: &Path) -> bool {
    has_extension(path, "csv")
}

/// True when `path`'s extension is `ext`, in any case.
fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Every Parquet file begins (and ends) with these four bytes.
const PARQUET_MAGIC: &[u8] = b"PAR1";

/// The refusal of a Parquet table, with a command that converts it. calib reads
/// CSV only: Parquet support cost a 67 MB binary and minutes of build for what
/// one command of a tool Parquet users already have does (see the README).
fn parquet_refused(origin: Origin) -> Error {
    // The command names the user's file when it can be pasted as it is: a name
    // that needs no quoting inside the quotes below, and a CSV name that differs.
    let plain = |name: &str| {
        name.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._+-,=@".contains(c))
    };
    let names = match &origin {
        Origin::File(path) => {
            let input = path.display().to_string();
            let output = path.with_extension("csv").display().to_string();
            (plain(&input) && plain(&output) && input != output).then_some((input, output))
        }
        _ => None,
    };
    let (input, output) =
        names.unwrap_or_else(|| ("IN.parquet".to_string(), "OUT.csv".to_string()));
    Error::input(
        origin,
        None,
        format!(
            "a Parquet table; calib reads CSV only. Convert it with one command, e.g. \
             `python3 -c \"import polars as pl; pl.read_parquet('{input}').write_csv('{output}')\"` \
             or `duckdb -c \"COPY (SELECT * FROM read_parquet('{input}')) TO '{output}' (HEADER)\"`, \
             then give calib the CSV file"
        ),
    )
}

/// The bounds of a timings table: a Parquet table is named as such, with
/// its conversion, where its first NUL byte would refuse it as binary.
const TIMINGS: Bounds = Bounds {
    binary_format: Some(|origin, bytes| {
        bytes
            .starts_with(PARQUET_MAGIC)
            .then(|| parquet_refused(origin.clone()))
    }),
    ..TABLE
};

fn read_source(path: &Path) -> Result<(Origin, Vec<u8>)> {
    let (origin, bytes) = if path.as_os_str() == "-" {
        (Origin::Stdin, read_stdin_bounded(&TIMINGS)?)
    } else if has_extension(path, "parquet") {
        // By name, before reading anything.
        return Err(parquet_refused(Origin::file(path)));
    } else {
        (Origin::file(path), read_file_bounded(path, "it", &TIMINGS)?)
    };
    // By content: a Parquet table under another name (or piped in) would
    // otherwise fail as a CSV with NUL bytes.
    if bytes.starts_with(PARQUET_MAGIC) {
        return Err(parquet_refused(origin));
    }
    if let Some(refusal) = json_refused(&origin, &bytes) {
        return Err(refusal);
    }
    Ok((origin, bytes))
}

/// The refusal of a JSON input, which would otherwise fail as a CSV table on
/// its first line (`columns 27 and 42 are both named ...`): a calib model
/// file, given where timings go, is named as such with where it goes (the
/// commands that read both take it with `--model`); any other JSON is named
/// as JSON. JSON is told by its first character, after a byte order mark and
/// white space: `{` or `[` begins no timings header.
fn json_refused(origin: &Origin, bytes: &[u8]) -> Option<Error> {
    let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let first = text.iter().find(|b| !b.is_ascii_whitespace())?;
    if !matches!(first, b'{' | b'[') {
        return None;
    }
    let message = if crate::model::is_model_file(text) {
        "a calib model file (as `calib fit -o` writes it), not timings; give it with --model \
         (calib budget, calib resume), and timings as CSV tables"
    } else {
        "got JSON; expected CSV timings (a header such as `run,stratum,unit,elapsed_s`, \
         then one row per unit)"
    };
    Some(Error::input(origin.clone(), None, message))
}

struct Columns {
    run: usize,
    unit: usize,
    time: usize,
    stratum: Option<usize>,
    unit_s: Option<usize>,
    end: Option<usize>,
    by: Vec<(String, usize)>,
    fingerprint: [Option<usize>; 9],
}

/// The fingerprint columns, in the order calib writes them (`host` ..
/// `calib_version`, between `unit_s` and `end` in [`HEADER`]).
const FINGERPRINT_COLUMNS: &[&str] = {
    let (_, rest) = HEADER.split_at(5);
    rest.split_at(9).0
};
/// Where `cpus` and `gpus` are among [`FINGERPRINT_COLUMNS`].
const CPUS: usize = 3;
const GPUS: usize = 4;

/// A duration in seconds: finite, from 0 to [`MAX_SECONDS`].
fn parse_seconds(text: &str) -> Option<f64> {
    plain_decimal(text)
        .or_else(|| text.parse::<f64>().ok())
        .filter(|t| t.is_finite() && (0.0..=MAX_SECONDS).contains(t))
}

/// `text.parse::<f64>()` for the plain decimals a timings table is made of
/// (`14.457`, `7`, `.5`): digits with at most one point, at most 15 digits
/// after it and a value below 2^53 once the point is dropped; `None` for
/// anything else (signs, exponents, longer numbers), which `str::parse`
/// reads. Such a number is `m / 10^k` with m and 10^k exact in an f64, and
/// one IEEE division rounds it correctly, as `str::parse` does: the same
/// value to the bit, in about half the time (a million rows each have one).
fn plain_decimal(text: &str) -> Option<f64> {
    const POWERS: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (mut mantissa, mut digits, mut decimals, mut point) = (0u64, 0u32, 0usize, false);
    for &byte in text.as_bytes() {
        match byte {
            b'0'..=b'9' if digits < 19 => {
                mantissa = mantissa * 10 + u64::from(byte - b'0');
                digits += 1;
                decimals += usize::from(point);
            }
            b'.' if !point => point = true,
            _ => return None,
        }
    }
    let power = POWERS.get(decimals)?;
    (digits > 0 && mantissa <= 1 << 53).then(|| mantissa as f64 / power)
}

/// Checks the `cpus` and `gpus` fields of a row: a count of 1 or more, and
/// what `calib probe` writes for GPUs (see the module docs). Empty is allowed.
fn check_counts<'r>(
    field: &dyn Fn(usize) -> &'r str,
    fingerprint: &[Option<usize>; 9],
) -> std::result::Result<(), String> {
    if let Some(text) = fingerprint[CPUS].map(field).filter(|t| !t.is_empty()) {
        if !text.parse::<u32>().is_ok_and(|n| n >= 1) {
            return Err(format!(
                "`cpus` is `{}`; expected a whole number of CPUs, 1 or more, or empty",
                excerpt(text)
            ));
        }
    }
    if let Some(text) = fingerprint[GPUS].map(field).filter(|t| !t.is_empty()) {
        let count = |n: &str| n.parse::<u32>().is_ok();
        let by_model = || {
            text.split("; ").all(|part| {
                part.split_once("x ")
                    .is_some_and(|(n, model)| count(n) && !model.trim().is_empty())
            })
        };
        if !(text == "none" || text.starts_with("unknown") || count(text) || by_model()) {
            return Err(format!(
                "`gpus` is `{}`; expected a count, `none`, or counts by model as calib probe writes them (`2x NVIDIA A100`), or empty",
                excerpt(text)
            ));
        }
    }
    Ok(())
}

fn locate_columns(
    header: &csv::StringRecord,
    origin: &Origin,
    options: &IngestOptions,
) -> Result<Columns> {
    // One column holding `;` or tabs: a table of another separator, which
    // every other message would misread as missing columns.
    if let [only] = header.iter().collect::<Vec<_>>()[..] {
        if let Some((sep, name)) = [(';', "`;`"), ('\t', "tabs")]
            .into_iter()
            .find(|(c, _)| only.contains(*c))
        {
            let convert = if sep == ';' {
                "tr ';' ','"
            } else {
                "tr '\\t' ','"
            };
            return Err(Error::input(
                origin.clone(),
                Some(1),
                format!(
                    "the header is one column, `{}`: the table looks separated by {name}, and calib reads \
                     CSV (commas); convert it, e.g. `{convert} < FILE > FILE.csv` where no value holds a comma",
                    excerpt(only)
                ),
            ));
        }
    }
    if header.iter().all(|field| field.trim().is_empty()) {
        return Err(Error::input(
            origin.clone(),
            Some(1),
            "the first line is blank; expected the header of a timings table, such as run,stratum,unit,elapsed_s",
        ));
    }
    let first_of = columns_by_name(header, origin, 1)?;
    let find = |name: &str| first_of.get(name).copied();
    let found = || header.iter().collect::<Vec<_>>().join(", ");
    // The run, unit and time columns, which --run-col, --unit-col and
    // --time-col name: what is missing may be named otherwise.
    let need = |name: &str, why: &str| {
        find(name).ok_or_else(|| {
            Error::input(
                origin.clone(),
                Some(1),
                format!(
                    "the header has no `{name}` column ({why}); found: {}{}",
                    found(),
                    column_flags_hint(header, options)
                ),
            )
        })
    };
    let stratum = find("stratum");
    if stratum.is_none() && options.by.is_empty() {
        let what = if options.column_flags {
            "name the columns that define strata with --by"
        } else {
            FOREIGN_TABLE
        };
        return Err(Error::input(
            origin.clone(),
            Some(1),
            format!(
                "the header has no `stratum` column; {what} (found: {})",
                found()
            ),
        ));
    }
    let mut by = Vec::new();
    for name in &options.by {
        let index = find(name).ok_or_else(|| {
            Error::input(
                origin.clone(),
                Some(1),
                format!(
                    "the header has no `{name}` column, which --by names; found: {}",
                    found()
                ),
            )
        })?;
        by.push((name.clone(), index));
    }
    let mut fingerprint = [None; 9];
    for (slot, name) in fingerprint
        .iter_mut()
        .zip(FINGERPRINT_COLUMNS.iter().copied())
    {
        *slot = find(name);
    }
    Ok(Columns {
        run: need(&options.run_col, "the run identifier")?,
        unit: need(&options.unit_col, "the 1-based unit index")?,
        time: need(&options.time_col, "the time in seconds")?,
        stratum,
        unit_s: if options.time_col == "unit_s" {
            None
        } else {
            find("unit_s")
        },
        end: find("end"),
        by,
        fingerprint,
    })
}

/// The refusal of a byte that is no UTF-8, header or row alike.
fn not_utf8_text(byte: u8) -> String {
    format!(
        "not UTF-8 text (byte 0x{byte:02X}); expected UTF-8 text (a table saved as Latin-1 or \
         Windows-1252? `iconv -f latin1 -t utf-8` converts it)"
    )
}

/// Where a command reads only calib's own columns: what reads a table from
/// another tool.
const FOREIGN_TABLE: &str = "this command reads calib's own columns (run, stratum, unit, \
     elapsed_s, as calib probe writes them); a table from another tool is read by calib fit \
     (--run-col, --unit-col, --time-col, --by), whose model calib budget takes with --model";

/// For a header that lacks calib's column names: the flags that would name
/// the columns of a foreign table, guessed from their names (`epoch`,
/// `seconds`), as `; if ... pass --unit-col epoch --time-col seconds`. Empty
/// when nothing looks like a candidate. Only a suggestion for the message:
/// calib never reads a guessed column by itself.
fn column_flags_hint(header: &csv::StringRecord, options: &IngestOptions) -> String {
    if !options.column_flags {
        return format!("; {FOREIGN_TABLE}");
    }
    // Per flag, the words a column's name may hold for it.
    const GUESSES: [(&str, &str); 3] = [
        ("--run-col", "run seed replicate trial task"),
        (
            "--unit-col",
            "unit epoch generation gen iteration iter step batch round",
        ),
        (
            "--time-col",
            "elapsed seconds secs sec time duration walltime",
        ),
    ];
    let wanted = [&options.run_col, &options.unit_col, &options.time_col];
    let present = |name: &str| header.iter().any(|h| h.trim() == name);
    let mut taken: Vec<&str> = vec!["stratum"];
    taken.extend(wanted.iter().map(|w| w.as_str()).filter(|w| present(w)));
    let mut flags = Vec::new();
    for ((flag, words), current) in GUESSES.iter().zip(wanted) {
        if present(current) {
            continue;
        }
        // A column whose name has one of the words as a part: `epoch`, `Epoch_No`, `time_s`.
        let candidate = header.iter().map(str::trim).find(|h| {
            !taken.contains(h)
                && h.split(|c: char| !c.is_ascii_alphanumeric())
                    .any(|part| words.split(' ').any(|word| part.eq_ignore_ascii_case(word)))
        });
        if let Some(column) = candidate {
            taken.push(column);
            // Quoted: the suggestion is meant to be pasted into a shell.
            flags.push(format!("{flag} {}", crate::shell::quote(column)));
        }
    }
    if flags.is_empty() {
        return String::new();
    }
    let time_hint = if flags.iter().any(|f| f.starts_with("--time-col")) {
        " (add --per-unit if that time is each unit's own duration, not the time since the run's start)"
    } else {
        ""
    };
    format!(
        "; if this table names them otherwise, try `calib fit {}`{time_hint}",
        flags.join(" ")
    )
}

#[allow(clippy::too_many_arguments)]
/// Strata seen so far, by their raw text (stratum column and `--by` values), so
/// that a row costs one hash lookup and no allocation once its stratum is known.
#[derive(Default)]
struct StrataCache {
    by_key: HashMap<String, usize>,
    by_value: HashMap<Stratum, usize>,
    strata: Vec<Stratum>,
    key: String,
}

impl StrataCache {
    fn get(&self, id: usize) -> &Stratum {
        &self.strata[id]
    }

    /// The id of a stratum; two spellings of one (`b=1,a=2`, `a=2,b=1`) share it.
    fn intern(&mut self, s: &Stratum) -> usize {
        if let Some(&id) = self.by_value.get(s) {
            return id;
        }
        self.strata.push(s.clone());
        self.by_value.insert(s.clone(), self.strata.len() - 1);
        self.strata.len() - 1
    }

    fn lookup<'r>(
        &mut self,
        stratum_text: &str,
        by: &[(String, usize)],
        field: &dyn Fn(usize) -> &'r str,
        bad: &dyn Fn(String) -> Error,
    ) -> Result<usize> {
        self.key.clear();
        self.key.push_str(stratum_text);
        for (_, i) in by {
            self.key.push('\u{1f}');
            self.key.push_str(field(*i));
        }
        if let Some(&id) = self.by_key.get(self.key.as_str()) {
            return Ok(id);
        }
        let mut s = Stratum::parse(stratum_text)
            .map_err(|e| bad(format!("`stratum` is not k=v,k=v labels: {e}")))?;
        for (name, i) in by {
            s.insert(name, field(*i))
                .map_err(|e| bad(format!("--by column `{name}`: {e}")))?;
        }
        let id = self.intern(&s);
        self.by_key.insert(self.key.clone(), id);
        Ok(id)
    }
}

/// Where a row was read, for messages about conflicts between rows.
#[derive(Debug, Clone)]
struct Place {
    file: usize,
    line: u64,
}

#[derive(Debug)]
struct RunBuilder {
    run: String,
    stratum: Stratum,
    fingerprint: Fingerprint,
    /// (unit, time, where)
    points: Vec<(u64, f64, Place)>,
    /// (how, units completed, the time column's value if any, where)
    end: Option<(RunEnd, u64, Option<f64>, Place)>,
}

/// Runs being read: of one chunk of a file, or (merged) of every input.
#[derive(Default)]
struct Runs {
    runs: Vec<RunBuilder>,
    /// A run is its identifier within its stratum: tables number their seeds
    /// per configuration (seed 0, 1, 2 of each dataset). Per stratum id, the
    /// slot of each of its runs by identifier.
    index: Vec<HashMap<String, usize>>,
    strata: StrataCache,
    /// The previous row's run and raw stratum text and its slot: consecutive
    /// rows of one run skip the lookups.
    last: Option<(String, String, usize)>,
}

impl Runs {
    /// The slot of run `run` of the stratum `stratum_id`, if read already.
    fn slot_of(&self, run: &str, stratum_id: usize) -> Option<usize> {
        self.index.get(stratum_id)?.get(run).copied()
    }

    /// Files `slot` as run `run` of the stratum `stratum_id`.
    fn file_slot(&mut self, run: &str, stratum_id: usize, slot: usize) {
        if self.index.len() <= stratum_id {
            self.index.resize_with(stratum_id + 1, HashMap::new);
        }
        self.index[stratum_id].insert(run.to_string(), slot);
    }

    /// Moves the runs of `other` (read after everything in `self`) into `self`.
    fn merge(&mut self, other: Runs, origin: &Origin) -> Result<()> {
        for b in other.runs {
            let stratum_id = self.strata.intern(&b.stratum);
            match self.slot_of(&b.run, stratum_id) {
                None => {
                    self.file_slot(&b.run, stratum_id, self.runs.len());
                    self.runs.push(b);
                }
                Some(slot) => {
                    let into = &mut self.runs[slot];
                    if let Some(end) = b.end {
                        if into.end.is_some() {
                            return Err(Error::input(
                                origin.clone(),
                                Some(end.3.line),
                                format!("run `{}` has a second `end` row; a run ends once", b.run),
                            ));
                        }
                        into.end = Some(end);
                    }
                    into.points.extend(b.points);
                }
            }
        }
        Ok(())
    }
}

/// Inputs smaller than this are parsed by one thread.
const PARALLEL_BYTES: usize = 8 << 20;
/// Pieces a larger input is cut into, per core.
const PIECES_PER_CORE: usize = 4;

/// `text.trim()`, without the scan for Unicode white space when the field
/// starts and ends with a printable ASCII character (calib's own files, and
/// nearly every table): then there is nothing to trim.
fn trimmed(text: &str) -> &str {
    let plain = |b: &u8| b.is_ascii_graphic();
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(first), Some(last)) if plain(first) && plain(last) => text,
        _ => text.trim(),
    }
}

/// How many quotes and line breaks `bytes` holds, in one pass. Counted in
/// blocks of 255 into byte-wide counters, which the compiler turns into
/// vector instructions.
fn count_quotes_and_newlines(bytes: &[u8]) -> (u64, u64) {
    let (mut quotes, mut newlines) = (0u64, 0u64);
    for block in bytes.chunks(255) {
        let (mut q, mut n) = (0u8, 0u8);
        for &b in block {
            q = q.wrapping_add(u8::from(b == b'"'));
            n = n.wrapping_add(u8::from(b == b'\n'));
        }
        quotes += u64::from(q);
        newlines += u64::from(n);
    }
    (quotes, newlines)
}

/// Splits a CSV body into up to `parts` pieces at line ends outside quoted
/// fields (a position is outside quotes when the number of `"` before it is
/// even, escaped quotes coming in pairs). Returns (start, end, newlines before
/// start) per piece.
///
/// Each cut is the first line end outside quotes at or after `len * k /
/// parts`. The quotes and line breaks before those places are counted on
/// every core first (one pass over the table, which would otherwise be spent
/// on one core before any parsing starts); from each place on, the few bytes
/// to the cut are counted as they are scanned.
fn split_chunks(bytes: &[u8], parts: usize) -> Vec<(usize, usize, u64)> {
    if parts <= 1 || bytes.len() < PARALLEL_BYTES {
        return vec![(0, bytes.len(), 0)];
    }
    let place = |k: usize| bytes.len() * k / parts;
    // The counts between consecutive places, up to the last place.
    let spans: Vec<(usize, usize)> = (1..parts).map(|k| (place(k - 1), place(k))).collect();
    let span_counts = crate::parallel::map(&spans, |&(start, end)| {
        count_quotes_and_newlines(&bytes[start..end])
    });
    let mut before_place = vec![(0u64, 0u64)];
    for (q, n) in span_counts {
        let &(q0, n0) = before_place.last().unwrap_or(&(0, 0));
        before_place.push((q0 + q, n0 + n));
    }
    let mut cuts = vec![(0usize, 0u64)];
    // Quotes and line breaks in bytes[..scanned].
    let (mut scanned, mut quotes, mut newlines) = (0usize, 0u64, 0u64);
    'parts: for (k, &counts) in before_place.iter().enumerate().skip(1) {
        if place(k) > scanned {
            scanned = place(k);
            (quotes, newlines) = counts;
        }
        let mut p = scanned;
        loop {
            let Some(i) = bytes[p..].iter().position(|&b| b == b'\n') else {
                break 'parts;
            };
            p += i + 1;
            let (q, n) = count_quotes_and_newlines(&bytes[scanned..p]);
            quotes += q;
            newlines += n;
            scanned = p;
            if quotes.is_multiple_of(2) {
                break;
            }
        }
        if p >= bytes.len() {
            break;
        }
        cuts.push((p, newlines));
    }
    let mut out = Vec::with_capacity(cuts.len());
    for (k, &(start, lines)) in cuts.iter().enumerate() {
        let end = cuts.get(k + 1).map(|c| c.0).unwrap_or(bytes.len());
        out.push((start, end, lines));
    }
    out
}

fn read_table(
    bytes: &[u8],
    file_no: usize,
    origin: &Origin,
    options: &IngestOptions,
    all: &mut Runs,
    warnings: &mut Vec<IngestWarning>,
) -> Result<()> {
    if bytes.is_empty() {
        // A task killed before its first write leaves an empty file; it holds
        // no unit, so there is nothing to lose by reading on.
        warnings.push(IngestWarning::EmptyFile {
            origin: origin.to_string(),
        });
        return Ok(());
    }
    // The header's bytes, before the csv crate reads them as text: a binary
    // file is told as one, not as a header that is not UTF-8.
    // A line ends at LF or at a lone CR (old Mac files), as the csv crate reads it.
    let first_line = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .next()
        .unwrap_or(bytes);
    if first_line.contains(&0) {
        return Err(nul_byte(origin, 1, &TABLE));
    }
    if bytes[first_line.len()..]
        .iter()
        .all(u8::is_ascii_whitespace)
    {
        warnings.push(IngestWarning::HeaderOnly {
            origin: origin.to_string(),
        });
    }
    let mut header_reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    if let Err(e) = std::str::from_utf8(first_line) {
        let byte = first_line[e.valid_up_to()];
        return Err(Error::input(origin.clone(), Some(1), not_utf8_text(byte)));
    }
    let header = header_reader
        .headers()
        .map_err(|e| {
            Error::input(
                origin.clone(),
                Some(1),
                format!("cannot read the header: {e}"),
            )
        })?
        .clone();
    // Where the rows start, when the header ends with a plain `\n` (after a
    // CRLF header the csv crate counts lines its own way: it reads it all).
    let after_header = header_reader.position();
    let at = after_header.byte() as usize;
    let body = (at >= 1
        && bytes.get(at - 1) == Some(&b'\n')
        && bytes.get(at.wrapping_sub(2)) != Some(&b'\r'))
    .then(|| (at, after_header.line() - 1));
    let columns = locate_columns(&header, origin, options)?;
    // calib reads seconds: a time column named for milliseconds would make
    // every run a thousand times longer, silently.
    let time_name = header.get(columns.time).unwrap_or("").trim();
    let lower = time_name.to_ascii_lowercase();
    if lower.ends_with("_ms") || lower.ends_with("(ms)") || lower.contains("milli") {
        warnings.push(IngestWarning::TimeNamedMilliseconds {
            origin: origin.to_string(),
            column: time_name.to_string(),
        });
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    // Several pieces per core, taken from a queue: a core slowed by another
    // program leaves its share to the others instead of holding up the read.
    let pieces = if threads > 1 {
        PIECES_PER_CORE * threads
    } else {
        1
    };
    let chunks = split_chunks(bytes, pieces);
    let table = Table {
        file_no,
        origin,
        fields: header.len(),
        columns: &columns,
        options,
        // The `\r` of a CRLF line break is enough: the record before it is whole.
        ends_cleanly: bytes.ends_with(b"\n") || bytes.ends_with(b"\r"),
        body,
    };
    let last = chunks.len() - 1;
    let numbered: Vec<(usize, (usize, usize, u64))> = chunks.into_iter().enumerate().collect();
    let results: Vec<Result<(Runs, Vec<IngestWarning>)>> =
        crate::parallel::map(&numbered, |&(k, (start, end, lines))| {
            table.parse_chunk(&bytes[start..end], lines, k == last)
        });
    for result in results {
        let (runs, w) = result?;
        warnings.extend(w);
        all.merge(runs, origin)?;
    }
    Ok(())
}

/// The fields of one record, as [`Table::add_record`] reads them.
trait Record {
    fn len(&self) -> usize;
    fn get(&self, i: usize) -> Option<&str>;
    fn has_nul(&self) -> bool;
}

impl Record for csv::StringRecord {
    fn len(&self) -> usize {
        csv::StringRecord::len(self)
    }
    fn get(&self, i: usize) -> Option<&str> {
        csv::StringRecord::get(self, i)
    }
    fn has_nul(&self) -> bool {
        self.as_slice().contains('\0')
    }
}

/// A record split by [`super::simple`]: its fields are byte ranges of `text`.
struct SimpleRecord<'a> {
    text: &'a str,
    fields: &'a [(usize, usize)],
}

impl Record for SimpleRecord<'_> {
    fn len(&self) -> usize {
        self.fields.len()
    }
    fn get(&self, i: usize) -> Option<&str> {
        self.fields.get(i).map(|&(a, b)| &self.text[a..b])
    }
    fn has_nul(&self) -> bool {
        // A NUL byte ends a simple record's splitting: the csv crate reads it.
        false
    }
}

/// What [`Table::parse_simple`] leaves to the csv crate.
struct SimpleRecords {
    /// Where the csv crate starts reading the piece.
    csv_from: usize,
    /// The line breaks of the piece before that place, as the csv crate
    /// counts lines there: up to the end of the last record read.
    lines_before: u64,
    /// The last simple record, held back, and its line.
    held: Option<(csv::StringRecord, u64)>,
}

impl SimpleRecords {
    /// The whole piece is the csv crate's.
    fn none() -> SimpleRecords {
        SimpleRecords {
            csv_from: 0,
            lines_before: 0,
            held: None,
        }
    }
}

/// What every chunk of one table shares.
struct Table<'a> {
    file_no: usize,
    origin: &'a Origin,
    fields: usize,
    columns: &'a Columns,
    options: &'a IngestOptions,
    ends_cleanly: bool,
    /// Where the first row starts and the line breaks before it, when the
    /// header ends with a plain `\n`: the first piece's simple records start
    /// there ([`Table::parse_simple`]).
    body: Option<(usize, u64)>,
}

/// A quoted field that runs across a line break and is broken, as
/// [`broken_quote`] finds it: where its quote opens, and where it closes
/// with the byte after it (`None`: it never closes).
struct BrokenQuote {
    open: usize,
    closed: Option<(usize, u8)>,
}

/// Walks one record from its first byte as the csv crate reads it (its
/// default dialect: `"` quotes, `""` inside quotes is one, `,` between
/// fields, `\n` or `\r` ends the record) and returns its first quoted field
/// that spans a line break and either stays open to the end of `raw` or is
/// followed by another byte than `,`, `"` or a line end after its closing
/// quote. A field broken on one line is left to the csv crate's reading (it
/// keeps the bytes), which loses no row.
fn broken_quote(raw: &[u8]) -> Option<BrokenQuote> {
    enum State {
        FieldStart,
        Unquoted,
        Quoted { open: usize },
        AfterQuote { open: usize },
    }
    let spans_lines = |a: usize, b: usize| raw[a..b].iter().any(|&c| c == b'\n' || c == b'\r');
    let mut state = State::FieldStart;
    for (i, &byte) in raw.iter().enumerate() {
        state = match (state, byte) {
            (State::FieldStart | State::Unquoted, b'\n' | b'\r') => return None,
            (State::FieldStart, b'"') => State::Quoted { open: i },
            (State::FieldStart | State::Unquoted, b',') => State::FieldStart,
            (State::FieldStart | State::Unquoted, _) => State::Unquoted,
            (State::Quoted { open }, b'"') => State::AfterQuote { open },
            (quoted @ State::Quoted { .. }, _) => quoted,
            (State::AfterQuote { open }, b'"') => State::Quoted { open },
            (State::AfterQuote { .. }, b'\n' | b'\r') => return None,
            (State::AfterQuote { .. }, b',') => State::FieldStart,
            (State::AfterQuote { open }, other) => {
                return spans_lines(open, i).then_some(BrokenQuote {
                    open,
                    closed: Some((i - 1, other)),
                });
            }
        };
    }
    match state {
        State::Quoted { open } if spans_lines(open, raw.len()) => {
            Some(BrokenQuote { open, closed: None })
        }
        _ => None,
    }
}

/// The UTF-8 byte order mark, which the csv crate drops at the start of what
/// it reads.
const BOM: &[u8] = b"\xef\xbb\xbf";

impl Table<'_> {
    /// Parses one piece of the table: the first (`line_offset` 0) starts with the
    /// header; `is_last` marks the piece whose last line may be torn.
    fn parse_chunk(
        &self,
        bytes: &[u8],
        line_offset: u64,
        is_last: bool,
    ) -> Result<(Runs, Vec<IngestWarning>)> {
        self.parse_piece(bytes, line_offset, is_last, true)
    }

    /// [`Table::parse_chunk`], with the simple records at the start of the
    /// piece split by [`super::simple`] (`split_simple`) or the whole piece
    /// read by the csv crate. Where the two could differ, the first gives way
    /// to the second: a byte order mark where the csv crate would start (it
    /// drops one there, which a reading from the piece's start keeps), and
    /// a record the csv crate refuses (its message counts records and bytes
    /// from where it started reading).
    fn parse_piece(
        &self,
        bytes: &[u8],
        line_offset: u64,
        is_last: bool,
        split_simple: bool,
    ) -> Result<(Runs, Vec<IngestWarning>)> {
        let mut runs = Runs::default();
        let mut warnings = Vec::new();
        let may_be_torn = is_last && !self.ends_cleanly;
        let simple = if split_simple {
            self.parse_simple(bytes, line_offset, &mut runs)?
        } else {
            SimpleRecords::none()
        };
        if simple.csv_from > 0 && bytes[simple.csv_from..].starts_with(BOM) {
            return self.parse_piece(bytes, line_offset, is_last, false);
        }
        let line_base = line_offset + simple.lines_before;
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .has_headers(line_offset == 0 && simple.csv_from == 0)
            .from_reader(&bytes[simple.csv_from..]);
        let mut record = csv::StringRecord::new();
        // The previous record, held back by one so that the last can be judged
        // as possibly torn; swapped with `record`, never cloned.
        let (mut held, mut held_line) = match simple.held {
            Some((record, line)) => (record, Some(line)),
            None => (csv::StringRecord::new(), None),
        };
        // Whether the torn last record was met already (as a CSV error), so
        // that the record held back is a whole one.
        let mut torn_met = false;
        loop {
            match reader.read_record(&mut record) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    // Bytes that are not UTF-8 are placed by their own line:
                    // the csv crate places a record that holds them at the
                    // header's line when it is the first after a header it
                    // read itself. The first such byte of the piece is the
                    // one met: the header and the simple records before it
                    // were read as UTF-8.
                    let not_utf8 = matches!(e.kind(), csv::ErrorKind::Utf8 { .. })
                        .then(|| std::str::from_utf8(bytes).err().map(|u| u.valid_up_to()))
                        .flatten();
                    let line = match not_utf8 {
                        Some(at) => line_offset + line_of(bytes, at),
                        None => {
                            line_base
                                + e.position()
                                    .map(|p| csv_record_line(&bytes[simple.csv_from..], p, None))
                                    .unwrap_or(0)
                        }
                    };
                    // Invalid UTF-8 or a broken quote at the very end is a torn line.
                    if may_be_torn && reader.is_done() {
                        self.refuse_nul_in_torn_line(bytes, line_offset)?;
                        warnings.push(IngestWarning::TornLastLine {
                            origin: self.origin.to_string(),
                            line,
                        });
                        torn_met = true;
                        break;
                    }
                    if simple.csv_from > 0 {
                        return self.parse_piece(bytes, line_offset, is_last, false);
                    }
                    let message = match not_utf8 {
                        Some(at) => not_utf8_text(bytes[at]),
                        None => format!("not valid CSV: {e}"),
                    };
                    return Err(Error::input(self.origin.clone(), Some(line), message));
                }
            }
            let line = line_base
                + record
                    .position()
                    .map(|p| csv_record_line(&bytes[simple.csv_from..], p, None))
                    .unwrap_or(0);
            if let Some(previous_line) = held_line {
                self.check_quoting(&held, bytes, simple.csv_from, line_offset)?;
                self.add_record(&held, previous_line, &mut runs)?;
            }
            std::mem::swap(&mut record, &mut held);
            held_line = Some(line);
        }
        if let Some(line) = held_line {
            // A quote left open runs to the end of the piece: refused before
            // the record is judged torn, which would skip every line it took.
            self.check_quoting(&held, bytes, simple.csv_from, line_offset)?;
            // The last record of a table without a final line break is torn,
            // whatever it parses to (see the module docs).
            if may_be_torn && !torn_met {
                self.refuse_nul_in_torn_line(bytes, line_offset)?;
                warnings.push(IngestWarning::TornLastLine {
                    origin: self.origin.to_string(),
                    line,
                });
            } else {
                self.add_record(&held, line, &mut runs)?;
            }
        }
        Ok((runs, warnings))
    }

    /// Refuses a record (read by the csv crate from `bytes[from..]`) whose
    /// quoted field runs across a line break and is broken: left open to the
    /// end of the piece, or closed and followed by something else than `,`
    /// or the line's end. The csv crate reads either without an error, the
    /// lines after the quote taken into the field, so a stray `"` in a column
    /// calib does not read hid every row after it. Only a record with a line
    /// break in a field is scanned again: calib's own rows never have one.
    fn check_quoting(
        &self,
        record: &csv::StringRecord,
        bytes: &[u8],
        from: usize,
        line_offset: u64,
    ) -> Result<()> {
        let text = record.as_slice().as_bytes();
        if !text.contains(&b'\n') && !text.contains(&b'\r') {
            return Ok(());
        }
        // From the record's first byte, not the line breaks before it where
        // the csv crate places it (after a CRLF, or a blank line).
        let Some(start) = record
            .position()
            .map(|p| from + csv_record_start(&bytes[from.min(bytes.len())..], p, None).0)
        else {
            return Ok(());
        };
        let Some(broken) = broken_quote(&bytes[start.min(bytes.len())..]) else {
            return Ok(());
        };
        let line = |at: usize| line_offset + line_of(bytes, start + at);
        let what = match broken.closed {
            None => "never closes: every line after it was read into that field".to_string(),
            Some((at, byte)) => format!(
                "closes on line {} followed by `{}`: the lines between were read into that field",
                line(at),
                excerpt(&String::from_utf8_lossy(&[byte]))
            ),
        };
        Err(Error::input(
            self.origin.clone(),
            Some(line(broken.open)),
            format!(
                "a quote opens a field here and {what}; expected a field quoted whole, its \
                 closing `\"` before the next `,` or the line's end (a `\"` inside it doubled: \
                 `\"\"`)"
            ),
        ))
    }

    /// Refuses a NUL byte in the last line of the piece, about to be skipped
    /// as torn: a file whose end is a run of NUL bytes (left zero-filled by
    /// a crash, or pre-allocated) is refused as a small one is when read
    /// ([`crate::limits::read_bounded`]), not skipped as one cut row.
    fn refuse_nul_in_torn_line(&self, bytes: &[u8], line_offset: u64) -> Result<()> {
        match nul_in_line_ending(bytes, bytes.len()) {
            Some(at) => Err(nul_byte(
                self.origin,
                line_offset + line_of(bytes, at),
                &TABLE,
            )),
            None => Ok(()),
        }
    }

    /// Adds the simple records at the start of a piece ([`super::simple`]),
    /// each held back by one as in [`Table::parse_piece`]; returns where the
    /// csv crate takes over, with the record still held back.
    fn parse_simple(
        &self,
        bytes: &[u8],
        line_offset: u64,
        runs: &mut Runs,
    ) -> Result<SimpleRecords> {
        // The first piece starts with the header; a later one with a byte
        // order mark is left to the csv crate, which drops it there.
        let (start, lines_before) = match (line_offset, self.body) {
            (0, Some(body)) => body,
            (0, None) => return Ok(SimpleRecords::none()),
            _ if bytes.starts_with(BOM) => return Ok(SimpleRecords::none()),
            _ => (0, 0),
        };
        // Up to the first byte that is not UTF-8, which the csv crate reports.
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
        };
        let mut lines = super::simple::SimpleLines::new(text.as_bytes(), start);
        let (mut fields, mut held_fields) = (Vec::new(), Vec::new());
        let mut held_line = None;
        let mut done = SimpleRecords {
            csv_from: start,
            lines_before,
            held: None,
        };
        while let Some((end, newlines)) = lines.next_record(&mut fields) {
            // The record's own line: its `\n` is the last one counted (blank
            // lines before it included, as `csv_record_line` counts them).
            let line = line_offset + lines_before + newlines;
            if let Some(previous_line) = held_line {
                let record = SimpleRecord {
                    text,
                    fields: &held_fields,
                };
                self.add_record(&record, previous_line, runs)?;
            }
            std::mem::swap(&mut fields, &mut held_fields);
            held_line = Some(line);
            done.csv_from = end;
            done.lines_before = lines_before + newlines;
        }
        done.held = held_line.map(|line| {
            let fields: Vec<&str> = held_fields.iter().map(|&(a, b)| &text[a..b]).collect();
            (csv::StringRecord::from(fields), line)
        });
        Ok(done)
    }

    fn add_record(&self, record: &impl Record, line: u64, runs: &mut Runs) -> Result<()> {
        let (columns, options) = (self.columns, self.options);
        let bad = |message: String| Error::input(self.origin.clone(), Some(line), message);
        // Before the count of fields: a line of binary bytes is no row at all.
        if record.has_nul() {
            return Err(nul_byte(self.origin, line, &TABLE));
        }
        if record.len() != self.fields {
            return Err(bad(format!(
                "expected {} fields as in the header, found {}",
                self.fields,
                record.len()
            )));
        }
        let field = |i: usize| trimmed(record.get(i).unwrap_or(""));
        let run = field(columns.run);
        if run.is_empty() {
            return Err(bad(format!(
                "the `{}` column is empty; expected a run identifier",
                options.run_col
            )));
        }
        let end = match columns.end.map(field) {
            Some(text) if !text.is_empty() => Some(RunEnd::parse(text).ok_or_else(|| {
                bad(format!(
                    "`end` is `{}`; expected exit:<code>, signal:<name>, limit, or empty",
                    excerpt(text)
                ))
            })?),
            _ => None,
        };
        let unit_text = field(columns.unit);
        // `12.0`: a whole number as pandas writes an integer column that has
        // blanks (it turns it to floats); looked at only where the plain
        // integer every calib table holds does not parse.
        let whole_float = || match unit_text.split_once('.') {
            Some((digits, zeros)) if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') => {
                digits.parse().ok()
            }
            _ => None,
        };
        let unit: u64 = match unit_text.parse().ok().or_else(whole_float) {
            Some(u) if (u >= 1 || (end.is_some() && u == 0)) && u <= MAX_COUNT => u,
            _ => {
                return Err(bad(format!(
                    "`{}` is `{}`; expected a whole number of units from 1 to {MAX_COUNT}",
                    options.unit_col,
                    excerpt(unit_text)
                )))
            }
        };
        let time_text = field(columns.time);
        // An end row says how the run stopped; its time may be missing: in
        // calib's own `unit_s` column (read with `--time-col unit_s
        // --per-unit`) it is always empty, the row being no unit.
        let bad_time = || {
            // Only a number too large for seconds hints at another unit.
            let hint = match time_text.trim().parse::<f64>() {
                Ok(v) if v.is_finite() && v > MAX_SECONDS => {
                    " (a time in milliseconds, or a timestamp?)"
                }
                _ => "",
            };
            bad(format!(
                "`{}` is `{}`; expected a number of seconds from 0 to {MAX_SECONDS_TEXT}{hint}",
                options.time_col,
                excerpt(time_text)
            ))
        };
        let time = parse_seconds(time_text);
        if time.is_none() && !(end.is_some() && time_text.is_empty()) {
            return Err(bad_time());
        }
        if let Some(i) = columns.unit_s {
            let text = field(i);
            if !text.is_empty() && parse_seconds(text).is_none() {
                return Err(bad(format!(
                    "`unit_s` is `{}`; expected seconds from 0 to {MAX_SECONDS_TEXT}, or empty",
                    excerpt(text)
                )));
            }
        }
        check_counts(&field, &columns.fingerprint).map_err(bad)?;
        let stratum_text = columns.stratum.map(field).unwrap_or("");
        let place = Place {
            file: self.file_no,
            line,
        };
        // Fast path: the same run and stratum text as the previous row.
        let repeat = columns.by.is_empty()
            && runs
                .last
                .as_ref()
                .is_some_and(|(r, s, _)| r == run && s == stratum_text);
        let slot = if repeat {
            runs.last.as_ref().map(|l| l.2).unwrap_or(0)
        } else {
            let stratum_id = runs
                .strata
                .lookup(stratum_text, &columns.by, &field, &bad)?;
            let slot = match runs.slot_of(run, stratum_id) {
                Some(slot) => slot,
                None => {
                    let mut fingerprint = Fingerprint::default();
                    // These reach job scripts and their comments (`calib budget
                    // --format sbatch`): no control character gets in.
                    let values = columns
                        .fingerprint
                        .iter()
                        .zip(FINGERPRINT_COLUMNS)
                        .map(|(c, name)| {
                            let value = c.map(field).filter(|v| !v.is_empty());
                            if let Some(raw) = c.and_then(|i| record.get(i)) {
                                refuse_control(&format!("the `{name}` column"), raw)
                                    .map_err(&bad)?;
                            }
                            Ok(value.map(str::to_string))
                        })
                        .collect::<Result<Vec<Option<String>>>>()?;
                    [
                        &mut fingerprint.host,
                        &mut fingerprint.cluster,
                        &mut fingerprint.cpu_model,
                        &mut fingerprint.cpus,
                        &mut fingerprint.gpus,
                        &mut fingerprint.job_id,
                        &mut fingerprint.partition,
                        &mut fingerprint.started_at,
                        &mut fingerprint.calib_version,
                    ]
                    .into_iter()
                    .zip(values)
                    .for_each(|(slot, value)| *slot = value);
                    runs.runs.push(RunBuilder {
                        run: run.to_string(),
                        stratum: runs.strata.get(stratum_id).clone(),
                        fingerprint,
                        points: Vec::new(),
                        end: None,
                    });
                    let slot = runs.runs.len() - 1;
                    runs.file_slot(run, stratum_id, slot);
                    slot
                }
            };
            match &mut runs.last {
                Some((r, s, l)) => {
                    r.clear();
                    r.push_str(run);
                    s.clear();
                    s.push_str(stratum_text);
                    *l = slot;
                }
                None => runs.last = Some((run.to_string(), stratum_text.to_string(), slot)),
            }
            slot
        };
        let builder = &mut runs.runs[slot];
        match end {
            Some(end) => {
                if builder.end.is_some() {
                    return Err(bad(format!(
                        "run `{run}` has a second `end` row; a run ends once"
                    )));
                }
                builder.end = Some((end, unit, time, place));
            }
            None => builder
                .points
                .push((unit, time.ok_or_else(bad_time)?, place)),
        }
        Ok(())
    }
}

/// Checks a run's rows and turns them into its points; also returns the
/// warning about its gaps, if it has any.
fn finish_run(
    builder: &mut RunBuilder,
    origins: &[Origin],
    options: &IngestOptions,
) -> Result<(RunTimings, Option<IngestWarning>)> {
    if !builder.points.is_sorted_by_key(|(unit, _, _)| *unit) {
        builder.points.sort_by_key(|(unit, _, _)| *unit);
    }
    let at = |place: &Place| origins[place.file].clone();
    for pair in builder.points.windows(2) {
        let ((u0, _, p0), (u1, _, p1)) = (&pair[0], &pair[1]);
        if u0 == u1 {
            return Err(Error::input(
                at(p1),
                Some(p1.line),
                format!(
                    "run `{}` has unit {u1} twice (also {}, line {}); each (run, unit) must appear once",
                    builder.run,
                    at(p0),
                    p0.line
                ),
            ));
        }
    }
    match options.time_kind {
        TimeColumnKind::Cumulative => {
            for pair in builder.points.windows(2) {
                let ((u0, t0, p0), (u1, t1, p1)) = (&pair[0], &pair[1]);
                if t1 < t0 {
                    return Err(Error::input(
                        at(p1),
                        Some(p1.line),
                        format!(
                            "run `{}`: elapsed time goes backwards, {t1} s at unit {u1} after {t0} s at unit {u0} ({}, line {}); `{}` must be seconds since the run's start (if it holds each unit's own duration, read it with `calib fit --per-unit`)",
                            builder.run,
                            at(p0),
                            p0.line,
                            options.time_col
                        ),
                    ));
                }
            }
        }
        TimeColumnKind::PerUnit => {
            let mut total = 0.0;
            for (expected, (unit, duration, place)) in (1u64..).zip(&builder.points) {
                if *unit != expected {
                    return Err(Error::input(
                        at(place),
                        Some(place.line),
                        format!(
                            "run `{}`: per-unit durations need units 1, 2, 3, ... without gaps, but unit {expected} is missing before unit {unit}",
                            builder.run
                        ),
                    ));
                }
                total += duration;
                if total > MAX_SECONDS {
                    return Err(Error::input(
                        at(place),
                        Some(place.line),
                        format!(
                            "run `{}`: the per-unit durations add up to more than {MAX_SECONDS_TEXT} by unit {unit}; expected seconds per unit",
                            builder.run
                        ),
                    ));
                }
            }
        }
    }
    // An end row records the units the run completed: a unit row beyond it
    // is a second run under the same id (two tasks' rows merged), not this
    // run's.
    if let (Some((_, end_unit, _, end_place)), Some((unit, _, place))) =
        (&builder.end, builder.points.last())
    {
        if unit > end_unit {
            let completed = crate::output::count(*end_unit, "unit", "units");
            // An end row after the unit rows it miscounts is the row at
            // fault; a unit row after it, another run under its id.
            let error = if end_place.file == place.file && end_place.line > place.line {
                Error::input(
                    at(end_place),
                    Some(end_place.line),
                    format!(
                        "run `{}`: its end row says {completed} completed, but line {} is a row for unit {unit}; expected the end row's unit to count every unit the run finished",
                        builder.run, place.line
                    ),
                )
            } else {
                Error::input(
                    at(place),
                    Some(place.line),
                    format!(
                        "run `{}` has a row for unit {unit}, beyond its end row's {completed} completed ({}, line {}); expected the end row to close the run (two runs under one run id?)",
                        builder.run,
                        at(end_place),
                        end_place.line
                    ),
                )
            };
            return Err(error);
        }
    }
    let gaps = unit_gaps(builder, origins);
    // The points without their places, in the builder's own allocation (a
    // collect from `into_iter` into a type no larger reuses it): a fresh one
    // per run, and freeing the builders' after, took half of this step's time.
    let rows = std::mem::take(&mut builder.points).into_iter();
    let points: Vec<(u64, f64)> = match options.time_kind {
        TimeColumnKind::Cumulative => rows.map(|(unit, time, _)| (unit, time)).collect(),
        TimeColumnKind::PerUnit => {
            // The totals checked above, added in the same order.
            let mut total = 0.0;
            rows.map(|(unit, duration, _)| {
                total += duration;
                (unit, total)
            })
            .collect()
        }
    };
    // An end row's time: the time of the stop. Cumulative, its own value; per
    // unit, its value is the time from the last unit's end to the stop. One
    // without a value stops when the last recorded unit ended.
    let last = points.last().map_or(0.0, |&(_, t)| t);
    let end = match builder.end.take() {
        None => None,
        Some((end, unit, time, place)) => {
            let at = match (options.time_kind, time) {
                (TimeColumnKind::Cumulative, Some(t)) => t,
                (TimeColumnKind::PerUnit, Some(d)) => last + d,
                (_, None) => last,
            };
            if at < last {
                return Err(Error::input(
                    origins[place.file].clone(),
                    Some(place.line),
                    format!(
                        "run `{}`: the end row's time, {at} s, is before its last unit ended ({last} s); expected the time of the stop, after every unit",
                        builder.run
                    ),
                ));
            }
            if at > MAX_SECONDS {
                return Err(Error::input(
                    origins[place.file].clone(),
                    Some(place.line),
                    format!(
                        "run `{}`: the per-unit durations and the end row's add up to more than {MAX_SECONDS_TEXT}; expected seconds per unit",
                        builder.run
                    ),
                ));
            }
            Some((end, unit, at))
        }
    };
    let run = RunTimings {
        run: std::mem::take(&mut builder.run),
        stratum: std::mem::take(&mut builder.stratum),
        points,
        end,
        fingerprint: std::mem::take(&mut builder.fingerprint),
    };
    Ok((run, gaps))
}

/// The warning about the units missing from a run of several rows (sorted by
/// unit); None for a run without gaps or with a single row (a run-length row).
fn unit_gaps(builder: &RunBuilder, origins: &[Origin]) -> Option<IngestWarning> {
    if builder.points.len() < 2 {
        return None;
    }
    let (mut first_place, mut first_missing) = (None, Vec::new());
    let (mut gaps, mut units, mut previous) = (0u64, 0u64, 0u64);
    for (unit, _, place) in &builder.points {
        if *unit > previous + 1 {
            first_place.get_or_insert(place);
            if first_missing.len() < SHOWN_GAPS {
                first_missing.push((previous + 1, unit - 1));
            }
            gaps += 1;
            units += unit - 1 - previous;
        }
        previous = *unit;
    }
    first_place.map(|place| IngestWarning::UnitGaps {
        origin: origins[place.file].to_string(),
        line: place.line,
        run: builder.run.clone(),
        first_missing,
        gaps,
        units,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn trimmed_is_trim() {
        for text in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\ta\r",
            "s000-r00",
            "\u{a0}x",
            "x\u{2003}",
            "é",
            "é ",
            "12.5",
            "\u{feff}1",
        ] {
            assert_eq!(super::trimmed(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn quotes_and_newlines_are_counted_across_blocks() {
        let bytes: Vec<u8> = (0..10_000u32)
            .map(|i| match i % 5 {
                0 => b'"',
                1 | 3 => b'\n',
                _ => b'x',
            })
            .collect();
        for len in [0, 1, 254, 255, 256, 766, 10_000] {
            let slow = |byte| bytes[..len].iter().filter(|&&b| b == byte).count() as u64;
            assert_eq!(
                super::count_quotes_and_newlines(&bytes[..len]),
                (slow(b'"'), slow(b'\n'))
            );
        }
        // A block of 255 matches fills the byte-wide counter exactly.
        assert_eq!(super::count_quotes_and_newlines(&[b'"'; 600]), (600, 0));
        assert_eq!(super::count_quotes_and_newlines(&[b'\n'; 600]), (0, 600));
    }

    /// The plain decimals read without `str::parse` are its values to the
    /// bit, and everything else is left to it.
    #[test]
    fn plain_decimals_are_read_as_str_parse_reads_them() {
        let mut rng = crate::synth::Rng::new(11);
        let mut next = || rng.next_u64() >> 11;
        let mut texts: Vec<String> = [
            "0",
            "0.0",
            "00012.50",
            ".5",
            "5.",
            "1.",
            "9007199254740992",
            "9007199254740993",
            "900719925474099.3",
            "0.000000000000001",
            "0.0000000000000001",
            "1e5",
            "+1",
            "-0",
            "-1.5",
            ".",
            "",
            "1..2",
            "1.2.3",
            " 1",
            "inf",
            "NaN",
            "0x10",
            "12a",
            "1_0",
            "1234567890123456789",
            "12345678901234567890",
            "99999999999999999999.5",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        for _ in 0..100_000 {
            let (int, frac) = (next() % 100_000_000, next());
            let decimals = (next() % 17) as usize;
            let frac = format!("{frac:017}");
            let text = format!("{int}.{}", &frac[..decimals]);
            // Up to 15 digits in all: what a timings table holds.
            if decimals <= 7 {
                assert!(plain_decimal(&text).is_some(), "{text}");
            }
            texts.push(text);
            texts.push(format!("{}", (next() % (1 << 53)) as f64 / 1e6));
        }
        let mut plain = 0;
        for text in &texts {
            if let Some(v) = plain_decimal(text) {
                plain += 1;
                let parsed = text.parse::<f64>().map(f64::to_bits);
                assert_eq!(Ok(v.to_bits()), parsed, "{text}");
            }
        }
        assert!(plain > 100_000, "{plain}");
        assert_eq!(plain_decimal("14.457"), Some(14.457));
        for text in [
            "1e5",
            "+1",
            "-0",
            ".",
            "",
            "1..2",
            " 1",
            "inf",
            "9007199254740993",
        ] {
            assert_eq!(plain_decimal(text), None, "{text}");
        }
    }

    #[test]
    fn fingerprint_columns_are_the_writers() {
        assert_eq!(
            super::FINGERPRINT_COLUMNS,
            [
                "host",
                "cluster",
                "cpu_model",
                "cpus",
                "gpus",
                "job_id",
                "partition",
                "started_at",
                "calib_version"
            ]
        );
    }

    use super::*;

    /// What reading `bytes` as one piece gives (its runs and warnings, or the
    /// error), with the simple records split by `super::simple` or everything
    /// read by the csv crate; `line_offset` > 0 reads a piece without the
    /// header, as a later piece of a table.
    fn outcome(bytes: &[u8], line_offset: u64, simple: bool) -> String {
        let origin = Origin::file(Path::new("t.csv"));
        let options = IngestOptions::default();
        let columns = locate_columns(
            &csv::StringRecord::from(vec!["run", "stratum", "unit", "elapsed_s", "note"]),
            &origin,
            &options,
        )
        .unwrap();
        let body = bytes.iter().position(|&b| b == b'\n').map(|i| (i + 1, 1));
        let table = Table {
            file_no: 0,
            origin: &origin,
            fields: 5,
            columns: &columns,
            options: &options,
            ends_cleanly: bytes.ends_with(b"\n") || bytes.ends_with(b"\r"),
            body: body.filter(|_| line_offset == 0),
        };
        match table.parse_piece(bytes, line_offset, true, simple) {
            Ok((runs, warnings)) => format!("{:?} {warnings:?}", runs.runs),
            Err(e) => format!("error: {e}"),
        }
    }

    /// The simple records split without the csv crate give what the csv
    /// crate gives, record for record and line for line, on tables mixing
    /// simple rows with every case it leaves to the csv crate: quoted line
    /// breaks and quotes, CRLF and CR, NUL, bytes that are not UTF-8, byte
    /// order marks, blank lines, wrong field counts, a torn last line; read
    /// as the first piece of a table and as a later one.
    #[test]
    fn simple_records_read_as_the_csv_crate_reads_them() {
        let mut rng = crate::synth::Rng::new(2026);
        let mut next = |n: usize| ((rng.next_u64() >> 33) % n as u64) as usize;
        const NOTES: &[&[u8]] = &[
            b"x",
            b"",
            b"\"q,1\"",
            b"\"\"",
            b"\"a\"\"b\"",
            b"\"two\nlines\"",
            b"a\"b",
            b"\"a\"b",
            b"\"cr\rin\"",
            b"nul\0",
            b"\"nul\0\"",
            b"\xff\xfe",
            b"\xef\xbb\xbfbom",
            b"\xc3\xa9t\xc3\xa9",
            b" padded ",
            b"x,extra",
        ];
        const ENDS: &[&[u8]] = &[b"\n", b"\n", b"\n", b"\n", b"\r\n", b"\r", b"\n\n"];
        let mut differences = Vec::new();
        for case in 0..3000 {
            let mut body = Vec::new();
            let rows = 1 + next(12);
            // Mostly simple rows, so that a case reaches the csv crate late.
            let plain = next(4) > 0;
            for row in 0..rows {
                if next(9) == 0 {
                    body.extend_from_slice(b"\xef\xbb\xbf");
                }
                let stratum: &[u8] = [&b"d=a"[..], b"\"d=a,b=1\"", b"\"d=a\""][next(3)];
                let note = if plain && row + 2 < rows {
                    NOTES[next(3)]
                } else {
                    NOTES[next(NOTES.len())]
                };
                body.extend_from_slice(format!("r{},", next(3)).as_bytes());
                body.extend_from_slice(stratum);
                body.extend_from_slice(format!(",{},{}.5,", row + 1, row * 3).as_bytes());
                body.extend_from_slice(note);
                let end = if plain { b"\n" } else { ENDS[next(ENDS.len())] };
                body.extend_from_slice(end);
            }
            if next(4) == 0 {
                // A torn last line.
                body.extend_from_slice(b"r9,d=a,1,2");
            }
            let mut table = b"run,stratum,unit,elapsed_s,note\n".to_vec();
            table.extend_from_slice(&body);
            let by_csv = outcome(&table, 0, false);
            if outcome(&table, 0, true) != by_csv {
                differences.push((case, table.clone(), 0));
            }
            // As a later piece of a table.
            if outcome(&body, 1, true) != outcome(&body, 1, false) {
                differences.push((case, body.clone(), 1));
            }
        }
        if let Some((case, table, offset)) = differences.first() {
            panic!(
                "{} tables read otherwise, e.g. case {case}, {:?}:\ncsv crate: {}\nsimple:    {}",
                differences.len(),
                String::from_utf8_lossy(table),
                outcome(table, *offset, false),
                outcome(table, *offset, true)
            );
        }
    }

    /// A table over the parallel threshold, with quoted newlines near the cuts.
    fn big_table(bad_line: Option<u64>) -> (Vec<u8>, u64) {
        let mut s = String::from("run,stratum,unit,elapsed_s,note\n");
        let mut line = 1u64;
        let mut run = 0;
        while s.len() < PARALLEL_BYTES + (1 << 20) {
            for unit in 1..=100u64 {
                line += 1;
                let time = if bad_line == Some(line) {
                    "oops".to_string()
                } else {
                    format!("{}", unit as f64 * 1.5)
                };
                // Every 7th row carries a quoted field with a newline in it.
                let note = if line.is_multiple_of(7) {
                    "\"two\nlines\""
                } else {
                    "x"
                };
                s.push_str(&format!("r{run},\"d=a\",{unit},{time},{note}\n"));
                if line.is_multiple_of(7) {
                    line += 1;
                }
            }
            run += 1;
        }
        (s.into_bytes(), line)
    }

    #[test]
    fn the_torn_last_line_of_a_table_read_in_parallel_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.csv");
        let (mut bytes, last_line) = big_table(None);
        let rows_whole = {
            std::fs::write(&path, &bytes).unwrap();
            let t = read_timings(std::slice::from_ref(&path), &IngestOptions::default()).unwrap();
            assert!(t.warnings.is_empty(), "{:?}", t.warnings);
            t.runs.iter().map(|r| r.points.len()).sum::<usize>()
        };
        // A last row cut inside its time (`12.5` -> `12`): it parses, and is
        // read by the last of the parallel pieces.
        assert!(bytes.len() > PARALLEL_BYTES);
        bytes.extend_from_slice(b"torn,\"d=a\",1,12");
        std::fs::write(&path, &bytes).unwrap();
        let t = read_timings(&[path], &IngestOptions::default()).unwrap();
        let rows: usize = t.runs.iter().map(|r| r.points.len()).sum();
        assert_eq!(rows, rows_whole);
        assert!(t.runs.iter().all(|r| r.run != "torn"));
        assert_eq!(
            t.warnings,
            [IngestWarning::TornLastLine {
                origin: t.sources[0].to_string(),
                line: last_line + 1
            }]
        );
    }

    #[test]
    fn chunks_cut_at_line_ends_outside_quotes() {
        let (bytes, _) = big_table(None);
        let chunks = split_chunks(&bytes, 4);
        assert!(chunks.len() > 1);
        for &(start, _, lines) in &chunks[1..] {
            assert_eq!(bytes[start - 1], b'\n');
            let quotes = bytes[..start].iter().filter(|&&b| b == b'"').count();
            assert!(quotes.is_multiple_of(2));
            assert_eq!(
                lines,
                bytes[..start].iter().filter(|&&b| b == b'\n').count() as u64
            );
        }
    }

    #[test]
    fn parallel_read_matches_and_reports_the_right_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.csv");
        let (bytes, _) = big_table(None);
        std::fs::write(&path, &bytes).unwrap();
        let t = read_timings(std::slice::from_ref(&path), &IngestOptions::default()).unwrap();
        let rows: usize = t.runs.iter().map(|r| r.points.len()).sum();
        assert_eq!(rows, 100 * t.runs.len());
        // A bad value in the second half is reported at its own line.
        let (_, last) = big_table(None);
        // Multiples of 7 start a record (continuation lines are 1 mod 7).
        let target = (last - 50) / 7 * 7;
        let (bytes, _) = big_table(Some(target));
        std::fs::write(&path, &bytes).unwrap();
        let err = read_timings(&[path], &IngestOptions::default()).unwrap_err();
        match err {
            Error::Input { line, message, .. } => {
                assert_eq!(line, Some(target), "{message}");
                assert!(message.contains("oops"));
            }
            other => panic!("{other}"),
        }
    }
}
