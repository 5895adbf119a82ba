//! PLACEHOLDER (replaced by the fit work): a constant per-unit rate.

use serde::{Deserialize, Serialize};

use crate::model::{Projection, StratumModel};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CurveState {
    pub rate_s: f64,
    pub startup_s: f64,
    pub slowest_rate_s: f64,
}

pub fn project(model: &StratumModel, units: u64, confidence: f64) -> Projection {
    let c = &model.curve;
    let n = units as f64;
    Projection {
        units,
        predicted_s: c.startup_s + c.rate_s * n,
        floor_s: c.startup_s + c.slowest_rate_s * n,
        upper_s: (c.startup_s + c.slowest_rate_s * n) * 1.2,
        confidence,
        notes: Vec::new(),
    }
}

#[derive(Debug, Clone, Default)]
pub struct FitOptions {}

pub struct FitReport {
    pub model: crate::model::ModelFile,
}

pub fn fit_timings(
    _timings: &crate::timings::Timings,
    _options: &FitOptions,
) -> crate::error::Result<FitReport> {
    Err(crate::error::Error::Failed("placeholder".into()))
}
