//! `--format json`: the model file's content, plus per-stratum projections at
//! `--units` (when given), each with why `calib budget` would give it no time
//! (`unsupported`, else `null`), and the typed warnings.

use std::io;

use super::Exporter;
use crate::fit::FitReport;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &FitReport, out: &mut dyn io::Write) -> io::Result<()> {
        let projections: Vec<serde_json::Value> = match report.options.units {
            Some(n) => report
                .model
                .strata
                .iter()
                .zip(report.projections(n))
                .map(|(m, p)| {
                    // As calib budget decides it: `null`, or why it gives no time.
                    let unsupported = m.support_under(&p, crate::model::BendPolicy::Note);
                    serde_json::json!({ "stratum": m.stratum, "projection": p, "unsupported": unsupported })
                })
                .collect(),
            None => Vec::new(),
        };
        let value = serde_json::json!({
            "model": report.model,
            "units": report.options.units,
            "confidence": report.options.confidence,
            "projections": projections,
            "warnings": report.warnings.iter().map(|w| serde_json::json!({
                "warning": w,
                "message": w.to_string(),
            })).collect::<Vec<_>>(),
        });
        serde_json::to_writer_pretty(&mut *out, &value)?;
        out.write_all(b"\n")
    }
}
