//! `--format sbatch`: per stratum, the `#SBATCH` lines, a comment recording what
//! the time rests on (measured rate, configuration, unit, machine, date, runs),
//! and one `sbatch --array` line for that stratum alone.
//!
//! The text is a shell script, and most of what it shows comes from outside
//! (labels, cluster and CPU names, the unit name, the script path, notes that
//! quote them): every comment line and `#SBATCH` directive is written by
//! [`comment`] or [`directive`], which pass it through [`comment_text`], and
//! every word of a command goes through [`quote`] (see [`crate::shell`]), so
//! that no value can end a line or a word.

use std::fmt::Write;

use super::{job_comment, job_name, ExportContext, Exporter};
use crate::budget::{Budget, Status, StratumBudget};
use crate::output::human_duration;
use crate::shell::{comment_text, quote};
use crate::slurm::time::format_sbatch_time;

pub struct SbatchExporter;

/// Appends `# <text>` as one line, whatever `text` holds.
fn comment(out: &mut String, text: &str) {
    out.push_str("# ");
    out.push_str(&comment_text(text));
    out.push('\n');
}

/// Appends the `#SBATCH` directive `option` (already quoted) as one line.
fn directive(out: &mut String, option: &str) {
    out.push_str("#SBATCH ");
    out.push_str(&comment_text(option));
    out.push('\n');
}

/// The script as sbatch's last argument: sbatch would take a path that starts
/// with `-` for an option, and `./` keeps it the same relative path.
fn script_argument(script: &str) -> String {
    if script.starts_with('-') {
        quote(&format!("./{script}"))
    } else {
        quote(script)
    }
}

/// The two comment lines recording what the time of `s` rests on.
fn record(out: &mut String, s: &StratumBudget, budget: &Budget, context: &ExportContext) {
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
    let measured = format!(
        "measured: {} per {unit} at {unit} 1 -> {} at {unit} {}, startup {} ({} model), {} run{} / {} {unit}s probed, on {machine}{when}",
        human_duration(b.rate_first_s),
        human_duration(b.rate_last_s),
        b.probe_units,
        human_duration(b.startup_s),
        b.model,
        b.runs,
        if b.runs == 1 { "" } else { "s" },
        b.units_probed,
    );
    comment(out, &measured);
    let projection = format!(
        "projection for {} {unit}s: predicted {}, measured cost {}, upper bound {} at {:.0}%{}",
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
    comment(out, &projection);
}

impl Exporter for SbatchExporter {
    fn export(
        &self,
        budget: &Budget,
        context: &ExportContext,
        sink: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut out = String::new();
        comment(
            &mut out,
            &format!(
                "calib {} budget, {}: one array per stratum, each with its own --time.",
                crate::VERSION,
                context.created_at
            ),
        );
        comment(&mut out, &format!("partitions: {}", budget.partitions));
        if !context.name_partition {
            comment(&mut out, "--partition is left out: the partitions in play are one family of time buckets, which Slurm routes by --time (--name-partition always names it)");
        }
        for note in &budget.notes {
            comment(&mut out, &format!("NOTE: {note}"));
        }
        for s in &budget.strata {
            out.push('\n');
            comment(&mut out, &format!("=== stratum {} ===", s.stratum));
            record(&mut out, s, budget, context);
            for note in &s.notes {
                comment(&mut out, &format!("note: {note}"));
            }
            submission(&mut out, s, context);
        }
        sink.write_all(out.as_bytes())
    }
}

/// The `#SBATCH` lines and the `sbatch --array` line of one stratum, commented
/// out when it is over every cap.
fn submission(out: &mut String, s: &StratumBudget, context: &ExportContext) {
    if s.decision.status == Status::Unsupported {
        comment(
            out,
            "UNSUPPORTED: no --time for this stratum: its probe cannot support one (see the note above); probe as it says, or pass --allow-guess.",
        );
        return;
    }
    let time = s.time();
    // The options shared by the directives and the command line, each one
    // word: `--name=<quoted value>`.
    let mut options = vec![format!("--time={}", quote(&time))];
    if let Some(partition) = s
        .decision
        .partition
        .as_deref()
        .filter(|_| context.name_partition)
    {
        options.push(format!("--partition={}", quote(partition)));
    }
    if context.time_min {
        let time_min = format_sbatch_time(s.projection.floor_s);
        options.push(format!("--time-min={}", quote(&time_min)));
    }
    options.push(format!("--job-name={}", quote(&job_name(&s.stratum))));
    options.push(format!("--comment={}", quote(&job_comment(&s.stratum))));
    let array = if s.tasks > 1 {
        format!("0-{}", s.tasks - 1)
    } else {
        "0".to_string()
    };
    // --export takes a comma-separated list, so the stratum's commas become `;`.
    let exports = format!(
        "ALL,CALIB_STRATUM={},CALIB_UNITS={}",
        s.stratum.replace(',', ";"),
        s.units
    );
    let command = format!(
        "sbatch --array={} {} --export={} {}",
        quote(&array),
        options.join(" "),
        quote(&exports),
        script_argument(&context.script),
    );
    if s.decision.status == Status::OverCap {
        comment(
            out,
            "OVER CAP: not submittable as one task per run; the lines below are commented out.",
        );
        comment(
            out,
            &format!(
                "Checkpoint the run and submit {} segments, each with --time at most the largest cap.",
                s.decision.segments.unwrap_or(2)
            ),
        );
        for option in &options {
            comment(out, &format!("#SBATCH {option}"));
        }
        comment(out, &command);
    } else {
        for option in &options {
            directive(out, option);
        }
        out.push_str(&command);
        out.push('\n');
    }
}
