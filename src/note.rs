//! What `calib budget` and `calib resume` say beside their figures: one typed
//! note per kind of finding, its severity, and its wording, all in this file.
//!
//! The severity decides where a note is shown. The default table prints, under
//! its rows, only the [`Severity::Action`] notes (what needs the user's action
//! or changed the decision), each in one short line; `--explain` prints every
//! note whole, grouped per stratum. JSON carries every note with its kind and
//! severity, so a program can filter or rank them.

use std::fmt::{self, Write as _};

use serde::Serialize;

use crate::model::Unsupported;
use crate::output::{count, factor, human_duration, percent};

/// The layout of `calib budget --format json` and `calib resume --format
/// json`: 2 since notes are objects (`kind`, `severity`, `text` and the
/// note's own fields); the documents of schema 1 had no `schema` field and
/// held notes as strings.
pub const JSON_SCHEMA: u32 = 2;

/// Where a note is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Needs the user's action or changed the decision: shown by default.
    Action,
    /// Worth knowing (a choice calib made for the user): with `--explain`.
    Notice,
    /// What a figure rests on: with `--explain`.
    Detail,
}

/// How a run over the cap is cut into checkpointed segments.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segments {
    pub count: u64,
    pub time: String,
    #[serde(flatten)]
    pub each: SegmentWork,
}

/// What one segment does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SegmentWork {
    /// Of a new run: about this many units.
    Units { units_each: u64 },
    /// Of a resumed run's remainder (`left_s`, its startup apart): this
    /// much of its time.
    Remainder { work_each_s: f64, left_s: f64 },
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Note {
    /// A cap lay between the measured cost and the upper bound.
    RoundedDown {
        partition: String,
        time: String,
        given_up_s: f64,
        upper_s: f64,
        above_floor_s: f64,
        /// A resumed run's remainder, not a new run.
        remainder: bool,
    },
    /// The upper bound exceeds the largest cap: the margin was cut to fit.
    MarginCut { upper_s: f64, cap_s: f64 },
    /// Even the measured cost exceeds the largest cap.
    OverCap {
        floor_s: f64,
        /// The cap as compared, in words (whole minutes as Slurm applies it).
        cap: String,
        segments: Option<Segments>,
        startup_s: f64,
        unit_s: f64,
        remainder: bool,
    },
    /// The array is longer than Slurm's default MaxArraySize.
    ArrayTooLarge { last_index: u64, max: u64 },
    /// No --time: the probe or the calibration cannot support a bound.
    Unsupported {
        why: Unsupported,
        units: u64,
        probe_units: u64,
        /// `--allow-guess` would give a time.
        guess_possible: bool,
    },
    /// A time given past the calibration's shortfall (`--allow-guess`).
    Guess {
        why: Unsupported,
        units: u64,
        probe_units: u64,
    },
    /// Measured on another machine (`--allow-transfer`).
    Estimate { what: String },
    /// The target cluster is unknown, so the rates' origin was not checked.
    ClusterUnknown,
    /// What the margin over the prediction is made of.
    Margin {
        margin: f64,
        /// The slowest seed over the median and the runs, when there are two.
        seeds: Option<(f64, usize)>,
        extrapolation: f64,
        group: String,
        /// N/K, when the run is longer than the probe.
        distance: Option<f64>,
        programs: f64,
        started_within_s: Option<f64>,
    },
    /// Which calibration, and how it covered its own programs here.
    Calibration {
        source: String,
        programs: usize,
        confidence: f64,
        /// (group, runs covered, runs) per group in play.
        coverage: Vec<(String, usize, usize)>,
    },
    /// Longer caps in the list that are not in play, and the flags adding them.
    LongerPartitions {
        longer: Vec<String>,
        in_play: usize,
        /// (`--partition-regex` value, quoted; partition it adds).
        flags: Vec<(String, String)>,
    },
    /// The chosen partition shares its cap with others in play.
    SharedCap {
        partition: String,
        cap: String,
        others: Vec<String>,
        strata: Vec<String>,
    },
    /// Strata of the model the campaign grid has no cells for.
    LeftOut { strata: Vec<String> },
    /// Which partitions are in play and why.
    Partitions { text: String },
    /// What reading the partition list noticed (a cut limit, a closed
    /// partition, another cluster's list).
    PartitionList { text: String },
    /// `calib resume` without sacct text.
    NoSacct { units: u64 },
    /// `calib resume` reads each task's timings as its first run.
    FirstRunsOnly { units: u64 },
    /// Where one resumed task stands, and what its remainder needs.
    Remainder {
        task: String,
        unit: u64,
        units: u64,
        elapsed_s: f64,
        pace: f64,
        left: u64,
        floor_s: f64,
        upper_s: f64,
    },
    /// The margin a resumed remainder carries.
    RemainderMargin { units: u64, margin: f64 },
    /// No resubmission: the new run's bound is unsupported.
    RemainderUnsupported { units: u64 },
    /// No checkpoint: the whole run again.
    Rerun { units: u64, reached: Vec<String> },
}

impl Note {
    pub fn severity(&self) -> Severity {
        match self {
            Note::RoundedDown { .. }
            | Note::MarginCut { .. }
            | Note::OverCap { .. }
            | Note::ArrayTooLarge { .. }
            | Note::Unsupported { .. }
            | Note::Guess { .. }
            | Note::Estimate { .. }
            | Note::ClusterUnknown
            | Note::RemainderUnsupported { .. }
            | Note::Rerun { .. }
            | Note::LongerPartitions { .. }
            | Note::NoSacct { .. } => Severity::Action,
            Note::SharedCap { .. } | Note::LeftOut { .. } | Note::PartitionList { .. } => {
                Severity::Notice
            }
            Note::FirstRunsOnly { .. } => Severity::Detail,
            Note::Margin { .. }
            | Note::Calibration { .. }
            | Note::Partitions { .. }
            | Note::Remainder { .. }
            | Note::RemainderMargin { .. } => Severity::Detail,
        }
    }

    /// The note's kind as JSON names it (`rounded_down`), for the closing
    /// line's count.
    pub fn kind(&self) -> &'static str {
        match self {
            Note::RoundedDown { .. } => "rounded_down",
            Note::MarginCut { .. } => "margin_cut",
            Note::OverCap { .. } => "over_cap",
            Note::ArrayTooLarge { .. } => "array_too_large",
            Note::Unsupported { .. } => "unsupported",
            Note::Guess { .. } => "guess",
            Note::Estimate { .. } => "estimate",
            Note::ClusterUnknown => "cluster_unknown",
            Note::Margin { .. } => "margin",
            Note::Calibration { .. } => "calibration",
            Note::LongerPartitions { .. } => "longer_partitions",
            Note::SharedCap { .. } => "shared_cap",
            Note::LeftOut { .. } => "left_out",
            Note::Partitions { .. } => "partitions",
            Note::PartitionList { .. } => "partition_list",
            Note::NoSacct { .. } => "no_sacct",
            Note::FirstRunsOnly { .. } => "first_runs_only",
            Note::Remainder { .. } => "remainder",
            Note::RemainderMargin { .. } => "remainder_margin",
            Note::RemainderUnsupported { .. } => "remainder_unsupported",
            Note::Rerun { .. } => "rerun",
        }
    }

    /// The note in one short line, for the default table (the action notes;
    /// the others are shown whole, with `--explain`).
    pub fn summary(&self) -> String {
        match self {
            Note::RoundedDown {
                partition,
                time,
                given_up_s,
                above_floor_s,
                ..
            } => format!(
                "rounded down to {time} to stay in {partition}: {} of margin given up, {} left",
                human_duration(*given_up_s),
                human_duration(*above_floor_s)
            ),
            Note::MarginCut { cap_s, .. } => format!(
                "the upper bound exceeds the largest cap ({}): checkpoint to keep the margin",
                human_duration(*cap_s)
            ),
            Note::OverCap { segments, .. } => match segments {
                Some(s) => format!(
                    "over every cap: checkpoint into {} segments of --time={}",
                    s.count, s.time
                ),
                None => "over every cap, and a segment cannot finish one unit: needs a longer cap"
                    .to_string(),
            },
            Note::ArrayTooLarge { last_index, max } => format!(
                "array index {last_index} is past Slurm's default MaxArraySize ({max}): split it"
            ),
            Note::Unsupported {
                why,
                units,
                probe_units,
                ..
            } => format!("no --time: {}", why.summary(*units, *probe_units)),
            Note::Guess { .. } => "GUESS (--allow-guess): the measured cost, no margin".into(),
            Note::Estimate { .. } => "ESTIMATE: measured on another machine".into(),
            Note::ClusterUnknown => {
                "target cluster unknown: pass --cluster NAME to check where rates came from".into()
            }
            Note::RemainderUnsupported { .. } => {
                "no --time: the new run's bound is unsupported (see --explain)".into()
            }
            Note::Rerun { units, .. } => {
                format!("no checkpoint: the whole run of {units} units again")
            }
            Note::NoSacct { .. } => {
                "no sacct text: runs that stopped short are taken as killed (check with -j)".into()
            }
            Note::LongerPartitions { flags, .. } => {
                let adds: Vec<String> = flags
                    .iter()
                    .map(|(regex, name)| format!("--partition-regex {regex} adds {name}"))
                    .collect();
                format!("longer caps not in play: {}", adds.join("; "))
            }
            other => other.to_string(),
        }
    }
}

impl Unsupported {
    /// Why there is no bound and the probe that would settle it, briefly.
    pub fn summary(&self, units: u64, probe_units: u64) -> String {
        let longer = crate::model::longer_probe_units(units, probe_units);
        match self {
            Unsupported::NoSignal(crate::fit::centre::NoSignal::OneUnit) => {
                format!("no run has two units; probe to {longer} units")
            }
            Unsupported::NoSignal(crate::fit::centre::NoSignal::Resolution) => {
                format!("units too short to time; probe to {longer} units")
            }
            Unsupported::FewPrograms { .. } => {
                format!("too few programs like this probe; probe to {longer} units")
            }
        }
    }
}

fn list(items: &[String]) -> String {
    items.join(", ")
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::RoundedDown {
                partition,
                time,
                given_up_s,
                upper_s,
                above_floor_s,
                remainder,
            } => {
                write!(
                    f,
                    "rounded down into {partition} ({time}): gives up {} of margin",
                    human_duration(*given_up_s)
                )?;
                if *remainder {
                    write!(
                        f,
                        " to stay in that bucket; still {} above the remainder projected at the runs' own pace",
                        human_duration(*above_floor_s)
                    )
                } else {
                    write!(
                        f,
                        " ({} of the upper bound) to stay in that bucket; still {} above the measured cost",
                        percent(given_up_s / upper_s.max(1.0), 0),
                        human_duration(*above_floor_s)
                    )
                }
            }
            Note::MarginCut { upper_s, cap_s } => write!(
                f,
                "the upper bound ({}) exceeds the largest cap ({}): margin was cut to fit; consider checkpointing",
                human_duration(*upper_s),
                human_duration(*cap_s)
            ),
            Note::OverCap {
                floor_s,
                cap,
                segments,
                startup_s,
                unit_s,
                remainder,
            } => {
                let cost = if *remainder {
                    "the remainder projected at the runs' own pace"
                } else {
                    "the measured cost"
                };
                write!(
                    f,
                    "over_cap: even {cost} ({}) exceeds the largest cap ({cap})",
                    human_duration(*floor_s)
                )?;
                match segments.as_ref().map(|s| (s, &s.each)) {
                    None => write!(
                        f,
                        ", and a segment at that cap cannot finish even one unit after its startup ({} + {}): no number of resubmissions completes the run; it needs a partition with a longer cap",
                        human_duration(*startup_s),
                        human_duration(*unit_s)
                    ),
                    Some((s, SegmentWork::Units { units_each })) => write!(
                        f,
                        "; no single task can finish. Checkpoint and requeue: {} segments with --time={} each (about {} units per segment); each pays the startup again and, killed at its limit, loses up to the unit in progress ({} and {} for a run at the upper bound)",
                        s.count,
                        s.time,
                        units_each,
                        human_duration(*startup_s),
                        human_duration(*unit_s)
                    ),
                    Some((s, SegmentWork::Remainder { work_each_s, left_s })) => write!(
                        f,
                        "; resume in {} segments, each with --time={} (the largest cap): each pays the startup again ({}) and, killed, loses up to the unit in progress ({}), as large as for a run at the upper bound, so it does {} of the {} left. Submit the commented line below once per segment, each after the last has ended (sbatch --dependency=afterany:JOBID), each resuming from the checkpoint the last one left",
                        s.count,
                        s.time,
                        human_duration(*startup_s),
                        human_duration(*unit_s),
                        human_duration(*work_each_s),
                        human_duration(*left_s)
                    ),
                }
            }
            Note::ArrayTooLarge { last_index, max } => write!(
                f,
                "the array's last index, {last_index}, is past Slurm's default MaxArraySize ({max}: indexes 0-{}), and sbatch refuses the whole array where the cluster keeps that default; check `scontrol show config | grep MaxArraySize`, or split the stratum's tasks into arrays that fit",
                max - 1
            ),
            Note::Unsupported {
                why,
                units,
                probe_units,
                guess_possible,
            } => {
                write!(f, "{}", why.explain(*units, *probe_units))?;
                if *guess_possible {
                    write!(
                        f,
                        "; --allow-guess gives the measured cost, labelled a guess"
                    )?;
                }
                Ok(())
            }
            Note::Guess {
                why,
                units,
                probe_units,
            } => write!(
                f,
                "GUESS (--allow-guess): this time rests on a probe that cannot support it; {}",
                why.explain(*units, *probe_units)
            ),
            Note::Estimate { what } => write!(f, "{what}"),
            Note::ClusterUnknown => write!(
                f,
                "the target cluster is unknown, so calib could not check that these rates were measured there; pass --cluster NAME"
            ),
            Note::Margin {
                margin,
                seeds,
                extrapolation,
                group,
                distance,
                programs,
                started_within_s,
            } => {
                let seeds = match seeds {
                    Some((spread, runs)) => format!(
                        "the seeds' spread {} (the slowest of {runs} runs over the median)",
                        factor(*spread, 2)
                    ),
                    None => "no seeds' spread (one run: probe 3 to measure it)".to_string(),
                };
                let distance = match distance {
                    Some(d) => format!("{group} probes at {} their length", factor(*d, 1)),
                    None => format!("{group} probes"),
                };
                write!(
                    f,
                    "margin {} over the prediction: {seeds} x extrapolation {} ({distance}, from {programs:.0} programs)",
                    factor(*margin, 2),
                    factor(*extrapolation, 2)
                )?;
                if let Some(span) = started_within_s {
                    write!(
                        f,
                        "; the probe's runs started within {} of each other, and the extrapolation carries the drift of runs at other times and loads",
                        human_duration(*span)
                    )?;
                }
                Ok(())
            }
            Note::Calibration {
                source,
                programs,
                confidence,
                coverage,
            } => {
                write!(f, "calibration: {source}, {programs} programs")?;
                if !coverage.is_empty() {
                    let mut words = String::new();
                    for (i, (group, covered, runs)) in coverage.iter().enumerate() {
                        let _ = write!(
                            words,
                            "{}{} of {} of {group} probes",
                            if i == 0 { "" } else { ", " },
                            percent(*covered as f64 / (*runs).max(1) as f64, 1),
                            count(*runs as u64, "run", "runs"),
                        );
                    }
                    write!(
                        f,
                        "; at {confidence}, each program left out in turn, it covered {words}"
                    )?;
                }
                Ok(())
            }
            Note::LongerPartitions {
                longer,
                in_play,
                flags,
            } => {
                let flags: Vec<String> = flags
                    .iter()
                    .map(|(regex, name)| format!("--partition-regex {regex} adds {name}"))
                    .collect();
                write!(
                    f,
                    "the partition list has longer caps not in play: {}; calib rounds into {} only, since other partitions may run other hardware or refuse these jobs. To add one, if it takes them: {}",
                    list(longer),
                    match in_play {
                        1 => "the one partition in play".to_string(),
                        n => format!("the {n} partitions in play"),
                    },
                    flags.join("; ")
                )
            }
            Note::SharedCap {
                partition,
                cap,
                others,
                strata,
            } => write!(
                f,
                "{partition} shares its cap ({cap}) with {}: calib names the first listed, {partition}, for {} ({}). If that is not the partition to use, narrow the partitions in play with --partition-regex",
                list(others),
                count(strata.len() as u64, "stratum", "strata"),
                list(strata)
            ),
            Note::LeftOut { strata } => write!(
                f,
                "left out, not in the campaign grid: {} (the model measured them; the grid's arrays have no cell for them)",
                list(strata)
            ),
            Note::Partitions { text } => write!(f, "partitions: {text}"),
            Note::PartitionList { text } => write!(f, "{text}"),
            Note::NoSacct { units } => write!(
                f,
                "no sacct text: every run that stopped short of {units} units on a signal or with no end row is taken as killed by its walltime (pass --sacct or -j to check with sacct's TIMEOUT)"
            ),
            Note::FirstRunsOnly { units } => write!(
                f,
                "each task's timings are read as its first run, from unit 1; a resumed run's count from 1 again, so a task killed again after a resume is not sized here (its unit j would be taken for unit j of {units}, not the one it reached)"
            ),
            Note::Remainder {
                task,
                unit,
                units,
                elapsed_s,
                pace,
                left,
                floor_s,
                upper_s,
            } => write!(
                f,
                "{task}: unit {unit} of {units} at {}, at {} the median probe run's pace; {} left: {} at that pace, upper {}",
                human_duration(*elapsed_s),
                factor(*pace, 2),
                count(*left, "unit", "units"),
                human_duration(*floor_s),
                human_duration(*upper_s)
            ),
            Note::RemainderMargin { units, margin } => write!(
                f,
                "margin as calib budget gives a new run of {units} units ({} over its prediction), applied to the remainder",
                percent(*margin, 0)
            ),
            Note::RemainderUnsupported { units } => write!(
                f,
                "no --time: the margin for a run of {units} units rests on a probe that cannot support one; probe as the note above says, or pass the probe timings as PROBES with --no-checkpoint to fit them with these tasks' units added"
            ),
            Note::Rerun { units, reached } => write!(
                f,
                "cannot resume (no checkpoint): the whole run of {units} units is budgeted again from unit 1, fitted with the killed runs' units added ({})",
                list(reached)
            ),
        }
    }
}

/// Notes as JSON carries them (see [`to_json`]).
pub fn all_to_json(notes: &[Note]) -> Vec<serde_json::Value> {
    notes.iter().map(to_json).collect()
}

/// A note as JSON carries it: its fields, kind and severity, and its text.
pub fn to_json(note: &Note) -> serde_json::Value {
    let mut value = serde_json::to_value(note).unwrap_or_else(|_| serde_json::json!({}));
    if let Some(map) = value.as_object_mut() {
        map.insert("severity".into(), serde_json::json!(note.severity()));
        map.insert("text".into(), serde_json::json!(note.to_string()));
    }
    value
}

/// The notes an output shows, as text: every note whole with `--explain`,
/// else the summaries of those that need action.
pub fn shown(notes: &[Note], explain: bool) -> impl Iterator<Item = String> + '_ {
    notes
        .iter()
        .filter(move |n| explain || n.severity() == Severity::Action)
        .map(move |n| if explain { n.to_string() } else { n.summary() })
}

/// The closing line of a default output: how many notes `--explain` adds,
/// by kind, or nothing when it adds none.
pub fn explain_line<'a>(notes: impl IntoIterator<Item = &'a Note>) -> Option<String> {
    let hidden: Vec<&Note> = notes
        .into_iter()
        .filter(|n| n.severity() != Severity::Action)
        .collect();
    if hidden.is_empty() {
        return None;
    }
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for note in &hidden {
        match kinds.iter_mut().find(|(k, _)| *k == note.kind()) {
            Some((_, n)) => *n += 1,
            None => kinds.push((note.kind(), 1)),
        }
    }
    let kinds: Vec<String> = kinds
        .into_iter()
        .map(|(kind, n)| {
            let kind = kind.replace('_', " ");
            match n {
                1 => kind,
                n if kind.ends_with('s') => format!("{n} {kind}"),
                n => format!("{n} {kind}s"),
            }
        })
        .collect();
    Some(format!(
        "--explain adds {} ({})",
        count(hidden.len() as u64, "note", "notes"),
        kinds.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explain_line_counts_only_what_the_default_hides() {
        let notes = [
            Note::ClusterUnknown,
            Note::LeftOut {
                strata: vec!["a=1".into()],
            },
            Note::Partitions { text: "x".into() },
            Note::Partitions { text: "y".into() },
        ];
        assert_eq!(
            explain_line(&notes).as_deref(),
            Some("--explain adds 3 notes (left out, 2 partitions)")
        );
        assert_eq!(explain_line(&notes[..1]), None);
    }

    #[test]
    fn json_carries_kind_severity_and_text() {
        let note = Note::ArrayTooLarge {
            last_index: 1500,
            max: 1001,
        };
        let value = to_json(&note);
        assert_eq!(value["kind"], "array_too_large");
        assert_eq!(value["severity"], "action");
        assert_eq!(value["last_index"], 1500);
        assert!(value["text"].as_str().unwrap().contains("indexes 0-1000"));
    }
}
