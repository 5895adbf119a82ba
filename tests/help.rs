//! The examples that `calib --help` and each command's `--help` teach are
//! command lines calib accepts: every `calib ...` in them (at the start of a
//! line, after a `|`, or inside a quoted `--wrap` command) parses with calib's
//! own command-line definition. A renamed or removed flag breaks this test
//! instead of the reader's first try.

mod common;

use clap::error::ErrorKind;
use clap::Parser;

use calib::cli::Cli;
use common::{help_block, help_text};

/// The calib command lines of one example line: a line may number its step
/// (`2. calib fit ...`), end with a comment (after two spaces or more, in
/// parentheses or in plain words), pipe into calib or redirect its output, or
/// hand calib to another program as one quoted word.
fn calib_commands(line: &str) -> Vec<Vec<String>> {
    if line.starts_with('#') || line.starts_with('(') {
        return Vec::new();
    }
    let line = line.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let words =
        shlex::split(strip_comment(line)).unwrap_or_else(|| panic!("not shell words: {line}"));
    let mut commands = Vec::new();
    for segment in words.split(|w| ["|", "&&", "||", ";"].contains(&w.as_str())) {
        // What follows a redirection is the shell's, not calib's.
        let end = segment
            .iter()
            .position(|w| w.starts_with('>') || w.starts_with('<') || w.starts_with("2>"))
            .unwrap_or(segment.len());
        let segment = &segment[..end];
        if segment.first().is_some_and(|w| w == "calib") {
            commands.push(segment.to_vec());
        } else {
            for word in segment.iter().filter(|w| w.starts_with("calib ")) {
                commands.push(shlex::split(word).expect("shell words"));
            }
        }
    }
    commands
}

/// The line without its trailing comment: the text after a run of two spaces
/// or more that opens a parenthesis or starts with a plain lowercase word
/// (`read calib(1) now`). Runs of spaces that align arguments
/// (`calib fit    calib-timings/`) are followed by an argument instead.
fn strip_comment(line: &str) -> &str {
    let mut at = 0;
    while let Some(gap) = line[at..].find("  ") {
        let start = at + gap;
        let rest = line[start..].trim_start();
        let first = rest.split(' ').next().unwrap_or("");
        let prose = !first.is_empty() && first.chars().all(|c| c.is_ascii_lowercase());
        if rest.starts_with('(') || (prose && rest.contains(' ')) {
            return &line[..start];
        }
        at = line.len() - rest.len();
    }
    line
}

/// Checks every calib command of `lines`; returns how many there were.
fn check_examples(source: &str, lines: &[&str]) -> usize {
    let mut count = 0;
    for line in common::shell_lines(lines) {
        let line = line.as_str();
        for words in calib_commands(line) {
            count += 1;
            if let Err(e) = Cli::try_parse_from(&words) {
                assert!(
                    matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion),
                    "the example `{line}` of {source} does not parse:\n{e}"
                );
            }
        }
    }
    count
}

#[test]
fn the_pipeline_in_calib_help_parses() {
    let text = help_text(&["--help"]);
    let steps = help_block(&text, "The pipeline:");
    assert_eq!(check_examples("calib --help", &steps), 4, "{steps:#?}");
}

#[test]
fn every_command_s_examples_parse() {
    // The commands, from calib's own definition, so that a new one is covered.
    let command = <Cli as clap::CommandFactory>::command();
    let names: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let text = help_text(&[name, "--help"]);
        // The steps of the pipeline must teach by example; a helper command
        // (completions, man) may.
        let pipeline = ["probe", "fit", "budget", "audit", "backtest"].contains(&name);
        if !pipeline && !text.lines().any(|l| l.trim() == "Examples:") {
            continue;
        }
        let examples = help_block(&text, "Examples:");
        let checked = check_examples(&format!("calib {name} --help"), &examples);
        assert!(
            checked >= 2,
            "calib {name} --help: {checked} examples in {examples:#?}"
        );
    }
}

/// Every command's help at the width clap wraps to when it cannot ask the
/// terminal (100 columns), against the same help unwrapped: its examples'
/// lines are the same, so that a command pasted from the help is the
/// command shown. A wrapped example breaks a quoted word or a command in two
/// (`--wrap '... --data Y` and, on a line of its own, `--seed ...'`).
#[test]
fn no_example_is_wrapped_at_100_columns() {
    let command = <Cli as clap::CommandFactory>::command();
    for name in command.get_subcommands().map(|c| c.get_name()) {
        let wide = help_text(&[name, "--help"]);
        if !wide.lines().any(|l| l.trim() == "Examples:") {
            continue;
        }
        let narrow = common::help_text_at(&[name, "--help"], 100);
        assert_eq!(
            help_block(&narrow, "Examples:"),
            help_block(&wide, "Examples:"),
            "calib {name} --help wraps an example at 100 columns"
        );
    }
}

#[test]
fn a_wrong_flag_in_an_example_is_caught() {
    // The check itself: it finds calib in each position an example uses, and
    // the parser refuses a flag calib does not have.
    let found = calib_commands("sinfo -h | calib budget --partition-list -  (comment)");
    assert_eq!(found, [["calib", "budget", "--partition-list", "-"]]);
    assert!(Cli::try_parse_from(&found[0]).is_err());
    let aligned = calib_commands("2. calib fit    t/ -o m.json > log   then read it");
    assert_eq!(aligned, [["calib", "fit", "t/", "-o", "m.json"]]);
    let wrapped = calib_commands("sbatch --wrap 'calib probe -s a=1 -- ./x $SEED'");
    assert_eq!(
        wrapped,
        [["calib", "probe", "-s", "a=1", "--", "./x", "$SEED"]]
    );
    assert!(calib_commands("# calib fit x").is_empty());
}

/// clap's usage errors and calib's own start alike, so a script or a reader
/// looks for one prefix; a probe without `--` before its command is told
/// where the command goes instead of only that `python3` is unexpected.
#[test]
fn usage_errors_start_as_calib_s_own_and_a_missing_dashdash_is_named() {
    let usage = common::calib()
        .args(["fit", "--no-such-flag"])
        .output()
        .unwrap();
    let own = common::calib()
        .args(["fit", "no-such-file.csv"])
        .output()
        .unwrap();
    for out in [&usage, &own] {
        assert_eq!(out.status.code(), Some(2));
        assert!(
            common::stderr(out).starts_with("calib: error: "),
            "{}",
            common::stderr(out)
        );
    }
    let probe = common::calib()
        .args(["probe", "-o", "runs", "python3", "train.py"])
        .output()
        .unwrap();
    assert_eq!(probe.status.code(), Some(2));
    let said = common::stderr(&probe);
    assert!(
        said.contains("after `--`: calib probe [OPTIONS] -- python3"),
        "{said}"
    );
    // With `--` present the tip is not given, whatever else is wrong.
    let other = common::calib()
        .args(["probe", "--bogus", "-o", "runs", "--", "python3"])
        .output()
        .unwrap();
    assert!(!common::stderr(&other).contains("goes after `--`"));
}
