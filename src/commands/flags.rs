//! Flags and value parsers shared by several commands, so that a flag means
//! and checks the same thing everywhere. Clap reports their errors as bad usage
//! (exit status 2), naming the flag and the value.

use clap::Args;
use regex::Regex;

use crate::commands::input::read_text_argument;
use crate::error;
use crate::slurm::partitions::{parse_partitions, PartitionList, PartitionSelector};

/// The partitions a command rounds a time into, and which of them are in
/// play: the same three flags wherever a `--time` is chosen (`calib budget`,
/// `calib resume`).
#[derive(Debug, Args)]
pub struct PartitionArgs {
    /// Partitions and limits: `sinfo -h -o '%P %l'` text, a FILE, or -.
    ///
    /// The partitions and their time limits: the text of `sinfo -h -o '%P %l'`
    /// (also the default sinfo table or `scontrol show partition`), given as the
    /// text itself, as a FILE (or @FILE), or as - for standard input.
    #[arg(long, short = 'p', value_name = "SINFO")]
    pub partitions: String,

    /// Use the partitions of this family (e.g. cpubase_bycore).
    ///
    /// Use the partitions of this family (a name minus its _bN suffix, e.g.
    /// cpubase_bycore or gpubase_bygpu). Default: the default partition's family
    /// (a name without a _bN suffix is a family of its own). Partitions of
    /// other families are not used, since they may run other hardware; where a
    /// run needs a longer cap than those in play allow, the notes name the
    /// longer partitions and the --partition-regex that adds each.
    #[arg(long, value_name = "NAME", conflicts_with = "partition_regex")]
    pub partition_family: Option<String>,

    /// Use the partitions whose names match this regular expression.
    #[arg(long, value_name = "REGEX", value_parser = regex)]
    pub partition_regex: Option<Regex>,
}

impl PartitionArgs {
    /// The partition list read from `--partitions`, and the choice among
    /// them that the other two flags make (`None`: the default family).
    pub fn load(&self) -> error::Result<(PartitionList, Option<PartitionSelector>)> {
        let (text, origin) =
            read_text_argument(&self.partitions, "--partitions", &crate::limits::PARTITIONS)?;
        let partitions = parse_partitions(&text, &origin)?;
        let selector = match (&self.partition_family, &self.partition_regex) {
            (Some(family), _) => Some(PartitionSelector::Family(family.clone())),
            (None, Some(regex)) => Some(PartitionSelector::Regex(regex.clone())),
            (None, None) => None,
        };
        Ok((partitions, selector))
    }
}

/// A count of units, tasks or runs: a whole number from 1 to
/// [`crate::limits::MAX_COUNT`], one message for every other value (one past
/// 2^64 included, which a plain integer parser words otherwise).
pub fn count(text: &str) -> Result<u64, String> {
    crate::limits::parse_count(text)
        .ok_or_else(|| format!("expected {}", crate::limits::COUNT_EXPECTED))
}

/// A number of array tasks: a count ([`count`]) that one `--array` can hold,
/// at most Slurm's largest MaxArraySize (4000001; sites set less, 1001 by
/// default, and sbatch then says so).
pub fn tasks(text: &str) -> Result<u64, String> {
    let n = count(text)?;
    crate::slurm::sacct::tasks_past_max(n).map_or(Ok(n), Err)
}

/// `--confidence P`: a one-sided confidence above 0.5 (below it, a bound
/// under the central projection) and below 1 (the calibration refuses what
/// its programs cannot support).
pub fn confidence(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if p > 0.5 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "expected a one-sided confidence above 0.5 and below 1, e.g. 0.9; found {text:?}"
        )),
    }
}

/// `-j IDS`: a comma list of Slurm job ids as `sacct -j` takes them (`4242`,
/// `4242_3`, `4242+0`, `4242.batch`), given back as sacct reads them: each id
/// trimmed, empty items (a trailing comma) dropped. A value that names no
/// job (an unset shell variable) or holds a word sacct refuses (`x`, an
/// array range `4242_[1-5]`, which sacct does not take in -j) would have
/// sacct answer about other jobs, or fail; it is refused here, before sacct
/// runs.
pub fn job_ids(text: &str) -> Result<String, String> {
    let expected = "expected Slurm job ids (4242, 4242_3), comma-separated";
    let mut ids = Vec::new();
    for id in text.split(',').map(str::trim).filter(|id| !id.is_empty()) {
        let job =
            crate::slurm::sacct::JobId::parse(id).map_err(|why| format!("{why}; {expected}"))?;
        if matches!(job.kind, crate::slurm::sacct::JobKind::ArrayPending(_)) {
            return Err(format!(
                "`{id}` is a range of array tasks, which sacct -j does not take; {expected} (the array's job id, 4242, gives all its tasks)"
            ));
        }
        ids.push(id);
    }
    if ids.is_empty() {
        return Err(format!("{expected}; found none (an unset variable?)"));
    }
    Ok(ids.join(","))
}

/// `-j ID`: one Slurm job id, as [`job_ids`] reads it.
pub fn job_id(text: &str) -> Result<String, String> {
    let ids = job_ids(text)?;
    if ids.contains(',') {
        return Err(format!(
            "expected one Slurm job id (4242), the smoke array's; found `{ids}`"
        ));
    }
    Ok(ids)
}

/// A regular expression (`--by-name`, `--partition-regex`).
pub fn regex(text: &str) -> Result<Regex, String> {
    Regex::new(text).map_err(|e| format!("not a regular expression: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_is_above_one_half_and_below_one() {
        assert_eq!(confidence("0.99"), Ok(0.99));
        // The calibration, not the flag, refuses what its programs cannot
        // support (calib budget).
        assert_eq!(confidence("0.9999999"), Ok(0.999_999_9));
        for bad in ["0.5", "1", "1.5", "0", "-0.9", "NaN", "inf", "ninety"] {
            let e = confidence(bad).unwrap_err();
            assert!(e.contains("below 1") && e.contains(bad), "{bad}: {e}");
        }
    }
}
