//! The budgeting rule (design.md, "The budgeting rule"): from a stratum's measured
//! cost (`floor_s`) and the upper bound of its prediction interval (`upper_s`),
//! choose the `--time` and the partition bucket.
//!
//! Let the caps be the time limits of the partitions in play, sorted.
//! 1. If some cap c satisfies `floor_s <= c < upper_s`, take the largest such c:
//!    the task moves into that bucket, keeping as much margin as the bucket
//!    allows (`rounded_down`). This also covers an `upper_s` above the largest
//!    cap while `floor_s` fits under it: the largest cap is then the answer, and
//!    the margin cut is said.
//! 2. Otherwise ask for `upper_s`, rounded up to the whole minute; the partition
//!    is the smallest whose cap holds it (`ok`).
//! 3. If even `floor_s` exceeds the largest cap the stratum is `over_cap`: no
//!    single task can finish; it must checkpoint into segments that each fit.
//!    [`decide`] counts them without restart costs; a caller that knows the
//!    run's recounts with [`segments`], since every segment pays the startup
//!    again and loses the unit a kill interrupts.
//!
//! Times are whole minutes, because Slurm stores `--time` in minutes (seconds
//! round up) and reads 0 as "no limit"; a cap is used only at whole minutes at or
//! below it. The chosen time is never below `floor_s`, and for `over_cap` it is
//! the time a single task would need (unsubmittable), so the invariant
//! `time_s >= floor_s` holds for every status, up to the largest time `--time`
//! can express (about 68 years), beyond which every need is `over_cap`. Given caps, the chosen time is
//! non-decreasing in both `floor_s` and `upper_s`.

use serde::Serialize;

use crate::slurm::time::{sbatch_minutes, SBATCH_MAX_MINUTES};

/// One bucket: a partition and its cap in seconds (`f64::INFINITY` for no limit).
#[derive(Debug, Clone, PartialEq)]
pub struct Cap {
    pub partition: String,
    pub limit_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The upper bound fits a bucket as is.
    Ok,
    /// A bucket cap lay in [floor_s, upper_s): the time was rounded down into it.
    RoundedDown,
    /// Even the measured cost exceeds the largest cap: unsubmittable as one task.
    OverCap,
    /// The probe cannot support a bound: no time is given (the notes say
    /// which probe would settle it).
    Unsupported,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::RoundedDown => "rounded_down",
            Status::OverCap => "over_cap",
            Status::Unsupported => "unsupported",
        }
    }
}

/// What the rule decided for one stratum.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Whole minutes for `--time` (at least 1).
    pub minutes: u64,
    /// The partition whose cap holds the time; `None` when `over_cap`.
    pub partition: Option<String>,
    pub status: Status,
    /// For `over_cap`: how many segments, each within the largest cap, cover
    /// `upper_s` (see [`segments`]); `None` when a segment cannot finish a
    /// unit after its startup.
    pub segments: Option<u64>,
    /// The largest cap in play, for the notes.
    pub(crate) largest_cap_s: f64,
}

impl Decision {
    pub fn time_s(&self) -> u64 {
        self.minutes * 60
    }

    /// Whether a run bounded by `upper_s` needs more than every cap in play
    /// allows (`over_cap`, or a margin cut to fit the largest cap): then a
    /// longer partition left out of play is worth naming. Not for
    /// `unsupported`, which gets no time at all.
    pub fn needs_a_longer_cap(&self, upper_s: f64) -> bool {
        self.status != Status::Unsupported && upper_s > self.largest_cap_s
    }

    /// The `--time` a submitted task asks for: the time given where there is
    /// one to submit (`ok`, `rounded_down`); `None` for `over_cap` (its sbatch
    /// line is commented out until the run is split) and `unsupported`.
    pub fn submitted_time_s(&self) -> Option<u64> {
        matches!(self.status, Status::Ok | Status::RoundedDown).then(|| self.time_s())
    }

    /// The largest cap as the rule compares it: the whole minutes a task may
    /// ask for under it, since Slurm counts `--time` in minutes (a cap of
    /// 44:09 allows 44), and the longest `--time` for an unlimited one. What
    /// a note shows next to the measured cost must be this, not the cap as
    /// listed: a cost of 44m 08s is over a cap of 44m 09s.
    pub fn largest_usable_minutes(&self) -> u64 {
        if self.largest_cap_s.is_finite() {
            ((self.largest_cap_s / 60.0).floor() as u64).min(SBATCH_MAX_MINUTES)
        } else {
            SBATCH_MAX_MINUTES
        }
    }

    /// The `--time` of each segment of an `over_cap` run: the largest cap in
    /// whole minutes (the longest `--time` for an unlimited one).
    pub fn segment_minutes(&self) -> u64 {
        self.largest_usable_minutes().max(1)
    }

    /// This decision with an `over_cap` run's segments recounted for a run
    /// bounded by `upper_s` whose every restart pays `startup_s` again and
    /// loses up to `unit_s` (see [`segments`]); other decisions as they are.
    pub fn with_restart_costs(mut self, upper_s: f64, startup_s: f64, unit_s: f64) -> Decision {
        if self.status == Status::OverCap {
            let segment_s = self.segment_minutes() as f64 * 60.0;
            self.segments = segments(upper_s, startup_s, unit_s, segment_s);
        }
        self
    }
}

/// The segments (each `segment_s` long) that a run bounded by `upper_s`
/// takes when it does not fit in one: every segment pays the restart's
/// `startup_s` again and, killed at its walltime, loses up to the unit in
/// progress (`unit_s`, redone by the next one), so it does `segment_s -
/// startup_s - unit_s` of the work; the work is `upper_s - startup_s` (the
/// bound counts one startup). `None` when a segment cannot do even one unit
/// after its startup: no number of resubmissions finishes.
pub fn segments(upper_s: f64, startup_s: f64, unit_s: f64, segment_s: f64) -> Option<u64> {
    let per_segment = segment_s - startup_s - unit_s;
    if per_segment <= 0.0 || per_segment.is_nan() {
        return None;
    }
    let work = (upper_s - startup_s).max(0.0);
    // In floating point, so that a need far beyond any cap is counted, not clamped.
    Some((work / per_segment).ceil().clamp(1.0, u64::MAX as f64) as u64)
}

/// Whole minutes usable under a cap (a cap of 3:00:30 allows 180 minutes).
fn cap_minutes(cap: &Cap) -> Option<u64> {
    if cap.limit_s.is_finite() {
        Some((cap.limit_s / 60.0).floor() as u64)
    } else {
        None
    }
}

/// Applies the rule. `caps` need not be sorted; it must not be empty.
pub fn decide(floor_s: f64, upper_s: f64, caps: &[Cap]) -> Decision {
    let upper_s = upper_s.max(floor_s);
    let floor_minutes = sbatch_minutes(floor_s);
    let mut sorted: Vec<&Cap> = caps.iter().collect();
    sorted.sort_by(|a, b| a.limit_s.total_cmp(&b.limit_s));
    let largest_cap_s = sorted.last().map(|c| c.limit_s).unwrap_or(f64::INFINITY);

    // 1. The largest cap in [floor, upper): round down into it. Among caps
    // of the same whole minutes, the first in order (as rule 2 picks), so the
    // partition does not depend on which rule reached that time.
    let rounded = sorted.iter().rev().find_map(|cap| {
        let minutes = cap_minutes(cap)?;
        let usable_s = (minutes * 60) as f64;
        (minutes >= floor_minutes && usable_s >= floor_s && usable_s < upper_s).then_some(minutes)
    });
    if let Some(minutes) = rounded {
        let cap = sorted
            .iter()
            .find(|c| cap_minutes(c) == Some(minutes))
            .expect("the cap that gave these minutes");
        return Decision {
            minutes,
            partition: Some(cap.partition.clone()),
            status: Status::RoundedDown,
            segments: None,
            largest_cap_s,
        };
    }

    // 2. The upper bound, rounded up, in the smallest bucket that holds it. A
    // need beyond what `--time` can express (about 68 years) fits nowhere.
    let minutes = sbatch_minutes(upper_s);
    let expressible = upper_s <= (SBATCH_MAX_MINUTES * 60) as f64;
    let holder = sorted
        .iter()
        .find(|cap| cap_minutes(cap).is_none_or(|cap_min| cap_min >= minutes));
    if let (Some(cap), true) = (holder, expressible) {
        return Decision {
            minutes,
            partition: Some(cap.partition.clone()),
            status: Status::Ok,
            segments: None,
            largest_cap_s,
        };
    }

    // 3. Even the measured cost does not fit (rule 1 took every case where it
    // does): segments of the largest cap, counted here without restart costs.
    Decision {
        minutes: minutes.max(floor_minutes),
        partition: None,
        status: Status::OverCap,
        segments: None,
        largest_cap_s,
    }
    .with_restart_costs(upper_s, 0.0, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_segment_pays_the_startup_and_the_unit_a_kill_loses() {
        let (hour, minute) = (3600.0, 60.0);
        // 9.5 h of work after a 30 min startup, 20 min units, 3 h cap: each
        // segment does 2 h 10 min, so 5 (ceil(10 h / 3 h) would say 4).
        assert_eq!(
            segments(10.0 * hour, 30.0 * minute, 20.0 * minute, 3.0 * hour),
            Some(5)
        );
        // A cap that holds the startup and one unit, no more: nothing is done.
        assert_eq!(segments(10.0 * hour, 2.0 * hour, hour, 3.0 * hour), None);
    }

    fn caps(hours: &[f64]) -> Vec<Cap> {
        hours
            .iter()
            .enumerate()
            .map(|(i, h)| Cap {
                partition: format!("b{}", i + 1),
                limit_s: h * 3600.0,
            })
            .collect()
    }

    const H: f64 = 3600.0;

    #[test]
    fn rounds_down_into_the_largest_cap_between_floor_and_upper() {
        let d = decide(10.7 * H, 19.0 * H, &caps(&[3.0, 12.0, 24.0]));
        assert_eq!(d.status, Status::RoundedDown);
        assert_eq!(d.partition.as_deref(), Some("b2"));
        assert_eq!(d.minutes, 12 * 60);
    }

    #[test]
    fn asks_for_the_upper_bound_when_no_cap_lies_in_between() {
        let d = decide(4.6 * H, 5.5 * H, &caps(&[3.0, 12.0, 24.0]));
        assert_eq!(d.status, Status::Ok);
        assert_eq!(d.partition.as_deref(), Some("b2"));
        assert_eq!(d.minutes, 330);
    }

    #[test]
    fn upper_above_every_cap_with_floor_below_takes_the_largest_cap() {
        let d = decide(20.0 * H, 30.0 * H, &caps(&[3.0, 12.0, 24.0]));
        assert_eq!(d.status, Status::RoundedDown);
        assert_eq!(d.partition.as_deref(), Some("b3"));
        assert_eq!(d.minutes, 24 * 60);
    }

    #[test]
    fn a_48_hour_need_on_a_24_hour_cluster_is_over_cap_with_segments() {
        let d = decide(48.0 * H, 52.0 * H, &caps(&[3.0, 12.0, 24.0]));
        assert_eq!(d.status, Status::OverCap);
        assert_eq!(d.partition, None);
        assert_eq!(d.segments, Some(3));
        assert!(d.time_s() as f64 >= 48.0 * H);
    }

    #[test]
    fn an_unlimited_partition_holds_anything() {
        let mut c = caps(&[3.0]);
        c.push(Cap {
            partition: "long".into(),
            limit_s: f64::INFINITY,
        });
        let d = decide(100.0 * H, 120.0 * H, &c);
        assert_eq!(d.status, Status::Ok);
        assert_eq!(d.partition.as_deref(), Some("long"));
    }

    #[test]
    fn never_zero_minutes() {
        let d = decide(0.0, 0.0, &caps(&[3.0]));
        assert_eq!(d.minutes, 1);
    }
}
