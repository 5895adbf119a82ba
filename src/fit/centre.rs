//! The centre of a stratum's probe: a shape of per-unit cost shared by the
//! runs, each run's own scale, and the projection of a run of N units (the
//! method and its assumptions: [`crate::fit`]).

/// The rise from which growth counts as visible in the probe: the fitted
/// per-unit cost at unit K at least 10% above that at K/2.
pub const GROWTH_RISE: f64 = 1.1;
/// The probe length (units) from which a probe counts as long.
pub const LONG_PROBE_UNITS: u64 = 8;
/// Least measured time past unit 1, summed over the probe's runs, for a
/// per-unit signal (calib's timings have millisecond resolution).
pub const MIN_SIGNAL_S: f64 = 0.02;
/// The largest exponent of the centre's power law (cubic growth).
pub const MAX_EXPONENT: f64 = 3.0;
/// Per-unit costs below this are read as this (the timer's resolution).
const RESOLUTION_S: f64 = 1e-3;

/// One probe run's fit: its length, its time at its last unit, its scale
/// (the shape's multiplier that reproduces the run's time over the window),
/// and its startup (the time of its first recorded units beyond what the
/// shape gives them, at least 0).
#[derive(Debug, Clone, PartialEq)]
pub struct RunFit {
    pub units: u64,
    pub elapsed_s: f64,
    pub scale: f64,
    pub startup_s: f64,
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
    /// The shape's name in the model file.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Power { .. } => "power",
            Shape::Linear { .. } => "linear",
        }
    }

    /// Σ_{i=a+1..n} of the shape.
    pub fn sum(self, a: u64, n: u64) -> f64 {
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
    pub fn rise(self, k: u64) -> f64 {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
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

/// A run's fit against `shape` (at least two points): its scale reproduces
/// the run's measured time over its window.
fn run_fit(shape: Shape, points: &[(u64, f64)]) -> RunFit {
    let (k, t_k) = points[points.len() - 1];
    let from = (k / 2 + 1).max(2);
    // The recorded point just before the window.
    let &(u0, t0) = points
        .iter()
        .rev()
        .find(|(u, _)| *u < from)
        .unwrap_or(&points[0]);
    let time = (t_k - t0).max(RESOLUTION_S * (k - u0) as f64);
    let scale = time / shape.sum(u0, k);
    let (u1, t1) = points[0];
    RunFit {
        units: k,
        elapsed_s: t_k,
        scale,
        startup_s: (t1 - scale * shape.sum(0, u1)).max(0.0),
    }
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
            return Centre::fit_lengths(runs, form);
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
            .map(|(points, _)| run_fit(shape, points))
            .collect();
        Ok(Centre { shape, runs })
    }

    /// The centre of runs measured at their end alone (one row per run, at
    /// several lengths: `calib probe --lengths`): the shape from each run's
    /// mean cost per unit against its length (the mean of i^b over 1..n
    /// grows as n^b), each run's scale from its own time.
    fn fit_lengths(runs: &[&[(u64, f64)]], form: Form) -> Result<Centre, NoSignal> {
        let ends: Vec<(u64, f64)> = runs
            .iter()
            .filter_map(|p| p.last().copied())
            .filter(|(n, t)| *n >= 1 && *t > 0.0)
            .collect();
        let lengths = ends
            .iter()
            .map(|e| e.0)
            .collect::<std::collections::BTreeSet<_>>();
        if lengths.len() < 2 {
            return Err(NoSignal::OneUnit);
        }
        if ends.iter().map(|e| e.1).sum::<f64>() < MIN_SIGNAL_S {
            return Err(NoSignal::Resolution);
        }
        let means: Vec<(f64, f64)> = ends
            .iter()
            .map(|&(n, t)| (n as f64, t / n as f64))
            .collect();
        let slope = |x: &dyn Fn(f64) -> f64, y: &dyn Fn(f64) -> f64| {
            let m = means.len() as f64;
            let mx = means.iter().map(|p| x(p.0)).sum::<f64>() / m;
            let my = means.iter().map(|p| y(p.1)).sum::<f64>() / m;
            let sxy: f64 = means.iter().map(|p| (x(p.0) - mx) * (y(p.1) - my)).sum();
            let sxx: f64 = means.iter().map(|p| (x(p.0) - mx).powi(2)).sum();
            (sxy / sxx, mx, my)
        };
        let shape = match form {
            Form::Power => Shape::Power {
                exponent: slope(&|n| n.ln(), &|c| c.ln()).0.clamp(0.0, MAX_EXPONENT),
            },
            Form::Linear => {
                // The mean of a + g i over 1..n is a + g (n + 1) / 2.
                let (beta, mx, my) = slope(&|n| (n + 1.0) / 2.0, &|c| c);
                if beta > 0.0 {
                    Shape::Linear {
                        intercept: ((my - beta * mx) / my).max(0.0),
                        slope: beta / my,
                    }
                } else {
                    Shape::Linear {
                        intercept: 1.0,
                        slope: 0.0,
                    }
                }
            }
        };
        let runs = ends
            .iter()
            .map(|&(n, t)| RunFit {
                units: n,
                elapsed_s: t,
                scale: t / shape.sum(0, n),
                startup_s: 0.0,
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

    /// The median run's scale: what a unit costs is this times the shape.
    pub fn scale(&self) -> f64 {
        let scales: Vec<f64> = self.runs.iter().map(|r| r.scale).collect();
        crate::stats::median(&scales).unwrap_or(0.0)
    }

    /// The per-unit cost at `unit` at the median run's scale, seconds.
    pub fn unit_cost_s(&self, unit: u64) -> f64 {
        self.scale() * self.shape.sum(unit.saturating_sub(1), unit)
    }

    /// The median run's startup, seconds.
    pub fn startup_s(&self) -> f64 {
        let startups: Vec<f64> = self.runs.iter().map(|r| r.startup_s).collect();
        crate::stats::median(&startups).unwrap_or(0.0)
    }

    /// A run of this stratum measured to `points` (at least two), fitted
    /// against this centre's shape: its own pace.
    pub fn fit_run(&self, points: &[(u64, f64)]) -> Option<RunFit> {
        (points.len() >= 2).then(|| run_fit(self.shape, points))
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

    #[test]
    fn run_lengths_fit_the_shape_of_the_mean_cost() {
        // The seed's case 4: 459 ms/unit over 100 units, 564 over 1,000,
        // 678 over 10,000. From the two shorter lengths, 10,000 units
        // project within 3% of 6,780 s (the 1,000-unit rate says 5,640).
        let (a, b) = ([(100, 45.9)], [(1000, 564.0)]);
        let centre = Centre::fit(&[&a, &b], Form::Power).unwrap();
        let (c, s) = centre.project(10_000);
        assert!((c / 6780.0 - 1.0).abs() < 0.03, "{c}");
        assert!(s >= c);
        assert_eq!(centre.probe_units(), 1000);
        // One length shows no trend: no per-unit signal.
        assert_eq!(Centre::fit(&[&a, &a], Form::Power), Err(NoSignal::OneUnit));
    }

    #[test]
    fn a_run_is_fitted_at_its_own_pace() {
        let probe = run(|_| 2.0, 5.0, 10);
        let centre = Centre::fit(&[&probe], Form::Power).unwrap();
        assert!((centre.startup_s() - 5.0).abs() < 1e-9);
        let slow = run(|_| 3.0, 5.0, 6);
        let own = centre.fit_run(&slow).unwrap();
        assert!((own.scale / centre.scale() - 1.5).abs() < 1e-9);
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
