//! `calib backtest`: how well would calib's budget have covered runs it did not see?
//!
//! Input: timings of a stratum that hold **full-length runs** (runs that ended by
//! themselves, `end = exit:0`; stopped by calib, `end = limit`, or without end
//! rows: the runs that reached the stratum's largest unit count; never a run
//! that failed or was killed) and, optionally, short probe runs (stopped by
//! `--units`, `end = limit`).
//!
//! Method (the hold-out discipline of predictive validation; see Lei et al.,
//! "Distribution-Free Predictive Inference for Regression", JASA 2018, for why
//! whole exchangeable cases, here whole runs, must be held out):
//!
//! - Each full run in turn is **held out**. Its length N and its total time (the
//!   end row's time when recorded: what a walltime must cover, teardown included)
//!   are the truth.
//! - A **probe design** says what a user would have measured: the first K units
//!   of each probe run (`--probe-units K`), or a fraction of N
//!   (`--probe-fraction F`), from `--seeds S` runs; optionally one of them run
//!   to a larger fraction of N (`--long-run F`; never shorter than the others,
//!   so at least K units). The probe runs are taken from
//!   the other runs of the stratum (never the held-out one), cut to that length,
//!   in a fixed rotation so that results are reproducible. With
//!   `--probe-units recorded`, the stratum's recorded probe runs are used as they
//!   are and every full run is held out against them.
//! - calib fits the probe runs exactly as `calib fit` would and projects a run of
//!   N units; the held-out run is **covered** when calib gives it a time
//!   (the stratum is not `unsupported` for that probe) and its total time is
//!   at most the upper bound at the stated confidence. An `unsupported` trial
//!   counts as refused, neither covered nor missed: it is left out of the
//!   observed coverage and the headroom figures, and counted on its own. The bound is scored in seconds, before
//!   rounding to Slurm's whole minutes, so short test runs are scored as sharply
//!   as long real ones.
//! - **Headroom** is the bound over the held-out run's time (1.0 = exact; below
//!   1.0 the run would have been killed). Coverage alone rewards absurd budgets;
//!   headroom shows the price.
//! - **Baselines** on the same probe runs: the plain mean rate x N, that x 1.5,
//!   and the rate of the probe's last quarter x N (each with the mean startup).
//!
//! Across strata the report sets the observed coverage beside the stated
//! confidence: a method that holds covers at least that share of held-out runs.

pub mod export;

use std::collections::BTreeMap;

use crate::calibrate::Table;
use crate::error::{Error, Origin, Result};
use crate::fit::{fit_timings, FitOptions};
use crate::output::percent_as_given;
use crate::stats::median;
use crate::timings::{RunEnd, RunTimings, Timings};

/// How long each probe run is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProbeLength {
    /// The first K units of each run.
    Units(u64),
    /// The first ceil(F x N) units, N the held-out run's length.
    Fraction(f64),
    /// The recorded probe runs as they are (every full run held out).
    Recorded,
}

/// What a user would have measured before budgeting.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeDesign {
    pub length: ProbeLength,
    /// How many probe runs (seeds).
    pub seeds: usize,
    /// One of the probe runs taken to this fraction of N instead.
    pub long_run: Option<f64>,
}

#[derive(Debug, Clone)]
pub struct BacktestOptions {
    pub design: ProbeDesign,
    pub confidence: f64,
    pub fit: FitOptions,
    /// The cases the bound is calibrated on, as `calib budget` takes them.
    pub calibration: Table,
}

/// The baselines computed on the same probe runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Baseline {
    /// Plain mean per-unit cost of the probe x N.
    MeanRate,
    /// The same x 1.5: a common rule of thumb.
    #[serde(rename = "mean_rate_x1_5")]
    MeanRateX15,
    /// The per-unit cost of the probe's last quarter x N, plus startup.
    LastRate,
}

impl Baseline {
    pub const ALL: [Baseline; 3] = [
        Baseline::MeanRate,
        Baseline::MeanRateX15,
        Baseline::LastRate,
    ];

    /// The name in JSON and in CSV column names.
    pub fn key(self) -> &'static str {
        match self {
            Baseline::MeanRate => "mean_rate",
            Baseline::MeanRateX15 => "mean_rate_x1_5",
            Baseline::LastRate => "last_rate",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Baseline::MeanRate => "mean rate x N",
            Baseline::MeanRateX15 => "mean rate x N x 1.5",
            Baseline::LastRate => "last-quarter rate x N",
        }
    }
}

/// One held-out run scored against one budget.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Trial {
    pub stratum: String,
    pub held_out: String,
    /// The held-out run's length, in units.
    pub units: u64,
    /// Its total time, seconds.
    pub actual_s: f64,
    /// The probe runs the budget came from, and the units each contributed.
    pub probe_runs: Vec<(String, u64)>,
    pub predicted_s: f64,
    pub floor_s: f64,
    pub upper_s: f64,
    /// upper_s / actual_s.
    pub headroom: f64,
    pub covered: bool,
    /// The probe could not support a bound: `calib budget` gives no time
    /// (status `unsupported`), so the trial is neither covered nor missed.
    pub unsupported: bool,
    /// Baseline budgets, in [`Baseline::ALL`]'s order.
    pub baselines_s: Vec<f64>,
}

/// Why a stratum could not be backtested under the design.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Skipped {
    pub stratum: String,
    pub(crate) reason: String,
}

/// One stratum's trials and their summary.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StratumBacktest {
    pub stratum: String,
    pub trials: Vec<Trial>,
    pub covered: usize,
    /// Trials whose probe supported no bound (`unsupported`).
    pub unsupported: usize,
    pub(crate) median_headroom: f64,
    /// The smallest headroom: below 1, the worst miss. NaN when no budget
    /// was given (every trial unsupported).
    pub worst_headroom: f64,
    /// The largest headroom: the most wasteful budget. NaN when no budget
    /// was given.
    pub largest_headroom: f64,
    pub(crate) baselines: Vec<BaselineSummary>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct BaselineSummary {
    pub(crate) baseline: Baseline,
    pub covered: usize,
    pub(crate) median_headroom: f64,
}

/// The whole backtest.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Backtest {
    pub confidence: f64,
    pub design: String,
    pub strata: Vec<StratumBacktest>,
    pub skipped: Vec<Skipped>,
    pub trials: usize,
    pub covered: usize,
    /// Trials whose probe supported no bound.
    pub unsupported: usize,
    /// covered / the trials that were given a budget, to set beside
    /// `confidence`; NaN (null in JSON) when none was given.
    pub observed_coverage: f64,
    /// Median over strata of each stratum's median headroom.
    pub(crate) median_headroom: f64,
    pub strata_all_covered: usize,
    pub(crate) baselines: Vec<BaselineSummary>,
}

/// A run's length and the time a walltime must cover.
fn run_total(run: &RunTimings) -> Option<(u64, f64)> {
    let &(units, last) = run.points.last()?;
    let end_s = match &run.end {
        Some((RunEnd::Exit(_), _, t)) => t.max(last),
        _ => last,
    };
    Some((units, end_s))
}

/// The full-length runs of a stratum: those that exited by themselves with
/// status 0, and those stopped by calib (`end = limit`: `calib probe --units
/// N` at its full N) or without an end row that reached the stratum's largest
/// unit count. A run that failed (`exit:1`) or was killed (`signal:KILL`) is
/// never one, however far it got: its time is not what a finished run takes,
/// and holding it out would score a budget against a run that did not do the
/// work. Nor does such a run set the largest count. The others (stopped
/// earlier, or failed) are probes.
fn full_runs<'a>(runs: &[&'a RunTimings]) -> Vec<&'a RunTimings> {
    let longest = runs
        .iter()
        .filter(|r| !failed(r))
        .map(|r| units_of(r))
        .max()
        .unwrap_or(0);
    runs.iter()
        .filter(|r| {
            !r.points.is_empty()
                && match &r.end {
                    Some((RunEnd::Exit(0), _, _)) => true,
                    Some((RunEnd::Limit, _, _)) | None => units_of(r) == longest,
                    Some(_) => false,
                }
        })
        .copied()
        .collect()
}

/// A run that ended with a failure status or was killed by a signal.
fn failed(run: &RunTimings) -> bool {
    match &run.end {
        Some((RunEnd::Exit(code), _, _)) => *code != 0,
        Some((RunEnd::Signal(_), _, _)) => true,
        _ => false,
    }
}

/// The first `units` units of a run, ended as a probe stopped by `--units` ends.
fn cut(run: &RunTimings, units: u64) -> RunTimings {
    let points: Vec<(u64, f64)> = run
        .points
        .iter()
        .copied()
        .take_while(|p| p.0 <= units)
        .collect();
    let end = points.last().map(|&(u, t)| (RunEnd::Limit, u, t));
    RunTimings {
        points,
        end,
        ..run.clone()
    }
}

fn units_of(run: &RunTimings) -> u64 {
    run.points.last().map(|p| p.0).unwrap_or(0)
}

/// Whether `run` can be a probe of its first `units` units: it reaches them,
/// and has a row within them. A run whose first row lies past them (its
/// early rows lost) would be cut to nothing: counted as a seed, it would
/// add no unit to the fit while the design claimed it.
fn probes_to(run: &RunTimings, units: u64) -> bool {
    units_of(run) >= units && run.points.first().is_some_and(|p| p.0 <= units)
}

/// The first `f` of a run of `n` units, at least one unit.
fn fraction_of(f: f64, n: u64) -> u64 {
    ((f * n as f64).ceil() as u64).max(1)
}

/// Probe units for a held-out run of `n` units.
fn probe_units(length: ProbeLength, n: u64) -> Option<u64> {
    match length {
        ProbeLength::Units(k) => Some(k),
        ProbeLength::Fraction(f) => Some(fraction_of(f, n)),
        ProbeLength::Recorded => None,
    }
}

/// A stratum's recorded probes (its runs that are not full-length), at most
/// `seeds` of them.
fn recorded_probes(runs: &[&RunTimings], full: &[&RunTimings], seeds: usize) -> Vec<RunTimings> {
    runs.iter()
        .filter(|r| !full.iter().any(|f| f.run == r.run) && !r.points.is_empty())
        .take(seeds)
        .map(|r| (*r).clone())
        .collect()
}

/// Picks the probe runs for one held-out run, in a fixed rotation: the
/// candidates after the held-out one in run order, wrapping around.
fn pick_probes(
    candidates: &[&RunTimings],
    held_out: usize,
    n: u64,
    design: &ProbeDesign,
) -> std::result::Result<Vec<RunTimings>, String> {
    let k = probe_units(design.length, n).expect("cut designs only");
    // A probe as long as the held-out run extrapolates nothing: its trial
    // would say nothing of how short a probe may be.
    if k >= n {
        return Err(format!(
            "the probe ({k} units) is as long as the held-out run ({n} units): nothing to extrapolate"
        ));
    }
    let count = candidates.len();
    let rotation = (1..count).map(|step| candidates[(held_out + step) % count]);
    let mut chosen = Vec::with_capacity(design.seeds);
    let mut long_taken = design.long_run.is_none();
    // Never shorter than the others: a "long" run of 2 units beside probes of
    // 10 would shape the curve with less, not more. With --probe-units K the
    // fraction of a short N may fall below K: then the long run has K units.
    let long_units = design.long_run.map(|f| fraction_of(f, n).max(k));
    if let Some(lu) = long_units.filter(|&lu| lu >= n) {
        return Err(format!(
            "the long run ({lu} units) is as long as the held-out run ({n} units): nothing to extrapolate"
        ));
    }
    for run in rotation {
        if chosen.len() == design.seeds {
            break;
        }
        if !long_taken {
            let lu = long_units.unwrap();
            if probes_to(run, lu) {
                chosen.push(cut(run, lu));
                long_taken = true;
                continue;
            }
        }
        if probes_to(run, k) && (long_taken || chosen.len() + 1 < design.seeds) {
            chosen.push(cut(run, k));
        }
    }
    if !long_taken {
        return Err(format!(
            "no other run reaches {} units, with a row within them, for the long run",
            long_units.unwrap()
        ));
    }
    if chosen.len() < design.seeds {
        return Err(format!(
            "{} reach {k} units with a row within them; the design needs {}",
            crate::output::count(chosen.len() as u64, "other run", "other runs"),
            design.seeds
        ));
    }
    Ok(chosen)
}

/// Budgets from `probes` and scores the budget against each held-out run.
fn score(
    stratum: &str,
    probes: Vec<RunTimings>,
    held_out: &[&RunTimings],
    options: &BacktestOptions,
) -> Result<Vec<Trial>> {
    let probe_runs: Vec<(String, u64)> = probes
        .iter()
        .map(|r| (r.run.clone(), units_of(r)))
        .collect();
    let baselines = BaselineRates::of(&probes);
    let alone = Timings {
        runs: probes,
        warnings: Vec::new(),
        ..Default::default()
    };
    let report = fit_timings(&alone, &options.fit)?;
    let model = report.model.strata.iter().find(|m| m.stratum == stratum);
    let trials = held_out
        .iter()
        .map(|run| {
            let (n, actual_s) = run_total(run).expect("held-out runs have points");
            let projection = model.map(|m| m.project(n, options.confidence, &options.calibration));
            // No model, or no bound for it: no budget given.
            let given = projection.as_ref().filter(|p| p.unsupported.is_none());
            let figure = |get: fn(&crate::model::Projection) -> f64| {
                projection.as_ref().map_or(f64::NAN, get)
            };
            Trial {
                stratum: stratum.to_string(),
                held_out: run.run.clone(),
                units: n,
                actual_s,
                probe_runs: probe_runs.clone(),
                predicted_s: figure(|p| p.predicted_s),
                floor_s: figure(|p| p.floor_s),
                upper_s: figure(|p| p.upper_s),
                headroom: figure(|p| p.upper_s) / actual_s,
                covered: given.is_some_and(|p| p.upper_s >= actual_s),
                unsupported: given.is_none(),
                baselines_s: Baseline::ALL
                    .iter()
                    .map(|&b| baselines.budget(b, n))
                    .collect(),
            }
        })
        .collect();
    Ok(trials)
}

/// The probe's plain rates, for the baselines.
struct BaselineRates {
    startup_s: f64,
    mean_rate_s: f64,
    last_rate_s: f64,
}

impl BaselineRates {
    fn of(probes: &[RunTimings]) -> BaselineRates {
        let (mut elapsed, mut units) = (0.0, 0.0);
        let (mut startup, mut last_rates) = (Vec::new(), Vec::new());
        for run in probes {
            let Some(&(u, t)) = run.points.last() else {
                continue;
            };
            elapsed += t;
            units += u as f64;
            // Startup: the first interval's excess over the next interval's rate.
            if run.points.len() >= 2 {
                let (u1, t1) = run.points[0];
                let (u2, t2) = run.points[1];
                let rate = (t2 - t1) / (u2 - u1) as f64;
                startup.push((t1 - rate * u1 as f64).max(0.0));
            }
            // Last quarter of the units (at least the last interval).
            let from_unit = u - (u / 4).max(1);
            if let Some(&(ua, ta)) = run.points.iter().rev().find(|p| p.0 <= from_unit) {
                last_rates.push((t - ta) / (u - ua) as f64);
            } else {
                last_rates.push(t / u as f64);
            }
        }
        BaselineRates {
            startup_s: median(&startup).unwrap_or(0.0),
            mean_rate_s: elapsed / units.max(1.0),
            last_rate_s: median(&last_rates).unwrap_or(elapsed / units.max(1.0)),
        }
    }

    fn budget(&self, baseline: Baseline, n: u64) -> f64 {
        let n = n as f64;
        match baseline {
            Baseline::MeanRate => self.mean_rate_s * n,
            Baseline::MeanRateX15 => 1.5 * self.mean_rate_s * n,
            Baseline::LastRate => self.startup_s + self.last_rate_s * n,
        }
    }
}

fn summarize(stratum: &str, trials: Vec<Trial>) -> StratumBacktest {
    // Headroom of the budgets given: unsupported trials got none.
    let headrooms: Vec<f64> = trials
        .iter()
        .filter(|t| !t.unsupported)
        .map(|t| t.headroom)
        .collect();
    let baselines = summarize_baselines(&trials);
    StratumBacktest {
        stratum: stratum.to_string(),
        covered: trials.iter().filter(|t| t.covered).count(),
        unsupported: trials.iter().filter(|t| t.unsupported).count(),
        // With no budget given there is no headroom: not-a-number (`-` in the
        // table, null in JSON), never a made-up 0 or infinity. min and max
        // skip a NaN, so it is only the start of the fold.
        median_headroom: median(&headrooms).unwrap_or(f64::NAN),
        worst_headroom: headrooms.iter().copied().fold(f64::NAN, f64::min),
        largest_headroom: headrooms.iter().copied().fold(f64::NAN, f64::max),
        trials,
        baselines,
    }
}

fn summarize_baselines(trials: &[Trial]) -> Vec<BaselineSummary> {
    Baseline::ALL
        .iter()
        .enumerate()
        .map(|(i, &baseline)| {
            let ratios: Vec<f64> = trials
                .iter()
                .map(|t| t.baselines_s[i] / t.actual_s)
                .collect();
            BaselineSummary {
                baseline,
                covered: ratios.iter().filter(|&&r| r >= 1.0).count(),
                median_headroom: median(&ratios).unwrap_or(f64::NAN),
            }
        })
        .collect()
}

/// Backtests every stratum of `timings` under `options.design`.
pub fn backtest(timings: &Timings, options: &BacktestOptions) -> Result<Backtest> {
    let design = &options.design;
    if design.seeds == 0 {
        return Err(Error::input(
            Origin::Argument("--seeds".into()),
            None,
            "expected at least 1 probe run",
        ));
    }
    if timings.runs.iter().all(|r| r.points.is_empty()) {
        // No run at all (an empty file): refused as `calib fit` refuses the
        // same input, naming the files read, rather than with the list of
        // per-stratum reasons below, which would be empty.
        return Err(crate::fit::no_unit_rows(&timings.sources));
    }
    if design.long_run.is_some() && design.length == ProbeLength::Recorded {
        // The recorded probes are used as they were recorded: there is no
        // run to take further, and a design line that claimed one would
        // describe a backtest that was not made.
        return Err(Error::input(
            Origin::Argument("--long-run".into()),
            None,
            "--probe-units recorded uses the recorded probe runs as they are, so no run can be taken further; drop --long-run, or cut the runs to a probe design (--probe-units K, --probe-fraction F)",
        ));
    }
    if let (Some(long), ProbeLength::Fraction(f)) = (design.long_run, design.length) {
        // Both fractions of the same N: the long run would never be longer.
        if long <= f {
            return Err(Error::input(
                Origin::Argument("--long-run".into()),
                None,
                format!(
                    "{} of N is no longer than the probe runs' {} (--probe-fraction); the long run must go further than the others",
                    percent_as_given(long),
                    percent_as_given(f)
                ),
            ));
        }
    }
    let mut groups: BTreeMap<String, Vec<&RunTimings>> = BTreeMap::new();
    for run in &timings.runs {
        groups.entry(run.stratum.canonical()).or_default().push(run);
    }
    for runs in groups.values_mut() {
        runs.sort_by(|a, b| a.run.cmp(&b.run));
    }
    let mut strata = Vec::new();
    let mut skipped = Vec::new();
    // Whether --seeds left out some stratum's recorded probes, for the design line.
    let mut recorded_capped = false;
    for (stratum, runs) in &groups {
        let stratum = stratum.clone();
        let full = full_runs(runs);
        if full.is_empty() {
            let failures = runs.iter().filter(|r| failed(r)).count();
            let reason = if failures > 0 {
                format!(
                    "no full-length run to hold out ({failures} of its {} failed or were killed; only a run that ended with exit:0 or reached the full length is held out)",
                    crate::output::count(runs.len() as u64, "run", "runs")
                )
            } else {
                "no full-length run to hold out".to_string()
            };
            skipped.push(Skipped { stratum, reason });
            continue;
        }
        let trials = match design.length {
            ProbeLength::Recorded => {
                let probes = recorded_probes(runs, &full, design.seeds);
                recorded_capped |= recorded_probes(runs, &full, usize::MAX).len() > design.seeds;
                if probes.is_empty() {
                    skipped.push(Skipped {
                        stratum,
                        reason: "no recorded probe run (a run stopped by --units)".into(),
                    });
                    continue;
                }
                score(&stratum, probes, &full, options)?
            }
            _ => {
                let mut trials = Vec::new();
                let mut reason = None;
                let mut not_held_out = 0;
                for (i, held) in runs.iter().enumerate() {
                    if !full.iter().any(|f| f.run == held.run) {
                        continue;
                    }
                    let n = units_of(held);
                    match pick_probes(runs, i, n, design) {
                        Ok(probes) => trials.extend(score(&stratum, probes, &[held], options)?),
                        Err(why) => {
                            not_held_out += 1;
                            reason = Some(why);
                        }
                    }
                }
                if trials.is_empty() {
                    skipped.push(Skipped {
                        stratum,
                        reason: reason.unwrap_or_else(|| "no trial possible".into()),
                    });
                    continue;
                }
                // Some full runs held out, others not: the stratum's figures
                // rest on fewer runs than it has, which the user must hear.
                if let Some(why) = reason {
                    skipped.push(Skipped {
                        stratum: stratum.clone(),
                        reason: format!(
                            "{not_held_out} of its {} full-length runs not held out: {why}",
                            full.len()
                        ),
                    });
                }
                trials
            }
        };
        strata.push(summarize(&stratum, trials));
    }
    if strata.is_empty() {
        let why = skipped
            .iter()
            .map(|s| format!("{}: {}", crate::stratum::display_name(&s.stratum), s.reason))
            .collect::<Vec<_>>()
            .join("; ");
        return Err(Error::Refused(format!(
            "no stratum could be backtested under this design ({why}); a backtest needs full-length runs to hold out and other runs long enough for the probe design"
        )));
    }
    let all: Vec<Trial> = strata.iter().flat_map(|s| s.trials.clone()).collect();
    let covered = all.iter().filter(|t| t.covered).count();
    let unsupported = all.iter().filter(|t| t.unsupported).count();
    let budgeted = all.len() - unsupported;
    let medians: Vec<f64> = strata
        .iter()
        .map(|s| s.median_headroom)
        .filter(|h| h.is_finite())
        .collect();
    Ok(Backtest {
        confidence: options.confidence,
        design: describe(design, &strata, recorded_capped),
        trials: all.len(),
        covered,
        unsupported,
        observed_coverage: if budgeted > 0 {
            covered as f64 / budgeted as f64
        } else {
            f64::NAN
        },
        median_headroom: median(&medians).unwrap_or(f64::NAN),
        strata_all_covered: strata
            .iter()
            .filter(|s| s.unsupported == 0 && s.covered == s.trials.len())
            .count(),
        baselines: summarize_baselines(&all),
        strata,
        skipped,
    })
}

/// The design in words, for the report: what was used. With recorded probes
/// that is the number of runs each stratum had (at most --seeds), not the
/// --seeds asked for; with cut probes, the runs each budget came from.
fn describe(design: &ProbeDesign, strata: &[StratumBacktest], recorded_capped: bool) -> String {
    // The probe runs behind the budgets, counted from the trials themselves.
    let used: Vec<usize> = strata
        .iter()
        .flat_map(|s| &s.trials)
        .map(|t| t.probe_runs.len())
        .collect();
    let (least, most) = (
        used.iter().copied().min().unwrap_or(0),
        used.iter().copied().max().unwrap_or(0),
    );
    let count = if least == most {
        format!("{most}")
    } else {
        format!("{least}-{most}")
    };
    let length = match design.length {
        ProbeLength::Units(k) => format!("first {k} units"),
        // As given: 0.0001 is no 0%, 0.99999 no 100%.
        ProbeLength::Fraction(f) => format!("first {} of N", percent_as_given(f)),
        ProbeLength::Recorded => {
            let mut text = format!("recorded probe runs as they are, {count} run(s) per stratum");
            if recorded_capped {
                text.push_str(&format!(
                    " (at most {} per stratum, --seeds: the first by run name)",
                    design.seeds
                ));
            }
            return text;
        }
    };
    let mut text = format!("{length} of {count} run(s)");
    if let Some(f) = design.long_run {
        text.push_str(&format!(", one of them to {} of N", percent_as_given(f)));
        if let ProbeLength::Units(k) = design.length {
            text.push_str(&format!(" or {k} units, whichever is more"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    // A fraction is said as given: 0.0001 is no 0%, 0.99999 no 100%.
    #[test]
    fn a_design_says_its_fractions_as_given() {
        let design = |f: f64, long: Option<f64>| ProbeDesign {
            length: ProbeLength::Fraction(f),
            seeds: 3,
            long_run: long,
        };
        assert!(describe(&design(0.0001, None), &[], false).starts_with("first 0.01% of N"));
        let text = describe(&design(0.1, Some(0.99999)), &[], false);
        assert!(
            text.starts_with("first 10% of N") && text.contains("to 99.999% of N"),
            "{text}"
        );
    }
}
