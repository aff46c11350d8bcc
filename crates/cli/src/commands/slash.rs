//! `skillpipe commands [--all] [--json]`: the `skill:<name>` slash commands
//! offered to the host. (Not `commands.rs`: that is the folder's own name.)

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;
use skillpipe::Skillpipe;

use crate::{out, term};

/// `commands`: one `/NAME<TAB>DESCRIPTION` line per command, or
/// `{"commands": [...]}`.
pub(crate) fn run(skillpipe: &Skillpipe, json: bool, all: bool) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let found = skillpipe.discover();
    let commands = match all {
        true => found.all_commands(),
        false => found.commands(),
    };
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "commands": commands }))?
        )?;
    } else {
        for c in commands {
            writeln!(
                out,
                "/{}\t{}",
                term::escape(&c.name),
                term::escape(&c.description)
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
