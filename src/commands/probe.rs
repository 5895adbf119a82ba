//! `calib probe` (PLACEHOLDER: replaced by the probe work).

use crate::error::{Error, Result};

/// Arguments of `calib probe`.
#[derive(Debug, clap::Args)]
pub struct ProbeArgs {
    /// Free arguments (placeholder).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: &ProbeArgs) -> Result<i32> {
    Err(Error::Failed("calib probe is not built yet".into()))
}
