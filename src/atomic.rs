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
//! The rename replaces whatever has the target's name, so the target is
//! looked at first. A symbolic link is written through: the content goes to
//! the file its chain of links finally names (the temporary file beside that
//! file, on its file system), and the link stays a link, as it would under
//! `File::create`. A target that is there but is not a regular file (a
//! folder, a FIFO, a device, a socket) is refused as bad input and nothing is
//! written: the rename would put a file in place of the pipe or device node
//! the user named, and over a folder it fails with a bare "Is a directory".
//! The look and the rename are two steps; this guards against a mistyped
//! path, not against another process swapping the target in between.
//!
//! The temporary file is created with mode 0666 less the umask, as a plain
//! `File::create` would be, not `tempfile`'s private 0600: a model file is
//! meant to be shared with a group like any other file the user writes.
//! A command that writes several new files (`calib budget --script-dir`,
//! `calib stage`) writes them through [`CreatedFiles`]: when a later one
//! fails, the ones it wrote before are removed again, and only those.
//!
//! Calib's own append-only timings files (probe) are not written here: each
//! row must reach the disk as soon as its unit ends, see
//! [`crate::timings::TimingsWriter`].

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, Origin, Result};

/// What becomes of a file already at the target path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IfExists {
    /// Replace it (the model file, the plot: written again on each run).
    Replace,
    /// Leave it and fail with an I/O error of kind `AlreadyExists` (a
    /// timings file holds measurements that cannot be taken again), whatever
    /// kind of file it is.
    Keep,
}

/// How many symbolic links a path may pass through, as Linux's MAXSYMLINKS:
/// past that the chain is taken for a loop.
const MAX_LINKS: usize = 40;

/// Where a write to `path` lands: `path` itself, or, when it is a symbolic
/// link, the path its chain of links finally names (which may not exist yet:
/// a link made ahead of the file). A relative link is read from the link's
/// own folder, as the system reads it. A path that cannot be looked at is
/// returned as it is: the write then fails on it and says why.
pub(crate) fn write_target(path: &Path) -> Result<PathBuf> {
    let mut target = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&target).map_err(|e| {
                    Error::io(format!("cannot read the link {}", target.display()), e)
                })?;
                // Joined, not normalised: `..` after a linked folder is the
                // parent of where the link leads, which only the system knows.
                target = match target.parent() {
                    Some(folder) if link.is_relative() => folder.join(link),
                    _ => link,
                };
            }
            _ => return Ok(target),
        }
    }
    Err(Error::input(
        Origin::file(path),
        None,
        format!("more than {MAX_LINKS} symbolic links in a row (a loop?); expected a regular file or a new file"),
    ))
}

/// Whether writing `a` and writing `b` would land on one file (`calib fit
/// mine.csv -o mine.csv`, `-o m.svg --plot ./m.svg`). Paths that are there
/// are compared as files (device and inode), so a path, a link to it and its
/// full path are one. Paths not there yet are compared by where they would
/// be written: the same name in the same folder (as a file), after their
/// links are followed, so `./m.svg`, `m.svg` and a link made ahead of it are
/// one too.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    match (id(a), id(b)) {
        (Some(a), Some(b)) => a == b,
        (None, None) => {
            let (Ok(a), Ok(b)) = (write_target(a), write_target(b)) else {
                return a == b;
            };
            let (folder_a, folder_b) = (folder_of(&a), folder_of(&b));
            let same_folder = match (id(&folder_a), id(&folder_b)) {
                (Some(x), Some(y)) => x == y,
                _ => folder_a == folder_b,
            };
            same_folder && a.file_name() == b.file_name()
        }
        _ => false,
    }
}

/// What a file that is there but not a regular file is, for messages.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a folder"
    } else if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
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
    write_bytes(path, bytes, if_exists).map(|_| ())
}

/// [`write_file`], returning the path the file was written at (where its
/// links led).
fn write_bytes(path: &Path, bytes: &[u8], if_exists: IfExists) -> Result<PathBuf> {
    write_at_target(path, if_exists, |file, _| {
        file.write_all(bytes)
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
    })
}

/// The new files of one command that writes several (`calib budget
/// --script-dir`, `calib stage`), removed again when the command fails before
/// it [commits](CreatedFiles::commit) them: a failed run leaves no part of
/// its files behind, so its retry is not refused for files that only the
/// failure left (a job script, a trigger whose smoke was never written).
///
/// Each file is written with [`IfExists::Keep`], so a file written here did
/// not exist before: only those are removed, never a file that was there.
/// The removal happens on drop (an early return with `?`, a panic); a kill
/// -9 leaves them.
#[derive(Debug, Default)]
pub(crate) struct CreatedFiles {
    /// Where each file was written (its links followed), in order.
    written: Vec<PathBuf>,
    /// The folders made for them that were not there, outermost first.
    folders: Vec<PathBuf>,
}

impl CreatedFiles {
    /// Makes the folder `dir` and those above it that are missing, as
    /// `create_dir_all` does, and keeps the ones it made: on failure they are
    /// removed again with the files, where they are left empty.
    pub(crate) fn create_folder(&mut self, dir: &Path) -> std::io::Result<()> {
        let missing: Vec<&Path> = dir
            .ancestors()
            .filter(|d| !d.as_os_str().is_empty())
            .take_while(|d| std::fs::symlink_metadata(d).is_err())
            .collect();
        for folder in missing.into_iter().rev() {
            match std::fs::create_dir(folder) {
                Ok(()) => self.folders.push(folder.to_path_buf()),
                // Made by someone else meanwhile: theirs, not ours to remove.
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && folder.is_dir() => {}
                Err(e) => return Err(e),
            }
        }
        // What was there may be a file, or a link to nothing.
        std::fs::create_dir_all(dir)
    }

    /// Writes `bytes` to the new file `path` atomically; when something is
    /// there already (or appeared since the caller looked), fails with the
    /// caller's refusal, `exists()`, and leaves it as it is.
    pub(crate) fn write_new(
        &mut self,
        path: &Path,
        bytes: &[u8],
        exists: impl FnOnce() -> Error,
    ) -> Result<()> {
        let target = write_bytes(path, bytes, IfExists::Keep).map_err(|e| match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
                exists()
            }
            other => other,
        })?;
        self.written.push(target);
        Ok(())
    }

    /// Everything the command writes has been written: its files stay.
    pub(crate) fn commit(mut self) {
        self.written.clear();
        self.folders.clear();
    }
}

impl Drop for CreatedFiles {
    fn drop(&mut self) {
        for path in self.written.drain(..).rev() {
            // The error that ended the command is the one reported; a file
            // that cannot be removed is named, since it would refuse the retry.
            if let Err(e) = std::fs::remove_file(&path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    crate::output::warn(format_args!(
                        "{}: written before the failure and cannot be removed ({e}); remove it before running again",
                        path.display()
                    ));
                }
            }
        }
        // Innermost first; a folder that holds anything else stays.
        for folder in self.folders.drain(..).rev() {
            let _ = std::fs::remove_dir(&folder);
        }
    }
}

/// Writes `path` atomically with `fill`, which gets the temporary file open
/// for writing and its path (for writers that open a path themselves, such as
/// the plot's encoders). The temporary path ends in the target's extension.
pub(crate) fn write_file_with(
    path: &Path,
    if_exists: IfExists,
    fill: impl FnOnce(&mut File, &Path) -> Result<()>,
) -> Result<()> {
    write_at_target(path, if_exists, fill).map(|_| ())
}

/// [`write_file_with`], returning the path the file was written at.
fn write_at_target(
    path: &Path,
    if_exists: IfExists,
    fill: impl FnOnce(&mut File, &Path) -> Result<()>,
) -> Result<PathBuf> {
    let (target, shown, dir, replaced_mode) = checked_target(path, if_exists)?;
    let failed = |e: std::io::Error| Error::io(format!("cannot write {shown}"), e);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A bounded stem keeps the temporary name within NAME_MAX however long
    // the target's name is.
    let stem: String = name.chars().take(64).collect();
    // The extension of the name the user gave, which chose the format (a
    // plot's encoder goes by the temporary file's extension).
    let suffix = match path.extension() {
        Some(ext) => format!(".tmp.{}", ext.to_string_lossy()),
        None => ".tmp".to_string(),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{stem}."))
        .suffix(&suffix)
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        // tempfile's message names its temporary file, which the user never
        // asked for: the error's own description is enough beside the target.
        .map_err(|e| failed(without_path(&e)))?;
    // A file replaced keeps its mode (a model shared with a group stays so).
    if let Some(mode) = replaced_mode {
        temp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(failed)?;
    }
    let temp_path = temp.path().to_path_buf();
    fill(temp.as_file_mut(), &temp_path)?;
    // `fill` may have written through the path: the sync covers the inode,
    // whichever descriptor wrote to it.
    temp.as_file().sync_all().map_err(failed)?;
    match if_exists {
        IfExists::Replace => temp.persist(&target).map_err(|e| failed(e.error))?,
        IfExists::Keep => temp
            .persist_noclobber(&target)
            .map_err(|e| failed(e.error))?,
    };
    // The new name reaches the disk with the folder. Some file systems refuse
    // to sync a folder; the file itself is safe by then.
    if let Ok(folder) = File::open(&dir) {
        let _ = folder.sync_all();
    }
    Ok(target)
}

/// Refuses `folder`, given as `flag`, where a file is at its path: it is
/// to hold `holds` (made if missing), and making it would fail with a bare
/// "File exists".
pub(crate) fn refuse_file_as_folder(folder: &Path, flag: &str, holds: &str) -> Result<()> {
    if folder.exists() && !folder.is_dir() {
        return Err(Error::input(
            Origin::Argument(flag.into()),
            None,
            format!(
                "{} is a file, not a folder; expected the folder for {holds} (made if missing)",
                folder.display()
            ),
        ));
    }
    Ok(())
}

/// Refuses, as [`write_file_with`] would, a path that cannot be written with
/// `IfExists::Replace`: a folder that is not there, a target that is not a
/// regular file. For a command that writes more than one file, to look at a
/// later one before it writes the first (`calib fit -o --plot`, `calib budget
/// --script-dir --plot`): bad input then leaves every file as it was.
pub(crate) fn check_replaceable(path: &Path) -> Result<()> {
    checked_target(path, IfExists::Replace).map(|_| ())
}

/// What [`checked_target`] found: where the write lands, that path as
/// messages show it, its folder, and the mode of the file it replaces
/// (`IfExists::Replace`, where one is there; set-id bits left out, as a file
/// calib writes is no program).
type CheckedTarget = (PathBuf, String, PathBuf, Option<u32>);

/// The checks of [`write_file_with`] before it writes: where the write lands
/// (links followed), that path as messages show it, and its folder.
fn checked_target(path: &Path, if_exists: IfExists) -> Result<CheckedTarget> {
    let target = write_target(path)?;
    // Messages name the path as the user gave it, and where a link led.
    let shown = if target == path {
        path.display().to_string()
    } else {
        format!("{} (a link to {})", path.display(), target.display())
    };
    // Keep leaves whatever is there (the rename without replacing fails with
    // AlreadyExists), so only Replace needs to look at it.
    let mut replaced_mode = None;
    if let Some(meta) = std::fs::symlink_metadata(&target)
        .ok()
        .filter(|_| if_exists == IfExists::Replace)
    {
        if !meta.is_file() {
            let kind = kind_of(meta.file_type());
            let what = if target == path {
                kind.to_string()
            } else {
                format!("a link to {}, {kind}", target.display())
            };
            return Err(Error::input(
                Origin::file(path),
                None,
                format!("is {what}; expected a regular file or a new file"),
            ));
        }
        // A file its owner made read-only (chmod a-w) is one they meant to
        // keep: the rename would replace it all the same, so it is refused.
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o222 == 0 {
            return Err(Error::input(
                Origin::file(path),
                None,
                format!(
                    "write-protected (mode {mode:o}): calib does not replace it; \
                     chmod u+w it, or give another path"
                ),
            ));
        }
        replaced_mode = Some(mode);
    }
    let dir = folder_of(&target);
    // A folder that is not there is a path the user typed, not a failure of
    // the system: exit status 2. Any other trouble with it (permissions) is
    // the system's, reported as the write fails.
    let folder_problem = match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist"),
        Ok(meta) if !meta.is_dir() => Some("is not a folder"),
        _ => None,
    };
    if let Some(problem) = folder_problem {
        return Err(Error::Refused(format!(
            "cannot write {shown}: {} {problem}; give a path in an existing folder",
            dir.display()
        )));
    }
    Ok((target, shown, dir, replaced_mode))
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

    // A replaced file keeps its mode; one made read-only is not replaced.
    #[test]
    fn a_replaced_file_keeps_its_mode_and_a_read_only_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.json");
        write_file(&path, b"one", IfExists::Replace).unwrap();
        let set =
            |mode| std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let mode = || std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        set(0o640);
        write_file(&path, b"two", IfExists::Replace).unwrap();
        assert_eq!(
            (std::fs::read(&path).unwrap(), mode()),
            (b"two".to_vec(), 0o640)
        );
        set(0o444);
        let e = write_file(&path, b"three", IfExists::Replace).unwrap_err();
        assert!(e.to_string().contains("write-protected"), "{e}");
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            (std::fs::read(&path).unwrap(), mode()),
            (b"two".to_vec(), 0o444)
        );
        assert_eq!(names_in(dir.path()), ["model.json"]);
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
    fn created_files_are_removed_unless_committed_and_only_they() {
        let dir = tempfile::tempdir().unwrap();
        let before = dir.path().join("before.sh");
        std::fs::write(&before, b"mine").unwrap();
        let there = || Error::Refused("there already".into());
        {
            let mut created = CreatedFiles::default();
            created
                .write_new(&dir.path().join("a.sh"), b"a", there)
                .unwrap();
            // A file that was there is not written, and not removed after.
            let e = created.write_new(&before, b"b", there).unwrap_err();
            assert!(
                matches!(&e, Error::Refused(m) if m == "there already"),
                "{e}"
            );
            assert_eq!(names_in(dir.path()), ["a.sh", "before.sh"]);
        }
        assert_eq!(names_in(dir.path()), ["before.sh"]);
        assert_eq!(std::fs::read(&before).unwrap(), b"mine");
        // Through a link made ahead of its file: the file goes, the link stays.
        std::os::unix::fs::symlink("real.sh", dir.path().join("link.sh")).unwrap();
        {
            let mut created = CreatedFiles::default();
            created
                .write_new(&dir.path().join("link.sh"), b"l", there)
                .unwrap();
            assert_eq!(names_in(dir.path()), ["before.sh", "link.sh", "real.sh"]);
        }
        assert_eq!(names_in(dir.path()), ["before.sh", "link.sh"]);
        let mut created = CreatedFiles::default();
        created
            .write_new(&dir.path().join("b.sh"), b"b", there)
            .unwrap();
        created.commit();
        assert_eq!(names_in(dir.path()), ["b.sh", "before.sh", "link.sh"]);
    }

    #[test]
    fn folders_made_for_files_are_removed_with_them_unless_committed() {
        let dir = tempfile::tempdir().unwrap();
        let there = || Error::Refused("there already".into());
        let deep = dir.path().join("jobs/x/y");
        {
            let mut created = CreatedFiles::default();
            created.create_folder(&deep).unwrap();
            created.write_new(&deep.join("a.sh"), b"a", there).unwrap();
            assert!(deep.join("a.sh").is_file());
        }
        assert!(
            names_in(dir.path()).is_empty(),
            "{:?}",
            names_in(dir.path())
        );
        // A folder that was there stays, and so does one that holds a file
        // calib did not write.
        std::fs::create_dir(dir.path().join("jobs")).unwrap();
        {
            let mut created = CreatedFiles::default();
            created.create_folder(&deep).unwrap();
            std::fs::write(dir.path().join("jobs/x/theirs"), b"t").unwrap();
            created.write_new(&deep.join("a.sh"), b"a", there).unwrap();
        }
        assert_eq!(names_in(&dir.path().join("jobs/x")), ["theirs"]);
        let mut created = CreatedFiles::default();
        created.create_folder(&deep).unwrap();
        created.write_new(&deep.join("b.sh"), b"b", there).unwrap();
        created.commit();
        assert_eq!(names_in(&deep), ["b.sh"]);
        // A file where a folder should be is an error, as for create_dir_all.
        std::fs::write(dir.path().join("file"), b"f").unwrap();
        let mut created = CreatedFiles::default();
        assert!(created.create_folder(&dir.path().join("file/sub")).is_err());
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

    #[test]
    fn a_symbolic_link_is_written_through_and_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        // Made ahead of its file, relative, and through a second link.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real/model.json", &link).unwrap();
        let outer = dir.path().join("outer.json");
        std::os::unix::fs::symlink("link.json", &outer).unwrap();
        for (path, bytes) in [(&link, b"one"), (&outer, b"two"), (&link, b"six")] {
            write_file(path, bytes, IfExists::Replace).unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
            assert!(std::fs::symlink_metadata(&outer).unwrap().is_symlink());
            assert_eq!(std::fs::read(real.join("model.json")).unwrap(), bytes);
        }
        assert_eq!(names_in(&real), ["model.json"]);
        assert_eq!(names_in(dir.path()), ["link.json", "outer.json", "real"]);
        // Keep keeps the file the link names.
        let e = write_file(&link, b"ten", IfExists::Keep).unwrap_err();
        assert!(
            matches!(&e, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists),
            "{e}"
        );
        assert_eq!(std::fs::read(real.join("model.json")).unwrap(), b"six");
    }

    #[test]
    fn a_loop_of_links_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("loop.json");
        std::os::unix::fs::symlink("loop.json", &link).unwrap();
        let e = write_file(&link, b"{}", IfExists::Replace).unwrap_err();
        assert!(matches!(e, Error::Input { .. }), "{e}");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }

    /// `write_file` on `path` is refused as bad input naming it and what was
    /// expected, and `path` is still there as it was, the folder unchanged.
    fn refused_as_not_regular(path: &Path, kind: &str) {
        let before = names_in(path.parent().unwrap());
        let e = write_file(path, b"{}", IfExists::Replace).unwrap_err();
        assert!(matches!(e, Error::Input { .. }), "{e}");
        assert_eq!(e.exit_code(), crate::error::EXIT_INPUT);
        let message = e.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains(kind), "{message}");
        assert!(
            message.contains("expected a regular file or a new file"),
            "{message}"
        );
        assert_eq!(names_in(path.parent().unwrap()), before);
    }

    #[test]
    fn a_fifo_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        refused_as_not_regular(&fifo, "a FIFO");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        // Through a link too; the link and the FIFO stay.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        refused_as_not_regular(&link, "a FIFO");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }

    #[test]
    fn a_socket_is_refused_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("sock.json");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        refused_as_not_regular(&socket, "a socket");
        assert!(std::fs::symlink_metadata(&socket)
            .unwrap()
            .file_type()
            .is_socket());
    }

    #[test]
    fn a_folder_is_refused_as_bad_input_and_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("out");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("kept.txt"), b"kept").unwrap();
        refused_as_not_regular(&folder, "a folder");
        assert_eq!(names_in(&folder), ["kept.txt"]);
        // Keep leaves it too, as it leaves any file that is there.
        let e = write_file(&folder, b"{}", IfExists::Keep).unwrap_err();
        assert!(
            matches!(&e, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists),
            "{e}"
        );
    }

    #[test]
    fn same_file_sees_one_file_under_several_names_there_or_not_yet() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("real")).unwrap();
        std::os::unix::fs::symlink("real/fig.svg", d.join("link.svg")).unwrap();
        std::os::unix::fs::symlink("real", d.join("alias")).unwrap();
        // Not there yet: by folder and name, links followed.
        assert!(same_file(
            &d.join("real/fig.svg"),
            &d.join("./real/fig.svg")
        ));
        assert!(same_file(&d.join("link.svg"), &d.join("real/fig.svg")));
        assert!(same_file(
            &d.join("alias/fig.svg"),
            &d.join("real//fig.svg")
        ));
        assert!(!same_file(&d.join("real/fig.svg"), &d.join("real/fig.png")));
        assert!(!same_file(&d.join("real/fig.svg"), &d.join("fig.svg")));
        // There: as files.
        std::fs::write(d.join("real/fig.svg"), b"<svg/>").unwrap();
        assert!(same_file(&d.join("link.svg"), &d.join("alias/fig.svg")));
        assert!(!same_file(
            &d.join("real/fig.svg"),
            &d.join("real/other.svg")
        ));
        std::fs::write(d.join("real/other.svg"), b"<svg/>").unwrap();
        assert!(!same_file(
            &d.join("real/fig.svg"),
            &d.join("real/other.svg")
        ));
    }
}
