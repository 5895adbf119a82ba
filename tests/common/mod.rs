//! Helpers shared by integration tests. Each test binary uses only some of them.
//!
//! The binary is run as `std::process::Command`, so that tests can spawn it,
//! pipe to it and signal it; `assert_cmd`'s `OutputAssertExt` (`.assert()` on a
//! command or an output) gives failure messages that show the command line,
//! its status, stdout and stderr.
#![allow(dead_code)]

pub mod slurm;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::prelude::*;
use calib::error::Error;
use calib::error::Origin;
use calib::fit::{fit_timings, FitOptions, FitReport};
use calib::slurm::partitions::{parse_partitions, PartitionList, Selection};
use calib::timings::{read_timings, IngestOptions, Timings};

/// The `calib` binary these tests were built with.
pub const CALIB: &str = env!("CARGO_BIN_EXE_calib");

/// `calib` with no trace of the Slurm job or cluster the tests may run in
/// (`SLURM_*`, `CC_CLUSTER`) nor of a Python output setting
/// (`PYTHONUNBUFFERED`, which probe sets for the commands it runs), and with
/// standard input closed: what calib sees then depends on the test alone.
/// Tests that need an allocation set `SLURM_JOB_ID` themselves.
pub fn calib() -> Command {
    let mut c = Command::new(CALIB);
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        if name.starts_with("SLURM_") || name == "CC_CLUSTER" || name == "PYTHONUNBUFFERED" {
            c.env_remove(&key);
        }
    }
    c.stdin(Stdio::null());
    c
}

/// Runs `command` to its end with its output captured, failing the test (and
/// killing the child) if it has not ended within `limit`: a test of input
/// that could make calib block or loop ends either way. Both pipes are drained
/// while the child runs, so that a long output cannot block it.
pub fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{command:?} did not end within {limit:?}; stderr: {}",
                String::from_utf8_lossy(&stderr.join().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// Runs `command` to its end with `input` on its standard input and its
/// output captured.
pub fn output_with_stdin(command: &mut Command, input: impl AsRef<[u8]>) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    // Written from a thread: a child that answers before reading all of its
    // input could otherwise fill its output pipe while we still write.
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let input = input.as_ref().to_vec();
    let writer = std::thread::spawn(move || {
        // A child that exits without reading everything closes the pipe.
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Limits each file `command` writes to `bytes` (RLIMIT_FSIZE): a write past
/// it fails as a write to a full disk fails, with an error (EFBIG) rather
/// than ENOSPC, and for root as for anyone, without a file system to fill.
/// The signal such a write also raises (SIGXFSZ), which would kill the
/// process, is ignored, as it is across the exec. Standard output and error
/// are pipes in these tests, which the limit does not reach.
pub fn limit_file_size(command: &mut Command, bytes: u64) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only async-signal-safe calls are made
    // (setrlimit, signal), on values copied into the closure.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::signal(libc::SIGXFSZ, libc::SIG_IGN) == libc::SIG_ERR {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// `calib ARGS` run in `dir`, as a user on the cluster runs it (with the
/// test's environment: on the lab, that of its login node).
#[allow(dead_code)]
pub fn calib_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(CALIB)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cannot run calib")
}

/// The standard output of a command that must have succeeded; `what` names
/// it in the panic, with both streams.
#[allow(dead_code)]
pub fn ok_stdout(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        stdout(out),
        stderr(out)
    );
    stdout(out)
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A file of the repository, by its path from the repository root.
pub fn repo_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(relative)
}

/// The text of a file of the repository.
pub fn repo_text(relative: &str) -> String {
    let path = repo_file(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `@PATH` of a repository file, the form calib's text arguments
/// (`--partitions`, audit's SACCT) take for a file.
pub fn at_repo_file(relative: &str) -> String {
    format!("@{}", repo_file(relative).display())
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}

/// [`write_file`], returning the path as a command-line argument.
pub fn write_arg(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    write_file(dir, name, text).to_string_lossy().into_owned()
}

/// A recorded sample under `tests/data/` (`tests/data/slurm/sinfo-narval.txt`):
/// its text, which must begin with the `# source:` line that says where it was
/// recorded.
pub fn recorded_sample(relative: &str) -> String {
    let text = repo_text(relative);
    assert!(
        text.starts_with("# source:"),
        "{relative} must begin with its `# source:` line"
    );
    text
}

/// `calib budget` of the bundled probes (`data/spread-20.csv`: datasets Y and
/// Z), 100 units and 3 tasks per stratum, for Narval's recorded partitions;
/// add the working folder, environment and further arguments.
pub fn budget_bundled() -> Command {
    let mut command = calib();
    command
        .args([
            "budget",
            "--units",
            "100",
            "--tasks",
            "3",
            "--cluster",
            "narval",
        ])
        .args([
            "--partitions",
            &at_repo_file("tests/data/slurm/sinfo-narval.txt"),
        ])
        .arg(repo_file("data/spread-20.csv"));
    command
}

/// A recorded partition list of `tests/data/slurm/` (checked for its
/// `# source:` line), parsed.
pub fn partition_sample(name: &str) -> PartitionList {
    let text = recorded_sample(&format!("tests/data/slurm/{name}"));
    parse_partitions(&text, &Origin::file(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The partitions `calib budget` uses when no family or regex is given.
pub fn default_selection(list: &PartitionList) -> Selection {
    list.select(None)
        .unwrap_or_else(|e| panic!("default selection refused: {e}"))
}

/// Asserts that `err` is bad input (exit status 2) on `line`, whose message
/// holds every one of `fragments`.
#[track_caller]
pub fn assert_input_error(err: &Error, line: Option<u64>, fragments: &[&str]) {
    match err {
        Error::Input {
            line: got_line,
            message,
            ..
        } => {
            assert_eq!(*got_line, line, "{message}");
            for f in fragments {
                assert!(message.contains(f), "`{f}` missing from: {message}");
            }
        }
        other => panic!("expected an input error, got {other:?}"),
    }
    assert_eq!(err.exit_code(), 2);
}

/// The help of `args` (e.g. `["fit", "--help"]`), unwrapped: clap wraps help
/// to the terminal's width, taken from `COLUMNS` when there is no terminal.
pub fn help_text(args: &[&str]) -> String {
    help_text_at(args, 10000)
}

/// The same, as clap wraps it at `columns` columns.
pub fn help_text_at(args: &[&str], columns: usize) -> String {
    let help = calib()
        .args(args)
        .env("COLUMNS", columns.to_string())
        .assert()
        .success();
    stdout(help.get_output())
}

/// The indented lines below the line `heading` of a help text (up to the next
/// line that is not indented), trimmed.
pub fn help_block<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    let mut lines = help.lines().skip_while(|l| l.trim() != heading);
    assert!(lines.next().is_some(), "no `{heading}` in:\n{help}");
    lines
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Runs one line of shell, as a user pastes it, in `dir`: `dir/bin` comes
/// first on `PATH` and holds `calib`, the binary under test, and whatever
/// stubs a test puts there (`sinfo`, ...). The environment is [`calib`]'s.
pub fn run_shell_line(dir: &Path, line: &str) -> Output {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("calib");
    if !link.exists() {
        std::os::unix::fs::symlink(CALIB, &link).unwrap();
    }
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let mut sh = Command::new("sh");
    for (key, value) in calib().get_envs() {
        if value.is_none() {
            sh.env_remove(key);
        }
    }
    sh.args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run sh: {e}"))
}

/// The lab's `sinfo -h -o '%P %l'`, a family of time buckets up to 7 days.
pub const LAB_SINFO: &str = "tests/data/slurm/lab-sinfo-P-l.txt";

/// A folder holding what the examples of `calib fit --help` and `calib budget
/// --help` name, as a user would have it: probe files in `calib-timings/`
/// (stratum `dataset=X`, 2 runs of 30 units of a cost that grows), the same
/// rows as `timings.csv`, a foreign table `runs.csv` (columns seed, numbered
/// within each dataset, dataset, model, epoch and seconds per epoch), the lab's partitions as
/// `partitions.txt`, a sizes grid `grid.csv` and a campaign grid `grid.toml`
/// (stratum `dataset=X,model=7B`, 3 seeds), a job script `train.sh`, and in
/// `bin/` a `sinfo` that prints the lab's partitions (for
/// [`run_shell_line`]).
pub fn example_folder() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let here = dir.path();
    let (probe_rows, _) = calib::synth::trend_case(30, 2, 3);
    std::fs::create_dir(here.join("calib-timings")).unwrap();
    write_file(&here.join("calib-timings"), "a.csv", &probe_rows);
    write_file(here, "timings.csv", &probe_rows);
    // A foreign table as a training script writes it: seeds numbered within
    // each configuration (seed 0 of A is not seed 0 of B).
    let mut runs = String::from("seed,dataset,model,epoch,seconds\n");
    for seed in 0..3 {
        for (dataset, seconds) in [("A", 10.0), ("B", 20.0)] {
            for epoch in 1..=12 {
                let took = seconds * (1.0 + 0.01 * f64::from(seed));
                runs.push_str(&format!("{seed},{dataset},7B,{epoch},{took}\n"));
            }
        }
    }
    write_file(here, "runs.csv", runs);
    write_file(here, "partitions.txt", repo_text(LAB_SINFO));
    write_file(here, "grid.csv", "stratum,units,tasks\ndataset=X,100,3\n");
    write_file(
        here,
        "grid.toml",
        "stratum = [\"dataset\", \"model\"]\noutput = \"results/{tag}.jsonl\"\nunits = 100\n\
         [axes]\ndataset = [\"X\"]\nmodel = [\"7B\"]\nseed = [0, 1, 2]\n",
    );
    write_file(
        here,
        "train.sh",
        "#!/bin/sh\npython3 train.py --seed \"$1\"\n",
    );
    std::fs::create_dir(here.join("bin")).unwrap();
    let sinfo = write_file(
        &here.join("bin"),
        "sinfo",
        format!("#!/bin/sh\ncat '{}'\n", repo_file(LAB_SINFO).display()),
    );
    std::fs::set_permissions(&sinfo, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// The lines of an example block with each shell continuation (a line
/// ending in ` \`) joined to the line after it, as the shell reads them.
pub fn shell_lines(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut continued = false;
    for line in lines {
        match out.last_mut().filter(|_| continued) {
            Some(last) => last.push_str(line),
            None => out.push(line.to_string()),
        }
        let last = out.last_mut().expect("a line was pushed");
        continued = last.ends_with(" \\");
        if continued {
            last.pop();
        }
    }
    out
}

/// Runs every example line of `calib COMMAND --help` as printed, with
/// [`run_shell_line`] in `dir`, in order, and asserts that each succeeds.
/// Returns each line with its output.
pub fn run_help_examples(command: &str, dir: &Path) -> Vec<(String, Output)> {
    let help = help_text(&[command, "--help"]);
    shell_lines(&help_block(&help, "Examples:"))
        .into_iter()
        .map(|line| {
            let out = run_shell_line(dir, &line);
            assert!(
                out.status.success(),
                "the example `{line}` of `calib {command} --help` failed ({}):\n{}",
                out.status,
                stderr(&out)
            );
            (line, out)
        })
        .collect()
}

/// The entries of `dir`, sorted (none when it does not exist).
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// Reads a timings file or folder as `calib fit` does, panicking on an error.
pub fn read_timings_at(path: &Path) -> Timings {
    read_timings(&[path.to_path_buf()], &IngestOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reads timings given as CSV text (through a file, as `calib fit` reads them).
pub fn timings_from_csv(csv: &str) -> calib::error::Result<Timings> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "timings.csv", csv);
    read_timings(&[path], &IngestOptions::default())
}

/// Fits timings given as CSV text with the default options, panicking on an error.
pub fn fit_csv(csv: &str) -> FitReport {
    let timings = timings_from_csv(csv).unwrap_or_else(|e| panic!("the timings read: {e}"));
    fit_timings(&timings, &FitOptions::default()).unwrap_or_else(|e| panic!("the fit: {e}"))
}
