//! `--format sbatch`: only what to run. Per stratum a comment on what its
//! `--time` rests on (every comment line through
//! [`crate::shell::comment_text`], so that no value can end it), then its
//! `sbatch` lines (every word through [`crate::shell::quote`]). A stratum
//! without a submittable time gets its comment and no live line.

use std::io;

use super::{command_line, ExportContext, Exporter};
use crate::budget::export::GRID_VARIABLE;
use crate::budget::Status;
use crate::output::human_duration;
use crate::output::percent_as_given;
use crate::resume::ResumePlan;
use crate::shell::comment_text;
use crate::slurm::time::format_minutes;

pub struct SbatchExporter;

fn comment(out: &mut String, text: &str) {
    out.push_str("# ");
    out.push_str(&comment_text(text));
    out.push('\n');
}

impl Exporter for SbatchExporter {
    fn export(
        &self,
        plan: &ResumePlan,
        context: &ExportContext,
        sink: &mut dyn io::Write,
    ) -> io::Result<()> {
        let mut out = String::new();
        comment(
            &mut out,
            &format!(
                "calib {} resume, {}: the tasks killed by their walltime, resubmitted {}",
                crate::VERSION,
                context.created_at,
                if plan.checkpoint {
                    "to resume from their checkpoints"
                } else {
                    "to run again from unit 1 (no checkpoint)"
                }
            ),
        );
        comment(&mut out, &format!("partitions: {}", plan.partitions));
        if let Some(derivation) = &context.grid {
            comment(
                &mut out,
                &format!(
                    "each task derives its cell from the grid {} ({GRID_VARIABLE} is exported) at its array index, as in the first submission",
                    derivation.grid
                ),
            );
        }
        for note in crate::note::shown(&plan.notes, context.explain) {
            comment(&mut out, &format!("NOTE: {note}"));
        }
        for skipped in &plan.skipped {
            comment(
                &mut out,
                &format!("not resubmitted: {}: {}", skipped.task, skipped.reason),
            );
        }
        for s in &plan.strata {
            out.push('\n');
            // over_cap: no one --time holds the remainder; the segments' does.
            let time = match (s.segment_minutes(), s.decision.segments) {
                (Some(minutes), Some(n)) => format!(
                    "no single --time, {n} segments of --time={}",
                    format_minutes(minutes)
                ),
                (Some(_), None) => "no --time".to_string(),
                (None, _) => format!("--time={}", s.time()),
            };
            comment(
                &mut out,
                &format!(
                    "stratum {}: {time} in {} ({}): predicted {}, projected at the runs' own pace {}, upper bound {} at {}",
                    crate::stratum::display_name(&s.stratum),
                    s.decision.partition.as_deref().unwrap_or("-"),
                    s.decision.status.as_str(),
                    human_duration(s.predicted_s),
                    human_duration(s.floor_s),
                    human_duration(s.upper_s),
                    percent_as_given(plan.confidence)
                ),
            );
            for note in crate::note::shown(&s.notes, context.explain) {
                comment(&mut out, &format!("  note: {note}"));
            }
            for sub in s.submissions() {
                let line = command_line(plan, s, &sub, context);
                match s.decision.status {
                    Status::Ok | Status::RoundedDown => {
                        out.push_str(&line);
                        out.push('\n');
                    }
                    // One segment's line, kept a comment: it does not finish the run.
                    Status::OverCap if s.decision.segments.is_some() => comment(&mut out, &line),
                    Status::OverCap => {}
                    Status::Unsupported => {}
                }
            }
        }
        sink.write_all(out.as_bytes())
    }
}
