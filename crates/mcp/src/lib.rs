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
//!   confined resolver (`skillpipe::core::runtime::resolve_with`, over the one skill: no `..`,
//!   no absolute path, the real path inside the skill, no FIFO or device,
//!   at most 16 MiB), as `text` or a base64 `blob` with its `mimeType`;
//!   `resources/directory/read` of a skill's folders; `resources/list` of
//!   every `SKILL.md`.
//! - a prompt per slash command (`skill:<name>`, argument `args`), whose
//!   message is the expansion of `/skill:<name> args`; the `read_skill`
//!   tool (the same read, text only, at most 1 MiB); the `search_skills`
//!   tool (`{query, limit}`: the library's search, at most 50 results,
//!   each with its `SKILL.md` URI); and `instructions`
//!   holding the catalogue, each skill's location its `SKILL.md` URI.
//!
//! The server watches (the `skillpipe-watch` crate): when the skills
//! change on disk it serves the new discovery and tells every client with
//! `notifications/resources/list_changed` and
//! `notifications/prompts/list_changed` (declared as `listChanged`).
//! Digests are cached by file identity and modification and hashed again
//! when either changes, so a listing never holds a stale one.
//!
//! The runtime (tokio, one thread) and rmcp are this crate's alone: a host
//! that links the `skillpipe` library links neither.

mod manifest;
mod mime;
mod page;
mod served;
mod server;
mod sessions;
mod uri;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt as _;
use rmcp::service::ServerInitializeError;
use skillpipe::{Discovered, Skillpipe};
use skillpipe_watch::{WatchOptions, Watcher};

pub use manifest::{Digests, Limits};
pub use page::SKILLS_PAGE;
pub use served::{MAX_SEARCH, NOTES_KEY, Served};
pub use server::{READ_SKILL, SEARCH_SKILLS, SkillServer};

/// Threads of the blocking pool: the transport's two (stdin's reader,
/// stdout's writer), the requests', and the helpers that make a page of
/// `skills/list` (up to eight a page; with two pages made ahead, those
/// past the sixteen wait their turn, and every helper ends once its page
/// has no copy left): with fewer, a page's helpers held up the writing of
/// the page before.
const BLOCKING_THREADS: usize = 16;

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
    /// The watcher could not start.
    #[error("the MCP server cannot watch the skills: {0}")]
    Watch(#[source] skillpipe::Error),
    /// [`serve_http`] was asked for an address other machines can reach
    /// without `allow_remote`.
    #[error(
        "{0} is not a loopback address: the MCP server serves every skill's files to whoever connects, so it listens on 127.0.0.1 or ::1 unless --allow-remote is given"
    )]
    NotLoopback(SocketAddr),
    /// The address could not be bound.
    #[error("the MCP server cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// How [`serve`] serves.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Watch the skills and serve each new discovery (default: on).
    pub watch: bool,
    /// How the watcher watches.
    pub watch_options: WatchOptions,
    /// The per-skill limits.
    pub limits: Limits,
    /// The digest cache to start with (default: an empty one); see
    /// [`Digests::hearing`].
    pub digests: Option<Arc<Digests>>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            watch: true,
            watch_options: WatchOptions::default(),
            limits: Limits::default(),
            digests: None,
        }
    }
}

impl Options {
    /// [`Options::watch`].
    #[must_use]
    pub fn watch(mut self, watch: bool) -> Self {
        self.watch = watch;
        self
    }

    /// [`Options::digests`]: the cache that the [`Skillpipe`] served
    /// handed the digests of the files its discoveries read
    /// ([`Digests::hearing`]).
    #[must_use]
    pub fn digests(mut self, digests: Arc<Digests>) -> Self {
        self.digests = Some(digests);
        self
    }
}

/// What serves: the handler, and the watcher that keeps it current.
struct Live {
    server: SkillServer,
    watcher: Option<Arc<Watcher>>,
    changes: Option<tokio::sync::mpsc::UnboundedReceiver<()>>,
}

impl Live {
    fn start(skillpipe: &Skillpipe, options: &Options) -> Result<Live, Error> {
        let digests = options.digests.clone().unwrap_or_default();
        if !options.watch {
            let served = Served::with_cache(skillpipe.discover(), options.limits, digests);
            return Ok(Live {
                server: SkillServer::new(served),
                watcher: None,
                changes: None,
            });
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let watcher = Watcher::start(skillpipe, options.watch_options.clone(), move |_| {
            let _ = tx.send(());
        })
        .map_err(Error::Watch)?;
        let served = Served::with_cache(watcher.current(), options.limits, digests);
        Ok(Live {
            server: SkillServer::new(served),
            watcher: Some(Arc::new(watcher)),
            changes: Some(rx),
        })
    }

    /// Spawns the task that serves each new discovery and tells the
    /// clients; it ends when the watcher does.
    fn follow(&mut self) {
        let (Some(watcher), Some(mut changes)) = (self.watcher.clone(), self.changes.take()) else {
            return;
        };
        let server = self.server.clone();
        tokio::spawn(async move {
            while changes.recv().await.is_some() {
                // A burst of events is one swap.
                while changes.try_recv().is_ok() {}
                let watcher = Arc::clone(&watcher);
                let old = server.served();
                let next = tokio::task::spawn_blocking(move || {
                    let found: Arc<Discovered> = watcher.current();
                    let next = Served::with_cache(found, old.limits(), Arc::clone(old.digests()));
                    // Rendered here, off the runtime's thread, where rmcp
                    // would ask for it on the next request.
                    let _ = next.instructions();
                    next
                })
                .await;
                let Ok(next) = next else { continue };
                tracing::info!(
                    skills = next.discovered().skills().len(),
                    "the skills changed: serving the new discovery"
                );
                server.swap(next);
                server.notify_changed().await;
            }
        });
    }
}

/// Serves one discovery of `skillpipe` over stdin and stdout until the
/// client closes stdin. Nothing else may write to stdout meanwhile; logs
/// belong on stderr. A client that closes stdin before it says anything
/// ends the server without an error.
pub fn serve_stdio(skillpipe: &Skillpipe) -> Result<(), Error> {
    serve(skillpipe, &Options::default())
}

/// [`serve_stdio`] with `options`.
pub fn serve(skillpipe: &Skillpipe, options: &Options) -> Result<(), Error> {
    let mut live = Live::start(skillpipe, options)?;
    let server = live.server.clone();
    {
        let served = server.served();
        tracing::info!(
            skills = served.discovered().skills().len(),
            shadowed = served.discovered().shadowed().len(),
            watching = options.watch,
            "serving MCP on stdio"
        );
    }
    let runtime = runtime()?;
    {
        let _entered = runtime.enter();
        live.follow();
    }
    widen_stdout();
    let result = runtime.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio();
        let stdin = UntilEof {
            inner: stdin,
            server: server.clone(),
        };
        let service = server::SkillService(server.clone());
        let running = match service.serve((stdin, stdout)).await {
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
    // The watcher stops when its last handle goes (the follower's went
    // with the runtime).
    drop(live);
    result
}

/// The pipe to the client, when stdout is one, made as large as an
/// unprivileged process may (Linux: `/proc/sys/fs/pipe-max-size`, 1 MiB by
/// default): a page of `skills/list` is some 100 KiB, which through the
/// default 64 KiB pipe took the client and the server turns to pass.
fn widen_stdout() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let stdout = std::io::stdout();
        let is_pipe = rustix::fs::fstat(&stdout).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Fifo
        });
        if is_pipe {
            let _ = rustix::pipe::fcntl_setpipe_size(&stdout, 1 << 20);
        }
    }
}

/// Stdin, telling the server when it ends.
struct UntilEof<R> {
    inner: R,
    server: SkillServer,
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for UntilEof<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        let ended = match &polled {
            std::task::Poll::Ready(Ok(())) => buf.filled().len() == before && buf.remaining() > 0,
            std::task::Poll::Ready(Err(_)) => true,
            std::task::Poll::Pending => false,
        };
        if ended {
            self.server.input_closed();
        }
        polled
    }
}

/// The runtime: one thread, and a blocking pool that stdin's reader and
/// stdout's writer share with the reads and hashes. A few threads, so that
/// a flood of requests queues instead of reading and hashing 16 MiB skills
/// hundreds at once.
fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .map_err(Error::Runtime)
}

/// Serves the discovery of `skillpipe` over Streamable HTTP (MCP's HTTP
/// transport, one session per client) at `addr`, at any path (clients are
/// told `http://ADDR/mcp`), until the process ends. `addr` must be a
/// loopback address unless `allow_remote` (then any `Host` header is
/// accepted; without it only `localhost`, `127.0.0.1` and `::1`, which
/// keeps a web page from reaching the server through DNS rebinding).
/// `on_bound` is called with the address bound (port 0 picks a free one)
/// before the first connection is taken.
pub fn serve_http(
    skillpipe: &Skillpipe,
    options: &Options,
    addr: SocketAddr,
    allow_remote: bool,
    on_bound: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    if !allow_remote && !addr.ip().is_loopback() {
        return Err(Error::NotLoopback(addr));
    }
    let mut live = Live::start(skillpipe, options)?;
    let server = live.server.clone();
    let runtime = runtime()?;
    {
        let _entered = runtime.enter();
        live.follow();
    }
    let mut config = StreamableHttpServerConfig::default();
    if allow_remote {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(sessions::Capped::new(sessions::MAX_SESSIONS)),
        config,
    );
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| Error::Bind { addr, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| Error::Bind { addr, source })?;
        tracing::info!(%bound, watching = options.watch, "serving MCP over HTTP");
        on_bound(bound);
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, most likely: wait, go on.
                    tracing::warn!("a connection was not accepted: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            };
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let io = hyper_util::rt::TokioIo::new(stream);
                let served = hyper::server::conn::http1::Builder::new()
                    .serve_connection(io, service)
                    .await;
                if let Err(e) = served {
                    tracing::debug!("an HTTP connection ended: {e}");
                }
            });
        }
    });
    runtime.shutdown_timeout(Duration::from_millis(200));
    drop(live);
    result
}
