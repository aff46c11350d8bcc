//! `skillpipe mcp`: the skills served to an MCP host over stdio, by the
//! `skillpipe-mcp` crate, from the library the global flags configured.

use std::process::ExitCode;

use skillpipe::Skillpipe;

use crate::out::Failure;

/// `mcp`: serves until the host closes stdin; exit 0 then, 1 when the
/// handshake or the transport failed.
pub(crate) fn run(skillpipe: &Skillpipe) -> anyhow::Result<ExitCode> {
    skillpipe_mcp::serve_stdio(skillpipe).map_err(|e| Failure {
        code: "mcp",
        exit: 1,
        message: e.to_string(),
        bare: None,
    })?;
    Ok(ExitCode::SUCCESS)
}
