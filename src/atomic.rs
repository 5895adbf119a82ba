//! Writing a user's file all at once: the model (`calib fit -o`), the plot
//! (`--plot`), the whole-run timings of `calib audit --write-timings`.
//!
//! The content goes to a temporary file in the target's own folder (a rename
//! across file systems would not be atomic), is flushed to disk with
//! `fsync`, and only then takes the target's name. A reader sees the old file
//! or the new one, never half of either; a write that fails or is killed
//! leaves the target as it was, and the temporary file is removed (by
//! [`tempfile`], on every path but a kill -9).
//!
//! The temporary file is created with mode 0666 less the umask, as a plain
//! `File::create` would be, not `tempfile`'s private 0600: a model file is
//! meant to be shared with a group like any other file the user writes.
//! Calib's own append-only timings files (probe) are not written here: each
//! row must reach the disk as soon as its unit ends, see
//! [`crate::timings::TimingsWriter`].

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What becomes of a file already at the target path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IfExists {
    /// Replace it (the model file, the plot: written again on each run).
    Replace,
    /// Leave it and fail with an I/O error of kind `AlreadyExists` (a
    /// timings file holds measurements that cannot be taken again).
    Keep,
}

/// The same error without the path some wrappers add to its message.
fn without_path(e: &std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(code) => std::io::Error::from_raw_os_error(code),
        None => std::io::Error::from(e.kind()),
    }
}

/// Writes `bytes` to `path` atomically (see the module docs).
pub(crate) fn write_file(path: &Path, bytes: &[u8], if_exists: IfExists) -> Result<()> {
    write_file_with(path, if_exists, |file, _| {
        file.write_all(bytes)
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
    })
}

/// Writes `path` atomically with `fill`, which gets the temporary file open
/// for writing and its path (for writers that open a path themselves, such as
/// the plot's encoders). The temporary path ends in the target's extension.
pub(crate) fn write_file_with(
    path: &Path,
    if_exists: IfExists,
    fill: impl FnOnce(&mut File, &Path) -> Result<()>,
) -> Result<()> {
    let failed = |e: std::io::Error| Error::io(format!("cannot write {}", path.display()), e);
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A bounded stem keeps the temporary name within NAME_MAX however long
    // the target's name is.
    let stem: String = name.chars().take(64).collect();
    let suffix = match path.extension() {
        Some(ext) => format!(".tmp.{}", ext.to_string_lossy()),
        None => ".tmp".to_string(),
    };
    // A folder that is not there is a path the user typed, not a failure of
    // the system: exit status 2. Any other trouble with it (permissions) is
    // the system's, reported below as the write fails.
    let folder_problem = match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist"),
        Ok(meta) if !meta.is_dir() => Some("is not a folder"),
        _ => None,
    };
    if let Some(problem) = folder_problem {
        return Err(Error::Refused(format!(
            "cannot write {}: {} {problem}; give a path in an existing folder",
            path.display(),
            dir.display()
        )));
    }
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{stem}."))
        .suffix(&suffix)
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        // tempfile's message names its temporary file, which the user never
        // asked for: the error's own description is enough beside the target.
        .map_err(|e| failed(without_path(&e)))?;
    let temp_path = temp.path().to_path_buf();
    fill(temp.as_file_mut(), &temp_path)?;
    // `fill` may have written through the path: the sync covers the inode,
    // whichever descriptor wrote to it.
    temp.as_file().sync_all().map_err(failed)?;
    match if_exists {
        IfExists::Replace => temp.persist(path).map_err(|e| failed(e.error))?,
        IfExists::Keep => temp.persist_noclobber(path).map_err(|e| failed(e.error))?,
    };
    // The new name reaches the disk with the folder. Some file systems refuse
    // to sync a folder; the file itself is safe by then.
    if let Ok(folder) = File::open(&dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_or_keeps_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.json");
        write_file(&path, b"one", IfExists::Replace).unwrap();
        write_file(&path, b"two", IfExists::Replace).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");

        let e = write_file(&path, b"three", IfExists::Keep).unwrap_err();
        assert!(
            matches!(&e, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists),
            "{e}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(names_in(dir.path()), ["model.json"]);
    }

    #[test]
    fn a_failed_fill_leaves_the_target_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cost.png");
        std::fs::write(&path, b"old").unwrap();
        let e = write_file_with(&path, IfExists::Replace, |file, temp| {
            assert!(temp.to_string_lossy().ends_with(".png"), "{temp:?}");
            file.write_all(b"half").unwrap();
            Err(Error::Failed("drawing failed".into()))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "drawing failed");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names_in(dir.path()), ["cost.png"]);
    }

    #[test]
    fn the_file_gets_the_umask_mode_not_a_private_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.json");
        write_file(&path, b"{}", IfExists::Replace).unwrap();
        let plain = dir.path().join("plain.json");
        std::fs::write(&plain, b"{}").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), mode(&plain));
    }
}
