//! The calibrated bound: a centre projected from the probe, times a factor
//! measured on real programs.
//!
//! **Centre.** Per probe run r (units 1..K_r, cumulative times t_r(i)), the
//! per-unit cost over the second half of the run (units past K_r/2, unit 1
//! left out: it carries the startup) is fitted as c_r(i) = s_r h(i): one
//! shape h for the stratum, pooled within runs, and each run's own scale s_r
//! (a ratio of sums, so that it reproduces the run's measured time over the
//! window). The shape is a power law h(i) = i^b (least squares of ln c on
//! ln i, b held in [0, 3]); no decline is extrapolated. A run of N units is
//! projected as T_r(N) = t_r(K_r) + s_r Σ_{i=K_r+1..N} h(i); the **centre**
//! is the median over runs, the **slowest seed** the largest, which the
//! factor multiplies: the seeds' spread enters the bound as measured (slowest
//! over centre), the factor is the extrapolation's share.
//!
//! **Factor.** On a corpus of real programs, each case is a probe and a run of
//! N units that the probe did not see: a recorded probe against a full run,
//! and probes cut from other full runs of the stratum (to N/2 ... N/32),
//! which widen the range of N/K but carry none of the drift between a probe
//! and the runs that follow it; e = ln(actual total / slowest seed's
//! projection). A case belongs to one of
//! four groups: growth visible in the probe (a rise of [`GROWTH_RISE`] from
//! K/2 to K) or not, crossed with a probe of at least [`LONG_PROBE_UNITS`]
//! units or shorter. The factor for a new probe at confidence q is exp of the
//! weighted q-quantile of e over its group's cases, each weighted by
//! closeness in ln(N/K) (a Gaussian kernel of width [`BANDWIDTH`]) and
//! divided by its program's count of cases, so that every program weighs
//! alike.
//!
//! **Chosen once.** The form (power law or a line a + g i), the anchor
//! (median or slowest seed), the width and whether the cut cases count were
//! chosen once for all programs by leave-one-program-out on the corpus
//! ([`report`]; `calib calibrate` prints every candidate), never on the
//! held-out sets.
//!
//! **Assumptions.** A new program is exchangeable with the corpus's programs
//! within a group and at similar N/K: the factor is split conformal
//! prediction with programs as the exchangeable units (Lei, G'Sell, Rinaldo,
//! Tibshirani, Wasserman, "Distribution-Free Predictive Inference for
//! Regression", JASA 2018), weighted by similarity (Barber, Candès, Ramdas,
//! Tibshirani, "Conformal prediction beyond exchangeability", Ann. Stat.
//! 2023). With n programs such a statement holds at most at 1 - 1/(n + 1),
//! so a stated 99% needs on the order of 100 programs. The corpus's probes
//! and full runs were recorded at different times and loads, so the factor
//! carries that drift, which probes taken side by side do not show.
//!
//! **Refusal.** Only where the probe shows no per-unit signal (fewer than two
//! units in every run, or less than [`MIN_SIGNAL_S`] of measured time past
//! unit 1: the cost is lost in startup and timer resolution), or where the
//! group's cases near this N/K come from fewer than [`MIN_PROGRAMS`]
//! programs (effective count, by their weights).

pub mod cases;
pub mod report;
pub mod table;

use crate::timings::RunTimings;

/// The rise from which growth counts as visible in the probe: the fitted
/// per-unit cost at unit K at least 10% above that at K/2.
pub const GROWTH_RISE: f64 = 1.1;
/// The probe length (units) from which a probe counts as long.
pub const LONG_PROBE_UNITS: u64 = 8;
/// Width, in ln(N/K), of the kernel that weighs cases by closeness (1.4: a
/// case at twice or half the distance weighs 0.88, at 4x 0.61).
pub const BANDWIDTH: f64 = 1.4;
/// The centre's form, chosen by leave-one-program-out ([`report`]).
pub const FORM: Form = Form::Power;
/// How the factor is taken, chosen by leave-one-program-out: on the slowest
/// seed's projection, so that the seeds' spread enters the bound as measured.
pub const CHOSEN: Calibration = Calibration {
    anchor: Anchor::Slowest,
    bandwidth: BANDWIDTH,
    recorded_only: false,
};
/// Least effective number of programs a factor may rest on.
pub const MIN_PROGRAMS: f64 = 8.0;
/// Least measured time past unit 1, summed over the probe's runs, for a
/// per-unit signal (calib's timings have millisecond resolution).
pub const MIN_SIGNAL_S: f64 = 0.02;
/// The largest exponent of the centre's power law (cubic growth).
pub const MAX_EXPONENT: f64 = 3.0;
/// Per-unit costs below this are read as this (the timer's resolution).
const RESOLUTION_S: f64 = 1e-3;

/// One probe run's fit: its length, its time at its last unit, its scale.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFit {
    pub units: u64,
    pub elapsed_s: f64,
    pub scale: f64,
}

/// The form of the per-unit cost the centre extrapolates, one for all runs
/// of a stratum (each run has its own scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// c(i) ∝ i^b, b in [0, [`MAX_EXPONENT`]].
    Power { exponent: f64 },
    /// c(i) ∝ a + g i, a >= 0, g >= 0 (relative to the window's mean cost).
    Linear { intercept: f64, slope: f64 },
}

/// Which form a centre is fitted with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Power,
    Linear,
}

impl Shape {
    /// Σ_{i=a+1..n} of the shape.
    fn sum(self, a: u64, n: u64) -> f64 {
        if n <= a {
            return 0.0;
        }
        match self {
            Shape::Power { exponent } => power_sum(a, n, exponent),
            Shape::Linear { intercept, slope } => {
                let (a, n) = (a as f64, n as f64);
                intercept * (n - a) + slope * (n * (n + 1.0) - a * (a + 1.0)) / 2.0
            }
        }
    }

    /// The shape's rise from unit k/2 to unit k (1.0: flat).
    fn rise(self, k: u64) -> f64 {
        let k = k.max(2) as f64;
        match self {
            Shape::Power { exponent } => 2f64.powf(exponent),
            Shape::Linear { intercept, slope } => {
                (intercept + slope * k) / (intercept + slope * k / 2.0)
            }
        }
    }
}

/// The centre of a stratum's probe: the shape and each run's fit.
#[derive(Debug, Clone, PartialEq)]
pub struct Centre {
    pub shape: Shape,
    pub runs: Vec<RunFit>,
}

/// Why a probe supports no bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoSignal {
    /// No run has two units: no per-unit cost was measured.
    OneUnit,
    /// The time past unit 1 is within the timer's resolution.
    Resolution,
}

/// The four groups of cases: growth visible or not, long probe or short.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Group {
    pub growth: bool,
    pub long: bool,
}

impl Group {
    pub fn name(self) -> &'static str {
        match (self.growth, self.long) {
            (true, true) => "growth,long",
            (true, false) => "growth,short",
            (false, true) => "flat,long",
            (false, false) => "flat,short",
        }
    }

    pub fn parse(text: &str) -> Option<Group> {
        let (growth, long) = text.split_once(',')?;
        Some(Group {
            growth: match growth {
                "growth" => true,
                "flat" => false,
                _ => return None,
            },
            long: match long {
                "long" => true,
                "short" => false,
                _ => return None,
            },
        })
    }
}

/// Σ_{i=a+1..n} i^b, by the midpoint rule on x^b (exact for b = 0 and b =
/// 1, within 0.1% of the sum past a few units for b up to 3).
fn power_sum(a: u64, n: u64, b: f64) -> f64 {
    if n <= a {
        return 0.0;
    }
    let (lo, hi) = (a as f64 + 0.5, n as f64 + 0.5);
    (hi.powf(b + 1.0) - lo.powf(b + 1.0)) / (b + 1.0)
}

/// A run's per-unit costs past half its length (from unit 2): (index, cost
/// per unit), a gap between recorded units spread evenly over it.
fn window_costs(points: &[(u64, f64)]) -> Vec<(f64, f64)> {
    let Some(&(k, _)) = points.last() else {
        return Vec::new();
    };
    let from = (k / 2 + 1).max(2);
    points
        .windows(2)
        .filter(|w| w[1].0 >= from)
        .map(|w| {
            let span = (w[1].0 - w[0].0) as f64;
            let cost = ((w[1].1 - w[0].1) / span).max(RESOLUTION_S);
            ((w[0].0 as f64 + w[1].0 as f64) / 2.0 + 0.5, cost)
        })
        .collect()
}

/// A probe run's points and its per-unit costs past half its length.
type Window<'a> = (&'a [(u64, f64)], Vec<(f64, f64)>);

/// The pooled within-run slope of y(c, i) on x(i) over the windows.
fn pooled_slope(windows: &[Window], x: impl Fn(f64) -> f64, y: impl Fn(f64, f64) -> f64) -> f64 {
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (_, w) in windows {
        let n = w.len() as f64;
        let mx = w.iter().map(|(i, _)| x(*i)).sum::<f64>() / n;
        let my = w.iter().map(|(i, c)| y(*c, *i)).sum::<f64>() / n;
        for (i, c) in w {
            sxy += (x(*i) - mx) * (y(*c, *i) - my);
            sxx += (x(*i) - mx).powi(2);
        }
    }
    if sxx > 1e-12 {
        sxy / sxx
    } else {
        0.0
    }
}

/// The pooled line of cost relative to the run's mean on i: (slope,
/// intercept at i = 0).
fn pooled_line(windows: &[Window], means: &[f64]) -> (f64, f64) {
    let mut relative = Vec::with_capacity(windows.len());
    for ((p, w), m) in windows.iter().zip(means) {
        relative.push((*p, w.iter().map(|(i, c)| (*i, c / m)).collect::<Vec<_>>()));
    }
    let beta = pooled_slope(&relative, |i| i, |c, _| c);
    let (n, si): (f64, f64) = relative
        .iter()
        .flat_map(|(_, w)| w.iter())
        .fold((0.0, 0.0), |(n, s), (i, _)| (n + 1.0, s + i));
    // Each run's relative costs average 1, so the line passes (mean i, 1).
    (beta, 1.0 - beta * si / n)
}

impl Centre {
    /// Fits the centre of probe runs given as their points (unit, elapsed).
    pub fn fit(runs: &[&[(u64, f64)]], form: Form) -> Result<Centre, NoSignal> {
        let windows: Vec<Window> = runs
            .iter()
            .filter(|p| p.len() >= 2)
            .map(|p| (*p, window_costs(p)))
            .filter(|(_, w)| !w.is_empty())
            .collect();
        if windows.is_empty() {
            return Err(NoSignal::OneUnit);
        }
        let signal: f64 = runs
            .iter()
            .filter_map(|p| Some(p.last()?.1 - p.first()?.1))
            .sum();
        if signal < MIN_SIGNAL_S {
            return Err(NoSignal::Resolution);
        }
        let shape = match form {
            Form::Power => Shape::Power {
                exponent: pooled_slope(&windows, |i| i.ln(), |c, _| c.ln())
                    .clamp(0.0, MAX_EXPONENT),
            },
            Form::Linear => {
                let means: Vec<f64> = windows
                    .iter()
                    .map(|(_, w)| w.iter().map(|(_, c)| c).sum::<f64>() / w.len() as f64)
                    .collect();
                // Costs relative to their run's mean over the window, on i:
                // no decline, and no negative cost at unit 0.
                let (beta, intercept) = pooled_line(&windows, &means);
                if beta > 0.0 {
                    Shape::Linear {
                        intercept: intercept.max(0.0),
                        slope: beta,
                    }
                } else {
                    Shape::Linear {
                        intercept: 1.0,
                        slope: 0.0,
                    }
                }
            }
        };
        let runs = windows
            .iter()
            .map(|(points, _)| {
                let &(k, t_k) = points.last().expect("a run of two points");
                let from = (k / 2 + 1).max(2);
                // The recorded point just before the window.
                let &(u0, t0) = points
                    .iter()
                    .rev()
                    .find(|(u, _)| *u < from)
                    .unwrap_or(&points[0]);
                let time = (t_k - t0).max(RESOLUTION_S * (k - u0) as f64);
                RunFit {
                    units: k,
                    elapsed_s: t_k,
                    scale: time / shape.sum(u0, k),
                }
            })
            .collect();
        Ok(Centre { shape, runs })
    }

    /// Each run projected to `n` units, in the order of the runs.
    pub fn projections(&self, n: u64) -> Vec<f64> {
        self.runs
            .iter()
            .map(|r| r.elapsed_s + r.scale * self.shape.sum(r.units, n))
            .collect()
    }

    /// The centre (median over runs) and the slowest seed's projection.
    pub fn project(&self, n: u64) -> (f64, f64) {
        let all = self.projections(n);
        let slowest = all.iter().copied().fold(f64::MIN, f64::max);
        (crate::stats::median(&all).unwrap_or(slowest), slowest)
    }

    /// The probe's length: its longest run.
    pub fn probe_units(&self) -> u64 {
        self.runs.iter().map(|r| r.units).max().unwrap_or(0)
    }

    /// The group of a probe with this centre.
    pub fn group(&self) -> Group {
        Group {
            growth: self.shape.rise(self.probe_units()) >= GROWTH_RISE,
            long: self.probe_units() >= LONG_PROBE_UNITS,
        }
    }
}

/// The points of a run's first `k` units.
pub fn cut(run: &RunTimings, k: u64) -> Vec<(u64, f64)> {
    run.points
        .iter()
        .copied()
        .filter(|(u, _)| *u <= k)
        .collect()
}

/// One calibration case: a probe and a run it did not see.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub program: String,
    pub stratum: String,
    pub group: Group,
    pub probe_units: u64,
    pub units: u64,
    /// ln(actual total / centre).
    pub e_centre: f64,
    /// ln(actual total / slowest seed's projection).
    pub e_slowest: f64,
    /// The probe as recorded (not cut from full runs).
    pub recorded: bool,
}

impl Case {
    pub fn log_nk(&self) -> f64 {
        (self.units as f64 / self.probe_units as f64).ln()
    }
}

/// Which projection the factor multiplies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Centre,
    Slowest,
}

/// A factor and what it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factor {
    pub factor: f64,
    /// Effective number of programs (by weight).
    pub programs: f64,
}

/// How a factor is taken from the cases: the projection it multiplies and
/// the kernel's width in ln(N/K).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub anchor: Anchor,
    pub bandwidth: f64,
    /// Only the cases of probes as recorded (not cut from full runs): they
    /// alone carry the drift between a probe and the runs that follow it.
    pub recorded_only: bool,
}

/// The calibrated factor for a probe of `group` and length `probe_units`
/// budgeting `units`, at `confidence`, from `cases` (leaving out those of
/// `exclude`, a program held out). `None`: too few programs like it.
pub fn factor(
    cases: &[Case],
    group: Group,
    (probe_units, units): (u64, u64),
    confidence: f64,
    how: Calibration,
    exclude: Option<&str>,
) -> Option<Factor> {
    let target = (units as f64 / probe_units.max(1) as f64).ln();
    let chosen: Vec<&Case> = cases
        .iter()
        .filter(|c| c.group == group && Some(c.program.as_str()) != exclude)
        .filter(|c| c.recorded || !how.recorded_only)
        .collect();
    let mut per_program: std::collections::HashMap<&str, usize> = Default::default();
    for c in &chosen {
        *per_program.entry(c.program.as_str()).or_default() += 1;
    }
    let mut weighted: Vec<(f64, f64)> = Vec::with_capacity(chosen.len());
    let mut program_weight: std::collections::HashMap<&str, f64> = Default::default();
    for c in &chosen {
        let d = (c.log_nk() - target) / how.bandwidth;
        let w = (-0.5 * d * d).exp() / per_program[c.program.as_str()] as f64;
        *program_weight.entry(c.program.as_str()).or_default() += w;
        let e = match how.anchor {
            Anchor::Centre => c.e_centre,
            Anchor::Slowest => c.e_slowest,
        };
        weighted.push((e, w));
    }
    let total: f64 = program_weight.values().sum();
    let squares: f64 = program_weight.values().map(|w| w * w).sum();
    if total <= 0.0 {
        return None;
    }
    let programs = total * total / squares;
    if programs < MIN_PROGRAMS {
        return None;
    }
    weighted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut cumulative = 0.0;
    let mut e = weighted.last().map_or(0.0, |x| x.0);
    for (value, w) in &weighted {
        cumulative += w;
        if cumulative >= confidence * total {
            e = *value;
            break;
        }
    }
    Some(Factor {
        factor: e.exp(),
        programs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(costs: impl Fn(u64) -> f64, startup: f64, k: u64) -> Vec<(u64, f64)> {
        let mut t = startup;
        (1..=k)
            .map(|i| {
                t += costs(i);
                (i, t)
            })
            .collect()
    }

    #[test]
    fn a_constant_cost_projects_its_rate_times_the_units() {
        let probe = run(|_| 2.0, 5.0, 10);
        for form in [Form::Power, Form::Linear] {
            let centre = Centre::fit(&[&probe], form).unwrap();
            let (c, s) = centre.project(100);
            assert!((c - 205.0).abs() < 1e-6, "{form:?}: {c}");
            assert_eq!(c, s);
            assert!(!centre.group().growth);
        }
    }

    #[test]
    fn the_seeds_trend_case_projects_the_rise_from_seven_generations() {
        // Per-generation cost rising linearly 140 -> 204 s over 100
        // generations: 4.8 h, where the mean rate of 7 says 3.9 h.
        let cost = |i: u64| 140.0 + 64.0 * (i as f64 - 1.0) / 99.0;
        let probe = run(cost, 30.0, 7);
        let truth = 30.0 + (1..=100).map(cost).sum::<f64>();
        let flat = 30.0 + 100.0 * (probe[6].1 - 30.0) / 7.0;
        assert!(flat / truth < 0.85, "{flat} vs {truth}");
        let linear = Centre::fit(&[&probe], Form::Linear).unwrap();
        let (c, _) = linear.project(100);
        assert!((c / truth - 1.0).abs() < 0.01, "{c} vs {truth}");
        // A power law through units 4-7 sees a small exponent and projects
        // short of the rise, though not as short as the mean rate.
        let power = Centre::fit(&[&probe], Form::Power).unwrap();
        let (p, _) = power.project(100);
        assert!(p > flat && p < truth, "{p}");
        // 2% of rise within the probe: calibrated with the flat cases.
        assert!(!linear.group().growth && !linear.group().long);
    }

    #[test]
    fn a_visible_rise_puts_the_probe_with_the_growing_cases() {
        let probe = run(|i| i as f64, 1.0, 20);
        for form in [Form::Power, Form::Linear] {
            let centre = Centre::fit(&[&probe], form).unwrap();
            assert!(centre.group().growth && centre.group().long, "{form:?}");
        }
        let (c, _) = Centre::fit(&[&probe], Form::Linear).unwrap().project(100);
        assert!((c - (1.0 + 5050.0)).abs() < 1.0, "{c}");
    }

    #[test]
    fn a_probe_without_per_unit_signal_is_refused() {
        assert_eq!(
            Centre::fit(&[&[(1, 3.0)]], Form::Power),
            Err(NoSignal::OneUnit)
        );
        let tiny = run(|_| 0.001, 1.0, 5);
        assert_eq!(
            Centre::fit(&[&tiny], Form::Power),
            Err(NoSignal::Resolution)
        );
    }

    #[test]
    fn the_slowest_seed_is_the_largest_projection() {
        let a = run(|_| 1.0, 1.0, 10);
        let b = run(|_| 1.5, 1.0, 10);
        let c = run(|_| 1.2, 1.0, 10);
        let centre = Centre::fit(&[&a, &b, &c], Form::Linear).unwrap();
        let (mid, slow) = centre.project(50);
        assert!((mid - (1.0 + 60.0)).abs() < 1e-6, "{mid}");
        assert!((slow - (1.0 + 75.0)).abs() < 1e-6, "{slow}");
    }

    const CENTRE: Calibration = Calibration {
        anchor: Anchor::Centre,
        bandwidth: BANDWIDTH,
        recorded_only: false,
    };

    fn case(program: &str, e: f64, nk: u64) -> Case {
        Case {
            program: program.into(),
            stratum: "s=1".into(),
            group: Group {
                growth: false,
                long: true,
            },
            probe_units: 10,
            units: 10 * nk,
            e_centre: e,
            e_slowest: e - 0.1,
            recorded: true,
        }
    }

    #[test]
    fn the_factor_is_a_quantile_over_programs_weighted_alike() {
        // Ten programs with e = 0.0 .. 0.9, and one program with many cases:
        // its cases together weigh as one program.
        let mut cases: Vec<Case> = (0..10)
            .map(|p| case(&format!("p{p}"), p as f64 / 10.0, 4))
            .collect();
        cases.extend((0..50).map(|_| case("heavy", 5.0, 4)));
        let group = cases[0].group;
        let f = factor(&cases, group, (10, 40), 0.5, CENTRE, None).unwrap();
        assert!((f.programs - 11.0).abs() < 1e-9);
        assert!((f.factor.ln() - 0.5).abs() < 1e-9, "{}", f.factor.ln());
        let top = factor(&cases, group, (10, 40), 0.99, CENTRE, None).unwrap();
        assert!((top.factor.ln() - 5.0).abs() < 1e-9);
        // Held out, the heavy program no longer sets the top.
        let held = factor(&cases, group, (10, 40), 0.99, CENTRE, Some("heavy")).unwrap();
        assert!((held.factor.ln() - 0.9).abs() < 1e-9);
        // Too few programs like it: refused.
        let few: Vec<Case> = cases[..5].to_vec();
        assert!(factor(&few, group, (10, 40), 0.9, CENTRE, None).is_none());
    }

    #[test]
    fn cases_near_the_distance_weigh_more() {
        let mut cases: Vec<Case> = (0..10).map(|p| case(&format!("n{p}"), 0.1, 2)).collect();
        cases.extend((0..10).map(|p| case(&format!("f{p}"), 1.0, 64)));
        let group = cases[0].group;
        let near = factor(&cases, group, (10, 20), 0.5, CENTRE, None).unwrap();
        let far = factor(&cases, group, (10, 640), 0.5, CENTRE, None).unwrap();
        assert!((near.factor.ln() - 0.1).abs() < 1e-9);
        assert!((far.factor.ln() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn power_sums_match_the_sums() {
        for b in [0.0, 0.5, 1.0, 2.0, 3.0] {
            let exact: f64 = (11..=1000).map(|i| (i as f64).powf(b)).sum();
            let approx = power_sum(10, 1000, b);
            assert!(
                (approx / exact - 1.0).abs() < 1e-3,
                "b={b}: {approx} vs {exact}"
            );
        }
    }
}
