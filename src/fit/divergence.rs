//! Run-to-run divergence: how far a new run may stray from the curve at N.
//!
//! Runs of one stratum differ in two ways that a short probe shows differently:
//!
//! - their **level** over the probe: `l_k = ln(T_k / P(K_k))`, run k's time at
//!   its last probed unit K_k against the fitted curve P;
//! - their **current rate**: `d_k = ln(observed / curve)` over the last quarter
//!   of run k's probe (at least [`MIN_WINDOW`] intervals), the time the window
//!   took against the curve's: a ratio of sums, which output delivered in
//!   bursts (many units logged at once, then none) leaves unbiased, where a
//!   per-unit statistic would not. Transient slow units were evened out before
//!   (`crate::fit::transients`), so they do not pose as a divergence.
//!
//! Seen on real programs: runs whose levels agree within a few percent over a
//! probe end far apart at N, and the divergence shows first in the current rate.
//! So a run's projection to N is the time it has spent plus the rest of the run
//! at its own current rate, not its probe level carried forward:
//!
//! `T_k(N) = P(K) e^{l_k} + (P(N) - P(K)) e^{d_k}`.
//!
//! The observed runs' rates are carried forward as measured; how far a *new*
//! run's rate may stray grows with the distance by `g(N) = mean over i in
//! (K, N] of (i / K)^γ` (in the bound below), where γ states how rate
//! differences keep growing after the probe (0: they persist unchanged; 0.5:
//! they grow like a random walk's spread; 1: linearly, like random slopes;
//! Laird & Ware 1982, Harvey 1990). γ is one constant for all programs, chosen
//! by leave-one-program-out validation (`examples/lopo.rs`): 0.
//!
//! The runs' rates are noisy estimates: their spread is taken net of how much
//! a window's rate varies within each run (the variance of the log ratios of
//! its consecutive windows of the same length: a one-way random-effects
//! analysis of variance with the windows as replicates, by the method of
//! moments; Searle, Casella & McCulloch, *Variance Components*, 1992, ch. 3),
//! and the shift of their
//! mean from the mean level is shrunk by its standard error (positive-part
//! James–Stein), so that a few noisy last units do not move the centre.
//!
//! **Few runs, many strata.** Two or three runs cannot estimate their own
//! spread. The variances of l and d get scaled-inverse-χ² priors whose scale is
//! the campaign's pooled variance (every stratum fitted together, weighted by
//! its degrees of freedom) and whose weight is the campaign's degrees of freedom,
//! capped at `pool_max_runs` pseudo-runs: partial pooling, as in Gelman et al.,
//! *Bayesian Data Analysis*, 3rd ed., ch. 5 (with the hyperparameters estimated
//! from the campaign: empirical Bayes). A stratum alone uses the fixed prior
//! (`spread_prior_sd`, `spread_prior_runs`). The campaign's pooled variance is
//! itself an estimate from few runs (two strata of three give 4 degrees of
//! freedom), and the rates' is net of their noise, floored at 0: where every
//! stratum's runs differ no more than their noise explains, it is 0, and a
//! prior of 0 would leave a new run no spread of rates at all (seen on a real
//! program: a run budgeted at 0.91x). So it gets the fixed prior as its own
//! prior, the same conjugate update one level up, before it serves a stratum:
//! a hierarchy of two levels rather than a point estimate at the top, which
//! keeps a variance estimated from few groups off the boundary (Gelman,
//! *Bayesian Analysis* 1(3), 2006; Chung et al., *Psychometrika* 78, 2013).
//! Many strata outweigh the fixed prior; many runs that agree overrule both.
//!
//! **The bound** (`crate::projection::RunSpread`). The log-sd of a new run's
//! deviation from the curve at N is taken as `w_K sd_l + w_F sd_d g(N)` with
//! `w_K = P(K)/P(N)`, `w_F = 1 - w_K`: the two parts are treated as perfectly
//! correlated, which bounds the variance of their sum from above when the
//! correlation is unknown (as with 2-3 runs). A new run adds the predictive
//! factor `sqrt(1 + 1/R_H)`, R_H counting the runs whose probe reached the
//! last quarter of the longest one ([`runs_at_horizon`]): where one run was
//! taken further than the others (the seed's run-length probe), the curve
//! beyond the others' reach follows that run's own deviation, so the centre a
//! new run is compared with is known as well as one run, not R.

use serde::{Deserialize, Serialize};

use crate::projection::RunSpread;

/// Fewest intervals in the current-rate window.
pub const MIN_WINDOW: usize = 3;

/// One run's divergence measures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunDivergence {
    pub run: String,
    /// The run's last probed unit.
    pub units: u64,
    /// ln(T / P(units)).
    pub ln_level: f64,
    /// ln(observed / curve) over the last quarter's intervals, as a whole.
    pub ln_rate: f64,
    /// The variance of a window's log ratio within this run (0 when the run
    /// has fewer than two windows): see [`measure`].
    pub rate_noise_var: f64,
}

/// Per-run measures from (unit, elapsed) points and a curve `total(n)` = P(n).
/// A run with one point (a run-length row) has its rate equal to its level; a
/// run with no time to compare (no points, a zero time) sits on the curve.
pub fn measure(run: &str, points: &[(u64, f64)], total: &dyn Fn(u64) -> f64) -> RunDivergence {
    let Some(&(units, elapsed)) = points.last() else {
        return RunDivergence {
            run: run.to_string(),
            units: 0,
            ln_level: 0.0,
            ln_rate: 0.0,
            rate_noise_var: 0.0,
        };
    };
    let p = total(units);
    let ln_level = if p > 0.0 && elapsed > 0.0 {
        (elapsed / p).ln()
    } else {
        0.0
    };
    let intervals = points.len().saturating_sub(1);
    let window = (intervals / 4).max(MIN_WINDOW).min(intervals);
    // The curve at each row, once (a power law's total costs a few powers).
    let curve: Vec<f64> = points.iter().map(|&(u, _)| total(u)).collect();
    let log_ratio = |from: usize, to: usize| {
        let expected = curve[to] - curve[from];
        let observed = points[to].1 - points[from].1;
        (expected > 0.0 && observed > 0.0).then(|| (observed / expected).ln())
    };
    // How much a window's log ratio varies within the run itself: the sample
    // variance of the log ratios of its consecutive, non-overlapping windows
    // of the same length after the first interval (startup), counted back
    // from the last unit. It holds the units' own noise and whatever makes a
    // few units in a row slow or fast together (output delivered in bursts, a
    // busy spell on the node), which a window's rate shares with the others
    // of its run and which does not make the run diverge.
    let blocks: Vec<f64> = if window > 0 {
        (window..points.len())
            .rev()
            .step_by(window)
            .filter_map(|end| log_ratio(end - window, end))
            .collect()
    } else {
        Vec::new()
    };
    let rate_noise_var = if blocks.len() >= 2 {
        let mean = blocks.iter().sum::<f64>() / blocks.len() as f64;
        blocks.iter().map(|b| (b - mean).powi(2)).sum::<f64>() / (blocks.len() - 1) as f64
    } else {
        0.0
    };
    let start = points.len() - 1 - window;
    let ln_rate = log_ratio(start, points.len() - 1).unwrap_or(ln_level);
    RunDivergence {
        run: run.to_string(),
        units,
        ln_level,
        ln_rate,
        rate_noise_var,
    }
}

/// Sample mean and sum of squared deviations.
fn moments(values: &[f64]) -> (f64, f64) {
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    (mean, values.iter().map(|v| (v - mean).powi(2)).sum())
}

/// The runs' sum of squared rate deviations, less what their own unit noise
/// explains (method of moments, as in a one-way random-effects analysis of
/// variance: E[SS] = (R - 1)(τ² + mean noise variance)), never below 0. Without
/// it a noisy machine would pass for runs that diverge.
fn rate_sum_of_squares(runs: &[RunDivergence], rates: &[f64]) -> f64 {
    let ss = moments(rates).1;
    let noise = runs.iter().map(|r| r.rate_noise_var).sum::<f64>() / runs.len().max(1) as f64;
    (ss - runs.len().saturating_sub(1) as f64 * noise).max(0.0)
}

/// The runs' mean current rate, its shift from their mean level shrunk by the
/// shift's own noise (positive-part James–Stein: `1 - (2 se)² / shift²`, at
/// least 0; Efron & Morris, JASA 1973). A shift of the rate away from the
/// level is a regime change inside the probe, which the centre of the
/// projection follows; a shift no larger than twice its standard error (a few
/// noisy last units, two runs) is mostly noise, and the centre stays near the
/// level.
fn shrunk_rate_shift(runs: &[RunDivergence], mean_level: f64, mean_rate: f64) -> f64 {
    let r = runs.len().max(1) as f64;
    let noise = runs.iter().map(|x| x.rate_noise_var).sum::<f64>() / r / r;
    let shift = mean_rate - mean_level;
    if shift == 0.0 {
        return mean_rate;
    }
    let keep = (1.0 - 4.0 * noise / (shift * shift)).max(0.0);
    mean_level + keep * shift
}

/// A variance with its prior and posterior (scaled-inverse-χ²).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PooledVariance {
    /// Sample variance of this stratum (None below two runs).
    pub sample: Option<f64>,
    /// Prior scale (a variance) and weight (pseudo-runs).
    pub prior: f64,
    pub prior_runs: f64,
    /// Posterior scale and degrees of freedom.
    pub posterior: f64,
    pub df: f64,
}

impl PooledVariance {
    /// Conjugate update of a scaled-inverse-χ²(prior_runs, prior) with the
    /// sum of squares `ss` of `runs` values.
    pub fn update(ss: f64, runs: usize, prior: f64, prior_runs: f64) -> PooledVariance {
        let extra = runs.saturating_sub(1) as f64;
        let df = prior_runs + extra;
        PooledVariance {
            sample: (runs >= 2).then(|| ss / extra),
            prior,
            prior_runs,
            posterior: if df > 0.0 {
                (prior_runs * prior + ss) / df
            } else {
                prior
            },
            df,
        }
    }
}

/// What the campaign says about run-to-run variances: the pooled variances of
/// levels and of rates, with their degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CampaignPrior {
    pub level_var: f64,
    pub rate_var: f64,
    /// Σ (runs - 1) over the strata that contributed.
    pub df: f64,
    pub strata: usize,
}

impl CampaignPrior {
    /// Pools the strata's measures; None when fewer than two strata have two
    /// or more runs (nothing to pool).
    pub fn pool(strata: &[Vec<RunDivergence>]) -> Option<CampaignPrior> {
        let (mut ss_l, mut ss_d, mut df, mut count) = (0.0, 0.0, 0.0, 0);
        for runs in strata.iter().filter(|r| r.len() >= 2) {
            let levels: Vec<f64> = runs.iter().map(|r| r.ln_level).collect();
            let rates: Vec<f64> = runs.iter().map(|r| r.ln_rate).collect();
            ss_l += moments(&levels).1;
            ss_d += rate_sum_of_squares(runs, &rates);
            df += (runs.len() - 1) as f64;
            count += 1;
        }
        (count >= 2 && df > 0.0).then(|| CampaignPrior {
            level_var: ss_l / df,
            rate_var: ss_d / df,
            df,
            strata: count,
        })
    }
}

/// The constants of the divergence model (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DivergencePrior {
    /// Fixed prior log-sd for a stratum fitted alone.
    pub prior_sd: f64,
    /// Its weight, in pseudo-runs.
    pub prior_runs: f64,
    /// Cap on the campaign prior's weight, in pseudo-runs.
    pub pool_max_runs: f64,
    /// γ.
    pub growth: f64,
}

/// A stratum's spread for projections: its runs' measures, with variances
/// shrunk toward the campaign's (or the fixed prior when there is no campaign).
pub fn spread(
    runs: &[RunDivergence],
    campaign: Option<&CampaignPrior>,
    prior: &DivergencePrior,
) -> RunSpread {
    let levels: Vec<f64> = runs.iter().map(|r| r.ln_level).collect();
    let rates: Vec<f64> = runs.iter().map(|r| r.ln_rate).collect();
    let (mean_l, ss_l) = moments(&levels);
    let mean_d = shrunk_rate_shift(runs, mean_l, moments(&rates).0);
    let ss_d = rate_sum_of_squares(runs, &rates);
    let fixed = prior.prior_sd * prior.prior_sd;
    let (prior_l, prior_d, weight) = match campaign {
        Some(c) => {
            // The conjugate update of the fixed prior with the campaign's
            // sums of squares (variance x degrees of freedom).
            let with_fixed =
                |v: f64| (c.df * v + prior.prior_runs * fixed) / (c.df + prior.prior_runs);
            (
                with_fixed(c.level_var),
                with_fixed(c.rate_var),
                c.df.min(prior.pool_max_runs),
            )
        }
        None => (fixed, fixed, prior.prior_runs),
    };
    let level = PooledVariance::update(ss_l, runs.len(), prior_l, weight);
    let rate = PooledVariance::update(ss_d, runs.len(), prior_d, weight);
    let max_l = levels.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    RunSpread {
        runs: runs.len(),
        mean_ln_level: mean_l,
        max_ln_level: if max_l.is_finite() { max_l } else { mean_l },
        sd: level.posterior.sqrt(),
        df: level.df.max(1.0),
        prior_sd: prior_l.sqrt(),
        mean_ln_rate: mean_d,
        rate_sd: rate.posterior.sqrt(),
        rate_df: rate.df.max(1.0),
        growth: prior.growth,
        deviations: runs.iter().map(|r| (r.ln_level, r.ln_rate)).collect(),
        pooled_strata: campaign.map_or(0, |c| c.strata),
        runs_at_horizon: runs_at_horizon(runs),
    }
}

/// The runs whose probe reached the last quarter of the longest probe (past
/// 3/4 of its units), where the curve's current rate is measured; at least 1.
/// Whole runs measured at several lengths (one run-length row each) count the
/// longest alone: the curve through them meets the horizon at that run's
/// point. The factor applies at every N, the conservative side for a run no
/// longer than the shorter probes.
pub fn runs_at_horizon(runs: &[RunDivergence]) -> usize {
    let longest = runs.iter().map(|r| r.units).max().unwrap_or(0);
    runs.iter()
        .filter(|r| r.units.saturating_mul(4) > longest.saturating_mul(3))
        .count()
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(n: u64) -> f64 {
        2.0 + n as f64
    }

    /// A run at a constant rate `rate` x the curve's after `switch`, 1 before.
    fn points(rate: f64, switch: u64, units: u64) -> Vec<(u64, f64)> {
        let mut t = 2.0;
        (1..=units)
            .map(|i| {
                t += if i > switch { rate } else { 1.0 };
                (i, t)
            })
            .collect()
    }

    #[test]
    fn the_current_rate_sees_a_change_the_level_hides() {
        let run = measure("a", &points(1.5, 16, 20), &curve);
        // The level moved by 2 s of 22: under 10%.
        assert!((run.ln_level - (24.0f64 / 22.0).ln()).abs() < 1e-12);
        assert!((run.ln_rate - 1.5f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn output_delivered_in_bursts_leaves_the_rate_unbiased() {
        // A constant rate, but the program's output reaches calib two units
        // at a time: every other unit seems to take no time, the next two.
        let mut p = points(1.0, 0, 40);
        for k in (0..p.len() - 1).step_by(2) {
            p[k].1 = p[k + 1].1;
        }
        let run = measure("a", &p, &curve);
        // A per-unit median would see only the 2 s units: ln 2 = 0.69.
        assert!(run.ln_rate.abs() < 0.15, "{}", run.ln_rate);
    }

    fn divergences(rates: &[f64]) -> Vec<RunDivergence> {
        rates
            .iter()
            .enumerate()
            .map(|(k, &d)| RunDivergence {
                run: format!("r{k}"),
                units: 20,
                ln_level: 0.0,
                ln_rate: d,
                rate_noise_var: 0.0,
            })
            .collect()
    }

    const PRIOR: DivergencePrior = DivergencePrior {
        prior_sd: 0.1,
        prior_runs: 3.0,
        pool_max_runs: 4.0,
        growth: 0.0,
    };

    #[test]
    fn pooling_moves_a_stratum_toward_the_campaign_and_its_own_data_overrules_it() {
        let wide = divergences(&[-0.3, 0.0, 0.3]);
        let tight = divergences(&[-0.01, 0.0, 0.01]);
        let campaign = CampaignPrior::pool(&[wide.clone(), wide, tight.clone()]).unwrap();
        let alone = spread(&tight, None, &PRIOR);
        let pooled = spread(&tight, Some(&campaign), &PRIOR);
        // The campaign's rates differ far more than the fixed 10% prior says.
        assert!(pooled.rate_sd > alone.rate_sd);
        assert!(pooled.rate_sd.powi(2) < campaign.rate_var);
        assert_eq!(pooled.pooled_strata, 3);
        // Twenty tight runs overrule the campaign.
        let many = divergences(&[-0.01, 0.01].repeat(10));
        let overruled = spread(&many, Some(&campaign), &PRIOR);
        assert!(overruled.rate_sd.powi(2) < 0.3 * campaign.rate_var);
    }

    /// Two strata of three runs whose rates differ no more than their noise
    /// explains: the campaign's rate variance, net of the noise, is 0. The
    /// stratum's prior is then the fixed one updated with that 0 over the
    /// campaign's 4 degrees of freedom, not 0 itself: a new run keeps a
    /// spread of rates. Twenty such strata (40 degrees of freedom) outweigh
    /// the fixed prior and take the spread below half of that.
    #[test]
    fn a_campaign_whose_rates_agree_within_their_noise_does_not_pool_to_zero() {
        let noisy = |rates: &[f64]| -> Vec<RunDivergence> {
            divergences(rates)
                .into_iter()
                .map(|r| RunDivergence {
                    rate_noise_var: 0.01,
                    ..r
                })
                .collect()
        };
        let stratum = noisy(&[-0.02, 0.0, 0.02]);
        let campaign = CampaignPrior::pool(&[stratum.clone(), stratum.clone()]).unwrap();
        assert_eq!(campaign.rate_var, 0.0);
        let pooled = spread(&stratum, Some(&campaign), &PRIOR);
        // (4 x 0 + 3 x 0.01) / 7, weighted 4 against the stratum's 2 (0).
        let expected = (4.0 * (3.0 * 0.01 / 7.0) / 6.0f64).sqrt();
        assert!(
            (pooled.rate_sd - expected).abs() < 1e-12,
            "{}",
            pooled.rate_sd
        );
        let many = CampaignPrior::pool(&vec![stratum.clone(); 20]).unwrap();
        let outweighed = spread(&stratum, Some(&many), &PRIOR);
        assert!(
            outweighed.rate_sd < 0.5 * pooled.rate_sd,
            "{}",
            outweighed.rate_sd
        );
    }

    #[test]
    fn runs_at_the_horizon_are_those_past_three_quarters_of_the_longest() {
        let of = |units: &[u64]| {
            let runs: Vec<RunDivergence> = units
                .iter()
                .map(|&u| RunDivergence {
                    units: u,
                    ..divergences(&[0.0])[0].clone()
                })
                .collect();
            runs_at_horizon(&runs)
        };
        // The seed's run-length probe: one run taken further.
        assert_eq!(of(&[10, 10, 50]), 1);
        // A run stopped a unit short still measured its rate near the end.
        assert_eq!(of(&[9, 10, 10]), 3);
        assert_eq!(of(&[7, 10, 10]), 2);
        // Exactly at 3/4 of the longest is not past it.
        assert_eq!(of(&[30, 40]), 1);
        assert_eq!(of(&[31, 40]), 2);
        assert_eq!(of(&[]), 1);
    }

    #[test]
    fn one_stratum_is_no_campaign() {
        assert!(CampaignPrior::pool(&[divergences(&[0.1, -0.1])]).is_none());
    }
}
