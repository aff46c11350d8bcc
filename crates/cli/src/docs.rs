//! Shell completions (clap_complete) and the man page (clap_mangen), both
//! from the one command definition.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use clap::CommandFactory;

use crate::args::Cli;

/// `skillpipe completions <shell>`: the script on `out`.
pub fn completions(shell: clap_complete::Shell, out: &mut impl Write) -> anyhow::Result<()> {
    let mut cmd = Cli::command();
    // Generated into memory first: clap_complete panics on a failed write
    // (a closed pipe must end quietly).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "skillpipe", &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// Writes the man page `skillpipe.1` into `dir` (created if missing): the
/// synopsis, every global flag, and each command with its summary.
pub fn man_pages(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut roff = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut roff)?;
    let path = dir.join("skillpipe.1");
    std::fs::write(&path, roff).with_context(|| format!("cannot write {}", path.display()))
}
