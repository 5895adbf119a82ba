//! No value can become code in the script `calib budget --format sbatch` writes.
//!
//! Output side: hostile values (newlines, command substitutions, quotes, a
//! `#SBATCH` directive, carriage returns, terminal escapes, a very long one, a
//! leading `-`) are put straight into a budget, past every input check, in
//! every field the sbatch exporter shows: stratum, cluster, CPU model, model
//! name, dates, notes, partition, unit name and script. The script is then
//! checked by `bash -n`, and run by a real `bash` with a stub `sbatch` on PATH
//! that records its arguments: no payload may run, and the stub must receive
//! exactly the intended arguments, the stratum included, byte for byte.
//!
//! Input side: the built binary refuses a control character in each way a
//! label or name comes in, with exit status 2 and a message naming where.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use calib::budget::export::{job_name, ExportContext, Format};
use calib::budget::{self, Budget, BudgetOptions, Status, Target};
use calib::slurm::partitions::parse_partitions;
use calib::slurm::time::format_sbatch_time;
use calib::synth;
use common::{calib, fit_csv, stderr, stdout};

fn have_bash() -> bool {
    Command::new("bash")
        .args(["-c", "exit 0"])
        .status()
        .is_ok_and(|s| s.success())
}

/// A fitted budget of one stratum (3 tasks of 100 units), measured with
/// rows written by the synthetic generator.
fn honest_budget() -> Budget {
    let mut csv = synth::HEADER.to_string();
    for k in 0..3u64 {
        let spec = synth::RunSpec {
            run: format!("r{k}"),
            stratum: "bench=sim".into(),
            units: 30,
            startup_s: 0.5,
            cost: synth::Cost::Constant { a: 0.4 },
            level: 1.0 + 0.01 * k as f64,
            noise_cv: 0.02,
            cluster: "clusterA".into(),
            cpu_model: "Intel Xeon Gold 6148".into(),
        };
        synth::write_unit_rows(&mut csv, &spec, &mut synth::Rng::new(7 + k));
    }
    let report = fit_csv(&csv);
    let list = parse_partitions(
        "cpu_b1* 3:00:00\ncpu_b2 12:00:00\n",
        &calib::error::Origin::Argument("test".into()),
    )
    .unwrap();
    let options = BudgetOptions {
        units: Some(100),
        tasks: 3,
        grid: None,
        confidence: 0.99,
        target: Target::default(),
        allow_transfer: false,
        allow_guess: false,
    };
    budget::plan(&report.model, &list.select(None).unwrap(), &options).unwrap()
}

/// `hostile` in every text field of the budget, as a model file edited by
/// hand or a library caller could put it; a second, over-cap stratum has it
/// too, so that the commented-out lines are exercised.
fn poisoned(mut budget: Budget, hostile: &str, comment_only: &str) -> Budget {
    budget.partitions = comment_only.to_string();
    budget.notes.push(comment_only.to_string());
    let s = &mut budget.strata[0];
    s.stratum = hostile.to_string();
    s.notes.push(comment_only.to_string());
    s.decision.partition = Some(hostile.to_string());
    s.basis.clusters = vec![comment_only.to_string(), hostile.to_string()];
    s.basis.cpu_models = vec![comment_only.to_string()];
    s.basis.model = comment_only.to_string();
    s.basis.measured_from = Some(comment_only.to_string());
    let mut over = s.clone();
    over.decision.status = Status::OverCap;
    over.decision.partition = None;
    over.decision.segments = Some(3);
    budget.strata.push(over);
    budget
}

/// The corpus. `{P}` is the file a successful injection would create.
fn corpus(sentinel: &Path) -> Vec<String> {
    let p = sentinel.display().to_string();
    let long = format!("d={}\ntouch {p}", "x".repeat(20_000));
    [
        "d=x\ntouch {P}",
        "d=$(touch {P})",
        "d=`touch {P}`",
        "d=x; touch {P}",
        "d=it's'; touch {P}; '",
        "d=\"x\"; touch {P}; \"",
        "d=back\\slash\\",
        "d=x\\\ntouch {P}",
        "d=x\n#SBATCH --wrap=touch {P}",
        "d=x\r\ntouch {P}",
        "d=x\rtouch {P}",
        "d=x\ttab ${IFS}touch${IFS}{P}",
        "d=é\u{202e}\u{2028}touch {P}\u{2029}\u{85}\u{fffd}\u{1f600}",
        "d=x\u{1b}]0;title\u{7}\u{1b}[2K\u{7f}",
        "-rf d=x",
        "--wrap=touch {P}",
        "d=x' '\\''\n'",
        "",
    ]
    .iter()
    .map(|v| v.replace("{P}", &p))
    .chain([long])
    .collect()
}

/// A stub `sbatch` that writes its arguments, NUL-separated, to one file per
/// call in `log`.
fn stub_sbatch(bin: &Path, log: &Path) {
    std::fs::create_dir_all(bin).unwrap();
    std::fs::create_dir_all(log).unwrap();
    let stub = bin.join("sbatch");
    std::fs::write(
        &stub,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}/call.'$$\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn calls(log: &Path) -> Vec<Vec<String>> {
    std::fs::read_dir(log)
        .unwrap()
        .map(|e| {
            let bytes = std::fs::read(e.unwrap().path()).unwrap();
            let text = String::from_utf8(bytes).expect("arguments are UTF-8");
            let mut args: Vec<String> = text.split('\0').map(String::from).collect();
            assert_eq!(args.pop().as_deref(), Some(""), "NUL-terminated");
            args
        })
        .collect()
}

#[test]
fn hostile_values_never_become_code_and_reach_sbatch_intact() {
    if !have_bash() {
        eprintln!("skipped: no bash on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let honest = honest_budget();
    let sentinel = dir.path().join("pwned");
    let bin = dir.path().join("bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    for (i, hostile) in corpus(&sentinel).iter().enumerate() {
        // NUL cannot be an argument, so it goes where text is only shown.
        let comment_only = format!("{hostile}\0nul\n touch {}", sentinel.display());
        let budget = poisoned(honest.clone(), hostile, &comment_only);
        let context = ExportContext {
            script: hostile.clone(),
            time_min: true,
            unit_name: comment_only.clone(),
            created_at: comment_only.clone(),
            name_partition: true,
        };
        let mut bytes = Vec::new();
        Format::Sbatch
            .exporter()
            .export(&budget, &context, &mut bytes)
            .unwrap();
        let script = String::from_utf8(bytes).unwrap();
        let case = format!("case {i} {hostile:?}");

        let work = dir.path().join(format!("work{i}"));
        let log = dir.path().join(format!("log{i}"));
        std::fs::create_dir_all(&work).unwrap();
        stub_sbatch(&bin, &log);
        let file = dir.path().join(format!("submit{i}.sh"));
        std::fs::write(&file, &script).unwrap();

        let syntax = Command::new("bash").arg("-n").arg(&file).output().unwrap();
        assert!(
            syntax.status.success(),
            "{case}: bash -n: {}\n{script}",
            stderr(&syntax)
        );
        let ran = Command::new("bash")
            .arg(&file)
            .current_dir(&work)
            .env("PATH", &path)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(ran.status.success(), "{case}: {}\n{script}", stderr(&ran));
        assert!(!sentinel.exists(), "{case}: the payload ran\n{script}");
        assert_eq!(
            std::fs::read_dir(&work).unwrap().count(),
            0,
            "{case}: the script left files behind"
        );

        // sbatch reads the `#SBATCH` lines of a script's leading comment block
        // (up to its first command): there, exactly calib's five directives
        // of the first stratum, none injected.
        let directives: Vec<&str> = script
            .lines()
            .take_while(|l| l.is_empty() || l.starts_with('#'))
            .filter(|l| l.starts_with("#SBATCH"))
            .collect();
        assert_eq!(directives.len(), 5, "{case}:\n{script}");
        for (line, option) in directives.iter().zip([
            "--time=",
            "--partition=",
            "--time-min=",
            "--job-name=",
            "--comment=",
        ]) {
            assert!(
                line.starts_with(&format!("#SBATCH {option}")),
                "{case}: {line}"
            );
        }

        // One submission (the over-cap stratum is commented out), with
        // exactly the arguments calib meant.
        let s = &budget.strata[0];
        let script_arg = if hostile.starts_with('-') {
            format!("./{hostile}")
        } else {
            hostile.clone()
        };
        let expected = vec![
            "--array=0-2".to_string(),
            format!("--time={}", s.time()),
            format!("--partition={hostile}"),
            format!("--time-min={}", format_sbatch_time(s.projection.floor_s)),
            format!("--job-name={}", job_name(hostile)),
            format!("--comment=calib stratum={hostile}"),
            format!(
                "--export=ALL,CALIB_STRATUM={},CALIB_UNITS=100",
                hostile.replace(',', ";")
            ),
            script_arg,
        ];
        assert_eq!(calls(&log), vec![expected], "{case}\n{script}");
    }
}

// ---- input side: the built binary ----

fn assert_refused(out: &Output, names: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "nothing emitted: {}", stdout(out));
    assert!(err.contains("U+000A"), "{err}");
    for name in names {
        assert!(err.contains(name), "`{name}` not named in: {err}");
    }
}

#[test]
fn probe_refuses_a_stratum_with_a_newline() {
    let dir = tempfile::tempdir().unwrap();
    let sentinel = dir.path().join("pwned");
    let out = calib()
        .env("SLURM_JOB_ID", "1")
        .arg("probe")
        .arg("--out")
        .arg(dir.path().join("out"))
        .arg("-s")
        .arg(format!("d=x\ntouch {}", sentinel.display()))
        .args(["--", "sh", "-c", "echo CALIB_UNIT"])
        .output()
        .unwrap();
    assert_refused(&out, &["--stratum"]);
    assert!(!dir.path().join("out").exists(), "no file written");
}

/// A timings file whose second run carries `value` in `column` (quoted, so
/// that the CSV holds a newline inside a field), and a sound row after it.
fn timings_with(dir: &Path, column: &str, value: &str) -> PathBuf {
    let header = "run,stratum,unit,elapsed_s,cluster,cpu_model";
    let mut fields = [
        ("stratum", "d=a".to_string()),
        ("cluster", "narval".to_string()),
        ("cpu_model", "EPYC".to_string()),
    ];
    for (name, v) in fields.iter_mut() {
        if *name == column {
            *v = value.to_string();
        }
    }
    let quoted = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut csv = format!("{header}\nr1,d=a,1,1.0,narval,EPYC\nr1,d=a,2,2.0,narval,EPYC\n");
    csv.push_str(&format!(
        "r2,{},1,1.0,{},{}\n",
        quoted(&fields[0].1),
        quoted(&fields[1].1),
        quoted(&fields[2].1)
    ));
    csv.push_str("r1,d=a,3,3.0,narval,EPYC\n");
    let path = dir.join(format!("{column}.csv"));
    std::fs::write(&path, csv).unwrap();
    path
}

#[test]
fn budget_refuses_timings_rows_with_a_newline_in_a_label_or_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    for (column, value, named) in [
        ("stratum", "d=x\ntouch /tmp/calib-pwned", "stratum"),
        ("cluster", "narval\ntouch /tmp/calib-pwned", "`cluster`"),
        ("cpu_model", "EPYC\n#SBATCH --wrap=id", "`cpu_model`"),
    ] {
        let file = timings_with(dir.path(), column, value);
        let out = calib()
            .args(["budget", "--units", "10", "--format", "sbatch"])
            .args(["--partitions", "cpu* 1:00:00"])
            .arg(&file)
            .output()
            .unwrap();
        let file_name = file.display().to_string();
        assert_refused(&out, &[named, &file_name, "line 4"]);
    }
}

#[test]
fn budget_refuses_text_flags_with_a_newline() {
    let dir = tempfile::tempdir().unwrap();
    let file = timings_with(dir.path(), "none", "");
    for flag in ["--unit-name", "--script", "--cluster", "--cpu-model"] {
        let out = calib()
            .args(["budget", "--units", "10", "--format", "sbatch"])
            .args(["--partitions", "cpu* 1:00:00"])
            .arg(flag)
            .arg("x\ntouch /tmp/calib-pwned")
            .arg(&file)
            .output()
            .unwrap();
        assert_refused(&out, &[flag]);
    }
}

#[test]
fn a_grid_file_with_a_control_character_in_a_stratum_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = timings_with(dir.path(), "none", "");
    let grid = dir.path().join("grid.csv");
    std::fs::write(&grid, "stratum,units\n\"d=a\nx=1\",10\n").unwrap();
    let out = calib()
        .args(["budget", "--format", "sbatch", "--grid"])
        .arg(&grid)
        .args(["--partitions", "cpu* 1:00:00"])
        .arg(&file)
        .output()
        .unwrap();
    let grid_name = grid.display().to_string();
    assert_refused(&out, &[&grid_name]);
}
