//! `--format json`: the whole backtest, every trial included.

use std::io;

use super::Exporter;
use crate::backtest::Backtest;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &Backtest, out: &mut dyn io::Write) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, report)?;
        writeln!(out)
    }
}
