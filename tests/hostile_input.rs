//! Defects that adversarial input found, each fixed and kept here as a test
//! that failed before the fix: a model written through a link onto a
//! timings file, a write target refused only after the whole fit, a probe
//! that measured nothing exiting 0, raw control characters in backtest's
//! CSV, and audit's whole-run rows filing different job names as one
//! stratum (or a control character's as none).

mod common;

use std::path::PathBuf;

use calib::timings::{read_timings, IngestOptions};
use common::{calib, stderr, stdout, write_file};

#[test]
fn fit_o_through_a_link_onto_a_timings_file_is_refused_and_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let csv = std::fs::read_to_string(common::repo_file("data/trend-probe-60x3.csv")).unwrap();
    let timings = write_file(dir.path(), "runs.csv", &csv);
    // Another campaign's timings, not an input of this fit.
    let other = write_file(dir.path(), "other.csv", &csv);
    let link = dir.path().join("model.json");
    std::os::unix::fs::symlink(&other, &link).unwrap();
    let out = calib()
        .arg("fit")
        .arg(&timings)
        .arg("-o")
        .arg(&link)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a link to"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&other).unwrap(), csv);
}

#[test]
fn fit_o_to_what_no_file_replaces_is_refused_before_the_timings_are_read() {
    let dir = tempfile::tempdir().unwrap();
    // Timings that are themselves bad input: the -o refusal must come first.
    let bad = write_file(
        dir.path(),
        "bad.csv",
        "run,stratum,unit,elapsed_s\nr,,1,abc\n",
    );
    let out = calib()
        .arg("fit")
        .arg(&bad)
        .args(["-o", "/dev/null"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("/dev/null"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("bad.csv"), "{}", stderr(&out));
}

#[test]
fn a_probe_that_records_no_unit_fails() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 2] = [
        (
            &[
                "--timeout",
                "0.001s",
                "--",
                "sh",
                "-c",
                "sleep 1; echo step 1",
            ],
            "--timeout",
        ),
        (
            &["--unit-regex", "^step", "--", "sh", "-c", "echo x; echo y"],
            "--unit-regex",
        ),
    ];
    for (i, (args, hint)) in cases.iter().enumerate() {
        let out = calib()
            .args(["probe", "--allow-login", "--stratum", "d=1", "--out"])
            .arg(dir.path().join(format!("t{i}")))
            .args(*args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("no unit finished"),
            "{}",
            stderr(&out)
        );
        assert!(stderr(&out).contains(hint), "{}", stderr(&out));
    }
}

#[test]
fn backtest_csv_shows_control_characters_in_run_ids_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for run in 1..=4 {
        for unit in 1..=20 {
            let t = 1.0 + f64::from(unit) * (1.0 + 0.02 * f64::from(run));
            csv.push_str(&format!("r\u{1b}[31m{run}\u{7},d=a,{unit},{t:.3}\n"));
        }
    }
    let file = write_file(dir.path(), "runs.csv", csv);
    let out = calib()
        .arg("backtest")
        .arg(&file)
        .args(["--probe-units", "5", "--seeds", "2", "--format", "csv"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("r\\u{1b}[31m1\\u{7}"), "{text}");
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text:?}"
    );
}

#[test]
fn audit_write_timings_keeps_different_job_names_apart() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = "\
JobID|JobIDRaw|JobName|Partition|State|ExitCode|Elapsed|Timelimit|Comment
1|1|a,b|b1|COMPLETED|0:0|00:01:40|00:10:00|
2|2|a;b|b1|COMPLETED|0:0|00:02:00|00:10:00|
3|3|a_b|b1|COMPLETED|0:0|00:02:20|00:10:00|
4|4|bell\u{7}|b1|COMPLETED|0:0|00:02:40|00:10:00|
";
    let at = format!("@{}", write_file(dir.path(), "sacct.txt", sacct).display());
    let out_file: PathBuf = dir.path().join("runs.csv");
    let out = calib()
        .args(["audit", &at, "--units", "10", "--write-timings"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let timings = read_timings(std::slice::from_ref(&out_file), &IngestOptions::default()).unwrap();
    let mut strata: Vec<String> = timings.runs.iter().map(|r| r.stratum.canonical()).collect();
    strata.sort();
    strata.dedup();
    assert_eq!(strata.len(), 4, "{strata:?}");
    assert!(
        strata.iter().all(|s| s.starts_with("name=") && s.len() > 5),
        "{strata:?}"
    );
}

#[test]
fn every_component_of_a_heterogeneous_job_is_a_job_record() {
    let sacct = "\
JobID|JobIDRaw|JobName|Partition|State|ExitCode|Elapsed|Timelimit|Comment
200+0|200|het|b1|COMPLETED|0:0|00:01:40|00:10:00|calib stratum=d=a
200+1|201|het|b1|TIMEOUT|0:0|00:10:00|00:10:00|calib stratum=d=a
200+1.batch|201.batch|batch||CANCELLED|0:15|00:10:05||
";
    let out = calib()
        .args(["audit", sacct, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["job_rows"], 2, "{doc}");
    assert_eq!(doc["groups"][0]["usage"]["states"]["TIMEOUT"], 1, "{doc}");
}

#[test]
fn partitions_that_are_not_up_are_left_out_with_a_note() {
    use calib::error::Origin;
    use calib::slurm::partitions::parse_partitions;
    let texts = [
        // sinfo -h -o '%P %l %a'
        "cpubase_bycore_b1* 3:00:00 up\ncpubase_bycore_b2 12:00:00 drain\ncpubase_bycore_b3 1-00:00:00 up\n",
        // the default sinfo view, one line per node state
        "PARTITION AVAIL TIMELIMIT NODES STATE NODELIST\n\
         cpubase_bycore_b1* up 3:00:00 1 idle localhost\n\
         cpubase_bycore_b2 inact 12:00:00 1 idle localhost\n\
         cpubase_bycore_b3 up 1-00:00:00 1 idle localhost\n",
        // scontrol show partition
        "PartitionName=cpubase_bycore_b1\n   Default=YES MaxTime=03:00:00 State=UP\n\n\
         PartitionName=cpubase_bycore_b2\n   Default=NO MaxTime=12:00:00 State=DOWN\n\n\
         PartitionName=cpubase_bycore_b3\n   Default=NO MaxTime=1-00:00:00 State=UP\n",
    ];
    for text in texts {
        let list = parse_partitions(text, &Origin::Stdin).unwrap();
        let names: Vec<&str> = list.partitions.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["cpubase_bycore_b1", "cpubase_bycore_b3"], "{text}");
        assert!(
            list.notes
                .iter()
                .any(|n| n.contains("cpubase_bycore_b2") && n.contains("not up")),
            "{:?}",
            list.notes
        );
    }
    let e = parse_partitions("b1 3:00:00 drain\n", &Origin::Stdin).unwrap_err();
    assert!(e.to_string().contains("no partition is up"), "{e}");
}

/// A file of blank lines is told as such (it said "found: " and nothing),
/// and a file whose lines end in a lone CR is read as rows, with no false
/// warning that it has none.
#[test]
fn blank_lines_and_cr_line_ends_are_told_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "blank.csv", "\n\n\n");
    let out = calib()
        .current_dir(dir.path())
        .args(["fit", "blank.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("blank.csv, line 1: the first line is blank; expected the header"),
        "{err}"
    );
    write_file(
        dir.path(),
        "cr.csv",
        "run,stratum,unit,elapsed_s\rr1,d=a,1,1\rr1,d=a,2,2\rr2,d=a,1,1\rr2,d=a,2,2.1\r",
    );
    let out = calib()
        .current_dir(dir.path())
        .args(["fit", "cr.csv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("no row"), "{}", stderr(&out));
    assert!(stdout(&out).contains("d=a         2"), "{}", stdout(&out));
}
