//! `calib audit`: read sacct after a campaign and say what each stratum really
//! used of the time it asked for.

use std::path::PathBuf;
use std::process::Command;

use regex::Regex;

use crate::audit::{self, AuditOptions};
use crate::commands::input::read_text_argument;
use crate::error::{Error, Origin, Result};
use crate::output::{self, Format};
use crate::slurm::sacct::{parse_sacct, JobState, SacctOptions, SacctTable};
use crate::stratum::Stratum;
use crate::timings::{read_timings, Fingerprint, IngestOptions, TimingRow, TimingsWriter};

/// The columns calib asks sacct for. Comment comes last: values are not escaped
/// and a comment is the field most likely to contain the delimiter.
pub const SACCT_FORMAT: &str = "JobID,JobIDRaw,JobName,Partition,State,ExitCode,Elapsed,ElapsedRaw,Timelimit,TimelimitRaw,NodeList,Start,End,Comment";

const AFTER_HELP: &str = "\
What and why: read sacct after a campaign: per stratum and per array, how many tasks completed, \
failed or hit their time limit, and the share of its budget that the slowest task \
used. That share, not the margin you meant to give, is your real headroom: a \
campaign sized at \"10x the projection\" whose slowest task used 68% of its budget \
had 1.47x.

Strata are recognised from the job comment `calib stratum=<labels>` and the job name \
`calib-<slug>` that `calib budget` puts in its sbatch lines, or from the job name by \
--by-name, or else each job name is a group. Step rows (.batch, .extern, .0) are \
left out: the job row carries the outcome.

Advice: a TIMEOUT or more than 90% used means the budget was too short or too thin; \
less than 40% used means you could ask for less and start sooner.

Examples:
  calib audit -j 4242                        (on the cluster: runs sacct itself)
  sacct -P -X -j 4242 --format=JobID,JobName,State,Elapsed,Timelimit | calib audit -
  calib audit @sacct.txt --timings calib-timings/ --units 100
  calib audit -j 4242 --units 100 --write-timings runs.csv
      (then calib fit calib-timings/ runs.csv learns from the campaign)";

/// Arguments of `calib audit`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct AuditArgs {
    /// `sacct -P` output with its header line: the text itself, @FILE, or - for
    /// standard input. Without it calib runs `sacct -P -X` itself (on a cluster),
    /// with the options -j, -S and --name below.
    #[arg(value_name = "SACCT")]
    pub sacct: Option<String>,

    /// Jobs to audit when calib runs sacct: a comma list of job ids (sacct -j).
    #[arg(short = 'j', long = "jobs", value_name = "IDS")]
    pub jobs: Option<String>,

    /// When calib runs sacct: jobs since this date, e.g. 2026-11-01 (sacct -S).
    /// sacct's own default is since midnight.
    #[arg(short = 'S', long = "since", value_name = "DATE")]
    pub since: Option<String>,

    /// When calib runs sacct: only jobs with these names, comma list (sacct --name).
    #[arg(long = "name", value_name = "NAMES")]
    pub name: Option<String>,

    /// Group jobs by this regex on the job name: its first capture group (or the
    /// whole match) names the group, e.g. 'sweep-(ds[0-9]+)-seed'. Jobs that do not
    /// match are grouped as usual.
    #[arg(long = "by-name", value_name = "REGEX")]
    pub by_name: Option<String>,

    /// Probe timings of the campaign's tasks (files or folders of calib probe
    /// CSVs): a TIMEOUT task is matched by its job id (the job_id column) to tell
    /// how many units it reached.
    #[arg(long = "timings", value_name = "PATH")]
    pub timings: Vec<PathBuf>,

    /// The number of units each task had to do: projects the time a timed-out
    /// task needed, and is the unit count of --write-timings rows.
    #[arg(long = "units", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub units: Option<u64>,

    /// Write each COMPLETED task as a whole-run row of a timings file (run = job
    /// id, unit = --units, elapsed_s = Elapsed), so that the next calib fit learns
    /// from the campaign. The file must not exist. Needs --units.
    #[arg(long = "write-timings", value_name = "FILE")]
    pub write_timings: Option<PathBuf>,

    /// The cluster the audited jobs ran on, recorded in --write-timings rows so
    /// that calib budget accepts them as a calibration of that cluster. Default:
    /// $SLURM_CLUSTER_NAME, else $CC_CLUSTER.
    #[arg(long, value_name = "NAME")]
    pub cluster: Option<String>,

    /// The field separator of SACCT when it is not `|` (sacct --delimiter).
    #[arg(long = "delimiter", value_name = "TEXT")]
    pub delimiter: Option<String>,

    /// Output: a table for people, or JSON.
    #[arg(long = "format", value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

pub fn run(args: &AuditArgs) -> Result<i32> {
    if args.write_timings.is_some() && args.units.is_none() {
        return Err(Error::Refused(
            "--write-timings needs --units N: a whole-run row records how many units the run did; \
             give the number of units each task had to do"
                .into(),
        ));
    }
    let by_name = args
        .by_name
        .as_deref()
        .map(|re| {
            Regex::new(re).map_err(|e| {
                Error::input(
                    Origin::Argument("--by-name".into()),
                    None,
                    format!("not a regular expression: {e}"),
                )
            })
        })
        .transpose()?;
    let (origin, text) = read_input(args)?;
    let table = parse_sacct(
        &text,
        &origin,
        &SacctOptions {
            delimiter: args.delimiter.clone(),
            columns: None,
        },
    )?;
    for needed in ["JobID", "State"] {
        if table.column(needed).is_none() && !table.rows.is_empty() {
            return Err(Error::input(
                origin,
                None,
                format!(
                    "the sacct text has no {needed} column; run sacct -P with \
                     --format={SACCT_FORMAT}"
                ),
            ));
        }
    }
    if !table.rows.is_empty()
        && (table
            .column("Timelimit")
            .or(table.column("TimelimitRaw"))
            .is_none()
            || table
                .column("Elapsed")
                .or(table.column("ElapsedRaw"))
                .is_none())
    {
        output::warn(format_args!(
            "without Elapsed and Timelimit columns, the audit counts states \
             only; run sacct -P with --format={SACCT_FORMAT}"
        ));
    }
    let timings = if args.timings.is_empty() {
        None
    } else {
        Some(read_timings(&args.timings, &IngestOptions::default())?)
    };
    if let Some(t) = &timings {
        for warning in &t.warnings {
            output::warn(warning);
        }
    }
    let options = AuditOptions {
        by_name,
        timings: timings.as_ref(),
        units: args.units,
    };
    let report = audit::audit(&table, &options);
    if let (Some(path), Some(units)) = (&args.write_timings, args.units) {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let cluster = args
            .cluster
            .clone()
            .or_else(|| env("SLURM_CLUSTER_NAME"))
            .or_else(|| env("CC_CLUSTER"));
        if cluster.is_none() {
            output::warn(format_args!(
                "the rows written to {} name no cluster, so calib budget will treat them as unverified; pass --cluster NAME",
                path.display()
            ));
        }
        let written = write_timings(&table, &options, path, units, cluster)?;
        output::note(format_args!(
            "wrote {written} whole-run row{} to {}",
            if written == 1 { "" } else { "s" },
            path.display()
        ));
    }
    output::write_result(|out| audit::export::exporter(args.format).export(&report, out))?;
    Ok(0)
}

fn read_input(args: &AuditArgs) -> Result<(Origin, String)> {
    match args.sacct.as_deref() {
        Some(value) => {
            let (text, origin) = read_text_argument(value, "SACCT")?;
            Ok((origin, text))
        }
        None => run_sacct(args),
    }
}

/// The sacct command calib runs when no SACCT text is given.
pub fn sacct_command(args: &AuditArgs) -> Vec<String> {
    let mut argv = vec![
        "-P".to_string(),
        "-X".to_string(),
        format!("--format={SACCT_FORMAT}"),
    ];
    if let Some(jobs) = &args.jobs {
        argv.extend(["-j".to_string(), jobs.clone()]);
    }
    if let Some(since) = &args.since {
        argv.extend(["-S".to_string(), since.clone()]);
    }
    if let Some(name) = &args.name {
        argv.extend(["--name".to_string(), name.clone()]);
    }
    argv
}

fn run_sacct(args: &AuditArgs) -> Result<(Origin, String)> {
    let argv = sacct_command(args);
    let shown = format!("sacct {}", argv.join(" "));
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
    Ok((Origin::Argument(format!("the output of `{shown}`")), text))
}

/// The stratum a task's whole-run row is filed under: the comment's stratum, or
/// `name=<group>` when only a job name is known.
fn stratum_for(row: &crate::slurm::sacct::SacctRow, options: &AuditOptions) -> Stratum {
    if let Some(stratum) = audit::comment_stratum(row) {
        return stratum;
    }
    let (group, _) = audit::group_of(row, options.by_name.as_ref());
    let value: String = group
        .chars()
        .map(|c| if c == ',' || c == '=' { '_' } else { c })
        .collect();
    let mut stratum = Stratum::default();
    let _ = stratum.insert("name", &value);
    stratum
}

fn write_timings(
    table: &SacctTable,
    options: &AuditOptions,
    path: &std::path::Path,
    units: u64,
    cluster: Option<String>,
) -> Result<usize> {
    let mut seen = std::collections::HashSet::new();
    let mut rows = Vec::new();
    // The last row of each job wins, as in the audit.
    for row in table.rows.iter().rev() {
        let Some(id) = &row.job_id else { continue };
        if !audit::is_job_row(id) || !seen.insert(id.text.clone()) {
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
                job_id: Some(
                    row.job_id_raw
                        .as_ref()
                        .map_or_else(|| id.text.clone(), |r| r.text.clone()),
                ),
                partition: row.partition.clone(),
                started_at: row.start.clone(),
                cluster: cluster.clone(),
                calib_version: Some(crate::VERSION.to_string()),
                ..Fingerprint::default()
            },
            end: None,
        });
    }
    rows.reverse();
    // The file is created exclusively: an existing one is the user's to keep.
    let mut writer = TimingsWriter::create_new(path).map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
            Error::Refused(format!(
                "{} exists; calib never overwrites a timings file: give --write-timings a new file name",
                path.display()
            ))
        }
        other => other,
    })?;
    for row in &rows {
        writer.append(row)?;
    }
    Ok(rows.len())
}
