//! How the calibrated bound does on programs it did not see: each program's
//! recorded probes, budgeted with a factor from the other programs' cases
//! (leave-one-program-out), against its full runs; or a held-out set's,
//! budgeted with the whole table.
//!
//! Per stratum: the runs covered (total time at most the bound), the headroom
//! (the bound over the slowest full run: coverage alone rewards absurd
//! budgets), and whether it was refused (neither covered nor missed, counted
//! on its own). Beside it, the naive baselines on the same probes: the mean
//! rate x N (with the mean time of unit 1) and that x 1.5.

use super::cases::StratumRuns;
use std::collections::BTreeMap;

use super::{Anchor, Calibration, Case, Centre, Form, Group, Pool};
use crate::stats::median;

/// How one method did on one stratum.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    pub program: String,
    pub stratum: String,
    /// The probe's group; `None` when it has no per-unit signal.
    pub group: Option<Group>,
    /// Full runs and, when budgeted, how many the bound covered.
    pub runs: usize,
    pub covered: Option<usize>,
    /// Bound over the slowest full run.
    pub headroom: Option<f64>,
}

/// A method of bounding a new run from a stratum's probes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// The calibrated factor on a centre.
    Calibrated { form: Form, how: Calibration },
    /// The probes' mean rate x N, times this.
    MeanRate(f64),
}

impl Method {
    pub fn name(self) -> String {
        match self {
            Method::Calibrated { form, how } => format!(
                "{}calibrated, {} centre, {}, width {}{}",
                if form == super::FORM && how == super::CHOSEN {
                    "**chosen**: "
                } else {
                    ""
                },
                match form {
                    Form::Power => "power-law",
                    Form::Linear => "linear",
                },
                match how.anchor {
                    Anchor::Centre => "median seed",
                    Anchor::Slowest => "slowest seed",
                },
                how.bandwidth,
                if how.recorded_only {
                    ", recorded probes only"
                } else {
                    ""
                }
            ),
            Method::MeanRate(1.0) => "mean rate x N".to_string(),
            Method::MeanRate(m) => format!("mean rate x N x {m}"),
        }
    }
}

/// The mean-rate projection of a run of `n` units from probe runs.
fn mean_rate(probes: &[&[(u64, f64)]], n: u64) -> Option<f64> {
    let usable: Vec<(f64, f64)> = probes
        .iter()
        .filter(|p| p.len() >= 2)
        .map(|p| {
            let (first, last) = (p[0], p[p.len() - 1]);
            (first.1, (last.1 - first.1) / (last.0 - first.0) as f64)
        })
        .collect();
    if usable.is_empty() {
        return None;
    }
    let k = usable.len() as f64;
    let startup = usable.iter().map(|u| u.0).sum::<f64>() / k;
    let rate = usable.iter().map(|u| u.1).sum::<f64>() / k;
    Some(startup + rate * (n.saturating_sub(1)) as f64)
}

/// `method` on each stratum's recorded probes; with `table`, the factor
/// comes from it, leaving out the stratum's own program when `lopo`.
pub fn trials(
    strata: &[StratumRuns],
    table: &[Case],
    method: Method,
    confidence: f64,
    lopo: bool,
) -> Vec<Trial> {
    // The pools of the method's cases, one per group, built once.
    let mut pools: BTreeMap<Group, Pool> = BTreeMap::new();
    if let Method::Calibrated { how, .. } = method {
        for group in table.iter().map(|c| c.group) {
            pools
                .entry(group)
                .or_insert_with(|| Pool::new(table, group, how));
        }
    }
    strata
        .iter()
        .filter(|s| !s.probes.is_empty())
        .map(|s| {
            let probes: Vec<&[(u64, f64)]> = s.probes.iter().map(|r| r.points.as_slice()).collect();
            let mut trial = Trial {
                program: s.program.clone(),
                stratum: s.stratum.clone(),
                group: None,
                runs: s.full.len(),
                covered: None,
                headroom: None,
            };
            let slowest = s.full.iter().map(|f| f.1).fold(0.0, f64::max);
            let mut bounds = Vec::new();
            match method {
                Method::Calibrated { form, how } => {
                    let Ok(centre) = Centre::fit(&probes, form) else {
                        return trial;
                    };
                    let group = centre.group();
                    trial.group = Some(group);
                    let exclude = lopo.then_some(s.program.as_str());
                    for (run, _) in &s.full {
                        let n = run.points.last().map_or(0, |p| p.0);
                        let factor = pools.get(&group).map(|pool| {
                            pool.factor((centre.probe_units(), n), confidence, exclude)
                        });
                        let Some(Ok(f)) = factor else {
                            return trial;
                        };
                        let (mid, slow) = centre.project(n);
                        let base = match how.anchor {
                            Anchor::Centre => mid,
                            Anchor::Slowest => slow,
                        };
                        // Never below the measured cost, as calib budget.
                        bounds.push((base * f.factor).max(slow));
                    }
                }
                Method::MeanRate(m) => {
                    if let Ok(centre) = Centre::fit(&probes, Form::Linear) {
                        trial.group = Some(centre.group());
                    }
                    for (run, _) in &s.full {
                        let n = run.points.last().map_or(0, |p| p.0);
                        let Some(p) = mean_rate(&probes, n) else {
                            return trial;
                        };
                        bounds.push(p * m);
                    }
                }
            }
            trial.covered = Some(
                s.full
                    .iter()
                    .zip(&bounds)
                    .filter(|((_, total), bound)| total <= bound)
                    .count(),
            );
            let top = bounds.iter().copied().fold(0.0, f64::max);
            trial.headroom = Some(top / slowest);
            trial
        })
        .collect()
}

/// A summary of trials: runs covered of runs budgeted, its 95% Wilson
/// interval, median headroom over budgeted strata, strata refused of strata.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub covered: usize,
    pub budgeted: usize,
    pub interval: (f64, f64),
    pub median_headroom: Option<f64>,
    pub refused: usize,
    pub strata: usize,
}

/// The 95% Wilson score interval of `k` successes in `n` trials (runs of
/// one stratum are not independent: read it as a lower limit on the width).
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.959_964);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

pub fn summarise<'a>(trials: impl IntoIterator<Item = &'a Trial>) -> Summary {
    let (mut covered, mut budgeted, mut refused, mut strata) = (0, 0, 0, 0);
    let mut headrooms = Vec::new();
    for t in trials {
        strata += 1;
        match t.covered {
            Some(c) => {
                covered += c;
                budgeted += t.runs;
                headrooms.extend(t.headroom);
            }
            None => refused += 1,
        }
    }
    Summary {
        covered,
        budgeted,
        interval: wilson(covered, budgeted),
        median_headroom: median(&headrooms),
        refused,
        strata,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_textbook_values() {
        // 90 of 100: (0.826, 0.945) to three places.
        let (lo, hi) = wilson(90, 100);
        assert!(
            (lo - 0.8256).abs() < 1e-3 && (hi - 0.9448).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(10, 10);
        assert!(lo > 0.69 && lo < 0.73 && (hi - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_mean_rate_counts_unit_one_as_startup() {
        let probe = [(1, 5.0), (2, 7.0), (3, 9.0)];
        assert_eq!(mean_rate(&[&probe], 10), Some(5.0 + 2.0 * 9.0));
        assert_eq!(mean_rate(&[&[(1, 5.0)]], 10), None);
    }
}
