//! Each form recovers known parameters from noisy synthetic data, and the
//! selection by extrapolation picks the generating form when the data can tell.

mod common;

use calib::fit::FitReport;
use calib::synth::{self, Cost, Rng, RunSpec};
use common::fit_csv;

fn runs_csv(cost: Cost, startup: f64, runs: usize, units: u64, cv: f64, seed: u64) -> String {
    let mut csv = synth::HEADER.to_string();
    let mut rng = Rng::new(seed);
    for k in 0..runs {
        let spec = RunSpec {
            run: format!("r{k}"),
            stratum: "cell=a".into(),
            units,
            startup_s: startup,
            cost,
            level: 1.0,
            noise_cv: cv,
            cluster: "c".into(),
            cpu_model: "m".into(),
        };
        synth::write_unit_rows(&mut csv, &spec, &mut rng);
    }
    csv
}

/// The fitted parameters of `form` (whichever form was chosen).
fn params_of(r: &FitReport, form: &str) -> calib::fit::Params {
    let params = &r.model.strata[0].projection;
    params
        .curves()
        .find(|f| f.form.name() == form)
        .map(|f| f.params)
        .unwrap_or_else(|| {
            panic!(
                "{form} not among plausible forms {:?}",
                params.curves().map(|f| f.form).collect::<Vec<_>>()
            )
        })
}

#[test]
fn constant_recovers_rate_and_startup() {
    let r = fit_csv(&runs_csv(Cost::Constant { a: 12.0 }, 40.0, 4, 200, 0.02, 1));
    let p = params_of(&r, "constant");
    approx::assert_relative_eq!(p.a, 12.0, max_relative = 0.01);
    // Startup is confounded with the noise of the first unit only.
    assert!((p.startup - 40.0).abs() < 3.0, "{p:?}");
}

#[test]
fn linear_recovers_intercept_and_slope() {
    let cost = Cost::Linear {
        first: 10.0,
        last: 30.0,
        at: 201,
    };
    let r = fit_csv(&runs_csv(cost, 5.0, 4, 300, 0.02, 2));
    assert_eq!(r.model.strata[0].form().name(), "linear");
    let p = params_of(&r, "linear");
    // c(i) = 10 + 20 (i - 1) / 200 = 9.9 + 0.1 i
    approx::assert_relative_eq!(p.b, 0.1, max_relative = 0.03);
    approx::assert_relative_eq!(p.a, 9.9, max_relative = 0.02);
}

#[test]
fn log_recovers_its_coefficients() {
    let r = fit_csv(&runs_csv(
        Cost::Log { a: 2.0, b: 1.5 },
        3.0,
        4,
        400,
        0.02,
        3,
    ));
    assert_eq!(r.model.strata[0].form().name(), "log");
    let p = params_of(&r, "log");
    approx::assert_relative_eq!(p.a, 2.0, max_relative = 0.05);
    approx::assert_relative_eq!(p.b, 1.5, max_relative = 0.03);
}

#[test]
fn power_recovers_scale_and_exponent() {
    let r = fit_csv(&runs_csv(
        Cost::Power { a: 2.0, b: 0.6 },
        3.0,
        4,
        400,
        0.02,
        4,
    ));
    assert_eq!(r.model.strata[0].form().name(), "power");
    let p = params_of(&r, "power");
    approx::assert_relative_eq!(p.a, 2.0, max_relative = 0.05);
    approx::assert_relative_eq!(p.b, 0.6, max_relative = 0.03);
}

#[test]
fn a_flat_cost_keeps_a_flat_projection() {
    let r = fit_csv(&runs_csv(Cost::Constant { a: 5.0 }, 0.0, 3, 100, 0.03, 5));
    let s = &r.model.strata[0];
    let p = s.project(1000, 0.99);
    // Truth: 5,000 s; whatever form wins, it must not invent a trend.
    assert!(
        (p.predicted_s / 5000.0 - 1.0).abs() < 0.05,
        "{} {}",
        s.form(),
        p.predicted_s
    );
    assert!(p.upper_s >= 5000.0);
}

#[test]
fn bound_widens_with_extrapolation_distance() {
    let r = fit_csv(&runs_csv(Cost::Constant { a: 5.0 }, 0.0, 3, 100, 0.03, 6));
    let s = &r.model.strata[0];
    let ratio = |n: u64| {
        let p = s.project(n, 0.99);
        p.upper_s / p.predicted_s
    };
    assert!(
        ratio(1000) > ratio(200),
        "{} vs {}",
        ratio(1000),
        ratio(200)
    );
}
