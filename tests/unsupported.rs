//! The one rule of refusal: a probe without per-unit signal, or one the
//! calibration has too few programs like. `calib fit` warns, `calib budget`
//! gives no time (status `unsupported`, exit 3) unless `--allow-guess`; a
//! short probe is no refusal, it gets a wider bound.

mod common;

use std::fmt::Write as _;
use std::process::Command;

/// Three runs of `units` units whose k-th unit (1-based) costs `cost(k)`
/// seconds, after a startup of `startup` seconds.
fn timings(startup: f64, units: u64, cost: &dyn Fn(u64) -> f64) -> String {
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for run in 0..3u64 {
        let mut t = startup * (1.0 + 0.01 * run as f64);
        for k in 1..=units {
            t += cost(k) * (1.0 + 0.02 * ((run + k) % 3) as f64);
            let _ = writeln!(csv, "r{run},d=x,{k},{t:.6}");
        }
    }
    csv
}

fn calib(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_calib"))
        .args(args)
        .current_dir(dir)
        .env_remove("SLURM_CLUSTER_NAME")
        .env_remove("CC_CLUSTER")
        .output()
        .unwrap()
}

fn budget_json(dir: &std::path::Path, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    budget_units(dir, "200", extra)
}

/// `calib budget` of `t.csv` for runs of `units` units, as JSON.
fn budget_units(
    dir: &std::path::Path,
    units: &str,
    extra: &[&str],
) -> (Option<i32>, serde_json::Value) {
    let mut args = vec![
        "budget",
        "t.csv",
        "--units",
        units,
        "--partitions",
        "b1 3:00:00\nb2 12:00:00",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = calib(dir, &args);
    let value = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), value)
}

#[test]
fn units_lost_in_the_timer_resolution_get_no_time_not_even_a_guess() {
    let dir = tempfile::tempdir().unwrap();
    // 30 s of startup, then 10 units of half a millisecond: 14 ms past unit
    // 1 over the 3 runs, within what a millisecond timer resolves.
    std::fs::write(dir.path().join("t.csv"), timings(30.0, 10, &|_| 0.0005)).unwrap();

    let fit = calib(dir.path(), &["fit", "t.csv"]);
    assert_eq!(fit.status.code(), Some(0));
    let warnings = String::from_utf8_lossy(&fit.stderr);
    assert!(warnings.contains("no --time"), "{warnings}");

    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(3));
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "unsupported");
    assert!(s["time"].is_null() && s["time_s"].is_null(), "{s}");
    let notes = s["notes"].to_string();
    assert!(notes.contains("calib probe --units"), "{notes}");

    // No per-unit cost measured: nothing to guess from.
    let (code, doc) = budget_json(dir.path(), &["--allow-guess"]);
    assert_eq!(code, Some(3));
    assert_eq!(doc["strata"][0]["status"], "unsupported");
}

#[test]
fn probes_of_one_unit_get_no_time_and_the_note_names_a_longer_probe() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), timings(1.0, 1, &|_| 5.0)).unwrap();
    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(3));
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "unsupported", "{s}");
    let notes = s["notes"].to_string();
    assert!(
        notes.contains("no run of the probe has two units") && notes.contains("--units 50"),
        "{notes}"
    );
}

/// No unit-count cliff: a probe of 4 units budgeting 200 (50 times its
/// length) gets a time, wider than a probe of 40 units gets for the same run.
#[test]
fn a_short_probe_gets_a_wider_bound_not_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let upper = |units: u64| {
        std::fs::write(dir.path().join("t.csv"), timings(1.0, units, &|_| 5.0)).unwrap();
        let (code, doc) = budget_json(dir.path(), &[]);
        assert_eq!(code, Some(0), "{doc}");
        let s = &doc["strata"][0];
        assert!(s["time"].is_string(), "{s}");
        s["upper_s"].as_f64().unwrap() / s["floor_s"].as_f64().unwrap()
    };
    let (short, long) = (upper(4), upper(40));
    assert!(short > long && long >= 1.0, "{short} vs {long}");
}

/// Far beyond every case of the calibration, the few programs whose cases
/// reach furthest would set the factor alone: refused, naming them.
#[test]
fn a_distance_the_calibration_has_few_programs_at_gets_no_time() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), timings(1.0, 10, &|_| 0.5)).unwrap();
    let (code, doc) = budget_units(dir.path(), "10000000", &[]);
    assert_eq!(code, Some(3), "{doc}");
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "unsupported", "{s}");
    let notes = s["notes"].to_string();
    assert!(
        notes.contains("from only") && notes.contains("programs"),
        "{notes}"
    );
}
