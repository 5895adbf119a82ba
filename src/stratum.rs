//! Strata: sets of `key=value` labels whose cells are expected to cost alike.
//!
//! The canonical text of a stratum (the timings contract) is its pairs sorted by
//! key and joined by `,`: `dataset=Y,model=7B`. The empty stratum (no labels) is
//! written as an empty string and shown as `(all)`.
//!
//! Labels never hold control characters ([`crate::shell::refuse_control`]):
//! they are written into job names, comments and scripts. Every way of
//! building a stratum ([`Stratum::parse`], [`Stratum::add_pair`],
//! [`Stratum::insert`]) refuses them.

use std::fmt;
use std::hash::Hasher;

use crate::shell::refuse_control;

/// The longest [`Stratum::slug`]: with a task tag it must fit one file name
/// (255 bytes on common file systems) and stay readable in a job name.
pub(crate) const SLUG_MAX: usize = 64;

/// Hex digits of the hash that ends a shortened slug (64 bits).
const SLUG_HASH_DIGITS: usize = 16;

/// Why a label may not hold a `;`.
const SEMICOLON: &str =
    "holds a `;`, which separates the labels in the CALIB_STRATUM that jobs receive";

/// The quotes a label may not hold: a label reaches sbatch's `--export` list
/// (as `CALIB_STRATUM`), whose splitter groups everything from a `'` or `"`
/// to the next one, commas included, so one quote would swallow the rest of
/// the list (`CALIB_UNITS`, `CALIB_GRID`) into the stratum. Seen on Slurm
/// 22.05: `--export=ALL,A=O'Brien,B=30` gives one variable `A`.
pub(crate) const EXPORT_QUOTES: [char; 2] = ['\'', '"'];

/// `text` (a job name, from anyone) made a label value that every way of
/// building a stratum accepts, and that tells different texts apart: each
/// character a label may not hold (`,` `=` `;`, the quotes, control
/// characters) and `%` itself written as `%` and its UTF-8 bytes in hex, as
/// in a URL (`a,b` is `a%2Cb`, `a;b` is `a%3Bb`).
pub(crate) fn label_value(text: &str) -> String {
    let mut value = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, ',' | '=' | ';' | '%')
            || EXPORT_QUOTES.contains(&c)
            || crate::shell::disturbs_a_line(c)
        {
            let mut bytes = [0; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                value.push_str(&format!("%{b:02X}"));
            }
        } else {
            value.push(c);
        }
    }
    value
}

/// Refuses `value` (named by `what`) if it holds a quote that sbatch's
/// `--export` list would read as grouping ([`EXPORT_QUOTES`]).
pub(crate) fn refuse_export_quote(what: &str, value: &str) -> Result<(), String> {
    match value.chars().find(|c| EXPORT_QUOTES.contains(c)) {
        Some(quote) => Err(format!(
            "{what} holds a `{quote}`, which sbatch's --export reads as opening a quoted group \
             (the tasks would get the next variables inside it); leave it out"
        )),
        None => Ok(()),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Stratum {
    /// The labels sorted by key, keys unique. A sorted vector, not a map:
    /// a stratum has a few labels, and every run keeps a copy of its own, so
    /// a B-tree's node of room for eleven (half a kilobyte for one label)
    /// made the strata most of the memory a fit of a million of them took.
    /// Sorted pairs order, compare and hash as the map's entries did.
    labels: Vec<(String, String)>,
}

impl Stratum {
    /// Parses `k=v[,k=v]...` in any order. Keys must be non-empty and unique;
    /// neither keys nor values may contain `,`, `=`, `;` (which separates
    /// the labels in the `CALIB_STRATUM` jobs receive) or a quote
    /// ([`EXPORT_QUOTES`]).
    pub fn parse(text: &str) -> Result<Stratum, String> {
        // Before trimming: a newline at either end is refused, not hidden.
        refuse_control("stratum", text)?;
        let mut stratum = Stratum::default();
        let text = text.trim();
        if text.is_empty() {
            return Ok(stratum);
        }
        for pair in text.split(',') {
            stratum.add_pair(pair)?;
        }
        Ok(stratum)
    }

    /// Adds one `k=v` pair.
    pub(crate) fn add_pair(&mut self, pair: &str) -> Result<(), String> {
        refuse_control("label", pair)?;
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}` is not a key=value label"))?;
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() {
            return Err(format!("`{pair}` has an empty key"));
        }
        if pair.contains(';') {
            return Err(format!("`{pair}` {SEMICOLON}; separate labels with `,`"));
        }
        if value.contains('=') {
            return Err(format!("`{pair}`: a value may not contain `=`"));
        }
        refuse_export_quote(&format!("`{pair}`"), pair)?;
        self.insert(key, value)
    }

    /// Adds one label from separate key and value (used for `--by` columns).
    pub fn insert(&mut self, key: &str, value: &str) -> Result<(), String> {
        refuse_control("label key", key)?;
        refuse_control(&format!("the value of label `{key}`"), value)?;
        if [key, value].iter().any(|t| t.contains([',', '='])) {
            return Err(format!(
                "label `{key}={value}`: keys and values may not contain `,` or `=`"
            ));
        }
        // `;` separates the labels in CALIB_STRATUM (`,` cannot: sbatch's
        // --export splits on it), so a `;` inside a label would split it there.
        if key.contains(';') || value.contains(';') {
            return Err(format!("label `{key}={value}` {SEMICOLON}"));
        }
        refuse_export_quote(&format!("label `{key}={value}`"), &format!("{key}{value}"))?;
        match self.labels.binary_search_by(|(k, _)| k.as_str().cmp(key)) {
            Ok(_) => Err(format!("the key `{key}` is given twice")),
            Err(at) => {
                self.labels.insert(at, (key.to_string(), value.to_string()));
                Ok(())
            }
        }
    }

    /// Merges another stratum's labels into this one.
    pub(crate) fn merge(&mut self, other: &Stratum) -> Result<(), String> {
        for (k, v) in &other.labels {
            self.insert(k, v)?;
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The labels as (key, value), sorted by key.
    pub fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        self.labels.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The value of the label `key`, if the stratum has one.
    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|at| self.labels[at].1.as_str())
    }

    /// The canonical text, as stored in the timings contract.
    pub fn canonical(&self) -> String {
        self.labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A short form usable in file and job names: `dataset-Y_model-7B`, only
    /// `[A-Za-z0-9._-]`, at most [`SLUG_MAX`] characters.
    ///
    /// A form longer than that is cut, and the cut form ends with `-h` and
    /// the 64-bit FNV-1a hash of the canonical text in hex: two strata whose
    /// labels share a long beginning still get different slugs, and a stratum
    /// gets the same slug on every machine and with every Rust release. Short
    /// forms are kept as they are; where two strata share one (`a=x y` and
    /// `a=x_y`), the file names still differ by their task tag.
    pub fn slug(&self) -> String {
        if self.labels.is_empty() {
            return "all".to_string();
        }
        let raw: String = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}-{v}"))
            .collect::<Vec<_>>()
            .join("_")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if raw.len() <= SLUG_MAX {
            return raw;
        }
        let mut hasher = fnv::FnvHasher::default();
        hasher.write(self.canonical().as_bytes());
        // `raw` is ASCII, so any byte index is a character boundary.
        let keep = SLUG_MAX - SLUG_HASH_DIGITS - 2;
        format!(
            "{}-h{:0width$x}",
            &raw[..keep],
            hasher.finish(),
            width = SLUG_HASH_DIGITS
        )
    }
}

/// How people read the stratum of a table that has none (its rows all in
/// one): in tables, notes and messages. Files and the emitted shell keep the
/// empty text itself.
pub const NO_STRATUM: &str = "(all)";

/// A stratum's canonical text as people read it: [`NO_STRATUM`] for the
/// empty one.
pub fn display_name(canonical: &str) -> &str {
    if canonical.is_empty() {
        NO_STRATUM
    } else {
        canonical
    }
}

impl fmt::Display for Stratum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", display_name(&self.canonical()))
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_semicolon_is_refused_wherever_a_label_is_made() {
        // CALIB_STRATUM carries `dataset=Y;model=7B`: a `;` in a value would
        // turn one label into two in every job of the array.
        for text in ["name=x;y", "name=x;model=7B", "a;b=1"] {
            let why = Stratum::parse(text).unwrap_err();
            assert!(why.contains("holds a `;`"), "{text}: {why}");
            // Said once, not once per layer that quotes it.
            assert_eq!(why.matches(text).count(), 1, "{why}");
        }
        let why = Stratum::default().insert("name", "x;y").unwrap_err();
        assert!(why.contains("holds a `;`"), "{why}");
        assert!(Stratum::default().insert("na;me", "x").is_err());
        assert!(Stratum::parse("name=x,model=7B").is_ok());
    }
    use super::*;

    #[test]
    fn a_quote_is_refused_wherever_a_label_is_made() {
        for text in ["dataset=O'Brien", "title=say \"hi\"", "it's=1"] {
            let why = Stratum::parse(text).unwrap_err();
            assert!(why.contains("--export"), "{text}: {why}");
            assert_eq!(why.matches(text).count(), 1, "{why}");
        }
        assert!(Stratum::default().insert("name", "O'Brien").is_err());
        assert!(Stratum::default().insert("na\"me", "x").is_err());
        // What the quotes are refused for still reaches a job: `$`, spaces,
        // backslashes and `|` are kept (the shell quoting carries them).
        assert!(Stratum::parse("name=a $b \\c|d").is_ok());
    }

    #[test]
    fn any_text_becomes_a_label_value_and_different_texts_stay_apart() {
        let texts = [
            "a,b",
            "a;b",
            "a_b",
            "a%2Cb",
            "O'Brien",
            "bell\u{7}",
            "a=b",
            "\u{202e}x",
        ];
        let values: Vec<String> = texts.iter().map(|t| label_value(t)).collect();
        for (text, value) in texts.iter().zip(&values) {
            assert!(
                Stratum::default().insert("name", value).is_ok(),
                "{text}: {value}"
            );
        }
        let distinct: std::collections::HashSet<&String> = values.iter().collect();
        assert_eq!(distinct.len(), texts.len(), "{values:?}");
        assert_eq!(label_value("a,b"), "a%2Cb");
        assert_eq!(label_value("plain-name_1"), "plain-name_1");
    }

    #[test]
    fn canonical_sorts_keys() {
        let s = Stratum::parse("model=7B,dataset=Y").unwrap();
        assert_eq!(s.canonical(), "dataset=Y,model=7B");
        assert_eq!(s.slug(), "dataset-Y_model-7B");
    }

    #[test]
    fn rejects_duplicates_and_bare_words() {
        assert!(Stratum::parse("a=1,a=2").is_err());
        assert!(Stratum::parse("dataset").is_err());
        assert!(Stratum::parse("=x").is_err());
    }

    #[test]
    fn control_characters_are_refused_on_every_path() {
        for text in [
            "d=x\ntouch /tmp/p",
            "d=x\n",
            "\rd=x",
            "d\t=x",
            "d=\u{0}",
            "d=\u{7f}",
        ] {
            let e = Stratum::parse(text).unwrap_err();
            assert!(e.contains("U+00"), "{text:?}: {e}");
        }
        let mut s = Stratum::default();
        assert!(s.add_pair("d=a\nb").unwrap_err().contains("U+000A"));
        assert!(s.insert("d", "a\rb").unwrap_err().contains("U+000D"));
        assert!(s.insert("d\n", "a").unwrap_err().contains("U+000A"));
        assert!(s.is_empty(), "nothing refused was kept");
        // Other characters, spaces and non-ASCII letters included, are labels.
        assert!(Stratum::parse("dataset=données, model = 7 B").is_ok());
    }

    #[test]
    fn fnv_is_the_published_fnv1a_64() {
        // The FNV-1a 64-bit test vector for "a" (Fowler, Noll, Vo): the slug
        // hash must never depend on the Rust release or the machine.
        let mut hasher = fnv::FnvHasher::default();
        hasher.write(b"a");
        assert_eq!(hasher.finish(), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn long_slugs_are_bounded_and_tell_strata_apart() {
        let short = Stratum::parse("dataset=Y,model=7B").unwrap();
        assert_eq!(short.slug(), "dataset-Y_model-7B", "short forms unchanged");
        let prefix = "x".repeat(200);
        let a = Stratum::parse(&format!("k={prefix}a")).unwrap();
        let b = Stratum::parse(&format!("k={prefix}b")).unwrap();
        let huge = Stratum::parse(&format!("k={}", "y".repeat(5000))).unwrap();
        for s in [&a, &b, &huge] {
            let slug = s.slug();
            assert!(slug.len() <= SLUG_MAX, "{slug}");
            assert!(
                slug.starts_with("k-xxx") || slug.starts_with("k-yyy"),
                "{slug}"
            );
            assert_eq!(slug, s.clone().slug(), "stable");
        }
        assert_ne!(a.slug(), b.slug());
        // A form of exactly SLUG_MAX characters is still short.
        let edge = Stratum::parse(&format!("k={}", "z".repeat(SLUG_MAX - 2))).unwrap();
        assert_eq!(edge.slug().len(), SLUG_MAX);
        assert!(!edge.slug().contains("-h"));
    }
}
