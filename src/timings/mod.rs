//! The timings file: calib's contract between `probe` (which writes it) and `fit`
//! (which reads it, from any source).
//!
//! CSV with a header, UTF-8, one row per completed unit. Required columns: `run`,
//! `stratum`, `unit`, `elapsed_s`. Optional: `unit_s`, the fingerprint columns
//! (`host`, `cluster`, `cpu_model`, `cpus`, `gpus`, `job_id`, `partition`,
//! `started_at`, `calib_version`) and `end`. A row with a non-empty `end` is the
//! last row of a probed run: it records how the run stopped (`exit:<code>`,
//! `signal:<name>`, `limit`), with `unit` = units completed and `elapsed_s` = the
//! time of the stop; it is not a unit completion. Every row carries its own
//! identifying fields, so files can be concatenated or merged in any order.

mod reader;
mod simple;
mod writer;

pub(crate) use reader::read_as_timings;
pub use reader::{read_timings, IngestOptions, IngestWarning, TimeColumnKind, Timings};
pub(crate) use writer::write_timings_file;
pub use writer::{TimingsWriter, HEADER};

use crate::stratum::Stratum;

/// Where and how a run was measured.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    pub host: Option<String>,
    pub cluster: Option<String>,
    pub cpu_model: Option<String>,
    pub cpus: Option<String>,
    pub gpus: Option<String>,
    pub job_id: Option<String>,
    pub partition: Option<String>,
    pub started_at: Option<String>,
    pub calib_version: Option<String>,
}

/// How a probed run stopped (the `end` column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunEnd {
    /// The command exited by itself with this status.
    Exit(i32),
    /// The command was killed by this signal (`TERM`, `KILL`, ...).
    Signal(String),
    /// calib stopped it after `--units` units.
    Limit,
}

impl RunEnd {
    pub fn to_field(&self) -> String {
        match self {
            RunEnd::Exit(code) => format!("exit:{code}"),
            RunEnd::Signal(name) => format!("signal:{name}"),
            RunEnd::Limit => "limit".to_string(),
        }
    }

    pub fn parse(field: &str) -> Option<RunEnd> {
        if field == "limit" {
            return Some(RunEnd::Limit);
        }
        if let Some(code) = field.strip_prefix("exit:") {
            return code.parse().ok().map(RunEnd::Exit);
        }
        field
            .strip_prefix("signal:")
            .filter(|name| !name.is_empty())
            .map(|name| RunEnd::Signal(name.to_string()))
    }
}

/// One row of a timings file.
#[derive(Debug, Clone, PartialEq)]
pub struct TimingRow {
    pub run: String,
    pub stratum: Stratum,
    /// 1-based index of the unit that just finished (or, for a run-length row,
    /// the run's length; for an end row, the number of units completed).
    pub unit: u64,
    /// Seconds from the run's start to the end of this unit.
    pub elapsed_s: f64,
    pub unit_s: Option<f64>,
    pub fingerprint: Fingerprint,
    pub end: Option<RunEnd>,
}

/// One measured run: its unit completions in order, and how it ended if known.
#[derive(Debug, Clone, PartialEq)]
pub struct RunTimings {
    pub run: String,
    pub stratum: Stratum,
    /// (unit index, elapsed seconds since the run's start), strictly increasing
    /// in unit, non-decreasing in time.
    pub points: Vec<(u64, f64)>,
    pub end: Option<(RunEnd, u64, f64)>,
    pub fingerprint: Fingerprint,
}
