//! Bounds on input: where calib stops treating a value or a stream as data.
//!
//! Every count, duration and byte that calib reads from a user passes one of
//! these bounds, so that a typo, a binary file or an endless stream ends in a
//! message naming the file and line (exit status 2) rather than in a wrapped
//! integer, a figure hundreds of digits long, or exhausted memory.
//!
//! - [`MAX_LINE_BYTES`], 1 MiB: no line of a timings table, a sacct text, a
//!   partition list or a grid comes near it (a sacct line is a few hundred
//!   bytes); a stream without newlines stops there, before any parser splits
//!   it into millions of fields.
//! - [`MAX_INPUT_BYTES`], 4 GiB per input: far above a campaign's timings
//!   (1,000 runs x 10,000 units is about 1 GB) or a site's sacct history;
//!   calib holds an input in memory while reading it.
//! - [`MAX_COUNT`], 10^9: the most units a run may have and the most tasks a
//!   stratum may have, in timings rows, grids and on the command line. Sums
//!   and products of such counts with seconds stay exact in `u64` and `f64`.
//! - [`MAX_SECONDS`], 10 years: the longest duration calib accepts as
//!   measured (a timings row's `elapsed_s` or `unit_s`, a sacct `Elapsed`). No
//!   Slurm job runs that long; a larger value is a wrong unit (milliseconds,
//!   an epoch timestamp) or a corrupted field.
//! - [`MAX_MODEL_BYTES`], 256 MiB: a model file (`calib fit -o`, read by
//!   `budget --model` and `resume --model`). `calib fit -o` writes about
//!   4.6 KB per stratum (measured on the speed benchmark's 100 strata), so
//!   the bound holds some 50,000 strata; `/dev/zero` or an endless stream
//!   given as `--model` ends there. A model file has no line bound: JSON
//!   made compact (`jq -c`) is one line, over 1 MiB from a few hundred
//!   strata on.
//! - [`SMOKE_FILE`], 256 MiB, no line bound: what a `calib stage` smoke task
//!   left (its output, its log), read by `calib stage check`. A smoke runs
//!   two tasks for a few units; a file beyond the bound fails its check as
//!   unreadable, saying why, rather than filling memory. A log may hold a
//!   progress bar's `\r`-separated "line" of any length.
//! - [`JOB_SCRIPT`], 1 MiB: a job script of `calib budget --script-dir`,
//!   read back by `calib resume --script-dir`. calib writes a few KB.
//! - Inputs small by nature get bounds fitted to them, so that a stream of
//!   text (`yes`) given for one ends in a moment, not at 4 GiB:
//!   [`PARTITIONS`], 16 MiB: a partition list; its largest accepted layouts
//!   (`scontrol show partition`, sinfo's `%all`) take about 1 KB per
//!   partition, and the lists of real clusters in `tests/data/slurm` are 0.3
//!   to 1.6 KB. [`GRID`], 64 MiB: a sizes CSV (about 100 bytes per stratum)
//!   or a campaign's grid.toml (its axes, not its cells), and the stage-2
//!   submission of `calib stage --stage2` (budget's sbatch lines and comments,
//!   about 1 KB per stratum): beyond the strata a model file holds.
//!   [`TRIGGER`], 16 MiB: the stage-2 trigger `calib stage` writes (its
//!   checks and stage 2's `sbatch` lines, some 300 bytes per stratum).
//!
//! **NUL bytes.** No text calib reads holds a NUL byte (a JSON string or a
//! CSV field never does), while binary files (`/dev/urandom`, an image, a
//! file pre-allocated and never written) hold them within their first
//! kilobytes. An input read as text is refused at its first NUL byte, naming
//! the line, as soon as the block holding it is read ([`read_bounded`]): a
//! binary stream ends there, not at 4 GiB (`calib grid show /dev/urandom` read
//! 4.2 GB in 25 s). A smoke's log is read lossily and may hold them. The
//! timings reader also refuses each NUL at its line as it parses (its fast
//! path stops at one), with the same message ([`nul_byte`]).
//!
//! Each kind of input names its bounds and what it is expected to be in a
//! [`Bounds`]: [`TABLE`] for timings tables and sacct text, [`MODEL`],
//! [`PARTITIONS`], [`GRID`], [`TRIGGER`], [`SMOKE_FILE`] and [`JOB_SCRIPT`].

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Origin, Result};

/// The longest line calib reads, in bytes.
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// The largest single input calib reads, in bytes.
pub(crate) const MAX_INPUT_BYTES: u64 = 4 << 30;

/// The largest model file calib reads, in bytes.
pub(crate) const MAX_MODEL_BYTES: u64 = 256 << 20;

/// The bounds of one kind of input, and what it is expected to be.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// The most bytes the input may hold.
    pub(crate) max_bytes: u64,
    /// The longest line, in bytes (at least [`BLOCK_BYTES`]); `None`: lines
    /// are bounded by `max_bytes` alone.
    pub(crate) max_line: Option<usize>,
    /// Whether a NUL byte refuses the input: it is read as text.
    pub(crate) text: bool,
    /// What the input should be, for messages ("a text table").
    pub(crate) expected: &'static str,
    /// What to do about an input over `max_bytes`, for its message.
    pub(crate) if_larger: &'static str,
    /// Names a binary format the reader knows (a Parquet table given as
    /// timings) from the bytes read up to the first NUL byte, whose refusal
    /// is then this error rather than "not a text file".
    pub(crate) binary_format: Option<BinaryFormat>,
}

/// See [`Bounds::binary_format`].
pub(crate) type BinaryFormat = fn(&Origin, &[u8]) -> Option<Error>;

/// A timings table or a sacct text.
pub(crate) const TABLE: Bounds = Bounds {
    max_bytes: MAX_INPUT_BYTES,
    max_line: Some(MAX_LINE_BYTES),
    text: true,
    expected: "a text table",
    if_larger: "calib reads one input into memory: split it into several files",
    binary_format: None,
};

/// A model file, as `calib fit -o` writes it (see [`MAX_MODEL_BYTES`]).
pub(crate) const MODEL: Bounds = Bounds {
    max_bytes: MAX_MODEL_BYTES,
    max_line: None,
    text: true,
    expected: "a model file (JSON, as calib fit -o writes it)",
    if_larger: "calib fit -o writes about 5 KB per stratum; is it the model file?",
    binary_format: None,
};

/// A partition list (see the module docs).
pub(crate) const PARTITIONS: Bounds = Bounds {
    max_bytes: 16 << 20,
    max_line: Some(MAX_LINE_BYTES),
    text: true,
    expected: "a partition list (sinfo -h -o '%P %l')",
    if_larger: "a cluster's list is a few KB; is it the file you meant?",
    binary_format: None,
};

/// A sizes CSV, a campaign grid, a stage-2 submission (see the module docs).
pub(crate) const GRID: Bounds = Bounds {
    max_bytes: 64 << 20,
    max_line: Some(MAX_LINE_BYTES),
    text: true,
    expected: "a text file (a grid, or calib budget's sbatch lines)",
    if_larger: "that is more strata than a model file holds; is it the file you meant?",
    binary_format: None,
};

/// The stage-2 trigger (see the module docs).
pub(crate) const TRIGGER: Bounds = Bounds {
    max_bytes: 16 << 20,
    max_line: Some(MAX_LINE_BYTES),
    text: true,
    expected: "a stage-2 trigger as calib stage writes it",
    if_larger: "calib stage writes a few KB; is it the trigger?",
    binary_format: None,
};

/// A smoke task's output or log (see the module docs).
pub(crate) const SMOKE_FILE: Bounds = Bounds {
    max_bytes: 256 << 20,
    max_line: None,
    // Read lossily: a log left with a hole of zeros still shows its lines.
    text: false,
    expected: "a smoke task's output or log",
    if_larger: "a smoke runs a few units; is it the file the task wrote?",
    binary_format: None,
};

/// A job script of `calib budget --script-dir` (see the module docs).
pub(crate) const JOB_SCRIPT: Bounds = Bounds {
    max_bytes: 1 << 20,
    max_line: None,
    text: true,
    expected: "a job script as calib budget --script-dir writes it",
    if_larger: "calib writes a few KB; give the folder calib budget --script-dir wrote",
    binary_format: None,
};

/// The largest number of units in a run, or tasks in a stratum (a grid's
/// `units` and `tasks`, `--units`, `--tasks`, a timings row's `unit`): far
/// above any real campaign, small enough that sums of tasks x seconds cannot
/// overflow.
pub(crate) const MAX_COUNT: u64 = 1_000_000_000;

/// A count of units, tasks or runs given as text: a whole number from 1 to
/// [`MAX_COUNT`]; `None` for anything else (one past 2^64 included).
pub(crate) fn parse_count(text: &str) -> Option<u64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|n| (1..=MAX_COUNT).contains(n))
}

/// What [`parse_count`] takes, for messages.
pub(crate) const COUNT_EXPECTED: &str = "a whole number from 1 to 1000000000";

/// The longest duration accepted as measured: 10 years of 365.25 days, in seconds.
pub(crate) const MAX_SECONDS: f64 = 10.0 * 365.25 * 86_400.0;

/// The bound of [`MAX_SECONDS`] in words, for messages.
pub(crate) const MAX_SECONDS_TEXT: &str = "10 years (315576000 s)";

/// The most characters of a rejected value that a message repeats.
pub(crate) const EXCERPT_CHARS: usize = 40;

/// A value as a message repeats it: whole up to [`EXCERPT_CHARS`] characters,
/// else its beginning and its length, so that a field of a million digits
/// does not become a message of a million digits.
pub(crate) fn excerpt(value: &str) -> std::borrow::Cow<'_, str> {
    match value.char_indices().nth(EXCERPT_CHARS) {
        None => value.into(),
        Some((cut, _)) => format!(
            "{}... ({} characters)",
            &value[..cut],
            value.chars().count()
        )
        .into(),
    }
}

/// Reads `reader` to its end, refusing a line longer than `bounds.max_line`,
/// more than `bounds.max_bytes` in all and, for text, a NUL byte, each as
/// soon as the block that holds it is read. `origin` names the input in
/// messages; `size_hint` (a regular file's length) only saves reallocations.
///
/// Works on anything readable, so a FIFO, a character device or standard input
/// is read under the same bounds as a file: `/dev/zero` ends at its first
/// block with an error (a NUL byte, or a line over the bound where NUL bytes
/// are allowed), not when memory runs out.
pub(crate) fn read_bounded(
    reader: &mut dyn Read,
    origin: &Origin,
    size_hint: u64,
    bounds: &Bounds,
) -> Result<Vec<u8>> {
    if size_hint > bounds.max_bytes {
        return Err(too_large(origin, bounds));
    }
    let mut bytes = Vec::with_capacity(size_hint as usize);
    let mut chunk = vec![0u8; BLOCK_BYTES];
    let mut lines = LineBound::new(bounds);
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(format!("cannot read {origin}"), e)),
        };
        let got = &chunk[..n];
        bytes.extend_from_slice(got);
        // `contains` on bytes is a memchr: a pass over a block already in cache.
        if bounds.text && got.contains(&0) {
            if let Some(refusal) = bounds.binary_format.and_then(|named| named(origin, &bytes)) {
                return Err(refusal);
            }
            let at = bytes.len() - n + got.iter().position(|&b| b == 0).unwrap_or(0);
            return Err(nul_byte(origin, line_of(&bytes, at), bounds));
        }
        if let Some(at) = lines.check(got) {
            return Err(line_too_long(origin, &bytes, bytes.len() - n + at, bounds));
        }
        if bytes.len() as u64 > bounds.max_bytes {
            return Err(too_large(origin, bounds));
        }
    }
    Ok(bytes)
}

/// The pieces in which an input is read, or checked for its longest line.
const BLOCK_BYTES: usize = 64 << 10;

/// The length of the line still open at the end of the blocks checked so
/// far. Blocks are no larger than a line bound, so a line held entirely
/// inside one block is short by construction: only the line running across
/// block boundaries needs counting (its first and last line break per block).
struct LineBound {
    open_line: usize,
    /// The bound; `None`: no line is too long.
    max: Option<usize>,
}

impl LineBound {
    fn new(bounds: &Bounds) -> LineBound {
        debug_assert!(bounds.max_line.is_none_or(|max| max >= BLOCK_BYTES));
        LineBound {
            open_line: 0,
            max: bounds.max_line,
        }
    }

    /// Checks the next block of the input; `Some(at)`, the place in the block
    /// where the line bound was crossed, refuses the input.
    fn check(&mut self, block: &[u8]) -> Option<usize> {
        let max = self.max?;
        match block.iter().position(|&b| b == b'\n') {
            None => self.open_line += block.len(),
            Some(first) => {
                if self.open_line + first > max {
                    return Some(first);
                }
                let last = block.iter().rposition(|&b| b == b'\n').unwrap_or(first);
                self.open_line = block.len() - last - 1;
            }
        }
        (self.open_line > max).then_some(block.len())
    }
}

/// Reads standard input under `bounds` (see [`read_bounded`]), once: the
/// process has one standard input, and once read to its end it gives
/// nothing more, so a second `-` among a command's inputs (two timings
/// paths, or timings and `--partitions -`) would be taken for an empty input.
/// It is refused instead.
pub(crate) fn read_stdin_bounded(bounds: &Bounds) -> Result<Vec<u8>> {
    static READ: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if READ.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return Err(Error::input(
            Origin::Stdin,
            None,
            format!(
                "standard input (`-`) is named twice, and it can be read once; expected {} in a file instead",
                bounds.expected
            ),
        ));
    }
    read_bounded(&mut std::io::stdin().lock(), &Origin::Stdin, 0, bounds)
}

/// Opens and reads a file the user named, under `bounds` (see
/// [`read_bounded`]). A file that cannot be opened or read is bad input (exit
/// 2): the message says `cannot read {what}: <reason>` (`what`: "the grid",
/// "it", ...).
pub(crate) fn read_file_bounded(path: &Path, what: &str, bounds: &Bounds) -> Result<Vec<u8>> {
    let (mut file, meta) = open_file(path, what)?;
    read_open_file(&mut file, &meta, path, what, bounds)
}

/// The message of a file that cannot be opened or read.
fn unreadable(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::input(Origin::file(path), None, format!("cannot read {what}: {e}"))
}

/// Opens a file the user named, refusing a folder.
fn open_file(path: &Path, what: &str) -> Result<(std::fs::File, std::fs::Metadata)> {
    let file = std::fs::File::open(path).map_err(|e| unreadable(path, what, e))?;
    let meta = file.metadata().map_err(|e| unreadable(path, what, e))?;
    if meta.is_dir() {
        return Err(Error::input(
            Origin::file(path),
            None,
            format!("cannot read {what}: it is a folder; expected a file"),
        ));
    }
    Ok((file, meta))
}

/// Reads a file opened by [`open_file`] under the bounds of [`read_bounded`].
fn read_open_file(
    file: &mut std::fs::File,
    meta: &std::fs::Metadata,
    path: &Path,
    what: &str,
    bounds: &Bounds,
) -> Result<Vec<u8>> {
    // A FIFO or a device has no length: it is read like a stream, under the bounds.
    let hint = if meta.is_file() { meta.len() } else { 0 };
    read_bounded(file, &Origin::file(path), hint, bounds).map_err(|e| match e {
        Error::Io { source, .. } => unreadable(path, what, source),
        other => other,
    })
}

/// The bytes as UTF-8 text; invalid UTF-8 is bad input naming its line and
/// what `bounds` expected.
pub(crate) fn into_text(bytes: Vec<u8>, origin: &Origin, bounds: &Bounds) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        Error::input(
            origin.clone(),
            Some(line_of(e.as_bytes(), at)),
            format!("not UTF-8 text; expected {}", bounds.expected),
        )
    })
}

/// The line holding byte `at` (1-based), for messages.
pub(crate) fn line_of(bytes: &[u8], at: usize) -> u64 {
    bytes[..at.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u64
        + 1
}

/// Where a record the csv crate read from `bytes` starts: its first byte and
/// its line (1-based), from its `position`; `comment` the reader's comment
/// byte, if it has one. The crate places a record at the first byte after the
/// last one it consumed, with the line breaks counted up to there: after a
/// CRLF line break that is the `\n` it has not counted yet, and before blank
/// lines or comment lines it skips, the first of them. The lines between
/// that place and the record's first byte are skipped and counted here.
/// Line ends of a `\r` alone (old Mac tools) are not counted, as the crate
/// does not count them.
pub(crate) fn csv_record_start(
    bytes: &[u8],
    position: &csv::Position,
    comment: Option<u8>,
) -> (usize, u64) {
    let mut at = usize::try_from(position.byte()).unwrap_or(usize::MAX);
    let mut line = position.line();
    while let Some(&byte) = bytes.get(at) {
        if byte == b'\n' {
            line += 1;
        } else if Some(byte) == comment {
            match bytes[at..].iter().position(|&b| b == b'\n') {
                Some(end) => {
                    at += end;
                    continue;
                }
                None => break,
            }
        } else if byte != b'\r' {
            break;
        }
        at += 1;
    }
    (at, line)
}

/// The line of [`csv_record_start`].
pub(crate) fn csv_record_line(bytes: &[u8], position: &csv::Position, comment: Option<u8>) -> u64 {
    csv_record_start(bytes, position, comment).1
}

/// Each column's index by its name (trimmed; unnamed columns left out), from
/// a CSV header on line `line` of `origin`. A second column of a name would
/// be ignored without a word by a lookup that takes the first, so it is
/// refused.
pub(crate) fn columns_by_name<'h>(
    header: &'h csv::StringRecord,
    origin: &Origin,
    line: u64,
) -> Result<std::collections::HashMap<&'h str, usize>> {
    let mut first_of = std::collections::HashMap::new();
    for (i, name) in header.iter().map(str::trim).enumerate() {
        if name.is_empty() {
            continue;
        }
        if let Some(&first) = first_of.get(name) {
            return Err(Error::input(
                origin.clone(),
                Some(line),
                format!(
                    "columns {} and {} are both named `{name}`; expected each column name once (rename one of them)",
                    first + 1,
                    i + 1
                ),
            ));
        }
        first_of.insert(name, i);
    }
    Ok(first_of)
}

/// The refusal of a text input at the line of its first NUL byte; the
/// timings reader, which meets them as it parses, says the same.
pub(crate) fn nul_byte(origin: &Origin, line: u64, bounds: &Bounds) -> Error {
    Error::input(
        origin.clone(),
        Some(line),
        format!(
            "a NUL byte: not a text file (a binary file, or one whose end a crash left \
             zero-filled: remove the NUL bytes, e.g. with tr -d '\\000'); expected {}",
            bounds.expected
        ),
    )
}

/// The place of the first NUL byte in the line that `bytes[..end]` ends
/// with (from its last line break), if it holds one.
pub(crate) fn nul_in_line_ending(bytes: &[u8], end: usize) -> Option<usize> {
    let start = bytes[..end]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    bytes[start..end]
        .iter()
        .position(|&b| b == 0)
        .map(|nul| start + nul)
}

/// A size in bytes as messages give a bound: in GiB or MiB when whole.
fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

fn line_too_long(origin: &Origin, bytes: &[u8], at: usize, bounds: &Bounds) -> Error {
    // A long line of a text input that holds a NUL byte is a binary file's.
    let at = at.min(bytes.len());
    if let Some(nul) = nul_in_line_ending(bytes, at).filter(|_| bounds.text) {
        return nul_byte(origin, line_of(bytes, nul), bounds);
    }
    Error::input(
        origin.clone(),
        Some(line_of(bytes, at.saturating_sub(1))),
        format!(
            "the line is longer than {} without a line break; expected {} \
             (is this a binary file, or a device such as /dev/zero?)",
            size_text(bounds.max_line.unwrap_or(usize::MAX) as u64),
            bounds.expected
        ),
    )
}

fn too_large(origin: &Origin, bounds: &Bounds) -> Error {
    Error::input(
        origin.clone(),
        None,
        format!(
            "more than {}; expected {}: {}",
            size_text(bounds.max_bytes),
            bounds.expected,
            bounds.if_larger
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_read_and_said_with_one_bound() {
        assert!(COUNT_EXPECTED.ends_with(&MAX_COUNT.to_string()));
        assert_eq!(parse_count(" 7 "), Some(7));
        assert_eq!(parse_count("1000000000"), Some(MAX_COUNT));
        for bad in ["0", "1000000001", "18446744073709551616", "-1", "1.5", ""] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }

    #[test]
    fn excerpts_keep_short_values_and_cut_long_ones() {
        assert_eq!(excerpt("1e300"), "1e300");
        let long = "9".repeat(400);
        let shown = excerpt(&long);
        assert!(shown.starts_with(&"9".repeat(EXCERPT_CHARS)), "{shown}");
        assert!(shown.ends_with("... (400 characters)"), "{shown}");
        assert_eq!(
            excerpt(&"é".repeat(41))
                .chars()
                .filter(|&c| c == 'é')
                .count(),
            40
        );
    }

    #[test]
    fn a_long_line_is_refused_at_its_number() {
        let mut text = b"a\nb\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        let err = read_bounded(&mut text.as_slice(), &Origin::Stdin, 0, &TABLE).unwrap_err();
        match err {
            Error::Input { line, .. } => assert_eq!(line, Some(3)),
            other => panic!("{other}"),
        }
    }

    #[test]
    fn a_line_just_under_the_bound_across_chunks_is_kept() {
        let mut text = vec![b'x'; MAX_LINE_BYTES];
        text.push(b'\n');
        text.extend(vec![b'y'; MAX_LINE_BYTES]);
        let got = read_bounded(&mut text.as_slice(), &Origin::Stdin, 0, &TABLE).unwrap();
        assert_eq!(got.len(), 2 * MAX_LINE_BYTES + 1);
        // One more byte on the first line crosses the bound.
        let mut text = vec![b'x'; MAX_LINE_BYTES + 1];
        text.push(b'\n');
        let err = read_bounded(&mut text.as_slice(), &Origin::Stdin, 0, &TABLE).unwrap_err();
        assert!(matches!(err, Error::Input { line: Some(1), .. }), "{err}");
    }
}
