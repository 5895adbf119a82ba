//! Strata: sets of `key=value` labels whose cells are expected to cost alike.
//!
//! The canonical text of a stratum (the timings contract) is its pairs sorted by
//! key and joined by `,`: `dataset=Y,model=7B`. The empty stratum (no labels) is
//! written as an empty string and shown as `(all)`.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Stratum {
    labels: BTreeMap<String, String>,
}

impl Stratum {
    /// Parses `k=v[,k=v]...` in any order. Keys must be non-empty and unique;
    /// neither keys nor values may contain `,` or `=`.
    pub fn parse(text: &str) -> Result<Stratum, String> {
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
    pub fn add_pair(&mut self, pair: &str) -> Result<(), String> {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}` is not a key=value label"))?;
        let (key, value) = (key.trim(), value.trim());
        if key.is_empty() {
            return Err(format!("`{pair}` has an empty key"));
        }
        if value.contains('=') {
            return Err(format!("`{pair}`: a value may not contain `=`"));
        }
        self.insert(key, value)
    }

    /// Adds one label from separate key and value (used for `--by` columns).
    pub fn insert(&mut self, key: &str, value: &str) -> Result<(), String> {
        if key.contains(',') || value.contains(',') || key.contains('=') || value.contains('=') {
            return Err(format!(
                "label `{key}={value}`: keys and values may not contain `,` or `=`"
            ));
        }
        if self.labels.contains_key(key) {
            return Err(format!("the key `{key}` is given twice"));
        }
        self.labels.insert(key.to_string(), value.to_string());
        Ok(())
    }

    /// Merges another stratum's labels into this one.
    pub fn merge(&mut self, other: &Stratum) -> Result<(), String> {
        for (k, v) in &other.labels {
            self.insert(k, v)?;
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    pub fn labels(&self) -> &BTreeMap<String, String> {
        &self.labels
    }

    /// The canonical text, as stored in the timings contract.
    pub fn canonical(&self) -> String {
        self.labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// A short form usable in file and job names: `dataset-Y_model-7B`.
    pub fn slug(&self) -> String {
        if self.labels.is_empty() {
            return "all".to_string();
        }
        let raw = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}-{v}"))
            .collect::<Vec<_>>()
            .join("_");
        raw.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    }
}

impl fmt::Display for Stratum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.labels.is_empty() {
            write!(f, "(all)")
        } else {
            write!(f, "{}", self.canonical())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
