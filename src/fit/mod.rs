//! `calib fit`'s statistical core: per-stratum cost models of a run of N units.
//!
//! Pipeline for each stratum (each step its own module):
//!
//! 1. **Intervals** (here): each run's rows become intervals (u0, u1] with their
//!    measured durations; the first interval (0, u1] includes the startup; a
//!    run-length row is the interval (0, N]. Identical intervals of several runs
//!    are aggregated into sufficient statistics. Transient slow units are evened
//!    out first, each run keeping its total ([`transients`]).
//! 2. **Forms** ([`forms`]): constant, linear, logarithmic and power-law per-unit
//!    cost c(i), geometric where the probe shows it (step 6), and the onset (a
//!    base plus a part multiplying per unit) where the others missed the probe's
//!    later units (step 4), each with a startup term; a run is `startup + C(N)`.
//! 3. **Least squares** ([`lsq`]): weighted least squares with weight 1/(u1-u0)
//!    (assumption: independent per-unit noise of common variance), parameter
//!    covariance from the fit. Startup and c(1) are confounded for unit rows;
//!    projections only need their sum. The startup term is dropped when it is not
//!    identified (run-length rows at fewer lengths than parameters) or negative.
//! 4. **Selection by extrapolation** ([`select`]): fit on the early part, score on
//!    the later part; best form, runner-up, and the set of forms the data cannot
//!    rule out ("plausible": a score within 2 standard errors of the best one,
//!    taking the larger of the two forms' holdout standard errors); the chosen
//!    form's under-prediction of the later part, net of its noise, is the
//!    projection's measured form error ([`select::Choice::form_error`]). When even
//!    the best form under-predicted the later part by a change of regime (more
//!    than 10% and twice its standard error), the onset form is fitted and
//!    scored too, and kept only if it beats that best score by more than twice
//!    the standard error ([`onset_explains`]): a takeoff the early units
//!    foretold, not a step; and if it beats its polynomial twin, the base
//!    power, by more than twice the standard error counting both early fits'
//!    uncertainty ([`onset_beats_its_twin`]). When it does not, the probe
//!    has not settled how the rise goes on: unsupported ([`Takeoff`]); nor
//!    when no form explains a rise past a doubling ([`MAX_UNEXPLAINED_RISE`]),
//!    nor one still rising against the chosen form at the end of the probe
//!    ([`still_rising`]): a rise that goes on, not a step. The last test also
//!    applies to a smaller miss (under 10%, beyond twice its standard error,
//!    [`under_predicted`]): an onset only beginning at the end of a long
//!    probe run was budgeted at half of what the runs took.
//!    Where the chosen form grows no faster than a power law and the probe's
//!    unit costs rose, a cost bending upward from a base (a + h·i², the base
//!    power at a fixed exponent) is scored on the same holdout; if the chosen
//!    form does not beat it by twice the standard error counting both early
//!    fits, the probe cannot rule it out, and it is recorded as the **convex
//!    alternative** ([`convex_alternative`]). It is stated, not averaged in:
//!    with its exponent free, such a probe holds b anywhere from 1 to 3 and a
//!    bound built on it grew to hundreds of times the runs on real programs
//!    (`notebooks/accuracy.md`, "A second out-of-sample set"). Nor is the
//!    stratum refused: that refused the seed's own straight rise from
//!    20-generation probes in 18 seeds of 20 ("A third out-of-sample set").
//!    So the bound assumes the rise the probe showed does not steepen beyond
//!    it; where the bend is recorded, that assumption is the probe's weakest,
//!    and `calib budget` says so. A stratum whose probe supports no bound
//!    (step 6) records no bend: there is no bound for it to question.
//! 5. **Divergence** ([`divergence`]): each run's level over the probe and its
//!    current per-unit rate against the chosen curve; their variances (the
//!    rates' net of each run's own unit noise) get scaled-inverse-χ² priors
//!    pooled over the campaign, i.e. the strata fitted together (Gelman et al.,
//!    BDA 3rd ed., ch. 5), or a stated 10% worth 3 runs for a stratum alone.
//!    The fit's covariance is rescaled by the ratio of the within-run residual
//!    variance (each run against the curve at its own level) to the pooled one
//!    (never widened), so that level differences count once, in the spread.
//! 6. **Weights and support**: the plausible forms are weighted by their holdout
//!    scores for a model average ([`form_weights`]); a probe whose units are lost
//!    in its startup is marked unsupported ([`startup_dominated`]). A probe whose
//!    per-unit cost multiplies along the run ([`growth_factor_per_unit`] above
//!    [`GEOMETRIC_FACTOR_PER_UNIT`]) adds the geometric form to the candidates;
//!    unless the holdout then tells geometric from polynomial growth, by a
//!    margin that counts the early fits' own uncertainty, the stratum is
//!    unsupported ([`geometric_undecided`]).
//! 7. **Model** ([`schema`]): the weighted forms, the spread and the probe's
//!    length become the model schema ([`crate::model::StratumModel`]), checked by
//!    the rules every model file must follow. Projections are computed from the
//!    schema alone by [`crate::projection`], here as in `calib budget`.
//!
//! Constants: every knob of [`FitOptions`] was chosen once for all programs, by
//! leave-one-program-out validation on the corpus of real programs in
//! `data/traces/` (`examples/lopo.rs`), among the values that keep the seed's
//! reference cases (`tests/budget_seed.rs`).
//!
//! Warnings ([`warnings`]) and reporting ([`export`], [`plot`]) are kept apart from
//! the statistics.

pub mod divergence;
pub mod export;
pub mod lsq;
pub mod plot;
pub mod resolution;
pub mod schema;
pub mod select;
pub mod transients;
pub mod warnings;

/// The cost forms are shared with the projection (`crate::forms`); `fit::forms`
/// keeps naming them where the fit's own modules use them.
pub use crate::forms;

use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use forms::{Form, Params};
pub use schema::CurveFit;
pub use select::{FormScore, Selection};
pub use warnings::FitWarning;

use crate::error::{Error, Origin, Result};
use crate::limits::MAX_COUNT;
use crate::model::{ModelFile, ModelFingerprint, StratumModel, Unsupported};
use crate::parallel;
use crate::projection::{Curve, Evaluator, ProjectionParams, Projector};
use crate::stats::median;
use crate::timings::{RunEnd, RunTimings, Timings};
use divergence::{CampaignPrior, DivergencePrior, RunDivergence};

/// Knobs of the fit; the defaults are the documented method.
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// One-sided confidence of the bound shown in the table (budget passes its own).
    pub confidence: f64,
    /// Units of the run to be budgeted, when known (table columns, warnings).
    pub units: Option<u64>,
    /// Prior run-to-run spread (log-sd, ≈ coefficient of variation).
    pub spread_prior_sd: f64,
    /// Weight of that prior, in pseudo-runs (at least 1).
    pub spread_prior_runs: f64,
    /// Extrapolation allowance: log-sd added per e-fold beyond the longest probe.
    pub extrapolation_kappa: f64,
    /// Cap on the weight, in pseudo-runs, of the campaign's pooled spread as a
    /// stratum's prior ([`divergence`]).
    pub pool_max_runs: f64,
    /// Growth exponent γ of rate differences between runs beyond the probe
    /// ([`divergence`]).
    pub divergence_growth: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            confidence: 0.99,
            units: None,
            spread_prior_sd: 0.10,
            spread_prior_runs: 3.0,
            // Chosen by leave-one-program-out validation on the corpus of
            // real programs (examples/lopo.rs, notebooks/accuracy.md).
            extrapolation_kappa: 0.05,
            pool_max_runs: 6.0,
            divergence_growth: 0.0,
        }
    }
}

impl FitOptions {
    /// The run a warning's advice is for: `--units`, or without it a run 10
    /// times the probe's `horizon`.
    fn advised_units(&self, horizon: u64) -> u64 {
        self.units.unwrap_or(horizon.saturating_mul(10))
    }

    fn divergence_prior(&self) -> DivergencePrior {
        DivergencePrior {
            prior_sd: self.spread_prior_sd,
            prior_runs: self.spread_prior_runs,
            pool_max_runs: self.pool_max_runs,
            growth: self.divergence_growth,
        }
    }

    /// The options a model file can state: see [`crate::model`].
    fn check(&self) -> Result<()> {
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(Error::input(
                Origin::Argument("--confidence".into()),
                None,
                format!(
                    "{} is not a one-sided confidence; expected a number in (0.5, 1), e.g. 0.99",
                    self.confidence
                ),
            ));
        }
        let knobs = [
            ("spread_prior_sd", self.spread_prior_sd, 0.0),
            ("spread_prior_runs", self.spread_prior_runs, 1.0),
            ("extrapolation_kappa", self.extrapolation_kappa, 0.0),
            ("pool_max_runs", self.pool_max_runs, 0.0),
            ("divergence_growth", self.divergence_growth, 0.0),
        ];
        for (name, value, min) in knobs {
            if !(value.is_finite() && value >= min) {
                return Err(Error::Refused(format!(
                    "fit option {name} is {value}; expected a finite number ≥ {min}"
                )));
            }
        }
        Ok(())
    }
}

/// Per-stratum figures for the table and the plot.
#[derive(Debug, Clone)]
pub struct StratumReport {
    pub stratum: String,
    /// Per run: (unit index, per-unit cost in seconds) for each measured interval,
    /// plotted at the interval's last unit.
    pub points: Vec<Vec<(u64, f64)>>,
    /// Fitted c(1) and c(H) of the chosen form.
    pub first_cost_s: f64,
    pub last_cost_s: f64,
    /// (last / first - 1) x 100.
    pub trend_pct: f64,
    /// Plain mean per-unit cost of the probe: Σ elapsed / Σ units over runs.
    pub mean_rate_s: f64,
}

/// What `fit_timings` returns: the model file and what the table and plot need.
#[derive(Debug, Clone)]
pub struct FitReport {
    pub model: ModelFile,
    pub strata: Vec<StratumReport>,
    pub warnings: Vec<FitWarning>,
    pub options: FitOptions,
}

impl FitReport {
    /// Every stratum's projection of a run of `units` units at the fit's
    /// confidence, in the strata's order (computed on every core: each is a
    /// few hundred bounds, for the running maximum of `upper_s`).
    pub fn projections(&self, units: u64) -> Vec<crate::model::Projection> {
        parallel::map(&self.model.strata, |m| {
            m.project(units, self.options.confidence)
        })
    }

    /// Plain-mean underestimate at N: predicted / (mean rate x N).
    pub fn mean_underestimate(&self, k: usize, units: u64) -> f64 {
        let predicted = self.model.strata[k].predicted_s(units);
        predicted / (self.strata[k].mean_rate_s * units as f64)
    }
}

/// Fits every stratum of `timings`.
pub fn fit_timings(timings: &Timings, options: &FitOptions) -> Result<FitReport> {
    options.check()?;
    if let Some(units) = options.units.filter(|n| !(1..=MAX_COUNT).contains(n)) {
        return Err(Error::input(
            Origin::Argument("--units".into()),
            None,
            format!("{units} units; expected the length of a run, from 1 to {MAX_COUNT}"),
        ));
    }
    let mut groups: BTreeMap<String, Vec<&RunTimings>> = BTreeMap::new();
    for run in &timings.runs {
        if !run.points.is_empty() {
            groups.entry(run.stratum.canonical()).or_default().push(run);
        }
    }
    if groups.is_empty() {
        return Err(no_unit_rows(&timings.sources));
    }
    let mut strata = Vec::new();
    let mut reports = Vec::new();
    let mut warnings = Vec::new();
    // Strata are independent: fit them on all cores, keeping their order.
    let groups: Vec<(&String, &Vec<&RunTimings>)> = groups.iter().collect();
    // The power law's grid terms, up to the longest run of unit rows.
    let longest = timings
        .runs
        .iter()
        .filter(|r| r.points.len() >= 2)
        .filter_map(|r| r.points.last().map(|p| p.0))
        .max();
    let grid = lsq::GridPowers::new(longest.unwrap_or(0));
    let results = parallel::map(&groups, |(name, runs)| {
        fit_stratum(name, runs, options, &grid, &timings.sources)
    });
    let fits = results.into_iter().collect::<Result<Vec<StratumFit>>>()?;
    // Partial pooling: the strata fitted together are one campaign, whose
    // pooled run-to-run variances become each stratum's prior.
    let measures: Vec<Vec<RunDivergence>> = fits.iter().map(|f| f.divergence.clone()).collect();
    let campaign = CampaignPrior::pool(&measures);
    for mut fit in fits {
        if let Some(campaign) = &campaign {
            fit.model.projection.spread =
                divergence::spread(&fit.divergence, Some(campaign), &options.divergence_prior());
        }
        strata.push(fit.model);
        reports.push(fit.report);
        warnings.extend(fit.warnings);
    }
    // Strata differing by more than 2x in per-unit cost.
    if reports.len() >= 2 {
        let slow = reports
            .iter()
            .max_by(|a, b| a.mean_rate_s.total_cmp(&b.mean_rate_s))
            .unwrap();
        let fast = reports
            .iter()
            .min_by(|a, b| a.mean_rate_s.total_cmp(&b.mean_rate_s))
            .unwrap();
        if slow.mean_rate_s > 2.0 * fast.mean_rate_s {
            let w = FitWarning::StrataDiffer {
                slow: slow.stratum.clone(),
                slow_rate_s: slow.mean_rate_s,
                fast: fast.stratum.clone(),
                fast_rate_s: fast.mean_rate_s,
            };
            for m in strata.iter_mut() {
                if m.display_name() == slow.stratum || m.display_name() == fast.stratum {
                    m.warnings.push(w.to_string());
                }
            }
            warnings.push(w);
        }
    }
    Ok(FitReport {
        model: ModelFile {
            calib_version: crate::VERSION.to_string(),
            created_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            strata,
        },
        strata: reports,
        warnings,
        options: options.clone(),
    })
}

fn fingerprint(runs: &[&RunTimings]) -> ModelFingerprint {
    let collect = |get: &dyn Fn(&RunTimings) -> Option<&String>| -> Vec<String> {
        runs.iter()
            .filter_map(|r| get(r).cloned())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    ModelFingerprint {
        clusters: collect(&|r| r.fingerprint.cluster.as_ref()),
        cpu_models: collect(&|r| r.fingerprint.cpu_model.as_ref()),
        hosts: collect(&|r| r.fingerprint.host.as_ref()),
        partitions: collect(&|r| r.fingerprint.partition.as_ref()),
        measured_from: runs
            .iter()
            .filter_map(|r| r.fingerprint.started_at.clone())
            .min(),
    }
}

/// One stratum's share of a [`FitReport`].
struct StratumFit {
    model: StratumModel,
    report: StratumReport,
    warnings: Vec<FitWarning>,
    /// Each run's level and current rate, for the campaign's pooling.
    divergence: Vec<RunDivergence>,
}

/// A stratum's rows as intervals (step 1), with what the report needs of them.
struct Intervals<'a> {
    /// Aggregated over runs, sorted by (u0, u1).
    obs: Vec<lsq::Obs>,
    /// Per run: (unit, per-unit cost) of each interval, at its last unit.
    points: Vec<Vec<(u64, f64)>>,
    views: Vec<select::RunView<'a>>,
    /// Σ over runs of the last unit.
    units_probed: u64,
    /// Longest run, in units (H).
    horizon: u64,
    /// Σ elapsed / Σ units.
    mean_rate_s: f64,
}

fn intervals<'a>(runs: &[&'a RunTimings]) -> Intervals<'a> {
    // Unit intervals (u-1, u] by u (the common case, no hashing); others hashed.
    // The table by u is only used up to the number of rows, so that its size
    // follows the data, never a unit number (a gap up to unit 10^9 is one row).
    let dense_units = runs.iter().map(|r| r.points.len() as u64).sum::<u64>();
    let mut unit_obs: Vec<lsq::Obs> = Vec::new();
    let mut agg: HashMap<(u64, u64), lsq::Obs> = HashMap::new();
    let mut points = Vec::with_capacity(runs.len());
    let mut views = Vec::with_capacity(runs.len());
    let mut units_probed = 0u64;
    let mut total_elapsed = 0.0;
    for run in runs {
        let mut prev = (0u64, 0.0f64);
        for &(u, t) in &run.points {
            let y = t - prev.1;
            let fresh = lsq::Obs {
                u0: prev.0,
                u1: u,
                n: 0.0,
                sy: 0.0,
                syy: 0.0,
            };
            let o = if u == prev.0 + 1 && u <= dense_units {
                let i = u as usize;
                if unit_obs.len() <= i {
                    unit_obs.resize(i + 1, lsq::Obs { n: 0.0, ..fresh });
                }
                let o = &mut unit_obs[i];
                (o.u0, o.u1) = (prev.0, u);
                o
            } else {
                agg.entry((prev.0, u)).or_insert(fresh)
            };
            o.n += 1.0;
            o.sy += y;
            o.syy += y * y;
            prev = (u, t);
        }
        units_probed = units_probed.saturating_add(prev.0);
        total_elapsed += prev.1;
        points.push(unit_costs(&run.points));
        views.push(select::RunView {
            points: &run.points,
        });
    }
    let mut obs: Vec<lsq::Obs> = agg.into_values().collect();
    obs.extend(unit_obs.into_iter().filter(|o| o.n > 0.0));
    obs.sort_by_key(|o| (o.u0, o.u1));
    let horizon = views
        .iter()
        .filter_map(|v| v.points.last().map(|p| p.0))
        .max()
        .unwrap_or(1);
    Intervals {
        obs,
        points,
        views,
        units_probed,
        horizon,
        mean_rate_s: total_elapsed / units_probed.max(1) as f64,
    }
}

/// A run's (unit, per-unit cost) of each interval, at its last unit: the
/// interval's time over its units (the first interval holds the startup).
fn unit_costs(points: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let mut prev = (0u64, 0.0f64);
    points
        .iter()
        .map(|&(u, t)| {
            // Most intervals are one unit long: no division (x / 1 is x).
            let cost = match u - prev.0 {
                1 => t - prev.1,
                units => (t - prev.1) / units as f64,
            };
            prev = (u, t);
            (u, cost)
        })
        .collect()
}

/// Steps 2-3: every form fitted to all the intervals, keeping those a model
/// file can state: finite estimates and a positive per-unit cost at the
/// longest run (the last units were measured, each taking time; a form that
/// gives them none describes the noise, not the run). The geometric form is a
/// candidate only when the probe shows geometric growth (`geometric_shown`):
/// elsewhere its projection dwarfs every other form's on a trend the data
/// cannot tell from a straight line, and the model average would follow it.
/// The onset form is fitted later, only where every other form missed the
/// probe's later units (see [`fit_forms`]).
fn candidate_fits(
    obs: &[lsq::Obs],
    horizon: u64,
    geometric_shown: bool,
    grid: &lsq::GridPowers,
) -> Vec<lsq::FormFit> {
    Form::ALL
        .iter()
        .filter(|&&f| f != Form::Onset && (f != Form::Geometric || geometric_shown))
        .filter_map(|&f| lsq::fit_form(f, obs, true, grid))
        .filter(|fit| stateable(fit, horizon))
        .collect()
}

/// Whether a model file can state `fit`: finite estimates and a positive
/// per-unit cost at the longest run.
fn stateable(fit: &lsq::FormFit, horizon: u64) -> bool {
    let p = &fit.params;
    let finite = p
        .values()
        .iter()
        .chain([&fit.df])
        .chain(fit.cov.iter().flatten())
        .all(|v| v.is_finite());
    finite && forms::unit_cost(fit.form, p, horizon as f64) > 0.0
}

/// Whether the holdout saw the per-unit cost take off: even the best form
/// fitted on the early units under-predicted the later ones
/// ([`under_predicted`]), by a change of regime ([`regime_changed`]: more
/// than 10% and more than twice its standard error). Then the onset form, a base with a part that multiplies per unit,
/// is fitted and scored as the others were: it is the form of a cost whose
/// growing part was small early and took over. A smaller miss is no takeoff:
/// one noisy run of a linear cost can miss by 3% at 3 standard errors, and an
/// onset fitted to that noise multiplies without bound beyond the probe.
fn took_off(choice: &select::Choice) -> bool {
    under_predicted(choice) && choice.scores.first().is_some_and(regime_changed)
}

/// What a takeoff ([`took_off`]) turned out to be.
enum Takeoff {
    /// The onset explains it: the choice with the onset, and its fit.
    Onset(select::Choice, Box<lsq::FormFit>),
    /// The onset explains it against calib's other forms, but not against
    /// its polynomial twin: the probe does not settle how the rise goes on.
    Undecided,
    /// The onset explains it no better than the other forms (a step, a
    /// change it cannot follow either): a change of regime, warned of.
    NotExplained,
}

/// After a takeoff, whether the onset form explains it ([`onset_explains`])
/// against the other forms and then against its polynomial twin, the base
/// power (a + h i^b, b from 1 to 4: a quadratic or cubic cost, whose rise
/// the onset also follows over a probe but projects orders of magnitude
/// higher beyond it; [`onset_beats_its_twin`]). The twin is only scored: it
/// never enters the choice.
fn onset_choice(data: &Intervals, full: &[lsq::FormFit], grid: &lsq::GridPowers) -> Takeoff {
    let fitted = |form: Form| {
        lsq::fit_form(form, &data.obs, true, grid).filter(|fit| stateable(fit, data.horizon))
    };
    let Some(onset) = fitted(Form::Onset) else {
        return Takeoff::NotExplained;
    };
    let mut candidates = full.to_vec();
    candidates.push(onset.clone());
    let with_onset = select::choose(&data.obs, &data.views, &candidates, grid);
    if !onset_explains(&with_onset) {
        return Takeoff::NotExplained;
    }
    if let Some(twin) = fitted(Form::BasePower) {
        candidates.push(twin);
        let with_twin = select::choose(&data.obs, &data.views, &candidates, grid);
        if !onset_beats_its_twin(&with_twin) {
            return Takeoff::Undecided;
        }
    }
    Takeoff::Onset(with_onset, Box::new(onset))
}

/// How much more than the best form's prediction (1: twice as long) the
/// probe's later units may take, in a takeoff no form explains, before no bound is
/// supported: a change of regime is budgeted by carrying each run's current
/// rate forward, which holds for a step (a cache outgrown) but not for a rise
/// that goes on. Past a doubling the forms describe nothing of the later
/// units. The same a-priori limit as a hidden trend's
/// ([`crate::model::MAX_HIDDEN_GROWTH`]); seen on the corpus of real programs:
/// a chess engine's iterative deepening, whose first 8 depths logged in the
/// same millisecond and whose later ones took 10 times the best form's
/// prediction, was budgeted at 0.15 of a full run; the steps seen there (SQLite
/// outgrowing its page cache, +25%; a graph outgrowing the cache, +10%) stay
/// well under it.
const MAX_UNEXPLAINED_RISE: f64 = crate::model::MAX_HIDDEN_GROWTH;

/// The fit of `form` among `fits`: the selection only chooses among the
/// forms it was given.
fn fit_of_form(fits: &[lsq::FormFit], form: Form) -> &lsq::FormFit {
    fits.iter()
        .find(|x| x.form == form)
        .expect("the selection chose among these fits")
}

/// Fewest units of one run in the last half of the probe's later part for
/// [`still_rising`] to judge it: a line through fewer leaves at most one
/// residual, too few to tell a slope from the noise.
const MIN_RISE_UNITS: usize = 4;

/// After a change of regime no form explains ([`Takeoff::NotExplained`]),
/// or a smaller miss of the later units beyond their noise
/// ([`under_predicted`]), whether the per-unit cost was still rising against
/// the chosen form at the end of the probe: the rise per unit, as a share of
/// the cost, when it was.
///
/// A change of regime is budgeted by carrying each run's current rate
/// forward, and a smaller miss by the form error the bound adds; both hold
/// for a step (a cache outgrown: the cost jumps, then follows its form again)
/// and not for a rise that goes on (an exponential onset seen starting, a
/// frontier that keeps growing): there the current rate is already behind,
/// and nothing in the probe says where the rise stops. The test: the ratio
/// of each unit's cost to the chosen form's c(i) over the last half of the
/// later part (the units after the middle of (⌊0.6 H⌋, H]; after a step the
/// chosen form, fitted to the step too, rises at least as fast as the
/// costs), its slope shared by the runs with at least [`MIN_RISE_UNITS`]
/// units there, measured as the trend resolution measures a slope
/// ([`resolution::shared_slope`]: robust scatter, each run about its own
/// mean). The rise goes on where the slope is above its
/// one-sided 99% t quantile times its standard error and adds more than
/// [`REGIME_CHANGE_LOG_ERROR`] (10%) across that last half. Shorter probes
/// (fewer than 4 units there, as in a 10-unit probe) are not judged: their
/// change stays warned of and carried forward.
fn still_rising(points: &[Vec<(u64, f64)>], chosen: &lsq::FormFit, horizon: u64) -> Option<f64> {
    let cut = select::holdout_cut(horizon);
    let from = cut + (horizon - cut) / 2;
    let ratios: Vec<Vec<(u64, f64)>> = points
        .iter()
        .map(|run| {
            run.iter()
                .filter(|&&(u, _)| u > from)
                .filter_map(|&(u, cost)| {
                    let form = forms::unit_cost(chosen.form, &chosen.params, u as f64);
                    (form > 0.0).then(|| (u, cost / form))
                })
                .collect()
        })
        .collect();
    let judged = ratios
        .iter()
        .filter(|run| run.len() >= MIN_RISE_UNITS)
        .map(Vec::as_slice);
    let fit = resolution::shared_slope(judged)?;
    let material = fit.slope * (horizon - from) as f64 > REGIME_CHANGE_LOG_ERROR;
    (fit.rises() && material).then_some(fit.slope)
}

/// How much more the probe's later units took than the best form, fitted on
/// the earlier ones, predicted (0.1: 10% more).
fn later_excess(choice: &select::Choice) -> f64 {
    choice.scores.first().map_or(0.0, |b| b.bias.exp() - 1.0)
}

/// A rise the chosen form did not follow, still going at the end of the
/// probe ([`still_rising`]), as the reason no bound is supported: how much
/// more the later units took than the best form predicted, and the rise per
/// unit at the end.
fn rise_goes_on(
    data: &Intervals,
    full: &[lsq::FormFit],
    choice: &select::Choice,
) -> Option<Unsupported> {
    let excess = later_excess(choice);
    let rise = still_rising(&data.points, fit_of_form(full, choice.chosen), data.horizon)?;
    Some(Unsupported::RiseGoesOn {
        excess,
        rise_per_unit: rise,
    })
}

/// Whether the onset's holdout score beats its twin's by more than twice
/// their standard error counting each early fit's own uncertainty
/// (`fit_var`): two forms of four parameters fitted on a short early part,
/// where the one that wins by the runs' noise alone may have fitted it.
fn onset_beats_its_twin(choice: &select::Choice) -> bool {
    let score = |form: Form| choice.scores.iter().find(|s| s.form == form);
    let (Some(onset), Some(twin)) = (score(Form::Onset), score(Form::BasePower)) else {
        // A twin the holdout could not score is no rival.
        return score(Form::Onset).is_some();
    };
    beats_counting_fits(onset, twin)
}

/// Whether `winner` predicted the later units better than `loser` by more
/// than twice the larger of their standard errors, each counting its early
/// fit's own uncertainty (`fit_var`): the margin for deciding between forms
/// whose projections lie orders of magnitude apart. A form is not beaten by
/// itself.
fn beats_counting_fits(winner: &FormScore, loser: &FormScore) -> bool {
    let se = |s: &FormScore| (s.se * s.se + s.fit_var).sqrt();
    winner.form != loser.form && winner.score + 2.0 * se(winner).max(se(loser)) < loser.score
}

/// Whether the onset form, fitted on the early units, predicted the later
/// units best among the forms of `choice`, by more than twice the scores'
/// standard error (the plausible rule's margin, [`select`]), so that every
/// other form is ruled out beside it. The onset's projection multiplies
/// beyond the probe; a fit that merely ties the others (a step in the cost,
/// which it can mimic with a steep factor; a quadratic cost, which it
/// follows as well as the base power does) is not kept.
fn onset_explains(choice: &select::Choice) -> bool {
    let [best, next, ..] = choice.scores.as_slice() else {
        return false;
    };
    best.form == Form::Onset && best.score + 2.0 * best.se.max(next.se) < next.score
}

fn fit_stratum(
    name: &str,
    measured: &[&RunTimings],
    options: &FitOptions,
    grid: &lsq::GridPowers,
    sources: &[Origin],
) -> Result<StratumFit> {
    let display = crate::stratum::display_name(name);
    // 1. Transient slow units evened out before any fitting; the report and
    // the plot keep the units as measured.
    let evened = transients::even_out(measured);
    let evened_refs: Vec<&RunTimings>;
    let runs: &[&RunTimings] = match &evened {
        Some((owned, _)) => {
            evened_refs = owned.iter().collect();
            &evened_refs
        }
        None => measured,
    };
    let data = intervals(runs);
    // 2-4. Forms, their fits and the selection.
    let forms = fit_forms(display, &data, runs, grid, sources)?;
    // 5. The runs' levels and current rates against the chosen curve; the
    // campaign's pooling, when there is one, replaces this spread afterwards.
    let chosen_curve = Curve::from(&forms.plausible[0]);
    let chosen_eval = Evaluator::new(&chosen_curve, data.horizon, forms.min_unit_cost_s);
    let chosen_totals = CurveTotals::new(&chosen_eval, runs, data.horizon);
    let measures: Vec<RunDivergence> = runs
        .iter()
        .map(|r| divergence::measure(&r.run, &r.points, &|n| chosen_totals.at(n)))
        .collect();
    let spread = divergence::spread(&measures, None, &options.divergence_prior());
    // 6. Weights, the trend the probe's noise leaves unresolved, and what a
    // projection needs.
    let resolution = resolution::measure(&data.points);
    let projection = projection_params(&forms, spread, resolution, data.horizon, options);
    let projector = Projector::new(&projection);
    let first_cost_s = projector.unit_cost(1.0);
    let last_cost_s = projector.unit_cost(data.horizon as f64);
    let trend_pct = (last_cost_s / first_cost_s - 1.0) * 100.0;
    let fp = fingerprint(runs);
    let unsupported = startup_dominated(runs)
        .or_else(|| {
            let shown = forms.growth_factor.filter(|_| forms.geometric_shown);
            geometric_undecided(&forms.choice, shown)
        })
        .or(forms.takeoff_unsupported);
    let mut w = stratum_warnings(&StratumFacts {
        display,
        runs: runs.len(),
        horizon: data.horizon,
        choice: &forms.choice,
        fingerprint: &fp,
        first_cost_s,
        last_cost_s,
        trend_pct,
        points: &data.points,
        options,
        change_refused: forms.takeoff_unsupported.is_some(),
    });
    w.extend(failed_runs(display, runs));
    w.extend(method_warnings(
        display,
        &forms,
        evened.as_ref().map(|(_, found)| found),
        unsupported,
        projection.resolution.as_ref(),
        data.horizon,
        options,
    ));
    // 7. The model schema, checked as every model file is.
    let mut model = StratumModel {
        stratum: name.to_string(),
        runs: runs.len(),
        units_probed: data.units_probed,
        projection,
        fingerprint: fp,
        warnings: Vec::new(),
        selection: Some(schema::selection_record(&forms.choice)),
        unsupported,
        // A stratum given no time has no bound for the bend to question.
        convex_alternative: forms
            .convex_alternative
            .clone()
            .filter(|_| unsupported.is_none()),
    };
    if model.convex_alternative.is_some() {
        let at_units = options.units.filter(|&n| n > data.horizon).and_then(|n| {
            Some(warnings::ConvexAt {
                units: n,
                convex_s: model.convex_alternative_s(n)?,
                predicted_s: model.predicted_s(n),
            })
        });
        w.push(FitWarning::ConvexNotRuledOut {
            stratum: display.to_string(),
            at_units,
            settle_units: crate::model::longer_probe_units(
                options.advised_units(data.horizon),
                data.horizon,
            ),
        });
    }
    model.warnings = w.iter().map(|x| x.to_string()).collect();
    model.check().map_err(|defect| {
        about_inputs(
            sources,
            format!(
                "stratum {display}: the fitted model breaks a rule of the model file ({defect}); check the time column's unit (seconds) and magnitude"
            ),
        )
    })?;
    let points = match evened {
        Some(_) => measured.iter().map(|r| unit_costs(&r.points)).collect(),
        None => data.points,
    };
    let report = StratumReport {
        stratum: display.to_string(),
        points,
        first_cost_s,
        last_cost_s,
        trend_pct,
        mean_rate_s: data.mean_rate_s,
    };
    Ok(StratumFit {
        model,
        report,
        warnings: w,
        divergence: measures,
    })
}

/// What steps 2-4 found: the plausible forms (the chosen one first), how they
/// were chosen, and the probe's growth per unit.
struct FormsFit {
    choice: select::Choice,
    /// The plausible forms' fits, the chosen one first, their covariance on
    /// the within-run scale.
    plausible: Vec<CurveFit>,
    min_unit_cost_s: f64,
    growth_factor: Option<f64>,
    geometric_shown: bool,
    /// A takeoff whose continuation the probe does not settle
    /// ([`Takeoff::Undecided`], or not explained and past
    /// [`MAX_UNEXPLAINED_RISE`]): no bound is supported.
    takeoff_unsupported: Option<Unsupported>,
    /// A cost bending upward that the probe could not rule out
    /// ([`convex_alternative`]); the model keeps it only where the stratum
    /// is given a bound.
    convex_alternative: Option<Curve>,
}

/// Steps 2-4: every candidate form fitted, the selection by extrapolation,
/// and the plausible forms' covariances rescaled to the within-run residual
/// variance (the level differences between runs count in the spread, once).
fn fit_forms(
    display: &str,
    data: &Intervals,
    runs: &[&RunTimings],
    grid: &lsq::GridPowers,
    sources: &[Origin],
) -> Result<FormsFit> {
    let horizon = data.horizon;
    let growth_factor = growth_factor_per_unit(&data.points);
    let geometric_shown = growth_factor.is_some_and(|f| f > GEOMETRIC_FACTOR_PER_UNIT);
    let mut full = candidate_fits(&data.obs, horizon, geometric_shown, grid);
    if full.is_empty() {
        return Err(about_inputs(
            sources,
            format!(
                "stratum {display}: no cost model with a positive per-unit cost could be fitted to its rows; expected timings whose last units take measurable time"
            ),
        ));
    }
    let mut choice = select::choose(&data.obs, &data.views, &full, grid);
    let mut takeoff_unsupported = None;
    if took_off(&choice) {
        let excess = later_excess(&choice);
        match onset_choice(data, &full, grid) {
            Takeoff::Onset(with_onset, onset) => {
                full.push(*onset);
                choice = with_onset;
            }
            Takeoff::Undecided => {
                takeoff_unsupported = Some(Unsupported::TakeoffUndecided { excess });
            }
            Takeoff::NotExplained => {
                takeoff_unsupported = if excess > MAX_UNEXPLAINED_RISE {
                    Some(Unsupported::RiseUnexplained { excess })
                } else {
                    rise_goes_on(data, &full, &choice)
                };
            }
        }
    } else if under_predicted(&choice) {
        takeoff_unsupported = rise_goes_on(data, &full, &choice);
    }
    let convex_alternative = convex_alternative(data, &choice);
    let mut plausible = vec![CurveFit::from(fit_of_form(&full, choice.chosen))];
    for &f in &choice.plausible {
        if f != choice.chosen {
            plausible.push(CurveFit::from(fit_of_form(&full, f)));
        }
    }
    let min_unit_cost_s = (data.mean_rate_s * 1e-6).max(1e-12);
    for fit in plausible.iter_mut() {
        if let Some(ratio) = within_run_ratio(fit, runs, horizon, min_unit_cost_s) {
            for row in fit.cov.iter_mut() {
                for v in row.iter_mut() {
                    *v *= ratio;
                }
            }
            // The within-run variance spent one degree of freedom per run level
            // beyond the first; the t quantile must not count them.
            fit.df = (fit.df - (runs.len() - 1) as f64).max(1.0);
        }
    }
    Ok(FormsFit {
        choice,
        plausible,
        min_unit_cost_s,
        growth_factor,
        geometric_shown,
        takeoff_unsupported,
        convex_alternative,
    })
}

/// The exponent of the convex alternative c(i) = a + h*i^b: the square, the
/// gentlest bend that is plainly not a straight line. A free exponent was
/// tried and not adopted (`notebooks/accuracy.md`, "A second out-of-sample
/// set"): a probe that cannot tell b = 1 from b = 3 states b with a standard
/// error of several units, which a bound cannot carry.
const CONVEX_EXPONENT: f64 = 2.0;

/// Step 4b: the convex alternative, a cost bending upward on its base
/// (a + h*i^2, h > 0, fitted on the whole probe), where the probe cannot rule
/// it out: the holdout chose a form that grows at most as a power law
/// (linear, log or power), the probe's unit costs rose (the runs' shared
/// slope over their later units, as the trend resolution measures it, above
/// its one-sided 99% t quantile times its standard error), and the form,
/// fitted on the early units, predicted the later ones within twice the
/// standard error of the best form's score counting both early fits (the
/// onset's rule against its twin, [`beats_counting_fits`]). It joins no
/// model average; the projection states what it would take, and the probe
/// that would settle it. Seen on real programs whose costs bend upward from a
/// base (a computer-algebra series, an SMT solver, a graph layout): 10-unit
/// probes that a straight line fitted, and full runs that took up to 5 times
/// the 99% bound.
fn convex_alternative(data: &Intervals, choice: &select::Choice) -> Option<Curve> {
    let holdout = choice.holdout.as_ref()?;
    if !matches!(choice.chosen, Form::Linear | Form::Log | Form::Power) {
        return None;
    }
    let later = data
        .points
        .iter()
        .map(|run| run.get(1..).unwrap_or_default());
    if !resolution::shared_slope(later)?.rises() {
        return None;
    }
    let best = choice.scores.first()?;
    let score = select::score_with(&data.obs, &data.views, holdout, |early| {
        lsq::fit_base_power_at(early, true, CONVEX_EXPONENT)
    })?;
    if !score.score.is_finite() || beats_counting_fits(best, &score) {
        return None;
    }
    let fit = lsq::fit_base_power_at(&data.obs, true, CONVEX_EXPONENT)?;
    stateable(&fit, data.horizon).then_some(Curve {
        form: Form::BasePower,
        params: fit.params,
        fit: None,
        weight: 0.0,
    })
}

/// Step 6: the plausible forms weighted for the model average, with the
/// spread, the trend resolution and the probe's length: what a projection
/// needs.
fn projection_params(
    forms: &FormsFit,
    spread: crate::projection::RunSpread,
    resolution: Option<crate::model::TrendResolution>,
    horizon: u64,
    options: &FitOptions,
) -> ProjectionParams {
    let weights = form_weights(&forms.choice, &forms.plausible);
    let weighted = |k: usize| Curve {
        weight: weights[k],
        ..Curve::from(&forms.plausible[k])
    };
    ProjectionParams {
        chosen: weighted(0),
        alternatives: (1..forms.plausible.len()).map(weighted).collect(),
        probe_units: horizon,
        min_unit_cost_s: forms.min_unit_cost_s,
        spread,
        extrapolation_kappa: options.extrapolation_kappa,
        form_error: forms.choice.form_error(),
        resolution,
    }
}

/// The warnings about what the method did with this probe: transients
/// evened out, geometric growth projected, no bound supported (for the run
/// of `--units`, when given, also for a trend the probe's noise could hide).
fn method_warnings(
    display: &str,
    forms: &FormsFit,
    transients: Option<&transients::TransientReport>,
    unsupported: Option<Unsupported>,
    resolution: Option<&crate::model::TrendResolution>,
    horizon: u64,
    options: &FitOptions,
) -> Vec<FitWarning> {
    let mut w = Vec::new();
    if let Some(found) = transients {
        w.push(FitWarning::TransientUnits {
            stratum: display.to_string(),
            units: found.units,
            runs_with: found.runs_with,
            runs: found.runs,
            worst_ratio: found.worst.0,
            worst_unit: found.worst.1,
        });
    }
    if unsupported.is_none() && forms.plausible.iter().any(|c| c.form == Form::Geometric) {
        w.push(FitWarning::GeometricGrowth {
            stratum: display.to_string(),
            factor_per_unit: forms.growth_factor.unwrap_or(f64::NAN),
            probe_units: horizon,
        });
    }
    if let Some(onset) = forms.plausible.iter().find(|c| c.form == Form::Onset) {
        let p = &onset.params;
        let last = forms::unit_cost(Form::Onset, p, horizon as f64);
        w.push(FitWarning::Onset {
            stratum: display.to_string(),
            factor_per_unit: p.b.exp(),
            growing_pct: 100.0 * (last - p.a) / last,
            probe_units: horizon,
            settle_units: crate::model::longer_probe_units(options.advised_units(horizon), horizon),
        });
    }
    // A trend the noise could hide is judged for the run asked for, as
    // `calib budget` will judge it; without --units there is no run to judge.
    let hidden = || {
        let units = options.units?;
        resolution?.unresolved(horizon, units, options.confidence)
    };
    if let Some(why) = unsupported.or_else(hidden) {
        w.push(FitWarning::Unsupported {
            stratum: display.to_string(),
            why,
            probe_units: horizon,
            units: options.advised_units(horizon),
        });
    }
    w
}

/// Below this share of a probe's time spent in its units (after the first),
/// their cost is lost in startup and noise: no bound is supported. Seen on
/// real programs: a chess engine's first depths finish within its startup
/// (share 0); the smallest share among programs whose probes did support a
/// bound was 7%.
pub const MIN_UNIT_SHARE: f64 = 0.05;
/// Per-unit cost multiplying by more than this per unit along the probe is
/// geometric growth: the geometric form becomes a candidate (see
/// [`candidate_fits`]). A linear cost a + b i grows by at most a factor 2
/// from unit 1 to 2 and by less each unit after; on the corpus's polynomial
/// programs the factor stayed below 1.15 (networkx, xz: growing inputs), on its
/// geometric ones (MiniSat's restarts) it was near 1.5.
pub const GEOMETRIC_FACTOR_PER_UNIT: f64 = 1.3;

/// A probe whose units are lost in its startup (see [`MIN_UNIT_SHARE`]). The
/// unit share is the median over runs of (T_last - T_first) / T_last.
/// Run-length rows (one per run) are not judged.
fn startup_dominated(runs: &[&RunTimings]) -> Option<Unsupported> {
    let shares: Vec<f64> = runs
        .iter()
        .filter(|r| r.points.len() >= 2)
        .map(|r| {
            let first = r.points[0].1;
            let last = r.points[r.points.len() - 1].1;
            if last > 0.0 {
                (last - first) / last
            } else {
                0.0
            }
        })
        .collect();
    let share = median(&shares)?;
    (share < MIN_UNIT_SHARE).then_some(Unsupported::StartupDominated { unit_share: share })
}

/// When the probe's cost multiplied along it (`shown_factor`), whether the
/// holdout told geometric growth from polynomial growth: either the geometric
/// form alone extrapolated the later units (every polynomial form ruled out),
/// or it was scored and the best form beat it by more than twice the standard
/// error counting both early fits' own uncertainty ([`beats_counting_fits`]:
/// the early part of such a probe is its cheapest units, often a few
/// milliseconds each, which hold the geometric factor loosely). Otherwise (no
/// holdout: too short a probe; or both kinds plausible, or geometric growth
/// beaten only within the early fits' uncertainty) the bound would be the
/// choice between a run that multiplies every unit and one that does not,
/// orders of magnitude apart at N: no bound is supported, and the advice is a
/// longer probe. A linear cost from a small intercept also multiplies early on
/// (c(i+1)/c(i) = (i+1)/i), which is why the factor alone does not decide.
fn geometric_undecided(choice: &select::Choice, shown_factor: Option<f64>) -> Option<Unsupported> {
    let factor_per_unit = shown_factor?;
    let geometric_alone = choice.plausible == [Form::Geometric];
    let geometric = choice.scores.iter().find(|s| s.form == Form::Geometric);
    let geometric_ruled_out = match (choice.scores.first(), geometric) {
        (Some(best), Some(geometric)) => beats_counting_fits(best, geometric),
        _ => false,
    };
    let decided =
        choice.selection == Selection::Holdout && (geometric_alone || geometric_ruled_out);
    (!decided).then_some(Unsupported::Geometric { factor_per_unit })
}

/// Most intervals per run that the Theil–Sen slope pairs up.
const THEIL_SEN_MAX_POINTS: usize = 32;

/// The factor by which per-unit cost multiplies per unit along the probe:
/// exp of the Theil–Sen slope (Sen, JASA 1968: the median of pairwise slopes,
/// robust to a few transient units) of ln(per-unit cost) against the unit,
/// over pairs of intervals within a run, the first interval (startup) left
/// out. None unless some run has at least three later intervals (two points
/// make no trend).
fn growth_factor_per_unit(points: &[Vec<(u64, f64)>]) -> Option<f64> {
    if !points.iter().any(|run| run.len() >= 4) {
        return None;
    }
    let mut slopes = Vec::new();
    for run in points {
        let later: Vec<&(u64, f64)> = run.iter().skip(1).filter(|&&(_, c)| c > 0.0).collect();
        // Pairs grow with the square of the units: a long run is thinned to
        // evenly spaced intervals (a systematic subsample, over which the
        // estimator is the same), so that a million rows cost no more than a
        // few hundred pairs per run. The logarithms are taken after thinning.
        let step = later.len().div_ceil(THEIL_SEN_MAX_POINTS).max(1);
        let later: Vec<(f64, f64)> = later
            .into_iter()
            .step_by(step)
            .map(|&(u, c)| (u as f64, c.ln()))
            .collect();
        for (i, a) in later.iter().enumerate() {
            for b in &later[i + 1..] {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    median(&slopes).map(f64::exp)
}

/// Weights of the plausible forms in the model average (pseudo-Bayesian model
/// averaging on the holdout score; Yao, Vehtari, Simpson & Gelman, "Using
/// stacking to average Bayesian predictive distributions", Bayesian Analysis
/// 2018, §3): `w_f ∝ exp(-z_f² / 2)` with `z_f` the form's holdout score minus
/// the best, in units of their standard error. Without a holdout the plausible
/// forms weigh alike. The weights sum to 1.
fn form_weights(choice: &select::Choice, plausible: &[CurveFit]) -> Vec<f64> {
    let score_of = |form: Form| choice.scores.iter().find(|s| s.form == form);
    let best = plausible
        .iter()
        .filter_map(|c| score_of(c.form))
        .filter(|s| s.score.is_finite())
        .min_by(|a, b| a.score.total_cmp(&b.score));
    let raw: Vec<f64> = plausible
        .iter()
        .map(|c| match (best, score_of(c.form)) {
            (Some(best), Some(s)) if s.score.is_finite() => {
                let se = s.se.max(best.se).max(1e-12);
                let z = (s.score - best.score) / se;
                (-0.5 * z * z).exp()
            }
            (Some(_), _) => 0.0,
            (None, _) => 1.0,
        })
        .collect();
    let total: f64 = raw.iter().sum();
    if total > 0.0 && total.is_finite() {
        raw.iter().map(|w| w / total).collect()
    } else {
        let n = plausible.len().max(1) as f64;
        vec![1.0 / n; plausible.len()]
    }
}

/// Runs whose command exited with a failure status (not killed by a signal
/// nor stopped at --units): their finished units are fitted as timed, but a
/// program that failed may not have done a full run's work.
fn failed_runs(display: &str, runs: &[&RunTimings]) -> Option<FitWarning> {
    let failed: Vec<(&RunTimings, i32, u64)> = runs
        .iter()
        .filter_map(|r| match &r.end {
            Some((RunEnd::Exit(code), units, _)) if *code != 0 => Some((*r, *code, *units)),
            _ => None,
        })
        .collect();
    let &(first, code, units) = failed.first()?;
    Some(FitWarning::FailedRuns {
        stratum: display.to_string(),
        failed: failed.len(),
        runs: runs.len(),
        example: first.run.clone(),
        code,
        units,
    })
}

/// What the warnings of one stratum are decided from.
struct StratumFacts<'a> {
    display: &'a str,
    runs: usize,
    horizon: u64,
    choice: &'a select::Choice,
    fingerprint: &'a ModelFingerprint,
    first_cost_s: f64,
    last_cost_s: f64,
    trend_pct: f64,
    points: &'a [Vec<(u64, f64)>],
    options: &'a FitOptions,
    /// The change of regime the holdout saw left the stratum unsupported
    /// (its own warning says why): no current rate is carried forward.
    change_refused: bool,
}

fn stratum_warnings(f: &StratumFacts) -> Vec<FitWarning> {
    let stratum = || f.display.to_string();
    let mut w = Vec::new();
    let fp = f.fingerprint;
    if fp.clusters.len() > 1 || fp.cpu_models.len() > 1 {
        w.push(FitWarning::MixedMachines {
            stratum: stratum(),
            clusters: fp.clusters.clone(),
            cpu_models: fp.cpu_models.clone(),
        });
    }
    match f.choice.selection {
        Selection::ProbeTooShort if f.horizon < select::MIN_UNITS => {
            w.push(FitWarning::ProbeTooShort {
                stratum: stratum(),
                units: f.horizon,
                needed: select::MIN_UNITS,
            })
        }
        // Long enough, yet no holdout: nothing after the cut to predict (the
        // units there took no time), or the early rows were too few to fit.
        Selection::ProbeTooShort => {
            let cut = select::holdout_cut(f.horizon);
            let mut late = f.points.iter().flatten().filter(|p| p.0 > cut);
            let (stratum, horizon) = (stratum(), f.horizon);
            w.push(if late.all(|p| p.1 <= 0.0) {
                FitWarning::LateUnitsTookNoTime {
                    stratum,
                    horizon,
                    cut,
                }
            } else {
                FitWarning::EarlyRowsTooFew {
                    stratum,
                    horizon,
                    cut,
                }
            })
        }
        Selection::TwoLengths | Selection::OneLength => w.push(FitWarning::CurvatureUnmeasured {
            stratum: stratum(),
            lengths: f.choice.lengths.clone(),
        }),
        Selection::Holdout => {
            // An onset kept explains the later units (its own warning says
            // so); the scores' first is then the onset's. A change that left
            // the stratum unsupported is told by that refusal, which says what
            // would settle it; this warning's carrying forward does not apply.
            let onset_kept = f.choice.plausible.contains(&Form::Onset);
            let regime = |b: &&FormScore| !onset_kept && !f.change_refused && regime_changed(b);
            if let Some(best) = f.choice.scores.first().filter(regime) {
                let units = f.options.advised_units(f.horizon);
                w.push(FitWarning::RegimeChange {
                    stratum: stratum(),
                    cut: select::holdout_cut(f.horizon),
                    horizon: f.horizon,
                    off_pct: (best.bias.exp() - 1.0) * 100.0,
                    settle_units: crate::model::longer_probe_units(units, f.horizon),
                });
            }
        }
    }
    let constant_ruled_out = !f.choice.plausible.contains(&Form::Constant);
    if f.choice.chosen != Form::Constant
        && (constant_ruled_out || f.choice.selection == Selection::TwoLengths)
        && f.trend_pct.abs() >= 5.0
    {
        w.push(FitWarning::SignificantTrend {
            stratum: stratum(),
            first_s: f.first_cost_s,
            last_s: f.last_cost_s,
            horizon: f.horizon,
            trend_pct: f.trend_pct,
        });
    }
    if let Some(wu) = slow_first_unit(f.points) {
        w.push(FitWarning::SlowFirstUnit {
            stratum: stratum(),
            first_s: wu.0,
            typical_s: wu.1,
        });
    }
    if f.runs == 1 {
        w.push(FitWarning::SpreadUnmeasured {
            stratum: stratum(),
            assumed_pct: f.options.spread_prior_sd * 100.0,
        });
    }
    if let Some(units) = f.options.units {
        if units > 5 * f.horizon {
            w.push(FitWarning::FarExtrapolation {
                stratum: stratum(),
                units,
                probed: f.horizon,
            });
        }
    }
    w
}

/// Fewest log units by which the best form may miss the probe's later units
/// before the miss counts as a change of regime (10%).
pub const REGIME_CHANGE_LOG_ERROR: f64 = 0.0953;

/// Whether even the best form, fitted on the early units, missed the later
/// ones by more than [`REGIME_CHANGE_LOG_ERROR`] and by more than twice its
/// standard error: the later units follow no form calib fits (a cache
/// outgrown, a phase of the program, a change on the node), so the runs'
/// current rates carry the change forward, but nothing tells whether it goes
/// on, stops or repeats.
fn regime_changed(best: &FormScore) -> bool {
    best.score.is_finite() && best.score > REGIME_CHANGE_LOG_ERROR && best.score > 2.0 * best.se
}

/// Whether even the best form, fitted on the early units, under-predicted
/// the later ones by more than twice its standard error, however little: a
/// rise the forms do not follow, which [`still_rising`] then judges. Below a
/// change of regime the bound carries the miss as the form error; that holds
/// for a miss that has settled, not for one still growing at the probe's end.
fn under_predicted(choice: &select::Choice) -> bool {
    choice.selection == Selection::Holdout
        && choice.scores.first().is_some_and(|best| {
            best.bias > 0.0 && best.score.is_finite() && best.score > 2.0 * best.se
        })
}

/// A curve's totals P(u) at the units of a stratum's rows: tabulated by unit
/// when the table is no longer than the rows (consecutive units, the common
/// case: one evaluation per unit instead of one per row of every run), else
/// evaluated at each row, so that gaps in unit numbers cost no memory. The
/// values are the evaluator's own either way.
struct CurveTotals<'e> {
    eval: &'e Evaluator<'e>,
    /// P(u) for u = 0..=horizon, or empty.
    table: Vec<f64>,
}

impl<'e> CurveTotals<'e> {
    fn new(eval: &'e Evaluator<'e>, runs: &[&RunTimings], horizon: u64) -> Self {
        let row_count: u64 = runs.iter().map(|r| r.points.len() as u64).sum();
        let table = if horizon <= row_count {
            (0..=horizon).map(|u| eval.total(u)).collect()
        } else {
            Vec::new()
        };
        CurveTotals { eval, table }
    }

    fn at(&self, u: u64) -> f64 {
        usize::try_from(u)
            .ok()
            .and_then(|i| self.table.get(i).copied())
            .unwrap_or_else(|| self.eval.total(u))
    }
}

/// Ratio (≤ 1) of the within-run residual variance to the pooled one for a fit
/// with unit rows: each run's intervals are compared with the curve scaled by
/// that run's own level (ln L_k = ln T_k / P(U_k)), over n - p - (K - 1) degrees
/// of freedom. None when it does not apply (one run, run-length rows, no
/// residual degrees of freedom). The curve's totals come from [`CurveTotals`].
fn within_run_ratio(fit: &CurveFit, runs: &[&RunTimings], horizon: u64, floor: f64) -> Option<f64> {
    let k = runs.len();
    if k < 2 || runs.iter().any(|r| r.points.len() < 2) {
        return None;
    }
    let curve = Curve::from(fit);
    let eval = Evaluator::new(&curve, horizon, floor);
    let totals = CurveTotals::new(&eval, runs, horizon);
    let total_at = |u: u64| totals.at(u);
    let (mut ss_within, mut ss_pooled, mut rows) = (0.0, 0.0, 0usize);
    for run in runs {
        let &(u_last, t_last) = run.points.last()?;
        let level = t_last / total_at(u_last);
        if !(level.is_finite() && level > 0.0) {
            return None;
        }
        // (unit, time, curve total) of the previous row; the startup term is
        // in every total, so it cancels except in the first interval.
        let mut prev = (0u64, 0.0f64, 0.0f64);
        for &(u, t) in &run.points {
            let total = total_at(u);
            // The weight of a one-unit interval is 1, without a division.
            let w = match u - prev.0 {
                1 => 1.0,
                units => 1.0 / units as f64,
            };
            let (y, e) = (t - prev.1, total - prev.2);
            ss_within += w * (y - level * e).powi(2);
            ss_pooled += w * (y - e).powi(2);
            rows += 1;
            prev = (u, t, total);
        }
    }
    // The form's parameters besides the startup, and the startup if fitted.
    let p = usize::from(fit.startup_fitted) + fit.form.param_count() - 1;
    let df_within = rows.checked_sub(p + k - 1).filter(|d| *d > 0)? as f64;
    let df_pooled = rows.checked_sub(p).filter(|d| *d > 0)? as f64;
    let ratio = (ss_within / df_within) / (ss_pooled / df_pooled);
    (ratio.is_finite() && ratio > 0.0).then_some(ratio.min(1.0))
}

/// (first unit's cost, median of units 2..=10) when the first is > 1.5x slower,
/// taken as medians over runs whose first row is unit 1.
fn slow_first_unit(points: &[Vec<(u64, f64)>]) -> Option<(f64, f64)> {
    let mut firsts = Vec::new();
    let mut nexts = Vec::new();
    for run in points {
        if run.len() >= 3 && run[0].0 == 1 {
            firsts.push(run[0].1);
            nexts.extend(run.iter().skip(1).take_while(|p| p.0 <= 10).map(|p| p.1));
        }
    }
    let (f, n) = (median(&firsts)?, median(&nexts)?);
    (f > 1.5 * n && n > 0.0).then_some((f, n))
}

/// "No unit rows" naming the inputs read (or saying that none was); also
/// `calib backtest`'s refusal of the same input.
pub(crate) fn no_unit_rows(sources: &[Origin]) -> Error {
    if sources.is_empty() {
        return Error::Refused(
            "no timings file was read (see the warnings above); expected files or folders of timings".into(),
        );
    }
    about_inputs(
        sources,
        "no unit rows found; expected timings with at least one completed unit",
    )
}

/// An error about what the timings read hold, naming them: the file when it
/// is one (bad input, exit 2), the first few when they are several, nothing
/// more when none is known (timings built in memory). The rows' own files
/// are not kept with the runs, so a stratum's error names every input.
fn about_inputs(sources: &[Origin], message: impl Into<String>) -> Error {
    let message = message.into();
    match sources {
        [] => Error::Refused(message),
        [one] => Error::input(one.clone(), None, message),
        many => {
            const NAMED: usize = 5;
            let mut names: Vec<String> = many.iter().take(NAMED).map(Origin::to_string).collect();
            if many.len() > NAMED {
                names.push(format!("and {} more", many.len() - NAMED));
            }
            Error::Refused(format!("{}: {message}", names.join(", ")))
        }
    }
}
