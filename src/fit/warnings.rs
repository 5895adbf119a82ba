//! What `calib fit` warns about, as a typed set whose text tells the user what to do.

use std::fmt;

use serde::Serialize;

use crate::model::BEND_NOT_RULED_OUT;
use crate::output::human_duration;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FitWarning {
    /// Per-unit cost changes along a run: a plain mean misleads.
    SignificantTrend {
        stratum: String,
        first_s: f64,
        last_s: f64,
        horizon: u64,
        trend_pct: f64,
    },
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
    /// The projection reaches far beyond the longest probed run.
    FarExtrapolation {
        stratum: String,
        units: u64,
        probed: u64,
    },
    /// Too few units to tell a flat cost from a rising one.
    ProbeTooShort {
        stratum: String,
        units: u64,
        needed: u64,
    },
    /// Runs long enough for the extrapolation test, but whose rows before the
    /// holdout cut are too few or too irregular to fit on (gaps in the units).
    EarlyRowsTooFew {
        stratum: String,
        horizon: u64,
        cut: u64,
    },
    /// Runs long enough for the extrapolation test, but whose units after
    /// the holdout cut took no measurable time (the time column stays the
    /// same there): there is no later time for a form to predict.
    LateUnitsTookNoTime {
        stratum: String,
        horizon: u64,
        cut: u64,
    },
    /// The probe supports no bound: `calib budget` will give no time.
    Unsupported {
        stratum: String,
        why: crate::model::Unsupported,
        /// The longest probed run and the run to budget, for the advice.
        probe_units: u64,
        units: u64,
    },
    /// Only two run lengths: the curvature of the cumulative curve is unmeasured.
    CurvatureUnmeasured { stratum: String, lengths: Vec<u64> },
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
    SpreadUnmeasured { stratum: String, assumed_pct: f64 },
    /// A few units many times slower than their neighbours, evened out.
    TransientUnits {
        stratum: String,
        units: usize,
        runs_with: usize,
        runs: usize,
        worst_ratio: f64,
        worst_unit: u64,
    },
    /// The probe's later units follow no form fitted on its earlier ones.
    RegimeChange {
        stratum: String,
        cut: u64,
        horizon: u64,
        off_pct: f64,
        /// The longer probe run that would show whether the change goes on.
        settle_units: u64,
    },
    /// The probe could not rule out a cost bending upward on its base (the
    /// model's convex alternative).
    ConvexNotRuledOut {
        stratum: String,
        /// The run asked for (`--units`), when it is longer than the probe.
        at_units: Option<ConvexAt>,
        /// The longer probe run that would settle it.
        settle_units: u64,
    },
    /// Per-unit cost multiplies along the probe: the geometric form is in the model.
    GeometricGrowth {
        stratum: String,
        factor_per_unit: f64,
        probe_units: u64,
    },
    /// The per-unit cost took off within the probe: the onset form (a base
    /// with a part multiplying per unit) is among the plausible forms.
    Onset {
        stratum: String,
        factor_per_unit: f64,
        /// The growing part's share of the cost of the probe's last unit.
        growing_pct: f64,
        probe_units: u64,
        /// The longer probe run that would show whether the growth goes on.
        settle_units: u64,
    },
}

/// What the convex alternative would take for the run asked for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConvexAt {
    pub units: u64,
    /// Seconds, at the runs' mean level.
    pub convex_s: f64,
    /// calib's central projection, seconds.
    pub predicted_s: f64,
}

impl FitWarning {
    /// The stratum the warning is about (the slow one for `StrataDiffer`).
    pub fn stratum(&self) -> &str {
        match self {
            FitWarning::SignificantTrend { stratum, .. }
            | FitWarning::MixedMachines { stratum, .. }
            | FitWarning::FarExtrapolation { stratum, .. }
            | FitWarning::ProbeTooShort { stratum, .. }
            | FitWarning::EarlyRowsTooFew { stratum, .. }
            | FitWarning::LateUnitsTookNoTime { stratum, .. }
            | FitWarning::CurvatureUnmeasured { stratum, .. }
            | FitWarning::SlowFirstUnit { stratum, .. }
            | FitWarning::SpreadUnmeasured { stratum, .. }
            | FitWarning::FailedRuns { stratum, .. }
            | FitWarning::GeometricGrowth { stratum, .. }
            | FitWarning::Onset { stratum, .. }
            | FitWarning::ConvexNotRuledOut { stratum, .. }
            | FitWarning::TransientUnits { stratum, .. }
            | FitWarning::RegimeChange { stratum, .. }
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
            FitWarning::SignificantTrend { stratum, first_s, last_s, horizon, trend_pct } => write!(
                f,
                "{stratum}: per-unit cost changes {} along a run ({} at unit 1 -> {} at unit {horizon}); a plain mean of the probe misjudges long runs: budget from calib's projection (calib budget does), not from the mean",
                crate::output::change(*trend_pct),
                human_duration(*first_s),
                human_duration(*last_s)
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
            FitWarning::FarExtrapolation { stratum, units, probed } => write!(
                f,
                "{stratum}: projecting {units} units from runs of at most {probed} ({} beyond the probe); the bound is widened for the distance, but a longer probe (a run of at least {} units) would make it tighter and testable",
                crate::output::factor(*units as f64 / (*probed).max(1) as f64, 0),
                (*units / 5).max(*probed + 1)
            ),
            FitWarning::ProbeTooShort { stratum, units, needed } => write!(
                f,
                "{stratum}: {}; calib budget gives no time for runs over {} (status unsupported); probe at least {needed} units per run to let calib choose",
                if *units < 2 {
                    "the longest run has 1 unit, which shows no per-unit trend at all; the bound assumes a flat per-unit cost".to_string()
                } else {
                    format!("the longest run has {units} units, too few to tell a flat per-unit cost from a rising one; the bound covers both (constant and linear)")
                },
                crate::output::count(
                    units.saturating_mul(crate::model::MAX_BLIND_EXTRAPOLATION),
                    "unit",
                    "units"
                )
            ),
            FitWarning::EarlyRowsTooFew { stratum, horizon, cut } => write!(
                f,
                "{stratum}: the runs reach unit {horizon}, but their rows up to unit {cut} (the early part calib fits on to test how each form extrapolates) are too few or too irregular (gaps in the unit numbers?) to fit; the bound covers a flat and a rising per-unit cost (constant and linear); record every unit, or at least several units before unit {cut}"
            ),
            FitWarning::LateUnitsTookNoTime { stratum, horizon, cut } => write!(
                f,
                "{stratum}: the units after unit {cut} (up to unit {horizon}) took no measurable time: the time column does not grow there, so how each form extrapolates cannot be tested; the bound covers a flat and a rising per-unit cost (constant and linear); check that the column holds seconds since the run's start (--per-unit if it holds each unit's own time), and that a unit lasts long enough to be timed"
            ),
            FitWarning::CurvatureUnmeasured { stratum, lengths } => write!(
                f,
                "{stratum}: run lengths measured: {}; two lengths fix a trend but not its curvature, so calib extrapolates a straight line on a log-log plot (power law) and widens the bound with the distance; measure a third, longer length to test that",
                lengths.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
            ),
            FitWarning::SlowFirstUnit { stratum, first_s, typical_s } => write!(
                f,
                "{stratum}: the first unit took {} against {} for the next ones (warm-up or startup); calib counts the excess once per run, so if your jobs restart from checkpoints, add it once per segment",
                human_duration(*first_s),
                human_duration(*typical_s)
            ),
            FitWarning::TransientUnits { stratum, units, runs_with, runs, worst_ratio, worst_unit } => write!(
                f,
                "{stratum}: {units} unit(s) in {runs_with} of {runs} run(s) took over {factor}x their neighbours (up to {worst_ratio:.0}x, unit {worst_unit}): transient slowdowns (a noisy neighbour, I/O, garbage collection); calib counts their time as a cost that recurs along the run, not as a trend; if they came from the probe's node rather than the program, probe again on another node",
                factor = super::transients::TRANSIENT_FACTOR
            ),
            FitWarning::RegimeChange { stratum, cut, horizon, off_pct, settle_units } => write!(
                f,
                "{stratum}: units {}-{horizon} of the probe took {off_pct:+.0}% against every cost form fitted on units 1-{cut}: a change of regime (a cache or memory outgrown, a new phase of the program, a change on the node); calib carries each run's current rate forward, but cannot tell whether the change goes on, stops or repeats: probe one run to {settle_units} units to see (calib probe --units {settle_units}), and check the budget against one full run",
                cut + 1
            ),
            FitWarning::GeometricGrowth { stratum, factor_per_unit, probe_units } => write!(
                f,
                "{stratum}: per-unit cost multiplies by about x{factor_per_unit:.2} per unit along the probe (geometric growth, as in iterative deepening or an expanding search), so calib projects it geometrically: every unit beyond unit {probe_units} multiplies the budget, and a small error in the factor compounds; check that --units is the length you need, and probe a few units further to pin the factor down"
            ),
            FitWarning::Onset { stratum, factor_per_unit, growing_pct, probe_units, settle_units } => write!(
                f,
                "{stratum}: per-unit cost took off during the probe: a base plus a part multiplying by about x{factor_per_unit:.3} per unit, {growing_pct:.0}% of unit {probe_units}'s cost (the onset form); calib projects that part multiplying up to --units, so a small error in its factor compounds: probe one run to {settle_units} units (calib probe --units {settle_units}) to see whether the growth goes on"
            ),
            FitWarning::ConvexNotRuledOut { stratum, at_units, settle_units } => write!(
                f,
                "{stratum}: per-unit cost rose along the probe, and {BEND_NOT_RULED_OUT}; {}; calib budget says whether its bound covers that: probe one run to {settle_units} units (calib probe --units {settle_units}) to see whether the rise bends upward",
                match at_units {
                    Some(at) => format!(
                        "at {} units it would take {}, {} calib's projection ({})",
                        at.units,
                        human_duration(at.convex_s),
                        crate::output::factor(at.convex_s / at.predicted_s, 1),
                        human_duration(at.predicted_s)
                    ),
                    None => "beyond the probe it may outgrow calib's projection".to_string(),
                }
            ),
            FitWarning::FailedRuns { stratum, failed, runs, example, code, units } => write!(
                f,
                "{stratum}: {failed} of {runs} run(s) ended with a failure (run {example}: exit status {code} after {units} units); their finished units are fitted as timed, but a program that failed may not have done a full run's work: check its output, and probe again if it crashed"
            ),
            FitWarning::SpreadUnmeasured { stratum, assumed_pct } => write!(
                f,
                "{stratum}: one run only, so the spread between runs (seeds) is unmeasured: assumed {assumed_pct:.0}%; probe 3 or more runs of this stratum to measure it, since one seed can be much slower than another"
            ),
        }
    }
}
