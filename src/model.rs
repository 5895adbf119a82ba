//! calib-model.json: the boundary between `calib fit`, which writes it, and
//! `calib budget`, which reads it.
//!
//! The file has its own versioned schema ([`SCHEMA`]). A file of another
//! schema is refused with a message to refit (or to upgrade calib, for a
//! newer one). Within a schema, fields may be added that older readers
//! ignore; anything that changes what a projection means bumps the schema
//! (2: the calibrated bound of [`crate::fit`]; 1 held fitted cost forms).
//!
//! # Fields
//!
//! The contract fields (design.md): `schema`, `calib_version`, `created_at`
//! (RFC 3339), and per stratum `stratum` (canonical labels), `runs`,
//! `units_probed`, `model` (the centre's shape: `power` or `linear`),
//! `params`, `fingerprint` (`clusters`, `cpu_models`, `hosts`,
//! `partitions`, `measured_from`, `measured_to`) and `warnings`. The rest is what a
//! projection needs ([`crate::fit::centre`]):
//!
//! | field | meaning | valid |
//! |---|---|---|
//! | `params` | `{exponent}` of c(i) ∝ i^b for `power`; `{intercept, slope}` of c(i) ∝ a + g·i for `linear` | b in 0..=3; a, g ≥ 0, not both 0 |
//! | `probe_runs` | per probe run `{units, elapsed_s, scale, startup_s}`: its length, its time there, its multiplier of the shape, its startup | units ≥ 1; elapsed ≥ 0; scale > 0; startup ≥ 0; all finite |
//! | `unsupported` | `null`, or `{reason}` (`one_unit`, `resolution`): why the probe shows no per-unit signal ([`NoSignal`]); then `probe_runs` is empty | |
//!
//! A file that breaks any of these is refused on load (exit 2), with the
//! stratum and the field named. `calib fit` checks what it writes with the
//! same rules, so what it writes always loads.

pub(crate) mod check;
mod json;

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::calibrate::{Bound, Shortfall, Table};
use crate::error::{Error, Origin, Result};
use crate::fit::centre::{Centre, Group, NoSignal};
use crate::output::factor;

pub use check::Defect;

/// The version of the model file layout this calib writes and reads.
pub const SCHEMA: u32 = 2;

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
    /// Start of the latest run measured (RFC 3339), when the files say.
    #[serde(default)]
    pub measured_to: Option<String>,
}

impl ModelFingerprint {
    /// Seconds between the first and the last run's start, when the files
    /// say both.
    pub fn started_within(&self) -> Option<f64> {
        let parse = |t: &Option<String>| chrono::DateTime::parse_from_rfc3339(t.as_deref()?).ok();
        let (from, to) = (parse(&self.measured_from)?, parse(&self.measured_to)?);
        Some((to - from).num_milliseconds() as f64 / 1000.0).filter(|s| *s >= 0.0)
    }
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
    /// The probe's centre, or why it shows no per-unit signal.
    pub centre: std::result::Result<Centre, NoSignal>,
    pub fingerprint: ModelFingerprint,
    pub warnings: Vec<String>,
}

/// Why `calib budget` gives a stratum no time (status `unsupported`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "reason", content = "detail", rename_all = "snake_case")]
pub enum Unsupported {
    /// The probe shows no per-unit signal.
    NoSignal(NoSignal),
    /// The calibration has too few programs with probes like this one.
    FewPrograms { programs: f64 },
}

impl Unsupported {
    /// What the probe or the calibration lacks, and what would settle it,
    /// for a run of `units` units probed to `probe_units`.
    pub fn explain(&self, units: u64, probe_units: u64) -> String {
        let longer = longer_probe_units(units, probe_units);
        match self {
            Unsupported::NoSignal(NoSignal::OneUnit) => format!(
                "unsupported: no run of the probe has two units, so no per-unit cost was measured; probe 3 runs to at least {longer} units (calib probe --units {longer}) and fit again"
            ),
            Unsupported::NoSignal(NoSignal::Resolution) => format!(
                "unsupported: the probe's units took less time than the timer resolves, so their cost is lost in startup and noise; probe to at least {longer} units (calib probe --units {longer}), or make a unit a larger piece of work, and fit again"
            ),
            Unsupported::FewPrograms { programs } => format!(
                "unsupported: the calibration holds probes like this one (as long, as flat or rising, extrapolated about {} their length) from only {programs:.1} programs, fewer than the {} a factor needs; probe to at least {longer} units (calib probe --units {longer}), or add your own campaigns (calib calibrate, then --calibration)",
                factor(units as f64 / probe_units.max(1) as f64, 0),
                crate::calibrate::MIN_PROGRAMS
            ),
        }
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

/// A projected new run of a stratum.
#[derive(Debug, Clone, PartialEq)]
pub struct Projection {
    pub units: u64,
    /// Central projection of a new run, startup included.
    pub predicted_s: f64,
    /// The measured cost: the projection for the most expensive run observed.
    pub floor_s: f64,
    /// Upper end of a one-sided prediction interval at `confidence`.
    pub upper_s: f64,
    pub confidence: f64,
    /// The calibrated bound, when the probe and the calibration support one.
    pub bound: Option<Bound>,
    /// Why they do not, when they do not: then `upper_s` is the floor, a
    /// guess.
    pub unsupported: Option<Unsupported>,
    /// What the bound rests on.
    pub notes: Vec<crate::note::Note>,
}

impl StratumModel {
    /// The stratum as people read it: `(all)` for the empty one.
    pub fn display_name(&self) -> &str {
        crate::stratum::display_name(&self.stratum)
    }

    /// The centre's shape, by name (`none` without a per-unit signal).
    pub fn form_name(&self) -> &'static str {
        match &self.centre {
            Ok(c) => c.shape.name(),
            Err(_) => "none",
        }
    }

    /// The longest probed run, in units.
    pub fn probe_units(&self) -> u64 {
        self.centre
            .as_ref()
            .map_or(self.units_probed.min(1), |c| c.probe_units())
    }

    /// The probe's group in the calibration, when it has a centre.
    pub fn group(&self) -> Option<Group> {
        self.centre.as_ref().ok().map(Centre::group)
    }

    /// The per-unit cost at `unit` at the median run's pace, startup apart.
    pub fn unit_cost_s(&self, unit: u64) -> f64 {
        self.centre.as_ref().map_or(0.0, |c| c.unit_cost_s(unit))
    }

    /// The median run's startup, seconds.
    pub fn startup_s(&self) -> f64 {
        self.centre.as_ref().map_or(0.0, Centre::startup_s)
    }

    /// Checks the rules of the model file (see the module docs).
    pub fn check(&self) -> std::result::Result<(), Defect> {
        check::stratum(self)
    }

    /// Projects a new run of `units` units at a one-sided `confidence`,
    /// calibrated by `table`.
    pub fn project(&self, units: u64, confidence: f64, table: &Table) -> Projection {
        let centre = match &self.centre {
            Ok(centre) => centre,
            Err(why) => {
                return Projection {
                    units,
                    predicted_s: 0.0,
                    floor_s: 0.0,
                    upper_s: 0.0,
                    confidence,
                    bound: None,
                    unsupported: Some(Unsupported::NoSignal(*why)),
                    notes: Vec::new(),
                }
            }
        };
        let (predicted_s, floor_s) = centre.project(units);
        let mut projection = Projection {
            units,
            predicted_s,
            floor_s,
            upper_s: floor_s,
            confidence,
            bound: None,
            unsupported: None,
            notes: Vec::new(),
        };
        match table.bound(centre, units, confidence) {
            Ok(bound) => {
                projection.upper_s = bound.upper_s;
                projection
                    .notes
                    .push(self.margin_note(&bound, centre, units));
                projection.bound = Some(bound);
            }
            Err(Shortfall::FewPrograms { programs }) => {
                projection.unsupported = Some(Unsupported::FewPrograms { programs })
            }
        }
        projection
    }

    /// What the margin over the prediction is made of.
    fn margin_note(&self, bound: &Bound, centre: &Centre, units: u64) -> crate::note::Note {
        let k = centre.probe_units();
        crate::note::Note::Margin {
            margin: bound.upper_s / bound.predicted_s.max(f64::MIN_POSITIVE),
            seeds: (self.runs >= 2).then_some((bound.seed_margin(), self.runs)),
            extrapolation: bound.extrapolation_margin(),
            group: bound.group.name().to_string(),
            distance: (units > k).then(|| units as f64 / k as f64),
            programs: bound.factor.programs,
            started_within_s: self.fingerprint.started_within(),
        }
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
        check::file(self).err()
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
    /// memory a second time as text.
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
        assert_eq!(ModelFile::load(&path).unwrap(), model);
    }
}
