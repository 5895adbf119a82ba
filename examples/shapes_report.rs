//! The generated-shapes report: how calib's calibrated bound covers campaigns
//! whose per-unit cost follows shapes its centre does not contain.
//!
//! ```text
//! cargo run --release --example shapes_report -- [trials]
//! ```
//!
//! `trials` (default 1200) is the number of campaigns per shape and N/K: at
//! 1200 a cell's coverage has a standard error under 0.015 even near 0.5,
//! where the 4 new runs of a campaign, which share its process, count nearly
//! as one (at 400 it is 0.024 there, 0.015 at 0.9). The
//! report, Markdown on stdout, is deterministic: every cell has its own seeded
//! [`Rng`], so a cell's campaigns do not depend on the other cells, and more
//! trials extend a cell's campaigns without changing the first ones.
//!
//! **A campaign** is one stratum: 3 probe seeds of K units and 4 new runs of
//! N = K x N/K units, all drawn from one process. K cycles over 5, 10 and 20
//! (a short probe, then two long ones: calib's groups split at 8 units), N/K
//! is 2, 4, 10 or 20. The process, drawn per campaign: a cost per unit of
//! `base` seconds (log-uniform in 0.5-50 s) times the shape's c(i); a startup
//! of 0.5-3 `base` (each run's within 5%, log-normal); each run's level
//! log-normal with sd drawn in 5-10%; each unit's noise log-normal with sd
//! drawn in 3-5%. Elapsed times are recorded to the millisecond, as calib's
//! timings are. The shapes' parameters are drawn per campaign (the seeds of
//! one configuration share them), from the ranges below, fixed before the
//! first run of this report.
//!
//! **The bound** is calib's: `Centre::fit` of the three probe seeds with
//! [`calibrate::FORM`], its slowest seed's projection to N, times the factor of
//! [`calibrate::factor`] over the shipped table (`assets/calibration.csv`,
//! cases from real programs) for the centre's group with [`calibrate::CHOSEN`]:
//! `upper = max(slowest, slowest x factor)`. A probe without signal or a
//! factor of `None` is a refusal, counted apart and never as covered. A new
//! run is covered when its total is at most `upper`; headroom is `upper` over
//! the new run's total. Beside them, per cell, the median factor given and the
//! factor that would have covered the stated share of the cell's new runs (the
//! stated quantile of total over the slowest seed's projection): what the
//! shape asked for, against what the table gave.
//!
//! **Change inside the probe** (what the probe can see; coverage near the
//! stated level is the test):
//!
//! - `constant`: c(i) = 1. Tests the seeds' spread and the flat groups' factor.
//! - `linear`: c(i) = 1 + r (i - 1) / (N - 1), r in 0.2-1.0 (the seed's
//!   140 -> 204 s over 100 units is r = 0.46): a trend from unit 1 that a
//!   power law fitted on the probe's second half under-projects, the more so
//!   the longer the run is against the probe.
//! - `power_0.5`, `power_1`, `power_2`: c(i) = i^b. The centre's own form:
//!   what the factor adds where the extrapolation is right.
//! - `logarithmic`: c(i) = 1 + g ln i, g in 0.2-1.0: a rise that slows,
//!   which a power law over-projects.
//! - `saturating_inside`: c(i) = 1 + a (1 - exp(-i / tau)), a in 0.5-3, tau in
//!   0.05-0.25 K: a rise that is over by the probe's second half.
//! - `heavy_tailed_noise`: c(i) = 1 times exp(s t), t Student's t with 2
//!   degrees of freedom, s in 0.02-0.1, capped at 50: rare, very slow units.
//! - `transient_slow_units`: c(i) = 1, or 5-20 (drawn per campaign) with
//!   probability 1-5% per unit: pauses, a noisy neighbour.
//!
//! **Change after the probe** (what it cannot see; reported apart, never a
//! target). Each changes at unit u, drawn in K + (0-0.5) (N - K), so that the
//! probe's K units are untouched:
//!
//! - `onset_after`: c(i) = 1 through u, then a linear rise reaching 1 + r at
//!   unit N, r in 0.5-3.
//! - `kink_after`: the `linear` trend (r in 0.2-1.0), its slope times m, m in
//!   3-10, from u on.
//! - `step_after`: c(i) = 1 through u, then f, f in 1.2-3.
//! - `plateau_after`: a linear rise the probe sees (a rise of p over its K
//!   units, p in 0.2-1.0), flat from u on: deceleration after the probe,
//!   where over-coverage is the expected outcome.

use std::fmt::Write as _;

use calib::calibrate::{self, table, Centre, Table};
use calib::error::Origin;
use calib::synth::Rng;

/// The shipped calibration table, from real programs.
const TABLE: &str = include_str!("../assets/calibration.csv");
/// The stated confidences reported.
const LEVELS: [f64; 2] = [0.9, 0.99];
/// N/K of the new runs.
const RATIOS: [u64; 4] = [2, 4, 10, 20];
/// Probe lengths K, cycled over a cell's campaigns.
const PROBE_UNITS: [u64; 3] = [5, 10, 20];
/// Probe seeds per campaign.
const SEEDS: usize = 3;
/// New runs per campaign.
const NEW_RUNS: usize = 4;
/// Campaigns per shape and N/K unless given.
const DEFAULT_TRIALS: usize = 1200;
/// Coverage within this of the stated level counts as meeting it.
const TOLERANCE: f64 = 0.03;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    /// The change lies inside the probe: the probe can see it.
    Inside,
    /// The change comes after the probe: it cannot.
    After,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Inside => "inside the probe",
            Family::After => "after the probe",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Constant,
    Linear,
    PowerHalf,
    PowerOne,
    PowerTwo,
    Logarithmic,
    SaturatingInside,
    HeavyTailedNoise,
    TransientSlowUnits,
    OnsetAfter,
    KinkAfter,
    StepAfter,
    PlateauAfter,
}

const SHAPES: [Shape; 13] = [
    Shape::Constant,
    Shape::Linear,
    Shape::PowerHalf,
    Shape::PowerOne,
    Shape::PowerTwo,
    Shape::Logarithmic,
    Shape::SaturatingInside,
    Shape::HeavyTailedNoise,
    Shape::TransientSlowUnits,
    Shape::OnsetAfter,
    Shape::KinkAfter,
    Shape::StepAfter,
    Shape::PlateauAfter,
];

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Constant => "constant",
            Shape::Linear => "linear",
            Shape::PowerHalf => "power_0.5",
            Shape::PowerOne => "power_1",
            Shape::PowerTwo => "power_2",
            Shape::Logarithmic => "logarithmic",
            Shape::SaturatingInside => "saturating_inside",
            Shape::HeavyTailedNoise => "heavy_tailed_noise",
            Shape::TransientSlowUnits => "transient_slow_units",
            Shape::OnsetAfter => "onset_after",
            Shape::KinkAfter => "kink_after",
            Shape::StepAfter => "step_after",
            Shape::PlateauAfter => "plateau_after",
        }
    }

    fn family(self) -> Family {
        match self {
            Shape::OnsetAfter | Shape::KinkAfter | Shape::StepAfter | Shape::PlateauAfter => {
                Family::After
            }
            _ => Family::Inside,
        }
    }

    /// A campaign's cost shape for a probe of `k` units and new runs of `n`,
    /// its parameters drawn from the ranges of the module docs.
    fn draw(self, k: u64, n: u64, rng: &mut Rng) -> Cost {
        let (k, n) = (k as f64, n as f64);
        // The unit after which a change past the probe begins.
        let after = |rng: &mut Rng| k + uniform(rng, 0.0, 0.5) * (n - k);
        match self {
            Shape::Constant => Cost::Constant,
            Shape::Linear => Cost::Linear {
                slope: uniform(rng, 0.2, 1.0) / (n - 1.0),
            },
            Shape::PowerHalf => Cost::Power { exponent: 0.5 },
            Shape::PowerOne => Cost::Power { exponent: 1.0 },
            Shape::PowerTwo => Cost::Power { exponent: 2.0 },
            Shape::Logarithmic => Cost::Logarithmic {
                gain: uniform(rng, 0.2, 1.0),
            },
            Shape::SaturatingInside => Cost::Saturating {
                amplitude: uniform(rng, 0.5, 3.0),
                tau: uniform(rng, 0.05, 0.25) * k,
            },
            Shape::HeavyTailedNoise => Cost::HeavyTailed {
                scale: uniform(rng, 0.02, 0.1),
            },
            Shape::TransientSlowUnits => Cost::Transient {
                chance: uniform(rng, 0.01, 0.05),
                slow: uniform(rng, 5.0, 20.0),
            },
            Shape::OnsetAfter => {
                let at = after(rng);
                Cost::Onset {
                    at,
                    slope: uniform(rng, 0.5, 3.0) / (n - at),
                }
            }
            Shape::KinkAfter => Cost::Kink {
                slope: uniform(rng, 0.2, 1.0) / (n - 1.0),
                at: after(rng),
                steepening: uniform(rng, 3.0, 10.0),
            },
            Shape::StepAfter => Cost::Step {
                at: after(rng),
                factor: uniform(rng, 1.2, 3.0),
            },
            Shape::PlateauAfter => Cost::Plateau {
                slope: uniform(rng, 0.2, 1.0) / (k - 1.0),
                at: after(rng),
            },
        }
    }
}

/// One campaign's cost per unit, relative to its base (see the module docs).
#[derive(Debug, Clone, Copy)]
enum Cost {
    Constant,
    Linear {
        slope: f64,
    },
    Power {
        exponent: f64,
    },
    Logarithmic {
        gain: f64,
    },
    Saturating {
        amplitude: f64,
        tau: f64,
    },
    HeavyTailed {
        scale: f64,
    },
    Transient {
        chance: f64,
        slow: f64,
    },
    Onset {
        at: f64,
        slope: f64,
    },
    Kink {
        slope: f64,
        at: f64,
        steepening: f64,
    },
    Step {
        at: f64,
        factor: f64,
    },
    Plateau {
        slope: f64,
        at: f64,
    },
}

impl Cost {
    /// c(i), with the shape's own random part drawn from `rng`.
    fn unit(self, i: u64, rng: &mut Rng) -> f64 {
        let x = i as f64;
        match self {
            Cost::Constant => 1.0,
            Cost::Linear { slope } => 1.0 + slope * (x - 1.0),
            Cost::Power { exponent } => x.powf(exponent),
            Cost::Logarithmic { gain } => 1.0 + gain * x.ln(),
            Cost::Saturating { amplitude, tau } => 1.0 + amplitude * (1.0 - (-x / tau).exp()),
            Cost::HeavyTailed { scale } => (scale * student_t2(rng)).exp().min(50.0),
            Cost::Transient { chance, slow } => {
                if rng.uniform() < chance {
                    slow
                } else {
                    1.0
                }
            }
            Cost::Onset { at, slope } => 1.0 + slope * (x - at).max(0.0),
            Cost::Kink {
                slope,
                at,
                steepening,
            } => 1.0 + slope * (x - 1.0) + (steepening - 1.0) * slope * (x - at).max(0.0),
            Cost::Step { at, factor } => {
                if x <= at {
                    1.0
                } else {
                    factor
                }
            }
            Cost::Plateau { slope, at } => 1.0 + slope * (x.min(at) - 1.0),
        }
    }
}

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.uniform()
}

/// Student's t with 2 degrees of freedom: a heavy tail with a finite mean.
fn student_t2(rng: &mut Rng) -> f64 {
    let z = rng.normal();
    let chi2 = rng.normal().powi(2) + rng.normal().powi(2);
    z / (chi2 / 2.0).sqrt()
}

/// The process a campaign's runs are drawn from.
struct Process {
    base: f64,
    startup: f64,
    level_sd: f64,
    noise_sd: f64,
    cost: Cost,
}

impl Process {
    fn draw(shape: Shape, k: u64, n: u64, rng: &mut Rng) -> Process {
        let base = uniform(rng, 0.5f64.ln(), 50f64.ln()).exp();
        Process {
            base,
            startup: base * uniform(rng, 0.5, 3.0),
            level_sd: uniform(rng, 0.05, 0.10),
            noise_sd: uniform(rng, 0.03, 0.05),
            cost: shape.draw(k, n, rng),
        }
    }

    /// One run's points (unit, cumulative elapsed seconds to the millisecond).
    fn run(&self, units: u64, rng: &mut Rng) -> Vec<(u64, f64)> {
        let level = (self.level_sd * rng.normal()).exp();
        let mut t = self.startup * (0.05 * rng.normal()).exp();
        (1..=units)
            .map(|i| {
                let cost = self.cost.unit(i, rng);
                t += self.base * level * cost * (self.noise_sd * rng.normal()).exp();
                (i, (t * 1000.0).round() / 1000.0)
            })
            .collect()
    }
}

/// A campaign's outcome at one stated level.
enum Outcome {
    Refused,
    Budgeted {
        /// The probe's group shows growth.
        growth: bool,
        /// The calibrated factor.
        factor: f64,
        /// Per new run: (covered, headroom, total over the slowest seed's
        /// projection).
        runs: Vec<(bool, f64, f64)>,
    },
}

/// One campaign: its probe, its new runs, and the bound at each stated level.
fn campaign(shape: Shape, k: u64, n: u64, table: &Table, rng: &mut Rng) -> [Outcome; 2] {
    let process = Process::draw(shape, k, n, rng);
    let probes: Vec<Vec<(u64, f64)>> = (0..SEEDS).map(|_| process.run(k, rng)).collect();
    let totals: Vec<f64> = (0..NEW_RUNS)
        .map(|_| process.run(n, rng).last().map_or(0.0, |p| p.1))
        .collect();
    let probes: Vec<&[(u64, f64)]> = probes.iter().map(Vec::as_slice).collect();
    let Ok(centre) = Centre::fit(&probes, calibrate::FORM) else {
        return [Outcome::Refused, Outcome::Refused];
    };
    let group = centre.group();
    LEVELS.map(|q| {
        let Ok(bound) = table.bound(&centre, n, q) else {
            return Outcome::Refused;
        };
        let (f, slowest) = (bound.factor, bound.floor_s);
        let upper = bound.upper_s;
        Outcome::Budgeted {
            growth: group.growth,
            factor: f.factor,
            runs: totals
                .iter()
                .map(|&t| (t <= upper, upper / t, t / slowest))
                .collect(),
        }
    })
}

/// Outcomes summed over campaigns, at one stated level.
#[derive(Debug, Clone, Default)]
struct Tally {
    campaigns: usize,
    refused: usize,
    growth: usize,
    /// Per budgeted campaign, its share of new runs covered.
    shares: Vec<f64>,
    headrooms: Vec<f64>,
    /// Per budgeted campaign, its factor.
    factors: Vec<f64>,
    /// Per budgeted new run, its total over the slowest seed's projection.
    excess: Vec<f64>,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome) {
        self.campaigns += 1;
        match outcome {
            Outcome::Refused => self.refused += 1,
            Outcome::Budgeted {
                growth,
                factor,
                runs,
            } => {
                self.growth += usize::from(*growth);
                let covered = runs.iter().filter(|r| r.0).count();
                self.shares.push(covered as f64 / runs.len() as f64);
                self.headrooms.extend(runs.iter().map(|r| r.1));
                self.factors.push(*factor);
                self.excess.extend(runs.iter().map(|r| r.2));
            }
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.campaigns += other.campaigns;
        self.refused += other.refused;
        self.growth += other.growth;
        self.shares.extend_from_slice(&other.shares);
        self.headrooms.extend_from_slice(&other.headrooms);
        self.factors.extend_from_slice(&other.factors);
        self.excess.extend_from_slice(&other.excess);
    }

    /// Share of budgeted new runs covered (each campaign has as many).
    fn coverage(&self) -> Option<f64> {
        (!self.shares.is_empty()).then(|| mean(&self.shares))
    }

    /// Standard error of [`Tally::coverage`], campaigns as the sample (the
    /// new runs of one campaign share its process).
    fn standard_error(&self) -> f64 {
        let n = self.shares.len() as f64;
        if n < 2.0 {
            return f64::NAN;
        }
        let m = mean(&self.shares);
        let var = self.shares.iter().map(|s| (s - m).powi(2)).sum::<f64>() / (n - 1.0);
        (var / n).sqrt()
    }

    fn median_headroom(&self) -> Option<f64> {
        median(&self.headrooms)
    }

    /// The factor that would have covered a share `stated` of these new
    /// runs: the quantile of their totals over the slowest seed's projection.
    fn needed_factor(&self, stated: f64) -> Option<f64> {
        if self.excess.is_empty() {
            return None;
        }
        let mut sorted = self.excess.clone();
        sorted.sort_by(f64::total_cmp);
        let at = ((stated * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        Some(sorted[at - 1].max(1.0))
    }

    fn refused_share(&self) -> f64 {
        self.refused as f64 / self.campaigns.max(1) as f64
    }

    fn growth_share(&self) -> f64 {
        self.growth as f64 / (self.campaigns - self.refused).max(1) as f64
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[m - 1] + sorted[m]) / 2.0
    } else {
        sorted[m]
    })
}

/// Every cell's tallies: `[shape][ratio][probe length][level]`.
type Results = Vec<Vec<Vec<[Tally; 2]>>>;

fn simulate(trials: usize, table: &Table) -> Results {
    SHAPES
        .iter()
        .enumerate()
        .map(|(s, &shape)| {
            RATIOS
                .iter()
                .enumerate()
                .map(|(r, &ratio)| {
                    let mut rng = Rng::new(0x5eed_0000 + 100 * s as u64 + r as u64);
                    let mut cells: Vec<[Tally; 2]> = vec![Default::default(); PROBE_UNITS.len()];
                    for trial in 0..trials {
                        let p = trial % PROBE_UNITS.len();
                        let k = PROBE_UNITS[p];
                        let outcomes = campaign(shape, k, k * ratio, table, &mut rng);
                        for (tally, outcome) in cells[p].iter_mut().zip(&outcomes) {
                            tally.add(outcome);
                        }
                    }
                    cells
                })
                .collect()
        })
        .collect()
}

/// The tally at `level` over the cells that `keep(shape, ratio, probe length)`
/// selects.
fn pooled(results: &Results, level: usize, keep: impl Fn(usize, usize, usize) -> bool) -> Tally {
    let mut total = Tally::default();
    for (s, per_ratio) in results.iter().enumerate() {
        for (r, per_length) in per_ratio.iter().enumerate() {
            for (p, cell) in per_length.iter().enumerate() {
                if keep(s, r, p) {
                    total.merge(&cell[level]);
                }
            }
        }
    }
    total
}

fn coverage_cell(t: &Tally, stated: f64) -> String {
    match t.coverage() {
        Some(c) => {
            let mark = if (c - stated).abs() <= TOLERANCE {
                " ✓"
            } else {
                ""
            };
            format!("{c:.3} ± {:.3}{mark}", t.standard_error())
        }
        None => "-".into(),
    }
}

fn headroom_cell(t: &Tally) -> String {
    t.median_headroom()
        .map_or_else(|| "-".into(), |h| format!("{h:.2}x"))
}

/// The median factor given, and the factor the runs needed at `stated`.
fn factor_cell(t: &Tally, stated: f64) -> String {
    match (median(&t.factors), t.needed_factor(stated)) {
        (Some(given), Some(needed)) => format!("{given:.2}x / {needed:.2}x"),
        _ => "-".into(),
    }
}

fn percent(share: f64) -> String {
    format!("{:.1}%", 100.0 * share)
}

/// A table's row: its label and its tallies, one per column.
type Row = (String, Vec<Tally>);

/// A row over N/K of the cells (shape, probe length) that `keep` selects:
/// one tally per ratio, then all ratios pooled.
fn over_ratios(results: &Results, level: usize, keep: impl Fn(usize, usize) -> bool) -> Vec<Tally> {
    let mut row: Vec<Tally> = (0..RATIOS.len())
        .map(|r| pooled(results, level, |s, r2, p| r2 == r && keep(s, p)))
        .collect();
    row.push(pooled(results, level, |s, _, p| keep(s, p)));
    row
}

fn ratio_columns() -> Vec<String> {
    let mut columns: Vec<String> = RATIOS.iter().map(|r| format!("N/K = {r}")).collect();
    columns.push("all".into());
    columns
}

fn table(out: &mut String, columns: &[String], rows: &[Row], cell: impl Fn(&Tally) -> String) {
    let _ = writeln!(out, "| | {} |", columns.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(columns.len()));
    for (label, tallies) in rows {
        let cells: Vec<String> = tallies.iter().map(&cell).collect();
        let _ = writeln!(out, "| {label} | {} |", cells.join(" | "));
    }
    let _ = writeln!(out);
}

/// Per shape, over N/K.
fn shape_rows(results: &Results, level: usize) -> Vec<Row> {
    SHAPES
        .iter()
        .enumerate()
        .map(|(s, shape)| {
            let label = format!("{} ({})", shape.name(), shape.family().name());
            (label, over_ratios(results, level, |s2, _| s2 == s))
        })
        .collect()
}

/// Per shape and probe length, over N/K.
fn shape_probe_rows(results: &Results, level: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for (s, shape) in SHAPES.iter().enumerate() {
        for (p, k) in PROBE_UNITS.iter().enumerate() {
            let label = format!("{}, K = {k}", shape.name());
            rows.push((
                label,
                over_ratios(results, level, |s2, p2| s2 == s && p2 == p),
            ));
        }
    }
    rows
}

/// Per family, then per family and probe length, over N/K.
fn family_rows(results: &Results, level: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for family in [Family::Inside, Family::After] {
        let of = |s: usize| SHAPES[s].family() == family;
        rows.push((
            family.name().to_string(),
            over_ratios(results, level, |s, _| of(s)),
        ));
        for (p, k) in PROBE_UNITS.iter().enumerate() {
            rows.push((
                format!("{}, K = {k}", family.name()),
                over_ratios(results, level, |s, p2| of(s) && p2 == p),
            ));
        }
    }
    rows
}

fn report(results: &Results, trials: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{trials} campaigns per shape and N/K ({SEEDS} probe seeds of K = {} units in turn, \
         {NEW_RUNS} new runs of N units each); coverage ± its standard error over campaigns; \
         ✓: within {TOLERANCE} of the stated level.\n",
        PROBE_UNITS.map(|k| k.to_string()).join(", ")
    );
    let columns = ratio_columns();
    for (level, &stated) in LEVELS.iter().enumerate() {
        let shapes = shape_rows(results, level);
        let families = family_rows(results, level);
        let _ = writeln!(out, "## Stated {stated}\n");
        let _ = writeln!(out, "### Coverage per shape\n");
        table(&mut out, &columns, &shapes, |t| coverage_cell(t, stated));
        let _ = writeln!(out, "### Coverage per shape and probe length\n");
        let detail = shape_probe_rows(results, level);
        table(&mut out, &columns, &detail, |t| coverage_cell(t, stated));
        let _ = writeln!(out, "### Median headroom per shape\n");
        table(&mut out, &columns, &shapes, headroom_cell);
        let _ = writeln!(
            out,
            "### Factor given (median) / factor needed for {stated} of these runs \
             (their {stated} quantile of total over the slowest seed's projection)\n"
        );
        table(&mut out, &columns, &shapes, |t| factor_cell(t, stated));
        let _ = writeln!(out, "### Refused per shape\n");
        table(&mut out, &columns, &shapes, |t| percent(t.refused_share()));
        let _ = writeln!(out, "### Per family (and per probe length)\n");
        table(&mut out, &columns, &families, |t| coverage_cell(t, stated));
        let _ = writeln!(out, "Median headroom:\n");
        table(&mut out, &columns, &families, headroom_cell);
        let _ = writeln!(out, "Refused:\n");
        table(&mut out, &columns, &families, |t| {
            percent(t.refused_share())
        });
    }
    let _ = writeln!(
        out,
        "## Probes read as growth (the factor's group), share of budgeted campaigns\n"
    );
    table(&mut out, &columns, &shape_rows(results, 0), |t| {
        percent(t.growth_share())
    });
    summary(&mut out, results);
    out
}

/// Per shape: coverage pooled and per probe length, the N/K cells within
/// [`TOLERANCE`], headroom, at each stated level; refusals.
fn summary(out: &mut String, results: &Results) {
    let _ = writeln!(out, "## Summary per shape\n");
    let _ = write!(out, "| shape | family |");
    for stated in LEVELS {
        let _ = write!(out, " coverage at {stated} |");
        for k in PROBE_UNITS {
            let _ = write!(out, " K = {k} |");
        }
        let _ = write!(
            out,
            " N/K cells within {TOLERANCE} of {stated} | headroom at {stated} |"
        );
    }
    let _ = writeln!(out, " refused |");
    let columns = 2 + LEVELS.len() * (PROBE_UNITS.len() + 3) + 1;
    let _ = writeln!(out, "|{}", "---|".repeat(columns));
    for (s, shape) in SHAPES.iter().enumerate() {
        let _ = write!(out, "| {} | {} |", shape.name(), shape.family().name());
        for (level, &stated) in LEVELS.iter().enumerate() {
            let all = pooled(results, level, |s2, _, _| s2 == s);
            let _ = write!(out, " {} |", coverage_cell(&all, stated));
            for p in 0..PROBE_UNITS.len() {
                let at_k = pooled(results, level, |s2, _, p2| s2 == s && p2 == p);
                let c = at_k.coverage().map_or("-".into(), |c| format!("{c:.3}"));
                let _ = write!(out, " {c} |");
            }
            let within = over_ratios(results, level, |s2, _| s2 == s)[..RATIOS.len()]
                .iter()
                .filter(|t| {
                    t.coverage()
                        .is_some_and(|c| (c - stated).abs() <= TOLERANCE)
                })
                .count();
            let _ = write!(
                out,
                " {within} of {} | {} |",
                RATIOS.len(),
                headroom_cell(&all)
            );
        }
        let all = pooled(results, 0, |s2, _, _| s2 == s);
        let _ = writeln!(out, " {} |", percent(all.refused_share()));
    }
}

fn main() {
    let trials = std::env::args().nth(1).map_or(DEFAULT_TRIALS, |s| {
        s.parse()
            .ok()
            .filter(|&t| t > 0)
            .expect("usage: shapes_report [trials], trials a positive count")
    });
    let cases = table::read(TABLE, &Origin::file("assets/calibration.csv"))
        .expect("the shipped calibration table reads");
    let results = simulate(trials, &Table::new(cases, "calib's own".into()));
    print!("{}", report(&results, trials));
}
