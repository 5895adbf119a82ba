//! Reading timings files: calib's own, and foreign tables with other column names.
//!
//! Errors name the file, the line and what was expected. A last line cut short
//! by a kill (the file does not end in a newline and its last record is malformed)
//! is skipped with a warning; the rest of the file is kept.
//!
//! Speed: a table over 8 MiB is cut at line ends outside quoted fields into one
//! piece per core; the pieces are parsed in parallel into their own runs and
//! merged in file order, so messages and checks are those of a sequential read
//! (the first bad line of the file is the one reported). Consecutive rows of one
//! run skip the run and stratum lookups; records are swapped, never cloned.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::HEADER;
use super::{Fingerprint, RunEnd, RunTimings};
use crate::error::{Error, Origin, Result};
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
}

impl Default for IngestOptions {
    fn default() -> Self {
        IngestOptions {
            by: Vec::new(),
            run_col: "run".to_string(),
            unit_col: "unit".to_string(),
            time_col: "elapsed_s".to_string(),
            time_kind: TimeColumnKind::Cumulative,
        }
    }
}

/// Something odd in the input that did not stop the read.
#[derive(Debug, Clone, PartialEq)]
pub enum IngestWarning {
    /// The last line of a file was cut short (a kill while writing) and was skipped.
    TornLastLine { origin: String, line: u64 },
    /// A folder held no `*.csv` file.
    EmptyFolder { path: PathBuf },
    /// A file was empty (not even a header): skipped.
    EmptyFile { origin: String },
}

impl fmt::Display for IngestWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IngestWarning::TornLastLine { origin, line } => write!(
                f,
                "{origin}, line {line}: the last line is cut short (the run was killed while writing it); skipped it, every earlier row is kept"
            ),
            IngestWarning::EmptyFile { origin } => write!(
                f,
                "{origin}: the file is empty (a task killed before its first row?); skipped it"
            ),
            IngestWarning::EmptyFolder { path } => write!(
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
}

/// Expands the command-line inputs: files as given, folders to their `*.csv`
/// files (and `*.parquet` with the `polars` feature), sorted, and `-` for
/// standard input.
pub fn expand_inputs(
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
            let mut found: Vec<PathBuf> = std::fs::read_dir(input)
                .map_err(|e| Error::io(format!("cannot list {}", input.display()), e))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension().is_some_and(|ext| {
                        ext.eq_ignore_ascii_case("csv")
                            || (cfg!(feature = "polars") && ext.eq_ignore_ascii_case("parquet"))
                    })
                })
                .collect();
            found.sort();
            if found.is_empty() {
                warnings.push(IngestWarning::EmptyFolder {
                    path: input.clone(),
                });
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    Ok(files)
}

/// Reads every input and returns its runs, checked: no duplicate (run, unit), no
/// run in two strata, elapsed time never going backwards within a run.
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
    for builder in all.runs {
        out.push(finish_run(builder, &origins, options)?);
    }
    Ok(Timings {
        runs: out,
        warnings,
    })
}

fn read_source(path: &Path) -> Result<(Origin, Vec<u8>)> {
    let mut bytes = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io("cannot read standard input", e))?;
        Ok((Origin::Stdin, bytes))
    } else if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
    {
        #[cfg(feature = "polars")]
        {
            Ok((Origin::file(path), super::parquet::parquet_as_csv(path)?))
        }
        #[cfg(not(feature = "polars"))]
        {
            Err(Error::input(
                Origin::file(path),
                None,
                "Parquet input needs calib built with `--features polars`; or convert the table to CSV",
            ))
        }
    } else {
        bytes = std::fs::read(path)
            .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        Ok((Origin::file(path), bytes))
    }
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

fn locate_columns(
    header: &csv::StringRecord,
    origin: &Origin,
    options: &IngestOptions,
) -> Result<Columns> {
    let find = |name: &str| header.iter().position(|h| h.trim() == name);
    let need = |name: &str, why: &str| {
        find(name).ok_or_else(|| {
            Error::input(
                origin.clone(),
                Some(1),
                format!(
                    "the header has no `{name}` column ({why}); found: {}{}",
                    header.iter().collect::<Vec<_>>().join(", "),
                    column_flags_hint(header, options)
                ),
            )
        })
    };
    let stratum = find("stratum");
    if stratum.is_none() && options.by.is_empty() {
        return Err(Error::input(
            origin.clone(),
            Some(1),
            format!(
                "the header has no `stratum` column; name the columns that define strata with --by (found: {})",
                header.iter().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let mut by = Vec::new();
    for name in &options.by {
        by.push((name.clone(), need(name, "named by --by")?));
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

/// For a header that lacks calib's column names: the flags that would name
/// the columns of a foreign table, guessed from their names (`epoch`,
/// `seconds`), as `; if ... pass --unit-col epoch --time-col seconds`. Empty
/// when nothing looks like a candidate. Only a suggestion for the message:
/// calib never reads a guessed column by itself.
fn column_flags_hint(header: &csv::StringRecord, options: &IngestOptions) -> String {
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
            flags.push(format!("{flag} {column}"));
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
    /// Index into the strata of the `Runs` that holds this builder.
    stratum_id: usize,
    fingerprint: Fingerprint,
    /// (unit, time, where)
    points: Vec<(u64, f64, Place)>,
    end: Option<(RunEnd, u64, f64, Place)>,
}

impl RunBuilder {
    fn first_line(&self) -> u64 {
        self.points
            .first()
            .map(|p| p.2.line)
            .or(self.end.as_ref().map(|e| e.3.line))
            .unwrap_or(0)
    }
}

/// Runs being read: of one chunk of a file, or (merged) of every input.
#[derive(Default)]
struct Runs {
    runs: Vec<RunBuilder>,
    index: HashMap<String, usize>,
    strata: StrataCache,
    /// The previous row's run and raw stratum text and its slot: consecutive
    /// rows of one run skip the lookups.
    last: Option<(String, String, usize)>,
}

impl Runs {
    /// Moves the runs of `other` (read after everything in `self`) into `self`.
    fn merge(&mut self, other: Runs, origin: &Origin) -> Result<()> {
        for b in other.runs {
            let stratum_id = self.strata.intern(&b.stratum);
            match self.index.get(&b.run) {
                None => {
                    self.index.insert(b.run.clone(), self.runs.len());
                    self.runs.push(RunBuilder { stratum_id, ..b });
                }
                Some(&slot) => {
                    let line = b.first_line();
                    let into = &mut self.runs[slot];
                    if into.stratum_id != stratum_id {
                        return Err(Error::input(
                            origin.clone(),
                            Some(line),
                            format!(
                                "run `{}` is in stratum `{}` here but in `{}` on an earlier row; a run belongs to one stratum (are two campaigns sharing run identifiers?)",
                                b.run, b.stratum, into.stratum
                            ),
                        ));
                    }
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

/// Splits a CSV body into up to `parts` pieces at line ends outside quoted
/// fields (a position is outside quotes when the number of `"` before it is
/// even, escaped quotes coming in pairs). Returns (start, end, newlines before
/// start) per piece.
fn split_chunks(bytes: &[u8], parts: usize) -> Vec<(usize, usize, u64)> {
    if parts <= 1 || bytes.len() < PARALLEL_BYTES {
        return vec![(0, bytes.len(), 0)];
    }
    let mut cuts = vec![(0usize, 0u64)];
    let (mut scanned, mut quotes, mut newlines) = (0usize, 0usize, 0u64);
    'parts: for k in 1..parts {
        let mut p = (bytes.len() * k / parts).max(scanned);
        loop {
            let Some(i) = bytes[p..].iter().position(|&b| b == b'\n') else {
                break 'parts;
            };
            p += i + 1;
            for &b in &bytes[scanned..p] {
                quotes += usize::from(b == b'"');
                newlines += u64::from(b == b'\n');
            }
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
    let header = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes)
        .headers()
        .map_err(|e| {
            Error::input(
                origin.clone(),
                Some(1),
                format!("cannot read the header: {e}"),
            )
        })?
        .clone();
    let columns = locate_columns(&header, origin, options)?;
    // calib's own writer ends every row with a newline in the same write, so in
    // a file with its header an unterminated last line is torn by construction,
    // even when what is left of it still parses (`12.3` cut from `12.345`).
    let bytes = if !bytes.ends_with(b"\n") && header.iter().eq(HEADER.iter().copied()) {
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        warnings.push(IngestWarning::TornLastLine {
            origin: origin.to_string(),
            line: bytes[..keep].iter().filter(|&&b| b == b'\n').count() as u64 + 1,
        });
        &bytes[..keep]
    } else {
        bytes
    };
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let chunks = split_chunks(bytes, threads);
    let table = Table {
        file_no,
        origin,
        fields: header.len(),
        columns: &columns,
        options,
        ends_cleanly: bytes.ends_with(b"\n"),
    };
    let last = chunks.len() - 1;
    let results: Vec<Result<(Runs, Vec<IngestWarning>)>> = if chunks.len() == 1 {
        vec![table.parse_chunk(bytes, 0, true)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .iter()
                .enumerate()
                .map(|(k, &(start, end, lines))| {
                    let table = &table;
                    scope.spawn(move || table.parse_chunk(&bytes[start..end], lines, k == last))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a reading thread panicked"))
                .collect()
        })
    };
    for result in results {
        let (runs, w) = result?;
        warnings.extend(w);
        all.merge(runs, origin)?;
    }
    Ok(())
}

/// What every chunk of one table shares.
struct Table<'a> {
    file_no: usize,
    origin: &'a Origin,
    fields: usize,
    columns: &'a Columns,
    options: &'a IngestOptions,
    ends_cleanly: bool,
}

impl Table<'_> {
    /// Parses one piece of the table: the first (`line_offset` 0) starts with the
    /// header; `is_last` marks the piece whose last line may be torn.
    fn parse_chunk(
        &self,
        bytes: &[u8],
        line_offset: u64,
        is_last: bool,
    ) -> Result<(Runs, Vec<IngestWarning>)> {
        let mut runs = Runs::default();
        let mut warnings = Vec::new();
        let may_be_torn = is_last && !self.ends_cleanly;
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .has_headers(line_offset == 0)
            .from_reader(bytes);
        let mut record = csv::StringRecord::new();
        // The previous record, held back by one so that the last can be judged
        // as possibly torn; swapped with `record`, never cloned.
        let mut held = csv::StringRecord::new();
        let mut held_line: Option<u64> = None;
        loop {
            match reader.read_record(&mut record) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    let line = line_offset + e.position().map(|p| p.line()).unwrap_or(0);
                    // Invalid UTF-8 or a broken quote at the very end is a torn line.
                    if may_be_torn && reader.is_done() {
                        warnings.push(IngestWarning::TornLastLine {
                            origin: self.origin.to_string(),
                            line,
                        });
                        break;
                    }
                    return Err(Error::input(
                        self.origin.clone(),
                        Some(line),
                        format!("not valid CSV: {e}"),
                    ));
                }
            }
            let line = line_offset + record.position().map(|p| p.line()).unwrap_or(0);
            if let Some(previous_line) = held_line {
                self.add_record(&held, previous_line, &mut runs)?;
            }
            std::mem::swap(&mut record, &mut held);
            held_line = Some(line);
        }
        if let Some(line) = held_line {
            match self.add_record(&held, line, &mut runs) {
                Err(Error::Input { .. }) if may_be_torn => {
                    warnings.push(IngestWarning::TornLastLine {
                        origin: self.origin.to_string(),
                        line,
                    })
                }
                other => other?,
            }
        }
        Ok((runs, warnings))
    }

    fn add_record(&self, record: &csv::StringRecord, line: u64, runs: &mut Runs) -> Result<()> {
        let (columns, options) = (self.columns, self.options);
        let bad = |message: String| Error::input(self.origin.clone(), Some(line), message);
        if record.len() != self.fields {
            return Err(bad(format!(
                "expected {} fields as in the header, found {}",
                self.fields,
                record.len()
            )));
        }
        let field = |i: usize| record.get(i).unwrap_or("").trim();
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
                    "`end` is `{text}`; expected exit:<code>, signal:<name>, limit, or empty"
                ))
            })?),
            _ => None,
        };
        let unit_text = field(columns.unit);
        let unit: u64 = match unit_text.parse() {
            Ok(u) if u >= 1 || (end.is_some() && u == 0) => u,
            _ => {
                return Err(bad(format!(
                    "`{}` is `{unit_text}`; expected a whole number of units, 1 or more",
                    options.unit_col
                )))
            }
        };
        let time_text = field(columns.time);
        let time: f64 = match time_text.parse::<f64>() {
            Ok(t) if t.is_finite() && t >= 0.0 => t,
            _ => {
                return Err(bad(format!(
                    "`{}` is `{time_text}`; expected a number of seconds, 0 or more",
                    options.time_col
                )))
            }
        };
        if let Some(i) = columns.unit_s {
            let text = field(i);
            if !text.is_empty() && !text.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0) {
                return Err(bad(format!(
                    "`unit_s` is `{text}`; expected seconds or empty"
                )));
            }
        }
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
            let slot = match runs.index.get(run) {
                Some(&slot) => slot,
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
                        stratum_id,
                        fingerprint,
                        points: Vec::new(),
                        end: None,
                    });
                    runs.index.insert(run.to_string(), runs.runs.len() - 1);
                    runs.runs.len() - 1
                }
            };
            let builder = &runs.runs[slot];
            if builder.stratum_id != stratum_id {
                return Err(bad(format!(
                    "run `{run}` is in stratum `{}` here but in `{}` on an earlier row; a run belongs to one stratum (are two campaigns sharing run identifiers?)",
                    runs.strata.get(stratum_id),
                    builder.stratum
                )));
            }
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
            None => builder.points.push((unit, time, place)),
        }
        Ok(())
    }
}

fn finish_run(
    mut builder: RunBuilder,
    origins: &[Origin],
    options: &IngestOptions,
) -> Result<RunTimings> {
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
    let mut points: Vec<(u64, f64)> = Vec::with_capacity(builder.points.len());
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
            points.extend(builder.points.iter().map(|(u, t, _)| (*u, *t)));
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
                points.push((*unit, total));
            }
        }
    }
    let end = builder.end.map(|(end, unit, time, _)| (end, unit, time));
    Ok(RunTimings {
        run: builder.run,
        stratum: builder.stratum,
        points,
        end,
        fingerprint: builder.fingerprint,
    })
}

#[cfg(test)]
mod tests {
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
