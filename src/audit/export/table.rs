//! `--format table`: the audit as text for people, a paragraph per group.

use std::io;

use super::Exporter;
use crate::audit::{percent, Audit, Usage};

pub struct TableExporter;

/// `[D-]HH:MM:SS`, as sacct prints times.
pub fn clock(seconds: u64) -> String {
    let (d, h, m, s) = (
        seconds / 86_400,
        (seconds % 86_400) / 3_600,
        (seconds % 3_600) / 60,
        seconds % 60,
    );
    if d > 0 {
        format!("{d}-{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

fn states(usage: &Usage) -> String {
    usage
        .states
        .iter()
        .map(|(state, n)| format!("{state} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Exporter for TableExporter {
    fn export(&self, audit: &Audit, out: &mut dyn io::Write) -> io::Result<()> {
        write_table(audit, out)
    }
}

fn write_table(audit: &Audit, out: &mut dyn io::Write) -> io::Result<()> {
    write!(
        out,
        "calib audit: {} job row{}",
        audit.job_rows,
        if audit.job_rows == 1 { "" } else { "s" }
    )?;
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
        writeln!(out, "no job rows: check the sacct options (-j, -S, --name)")?;
    }
    for g in &audit.groups {
        let u = &g.usage;
        writeln!(out, "\n{} ({})", g.group, g.source)?;
        writeln!(out, "  tasks {}: {}", u.tasks, states(u))?;
        if !u.limits_s.is_empty() {
            let limits: Vec<String> = u.limits_s.iter().map(|&l| clock(l)).collect();
            writeln!(out, "  time limit {}", limits.join(", "))?;
        }
        if let (Some(min), Some(median), Some(max)) =
            (u.completed_min_s, u.completed_median_s, u.completed_max_s)
        {
            writeln!(
                out,
                "  elapsed of COMPLETED tasks: min {}, median {}, max {}",
                clock(min),
                clock(median.round() as u64),
                clock(max)
            )?;
        }
        if let Some(s) = &u.slowest {
            write!(
                out,
                "  the slowest task ({}, {}) used {} of its budget ({} of {})",
                s.job_id,
                s.state,
                percent(s.used),
                clock(s.elapsed_s),
                clock(s.limit_s)
            )?;
            match u.headroom {
                Some(h) => writeln!(out, ": headroom {h:.2}x")?,
                None => writeln!(out)?,
            }
        }
        for t in &u.timeouts {
            write!(out, "  TIMEOUT {} after {}", t.job_id, clock(t.elapsed_s))?;
            if let Some(l) = t.limit_s {
                write!(out, " (limit {})", clock(l))?;
            }
            if let (Some(unit), Some(at)) = (t.unit_reached, t.unit_elapsed_s) {
                write!(out, ", reached unit {unit} at {}", clock(at.round() as u64))?;
            }
            if let Some(p) = t.projected_s {
                write!(out, ", a whole run projects to {}", clock(p.ceil() as u64))?;
            }
            writeln!(out)?;
        }
        if g.arrays.len() > 1 || g.arrays.iter().any(|a| a.usage.tasks > 1) {
            for a in &g.arrays {
                write!(
                    out,
                    "  array {}: {} task{}, {}",
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
            writeln!(out, "  advice: {advice}")?;
        }
    }
    Ok(())
}
