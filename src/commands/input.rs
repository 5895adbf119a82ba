//! What the commands read: arguments that carry text (a file's path or
//! `@FILE`, `-` for standard input, or the text itself: `calib budget --partitions`, `calib
//! audit SACCT`), timings paths and the model file.
//!
//! Files and standard input are read under [`crate::limits`]: lines of at most
//! 1 MiB, no NUL byte, and a total fitted to what the argument holds (4 GiB
//! for sacct's text, 16 MiB for a partition list), so that `@/dev/zero`,
//! `@/dev/urandom` or an endless stream ends with a message instead of
//! filling memory.

use std::path::{Path, PathBuf};

use crate::atomic::same_file;
use crate::error::{Error, Origin, Result};
use crate::limits::{into_text, read_file_bounded, read_stdin_bounded, Bounds};
use crate::model::ModelFile;
use crate::output;
use crate::timings::{read_timings, IngestOptions, Timings};

/// Refuses standard input given to more than one of a command's arguments
/// (each named, with how many times it names `-`), before anything is read:
/// the process has one standard input, and the first reader would take it
/// all, so the message would otherwise be about what that reader found
/// there. (A second read is refused anyway, by
/// [`crate::limits`]'s reader of standard input.)
pub(crate) fn refuse_stdin_named_twice(arguments: &[(&str, usize)]) -> Result<()> {
    let named: Vec<&str> = arguments
        .iter()
        .filter(|(_, dashes)| *dashes > 0)
        .map(|(name, _)| *name)
        .collect();
    let total: usize = arguments.iter().map(|(_, dashes)| dashes).sum();
    if total < 2 {
        return Ok(());
    }
    Err(Error::input(
        Origin::Stdin,
        None,
        format!(
            "standard input (`-`) is given {total} times ({}), and it can be read once; expected all but one of them in a file",
            named.join(", ")
        ),
    ))
}

/// How many of `paths` are `-` (standard input).
pub(crate) fn dashes(paths: &[PathBuf]) -> usize {
    paths.iter().filter(|p| p.as_os_str() == "-").count()
}

/// The timings of `paths` (files or folders), with what reading them warned
/// of (a file skipped, an empty one) written to stderr.
pub(crate) fn read_timings_warned(paths: &[PathBuf]) -> Result<Timings> {
    let timings = read_timings(paths, &IngestOptions::default())?;
    for warning in &timings.warnings {
        output::warn(warning);
    }
    Ok(timings)
}

/// The model file `--model` names, else calib-model.json in the current
/// folder; refused when neither is there, with `instead` saying what else the
/// command accepts (e.g. "timings paths to fit on the fly").
pub(crate) fn load_model_file(model: Option<&Path>, instead: &str) -> Result<ModelFile> {
    let path = model.unwrap_or(Path::new("calib-model.json"));
    if model.is_none() && !path.exists() {
        return Err(Error::Refused(format!(
            "no model: give --model FILE (from `calib fit -o`) or {instead}"
        )));
    }
    ModelFile::load(path)
}

/// Reads an argument that holds text (sacct output, a partition list): `-`
/// is standard input, a path to an existing file (or `@FILE`) is that file's
/// text, anything else is the text itself. `flag` names it in messages
/// (`--partitions`); `bounds` are those of what it holds
/// (`crate::limits::PARTITIONS`). A file the user named that cannot be read
/// is bad input (exit 2), like bad text.
pub(crate) fn read_text_argument(
    value: &str,
    flag: &str,
    bounds: &Bounds,
) -> Result<(String, Origin)> {
    if value == "-" {
        let text = into_text(read_stdin_bounded(bounds)?, &Origin::Stdin, bounds)?;
        return Ok((text, Origin::Stdin));
    }
    // A one-line value that names a file is the file: `calib audit
    // sacct.txt`, as every Unix tool reads a path. Text of sinfo or sacct
    // output is never the name of a file that exists.
    let named = (!value.contains('\n') && Path::new(value).is_file()).then_some(value);
    if let Some(path) = value.strip_prefix('@').or(named) {
        let origin = Origin::file(path);
        let bytes = read_file_bounded(path.as_ref(), &format!("the file given to {flag}"), bounds)?;
        return Ok((into_text(bytes, &origin, bounds)?, origin));
    }
    Ok((value.to_string(), Origin::Argument(flag.to_string())))
}

/// Refuses an output path (`flag`'s) that names one of the files just read
/// (`inputs`): writing it would replace the measurements it holds with
/// calib's output (`calib fit mine.csv -o mine.csv`). Compared as files
/// ([`same_file`]), so `./mine.csv`, a link to it and its full path are one.
pub(crate) fn refuse_overwriting_inputs(
    flag: &str,
    target: &Path,
    inputs: &[Origin],
) -> Result<()> {
    let read = inputs.iter().find_map(|origin| match origin {
        Origin::File(path) if same_file(target, path) => Some(path),
        _ => None,
    });
    match read {
        Some(path) => Err(Error::input(
            Origin::Argument(flag.into()),
            None,
            format!(
                "{} is {}, one of the timings files read: writing it would replace the measurements it holds; expected a new file (such as calib-model.json for -o)",
                target.display(),
                path.display()
            ),
        )),
        None => Ok(()),
    }
}

/// The calibration `--calibration` names, merged with calib's own; calib's
/// own without it.
/// `confidence` is checked against it: refused above what its programs support.
pub(crate) fn calibration_table(
    path: Option<&Path>,
    confidence: f64,
) -> Result<crate::calibrate::Table> {
    let shipped = crate::calibrate::Table::shipped()?;
    let table = match path {
        Some(path) => shipped.merged(crate::calibrate::Table::load(path)?),
        None => shipped,
    };
    table.check_confidence(confidence)?;
    Ok(table)
}
