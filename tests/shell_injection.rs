//! No value can become code in the scripts `calib budget --format sbatch` writes.
//!
//! Output side: hostile values (newlines, command substitutions, quotes, a
//! `#SBATCH` directive, carriage returns, terminal escapes, a very long one, a
//! leading `-`) are put straight into a budget, past every input check, in
//! every field the sbatch exporter shows: stratum, cluster, CPU model, model
//! name, dates, notes, partition, unit name and script. In both forms of the
//! output:
//!
//! * the command lines: the text is checked by `bash -n`, and run by a real
//!   `bash` with a stub `sbatch` on PATH that records its arguments: no
//!   payload may run, and the stub must receive exactly the intended
//!   arguments, the stratum included, byte for byte;
//! * the job scripts of `--script-dir` (in a folder whose name is hostile
//!   too): each file passes `bash -n`, its `#SBATCH` directives are exactly
//!   the intended options as sbatch's grammar reads them, the printed lines
//!   hand sbatch exactly the file's path, and the file run as the job runs
//!   it passes the environment and its arguments to the user's script (whose
//!   path is hostile as well) byte for byte.
//!
//! The same holds for the lines `calib resume --format sbatch` prints, and
//! for stage 2 as `calib stage` keeps it and `calib stage check` prints it:
//! a line that is not an sbatch command is refused, and shell code inside an
//! sbatch line's words reaches sbatch as text.
//!
//! Input side: the built binary refuses a control character in each way a
//! label or name comes in, with exit status 2 and a message naming where.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use calib::budget::export::{job_name, job_scripts, ExportContext, Format};
use calib::budget::{self, Budget, BudgetOptions, Status, Target};
use calib::slurm::partitions::parse_partitions;
use calib::slurm::time::format_sbatch_time;
use calib::synth;
use common::{calib, fit_csv, stderr, stdout};

/// The emitted scripts are checked with a real bash: without one the tests
/// fail, never pass unchecked.
fn require_bash() {
    let found = Command::new("bash")
        .args(["-c", "exit 0"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "these tests run the emitted shell with bash: install bash"
    );
}

/// Asserts that `file` (holding `text`) parses as bash (`bash -n`).
fn assert_bash_parses(file: &Path, text: &str, case: &str) {
    let syntax = Command::new("bash").arg("-n").arg(file).output().unwrap();
    assert!(
        syntax.status.success(),
        "{case}: bash -n: {}\n{text}",
        stderr(&syntax)
    );
}

/// Case `i`'s submission as a user runs it: the printed text saved as a
/// script, run by bash in an empty folder, with a stub `sbatch` that logs its
/// arguments into a folder of the case's own.
struct Submission {
    file: PathBuf,
    work: PathBuf,
    log: PathBuf,
}

impl Submission {
    fn new(dir: &Path, i: usize, bin: &Path, text: &str) -> Submission {
        let work = dir.join(format!("work{i}"));
        let log = dir.join(format!("log{i}"));
        std::fs::create_dir_all(&work).unwrap();
        stub_sbatch(bin, &log);
        let file = dir.join(format!("submit{i}.sh"));
        std::fs::write(&file, text).unwrap();
        Submission { file, work, log }
    }

    /// bash running `script` in the empty folder, with `path` and no stdin.
    fn run(&self, script: &Path, path: &str) -> Command {
        let mut command = Command::new("bash");
        command
            .arg(script)
            .current_dir(&self.work)
            .env("PATH", path)
            .stdin(Stdio::null());
        command
    }
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
        calibration: calib::calibrate::Table::shipped().unwrap(),
    };
    budget::plan(&report.model, &list.select(None).unwrap(), &options).unwrap()
}

/// `hostile` in every text field of the budget, as a model file edited by
/// hand or a library caller could put it; a second, over-cap stratum has it
/// too, so that the commented-out lines are exercised.
fn poisoned(mut budget: Budget, hostile: &str, comment_only: &str) -> Budget {
    budget.partitions = comment_only.to_string();
    budget.notes.push(calib::note::Note::PartitionList {
        text: comment_only.to_string(),
    });
    let s = &mut budget.strata[0];
    s.stratum = hostile.to_string();
    s.notes.push(calib::note::Note::Estimate {
        what: comment_only.to_string(),
    });
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
    require_bash();
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
            script_dir: None,
            time_min: true,
            unit_name: comment_only.clone(),
            created_at: comment_only.clone(),
            name_partition: true,
            grid: None,
            explain: true,
        };
        let mut bytes = Vec::new();
        Format::Sbatch
            .exporter()
            .export(&budget, &context, &mut bytes)
            .unwrap();
        let script = String::from_utf8(bytes).unwrap();
        let case = format!("case {i} {hostile:?}");

        let submission = Submission::new(dir.path(), i, &bin, &script);
        assert_bash_parses(&submission.file, &script, &case);
        let ran = submission.run(&submission.file, &path).output().unwrap();
        assert!(ran.status.success(), "{case}: {}\n{script}", stderr(&ran));
        assert!(!sentinel.exists(), "{case}: the payload ran\n{script}");
        assert_eq!(
            std::fs::read_dir(&submission.work).unwrap().count(),
            0,
            "{case}: the script left files behind"
        );

        // One submission (the over-cap stratum is commented out), with
        // exactly the arguments calib meant.
        let s = &budget.strata[0];
        let script_arg = if hostile.starts_with('-') {
            format!("./{hostile}")
        } else {
            hostile.clone()
        };
        let mut expected = intended_options(s, hostile);
        expected.push(format!(
            "--export=ALL,CALIB_STRATUM={},CALIB_UNITS=100",
            hostile.replace(',', ";")
        ));
        expected.push(script_arg);
        assert_eq!(calls(&submission.log), vec![expected], "{case}\n{script}");
    }
}

/// The options calib means for the submittable stratum `s` of a poisoned
/// budget (3 tasks, `--time-min` on, the partition named), in its order.
fn intended_options(s: &calib::budget::StratumBudget, hostile: &str) -> Vec<String> {
    vec![
        "--array=0-2".to_string(),
        format!("--time={}", s.time()),
        format!("--partition={hostile}"),
        format!("--time-min={}", format_sbatch_time(s.projection.floor_s)),
        format!("--job-name={}", job_name(hostile)),
        format!("--comment=calib stratum={hostile}"),
    ]
}

/// The arguments sbatch reads from one `#SBATCH` line, by its grammar: words
/// end at unquoted whitespace, `'` and `"` quote, a backslash escapes the next
/// character even inside quotes, and an unquoted `#` ends the arguments (as
/// sbatch 22.05 reads a script: `sbatch -vv --test-only FILE` lists the
/// options it read).
fn sbatch_directive_args(line: &str) -> Vec<String> {
    let rest = line.strip_prefix("#SBATCH").expect("a directive");
    let mut args = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            chars.next();
        }
        let Some(&first) = chars.peek() else { break };
        if first == '#' {
            break;
        }
        let mut word = String::new();
        let mut quote: Option<char> = None;
        while let Some(&c) = chars.peek() {
            if quote.is_none() && (c.is_ascii_whitespace() || c == '#') {
                break;
            }
            chars.next();
            match (c, quote) {
                ('\\', _) => word.extend(chars.next()),
                (c, Some(q)) if c == q => quote = None,
                ('\'' | '"', None) => quote = Some(c),
                (c, _) => word.push(c),
            }
        }
        args.push(word);
    }
    args
}

/// `value` as one file name: `/` replaced, cut to 200 bytes (file systems
/// hold 255), never empty.
fn file_name_of(value: &str) -> String {
    let mut name = String::from("n");
    for c in value.chars().map(|c| if c == '/' { '_' } else { c }) {
        if name.len() + c.len_utf8() > 200 {
            break;
        }
        name.push(c);
    }
    name
}

/// A stand-in for the user's job script: writes CALIB_STRATUM, CALIB_UNITS
/// and its arguments, NUL-separated, to `log`.
fn stub_job(path: &Path, log: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\nfor a in \"$CALIB_STRATUM\" \"$CALIB_UNITS\" \"$@\"; do printf '%s\\0' \"$a\"; done > '{}'\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn hostile_values_in_job_scripts_never_become_code_and_reach_the_job_intact() {
    require_bash();
    let dir = tempfile::tempdir().unwrap();
    let honest = honest_budget();
    let sentinel = dir.path().join("pwned");
    let bin = dir.path().join("bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    for (i, hostile) in corpus(&sentinel).iter().enumerate() {
        let comment_only = format!("{hostile}\0nul\n touch {}", sentinel.display());
        let budget = poisoned(honest.clone(), hostile, &comment_only);
        let case = format!("case {i} {hostile:?}");
        // The folder of the scripts and the user's script both carry the value.
        let script_dir = dir
            .path()
            .join(format!("jobs{i}"))
            .join(file_name_of(hostile));
        let user_script = dir
            .path()
            .join(format!("user{i}"))
            .join(file_name_of(hostile));
        let job_log = dir.path().join(format!("job{i}.log"));
        stub_job(&user_script, &job_log);
        let context = ExportContext {
            script: user_script.to_str().unwrap().to_string(),
            script_dir: Some(script_dir.clone()),
            time_min: true,
            unit_name: comment_only.clone(),
            created_at: comment_only.clone(),
            name_partition: true,
            grid: None,
            explain: true,
        };

        // One script: the over-cap stratum gets none.
        let scripts = job_scripts(&budget, &context, &script_dir);
        assert_eq!(scripts.len(), 1, "{case}");
        let job = &scripts[0];
        assert_eq!(job.stratum, 0);
        assert_eq!(job.path.parent(), Some(script_dir.as_path()), "{case}");
        std::fs::create_dir_all(&script_dir).unwrap();
        std::fs::write(&job.path, &job.text).unwrap();

        assert_bash_parses(&job.path, &job.text, &case);
        // sbatch reads the directives of the leading comment block (up to
        // the first command; a value's newline inside a quoted word of the
        // commands after it is not read there): exactly calib's options,
        // none injected, each read by sbatch as the value calib meant (a
        // value with a control character is shown escaped instead: one line).
        let directives: Vec<&str> = job
            .text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .filter(|l| l.starts_with("#SBATCH"))
            .collect();
        let s = &budget.strata[0];
        let mut expected = intended_options(s, hostile);
        expected.push("--export=ALL".to_string());
        assert_eq!(directives.len(), expected.len(), "{case}\n{}", job.text);
        let read: Vec<String> = directives
            .iter()
            .flat_map(|l| sbatch_directive_args(l))
            .collect();
        if hostile.chars().any(char::is_control) {
            for (arg, want) in read.iter().zip(&expected) {
                let option = want.split('=').next().unwrap();
                assert!(arg.starts_with(option), "{case}: {arg}");
            }
        } else {
            assert_eq!(read, expected, "{case}\n{}", job.text);
        }

        // What calib prints: comments and the line that submits the file,
        // handed to sbatch as exactly its path.
        let mut bytes = Vec::new();
        Format::Sbatch
            .exporter()
            .export(&budget, &context, &mut bytes)
            .unwrap();
        let printed = String::from_utf8(bytes).unwrap();
        let submission = Submission::new(dir.path(), i, &bin, &printed);
        let ran = submission.run(&submission.file, &path).output().unwrap();
        assert!(ran.status.success(), "{case}: {}\n{printed}", stderr(&ran));
        assert_eq!(
            calls(&submission.log),
            vec![vec![job.path.to_str().unwrap().to_string()]],
            "{case}\n{printed}"
        );

        // The job, run as Slurm runs it (from another folder, with arguments):
        // the user's script gets the stratum's environment and the arguments.
        let ran = submission
            .run(&job.path, &path)
            .args(["a b", "it's", ""])
            .env_remove("CALIB_STRATUM")
            .env_remove("CALIB_UNITS")
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "{case}: {}\n{}",
            stderr(&ran),
            job.text
        );
        let got = String::from_utf8(std::fs::read(&job_log).unwrap()).unwrap();
        let mut got: Vec<&str> = got.split('\0').collect();
        assert_eq!(got.pop(), Some(""), "NUL-terminated");
        assert_eq!(
            got,
            [hostile.replace(',', ";").as_str(), "100", "a b", "it's", ""],
            "{case}\n{}",
            job.text
        );
        assert!(!sentinel.exists(), "{case}: the payload ran\n{}", job.text);
        assert_eq!(
            std::fs::read_dir(&submission.work).unwrap().count(),
            0,
            "{case}: the scripts left files behind"
        );
    }
}

/// Strata whose labels differ only in characters a file name cannot keep
/// share a job name; each still gets its own job script, and no other
/// stratum's file is replaced.
#[test]
fn strata_with_the_same_job_name_get_files_of_their_own() {
    let mut budget = honest_budget();
    let mut twin = budget.strata[0].clone();
    budget.strata[0].stratum = "d=a b".into();
    twin.stratum = "d=a_b".into();
    budget.strata.push(twin);
    let mut unparsed = budget.strata[0].clone();
    unparsed.stratum = "no label".into();
    budget.strata.push(unparsed.clone());
    unparsed.stratum = "another".into();
    budget.strata.push(unparsed);
    assert_eq!(job_name("d=a b"), job_name("d=a_b"));
    let context = ExportContext {
        script: "/bin/true".into(),
        script_dir: Some("jobs".into()),
        time_min: false,
        unit_name: "unit".into(),
        created_at: "now".into(),
        name_partition: false,
        grid: None,
        explain: false,
    };
    let scripts = job_scripts(&budget, &context, Path::new("jobs"));
    let names: Vec<String> = scripts
        .iter()
        .map(|j| j.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let base = job_name("d=a b");
    assert_eq!(
        names,
        [
            format!("{base}.sh"),
            format!("{base}-2.sh"),
            "calib-stratum.sh".to_string(),
            "calib-stratum-2.sh".to_string()
        ]
    );
    for (k, j) in scripts.iter().enumerate() {
        assert_eq!(j.stratum, k);
        let stratum = &budget.strata[k].stratum;
        assert!(
            j.text
                .contains(&format!("export CALIB_STRATUM='{stratum}'"))
                || j.text.contains(&format!("export CALIB_STRATUM={stratum}")),
            "{}",
            j.text
        );
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
    for flag in [
        "--unit-name",
        "--script",
        "--script-dir",
        "--cluster",
        "--cpu-model",
    ] {
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

/// A stand-in for calib in a job script's cell derivation: records its
/// arguments, NUL-separated, to `log`, and prints one assignment to eval.
fn stub_calib(path: &Path, log: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > '{}'\necho \"export seed='4 2'\"\n",
            log.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// With a campaign grid, the job scripts derive each task's cell by running
/// calib on the grid file: both paths come from the user's disk. Hostile
/// paths still give scripts that parse, run exactly that calib with exactly
/// that grid path, the stratum and the index, and pass the cell on; the
/// command lines hand sbatch the grid's path intact in `--export`.
#[test]
fn hostile_grid_and_calib_paths_reach_the_cell_derivation_intact() {
    use calib::budget::export::GridDerivation;
    require_bash();
    let dir = tempfile::tempdir().unwrap();
    let honest = honest_budget();
    let sentinel = dir.path().join("pwned");
    let bin = dir.path().join("bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    for (i, hostile) in corpus(&sentinel).iter().enumerate() {
        let case = format!("case {i} {hostile:?}");
        let fake_calib = dir
            .path()
            .join(format!("calib{i}"))
            .join(file_name_of(hostile));
        let calib_log = dir.path().join(format!("calib{i}.log"));
        stub_calib(&fake_calib, &calib_log);
        let user_script = dir.path().join(format!("user{i}.sh"));
        let job_log = dir.path().join(format!("job{i}.log"));
        std::fs::write(
            &user_script,
            format!(
                "#!/bin/sh\nprintf '%s\\0' \"$CALIB_GRID\" \"$seed\" > '{}'\n",
                job_log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&user_script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let grid_path = format!("/grids/{}/g.toml", file_name_of(hostile));
        let script_dir = dir.path().join(format!("jobs{i}"));
        let mut context = ExportContext {
            script: user_script.to_str().unwrap().to_string(),
            script_dir: Some(script_dir.clone()),
            time_min: false,
            unit_name: "unit".into(),
            created_at: "now".into(),
            name_partition: true,
            grid: Some(GridDerivation {
                calib: fake_calib.to_str().unwrap().to_string(),
                grid: grid_path.clone(),
            }),
            explain: false,
        };
        let scripts = job_scripts(&honest, &context, &script_dir);
        let job = &scripts[0];
        std::fs::create_dir_all(&script_dir).unwrap();
        std::fs::write(&job.path, &job.text).unwrap();
        assert_bash_parses(&job.path, &job.text, &case);
        let submission = Submission::new(dir.path(), i, &bin, "");
        let ran = submission
            .run(&job.path, &path)
            .env("SLURM_ARRAY_TASK_ID", "7")
            .env_remove("CALIB_GRID")
            .output()
            .unwrap();
        assert!(
            ran.status.success(),
            "{case}: {}\n{}",
            stderr(&ran),
            job.text
        );
        let split = |p: &Path| {
            let text = String::from_utf8(std::fs::read(p).unwrap()).unwrap();
            let mut words: Vec<String> = text.split('\0').map(String::from).collect();
            assert_eq!(words.pop().as_deref(), Some(""), "NUL-terminated");
            words
        };
        assert_eq!(
            split(&calib_log),
            [
                "grid",
                "cell",
                &grid_path,
                "--stratum",
                "bench=sim",
                "--index",
                "7"
            ],
            "{case}\n{}",
            job.text
        );
        assert_eq!(split(&job_log), [grid_path.as_str(), "4 2"], "{case}");

        // The command lines: sbatch gets the grid path intact in --export.
        context.script_dir = None;
        let mut bytes = Vec::new();
        Format::Sbatch
            .exporter()
            .export(&honest, &context, &mut bytes)
            .unwrap();
        let printed = String::from_utf8(bytes).unwrap();
        let lines = Submission::new(dir.path(), 1000 + i, &bin, &printed);
        let ran = lines.run(&lines.file, &path).output().unwrap();
        assert!(ran.status.success(), "{case}: {}\n{printed}", stderr(&ran));
        let call = calls(&lines.log).pop().unwrap();
        let export = call.iter().find(|a| a.starts_with("--export=")).unwrap();
        assert!(
            export.ends_with(&format!(",CALIB_GRID={grid_path}")),
            "{case}: {export}"
        );
        assert!(!sentinel.exists(), "{case}: the payload ran");
    }
}

/// A `calib resume` plan of the honest stratum's tasks 1 and 3 of array 77,
/// killed at unit 40 of 100, under the same partitions.
fn honest_resume() -> calib::resume::ResumePlan {
    use calib::resume::{self, ResumeOptions, Selected, TimedOutTask};
    use calib::stratum::Stratum;
    use calib::timings::{Fingerprint, RunEnd, RunTimings};
    let model = fit_csv(&{
        let mut csv = synth::HEADER.to_string();
        for k in 0..3u64 {
            let spec = synth::RunSpec {
                run: format!("r{k}"),
                stratum: "bench=sim".into(),
                units: 30,
                startup_s: 0.5,
                cost: synth::Cost::Constant { a: 40.0 },
                level: 1.0 + 0.01 * k as f64,
                noise_cv: 0.02,
                cluster: "clusterA".into(),
                cpu_model: "Intel Xeon Gold 6148".into(),
            };
            synth::write_unit_rows(&mut csv, &spec, &mut synth::Rng::new(7 + k));
        }
        csv
    })
    .model;
    let list = parse_partitions(
        "cpu_b1* 3:00:00\ncpu_b2 12:00:00\n",
        &calib::error::Origin::Argument("test".into()),
    )
    .unwrap();
    let tasks = [1u64, 3]
        .iter()
        .map(|&index| {
            let job_id = format!("77_{index}");
            TimedOutTask {
                job_id: Some(job_id.clone()),
                array: Some((77, index)),
                timings: RunTimings {
                    run: format!("run-{index}"),
                    stratum: Stratum::parse("bench=sim").unwrap(),
                    points: (1..=40).map(|i| (i, 0.5 + 40.0 * i as f64)).collect(),
                    end: Some((RunEnd::Signal("TERM".into()), 40, 1601.0)),
                    fingerprint: Fingerprint {
                        job_id: Some(job_id),
                        ..Fingerprint::default()
                    },
                },
            }
        })
        .collect();
    resume::plan(
        &model,
        &list.select(None).unwrap(),
        Selected {
            tasks,
            ..Selected::default()
        },
        &ResumeOptions {
            units: 100,
            confidence: 0.99,
            checkpoint: true,
            calibration: calib::calibrate::Table::shipped().unwrap(),
        },
    )
    .unwrap()
}

#[test]
fn hostile_values_in_resume_lines_never_become_code_and_reach_sbatch_intact() {
    use calib::resume::export::{ExportContext, Format};
    use calib::resume::Skipped;
    require_bash();
    let dir = tempfile::tempdir().unwrap();
    let honest = honest_resume();
    assert_eq!(honest.strata.len(), 1);
    assert!(honest.strata[0].submittable(), "{:?}", honest.strata[0]);
    let sentinel = dir.path().join("pwned");
    let bin = dir.path().join("bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    for (i, hostile) in corpus(&sentinel).iter().enumerate() {
        let comment_only = format!("{hostile}\0nul\n touch {}", sentinel.display());
        let mut plan = honest.clone();
        plan.partitions = comment_only.clone();
        plan.notes.push(calib::note::Note::PartitionList {
            text: comment_only.clone(),
        });
        plan.skipped.push(Skipped {
            task: comment_only.clone(),
            reason: comment_only.clone(),
        });
        let s = &mut plan.strata[0];
        s.stratum = hostile.to_string();
        s.decision.partition = Some(hostile.to_string());
        s.notes.push(calib::note::Note::Estimate {
            what: comment_only.clone(),
        });
        // An over-cap copy: its line is shown commented out, never run.
        let mut over = s.clone();
        over.decision.status = Status::OverCap;
        over.decision.segments = Some(3);
        plan.strata.push(over);
        // A hostile grid path too: --grid exports it as CALIB_GRID.
        let grid_path = format!("/grids/{}/g.toml", file_name_of(hostile));
        let context = ExportContext {
            script: hostile.clone(),
            job_scripts: None,
            grid: Some(calib::budget::export::GridDerivation {
                calib: "calib".into(),
                grid: grid_path.clone(),
            }),
            name_partition: true,
            created_at: comment_only.clone(),
            explain: true,
        };
        let mut bytes = Vec::new();
        Format::Sbatch
            .exporter()
            .export(&plan, &context, &mut bytes)
            .unwrap();
        let script = String::from_utf8(bytes).unwrap();
        let case = format!("case {i} {hostile:?}");

        let submission = Submission::new(dir.path(), 1000 + i, &bin, &script);
        assert_bash_parses(&submission.file, &script, &case);
        let ran = submission.run(&submission.file, &path).output().unwrap();
        assert!(ran.status.success(), "{case}: {}\n{script}", stderr(&ran));
        assert!(!sentinel.exists(), "{case}: the payload ran\n{script}");
        assert_eq!(
            std::fs::read_dir(&submission.work).unwrap().count(),
            0,
            "{case}: the script left files behind"
        );
        let s = &plan.strata[0];
        let script_arg = if hostile.starts_with('-') {
            format!("./{hostile}")
        } else {
            hostile.clone()
        };
        let expected = vec![
            // Exactly the killed tasks, 1 and 3.
            "--array=1,3".to_string(),
            format!("--time={}", s.time()),
            format!("--partition={hostile}"),
            format!("--job-name={}", job_name(hostile)),
            format!("--comment=calib stratum={hostile}"),
            format!(
                "--export=ALL,CALIB_STRATUM={},CALIB_UNITS=100,CALIB_GRID={grid_path}",
                hostile.replace(',', ";")
            ),
            script_arg,
        ];
        assert_eq!(calls(&submission.log), vec![expected], "{case}\n{script}");
    }
}

/// Stage 2 as the trigger keeps it, which `calib stage check` prints for the
/// user to run: lines that are not one sbatch command are refused (exit 2),
/// and shell code inside a word of an sbatch line (`$(...)`, backticks, `;`,
/// `|`, `&`, `>`, double quotes) reaches sbatch as text, run by bash.
#[test]
fn hostile_stage_two_lines_are_refused_or_reach_sbatch_as_text() {
    use calib::campaign::stage::Trigger;
    require_bash();
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let sentinel = here.join("pwned");
    let p = sentinel.display().to_string();
    let bin = here.join("bin");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    std::fs::write(
        here.join("grid.toml"),
        "stratum = [\"d\"]\noutput = \"out/{tag}.jsonl\"\n[axes]\nd = [\"a\", \"b\"]\nseed = [1, 2]\n",
    )
    .unwrap();
    let grid = std::fs::canonicalize(here.join("grid.toml")).unwrap();
    let sbatch = |middle: &str| {
        format!(
            "sbatch --array=0-1 {middle} --export=ALL,CALIB_STRATUM=d=a,CALIB_GRID={} work.sh",
            grid.display()
        )
    };
    let stage = |i: usize, line: &str| {
        std::fs::write(
            here.join(format!("stage2-{i}.sh")),
            format!("# budget\n{line}\n"),
        )
        .unwrap();
        calib()
            .args(["stage", "grid.toml", "--script", "work.sh"])
            .arg("--stage2")
            .arg(format!("@stage2-{i}.sh"))
            .arg("--out-dir")
            .arg(format!("stage{i}"))
            .current_dir(here)
            .output()
            .unwrap()
    };
    let refused = [
        format!("touch {p}; {}", sbatch("")),
        format!("touch {p}"),
        format!("{}; touch {p}", sbatch("")),
        format!("{} && touch {p}", sbatch("")),
    ];
    for (i, line) in refused.iter().enumerate() {
        let out = stage(i, line);
        assert_eq!(out.status.code(), Some(2), "{line}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("stage2-{i}.sh, line 2:")),
            "{line}: {}",
            stderr(&out)
        );
    }
    // A value with an unquoted space is two words, and sbatch would run the
    // second as the script: refused, naming it.
    for (k, middle) in [
        format!("--job-name=$(touch {p})"),
        format!("--job-name=`touch {p}`"),
    ]
    .iter()
    .enumerate()
    {
        let i = 50 + k;
        let line = sbatch(middle);
        let out = stage(i, &line);
        assert_eq!(out.status.code(), Some(2), "{line}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("stage2-{i}.sh, line 2:"))
                && stderr(&out).contains("as the script"),
            "{line}: {}",
            stderr(&out)
        );
        assert!(!sentinel.exists());
    }
    let in_words = [
        format!("--comment=x;touch${{IFS}}{p}"),
        format!("--comment=x|touch${{IFS}}{p}"),
        format!("--comment=x&touch${{IFS}}{p}"),
        format!("--comment=x>{p}"),
        format!("\"--comment=$(touch {p})\""),
    ];
    for (k, middle) in in_words.iter().enumerate() {
        let i = 100 + k;
        let line = sbatch(middle);
        let out = stage(i, &line);
        assert_eq!(out.status.code(), Some(0), "{line}: {}", stderr(&out));
        let trigger = Trigger::load(&here.join(format!("stage{i}/stage2-trigger.toml"))).unwrap();
        let submission = Submission::new(here, i, &bin, &trigger.stage2);
        assert_bash_parses(&submission.file, &trigger.stage2, &line);
        let ran = submission.run(&submission.file, &path).output().unwrap();
        assert!(ran.status.success(), "{line}: {}", stderr(&ran));
        assert!(
            !sentinel.exists(),
            "{line}: the payload ran\n{}",
            trigger.stage2
        );
        let words = shlex::split(&line).unwrap();
        assert_eq!(calls(&submission.log), [words[1..].to_vec()], "{line}");
    }
}
