//! Small descriptive statistics shared by every module (one definition each).

/// Inputs up to this length take the median on the stack (an insertion sort);
/// longer ones by selection. The transient filter takes a median of at most
/// six neighbours for every unit of every run, where a heap copy and a
/// selection cost more than the sort.
const SMALL: usize = 8;

/// The median of `values` (the mean of the two middle values for an even count);
/// `None` when empty. NaNs sort last (IEEE total order), so one NaN cannot
/// hide behind a plausible median unnoticed when most values are NaN.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    if values.len() <= SMALL {
        median_small(values)
    } else {
        median_by_selection(values)
    }
}

/// [`median`] by an insertion sort on the stack, for at most [`SMALL`] values.
/// Under the total order equal values have equal bits, so the middle values,
/// and their mean, are those the selection finds.
fn median_small(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mut sorted = [0.0f64; SMALL];
    for (k, &v) in values.iter().enumerate() {
        let mut j = k;
        while j > 0 && sorted[j - 1].total_cmp(&v).is_gt() {
            sorted[j] = sorted[j - 1];
            j -= 1;
        }
        sorted[j] = v;
    }
    let mid = n / 2;
    Some(if n.is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// [`median`] by selection: O(n), and no scratch buffer beyond the copy.
fn median_by_selection(values: &[f64]) -> Option<f64> {
    select_median(&mut values.to_vec())
}

/// The selection behind [`median_by_selection`], which reorders `values`.
fn select_median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let len = values.len();
    let (lower, &mut upper, _) = values.select_nth_unstable_by(len / 2, f64::total_cmp);
    Some(if len.is_multiple_of(2) {
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
    use super::{median, median_by_selection, median_small, SMALL};

    #[test]
    fn odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[5.0, f64::NAN, 1.0, 2.0, 9.0]), Some(5.0));
        let many: Vec<f64> = (0..1001).map(|i| ((i * 7919) % 1001) as f64).collect();
        assert_eq!(median(&many), Some(500.0));
    }

    /// The stack sort gives the selection's median bit for bit, ties, signed
    /// zeros, infinities and NaNs included, for every length it takes.
    #[test]
    fn the_small_path_is_the_selection_bit_for_bit() {
        let pool = [
            3.5,
            -1.0,
            0.0,
            -0.0,
            1e-300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            3.5,
            0.1 + 0.2,
            0.3,
            -7.25,
        ];
        // A fixed pseudo-random walk over the pool (the same cases each run).
        let mut rng = crate::synth::Rng::new(12345);
        let mut next = || pool[(rng.next_u64() >> 33) as usize % pool.len()];
        for _ in 0..20_000 {
            for n in 0..=SMALL {
                let values: Vec<f64> = (0..n).map(|_| next()).collect();
                let small = median_small(&values).map(f64::to_bits);
                let selected = median_by_selection(&values).map(f64::to_bits);
                assert_eq!(small, selected, "{values:?}");
            }
        }
    }
}
