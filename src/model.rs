//! calib-model.json: what `calib fit` learns and `calib budget` reads.
//!
//! The contract fields (design.md) are `calib_version`, `created_at`, and per
//! stratum `stratum`, `runs`, `units_probed`, `model`, `params`, `fingerprint`
//! (`clusters`, `cpu_models`) and `warnings`. Everything else here is calib's own
//! and may grow; readers must ignore fields they do not know.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Origin, Result};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelFile {
    pub calib_version: String,
    /// RFC 3339.
    pub created_at: String,
    pub strata: Vec<StratumModel>,
}

/// The machines a stratum was measured on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ModelFingerprint {
    pub clusters: Vec<String>,
    pub cpu_models: Vec<String>,
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default)]
    pub partitions: Vec<String>,
    /// Date of the earliest run measured (RFC 3339), when the files say.
    #[serde(default)]
    pub measured_from: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StratumModel {
    /// Canonical labels, `dataset=Y,model=7B`.
    pub stratum: String,
    pub runs: usize,
    /// Unit completions measured, summed over runs.
    pub units_probed: u64,
    /// The chosen form of per-unit cost.
    pub model: String,
    pub params: BTreeMap<String, f64>,
    pub fingerprint: ModelFingerprint,
    pub warnings: Vec<String>,
    /// Everything a projection needs (owned by `crate::fit`).
    pub curve: crate::fit::CurveState,
}

/// A projected new run of a stratum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    pub units: u64,
    /// Central projection of a new run, startup included.
    pub predicted_s: f64,
    /// The measured cost: the projection for the most expensive run observed.
    pub floor_s: f64,
    /// Upper end of a one-sided prediction interval at `confidence`.
    pub upper_s: f64,
    pub confidence: f64,
    /// What widened or limited the bound, in words.
    pub notes: Vec<String>,
}

impl StratumModel {
    /// Projects a new run of `units` units at a one-sided `confidence` in (0, 1).
    pub fn project(&self, units: u64, confidence: f64) -> Projection {
        crate::fit::project(self, units, confidence)
    }
}

impl ModelFile {
    /// Why this model cannot project, if it cannot: a stratum without a curve,
    /// or one whose projections are not finite positive numbers (a hand-edited
    /// file, or timings of absurd magnitude).
    pub fn defect(&self) -> Option<String> {
        for stratum in &self.strata {
            if stratum.curve.plausible.is_empty() {
                return Some(format!("stratum {} has no fitted curve", stratum.stratum));
            }
            let horizon = stratum.curve.horizon.max(1);
            for units in [1, horizon, horizon.saturating_mul(10)] {
                let p = stratum.project(units, 0.99);
                let fine = |x: f64| x.is_finite() && x > 0.0;
                if !(fine(p.predicted_s) && fine(p.floor_s) && fine(p.upper_s)) {
                    return Some(format!(
                        "stratum {} projects {} s (upper {} s) for {units} units; expected finite, positive times",
                        stratum.stratum, p.predicted_s, p.upper_s
                    ));
                }
            }
        }
        None
    }

    pub fn load(path: &Path) -> Result<ModelFile> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::input(
                Origin::file(path),
                None,
                format!("cannot read the model file: {e}"),
            )
        })?;
        let model: ModelFile = serde_json::from_str(&text).map_err(|e| {
            Error::input(
                Origin::file(path),
                Some(e.line() as u64),
                format!(
                    "not a calib model file: {e}; expected the JSON that `calib fit -o` writes"
                ),
            )
        })?;
        if let Some(defect) = model.defect() {
            return Err(Error::input(
                Origin::file(path),
                None,
                format!("{defect}; refit with `calib fit -o`"),
            ));
        }
        Ok(model)
    }
}
