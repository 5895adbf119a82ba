//! Shares and factors for people: one way to print "12.5%" and "1.8x" in
//! every note, warning and refusal.
//!
//! The figures come from measurements or from a model file, and a model file
//! may be edited by hand: a unit noise of 1e300 is finite, passes the model
//! check, and must not print as a 300-digit percentage. So from a million
//! (percent, or times) on, the figure is written in scientific notation with
//! two significant digits (`1.2e8%`, `3.0e300x`): it is no measurement there,
//! only a sign that something is wrong with the input.

/// Past this magnitude a figure is written in scientific notation.
const PLAIN_BELOW: f64 = 1e6;

/// `share` (1.0 is 100%) as a percentage with `decimals` decimals.
pub(crate) fn percent(share: f64, decimals: usize) -> String {
    figure(share * 100.0, decimals, "%")
}

/// A stated confidence (or any share given, not measured) as the percentage
/// it is, every digit kept: 0.99 is `99%`, 0.999 `99.9%`, 0.9999999
/// `99.99999%`. Rounded to a fixed number of decimals, 0.999 would read
/// `100%`, a confidence no bound states. The digits are those of the share's
/// shortest decimal form (what the user typed), with the point moved two
/// places, so no rounding of `share * 100` creeps in.
pub(crate) fn percent_as_given(share: f64) -> String {
    let typed = format!("{share}");
    let digits = typed
        .strip_prefix("0.")
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()));
    let Some(digits) = digits else {
        // Not of the form 0.ddd (1 or more, negative, tiny, absurd): as a
        // figure with up to four decimals.
        let value = share * 100.0;
        return if value.is_finite() && value.abs() < PLAIN_BELOW {
            format!("{}%", trimmed(value, 4))
        } else {
            figure(value, 4, "%")
        };
    };
    let padded = format!("{digits:0<2}");
    let (whole, decimals) = padded.split_at(2);
    let whole = match whole.trim_start_matches('0') {
        "" => "0",
        w => w,
    };
    match decimals {
        "" => format!("{whole}%"),
        d => format!("{whole}.{d}%"),
    }
}

/// `value` with at most `decimals` decimals and no trailing zeros (`2`,
/// `2.5`, `0.25`): plot ticks and stated figures, which have the decimals
/// they have.
pub(crate) fn trimmed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A change along a run, from `change_pct` (percent: +26 is 1.26 times):
/// `+26%`, `-40%`; past +999% as the factor it is (`x12`, `x340`), and past
/// a thousandfold as `>x1000`. A fitted form whose cost at unit 1 is near 0
/// (a logarithm, its startup holding unit 1) would otherwise print the
/// ratio of the two as `+160825330%`, a figure that means nothing.
pub(crate) fn change(change_pct: f64) -> String {
    let ratio = 1.0 + change_pct / 100.0;
    if change_pct.is_nan() {
        "n/a".to_string()
    } else if ratio > 1000.0 {
        ">x1000".to_string()
    } else if change_pct > 999.0 {
        format!("x{ratio:.0}")
    } else {
        format!("{change_pct:+.0}%")
    }
}

/// `ratio` as a factor with `decimals` decimals (`1.8x`).
pub(crate) fn factor(ratio: f64, decimals: usize) -> String {
    figure(ratio, decimals, "x")
}

/// `value` with its `unit`; not-a-number and the infinities as words.
fn figure(value: f64, decimals: usize, unit: &str) -> String {
    if value.is_nan() {
        "n/a".to_string()
    } else if value.is_infinite() {
        if value > 0.0 {
            "unbounded"
        } else {
            "-unbounded"
        }
        .to_string()
    } else if value.abs() < PLAIN_BELOW {
        format!("{value:.decimals$}{unit}")
    } else {
        format!("{value:.1e}{unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_figures_keep_their_decimals() {
        assert_eq!(percent(0.125, 1), "12.5%");
        assert_eq!(percent(0.125, 0), "12%");
        assert_eq!(percent(-0.03, 2), "-3.00%");
        assert_eq!(factor(1.847, 1), "1.8x");
        assert_eq!(factor(999_999.4, 0), "999999x");
    }

    #[test]
    fn a_stated_confidence_keeps_the_decimals_it_has() {
        assert_eq!(percent_as_given(0.99), "99%");
        assert_eq!(percent_as_given(0.999), "99.9%");
        assert_eq!(percent_as_given(0.975), "97.5%");
        assert_eq!(percent_as_given(0.9), "90%");
        assert_eq!(percent_as_given(0.99995), "99.995%");
        assert_eq!(percent_as_given(0.5), "50%");
        // Every digit the user gave, none that rounding would add or take.
        assert_eq!(percent_as_given(0.9999999), "99.99999%");
        assert_eq!(percent_as_given(0.5000001), "50.00001%");
        assert_eq!(percent_as_given(0.999949999), "99.9949999%");
        assert_eq!(percent_as_given(0.05), "5%");
        assert_eq!(percent_as_given(0.001), "0.1%");
        assert_eq!(percent_as_given(1.5), "150%");
    }

    #[test]
    fn a_change_past_tenfold_reads_as_a_factor() {
        assert_eq!(change(26.4), "+26%");
        assert_eq!(change(-40.0), "-40%");
        assert_eq!(change(984.0), "+984%");
        assert_eq!(change(1_100.0), "x12");
        assert_eq!(change(160_825_330.0), ">x1000");
        assert_eq!(change(f64::INFINITY), ">x1000");
        assert_eq!(change(f64::NAN), "n/a");
    }

    #[test]
    fn absurd_figures_stay_short() {
        assert_eq!(percent(1e300, 1), "1.0e302%");
        assert_eq!(factor(3e300, 1), "3.0e300x");
        assert_eq!(factor(-2.5e7, 2), "-2.5e7x");
        assert_eq!(percent(10_000.0, 0), "1.0e6%");
        assert_eq!(factor(f64::INFINITY, 1), "unbounded");
        assert_eq!(percent(f64::NAN, 1), "n/a");
        for value in [1e6, 1e12, 1e100, f64::MAX] {
            assert!(factor(value, 3).len() <= 12, "{}", factor(value, 3));
        }
    }
}
