//! `skillpipe search QUERY...`: the skills ranked by relevance to a task,
//! best first.

use std::io::Write;
use std::process::ExitCode;

use serde_json::json;
use skillpipe::Skillpipe;

use crate::{out, output, term};

/// `search`: the query's words joined by spaces; a note when nothing
/// matches.
pub(crate) fn run(
    skillpipe: &Skillpipe,
    query: &[String],
    limit: u32,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let query = query.join(" ");
    let found = skillpipe.discover();
    let hits = found.search(&query, usize::try_from(limit).unwrap_or(usize::MAX));
    if json {
        let doc = json!({ "query": query, "results": hits });
        writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
    } else if hits.is_empty() {
        out::say(
            "note",
            &format!("no skill matches {}", term::escape(&query)),
        );
    } else {
        let fit = output::Fit::stdout(skillpipe.home());
        output::search_table(&mut out::styled(), &hits, &fit)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
