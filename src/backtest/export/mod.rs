//! Output formats of `calib backtest`, one file each behind [`Exporter`].

mod csv;
mod json;
mod table;

pub(crate) use self::csv::CsvExporter;
pub use self::json::JsonExporter;
pub use self::table::TableExporter;

use std::io;

use super::Backtest;

/// One output format of a backtest. Write errors come back to the caller,
/// never dropped, so that a closed or full stdout is seen.
pub trait Exporter {
    fn export(&self, report: &Backtest, out: &mut dyn io::Write) -> io::Result<()>;
}

/// Output format of `calib backtest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    Csv,
}

/// The exporter of a format.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Table => Box::new(TableExporter),
        Format::Json => Box::new(JsonExporter),
        Format::Csv => Box::new(CsvExporter),
    }
}

/// A ratio such as a headroom, `1.32x`; `-` when undefined.
fn ratio(x: f64) -> String {
    if x.is_finite() {
        crate::output::factor(x, 2)
    } else {
        "-".to_string()
    }
}

/// A share such as the observed coverage, `87.5%`; `-` when undefined (no
/// budget was given), never `NaN%`.
fn share(x: f64) -> String {
    if x.is_finite() {
        crate::output::percent(x, 1)
    } else {
        "-".to_string()
    }
}
