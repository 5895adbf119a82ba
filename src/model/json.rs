//! The JSON layout of calib-model.json and its conversion to and from the
//! typed model: reading converts, then checks ([`super::check`]), so a typed
//! [`ModelFile`] is one that makes sense.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::check::{self, Defect};
use super::{
    ModelFile, ModelFingerprint, SelectionRecord, StratumModel, TrendResolution, Unsupported,
    SCHEMA,
};
use crate::forms::{Covariance, Form, Params, PARAMS};
use crate::projection::{Curve, FitUncertainty, ProjectionParams, RunSpread};

/// The names of (startup, a, b, h) in `params`, in the covariance's order.
pub(super) const PARAM_NAMES: [&str; PARAMS] = ["startup_s", "a", "b", "h"];

/// How many of [`PARAM_NAMES`] a form has.
pub(super) fn param_count(form: Form) -> usize {
    form.param_count()
}

/// The file as read; written through [`FileJsonRef`], field for field.
#[derive(Deserialize)]
pub struct FileJson {
    schema: u32,
    calib_version: String,
    created_at: String,
    /// Each stratum converts (and checks) itself, so that an error names it.
    strata: Vec<StratumModel>,
}

/// One stratum as written. Fields that are `null` for "none" must still be
/// present: a forgotten field is an error, not a silent default.
#[derive(Serialize, Deserialize)]
pub struct StratumJson {
    stratum: String,
    runs: usize,
    units_probed: u64,
    model: String,
    params: BTreeMap<String, f64>,
    fingerprint: ModelFingerprint,
    warnings: Vec<String>,
    #[serde(deserialize_with = "Option::deserialize")]
    fit: Option<FitJson>,
    /// The chosen form's weight in the model average.
    weight: f64,
    alternatives: Vec<CurveJson>,
    probe_units: u64,
    min_unit_cost_s: f64,
    spread: SpreadJson,
    extrapolation_kappa: f64,
    /// Added within schema 1, written only where positive; absent: 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    form_error: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    selection: Option<SelectionRecord>,
    #[serde(deserialize_with = "Option::deserialize")]
    unsupported: Option<Unsupported>,
    /// Added within schema 1: a file without it is not checked for trends
    /// its noise could hide, and its bound counts none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resolution: Option<TrendResolution>,
    /// Added within schema 1, written where there is one: a convex
    /// alternative the probe could not rule out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    convex_alternative: Option<ConvexJson>,
}

/// A convex alternative: the `params` of the form `base_power` (b = 2).
#[derive(Serialize, Deserialize)]
pub struct ConvexJson {
    params: BTreeMap<String, f64>,
}

#[derive(Serialize, Deserialize)]
pub struct CurveJson {
    model: String,
    params: BTreeMap<String, f64>,
    #[serde(deserialize_with = "Option::deserialize")]
    fit: Option<FitJson>,
    weight: f64,
}

#[derive(Serialize, Deserialize)]
pub struct FitJson {
    /// Over the form's parameters in the order of [`PARAM_NAMES`].
    covariance: Vec<Vec<f64>>,
    df: f64,
}

#[derive(Serialize, Deserialize)]
pub struct SpreadJson {
    mean_ln_level: f64,
    max_ln_level: f64,
    sd: f64,
    df: f64,
    prior_sd: f64,
    mean_ln_rate: f64,
    rate_sd: f64,
    rate_df: f64,
    growth: f64,
    /// Per run: [log level, log current rate].
    deviations: Vec<[f64; 2]>,
    pooled_strata: usize,
    /// Added within schema 1, written only where fewer than all runs reached
    /// the horizon's last quarter; absent: all of them did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    runs_at_horizon: Option<usize>,
}

/// [`FileJson`] as written, borrowing the model: serde's `into` would clone
/// every stratum first, twice the memory for a model of many.
#[derive(Serialize)]
struct FileJsonRef<'a> {
    schema: u32,
    calib_version: &'a str,
    created_at: &'a str,
    strata: &'a [StratumModel],
}

impl Serialize for ModelFile {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        FileJsonRef {
            schema: SCHEMA,
            calib_version: &self.calib_version,
            created_at: &self.created_at,
            strata: &self.strata,
        }
        .serialize(serializer)
    }
}

impl TryFrom<FileJson> for ModelFile {
    type Error = String;

    fn try_from(file: FileJson) -> Result<Self, String> {
        if file.schema != SCHEMA {
            return Err(schema_mismatch(u64::from(file.schema)));
        }
        let model = ModelFile {
            calib_version: file.calib_version,
            created_at: file.created_at,
            strata: file.strata,
        };
        check::header(&model)?;
        check::unique(&model)?;
        Ok(model)
    }
}

fn curve_json(curve: &Curve) -> CurveJson {
    let count = param_count(curve.form);
    let values = curve.params.values();
    CurveJson {
        model: curve.form.name().to_string(),
        params: PARAM_NAMES
            .iter()
            .zip(values)
            .take(count)
            .map(|(name, value)| (name.to_string(), value))
            .collect(),
        fit: curve.fit.as_ref().map(|fit| FitJson {
            covariance: fit.covariance[..count]
                .iter()
                .map(|row| row[..count].to_vec())
                .collect(),
            df: fit.df,
        }),
        weight: curve.weight,
    }
}

impl From<StratumModel> for StratumJson {
    fn from(m: StratumModel) -> Self {
        let p = m.projection;
        let chosen = curve_json(&p.chosen);
        StratumJson {
            stratum: m.stratum,
            runs: m.runs,
            units_probed: m.units_probed,
            model: chosen.model,
            params: chosen.params,
            fingerprint: m.fingerprint,
            warnings: m.warnings,
            fit: chosen.fit,
            weight: chosen.weight,
            alternatives: p.alternatives.iter().map(curve_json).collect(),
            probe_units: p.probe_units,
            min_unit_cost_s: p.min_unit_cost_s,
            spread: SpreadJson {
                mean_ln_level: p.spread.mean_ln_level,
                max_ln_level: p.spread.max_ln_level,
                sd: p.spread.sd,
                df: p.spread.df,
                prior_sd: p.spread.prior_sd,
                mean_ln_rate: p.spread.mean_ln_rate,
                rate_sd: p.spread.rate_sd,
                rate_df: p.spread.rate_df,
                growth: p.spread.growth,
                deviations: p.spread.deviations.iter().map(|&(l, d)| [l, d]).collect(),
                pooled_strata: p.spread.pooled_strata,
                runs_at_horizon: (p.spread.runs_at_horizon < p.spread.runs)
                    .then_some(p.spread.runs_at_horizon),
            },
            extrapolation_kappa: p.extrapolation_kappa,
            form_error: (p.form_error > 0.0).then_some(p.form_error),
            selection: m.selection,
            unsupported: m.unsupported,
            resolution: p.resolution,
            convex_alternative: m.convex_alternative.as_ref().map(|c| ConvexJson {
                params: curve_json(c).params,
            }),
        }
    }
}

/// `model`, `params` and `fit` of one curve, `prefix` naming where it sits
/// (`` or `alternatives[1].`).
fn curve_from(
    prefix: &str,
    model: &str,
    params: &BTreeMap<String, f64>,
    fit: Option<&FitJson>,
    weight: f64,
) -> Result<Curve, Defect> {
    let form = Form::ALL
        .into_iter()
        .find(|f| f.name() == model)
        .ok_or_else(|| {
            Defect::new(
                format!("{prefix}model"),
                format!(
                    "is `{}`; expected one of {}",
                    model.escape_debug(),
                    Form::ALL.map(Form::name).join(", ")
                ),
            )
        })?;
    curve_of_form(prefix, form, params, fit, weight)
}

/// [`curve_from`] once the form is known.
fn curve_of_form(
    prefix: &str,
    form: Form,
    params: &BTreeMap<String, f64>,
    fit: Option<&FitJson>,
    weight: f64,
) -> Result<Curve, Defect> {
    let names = &PARAM_NAMES[..param_count(form)];
    let expected = names.join(", ");
    if let Some(extra) = params.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(Defect::new(
            format!("{prefix}params.{}", extra.escape_debug()),
            format!("is not a parameter of the {form} model; expected {expected}"),
        ));
    }
    let mut values = [0.0; PARAMS];
    for (slot, name) in values.iter_mut().zip(names) {
        *slot = *params.get(*name).ok_or_else(|| {
            Defect::new(
                format!("{prefix}params"),
                format!("has no `{name}`; the {form} model needs {expected}"),
            )
        })?;
    }
    let fit = match fit {
        None => None,
        Some(fit) => {
            let n = names.len();
            let square = fit.covariance.len() == n && fit.covariance.iter().all(|r| r.len() == n);
            if !square {
                return Err(Defect::new(
                    format!("{prefix}fit.covariance"),
                    format!("is not a {n}x{n} matrix; expected the covariance of {expected}, in that order"),
                ));
            }
            let mut covariance = Covariance::default();
            for (j, row) in fit.covariance.iter().enumerate() {
                covariance[j][..n].copy_from_slice(row);
            }
            Some(FitUncertainty {
                covariance,
                df: fit.df,
            })
        }
    };
    Ok(Curve {
        form,
        params: Params {
            startup: values[0],
            a: values[1],
            b: values[2],
            h: values[3],
        },
        fit,
        weight,
    })
}

impl TryFrom<StratumJson> for StratumModel {
    type Error = Defect;

    fn try_from(s: StratumJson) -> Result<Self, Defect> {
        let chosen = curve_from("", &s.model, &s.params, s.fit.as_ref(), s.weight)?;
        let alternatives = s
            .alternatives
            .iter()
            .enumerate()
            .map(|(k, c)| {
                curve_from(
                    &format!("alternatives[{k}]."),
                    &c.model,
                    &c.params,
                    c.fit.as_ref(),
                    c.weight,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let convex_alternative = s
            .convex_alternative
            .as_ref()
            .map(|c| curve_of_form("convex_alternative.", Form::BasePower, &c.params, None, 0.0))
            .transpose()?;
        let model = StratumModel {
            stratum: s.stratum,
            runs: s.runs,
            units_probed: s.units_probed,
            projection: ProjectionParams {
                chosen,
                alternatives,
                probe_units: s.probe_units,
                min_unit_cost_s: s.min_unit_cost_s,
                spread: RunSpread {
                    runs: s.runs,
                    mean_ln_level: s.spread.mean_ln_level,
                    max_ln_level: s.spread.max_ln_level,
                    sd: s.spread.sd,
                    df: s.spread.df,
                    prior_sd: s.spread.prior_sd,
                    mean_ln_rate: s.spread.mean_ln_rate,
                    rate_sd: s.spread.rate_sd,
                    rate_df: s.spread.rate_df,
                    growth: s.spread.growth,
                    deviations: s.spread.deviations.iter().map(|&[l, d]| (l, d)).collect(),
                    pooled_strata: s.spread.pooled_strata,
                    runs_at_horizon: s.spread.runs_at_horizon.unwrap_or(s.runs),
                },
                extrapolation_kappa: s.extrapolation_kappa,
                form_error: s.form_error.unwrap_or(0.0),
                resolution: s.resolution,
            },
            fingerprint: s.fingerprint,
            warnings: s.warnings,
            selection: s.selection,
            unsupported: s.unsupported,
            convex_alternative,
        };
        check::stratum(&model)?;
        Ok(model)
    }
}

fn schema_mismatch(found: u64) -> String {
    let version = crate::VERSION;
    if found > u64::from(SCHEMA) {
        format!(
            "`schema` is {found}: the file was written by a newer calib (this calib, {version}, reads model schema {SCHEMA}); upgrade calib, or refit with this one (`calib fit -o`)"
        )
    } else {
        format!(
            "`schema` is {found}; this calib ({version}) reads model schema {SCHEMA}: refit with `calib fit -o`"
        )
    }
}

/// A reason a text is not a usable model file, with the line when known.
#[derive(Debug)]
pub(super) struct ParseError {
    pub line: Option<u64>,
    pub message: String,
}

/// The message of a serde_json error without its " at line L column C" tail
/// (the line goes into the [`crate::error::Error`]).
fn bare(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let tail = format!(" at line {} column {}", e.line(), e.column());
    text.strip_suffix(&tail).unwrap_or(&text).to_string()
}

fn line_of(e: &serde_json::Error) -> Option<u64> {
    (e.line() > 0).then_some(e.line() as u64)
}

/// Whether `bytes` are a calib model file, of this schema or another: a JSON
/// object with the file's `schema` or `strata` key. For readers of other
/// inputs (the timings), which then say where the file goes instead of
/// failing on it as a table.
pub(super) fn is_model_file(bytes: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Keys {
        schema: Option<serde::de::IgnoredAny>,
        strata: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Keys>(bytes).is_ok_and(|k| k.schema.is_some() || k.strata.is_some())
}

/// Reads a model file's text: the schema first (a newer file may not parse as
/// this one), then every field, converted and checked.
pub(super) fn parse(text: &str) -> Result<ModelFile, ParseError> {
    #[derive(Deserialize)]
    struct SchemaOnly {
        schema: Option<serde_json::Value>,
    }
    let not_a_model = |e: &serde_json::Error| ParseError {
        line: line_of(e),
        message: format!(
            "not a calib model file: {}; expected the JSON that `calib fit -o` writes",
            bare(e)
        ),
    };
    let header: SchemaOnly = serde_json::from_str(text).map_err(|e| not_a_model(&e))?;
    match header.schema {
        None => {
            return Err(ParseError {
                line: None,
                message: "not a calib model file of a schema this calib reads: it has no `schema` field (files written before model files were versioned are not read); refit with `calib fit -o`".into(),
            })
        }
        Some(value) => match value.as_u64() {
            Some(n) if n == u64::from(SCHEMA) => {}
            Some(n) => {
                return Err(ParseError {
                    line: None,
                    message: schema_mismatch(n),
                })
            }
            None => {
                return Err(ParseError {
                    line: None,
                    message: format!(
                        "`schema` is {value}; expected the integer {SCHEMA}, the model schema this calib reads"
                    ),
                })
            }
        },
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let model: ModelFile = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let (line, message) = located(text, &path, line_of(&inner), &bare(&inner));
        ParseError { line, message }
    })?;
    de.end().map_err(|e| not_a_model(&e))?;
    Ok(model)
}

/// `message` prefixed with where it applies: the stratum (by index and label)
/// and the field within it. Returns the line too when it points at the field:
/// serde reports a stratum's own checks at the end of its object, which the
/// field name locates better.
fn located(text: &str, path: &str, line: Option<u64>, message: &str) -> (Option<u64>, String) {
    let hint = "refit with `calib fit -o`, or correct the field";
    let Some(rest) = path.strip_prefix("strata[") else {
        return match path {
            // The file's own checks carry their advice.
            "." | "" => (None, message.to_string()),
            field => (line, format!("`{field}`: {message}; {hint}")),
        };
    };
    let Some((index, field)) = rest.split_once(']') else {
        return (line, format!("`{path}`: {message}; {hint}"));
    };
    let label = index.parse::<usize>().ok().and_then(|k| {
        let doc: serde_json::Value = serde_json::from_str(text).ok()?;
        doc.get("strata")?
            .get(k)?
            .get("stratum")?
            .as_str()
            .map(str::to_string)
    });
    let at = match label {
        Some(label) => format!("strata[{index}] (stratum {})", check::show(&label)),
        None => format!("strata[{index}]"),
    };
    match field.strip_prefix('.') {
        Some(field) => (line, format!("{at}: `{field}`: {message}; {hint}")),
        None => (None, format!("{at}: {message}; {hint}")),
    }
}
