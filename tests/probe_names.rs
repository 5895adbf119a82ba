//! `calib probe` names its file after the stratum, and a long stratum still
//! gives a valid, distinct file name (the slug is cut and ends with a hash).

mod common;

use std::path::{Path, PathBuf};

use common::{calib, files_in, read_timings_at, stderr};

/// Probes `stratum` into `out` with a one-unit command; returns its file.
fn probe(out: &Path, stratum: &str) -> PathBuf {
    let before = files_in(out);
    let result = calib()
        .env("SLURM_JOB_ID", "11")
        .args(["probe", "--out"])
        .arg(out)
        .args(["-s", stratum, "--", "sh", "-c", "echo CALIB_UNIT"])
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let new: Vec<PathBuf> = files_in(out)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    assert_eq!(new.len(), 1, "{new:?}");
    new.into_iter().next().unwrap()
}

/// The stratum recorded in `file`, in canonical text.
fn recorded_stratum(file: &Path) -> String {
    read_timings_at(file).runs[0].stratum.canonical()
}

/// The stratum part of a file name: everything before the first `__`.
fn slug_part(file: &Path) -> String {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    name.split("__").next().unwrap().to_string()
}

#[test]
fn labels_of_200_and_5000_characters_get_a_bounded_file_name() {
    let dir = tempfile::tempdir().unwrap();
    for n in [200, 5000] {
        let label = format!("k={}", "x".repeat(n));
        let file = probe(dir.path(), &label);
        let name = file.file_name().unwrap().len();
        assert!(name <= 255, "{n}: a name of {name} bytes");
        assert!(slug_part(&file).starts_with("k-xxxx"), "{}", file.display());
        assert_eq!(
            recorded_stratum(&file),
            label,
            "the rows keep the whole label"
        );
    }
}

#[test]
fn long_labels_sharing_a_200_character_beginning_get_different_names() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = "y".repeat(200);
    let a = probe(dir.path(), &format!("k={prefix}a"));
    let b = probe(dir.path(), &format!("k={prefix}b"));
    assert_ne!(slug_part(&a), slug_part(&b));
    assert_eq!(recorded_stratum(&a), format!("k={prefix}a"));
    assert_eq!(recorded_stratum(&b), format!("k={prefix}b"));
}

#[test]
fn short_labels_keep_their_readable_name() {
    let dir = tempfile::tempdir().unwrap();
    let file = probe(dir.path(), "model=7B,dataset=Y");
    assert_eq!(slug_part(&file), "dataset-Y_model-7B");
}
