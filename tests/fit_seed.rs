//! The seed cases of design.md (1, 3, 4) on generator data.

mod common;

use calib::fit::{FitReport, FitWarning};
use calib::synth;
use common::fit_csv;

fn stratum<'a>(r: &'a FitReport, name: &str) -> &'a calib::model::StratumModel {
    r.model.strata.iter().find(|s| s.stratum == name).unwrap()
}

#[test]
fn case1_full_probe_projects_the_trend() {
    let (csv, full) = synth::trend_case(60, 3, 11);
    let r = fit_csv(&csv);
    let s = stratum(&r, "dataset=X");
    let p = s.project(100, 0.99);
    let truth = full.iter().sum::<f64>() / full.len() as f64;
    eprintln!("case1 full: model {} runner-up {:?} predicted {:.0} floor {:.0} upper {:.0} truth {:.0} scores {:?}", s.form(), s.runner_up(), p.predicted_s, p.floor_s, p.upper_s, truth, s.selection);
    assert_eq!(s.form().name(), "linear");
    assert!(
        (p.predicted_s / truth - 1.0).abs() < 0.03,
        "{} vs {truth}",
        p.predicted_s
    );
    assert!(p.predicted_s > 4.6 * 3600.0);
    assert!(p.upper_s >= full.iter().cloned().fold(0.0, f64::max));
    assert!(r
        .warnings
        .iter()
        .any(|w| matches!(w, FitWarning::SignificantTrend { .. })));
}

#[test]
fn case1_seven_unit_probe_bound_covers_the_run() {
    for seed in [1u64, 2, 3, 4, 5] {
        let (csv, full) = synth::trend_case(7, 1, seed);
        let r = fit_csv(&csv);
        let s = stratum(&r, "dataset=X");
        let p = s.project(100, 0.99);
        let mean_rate = r.strata[0].mean_rate_s;
        eprintln!("case1 7u seed {seed}: model {} predicted {:.0} upper {:.0} truth {:.0} mean-underestimate {:.3}", s.form(), p.predicted_s, p.upper_s, full[0], full[0] / (100.0 * mean_rate));
        assert!(
            p.upper_s >= full[0],
            "seed {seed}: upper {} < truth {}",
            p.upper_s,
            full[0]
        );
        assert!(r
            .warnings
            .iter()
            .any(|w| matches!(w, FitWarning::ProbeTooShort { .. })));
        assert!(r
            .warnings
            .iter()
            .any(|w| matches!(w, FitWarning::SpreadUnmeasured { .. })));
        // The probe's plain mean underestimates the 100-generation run by ~1.2x.
        let under = full[0] / (100.0 * mean_rate);
        assert!(under > 1.12 && under < 1.28, "{under}");
    }
}

#[test]
fn case3_bound_covers_the_slow_seed() {
    let (csv, full) = synth::spread_case(20, 5);
    let r = fit_csv(&csv);
    let s = stratum(&r, "dataset=Y");
    let p = s.project(100, 0.99);
    let slowest = full.iter().cloned().fold(0.0, f64::max);
    let fastest = full.iter().cloned().fold(f64::MAX, f64::min);
    eprintln!(
        "case3: model {} predicted {:.0} floor {:.0} upper {:.0} slowest {:.0} fastest {:.0}",
        s.form(),
        p.predicted_s,
        p.floor_s,
        p.upper_s,
        slowest,
        fastest
    );
    assert!(p.upper_s >= slowest);
    assert!(p.floor_s >= 0.95 * slowest && p.floor_s <= 1.05 * slowest);
    assert!(p.predicted_s < slowest);
    assert!(r
        .warnings
        .iter()
        .any(|w| matches!(w, FitWarning::StrataDiffer { .. })));
}

#[test]
fn case4_run_lengths_extrapolate_to_ten_thousand() {
    let csv = synth::run_length_case(&[100, 1000], 8, 21);
    let r = fit_csv(&csv);
    let s = stratum(&r, "workload=W");
    let p = s.project(10_000, 0.99);
    let truth = synth::RUN_LENGTH_COST.total(10_000);
    let rate100 = synth::RUN_LENGTH_COST.total(100) / 100.0;
    eprintln!("case4: model {} params {:?} predicted {:.0} floor {:.0} upper {:.0} truth {:.0} plain-100 under {:.3}", s.form(), s.projection.chosen.params, p.predicted_s, p.floor_s, p.upper_s, truth, truth / (rate100 * 10_000.0));
    assert!((p.predicted_s / truth - 1.0).abs() < 0.05);
    assert!(p.upper_s >= truth);
    assert!((truth / (rate100 * 10_000.0) - 1.48).abs() < 0.02);
}
