//! Arguments that carry text: the text itself, `@FILE`, or `-` for standard
//! input (`calib budget --partitions`, `calib audit SACCT`).

use std::io::Read;

use crate::error::{Error, Origin, Result};

/// Reads such an argument. `flag` names it in messages (`--partitions`). A file
/// the user named that cannot be read is bad input (exit 2), like bad text.
pub fn read_text_argument(value: &str, flag: &str) -> Result<(String, Origin)> {
    if value == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Error::io("cannot read standard input", e))?;
        return Ok((text, Origin::Stdin));
    }
    if let Some(path) = value.strip_prefix('@') {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::input(
                Origin::file(path),
                None,
                format!("cannot read the file given to {flag}: {e}"),
            )
        })?;
        return Ok((text, Origin::file(path)));
    }
    Ok((value.to_string(), Origin::Argument(flag.to_string())))
}
