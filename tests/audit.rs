//! `calib audit`: the library on synthetic and recorded sacct text, and the
//! binary end to end (SACCT as @FILE, stdin, text; JSON; --write-timings).

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;

use assert_cmd::prelude::*;
use calib::audit::export::{Exporter, TableExporter};
use calib::audit::{audit, group_of, Advice, AuditOptions, GroupSource};
use calib::error::Origin;
use calib::slurm::sacct::{parse_sacct, SacctOptions, SacctTable};
use calib::stratum::Stratum;
use calib::timings::{read_timings, Fingerprint, IngestOptions, TimingRow, TimingsWriter};
use common::{calib as bin, output_with_stdin, stderr, stdout, write_file};
use regex::Regex;

const HEADER: &str = "JobID|JobIDRaw|JobName|Partition|State|ExitCode|Elapsed|ElapsedRaw|Timelimit|TimelimitRaw|NodeList|Start|End|Comment";

/// One job row in the column order calib asks sacct for.
fn row(
    id: &str,
    raw: &str,
    name: &str,
    state: &str,
    elapsed: &str,
    limit: &str,
    comment: &str,
) -> String {
    format!("{id}|{raw}|{name}|cpubase_bycore_b1|{state}|0:0|{elapsed}||{limit}||node1|2026-11-20T10:00:00|2026-11-20T11:00:00|{comment}")
}

fn table(lines: &[String]) -> SacctTable {
    let text = format!("{HEADER}\n{}\n", lines.join("\n"));
    parse_sacct(&text, &Origin::Stdin, &SacctOptions::default()).unwrap()
}

/// Design case 7: a campaign sized at "10x the projection" (3 min projected,
/// 30 min asked) whose slowest task used 68% of its budget: 20:24 of 30:00.
fn seed_case_7() -> String {
    let comment = "calib stratum=dataset=Y";
    let name = "calib-dataset-Y";
    let elapsed = ["00:12:00", "00:15:30", "00:20:24", "00:09:45", "00:18:02"];
    let mut lines = vec![HEADER.to_string()];
    for (task, e) in elapsed.iter().enumerate() {
        let id = format!("5000_{task}");
        let raw = if task == 4 { 5000 } else { 5001 + task };
        lines.push(row(
            &id,
            &raw.to_string(),
            name,
            "COMPLETED",
            e,
            "00:30:00",
            comment,
        ));
        // Step rows, as plain `sacct -P` (without -X) prints them.
        lines.push(format!(
            "{id}.batch|{raw}.batch|batch||COMPLETED|0:0|{e}||||node1|||"
        ));
        lines.push(format!(
            "{id}.extern|{raw}.extern|extern||COMPLETED|0:0|{e}||||node1|||"
        ));
    }
    lines.join("\n") + "\n"
}

#[test]
fn seed_case_7_slowest_task_used_68_percent_headroom_1_47() {
    let t = parse_sacct(&seed_case_7(), &Origin::Stdin, &SacctOptions::default()).unwrap();
    let a = audit(&t, &AuditOptions::default());
    assert_eq!(a.job_rows, 5);
    assert_eq!(a.skipped_rows, 10);
    assert_eq!(a.groups.len(), 1);
    let g = &a.groups[0];
    assert_eq!(g.group, "dataset=Y");
    assert_eq!(g.source, GroupSource::Comment);
    assert_eq!(g.usage.tasks, 5);
    assert_eq!(g.usage.states.get("COMPLETED"), Some(&5));
    assert_eq!(g.usage.limits_s, [1800]);
    let slowest = g.usage.slowest.as_ref().unwrap();
    assert_eq!(slowest.job_id, "5000_2");
    assert_eq!(slowest.elapsed_s, 1224);
    assert!((slowest.used - 0.68).abs() < 1e-12, "{}", slowest.used);
    let headroom = g.usage.headroom.unwrap();
    assert!((headroom - 1800.0 / 1224.0).abs() < 1e-12);
    assert_eq!(format!("{headroom:.2}"), "1.47");
    assert_eq!(g.usage.completed_min_s, Some(585));
    assert_eq!(g.usage.completed_median_s, Some(930.0));
    assert_eq!(g.usage.completed_max_s, Some(1224));
    // 68% is inside [40%, 90%]: no advice.
    assert!(g.advice.is_empty(), "{:?}", g.advice);
    assert_eq!(g.arrays.len(), 1);
    assert_eq!(g.arrays[0].array, "5000");
    let text = table_text(&a);
    // The group's row: 5 tasks, limit 30m, COMPLETED elapsed 9m 45s .. 20m 24s,
    // the slowest task 5000_2 used 68%: headroom 1.47x.
    let cells = row_cells(&text, "dataset=Y");
    for cell in [
        "5", "30m 00s", "9m 45s", "20m 24s", "5000_2", "68%", "1.47x",
    ] {
        assert!(cells.contains(&cell), "no {cell} in {cells:?}:\n{text}");
    }
    assert!(text.contains("(10 step rows left out)"), "{text}");
}

/// The cells of the table row of `group` (cells are two spaces or more apart).
fn row_cells<'a>(text: &'a str, group: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{group}  ")))
        .unwrap_or_else(|| panic!("no row for {group}:\n{text}"));
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

/// The audit as `--format table` writes it.
fn table_text(a: &calib::audit::Audit) -> String {
    let mut bytes = Vec::new();
    TableExporter.export(a, &mut bytes).unwrap();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn seed_case_7_through_the_binary_from_stdin_file_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_file(dir.path(), "sacct.txt", seed_case_7());
    let at = format!("@{}", file.display());
    let out = bin().args(["audit", &at]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let cells = row_cells(&text, "dataset=Y");
    assert!(cells.contains(&"68%") && cells.contains(&"1.47x"), "{text}");

    let mut child = bin()
        .args(["audit", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(seed_case_7().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = &json["groups"][0];
    assert_eq!(g["group"], "dataset=Y");
    assert_eq!(g["source"], "comment");
    assert_eq!(g["usage"]["slowest"]["job_id"], "5000_2");
    assert_eq!(g["usage"]["slowest"]["used"].as_f64(), Some(0.68));
    let tasks = g["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 5);
    assert_eq!(tasks[1]["job_id"], "5000_1");
    assert_eq!(tasks[1]["state"], "COMPLETED");
    assert_eq!(tasks[1]["elapsed_s"], 930);
    assert_eq!(tasks[1]["limit_s"], 1800);
    assert_eq!(tasks[1]["used"].as_f64(), Some(930.0 / 1800.0));
    let headroom = g["usage"]["headroom"].as_f64().unwrap();
    assert!((headroom - 1.4706).abs() < 1e-4);

    let out = bin().args(["audit", &seed_case_7()]).output().unwrap();
    assert!(out.status.success());
    assert!(row_cells(&stdout(&out), "dataset=Y").contains(&"68%"));
}

/// A job name is anybody's text: a terminal escape or a right-to-left
/// override in it reaches the table escaped, not as a command to the terminal.
#[test]
fn job_names_reach_the_table_with_their_control_characters_escaped() {
    // A state sacct printed that calib does not know is shown as text too.
    let lines: Vec<String> = [
        ("train\u{1b}[2J", "TIMEOUT"),
        ("eval\u{202e}cba", "ODD\u{1b}[5m"),
    ]
    .iter()
    .enumerate()
    .map(|(k, (name, state))| {
        let id = format!("{}", 7000 + k);
        row(&id, &id, name, state, "01:00:00", "01:00:00", "")
    })
    .collect();
    let text = format!("{HEADER}\n{}\n", lines.join("\n"));
    let out = bin().args(["audit", &text]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
        "{shown:?}"
    );
    assert!(
        shown.contains(r"train\u{1b}[2J") && shown.contains(r"eval\u{202e}cba"),
        "{shown}"
    );
    assert!(shown.contains(r"ODD\u{1b}[5m"), "{shown}");
}

#[test]
fn advice_when_far_above_or_below_need() {
    // 7:30 of 30:00 = 25%: ask for 1.5 x 7:30 = 11:15 -> 00:12:00.
    let loose = table(&[
        row(
            "7_0",
            "7",
            "calib-a",
            "COMPLETED",
            "00:07:30",
            "00:30:00",
            "",
        ),
        row(
            "7_1",
            "8",
            "calib-a",
            "COMPLETED",
            "00:05:00",
            "00:30:00",
            "",
        ),
    ]);
    let a = audit(&loose, &AuditOptions::default());
    let g = &a.groups[0];
    assert_eq!((g.group.as_str(), g.source), ("a", GroupSource::CalibName));
    assert_eq!(
        g.advice,
        [Advice::TooLoose {
            used: 0.25,
            suggest: "00:12:00".into()
        }]
    );
    assert!(g.advice[0]
        .to_string()
        .contains("you could ask for 00:12:00"));
    // 57:00 of 1:00:00 = 95%: too thin; 1.5 x 57 min = 85.5 -> 01:26:00.
    let close = table(&[row(
        "8",
        "8",
        "calib-b",
        "COMPLETED",
        "00:57:00",
        "01:00:00",
        "",
    )]);
    let g = &audit(&close, &AuditOptions::default()).groups[0];
    assert_eq!(
        g.advice,
        [Advice::TooClose {
            used: 0.95,
            suggest: "01:26:00".into()
        }]
    );
    // Exactly at the thresholds: no advice (40% and 90% are acceptable).
    for elapsed in ["00:12:00", "00:27:00"] {
        let ok = table(&[row("9", "9", "x", "COMPLETED", elapsed, "00:30:00", "")]);
        assert!(audit(&ok, &AuditOptions::default()).groups[0]
            .advice
            .is_empty());
    }
    // 5 s of 1 minute is 8%, but a request cannot go below one minute: no advice.
    let minimal = table(&[row(
        "12",
        "12",
        "x",
        "COMPLETED",
        "00:00:05",
        "00:01:00",
        "",
    )]);
    assert!(audit(&minimal, &AuditOptions::default()).groups[0]
        .advice
        .is_empty());
    // Nothing finished: no figure, and the report says so.
    let pending = table(&[row(
        "10_[0-9]", "10", "x", "PENDING", "00:00:00", "00:30:00", "",
    )]);
    let g = &audit(&pending, &AuditOptions::default()).groups[0];
    assert_eq!(g.usage.tasks, 10);
    assert_eq!(g.usage.states.get("PENDING"), Some(&10));
    assert_eq!(g.advice, [Advice::NothingMeasured]);
}

#[test]
fn timeouts_report_the_unit_reached_from_probe_timings() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("task-3.csv");
    let mut w = TimingsWriter::create_new(&csv).unwrap();
    let stratum = Stratum::parse("dataset=Z").unwrap();
    for unit in 1..=40u64 {
        w.append(&TimingRow {
            run: "r3".into(),
            stratum: stratum.clone(),
            unit,
            elapsed_s: 5.0 + 44.0 * unit as f64,
            unit_s: None,
            fingerprint: Fingerprint {
                job_id: Some("6003".into()),
                ..Fingerprint::default()
            },
            end: None,
        })
        .unwrap();
    }
    drop(w);
    let timings = read_timings(&[dir.path().to_path_buf()], &IngestOptions::default()).unwrap();
    let t = table(&[
        row(
            "6000_0",
            "6001",
            "calib-dataset-Z",
            "COMPLETED",
            "00:25:00",
            "00:30:00",
            "calib stratum=dataset=Z",
        ),
        // Matched through JobIDRaw (what SLURM_JOB_ID holds in a task).
        row(
            "6000_1",
            "6003",
            "calib-dataset-Z",
            "TIMEOUT",
            "00:30:05",
            "00:30:00",
            "calib stratum=dataset=Z",
        ),
        row(
            "6000_2",
            "6000",
            "calib-dataset-Z",
            "TIMEOUT",
            "00:30:30",
            "00:30:00",
            "calib stratum=dataset=Z",
        ),
    ]);
    let options = AuditOptions {
        timings: Some(&timings),
        units: Some(100),
        ..AuditOptions::default()
    };
    let a = audit(&t, &options);
    let g = &a.groups[0];
    assert_eq!(g.usage.states.get("TIMEOUT"), Some(&2));
    let tos = &g.usage.timeouts;
    assert_eq!(tos.len(), 2);
    assert_eq!(tos[0].job_id, "6000_1");
    assert_eq!(tos[0].unit_reached, Some(40));
    assert_eq!(tos[0].unit_elapsed_s, Some(5.0 + 44.0 * 40.0));
    // 1765 s for 40 units -> 100 units: 4412.5 s.
    assert_eq!(tos[0].projected_s, Some(4412.5));
    assert_eq!(tos[1].unit_reached, None);
    // A TIMEOUT used more than its budget; it is the slowest.
    assert_eq!(g.usage.slowest.as_ref().unwrap().job_id, "6000_2");
    // 1.5 x 4412.5 = 6618.75 s -> 111 minutes. The COMPLETED task left no
    // timings among those given: its exit status is all that says it worked.
    assert_eq!(
        g.advice,
        [
            Advice::Timeouts {
                count: 2,
                suggest: Some("01:51:00".into())
            },
            Advice::CompletedWithoutTimings {
                tasks: vec!["6000_0".into()],
                count: 1
            }
        ]
    );
    let text = table_text(&a);
    assert!(
        text.contains("TIMEOUT 6000_1 after 30m 05s (limit 30m 00s), reached unit 40 at 29m 25s"),
        "{text}"
    );
}

/// COMPLETED means the script exited 0: with --timings and --units, the
/// COMPLETED tasks whose timings stop short of N, and those with none, are
/// named; a COMPLETED task that recorded all N units, and a TIMEOUT, are not.
#[test]
fn completed_tasks_short_of_their_units_or_without_timings_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let stratum = Stratum::parse("dataset=Z").unwrap();
    // Task 7000_0 recorded all 50 units; 7000_1 stopped at unit 12 yet exited 0.
    for (job, units) in [("7000_0", 50u64), ("7000_1", 12)] {
        let mut w = TimingsWriter::create_new(&dir.path().join(format!("{job}.csv"))).unwrap();
        for unit in 1..=units {
            w.append(&TimingRow {
                run: job.into(),
                stratum: stratum.clone(),
                unit,
                elapsed_s: 10.0 * unit as f64,
                unit_s: None,
                fingerprint: Fingerprint {
                    job_id: Some(job.into()),
                    ..Fingerprint::default()
                },
                end: None,
            })
            .unwrap();
        }
    }
    let timings = read_timings(&[dir.path().to_path_buf()], &IngestOptions::default()).unwrap();
    let comment = "calib stratum=dataset=Z";
    let t = table(&[
        row(
            "7000_0",
            "7001",
            "calib-dataset-Z",
            "COMPLETED",
            "00:08:20",
            "00:30:00",
            comment,
        ),
        row(
            "7000_1",
            "7002",
            "calib-dataset-Z",
            "COMPLETED",
            "00:02:00",
            "00:30:00",
            comment,
        ),
        row(
            "7000_2",
            "7003",
            "calib-dataset-Z",
            "COMPLETED",
            "00:00:03",
            "00:30:00",
            comment,
        ),
        row(
            "7000_3",
            "7004",
            "calib-dataset-Z",
            "TIMEOUT",
            "00:30:02",
            "00:30:00",
            comment,
        ),
    ]);
    let options = AuditOptions {
        timings: Some(&timings),
        units: Some(50),
        ..AuditOptions::default()
    };
    let advice = &audit(&t, &options).groups[0].advice;
    assert!(
        advice.contains(&Advice::CompletedShort {
            tasks: vec![("7000_1".into(), 12)],
            count: 1,
            units: 50
        }),
        "{advice:?}"
    );
    assert!(
        advice.contains(&Advice::CompletedWithoutTimings {
            tasks: vec!["7000_2".into()],
            count: 1
        }),
        "{advice:?}"
    );
    // Without timings there is nothing to check the exit status against.
    let blind = audit(&t, &AuditOptions::default());
    assert!(!blind.groups[0].advice.iter().any(|a| matches!(
        a,
        Advice::CompletedShort { .. } | Advice::CompletedWithoutTimings { .. }
    )));
}

/// The pending-job trap: a PENDING task whose time limit is over its
/// partition's cap (asked too much, or raised by `scontrol update`) never
/// starts. With the partitions given it is flagged with the line that cancels
/// it; a PENDING task within its cap, or in a partition not listed, is not.
#[test]
fn pending_tasks_over_their_partition_cap_are_flagged_with_the_scancel_line() {
    let partitions = common::partition_sample("sinfo-narval.txt");
    let comment = "calib stratum=dataset=Z";
    let t = table(&[
        // cpubase_bycore_b1's cap is 3:00:00.
        row(
            "8000_[0-3]",
            "8000",
            "calib-dataset-Z",
            "PENDING",
            "00:00:00",
            "2-00:00:00",
            comment,
        ),
        row(
            "8001",
            "8001",
            "calib-dataset-Z",
            "PENDING",
            "00:00:00",
            "02:00:00",
            comment,
        ),
        row(
            "8002",
            "8002",
            "calib-dataset-Z",
            "PENDING",
            "00:00:00",
            "2-00:00:00",
            comment,
        )
        .replace("cpubase_bycore_b1", "somewhere_else"),
    ]);
    let options = AuditOptions {
        partitions: Some(&partitions),
        ..AuditOptions::default()
    };
    let advice = &audit(&t, &options).groups[0].advice;
    let flagged: Vec<_> = advice
        .iter()
        .filter_map(|a| match a {
            Advice::PendingOverCap {
                tasks,
                cancel,
                count,
            } => Some((tasks.clone(), cancel.clone(), *count)),
            _ => None,
        })
        .collect();
    assert_eq!(flagged.len(), 1, "{advice:?}");
    let (tasks, cancel, count) = &flagged[0];
    // The unsplit range 8000_[0-3] is four tasks.
    assert_eq!(*count, 4);
    assert_eq!(
        tasks,
        &[(
            "8000_[0-3]".to_string(),
            Some(2 * 86_400),
            "cpubase_bycore_b1".to_string(),
            3 * 3600
        )]
    );
    // The line is shell: the bracketed range reaches scancel as one literal word.
    let words = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("set -- {}; printf '%s\\n' \"$@\"", cancel))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&words.stdout),
        "scancel\n8000_[0-3]\n"
    );
    // Without the partitions nothing is judged.
    assert!(!audit(&t, &AuditOptions::default()).groups[0]
        .advice
        .iter()
        .any(|a| matches!(a, Advice::PendingOverCap { .. })));
}

/// A PENDING task that asked for no limit at all (`--time=UNLIMITED`) in a
/// partition capped at a day waits forever too (PartitionTimeLimit): it is
/// flagged; one whose limit is Partition_Limit (it asked for none, so the
/// partition's applies) is not.
#[test]
fn a_pending_unlimited_task_in_a_capped_partition_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let line = |id: &str, limit: &str| {
        format!("{id}|{id}|calib-dataset-Z|day|PENDING|0:0|00:00:00|0|{limit}||None assigned|Unknown|Unknown|calib stratum=dataset=Z")
    };
    let sacct = write_file(
        dir.path(),
        "sacct.txt",
        format!(
            "{HEADER}\n{}\n{}\n",
            line("9100", "UNLIMITED"),
            line("9101", "Partition_Limit")
        ),
    );
    let out = bin()
        .args(["audit", &format!("@{}", sacct.display())])
        .args(["--partitions", "day* 1-00:00:00"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        text.contains("1 PENDING task asks for more time than any partition it waits for allows"),
        "{text}"
    );
    assert!(
        text.contains("9100 asked --time=UNLIMITED of day, whose cap is 1-00:00:00"),
        "{text}"
    );
    assert!(
        text.contains("scancel 9100\n") || text.ends_with("scancel 9100"),
        "{text}"
    );
    assert!(!text.contains("9101 asked"), "{text}");
}

#[test]
fn grouping_by_comment_regex_calib_name_and_job_name() {
    let t = table(&[
        row(
            "1",
            "1",
            "calib-x",
            "COMPLETED",
            "00:01:00",
            "00:10:00",
            "calib stratum=model=7B,dataset=Y",
        ),
        row(
            "2",
            "2",
            "sweep-ds3-seed1",
            "COMPLETED",
            "00:01:00",
            "00:10:00",
            "",
        ),
        row(
            "3",
            "3",
            "sweep-ds3-seed2",
            "COMPLETED",
            "00:01:00",
            "00:10:00",
            "",
        ),
        row(
            "4",
            "4",
            "calib-dataset-Y",
            "COMPLETED",
            "00:01:00",
            "00:10:00",
            "",
        ),
        row("5", "5", "train", "COMPLETED", "00:01:00", "00:10:00", ""),
        row("6", "6", "", "COMPLETED", "00:01:00", "00:10:00", ""),
    ]);
    let re = Regex::new(r"^sweep-(ds\d+)-seed").unwrap();
    let options = AuditOptions {
        by_name: Some(re.clone()),
        ..AuditOptions::default()
    };
    let a = audit(&t, &options);
    let groups: Vec<(&str, GroupSource, u64)> = a
        .groups
        .iter()
        .map(|g| (g.group.as_str(), g.source, g.usage.tasks))
        .collect();
    assert_eq!(
        groups,
        [
            ("dataset=Y,model=7B", GroupSource::Comment, 1),
            ("ds3", GroupSource::NameRegex, 2),
            ("dataset-Y", GroupSource::CalibName, 1),
            ("train", GroupSource::JobName, 1),
            ("(no name)", GroupSource::JobName, 1),
        ]
    );
    assert_eq!(group_of(&t.rows[1], None).1, GroupSource::JobName);
}

#[test]
fn repeated_job_ids_keep_the_last_row() {
    let t = table(&[
        row("11", "11", "j", "FAILED", "00:00:10", "00:10:00", ""),
        row("11", "11", "j", "COMPLETED", "00:05:00", "00:10:00", ""),
    ]);
    let a = audit(&t, &AuditOptions::default());
    assert_eq!((a.job_rows, a.duplicate_rows), (1, 1));
    assert_eq!(a.groups[0].usage.states.get("COMPLETED"), Some(&1));
    assert_eq!(a.groups[0].usage.states.get("FAILED"), None);
}

#[test]
fn lab_verbatim_allocations() {
    let text = common::repo_text("tests/data/sacct/lab-sacct-X-1.txt");
    let t = parse_sacct(&text, &Origin::Stdin, &SacctOptions::default()).unwrap();
    let a = audit(&t, &AuditOptions::default());
    let find = |name: &str| a.groups.iter().find(|g| g.group == name).unwrap();
    let arr = find("probe_arr");
    assert_eq!(arr.usage.states.get("COMPLETED"), Some(&4));
    assert_eq!(arr.arrays[0].array, "15");
    let s = arr.usage.slowest.as_ref().unwrap();
    assert_eq!((s.elapsed_s, s.limit_s), (30, 300));
    assert!((s.used - 0.1).abs() < 1e-12);
    let to = find("probe_timeout");
    assert_eq!(to.usage.timeouts.len(), 1);
    assert_eq!(to.usage.timeouts[0].elapsed_s, 71);
    assert!(matches!(
        to.advice[0],
        Advice::Timeouts {
            count: 1,
            suggest: None
        }
    ));
    let held = find("probe_held");
    assert_eq!(held.usage.states.get("CANCELLED"), Some(&1));
    assert_eq!(held.advice, [Advice::NothingMeasured]);
}

#[test]
fn fixed_width_sample_through_the_binary() {
    let at = common::at_repo_file("tests/data/sacct/sacct-ulhpc-iris.txt");
    let out = bin()
        .args(["audit", &at, "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = &json["groups"][0];
    assert_eq!(g["group"], "(no name)");
    assert_eq!(g["usage"]["tasks"], 8);
    assert_eq!(g["usage"]["states"]["TIMEOUT"], 4);
    assert_eq!(g["usage"]["states"]["COMPLETED"], 4);
    assert_eq!(g["usage"]["limits_s"], serde_json::json!([86400, 172800]));
    assert_eq!(g["advice"][0]["kind"], "timeouts");
    assert!(g["advice"][0]["text"]
        .as_str()
        .unwrap()
        .contains("4 tasks hit the time limit"));
}

#[test]
fn write_timings_needs_units_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = dir.path().join("sacct.txt");
    std::fs::write(&sacct, seed_case_7()).unwrap();
    let at = format!("@{}", sacct.display());
    let out_file: PathBuf = dir.path().join("runs.csv");
    let out_arg = out_file.to_str().unwrap();

    let out = bin()
        .args(["audit", &at, "--write-timings", out_arg])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--units"));
    assert!(!out_file.exists());

    let out = bin()
        .args(["audit", &at, "--write-timings", out_arg, "--units", "100"])
        .args(["--cluster", "narval"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let timings = read_timings(std::slice::from_ref(&out_file), &IngestOptions::default()).unwrap();
    // Rows carry the cluster, so the next budget can check where they were measured.
    assert!(timings
        .runs
        .iter()
        .all(|r| r.fingerprint.cluster.as_deref() == Some("narval")));
    assert_eq!(timings.runs.len(), 5);
    let run = timings.runs.iter().find(|r| r.run == "5000_2").unwrap();
    assert_eq!(run.stratum.canonical(), "dataset=Y");
    assert_eq!(run.points, [(100, 1224.0)]);
    // The job id as probe writes it (JOB_INDEX for an array task, not
    // JobIDRaw's 5003), so resume and audit join these rows to their tasks.
    assert_eq!(run.fingerprint.job_id.as_deref(), Some("5000_2"));
    assert_eq!(
        run.fingerprint.partition.as_deref(),
        Some("cpubase_bycore_b1")
    );

    // Without a comment, a run is filed under its group name.
    let named = dir.path().join("named.txt");
    std::fs::write(
        &named,
        format!(
            "{HEADER}\n{}\n",
            row(
                "77",
                "77",
                "calib-dataset-Q",
                "COMPLETED",
                "00:02:00",
                "00:10:00",
                ""
            )
        ),
    )
    .unwrap();
    let named_out = dir.path().join("named.csv");
    let out = bin()
        .args(["audit", &format!("@{}", named.display()), "--units", "7"])
        .arg("--write-timings")
        .arg(&named_out)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let timings =
        read_timings(std::slice::from_ref(&named_out), &IngestOptions::default()).unwrap();
    assert_eq!(timings.runs[0].stratum.canonical(), "name=dataset-Q");
    assert_eq!(timings.runs[0].points, [(7, 120.0)]);

    // Created exclusively: a second run refuses to overwrite, as bad usage
    // (exit 2, naming the file), not as a failure of the machine.
    let before = std::fs::read(&out_file).unwrap();
    let out = bin()
        .args(["audit", &at, "--write-timings", out_arg, "--units", "100"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(out_arg) && err.contains("exists"), "{err}");
    assert_eq!(std::fs::read(&out_file).unwrap(), before);
}

/// Rows without a cluster are warned about only once they are written: a
/// refusal (the file exists) or a failed write (a full disk) comes alone,
/// not after a warning about rows that never were.
#[test]
fn write_timings_warns_of_no_cluster_only_for_rows_written() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = write_file(dir.path(), "sacct.txt", seed_case_7());
    let at = format!("@{}", sacct.display());
    let existing = write_file(dir.path(), "existing.csv", "keep me\n");
    let written = dir.path().join("new.csv");
    for (target, code) in [
        (existing.as_path(), 2),
        (std::path::Path::new("/dev/full"), 2),
    ] {
        let out = bin()
            .args(["audit", &at, "--units", "10", "--write-timings"])
            .arg(target)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{}: {err}", target.display());
        assert!(!err.contains("name no cluster"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me\n");
    let out = bin()
        .args(["audit", &at, "--units", "10", "--write-timings"])
        .arg(&written)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("name no cluster") && err.contains("--cluster"),
        "{err}"
    );
}

#[test]
fn without_sacct_text_or_sacct_on_path_it_says_what_to_do() {
    let out = bin().args(["audit"]).env("PATH", "").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("sacct is not on PATH"), "{err}");
}

/// When sacct rejects the job ids given with -j, calib's message shows the
/// sacct command it ran with every word shell-quoted, as calib shows the
/// commands it prints elsewhere: the user's value is one visible word that can
/// be pasted back. (Values that are no job ids never reach sacct: see
/// `a_job_list_that_names_no_job_is_refused_before_sacct_runs`.)
#[cfg(unix)]
#[test]
fn a_job_list_sacct_rejects_is_shown_quoted() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let sacct = write_file(
        dir.path(),
        "sacct",
        "#!/bin/sh\necho 'sacct: error: Invalid job id' >&2\nexit 1\n",
    );
    std::fs::set_permissions(&sacct, std::fs::Permissions::from_mode(0o755)).unwrap();
    for (jobs, shown) in [
        ("4242", "-j 4242`"),
        (" 4242_3, 4243.batch,", "-j 4242_3,4243.batch`"),
    ] {
        let out = bin()
            .args(["audit", "-j", jobs])
            .env("PATH", dir.path())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(shown) && err.contains("Invalid job id"),
            "{err}"
        );
    }
}

#[test]
fn bad_input_names_the_line() {
    let out = bin()
        .args(["audit", "JobID|State|Elapsed\n1|COMPLETED|soon\n"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("line 2") && err.contains("Elapsed"), "{err}");
}

/// A sacct text whose last line was cut (a truncated copy, or a file read
/// while sacct was writing it) is refused with the line and the header's field
/// count, from a file and from stdin, in both parsable layouts: with `-P` the
/// cut line has fewer fields; with `-p` (every field followed by `|`) a line
/// cut just after a `|`, or inside its last value, had the field count of a
/// whole `-P` line and was read as data (an empty or cut time limit).
#[test]
fn a_last_line_cut_short_is_refused_with_its_line_and_the_field_count() {
    let dir = tempfile::tempdir().unwrap();
    let header = "JobID|JobName|State|Elapsed|Timelimit";
    let whole = "101|a|COMPLETED|00:10:00|01:00:00";
    let texts = [
        ("P-cut.txt", format!("{header}\n{whole}\n102|a|COMPL"), 3),
        (
            "p-cut-after.txt",
            format!("{header}|\n{whole}|\n102|a|COMPLETED|00:20:00|"),
            4,
        ),
        (
            "p-cut-inside.txt",
            format!("{header}|\n{whole}|\n102|a|COMPLETED|00:20:00|01:0"),
            4,
        ),
    ];
    for (name, text, found) in texts {
        let file = write_file(dir.path(), name, &text);
        let at = format!("@{}", file.display());
        let from_file = bin().args(["audit", &at]).output().unwrap();
        let from_stdin = output_with_stdin(bin().args(["audit", "-"]), &text);
        for (out, origin) in [(from_file, name), (from_stdin, "<stdin>")] {
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{name}: {err}");
            assert!(
                err.contains(&format!("{origin}, line 3: {found} fields, expected 5 ("))
                    && err.contains("cut short"),
                "{name}: {err}"
            );
            assert!(out.stdout.is_empty(), "{name}: {}", stdout(&out));
        }
    }
}

#[test]
fn text_without_job_ids_or_states_is_refused() {
    let out = bin()
        .args(["audit", "JobName|Elapsed\nx|00:00:01\n"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("no JobID column") && err.contains("--format="),
        "{err}"
    );
    let out = bin()
        .args(["audit", "JobID|State\n1|COMPLETED\n"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(stderr(&out).contains("only the jobs' states can be counted"));
}

/// The arguments of an sbatch line that `calib budget --format sbatch` printed,
/// as the shell passes them to sbatch.
fn sbatch_arguments(line: &str) -> Vec<String> {
    let rest = line.strip_prefix("sbatch ").expect("an sbatch line");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s\\n' {rest}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{line}: {}", stderr(&out));
    stdout(&out).lines().map(String::from).collect()
}

/// What audit's help promises: the jobs that `calib budget --format sbatch`
/// submits are grouped by their stratum, from the comment Slurm records, or
/// from the `calib-` job name where the comment is not kept.
#[test]
fn audit_groups_the_jobs_that_budget_submits_by_their_stratum() {
    let budget = common::budget_bundled()
        .args(["--format", "sbatch"])
        .assert()
        .success();
    let script = stdout(budget.get_output());
    let submitted: Vec<(String, String)> = script
        .lines()
        .filter(|l| l.starts_with("sbatch "))
        .map(|line| {
            let args = sbatch_arguments(line);
            let value = |flag: &str| {
                args.iter()
                    .find_map(|a| a.strip_prefix(flag))
                    .unwrap_or_else(|| panic!("no {flag} in {line}"))
                    .to_string()
            };
            (value("--job-name="), value("--comment="))
        })
        .collect();
    assert_eq!(submitted.len(), 2, "{script}");

    // Slurm's records of those jobs, 3 tasks each; then the same where the
    // site does not keep comments.
    for keep_comments in [true, false] {
        let rows: Vec<String> = submitted
            .iter()
            .enumerate()
            .flat_map(|(job, (name, comment))| {
                let comment = if keep_comments { comment.as_str() } else { "" };
                (0..3).map(move |task| {
                    let (id, raw) = (format!("{}_{task}", 900 + job), 9000 + 10 * job + task);
                    let raw = raw.to_string();
                    row(
                        &id,
                        &raw,
                        name,
                        "COMPLETED",
                        "01:00:00",
                        "12:00:00",
                        comment,
                    )
                })
            })
            .collect();
        let a = audit(&table(&rows), &AuditOptions::default());
        let groups: Vec<(&str, GroupSource, u64)> = a
            .groups
            .iter()
            .map(|g| (g.group.as_str(), g.source, g.usage.tasks))
            .collect();
        let expected = if keep_comments {
            [
                ("dataset=Y", GroupSource::Comment, 3),
                ("dataset=Z", GroupSource::Comment, 3),
            ]
        } else {
            [
                ("dataset-Y", GroupSource::CalibName, 3),
                ("dataset-Z", GroupSource::CalibName, 3),
            ]
        };
        assert_eq!(groups, expected, "{submitted:?}");
    }
}

/// The cluster of --write-timings rows is resolved as budget resolves it:
/// --cluster, else $SLURM_CLUSTER_NAME, else $CC_CLUSTER (a blank variable is
/// unset); and a name that could break a line is refused at the flag, as
/// budget's --cluster is, before any file exists.
#[test]
fn write_timings_cluster_from_the_environment_and_never_a_control_character() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = write_file(dir.path(), "sacct.txt", seed_case_7());
    let at = format!("@{}", sacct.display());

    let from_env = dir.path().join("env.csv");
    let out = bin()
        .args(["audit", &at, "--units", "100", "--write-timings"])
        .arg(&from_env)
        .env("SLURM_CLUSTER_NAME", " ")
        .env("CC_CLUSTER", "beluga")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let timings = read_timings(std::slice::from_ref(&from_env), &IngestOptions::default()).unwrap();
    assert!(timings
        .runs
        .iter()
        .all(|r| r.fingerprint.cluster.as_deref() == Some("beluga")));

    let hostile = dir.path().join("hostile.csv");
    let out = bin()
        .args([
            "audit",
            &at,
            "--units",
            "100",
            "--cluster",
            "narval\n#SBATCH --wrap=x",
        ])
        .arg("--write-timings")
        .arg(&hostile)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--cluster"), "{err}");
    assert!(!hostile.exists());
}

/// The worked example of `calib audit --help` ("a campaign ... whose slowest
/// task used 68% of its budget had 1.47x") is what audit computes: a task that
/// used that share of its time limit is reported with that headroom.
#[test]
fn the_help_example_is_what_audit_reports() {
    let help = stdout(&bin().args(["audit", "--help"]).output().unwrap());
    let example = Regex::new(r"used (\d+)% of its budget\s+had (\d+\.\d+)x").unwrap();
    let claim = example
        .captures(&help)
        .unwrap_or_else(|| panic!("no worked example of headroom in:\n{help}"));
    let (percent, headroom) = (claim[1].parse::<u64>().unwrap(), &claim[2]);

    // One task with a 30-minute limit that ran for that share of it.
    let limit_s = 1800;
    let elapsed_s = limit_s * percent / 100;
    let elapsed = format!(
        "{:02}:{:02}:{:02}",
        elapsed_s / 3600,
        elapsed_s / 60 % 60,
        elapsed_s % 60
    );
    let sacct = format!(
        "{HEADER}\n{}\n",
        row(
            "77_0",
            "77",
            "calib-ds-A",
            "COMPLETED",
            &elapsed,
            "00:30:00",
            ""
        )
    );
    let out = bin().args(["audit", &sacct]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let cells = row_cells(&text, "ds-A");
    assert!(cells.contains(&format!("{percent}%").as_str()), "{text}");
    assert!(cells.contains(&format!("{headroom}x").as_str()), "{text}");
}

#[test]
fn single_jobs_are_called_jobs_and_arrays_arrays() {
    // Real sacct output: eight single jobs on one cluster, one 4-task array
    // on the lab's.
    let lines = |sample: &str| {
        let out = bin()
            .args(["audit", &format!("@tests/data/sacct/{sample}")])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let singles = lines("sacct-ulhpc-iris.txt");
    assert!(
        singles.contains(": job 2243517: 1 task, TIMEOUT 1"),
        "{singles}"
    );
    assert!(!singles.contains(": array "), "{singles}");
    let array = lines("lab-audit-array.txt");
    assert!(array.contains(": array 4: 4 tasks"), "{array}");
}

/// sacct's default fixed-width layout cuts a job name to 10 characters with a
/// `+`: `calib-dataset-X` and `calib-dataset-Y` both print `calib-dat+`. Read
/// as it stands, the tasks of every stratum were audited, and written by
/// --write-timings, as one stratum `dat+`. A group that rests on a cut value
/// is refused (exit 2) with the line and the advice to run `sacct -P`; a cut
/// name beside a comment that names the stratum is no such group.
#[test]
fn a_job_name_cut_by_sacct_s_fixed_width_is_refused_as_a_stratum() {
    let dir = tempfile::tempdir().unwrap();
    let sacct = dir.path().join("sacct-fixed.txt");
    std::fs::write(
        &sacct,
        concat!(
            "       JobID    JobName      State    Elapsed  Timelimit\n",
            "------------ ---------- ---------- ---------- ----------\n",
            "4242_0       calib-dat+  COMPLETED   01:00:00   08:00:00\n",
            "4243_0       calib-dat+    TIMEOUT   08:00:05   08:00:00\n",
        ),
    )
    .unwrap();
    let runs = dir.path().join("runs.csv");
    let out = bin()
        .arg("audit")
        .arg(format!("@{}", sacct.display()))
        .args(["--units", "100", "--write-timings"])
        .arg(&runs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    for part in [
        "sacct-fixed.txt, line 3",
        "JobName `calib-dat+`",
        "sacct -P",
    ] {
        assert!(err.contains(part), "{part} not in {err}");
    }
    assert!(!runs.exists(), "whole-run rows written under a cut name");

    // The comment names the stratum: the cut name is not what groups.
    std::fs::write(
        &sacct,
        concat!(
            "       JobID    JobName      State    Elapsed  Timelimit                  Comment\n",
            "------------ ---------- ---------- ---------- ---------- ------------------------\n",
            "4242_0       calib-dat+  COMPLETED   01:00:00   08:00:00  calib stratum=dataset=X\n",
            "4243_0       calib-dat+    TIMEOUT   08:00:05   08:00:00  calib stratum=dataset=Y\n",
        ),
    )
    .unwrap();
    let out = bin()
        .arg("audit")
        .arg(format!("@{}", sacct.display()))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let groups: Vec<&str> = json["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(groups, ["dataset=X", "dataset=Y"]);
}

/// `-j` with nothing (an unset shell variable), a word that is no job id or
/// an array range (which sacct -j does not take) would have sacct answer
/// about other jobs, or fail: refused before sacct runs, by audit, resume
/// and stage check alike.
#[test]
fn a_job_list_that_names_no_job_is_refused_before_sacct_runs() {
    for (args, value) in [
        (vec!["audit", "-j"], ""),
        (vec!["audit", "-j"], "4242,x"),
        (vec!["audit", "-j"], "42 43; touch x"),
        (vec!["audit", "-j"], "4242,it's"),
        (vec!["audit", "-j"], "4242_[1-3]"),
        (vec!["audit", "-j"], ","),
        (
            vec![
                "resume",
                "x.csv",
                "--timings",
                "x.csv",
                "-n",
                "9",
                "-p",
                "p 1:00",
                "-j",
            ],
            " ",
        ),
        (vec!["stage", "check", "trigger.toml", "-j"], "$JOB"),
    ] {
        let out = bin().args(&args).arg(value).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?} {value:?}: {err}");
        assert!(err.contains("Slurm job ids"), "{args:?} {value:?}: {err}");
    }
    // The smoke is one array: stage check takes one job id.
    let out = bin()
        .args(["stage", "check", "trigger.toml", "-j", "4242,4243"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("one Slurm job id"),
        "{}",
        stderr(&out)
    );
}

/// Tasks that completed under `--time=UNLIMITED` have no budget to measure
/// their use against: the advice says they completed, how long the slowest
/// took and what to ask for, not that no task completed.
#[test]
fn tasks_completed_under_no_finite_limit_are_said_to_have_completed() {
    let unlimited = table(&[
        row("20_0", "20", "x", "COMPLETED", "00:10:00", "UNLIMITED", ""),
        row("20_1", "21", "x", "COMPLETED", "00:20:00", "UNLIMITED", ""),
    ]);
    let g = &audit(&unlimited, &AuditOptions::default()).groups[0];
    assert_eq!(g.advice, [Advice::NoFiniteLimit { slowest_s: 1200 }]);
    let text = g.advice[0].to_string();
    assert!(
        text.starts_with("tasks completed (the slowest in 20m") && text.contains("UNLIMITED"),
        "{text}"
    );
}

/// `calib audit FILE` reads the file, as `@FILE` does, and text that is no
/// file's name is read as sacct text (its message names the argument).
#[test]
fn audit_reads_a_file_named_as_a_plain_path() {
    let sample = common::repo_file("tests/data/sacct/lab-steps-array-timeout.txt");
    let plain = common::calib().arg("audit").arg(&sample).output().unwrap();
    let at = common::calib()
        .arg("audit")
        .arg(format!("@{}", sample.display()))
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0), "{}", common::stderr(&plain));
    assert!(common::stdout(&plain).contains("lab-timeout"));
    assert_eq!(plain.stdout, at.stdout);
    let missing = common::calib()
        .args(["audit", "no-such-sacct.txt"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        common::stderr(&missing).contains("SACCT"),
        "{}",
        common::stderr(&missing)
    );
}
