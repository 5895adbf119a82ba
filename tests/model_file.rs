//! calib-model.json as a checked boundary between `calib fit` and `calib budget`:
//! a file that breaks a rule is refused (exit 2) with the stratum and the field
//! named; `params` are what budget projects from; what fit writes always loads
//! and projects exactly as before it was written.

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
fn a_negative_per_unit_cost_is_refused_naming_params() {
    // Whatever form was chosen, a = -110 and b = 0 give c(i) = -110 s.
    refused(
        "negative-cost.json",
        |doc| {
            let params = &mut doc["strata"][0]["params"];
            params["a"] = json!(-110.0);
            if params.get("b").is_some() {
                params["b"] = json!(0.0);
            }
        },
        &[
            "stratum `d=a`",
            "params",
            "-110",
            "expected a positive cost",
        ],
    );
}

#[test]
fn a_negative_cost_in_an_alternative_form_is_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    let doc = fitted(dir.path(), &timings_csv());
    let alternatives = doc["strata"][0]["alternatives"].as_array().unwrap();
    assert!(
        !alternatives.is_empty(),
        "the fixture keeps another form plausible"
    );
    refused(
        "negative-alternative.json",
        |doc| {
            let params = &mut doc["strata"][0]["alternatives"][0]["params"];
            params["a"] = json!(-110.0);
            if params.get("b").is_some() {
                params["b"] = json!(0.0);
            }
        },
        &["alternatives[0].params", "-110"],
    );
}

#[test]
fn a_negative_startup_is_refused() {
    refused(
        "negative-startup.json",
        |doc| doc["strata"][0]["params"]["startup_s"] = json!(-50.0),
        &["`params.startup_s`", "-50"],
    );
}

#[test]
fn a_negative_spread_is_refused() {
    refused(
        "negative-spread.json",
        |doc| doc["strata"][0]["spread"]["sd"] = json!(-0.5),
        &["`spread.sd`", "-0.5"],
    );
}

/// A log-sd past a factor of 10^6 is no measurement: refused naming the
/// field, rather than a bound clamped where the file said otherwise.
#[test]
fn an_absurd_spread_is_refused() {
    for field in ["sd", "rate_sd", "prior_sd"] {
        refused(
            "absurd-spread.json",
            |doc| doc["strata"][0]["spread"][field] = json!(50.0),
            &[&format!("`spread.{field}`"), "50", "from 0 to 13.8"],
        );
    }
}

#[test]
fn runs_at_the_horizon_are_stated_where_one_run_went_further_and_counted_on_load() {
    let dir = tempfile::tempdir().unwrap();
    // Equal runs: every run reached the horizon, and the file says nothing.
    let equal = fitted(dir.path(), &timings_csv());
    assert!(equal["strata"][0]["spread"]
        .get("runs_at_horizon")
        .is_none());
    // One run of three taken to 60 units: the curve beyond unit 20 is its own.
    let mut doc = fitted(dir.path(), &runs_csv(&[20, 20, 60]));
    assert_eq!(doc["strata"][0]["spread"]["runs_at_horizon"], json!(1));
    let budgeted = |dir: &Path, doc: &Value, name: &str| {
        let out = budget(dir, &write_model(dir, name, doc));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["strata"][0].clone()
    };
    let upper =
        |dir: &Path, doc: &Value, name: &str| budgeted(dir, doc, name)["upper_s"].as_f64().unwrap();
    let notes = budgeted(dir.path(), &doc, "one.json")["notes"].to_string();
    assert!(notes.contains("1 of 3 runs reached"), "{notes}");
    let one = upper(dir.path(), &doc, "one.json");
    // Without the field, the file means every run reached the horizon: the
    // centre is known as well as three runs make it, and the bound narrows.
    doc["strata"][0]["spread"]
        .as_object_mut()
        .unwrap()
        .remove("runs_at_horizon");
    let three = upper(dir.path(), &doc, "three.json");
    assert!(one > three, "{one} <= {three}");
}

#[test]
fn the_trend_resolution_on_file_widens_a_flat_stratum_s_bound_beyond_the_probe() {
    let dir = tempfile::tempdir().unwrap();
    // Flat 20-unit probes: the constant form carries the stratum, and the
    // probe's scatter leaves its slope known to a standard error.
    let mut doc = fitted(dir.path(), &timings_csv());
    assert_eq!(doc["strata"][0]["model"], json!("constant"));
    assert!(doc["strata"][0]["resolution"].is_object(), "{doc}");
    let stratum = |dir: &Path, doc: &Value, name: &str| {
        let out = budget(dir, &write_model(dir, name, doc));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["strata"][0].clone()
    };
    let measured = stratum(dir.path(), &doc, "measured.json");
    let notes = measured["notes"].to_string();
    assert!(notes.contains("so it knows the slope to"), "{notes}");
    // Twice the scatter on file: twice the slope's standard error, a wider
    // bound; without the field, the slope is taken as known.
    let noise = doc["strata"][0]["resolution"]["unit_noise"]
        .as_f64()
        .unwrap();
    doc["strata"][0]["resolution"]["unit_noise"] = json!(2.0 * noise);
    let wider = stratum(dir.path(), &doc, "wider.json");
    doc["strata"][0]
        .as_object_mut()
        .unwrap()
        .remove("resolution");
    let unmeasured = stratum(dir.path(), &doc, "unmeasured.json");
    let upper = |s: &Value| s["upper_s"].as_f64().unwrap();
    assert!(upper(&wider) > upper(&measured), "{wider} <= {measured}");
    assert!(
        upper(&measured) > upper(&unmeasured),
        "{measured} <= {unmeasured}"
    );
    assert!(!unmeasured["notes"]
        .to_string()
        .contains("so it knows the slope to"));
}

#[test]
fn runs_at_the_horizon_outside_one_to_the_runs_are_refused() {
    for (name, value) in [("horizon-runs-zero.json", 0), ("horizon-runs-four.json", 4)] {
        refused(
            name,
            |doc| doc["strata"][0]["spread"]["runs_at_horizon"] = json!(value),
            &["`spread.runs_at_horizon`", "from 1 to the runs"],
        );
    }
}

#[test]
fn a_measured_form_error_outside_its_range_is_refused() {
    for (name, value) in [
        ("form-error-negative.json", -0.1),
        ("form-error-huge.json", 1e6),
    ] {
        refused(
            name,
            |doc| doc["strata"][0]["form_error"] = json!(value),
            &[
                "`form_error`",
                "the log-sd the probe's own holdout measured",
            ],
        );
    }
}

#[test]
fn an_unsupported_record_states_finite_figures_of_0_or_more() {
    // A rise that goes on states two figures; each is checked, by its name.
    for (field, excess, rise) in [("rise_per_unit", 0.2, -0.01), ("excess", -0.2, 0.01)] {
        refused(
            &format!("rise-{field}.json"),
            |doc| {
                doc["strata"][0]["unsupported"] =
                    json!({"reason": "rise_goes_on", "excess": excess, "rise_per_unit": rise})
            },
            &[
                &format!("`unsupported.{field}`"),
                "expected a finite number",
            ],
        );
    }
    // Stated as the fit states it, the stratum gets no time, and the note
    // names the rise per unit.
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    doc["strata"][0]["unsupported"] =
        json!({"reason": "rise_goes_on", "excess": 0.2, "rise_per_unit": 0.015});
    let path = write_model(dir.path(), "rise.json", &doc);
    let out = budget(dir.path(), &path);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("1.5% per unit"), "{text}");
}

/// A refusal decided per request (`--refuse-bend`, a probe too short for the
/// distance) is never a model file's own: stated there, the file is refused,
/// naming the field.
#[test]
fn a_refusal_decided_per_request_is_refused_on_file() {
    for (name, unsupported) in [
        (
            "bend.json",
            json!({"reason": "bend_beyond_bound", "convex_s": 200.0, "upper_s": 100.0}),
        ),
        (
            "short.json",
            json!({"reason": "probe_too_short", "probe_units": 3}),
        ),
    ] {
        refused(
            name,
            |doc| doc["strata"][0]["unsupported"] = unsupported,
            &["`unsupported.reason`", "decided per request"],
        );
    }
}

/// `calib budget --refuse-bend` gives no time where the bend the probe could
/// not rule out would take longer than the bound (status unsupported, exit 3,
/// the longer probe named), and the bound where the bound covers it; without
/// the flag both get a time.
#[test]
fn refuse_bend_gives_no_time_where_the_bend_exceeds_the_bound_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    let budgeted = |doc: &Value, name: &str, flags: &[&str]| -> (Option<i32>, Value) {
        let out = budget_with(dir.path(), &write_model(dir.path(), name, doc), flags);
        let v: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        (out.status.code(), v["strata"][0].clone())
    };
    // The bound covers 0.01 i^2 on 110 s a unit, not 1.0 i^2 (see the test above).
    for (h, covered) in [(0.01, true), (1.0, false)] {
        doc["strata"][0]["convex_alternative"] =
            json!({"params": {"startup_s": 0.0, "a": 110.0, "b": 2.0, "h": h}});
        let name = format!("h-{h}.json");
        let (code, noted) = budgeted(&doc, &name, &[]);
        assert_eq!((code, noted["status"].as_str()), (Some(0), Some("ok")));
        let (code, refused) = budgeted(&doc, &name, &["--refuse-bend"]);
        let notes = refused["notes"].to_string();
        if covered {
            assert_eq!(code, Some(0), "{notes}");
            assert_eq!(refused["time"], noted["time"], "{notes}");
        } else {
            assert_eq!(code, Some(3), "{notes}");
            assert_eq!(refused["status"], "unsupported", "{notes}");
            assert!(refused["time"].is_null(), "{refused}");
            assert!(notes.contains("--refuse-bend"), "{notes}");
            // The probe that settles it is named, once: by the bend's note.
            assert_eq!(notes.matches("calib probe --units").count(), 1, "{notes}");
            // The refusal is where the bend's figure exceeds the bound.
            let convex_s = refused["convex_s"].as_f64().unwrap();
            let upper_s = refused["upper_s"].as_f64().unwrap();
            assert!(convex_s > upper_s, "{convex_s} {upper_s}");
        }
    }
}

#[test]
fn a_negative_extrapolation_allowance_is_refused() {
    refused(
        "negative-kappa.json",
        |doc| doc["strata"][0]["extrapolation_kappa"] = json!(-0.05),
        &["`extrapolation_kappa`", "-0.05"],
    );
}

#[test]
fn zero_or_negative_degrees_of_freedom_are_refused() {
    refused(
        "spread-df-zero.json",
        |doc| doc["strata"][0]["spread"]["df"] = json!(0.0),
        &["`spread.df`", "is 0"],
    );
    refused(
        "fit-df-negative.json",
        |doc| doc["strata"][0]["fit"]["df"] = json!(-3.0),
        &["`fit.df`", "-3"],
    );
}

#[test]
fn a_horizon_of_zero_units_is_refused() {
    refused(
        "horizon-zero.json",
        |doc| doc["strata"][0]["probe_units"] = json!(0),
        &["`probe_units`", "is 0"],
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
            doc["schema"] = json!(2);
            doc["calib_version"] = json!("9.0.0");
            // A newer layout need not parse as this one.
            doc["strata"][0]["params"] = json!("see v2 docs");
        },
        &["`schema` is 2", "newer calib", "upgrade calib"],
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
fn an_unknown_form_or_parameter_is_refused() {
    refused(
        "unknown-form.json",
        |doc| doc["strata"][0]["model"] = json!("quadratic"),
        &["`model`", "quadratic", "constant, linear, log, power"],
    );
    refused(
        "unknown-param.json",
        |doc| doc["strata"][0]["params"]["c"] = json!(1.0),
        &["`params.c`", "not a parameter"],
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
fn budget_projects_from_the_params_the_file_states() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    let path = write_model(dir.path(), "fitted.json", &doc);
    let (predicted_1, floor_1) = predicted(dir.path(), &path);
    // Twice the startup and twice every unit's cost, in the chosen form and in
    // every alternative (the projection averages them): c(i) doubles for each
    // form when a doubles, and b too for the additive forms.
    let double = |curve: &mut serde_json::Value| {
        let model = curve["model"].as_str().unwrap().to_string();
        let params = curve["params"].as_object_mut().unwrap();
        let scaled: Vec<&str> = match model.as_str() {
            "linear" | "log" => vec!["startup_s", "a", "b"],
            _ => vec!["startup_s", "a"],
        };
        for name in scaled {
            let v = params[name].as_f64().unwrap();
            params[name] = json!(2.0 * v);
        }
    };
    double(&mut doc["strata"][0]);
    for k in 0..doc["strata"][0]["alternatives"].as_array().unwrap().len() {
        double(&mut doc["strata"][0]["alternatives"][k]);
    }
    let path = write_model(dir.path(), "doubled.json", &doc);
    let (predicted_2, floor_2) = predicted(dir.path(), &path);
    assert!(predicted_1 > 100.0 * 110.0 * 0.9, "{predicted_1}");
    approx::assert_relative_eq!(predicted_2, 2.0 * predicted_1, max_relative = 1e-6);
    approx::assert_relative_eq!(floor_2, 2.0 * floor_1, max_relative = 1e-6);
}

#[test]
fn a_model_with_an_unscorable_form_is_written_and_read_back() {
    // Per-unit cost falls 12, 11, ..., 1 s over the first 12 units (the early
    // part the holdout fits), then jumps to 8 s: the linear fit of the early
    // part predicts negative durations for the rest, so its score is infinite,
    // while the linear fit of all the units stays a candidate.
    let mut csv = synth::HEADER.to_string();
    for run in ["r1", "r2"] {
        let mut t = 3.0;
        for unit in 1..=20u64 {
            t += if unit <= 12 { 13.0 - unit as f64 } else { 8.0 };
            csv.push_str(&format!("{run},d=a,{unit},{t:.3},c,m\n"));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let doc = fitted(dir.path(), &csv);
    let scores = doc["strata"][0]["selection"]["scores"].as_array().unwrap();
    assert!(
        scores.iter().any(|s| s["score"].is_null()),
        "the fixture has an unscorable form: {scores:?}"
    );
    let out = budget(dir.path(), &dir.path().join("calib-model.json"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// 3 runs of 40 units whose cost takes off: 1 + 0.02 e^{0.15 i} seconds.
fn onset_csv() -> String {
    let mut csv = synth::HEADER.to_string();
    for run in 0..3u64 {
        let mut t = 2.0;
        for unit in 1..=40u64 {
            let cost = 1.0 + 0.02 * (0.15 * unit as f64).exp();
            t += cost * (1.0 + 0.02 * ((run + unit) % 3) as f64);
            csv.push_str(&format!("r{run},d=a,{unit},{t:.4},c,m\n"));
        }
    }
    csv
}

#[test]
fn an_onset_model_states_four_parameters_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let doc = fitted(dir.path(), &onset_csv());
    let stratum = &doc["strata"][0];
    let onset = std::iter::once(stratum)
        .chain(stratum["alternatives"].as_array().unwrap())
        .find(|c| c["model"] == "onset")
        .unwrap_or_else(|| panic!("no onset form: {stratum}"));
    let names: Vec<&String> = onset["params"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["a", "b", "h", "startup_s"], "{onset}");
    let covariance = onset["fit"]["covariance"].as_array().unwrap();
    assert_eq!(covariance.len(), 4);
    assert!(covariance
        .iter()
        .all(|row| row.as_array().unwrap().len() == 4));

    let path = dir.path().join("calib-model.json");
    let loaded = ModelFile::load(&path).unwrap();
    let again = dir.path().join("again.json");
    std::fs::write(&again, loaded.to_json().unwrap()).unwrap();
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&path).unwrap()
    );
    let out = budget(dir.path(), &path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // h belongs to the onset alone.
    refused(
        "h-on-constant.json",
        |doc| doc["strata"][0]["params"]["h"] = json!(0.5),
        &["`params.h`", "not a parameter"],
    );
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
        for (a, b) in report.model.strata.iter().zip(&loaded.strata) {
            for n in [1, 2, units, units + 1, 10 * units, 1000 * units] {
                prop_assert_eq!(a.project(n, confidence), b.project(n, confidence));
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
        onset in any::<bool>(),
    ) {
        let model = fitted_in_process(&if onset { onset_csv() } else { timings_csv() });
        let mut doc: Value = serde_json::from_str(&model.to_json().unwrap()).unwrap();
        let mut leaves = Vec::new();
        numeric_leaves(&doc, String::new(), &mut leaves);
        let at = pick.get(&leaves).clone();
        *doc.pointer_mut(&at).unwrap() = json!(value);
        let dir = tempfile::tempdir().unwrap();
        let path = write_model(dir.path(), "edited.json", &doc);
        if let Ok(loaded) = ModelFile::load(&path) {
            for s in &loaded.strata {
                let h = s.projection.probe_units;
                for n in [1, h, 10 * h] {
                    let p = s.project(n, 0.99);
                    for v in [p.predicted_s, p.floor_s, p.upper_s] {
                        prop_assert!(v.is_finite() && v > 0.0, "{at} = {value}: N={n}: {p:?}");
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
        onset in any::<bool>(),
    ) {
        let model = fitted_in_process(&if onset { onset_csv() } else { timings_csv() });
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

#[test]
fn absurd_figures_on_file_print_as_short_numbers() {
    // A hand-edited file may hold finite figures no probe measures: a unit
    // noise of 1e300 and spreads at the largest log-sd a file may state.
    // Budget refuses the stratum (no bound holds) and, with --allow-guess,
    // prints its guess; neither the refusal nor the notes may spell those
    // figures out in 300 digits.
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    let s = &mut doc["strata"][0];
    s["resolution"]["unit_noise"] = json!(1e300);
    s["spread"]["sd"] = json!(13.8);
    s["spread"]["rate_sd"] = json!(13.8);
    let path = write_model(dir.path(), "absurd.json", &doc);
    std::fs::write(dir.path().join("partitions.txt"), PARTITIONS).unwrap();
    let out = run(
        dir.path(),
        &[
            "budget",
            "--model",
            path.to_str().unwrap(),
            "--units",
            "100",
            "--partitions",
            "@partitions.txt",
            "--allow-guess",
            "--format",
            "json",
        ],
    );
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{err}");
    let notes = serde_json::from_str::<Value>(&text).unwrap()["strata"][0]["notes"].to_string();
    assert!(notes.contains("unsupported"), "{notes}");
    assert!(notes.contains("e302%"), "{notes}");
    let longest_digits = notes
        .split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(
        longest_digits <= 12,
        "{longest_digits} digits in a row: {notes}"
    );
}

/// A convex alternative on file is checked as every curve is, and the note
/// budget gives follows its numbers: the form's own sum at the runs' mean
/// level, beside the bound.
#[test]
fn a_convex_alternative_on_file_is_checked_and_its_note_follows_its_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = fitted(dir.path(), &timings_csv());
    assert!(
        doc["strata"][0].get("convex_alternative").is_none(),
        "{doc}"
    );
    // The note, the figure in the JSON, and the warning after the table.
    let budgeted = |doc: &Value, name: &str| -> (String, Option<f64>, String) {
        let out = budget(dir.path(), &write_model(dir.path(), name, doc));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let note = v["strata"][0]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .find(|n| n.contains("bending upward"))
            .unwrap_or_default()
            .to_string();
        (note, v["strata"][0]["convex_s"].as_f64(), stderr(&out))
    };
    let (note, convex_s, err) = budgeted(&doc, "none.json");
    assert_eq!((note.as_str(), convex_s), ("", None));
    assert!(!err.contains("bending upward"), "{err}");
    // 110 s a unit and 0.01 s x i^2: 11,000 s + 3,383.5 s over 100 units,
    // at the runs' mean level, which the curve's own level already is.
    doc["strata"][0]["convex_alternative"] =
        json!({"params": {"startup_s": 0.0, "a": 110.0, "b": 2.0, "h": 0.01}});
    let (small, small_s, err) = budgeted(&doc, "small.json");
    assert!(small.contains("the bound covers it"), "{small}");
    let small_s = small_s.expect("convex_s");
    assert!(
        (small_s / 14_383.5 - 1.0).abs() < 0.03,
        "{small_s} for 14,383.5 s"
    );
    assert!(
        err.contains("could not rule out a cost bending upward"),
        "{err}"
    );
    assert!(err.contains("d=a"), "{err}");
    doc["strata"][0]["convex_alternative"]["params"]["h"] = json!(1.0);
    let (large, large_s, _) = budgeted(&doc, "large.json");
    assert!(large.contains("which does not cover it"), "{large}");
    assert!(large.contains("calib probe --units"), "{large}");
    // 11,000 s + 338,350 s: the figure follows the numbers on file.
    assert!(large_s.expect("convex_s") > 20.0 * small_s, "{large_s:?}");
    for (name, field, value, needle) in [
        (
            "convex-h-negative.json",
            "h",
            -0.01,
            "convex_alternative.params.h",
        ),
        (
            "convex-b-five.json",
            "b",
            5.0,
            "convex_alternative.params.b",
        ),
    ] {
        refused(
            name,
            |doc| {
                doc["strata"][0]["convex_alternative"] =
                    json!({"params": {"startup_s": 0.0, "a": 110.0, "b": 2.0, "h": 0.01}});
                doc["strata"][0]["convex_alternative"]["params"][field] = json!(value);
            },
            &[needle],
        );
    }
}
