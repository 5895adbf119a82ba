//! `calib fit`'s statistical core: the bound on a new run of N units, from a
//! stratum's probe and a factor measured on real programs. The method and its
//! assumptions, in one place:
//!
//! **Centre** ([`centre`]). Per probe run r (units 1..K_r, cumulative times
//! t_r(i)), the per-unit cost over the second half of the run (units past
//! K_r/2, unit 1 left out: it carries the startup) is fitted as
//! c_r(i) = s_r h(i): one shape h for the stratum, pooled within runs, and
//! each run's own scale s_r (a ratio of sums, so that it reproduces the
//! run's measured time over the window). The shape is a power law
//! h(i) = i^b (least squares of ln c on ln i, b held in [0, 3]); no decline
//! is extrapolated. A run of N units is projected as
//! T_r(N) = t_r(K_r) + s_r Σ_{i=K_r+1..N} h(i). Runs measured at their end
//! alone, at several lengths (`calib probe --lengths`), give the shape from
//! their mean cost per unit against their length instead. The **prediction**
//! (`predicted_s`) is the median over runs; the **measured cost**
//! (`floor_s`) the slowest seed's projection, below which no `--time` goes
//! (beyond the probe, a projection).
//!
//! **Factor** ([`crate::calibrate`]). On a corpus of real programs, each case
//! is a probe and a run of N units that the probe did not see: a recorded
//! probe against a full run recorded at another time and load, and probes
//! cut from other full runs of the stratum (to N/2 ... N/32), which widen the
//! range of N/K but carry none of the drift between a probe and the runs that
//! follow it; e = ln(actual total / slowest seed's projection). A case
//! belongs to one of four groups: growth visible in the probe (the shape
//! rises by [`centre::GROWTH_RISE`] from K/2 to K) or not, crossed with a
//! probe of at least [`centre::LONG_PROBE_UNITS`] units or shorter. The
//! factor for a new probe at confidence q is exp of the weighted q-quantile
//! of e over its group's cases, each weighted by closeness in ln(N/K) (a
//! Gaussian kernel of width [`crate::calibrate::BANDWIDTH`]) and divided by
//! its program's count of cases, so that every program weighs alike. The
//! **bound** (`upper_s`) is the slowest seed's projection times the factor,
//! at least that projection: the seeds' spread enters as measured (slowest
//! over median), the factor is the extrapolation's share, and the output
//! states both.
//!
//! **Chosen once.** The form, the anchor (median or slowest seed), the
//! kernel's width and whether the cut cases count were chosen once for all
//! programs by leave-one-program-out on the corpus (`calib calibrate` prints
//! every candidate; `docs/calibration.md`), never on the held-out sets.
//!
//! **Assumptions.** A new program is exchangeable with the corpus's programs
//! within a group and at similar N/K: the factor is split conformal
//! prediction with programs as the exchangeable units (Lei, G'Sell, Rinaldo,
//! Tibshirani, Wasserman, "Distribution-Free Predictive Inference for
//! Regression", JASA 2018), weighted by similarity (Barber, Candès, Ramdas,
//! Tibshirani, "Conformal prediction beyond exchangeability", Ann. Stat.
//! 2023). With n programs such a statement holds at most at 1 - 1/(n + 1):
//! a higher `--confidence` is refused. The corpus's probes and full runs
//! were recorded at different times and loads, so the factor carries that
//! drift, which probes taken side by side do not show. Strata are bounded
//! each on its own runs: a stray run of one stratum moves no other's bound.
//!
//! **Refusal** (`unsupported`). Only where the probe shows no per-unit signal
//! (no run with two units, or less than [`centre::MIN_SIGNAL_S`] of measured
//! time past unit 1: the cost is lost in startup and timer resolution), or
//! where the group's cases near this N/K come from fewer than
//! [`crate::calibrate::MIN_PROGRAMS`] programs (effective count, by their
//! weights).
//!
//! Warnings ([`warnings`]) and reporting ([`export`], [`plot`]) are kept apart
//! from the statistics.

pub mod centre;
pub mod export;
pub mod plot;
pub mod warnings;

use std::collections::{BTreeMap, BTreeSet};

pub use warnings::FitWarning;

use crate::calibrate::{Table, FORM};
use crate::error::{Error, Origin, Result};
use crate::limits::MAX_COUNT;
use crate::model::{ModelFile, ModelFingerprint, Projection, StratumModel, Unsupported};
use crate::stats::median;
use crate::timings::{RunEnd, RunTimings, Timings};
use centre::Centre;

/// What the fit is asked for.
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// One-sided confidence of the bound shown in the table (budget passes its own).
    pub confidence: f64,
    /// Units of the run to be budgeted, when known (table columns, warnings).
    pub units: Option<u64>,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            confidence: crate::calibrate::DEFAULT_CONFIDENCE,
            units: None,
        }
    }
}

/// Per-stratum figures for the table and the plot.
#[derive(Debug, Clone)]
pub struct StratumReport {
    pub stratum: String,
    /// Per run: (unit index, per-unit cost in seconds) for each measured interval,
    /// plotted at the interval's last unit.
    pub points: Vec<Vec<(u64, f64)>>,
    /// The measured cost of the first unit past unit 1 and of the last one
    /// (medians over runs).
    pub first_cost_s: f64,
    pub last_cost_s: f64,
    /// (last / first - 1) x 100.
    pub trend_pct: f64,
    /// Plain mean per-unit cost of the probe: Σ elapsed / Σ units over runs.
    pub mean_rate_s: f64,
}

/// What `fit_timings` returns: the model file and what the table and plot need.
#[derive(Debug, Clone)]
pub struct FitReport {
    pub model: ModelFile,
    pub strata: Vec<StratumReport>,
    pub warnings: Vec<FitWarning>,
    pub options: FitOptions,
}

impl FitReport {
    /// Every stratum's projection of a run of `units` units at the fit's
    /// confidence, in the strata's order.
    pub fn projections(&self, units: u64, table: &Table) -> Vec<Projection> {
        self.model
            .strata
            .iter()
            .map(|m| m.project(units, self.options.confidence, table))
            .collect()
    }

    /// Plain-mean underestimate at N: predicted / (mean rate x N).
    pub fn mean_underestimate(&self, k: usize, units: u64) -> f64 {
        let predicted = self.model.strata[k]
            .centre
            .as_ref()
            .map_or(0.0, |c| c.project(units).0);
        predicted / (self.strata[k].mean_rate_s * units as f64)
    }
}

/// Fits every stratum of `timings`.
pub fn fit_timings(timings: &Timings, options: &FitOptions) -> Result<FitReport> {
    if !(options.confidence > 0.5 && options.confidence < 1.0) {
        return Err(Error::input(
            Origin::Argument("--confidence".into()),
            None,
            format!(
                "{} is not a one-sided confidence; expected a number in (0.5, 1), e.g. 0.99",
                options.confidence
            ),
        ));
    }
    if let Some(units) = options.units.filter(|n| !(1..=MAX_COUNT).contains(n)) {
        return Err(Error::input(
            Origin::Argument("--units".into()),
            None,
            format!("{units} units; expected the length of a run, from 1 to {MAX_COUNT}"),
        ));
    }
    let mut groups: BTreeMap<String, Vec<&RunTimings>> = BTreeMap::new();
    for run in &timings.runs {
        if !run.points.is_empty() {
            groups.entry(run.stratum.canonical()).or_default().push(run);
        }
    }
    if groups.is_empty() {
        return Err(no_unit_rows(&timings.sources));
    }
    let mut strata = Vec::new();
    let mut reports = Vec::new();
    let mut warnings = Vec::new();
    for (name, runs) in &groups {
        let (model, report, w) = fit_stratum(name, runs, options);
        strata.push(model);
        reports.push(report);
        warnings.extend(w);
    }
    // Strata differing by more than 2x in per-unit cost.
    if reports.len() >= 2 {
        let by_rate =
            |a: &&StratumReport, b: &&StratumReport| a.mean_rate_s.total_cmp(&b.mean_rate_s);
        let slow = reports.iter().max_by(by_rate);
        let fast = reports.iter().min_by(by_rate);
        if let (Some(slow), Some(fast)) = (slow, fast) {
            if slow.mean_rate_s > 2.0 * fast.mean_rate_s {
                let w = FitWarning::StrataDiffer {
                    slow: slow.stratum.clone(),
                    slow_rate_s: slow.mean_rate_s,
                    fast: fast.stratum.clone(),
                    fast_rate_s: fast.mean_rate_s,
                };
                for m in strata.iter_mut() {
                    if m.display_name() == slow.stratum || m.display_name() == fast.stratum {
                        m.warnings.push(w.to_string());
                    }
                }
                warnings.push(w);
            }
        }
    }
    Ok(FitReport {
        model: ModelFile {
            calib_version: crate::VERSION.to_string(),
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            strata,
        },
        strata: reports,
        warnings,
        options: options.clone(),
    })
}

/// One stratum's model, its figures and its warnings.
fn fit_stratum(
    name: &str,
    runs: &[&RunTimings],
    options: &FitOptions,
) -> (StratumModel, StratumReport, Vec<FitWarning>) {
    let display = crate::stratum::display_name(name).to_string();
    let probes: Vec<&[(u64, f64)]> = runs.iter().map(|r| r.points.as_slice()).collect();
    let centre = Centre::fit(&probes, FORM);
    let units_probed = runs
        .iter()
        .map(|r| r.points.last().map_or(0, |p| p.0))
        .fold(0u64, u64::saturating_add);
    let elapsed: f64 = runs
        .iter()
        .map(|r| r.points.last().map_or(0.0, |p| p.1))
        .sum();
    let points: Vec<Vec<(u64, f64)>> = runs.iter().map(|r| unit_costs(&r.points)).collect();
    let horizon = centre.as_ref().map_or(1, Centre::probe_units);
    // As measured: the median over runs of the first interval past unit 1
    // (unit 1 carries the startup) and of the last.
    let measured = |pick: fn(&[(u64, f64)]) -> Option<f64>| {
        let costs: Vec<f64> = points.iter().filter_map(|p| pick(p)).collect();
        median(&costs).unwrap_or(0.0)
    };
    let first_cost_s = measured(|p| p.get(1).map(|x| x.1));
    let last_cost_s = measured(|p| (p.len() >= 2).then(|| p[p.len() - 1].1));
    let trend_pct = if first_cost_s > 0.0 {
        (last_cost_s / first_cost_s - 1.0) * 100.0
    } else {
        0.0
    };
    let fingerprint = fingerprint(runs);
    let mut w = Vec::new();
    if fingerprint.clusters.len() > 1 || fingerprint.cpu_models.len() > 1 {
        w.push(FitWarning::MixedMachines {
            stratum: display.clone(),
            clusters: fingerprint.clusters.clone(),
            cpu_models: fingerprint.cpu_models.clone(),
        });
    }
    if let Err(why) = &centre {
        w.push(FitWarning::Unsupported {
            stratum: display.clone(),
            why: Unsupported::NoSignal(*why),
            probe_units: horizon,
            units: options.units.unwrap_or(horizon.saturating_mul(10)),
        });
    }
    if let Some((first_s, typical_s)) = slow_first_unit(&points) {
        w.push(FitWarning::SlowFirstUnit {
            stratum: display.clone(),
            first_s,
            typical_s,
        });
    }
    if runs.len() == 1 {
        w.push(FitWarning::SpreadUnmeasured {
            stratum: display.clone(),
        });
    }
    w.extend(failed_runs(&display, runs));
    let model = StratumModel {
        stratum: name.to_string(),
        runs: runs.len(),
        units_probed,
        centre,
        fingerprint,
        warnings: w.iter().map(ToString::to_string).collect(),
    };
    let report = StratumReport {
        stratum: display,
        points,
        first_cost_s,
        last_cost_s,
        trend_pct,
        mean_rate_s: elapsed / units_probed.max(1) as f64,
    };
    (model, report, w)
}

fn fingerprint(runs: &[&RunTimings]) -> ModelFingerprint {
    let collect = |get: &dyn Fn(&RunTimings) -> Option<&String>| -> Vec<String> {
        runs.iter()
            .filter_map(|r| get(r).cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    ModelFingerprint {
        clusters: collect(&|r| r.fingerprint.cluster.as_ref()),
        cpu_models: collect(&|r| r.fingerprint.cpu_model.as_ref()),
        hosts: collect(&|r| r.fingerprint.host.as_ref()),
        partitions: collect(&|r| r.fingerprint.partition.as_ref()),
        measured_from: runs
            .iter()
            .filter_map(|r| r.fingerprint.started_at.clone())
            .min(),
        measured_to: runs
            .iter()
            .filter_map(|r| r.fingerprint.started_at.clone())
            .max(),
    }
}

/// A run's (unit, per-unit cost) of each interval, at its last unit: the
/// interval's time over its units (the first interval holds the startup).
fn unit_costs(points: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut prev = (0u64, 0.0f64);
    points
        .iter()
        .map(|&(u, t)| {
            // Most intervals are one unit long: no division (x / 1 is x).
            let cost = match u - prev.0 {
                1 => t - prev.1,
                units => (t - prev.1) / units as f64,
            };
            prev = (u, t);
            (u, cost)
        })
        .collect()
}

/// Runs whose command exited with a failure status (not killed by a signal
/// nor stopped at --units): their finished units are fitted as timed, but a
/// program that failed may not have done a full run's work.
fn failed_runs(display: &str, runs: &[&RunTimings]) -> Option<FitWarning> {
    let failed: Vec<(&RunTimings, i32, u64)> = runs
        .iter()
        .filter_map(|r| match &r.end {
            Some((RunEnd::Exit(code), units, _)) if *code != 0 => Some((*r, *code, *units)),
            _ => None,
        })
        .collect();
    let &(first, code, units) = failed.first()?;
    Some(FitWarning::FailedRuns {
        stratum: display.to_string(),
        failed: failed.len(),
        runs: runs.len(),
        example: first.run.clone(),
        code,
        units,
    })
}

/// (first unit's cost, median of units 2..=10) when the first is > 1.5x slower,
/// taken as medians over runs whose first row is unit 1.
fn slow_first_unit(points: &[Vec<(u64, f64)>]) -> Option<(f64, f64)> {
    let mut firsts = Vec::new();
    let mut nexts = Vec::new();
    for run in points {
        if run.len() >= 3 && run[0].0 == 1 {
            firsts.push(run[0].1);
            nexts.extend(run.iter().skip(1).take_while(|p| p.0 <= 10).map(|p| p.1));
        }
    }
    let (f, n) = (median(&firsts)?, median(&nexts)?);
    (f > 1.5 * n && n > 0.0).then_some((f, n))
}

/// "No unit rows" naming the inputs read (or saying that none was); also
/// `calib backtest`'s refusal of the same input.
pub(crate) fn no_unit_rows(sources: &[Origin]) -> Error {
    if sources.is_empty() {
        return Error::Refused(
            "no timings file was read (see the warnings above); expected files or folders of timings".into(),
        );
    }
    about_inputs(
        sources,
        "no unit rows found; expected timings with at least one completed unit",
    )
}

/// An error about what the timings read hold, naming them: the file when it
/// is one (bad input, exit 2), the first few when they are several, nothing
/// more when none is known (timings built in memory). The rows' own files
/// are not kept with the runs, so a stratum's error names every input.
fn about_inputs(sources: &[Origin], message: impl Into<String>) -> Error {
    let message = message.into();
    match sources {
        [] => Error::Refused(message),
        [one] => Error::input(one.clone(), None, message),
        many => {
            const NAMED: usize = 5;
            let mut names: Vec<String> = many.iter().take(NAMED).map(Origin::to_string).collect();
            if many.len() > NAMED {
                names.push(format!("and {} more", many.len() - NAMED));
            }
            Error::Refused(format!("{}: {message}", names.join(", ")))
        }
    }
}
