//! The audit as text for people (`--format table`) or as JSON (`--format json`).

use std::fmt::Write;

use super::{percent, Audit, Usage};

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

/// The human-readable report.
pub fn render_table(audit: &Audit) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "calib audit: {} job row{}",
        audit.job_rows,
        if audit.job_rows == 1 { "" } else { "s" }
    );
    if audit.skipped_rows > 0 {
        let _ = write!(out, " ({} step rows left out)", audit.skipped_rows);
    }
    if audit.duplicate_rows > 0 {
        let _ = write!(
            out,
            " ({} repeated job ids: the last row of each kept)",
            audit.duplicate_rows
        );
    }
    out.push('\n');
    if audit.groups.is_empty() {
        out.push_str("no job rows: check the sacct options (-j, -S, --name)\n");
    }
    for g in &audit.groups {
        let u = &g.usage;
        let _ = writeln!(out, "\n{} ({})", g.group, g.source);
        let _ = writeln!(out, "  tasks {}: {}", u.tasks, states(u));
        if !u.limits_s.is_empty() {
            let limits: Vec<String> = u.limits_s.iter().map(|&l| clock(l)).collect();
            let _ = writeln!(out, "  time limit {}", limits.join(", "));
        }
        if let (Some(min), Some(median), Some(max)) =
            (u.completed_min_s, u.completed_median_s, u.completed_max_s)
        {
            let _ = writeln!(
                out,
                "  elapsed of COMPLETED tasks: min {}, median {}, max {}",
                clock(min),
                clock(median.round() as u64),
                clock(max)
            );
        }
        if let Some(s) = &u.slowest {
            let _ = write!(
                out,
                "  the slowest task ({}, {}) used {} of its budget ({} of {})",
                s.job_id,
                s.state,
                percent(s.used),
                clock(s.elapsed_s),
                clock(s.limit_s)
            );
            match u.headroom {
                Some(h) => {
                    let _ = writeln!(out, ": headroom {h:.2}x");
                }
                None => out.push('\n'),
            }
        }
        for t in &u.timeouts {
            let _ = write!(out, "  TIMEOUT {} after {}", t.job_id, clock(t.elapsed_s));
            if let Some(l) = t.limit_s {
                let _ = write!(out, " (limit {})", clock(l));
            }
            if let (Some(unit), Some(at)) = (t.unit_reached, t.unit_elapsed_s) {
                let _ = write!(out, ", reached unit {unit} at {}", clock(at.round() as u64));
            }
            if let Some(p) = t.projected_s {
                let _ = write!(out, ", a whole run projects to {}", clock(p.ceil() as u64));
            }
            out.push('\n');
        }
        if g.arrays.len() > 1 || g.arrays.iter().any(|a| a.usage.tasks > 1) {
            for a in &g.arrays {
                let _ = write!(
                    out,
                    "  array {}: {} task{}, {}",
                    a.array,
                    a.usage.tasks,
                    if a.usage.tasks == 1 { "" } else { "s" },
                    states(&a.usage)
                );
                if let Some(s) = &a.usage.slowest {
                    let _ = write!(out, "; slowest used {}", percent(s.used));
                }
                out.push('\n');
            }
        }
        for advice in &g.advice {
            let _ = writeln!(out, "  advice: {advice}");
        }
    }
    out
}

/// The report as pretty JSON: the [`Audit`] structure with calib's version, and
/// each advice also as the sentence the table prints (`text`).
pub fn render_json(audit: &Audit) -> String {
    let groups: Vec<serde_json::Value> = audit
        .groups
        .iter()
        .map(|g| {
            let mut value = serde_json::to_value(g).unwrap_or_default();
            if let Some(list) = value.get_mut("advice").and_then(|a| a.as_array_mut()) {
                for (item, advice) in list.iter_mut().zip(&g.advice) {
                    if let Some(obj) = item.as_object_mut() {
                        obj.insert("text".into(), advice.to_string().into());
                    }
                }
            }
            value
        })
        .collect();
    let value = serde_json::json!({
        "calib_version": crate::VERSION,
        "job_rows": audit.job_rows,
        "skipped_rows": audit.skipped_rows,
        "duplicate_rows": audit.duplicate_rows,
        "groups": groups,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
