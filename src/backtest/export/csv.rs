//! `--format csv`: one row per held-out run, for spreadsheets and scripts.

use std::io;

use super::Exporter;
use crate::backtest::{Backtest, Baseline};

pub(crate) struct CsvExporter;

impl Exporter for CsvExporter {
    fn export(&self, report: &Backtest, out: &mut dyn io::Write) -> io::Result<()> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        let mut header: Vec<String> = [
            "stratum",
            "held_out",
            "units",
            "actual_s",
            "predicted_s",
            "floor_s",
            "upper_s",
            "headroom",
            "covered",
            "unsupported",
            "probe_runs",
        ]
        .map(String::from)
        .to_vec();
        header.extend(
            Baseline::ALL
                .iter()
                .map(|b| format!("baseline_{}_s", b.key())),
        );
        writer.write_record(&header)?;
        for trial in report.strata.iter().flat_map(|s| &s.trials) {
            // Run ids come from the timings as written: a control character
            // in one is shown escaped, never sent raw to a terminal or sheet.
            let text = |t: &str| crate::shell::comment_text(t);
            let mut record = vec![
                text(&trial.stratum),
                text(&trial.held_out),
                trial.units.to_string(),
                format!("{:.3}", trial.actual_s),
                number(trial.predicted_s, 3),
                number(trial.floor_s, 3),
                number(trial.upper_s, 3),
                number(trial.headroom, 4),
                trial.covered.to_string(),
                trial.unsupported.to_string(),
                trial
                    .probe_runs
                    .iter()
                    .map(|(run, units)| format!("{}:{units}", text(run)))
                    .collect::<Vec<_>>()
                    .join(" "),
            ];
            record.extend(trial.baselines_s.iter().map(|&b| number(b, 3)));
            writer.write_record(&record)?;
        }
        writer.flush()
    }
}

/// A figure with `decimals` decimals; an empty field (CSV's null) when there
/// is none (no model fitted the probe), never `NaN`.
fn number(x: f64, decimals: usize) -> String {
    if x.is_finite() {
        format!("{x:.decimals$}")
    } else {
        String::new()
    }
}
