//! The runs of a probe: `--repeat` repetitions (`{rep}` substituted, for
//! seeds), each either one unit-counting run or, in run-length mode, one run
//! per `--lengths` value (`{units}` substituted).
//!
//! Placeholders are replaced wherever they occur in a word (`--seed={rep}`,
//! `out-{rep}.log`), in the program and its arguments. Repetitions are the outer
//! loop: with lengths 100,1000 and 2 repetitions the order is r1/100, r1/1000,
//! r2/100, r2/1000.

use std::ffi::OsString;

use super::naming::run_id;
use super::runner::RunSpec;
use super::ProbeConfig;
use crate::error::{Error, Origin, Result};

pub(crate) const REP: &str = "{rep}";
pub(crate) const UNITS: &str = "{units}";

fn substitute(word: &OsString, rep: u64, length: Option<u64>) -> OsString {
    let Some(text) = word.to_str() else {
        return word.clone();
    };
    if !text.contains('{') {
        return word.clone();
    }
    let mut text = text.replace(REP, &rep.to_string());
    if let Some(n) = length {
        text = text.replace(UNITS, &n.to_string());
    }
    OsString::from(text)
}

fn mentions(command: &[OsString], placeholder: &str) -> bool {
    command
        .iter()
        .any(|w| w.to_str().is_some_and(|t| t.contains(placeholder)))
}

/// Every run, in order.
pub(crate) fn runs(config: &ProbeConfig, tag: &str) -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for rep in config.first_rep..config.first_rep + config.repeat {
        let lengths: Vec<Option<u64>> = if config.lengths.is_empty() {
            vec![None]
        } else {
            config.lengths.iter().copied().map(Some).collect()
        };
        for length in lengths {
            specs.push(RunSpec {
                length,
                argv: config
                    .command
                    .iter()
                    .map(|w| substitute(w, rep, length))
                    .collect(),
                run_id: run_id(tag, rep, length),
            });
        }
    }
    specs
}

/// Refuses a command line that cannot do what the flags ask.
pub(crate) fn check(config: &ProbeConfig) -> Result<()> {
    if !config.lengths.is_empty() && !mentions(&config.command, UNITS) {
        return Err(Error::input(
            Origin::Argument("--lengths".into()),
            None,
            "run-length mode needs `{units}` in the command, where the run's length goes \
             (e.g. -- ./sim --generations {units}); without it every run would be the same",
        ));
    }
    if config.lengths.is_empty() && mentions(&config.command, UNITS) {
        return Err(Error::input(
            Origin::Argument("the command after --".into()),
            None,
            "the command holds `{units}`, which only --lengths fills in; add --lengths 100,1000 \
             for run-length mode, or write the number of units yourself",
        ));
    }
    Ok(())
}

/// Things worth saying before the probe starts.
pub(crate) fn warnings(config: &ProbeConfig) -> Vec<String> {
    let mut out = Vec::new();
    if config.repeat > 1 && !mentions(&config.command, REP) {
        out.push(format!(
            "--repeat {} but the command has no `{{rep}}`: every repetition runs the same command line \
             (fine to measure run-to-run noise; put {{rep}} where the seed goes to measure seeds)",
            config.repeat
        ));
    }
    if config.stratum.is_empty() {
        out.push(
            "no --stratum given: these rows belong to the stratum (all); label what this run is \
             (e.g. --stratum dataset=Y,model=7B) so that calib budgets each kind of cell on its own"
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_inside_words() {
        let w = OsString::from("--seed={rep},n={units}");
        assert_eq!(
            substitute(&w, 3, Some(100)),
            OsString::from("--seed=3,n=100")
        );
        assert_eq!(
            substitute(&w, 3, None),
            OsString::from("--seed=3,n={units}")
        );
    }
}
