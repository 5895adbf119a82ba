//! The `calib` binary: parse the command line, drive the library, map errors to
//! exit statuses. All the work is in the library.

use clap::Parser;

fn main() {
    let cli = calib::cli::Cli::parse();
    let status = match calib::cli::run(cli) {
        Ok(status) => status,
        Err(error) => {
            eprintln!("calib: error: {error}");
            error.exit_code()
        }
    };
    std::process::exit(status);
}
