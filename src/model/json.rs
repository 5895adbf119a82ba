//! The JSON layout of calib-model.json and its conversion to and from the
//! typed model: reading converts, then checks ([`super::check`]), so a typed
//! [`ModelFile`] is one that makes sense.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::check::{self, Defect};
use super::{ModelFile, ModelFingerprint, StratumModel, SCHEMA};
use crate::fit::centre::{Centre, NoSignal, RunFit, Shape};

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
    probe_runs: Vec<RunJson>,
    #[serde(deserialize_with = "Option::deserialize")]
    unsupported: Option<UnsupportedJson>,
    fingerprint: ModelFingerprint,
    warnings: Vec<String>,
}

/// One probe run's fit.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunJson {
    units: u64,
    elapsed_s: f64,
    scale: f64,
    startup_s: f64,
}

/// Why the probe shows no per-unit signal.
#[derive(Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum UnsupportedJson {
    OneUnit,
    Resolution,
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

impl From<StratumModel> for StratumJson {
    fn from(m: StratumModel) -> Self {
        let (model, params, probe_runs, unsupported) = match &m.centre {
            Ok(c) => {
                let params: BTreeMap<String, f64> = match c.shape {
                    Shape::Power { exponent } => [("exponent".to_string(), exponent)].into(),
                    Shape::Linear { intercept, slope } => [
                        ("intercept".to_string(), intercept),
                        ("slope".to_string(), slope),
                    ]
                    .into(),
                };
                let runs = c
                    .runs
                    .iter()
                    .map(|r| RunJson {
                        units: r.units,
                        elapsed_s: r.elapsed_s,
                        scale: r.scale,
                        startup_s: r.startup_s,
                    })
                    .collect();
                (c.shape.name().to_string(), params, runs, None)
            }
            Err(why) => (
                "none".to_string(),
                BTreeMap::new(),
                Vec::new(),
                Some(match why {
                    NoSignal::OneUnit => UnsupportedJson::OneUnit,
                    NoSignal::Resolution => UnsupportedJson::Resolution,
                }),
            ),
        };
        StratumJson {
            stratum: m.stratum,
            runs: m.runs,
            units_probed: m.units_probed,
            model,
            params,
            probe_runs,
            unsupported,
            fingerprint: m.fingerprint,
            warnings: m.warnings,
        }
    }
}

/// The shape `model` and `params` state.
fn shape_of(model: &str, params: &BTreeMap<String, f64>) -> Result<Shape, Defect> {
    let expect = |names: &[&str]| -> Result<Vec<f64>, Defect> {
        let keys: Vec<&str> = params.keys().map(String::as_str).collect();
        if keys != names {
            return Err(Defect::new(
                "params",
                format!(
                    "has {}; expected exactly {} for model `{model}`",
                    if keys.is_empty() {
                        "no keys".to_string()
                    } else {
                        keys.join(", ")
                    },
                    names.join(", ")
                ),
            ));
        }
        Ok(names.iter().map(|n| params[*n]).collect())
    };
    match model {
        "power" => Ok(Shape::Power {
            exponent: expect(&["exponent"])?[0],
        }),
        "linear" => {
            let v = expect(&["intercept", "slope"])?;
            Ok(Shape::Linear {
                intercept: v[0],
                slope: v[1],
            })
        }
        other => Err(Defect::new(
            "model",
            format!(
                "is `{}`; expected `power` or `linear` (or `none` with `unsupported`)",
                other.escape_debug()
            ),
        )),
    }
}

impl TryFrom<StratumJson> for StratumModel {
    type Error = Defect;

    fn try_from(s: StratumJson) -> Result<Self, Defect> {
        let centre = match s.unsupported {
            Some(why) => {
                if s.model != "none" || !s.params.is_empty() || !s.probe_runs.is_empty() {
                    return Err(Defect::new(
                        "unsupported",
                        "is set, with a centre; expected `model` none, no `params` and no `probe_runs` beside it",
                    ));
                }
                Err(match why {
                    UnsupportedJson::OneUnit => NoSignal::OneUnit,
                    UnsupportedJson::Resolution => NoSignal::Resolution,
                })
            }
            None => Ok(Centre {
                shape: shape_of(&s.model, &s.params)?,
                runs: s
                    .probe_runs
                    .into_iter()
                    .map(|r| RunFit {
                        units: r.units,
                        elapsed_s: r.elapsed_s,
                        scale: r.scale,
                        startup_s: r.startup_s,
                    })
                    .collect(),
            }),
        };
        let model = StratumModel {
            stratum: s.stratum,
            runs: s.runs,
            units_probed: s.units_probed,
            centre,
            fingerprint: s.fingerprint,
            warnings: s.warnings,
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
