//! Calibration cases from recorded programs: each stratum's probe runs and
//! the full runs they did not see, read from timings folders.
//!
//! A program is one folder. With `probe/` and `full/` inside (the corpus's
//! layout), those hold its probes and its full runs. Otherwise (a campaign's
//! timings folder) the runs of each stratum are told apart by how they ended:
//! the runs that reached the stratum's largest unit count and did not fail
//! are full runs, the shorter ones stopped by `--units` (`end = limit`) are
//! probes; killed and failed runs are left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{cut, Case, Centre, Form};
use crate::error::Result;
use crate::timings::{read_timings, IngestOptions, IngestWarning, RunEnd, RunTimings};

/// The probe divisors of N for the cases cut from full runs: probes of N/2
/// ... N/32 units (at least 2), so that the cases span N/K from 2 to 32.
const CUT_DIVISORS: [u64; 5] = [2, 4, 8, 16, 32];
/// How many other full runs a cut probe takes (the corpus's 3 seeds).
const CUT_SEEDS: usize = 3;

/// One stratum of a program: its probes and its full runs with their totals.
#[derive(Debug, Clone)]
pub struct StratumRuns {
    pub program: String,
    pub stratum: String,
    pub probes: Vec<RunTimings>,
    /// Full runs and the time each took (its end row's, else its last unit's).
    pub full: Vec<(RunTimings, f64)>,
}

/// A run's length and total time, if it ran to completion: ended by itself
/// with status 0, stopped at its unit count, or with no end row.
fn completed(run: &RunTimings) -> Option<(u64, f64)> {
    let &(last, t) = run.points.last()?;
    match &run.end {
        None => Some((last, t)),
        Some((RunEnd::Exit(0) | RunEnd::Limit, _, end_t)) => Some((last, end_t.max(t))),
        Some(_) => None,
    }
}

/// Whether `dir` is one program in the corpus's layout (`probe/`, `full/`).
pub fn is_program(dir: &Path) -> bool {
    dir.join("probe").is_dir() && dir.join("full").is_dir()
}

/// The program folders `dirs` name: each DIR that is a program (or holds
/// none), else its subfolders that are programs, in name order.
pub fn program_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in dirs {
        let mut inner: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| is_program(p))
                    .collect()
            })
            .unwrap_or_default();
        inner.sort();
        if is_program(dir) || inner.is_empty() {
            inner = vec![dir.clone()];
        }
        out.extend(inner);
    }
    out
}

/// Reads one program's folder (see the module docs), with the reader's
/// warnings (a cut last line, ...) for the caller to show.
pub fn read_program(dir: &Path) -> Result<(Vec<StratumRuns>, Vec<IngestWarning>)> {
    let program = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut warnings = Vec::new();
    let mut read = |path: PathBuf| -> Result<Vec<RunTimings>> {
        let timings = read_timings(&[path], &IngestOptions::default())?;
        warnings.extend(timings.warnings);
        Ok(timings.runs)
    };
    let mut strata: BTreeMap<String, StratumRuns> = BTreeMap::new();
    fn slot<'a>(
        strata: &'a mut BTreeMap<String, StratumRuns>,
        program: &str,
        stratum: &str,
    ) -> &'a mut StratumRuns {
        strata
            .entry(stratum.to_string())
            .or_insert_with(|| StratumRuns {
                program: program.to_string(),
                stratum: stratum.to_string(),
                probes: Vec::new(),
                full: Vec::new(),
            })
    }
    if is_program(dir) {
        for run in read(dir.join("probe"))? {
            slot(&mut strata, &program, &run.stratum.canonical())
                .probes
                .push(run);
        }
        for run in read(dir.join("full"))? {
            if let Some((_, total)) = completed(&run) {
                slot(&mut strata, &program, &run.stratum.canonical())
                    .full
                    .push((run, total));
            }
        }
    } else {
        let runs = read(dir.to_path_buf())?;
        let mut longest: BTreeMap<String, u64> = BTreeMap::new();
        for run in &runs {
            let n = run.points.last().map_or(0, |p| p.0);
            let e = longest.entry(run.stratum.canonical()).or_default();
            *e = (*e).max(n);
        }
        for run in runs {
            let stratum = run.stratum.canonical();
            let Some((n, total)) = completed(&run) else {
                continue;
            };
            if n == longest[&stratum] {
                slot(&mut strata, &program, &stratum)
                    .full
                    .push((run, total));
            } else if matches!(run.end, Some((RunEnd::Limit, _, _))) {
                slot(&mut strata, &program, &stratum).probes.push(run);
            }
        }
    }
    let strata = strata
        .into_values()
        .filter(|s| !s.full.is_empty())
        .collect();
    Ok((strata, warnings))
}

/// The cases of a stratum: its recorded probes against each full run, and
/// probes cut from other full runs against each one in turn.
pub fn stratum_cases(s: &StratumRuns, form: Form) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut push = |probes: &[&[(u64, f64)]], run: &RunTimings, total: f64, recorded: bool| {
        let Ok(centre) = Centre::fit(probes, form) else {
            return;
        };
        let n = run.points.last().map_or(0, |p| p.0);
        let k = centre.probe_units();
        if n <= k {
            return;
        }
        let (mid, slow) = centre.project(n);
        cases.push(Case {
            program: s.program.clone(),
            stratum: s.stratum.clone(),
            group: centre.group(),
            probe_units: k,
            units: n,
            e_centre: (total / mid).ln(),
            e_slowest: (total / slow).ln(),
            recorded,
        });
    };
    if !s.probes.is_empty() {
        let probes: Vec<&[(u64, f64)]> = s.probes.iter().map(|r| r.points.as_slice()).collect();
        for (run, total) in &s.full {
            push(&probes, run, *total, true);
        }
    }
    let m = s.full.len();
    if m >= 2 {
        for (j, (held, total)) in s.full.iter().enumerate() {
            let n = held.points.last().map_or(0, |p| p.0);
            let mut ks: Vec<u64> = CUT_DIVISORS
                .iter()
                .map(|d| n / d)
                .filter(|k| *k >= 2)
                .collect();
            ks.dedup();
            for k in ks {
                let others: Vec<Vec<(u64, f64)>> = (1..m)
                    .take(CUT_SEEDS)
                    .map(|o| cut(&s.full[(j + o) % m].0, k))
                    .collect();
                let refs: Vec<&[(u64, f64)]> = others.iter().map(Vec::as_slice).collect();
                push(&refs, held, *total, false);
            }
        }
    }
    cases
}

/// Every case of every program.
pub fn all_cases(programs: &[StratumRuns], form: Form) -> Vec<Case> {
    programs
        .iter()
        .flat_map(|s| stratum_cases(s, form))
        .collect()
}
