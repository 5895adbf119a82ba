//! Unit markers: which output lines mean "a unit just finished".
//!
//! A **line** is a run of bytes ended by `\n` or `\r`. A line is a **marker**
//! when the unit regex matches somewhere in it; each marker line counts as exactly
//! one unit, however many times the regex matches inside it. `^` and `$` anchor
//! at the line's start and end.
//!
//! **Redraws.** A progress bar redraws its line with `\r`: tqdm with
//! `desc="Epoch 3"` prints `Epoch 3:  45%|...` hundreds of times during one
//! epoch. A marker line that shows the *same matched text* as the previous
//! marker line of its stream, where that one ended with `\r` and no `\n` came
//! in between, is a redraw of the same unit and is not counted again. A counter
//! redrawn in place (`\rgeneration 12`, `\rgeneration 13`) changes its matched
//! text each time, so each redraw is a unit. The unit is counted at its first
//! appearance (its row is written at once): for a bar labelled with the unit
//! it is working on, that is when the unit *starts*.
//!
//! Cost: output is scanned chunk by chunk, not line by line. The regex (compiled a
//! second time in multi-line CRLF mode, so that `^`/`$` see line boundaries) is
//! run once over all the complete lines of a chunk, and the regex crate's literal
//! prefilter skips lines that cannot match; only a candidate's own line is then
//! checked with the regex as written. A pattern using `\A` or `\z` (which mean
//! "start/end of the haystack" and so differ between a chunk and a line) is
//! instead matched line by line, which is slower but exact.
//!
//! Memory is bounded: a line longer than [`MAX_LINE`] bytes is matched on its
//! first [`MAX_LINE`] bytes only, whether it came in one read or several; the
//! rest of it is passed through but not kept. Such lines are counted
//! ([`LineScanner::cut_lines`]): a marker past the cut is not seen, and the
//! probe's summary says so.

use regex::bytes::{Regex, RegexBuilder};

use crate::error::{Error, Origin, Result};

/// The default unit regex: common progress lines (`generation 12`, `epoch 3/100`,
/// `Step: 400`, `iter 7`, `[Epoch 2]`) and the explicit `CALIB_UNIT` marker,
/// ASCII case-insensitive, the word followed by a number that is not a
/// percentage: one tqdm bar over all the epochs, `desc="Epoch"`, shows
/// `Epoch:  30%|...| 60/200`, and its percentage is no epoch (each change of
/// it was counted as one, half the epochs of a 200-epoch run).
pub(crate) const DEFAULT_UNIT_REGEX: &str =
    r"(?i-u)\b(?:generation|epoch|step|iteration|iter)\b[ \t:=#\[(]*[0-9]+(?:[^0-9%]|$)|CALIB_UNIT";

/// The longest line kept in memory across reads (64 KiB).
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Finds marker lines in chunks of output.
#[derive(Debug, Clone)]
pub(crate) struct UnitMatcher {
    pattern: String,
    /// The regex as written: decides for one line.
    line_re: Regex,
    /// The same pattern in multi-line CRLF mode, run over many lines at once;
    /// `None` when the pattern needs line-by-line matching.
    chunk_re: Option<Regex>,
}

impl UnitMatcher {
    /// Compiles `pattern`; errors name `--unit-regex` and say what is wrong.
    pub(crate) fn new(pattern: &str) -> Result<UnitMatcher> {
        let bad =
            |message: String| Error::input(Origin::Argument("--unit-regex".into()), None, message);
        let line_re = RegexBuilder::new(pattern).build().map_err(|e| {
            bad(format!(
                "`{pattern}` is not a valid regular expression: {e}"
            ))
        })?;
        if line_re.is_match(b"") {
            return Err(bad(format!(
                "`{pattern}` matches an empty line, so every line would count as a unit; \
                 give a regex that needs some text, e.g. `epoch [0-9]+`"
            )));
        }
        let needs_lines = pattern.contains(r"\A") || pattern.contains(r"\z");
        let chunk_re = if needs_lines {
            None
        } else {
            Some(
                RegexBuilder::new(&format!("(?mR:{pattern})"))
                    .build()
                    .map_err(|e| bad(format!("`{pattern}` cannot be used on many lines: {e}")))?,
            )
        };
        Ok(UnitMatcher {
            pattern: pattern.to_string(),
            line_re,
            chunk_re,
        })
    }

    pub(crate) fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether one line (without its terminator) is a marker.
    pub(crate) fn is_marker(&self, line: &[u8]) -> bool {
        self.line_re.is_match(&line[..line.len().min(MAX_LINE)])
    }

    /// The text the regex matched in a marker line (what a redraw repeats).
    fn matched<'l>(&self, line: &'l [u8]) -> Option<&'l [u8]> {
        self.line_re
            .find(&line[..line.len().min(MAX_LINE)])
            .map(|m| m.as_bytes())
    }

    /// Calls `found(start, end)` for every marker line of `region`, in order.
    /// `region` must consist of complete lines: it ends with `\n` or `\r`.
    fn for_each_marker(&self, region: &[u8], mut found: impl FnMut(usize, usize)) {
        let Some(chunk_re) = &self.chunk_re else {
            let mut start = 0;
            while start < region.len() {
                let end = start + next_terminator(&region[start..]).unwrap_or(region.len() - start);
                if self.is_marker(&region[start..end]) {
                    found(start, end);
                }
                start = end + 1;
            }
            return;
        };
        let mut from = 0;
        while from < region.len() {
            let Some(m) = chunk_re.find_at(region, from) else {
                return;
            };
            // The line that holds the start of the candidate match.
            let line_start = region[from..m.start()]
                .iter()
                .rposition(|&b| is_terminator(b))
                .map_or(from, |i| from + i + 1);
            let line_end = match next_terminator(&region[m.start()..]) {
                Some(i) => m.start() + i,
                None => region.len(),
            };
            if line_end > line_start && self.is_marker(&region[line_start..line_end]) {
                found(line_start, line_end);
            }
            from = line_end + 1;
        }
    }
}

fn is_terminator(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

fn next_terminator(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| is_terminator(b))
}

/// Splits one stream's output into lines across reads and reports marker lines.
///
/// Holds at most [`MAX_LINE`] bytes of an unfinished line between reads.
#[derive(Debug, Default)]
pub(crate) struct LineScanner {
    partial: Vec<u8>,
    /// The unfinished line is longer than what `partial` keeps.
    overflowed: bool,
    /// The matched text of the last marker line, while it is being redrawn
    /// (it ended with `\r` and no `\n` followed yet).
    redraw: Option<Vec<u8>>,
    /// Lines longer than [`MAX_LINE`] so far, matched on their first
    /// [`MAX_LINE`] bytes only: a marker after that is not seen, and the
    /// probe's summary says so.
    pub(crate) cut_lines: u64,
}

impl LineScanner {
    pub(crate) fn new() -> LineScanner {
        LineScanner::default()
    }

    /// Scans one chunk; calls `marker(line)` for each unit completed in it, in
    /// order. `line` excludes the terminator and may be cut at [`MAX_LINE`].
    pub(crate) fn scan(
        &mut self,
        matcher: &UnitMatcher,
        chunk: &[u8],
        mut marker: impl FnMut(&[u8]),
    ) {
        let mut rest = chunk;
        if !self.partial.is_empty() || self.overflowed {
            match next_terminator(rest) {
                None => {
                    self.keep(rest);
                    return;
                }
                Some(i) => {
                    self.keep(&rest[..i]);
                    self.cut_lines += u64::from(self.overflowed);
                    let line = std::mem::take(&mut self.partial);
                    self.on_line(matcher, &line, rest[i] == b'\r', &mut marker);
                    self.partial = line;
                    self.partial.clear();
                    self.overflowed = false;
                    rest = &rest[i + 1..];
                }
            }
        }
        let complete = match rest.iter().rposition(|&b| is_terminator(b)) {
            Some(last) => last + 1,
            None => 0,
        };
        if complete > 0 {
            let region = &rest[..complete];
            // A long line is matched on its first MAX_LINE bytes whether it
            // came in one read or in several, so that what counts does not
            // depend on how the pipe split the output; each is counted.
            let long = region[..complete - 1]
                .split(|&b| is_terminator(b))
                .filter(|line| line.len() > MAX_LINE)
                .count();
            self.cut_lines += long as u64;
            let mut after_last = 0;
            matcher.for_each_marker(region, |start, end| {
                self.newlines_between(&region[after_last..start]);
                let ended_by_cr = region[end] == b'\r';
                self.on_line(matcher, &region[start..end], ended_by_cr, &mut marker);
                after_last = end + 1;
            });
            self.newlines_between(&region[after_last.min(complete)..]);
        }
        self.keep(&rest[complete..]);
    }

    /// The unfinished line at the end of the stream, if it is a marker (a last
    /// line without a terminator still counts).
    pub(crate) fn finish(&mut self, matcher: &UnitMatcher, mut marker: impl FnMut(&[u8])) {
        self.cut_lines += u64::from(self.overflowed);
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.on_line(matcher, &line, false, &mut marker);
        }
        self.partial.clear();
        self.overflowed = false;
        self.redraw = None;
    }

    /// One complete line (known or likely to be a marker).
    fn on_line(
        &mut self,
        matcher: &UnitMatcher,
        line: &[u8],
        ended_by_cr: bool,
        marker: &mut impl FnMut(&[u8]),
    ) {
        match matcher.matched(line) {
            Some(text) => {
                if self.redraw.as_deref() != Some(text) {
                    marker(line);
                }
                self.redraw = ended_by_cr.then(|| text.to_vec());
            }
            None if !ended_by_cr => self.redraw = None,
            None => {}
        }
    }

    /// Lines that are no marker: a `\n` among them ends any redraw.
    fn newlines_between(&mut self, bytes: &[u8]) {
        if self.redraw.is_some() && bytes.contains(&b'\n') {
            self.redraw = None;
        }
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_LINE - self.partial.len();
        if bytes.len() > room {
            self.overflowed = true;
        }
        self.partial
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn markers(pattern: &str, chunks: &[&[u8]]) -> Vec<String> {
        let matcher = UnitMatcher::new(pattern).unwrap();
        let mut scanner = LineScanner::new();
        let mut out = Vec::new();
        for chunk in chunks {
            scanner.scan(&matcher, chunk, |l| {
                out.push(String::from_utf8_lossy(l).into_owned())
            });
        }
        scanner.finish(&matcher, |l| {
            out.push(String::from_utf8_lossy(l).into_owned())
        });
        out
    }

    /// The markers found and the lines cut, with `chunks` read in turn.
    fn scanned(pattern: &str, chunks: &[&[u8]]) -> (usize, u64) {
        let matcher = UnitMatcher::new(pattern).unwrap();
        let mut scanner = LineScanner::new();
        let mut found = 0;
        for chunk in chunks {
            scanner.scan(&matcher, chunk, |_| found += 1);
        }
        scanner.finish(&matcher, |_| found += 1);
        (found, scanner.cut_lines)
    }

    #[test]
    fn a_marker_past_the_line_limit_is_not_seen_and_its_line_is_counted() {
        let mut long = vec![b'x'; MAX_LINE + 10];
        long.extend_from_slice(b" CALIB_UNIT\nCALIB_UNIT\n");
        // In one read, or split inside the long line: the same answer.
        assert_eq!(scanned("CALIB_UNIT", &[&long]), (1, 1));
        let (head, tail) = long.split_at(1000);
        assert_eq!(scanned("CALIB_UNIT", &[head, tail]), (1, 1));
        // Without a final newline, the long line ends with the stream.
        let unended = &long[..MAX_LINE + 21];
        assert_eq!(scanned("CALIB_UNIT", &[unended]), (0, 1));
        // Lines up to the limit are matched whole and not counted.
        let mut fits = vec![b'x'; MAX_LINE - 11];
        fits.extend_from_slice(b"CALIB_UNIT\n");
        assert_eq!(scanned("CALIB_UNIT", &[&fits]), (1, 0));
    }

    #[test]
    fn default_regex_matches_common_progress_lines() {
        let m = UnitMatcher::new(DEFAULT_UNIT_REGEX).unwrap();
        for line in [
            "generation 12",
            "Epoch 3/100 loss=0.3",
            "step 400",
            "[epoch 2] done",
            "Step: 17",
            "iter 9 ok",
            "iteration=10",
            "CALIB_UNIT",
            "done CALIB_UNIT 4",
        ] {
            assert!(m.is_marker(line.as_bytes()), "{line}");
        }
        for line in [
            "loss=0.3",
            "steps taken",
            "batch_size=32",
            "stepper 4",
            "epoch",
            "generations",
            // One bar over all the epochs: the number is its percentage.
            "Epoch:  30%|###       | 60/200 [00:01<00:02, 51.2it/s]",
            "step 45%",
        ] {
            assert!(!m.is_marker(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn one_unit_per_line_even_with_two_matches() {
        assert_eq!(markers("step", &[b"step step\nx\nstep\n"]).len(), 2);
    }

    #[test]
    fn lines_split_across_reads_are_joined() {
        let got = markers(r"epoch \d+", &[b"noise\nep", b"och ", b"7 done\nepoch 8\n"]);
        assert_eq!(got, ["epoch 7 done", "epoch 8"]);
    }

    #[test]
    fn carriage_returns_end_lines_and_anchors_see_them() {
        let got = markers(r"^step \d+$", &[b"step 1\rstep 2\r\nxstep 3\nstep 4"]);
        assert_eq!(got, ["step 1", "step 2", "step 4"]);
    }

    #[test]
    fn a_redrawn_progress_bar_counts_once_per_label() {
        // tqdm(desc=f"Epoch {e}"): `\r` before each redraw, `\n` when it closes.
        let bar = b"\rEpoch 1:   0%|  | 0/9\rEpoch 1:  50%|# | 4/9\rEpoch 1: 100%|##| 9/9\n\
                    \rEpoch 2:   0%|  | 0/9\rEpoch 2: 100%|##| 9/9\n";
        assert_eq!(
            markers(DEFAULT_UNIT_REGEX, &[bar]),
            ["Epoch 1:   0%|  | 0/9", "Epoch 2:   0%|  | 0/9"]
        );
        // A bar that never ends its line (leave=False) still counts per label.
        let bar = b"\rEpoch 1: 10%\rEpoch 1: 90%\r            \rEpoch 2: 10%\rEpoch 2: 90%";
        assert_eq!(markers(DEFAULT_UNIT_REGEX, &[bar]).len(), 2);
    }

    #[test]
    fn a_counter_redrawn_in_place_counts_every_value() {
        let got = markers(
            DEFAULT_UNIT_REGEX,
            &[b"\rgeneration 1\rgeneration 2\rgeneration 3\n"],
        );
        assert_eq!(got, ["generation 1", "generation 2", "generation 3"]);
    }

    #[test]
    fn identical_markers_on_their_own_lines_all_count() {
        assert_eq!(
            markers("CALIB_UNIT", &[b"CALIB_UNIT\nCALIB_UNIT\n"]).len(),
            2
        );
        assert_eq!(
            markers("CALIB_UNIT", &[b"CALIB_UNIT\r\nCALIB_UNIT\r\nCALIB_UNIT"]).len(),
            3
        );
        assert_eq!(
            markers("CALIB_UNIT", &[b"CALIB_UNIT\r", b"\nCALIB_UNIT\r\n"]).len(),
            2
        );
        assert_eq!(
            markers("CALIB_UNIT", &[b"CALIB_UNIT\rnoise\nCALIB_UNIT\n"]).len(),
            2
        );
    }

    #[test]
    fn a_match_across_a_line_break_is_not_a_marker() {
        // `a\sb` matches "a\nb" in the chunk, but no single line holds it.
        assert!(markers(r"a\sb", &[b"xa\nbx\n"]).is_empty());
        assert_eq!(markers(r"a\sb", &[b"xa\nbx\na b\n"]), ["a b"]);
    }

    #[test]
    fn haystack_anchors_fall_back_to_lines() {
        assert_eq!(markers(r"\Astep", &[b"x step\nstep 2\n"]), ["step 2"]);
    }

    #[test]
    fn a_very_long_line_is_bounded() {
        let matcher = UnitMatcher::new("^CALIB_UNIT").unwrap();
        let mut scanner = LineScanner::new();
        let mut count = 0;
        scanner.scan(&matcher, b"CALIB_UNIT", |_| count += 1);
        let filler = vec![b'x'; 1 << 20];
        for _ in 0..8 {
            scanner.scan(&matcher, &filler, |_| count += 1);
            assert!(scanner.partial.len() <= MAX_LINE);
        }
        scanner.scan(&matcher, b"\nCALIB_UNIT\n", |_| count += 1);
        assert_eq!(count, 2);
    }

    #[test]
    fn rejects_bad_and_empty_matching_regexes() {
        let e = UnitMatcher::new("epoch (").unwrap_err().to_string();
        assert!(e.contains("--unit-regex"), "{e}");
        assert!(UnitMatcher::new("x*").is_err());
    }

    /// The rules read line by line, the slow obvious way: the reference the
    /// chunked scanner must agree with.
    fn reference(pattern: &str, text: &str) -> Vec<String> {
        let re = regex::Regex::new(pattern).unwrap();
        let mut out = Vec::new();
        let mut redraw: Option<String> = None;
        let mut line = String::new();
        let mut chars = text.chars().peekable();
        loop {
            let c = chars.next();
            match c {
                Some('\n') | Some('\r') | None => {
                    if c.is_none() && line.is_empty() {
                        break;
                    }
                    let by_cr = c == Some('\r');
                    match re.find(&line).map(|m| m.as_str().to_string()) {
                        Some(t) => {
                            if redraw.as_ref() != Some(&t) {
                                out.push(line.clone());
                            }
                            redraw = by_cr.then_some(t);
                        }
                        None if !by_cr => redraw = None,
                        None => {}
                    }
                    line.clear();
                    if c.is_none() {
                        break;
                    }
                }
                Some(ch) => line.push(ch),
            }
        }
        out
    }

    proptest! {
        /// Chunked scanning finds exactly the units a line-by-line reading finds.
        #[test]
        fn chunking_does_not_change_the_markers(
            lines in proptest::collection::vec("(step [0-9]{1,3}|noise|ep|och 1|a b|)", 0..40),
            seps in proptest::collection::vec(prop_oneof!["\n", "\r", "\r\n"], 40),
            cuts in proptest::collection::vec(0usize..400, 0..8),
        ) {
            let text: String = lines.iter().zip(&seps).map(|(l, s)| format!("{l}{s}")).collect();
            let expected = reference(r"step [0-9]+|och", &text);
            let bytes = text.as_bytes();
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            points.push(0);
            points.push(bytes.len());
            points.sort();
            let chunks: Vec<&[u8]> = points.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
            prop_assert_eq!(markers(r"step [0-9]+|och", &chunks), expected);
        }
    }
}
