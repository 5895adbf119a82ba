//! `calib completions SHELL`: the shell's completion script, generated from the
//! same clap definitions as the parser, so it cannot fall behind the flags.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::Cli;
use crate::error::Result;
use crate::output;

const AFTER_HELP: &str = "\
Install (each shell reads its completions from its own place):
  bash:  calib completions bash > ~/.local/share/bash-completion/completions/calib
  zsh:   calib completions zsh > ~/.zfunc/_calib
         (and in ~/.zshrc, before compinit: fpath+=(~/.zfunc))
  fish:  calib completions fish > ~/.config/fish/completions/calib.fish
Or for the current bash session only: source <(calib completions bash)";

/// Arguments of `calib completions`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

pub fn run(args: &CompletionsArgs) -> Result<i32> {
    let mut command = Cli::command();
    let name = command.get_name().to_string();
    // Generated into memory first: clap_complete panics on a failed write
    // (`calib completions bash | true`), where calib ends like every command.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, name, &mut script);
    output::write_result(|out| out.write_all(&script))?;
    Ok(0)
}
