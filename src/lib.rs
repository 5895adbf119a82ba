//! calib: measure per-unit cost on the cluster that will run the work, fit how it
//! grows, and size `sbatch --time` per stratum.
//!
//! The binary only drives this library: `probe` measures, `fit` models,
//! `budget` decides, `audit` checks afterwards.

pub mod audit;
pub mod budget;
pub mod cli;
pub mod commands;
pub mod error;
pub mod fit;
pub mod limits;
pub mod model;
pub mod probe;
pub mod slurm;
pub mod stratum;
pub mod synth;
pub mod timings;

/// The version written into timings rows and model files.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
