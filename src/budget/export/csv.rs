//! `--format csv`: one row per stratum, for spreadsheets and scripts.

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
    fn render(&self, budget: &Budget, _context: &ExportContext) -> String {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let _ = writer.write_record(HEADER);
        for s in &budget.strata {
            let _ = writer.write_record([
                s.stratum.clone(),
                s.units.to_string(),
                s.tasks.to_string(),
                format!("{:.3}", s.projection.predicted_s),
                format!("{:.3}", s.projection.floor_s),
                format!("{:.3}", s.projection.upper_s),
                budget.confidence.to_string(),
                s.time(),
                s.decision.time_s().to_string(),
                s.decision.partition.clone().unwrap_or_default(),
                s.decision.status.as_str().to_string(),
                budget.provenance.is_estimate().to_string(),
                s.notes.join(" | "),
            ]);
        }
        writer
            .into_inner()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()
    }
}
