//! Writing a timings file so that no finished unit is ever lost.
//!
//! The file is created exclusively (`O_EXCL`: never overwritten, never shared
//! between tasks) and opened for appending. Each row is formatted in memory and
//! handed to the kernel in a single `write` before `append` returns, so a kill of
//! calib at any moment leaves every earlier row complete in the file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::TimingRow;
use crate::atomic::{write_file, IfExists};
use crate::error::{Error, Result};

/// The column order calib writes.
pub const HEADER: [&str; 15] = [
    "run",
    "stratum",
    "unit",
    "elapsed_s",
    "unit_s",
    "host",
    "cluster",
    "cpu_model",
    "cpus",
    "gpus",
    "job_id",
    "partition",
    "started_at",
    "calib_version",
    "end",
];

pub struct TimingsWriter {
    file: File,
    path: PathBuf,
    line: Vec<u8>,
    /// The bytes of the whole rows written: where the file is cut back to
    /// when a row could not be written whole.
    whole_rows_len: u64,
    /// A part of a row stayed in the file (it could not be cut back): no
    /// row is appended after it, where it would be glued to that part.
    cut_row_stays: bool,
}

impl TimingsWriter {
    /// Creates `path`, failing if it exists, and writes the header.
    pub fn create_new(path: &Path) -> Result<TimingsWriter> {
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
        let mut writer = TimingsWriter {
            file,
            path: path.to_path_buf(),
            line: Vec::with_capacity(256),
            whole_rows_len: 0,
            cut_row_stays: false,
        };
        writer.write_record(&HEADER.map(String::from))?;
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The writer of the same file under the name it was linked to
    /// (`calib probe` stages a file under a hidden name, then links it), so
    /// that messages name the file the user sees.
    pub(crate) fn known_as(mut self, path: &Path) -> TimingsWriter {
        self.path = path.to_path_buf();
        self
    }

    /// Appends one row and hands it to the kernel before returning.
    pub fn append(&mut self, row: &TimingRow) -> Result<()> {
        self.write_record(&fields_of(row))
    }

    fn write_record(&mut self, fields: &[String]) -> Result<()> {
        if self.cut_row_stays {
            return Err(Error::Failed(format!(
                "{} ends in part of a row that could not be written whole nor removed; \
                 nothing more is appended to it (calib fit skips that last part)",
                self.path.display()
            )));
        }
        self.line.clear();
        format_record(fields, &mut self.line)?;
        // One write call per row: a kill cannot leave half of an earlier row.
        match self.file.write_all(&self.line) {
            Ok(()) => {
                self.whole_rows_len += self.line.len() as u64;
                Ok(())
            }
            Err(e) => {
                // A full disk or a file-size limit can take part of a row: cut
                // the file back to its whole rows, so that the next row (the
                // run's end, once space is back) does not continue that part
                // and make the line unreadable.
                if self.file.set_len(self.whole_rows_len).is_err() {
                    self.cut_row_stays = true;
                }
                Err(Error::io(
                    format!("cannot append to {}", self.path.display()),
                    e,
                ))
            }
        }
    }
}

/// Writes `rows` as a whole new timings file at `path`, all at once
/// ([`crate::atomic`]), for rows known in advance (`calib audit
/// --write-timings`). An existing file is kept, and the error is an I/O error
/// of kind `AlreadyExists`: timings are measurements, never overwritten.
pub(crate) fn write_timings_file(path: &Path, rows: &[TimingRow]) -> Result<()> {
    let mut text = Vec::with_capacity(256 * (rows.len() + 1));
    format_record(&HEADER.map(String::from), &mut text)?;
    for row in rows {
        format_record(&fields_of(row), &mut text)?;
    }
    write_file(path, &text, IfExists::Keep)
}

/// The fields of a row in [`HEADER`] order.
fn fields_of(row: &TimingRow) -> [String; 15] {
    let fp = &row.fingerprint;
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    [
        row.run.clone(),
        row.stratum.canonical(),
        row.unit.to_string(),
        format_seconds(row.elapsed_s),
        row.unit_s.map(format_seconds).unwrap_or_default(),
        opt(&fp.host),
        opt(&fp.cluster),
        opt(&fp.cpu_model),
        opt(&fp.cpus),
        opt(&fp.gpus),
        opt(&fp.job_id),
        opt(&fp.partition),
        opt(&fp.started_at),
        opt(&fp.calib_version),
        row.end.as_ref().map(|e| e.to_field()).unwrap_or_default(),
    ]
}

/// Appends one CSV line (quoted as needed, `\n`-terminated) to `out`.
fn format_record(fields: &[String], out: &mut Vec<u8>) -> Result<()> {
    let mut csv = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    csv.write_record(fields)
        .and_then(|_| csv.flush().map_err(csv::Error::from))
        .map_err(|e| Error::Failed(format!("cannot format a timings row: {e}")))
}

/// Seconds to the microsecond, without trailing zeros.
fn format_seconds(seconds: f64) -> String {
    crate::output::trimmed(seconds, 6)
}
