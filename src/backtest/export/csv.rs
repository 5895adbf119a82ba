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
                trial.unsupported.to_string(),
                trial
                    .probe_runs
                    .iter()
                    .map(|(run, units)| format!("{run}:{units}"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ];
            record.extend(trial.baselines_s.iter().map(|b| format!("{b:.3}")));
            writer.write_record(&record)?;
        }
        writer.flush()
    }
}
