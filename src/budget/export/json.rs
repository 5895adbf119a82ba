//! `--format json`: the contract of design.md (`schema`, `units`,
//! `confidence`, and per stratum `stratum`, `units`, `tasks`, `predicted_s`,
//! `floor_s`, `upper_s`, `time`, `time_s`, `partition`, `status`, `notes`),
//! plus the fields design.md lists beside them.

use std::io;

use serde_json::{json, Value};

use super::{ExportContext, Exporter};
use crate::budget::summary::summarize;
use crate::budget::Budget;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(
        &self,
        budget: &Budget,
        context: &ExportContext,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        let strata: Vec<Value> = budget
            .strata
            .iter()
            .map(|s| {
                json!({
                    "stratum": s.stratum,
                    "units": s.units,
                    "tasks": s.tasks,
                    "predicted_s": round3(s.projection.predicted_s),
                    "floor_s": round3(s.projection.floor_s),
                    "upper_s": round3(s.projection.upper_s),
                    "seed_margin": s.projection.bound.map(|b| round3(b.seed_margin())),
                    "extrapolation_margin": s.projection.bound.map(|b| round3(b.extrapolation_margin())),
                    "calibration_programs": s.projection.bound.map(|b| round3(b.factor.programs)),
                    "time": s.time_given(),
                    "time_s": s.time_given().map(|_| s.decision.time_s()),
                    "partition": s.decision.partition,
                    "status": s.decision.status,
                    "segments": s.decision.segments,
                    "estimate": budget.provenance.is_estimate(),
                    "notes": crate::note::all_to_json(&s.notes),
                    "basis": {
                        "runs": s.basis.runs,
                        "units_probed": s.basis.units_probed,
                        "model": s.basis.model,
                        "rate_first_s": round3(s.basis.rate_first_s),
                        "rate_last_s": round3(s.basis.rate_last_s),
                        "startup_s": round3(s.basis.startup_s),
                        "probe_units": s.basis.probe_units,
                        "clusters": s.basis.clusters,
                        "cpu_models": s.basis.cpu_models,
                        "measured_from": s.basis.measured_from,
                    },
                })
            })
            .collect();
        let summary = summarize(budget);
        let doc = json!({
            "schema": crate::note::JSON_SCHEMA,
            "calib_version": crate::VERSION,
            "created_at": context.created_at,
            "units": budget.units,
            "confidence": budget.confidence,
            "partitions": budget.partitions,
            "target_cluster": budget.target.cluster,
            "estimate": budget.provenance.is_estimate(),
            "notes": crate::note::all_to_json(&budget.notes),
            "strata": strata,
            "summary": {
                "tasks": summary.tasks,
                "requested_hours": round3(summary.requested_hours),
                "predicted_hours": round3(summary.predicted_hours),
                "longest": summary.longest.as_ref().map(|(s, t)| json!({"stratum": s, "time_s": t})),
                "buckets": summary.buckets.iter().map(|b| json!({"bucket": b.bucket, "strata": b.strata, "tasks": b.tasks})).collect::<Vec<_>>(),
            },
        });
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        out.write_all(b"\n")
    }
}

/// Seconds (or a factor) to the millisecond for the JSON documents of
/// `calib budget` and `calib resume`: a finite value rounded to 3 decimals,
/// anything else as it is.
pub(crate) fn round3(x: f64) -> f64 {
    if x.is_finite() {
        (x * 1000.0).round() / 1000.0
    } else {
        x
    }
}
