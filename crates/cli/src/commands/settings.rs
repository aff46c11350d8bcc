//! `skillpipe settings [--json]`: the effective settings, each value with
//! the layer it came from, and where the user and project settings files
//! are (and whether they exist).

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;
use skillpipe::Settings;
use skillpipe::settings::{LayerKind, LayerOrigin};

use crate::output::{Fit, table};
use crate::{out, term};

/// Prints the settings: a table (KEY, VALUE, FROM) after the files, or
/// `{"profile", "files": [{"layer", "path", "exists"}], "settings":
/// [{"key", "value", "origin": {"layer", "name", "file"}}]}`.
pub(crate) fn run(settings: &Settings, json: bool) -> anyhow::Result<ExitCode> {
    if json {
        let doc = json!({
            "profile": settings.profile_name,
            "files": settings.files,
            "settings": settings.effective,
        });
        let mut out = out::raw();
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let home = settings
        .agent_dir
        .ancestors()
        .nth(2)
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let fit = Fit::stdout(&home);
    let mut out = out::styled();
    writeln!(
        out,
        "{} {}",
        out::heading("profile:"),
        term::escape(&settings.profile_name)
    )?;
    for f in &settings.files {
        writeln!(
            out,
            "{} {} ({})",
            out::heading(&format!("{} settings:", f.layer.label())),
            fit.path(&f.path),
            if f.exists { "found" } else { "not found" }
        )?;
    }
    writeln!(out)?;
    let rows: Vec<[String; 3]> = settings
        .effective
        .iter()
        .map(|e| {
            [
                term::escape(&e.key).into_owned(),
                term::escape(&e.value.to_string()).into_owned(),
                from(&e.origin, &fit),
            ]
        })
        .collect();
    table(&mut out, ["KEY", "VALUE", "FROM"], rows, Some(1), fit.width)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Where a value came from, for the FROM column: a file with its kind
/// (`user file ~/.musepi/agent/settings.json`), else the layer's name.
fn from(origin: &LayerOrigin, fit: &Fit) -> String {
    match (&origin.file, origin.layer) {
        (Some(file), LayerKind::Config) => format!("--config {}", fit.path(file)),
        (Some(file), layer) => format!("{} file {}", layer.label(), fit.path(file)),
        (None, _) => term::escape(&origin.name).into_owned(),
    }
}
