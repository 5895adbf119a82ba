//! The sacct parser (`calib audit`) on any text: no panic, a refusal is bad
//! input (exit status 2), and what it accepts can be audited and rendered.

#![no_main]

use calib::audit::export::{Exporter, JsonExporter, TableExporter};
use calib::audit::{audit, AuditOptions};
use calib::error::Origin;
use calib::slurm::sacct::{parse_sacct, SacctOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse_sacct(
        &text,
        &Origin::Argument("SACCT".into()),
        &SacctOptions::default(),
    ) {
        Ok(table) => {
            let report = audit(&table, &AuditOptions::default());
            let mut out = Vec::new();
            TableExporter
                .export(&report, &mut out)
                .expect("render a table");
            JsonExporter.export(&report, &mut out).expect("render JSON");
        }
        Err(e) => assert_eq!(e.exit_code(), 2, "{e}"),
    }
});
