//! A staged campaign through a real Slurm (the lab of `scripts/slurm-lab`),
//! from one grid file: `calib grid show`, `calib budget --grid` (stage 2's
//! lines), `calib stage` (smoke submission and trigger, written first), the
//! smoke array via sbatch, `calib stage check` against sacct and the files,
//! stage 2 as it printed it (one array per stratum), and `calib audit`.
//!
//! Twice: once with a script that writes where its derived cell says (the
//! check passes and stage 2 runs), once with a script whose hand-written tag
//! forgets the seed, so both smoke tasks write one path: the check fails with
//! the seed's interpretation and holds stage 2 back.
//!
//! Tiny runs (units of 0.1 s, 3 units in the smoke, 5 in stage 2).
//! `#[ignore]`d so that a plain `cargo test` needs no Slurm; without a
//! reachable cluster it fails loudly, it never skips.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use calib::synth;
use common::slurm::{require_lab, sacct_text, sinfo_partitions, wait_done, wait_tasks_done};
use common::{ok_stdout, stderr, stdout, write_file, CALIB};
use serde_json::Value;

/// The good script: derive the cell, run its units, write one record where
/// the cell says.
const WORK: &str = r#"#!/bin/sh
cell=$(calib grid cell "$CALIB_GRID" --stratum "$CALIB_STRATUM" --index "$SLURM_ARRAY_TASK_ID") || exit 3
eval "$cell"
i=0
while [ "$i" -lt "$CALIB_UNITS" ]; do sleep 0.1; i=$((i + 1)); done
mkdir -p "$(dirname "$CALIB_OUTPUT")"
printf '{"tag": "%s", "units": %s}\n' "$CALIB_TAG" "$CALIB_UNITS" >> "$CALIB_OUTPUT"
"#;

/// The same, with a hand-written path whose tag forgets the seed: every
/// task of a stratum writes cell 0's file.
const TYPO: &str = r#"#!/bin/sh
cell=$(calib grid cell "$CALIB_GRID" --stratum "$CALIB_STRATUM" --index "$SLURM_ARRAY_TASK_ID") || exit 3
eval "$cell"
out="results/$dataset/dataset-${dataset}_seed-0.jsonl"
mkdir -p "$(dirname "$out")"
printf '{"tag": "%s", "units": %s}\n' "$CALIB_TAG" "$CALIB_UNITS" >> "$out"
"#;

/// A campaign folder: the grid, the script, probe timings of both strata
/// (units of about 0.1 s, measured on the lab), `bin/calib`.
fn campaign(root: &Path, name: &str, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let here = root.join(name);
    std::fs::create_dir_all(here.join("bin")).unwrap();
    std::os::unix::fs::symlink(CALIB, here.join("bin/calib")).unwrap();
    write_file(
        &here,
        "grid.toml",
        "stratum = [\"dataset\"]\noutput = \"results/{dataset}/{tag}.jsonl\"\nunits = 5\n\
         [axes]\ndataset = [\"X\", \"Y\"]\nseed = [0, 1, 2]\n",
    );
    let work = write_file(&here, "work.sh", script);
    std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut csv = synth::HEADER.to_string();
    for (k, stratum) in ["dataset=X", "dataset=X", "dataset=Y", "dataset=Y"]
        .iter()
        .enumerate()
    {
        let spec = synth::RunSpec {
            run: format!("r{k}"),
            stratum: stratum.to_string(),
            units: 10,
            startup_s: 0.2,
            cost: synth::Cost::Constant { a: 0.1 },
            level: 1.0 + 0.02 * k as f64,
            noise_cv: 0.02,
            cluster: "lab".into(),
            cpu_model: "lab cpu".into(),
        };
        synth::write_unit_rows(&mut csv, &spec, &mut synth::Rng::new(11 + k as u64));
    }
    write_file(&here, "probes.csv", csv);
    here
}

/// `calib ARGS` in `dir`, with `dir/bin` (calib) first on PATH.
fn run_in(dir: &Path, program: &str, args: &[&str]) -> Output {
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap()
    );
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// Grid, budget (stage 2), stage, the smoke via sbatch; returns the
/// folder's smoke job id once both tasks have ended.
fn stage_and_smoke(here: &Path, partitions: &str) -> String {
    let shown = ok_stdout(
        &run_in(
            here,
            CALIB,
            &["grid", "show", "grid.toml", "--format", "json"],
        ),
        "calib grid show",
    );
    let doc: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(doc["strata"].as_array().unwrap().len(), 2);
    ok_stdout(
        &run_in(here, CALIB, &["fit", "probes.csv", "-o", "model.json"]),
        "calib fit",
    );
    let stage2 = ok_stdout(
        &run_in(
            here,
            CALIB,
            &[
                "budget",
                "--model",
                "model.json",
                "--grid",
                "grid.toml",
                "--cluster",
                "lab",
                "--partitions",
                partitions,
                "--format",
                "sbatch",
                "--script",
                "work.sh",
            ],
        ),
        "calib budget",
    );
    assert_eq!(
        stage2.lines().filter(|l| l.starts_with("sbatch ")).count(),
        2,
        "{stage2}"
    );
    write_file(here, "stage2.sh", &stage2);
    let staged = ok_stdout(
        &run_in(
            here,
            CALIB,
            &[
                "stage",
                "grid.toml",
                "--script",
                "work.sh",
                "--stage2",
                "@stage2.sh",
                "--out-dir",
                "stage",
                "--field",
                "\"tag\"",
            ],
        ),
        "calib stage",
    );
    assert!(staged.contains("the pipeline works"), "{staged}");
    // The trigger exists before anything was submitted.
    assert!(here.join("stage/stage2-trigger.toml").is_file());
    assert!(!here.join("results").exists());
    let submitted = ok_stdout(
        &run_in(here, "sh", &["stage/stage1-smoke.sh"]),
        "the smoke submission",
    );
    let id = submitted
        .split_whitespace()
        .last()
        .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("sbatch printed no job id: {submitted}"))
        .to_string();
    let sacct = wait_tasks_done(&id, 2, Duration::from_secs(180));
    assert_eq!(sacct.lines().count(), 3, "two smoke tasks:\n{sacct}");
    id
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn a_staged_campaign_from_one_grid_file() {
    require_lab();
    let root = tempfile::tempdir().unwrap();
    let partitions = sinfo_partitions();

    // The tag template collides: the check fails as the trigger said it would.
    let typo = campaign(root.path(), "typo", TYPO);
    let id = stage_and_smoke(&typo, &partitions);
    let check = run_in(
        &typo,
        CALIB,
        &["stage", "check", "stage/stage2-trigger.toml", "--job", &id],
    );
    assert_eq!(
        check.status.code(),
        Some(3),
        "{}\n{}",
        stdout(&check),
        stderr(&check)
    );
    let text = stdout(&check);
    assert!(text.contains("completed         pass"), "{text}");
    assert!(
        text.contains("outputs_exist     FAIL    1 of 2 files"),
        "{text}"
    );
    assert!(
        text.contains("If only one file exists, the identifier is not reaching the code and the real array would clobber itself"),
        "{text}"
    );
    assert!(text.contains("records           FAIL"), "{text}");
    assert!(
        !text.lines().any(|l| l.starts_with("sbatch ")),
        "stage 2 printed:\n{text}"
    );

    // The script writes where its cell says: the check passes, stage 2 runs.
    let good = campaign(root.path(), "good", WORK);
    let id = stage_and_smoke(&good, &partitions);
    let check = ok_stdout(
        &run_in(
            &good,
            CALIB,
            &["stage", "check", "stage/stage2-trigger.toml", "--job", &id],
        ),
        "calib stage check",
    );
    assert_eq!(check.matches(" pass ").count(), 5, "{check}");
    assert!(
        check.contains("stage 1 passed: the pipeline works"),
        "{check}"
    );
    let lines: Vec<&str> = check.lines().filter(|l| l.starts_with("sbatch ")).collect();
    assert_eq!(lines.len(), 2, "one array per stratum:\n{check}");
    // The smoke's files are the pipeline's, not results: clear them as a
    // user would before the real arrays.
    std::fs::remove_dir_all(good.join("results")).unwrap();
    let mut ids = Vec::new();
    for line in lines {
        let out = run_in(
            &good,
            "sh",
            &["-c", &line.replacen("sbatch ", "sbatch --parsable ", 1)],
        );
        let id = ok_stdout(&out, line)
            .trim()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        ids.push(id);
    }
    for id in &ids {
        wait_done(id, Duration::from_secs(240));
    }
    // Every cell of both strata wrote its own file, one record each.
    for dataset in ["X", "Y"] {
        for seed in 0..3 {
            let path = good.join(format!(
                "results/{dataset}/dataset-{dataset}_seed-{seed}.jsonl"
            ));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(text.lines().count(), 1, "{}: {text}", path.display());
            assert!(text.contains("\"units\": 5"), "{text}");
        }
    }

    // The audit of stage 2: each stratum's 3 tasks COMPLETED within their time.
    let sacct = sacct_text(&ids.join(","));
    write_file(&good, "sacct.txt", &sacct);
    let audit = ok_stdout(
        &run_in(&good, CALIB, &["audit", "@sacct.txt", "--format", "json"]),
        "calib audit",
    );
    let doc: Value = serde_json::from_str(&audit).unwrap();
    let groups = doc["groups"].as_array().unwrap();
    for stratum in ["dataset=X", "dataset=Y"] {
        let group = groups
            .iter()
            .find(|g| g["group"] == stratum)
            .unwrap_or_else(|| panic!("no audit group {stratum}: {audit}"));
        assert_eq!(group["usage"]["tasks"], 3, "{group}");
        assert_eq!(group["usage"]["states"]["COMPLETED"], 3, "{group}");
    }
}
