//! `skillpipe man DIR` (hidden; `cargo xtask man` runs it): the man page
//! (clap_mangen), from the one command definition in `args.rs`, so the
//! page never drifts from `--help`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::CommandFactory;

use crate::args::Cli;

/// `man DIR`: writes the page.
pub(crate) fn run(dir: &Path) -> anyhow::Result<ExitCode> {
    man_pages(dir)?;
    Ok(ExitCode::SUCCESS)
}

/// Writes the man page `skillpipe.1` into `dir` (created if missing): the
/// synopsis, every global flag, and each command with its summary.
pub(crate) fn man_pages(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut roff = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut roff)?;
    let path = dir.join("skillpipe.1");
    std::fs::write(&path, roff).with_context(|| format!("cannot write {}", path.display()))
}
