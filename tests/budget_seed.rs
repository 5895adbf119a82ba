//! Seed cases 2 and 5 of design.md through the whole library path
//! (generator -> timings -> fit -> budget), and end-to-end properties of budget.
//!
//! Case 2: one dataset at 136 s/generation, another at 385 s/generation whose
//! seeds need up to ~10.7 h for 100 generations; a single 8 h walltime killed
//! the slow cells at generation 74. Case 5: 179 ms/unit measured on cluster A,
//! 459 ms/unit on cluster B: a calibration from A must not budget B silently.

mod common;

use std::sync::OnceLock;

use assert_cmd::prelude::*;
use calib::budget::{self, BudgetOptions, Status, Target};
use calib::fit::{fit_timings, FitOptions};
use calib::slurm::partitions::parse_partitions;
use calib::synth;
use common::{at_repo_file, calib, repo_text, stderr, stdout, timings_from_csv, write_file};
use predicates::prelude::*;
use predicates::str::{contains, is_empty};
use proptest::prelude::*;

const H: f64 = 3600.0;
const NARVAL: &str = "tests/data/slurm/sinfo-narval.txt";

fn narval() -> String {
    repo_text(NARVAL)
}

/// Fits `csv` (timings contract) and budgets it under `partitions`.
fn plan(
    csv: &str,
    partitions: &str,
    units: u64,
    target: Target,
    allow: bool,
) -> calib::error::Result<budget::Budget> {
    let timings = timings_from_csv(csv)?;
    let report = fit_timings(&timings, &FitOptions::default())?;
    let list = parse_partitions(partitions, &calib::error::Origin::Argument("test".into()))?;
    let selection = list.select(None)?;
    let options = BudgetOptions {
        units: Some(units),
        tasks: 3,
        grid: None,
        confidence: 0.99,
        target,
        allow_transfer: allow,
        allow_guess: false,
        calibration: calib::calibrate::Table::shipped().unwrap(),
    };
    budget::plan(&report.model, &selection, &options)
}

fn narval_target() -> Target {
    Target {
        cluster: Some("narval".into()),
        ..Target::default()
    }
}

#[test]
fn case_2_the_slow_stratum_gets_its_own_longer_time_and_the_fast_one_stays_short() {
    // 20 generations of 3 seeds of the slow dataset Y and 3 of the fast Z.
    let (csv, full) = synth::spread_case(20, 5);
    let slowest_full = full.iter().cloned().fold(0.0, f64::max);
    let b = plan(&csv, &narval(), 100, narval_target(), false).unwrap();
    let get = |name: &str| b.strata.iter().find(|s| s.stratum == name).unwrap();
    let (slow, fast) = (get("dataset=Y"), get("dataset=Z"));

    // The slow stratum is never given the 8 h that killed it at generation 74,
    // and its time covers its slowest seed's whole run.
    assert!(
        slow.decision.time_s() as f64 > 8.0 * H,
        "{:?}",
        slow.decision
    );
    assert!(
        slow.decision.time_s() as f64 >= slowest_full * 0.97,
        "{} vs {slowest_full}",
        slow.decision.time_s()
    );
    // The fast stratum keeps a time of its own, far shorter: not sized to the worst.
    assert!(fast.decision.time_s() < slow.decision.time_s());
    assert!(
        (fast.decision.time_s() as f64) < 8.0 * H,
        "{:?}",
        fast.decision
    );
    // It still covers its own projection (136 s x 100 + startup, seeds up to +8%).
    assert!(fast.decision.time_s() as f64 >= fast.projection.floor_s);
    assert!(fast.projection.floor_s > 136.0 * 100.0);

    // Where a bucket boundary lies between them (6 h), they land in different
    // buckets: the fast stratum is not dragged into the slow one's partition.
    let list = "part_b1* 3:00:00\npart_b2 6:00:00\npart_b3 12:00:00\npart_b4 1-00:00:00\n";
    let b = plan(&csv, list, 100, narval_target(), false).unwrap();
    let get = |name: &str| b.strata.iter().find(|s| s.stratum == name).unwrap();
    assert_eq!(
        get("dataset=Z").decision.partition.as_deref(),
        Some("part_b2")
    );
    let slow_partition = get("dataset=Y").decision.partition.clone().unwrap();
    assert!(
        slow_partition == "part_b3" || slow_partition == "part_b4",
        "{slow_partition}"
    );
}

#[test]
fn case_2_sbatch_output_has_one_array_per_stratum() {
    let (csv, _) = synth::spread_case(20, 5);
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "t.csv", csv);
    let out = calib()
        .args([
            "budget",
            "--units",
            "100",
            "--tasks",
            "3",
            "--cluster",
            "narval",
            "--format",
            "sbatch",
            "--explain",
        ])
        .args([
            "--script",
            "evolve.sh",
            "--unit-name",
            "generation",
            "--partitions",
        ])
        .arg(at_repo_file(NARVAL))
        .arg(&path)
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{text}\n{}", stderr(&out));
    let arrays: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("sbatch --array=0-2 "))
        .collect();
    assert_eq!(arrays.len(), 2, "{text}");
    assert!(arrays
        .iter()
        .any(|l| l.contains("--job-name=calib-dataset-Y")));
    assert!(arrays
        .iter()
        .any(|l| l.contains("--job-name=calib-dataset-Z")));
    // Each stratum's --time differs, and the record next to it names the rate,
    // the unit, the machine and the number of runs.
    let times: Vec<&str> = arrays
        .iter()
        .map(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with("--time="))
                .unwrap()
        })
        .collect();
    assert_ne!(times[0], times[1]);
    assert!(text.contains("per generation"), "{text}");
    assert!(text.contains("cluster narval"), "{text}");
    assert!(text.contains("3 runs"), "{text}");
}

/// Case 5's timings: a constant 179 ms/unit on `cluster`, 3 runs of 50 units.
fn rate_179(cluster: &str) -> String {
    let mut csv = synth::HEADER.to_string();
    for k in 0..3u64 {
        let spec = synth::RunSpec {
            run: format!("{cluster}-{k}"),
            stratum: "bench=sim".into(),
            // 200 units: 50 of them cannot rule out a trend hidden in their
            // 2% noise that would double a 10,000-unit run (status
            // unsupported, tests/unsupported.rs); the case is about machines.
            units: 200,
            startup_s: 0.5,
            cost: synth::Cost::Constant { a: 0.179 },
            level: 1.0 + 0.01 * k as f64,
            noise_cv: 0.02,
            cluster: cluster.into(),
            cpu_model: "Intel Xeon Gold 6148".into(),
        };
        synth::write_unit_rows(&mut csv, &spec, &mut synth::Rng::new(40 + k));
    }
    csv
}

#[test]
fn case_5_a_calibration_from_cluster_a_refuses_to_budget_cluster_b() {
    let csv = rate_179("clusterA");
    let list = "cpu_b1* 3:00:00\ncpu_b2 12:00:00\n";
    let b_target = Target {
        cluster: Some("clusterB".into()),
        ..Target::default()
    };
    let refused = plan(&csv, list, 10_000, b_target.clone(), false).unwrap_err();
    let text = refused.to_string();
    assert_eq!(refused.exit_code(), 2);
    assert!(
        text.contains("clusterA") && text.contains("clusterB"),
        "{text}"
    );
    assert!(text.contains("--allow-transfer"), "{text}");

    // Asked explicitly, it budgets, marked as an estimate everywhere.
    let estimate = plan(&csv, list, 10_000, b_target, true).unwrap();
    assert!(estimate.provenance.is_estimate());
    assert!(estimate
        .notes
        .iter()
        .any(|n| n.to_string().contains("ESTIMATE")));
    // Why: the true cost on B (459 ms/unit) is 2.6x what A's rate predicts.
    let true_on_b = 0.459 * 10_000.0;
    assert!(estimate.strata[0].projection.predicted_s * 2.0 < true_on_b);

    // On cluster A itself it is a calibration.
    let a_target = Target {
        cluster: Some("clustera".into()),
        ..Target::default()
    };
    let calibrated = plan(&csv, list, 10_000, a_target, false).unwrap();
    assert!(!calibrated.provenance.is_estimate());

    // A different CPU model on the same cluster name is also refused.
    let other_cpu = Target {
        cluster: Some("clusterA".into()),
        cpu_model: Some("AMD EPYC 7763".into()),
    };
    let refused = plan(&csv, list, 10_000, other_cpu, false).unwrap_err();
    assert!(refused.to_string().contains("AMD EPYC 7763"));
}

#[test]
fn case_5_through_the_cli_names_both_machines_and_marks_estimates() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "t.csv", rate_179("clusterA"));
    let run = |extra: &[&str]| {
        calib()
            .args([
                "budget",
                "--units",
                "10000",
                "--partitions",
                "cpu_b1* 3:00:00\ncpu_b2 12:00:00",
            ])
            .args(["--cluster", "clusterB", "--format", "json"])
            .args(extra)
            .arg(&path)
            .output()
            .unwrap()
    };
    // Refused, naming both machines, and nothing emitted.
    run(&[])
        .assert()
        .code(2)
        .stderr(contains("clusterA").and(contains("clusterB")))
        .stdout(is_empty());
    let allowed = run(&["--allow-transfer"]).assert().success();
    let doc: serde_json::Value = serde_json::from_slice(&allowed.get_output().stdout).unwrap();
    assert_eq!(doc["estimate"], true);
    assert_eq!(doc["strata"][0]["estimate"], true);
}

/// Seed case 1 fitted from 20-generation probes of 3 seeds (once for all cases).
fn trend_model() -> &'static calib::model::ModelFile {
    static MODEL: OnceLock<calib::model::ModelFile> = OnceLock::new();
    MODEL.get_or_init(|| common::fit_csv(&synth::trend_case(20, 3, 3).0).model)
}

/// What a run of `units` generations of seed case 1 takes on average: its
/// startup and the true per-generation costs, from the generator's definition
/// (the seeds' 3% per-generation noise averages out).
fn trend_truth_s(units: u64) -> f64 {
    synth::TREND_STARTUP_S + synth::TREND_COST.total(units)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With a real fitted model: time_s >= floor_s, never 0 minutes, and never
    /// decreasing as units grow, whatever the partitions; the upper bound
    /// covers what such a run really takes, out to 40x the probed length, and
    /// so does the time whenever it was not rounded down into a bucket.
    #[test]
    fn budget_time_is_monotone_in_units_and_never_below_the_floor(
        caps in prop::collection::vec(1u64..60 * 24 * 14, 1..6),
        units in 1u64..400,
        more in 0u64..400,
    ) {
        let model = trend_model();
        let list: String = caps
            .iter()
            .enumerate()
            .map(|(i, minutes)| format!("p_b{} {minutes}\n", i + 1))
            .collect();
        let partitions = parse_partitions(&list, &calib::error::Origin::Argument("t".into())).unwrap();
        let selection = partitions.select(None).unwrap();
        let at = |n: u64| {
            let options = BudgetOptions {
                units: Some(n),
                tasks: 1,
                grid: None,
                confidence: 0.99,
                target: Target::default(),
                allow_transfer: false,
                allow_guess: false,
                calibration: calib::calibrate::Table::shipped().unwrap(),
            };
            budget::plan(model, &selection, &options).unwrap().strata.remove(0)
        };
        let (small, big) = (at(units), at(units + more));
        for s in [&small, &big] {
            prop_assert!(s.decision.minutes >= 1);
            prop_assert!(s.decision.time_s() as f64 >= s.projection.floor_s);
            let truth = trend_truth_s(s.projection.units);
            prop_assert!(
                s.projection.upper_s >= truth,
                "the bound {} s misses the true {} s at {} units",
                s.projection.upper_s, truth, s.projection.units
            );
            if s.decision.status == Status::RoundedDown {
                prop_assert!((s.decision.time_s() as f64) < s.projection.upper_s);
            } else {
                prop_assert!(s.decision.time_s() as f64 >= truth, "{:?}", s.decision);
            }
        }
        prop_assert!(big.decision.time_s() >= small.decision.time_s());
    }
}
