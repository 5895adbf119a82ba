//! Choosing a form by how well it extrapolates.
//!
//! In-sample fit rewards flexible forms; a budget needs the form that predicts
//! the *later* units from the *earlier* ones. So each form is fitted on the early
//! part of the data only and scored on the later part:
//!
//! - unit rows: the cut is at 60% of the longest run (`cut = ⌊0.6 H⌋`); the early
//!   fit uses every interval ending at or before the cut. For each run that goes
//!   beyond the cut, the score compares its later time with the prediction, after
//!   removing the run's own level as measured on its early part:
//!   `d_k = ln(obs_late / pred_late) - ln(obs_early / pred_early)`;
//! - run-length rows (one row per run): the early fit uses every length but the
//!   longest, and `d_k = ln(T_k / P(U_k))` for the runs of the longest length.
//!
//! The score of a form is the magnitude of its mean extrapolation error,
//! `|mean_k d_k|`, and its noise `se` is the larger of the empirical standard error
//! (`sd(d) / √K`, with K ≥ 2 scored runs) and the one implied by the per-unit
//! residual variance of the full fit (independent per-unit noise). The best
//! score wins; the runner-up is reported. **Plausible rule**: every form whose
//! score is within `2·max(se of the best, se of the form)` of the best is kept,
//! and `calib budget`'s bound averages them, weighted by their holdout scores,
//! with their disagreement as a stated model-uncertainty term
//! ([`crate::projection`]). That is how a noisy probe of a rising cost still
//! covers the run: if the data cannot rule out the trend, the trend stays in.
//! Choosing a model by how it predicts held-out data is cross-validation
//! (Stone 1974, "Cross-validatory choice and assessment of statistical
//! predictions", JRSS B 36); held out in time order, as forecasts are judged
//! (Hyndman & Athanasopoulos, *Forecasting: Principles and Practice*, §5.10).
//!
//! When no holdout is possible:
//! - unit rows with a longest run under [`MIN_UNITS`] units: the probe is too
//!   short; the central form is constant and the plausible set is {constant,
//!   linear} (the warning says so). Probes of one unit (one row per run, all
//!   at unit 1) are such unit rows, not run-length rows;
//! - run-length rows at two lengths: the central form is the power law (a straight
//!   line through the two points on a log-log plot: neither accelerating nor
//!   decelerating the measured growth); the bound widens with the extrapolation
//!   distance; with one length, a constant rate through the origin.

use serde::{Deserialize, Serialize};

use super::forms::{Form, PARAMS};
use super::lsq::{fit_form, FormFit, GridPowers, Obs};

/// Runs shorter than this (units) are too short for an extrapolation holdout
/// (and then budget extrapolates them only a few times their length).
pub const MIN_UNITS: u64 = crate::model::MIN_TREND_UNITS;
/// Fraction of the longest run used as the early part.
pub const HOLDOUT_FRACTION: f64 = 0.6;

/// What the selection needs to know about one run (borrowed from it).
#[derive(Debug, Clone)]
pub struct RunView<'a> {
    /// (unit, elapsed) points, sorted.
    pub points: &'a [(u64, f64)],
}

/// The extrapolation score of one form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormScore {
    pub form: Form,
    /// |mean log error| predicting the later part from the early fit.
    pub score: f64,
    /// Its standard error.
    pub se: f64,
    /// Signed mean log error (positive: the form under-predicts).
    pub bias: f64,
    pub plausible: bool,
    /// The part of the mean log error's variance that comes from the early
    /// fit itself ([`fit_variance_of_mean_error`]). Not in `se`: it decides
    /// only between forms whose projections lie orders of magnitude apart,
    /// the onset against its twin and geometric growth against the others.
    #[serde(default)]
    pub fit_var: f64,
}

/// How the form was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    Holdout,
    ProbeTooShort,
    TwoLengths,
    OneLength,
}

#[derive(Debug, Clone)]
pub struct Choice {
    pub chosen: Form,
    pub runner_up: Option<Form>,
    pub plausible: Vec<Form>,
    pub scores: Vec<FormScore>,
    pub selection: Selection,
    /// Distinct run lengths (run-length rows only).
    pub lengths: Vec<u64>,
    /// The holdout the forms were scored on; `None` without one.
    pub holdout: Option<Holdout>,
}

/// Where the probe was split to score the forms, and the per-unit variance
/// the scores' standard errors use: what scoring one more form against the
/// chosen ones needs ([`score_with`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Holdout {
    /// The last unit of the early part the forms are fitted on.
    pub cut: u64,
    /// The smallest per-unit residual variance over the full fits.
    pub per_unit_variance: f64,
}

impl Choice {
    /// The form error the probe measured: how far the chosen form, fitted on
    /// the early part, under-predicted the later part, net of that score's
    /// own noise, `√max(0, d̄² − se²)` for a mean log error d̄ > 0 (method of
    /// moments: E[d̄²] = bias² + se² when d̄ estimates the bias with standard
    /// error se). 0 when it over-predicted (an upper bound errs safe there) or
    /// without a holdout; at most the largest margin a bound states
    /// ([`crate::projection::MAX_LOG_MARGIN`]), past which it says nothing more.
    pub fn form_error(&self) -> f64 {
        let chosen = self.scores.iter().find(|s| s.form == self.chosen);
        match chosen {
            Some(s) if self.selection == Selection::Holdout && s.bias > 0.0 => {
                let excess = (s.bias * s.bias - s.se * s.se).max(0.0).sqrt();
                if excess.is_finite() {
                    excess.min(crate::projection::MAX_LOG_MARGIN)
                } else {
                    0.0
                }
            }
            _ => 0.0,
        }
    }
}

/// The last unit of the early part for unit rows: `⌊0.6 H⌋`, at least 1.
pub fn holdout_cut(horizon: u64) -> u64 {
    ((horizon as f64 * HOLDOUT_FRACTION).floor() as u64).max(1)
}

/// Total of a fitted form over (0, n] including startup, unclamped.
fn total(fit: &FormFit, n: u64) -> f64 {
    fit.params.startup + super::forms::cumulative(fit.form, &fit.params, n)
}

/// Gradient of [`span`] in (startup, a, b, h) (the startup counts in the
/// first interval only).
fn span_gradient(fit: &FormFit, u0: u64, u1: u64) -> [f64; PARAMS] {
    let mut g = super::forms::gradient(fit.form, &fit.params, u1);
    if u0 > 0 {
        let below = super::forms::gradient(fit.form, &fit.params, u0);
        for (x, y) in g.iter_mut().zip(below) {
            *x -= y;
        }
    }
    g
}

/// The variance of a form's mean log error `d̄` that comes from its early fit
/// (delta method: `ḡ' Σ ḡ`, ḡ the mean over the scored runs of the gradient
/// of `d_k` in the parameters, Σ the early fit's covariance; the runs share
/// the fit, so its error does not average out). Over a short early part a
/// growth parameter is loosely held, and a form's fit of the noise can win or
/// lose on the later units by more than the runs' noise alone: the onset beat
/// its twin on a cubic cost under 10% noise (20 units) and projected 10 times
/// the probe at 10^13 times its cost; the geometric form, fitted on a SAT
/// solver's first 6 units of a few milliseconds, over-predicted the next 4 by
/// 1.9x and was ruled out for a power law whose bound was half of what an
/// 18-unit run took.
fn fit_variance_of_mean_error(fit: &FormFit, runs: &[RunView<'_>], cut: u64) -> f64 {
    let mut mean = [0.0; PARAMS];
    let mut k = 0.0;
    for run in runs {
        let Some(&(u_last, _)) = run.points.last() else {
            continue;
        };
        if u_last <= cut {
            continue;
        }
        let u_c = run
            .points
            .iter()
            .rev()
            .find(|p| p.0 <= cut)
            .map_or(0, |p| p.0);
        let late = span(fit, u_c, u_last);
        let g_late = span_gradient(fit, u_c, u_last);
        // d_k = ln obs_late - ln pred_late - (ln t_c - ln pred_early).
        for j in 0..PARAMS {
            mean[j] -= g_late[j] / late;
        }
        if u_c > 0 {
            let early = total(fit, u_c);
            let g_early = super::forms::gradient(fit.form, &fit.params, u_c);
            for j in 0..PARAMS {
                mean[j] += g_early[j] / early;
            }
        }
        k += 1.0;
    }
    if k == 0.0 {
        return 0.0;
    }
    let mut v = 0.0;
    for j in 0..PARAMS {
        for l in 0..PARAMS {
            v += (mean[j] / k) * fit.cov[j][l] * (mean[l] / k);
        }
    }
    if v.is_finite() {
        v.max(0.0)
    } else {
        f64::INFINITY
    }
}

fn span(fit: &FormFit, u0: u64, u1: u64) -> f64 {
    if u0 == 0 {
        total(fit, u1)
    } else {
        super::forms::cumulative(fit.form, &fit.params, u1)
            - super::forms::cumulative(fit.form, &fit.params, u0)
    }
}

/// The shape of the runs, as far as the choice of a holdout needs it.
struct RunsShape {
    /// The last unit of the longest run.
    horizon: u64,
    /// One row per run (a run length and its total) rather than per-unit
    /// rows; rows all at unit 1 are unit rows (probes of one unit).
    run_length_rows: bool,
    /// Distinct run lengths, sorted (run-length rows only; empty otherwise).
    lengths: Vec<u64>,
}

fn runs_shape(runs: &[RunView<'_>]) -> RunsShape {
    let last_units = || runs.iter().filter_map(|r| r.points.last().map(|p| p.0));
    let horizon = last_units().max().unwrap_or(0);
    // One row per run, at a unit past the first: at unit 1 for every run,
    // they are probes of one unit (`calib probe --units 1`), which are too
    // short for a holdout as one of 2 or 3 units is, and not a run length
    // measured once (whose one length fixes no trend either, but whose
    // treatment has no probe too short to warn of).
    let run_length_rows = runs.iter().all(|r| r.points.len() <= 1) && last_units().any(|u| u > 1);
    let mut lengths: Vec<u64> = Vec::new();
    if run_length_rows {
        lengths = last_units().collect();
        lengths.sort_unstable();
        lengths.dedup();
    }
    RunsShape {
        horizon,
        run_length_rows,
        lengths,
    }
}

/// Why no holdout is possible, if it is not.
fn holdout_impossible(shape: &RunsShape) -> Option<Selection> {
    if shape.run_length_rows {
        match shape.lengths.len() {
            0 | 1 => Some(Selection::OneLength),
            2 => Some(Selection::TwoLengths),
            _ => None,
        }
    } else if shape.horizon < MIN_UNITS {
        Some(Selection::ProbeTooShort)
    } else {
        None
    }
}

/// The last unit of the early part: the second-longest length for run-length
/// rows, [`holdout_cut`] of the horizon for unit rows.
fn early_part_end(shape: &RunsShape) -> u64 {
    if shape.run_length_rows {
        shape.lengths[shape.lengths.len() - 2]
    } else {
        holdout_cut(shape.horizon)
    }
}

/// The forms a selection without holdout prescribes, before checking which of
/// them fitted the full data.
struct PrescribedForms {
    chosen: Form,
    runner_up: Option<Form>,
    plausible: Vec<Form>,
}

fn prescribed_forms(selection: Selection) -> PrescribedForms {
    let (chosen, runner_up, plausible) = match selection {
        Selection::ProbeTooShort => (
            Form::Constant,
            Some(Form::Linear),
            vec![Form::Constant, Form::Linear],
        ),
        Selection::TwoLengths => (Form::Power, Some(Form::Log), vec![Form::Power]),
        _ => (Form::Constant, None, vec![Form::Constant]),
    };
    PrescribedForms {
        chosen,
        runner_up,
        plausible,
    }
}

fn fitted(full: &[FormFit], form: Form) -> bool {
    full.iter().any(|x| x.form == form)
}

/// The choice when no holdout is possible (or none scored): the prescribed
/// forms, restricted to those that fitted the full data.
fn fallback_choice(selection: Selection, lengths: Vec<u64>, full: &[FormFit]) -> Choice {
    let prescribed = prescribed_forms(selection);
    let has = |f: Form| fitted(full, f);
    let mut plausible: Vec<Form> = prescribed
        .plausible
        .into_iter()
        .filter(|f| has(*f))
        .collect();
    let chosen = if has(prescribed.chosen) {
        prescribed.chosen
    } else {
        full.first().map(|f| f.form).unwrap_or(Form::Constant)
    };
    if !plausible.contains(&chosen) {
        plausible.insert(0, chosen);
    }
    Choice {
        chosen,
        runner_up: prescribed.runner_up.filter(|f| has(*f) && *f != chosen),
        plausible,
        scores: Vec::new(),
        selection,
        lengths,
        holdout: None,
    }
}

/// The smallest per-unit residual variance over the full fits (at least 0).
fn per_unit_variance(full: &[FormFit]) -> f64 {
    full.iter()
        .map(|f| f.sigma2)
        .fold(f64::INFINITY, f64::min)
        .max(0.0)
}

/// The extrapolation error of one run that goes beyond the early part.
struct RunError {
    /// `d_k`; infinite when the observed or predicted time is not positive.
    log_error: f64,
    /// Its variance implied by independent per-unit noise (0 when infinite).
    analytic_variance: f64,
}

impl RunError {
    const UNPREDICTABLE: RunError = RunError {
        log_error: f64::INFINITY,
        analytic_variance: 0.0,
    };
}

/// `d_k` of one run under the early fit; `None` for a run that ends within the
/// early part (nothing to score).
fn run_error(fit: &FormFit, run: &RunView<'_>, cut: u64, sigma2: f64) -> Option<RunError> {
    let &(u_last, t_last) = run.points.last()?;
    if u_last <= cut {
        return None;
    }
    let early_point = run.points.iter().rev().find(|p| p.0 <= cut).copied();
    let (u_c, t_c) = early_point.unwrap_or((0, 0.0));
    let obs_late = t_last - t_c;
    let pred_late = span(fit, u_c, u_last);
    if !(obs_late > 0.0 && pred_late > 0.0) {
        return Some(RunError::UNPREDICTABLE);
    }
    let mut dk = (obs_late / pred_late).ln();
    let mut vk = sigma2 * (u_last - u_c) as f64 / obs_late.powi(2);
    if u_c > 0 {
        let pred_early = total(fit, u_c);
        if !(t_c > 0.0 && pred_early > 0.0) {
            return Some(RunError::UNPREDICTABLE);
        }
        dk -= (t_c / pred_early).ln();
        vk += sigma2 * u_c as f64 / t_c.powi(2);
    }
    Some(RunError {
        log_error: dk,
        analytic_variance: vk,
    })
}

/// The score of `form` fitted on the early part; `None` when it cannot be
/// fitted there or no run goes beyond the early part.
fn score_form(
    form: Form,
    early: &[Obs],
    runs: &[RunView<'_>],
    cut: u64,
    sigma2: f64,
    grid: &GridPowers,
) -> Option<FormScore> {
    let fit = fit_form(form, early, true, grid)?;
    score_fit(&fit, runs, cut, sigma2)
}

/// The holdout score of a form fitted on the early part by `fitter`, as
/// [`choose`] scored its forms on `holdout` (the same cut, the same per-unit
/// variance).
pub fn score_with(
    obs: &[Obs],
    runs: &[RunView<'_>],
    holdout: &Holdout,
    fitter: impl Fn(&[Obs]) -> Option<FormFit>,
) -> Option<FormScore> {
    let fit = fitter(&rows_up_to(obs, holdout.cut))?;
    score_fit(&fit, runs, holdout.cut, holdout.per_unit_variance)
}

fn score_fit(fit: &FormFit, runs: &[RunView<'_>], cut: u64, sigma2: f64) -> Option<FormScore> {
    let form = fit.form;
    let mut d = Vec::new();
    let mut var_analytic = 0.0;
    for error in runs
        .iter()
        .filter_map(|run| run_error(fit, run, cut, sigma2))
    {
        d.push(error.log_error);
        var_analytic += error.analytic_variance;
    }
    if d.is_empty() {
        return None;
    }
    let k = d.len() as f64;
    let mean = d.iter().sum::<f64>() / k;
    let se_analytic = (var_analytic / k).sqrt() / k.sqrt();
    let se_emp = if d.len() >= 2 && mean.is_finite() {
        (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt() / k.sqrt()
    } else {
        0.0
    };
    let var_fit = fit_variance_of_mean_error(fit, runs, cut);
    Some(FormScore {
        form,
        score: if mean.is_finite() {
            mean.abs()
        } else {
            f64::INFINITY
        },
        se: se_analytic.max(se_emp),
        bias: mean,
        plausible: false,
        fit_var: var_fit,
    })
}

/// The rows up to the holdout's cut, which the forms are fitted on.
fn rows_up_to(obs: &[Obs], cut: u64) -> Vec<Obs> {
    obs.iter().filter(|o| o.u1 <= cut).copied().collect()
}

/// Sorts the scores best first and marks those within `2 se` of the best.
fn rank_scores(scores: &mut [FormScore]) {
    scores.sort_by(|a, b| a.score.total_cmp(&b.score));
    let best = scores[0].clone();
    for s in scores.iter_mut() {
        s.plausible = s.score.is_finite() && s.score <= best.score + 2.0 * best.se.max(s.se);
    }
}

/// The choice among the forms fitted to the full data (`full`); `grid` as for
/// [`fit_form`].
pub fn choose(obs: &[Obs], runs: &[RunView<'_>], full: &[FormFit], grid: &GridPowers) -> Choice {
    let shape = runs_shape(runs);
    if let Some(selection) = holdout_impossible(&shape) {
        return fallback_choice(selection, shape.lengths, full);
    }
    let cut = early_part_end(&shape);
    let early = rows_up_to(obs, cut);
    let sigma2 = per_unit_variance(full);
    // Only forms that also fit the full data can be chosen: the others are
    // not scored (a profiled fit of the early part is costly).
    let mut scores: Vec<FormScore> = full
        .iter()
        .filter_map(|fit| score_form(fit.form, &early, runs, cut, sigma2, grid))
        .collect();
    if scores.is_empty() || scores.iter().all(|s| !s.score.is_finite()) {
        let mut c = fallback_choice(Selection::ProbeTooShort, shape.lengths, full);
        c.scores = scores;
        return c;
    }
    rank_scores(&mut scores);
    let plausible: Vec<Form> = scores
        .iter()
        .filter(|s| s.plausible)
        .map(|s| s.form)
        .collect();
    Choice {
        chosen: scores[0].form,
        runner_up: scores.get(1).map(|s| s.form),
        plausible,
        scores,
        selection: Selection::Holdout,
        lengths: shape.lengths,
        holdout: Some(Holdout {
            cut,
            per_unit_variance: sigma2,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(bias: f64, se: f64, selection: Selection) -> Choice {
        Choice {
            chosen: Form::Linear,
            runner_up: None,
            plausible: vec![Form::Linear],
            scores: vec![FormScore {
                form: Form::Linear,
                score: bias.abs(),
                se,
                bias,
                plausible: true,
                fit_var: 0.0,
            }],
            selection,
            lengths: Vec::new(),
            holdout: None,
        }
    }

    #[test]
    fn the_form_error_is_the_under_prediction_net_of_its_noise() {
        // 10% under-predicted with a standard error of 6%: 8% beyond the noise.
        let measured = choice(0.1, 0.06, Selection::Holdout).form_error();
        assert!((measured - 0.08).abs() < 1e-12, "{measured}");
        // Within its noise, over-predicted, or not tested: nothing measured.
        assert_eq!(choice(0.05, 0.06, Selection::Holdout).form_error(), 0.0);
        assert_eq!(choice(-0.3, 0.01, Selection::Holdout).form_error(), 0.0);
        assert_eq!(
            choice(0.3, 0.01, Selection::ProbeTooShort).form_error(),
            0.0
        );
    }
}
