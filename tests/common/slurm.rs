//! Submitting to the Slurm lab (`scripts/slurm-lab start`) and waiting for jobs,
//! for tests that run against a real cluster.
//!
//! Waiting polls `sacct -j ID` (by id: without `-j` a just-finished job shows up
//! seconds later, and held jobs never), until every row of the job is finished
//! *and complete*: right after slurmctld starts, the first job's record can read
//! `JobName=allocation` with an empty Partition and Timelimit for a few seconds
//! after it has COMPLETED (seen on the lab), so a row counts only once its
//! Partition and Timelimit are filled in.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use calib::commands::audit::{SACCT_DELIMITER, SACCT_FORMAT};
use calib::error::Origin;
use calib::slurm::sacct::{parse_sacct, JobKind, SacctOptions};

/// The lab's partitions as `calib budget --partitions` takes them
/// (`sinfo -h -o '%P %l'`).
#[allow(dead_code)]
pub fn sinfo_partitions() -> String {
    let out = Command::new("sinfo")
        .args(["-h", "-o", "%P %l"])
        .output()
        .expect("cannot run sinfo");
    assert!(out.status.success(), "sinfo failed");
    String::from_utf8(out.stdout).expect("sinfo output is UTF-8")
}

/// Panics, loudly, unless `sinfo` reaches a controller with a usable node.
pub fn require_lab() {
    let out = Command::new("sinfo")
        .args(["-h", "-o", "%P %T"])
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run sinfo ({e}): start the Slurm lab with `scripts/slurm-lab start`")
        });
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && !text.trim().is_empty(),
        "sinfo cannot reach the Slurm lab (status {}, stderr: {}): start it with `scripts/slurm-lab start`",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    );
    assert!(
        text.lines().any(|l| ["idle", "mixed", "allocated"]
            .iter()
            .any(|s| l.ends_with(s))),
        "the lab's node is not usable:\n{text}\nsee `scripts/slurm-lab status`"
    );
}

/// Submits a batch script (given as text, on sbatch's standard input) with extra
/// sbatch options; returns the job id (`sbatch --parsable`).
pub fn submit(script: &str, options: &[&str], dir: &Path) -> String {
    let mut child = Command::new("sbatch")
        .arg("--parsable")
        .arg(format!("--chdir={}", dir.display()))
        .args(options)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run sbatch");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("sbatch stdin");
        stdin
            .write_all(script.as_bytes())
            .expect("write the script to sbatch");
    }
    let out = child.wait_with_output().expect("sbatch did not finish");
    assert!(
        out.status.success(),
        "sbatch {options:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // `--parsable` prints `id` or `id;cluster`.
    let id = text.trim().split(';').next().unwrap_or("").to_string();
    assert!(
        !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()),
        "sbatch printed no job id: {text:?}"
    );
    id
}

/// `sacct -P -X -j ID` with calib audit's columns, header included.
pub fn sacct_text(id: &str) -> String {
    sacct_delimited(id, "|")
}

/// [`sacct_text`] with `delimiter` between fields.
fn sacct_delimited(id: &str, delimiter: &str) -> String {
    let out = Command::new("sacct")
        .args(["-P", "-X", "-j", id, &format!("--format={SACCT_FORMAT}")])
        .arg(format!("--delimiter={delimiter}"))
        .output()
        .expect("cannot run sacct");
    assert!(
        out.status.success(),
        "sacct -j {id} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("sacct output is UTF-8")
}

/// Whether job `id` (every task of an array) has left the queue.
fn left_the_queue(id: &str) -> bool {
    let out = Command::new("squeue")
        .args(["-h", "-j", id, "-o", "%i"])
        .output()
        .expect("cannot run squeue");
    // squeue fails for a job id it no longer knows: gone as well.
    !out.status.success() || out.stdout.iter().all(|b| b.is_ascii_whitespace())
}

/// Waits until every task of job `id` is finished with a complete record;
/// returns `sacct_text(id)` then. Panics after `timeout` with the last output.
///
/// Finished means: out of squeue, every sacct row finished, and the same sacct
/// text twice in a row. Accounting reaches slurmdbd after the controller's
/// queue: an array's tasks that ran early may show before the others have any
/// row, so sacct alone can look complete too soon.
pub fn wait_done(id: &str, timeout: Duration) -> String {
    wait_rows(id, None, timeout)
}

/// Like [`wait_done`], for an array of `tasks` tasks: also waits until sacct
/// has a row for each of them.
#[allow(dead_code)]
pub fn wait_tasks_done(id: &str, tasks: usize, timeout: Duration) -> String {
    wait_rows(id, Some(tasks), timeout)
}

fn wait_rows(id: &str, tasks: Option<usize>, timeout: Duration) -> String {
    let start = Instant::now();
    let mut previous = String::new();
    loop {
        let gone = left_the_queue(id);
        // Read with calib's own delimiter: a job's comment may hold a `|`.
        let text = sacct_delimited(id, SACCT_DELIMITER);
        let options = SacctOptions {
            delimiter: Some(SACCT_DELIMITER.to_string()),
            columns: None,
        };
        let table = parse_sacct(&text, &Origin::Stdin, &options)
            .unwrap_or_else(|e| panic!("sacct output for job {id} does not parse: {e}\n{text}"));
        let done = !table.rows.is_empty()
            && tasks.is_none_or(|n| table.rows.len() == n)
            && table.rows.iter().all(|r| {
                r.state.as_ref().is_some_and(|s| s.is_finished())
                    && r.partition.is_some()
                    && r.timelimit_s().is_some()
                    && !r
                        .job_id
                        .as_ref()
                        .is_some_and(|j| matches!(j.kind, JobKind::ArrayPending(_)))
            });
        if gone && done && text == previous {
            return sacct_text(id);
        }
        assert!(
            start.elapsed() < timeout,
            "job {id} not finished after {timeout:?}; last sacct output:\n{text}"
        );
        previous = text;
        std::thread::sleep(Duration::from_millis(1000));
    }
}
