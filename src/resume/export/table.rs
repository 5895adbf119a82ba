//! `--format table`: for people. One line per stratum (its killed tasks, the
//! units they reached, the remainder and its `--time`), the notes, the tasks
//! left out, then the `sbatch` lines to run.

use std::io;

use super::{command_lines, ExportContext, Exporter};
use crate::budget::Status;
use crate::output::human_duration;
use crate::output::percent_as_given;
use crate::output::table::{Align, Cell, Table};
use crate::output::{FAILURE, WARNING};
use crate::resume::ResumePlan;
use crate::slurm::time::format_minutes;
use crate::stratum::display_name;

pub struct TableExporter;

impl Exporter for TableExporter {
    fn export(
        &self,
        plan: &ResumePlan,
        context: &ExportContext,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        if plan.strata.is_empty() {
            writeln!(out, "no task to resubmit")?;
        } else {
            let mut table = Table::new(vec![
                "stratum".to_string(),
                "tasks".into(),
                "reached".into(),
                if plan.checkpoint {
                    "remaining".into()
                } else {
                    "rerun".into()
                },
                "predicted".into(),
                if plan.checkpoint {
                    "own pace".into()
                } else {
                    "measured".into()
                },
                format!("upper@{}", percent_as_given(plan.confidence)),
                "--time".into(),
                "partition".into(),
                "status".into(),
            ])
            .aligned(|column| match column {
                0 | 1 | 8 | 9 => Align::Left,
                _ => Align::Right,
            });
            for s in &plan.strata {
                let tasks: Vec<&str> = s.tasks.iter().map(|t| t.task.task_label()).collect();
                let reached: Vec<String> = s
                    .tasks
                    .iter()
                    .map(|t| t.task.unit_reached().to_string())
                    .collect();
                let left = if plan.checkpoint {
                    let most = s
                        .tasks
                        .iter()
                        .filter_map(|t| t.remainder.map(|r| r.units))
                        .max()
                        .unwrap_or(0);
                    format!("{most} units")
                } else {
                    format!("{} units", plan.units)
                };
                let style = match s.decision.status {
                    Status::Ok => anstyle::Style::new(),
                    Status::RoundedDown => WARNING,
                    Status::OverCap | Status::Unsupported => FAILURE,
                };
                // Over every cap: the resubmissions it takes at the largest.
                let time = match (s.decision.status, s.decision.segments) {
                    (Status::Unsupported, _) => "-".to_string(),
                    (Status::OverCap, Some(n)) if s.decision.largest_cap_s.is_finite() => {
                        format!(
                            "{n} x {}",
                            format_minutes((s.decision.largest_cap_s / 60.0).floor() as u64)
                        )
                    }
                    // No number of segments finishes (see the notes): no time to show.
                    (Status::OverCap, _) => "-".to_string(),
                    _ => format_minutes(s.decision.minutes),
                };
                table.push(vec![
                    Cell::from(display_name(&s.stratum).to_string()),
                    Cell::from(tasks.join(",")),
                    Cell::from(format!("{}/{}", reached.join(","), plan.units)),
                    Cell::from(left),
                    Cell::from(human_duration(s.predicted_s)),
                    Cell::from(human_duration(s.floor_s)),
                    Cell::from(human_duration(s.upper_s)),
                    Cell::from(time),
                    Cell::from(s.decision.partition.clone().unwrap_or_else(|| "-".into())),
                    Cell::styled(s.decision.status.as_str(), style),
                ]);
            }
            write!(out, "{table}")?;
            if plan.checkpoint && context.explain {
                writeln!(
                    out,
                    "own pace = the units left projected at each killed run's own pace (its second half's, against the probe's fitted shape) plus a startup: a projection, the --time never goes below it."
                )?;
            }
            for s in &plan.strata {
                for note in crate::note::shown(&s.notes, context.explain) {
                    writeln!(out, "  {}: {note}", display_name(&s.stratum))?;
                }
            }
        }
        for skipped in &plan.skipped {
            writeln!(out, "not resubmitted: {}: {}", skipped.task, skipped.reason)?;
        }
        if context.explain {
            writeln!(out, "\npartitions: {}", plan.partitions)?;
        }
        for note in crate::note::shown(&plan.notes, context.explain) {
            writeln!(out, "note: {note}")?;
        }
        let lines = command_lines(plan, context);
        if !lines.is_empty() {
            writeln!(out, "\nresubmit:")?;
            for (_, line) in lines {
                writeln!(out, "  {line}")?;
            }
        }
        if let Some(line) = super::explain_line(plan).filter(|_| !context.explain) {
            writeln!(out, "\n{line}")?;
        }
        Ok(())
    }
}
