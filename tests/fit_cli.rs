//! `calib fit` end to end: ingestion errors (file, line, exit 2), torn lines,
//! foreign tables, stdin, folders, the model file, JSON and plots.

mod common;

use std::os::unix::fs::FileTypeExt;
use std::process::Output;

use calib::synth;
use common::{example_folder, output_with_stdin, run_help_examples, stderr, stdout, write_arg};

fn calib(args: &[&str]) -> Output {
    common::calib().args(args).output().unwrap()
}

const GOOD: &str = "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,20\nr1,d=a,3,30\n";

fn expect_input_error(content: &str, line: u64, needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "t.csv", content);
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("t.csv, line {line}")), "{err}");
    assert!(err.contains(needle), "{err}");
}

#[test]
fn missing_column_is_named() {
    expect_input_error("run,stratum,unit\nr1,d=a,1\n", 1, "`elapsed_s`");
}

/// The hint at milliseconds or timestamps comes with a number too large for
/// seconds, and with nothing else (NaN, infinity, a negative time).
#[test]
fn a_bad_time_hints_at_other_units_only_when_too_large() {
    let dir = tempfile::tempdir().unwrap();
    for (value, hinted) in [
        ("1e12", true),
        ("NaN", false),
        ("inf", false),
        ("-1", false),
    ] {
        let f = write_arg(
            dir.path(),
            "t.csv",
            format!("run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,{value}\n"),
        );
        let out = calib(&["fit", &f]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("line 3") && err.contains(&format!("`{value}`")),
            "{err}"
        );
        assert_eq!(err.contains("milliseconds"), hinted, "{value}: {err}");
    }
}

/// A message quotes the table's own text: an escape sequence in a run id
/// reaches the terminal escaped, not as a command to it.
#[test]
fn messages_escape_the_control_characters_they_quote() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s\nr\u{1b}[2J,d=a,1,1\nr\u{1b}[2J,d=a,1,2\n",
    );
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        !err.contains('\u{1b}') && err.contains(r"r\u{1b}[2J"),
        "{err:?}"
    );
}

/// A table of another separator is said to be one, with the conversion;
/// a suggested command quotes the column names it pastes; and a command
/// without the column flags points to calib fit rather than to flags it
/// does not have.
#[test]
fn foreign_headers_get_advice_that_is_right_and_safe_to_paste() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, needle) in [
        (
            "semi.csv",
            "seed;ds;epoch;secs\n1;a;1;2\n",
            "separated by `;`",
        ),
        (
            "tab.csv",
            "seed\tds\tepoch\tsecs\n1\ta\t1\t2\n",
            "separated by tabs",
        ),
    ] {
        let f = write_arg(dir.path(), name, text);
        let out = calib(&["fit", &f, "--by", "ds"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("line 1") && err.contains(needle), "{err}");
        assert!(!err.contains("--run-col"), "{err}");
    }
    let f = write_arg(
        dir.path(),
        "odd.csv",
        "seed $(touch x),ds,epoch,secs\n1,a,1,2\n",
    );
    let err = stderr(&calib(&["fit", &f, "--by", "ds"]));
    assert!(err.contains("--run-col 'seed $(touch x)'"), "{err}");
    // --by naming a missing column says so, without the run/unit/time hint.
    let err = stderr(&calib(&["fit", &f, "--by", "nope"]));
    assert!(err.contains("`nope` column, which --by names"), "{err}");
    // backtest has no column flags: it points to calib fit.
    let out = calib(&["backtest", &f, "--probe-units", "5"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("read by calib fit") && !err.contains("try `calib fit"),
        "{err}"
    );
}

/// Times counted from the end of unit 1 (unit 1 at 0 s) read unit 1 and the
/// startup as free: said, naming a run, and not for times from the start.
#[test]
fn times_counted_from_the_first_unit_are_said() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s\nr1,d=a,1,0\nr1,d=a,2,10\nr1,d=a,3,20\nr2,d=a,1,0\nr2,d=a,2,11\nr2,d=a,3,21\n",
    );
    let err = stderr(&calib(&["fit", &f]));
    assert!(
        err.contains("2 run(s) (the first: `r1` of stratum d=a) end unit 1 at 0 s"),
        "{err}"
    );
    let f = write_arg(dir.path(), "ok.csv", GOOD);
    assert!(!stderr(&calib(&["fit", &f])).contains("at 0 s"));
}

/// fit --units shows what budget would give: no bound where the probe
/// supports none for that run (one unit per run, a run of 100), in the table
/// and the JSON alike.
#[test]
fn fit_marks_a_run_its_probe_cannot_support_as_budget_does() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "one.csv",
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr2,d=a,1,11\nr3,d=a,1,12\n",
    );
    let table = stdout(&calib(&["fit", &f, "--units", "100"]));
    let row = table.lines().find(|l| l.starts_with("d=a")).unwrap();
    assert!(row.trim_end().ends_with("unsupported"), "{table}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&calib(&[
        "fit", &f, "--units", "100", "--format", "json",
    ])))
    .unwrap();
    assert!(json["projections"][0]["unsupported"].is_object(), "{json}");
    // A probe that supports the run: a bound, and `null`.
    let f = write_arg(dir.path(), "ok.csv", GOOD);
    let json: serde_json::Value = serde_json::from_str(&stdout(&calib(&[
        "fit", &f, "--units", "4", "--format", "json",
    ])))
    .unwrap();
    assert!(json["projections"][0]["unsupported"].is_null(), "{json}");
}

/// Units written as whole floats (`3.0`, as pandas writes an integer column
/// with blanks) are the whole numbers they are; `2.5` is still no unit.
#[test]
fn units_written_as_whole_floats_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s\nr1,d=a,1.0,10\nr1,d=a,2.00,20\nr1,d=a,3.0,30\n",
    );
    let out = calib(&["fit", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("d=a"));
    expect_input_error(
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2.5,20\n",
        3,
        "`2.5`",
    );
    expect_input_error(
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2.,20\n",
        3,
        "`2.`",
    );
}

#[test]
fn non_numeric_value_names_its_line() {
    expect_input_error(
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,abc\nr1,d=a,3,30\n",
        3,
        "`abc`",
    );
}

#[test]
fn elapsed_time_going_backwards_is_an_error() {
    expect_input_error(
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,9\nr1,d=a,3,30\n",
        3,
        "goes backwards",
    );
}

#[test]
fn duplicate_run_unit_is_an_error() {
    expect_input_error(
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,20\nr1,d=a,2,21\n",
        4,
        "unit 2 twice",
    );
}

#[test]
fn torn_last_line_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s,cluster\nr1,d=a,1,10,x\nr1,d=a,2,20,x\nr1,d=a,3,30,x\nr1,d=a,4,4",
    );
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("line 5") && err.contains("cut short"), "{err}");
    assert!(stdout(&out).contains("d=a"));
}

#[test]
fn an_empty_file_in_a_folder_is_skipped_with_a_warning() {
    // A probe task killed before its first write leaves an empty file beside
    // the others; the folder must still fit.
    let dir = tempfile::tempdir().unwrap();
    write_arg(dir.path(), "a.csv", GOOD);
    write_arg(dir.path(), "b.csv", "");
    let out = calib(&["fit", dir.path().to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("b.csv") && err.contains("empty"), "{err}");
    assert!(stdout(&out).contains("d=a"));
    // A probe stopped before its first unit leaves its header alone: said
    // too, since a run the user started is missing from the fit.
    write_arg(dir.path(), "c.csv", "run,stratum,unit,elapsed_s\n");
    let out = calib(&["fit", dir.path().to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("c.csv") && err.contains("header and no row"),
        "{err}"
    );
}

#[test]
fn mixed_machines_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s,cluster,cpu_model\nr1,d=a,1,10,narval,EPYC\nr1,d=a,2,20,narval,EPYC\nr2,d=a,1,25,beluga,Xeon\nr2,d=a,2,50,beluga,Xeon\n",
    );
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("beluga, narval") && err.contains("EPYC, Xeon"),
        "{err}"
    );
}

#[test]
fn stdin_folders_and_the_model_file() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("timings");
    std::fs::create_dir(&sub).unwrap();
    let (csv, _) = synth::trend_case(30, 2, 3);
    write_arg(&sub, "a.csv", &csv);
    write_arg(&sub, "ignored.txt", "not csv");
    let model = dir.path().join("calib-model.json");
    let out = calib(&[
        "fit",
        sub.to_str().unwrap(),
        "-o",
        model.to_str().unwrap(),
        "--units",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = stdout(&out);
    assert!(
        table.contains("dataset=X") && table.contains("predicted") && table.contains("upper@60%"),
        "{table}"
    );
    let loaded = calib::model::ModelFile::load(&model).unwrap();
    assert_eq!(loaded.strata.len(), 1);
    let s = &loaded.strata[0];
    assert_eq!((s.runs, s.units_probed), (2, 60));
    assert_eq!(s.fingerprint.clusters, vec!["narval".to_string()]);
    // The 99% upper bound at 100 units covers what the full runs take: those
    // of the two probed seeds and of four seeds held back from the fit (the
    // same generator, their random streams continued to 100 units).
    let p = s.project(100, 0.99, &calib::calibrate::Table::shipped().unwrap());
    assert!(p.predicted_s > 14_000.0, "{p:?}");
    let (_, full) = synth::trend_case(30, 6, 3);
    for (seed, taken) in full.iter().enumerate() {
        assert!(
            p.upper_s >= *taken,
            "seed {seed} took {taken} s, above the upper bound {} s",
            p.upper_s
        );
    }
    // No temporary file left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // The same rows on stdin, as JSON.
    let out = output_with_stdin(
        common::calib().args([
            "fit",
            "-",
            "--format",
            "json",
            "--units",
            "100",
            "--confidence",
            "0.99",
        ]),
        &csv,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["strata"][0]["stratum"], "dataset=X");
    // The projection survives the round trip through the file: the model read
    // back projects what the fit itself projected.
    let projected = &v["projections"][0]["projection"];
    for (field, from_file) in [("predicted_s", p.predicted_s), ("upper_s", p.upper_s)] {
        let fitted = projected[field].as_f64().unwrap();
        assert!(
            (fitted - from_file).abs() <= 1e-9 * fitted,
            "{field}: {fitted} from the fit, {from_file} from the model file"
        );
    }
}

#[test]
fn foreign_table_with_by_columns_and_per_unit_times() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("seed,dataset,epoch,seconds\n");
    for seed in 0..2 {
        for epoch in 1..=12 {
            csv.push_str(&format!("{seed},big,{epoch},{}\n", 10.0 + seed as f64));
            csv.push_str(&format!("{}s,small,{epoch},{}\n", seed, 2.0));
        }
    }
    let f = write_arg(dir.path(), "foreign.csv", &csv);
    let out = calib(&[
        "fit",
        &f,
        "--by",
        "dataset",
        "--run-col",
        "seed",
        "--unit-col",
        "epoch",
        "--time-col",
        "seconds",
        "--per-unit",
        "--units",
        "100",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let strata = v["model"]["strata"].as_array().unwrap();
    assert_eq!(strata.len(), 2);
    assert_eq!(strata[0]["stratum"], "dataset=big");
    let p = &v["projections"][0]["projection"];
    // 10.5 s per epoch on average, 100 epochs.
    let predicted = p["predicted_s"].as_f64().unwrap();
    assert!((predicted - 1050.0).abs() < 30.0, "{predicted}");
    // 5x per-unit difference between the strata.
    assert!(stderr(&out).contains("separate arrays"));
}

/// A quote left open in a column calib does not read (a foreign table's
/// `notes`) took every line after it into that field: exit 0, one unit, no
/// word. It is refused at the line where the quote opens, as is one that
/// closes lines later with more after it; a field quoted whole across lines
/// is read as CSV reads it.
#[test]
fn a_quote_left_open_in_an_unused_column_is_refused_where_it_opens() {
    let header = "run,stratum,unit,elapsed_s,notes\n";
    expect_input_error(
        &format!("{header}r1,a=1,1,1,\"x\nr1,a=1,2,2,y\n"),
        2,
        "a quote opens a field here and never closes",
    );
    // After CRLF line ends, and after a blank line: the csv crate places a
    // record at the line break before it, where no quote is seen.
    expect_input_error(
        &format!(
            "{}r1,a=1,1,1,\"x\r\nr1,a=1,2,2,y\r\n",
            header.replace('\n', "\r\n")
        ),
        2,
        "a quote opens a field here and never closes",
    );
    expect_input_error(
        &format!("{header}r1,a=1,1,1,\n\nr1,a=1,2,2,\"x\nr1,a=1,3,3,y\n"),
        4,
        "a quote opens a field here and never closes",
    );
    // Without the last line break: not a torn last line, which would skip
    // the rows the quote took.
    expect_input_error(
        &format!("{header}r1,a=1,1,1,\"x\nr1,a=1,2,2,y"),
        2,
        "never closes",
    );
    expect_input_error(
        &format!("{header}r1,a=1,1,1,\"x\nr1,a=1,2,2,\"y\"\nr1,a=1,3,3,z\n"),
        2,
        "closes on line 3 followed by `y`",
    );
    // In a table large enough to be read in pieces, in parallel.
    let mut large = String::from(header);
    for unit in 1..=500_000 {
        let note = if unit == 250_000 { "\"open" } else { "fine" };
        large.push_str(&format!("r1,a=1,{unit},{unit},{note}\n"));
    }
    assert!(large.len() > 8 << 20);
    expect_input_error(&large, 250_001, "never closes");
    // A field quoted whole across lines, `""` inside: read.
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{header}r1,a=1,1,1,\"two\nlines, \"\"quoted\"\"\"\nr1,a=1,2,2,y\n"),
    );
    let out = calib(&["fit", &f, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["model"]["strata"][0]["units_probed"], 2, "{v}");
}

/// calib's own files read by their `unit_s` column (`--per-unit --time-col
/// unit_s`): the `end` row calib probe writes, whose `unit_s` is empty, is
/// recognised as the run's end before its time is read, and the fit is the
/// one of the `elapsed_s` column. It was refused: "line 42: `unit_s` is ``".
#[test]
fn end_rows_are_read_with_per_unit_times_from_unit_s() {
    let folder = common::repo_file("data/traces/xz/full");
    let folder = folder.to_str().unwrap();
    let fit = |extra: &[&str]| {
        let out = calib(
            &[
                &["fit", folder, "--units", "100", "--format", "json"],
                extra,
            ]
            .concat(),
        );
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (elapsed, per_unit) = (fit(&[]), fit(&["--per-unit", "--time-col", "unit_s"]));
    let strata = |v: &serde_json::Value| v["model"]["strata"].as_array().unwrap().clone();
    assert_eq!(strata(&elapsed).len(), strata(&per_unit).len());
    for (a, b) in strata(&elapsed).iter().zip(&strata(&per_unit)) {
        for field in ["stratum", "runs", "units_probed", "model"] {
            assert_eq!(a[field], b[field], "{field}");
        }
    }
    // The sums of the durations are the elapsed times, to their rounding.
    for (a, b) in elapsed["projections"]
        .as_array()
        .unwrap()
        .iter()
        .zip(per_unit["projections"].as_array().unwrap())
    {
        let (a, b) = (
            a["projection"]["predicted_s"].as_f64().unwrap(),
            b["projection"]["predicted_s"].as_f64().unwrap(),
        );
        assert!((a - b).abs() < 1e-3 * a, "{a} {b}");
    }
    // An end row's time, where given, is still read: a bad one is refused.
    expect_input_error(
        "run,stratum,unit,elapsed_s,end\nr1,d=a,1,10,\nr1,d=a,1,x,exit:0\n",
        3,
        "`elapsed_s` is `x`",
    );
}

#[test]
fn plots_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = synth::spread_case(15, 2);
    let f = write_arg(dir.path(), "t.csv", &csv);
    for ext in ["png", "svg"] {
        let plot = dir.path().join(format!("p.{ext}"));
        let out = calib(&[
            "fit",
            &f,
            "--units",
            "100",
            "--plot",
            plot.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let bytes = std::fs::read(&plot).unwrap();
        assert!(bytes.len() > 5_000, "{ext}: {} bytes", bytes.len());
        if ext == "svg" {
            // Each stratum has its panels (tests/plots.rs reads the figures whole).
            let s = String::from_utf8(bytes).unwrap();
            assert!(s.contains("dataset=Y") && s.contains("dataset=Z"));
        } else {
            assert_eq!(&bytes[1..4], b"PNG");
        }
    }
    let out = calib(&[
        "fit",
        &f,
        "--plot",
        dir.path().join("p.gif").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// Each example of `calib fit --help`, pasted into a shell in a folder that
/// holds what it names, succeeds, and what the examples write can be used.
#[test]
fn the_examples_in_help_run_as_printed() {
    let dir = example_folder();
    let ran = run_help_examples("fit", dir.path());
    assert!(ran.len() >= 2, "{ran:?}");
    for (line, out) in &ran {
        assert!(
            stdout(out).contains("dataset="),
            "`{line}` printed no stratum"
        );
    }
    let model = dir.path().join("calib-model.json");
    let loaded = calib::model::ModelFile::load(&model).unwrap();
    assert_eq!(loaded.strata[0].stratum.to_string(), "dataset=X");
    let plot = std::fs::read(dir.path().join("cost.png")).unwrap();
    assert_eq!(&plot[1..4], b"PNG");
}

#[test]
fn good_file_passes() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "t.csv", GOOD);
    let out = calib(&["fit", &f]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // One run: the seeds' spread is unmeasured.
    let err = stderr(&out);
    assert!(
        err.contains("d=a: one run only") && err.contains("unmeasured"),
        "{err}"
    );
}

#[test]
fn a_bad_plot_name_leaves_no_model_behind() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "t.csv", GOOD);
    let model = dir.path().join("m.json");
    let out = calib(&[
        "fit",
        &f,
        "-o",
        model.to_str().unwrap(),
        "--plot",
        "cost.jpg",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains(".png or .svg"));
    assert!(
        !model.exists(),
        "the model was written although the command failed"
    );
}

#[test]
fn a_by_value_holding_an_equals_sign_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,cfg,unit,elapsed_s\nr1,lr=0.1,1,10\n",
    );
    let out = calib(&["fit", &f, "--by", "cfg"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("line 2") && err.contains("`=`"), "{err}");
}

#[test]
fn a_model_file_that_cannot_project_is_refused_by_budget() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "t.csv", GOOD);
    let model = dir.path().join("m.json");
    let out = calib(&["fit", &f, "-o", model.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A hand edit that removes the fitted parameters.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    doc["strata"][0]["params"] = serde_json::json!({});
    std::fs::write(&model, doc.to_string()).unwrap();
    let out = calib(&[
        "budget",
        "--model",
        model.to_str().unwrap(),
        "--units",
        "10",
        "--partitions",
        "p 1:00:00",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("`params`") && err.contains("exponent"),
        "{err}"
    );
}

#[test]
fn a_torn_last_line_of_a_probe_file_is_skipped_even_when_it_still_parses() {
    // calib probe's own header: every row it writes ends with a newline, so an
    // unterminated last line was cut by a kill, here from `30.5` to `3`.
    let header = calib::timings::HEADER.join(",");
    let row = |unit: u32, t: &str| format!("r1,d=a,{unit},{t},,h,local,cpu,1,none,,,,0.1.0,");
    let content = format!(
        "{header}\n{}\n{}\n{}",
        row(1, "10.5"),
        row(2, "20.5"),
        row(3, "3")
    );
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "p.csv", &content);
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("line 4") && err.contains("cut short"), "{err}");
}

#[test]
fn seeds_numbered_within_each_configuration_are_distinct_runs() {
    // seed 0, 1, 2 of dataset A and seed 0, 1, 2 of dataset B: six runs, three
    // per stratum (the same seed number in two strata was refused as one run
    // in two strata).
    let dir = example_folder();
    let runs = dir.path().join("runs.csv");
    let out = calib(&[
        "fit",
        runs.to_str().unwrap(),
        "--by",
        "dataset,model",
        "--run-col",
        "seed",
        "--unit-col",
        "epoch",
        "--time-col",
        "seconds",
        "--per-unit",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let strata = doc["model"]["strata"].as_array().unwrap();
    assert_eq!(strata.len(), 2, "{doc}");
    for s in strata {
        assert_eq!(s["runs"], 3, "{s}");
        assert_eq!(s["units_probed"], 36, "{s}");
    }
}

#[test]
fn a_semicolon_in_a_stratum_is_refused_with_its_line() {
    // Budget would hand `name=x;y` to the jobs as two labels.
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s\nr1,name=a,1,1.0\nr2,\"name=x;y\",1,1.0\n",
    );
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("t.csv, line 3") && err.contains("holds a `;`"),
        "{err}"
    );
}

#[test]
fn an_output_path_in_a_missing_folder_is_bad_usage_named_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = synth::spread_case(15, 2);
    let f = write_arg(dir.path(), "t.csv", &csv);
    let missing = dir.path().join("nodir");
    for flag in ["-o", "--plot"] {
        let target = missing.join(if flag == "-o" { "m.json" } else { "p.svg" });
        let out = calib(&["fit", &f, flag, target.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(target.to_str().unwrap()), "{err}");
        assert!(err.contains("does not exist"), "{err}");
        // The temporary file calib would have written (`.m.json.XXXX.tmp.json`)
        // is not the user's.
        assert!(
            !err.contains(".m.json.") && !err.contains(".p.svg."),
            "{err}"
        );
    }
    assert!(!missing.exists());
}

#[test]
fn a_folder_whose_timings_are_in_subfolders_names_them() {
    // The bundled corpus keeps each program's probes and full runs apart.
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("campaign");
    std::fs::create_dir_all(campaign.join("probe")).unwrap();
    std::fs::create_dir_all(campaign.join("notes")).unwrap();
    let (csv, _) = synth::spread_case(15, 2);
    write_arg(&campaign.join("probe"), "a.csv", &csv);
    let out = calib(&["fit", campaign.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(campaign.join("probe").to_str().unwrap()),
        "{err}"
    );
    assert!(!err.contains("notes"), "{err}");
}

#[test]
fn runs_that_exited_with_a_failure_are_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let rows = |end_r1: &str| {
        format!(
            "run,stratum,unit,elapsed_s,end\n\
             r1,d=a,1,1.0,\nr1,d=a,2,2.0,\nr1,d=a,3,3.0,\nr1,d=a,3,3.1,{end_r1}\n\
             r2,d=a,1,1.0,\nr2,d=a,2,2.1,\nr2,d=a,3,3.0,\nr2,d=a,3,3.0,exit:0\n"
        )
    };
    let failed = write_arg(dir.path(), "failed.csv", rows("exit:7"));
    let err = stderr(&calib(&["fit", &failed]));
    assert!(
        err.contains("1 of 2 runs ended with a failure (run r1: exit status 7 after 3 units)"),
        "{err}"
    );
    // Killed by a signal (a probe's --timeout) or exiting 0 is no failure.
    for end in ["exit:0", "signal:TERM"] {
        let ok = write_arg(dir.path(), "ok.csv", rows(end));
        let err = stderr(&calib(&["fit", &ok]));
        assert!(!err.contains("ended with a failure"), "{end}: {err}");
    }
}

#[test]
fn an_output_that_would_replace_the_timings_read_is_refused_and_they_stay() {
    // `calib fit mine.csv -o mine.csv` replaced the measurements with the
    // model; so would a plot written over them.
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = synth::spread_case(15, 2);
    let folder = dir.path().join("timings");
    std::fs::create_dir(&folder).unwrap();
    let file = write_arg(&folder, "a.txt", &csv);
    let inside = folder.join("./a.txt");
    for (input, flag, target) in [
        (file.as_str(), "-o", file.as_str()),
        (folder.to_str().unwrap(), "-o", inside.to_str().unwrap()),
        (file.as_str(), "--plot", file.as_str()),
    ] {
        let out = calib(&["fit", input, flag, target]);
        let err = stderr(&out);
        // --plot refuses the extension first; either way nothing is written.
        assert_eq!(out.status.code(), Some(2), "{flag} {target}: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), csv, "{err}");
    }
    // A model under a .csv name would be read as timings next time.
    let out = calib(&[
        "fit",
        &file,
        "-o",
        folder.join("model.csv").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!folder.join("model.csv").exists());
}

#[test]
fn an_output_that_is_not_a_regular_file_is_refused_and_a_link_is_written_through() {
    // The atomic rename replaced a FIFO with the model, and over a folder
    // failed as a system error (exit 1, "Is a directory").
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = synth::spread_case(15, 2);
    let f = write_arg(dir.path(), "t.csv", &csv);
    let folder = dir.path().join("out");
    std::fs::create_dir(&folder).unwrap();
    let fifo = dir.path().join("fifo.svg");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for (flag, target, kind) in [
        ("-o", &folder, "is a folder"),
        ("-o", &fifo, "is a FIFO"),
        ("--plot", &fifo, "is a FIFO"),
    ] {
        let out = calib(&["fit", &f, flag, target.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains(target.to_str().unwrap()), "{err}");
        assert!(err.contains(kind), "{err}");
        assert!(
            err.contains("expected a regular file or a new file"),
            "{err}"
        );
    }
    assert!(folder.read_dir().unwrap().next().is_none());
    assert!(fifo.symlink_metadata().unwrap().file_type().is_fifo());
    // A link made ahead of its file: the model goes to the file, the link stays.
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink("real/model.json", &link).unwrap();
    let out = calib(&["fit", &f, "-o", link.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(link.symlink_metadata().unwrap().is_symlink());
    let model = std::fs::read_to_string(real.join("model.json")).unwrap();
    assert!(model.starts_with('{'), "{model}");
}

#[test]
fn a_plot_on_the_model_file_is_refused_before_either_is_written() {
    // `-o same.svg --plot same.svg` exited 0: the figure, written second,
    // replaced the model.
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = synth::spread_case(15, 2);
    let f = write_arg(dir.path(), "t.csv", &csv);
    let same = dir.path().join("same.svg");
    let link = dir.path().join("link.svg");
    std::os::unix::fs::symlink("same.svg", &link).unwrap();
    let dotted = dir.path().join(".").join("same.svg");
    for there in [false, true] {
        if there {
            std::fs::write(&same, "old").unwrap();
        }
        for (model, plot) in [(&same, &same), (&same, &dotted), (&link, &same)] {
            let (model, plot) = (model.to_str().unwrap(), plot.to_str().unwrap());
            let out = calib(&["fit", &f, "-o", model, "--plot", plot]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{model} {plot}: {err}");
            assert!(err.contains("--plot") && err.contains("-o "), "{err}");
            assert!(err.contains(model) && err.contains(plot), "{err}");
            match there {
                false => assert!(!same.exists(), "{err}"),
                true => assert_eq!(std::fs::read_to_string(&same).unwrap(), "old"),
            }
        }
    }
    // Two files in one folder are two.
    let other = dir.path().join("cost.svg");
    let out = calib(&[
        "fit",
        &f,
        "-o",
        same.to_str().unwrap(),
        "--plot",
        other.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&same).unwrap().starts_with('{'));
    assert!(std::fs::read_to_string(&other).unwrap().starts_with("<svg"));
}

#[test]
fn a_model_file_given_as_timings_is_named_with_where_it_goes() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "t.csv", GOOD);
    let model = dir.path().join("m.json");
    let model = model.to_str().unwrap();
    let out = calib(&["fit", &f, "-o", model]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = calib(&[
        "budget",
        model,
        "--units",
        "40",
        "--partitions",
        "b 2:00:00",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{model}: a calib model file")) && err.contains("--model"),
        "{err}"
    );
    // Any other JSON is named as JSON, not read as a table.
    let other = write_arg(dir.path(), "other.json", " [{\"run\": 1}]\n");
    let out = calib(&["fit", &other]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{other}: got JSON; expected CSV timings")),
        "{err}"
    );
}

#[test]
fn bytes_that_are_not_utf8_are_named_at_their_line_as_such() {
    let dir = tempfile::tempdir().unwrap();
    // On the first row (which the csv crate placed at the header's line) and
    // on a later one.
    // And in the header itself (a column name saved as Latin-1).
    for (header, rows, line) in [
        (
            &b"run,stratum,unit,elapsed_s\n"[..],
            &b"r\xff0,a=1,1,10.134\nr0,a=1,2,20.1\n"[..],
            2,
        ),
        (
            &b"run,stratum,unit,elapsed_s\n"[..],
            &b"r0,a=1,1,10.134\nr\xe90,a=1,2,20.1\n"[..],
            3,
        ),
        (
            &b"run,stratum,unit,elapsed_s,\xe9t\xe9\n"[..],
            &b"r0,a=1,1,10.134,x\n"[..],
            1,
        ),
    ] {
        let mut table = header.to_vec();
        table.extend_from_slice(rows);
        let f = write_arg(dir.path(), "latin3.csv", &table);
        let out = calib(&["fit", &f]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!("latin3.csv, line {line}: not UTF-8 text"))
                && err.contains("expected UTF-8 text")
                && !err.contains("not valid CSV"),
            "{err}"
        );
    }
}

#[test]
fn a_file_given_twice_is_read_once_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("d1");
    std::fs::create_dir(&folder).unwrap();
    let base = write_arg(&folder, "base.csv", GOOD);
    let once = calib(&["fit", &base]);
    assert_eq!(once.status.code(), Some(0), "{}", stderr(&once));
    // In a folder given and named as well, and named twice.
    for twice in [[folder.to_str().unwrap(), &base], [&base, &base]] {
        let out = calib(&["fit", twice[0], twice[1]]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(
            err.contains(&format!("{base}: given twice")) && err.contains("read it once"),
            "{err}"
        );
        assert_eq!(stdout(&out), stdout(&once));
    }
}

#[test]
fn a_broken_link_in_a_folder_is_named_with_where_it_points() {
    let dir = tempfile::tempdir().unwrap();
    write_arg(dir.path(), "a.csv", GOOD);
    std::os::unix::fs::symlink("/nonexistent/x.csv", dir.path().join("dangle.csv")).unwrap();
    let out = calib(&["fit", dir.path().to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("dangle.csv: a broken link (to /nonexistent/x.csv")
            && !err.contains("not a regular file"),
        "{err}"
    );
}

#[test]
fn a_stratum_whose_units_took_no_time_is_named_and_gets_no_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut table = String::from("run,stratum,unit,elapsed_s\n");
    for run in 0..3 {
        for unit in 1..=12 {
            table.push_str(&format!("r{run},a=1,{unit},0\n"));
        }
    }
    let f = write_arg(dir.path(), "zero.csv", &table);
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("a=1: calib budget will give this stratum no --time")
            && err.contains("less time than the timer resolves"),
        "{err}"
    );
}

#[test]
fn units_that_took_no_time_are_named_as_such_not_as_gaps() {
    let dir = tempfile::tempdir().unwrap();
    // Every unit at 5 s: the first took the run's 5 s, the others none.
    let mut table = String::from("run,stratum,unit,elapsed_s\n");
    for run in 0..3 {
        for unit in 1..=12 {
            table.push_str(&format!("r{run},a=1,{unit},5\n"));
        }
    }
    let f = write_arg(dir.path(), "const.csv", &table);
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("a=1: calib budget will give this stratum no --time")
            && err.contains("less time than the timer resolves")
            && !err.contains("gap"),
        "{err}"
    );
}

#[test]
fn probes_of_one_unit_are_too_short_not_run_lengths() {
    let dir = tempfile::tempdir().unwrap();
    // As `calib probe --units 1 --repeat 3` writes them: one row per run, at unit 1.
    let mut table = String::from("run,stratum,unit,elapsed_s,unit_s\n");
    for run in 0..3 {
        table.push_str(&format!("r{run},a=1,1,1{run}.5,1{run}.5\n"));
    }
    let f = write_arg(dir.path(), "one.csv", &table);
    let out = calib(&["fit", &f, "--format", "json"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("a=1: calib budget will give this stratum no --time")
            && err.contains("no run of the probe has two units"),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let stratum = &doc["model"]["strata"][0];
    assert_eq!(stratum["unsupported"]["reason"], "one_unit", "{doc}");
    assert_eq!(stratum["probe_runs"], serde_json::json!([]), "{doc}");
}
