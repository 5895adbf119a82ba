//! Candidate forms of per-unit cost c(i) and their cumulative sums C(N).
//!
//! A run of N units is projected as `startup + C(N)`, `C(N) = c(1) + ... + c(N)`.
//! The expected duration of the interval (u0, u1] of a run is
//! `startup * 1{u0 = 0} + C(u1) - C(u0)`.
//!
//! | form | c(i) | C(N) |
//! |---|---|---|
//! | constant | a | a N |
//! | linear | a + b i | a N + b N(N+1)/2 |
//! | log | a + b ln i | a N + b ln N! (ln Γ(N+1)) |
//! | power | a i^b | a H_N(b), H_N(b) = Σ i^b (generalised harmonic number) |
//! | geometric | a e^{b(i-1)} | a G_N(b), G_N(b) = (e^{bN} - 1) / (e^b - 1) |
//! | onset | a + h e^{b(i-1)} | a N + h G_N(b) |
//! | base power | a + h i^b | a N + h H_N(b) |
//!
//! The first three are linear in (startup, a, b); the power law and the
//! geometric form are linear in (startup, a) for a fixed b, and the onset in
//! (startup, a, h), which [`crate::fit::lsq`] profiles. The onset is a
//! constant base with a part that multiplies per unit: the cost of a program
//! whose growing part starts small against its fixed work (a search frontier,
//! a cache of growing misses) and takes over later in the run. It is fitted
//! only where the probe shows such a takeover (see `crate::fit`), and only
//! where the holdout tells it from the base power, its polynomial twin: a
//! base with a part that grows as a power of the unit (a quadratic or cubic
//! cost), which the fit scores against the onset but never states (it is
//! not in [`Form::ALL`]).
//! The geometric form is the cost of iterative
//! deepening and of searches whose frontier multiplies (each unit costs e^b
//! times the last); it is only a candidate when the probe itself shows such
//! growth (see `crate::fit`), because beyond the probe it outgrows every other
//! form by orders of magnitude. Its sums are capped at [`MAX_PROJECTED_S`] so
//! that projections stay finite numbers.
//! H_N(b) is summed exactly up to N = 64 and by the Euler–Maclaurin formula
//! (three correction terms) beyond, which is accurate to ~1e-12 relative there.

use serde::{Deserialize, Serialize};
use statrs::function::gamma::ln_gamma;

/// A candidate form of per-unit cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    Constant,
    Linear,
    Log,
    Power,
    Geometric,
    Onset,
    /// Scored against the onset only; no model file states it.
    BasePower,
}

/// Parameters a form may have: (startup, a, b, h), in the covariance's order.
pub const PARAMS: usize = 4;

/// Covariance of (startup, a, b, h); rows of parameters a form lacks are zero.
pub type Covariance = [[f64; PARAMS]; PARAMS];

impl Form {
    /// Every form a model file may state.
    pub const ALL: [Form; 6] = [
        Form::Constant,
        Form::Linear,
        Form::Log,
        Form::Power,
        Form::Geometric,
        Form::Onset,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Form::Constant => "constant",
            Form::Linear => "linear",
            Form::Log => "log",
            Form::Power => "power",
            Form::Geometric => "geometric",
            Form::Onset => "onset",
            Form::BasePower => "base_power",
        }
    }

    /// The formula of c(i), for humans.
    pub fn formula(self) -> &'static str {
        match self {
            Form::Constant => "c(i) = a",
            Form::Linear => "c(i) = a + b*i",
            Form::Log => "c(i) = a + b*ln(i)",
            Form::Power => "c(i) = a*i^b",
            Form::Geometric => "c(i) = a*exp(b*(i-1))",
            Form::Onset => "c(i) = a + h*exp(b*(i-1))",
            Form::BasePower => "c(i) = a + h*i^b",
        }
    }

    /// Parameters of c(i) besides the startup term.
    pub fn has_b(self) -> bool {
        !matches!(self, Form::Constant)
    }

    /// How many of (startup, a, b, h) the form has.
    pub fn param_count(self) -> usize {
        match self {
            Form::Constant => 2,
            Form::Onset | Form::BasePower => 4,
            _ => 3,
        }
    }

    /// The range of b for the forms whose b is profiled rather than solved
    /// for (b enters nonlinearly): the power law's exponent, the geometric
    /// form's log growth factor per unit (0 to ln 10: up to ten times the
    /// last unit's cost), the onset's growing part's (from 0.01: below it the
    /// growing part is a second constant over any probe, indistinguishable
    /// from the base). `None` for the forms linear in b.
    pub fn profiled_range(self) -> Option<std::ops::RangeInclusive<f64>> {
        match self {
            Form::Power => Some(-1.0..=3.0),
            Form::Geometric => Some(0.0..=std::f64::consts::LN_10),
            Form::Onset => Some(0.01..=std::f64::consts::LN_10),
            // Growth faster than linear: the twin of a takeoff.
            Form::BasePower => Some(1.0..=4.0),
            Form::Constant | Form::Linear | Form::Log => None,
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parameters of one form: startup seconds, a, b (unused for constant) and
/// h (the onset's multiplying part; 0 for every other form).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Params {
    pub startup: f64,
    pub a: f64,
    pub b: f64,
    #[serde(default)]
    pub h: f64,
}

impl Params {
    /// (startup, a, b, h), in the covariance's order.
    pub fn values(&self) -> [f64; PARAMS] {
        [self.startup, self.a, self.b, self.h]
    }
}

/// Largest cumulative cost a form states, seconds (about 3·10^22 years): the
/// geometric form outgrows any float within a few thousand units, and a
/// projection past every partition's limit only needs to say so.
pub const MAX_PROJECTED_S: f64 = 1e30;

/// `x` capped at [`MAX_PROJECTED_S`] (an overflow to +inf included).
fn capped(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.min(MAX_PROJECTED_S)
    }
}

/// `coefficient x growth`, 0 for a zero coefficient even when the growth
/// overflowed to +inf (0 x inf is NaN): a form without that part has none.
pub(crate) fn times(coefficient: f64, growth: f64) -> f64 {
    if coefficient == 0.0 {
        0.0
    } else {
        coefficient * growth
    }
}

/// G_N(b) = Σ_{i=1}^{N} e^{b(i-1)} = (e^{bN} - 1) / (e^b - 1), N when b = 0,
/// uncapped (+inf on overflow).
pub fn geometric_sum(n: u64, b: f64) -> f64 {
    let nf = n as f64;
    if b.abs() < 1e-12 {
        return nf;
    }
    (b * nf).exp_m1() / b.exp_m1()
}

/// ∂G_N(b)/∂b, by a central difference of [`geometric_sum`]; +inf once the
/// sum itself overflows (never inf - inf).
pub fn geometric_sum_db(n: u64, b: f64) -> f64 {
    let h = 1e-6;
    let above = geometric_sum(n, b + h);
    if !above.is_finite() {
        return f64::INFINITY;
    }
    (above - geometric_sum(n, b - h)) / (2.0 * h)
}

/// N(N+1)/2.
pub fn tri(n: f64) -> f64 {
    n * (n + 1.0) / 2.0
}

/// ln N! = ln Γ(N+1).
pub fn ln_fact(n: f64) -> f64 {
    if n < 1.5 {
        0.0
    } else {
        ln_gamma(n + 1.0)
    }
}

const EXACT_UP_TO: u64 = 64;

/// (round-robin slot, [(exponent bits, prefix sums)]).
type PrefixCache = (usize, Vec<(u64, [f64; 65])>);

thread_local! {
    /// Prefix sums Σ_{i<=k} i^b for k <= 64, for the last few exponents used
    /// (projections evaluate the same b many times).
    static PREFIX: std::cell::RefCell<PrefixCache> =
        const { std::cell::RefCell::new((0, Vec::new())) };
}

fn with_prefix<R>(b: f64, f: impl FnOnce(&[f64; 65]) -> R) -> R {
    PREFIX.with(|cell| {
        let mut cache = cell.borrow_mut();
        let key = b.to_bits();
        if let Some((_, p)) = cache.1.iter().find(|(k, _)| *k == key) {
            return f(p);
        }
        let mut p = [0.0; 65];
        for i in 1..=EXACT_UP_TO as usize {
            p[i] = p[i - 1] + (i as f64).powf(b);
        }
        let r = f(&p);
        let slot = cache.0;
        if cache.1.len() < 8 {
            cache.1.push((key, p));
        } else {
            cache.1[slot] = (key, p);
        }
        cache.0 = (slot + 1) % 8;
        r
    })
}

/// H_N(b) = Σ_{i=1}^{N} i^b.
pub fn harmonic(n: u64, b: f64) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let (at_n, head) = with_prefix(b, |p| {
        (p[n.min(EXACT_UP_TO) as usize], p[EXACT_UP_TO as usize])
    });
    if n <= EXACT_UP_TO {
        return at_n;
    }
    let m = EXACT_UP_TO as f64;
    let nf = n as f64;
    // Σ_{i=m+1}^{n} f(i) = ∫_m^n f + (f(n) - f(m))/2 + (f'(n) - f'(m))/12
    //                      - (f'''(n) - f'''(m))/720 + ...
    let integral = if (b + 1.0).abs() < 1e-12 {
        (nf / m).ln()
    } else {
        (nf.powf(b + 1.0) - m.powf(b + 1.0)) / (b + 1.0)
    };
    let f = |x: f64| x.powf(b);
    let f1 = |x: f64| b * x.powf(b - 1.0);
    let f3 = |x: f64| b * (b - 1.0) * (b - 2.0) * x.powf(b - 3.0);
    head + integral + (f(nf) - f(m)) / 2.0 + (f1(nf) - f1(m)) / 12.0 - (f3(nf) - f3(m)) / 720.0
}

/// ∂H_N(b)/∂b = Σ i^b ln i, by a central difference of [`harmonic`].
pub fn harmonic_db(n: u64, b: f64) -> f64 {
    let h = 1e-5;
    (harmonic(n, b + h) - harmonic(n, b - h)) / (2.0 * h)
}

/// The shape column of a form (the coefficient of `b`, or of `a` for power)
/// at N: G(N) with C(N) = a N + b G(N) (or a H_N(b) for power, a G_N(b) for
/// geometric).
pub fn shape(form: Form, n: u64, b: f64) -> f64 {
    let nf = n as f64;
    match form {
        Form::Constant => 0.0,
        Form::Linear => tri(nf),
        Form::Log => ln_fact(nf),
        Form::Power | Form::BasePower => harmonic(n, b),
        Form::Geometric | Form::Onset => capped(geometric_sum(n, b)),
    }
}

/// ∂/∂b of [`shape`] for the profiled forms, uncapped (0 for the others,
/// whose shape does not depend on b).
pub fn shape_db(form: Form, n: u64, b: f64) -> f64 {
    match form {
        Form::Power | Form::BasePower => harmonic_db(n, b),
        Form::Geometric | Form::Onset => geometric_sum_db(n, b),
        Form::Constant | Form::Linear | Form::Log => 0.0,
    }
}

/// Per-unit cost c(i) of a form (unclamped).
pub fn unit_cost(form: Form, p: &Params, i: f64) -> f64 {
    match form {
        Form::Constant => p.a,
        Form::Linear => p.a + p.b * i,
        Form::Log => p.a + p.b * i.max(1.0).ln(),
        Form::Power => p.a * i.max(1.0).powf(p.b),
        Form::Geometric => capped(times(p.a, (p.b * (i.max(1.0) - 1.0)).exp())),
        Form::Onset => capped(p.a + times(p.h, (p.b * (i.max(1.0) - 1.0)).exp())),
        Form::BasePower => p.a + p.h * i.max(1.0).powf(p.b),
    }
}

/// C(N) of a form (unclamped).
pub fn cumulative(form: Form, p: &Params, n: u64) -> f64 {
    let nf = n as f64;
    match form {
        Form::Constant => p.a * nf,
        Form::Linear => p.a * nf + p.b * tri(nf),
        Form::Log => p.a * nf + p.b * ln_fact(nf),
        Form::Power => p.a * harmonic(n, p.b),
        Form::Geometric => capped(times(p.a, geometric_sum(n, p.b))),
        Form::Onset => capped(p.a * nf + times(p.h, geometric_sum(n, p.b))),
        Form::BasePower => p.a * nf + p.h * harmonic(n, p.b),
    }
}

/// Gradient of `startup + C(N)` with respect to (startup, a, b, h).
pub fn gradient(form: Form, p: &Params, n: u64) -> [f64; PARAMS] {
    let nf = n as f64;
    match form {
        Form::Constant => [1.0, nf, 0.0, 0.0],
        Form::Linear => [1.0, nf, tri(nf), 0.0],
        Form::Log => [1.0, nf, ln_fact(nf), 0.0],
        Form::Power => [1.0, shape(form, n, p.b), p.a * shape_db(form, n, p.b), 0.0],
        Form::Geometric => [
            1.0,
            shape(form, n, p.b),
            capped(times(p.a, shape_db(form, n, p.b))),
            0.0,
        ],
        Form::Onset => [
            1.0,
            nf,
            capped(times(p.h, shape_db(form, n, p.b))),
            shape(form, n, p.b),
        ],
        Form::BasePower => [1.0, nf, p.h * shape_db(form, n, p.b), shape(form, n, p.b)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn harmonic_matches_the_plain_sum() {
        for &b in &[-1.0, -0.5, 0.0, 0.3, 1.0, 2.0, 2.7] {
            for &n in &[1u64, 10, 64, 65, 100, 1000, 5000] {
                let exact: f64 = (1..=n).map(|i| (i as f64).powf(b)).sum();
                assert_relative_eq!(harmonic(n, b), exact, max_relative = 1e-10);
            }
        }
    }

    #[test]
    fn geometric_sum_matches_the_plain_sum_and_stays_finite() {
        for &b in &[0.0, 1e-9, 0.05, 0.4, 1.2, std::f64::consts::LN_10] {
            for &n in &[1u64, 2, 10, 60] {
                let exact: f64 = (1..=n).map(|i| (b * (i - 1) as f64).exp()).sum();
                assert_relative_eq!(geometric_sum(n, b), exact, max_relative = 1e-9);
            }
        }
        let p = Params {
            startup: 0.0,
            a: 1.0,
            b: 1.0,
            h: 1.0,
        };
        // e^10000 overflows a float; the projection says "past every limit".
        for form in [Form::Geometric, Form::Onset] {
            assert_eq!(cumulative(form, &p, 10_000), MAX_PROJECTED_S);
            assert!(gradient(form, &p, 10_000).iter().all(|g| g.is_finite()));
        }
    }

    #[test]
    fn cumulative_sums_the_unit_costs() {
        let p = Params {
            startup: 0.0,
            a: 2.0,
            b: 0.3,
            h: 0.01,
        };
        for form in Form::ALL.into_iter().chain([Form::BasePower]) {
            // 60 units: the geometric sums are still below their cap there.
            let n = if matches!(form, Form::Geometric | Form::Onset) {
                60
            } else {
                500
            };
            let sum: f64 = (1..=n).map(|i| unit_cost(form, &p, i as f64)).sum();
            assert_relative_eq!(cumulative(form, &p, n), sum, max_relative = 1e-9);
        }
    }

    /// The gradient is the derivative of the total: central differences of
    /// `startup + C(N)` in each parameter, for every form.
    #[test]
    fn gradient_matches_central_differences() {
        let p = Params {
            startup: 3.0,
            a: 2.0,
            b: 0.2,
            h: 0.05,
        };
        let total = |form: Form, q: &Params, n: u64| q.startup + cumulative(form, q, n);
        for form in Form::ALL.into_iter().chain([Form::BasePower]) {
            for n in [1u64, 7, 40] {
                let g = gradient(form, &p, n);
                for j in 0..form.param_count() {
                    let step = 1e-6;
                    let mut up = p.values();
                    let mut down = p.values();
                    up[j] += step;
                    down[j] -= step;
                    let at = |v: [f64; PARAMS]| Params {
                        startup: v[0],
                        a: v[1],
                        b: v[2],
                        h: v[3],
                    };
                    let numeric =
                        (total(form, &at(up), n) - total(form, &at(down), n)) / (2.0 * step);
                    assert_relative_eq!(g[j], numeric, max_relative = 1e-4, epsilon = 1e-6);
                }
            }
        }
    }
}
