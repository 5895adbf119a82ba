//! The human table of `calib fit` (reporting only: no statistics here).

use super::FitReport;

fn secs(s: f64) -> String {
    if s >= 3600.0 {
        format!("{:.2} h", s / 3600.0)
    } else if s >= 60.0 {
        format!("{:.1} min", s / 60.0)
    } else if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

/// Renders the table: one line per stratum.
pub fn render(report: &FitReport) -> String {
    let units = report.options.units;
    let conf = report.options.confidence;
    let mut header = vec![
        "stratum".to_string(),
        "runs".into(),
        "units".into(),
        "per-unit first -> last".into(),
        "trend".into(),
        "model (runner-up)".into(),
    ];
    if let Some(n) = units {
        header.push(format!("mean under x (N={n})"));
        header.push(format!("predicted N={n}"));
        header.push("floor".into());
        header.push(format!("upper {:.0}%", conf * 100.0));
    } else {
        header.push("mean under x (N=probe)".into());
    }
    let mut rows = vec![header];
    for (k, (m, r)) in report.model.strata.iter().zip(&report.strata).enumerate() {
        let mut row = vec![
            r.stratum.clone(),
            m.runs.to_string(),
            m.units_probed.to_string(),
            format!("{} -> {}", secs(r.first_cost_s), secs(r.last_cost_s)),
            format!("{:+.0}%", r.trend_pct),
            match m.runner_up() {
                Some(f) => format!("{} ({f})", m.form()),
                None => m.form().to_string(),
            },
        ];
        let n = units.unwrap_or(m.projection.probe_units);
        row.push(format!("{:.2}", report.mean_underestimate(k, n)));
        if let Some(n) = units {
            let p = m.project(n, conf);
            row.push(secs(p.predicted_s));
            row.push(secs(p.floor_s));
            row.push(secs(p.upper_s));
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if c == 0 || c == 3 || c == 5 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            let total: usize = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            out.push_str(&"-".repeat(total));
            out.push('\n');
        }
    }
    out
}

/// The JSON output: the model file, plus per-stratum projections at `--units`
/// (when given) and the typed warnings.
pub fn render_json(report: &FitReport) -> String {
    let projections: Vec<serde_json::Value> = match report.options.units {
        Some(n) => report
            .model
            .strata
            .iter()
            .map(|m| {
                let p = m.project(n, report.options.confidence);
                serde_json::json!({ "stratum": m.stratum, "projection": p })
            })
            .collect(),
        None => Vec::new(),
    };
    let value = serde_json::json!({
        "model": report.model,
        "units": report.options.units,
        "confidence": report.options.confidence,
        "projections": projections,
        "warnings": report.warnings.iter().map(|w| serde_json::json!({
            "warning": w,
            "message": w.to_string(),
        })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&value).unwrap_or_default();
    s.push('\n');
    s
}
