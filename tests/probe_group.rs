//! What becomes of the probed command and everything it started when calib is
//! stopped from outside: killed outright (`kill -9`), or sent `TERM` while the
//! command ignores `TERM`.

mod common;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use calib::timings::{read_timings, IngestOptions, RunEnd};

/// calib probe inside a pretend allocation, stdin not a terminal (so the
/// command gets its own process group), `PIDFILE` set for the command,
/// `extra` flags before the command.
fn probe_command(out: &Path, pidfile: &Path, grace: &str, extra: &[&str], script: &str) -> Command {
    let mut command = common::calib();
    command
        .env("SLURM_JOB_ID", "7")
        .env("PIDFILE", pidfile)
        .args([
            "probe",
            "-s",
            "k=group",
            "--show-units",
            "0",
            "--grace",
            grace,
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .args(["--", "sh", "-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// [`probe_command`] without extra flags, started.
fn spawn_probe(out: &Path, pidfile: &Path, grace: &str, script: &str) -> Child {
    probe_command(out, pidfile, grace, &[], script)
        .spawn()
        .unwrap()
}

fn read_pid(pidfile: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(pidfile) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(Instant::now() < deadline, "the command did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// True while `pid` exists and is not a zombie.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => stat.rsplit(") ").next().and_then(|s| s.chars().next()) != Some('Z'),
    }
}

/// Kills `pid` when dropped, so that a failing test leaves no `sleep 1000`.
struct Reap(i32);

impl Drop for Reap {
    fn drop(&mut self) {
        if alive(self.0) {
            // SAFETY: a process this test started (through calib).
            unsafe { libc::kill(self.0, libc::SIGKILL) };
        }
    }
}

/// Waits up to `limit` for `pid` to be gone; returns how long it took.
fn gone_within(pid: i32, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if !alive(pid) {
            return Some(start.elapsed());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn a_grandchild_dies_with_calib_killed_outright() {
    // The shell the probe runs starts a `sleep 1000` and waits for it; in the
    // second case both ignore TERM, so only a KILL after --grace ends them.
    for (case, script) in [
        (
            "plain",
            "sleep 1000 & echo $! > \"$PIDFILE\"; echo CALIB_UNIT; wait",
        ),
        (
            "ignoring TERM",
            "trap '' TERM; sleep 1000 & echo $! > \"$PIDFILE\"; echo CALIB_UNIT; wait",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let mut calib = spawn_probe(&dir.path().join("out"), &pidfile, "1s", script);
        let grandchild = read_pid(&pidfile);
        let _reap = Reap(grandchild);
        assert!(alive(grandchild), "{case}");
        calib.kill().unwrap(); // SIGKILL: calib can do nothing more itself
        calib.wait().unwrap();
        let took = gone_within(grandchild, Duration::from_secs(10));
        assert!(
            took.is_some(),
            "{case}: the grandchild {grandchild} outlived calib by 10 s"
        );
        eprintln!(
            "{case}: the grandchild was gone {:?} after calib",
            took.unwrap()
        );
    }
}

#[test]
fn a_command_ignoring_an_outside_term_is_killed_after_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let out = dir.path().join("out");
    let mut calib = spawn_probe(
        &out,
        &pidfile,
        "1s",
        "trap '' TERM; echo $$ > \"$PIDFILE\"; while :; do echo CALIB_UNIT; sleep 0.05; done",
    );
    let command = read_pid(&pidfile);
    let _reap = Reap(command);
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    // SAFETY: signalling the calib process this test started.
    unsafe { libc::kill(calib.id() as i32, libc::SIGTERM) };
    let status = loop {
        if let Some(status) = calib.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(20) {
            let _ = calib.kill();
            let _ = calib.wait();
            panic!("calib still waits for a command that ignores TERM 20 s after its own TERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = sent.elapsed();
    // The grace is given (the command may act on TERM), then no more.
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(took < Duration::from_secs(8), "{took:?}");
    assert!(!alive(command), "the command is dead");
    assert_eq!(status.code(), Some(128 + 9), "the command's status: KILL");
    let timings = read_timings(&[out], &IngestOptions::default()).unwrap();
    let (end, _, _) = timings.runs[0].end.clone().expect("an end row");
    assert_eq!(end, RunEnd::Signal("KILL".into()));
}

#[test]
fn what_the_command_left_running_ends_with_the_run() {
    // A worker started in the background outlives its shell: stopped at
    // --units (the worker ignores TERM, so only the KILL after --grace ends
    // it), or left behind by a shell that exits by itself. Either way it is
    // gone by the time calib returns, not still spinning on the allocation.
    for (case, extra, script) in [
        (
            "stopped at --units, the worker ignoring TERM",
            &["--units", "2"][..],
            "(trap '' TERM; while :; do sleep 0.05; done) & echo $! > \"$PIDFILE\"; \
             while :; do echo CALIB_UNIT; sleep 0.1; done",
        ),
        (
            "the shell exiting by itself",
            &[][..],
            "sleep 1000 & echo $! > \"$PIDFILE\"; echo CALIB_UNIT; echo CALIB_UNIT",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let status = probe_command(&dir.path().join("out"), &pidfile, "1s", extra, script)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let worker = read_pid(&pidfile);
        let _reap = Reap(worker);
        assert_eq!(status.code(), Some(0), "{case}");
        assert!(!alive(worker), "{case}: the worker {worker} outlived calib");
    }
}
