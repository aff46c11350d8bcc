//! `skillpipe mcp`: the skills served to an MCP host over stdio, or over
//! Streamable HTTP with `--http`, by the `skillpipe-mcp` crate, from the
//! library the global flags configured.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use skillpipe::Skillpipe;

use crate::out::{self, Failure};

/// `mcp`: serves until the host closes stdin; exit 0 then, 1 when the
/// handshake or the transport failed. `digests`: the cache that
/// `skillpipe`'s discoveries hand what they read. `watch`: follow the
/// skills on disk.
/// `http`: serve Streamable HTTP there instead, until interrupted (a
/// non-loopback address only with `allow_remote`, and a warning).
pub(crate) fn run(
    skillpipe: &Skillpipe,
    digests: Arc<skillpipe_mcp::Digests>,
    watch: bool,
    http: Option<SocketAddr>,
    allow_remote: bool,
) -> anyhow::Result<ExitCode> {
    let options = skillpipe_mcp::Options::default()
        .watch(watch)
        .digests(digests);
    let served = match http {
        None => skillpipe_mcp::serve(skillpipe, &options),
        Some(addr) => {
            if allow_remote && !addr.ip().is_loopback() {
                out::say(
                    "warning",
                    &format!(
                        "--allow-remote: serving {addr}, which other machines may reach; \
                         there is no authentication, and every skill's files go to whoever connects"
                    ),
                );
            }
            skillpipe_mcp::serve_http(skillpipe, &options, addr, allow_remote, |bound| {
                out::say_plain(&format!("skillpipe mcp: serving http://{bound}/mcp"));
            })
        }
    };
    served.map_err(|e| Failure {
        code: "mcp",
        exit: 1,
        message: e.to_string(),
        bare: None,
    })?;
    Ok(ExitCode::SUCCESS)
}
