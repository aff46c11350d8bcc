//! `skillpipe mcp`: the skills a [`Skillpipe`] finds, served to any MCP
//! host over stdio, on rmcp (the official Rust SDK), with the Skills
//! Extension of SEP-2640 (`io.modelcontextprotocol/skills`).
//!
//! What it serves is one discovery, made when it starts:
//!
//! - `skills/list` (paginated): one entry per loaded skill, hidden ones
//!   included, at `skill://<name>/SKILL.md`, with its frontmatter as
//!   written and every file (hidden names left out) with its size and
//!   `sha256:` digest, within 512 files and 16 MiB a skill (a skill over
//!   them is listed with what fits and a note in the entry's `_meta`
//!   under `skillpipe/notes`; a skill SEP-2640 cannot describe, such as a
//!   frontmatter without `name`, is left out and named in the page's).
//! - `skills/get`: that entry, for a loaded skill or a shadowed copy. A
//!   copy that did not load, `name@provider:level` in the library, is at
//!   `skill://<provider>/<level>/<name>/…` (the last segment is always the
//!   name); a copy no address reaches is not served.
//! - `resources/read` of any file of a skill, through the library's
//!   confined resolver ([`skillpipe::Discovered::resolve_with`]: no `..`,
//!   no absolute path, the real path inside the skill, no FIFO or device,
//!   at most 16 MiB), as `text` or a base64 `blob` with its `mimeType`;
//!   `resources/directory/read` of a skill's folders; `resources/list` of
//!   every `SKILL.md`.
//! - a prompt per slash command (`skill:<name>`, argument `args`), whose
//!   message is the expansion of `/skill:<name> args`; the `read_skill`
//!   tool (the same read, text only, at most 1 MiB); and `instructions`
//!   holding the catalogue, each skill's location its `SKILL.md` URI.
//!
//! The runtime (tokio, one thread) and rmcp are this crate's alone: a host
//! that links the `skillpipe` library links neither.

mod manifest;
mod mime;
mod page;
mod served;
mod server;
mod uri;

use std::time::Duration;

use rmcp::ServiceExt as _;
use rmcp::service::ServerInitializeError;
use skillpipe::Skillpipe;

pub use manifest::Limits;
pub use served::{NOTES_KEY, Served};
pub use server::{READ_SKILL, SkillServer};

/// Threads of the blocking pool: the transport's two, and the requests'.
const BLOCKING_THREADS: usize = 8;

/// Why serving stopped with a failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The runtime could not be started.
    #[error("the MCP server's runtime could not start: {0}")]
    Runtime(#[source] std::io::Error),
    /// The client's first messages were not an MCP handshake.
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The server's task ended abnormally.
    #[error("the MCP server stopped: {0}")]
    Stopped(String),
}

/// Serves one discovery of `skillpipe` over stdin and stdout until the
/// client closes stdin. Nothing else may write to stdout meanwhile; logs
/// belong on stderr. A client that closes stdin before it says anything
/// ends the server without an error.
pub fn serve_stdio(skillpipe: &Skillpipe) -> Result<(), Error> {
    let served = Served::new(skillpipe.discover());
    tracing::info!(
        skills = served.discovered().skills().len(),
        shadowed = served.discovered().shadowed().len(),
        "serving MCP on stdio"
    );
    let server = SkillServer::new(served);
    // Reads and hashes run on the blocking pool, which stdin's reader and
    // stdout's writer share: a few threads, so that a flood of requests
    // queues instead of reading and hashing 16 MiB skills hundreds at once.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .map_err(Error::Runtime)?;
    let result = runtime.block_on(async move {
        let running = match server.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(Error::Handshake(e.to_string())),
        };
        running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| Error::Stopped(e.to_string()))
    });
    // stdin's reader is a blocking thread that cancellation cannot stop;
    // it has seen the end of input by now, or never will.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}
