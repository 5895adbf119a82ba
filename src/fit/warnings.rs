//! What `calib fit` warns about, as a typed set whose text tells the user what to do.

use std::fmt;

use serde::Serialize;

use crate::output::human_duration;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FitWarning {
    /// Two strata differ by more than 2x in per-unit cost.
    StrataDiffer {
        slow: String,
        slow_rate_s: f64,
        fast: String,
        fast_rate_s: f64,
    },
    /// One stratum measured on different clusters or CPU models.
    MixedMachines {
        stratum: String,
        clusters: Vec<String>,
        cpu_models: Vec<String>,
    },
    /// Runs long enough for the extrapolation test, but whose rows before the
    /// Runs long enough for the extrapolation test, but whose units after
    /// the holdout cut took no measurable time (the time column stays the
    /// The probe supports no bound: `calib budget` will give no time.
    Unsupported {
        stratum: String,
        why: crate::model::Unsupported,
        /// The longest probed run and the run to budget, for the advice.
        probe_units: u64,
        units: u64,
    },
    /// The first unit is much slower than the next ones (warm-up).
    SlowFirstUnit {
        stratum: String,
        first_s: f64,
        typical_s: f64,
    },
    /// Runs whose command exited with a failure status.
    FailedRuns {
        stratum: String,
        failed: usize,
        runs: usize,
        /// One of them, its exit status and the units it had finished.
        example: String,
        code: i32,
        units: u64,
    },
    /// A stratum with one run: the spread between runs is assumed, not measured.
    SpreadUnmeasured { stratum: String },
}

impl FitWarning {
    /// The stratum the warning is about (the slow one for `StrataDiffer`).
    pub fn stratum(&self) -> &str {
        match self {
            FitWarning::MixedMachines { stratum, .. }
            | FitWarning::SlowFirstUnit { stratum, .. }
            | FitWarning::SpreadUnmeasured { stratum, .. }
            | FitWarning::FailedRuns { stratum, .. }
            | FitWarning::Unsupported { stratum, .. } => stratum,
            FitWarning::StrataDiffer { slow, .. } => slow,
        }
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() {
        "(unknown)".to_string()
    } else {
        v.join(", ")
    }
}

impl fmt::Display for FitWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitWarning::Unsupported {
                stratum,
                why,
                probe_units,
                units,
            } => write!(
                f,
                "{stratum}: calib budget will give this stratum no --time; {}",
                why.explain(*units, *probe_units)
            ),
            FitWarning::StrataDiffer { slow, slow_rate_s, fast, fast_rate_s } => write!(
                f,
                "{slow} costs {} more per unit than {fast} ({} vs {}): submit the strata as separate arrays, each with its own --time (calib budget does); one walltime for all would either kill the slow cells or queue the fast ones in a scarcer partition",
                crate::output::factor(slow_rate_s / fast_rate_s, 1),
                human_duration(*slow_rate_s),
                human_duration(*fast_rate_s)
            ),
            FitWarning::MixedMachines { stratum, clusters, cpu_models } => write!(
                f,
                "{stratum}: rows come from different machines (clusters: {}; CPU models: {}); per-core speed differs between machines, so this stratum mixes rates: split it (--by cluster or --by cpu_model) and budget from the rows of the cluster you will submit to",
                list(clusters),
                list(cpu_models)
            ),
            FitWarning::SlowFirstUnit { stratum, first_s, typical_s } => write!(
                f,
                "{stratum}: the first unit took {} against {} for the next ones (warm-up or startup); calib counts the excess once per run, and calib resume once per restart",
                human_duration(*first_s),
                human_duration(*typical_s)
            ),
            FitWarning::FailedRuns { stratum, failed, runs, example, code, units } => write!(
                f,
                "{stratum}: {failed} of {} ended with a failure (run {example}: exit status {code} after {units} units); their finished units are fitted as timed, but a program that failed may not have done a full run's work: check its output, and probe again if it crashed",
                crate::output::count(*runs as u64, "run", "runs")
            ),
            FitWarning::SpreadUnmeasured { stratum } => write!(
                f,
                "{stratum}: one run only, so the spread between runs (seeds) is unmeasured and the bound holds none of it; probe 3 or more runs of this stratum, since one seed can be much slower than another"
            ),
        }
    }
}
