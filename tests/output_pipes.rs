//! What calib does when its readers go away, and with labels too wide for
//! `format!`: the built binary, as a shell pipeline would run it.
//!
//! A reader that stops early (`calib budget ... | head -1`) must end calib
//! quietly with status 0; a closed stderr (`2>&1 | head -1`) must never panic;
//! a full disk behind stdout is a failure (status 1). The outputs here are made
//! far larger than a pipe's buffer (64 KiB on Linux), so calib is still writing
//! when the reader goes away.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use common::{at_repo_file, read_timings_at, stderr, stdout};

/// Strata in the large timings file, and the length of each label: 200 table
/// rows of over 1,000 characters, about 200 KB of fit table and 800 KB of
/// budget table.
const STRATA: usize = 200;
const LABEL_LEN: usize = 1_000;

fn calib(dir: &Path) -> Command {
    let mut c = common::calib();
    c.current_dir(dir);
    c
}

fn partitions() -> String {
    at_repo_file("tests/data/slurm/lab-sinfo-P-l.txt")
}

/// A timings file: per stratum, 3 runs of 10 units at about 1 s a unit.
fn timings(dir: &Path, labels: &[String]) -> PathBuf {
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for (s, label) in labels.iter().enumerate() {
        for (r, level) in [0.99, 1.00, 1.01].iter().enumerate() {
            let mut elapsed = 0.0;
            for unit in 1..=10u64 {
                let wobble = if (unit + r as u64).is_multiple_of(2) {
                    1.005
                } else {
                    0.995
                };
                elapsed += level * wobble;
                csv.push_str(&format!("s{s}r{r},\"{label}\",{unit},{elapsed:.6}\n"));
            }
        }
    }
    let path = dir.join("timings.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

fn large_timings(dir: &Path) -> PathBuf {
    let labels: Vec<String> = (0..STRATA)
        .map(|s| format!("case={}{s}", "x".repeat(LABEL_LEN)))
        .collect();
    timings(dir, &labels)
}

/// `calib audit` input: one job per group, so one row each (about 1.2 MB).
fn large_sacct(dir: &Path) -> PathBuf {
    let mut text = String::from("JobID|JobName|State|Elapsed|Timelimit\n");
    for i in 0..3_000 {
        text.push_str(&format!(
            "{}|job-{i}|COMPLETED|00:10:00|01:00:00\n",
            1_000 + i
        ));
    }
    let path = dir.join("sacct.txt");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `command` with stdout into a reader that reads one line and goes
/// away, as `| head -1` does; returns that line and how calib ended.
fn read_one_line_then_close(command: &mut Command) -> (String, Output) {
    let mut child: Child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("calib runs");
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    drop(reader);
    (first, child.wait_with_output().unwrap())
}

#[track_caller]
fn assert_quiet_success(first: &str, out: &Output, expected_start: &str) {
    let stderr = stderr(out);
    assert!(
        first.starts_with(expected_start),
        "first line: {first:.200}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn budget_into_a_reader_that_stops_after_one_line_ends_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let timings = large_timings(dir.path());
    for format in ["table", "json", "csv", "sbatch"] {
        let (first, out) = read_one_line_then_close(
            calib(dir.path())
                .arg("budget")
                .arg(&timings)
                .args(["--units", "100", "--format", format, "--partitions"])
                .arg(partitions()),
        );
        let expected = match format {
            "table" => "stratum",
            "json" => "{",
            "csv" => "stratum,",
            _ => "# calib",
        };
        assert_quiet_success(&first, &out, expected);
    }
}

#[test]
fn audit_into_a_reader_that_stops_after_one_line_ends_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = large_sacct(dir.path());
    for format in ["table", "json"] {
        let (first, out) = read_one_line_then_close(
            calib(dir.path())
                .arg("audit")
                .arg(format!("@{}", sacct.display()))
                .args(["--format", format]),
        );
        let expected = if format == "table" { "stratum " } else { "{" };
        assert_quiet_success(&first, &out, expected);
    }
}

#[test]
fn fit_into_a_reader_that_stops_after_one_line_ends_quietly_and_keeps_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let timings = large_timings(dir.path());
    let model = dir.path().join("model.json");
    let (first, out) = read_one_line_then_close(
        calib(dir.path())
            .arg("fit")
            .arg(&timings)
            .arg("-o")
            .arg(&model),
    );
    assert_quiet_success(&first, &out, "stratum");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(written["strata"].as_array().unwrap().len(), STRATA);
}

/// A pipe whose reader is already gone: every write to it fails with EPIPE,
/// whatever the timing.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

/// `--units` far beyond the 10 units probed: a warning per stratum.
fn fit_with_warnings(dir: &Path) -> Command {
    let timings = large_timings(dir);
    let mut c = calib(dir);
    c.arg("fit").arg(timings).args(["--units", "100000"]);
    c
}

#[test]
fn fit_warnings_on_a_closed_stderr_are_dropped_and_the_table_is_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = fit_with_warnings(dir.path())
        .stdout(Stdio::piped())
        .stderr(closed_pipe())
        .spawn()
        .unwrap();
    let mut table = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut table)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{table:.500}");
    // The header, the rule under it, and one line per stratum; then the
    // footnote, as when stderr is open.
    let rows = table.lines().take_while(|l| !l.is_empty()).count();
    assert_eq!(rows, 2 + STRATA, "{table:.500}");
    let open = fit_with_warnings(dir.path()).output().unwrap();
    assert_eq!(table, String::from_utf8(open.stdout).unwrap());
}

#[test]
fn fit_with_stdout_and_stderr_into_one_closed_pipe_ends_with_status_0() {
    // `calib fit ... 2>&1 | head -1` once head has gone.
    let dir = tempfile::tempdir().unwrap();
    let pipe = closed_pipe();
    let out = fit_with_warnings(dir.path())
        .stdout(pipe.try_clone().unwrap())
        .stderr(pipe)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_full_disk_behind_stdout_is_a_failure_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let timings = large_timings(dir.path());
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = calib(dir.path())
        .arg("budget")
        .arg(&timings)
        .args(["--units", "100", "--partitions"])
        .arg(partitions())
        .stdout(full)
        .output()
        .unwrap();
    let stderr = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write to standard output"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn help_version_and_completions_end_like_every_command_when_stdout_fails() {
    // clap_complete panicked on a failed write, and clap's own --help ignored
    // one: a closed reader is a quiet success, a full disk status 1.
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["completions", "bash"][..],
        &["--help"],
        &["budget", "--help"],
        &["--version"],
    ] {
        let closed = calib(dir.path())
            .args(args)
            .stdout(closed_pipe())
            .output()
            .unwrap();
        let err = stderr(&closed);
        assert_eq!(closed.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = calib(dir.path()).args(args).stdout(full).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot write to standard output"), "{err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

// ---------------------------------------------------------------------------
// A stratum label longer than `format!` can pad (its width stops at 65,535).

const LONG_LABEL_LEN: usize = 70_000;

fn long_label() -> String {
    format!("case={}", "y".repeat(LONG_LABEL_LEN))
}

/// The data row of `label` in a table: the label whole, then the next column.
#[track_caller]
fn assert_row_of(table: &str, label: &str) {
    let row = table
        .lines()
        .find(|line| line.starts_with(label))
        .unwrap_or_else(|| panic!("no row starts with the label in:\n{table:.300}"));
    let rest = &row[label.len()..];
    assert!(
        rest.starts_with("  ") && !rest.trim().is_empty(),
        "the label is not followed by the other columns: {rest:.100}"
    );
}

#[test]
fn fit_table_shows_a_70000_character_label_whole() {
    let dir = tempfile::tempdir().unwrap();
    let label = long_label();
    let timings = timings(dir.path(), std::slice::from_ref(&label));
    let out = calib(dir.path())
        .arg("fit")
        .arg(&timings)
        .args(["--units", "20"])
        .output()
        .unwrap();
    let stderr = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_row_of(&stdout(&out), &label);
}

#[test]
fn budget_table_shows_a_70000_character_label_whole() {
    let dir = tempfile::tempdir().unwrap();
    let label = long_label();
    let timings = timings(dir.path(), std::slice::from_ref(&label));
    let out = calib(dir.path())
        .arg("budget")
        .arg(&timings)
        .args(["--units", "100", "--partitions"])
        .arg(partitions())
        .output()
        .unwrap();
    let stderr = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_row_of(&stdout(&out), &label);
}

// ---------------------------------------------------------------------------
// probe passes the command's output through: a reader that goes away loses
// the echo, never the units.

fn probe(dir: &Path) -> Command {
    let mut c = common::calib();
    c.env("SLURM_JOB_ID", "4242")
        .env("SLURM_CLUSTER_NAME", "testcluster")
        .arg("probe")
        .arg("--out")
        .arg(dir.join("timings"))
        .args(["-s", "k=v", "--progress", "plain", "--"])
        .args([
            "sh",
            "-c",
            "i=0; while [ $i -lt 50 ]; do i=$((i+1)); echo \"step $i\"; echo \"log $i\" >&2; done",
        ]);
    c
}

/// The unit numbers recorded under `dir/timings`.
fn units_recorded(dir: &Path) -> Vec<u64> {
    read_timings_at(&dir.join("timings"))
        .runs
        .iter()
        .flat_map(|run| run.points.iter().map(|&(unit, _)| unit))
        .collect()
}

#[test]
fn probe_with_stdout_and_stderr_closed_records_every_unit() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = closed_pipe();
    let out = probe(dir.path())
        .stdout(pipe.try_clone().unwrap())
        .stderr(pipe)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(units_recorded(dir.path()), (1..=50).collect::<Vec<_>>());
}

#[test]
fn probe_with_stdout_closed_says_so_on_stderr_and_records_every_unit() {
    let dir = tempfile::tempdir().unwrap();
    let out = probe(dir.path())
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("standard output is closed"), "{stderr}");
    // The command's stderr still passes through.
    assert!(stderr.contains("log 50"), "{stderr}");
    assert_eq!(units_recorded(dir.path()), (1..=50).collect::<Vec<_>>());
}
