//! calib: measure per-unit cost on the cluster that will run the work, fit how it
//! grows, and size `sbatch --time` per stratum.
//!
//! The binary only drives this library: `probe` measures, `fit` models,
//! `budget` decides, `audit` checks afterwards.
//!
//! Everything calib writes to stdout and stderr goes through [`output`]; the
//! lints below (and `clippy.toml`) keep it that way.

#![deny(clippy::print_stdout, clippy::print_stderr)]
// The module docs state each method for contributors, with links to the
// crate-private items that carry it out; `cargo doc --document-private-items`
// renders them.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod atomic;
pub mod audit;
pub mod backtest;
pub mod budget;
pub mod calibrate;
pub mod campaign;
pub mod cli;
pub mod commands;
pub mod error;
pub mod fit;
pub(crate) mod limits;
pub mod model;
pub mod note;
pub mod output;
pub(crate) mod parallel;
pub mod plot;
pub(crate) mod probe;
pub mod resume;
pub(crate) mod shell;
pub mod slurm;
pub(crate) mod stats;
pub mod stratum;
#[cfg(feature = "test-support")]
pub mod synth;
pub mod timings;

/// The version written into timings rows and model files.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
