//! `--format table`: for people. One line per stratum, then its notes, then the
//! campaign summary. The status word is styled where it asks for attention
//! (escape codes: the command writes this through
//! [`crate::output::write_table`], which keeps them only for a colour
//! terminal).

use std::io;

use super::{ExportContext, Exporter};
use crate::budget::summary::summarize;
use crate::budget::{Budget, Status, StratumBudget};
use crate::output::human_duration;
use crate::output::percent_as_given;
use crate::output::table::{Align, Cell, Table};
use crate::output::{FAILURE, WARNING};
use crate::slurm::time::format_minutes;
use crate::stratum::display_name;

pub struct TableExporter;

/// The `--time` column: for an over-cap stratum, the segments it needs rather
/// than an unsubmittable single time.
fn time_cell(s: &StratumBudget) -> String {
    match (s.decision.status, s.decision.segments) {
        (Status::OverCap, Some(n)) => {
            format!("{n} x {}", format_minutes(s.decision.segment_minutes()))
        }
        // No segment finishes a unit: no time to show (the notes say why).
        (Status::OverCap, None) => "-".to_string(),
        _ => s.time_given().unwrap_or_else(|| "-".to_string()),
    }
}

/// The status, styled where it asks for attention: a margin cut to stay in a
/// bucket, a stratum with no submittable time.
fn status_cell(status: Status) -> Cell {
    let style = match status {
        Status::Ok => anstyle::Style::new(),
        Status::RoundedDown => WARNING,
        Status::OverCap | Status::Unsupported => FAILURE,
    };
    Cell::styled(status.as_str(), style)
}

impl Exporter for TableExporter {
    fn export(
        &self,
        budget: &Budget,
        _context: &ExportContext,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        let mut table = Table::new(vec![
            "stratum".to_string(),
            "units".into(),
            "tasks".into(),
            "predicted".into(),
            "measured".into(),
            format!("upper@{}", percent_as_given(budget.confidence)),
            "--time".into(),
            "partition".into(),
            "status".into(),
        ])
        .aligned(|column| match column {
            0 | 7 | 8 => Align::Left,
            _ => Align::Right,
        });
        for s in &budget.strata {
            table.push(vec![
                Cell::from(display_name(&s.stratum).to_string()),
                Cell::from(s.units.to_string()),
                Cell::from(s.tasks.to_string()),
                Cell::from(human_duration(s.projection.predicted_s)),
                Cell::from(human_duration(s.projection.floor_s)),
                Cell::from(human_duration(s.projection.upper_s)),
                Cell::from(time_cell(s)),
                Cell::from(s.decision.partition.clone().unwrap_or_else(|| "-".into())),
                status_cell(s.decision.status),
            ]);
        }
        if budget.provenance.is_estimate() {
            writeln!(
                out,
                "ESTIMATE (measured on another machine; not a calibration)"
            )?;
        }
        write!(out, "{table}")?;
        for s in &budget.strata {
            for note in &s.notes {
                writeln!(out, "  {}: {note}", display_name(&s.stratum))?;
            }
        }
        let summary = summarize(budget);
        writeln!(out, "\npartitions: {}", budget.partitions)?;
        let buckets: Vec<String> = summary
            .buckets
            .iter()
            .map(|b| {
                format!(
                    "{}: {} {} / {} task{}",
                    b.bucket,
                    b.strata,
                    if b.strata == 1 { "stratum" } else { "strata" },
                    b.tasks,
                    if b.tasks == 1 { "" } else { "s" }
                )
            })
            .collect();
        writeln!(out, "buckets: {}", buckets.join("; "))?;
        if let Some((stratum, time_s)) = &summary.longest {
            writeln!(
                out,
                "longest task: {}, stratum {}",
                format_minutes(time_s / 60),
                display_name(stratum)
            )?;
        }
        writeln!(
            out,
            "task-hours: {:.1} requested for {:.1} predicted ({} task{})",
            summary.requested_hours,
            summary.predicted_hours,
            summary.tasks,
            if summary.tasks == 1 { "" } else { "s" }
        )?;
        for note in &budget.notes {
            writeln!(out, "note: {note}")?;
        }
        Ok(())
    }
}
