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
//! score is within `2 se` of the best is kept, and `calib budget`'s bound takes the
//! largest bound over them. That is how a noisy probe of a rising cost still
//! covers the run: if the data cannot rule out the trend, the trend stays in.
//!
//! When no holdout is possible:
//! - unit rows with a longest run under [`MIN_UNITS`] units: the probe is too
//!   short; the central form is constant and the plausible set is {constant,
//!   linear} (the warning says so);
//! - run-length rows at two lengths: the central form is the power law (a straight
//!   line through the two points on a log-log plot: neither accelerating nor
//!   decelerating the measured growth); the bound widens with the extrapolation
//!   distance; with one length, a constant rate through the origin.

use serde::{Deserialize, Serialize};

use super::forms::Form;
use super::lsq::{fit_form, FormFit, Obs};

/// Runs shorter than this (units) are too short for an extrapolation holdout.
pub const MIN_UNITS: u64 = 10;
/// Fraction of the longest run used as the early part.
pub const HOLDOUT_FRACTION: f64 = 0.6;

/// What the selection needs to know about one run.
#[derive(Debug, Clone)]
pub struct RunView {
    /// (unit, elapsed) points, sorted.
    pub points: Vec<(u64, f64)>,
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
}

/// The last unit of the early part for unit rows: `⌊0.6 H⌋`, at least 1.
pub fn holdout_cut(horizon: u64) -> u64 {
    ((horizon as f64 * HOLDOUT_FRACTION).floor() as u64).max(1)
}

/// Total of a fitted form over (0, n] including startup, unclamped.
fn total(fit: &FormFit, n: u64) -> f64 {
    fit.params.startup + super::forms::cumulative(fit.form, &fit.params, n)
}

fn span(fit: &FormFit, u0: u64, u1: u64) -> f64 {
    if u0 == 0 {
        total(fit, u1)
    } else {
        super::forms::cumulative(fit.form, &fit.params, u1)
            - super::forms::cumulative(fit.form, &fit.params, u0)
    }
}

pub fn choose(obs: &[Obs], runs: &[RunView], full: &[FormFit]) -> Choice {
    let horizon = runs
        .iter()
        .filter_map(|r| r.points.last().map(|p| p.0))
        .max()
        .unwrap_or(0);
    let run_length_rows = runs.iter().all(|r| r.points.len() <= 1);
    let has = |f: Form| full.iter().any(|x| x.form == f);
    let mut lengths: Vec<u64> = Vec::new();
    if run_length_rows {
        lengths = runs
            .iter()
            .filter_map(|r| r.points.last().map(|p| p.0))
            .collect();
        lengths.sort_unstable();
        lengths.dedup();
    }
    let fallback = |selection: Selection, lengths: Vec<u64>| {
        let (chosen, runner_up, plausible) = match selection {
            Selection::ProbeTooShort => (
                Form::Constant,
                Some(Form::Linear),
                vec![Form::Constant, Form::Linear],
            ),
            Selection::TwoLengths => (Form::Power, Some(Form::Log), vec![Form::Power]),
            _ => (Form::Constant, None, vec![Form::Constant]),
        };
        let mut plausible: Vec<Form> = plausible.into_iter().filter(|f| has(*f)).collect();
        let chosen = if has(chosen) {
            chosen
        } else {
            full.first().map(|f| f.form).unwrap_or(Form::Constant)
        };
        if !plausible.contains(&chosen) {
            plausible.insert(0, chosen);
        }
        Choice {
            chosen,
            runner_up: runner_up.filter(|f| has(*f) && *f != chosen),
            plausible,
            scores: Vec::new(),
            selection,
            lengths,
        }
    };
    if run_length_rows {
        if lengths.len() <= 1 {
            return fallback(Selection::OneLength, lengths);
        }
        if lengths.len() == 2 {
            return fallback(Selection::TwoLengths, lengths);
        }
    } else if horizon < MIN_UNITS {
        return fallback(Selection::ProbeTooShort, lengths);
    }
    let cut = if run_length_rows {
        lengths[lengths.len() - 2]
    } else {
        holdout_cut(horizon)
    };
    let early: Vec<Obs> = obs.iter().filter(|o| o.u1 <= cut).copied().collect();
    let sigma2 = full
        .iter()
        .map(|f| f.sigma2)
        .fold(f64::INFINITY, f64::min)
        .max(0.0);
    let mut scores = Vec::new();
    for form in Form::ALL {
        let Some(fit) = fit_form(form, &early, true) else {
            continue;
        };
        let mut d = Vec::new();
        let mut var_analytic = 0.0;
        for run in runs {
            let Some(&(u_last, t_last)) = run.points.last() else {
                continue;
            };
            if u_last <= cut {
                continue;
            }
            let early_point = run.points.iter().rev().find(|p| p.0 <= cut).copied();
            let (u_c, t_c) = early_point.unwrap_or((0, 0.0));
            let obs_late = t_last - t_c;
            let pred_late = span(&fit, u_c, u_last);
            if !(obs_late > 0.0 && pred_late > 0.0) {
                d.push(f64::INFINITY);
                continue;
            }
            let mut dk = (obs_late / pred_late).ln();
            let mut vk = sigma2 * (u_last - u_c) as f64 / obs_late.powi(2);
            if u_c > 0 {
                let pred_early = total(&fit, u_c);
                if !(t_c > 0.0 && pred_early > 0.0) {
                    d.push(f64::INFINITY);
                    continue;
                }
                dk -= (t_c / pred_early).ln();
                vk += sigma2 * u_c as f64 / t_c.powi(2);
            }
            d.push(dk);
            var_analytic += vk;
        }
        if d.is_empty() {
            continue;
        }
        let k = d.len() as f64;
        let mean = d.iter().sum::<f64>() / k;
        let se_analytic = (var_analytic / k).sqrt() / k.sqrt();
        let se_emp = if d.len() >= 2 && mean.is_finite() {
            (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt() / k.sqrt()
        } else {
            0.0
        };
        scores.push(FormScore {
            form,
            score: if mean.is_finite() {
                mean.abs()
            } else {
                f64::INFINITY
            },
            se: se_analytic.max(se_emp),
            bias: mean,
            plausible: false,
        });
    }
    // Only forms that also fit the full data can be chosen.
    scores.retain(|s| has(s.form));
    if scores.is_empty() || scores.iter().all(|s| !s.score.is_finite()) {
        let mut c = fallback(Selection::ProbeTooShort, lengths);
        c.scores = scores;
        return c;
    }
    scores.sort_by(|a, b| a.score.total_cmp(&b.score));
    let best = scores[0].clone();
    for s in &mut scores {
        s.plausible = s.score.is_finite() && s.score <= best.score + 2.0 * best.se.max(s.se);
    }
    let plausible: Vec<Form> = scores
        .iter()
        .filter(|s| s.plausible)
        .map(|s| s.form)
        .collect();
    Choice {
        chosen: best.form,
        runner_up: scores.get(1).map(|s| s.form),
        plausible,
        scores,
        selection: Selection::Holdout,
        lengths,
    }
}
