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
//!
//! File names stay within the 255 bytes common file systems allow, whatever
//! the labels: the slug is at most [`SLUG_MAX`](crate::stratum::SLUG_MAX)
//! characters, a longer one being cut and ended with a stable hash of the
//! whole stratum ([`Stratum::slug`]), so two long strata still get different
//! names. The tag's parts are short by nature (a host name has at most 64
//! bytes on Linux, job ids are numbers). The stratum itself is in every row
//! and is never read back from the name.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::fingerprint::JobIds;
use crate::error::{Error, Origin, Result};
use crate::stratum::Stratum;
use crate::timings::TimingsWriter;

/// Keeps `[A-Za-z0-9.-]`, turns anything else into `-`.
pub(crate) fn sanitize(text: &str) -> String {
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
pub(crate) fn task_tag(
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
pub(crate) fn run_id(tag: &str, rep: u64, length: Option<u64>) -> String {
    match length {
        Some(n) => format!("{tag}-r{rep}-n{n}"),
        None => format!("{tag}-r{rep}"),
    }
}

/// Creates `--out` if needed and this task's own file in it; returns the writer,
/// the tag actually used and the file's path.
///
/// The file never exists without its header, even if calib is killed while
/// creating it (an empty file would make `calib fit` reject the folder): the
/// header is written to a hidden `.<name>.partial-<pid>` file, which is then
/// hard-linked to its final name (`link(2)` fails if the name is taken, like
/// `O_EXCL`) and removed. Where hard links are not supported, the file is
/// created in place with `O_EXCL`.
pub(crate) fn create_timings_file(
    out: &Path,
    stratum: &Stratum,
    tag: &str,
) -> Result<(TimingsWriter, String, PathBuf)> {
    let unwritable = |what: String, e: std::io::Error| {
        Error::input(
            Origin::Argument("--out".into()),
            None,
            format!(
                "{what}: {e}; give a folder you can write to, e.g. --out $SCRATCH/calib-timings"
            ),
        )
    };
    crate::atomic::refuse_file_as_folder(out, "--out", "the timings files")?;
    std::fs::create_dir_all(out)
        .map_err(|e| unwritable(format!("cannot create the folder {}", out.display()), e))?;
    let (partial, writer) = create_staged(out, stratum, tag, &unwritable)?;
    let mut staged = Some(writer);
    for n in 1..=1000u32 {
        let tag = if n == 1 {
            tag.to_string()
        } else {
            format!("{tag}__{n}")
        };
        let path = file_path(out, stratum, &tag);
        if let Some(writer) = staged.take() {
            match std::fs::hard_link(&partial, &path) {
                Ok(()) => {
                    let _ = std::fs::remove_file(&partial);
                    return Ok((writer.known_as(&path), tag, path));
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    staged = Some(writer);
                    continue;
                }
                Err(_) => {
                    // No hard links here: create the file in place.
                    drop(writer);
                    let _ = std::fs::remove_file(&partial);
                }
            }
        }
        if let Some(writer) = create_exclusive(&path, &unwritable)? {
            return Ok((writer, tag, path));
        }
    }
    let _ = std::fs::remove_file(&partial);
    Err(Error::Failed(format!(
        "{}: a thousand files named after this task already exist; is the same probe being started in a loop?",
        out.display()
    )))
}

/// A new timings file at `path`, or `None` where the name is taken (left
/// as it is); other failures say the folder cannot be written.
fn create_exclusive(
    path: &Path,
    unwritable: &dyn Fn(String, std::io::Error) -> Error,
) -> Result<Option<TimingsWriter>> {
    match TimingsWriter::create_new(path) {
        Ok(writer) => Ok(Some(writer)),
        Err(Error::Io { source, .. }) if source.kind() == ErrorKind::AlreadyExists => Ok(None),
        Err(Error::Io { source, .. }) => Err(unwritable(
            format!("cannot create {}", path.display()),
            source,
        )),
        Err(other) => Err(other),
    }
}

/// The hidden staging file, created exclusively under a name no other
/// process holds: `.<name>.partial-<pid>`, or with `-<n>` after it where that
/// is taken (a leftover of a killed process with our pid, or another probe
/// with our pid in its own pid namespace, writing to the same folder). A name
/// found taken is never removed: it may be another probe's file.
fn create_staged(
    out: &Path,
    stratum: &Stratum,
    tag: &str,
    unwritable: &dyn Fn(String, std::io::Error) -> Error,
) -> Result<(PathBuf, TimingsWriter)> {
    let stem = format!(
        ".{}__{tag}.csv.partial-{}",
        stratum.slug(),
        std::process::id()
    );
    for n in 0..1000u32 {
        let path = if n == 0 {
            out.join(&stem)
        } else {
            out.join(format!("{stem}-{n}"))
        };
        if let Some(writer) = create_exclusive(&path, unwritable)? {
            return Ok((path, writer));
        }
    }
    Err(Error::Failed(format!(
        "{}: a thousand staging files of this task already exist ({stem}...); remove them",
        out.display()
    )))
}

pub(crate) fn file_path(out: &Path, stratum: &Stratum, tag: &str) -> PathBuf {
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
        let (_a, tag_a, path_a) = create_timings_file(dir.path(), &stratum, "t").unwrap();
        let (_b, tag_b, path_b) = create_timings_file(dir.path(), &stratum, "t").unwrap();
        assert_eq!(tag_a, "t");
        assert_eq!(tag_b, "t__2");
        assert!(path_a.ends_with("dataset-Y__t.csv"));
        assert!(path_b.ends_with("dataset-Y__t__2.csv"));
        // Both hold their header, and no staging file is left behind.
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["dataset-Y__t.csv", "dataset-Y__t__2.csv"]);
        for path in [path_a, path_b] {
            assert!(std::fs::read_to_string(path)
                .unwrap()
                .starts_with("run,stratum,unit,"));
        }
    }

    // Another probe with our pid (its own pid namespace) staging the same
    // name in the same folder: its staging file is left alone, ours takes
    // another name, and each run gets its own file.
    #[test]
    fn a_staging_name_taken_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let stratum = Stratum::parse("dataset=Y").unwrap();
        let theirs = dir
            .path()
            .join(format!(".dataset-Y__t.csv.partial-{}", std::process::id()));
        std::fs::write(&theirs, "run,stratum,unit,elapsed_s\nr,dataset=Y,1,1\n").unwrap();
        let (mut writer, tag, path) = create_timings_file(dir.path(), &stratum, "t").unwrap();
        assert_eq!(tag, "t");
        assert_eq!(
            std::fs::read_to_string(&theirs).unwrap(),
            "run,stratum,unit,elapsed_s\nr,dataset=Y,1,1\n"
        );
        assert_eq!(writer.path(), path.as_path());
        let row = crate::timings::TimingRow {
            run: "r".into(),
            stratum: stratum.clone(),
            unit: 1,
            elapsed_s: 1.0,
            unit_s: None,
            fingerprint: Default::default(),
            end: None,
        };
        writer.append(&row).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        // A plain file as --out is named as such.
        let Err(e) = create_timings_file(&theirs, &stratum, "t") else {
            panic!("a file is no folder");
        };
        assert!(e.to_string().contains("is a file, not a folder"), "{e}");
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
