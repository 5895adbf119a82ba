//! Small descriptive statistics shared by every module (one definition each).

/// The median of `values` (the mean of the two middle values for an even count);
/// `None` when empty. NaNs sort last (IEEE total order), so one NaN cannot
/// hide behind a plausible median unnoticed when most values are NaN.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    // Selection, not a sort: O(n), and no scratch buffer beyond the copy.
    let mut copy = values.to_vec();
    let mid = copy.len() / 2;
    let (lower, &mut upper, _) = copy.select_nth_unstable_by(mid, f64::total_cmp);
    Some(if values.len().is_multiple_of(2) {
        let below = lower
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .unwrap_or(upper);
        (below + upper) / 2.0
    } else {
        upper
    })
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5.0, f64::NAN, 1.0, 2.0, 9.0]), Some(5.0));
        let many: Vec<f64> = (0..1001).map(|i| ((i * 7919) % 1001) as f64).collect();
        assert_eq!(median(&many), Some(500.0));
    }
}
