//! `skillpipe providers [--json]`: the active providers in pipeline order,
//! with their roots.

use std::io::Write;
use std::process::ExitCode;

use serde_json::{Value, json};
use skillpipe::Skillpipe;

use crate::{out, output};

/// `providers`: a table, or `{"providers": [...]}`.
pub(crate) fn run(skillpipe: &Skillpipe, json: bool) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let list: Vec<Value> = skillpipe
        .providers()
        .map(|p| skillpipe::provider_json(skillpipe, p))
        .collect();
    if json {
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&json!({ "providers": list }))?
        )?;
    } else {
        output::providers_table(&mut out::styled(), &list)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
