//! The onset form's fit: c(i) = a + h e^{b(i-1)}, linear in (startup, a, h)
//! for a fixed b, so b is profiled as for the power law and the geometric
//! form (grid over [`Form::profiled_range`], then golden section), with a
//! full weighted least-squares solve of the three linear parameters at each
//! b. Same assumptions and weights as the other forms ([`super`]); the
//! covariance is the Gauss–Newton one, `σ² (J'WJ)^-1` with J the Jacobian
//! in (startup, a, b, h) at the optimum (Seber & Wild, *Nonlinear
//! Regression*, 1989, §2.1), and the linear one of (startup, a, h) with b's
//! entries at 0 when J'WJ is singular. A growing part that comes out
//! negative (a cost falling ever faster) is no onset: no fit.

use super::{gauss_newton, golden_section, n_rows, placed, row, solve, FormFit, Obs, Solved};
use crate::forms::{self, Covariance, Form, Params};

/// Grid step of b: a factor of 1.05 per unit, as for the geometric form.
const B_STEP: f64 = 0.05;

/// Growth term of an interval, `G(u1) - G(u0)` at `b`.
fn growth(o: &Obs, b: f64) -> f64 {
    forms::shape(Form::Onset, o.u1, b) - forms::shape(Form::Onset, o.u0, b)
}

/// The linear solve at `b`: rows (startup,) length, growth.
fn solve_at(obs: &[Obs], startup: bool, b: f64) -> Option<Solved> {
    let p = usize::from(startup) + 2;
    solve(obs, p, |_, o, x| row(Form::Onset, o, b, startup, x))
}

fn rss_at(obs: &[Obs], startup: bool, b: f64) -> f64 {
    solve_at(obs, startup, b)
        .map(|s| s.rss)
        .filter(|r| r.is_finite())
        .unwrap_or(f64::INFINITY)
}

/// The b of least residual sum of squares over the form's range.
fn best_b(obs: &[Obs], startup: bool) -> Option<f64> {
    let range = Form::Onset.profiled_range()?;
    let (b_min, b_max) = (*range.start(), *range.end());
    let steps = ((b_max - b_min) / B_STEP).round() as usize;
    let (b0, rss0) = (0..=steps)
        .map(|k| (b_min + B_STEP * k as f64).min(b_max))
        .map(|b| (b, rss_at(obs, startup, b)))
        .min_by(|x, y| x.1.total_cmp(&y.1))?;
    if !rss0.is_finite() {
        return None;
    }
    Some(golden_section(
        (b0 - B_STEP).max(b_min),
        (b0 + B_STEP).min(b_max),
        |b| rss_at(obs, startup, b),
    ))
}

/// Gauss–Newton covariance in (startup, a, b, h) at `params`; when J'WJ is
/// singular, the linear covariance of (startup, a, h) from `solved` with b's
/// entries left at 0.
fn covariance(
    obs: &[Obs],
    startup: bool,
    params: &Params,
    solved: &Solved,
    sigma2: f64,
) -> Covariance {
    let jacobian = |_: usize, o: &Obs, x: &mut Vec<f64>| {
        if startup {
            x.push(if o.u0 == 0 { 1.0 } else { 0.0 });
        }
        x.push(o.len());
        let db = forms::shape_db(Form::Onset, o.u1, params.b)
            - forms::shape_db(Form::Onset, o.u0, params.b);
        x.push(params.h * db);
        x.push(growth(o, params.b));
    };
    let offset = usize::from(!startup);
    gauss_newton(obs, usize::from(startup) + 3, jacobian, sigma2, |j| {
        j + offset
    })
    .unwrap_or_else(|| {
        // The linear solve's columns are (startup,) a, h: h goes past b.
        placed(&solved.inv, sigma2, |j| {
            let slot = j + offset;
            if slot >= 2 {
                slot + 1
            } else {
                slot
            }
        })
    })
}

/// Fits the onset form; `None` when no b gives a solvable fit, or the
/// growing part comes out negative.
pub(super) fn fit(obs: &[Obs], startup: bool) -> Option<FormFit> {
    let b = best_b(obs, startup)?;
    let solved = solve_at(obs, startup, b)?;
    let p = usize::from(startup) + 2;
    let n = n_rows(obs);
    let df = (n - p as f64 - 1.0).max(0.0);
    let sigma2 = if df > 0.0 { solved.rss / df } else { 0.0 };
    let theta = &solved.theta;
    let (s, a, h) = if startup {
        (theta[0], theta[1], theta[2])
    } else {
        (0.0, theta[0], theta[1])
    };
    // Also refuses NaN.
    if h.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let params = Params {
        startup: s,
        a,
        b,
        h,
    };
    let cov = covariance(obs, startup, &params, &solved, sigma2);
    Some(FormFit {
        form: Form::Onset,
        params,
        startup_fitted: startup,
        cov,
        sigma2,
        df,
        n_obs: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs_of(p: &Params, units: u64, noise: &mut impl FnMut() -> f64) -> Vec<Obs> {
        (1..=units)
            .map(|u| {
                let exact = if u == 1 { p.startup } else { 0.0 }
                    + forms::cumulative(Form::Onset, p, u)
                    - forms::cumulative(Form::Onset, p, u - 1);
                let y = exact * (1.0 + noise());
                Obs {
                    u0: u - 1,
                    u1: u,
                    n: 1.0,
                    sy: y,
                    syy: y * y,
                }
            })
            .collect()
    }

    /// A base with a growing part recovered from 1% noise: the rate of growth
    /// within a few percent, and the projection to twice the probe within 5%.
    #[test]
    fn recovers_an_onset_and_projects_it() {
        let truth = Params {
            startup: 5.0,
            a: 1.0,
            b: 0.12,
            h: 0.02,
        };
        let mut rng = crate::synth::Rng::new(11);
        let mut noise = || 0.02 * (rng.uniform() - 0.5);
        let obs = obs_of(&truth, 50, &mut noise);
        let fit = fit(&obs, true).expect("an onset fits");
        assert!((fit.params.b - truth.b).abs() < 0.01, "{:?}", fit.params);
        let total = |p: &Params| p.startup + forms::cumulative(Form::Onset, p, 100);
        let ratio = total(&fit.params) / total(&truth);
        assert!((ratio - 1.0).abs() < 0.05, "projection off by {ratio}");
        assert!(fit.cov[2][2] > 0.0 && fit.cov[3][3] > 0.0);
    }

    /// A cost that falls ever faster is no onset.
    #[test]
    fn a_falling_cost_is_not_fitted() {
        let falling = Params {
            startup: 0.0,
            a: 10.0,
            b: 0.1,
            h: -0.1,
        };
        let obs = obs_of(&falling, 30, &mut || 0.0);
        assert!(fit(&obs, false).is_none());
    }
}
