//! What `calib budget`'s output promises about its notes: the default table is
//! short (the demo's fits in 8 lines of at most 100 columns) and shows each
//! note that needs action once, in one line; `--explain` shows every note
//! JSON carries, each once; and every kind of note budget emits is met here.

mod common;

use std::collections::BTreeSet;

use common::{calib, repo_file, stdout, write_file};
use serde_json::Value;

/// The output of `calib budget ARGS` as a table, with `--explain` and as
/// JSON, each with the exit status `code`.
struct Outputs {
    default: String,
    explain: String,
    json: Value,
}

fn budget(dir: &std::path::Path, args: &[&str], code: i32) -> Outputs {
    let run = |extra: &[&str]| {
        let out = calib()
            .arg("budget")
            .args(args)
            .args(extra)
            .current_dir(dir)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?} {extra:?}: {}",
            common::stderr(&out)
        );
        stdout(&out)
    };
    Outputs {
        default: run(&[]),
        explain: run(&["--explain"]),
        json: serde_json::from_str(&run(&["--format", "json"])).unwrap(),
    }
}

/// Every note of a budget document, campaign's and strata's.
fn notes(doc: &Value) -> Vec<&Value> {
    let mut all: Vec<&Value> = doc["notes"].as_array().unwrap().iter().collect();
    for s in doc["strata"].as_array().unwrap() {
        all.extend(s["notes"].as_array().unwrap());
    }
    all
}

/// `text` with every run of whitespace one space: wrapped lines read whole.
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Checks the promises on one budget and returns the kinds of its notes.
#[track_caller]
fn check(outputs: &Outputs) -> BTreeSet<String> {
    let every = notes(&outputs.json);
    let explain = unwrapped(&outputs.explain);
    for note in &every {
        let text = unwrapped(note["text"].as_str().unwrap());
        let in_json = every
            .iter()
            .filter(|n| unwrapped(n["text"].as_str().unwrap()) == text)
            .count();
        assert_eq!(
            explain.matches(&text).count(),
            in_json,
            "`{text}` is not shown as often as JSON has it, under --explain:\n{}",
            outputs.explain
        );
    }
    let actions = every.iter().filter(|n| n["severity"] == "action").count();
    let numbered = outputs
        .default
        .lines()
        .filter(|l| l.starts_with('['))
        .count();
    assert_eq!(numbered, actions, "{}", outputs.default);
    let hidden = every.len() - actions;
    if hidden > 0 {
        let adds = format!("--explain adds {hidden} note");
        assert!(outputs.default.contains(&adds), "{}", outputs.default);
    }
    // A note's line fits in 100 columns (the table's rows are as wide as
    // their figures).
    for line in outputs.default.lines().filter(|l| l.starts_with('[')) {
        assert!(line.chars().count() <= 100, "{line}");
    }
    every
        .iter()
        .map(|n| n["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_demo_budget_fits_in_eight_lines_of_at_most_100_columns() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("calib-model.json");
    let fitted = calib()
        .args(["fit", "--units", "100", "-o"])
        .arg(&model)
        .arg(repo_file("data/trend-probe-60x3.csv"))
        .arg(repo_file("data/spread-20.csv"))
        .output()
        .unwrap();
    assert!(fitted.status.success(), "{}", common::stderr(&fitted));
    let grid = repo_file("data/campaign/grid.toml");
    let partitions = format!(
        "@{}",
        repo_file("data/campaign/partitions-narval.txt").display()
    );
    let outputs = budget(
        dir.path(),
        &[
            "--model",
            model.to_str().unwrap(),
            "--grid",
            grid.to_str().unwrap(),
            "--cluster",
            "narval",
            "--partitions",
            &partitions,
        ],
        0,
    );
    let lines: Vec<&str> = outputs.default.lines().collect();
    assert!(lines.len() <= 8, "{}", outputs.default);
    assert!(
        lines.iter().all(|l| l.chars().count() <= 100),
        "{}",
        outputs.default
    );
    assert!(lines.iter().filter(|l| l.starts_with("dataset=")).count() == 3);
    check(&outputs);
}

#[test]
fn every_kind_of_note_is_shown_once_under_explain_and_the_actions_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let probes = repo_file("data/spread-20.csv");
    let probes = probes.to_str().unwrap();
    let one_unit = write_file(
        here,
        "one.csv",
        "run,stratum,unit,elapsed_s\nr1,size=1,1,10\nr2,size=1,1,11\n",
    );
    write_file(
        here,
        "grid.toml",
        "stratum = [\"dataset\"]\noutput = \"r/{tag}\"\nunits = 100\n[axes]\ndataset = [\"Y\"]\nseed = [0, 1]\n",
    );
    let mut kinds = BTreeSet::new();
    // A cap between the measured cost and the upper bound, listed twice, and
    // the largest: rounded down, the margin cut, a shared cap; no cluster.
    kinds.extend(check(&budget(
        here,
        &[
            probes,
            "-n",
            "100",
            "--confidence",
            "0.99",
            "-p",
            "short 11:00:00\nsame 11:00:00",
        ],
        0,
    )));
    // Over every cap in play, a longer one left out; an array past
    // MaxArraySize; another cluster's list (its CLUSTER: line).
    kinds.extend(check(&budget(
        here,
        &[
            probes,
            "-n",
            "100",
            "--tasks",
            "1500",
            "--cluster",
            "narval",
            "--partition-regex",
            "^short$",
            "-p",
            "CLUSTER: narval\nshort 1:00:00\nlong 7-00:00:00",
        ],
        3,
    )));
    // A probe with no per-unit cost; a stratum the campaign grid leaves out.
    kinds.extend(check(&budget(
        here,
        &[
            one_unit.to_str().unwrap(),
            "-n",
            "100",
            "-p",
            "p 1-00:00:00",
        ],
        3,
    )));
    kinds.extend(check(&budget(
        here,
        &[probes, "--grid", "grid.toml", "-p", "p 1-00:00:00"],
        0,
    )));
    // Measured on another cluster; a run far past what the calibration
    // holds, guessed.
    kinds.extend(check(&budget(
        here,
        &[
            probes,
            "-n",
            "100000",
            "--cluster",
            "elsewhere",
            "--allow-transfer",
            "--allow-guess",
            "-p",
            "p UNLIMITED",
        ],
        0,
    )));
    for kind in [
        "rounded_down",
        "margin_cut",
        "shared_cap",
        "cluster_unknown",
        "over_cap",
        "longer_partitions",
        "array_too_large",
        "partition_list",
        "unsupported",
        "left_out",
        "estimate",
        "guess",
        "margin",
        "calibration",
        "partitions",
    ] {
        assert!(kinds.contains(kind), "no `{kind}` note in {kinds:?}");
    }
}
