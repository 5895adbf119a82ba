//! The calibration: the factor that turns the slowest seed's projection into
//! a bound, measured on real programs (the method and its assumptions:
//! [`crate::fit`]), and the table of cases it is taken from.
//!
//! The table ships with calib (`assets/calibration.csv`, embedded in the
//! binary, rebuilt by `calib calibrate` from the corpus in `data/`); `calib
//! calibrate -o` builds one from a user's own campaigns, and `calib budget
//! --calibration FILE` uses it, merged with the shipped one.

pub mod cases;
pub mod report;
pub mod table;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Origin, Result};
pub use crate::fit::centre::{Centre, Form, Group, NoSignal, Shape};
use crate::timings::RunTimings;

/// Width, in ln(N/K), of the kernel that weighs cases by closeness (1.4: a
/// case at twice or half the distance weighs 0.88, at 4x 0.61).
pub const BANDWIDTH: f64 = 1.4;
/// The centre's form, chosen by leave-one-program-out ([`report`]).
pub const FORM: Form = Form::Power;
/// How the factor is taken, chosen by leave-one-program-out: on the slowest
/// seed's projection, so that the seeds' spread enters the bound as measured.
pub const CHOSEN: Calibration = Calibration {
    anchor: Anchor::Slowest,
    bandwidth: BANDWIDTH,
    recorded_only: false,
};
/// The confidence of a bound when none is asked for: the level of least
/// expected cost on the corpus (task-hours requested plus the hours a
/// killed task loses, with a checkpoint or without), measured
/// leave-one-program-out over 0.5 ... 0.99 by `examples/confidence.rs`
/// (`docs/calibration.md`, "The default confidence"): 0.5 and 0.6 cost
/// within 1% of each other, 0.9 twice as much, 0.99 nine times; a bound
/// must lie above the centre, so 0.6.
pub const DEFAULT_CONFIDENCE: f64 = 0.6;
/// Least effective number of programs a factor may rest on.
pub const MIN_PROGRAMS: f64 = 8.0;

/// The shipped table, as text.
const SHIPPED: &str = include_str!("../../assets/calibration.csv");

/// The points of a run's first `k` units.
pub fn cut(run: &RunTimings, k: u64) -> Vec<(u64, f64)> {
    run.points
        .iter()
        .copied()
        .filter(|(u, _)| *u <= k)
        .collect()
}

/// One calibration case: a probe and a run it did not see.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub program: String,
    pub stratum: String,
    pub group: Group,
    pub probe_units: u64,
    pub units: u64,
    /// ln(actual total / centre).
    pub e_centre: f64,
    /// ln(actual total / slowest seed's projection).
    pub e_slowest: f64,
    /// The probe as recorded (not cut from full runs).
    pub recorded: bool,
}

impl Case {
    pub fn log_nk(&self) -> f64 {
        (self.units as f64 / self.probe_units as f64).ln()
    }
}

/// Which projection the factor multiplies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Centre,
    Slowest,
}

/// A factor and what it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factor {
    pub factor: f64,
    /// Effective number of programs (by weight).
    pub programs: f64,
}

/// How a factor is taken from the cases: the projection it multiplies and
/// the kernel's width in ln(N/K).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub anchor: Anchor,
    pub bandwidth: f64,
    /// Only the cases of probes as recorded (not cut from full runs): they
    /// alone carry the drift between a probe and the runs that follow it.
    pub recorded_only: bool,
}

/// Step, in ln(N/K), of the distances [`Pool::factor`] takes.
const ENVELOPE_STEP: f64 = 0.1;

/// The cases a factor is taken from, for one group and one way of taking
/// it: sorted by e, each with its ln(N/K), its program (an index) and its
/// weight as one of that program's cases. Built once; a factor is then one
/// pass over them.
#[derive(Debug, Clone)]
pub struct Pool {
    /// (e, ln(N/K), program index, 1 / that program's count of cases).
    cases: Vec<(f64, f64, usize, f64)>,
    programs: Vec<String>,
    bandwidth: f64,
}

impl Pool {
    /// The pool of `group`'s cases taken as `how` says.
    pub fn new(cases: &[Case], group: Group, how: Calibration) -> Pool {
        let chosen: Vec<&Case> = cases
            .iter()
            .filter(|c| c.group == group && (c.recorded || !how.recorded_only))
            .collect();
        let mut index: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for c in &chosen {
            let next = index.len();
            index.entry(c.program.as_str()).or_insert((next, 0)).1 += 1;
        }
        let mut programs = vec![String::new(); index.len()];
        for (name, (k, _)) in &index {
            programs[*k] = name.to_string();
        }
        let mut pooled: Vec<(f64, f64, usize, f64)> = chosen
            .iter()
            .map(|c| {
                let (k, count) = index[c.program.as_str()];
                let e = match how.anchor {
                    Anchor::Centre => c.e_centre,
                    Anchor::Slowest => c.e_slowest,
                };
                (e, c.log_nk(), k, 1.0 / count as f64)
            })
            .collect();
        pooled.sort_by(|a, b| a.0.total_cmp(&b.0));
        Pool {
            cases: pooled,
            programs,
            bandwidth: how.bandwidth,
        }
    }

    /// The program index of `name`, when the pool has it.
    fn program(&self, name: &str) -> Option<usize> {
        self.programs.iter().position(|p| p == name)
    }

    /// The factor at ln(N/K) = `target`, leaving out program `exclude`: the
    /// weighted `confidence`-quantile of e, each case weighted by closeness
    /// (a Gaussian kernel) and by its program's share, with the effective
    /// number of programs by those weights. `Err`: that number, fewer than
    /// [`MIN_PROGRAMS`].
    fn at(
        &self,
        target: f64,
        confidence: f64,
        exclude: Option<usize>,
    ) -> std::result::Result<Factor, f64> {
        let mut per_program = vec![0.0; self.programs.len()];
        let weight = |&(_, log_nk, _, share): &(f64, f64, usize, f64)| {
            let d = (log_nk - target) / self.bandwidth;
            (-0.5 * d * d).exp() * share
        };
        for c in self.cases.iter().filter(|c| Some(c.2) != exclude) {
            per_program[c.2] += weight(c);
        }
        let total: f64 = per_program.iter().sum();
        let squares: f64 = per_program.iter().map(|w| w * w).sum();
        let programs = if total > 0.0 {
            total * total / squares
        } else {
            0.0
        };
        if programs < MIN_PROGRAMS {
            return Err(programs);
        }
        let mut cumulative = 0.0;
        let mut e = self.cases.last().map_or(0.0, |c| c.0);
        for c in self.cases.iter().filter(|c| Some(c.2) != exclude) {
            cumulative += weight(c);
            if cumulative >= confidence * total {
                e = c.0;
                break;
            }
        }
        Ok(Factor {
            factor: e.exp(),
            programs,
        })
    }

    /// The calibrated factor for a probe of `probe_units` budgeting
    /// `units`, at `confidence`, leaving out the program `exclude` (one held
    /// out): the largest factor at any distance up to this one, so that a
    /// longer run is never given a smaller bound (the quantile at one N/K
    /// can fall below a nearer one's where the cases there happen to be
    /// tamer), at N/K = e^{0.1 j}, j = 0, 1, ..., and at N/K itself. `Err`
    /// where the factor at N/K itself rests on too few programs: how many.
    pub fn factor(
        &self,
        (probe_units, units): (u64, u64),
        confidence: f64,
        exclude: Option<&str>,
    ) -> std::result::Result<Factor, f64> {
        // A program the pool lacks leaves nothing out.
        let exclude = exclude.and_then(|name| self.program(name));
        let distance = (units as f64 / probe_units.max(1) as f64).ln();
        let mut best = self.at(distance, confidence, exclude)?;
        let mut j = 0;
        while (j as f64) * ENVELOPE_STEP < distance {
            if let Ok(f) = self.at(j as f64 * ENVELOPE_STEP, confidence, exclude) {
                if f.factor > best.factor {
                    best = f;
                }
            }
            j += 1;
        }
        Ok(best)
    }
}

/// The cases a bound is calibrated on, and where they came from.
#[derive(Debug, Clone)]
pub struct Table {
    pub cases: Vec<Case>,
    /// Where the cases came from, in words (every output names it).
    pub source: String,
    /// The cases of each group, as [`CHOSEN`] takes them.
    pools: BTreeMap<Group, Pool>,
}

/// A stratum's bound for a run of N units at a confidence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The centre: the median seed's projection.
    pub predicted_s: f64,
    /// The slowest seed's projection: the measured cost (a projection
    /// beyond the probe), below which no time goes.
    pub floor_s: f64,
    /// The slowest seed's projection times the factor, at least the floor.
    pub upper_s: f64,
    pub group: Group,
    pub factor: Factor,
}

impl Bound {
    /// The seeds' share of the margin: slowest over centre.
    pub fn seed_margin(&self) -> f64 {
        self.floor_s / self.predicted_s.max(f64::MIN_POSITIVE)
    }

    /// The extrapolation's share: upper over slowest (the factor, at least 1).
    pub fn extrapolation_margin(&self) -> f64 {
        self.upper_s / self.floor_s.max(f64::MIN_POSITIVE)
    }
}

/// Why a table gives no bound for a probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shortfall {
    /// The table's cases like this probe come from too few programs.
    FewPrograms { programs: f64 },
}

/// The highest one-sided confidence `programs` exchangeable programs can
/// support: a quantile of n values holds at most at 1 - 1/(n + 1). `calib
/// budget` refuses a higher one for the whole table; near a probe's N/K the
/// cases weigh as fewer programs (the output says how many), and above
/// their level the factor is the largest of their values.
pub fn supported_confidence(programs: f64) -> f64 {
    1.0 - 1.0 / (programs + 1.0)
}

impl Table {
    /// A table of `cases` from `source`.
    pub fn new(cases: Vec<Case>, source: String) -> Table {
        let groups: std::collections::BTreeSet<Group> = cases.iter().map(|c| c.group).collect();
        let pools = groups
            .into_iter()
            .map(|g| (g, Pool::new(&cases, g, CHOSEN)))
            .collect();
        Table {
            cases,
            source,
            pools,
        }
    }

    /// The table calib ships.
    pub fn shipped() -> Result<Table> {
        let origin = Origin::File("assets/calibration.csv".into());
        Ok(Table::new(
            table::read(SHIPPED, &origin)?,
            "calib's own".to_string(),
        ))
    }

    /// A table written by `calib calibrate -o`.
    pub fn load(path: &Path) -> Result<Table> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::input(
                Origin::File(path.to_path_buf()),
                None,
                format!("cannot read the calibration table: {e}; expected a CSV written by calib calibrate -o"),
            )
        })?;
        let cases = table::read(&text, &Origin::File(path.to_path_buf()))?;
        Ok(Table::new(cases, path.display().to_string()))
    }

    /// This table with `other`'s cases added (a program in both is kept
    /// once, from `other`).
    pub fn merged(self, other: Table) -> Table {
        let theirs: std::collections::HashSet<&str> =
            other.cases.iter().map(|c| c.program.as_str()).collect();
        let mut cases: Vec<Case> = self
            .cases
            .into_iter()
            .filter(|c| !theirs.contains(c.program.as_str()))
            .collect();
        cases.extend(other.cases);
        Table::new(
            cases,
            format!("{} merged with {}", other.source, self.source),
        )
    }

    /// Refuses a `confidence` above what the table's programs support
    /// ([`supported_confidence`]), saying why.
    pub fn check_confidence(&self, confidence: f64) -> Result<()> {
        let programs = self.programs();
        let supported = supported_confidence(programs as f64);
        if confidence > supported {
            return Err(Error::input(
                Origin::Argument("--confidence".into()),
                None,
                format!(
                    "{confidence}: the calibration ({}) holds {programs} programs, which support a confidence of at most {supported:.4} (a quantile of n programs holds at most at 1 - 1/(n+1)); ask for at most that, or add your own campaigns (calib calibrate -o FILE, then --calibration FILE)",
                    self.source
                ),
            ));
        }
        Ok(())
    }

    /// How many programs the table holds.
    pub fn programs(&self) -> usize {
        self.cases
            .iter()
            .map(|c| c.program.as_str())
            .collect::<std::collections::HashSet<_>>()
            .len()
    }

    /// The bound for a run of `units` units from a probe with `centre`, at
    /// `confidence`.
    pub fn bound(
        &self,
        centre: &Centre,
        units: u64,
        confidence: f64,
    ) -> std::result::Result<Bound, Shortfall> {
        self.bound_leaving_out(centre, units, confidence, None)
    }

    /// [`Table::bound`] with the cases of program `exclude` left out (a
    /// program judged by the others', leave-one-program-out).
    pub fn bound_leaving_out(
        &self,
        centre: &Centre,
        units: u64,
        confidence: f64,
        exclude: Option<&str>,
    ) -> std::result::Result<Bound, Shortfall> {
        let group = centre.group();
        let span = (centre.probe_units(), units);
        let factor = match self.pools.get(&group) {
            Some(pool) => pool.factor(span, confidence, exclude),
            None => Err(0.0),
        };
        let factor = factor.map_err(|programs| Shortfall::FewPrograms { programs })?;
        let (predicted_s, floor_s) = centre.project(units);
        Ok(Bound {
            predicted_s,
            floor_s,
            upper_s: (floor_s * factor.factor).max(floor_s),
            group,
            factor,
        })
    }

    /// How the bound did, leave-one-program-out, on the table's recorded
    /// probes of `group` at `confidence`: (runs covered, runs).
    pub fn coverage(&self, group: Group, confidence: f64) -> (usize, usize) {
        let mut covered = (0, 0);
        let Some(pool) = self.pools.get(&group) else {
            return covered;
        };
        for c in self.cases.iter().filter(|c| c.recorded && c.group == group) {
            let span = (c.probe_units, c.units);
            if let Ok(f) = pool.factor(span, confidence, Some(&c.program)) {
                covered.1 += 1;
                if c.e_slowest <= f.factor.ln().max(0.0) {
                    covered.0 += 1;
                }
            }
        }
        covered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CENTRE: Calibration = Calibration {
        anchor: Anchor::Centre,
        bandwidth: BANDWIDTH,
        recorded_only: false,
    };

    fn case(program: &str, e: f64, nk: u64) -> Case {
        Case {
            program: program.into(),
            stratum: "s=1".into(),
            group: Group {
                growth: false,
                long: true,
            },
            probe_units: 10,
            units: 10 * nk,
            e_centre: e,
            e_slowest: e - 0.1,
            recorded: true,
        }
    }

    /// The factor of `cases` (all of one group) for a 10-unit probe
    /// budgeting `units`.
    fn factor(cases: &[Case], units: u64, q: f64, exclude: Option<&str>) -> Option<Factor> {
        Pool::new(cases, cases[0].group, CENTRE)
            .factor((10, units), q, exclude)
            .ok()
    }

    #[test]
    fn the_factor_is_a_quantile_over_programs_weighted_alike() {
        // Ten programs with e = 0.0 .. 0.9, and one program with many cases:
        // its cases together weigh as one program.
        let mut cases: Vec<Case> = (0..10)
            .map(|p| case(&format!("p{p}"), p as f64 / 10.0, 4))
            .collect();
        cases.extend((0..50).map(|_| case("heavy", 5.0, 4)));
        let f = factor(&cases, 40, 0.5, None).unwrap();
        assert!((f.programs - 11.0).abs() < 1e-9);
        assert!((f.factor.ln() - 0.5).abs() < 1e-9, "{}", f.factor.ln());
        let top = factor(&cases, 40, 0.99, None).unwrap();
        assert!((top.factor.ln() - 5.0).abs() < 1e-9);
        // Held out, the heavy program no longer sets the top.
        let held = factor(&cases, 40, 0.99, Some("heavy")).unwrap();
        assert!((held.factor.ln() - 0.9).abs() < 1e-9);
        // Too few programs like it: refused.
        assert!(factor(&cases[..5], 40, 0.9, None).is_none());
    }

    #[test]
    fn cases_near_the_distance_weigh_more() {
        let mut cases: Vec<Case> = (0..10).map(|p| case(&format!("n{p}"), 0.1, 2)).collect();
        cases.extend((0..10).map(|p| case(&format!("f{p}"), 1.0, 64)));
        let near = factor(&cases, 20, 0.5, None).unwrap();
        let far = factor(&cases, 640, 0.5, None).unwrap();
        assert!((near.factor.ln() - 0.1).abs() < 1e-9);
        assert!((far.factor.ln() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_longer_run_never_gets_a_smaller_factor() {
        // Near cases wild, far ones tame: at the far distance alone the
        // quantile would be the tame one; the factor keeps the nearer one's.
        let mut cases: Vec<Case> = (0..10).map(|p| case(&format!("n{p}"), 1.0, 2)).collect();
        cases.extend((0..10).map(|p| case(&format!("f{p}"), 0.1, 64)));
        let near = factor(&cases, 20, 0.5, None).unwrap();
        let far = factor(&cases, 640, 0.5, None).unwrap();
        assert!((near.factor.ln() - 1.0).abs() < 1e-9);
        assert!(far.factor >= near.factor, "{far:?} {near:?}");
    }
}
