//! Reports of a backtest: a table for people, JSON for programs, CSV with one row
//! per held-out run for spreadsheets.

use std::fmt::Write;

use super::{display_stratum, Backtest, Baseline};
use crate::error::{Error, Result};

fn ratio(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}x")
    } else {
        "-".to_string()
    }
}

/// Left-aligned columns separated by two spaces.
fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < row.len() {
                let pad = widths[c] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

pub fn table(report: &Backtest) -> String {
    let mut rows = vec![vec![
        "stratum".to_string(),
        "held out".to_string(),
        format!("covered@{:.0}%", report.confidence * 100.0),
        "headroom median".to_string(),
        "worst".to_string(),
        "largest".to_string(),
        "mean x N".to_string(),
        "x1.5".to_string(),
        "last rate".to_string(),
    ]];
    for s in &report.strata {
        let n = s.trials.len();
        let mut row = vec![
            display_stratum(&s.stratum).to_string(),
            n.to_string(),
            format!("{}/{n}", s.covered),
            ratio(s.median_headroom),
            ratio(s.worst_headroom),
            ratio(s.largest_headroom),
        ];
        for b in &s.baselines {
            row.push(format!("{}/{n} {}", b.covered, ratio(b.median_headroom)));
        }
        rows.push(row);
    }
    let mut out = format!("design: {}\n", report.design);
    out.push_str(&aligned(&rows));
    let _ = writeln!(
        out,
        "\nheld-out runs covered: {}/{} = {:.1}% at a stated {:.0}%; strata fully covered: {}/{}; median headroom over strata {}",
        report.covered,
        report.trials,
        report.observed_coverage * 100.0,
        report.confidence * 100.0,
        report.strata_all_covered,
        report.strata.len(),
        ratio(report.median_headroom),
    );
    for b in &report.baselines {
        let _ = writeln!(
            out,
            "baseline {}: covered {}/{}, median headroom {}",
            b.baseline.label(),
            b.covered,
            report.trials,
            ratio(b.median_headroom)
        );
    }
    for s in &report.skipped {
        let _ = writeln!(out, "skipped {}: {}", display_stratum(&s.stratum), s.reason);
    }
    out
}

pub fn json(report: &Backtest) -> Result<String> {
    let mut text = serde_json::to_string_pretty(report)
        .map_err(|e| Error::Failed(format!("cannot write the backtest as JSON: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// One row per held-out run.
pub fn csv(report: &Backtest) -> Result<String> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    let mut header = vec![
        "stratum",
        "held_out",
        "units",
        "actual_s",
        "predicted_s",
        "floor_s",
        "upper_s",
        "headroom",
        "covered",
        "probe_runs",
    ];
    let baseline_names: Vec<String> = Baseline::ALL
        .iter()
        .map(|b| {
            format!(
                "baseline_{}_s",
                serde_json::to_value(b)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            )
        })
        .collect();
    header.extend(baseline_names.iter().map(String::as_str));
    let fail = |e: csv::Error| Error::Failed(format!("cannot write the backtest as CSV: {e}"));
    writer.write_record(&header).map_err(fail)?;
    for trial in report.strata.iter().flat_map(|s| &s.trials) {
        let mut record = vec![
            trial.stratum.clone(),
            trial.held_out.clone(),
            trial.units.to_string(),
            format!("{:.3}", trial.actual_s),
            format!("{:.3}", trial.predicted_s),
            format!("{:.3}", trial.floor_s),
            format!("{:.3}", trial.upper_s),
            format!("{:.4}", trial.headroom),
            trial.covered.to_string(),
            trial
                .probe_runs
                .iter()
                .map(|(run, units)| format!("{run}:{units}"))
                .collect::<Vec<_>>()
                .join(" "),
        ];
        record.extend(trial.baselines_s.iter().map(|b| format!("{b:.3}")));
        writer.write_record(&record).map_err(fail)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(|e| Error::Failed(format!("cannot write the backtest as CSV: {e}")))?;
    String::from_utf8(bytes).map_err(|e| Error::Failed(format!("CSV is not UTF-8: {e}")))
}
