//! Against the REAL Slurm lab: submit jobs, wait for them, audit them.
//!
//! Start the lab first (`scripts/slurm-lab start`, as root), then run
//! `cargo test --test slurm_lab -- --include-ignored`. The tests are `#[ignore]`d
//! so that a plain `cargo test` on a machine without the lab does not fail; when
//! they run, they fail loudly if sinfo cannot reach the lab (never a silent skip).

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::slurm::{require_lab, sinfo_partitions, submit, wait_done};

fn calib_audit(args: &[&str]) -> serde_json::Value {
    let out = Command::new(common::CALIB)
        .arg("audit")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "calib audit {args:?} failed: {}",
        common::stderr(&out)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// An array of 4 tasks sleeping 2, 4, 6 and 8 s, named and commented as
/// `calib budget`'s sbatch lines do, with a 10-minute limit.
#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start; run with --ignored"]
fn array_job_audited_per_stratum() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let id = submit(
        "#!/bin/bash\nsleep $(( (SLURM_ARRAY_TASK_ID + 1) * 2 ))\n",
        &[
            "--array=0-3",
            "--time=10",
            "--job-name=calib-lab-array",
            "--comment=calib stratum=lab=array",
            "--output=slurm-%A_%a.out",
        ],
        dir.path(),
    );
    let text = wait_done(&id, Duration::from_secs(90));
    eprintln!("array job {id} done in {:.1?}:\n{text}", started.elapsed());

    let json = calib_audit(&[&text]);
    let groups = json["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "{json:#}");
    let g = &groups[0];
    assert_eq!(g["group"], "lab=array");
    assert_eq!(g["source"], "comment");
    let u = &g["usage"];
    assert_eq!(u["tasks"], 4);
    assert_eq!(u["states"]["COMPLETED"], 4);
    assert_eq!(u["limits_s"], serde_json::json!([600]));
    assert_eq!(g["arrays"][0]["array"], id.as_str());
    // The slowest task is the one that slept 8 s (task 3); Elapsed is whole
    // seconds and includes a little start-up.
    let slowest = &u["slowest"];
    assert_eq!(slowest["job_id"], format!("{id}_3"));
    let elapsed = slowest["elapsed_s"].as_u64().unwrap();
    assert!((8..=12).contains(&elapsed), "elapsed {elapsed}");
    assert_eq!(u["completed_max_s"].as_u64(), Some(elapsed));
    let min = u["completed_min_s"].as_u64().unwrap();
    assert!((2..=5).contains(&min), "min {min}");
    let used = slowest["used"].as_f64().unwrap();
    assert!((used - elapsed as f64 / 600.0).abs() < 1e-12);
    let headroom = u["headroom"].as_f64().unwrap();
    assert!((headroom - 600.0 / elapsed as f64).abs() < 1e-12);
    // Far under 40% used: ask for 1.5x the slowest, i.e. the 1-minute minimum.
    assert_eq!(g["advice"][0]["kind"], "too_loose");
    assert_eq!(g["advice"][0]["suggest"], "00:01:00");

    // Without SACCT text, calib runs sacct itself and finds the same.
    let own = calib_audit(&["-j", &id]);
    assert_eq!(own["groups"], json["groups"]);
}

/// A job in the 1-minute partition that would run 5 minutes: killed at its
/// limit (30 s granularity, KillWait 5 s), reported as TIMEOUT, with the unit it
/// reached read from the timings file the job wrote (one unit per 5 s).
#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start; run with --ignored"]
fn walltime_kill_reported_as_timeout_with_unit_reached() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let timings = dir.path().join("timings");
    std::fs::create_dir(&timings).unwrap();
    let script = format!(
        "#!/bin/bash\n\
         f={}/task-$SLURM_JOB_ID.csv\n\
         echo run,stratum,unit,elapsed_s,job_id > $f\n\
         for i in $(seq 1 60); do sleep 5; echo r$SLURM_JOB_ID,lab=timeout,$i,$((i * 5)),$SLURM_JOB_ID >> $f; done\n",
        timings.display()
    );
    let started = Instant::now();
    let id = submit(
        &script,
        &[
            "--partition=short",
            "--time=1",
            "--job-name=calib-lab-timeout",
            "--comment=calib stratum=lab=timeout",
            "--output=slurm-%j.out",
        ],
        dir.path(),
    );
    let text = wait_done(&id, Duration::from_secs(180));
    eprintln!("job {id} done in {:.1?}:\n{text}", started.elapsed());
    let log = std::fs::read_to_string(dir.path().join(format!("slurm-{id}.out"))).unwrap();
    assert!(log.contains("DUE TO TIME LIMIT"), "{log}");

    let dir_arg = timings.to_str().unwrap();
    let json = calib_audit(&[&text, "--timings", dir_arg, "--units", "100"]);
    let g = &json["groups"][0];
    assert_eq!(g["group"], "lab=timeout");
    let u = &g["usage"];
    assert_eq!(u["states"]["TIMEOUT"], 1, "{json:#}");
    let to = &u["timeouts"][0];
    assert_eq!(to["job_id"], id.as_str());
    assert_eq!(to["limit_s"], 60);
    let elapsed = to["elapsed_s"].as_u64().unwrap();
    assert!((60..=100).contains(&elapsed), "elapsed {elapsed}");
    // One unit per 5 s until the kill: at least 11 by 60 s.
    let unit = to["unit_reached"].as_u64().unwrap();
    assert!(
        unit >= 11 && unit * 5 <= elapsed,
        "unit {unit}, elapsed {elapsed}"
    );
    assert_eq!(to["unit_elapsed_s"].as_f64(), Some((unit * 5) as f64));
    // 5 s per unit -> 100 units need 500 s; advice: 1.5 x 500 s = 12:30 -> 00:13:00.
    assert_eq!(to["projected_s"].as_f64(), Some(500.0));
    assert_eq!(g["advice"][0]["kind"], "timeouts");
    assert_eq!(g["advice"][0]["suggest"], "00:13:00");
}

/// `scripts/slurm-lab start` while the lab runs changes nothing: same daemons,
/// same pids, and `status` says so.
#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start; run with --ignored"]
fn lab_start_is_idempotent() {
    require_lab();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-lab");
    let status = || {
        let out = Command::new(script).arg("status").output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "slurm-lab status: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .filter(|l| l.contains("running (pid"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let before = status();
    assert_eq!(before.len(), 5, "{before:?}");
    let out = Command::new(script).arg("start").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        !err.contains(" started") && !err.contains("wrote "),
        "{err}"
    );
    assert_eq!(status(), before);
}

/// Cancels the jobs it names when dropped, so that a failing assertion leaves
/// no held job in the lab.
struct CancelOnDrop(Vec<String>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let _ = Command::new("scancel").args(&self.0).status();
    }
}

/// The pending-job trap on the real cluster: a held job whose limit
/// `scontrol update` raised past its partition's cap stays PENDING; `calib
/// audit --partitions` flags it with the scancel line, and does not flag a
/// held job within its cap.
#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start; run with --ignored"]
fn a_pending_job_raised_past_its_partition_cap_is_flagged() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let held = |name: &str| {
        submit(
            "#!/bin/bash\ntrue\n",
            &[
                "--hold",
                "--partition=short",
                "--time=1",
                &format!("--job-name={name}"),
            ],
            dir.path(),
        )
    };
    let trapped = held("calib-trapped");
    let within = held("calib-within");
    let _cleanup = CancelOnDrop(vec![trapped.clone(), within.clone()]);
    // short's cap is 1 minute; root may raise a limit past it (as an
    // administrator can on a real cluster, or a user before EnforcePartLimits).
    let raised = Command::new("scontrol")
        .args(["update", &format!("JobId={trapped}"), "TimeLimit=5"])
        .output()
        .unwrap();
    assert!(raised.status.success(), "{}", common::stderr(&raised));

    let partitions = sinfo_partitions();
    let jobs = format!("{trapped},{within}");
    // Accounting reaches sacct a moment after submission.
    let deadline = Instant::now() + Duration::from_secs(60);
    let doc = loop {
        let doc = calib_audit(&["-j", &jobs, "--partitions", &partitions]);
        if doc["job_rows"].as_u64() == Some(2) || Instant::now() > deadline {
            break doc;
        }
        std::thread::sleep(Duration::from_secs(1));
    };
    assert_eq!(doc["job_rows"], 2, "{doc}");
    let advice: Vec<&serde_json::Value> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["advice"].as_array().unwrap())
        .filter(|a| a["kind"] == "pending_over_cap")
        .collect();
    assert_eq!(advice.len(), 1, "{doc}");
    assert_eq!(advice[0]["cancel"], format!("scancel {trapped}"), "{doc}");
    assert_eq!(advice[0]["tasks"][0][1], 300, "{doc}");
    assert_eq!(advice[0]["tasks"][0][3], 60, "{doc}");
}
