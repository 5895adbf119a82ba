//! The rules a model file must follow to make sense (the table in
//! [`crate::model`]): each a field, a range, and why.
//!
//! Shape (types, required fields) is serde's; these rules are about sense:
//! finite numbers, signs, ranges. `calib fit` runs them on what it is about
//! to write, so the file it writes always loads.

use std::collections::HashMap;
use std::fmt;

use super::{ModelFile, StratumModel};
use crate::fit::centre::{Shape, MAX_EXPONENT};
use crate::stratum::Stratum;

/// A field of one stratum that breaks a rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Defect {
    /// Where it is within the stratum: `params.a`, `alternatives[0].fit.df`.
    pub field: String,
    /// What is wrong and what was expected.
    pub problem: String,
}

impl Defect {
    pub fn new(field: impl Into<String>, problem: impl Into<String>) -> Self {
        Defect {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` {}", self.field, self.problem)
    }
}

/// A stratum label for messages: escaped, so that no control character of a
/// bad file reaches the terminal.
pub fn show(label: &str) -> String {
    if label.is_empty() {
        crate::stratum::NO_STRATUM.into()
    } else {
        format!("`{}`", label.escape_debug())
    }
}

/// A number for a message: plain when short, in exponent form when it would
/// run to many digits (1e300 is not printed as 301 of them).
fn num(v: f64) -> String {
    let magnitude = v.abs();
    if v != 0.0 && !(1e-4..1e9).contains(&magnitude) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

fn finite_at_least(field: &str, value: f64, min: f64, what: &str) -> Result<(), Defect> {
    if value.is_finite() && value >= min {
        Ok(())
    } else {
        Err(Defect::new(
            field,
            format!(
                "is {}; expected {what}, a finite number ≥ {min}",
                num(value)
            ),
        ))
    }
}

fn finite_within(field: &str, value: f64, max: f64, what: &str) -> Result<(), Defect> {
    if value.is_finite() && (0.0..=max).contains(&value) {
        Ok(())
    } else {
        Err(Defect::new(
            field,
            format!("is {}; expected {what}, from 0 to {max}", num(value)),
        ))
    }
}

/// Every rule of one stratum.
pub fn stratum(m: &StratumModel) -> Result<(), Defect> {
    label(&m.stratum)?;
    if m.runs == 0 {
        return Err(Defect::new(
            "runs",
            "is 0; expected the number of runs measured, 1 or more",
        ));
    }
    let Ok(centre) = &m.centre else {
        return Ok(());
    };
    match centre.shape {
        Shape::Power { exponent } => finite_within(
            "params.exponent",
            exponent,
            MAX_EXPONENT,
            "the power law's exponent",
        )?,
        Shape::Linear { intercept, slope } => {
            finite_at_least(
                "params.intercept",
                intercept,
                0.0,
                "the line's relative intercept",
            )?;
            finite_at_least("params.slope", slope, 0.0, "the line's relative slope")?;
            if intercept + slope <= 0.0 {
                return Err(Defect::new(
                    "params",
                    "gives every unit no cost; expected an intercept or a slope above 0",
                ));
            }
        }
    }
    if centre.runs.is_empty() || centre.runs.len() > m.runs {
        return Err(Defect::new(
            "probe_runs",
            format!(
                "holds {} runs; expected from 1 to `runs` ({})",
                centre.runs.len(),
                m.runs
            ),
        ));
    }
    for (k, r) in centre.runs.iter().enumerate() {
        let at = |f: &str| format!("probe_runs[{k}].{f}");
        if r.units == 0 {
            return Err(Defect::new(
                at("units"),
                "is 0; expected the run's length, 1 or more",
            ));
        }
        finite_within(
            &at("elapsed_s"),
            r.elapsed_s,
            crate::limits::MAX_SECONDS,
            "the run's time in seconds",
        )?;
        finite_within(
            &at("startup_s"),
            r.startup_s,
            r.elapsed_s,
            "the run's startup, at most its time",
        )?;
        if !(r.scale.is_finite() && r.scale > 0.0 && r.scale <= crate::limits::MAX_SECONDS) {
            return Err(Defect::new(
                at("scale"),
                format!(
                    "is {}; expected the shape's multiplier in seconds, above 0 and at most {}",
                    num(r.scale),
                    crate::limits::MAX_SECONDS_TEXT
                ),
            ));
        }
    }
    Ok(())
}

fn label(text: &str) -> Result<(), Defect> {
    let parsed = Stratum::parse(text).map_err(|e| {
        Defect::new(
            "stratum",
            format!("is not a stratum: {e}; expected key=value labels joined by `,`"),
        )
    })?;
    let canonical = parsed.canonical();
    if canonical != text {
        return Err(Defect::new(
            "stratum",
            format!(
                "is {}, not in canonical form; expected {} (labels sorted by key, no spaces around them)",
                show(text),
                show(&canonical)
            ),
        ));
    }
    Ok(())
}

/// `calib_version` and `created_at`.
pub fn header(file: &ModelFile) -> Result<(), String> {
    let version = &file.calib_version;
    let parts: Vec<&str> = version
        .split(['-', '+'])
        .next()
        .unwrap_or("")
        .split('.')
        .collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(format!(
            "`calib_version` is `{}`; expected the version of the calib that wrote the file, such as {}",
            version.escape_debug(),
            crate::VERSION
        ));
    }
    if chrono::DateTime::parse_from_rfc3339(&file.created_at).is_err() {
        return Err(format!(
            "`created_at` is `{}`; expected an RFC 3339 date such as 2026-01-31T12:00:00Z",
            file.created_at.escape_debug()
        ));
    }
    Ok(())
}

/// One model per stratum.
pub fn unique(file: &ModelFile) -> Result<(), String> {
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (k, m) in file.strata.iter().enumerate() {
        if let Some(j) = first.insert(&m.stratum, k) {
            return Err(format!(
                "strata[{k}] repeats stratum {} of strata[{j}]; expected one model per stratum (refit all its timings together)",
                show(&m.stratum)
            ));
        }
    }
    Ok(())
}

/// Every rule, for a model built in memory (what `calib fit` is about to write).
pub fn file(model: &ModelFile) -> Result<(), String> {
    header(model)?;
    for (k, m) in model.strata.iter().enumerate() {
        stratum(m).map_err(|d| format!("strata[{k}] (stratum {}): {d}", show(&m.stratum)))?;
    }
    unique(model)
}
