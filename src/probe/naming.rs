//! Names derived, never hand-written: the timings file of a probe task and the
//! run identifiers in it.
//!
//! A probe task's **tag** is `<job>__<host>__p<pid>__<UTC start>`, where `<job>`
//! is `j<array job>_<task>` for an array task, `j<job id>` for a plain job, and
//! `local` outside Slurm. Within one cluster the job part alone separates array
//! tasks; host and pid separate several probes inside one job (srun steps on
//! several nodes, or probes run side by side); the start second guards against
//! a pid reused later on the same machine. The file is
//! `<stratum slug>__<tag>.csv` in the `--out` folder, created with `O_EXCL`; if
//! the name is taken anyway, `__2`, `__3`, ... is added to the tag, so two
//! probes never share or overwrite a file. Run ids are `<tag>-r<rep>` (and
//! `-n<length>` in run-length mode), hence unique across every file of a
//! campaign.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::fingerprint::JobIds;
use crate::error::{Error, Origin, Result};
use crate::stratum::Stratum;
use crate::timings::TimingsWriter;

/// Keeps `[A-Za-z0-9.-]`, turns anything else into `-`.
pub fn sanitize(text: &str) -> String {
    let s: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() {
        "x".to_string()
    } else {
        s
    }
}

/// The tag of this probe task (without a collision suffix).
pub fn task_tag(
    jobs: &JobIds,
    host: &str,
    pid: u32,
    started: chrono::DateTime<chrono::Utc>,
) -> String {
    let job = match jobs.display() {
        Some(id) => format!("j{}", sanitize(&id).replace('-', "_")),
        None => "local".to_string(),
    };
    format!(
        "{job}__{}__p{pid}__{}",
        sanitize(host),
        started.format("%Y%m%dT%H%M%SZ")
    )
}

/// The run id of one repetition (and length, in run-length mode).
pub fn run_id(tag: &str, rep: u64, length: Option<u64>) -> String {
    match length {
        Some(n) => format!("{tag}-r{rep}-n{n}"),
        None => format!("{tag}-r{rep}"),
    }
}

/// Creates `--out` if needed and this task's own file in it; returns the writer
/// and the tag actually used.
pub fn create_timings_file(
    out: &Path,
    stratum: &Stratum,
    tag: &str,
) -> Result<(TimingsWriter, String)> {
    let unwritable = |what: String, e: std::io::Error| {
        Error::input(
            Origin::Argument("--out".into()),
            None,
            format!(
                "{what}: {e}; give a folder you can write to, e.g. --out $SCRATCH/calib-timings"
            ),
        )
    };
    std::fs::create_dir_all(out)
        .map_err(|e| unwritable(format!("cannot create the folder {}", out.display()), e))?;
    for n in 1..=1000u32 {
        let tag = if n == 1 {
            tag.to_string()
        } else {
            format!("{tag}__{n}")
        };
        let path = file_path(out, stratum, &tag);
        match TimingsWriter::create_new(&path) {
            Ok(writer) => return Ok((writer, tag)),
            Err(Error::Io { source, .. }) if source.kind() == ErrorKind::AlreadyExists => continue,
            Err(Error::Io { source, .. }) => {
                return Err(unwritable(
                    format!("cannot create {}", path.display()),
                    source,
                ))
            }
            Err(other) => return Err(other),
        }
    }
    Err(Error::Failed(format!(
        "{}: a thousand files named after this task already exist; is the same probe being started in a loop?",
        out.display()
    )))
}

pub fn file_path(out: &Path, stratum: &Stratum, tag: &str) -> PathBuf {
    out.join(format!("{}__{tag}.csv", stratum.slug()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at() -> chrono::DateTime<chrono::Utc> {
        chrono::Utc
            .with_ymd_and_hms(2026, 11, 29, 22, 15, 0)
            .unwrap()
    }

    #[test]
    fn tags_come_from_job_host_pid_and_time() {
        let array = JobIds {
            job_id: Some("19".into()),
            array_job_id: Some("13".into()),
            array_task_id: Some("0".into()),
        };
        assert_eq!(
            task_tag(&array, "node1.narval", 42, at()),
            "j13_0__node1.narval__p42__20261129T221500Z"
        );
        assert_eq!(
            task_tag(&JobIds::default(), "my laptop", 7, at()),
            "local__my-laptop__p7__20261129T221500Z"
        );
        assert_eq!(run_id("t", 2, None), "t-r2");
        assert_eq!(run_id("t", 1, Some(100)), "t-r1-n100");
    }

    #[test]
    fn a_taken_name_gets_a_suffix_never_an_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let stratum = Stratum::parse("dataset=Y").unwrap();
        let (a, tag_a) = create_timings_file(dir.path(), &stratum, "t").unwrap();
        let (b, tag_b) = create_timings_file(dir.path(), &stratum, "t").unwrap();
        assert_eq!(tag_a, "t");
        assert_eq!(tag_b, "t__2");
        assert_ne!(a.path(), b.path());
        assert!(a.path().ends_with("dataset-Y__t.csv"));
    }

    #[test]
    fn an_unwritable_folder_names_out() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plain-file");
        std::fs::write(&file, "x").unwrap();
        let Err(e) = create_timings_file(&file.join("sub"), &Stratum::default(), "t") else {
            panic!("a folder under a plain file cannot be created");
        };
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("--out"), "{e}");
    }
}
