//! calib-model.json as a checked boundary between `calib fit` and `calib budget`:
//! a file that breaks a rule is refused (exit 2) with the stratum and the field
//! named; `params` and `probe_runs` are what budget projects from; what fit
//! writes always loads and projects exactly as before it was written.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use calib::fit::{fit_timings, FitOptions};
use calib::model::ModelFile;
use calib::synth::{self, Cost, Rng, RunSpec};
use calib::timings::{read_timings, IngestOptions};
use common::{calib, stderr, stdout};
use proptest::prelude::*;
use serde_json::{json, Value};

const PARTITIONS: &str = "short 3:00:00\nlong 7-00:00:00\n";

fn run(dir: &Path, args: &[&str]) -> Output {
    calib()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the calib binary runs")
}

/// Three runs of 20 units at about 110 s per unit, 3% noise.
fn timings_csv() -> String {
    runs_csv(&[20, 20, 20])
}

/// Runs of the given lengths at about 110 s per unit, 3% noise.
fn runs_csv(lengths: &[u64]) -> String {
    let mut csv = synth::HEADER.to_string();
    let mut rng = Rng::new(7);
    for (k, &units) in lengths.iter().enumerate() {
        let spec = RunSpec {
            run: format!("r{k}"),
            stratum: "d=a".into(),
            units,
            startup_s: 5.0,
            cost: Cost::Constant { a: 110.0 },
            level: 1.0 + 0.05 * k as f64,
            noise_cv: 0.03,
            cluster: "c".into(),
            cpu_model: "m".into(),
        };
        synth::write_unit_rows(&mut csv, &spec, &mut rng);
    }
    csv
}

/// `calib fit -o` on `csv`: the model file's JSON.
fn fitted(dir: &Path, csv: &str) -> Value {
    let timings = dir.join("t.csv");
    std::fs::write(&timings, csv).unwrap();
    let model = dir.join("calib-model.json");
    let out = run(
        dir,
        &[
            "fit",
            timings.to_str().unwrap(),
            "-o",
            model.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&std::fs::read_to_string(model).unwrap()).unwrap()
}

fn write_model(dir: &Path, name: &str, doc: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    path
}

fn budget(dir: &Path, model: &Path) -> Output {
    budget_with(dir, model, &[])
}

/// `calib budget` of a 100-unit run as JSON, with `flags` added.
fn budget_with(dir: &Path, model: &Path, flags: &[&str]) -> Output {
    std::fs::write(dir.join("partitions.txt"), PARTITIONS).unwrap();
    let mut args = vec![
        "budget",
        "--model",
        model.to_str().unwrap(),
        "--units",
        "100",
        "--partitions",
        "@partitions.txt",
        "--format",
        "json",
    ];
    args.extend_from_slice(flags);
    run(dir, &args)
}

/// Applies `edit` to a freshly fitted model and expects budget to refuse it
/// (exit 2, nothing on stdout) with a message holding every `needle`.
fn refused(name: &str, edit: impl FnOnce(&mut Value), needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    edit(&mut doc);
    let path = write_model(dir.path(), name, &doc);
    let out = budget(dir.path(), &path);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{name}: {err}");
    assert!(out.stdout.is_empty(), "{name}: {}", stdout(&out));
    for needle in [name].iter().chain(needles) {
        assert!(err.contains(needle), "{name}: `{needle}` not in: {err}");
    }
}

#[test]
fn a_scale_of_zero_or_less_is_refused_naming_the_run() {
    refused(
        "negative-scale.json",
        |doc| doc["strata"][0]["probe_runs"][1]["scale"] = json!(-2.0),
        &["stratum `d=a`", "probe_runs[1].scale", "-2", "above 0"],
    );
}

#[test]
fn an_exponent_beyond_cubic_is_refused() {
    refused(
        "steep.json",
        |doc| doc["strata"][0]["params"]["exponent"] = json!(4.5),
        &["params.exponent", "4.5", "from 0 to 3"],
    );
}

#[test]
fn a_startup_longer_than_the_run_is_refused() {
    refused(
        "startup.json",
        |doc| {
            let run = &mut doc["strata"][0]["probe_runs"][0];
            run["startup_s"] = json!(run["elapsed_s"].as_f64().unwrap() + 1.0);
        },
        &["probe_runs[0].startup_s", "at most its time"],
    );
}

#[test]
fn no_signal_beside_a_centre_is_refused() {
    refused(
        "both.json",
        |doc| doc["strata"][0]["unsupported"] = json!({"reason": "one_unit"}),
        &["`unsupported`", "no `probe_runs`"],
    );
}

#[test]
fn a_file_of_the_first_schema_is_refused_with_advice_to_refit() {
    refused(
        "schema-1.json",
        |doc| doc["schema"] = json!(1),
        &["`schema` is 1", "calib fit -o"],
    );
}

#[test]
fn an_unknown_shape_or_parameter_is_refused() {
    refused(
        "unknown-form.json",
        |doc| doc["strata"][0]["model"] = json!("quadratic"),
        &["`model`", "quadratic", "`power` or `linear`"],
    );
    refused(
        "unknown-param.json",
        |doc| doc["strata"][0]["params"]["c"] = json!(1.0),
        &["`params`", "c, exponent", "expected exactly exponent"],
    );
}

#[test]
fn a_duplicated_stratum_is_refused() {
    refused(
        "duplicate.json",
        |doc| {
            let first = doc["strata"][0].clone();
            doc["strata"].as_array_mut().unwrap().push(first);
        },
        &["strata[1] repeats stratum `d=a` of strata[0]"],
    );
}

#[test]
fn a_file_of_a_newer_schema_is_refused_with_advice_to_upgrade() {
    refused(
        "future.json",
        |doc| {
            doc["schema"] = json!(3);
            doc["calib_version"] = json!("9.0.0");
            // A newer layout need not parse as this one.
            doc["strata"][0]["params"] = json!("see v2 docs");
        },
        &["`schema` is 3", "newer calib", "upgrade calib"],
    );
}

#[test]
fn a_file_without_a_schema_is_refused_with_advice_to_refit() {
    refused(
        "unversioned.json",
        |doc| {
            doc.as_object_mut().unwrap().remove("schema");
        },
        &["no `schema` field", "calib fit -o"],
    );
}

#[test]
fn a_stratum_not_in_canonical_form_is_refused() {
    refused(
        "unsorted.json",
        |doc| doc["strata"][0]["stratum"] = json!("x=1,d=a"),
        &["`stratum`", "expected `d=a,x=1`"],
    );
    refused(
        "not-labels.json",
        |doc| doc["strata"][0]["stratum"] = json!("dataset"),
        &["`stratum`", "not a stratum"],
    );
}

#[test]
fn a_field_of_the_wrong_type_is_named_with_its_stratum() {
    refused(
        "negative-runs.json",
        |doc| doc["strata"][0]["runs"] = json!(-3),
        &["strata[0] (stratum `d=a`)", "`runs`", "-3"],
    );
}

/// budget's `predicted_s` for the model in `path`.
fn predicted(dir: &Path, path: &Path) -> (f64, f64) {
    let out = budget(dir, path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["strata"][0];
    (
        s["predicted_s"].as_f64().unwrap(),
        s["floor_s"].as_f64().unwrap(),
    )
}

#[test]
fn budget_projects_from_the_runs_the_file_states() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    let path = write_model(dir.path(), "fitted.json", &doc);
    let (predicted_1, floor_1) = predicted(dir.path(), &path);
    // Every run twice as long and twice as costly per unit: twice the
    // projection, the factor unchanged.
    for run in doc["strata"][0]["probe_runs"].as_array_mut().unwrap() {
        for field in ["elapsed_s", "scale", "startup_s"] {
            run[field] = json!(2.0 * run[field].as_f64().unwrap());
        }
    }
    let path = write_model(dir.path(), "doubled.json", &doc);
    let (predicted_2, floor_2) = predicted(dir.path(), &path);
    assert!(predicted_1 > 100.0 * 110.0 * 0.9, "{predicted_1}");
    approx::assert_relative_eq!(predicted_2, 2.0 * predicted_1, max_relative = 1e-6);
    approx::assert_relative_eq!(floor_2, 2.0 * floor_1, max_relative = 1e-6);
}

/// Three runs of 40 units whose cost rises, so that the centre's exponent
/// is above 0.
fn rising_csv() -> String {
    let mut csv = synth::HEADER.to_string();
    for run in 0..3u64 {
        let mut t = 2.0;
        for unit in 1..=40u64 {
            t += (1.0 + 0.05 * unit as f64) * (1.0 + 0.02 * ((run + unit) % 3) as f64);
            csv.push_str(&format!("r{run},d=a,{unit},{t:.4},c,m\n"));
        }
    }
    csv
}

// ---------------------------------------------------------------------------
// Round trip: fit, write, load, identical projections.

/// Per-unit durations of one run of `units` units, by kind: the fitted forms,
/// shapes no form fits (a step, a drop to nothing, spikes, a sawtooth), and a
/// cost that takes off (the onset form's, for 80 units).
fn durations(kind: u8, units: u64, scale: f64, rng: &mut Rng) -> Vec<f64> {
    (1..=units)
        .map(|i| {
            let x = i as f64;
            let base = match kind % 7 {
                0 => scale,
                1 => scale * (1.0 + 0.02 * x),
                2 => {
                    if i <= units / 2 {
                        scale
                    } else {
                        4.0 * scale
                    }
                }
                3 => (scale * (1.0 - x / (0.6 * units as f64))).max(0.0),
                4 => {
                    if i % 7 == 0 {
                        30.0 * scale
                    } else {
                        scale
                    }
                }
                5 => scale * (1.0 + (i % 5) as f64),
                // Levels off at unit 80, where the durations stay readable.
                _ => scale * (1.0 + 0.02 * (0.1 * x.min(80.0)).exp()),
            };
            base * (1.0 + 0.1 * rng.normal()).max(0.0)
        })
        .collect()
}

fn csv_of(
    kind: u8,
    runs: usize,
    units: u64,
    scale: f64,
    startup: f64,
    run_length: bool,
    seed: u64,
) -> String {
    let mut csv = synth::HEADER.to_string();
    let mut rng = Rng::new(seed);
    for k in 0..runs {
        // Run-length rows: each run at its own length, one row.
        let length = if run_length {
            units * (k as u64 + 1)
        } else {
            units
        };
        let mut t = startup;
        let d = durations(kind, length, scale, &mut rng);
        for (i, dt) in d.iter().enumerate() {
            t += dt;
            if !run_length || i + 1 == d.len() {
                csv.push_str(&format!("r{k},\"d=a\",{},{t:.3},c,m\n", i + 1));
            }
        }
    }
    csv
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn what_fit_writes_loads_and_projects_identically(
        kind in 0u8..7,
        runs in 1usize..5,
        units in 1u64..80,
        scale in prop_oneof![Just(1e-3), 0.01f64..1000.0],
        startup in prop_oneof![Just(0.0), 0.0f64..500.0],
        run_length in any::<bool>(),
        seed in any::<u64>(),
        confidence in 0.6f64..0.999,
    ) {
        let csv = csv_of(kind, runs, units, scale, startup, run_length, seed);
        let dir = tempfile::tempdir().unwrap();
        let timings_path = dir.path().join("t.csv");
        std::fs::write(&timings_path, &csv).unwrap();
        let timings = read_timings(&[timings_path], &IngestOptions::default()).unwrap();
        // Data no form can describe may be refused (exit 2); never written unloadable.
        let report = match fit_timings(&timings, &FitOptions::default()) {
            Ok(report) => report,
            Err(e) => {
                prop_assert_eq!(e.exit_code(), 2, "{}", e);
                return Ok(());
            }
        };
        let path = dir.path().join("calib-model.json");
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(report.model.to_json().unwrap().as_bytes()).unwrap();
        let loaded = ModelFile::load(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&loaded, &report.model);
        let table = calib::calibrate::Table::shipped().unwrap();
        for (a, b) in report.model.strata.iter().zip(&loaded.strata) {
            for n in [1, 2, units, units + 1, 10 * units, 1000 * units] {
                prop_assert_eq!(a.project(n, confidence, &table), b.project(n, confidence, &table));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Hand edits of any number: refused, or loaded and projecting finite times.

/// Every numeric leaf of `doc`, as JSON pointers.
fn numeric_leaves(doc: &Value, at: String, out: &mut Vec<String>) {
    match doc {
        Value::Number(_) => out.push(at),
        Value::Array(items) => {
            for (k, v) in items.iter().enumerate() {
                numeric_leaves(v, format!("{at}/{k}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                numeric_leaves(v, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

fn fitted_in_process(csv: &str) -> ModelFile {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(&path, csv).unwrap();
    let timings = read_timings(&[path], &IngestOptions::default()).unwrap();
    fit_timings(&timings, &FitOptions::default()).unwrap().model
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_edited_number_is_refused_or_projects_finite_times(
        pick in any::<prop::sample::Index>(),
        value in prop_oneof![
            Just(0.0), Just(-1.0), Just(1e300), Just(-1e300), Just(1e-300),
            -1e6f64..1e6, -10.0f64..10.0,
        ],
        rising in any::<bool>(),
    ) {
        let model = fitted_in_process(&if rising { rising_csv() } else { timings_csv() });
        let mut doc: Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
        let mut leaves = Vec::new();
        numeric_leaves(&doc, String::new(), &mut leaves);
        let at = pick.get(&leaves).clone();
        *doc.pointer_mut(&at).unwrap() = json!(value);
        let dir = tempfile::tempdir().unwrap();
        let path = write_model(dir.path(), "edited.json", &doc);
        if let Ok(loaded) = ModelFile::load(&path) {
            let table = calib::calibrate::Table::shipped().unwrap();
            for s in &loaded.strata {
                let h = s.probe_units();
                for n in [1, h, 10 * h] {
                    let p = s.project(n, 0.99, &table);
                    for v in [p.predicted_s, p.floor_s, p.upper_s] {
                        prop_assert!(v.is_finite() && v >= 0.0, "{at} = {value}: N={n}: {p:?}");
                    }
                }
            }
        }
    }
}

/// Every object key of `doc`, as (pointer to the object, key).
fn keys(doc: &Value, at: String, out: &mut Vec<(String, String)>) {
    match doc {
        Value::Array(items) => {
            for (k, v) in items.iter().enumerate() {
                keys(v, format!("{at}/{k}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                out.push((at.clone(), k.clone()));
                keys(v, format!("{at}/{k}"), out);
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A key removed or its value replaced by another JSON type: never a panic,
    /// and a refusal is an input error (exit 2).
    #[test]
    fn any_structural_edit_is_refused_or_loads(
        pick in any::<prop::sample::Index>(),
        replacement in prop_oneof![
            Just(None), Just(Some(json!(null))), Just(Some(json!("text"))),
            Just(Some(json!([]))), Just(Some(json!({}))), Just(Some(json!(true))),
            Just(Some(json!(u64::MAX))), Just(Some(json!(-1))),
        ],
        rising in any::<bool>(),
    ) {
        let model = fitted_in_process(&if rising { rising_csv() } else { timings_csv() });
        let mut doc: Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
        let mut all = Vec::new();
        keys(&doc, String::new(), &mut all);
        let (parent, key) = pick.get(&all).clone();
        let object = doc.pointer_mut(&parent).unwrap().as_object_mut().unwrap();
        match replacement {
            None => { object.remove(&key); }
            Some(v) => { object.insert(key.clone(), v); }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = write_model(dir.path(), "edited.json", &doc);
        if let Err(e) = ModelFile::load(&path) {
            prop_assert_eq!(e.exit_code(), 2, "{}/{}: {}", parent, key, e);
            prop_assert!(e.to_string().contains("edited.json"), "{}", e);
        }
    }
}
