//! `calib probe` end to end: real commands (shell loops, a Python script) run
//! through the built binary; the rows are read back with the reader `calib fit`
//! uses.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use calib::timings::{read_timings, IngestOptions, RunEnd, RunTimings};
use common::{calib, files_in as files, repo_file, stderr, stdout};

fn fixture(name: &str) -> PathBuf {
    repo_file("tests/fixtures/probe").join(name)
}

/// calib probe, as inside a Slurm allocation on a cluster called `testcluster`
/// (so that the login-node gate does not apply), with `--out dir`.
fn probe(dir: &Path) -> Command {
    let mut c = calib();
    c.env("SLURM_JOB_ID", "4242")
        .env("SLURM_CLUSTER_NAME", "testcluster")
        .arg("probe")
        .arg("--out")
        .arg(dir);
    c
}

fn run(c: &mut Command) -> Output {
    c.output().expect("calib runs")
}

fn runs(dir: &Path) -> Vec<RunTimings> {
    let t = read_timings(&[dir.to_path_buf()], &IngestOptions::default()).expect("rows parse");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    t.runs
}

/// The raw rows of one file, as maps from column to value.
fn raw_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .map(String::from)
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn units_of(run: &RunTimings) -> Vec<u64> {
    run.points.iter().map(|p| p.0).collect()
}

#[test]
fn units_limit_stops_a_shell_loop_and_every_row_carries_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let began = Instant::now();
    let out = run(probe(dir.path())
        .args([
            "-s",
            "dataset=Y,model=7B",
            "--units",
            "3",
            "--grace",
            "5s",
            "--",
        ])
        .args([
            "sh",
            "-c",
            "i=0; while [ $i -lt 1000 ]; do i=$((i+1)); echo \"epoch $i/1000\"; sleep 0.02; done",
        ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        began.elapsed() < Duration::from_secs(15),
        "the loop was not stopped"
    );
    let runs = runs(dir.path());
    assert_eq!(runs.len(), 1);
    let r = &runs[0];
    assert_eq!(units_of(r), [1, 2, 3]);
    assert_eq!(r.stratum.canonical(), "dataset=Y,model=7B");
    let (end, n, t) = r.end.clone().expect("an end row");
    assert_eq!(end, RunEnd::Limit);
    assert_eq!(n, 3);
    assert!(t >= r.points[2].1);
    let fp = &r.fingerprint;
    assert_eq!(fp.cluster.as_deref(), Some("testcluster"));
    assert_eq!(fp.job_id.as_deref(), Some("4242"));
    if !which("nvidia-smi") {
        assert_eq!(fp.gpus.as_deref(), Some("none"));
    }
    assert_eq!(fp.calib_version.as_deref(), Some(calib::VERSION));
    assert!(fp.host.as_deref().is_some_and(|h| !h.is_empty()));
    assert!(fp.cpus.as_deref().unwrap().parse::<usize>().unwrap() >= 1);
    chrono::DateTime::parse_from_rfc3339(fp.started_at.as_deref().unwrap()).expect("RFC 3339");
    // unit_s is each unit's own time, and the first matched lines were shown.
    let rows = raw_rows(&files(dir.path())[0]);
    assert_eq!(rows.len(), 4);
    let mut previous = 0.0;
    for row in &rows[..3] {
        let elapsed: f64 = row["elapsed_s"].parse().unwrap();
        let unit_s: f64 = row["unit_s"].parse().unwrap();
        assert!((elapsed - previous - unit_s).abs() < 1e-5, "{row:?}");
        previous = elapsed;
        assert!(row["end"].is_empty());
    }
    let err = stderr(&out);
    assert!(
        err.contains("unit 1 at") && err.contains("epoch 1/1000"),
        "{err}"
    );
    // Pass-through: the loop's own lines reach calib's stdout unchanged.
    assert!(stdout(&out).starts_with("epoch 1/1000\nepoch 2/1000\nepoch 3/1000\n"));
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

#[test]
fn python_markers_on_both_streams_are_counted_in_order_and_output_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let script = fixture("workload.py");
    let workload = [
        "--units",
        "6",
        "--unit-s",
        "0.05",
        "--streams",
        "alternate",
        "--long-line",
        "300000",
    ];
    let out = run(probe(dir.path())
        .args(["-s", "dataset=X", "--"])
        .arg("python3")
        .arg(&script)
        .args(workload));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let direct = Command::new("python3")
        .arg(&script)
        .args(workload)
        .output()
        .unwrap();
    assert_eq!(
        out.stdout, direct.stdout,
        "stdout passed through byte for byte"
    );
    let err = stderr(&out);
    for i in [2, 4, 6] {
        assert!(
            err.contains(&format!("generation {i}\n")),
            "stderr passed through: {err}"
        );
    }
    let runs = runs(dir.path());
    assert_eq!(units_of(&runs[0]), [1, 2, 3, 4, 5, 6]);
    let (end, n, _) = runs[0].end.clone().unwrap();
    assert_eq!((end, n), (RunEnd::Exit(0), 6));
    // Units come about 0.05 s apart (a read delayed by a busy machine can
    // shorten one gap, never the whole span).
    let times: Vec<f64> = runs[0].points.iter().map(|p| p.1).collect();
    assert!(times[5] - times[0] >= 5.0 * 0.05 * 0.9, "{times:?}");
}

#[test]
fn exit_status_and_signal_are_recorded_and_returned() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=exit",
        "--",
        "sh",
        "-c",
        "echo step 1; echo step 2 >&2; exit 7",
    ]));
    assert_eq!(out.status.code(), Some(7));
    let dir2 = tempfile::tempdir().unwrap();
    let out2 = run(probe(dir2.path()).args([
        "-s",
        "k=sig",
        "--",
        "sh",
        "-c",
        "echo step 1; kill -TERM $$; sleep 5",
    ]));
    assert_eq!(out2.status.code(), Some(128 + 15), "{}", stderr(&out2));
    let r = &runs(dir.path())[0];
    assert_eq!(units_of(r), [1, 2]);
    assert_eq!(r.end.clone().unwrap().0, RunEnd::Exit(7));
    let r2 = &runs(dir2.path())[0];
    assert_eq!(
        r2.end.clone().unwrap(),
        (RunEnd::Signal("TERM".into()), 1, r2.end.clone().unwrap().2)
    );
}

/// A file-size limit reached by a row (`ulimit -f`, as a full disk): calib
/// says so and exits 1, the command is stopped, and the file holds whole rows
/// only, which `calib fit` reads without a word: the part of the row that got
/// in is cut away, so the run's end row is never glued to it.
#[test]
fn a_row_cut_by_a_file_size_limit_is_cut_away_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .env("SLURM_JOB_ID", "4242")
        .env("SLURM_CLUSTER_NAME", "testcluster")
        .stdin(Stdio::null())
        .args([
            "-c",
            "ulimit -f 4 && exec \"$0\" \"$@\"",
            common::CALIB,
            "probe",
            "--out",
        ])
        .arg(dir.path())
        .args([
            "-s",
            "k=fsz",
            "--",
            "sh",
            "-c",
            "i=0; while [ $i -lt 500 ]; do i=$((i+1)); echo epoch $i; done",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot append to"),
        "{}",
        stderr(&out)
    );
    let file = files(dir.path()).into_iter().next().unwrap();
    assert!(
        !file.file_name().unwrap().to_string_lossy().starts_with('.'),
        "{}",
        stderr(&out)
    );
    let bytes = std::fs::read(&file).unwrap();
    assert!(
        bytes.len() <= 4096 && bytes.ends_with(b"\n"),
        "{}",
        bytes.len()
    );
    let rows = raw_rows(&file);
    assert!(rows.len() >= 5, "{}", rows.len());
    let r = &runs(dir.path())[0];
    assert_eq!(
        units_of(r),
        (1..=units_of(r).len() as u64).collect::<Vec<_>>()
    );
    // The units the run's line counts are the units the file holds.
    let recorded = format!(": {} units in", units_of(r).len());
    assert!(
        stderr(&out).contains(&recorded),
        "{recorded}: {}",
        stderr(&out)
    );
}

#[test]
fn a_custom_regex_counts_only_its_lines_and_shows_the_first_few() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--unit-regex",
        r"^DONE batch \d+$",
        "--show-units",
        "2",
        "--",
        "sh",
        "-c",
        "for i in 1 2 3 4; do echo \"epoch $i\"; echo \"DONE batch $i\"; echo \"not DONE batch $i\"; done",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(units_of(&runs(dir.path())[0]), [1, 2, 3, 4]);
    let err = stderr(&out);
    assert!(
        err.contains("unit 2 at") && !err.contains("unit 3 at"),
        "{err}"
    );
}

#[test]
fn no_marker_at_all_still_records_the_end_and_fails_saying_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "sh", "-c", "echo hello"]));
    // The command exited 0, but a probe that measured no unit is no success.
    assert_eq!(out.status.code(), Some(1));
    let r = &runs(dir.path())[0];
    assert!(r.points.is_empty());
    assert_eq!(r.end.clone().unwrap().1, 0);
    assert!(stderr(&out).contains("no line matched"), "{}", stderr(&out));
}

#[test]
fn repeat_substitutes_rep_and_gives_each_run_its_own_id_in_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--repeat",
        "3",
        "--first-rep",
        "0",
        "--units",
        "2",
        "--",
        "sh",
        "-c",
        "echo seed={rep}; for i in 1 2 3; do echo CALIB_UNIT; done",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = stdout(&out);
    for seed in 0..3 {
        assert!(stdout.contains(&format!("seed={seed}\n")), "{stdout}");
    }
    assert_eq!(files(dir.path()).len(), 1);
    let runs = runs(dir.path());
    assert_eq!(runs.len(), 3);
    let mut ids: Vec<&str> = runs.iter().map(|r| r.run.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 3);
    for (r, rep) in runs.iter().zip(0..) {
        assert!(r.run.ends_with(&format!("-r{rep}")), "{}", r.run);
        assert_eq!(units_of(r), [1, 2]);
    }
}

#[test]
fn a_failing_repetition_stops_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--repeat",
        "3",
        "--",
        "sh",
        "-c",
        "echo CALIB_UNIT; exit 4",
    ]));
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(runs(dir.path()).len(), 1);
}

#[test]
fn run_length_mode_writes_one_row_per_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--lengths",
        "3,30",
        "--repeat",
        "2",
        "--",
        "sh",
        "-c",
        "i=0; while [ $i -lt {units} ]; do i=$((i+1)); echo step $i; sleep 0.002; done",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runs = runs(dir.path());
    assert_eq!(runs.len(), 4);
    for (r, length) in runs.iter().zip([3u64, 30, 3, 30]) {
        assert_eq!(r.points.len(), 1, "{r:?}");
        assert_eq!(r.points[0].0, length);
        assert_eq!(r.end.clone().unwrap().0, RunEnd::Exit(0));
        assert!(r.run.ends_with(&format!("-n{length}")));
    }
    assert!(runs[1].points[0].1 > runs[0].points[0].1);
}

#[test]
fn a_length_given_twice_is_refused_before_anything_runs() {
    // Both runs would be named `-r1-n3`, a file calib fit refuses.
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--lengths",
        "3,30,3",
        "--",
        "sh",
        "-c",
        "echo {units}",
    ]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--lengths"), "{}", stderr(&out));
    assert!(
        files(dir.path()).is_empty(),
        "nothing written for bad input"
    );
}

#[test]
fn a_length_calib_fit_would_refuse_is_refused_before_anything_runs() {
    // The length is each row's `unit`, which calib fit reads up to 10^9: a
    // longer run would be run in full and recorded in a file that calib fit
    // then refuses, with every other file of the folder.
    for length in ["1000000001", "18446744073709551615"] {
        let dir = tempfile::tempdir().unwrap();
        let out = run(probe(dir.path()).args([
            "-s",
            "k=v",
            "--lengths",
            length,
            "--",
            "sh",
            "-c",
            "echo {units}",
        ]));
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains("--lengths"), "{}", stderr(&out));
        assert!(
            files(dir.path()).is_empty(),
            "nothing written for bad input"
        );
    }
    // The bound itself is a length calib fit reads.
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--lengths",
        "1000000000",
        "--",
        "sh",
        "-c",
        "echo {units}",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fitted = calib()
        .arg("fit")
        .arg(dir.path())
        .output()
        .expect("calib runs");
    assert_eq!(fitted.status.code(), Some(0), "{}", stderr(&fitted));
}

#[test]
fn run_length_mode_needs_the_units_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args(["-s", "k=v", "--lengths", "3", "--", "echo", "hi"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("{units}"));
    assert!(
        files(dir.path()).is_empty(),
        "nothing written for bad input"
    );
}

#[test]
fn bad_inputs_exit_2_and_name_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let plain_file = dir.path().join("a-file");
    std::fs::write(&plain_file, "x").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["-s", "k=v", "--unit-regex", "epoch (", "--", "true"],
            "--unit-regex",
        ),
        (vec!["-s", "dataset", "--", "true"], "--stratum"),
        (vec!["-s", "a=1", "-s", "a=2", "--", "true"], "--stratum"),
        (
            vec!["-s", "k=v", "--timeout", "soon", "--", "true"],
            "--timeout",
        ),
        (
            vec!["-s", "k=v", "--", "no-such-program-xyz"],
            "no-such-program-xyz",
        ),
        (vec!["-s", "k=v", "--", "/"], "is a folder, not a program"),
    ];
    // Labels longer than the rows calib fit reads, and repetitions past
    // 2^64 (named by the flag given), are refused before anything runs.
    // (One argument holds at most 128 KiB: three labels of 100,000 bytes.)
    let long: Vec<String> = (1..=3)
        .map(|k| format!("k{k}={}", "x".repeat(100_000)))
        .collect();
    let mut cases = cases;
    cases.push((
        vec!["-s", &long[0], "-s", &long[1], "-s", &long[2], "--", "true"],
        "at most 262144",
    ));
    cases.push((
        vec![
            "-s",
            "k=v",
            "--repeat",
            "18446744073709551615",
            "--",
            "echo {rep}",
        ],
        "the value of --repeat:",
    ));
    cases.push((
        vec![
            "-s",
            "k=v",
            "--first-rep",
            "18446744073709551615",
            "--repeat",
            "2",
            "--",
            "echo {rep}",
        ],
        "the value of --first-rep:",
    ));
    for (args, named) in cases {
        let out = run(probe(dir.path()).args(&args));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(named), "{args:?}: {}", stderr(&out));
    }
    let out = run(probe(&plain_file.join("sub")).args(["-s", "k=v", "--", "true"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--out"), "{}", stderr(&out));
    assert_eq!(files(dir.path()), [plain_file]);
}

#[test]
fn login_node_is_refused_with_a_salloc_line_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(&sbatch, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&sbatch, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out_dir = dir.path().join("out");
    // The allocation is the timeout in whole minutes, rounded up, plus 10. A
    // decimal is read as --help has it: without a unit, minutes (1.5 is 90 s,
    // not refused), and with one, to the fraction (60.5s is not cut to 60s).
    for (timeout, salloc) in [
        ("20m", "salloc --time=00:30:00"),
        ("1.5", "salloc --time=00:12:00"),
        ("60.5s", "salloc --time=00:12:00"),
    ] {
        let mut c = calib();
        let out = run(c
            .env("PATH", &path)
            .arg("probe")
            .arg("--out")
            .arg(&out_dir)
            .args([
                "-s",
                "k=v",
                "--timeout",
                timeout,
                "--",
                "sh",
                "-c",
                "echo CALIB_UNIT",
            ]));
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(err.contains(salloc), "--timeout {timeout}: {err}");
        assert!(err.contains("--allow-login"), "{err}");
        assert!(files(&out_dir).is_empty());
    }

    let mut c = calib();
    let out = run(c
        .env("PATH", &path)
        .arg("probe")
        .arg("--out")
        .arg(&out_dir)
        .args([
            "--allow-login",
            "-s",
            "k=v",
            "--",
            "sh",
            "-c",
            "echo CALIB_UNIT",
        ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(runs(&out_dir)[0].points.len(), 1);
}

#[test]
fn outside_slurm_a_laptop_probes_and_records_cluster_local() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let sh = Command::new("sh")
        .args(["-c", "command -v sh"])
        .output()
        .unwrap();
    let sh = String::from_utf8(sh.stdout).unwrap().trim().to_string();
    std::os::unix::fs::symlink(&sh, bin.join("sh")).unwrap();
    let out_dir = dir.path().join("out");
    let mut c = calib();
    let out = run(c
        .env("PATH", &bin)
        .arg("probe")
        .arg("--out")
        .arg(&out_dir)
        .args(["-s", "k=v", "--", "sh", "-c", "echo step 1; echo step 2"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = &runs(&out_dir)[0];
    assert_eq!(r.fingerprint.cluster.as_deref(), Some("local"));
    assert_eq!(r.fingerprint.job_id, None);
    assert!(r.run.starts_with("local__"), "{}", r.run);
}

#[test]
fn array_task_ids_name_the_file_and_fill_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path())
        .env("SLURM_JOB_ID", "19")
        .env("SLURM_ARRAY_JOB_ID", "13")
        .env("SLURM_ARRAY_TASK_ID", "0")
        .env("SLURM_JOB_PARTITION", "cpubase_bycore_b1")
        .args(["-s", "dataset=Y", "--", "sh", "-c", "echo CALIB_UNIT"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = &files(dir.path())[0];
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("dataset-Y__j13_0__"), "{name}");
    assert!(name.contains("__p") && name.ends_with(".csv"), "{name}");
    let fp = &runs(dir.path())[0].fingerprint;
    assert_eq!(fp.job_id.as_deref(), Some("13_0"));
    assert_eq!(fp.partition.as_deref(), Some("cpubase_bycore_b1"));
}

/// A job's values that `calib fit` would refuse in the rows (a control
/// character, a job id that is no job or array task) are refused before the
/// command runs and before any file is made, naming the variable: the probe's
/// time is not spent on rows nobody can read.
#[test]
fn job_values_the_rows_cannot_hold_are_refused_before_anything_runs() {
    for (variable, value) in [
        ("SLURM_JOB_PARTITION", "short\nlong"),
        ("SLURM_CLUSTER_NAME", "nar\rval"),
        ("SLURM_JOB_ID", "../../x"),
        ("SLURM_ARRAY_TASK_ID", "4294967296"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let out = run(probe(&dir.path().join("out"))
            .env("SLURM_ARRAY_JOB_ID", "13")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env(variable, value)
            .args(["-s", "d=a", "--", "touch"])
            .arg(&marker));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{variable}: {err}");
        assert!(err.contains(variable), "{variable}: {err}");
        assert!(!marker.exists(), "{variable}: the command ran");
        assert!(
            !dir.path().join("out").exists(),
            "{variable}: a file was made"
        );
    }
}

#[test]
fn sixteen_concurrent_probes_of_one_stratum_write_sixteen_complete_files() {
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..16)
        .map(|_| {
            probe(dir.path())
                .env("SLURM_ARRAY_JOB_ID", "77")
                .env("SLURM_ARRAY_TASK_ID", "3")
                .args([
                    "-s",
                    "dataset=Y",
                    "--",
                    "sh",
                    "-c",
                    "for i in $(seq 1 20); do echo \"step $i\"; done",
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let files = files(dir.path());
    assert_eq!(files.len(), 16, "{files:?}");
    let runs = runs(dir.path());
    assert_eq!(runs.len(), 16);
    for r in &runs {
        assert_eq!(units_of(r), (1..=20).collect::<Vec<_>>());
        assert_eq!(r.end.clone().unwrap().0, RunEnd::Exit(0));
    }
}

#[test]
fn timeout_stops_the_command_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let began = Instant::now();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--timeout",
        "1s",
        "--grace",
        "3s",
        "--",
        "sh",
        "-c",
        "while :; do echo CALIB_UNIT; sleep 0.05; done",
    ]));
    assert_eq!(out.status.code(), Some(128 + 15), "{}", stderr(&out));
    assert!(began.elapsed() < Duration::from_secs(15));
    let r = &runs(dir.path())[0];
    assert!(!r.points.is_empty());
    assert_eq!(r.end.clone().unwrap().0, RunEnd::Signal("TERM".into()));
    assert!(stderr(&out).contains("--timeout"));
}

#[test]
fn grace_ends_in_kill_for_a_command_that_ignores_term() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--units",
        "1",
        "--grace",
        "0.3s",
        "--",
        "sh",
        "-c",
        "trap '' TERM; echo CALIB_UNIT; while :; do sleep 0.05; done",
    ]));
    // Stopped by --units: exit 0 and end=limit, however the command died.
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(runs(dir.path())[0].end.clone().unwrap().0, RunEnd::Limit);
}

/// Waits (generously) until the probe's file holds `n` unit rows.
fn wait_for_units(dir: &Path, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let count = files(dir)
            .first()
            .map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_default()
                    .lines()
                    .count()
                    .saturating_sub(1)
            })
            .unwrap_or(0);
        if count >= n {
            return;
        }
        assert!(Instant::now() < deadline, "no {n} units within 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn term_to_calib_reaches_the_command_and_the_end_row_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let child = probe(dir.path())
        .args([
            "-s",
            "k=v",
            "--",
            "sh",
            "-c",
            "trap 'echo got-term; exit 5' TERM; while :; do echo CALIB_UNIT; sleep 0.05; done",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_units(dir.path(), 2);
    // SAFETY: signalling the calib process we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(stdout(&out).contains("got-term"));
    let r = &runs(dir.path())[0];
    assert!(r.points.len() >= 2);
    let (end, n, _) = r.end.clone().unwrap();
    // Stopped by the signal, though the command caught it and exited with
    // a code of its own (a checkpoint saved on TERM): not a failed run,
    // and a run the walltime cut short for calib resume.
    assert_eq!(end, RunEnd::Signal("TERM".into()));
    assert_eq!(n as usize, r.points.len());
}

#[test]
fn term_kills_an_untrapping_command_and_calib_exits_128_plus_15() {
    let dir = tempfile::tempdir().unwrap();
    let child = probe(dir.path())
        .args(["-s", "k=v", "--repeat", "3", "--", "python3"])
        .arg(fixture("workload.py"))
        .args(["--units", "1000", "--unit-s", "0.02"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_units(dir.path(), 3);
    // SAFETY: signalling the calib process we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + 15), "{}", stderr(&out));
    let runs = runs(dir.path());
    assert_eq!(runs.len(), 1, "no repetition starts after a TERM");
    assert_eq!(
        runs[0].end.clone().unwrap().0,
        RunEnd::Signal("TERM".into())
    );
}

#[test]
fn usr1_is_passed_to_the_command_without_stopping_calib() {
    let dir = tempfile::tempdir().unwrap();
    let child = probe(dir.path())
        .args([
            "-s",
            "k=v",
            "--",
            "sh",
            "-c",
            "trap 'echo got-usr1; exit 0' USR1; while :; do echo CALIB_UNIT; sleep 0.05; done",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_units(dir.path(), 2);
    // SAFETY: signalling the calib process we started.
    unsafe { libc::kill(child.id() as i32, libc::SIGUSR1) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("got-usr1"));
    assert_eq!(runs(dir.path())[0].end.clone().unwrap().0, RunEnd::Exit(0));
}

#[test]
fn live_progress_draws_a_status_line_and_plain_mode_does_not() {
    let script = "for i in 1 2 3 4 5 6 7; do echo \"step $i\"; sleep 0.15; done";
    let dir = tempfile::tempdir().unwrap();
    let live =
        run(probe(dir.path()).args(["-s", "k=v", "--progress", "live", "--", "sh", "-c", script]));
    assert_eq!(live.status.code(), Some(0));
    let err = stderr(&live);
    assert!(err.contains("\r\x1b[K"), "{err:?}");
    assert!(err.contains("units | last unit"), "{err:?}");
    assert!(
        err.contains("trend x"),
        "the trend shows once 5 units are in: {err:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let plain =
        run(probe(dir.path()).args(["-s", "k=v", "--progress", "plain", "--", "sh", "-c", script]));
    let err = stderr(&plain);
    assert!(!err.contains('\r'), "{err:?}");
    assert!(err.starts_with("calib: probing stratum k=v"), "{err:?}");
    assert!(err.contains("exited 0: 7 units in"), "{err:?}");
}

/// What Slurm does at the walltime: SIGCONT and SIGTERM to every process of
/// the job at once (calib and the command's whole process group).
#[test]
fn a_walltime_kill_as_slurm_sends_it_keeps_the_rows_and_writes_the_end_row() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let out_dir = dir.path().join("out");
    let child = probe(&out_dir)
        .env("PIDFILE", &pidfile)
        .args(["-s", "k=walltime", "--", "sh", "-c"])
        .arg(format!(
            "echo $$ > \"$PIDFILE\"; exec python3 {} --units 100000 --unit-s 0.02",
            fixture("workload.py").display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_units(&out_dir, 3);
    let command: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    for (target, signal) in [
        (child.id() as i32, libc::SIGCONT),
        (-command, libc::SIGCONT),
        (child.id() as i32, libc::SIGTERM),
        (-command, libc::SIGTERM),
    ] {
        // SAFETY: signalling processes this test started.
        unsafe { libc::kill(target, signal) };
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + 15), "{}", stderr(&out));
    let r = &runs(&out_dir)[0];
    assert!(r.points.len() >= 3);
    let (end, n, _) = r.end.clone().expect("the end row");
    assert_eq!(end, RunEnd::Signal("TERM".into()));
    assert_eq!(n as usize, r.points.len());
}

#[test]
fn block_buffered_markers_are_flagged_and_python_is_unbuffered_by_default() {
    let script =
        "import time\nfor i in range(1, 6):\n    time.sleep(0.15)\n    print(f'epoch {i}')\n";
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--keep-buffering",
        "--",
        "python3",
        "-c",
        script,
    ]));
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("seems to buffer"), "{}", stderr(&out));
    let times: Vec<f64> = runs(dir.path())[0].points.iter().map(|p| p.1).collect();
    assert_eq!(times.len(), 5);
    assert!(times[4] - times[0] < 0.05, "one burst at exit: {times:?}");

    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "python3", "-c", script]));
    assert!(!stderr(&out).contains("buffer"), "{}", stderr(&out));
    let times: Vec<f64> = runs(dir.path())[0].points.iter().map(|p| p.1).collect();
    assert!(times[4] - times[0] >= 4.0 * 0.15 * 0.9, "{times:?}");
}

#[test]
fn a_script_without_the_execute_bit_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("train.sh");
    std::fs::write(&script, "#!/bin/sh\necho CALIB_UNIT\n").unwrap();
    let out_dir = dir.path().join("out");
    let out = run(probe(&out_dir).args(["-s", "k=v", "--"]).arg(&script));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not executable"), "{}", stderr(&out));
    assert!(files(&out_dir).is_empty());
}

#[test]
fn gpus_come_from_nvidia_smi_when_present() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let smi = bin.join("nvidia-smi");
    std::fs::write(
        &smi,
        "#!/bin/sh\n[ \"$1\" = -L ] || exit 2\n\
         echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaa)'\n\
         echo 'GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbbb)'\n",
    )
    .unwrap();
    std::fs::set_permissions(&smi, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out_dir = dir.path().join("out");
    let out = run(probe(&out_dir).env("PATH", path).args([
        "-s",
        "k=gpu",
        "--",
        "sh",
        "-c",
        "echo CALIB_UNIT",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let fp = &runs(&out_dir)[0].fingerprint;
    assert_eq!(fp.gpus.as_deref(), Some("2x NVIDIA H100 80GB HBM3"));
    assert!(
        stderr(&out).contains("GPUs: 2x NVIDIA H100"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_tqdm_like_bar_counts_one_unit_per_epoch() {
    // What tqdm(desc=f"Epoch {e}") writes to stderr: a redraw per batch.
    let script = "import sys, time\n\
                  for e in range(3):\n\
                  \x20   for b in range(0, 101, 10):\n\
                  \x20       sys.stderr.write(f'\\rEpoch {e}: {b:3d}%|' + '#' * (b // 10))\n\
                  \x20       sys.stderr.flush()\n\
                  \x20       time.sleep(0.005)\n\
                  \x20   sys.stderr.write('\\n')\n";
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "python3", "-c", script]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(units_of(&runs(dir.path())[0]), [1, 2, 3]);
    assert!(
        stderr(&out).contains("\rEpoch 2: 100%|##########\n"),
        "passed through unchanged"
    );
}

#[test]
fn units_counted_on_both_streams_are_pointed_out() {
    // A progress line on stdout and a log line on stderr for each epoch: six
    // units for three epochs, unless the user is told.
    let dir = tempfile::tempdir().unwrap();
    let both = "for i in 1 2 3; do echo \"epoch $i\"; echo \"INFO: finished epoch $i\" >&2; done";
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "sh", "-c", both]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("counted on both stdout (3) and stderr (3)"),
        "{}",
        stderr(&out)
    );
    let dir = tempfile::tempdir().unwrap();
    let one = "for i in 1 2 3; do echo \"epoch $i\"; echo \"INFO: saved\" >&2; done";
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "sh", "-c", one]));
    assert!(
        !stderr(&out).contains("counted on both"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_line_too_long_to_search_whole_is_pointed_out() {
    // A program that logs a 70 KB line (a config dump) and then its epoch on
    // the same line: the marker lies past the 64 KiB searched, and the one
    // unit the timings miss is named in the summary.
    let dir = tempfile::tempdir().unwrap();
    let script = "import sys\n\
                  sys.stdout.write('x' * 70000 + ' epoch 1\\n')\n\
                  sys.stdout.write('epoch 2\\n')\n";
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "python3", "-c", script]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(units_of(&runs(dir.path())[0]), [1]);
    assert!(
        stderr(&out).contains("1 output line(s) longer than 64 KiB"),
        "{}",
        stderr(&out)
    );
    // Short lines: no word of it.
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args(["-s", "k=v", "--", "sh", "-c", "echo epoch 1"]));
    assert!(!stderr(&out).contains("longer than"), "{}", stderr(&out));
}

#[test]
fn markers_printed_as_a_unit_starts_are_pointed_out() {
    // `Epoch k/N` printed as the epoch begins (Keras): the command runs one
    // more unit after its last marker. Printed as it ends: no word.
    let late = run_in_tempdir(&[
        "-s",
        "k=v",
        "--",
        "sh",
        "-c",
        "for i in 1 2 3 4; do echo \"Epoch $i/4\"; sleep 1.2; done",
    ]);
    assert!(late.contains("about one unit's time"), "{late}");
    let on_time = run_in_tempdir(&[
        "-s",
        "k=v",
        "--",
        "sh",
        "-c",
        "for i in 1 2 3 4; do sleep 1.2; echo \"epoch $i\"; done",
    ]);
    assert!(!on_time.contains("about one unit's time"), "{on_time}");
    // Sub-second units and as long a teardown (an interpreter's exit): one
    // unit's offset would be invisible in a --time, and it is likelier the
    // exit; no word.
    let teardown = run_in_tempdir(&[
        "-s",
        "k=v",
        "--",
        "sh",
        "-c",
        "for i in 1 2 3 4 5; do sleep 0.2; echo \"epoch $i\"; done; sleep 0.2",
    ]);
    assert!(!teardown.contains("about one unit's time"), "{teardown}");
}

/// calib probe with `args` in a new folder; its stderr, the run asserted to succeed.
fn run_in_tempdir(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args(args));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stderr(&out)
}

/// A worker the command leaves running in the background is stopped when
/// the command exits, and the run's summary line says so: the work it had
/// not finished is lost, which the timings alone would not show.
#[test]
fn processes_left_running_at_exit_are_stopped_and_counted_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(probe(dir.path()).args([
        "-s",
        "k=v",
        "--grace",
        "2s",
        "--",
        "sh",
        "-c",
        "sleep 300 >/dev/null 2>&1 & sleep 300 >/dev/null 2>&1 & echo CALIB_UNIT",
    ]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = stderr(&out)
        .lines()
        .find(|l| l.starts_with("calib: run "))
        .map(String::from)
        .unwrap_or_else(|| panic!("no summary line in {}", stderr(&out)));
    assert!(
        summary.contains("2 leftover process(es) of the command"),
        "{summary}"
    );
    assert!(summary.contains("were stopped"), "{summary}");

    // A command that leaves nothing behind gets no such words.
    let quiet = run(probe(dir.path()).args(["-s", "k=v", "--", "sh", "-c", "echo CALIB_UNIT"]));
    assert!(!stderr(&quiet).contains("leftover"), "{}", stderr(&quiet));
}

/// A stdout that cannot be written (a full disk, EIO) drops the command's
/// output, said once on stderr with the OS error; the units are recorded.
#[test]
fn a_stdout_that_cannot_be_written_is_said_once_and_units_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let out = probe(dir.path())
        .args([
            "-s",
            "k=v",
            "--",
            "sh",
            "-c",
            "for i in 1 2 3; do echo CALIB_UNIT; sleep 0.05; done",
        ])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let e = stderr(&out);
    assert_eq!(
        e.matches("could not be passed through").count(),
        1,
        "said once: {e}"
    );
    assert!(e.contains("calib's stdout"), "{e}");
    assert!(e.contains("No space left on device"), "{e}");
    assert_eq!(units_of(&runs(dir.path())[0]), [1, 2, 3]);
}

/// A text that is no duration at all is not told Slurm's grammar forbids
/// unit suffixes, next to the advice to write one.
#[test]
fn a_timeout_that_is_no_number_gets_a_coherent_message() {
    let dir = tempfile::tempdir().unwrap();
    for text in ["nan", "soon", "1,5"] {
        let out = run(probe(dir.path()).args(["-s", "k=v", "--timeout", text, "--", "true"]));
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(e.contains(&format!("`{text}` is not a duration")), "{e}");
        assert!(e.contains("a number with a unit (90s"), "{e}");
        assert!(!e.contains("no unit suffixes"), "{e}");
        assert!(!e.contains("decimals are not allowed"), "{e}");
    }
}

/// In a log that stdout and stderr share (a Slurm job's default), calib's
/// lines are lines of their own, even when the program's line is not ended
/// yet: never `step 1calib: unit 1 ...`.
#[test]
fn calib_lines_start_a_line_of_their_own_in_a_shared_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::File::create(dir.path().join("job.log")).unwrap();
    let status = probe(&dir.path().join("out"))
        .args(["--", "sh", "-c"])
        .arg("for i in 1 2 3; do printf 'step %s' $i; sleep 0.05; echo; done")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(dir.path().join("job.log")).unwrap();
    assert!(text.contains("calib: unit 1"), "{text}");
    for line in text.lines() {
        assert!(
            !line.contains("calib:") || line.starts_with("calib:"),
            "a calib line inside the program's: {line:?}\n{text}"
        );
    }
    assert_eq!(runs(&dir.path().join("out"))[0].points.len(), 3);
}
