//! `--format table`: one line per stratum, for people (reporting only: no
//! statistics here; `calib fit --help` says what each column means). The
//! projection columns are those of `calib budget`'s table, under the same
//! names.

use std::io;

use super::Exporter;
use crate::calibrate::Table as Calibration;
use crate::fit::FitReport;
use crate::output::human_duration;
use crate::output::percent_as_given;
use crate::output::table::{Align, Table};

pub struct TableExporter;

impl Exporter for TableExporter {
    fn export(
        &self,
        report: &FitReport,
        calibration: &Calibration,
        out: &mut dyn io::Write,
    ) -> io::Result<()> {
        write!(out, "{}", table(report, calibration))
    }
}

/// The column that compares the projection with the probe's plain mean.
const SHORTFALL: &str = "mean-rate shortfall";

/// The table: one line per stratum, text columns to the left, numbers to the
/// right.
fn table(report: &FitReport, calibration: &Calibration) -> Table {
    let units = report.options.units;
    let mut header = vec![
        "stratum".to_string(),
        "runs".into(),
        "units probed".into(),
        "per-unit first -> last".into(),
        "trend".into(),
        "model".into(),
        SHORTFALL.into(),
    ];
    if units.is_some() {
        header.push("predicted".into());
        header.push("measured".into());
        header.push(format!(
            "upper@{}",
            percent_as_given(report.options.confidence)
        ));
    }
    let mut table = Table::new(header).aligned(|column| match column {
        0 | 3 | 5 => Align::Left,
        _ => Align::Right,
    });
    let projections = units.map(|n| report.projections(n, calibration));
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
            crate::output::change(r.trend_pct),
            m.form_name().to_string(),
        ];
        let n = units.unwrap_or(m.probe_units());
        row.push(crate::output::factor(report.mean_underestimate(k, n), 2));
        if let Some(p) = projections.as_ref().map(|all| &all[k]) {
            row.push(human_duration(p.predicted_s));
            row.push(human_duration(p.floor_s));
            // As calib budget decides it: no bound where the probe supports
            // none for this run (the warnings say why).
            row.push(match p.unsupported {
                Some(_) => "unsupported".to_string(),
                None => human_duration(p.upper_s),
            });
        }
        table.push(row);
    }
    table
}
