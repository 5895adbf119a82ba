//! `--format table`: the audit as text for people, a paragraph per group.

use std::io;

use super::Exporter;
use crate::audit::{percent, Audit, Usage};
use crate::output::human_duration;

pub struct TableExporter;

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
            let limits: Vec<String> = u
                .limits_s
                .iter()
                .map(|&l| human_duration(l as f64))
                .collect();
            writeln!(out, "  time limit {}", limits.join(", "))?;
        }
        if let (Some(min), Some(median), Some(max)) =
            (u.completed_min_s, u.completed_median_s, u.completed_max_s)
        {
            writeln!(
                out,
                "  elapsed of COMPLETED tasks: min {}, median {}, max {}",
                human_duration(min as f64),
                human_duration(median),
                human_duration(max as f64)
            )?;
        }
        if let Some(s) = &u.slowest {
            write!(
                out,
                "  the slowest task ({}, {}) used {} of its budget ({} of {})",
                s.job_id,
                s.state,
                percent(s.used),
                human_duration(s.elapsed_s as f64),
                human_duration(s.limit_s as f64)
            )?;
            match u.headroom {
                Some(h) => writeln!(out, ": headroom {h:.2}x")?,
                None => writeln!(out)?,
            }
        }
        for t in &u.timeouts {
            write!(
                out,
                "  TIMEOUT {} after {}",
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
