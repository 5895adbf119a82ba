//! `calib audit` (PLACEHOLDER: replaced by the audit work).

use crate::error::{Error, Result};

/// Arguments of `calib audit`.
#[derive(Debug, clap::Args)]
pub struct AuditArgs {
    /// Free arguments (placeholder).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: &AuditArgs) -> Result<i32> {
    Err(Error::Failed("calib audit is not built yet".into()))
}
