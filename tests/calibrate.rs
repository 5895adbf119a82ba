//! The calibrated bound on programs whose deviation from their probe is known:
//! synthetic programs whose full runs drift from their probes by a level
//! drawn per program (as a campaign meets the cluster at another time and
//! load), plus unit noise. Programs are exchangeable, so leave-one-program-out
//! coverage must come out near the stated confidence (within sampling error),
//! not far above it (an absurd factor) nor below; and `calib calibrate`
//! writes a table that reads back, from folders laid out as the corpus is.

mod common;

use calib::calibrate::cases::{all_cases, read_program, StratumRuns};
use calib::calibrate::report::{summarise, trials, Method};
use calib::calibrate::{table, Anchor, Calibration, Form, BANDWIDTH};
use calib::error::Origin;
use calib::synth::Rng;
use common::{calib, stderr, stdout, write_file};

/// One program's folder: 3 probes of `k` units and 4 full runs of `n`, cost
/// per unit `rate` with 3% noise, the full runs slower by exp(drift).
fn write_program(root: &std::path::Path, name: &str, rate: f64, drift: f64, rng: &mut Rng) {
    for (folder, seeds, units, level) in [("probe", 1..=3, 10u64, 0.0), ("full", 4..=7, 100, drift)]
    {
        let mut csv = String::from("run,stratum,unit,elapsed_s,end\n");
        for seed in seeds {
            let mut t = 2.0;
            for unit in 1..=units {
                t += rate * (level + 0.03 * rng.normal()).exp();
                csv.push_str(&format!("{name}-r{seed},d=a,{unit},{t:.4},\n"));
            }
            let end = if folder == "probe" { "limit" } else { "exit:0" };
            csv.push_str(&format!("{name}-r{seed},d=a,{units},{t:.4},{end}\n"));
        }
        let dir = root.join(name).join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        write_file(&dir, "runs.csv", csv);
    }
}

fn corpus(programs: usize, seed: u64) -> (tempfile::TempDir, Vec<StratumRuns>) {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(seed);
    let mut strata = Vec::new();
    for p in 0..programs {
        let name = format!("p{p:03}");
        let drift = 0.25 * rng.normal();
        write_program(dir.path(), &name, 0.5 + rng.uniform(), drift, &mut rng);
        strata.extend(read_program(&dir.path().join(&name)).unwrap().0);
    }
    (dir, strata)
}

#[test]
fn leave_one_program_out_coverage_is_near_the_stated_confidence() {
    let (_dir, strata) = corpus(120, 7);
    let cases = all_cases(&strata, Form::Power);
    for anchor in [Anchor::Centre, Anchor::Slowest] {
        let method = Method::Calibrated {
            form: Form::Power,
            how: Calibration {
                anchor,
                bandwidth: BANDWIDTH,
                recorded_only: true,
            },
        };
        let s = summarise(&trials(&strata, &cases, method, 0.9, true));
        assert_eq!(s.refused, 0);
        let covered = s.covered as f64 / s.budgeted as f64;
        // 120 programs, whose 4 runs share one drift: the programs are the
        // sample, and 0.9 +- 0.06 is about two standard errors.
        assert!((covered - 0.9).abs() < 0.06, "{anchor:?}: {covered}");
    }
    // Probes cut from the full runs share the full runs' conditions and carry
    // no drift: with their cases, the factor under-covers it.
    let with_cut = Method::Calibrated {
        form: Form::Power,
        how: Calibration {
            anchor: Anchor::Centre,
            bandwidth: BANDWIDTH,
            recorded_only: false,
        },
    };
    let s = summarise(&trials(&strata, &cases, with_cut, 0.9, true));
    assert!((s.covered as f64 / s.budgeted as f64) < 0.85, "{s:?}");
    // The mean rate alone covers about half: the drift is what it misses.
    let naive = summarise(&trials(&strata, &cases, Method::MeanRate(1.0), 0.9, true));
    let covered = naive.covered as f64 / naive.budgeted as f64;
    assert!(covered < 0.7, "{covered}");
}

#[test]
fn calib_calibrate_writes_a_table_that_reads_back_and_reports_each_set() {
    let (dir, strata) = corpus(12, 11);
    let table_file = dir.path().join("calibration.csv");
    let held = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(5);
    write_program(held.path(), "h1", 1.0, 0.1, &mut rng);
    let out = calib()
        .arg("calibrate")
        .arg(dir.path())
        .arg("-o")
        .arg(&table_file)
        .arg("--held-out")
        .arg(held.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&table_file).unwrap();
    let cases = table::read(&text, &Origin::file(&table_file)).unwrap();
    let expected = all_cases(&strata, Form::Power);
    assert_eq!(cases.len(), expected.len());
    for (read, made) in cases.iter().zip(&expected) {
        assert_eq!(
            (&read.program, read.group, read.units, read.recorded),
            (&made.program, made.group, made.units, made.recorded)
        );
        assert!((read.e_slowest - made.e_slowest).abs() < 1e-6);
    }
    let report = stdout(&out);
    assert!(report.contains("corpus: 12 programs"), "{report}");
    assert!(
        report.contains("held-out programs, every case (1 programs"),
        "{report}"
    );
    // The held-out set is judged with the chosen method and the baselines only.
    let held_part = &report[report.find("held-out").unwrap()..];
    assert_eq!(
        held_part.matches("calibrated").count(),
        2 * 3,
        "{held_part}"
    );
}

/// `calib budget` of `timings` for a 100-unit run, as JSON, with `extra`.
fn budget_json(dir: &std::path::Path, timings: &str, extra: &[&str]) -> serde_json::Value {
    let out = calib()
        .current_dir(dir)
        .args([
            "budget",
            timings,
            "--units",
            "100",
            "--partitions",
            "b 3-00:00:00",
        ])
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A user's own campaigns calibrate: `calib calibrate -o` of their folders,
/// then `budget --calibration`, which merges the table with calib's own and
/// names it, with the programs it holds.
#[test]
fn a_calibration_of_ones_own_campaigns_is_merged_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(5);
    for p in 0..3 {
        write_program(dir.path(), &format!("mine{p}"), 1.0, 0.2, &mut rng);
    }
    let out = calib()
        .current_dir(dir.path())
        .args(["calibrate", "mine0", "mine1", "mine2", "-o", "mine.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let probe = dir.path().join("mine0/probe/runs.csv");
    let probe = probe.to_str().unwrap();
    let shipped = budget_json(dir.path(), probe, &[]);
    let own = budget_json(dir.path(), probe, &["--calibration", "mine.csv"]);
    let programs = calib::calibrate::Table::shipped().unwrap().programs();
    let note = |doc: &serde_json::Value| doc["notes"].to_string();
    assert!(
        note(&shipped).contains(&format!("calibration: calib's own, {programs} programs")),
        "{}",
        note(&shipped)
    );
    assert!(
        note(&own).contains(&format!(
            "calibration: mine.csv merged with calib's own, {} programs",
            programs + 3
        )),
        "{}",
        note(&own)
    );
}

/// Strata are bounded each on its own runs: a stray run in one stratum (one
/// unit, or a run of a few units beside the others' 20) moves no other
/// stratum's bound.
#[test]
fn a_stray_run_moves_no_other_stratum_s_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for (stratum, rate) in [("a", 2.0), ("b", 5.0)] {
        for r in 0..3 {
            let mut t = 1.0;
            for unit in 1..=20 {
                t += rate * (1.0 + 0.02 * ((r + unit) % 3) as f64);
                csv.push_str(&format!("{stratum}{r},s={stratum},{unit},{t:.3}\n"));
            }
        }
    }
    write_file(dir.path(), "t.csv", &csv);
    let stray = format!("{csv}x1,s=b,1,40.0\nx2,s=b,1,8.0\nx2,s=b,2,9.0\nx2,s=b,3,60.0\n");
    write_file(dir.path(), "stray.csv", stray);
    let upper = |doc: &serde_json::Value, k: usize| doc["strata"][k]["upper_s"].as_f64().unwrap();
    let before = budget_json(dir.path(), "t.csv", &["--confidence", "0.9"]);
    let after = budget_json(dir.path(), "stray.csv", &["--confidence", "0.9"]);
    assert_eq!(before["strata"][0]["stratum"], "s=a");
    assert_eq!(upper(&before, 0), upper(&after, 0));
}
