//! `calib fit` (PLACEHOLDER: replaced by the fit work).

use crate::error::{Error, Result};

/// Arguments of `calib fit`.
#[derive(Debug, clap::Args)]
pub struct FitArgs {
    /// Free arguments (placeholder).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: &FitArgs) -> Result<i32> {
    Err(Error::Failed("calib fit is not built yet".into()))
}
