//! One format across commands: `calib fit`, `budget`, `audit` and `backtest`
//! print their tables alike (a rule under the header, numbers aligned right),
//! name their columns so that a newcomer can read them, lay out `--help`
//! alike (probe, fit, budget, audit, backtest), and
//! colour a few words only where colour is wanted: on request
//! (`CLICOLOR_FORCE`, standing in for a terminal), never under `NO_COLOR`,
//! never in output for programs, and never so that the text differs once the
//! colour is taken out.

mod common;

use std::process::Output;

use common::{at_repo_file, budget_bundled, calib, repo_file, stderr, stdout};

/// `calib fit` of the bundled probes, 100 units.
fn fit(env: &[(&str, &str)]) -> Output {
    let mut c = calib();
    c.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    c.envs(env.iter().copied());
    c.args(["fit", "--units", "100"])
        .arg(repo_file("data/trend-probe-60x3.csv"))
        .arg(repo_file("data/spread-20.csv"))
        .output()
        .unwrap()
}

/// `calib budget` of the bundled probes (strata dataset=Y, rounded down, and
/// dataset=Z) for Narval, with `extra` arguments.
fn budget(env: &[(&str, &str)], extra: &[&str]) -> Output {
    let mut c = budget_bundled();
    c.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    c.envs(env.iter().copied()).args(extra).output().unwrap()
}

/// `calib audit` of a bundled sacct sample (a real cluster's, 8 tasks of
/// which 4 timed out, one group).
fn audit() -> Output {
    calib()
        .args([
            "audit",
            &at_repo_file("tests/data/sacct/sacct-ulhpc-iris.txt"),
        ])
        .output()
        .unwrap()
}

/// `calib backtest` of the bundled full-length runs of xz, probes of 10 units.
fn backtest() -> Output {
    calib()
        .arg("backtest")
        .arg(repo_file("data/traces/xz/full"))
        .args(["--probe-units", "10"])
        .output()
        .unwrap()
}

/// The table in `text`: from its header (the first line that starts with
/// `stratum`; backtest names its probe design above it) up to the first
/// blank line or note (budget's and audit's notes are indented, fit's
/// footnote follows a blank line).
fn table_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("stratum"))
        .take_while(|l| !l.is_empty() && !l.starts_with(' '))
        .collect()
}

/// Where the text of `column` ends, in characters, in the header.
fn end_of(header: &str, column: &str) -> usize {
    let at = header
        .find(column)
        .unwrap_or_else(|| panic!("no {column} in {header}"));
    header[..at].chars().count() + column.chars().count()
}

/// Checks the one table format: a rule of dashes under the header, as wide as
/// the widest line, and the `right` columns aligned right (each cell ends
/// where its header ends).
fn assert_one_format(text: &str, right: &[&str]) {
    let lines = table_lines(text);
    assert!(lines.len() >= 3, "{text}");
    let (header, rule, rows) = (lines[0], lines[1], &lines[2..]);
    assert!(
        !rule.is_empty() && rule.chars().all(|c| c == '-'),
        "no rule under the header:\n{text}"
    );
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap();
    assert_eq!(rule.chars().count(), widest, "{text}");
    for column in right {
        let end = end_of(header, column);
        for row in rows {
            let chars: Vec<char> = row.chars().collect();
            assert!(
                chars[end - 1] != ' ' && chars.get(end).is_none_or(|c| *c == ' '),
                "`{column}` not aligned right in `{row}`:\n{text}"
            );
        }
    }
}

#[test]
fn fit_and_budget_tables_share_one_format() {
    let fitted = fit(&[]);
    assert_eq!(fitted.status.code(), Some(0), "{}", stderr(&fitted));
    assert_one_format(&stdout(&fitted), &["runs", "predicted", "measured"]);
    let budgeted = budget(&[], &[]);
    assert_eq!(budgeted.status.code(), Some(0), "{}", stderr(&budgeted));
    assert_one_format(
        &stdout(&budgeted),
        &["units", "predicted", "measured", "--time"],
    );
    // The projection's columns carry the same names in both.
    let fit_header = table_lines(&stdout(&fitted))[0].to_string();
    let budget_header = table_lines(&stdout(&budgeted))[0].to_string();
    for column in ["predicted", "measured", "upper@60%"] {
        assert!(fit_header.contains(column), "{fit_header}");
        assert!(budget_header.contains(column), "{budget_header}");
    }
}

#[test]
fn audit_and_backtest_tables_share_the_format_of_fit_and_budget() {
    let audited = audit();
    assert_eq!(audited.status.code(), Some(0), "{}", stderr(&audited));
    assert_one_format(
        &stdout(&audited),
        &["tasks", "time limit", "median", "max", "used", "headroom"],
    );
    let backtested = backtest();
    assert_eq!(backtested.status.code(), Some(0), "{}", stderr(&backtested));
    assert_one_format(&stdout(&backtested), &["held out", "worst", "largest"]);
}

#[test]
fn fit_says_in_words_what_its_shortfall_column_is() {
    let text = stdout(&fit(&[]));
    let header = table_lines(&text)[0];
    assert!(!header.contains(" x (N="), "a cryptic header: {header}");
    // The column name with more than a word, read from the header, is
    // explained by `--help` (not under every table): by its formula.
    let column = "mean-rate shortfall";
    assert!(header.contains(column), "{header}");
    let help = unwrapped_help(&stdout(&calib().args(["fit", "--help"]).output().unwrap()));
    let at = help
        .find(column)
        .unwrap_or_else(|| panic!("--help does not explain `{column}`:\n{help}"));
    let explained = &help[at..];
    for word in ["mean time per unit", "too short"] {
        assert!(explained.contains(word), "{explained}");
    }
}

/// Help text with its wrapping undone.
fn unwrapped_help(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The layout of `calib <command> --help`: how many lines come before
/// `Usage:`, whether the first option's help starts on a line of its own,
/// and the order of its sections (the lines that are one word and a `:`).
fn help_layout(command: &str) -> (usize, bool, Vec<String>) {
    let out = calib()
        .args([command, "--help"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let before_usage = text
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty())
        .count();
    let mut options = text.lines().skip_while(|l| *l != "Options:").skip(1);
    let first = options.next().unwrap_or_default().trim_end();
    let help_on_next_line = first.ends_with('>') || !first.contains("  ");
    let sections = text
        .lines()
        .filter(|l| l.ends_with(':') && !l.contains(' '))
        .map(String::from)
        .collect();
    // What the output holds, in a paragraph after the examples.
    let after_examples = text
        .split("\nExamples:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{command}: no examples:\n{text}"));
    assert!(
        after_examples.contains("\nThe output: "),
        "{command}: nothing says what the output holds:\n{text}"
    );
    (before_usage, help_on_next_line, sections)
}

#[test]
fn every_pipeline_command_lays_out_its_help_alike() {
    let fit = help_layout("fit");
    // A description of a few lines before the usage, each option's help
    // under its flag, and the sections in fit's order, in every command.
    assert!(fit.0 >= 3, "fit --help has no description: {fit:?}");
    assert!(fit.1, "fit --help: option help beside the flag: {fit:?}");
    assert_eq!(
        fit.2.iter().position(|s| s == "Examples:"),
        Some(fit.2.len() - 1),
        "{fit:?}"
    );
    for command in ["probe", "budget", "audit", "backtest"] {
        let layout = help_layout(command);
        assert!(
            layout.0 >= 3,
            "{command} --help has no description: {layout:?}"
        );
        assert_eq!(layout.1, fit.1, "{command} {layout:?}, fit {fit:?}");
        assert_eq!(layout.2, fit.2, "{command} {layout:?}, fit {fit:?}");
    }
}

/// Every escape sequence `ESC [ ... m` (SGR) taken out.
fn without_colour(text: &str) -> String {
    let mut plain = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        plain.push_str(&rest[..at]);
        let tail = &rest[at + 2..];
        let end = tail.find('m').expect("an SGR sequence ends with m");
        rest = &tail[end + 1..];
    }
    plain.push_str(rest);
    plain
}

#[test]
fn colour_only_where_asked_and_never_under_no_color() {
    // At 0.99 the slow stratum's bound passes the 12-hour cap: rounded down.
    let at = ["--confidence", "0.99"];
    let plain = budget(&[], &at);
    let forced = budget(&[("CLICOLOR_FORCE", "1")], &at);
    let refused = budget(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &at);
    for out in [&plain, &forced, &refused] {
        assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    }
    // Not a terminal and not asked: no escape code anywhere.
    assert!(!plain.stdout.contains(&0x1b), "{}", stdout(&plain));
    // Asked: the status that needs a look is coloured, `ok` is not, and the
    // text is the same once the colour is out (the columns did not move).
    let coloured = stdout(&forced);
    let row = coloured
        .lines()
        .find(|l| l.starts_with("dataset=Y"))
        .unwrap();
    assert!(
        row.contains("\u{1b}[") && row.contains("rounded_down"),
        "{row:?}"
    );
    let ok_row = coloured
        .lines()
        .find(|l| l.starts_with("dataset=Z"))
        .unwrap();
    assert!(!ok_row.contains('\u{1b}'), "{ok_row:?}");
    assert_eq!(without_colour(&coloured), stdout(&plain));
    // NO_COLOR wins over the request.
    assert_eq!(stdout(&refused), stdout(&plain));

    // Warnings: the prefix only.
    let warned = fit(&[("CLICOLOR_FORCE", "1")]);
    let err = stderr(&warned);
    let line = err.lines().find(|l| l.contains("warning")).unwrap();
    assert!(line.starts_with("calib: \u{1b}["), "{line:?}");
    assert_eq!(without_colour(&err), stderr(&fit(&[])));
    let quiet = fit(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!quiet.stderr.contains(&0x1b), "{}", stderr(&quiet));
}

#[test]
fn output_for_programs_is_never_coloured() {
    for format in ["json", "csv", "sbatch"] {
        let out = budget(&[("CLICOLOR_FORCE", "1")], &["--format", format]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert!(!out.stdout.contains(&0x1b), "{format}: {}", stdout(&out));
    }
    let mut c = calib();
    c.env("CLICOLOR_FORCE", "1").env_remove("NO_COLOR");
    let json = c
        .args(["fit", "--format", "json"])
        .arg(repo_file("data/spread-20.csv"))
        .output()
        .unwrap();
    assert_eq!(json.status.code(), Some(0), "{}", stderr(&json));
    assert!(!json.stdout.contains(&0x1b));
}

#[test]
fn a_confidence_with_decimals_is_named_with_them() {
    // Rounded to whole percents, 0.985 would read `99%`: a confidence no
    // bound states. Every place that names it keeps its decimals.
    let budget_table = stdout(&budget(&[], &["--confidence", "0.985"]));
    assert!(budget_table.contains("upper@98.5%"), "{budget_table}");
    let sbatch = stdout(&budget(
        &[],
        &[
            "--confidence",
            "0.975",
            "--format",
            "sbatch",
            "--script",
            "run.sh",
        ],
    ));
    assert!(sbatch.contains("at 97.5%"), "{sbatch}");
    let fit_table = stdout(&{
        let mut c = calib();
        c.args(["fit", "--units", "100", "--confidence", "0.985"])
            .arg(repo_file("data/trend-probe-60x3.csv"))
            .output()
            .unwrap()
    });
    assert!(fit_table.contains("upper@98.5%"), "{fit_table}");
    let backtest = stdout(
        &calib()
            .arg("backtest")
            .arg(repo_file("data/traces/xz/full"))
            .args(["--probe-units", "10", "--confidence", "0.985"])
            .output()
            .unwrap(),
    );
    assert!(backtest.contains("covered@98.5%"), "{backtest}");
    assert!(backtest.contains("at a stated 98.5%"), "{backtest}");
    for text in [&budget_table, &sbatch, &fit_table, &backtest] {
        assert!(!text.contains("100%"), "{text}");
    }
}
