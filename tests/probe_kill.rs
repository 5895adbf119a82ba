//! Results survive a kill: calib (or, separately, the command) is SIGKILLed at
//! random moments while units finish every few tens of microseconds.
//!
//! The check uses what calib passed through: a unit's row is written before the
//! output holding its marker is passed on, so every complete marker line in
//! calib's captured stdout must have its row on disk, and the file must parse
//! (at most a torn last line, which the reader skips with a warning).
//!
//! The moments come from a small PRNG seeded by the clock; the seed is printed,
//! and `PROBE_KILL_SEED=<seed>` replays a failing sequence.

mod common;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use calib::timings::{read_timings, IngestOptions, IngestWarning, RunEnd, Timings};

const ITERATIONS: usize = 50;

/// Units of some tens of microseconds: a `step N` marker, a little work, a
/// line that is no marker. (Bare `echo` in a loop prints markers faster than a
/// debug build writes rows, and every kill would then wait for a backlog.)
const FAST_UNITS: &str = "echo $$ > \"$PIDFILE\"; i=0; while :; do i=$((i+1)); echo \"step $i\"; \
                          j=0; while [ $j -lt 20 ]; do j=$((j+1)); done; echo \"loss=0.$i\"; done";

struct Rng(u64);

impl Rng {
    fn from_env_or_clock() -> Rng {
        let seed = std::env::var("PROBE_KILL_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        eprintln!("PROBE_KILL_SEED={seed}");
        Rng(seed)
    }

    /// xorshift64*
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

fn spawn_probe(out: &Path, stdout: &Path, pidfile: &Path) -> std::process::Child {
    common::calib()
        .env("SLURM_JOB_ID", "9")
        .env("PIDFILE", pidfile)
        .args(["probe", "-s", "k=kill", "--show-units", "0", "--out"])
        .arg(out)
        .args(["--", "sh", "-c", FAST_UNITS])
        .stdin(Stdio::null())
        .stdout(File::create(stdout).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Complete `step N` lines in calib's captured stdout.
fn markers_passed_through(stdout: &Path) -> u64 {
    let text = std::fs::read(stdout).unwrap();
    let complete = match text.iter().rposition(|&b| b == b'\n') {
        Some(i) => &text[..=i],
        None => &text[..0],
    };
    complete
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"step "))
        .count() as u64
}

/// The `*.csv` file in `dir`, if any (a kill during creation may leave a hidden
/// `.partial` staging file, which `calib fit` does not read).
fn the_file(dir: &Path) -> Option<PathBuf> {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.map(|e| e.unwrap().path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    assert!(files.len() <= 1, "{files:?}");
    files.into_iter().next()
}

/// Reads the file and checks that its units are exactly 1..=n; returns the
/// timings and n.
fn read_checked(file: &Path, context: &str) -> (Timings, u64) {
    let t = read_timings(&[file.to_path_buf()], &IngestOptions::default())
        .unwrap_or_else(|e| panic!("{context}: the file does not parse: {e}"));
    // A kill before the first unit leaves the header alone, which is said.
    for w in &t.warnings {
        assert!(
            matches!(
                w,
                IngestWarning::TornLastLine { .. } | IngestWarning::HeaderOnly { .. }
            ),
            "{context}: {w}"
        );
    }
    assert!(t.runs.len() <= 1, "{context}");
    let n = t.runs.first().map_or(0, |r| r.points.len() as u64);
    if let Some(r) = t.runs.first() {
        for (i, (unit, _)) in r.points.iter().enumerate() {
            assert_eq!(
                *unit,
                i as u64 + 1,
                "{context}: units must be 1..=n without gaps"
            );
        }
    }
    (t, n)
}

fn wait_for_pid(pidfile: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(pidfile) {
            if let Ok(pid) = text.trim().parse() {
                return pid;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the command did not start within 30 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn sigkill_of_calib_loses_no_unit_it_had_passed_on() {
    let mut rng = Rng::from_env_or_clock();
    let (mut torn, mut rows, mut seen) = (0, 0, 0);
    for iteration in 0..ITERATIONS {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("timings");
        let stdout = dir.path().join("stdout");
        let pidfile = dir.path().join("pid");
        let mut calib = spawn_probe(&out, &stdout, &pidfile);
        std::thread::sleep(Duration::from_micros(rng.below(60_000)));
        calib.kill().unwrap(); // SIGKILL
        calib.wait().unwrap();
        let passed = markers_passed_through(&stdout);
        let context = format!("iteration {iteration}: {passed} markers passed through");
        match the_file(&out) {
            None => assert_eq!(passed, 0, "{context}, but no file"),
            Some(file) => {
                let (t, n) = read_checked(&file, &context);
                torn += t.warnings.len();
                rows += n;
                seen += passed;
                assert!(n >= passed, "{context}, only {n} rows on disk");
                assert!(
                    t.runs.first().is_none_or(|r| r.end.is_none()),
                    "{context}: no end row after SIGKILL"
                );
            }
        }
        // The command got PR_SET_PDEATHSIG=TERM (or SIGPIPE at its next line).
        if let Ok(text) = std::fs::read_to_string(&pidfile) {
            if let Ok(pid) = text.trim().parse::<i32>() {
                wait_gone(pid);
            }
        }
    }
    eprintln!(
        "{ITERATIONS} kills of calib: {rows} unit rows on disk, {seen} markers passed through, {torn} torn last lines"
    );
}

#[test]
fn sigkill_of_the_command_is_recorded_with_every_unit_before_it() {
    let mut rng = Rng::from_env_or_clock();
    for iteration in 0..ITERATIONS {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("timings");
        let stdout = dir.path().join("stdout");
        let pidfile = dir.path().join("pid");
        let calib = spawn_probe(&out, &stdout, &pidfile);
        let pid = wait_for_pid(&pidfile);
        std::thread::sleep(Duration::from_micros(rng.below(30_000)));
        // SAFETY: the shell calib started for this test.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        let status = calib.wait_with_output().unwrap().status;
        assert_eq!(
            status.code(),
            Some(128 + 9),
            "iteration {iteration}: calib exits 128+KILL"
        );
        let passed = markers_passed_through(&stdout);
        let context = format!("iteration {iteration}: {passed} markers passed through");
        let file = the_file(&out).expect("the file exists");
        let (t, n) = read_checked(&file, &context);
        assert!(
            t.warnings.is_empty(),
            "{context}: calib was alive, nothing may be torn"
        );
        assert_eq!(
            n, passed,
            "{context}: every marker read is a row, and no other"
        );
        let (end, units, _) = t.runs[0].end.clone().expect("an end row");
        assert_eq!(end, RunEnd::Signal("KILL".into()), "{context}");
        assert_eq!(units, n, "{context}");
    }
}

/// Waits (up to 10 s) until `pid` is gone or a zombie.
fn wait_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return,
            Ok(stat) => {
                let state = stat.rsplit(") ").next().and_then(|s| s.chars().next());
                if state == Some('Z') {
                    return;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("the command {pid} outlived calib by 10 s");
}
