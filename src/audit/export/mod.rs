//! Output formats of `calib audit`, one file each behind [`Exporter`]; the
//! format is chosen by `--format` ([`crate::output::Format`]).

mod json;
mod table;

pub use self::json::JsonExporter;
pub use self::table::TableExporter;

use std::io;

use super::Audit;
use crate::output::Format;

/// One output format of an audit. Writes go straight to `out` and their
/// errors come back to the caller: never dropped, so that a closed or full
/// stdout is seen.
pub trait Exporter {
    fn export(&self, audit: &Audit, out: &mut dyn io::Write) -> io::Result<()>;
}

/// The exporter of a format.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(TableExporter),
        Format::Json => Box::new(JsonExporter),
    }
}
