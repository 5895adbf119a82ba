//! Probes that cannot support a bound: `calib fit` warns, `calib budget` gives
//! no time (status `unsupported`, exit 3) unless `--allow-guess`.

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
fn units_lost_in_startup_get_no_time_unless_a_guess_is_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    // 30 s of startup, then 10 units of 10 ms: the units are 0.3% of the probe.
    std::fs::write(dir.path().join("t.csv"), timings(30.0, 10, &|_| 0.01)).unwrap();

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

    let (code, doc) = budget_json(dir.path(), &["--allow-guess"]);
    assert_eq!(code, Some(0));
    let s = &doc["strata"][0];
    assert_ne!(s["status"], "unsupported");
    assert!(s["time_s"].as_f64().unwrap() >= s["floor_s"].as_f64().unwrap());
    assert!(s["notes"].to_string().contains("GUESS"), "{s}");
}

#[test]
fn geometric_growth_is_refused_and_a_steady_rise_is_not() {
    let dir = tempfile::tempdir().unwrap();
    // Each unit costs 1.8 times the one before (iterative deepening), over a
    // probe too short for a holdout: geometric or linear cannot be told apart.
    std::fs::write(
        dir.path().join("t.csv"),
        timings(0.5, 8, &|k| 0.1 * 1.8f64.powi(k as i32)),
    )
    .unwrap();
    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(3), "{doc}");
    assert_eq!(doc["strata"][0]["status"], "unsupported");
    assert!(doc["strata"][0]["notes"].to_string().contains("geometric"));

    // A linear rise of 5% of the first unit's cost per unit, over a probe
    // long enough to test the forms' extrapolation, is a trend calib fits.
    std::fs::write(
        dir.path().join("t.csv"),
        timings(0.5, 12, &|k| 1.0 + 0.05 * k as f64),
    )
    .unwrap();
    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(0), "{doc}");
    assert_ne!(doc["strata"][0]["status"], "unsupported");
}

#[test]
fn geometric_growth_that_the_probe_shows_is_projected_geometrically() {
    let dir = tempfile::tempdir().unwrap();
    // 15 units, each 1.4 times the one before: long enough for the holdout to
    // rule out every polynomial form.
    let cost = |k: u64| 0.1 * 1.4f64.powi(k as i32);
    std::fs::write(dir.path().join("t.csv"), timings(0.5, 15, &cost)).unwrap();
    let fit = calib(dir.path(), &["fit", "t.csv", "-o", "m.json"]);
    assert_eq!(fit.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&fit.stderr).contains("geometric growth"),
        "{}",
        String::from_utf8_lossy(&fit.stderr)
    );
    let model: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("m.json")).unwrap()).unwrap();
    assert_eq!(model["strata"][0]["model"], "geometric", "{model}");

    // A run of 20 units: the slowest probe run's noise (+4%) on top of the
    // geometric continuation, which a linear extrapolation of the probe falls
    // far short of (the last five units cost more than the first fifteen).
    let truth = 1.04 * (0.5 + (1..=20).map(cost).sum::<f64>());
    let out = calib(
        dir.path(),
        &[
            "budget",
            "--model",
            "m.json",
            "--units",
            "20",
            "--partitions",
            "b1 3:00:00",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "ok", "{s}");
    let upper = s["upper_s"].as_f64().unwrap();
    assert!(upper >= truth, "upper {upper} < {truth}");
    assert!(upper < 3.0 * truth, "upper {upper} vs {truth}");
}

#[test]
fn a_probe_too_short_for_the_distance_is_refused_for_long_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), timings(1.0, 3, &|_| 1.0)).unwrap();
    // 3 units budgeting 200: refused, naming the probe that would settle it.
    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(3));
    let notes = doc["strata"][0]["notes"].to_string();
    assert!(notes.contains("calib probe --units 10"), "{notes}");
    // 3 units budgeting 10 (within 4x): given a time.
    let out = calib(
        dir.path(),
        &[
            "budget",
            "t.csv",
            "--units",
            "10",
            "--partitions",
            "b1 3:00:00",
            "-f",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The probe length a `probe the runs to at least K units` note names.
fn settle_units(notes: &str) -> u64 {
    let at = notes
        .find("probe the runs to at least ")
        .unwrap_or_else(|| panic!("no settling length in {notes}"));
    let rest = &notes[at + "probe the runs to at least ".len()..];
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn unit_costs_too_scattered_to_show_a_trend_are_refused_until_the_probe_length_it_names() {
    // Generations whose cost scatters by about 30% (as a genetic program's
    // do): 10 of them cannot rule out a rise that would double a 200-unit run.
    let scatter = |k: u64| [0.6, 1.4, 0.8, 1.2, 1.0, 1.5, 0.7][(k * 3 % 7) as usize];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), timings(2.0, 10, &scatter)).unwrap();

    let fit = calib(dir.path(), &["fit", "t.csv", "--units", "200"]);
    assert_eq!(fit.status.code(), Some(0));
    let warnings = String::from_utf8_lossy(&fit.stderr);
    assert!(warnings.contains("too small to see"), "{warnings}");

    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(3), "{doc}");
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "unsupported", "{s}");
    let needed = settle_units(&s["notes"].to_string());
    assert!(needed > 10 && needed < 200, "{needed}");

    // The same program probed to the length named: a time, no refusal.
    std::fs::write(dir.path().join("t.csv"), timings(2.0, needed, &scatter)).unwrap();
    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(0), "{doc}");
    assert_ne!(doc["strata"][0]["status"], "unsupported");

    // And the 10-unit probe of a program whose units agree to 2% is budgeted:
    // the refusal comes from the scatter, not from the distance alone.
    std::fs::write(dir.path().join("t.csv"), timings(2.0, 10, &|_| 1.0)).unwrap();
    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(0), "{doc}");
}

#[test]
fn a_takeoff_the_probe_cannot_continue_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A quadratic cost: its later units run far above every form fitted on
    // the early ones; a part that multiplies per unit and one that grows as a
    // power of the unit follow them alike, and part by orders of magnitude
    // at 200 units.
    let cost = |k: u64| 1.0 + 0.01 * (k * k) as f64;
    std::fs::write(dir.path().join("t.csv"), timings(2.0, 20, &cost)).unwrap();
    let fit = calib(dir.path(), &["fit", "t.csv", "--units", "200"]);
    assert_eq!(fit.status.code(), Some(0));
    let warnings = String::from_utf8_lossy(&fit.stderr);
    assert!(warnings.contains("power of the unit"), "{warnings}");

    let (code, doc) = budget_json(dir.path(), &[]);
    assert_eq!(code, Some(3));
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "unsupported", "{s}");
    assert!(s["time_s"].is_null(), "{s}");
    // The longer probe: 4 times the 20-unit probe (more than a quarter of 200).
    let notes = s["notes"].to_string();
    assert!(notes.contains("calib probe --units 80"), "{notes}");
}

/// The first `units` unit rows of a recorded run of the corpus (its end row
/// left out: a probe cut there), appended to `out`; the header once.
fn cut_trace(out: &mut String, program: &str, file_part: &str, units: u64) {
    let dir = common::repo_file(&format!("data/traces/{program}/full"));
    let path = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(file_part))
        .unwrap_or_else(|| panic!("no trace {file_part} in {}", dir.display()));
    let mut reader = csv::Reader::from_path(&path).unwrap();
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|c| c == name).unwrap();
    let (unit, end) = (at("unit"), at("end"));
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    if out.is_empty() {
        writer.write_record(&header).unwrap();
    }
    for record in reader.records() {
        let record = record.unwrap();
        let kept = record[end].is_empty() && record[unit].parse::<u64>().is_ok_and(|u| u <= units);
        if kept {
            writer.write_record(&record).unwrap();
        }
    }
    out.push_str(&String::from_utf8(writer.into_inner().unwrap()).unwrap());
}

fn budget_of(dir: &std::path::Path, csv: &str, units: &str) -> (Option<i32>, serde_json::Value) {
    std::fs::write(dir.join("t.csv"), csv).unwrap();
    budget_units(dir, units, &[])
}

#[test]
fn a_sat_solver_whose_first_units_hold_its_factor_loosely_is_refused_not_budgeted_as_a_power() {
    // MiniSat on growing instances, three recorded runs cut to their first
    // 10 of 18 units: the per-unit cost multiplies by about 1.5 per unit, from
    // a few milliseconds. The geometric form fitted on units 1-6 over-predicts
    // units 7-10 by 1.9x, a power law follows them; judged by the runs' noise
    // alone, geometric growth was ruled out and the power law budgeted the
    // 18-unit runs at half of what they took (5.1 s). Counting the early fits'
    // own uncertainty, the probe does not rule it out.
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::new();
    for run in ["p11330", "p12065", "p13220"] {
        cut_trace(&mut csv, "minisat", run, 10);
    }
    let (code, doc) = budget_of(dir.path(), &csv, "18");
    let s = &doc["strata"][0];
    assert_eq!(code, Some(3), "{doc}");
    assert_eq!(s["status"], "unsupported", "{s}");
    assert!(s["notes"].to_string().contains("geometric growth"), "{s}");
}

#[test]
fn a_rise_no_form_follows_past_a_doubling_is_refused_and_a_smaller_step_is_budgeted() {
    // Stockfish's iterative deepening, one recorded run cut to 12 depths and
    // two to 10 (the run-length probe): the first 8 depths log within the
    // same millisecond, the later ones take 10 times what every form fitted
    // on the early ones predicted. Carrying their current rate forward, calib
    // budgeted a 24-depth search at 0.15 of what it took.
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::new();
    for (run, units) in [("p4377", 12), ("p3723", 10), ("p3771", 10)] {
        cut_trace(&mut csv, "stockfish", run, units);
    }
    let (code, doc) = budget_of(dir.path(), &csv, "24");
    let s = &doc["strata"][0];
    assert_eq!(code, Some(3), "{doc}");
    assert_eq!(s["status"], "unsupported", "{s}");
    let notes = s["notes"].to_string();
    assert!(notes.contains("no form calib fits follows"), "{notes}");

    // A flat cost that steps up at unit 10 of 12: by 1.5 it is a change of
    // regime, budgeted at the runs' current rate with a warning; by 4 the
    // later units took more than twice every form's prediction.
    for (step, code_expected) in [(1.5, Some(0)), (4.0, Some(3))] {
        let csv = timings(2.0, 12, &|k| if k <= 9 { 1.0 } else { step });
        let (code, doc) = budget_of(dir.path(), &csv, "100");
        assert_eq!(code, code_expected, "step {step}: {doc}");
    }
}

/// A stratum the probe supports no bound for states no bend beside it: the
/// bend's note asks whether the bound covers it, and there is no bound. Real
/// probes (`data/validation-6/gpr/`, a Gaussian process refit on growing
/// data): at 20 points a unit the per-unit cost multiplies by about 1.35 a
/// unit, which the probe cannot tell from a fixed rise (unsupported); at 10
/// points a unit it is budgeted, with the bend it could not rule out.
#[test]
fn an_unsupported_stratum_states_no_bend_and_a_budgeted_one_does() {
    let dir = tempfile::tempdir().unwrap();
    let probe = common::repo_file("data/validation-6/gpr/probe");
    let model = dir.path().join("m.json");
    let fit = calib(
        dir.path(),
        &[
            "fit",
            probe.to_str().unwrap(),
            "--units",
            "30",
            "-o",
            model.to_str().unwrap(),
        ],
    );
    assert_eq!(fit.status.code(), Some(0));
    let warnings = String::from_utf8_lossy(&fit.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let stratum = |name: &str| {
        doc["strata"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["stratum"] == name)
            .unwrap()
            .clone()
    };
    let refused = stratum("batch=20");
    assert_eq!(refused["unsupported"]["reason"], "geometric", "{refused}");
    assert!(refused.get("convex_alternative").is_none(), "{refused}");
    let bend_warned = |name: &str| {
        warnings
            .lines()
            .any(|l| l.contains(&format!("{name}:")) && l.contains("bending upward"))
    };
    assert!(!bend_warned("batch=20"), "{warnings}");
    let budgeted = stratum("batch=10");
    assert!(budgeted["unsupported"].is_null(), "{budgeted}");
    assert!(budgeted.get("convex_alternative").is_some(), "{budgeted}");
    assert!(bend_warned("batch=10"), "{warnings}");
}
