//! `--format json`: the [`Audit`] structure with calib's version, and each
//! advice also as the sentence the table prints (`text`).

use std::io;

use super::Exporter;
use crate::audit::Audit;

pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, audit: &Audit, out: &mut dyn io::Write) -> io::Result<()> {
        let mut groups = Vec::with_capacity(audit.groups.len());
        for g in &audit.groups {
            let mut value = serde_json::to_value(g)?;
            if let Some(list) = value.get_mut("advice").and_then(|a| a.as_array_mut()) {
                for (item, advice) in list.iter_mut().zip(&g.advice) {
                    if let Some(obj) = item.as_object_mut() {
                        obj.insert("text".into(), advice.to_string().into());
                    }
                }
            }
            groups.push(value);
        }
        let value = serde_json::json!({
            "calib_version": crate::VERSION,
            "job_rows": audit.job_rows,
            "skipped_rows": audit.skipped_rows,
            "duplicate_rows": audit.duplicate_rows,
            "groups": groups,
        });
        serde_json::to_writer_pretty(&mut *out, &value)?;
        out.write_all(b"\n")
    }
}
