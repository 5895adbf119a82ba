//! `calib grid cell` inside real Slurm arrays (the lab of `scripts/slurm-lab`).
//!
//! An array whose index range exceeds the grid: every task in the grid runs
//! its own cell and writes its own file under its own tag; the task past the
//! grid is refused by `calib grid cell`, ends FAILED with exit code 3 (as
//! sacct records it), and writes nothing, under no other cell's tag.
//!
//! `#[ignore]`d so that a plain `cargo test` needs no Slurm; `scripts/test`
//! runs it with `--include-ignored` against the lab. Without a reachable
//! cluster it fails loudly; it never skips.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::slurm::{require_lab, submit, wait_tasks_done};
use common::{calib, stdout, write_file, CALIB};

/// The batch script: the safe pattern README teaches (capture, test, eval),
/// then one record per task in the cell's own output file.
const TASK: &str = r#"#!/bin/sh
cell=$("$CALIB" grid cell "$GRID" --stratum "$STRATUM" --index "$SLURM_ARRAY_TASK_ID") || exit 3
eval "$cell"
mkdir -p "$(dirname "$CALIB_OUTPUT")"
printf '%s %s\n' "$CALIB_TAG" "$SLURM_ARRAY_TASK_ID" >> "$CALIB_OUTPUT"
"#;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

#[test]
#[ignore = "needs the Slurm lab: scripts/slurm-lab start, then cargo test -- --include-ignored"]
fn an_index_past_the_grid_fails_its_task_and_writes_nothing() {
    require_lab();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let results = work.join("results");
    let grid = write_file(
        work,
        "grid.toml",
        format!(
            "stratum = [\"dataset\"]\noutput = \"{}/{{dataset}}/{{tag}}.txt\"\nunits = 3\n\
             [axes]\ndataset = [\"X\", \"Y\"]\nseed = [0, 1, 2]\n",
            results.display()
        ),
    );
    // What each task of stratum X should write, from calib itself.
    let shown = calib()
        .args(["grid", "show", "--format", "json"])
        .arg(&grid)
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&stdout(&shown)).unwrap();
    let cells = doc["strata"][0]["cells"].as_array().unwrap().clone();
    assert_eq!(doc["strata"][0]["stratum"], "dataset=X");
    assert_eq!(cells.len(), 3);

    // --array=0-4: two tasks more than stratum X has cells.
    let env = format!(
        "--export=ALL,CALIB={CALIB},GRID={},STRATUM=dataset=X",
        grid.display()
    );
    let log = format!("--output={}/task-%a.log", work.display());
    let id = submit(
        TASK,
        &[
            "--array=0-4",
            "--time=2",
            "--job-name=grid-range",
            &env,
            &log,
        ],
        work,
    );
    let sacct = wait_tasks_done(&id, 5, Duration::from_secs(180));
    let state = |task: usize| {
        sacct
            .lines()
            .find(|l| l.starts_with(&format!("{id}_{task}|")))
            .unwrap_or_else(|| panic!("no row for task {task}:\n{sacct}"))
            .to_string()
    };
    for task in 0..3 {
        assert!(state(task).contains("|COMPLETED|0:0|"), "{}", state(task));
    }
    for task in 3..5 {
        // Refused by calib grid cell (exit 2), stopped by `|| exit 3`.
        assert!(state(task).contains("|FAILED|3:0|"), "{}", state(task));
        let log = std::fs::read_to_string(work.join(format!("task-{task}.log"))).unwrap();
        assert!(
            log.contains(&format!("--index {task} is outside the grid"))
                && log.contains("indexes 0 to 2"),
            "{log}"
        );
    }

    // Exactly one file per cell, each with exactly its own task's record:
    // nothing written under another cell's tag.
    let files = files_under(&results);
    assert_eq!(files.len(), 3, "{files:?}");
    for (k, cell) in cells.iter().enumerate() {
        let path = PathBuf::from(cell["output"].as_str().unwrap());
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cell {k}'s output {}: {e}", path.display()));
        assert_eq!(text, format!("{} {k}\n", cell["tag"].as_str().unwrap()));
        // The job log holds the mapping, so the file can be traced to its task.
        let log = std::fs::read_to_string(work.join(format!("task-{k}.log"))).unwrap();
        assert!(
            log.contains(&format!(
                "index {k} -> tag {}",
                cell["tag"].as_str().unwrap()
            )),
            "{log}"
        );
    }
}
