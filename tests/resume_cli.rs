//! `calib resume` as a user runs it, on the bundled demo campaign: the slow
//! dataset's three seeds under one global 8 h walltime
//! (`data/campaign/timed-out-Y.csv`: the stratum's array of 3 tasks, one per
//! cell of `data/campaign/grid.toml`; task 4242_0 finishes, 4242_1 and 4242_2
//! are killed at generations 90 and 74), probed first in `data/spread-20.csv`.

mod common;

use common::{calib, repo_file, stderr, stdout};
use serde_json::Value;

const PARTITIONS: &str = "data/campaign/partitions-narval.txt";

fn resume(extra: &[&str]) -> std::process::Output {
    calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "data/spread-20.csv",
            "--timings",
            "data/campaign/timed-out-Y.csv",
            "--units",
            "100",
            "--partitions",
            &format!("@{PARTITIONS}"),
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// [`resume`] of other timings than the demo's (the demo's edited).
fn resume_timings(timings: &std::path::Path) -> std::process::Output {
    calib()
        .current_dir(repo_file(""))
        .args(["resume", "data/spread-20.csv", "--timings"])
        .arg(timings)
        .args(["--units", "100", "--partitions", &format!("@{PARTITIONS}")])
        .output()
        .unwrap()
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}\n{}", stdout(out), stderr(out));
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}

/// The killed runs' own pace from the data file alone (elapsed / units
/// reached), times the units left: what each still needs, startup aside.
fn pace_remainders() -> Vec<(String, f64)> {
    let text = std::fs::read_to_string(repo_file("data/campaign/timed-out-Y.csv")).unwrap();
    let mut last: Vec<(String, u64, f64)> = Vec::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        // run, "dataset=Y", unit, elapsed_s, cluster, cpu_model, job_id, end
        if !fields[7].is_empty() {
            continue;
        }
        let (job, unit, elapsed) = (
            fields[6].to_string(),
            fields[2].parse::<u64>().unwrap(),
            fields[3].parse::<f64>().unwrap(),
        );
        match last.iter_mut().find(|(j, ..)| *j == job) {
            Some(entry) => *entry = (job, unit, elapsed),
            None => last.push((job, unit, elapsed)),
        }
    }
    last.into_iter()
        .filter(|(_, unit, _)| *unit < 100)
        .map(|(job, unit, elapsed)| (job, elapsed / unit as f64 * (100 - unit) as f64))
        .collect()
}

/// The cap of a partition of the bundled list, seconds.
fn cap_of(partition: &str) -> f64 {
    let text = std::fs::read_to_string(repo_file(PARTITIONS)).unwrap();
    let list = calib::slurm::partitions::parse_partitions(
        &text,
        &calib::error::Origin::Argument("test".into()),
    )
    .unwrap();
    list.partitions
        .iter()
        .find(|p| p.name == partition)
        .unwrap()
        .limit
        .cap_seconds()
}

#[test]
fn the_killed_tasks_get_the_time_their_remainder_needs_in_a_bucket() {
    let doc = json_of(&resume(&["--format", "json"]));
    let strata = doc["strata"].as_array().unwrap();
    assert_eq!(strata.len(), 1, "{doc}");
    let s = &strata[0];
    // Only the killed tasks: 4242_0 finished its 100 generations.
    let tasks: Vec<(&str, u64)> = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["job_id"].as_str().unwrap(),
                t["unit_reached"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(tasks, [("4242_1", 90), ("4242_2", 74)], "{doc}");
    // Each task's measured remainder is what its own pace leaves to do.
    let paces = pace_remainders();
    assert_eq!(paces.len(), 2);
    for t in s["tasks"].as_array().unwrap() {
        let pace = paces
            .iter()
            .find(|(job, _)| job == t["job_id"].as_str().unwrap())
            .unwrap()
            .1;
        let floor = t["remainder"]["floor_s"].as_f64().unwrap();
        assert!(
            (floor / pace - 1.0).abs() < 0.1,
            "{}: measured remainder {floor} s, own pace {pace} s",
            t["job_id"]
        );
        assert!(t["remainder"]["upper_s"].as_f64().unwrap() >= floor);
    }
    // One --time for both, at least what the slower needs at its own pace,
    // within the cap of the partition it names; far below a whole run.
    let time_s = s["time_s"].as_f64().unwrap();
    let slowest = paces.iter().map(|p| p.1).fold(0.0, f64::max);
    assert!(time_s >= slowest, "{time_s} < {slowest}: {doc}");
    assert!(time_s <= cap_of(s["partition"].as_str().unwrap()), "{doc}");
    assert!(time_s < 8.0 * 3600.0, "{doc}");
    let commands = s["commands"].as_array().unwrap();
    assert_eq!(commands.len(), 1);
    let line = commands[0]["command"].as_str().unwrap();
    assert!(
        line.starts_with("sbatch --array=1-2 --time="),
        "exactly the killed indexes: {line}"
    );
    assert!(line.contains("CALIB_UNITS=100"), "{line}");
}

#[test]
fn the_table_and_the_sbatch_format_print_the_same_line() {
    let table = resume(&[]);
    assert!(table.status.success(), "{}", stderr(&table));
    let sbatch = resume(&["--format", "sbatch", "--script", "job.sh"]);
    assert!(sbatch.status.success(), "{}", stderr(&sbatch));
    let line: Vec<String> = stdout(&sbatch)
        .lines()
        .filter(|l| l.starts_with("sbatch "))
        .map(String::from)
        .collect();
    assert_eq!(line.len(), 1, "{}", stdout(&sbatch));
    assert!(
        stdout(&table).contains(&format!("  {}\n", line[0])),
        "{}",
        stdout(&table)
    );
    // Without sacct, the user is told how the tasks were chosen.
    assert!(
        stdout(&table).contains("no sacct text"),
        "{}",
        stdout(&table)
    );
}

/// sacct's rows for the three tasks, with the states given, and a fourth
/// TIMEOUT task that left no timings.
fn sacct(states: [&str; 3]) -> String {
    let mut text = format!(
        "{}\n",
        calib::commands::audit::SACCT_FORMAT.replace(',', "|")
    );
    for (k, state) in states.iter().enumerate() {
        let task = k;
        text.push_str(&format!(
            "4242_{task}|{}|calib-dataset-Y|cpubase_bycore_b2|{state}|0:0|08:00:10|28810|08:00:00|480|nc1|2026-05-15T00:00:00|2026-05-15T08:00:10|calib stratum=dataset=Y\n",
            4250 + task
        ));
    }
    text.push_str("4242_3|4256|calib-dataset-Y|cpubase_bycore_b2|TIMEOUT|0:0|08:00:10|28810|08:00:00|480|nc1|2026-05-15T00:00:00|2026-05-15T08:00:10|calib stratum=dataset=Y\n");
    text
}

#[test]
fn with_sacct_only_its_timeouts_are_resubmitted_and_the_rest_are_named() {
    // 4242_1 is said to have FAILED: not a walltime kill, not resubmitted.
    let text = sacct(["COMPLETED", "FAILED", "TIMEOUT"]);
    let doc = json_of(&resume(&["--sacct", &text, "--format", "json"]));
    let s = &doc["strata"][0];
    let indexes: Vec<u64> = s["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["array_index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [2], "{doc}");
    assert!(s["commands"][0]["command"]
        .as_str()
        .unwrap()
        .starts_with("sbatch --array=2 "));
    let skipped = doc["skipped"].as_array().unwrap();
    let named: Vec<&str> = skipped
        .iter()
        .map(|k| k["task"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["4242_1", "4242_3"], "{doc}");
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("FAILED in sacct"),
        "{doc}"
    );
    assert!(
        skipped[1]["reason"]
            .as_str()
            .unwrap()
            .contains("no probe timings"),
        "{doc}"
    );
}

#[test]
fn without_a_checkpoint_the_whole_run_is_budgeted_with_the_killed_runs_added() {
    // At 0.99, where the factor exceeds 1 for both probe lengths.
    let rerun = json_of(&resume(&[
        "--no-checkpoint",
        "--format",
        "json",
        "--confidence",
        "0.99",
    ]));
    let resumed = json_of(&resume(&["--format", "json", "--confidence", "0.99"]));
    let budget = calib()
        .current_dir(repo_file(""))
        .args([
            "budget",
            "data/spread-20.csv",
            "--units",
            "100",
            "--partitions",
            &format!("@{PARTITIONS}"),
            "--format",
            "json",
            "--confidence",
            "0.99",
        ])
        .output()
        .unwrap();
    let budget = json_of(&budget);
    let plain = budget["strata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stratum"] == "dataset=Y")
        .unwrap();
    let s = &rerun["strata"][0];
    assert_eq!(rerun["checkpoint"], false);
    // A whole run needs longer than the rest of one.
    assert!(s["time_s"].as_f64().unwrap() > resumed["strata"][0]["time_s"].as_f64().unwrap());
    // The killed runs are evidence: the probe is longer with them, and its
    // margin the calibration's for that length.
    let (with, without) = (
        s["upper_s"].as_f64().unwrap(),
        plain["upper_s"].as_f64().unwrap(),
    );
    assert!((with / without - 1.0).abs() > 0.01, "{with} vs {without}");
    // The slowest seed needs 10.7 h for a whole run (design case 3): the
    // measured cost now covers it.
    assert!(s["floor_s"].as_f64().unwrap() >= 10.5 * 3600.0, "{s}");
    assert!(
        s["notes"][0]["text"]
            .as_str()
            .unwrap()
            .contains("cannot resume"),
        "{s}"
    );
    assert!(s["tasks"][0]["remainder"].is_null());
}

#[test]
fn a_remainder_over_every_cap_exits_3_with_no_live_line() {
    let out = calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "data/spread-20.csv",
            "--timings",
            "data/campaign/timed-out-Y.csv",
            "--units",
            "100",
            "--partitions",
            "short 1:00:00",
            "--format",
            "sbatch",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.lines().any(|l| l.starts_with("sbatch")), "{text}");
    assert!(text.contains("# sbatch --array=1-2"), "{text}");
    assert!(text.contains("over_cap"), "{text}");
}

#[test]
fn bad_input_exits_2_with_what_to_do() {
    // A model file holds no timings to add the killed runs to.
    let out = calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "--model",
            "no-such-model.json",
            "--timings",
            "data/campaign/timed-out-Y.csv",
            "-n",
            "100",
            "-p",
            "b1 3:00:00",
            "--no-checkpoint",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("PROBES"), "{}", stderr(&out));
    // A model without the killed tasks' stratum.
    let out = calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "data/trend-probe-60x3.csv",
            "--timings",
            "data/campaign/timed-out-Y.csv",
            "-n",
            "100",
            "-p",
            "b1 3:00:00",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dataset=Y"), "{}", stderr(&out));
    // A sacct text without its header.
    let out = resume(&["--sacct", "4242_1|TIMEOUT"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// The demo's tasks were killed at units 90 and 74 of 100: `--units 50`
/// would take them for finished and resubmit nothing, with status 0.
#[test]
fn a_task_killed_past_the_units_given_shows_the_units_are_wrong() {
    let out = calib()
        .current_dir(repo_file(""))
        .args(["resume", "data/spread-20.csv"])
        .args([
            "--timings",
            "data/campaign/timed-out-Y.csv",
            "--units",
            "50",
        ])
        .args(["--partitions", &format!("@{PARTITIONS}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("killed after recording 90 units"), "{err}");
    assert!(err.contains("timed-out-Y.csv"), "{err}");
    // At the campaign's --units 100 they are resumed: a run that ended by
    // itself after its 100 units is no sign of wrong units.
    let out = resume(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A job id that is no Slurm job or array task: resubmitted, the task would
/// lose its array index (its seed, its cell), so resume refuses it, naming
/// the file, the run and the value.
#[test]
fn a_job_id_that_is_no_job_or_array_task_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let killed = std::fs::read_to_string(repo_file("data/campaign/timed-out-Y.csv")).unwrap();
    assert!(killed.contains(",4242_1,"), "the demo's killed task");
    for bad in [
        "4242_1$(id)",
        "4242_4294967296",
        "4242_4000001",
        "4242.batch",
    ] {
        let path = dir.path().join("t.csv");
        std::fs::write(&path, killed.replace(",4242_1,", &format!(",{bad},"))).unwrap();
        let out = resume_timings(&path);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stdout(&out));
        let err = stderr(&out);
        for needle in ["t.csv", "its job_id", bad, "JOB_INDEX"] {
            assert!(err.contains(needle), "{bad}: `{needle}` not in {err}");
        }
        assert!(stdout(&out).is_empty(), "{bad}");
    }
}

/// Two killed runs under one job id are two tasks' rows (a task's runs
/// follow one another, and a kill ends the task): refused, naming both,
/// rather than one line that resumes one of them.
#[test]
fn two_killed_runs_under_one_job_id_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let killed = std::fs::read_to_string(repo_file("data/campaign/timed-out-Y.csv")).unwrap();
    assert!(killed.contains(",4242_2,") && killed.contains("campaign-Y-s2,"));
    let path = dir.path().join("t.csv");
    std::fs::write(
        &path,
        killed
            .replace(",4242_2,", ",4242_1,")
            .replace("campaign-Y-s2,", "campaign-Y-s2b,"),
    )
    .unwrap();
    let out = resume_timings(&path);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    for needle in ["t.csv", "campaign-Y-s1", "campaign-Y-s2b", "4242_1"] {
        assert!(err.contains(needle), "`{needle}` not in {err}");
    }
    assert!(stdout(&out).is_empty());
}

/// sacct text whose header has no JobID or State is no sacct output, even
/// without rows: refused, not read as "no task was killed".
#[test]
fn sacct_text_without_job_ids_or_states_is_refused_even_without_rows() {
    for text in ["garbage", "JobID|Foo"] {
        let out = resume(&["--sacct", text]);
        assert_eq!(out.status.code(), Some(2), "{text}: {}", stdout(&out));
        assert!(stderr(&out).contains("column"), "{text}: {}", stderr(&out));
    }
}

/// A run with no job_id did not run as a Slurm job: nothing can resubmit
/// it, and a line for it would be one more copy of its stratum's line, with
/// no array index to tell which run it resumes. Timings with none at all (the
/// probe's own, given as --timings by mistake) are refused; one such run
/// among the tasks is left out, with the reason.
#[test]
fn runs_without_a_job_id_are_not_resubmitted() {
    let dir = tempfile::tempdir().unwrap();
    let killed = std::fs::read_to_string(repo_file("data/campaign/timed-out-Y.csv")).unwrap();
    let run_with = |timings: &str| {
        calib()
            .current_dir(repo_file(""))
            .args(["resume", "data/spread-20.csv", "--timings", timings])
            .args(["--units", "100", "--partitions", &format!("@{PARTITIONS}")])
            .args(["-f", "json"])
            .output()
            .unwrap()
    };
    let out = run_with("data/spread-20.csv");
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    for needle in ["spread-20.csv", "job_id", "slow-s0"] {
        assert!(err.contains(needle), "`{needle}` not in {err}");
    }
    assert!(stdout(&out).is_empty());
    // Task 4242_2 (killed at 74) without its job id: 4242_1 alone is resubmitted.
    let path = dir.path().join("t.csv");
    std::fs::write(&path, killed.replace(",4242_2,", ",,")).unwrap();
    let v = json_of(&run_with(path.to_str().unwrap()));
    let tasks: Vec<&str> = v["strata"][0]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["job_id"].as_str().unwrap())
        .collect();
    assert_eq!(tasks, ["4242_1"], "{v}");
    assert!(v["skipped"].to_string().contains("no job_id"), "{v}");
}

#[test]
fn a_short_probe_gets_a_wider_time_not_a_refusal() {
    // data/trend-probe-7.csv: one run of 7 generations. A run of 100 is
    // bounded with the calibration of short probes, whose runs changed after
    // them more often: wide, and given.
    let dir = tempfile::tempdir().unwrap();
    let killed = dir.path().join("killed.csv");
    let mut text = String::from("run,stratum,unit,elapsed_s,job_id,end\n");
    for i in 1..=30 {
        text.push_str(&format!("k,dataset=X,{i},{},9_2,\n", 30 + 170 * i));
    }
    text.push_str("k,dataset=X,30,5200,9_2,signal:TERM\n");
    std::fs::write(&killed, text).unwrap();
    let out = calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "data/trend-probe-7.csv",
            "--timings",
            killed.to_str().unwrap(),
            "--units",
            "100",
            "--partitions",
            &format!("@{PARTITIONS}"),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let s = &doc["strata"][0];
    assert_ne!(s["status"], "unsupported", "{s}");
    assert!(s["time"].is_string(), "{s}");
    // The rest of the run, 70 generations at the killed run's own pace
    // (170 s), is the floor; the margin is the calibration's.
    let floor = s["floor_s"].as_f64().unwrap();
    assert!((floor / (70.0 * 170.0) - 1.0).abs() < 0.05, "{s}");
    assert!(s["upper_s"].as_f64().unwrap() > 1.1 * floor, "{s}");
}

/// `calib budget --format sbatch --script evolve.sh` of the demo campaign's
/// probes and grid, as the campaign being resumed was submitted.
fn demo_grid_budget(extra: &[&str]) -> std::process::Output {
    calib()
        .current_dir(repo_file(""))
        .args([
            "budget",
            "data/trend-probe-60x3.csv",
            "data/spread-20.csv",
            "--grid",
            "data/campaign/grid.toml",
            "--partitions",
            &format!("@{PARTITIONS}"),
            "--format",
            "sbatch",
            "--script",
            "evolve.sh",
        ])
        .args(extra)
        .output()
        .unwrap()
}

/// The live `sbatch` lines of a `--format sbatch` output.
fn live_lines(out: &std::process::Output) -> Vec<String> {
    assert!(out.status.success(), "{}\n{}", stdout(out), stderr(out));
    stdout(out)
        .lines()
        .filter(|l| l.starts_with("sbatch "))
        .map(String::from)
        .collect()
}

#[test]
fn a_grid_campaign_is_resumed_with_its_grid_exported_and_its_cells_indexes() {
    // The campaign README teaches: budget --grid grid.toml, the tasks derive
    // their cell from CALIB_GRID. Resumed, they must see it again.
    let out = resume(&[
        "--grid",
        "data/campaign/grid.toml",
        "--format",
        "sbatch",
        "--script",
        "evolve.sh",
    ]);
    let lines = live_lines(&out);
    assert_eq!(lines.len(), 1, "{}", stdout(&out));
    let grid = std::path::absolute(repo_file("data/campaign/grid.toml")).unwrap();
    let words: Vec<&str> = lines[0].split(' ').collect();
    assert!(
        words.contains(
            &format!(
                "--export=ALL,CALIB_STRATUM=dataset=Y,CALIB_UNITS=100,CALIB_GRID={}",
                grid.display()
            )
            .as_str()
        ),
        "{}",
        lines[0]
    );
    // The same --export as calib budget --grid gives the stratum's first array.
    let budget = demo_grid_budget(&[]);
    let export = |line: &str| {
        line.split(' ')
            .find(|w| w.starts_with("--export="))
            .map(String::from)
    };
    let first = live_lines(&budget)
        .into_iter()
        .find(|l| l.contains("CALIB_STRATUM=dataset=Y,"))
        .unwrap();
    assert_eq!(export(&first), export(&lines[0]));
    // Each resubmitted index derives one of the stratum's cells.
    let array = words[1].strip_prefix("--array=").unwrap();
    assert_eq!(array, "1-2", "{}", lines[0]);
    for index in ["1", "2"] {
        let cell = calib()
            .current_dir(repo_file(""))
            .args([
                "grid",
                "cell",
                "data/campaign/grid.toml",
                "--stratum",
                "dataset=Y",
                "--index",
                index,
            ])
            .output()
            .unwrap();
        assert!(cell.status.success(), "index {index}: {}", stderr(&cell));
    }
}

#[test]
fn a_task_index_outside_the_grid_s_cells_is_refused() {
    // Tasks numbered as one global array (4242_4, 4242_5) cannot derive a
    // cell of the stratum's 3: refused, naming the task and the grid.
    let dir = tempfile::tempdir().unwrap();
    let global = dir.path().join("global.csv");
    let text = std::fs::read_to_string(repo_file("data/campaign/timed-out-Y.csv"))
        .unwrap()
        .replace(",4242_1,", ",4242_4,")
        .replace(",4242_2,", ",4242_5,");
    std::fs::write(&global, text).unwrap();
    let out = calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "data/spread-20.csv",
            "--timings",
            global.to_str().unwrap(),
            "--units",
            "100",
            "--partitions",
            &format!("@{PARTITIONS}"),
            "--grid",
            "data/campaign/grid.toml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("4242_4") && err.contains("grid.toml"), "{err}");
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    // A sizes CSV is no grid to derive a cell from.
    let out = resume(&["--grid", "data/campaign/partitions-narval.txt"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
}

#[test]
fn job_scripts_of_budget_s_script_dir_are_what_resume_submits() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs");
    let budget = demo_grid_budget(&["--script-dir", jobs.to_str().unwrap()]);
    let submitted = live_lines(&budget)
        .into_iter()
        .find(|l| l.contains("dataset-Y"))
        .unwrap();
    let out = resume(&["--format", "sbatch", "--script-dir", jobs.to_str().unwrap()]);
    let lines = live_lines(&out);
    assert_eq!(lines.len(), 1, "{}", stdout(&out));
    // The same file budget's line submits, now for the killed indexes only.
    let file = submitted.strip_prefix("sbatch ").unwrap();
    assert!(lines[0].starts_with("sbatch --array=1-2 "), "{}", lines[0]);
    assert!(
        lines[0].ends_with(&format!(" {file}")),
        "{}\n{file}",
        lines[0]
    );
    // A folder without the stratum's job script: refused, nothing printed.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = resume(&[
        "--format",
        "sbatch",
        "--script-dir",
        empty.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("calib-dataset-Y.sh"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
}

/// A file in --script-dir under a job script's name is read under the bound
/// of a job script (1 MiB), not whole whatever its size (a file of 2 GiB was
/// read into memory), and refused naming it.
#[test]
fn a_job_script_past_its_bound_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs");
    std::fs::create_dir_all(&jobs).unwrap();
    let huge = jobs.join("calib-dataset-Y.sh");
    // A hole of 2 GiB: no disk space used.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let out = resume(&["--format", "sbatch", "--script-dir", jobs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains(&huge.display().to_string()), "{err}");
    assert!(err.contains("more than 1 MiB"), "{err}");
    assert!(stdout(&out).is_empty());
}

/// Probe rows of 3 runs x 20 units of `stratum`, each unit `per` seconds.
fn probe_rows(stratum: &str, per: f64) -> String {
    let mut text = String::new();
    for run in 0..3 {
        let mut t = 5.0;
        for unit in 1..=20 {
            t += per * (1.0 + 0.05 * run as f64) * (1.0 + 0.01 * ((unit * 7 + run) % 5) as f64);
            text.push_str(&format!("r{run},\"{stratum}\",{unit},{t:.3}\n"));
        }
    }
    text
}

/// Two strata whose labels give the same job name (`ds=a b`, `ds=a_b`):
/// budget's job scripts are `calib-ds-a_b.sh` and `calib-ds-a_b-2.sh`, which
/// one is whose depending on that budget's strata. Resume submits the file
/// that exports the killed task's own stratum (the other would run the other
/// stratum's cell), and overrides the file's --time-min, the whole run's
/// measured cost, which would exceed the remainder's --time.
#[test]
fn resume_submits_the_job_script_of_the_task_s_own_stratum() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let mut probes = String::from("run,stratum,unit,elapsed_s\n");
    probes.push_str(&probe_rows("ds=a b", 60.0));
    probes.push_str(&probe_rows("ds=a_b", 30.0));
    std::fs::write(path("probes.csv"), probes).unwrap();
    let mut killed = String::from("run,stratum,unit,elapsed_s,job_id\n");
    for unit in 1..=25 {
        killed.push_str(&format!("k0,ds=a_b,{unit},{},900_1\n", 5 + 31 * unit));
    }
    std::fs::write(path("killed.csv"), killed).unwrap();
    let run = |args: &[&str]| calib().current_dir(dir.path()).args(args).output().unwrap();
    let fit = run(&["fit", "probes.csv", "-o", "m.json"]);
    assert_eq!(fit.status.code(), Some(0), "{}", stderr(&fit));
    let partitions = ["--units", "40", "--partitions", "short* 2:00:00"];
    let budget = run(&[
        &["budget", "--model", "m.json", "-f", "sbatch"][..],
        &partitions,
        &["--script", "job.sh", "--script-dir", "jobs", "--time-min"],
    ]
    .concat());
    assert_eq!(budget.status.code(), Some(0), "{}", stderr(&budget));
    let resumed = |folder: &str| {
        run(&[
            &[
                "resume",
                "--model",
                "m.json",
                "--timings",
                "killed.csv",
                "-f",
                "sbatch",
            ][..],
            &partitions,
            &["--script-dir", folder],
        ]
        .concat())
    };
    let out = resumed("jobs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = live_lines(&out);
    assert_eq!(lines.len(), 1, "{}", stdout(&out));
    let words = shlex::split(&lines[0]).unwrap();
    let script = words.last().unwrap();
    let text = std::fs::read_to_string(dir.path().join(script)).unwrap();
    assert!(
        text.lines().any(|l| l == "export CALIB_STRATUM=ds=a_b"),
        "{script} is another stratum's:\n{text}"
    );
    let option = |name: &str| {
        words
            .iter()
            .find_map(|w| w.strip_prefix(&format!("--{name}=")))
            .unwrap_or_else(|| panic!("no --{name} in {}", lines[0]))
    };
    assert_eq!(option("time-min"), option("time"), "{}", lines[0]);
    // Without the stratum's own file, resume refuses, naming the stratum.
    std::fs::create_dir_all(dir.path().join("others")).unwrap();
    let other = ["jobs/calib-ds-a_b.sh", "jobs/calib-ds-a_b-2.sh"]
        .into_iter()
        .find(|f| dir.path().join(f) != dir.path().join(script))
        .unwrap();
    std::fs::copy(
        dir.path().join(other),
        dir.path().join("others/calib-ds-a_b.sh"),
    )
    .unwrap();
    let out = resumed("others");
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("stratum `ds=a_b`"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

#[test]
fn over_every_cap_each_segment_pays_the_startup_and_a_lost_unit_and_fits_the_cap() {
    let run = |format: &str| {
        calib()
            .current_dir(repo_file(""))
            .args([
                "resume",
                "data/spread-20.csv",
                "--timings",
                "data/campaign/timed-out-Y.csv",
                "--units",
                "100",
                "--partitions",
                "short 40:00",
                "--format",
                format,
            ])
            .output()
            .unwrap()
    };
    let out = run("json");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let s = &doc["strata"][0];
    assert_eq!(s["status"], "over_cap", "{s}");
    let cap = 40.0 * 60.0;
    let most = |field: &str| {
        s["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["remainder"][field].as_f64().unwrap())
            .fold(0.0, f64::max)
    };
    // Each segment does the cap less a startup and less the unit a kill loses,
    // both as large as for a run at the upper bound (scaled as the bound
    // scales the remainder): enough segments for the work left, and not one more.
    let upper = s["upper_s"].as_f64().unwrap();
    let at_bound = upper / s["predicted_s"].as_f64().unwrap();
    assert!(at_bound > 1.0, "{s}");
    let (startup, unit) = (most("startup_s") * at_bound, most("unit_s") * at_bound);
    assert!(startup > 0.0 && unit > 0.0, "{s}");
    let work = upper - startup;
    let per_segment = cap - startup - unit;
    let n = s["segments"].as_u64().unwrap() as f64;
    assert!(n * per_segment >= work - 1.0, "{n} segments: {s}");
    assert!((n - 1.0) * per_segment < work + 1.0, "{n} segments: {s}");
    // The commented line is one segment's: its --time within the cap.
    let text = stdout(&run("sbatch"));
    let line = text
        .lines()
        .find(|l| l.starts_with("# sbatch "))
        .unwrap_or_else(|| panic!("{text}"));
    let time = line
        .split(' ')
        .find_map(|w| w.strip_prefix("--time="))
        .unwrap();
    let seconds = calib::slurm::time::parse_time(time)
        .unwrap()
        .seconds()
        .unwrap() as f64;
    assert!(seconds <= cap, "{line}");
    assert!(!text.lines().any(|l| l.starts_with("sbatch")), "{text}");
}

#[test]
fn the_own_pace_remainder_is_not_called_measured() {
    // The remainder's floor is a projection of units that never ran.
    let table = stdout(&resume(&[]));
    let header = table.lines().next().unwrap();
    assert!(!header.contains("measured"), "{header}");
    assert!(!table.contains("measured remainder"), "{table}");
    let sbatch = stdout(&resume(&["--format", "sbatch"]));
    assert!(!sbatch.contains(", measured "), "{sbatch}");
    let help = stdout(&calib().args(["resume", "--help"]).output().unwrap());
    assert!(!help.contains("measured remainder"), "{help}");
}

#[test]
fn timings_holding_a_run_and_its_resumption_are_refused() {
    // Task 1 killed at generation 90, resumed as 5000_1 and killed again
    // after 8 more: that run's probe counted 1..8. Read as a first run it
    // would be at generation 8 of 100, and 4242_1 resubmitted beside it.
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("both.csv");
    let mut text = std::fs::read_to_string(repo_file("data/campaign/timed-out-Y.csv")).unwrap();
    for i in 1..=8 {
        text.push_str(&format!(
            "resumed-Y-s1,\"dataset=Y\",{i},{},narval,AMD EPYC 7532,5000_1,\n",
            20 + 385 * i
        ));
    }
    text.push_str("resumed-Y-s1,\"dataset=Y\",8,3600,narval,AMD EPYC 7532,5000_1,signal:TERM\n");
    std::fs::write(&both, text).unwrap();
    let out = calib()
        .current_dir(repo_file(""))
        .args([
            "resume",
            "data/spread-20.csv",
            "--timings",
            both.to_str().unwrap(),
            "--units",
            "100",
            "--partitions",
            &format!("@{PARTITIONS}"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("4242_1") && err.contains("5000_1"), "{err}");
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

#[test]
fn a_cap_that_cannot_hold_a_restart_and_a_unit_gets_no_segments_and_no_line() {
    // 6 minutes: less than the restart's startup and one unit of dataset=Y.
    let run = |format: &str| {
        calib()
            .current_dir(repo_file(""))
            .args([
                "resume",
                "data/spread-20.csv",
                "--timings",
                "data/campaign/timed-out-Y.csv",
                "--units",
                "100",
                "--partitions",
                "tiny 6:00",
                "--format",
                format,
            ])
            .output()
            .unwrap()
    };
    let out = run("json");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let s = &doc["strata"][0];
    let t = &s["tasks"][1]["remainder"];
    assert!(
        t["startup_s"].as_f64().unwrap() + t["unit_s"].as_f64().unwrap() > 360.0,
        "{s}"
    );
    assert!(s["segments"].is_null(), "{s}");
    let text = stdout(&run("sbatch"));
    assert!(!text.contains("sbatch --array"), "{text}");
}

#[test]
fn timings_that_hold_no_run_are_bad_input_not_a_campaign_without_kills() {
    // A mistyped folder used to end "no task to resubmit" with status 0.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let header_only = dir.path().join("header.csv");
    std::fs::write(&header_only, "run,stratum,unit,elapsed_s\n").unwrap();
    for timings in [empty.as_path(), header_only.as_path()] {
        let out = calib()
            .current_dir(repo_file(""))
            .args(["resume", "data/spread-20.csv", "--timings"])
            .arg(timings)
            .args(["--units", "100", "--partitions", &format!("@{PARTITIONS}")])
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--timings"), "{err}");
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    }
}

/// A campaign without strata resumes as one, shown as `(all)` in the table
/// and its notes, as calib budget shows it; the emitted line exports the
/// empty stratum itself.
#[test]
fn a_campaign_without_strata_is_shown_as_all() {
    let dir = tempfile::tempdir().unwrap();
    let mut probes = String::from("run,stratum,unit,elapsed_s\n");
    for (run, per) in [("p1", 10.0), ("p2", 10.5), ("p3", 9.8)] {
        for unit in 1..=10 {
            probes.push_str(&format!("{run},,{unit},{:.1}\n", per * unit as f64));
        }
    }
    let mut killed = String::from("run,stratum,unit,elapsed_s,job_id\n");
    for unit in 1..=12 {
        killed.push_str(&format!("k1,,{unit},{:.1},77_1\n", 10.2 * unit as f64));
    }
    std::fs::write(dir.path().join("probes.csv"), probes).unwrap();
    std::fs::write(dir.path().join("killed.csv"), killed).unwrap();
    let out = calib()
        .current_dir(dir.path())
        .args([
            "resume",
            "probes.csv",
            "--timings",
            "killed.csv",
            "-n",
            "20",
            "--explain",
        ])
        .args(["-p", "p 1:00:00"])
        .output()
        .unwrap();
    let table = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{table}{}", stderr(&out));
    assert!(table.lines().any(|l| l.starts_with("(all) ")), "{table}");
    assert!(table.contains("\n  (all): "), "{table}");
    assert!(table.contains("CALIB_STRATUM=,"), "{table}");
}

/// A resumed run beside the run it resumed (the same stratum and array
/// index, two arrays, both short of N) is refused: its units count from 1
/// again. Runs of other indexes, or of another stratum, are not mistaken
/// for it.
#[test]
fn a_resumed_run_beside_its_first_run_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let killed = dir.path().join("killed.csv");
    let run = |name: &str, stratum: &str, job: &str, units: u64| {
        let mut rows = String::new();
        for i in 1..=units {
            rows.push_str(&format!("{name},{stratum},{i},{},{job},\n", 20 + 385 * i));
        }
        rows + &format!(
            "{name},{stratum},{units},{},{job},signal:TERM\n",
            20 + 385 * units
        )
    };
    let mut text = String::from("run,stratum,unit,elapsed_s,job_id,end\n");
    text += &run("first", "dataset=Y", "9_2", 30);
    text += &run("other-index", "dataset=Y", "12_1", 10);
    text += &run("other-stratum", "dataset=Z", "13_2", 10);
    let resume = |text: &str| {
        std::fs::write(&killed, text).unwrap();
        calib()
            .current_dir(repo_file(""))
            .args(["resume", "data/spread-20.csv", "--timings"])
            .arg(&killed)
            .args(["--units", "100", "--partitions", &format!("@{PARTITIONS}")])
            .output()
            .unwrap()
    };
    let out = resume(&text);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    text += &run("resumed", "dataset=Y", "12_2", 10);
    let out = resume(&text);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("both index 2 of stratum `dataset=Y`"), "{err}");
}
