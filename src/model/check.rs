//! The rules a model file must follow to make sense (the table in
//! [`crate::model`]): each a field, a range, and why.
//!
//! Shape (types, required fields) is serde's; these rules are about sense:
//! finite numbers, signs, ranges, and the few relations between fields that a
//! fit always satisfies (H ≤ units_probed ≤ runs·H, max level ≥ mean level).
//! `calib fit` runs them on what it is about to write, so the file it writes
//! always loads.

use std::collections::HashMap;
use std::fmt;

use super::json::{param_count, PARAM_NAMES};
use super::{ModelFile, StratumModel};
use crate::forms::{self, Covariance, Form};
use crate::projection::{Curve, Projector};
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
    let p = &m.projection;
    if m.runs == 0 {
        return Err(Defect::new(
            "runs",
            "is 0; expected the number of runs measured, 1 or more",
        ));
    }
    let h = p.probe_units;
    if h == 0 {
        return Err(Defect::new(
            "probe_units",
            "is 0; expected the length of the longest probed run, 1 unit or more",
        ));
    }
    let most = (m.runs as u128) * u128::from(h);
    if m.units_probed < h || u128::from(m.units_probed) > most {
        return Err(Defect::new(
            "units_probed",
            format!(
                "is {}; expected the units measured over all runs: at least the longest run ({h}, `probe_units`) and at most {most} (`runs` x `probe_units`)",
                m.units_probed
            ),
        ));
    }
    if !(p.min_unit_cost_s.is_finite() && p.min_unit_cost_s > 0.0) {
        return Err(Defect::new(
            "min_unit_cost_s",
            format!(
                "is {}; expected the smallest per-unit cost a projection counts, a finite number of seconds > 0",
                num(p.min_unit_cost_s)
            ),
        ));
    }
    finite_within(
        "extrapolation_kappa",
        p.extrapolation_kappa,
        MAX_LN_DEVIATION,
        "the log-sd added per e-fold beyond the probe",
    )?;
    finite_within(
        "form_error",
        p.form_error,
        MAX_LN_DEVIATION,
        "the log-sd the probe's own holdout measured",
    )?;
    spread(m)?;
    weights(m)?;
    support(m)?;
    resolution(m)?;
    curve("", &p.chosen, h)?;
    let mut seen = vec![p.chosen.form];
    for (k, alternative) in p.alternatives.iter().enumerate() {
        let prefix = format!("alternatives[{k}].");
        if seen.contains(&alternative.form) {
            return Err(Defect::new(
                format!("{prefix}model"),
                format!(
                    "is {} again; expected each form once (the chosen `model`, then other forms)",
                    alternative.form
                ),
            ));
        }
        seen.push(alternative.form);
        curve(&prefix, alternative, h)?;
    }
    if let Some(convex) = &m.convex_alternative {
        curve("convex_alternative.", convex, h)?;
        if convex.params.h.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Err(Defect::new(
                "convex_alternative.params.h",
                format!(
                    "is {}; expected the growing part's scale, a number > 0 (the alternative bends upward)",
                    num(convex.params.h)
                ),
            ));
        }
    }
    fingerprint(m)?;
    projects(m)
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

fn spread(m: &StratumModel) -> Result<(), Defect> {
    let s = &m.projection.spread;
    if s.runs != m.runs {
        return Err(Defect::new(
            "runs",
            format!(
                "is {} but the spread was measured over {} runs",
                m.runs, s.runs
            ),
        ));
    }
    for (field, value) in [
        ("spread.mean_ln_level", s.mean_ln_level),
        ("spread.max_ln_level", s.max_ln_level),
    ] {
        if !value.is_finite() {
            return Err(Defect::new(
                field,
                format!("is {}; expected a finite log level", num(value)),
            ));
        }
    }
    // The mean of the levels is at most their maximum, up to rounding.
    if s.max_ln_level < s.mean_ln_level - 1e-9 * (1.0 + s.mean_ln_level.abs()) {
        return Err(Defect::new(
            "spread.max_ln_level",
            format!(
                "is {} but `spread.mean_ln_level` is {}; expected the most expensive run's level, at least the mean",
                num(s.max_ln_level),
                num(s.mean_ln_level)
            ),
        ));
    }
    finite_within(
        "spread.sd",
        s.sd,
        MAX_LN_DEVIATION,
        "the sd of a run's log level (≈ coefficient of variation)",
    )?;
    finite_at_least("spread.df", s.df, 1.0, "the spread's degrees of freedom")?;
    finite_within(
        "spread.prior_sd",
        s.prior_sd,
        MAX_LN_DEVIATION,
        "the spread assumed before any run",
    )?;
    finite_within(
        "spread.rate_sd",
        s.rate_sd,
        MAX_LN_DEVIATION,
        "the sd of a run's log current rate",
    )?;
    finite_at_least(
        "spread.rate_df",
        s.rate_df,
        1.0,
        "the rate spread's degrees of freedom",
    )?;
    finite_within("spread.growth", s.growth, MAX_GROWTH, "an exponent")?;
    // Log deviations beyond ±MAX_LN_DEVIATION (a factor of 10^6) are no
    // measurement: they would overflow a projection.
    let in_range = |x: f64| x.is_finite() && x.abs() <= MAX_LN_DEVIATION;
    if !in_range(s.mean_ln_rate) {
        return Err(Defect::new(
            "spread.mean_ln_rate",
            format!(
                "is {}; expected a finite log rate ratio",
                num(s.mean_ln_rate)
            ),
        ));
    }
    if !(1..=s.runs.max(1)).contains(&s.runs_at_horizon) {
        return Err(Defect::new(
            "spread.runs_at_horizon",
            format!(
                "is {} for {} runs; expected the runs that reached the longest probe's last quarter, from 1 to the runs",
                s.runs_at_horizon, s.runs
            ),
        ));
    }
    if s.deviations.len() != s.runs {
        return Err(Defect::new(
            "spread.deviations",
            format!(
                "has {} entries for {} runs; expected one [level, rate] per run",
                s.deviations.len(),
                s.runs
            ),
        ));
    }
    if let Some(k) = s
        .deviations
        .iter()
        .position(|&(l, d)| !(in_range(l) && in_range(d)))
    {
        return Err(Defect::new(
            format!("spread.deviations[{k}]"),
            format!(
                "is {:?}; expected finite log ratios within ±{MAX_LN_DEVIATION}",
                s.deviations[k]
            ),
        ));
    }
    Ok(())
}

/// Largest growth exponent of rate differences a model may state.
const MAX_GROWTH: f64 = 2.0;
/// Largest log deviation of a run from the curve, or log-sd, a model may state
/// (a factor of 10^6): beyond it no measurement, and projections overflow.
const MAX_LN_DEVIATION: f64 = 13.8;

/// The figures an `unsupported` record states are finite numbers, 0 or more.
fn support(m: &StratumModel) -> Result<(), Defect> {
    use crate::model::Unsupported;
    let figures: &[(&str, f64)] = match m.unsupported {
        None => return Ok(()),
        Some(Unsupported::StartupDominated { unit_share }) => {
            &[("unsupported.unit_share", unit_share)]
        }
        Some(Unsupported::Geometric { factor_per_unit }) => {
            &[("unsupported.factor_per_unit", factor_per_unit)]
        }
        Some(
            Unsupported::TakeoffUndecided { excess } | Unsupported::RiseUnexplained { excess },
        ) => &[("unsupported.excess", excess)],
        Some(Unsupported::RiseGoesOn {
            excess,
            rise_per_unit,
        }) => &[
            ("unsupported.excess", excess),
            ("unsupported.rise_per_unit", rise_per_unit),
        ],
        Some(
            Unsupported::ProbeTooShort { .. }
            | Unsupported::TrendUnresolved { .. }
            | Unsupported::BendBeyondBound { .. },
        ) => {
            return Err(Defect::new(
                "unsupported.reason",
                "is decided per request and never written; expected startup_dominated, geometric, takeoff_undecided, rise_unexplained or rise_goes_on",
            ))
        }
    };
    for &(field, value) in figures {
        if !(value.is_finite() && value >= 0.0) {
            return Err(Defect::new(
                field,
                format!("is {}; expected a finite number, 0 or more", num(value)),
            ));
        }
    }
    Ok(())
}

/// A trend resolution states finite figures: noise ≥ 0, Σ (i - ī)² > 0,
/// at least one degree of freedom and one run.
fn resolution(m: &StratumModel) -> Result<(), Defect> {
    let Some(r) = m.projection.resolution else {
        return Ok(());
    };
    let checks = [
        ("resolution.unit_noise", r.unit_noise, r.unit_noise >= 0.0),
        ("resolution.sxx", r.sxx, r.sxx > 0.0),
        ("resolution.df", r.df, r.df >= 1.0),
        ("resolution.runs", r.runs as f64, r.runs >= 1),
    ];
    for (field, value, valid) in checks {
        if !(value.is_finite() && valid) {
            return Err(Defect::new(
                field,
                format!(
                    "is {}; expected a finite number in the documented range",
                    num(value)
                ),
            ));
        }
    }
    Ok(())
}

/// The weights of the forms are each in [0, 1] and sum to 1.
fn weights(m: &StratumModel) -> Result<(), Defect> {
    let p = &m.projection;
    let mut total = 0.0;
    for (k, c) in p.curves().enumerate() {
        let field = if k == 0 {
            "weight".to_string()
        } else {
            format!("alternatives[{}].weight", k - 1)
        };
        if !(c.weight.is_finite() && (0.0..=1.0).contains(&c.weight)) {
            return Err(Defect::new(
                field,
                format!("is {}; expected a weight from 0 to 1", num(c.weight)),
            ));
        }
        total += c.weight;
    }
    if (total - 1.0).abs() > 1e-6 {
        return Err(Defect::new(
            "weight",
            format!("the forms' weights sum to {}; expected 1", num(total)),
        ));
    }
    Ok(())
}

fn curve(prefix: &str, c: &Curve, horizon: u64) -> Result<(), Defect> {
    let field = |name: &str| format!("{prefix}{name}");
    let p = &c.params;
    finite_at_least(
        &field("params.startup_s"),
        p.startup,
        0.0,
        "seconds before the first unit (a run cannot start before it is launched)",
    )?;
    for (name, value) in [("params.a", p.a), ("params.b", p.b), ("params.h", p.h)] {
        if !value.is_finite() {
            return Err(Defect::new(
                field(name),
                format!("is {}; expected a finite number", num(value)),
            ));
        }
    }
    if !c.form.has_b() && p.b != 0.0 {
        return Err(Defect::new(
            field("params.b"),
            "is set, but the constant model has no b",
        ));
    }
    if let Some(range) = c.form.profiled_range().filter(|r| !r.contains(&p.b)) {
        let what = match c.form {
            Form::Geometric | Form::Onset => "a geometric form's log growth factor per unit",
            _ => "a power-law exponent",
        };
        return Err(Defect::new(
            field("params.b"),
            format!(
                "is {}; expected {what} from {} to {}",
                num(p.b),
                num(*range.start()),
                num(*range.end())
            ),
        ));
    }
    // Every unit of the probe took time, and the last ones are measured on
    // their own (the first may share its interval with the startup, which is
    // why c(1) may dip below zero): the cost at the longest run must be positive.
    let last = forms::unit_cost(c.form, p, horizon as f64);
    // Also refuses NaN.
    if last.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        let (name, given) = match c.form {
            Form::Constant | Form::Power | Form::Geometric => {
                (field("params.a"), format!("is {}", num(p.a)))
            }
            Form::Onset | Form::BasePower => (
                field("params"),
                format!("has a = {}, b = {}, h = {}", num(p.a), num(p.b), num(p.h)),
            ),
            Form::Linear | Form::Log => (
                field("params"),
                format!("has a = {}, b = {}", num(p.a), num(p.b)),
            ),
        };
        return Err(Defect::new(
            name,
            format!(
                "{given}: per-unit cost {} = {} s at unit {horizon}, the longest probed run; expected a positive cost per unit",
                c.form.formula(),
                num(last)
            ),
        ));
    }
    if let Some(fit) = &c.fit {
        finite_at_least(
            &field("fit.df"),
            fit.df,
            1.0,
            "the fit's residual degrees of freedom (`fit` is null when it had none)",
        )?;
        covariance(&field("fit.covariance"), c.form, &fit.covariance)?;
    }
    Ok(())
}

fn covariance(field: &str, form: Form, cov: &Covariance) -> Result<(), Defect> {
    let n = param_count(form);
    let name = |j: usize| PARAM_NAMES[j];
    for (j, row) in cov.iter().enumerate() {
        for (k, &v) in row.iter().enumerate() {
            if !v.is_finite() {
                return Err(Defect::new(
                    field,
                    format!(
                        "has {} at ({}, {}); expected finite numbers",
                        num(v),
                        name(j),
                        name(k)
                    ),
                ));
            }
            if (j >= n || k >= n) && v != 0.0 {
                return Err(Defect::new(
                    field,
                    format!(
                        "has a term for {}, which the {form} model does not have",
                        name(j.max(k))
                    ),
                ));
            }
        }
        if row[j] < 0.0 {
            return Err(Defect::new(
                field,
                format!(
                    "gives {} a variance of {}; expected a variance ≥ 0",
                    name(j),
                    num(row[j])
                ),
            ));
        }
    }
    for j in 0..n {
        for k in j + 1..n {
            let scale = (cov[j][j] * cov[k][k]).sqrt();
            let (a, b) = (cov[j][k], cov[k][j]);
            if (a - b).abs() > 1e-9 * scale.max(a.abs()).max(b.abs()) {
                return Err(Defect::new(
                    field,
                    format!(
                        "is not symmetric: ({0}, {1}) is {2} but ({1}, {0}) is {3}",
                        name(j),
                        name(k),
                        num(a),
                        num(b)
                    ),
                ));
            }
            // |cov| ≤ sd·sd: a correlation within ±1 (with room for rounding).
            if a.abs() > scale * (1.0 + 1e-6) + f64::MIN_POSITIVE {
                return Err(Defect::new(
                    field,
                    format!(
                        "has a covariance of {} between {} and {}, beyond what their variances allow (a correlation outside ±1)",
                        num(a),
                        name(j),
                        name(k)
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn fingerprint(m: &StratumModel) -> Result<(), Defect> {
    let fp = &m.fingerprint;
    let lists = [
        ("fingerprint.clusters", &fp.clusters),
        ("fingerprint.cpu_models", &fp.cpu_models),
        ("fingerprint.hosts", &fp.hosts),
        ("fingerprint.partitions", &fp.partitions),
    ];
    for (name, list) in lists {
        for (k, value) in list.iter().enumerate() {
            if value.chars().any(char::is_control) {
                return Err(Defect::new(
                    format!("{name}[{k}]"),
                    format!(
                        "is `{}`, with a control character; expected a name on one line",
                        value.escape_debug()
                    ),
                ));
            }
        }
    }
    if let Some(value) = &fp.measured_from {
        if value.chars().any(char::is_control) {
            return Err(Defect::new(
                "fingerprint.measured_from",
                format!(
                    "is `{}`, with a control character; expected a date",
                    value.escape_debug()
                ),
            ));
        }
    }
    Ok(())
}

/// Fields each within range can still combine into times no clock can show
/// (a cost of 1e300 s per unit): the projection must be a finite, positive
/// time at one unit, at the probe's length and ten times beyond it.
fn projects(m: &StratumModel) -> Result<(), Defect> {
    let projector = Projector::new(&m.projection);
    let h = m.projection.probe_units;
    for units in [1, h, h.saturating_mul(10)] {
        let b = projector.project_fast(units, 0.99);
        let fine = |x: f64| x.is_finite() && x > 0.0;
        if !(fine(b.predicted_s) && fine(b.floor_s) && fine(b.upper_s)) {
            return Err(Defect::new(
                "params",
                format!(
                    "with `spread` project {} s (upper bound {} s) for {units} units; expected finite, positive times",
                    num(b.predicted_s),
                    num(b.upper_s)
                ),
            ));
        }
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
