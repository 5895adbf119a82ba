//! Reading timings files: calib's own, and foreign tables with other column names.
//!
//! Errors name the file, the line and what was expected. A last line cut short
//! by a kill (the file does not end in a newline and its last record is malformed)
//! is skipped with a warning; the rest of the file is kept.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Fingerprint, RunEnd, RunTimings};
use crate::error::{Error, Origin, Result};
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
}

impl fmt::Display for IngestWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IngestWarning::TornLastLine { origin, line } => write!(
                f,
                "{origin}, line {line}: the last line is cut short (the run was killed while writing it); skipped it, every earlier row is kept"
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
        let meta = std::fs::metadata(input)
            .map_err(|e| Error::io(format!("cannot read {}", input.display()), e))?;
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

/// Strata seen so far, by their raw text (stratum column and `--by` values), so
/// that a row costs one hash lookup and no allocation once its stratum is known.
#[derive(Default)]
struct StrataCache {
    by_key: HashMap<String, usize>,
    strata: Vec<Stratum>,
    key: String,
}

impl StrataCache {
    fn get(&self, id: usize) -> &Stratum {
        &self.strata[id]
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
        // Two spellings of one stratum (`b=1,a=2` and `a=2,b=1`) share an id.
        let id = match self.strata.iter().position(|t| *t == s) {
            Some(id) => id,
            None => {
                self.strata.push(s);
                self.strata.len() - 1
            }
        };
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
    /// Index into the reader's strata (shared by all files of one read).
    stratum_id: usize,
    fingerprint: Fingerprint,
    /// (unit, time, where)
    points: Vec<(u64, f64, Place)>,
    end: Option<(RunEnd, u64, f64, Place)>,
}

/// Reads every input and returns its runs, checked: no duplicate (run, unit), no
/// run in two strata, elapsed time never going backwards within a run.
pub fn read_timings(inputs: &[PathBuf], options: &IngestOptions) -> Result<Timings> {
    let mut warnings = Vec::new();
    let files = expand_inputs(inputs, &mut warnings)?;
    let mut origins: Vec<Origin> = Vec::new();
    let mut runs: Vec<RunBuilder> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut strata = StrataCache::default();
    for path in &files {
        let (origin, bytes) = read_source(path)?;
        origins.push(origin);
        let file_no = origins.len() - 1;
        read_table(
            &bytes,
            file_no,
            &origins[file_no],
            options,
            &mut runs,
            &mut index,
            &mut strata,
            &mut warnings,
        )?;
    }
    let mut out = Vec::with_capacity(runs.len());
    for builder in runs {
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

const FINGERPRINT_COLUMNS: [&str; 9] = [
    "host",
    "cluster",
    "cpu_model",
    "cpus",
    "gpus",
    "job_id",
    "partition",
    "started_at",
    "calib_version",
];

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
                    "the header has no `{name}` column ({why}); found: {}",
                    header.iter().collect::<Vec<_>>().join(", ")
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
    for (slot, name) in fingerprint.iter_mut().zip(FINGERPRINT_COLUMNS) {
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

#[allow(clippy::too_many_arguments)]
fn read_table(
    bytes: &[u8],
    file_no: usize,
    origin: &Origin,
    options: &IngestOptions,
    runs: &mut Vec<RunBuilder>,
    index: &mut HashMap<String, usize>,
    strata: &mut StrataCache,
    warnings: &mut Vec<IngestWarning>,
) -> Result<()> {
    if bytes.is_empty() {
        return Err(Error::input(
            origin.clone(),
            None,
            "the file is empty; expected a CSV header",
        ));
    }
    let ends_cleanly = bytes.ends_with(b"\n");
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .has_headers(true)
        .from_reader(bytes);
    let header = reader
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
    let mut record = csv::StringRecord::new();
    // The previous record, held back by one so that the last can be judged as
    // possibly torn; swapped with `record`, never cloned.
    let mut held = csv::StringRecord::new();
    let mut held_line: Option<u64> = None;
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                // Invalid UTF-8 or a broken quote at the very end is a torn line.
                if !ends_cleanly && reader.is_done() {
                    warnings.push(IngestWarning::TornLastLine {
                        origin: origin.to_string(),
                        line,
                    });
                    break;
                }
                return Err(Error::input(
                    origin.clone(),
                    Some(line),
                    format!("not valid CSV: {e}"),
                ));
            }
        }
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        if let Some(previous_line) = held_line {
            add_record(
                &held,
                previous_line,
                file_no,
                origin,
                &header,
                &columns,
                options,
                runs,
                index,
                strata,
            )?;
        }
        std::mem::swap(&mut record, &mut held);
        held_line = Some(line);
    }
    if let Some(line) = held_line {
        let result = add_record(
            &held, line, file_no, origin, &header, &columns, options, runs, index, strata,
        );
        match result {
            Err(Error::Input { .. }) if !ends_cleanly => {
                warnings.push(IngestWarning::TornLastLine {
                    origin: origin.to_string(),
                    line,
                })
            }
            other => other?,
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_record(
    record: &csv::StringRecord,
    line: u64,
    file_no: usize,
    origin: &Origin,
    header: &csv::StringRecord,
    columns: &Columns,
    options: &IngestOptions,
    runs: &mut Vec<RunBuilder>,
    index: &mut HashMap<String, usize>,
    strata: &mut StrataCache,
) -> Result<()> {
    let bad = |message: String| Error::input(origin.clone(), Some(line), message);
    if record.len() != header.len() {
        return Err(bad(format!(
            "expected {} fields as in the header, found {}",
            header.len(),
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
    let stratum_id = strata.lookup(stratum_text, &columns.by, &field, &bad)?;
    let place = Place {
        file: file_no,
        line,
    };
    let slot = match index.get(run) {
        Some(&slot) => slot,
        None => {
            let mut fingerprint = Fingerprint::default();
            let values: Vec<Option<String>> = columns
                .fingerprint
                .iter()
                .map(|c| c.map(field).filter(|v| !v.is_empty()).map(str::to_string))
                .collect();
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
            runs.push(RunBuilder {
                run: run.to_string(),
                stratum: strata.get(stratum_id).clone(),
                stratum_id,
                fingerprint,
                points: Vec::new(),
                end: None,
            });
            index.insert(run.to_string(), runs.len() - 1);
            runs.len() - 1
        }
    };
    let builder = &mut runs[slot];
    if builder.stratum_id != stratum_id {
        return Err(bad(format!(
            "run `{run}` is in stratum `{}` here but in `{}` on an earlier row; a run belongs to one stratum (are two campaigns sharing run identifiers?)",
            strata.get(stratum_id),
            builder.stratum
        )));
    }
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

fn finish_run(
    mut builder: RunBuilder,
    origins: &[Origin],
    options: &IngestOptions,
) -> Result<RunTimings> {
    builder.points.sort_by_key(|(unit, _, _)| *unit);
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
                            "run `{}`: elapsed time goes backwards, {t1} s at unit {u1} after {t0} s at unit {u0} ({}, line {}); `{}` must be seconds since the run's start",
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
