//! `--format json`: the plan for programs. Per stratum the fields of `calib
//! budget`'s JSON (`stratum`, `units`, `predicted_s`, `floor_s`, `upper_s`,
//! `time`, `time_s`, `partition`, `status`, `notes`) for the resubmission,
//! its tasks with what each reached and needs, and its `sbatch` commands.

use std::io;

use serde_json::{json, Value};

use super::{command_line, ExportContext, Exporter};
use crate::budget::export::round3;
use crate::budget::Status;
use crate::resume::ResumePlan;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(
        &self,
        plan: &ResumePlan,
        context: &ExportContext,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        let strata: Vec<Value> = plan
            .strata
            .iter()
            .map(|s| {
                let given = s.decision.status != Status::Unsupported;
                let tasks: Vec<Value> = s
                    .tasks
                    .iter()
                    .map(|t| {
                        json!({
                            "job_id": t.task.job_id,
                            "array_job": t.task.array.map(|a| a.0),
                            "array_index": t.task.array.map(|a| a.1),
                            "run": t.task.timings.run,
                            "unit_reached": t.task.unit_reached(),
                            "elapsed_s": round3(t.task.elapsed_s()),
                            "remainder": t.remainder.map(|r| json!({
                                "units": r.units,
                                "level": round3(r.level),
                                "rate": round3(r.rate),
                                "predicted_s": round3(r.predicted_s),
                                "floor_s": round3(r.floor_s),
                                "upper_s": round3(r.upper_s),
                                "startup_s": round3(r.startup_s),
                                "unit_s": round3(r.unit_s),
                            })),
                        })
                    })
                    .collect();
                let commands: Vec<Value> = if s.submittable() {
                    s.submissions()
                        .iter()
                        .map(|sub| {
                            json!({
                                "array": sub.array,
                                "replaces": sub.replaces,
                                "command": command_line(plan, s, sub, context),
                            })
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                json!({
                    "stratum": s.stratum,
                    "units": plan.units,
                    "predicted_s": round3(s.predicted_s),
                    "floor_s": round3(s.floor_s),
                    "upper_s": round3(s.upper_s),
                    "time": given.then(|| s.time()),
                    "time_s": given.then(|| s.decision.time_s()),
                    "partition": s.decision.partition,
                    "status": s.decision.status,
                    "segments": s.decision.segments,
                    "notes": crate::note::all_to_json(&s.notes),
                    "tasks": tasks,
                    "commands": commands,
                })
            })
            .collect();
        let doc = json!({
            "schema": crate::note::JSON_SCHEMA,
            "calib_version": crate::VERSION,
            "created_at": context.created_at,
            "units": plan.units,
            "confidence": plan.confidence,
            "checkpoint": plan.checkpoint,
            "partitions": plan.partitions,
            "notes": crate::note::all_to_json(&plan.notes),
            "strata": strata,
            "skipped": plan.skipped,
        });
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        out.write_all(b"\n")
    }
}
