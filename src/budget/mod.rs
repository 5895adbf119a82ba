//! Per-stratum --time from a model and a partition list (PLACEHOLDER).
