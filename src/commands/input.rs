//! Arguments that carry text: the text itself, `@FILE`, or `-` for standard
//! input (`calib budget --partitions`, `calib audit SACCT`).
//!
//! Files and standard input are read under [`crate::limits`]: lines of at most
//! 1 MiB, 4 GiB in all, so that `@/dev/zero` or a stream without newlines ends
//! with a message instead of filling memory.

use crate::error::{Origin, Result};
use crate::limits::{into_text, read_file_bounded, read_stdin_bounded};

/// Reads such an argument. `flag` names it in messages (`--partitions`). A file
/// the user named that cannot be read is bad input (exit 2), like bad text.
pub(crate) fn read_text_argument(value: &str, flag: &str) -> Result<(String, Origin)> {
    if value == "-" {
        let text = into_text(read_stdin_bounded()?, &Origin::Stdin)?;
        return Ok((text, Origin::Stdin));
    }
    if let Some(path) = value.strip_prefix('@') {
        let origin = Origin::file(path);
        let bytes = read_file_bounded(path.as_ref(), &format!("the file given to {flag}"))?;
        return Ok((into_text(bytes, &origin)?, origin));
    }
    Ok((value.to_string(), Origin::Argument(flag.to_string())))
}
