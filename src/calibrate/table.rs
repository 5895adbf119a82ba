//! The calibration table: one CSV row per case ([`Case`]), the text file
//! calib ships (`assets/calibration.csv`, embedded) and `calib calibrate -o`
//! writes from a user's own campaigns.

use super::{Case, Group};
use crate::error::{Error, Origin, Result};

/// The table's columns, in order.
pub const HEADER: [&str; 8] = [
    "program",
    "stratum",
    "group",
    "probe_units",
    "units",
    "e_centre",
    "e_slowest",
    "recorded",
];

/// The table as CSV text.
pub fn write(cases: &[Case]) -> Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let to_error =
        |e: csv::Error| Error::Failed(format!("cannot write the calibration table: {e}"));
    w.write_record(HEADER).map_err(to_error)?;
    for c in cases {
        w.write_record([
            c.program.as_str(),
            c.stratum.as_str(),
            c.group.name(),
            &c.probe_units.to_string(),
            &c.units.to_string(),
            &format!("{:.6}", c.e_centre),
            &format!("{:.6}", c.e_slowest),
            if c.recorded { "1" } else { "0" },
        ])
        .map_err(to_error)?;
    }
    w.into_inner()
        .map_err(|e| Error::Failed(format!("cannot write the calibration table: {e}")))
}

/// Reads a table written by [`write()`]; `origin` names it in messages.
pub fn read(text: &str, origin: &Origin) -> Result<Vec<Case>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let bad = |line: u64, what: String| Error::input(origin.clone(), Some(line), what);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| bad(1, format!("expected the header {}: {e}", HEADER.join(","))))?
        .iter()
        .map(str::to_string)
        .collect();
    if header != HEADER {
        return Err(bad(
            1,
            format!(
                "expected the header {} (a table of calib calibrate)",
                HEADER.join(",")
            ),
        ));
    }
    let mut cases = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i as u64 + 2;
        let record =
            record.map_err(|e| bad(line, format!("expected {} fields: {e}", HEADER.len())))?;
        let field = |k: usize| record.get(k).unwrap_or("");
        let number = |k: usize| -> Result<f64> {
            field(k)
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    bad(
                        line,
                        format!("{} `{}` is not a number", HEADER[k], field(k)),
                    )
                })
        };
        let count = |k: usize| -> Result<u64> {
            field(k)
                .parse::<u64>()
                .ok()
                .filter(|x| *x >= 1)
                .ok_or_else(|| {
                    bad(
                        line,
                        format!("{} `{}` is not a unit count", HEADER[k], field(k)),
                    )
                })
        };
        let group = Group::parse(field(2)).ok_or_else(|| {
            bad(
                line,
                format!("group `{}`: expected growth|flat,long|short", field(2)),
            )
        })?;
        let (probe_units, units) = (count(3)?, count(4)?);
        if units <= probe_units {
            return Err(bad(
                line,
                format!("units {units} is not past probe_units {probe_units}"),
            ));
        }
        cases.push(Case {
            program: field(0).to_string(),
            stratum: field(1).to_string(),
            group,
            probe_units,
            units,
            e_centre: number(5)?,
            e_slowest: number(6)?,
            recorded: match field(7) {
                "1" => true,
                "0" => false,
                other => return Err(bad(line, format!("recorded `{other}`: expected 0 or 1"))),
            },
        });
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_back_as_written_and_bad_rows_name_their_line() {
        let case = Case {
            program: "xz".into(),
            stratum: "level=6,size=a".into(),
            group: Group {
                growth: true,
                long: false,
            },
            probe_units: 5,
            units: 40,
            e_centre: 0.25,
            e_slowest: -0.125,
            recorded: true,
        };
        let text = String::from_utf8(write(std::slice::from_ref(&case)).unwrap()).unwrap();
        assert_eq!(read(&text, &Origin::Stdin).unwrap(), vec![case]);
        let broken = text.replace("0.250000", "fast");
        let e = read(&broken, &Origin::Stdin).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("e_centre"), "{e}");
        let e = read("a,b\n", &Origin::Stdin).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("header"), "{e}");
    }
}
