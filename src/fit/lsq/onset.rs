//! The fit of a base plus a growing part: the onset form, c(i) = a + h
//! e^{b(i-1)}, and its polynomial twin, the base power, c(i) = a + h i^b
//! (scored against the onset, never stated). Both are linear in (startup, a,
//! h) for a fixed b, so b is profiled as for the power law and the geometric
//! form (grid over [`Form::profiled_range`], then golden section), with a
//! full weighted least-squares solve of the three linear parameters at each
//! b. Same assumptions and weights as the other forms ([`super`]); the
//! covariance is the Gauss–Newton one, `σ² (J'WJ)^-1` with J the Jacobian
//! in (startup, a, b, h) at the optimum (Seber & Wild, *Nonlinear
//! Regression*, 1989, §2.1), and the linear one of (startup, a, h) with b's
//! entries at 0 when J'WJ is singular. A growing part that comes out
//! negative (a cost falling ever faster) is no takeoff: no fit. Nor is a b
//! whose growth term reaches the cap on projected sums at the longest run
//! ([`forms::MAX_PROJECTED_S`]): there the capped term would be a free
//! constant for that run, not the form the model states.

use super::{gauss_newton, golden_section, placed, residual, row, solve, FormFit, Obs, Solved};
use crate::forms::{self, Covariance, Form, Params};

/// Grid steps of b: a factor of 1.05 per unit for the onset, as for the
/// geometric form; an exponent step of 0.2 for the base power, as for the
/// power law.
fn b_step(form: Form) -> f64 {
    if form == Form::Onset {
        0.05
    } else {
        0.2
    }
}

/// Growth term of an interval, `G(u1) - G(u0)` at `b`.
fn growth(form: Form, o: &Obs, b: f64) -> f64 {
    forms::shape(form, o.u1, b) - forms::shape(form, o.u0, b)
}

/// The linear solve at `b`: rows (startup,) length, growth.
fn solve_at(form: Form, obs: &[Obs], startup: bool, b: f64) -> Option<Solved> {
    let p = usize::from(startup) + 2;
    solve(obs, p, |_, o, x| row(form, o, b, startup, x))
}

/// The residual sum of squares at `b`; infinite where the fit is singular or
/// the growth term at the longest run `u_max` reaches the cap.
fn rss_at(form: Form, obs: &[Obs], startup: bool, u_max: u64, b: f64) -> f64 {
    let at_longest = forms::shape(form, u_max, b);
    if !(at_longest.is_finite() && at_longest < forms::MAX_PROJECTED_S) {
        return f64::INFINITY;
    }
    solve_at(form, obs, startup, b)
        .map(|s| s.rss)
        .filter(|r| r.is_finite())
        .unwrap_or(f64::INFINITY)
}

/// The b of least residual sum of squares over the form's range.
fn best_b(form: Form, obs: &[Obs], startup: bool) -> Option<f64> {
    let range = form.profiled_range()?;
    let (b_min, b_max) = (*range.start(), *range.end());
    let step = b_step(form);
    let u_max = obs.iter().map(|o| o.u1).max()?;
    let rss = |b: f64| rss_at(form, obs, startup, u_max, b);
    let steps = ((b_max - b_min) / step).round() as usize;
    let (b0, rss0) = (0..=steps)
        .map(|k| (b_min + step * k as f64).min(b_max))
        .map(|b| (b, rss(b)))
        .min_by(|x, y| x.1.total_cmp(&y.1))?;
    if !rss0.is_finite() {
        return None;
    }
    Some(golden_section(
        (b0 - step).max(b_min),
        (b0 + step).min(b_max),
        rss,
    ))
}

/// Gauss–Newton covariance in (startup, a, b, h) at `params`; when J'WJ is
/// singular, the linear covariance of (startup, a, h) from `solved` with b's
/// entries left at 0.
fn covariance(
    form: Form,
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
        let db = forms::shape_db(form, o.u1, params.b) - forms::shape_db(form, o.u0, params.b);
        x.push(params.h * db);
        x.push(growth(form, o, params.b));
    };
    let offset = usize::from(!startup);
    gauss_newton(obs, usize::from(startup) + 3, jacobian, sigma2, |j| {
        j + offset
    })
    .unwrap_or_else(|| linear_covariance(solved, sigma2, startup))
}

/// The covariance of the linear solve's (startup,) a and h, placed in the
/// form's slots: h goes past b, whose entries stay 0.
fn linear_covariance(solved: &Solved, sigma2: f64, startup: bool) -> Covariance {
    let offset = usize::from(!startup);
    placed(&solved.inv, sigma2, |j| {
        let slot = j + offset;
        if slot >= 2 {
            slot + 1
        } else {
            slot
        }
    })
}

/// The linear solve at a given `b`, its parameters and residual statistics
/// (n, df, σ²), b counted among the parameters when `b_fitted`; `None` when
/// there is no solve or the growing part is not positive.
fn solve_with_b(
    form: Form,
    obs: &[Obs],
    startup: bool,
    b: f64,
    b_fitted: bool,
) -> Option<(Solved, Params, (f64, f64, f64))> {
    let solved = solve_at(form, obs, startup, b)?;
    let parameters = usize::from(startup) + 2 + usize::from(b_fitted);
    let stats = residual(obs, solved.rss, parameters);
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
    Some((solved, params, stats))
}

/// Fits the onset form or the base power (`form`); `None` when the intervals
/// are too few to tell b, no b gives a solvable fit, or the growing part
/// comes out negative.
pub(super) fn fit(form: Form, obs: &[Obs], startup: bool) -> Option<FormFit> {
    // Four parameters, b among them, need more distinct intervals than that:
    // with as many (run lengths at two or three lengths, the early part of
    // their holdout), every b fits exactly and b is left to rounding.
    if obs.len() < usize::from(startup) + 5 {
        return None;
    }
    let b = best_b(form, obs, startup)?;
    let (solved, params, (n, df, sigma2)) = solve_with_b(form, obs, startup, b, true)?;
    let cov = covariance(form, obs, startup, &params, &solved, sigma2);
    Some(FormFit {
        form,
        params,
        startup_fitted: startup,
        cov,
        sigma2,
        df,
        n_obs: n,
    })
}

/// The base power at a fixed exponent `b` (a + h i^b, linear in (startup, a,
/// h)); the covariance is the linear one, b's entries 0 (b is given, not
/// fitted). `None` as for [`fit`], with one parameter fewer.
pub(super) fn fit_at(obs: &[Obs], startup: bool, b: f64) -> Option<FormFit> {
    if obs.len() < usize::from(startup) + 4 {
        return None;
    }
    let form = Form::BasePower;
    let (solved, params, (n, df, sigma2)) = solve_with_b(form, obs, startup, b, false)?;
    Some(FormFit {
        form,
        params,
        startup_fitted: startup,
        cov: linear_covariance(&solved, sigma2, startup),
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
        let fit = fit(Form::Onset, &obs, true).expect("an onset fits");
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
        assert!(fit(Form::Onset, &obs, false).is_none());
    }

    /// The covariance's slots hold the right parameters: it equals
    /// `σ² (J'WJ)^-1` with J by central differences of the stated model in
    /// (startup, a, b, h), for both forms, with and without the startup
    /// term, on unit intervals and on longer ones.
    #[test]
    fn the_covariance_is_that_of_the_stated_parameters() {
        let cases = [
            (
                Form::Onset,
                Params {
                    startup: 5.0,
                    a: 1.0,
                    b: 0.12,
                    h: 0.02,
                },
            ),
            (
                Form::BasePower,
                Params {
                    startup: 5.0,
                    a: 1.0,
                    b: 2.0,
                    h: 0.01,
                },
            ),
        ];
        for (form, truth) in cases {
            for (startup, gap) in [(true, 1u64), (false, 1), (true, 3), (false, 4)] {
                let mut rng = crate::synth::Rng::new(7);
                let mut obs = Vec::new();
                let mut u0 = 0;
                while u0 < 50 {
                    let u1 = (u0 + gap).min(50);
                    let exact = if u0 == 0 { truth.startup } else { 0.0 }
                        + forms::cumulative(form, &truth, u1)
                        - forms::cumulative(form, &truth, u0);
                    let (mut sy, mut syy) = (0.0, 0.0);
                    for _ in 0..3 {
                        let y = exact * (1.0 + 0.02 * rng.normal());
                        (sy, syy) = (sy + y, syy + y * y);
                    }
                    obs.push(Obs {
                        u0,
                        u1,
                        n: 3.0,
                        sy,
                        syy,
                    });
                    u0 = u1;
                }
                let fit = fit(form, &obs, startup).expect("a fit");
                let p = fit.params;
                let model = |q: &Params, o: &Obs| {
                    let start = if o.u0 == 0 { q.startup } else { 0.0 };
                    start + forms::cumulative(form, q, o.u1) - forms::cumulative(form, q, o.u0)
                };
                let free: Vec<usize> = if fit.startup_fitted {
                    vec![0, 1, 2, 3]
                } else {
                    vec![1, 2, 3]
                };
                let m = free.len();
                let mut jtwj = nalgebra::DMatrix::<f64>::zeros(m, m);
                for o in &obs {
                    let row: Vec<f64> = free
                        .iter()
                        .map(|&j| {
                            let step = 1e-6 * p.values()[j].abs().max(1e-3);
                            let at = |delta: f64| {
                                let mut v = p.values();
                                v[j] += delta;
                                Params {
                                    startup: v[0],
                                    a: v[1],
                                    b: v[2],
                                    h: v[3],
                                }
                            };
                            (model(&at(step), o) - model(&at(-step), o)) / (2.0 * step)
                        })
                        .collect();
                    for j in 0..m {
                        for k in 0..m {
                            jtwj[(j, k)] += o.weight() * o.n * row[j] * row[k];
                        }
                    }
                }
                let inv = jtwj.try_inverse().expect("invertible");
                for (x, &j) in free.iter().enumerate() {
                    for (y, &k) in free.iter().enumerate() {
                        let numeric = fit.sigma2 * inv[(x, y)];
                        let scale = (fit.cov[j][j] * fit.cov[k][k]).sqrt();
                        assert!(
                            (fit.cov[j][k] - numeric).abs() <= 1e-3 * scale,
                            "{form} startup {startup} gap {gap} ({j},{k}): {} vs {numeric}",
                            fit.cov[j][k]
                        );
                    }
                }
            }
        }
    }
}
