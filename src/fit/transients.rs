//! Transient slow units: a few units of a run many times slower than their
//! neighbours (a noisy neighbour on the node, a burst of I/O, a garbage
//! collection), which a least-squares trend would bend toward and then
//! extrapolate as growth.
//!
//! **Detection** (a Hampel-type filter: Hampel, "The influence curve and its
//! role in robust estimation", JASA 1974; Pearson, "Outliers in process
//! modeling and identification", IEEE TCST 2002, with a ratio threshold in
//! place of a multiple of the MAD, since unit costs are positive and their
//! noise multiplicative): a unit is transient when its cost is more than
//! [`TRANSIENT_FACTOR`] times the median of its neighbours in the same run: as
//! many before it as after it, up to [`NEIGHBOURS`] on each side (so the
//! first and last units, which lack one side, are not judged). Only
//! single-unit intervals after the first (whose time includes the startup)
//! count. A burst of up to three slow units in a row is caught; a lasting
//! step to a slower regime is not (the neighbours after the step are slow
//! too), and neither is a monotone trend, however steep, geometric growth
//! included: a balanced window's median sits at the unit's own level.
//!
//! **Treatment.** A transient is taken as an event that recurs, not as a
//! trend: each transient unit is set to its neighbours' median, and the run's
//! total excess is spread evenly over the run's judged units. Every run keeps
//! its total time (its level, and the spread between runs, still see the
//! transients), and the per-unit rate it carries forward includes their share;
//! only the shape of the curve no longer bends toward where they happened. The
//! assumption is that transients keep occurring at the rate the probe saw
//! them; a probe that happened to see none cannot know of them.

use crate::stats::median;
use crate::timings::RunTimings;

/// A unit this many times slower than its neighbours' median is transient.
pub const TRANSIENT_FACTOR: f64 = 3.0;
/// Neighbours compared on each side of a unit.
pub const NEIGHBOURS: usize = 3;

/// The transient units found in a stratum's runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TransientReport {
    /// Transient units over all runs.
    pub units: usize,
    /// Runs with at least one.
    pub runs_with: usize,
    /// Runs judged.
    pub runs: usize,
    /// The largest ratio of a transient unit to its neighbours' median, and
    /// that unit's number.
    pub worst: (f64, u64),
}

/// The runs with their transients evened out (see the module docs), and what
/// was found; `None` when no run has a transient unit.
pub fn even_out(runs: &[&RunTimings]) -> Option<(Vec<RunTimings>, TransientReport)> {
    // Judged first, copied only when some run has a transient: the common
    // case (none) costs no copy of the rows.
    let evened: Vec<Option<Evened>> = runs.iter().map(|run| even_out_run(&run.points)).collect();
    if evened.iter().all(Option::is_none) {
        return None;
    }
    let mut report = TransientReport {
        units: 0,
        runs_with: 0,
        runs: runs.len(),
        worst: (0.0, 0),
    };
    let runs = runs
        .iter()
        .zip(evened)
        .map(|(run, evened)| match evened {
            Some((points, found)) => {
                report.runs_with += 1;
                report.units += found.len();
                for &(unit, ratio) in &found {
                    if ratio > report.worst.0 {
                        report.worst = (ratio, unit);
                    }
                }
                RunTimings {
                    points,
                    ..(*run).clone()
                }
            }
            None => (*run).clone(),
        })
        .collect();
    Some((runs, report))
}

/// (unit, elapsed seconds) rows of one run, as in [`RunTimings::points`].
type Points = Vec<(u64, f64)>;

/// A run's rows evened out, and its transients as (unit, ratio).
type Evened = (Points, Vec<(u64, f64)>);

/// One run's cumulative points with its transients evened out, and the
/// transients found as (unit, ratio to the neighbours' median); `None` when
/// the run has none.
fn even_out_run(points: &[(u64, f64)]) -> Option<Evened> {
    // Per-interval durations; only single-unit intervals after the first are judged.
    let mut durations: Vec<f64> = Vec::with_capacity(points.len());
    let mut judged: Vec<bool> = Vec::with_capacity(points.len());
    let mut prev = (0u64, 0.0f64);
    for (k, &(u, t)) in points.iter().enumerate() {
        durations.push(t - prev.1);
        judged.push(k > 0 && u == prev.0 + 1);
        prev = (u, t);
    }
    let judged_idx: Vec<usize> = (0..points.len()).filter(|&k| judged[k]).collect();
    let mut found = Vec::new();
    let mut replacement: Vec<(usize, f64)> = Vec::new();
    // The judged units' durations side by side, so that a unit's neighbours
    // are two short slices copied into a window on the stack.
    let judged_durations: Vec<f64> = judged_idx.iter().map(|&k| durations[k]).collect();
    let mut window = [0.0f64; 2 * NEIGHBOURS];
    for (pos, &k) in judged_idx.iter().enumerate() {
        let side = pos.min(judged_idx.len() - 1 - pos).min(NEIGHBOURS);
        if side == 0 {
            continue;
        }
        let (before, after) = (
            &judged_durations[pos - side..pos],
            &judged_durations[pos + 1..=pos + side],
        );
        // The median is at least the smallest neighbour, and division is
        // monotone: a unit within the factor of its smallest positive
        // neighbour is within it of the median too, so the median (the
        // costly part, taken for every unit) is only needed otherwise.
        let smallest = before
            .iter()
            .chain(after)
            .copied()
            .fold(f64::INFINITY, f64::min);
        if smallest > 0.0 && durations[k] / smallest <= TRANSIENT_FACTOR {
            continue;
        }
        window[..side].copy_from_slice(before);
        window[side..2 * side].copy_from_slice(after);
        let neighbours = &window[..2 * side];
        let Some(typical) = median(neighbours).filter(|m| *m > 0.0) else {
            continue;
        };
        let ratio = durations[k] / typical;
        if ratio > TRANSIENT_FACTOR {
            found.push((points[k].0, ratio));
            replacement.push((k, typical));
        }
    }
    if found.is_empty() {
        return None;
    }
    let excess: f64 = replacement.iter().map(|&(k, m)| durations[k] - m).sum();
    for &(k, m) in &replacement {
        durations[k] = m;
    }
    let share = excess / judged_idx.len() as f64;
    for &k in &judged_idx {
        durations[k] += share;
    }
    let mut t = 0.0;
    let evened = points
        .iter()
        .zip(&durations)
        .map(|(&(u, _), d)| {
            t += d;
            (u, t)
        })
        .collect();
    Some((evened, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cumulative(startup: f64, costs: &[f64]) -> Vec<(u64, f64)> {
        let mut t = startup;
        costs
            .iter()
            .enumerate()
            .map(|(i, c)| {
                t += c;
                (i as u64 + 1, t)
            })
            .collect()
    }

    #[test]
    fn a_spike_is_evened_out_and_the_total_kept() {
        let mut costs = vec![1.0; 20];
        costs[14] = 10.0;
        costs[15] = 8.0;
        let points = cumulative(5.0, &costs);
        let (evened, found) = even_out_run(&points).expect("two transient units");
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![15, 16]);
        let last = |p: &[(u64, f64)]| p.last().unwrap().1;
        assert!((last(&evened) - last(&points)).abs() < 1e-9);
        // Every judged unit now costs the same: 1 + 16 / 19.
        let d: Vec<f64> = evened.windows(2).map(|w| w[1].1 - w[0].1).collect();
        assert!(
            d.iter().all(|x| (x - (1.0 + 16.0 / 19.0)).abs() < 1e-9),
            "{d:?}"
        );
    }

    /// The shortcut through the smallest neighbour finds exactly the units the
    /// median rule finds: on runs with zero-time units, near-ties at the factor
    /// and isolated small neighbours, the transients are those of a plain
    /// median of each unit's neighbours.
    #[test]
    fn the_smallest_neighbour_shortcut_keeps_the_median_rule() {
        let mut rng = crate::synth::Rng::new(2026);
        let mut next = || rng.uniform();
        for _ in 0..200 {
            let costs: Vec<f64> = (0..60)
                .map(|_| match next() {
                    r if r < 0.05 => 0.0,
                    r if r < 0.15 => 0.1,
                    r if r < 0.25 => 3.0 + 3.0 * next(),
                    r if r < 0.30 => 3.0,
                    _ => 1.0 + 0.2 * next(),
                })
                .collect();
            let points = cumulative(2.0, &costs);
            let found = even_out_run(&points).map(|(_, f)| f).unwrap_or_default();
            // The rule itself, unit by unit, on the same durations: units
            // 2..=60 are judged.
            let judged: Vec<f64> = points.windows(2).map(|w| w[1].1 - w[0].1).collect();
            let mut expected = Vec::new();
            for pos in 0..judged.len() {
                let side = pos.min(judged.len() - 1 - pos).min(NEIGHBOURS);
                let neighbours: Vec<f64> = (pos - side..=pos + side)
                    .filter(|&p| p != pos)
                    .map(|p| judged[p])
                    .collect();
                if let Some(m) = median(&neighbours).filter(|m| side > 0 && *m > 0.0) {
                    if judged[pos] / m > TRANSIENT_FACTOR {
                        expected.push(pos as u64 + 2);
                    }
                }
            }
            assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn trends_steps_and_noise_are_left_alone() {
        let linear: Vec<f64> = (1..=40).map(|i| 0.05 + 0.2 * i as f64).collect();
        let geometric: Vec<f64> = (1..=25).map(|i| 2.5f64.powi(i)).collect();
        let step: Vec<f64> = (1..=30).map(|i| if i > 15 { 6.0 } else { 1.0 }).collect();
        let noisy: Vec<f64> = (1..=50)
            .map(|i| 1.0 + 0.5 * ((i * 7919 % 13) as f64 / 13.0))
            .collect();
        for costs in [linear, geometric, step, noisy] {
            if let Some((_, found)) = even_out_run(&cumulative(1.0, &costs)) {
                panic!("{found:?} in {costs:?}");
            }
        }
    }
}
