//! A campaign's completed tasks as timings rows (`calib audit
//! --write-timings`), so that the next `calib fit` learns from the campaign.
//!
//! Each COMPLETED job row becomes one whole-run row: run = the job id, unit =
//! the number of units every task had to do (the user says it: sacct does
//! not know), elapsed = sacct's Elapsed. The fingerprint keeps what sacct
//! knows of where the task ran (node, partition, start, the job id in the
//! form probe writes, `JOB_INDEX` for an array task) and the cluster the
//! caller names, so that `calib budget` can check it. Only the last row of a
//! job id counts, as in the audit; tasks that did not complete say nothing of
//! a whole run's cost and are left out.

use std::collections::HashSet;

use super::{comment_stratum, group_of, is_job_row, AuditOptions};
use crate::slurm::sacct::{JobState, SacctRow, SacctTable};
use crate::stratum::Stratum;
use crate::timings::{Fingerprint, TimingRow};

/// The whole-run rows of the COMPLETED tasks of `table`, in table order.
/// `units` is the number of units of each task; `cluster` the cluster they
/// ran on, when known.
pub(crate) fn whole_run_rows(
    table: &SacctTable,
    options: &AuditOptions,
    units: u64,
    cluster: Option<&str>,
) -> Vec<TimingRow> {
    let mut seen = HashSet::new();
    let mut rows = Vec::new();
    // The last row of each job wins, as in the audit.
    for row in table.rows.iter().rev() {
        let Some(id) = &row.job_id else { continue };
        if !is_job_row(id) || !seen.insert(id.text.clone()) {
            continue;
        }
        if row.state != Some(JobState::Completed) {
            continue;
        }
        let Some(elapsed) = row.elapsed_s else {
            continue;
        };
        rows.push(TimingRow {
            run: id.text.clone(),
            stratum: stratum_for(row, options),
            unit: units,
            elapsed_s: elapsed as f64,
            unit_s: None,
            fingerprint: Fingerprint {
                host: row.node_list.clone(),
                // As probe records it (src/probe/fingerprint.rs) and resume
                // joins on it: JobID as sacct prints it, `4242_3` for an array
                // task, never JobIDRaw's `4245`, which names no array task.
                job_id: Some(id.text.clone()),
                partition: row.partition.clone(),
                started_at: row.start.clone(),
                cluster: cluster.map(str::to_string),
                calib_version: Some(crate::VERSION.to_string()),
                ..Fingerprint::default()
            },
            end: None,
        });
    }
    rows.reverse();
    rows
}

/// The stratum a task's whole-run row is filed under: the comment's stratum, or
/// `name=<group>` when only a job name is known, written as a label value
/// ([`crate::stratum::label_value`]: names that differ stay apart).
fn stratum_for(row: &SacctRow, options: &AuditOptions) -> Stratum {
    if let Some(stratum) = comment_stratum(row) {
        return stratum;
    }
    let (group, _) = group_of(row, options.by_name.as_ref());
    let mut stratum = Stratum::default();
    stratum
        .insert("name", &crate::stratum::label_value(&group))
        .expect("a label value is a valid label");
    stratum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Origin;
    use crate::slurm::sacct::{parse_sacct, SacctOptions};

    #[test]
    fn completed_tasks_only_the_last_row_of_each_job_grouped_by_comment_or_name() {
        let text = "\
JobID|JobIDRaw|JobName|State|Elapsed|Timelimit|Comment
10_1|11|calib-a|COMPLETED|00:01:40|00:10:00|calib stratum=dataset=Y
10_1.batch|11.batch|batch|COMPLETED|00:01:40||
10_2|12|calib-a|TIMEOUT|00:10:00|00:10:00|calib stratum=dataset=Y
20|20|sweep=x,y;z|FAILED|00:00:05|00:10:00|
20|20|sweep=x,y;z|COMPLETED|00:02:00|00:10:00|
";
        let table = parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap();
        let rows = whole_run_rows(&table, &AuditOptions::default(), 40, Some("narval"));
        let summary: Vec<(&str, String, u64, f64, Option<&str>)> = rows
            .iter()
            .map(|r| {
                (
                    r.run.as_str(),
                    r.stratum.canonical(),
                    r.unit,
                    r.elapsed_s,
                    r.fingerprint.job_id.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            [
                ("10_1", "dataset=Y".to_string(), 40, 100.0, Some("10_1")),
                (
                    "20",
                    "name=sweep%3Dx%2Cy%3Bz".to_string(),
                    40,
                    120.0,
                    Some("20")
                ),
            ]
        );
        assert!(rows
            .iter()
            .all(|r| r.fingerprint.cluster.as_deref() == Some("narval")));
    }
}
