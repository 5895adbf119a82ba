//! `calib man`: the manual pages in roff, generated from the clap definitions
//! (the same text as `--help`), one page per command as git and cargo have
//! them: calib(1), calib-probe(1), calib-fit(1), ..., and one per nested
//! subcommand (calib-grid-show(1)).
//!
//! The pages in `docs/man/` are `calib man --out-dir docs/man`, checked in; a
//! test (tests/cli_docs.rs) fails when they differ from what it writes now.

use std::path::PathBuf;

use clap::CommandFactory;

use crate::atomic::{check_replaceable, write_file, IfExists};
use crate::cli::Cli;
use crate::error::{Error, Origin, Result};
use crate::output;
use crate::VERSION;

const AFTER_HELP: &str = "\
Examples:
  calib man | man -l -                      read calib(1) now
  calib man fit > calib-fit.1               the page of one subcommand
  calib man --out-dir ~/.local/share/man/man1   install every page for `man calib-fit`";

/// Arguments of `calib man`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ManArgs {
    /// The subcommand whose page to print (probe, fit, budget, ...); without it,
    /// the page of calib itself, which lists them.
    #[arg(value_name = "SUBCOMMAND", conflicts_with = "out_dir")]
    pub subcommand: Option<String>,

    /// Write every page (calib.1, calib-probe.1, ...) into this existing
    /// folder instead, each one atomically, and list them on stderr.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

pub fn run(args: &ManArgs) -> Result<i32> {
    let command = built_command();
    if let Some(dir) = &args.out_dir {
        if !dir.is_dir() {
            return Err(Error::input(
                Origin::Argument("--out-dir".into()),
                None,
                format!("{} is not an existing folder", dir.display()),
            ));
        }
        let mut pages = vec![page(command.clone())];
        pages.extend(nested(&command).into_iter().map(page));
        // Every page rendered and every target looked at before the first is
        // written: a page that cannot be written (a folder in its place)
        // leaves the set as it was, not half old and half new.
        let mut rendered = Vec::with_capacity(pages.len());
        for man in pages {
            let mut roff = Vec::new();
            man.render(&mut roff)
                .map_err(|e| Error::io("cannot render a manual page", e))?;
            let path = dir.join(man.get_filename());
            check_replaceable(&path)?;
            rendered.push((path, roff));
        }
        for (path, roff) in rendered {
            write_file(&path, &roff, IfExists::Replace)?;
            output::note(format!("wrote {}", path.display()));
        }
        return Ok(0);
    }
    let man = match args.subcommand.as_deref() {
        None => page(command),
        Some(name) => {
            let found = command.find_subcommand(name).cloned();
            page(found.ok_or_else(|| unknown_subcommand(&command, name))?)
        }
    };
    output::write_result(|out| man.render(out))?;
    Ok(0)
}

/// calib's command, built so that a subcommand's page is titled `calib-fit`
/// and its usage line reads `calib fit ...`, as the reader will type it.
fn built_command() -> clap::Command {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    command
}

/// Every subcommand, and theirs (`calib grid show`): each has a page of its
/// own, which its parent's page lists (`calib-grid-show(1)`).
fn nested(command: &clap::Command) -> Vec<clap::Command> {
    command
        .get_subcommands()
        .flat_map(|sub| std::iter::once(sub.clone()).chain(nested(sub)))
        .collect()
}

/// A page that names the release it documents (clap gives subcommands none).
fn page(command: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(command).source(format!("calib {VERSION}"))
}

fn unknown_subcommand(command: &clap::Command, name: &str) -> Error {
    let known: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
    Error::input(
        Origin::Argument("SUBCOMMAND".into()),
        None,
        format!(
            "no subcommand `{name}`; expected one of: {}",
            known.join(", ")
        ),
    )
}
