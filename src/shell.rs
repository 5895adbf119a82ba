//! Values that end up in the shell scripts calib writes, kept from becoming code.
//!
//! `calib budget --format sbatch` writes text that a shell runs: `#SBATCH`
//! directives, `#` comments that record what a time rests on, and `sbatch`
//! command lines. Stratum labels, cluster and CPU names, the unit name and the
//! script path in that text come from users, from timings files and from
//! model files. Each is handled at both ends:
//!
//! * **At input**, [`refuse_control`] turns away a value that holds a control
//!   character (`char::is_control`: newline, carriage return, tab, NUL, DEL,
//!   the C1 range). No label or name needs one, and a newline is exactly what
//!   ends a comment line and starts a command. [`text_argument`] is the same
//!   check as a clap `value_parser` for flags.
//! * **At output**, whatever got through (a model file edited by hand, a
//!   library caller that built a budget itself): every word of a command line
//!   goes through [`quote`], every word of an `#SBATCH` directive through
//!   [`directive_word`], and every comment line, directives included, through
//!   [`comment_text`].
//!
//! Assumptions. The script is read by a POSIX shell (sh, dash, bash, zsh in
//! sh mode), in which a `#` comment runs to the next newline and nothing else
//! ends it (a backslash before the newline does not continue a comment), and
//! single quotes take every character literally but `'` itself. `#SBATCH`
//! lines are also read by sbatch with its own grammar, line by line: it groups
//! quoted text into one argument as the shell does, but takes a backslash as
//! an escape of the next character even inside quotes, and an unquoted `#` as
//! the end of the line's arguments (as sbatch 22.05 reads them: `sbatch -vv
//! --test-only` lists the options it read). Quoting makes a word one literal
//! argument; it cannot stop a program from reading an argument that starts
//! with `-` as an option, which is the caller's concern (see the sbatch
//! exporter's script argument).

use std::fmt::Write;

/// Characters that need no quotes anywhere in a POSIX shell word.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c)
}

/// Quotes `word` so that a POSIX shell reads it as exactly one argument with
/// exactly this text: plain words stay as they are (`job.sh`, `--time=60`),
/// anything else is single-quoted with `'` written as `'\''`. A newline inside
/// the quotes stays part of the word.
pub(crate) fn quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(is_plain) {
        return word.to_string();
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for c in word.chars() {
        if c == '\'' {
            quoted.push_str(r"'\''");
        } else {
            quoted.push(c);
        }
    }
    quoted.push('\'');
    quoted
}

/// [`quote`] for a word of a command line, with an option's `--name=` left
/// in front of the quotes when the name is plain (`--comment='calib
/// stratum=a'`, where [`quote`] alone writes `'--comment=calib stratum=a'`):
/// the same argument either way, in the form `calib budget` writes its
/// options, so that a line calib reads and writes again keeps its text.
pub(crate) fn quote_option(word: &str) -> String {
    if let Some((name, value)) = word.split_once('=') {
        let plain_name = name.strip_prefix("--").is_some_and(|n| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        if plain_name {
            return format!("{name}={}", quote(value));
        }
    }
    quote(word)
}

/// Quotes `word` for an `#SBATCH` directive, so that sbatch reads exactly
/// this text as one argument: plain words stay as they are, anything else is
/// single-quoted with `\` and `'` each escaped by a backslash (sbatch's
/// grammar, see the module docs; `'it\'s'` is `it's` there). This is not
/// shell syntax: the shell sees a directive as a comment. Control characters
/// are not handled here: the directive line goes through [`comment_text`].
pub(crate) fn directive_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(is_plain) {
        return word.to_string();
    }
    let mut quoted = String::with_capacity(word.len() + 2);
    quoted.push('\'');
    for c in word.chars() {
        if c == '\\' || c == '\'' {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('\'');
    quoted
}

/// Characters that could end a comment line, or look as if they did: control
/// characters, and Unicode's line and paragraph separators (which some editors
/// draw as a line break); and the bidirectional controls, which reorder what a
/// terminal or an editor shows of the rest of the line (the "Trojan Source"
/// attack, CVE-2021-42574): a label could make a line read other than it is.
pub(crate) fn disturbs_a_line(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}' || is_bidi_control(c)
}

/// Unicode's explicit bidirectional formatting characters (UAX #9: ALM, LRM,
/// RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` made safe to follow `#` on one line: every control character (and
/// U+2028, U+2029, and the bidirectional controls) is written as its Rust escape (`\n`, `\r`, `\0`,
/// `\u{1b}`), so that no value can end the comment and start a command, nor
/// move the cursor to hide what the line says. Other text is kept as it is.
pub(crate) fn comment_text(text: &str) -> String {
    escape_where(text, disturbs_a_line).into_owned()
}

/// A message of calib's own made safe for a terminal: as [`comment_text`],
/// but its line breaks and tabs kept (a message may list things on lines).
/// Messages quote what users and programs gave (a job name, a run id, an
/// environment variable), and an escape sequence there would act on the
/// terminal instead of being read.
pub(crate) fn message_text(text: &str) -> std::borrow::Cow<'_, str> {
    escape_where(text, |c| disturbs_a_line(c) && c != '\n' && c != '\t')
}

/// `text` with each character `escaped` picks written as its Rust escape.
fn escape_where(text: &str, escaped: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(&escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut safe = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            let _ = write!(safe, "{}", c.escape_debug());
        } else {
            safe.push(c);
        }
    }
    std::borrow::Cow::Owned(safe)
}

/// The longest part of a refused value that a message shows.
const SHOWN_CHARS: usize = 80;

/// Refuses `value` if it holds a control character or a bidirectional
/// control (which reorders what is shown of a line); `what` names it for the
/// message (`stratum label`, `column cluster`, ...). The message names the
/// first such character by its code point (`U+000A`) and shows the value
/// escaped, so that the message itself stays on one line.
pub(crate) fn refuse_control(what: &str, value: &str) -> Result<(), String> {
    let Some((at, c)) = value.chars().enumerate().find(|&(_, c)| disturbs_a_line(c)) else {
        return Ok(());
    };
    let shown: String = value.chars().take(SHOWN_CHARS).collect();
    let more = if value.chars().count() > SHOWN_CHARS {
        "..."
    } else {
        ""
    };
    Err(format!(
        "{what} `{}{more}` holds the control character U+{:04X} (character {}); \
         labels and names are written into job scripts and their comments, where a \
         control character could end a line or reorder what it shows, so none is accepted",
        shown.escape_debug(),
        c as u32,
        at + 1
    ))
}

/// A clap `value_parser` for text flags whose value reaches emitted scripts
/// (`--unit-name`, `--script`, `--cluster`, `--stratum`, ...): the text as
/// given, or the message of [`refuse_control`] (clap exits with status 2).
pub(crate) fn text_argument(value: &str) -> Result<String, String> {
    refuse_control("the value", value)?;
    Ok(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_and_others_are_single_quoted() {
        assert_eq!(quote("job.sh"), "job.sh");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("a\nb"), "'a\nb'");
    }

    #[test]
    fn options_keep_their_name_in_front_of_the_quotes() {
        assert_eq!(quote_option("--array=0-2"), "--array=0-2");
        assert_eq!(quote_option("--comment=a b"), "--comment='a b'");
        assert_eq!(quote_option("--job-name=$(x)"), "--job-name='$(x)'");
        assert_eq!(quote_option("--x;y=z"), "'--x;y=z'");
        assert_eq!(quote_option("-a=b c"), "'-a=b c'");
        assert_eq!(quote_option("a b"), "'a b'");
    }

    #[test]
    fn directive_words_escape_backslashes_and_quotes_inside_single_quotes() {
        assert_eq!(directive_word("12:00:00"), "12:00:00");
        assert_eq!(directive_word(""), "''");
        assert_eq!(
            directive_word("calib stratum=d=a b"),
            "'calib stratum=d=a b'"
        );
        assert_eq!(directive_word(r"it's a\b #x"), r"'it\'s a\\b #x'");
    }

    #[test]
    fn comment_text_escapes_every_line_end() {
        let safe = comment_text("x\ny\rz\u{0}w\u{7f}v\u{85}u\u{2028}t");
        assert!(!safe.chars().any(disturbs_a_line), "{safe:?}");
        assert_eq!(comment_text("x\ny"), r"x\ny");
        assert_eq!(comment_text("déjà vu $(x) `y`"), "déjà vu $(x) `y`");
        // A right-to-left override would show `# stratum k=cba` for k=abc.
        assert_eq!(comment_text("k=\u{202e}abc"), r"k=\u{202e}abc");
        assert!(refuse_control("label", "k=\u{2067}abc").is_err());
        assert!(refuse_control("label", "k=עברית").is_ok());
    }

    #[test]
    fn messages_keep_their_lines_and_lose_their_escapes() {
        assert_eq!(message_text("a\nb\tc"), "a\nb\tc");
        assert_eq!(
            message_text("`77\u{1b}[2J` x\u{202e}y\r"),
            r"`77\u{1b}[2J` x\u{202e}y\r"
        );
    }

    #[test]
    fn refusal_names_the_character_and_stays_on_one_line() {
        assert!(refuse_control("label", "dataset=Y ü").is_ok());
        let e = refuse_control("label", "d=x\ntouch /tmp/p").unwrap_err();
        assert!(e.contains("U+000A"), "{e}");
        assert!(e.contains("character 4"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        for c in ['\r', '\t', '\0', '\u{7f}', '\u{9b}'] {
            let e = refuse_control("label", &format!("a{c}b")).unwrap_err();
            assert!(e.contains(&format!("U+{:04X}", c as u32)), "{e}");
        }
        let long = format!("{}\n", "x".repeat(5000));
        let e = refuse_control("label", &long).unwrap_err();
        assert!(e.len() < 400, "the message shows a bounded part: {e}");
    }
}
