//! `calib budget --format sbatch` output that can be used as it is: either
//! one commented `sbatch` command line per stratum carrying every option, or
//! (`--script-dir`) one job script per stratum and the `sbatch FILE` lines
//! that submit them; never both, never a `#SBATCH` block with nowhere to go.
//! Run on the bundled example data (data/spread-20.csv: strata dataset=Y and
//! dataset=Z, measured on narval) against Narval's partitions.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use common::{budget_bundled, stderr, stdout};

/// `calib budget` of the bundled data, 100 units and 3 tasks per stratum, run
/// in `cwd` with `extra` arguments.
fn budget(cwd: &Path, extra: &[&str]) -> Output {
    budget_bundled()
        .current_dir(cwd)
        .args(extra)
        .output()
        .unwrap()
}

/// The arguments the shell passes for a printed `sbatch` line.
fn shell_words(line: &str) -> Vec<String> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\n' {line}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{line}: {}", stderr(&out));
    stdout(&out).lines().map(String::from).collect()
}

/// Per stratum, from the JSON output: (stratum, time, units).
fn budgeted(cwd: &Path) -> Vec<(String, String, u64)> {
    let out = budget(cwd, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    doc["strata"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["stratum"].as_str().unwrap().to_string(),
                s["time"].as_str().unwrap().to_string(),
                s["units"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn command_lines_carry_every_option_after_their_provenance_and_no_directive_block() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(
        dir.path(),
        &[
            "--format",
            "sbatch",
            "--script",
            "evolve.sh",
            "--time-min",
            "--explain",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    // No `#SBATCH` block: every option is on the command line.
    assert!(!text.lines().any(|l| l.starts_with("#SBATCH")), "{text}");
    // Nothing but comments, blank lines and sbatch commands.
    for line in text.lines() {
        assert!(
            line.is_empty() || line.starts_with("# ") || line.starts_with("sbatch "),
            "{line}"
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    let strata = budgeted(dir.path());
    assert_eq!(strata.len(), 2);
    for (stratum, time, units) in &strata {
        let at = lines
            .iter()
            .position(|l| {
                l.starts_with("sbatch ") && l.contains(&format!("CALIB_STRATUM={stratum},"))
            })
            .unwrap_or_else(|| panic!("no sbatch line for {stratum}:\n{text}"));
        let args = shell_words(lines[at]);
        for want in [
            "--array=0-2".to_string(),
            format!("--time={time}"),
            "--time-min=".to_string(),
            format!("--job-name=calib-{}", stratum.replace('=', "-")),
            format!("--comment=calib stratum={stratum}"),
            format!("--export=ALL,CALIB_STRATUM={stratum},CALIB_UNITS={units}"),
        ] {
            assert!(
                args.iter().any(|a| a.starts_with(&want)),
                "no {want} in {args:?}"
            );
        }
        assert_eq!(args.last().map(String::as_str), Some("evolve.sh"));
        // Right above it, its provenance: the stratum and the time chosen,
        // then the projection with the margin.
        let comment: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .take_while(|l| l.starts_with("# "))
            .copied()
            .collect();
        let heading = comment.last().unwrap();
        assert!(
            heading.starts_with(&format!("# stratum {stratum}: --time={time} in ")),
            "{heading}"
        );
        let all = comment.join("\n");
        for word in [
            "predicted",
            "measured cost",
            "upper bound",
            "margin",
            "fitted:",
        ] {
            assert!(all.contains(word), "no `{word}` in\n{all}");
        }
    }
}

#[test]
fn script_dir_writes_one_job_script_per_stratum_and_prints_only_their_submissions() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("campaign");
    std::fs::create_dir(&cwd).unwrap();
    // The user's job script, given by a relative path: it records what the
    // job hands it.
    let log = dir.path().join("job.log");
    let script = cwd.join("evolve.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s|%s|%s\\n' \"$CALIB_STRATUM\" \"$CALIB_UNITS\" \"$*\" >> '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = budget(
        &cwd,
        &[
            "--format",
            "sbatch",
            "--script",
            "evolve.sh",
            "--script-dir",
            "jobs",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("executable"), "{}", stderr(&out));
    let text = stdout(&out);
    let mut files: Vec<String> = std::fs::read_dir(cwd.join("jobs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["calib-dataset-Y.sh", "calib-dataset-Z.sh"]);
    // The printed submissions are exactly `sbatch FILE`, one per file: the
    // options are in the files, not on the lines too.
    let mut submitted: Vec<Vec<String>> = text
        .lines()
        .filter(|l| l.starts_with("sbatch "))
        .map(shell_words)
        .collect();
    submitted.sort();
    let expected: Vec<Vec<String>> = files
        .iter()
        .map(|f| vec!["sbatch".to_string(), format!("jobs/{f}")])
        .collect();
    assert_eq!(submitted, expected, "{text}");
    assert!(!text.lines().any(|l| l.starts_with("#SBATCH")), "{text}");

    for (stratum, time, units) in budgeted(&cwd) {
        let file = cwd
            .join("jobs")
            .join(format!("calib-{}.sh", stratum.replace('=', "-")));
        let body = std::fs::read_to_string(&file).unwrap();
        assert!(body.starts_with("#!/bin/sh\n"), "{body}");
        for directive in [
            "#SBATCH --array=0-2".to_string(),
            format!("#SBATCH --time={time}"),
            format!("#SBATCH --comment='calib stratum={stratum}'"),
            "#SBATCH --export=ALL".to_string(),
        ] {
            assert!(
                body.lines().any(|l| l == directive),
                "no {directive} in\n{body}"
            );
        }
        // No sbatch command inside a job script.
        assert!(!body.lines().any(|l| l.starts_with("sbatch")), "{body}");
        // Run as the job runs it: from another folder, with an argument.
        let _ = std::fs::remove_file(&log);
        let ran = Command::new("sh")
            .arg(&file)
            .arg("seed=1")
            .current_dir(dir.path())
            .env_remove("CALIB_STRATUM")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(ran.status.success(), "{}\n{body}", stderr(&ran));
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            format!("{stratum}|{units}|seed=1\n")
        );
    }
}

#[test]
fn script_dir_never_overwrites_a_job_script() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs");
    std::fs::create_dir(&jobs).unwrap();
    let mine = jobs.join("calib-dataset-Z.sh");
    std::fs::write(&mine, "#!/bin/sh\n# edited by hand\n").unwrap();
    let out = budget(
        dir.path(),
        &["--format", "sbatch", "--script-dir", jobs.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&mine.display().to_string()), "{err}");
    assert!(err.contains("does not overwrite"), "{err}");
    assert!(out.stdout.is_empty(), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(&mine).unwrap(),
        "#!/bin/sh\n# edited by hand\n"
    );
    // Refused before any write: the other stratum's script is not there.
    let names: Vec<_> = std::fs::read_dir(&jobs).unwrap().collect();
    assert_eq!(names.len(), 1);
}

/// A write that fails after the job scripts (the plot, on a full disk)
/// removes the job scripts this run wrote, and only those: left there, they
/// refused the retry ("calib does not overwrite a job script") for scripts
/// no one had seen. The full disk is a file-size limit between the scripts'
/// size and the plot's, which stops root as well.
#[test]
fn a_failed_later_write_removes_the_job_scripts_it_wrote_and_the_retry_runs() {
    let args = [
        "--format",
        "sbatch",
        "--script-dir",
        "jobs",
        "--plot",
        "budget.svg",
    ];
    let size = |path: &Path| std::fs::metadata(path).unwrap().len();
    // The sizes of what the run writes, when nothing stops it.
    let measured = tempfile::tempdir().unwrap();
    let out = budget(measured.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let scripts: Vec<u64> = std::fs::read_dir(measured.path().join("jobs"))
        .unwrap()
        .map(|e| size(&e.unwrap().path()))
        .collect();
    assert_eq!(scripts.len(), 2);
    let largest_script = *scripts.iter().max().unwrap();
    let plot = size(&measured.path().join("budget.svg"));
    assert!(largest_script < plot, "{scripts:?} {plot}");

    let dir = tempfile::tempdir().unwrap();
    let jobs = dir.path().join("jobs");
    // A file of the user's in the folder, which the cleanup must not touch.
    std::fs::create_dir(&jobs).unwrap();
    std::fs::write(jobs.join("notes.txt"), "mine\n").unwrap();
    let mut command = budget_bundled();
    command.current_dir(dir.path()).args(args);
    let out = common::limit_file_size(&mut command, (largest_script + plot) / 2)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("budget.svg"), "{}", stderr(&out));
    let left: Vec<String> = std::fs::read_dir(&jobs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["notes.txt"], "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(jobs.join("notes.txt")).unwrap(),
        "mine\n"
    );
    assert!(!dir.path().join("budget.svg").exists());

    let out = budget(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&jobs).unwrap().count(), 3);
}

#[test]
fn script_dir_is_for_the_sbatch_format() {
    let dir = tempfile::tempdir().unwrap();
    let out = budget(dir.path(), &["--script-dir", "jobs"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--format sbatch"), "{}", stderr(&out));
    assert!(!dir.path().join("jobs").exists());
}

#[test]
fn script_dir_warns_when_the_script_it_runs_is_not_executable() {
    let dir = tempfile::tempdir().unwrap();
    // The default --script, job.sh, which this folder does not hold.
    let out = budget(dir.path(), &["--format", "sbatch", "--script-dir", "jobs"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let job = dir.path().canonicalize().unwrap().join("job.sh");
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains(&job.display().to_string()), "{err}");
    assert!(err.contains("chmod +x"), "{err}");
    let body = std::fs::read_to_string(dir.path().join("jobs/calib-dataset-Y.sh")).unwrap();
    assert!(
        body.lines()
            .any(|l| l == format!("exec {} \"$@\"", job.display())),
        "{body}"
    );
}

#[test]
fn an_empty_script_is_refused_before_any_output() {
    let dir = tempfile::tempdir().unwrap();
    for extra in [&[][..], &["--script-dir", "jobs"][..]] {
        let mut args = vec!["--format", "sbatch", "--script", ""];
        args.extend_from_slice(extra);
        let out = budget(dir.path(), &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--script"), "{}", stderr(&out));
        assert!(stderr(&out).contains("empty"), "{}", stderr(&out));
        assert!(!stdout(&out).contains("sbatch"), "{}", stdout(&out));
        assert!(!dir.path().join("jobs").exists());
    }
}

#[test]
fn a_script_that_is_a_folder_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("train");
    std::fs::create_dir(&folder).unwrap();
    for extra in [&[][..], &["--script-dir", "jobs"][..]] {
        let mut args = vec!["--format", "sbatch", "--script", "train"];
        args.extend_from_slice(extra);
        let out = budget(dir.path(), &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--script") && err.contains("`train` is a folder"),
            "{err}"
        );
        assert!(!err.contains("chmod"), "{err}");
        assert!(!dir.path().join("jobs").exists());
    }
}

/// A --script-dir that is a file is bad input (exit 2), said as such, and
/// the file is left as it was.
#[test]
fn a_script_dir_that_is_a_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("train.sh"), "#!/bin/sh\n").unwrap();
    std::fs::write(dir.path().join("jobs"), "mine").unwrap();
    let out = budget(
        dir.path(),
        &[
            "--format",
            "sbatch",
            "--script",
            "train.sh",
            "--script-dir",
            "jobs",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--script-dir") && err.contains("is a file, not a folder"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("jobs")).unwrap(),
        "mine"
    );
}
