//! The sacct text an audit reads: the columns calib asks for, the `sacct`
//! command it runs when no text is given, and the columns it cannot do
//! without.

use std::process::Command;

use crate::error::{Error, Origin, Result};
use crate::probe::gate::shell_join;
use crate::slurm::sacct::{parse_sacct, SacctOptions, SacctTable};

/// The columns calib asks sacct for. Comment comes last: values are not escaped
/// and a comment is the field most likely to contain the delimiter.
pub const SACCT_FORMAT: &str = "JobID,JobIDRaw,JobName,Partition,State,ExitCode,Elapsed,ElapsedRaw,Timelimit,TimelimitRaw,NodeList,Start,End,Comment";

/// The field separator calib asks sacct for when it runs sacct itself: the
/// ASCII unit separator, which no job name or comment a user types holds.
/// With `|` (sacct's own), a `|` in a job name or comment (a label of calib's
/// strata reaches the comment) shifts the columns; sacct escapes nothing.
pub const SACCT_DELIMITER: &str = "\u{1f}";

/// Which jobs to ask sacct for; all `None` is sacct's own default (this
/// user's jobs since midnight).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SacctQuery {
    /// A comma list of job ids (`sacct -j`).
    pub jobs: Option<String>,
    /// A start date (`sacct -S`).
    pub since: Option<String>,
    /// A comma list of job names (`sacct --name`).
    pub names: Option<String>,
}

impl SacctQuery {
    /// The arguments of the `sacct` command: job rows only (`-X`), parsable
    /// (`-P`) with [`SACCT_DELIMITER`] between fields, the columns of
    /// [`SACCT_FORMAT`].
    pub(crate) fn argv(&self) -> Vec<String> {
        let mut argv = vec![
            "-P".to_string(),
            "-X".to_string(),
            format!("--delimiter={SACCT_DELIMITER}"),
            format!("--format={SACCT_FORMAT}"),
        ];
        for (flag, value) in [
            ("-j", &self.jobs),
            ("-S", &self.since),
            ("--name", &self.names),
        ] {
            if let Some(value) = value {
                argv.extend([flag.to_string(), value.clone()]);
            }
        }
        argv
    }

    /// Runs sacct and returns its table and how to name it in messages. No
    /// sacct on `PATH` is a refusal that says how to pass its text instead.
    pub fn run(&self) -> Result<(SacctTable, Origin)> {
        let argv = self.argv();
        // Shell-quoted, so that a value from the user (a -j list sacct
        // rejected) shows where it starts and ends and can be pasted back.
        let shown = format!("sacct {}", shell_join(&argv));
        let output = Command::new("sacct").args(&argv).output().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Refused(
                    "no SACCT text was given and sacct is not on PATH: run calib audit on the \
                     cluster, or pass sacct's output: sacct -P -X -j IDS > sacct.txt; calib audit @sacct.txt"
                        .into(),
                )
            } else {
                Error::io("cannot run sacct", e)
            }
        })?;
        if !output.status.success() {
            return Err(Error::Failed(format!(
                "`{shown}` failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        let text = String::from_utf8(output.stdout).map_err(|_| {
            Error::input(
                Origin::Argument(format!("`{shown}`")),
                None,
                "sacct's output is not UTF-8",
            )
        })?;
        let origin = Origin::Argument(format!("the output of `{shown}`"));
        let options = SacctOptions {
            delimiter: Some(SACCT_DELIMITER.to_string()),
            columns: None,
        };
        Ok((parse_sacct(&text, &origin, &options)?, origin))
    }
}

/// Checks that `table` (read from `origin`) can be audited: without JobID or
/// State it cannot (bad input), rows or not (a header without them is no
/// sacct output: a word taken for a header, the wrong file); without elapsed
/// and limit columns only states can be counted, which the returned warnings
/// say where there are rows.
pub(crate) fn check_columns(table: &SacctTable, origin: &Origin) -> Result<Vec<String>> {
    if table.rows.is_empty() && !table.had_header {
        return Ok(Vec::new());
    }
    for needed in ["JobID", "State"] {
        if table.column(needed).is_none() {
            return Err(Error::input(
                origin.clone(),
                None,
                format!(
                    "the sacct text has no {needed} column; run sacct -P with \
                     --format={SACCT_FORMAT}"
                ),
            ));
        }
    }
    let has = |a: &str, b: &str| table.column(a).or(table.column(b)).is_some();
    if !table.rows.is_empty()
        && (!has("Timelimit", "TimelimitRaw") || !has("Elapsed", "ElapsedRaw"))
    {
        return Ok(vec![format!(
            "without Elapsed and Timelimit columns, only the jobs' states can be \
             counted; run sacct -P with --format={SACCT_FORMAT}"
        )]);
    }
    Ok(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slurm::sacct::{parse_sacct, SacctOptions};

    fn table(text: &str) -> SacctTable {
        parse_sacct(text, &Origin::Stdin, &SacctOptions::default()).unwrap()
    }

    #[test]
    fn argv_asks_for_job_rows_and_passes_only_what_was_given() {
        let query = SacctQuery {
            jobs: Some("4242,4243".into()),
            names: Some("calib-x".into()),
            ..SacctQuery::default()
        };
        let argv = query.argv();
        assert_eq!(argv[..2], ["-P", "-X"]);
        assert_eq!(argv[4..], ["-j", "4242,4243", "--name", "calib-x"]);
    }

    #[test]
    fn columns_needed_refused_columns_wanted_warned() {
        let e = check_columns(&table("JobName|Elapsed\nx|00:00:01\n"), &Origin::Stdin).unwrap_err();
        assert!(e.to_string().contains("no JobID column"), "{e}");
        assert_eq!(e.exit_code(), 2);
        let states_only = check_columns(&table("JobID|State\n1|COMPLETED\n"), &Origin::Stdin);
        assert_eq!(states_only.unwrap().len(), 1);
        let full = "JobID|State|Elapsed|Timelimit\n1|COMPLETED|00:01:00|00:10:00\n";
        assert!(check_columns(&table(full), &Origin::Stdin)
            .unwrap()
            .is_empty());
    }

    // A header without JobID and State is no sacct output, rows or not.
    #[test]
    fn a_header_without_job_id_or_state_is_refused_without_rows_too() {
        assert!(check_columns(&table("garbage\n"), &Origin::Stdin).is_err());
        assert!(check_columns(&table("JobID|Foo\n"), &Origin::Stdin).is_err());
        assert_eq!(
            check_columns(&table("JobID|State\n"), &Origin::Stdin).unwrap(),
            Vec::<String>::new()
        );
    }
}
