//! `skillpipe completions <shell>`: the shell completion script
//! (clap_complete), from the one command definition in `args.rs`.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;

use crate::args::Cli;
use crate::out;

/// `completions`: the script on stdout.
pub(crate) fn run(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    completions(shell, &mut out::raw())?;
    Ok(ExitCode::SUCCESS)
}

/// `skillpipe completions <shell>`: the script on `out`.
pub(crate) fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> anyhow::Result<()> {
    let mut cmd = Cli::command();
    // Generated into memory first: clap_complete panics on a failed write
    // (a closed pipe must end quietly).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "skillpipe", &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}
