//! Generated campaigns whose per-unit cost follows none of calib's fitted forms,
//! for checking that the stated confidence holds where the model is wrong.
//!
//! ```text
//! cargo run --release --example shapes -- OUT_DIR [campaigns] [runs] [units]
//! ```
//!
//! Writes `OUT_DIR/<shape>.csv`: per shape, `campaigns` strata (one campaign
//! each, its own random parameters) of `runs` finished runs of `units` units, in
//! the timings contract with end rows, ready for `calib backtest`. Every run of a
//! campaign differs from the others by a log-normal level (sd 5%) and by its own
//! draw of the shape's random parts, as seeds of one configuration do.
//!
//! Beside each, `OUT_DIR/<shape>.features` (`run,feature_unit,flat_through`):
//! the first unit at which each run shows its shape's feature (see
//! [`unit_costs`]), so that a backtest's misses can be split by whether its
//! probe runs reached that unit, i.e. whether the probe could have seen what was
//! coming; and the last unit up to which the run's cost, leaving out its level
//! and its 3% unit noise, stays within 1% of its first unit's. A probe whose
//! runs all stop by then is a constant cost to within a trend that its own unit
//! noise hides: whatever the campaign does later, such a probe is distributed
//! as a constant-cost program's, and every method budgets it as it budgets one.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use calib::synth::Rng;

/// The shapes: each returns the per-unit cost of units 1..=n of one run, given the
/// campaign's parameters (drawn from `campaign`) and the run's randomness (`run`).
const SHAPES: [&str; 7] = [
    "saturating",
    "exponential_onset",
    "piecewise_regimes",
    "decelerating_kink",
    "random_walk_rate",
    "heavy_tailed_noise",
    "transient_slow_units",
];

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.uniform()
}

/// Student t with 2 degrees of freedom: a heavy tail with a finite mean.
fn student_t2(rng: &mut Rng) -> f64 {
    let z = rng.normal();
    let chi2 = rng.normal().powi(2) + rng.normal().powi(2);
    z / (chi2 / 2.0).sqrt()
}

/// Campaign parameters: a draw per campaign, shared by its runs.
struct Campaign {
    base: f64,
    p: [f64; 4],
}

fn campaign(shape: &str, n: u64, rng: &mut Rng) -> Campaign {
    let n = n as f64;
    let base = uniform(rng, 0.5, 5.0);
    let p = match shape {
        // c(i) = base (1 + g (1 - exp(-i / tau))): rises, then levels off.
        "saturating" => [
            uniform(rng, 0.5, 3.0),
            uniform(rng, 0.05, 0.5) * n,
            0.0,
            0.0,
        ],
        // c(i) = base (1 + h exp((i - onset) / scale)), capped at 20 x base.
        "exponential_onset" => [
            uniform(rng, 0.05, 0.3),
            uniform(rng, 0.1, 0.8) * n,
            uniform(rng, 0.05, 0.3) * n,
            0.0,
        ],
        // Flat, then a jump by a factor (up or down) at a random unit.
        "piecewise_regimes" => [
            uniform(rng, 0.05, 0.9) * n,
            uniform(rng, 0.6, 2.0),
            0.0,
            0.0,
        ],
        // Linear rise up to a kink, then a tenth of the slope.
        "decelerating_kink" => [
            uniform(rng, 0.005, 0.05),
            uniform(rng, 0.1, 0.6) * n,
            0.0,
            0.0,
        ],
        // ln c follows a random walk: step sd per unit.
        "random_walk_rate" => [uniform(rng, 0.005, 0.03), 0.0, 0.0, 0.0],
        // A gentle linear trend under heavy-tailed unit noise.
        "heavy_tailed_noise" => [uniform(rng, 0.0, 0.01), uniform(rng, 0.02, 0.1), 0.0, 0.0],
        // Constant, with a few units 5-20x slower (GC pauses, a noisy neighbour).
        "transient_slow_units" => [uniform(rng, 0.01, 0.05), uniform(rng, 5.0, 20.0), 0.0, 0.0],
        _ => unreachable!(),
    };
    Campaign { base, p }
}

/// One run's per-unit costs, the first unit at which the run shows its
/// shape's feature (0 when it never does): the event a probe must include to
/// see what is coming, and the last unit through which its cost is flat (see
/// the module docs). Saturation bends from unit 1; the onset's feature is the
/// unit whose cost is 10% above unit 1's; a regime's or a kink's, the first unit
/// after the change; a random walk's, the first unit 10% off its start; heavy
/// tails', the first unit at least 1.5 times its trend; transients', the first
/// slow unit.
fn unit_costs(shape: &str, c: &Campaign, n: u64, rng: &mut Rng) -> (Vec<f64>, u64, u64) {
    let level = (0.05 * rng.normal()).exp() * c.base;
    let mut walk = 0.0;
    let mut feature = 0;
    let mut first_cost = None;
    let mut first_shape_cost = None;
    let mut flat_through = 0;
    let mut still_flat = true;
    let costs = (1..=n)
        .map(|i| {
            let x = i as f64;
            let noise = (0.03 * rng.normal()).exp();
            let (cost, shows_feature) = match shape {
                "saturating" => (1.0 + c.p[0] * (1.0 - (-x / c.p[1]).exp()), true),
                "exponential_onset" => {
                    let cost = (1.0 + c.p[0] * ((x - c.p[1]) / c.p[2]).exp()).min(20.0);
                    (cost, cost >= 1.1 * *first_cost.get_or_insert(cost))
                }
                "piecewise_regimes" => {
                    if x <= c.p[0] {
                        (1.0, false)
                    } else {
                        (c.p[1], true)
                    }
                }
                "decelerating_kink" => (
                    1.0 + c.p[0] * x.min(c.p[1]) + 0.1 * c.p[0] * (x - c.p[1]).max(0.0),
                    x > c.p[1],
                ),
                "random_walk_rate" => {
                    walk += c.p[0] * rng.normal();
                    (walk.exp(), walk.abs() >= 1.1f64.ln())
                }
                "heavy_tailed_noise" => {
                    let tail = (c.p[1] * student_t2(rng)).exp().min(50.0);
                    ((1.0 + c.p[0] * x) * tail, tail >= 1.5)
                }
                "transient_slow_units" => {
                    if rng.uniform() < c.p[0] {
                        (c.p[1], true)
                    } else {
                        (1.0, false)
                    }
                }
                _ => unreachable!(),
            };
            if shows_feature && feature == 0 {
                feature = i;
            }
            let first: f64 = *first_shape_cost.get_or_insert(cost);
            still_flat = still_flat && (cost / first - 1.0).abs() < 0.01;
            if still_flat {
                flat_through = i;
            }
            level * cost * noise
        })
        .collect();
    (costs, feature, flat_through)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = PathBuf::from(
        args.first()
            .expect("usage: shapes OUT_DIR [campaigns] [runs] [units]"),
    );
    let num = |i: usize, d: u64| {
        args.get(i)
            .map(|s| s.parse().expect("a number"))
            .unwrap_or(d)
    };
    let (campaigns, runs, units) = (num(1, 1000), num(2, 6), num(3, 100));
    std::fs::create_dir_all(&out)?;
    for (k, shape) in SHAPES.iter().enumerate() {
        let mut rng = Rng::new(2026 + k as u64);
        let mut text = String::from("run,stratum,unit,elapsed_s,end\n");
        let mut features = String::from("run,feature_unit,flat_through\n");
        for j in 0..campaigns {
            let c = campaign(shape, units, &mut rng);
            let stratum = format!("\"campaign={j:04},shape={shape}\"");
            for r in 0..runs {
                let startup = c.base * uniform(&mut rng, 1.0, 3.0);
                let mut t = startup;
                let (costs, feature, flat_through) = unit_costs(shape, &c, units, &mut rng);
                let _ = writeln!(features, "c{j}r{r},{feature},{flat_through}");
                for (i, cost) in costs.iter().enumerate() {
                    t += cost;
                    let _ = writeln!(text, "c{j}r{r},{stratum},{},{t:.6},", i + 1);
                }
                let _ = writeln!(text, "c{j}r{r},{stratum},{units},{:.6},exit:0", t + 0.01);
            }
        }
        let path = out.join(format!("{shape}.csv"));
        std::fs::File::create(&path)?.write_all(text.as_bytes())?;
        std::fs::File::create(out.join(format!("{shape}.features")))?
            .write_all(features.as_bytes())?;
        eprintln!(
            "wrote {} ({campaigns} campaigns x {runs} runs x {units} units)",
            path.display()
        );
    }
    Ok(())
}
