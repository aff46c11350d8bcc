//! `skillpipe mcp`: the skills served to an MCP host over stdio, by the
//! `skillpipe-mcp` crate, from the library the global flags configured.

use std::process::ExitCode;

use skillpipe::Skillpipe;

use crate::out::Failure;

/// `mcp`: serves until the host closes stdin; exit 0 then, 1 when the
/// handshake or the transport failed. `watch`: follow the skills on disk.
pub(crate) fn run(skillpipe: &Skillpipe, watch: bool) -> anyhow::Result<ExitCode> {
    let options = skillpipe_mcp::Options::default().watch(watch);
    skillpipe_mcp::serve(skillpipe, &options).map_err(|e| Failure {
        code: "mcp",
        exit: 1,
        message: e.to_string(),
        bare: None,
    })?;
    Ok(ExitCode::SUCCESS)
}
