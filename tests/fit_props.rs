//! Property tests: projections are finite and positive, never decrease as the
//! number of units grows, and bound a new run with a margin that widens with
//! the distance beyond the longest probed run.

use std::io::Write;

use calib::fit::divergence::{self, DivergencePrior, RunDivergence};
use calib::fit::{fit_timings, FitOptions, Form, Params};
use calib::model::{ModelFingerprint, StratumModel, TrendResolution};
use calib::projection::{Curve, FitUncertainty, ProjectionParams};
use calib::synth::{self, Cost, Rng, RunSpec};
use calib::timings::{read_timings, IngestOptions};
use proptest::prelude::*;

/// The one-sided normal quantile at `confidence`: no Student t quantile, of
/// any degrees of freedom, is smaller.
fn normal_quantile(confidence: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::new(0.0, 1.0).unwrap().inverse_cdf(confidence)
}

/// Checks the projections of `model` at `ns`. `horizon` is the longest probed
/// run and `kappa` the model's extrapolation allowance (log-sd per e-fold).
///
/// The upper bound is the central projection times `exp(t·√V)`, where V holds
/// the spread between runs (positive), the fit's error, the forms'
/// disagreement, and `(κ ln(N/H))²` beyond the horizon (`calib::projection`);
/// the bound used at N is the largest over N and points below it (or at most
/// 0.5% above it), where the central projection is no larger. So the bound
/// must lie strictly above the central projection, and beyond H by at least
/// the factor `(N/H)^(z·κ)`, z the normal quantile: a margin that grows with
/// the distance. (That factor stays far below the cap on margins, 10^6.)
/// Neither follows from the clamps that keep the bound at or above the
/// central projection and the measured cost: both fail if a term of V is
/// dropped. A bound at the cap on projections is only checked for order.
fn check(
    model: &StratumModel,
    mut ns: Vec<u64>,
    confidence: f64,
    horizon: u64,
    kappa: f64,
) -> Result<(), TestCaseError> {
    ns.sort_unstable();
    let z = normal_quantile(confidence);
    let mut last: Option<calib::model::Projection> = None;
    for n in ns {
        let p = model.project(n, confidence);
        for v in [p.predicted_s, p.floor_s, p.upper_s] {
            prop_assert!(v.is_finite() && v > 0.0, "N={n}: {p:?}");
        }
        // At the cap on projections (10^30 s), which only the multiplying
        // forms reach, a bound only says "past every limit": no margin is
        // asked of it.
        let multiplying = model
            .projection
            .curves()
            .any(|c| matches!(c.form, Form::Geometric | Form::Onset));
        let capped = multiplying && p.upper_s >= calib::forms::MAX_PROJECTED_S;
        let margin = (p.upper_s / p.predicted_s).ln();
        prop_assert!(capped || margin > 0.0, "no margin at N={n}: {p:?}");
        if n > horizon && !capped {
            // κ per e-fold, once the form error the probe measured, and the
            // constant form's share of the trend its noise leaves unresolved,
            // up to the largest margin a bound states (a factor of 10^6).
            let per_e_fold = kappa * (n as f64 / horizon as f64).ln();
            let trend = model.projection.resolution.map_or(0.0, |r| {
                model.projection.constant_weight().sqrt() * r.se_growth(horizon, n).ln_1p()
            });
            let allowance = (z * per_e_fold.hypot(model.projection.form_error).hypot(trend))
                .min(calib::projection::MAX_LOG_MARGIN);
            prop_assert!(
                margin >= allowance * (1.0 - 1e-9),
                "N={n}, H={horizon}: log margin {margin} below the extrapolation allowance {allowance}: {p:?}"
            );
        }
        if let Some(q) = &last {
            let tol = 1e-9 * q.upper_s;
            prop_assert!(
                p.predicted_s + tol >= q.predicted_s,
                "predicted fell: {q:?} -> {p:?}"
            );
            prop_assert!(p.floor_s + tol >= q.floor_s, "floor fell: {q:?} -> {p:?}");
            prop_assert!(p.upper_s + tol >= q.upper_s, "upper fell: {q:?} -> {p:?}");
        }
        last = Some(p);
    }
    Ok(())
}

fn cost_strategy() -> impl Strategy<Value = Cost> {
    prop_oneof![
        (0.01f64..100.0).prop_map(|a| Cost::Constant { a }),
        (0.01f64..100.0, 0.3f64..3.0, 5u64..500).prop_map(|(f, r, at)| Cost::Linear {
            first: f,
            last: f * r,
            at
        }),
        (0.5f64..50.0, -0.05f64..2.0).prop_map(|(a, b)| Cost::Log { a, b: a * b }),
        (0.01f64..100.0, -0.8f64..1.5).prop_map(|(a, b)| Cost::Power { a, b }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Fit noisy synthetic data of any form, then project.
    #[test]
    fn fitted_projections_never_decrease(
        cost in cost_strategy(),
        runs in 1usize..4,
        units in 2u64..60,
        cv in 0.0f64..0.3,
        startup in 0.0f64..100.0,
        seed in any::<u64>(),
        ns in proptest::collection::vec(1u64..200_000, 1..12),
        confidence in 0.6f64..0.999,
    ) {
        let mut csv = synth::HEADER.to_string();
        let mut rng = Rng::new(seed);
        for k in 0..runs {
            let spec = RunSpec {
                run: format!("r{k}"), stratum: "cell=a".into(), units, startup_s: startup,
                cost, level: 1.0 + 0.1 * k as f64, noise_cv: cv, cluster: "c".into(), cpu_model: "m".into(),
            };
            synth::write_unit_rows(&mut csv, &spec, &mut rng);
        }
        let mut f = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
        f.write_all(csv.as_bytes()).unwrap();
        let timings = read_timings(&[f.path().to_path_buf()], &IngestOptions::default()).unwrap();
        let options = FitOptions::default();
        let report = fit_timings(&timings, &options).unwrap();
        let mut ns = ns;
        ns.extend([1, 2, units, units + 1, 10 * units]);
        // Every run has `units` units: that is the longest probed run.
        check(&report.model.strata[0], ns, confidence, units, options.extrapolation_kappa)?;
    }

    /// Arbitrary (even absurd) fitted parameters and covariances: the guards hold.
    #[test]
    fn any_curve_projects_monotonically(
        form in prop_oneof![Just(Form::Constant), Just(Form::Linear), Just(Form::Log), Just(Form::Power), Just(Form::Geometric), Just(Form::Onset)],
        startup in 0.0f64..1e4,
        a in -10.0f64..100.0,
        b in -3.0f64..3.0,
        h in 0.0f64..10.0,
        var in 0.0f64..10.0,
        corr in -0.99f64..0.99,
        form_error in prop_oneof![Just(0.0), 0.0f64..13.8],
        resolution in proptest::option::of((0.0f64..3.0, 1e-3f64..1e6, 1.0f64..100.0)),
        horizon in 1u64..2000,
        levels in proptest::collection::vec(-0.5f64..0.5, 1..6),
        ns in proptest::collection::vec(1u64..1_000_000, 1..10),
    ) {
        let b = match form.profiled_range() { Some(r) => b.clamp(*r.start(), *r.end()), None => b };
        let h = if form == Form::Onset { h } else { 0.0 };
        let sd = [var.sqrt(), var.sqrt() * 0.1, var.sqrt() * 0.01, var.sqrt() * 0.1];
        let mut cov = [[0.0; 4]; 4];
        let n = form.param_count();
        for j in 0..n { for k in 0..n {
            cov[j][k] = sd[j] * sd[k] * if j == k { 1.0 } else { corr };
        }}
        let fit = Curve { form, params: Params { startup, a, b, h }, fit: Some(FitUncertainty { covariance: cov, df: 7.0 }), weight: 0.5 };
        let projection = ProjectionParams {
            chosen: fit.clone(),
            alternatives: vec![Curve { form: Form::Constant, ..fit }],
            probe_units: horizon,
            min_unit_cost_s: 1e-6,
            spread: divergence::spread(
                &levels
                    .iter()
                    .enumerate()
                    .map(|(k, &l)| RunDivergence { run: format!("r{k}"), units: horizon, ln_level: l, ln_rate: -l, rate_noise_var: 0.0 })
                    .collect::<Vec<_>>(),
                None,
                &DivergencePrior { prior_sd: 0.1, prior_runs: 3.0, pool_max_runs: 6.0, growth: 0.5 },
            ),
            extrapolation_kappa: 0.05,
            form_error,
            resolution: resolution.map(|(unit_noise, sxx, df)| TrendResolution { unit_noise, sxx, df, runs: 2 }),
        };
        // Built in memory, unchecked: the projection's guards alone must hold.
        let kappa = projection.extrapolation_kappa;
        let model = StratumModel {
            stratum: "x=1".into(), runs: levels.len(), units_probed: horizon, projection,
            fingerprint: ModelFingerprint::default(), warnings: vec![], selection: None, unsupported: None, convex_alternative: None,
        };
        let mut ns = ns;
        ns.extend([1, 2, horizon, horizon + 1, 255, 256, 257, 260, 1024]);
        check(&model, ns, 0.99, horizon, kappa)?;
    }
}
