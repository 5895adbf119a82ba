//! Durations on the command line (`--timeout`, `--grace`).
//!
//! Two grammars are accepted: Slurm's `--time` grammar (through
//! [`crate::slurm::time::parse_time`]: `30` is 30 *minutes*, `1:30:00`,
//! `2-00:00:00`, `UNLIMITED`), so the value of `sbatch --time` can be reused as
//! is; and a number with a unit suffix, `90s`, `10m`, `1.5h`, `2d`, which says
//! its unit and cannot be misread.

use std::time::Duration;

use crate::error::{Error, Origin, Result};
use crate::slurm::time::{parse_time, SlurmTime};

/// Parses a duration; `None` means no limit (`UNLIMITED`, `INFINITE`, `-1`).
pub(crate) fn parse_duration(flag: &str, text: &str) -> Result<Option<Duration>> {
    let bad = |why: String| {
        Error::input(
            Origin::Argument(flag.to_string()),
            None,
            format!(
                "`{text}` is not a duration ({why}); write it with a unit, 90s, 10m, 1.5h, 2d, \
                 or as sbatch --time does: minutes (30), M:S, H:M:S (1:30:00), D-H:M:S"
            ),
        )
    };
    let trimmed = text.trim();
    if let Some((number, unit)) = split_suffix(trimmed) {
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
    match parse_time(trimmed) {
        Ok(SlurmTime::Limited(s)) => Ok(Some(Duration::from_secs(s))),
        Ok(SlurmTime::Unlimited) => Ok(None),
        Err(e) => Err(bad(e.reason.to_string())),
    }
}

/// `90s` -> ("90", 1.0); `10m` -> ("10", 60.0); none for Slurm forms.
fn split_suffix(text: &str) -> Option<(&str, f64)> {
    let last = text.chars().last()?;
    let unit = match last {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86400.0,
        _ => return None,
    };
    let number = &text[..text.len() - 1];
    (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .then_some((number, unit))
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
    }

    #[test]
    fn errors_name_the_flag() {
        for bad in ["", "ten", "5x", "-3s", "1:xx"] {
            let e = parse_duration("--timeout", bad).unwrap_err();
            assert!(e.to_string().contains("--timeout"), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
    }
}
