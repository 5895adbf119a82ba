//! Run-to-run spread: how much a new run of a stratum may differ from the curve.
//!
//! Assumption (stated): runs of a stratum share the shape of the cost curve and
//! differ by a multiplicative level, log-normally distributed: run k costs
//! `L_k P(N)` with `ln L_k ~ N(μ, σ²)`. Each run's level is measured at its own
//! last unit: `ln L_k = ln(T_k / P(U_k))`.
//!
//! σ² gets a conjugate scaled-inverse-χ² prior with scale σ0² and ν0 pseudo-runs
//! (Gelman et al., *Bayesian Data Analysis*, 3rd ed., §3.2–3.3): with K runs and
//! sample variance s², the posterior is scaled-inv-χ²(ν0 + K - 1,
//! (ν0 σ0² + (K-1) s²) / (ν0 + K - 1)). The posterior predictive of a new run's
//! log level is then Student-t with ν0 + K - 1 degrees of freedom, centre the
//! mean level and scale σ_post sqrt(1 + 1/K). One run yields exactly the prior
//! (the output says the spread is unmeasured and what was assumed); two runs do
//! not produce the absurd t_1 quantile of a plain sample estimate.

use serde::{Deserialize, Serialize};

/// The spread prior and its posterior for one stratum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Runs whose level was measured.
    pub runs: usize,
    /// Mean log level over runs (≈ 0 for a pooled fit).
    pub mean_ln_level: f64,
    /// Largest log level: the most expensive run observed.
    pub max_ln_level: f64,
    /// Sample standard deviation of the log levels (None with one run).
    pub sample_sd: Option<f64>,
    /// Prior scale σ0 (log scale ≈ coefficient of variation).
    pub prior_sd: f64,
    /// Prior weight ν0 in pseudo-runs.
    pub prior_runs: f64,
    /// Posterior scale σ_post.
    pub posterior_sd: f64,
    /// Posterior degrees of freedom ν0 + K - 1.
    pub df: f64,
}

impl Spread {
    pub fn from_levels(ln_levels: &[f64], prior_sd: f64, prior_runs: f64) -> Spread {
        let k = ln_levels.len();
        let mean = if k == 0 {
            0.0
        } else {
            ln_levels.iter().sum::<f64>() / k as f64
        };
        let max = ln_levels.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let (sample_sd, ss) = if k >= 2 {
            let ss: f64 = ln_levels.iter().map(|l| (l - mean).powi(2)).sum();
            (Some((ss / (k - 1) as f64).sqrt()), ss)
        } else {
            (None, 0.0)
        };
        let df = prior_runs + k.saturating_sub(1) as f64;
        let posterior_var = (prior_runs * prior_sd * prior_sd + ss) / df;
        Spread {
            runs: k,
            mean_ln_level: mean,
            max_ln_level: if max.is_finite() { max } else { 0.0 },
            sample_sd,
            prior_sd,
            prior_runs,
            posterior_sd: posterior_var.sqrt(),
            df,
        }
    }

    /// Variance of a new run's log level around the mean level (log scale).
    pub fn predictive_var(&self) -> f64 {
        let k = self.runs.max(1) as f64;
        self.posterior_sd.powi(2) * (1.0 + 1.0 / k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_gets_the_prior() {
        let s = Spread::from_levels(&[0.0], 0.1, 3.0);
        assert_eq!(s.sample_sd, None);
        assert!((s.posterior_sd - 0.1).abs() < 1e-12);
        assert_eq!(s.df, 3.0);
    }

    #[test]
    fn many_runs_dominate_the_prior() {
        let levels: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { 0.3 } else { -0.3 })
            .collect();
        let s = Spread::from_levels(&levels, 0.1, 3.0);
        assert!((s.posterior_sd - 0.3).abs() < 0.01, "{}", s.posterior_sd);
    }
}
