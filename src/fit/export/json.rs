//! `--format json`: the model file's content, plus per-stratum projections at
//! `--units` (when given), each with why `calib budget` would give it no time
//! (`unsupported`, else `null`), and the typed warnings.

use std::io;

use super::Exporter;
use crate::calibrate::Table;
use crate::fit::FitReport;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &FitReport, table: &Table, out: &mut dyn io::Write) -> io::Result<()> {
        let projections: Vec<serde_json::Value> = match report.options.units {
            Some(n) => report
                .model
                .strata
                .iter()
                .zip(report.projections(n, table))
                .map(|(m, p)| {
                    // As calib budget decides it: `null`, or why it gives no time.
                    let unsupported = p.unsupported.map(|u| {
                        serde_json::json!({ "why": u, "message": u.explain(n, m.probe_units()) })
                    });
                    serde_json::json!({
                        "stratum": m.stratum,
                        "projection": {
                            "units": p.units,
                            "predicted_s": p.predicted_s,
                            "floor_s": p.floor_s,
                            "upper_s": p.upper_s,
                            "confidence": p.confidence,
                            "notes": p.notes,
                        },
                        "unsupported": unsupported,
                    })
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
