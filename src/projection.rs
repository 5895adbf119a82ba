//! Projection of a new run of N units from a stratum's model parameters:
//! central value, measured cost, upper bound.
//!
//! This module knows only the parameters a model file states
//! ([`ProjectionParams`]: the cost forms with their parameters and uncertainty,
//! the run-to-run spread, the longest probe and the extrapolation allowance); it
//! does not know how they were estimated. `calib fit` produces them
//! ([`crate::fit`]), `calib budget` reads them from calib-model.json
//! ([`crate::model`]); both project with the code below.
//!
//! For a cost form f the projection of a run is
//! `P_f(N) = startup + Σ_{i<=N} c_eff(i)`, where `c_eff` is the form's c(i) with
//! two guards that keep projections finite, positive and non-decreasing in N:
//! it never falls below `min_unit_cost_s` (a fitted c(i) can dip below zero at
//! the first units when the startup term absorbs part of them), and a cost that
//! *decreases* at the longest probed run (horizon H) is held at c(H) beyond it
//! (a decline is never extrapolated past what was measured).
//!
//! The forms the probe cannot rule out each carry a weight w_f (from the fit's
//! holdout scores; they sum to 1). With P̄(N) = exp(Σ w_f ln P_f(N)), their
//! weighted geometric mean, and H the longest probed run:
//!
//! - **A run's deviation from the curve** ([`RunSpread`]): run k spent
//!   `P̄(H) e^{l_k}` over the probe (its level l_k) and goes on at its current
//!   rate, `e^{d_k}` times the curve's (d_k measured on its last units), so at
//!   N its log deviation is `ln(w_H e^{l_k} + (1 - w_H) e^{d_k})` with
//!   `w_H = P̄(H) / P̄(N)`.
//! - `predicted_s = P̄(N)` times the deviation of a run at the mean level and
//!   mean rate;
//! - `floor_s` (the measured cost) = the most expensive observed run's deviation
//!   applied to each form's P_f(N), the largest of them: it holds under every
//!   form the probe cannot rule out;
//! - the bound, on the log scale: centre `ln predicted_s` plus `t_ν √V` with
//!   `V = V_runs(N) + Σ w_f V_fit,f(N) + Σ w_f (ln P_f(N) - ln P̄(N))² + V_extrap(N)
//!   + V_trend(N)`:
//!   - `V_runs = (w_H σ_l + (1 - w_H) σ_d g(N))² (1 + 1/R_H)`: the spread of
//!     levels and of current rates, added as perfectly correlated (an upper
//!     bound when the correlation is unknown), the rate part growing with the
//!     distance by `g(N)`, the mean of (i/H)^γ over (H, N]; the factor
//!     `1 + 1/R_H` is a new run's predictive inflation (the variance of a new
//!     value around a mean of R_H others), with R_H the runs whose probe
//!     reached the last quarter of the longest probe: the curve's shape near H,
//!     and so the centre a new run is compared with, rests on them alone (one
//!     run taken longer than the others shapes the curve beyond their reach
//!     with its own deviation);
//!   - `V_fit = (SE_f(N) / P_f(N))²` (delta method: `SE² = ∇P' Σ ∇P` with Σ the
//!     covariance of (startup, a, b), and h for the onset; 0 when the fit left no
//!     residual degrees of freedom; Casella & Berger, *Statistical Inference*,
//!     §5.5.4);
//!   - the forms' weighted disagreement: an explicit model-uncertainty term in
//!     place of a maximum over forms, so that the most aggressive plausible form
//!     no longer decides every bound;
//!   - `V_extrap = (κ ln(N/H))² + ε²` for N > H: a stated allowance for every
//!     form being wrong beyond the probe, κ per e-fold, and ε, the error the
//!     probe itself measured: how far the best form fitted on its early units
//!     under-predicted its later ones, net of that score's own noise
//!     (`crate::fit::select`); a new run's extrapolation beyond H is taken to
//!     risk as much again. A one-off allowance, not per e-fold: a step in the
//!     cost (a cache outgrown) under-predicts the holdout once and is carried
//!     forward by the runs' current rates, while a rise that goes on keeps the
//!     per-e-fold κ;
//!   - `V_trend = w_const (ln(1 + s_e G(N)))²` for N > H: the trend the
//!     probe's unit noise leaves unresolved, counted for the constant form.
//!     That form is the linear one with its slope fixed at 0; when the holdout
//!     prefers it on noisy units, its weight would otherwise carry no
//!     uncertainty about the slope at all, and a gentle trend under wide
//!     scatter is projected flat by a bound that does not know it.
//!     Conditioning on a chosen model understates the uncertainty (Draper,
//!     "Assessment and propagation of model uncertainty", JRSS B 57, 1995):
//!     here the slope the constant form assumes away is counted at one
//!     standard error instead, s_e the standard error of the probe's slope
//!     relative to the level (the robust analysis of covariance of
//!     `crate::fit::resolution`), G(N) the share of a run of N units that a
//!     unit slope adds beyond the probe ([`TrendResolution::growth_at`]). The
//!     other forms carry their own slope's uncertainty in V_fit. Where that
//!     slope at the stated confidence could more than double the run, `calib
//!     budget` refuses instead ([`crate::model::MAX_HIDDEN_GROWTH`]);
//!   - the deviation of a new run from that centre taken as Student-t on the
//!     log scale (log-normal run times with estimated variance), with ν by
//!     Welch–Satterthwaite (Satterthwaite 1946, "An approximate distribution of
//!     estimates of variance components", Biometrics Bulletin 2; Welch 1947,
//!     Biometrika 34) over the spread's and the fits' degrees of
//!     freedom (the model and extrapolation terms taken as known), and the
//!     slope's where V_trend is counted, never raising ν: a small, well
//!     measured term would otherwise lower t by more than it adds to √V, and a
//!     noisier probe would get a narrower bound;
//! - `upper_s` = that bound, at least floor_s and predicted_s, made
//!   non-decreasing in N by construction: the bound used at N is the maximum of
//!   the raw bound over every N' = 1..=min(N, 256) and, beyond 256, over a fixed
//!   geometric grid (ratio 1.005) up to its first point >= N (so at most 0.5% of
//!   N ahead: a slightly conservative step function).
//!
//! Every figure is at most [`forms::MAX_PROJECTED_S`]: a form's sum past it is
//! capped there, and a run's deviation does not move a capped sum.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::forms::{self, Covariance, Form, Params, PARAMS};

/// One cost form with its parameters, as a model file states it.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    pub form: Form,
    /// Startup seconds, a, b (b is 0 and unused for the constant form).
    pub params: Params,
    /// The uncertainty of the parameters; `None` when the fit left no residual
    /// degrees of freedom to estimate it (then the bound counts the spread and
    /// the extrapolation allowance only).
    pub fit: Option<FitUncertainty>,
    /// The form's weight in the model average, in [0, 1]; the weights of a
    /// stratum's forms sum to 1.
    pub weight: f64,
}

/// The estimated uncertainty of a form's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct FitUncertainty {
    /// Covariance of (startup, a, b, h); rows of parameters a form lacks are zero.
    pub covariance: Covariance,
    /// Residual degrees of freedom of the fit (at least 1).
    pub df: f64,
}

/// What the probe can tell of a trend in the per-unit cost: the noise of unit
/// costs around each run's own straight line, relative to the run's level, and
/// the spread of the unit indexes it was measured at (see
/// `crate::fit::resolution` for the estimate and its assumptions). The bound
/// counts one standard error of that slope for the constant form
/// ([`TrendResolution::se_growth`]); `calib budget` refuses a run that the
/// slope at the stated confidence could more than double
/// ([`TrendResolution::unresolved`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TrendResolution {
    /// Robust sd of a unit's cost around its run's line, as a share of the
    /// run's median unit cost.
    pub unit_noise: f64,
    /// Σ (i - ī)² over the units used, each run about its own mean index.
    pub sxx: f64,
    /// Degrees of freedom of `unit_noise`.
    pub df: f64,
    /// Runs that contributed.
    pub runs: usize,
}

impl TrendResolution {
    /// The standard error of the probe's slope, per unit and relative to the
    /// level.
    pub fn slope_se(&self) -> f64 {
        self.unit_noise / self.sxx.sqrt()
    }

    /// How much longer than a run at the probe's level a run of `units` units
    /// is, as a share of that run, through a slope s (per unit, relative to
    /// the level) in a probe of `probe_units` units: s times
    /// Σ_{i=H+1..N} (i - ī), over N (ī the mean index of a probe's units after
    /// the first, about which the slope was fitted). 0 within the probe.
    pub fn growth_at(slope: f64, probe_units: u64, units: u64) -> f64 {
        if units <= probe_units {
            return 0.0;
        }
        let (h, n) = (probe_units as f64, units as f64);
        let mean_index = (h + 2.0) / 2.0;
        slope * (n - h) * ((n + h + 1.0) / 2.0 - mean_index) / n
    }

    /// [`TrendResolution::growth_at`] one standard error of the slope: the
    /// share of the run the bound counts for the constant form.
    pub fn se_growth(&self, probe_units: u64, units: u64) -> f64 {
        Self::growth_at(self.slope_se(), probe_units, units)
    }
}

/// How much a new run of the stratum may differ from the curve: its level over
/// the probe and its current rate (see the module docs; estimated by
/// `crate::fit::divergence`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpread {
    /// Runs whose level was measured (R).
    pub runs: usize,
    /// Mean log level over runs (l̄).
    pub mean_ln_level: f64,
    /// Largest log level: the most expensive run observed over the probe.
    pub max_ln_level: f64,
    /// Standard deviation of a run's log level (σ_l, ≈ coefficient of variation).
    pub sd: f64,
    /// Degrees of freedom of σ_l (at least 1).
    pub df: f64,
    /// The σ assumed before any run was measured (what one run is given).
    pub prior_sd: f64,
    /// Mean log current rate over runs (d̄).
    pub mean_ln_rate: f64,
    /// Standard deviation of a run's log current rate (σ_d).
    pub rate_sd: f64,
    /// Degrees of freedom of σ_d (at least 1).
    pub rate_df: f64,
    /// Growth exponent γ of rate differences beyond the probe.
    pub growth: f64,
    /// Each run's (log level, log current rate): the measured cost projects
    /// the most expensive of them.
    pub deviations: Vec<(f64, f64)>,
    /// Strata of the campaign whose spread the priors pooled (0: the fixed prior).
    pub pooled_strata: usize,
    /// Runs whose probe reached the last quarter of the longest probe (R_H,
    /// 1 ≤ R_H ≤ R): the runs the curve's shape near H rests on, which the
    /// predictive factor counts ([`RunSpread::predictive_var`]).
    pub runs_at_horizon: usize,
}

impl RunSpread {
    /// g(N): the mean of (i/H)^γ over (H, N], by the integral; 1 within the probe.
    pub fn growth_factor(&self, horizon: u64, n: u64) -> f64 {
        if n <= horizon || self.growth == 0.0 {
            return 1.0;
        }
        let (h, n, g) = (horizon as f64, n as f64, self.growth);
        h / (g + 1.0) * ((n / h).powf(g + 1.0) - 1.0) / (n - h)
    }

    /// The shares of a run of N units spent before and after the probe's end,
    /// from the curve's P(H) and P(N).
    fn shares(p_horizon: f64, p_n: f64) -> (f64, f64) {
        let w_k = if p_n > 0.0 {
            (p_horizon / p_n).clamp(0.0, 1.0)
        } else {
            1.0
        };
        (w_k, 1.0 - w_k)
    }

    /// ln of a run's deviation from the curve at N, for a run at log level
    /// `level` over the probe that goes on at log rate `rate`: its measured
    /// rate is carried forward as it is (only the uncertainty about a new
    /// run's rate grows with the distance, in [`RunSpread::predictive_var`]),
    /// so that a run's projected time never falls as N grows.
    fn deviation(level: f64, rate: f64, shares: (f64, f64)) -> f64 {
        (shares.0 * level.exp() + shares.1 * rate.exp()).ln()
    }

    /// Centre of a new run's log deviation at N.
    pub fn centre(&self, p_horizon: f64, p_n: f64) -> f64 {
        Self::deviation(
            self.mean_ln_level,
            self.mean_ln_rate,
            Self::shares(p_horizon, p_n),
        )
    }

    /// The most expensive observed run's log deviation at N.
    pub fn max_run(&self, p_horizon: f64, p_n: f64) -> f64 {
        let shares = Self::shares(p_horizon, p_n);
        let worst = self
            .deviations
            .iter()
            .map(|&(l, d)| Self::deviation(l, d, shares))
            .fold(f64::NEG_INFINITY, f64::max);
        if worst.is_finite() {
            worst
        } else {
            self.max_ln_level
        }
    }

    /// Variance of a new run's log deviation around the centre at N, and its
    /// degrees of freedom. The level and rate parts are added as perfectly
    /// correlated (an upper bound on the variance of their sum when the
    /// correlation is unknown); a new run adds the factor 1 + 1/R_H, R_H
    /// the runs that reached the horizon's last quarter.
    pub fn predictive_var(&self, horizon: u64, n: u64, p_horizon: f64, p_n: f64) -> (f64, f64) {
        let (w_k, w_f) = Self::shares(p_horizon, p_n);
        let g = self.growth_factor(horizon, n);
        let sd = w_k * self.sd + w_f * self.rate_sd * g;
        let r = self.runs_at_horizon.clamp(1, self.runs.max(1)) as f64;
        let df = if w_f * self.rate_sd * g > w_k * self.sd {
            self.rate_df
        } else {
            self.df
        };
        (sd * sd * (1.0 + 1.0 / r), df.max(1.0))
    }
}

/// Everything a projection uses.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionParams {
    /// The chosen form: the central projection and the measured cost use it.
    pub chosen: Curve,
    /// The other forms the probe cannot rule out; the bound covers them too.
    pub alternatives: Vec<Curve>,
    /// Longest probed run, in units (H, at least 1).
    pub probe_units: u64,
    /// Smallest per-unit cost a projection counts, seconds (> 0).
    pub min_unit_cost_s: f64,
    pub spread: RunSpread,
    /// Extrapolation allowance κ: log-sd added per e-fold beyond H.
    pub extrapolation_kappa: f64,
    /// The probe's measured form error ε: log-sd added once beyond H (0 when
    /// the forms did not under-predict the probe's later units).
    pub form_error: f64,
    /// How large a trend the probe's unit-to-unit noise leaves unresolved:
    /// the constant form's share of the bound counts it (`None`: not
    /// measured, e.g. run-length rows).
    pub resolution: Option<TrendResolution>,
}

impl ProjectionParams {
    /// The chosen form, then the alternatives.
    pub fn curves(&self) -> impl Iterator<Item = &Curve> {
        std::iter::once(&self.chosen).chain(&self.alternatives)
    }

    /// The constant form's weight in the average (0 when it is not among the
    /// plausible forms): the share of the bound that assumes no trend.
    pub fn constant_weight(&self) -> f64 {
        self.curves()
            .filter(|c| c.form == Form::Constant)
            .map(|c| c.weight)
            .sum()
    }

    /// What a restart from a checkpoint at unit `k` of a run of `n` units
    /// costs a typical run (level 1), the largest over the plausible forms:
    /// the startup paid again, and the costliest unit left, which a kill in
    /// the middle of it loses (the first or the last of units k+1..=n: a cost
    /// curve rises or falls along the run; 0 when none is left).
    pub fn restart_costs(&self, k: u64, n: u64) -> RestartCosts {
        let evaluators: Vec<Evaluator> = self
            .curves()
            .map(|c| Evaluator::new(c, self.probe_units, self.min_unit_cost_s))
            .collect();
        let most = |f: &dyn Fn(&Evaluator) -> f64| evaluators.iter().map(f).fold(0.0, f64::max);
        RestartCosts {
            startup_s: most(&|e| e.total(0)),
            unit_s: if k < n {
                most(&|e| (e.total(k + 1) - e.total(k)).max(e.total(n) - e.total(n - 1)))
            } else {
                0.0
            },
        }
    }
}

/// See [`ProjectionParams::restart_costs`]; seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestartCosts {
    pub startup_s: f64,
    pub unit_s: f64,
}

impl RestartCosts {
    /// These costs for a run at the upper bound: a run that takes `upper_s`
    /// where `predicted_s` is predicted is taken as slower in every part
    /// alike, its startup and units included (the bound scales the whole
    /// run), so that segments counted for the bound hold such a run.
    pub fn at_bound(self, predicted_s: f64, upper_s: f64) -> RestartCosts {
        let factor = if predicted_s > 0.0 && upper_s.is_finite() {
            (upper_s / predicted_s).max(1.0)
        } else {
            1.0
        };
        RestartCosts {
            startup_s: self.startup_s * factor,
            unit_s: self.unit_s * factor,
        }
    }
}

/// A projection's three figures, seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub predicted_s: f64,
    pub floor_s: f64,
    pub upper_s: f64,
}

/// A form evaluated with the guards (minimum cost, no declining extrapolation).
pub struct Evaluator<'a> {
    curve: &'a Curve,
    horizon: u64,
    floor: f64,
    declining: bool,
}

impl<'a> Evaluator<'a> {
    /// `horizon` is the longest probed run H; `min_unit_cost_s` the guard.
    pub fn new(curve: &'a Curve, horizon: u64, min_unit_cost_s: f64) -> Self {
        let h = horizon.max(1) as f64;
        let declining = unit_cost_raw(curve, h + 1.0) < unit_cost_raw(curve, h);
        Evaluator {
            curve,
            horizon: horizon.max(1),
            floor: min_unit_cost_s,
            declining,
        }
    }

    /// c_eff(i).
    pub fn unit_cost(&self, i: f64) -> f64 {
        let i = if self.declining {
            i.min(self.horizon as f64)
        } else {
            i
        };
        unit_cost_raw(self.curve, i).max(self.floor)
    }

    /// P(N) = startup + Σ c_eff(i).
    pub fn total(&self, n: u64) -> f64 {
        self.curve.params.startup.max(0.0) + self.sum(n)
    }

    fn sum(&self, n: u64) -> f64 {
        if n == 0 {
            return 0.0;
        }
        let m = if self.declining {
            n.min(self.horizon)
        } else {
            n
        };
        let c = |i: u64| unit_cost_raw(self.curve, i as f64);
        let cum = |k: u64| forms::cumulative(self.curve.form, &self.curve.params, k);
        let head = if c(1) >= self.floor && c(m) >= self.floor {
            cum(m)
        } else if c(1) < self.floor && c(m) < self.floor {
            self.floor * m as f64
        } else if c(1) < self.floor {
            // Rising through the floor: the first k units are below it.
            let k = last_where(1, m, |i| c(i) < self.floor);
            self.floor * k as f64 + cum(m) - cum(k)
        } else {
            // Falling through the floor: units k+1..m are below it.
            let k = last_where(1, m, |i| c(i) >= self.floor);
            cum(k) + self.floor * (m - k) as f64
        };
        head + (n - m) as f64 * self.unit_cost(self.horizon as f64)
    }

    /// Gradient of P(N) in (startup, a, b, h), ignoring the floor.
    fn gradient(&self, n: u64) -> [f64; PARAMS] {
        let p = &self.curve.params;
        if self.declining && n > self.horizon {
            let mut g = forms::gradient(self.curve.form, p, self.horizon);
            let extra = (n - self.horizon) as f64;
            let h = self.horizon as f64;
            let dc = match self.curve.form {
                Form::Constant => [0.0, 1.0, 0.0, 0.0],
                Form::Linear => [0.0, 1.0, h, 0.0],
                Form::Log => [0.0, 1.0, h.ln(), 0.0],
                Form::Power => [0.0, h.powf(p.b), p.a * h.powf(p.b) * h.ln(), 0.0],
                Form::Geometric => {
                    let g = (p.b * (h - 1.0)).exp();
                    [0.0, g, p.a * g * (h - 1.0), 0.0]
                }
                Form::Onset => {
                    let g = (p.b * (h - 1.0)).exp();
                    [0.0, 1.0, forms::times(p.h, g) * (h - 1.0), g]
                }
                Form::BasePower => {
                    let g = h.powf(p.b);
                    [0.0, 1.0, p.h * g * h.ln(), g]
                }
            };
            for j in 0..PARAMS {
                g[j] += extra * dc[j];
            }
            g
        } else {
            forms::gradient(self.curve.form, p, n)
        }
    }

    /// Standard error of P(N) from the parameter covariance (delta method).
    pub fn se(&self, n: u64) -> f64 {
        let Some(fit) = &self.curve.fit else {
            return 0.0;
        };
        let g = self.gradient(n);
        let c = &fit.covariance;
        let mut v = 0.0;
        for j in 0..PARAMS {
            for k in 0..PARAMS {
                v += g[j] * c[j][k] * g[k];
            }
        }
        v.max(0.0).sqrt()
    }

    /// The fit's residual degrees of freedom, 0 when it has none.
    fn df(&self) -> f64 {
        self.curve.fit.as_ref().map_or(0.0, |f| f.df)
    }
}

fn unit_cost_raw(curve: &Curve, i: f64) -> f64 {
    forms::unit_cost(curve.form, &curve.params, i)
}

/// Largest i in [lo, hi] with pred(i), for a predicate true on a prefix
/// (returns lo - 1 when false everywhere).
fn last_where(lo: u64, hi: u64, pred: impl Fn(u64) -> bool) -> u64 {
    if !pred(lo) {
        return lo - 1;
    }
    let (mut a, mut b) = (lo, hi);
    while a < b {
        let mid = a + (b - a).div_ceil(2);
        if pred(mid) {
            a = mid;
        } else {
            b = mid - 1;
        }
    }
    a
}

/// The running maximum that makes `upper_s` non-decreasing is taken over every
/// N' below this...
pub const ENVELOPE_EXACT: u64 = 256;
/// ...and over a geometric grid of this ratio beyond it.
pub const ENVELOPE_STEP: f64 = 1.005;

/// Largest log-scale margin of a bound over its centre (a factor of 10^6): past
/// it the log-normal approximation says nothing but "unbounded".
pub const MAX_LOG_MARGIN: f64 = 13.815_510_557_964_274;

/// The highest confidence a bound is computed at (`--confidence` refuses
/// more): beyond it the quantiles of the normal and of Student's t lose their
/// precision, and no probe of a few runs says anything about a one-in-a-million
/// tail.
pub const MAX_CONFIDENCE: f64 = 0.999_999;

/// One-sided quantile of Student's t (normal beyond 1e6 d.f.).
pub fn t_quantile(confidence: f64, df: f64) -> f64 {
    let p = confidence.clamp(0.5, MAX_CONFIDENCE);
    if !(df.is_finite()) || df > 1e6 {
        return Normal::new(0.0, 1.0)
            .map(|d| d.inverse_cdf(p))
            .unwrap_or(2.33);
    }
    StudentsT::new(0.0, 1.0, df.max(1.0))
        .map(|d| d.inverse_cdf(p))
        .unwrap_or(31.8)
}

/// Projects runs of a stratum from its [`ProjectionParams`].
pub struct Projector<'a> {
    evals: Vec<Evaluator<'a>>,
    spread: &'a RunSpread,
    horizon: u64,
    kappa: f64,
    form_error: f64,
    /// The probe's trend resolution (`None`: unmeasured).
    resolution: Option<TrendResolution>,
    /// The constant form's weight in the average: the share of the bound
    /// that assumes the slope away.
    constant_weight: f64,
    /// P̄(H), which every projection needs: computed once.
    averaged_at_horizon: f64,
}

/// Most forms a projection averages (the five of [`Form::ALL`]), so that one
/// N's totals fit on the stack.
const MAX_FORMS: usize = Form::ALL.len();

/// P̄: the forms' totals (in the order of `evals`) averaged on the log
/// scale with the forms' weights.
fn weighted_geometric_mean(evals: &[Evaluator], totals: &[f64]) -> f64 {
    evals
        .iter()
        .zip(totals)
        .map(|(e, t)| e.curve.weight * t.max(f64::MIN_POSITIVE).ln())
        .sum::<f64>()
        .exp()
}

impl<'a> Projector<'a> {
    pub fn new(params: &'a ProjectionParams) -> Self {
        let evals: Vec<Evaluator<'a>> = params
            .curves()
            .map(|c| Evaluator::new(c, params.probe_units, params.min_unit_cost_s))
            .collect();
        let horizon = params.probe_units.max(1);
        let at_horizon: Vec<f64> = evals.iter().map(|e| e.total(horizon)).collect();
        let averaged_at_horizon = weighted_geometric_mean(&evals, &at_horizon);
        Projector {
            evals,
            spread: &params.spread,
            horizon,
            kappa: params.extrapolation_kappa,
            form_error: params.form_error,
            resolution: params.resolution,
            constant_weight: params.constant_weight(),
            averaged_at_horizon,
        }
    }

    /// The chosen form's P(N) (levels not applied).
    pub fn curve(&self, n: u64) -> f64 {
        self.evals[0].total(n)
    }

    /// The chosen form's c_eff(i) (levels not applied).
    pub fn unit_cost(&self, i: f64) -> f64 {
        self.evals[0].unit_cost(i)
    }

    /// The central projection of a run of `n` units.
    pub fn predicted(&self, n: u64) -> f64 {
        self.central(n.max(1))
    }

    /// V_extrap(N): `(κ ln(N/H))² + ε²` beyond H, 0 within the probe.
    pub fn extrapolation_var(&self, n: u64) -> f64 {
        if n > self.horizon {
            (self.kappa * (n as f64 / self.horizon as f64).ln()).powi(2) + self.form_error.powi(2)
        } else {
            0.0
        }
    }

    /// V_trend(N): the constant form's weight times the log-variance of the
    /// run at N that one standard error of the probe's slope adds (0 within
    /// the probe), with its degrees of freedom; `None` when the resolution is
    /// unmeasured or the constant form has no weight.
    pub fn unresolved_trend(&self, n: u64) -> Option<(f64, f64)> {
        let r = self.resolution.filter(|_| self.constant_weight > 0.0)?;
        let growth = r.se_growth(self.horizon, n);
        Some((self.constant_weight * growth.ln_1p().powi(2), r.df))
    }

    /// `t_quantile` with the d.f. rounded to 0.5% (the quantile moves by < 0.3%
    /// of itself across such a step), cached for the whole process: the inverse
    /// CDF is the costly part, and strata fitted alike share their d.f.
    fn t(&self, confidence: f64, df: f64) -> f64 {
        use std::collections::HashMap;
        use std::sync::{Mutex, OnceLock};
        static CACHE: OnceLock<Mutex<HashMap<(u64, i64), f64>>> = OnceLock::new();
        if !df.is_finite() || df > 1e6 {
            return t_quantile(confidence, f64::INFINITY);
        }
        let key = (
            confidence.to_bits(),
            (df.max(1.0).ln() * 200.0).round() as i64,
        );
        let cache = CACHE.get_or_init(Default::default);
        if let Some(&t) = cache
            .lock()
            .ok()
            .and_then(|c| c.get(&key).copied())
            .as_ref()
        {
            return t;
        }
        let t = t_quantile(confidence, (key.1 as f64 / 200.0).exp());
        if let Ok(mut c) = cache.lock() {
            c.insert(key, t);
        }
        t
    }

    /// Each form's P(N), in the order of the forms (on the stack: this runs
    /// hundreds of times per bound).
    fn totals(&self, n: u64) -> ([f64; MAX_FORMS], usize) {
        let mut totals = [0.0; MAX_FORMS];
        let count = self.evals.len().min(MAX_FORMS);
        for (slot, e) in totals.iter_mut().zip(&self.evals) {
            *slot = e.total(n);
        }
        (totals, count)
    }

    /// P̄ from the forms' totals at one N.
    fn averaged_of(&self, totals: &[f64]) -> f64 {
        weighted_geometric_mean(&self.evals, totals)
    }

    /// Centre, log-variance and degrees of freedom of a new run at N.
    fn distribution(&self, n: u64) -> (f64, f64, f64) {
        let (totals, count) = self.totals(n);
        let p_bar = self.averaged_of(&totals[..count]);
        let ln_p_bar = p_bar.ln();
        let p_h = self.averaged_at_horizon;
        let centre = ln_p_bar + self.spread.centre(p_h, p_bar);
        let (v_spread, spread_df) = self.spread.predictive_var(self.horizon, n, p_h, p_bar);
        let (mut v_fit, mut v_model, mut fit_df_weighted) = (0.0, 0.0, 0.0);
        for (e, &total) in self.evals.iter().zip(&totals[..count]) {
            let p = total.max(f64::MIN_POSITIVE);
            let w = e.curve.weight;
            v_fit += w * (e.se(n) / p).powi(2);
            v_model += w * (p.ln() - ln_p_bar).powi(2);
            fit_df_weighted += w * e.df();
        }
        let v_ext = self.extrapolation_var(n);
        let v_without_trend = v_spread + v_fit + v_model + v_ext;
        // Welch–Satterthwaite over the estimated parts; the model and
        // extrapolation terms are taken as known.
        let denom = v_spread.powi(2) / spread_df
            + if fit_df_weighted > 0.0 {
                v_fit.powi(2) / fit_df_weighted
            } else {
                0.0
            };
        let satterthwaite = |v: f64, denom: f64| {
            if denom > 0.0 {
                v * v / denom
            } else {
                f64::INFINITY
            }
        };
        let df = satterthwaite(v_without_trend, denom);
        let Some((v_trend, trend_df)) = self.unresolved_trend(n) else {
            return (centre, v_without_trend, df);
        };
        // The trend's own d.f. join the sum, but never raise ν: a small, well
        // measured term would otherwise lower t by more than it adds to √V,
        // and more scatter on file would narrow the bound.
        let v = v_without_trend + v_trend;
        let df = df.min(satterthwaite(v, denom + v_trend.powi(2) / trend_df));
        (centre, v, df)
    }

    fn raw_upper(&self, n: u64, confidence: f64) -> f64 {
        let (centre, v, df) = self.distribution(n);
        let margin = (self.t(confidence, df) * v.sqrt()).min(MAX_LOG_MARGIN);
        (centre + margin).exp()
    }

    /// The measured cost at N: the most expensive observed run, projected with
    /// each form the probe cannot rule out; the largest of them, so that it
    /// holds whichever of those forms is true.
    fn floor(&self, n: u64) -> f64 {
        let (totals, count) = self.totals(n);
        let p_n_bar = self.averaged_of(&totals[..count]);
        let worst = self.spread.max_run(self.averaged_at_horizon, p_n_bar);
        // A total at the cap is past every limit whatever the run's deviation.
        totals[..count]
            .iter()
            .map(|&t| {
                if t >= forms::MAX_PROJECTED_S {
                    t
                } else {
                    t * worst.exp()
                }
            })
            .fold(0.0, f64::max)
    }

    /// The central projection of a run of `n` units.
    fn central(&self, n: u64) -> f64 {
        self.distribution(n).0.exp()
    }

    /// Like [`Projector::project`] without the running-maximum envelope (for
    /// plots, which sample many N).
    pub fn project_fast(&self, units: u64, confidence: f64) -> Bounds {
        let n = units.max(1);
        let upper = self.raw_upper(n, confidence);
        Bounds::of(self.central(n), self.floor(n), upper)
    }

    pub fn project(&self, units: u64, confidence: f64) -> Bounds {
        let n = units.max(1);
        // A step function over a fixed grid is non-decreasing by construction:
        // every N' in 1..=256, then the geometric grid up to its first point >= N.
        let mut upper: f64 = 0.0;
        for m in 1..=n.min(ENVELOPE_EXACT) {
            upper = upper.max(self.raw_upper(m, confidence));
        }
        let mut g = ENVELOPE_EXACT as f64;
        let mut last = ENVELOPE_EXACT;
        while last < n {
            g *= ENVELOPE_STEP;
            last = g.ceil() as u64;
            upper = upper.max(self.raw_upper(last, confidence));
        }
        Bounds::of(self.central(n), self.floor(n), upper)
    }
}

impl Bounds {
    /// The bounds of a projection: the upper one at least the others, each at
    /// most [`forms::MAX_PROJECTED_S`] (past it, a projection only says "past
    /// every limit"; a run's deviation applied to a capped sum would otherwise
    /// move it).
    fn of(predicted: f64, floor: f64, upper: f64) -> Bounds {
        let cap = |x: f64| x.min(forms::MAX_PROJECTED_S);
        Bounds {
            predicted_s: cap(predicted),
            floor_s: cap(floor),
            upper_s: cap(upper.max(floor).max(predicted)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_where_finds_the_boundary() {
        assert_eq!(last_where(1, 100, |i| i <= 37), 37);
        assert_eq!(last_where(1, 100, |_| false), 0);
        assert_eq!(last_where(1, 100, |_| true), 100);
    }

    #[test]
    fn declining_cost_is_held_and_sums_stay_positive() {
        let curve = Curve {
            form: Form::Linear,
            params: Params {
                startup: 1.0,
                a: 10.0,
                b: -0.5,
                h: 0.0,
            },
            fit: None,
            weight: 1.0,
        };
        let e = Evaluator::new(&curve, 10, 1e-6);
        let mut last = 0.0;
        for n in 1..200 {
            let t = e.total(n);
            assert!(t > last);
            last = t;
        }
        // c(10) = 5 is held beyond the horizon.
        assert!((e.total(20) - e.total(10) - 50.0).abs() < 1e-9);
    }

    /// A flat cost of 2 s per unit probed to 10 units by 3 runs, with the
    /// form error and trend resolution given.
    fn flat_params(form_error: f64, resolution: Option<TrendResolution>) -> ProjectionParams {
        ProjectionParams {
            chosen: Curve {
                form: Form::Constant,
                params: Params {
                    startup: 1.0,
                    a: 2.0,
                    b: 0.0,
                    h: 0.0,
                },
                fit: None,
                weight: 1.0,
            },
            alternatives: Vec::new(),
            probe_units: 10,
            min_unit_cost_s: 1e-6,
            spread: RunSpread {
                runs: 3,
                mean_ln_level: 0.0,
                max_ln_level: 0.0,
                sd: 0.05,
                df: 5.0,
                prior_sd: 0.1,
                mean_ln_rate: 0.0,
                rate_sd: 0.05,
                rate_df: 5.0,
                growth: 0.0,
                deviations: vec![(0.0, 0.0); 3],
                pooled_strata: 0,
                runs_at_horizon: 3,
            },
            extrapolation_kappa: 0.05,
            form_error,
            resolution,
        }
    }

    #[test]
    fn a_measured_form_error_widens_the_bound_beyond_the_probe_only() {
        let params = |form_error: f64| flat_params(form_error, None);
        let (without, with) = (params(0.0), params(0.2));
        let (without, with) = (Projector::new(&without), Projector::new(&with));
        // Within the probe the forms' extrapolation is not at stake.
        assert_eq!(with.extrapolation_var(10), 0.0);
        assert_eq!(
            with.project(10, 0.99).upper_s,
            without.project(10, 0.99).upper_s
        );
        // Beyond it, once: the same 0.04 of log-variance at 20 and at 1000
        // units, over κ's share that grows with the distance.
        for n in [20, 1000] {
            let added = with.extrapolation_var(n) - without.extrapolation_var(n);
            assert!((added - 0.04).abs() < 1e-12, "{n}: {added}");
            assert!(with.project(n, 0.99).upper_s > without.project(n, 0.99).upper_s);
        }
    }

    #[test]
    fn the_slope_the_constant_form_assumes_away_is_counted_at_its_standard_error() {
        // Units scattering by 10% with Σ (i - ī)² = 100: the slope's standard
        // error is 1% of the level per unit. Beyond a 10-unit probe, a unit
        // slope adds Σ_{i=11..100} (i - 6) / 100 = 44.55 units' worth to a
        // run of 100, so one standard error makes it 44.55% longer.
        let resolution = TrendResolution {
            unit_noise: 0.1,
            sxx: 100.0,
            df: 20.0,
            runs: 3,
        };
        let flat = flat_params(0.0, Some(resolution));
        let unmeasured = flat_params(0.0, None);
        let (flat_p, unmeasured_p) = (Projector::new(&flat), Projector::new(&unmeasured));
        let var = |p: &Projector, n: u64| p.unresolved_trend(n).map(|(v, _)| v);
        let expected = 1.4455f64.ln().powi(2);
        assert!((var(&flat_p, 100).unwrap() - expected).abs() < 1e-12);
        assert_eq!(var(&flat_p, 10), Some(0.0));
        assert_eq!(var(&unmeasured_p, 100), None);
        assert!(flat_p.project(100, 0.99).upper_s > unmeasured_p.project(100, 0.99).upper_s);
        // Shared with a linear form at half the weight, the constant form's
        // half counts it; a linear form alone carries its own slope's
        // uncertainty and nothing is added.
        let linear = Curve {
            form: Form::Linear,
            params: Params {
                startup: 1.0,
                a: 2.0,
                b: 0.01,
                h: 0.0,
            },
            fit: None,
            weight: 0.5,
        };
        let mut shared = flat.clone();
        shared.chosen.weight = 0.5;
        shared.alternatives.push(linear.clone());
        let shared_p = Projector::new(&shared);
        assert!((var(&shared_p, 100).unwrap() - expected / 2.0).abs() < 1e-12);
        let mut linear_only = flat.clone();
        linear_only.chosen = Curve {
            weight: 1.0,
            ..linear
        };
        assert_eq!(var(&Projector::new(&linear_only), 100), None);
    }

    #[test]
    fn more_scatter_on_file_never_narrows_the_bound() {
        // One probe run: the spread's few degrees of freedom dominate ν, and
        // a small, well measured trend term (50 d.f.) would raise ν enough
        // to lower t by more than it adds to √V.
        let mut one_run = flat_params(0.0, None);
        one_run.spread.runs = 1;
        one_run.spread.runs_at_horizon = 1;
        one_run.spread.df = 1.0;
        one_run.spread.rate_df = 1.0;
        one_run.spread.deviations.truncate(1);
        let upper = |unit_noise: Option<f64>, n: u64| {
            let params = ProjectionParams {
                resolution: unit_noise.map(|unit_noise| TrendResolution {
                    unit_noise,
                    sxx: 100.0,
                    df: 50.0,
                    runs: 1,
                }),
                ..one_run.clone()
            };
            Projector::new(&params).project(n, 0.99).upper_s
        };
        for n in 11..=40 {
            let mut last = upper(None, n);
            for noise in [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0] {
                let now = upper(Some(noise), n);
                assert!(
                    now >= last,
                    "N={n}: scatter {noise} narrowed {last} to {now}"
                );
                last = now;
            }
        }
    }
}
