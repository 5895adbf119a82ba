//! `calib stage` and `calib stage check`, through the built binary, with
//! pasted sacct text and files laid out as the smoke tasks would leave them:
//!
//! * `calib stage` writes the smoke submission (two tasks of one stratum at a
//!   few units, the same script and grid as stage 2) and the trigger, before
//!   anything runs, and never over an existing file;
//! * `calib stage check` passes only when every smoke task COMPLETED, each
//!   output exists, is its own file with the expected records, and each log
//!   holds its derived config line; then, and only then, it prints stage 2,
//!   calling stage 1 "the pipeline works", never a result;
//! * a collision (two tasks writing one path: one file, two records) fails
//!   with the seed's interpretation, and stage 2 is held back (exit 3);
//! * an output file older than the trigger (an earlier run's) fails the
//!   check, and `calib stage` refuses a smoke whose output paths exist;
//! * a submission made from another grid (told by the CALIB_GRID it
//!   exports, compared as files), one running another script, one of job
//!   scripts (`--script-dir`), a one-cell stratum, and a malformed trigger
//!   are refused (exit 2).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{calib, example_folder, run_help_examples, stderr, stdout, write_file};

const GRID: &str = "stratum = [\"dataset\"]\noutput = \"results/{dataset}/seed-{seed}.jsonl\"\n\
units = 20\n[axes]\ndataset = [\"X\", \"Y\"]\nseed = [1, 2, 3]\n";

/// A campaign folder: the grid, a stage-2 submission made from it, and the
/// staged files; returns the folder and the trigger's path.
fn staged(extra: &[&str]) -> (tempfile::TempDir, PathBuf, Output) {
    staged_from(
        "# calib budget\n\
         sbatch --array=0-2 --time=1:00:00 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID=@GRID@ work.sh\n\
         sbatch --array=0-2 --time=2:00:00 --export=ALL,CALIB_STRATUM=dataset=Y,CALIB_UNITS=20,CALIB_GRID=@GRID@ work.sh\n",
        extra,
    )
}

/// [`staged`] from the stage-2 lines `stage2`, where `@GRID@` stands for the
/// grid's canonical path.
fn staged_from(stage2: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf, Output) {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let grid = write_file(here, "grid.toml", GRID);
    let grid_abs = std::fs::canonicalize(&grid).unwrap();
    write_file(
        here,
        "stage2.sh",
        stage2.replace("@GRID@", &grid_abs.to_string_lossy()),
    );
    let out = calib()
        .args([
            "stage",
            "grid.toml",
            "--script",
            "work.sh",
            "--stage2",
            "@stage2.sh",
            "--out-dir",
            "stage",
        ])
        .args(extra)
        .current_dir(here)
        .output()
        .unwrap();
    let trigger = here.join("stage/stage2-trigger.toml");
    (dir, trigger, out)
}

/// Lays out what smoke job `job`'s two tasks left: `records[k]` lines in
/// task k's output (none: no file), and the config line in each log unless
/// `log_lines` is false.
fn smoke_left(here: &Path, job: u64, records: [usize; 2], log_lines: bool) {
    for (k, seed) in [1, 2].iter().enumerate() {
        let dir = here.join("results/X");
        std::fs::create_dir_all(&dir).unwrap();
        if records[k] > 0 {
            let line = format!("{{\"seed\": {seed}}}\n");
            std::fs::write(
                dir.join(format!("seed-{seed}.jsonl")),
                line.repeat(records[k]),
            )
            .unwrap();
        }
        let log = if log_lines {
            format!(
                "calib: grid cell: stratum dataset=X index {k} -> tag dataset-X_seed-{seed} output results/X/seed-{seed}.jsonl (dataset=X seed={seed})\nrunning\n"
            )
        } else {
            "running\n".to_string()
        };
        std::fs::write(here.join(format!("stage/logs/smoke-{job}_{k}.out")), log).unwrap();
    }
}

fn sacct(job: u64, states: [&str; 2]) -> String {
    format!(
        "JobID|JobName|State|ExitCode\n{job}_0|calib-smoke-dataset-X|{}|0:0\n{job}_1|calib-smoke-dataset-X|{}|0:0\n",
        states[0], states[1]
    )
}

fn check(here: &Path, sacct_text: &str) -> Output {
    calib()
        .args([
            "stage",
            "check",
            "stage/stage2-trigger.toml",
            "--sacct",
            sacct_text,
        ])
        .current_dir(here)
        .output()
        .unwrap()
}

#[test]
fn stage_writes_a_two_task_smoke_and_the_trigger_first() {
    let (dir, trigger, out) = staged(&["--field", "seed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let smoke = std::fs::read_to_string(dir.path().join("stage/stage1-smoke.sh")).unwrap();
    let line = smoke.lines().last().unwrap();
    let words = shlex::split(line).unwrap();
    assert_eq!(words[..3], ["sbatch", "--array=0-1", "--time=10"], "{line}");
    assert!(words.contains(&"--job-name=calib-smoke-dataset-X".to_string()));
    let grid = std::fs::canonicalize(dir.path().join("grid.toml")).unwrap();
    assert!(words.contains(&format!(
        "--export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=3,CALIB_GRID={}",
        grid.display()
    )));
    // The same script as stage 2, by its absolute path.
    let script = std::path::absolute(dir.path().join("work.sh")).unwrap();
    assert_eq!(words.last().unwrap(), &script.to_string_lossy());
    assert!(smoke.contains("not a result"), "{smoke}");
    let text = std::fs::read_to_string(&trigger).unwrap();
    for check in [
        "completed",
        "outputs_exist",
        "outputs_distinct",
        "records",
        "log_line",
    ] {
        assert!(text.contains(&format!("name = \"{check}\"")), "{text}");
    }
    assert!(text.contains("If only one file exists, the identifier is not reaching the code"));
    assert!(dir.path().join("stage/logs").is_dir());

    // Never over an existing file: a second run changes nothing.
    let before = std::fs::read(&trigger).unwrap();
    let again = calib()
        .args([
            "stage",
            "grid.toml",
            "--script",
            "work.sh",
            "--stage2",
            "@stage2.sh",
            "--out-dir",
            "stage",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read(&trigger).unwrap(), before);
}

#[test]
fn check_passes_and_prints_stage_two_only_when_everything_holds() {
    let (dir, _, out) = staged(&["--field", "seed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let here = dir.path();
    smoke_left(here, 77, [1, 1], true);
    let ok = check(here, &sacct(77, ["COMPLETED", "COMPLETED"]));
    assert_eq!(ok.status.code(), Some(0), "{}{}", stdout(&ok), stderr(&ok));
    let text = stdout(&ok);
    assert_eq!(text.matches(" pass ").count(), 5, "{text}");
    assert!(text.contains("the pipeline works"), "{text}");
    let stage2 = std::fs::read_to_string(here.join("stage2.sh")).unwrap();
    assert!(text.ends_with(&stage2), "{text}");
    // The smoke wrote two of stage 2's own output paths: named, with the
    // reason to move them.
    let trigger =
        std::fs::read_to_string(here.join("stage/stage2-trigger.toml")).unwrap_or_default();
    let named = text
        .lines()
        .find(|l| l.starts_with("The smoke's outputs are stage 2's paths"))
        .unwrap_or_else(|| panic!("no word of the smoke's outputs in {text}"));
    let outputs: Vec<&str> = trigger
        .lines()
        .filter_map(|l| l.trim().strip_prefix("output = \""))
        .map(|v| v.trim_end_matches('"'))
        .collect();
    assert_eq!(outputs.len(), 2, "{trigger}");
    for path in outputs {
        assert!(named.contains(path), "{path} not in {named}");
    }
    // Stage 1 is a check, never a finding.
    assert!(!text.to_lowercase().contains("suggest"), "{text}");
}

#[test]
fn bytes_that_are_not_utf8_in_a_log_or_a_record_are_not_an_unreadable_file() {
    // A program's output often holds a byte that is not UTF-8 (a progress
    // bar's, a Latin-1 name): the config line and the records around it are
    // still there, and the check passes on them.
    let (dir, _, out) = staged(&["--field", "seed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let here = dir.path();
    smoke_left(here, 83, [1, 1], true);
    let log = here.join("stage/logs/smoke-83_0.out");
    let mut bytes = b"loading caf\xe9 \xff\xfe\n".to_vec();
    bytes.extend(std::fs::read(&log).unwrap());
    std::fs::write(&log, bytes).unwrap();
    std::fs::write(
        here.join("results/X/seed-2.jsonl"),
        b"{\"seed\": 2, \"name\": \"caf\xe9\"}\n",
    )
    .unwrap();
    let ok = check(here, &sacct(83, ["COMPLETED", "COMPLETED"]));
    let text = stdout(&ok);
    assert_eq!(ok.status.code(), Some(0), "{text}{}", stderr(&ok));
    assert_eq!(text.matches(" pass ").count(), 5, "{text}");
    assert!(!text.contains("UNREADABLE"), "{text}");
    assert!(!text.contains("no readable file"), "{text}");
}

/// A smoke's log or output is read under a bound (256 MiB), not whole
/// whatever its size: past it the check fails as unreadable, saying why. A
/// file the size of a disk was read into memory whole (a FIFO, or a device
/// such as /dev/zero named by the trigger, until memory ran out).
#[test]
fn a_smoke_file_past_its_bound_is_unreadable_saying_why() {
    let (dir, _, out) = staged(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let here = dir.path();
    smoke_left(here, 84, [1, 1], true);
    // The config line is there, then a hole of zeros (no disk space used).
    let log = std::fs::OpenOptions::new()
        .append(true)
        .open(here.join("stage/logs/smoke-84_1.out"))
        .unwrap();
    log.set_len(300 << 20).unwrap();
    let out = check(here, &sacct(84, ["COMPLETED", "COMPLETED"]));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(3), "{text}{}", stderr(&out));
    let line = text
        .lines()
        .find(|l| l.contains("UNREADABLE"))
        .unwrap_or("");
    assert!(line.contains("smoke-84_1.out"), "{text}");
    assert!(line.contains("more than 256 MiB"), "{text}");
}

#[test]
fn two_tasks_writing_one_path_fail_with_the_seed_s_interpretation() {
    let (dir, _, _) = staged(&[]);
    let here = dir.path();
    // The script hand-wrote its path: both tasks appended to cell 0's file.
    smoke_left(here, 78, [2, 0], true);
    let out = check(here, &sacct(78, ["COMPLETED", "COMPLETED"]));
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
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
        !text.contains("sbatch --array=0-2"),
        "stage 2 printed: {text}"
    );
    assert!(!text.contains("the pipeline works"), "{text}");
}

#[test]
fn a_failed_task_or_a_log_without_the_config_line_fails() {
    let (dir, _, _) = staged(&[]);
    let here = dir.path();
    smoke_left(here, 79, [1, 1], true);
    let failed = check(here, &sacct(79, ["COMPLETED", "FAILED"]));
    assert_eq!(failed.status.code(), Some(3));
    assert!(
        stdout(&failed).contains("completed         FAIL"),
        "{}",
        stdout(&failed)
    );

    smoke_left(here, 80, [1, 1], false);
    let no_line = check(here, &sacct(80, ["COMPLETED", "COMPLETED"]));
    assert_eq!(no_line.status.code(), Some(3));
    let text = stdout(&no_line);
    assert!(text.contains("log_line          FAIL"), "{text}");
    assert!(
        text.contains("does not derive its cell with calib grid cell"),
        "{text}"
    );

    // A task still running is not a failure yet: the check waits for it.
    let running = check(here, &sacct(80, ["COMPLETED", "RUNNING"]));
    assert_eq!(running.status.code(), Some(2), "{}", stdout(&running));
    assert!(
        stderr(&running).contains("80_1 is RUNNING"),
        "{}",
        stderr(&running)
    );

    // The latest smoke array is the one checked: 80 over 79.
    assert!(text.contains("job 80:"), "{text}");
    let both = format!(
        "{}{}",
        sacct(79, ["FAILED", "FAILED"]),
        &sacct(81, ["COMPLETED", "COMPLETED"])[28..]
    );
    smoke_left(here, 81, [1, 1], true);
    let latest = check(here, &both);
    assert_eq!(latest.status.code(), Some(0), "{}", stdout(&latest));
}

#[test]
fn stage_refuses_another_grid_s_submission_and_a_one_cell_stratum() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    write_file(here, "grid.toml", GRID);
    write_file(here, "stage2.sh", "sbatch --array=0-2 work.sh\n");
    let other = calib()
        .args([
            "stage",
            "grid.toml",
            "--script",
            "w.sh",
            "--stage2",
            "@stage2.sh",
            "--out-dir",
            "s",
        ])
        .current_dir(here)
        .output()
        .unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert!(
        stderr(&other).contains("stage2.sh, line 1:"),
        "{}",
        stderr(&other)
    );
    assert!(
        !here.join("s").exists(),
        "nothing is written before the checks"
    );

    write_file(
        here,
        "one.toml",
        "stratum = [\"d\"]\noutput = \"{tag}\"\n[axes]\nd = [\"a\"]\n",
    );
    let grid = std::fs::canonicalize(here.join("one.toml")).unwrap();
    write_file(
        here,
        "s2.sh",
        format!(
            "sbatch --array=0 --export=ALL,CALIB_STRATUM=d=a,CALIB_GRID={} w.sh\n",
            grid.display()
        ),
    );
    let one = calib()
        .args([
            "stage",
            "one.toml",
            "--script",
            "w.sh",
            "--stage2",
            "@s2.sh",
            "--out-dir",
            "s",
        ])
        .current_dir(here)
        .output()
        .unwrap();
    assert_eq!(one.status.code(), Some(2));
    assert!(
        stderr(&one).contains("cannot test that tags"),
        "{}",
        stderr(&one)
    );
}

#[test]
fn a_malformed_trigger_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let trigger = write_file(dir.path(), "t.toml", "about = \"x\"\nrecords = \"one\"\n");
    let out = calib()
        .args(["stage", "check"])
        .arg(&trigger)
        .args(["--sacct", "JobID|State\n"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("t.toml, line 2:"), "{}", stderr(&out));
}

#[test]
fn the_examples_of_calib_stage_run() {
    let dir = example_folder();
    let grid = std::fs::canonicalize(dir.path().join("grid.toml")).unwrap();
    write_file(
        dir.path(),
        "stage2.sh",
        format!(
            "sbatch --array=0-2 '--export=ALL,CALIB_STRATUM=dataset=X;model=7B,CALIB_UNITS=100,CALIB_GRID={}' train.sh\n",
            grid.display()
        ),
    );
    for (line, out) in run_help_examples("stage", dir.path()) {
        assert!(stdout(&out).contains("stage2-trigger.toml"), "{line}");
    }
}

/// A stand-in for sbatch that runs an array's tasks at once, here, as Slurm
/// would: in `--chdir`, with the `--export` variables, `SLURM_ARRAY_TASK_ID`
/// set and the output in `--output` (`%A` job 4242, `%a` the task); each
/// task's exit status goes to `.states`. Prints sbatch's line.
const LOCAL_SBATCH: &str = r#"#!/bin/sh
for a in "$@"; do
  case "$a" in
    --array=*) range=${a#--array=} ;;
    --chdir=*) chdir=${a#--chdir=} ;;
    --output=*) output=${a#--output=} ;;
    --export=*) exports=${a#--export=} ;;
    --*) ;;
    *) script=$a ;;
  esac
done
cd "$chdir" || exit 1
IFS=,
for kv in $exports; do [ "$kv" = ALL ] || export "$kv"; done
unset IFS
i=${range%-*}
while [ "$i" -le "${range#*-}" ]; do
  log=$(printf '%s' "$output" | sed "s/%A/4242/; s/%a/$i/")
  SLURM_ARRAY_TASK_ID=$i sh "$script" > "$log" 2>&1
  echo "$i $?" >> .states
  i=$((i + 1))
done
echo "Submitted batch job 4242"
"#;

/// The good script and one whose hand-written path forgets the seed.
const WORK: &str = "#!/bin/sh\n\
cell=$(calib grid cell \"$CALIB_GRID\" --stratum \"$CALIB_STRATUM\" --index \"$SLURM_ARRAY_TASK_ID\") || exit 3\n\
eval \"$cell\"\necho \"units $CALIB_UNITS\"\nmkdir -p \"$(dirname \"$CALIB_OUTPUT\")\"\n\
printf '{\"seed\": %s}\\n' \"$seed\" >> \"$CALIB_OUTPUT\"\n";
const TYPO: &str = "#!/bin/sh\n\
cell=$(calib grid cell \"$CALIB_GRID\" --stratum \"$CALIB_STRATUM\" --index \"$SLURM_ARRAY_TASK_ID\") || exit 3\n\
eval \"$cell\"\nmkdir -p \"results/$dataset\"\n\
printf '{\"seed\": %s}\\n' \"$seed\" >> \"results/$dataset/seed-1.jsonl\"\n";

/// Stages, submits the smoke through the stand-in, and checks it with the
/// sacct text the task statuses give.
fn smoke_through_stand_in(script: &str) -> (tempfile::TempDir, Output) {
    use std::os::unix::fs::PermissionsExt;
    let (dir, _, out) = staged(&["--field", "seed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let here = dir.path();
    write_file(here, "work.sh", script);
    let bin = here.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(common::CALIB, bin.join("calib")).unwrap();
    let sbatch = write_file(&bin, "sbatch", LOCAL_SBATCH);
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let submitted = std::process::Command::new("sh")
        .arg("stage/stage1-smoke.sh")
        .current_dir(here)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&submitted),
        "Submitted batch job 4242\n",
        "{}",
        stderr(&submitted)
    );
    let mut sacct = String::from("JobID|JobName|State|ExitCode\n");
    for line in std::fs::read_to_string(here.join(".states"))
        .unwrap()
        .lines()
    {
        let (task, status) = line.split_once(' ').unwrap();
        let state = if status == "0" { "COMPLETED" } else { "FAILED" };
        sacct.push_str(&format!(
            "4242_{task}|calib-smoke-dataset-X|{state}|{status}:0\n"
        ));
    }
    let out = check(here, &sacct);
    (dir, out)
}

#[test]
fn the_smoke_submission_runs_the_script_and_the_check_reads_what_it_left() {
    let (dir, good) = smoke_through_stand_in(WORK);
    assert_eq!(
        good.status.code(),
        Some(0),
        "{}{}",
        stdout(&good),
        stderr(&good)
    );
    // The smoke ran at its own scale: 3 units, not stage 2's 20.
    let log = std::fs::read_to_string(dir.path().join("stage/logs/smoke-4242_1.out")).unwrap();
    assert!(log.contains("index 1 -> tag dataset-X_seed-2"), "{log}");
    assert!(log.contains("units 3\n"), "{log}");
    assert!(stdout(&good).contains("the pipeline works"));

    let (_, typo) = smoke_through_stand_in(TYPO);
    assert_eq!(typo.status.code(), Some(3), "{}", stdout(&typo));
    let text = stdout(&typo);
    assert!(text.contains("If only one file exists"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("sbatch ")), "{text}");
}

#[test]
fn an_output_older_than_the_trigger_fails_as_an_earlier_run_s() {
    let (dir, _, out) = staged(&["--field", "seed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let here = dir.path();
    smoke_left(here, 82, [1, 1], true);
    // Task 0's file as an earlier run would have left it: written an hour
    // before the trigger, with the right record and field.
    let old = here.join("results/X/seed-1.jsonl");
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    let out = check(here, &sacct(82, ["COMPLETED", "COMPLETED"]));
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("outputs_exist     FAIL"), "{text}");
    assert!(
        text.contains(&format!("{} PREDATES the trigger", old.display())),
        "{text}"
    );
    assert!(
        text.contains("the file predates this smoke: an earlier run wrote it"),
        "{text}"
    );
    assert!(!text.contains("the pipeline works"), "{text}");
}

#[test]
fn stage_refuses_a_smoke_whose_output_path_exists_already() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    // An earlier run's result at the second smoke cell's path.
    std::fs::create_dir_all(here.join("results/X")).unwrap();
    write_file(here, "results/X/seed-2.jsonl", "{\"seed\": 2}\n");
    let grid = write_file(here, "grid.toml", GRID);
    let grid = std::fs::canonicalize(grid).unwrap();
    write_file(
        here,
        "stage2.sh",
        format!(
            "sbatch --array=0-2 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID={} work.sh\n",
            grid.display()
        ),
    );
    let out = calib()
        .args(["stage", "grid.toml", "--script", "work.sh"])
        .args(["--stage2", "@stage2.sh", "--out-dir", "stage"])
        .current_dir(here)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("results/X/seed-2.jsonl already exists"),
        "{}",
        stderr(&out)
    );
    assert!(!here.join("stage").exists(), "nothing is written");
}

/// A smoke submission that cannot be written (a full disk) takes the
/// trigger written before it away again: left there, the trigger refused the
/// retry ("never overwrites a trigger ... (it may have run)") for a smoke
/// that never existed. The folders made for them go too. The full disk is a file-size limit between the two
/// files' sizes, which stops root as well; the smoke is made the larger by a
/// long --script path, which it holds and the trigger does not.
#[test]
fn a_smoke_that_cannot_be_written_takes_the_trigger_away_and_the_retry_runs() {
    let script = format!("{}work.sh", "x/../".repeat(600));
    let stage_in = |here: &Path, limit: Option<u64>| {
        std::fs::create_dir_all(here.join("x")).unwrap();
        write_file(here, "work.sh", "#!/bin/sh\n");
        let grid = std::fs::canonicalize(write_file(here, "grid.toml", GRID)).unwrap();
        write_file(
            here,
            "stage2.sh",
            format!(
                "sbatch --array=0-2 --time=1:00:00 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID={} work.sh\n",
                grid.display()
            ),
        );
        let mut command = calib();
        command
            .args(["stage", "grid.toml", "--script", &script])
            .args(["--stage2", "@stage2.sh", "--out-dir", "stage"])
            .current_dir(here);
        if let Some(bytes) = limit {
            common::limit_file_size(&mut command, bytes);
        }
        command.output().unwrap()
    };
    let size = |path: PathBuf| std::fs::metadata(path).unwrap().len();
    // The sizes of the two files, when nothing stops the writes: folders of
    // one length, so that the paths the files hold are as long.
    let measured = tempfile::tempdir().unwrap();
    let out = stage_in(measured.path(), None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let trigger = size(measured.path().join("stage/stage2-trigger.toml"));
    let smoke = size(measured.path().join("stage/stage1-smoke.sh"));
    assert!(trigger < smoke, "trigger {trigger} bytes, smoke {smoke}");

    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let out = stage_in(here, Some((trigger + smoke) / 2));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("stage1-smoke.sh"), "{}", stderr(&out));
    assert!(!here.join("stage/stage2-trigger.toml").exists());
    assert!(!here.join("stage/stage1-smoke.sh").exists());
    // Nor the folders it made for them (`stage/`, `stage/logs/`).
    assert!(!here.join("stage").exists());

    let out = stage_in(here, None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(here.join("stage/stage2-trigger.toml").exists());
    assert!(here.join("stage/stage1-smoke.sh").exists());
}

/// The smoke's stratum and the trigger's reason for it, staged from a
/// stage 2 of the lines `stage2`.
fn smoke_choice(stage2: &str) -> (String, String) {
    let (dir, trigger, out) = staged_from(stage2, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let smoke = std::fs::read_to_string(dir.path().join("stage/stage1-smoke.sh")).unwrap();
    let trigger = std::fs::read_to_string(trigger).unwrap();
    let stratum = ["X", "Y"]
        .into_iter()
        .find(|d| smoke.contains(&format!("CALIB_STRATUM=dataset={d}")))
        .unwrap_or_else(|| panic!("no stratum in {smoke}"));
    (stratum.to_string(), trigger)
}

// The seed stages on the cheapest unit: that is what makes a smoke cheap.
// Per unit, not per array: Y's 2 h for 5 units costs more per unit than X's
// 4 h for 20; at 30 min for 5 units, Y is the cheaper. Without times (a
// hand-made stage 2), the grid's first stratum with two cells.
#[test]
fn the_smoke_runs_the_cheapest_stratum_per_unit_of_stage_2() {
    let line = |dataset: &str, time: &str, units: u32| {
        format!(
            "sbatch --array=0-2 {time} --export=ALL,CALIB_STRATUM=dataset={dataset},CALIB_UNITS={units},CALIB_GRID=@GRID@ work.sh\n"
        )
    };
    let (chosen, why) =
        smoke_choice(&(line("X", "--time=4:00:00", 20) + &line("Y", "--time=2:00:00", 5)));
    assert_eq!(chosen, "X", "{why}");
    assert!(why.contains("cheapest per unit"), "{why}");
    let (chosen, why) =
        smoke_choice(&(line("X", "--time=4:00:00", 20) + &line("Y", "--time=30:00", 5)));
    assert_eq!(chosen, "Y", "{why}");
    assert!(why.contains("cheapest per unit"), "{why}");
    let (chosen, why) = smoke_choice(&(line("Y", "", 5) + &line("X", "", 20)));
    assert_eq!(chosen, "X", "{why}");
    assert!(why.contains("first stratum with two cells"), "{why}");
}

#[test]
fn a_timeout_is_read_as_too_short_a_smoke_time_not_as_a_failing_script() {
    let (dir, trigger, out) = staged(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The trigger says why this stratum was smoked: the cheaper per unit of
    // stage 2's two (1 h against 2 h for 20 units each).
    let written = std::fs::read_to_string(&trigger).unwrap();
    assert!(written.contains("stratum dataset=X ran"), "{written}");
    assert!(written.contains("cheapest per unit"), "{written}");
    let here = dir.path();
    smoke_left(here, 83, [1, 1], true);
    let out = check(here, &sacct(83, ["COMPLETED", "TIMEOUT"]));
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("task 1 TIMEOUT"), "{text}");
    assert!(text.contains("raise --smoke-time"), "{text}");
    assert!(
        !text.contains("every task of stage 2 would fail"),
        "a TIMEOUT is not a script that fails: {text}"
    );
}

/// Runs `calib stage grid.toml --script SCRIPT --stage2 @stage2.sh` in
/// `here` with `stage2` as the submission (the grid written there first).
fn stage_against(here: &Path, script: &str, stage2: &str) -> Output {
    write_file(here, "grid.toml", GRID);
    write_file(here, "stage2.sh", stage2);
    calib()
        .args(["stage", "grid.toml", "--script", script])
        .args(["--stage2", "@stage2.sh", "--out-dir", "stage"])
        .current_dir(here)
        .output()
        .unwrap()
}

#[test]
fn the_smoke_must_run_the_script_and_the_grid_stage_two_runs() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let grid = std::fs::canonicalize(write_file(here, "grid.toml", GRID)).unwrap();
    let line = |grid: &str, script: &str| {
        format!(
            "sbatch --array=0-2 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID={grid} {script}\n"
        )
    };
    let grid_text = grid.to_string_lossy().into_owned();

    // Another script than stage 2's: both named.
    let other = stage_against(here, "other.sh", &line(&grid_text, "evolve.sh"));
    assert_eq!(other.status.code(), Some(2), "{}", stdout(&other));
    let e = stderr(&other);
    assert!(e.contains("stage2.sh, line 1:"), "{e}");
    assert!(e.contains("evolve.sh") && e.contains("other.sh"), "{e}");

    // The grid's path in a comment does not make another grid's line this
    // grid's submission.
    let elsewhere = here.join("elsewhere.toml");
    std::fs::write(&elsewhere, GRID).unwrap();
    let commented = format!(
        "# made for {grid_text}\n{}",
        line(&elsewhere.to_string_lossy(), "evolve.sh")
    );
    let wrong_grid = stage_against(here, "evolve.sh", &commented);
    assert_eq!(wrong_grid.status.code(), Some(2), "{}", stdout(&wrong_grid));
    assert!(
        stderr(&wrong_grid).contains("stage2.sh, line 2:"),
        "{}",
        stderr(&wrong_grid)
    );

    // Job scripts (calib budget --script-dir) derive the cell themselves:
    // a smoke of the bare script would not run what stage 2 runs.
    let jobs = stage_against(
        here,
        "evolve.sh",
        "# calib budget\nsbatch jobs/calib-dataset-X.sh\n",
    );
    assert_eq!(jobs.status.code(), Some(2), "{}", stdout(&jobs));
    assert!(stderr(&jobs).contains("--script-dir"), "{}", stderr(&jobs));
    assert!(!here.join("stage").exists(), "nothing is written");

    // The same file under a path through `..` (as budget writes the path it
    // was given, made absolute) is this grid.
    let name = here.file_name().unwrap().to_string_lossy();
    let dotted = format!("{}/../{name}/grid.toml", here.display());
    let same = stage_against(here, "./evolve.sh", &line(&dotted, "evolve.sh"));
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
}

#[test]
fn a_stage_two_without_a_submittable_stratum_is_refused_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let grid = std::fs::canonicalize(write_file(here, "grid.toml", GRID)).unwrap();
    // As budget writes it when every stratum is over_cap or unsupported:
    // the strata's comments, and the only sbatch line commented out.
    let stage2 = format!(
        "# calib budget\n\n# stratum dataset=X: no --time (over_cap): even the measured cost exceeds the largest cap\n\
         # sbatch --array=0-2 --time=0 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID={} work.sh\n\n\
         # stratum dataset=Y: no --time (unsupported): the probe cannot support one\n",
        grid.display()
    );
    let out = stage_against(here, "work.sh", &stage2);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no stratum of stage 2 is submittable: each of its 2 strata"),
        "{}",
        stderr(&out)
    );

    // One array is "1 array".
    let one = stage_against(
        here,
        "work.sh",
        &format!(
            "sbatch --array=0-2 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID={} work.sh\n",
            grid.display()
        ),
    );
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(
        stdout(&one).contains("stage 2 (1 array)"),
        "{}",
        stdout(&one)
    );
}

/// A stage-2 line whose --time is no Slurm time, or whose CALIB_UNITS is no
/// count of units, is refused at its line: sbatch would refuse the first
/// only once the smoke had passed, and the second would run the campaign at
/// a length nobody meant.
#[test]
fn a_stage_two_time_or_unit_count_that_is_none_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let grid = std::fs::canonicalize(write_file(here, "grid.toml", GRID)).unwrap();
    let line = |time: &str, units: &str| {
        format!(
            "# stage 2\nsbatch --array=0-2 {time} --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS={units},CALIB_GRID={} work.sh\n",
            grid.display()
        )
    };
    for (time, units, named) in [
        ("--time=xx", "20", "`xx`"),
        ("-t 1:2:3:4", "20", "`1:2:3:4`"),
        ("-t1:2:3:4", "20", "`1:2:3:4`"),
        ("--time=1:00:00", "0", "CALIB_UNITS"),
        ("--time=1:00:00", "18446744073709551616", "CALIB_UNITS"),
    ] {
        let out = stage_against(here, "work.sh", &line(time, units));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{time} {units}: {err}");
        assert!(
            err.contains("stage2.sh, line 2") && err.contains(named),
            "{err}"
        );
    }
    let out = stage_against(here, "work.sh", &line("-t 1:00:00", "20"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Stage 2 is printed for the user to run: a line that is not an sbatch
/// command, a stratum the grid lacks and an array past a stratum's cells are
/// refused, naming the line (and the grid's cells); an sbatch line is kept
/// written again from its words, so what `stage check` prints submits the
/// arrays the report counts, and a `$(...)` in a word is text.
#[test]
fn stage_two_holds_only_checked_sbatch_lines_written_again_from_their_words() {
    let line = |stratum: &str, array: &str, extra: &str| {
        format!(
            "sbatch --array={array} {extra}--export=ALL,CALIB_STRATUM={stratum},CALIB_UNITS=20,CALIB_GRID=@GRID@ work.sh\n"
        )
    };
    let x = line("dataset=X", "0-2", "");
    for (bad, words) in [
        (
            format!("touch /tmp/x; {x}"),
            vec!["not an sbatch command", "comments, blank lines"],
        ),
        (
            "rm -rf \"$HOME\"/important\n".to_string(),
            vec!["not an sbatch command"],
        ),
        (
            line("dataset=Q", "0-2", ""),
            vec![
                "CALIB_STRATUM=dataset=Q",
                "dataset=X (3 cells, --array=0-2)",
            ],
        ),
        (
            line("dataset=X", "0-9", ""),
            vec!["--array=0-9", "index 9", "dataset=X (3 cells"],
        ),
    ] {
        let (dir, _, out) = staged_from(&format!("# budget\n{x}{bad}"), &[]);
        let e = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{bad}: {e}");
        assert!(e.contains("stage2.sh, line 3:"), "{bad}: {e}");
        for w in words {
            assert!(e.contains(w), "{bad}: {w} not in {e}");
        }
        assert!(!dir.path().join("stage").exists(), "{bad}: nothing written");
    }

    // Shell code inside words: staged, counted, and printed as text.
    let hostile = line(
        "dataset=Y",
        "0-2",
        "--job-name=$(touch${IFS}pwned) --comment=a;b|c&`d` ",
    );
    let (dir, _, out) = staged_from(&format!("# budget\n\n{x}{hostile}"), &["--field", "seed"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("stage 2 (2 arrays)"),
        "{}",
        stdout(&out)
    );
    let here = dir.path();
    smoke_left(here, 77, [1, 1], true);
    let ok = check(here, &sacct(77, ["COMPLETED", "COMPLETED"]));
    assert_eq!(ok.status.code(), Some(0), "{}{}", stdout(&ok), stderr(&ok));
    let printed = stdout(&ok);
    let grid = std::fs::canonicalize(here.join("grid.toml")).unwrap();
    let expected = format!(
        "# budget\n\n{}sbatch --array=0-2 --job-name='$(touch${{IFS}}pwned)' --comment='a;b|c&`d`' \
         --export=ALL,CALIB_STRATUM=dataset=Y,CALIB_UNITS=20,CALIB_GRID={} work.sh\n",
        x.replace("@GRID@", &grid.to_string_lossy()),
        grid.display()
    );
    assert!(printed.ends_with(&expected), "{printed}");
}

/// sbatch reads the smoke's `--output` as a filename pattern: a `%` in the
/// folder's name is written `%%` (else `%u` would become the user's name and
/// the logs land elsewhere), and `stage check` reads the logs at the same
/// path; a `\` (which turns off every replacement) is refused.
#[test]
fn a_percent_in_the_out_dir_reaches_sbatch_escaped_and_check_finds_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let grid = std::fs::canonicalize(write_file(here, "grid.toml", GRID)).unwrap();
    write_file(
        here,
        "stage2.sh",
        format!(
            "sbatch --array=0-2 --export=ALL,CALIB_STRATUM=dataset=X,CALIB_UNITS=20,CALIB_GRID={} work.sh\n",
            grid.display()
        ),
    );
    let stage = |out_dir: &str| {
        calib()
            .args(["stage", "grid.toml", "--script", "work.sh"])
            .args([
                "--stage2",
                "@stage2.sh",
                "--field",
                "seed",
                "--out-dir",
                out_dir,
            ])
            .current_dir(here)
            .output()
            .unwrap()
    };
    let out = stage("o%u");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let smoke = std::fs::read_to_string(here.join("o%u/stage1-smoke.sh")).unwrap();
    let words = shlex::split(smoke.lines().last().unwrap()).unwrap();
    let logs = std::fs::canonicalize(here).unwrap().join("o%%u/logs");
    assert!(
        words.contains(&format!("--output={}/smoke-%A_%a.out", logs.display())),
        "{words:?}"
    );
    assert!(here.join("o%u/logs").is_dir());

    // The logs where sbatch writes them (`%%` is `%`) pass the log check.
    for (k, seed) in [1, 2].iter().enumerate() {
        std::fs::create_dir_all(here.join("results/X")).unwrap();
        write_file(
            &here.join("results/X"),
            &format!("seed-{seed}.jsonl"),
            format!("{{\"seed\": {seed}}}\n"),
        );
        write_file(
            &here.join("o%u/logs"),
            &format!("smoke-77_{k}.out"),
            format!(
                "calib: grid cell: stratum dataset=X index {k} -> tag dataset-X_seed-{seed} output results/X/seed-{seed}.jsonl (dataset=X seed={seed})\n"
            ),
        );
    }
    let checked = calib()
        .args(["stage", "check", "o%u/stage2-trigger.toml", "--sacct"])
        .arg(sacct(77, ["COMPLETED", "COMPLETED"]))
        .current_dir(here)
        .output()
        .unwrap();
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}{}",
        stdout(&checked),
        stderr(&checked)
    );

    let slash = stage("o\\b");
    assert_eq!(slash.status.code(), Some(2), "{}", stderr(&slash));
    assert!(
        stderr(&slash).contains("turns off every replacement"),
        "{}",
        stderr(&slash)
    );
}

/// A --smoke-time past what Slurm accepts is said to be so, with the bound
/// (the shared time parser's message); one that means no limit is refused as
/// such; neither as "not a finite time".
#[test]
fn a_smoke_time_too_large_is_said_beyond_what_slurm_accepts() {
    for (time, says) in [
        (
            "99999999",
            "beyond what Slurm accepts, at most 24855-03:14:07",
        ),
        (
            "99999999999999999999999",
            "beyond what Slurm accepts, at most 24855-03:14:07",
        ),
        ("UNLIMITED", "means no limit"),
        ("0", "means no limit"),
        ("10m", "is not a Slurm time"),
    ] {
        let (dir, trigger, out) = staged(&["--smoke-time", time]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{time}: {err}");
        assert!(
            err.contains("--smoke-time") && err.contains(says),
            "{time}: {err}"
        );
        assert!(!err.contains("not a finite"), "{time}: {err}");
        assert!(!trigger.exists(), "{}", dir.path().display());
    }
}

// Stage 2 gives dataset=X 1 h for 20 units: 3 min per unit. A smoke of 3
// units fits the default 10 minutes; of 4 units (12 min) it does not, and the
// user hears so before submitting; with --smoke-time 15 it fits again. The
// smoke is staged in every case: stage 2's time is an upper bound.
#[test]
fn a_smoke_time_shorter_than_stage_2_s_rate_for_the_smoke_units_is_warned_of() {
    let warned = |extra: &[&str]| {
        let (_dir, trigger, out) = staged(extra);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(trigger.exists());
        let err = stderr(&out);
        err.contains("more than --smoke-time").then_some(err)
    };
    assert_eq!(warned(&[]), None);
    let err = warned(&["--smoke-units", "4"]).expect("a warning");
    assert!(
        err.contains("stratum dataset=X 3m 00s per unit")
            && err.contains("the smoke's 4 units take up to 12m 00s, more than --smoke-time 10 (")
            && !err.contains("  "),
        "{err}"
    );
    assert_eq!(warned(&["--smoke-units", "4", "--smoke-time", "15"]), None);
}
