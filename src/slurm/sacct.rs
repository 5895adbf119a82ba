//! sacct rows (PLACEHOLDER).
