//! The whole pipeline through a real Slurm (the lab of `scripts/slurm-lab`):
//! probe as a job array -> fit the per-task files -> budget against the live
//! `sinfo` -> submit what budget emitted -> audit from sacct. And a walltime
//! kill: a probe whose job runs out of time keeps every finished unit.
//!
//! These tests are `#[ignore]`d so that a plain `cargo test` needs no Slurm;
//! `scripts/test` (and CI) start the lab and run them with `--include-ignored`.
//! Without a reachable cluster they fail loudly; they never skip.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use calib::timings::{read_timings, IngestOptions, RunEnd};
use common::slurm::{require_lab, sacct_text, sinfo_partitions, submit, wait_done};
use common::{calib_in, ok_stdout, repo_file, CALIB};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    repo_file("tests/fixtures/e2e").join(name)
}

fn workload() -> PathBuf {
    repo_file("examples/workloads/growing_population.py")
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn probe_array_fit_budget_submit_and_audit() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let probes = work.join("probes");
    let runs = work.join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let env = format!(
        "--export=ALL,CALIB={CALIB},CALIB_OUT={},WORKLOAD={}",
        probes.display(),
        workload().display()
    );
    let script = std::fs::read_to_string(fixture("probe-array.sh")).unwrap();

    // Stage 1: probe both strata as one array; identifiers derive from the index.
    // One task at a time (%1), as probes should run: tasks sharing the lab's
    // two CPUs would measure each other.
    let id = submit(
        &script,
        &["--array=0-3%1", "--time=5", "--job-name=e2e-probe", &env],
        work,
    );
    let sacct = wait_done(&id, Duration::from_secs(240));
    assert_eq!(sacct.matches("|COMPLETED|").count(), 4, "{sacct}");
    // An index outside the grid is refused, never wrapped onto cell 0's tag.
    let bad = submit(
        &script,
        &["--array=4", "--time=5", "--job-name=e2e-bad", &env],
        work,
    );
    let sacct = wait_done(&bad, Duration::from_secs(120));
    assert!(sacct.contains("|FAILED|3:0|"), "{sacct}");

    // Four tasks, four files, each complete with its `limit` end row.
    let files: Vec<PathBuf> = std::fs::read_dir(&probes)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 4, "{files:?}");
    let timings = read_timings(std::slice::from_ref(&probes), &IngestOptions::default()).unwrap();
    assert!(timings.warnings.is_empty(), "{:?}", timings.warnings);
    assert_eq!(timings.runs.len(), 4);
    for run in &timings.runs {
        assert_eq!(run.points.len(), 8, "{}", run.run);
        assert!(
            matches!(run.end, Some((RunEnd::Limit, 8, _))),
            "{:?}",
            run.end
        );
        assert_eq!(run.fingerprint.cluster.as_deref(), Some("lab"));
        assert!(run
            .fingerprint
            .job_id
            .as_deref()
            .is_some_and(|j| j.starts_with(&id)));
    }

    // Fit the per-task files, then budget against the live partition list.
    let model = work.join("calib-model.json");
    ok_stdout(
        &calib_in(
            work,
            &[
                "fit",
                probes.to_str().unwrap(),
                "-o",
                model.to_str().unwrap(),
            ],
        ),
        "calib fit",
    );
    let partitions = sinfo_partitions();
    let args = [
        "budget",
        "--model",
        model.to_str().unwrap(),
        "--units",
        "30",
        "--tasks",
        "2",
        "--cluster",
        "lab",
        "--partitions",
        partitions.as_str(),
    ];
    let json = ok_stdout(
        &calib_in(work, &[&args[..], &["--format", "json"]].concat()),
        "calib budget json",
    );
    let doc: Value = serde_json::from_str(&json).unwrap();
    let strata = doc["strata"].as_array().unwrap();
    assert_eq!(strata.len(), 2);
    for s in strata {
        assert!(s["time_s"].as_f64().unwrap() >= s["floor_s"].as_f64().unwrap());
        assert_eq!(s["partition"], "cpubase_bycore_b1", "{s}");
    }
    let slow = strata
        .iter()
        .find(|s| s["stratum"] == "dataset=slow")
        .unwrap();
    let fast = strata
        .iter()
        .find(|s| s["stratum"] == "dataset=fast")
        .unwrap();
    // slow does 4x the arithmetic per unit of fast; the units are long enough
    // (about 0.1 s and 0.4 s) that Python's start-up does not hide the gap.
    let ratio = slow["predicted_s"].as_f64().unwrap() / fast["predicted_s"].as_f64().unwrap();
    assert!(ratio > 2.0, "slow/fast predicted ratio {ratio}: {json}");

    // Stage 2: submit exactly the lines budget emitted, one array per stratum.
    let sbatch = ok_stdout(
        &calib_in(
            work,
            &[
                &args[..],
                &[
                    "--format",
                    "sbatch",
                    "--script",
                    fixture("work.sh").to_str().unwrap(),
                ],
            ]
            .concat(),
        ),
        "calib budget sbatch",
    );
    let lines: Vec<&str> = sbatch
        .lines()
        .filter(|l| l.starts_with("sbatch "))
        .collect();
    assert_eq!(lines.len(), 2, "{sbatch}");
    let mut ids = Vec::new();
    for line in lines {
        let out = Command::new("sh")
            .arg("-c")
            .arg(line.replacen("sbatch ", "sbatch --parsable ", 1))
            .current_dir(work)
            .env("CALIB", CALIB)
            .env("CALIB_OUT_RUN", &runs)
            .env("WORKLOAD", workload())
            .output()
            .unwrap();
        let id = ok_stdout(&out, line)
            .trim()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        ids.push(id);
    }
    for id in &ids {
        wait_done(id, Duration::from_secs(300));
    }

    // Audit: every task completed within its stratum's own time.
    let sacct = sacct_text(&ids.join(","));
    let report = work.join("sacct.txt");
    std::fs::write(&report, &sacct).unwrap();
    let audit = ok_stdout(
        &calib_in(
            work,
            &[
                "audit",
                &format!("@{}", report.display()),
                "--format",
                "json",
            ],
        ),
        "calib audit",
    );
    let doc: Value = serde_json::from_str(&audit).unwrap();
    let groups = doc["groups"].as_array().unwrap();
    for stratum in ["dataset=fast", "dataset=slow"] {
        let group = groups
            .iter()
            .find(|g| g["group"] == stratum)
            .unwrap_or_else(|| panic!("no audit group {stratum}: {audit}"));
        assert_eq!(group["usage"]["tasks"], 2, "{group}");
        assert_eq!(group["usage"]["states"]["COMPLETED"], 2, "{group}");
        let used = group["usage"]["slowest"]["used"].as_f64().unwrap();
        assert!(used > 0.0 && used < 1.0, "{group}");
    }
    // The real runs were probed too: 30 units each, 4 runs.
    let real = read_timings(&[runs], &IngestOptions::default()).unwrap();
    assert_eq!(real.runs.len(), 4);
    assert!(real.runs.iter().all(|r| r.points.len() == 30));
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn a_walltime_kill_keeps_every_finished_unit() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let out = work.join("timings");
    // A unit every 0.5 s for 5 minutes, under a one-minute limit.
    let script = format!(
        "#!/bin/bash\nexec {CALIB} probe --stratum case=kill --out {} -- sh -c 'i=0; while [ $i -lt 600 ]; do sleep 0.5; i=$((i+1)); echo \"step $i\"; done'\n",
        out.display()
    );
    let id = submit(
        &script,
        &["--partition=short", "--time=1", "--job-name=e2e-kill"],
        work,
    );
    let sacct = wait_done(&id, Duration::from_secs(240));
    assert!(sacct.contains("|TIMEOUT|"), "{sacct}");

    let timings = read_timings(&[out], &IngestOptions::default()).unwrap();
    assert!(timings.warnings.is_empty(), "{:?}", timings.warnings);
    assert_eq!(timings.runs.len(), 1);
    let run = &timings.runs[0];
    // Every unit up to the kill is there, in order, none missing.
    let units: Vec<u64> = run.points.iter().map(|p| p.0).collect();
    assert!(
        units.len() >= 100,
        "only {} units before a >= 60 s limit",
        units.len()
    );
    assert_eq!(units, (1..=units.len() as u64).collect::<Vec<_>>());
    // Slurm's TERM reached calib, which forwarded it and wrote how the run ended.
    let (end, done, at) = run.end.clone().expect("an end row");
    assert_eq!(end, RunEnd::Signal("TERM".into()));
    assert_eq!(done, units.len() as u64);
    assert!(at >= 55.0, "stopped at {at} s");

    // calib audit names the timeout and the unit reached.
    let report = work.join("sacct.txt");
    std::fs::write(&report, sacct_text(&id)).unwrap();
    let audit = calib_in(
        work,
        &[
            "audit",
            &format!("@{}", report.display()),
            "--timings",
            work.join("timings").to_str().unwrap(),
        ],
    );
    let text = ok_stdout(&audit, "calib audit");
    assert!(text.contains("TIMEOUT"), "{text}");
    assert!(text.contains(&format!("unit {}", units.len())), "{text}");
}
