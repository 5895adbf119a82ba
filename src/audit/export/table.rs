//! `--format table`: the audit as text for people, in the one table format
//! of calib's commands ([`crate::output::table`]): a row per group, numbers
//! aligned right; under it, per group, what a row cannot hold (each TIMEOUT,
//! the arrays, the advice); then the count of rows read and what the columns
//! mean.

use std::io;

use super::Exporter;
use crate::audit::{percent, Audit, GroupSource, Usage};
use crate::output::human_duration;
use crate::output::table::{Align, Table};
use crate::shell::comment_text;

pub struct TableExporter;

/// Tasks by state, `COMPLETED 4, TIMEOUT 1`.
fn states(usage: &Usage) -> String {
    usage
        .states
        .iter()
        // A state sacct printed that calib does not know is shown as text.
        .map(|(state, n)| format!("{} {n}", comment_text(&state.to_string())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a group was recognised, in a word or two for the table's column
/// (the JSON carries the `source` key).
fn source_word(source: GroupSource) -> &'static str {
    match source {
        GroupSource::Comment => "job comment",
        GroupSource::NameRegex => "--by-name",
        GroupSource::CalibName => "calib- name",
        GroupSource::JobName => "job name",
    }
}

/// A cell with nothing to show.
const NONE: &str = "-";

fn seconds(s: Option<u64>) -> String {
    s.map_or_else(|| NONE.to_string(), |s| human_duration(s as f64))
}

/// The columns: which are aligned right (counts, times, shares).
const HEADER: [(&str, Align); 11] = [
    ("stratum", Align::Left),
    ("grouped by", Align::Left),
    ("tasks", Align::Right),
    ("states", Align::Left),
    ("time limit", Align::Right),
    ("min", Align::Right),
    ("median", Align::Right),
    ("max", Align::Right),
    ("slowest task", Align::Left),
    ("used", Align::Right),
    ("headroom", Align::Right),
];

impl Exporter for TableExporter {
    fn export(&self, audit: &Audit, out: &mut dyn io::Write) -> io::Result<()> {
        if !audit.groups.is_empty() {
            write!(out, "{}", table(audit))?;
            write_notes(audit, out)?;
            writeln!(out)?;
        }
        write_summary(audit, out)
    }
}

fn table(audit: &Audit) -> Table {
    let mut table = Table::new(HEADER.iter().map(|(name, _)| name.to_string()).collect())
        .aligned(|c| HEADER[c].1);
    for g in &audit.groups {
        let u = &g.usage;
        let limits = if u.limits_s.is_empty() {
            NONE.to_string()
        } else {
            u.limits_s
                .iter()
                .map(|&l| human_duration(l as f64))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (slowest, used) = match &u.slowest {
            Some(s) => (s.job_id.clone(), percent(s.used)),
            None => (NONE.to_string(), NONE.to_string()),
        };
        table.push(vec![
            comment_text(&g.group),
            source_word(g.source).to_string(),
            u.tasks.to_string(),
            states(u),
            limits,
            seconds(u.completed_min_s),
            u.completed_median_s
                .map_or_else(|| NONE.to_string(), human_duration),
            seconds(u.completed_max_s),
            slowest,
            used,
            u.headroom
                .map_or_else(|| NONE.to_string(), |h| crate::output::factor(h, 2)),
        ]);
    }
    table
}

/// Per group, indented under the table: each TIMEOUT, the arrays when there
/// is more than one task to tell apart, and the advice.
fn write_notes(audit: &Audit, out: &mut dyn io::Write) -> io::Result<()> {
    for g in &audit.groups {
        let u = &g.usage;
        let group = comment_text(&g.group);
        for t in &u.timeouts {
            write!(
                out,
                "  {}: TIMEOUT {} after {}",
                group,
                t.job_id,
                human_duration(t.elapsed_s as f64)
            )?;
            if let Some(l) = t.limit_s {
                write!(out, " (limit {})", human_duration(l as f64))?;
            }
            if let (Some(unit), Some(at)) = (t.unit_reached, t.unit_elapsed_s) {
                write!(out, ", reached unit {unit} at {}", human_duration(at))?;
            }
            if let Some(p) = t.projected_s {
                write!(out, ", a whole run projects to {}", human_duration(p))?;
            }
            writeln!(out)?;
        }
        if g.arrays.len() > 1 || g.arrays.iter().any(|a| a.usage.tasks > 1) {
            for a in &g.arrays {
                write!(
                    out,
                    "  {}: {} {}: {} task{}, {}",
                    group,
                    if a.is_array { "array" } else { "job" },
                    a.array,
                    a.usage.tasks,
                    if a.usage.tasks == 1 { "" } else { "s" },
                    states(&a.usage)
                )?;
                if let Some(s) = &a.usage.slowest {
                    write!(out, "; slowest used {}", percent(s.used))?;
                }
                writeln!(out)?;
            }
        }
        for advice in &g.advice {
            writeln!(out, "  {group}: advice: {advice}")?;
        }
    }
    Ok(())
}

/// The rows read, and what the columns mean.
fn write_summary(audit: &Audit, out: &mut dyn io::Write) -> io::Result<()> {
    write!(out, "job rows: {}", audit.job_rows,)?;
    if audit.skipped_rows > 0 {
        write!(out, " ({} step rows left out)", audit.skipped_rows)?;
    }
    if audit.duplicate_rows > 0 {
        write!(
            out,
            " ({} repeated job ids: the last row of each kept)",
            audit.duplicate_rows
        )?;
    }
    writeln!(out)?;
    if audit.groups.is_empty() {
        return writeln!(out, "no job rows: check the sacct options (-j, -S, --name)");
    }
    writeln!(
        out,
        "min, median, max: elapsed time of the COMPLETED tasks. used: the share of its time \
         limit that the slowest task used (elapsed / limit); headroom: its limit / its \
         elapsed, the margin the campaign really had (a task killed at its limit shows 1.00x, \
         or just below: it needed more)."
    )
}
