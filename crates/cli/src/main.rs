//! `skillpipe`: see what an agent sees, and why. The command is the
//! `skillpipe_cli` library's; this binary runs it with the built-in
//! providers alone.

use std::process::ExitCode;

fn main() -> ExitCode {
    skillpipe_cli::run_with(std::env::args_os(), |builder| builder)
}
