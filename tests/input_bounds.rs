//! Bad and absurd input, end to end: every case ends promptly with exit status
//! 2 and a message naming the file and line (or with a warning when the rest
//! of the input is sound), never with a wrapped number, a figure hundreds of
//! digits long, a blocked read or exhausted memory.
//!
//! Covers issue 11, defects 6 (unit numbers: bounds and gaps), 7 (non-finite
//! and absurd values in fit and budget alike), 8 (the torn last line), 9
//! (line and input bounds, FIFOs, devices) and 10 (smaller checks).

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use calib::slurm::time::{
    parse_elapsed, parse_printed_limit, parse_printed_time, parse_time, SlurmTime,
};
use calib::timings::{read_timings, IngestOptions, IngestWarning};
use common::{at_repo_file, output_within, stderr, stdout, write_arg};

const HEADER: &str = "run,stratum,unit,elapsed_s";

/// Runs calib with no stdin; fails the test if it has not ended within 20 s.
fn calib(args: &[&str]) -> Output {
    output_within(common::calib().args(args), Duration::from_secs(20))
}

/// Asserts exit 2 and that stderr has `file, line N` and every fragment.
fn refused(out: &Output, at: &str, fragments: &[&str]) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(at), "`{at}` missing from: {err}");
    for f in fragments {
        assert!(err.contains(f), "`{f}` missing from: {err}");
    }
    err
}

/// The longest run of decimal digits in a text.
/// The model `calib fit -o` makes of the bundled data/spread-20.csv, written
/// to `name` in `dir`.
fn bundled_model(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    let model = dir.path().join(name);
    let out = calib(&[
        "fit",
        common::repo_file("data/spread-20.csv").to_str().unwrap(),
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    model
}

fn longest_number(s: &str) -> usize {
    s.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------
// 6. Unit numbers: bounds, and gaps without memory per unit.
// ---------------------------------------------------------------------------

#[test]
fn a_unit_near_2_pow_64_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,18446744073709551615,20\n"),
    );
    let out = calib(&["fit", &f]);
    refused(
        &out,
        "t.csv, line 3",
        &["18446744073709551615", "1000000000"],
    );
}

#[test]
fn gaps_in_unit_numbers_are_fitted_and_reported_naming_run_and_units() {
    // Two rows at units 9,999,999 and 10,000,000 once made the fit allocate a
    // table of 10^7 entries (400 MB); r1 is complete.
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!(
            "{HEADER}\nr1,d=a,1,1\nr1,d=a,2,2\nr2,d=a,9999999,99999.99\nr2,d=a,10000000,100000\n"
        ),
    );
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("t.csv, line 4") && err.contains("run `r2`") && err.contains("1-9999998"),
        "{err}"
    );
    assert!(!err.contains("run `r1`"), "r1 has no gap: {err}");
}

#[test]
fn an_interval_across_a_gap_counts_as_the_units_it_covers() {
    // 2 s per unit, recorded at units 1, 5, 10, 20, 30 only: the fitted rate is
    // the true one, since each interval is weighed as the units it covers.
    let dir = tempfile::tempdir().unwrap();
    let mut csv = format!("{HEADER}\n");
    for run in ["r1", "r2"] {
        for unit in [1u64, 5, 10, 20, 30] {
            csv.push_str(&format!("{run},d=a,{unit},{}\n", 2 * unit));
        }
    }
    let path = PathBuf::from(write_arg(dir.path(), "t.csv", &csv));
    let timings = read_timings(&[path], &IngestOptions::default()).unwrap();
    let gaps: Vec<&IngestWarning> = timings
        .warnings
        .iter()
        .filter(|w| matches!(w, IngestWarning::UnitGaps { .. }))
        .collect();
    assert_eq!(gaps.len(), 2, "{:?}", timings.warnings);
    match gaps[0] {
        IngestWarning::UnitGaps {
            run,
            first_missing,
            gaps,
            units,
            ..
        } => {
            assert_eq!(run, "r1");
            assert_eq!(first_missing, &[(2, 4), (6, 9), (11, 19)]);
            // 2-4, 6-9, 11-19, 21-29: 3 + 4 + 9 + 9 units.
            assert_eq!((*gaps, *units), (4, 25));
        }
        other => panic!("{other:?}"),
    }
    let report = calib::fit::fit_timings(&timings, &calib::fit::FitOptions::default()).unwrap();
    let rate = report.model.strata[0].unit_cost_s(30);
    assert!((rate - 2.0).abs() < 1e-6, "per-unit cost {rate}");
}

#[test]
fn runs_with_gaps_beyond_ten_are_counted_not_listed() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = format!("{HEADER}\n");
    for run in 0..13 {
        csv.push_str(&format!("r{run},d=a,1,1\nr{run},d=a,3,3\n"));
    }
    let path = PathBuf::from(write_arg(dir.path(), "t.csv", &csv));
    let timings = read_timings(&[path], &IngestOptions::default()).unwrap();
    let listed = timings
        .warnings
        .iter()
        .filter(|w| matches!(w, IngestWarning::UnitGaps { .. }))
        .count();
    assert_eq!(listed, 10);
    assert!(timings
        .warnings
        .contains(&IngestWarning::MoreRunsWithGaps { runs: 3 }));
}

// ---------------------------------------------------------------------------
// 7. Non-finite and absurd values: exit 2 in fit and in budget alike.
// ---------------------------------------------------------------------------

#[test]
fn non_finite_and_absurd_times_are_bad_input_in_fit_and_budget() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "elapsed_s",
            "inf",
            format!("{HEADER}\nr1,d=a,1,1\nr1,d=a,2,inf\nr1,d=a,3,3\n"),
        ),
        (
            "elapsed_s",
            "NaN",
            format!("{HEADER}\nr1,d=a,1,1\nr1,d=a,2,NaN\nr1,d=a,3,3\n"),
        ),
        (
            "elapsed_s",
            "1e300",
            format!("{HEADER}\nr1,d=a,1,1\nr1,d=a,2,1e300\nr1,d=a,3,3\n"),
        ),
        // Just over 10 years.
        (
            "elapsed_s",
            "315576001",
            format!("{HEADER}\nr1,d=a,1,1\nr1,d=a,2,315576001\nr1,d=a,3,315576002\n"),
        ),
        (
            "unit_s",
            "inf",
            format!("{HEADER},unit_s\nr1,d=a,1,1,1\nr1,d=a,2,2,inf\nr1,d=a,3,3,1\n"),
        ),
    ];
    for (column, value, csv) in cases {
        let f = write_arg(dir.path(), "t.csv", &csv);
        let fit = calib(&["fit", &f]);
        let err = refused(&fit, "t.csv, line 3", &[column, value]);
        assert!(err.contains("10 years"), "{err}");
        let budget = calib(&["budget", &f, "--units", "100", "--partitions", "p 1:00:00"]);
        let err = refused(&budget, "t.csv, line 3", &[column, value]);
        assert!(longest_number(&stdout(&budget)) < 30, "{err}");
    }
    // A value of 400 digits is not repeated whole in the message.
    let huge = format!("1{}", "0".repeat(399));
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,1\nr1,d=a,2,{huge}\nr1,d=a,3,3\n"),
    );
    for args in [
        vec!["fit", &f],
        vec!["budget", &f, "--units", "9", "--partitions", "p 1:00:00"],
    ] {
        let err = refused(&calib(&args), "t.csv, line 3", &["(400 characters)"]);
        assert!(longest_number(&err) < 50, "{err}");
    }
    // Ten years exactly is the bound, and is kept.
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,315576000\n"),
    );
    assert_eq!(calib(&["fit", &f]).status.code(), Some(0));
}

#[test]
fn per_unit_durations_adding_up_past_the_bound_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,200000000\nr1,d=a,2,200000000\nr1,d=a,3,1\n"),
    );
    let out = calib(&["fit", &f, "--per-unit"]);
    refused(&out, "t.csv, line 3", &["add up", "unit 2"]);
}

#[test]
fn the_largest_accepted_values_print_no_number_of_hundreds_of_digits() {
    // Ten years per unit, 10^9 units, 4,000,001 tasks (the most one array
    // holds): every bound at once.
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,315576000\n"),
    );
    for partitions in ["p 1:00:00", "p infinite"] {
        for format in ["table", "json", "sbatch"] {
            let out = calib(&[
                "budget",
                &f,
                "--units",
                "1000000000",
                "--tasks",
                "4000001",
                "--partitions",
                partitions,
                "--format",
                format,
            ]);
            let all = format!("{}{}", stdout(&out), stderr(&out));
            assert_eq!(out.status.code(), Some(3), "{all}");
            // The over_cap segment length is a --time value, never a
            // formatted infinity (17 digits of days before).
            assert!(longest_number(&all) < 25, "{partitions} {format}: {all}");
        }
    }
    let out = calib(&["fit", &f, "--units", "18446744073709551615"]);
    refused(&out, "--units", &["1000000000"]);
    let out = calib(&["fit", &f, "--units", "1000000000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(longest_number(&stdout(&out)) < 25, "{}", stdout(&out));
}

#[test]
fn grid_values_that_are_not_counts_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let model_src = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\n"),
    );
    for value in ["inf", "NaN", "1e300", "-3", "1000000001"] {
        let grid = write_arg(
            dir.path(),
            "grid.csv",
            format!("stratum,units\nd=a,{value}\n"),
        );
        let out = calib(&[
            "budget",
            &model_src,
            "--grid",
            &grid,
            "--partitions",
            "p 1:00:00",
        ]);
        refused(&out, "grid.csv, line 2", &[value]);
    }
}

// ---------------------------------------------------------------------------
// 8. The torn last line: any last line without its line break is skipped.
// ---------------------------------------------------------------------------

#[test]
fn an_unterminated_last_line_is_skipped_whatever_it_parses_to() {
    let dir = tempfile::tempdir().unwrap();
    // `25` cut to `2`: read, it would go backwards (an error before).
    let backwards = format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\nr1,d=a,3,2");
    let f = write_arg(dir.path(), "t.csv", &backwards);
    let out = calib(&["fit", &f]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("t.csv, line 4") && err.contains("cut short"),
        "{err}"
    );

    // `3000` cut to `300`: it parses and is plausible; kept silently before.
    let plausible = format!("{HEADER}\nr1,d=a,1,100\nr1,d=a,2,200\nr1,d=a,3,300");
    let path = PathBuf::from(write_arg(dir.path(), "u.csv", &plausible));
    let t = read_timings(std::slice::from_ref(&path), &IngestOptions::default()).unwrap();
    assert_eq!(t.runs[0].points, [(1, 100.0), (2, 200.0)]);
    assert!(matches!(
        t.warnings.as_slice(),
        [IngestWarning::TornLastLine { line: 4, .. }]
    ));

    // With its line break (or the `\r` of a CRLF one) the last row is kept.
    for ending in ["\n", "\r\n", "\r"] {
        let whole = format!("{plausible}{ending}");
        let path = PathBuf::from(write_arg(dir.path(), "v.csv", &whole));
        let t = read_timings(&[path], &IngestOptions::default()).unwrap();
        assert_eq!(t.runs[0].points.len(), 3, "{ending:?}");
        assert!(t.warnings.is_empty(), "{ending:?}: {:?}", t.warnings);
    }
}

// ---------------------------------------------------------------------------
// 9. Memory and blocking.
// ---------------------------------------------------------------------------

#[test]
fn a_fifo_in_a_timings_folder_is_skipped_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    write_arg(
        dir.path(),
        "a.csv",
        format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\n"),
    );
    let fifo = dir.path().join("b.csv");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out = calib(&["fit", dir.path().to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("b.csv") && err.contains("not a regular file"),
        "{err}"
    );
    assert!(stdout(&out).contains("d=a"));
}

#[test]
fn dev_zero_ends_promptly_as_bad_input_everywhere() {
    let out = calib(&["fit", "/dev/zero"]);
    refused(&out, "/dev/zero, line 1", &["a NUL byte: not a text file"]);
    let out = calib(&[
        "budget",
        "/dev/zero",
        "--units",
        "10",
        "--partitions",
        "p 1:00:00",
    ]);
    refused(&out, "/dev/zero, line 1", &["a NUL byte: not a text file"]);
    let out = calib(&["budget", "--model", "x", "--partitions", "@/dev/zero"]);
    refused(&out, "/dev/zero, line 1", &["a NUL byte: not a text file"]);
    let out = calib(&["audit", "@/dev/zero"]);
    refused(&out, "/dev/zero, line 1", &["a NUL byte: not a text file"]);
}

/// A binary stream is refused at its first NUL byte, naming the line, in
/// every command that reads text: it was read up to the 4 GiB bound first
/// (`grid show /dev/urandom`: 25 s and 4.2 GB, then "more than 4 GiB").
#[test]
fn a_binary_stream_ends_at_its_first_nul_byte_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let model = bundled_model(&dir, "m.json");
    let model = model.to_str().unwrap();
    let commands: [&[&str]; 8] = [
        &["grid", "show", "/dev/urandom"],
        &["fit", "/dev/urandom"],
        &["audit", "@/dev/urandom"],
        &[
            "budget",
            "--model",
            model,
            "--units",
            "1",
            "--partitions",
            "@/dev/urandom",
        ],
        &[
            "budget",
            "--model",
            "/dev/urandom",
            "--units",
            "1",
            "-p",
            "p 1:00:00",
        ],
        &[
            "budget",
            "--model",
            model,
            "--grid",
            "/dev/urandom",
            "-p",
            "p 1:00:00",
        ],
        &["stage", "check", "/dev/urandom", "--sacct", "x"],
        &[
            "resume",
            "--model",
            model,
            "--timings",
            "/dev/urandom",
            "--sacct",
            "x",
            "--units",
            "10",
            "-p",
            "p 1:00:00",
        ],
    ];
    for args in commands {
        let out = output_within(common::calib().args(args), Duration::from_secs(5));
        let err = refused(
            &out,
            "/dev/urandom, line ",
            &["a NUL byte: not a text file"],
        );
        assert!(err.lines().count() == 1, "{args:?}: {err}");
    }
}

/// An input small by nature has a bound fitted to it: a partition list
/// ends at 16 MiB (an endless `yes` was read to 4 GiB), a grid at 64 MiB.
#[test]
fn small_inputs_end_at_bounds_fitted_to_them() {
    let feed = |args: &[&str], total: usize| fed_a_stream(args, b"y\n".repeat(1 << 15), total);
    let out = feed(
        &[
            "budget",
            "--model",
            "m.json",
            "--units",
            "1",
            "--partitions",
            "-",
        ],
        64 << 20,
    );
    refused(&out, "<stdin>", &["more than 16 MiB", "partition list"]);
    let out = feed(&["grid", "show", "/dev/stdin"], 128 << 20);
    refused(&out, "/dev/stdin", &["more than 64 MiB"]);
}

/// A table whose end is a run of NUL bytes (a crash that left it
/// zero-filled, a file pre-allocated) is refused at the line of the first,
/// small (read) or large (mapped) alike: the small one was skipped as a torn
/// last line, with a warning that every earlier row was kept.
#[test]
fn a_table_ending_in_nul_bytes_is_refused_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut small = format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\n").into_bytes();
    small.extend([0u8; 4096]);
    let f = write_arg(dir.path(), "small.csv", &small);
    refused(&calib(&["fit", &f]), "small.csv, line 4", &["a NUL byte"]);
    // Over 1 MiB, mapped: 80,000 rows, then the zeros.
    let mut large = format!("{HEADER}\n");
    for unit in 1..=80_000 {
        large.push_str(&format!("r1,d=a,{unit},{}\n", unit * 10));
    }
    let mut large = large.into_bytes();
    assert!(large.len() > 1 << 20);
    large.extend([0u8; 4096]);
    let f = write_arg(dir.path(), "large.csv", &large);
    refused(
        &calib(&["fit", &f]),
        "large.csv, line 80002",
        &["a NUL byte"],
    );
    // And a NUL line inside either, before its rows are counted.
    let text = format!("{HEADER}\nr1,d=a,1,10\n\0\0\nr1,d=a,2,20\n");
    let f = write_arg(dir.path(), "mid.csv", &text);
    refused(&calib(&["fit", &f]), "mid.csv, line 3", &["a NUL byte"]);
}

#[test]
fn a_10_mb_single_line_sacct_text_is_refused() {
    // A header-like line of 5 million columns: it took 650 MB and 12 s to
    // read, then passed as an empty audit.
    let dir = tempfile::tempdir().unwrap();
    let mut line = String::from("JobID");
    while line.len() < 10_000_000 {
        line.push_str("|a");
    }
    line.push('\n');
    let f = write_arg(dir.path(), "sacct.txt", &line);
    let out = calib(&["audit", &format!("@{f}")]);
    refused(&out, "sacct.txt, line 1", &["longer than 1 MiB"]);
}

#[test]
fn a_long_line_in_a_timings_file_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(2 << 20);
    let f = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER},note\nr1,d=a,1,10,a\nr1,d=a,2,20,{long}\nr1,d=a,3,30,a\n"),
    );
    let out = calib(&["fit", &f]);
    refused(&out, "t.csv, line 3", &["longer than 1 MiB"]);
}

// ---------------------------------------------------------------------------
// 10. Smaller checks.
// ---------------------------------------------------------------------------

#[test]
fn no_unit_rows_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(dir.path(), "t.csv", format!("{HEADER}\n"));
    let out = calib(&["fit", &f]);
    let err = refused(&out, "t.csv", &["no unit rows"]);
    assert!(!err.contains("PATH"), "{err}");
}

#[test]
fn a_column_named_twice_is_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let f = write_arg(
        dir.path(),
        "t.csv",
        "run,stratum,unit,elapsed_s,unit\nr1,d=a,1,10,7\nr1,d=a,2,20,8\n",
    );
    let out = calib(&["fit", &f]);
    refused(&out, "t.csv, line 1", &["columns 3 and 5", "`unit`"]);
}

#[test]
fn the_line_named_is_the_bad_rows_after_crlf_line_ends_and_blank_lines() {
    let dir = tempfile::tempdir().unwrap();
    // The bad row is on line 5 of each: CRLF line ends (as Python's csv
    // module writes them), blank lines, and both, before it.
    let rows = ["r1,d=a,1,10", "r1,d=a,2,20", "r1,d=a,3,30", "r1,d=a,4,x"];
    let layouts = [
        ("crlf.csv", format!("{HEADER}\r\n{}\r\n", rows.join("\r\n"))),
        (
            "blank.csv",
            format!("{HEADER}\n{}\n\n\n{}\n", rows[0], rows[3]),
        ),
        (
            "mixed.csv",
            format!("{HEADER}\n{}\r\n\r\n{}\r\n{}\n", rows[0], rows[2], rows[3]),
        ),
    ];
    for (name, text) in layouts {
        let f = write_arg(dir.path(), name, text);
        refused(&calib(&["fit", &f]), &format!("{name}, line 5:"), &["`x`"]);
    }
    // The sizes CSV of --grid is read the same way.
    let model_src = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\n"),
    );
    for (name, text) in [
        (
            "grid-crlf.csv",
            "stratum,units\r\nd=a,10\r\nd=b,10\r\nd=c,abc\r\n",
        ),
        ("grid-comment.csv", "stratum,units\n# sizes\n\nd=c,abc\n"),
    ] {
        let grid = write_arg(dir.path(), name, text);
        let out = calib(&["budget", &model_src, "--grid", &grid, "-p", "p 1:00:00"]);
        refused(&out, &format!("{name}, line 4:"), &["`abc`"]);
    }
}

#[test]
fn a_sizes_csv_with_a_column_named_twice_or_a_row_of_other_width_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let model_src = write_arg(
        dir.path(),
        "t.csv",
        format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\n"),
    );
    let budget = |name: &str, text: &str| {
        let grid = write_arg(dir.path(), name, text);
        calib(&["budget", &model_src, "--grid", &grid, "-p", "p 1:00:00"])
    };
    // The second `units` would otherwise be ignored without a word.
    let out = budget("twice.csv", "stratum,units,tasks,units\nd=a,10,3,400\n");
    refused(&out, "twice.csv, line 1", &["columns 2 and 4", "`units`"]);
    // The header's own line, after a comment.
    let out = budget("late.csv", "# sizes\nstratum,units,units\nd=a,10,3\n");
    refused(&out, "late.csv, line 2", &["columns 2 and 3"]);
    let out = budget("wide.csv", "stratum,units\nd=a,10\nd=a,10,3\n");
    refused(&out, "wide.csv, line 3", &["3 field(s)", "header has 2"]);
}

#[test]
fn bad_cpus_gpus_and_nul_bytes_are_refused_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let header = "run,stratum,unit,elapsed_s,host,cpus,gpus";
    let cases: [(&str, &str); 4] = [
        ("r1,d=a,2,20,h,-3,none", "`cpus` is `-3`"),
        ("r1,d=a,2,20,h,4,xx", "`gpus` is `xx`"),
        ("r1,d=a,2,20,h,4,2x", "`gpus` is `2x`"),
        ("r1,d=a,2,20,h\0st,4,none", "NUL"),
    ];
    for (bad_row, needle) in cases {
        let f = write_arg(
            dir.path(),
            "t.csv",
            format!("{header}\nr1,d=a,1,10,h,4,none\n{bad_row}\nr1,d=a,3,30,h,4,none\n"),
        );
        refused(&calib(&["fit", &f]), "t.csv, line 3", &[needle]);
    }
    // What calib probe writes is accepted.
    for gpus in [
        "none",
        "2x NVIDIA A100-SXM4-40GB; 1x NVIDIA T4",
        "unknown (nvidia-smi -L gave no answer in 15s)",
        "0",
        "",
    ] {
        let f = write_arg(
            dir.path(),
            "t.csv",
            format!("{header}\nr1,d=a,1,10,h,4,{gpus}\nr1,d=a,2,20,h,4,{gpus}\n"),
        );
        let out = calib(&["fit", &f]);
        assert_eq!(out.status.code(), Some(0), "{gpus}: {}", stderr(&out));
    }
}

const SACCT: &str = "JobID|JobName|State|Elapsed|Timelimit";

#[test]
fn audit_refuses_an_absurd_elapsed_and_explains_a_task_past_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    // 99,999,999,999 days against a one-minute limit printed
    // "used 14399999999856000%".
    let f = write_arg(
        dir.path(),
        "s.txt",
        format!("{SACCT}\n1_1|x|COMPLETED|99999999999-00:00:00|00:01:00\n"),
    );
    refused(
        &calib(&["audit", &format!("@{f}")]),
        "s.txt, line 2",
        &["Elapsed", "10 years"],
    );

    // A task that completed 5 minutes past its hour (OverTimeLimit).
    let f = write_arg(
        dir.path(),
        "s.txt",
        format!("{SACCT}\n1_1|x|COMPLETED|01:05:00|01:00:00\n1_2|x|COMPLETED|00:30:00|01:00:00\n"),
    );
    let out = calib(&["audit", &format!("@{f}")]);
    let stdout = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout.contains("used 108%"), "{stdout}");
    assert!(
        stdout.contains("ran past its time limit") && stdout.contains("OverTimeLimit"),
        "{stdout}"
    );
}

#[test]
fn audit_shows_shares_from_1000_percent_as_more_than_999() {
    assert_eq!(calib::audit::percent(9.99), "999%");
    assert_eq!(calib::audit::percent(9.996), ">999%");
    assert_eq!(calib::audit::percent(5_260_000.0), ">999%");
}

#[test]
fn printed_minutes_and_seconds_over_59_are_refused_but_time_input_keeps_slurms_grammar() {
    for bad in [
        "1:00:99",
        "0:60:0",
        "1-00:60:00",
        "1-24:00:00",
        "1-30",
        "5:60",
    ] {
        assert!(parse_printed_time(bad).is_err(), "{bad}");
        assert!(parse_printed_limit(bad).is_err(), "{bad}");
    }
    // The leading field is not bounded: 90 minutes, 48 hours.
    assert_eq!(parse_printed_time("90:00"), Ok(SlurmTime::Limited(5_400)));
    assert_eq!(
        parse_printed_time("48:00:00"),
        Ok(SlurmTime::Limited(172_800))
    );
    // sbatch --time reads 1:00:99 as 1:01:39, as Slurm does.
    assert_eq!(parse_time("1:00:99"), Ok(SlurmTime::Limited(3_699)));
    // Past Slurm's 32-bit minute count: no partition has that limit.
    assert!(parse_printed_time("213503982334601-0").is_err());
    assert!(parse_printed_time("2982616-00:00:00").is_ok());
    // sacct Elapsed.
    assert!(parse_elapsed("00:00:99").is_err());
    assert!(parse_elapsed("1-24:00:00").is_err());
    assert!(parse_elapsed("00:99.5").is_err());
    assert_eq!(parse_elapsed("1-23:59:59").unwrap(), Some(172_799.0));

    let out = calib(&["budget", "--model", "x", "--partitions", "short 1:00:99"]);
    refused(&out, "--partitions, line 1", &["1:00:99", "over 59"]);
}

#[test]
fn array_ranges_past_32_bits_are_refused_and_large_ones_do_not_overflow() {
    let dir = tempfile::tempdir().unwrap();
    // A range reaching 2^64 - 1 overflowed the task count (exit 101); one
    // past 64 bits is refused the same way.
    for last in ["18446744073709551615", "99999999999999999999"] {
        let f = write_arg(
            dir.path(),
            "s.txt",
            format!("{SACCT}\n1_[0-{last}]|x|PENDING||01:00:00\n"),
        );
        refused(
            &calib(&["audit", &format!("@{f}")]),
            "s.txt, line 2",
            &["past the largest Slurm allows"],
        );
    }
    // The largest ranges Slurm can print (MaxArraySize 4000001), several
    // times over, are counted.
    let f = write_arg(
        dir.path(),
        "s.txt",
        format!("{SACCT}\n1_[0-4000000]|x|PENDING||01:00:00\n2_[0-4000000]|x|PENDING||01:00:00\n"),
    );
    let out = calib(&["audit", &format!("@{f}")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The task count is the `tasks` cell of group x's row.
    let text = stdout(&out);
    let row = text.lines().find(|l| l.starts_with("x ")).unwrap_or("");
    assert!(row.split_whitespace().nth(3) == Some("8000002"), "{text}");
}

#[test]
fn audit_units_beyond_a_run_s_most_are_bad_usage() {
    // A run has at most 10^9 units: written with --write-timings, more would
    // make a file calib fit refuses.
    let sacct = at_repo_file("tests/data/sacct/sacct-ulhpc-iris.txt");
    for units in ["18446744073709551615", "1000000001"] {
        let out = calib(&["audit", &sacct, "--units", units]);
        refused(&out, "--units", &["1000000000"]);
    }
    let out = calib(&["audit", &sacct, "--units", "1000000000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

// ---------------------------------------------------------------------------
// Model files: read under a bound of their own, whatever their lines.
// ---------------------------------------------------------------------------

/// `calib budget --model /dev/stdin`, fed `total` bytes of `byte` (stopped
/// early when calib closes its end), within 20 s.
fn budget_model_from_stream(byte: u8, total: usize) -> Output {
    fed_a_stream(
        &[
            "budget",
            "--model",
            "/dev/stdin",
            "--units",
            "1",
            "--partitions",
            "p 1:00:00",
        ],
        vec![byte; 1 << 16],
        total,
    )
}

/// `calib ARGS` with `block` written to its standard input again and again,
/// `total` bytes in all (stopped early when calib closes its end); it must end
/// within 20 s.
fn fed_a_stream(args: &[&str], block: Vec<u8>, total: usize) -> Output {
    use std::io::Write;
    let mut child = common::calib()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut sent = 0;
        while sent < total && pipe.write_all(&block).is_ok() {
            sent += block.len();
        }
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("calib {args:?} on a stream did not end within 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// A model file is read under a bound fitted to it (256 MiB), not whole
/// whatever its size: `--model /dev/zero` took 23 GB and was killed. A
/// compact model (`jq -c`), a single line over 1 MiB, is read all the same.
#[test]
fn a_model_file_is_read_under_its_own_bound_and_a_one_line_model_is_read() {
    // White space is JSON until its end: a stream of it, longer than the
    // bound, is refused at the bound, naming the input and the bound. (It
    // was read to its end, 400 MiB, and refused as JSON.)
    let out = budget_model_from_stream(b' ', 400 << 20);
    refused(&out, "/dev/stdin", &["more than 256 MiB", "model file"]);

    let out = calib(&[
        "budget",
        "--model",
        "/dev/zero",
        "--units",
        "1",
        "-p",
        "a 1",
    ]);
    refused(&out, "/dev/zero", &["model file"]);

    // A model of the bundled data, compact, on one line of over 1 MiB.
    let dir = tempfile::tempdir().unwrap();
    let model = bundled_model(&dir, "model.json");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    let compact = serde_json::to_string(&value).unwrap();
    let one_line = format!("{{{}{}", " ".repeat(2 << 20), &compact[1..]);
    assert!(!one_line.contains('\n'));
    let compact_path = write_arg(dir.path(), "compact.json", format!("{one_line}\n"));
    let budget = |path: &str| {
        calib(&[
            "budget",
            "--model",
            path,
            "--units",
            "100",
            "--partitions",
            "p 7-00:00:00",
            "-f",
            "json",
        ])
    };
    let (pretty, compact) = (budget(model.to_str().unwrap()), budget(&compact_path));
    assert_eq!(compact.status.code(), Some(0), "{}", stderr(&compact));
    let strata = |out: &Output| {
        let doc: serde_json::Value = serde_json::from_str(&stdout(out)).unwrap();
        doc["strata"].clone()
    };
    assert_eq!(strata(&compact), strata(&pretty));
}

/// A second `-` would read nothing and be taken for an empty table (a
/// warning, not an error): standard input is read once, and named twice is
/// bad input.
#[test]
fn standard_input_named_twice_is_refused() {
    let table = format!("{HEADER}\nr1,d=a,1,10\nr1,d=a,2,20\n");
    let once = common::output_with_stdin(common::calib().args(["fit", "-"]), &table);
    assert_eq!(once.status.code(), Some(0), "{}", stderr(&once));
    let twice = common::output_with_stdin(common::calib().args(["fit", "-", "-"]), &table);
    refused(&twice, "<stdin>", &["named twice"]);
    // Given to two arguments, refused before either is read, naming both:
    // not a message about the timings read as a partition list.
    let both = common::output_with_stdin(
        common::calib().args(["budget", "-", "-n", "10", "-p", "-"]),
        &table,
    );
    refused(&both, "<stdin>", &["TIMINGS, --partitions"]);
}

/// An end row records the units a run completed and the time it stopped: a
/// unit row beyond it is another run under the same id, and a stop before the
/// last unit's end is no stop of this run. Both are refused at their line.
#[test]
fn a_unit_row_after_the_end_row_or_an_end_before_the_last_unit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, rows, fragments) in [
        (
            "after.csv",
            "r1,d=a,2,20,exit:0\nr1,d=a,3,30,",
            ["unit 3", "line 3"],
        ),
        (
            "early.csv",
            "r1,d=a,2,20,\nr1,d=a,2,15,exit:0",
            ["15 s", "20 s"],
        ),
        // An end row after the unit rows it miscounts is the row at fault.
        (
            "short.csv",
            "r1,d=a,2,20,\nr1,d=a,1,25,exit:0",
            ["says 1 unit completed", "line 3 is a row for unit 2"],
        ),
    ] {
        let f = write_arg(
            dir.path(),
            name,
            format!("{HEADER},end\nr1,d=a,1,10,\n{rows}\n"),
        );
        refused(&calib(&["fit", &f]), &format!("{name}, line 4"), &fragments);
    }
    // The end row as calib probe writes it (the stop after the last unit) is read.
    let whole = write_arg(
        dir.path(),
        "whole.csv",
        format!("{HEADER},end\nr1,d=a,1,10,\nr1,d=a,2,20,\nr1,d=a,2,20.5,exit:0\n"),
    );
    assert_eq!(calib(&["fit", &whole]).status.code(), Some(0));
}
