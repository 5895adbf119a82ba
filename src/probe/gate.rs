//! The login-node gate: a probe runs the real workload, so it belongs on a
//! compute node of the kind the campaign will use, never on a shared login node.
//!
//! A machine is taken for a login node when Slurm's client commands are on
//! `PATH` (`sbatch`, `srun` or `salloc`) but this process is outside any
//! allocation (`SLURM_JOB_ID` unset). A laptop (no Slurm commands) is not gated:
//! it probes and records cluster `local`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};
use crate::shell::quote;
use crate::slurm::cluster::env_nonempty;
use crate::slurm::time::format_sbatch_time;

/// Where Slurm's client commands live on `PATH`, if anywhere.
pub(crate) fn slurm_command_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["sbatch", "srun", "salloc"] {
            let candidate = dir.join(name);
            if is_executable(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

pub(crate) fn in_allocation() -> bool {
    env_nonempty("SLURM_JOB_ID").is_some() || env_nonempty("SLURM_JOBID").is_some()
}

/// Refuses on a login node unless `allow_login`; `command_line` is the user's
/// calib command, shown inside the suggested allocation.
pub(crate) fn check(
    allow_login: bool,
    timeout: Option<Duration>,
    command_line: &str,
) -> Result<()> {
    if allow_login || in_allocation() {
        return Ok(());
    }
    let Some(found) = slurm_command_on_path() else {
        return Ok(());
    };
    let time = salloc_time(timeout);
    Err(Error::Refused(format!(
        "this looks like a login node: {} is on PATH but SLURM_JOB_ID is not set, so this shell is \
         outside any allocation. A probe runs your real workload and must measure the node type \
         your campaign will run on. Ask for an interactive allocation like the jobs will get \
         (add --account, --gpus, --mem as they use), then probe inside it:\n\
         \n    salloc --time={time} --cpus-per-task=1 --mem=4G\n    {command_line}\n\
         \nor in one line:\n\
         \n    srun --time={time} --cpus-per-task=1 --mem=4G {command_line}\n\
         \nPass --allow-login to probe here anyway (for a few seconds of work at most).",
        found.display()
    )))
}

/// The allocation to ask for: the probe's own timeout plus 10 minutes, whole
/// minutes, else one hour; in `--time`'s grammar. The timeout is rounded up
/// with its fraction of a second (`--timeout 60.5s` needs 2 minutes).
fn salloc_time(timeout: Option<Duration>) -> String {
    // The timeout plus 10 minutes, and never past what Slurm takes.
    format_sbatch_time(match timeout {
        Some(t) => t.as_secs_f64() + 600.0,
        None => 3_600.0,
    })
}

/// Shell-quotes words ([`crate::shell::quote`]) so that the shown command can
/// be pasted back.
pub(crate) fn shell_join<S: AsRef<str>>(words: &[S]) -> String {
    words
        .iter()
        .map(|w| quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn salloc_time_covers_the_timeout() {
        use crate::slurm::time::{parse_time, SlurmTime};
        // What Slurm reads back: the timeout in whole minutes plus 10.
        let read = |timeout| parse_time(&salloc_time(timeout)).unwrap();
        assert_eq!(read(None), SlurmTime::Limited(3_600));
        assert_eq!(
            read(Some(Duration::from_secs(90))),
            SlurmTime::Limited(12 * 60)
        );
        assert_eq!(
            read(Some(Duration::from_secs_f64(60.5))),
            SlurmTime::Limited(12 * 60)
        );
        assert_eq!(
            read(Some(Duration::from_secs(7200))),
            SlurmTime::Limited(130 * 60)
        );
        assert_eq!(
            read(Some(Duration::from_secs(3 * 86_400))),
            SlurmTime::Limited(3 * 86_400 + 600)
        );
        // A timeout near or past Slurm's largest time asks for that time,
        // which Slurm reads.
        for huge in [
            24_855 * 86_400 + 3 * 3_600 + 14 * 60 + 7,
            999_999_999,
            u64::MAX / 4,
        ] {
            let asked = salloc_time(Some(Duration::from_secs(huge)));
            assert!(parse_time(&asked).is_ok(), "{huge}: {asked}");
        }
    }

    #[test]
    fn quoting() {
        assert_eq!(
            shell_join(&["calib", "probe", "--", "sh", "-c", "echo 'a b'"]),
            r#"calib probe -- sh -c 'echo '\''a b'\'''"#
        );
    }
}
