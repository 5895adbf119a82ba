//! The `calib` binary: parse the command line, drive the library, map errors to
//! exit statuses. All the work is in the library, all the writing in
//! `calib::output`.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use clap::Parser;

use calib::output;

fn main() {
    let args: Vec<_> = std::env::args_os().collect();
    let status = match calib::cli::Cli::try_parse_from(&args) {
        Ok(cli) => finish(calib::cli::run(cli)),
        // `--help` and `--version`: their text is the result.
        Err(asked) if !asked.use_stderr() => {
            finish(output::write_help(asked.render().ansi()).map(|()| 0))
        }
        // A usage error: clap's message, prefixed as calib's own, status 2.
        Err(usage) => {
            let usage = calib::cli::usage_error(usage, &args);
            output::usage_error(&usage);
            usage.exit_code()
        }
    };
    std::process::exit(status);
}

/// The exit status of a command's outcome, its error reported.
fn finish(outcome: calib::error::Result<i32>) -> i32 {
    match outcome {
        Ok(status) => status,
        // The reader of the result went away (`| head -1`): it has what it
        // wanted. Success, as ripgrep has it.
        Err(error) if output::is_closed_stdout(&error) => 0,
        Err(error) => {
            output::error(&error);
            error.exit_code()
        }
    }
}
