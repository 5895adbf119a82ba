//! `--format sbatch`: per stratum, the `#SBATCH` lines, a comment recording what
//! the time rests on (measured rate, configuration, unit, machine, date, runs),
//! and one `sbatch --array` line for that stratum alone.

use std::fmt::Write;

use super::{job_comment, job_name, ExportContext, Exporter};
use crate::budget::{Budget, Status, StratumBudget};
use crate::slurm::time::{format_sbatch_time, human_duration};

pub struct SbatchExporter;

/// Quotes a word for a POSIX shell.
fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn rate(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1000.0)
    } else if seconds < 100.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{seconds:.0} s")
    }
}

fn record(s: &StratumBudget, budget: &Budget, context: &ExportContext) -> String {
    let b = &s.basis;
    let machine = if b.clusters.is_empty() {
        "an unrecorded machine".to_string()
    } else {
        let mut m = format!("cluster {}", b.clusters.join("+"));
        if !b.cpu_models.is_empty() {
            let _ = write!(m, " ({})", b.cpu_models.join(" + "));
        }
        m
    };
    let when = b
        .measured_from
        .as_deref()
        .map(|d| format!(" on {}", d.get(..10).unwrap_or(d)))
        .unwrap_or_default();
    let unit = &context.unit_name;
    let mut text = format!(
        "# measured: {} per {unit} at {unit} 1 -> {} at {unit} {}, startup {} ({} model), {} run{} / {} {unit}s probed, on {machine}{when}\n",
        rate(b.rate_first_s),
        rate(b.rate_last_s),
        b.probe_units,
        rate(b.startup_s),
        b.model,
        b.runs,
        if b.runs == 1 { "" } else { "s" },
        b.units_probed,
    );
    let _ = writeln!(
        text,
        "# projection for {} {unit}s: predicted {}, measured cost {}, upper bound {} at {:.0}%{}",
        s.units,
        human_duration(s.projection.predicted_s),
        human_duration(s.projection.floor_s),
        human_duration(s.projection.upper_s),
        budget.confidence * 100.0,
        if budget.provenance.is_estimate() {
            " (ESTIMATE: measured on another machine)"
        } else {
            ""
        }
    );
    text
}

impl Exporter for SbatchExporter {
    fn export(
        &self,
        budget: &Budget,
        context: &ExportContext,
        sink: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut out = format!(
            "# calib {} budget, {}: one array per stratum, each with its own --time.\n# partitions: {}\n",
            crate::VERSION,
            context.created_at,
            budget.partitions
        );
        if !context.name_partition {
            out.push_str("# --partition is left out: the partitions in play are one family of time buckets, which Slurm routes by --time (--name-partition always names it)\n");
        }
        for note in &budget.notes {
            let _ = writeln!(out, "# NOTE: {note}");
        }
        for s in &budget.strata {
            let _ = writeln!(out, "\n# === stratum {} ===", s.stratum);
            out.push_str(&record(s, budget, context));
            for note in &s.notes {
                let _ = writeln!(out, "# note: {note}");
            }
            let time = s.time();
            let name = job_name(&s.stratum);
            let comment = job_comment(&s.stratum);
            let array = if s.tasks > 1 {
                format!("0-{}", s.tasks - 1)
            } else {
                "0".to_string()
            };
            let exports = format!(
                "ALL,CALIB_STRATUM={},CALIB_UNITS={}",
                s.stratum.replace(',', ";"),
                s.units
            );
            let time_min = format_sbatch_time(s.projection.floor_s);
            let partition = s
                .decision
                .partition
                .as_deref()
                .filter(|_| context.name_partition);
            let lines = format!(
                "#SBATCH --time={time}\n{}{}#SBATCH --job-name={name}\n#SBATCH --comment={}\nsbatch --array={array} --time={time}{}{} --job-name={name} --comment={} --export={} {}\n",
                partition
                    .map(|p| format!("#SBATCH --partition={}\n", shell_quote(p)))
                    .unwrap_or_default(),
                if context.time_min {
                    format!("#SBATCH --time-min={time_min}\n")
                } else {
                    String::new()
                },
                shell_quote(&comment),
                partition
                    .map(|p| format!(" --partition={}", shell_quote(p)))
                    .unwrap_or_default(),
                if context.time_min {
                    format!(" --time-min={time_min}")
                } else {
                    String::new()
                },
                shell_quote(&comment),
                shell_quote(&exports),
                shell_quote(&context.script),
            );
            if s.decision.status == Status::OverCap {
                let _ = writeln!(
                    out,
                    "# OVER CAP: not submittable as one task per run; the lines below are commented out.\n# Checkpoint the run and submit {} segments, each with --time at most the largest cap.",
                    s.decision.segments.unwrap_or(2)
                );
                for line in lines.lines() {
                    let _ = writeln!(out, "# {line}");
                }
            } else {
                out.push_str(&lines);
            }
        }
        sink.write_all(out.as_bytes())
    }
}
