//! The campaign at a glance: strata and tasks per bucket, the longest single
//! task, and task-hours requested against predicted.

use super::Budget;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BucketLoad {
    /// Partition name, or `over_cap` for strata that fit nowhere.
    pub bucket: String,
    pub strata: usize,
    pub tasks: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Summary {
    /// In the order of the caps, then `over_cap`.
    pub buckets: Vec<BucketLoad>,
    /// The stratum with the longest `--time` submitted, and that time in
    /// seconds; `None` when no stratum gets a time (`over_cap` and
    /// `unsupported` strata get none).
    pub longest: Option<(String, u64)>,
    /// Sum over the strata that get a time of tasks x that time, in hours.
    pub(crate) requested_hours: f64,
    /// Sum over strata of tasks x `predicted_s`, in hours.
    pub(crate) predicted_hours: f64,
    pub tasks: u64,
}

pub fn summarize(budget: &Budget) -> Summary {
    let mut buckets: Vec<BucketLoad> = Vec::new();
    let mut add = |bucket: &str, tasks: u64| {
        if let Some(load) = buckets.iter_mut().find(|b| b.bucket == bucket) {
            load.strata += 1;
            load.tasks += tasks;
        } else {
            buckets.push(BucketLoad {
                bucket: bucket.to_string(),
                strata: 1,
                tasks,
            });
        }
    };
    for s in &budget.strata {
        match (&s.decision.partition, s.decision.status) {
            (Some(p), _) => add(p, s.tasks),
            (None, status) => add(status.as_str(), s.tasks),
        }
    }
    let order = |name: &str| {
        budget
            .caps
            .iter()
            .position(|c| c.partition == name)
            .unwrap_or(usize::MAX)
    };
    buckets.sort_by_key(|b| order(&b.bucket));
    let longest = budget
        .strata
        .iter()
        .filter_map(|s| Some((s, s.decision.submitted_time_s()?)))
        .max_by_key(|&(_, time_s)| time_s)
        .map(|(s, time_s)| (s.stratum.clone(), time_s));
    Summary {
        buckets,
        longest,
        requested_hours: budget
            .strata
            .iter()
            .map(|s| {
                let time_s = s.decision.submitted_time_s().unwrap_or(0);
                s.tasks as f64 * time_s as f64 / 3600.0
            })
            .sum(),
        predicted_hours: budget
            .strata
            .iter()
            .map(|s| s.tasks as f64 * s.projection.predicted_s / 3600.0)
            .sum(),
        tasks: budget.strata.iter().map(|s| s.tasks).sum(),
    }
}
