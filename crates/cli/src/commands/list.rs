//! `skillpipe list [--all] [--json] [--deny-warnings]`: the skills an agent
//! would load and every diagnostic; with `--all`, the copies that did not
//! load too, each with its fate.

use std::io::Write;
use std::process::ExitCode;

use skillpipe::{ListDocument, Skillpipe};

use crate::{out, output};

/// `list`: exit 1 with `--deny-warnings` when any diagnostic was reported.
pub(crate) fn run(
    skillpipe: &Skillpipe,
    json: bool,
    deny_warnings: bool,
    all: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let found = match all {
        true => skillpipe.discover_all(),
        false => skillpipe.discover(),
    };
    let discovery = found.discovery();
    if json {
        // Streamed: the list is never copied into a JSON value or a
        // string (half the time and memory of `list` on 10k skills).
        let mut w = std::io::BufWriter::new(&mut out);
        serde_json::to_writer_pretty(&mut w, &ListDocument::new(&found, all))?;
        writeln!(w)?;
        w.flush()?;
    } else {
        let fit = output::Fit::stdout(skillpipe.home());
        output::list_table(&mut out::styled(), discovery, &fit, all)?;
    }
    if deny_warnings && !discovery.diagnostics.is_empty() {
        return Ok(ExitCode::from(1));
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
