//! Deterministic generator of synthetic timings for tests, examples and benches.
//!
//! A hand-written PRNG (SplitMix64, Steele, Lea & Flood 2014) with Box–Muller
//! normals, so the same seed gives the same bytes on every platform and no `rand`
//! dependency is needed. Each run is generated as: startup, then per-unit
//! durations `c(i) x level x (1 + cv ε_i)` with ε_i standard normal (truncated so a
//! duration stays positive), written as cumulative `elapsed_s` in the timings
//! contract. The seed cases of design.md are provided as named scenarios.
//!
//! Compiled only with the `test-support` feature (the tests, examples and benches
//! switch it on through a dev-dependency), so it is not part of the public API.

use std::fmt::Write as _;

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.uniform(), self.uniform());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// The true per-unit cost of a synthetic workload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cost {
    Constant {
        a: f64,
    },
    /// Rises linearly from `first` at unit 1 to `last` at unit `at`.
    Linear {
        first: f64,
        last: f64,
        at: u64,
    },
    /// a + b ln i.
    Log {
        a: f64,
        b: f64,
    },
    /// a i^b.
    Power {
        a: f64,
        b: f64,
    },
}

impl Cost {
    /// c(i); the generator floors it at 1 µs (a linear decline may cross 0).
    pub fn unit(&self, i: u64) -> f64 {
        let x = i as f64;
        match *self {
            Cost::Constant { a } => a,
            Cost::Linear { first, last, at } => {
                first + (last - first) * (x - 1.0) / (at.max(2) - 1) as f64
            }
            Cost::Log { a, b } => a + b * x.ln(),
            Cost::Power { a, b } => a * x.powf(b),
        }
    }

    /// Σ_{i<=n} c(i), exactly (no noise).
    pub fn total(&self, n: u64) -> f64 {
        (1..=n).map(|i| self.unit(i)).sum()
    }
}

/// One synthetic run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub run: String,
    /// Canonical stratum text (`dataset=Y`).
    pub stratum: String,
    pub units: u64,
    pub startup_s: f64,
    pub cost: Cost,
    /// Multiplicative level of this run (seed effect).
    pub level: f64,
    /// Per-unit noise, coefficient of variation.
    pub noise_cv: f64,
    pub cluster: String,
    pub cpu_model: String,
}

impl RunSpec {
    /// The run's per-unit durations (startup not included), deterministic in `rng`.
    pub fn durations(&self, rng: &mut Rng) -> Vec<f64> {
        (1..=self.units)
            .map(|i| {
                let e = rng.normal().clamp(-3.0, 3.0);
                self.cost.unit(i).max(1e-6) * self.level * (1.0 + self.noise_cv * e).max(0.05)
            })
            .collect()
    }
}

/// The header calib fit reads (a subset of the contract's columns).
pub const HEADER: &str = "run,stratum,unit,elapsed_s,cluster,cpu_model\n";

/// Appends the unit rows of a run to `out` (CSV, no header); returns its total
/// elapsed seconds.
pub fn write_unit_rows(out: &mut String, spec: &RunSpec, rng: &mut Rng) -> f64 {
    write_probe_rows(out, spec, rng, spec.units)
}

/// Appends the rows of the first `probe_units` units of a run (a probe of it);
/// returns the elapsed seconds of the whole run, from the same random stream.
pub(crate) fn write_probe_rows(
    out: &mut String,
    spec: &RunSpec,
    rng: &mut Rng,
    probe_units: u64,
) -> f64 {
    let mut t = spec.startup_s;
    for (i, d) in spec.durations(rng).into_iter().enumerate() {
        t += d;
        if (i as u64) < probe_units {
            let _ = writeln!(
                out,
                "{},\"{}\",{},{:.3},{},{}",
                spec.run,
                spec.stratum,
                i + 1,
                t,
                spec.cluster,
                spec.cpu_model
            );
        }
    }
    t
}

/// Appends one run-length row (unit = the run's length); returns its elapsed seconds.
pub(crate) fn write_run_length_row(out: &mut String, spec: &RunSpec, rng: &mut Rng) -> f64 {
    let t = spec.startup_s + spec.durations(rng).iter().sum::<f64>();
    let _ = writeln!(
        out,
        "{},\"{}\",{},{:.3},{},{}",
        spec.run, spec.stratum, spec.units, t, spec.cluster, spec.cpu_model
    );
    t
}

fn spec(run: String, stratum: &str, units: u64, cost: Cost, level: f64, cv: f64) -> RunSpec {
    RunSpec {
        run,
        stratum: stratum.to_string(),
        units,
        startup_s: 0.0,
        cost,
        level,
        noise_cv: cv,
        cluster: "narval".to_string(),
        cpu_model: "AMD EPYC 7532".to_string(),
    }
}

/// Seed case 1: per-generation cost rising 140 -> 204 s over 100 generations.
pub const TREND_COST: Cost = Cost::Linear {
    first: 140.0,
    last: 204.0,
    at: 100,
};

/// Seed case 1's startup before the first generation, in seconds.
pub const TREND_STARTUP_S: f64 = 30.0;

/// Seed case 1. `runs` seeds, each probed for `probe_units` generations, 3% noise.
/// Returns the CSV and, per run, the elapsed time its full 100-generation run
/// would take (the same random stream continued).
pub fn trend_case(probe_units: u64, runs: usize, seed: u64) -> (String, Vec<f64>) {
    let mut csv = HEADER.to_string();
    let mut full = Vec::new();
    for k in 0..runs {
        let mut s = spec(
            format!("trend-s{k}"),
            "dataset=X",
            100,
            TREND_COST,
            1.0,
            0.03,
        );
        s.startup_s = TREND_STARTUP_S;
        let mut rng = Rng::new(seed.wrapping_add(k as u64 * 7919));
        full.push(write_probe_rows(&mut csv, &s, &mut rng, probe_units));
    }
    (csv, full)
}

/// Seed case 3 levels: in the slow dataset (385 s/generation at level 1) one seed
/// finishes 100 generations in 7:01 h and another needs 10.7 h.
pub(crate) const SPREAD_LEVELS: [f64; 3] = [25_260.0 / 38_500.0, 0.83, 38_520.0 / 38_500.0];

/// Seed case 3 (with case 2's fast dataset): `probe_units` generations of each
/// seed of the slow dataset (levels [`SPREAD_LEVELS`]) and of three seeds of a
/// fast dataset at 136 s/gen. Returns the CSV and, per slow seed, its full
/// 100-generation time.
pub fn spread_case(probe_units: u64, seed: u64) -> (String, Vec<f64>) {
    let mut csv = HEADER.to_string();
    let mut full = Vec::new();
    let slow = Cost::Constant { a: 385.0 };
    for (k, level) in SPREAD_LEVELS.iter().enumerate() {
        let mut s = spec(format!("slow-s{k}"), "dataset=Y", 100, slow, *level, 0.03);
        s.startup_s = 20.0;
        let mut rng = Rng::new(seed.wrapping_add(101 * k as u64));
        full.push(write_probe_rows(&mut csv, &s, &mut rng, probe_units));
    }
    for k in 0..3u64 {
        let mut s = spec(
            format!("fast-s{k}"),
            "dataset=Z",
            probe_units,
            Cost::Constant { a: 136.0 },
            1.0 + 0.04 * k as f64,
            0.03,
        );
        s.startup_s = 20.0;
        let mut rng = Rng::new(seed.wrapping_add(7777 + k));
        write_unit_rows(&mut csv, &s, &mut rng);
    }
    (csv, full)
}

/// The header of [`timeout_case`]: the contract's columns as `calib probe`
/// writes them for an array task (its job id, how the run ended).
pub const TIMEOUT_HEADER: &str = "run,stratum,unit,elapsed_s,cluster,cpu_model,job_id,end\n";

/// Seed case 2's failure: the slow dataset's three seeds (levels
/// [`SPREAD_LEVELS`], 385 s/gen, 20 s startup, 3% noise) run as tasks 0-2 of
/// array job 4242 (the stratum's own array, one task per cell of
/// `data/campaign/grid.toml`, as `calib budget --grid` numbers them) under one
/// global walltime of `walltime_s` seconds, each
/// probed: a task whose 100 generations fit ends with `exit:0`; the others
/// are cut at the walltime (`signal:TERM`), keeping the generations they
/// finished (at 8 h, the slowest stops at generation 74).
pub fn timeout_case(walltime_s: f64, seed: u64) -> String {
    let mut csv = TIMEOUT_HEADER.to_string();
    for (k, level) in SPREAD_LEVELS.iter().enumerate() {
        let mut s = spec(
            format!("campaign-Y-s{k}"),
            "dataset=Y",
            100,
            Cost::Constant { a: 385.0 },
            *level,
            0.03,
        );
        s.startup_s = 20.0;
        let job = format!("4242_{k}");
        let mut rng = Rng::new(seed.wrapping_add(31 * k as u64));
        let mut t = s.startup_s;
        let mut done = 0;
        for d in s.durations(&mut rng) {
            if t + d > walltime_s {
                break;
            }
            t += d;
            done += 1;
            let _ = writeln!(
                csv,
                "{},\"{}\",{done},{t:.3},{},{},{job},",
                s.run, s.stratum, s.cluster, s.cpu_model
            );
        }
        let (end, at) = if done == s.units {
            ("exit:0", t + 1.0)
        } else {
            ("signal:TERM", walltime_s)
        };
        let _ = writeln!(
            csv,
            "{},\"{}\",{done},{at:.3},{},{},{job},{end}",
            s.run, s.stratum, s.cluster, s.cpu_model
        );
    }
    csv
}

/// Seed case 4's workload: c(i) = a + b ln i, calibrated so that the average
/// per-unit cost is 459 ms at 100 units and 678 ms at 10,000 (564 -> 568 ms at 1,000).
pub const RUN_LENGTH_COST: Cost = Cost::Log {
    a: 0.284_84,
    b: 0.047_890,
};

/// Seed case 4: `runs_per_length` runs at each length, one run-length row each;
/// 2% noise per unit and a 2% log-normal level per run.
pub fn run_length_case(lengths: &[u64], runs_per_length: usize, seed: u64) -> String {
    let mut csv = HEADER.to_string();
    let mut rng = Rng::new(seed);
    for &n in lengths {
        for k in 0..runs_per_length {
            let level = (0.02 * rng.normal().clamp(-3.0, 3.0)).exp();
            let s = spec(
                format!("len{n}-r{k}"),
                "workload=W",
                n,
                RUN_LENGTH_COST,
                level,
                0.02,
            );
            write_run_length_row(&mut csv, &s, &mut rng);
        }
    }
    csv
}

/// The benchmark table: `strata` strata x `runs_per_stratum` runs x `units`
/// unit rows, mixed forms and levels, written to `out` as one CSV.
pub fn bench_case(
    out: &mut impl std::io::Write,
    strata: usize,
    runs_per_stratum: usize,
    units: u64,
    seed: u64,
) -> std::io::Result<()> {
    out.write_all(HEADER.as_bytes())?;
    let mut rng = Rng::new(seed);
    let mut buf = String::with_capacity(64 * units as usize);
    for s in 0..strata {
        let base = 1.0 + 10.0 * rng.uniform();
        let cost = match s % 4 {
            0 => Cost::Constant { a: base },
            1 => Cost::Linear {
                first: base,
                last: base * 1.4,
                at: units,
            },
            2 => Cost::Log {
                a: base,
                b: base * 0.05,
            },
            _ => Cost::Power { a: base, b: 0.1 },
        };
        for r in 0..runs_per_stratum {
            let level = (0.05 * rng.normal()).exp();
            let mut spec = spec(
                format!("s{s:03}-r{r:02}"),
                &format!("cell=c{s:03}"),
                units,
                cost,
                level,
                0.05,
            );
            spec.startup_s = 5.0;
            buf.clear();
            write_unit_rows(&mut buf, &spec, &mut rng);
            out.write_all(buf.as_bytes())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_distinct_seeds() {
        assert_eq!(trend_case(7, 1, 1).0, trend_case(7, 1, 1).0);
        assert_ne!(trend_case(7, 1, 1).0, trend_case(7, 1, 2).0);
        let mut r = Rng::new(3);
        let xs: Vec<f64> = (0..20000).map(|_| r.normal()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(
            mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
            "{mean} {var}"
        );
    }

    #[test]
    fn seed_figures_hold_for_the_generators() {
        // Case 1: 140 -> 204 s; 100 gens cost 17,200 s; a 7-gen mean underestimates 1.20x.
        let total = TREND_COST.total(100);
        assert!((total - 17_200.0).abs() < 1.0, "{total}");
        let mean7 = TREND_COST.total(7) / 7.0;
        assert!((total / (100.0 * mean7) - 1.20).abs() < 0.015);
        // Case 4: 459 ms at 100, 678 at 10,000.
        let avg = |n: u64| RUN_LENGTH_COST.total(n) / n as f64;
        assert!((avg(100) - 0.459).abs() < 0.001, "{}", avg(100));
        assert!((avg(10_000) - 0.678).abs() < 0.001, "{}", avg(10_000));
        assert!((avg(1_000) - 0.564).abs() < 0.006, "{}", avg(1_000));
    }
}
