//! Helpers shared by integration tests. Each test binary uses only some of them.
//!
//! The binary is run as `std::process::Command`, so that tests can spawn it,
//! pipe to it and signal it; `assert_cmd`'s `OutputAssertExt` (`.assert()` on a
//! command or an output) gives failure messages that show the command line,
//! its status, stdout and stderr.
#![allow(dead_code)]

pub mod slurm;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use calib::fit::{fit_timings, FitOptions, FitReport};
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
