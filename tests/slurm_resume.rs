//! Resume after TIMEOUT through a real Slurm (the lab of `scripts/slurm-lab`):
//! a checkpointing workload probed, fitted, run as an array whose tasks the
//! `short` partition's one-minute cap kills part way, then resubmitted with
//! the line `calib resume` prints, and completed to the last unit.
//!
//! `#[ignore]`d so that a plain `cargo test` needs no Slurm; run it with the
//! lab up: `cargo test --test slurm_resume -- --include-ignored`. Without a
//! reachable cluster it fails loudly; it never skips.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use calib::slurm::partitions::parse_partitions;
use calib::timings::{read_timings, IngestOptions, RunEnd};
use common::slurm::{require_lab, sacct_text, sinfo_partitions, submit, wait_done};
use common::{calib_in, ok_stdout, CALIB};
use serde_json::Value;

/// Units of a whole run: about 200 s of work, so that a one-minute limit
/// kills it part way, and what is left cannot fit that minute either.
const UNITS: u64 = 200;

/// The workload: one unit a second; after each, the checkpoint (the last
/// unit done) is replaced atomically, then the unit is reported. A run starts
/// after the unit its checkpoint names.
const WORKLOAD: &str = r#"#!/bin/bash
set -eu
ckpt="$1"; n="$2"
i=0
if [ -f "$ckpt" ]; then i=$(cat "$ckpt"); fi
while [ "$i" -lt "$n" ]; do
    sleep 1
    i=$((i+1))
    echo "$i" > "$ckpt.tmp"
    mv "$ckpt.tmp" "$ckpt"
    echo "step $i"
done
"#;

/// The campaign's batch script: the stratum and size from calib's
/// environment, the checkpoint per array task, the run probed.
const JOB: &str = r#"#!/bin/bash
set -eu
exec "$CALIB" probe --stratum "${CALIB_STRATUM}" --out "$CALIB_OUT" \
    -- bash "$WORK/ckpt.sh" "$WORK/ckpt-${SLURM_ARRAY_TASK_ID}" "${CALIB_UNITS}"
"#;

/// Every unit recorded per run of a folder of probe files, by job id.
fn units_by_job(dir: &Path) -> Vec<(String, u64, Option<RunEnd>)> {
    let timings = read_timings(&[dir.to_path_buf()], &IngestOptions::default()).unwrap();
    assert!(timings.warnings.is_empty(), "{:?}", timings.warnings);
    timings
        .runs
        .iter()
        .map(|r| {
            let units: Vec<u64> = r.points.iter().map(|p| p.0).collect();
            // Every unit up to the last, in order, none missing.
            assert_eq!(units, (1..=units.len() as u64).collect::<Vec<_>>());
            (
                r.fingerprint.job_id.clone().expect("a job id"),
                units.len() as u64,
                r.end.as_ref().map(|e| e.0.clone()),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn a_timed_out_checkpointing_array_is_resumed_to_completion() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    std::fs::write(work.join("ckpt.sh"), WORKLOAD).unwrap();
    let job = work.join("job.sh");
    std::fs::write(&job, JOB).unwrap();
    let (probes, runs, resumed) = (work.join("probes"), work.join("runs"), work.join("resumed"));
    let env = |out: &Path| {
        format!(
            "--export=ALL,CALIB={CALIB},WORK={},CALIB_OUT={}",
            work.display(),
            out.display()
        )
    };

    // 1. Probe: two seeds of 12 units, one task at a time.
    let id = submit(
        JOB,
        &[
            "--array=0-1%1",
            "--time=2",
            "--job-name=resume-probe",
            &format!("{},CALIB_STRATUM=case=resume,CALIB_UNITS=12", env(&probes)),
        ],
        work,
    );
    let sacct = wait_done(&id, Duration::from_secs(180));
    assert_eq!(sacct.matches("|COMPLETED|").count(), 2, "{sacct}");
    for f in ["ckpt-0", "ckpt-1"] {
        std::fs::remove_file(work.join(f)).unwrap();
    }
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

    // 2. The campaign in `short` (a one-minute cap): task 0 starts from a
    // checkpoint near the end and completes; tasks 1 and 2 are killed.
    std::fs::write(work.join("ckpt-0"), format!("{}\n", UNITS - 5)).unwrap();
    let campaign = submit(
        JOB,
        &[
            "--array=0-2",
            "--partition=short",
            "--time=1",
            "--job-name=resume-campaign",
            &format!(
                "{},CALIB_STRATUM=case=resume,CALIB_UNITS={UNITS}",
                env(&runs)
            ),
        ],
        work,
    );
    let sacct = wait_done(&campaign, Duration::from_secs(300));
    assert_eq!(sacct.matches("|TIMEOUT|").count(), 2, "{sacct}");
    assert_eq!(sacct.matches("|COMPLETED|").count(), 1, "{sacct}");
    let first = units_by_job(&runs);
    let reached = |task: u64| {
        first
            .iter()
            .find(|(job, ..)| job == &format!("{campaign}_{task}"))
            .map(|(_, units, _)| *units)
            .unwrap_or_else(|| panic!("no timings of task {task}: {first:?}"))
    };
    for task in [1, 2] {
        let k = reached(task);
        assert!(k > 10 && k < UNITS, "task {task} reached {k}");
    }
    // The killed runs' own pace, from their files alone: the time their
    // remaining units take at it (the measured remainder, startup aside).
    let killed = read_timings(std::slice::from_ref(&runs), &IngestOptions::default()).unwrap();
    let measured_remainder = killed
        .runs
        .iter()
        .filter(|r| {
            let job = r.fingerprint.job_id.as_deref().unwrap_or("");
            job == format!("{campaign}_1") || job == format!("{campaign}_2")
        })
        .map(|r| {
            let &(k, elapsed) = r.points.last().unwrap();
            elapsed / k as f64 * (UNITS - k) as f64
        })
        .fold(0.0, f64::max);
    assert!(measured_remainder > 60.0, "{measured_remainder}");

    // 3. calib resume: the remainder's time, and the line for tasks 1 and 2.
    let report = work.join("sacct.txt");
    std::fs::write(&report, sacct_text(&campaign)).unwrap();
    let partitions = sinfo_partitions();
    let args = [
        "resume",
        "--model",
        model.to_str().unwrap(),
        "--timings",
        runs.to_str().unwrap(),
        "--sacct",
        &format!("@{}", report.display()),
        "--units",
        &UNITS.to_string(),
        "--partitions",
        partitions.as_str(),
        "--partition-regex",
        ".",
        "--script",
        job.to_str().unwrap(),
    ];
    let json = ok_stdout(
        &calib_in(work, &[&args[..], &["--format", "json"]].concat()),
        "calib resume json",
    );
    let doc: Value = serde_json::from_str(&json).unwrap();
    let strata = doc["strata"].as_array().unwrap();
    assert_eq!(strata.len(), 1, "{json}");
    let s = &strata[0];
    let time_s = s["time_s"].as_f64().unwrap();
    assert!(
        time_s >= measured_remainder,
        "--time {time_s} s below the measured remainder {measured_remainder} s: {json}"
    );
    // In a bucket: the partition named holds the time.
    let list = parse_partitions(&partitions, &calib::error::Origin::Stdin).unwrap();
    let partition = s["partition"].as_str().unwrap();
    let cap = list
        .partitions
        .iter()
        .find(|p| p.name == partition)
        .unwrap_or_else(|| panic!("{partition} is no partition of the lab: {json}"))
        .limit
        .cap_seconds();
    assert!(time_s <= cap, "{time_s} s over {partition}'s cap: {json}");
    assert_ne!(partition, "short", "{json}");
    let tasks: Vec<u64> = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["array_index"].as_u64().unwrap())
        .collect();
    assert_eq!(tasks, [1, 2], "{json}");

    let sbatch = ok_stdout(
        &calib_in(work, &[&args[..], &["--format", "sbatch"]].concat()),
        "calib resume sbatch",
    );
    let lines: Vec<&str> = sbatch
        .lines()
        .filter(|l| l.starts_with("sbatch "))
        .collect();
    assert_eq!(lines.len(), 1, "{sbatch}");
    assert!(lines[0].contains("--array=1-2 "), "{sbatch}");

    // 4. Run the line as printed; the tasks resume and complete.
    let out = Command::new("sh")
        .arg("-c")
        .arg(lines[0].replacen("sbatch ", "sbatch --parsable ", 1))
        .current_dir(work)
        .env("CALIB", CALIB)
        .env("WORK", work)
        .env("CALIB_OUT", &resumed)
        .output()
        .unwrap();
    let again = ok_stdout(&out, lines[0])
        .trim()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let sacct = wait_done(&again, Duration::from_secs(420));
    assert_eq!(sacct.matches("|COMPLETED|").count(), 2, "{sacct}");
    assert!(!sacct.contains("|TIMEOUT|"), "{sacct}");

    // All N units: those recorded before the kill and after the resume, and
    // each task's checkpoint at the last unit.
    let second = units_by_job(&resumed);
    for task in [1u64, 2] {
        let (_, after, end) = second
            .iter()
            .find(|(job, ..)| job == &format!("{again}_{task}"))
            .unwrap_or_else(|| panic!("no resumed timings of task {task}: {second:?}"))
            .clone();
        assert_eq!(end, Some(RunEnd::Exit(0)));
        assert_eq!(reached(task) + after, UNITS, "task {task}");
        let ckpt = std::fs::read_to_string(work.join(format!("ckpt-{task}"))).unwrap();
        assert_eq!(ckpt.trim(), UNITS.to_string());
    }
}
