//! `skillpipe resolve skill://<name>/<path>`: the file's bytes as the agent
//! reads them, or the error SPEC §10 gives (exit 1).

use std::io::Write;
use std::process::ExitCode;

use skillpipe::{Contents, Skillpipe};

use crate::out::{self, Failure};
use crate::term;

/// `resolve`: the content (or, with `--json`, what it is, unread).
pub(crate) fn run(skillpipe: &Skillpipe, url: &str, json: bool) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    // `--json` prints no bytes, so none are read.
    let opts = skillpipe::ResolveOptions {
        contents: match json {
            true => Contents::Skip,
            false => Contents::Read,
        },
        ..Default::default()
    };
    match skillpipe.discover().resolve_with(url, opts) {
        Ok(resource) if json => writeln!(out, "{}", serde_json::to_string_pretty(&resource)?)?,
        Ok(resource) => out.write_all(&resource.content)?,
        Err(err) => return Err(resolve_failure(&err).into()),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A `skill://` error: its message as SPEC §10 has it, on stderr, exit 1;
/// for an unknown name, a line with the nearest name follows.
fn resolve_failure(err: &skillpipe::ResolveError) -> Failure {
    use skillpipe::ResolveError as E;
    let mut message = err.to_string();
    // The terminal's text: what came from the URL (a `%0a` decoded to a
    // line end, an escape sequence) is escaped, the message's own line
    // ends are kept.
    let mut shown = match err {
        E::UnknownSkill { name, available } => format!(
            "Unknown skill: {}\nAvailable: {}",
            term::escape(name),
            match available.is_empty() {
                true => "none".to_owned(),
                false => term::escape(&available.join(", ")).into_owned(),
            }
        ),
        other => term::escape(&other.to_string()).into_owned(),
    };
    if let E::UnknownSkill { name, available } = err
        && let Some(near) =
            skillpipe::core::suggest::closest(name, available.iter().map(String::as_str))
    {
        message.push_str(&format!("\nDid you mean: {near}"));
        shown.push_str(&format!("\nDid you mean: {}", term::escape(near)));
    }
    Failure {
        code: err.code(),
        exit: 1,
        message,
        bare: Some(shown),
    }
}
