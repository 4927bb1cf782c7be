//! The `ferrum` binary: with no arguments a UCI engine on stdin/stdout;
//! subcommands for the command line (see [`ferrum::cli`]).

use std::process::ExitCode;

fn main() -> ExitCode {
    ferrum::cli::main()
}
