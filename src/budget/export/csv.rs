//! `--format csv`: one row per stratum, for spreadsheets and scripts.

use std::io;

use super::{ExportContext, Exporter};
use crate::budget::Budget;

pub struct CsvExporter;

const HEADER: [&str; 13] = [
    "stratum",
    "units",
    "tasks",
    "predicted_s",
    "floor_s",
    "upper_s",
    "confidence",
    "time",
    "time_s",
    "partition",
    "status",
    "estimate",
    "notes",
];

impl Exporter for CsvExporter {
    fn export(
        &self,
        budget: &Budget,
        _context: &ExportContext,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        writer.write_record(HEADER).map_err(into_io)?;
        for s in &budget.strata {
            writer
                .write_record([
                    s.stratum.clone(),
                    s.units.to_string(),
                    s.tasks.to_string(),
                    format!("{:.3}", s.projection.predicted_s),
                    format!("{:.3}", s.projection.floor_s),
                    format!("{:.3}", s.projection.upper_s),
                    budget.confidence.to_string(),
                    s.time_given().unwrap_or_default(),
                    s.time_given()
                        .map(|_| s.decision.time_s().to_string())
                        .unwrap_or_default(),
                    s.decision.partition.clone().unwrap_or_default(),
                    s.decision.status.as_str().to_string(),
                    budget.provenance.is_estimate().to_string(),
                    s.notes
                        .iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(" | "),
                ])
                .map_err(into_io)?;
        }
        writer.flush()
    }
}

/// The write error inside a csv error, kind and all (csv's own conversion
/// makes every error `Other`, which would hide a closed stdout).
fn into_io(error: csv::Error) -> io::Error {
    if !error.is_io_error() {
        return io::Error::other(error);
    }
    match error.into_kind() {
        csv::ErrorKind::Io(e) => e,
        kind => io::Error::other(format!("{kind:?}")),
    }
}
