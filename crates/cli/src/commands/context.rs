//! `skillpipe context [--json]`: the AGENTS.md context files, nearest
//! first.

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;
use skillpipe::Skillpipe;

use crate::{out, term};

/// `context`: one `DEPTH<TAB>PATH` line per file, or `{"files": [...]}`.
pub(crate) fn run(skillpipe: &Skillpipe, json: bool) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let files = skillpipe.context_files();
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "files": files }))?
        )?;
    } else {
        for f in files {
            writeln!(out, "{}\t{}", f.depth, term::path(&f.path))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
