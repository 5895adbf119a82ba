//! `calib audit`: read sacct after a campaign and say what each stratum really
//! used of the time it asked for.

use std::path::PathBuf;

use regex::Regex;

use crate::audit::{self, check_columns, whole_run_rows, AuditOptions, SacctQuery};
use crate::commands::flags;
use crate::commands::input::{
    dashes, read_text_argument, read_timings_warned, refuse_stdin_named_twice,
};
use crate::error::{Error, Result};
use crate::output::{self, Format};
use crate::shell::text_argument;
use crate::slurm::cluster::resolve_cluster;
use crate::slurm::partitions::parse_partitions;
use crate::slurm::sacct::{parse_sacct, SacctOptions};
use crate::timings::write_timings_file;

// Named here too for the tests' fake sacct, which prints these columns.
pub use crate::audit::{SACCT_DELIMITER, SACCT_FORMAT};

/// The description `--help` and the manual page show (set on the subcommand
/// in `crate::cli`, where the one-line `about` comes from).
pub const LONG_ABOUT: &str = "\
Read sacct afterwards: what each task really used of its budget

After a campaign, calib reads sacct: per stratum and per array, how many tasks \
completed, failed or hit their time limit, and the share of its budget that the slowest \
task used. That share, not the margin you meant to give, is your real headroom: a \
campaign sized at \"10x the projection\" whose slowest task used 68% of its budget \
had 1.47x.

Strata are recognised, in this order, from the job comment `calib stratum=<labels>` \
that `calib budget` puts in its sbatch lines, from the job name by --by-name, from the \
job name `calib-<slug>` budget gives, or else each job name is a group. Step rows (.batch, .extern, .0) are left \
out: the job row carries the outcome.";

const AFTER_HELP: &str = "\
Examples:
  calib audit -j 4242                        (on the cluster: runs sacct itself)
  sacct -P -X -j 4242 --format=JobID,JobName,State,Elapsed,Timelimit | calib audit -
  calib audit @sacct.txt --timings calib-timings/ --units 100
  calib audit -j 4242 --units 100 --write-timings runs.csv
      (then calib fit calib-timings/ runs.csv learns from the campaign)
  calib audit @tests/data/sacct/sacct-ulhpc-iris.txt   (a sample in the repository)

The output: the table gives per stratum (and the way it was recognised) the tasks and \
their states, the time limits, the elapsed time of the COMPLETED tasks (min, median, \
max), the slowest task, the share of its limit it used and the headroom (limit / \
elapsed). Under it, per stratum: each TIMEOUT (with --timings, the unit it reached; \
with --units, what a whole run projects to), the arrays, and advice: a TIMEOUT or more \
than 90% used means the budget was too short or too thin; less than 40% used means you \
could ask for less and start sooner. Then the count of job rows read. --format json \
holds the same, each task included.";

/// Arguments of `calib audit`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct AuditArgs {
    /// `sacct -P` output with its header line: a FILE, - for standard input,
    /// or the text itself. Without it calib runs `sacct -P -X` itself (on a cluster),
    /// with the options -j, -S and --name below.
    #[arg(value_name = "SACCT")]
    pub sacct: Option<String>,

    /// Jobs to audit when calib runs sacct: a comma list of job ids (sacct -j).
    #[arg(short = 'j', long = "jobs", value_name = "IDS", value_parser = flags::job_ids)]
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
    #[arg(long = "by-name", value_name = "REGEX", value_parser = flags::regex)]
    pub by_name: Option<Regex>,

    /// Probe timings of the campaign's tasks (files or folders of calib probe
    /// CSVs), matched by job id (the job_id column): a TIMEOUT task is told how
    /// many units it reached; a COMPLETED task that left no timings, or (with
    /// --units) recorded fewer units than it had to do, is named, because
    /// COMPLETED only means the script exited 0.
    #[arg(long = "timings", value_name = "PATH")]
    pub timings: Vec<PathBuf>,

    /// The number of units each task had to do: projects the time a timed-out
    /// task needed, names COMPLETED tasks that recorded fewer (with --timings),
    /// and is the unit count of --write-timings rows.
    #[arg(long = "units", value_name = "N", value_parser = flags::count)]
    pub units: Option<u64>,

    /// Write each COMPLETED task as a whole-run row of a timings file (run = job
    /// id, unit = --units, elapsed_s = Elapsed), so that the next calib fit learns
    /// from the campaign. The file must not exist. Needs --units.
    #[arg(long = "write-timings", value_name = "FILE", requires = "units")]
    pub(crate) write_timings: Option<PathBuf>,

    /// The cluster the audited jobs ran on, recorded in --write-timings rows so
    /// that calib budget accepts them as a calibration of that cluster. Default:
    /// $SLURM_CLUSTER_NAME, else $CC_CLUSTER.
    #[arg(long, value_name = "NAME", value_parser = text_argument)]
    pub cluster: Option<String>,

    /// The cluster's partitions and their time limits, as for calib budget: the
    /// text of `sinfo -h -o '%P %l'`, a FILE, or - for standard input. PENDING
    /// tasks that ask for more time than every partition they wait for allows
    /// (they would wait forever) are flagged, with the scancel line. Example:
    /// --partitions "$(sinfo -h -o '%P %l')"
    #[arg(long = "partitions", value_name = "LIST")]
    pub partitions: Option<String>,

    /// The field separator of SACCT when it is not `|` (sacct --delimiter).
    #[arg(long = "delimiter", value_name = "TEXT")]
    pub delimiter: Option<String>,

    /// Output: a table for people, or JSON.
    #[arg(long = "format", short = 'f', value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

pub fn run(args: &AuditArgs) -> Result<i32> {
    refuse_stdin_named_twice(&[
        ("SACCT", usize::from(args.sacct.as_deref() == Some("-"))),
        ("--timings", dashes(&args.timings)),
    ])?;
    let (table, origin) = match args.sacct.as_deref() {
        Some(value) => {
            let (text, origin) = read_text_argument(value, "SACCT", &crate::limits::TABLE)?;
            let sacct_options = SacctOptions {
                delimiter: args.delimiter.clone(),
                columns: None,
            };
            (parse_sacct(&text, &origin, &sacct_options)?, origin)
        }
        None => SacctQuery {
            jobs: args.jobs.clone(),
            since: args.since.clone(),
            names: args.name.clone(),
        }
        .run()?,
    };
    for warning in check_columns(&table, &origin)? {
        output::warn(warning);
    }
    if let Some((row, column, value)) = audit::cut_group_key(&table) {
        return Err(Error::input(
            origin.clone(),
            Some(row.line),
            format!(
                "{column} `{value}` was cut to the column width by sacct (the `+`), so the \
                 strata of the tasks cannot be told apart; run `sacct -P` (or widen it with \
                 {column}%80)"
            ),
        ));
    }
    let timings = if args.timings.is_empty() {
        None
    } else {
        Some(read_timings_warned(&args.timings)?)
    };
    let partitions = match &args.partitions {
        Some(value) => {
            let (text, origin) =
                read_text_argument(value, "--partitions", &crate::limits::PARTITIONS)?;
            Some(parse_partitions(&text, &origin)?)
        }
        None => None,
    };
    let options = AuditOptions {
        by_name: args.by_name.clone(),
        timings: timings.as_ref(),
        units: args.units,
        partitions: partitions.as_ref(),
    };
    let report = audit::audit(&table, &options);
    if let (Some(path), Some(units)) = (&args.write_timings, args.units) {
        let cluster = resolve_cluster(args.cluster.as_deref(), None).map(|c| c.name);
        let rows = whole_run_rows(&table, &options, units, cluster.as_deref());
        write_timings_file(path, &rows).map_err(|e| match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
                Error::Refused(format!(
                    "{} exists; calib never overwrites a timings file: give --write-timings a new file name",
                    path.display()
                ))
            }
            other => other,
        })?;
        output::note(format_args!(
            "wrote {} whole-run row{} to {}",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            path.display()
        ));
        // Only once rows are written: before, a refusal (the file exists) or
        // a failed write would follow a warning about rows that never were.
        if cluster.is_none() && !rows.is_empty() {
            output::warn(format_args!(
                "the rows written to {} name no cluster, so calib budget will treat them as unverified; pass --cluster NAME",
                path.display()
            ));
        }
    }
    output::write_result(|out| audit::export::exporter(args.format).export(&report, out))?;
    Ok(0)
}
