//! `--format table`: one line per stratum, for people (reporting only: no
//! statistics here).

use std::io;

use super::Exporter;
use crate::fit::FitReport;
use crate::output::human_duration;
use crate::output::table::{Align, Table};

pub struct TableExporter;

impl Exporter for TableExporter {
    fn export(&self, report: &FitReport, out: &mut dyn io::Write) -> io::Result<()> {
        write!(out, "{}", table(report))
    }
}

/// The table: one line per stratum, text columns to the left, numbers to the
/// right.
fn table(report: &FitReport) -> Table {
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
        header.push("measured".into());
        header.push(format!("upper {:.0}%", conf * 100.0));
    } else {
        header.push("mean under x (N=probe)".into());
    }
    let mut table = Table::new(header)
        .aligned(|column| match column {
            0 | 3 | 5 => Align::Left,
            _ => Align::Right,
        })
        .with_rule();
    for (k, (m, r)) in report.model.strata.iter().zip(&report.strata).enumerate() {
        let mut row = vec![
            r.stratum.clone(),
            m.runs.to_string(),
            m.units_probed.to_string(),
            format!(
                "{} -> {}",
                human_duration(r.first_cost_s),
                human_duration(r.last_cost_s)
            ),
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
            row.push(human_duration(p.predicted_s));
            row.push(human_duration(p.floor_s));
            row.push(human_duration(p.upper_s));
        }
        table.push(row);
    }
    table
}
