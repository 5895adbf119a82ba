//! `calib grid` and `calib budget --grid FILE.toml`, through the built binary:
//!
//! * hostile axis values (quotes, `$()`, backticks, newlines, spaces,
//!   backslashes) reach a shell that sources `calib grid cell`'s assignments
//!   byte for byte, in sh and in bash, and none runs;
//! * a template that gives two cells one path is refused (exit 2) naming the
//!   file, the path and both cells; a malformed file names its line;
//! * an index past the stratum, negative, empty or not a number is refused
//!   (exit 2) with nothing on stdout to eval; the safe pattern of the README
//!   stops the task, and `eval "$(...)"` alone would not (why README warns);
//! * `calib budget --grid grid.toml` takes each stratum's tasks and units from
//!   the grid, and its job scripts derive each task's cell with `calib grid
//!   cell`: the user's script sees the cell, and an index past the grid stops
//!   the job script before the user's script runs.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{
    at_repo_file, calib, example_folder, help_block, help_text, run_help_examples, run_shell_line,
    stderr, stdout, write_file, LAB_SINFO,
};

/// The hostile values: each must arrive as it is.
const HOSTILE: [&str; 9] = [
    "it's",
    "a b  c",
    "$(touch PWNED)",
    "`touch PWNED`",
    "line1\nline2\n",
    "back\\slash \\n",
    "\"double\" $HOME ${IFS}",
    "; touch PWNED #",
    "-n",
];

/// A grid whose `arg` axis holds the hostile values, one stratum of 2 models.
fn hostile_grid(dir: &Path) -> String {
    let values: Vec<String> = HOSTILE
        .iter()
        .map(|v| serde_json::to_string(v).unwrap()) // a JSON string is a TOML basic string
        .collect();
    let text = format!(
        "stratum = [\"dataset\"]\noutput = \"out dir/{{tag}}.jsonl\"\nunits = 5\n\n[axes]\n\
         dataset = [\"X\"]\nmodel = [\"m 1\", \"m'2\"]\narg = [{}]\n",
        values.join(", ")
    );
    write_file(dir, "grid.toml", text)
        .to_string_lossy()
        .into_owned()
}

fn grid_cell(dir: &Path, grid: &str, stratum: &str, index: &str) -> Output {
    calib()
        .args(["grid", "cell", grid, "--stratum", stratum, "--index", index])
        .current_dir(dir)
        .output()
        .unwrap()
}

/// `shell` sourcing `assignments` in `dir`, then writing each of `names`'s
/// value into a file of that name (printf: no echo interpretation).
fn source_with(shell: &str, dir: &Path, assignments: &[u8], names: &[&str]) -> Output {
    let file = dir.join("cell.sh");
    std::fs::write(&file, assignments).unwrap();
    let mut script = String::from(". ./cell.sh\n");
    for name in names {
        script.push_str(&format!("printf '%s' \"${name}\" > got.{name}\n"));
    }
    Command::new(shell)
        .args(["-c", &script])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shell}: {e}"))
}

#[test]
fn hostile_values_arrive_byte_for_byte_in_sh_and_bash() {
    let dir = tempfile::tempdir().unwrap();
    let grid = hostile_grid(dir.path());
    for shell in ["sh", "bash"] {
        for index in 0..HOSTILE.len() * 2 {
            let out = grid_cell(dir.path(), &grid, "dataset=X", &index.to_string());
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            // The arg axis is the fastest: index = model * 9 + arg.
            let (model, arg) = (
                ["m 1", "m'2"][index / HOSTILE.len()],
                HOSTILE[index % HOSTILE.len()],
            );
            let work = dir.path().join(format!("{shell}{index}"));
            std::fs::create_dir(&work).unwrap();
            let names = ["dataset", "model", "arg", "CALIB_TAG", "CALIB_OUTPUT"];
            let ran = source_with(shell, &work, &out.stdout, &names);
            assert!(ran.status.success(), "{shell}: {}", stderr(&ran));
            let got = |name: &str| std::fs::read(work.join(format!("got.{name}"))).unwrap();
            assert_eq!(got("arg"), arg.as_bytes(), "{shell}, index {index}");
            assert_eq!(got("model"), model.as_bytes());
            assert_eq!(got("dataset"), b"X");
            let tag = String::from_utf8(got("CALIB_TAG")).unwrap();
            assert_eq!(
                got("CALIB_OUTPUT"),
                format!("out dir/{tag}.jsonl").as_bytes()
            );
            assert!(!work.join("PWNED").exists(), "{shell}: a value ran");
            // The log line names the mapping on one line.
            let log = stderr(&out);
            assert_eq!(log.lines().count(), 1, "{log}");
            assert!(
                log.contains(&format!("index {index} -> tag {tag}")),
                "{log}"
            );
        }
    }
    assert!(!dir.path().join("PWNED").exists());
}

#[test]
fn every_cell_gets_its_own_tag_and_path() {
    let dir = tempfile::tempdir().unwrap();
    let grid = hostile_grid(dir.path());
    let out = calib()
        .args(["grid", "show", &grid, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = doc["strata"][0]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 18);
    assert_eq!(doc["strata"][0]["tasks"], 18);
    let mut tags = std::collections::HashSet::new();
    let mut paths = std::collections::HashSet::new();
    for (k, cell) in cells.iter().enumerate() {
        assert_eq!(cell["index"], k);
        assert!(tags.insert(cell["tag"].as_str().unwrap().to_string()));
        assert!(paths.insert(cell["output"].as_str().unwrap().to_string()));
    }
    // The table shows each cell on one line, control characters escaped.
    let table = calib().args(["grid", "show", &grid]).output().unwrap();
    assert_eq!(table.status.code(), Some(0));
    let rows = stdout(&table)
        .lines()
        .filter(|l| l.starts_with("dataset=X "))
        .count();
    assert_eq!(rows, 18, "{}", stdout(&table));
}

#[test]
fn a_template_giving_two_cells_one_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let grid = write_file(
        dir.path(),
        "clash.toml",
        "stratum = [\"dataset\"]\n# the seed is missing from the path\noutput = \"results/{dataset}.jsonl\"\n\
         [axes]\ndataset = [\"X\", \"Y\"]\nseed = [0, 1]\n",
    );
    for action in [
        &["show"][..],
        &["cell", "--stratum", "dataset=X", "--index", "0"],
    ] {
        let out = calib()
            .arg("grid")
            .arg(action[0])
            .arg(&grid)
            .args(&action[1..])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{action:?}");
        assert!(out.stdout.is_empty(), "{action:?}: {}", stdout(&out));
        let e = stderr(&out);
        assert!(e.contains("clash.toml, line 3:"), "{e}");
        assert!(e.contains("`results/X.jsonl`"), "{e}");
        assert!(
            e.contains("dataset=X seed=0") && e.contains("dataset=X seed=1"),
            "{e}"
        );
    }
}

#[test]
fn paths_that_name_one_file_differently_are_one_path() {
    let dir = tempfile::tempdir().unwrap();
    // `a`, `./a` and `a/` put out.txt in one folder.
    let grid = write_file(
        dir.path(),
        "same.toml",
        "output = \"{d}/out.txt\"\n[axes]\nd = [\"a\", \"./a\", \"a/\"]\n",
    );
    let out = calib().args(["grid", "show"]).arg(&grid).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("the same path"), "{}", stderr(&out));
    // `..` is compared as written: a link may make `b/..` another folder.
    let grid = write_file(
        dir.path(),
        "dots.toml",
        "output = \"{d}/out.txt\"\n[axes]\nd = [\"a\", \"b/../a\"]\n",
    );
    let out = calib().args(["grid", "show"]).arg(&grid).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn values_and_names_a_job_shell_cannot_carry_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // CALIB_STRATUM separates labels with `;`.
        (
            "stratum = [\"d\", \"m\"]\noutput = \"{tag}\"\n[axes]\nd = [\"a;b\", \"c\"]\nm = [\"x\"]\n",
            "holds a `;`",
        ),
        // A NUL cannot be in a shell variable.
        (
            "output = \"{tag}\"\n[axes]\nseed = [\"a\\u0000b\"]\n",
            "NUL",
        ),
        // Read-only in bash: assigning it ends the job's shell.
        (
            "output = \"{tag}\"\n[axes]\nSHELLOPTS = [\"a\"]\n",
            "relies on",
        ),
        // A value that leaves a cell no file to write, or breaks its line.
        (
            "output = \"{seed}\"\n[axes]\nseed = [\"\", \"x\"]\n",
            "which is empty",
        ),
        (
            "output = \"{seed}\"\n[axes]\nseed = [\"..\", \"x\"]\n",
            "names a folder",
        ),
        (
            "output = \"r/{seed}/\"\n[axes]\nseed = [\"a\", \"x\"]\n",
            "names a folder",
        ),
        (
            "output = \"r/{seed}.txt\"\n[axes]\nseed = [\"a\\nb\", \"x\"]\n",
            "control character",
        ),
    ];
    for (k, (text, expected)) in cases.iter().enumerate() {
        let grid = write_file(dir.path(), &format!("refused{k}.toml"), text);
        let out = calib().args(["grid", "show"]).arg(&grid).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{text:?}: {}", stdout(&out));
        let e = stderr(&out);
        assert!(
            e.contains(&format!("refused{k}.toml")) && e.contains(expected),
            "{text:?}: {e}"
        );
    }
}

#[test]
fn a_malformed_grid_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("output = \"{tag}\"\n\n[axes]\nseed = [0, 1,\n", 4),
        (
            "output = \"{tag}\"\n[axes]\nseed = [0]\nmodel = [[\"a\"]]\n",
            4,
        ),
        ("output = \"{tag}\"\n[axes]\n\"my axis\" = [0]\n", 3),
        ("output = \"{tag}\"\nunits = -5\n[axes]\nseed = [0]\n", 2),
        // One stratum under two keys (its labels in another order): which
        // count applies would be the map's order, not the user's.
        (
            "stratum = [\"dataset\", \"model\"]\noutput = \"{tag}\"\n[axes]\n\
             dataset = [\"X\"]\nmodel = [\"a\"]\nseed = [0]\n[units_by_stratum]\n\
             \"dataset=X,model=a\" = 5\n\"model=a,dataset=X\" = 6\n",
            9,
        ),
    ];
    for (k, (text, line)) in cases.iter().enumerate() {
        let grid = write_file(dir.path(), &format!("bad{k}.toml"), text);
        let out = calib().args(["grid", "show"]).arg(&grid).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{text:?}");
        let e = stderr(&out);
        assert!(
            e.contains(&format!("bad{k}.toml, line {line}:")),
            "{text:?}: {e}"
        );
    }
}

#[test]
fn an_index_outside_the_stratum_is_refused_with_nothing_to_eval() {
    let dir = tempfile::tempdir().unwrap();
    let grid = hostile_grid(dir.path());
    for bad in [
        "18",
        "19",
        "1000",
        "-1",
        "",
        "x",
        "1 ",
        "+1",
        "1e1",
        "18446744073709551616",
    ] {
        let out = grid_cell(dir.path(), &grid, "dataset=X", bad);
        assert_eq!(out.status.code(), Some(2), "index {bad:?}");
        assert!(out.stdout.is_empty(), "index {bad:?}: {}", stdout(&out));
        let e = stderr(&out);
        assert!(e.contains("indexes 0 to 17"), "index {bad:?}: {e}");
    }
    let out = grid_cell(dir.path(), &grid, "dataset=W", "0");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dataset=X"), "{}", stderr(&out));
}

/// The pattern README teaches, against the one it warns about, run by sh.
#[test]
fn capture_then_eval_stops_a_refused_task_and_eval_alone_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let grid = hostile_grid(dir.path());
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(common::CALIB, bin.join("calib")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let run = |script: &str| {
        Command::new("sh")
            .args(["-c", script])
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("SLURM_ARRAY_TASK_ID", "18")
            .output()
            .unwrap()
    };
    let safe = run(&format!(
        "cell=$(calib grid cell {grid:?} --stratum dataset=X --index \"$SLURM_ARRAY_TASK_ID\") || exit 3\n\
         eval \"$cell\"\ntouch RAN\n"
    ));
    assert_eq!(safe.status.code(), Some(3), "{}", stderr(&safe));
    assert!(!dir.path().join("RAN").exists());
    let trap = run(&format!(
        "eval \"$(calib grid cell {grid:?} --stratum dataset=X --index \"$SLURM_ARRAY_TASK_ID\")\"\ntouch RAN\n"
    ));
    assert_eq!(trap.status.code(), Some(0));
    assert!(
        dir.path().join("RAN").exists(),
        "eval discarded the refusal: the task ran with no cell"
    );
}

/// The demo's model (strata dataset=X, Y, Z), fitted into `dir`.
fn demo_model(dir: &Path) -> std::path::PathBuf {
    let model = dir.join("model.json");
    let fit = calib()
        .args([
            "fit",
            "data/trend-probe-60x3.csv",
            "data/spread-20.csv",
            "-o",
        ])
        .arg(&model)
        .current_dir(common::repo_file("."))
        .output()
        .unwrap();
    assert!(fit.status.success(), "{}", stderr(&fit));
    model
}

/// A campaign grid is the whole campaign: a stratum the model measured but
/// the grid lacks gets no array (its tasks could derive no cell), and a
/// note says so; a sizes CSV leaves such a stratum to --units, as before.
#[test]
fn budget_leaves_out_strata_the_campaign_grid_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let model = demo_model(here);
    let toml = write_file(
        here,
        "grid.toml",
        "stratum = [\"dataset\"]\noutput = \"r/{tag}\"\nunits = 100\n[axes]\ndataset = [\"X\", \"Y\"]\nseed = [1, 2]\n",
    );
    let csv = write_file(
        here,
        "grid.csv",
        "stratum,units,tasks\ndataset=X,100,2\ndataset=Y,100,2\n",
    );
    let strata = |grid: &Path| {
        let out = calib()
            .args(["budget", "--model"])
            .arg(&model)
            .arg("--grid")
            .arg(grid)
            .args([
                "--units",
                "100",
                "--cluster",
                "narval",
                "--format",
                "json",
                "--partitions",
            ])
            .arg(at_repo_file("data/campaign/partitions-narval.txt"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let names: Vec<String> = doc["strata"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["stratum"].as_str().unwrap().to_string())
            .collect();
        (names, doc.to_string())
    };
    let (names, doc) = strata(&toml);
    assert_eq!(names, ["dataset=X", "dataset=Y"]);
    assert!(
        doc.contains("left out, not in the campaign grid: dataset=Z"),
        "{doc}"
    );
    let (names, _) = strata(&csv);
    assert_eq!(names, ["dataset=X", "dataset=Y", "dataset=Z"]);
}

#[test]
fn budget_takes_tasks_and_units_from_the_grid_and_job_scripts_derive_cells() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let grid = write_file(
        here,
        "grid.toml",
        "stratum = [\"dataset\"]\noutput = \"results/{dataset}/{tag}.jsonl\"\nunits = 100\n\
         [axes]\ndataset = [\"X\", \"Y\", \"Z\"]\nseed = [1, 2, 3, 4]\n\
         [units_by_stratum]\n\"dataset=Z\" = 50\n",
    );
    let partitions = at_repo_file("data/campaign/partitions-narval.txt");
    let model = demo_model(here);
    let budget = |extra: &[&str]| {
        calib()
            .args(["budget", "--model"])
            .arg(&model)
            .arg("--grid")
            .arg(&grid)
            .args(["--cluster", "narval", "--partitions", &partitions])
            .args(extra)
            .current_dir(here)
            .output()
            .unwrap()
    };
    let json = budget(&["--format", "json"]);
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let sizes: Vec<(String, u64, u64)> = doc["strata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["stratum"].as_str().unwrap().to_string(),
                s["units"].as_u64().unwrap(),
                s["tasks"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sizes,
        [
            ("dataset=X".to_string(), 100, 4),
            ("dataset=Y".to_string(), 100, 4),
            ("dataset=Z".to_string(), 50, 4)
        ]
    );

    // Command lines: each array is exactly its stratum's cells, and the grid
    // travels to the task as CALIB_GRID.
    let lines = budget(&["--format", "sbatch", "--script", "evolve.sh"]);
    assert_eq!(lines.status.code(), Some(0), "{}", stderr(&lines));
    let text = stdout(&lines);
    let absolute = std::fs::canonicalize(&grid).unwrap();
    for line in text.lines().filter(|l| l.starts_with("sbatch ")) {
        assert!(line.contains("--array=0-3 "), "{line}");
        assert!(
            line.contains(&format!("CALIB_GRID={}", absolute.display())),
            "{line}"
        );
    }
    assert!(
        text.contains("#   cell=$(calib grid cell \"$CALIB_GRID\""),
        "{text}"
    );

    // Job scripts: run one as Slurm would, with a user script that records
    // what it was given.
    let script = write_file(
        here,
        "evolve.sh",
        "#!/bin/sh\nprintf '%s|%s|%s|%s' \"$dataset\" \"$seed\" \"$CALIB_TAG\" \"$CALIB_OUTPUT\" > \"$RECORD\"\n",
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let jobs = budget(&[
        "--format",
        "sbatch",
        "--script",
        "evolve.sh",
        "--script-dir",
        "jobs",
    ]);
    assert_eq!(jobs.status.code(), Some(0), "{}", stderr(&jobs));
    let job = here.join("jobs/calib-dataset-Y.sh");
    let run_job = |index: &str, record: &str| {
        Command::new("sh")
            .arg(&job)
            .current_dir(here)
            .env("SLURM_ARRAY_TASK_ID", index)
            .env("RECORD", here.join(record))
            .env_remove("CALIB_GRID")
            .output()
            .unwrap()
    };
    let ok = run_job("2", "task2");
    assert!(ok.status.success(), "{}", stderr(&ok));
    let seen = std::fs::read_to_string(here.join("task2")).unwrap();
    assert_eq!(
        seen,
        "Y|3|dataset-Y_seed-3|results/Y/dataset-Y_seed-3.jsonl"
    );
    assert!(stderr(&ok).contains("grid cell: stratum dataset=Y index 2 -> tag dataset-Y_seed-3"));
    let past = run_job("4", "task4");
    assert_eq!(past.status.code(), Some(3), "{}", stderr(&past));
    assert!(
        !here.join("task4").exists(),
        "the user's script ran without a cell"
    );
}

#[test]
fn the_sizes_csv_still_works_beside_the_grid_file() {
    let dir = example_folder();
    let csv = calib()
        .args([
            "budget",
            "calib-timings/",
            "--grid",
            "grid.csv",
            "--partitions",
        ])
        .arg(format!("@{}", common::repo_file(LAB_SINFO).display()))
        .args(["--format", "json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(csv.status.code(), Some(0), "{}", stderr(&csv));
    let doc: serde_json::Value = serde_json::from_slice(&csv.stdout).unwrap();
    assert_eq!(doc["strata"][0]["tasks"], 3);
}

#[test]
fn the_examples_of_calib_grid_run() {
    let dir = example_folder();
    for (line, out) in run_help_examples("grid", dir.path()) {
        assert!(!out.stdout.is_empty(), "{line}");
    }
    for action in ["show", "cell"] {
        let help = help_text(&["grid", action, "--help"]);
        let examples = help_block(&help, "Examples:");
        assert!(examples.len() >= 2, "{help}");
        for line in examples {
            let out = run_shell_line(dir.path(), line);
            assert!(out.status.success(), "`{line}`: {}", stderr(&out));
            assert!(!out.stdout.is_empty(), "{line}");
        }
    }
}

/// sbatch splits `--export` at commas: a grid whose absolute path holds one
/// would reach the tasks cut short, so budget refuses it, naming the path.
#[test]
fn a_grid_path_with_a_comma_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model = demo_model(dir.path());
    let folder = dir.path().join("a,b");
    std::fs::create_dir(&folder).unwrap();
    let grid = folder.join("grid.toml");
    std::fs::copy(common::repo_file("data/campaign/grid.toml"), &grid).unwrap();
    let out = calib()
        .args(["budget", "--model"])
        .arg(&model)
        .arg("--grid")
        .arg(&grid)
        .args(["--cluster", "narval", "--partitions"])
        .arg(at_repo_file("data/campaign/partitions-narval.txt"))
        .args(["--format", "sbatch", "--script", "evolve.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let e = stderr(&out);
    assert!(e.contains("a,b") && e.contains("comma"), "{e}");
}
