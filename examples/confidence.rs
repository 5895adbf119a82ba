//! Which default confidence of the calibrated bound costs the user least, on
//! the corpus of real programs, leave-one-program-out.
//!
//! ```text
//! cargo run --release --example confidence -- DIR...
//! ```
//!
//! Each DIR is a program (a folder with `probe/` and `full/`) or a folder of
//! them. For every stratum with recorded probes and every one of its full
//! runs (actual total T, N units), at each confidence q of [`CONFIDENCES`],
//! the bound is calib's: `U = max(slowest, slowest * factor)`, `slowest` the
//! slowest probe seed's projection to N, `factor` from the shipped table
//! (`assets/calibration.csv`) without the stratum's own program. Runs whose
//! probe has no per-unit signal, or whose factor rests on too few programs,
//! are refused; that does not depend on q, so every q is judged on the same
//! runs.
//!
//! # The cost model
//!
//! Cost is task-hours *requested*, as a ratio to T (1.0: the run requested
//! exactly what it used, which no bound achieves but an oracle would):
//!
//! - **requested**: the first submission asks for U, covered or not;
//! - **without a checkpoint**, a run with T > U is killed at U: those U
//!   task-hours are lost (they are the first request, counted once) and the
//!   run is submitted again from the start. The rerun is priced at
//!   [`RERUN`] x T, the same for every q (a rerun that asks for what the run
//!   needs; how the user picks it is not what q decides). Cost:
//!   `U/T + [T > U] * RERUN`;
//! - **with a checkpoint** (`calib resume`), the killed run resumes after the
//!   last unit it recorded by U: it loses the work since that unit and pays
//!   its startup again. The remainder's true time is
//!   `R = startup + T - t(k)`, t(k) the elapsed time at the last unit k
//!   recorded by U (R = T when no unit was), and it is requested at the
//!   first bound's margin `m = U / slowest` (>= 1), as `calib resume` sizes
//!   a remainder with `calib budget`'s margin. Cost: `U/T + [T > U] * m R / T`.
//!   The startup is the run's first recorded time beyond what its next units
//!   cost per unit (clamped at 0).
//!
//! Costs are averaged within each program first (every program weighs alike,
//! as the calibration does), then summarised by the median and the mean over
//! programs; the mean decides. A paired bootstrap over programs
//! ([`BOOTSTRAP`] resamples, fixed seed) says how often each q is the
//! minimiser, i.e. how firmly the corpus tells the levels apart. Without a
//! checkpoint the mean cost is `H + P M` (H the mean headroom U/T, M the
//! mean share of runs missed, P = [`RERUN`]), so the report also gives, for
//! each q, the rerun prices P at which it would be the minimiser: how far
//! the answer rests on pricing a rerun at 1 x T (counting the lost U a
//! second time, beside the request, adds less than 1 to P); and the same
//! for the median over programs, scanned over P, since a few programs whose
//! projection overshoots by orders of magnitude carry the mean.
//!
//! **One default for both scenarios** (fixed before the figures were seen):
//! the q whose larger relative excess over its scenario's minimum mean cost
//! is smallest (minimax regret).
//!
//! # Assumptions
//!
//! - Task-hours requested are the cost. Slurm charges the time used, so the
//!   requested surplus stands for the reservation: queue wait, backfill and
//!   the allocation held. Queue wait per resubmission is not in the model,
//!   which therefore favours low q with a checkpoint.
//! - The remainder's request is its *true* time times the margin, so a
//!   resubmission never misses again: `calib resume` projects the remainder
//!   from the killed run's own pace, with a small error beside the first
//!   bound's, which this leaves out.
//! - A checkpoint is written as each unit is recorded and costs nothing.
//! - The LOPO factor uses the shipped table, built from these same programs
//!   (probes cut from full runs included, as calib's chosen calibration);
//!   with n effective programs a distribution-free quantile holds at most at
//!   1 - 1/(n + 1).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use calib::calibrate::cases::{program_dirs, read_program, StratumRuns};
use calib::calibrate::{table, Centre, Table, FORM};
use calib::error::Origin;

/// The confidence levels compared.
const CONFIDENCES: [f64; 10] = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.925, 0.95, 0.975, 0.99];
/// The rerun's request without a checkpoint, per unit of T.
const RERUN: f64 = 1.0;
/// Bootstrap resamples of the programs, and the generator's seed.
const BOOTSTRAP: usize = 2000;
const SEED: u64 = 0x5eed_c0f1_dea7_2026;
/// How many of the costliest programs the report names.
const TOP: usize = 8;
/// The calibration table calib ships.
const TABLE: &str = include_str!("../assets/calibration.csv");

/// One budgeted full run at one confidence.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    covered: bool,
    /// The factor is at most 1: the bound is the slowest seed itself.
    floored: bool,
    /// U / T.
    headroom: f64,
    /// Cost / T without a checkpoint.
    no_checkpoint: f64,
    /// Cost / T with a checkpoint.
    checkpoint: f64,
}

/// One budgeted full run: its program, its factor's effective program count
/// and its outcome at each of [`CONFIDENCES`].
#[derive(Debug, Clone)]
struct Run {
    program: String,
    group: &'static str,
    programs: f64,
    outcomes: Vec<Outcome>,
}

/// The strata of the programs `dirs` name, as `calib calibrate` walks them.
fn read_corpus(dirs: &[PathBuf]) -> calib::error::Result<Vec<StratumRuns>> {
    let mut out = Vec::new();
    for p in program_dirs(dirs) {
        let (strata, warnings) = read_program(&p)?;
        for w in &warnings {
            eprintln!("warning: {}: {w}", p.display());
        }
        out.extend(strata);
    }
    Ok(out)
}

/// The run's startup: its first recorded time beyond what the next recorded
/// units cost per unit (0 with fewer than two points).
fn startup(points: &[(u64, f64)]) -> f64 {
    match points {
        [(u0, t0), (u1, t1), ..] => {
            let rate = (t1 - t0) / (u1 - u0) as f64;
            (t0 - rate * *u0 as f64).max(0.0)
        }
        _ => 0.0,
    }
}

/// The true time a checkpointed run killed at `upper` still needs: the
/// startup again and everything after the last unit recorded by `upper`.
fn remainder(points: &[(u64, f64)], total: f64, upper: f64) -> f64 {
    match points.iter().rev().find(|(_, t)| *t <= upper) {
        Some(&(_, t_k)) => startup(points) + (total - t_k),
        None => total,
    }
}

fn outcome(total: f64, upper: f64, margin: f64, points: &[(u64, f64)]) -> Outcome {
    let covered = total <= upper;
    let headroom = upper / total;
    let (rerun, resume) = if covered {
        (0.0, 0.0)
    } else {
        (RERUN, margin * remainder(points, total, upper) / total)
    };
    Outcome {
        covered,
        floored: margin <= 1.0,
        headroom,
        no_checkpoint: headroom + rerun,
        checkpoint: headroom + resume,
    }
}

/// Every budgeted run of the strata with recorded probes, and how many
/// full runs were refused.
fn budget(strata: &[StratumRuns], table: &Table) -> (Vec<Run>, usize) {
    let (mut runs, mut refused) = (Vec::new(), 0);
    for s in strata.iter().filter(|s| !s.probes.is_empty()) {
        let probes: Vec<&[(u64, f64)]> = s.probes.iter().map(|r| r.points.as_slice()).collect();
        let Ok(centre) = Centre::fit(&probes, FORM) else {
            refused += s.full.len();
            continue;
        };
        for (run, total) in &s.full {
            let n = run.points.last().map_or(0, |p| p.0);
            let slowest = centre.project(n).1;
            let bounds: Option<Vec<_>> = CONFIDENCES
                .iter()
                .map(|&q| {
                    table
                        .bound_leaving_out(&centre, n, q, Some(&s.program))
                        .ok()
                })
                .collect();
            let Some(bounds) = bounds else {
                refused += 1;
                continue;
            };
            let outcomes = bounds
                .iter()
                .map(|b| outcome(*total, b.upper_s, b.upper_s / slowest, &run.points))
                .collect();
            runs.push(Run {
                program: s.program.clone(),
                group: centre.group().name(),
                programs: bounds[0].factor.programs,
                outcomes,
            });
        }
    }
    (runs, refused)
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len().is_multiple_of(2) {
        (v[m - 1] + v[m]) / 2.0
    } else {
        v[m]
    }
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Per program (in name order), per confidence: the mean of `cost` over the
/// program's runs.
fn per_program(runs: &[Run], cost: impl Fn(&Outcome) -> f64) -> Vec<Vec<f64>> {
    let mut by: BTreeMap<&str, Vec<&Run>> = BTreeMap::new();
    for r in runs {
        by.entry(r.program.as_str()).or_default().push(r);
    }
    by.values()
        .map(|rs| {
            (0..CONFIDENCES.len())
                .map(|q| mean(&rs.iter().map(|r| cost(&r.outcomes[q])).collect::<Vec<_>>()))
                .collect()
        })
        .collect()
}

/// The mean over programs at each confidence.
fn means(programs: &[Vec<f64>]) -> Vec<f64> {
    (0..CONFIDENCES.len())
        .map(|q| mean(&programs.iter().map(|p| p[q]).collect::<Vec<_>>()))
        .collect()
}

fn argmin(values: &[f64]) -> usize {
    (0..values.len())
        .min_by(|&a, &b| values[a].total_cmp(&values[b]))
        .expect("at least one confidence")
}

/// SplitMix64: a fixed, dependency-free generator for the bootstrap.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// How often each confidence minimises the mean over programs, over
/// bootstrap resamples of the programs (paired: one resample for every q).
fn wins(programs: &[Vec<f64>], rng: &mut SplitMix) -> Vec<f64> {
    let mut wins = vec![0usize; CONFIDENCES.len()];
    for _ in 0..BOOTSTRAP {
        let sample: Vec<Vec<f64>> = (0..programs.len())
            .map(|_| programs[rng.below(programs.len())].clone())
            .collect();
        wins[argmin(&means(&sample))] += 1;
    }
    wins.iter().map(|&w| w as f64 / BOOTSTRAP as f64).collect()
}

/// For each confidence, the rerun prices P >= 0 (in units of T) at which it
/// minimises the mean cost without a checkpoint, `H + P M` (H the mean
/// headroom, M the mean share of runs missed, both over programs): its piece
/// of the lower envelope of those lines, `None` when it has none.
fn rerun_prices(headroom: &[f64], missed: &[f64]) -> Vec<Option<(f64, f64)>> {
    let mut ranges = vec![None; headroom.len()];
    let steeper = |a: usize, b: usize| missed[a].total_cmp(&missed[b]);
    let mut current = (0..headroom.len())
        .min_by(|&a, &b| headroom[a].total_cmp(&headroom[b]).then(steeper(a, b)))
        .expect("at least one confidence");
    let mut from = 0.0;
    loop {
        // The line that crosses below the current one first as P grows.
        let next = (0..headroom.len())
            .filter(|&q| missed[q] < missed[current])
            .map(|q| {
                let at = (headroom[q] - headroom[current]) / (missed[current] - missed[q]);
                (q, at.max(from))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1).then(steeper(a.0, b.0)));
        let Some((q, at)) = next else {
            ranges[current] = Some((from, f64::INFINITY));
            return ranges;
        };
        if at > from {
            ranges[current] = Some((from, at));
        }
        (current, from) = (q, at);
    }
}

/// The same for the *median* over programs of `H_p + P M_p`, which is not
/// linear in P: scanned over P = 0 and 10^(k/100), k = -200..=400 (0.01 to
/// 10^4, steps of 2.3%). Each range is the first and last P of the scan at
/// which q is the minimiser, and whether q is it at every P between.
fn median_rerun_prices(
    headroom: &[Vec<f64>],
    covered: &[Vec<f64>],
) -> Vec<Option<(f64, f64, bool)>> {
    let prices = std::iter::once(0.0).chain((-200..=400).map(|k| 10f64.powf(f64::from(k) / 100.0)));
    let mut seen: Vec<Vec<(usize, f64)>> = vec![Vec::new(); CONFIDENCES.len()];
    for (step, p) in prices.enumerate() {
        let costs: Vec<f64> = (0..CONFIDENCES.len())
            .map(|q| {
                let at: Vec<f64> = headroom
                    .iter()
                    .zip(covered)
                    .map(|(h, c)| h[q] + p * (1.0 - c[q]))
                    .collect();
                median(&at)
            })
            .collect();
        seen[argmin(&costs)].push((step, p));
    }
    seen.iter()
        .map(|s| {
            let (&(first, a), &(last, b)) = (s.first()?, s.last()?);
            Some((a, b, last - first + 1 == s.len()))
        })
        .collect()
}

fn price_range(range: Option<(f64, f64)>) -> String {
    match range {
        None => "-".into(),
        Some((a, b)) if b.is_infinite() => format!(">= {a:.1}"),
        Some((a, b)) => format!("{a:.1} - {b:.1}"),
    }
}

fn scanned_range(range: Option<(f64, f64, bool)>) -> String {
    match range {
        None => "-".into(),
        Some((a, b, whole)) => format!(
            "{a:.2} - {b:.2}{}",
            if whole {
                ""
            } else {
                " (not at every P between)"
            }
        ),
    }
}

/// The largest confidence `n` exchangeable programs support.
fn supported(n: f64) -> f64 {
    1.0 - 1.0 / (n + 1.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dirs: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    if dirs.is_empty() {
        return Err("usage: confidence DIR... (program folders, or folders of them)".into());
    }
    let cases = table::read(TABLE, &Origin::file("assets/calibration.csv"))?;
    let strata = read_corpus(&dirs)?;
    for s in &strata {
        if !cases.iter().any(|c| c.program == s.program) {
            eprintln!(
                "warning: {} is not in the table: LOPO excludes nothing",
                s.program
            );
        }
    }
    let (runs, refused) = budget(&strata, &Table::new(cases.clone(), "calib's own".into()));
    let no_ck = per_program(&runs, |o| o.no_checkpoint);
    let ck = per_program(&runs, |o| o.checkpoint);
    let covered = per_program(&runs, |o| f64::from(u8::from(o.covered)));
    let headroom = per_program(&runs, |o| o.headroom);
    let missed: Vec<f64> = means(&covered).iter().map(|c| 1.0 - c).collect();
    let prices = rerun_prices(&means(&headroom), &missed);
    let median_prices = median_rerun_prices(&headroom, &covered);
    let (mean_no_ck, mean_ck) = (means(&no_ck), means(&ck));
    let (best_no_ck, best_ck) = (argmin(&mean_no_ck), argmin(&mean_ck));
    let mut rng = SplitMix(SEED);
    let (wins_no_ck, wins_ck) = (wins(&no_ck, &mut rng), wins(&ck, &mut rng));
    let effective: Vec<f64> = runs.iter().map(|r| r.programs).collect();
    let table_programs = {
        let mut names: Vec<&str> = cases.iter().map(|c| c.program.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names.len()
    };

    println!(
        "{} programs, {} strata with recorded probes; {} full runs budgeted, {} refused \
         (the same for every q); table: {} cases of {} programs, LOPO",
        no_ck.len(),
        strata.iter().filter(|s| !s.probes.is_empty()).count(),
        runs.len(),
        refused,
        cases.len(),
        table_programs
    );
    println!(
        "effective programs behind a factor (Factor::programs, per run): median {:.1}, \
         min {:.1}, max {:.1}; largest q they support, 1 - 1/(n+1): {:.3} at the median, \
         {:.3} at the min ({} programs less the one left out: {:.3})\n",
        median(&effective),
        effective.iter().copied().fold(f64::MAX, f64::min),
        effective.iter().copied().fold(0.0, f64::max),
        supported(median(&effective)),
        supported(effective.iter().copied().fold(f64::MAX, f64::min)),
        table_programs,
        supported(table_programs as f64 - 1.0),
    );
    println!(
        "| q | runs whose n_eff supports q | covered, runs | covered, program mean | \
         median U/T | U = slowest seed | no checkpoint: median / mean | bootstrap wins | \
         mean's minimiser for rerun price P | median's, scanned | \
         checkpoint: median / mean | bootstrap wins |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, &q) in CONFIDENCES.iter().enumerate() {
        let cover = runs.iter().filter(|r| r.outcomes[i].covered).count();
        let backed = effective.iter().filter(|&&n| supported(n) >= q).count();
        let headroom: Vec<f64> = runs.iter().map(|r| r.outcomes[i].headroom).collect();
        let floored = runs.iter().filter(|r| r.outcomes[i].floored).count();
        let column = |programs: &[Vec<f64>], best: usize| {
            let at: Vec<f64> = programs.iter().map(|p| p[i]).collect();
            format!(
                "{:.3} / {:.3}{}",
                median(&at),
                mean(&at),
                if i == best { " **min**" } else { "" }
            )
        };
        println!(
            "| {q} | {backed}/{} | {cover}/{} ({:.1}%) | {:.1}% | {:.2}x | {:.1}% | {} | {:.0}% | {} | {} | {} | {:.0}% |",
            runs.len(),
            runs.len(),
            100.0 * cover as f64 / runs.len() as f64,
            100.0 * (1.0 - missed[i]),
            median(&headroom),
            100.0 * floored as f64 / runs.len() as f64,
            column(&no_ck, best_no_ck),
            100.0 * wins_no_ck[i],
            price_range(prices[i]),
            scanned_range(median_prices[i]),
            column(&ck, best_ck),
            100.0 * wins_ck[i],
        );
    }
    let regret = |i: usize| {
        (mean_no_ck[i] / mean_no_ck[best_no_ck] - 1.0).max(mean_ck[i] / mean_ck[best_ck] - 1.0)
    };
    let default = (0..CONFIDENCES.len())
        .min_by(|&a, &b| regret(a).total_cmp(&regret(b)))
        .expect("at least one confidence");
    println!(
        "\nminimum mean cost: without a checkpoint at q = {} ({:.3}), with one at q = {} ({:.3})",
        CONFIDENCES[best_no_ck], mean_no_ck[best_no_ck], CONFIDENCES[best_ck], mean_ck[best_ck]
    );
    for (name, i) in [
        ("without-checkpoint minimiser", best_no_ck),
        ("with-checkpoint minimiser", best_ck),
        ("minimax-regret default", default),
    ] {
        println!(
            "{name} q = {}: without a checkpoint {:.3} (+{:.1}% over its minimum), \
             with one {:.3} (+{:.1}%)",
            CONFIDENCES[i],
            mean_no_ck[i],
            100.0 * (mean_no_ck[i] / mean_no_ck[best_no_ck] - 1.0),
            mean_ck[i],
            100.0 * (mean_ck[i] / mean_ck[best_ck] - 1.0),
        );
    }
    // What carries the mean at the default: the programs of largest cost.
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r.program.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| no_ck[b][default].total_cmp(&no_ck[a][default]));
    let sum: f64 = no_ck.iter().map(|p| p[default]).sum();
    println!(
        "\nlargest program costs without a checkpoint at q = {} (share of the mean):",
        CONFIDENCES[default]
    );
    for &k in order.iter().take(TOP) {
        let mut groups: Vec<&str> = runs
            .iter()
            .filter(|r| r.program == names[k])
            .map(|r| r.group)
            .collect();
        groups.sort_unstable();
        groups.dedup();
        println!(
            "  {}: {:.2} ({:.1}%), U/T {:.2} at q = {}, {:.2} at q = {}; {}",
            names[k],
            no_ck[k][default],
            100.0 * no_ck[k][default] / sum,
            headroom[k][default],
            CONFIDENCES[default],
            headroom[k][CONFIDENCES.len() - 1],
            CONFIDENCES[CONFIDENCES.len() - 1],
            groups.join("; ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_run_resumes_after_its_last_recorded_unit() {
        // Startup 2 s, 1 s per unit, 10 units: T = 12. Killed at 7.5 s after
        // unit 5 (7 s): it needs the startup again and units 6-10.
        let points: Vec<(u64, f64)> = (1..=10).map(|u| (u, 2.0 + u as f64)).collect();
        assert!((startup(&points) - 2.0).abs() < 1e-12);
        assert!((remainder(&points, 12.0, 7.5) - 7.0).abs() < 1e-12);
        assert_eq!(remainder(&points, 12.0, 1.0), 12.0);
        let o = outcome(12.0, 7.5, 1.5, &points);
        assert!(!o.covered);
        assert!((o.no_checkpoint - (7.5 / 12.0 + RERUN)).abs() < 1e-12);
        assert!((o.checkpoint - (7.5 + 1.5 * 7.0) / 12.0).abs() < 1e-12);
        let fine = outcome(12.0, 18.0, 1.5, &points);
        assert!(fine.covered && fine.no_checkpoint == 1.5 && fine.checkpoint == 1.5);
    }
}
