//! `calib fit`'s statistical core: per-stratum cost models of a run of N units.
//!
//! Pipeline for each stratum (each step its own module):
//!
//! 1. **Intervals** (here): each run's rows become intervals (u0, u1] with their
//!    measured durations; the first interval (0, u1] includes the startup; a
//!    run-length row is the interval (0, N]. Identical intervals of several runs
//!    are aggregated into sufficient statistics.
//! 2. **Forms** ([`forms`]): constant, linear, logarithmic and power-law per-unit
//!    cost c(i), each with a startup term; a run is `startup + C(N)`.
//! 3. **Least squares** ([`lsq`]): weighted least squares with weight 1/(u1-u0)
//!    (assumption: independent per-unit noise of common variance), parameter
//!    covariance from the fit. Startup and c(1) are confounded for unit rows;
//!    projections only need their sum. The startup term is dropped when it is not
//!    identified (run-length rows at fewer lengths than parameters) or negative.
//! 4. **Selection by extrapolation** ([`select`]): fit on the early part, score on
//!    the later part; best form, runner-up, and the set of forms the data cannot
//!    rule out ("plausible": a score within 2 standard errors of the best one,
//!    taking the larger of the two forms' holdout standard errors).
//! 5. **Spread** ([`spread`]): per-run multiplicative levels (log-normal run
//!    effects) with a scaled-inverse-χ² prior (σ0 = 10%, ν0 = 3 pseudo-runs;
//!    Gelman et al., BDA 3rd ed., ch. 3).
//!    The fit's covariance is rescaled by the ratio of the within-run residual
//!    variance (each run against the curve at its own level) to the pooled one
//!    (never widened), so that level differences count once, in the spread.
//! 6. **Projection** ([`project`]): predicted, floor (the most expensive run
//!    observed) and a one-sided prediction bound combining spread, the fit's own
//!    uncertainty (delta method) and an extrapolation allowance growing with
//!    ln(N / longest probe); maximum over plausible forms.
//!
//! Differences from the lead's suggested method: per-run projections use the
//! pooled shape scaled by each run's level (measured at the run's last unit) for
//! every run, not a per-run refit (a per-run refit of a trend form from a short
//! probe mixes fit noise into the spread, which the bound already counts once);
//! run-length data at two lengths choose the power law (see [`select`]); the
//! t degrees of freedom combine spread and fit by Welch–Satterthwaite.
//!
//! Warnings ([`warnings`]) and reporting ([`table`], [`plot`]) are kept apart from
//! the statistics.

pub mod forms;
pub mod lsq;
pub mod plot;
pub mod project;
pub mod select;
pub mod spread;
pub mod table;
pub mod warnings;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

pub use forms::{Form, Params};
pub use project::{project, CurveFit};
pub use select::{FormScore, Selection};
pub use spread::Spread;
pub use warnings::FitWarning;

use crate::error::{Error, Origin, Result};
use crate::limits::MAX_COUNT;
use crate::model::{ModelFile, ModelFingerprint, StratumModel};
use crate::timings::{RunTimings, Timings};

/// Knobs of the fit; the defaults are the documented method.
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// One-sided confidence of the bound shown in the table (budget passes its own).
    pub confidence: f64,
    /// Units of the run to be budgeted, when known (table columns, warnings).
    pub units: Option<u64>,
    /// Prior run-to-run spread (log-sd, ≈ coefficient of variation).
    pub spread_prior_sd: f64,
    /// Weight of that prior, in pseudo-runs.
    pub spread_prior_runs: f64,
    /// Extrapolation allowance: log-sd added per e-fold beyond the longest probe.
    pub extrapolation_kappa: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            confidence: 0.99,
            units: None,
            spread_prior_sd: 0.10,
            spread_prior_runs: 3.0,
            extrapolation_kappa: 0.05,
        }
    }
}

/// One run's level relative to the chosen curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunLevel {
    pub run: String,
    pub units: u64,
    pub elapsed_s: f64,
    /// ln(elapsed / curve at its last unit).
    pub ln_level: f64,
}

/// Everything a projection needs; stored in calib-model.json as `curve`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurveState {
    /// The chosen form first, then the other plausible forms.
    pub plausible: Vec<CurveFit>,
    pub runner_up: Option<Form>,
    pub selection: Selection,
    pub scores: Vec<FormScore>,
    /// Longest run probed, in units.
    pub horizon: u64,
    /// Smallest per-unit cost a projection uses (positivity guard), seconds.
    pub unit_floor_s: f64,
    pub spread: Spread,
    pub extrapolation_kappa: f64,
    pub levels: Vec<RunLevel>,
}

impl Default for CurveState {
    fn default() -> Self {
        CurveState {
            plausible: vec![CurveFit {
                form: Form::Constant,
                params: Params {
                    startup: 0.0,
                    a: 1.0,
                    b: 0.0,
                },
                startup_fitted: false,
                cov: [[0.0; 3]; 3],
                df: 0.0,
            }],
            runner_up: None,
            selection: Selection::OneLength,
            scores: Vec::new(),
            horizon: 1,
            unit_floor_s: 1e-9,
            spread: Spread::from_levels(&[0.0], 0.1, 3.0),
            extrapolation_kappa: 0.05,
            levels: Vec::new(),
        }
    }
}

impl CurveState {
    pub fn chosen(&self) -> &CurveFit {
        &self.plausible[0]
    }
}

/// Per-stratum figures for the table and the plot.
#[derive(Debug, Clone)]
pub struct StratumReport {
    pub stratum: String,
    /// Per run: (unit index, per-unit cost in seconds) for each measured interval,
    /// plotted at the interval's last unit.
    pub points: Vec<Vec<(u64, f64)>>,
    /// Fitted c(1) and c(H) of the chosen form.
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
    /// Plain-mean underestimate at N: predicted / (mean rate x N).
    pub fn mean_underestimate(&self, k: usize, units: u64) -> f64 {
        let state = &self.model.strata[k].curve;
        let predicted =
            project::Projector::new(state).curve(units) * state.spread.mean_ln_level.exp();
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
    // Strata are independent: fit them on all cores, keeping their order.
    let groups: Vec<(&String, &Vec<&RunTimings>)> = groups.iter().collect();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(groups.len())
        .max(1);
    let chunk = groups.len().div_ceil(threads);
    let results: Vec<Result<StratumFit>> = std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(name, runs)| fit_stratum(name, runs, options))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a fitting thread panicked"))
            .collect()
    });
    for result in results {
        let (model, report, w) = result?;
        strata.push(model);
        reports.push(report);
        warnings.extend(w);
    }
    // Strata differing by more than 2x in per-unit cost.
    if reports.len() >= 2 {
        let slow = reports
            .iter()
            .max_by(|a, b| a.mean_rate_s.total_cmp(&b.mean_rate_s))
            .unwrap();
        let fast = reports
            .iter()
            .min_by(|a, b| a.mean_rate_s.total_cmp(&b.mean_rate_s))
            .unwrap();
        if slow.mean_rate_s > 2.0 * fast.mean_rate_s {
            let w = FitWarning::StrataDiffer {
                slow: slow.stratum.clone(),
                slow_rate_s: slow.mean_rate_s,
                fast: fast.stratum.clone(),
                fast_rate_s: fast.mean_rate_s,
            };
            for m in strata.iter_mut() {
                if m.stratum == slow.stratum || m.stratum == fast.stratum {
                    m.warnings.push(w.to_string());
                }
            }
            warnings.push(w);
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
    }
}

type StratumFit = (StratumModel, StratumReport, Vec<FitWarning>);

fn fit_stratum(name: &str, runs: &[&RunTimings], options: &FitOptions) -> Result<StratumFit> {
    let display = if name.is_empty() { "(all)" } else { name };
    // 1. Intervals, aggregated.
    // Unit intervals (u-1, u] by u (the common case, no hashing); others hashed.
    // The table by u is only used up to the number of rows, so that its size
    // follows the data, never a unit number (a gap up to unit 10^9 is one row).
    let dense_units = runs.iter().map(|r| r.points.len() as u64).sum::<u64>();
    let mut unit_obs: Vec<lsq::Obs> = Vec::new();
    let mut agg: HashMap<(u64, u64), lsq::Obs> = HashMap::new();
    let mut points = Vec::with_capacity(runs.len());
    let mut views = Vec::with_capacity(runs.len());
    let mut units_probed = 0u64;
    let mut total_elapsed = 0.0;
    let mut total_units = 0u64;
    for run in runs {
        let mut prev = (0u64, 0.0f64);
        let mut run_points = Vec::with_capacity(run.points.len());
        for &(u, t) in &run.points {
            let y = t - prev.1;
            let fresh = lsq::Obs {
                u0: prev.0,
                u1: u,
                n: 0.0,
                sy: 0.0,
                syy: 0.0,
            };
            let o = if u == prev.0 + 1 && u <= dense_units {
                let i = u as usize;
                if unit_obs.len() <= i {
                    unit_obs.resize(i + 1, lsq::Obs { n: 0.0, ..fresh });
                }
                let o = &mut unit_obs[i];
                (o.u0, o.u1) = (prev.0, u);
                o
            } else {
                agg.entry((prev.0, u)).or_insert(fresh)
            };
            o.n += 1.0;
            o.sy += y;
            o.syy += y * y;
            run_points.push((u, y / (u - prev.0) as f64));
            prev = (u, t);
        }
        units_probed = units_probed.saturating_add(prev.0);
        total_elapsed += prev.1;
        total_units = total_units.saturating_add(prev.0);
        points.push(run_points);
        views.push(select::RunView {
            points: run.points.clone(),
        });
    }
    let mut obs: Vec<lsq::Obs> = agg.into_values().collect();
    obs.extend(unit_obs.into_iter().filter(|o| o.n > 0.0));
    obs.sort_by_key(|o| (o.u0, o.u1));
    let horizon = views
        .iter()
        .filter_map(|v| v.points.last().map(|p| p.0))
        .max()
        .unwrap_or(1);
    let mean_rate_s = total_elapsed / total_units.max(1) as f64;

    // 2-3. Every form on all the data.
    let full: Vec<lsq::FormFit> = Form::ALL
        .iter()
        .filter_map(|&f| lsq::fit_form(f, &obs, true))
        .collect();
    if full.is_empty() {
        return Err(Error::Refused(format!(
            "stratum {display}: no cost model could be fitted to its rows; expected elapsed times that grow with the units"
        )));
    }
    // 4. Selection.
    let choice = select::choose(&obs, &views, &full);
    let fit_of = |f: Form| full.iter().find(|x| x.form == f).unwrap();
    let mut plausible = vec![CurveFit::from(fit_of(choice.chosen))];
    for &f in &choice.plausible {
        if f != choice.chosen {
            plausible.push(CurveFit::from(fit_of(f)));
        }
    }
    let unit_floor_s = (mean_rate_s * 1e-6).max(1e-12);
    // 5. Spread: levels against the chosen curve.
    let chosen_fit = plausible[0].clone();
    let chosen_eval = project::Evaluator::new(&chosen_fit, horizon, unit_floor_s);
    let mut levels = Vec::with_capacity(runs.len());
    for run in runs {
        let &(u, t) = run.points.last().unwrap();
        let p = chosen_eval.total(u);
        let ln_level = if t > 0.0 && p > 0.0 {
            (t / p).ln()
        } else {
            0.0
        };
        levels.push(RunLevel {
            run: run.run.clone(),
            units: u,
            elapsed_s: t,
            ln_level,
        });
    }
    // The fits' residual variance includes the level differences between runs,
    // which the spread term counts already: use the within-run variance instead.
    for fit in plausible.iter_mut() {
        if let Some(ratio) = within_run_ratio(fit, runs, horizon, unit_floor_s) {
            for row in fit.cov.iter_mut() {
                for v in row.iter_mut() {
                    *v *= ratio;
                }
            }
            // The within-run variance spent one degree of freedom per run level
            // beyond the first; the t quantile must not count them.
            fit.df = (fit.df - (runs.len() - 1) as f64).max(1.0);
        }
    }
    let ln_levels: Vec<f64> = levels.iter().map(|l| l.ln_level).collect();
    let spread = Spread::from_levels(
        &ln_levels,
        options.spread_prior_sd,
        options.spread_prior_runs,
    );
    let chosen = plausible[0].clone();
    let first_cost_s = chosen_eval.unit_cost(1.0);
    let last_cost_s = chosen_eval.unit_cost(horizon as f64);
    let trend_pct = (last_cost_s / first_cost_s - 1.0) * 100.0;
    let curve = CurveState {
        plausible,
        runner_up: choice.runner_up,
        selection: choice.selection,
        scores: choice.scores.clone(),
        horizon,
        unit_floor_s,
        spread,
        extrapolation_kappa: options.extrapolation_kappa,
        levels,
    };

    // Warnings.
    let mut w = Vec::new();
    let fp = fingerprint(runs);
    if fp.clusters.len() > 1 || fp.cpu_models.len() > 1 {
        w.push(FitWarning::MixedMachines {
            stratum: display.to_string(),
            clusters: fp.clusters.clone(),
            cpu_models: fp.cpu_models.clone(),
        });
    }
    match choice.selection {
        Selection::ProbeTooShort if horizon < select::MIN_UNITS => {
            w.push(FitWarning::ProbeTooShort {
                stratum: display.to_string(),
                units: horizon,
                needed: select::MIN_UNITS,
            })
        }
        // Long enough, yet no holdout: the early rows were too few to fit.
        Selection::ProbeTooShort => w.push(FitWarning::EarlyRowsTooFew {
            stratum: display.to_string(),
            horizon,
            cut: select::holdout_cut(horizon),
        }),
        Selection::TwoLengths | Selection::OneLength => w.push(FitWarning::CurvatureUnmeasured {
            stratum: display.to_string(),
            lengths: choice.lengths.clone(),
        }),
        Selection::Holdout => {}
    }
    let constant_ruled_out = !choice.plausible.contains(&Form::Constant);
    if chosen.form != Form::Constant
        && (constant_ruled_out || choice.selection == Selection::TwoLengths)
        && trend_pct.abs() >= 5.0
    {
        w.push(FitWarning::SignificantTrend {
            stratum: display.to_string(),
            first_s: first_cost_s,
            last_s: last_cost_s,
            horizon,
            trend_pct,
        });
    }
    if let Some(wu) = slow_first_unit(&points) {
        w.push(FitWarning::SlowFirstUnit {
            stratum: display.to_string(),
            first_s: wu.0,
            typical_s: wu.1,
        });
    }
    if runs.len() == 1 {
        w.push(FitWarning::SpreadUnmeasured {
            stratum: display.to_string(),
            assumed_pct: options.spread_prior_sd * 100.0,
        });
    }
    if let Some(units) = options.units {
        if units > 5 * horizon {
            w.push(FitWarning::FarExtrapolation {
                stratum: display.to_string(),
                units,
                probed: horizon,
            });
        }
    }

    let mut params = BTreeMap::new();
    params.insert("startup_s".to_string(), chosen.params.startup);
    params.insert("a".to_string(), chosen.params.a);
    if chosen.form.has_b() {
        params.insert("b".to_string(), chosen.params.b);
    }
    let model = StratumModel {
        stratum: name.to_string(),
        runs: runs.len(),
        units_probed,
        model: chosen.form.name().to_string(),
        params,
        fingerprint: fp,
        warnings: w.iter().map(|x| x.to_string()).collect(),
        curve,
    };
    let report = StratumReport {
        stratum: display.to_string(),
        points,
        first_cost_s,
        last_cost_s,
        trend_pct,
        mean_rate_s,
    };
    Ok((model, report, w))
}

/// Ratio (≤ 1) of the within-run residual variance to the pooled one for a fit
/// with unit rows: each run's intervals are compared with the curve scaled by
/// that run's own level (ln L_k = ln T_k / P(U_k)), over n - p - (K - 1) degrees
/// of freedom. None when it does not apply (one run, run-length rows, no
/// residual degrees of freedom). The curve's totals are tabulated by unit when
/// the table is no longer than the rows (consecutive units, the common case),
/// else evaluated at each row, so that gaps in unit numbers cost no memory.
fn within_run_ratio(fit: &CurveFit, runs: &[&RunTimings], horizon: u64, floor: f64) -> Option<f64> {
    let k = runs.len();
    if k < 2 || runs.iter().any(|r| r.points.len() < 2) {
        return None;
    }
    let eval = project::Evaluator::new(fit, horizon, floor);
    let row_count: u64 = runs.iter().map(|r| r.points.len() as u64).sum();
    let table: Vec<f64> = if horizon <= row_count {
        (0..=horizon).map(|u| eval.total(u)).collect()
    } else {
        Vec::new()
    };
    let total_at = |u: u64| {
        usize::try_from(u)
            .ok()
            .and_then(|i| table.get(i).copied())
            .unwrap_or_else(|| eval.total(u))
    };
    let (mut ss_within, mut ss_pooled, mut rows) = (0.0, 0.0, 0usize);
    for run in runs {
        let &(u_last, t_last) = run.points.last()?;
        let level = t_last / total_at(u_last);
        if !(level.is_finite() && level > 0.0) {
            return None;
        }
        // (unit, time, curve total) of the previous row; the startup term is
        // in every total, so it cancels except in the first interval.
        let mut prev = (0u64, 0.0f64, 0.0f64);
        for &(u, t) in &run.points {
            let total = total_at(u);
            let (y, e, w) = (t - prev.1, total - prev.2, 1.0 / (u - prev.0) as f64);
            ss_within += w * (y - level * e).powi(2);
            ss_pooled += w * (y - e).powi(2);
            rows += 1;
            prev = (u, t, total);
        }
    }
    let p = usize::from(fit.startup_fitted) + 1 + usize::from(fit.form.has_b());
    let df_within = rows.checked_sub(p + k - 1).filter(|d| *d > 0)? as f64;
    let df_pooled = rows.checked_sub(p).filter(|d| *d > 0)? as f64;
    let ratio = (ss_within / df_within) / (ss_pooled / df_pooled);
    (ratio.is_finite() && ratio > 0.0).then_some(ratio.min(1.0))
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
    if firsts.is_empty() || nexts.is_empty() {
        return None;
    }
    let (f, n) = (median(&mut firsts), median(&mut nexts));
    (f > 1.5 * n && n > 0.0).then_some((f, n))
}

/// "No unit rows" naming the inputs read (or saying that none was).
fn no_unit_rows(sources: &[Origin]) -> Error {
    const EXPECTED: &str = "no unit rows found; expected timings with at least one completed unit";
    match sources {
        [] => Error::Refused(
            "no timings file was read (see the warnings above); expected files or folders of timings".into(),
        ),
        [one] => Error::input(one.clone(), None, EXPECTED),
        many => {
            const NAMED: usize = 5;
            let mut names: Vec<String> = many.iter().take(NAMED).map(Origin::to_string).collect();
            if many.len() > NAMED {
                names.push(format!("and {} more", many.len() - NAMED));
            }
            Error::Refused(format!("{}: {EXPECTED}", names.join(", ")))
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
