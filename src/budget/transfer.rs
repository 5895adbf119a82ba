//! The transfer gate: a rate measured on another cluster or CPU model is an
//! estimate, not a calibration (seed: 179 ms/unit on a laptop and on cluster A,
//! 459 ms/unit on cluster B). calib refuses to budget from it unless the user
//! asks for it explicitly, and then marks every output as an estimate.

use crate::error::{Error, Result};
use crate::model::StratumModel;

/// The cluster (and CPU model, when known) that will run the work.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Target {
    pub cluster: Option<String>,
    pub cpu_model: Option<String>,
}

/// How the measurements relate to the target.
#[derive(Debug, Clone, PartialEq)]
pub enum Provenance {
    /// Measured on the target cluster (and CPU model, when both are known).
    Calibrated,
    /// The target is unknown, so the match could not be checked.
    Unchecked,
    /// Measured elsewhere; allowed by `--allow-transfer`, so an estimate.
    Estimate(String),
}

impl Provenance {
    pub fn is_estimate(&self) -> bool {
        matches!(self, Provenance::Estimate(_))
    }
}

fn same(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// The mismatch between where a stratum was measured and the target, if any.
fn mismatch(stratum: &StratumModel, target: &Target) -> Option<String> {
    let fp = &stratum.fingerprint;
    if let Some(cluster) = &target.cluster {
        let foreign: Vec<&String> = fp.clusters.iter().filter(|c| !same(c, cluster)).collect();
        if fp.clusters.is_empty() {
            return Some(format!(
                "stratum {} has no record of the cluster it was measured on, and the target is {cluster}",
                stratum.stratum
            ));
        }
        if !foreign.is_empty() {
            return Some(format!(
                "stratum {} was measured on {} but the target is {cluster}",
                stratum.stratum,
                join(&fp.clusters)
            ));
        }
    }
    if let Some(cpu) = &target.cpu_model {
        if !fp.cpu_models.is_empty() && fp.cpu_models.iter().any(|c| !same(c, cpu)) {
            return Some(format!(
                "stratum {} was measured on CPU {} but the target CPU is {cpu}",
                stratum.stratum,
                join(&fp.cpu_models)
            ));
        }
    }
    None
}

fn join(items: &[String]) -> String {
    items.join(" and ")
}

/// Checks every stratum against the target. Refuses (exit 2) on a mismatch
/// unless `allow_transfer`, which turns it into an estimate.
pub fn check(
    strata: &[&StratumModel],
    target: &Target,
    allow_transfer: bool,
) -> Result<Provenance> {
    if target.cluster.is_none() && target.cpu_model.is_none() {
        return Ok(Provenance::Unchecked);
    }
    let problems: Vec<String> = strata.iter().filter_map(|s| mismatch(s, target)).collect();
    if problems.is_empty() {
        return Ok(Provenance::Calibrated);
    }
    let what = problems.join("; ");
    if allow_transfer {
        return Ok(Provenance::Estimate(format!(
            "ESTIMATE, not a calibration: {what}. Per-core speed differs between machines (2.6x in the seed's case); probe on the target before trusting this."
        )));
    }
    Err(Error::Refused(format!(
        "refusing to budget: {what}. A rate measured on another machine is an estimate, not a calibration (per-core speed can differ 2.6x). Probe on the target (`calib probe` inside an salloc there), or pass --allow-transfer to get an estimate marked as such."
    )))
}
