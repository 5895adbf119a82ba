//! Errors that name the fix: a timings table calib cannot read as it stands
//! gets a message that says which flag would read it.

mod common;

use std::path::Path;
use std::process::Output;

use common::stderr;

fn calib(args: &[&str]) -> Output {
    common::calib().args(args).output().unwrap()
}

fn fit_error(dir: &Path, content: &str) -> String {
    let path = dir.join("t.csv");
    std::fs::write(&path, content).unwrap();
    let out = calib(&["fit", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("t.csv, line "), "{err}");
    err
}

/// Per-unit durations (10, 12, 9 s) put in `elapsed_s` look like time going
/// backwards; the message points at --per-unit, and --per-unit reads them.
#[test]
fn durations_in_elapsed_s_suggest_per_unit() {
    let dir = tempfile::tempdir().unwrap();
    let table = "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,12\nr1,d=a,3,9\n\
                 r2,d=a,1,11\nr2,d=a,2,12\nr2,d=a,3,10\n";
    let err = fit_error(dir.path(), table);
    assert!(err.contains("goes backwards"), "{err}");
    assert!(err.contains("--per-unit"), "{err}");
    let path = dir.path().join("t.csv");
    let out = calib(&["fit", path.to_str().unwrap(), "--per-unit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A foreign table (`run, stratum, epoch, seconds`): the message suggests the
/// flags that name its columns, and those flags read it.
#[test]
fn foreign_column_names_suggest_unit_col_and_time_col() {
    let dir = tempfile::tempdir().unwrap();
    let table = "run,stratum,epoch,seconds\nr1,d=a,1,10\nr1,d=a,2,20\nr1,d=a,3,30\n\
                 r2,d=a,1,11\nr2,d=a,2,22\nr2,d=a,3,33\n";
    let err = fit_error(dir.path(), table);
    assert!(err.contains("found: run, stratum, epoch, seconds"), "{err}");
    assert!(err.contains("--unit-col epoch --time-col seconds"), "{err}");
    let path = dir.path().join("t.csv");
    let suggested = ["--unit-col", "epoch", "--time-col", "seconds"];
    let mut args = vec!["fit", path.to_str().unwrap()];
    args.extend(suggested);
    let out = calib(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Only the missing columns get a flag, and the guess follows the header's
/// own spelling (`Generation`, `wall_time_s`).
#[test]
fn the_suggestion_names_only_missing_columns_in_their_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let err = fit_error(
        dir.path(),
        "run,stratum,Generation,elapsed_s\nr1,d=a,1,10\n",
    );
    assert!(err.contains("`calib fit --unit-col Generation`"), "{err}");
    assert!(!err.contains("--time-col"), "{err}");
    let err = fit_error(dir.path(), "seed,stratum,unit,wall_time_s\nr1,d=a,1,10\n");
    assert!(
        err.contains("--run-col seed --time-col wall_time_s"),
        "{err}"
    );
}

/// No column that looks like a candidate: no guess, just what was found.
#[test]
fn no_candidate_no_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let err = fit_error(dir.path(), "run,stratum,a,b\nr1,d=a,1,10\n");
    assert!(err.contains("found: run, stratum, a, b"), "{err}");
    assert!(!err.contains("calib fit --"), "{err}");
}

/// Times since the run's start read with --per-unit rise at every unit of
/// every run: a warning names --per-unit; durations under noise, which fall
/// now and then, get none.
#[test]
fn cumulative_times_read_per_unit_are_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    let mut table = String::from("run,stratum,unit,elapsed_s\n");
    for r in 1..=2 {
        for u in 1..=6 {
            table.push_str(&format!("r{r},d=a,{u},{}\n", 10 * u + r));
        }
    }
    std::fs::write(&path, &table).unwrap();
    let out = calib(&["fit", path.to_str().unwrap(), "--per-unit"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("leave out --per-unit"),
        "{}",
        stderr(&out)
    );
    std::fs::write(
        &path,
        "run,stratum,unit,elapsed_s\nr1,d=a,1,10\nr1,d=a,2,12\nr1,d=a,3,9\nr1,d=a,4,11\nr1,d=a,5,10\n",
    )
    .unwrap();
    let out = calib(&["fit", path.to_str().unwrap(), "--per-unit"]);
    assert!(
        !stderr(&out).contains("leave out --per-unit"),
        "{}",
        stderr(&out)
    );
}

/// A time column named for milliseconds is said to be read as seconds.
#[test]
fn a_time_column_named_for_milliseconds_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    std::fs::write(
        &path,
        "run,stratum,unit,elapsed_ms\nr1,d=a,1,10000\nr1,d=a,2,20000\nr1,d=a,3,30000\n",
    )
    .unwrap();
    let out = calib(&["fit", path.to_str().unwrap(), "--time-col", "elapsed_ms"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`elapsed_ms` is named as milliseconds"),
        "{}",
        stderr(&out)
    );
}
