//! `calib backtest`: known answers on generated campaigns, and the report's
//! figures checked against fits made independently of the backtest code.

mod common;

use calib::backtest::{backtest, BacktestOptions, ProbeDesign, ProbeLength};
use calib::fit::{fit_timings, FitOptions};
use calib::stratum::Stratum;
use calib::synth::Rng;
use calib::timings::{Fingerprint, RunEnd, RunTimings, Timings};

/// A run whose unit i costs `cost(i)` x a per-unit log-normal noise of `unit_sd`,
/// after a startup of 2 s; ended as a probe (`Limit`) or a finished run (`Exit(0)`).
fn run(
    name: &str,
    stratum: &str,
    units: u64,
    cost: &dyn Fn(u64) -> f64,
    unit_sd: f64,
    noise: &mut Rng,
    finished: bool,
) -> RunTimings {
    let mut t = 2.0;
    let mut points = Vec::new();
    for i in 1..=units {
        t += cost(i) * (unit_sd * noise.normal()).exp();
        points.push((i, t));
    }
    let end = if finished {
        (RunEnd::Exit(0), units, t + 0.1)
    } else {
        (RunEnd::Limit, units, t)
    };
    RunTimings {
        run: name.to_string(),
        stratum: Stratum::parse(stratum).unwrap(),
        points,
        end: Some(end),
        fingerprint: Fingerprint::default(),
    }
}

fn options(length: ProbeLength, seeds: usize) -> BacktestOptions {
    BacktestOptions {
        design: ProbeDesign {
            length,
            seeds,
            long_run: None,
        },
        confidence: 0.99,
        fit: FitOptions::default(),
        calibration: calib::calibrate::Table::shipped().unwrap(),
    }
}

/// Six finished runs of 100 units whose per-unit cost is flat for 12 units and
/// then rises linearly: a 10-unit probe cannot see the rise.
fn late_rise(seed: u64) -> Timings {
    let mut noise = Rng::new(seed);
    let cost = |i: u64| {
        if i <= 12 {
            1.0
        } else {
            1.0 + 0.5 * (i - 12) as f64
        }
    };
    Timings {
        runs: (0..6)
            .map(|k| {
                run(
                    &format!("r{k}"),
                    "shape=late",
                    100,
                    &cost,
                    0.02,
                    &mut noise,
                    true,
                )
            })
            .collect(),
        warnings: Vec::new(),
        ..Default::default()
    }
}

fn held_out_covered(report: &calib::backtest::Backtest) -> Vec<bool> {
    report.strata[0].trials.iter().map(|t| t.covered).collect()
}

#[test]
fn a_probe_of_the_flat_start_under_covers_and_one_that_saw_the_rise_covers() {
    let timings = late_rise(7);
    // A probe of 5 units is calibrated with the short probes of real
    // programs, whose runs often changed after them: a wide bound, no
    // refusal, and here it covers the rise it could not see.
    let blind = backtest(&timings, &options(ProbeLength::Units(5), 3)).unwrap();
    assert_eq!(blind.unsupported, 0);
    assert_eq!(held_out_covered(&blind), vec![true; 6]);
    // 10 flat units: a long flat probe's margin, which a rise 20 times
    // the probe's cost per unit exceeds.
    let short = backtest(&timings, &options(ProbeLength::Units(10), 3)).unwrap();
    assert_eq!(short.trials, 6, "every finished run is held out once");
    assert_eq!(held_out_covered(&short), vec![false; 6]);
    assert!(short.strata[0].largest_headroom < 1.0);
    assert_eq!(short.observed_coverage, 0.0);
    let long = backtest(&timings, &options(ProbeLength::Units(30), 3)).unwrap();
    assert_eq!(held_out_covered(&long), vec![true; 6]);
    assert!(long.strata[0].worst_headroom >= 1.0);
    assert_eq!(long.strata_all_covered, 1);
}

#[test]
fn each_trial_is_the_fit_of_other_runs_cut_to_the_probe() {
    let timings = late_rise(11);
    let opts = options(ProbeLength::Units(12), 2);
    let report = backtest(&timings, &opts).unwrap();
    for trial in &report.strata[0].trials {
        assert_eq!(trial.probe_runs.len(), 2);
        assert!(trial
            .probe_runs
            .iter()
            .all(|(run, units)| *run != trial.held_out && *units == 12));
        // Refit by hand: the named runs, their first 12 units.
        let probes: Vec<RunTimings> = trial
            .probe_runs
            .iter()
            .map(|(name, _)| {
                let full = timings.runs.iter().find(|r| &r.run == name).unwrap();
                let points: Vec<(u64, f64)> = full.points[..12].to_vec();
                let last = points[11];
                RunTimings {
                    points,
                    end: Some((RunEnd::Limit, last.0, last.1)),
                    ..full.clone()
                }
            })
            .collect();
        let model = fit_timings(
            &Timings {
                runs: probes,
                warnings: Vec::new(),
                ..Default::default()
            },
            &FitOptions::default(),
        )
        .unwrap()
        .model;
        let held = timings
            .runs
            .iter()
            .find(|r| r.run == trial.held_out)
            .unwrap();
        let projection = model.strata[0].project(100, 0.99, &opts.calibration);
        assert_eq!(trial.upper_s, projection.upper_s);
        let actual = match held.end {
            Some((_, _, t)) => t,
            None => unreachable!(),
        };
        assert_eq!(
            trial.actual_s, actual,
            "the end row's time: teardown included"
        );
        assert_eq!(trial.covered, projection.upper_s >= actual);
        assert!((trial.headroom - projection.upper_s / actual).abs() < 1e-12);
    }
}

#[test]
fn recorded_probes_budget_every_finished_run_and_baselines_use_them() {
    let mut noise = Rng::new(3);
    let cost = |_i: u64| 2.0;
    let mut runs: Vec<RunTimings> = (0..3)
        .map(|k| run(&format!("p{k}"), "d=a", 8, &cost, 0.0, &mut noise, false))
        .collect();
    runs.extend((0..4).map(|k| run(&format!("f{k}"), "d=a", 40, &cost, 0.0, &mut noise, true)));
    let timings = Timings {
        runs,
        warnings: Vec::new(),
        ..Default::default()
    };
    let report = backtest(&timings, &options(ProbeLength::Recorded, 3)).unwrap();
    let trials = &report.strata[0].trials;
    assert_eq!(trials.len(), 4);
    for trial in trials {
        assert!(trial.held_out.starts_with('f'));
        let names: Vec<&str> = trial.probe_runs.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(names, ["p0", "p1", "p2"]);
        // 2 s startup + 8 units of 2 s: the mean rate is 18/8 s per unit.
        assert!((trial.baselines_s[0] - 18.0 / 8.0 * 40.0).abs() < 1e-9);
        assert!((trial.baselines_s[1] - 1.5 * 18.0 / 8.0 * 40.0).abs() < 1e-9);
        // The last quarter runs at 2 s per unit; the startup is 2 s.
        assert!((trial.baselines_s[2] - (2.0 + 2.0 * 40.0)).abs() < 1e-9);
        // The truth: 2 + 80 s, plus 0.1 s of teardown.
        assert!((trial.actual_s - 82.1).abs() < 1e-9);
    }
}

#[test]
fn strata_without_a_design_are_skipped_with_the_reason_and_none_is_an_error() {
    let mut noise = Rng::new(5);
    let cost = |_i: u64| 1.0;
    let mut runs: Vec<RunTimings> = (0..4)
        .map(|k| run(&format!("a{k}"), "d=a", 20, &cost, 0.05, &mut noise, true))
        .collect();
    // Stratum b: only probes, nothing to hold out.
    runs.extend((0..3).map(|k| run(&format!("b{k}"), "d=b", 5, &cost, 0.05, &mut noise, false)));
    let timings = Timings {
        runs,
        warnings: Vec::new(),
        ..Default::default()
    };
    let report = backtest(&timings, &options(ProbeLength::Units(5), 3)).unwrap();
    assert_eq!(report.strata.len(), 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].stratum, "d=b");
    // Asking for more seeds than stratum a has other runs: nothing to report.
    let error = backtest(&timings, &options(ProbeLength::Units(5), 4)).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("d=a"), "{error}");
    // A probe as long as the held-out run (20 units) extrapolates nothing:
    // no trial, rather than one trivially covered.
    for length in [ProbeLength::Units(20), ProbeLength::Fraction(0.999)] {
        let error = backtest(&timings, &options(length, 3)).unwrap_err();
        assert!(
            error.to_string().contains("nothing to extrapolate"),
            "{error}"
        );
    }
    let mut long = options(ProbeLength::Units(5), 3);
    long.design.long_run = Some(0.99);
    let error = backtest(&timings, &long).unwrap_err();
    assert!(
        error.to_string().contains("the long run (20 units)"),
        "{error}"
    );
}

/// Writes `timings` as a timings CSV (the contract's columns, end rows included).
fn write_csv(timings: &Timings, path: &std::path::Path) {
    let mut writer = csv::Writer::from_path(path).unwrap();
    writer
        .write_record(["run", "stratum", "unit", "elapsed_s", "end"])
        .unwrap();
    for run in &timings.runs {
        let stratum = run.stratum.canonical();
        for &(u, t) in &run.points {
            writer
                .write_record([&run.run, &stratum, &u.to_string(), &format!("{t:.6}"), ""])
                .unwrap();
        }
        if let Some((end, u, t)) = &run.end {
            writer
                .write_record([
                    &run.run,
                    &stratum,
                    &u.to_string(),
                    &format!("{t:.6}"),
                    &end.to_field(),
                ])
                .unwrap();
        }
    }
    writer.flush().unwrap();
}

fn calib(args: &[&str]) -> std::process::Output {
    common::calib().args(args).output().unwrap()
}

#[test]
fn the_command_reports_table_json_and_one_csv_row_per_held_out_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("late.csv");
    write_csv(&late_rise(7), &file);
    let path = file.to_str().unwrap();

    let table = calib(&["backtest", path, "--probe-units", "30"]);
    assert!(table.status.success(), "{}", common::stderr(&table));
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("shape=late"), "{text}");
    assert!(text.contains("6/6"), "{text}");

    let json = calib(&["backtest", path, "--probe-units", "10", "--format", "json"]);
    assert!(json.status.success());
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["trials"], 6);
    assert_eq!(value["covered"], 0);
    assert_eq!(value["strata"][0]["trials"].as_array().unwrap().len(), 6);

    let rows = calib(&[
        "backtest",
        path,
        "--probe-fraction",
        "0.3",
        "--seeds",
        "2",
        "-f",
        "csv",
    ]);
    assert!(rows.status.success());
    let mut reader = csv::Reader::from_reader(rows.stdout.as_slice());
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), 6);
    let headers = reader.headers().unwrap().clone();
    let covered = headers.iter().position(|h| h == "covered").unwrap();
    assert!(records.iter().all(|r| &r[covered] == "true"));
}

#[test]
fn impossible_designs_are_usage_errors() {
    for args in [
        &["backtest", "x.csv", "--probe-fraction", "1.5"][..],
        &["backtest", "x.csv", "--probe-units", "0"][..],
        &["backtest", "x.csv"][..],
        &[
            "backtest",
            "x.csv",
            "--probe-units",
            "5",
            "--confidence",
            "0.3",
        ][..],
    ] {
        let out = calib(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// `runs` as one campaign's timings.
fn timings_of(runs: Vec<RunTimings>) -> Timings {
    Timings {
        runs,
        warnings: Vec::new(),
        ..Default::default()
    }
}

/// `run` ended as `end` at its last unit (a failure, a kill).
fn ended(mut run: RunTimings, end: &RunEnd) -> RunTimings {
    let (_, units, t) = run.end.clone().unwrap();
    run.end = Some((end.clone(), units, t));
    run
}

/// A run that failed or was killed did not do a finished run's work: it is
/// never held out, however far it got. Before, five 40-unit runs that ended
/// `exit:1` (or `signal:KILL`) were held out and reported "covered 5/5".
#[test]
fn failed_or_killed_runs_are_never_held_out() {
    let cost = |_i: u64| 1.0;
    for end in [RunEnd::Exit(1), RunEnd::Signal("KILL".into())] {
        let mut noise = Rng::new(9);
        let failed: Vec<RunTimings> = (0..5)
            .map(|k| {
                let r = run(&format!("r{k}"), "d=a", 40, &cost, 0.02, &mut noise, true);
                ended(r, &end)
            })
            .collect();
        // Nothing to hold out: refused, saying why (and so on the command line).
        let error = backtest(
            &timings_of(failed.clone()),
            &options(ProbeLength::Units(10), 3),
        )
        .unwrap_err();
        assert_eq!(error.exit_code(), 2, "{end:?}");
        assert!(
            error.to_string().contains("failed or were killed"),
            "{error}"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("failed.csv");
        write_csv(&timings_of(failed.clone()), &file);
        let out = calib(&["backtest", file.to_str().unwrap(), "--probe-units", "10"]);
        assert_eq!(out.status.code(), Some(2), "{}", common::stdout(&out));
        assert!(common::stderr(&out).contains("no full-length run"));

        // Beside finished runs, only those are held out; a stratum of failed
        // runs only is skipped with the reason.
        let mut runs: Vec<RunTimings> = failed[..2].to_vec();
        runs.extend(
            (0..4).map(|k| run(&format!("f{k}"), "d=a", 40, &cost, 0.02, &mut noise, true)),
        );
        runs.extend((0..4).map(|k| {
            ended(
                run(&format!("b{k}"), "d=b", 40, &cost, 0.02, &mut noise, true),
                &end,
            )
        }));
        let report = backtest(&timings_of(runs), &options(ProbeLength::Units(10), 3)).unwrap();
        assert_eq!(report.strata.len(), 1);
        let held: Vec<&str> = report.strata[0]
            .trials
            .iter()
            .map(|t| t.held_out.as_str())
            .collect();
        assert_eq!(held, ["f0", "f1", "f2", "f3"]);
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].stratum, "d=b");
    }
    // Runs calib stopped at the full length (`end = limit`, as the corpus's
    // GNU Go and MiniSat runs) are full-length: held out beside shorter probes.
    let mut noise = Rng::new(10);
    let mut runs: Vec<RunTimings> = (0..4)
        .map(|k| run(&format!("f{k}"), "d=a", 40, &cost, 0.02, &mut noise, false))
        .collect();
    runs.extend((0..3).map(|k| run(&format!("p{k}"), "d=a", 10, &cost, 0.02, &mut noise, false)));
    let report = backtest(&timings_of(runs), &options(ProbeLength::Recorded, 3)).unwrap();
    assert_eq!(report.trials, 4);
}

/// Three recorded probes and four finished runs of 40 units, flat cost.
fn recorded_campaign() -> Timings {
    let mut noise = Rng::new(3);
    let cost = |_i: u64| 2.0;
    let mut runs: Vec<RunTimings> = (0..3)
        .map(|k| run(&format!("p{k}"), "d=a", 8, &cost, 0.02, &mut noise, false))
        .collect();
    runs.extend((0..4).map(|k| run(&format!("f{k}"), "d=a", 40, &cost, 0.02, &mut noise, true)));
    timings_of(runs)
}

/// Recorded probes are used as they are: a long run cannot be taken from
/// them, so `--long-run` is refused rather than claimed in the design line
/// with no effect; the design line gives the number of probe runs used, not
/// the --seeds asked for. Before: "recorded probe runs of 10 run(s), one of
/// them to 50% of N" from 3 runs.
#[test]
fn recorded_probes_refuse_a_long_run_and_the_design_says_how_many_were_used() {
    let timings = recorded_campaign();
    let mut long = options(ProbeLength::Recorded, 3);
    long.design.long_run = Some(0.5);
    let error = backtest(&timings, &long).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("--long-run"), "{error}");

    let many = backtest(&timings, &options(ProbeLength::Recorded, 10)).unwrap();
    assert_eq!(many.strata[0].trials[0].probe_runs.len(), 3);
    assert!(many.design.contains(" 3 run(s)"), "{}", many.design);
    assert!(!many.design.contains("10"), "{}", many.design);
    let fewer = backtest(&timings, &options(ProbeLength::Recorded, 2)).unwrap();
    assert_eq!(fewer.strata[0].trials[0].probe_runs.len(), 2);
    assert!(fewer.design.contains(" 2 run(s)"), "{}", fewer.design);
    assert!(fewer.design.contains("at most 2"), "{}", fewer.design);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("recorded.csv");
    write_csv(&timings, &file);
    let path = file.to_str().unwrap();
    let out = calib(&[
        "backtest",
        path,
        "--probe-units",
        "recorded",
        "--long-run",
        "0.5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("--long-run"));
}

/// A long run is never shorter than the other probe runs: with
/// `--probe-units 10` and `--long-run 0.02` of a 100-unit run it has 10
/// units, not 2 (before: `r1:2 r2:10 r3:10`, silently); beside
/// `--probe-fraction`, a long run no longer than the probes is refused.
#[test]
fn a_long_run_is_never_shorter_than_the_other_probes() {
    let timings = late_rise(13);
    let mut design = options(ProbeLength::Units(10), 3);
    design.design.long_run = Some(0.02);
    let report = backtest(&timings, &design).unwrap();
    for trial in &report.strata[0].trials {
        assert!(
            trial.probe_runs.iter().all(|(_, units)| *units == 10),
            "{:?}",
            trial.probe_runs
        );
    }
    assert!(
        report.design.contains("10 units, whichever is more"),
        "{}",
        report.design
    );
    // Where the fraction is the longer, it is taken: 30 units of 100.
    design.design.long_run = Some(0.3);
    let report = backtest(&timings, &design).unwrap();
    let units: Vec<u64> = report.strata[0].trials[0]
        .probe_runs
        .iter()
        .map(|p| p.1)
        .collect();
    assert_eq!(units, [30, 10, 10]);

    let mut fraction = options(ProbeLength::Fraction(0.1), 3);
    fraction.design.long_run = Some(0.05);
    let error = backtest(&timings, &fraction).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("--probe-fraction"), "{error}");
}

/// When no budget was given (every probe too short to support a bound) there
/// is no headroom and no coverage: `-` in the table, null in JSON, an empty
/// field in CSV; before, the table said "0/0 = NaN%" and a "largest"
/// headroom of 0.00x, and JSON had `"largest_headroom": 0.0`.
#[test]
fn with_no_budget_given_headroom_and_coverage_are_absent_not_zero_or_nan() {
    let timings = late_rise(7);
    // One unit per run: no per-unit cost measured, no time given.
    let blind = backtest(&timings, &options(ProbeLength::Units(1), 3)).unwrap();
    assert_eq!(blind.unsupported, blind.trials);
    let s = &blind.strata[0];
    assert!(s.worst_headroom.is_nan() && s.largest_headroom.is_nan());

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("late.csv");
    write_csv(&timings, &file);
    let path = file.to_str().unwrap();
    let table = calib(&["backtest", path, "--probe-units", "1"]);
    let text = common::ok_stdout(&table, "backtest");
    assert!(!text.contains("NaN") && !text.contains("0.00x"), "{text}");
    assert!(text.contains("covered: 0/0 = - at"), "{text}");
    let json = calib(&["backtest", path, "--probe-units", "1", "-f", "json"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    for key in ["median_headroom", "worst_headroom", "largest_headroom"] {
        assert!(
            value["strata"][0][key].is_null(),
            "{key}: {}",
            value["strata"][0]
        );
    }
    assert!(value["observed_coverage"].is_null());
    let rows = calib(&["backtest", path, "--probe-units", "1", "-f", "csv"]);
    assert!(!common::ok_stdout(&rows, "csv").contains("NaN"));
}

/// An input without runs is refused naming the file and saying it holds no
/// unit rows; before: "no stratum could be backtested under this design ()".
#[test]
fn an_input_without_runs_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("header.csv", "run,stratum,unit,elapsed_s,end\n"),
        ("empty.csv", ""),
    ] {
        let file = common::write_file(dir.path(), name, text);
        let out = calib(&["backtest", file.to_str().unwrap(), "--probe-units", "10"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let error = common::stderr(&out);
        assert!(
            error.contains(name) && error.contains("no unit rows"),
            "{error}"
        );
        assert!(!error.contains("()"), "{error}");
    }
}

/// A run with no row within the design's first K units (its early rows
/// lost) is no probe seed: cut to K units it holds nothing, and it was
/// counted as one of the --seeds (`trend-s2:0`) while the design line said
/// two runs and one was used. The next run that has rows there is taken, and
/// the design line counts the runs the budgets came from.
#[test]
fn a_run_without_rows_in_the_probe_is_no_seed_and_the_next_is_taken() {
    let text = std::fs::read_to_string(common::repo_file("data/trend-probe-60x3.csv")).unwrap();
    let mut lines = text.lines();
    let mut gap = format!("{}\n", lines.next().unwrap());
    let mut copy = String::new();
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let unit: u64 = fields[2].parse().unwrap();
        // trend-s2 without its first 20 units; a fourth run, a copy of trend-s0.
        if !(fields[0] == "trend-s2" && unit <= 20) {
            gap.push_str(line);
            gap.push('\n');
        }
        if fields[0] == "trend-s0" {
            copy.push_str(&line.replacen("trend-s0", "trend-s3", 1));
            copy.push('\n');
        }
    }
    gap.push_str(&copy);
    let dir = tempfile::tempdir().unwrap();
    let path = common::write_arg(dir.path(), "gap.csv", gap);
    let json = calib(&[
        "backtest",
        &path,
        "--probe-units",
        "10",
        "--seeds",
        "2",
        "-f",
        "json",
    ]);
    assert!(json.status.success(), "{}", common::stderr(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["design"], "first 10 units of 2 run(s)");
    let trials = value["strata"][0]["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 4, "{value}");
    for trial in trials {
        let probes = trial["probe_runs"].as_array().unwrap();
        assert_eq!(probes.len(), 2, "{trial}");
        for probe in probes {
            assert_ne!(probe[0], "trend-s2", "{trial}");
            assert_eq!(probe[1], 10, "{trial}");
        }
    }
}

/// Where some full runs of a stratum cannot be held out (too few other runs
/// reach the design's length with rows there) and others can, the figures
/// rest on fewer runs than the stratum has: the report says how many were
/// left out and why, in the table and in the JSON's `skipped`.
#[test]
fn full_runs_that_cannot_be_held_out_beside_others_that_can_are_reported() {
    let text = std::fs::read_to_string(common::repo_file("data/trend-probe-60x3.csv")).unwrap();
    let gap: String = text
        .lines()
        .filter(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            !(fields[0] == "trend-s2" && fields[2].parse::<u64>().is_ok_and(|u| u <= 20))
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = common::write_arg(dir.path(), "gap.csv", gap);
    let args = ["backtest", &path, "--probe-units", "10", "--seeds", "2"];
    let json = calib(&[&args[..], &["-f", "json"]].concat());
    assert!(json.status.success(), "{}", common::stderr(&json));
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    // trend-s2 has no row in units 1-10: only it can be held out, probed by
    // the other two; each of those would need trend-s2 as a second seed.
    assert_eq!(
        value["strata"][0]["trials"].as_array().unwrap().len(),
        1,
        "{value}"
    );
    let skipped = value["skipped"].to_string();
    assert!(
        skipped.contains("2 of its 3 full-length runs not held out"),
        "{value}"
    );
    let table = calib(&args);
    assert!(
        common::stdout(&table).contains("2 of its 3 full-length runs not held out"),
        "{}",
        common::stdout(&table)
    );
}
