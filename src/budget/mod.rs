//! From a fitted model and a partition list to one `--time` per stratum.
//!
//! For each stratum the model projects a new run of `units` units
//! ([`crate::model::Projection`]: central `predicted_s`, measured cost
//! `floor_s`, one-sided upper bound `upper_s` at `confidence`), and the
//! budgeting rule ([`rule`]) turns that into a time and a bucket. Never a global
//! walltime: each stratum gets its own time and its own array submission, so a
//! slow stratum does not drag the fast ones into a longer, scarcer bucket.

pub mod export;
pub mod grid;
pub mod plot;
pub mod rule;
pub(crate) mod summary;
pub mod transfer;

use crate::calibrate::Table;
use crate::error::{Error, Result};
use crate::model::{ModelFile, Projection, StratumModel, Unsupported};
use crate::note::{Note, SegmentWork, Segments};
use crate::output::human_duration;
use crate::slurm::partitions::Selection;
use crate::slurm::time::format_minutes;

pub use grid::{CellSize, Grid};
pub use rule::{Cap, Decision, Status};
pub use transfer::{Provenance, Target};

/// What the user asked for.
#[derive(Debug, Clone)]
pub struct BudgetOptions {
    /// Units per run for every stratum the grid does not size.
    pub units: Option<u64>,
    /// Tasks per stratum when the grid does not say.
    pub tasks: u64,
    pub grid: Option<Grid>,
    /// One-sided confidence of the upper bound, in (0, 1).
    pub confidence: f64,
    pub target: Target,
    pub allow_transfer: bool,
    /// Give a time even for strata whose probe cannot support one, labelled
    /// a guess (`--allow-guess`).
    pub allow_guess: bool,
    /// The cases the bound is calibrated on (`--calibration`, else calib's own).
    pub calibration: Table,
}

/// The measured basis of a stratum's budget, for the record next to `--time`.
#[derive(Debug, Clone, PartialEq)]
pub struct Basis {
    pub runs: usize,
    pub units_probed: u64,
    /// Longest probed run, in units.
    pub probe_units: u64,
    pub model: String,
    /// The first unit of the window the centre was fitted on (past half the
    /// probe).
    pub fit_from: u64,
    /// The fitted per-unit cost at `fit_from` and at the probe's last unit,
    /// at the median run's pace (startup apart): the model's, not a unit's
    /// as timed.
    pub(crate) rate_first_s: f64,
    pub(crate) rate_last_s: f64,
    /// The fitted startup (seconds before the first unit's own work).
    pub startup_s: f64,
    pub clusters: Vec<String>,
    pub cpu_models: Vec<String>,
    pub measured_from: Option<String>,
}

/// The budget of one stratum.
#[derive(Debug, Clone)]
pub struct StratumBudget {
    pub stratum: String,
    pub units: u64,
    pub tasks: u64,
    pub projection: Projection,
    pub decision: Decision,
    pub basis: Basis,
    /// Why the time is what it is, and what the user should know.
    pub notes: Vec<Note>,
}

impl StratumBudget {
    /// `--time` as Slurm parses it.
    pub fn time(&self) -> String {
        format_minutes(self.decision.minutes)
    }

    /// The `--time` value, or `None` when the stratum gets no time
    /// (`unsupported`).
    pub(crate) fn time_given(&self) -> Option<String> {
        (self.decision.status != Status::Unsupported).then(|| self.time())
    }
}

/// The whole campaign's budget.
#[derive(Debug, Clone)]
pub struct Budget {
    /// The global `--units`, when one was given.
    pub units: Option<u64>,
    pub confidence: f64,
    /// Which partitions were in play, in words.
    pub partitions: String,
    pub caps: Vec<Cap>,
    pub provenance: Provenance,
    pub target: Target,
    pub strata: Vec<StratumBudget>,
    /// Campaign-wide notes (partition list notes, provenance).
    pub notes: Vec<Note>,
}

impl Budget {
    /// Every note of the budget: each stratum's, then the campaign's.
    pub fn every_note(&self) -> impl Iterator<Item = &Note> {
        self.strata.iter().flat_map(|s| &s.notes).chain(&self.notes)
    }

    /// The strata given no usable single time (`over_cap`, `unsupported`):
    /// `calib budget` exits 3 when there is any.
    pub fn refused(&self) -> Vec<&StratumBudget> {
        self.strata
            .iter()
            .filter(|s| matches!(s.decision.status, Status::OverCap | Status::Unsupported))
            .collect()
    }
}

/// Budgets every stratum of `model` under the partitions of `selection`.
pub fn plan(model: &ModelFile, selection: &Selection, options: &BudgetOptions) -> Result<Budget> {
    // One-sided bounds below 50% would fall under the central projection.
    if !(options.confidence > 0.5 && options.confidence < 1.0) {
        return Err(Error::Refused(format!(
            "--confidence {} is outside (0.5, 1); use e.g. 0.9",
            options.confidence
        )));
    }
    options.calibration.check_confidence(options.confidence)?;
    if model.strata.is_empty() {
        return Err(Error::Refused(
            "the model has no strata; fit some timings first (calib fit DIR -o calib-model.json)"
                .into(),
        ));
    }
    if let Some(grid) = &options.grid {
        for (stratum, size) in &grid.sizes {
            if !model.strata.iter().any(|s| &s.stratum == stratum) {
                // A grid without stratum axes is one stratum, the empty
                // label: a probe without --stratum measures it.
                let (shown, probe) = if stratum.is_empty() {
                    (
                        "(all: the grid has no stratum axes)".to_string(),
                        "calib probe -- ...".to_string(),
                    )
                } else {
                    (
                        format!("`{stratum}`"),
                        format!(
                            "calib probe --stratum {} -- ...",
                            crate::shell::quote(stratum)
                        ),
                    )
                };
                let message = format!(
                    "the grid lists stratum {shown}, which the model has no measurement of; probe it first ({probe}). Measured strata: {}",
                    model.strata.iter().map(|s| crate::stratum::display_name(&s.stratum)).collect::<Vec<_>>().join(", ")
                );
                return Err(grid.refusal(size.line, message));
            }
        }
    }
    let strata_refs: Vec<&StratumModel> = model.strata.iter().collect();
    let provenance = transfer::check(&strata_refs, &options.target, options.allow_transfer)?;
    let caps: Vec<Cap> = selection
        .partitions
        .iter()
        .map(|p| Cap {
            partition: p.name.clone(),
            limit_s: p.limit.cap_seconds(),
        })
        .collect();
    if caps.is_empty() {
        return Err(Error::Refused(
            "no partition is in play; check --partitions and --partition-family/--partition-regex"
                .into(),
        ));
    }
    // Slurm counts --time in whole minutes, at least one: a cap under a minute
    // holds no task, nor any checkpoint segment.
    if caps.iter().all(|c| c.limit_s < 60.0) {
        return Err(Error::Refused(format!(
            "no partition in play allows a task of one minute ({}); Slurm counts --time in whole minutes. Check --partitions and --partition-family/--partition-regex",
            selection.description
        )));
    }
    let mut strata = Vec::with_capacity(model.strata.len());
    let mut left_out = Vec::new();
    for stratum in &model.strata {
        if let Some(grid) = options.grid.as_ref().filter(|g| g.whole_campaign) {
            if !grid.sizes.contains_key(&stratum.stratum) {
                left_out.push(stratum.stratum.as_str());
                continue;
            }
        }
        let listed = options
            .grid
            .as_ref()
            .and_then(|g| Some((g, g.sizes.get(&stratum.stratum)?)));
        let size = listed.map(|(_, size)| *size).unwrap_or(CellSize {
            units: None,
            tasks: None,
            line: None,
        });
        let units = size.units.or(options.units).ok_or_else(|| match listed {
            Some((grid, size)) => grid.refusal(
                size.line,
                format!(
                    "the grid gives stratum `{}` no units; give them there (a `units` value), or with --units N",
                    stratum.stratum
                ),
            ),
            None => Error::Refused(format!(
                "how many units should a run of stratum `{}` do? Give --units N, or a --grid row for it",
                stratum.stratum
            )),
        })?;
        let tasks = size.tasks.unwrap_or(options.tasks);
        strata.push(budget_stratum(stratum, units, tasks, &caps, options)?);
    }
    let mut notes = Vec::new();
    if strata
        .iter()
        .any(|s| s.decision.needs_a_longer_cap(s.projection.upper_s))
    {
        notes.extend(longer_partitions_note(selection));
    }
    notes.extend(shared_cap_notes(selection, &strata));
    if !left_out.is_empty() {
        notes.push(Note::LeftOut {
            strata: left_out.iter().map(|s| s.to_string()).collect(),
        });
    }
    match &provenance {
        Provenance::Estimate(text) => notes.push(Note::Estimate { what: text.clone() }),
        Provenance::Unchecked => notes.push(Note::ClusterUnknown),
        Provenance::Calibrated => {}
    }
    notes.push(Note::Partitions {
        text: selection.description.clone(),
    });
    notes.push(calibration_note(
        &options.calibration,
        options.confidence,
        &strata,
    ));
    Ok(Budget {
        units: options.units,
        confidence: options.confidence,
        partitions: selection.description.clone(),
        caps,
        provenance,
        target: options.target.clone(),
        strata,
        notes,
    })
}

/// Which calibration the bounds rest on, and how it did on its own programs
/// at the stated confidence, for the groups of probes in play.
fn calibration_note(table: &Table, confidence: f64, strata: &[StratumBudget]) -> Note {
    let groups: std::collections::BTreeSet<_> = strata
        .iter()
        .filter_map(|s| s.projection.bound.map(|b| b.group))
        .collect();
    Note::Calibration {
        source: table.source.clone(),
        programs: table.programs(),
        confidence,
        coverage: groups
            .into_iter()
            .map(|g| {
                let (covered, runs) = table.coverage(g, confidence);
                (g.name().to_string(), covered, runs)
            })
            .collect(),
    }
}

/// Where a run needs more than the partitions in play allow: the longer
/// partitions of the list that are not in play, and for each the flag that
/// adds it. calib adds none itself: another family may run other hardware or
/// refuse the job, and once in play its cap would route the job there.
pub(crate) fn longer_partitions_note(selection: &Selection) -> Option<Note> {
    let longer = selection.longer_left_out();
    if longer.is_empty() {
        return None;
    }
    Some(Note::LongerPartitions {
        longer: longer.iter().map(|p| p.to_string()).collect(),
        in_play: selection.partitions.len(),
        flags: longer
            .iter()
            .map(|p| {
                (
                    crate::shell::quote(&selection.regex_adding(p)),
                    p.name.clone(),
                )
            })
            .collect(),
    })
}

/// Where the partition a stratum got shares its cap with other partitions in
/// play: the rule takes the first listed (calib cannot tell them apart by
/// time), which may be a partition the user should not use (a `maintenance`
/// or `interactive` one listed first). One note per partition chosen, naming
/// the others and the strata sent there.
fn shared_cap_notes(selection: &Selection, strata: &[StratumBudget]) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut chosen: Vec<&str> = Vec::new();
    for budget in strata {
        if let Some(name) = budget.decision.partition.as_deref() {
            if !chosen.contains(&name) {
                chosen.push(name);
            }
        }
    }
    for name in chosen {
        let Some(partition) = selection.partitions.iter().find(|p| p.name == name) else {
            continue;
        };
        let same_cap: Vec<&str> = selection
            .partitions
            .iter()
            .filter(|p| p.name != name && p.limit == partition.limit)
            .map(|p| p.name.as_str())
            .collect();
        if same_cap.is_empty() {
            continue;
        }
        notes.push(Note::SharedCap {
            partition: name.to_string(),
            cap: partition.limit.to_string(),
            others: same_cap.iter().map(|p| p.to_string()).collect(),
            strata: strata
                .iter()
                .filter(|s| s.decision.partition.as_deref() == Some(name))
                .map(|s| s.stratum.clone())
                .collect(),
        });
    }
    notes
}

/// The largest cap of an `over_cap` note, as the rule compared it: in the
/// whole minutes Slurm allows under it (and the longest `--time` for an
/// unlimited one); a cap listed with seconds is named too, since a cost
/// between the two (44m 08s under 44:09) would otherwise read as fitting.
pub(crate) fn cap_words(decision: &rule::Decision) -> String {
    let usable_s = (decision.largest_usable_minutes() * 60) as f64;
    if decision.largest_cap_s.is_finite() && decision.largest_cap_s > usable_s {
        format!(
            "{}: {} as Slurm applies it, in whole minutes",
            human_duration(usable_s),
            human_duration(decision.largest_cap_s)
        )
    } else {
        human_duration(usable_s)
    }
}

/// Slurm's default `MaxArraySize` (slurm.conf): array indexes run from 0 to
/// one less. A site may raise it; calib does not know the cluster's value, so
/// a larger array is noted, not refused.
pub const SLURM_DEFAULT_MAX_ARRAY_SIZE: u64 = 1001;

fn budget_stratum(
    stratum: &StratumModel,
    units: u64,
    tasks: u64,
    caps: &[Cap],
    options: &BudgetOptions,
) -> Result<StratumBudget> {
    let projection = stratum.project(units, options.confidence, &options.calibration);
    let sane = |x: f64| x.is_finite() && x >= 0.0;
    let support = projection.unsupported;
    // A probe with no per-unit cost leaves nothing to guess from: only the
    // calibration's shortfall is guessed past (the measured cost, no margin).
    let no_signal = matches!(support, Some(Unsupported::NoSignal(_)));
    let allow_guess = options.allow_guess && !no_signal;
    let gives_time = support.is_none() || allow_guess;
    if gives_time
        && !(sane(projection.predicted_s) && sane(projection.floor_s) && sane(projection.upper_s))
    {
        // A checked model projects finite times; only a run far beyond the
        // probe can overflow them, which is a request calib cannot size.
        return Err(Error::Refused(format!(
            "the model of stratum {} gives no usable projection for {units} units (predicted {}, measured {}, upper {}); ask for fewer units, or probe longer runs",
            stratum.stratum, projection.predicted_s, projection.floor_s, projection.upper_s
        )));
    }
    // The rule counts segments without restart costs; a checkpointed run also
    // pays its startup again in every segment and loses the unit a kill
    // interrupts, both as large as the bound makes them.
    let restart = restart_costs(stratum, &projection);
    let mut decision = rule::decide(projection.floor_s, projection.upper_s, caps)
        .with_restart_costs(projection.upper_s, restart.startup_s, restart.unit_s);
    let mut support_note = None;
    if let Some(why) = support {
        let (units, probe_units) = (units, stratum.probe_units());
        if allow_guess {
            support_note = Some(Note::Guess {
                why,
                units,
                probe_units,
            });
        } else {
            decision = rule::Decision {
                minutes: 0,
                partition: None,
                status: Status::Unsupported,
                segments: None,
                largest_cap_s: decision.largest_cap_s,
            };
            support_note = Some(Note::Unsupported {
                why,
                units,
                probe_units,
                guess_possible: !no_signal,
            });
        }
    }
    let basis = basis_of(stratum);
    let mut notes = Vec::new();
    match decision.status {
        Status::RoundedDown => {
            notes.push(Note::RoundedDown {
                partition: decision.partition.clone().unwrap_or_default(),
                time: format_minutes(decision.minutes),
                given_up_s: projection.upper_s - decision.time_s() as f64,
                upper_s: projection.upper_s,
                above_floor_s: decision.time_s() as f64 - projection.floor_s,
                remainder: false,
            });
            if projection.upper_s > decision.largest_cap_s {
                notes.push(Note::MarginCut {
                    upper_s: projection.upper_s,
                    cap_s: decision.largest_cap_s,
                });
            }
        }
        Status::OverCap => notes.push(Note::OverCap {
            floor_s: projection.floor_s,
            cap: cap_words(&decision),
            segments: decision.segments.map(|count| Segments {
                count,
                time: format_minutes(decision.segment_minutes()),
                each: SegmentWork::Units {
                    units_each: units.div_ceil(count),
                },
            }),
            startup_s: restart.startup_s,
            unit_s: restart.unit_s,
            remainder: false,
        }),
        Status::Ok | Status::Unsupported => {}
    }
    if tasks > SLURM_DEFAULT_MAX_ARRAY_SIZE {
        notes.push(Note::ArrayTooLarge {
            last_index: tasks - 1,
            max: SLURM_DEFAULT_MAX_ARRAY_SIZE,
        });
    }
    notes.extend(support_note);
    notes.extend(projection.notes.iter().cloned());
    Ok(StratumBudget {
        stratum: stratum.stratum.clone(),
        units,
        tasks,
        projection,
        decision,
        basis,
        notes,
    })
}

/// What a restarted segment pays again: the startup, and up to the unit in
/// progress at its kill (the run's last, its costliest), both as large as
/// the bound makes the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RestartCosts {
    pub startup_s: f64,
    pub unit_s: f64,
}

/// [`RestartCosts`] of a run `projection` sizes.
pub fn restart_costs(stratum: &StratumModel, projection: &Projection) -> RestartCosts {
    let scale = (projection.upper_s / projection.predicted_s.max(f64::MIN_POSITIVE)).max(1.0);
    RestartCosts {
        startup_s: stratum.startup_s() * scale,
        unit_s: stratum.unit_cost_s(projection.units) * scale,
    }
}

/// What the model states about how the stratum was measured and what a unit
/// costs (the model's own figures: budget recomputes nothing the fit knew).
fn basis_of(stratum: &StratumModel) -> Basis {
    let probe_units = stratum.probe_units();
    Basis {
        runs: stratum.runs,
        units_probed: stratum.units_probed,
        probe_units,
        model: stratum.form_name().to_string(),
        fit_from: (probe_units / 2 + 1).max(2).min(probe_units),
        rate_first_s: stratum.unit_cost_s((probe_units / 2 + 1).max(2).min(probe_units)),
        rate_last_s: stratum.unit_cost_s(probe_units),
        startup_s: stratum.startup_s(),
        clusters: stratum.fingerprint.clusters.clone(),
        cpu_models: stratum.fingerprint.cpu_models.clone(),
        measured_from: stratum.fingerprint.measured_from.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::rule::{decide, Cap};

    #[test]
    fn an_over_cap_note_shows_the_cap_in_the_whole_minutes_it_was_compared_in() {
        // 44m 07.76s measured under a cap listed as 0:44:09: Slurm allows 44
        // minutes there, so the run is over the cap, and the note must not
        // show a cap above the cost.
        let cap = Cap {
            partition: "short".into(),
            limit_s: 44.0 * 60.0 + 9.0,
        };
        let decision = decide(2647.76, 3000.0, &[cap]);
        assert_eq!(decision.status, Status::OverCap);
        let head = cap_words(&decision);
        assert_eq!(
            head,
            "44m 00s: 44m 09s as Slurm applies it, in whole minutes"
        );
        // A cap of whole minutes is shown once; an unlimited one as the
        // longest --time.
        let whole = decide(
            7300.0,
            7400.0,
            &[Cap {
                partition: "short".into(),
                limit_s: 7200.0,
            }],
        );
        let head = cap_words(&whole);
        assert_eq!(head, human_duration(7200.0));
        assert!(!head.contains("as Slurm applies it"), "{head}");
    }
}
