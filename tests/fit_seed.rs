//! The seed cases of design.md (1, 3, 4) on generator data, bounded with
//! calib's own calibration as `calib budget` bounds them.

mod common;

use calib::calibrate::Table;
use calib::fit::{FitReport, FitWarning};
use calib::synth;
use common::fit_csv;

fn stratum<'a>(r: &'a FitReport, name: &str) -> &'a calib::model::StratumModel {
    r.model.strata.iter().find(|s| s.stratum == name).unwrap()
}

fn shipped() -> Table {
    Table::shipped().unwrap()
}

#[test]
fn case1_a_long_probe_projects_the_trend() {
    let (csv, full) = synth::trend_case(60, 3, 11);
    let r = fit_csv(&csv);
    let s = stratum(&r, "dataset=X");
    let p = s.project(100, 0.9, &shipped());
    let truth = full.iter().sum::<f64>() / full.len() as f64;
    eprintln!(
        "case1 60u: predicted {:.0} floor {:.0} upper {:.0} truth {truth:.0}",
        p.predicted_s, p.floor_s, p.upper_s
    );
    assert!(
        (p.predicted_s / truth - 1.0).abs() < 0.04,
        "{} vs {truth}",
        p.predicted_s
    );
    assert!(p.upper_s >= full.iter().cloned().fold(0.0, f64::max));
    // The table's trend column shows what a plain mean would miss.
    assert!(r.strata[0].trend_pct > 20.0, "{}", r.strata[0].trend_pct);
}

#[test]
fn case1_seven_generation_probes_are_bounded_past_the_trend() {
    for seed in [1u64, 2, 3, 4, 5] {
        let (csv, full) = synth::trend_case(7, 1, seed);
        let r = fit_csv(&csv);
        let s = stratum(&r, "dataset=X");
        let mean_rate = r.strata[0].mean_rate_s;
        for confidence in [0.9, 0.99] {
            let p = s.project(100, confidence, &shipped());
            eprintln!(
                "case1 7u seed {seed} at {confidence}: predicted {:.0} upper {:.0} truth {:.0} mean-rate {:.0}",
                p.predicted_s,
                p.upper_s,
                full[0],
                100.0 * mean_rate
            );
            assert_eq!(p.unsupported, None, "seed {seed}");
            assert!(
                p.upper_s >= full[0],
                "seed {seed} at {confidence}: upper {} < truth {}",
                p.upper_s,
                full[0]
            );
        }
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
fn case3_the_bound_covers_the_slow_seed() {
    let (csv, full) = synth::spread_case(20, 5);
    let r = fit_csv(&csv);
    let s = stratum(&r, "dataset=Y");
    let p = s.project(100, 0.9, &shipped());
    let slowest = full.iter().cloned().fold(0.0, f64::max);
    eprintln!(
        "case3: predicted {:.0} floor {:.0} upper {:.0} slowest {slowest:.0}",
        p.predicted_s, p.floor_s, p.upper_s
    );
    assert!(p.upper_s >= slowest);
    // The measured cost is the slow seed's own projection, not the median's.
    assert!(p.floor_s >= 0.95 * slowest && p.floor_s <= 1.05 * slowest);
    assert!(p.predicted_s < 0.9 * slowest);
    let bound = p.bound.unwrap();
    assert!(bound.seed_margin() > 1.15, "{}", bound.seed_margin());
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
    let p = s.project(10_000, 0.9, &shipped());
    let truth = synth::RUN_LENGTH_COST.total(10_000);
    let rate100 = synth::RUN_LENGTH_COST.total(100) / 100.0;
    eprintln!(
        "case4: predicted {:.0} floor {:.0} upper {:.0} truth {truth:.0}",
        p.predicted_s, p.floor_s, p.upper_s
    );
    assert!((p.predicted_s / truth - 1.0).abs() < 0.05);
    assert!(p.upper_s >= truth);
    assert!((truth / (rate100 * 10_000.0) - 1.48).abs() < 0.02);
}
