//! Durations for people: one vocabulary in every table, note, warning and
//! status line calib prints (`459ms`, `1.35s`, `12m 56s`, `4h 48m`,
//! `2d 3h 05m`).
//!
//! Below a minute a duration keeps three significant digits, because per-unit
//! costs live there and their differences matter; from a minute on, whole
//! seconds, and from an hour on, whole minutes (truncated: an hour-long run
//! is not planned to the second). Times for Slurm (`sbatch --time`) are a
//! grammar, not a display, and have their own formatter:
//! [`crate::slurm::time::format_sbatch_time`].

/// `seconds` for people (see the module docs). `+inf` is `unbounded` (an
/// upper bound without an end); NaN is `n/a`.
pub(crate) fn human_duration(seconds: f64) -> String {
    if seconds.is_nan() {
        return "n/a".to_string();
    }
    if seconds.is_infinite() {
        return if seconds > 0.0 {
            "unbounded"
        } else {
            "-unbounded"
        }
        .to_string();
    }
    if seconds < 0.0 {
        return format!("-{}", human_duration(-seconds));
    }
    if seconds == 0.0 {
        return "0s".to_string();
    }
    let ms = seconds * 1_000.0;
    if ms < 0.01 {
        return "<0.01ms".to_string();
    }
    // Compared after rounding, so that 999.7 ms reads 1.00s, not 1000ms.
    if ms < 999.5 {
        return format!("{}ms", three_digits(ms));
    }
    if seconds < 59.95 {
        return format!("{}s", three_digits(seconds));
    }
    // Beyond any u64 of seconds the float would saturate; nothing measured is
    // that long (see crate::limits), but a projection may say so.
    if seconds >= 1e15 {
        return format!("{:.1e}d", seconds / 86_400.0);
    }
    let s = seconds.round() as u64;
    let (d, h, m, sec) = (s / 86_400, (s % 86_400) / 3_600, (s % 3_600) / 60, s % 60);
    if d > 0 {
        format!("{d}d {h}h {m:02}m")
    } else if h > 0 {
        format!("{h}h {m:02}m")
    } else {
        format!("{m}m {sec:02}s")
    }
}

/// `x` (0.01 <= x < 999.5) to three significant digits: `1.35`, `45.2`, `459`.
fn three_digits(x: f64) -> String {
    if x < 9.995 {
        format!("{x:.2}")
    } else if x < 99.95 {
        format!("{x:.1}")
    } else {
        format!("{x:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::human_duration;

    #[test]
    fn one_vocabulary_from_milliseconds_to_days() {
        let cases = [
            (0.0, "0s"),
            (0.000_001, "<0.01ms"),
            (0.0123, "12.3ms"),
            (0.459, "459ms"),
            (0.9997, "1.00s"),
            (1.349, "1.35s"),
            (45.21, "45.2s"),
            (59.97, "1m 00s"),
            (125.0, "2m 05s"),
            (776.0, "12m 56s"),
            (17_299.0, "4h 48m"),
            (183_900.0, "2d 3h 05m"),
            (f64::INFINITY, "unbounded"),
            (f64::NAN, "n/a"),
            (-90.0, "-1m 30s"),
        ];
        for (seconds, want) in cases {
            assert_eq!(human_duration(seconds), want, "{seconds}");
        }
    }

    #[test]
    fn no_number_of_hundreds_of_digits() {
        for seconds in [1e15, 1e300, f64::MAX] {
            assert!(human_duration(seconds).len() < 16, "{seconds}");
        }
    }
}
