//! Deterministic generator of synthetic timings for tests, examples and benches (PLACEHOLDER).
