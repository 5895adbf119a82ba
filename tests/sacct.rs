//! The sacct parser on every recorded sample (tests/data/sacct, each with its
//! `# source:` line) and on the Slurm lab's verbatim outputs. Expected values
//! were read by hand from the files.

mod common;

use calib::error::{Error, Origin};
use calib::slurm::sacct::{
    parse_sacct, ExitCode, JobId, JobKind, JobState, Layout, SacctOptions, SacctTable, Step,
};
use calib::slurm::time::{PrintedLimit, SlurmTime};
use common::{assert_input_error, recorded_sample};

/// A recorded sacct sample of tests/data/sacct.
fn data(name: &str) -> String {
    recorded_sample(&format!("tests/data/sacct/{name}"))
}

fn parse(name: &str, options: &SacctOptions) -> SacctTable {
    parse_sacct(&data(name), &Origin::file(name), options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn columns(list: &str) -> SacctOptions {
    SacctOptions {
        delimiter: None,
        columns: Some(list.split(',').map(String::from).collect()),
    }
}

fn ids(table: &SacctTable) -> Vec<&str> {
    table
        .rows
        .iter()
        .map(|r| r.job_id.as_ref().map(|j| j.text.as_str()).unwrap_or(""))
        .collect()
}

fn limit(seconds: u64) -> Option<PrintedLimit> {
    Some(PrintedLimit::Time(SlurmTime::Limited(seconds)))
}

fn exit(code: i32, signal: i32) -> Option<ExitCode> {
    Some(ExitCode { code, signal })
}

#[test]
fn galvani_parsable2_job_and_step_rows() {
    let t = parse("sacct-galvani-parsable2.txt", &SacctOptions::default());
    assert_eq!(
        t.layout,
        Layout::Delimited {
            delimiter: "|".into(),
            trailing: false
        }
    );
    assert!(t.had_header);
    assert_eq!(t.columns, ["JobID", "NodeList", "State", "ExitCode"]);
    assert_eq!(t.rows.len(), 16);
    assert_eq!(
        &ids(&t)[..4],
        ["239023", "239023.batch", "239023.extern", "239023.0"]
    );
    let job = &t.rows[0];
    assert_eq!(job.line, 3);
    let id = job.job_id.as_ref().unwrap();
    assert_eq!(
        (id.job, &id.kind, &id.step),
        (239023, &JobKind::Plain, &None)
    );
    assert_eq!(job.node_list.as_deref(), Some("galvani-cn001"));
    assert_eq!(job.state, Some(JobState::Completed));
    assert_eq!(job.exit_code, exit(0, 0));
    // Columns the output does not have are unknown, not errors.
    assert_eq!(
        (job.elapsed_s, job.timelimit, &job.job_name),
        (None, None, &None)
    );
    assert_eq!(t.rows[1].job_id.as_ref().unwrap().step, Some(Step::Batch));
    assert_eq!(t.rows[2].job_id.as_ref().unwrap().step, Some(Step::Extern));
    let step0 = &t.rows[3];
    assert_eq!(
        step0.job_id.as_ref().unwrap().step,
        Some(Step::Numbered { id: 0, het: None })
    );
    assert_eq!(step0.state, Some(JobState::Cancelled { by: None }));
    assert_eq!(step0.exit_code, exit(0, 10));
    let jobs: Vec<u64> = t
        .rows
        .iter()
        .filter(|r| !r.is_step())
        .map(|r| r.job_id.as_ref().unwrap().job)
        .collect();
    assert_eq!(jobs, [239023, 239024, 239025, 239026]);
    assert_eq!(t.get(&t.rows[15], "nodelist"), Some("galvani-cn001"));
}

/// reportseff's sample: `--parsable -n --delimiter=^|^`. The column names are
/// not in the data and are unverified (see its source line); these are the
/// sorted set reportseff requested with one unnamed column where the row has
/// one value more. Only the safe observations are asserted.
const REPORTSEFF_COLUMNS: &str = "AdminComment,AllocCPUS,Elapsed,JobID,JobIDRaw,MaxRSS,NNodes,Unnamed,REQMEM,State,TRESUsageOutAve,Timelimit,TotalCPU";

#[test]
fn reportseff_caret_delimiter_trailing_no_header() {
    let mut options = columns(REPORTSEFF_COLUMNS);
    options.delimiter = Some("^|^".into());
    let t = parse("sacct-reportseff-array-caretdelim.txt", &options);
    assert_eq!(
        t.layout,
        Layout::Delimited {
            delimiter: "^|^".into(),
            trailing: true
        }
    );
    assert!(!t.had_header);
    assert_eq!(t.rows.len(), 12);
    let task1 = &t.rows[0];
    assert_eq!(task1.line, 2);
    let id = task1.job_id.as_ref().unwrap();
    assert_eq!(
        (id.job, &id.kind, &id.step),
        (37403870, &JobKind::ArrayTask(1), &None)
    );
    assert_eq!(id.array_job(), Some(37403870));
    assert_eq!(task1.job_id_raw.as_ref().unwrap().text, "37403937");
    assert_eq!(task1.job_id_raw.as_ref().unwrap().kind, JobKind::Plain);
    assert_eq!(task1.state, Some(JobState::Completed));
    assert_eq!(task1.elapsed_s, Some(69));
    assert_eq!(task1.timelimit, limit(120));
    assert_eq!(t.get(task1, "TotalCPU"), Some("00:47.734"));
    assert_eq!(t.get(task1, "AdminComment"), Some(""));
    let batch = &t.rows[1];
    assert_eq!(batch.job_id.as_ref().unwrap().text, "37403870_1.batch");
    assert_eq!(batch.job_id.as_ref().unwrap().step, Some(Step::Batch));
    assert_eq!(batch.job_id_raw.as_ref().unwrap().text, "37403937.batch");
    // Step rows print an empty Timelimit.
    assert_eq!(batch.timelimit, Some(PrintedLimit::Unknown));
    // The last task keeps the array master id as its raw id.
    let task4 = &t.rows[9];
    assert_eq!(task4.job_id.as_ref().unwrap().text, "37403870_4");
    assert_eq!(task4.job_id_raw.as_ref().unwrap().job, 37403870);
    assert_eq!(task4.elapsed_s, Some(71));
    let tasks: Vec<&str> = t
        .rows
        .iter()
        .filter(|r| !r.is_step())
        .map(|r| r.job_id.as_ref().unwrap().text.as_str())
        .collect();
    assert_eq!(
        tasks,
        ["37403870_1", "37403870_2", "37403870_3", "37403870_4"]
    );
    let elapsed: Vec<u64> = t
        .rows
        .iter()
        .filter(|r| !r.is_step())
        .map(|r| r.elapsed_s.unwrap())
        .collect();
    assert_eq!(elapsed, [69, 81, 94, 71]);
}

#[test]
fn reportseff_without_column_names_is_refused_with_advice() {
    let options = SacctOptions {
        delimiter: Some("^|^".into()),
        columns: None,
    };
    let err = parse_sacct(
        &data("sacct-reportseff-array-caretdelim.txt"),
        &Origin::Stdin,
        &options,
    )
    .unwrap_err();
    assert_input_error(&err, Some(2), &["not a header", "without -n"]);
}

#[test]
fn ulhpc_fixed_width_read_by_column_spans() {
    let t = parse("sacct-ulhpc-iris.txt", &SacctOptions::default());
    assert_eq!(t.layout, Layout::FixedWidth);
    assert_eq!(
        t.columns,
        [
            "User",
            "JobID",
            "Partition",
            "QOS",
            "State",
            "Timelimit",
            "Elapsed",
            "NNodes",
            "NCPUS",
            "AllocGRES"
        ]
    );
    assert_eq!(t.rows.len(), 8);
    assert_eq!(
        ids(&t),
        ["2243517", "2243518", "2244056", "2246094", "2246120", "2247278", "2250178", "2251232"]
    );
    let r = &t.rows[0];
    assert_eq!(r.line, 4);
    assert_eq!(t.get(r, "User"), Some("<login>"));
    assert_eq!(r.partition.as_deref(), Some("batch"));
    assert_eq!(t.get(r, "QOS"), Some("normal"));
    assert_eq!(r.state, Some(JobState::Timeout));
    assert_eq!(r.timelimit, limit(2 * 86_400));
    assert_eq!(r.elapsed_s, Some(2 * 86_400 + 5));
    assert_eq!(t.get(r, "NNodes"), Some("4"));
    assert_eq!(t.get(r, "NCPUS"), Some("112"));
    assert_eq!(t.get(r, "AllocGRES"), Some(""));
    assert!(r.truncated.is_empty());
    let gpu = &t.rows[2];
    assert_eq!(gpu.partition.as_deref(), Some("gpu"));
    assert_eq!(gpu.elapsed_s, Some(2 * 86_400 + 12));
    assert_eq!(t.get(gpu, "AllocGRES"), Some("gpu:2"));
    assert_eq!(t.get(&t.rows[3], "QOS"), Some("high"));
    assert_eq!(t.rows[4].state, Some(JobState::Completed));
    assert_eq!(t.rows[4].elapsed_s, Some(86_400 + 2 * 3600 + 18 * 60));
    assert_eq!(t.rows[5].partition.as_deref(), Some("bigmem"));
    assert_eq!(t.rows[5].elapsed_s, Some(86_400 + 5 * 3600 + 59 * 60 + 21));
    assert_eq!(t.rows[6].elapsed_s, Some(10 * 3600 + 4 * 60 + 32));
    assert_eq!(t.get(&t.rows[6], "NCPUS"), Some("1"));
    let last = &t.rows[7];
    assert_eq!(last.timelimit, limit(86_400));
    assert_eq!(last.elapsed_s, Some(12 * 3600 + 5 * 60 + 46));
    assert_eq!(t.get(last, "AllocGRES"), Some("gpu:1"));
    let timeouts = t
        .rows
        .iter()
        .filter(|r| r.state == Some(JobState::Timeout))
        .count();
    assert_eq!(timeouts, 4);
}

#[test]
fn fixed_width_cut_values_are_flagged_or_refused() {
    let text = concat!(
        "       JobID    JobName      State    Elapsed  Timelimit\n",
        "------------ ---------- ---------- ---------- ----------\n",
        "          41 very_long+ CANCELLED+   00:00:04   00:10:00\n",
        "          42      short  COMPLETED   00:00:09   00:10:00\n",
    );
    let t = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap();
    assert_eq!(t.rows[0].state, Some(JobState::Cancelled { by: None }));
    assert_eq!(t.rows[0].job_name.as_deref(), Some("very_long+"));
    assert_eq!(t.rows[0].truncated, ["JobName", "State"]);
    assert_eq!(t.rows[1].elapsed_s, Some(9));
    assert!(t.rows[1].truncated.is_empty());
    let cut = concat!(
        "   JobID    Elapsed\n",
        "-------- ----------\n",
        "      43 10-00:00:+\n",
    );
    let err = parse_sacct(cut, &Origin::Stdin, &SacctOptions::default()).unwrap_err();
    assert_input_error(&err, Some(3), &["sacct -P"]);
}

#[test]
fn lab_allocations_block_1() {
    let t = parse("lab-sacct-X-1.txt", &SacctOptions::default());
    assert_eq!(t.rows.len(), 10);
    let timeout = &t.rows[0];
    assert_eq!(timeout.job_name.as_deref(), Some("probe_timeout"));
    assert_eq!(timeout.partition.as_deref(), Some("short"));
    assert_eq!(timeout.state, Some(JobState::Timeout));
    assert_eq!(
        (timeout.elapsed_s, timeout.timelimit_s()),
        (Some(71), Some(60))
    );
    assert_eq!(t.rows[2].state, Some(JobState::Failed));
    assert_eq!(t.rows[2].exit_code, exit(2, 0));
    assert_eq!(t.rows[3].state, Some(JobState::Cancelled { by: Some(0) }));
    assert_eq!(
        t.rows[3].state.as_ref().unwrap().to_string(),
        "CANCELLED by 0"
    );
    let task = t.rows[4].job_id.as_ref().unwrap();
    assert_eq!((task.job, &task.kind), (15, &JobKind::ArrayTask(0)));
    assert_eq!(
        (t.rows[4].elapsed_s, t.rows[4].timelimit_s()),
        (Some(30), Some(300))
    );
    assert_eq!(t.rows[8].timelimit_s(), Some(4 * 3600));
    let held = &t.rows[9];
    assert_eq!(held.node_list, None);
    assert_eq!(t.get(held, "NodeList"), Some("None assigned"));
    assert_eq!(held.elapsed_s, Some(0));
}

#[test]
fn lab_allocations_block_2() {
    let t = parse("lab-sacct-X-2.txt", &SacctOptions::default());
    assert_eq!(ids(&t), ["11", "15", "16", "18"]);
    assert_eq!(t.rows[0].exit_code, exit(3, 0));
    assert_eq!(t.rows[1].timelimit_s(), Some(2 * 86_400));
    assert_eq!(t.rows[1].node_list, None);
    assert_eq!(t.rows[2].partition.as_deref(), Some("cpubase_bycore_b2"));
    assert_eq!(t.rows[2].timelimit_s(), Some(10 * 3600));
    assert_eq!(t.rows[3].state, Some(JobState::Failed));
    assert_eq!(t.rows[3].exit_code, exit(0, 9));
}

const LAB_COLUMNS: &str = "JobID,JobName,Partition,Elapsed,Timelimit,State,ExitCode,NodeList";

#[test]
fn lab_partition_limit_without_header() {
    let t = parse(
        "lab-sacct-partition-limit-noheader.txt",
        &columns(LAB_COLUMNS),
    );
    assert!(!t.had_header);
    assert_eq!(t.rows.len(), 1);
    assert_eq!(t.rows[0].timelimit, Some(PrintedLimit::PartitionLimit));
    assert_eq!(t.rows[0].timelimit_s(), None);
    assert_eq!(t.rows[0].state, Some(JobState::Cancelled { by: Some(0) }));
    // Without the column names the same text is refused, naming the line.
    let err = parse_sacct(
        &data("lab-sacct-partition-limit-noheader.txt"),
        &Origin::Stdin,
        &SacctOptions::default(),
    )
    .unwrap_err();
    assert_input_error(&err, Some(2), &[]);
}

#[test]
fn lab_steps_without_header() {
    let t = parse("lab-sacct-steps-noheader.txt", &columns(LAB_COLUMNS));
    assert_eq!(t.rows.len(), 12);
    let batch = &t.rows[1];
    assert_eq!(batch.job_id.as_ref().unwrap().step, Some(Step::Batch));
    assert_eq!(batch.partition, None);
    assert_eq!(batch.timelimit, Some(PrintedLimit::Unknown));
    assert_eq!(batch.elapsed_s, Some(75));
    assert_eq!(batch.state, Some(JobState::Cancelled { by: None }));
    assert_eq!(batch.exit_code, exit(0, 9));
    assert_eq!(t.rows[5].exit_code, exit(0, 15));
    let srun = t.rows[11].job_id.as_ref().unwrap();
    assert_eq!(srun.step, Some(Step::Numbered { id: 1, het: None }));
    assert_eq!(srun.allocation_text(), "17");
    let jobs: Vec<&str> = t
        .rows
        .iter()
        .filter(|r| !r.is_step())
        .map(|r| r.job_id.as_ref().unwrap().text.as_str())
        .collect();
    assert_eq!(jobs, ["12", "14", "16", "15_0", "17"]);
}

#[test]
fn lab_raw_seconds_and_minutes() {
    let t = parse(
        "lab-sacct-raw-noheader.txt",
        &columns("JobID,ElapsedRaw,TimelimitRaw"),
    );
    assert_eq!(
        (t.rows[0].elapsed_s, t.rows[0].timelimit_s()),
        (Some(71), Some(60))
    );
}

#[test]
fn parsable_with_trailing_delimiter_and_header() {
    let text = "JobID|State|Elapsed|\n7|COMPLETED|00:00:05|\n8|RUNNING||\n";
    let t = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap();
    assert_eq!(t.columns, ["JobID", "State", "Elapsed"]);
    assert_eq!(
        t.layout,
        Layout::Delimited {
            delimiter: "|".into(),
            trailing: true
        }
    );
    assert_eq!(t.rows[0].elapsed_s, Some(5));
    assert_eq!(t.rows[1].state, Some(JobState::Running));
    assert_eq!(t.rows[1].elapsed_s, None);
}

#[test]
fn multi_char_delimiter_with_header() {
    let text = "JobID^|^JobName^|^State\n1234_[6-10]^|^sweep^|^PENDING\n1234+0^|^het^|^COMPLETED\n";
    let options = SacctOptions {
        delimiter: Some("^|^".into()),
        columns: None,
    };
    let t = parse_sacct(text, &Origin::Stdin, &options).unwrap();
    let pending = t.rows[0].job_id.as_ref().unwrap();
    assert_eq!(pending.kind, JobKind::ArrayPending("6-10".into()));
    assert_eq!(pending.pending_task_count(), Some(5));
    assert_eq!(
        t.rows[1].job_id.as_ref().unwrap().kind,
        JobKind::HetComponent(0)
    );
}

#[test]
fn a_job_name_containing_the_delimiter_goes_back_to_its_column() {
    let text = "JobID|JobName|State\n9|a|b|COMPLETED\n";
    let t = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap();
    assert_eq!(t.rows[0].job_name.as_deref(), Some("a|b"));
    assert_eq!(t.rows[0].state, Some(JobState::Completed));
    // With two free-text columns it is ambiguous: refused, with the line.
    let text = "JobID|JobName|Comment|State\n9|a|b|c|COMPLETED\n";
    let err = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap_err();
    assert_input_error(&err, Some(2), &["5 fields, expected 4"]);
    // An empty last value (a Comment, as most jobs have) after such a name is
    // no `-p` line end: the header settled that lines do not end with `|`.
    let text = "JobID|JobName|State|Comment\n9|a|b|COMPLETED|\n";
    let err = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap_err();
    assert_input_error(
        &err,
        Some(2),
        &["5 fields, expected 4", "contain the delimiter"],
    );
    let text = "JobID|JobName|State|Comment\n9|ab|COMPLETED|\n";
    let t = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap();
    assert_eq!(t.rows[0].state, Some(JobState::Completed));
}

/// Pending arrays as Slurm prints them, a list too long cut with `...`
/// (`xlate_array_task_str`), are read as one row of unknown task count.
#[test]
fn a_pending_array_list_cut_short_is_read() {
    let text = "JobID|State|Elapsed|Timelimit\n1234_[2,4,6,...]|PENDING|00:00:00|01:00:00\n1235_[1-3%2]|PENDING|00:00:00|01:00:00\n";
    let t = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap();
    let id = t.rows[0].job_id.as_ref().unwrap();
    assert!(
        matches!(id.kind, JobKind::ArrayPending(_)) && id.step.is_none(),
        "{id:?}"
    );
    assert_eq!(id.pending_task_count(), None);
    assert_eq!(
        t.rows[1].job_id.as_ref().unwrap().pending_task_count(),
        Some(3)
    );
}

#[test]
fn bad_values_name_the_line_and_what_was_expected() {
    let cases = [
        ("JobID|State\n1|COMPLETED\nx1|COMPLETED\n", 3, "JobID"),
        ("JobID|Elapsed\n1|1:2:3:4\n", 2, "Elapsed"),
        ("JobID|Timelimit\n1|3h\n", 2, "Timelimit"),
        ("JobID|ExitCode\n1|0\n", 2, "<code>:<signal>"),
        (
            "JobID|State|Elapsed\n1|COMPLETED\n",
            2,
            "2 fields, expected 3",
        ),
    ];
    for (text, want_line, want) in cases {
        let err = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap_err();
        assert_input_error(&err, Some(want_line), &[want]);
    }
}

#[test]
fn plain_text_that_is_not_sacct_is_refused_with_advice() {
    let err = parse_sacct(
        "239023 COMPLETED 0:0\n",
        &Origin::Stdin,
        &SacctOptions::default(),
    )
    .unwrap_err();
    assert_input_error(&err, Some(1), &["sacct -P"]);
}

#[test]
fn empty_and_single_column_outputs() {
    // sacct prints its header even where no job matched: empty text is a
    // sacct that failed, and reading it as no jobs would report success.
    for empty in ["", "\n\n", "  \r\n"] {
        let err = parse_sacct(empty, &Origin::Stdin, &SacctOptions::default()).unwrap_err();
        assert_input_error(&err, None, &["no sacct output", "header line"]);
    }
    // Headerless output (`sacct -n`) with its columns given: no jobs.
    let headerless = SacctOptions {
        columns: Some(vec!["JobID".into(), "State".into()]),
        ..SacctOptions::default()
    };
    let t = parse_sacct("", &Origin::Stdin, &headerless).unwrap();
    assert!(t.rows.is_empty());
    let t = parse_sacct("JobID\n5\n6_1\n", &Origin::Stdin, &SacctOptions::default()).unwrap();
    assert_eq!(ids(&t), ["5", "6_1"]);
    let j = JobId::parse("6_1").unwrap();
    assert_eq!(j.array_job(), Some(6));
}

#[test]
fn lab_audit_columns_array_and_timeout() {
    let t = parse("lab-audit-array.txt", &SacctOptions::default());
    assert_eq!(t.columns.len(), 14);
    assert_eq!(ids(&t), ["4_0", "4_1", "4_2", "4_3"]);
    let raws: Vec<&str> = t
        .rows
        .iter()
        .map(|r| r.job_id_raw.as_ref().unwrap().text.as_str())
        .collect();
    // The last task keeps the array's own id.
    assert_eq!(raws, ["6", "7", "8", "4"]);
    let elapsed: Vec<u64> = t.rows.iter().map(|r| r.elapsed_s.unwrap()).collect();
    assert_eq!(elapsed, [2, 4, 6, 8]);
    let r = &t.rows[3];
    assert_eq!(r.timelimit_s(), Some(60));
    assert_eq!(r.job_name.as_deref(), Some("calib-lab-array"));
    assert_eq!(r.comment.as_deref(), Some("calib stratum=lab=array"));
    assert_eq!(r.start.as_deref(), Some("2026-11-29T22:43:49"));
    assert_eq!(r.end.as_deref(), Some("2026-11-29T22:43:57"));
    assert_eq!(r.node_list.as_deref(), Some("localhost"));

    let t = parse("lab-audit-timeout.txt", &SacctOptions::default());
    let r = &t.rows[0];
    assert_eq!(r.state, Some(JobState::Timeout));
    assert_eq!(r.partition.as_deref(), Some("short"));
    assert_eq!((r.elapsed_s, r.timelimit_s()), (Some(72), Some(60)));
    assert_eq!(t.get(r, "ElapsedRaw"), Some("72"));
    assert_eq!(t.get(r, "TimelimitRaw"), Some("1"));
}

#[test]
fn lab_steps_of_an_array_and_a_timeout() {
    let t = parse("lab-steps-array-timeout.txt", &SacctOptions::default());
    assert_eq!(t.rows.len(), 10);
    let batch = &t.rows[1];
    assert_eq!(batch.job_id.as_ref().unwrap().text, "5.batch");
    assert_eq!(batch.state, Some(JobState::Cancelled { by: None }));
    assert_eq!(batch.exit_code, exit(0, 15));
    assert_eq!(batch.timelimit, Some(PrintedLimit::Unknown));
    let task_step = &t.rows[9];
    let id = task_step.job_id.as_ref().unwrap();
    assert_eq!(
        (id.job, &id.kind, &id.step),
        (4, &JobKind::ArrayTask(3), &Some(Step::Batch))
    );
    assert_eq!(task_step.job_id_raw.as_ref().unwrap().text, "4.batch");
    assert_eq!(t.rows.iter().filter(|r| !r.is_step()).count(), 5);
}

mod no_panics {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any text, with or without column names: a table or an input error,
        /// never a panic.
        #[test]
        fn arbitrary_text_parses_or_errors(
            text in "[0-9A-Za-z_|:.+\\[\\]%,\\- \n^]{0,200}",
            named in any::<bool>(),
            caret in any::<bool>(),
        ) {
            let options = SacctOptions {
                delimiter: caret.then(|| "^|^".to_string()),
                columns: named.then(|| LAB_COLUMNS.split(',').map(String::from).collect()),
            };
            match parse_sacct(&text, &Origin::Stdin, &options) {
                Ok(_) | Err(Error::Input { .. }) => {}
                Err(other) => panic!("unexpected error kind: {other}"),
            }
        }

        #[test]
        fn arbitrary_job_ids_never_panic(text in "[0-9_+.\\[\\]%,:\\-a-z]{0,30}") {
            if let Ok(id) = JobId::parse(&text) {
                let _ = id.pending_task_count();
                prop_assert_eq!(id.text, text.trim());
            }
        }
    }
}

#[test]
fn a_byte_order_mark_before_the_header_is_not_part_of_it() {
    // A sample saved by a Windows editor: the same rows, as the timings,
    // partition and grid readers already had it.
    for name in ["sacct-ulhpc-iris.txt", "lab-audit-array.txt"] {
        let plain = parse(name, &SacctOptions::default());
        let marked = format!("\u{feff}{}", data(name));
        let read = parse_sacct(&marked, &Origin::file(name), &SacctOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ids(&read), ids(&plain), "{name}");
        assert!(!ids(&read).is_empty(), "{name}");
    }
}
