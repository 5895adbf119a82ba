//! Durations on the command line (`--timeout`, `--grace`).
//!
//! Two grammars are accepted: Slurm's `--time` grammar (through
//! [`crate::slurm::time::parse_time`]: `30` is 30 *minutes*, `1:30:00`,
//! `2-00:00:00`, `UNLIMITED`), so the value of `sbatch --time` can be reused as
//! is; and a number with a unit suffix, `90s`, `10m`, `1.5h`, `2d`, which says
//! its unit and cannot be misread. A number without a unit is minutes, as
//! `--help` says (`30 = 30 minutes`), decimals included: sbatch takes whole
//! minutes only, but next to `1.5h` a refused `1.5` would only puzzle, so it
//! reads as 1.5 minutes (90 s).

use std::time::Duration;

use crate::error::{Error, Origin, Result};
use crate::slurm::time::{parse_time, SlurmTime};

/// Parses a duration; `None` means no limit (`UNLIMITED`, `INFINITE`, `-1`).
pub(crate) fn parse_duration(flag: &str, text: &str) -> Result<Option<Duration>> {
    // One message for every refusal: what was wrong, when it can be said,
    // then both forms a duration may take.
    let refuse = |why: Option<String>| {
        Error::input(
            Origin::Argument(flag.to_string()),
            None,
            format!(
                "`{text}` is not a duration{}; write a number with a unit (90s, 10m, 1.5h, 2d), \
                 or a time as sbatch --time reads it: minutes (30), M:S, H:M:S (1:30:00), \
                 D-H:M:S, UNLIMITED",
                why.map_or(String::new(), |why| format!(" ({why})"))
            ),
        )
    };
    let bad = |why: String| refuse(Some(why));
    let trimmed = text.trim();
    let (number, suffix) = split_number(trimmed);
    if let Some(unit) = unit_seconds(number, suffix) {
        let value: f64 = number
            .parse()
            .map_err(|_| bad(format!("`{number}` is not a number")))?;
        if !value.is_finite() || value < 0.0 {
            return Err(bad("it must be 0 or more".into()));
        }
        let seconds = value * unit;
        if seconds > 1e12 {
            return Err(bad("it is too large".into()));
        }
        return Ok(Some(Duration::from_secs_f64(seconds)));
    }
    // A number and a word: a unit calib does not know (`1.5min`), said as
    // such rather than by Slurm's grammar (`decimals are not allowed`).
    if !number.is_empty() && suffix.starts_with(|c: char| c.is_alphabetic()) {
        return Err(bad(format!("`{suffix}` is not a unit: s, m, h or d")));
    }
    match parse_time(trimmed) {
        Ok(SlurmTime::Limited(s)) => Ok(Some(Duration::from_secs(s))),
        Ok(SlurmTime::Unlimited) => Ok(None),
        // Slurm's reasons speak of its grammar alone (`no unit suffixes`,
        // `decimals are not allowed`), which calib widens: they explain
        // only a text written in that grammar's characters (`1:2:3:4`).
        Err(e)
            if trimmed
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':' || c == '-') =>
        {
            Err(bad(format!("as sbatch --time reads it, {}", e.reason)))
        }
        Err(_) => Err(refuse(None)),
    }
}

/// The leading digits and dots of `text`, and the rest: `1.5h` -> ("1.5", "h").
fn split_number(text: &str) -> (&str, &str) {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    text.split_at(end)
}

/// The seconds in a unit: `s`, `m`, `h`, `d`, and no unit after a decimal
/// number (minutes, see the module docs); none for the rest, which is left
/// to Slurm's grammar (`30`, `1:30:00`, `UNLIMITED`).
fn unit_seconds(number: &str, suffix: &str) -> Option<f64> {
    if number.is_empty() {
        return None;
    }
    match suffix {
        "s" => Some(1.0),
        "m" => Some(60.0),
        "h" => Some(3600.0),
        "d" => Some(86400.0),
        "" if number.contains('.') => Some(60.0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(text: &str) -> Option<f64> {
        parse_duration("--timeout", text)
            .unwrap()
            .map(|d| d.as_secs_f64())
    }

    #[test]
    fn suffixes_and_slurm_forms() {
        assert_eq!(secs("90s"), Some(90.0));
        assert_eq!(secs("10m"), Some(600.0));
        assert_eq!(secs("1.5h"), Some(5400.0));
        assert_eq!(secs("2d"), Some(172800.0));
        assert_eq!(
            secs("30"),
            Some(1800.0),
            "a bare number is minutes, as in sbatch"
        );
        assert_eq!(secs("1:30:00"), Some(5400.0));
        assert_eq!(secs("1-00:00:00"), Some(86400.0));
        assert_eq!(secs("UNLIMITED"), None);
        assert_eq!(secs("90.5s"), Some(90.5));
        assert_eq!(secs("1.5"), Some(90.0), "a decimal without unit is minutes");
        assert_eq!(secs(".5"), Some(30.0));
    }

    #[test]
    fn errors_name_the_flag() {
        for bad in ["", "ten", "5x", "-3s", "1:xx", "1.5.2", "1.5min", "90.5S"] {
            let e = parse_duration("--timeout", bad).unwrap_err();
            assert!(e.to_string().contains("--timeout"), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
        // A unit calib does not know is named, not taken for a decimal.
        let e = parse_duration("--timeout", "1.5min").unwrap_err();
        assert!(e.to_string().contains("`min` is not a unit"), "{e}");
        // Slurm's own reasons (`no unit suffixes`, `decimals are not
        // allowed`) are not given for what calib's grammar reads otherwise.
        for bad in ["nan", "inf", "-3s", "1,5", "1:xx", "+5"] {
            let e = parse_duration("--timeout", bad).unwrap_err().to_string();
            assert!(!e.contains("suffix") && !e.contains("decimals"), "{e}");
        }
        let e = parse_duration("--timeout", "1:2:3:4")
            .unwrap_err()
            .to_string();
        assert!(e.contains("(as sbatch --time reads it, too many"), "{e}");
    }
}
