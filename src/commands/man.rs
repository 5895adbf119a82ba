//! `calib man [SUBCOMMAND]`: the manual page in roff, generated from the clap
//! definitions (the same text as `--help`), one page per command as git and
//! cargo have them: calib(1), calib-fit(1), ...
//!
//! The pages in `docs/man/` are this command's output, checked in; a test
//! (tests/cli_docs.rs) fails when they differ from what it prints now.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::{Error, Origin, Result};
use crate::output;
use crate::VERSION;

const AFTER_HELP: &str = "\
Examples:
  calib man > calib.1                  the page of calib itself; man ./calib.1 reads it
  calib man fit > calib-fit.1          the page of one subcommand
  mkdir -p ~/.local/share/man/man1 && calib man > ~/.local/share/man/man1/calib.1";

/// Arguments of `calib man`.
#[derive(Debug, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct ManArgs {
    /// The subcommand whose page to write (probe, fit, budget, ...); without it,
    /// the page of calib itself, which lists them.
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

pub fn run(args: &ManArgs) -> Result<i32> {
    let page = page(args.subcommand.as_deref())?;
    output::write_result(|out| page.render(out))?;
    Ok(0)
}

/// The page of calib or of one of its subcommands. The command is built first
/// so that a subcommand's page is titled `calib-fit` and its usage line reads
/// `calib fit ...`, as the reader will type it.
fn page(subcommand: Option<&str>) -> Result<clap_mangen::Man> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    // Every page names the release it documents; clap gives subcommands none.
    let new_page = |c: clap::Command| clap_mangen::Man::new(c).source(format!("calib {VERSION}"));
    let Some(name) = subcommand else {
        return Ok(new_page(command));
    };
    let found = command.find_subcommand(name).cloned();
    found.map(new_page).ok_or_else(|| {
        let known: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
        Error::input(
            Origin::Argument("SUBCOMMAND".into()),
            None,
            format!("no subcommand `{name}`; expected one of: {}", known.join(", ")),
        )
    })
}
