//! `calib fit` reads CSV only: a Parquet table, whether named `*.parquet`,
//! named otherwise, piped in or alone in a folder, is refused with exit 2, the
//! file named, and a command that converts it which pastes into a shell as
//! printed. The test bytes carry Parquet's leading and trailing magic `PAR1`
//! around bytes that are not CSV (a NUL), as a real Parquet file does.

mod common;

use std::path::Path;

use common::{output_with_stdin, stderr, stdout, write_arg};

const PARQUET_BYTES: &[u8] = b"PAR1\x15\x04\x15\x00\x00run\x00unit\x00PAR1";
const GOOD: &str = "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,20\nr1,d=a,3,30\n";

/// The conversion commands quoted in backticks in `message`, each split as a
/// POSIX shell would split it.
fn commands_in(message: &str) -> Vec<Vec<String>> {
    message
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|line| shlex::split(line).unwrap_or_else(|| panic!("not a shell line: {line}")))
        .collect()
}

/// Checks the refusal of `refused` (as the message names it) and that its
/// commands read `from` and write `to`.
fn assert_refused(out: &std::process::Output, refused: &str, from: &str, to: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(stdout(out).is_empty(), "{}", stdout(out));
    assert!(
        err.contains(&format!("{refused}: a Parquet table")),
        "{err}"
    );
    let commands = commands_in(&err);
    assert_eq!(commands.len(), 2, "{err}");
    let python = &commands[0];
    assert_eq!(python[..2], ["python3", "-c"], "{python:?}");
    assert!(
        python[2].contains(&format!("read_parquet('{from}')"))
            && python[2].contains(&format!("write_csv('{to}')")),
        "{python:?}"
    );
    let duckdb = &commands[1];
    assert_eq!(duckdb[..2], ["duckdb", "-c"], "{duckdb:?}");
    assert!(
        duckdb[2].contains(&format!("read_parquet('{from}')"))
            && duckdb[2].contains(&format!("TO '{to}'")),
        "{duckdb:?}"
    );
}

fn fit(paths: &[&Path]) -> std::process::Output {
    common::calib().arg("fit").args(paths).output().unwrap()
}

#[test]
fn a_parquet_file_is_refused_with_a_command_that_converts_it() {
    let dir = tempfile::tempdir().unwrap();
    let table = write_arg(dir.path(), "timings.parquet", PARQUET_BYTES);
    let csv = dir.path().join("timings.csv");
    let out = fit(&[Path::new(&table)]);
    assert_refused(&out, &table, &table, csv.to_str().unwrap());
}

#[test]
fn a_parquet_table_under_another_name_is_recognised_by_its_content() {
    let dir = tempfile::tempdir().unwrap();
    let table = write_arg(dir.path(), "timings.dat", PARQUET_BYTES);
    let csv = dir.path().join("timings.csv");
    let out = fit(&[Path::new(&table)]);
    assert_refused(&out, &table, &table, csv.to_str().unwrap());
    // Named `.csv`, converting it in place would overwrite it: the commands
    // use placeholders instead.
    let misnamed = write_arg(dir.path(), "really.csv", PARQUET_BYTES);
    let out = fit(&[Path::new(&misnamed)]);
    assert_refused(&out, &misnamed, "IN.parquet", "OUT.csv");
}

#[test]
fn a_parquet_table_on_stdin_is_refused() {
    let out = output_with_stdin(common::calib().args(["fit", "-"]), PARQUET_BYTES);
    assert_refused(&out, "<stdin>", "IN.parquet", "OUT.csv");
}

#[test]
fn a_name_that_needs_quoting_gets_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let table = write_arg(dir.path(), "it's here.parquet", PARQUET_BYTES);
    let out = fit(&[Path::new(&table)]);
    assert_refused(&out, &table, "IN.parquet", "OUT.csv");
}

#[test]
fn a_folder_of_parquet_tables_is_refused_and_csv_beside_them_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("timings");
    std::fs::create_dir(&sub).unwrap();
    let b = write_arg(&sub, "b.parquet", PARQUET_BYTES);
    let a = write_arg(&sub, "a.parquet", PARQUET_BYTES);
    let out = fit(&[&sub]);
    // The first in name order is the one named.
    let a_csv = sub.join("a.csv");
    assert_refused(&out, &a, &a, a_csv.to_str().unwrap());
    assert!(!stderr(&out).contains(&b), "{}", stderr(&out));
    // Once converted (the CSV beside the Parquet files), the folder fits: its
    // CSV files are what a folder contributes.
    std::fs::write(&a_csv, GOOD).unwrap();
    let out = fit(&[&sub]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("d=a"), "{}", stdout(&out));
}
