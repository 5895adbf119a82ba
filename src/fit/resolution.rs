//! Trend resolution: how large a trend in the per-unit cost a probe could fail
//! to show, so that `calib budget` refuses an extrapolation the probe cannot
//! support ([`crate::model::TrendResolution::unresolved`]).
//!
//! Why: the forms are chosen by how well they extrapolate the probe's later
//! units, and when unit costs scatter widely (a genetic program's generations,
//! an optimiser's trials logged in bursts) a flat form can win the holdout by
//! chance while the runs go on to grow. Seen on the corpus of real programs: a
//! genetic program's 10-generation probes, whose generations scatter by about
//! 40%, were budgeted flat, and a 100-generation run took 1.4 times the
//! bound. The holdout cannot see a trend smaller than the noise; this measures
//! how small "too small to see" is.
//!
//! Model (analysis of covariance with one slope, e.g. Weisberg, *Applied
//! Linear Regression*, 4th ed., §5.1): within each run r, the cost of unit i
//! after the first (which holds the startup) relative to the run's median unit
//! cost is `y = α_r + s·i + ε`, with a slope s shared by the runs and
//! independent noise ε of common scale. The slope's standard error is
//! `σ / √Sxx`, with `Sxx = Σ_r Σ_i (i - ī_r)²`. σ is estimated robustly, as
//! 1.4826 times the median absolute deviation of the residuals (Rousseeuw &
//! Croux, JASA 1993), so that a few transient slow units do not inflate it;
//! its degrees of freedom are those of the least-squares residuals. Before the
//! fit, a unit further than 5 robust sds from its run's level is clipped there
//! (Huber, *Robust Statistics*, 1981), so that one slow unit cannot move its
//! run's mean and with it every residual. A trend's
//! curvature left in the residuals counts as noise: the resolution errs wide.
//!
//! The refusal itself (how far a trend at the one-sided bound of s could take
//! a run of N units, against [`crate::model::MAX_HIDDEN_GROWTH`]) is decided
//! per request, from these figures.

use crate::model::TrendResolution;
use crate::stats::{median, median_reordering};

/// Where a unit's relative cost is clipped, in robust sds of its run.
const CLIP_SDS: f64 = 5.0;

/// Fewest values for a run to count (a line through two points leaves no
/// residual): units after the first, for the resolution.
const MIN_RUN_UNITS: usize = 3;

/// The resolution of a probe from each run's (unit, per-unit cost) intervals,
/// the first of which holds the startup. `None` when no run has enough units
/// with a positive median cost (run-length rows, probes of two units).
pub fn measure(points: &[Vec<(u64, f64)>]) -> Option<TrendResolution> {
    let later = points.iter().map(|run| run.get(1..).unwrap_or_default());
    shared_slope(later).map(|fit| fit.resolution)
}

/// The slope shared by several runs' series, relative to each run's median,
/// with the scatter around it: the model above, fitted to any series of
/// positive values by unit (unit costs, or their ratios to a fitted curve).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharedSlope {
    /// Change per unit, as a share of a run's median value.
    pub slope: f64,
    /// The scatter around the runs' lines, and what the slope was measured over.
    pub resolution: TrendResolution,
}

impl SharedSlope {
    /// The slope's standard error.
    pub fn se(&self) -> f64 {
        self.resolution.unit_noise / self.resolution.sxx.sqrt()
    }

    /// Whether the slope is a rise the scatter does not explain: above its
    /// one-sided 99% t quantile times its standard error.
    pub fn rises(&self) -> bool {
        self.slope > crate::projection::t_quantile(0.99, self.resolution.df) * self.se()
    }
}

/// The shared slope of runs' (unit, value) series, each run about its own
/// mean; a run with fewer than [`MIN_RUN_UNITS`] values, or without a
/// positive median, does not count. `None` when none counts.
pub fn shared_slope<'a>(runs: impl IntoIterator<Item = &'a [(u64, f64)]>) -> Option<SharedSlope> {
    struct Run {
        xs: Vec<f64>,
        ys: Vec<f64>,
        mean_x: f64,
        mean_y: f64,
    }
    let mut fitted = Vec::new();
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for run in runs {
        if run.len() < MIN_RUN_UNITS {
            continue;
        }
        let values: Vec<f64> = run.iter().map(|&(_, c)| c).collect();
        let level = match median(&values) {
            Some(level) if level > 0.0 && level.is_finite() => level,
            _ => continue,
        };
        let xs: Vec<f64> = run.iter().map(|&(u, _)| u as f64).collect();
        // Relative to the level, with a transient slow unit pulled in to 5
        // robust sds of its run (Huber's clipping): one 10x unit would
        // otherwise move its run's mean and every residual with it.
        let ys: Vec<f64> = values.iter().map(|c| c / level).collect();
        let mut deviations: Vec<f64> = ys.iter().map(|y| (y - 1.0).abs()).collect();
        let spread = 1.4826 * median_reordering(&mut deviations)?;
        let clip = CLIP_SDS * spread;
        let ys: Vec<f64> = ys.iter().map(|y| y.clamp(1.0 - clip, 1.0 + clip)).collect();
        let n = xs.len() as f64;
        let mean_x = xs.iter().sum::<f64>() / n;
        let mean_y = ys.iter().sum::<f64>() / n;
        for (x, y) in xs.iter().zip(&ys) {
            sxx += (x - mean_x).powi(2);
            sxy += (x - mean_x) * (y - mean_y);
        }
        fitted.push(Run {
            xs,
            ys,
            mean_x,
            mean_y,
        });
    }
    if fitted.is_empty() || sxx.is_nan() || sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let mut residuals: Vec<f64> = fitted
        .iter()
        .flat_map(|r| {
            r.xs.iter()
                .zip(&r.ys)
                .map(move |(x, y)| (y - r.mean_y) - slope * (x - r.mean_x))
        })
        .collect();
    // Both medians take the values in any order: the residuals are
    // reordered, then turned into their deviations, in place.
    let centre = median_reordering(&mut residuals)?;
    for e in residuals.iter_mut() {
        *e = (*e - centre).abs();
    }
    let unit_noise = 1.4826 * median_reordering(&mut residuals)?;
    // One mean per run and the shared slope are estimated.
    let df = (residuals.len() as f64 - fitted.len() as f64 - 1.0).max(1.0);
    let resolution = TrendResolution {
        unit_noise,
        sxx,
        df,
        runs: fitted.len(),
    };
    (unit_noise.is_finite() && sxx.is_finite() && slope.is_finite())
        .then_some(SharedSlope { slope, resolution })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth::Rng;

    /// Per-unit costs (unit 1 holding a startup of 5) of `runs` runs.
    fn runs_of(
        runs: usize,
        units: u64,
        cost: impl Fn(u64, &mut Rng) -> f64,
    ) -> Vec<Vec<(u64, f64)>> {
        let mut rng = Rng::new(7);
        (0..runs)
            .map(|_| {
                (1..=units)
                    .map(|u| (u, if u == 1 { 5.0 } else { cost(u, &mut rng) }))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn noise_is_measured_around_the_trend_not_including_it() {
        // A steep, exact linear rise: no scatter around it.
        let rising = measure(&runs_of(3, 20, |u, _| 1.0 + 0.5 * u as f64)).unwrap();
        assert!(rising.unit_noise < 1e-9, "{rising:?}");
        // 20% log-normal scatter on a flat cost: about 0.2 relative.
        let noisy = measure(&runs_of(3, 200, |_, rng| (0.2 * rng.normal()).exp())).unwrap();
        assert!((0.15..0.25).contains(&noisy.unit_noise), "{noisy:?}");
        assert_eq!(noisy.runs, 3);
    }

    #[test]
    fn transient_slow_units_do_not_inflate_the_noise() {
        let with_pauses = measure(&runs_of(3, 100, |u, rng| {
            let pause = if u % 17 == 0 { 10.0 } else { 1.0 };
            pause * (0.05 * rng.normal()).exp()
        }))
        .unwrap();
        assert!(with_pauses.unit_noise < 0.08, "{with_pauses:?}");
    }

    #[test]
    fn runs_too_short_or_costless_give_no_resolution() {
        assert_eq!(measure(&runs_of(3, 3, |_, _| 1.0)), None);
        assert_eq!(measure(&runs_of(3, 20, |_, _| 0.0)), None);
        assert_eq!(measure(&[]), None);
    }

    fn resolution(unit_noise: f64, sxx: f64) -> TrendResolution {
        TrendResolution {
            unit_noise,
            sxx,
            df: 1e9,
            runs: 1,
        }
    }

    #[test]
    fn a_hidden_trend_is_judged_by_how_far_it_would_take_the_run() {
        // s = z(0.99) 0.1 / √100 = 0.0232635; over units 11..=N about the
        // probe's mean index 6 it adds s (N - 10) ((N + 11) / 2 - 6) / N.
        let r = resolution(0.1, 100.0);
        let slope = 2.326_347_874 * 0.01;
        match r.unresolved(10, 100, 0.99) {
            Some(crate::model::Unsupported::TrendUnresolved { hidden_growth, .. }) => {
                assert!(
                    (hidden_growth - slope * 44.55).abs() < 1e-6,
                    "{hidden_growth}"
                )
            }
            other => panic!("{other:?}"),
        }
        // 95 units: s 85 47 / 95 = 0.978 of a run, under the limit.
        assert_eq!(r.unresolved(10, 95, 0.99), None);
        // At 90% confidence the same probe supports the 100 units.
        assert_eq!(r.unresolved(10, 100, 0.9), None);
        // Within the probe nothing is extrapolated.
        assert_eq!(resolution(10.0, 1.0).unresolved(10, 10, 0.99), None);
    }

    #[test]
    fn the_settling_length_is_the_first_that_settles_it() {
        let r = resolution(0.3, 180.0);
        let Some(crate::model::Unsupported::TrendUnresolved { settle_units, .. }) =
            r.unresolved(10, 200, 0.99)
        else {
            panic!("a 30% scatter over 10 units must leave 200 unresolved");
        };
        // The same runs probed to k units: Σ (i - ī)² scales as one run's.
        let one_run = |k: u64| {
            let m = (k - 1) as f64;
            m * (m * m - 1.0) / 12.0
        };
        let at =
            |k: u64| resolution(0.3, 180.0 * one_run(k) / one_run(10)).unresolved(k, 200, 0.99);
        assert_eq!(at(settle_units), None, "{settle_units}");
        assert!(at(settle_units - 1).is_some(), "{settle_units}");
    }

    #[test]
    fn sxx_adds_up_over_runs_about_their_own_means() {
        // Units 2..=11 of one run: Σ (i - ī)² = 10 (10² - 1) / 12 = 82.5.
        let r = measure(&runs_of(2, 11, |_, rng| 1.0 + 0.01 * rng.normal())).unwrap();
        assert!((r.sxx - 165.0).abs() < 1e-9, "{r:?}");
    }
}
