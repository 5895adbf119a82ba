//! Plots of per-unit cost against unit index (filled in below).
