//! `calib budget` (PLACEHOLDER: replaced by the budget work).

use crate::error::{Error, Result};

/// Arguments of `calib budget`.
#[derive(Debug, clap::Args)]
pub struct BudgetArgs {
    /// Free arguments (placeholder).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: &BudgetArgs) -> Result<i32> {
    Err(Error::Failed("calib budget is not built yet".into()))
}
