//! Partition lists: what a user pastes into `calib budget --partitions`, and
//! which partitions a budget rounds into.
//!
//! # Accepted input (detected from the first line that is not blank, a `#`
//! comment, or a `CLUSTER:` line)
//!
//! * **`sinfo -h -o '%P %l'`** (the recommended form): one `NAME[*] LIMIT` per
//!   line. `%P` appends `*` to the default partition (sinfo.1 `%P`;
//!   src/sinfo/print.c `_print_partition`); `%l` prints the MaxTime as
//!   `[D-]H:MM:SS`, `M:SS` or `infinite` (sinfo.1 `%l`; print.c `_print_secs`).
//!   The fields may also be separated by `|` (`-o '%P|%l'`). Columns after the
//!   limit (e.g. a `%G` column) are ignored with a note.
//! * **`sinfo -h`** (the default layout without its header): `NAME[*] AVAIL
//!   LIMIT ...`, recognised by an AVAIL word (`up`, `down`, `drain`, `inact`) in
//!   the second column.
//! * **A sinfo table with a header** naming `PARTITION` and `TIMELIMIT`: the
//!   default `sinfo` view (`PARTITION AVAIL TIMELIMIT NODES STATE NODELIST`, one
//!   line per partition and node state), `sinfo --summarize`, site layouts, and
//!   `|`-separated layouts such as `%all`. Columns are taken by header name.
//!   The date line `sinfo -l` prints above its header is skipped. A header with
//!   PARTITION but no TIMELIMIT (`sinfo -N`, `-o '%P %a'`) is an error that
//!   advises `sinfo -h -o '%P %l'`.
//! * **`scontrol show partition`** (also with `-o`): `PartitionName=` starts a
//!   partition; `Default=YES` marks the default, `MaxTime=` is the limit
//!   (`UNLIMITED` or `[D-]HH:MM:SS`; src/api/partition_info.c).
//!
//! A partition whose state is given and is not up (sinfo's AVAIL `down`,
//! `drain`, `inact`, ...; `%a` may follow `%P %l`; scontrol's `State=`) is
//! left out with a note: no job starts there.
//!
//! Anywhere: blank lines and lines starting with `#` are skipped; `CLUSTER: name`
//! lines (printed by `sinfo -M`/`--clusters`) set [`PartitionList::cluster`].
//! A partition listed more than once (default sinfo repeats it once per node
//! state) is merged when the limits agree, and is an error when they do not.
//!
//! # Truncated limits
//!
//! sinfo's default views print the limit with `%.10l`, which cuts it to 10
//! characters (src/sinfo/opts.c; sinfo.1 `-o` default format). A limit of 10 to
//! 99 days then reads `14-00:00:0`: one seconds digit is lost. Partition limits
//! are whole minutes (MaxTime is stored in minutes, slurm.conf.5 `MaxTime`), so
//! the lost digit is a 0 and the value is read exactly, with a note. From 100
//! days on the value is cut inside the minutes (`122-00:00:`), which does not
//! parse: that is an error advising `sinfo -h -o '%P %l'`, which has no width.
//!
//! # Families and selection
//!
//! The Alliance (DRAC) clusters split one kind of resource into time buckets
//! named `<family>_b<N>` (`cpubase_bycore_b1` ... `_b5`: 3 h, 12 h, 1 d, 3 d,
//! 7 d), and route a job to the bucket its `--time` fits. [`family_of`] splits a
//! name into family and bucket; [`PartitionList::select`] picks the partitions a
//! budget rounds into and says why, in words. Sources for the scheme: the
//! Alliance wiki page "Job scheduling policies", and partition lists seen on
//! Narval, Killarney and Cedar (project notes `slurm-formats.md`, section 3).
//!
//! Sources for the formats (Slurm master 284c3b95): sinfo.1 (`%P`, `%l`, `-o`
//! default formats, `--summarize`, `-M`), src/sinfo/{print.c,opts.c,sinfo.c},
//! scontrol.1 and src/api/partition_info.c (`scontrol show partition`),
//! slurm.conf.5 (`MaxTime`, `Default`).

use std::collections::HashMap;
use std::fmt;

use regex::Regex;

use crate::error::{Error, Origin, Result};
use crate::slurm::time::{parse_printed_time, SlurmTime};

/// The command whose output never truncates limits, named in advice.
const ADVICE_COMMAND: &str = "sinfo -h -o '%P %l'";

/// One partition and its time limit (MaxTime).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The name without sinfo's `*` default marker.
    pub name: String,
    /// The partition's MaxTime; `Unlimited` for `infinite`/`UNLIMITED`.
    pub limit: SlurmTime,
    /// Marked `*` by sinfo, or `Default=YES` by scontrol.
    pub is_default: bool,
}

/// The partitions read from a paste, in input order, without duplicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionList {
    pub partitions: Vec<Partition>,
    /// From a `CLUSTER: name` line (`sinfo -M`), if there was one.
    pub cluster: Option<String>,
    /// Things the user should know about how the input was read.
    pub notes: Vec<String>,
}

/// Partitions that share a family name, in input order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    pub name: String,
    pub partitions: Vec<Partition>,
    /// How many of `partitions` carry a `_b<N>` bucket suffix.
    pub buckets: usize,
}

/// How the user narrowed the partitions to budget against.
#[derive(Debug, Clone)]
pub enum PartitionSelector {
    /// A family name (`--partition-family cpubase_bycore`).
    Family(String),
    /// A regex searched in each partition name (`Regex::is_match`, so it matches
    /// anywhere unless anchored with `^...$`) (`--partition-regex`).
    Regex(Regex),
}

/// The partitions a budget rounds into, and why they were chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Sorted by limit ascending (an unlimited partition last); never empty.
    pub partitions: Vec<Partition>,
    /// What was chosen and why, e.g. "family cpubase_bycore (the default
    /// partition's): b1 3:00:00, b2 12:00:00, ...".
    pub description: String,
    /// The partitions of the list that were not chosen, in input order.
    pub left_out: Vec<Partition>,
}

/// Splits a partition name into its family and bucket number: a trailing
/// `_b<digits>` after a non-empty stem is a bucket (`cpubase_bycore_b2` ->
/// `("cpubase_bycore", Some(2))`, `gpubase_h100_b3` -> `("gpubase_h100",
/// Some(3))`). Any other name is a family of its own (`("short", None)`).
pub fn family_of(name: &str) -> (String, Option<u32>) {
    if let Some(pos) = name.rfind("_b") {
        let (stem, digits) = (&name[..pos], &name[pos + 2..]);
        if !stem.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(bucket) = digits.parse::<u32>() {
                return (stem.to_string(), Some(bucket));
            }
        }
    }
    (name.to_string(), None)
}

/// Reads a partition list in any of the forms described in the module docs.
///
/// Errors name the line and what was expected; a limit that cannot be read
/// (e.g. `122-00:00:` cut by sinfo's default view) advises `sinfo -h -o '%P %l'`.
pub fn parse_partitions(text: &str, origin: &Origin) -> Result<PartitionList> {
    let mut reader = Reader::new(origin);
    let mut layout: Option<Layout> = None;
    let mut scontrol = ScontrolBlock::default();

    for (index, raw) in text.lines().enumerate() {
        let line_no = index as u64 + 1;
        let line = if index == 0 {
            raw.trim_start_matches('\u{feff}')
        } else {
            raw
        };
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(name) = cluster_line(trimmed) {
            reader.cluster(name, line_no)?;
            continue;
        }
        if is_timestamp_line(trimmed) {
            // `sinfo -l` prints the time above its header (per cluster with -M).
            continue;
        }
        if layout.is_none() {
            let detected = detect(trimmed);
            if let Layout::NoLimitColumn = detected {
                return Err(Error::input(
                    origin.clone(),
                    Some(line_no),
                    format!(
                        "this sinfo table has a PARTITION column but no TIMELIMIT column; \
                         run `{ADVICE_COMMAND}` and pass its output instead"
                    ),
                ));
            }
            let is_header = matches!(detected, Layout::Table { .. });
            layout = Some(detected);
            if is_header {
                continue;
            }
        }
        let Some(current) = &layout else {
            continue;
        };
        match current {
            Layout::Scontrol => scontrol.line(trimmed, line_no, &mut reader)?,
            Layout::Table {
                header,
                separator,
                partition,
                limit,
                avail,
            } => {
                let fields = split(trimmed, *separator);
                if fields == *header {
                    // `sinfo -M a,b` repeats the header for each cluster.
                    continue;
                }
                reader.table_row(&fields, header.len(), partition, (*limit, *avail), line_no)?;
            }
            Layout::Headerless { separator } => {
                let fields = split(trimmed, *separator);
                reader.headerless_row(&fields, line_no)?;
            }
            Layout::NoLimitColumn => {}
        }
    }
    scontrol.finish(&mut reader)?;
    reader.finish()
}

/// The layouts `parse_partitions` tells apart.
enum Layout {
    /// `scontrol show partition` blocks.
    Scontrol,
    /// A sinfo table with a header; `partition` and `limit` are column indexes.
    Table {
        header: Vec<String>,
        separator: Separator,
        partition: Vec<usize>,
        limit: usize,
        /// The AVAIL column, when the table has one.
        avail: Option<usize>,
    },
    /// `%P %l` lines, or the default layout printed with `-h`.
    Headerless { separator: Separator },
    /// A sinfo header with PARTITION but no TIMELIMIT (e.g. `sinfo -N`).
    NoLimitColumn,
}

#[derive(Clone, Copy)]
enum Separator {
    Whitespace,
    Pipe,
}

fn split(line: &str, separator: Separator) -> Vec<String> {
    match separator {
        Separator::Whitespace => line.split_whitespace().map(str::to_string).collect(),
        Separator::Pipe => {
            let mut fields: Vec<String> = line.split('|').map(|f| f.trim().to_string()).collect();
            // `sinfo -p`-style output may end each line with a separator.
            if fields.len() > 1 && fields.last().is_some_and(|f| f.is_empty()) {
                fields.pop();
            }
            fields
        }
    }
}

fn detect(first: &str) -> Layout {
    if first
        .split_whitespace()
        .any(|t| t.starts_with("PartitionName="))
    {
        return Layout::Scontrol;
    }
    let separator = if first.contains('|') {
        Separator::Pipe
    } else {
        Separator::Whitespace
    };
    let header = split(first, separator);
    let partition: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| h.eq_ignore_ascii_case("PARTITION"))
        .map(|(i, _)| i)
        .collect();
    let limit = header
        .iter()
        .position(|h| h.eq_ignore_ascii_case("TIMELIMIT"));
    let looks_like_header = header.len() >= 2
        && header
            .iter()
            .all(|h| !h.is_empty() && !h.bytes().any(|b| b.is_ascii_lowercase()));
    let avail = header.iter().position(|h| h.eq_ignore_ascii_case("AVAIL"));
    match limit {
        Some(limit) if !partition.is_empty() => Layout::Table {
            header,
            separator,
            partition,
            limit,
            avail,
        },
        None if !partition.is_empty() && looks_like_header => Layout::NoLimitColumn,
        _ => Layout::Headerless { separator },
    }
}

/// `Sun Nov 29 22:00:00 2026`, the line `sinfo -l` prints above its header.
fn is_timestamp_line(line: &str) -> bool {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let tokens: Vec<&str> = line.split_whitespace().collect();
    tokens.len() == 5
        && DAYS.contains(&tokens[0])
        && MONTHS.contains(&tokens[1])
        && tokens[2].bytes().all(|b| b.is_ascii_digit())
        && tokens[3].contains(':')
        && tokens[4].bytes().all(|b| b.is_ascii_digit())
}

fn cluster_line(trimmed: &str) -> Option<&str> {
    let rest = trimmed.strip_prefix("CLUSTER:")?;
    Some(rest.trim())
}

/// sinfo's AVAIL column (`%a`): the partition state, as sinfo prints it
/// (src/sinfo/print.c `_print_avail`: `up`, `down`, `drain`, `inact`,
/// `unknown`, and `n/a` without a partition), also as the default layout's
/// `%.5a` cuts it (`unkno`).
fn is_avail_word(word: &str) -> bool {
    matches!(
        word,
        "up" | "down" | "drain" | "inact" | "inactive" | "unknown" | "unkno" | "n/a"
    )
}

/// Collects partitions, merging duplicates and gathering notes.
struct Reader<'a> {
    origin: &'a Origin,
    partitions: Vec<Partition>,
    /// Index into `partitions` and the line it was first seen on.
    seen: HashMap<String, (usize, u64)>,
    default_line: Option<u64>,
    cluster: Option<(String, u64)>,
    /// Partitions whose limit sinfo cut to 10 characters, as printed.
    truncated: Vec<(String, String)>,
    /// Lines with columns after the limit in `%P %l` input.
    extra_columns: Vec<u64>,
    /// Partitions whose state is not up, with the state as printed.
    closed: Vec<(String, String)>,
}

impl<'a> Reader<'a> {
    fn new(origin: &'a Origin) -> Self {
        Reader {
            origin,
            partitions: Vec::new(),
            seen: HashMap::new(),
            default_line: None,
            cluster: None,
            truncated: Vec::new(),
            extra_columns: Vec::new(),
            closed: Vec::new(),
        }
    }

    fn error(&self, line: u64, message: impl Into<String>) -> Error {
        Error::input(self.origin.clone(), Some(line), message)
    }

    fn cluster(&mut self, name: &str, line: u64) -> Result<()> {
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(self.error(
                line,
                format!("expected `CLUSTER: <name>` as `sinfo -M` prints it, found `{name}` after `CLUSTER:`"),
            ));
        }
        match &self.cluster {
            Some((known, first)) if known != name => Err(self.error(
                line,
                format!(
                    "the input holds partitions of two clusters, `{known}` (line {first}) and `{name}`; \
                     a budget is for one cluster: pass the output of `sinfo -M {name} -h -o '%P %l'` alone"
                ),
            )),
            Some(_) => Ok(()),
            None => {
                self.cluster = Some((name.to_string(), line));
                Ok(())
            }
        }
    }

    /// A partition name as sinfo's `%P` prints it, with its `*` if default.
    fn name_field(&self, field: &str, line: u64) -> Result<(String, bool)> {
        let (name, is_default) = match field.strip_suffix('*') {
            Some(stripped) => (stripped, true),
            None => (field, false),
        };
        if name.is_empty() || name.contains(['*', '=', '|']) {
            return Err(self.error(
                line,
                format!("`{field}` is not a partition name (as sinfo's `%P` prints it)"),
            ));
        }
        Ok((name.to_string(), is_default))
    }

    /// A limit as sinfo's `%l` prints it, accepting the 10-character cut of the
    /// default views when it is exact.
    fn sinfo_limit(&mut self, name: &str, value: &str, line: u64) -> Result<SlurmTime> {
        if let Some(days) = cut_day_digits(value) {
            // Exact only when nothing but seconds was lost, since partition
            // limits are whole minutes: `DD-HH:MM:S` (the kept S must be 0) or
            // `DDDD-HH:MM`. `DDD-HH:MM:` does not parse, and from 5 day digits
            // on minutes are lost.
            let exact = match days {
                2 => value.ends_with('0'),
                4 => true,
                _ => false,
            };
            if !exact {
                return Err(self.error(
                    line,
                    format!(
                        "the time limit `{value}` of partition `{name}` looks cut to 10 characters by \
                         sinfo's default view and cannot be read exactly; run `{ADVICE_COMMAND}` \
                         and pass its output instead"
                    ),
                ));
            }
            let time = parse_printed_time(value).map_err(|e| self.error(line, e.to_string()))?;
            if !self.truncated.iter().any(|(n, _)| n == name) {
                self.truncated.push((name.to_string(), value.to_string()));
            }
            return Ok(time);
        }
        parse_printed_time(value).map_err(|e| {
            self.error(
                line,
                format!(
                    "the time limit `{value}` of partition `{name}` cannot be read ({}); \
                     run `{ADVICE_COMMAND}` and pass its output instead",
                    e.reason
                ),
            )
        })
    }

    fn table_row(
        &mut self,
        fields: &[String],
        columns: usize,
        partition: &[usize],
        (limit, avail): (usize, Option<usize>),
        line: u64,
    ) -> Result<()> {
        let needed = partition.iter().copied().chain([limit]).max().unwrap_or(0);
        if fields.len() > columns || fields.len() <= needed {
            return Err(self.error(
                line,
                format!(
                    "expected a row of the sinfo table above ({columns} columns, as in its header), \
                     found {} columns",
                    fields.len()
                ),
            ));
        }
        let first = &fields[partition[0]];
        let (name, mut is_default) = self.name_field(first, line)?;
        for &other in &partition[1..] {
            let (other_name, other_default) = self.name_field(&fields[other], line)?;
            if other_name != name {
                return Err(self.error(
                    line,
                    format!(
                        "the PARTITION columns disagree: `{first}` and `{}`",
                        fields[other]
                    ),
                ));
            }
            is_default |= other_default;
        }
        let limit = self.sinfo_limit(&name, &fields[limit], line)?;
        let state = avail.and_then(|a| fields.get(a)).map(String::as_str);
        self.add(name, limit, is_default, state, line)
    }

    fn headerless_row(&mut self, fields: &[String], line: u64) -> Result<()> {
        let expected = format!(
            "expected `NAME LIMIT` as printed by `{ADVICE_COMMAND}`, a sinfo table with its \
             PARTITION/TIMELIMIT header, or `scontrol show partition` output"
        );
        // `sinfo -h` (default layout): NAME AVAIL LIMIT NODES STATE NODELIST.
        let limit_at = if fields.len() >= 3 && is_avail_word(&fields[1]) {
            2
        } else {
            1
        };
        if fields.len() <= limit_at {
            let shown = fields.join(" ");
            return Err(self.error(line, format!("{expected}; found `{shown}`")));
        }
        let (name, is_default) = self.name_field(&fields[0], line).map_err(|_| {
            self.error(
                line,
                format!("{expected}; `{}` is not a partition name", fields[0]),
            )
        })?;
        if parse_printed_time(&fields[limit_at]).is_err() && !looks_like_time(&fields[limit_at]) {
            return Err(self.error(
                line,
                format!("{expected}; `{}` is not a time limit", fields[limit_at]),
            ));
        }
        let limit = self.sinfo_limit(&name, &fields[limit_at], line)?;
        // The state: before the limit in the default layout, or a third
        // column `%a` after it (`sinfo -h -o '%P %l %a'`).
        let state = match limit_at {
            2 => Some(fields[1].as_str()),
            _ => fields
                .get(2)
                .map(String::as_str)
                .filter(|w| is_avail_word(w)),
        };
        if limit_at == 1 && fields.len() > 2 && state.is_none() {
            self.extra_columns.push(line);
        }
        self.add(name, limit, is_default, state, line)
    }

    /// Adds a partition; one whose state (sinfo's AVAIL, scontrol's State)
    /// is down, drained or inactive is kept apart instead: no job starts there.
    fn add(
        &mut self,
        name: String,
        limit: SlurmTime,
        is_default: bool,
        state: Option<&str>,
        line: u64,
    ) -> Result<()> {
        // The name goes into `--partition=` of the emitted lines, where a
        // comma would make it two partitions; Slurm names have neither commas
        // nor spaces nor control characters, so a name with one is misread input.
        crate::shell::refuse_control("partition name", &name).map_err(|m| self.error(line, m))?;
        if name.contains(|c: char| c == ',' || c.is_whitespace()) {
            return Err(self.error(
                line,
                format!(
                    "`{name}` is not a partition name: it holds a comma or a space, which separate \
                     partitions in Slurm's lists (`--partition=a,b` asks for two); expected one name \
                     per partition, as sinfo's `%P` prints it"
                ),
            ));
        }
        // `unknown` and `n/a` say nothing either way: kept.
        let closed = |s: &&str| {
            ["down", "drain", "inact", "inactive"]
                .iter()
                .any(|c| s.eq_ignore_ascii_case(c))
        };
        if let Some(state) = state.filter(closed) {
            if !self.closed.iter().any(|(n, _)| *n == name) {
                self.closed.push((name, state.to_ascii_lowercase()));
            }
            return Ok(());
        }
        if let Some(&(index, first_line)) = self.seen.get(&name) {
            let known = &self.partitions[index];
            if known.limit != limit {
                return Err(self.error(
                    line,
                    format!(
                        "partition `{name}` is listed with two time limits: {} on line {first_line} \
                         and {limit} on line {line}",
                        known.limit
                    ),
                ));
            }
            if is_default && !known.is_default {
                self.mark_default(index, line)?;
            }
            return Ok(());
        }
        self.partitions.push(Partition {
            name: name.clone(),
            limit,
            is_default: false,
        });
        let index = self.partitions.len() - 1;
        self.seen.insert(name, (index, line));
        if is_default {
            self.mark_default(index, line)?;
        }
        Ok(())
    }

    fn mark_default(&mut self, index: usize, line: u64) -> Result<()> {
        if let Some(other) = self.partitions.iter().find(|p| p.is_default) {
            return Err(self.error(
                line,
                format!(
                    "two partitions are marked as the default: `{}` (line {}) and `{}`; \
                     Slurm has one default partition per cluster",
                    other.name,
                    self.default_line.unwrap_or(0),
                    self.partitions[index].name
                ),
            ));
        }
        self.partitions[index].is_default = true;
        self.default_line = Some(line);
        Ok(())
    }

    fn finish(self) -> Result<PartitionList> {
        let closed: Vec<String> = self
            .closed
            .iter()
            .filter(|(name, _)| !self.seen.contains_key(name))
            .map(|(name, state)| format!("{name} ({state})"))
            .collect();
        if self.partitions.is_empty() && !closed.is_empty() {
            return Err(Error::input(
                self.origin.clone(),
                None,
                format!(
                    "no partition is up ({}): no job would start; ask the cluster's staff, or \
                     budget for another cluster",
                    closed.join(", ")
                ),
            ));
        }
        if self.partitions.is_empty() {
            return Err(Error::input(
                self.origin.clone(),
                None,
                format!(
                    "no partitions found; expected the output of `{ADVICE_COMMAND}` \
                     (or of `sinfo`, `sinfo --summarize`, `scontrol show partition`)"
                ),
            ));
        }
        let mut notes = Vec::new();
        if !closed.is_empty() {
            notes.push(format!(
                "left out, not up: {}; no job starts in a partition that is down, drained or \
                 inactive",
                closed.join(", ")
            ));
        }
        if !self.truncated.is_empty() {
            let listed: Vec<String> = self
                .truncated
                .iter()
                .map(|(name, value)| format!("{name} `{value}`"))
                .collect();
            notes.push(format!(
                "sinfo's default view cut some time limits to 10 characters ({}); they were read \
                 as whole minutes, which is exact because Slurm partition limits are whole minutes. \
                 `{ADVICE_COMMAND}` prints them in full",
                listed.join(", ")
            ));
        }
        if let (Some(first), count) = (self.extra_columns.first(), self.extra_columns.len()) {
            let where_ = if count == 1 {
                format!("on line {first}")
            } else {
                format!("on {count} lines, from line {first}")
            };
            notes.push(format!(
                "columns after the time limit were ignored ({where_}); `{ADVICE_COMMAND}` prints \
                 only the name and the limit"
            ));
        }
        if let Some((name, _)) = &self.cluster {
            // sbatch submits to the cluster of the machine it runs on, not
            // to the one whose partitions were listed.
            notes.push(format!(
                "the partitions are cluster {name}'s (its CLUSTER: line, sinfo -M): submit on \
                 {name}, or add --clusters={name} to each sbatch line"
            ));
        }
        Ok(PartitionList {
            partitions: self.partitions,
            cluster: self.cluster.map(|(name, _)| name),
            notes,
        })
    }
}

/// The number of day digits when `value` is sinfo's `D-HH:MM:SS` cut to 10
/// characters by `%.10l`: a full value with two or more day digits is at least
/// 11 characters, so a 10-character value of that shape lost its end.
fn cut_day_digits(value: &str) -> Option<usize> {
    let bytes = value.as_bytes();
    if bytes.len() != 10 {
        return None;
    }
    (2..=9).find(|&days| {
        let full = format!("{}-HH:MM:SS", "D".repeat(days));
        full.bytes().zip(bytes).all(|(pattern, &c)| match pattern {
            b'D' | b'H' | b'M' | b'S' => c.is_ascii_digit(),
            literal => c == literal,
        })
    })
}

/// True when `value` is made of time characters only, so that an unreadable
/// value gets the "cut by sinfo" advice rather than "not a time limit".
fn looks_like_time(value: &str) -> bool {
    !value.is_empty()
        && value.bytes().any(|b| b.is_ascii_digit())
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b':')
}

/// One `scontrol show partition` block being read.
#[derive(Default)]
struct ScontrolBlock {
    /// Name and the line of its `PartitionName=`.
    name: Option<(String, u64)>,
    default: Option<bool>,
    max_time: Option<(String, u64)>,
    state: Option<String>,
}

impl ScontrolBlock {
    fn line(&mut self, trimmed: &str, line: u64, reader: &mut Reader) -> Result<()> {
        let mut any = false;
        for token in trimmed.split_whitespace() {
            let Some((key, value)) = token.split_once('=') else {
                // A value with spaces (free text) continues here; nothing we read.
                continue;
            };
            any = true;
            match key {
                "PartitionName" => {
                    self.finish(reader)?;
                    if value.is_empty() {
                        return Err(reader.error(line, "`PartitionName=` has no name"));
                    }
                    self.name = Some((value.to_string(), line));
                }
                "Default" if self.name.is_some() => {
                    self.default = Some(value.eq_ignore_ascii_case("YES"))
                }
                "MaxTime" if self.name.is_some() => self.max_time = Some((value.to_string(), line)),
                "State" if self.name.is_some() => self.state = Some(value.to_string()),
                _ if self.name.is_none() => {
                    return Err(reader.error(
                        line,
                        format!("expected `PartitionName=` to start a block of `scontrol show partition`, found `{token}`"),
                    ));
                }
                _ => {}
            }
        }
        if !any {
            return Err(reader.error(
                line,
                format!(
                    "expected `Key=Value` fields of `scontrol show partition`, found `{trimmed}`"
                ),
            ));
        }
        Ok(())
    }

    fn finish(&mut self, reader: &mut Reader) -> Result<()> {
        let Some((name, name_line)) = self.name.take() else {
            return Ok(());
        };
        let default = self.default.take().unwrap_or(false);
        let Some((value, line)) = self.max_time.take() else {
            return Err(reader.error(
                name_line,
                format!("partition `{name}` has no `MaxTime=` field; pass the full `scontrol show partition` output"),
            ));
        };
        let limit = parse_printed_time(&value).map_err(|e| {
            reader.error(
                line,
                format!(
                    "`MaxTime={value}` of partition `{name}` is not a time limit ({})",
                    e.reason
                ),
            )
        })?;
        let state = self.state.take();
        reader.add(name, limit, default, state.as_deref(), name_line)
    }
}

impl PartitionList {
    /// The families in order of first appearance, each with its partitions in
    /// input order.
    pub fn families(&self) -> Vec<Family> {
        let mut families: Vec<Family> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for p in &self.partitions {
            let (name, bucket) = family_of(&p.name);
            let i = *index.entry(name.clone()).or_insert_with(|| {
                families.push(Family {
                    name,
                    partitions: Vec::new(),
                    buckets: 0,
                });
                families.len() - 1
            });
            let family = &mut families[i];
            family.partitions.push(p.clone());
            if bucket.is_some() {
                family.buckets += 1;
            }
        }
        families
    }

    /// The default partition (`*` in sinfo, `Default=YES` in scontrol), if any.
    pub fn default_partition(&self) -> Option<&Partition> {
        self.partitions.iter().find(|p| p.is_default)
    }

    /// Chooses the partitions a budget rounds into.
    ///
    /// With a selector: the family of that name, or the partitions whose name the
    /// regex matches. Without one: the default partition's family; if no
    /// partition is marked default, the bucket family with the most buckets
    /// (ties: the first in input order); if no name has a bucket suffix, all
    /// partitions. Nothing selected is a refusal that lists the families.
    pub fn select(&self, selector: Option<&PartitionSelector>) -> Result<Selection> {
        let families = self.families();
        let (chosen, why): (Vec<Partition>, String) = match selector {
            Some(PartitionSelector::Family(name)) => {
                let Some(family) = families.iter().find(|f| &f.name == name) else {
                    let hint = match family_of(name) {
                        (stem, Some(_)) if families.iter().any(|f| f.name == stem) => {
                            format!(" (`{name}` is a partition of family `{stem}`)")
                        }
                        _ => String::new(),
                    };
                    return Err(Error::Refused(format!(
                        "no partition family is named `{name}`{hint}; families available: {}",
                        describe_families(&families)
                    )));
                };
                (
                    family.partitions.clone(),
                    format!("family {} (chosen with --partition-family)", family.name),
                )
            }
            Some(PartitionSelector::Regex(re)) => {
                let matched: Vec<Partition> = self
                    .partitions
                    .iter()
                    .filter(|p| re.is_match(&p.name))
                    .cloned()
                    .collect();
                if matched.is_empty() {
                    return Err(Error::Refused(format!(
                        "no partition name matches the regex `{}`; families available: {}",
                        re.as_str(),
                        describe_families(&families)
                    )));
                }
                (
                    matched,
                    format!(
                        "partitions matching `{}` (chosen with --partition-regex)",
                        re.as_str()
                    ),
                )
            }
            None => self.default_selection(&families),
        };
        let mut partitions = chosen;
        // Stable: equal limits keep input order; `Unlimited` sorts last.
        partitions.sort_by_key(|p| p.limit);
        let may_shorten = !matches!(selector, Some(PartitionSelector::Regex(_)));
        let listing = describe_members(&partitions, may_shorten);
        let left_out = self
            .partitions
            .iter()
            .filter(|p| !partitions.iter().any(|c| c.name == p.name))
            .cloned()
            .collect();
        Ok(Selection {
            description: format!("{why}: {listing}"),
            partitions,
            left_out,
        })
    }

    fn default_selection(&self, families: &[Family]) -> (Vec<Partition>, String) {
        if let Some(default) = self.default_partition() {
            let (family_name, bucket) = family_of(&default.name);
            let family = families
                .iter()
                .find(|f| f.name == family_name)
                .expect("every partition is in its family");
            if bucket.is_none() && family.partitions.len() == 1 {
                return (
                    family.partitions.clone(),
                    format!(
                        "partition {} alone (the default partition; its name has no _b<N> bucket suffix, \
                         so it is a family of one)",
                        default.name
                    ),
                );
            }
            return (
                family.partitions.clone(),
                format!(
                    "family {} (the default partition's, {})",
                    family.name, default.name
                ),
            );
        }
        let bucketed: Vec<&Family> = families.iter().filter(|f| f.buckets > 0).collect();
        // `max_by_key` keeps the last maximum; scan for the first instead.
        let mut best: Option<&Family> = None;
        for f in &bucketed {
            if best.is_none_or(|b| f.buckets > b.buckets) {
                best = Some(f);
            }
        }
        if let Some(best) = best {
            let others: Vec<&str> = bucketed
                .iter()
                .filter(|f| f.name != best.name)
                .map(|f| f.name.as_str())
                .collect();
            let why = if others.is_empty() {
                format!(
                    "family {} (no default partition is marked; it is the only family with _b<N> buckets)",
                    best.name
                )
            } else {
                let ties = bucketed
                    .iter()
                    .filter(|f| f.buckets == best.buckets)
                    .count();
                let mut all = vec![best.name.as_str()];
                all.extend(others);
                format!(
                    "family {} (no default partition is marked; of the bucket families {} it has \
                     the most buckets, {}{}; choose another with --partition-family)",
                    best.name,
                    all.join(", "),
                    best.buckets,
                    if ties > 1 {
                        ", and comes first in the input"
                    } else {
                        ""
                    },
                )
            };
            return (best.partitions.clone(), why);
        }
        (
            self.partitions.clone(),
            "all partitions, since no default partition is marked and no name has a _b<N> bucket suffix (they may serve different hardware: choose with --partition-family or --partition-regex)"
                .to_string(),
        )
    }
}

impl Selection {
    /// The partitions left out whose cap is longer than every cap in play,
    /// in input order: where a run needs more than the partitions in play
    /// allow, the user should know that the list had longer ones (calib
    /// cannot tell whether they run the same hardware and accept the job).
    pub fn longer_left_out(&self) -> Vec<&Partition> {
        let Some(longest_in_play) = self.partitions.iter().map(|p| p.limit).max() else {
            return Vec::new();
        };
        self.left_out
            .iter()
            .filter(|p| p.limit > longest_in_play)
            .collect()
    }

    /// The `--partition-regex` that keeps the partitions in play and adds
    /// `extra`: their names, escaped, anchored, as alternatives.
    pub fn regex_adding(&self, extra: &Partition) -> String {
        let names: Vec<String> = self
            .partitions
            .iter()
            .chain([extra])
            .map(|p| regex::escape(&p.name))
            .collect();
        format!("^({})$", names.join("|"))
    }

    /// True when every partition selected is a `_b<N>` bucket of one family:
    /// a cluster that routes such a family by `--time` (the Alliance's) needs
    /// no partition named in the sbatch lines.
    pub(crate) fn is_one_bucket_family(&self) -> bool {
        let mut families = self.partitions.iter().map(|p| family_of(&p.name));
        let Some((first, Some(_))) = families.next() else {
            return false;
        };
        families.all(|(family, bucket)| bucket.is_some() && family == first)
    }
}

/// `b1 3:00:00, b2 12:00:00, ...` for one family, full names otherwise.
fn describe_members(partitions: &[Partition], may_shorten: bool) -> String {
    let families: Vec<String> = partitions.iter().map(|p| family_of(&p.name).0).collect();
    let one_family = families.windows(2).all(|w| w[0] == w[1]);
    partitions
        .iter()
        .map(|p| match family_of(&p.name) {
            (_, Some(bucket)) if may_shorten && one_family => format!("b{bucket} {}", p.limit),
            _ => format!("{} {}", p.name, p.limit),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `cpubase_bycore (5 buckets), short` for refusals.
fn describe_families(families: &[Family]) -> String {
    families
        .iter()
        .map(|f| match f.buckets {
            0 => f.name.clone(),
            1 => format!("{} (1 bucket)", f.name),
            n => format!("{} ({n} buckets)", f.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{} {}",
            self.name,
            if self.is_default { "*" } else { "" },
            self.limit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(names: &[&str]) -> Selection {
        Selection {
            partitions: names
                .iter()
                .map(|name| Partition {
                    name: name.to_string(),
                    limit: SlurmTime::Limited(3_600),
                    is_default: false,
                })
                .collect(),
            description: String::new(),
            left_out: Vec::new(),
        }
    }

    #[test]
    fn one_bucket_family_needs_every_partition_a_bucket_of_the_same_stem() {
        assert!(selection(&["cpubase_bycore_b1", "cpubase_bycore_b2"]).is_one_bucket_family());
        assert!(selection(&["gpubase_h100_b3"]).is_one_bucket_family());
        // Two families, a partition without a bucket, a bucket-less family of one.
        assert!(!selection(&["cpubase_bycore_b1", "cpubase_bynode_b1"]).is_one_bucket_family());
        assert!(!selection(&["cpubase_bycore_b1", "cpubase_bycore"]).is_one_bucket_family());
        assert!(!selection(&["short"]).is_one_bucket_family());
    }
}
