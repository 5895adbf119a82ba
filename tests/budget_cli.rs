//! `calib budget` end to end: the built binary, its exit statuses and messages.
//!
//! Most tests here exercise error paths and partition handling that need no
//! fitted model: the partition list is read and narrowed before the model is
//! loaded, so a user who pasted a bad `sinfo` sees that first.
//!
//! MODEL-DEPENDENT tests (marked `MODEL-DEPENDENT` below) need a model file
//! that deserializes. They build it with [`model_json`], which fits synthetic
//! timings of about `rate_s` seconds per unit with `calib fit`. They check
//! statuses, exit codes and contract fields, not the fit's numbers, except
//! where a comment says what the numbers rest on.

mod common;

use std::path::Path;
use std::process::Output;

use assert_cmd::prelude::*;
use common::{
    at_repo_file, calib, example_folder, output_with_stdin, run_help_examples, run_shell_line,
    stderr, stdout, write_arg, LAB_SINFO,
};
use regex::Regex;
use serde_json::Value;

const ADVICE: &str = "sinfo -h -o '%P %l'";

/// `calib budget ARGS` in `dir` (no cluster taken from the environment),
/// asserted to exit with `code`.
fn budget(dir: &Path, args: &[&str], code: i32) -> Output {
    budget_with_stdin(dir, args, "", code)
}

/// [`budget`] with `stdin` on its standard input.
fn budget_with_stdin(dir: &Path, args: &[&str], stdin: &str, code: i32) -> Output {
    let out = output_with_stdin(calib().arg("budget").args(args).current_dir(dir), stdin);
    out.assert().code(code).get_output().clone()
}

#[track_caller]
fn assert_mentions(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "`{needle}` not in:\n{text}");
    }
}

/// A model file with one stratum per `(stratum, rate_s)`, measured on `cluster`
/// when given, made the way a user makes one: timings of 3 runs x 30 units at
/// about `rate_s` seconds per unit (run levels 0.99, 1.00, 1.01, and a
/// deterministic +-0.5% wobble per unit), fitted by `calib fit -o`.
/// MODEL-DEPENDENT tests rest on this: a stratum costs about `rate_s` per unit,
/// and its slowest run 1% more.
fn model_json(strata: &[(&str, f64)], cluster: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("run,stratum,unit,elapsed_s,cluster\n");
    for (s, (stratum, rate_s)) in strata.iter().enumerate() {
        for (r, level) in [0.99, 1.00, 1.01].iter().enumerate() {
            let mut elapsed = 0.0;
            for unit in 1..=30u64 {
                let wobble = if (unit + r as u64).is_multiple_of(2) {
                    1.005
                } else {
                    0.995
                };
                elapsed += rate_s * level * wobble;
                csv.push_str(&format!(
                    "s{s}r{r},\"{stratum}\",{unit},{elapsed:.6},{}\n",
                    cluster.unwrap_or("")
                ));
            }
        }
    }
    let timings = write_arg(dir.path(), "timings.csv", csv);
    let model = dir.path().join("model.json");
    calib()
        .args(["fit", &timings, "-o"])
        .arg(&model)
        .assert()
        .success();
    std::fs::read_to_string(&model).unwrap()
}

/// `@FILE` of a recorded sinfo sample of tests/data/slurm.
fn at(name: &str) -> String {
    at_repo_file(&format!("tests/data/slurm/{name}"))
}

// ---------------------------------------------------------------------------
// Help.

/// Each example of `calib budget --help`, pasted into a shell after the
/// pipeline's `calib fit` in a folder that holds what it names (with `sinfo`
/// printing the lab's partitions), succeeds; and all of them, whether from
/// the model file or the probe folder, with the partitions as text, as a file
/// or on stdin, as a table, as sbatch lines or as job scripts, give the
/// stratum one `--time`.
#[test]
fn the_examples_in_help_run_as_printed() {
    let dir = example_folder();
    run_shell_line(dir.path(), "calib fit calib-timings/ -o calib-model.json")
        .assert()
        .success();
    let ran = run_help_examples("budget", dir.path());
    assert!(ran.len() >= 2, "{ran:?}");
    let slurm_time = Regex::new(r"\b(?:\d+-)?\d{2}:\d{2}:\d{2}\b").unwrap();
    let times: Vec<String> = ran
        .iter()
        .map(|(line, out)| {
            let text = stdout(out);
            // The stratum's row of a table, or the comment heading its sbatch
            // line (with --script-dir the line names a file, not the time).
            let row = text
                .lines()
                .find(|l| l.starts_with("dataset=X ") || l.starts_with("# dataset=X:"))
                .unwrap_or_else(|| panic!("`{line}` budgeted no dataset=X:\n{text}"));
            let time = slurm_time.find(row).map(|m| m.as_str().to_string());
            time.unwrap_or_else(|| panic!("no --time in `{row}` of `{line}`"))
        })
        .collect();
    assert!(times.iter().all(|t| *t == times[0]), "{times:?}");
}

// ---------------------------------------------------------------------------
// Partition lists (no model needed: read before the model).

#[test]
fn a_limit_cut_by_sinfo_past_100_days_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--units",
            "10",
            "--partitions",
            "cpubase_bycore_b1* 3:00:00\npreempt 122-00:00:",
        ],
        2,
    );
    assert_mentions(
        &stderr(&out),
        &["122-00:00:", "preempt", "line 2", "--partitions", ADVICE],
    );
    assert!(stdout(&out).is_empty(), "no budget on stdout");
}

#[test]
fn a_bare_cut_limit_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &["--units", "10", "--partitions", "122-00:00:"],
        2,
    );
    assert_mentions(&stderr(&out), &["122-00:00:", ADVICE]);
}

#[test]
fn a_missing_partitions_file_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &["--units", "10", "--partitions", "@no-such-sinfo.txt"],
        2,
    );
    assert_mentions(&stderr(&out), &["no-such-sinfo.txt", "--partitions"]);
}

#[test]
fn an_unknown_family_is_refused_listing_the_families() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--units",
            "10",
            "--partitions",
            &at("sinfo-narval.txt"),
            "--partition-family",
            "nosuch",
        ],
        2,
    );
    assert_mentions(
        &stderr(&out),
        &[
            "nosuch",
            "cpubase_bycore (5 buckets)",
            "cpubase_bynode (5 buckets)",
            "gpubase_bygpu (5 buckets)",
            "cpubase_interac",
            "gpubackfill",
        ],
    );
}

#[test]
fn a_bucket_name_given_as_family_is_pointed_to_its_family() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--units",
            "10",
            "--partitions",
            &at_repo_file(LAB_SINFO),
            "--partition-family",
            "cpubase_bycore_b2",
        ],
        2,
    );
    assert_mentions(
        &stderr(&out),
        &["cpubase_bycore_b2", "family `cpubase_bycore`"],
    );
}

#[test]
fn a_regex_matching_nothing_or_not_a_regex_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--units",
            "10",
            "--partitions",
            &at("sinfo-killarney-summarize.txt"),
            "--partition-regex",
            "a100",
        ],
        2,
    );
    assert_mentions(
        &stderr(&out),
        &[
            "a100",
            "gpubase_h100 (5 buckets)",
            "gpubase_l40s (5 buckets)",
        ],
    );

    let out = budget(
        dir.path(),
        &[
            "--units",
            "10",
            "--partitions",
            &at_repo_file(LAB_SINFO),
            "--partition-regex",
            "(b1",
        ],
        2,
    );
    assert_mentions(&stderr(&out), &["--partition-regex", "regular expression"]);
}

#[test]
fn family_and_regex_together_are_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--units",
            "10",
            "--partitions",
            &at_repo_file(LAB_SINFO),
            "--partition-family",
            "cpubase_bycore",
            "--partition-regex",
            "b1",
        ],
        2,
    );
    assert_mentions(&stderr(&out), &["--partition-family", "--partition-regex"]);
}

#[test]
fn an_empty_or_unreadable_partition_list_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(dir.path(), &["--units", "10", "--partitions", ""], 2);
    assert_mentions(&stderr(&out), &["no partitions found", ADVICE]);

    // `sinfo -N`-like table without TIMELIMIT, from standard input.
    let out = budget_with_stdin(
        dir.path(),
        &["--units", "10", "--partitions", "-"],
        "NODELIST NODES PARTITION STATE\nnode1 1 short* idle\n",
        2,
    );
    assert_mentions(&stderr(&out), &["<stdin>", "TIMELIMIT", ADVICE]);
}

#[test]
fn partitions_are_required() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(dir.path(), &["--units", "10"], 2);
    assert_mentions(&stderr(&out), &["--partitions"]);
}

// ---------------------------------------------------------------------------
// Options clap refuses (no model needed).

#[test]
fn bad_numbers_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        ["--units", "0"],
        ["--units", "ten"],
        ["--confidence", "high"],
        ["--tasks", "0"],
    ] {
        let mut all = args.to_vec();
        all.extend(["--partitions", "cpubase_bycore_b1* 3:00:00"]);
        let out = budget(dir.path(), &all, 2);
        assert_mentions(&stderr(&out), &[args[0], args[1]]);
    }
}

// ---------------------------------------------------------------------------
// Model files.

#[test]
fn no_model_anywhere_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &["--units", "10", "--partitions", &at_repo_file(LAB_SINFO)],
        2,
    );
    assert_mentions(&stderr(&out), &["--model", "calib fit"]);
}

#[test]
fn a_malformed_model_file_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("cut.json", "{\"calib_version\": \"0.1.0\", \"strata\": ["),
        ("empty-object.json", "{}"),
        ("timings.json", "run,stratum,unit,elapsed_s\nr1,a=1,1,0.5\n"),
    ] {
        let path = write_arg(dir.path(), name, text);
        let out = budget(
            dir.path(),
            &[
                "--model",
                &path,
                "--units",
                "10",
                "--partitions",
                &at_repo_file(LAB_SINFO),
            ],
            2,
        );
        assert_mentions(&stderr(&out), &[name, "not a calib model file"]);
        assert!(stdout(&out).is_empty());
    }
}

#[test]
fn a_missing_model_file_names_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--model",
            "absent-model.json",
            "--units",
            "10",
            "--partitions",
            &at_repo_file(LAB_SINFO),
        ],
        2,
    );
    assert_mentions(&stderr(&out), &["absent-model.json"]);
}

// MODEL-DEPENDENT (model_json): the refusal does not depend on the numbers.
#[test]
fn a_stratum_without_units_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 60.0), ("dataset=B", 60.0)], None),
    );
    let out = budget(
        dir.path(),
        &["--model", &model, "--partitions", &at_repo_file(LAB_SINFO)],
        2,
    );
    assert_mentions(&stderr(&out), &["dataset=A", "--units", "--grid"]);

    // A grid that sizes only B still leaves A without units.
    let grid = write_arg(dir.path(), "grid.csv", "stratum,units\ndataset=B,10\n");
    let out = budget(
        dir.path(),
        &[
            "--model",
            &model,
            "--grid",
            &grid,
            "--partitions",
            &at_repo_file(LAB_SINFO),
        ],
        2,
    );
    assert_mentions(&stderr(&out), &["dataset=A", "--units"]);
}

// MODEL-DEPENDENT (model_json): the refusal does not depend on the numbers.
#[test]
fn a_confidence_outside_zero_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 60.0)], None),
    );
    // At or below 0.5 a one-sided bound would fall under the central projection.
    for value in ["0", "0.3", "0.5", "1", "1.5", "-0.5", "NaN", "inf"] {
        let flag = format!("--confidence={value}");
        let out = budget(
            dir.path(),
            &[
                "--model",
                &model,
                "--units",
                "10",
                &flag,
                "--partitions",
                &at_repo_file(LAB_SINFO),
            ],
            2,
        );
        assert_mentions(&stderr(&out), &["--confidence", "above 0.5"]);
    }
}

// MODEL-DEPENDENT (model_json): only the partition list matters.
#[test]
fn partitions_under_one_minute_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 1.0)], None),
    );
    for list in ["tiny 0:30", "zero 0", "tiny 0:30\nzero 0:00"] {
        let out = budget(
            dir.path(),
            &["--model", &model, "--units", "10", "--partitions", list],
            2,
        );
        assert_mentions(&stderr(&out), &["one minute", "whole minutes"]);
    }
}

// MODEL-DEPENDENT (model_json): a stratum measured on another cluster.
#[test]
fn a_cluster_line_in_the_partition_list_sets_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 60.0)], Some("narval")),
    );
    let list = "CLUSTER: killarney\ngpubase_l40s_b1 3:00:00\ngpubase_l40s_b2 12:00:00\n";
    let run = |extra: &[&str], code| {
        let mut args = vec!["--model", &model, "--units", "10", "--partitions", list];
        args.extend(extra);
        budget(dir.path(), &args, code)
    };
    let out = run(&[], 2);
    assert_mentions(&stderr(&out), &["narval", "killarney", "--allow-transfer"]);

    let out = run(&["--allow-transfer", "--format", "json"], 0);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["estimate"], Value::Bool(true));
    assert_eq!(doc["target_cluster"], "killarney");

    // --cluster names another cluster than the list's: the caps would be
    // killarney's for a campaign on narval. Refused, naming both.
    let out = run(&["--cluster", "narval"], 2);
    assert_mentions(
        &stderr(&out),
        &["--partitions", "killarney", "sinfo -M narval"],
    );
}

/// A model of runs with a 10 h startup and 1 min units, probed to 600 units.
fn startup_heavy_model(dir: &std::path::Path) -> std::path::PathBuf {
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for (r, level) in [0.99, 1.00, 1.01].iter().enumerate() {
        let mut elapsed = 36_000.0 * level;
        // 600 units: 10 h of units beside the 10 h startup, a probe whose
        // units are not lost in its startup.
        for unit in 1..=600u64 {
            elapsed += 60.0
                * level
                * if (unit + r as u64).is_multiple_of(2) {
                    1.005
                } else {
                    0.995
                };
            csv.push_str(&format!("r{r},dataset=slow,{unit},{elapsed:.6}\n"));
        }
    }
    let timings = write_arg(dir, "timings.csv", csv);
    let model = dir.join("model.json");
    calib()
        .args(["fit", &timings, "-o"])
        .arg(&model)
        .assert()
        .success();
    model
}

/// The budget of 2880 units of [`startup_heavy_model`] under `partitions`,
/// in `format`: an over-cap budget (exit 3).
fn startup_heavy_budget(partitions: &str, format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let model = startup_heavy_model(dir.path());
    let out = budget(
        dir.path(),
        &[
            "--model",
            model.to_str().unwrap(),
            "--units",
            "2880",
            "--partitions",
            partitions,
            "--format",
            format,
        ],
        3,
    );
    stdout(&out)
}

/// [`startup_heavy_budget`] as JSON: its one stratum, which must be `over_cap`.
fn startup_heavy_over_cap(partitions: &str) -> Value {
    let doc: Value = serde_json::from_str(&startup_heavy_budget(partitions, "json")).unwrap();
    let slow = doc["strata"][0].clone();
    assert_eq!(slow["status"], "over_cap", "{slow}");
    slow
}

// An over-cap run whose startup is a large part of a segment: every
// segment pays the 10 h startup again and loses the unit a kill interrupts
// (more for a run at the upper bound), so the 24 h cap does at most 14 h of
// work per segment, and the run needs more segments than dividing its bound
// by the cap says (whose last segment would end short of the run).
#[test]
fn over_cap_segments_pay_the_startup_again() {
    let slow = startup_heavy_over_cap("short 3:00:00\nlong 1-00:00:00\n");
    let upper_s = slow["upper_s"].as_f64().unwrap();
    // A run at the bound is slower in every part alike: its 10 h startup and
    // 1 min units scaled by upper / predicted. Each segment: 24 h less those.
    let at_bound = upper_s / slow["predicted_s"].as_f64().unwrap();
    let (startup_s, unit_s) = (36_000.0 * at_bound, 60.0 * at_bound);
    let per_segment_s = 86_400.0 - startup_s - unit_s;
    let expected = ((upper_s - startup_s) / per_segment_s).ceil() as u64;
    assert_eq!(slow["segments"].as_u64(), Some(expected), "{slow}");
    assert!(expected > (upper_s / 86_400.0).ceil() as u64, "{slow}");
    assert_mentions(
        &slow["notes"].to_string(),
        &[&format!("{expected} segments"), "startup again"],
    );
}

// A cap no longer than the startup: no segment finishes a unit, so no number
// of resubmissions completes the run, and budget says so instead of a count.
#[test]
fn over_cap_with_a_cap_shorter_than_the_startup_gives_no_segment_count() {
    let partitions = "short 3:00:00\nlong 10:00:00\n";
    let slow = startup_heavy_over_cap(partitions);
    assert_eq!(slow["segments"], Value::Null, "{slow}");
    assert_mentions(&slow["notes"].to_string(), &["cannot finish even one unit"]);
    // The table gives no time for it: neither segments nor the single task's
    // unsubmittable time.
    let table = startup_heavy_budget(partitions, "table");
    let row = table
        .lines()
        .find(|l| l.starts_with("dataset=slow") && l.contains("over_cap"))
        .unwrap_or_else(|| panic!("{table}"));
    let single = slow["time"].as_str().unwrap();
    assert!(!row.contains(single), "{row}");
    assert!(!row.contains(" x "), "{row}");
}

// MODEL-DEPENDENT (model_json, and a cost of about `rate_s` per unit): two
// strata, one of about 1 h 40 min (100 units x 60 s), one of about 48 h
// (2880 units x 60 s), budgeted where the buckets stop at b3 (24 h), as in
// seed case 6. The slow one is over_cap: exit 3, and the fast one keeps its
// own short bucket.
#[test]
fn seed_case_6_end_to_end_over_cap_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=fast", 60.0), ("dataset=slow", 60.0)], None),
    );
    let grid = write_arg(
        dir.path(),
        "grid.csv",
        "stratum,units,tasks\ndataset=fast,100,3\ndataset=slow,2880,2\n",
    );
    let list =
        "cpubase_bycore_b1* 3:00:00\ncpubase_bycore_b2 12:00:00\ncpubase_bycore_b3 1-00:00:00\n";
    let out = budget(
        dir.path(),
        &[
            "--model",
            &model,
            "--grid",
            &grid,
            "--partitions",
            list,
            "--format",
            "json",
        ],
        3,
    );
    assert_mentions(&stderr(&out), &["dataset=slow"]);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let strata = doc["strata"].as_array().unwrap();
    assert_eq!(strata.len(), 2);
    let by_name = |name: &str| {
        strata
            .iter()
            .find(|s| s["stratum"] == name)
            .unwrap_or_else(|| panic!("no stratum {name} in {doc}"))
    };
    let slow = by_name("dataset=slow");
    assert_eq!(slow["status"], "over_cap");
    assert_eq!(slow["partition"], Value::Null);
    assert!(slow["floor_s"].as_f64().unwrap() >= 48.0 * 3600.0 - 1.0);
    // As many segments of at most 24 h (the largest cap) as the upper bound
    // needs, each losing at most its last unit (about a minute, no startup
    // here) to the kill; the notes say how many.
    let segments = slow["segments"].as_u64().unwrap();
    let upper_s = slow["upper_s"].as_f64().unwrap();
    assert!(segments >= (upper_s / 86_400.0).ceil() as u64, "{slow}");
    assert!(
        segments <= (upper_s / (86_400.0 - 120.0)).ceil() as u64,
        "{slow}"
    );
    let notes = slow["notes"].to_string();
    assert_mentions(&notes, &[&format!("{segments} segments"), "1-00:00:00"]);

    let fast = by_name("dataset=fast");
    assert_ne!(fast["status"], "over_cap");
    assert_eq!(fast["partition"], "cpubase_bycore_b1", "{fast}");
    assert_eq!(fast["tasks"], 3);

    // The same budget as sbatch lines: the slow stratum's lines are commented
    // out, the fast one's is live.
    let out = budget(
        dir.path(),
        &[
            "--model",
            &model,
            "--grid",
            &grid,
            "--partitions",
            list,
            "--format",
            "sbatch",
        ],
        3,
    );
    let text = stdout(&out);
    let live: Vec<&str> = text.lines().filter(|l| l.starts_with("sbatch ")).collect();
    assert_eq!(live.len(), 1, "{text}");
    assert_mentions(live[0], &["--array=0-2", "dataset=fast"]);
    assert!(text.contains("# sbatch --array=0-1"), "{text}");
}

// MODEL-DEPENDENT (model_json, and a cost of about `rate_s` per unit): the
// JSON contract of design.md on a budget that fits.
#[test]
fn json_output_holds_the_contract_fields() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=Y", 60.0)], None),
    );
    // 100 units x 60 s: about 1 h 40 min on the lab cluster.
    let out = budget(
        dir.path(),
        &[
            "--model",
            &model,
            "--units",
            "100",
            "--partitions",
            &at_repo_file(LAB_SINFO),
            "--format",
            "json",
        ],
        0,
    );
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["units"], 100);
    assert_eq!(doc["confidence"], calib::calibrate::DEFAULT_CONFIDENCE);
    let s = &doc["strata"][0];
    for field in [
        "stratum",
        "units",
        "predicted_s",
        "floor_s",
        "upper_s",
        "time",
        "time_s",
        "partition",
        "status",
        "notes",
    ] {
        assert!(s.get(field).is_some(), "no `{field}` in {s}");
    }
    assert_eq!(s["stratum"], "dataset=Y");
    assert_eq!(s["units"], 100);
    // The budgeting rule (design.md): the upper bound rounded up to the whole
    // minute, or a cap in [floor_s, upper_s) that it was rounded down to.
    let time_s = s["time_s"].as_u64().unwrap();
    let floor_s = s["floor_s"].as_f64().unwrap();
    let upper_s = s["upper_s"].as_f64().unwrap();
    match s["status"].as_str().unwrap() {
        "ok" => assert_eq!(time_s, (upper_s / 60.0).ceil() as u64 * 60, "{s}"),
        "rounded_down" => {
            assert!(floor_s <= time_s as f64 && (time_s as f64) < upper_s, "{s}");
            assert!(time_s.is_multiple_of(60), "{s}");
        }
        other => panic!("status {other}: {s}"),
    }
    // `time` is `time_s` in a form Slurm parses.
    let time = s["time"].as_str().unwrap();
    assert_eq!(
        calib::slurm::time::parse_time(time).unwrap().seconds(),
        Some(time_s)
    );
    // A partition of the default family (the lab's cpubase_bycore, b1..b5),
    // whose cap holds the time.
    let partition = s["partition"].as_str().unwrap();
    let caps = [
        ("cpubase_bycore_b1", 3 * 3600),
        ("cpubase_bycore_b2", 12 * 3600),
        ("cpubase_bycore_b3", 24 * 3600),
        ("cpubase_bycore_b4", 3 * 86_400),
        ("cpubase_bycore_b5", 7 * 86_400),
    ];
    let cap = caps
        .iter()
        .find(|(name, _)| *name == partition)
        .unwrap_or_else(|| panic!("{partition} is not of the default family"));
    assert!(time_s <= cap.1);
}

// MODEL-DEPENDENT (model_json). The sbatch lines name the partition only where
// the partitions in play are not one family of time buckets routed by --time.
#[test]
fn sbatch_names_the_partition_only_outside_a_bucket_family() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 60.0)], None),
    );
    let run = |partitions: &str, extra: &[&str]| {
        let mut args = vec![
            "--model",
            &model,
            "--units",
            "100",
            "--format",
            "sbatch",
            "--partitions",
            partitions,
        ];
        args.extend_from_slice(extra);
        let out = budget(dir.path(), &args, 0);
        stdout(&out)
    };
    let routed = run(&at("sinfo-narval.txt"), &["--explain"]);
    let line = routed.lines().find(|l| l.starts_with("sbatch ")).unwrap();
    assert!(!line.contains("--partition"), "{routed}");
    assert!(routed.contains("--partition is left out"), "{routed}");
    let pinned = run(&at("sinfo-narval.txt"), &["--name-partition", "always"]);
    let line = pinned.lines().find(|l| l.starts_with("sbatch ")).unwrap();
    assert!(line.contains("--partition=cpubase_bycore_b1"), "{pinned}");
    let plain = run("short 1:00:00\nlong 7-00:00:00", &[]);
    let line = plain.lines().find(|l| l.starts_with("sbatch ")).unwrap();
    assert!(line.contains("--partition=long"), "{plain}");
}

// MODEL-DEPENDENT (model_json): a 300-unit run at about 60 s per unit needs
// about 5 hours, more than the default partition's hour and less than a week.
#[test]
fn longer_partitions_left_out_of_play_are_named_with_the_flag_that_adds_them() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 60.0)], None),
    );
    // A common layout: a short default partition, a long one, one of other
    // hardware. By default only the default partition is in play.
    let partitions = "short* 1:00:00\nlong 7-00:00:00\ngpu-a100 2-00:00:00\n";
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["--model", &model, "--units", "300", "--tasks", "2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(["--partitions", partitions, "--format", "json"].map(String::from));
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let out = budget(dir.path(), &refs(&args(&[])), 3);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let stratum = &doc["strata"][0];
    assert_eq!(stratum["status"], "over_cap", "{doc}");
    assert!(stratum["segments"].as_u64().unwrap() >= 5, "{doc}");
    // Nothing is submitted (the over_cap line is commented out): no longest
    // task, no hours requested, rather than the unsubmittable single time.
    assert!(doc["summary"]["longest"].is_null(), "{doc}");
    assert_eq!(doc["summary"]["requested_hours"], 0.0, "{doc}");
    // The note names the longer partitions and the flag, shell-quoted.
    let notes = doc["notes"].to_string();
    assert_mentions(&notes, &["long 7-00:00:00", "gpu-a100 2-00:00:00"]);
    // One flag per partition: both together would route the job to the
    // shorter of them, which may be other hardware.
    let quoted = Regex::new(r"--partition-regex '([^']+)' adds long")
        .unwrap()
        .captures(&notes)
        .unwrap_or_else(|| panic!("no flag for long in {notes}"))[1]
        .to_string();
    assert!(!quoted.contains("gpu"), "{quoted}");
    // Taken as the note gives it, the run fits a partition as one task.
    let out = budget(dir.path(), &refs(&args(&["--partition-regex", &quoted])), 0);
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["strata"][0]["status"], "ok", "{doc}");
    assert_eq!(doc["strata"][0]["partition"], "long", "{doc}");
    let time_s = doc["strata"][0]["time_s"].as_u64().unwrap();
    assert_eq!(doc["summary"]["longest"]["time_s"], time_s, "{doc}");
    let kinds: Vec<&Value> = doc["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| &n["kind"])
        .collect();
    assert!(!kinds.contains(&&Value::from("longer_partitions")), "{doc}");
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// An array past Slurm's default MaxArraySize (1001: indexes 0-1000) is
/// refused whole by sbatch where the cluster keeps the default: the stratum's
/// note says so; at 1001 tasks (last index 1000) it says nothing.
#[test]
fn an_array_past_the_default_max_array_size_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let noted = |tasks: &str| {
        let out = budget(
            dir.path(),
            &[
                common::repo_file("data/spread-20.csv").to_str().unwrap(),
                "--units",
                "100",
                "--tasks",
                tasks,
                "--partitions",
                "b 3-00:00:00",
                "--format",
                "json",
            ],
            0,
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["strata"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["notes"].to_string().contains("MaxArraySize"))
            .count()
    };
    assert_eq!(noted("1002"), 2);
    assert_eq!(noted("1001"), 0);
}

/// Mahuika lists no default partition and six partitions of one 3-day cap,
/// `maintenance` first. A stratum that fits 3 days goes to the first listed,
/// which calib cannot tell apart from the others by time: the note names the
/// partitions that share the cap and the strata sent there, and narrowing with
/// --partition-regex as it says sends them elsewhere, without the note. A cap
/// shared by no other partition in play gets no note.
#[test]
fn a_partition_chosen_among_several_of_the_same_cap_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=A", 600.0)], None),
    );
    let run = |extra: &[&str], code: i32| -> Value {
        let mut args = vec!["--model", &model, "--units", "100", "--partitions"];
        let partitions = at("sinfo-mahuika.txt");
        args.push(&partitions);
        args.extend(["--format", "json"]);
        args.extend(extra);
        let out = budget(dir.path(), &args, code);
        serde_json::from_str(&stdout(&out)).unwrap()
    };
    let doc = run(&[], 0);
    assert_eq!(doc["strata"][0]["partition"], "maintenance", "{doc}");
    let notes = doc["notes"].to_string();
    assert_mentions(
        &notes,
        &[
            "maintenance shares its cap (3-00:00:00) with interactive, large, gpu, infill, igpu",
            "for 1 stratum (dataset=A)",
            "--partition-regex",
        ],
    );
    let doc = run(&["--partition-regex", "^(prepost|large|bigmem|long)$"], 0);
    assert_eq!(doc["strata"][0]["partition"], "large", "{doc}");
    assert!(
        !doc["notes"].to_string().contains("shares its cap"),
        "{doc}"
    );
}

/// The grid's own refusals name its file and the line: a sizes CSV row for a
/// stratum the model never measured, and one that gives no units; a campaign
/// grid without stratum axes is one stratum, measured by a probe without
/// --stratum, which the message says instead of `--stratum ` with nothing.
#[test]
fn grid_refusals_name_the_file_and_line_and_a_probe_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let model = write_arg(
        dir.path(),
        "m.json",
        model_json(&[("dataset=Y", 60.0)], None),
    );
    let refused = |name: &str, text: &str| {
        write_arg(dir.path(), name, text);
        let out = budget(
            dir.path(),
            &[
                "--model",
                &model,
                "--grid",
                name,
                "--partitions",
                "b 1-00:00:00",
            ],
            2,
        );
        stderr(&out)
    };
    let err = refused(
        "s.csv",
        "stratum,units,tasks\ndataset=Y,100,3\ndataset=Q,100,2\n",
    );
    assert_mentions(
        &err,
        &[
            "s.csv, line 3:",
            "`dataset=Q`",
            "calib probe --stratum dataset=Q -- ",
        ],
    );
    let err = refused("u.csv", "stratum,units,tasks\ndataset=Y,,3\n");
    assert_mentions(&err, &["u.csv, line 2:", "`dataset=Y` no units"]);
    // More tasks than one array can hold anywhere (MaxArraySize <= 4000001).
    let err = refused("t.csv", "stratum,units,tasks\ndataset=Y,100,1000000000\n");
    assert_mentions(&err, &["t.csv, line 2:", "at most 4000001"]);
    let out = budget(
        dir.path(),
        &[
            "--model",
            &model,
            "--units",
            "100",
            "--tasks",
            "4000002",
            "--partitions",
            "b 1-00:00:00",
        ],
        2,
    );
    assert_mentions(&stderr(&out), &["--tasks", "at most 4000001"]);
    let err = refused(
        "all.toml",
        "output = \"r/{seed}.txt\"\nunits = 10\n[axes]\nseed = [1, 2]\n",
    );
    assert_mentions(&err, &["all.toml", "(calib probe -- ...)"]);
    assert!(!err.contains("--stratum  "), "{err}");
}

/// A table whose rows have no stratum is one stratum, shown as `(all)` in
/// the table, its notes and the sbatch comments, as `calib fit` shows it;
/// the files and the emitted shell keep the empty text itself.
#[test]
fn the_stratum_of_a_table_without_strata_is_shown_as_all() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.csv"),
        "run,stratum,unit,elapsed_s\nr1,,1,10\nr1,,2,20\nr1,,3,30\nr2,,1,11\nr2,,2,21\nr2,,3,32\n",
    )
    .unwrap();
    let args = ["t.csv", "-n", "10", "-p", "p 1:00:00"];
    let table = stdout(&budget(
        dir.path(),
        &[&args[..], &["--explain"]].concat(),
        0,
    ));
    let row = table.lines().nth(2).unwrap_or_default();
    assert!(row.starts_with("(all) "), "{table}");
    assert!(table.contains("\n(all):\n  - margin"), "{table}");
    let sbatch = stdout(&budget(
        dir.path(),
        &[&args[..], &["-f", "sbatch"]].concat(),
        0,
    ));
    assert!(sbatch.contains("# (all): --time="), "{sbatch}");
    assert!(sbatch.contains("CALIB_STRATUM=,"), "{sbatch}");
    let json: Value = serde_json::from_str(&stdout(&budget(
        dir.path(),
        &[&args[..], &["-f", "json"]].concat(),
        0,
    )))
    .unwrap();
    assert_eq!(json["strata"][0]["stratum"], "");
}
