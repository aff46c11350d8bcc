//! `skillpipe prompt`: the system-prompt catalogue, byte for byte as the
//! agent inserts it, and with `--report` what the budget cut.

use std::io::Write;
use std::process::ExitCode;

use skillpipe::{ReadTool, Skillpipe};

use crate::{out, output, term};

/// `prompt`: the catalogue on stdout (or its JSON); with `--report`, what
/// was cut on stderr, else a warning when anything was.
pub(crate) fn run(
    skillpipe: &Skillpipe,
    no_read_tool: bool,
    budget: Option<usize>,
    report: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = out::raw();
    let read_tool = match no_read_tool {
        true => ReadTool::Absent,
        false => ReadTool::Available,
    };
    let fitted = skillpipe.discover().fit_catalog(read_tool, budget);
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&fitted)?)?;
    } else {
        write!(out, "{}", fitted.text)?;
    }
    if report {
        output::catalog_report(&mut std::io::stderr().lock(), &fitted)?;
    } else if (fitted.cut_anything() || fitted.over_budget()) && !json {
        out::say(
            "warning",
            &format!("catalog-truncated: {}", term::escape(&fitted.summary())),
        );
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
