//! calib-model.json: the boundary between `calib fit`, which writes it, and
//! `calib budget`, which reads it.
//!
//! The file has its own versioned schema ([`SCHEMA`]). A file of a newer schema
//! is refused with a message to upgrade calib; a file without one predates the
//! schema and is refused with a message to refit. Within a schema, fields may be
//! added that older readers ignore; anything that changes what a projection
//! means bumps the schema.
//!
//! # Fields
//!
//! The contract fields (design.md): `schema`, `calib_version`, `created_at`
//! (RFC 3339), and per stratum `stratum` (canonical labels), `runs`,
//! `units_probed`, `model` (the chosen cost form: `constant`, `linear`, `log`,
//! `power`, `geometric` or `onset`), `params`, `fingerprint` (`clusters`,
//! `cpu_models`, `hosts`, `partitions`, `measured_from`) and `warnings`.
//!
//! `params` are the chosen form's parameters, and a projection uses exactly
//! these: `startup_s` (seconds before the first unit's own work, ≥ 0), `a` and,
//! except for `constant`, `b`, and `h` for `onset` alone, in c(i) = a,
//! a + b·i, a + b·ln i, a·i^b (b within -1..=3 for `power`), a·e^{b(i-1)} or
//! a + h·e^{b(i-1)} ([`crate::forms`]). The per-unit cost at the longest
//! probed run must be positive. Everything else a projection needs is stated
//! too, each documented where the [`crate::projection`] types define it:
//!
//! | field | meaning | valid |
//! |---|---|---|
//! | `schema` | the version of this layout | [`SCHEMA`] |
//! | `fit` | `{covariance, df}` of the chosen form's parameters: covariance over `startup_s, a[, b[, h]]` in that order, and the fit's residual degrees of freedom; `null` when the fit had none | finite, symmetric, variances ≥ 0, correlations within ±1; df ≥ 1 |
//! | `weight` | the chosen form's weight in the model average (its holdout score's) | 0 to 1; with the alternatives', sums to 1 |
//! | `alternatives` | the other forms the probe cannot rule out, each `{model, params, fit, weight}`; the bound averages them in by weight, with their disagreement as a stated term ([`crate::projection`]) | as the chosen form; each form once |
//! | `probe_units` | the longest probed run, in units (H) | 1 ≤ H, H ≤ `units_probed` ≤ `runs`·H |
//! | `min_unit_cost_s` | the smallest per-unit cost a projection counts | finite, > 0 |
//! | `spread` | `{mean_ln_level, max_ln_level, sd, df, prior_sd, mean_ln_rate, rate_sd, rate_df, growth, deviations, pooled_strata}`: run levels on the log scale, the sd of a new run's level with its degrees of freedom, the sd assumed before any run, the same of the runs' current rates, the growth exponent of rate differences beyond the probe, each run's (log level, log rate), and how many strata the priors pooled ([`crate::projection::RunSpread`]) | finite; max ≥ mean; sds from 0 to 13.8; df ≥ 1 |
//! | `unsupported` | why the probe can support no bound, `{reason, ...}` ([`Unsupported`]), or `null` | as its variant |
//! | `spread.runs_at_horizon` | the runs whose probe reached the last quarter of the longest (R_H), which a new run's predictive factor 1 + 1/R_H counts. Optional (added within schema 1; written only when fewer than `runs`; absent: all runs) | 1 ≤ R_H ≤ `runs` |
//! | `extrapolation_kappa` | log-sd added to the bound per e-fold beyond H | finite, 0 to 13.8 |
//! | `form_error` | log-sd added to the bound once beyond H: how far the chosen form, fitted on the probe's early units, under-predicted its later ones, net of that score's noise (ε in [`crate::projection`]). Optional (added within schema 1; written only when positive; absent: 0) | finite, 0 to 13.8 |
//! | `selection` | how the form was chosen (for the record; projections do not use it) | |
//! | `resolution` | `{unit_noise, sxx, df, runs}`: how large a trend the probe's unit-to-unit noise could hide ([`TrendResolution`]); the bound counts one standard error of that trend for the constant form (V_trend in [`crate::projection`]), and `calib budget` refuses a run so long that such a trend would make it more than [`MAX_HIDDEN_GROWTH`] longer again. Optional (added within schema 1; absent: no trend counted or checked) | finite; noise ≥ 0, sxx > 0, df ≥ 1, runs ≥ 1 |
//! | `convex_alternative` | `{params}`: a cost bending upward from a base, c(i) = a + h·i^b (form `base_power`, b = 2), that the probe could not rule out beside a chosen form growing no faster than a power law (`crate::fit`). No bound averages it in; `calib budget` notes what a run would take under it. Optional (added within schema 1; written only where there is one) | as a curve of the form `base_power` (b within 1..=4); h > 0 |
//!
//! A file that breaks any of these is refused on load (exit 2), with the
//! stratum and the field named. `calib fit` checks what it writes with the same
//! rules, so what it writes always loads.

pub(crate) mod check;
mod json;

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Origin, Result};
use crate::forms::Form;
use crate::output::{factor, human_duration, percent};
pub use crate::projection::TrendResolution;
use crate::projection::{Curve, Evaluator, ProjectionParams, Projector};

pub use check::Defect;

/// The version of the model file layout this calib writes and reads.
pub const SCHEMA: u32 = 1;

/// A model file: one fitted model per stratum.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "json::FileJson")]
pub struct ModelFile {
    pub calib_version: String,
    /// RFC 3339.
    pub created_at: String,
    pub strata: Vec<StratumModel>,
}

/// The machines a stratum was measured on.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct ModelFingerprint {
    pub clusters: Vec<String>,
    pub cpu_models: Vec<String>,
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default)]
    pub partitions: Vec<String>,
    /// Date of the earliest run measured (RFC 3339), when the files say.
    #[serde(default)]
    pub measured_from: Option<String>,
}

/// The model of one stratum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "json::StratumJson", into = "json::StratumJson")]
pub struct StratumModel {
    /// Canonical labels, `dataset=Y,model=7B`.
    pub stratum: String,
    pub runs: usize,
    /// Unit completions measured, summed over runs.
    pub units_probed: u64,
    /// What projections use: `model` and `params` are `projection.chosen`.
    pub projection: ProjectionParams,
    pub fingerprint: ModelFingerprint,
    pub warnings: Vec<String>,
    /// How the form was chosen, when the file says.
    pub selection: Option<SelectionRecord>,
    /// Why the probe cannot support a bound at all, when it cannot: `calib
    /// budget` then gives no time for the stratum (status `unsupported`).
    pub unsupported: Option<Unsupported>,
    /// A cost bending upward on its base, c(i) = a + h*i^2 (the form
    /// `base_power` at b = 2), that the probe could not rule out: recorded
    /// where the probe's unit costs rose, the chosen form was linear, log or a
    /// power law, and this form predicted the probe's later units about as
    /// well as the chosen one (`crate::fit`, "convex alternative"). Projections
    /// do not average it in; `calib budget` states what it would take.
    pub convex_alternative: Option<Curve>,
}

/// What a probe showed that no bound can be built on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Unsupported {
    /// The units took only this share of the probe's time (the rest was
    /// startup): their cost is lost in startup and noise.
    StartupDominated { unit_share: f64 },
    /// Per-unit cost multiplied by about this factor per unit along the probe,
    /// and the probe could not tell geometric growth from polynomial growth
    /// (too short for a holdout, or both extrapolated its later units alike).
    Geometric { factor_per_unit: f64 },
    /// The probe's later units took this much more (0.25: 25%) than every
    /// form fitted on its earlier units predicted, and the onset form (a part
    /// that multiplies per unit) explained that rise, but no better than a
    /// part growing as a power of the unit: two continuations orders of
    /// magnitude apart, which the probe does not decide.
    TakeoffUndecided { excess: f64 },
    /// The probe's later units took this much more than the best form fitted
    /// on its earlier units predicted, more than [`MAX_HIDDEN_GROWTH`] (a
    /// doubling), and no form calib fits, the onset included, explained it:
    /// the forms describe nothing of where the cost is going.
    RiseUnexplained { excess: f64 },
    /// The probe's later units took this much more than the best form fitted
    /// on its earlier units predicted, no form calib fits explained it, and
    /// the cost was still rising against every form at the end of the probe,
    /// by `rise_per_unit` (0.02: 2% of the cost per unit): not a step that
    /// the runs' current rates carry forward, and nothing says where it stops.
    RiseGoesOn { excess: f64, rise_per_unit: f64 },
    /// The longest probed run has too few units to show any trend, and the
    /// run to budget is many times longer (decided per request, never stored).
    ProbeTooShort { probe_units: u64 },
    /// A rising trend the probe's unit-to-unit noise cannot rule out would
    /// make the requested run more than [`MAX_HIDDEN_GROWTH`] longer again;
    /// `settle_units` is the probe length that would rule it out (decided per
    /// request, never stored).
    TrendUnresolved {
        hidden_growth: f64,
        unit_noise: f64,
        settle_units: u64,
    },
    /// Under [`BendPolicy::Refuse`] (`--refuse-bend`): the probe could not
    /// rule out a cost bending upward on its base (the convex alternative),
    /// under which the run would take `convex_s`, beyond the bound `upper_s`
    /// (decided per request, never stored).
    BendBeyondBound { convex_s: f64, upper_s: f64 },
}

/// What the convex alternative is, in the words every warning, note and
/// refusal about it uses.
pub const BEND_NOT_RULED_OUT: &str = "a cost bending upward on its base (c(i) = a + h*i^2) predicted the probe's later units about as well as the chosen form";

/// What a time for a run does with a bend the probe could not rule out (the
/// model's convex alternative) that would take longer than the bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BendPolicy {
    /// Give the bound, with a note saying what the bend would take.
    #[default]
    Note,
    /// Give no time: the stratum is unsupported ([`Unsupported::BendBeyondBound`]).
    Refuse,
}

impl BendPolicy {
    /// The policy of the `--refuse-bend` flag, set or not.
    pub fn from_flag(refuse_bend: bool) -> Self {
        if refuse_bend {
            BendPolicy::Refuse
        } else {
            BendPolicy::Note
        }
    }
}

/// A rising trend the probe could hide may add at most this share of a run at
/// the probe's level (1: the run could take twice as long) before `calib
/// budget` refuses to extrapolate. Chosen once, a priori: a bound that must
/// allow a doubling nobody measured asks for an allocation that is mostly a
/// guess, and a longer probe settles it (the refusal says how long). Checked
/// on the corpus of real programs (README, "Evidence"): at 0.5 the refusals
/// grow without fewer misses; at 2 the 10%-of-N probes of a genetic program
/// are budgeted and one held-out run is not covered.
pub const MAX_HIDDEN_GROWTH: f64 = 1.0;

/// The refusal a trend resolution decides (its figures and the standard
/// error's share of the bound are in [`crate::projection`]).
impl TrendResolution {
    /// The largest slope, per unit and relative to the level, that the probe
    /// cannot rule out at one-sided `confidence`, were its `sxx` as given.
    fn hidden_slope(&self, sxx: f64, confidence: f64) -> f64 {
        crate::projection::t_quantile(confidence, self.df) * self.unit_noise / sxx.sqrt()
    }

    /// Σ (i - ī)² of one run's units 2..=k.
    fn run_sxx(k: u64) -> f64 {
        let m = k.saturating_sub(1) as f64;
        m * (m * m - 1.0) / 12.0
    }

    /// Why a run of `units` units is beyond what a probe of `probe_units`
    /// units can resolve, if it is.
    pub fn unresolved(&self, probe_units: u64, units: u64, confidence: f64) -> Option<Unsupported> {
        let hidden = Self::growth_at(self.hidden_slope(self.sxx, confidence), probe_units, units);
        if hidden.is_nan() || hidden <= MAX_HIDDEN_GROWTH {
            return None;
        }
        // The same runs probed to k units: Σ (i - ī)² grows as one run's does.
        let per_run = Self::run_sxx(probe_units).max(f64::MIN_POSITIVE);
        let settles = |k: u64| {
            let sxx = self.sxx * Self::run_sxx(k) / per_run;
            Self::growth_at(self.hidden_slope(sxx, confidence), k, units) <= MAX_HIDDEN_GROWTH
        };
        // The hidden growth falls as k rises (more units, a shorter distance),
        // and is 0 at k = N: bisect for the first k that settles it.
        let (mut lo, mut hi) = (probe_units, units);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if settles(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(Unsupported::TrendUnresolved {
            hidden_growth: hidden,
            unit_noise: self.unit_noise,
            settle_units: hi,
        })
    }
}

/// Fewest units in the longest probed run for `calib fit` to test how its
/// forms extrapolate (fit on the early units, score on the later ones: see
/// `crate::fit::select`). Below it no form's extrapolation was tested, and no
/// run more than [`MAX_BLIND_EXTRAPOLATION`] times longer is budgeted. Seen on
/// the corpus of real programs: a database whose 6-unit probes were flat went
/// on to cost 2-3 times as much per unit once its indexes outgrew the page
/// cache, at unit 8 of 50; no probe of 6 units can show that.
pub const MIN_TREND_UNITS: u64 = 10;
/// How many times its own length a probe too short for that test may be
/// extrapolated.
pub const MAX_BLIND_EXTRAPOLATION: u64 = 4;

impl StratumModel {
    /// Why the probe cannot support a bound at `confidence` for a run of
    /// `units` units, if it cannot: what the fit found, a probe too short for
    /// the distance, or a trend its noise could hide that the distance would
    /// make decisive.
    pub fn support(&self, units: u64, confidence: f64) -> Option<Unsupported> {
        let h = self.projection.probe_units;
        self.unsupported
            .or_else(|| {
                (h < MIN_TREND_UNITS && units > h.saturating_mul(MAX_BLIND_EXTRAPOLATION))
                    .then_some(Unsupported::ProbeTooShort { probe_units: h })
            })
            .or_else(|| {
                self.projection
                    .resolution
                    .and_then(|r| r.unresolved(h, units, confidence))
            })
    }

    /// Why no time is given for the run `projection` sizes, under `policy`:
    /// the probe's own limits ([`StratumModel::support`]), then, when the
    /// policy refuses it, a bend the probe could not rule out that would take
    /// longer than the bound.
    pub fn support_under(
        &self,
        projection: &Projection,
        policy: BendPolicy,
    ) -> Option<Unsupported> {
        self.support(projection.units, projection.confidence)
            .or_else(|| match policy {
                BendPolicy::Note => None,
                BendPolicy::Refuse => projection
                    .convex_s
                    .filter(|&convex_s| convex_s > projection.upper_s)
                    .map(|convex_s| Unsupported::BendBeyondBound {
                        convex_s,
                        upper_s: projection.upper_s,
                    }),
            })
    }
}

/// The length of the one longer probe run that calib's advice names, for a
/// run of `units` units probed to `probe_units`: a quarter of the run or four
/// times the probe, whichever is longer, at most the run itself.
pub fn longer_probe_units(units: u64, probe_units: u64) -> u64 {
    units
        .div_ceil(4)
        .max(probe_units.saturating_mul(4))
        .min(units)
}

impl Unsupported {
    /// What the probe showed, and the probe that would settle it for a run of
    /// `units` units probed to `probe_units`.
    pub fn explain(&self, units: u64, probe_units: u64) -> String {
        let longer = longer_probe_units(units, probe_units);
        match self {
            Unsupported::StartupDominated { unit_share } => format!(
                "unsupported: the probe's units took {} of its time, the rest was startup, so their cost cannot be told from noise; probe at least one run to {longer} units (calib probe --units {longer}) and fit again",
                percent(*unit_share, 0)
            ),
            Unsupported::ProbeTooShort { probe_units } => format!(
                "unsupported: the longest probed run has {probe_units} unit(s), too few for calib to test how the cost per unit extrapolates (it fits the early units of a probe and checks the later ones, from {MIN_TREND_UNITS} units on), and the run is {} longer; probe at least one run to {MIN_TREND_UNITS} units (calib probe --units {MIN_TREND_UNITS}) and fit again",
                factor(units as f64 / (*probe_units).max(1) as f64, 0)
            ),
            Unsupported::TrendUnresolved {
                hidden_growth,
                unit_noise,
                settle_units,
            } => format!(
                "unsupported: the probe's unit costs scatter by {} around each run's trend, so a rising trend too small to see in {probe_units} units could make a {units}-unit run {} as long as one at the probe's level; probe the runs to at least {settle_units} units (calib probe --units {settle_units}) and fit again",
                percent(*unit_noise, 0),
                factor(1.0 + hidden_growth, 1)
            ),
            Unsupported::TakeoffUndecided { excess } => format!(
                "unsupported: the probe's later units took {} more than the best cost form fitted on its earlier units predicted, and the probe cannot tell whether the rising part multiplies per unit or grows as a power of the unit (quadratic, cubic), projections orders of magnitude apart at {units} units; probe at least one run to {longer} units (calib probe --units {longer}) and fit again",
                percent(*excess, 0)
            ),
            Unsupported::RiseUnexplained { excess } => format!(
                "unsupported: the probe's later units took {} what the best cost form fitted on its earlier units predicted, and no form calib fits follows that rise, so nothing says where it goes at {units} units; probe at least one run to {longer} units (calib probe --units {longer}) and fit again",
                factor(1.0 + excess, 1)
            ),
            Unsupported::RiseGoesOn {
                excess,
                rise_per_unit,
            } => format!(
                "unsupported: the probe's later units took {} more than the best cost form fitted on its earlier units predicted, no form calib fits follows that rise, and at the end of the probe the cost per unit was still rising, {} per unit faster than the fitted form, so it is not a step that the runs' current rates carry forward, and nothing says where it stops before {units} units; probe at least one run to {longer} units (calib probe --units {longer}) and fit again",
                percent(*excess, 0),
                percent(*rise_per_unit, 1)
            ),
            // Only --refuse-bend decides this (calib budget, whose notes always
            // carry the bend's own note with the probe that settles it, so the
            // refusal does not say it twice; calib backtest shows no text).
            Unsupported::BendBeyondBound { convex_s, upper_s } => format!(
                "unsupported (--refuse-bend): the cost may bend upward beyond the probe (its note below names the probe that settles it), and then the run would take {}, {} the bound ({}); --refuse-bend gives no time there",
                human_duration(*convex_s),
                factor(convex_s / upper_s, 1),
                human_duration(*upper_s)
            ),
            Unsupported::Geometric { factor_per_unit } => format!(
                "unsupported: per-unit cost multiplied by about {} per unit along the probe, and the probe cannot tell geometric growth (iterative deepening, an expanding search: every unit multiplies the time) from a cost that rises by a fixed amount, two projections orders of magnitude apart; probe at least one run to {longer} units (calib probe --units {longer}) and fit again, or measure whole runs at several lengths (calib probe --lengths)",
                factor(*factor_per_unit, 2)
            ),
        }
    }
}

/// How `calib fit` chose the form (a record; projections do not use it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectionRecord {
    pub method: SelectionMethod,
    /// The best-scoring form after the chosen one.
    pub runner_up: Option<Form>,
    /// Extrapolation scores, best first (holdout only).
    #[serde(default)]
    pub scores: Vec<ScoreRecord>,
}

/// How the form was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionMethod {
    /// Fitted on the early part of the probe, scored on the later part.
    Holdout,
    /// Too short a probe for a holdout: constant, with linear kept plausible.
    ProbeTooShort,
    /// Run-length rows at two lengths: the power law through them.
    TwoLengths,
    /// Run-length rows at one length: a constant rate.
    OneLength,
}

/// The extrapolation score of one form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreRecord {
    pub model: Form,
    /// |mean log error| predicting the later part; `null` when the form
    /// predicted no positive duration for it (it cannot be scored).
    pub score: Option<f64>,
    pub se: Option<f64>,
    pub bias: Option<f64>,
    pub plausible: bool,
}

/// A projected new run of a stratum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    pub units: u64,
    /// Central projection of a new run, startup included.
    pub predicted_s: f64,
    /// The measured cost: the projection for the most expensive run observed.
    pub floor_s: f64,
    /// Upper end of a one-sided prediction interval at `confidence`.
    pub upper_s: f64,
    pub confidence: f64,
    /// What widened or limited the bound, in words.
    pub notes: Vec<String>,
    /// What the run would take under a bend the probe could not rule out
    /// (the model's convex alternative), when there is one and the run goes
    /// beyond the probe: a sign that the bound may be short.
    pub convex_s: Option<f64>,
}

impl StratumModel {
    /// The chosen cost form.
    pub fn form(&self) -> Form {
        self.projection.chosen.form
    }

    /// The best-scoring form after the chosen one, when the file records it.
    pub fn runner_up(&self) -> Option<Form> {
        self.selection.as_ref().and_then(|s| s.runner_up)
    }

    /// The stratum as people read it: `(all)` for the empty one.
    pub fn display_name(&self) -> &str {
        crate::stratum::display_name(&self.stratum)
    }

    /// Checks the rules of the model file (see the module docs): what `calib
    /// fit` writes, and what `calib budget` reads, follows them.
    pub fn check(&self) -> std::result::Result<(), Defect> {
        check::stratum(self)
    }

    /// Projects a new run of `units` units at a one-sided `confidence` in (0, 1).
    pub fn project(&self, units: u64, confidence: f64) -> Projection {
        let bounds = Projector::new(&self.projection).project(units, confidence);
        let convex_s = self
            .convex_alternative_s(units)
            .filter(|_| units > self.projection.probe_units);
        Projection {
            units,
            predicted_s: bounds.predicted_s,
            floor_s: bounds.floor_s,
            upper_s: bounds.upper_s,
            confidence,
            notes: self.notes(units, convex_s, bounds.predicted_s, bounds.upper_s),
            convex_s,
        }
    }

    /// The central projection alone (cheaper than [`StratumModel::project`]).
    pub fn predicted_s(&self, units: u64) -> f64 {
        Projector::new(&self.projection).predicted(units)
    }

    /// The chosen form's per-unit cost at `unit` at the mean run level, with
    /// the projection's guards: what a unit costs, startup apart.
    pub fn unit_cost_s(&self, unit: u64) -> f64 {
        Projector::new(&self.projection).unit_cost(unit as f64) * self.mean_level()
    }

    /// The startup at the mean run level, seconds.
    pub fn startup_s(&self) -> f64 {
        self.projection.chosen.params.startup.max(0.0) * self.mean_level()
    }

    /// The mean run level relative to the curve (a factor, ≈ 1).
    pub fn mean_level(&self) -> f64 {
        self.projection.spread.mean_ln_level.exp()
    }

    /// What a run of `units` units would take at the runs' mean level if
    /// its cost bent upward as the convex alternative does, when the model
    /// records one (seconds).
    pub fn convex_alternative_s(&self, units: u64) -> Option<f64> {
        let curve = self.convex_alternative.as_ref()?;
        let p = &self.projection;
        let eval = Evaluator::new(curve, p.probe_units, p.min_unit_cost_s);
        Some(eval.total(units) * self.mean_level()).filter(|s| s.is_finite())
    }

    /// The notes on a run of `units` units: `convex_s` what it would take
    /// under the convex alternative (beyond the probe), beside `predicted_s`
    /// and `upper_s`.
    fn notes(
        &self,
        units: u64,
        convex_s: Option<f64>,
        predicted_s: f64,
        upper_s: f64,
    ) -> Vec<String> {
        let params = &self.projection;
        let mut notes = Vec::new();
        let h = params.probe_units.max(1);
        if units > h {
            notes.push(format!(
                "extrapolated {} beyond the longest probed run ({}); the bound widens with the distance",
                factor(units as f64 / h as f64, 1),
                crate::output::count(h, "unit", "units")
            ));
            if params.form_error > 0.0 {
                notes.push(format!(
                    "fitted on the probe's early units, the cost form under-predicted its later ones by {} beyond the holdout's noise; the bound allows as much again beyond the probe",
                    percent(params.form_error.exp_m1(), 1)
                ));
            }
            let constant_weight = params.constant_weight();
            if let Some(r) = params.resolution.filter(|_| constant_weight > 0.0) {
                let growth = r.se_growth(h, units);
                if growth >= 0.005 {
                    notes.push(format!(
                        "the probe's units scatter by {} around their trend, so it knows the slope to ±{} per unit (one standard error: {} of this run); the bound counts that for the constant form ({} of the average), which assumes no trend",
                        percent(r.unit_noise, 1),
                        percent(r.slope_se(), 2),
                        percent(growth, 0),
                        percent(constant_weight, 0)
                    ));
                }
            }
        }
        let spread = &params.spread;
        let prior = if spread.pooled_strata > 0 {
            format!(
                "the campaign's spread, pooled over {} strata and calib's prior",
                spread.pooled_strata
            )
        } else {
            format!("an assumed {}", percent(spread.prior_sd, 0))
        };
        if spread.runs <= 1 {
            notes.push(format!(
                "one run measured: spread between runs unmeasured, taken from {prior}"
            ));
        } else {
            notes.push(format!(
                "spread between {} runs: {} over the probe, {} in their current per-unit rates (log-sd, shrunk toward {prior})",
                spread.runs,
                percent(spread.sd, 1),
                percent(spread.rate_sd, 1),
            ));
        }
        if spread.runs_at_horizon < spread.runs {
            let (k, runs) = (spread.runs_at_horizon, spread.runs);
            let (those, known) = match k {
                1 => ("that run".to_string(), "1 run".to_string()),
                k => (format!("those {k}"), format!("{k} runs")),
            };
            notes.push(format!(
                "{k} of {runs} runs reached the last quarter of the longest probe ({h} units): beyond the others' reach the curve follows {those} alone, so the bound takes its centre as known from {known}, not {runs}"
            ));
        }
        if let Some(convex_s) = convex_s {
            notes.push(convex_note(units, h, convex_s, predicted_s, upper_s));
        }
        if !params.alternatives.is_empty() {
            notes.push(format!(
                "model average over the forms the probe cannot rule out (their disagreement widens the bound): {}",
                params
                    .curves()
                    .map(|c| format!("{} {}", c.form.name(), percent(c.weight, 0)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        notes
    }
}

/// The note on a convex alternative the probe could not rule out: what it
/// would take beside the projection, and the probe that would settle it.
fn convex_note(
    units: u64,
    probe_units: u64,
    convex_s: f64,
    predicted_s: f64,
    upper_s: f64,
) -> String {
    let head = format!(
        "the cost per unit rose along the probe, and {BEND_NOT_RULED_OUT}: at {units} units it would take {} (the projection: {}, the upper bound: {})",
        human_duration(convex_s),
        human_duration(predicted_s),
        human_duration(upper_s)
    );
    if convex_s <= upper_s {
        format!("{head}; the bound covers it")
    } else {
        let longer = longer_probe_units(units, probe_units);
        format!(
            "{head}, {} the bound, which does not cover it; the probe cannot tell whether the rise bends upward: probe one run to {longer} units (calib probe --units {longer}) and fit again to settle it",
            factor(convex_s / upper_s, 1)
        )
    }
}

/// Whether `bytes` are a calib model file (as `calib fit -o` writes it, of
/// any schema), for a reader of other inputs to say so.
pub(crate) fn is_model_file(bytes: &[u8]) -> bool {
    json::is_model_file(bytes)
}

impl ModelFile {
    /// Why this model cannot be used, if it cannot: the first stratum that
    /// breaks a rule of the schema, with the field named.
    pub fn defect(&self) -> Option<String> {
        check::file(self).err().map(|d| d.to_string())
    }

    /// Reads and checks a model file. Bad files are input errors (exit 2)
    /// naming the file, the stratum and the field; so is a file or stream
    /// over the bound of a model file ([`crate::limits::MODEL`]).
    pub fn load(path: &Path) -> Result<ModelFile> {
        let origin = Origin::file(path);
        let bounds = &crate::limits::MODEL;
        let bytes = crate::limits::read_file_bounded(path, "the model file", bounds)?;
        let text = crate::limits::into_text(bytes, &origin, bounds)?;
        json::parse(&text).map_err(|e| Error::input(origin, e.line, e.message))
    }

    /// Writes the model file at `path`, as `calib fit -o` does: atomically
    /// ([`crate::atomic`]), and streamed, so that the model is never held in
    /// memory a second time as text (a million strata make 2 GB of it).
    pub fn save(&self, path: &Path) -> Result<()> {
        self.save_within(path, crate::limits::MAX_MODEL_BYTES)
    }

    /// [`ModelFile::save`], refusing a file over `most` bytes.
    fn save_within(&self, path: &Path, most: u64) -> Result<()> {
        use crate::atomic::{write_file_with, IfExists};
        write_file_with(path, IfExists::Replace, |file, _| {
            let failed = |e| Error::io(format!("cannot write {}", path.display()), e);
            let mut out = std::io::BufWriter::new(&mut *file);
            self.write_json(&mut out).map_err(failed)?;
            out.flush().map_err(failed)?;
            drop(out);
            // A file calib budget would refuse to read is not written (the
            // target is left as it was).
            let written = file.metadata().map_err(failed)?.len();
            if written > most {
                return Err(Error::Refused(format!(
                    "the model of {} strata takes {} bytes, more than calib budget reads ({} MiB); \
                     fit the strata in parts (a folder or file each), one model file each",
                    self.strata.len(),
                    written,
                    most >> 20
                )));
            }
            Ok(())
        })
    }

    /// The file's text, as [`ModelFile::save`] writes it.
    pub fn to_json(&self) -> Result<String> {
        let mut bytes = Vec::new();
        self.write_json(&mut bytes)
            .map_err(|e| Error::Failed(format!("cannot encode the model: {e}")))?;
        String::from_utf8(bytes).map_err(|e| Error::Failed(format!("cannot encode the model: {e}")))
    }

    fn write_json(&self, out: &mut impl Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        out.write_all(b"\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A model calib budget would refuse to read is not written, and the file
    // at the target stays as it was.
    #[test]
    fn a_model_past_the_size_budget_reads_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("t.csv");
        std::fs::write(&csv, crate::synth::trend_case(20, 3, 1).0).unwrap();
        let timings = crate::timings::read_timings(&[csv], &Default::default()).unwrap();
        let model = crate::fit::fit_timings(&timings, &Default::default())
            .unwrap()
            .model;
        let path = dir.path().join("m.json");
        std::fs::write(&path, "before").unwrap();
        let e = model.save_within(&path, 1_000).unwrap_err();
        assert!(
            e.to_string().contains("more than calib budget reads"),
            "{e}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "before");
        model
            .save_within(&path, crate::limits::MAX_MODEL_BYTES)
            .unwrap();
        assert!(ModelFile::load(&path).is_ok());
    }
}
