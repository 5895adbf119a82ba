//! The `calib` binary: parse the command line, drive the library, map errors to
//! exit statuses. All the work is in the library, all the writing in
//! `calib::output`.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use clap::Parser;

use calib::output;

fn main() {
    let cli = calib::cli::Cli::parse();
    let status = match calib::cli::run(cli) {
        Ok(status) => status,
        // The reader of the result went away (`| head -1`): it has what it
        // wanted. Success, as ripgrep has it.
        Err(error) if output::is_closed_stdout(&error) => 0,
        Err(error) => {
            output::error(&error);
            error.exit_code()
        }
    };
    std::process::exit(status);
}
