//! Value parsers shared by several commands' flags, so that a flag means and
//! checks the same thing everywhere. Clap reports their errors as bad usage
//! (exit status 2), naming the flag and the value.

use regex::Regex;

/// `--confidence P`: a one-sided confidence, strictly between 0.5 (a bound
/// below the central projection) and 1 (no finite bound).
pub fn confidence(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(p) if p > 0.5 && p < 1.0 => Ok(p),
        _ => Err(format!(
            "expected a one-sided confidence in (0.5, 1), e.g. 0.99; found {text:?}"
        )),
    }
}

/// A regular expression (`--by-name`, `--partition-regex`).
pub fn regex(text: &str) -> Result<Regex, String> {
    Regex::new(text).map_err(|e| format!("not a regular expression: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_is_open_between_one_half_and_one() {
        assert_eq!(confidence("0.99"), Ok(0.99));
        for bad in ["0.5", "1", "1.5", "0", "-0.9", "NaN", "inf", "ninety"] {
            let e = confidence(bad).unwrap_err();
            assert!(e.contains("(0.5, 1)") && e.contains(bad), "{bad}: {e}");
        }
    }
}
