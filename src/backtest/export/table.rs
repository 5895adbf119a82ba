//! `--format table`: per stratum, coverage and headroom beside the baselines;
//! then the campaign's observed coverage beside the stated confidence.

use std::io;

use super::{ratio, share, Exporter};
use crate::backtest::Backtest;
use crate::output::percent_as_given;
use crate::output::table::{Align, Table};
use crate::stratum::display_name;

pub struct TableExporter;

impl Exporter for TableExporter {
    fn export(&self, report: &Backtest, out: &mut dyn io::Write) -> io::Result<()> {
        let header = [
            "stratum".to_string(),
            "held out".to_string(),
            format!("covered@{}", percent_as_given(report.confidence)),
            "headroom median".to_string(),
            "worst".to_string(),
            "largest".to_string(),
            "mean x N".to_string(),
            "x1.5".to_string(),
            "last rate".to_string(),
        ];
        let mut table =
            Table::new(header.to_vec())
                .aligned(|c| if c == 0 { Align::Left } else { Align::Right });
        for s in &report.strata {
            let n = s.trials.len();
            let mut row = vec![
                display_name(&s.stratum).to_string(),
                n.to_string(),
                if s.unsupported == n {
                    "unsupported".to_string()
                } else if s.unsupported > 0 {
                    format!(
                        "{}/{} ({} unsupp.)",
                        s.covered,
                        n - s.unsupported,
                        s.unsupported
                    )
                } else {
                    format!("{}/{n}", s.covered)
                },
                ratio(s.median_headroom),
                ratio(s.worst_headroom),
                ratio(s.largest_headroom),
            ];
            for b in &s.baselines {
                row.push(format!("{}/{n} {}", b.covered, ratio(b.median_headroom)));
            }
            table.push(row);
        }
        writeln!(out, "design: {}", report.design)?;
        write!(out, "{table}")?;
        writeln!(
            out,
            "\nheld-out runs covered: {}/{} = {} at a stated {} ({} unsupported: no time given); strata fully covered: {}/{}; median headroom over strata {}",
            report.covered,
            report.trials - report.unsupported,
            share(report.observed_coverage),
            percent_as_given(report.confidence),
            report.unsupported,
            report.strata_all_covered,
            report.strata.len(),
            ratio(report.median_headroom),
        )?;
        for b in &report.baselines {
            writeln!(
                out,
                "baseline {}: covered {}/{}, median headroom {}",
                b.baseline.label(),
                b.covered,
                report.trials,
                ratio(b.median_headroom)
            )?;
        }
        for s in &report.skipped {
            writeln!(out, "skipped {}: {}", display_name(&s.stratum), s.reason)?;
        }
        Ok(())
    }
}
