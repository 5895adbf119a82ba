//! Output formats of `calib fit`, one file each behind [`Exporter`]; the
//! format is chosen by `--format` ([`crate::output::Format`]).

mod json;
mod table;

pub use self::json::JsonExporter;
pub use self::table::TableExporter;

use std::io;

use super::FitReport;
use crate::calibrate::Table;
use crate::output::Format;

/// One output format of a fit. Writes go straight to `out` and their errors
/// come back to the caller: never dropped, so that a closed or full stdout is
/// seen.
pub trait Exporter {
    /// `table` calibrates the projections shown at `--units`.
    fn export(&self, report: &FitReport, table: &Table, out: &mut dyn io::Write) -> io::Result<()>;
}

/// The exporter of a format.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(TableExporter),
        Format::Json => Box::new(JsonExporter),
    }
}
