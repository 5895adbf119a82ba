//! What calib hands a task through sbatch's `--export`, read by the Slurm
//! lab's real sbatch and checked inside the task, and what it reads back from
//! the lab's sacct.
//!
//! sbatch splits an `--export` list at commas, except inside a group that a
//! `'` or `"` opens (Slurm 22.05, seen below): calib refuses quotes in labels
//! and in the grid path, and everything else a label or path may hold (spaces,
//! `$`, backslashes, `|`, `*`, `&`, `!`, parentheses) must reach the task
//! exactly, and come back through `calib audit -j` (sacct escapes nothing, so
//! a `|` in the comment once shifted sacct's columns).
//!
//! `#[ignore]`d so that a plain `cargo test` needs no Slurm; `scripts/test`
//! runs it with `--include-ignored` against the lab.

mod common;

use std::fmt::Write;
use std::time::Duration;

use common::slurm::{require_lab, sinfo_partitions, submit, wait_done, wait_tasks_done};
use common::{calib, calib_in, ok_stdout, run_shell_line, stderr, write_file};

/// A label holding what a shell or sbatch could misread but calib keeps.
const LABEL_VALUE: &str = r"a b $HOME \t|x*(y)&!";

/// `work/model.json`, fitted from 3 runs of 6 units of about 1 s in `stratum`.
fn fitted_model(work: &std::path::Path, stratum: &str) -> std::path::PathBuf {
    let mut csv = String::from("run,stratum,unit,elapsed_s\n");
    for run in 1..=3 {
        for unit in 1..=6 {
            let elapsed = 0.5 + f64::from(unit) * (1.0 + 0.01 * f64::from(run));
            let _ = writeln!(csv, "r{run},\"{stratum}\",{unit},{elapsed:.3}");
        }
    }
    let timings = write_file(work, "timings.csv", csv);
    let model = work.join("model.json");
    ok_stdout(
        &calib_in(
            work,
            &[
                "fit",
                timings.to_str().unwrap(),
                "-o",
                model.to_str().unwrap(),
            ],
        ),
        "calib fit",
    );
    model
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn every_exported_value_reaches_the_task_as_written_and_audit_reads_it_back() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    // The grid lives in a folder whose name the shell and sbatch could misread.
    let grid_dir = work.join("grid $USER dir|x");
    std::fs::create_dir_all(&grid_dir).unwrap();
    let grid = write_file(
        &grid_dir,
        "grid.toml",
        format!(
            "stratum = [\"name\"]\noutput = \"out/{{seed}}.jsonl\"\nunits = 4\n\n[axes]\nname = [\"{}\"]\nseed = [1, 2]\n",
            LABEL_VALUE.replace('\\', "\\\\")
        ),
    );
    let stratum = format!("name={LABEL_VALUE}");
    let model = fitted_model(work, &stratum);
    // The task writes what it received, one value a line, where the test reads it.
    write_file(
        work,
        "task.sh",
        "#!/bin/sh\nprintf '%s\\n' \"$CALIB_STRATUM\" \"$CALIB_UNITS\" \"$CALIB_GRID\" > \"received-$SLURM_ARRAY_TASK_ID\"\n",
    );
    let partitions = sinfo_partitions();
    let lines = ok_stdout(
        &calib_in(
            work,
            &[
                "budget",
                "--model",
                model.to_str().unwrap(),
                "--units",
                "4",
                "--grid",
                grid.to_str().unwrap(),
                "--partitions",
                partitions.as_str(),
                "--format",
                "sbatch",
                "--script",
                "task.sh",
            ],
        ),
        "calib budget --format sbatch",
    );
    let submissions: Vec<&str> = lines.lines().filter(|l| l.starts_with("sbatch ")).collect();
    assert_eq!(submissions.len(), 1, "{lines}");
    let out = run_shell_line(work, submissions[0]);
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = String::from_utf8_lossy(&out.stdout);
    let id = printed
        .trim()
        .strip_prefix("Submitted batch job ")
        .unwrap_or_else(|| panic!("sbatch said: {printed}"))
        .to_string();
    wait_tasks_done(&id, 2, Duration::from_secs(120));
    let expected = format!(
        "{}\n4\n{}\n",
        stratum.replace(',', ";"),
        std::path::absolute(&grid).unwrap().display()
    );
    for task in 0..2 {
        let received = std::fs::read_to_string(work.join(format!("received-{task}")))
            .unwrap_or_else(|e| panic!("task {task} wrote nothing ({e}):\n{}", submissions[0]));
        assert_eq!(received, expected, "task {task}, from: {}", submissions[0]);
    }

    // calib runs sacct itself and reads the `|` in the comment as text.
    let audit = calib()
        .args(["audit", "-j", &id, "--format", "json"])
        .output()
        .unwrap();
    assert!(audit.status.success(), "{}", stderr(&audit));
    let doc: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let text = doc.to_string();
    assert!(
        text.contains(&serde_json::to_string(&stratum).unwrap()),
        "{text}"
    );
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn a_quote_would_swallow_the_variables_after_it_so_calib_refuses_it() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    // What Slurm does with a quote in an --export list: the variables after it
    // are swallowed into the quoted one.
    let id = submit(
        "#!/bin/sh\nprintf '%s\\n' \"$CA\" \"${CB-unset}\" > received\n",
        &["--export=ALL,CA=O'Brien,CB=30", "--time=1"],
        work,
    );
    wait_done(&id, Duration::from_secs(60));
    let received = std::fs::read_to_string(work.join("received")).unwrap();
    assert_eq!(received, "O'Brien,CB=30\nunset\n");
    // So no label or grid path that reaches --export may hold one.
    for stratum in ["dataset=O'Brien", "title=say \"hi\""] {
        let out = calib()
            .args([
                "probe",
                "--allow-login",
                "--stratum",
                stratum,
                "--units",
                "1",
                "--",
                "true",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{stratum}: {}", stderr(&out));
        assert!(stderr(&out).contains("--export"), "{}", stderr(&out));
    }
    let quoted = work.join("it's");
    std::fs::create_dir_all(&quoted).unwrap();
    let grid = write_file(
        &quoted,
        "grid.toml",
        "stratum = [\"d\"]\noutput = \"out/{seed}.jsonl\"\nunits = 4\n\n[axes]\nd = [\"a\"]\nseed = [1]\n",
    );
    let model = fitted_model(work, "d=a");
    let out = calib()
        .args(["budget", "--units", "4", "--model"])
        .arg(&model)
        .arg("--grid")
        .arg(&grid)
        .args([
            "--partitions",
            "b1 3:00:00",
            "--format",
            "sbatch",
            "--script",
            "task.sh",
        ])
        .current_dir(work)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--export"), "{}", stderr(&out));
}
