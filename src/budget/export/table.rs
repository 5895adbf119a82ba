//! `--format table`: for people. One line per stratum, then its notes, then the
//! campaign summary. The status word is styled where it asks for attention
//! (escape codes: the command writes this through
//! [`crate::output::write_table`], which keeps them only for a colour
//! terminal).

use std::fmt::Write as _;
use std::io;

use super::{ExportContext, Exporter};
use crate::budget::summary::summarize;
use crate::budget::{Budget, Status, StratumBudget};
use crate::model::Unsupported;
use crate::note::{Note, Severity};
use crate::output::percent_as_given;
use crate::output::table::{Align, Cell, Table};
use crate::output::{count, human_duration, wrap};
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

/// The status, styled where it asks for attention (a margin cut to stay in a
/// bucket, a stratum with no submittable time), with the numbers of the
/// notes about it.
fn status_cell(status: Status, marks: &str) -> Cell {
    let style = match status {
        Status::Ok => anstyle::Style::new(),
        Status::RoundedDown => WARNING,
        Status::OverCap | Status::Unsupported => FAILURE,
    };
    let text = match marks {
        "" => status.as_str().to_string(),
        marks => format!("{} {marks}", status.as_str()),
    };
    Cell::styled(text, style)
}

/// One row per stratum; `marks[i]` beside the i-th stratum's status.
fn strata_table(budget: &Budget, marks: &[String]) -> Table {
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
    for (i, s) in budget.strata.iter().enumerate() {
        // No figure where there is none: a probe with no per-unit cost
        // projects nothing, and an unsupported stratum has no upper bound.
        let projected = !matches!(s.projection.unsupported, Some(Unsupported::NoSignal(_)));
        let bounded = s.decision.status != Status::Unsupported;
        let shown = |x: f64, is: bool| if is { human_duration(x) } else { "-".into() };
        table.push(vec![
            Cell::from(display_name(&s.stratum).to_string()),
            Cell::from(s.units.to_string()),
            Cell::from(s.tasks.to_string()),
            Cell::from(shown(s.projection.predicted_s, projected)),
            Cell::from(shown(s.projection.floor_s, projected)),
            Cell::from(shown(s.projection.upper_s, bounded)),
            Cell::from(time_cell(s)),
            Cell::from(s.decision.partition.clone().unwrap_or_else(|| "-".into())),
            status_cell(
                s.decision.status,
                marks.get(i).map(String::as_str).unwrap_or(""),
            ),
        ]);
    }
    table
}

impl Exporter for TableExporter {
    fn export(
        &self,
        budget: &Budget,
        context: &ExportContext,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        if budget.provenance.is_estimate() {
            writeln!(
                out,
                "ESTIMATE (measured on another machine; not a calibration)"
            )?;
        }
        if context.explain {
            write!(out, "{}", strata_table(budget, &[]))?;
            return explained(budget, out);
        }
        // The action notes, numbered, their numbers beside the strata's status.
        let mut actions: Vec<(Option<&str>, &Note)> = Vec::new();
        let mut marks = Vec::new();
        for s in &budget.strata {
            let first = actions.len() + 1;
            actions.extend(
                s.notes
                    .iter()
                    .filter(|n| n.severity() == Severity::Action)
                    .map(|n| (Some(s.stratum.as_str()), n)),
            );
            marks.push(
                (first..=actions.len())
                    .map(|i| format!("[{i}]"))
                    .collect::<String>(),
            );
        }
        actions.extend(
            budget
                .notes
                .iter()
                .filter(|n| n.severity() == Severity::Action)
                .map(|n| (None, n)),
        );
        write!(out, "{}", strata_table(budget, &marks))?;
        if !actions.is_empty() {
            writeln!(out)?;
        }
        for (i, (stratum, note)) in actions.iter().enumerate() {
            let about = stratum.map(|s| format!("{}: ", display_name(s)));
            writeln!(
                out,
                "[{}] {}{}",
                i + 1,
                about.unwrap_or_default(),
                note.summary()
            )?;
        }
        let summary = summarize(budget);
        writeln!(out)?;
        writeln!(out, "{}", totals(&summary))?;
        if let Some(line) = crate::note::explain_line(budget.every_note()) {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

/// The campaign's totals in one line.
fn totals(summary: &crate::budget::summary::Summary) -> String {
    let mut line = format!(
        "{}: {:.1} task-hours requested for {:.1} predicted",
        count(summary.tasks, "task", "tasks"),
        summary.requested_hours,
        summary.predicted_hours,
    );
    if let Some((stratum, time_s)) = &summary.longest {
        let _ = write!(
            line,
            "; longest {} ({})",
            format_minutes(time_s / 60),
            display_name(stratum)
        );
    }
    line
}

/// `--explain`: every note whole, per stratum, then the campaign's notes and
/// its summary, wrapped to the terminal.
fn explained(budget: &Budget, out: &mut dyn io::Write) -> io::Result<()> {
    let width = crate::output::text_width();
    for s in budget.strata.iter().filter(|s| !s.notes.is_empty()) {
        writeln!(out, "\n{}:", display_name(&s.stratum))?;
        for note in &s.notes {
            write!(out, "{}", wrap(&note.to_string(), width, "  - ", "    "))?;
        }
    }
    writeln!(out, "\ncampaign:")?;
    for note in &budget.notes {
        write!(out, "{}", wrap(&note.to_string(), width, "  - ", "    "))?;
    }
    let summary = summarize(budget);
    let buckets: Vec<String> = summary
        .buckets
        .iter()
        .map(|b| {
            format!(
                "{}: {} / {}",
                b.bucket,
                count(b.strata as u64, "stratum", "strata"),
                count(b.tasks, "task", "tasks")
            )
        })
        .collect();
    let line = format!("buckets: {}", buckets.join("; "));
    write!(out, "{}", wrap(&line, width, "  - ", "    "))?;
    write!(out, "{}", wrap(&totals(&summary), width, "  - ", "    "))?;
    Ok(())
}
