//! Slurm's time values: the `--time` input grammar, the forms Slurm prints, and
//! the form calib emits for `sbatch --time`.
//!
//! The grammar follows Slurm's `time_str2secs()` (src/common/parse_time.c) and its
//! unit test `parse_time-test.c`; the printed forms follow sinfo's `_print_secs`,
//! sacct's `mins2time_str`/`secs2time_str` and scontrol's partition printer. The
//! rules, with line references, are collected in the project's notes on Slurm
//! formats (`slurm-formats.md`, sections 1 and 2). Two deliberate departures
//! from the C code, both stricter: a negative value such as `-5` (which sscanf
//! would turn into a negative time) is rejected, and values too large for Slurm's
//! C `int` second count (more than 2^31 - 1 seconds, about 68 years) are rejected
//! by [`parse_time`] instead of overflowing the way `time_str2secs` silently
//! does. Values Slurm printed itself ([`parse_printed_time`]) are not bound by
//! that `int` (sinfo and scontrol print a `time_t`), but by what Slurm stores:
//! a partition or job limit is a 32-bit count of minutes
//! ([`PRINTED_MAX_SECONDS`], about 8,000 years).
//!
//! Field ranges. The `--time` grammar does not range-check its fields (Slurm
//! reads `0:60:0` as one hour, and its unit test says so), so [`parse_time`]
//! accepts them. Slurm *prints* times with `secs2time_str`, `mins2time_str` and
//! sinfo's `_print_secs`, which always give minutes and seconds from 00 to 59
//! and, after a day count, hours from 00 to 23. A printed value outside those
//! ranges (a partition limit `1:00:99`) was not printed by Slurm: a typo or a
//! corruption that the grammar would silently read as another time (1:01:39),
//! so [`parse_printed_time`], [`parse_printed_limit`] and [`parse_elapsed`]
//! refuse it. Their leading field is unbounded (`90:00` is 90 minutes), since
//! a hand-written partition list may use it.
//!
//! What each function accepts:
//! * [`parse_time`]: exactly the `sbatch --time` grammar (`time_str2secs`).
//! * [`parse_printed_time`]: the same grammar for values sinfo (`%l`) and
//!   scontrol (`MaxTime=`) print, without the `int` bound.
//! * [`parse_printed_limit`]: sacct `Timelimit`, scontrol `TimeLimit=`,
//!   `MaxTime=`, `DefaultTime=`, including `Partition_Limit`, empty and `NONE`.
//! * [`parse_elapsed`]: sacct `Elapsed` (`[D-]HH:MM:SS`) and CPU-time fields
//!   (also `MM:SS.mmm`).
//!
//! And what calib emits: [`format_sbatch_time`] and [`sbatch_minutes`] give the
//! `--time` value and the minutes sbatch will store for it (seconds round up,
//! never 0 minutes, which Slurm reads as "no limit").
//!
//! Sources (Slurm master 284c3b95, same behaviour since 14.03): parse_time.c
//! (`time_str2secs`, `_is_valid_timespec`, `time_str2mins`, `secs2time_str`,
//! `mins2time_str`), slurm_opt.c (`--time`: 0 minutes means no limit),
//! sinfo/print.c (`_print_secs`), sacct/print.c and common/print_fields.c
//! (Timelimit, Elapsed, CPU times), api/partition_info.c (`MaxTime=`); man pages
//! sbatch.1 (`--time`), sinfo.1 (`%l`), sacct.1 (`Elapsed`, `Timelimit`) and
//! slurm.conf.5 (`MaxTime`).

use std::fmt;

/// A time limit as Slurm understands it: a number of seconds, or no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SlurmTime {
    /// A finite duration in whole seconds.
    Limited(u64),
    /// `-1`, `INFINITE`, `UNLIMITED` (any case), or sinfo's `infinite`.
    Unlimited,
}

impl SlurmTime {
    /// Seconds for a finite limit, `None` for no limit.
    pub fn seconds(self) -> Option<u64> {
        match self {
            SlurmTime::Limited(s) => Some(s),
            SlurmTime::Unlimited => None,
        }
    }

    /// Seconds as a cap: a finite limit, or `f64::INFINITY` for no limit.
    pub fn cap_seconds(self) -> f64 {
        match self {
            SlurmTime::Limited(s) => s as f64,
            SlurmTime::Unlimited => f64::INFINITY,
        }
    }
}

/// sinfo's compact form (`_print_secs` in src/sinfo/print.c): `infinite`,
/// `M:SS`, `H:MM:SS` or `D-HH:MM:SS`. Every form parses back to the same value.
impl fmt::Display for SlurmTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SlurmTime::Unlimited => write!(f, "infinite"),
            SlurmTime::Limited(s) => {
                let (d, h, m, sec) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60, s % 60);
                if d > 0 {
                    write!(f, "{d}-{h:02}:{m:02}:{sec:02}")
                } else if h > 0 {
                    write!(f, "{h}:{m:02}:{sec:02}")
                } else {
                    write!(f, "{m}:{sec:02}")
                }
            }
        }
    }
}

/// The largest number of seconds Slurm's `time_str2secs` can return: it computes
/// in a C `int`, so anything larger overflows (slurm-formats.md, section 1.7).
pub(crate) const SLURM_MAX_SECONDS: u64 = i32::MAX as u64;

/// The largest limit Slurm can print: limits are stored as a 32-bit count of
/// minutes (`uint32_t time_limit`, with `INFINITE` = 0xffffffff printed as
/// such), so no printed finite limit exceeds this many seconds.
pub(crate) const PRINTED_MAX_SECONDS: u64 = u32::MAX as u64 * 60;

/// Why a string is not a Slurm time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeParseError {
    /// The rejected text, as given.
    pub input: String,
    /// What was wrong, in words a user can act on.
    pub(crate) reason: String,
    /// The text is in the grammar but its value is past what Slurm can hold:
    /// then the reason says the bound (`beyond what Slurm accepts, at most
    /// ...`), and the grammar is no advice.
    pub(crate) beyond: bool,
}

impl fmt::Display for TimeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = crate::limits::excerpt(&self.input);
        if self.beyond {
            return write!(f, "`{input}` is {}", self.reason);
        }
        write!(
            f,
            "`{input}` is not a Slurm time ({}); expected minutes, M:S, H:M:S, D-H, D-H:M, D-H:M:S, or UNLIMITED",
            self.reason
        )
    }
}

impl std::error::Error for TimeParseError {}

fn invalid(input: &str, reason: &str) -> TimeParseError {
    TimeParseError {
        input: input.to_string(),
        reason: reason.to_string(),
        beyond: false,
    }
}

/// Why [`parse_time`] has its bound: Slurm's `int` count of seconds.
const SECONDS_BOUND: &str = "about 68 years: Slurm counts a time's seconds in a 32-bit integer";
/// Why [`parse_printed_time`] has its bound: Slurm's stored count of minutes.
const MINUTES_BOUND: &str = "about 8,000 years: Slurm stores a limit as a 32-bit count of minutes";

/// A value past what Slurm can hold: a number of the grammar that overflows
/// even 64 bits, said in general here; [`beyond_bound`] names the bound.
fn overflow(input: &str) -> TimeParseError {
    TimeParseError {
        input: input.to_string(),
        reason: "beyond what Slurm accepts: a number is too large".to_string(),
        beyond: true,
    }
}

/// A value past `max_s`, said with that bound as Slurm would print it and
/// `why` Slurm has it. Every caller's message for a time too large is this
/// one: such a value is in the grammar, so the grammar is no advice.
fn beyond_bound(input: &str, max_s: u64, why: &str) -> TimeParseError {
    TimeParseError {
        input: input.to_string(),
        reason: format!(
            "beyond what Slurm accepts, at most {} ({why})",
            SlurmTime::Limited(max_s)
        ),
        beyond: true,
    }
}

/// `e`, or for an [`overflow`] the message of [`beyond_bound`]: a number past
/// 64 bits is past every bound too.
fn with_bound(e: TimeParseError, max_s: u64, why: &str) -> TimeParseError {
    if e.beyond {
        beyond_bound(&e.input, max_s, why)
    } else {
        e
    }
}

/// Parses exactly what `sbatch --time` accepts (Slurm's `time_str2secs`).
///
/// Accepted: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`, `D-` (a day count
/// alone, which Slurm's sscanf accepts), and `-1`, `INFINITE`, `UNLIMITED` in any
/// case. Fields are not range-checked (Slurm reads `0:60:0` as one hour).
/// Rejected: empty strings, spaces, signs, decimals, unit suffixes, negative
/// values, and totals above [`SLURM_MAX_SECONDS`]. `0` parses to 0 seconds, as in
/// Slurm; note that `sbatch --time=0` then means "no limit".
pub fn parse_time(input: &str) -> Result<SlurmTime, TimeParseError> {
    let bound = |e| with_bound(e, SLURM_MAX_SECONDS, SECONDS_BOUND);
    match parse_grammar(input).map_err(bound)? {
        Spec::Unlimited => Ok(SlurmTime::Unlimited),
        spec => match spec.seconds(input).map_err(bound)? {
            s if s > SLURM_MAX_SECONDS => {
                Err(beyond_bound(input, SLURM_MAX_SECONDS, SECONDS_BOUND))
            }
            s => Ok(SlurmTime::Limited(s)),
        },
    }
}

/// Parses a time value that Slurm printed (sinfo `%l`, scontrol `MaxTime=`):
/// the grammar of [`parse_time`], with the field ranges Slurm prints (minutes
/// and seconds under 60, hours under 24 after a day count) and at most
/// [`PRINTED_MAX_SECONDS`].
pub fn parse_printed_time(input: &str) -> Result<SlurmTime, TimeParseError> {
    let bound = |e| with_bound(e, PRINTED_MAX_SECONDS, MINUTES_BOUND);
    let spec = parse_grammar(input).map_err(bound)?;
    if let Spec::Fields { days, values } = &spec {
        let (hours, minutes, seconds) = match (days, values.as_slice()) {
            (Some(_), [h]) => (Some(*h), None, None),
            (Some(_), [h, m]) => (Some(*h), Some(*m), None),
            (Some(_), [h, m, s]) | (None, [h, m, s]) => (days.map(|_| *h), Some(*m), Some(*s)),
            (None, [_, s]) => (None, None, Some(*s)),
            _ => (None, None, None),
        };
        if minutes.is_some_and(|m| m > 59) || seconds.is_some_and(|s| s > 59) {
            return Err(invalid(
                input,
                "a minutes or seconds field is over 59, which sinfo, sacct and scontrol never print",
            ));
        }
        if hours.is_some_and(|h| h > 23) {
            return Err(invalid(
                input,
                "an hours field after the days is over 23, which sinfo, sacct and scontrol never print",
            ));
        }
    }
    match spec {
        Spec::Unlimited => Ok(SlurmTime::Unlimited),
        spec => match spec.seconds(input).map_err(bound)? {
            s if s > PRINTED_MAX_SECONDS => {
                Err(beyond_bound(input, PRINTED_MAX_SECONDS, MINUTES_BOUND))
            }
            s => Ok(SlurmTime::Limited(s)),
        },
    }
}

/// A value of the `--time` grammar, before its fields are added up.
enum Spec {
    Unlimited,
    /// The day count (with a `-`) and the colon-separated fields after it.
    Fields {
        days: Option<u64>,
        values: Vec<u64>,
    },
}

impl Spec {
    /// The total in seconds; `M`, `M:S`, `H:M:S` without days, `D-H`, `D-H:M`,
    /// `D-H:M:S` with them.
    fn seconds(&self, input: &str) -> Result<u64, TimeParseError> {
        let Spec::Fields { days, values } = self else {
            return Err(invalid(input, "no limit has no number of seconds"));
        };
        match (*days, values.as_slice()) {
            // `1-` is accepted by Slurm and means one day.
            (Some(d), []) => checked(input, &[(d, 86_400)]),
            (Some(d), [h]) => checked(input, &[(d, 86_400), (*h, 3_600)]),
            (Some(d), [h, m]) => checked(input, &[(d, 86_400), (*h, 3_600), (*m, 60)]),
            (Some(d), [h, m, s]) => checked(input, &[(d, 86_400), (*h, 3_600), (*m, 60), (*s, 1)]),
            (None, [m]) => checked(input, &[(*m, 60)]),
            (None, [m, s]) => checked(input, &[(*m, 60), (*s, 1)]),
            (None, [h, m, s]) => checked(input, &[(*h, 3_600), (*m, 60), (*s, 1)]),
            _ => Err(invalid(input, "too many fields")),
        }
    }
}

/// The `--time` grammar (`time_str2secs`), fields not yet range-checked.
fn parse_grammar(input: &str) -> Result<Spec, TimeParseError> {
    if input.is_empty() {
        return Err(invalid(input, "it is empty"));
    }
    if input == "-1"
        || input.eq_ignore_ascii_case("INFINITE")
        || input.eq_ignore_ascii_case("UNLIMITED")
    {
        return Ok(Spec::Unlimited);
    }
    validate_timespec(input)?;

    // With a dash: D-H, D-H:M, D-H:M:S. Without: M, M:S, H:M:S.
    let (days, rest) = match input.split_once('-') {
        Some((d, rest)) => {
            if d.is_empty() {
                return Err(invalid(input, "a negative value is not a time"));
            }
            (Some(number(input, d)?), rest)
        }
        None => (None, input),
    };
    let fields: Vec<&str> = if rest.is_empty() {
        Vec::new()
    } else {
        rest.split(':').collect()
    };
    let mut values = Vec::with_capacity(fields.len());
    for field in &fields {
        if field.is_empty() {
            return Err(invalid(input, "a field between separators is empty"));
        }
        values.push(number(input, field)?);
    }
    let spec = Spec::Fields { days, values };
    // Too many fields or a total past 64 bits is refused here, for both callers.
    spec.seconds(input)?;
    Ok(spec)
}

/// Slurm's `_is_valid_timespec`: only digits, `-` and `:`, at most one dash
/// before at most two colons, and enough digit groups for the separators.
fn validate_timespec(input: &str) -> Result<(), TimeParseError> {
    let mut dashes = 0;
    let mut colons = 0;
    let mut groups = 0;
    let mut in_digits = false;
    for c in input.chars() {
        match c {
            '0'..='9' => {
                if !in_digits {
                    groups += 1;
                    in_digits = true;
                }
            }
            '-' => {
                if colons > 0 {
                    return Err(invalid(input, "a `-` may not follow a `:`"));
                }
                dashes += 1;
                in_digits = false;
            }
            ':' => {
                colons += 1;
                in_digits = false;
            }
            ' ' | '\t' => return Err(invalid(input, "spaces are not allowed")),
            '+' => return Err(invalid(input, "signs are not allowed")),
            '.' | ',' => return Err(invalid(input, "decimals are not allowed")),
            _ => {
                return Err(invalid(
                    input,
                    "only digits, `-` and `:` are allowed (no unit suffixes)",
                ))
            }
        }
    }
    if groups == 0 {
        return Err(invalid(input, "it has no digits"));
    }
    if dashes > 1 || colons > 2 {
        return Err(invalid(input, "too many separators"));
    }
    let needed = match (dashes, colons) {
        (1, 1) => 3,
        (1, 2) => 4,
        (0, 1) => 2,
        (0, 2) => 3,
        _ => 1,
    };
    if groups < needed {
        return Err(invalid(input, "a field is missing or cut short"));
    }
    Ok(())
}

fn number(input: &str, digits: &str) -> Result<u64, TimeParseError> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(input, "a field is not a whole number"));
    }
    digits.parse::<u64>().map_err(|_| overflow(input))
}

fn checked(input: &str, terms: &[(u64, u64)]) -> Result<u64, TimeParseError> {
    terms.iter().try_fold(0u64, |acc, &(value, scale)| {
        value
            .checked_mul(scale)
            .and_then(|v| acc.checked_add(v))
            .ok_or_else(|| overflow(input))
    })
}

/// A `Timelimit` column of sacct, or a `TimeLimit=`/`MaxTime=`/`DefaultTime=` of scontrol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrintedLimit {
    /// A finite or unlimited time.
    Time(SlurmTime),
    /// sacct's `Partition_Limit`: the job asked for none, so the partition's applies.
    PartitionLimit,
    /// Empty (sacct step rows, jobs with limit 0) or scontrol's `NONE`/`N/A`.
    Unknown,
}

/// Parses a time limit as sacct, scontrol or sinfo print it.
///
/// Besides the `--time` grammar, this accepts `Partition_Limit` (any case),
/// an empty value and `NONE`/`N/A` (unknown).
pub fn parse_printed_limit(input: &str) -> Result<PrintedLimit, TimeParseError> {
    let trimmed = input.trim();
    if trimmed.is_empty()
        || trimmed.eq_ignore_ascii_case("NONE")
        || trimmed.eq_ignore_ascii_case("N/A")
        || trimmed.eq_ignore_ascii_case("NOT_SET")
    {
        return Ok(PrintedLimit::Unknown);
    }
    if trimmed.eq_ignore_ascii_case("Partition_Limit") {
        return Ok(PrintedLimit::PartitionLimit);
    }
    parse_printed_time(trimmed).map(PrintedLimit::Time)
}

/// Parses sacct's `Elapsed` (`[D-]HH:MM:SS`) or a CPU-time field, which may also be
/// `MM:SS.mmm`. Returns seconds; `None` for an empty value.
pub fn parse_elapsed(input: &str) -> Result<Option<f64>, TimeParseError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    if trimmed.eq_ignore_ascii_case("INVALID") {
        return Err(invalid(input, "Slurm printed INVALID"));
    }
    // CPU fields print sub-seconds as `MM:SS.mmm`.
    if let Some((whole, fraction)) = trimmed.split_once('.') {
        if fraction.is_empty() || !fraction.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid(input, "the fraction of a second is not digits"));
        }
        let base = parse_elapsed_whole(input, whole)?;
        let frac: f64 = format!("0.{fraction}")
            .parse()
            .map_err(|_| invalid(input, "the fraction of a second is not digits"))?;
        return Ok(Some(base as f64 + frac));
    }
    parse_elapsed_whole(input, trimmed).map(|s| Some(s as f64))
}

fn parse_elapsed_whole(input: &str, text: &str) -> Result<u64, TimeParseError> {
    let (days, clock) = match text.split_once('-') {
        Some((d, rest)) => (number(input, d)?, rest),
        None => (0, text),
    };
    let parts: Vec<&str> = clock.split(':').collect();
    let values = parts
        .iter()
        .map(|p| number(input, p))
        .collect::<Result<Vec<u64>, _>>()?;
    let with_days = text.contains('-');
    let terms: Vec<(u64, u64)> = match values.as_slice() {
        [h, m, s] => {
            if *m > 59 || *s > 59 {
                return Err(invalid(
                    input,
                    "a minutes or seconds field is over 59, which sacct never prints",
                ));
            }
            if with_days && *h > 23 {
                return Err(invalid(
                    input,
                    "an hours field after the days is over 23, which sacct never prints",
                ));
            }
            vec![(days, 86_400), (*h, 3_600), (*m, 60), (*s, 1)]
        }
        [m, s] if days == 0 => {
            if *s > 59 {
                return Err(invalid(
                    input,
                    "a seconds field is over 59, which sacct never prints",
                ));
            }
            vec![(*m, 60), (*s, 1)]
        }
        _ => return Err(invalid(input, "expected [D-]HH:MM:SS or MM:SS.mmm")),
    };
    checked(input, &terms)
}

/// The most minutes calib will ever ask for (about 68 years): the largest whole
/// number of minutes whose seconds `s` keep both `time_str2secs` and the
/// round-up `time_str2mins` does, `(s + 59) / 60` in a C `int`, from overflowing.
pub(crate) const SBATCH_MAX_MINUTES: u64 = (SLURM_MAX_SECONDS - 59) / 60;

/// Whole minutes that `sbatch --time` would store for `seconds`: rounded up, as
/// Slurm's `time_str2mins` does, and never 0 (which Slurm reads as no limit).
///
/// Zero, negative and NaN inputs give 1 minute. Inputs beyond what Slurm can
/// represent (including +infinity) are clamped to [`SBATCH_MAX_MINUTES`], so the
/// emitted value is always one that `parse_time` (and Slurm) reads back exactly.
pub fn sbatch_minutes(seconds: f64) -> u64 {
    if seconds.is_nan() || seconds <= 0.0 {
        return 1;
    }
    let minutes = (seconds / 60.0).ceil();
    if minutes >= SBATCH_MAX_MINUTES as f64 {
        SBATCH_MAX_MINUTES
    } else {
        (minutes as u64).max(1)
    }
}

/// Formats `seconds` for `sbatch --time`: whole minutes (seconds rounded up),
/// at least one minute, as `D-HH:MM:SS` from one day on, else `HH:MM:SS`.
pub fn format_sbatch_time(seconds: f64) -> String {
    format_minutes(sbatch_minutes(seconds))
}

/// Formats a whole number of minutes as `D-HH:MM:SS` or `HH:MM:SS`.
pub(crate) fn format_minutes(minutes: u64) -> String {
    let days = minutes / 1_440;
    let hours = (minutes % 1_440) / 60;
    let mins = minutes % 60;
    if days > 0 {
        format!("{days}-{hours:02}:{mins:02}:00")
    } else {
        format!("{hours:02}:{mins:02}:00")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minutes_round_up_and_never_reach_zero() {
        assert_eq!(format_sbatch_time(0.0), "00:01:00");
        assert_eq!(format_sbatch_time(61.0), "00:02:00");
        assert_eq!(format_sbatch_time(86_400.0), "1-00:00:00");
        assert_eq!(format_sbatch_time(43_200.0), "12:00:00");
    }
}
