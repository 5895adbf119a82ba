//! Fuzzing the readers of user input: no input makes calib panic.
//!
//! Four readers take text a user hands to calib: the timings reader
//! (`calib fit`'s files), the partition parser (`--partitions`), the sacct
//! parser (`calib audit`) and the model loader (`calib budget --model`). Each
//! target below feeds one of them inputs built from real samples
//! (`tests/data/slurm`, `tests/data/sacct`, `data/*.csv`, and model files that
//! `calib fit` writes from those): a few mutations each, aware of the text's
//! structure (lines, delimited fields, numbers) as well as of its bytes: byte
//! flips, truncation, control characters, absurd numbers, non-ASCII text,
//! duplicated lines and columns, long repeats; and a share of plain random
//! bytes. What must hold for every input:
//!
//! - no panic (a panic is caught and reported with the exact input);
//! - a refusal is bad input (exit status 2), never a failure of the system;
//! - what is accepted can be used: the partitions selected, the sacct table
//!   audited and rendered, the model projected, the runs ordered as the
//!   reader promises.
//!
//! Two more targets run the built binary (`calib audit`, `calib budget`) on
//! such inputs and check that it never exits 101 (a panic).
//!
//! # Running longer
//!
//! CI runs a fixed number of cases per target (about 15 s in all, in a debug
//! build). `PROPTEST_CASES` replaces every target's count; a release build
//! spends about a sixth of the CPU time per case, a debug build also catches
//! integer overflow:
//!
//! ```text
//! PROPTEST_CASES=1000000 cargo test --release --test fuzz -- --skip binary
//! PROPTEST_CASES=100000 cargo test --release --test fuzz -- sacct   # one target
//! PROPTEST_CASES=10000 cargo test --release --test fuzz -- binary   # the binary
//! ```
//!
//! (The binary targets start a process per case, a few milliseconds each:
//! a million cases of them take hours.)
//!
//! Cases are random on each run; a failure is saved (as its random seed) to
//! `tests/fuzz.proptest-regressions` and replayed first on every later run,
//! and `PROPTEST_RNG_SEED=<n>` repeats a whole run. The libFuzzer targets in
//! `fuzz/` (see `fuzz/README.md`) drive the same checks, coverage-guided.

mod common;

use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use calib::audit::export::{Exporter, JsonExporter, TableExporter};
use calib::audit::{audit, AuditOptions};
use calib::error::{Error, Origin};
use calib::model::ModelFile;
use calib::slurm::partitions::parse_partitions;
use calib::slurm::sacct::{parse_sacct, SacctOptions};
use calib::timings::{read_timings, IngestOptions, TimeColumnKind};
use proptest::prelude::*;
use proptest::sample::Index;

use common::{calib, fit_csv, output_within, repo_file, stderr, write_file};

/// The configuration of a target: `ci_cases` cases unless `PROPTEST_CASES`
/// says otherwise.
fn config(ci_cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig::default();
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = ci_cases;
    }
    config
}

// ---------------------------------------------------------------------------
// Seeds: the real samples the mutations start from.

/// The files of a repository folder whose names end in `suffix`, sorted.
fn samples(folder: &str, suffix: &str) -> Vec<Vec<u8>> {
    let files: Vec<_> = common::files_in(&repo_file(folder))
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(suffix))
        .collect();
    assert!(!files.is_empty(), "no {suffix} sample in {folder}");
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// A timings file as `calib probe` writes it: every column, an end row.
const PROBE_FILE: &str = "\
run,stratum,unit,elapsed_s,unit_s,host,cluster,cpu_model,cpus,gpus,job_id,partition,started_at,calib_version,end
r1,\"dataset=Y,model=7B\",1,12.5,12.5,n1,narval,AMD EPYC 7532,8,0,4242_3,cpu_b2,2026-11-20T10:00:00Z,0.1.0,
r1,\"dataset=Y,model=7B\",2,25.25,12.75,n1,narval,AMD EPYC 7532,8,0,4242_3,cpu_b2,2026-11-20T10:00:00Z,0.1.0,
r1,\"dataset=Y,model=7B\",3,38.0,12.75,n1,narval,AMD EPYC 7532,8,0,4242_3,cpu_b2,2026-11-20T10:00:00Z,0.1.0,
r1,\"dataset=Y,model=7B\",3,40.5,,n1,narval,AMD EPYC 7532,8,0,4242_3,cpu_b2,2026-11-20T10:00:00Z,0.1.0,exit:0
";

/// A foreign table: other column names, per-unit times, a label column.
const FOREIGN_TABLE: &str = "\
seed,epoch,seconds,dataset\n\
s1,1,10.0,Y\n\
s1,2,10.5,Y\n\
s2,1,9.5,Z\n\
s2,2,9.0,Z\n";

/// How each timings seed is read: calib's own columns, or the foreign table's.
fn timings_options(foreign: bool, per_unit: bool) -> IngestOptions {
    let mut options = IngestOptions::default();
    if foreign {
        options.run_col = "seed".into();
        options.unit_col = "epoch".into();
        options.time_col = "seconds".into();
        options.by = vec!["dataset".into()];
    }
    if per_unit {
        options.time_kind = TimeColumnKind::PerUnit;
    }
    options
}

fn timings_seeds() -> &'static [(Vec<u8>, bool)] {
    static SEEDS: OnceLock<Vec<(Vec<u8>, bool)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut seeds: Vec<(Vec<u8>, bool)> = samples("data", ".csv")
            .into_iter()
            .map(|s| (s, false))
            .collect();
        seeds.push((PROBE_FILE.as_bytes().to_vec(), false));
        seeds.push((FOREIGN_TABLE.as_bytes().to_vec(), true));
        seeds
    })
}

fn partition_seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut seeds = samples("tests/data/slurm", ".txt");
        seeds.extend(samples("data/campaign", ".txt"));
        seeds
    })
}

/// The columns of the recorded samples that have no header line (their
/// `# source:` lines say which), and the delimiter of the one that is not `|`.
fn sacct_options_for(text: &[u8]) -> SacctOptions {
    let text = String::from_utf8_lossy(text);
    let first = text.lines().next().unwrap_or("");
    let columns = |list: &str| Some(list.split(',').map(String::from).collect());
    if first.contains("reportseff") {
        SacctOptions {
            delimiter: Some("^|^".into()),
            columns: columns("AdminComment,AllocCPUS,Elapsed,JobID,JobIDRaw,MaxRSS,NNodes,Unnamed,REQMEM,State,TRESUsageOutAve,Timelimit,TotalCPU"),
        }
    } else if first.contains("ElapsedRaw,TimelimitRaw") {
        SacctOptions {
            delimiter: None,
            columns: columns("JobID,ElapsedRaw,TimelimitRaw"),
        }
    } else if first.contains("no header") {
        SacctOptions {
            delimiter: None,
            columns: columns("JobID,JobName,Partition,Elapsed,Timelimit,State,ExitCode,NodeList"),
        }
    } else {
        SacctOptions::default()
    }
}

fn sacct_seeds() -> &'static [(Vec<u8>, SacctOptions)] {
    static SEEDS: OnceLock<Vec<(Vec<u8>, SacctOptions)>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        samples("tests/data/sacct", ".txt")
            .into_iter()
            .map(|s| {
                let options = sacct_options_for(&s);
                (s, options)
            })
            .collect()
    })
}

/// Model files as `calib fit -o` writes them, fitted from the data samples.
fn model_seeds() -> &'static [Vec<u8>] {
    static SEEDS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        [
            "data/trend-probe-7.csv",
            "data/spread-20.csv",
            "data/run-length.csv",
        ]
        .iter()
        .map(|name| {
            let report = fit_csv(&common::repo_text(name));
            serde_json::to_vec_pretty(&report.model).unwrap()
        })
        .collect()
    })
}

// ---------------------------------------------------------------------------
// Mutations.

/// Text that a field could hold and a reader must not trip on: numbers at and
/// past the limits of u32, u64, i64 and f64; signs, exponents and special
/// floats; Slurm times out of range; JSON values of every kind; delimiters,
/// quotes and shell text; non-ASCII letters, a byte-order mark, a right-to-left
/// override, combining marks.
const TOKENS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "+5",
    "0x10",
    "1_000",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "1e300",
    "1e308",
    "1e309",
    "-1e308",
    "1e-320",
    "0.0000000001",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "1.7976931348623157e308",
    "4294967295-00:00:00",
    "99999999:00:00",
    "1:00:99",
    "00:60:00",
    "-5:00",
    "1-",
    "-",
    ":",
    "UNLIMITED",
    "Partition_Limit",
    "INVALID",
    "null",
    "true",
    "[]",
    "{}",
    "\"\"",
    "\"",
    ",",
    "|",
    "^|^",
    "=",
    ";",
    "*",
    "#",
    "\\",
    "'",
    "$(id)",
    "`id`",
    "%s%n",
    "é",
    "日本語",
    "𝕏",
    "\u{FEFF}",
    "\u{202E}",
    "a\u{301}",
    "\u{0}",
    "",
];

/// Control characters, inserted as they are.
const CONTROLS: &[u8] = b"\0\x01\x07\x08\t\n\x0b\x0c\r\x1b\x7f";

#[derive(Debug, Clone)]
enum Mutation {
    /// XOR one byte with `1 << bit`.
    FlipBit(Index, u8),
    /// Overwrite one byte.
    SetByte(Index, u8),
    /// Cut the text short.
    Truncate(Index),
    InsertControl(Index, Index),
    InsertToken(Index, Index),
    /// Replace the n-th run of digits (a number, or part of one) by a token.
    ReplaceNumber(Index, Index),
    /// Replace a field of a line by a token.
    ReplaceField(Index, Index, Index),
    DuplicateLine(Index),
    DeleteLine(Index),
    SwapLines(Index, Index),
    /// Duplicate the n-th field on every line: a duplicated column, header
    /// included.
    DuplicateColumn(Index),
    /// Repeat a short slice up to `count` times (long fields and lines).
    Repeat(Index, Index, u16),
    /// Line ends as `\r\n`, or the last line end removed.
    CrLf,
    DropFinalNewline,
    InsertBytes(Index, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<Index>;
    prop_oneof![
        1 => (i(), 0u8..8).prop_map(|(at, bit)| Mutation::FlipBit(at, bit)),
        1 => (i(), any::<u8>()).prop_map(|(at, b)| Mutation::SetByte(at, b)),
        1 => i().prop_map(Mutation::Truncate),
        1 => (i(), i()).prop_map(|(at, c)| Mutation::InsertControl(at, c)),
        1 => (i(), i()).prop_map(|(at, t)| Mutation::InsertToken(at, t)),
        3 => (i(), i()).prop_map(|(n, t)| Mutation::ReplaceNumber(n, t)),
        3 => (i(), i(), i()).prop_map(|(l, f, t)| Mutation::ReplaceField(l, f, t)),
        1 => i().prop_map(Mutation::DuplicateLine),
        1 => i().prop_map(Mutation::DeleteLine),
        1 => (i(), i()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        1 => i().prop_map(Mutation::DuplicateColumn),
        1 => (i(), i(), 1u16..2000).prop_map(|(at, len, n)| Mutation::Repeat(at, len, n)),
        1 => Just(Mutation::CrLf),
        1 => Just(Mutation::DropFinalNewline),
        1 => (i(), proptest::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(at, b)| Mutation::InsertBytes(at, b)),
    ]
}

/// A position in `0..=len` (an insertion point).
fn point(at: &Index, len: usize) -> usize {
    at.index(len + 1)
}

fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

fn join_lines(lines: &[Vec<u8>]) -> Vec<u8> {
    lines.join(&b'\n')
}

/// The delimiter of a line: the first of `|`, `,`, tab and space it holds.
fn delimiter(line: &[u8]) -> u8 {
    [b'|', b',', b'\t', b' ']
        .into_iter()
        .find(|d| line.contains(d))
        .unwrap_or(b',')
}

fn fields(line: &[u8]) -> (u8, Vec<Vec<u8>>) {
    let d = delimiter(line);
    (d, line.split(|&b| b == d).map(<[u8]>::to_vec).collect())
}

/// Inputs stay below this size, so that a case costs milliseconds.
const MAX_LEN: usize = 256 * 1024;

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    match mutation {
        Mutation::FlipBit(at, bit) => {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] ^= 1 << bit;
            }
        }
        Mutation::SetByte(at, b) => {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] = *b;
            }
        }
        Mutation::Truncate(at) => bytes.truncate(point(at, bytes.len())),
        Mutation::InsertControl(at, c) => {
            let i = point(at, bytes.len());
            bytes.insert(i, CONTROLS[c.index(CONTROLS.len())]);
        }
        Mutation::InsertToken(at, t) => {
            let i = point(at, bytes.len());
            let token = TOKENS[t.index(TOKENS.len())].as_bytes();
            bytes.splice(i..i, token.iter().copied());
        }
        Mutation::ReplaceNumber(n, t) => {
            let mut runs = Vec::new();
            let mut start = None;
            for (i, b) in bytes.iter().enumerate() {
                match (b.is_ascii_digit(), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        runs.push(s..i);
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                runs.push(s..bytes.len());
            }
            if !runs.is_empty() {
                let range = runs[n.index(runs.len())].clone();
                let token = TOKENS[t.index(TOKENS.len())].as_bytes();
                bytes.splice(range, token.iter().copied());
            }
        }
        Mutation::ReplaceField(l, f, t) => {
            let mut lines = split_lines(bytes);
            let line = l.index(lines.len());
            let (d, mut cells) = fields(&lines[line]);
            let cell = f.index(cells.len());
            cells[cell] = TOKENS[t.index(TOKENS.len())].as_bytes().to_vec();
            lines[line] = cells.join(&d);
            *bytes = join_lines(&lines);
        }
        Mutation::DuplicateLine(l) => {
            let mut lines = split_lines(bytes);
            let line = l.index(lines.len());
            lines.insert(line, lines[line].clone());
            *bytes = join_lines(&lines);
        }
        Mutation::DeleteLine(l) => {
            let mut lines = split_lines(bytes);
            lines.remove(l.index(lines.len()));
            *bytes = join_lines(&lines);
        }
        Mutation::SwapLines(a, b) => {
            let mut lines = split_lines(bytes);
            let n = lines.len();
            lines.swap(a.index(n), b.index(n));
            *bytes = join_lines(&lines);
        }
        Mutation::DuplicateColumn(c) => {
            let lines: Vec<Vec<u8>> = split_lines(bytes)
                .into_iter()
                .map(|line| {
                    let (d, mut cells) = fields(&line);
                    let cell = c.index(cells.len());
                    cells.insert(cell, cells[cell].clone());
                    cells.join(&d)
                })
                .collect();
            *bytes = join_lines(&lines);
        }
        Mutation::Repeat(at, len, count) => {
            if !bytes.is_empty() {
                let start = at.index(bytes.len());
                let len = 1 + len.index((bytes.len() - start).min(64));
                let slice = bytes[start..start + len].to_vec();
                let copies = (*count as usize).min(MAX_LEN / len);
                let repeated = slice.repeat(copies);
                bytes.splice(start..start, repeated);
            }
        }
        Mutation::CrLf => {
            let lines = split_lines(bytes);
            *bytes = lines.join(&b"\r\n"[..]);
        }
        Mutation::DropFinalNewline => {
            if bytes.last() == Some(&b'\n') {
                bytes.pop();
            }
        }
        Mutation::InsertBytes(at, new) => {
            let i = point(at, bytes.len());
            bytes.splice(i..i, new.iter().copied());
        }
    }
    bytes.truncate(MAX_LEN);
}

/// One fuzzed input: a seed with mutations applied, or random bytes.
#[derive(Debug, Clone)]
enum Input {
    Mutated {
        seed: Index,
        mutations: Vec<Mutation>,
    },
    Random(Vec<u8>),
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        9 => (any::<Index>(), proptest::collection::vec(mutation(), 0..6))
            .prop_map(|(seed, mutations)| Input::Mutated { seed, mutations }),
        1 => proptest::collection::vec(any::<u8>(), 0..512).prop_map(Input::Random),
    ]
}

impl Input {
    /// The bytes of this input, and the index of its seed (0 for random bytes).
    fn build(&self, seeds: usize, seed_bytes: impl Fn(usize) -> Vec<u8>) -> (Vec<u8>, usize) {
        match self {
            Input::Mutated { seed, mutations } => {
                let k = seed.index(seeds);
                let mut bytes = seed_bytes(k);
                for m in mutations {
                    apply(&mut bytes, m);
                }
                (bytes, k)
            }
            Input::Random(bytes) => (bytes.clone(), 0),
        }
    }
}

// ---------------------------------------------------------------------------
// The checks.

/// Runs `check` on `bytes`; a panic inside becomes a test failure that shows
/// the input exactly (as a Rust byte string) with the panic's message.
fn no_panic(
    target: &str,
    bytes: &[u8],
    check: impl FnOnce() -> Result<(), TestCaseError>,
) -> Result<(), TestCaseError> {
    match panic::catch_unwind(AssertUnwindSafe(check)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("(not a string)");
            Err(TestCaseError::fail(format!(
                "{target} panicked: {message}\ninput ({} bytes): b\"{}\"",
                bytes.len(),
                bytes.escape_ascii()
            )))
        }
    }
}

/// A refusal must be bad input (exit 2), and name where the input came from.
fn refused_as_input(error: &Error, origin: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = error.to_string();
    prop_assert_eq!(
        error.exit_code(),
        2,
        "refused as a failure of the system, not as bad input: {}\ninput: b\"{}\"",
        text,
        bytes.escape_ascii()
    );
    prop_assert!(
        text.contains(origin),
        "the message does not name {}: {}",
        origin,
        text
    );
    Ok(())
}

/// A folder of this test thread's own for the readers that take a path: one
/// per thread, reused by every case (a file rewritten each time).
fn scratch() -> std::path::PathBuf {
    thread_local! {
        static DIR: tempfile::TempDir = tempfile::tempdir().unwrap();
    }
    DIR.with(|d| d.path().to_path_buf())
}

fn check_timings(bytes: &[u8], foreign: bool, per_unit: bool) -> Result<(), TestCaseError> {
    let path = write_file(&scratch(), "fuzz.csv", bytes);
    let options = timings_options(foreign, per_unit);
    match read_timings(std::slice::from_ref(&path), &options) {
        Ok(timings) => {
            for run in &timings.runs {
                // What the reader promises of every run it returns.
                for pair in run.points.windows(2) {
                    let ((u0, t0), (u1, t1)) = (pair[0], pair[1]);
                    prop_assert!(
                        u0 < u1,
                        "units not increasing in {}: {:?}",
                        run.run,
                        run.points
                    );
                    prop_assert!(
                        t0 <= t1,
                        "time goes backwards in {}: {:?}",
                        run.run,
                        run.points
                    );
                }
            }
            Ok(())
        }
        Err(e) => refused_as_input(&e, "fuzz.csv", bytes),
    }
}

fn check_partitions(bytes: &[u8]) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    match parse_partitions(&text, &Origin::Argument("--partitions".into())) {
        Ok(list) => {
            // What budget does with a list: families, the default, a selection.
            let _ = list.families();
            let _ = list.default_partition().map(|p| p.to_string());
            if let Err(e) = list.select(None) {
                prop_assert_eq!(e.exit_code(), 2, "{}", e);
            }
            Ok(())
        }
        Err(e) => refused_as_input(&e, "--partitions", bytes),
    }
}

fn check_sacct(bytes: &[u8], options: &SacctOptions) -> Result<(), TestCaseError> {
    let text = String::from_utf8_lossy(bytes);
    match parse_sacct(&text, &Origin::Argument("SACCT".into()), options) {
        Ok(table) => {
            // What `calib audit` does with a table: audit it, render it.
            let report = audit(&table, &AuditOptions::default());
            let mut out = Vec::new();
            TableExporter.export(&report, &mut out).unwrap();
            JsonExporter.export(&report, &mut out).unwrap();
            Ok(())
        }
        Err(e) => refused_as_input(&e, "SACCT", bytes),
    }
}

fn check_model(bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = write_file(&scratch(), "model.json", bytes);
    match ModelFile::load(&path) {
        Ok(model) => {
            // What budget does with a model: project each stratum.
            let table = calib::calibrate::Table::shipped().unwrap();
            for stratum in &model.strata {
                for units in [1, 100, 10_000] {
                    let _ = stratum.project(units, 0.99, &table);
                }
            }
            Ok(())
        }
        Err(e) => refused_as_input(&e, "model.json", bytes),
    }
}

/// Runs the binary; it must end within 20 s without a panic (exit 101,
/// "panicked" on stderr).
fn check_cli(
    what: &str,
    command: &mut std::process::Command,
    allowed: &[i32],
) -> Result<(), TestCaseError> {
    let out = output_within(command, Duration::from_secs(20));
    let err = stderr(&out);
    prop_assert!(!err.contains("panicked"), "{} panicked: {}", what, err);
    prop_assert!(
        out.status.code().is_some_and(|c| allowed.contains(&c)),
        "{} exited {:?}: {}",
        what,
        out.status,
        err
    );
    Ok(())
}

fn write_input(dir: &Path, name: &str, bytes: &[u8]) -> String {
    write_file(dir, name, bytes).display().to_string()
}

// Case counts for CI: a few seconds of CPU per target in a debug build.

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn timings_reader_never_panics(input in input(), per_unit in proptest::bool::weighted(0.2)) {
        let seeds = timings_seeds();
        let (bytes, k) = input.build(seeds.len(), |k| seeds[k].0.clone());
        let foreign = matches!(input, Input::Mutated { .. }) && seeds[k].1;
        no_panic("the timings reader", &bytes, || check_timings(&bytes, foreign, per_unit))?;
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn partition_parser_never_panics(input in input()) {
        let seeds = partition_seeds();
        let (bytes, _) = input.build(seeds.len(), |k| seeds[k].clone());
        no_panic("the partition parser", &bytes, || check_partitions(&bytes))?;
    }

    #[test]
    fn sacct_parser_never_panics(input in input()) {
        let seeds = sacct_seeds();
        let (bytes, k) = input.build(seeds.len(), |k| seeds[k].0.clone());
        let options = match input {
            Input::Mutated { .. } => seeds[k].1.clone(),
            Input::Random(_) => SacctOptions::default(),
        };
        no_panic("the sacct parser", &bytes, || check_sacct(&bytes, &options))?;
    }
}

proptest! {
    // Loading checks a model by projecting it, which dominates a case's cost.
    #![proptest_config(config(600))]

    #[test]
    fn model_loader_never_panics(input in input()) {
        let seeds = model_seeds();
        let (bytes, _) = input.build(seeds.len(), |k| seeds[k].clone());
        no_panic("the model loader", &bytes, || check_model(&bytes))?;
    }
}

proptest! {
    #![proptest_config(config(100))]

    /// `calib audit @FILE`: 0 or 2, never a panic.
    #[test]
    fn audit_binary_never_panics(input in input()) {
        let seeds = sacct_seeds();
        let (bytes, _) = input.build(seeds.len(), |k| seeds[k].0.clone());
        let dir = tempfile::tempdir().unwrap();
        let file = write_input(dir.path(), "sacct.txt", &bytes);
        check_cli("calib audit", calib().args(["audit", &format!("@{file}")]), &[0, 2])?;
    }

    /// `calib budget --model M --partitions @P`: 0, 2 or 3, never a panic.
    #[test]
    fn budget_binary_never_panics(model in input(), partitions in input()) {
        let (models, lists) = (model_seeds(), partition_seeds());
        let (model, _) = model.build(models.len(), |k| models[k].clone());
        let (list, _) = partitions.build(lists.len(), |k| lists[k].clone());
        let dir = tempfile::tempdir().unwrap();
        let model_file = write_input(dir.path(), "model.json", &model);
        let list_file = write_input(dir.path(), "partitions.txt", &list);
        check_cli(
            "calib budget",
            calib().args(["budget", "--units", "100", "--model", &model_file])
                .args(["--partitions", &format!("@{list_file}")]),
            &[0, 2, 3],
        )?;
    }
}
