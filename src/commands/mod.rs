//! One module per subcommand: its flags (documented where defined) and the
//! function that drives the library for it.

pub mod audit;
pub mod backtest;
pub mod budget;
pub mod calibrate;
pub mod completions;
pub mod fit;
pub mod flags;
pub mod grid;
pub mod input;
pub mod man;
pub mod probe;
pub mod resume;
pub mod stage;
