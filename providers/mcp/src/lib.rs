//! Provider `mcp` ("MCP servers", priority 20, below every file-system
//! provider): the skills of the MCP servers named in the trusted setting
//! `mcp.servers`, read with SEP-2640's `skills/list` and `resources/read`.
//!
//! - **How.** A `command` server is started over stdio for each discovery
//!   and ended after it; a `url` server (`http://`) is spoken to over
//!   Streamable HTTP. Both list with `skills/list` (every page) and read
//!   with `resources/read`.
//! - **Where.** One root per server, `<cache>/skillpipe/mcp/<id>`
//!   (`<cache>`: `XDG_CACHE_HOME`, `LOCALAPPDATA` on Windows, else
//!   `~/.cache`), a folder no file-system provider looks in. Gated by
//!   `skills.enableMcp` (absent: on) and `disabledProviders: ["mcp"]`.
//! - **Trust.** Every byte a server sends is checked against its own
//!   manifest (size and `sha256:` digest) before it is written; a skill
//!   whose URI, name, frontmatter or files do not agree with the listing is
//!   an `mcp-integrity` diagnostic and is not served. The verified files
//!   are written to `<root>/<key>/<name>/…`, the key a digest of the whole
//!   manifest, and a cached copy is hashed again before it is used.
//! - **Identity.** A server's skills carry provider `mcp-<id>` in their
//!   source, so two servers' `review` are two copies: the first in the
//!   order of `mcp.servers` loads (with the usual `collision` warning) and
//!   each stays reachable as `review@mcp-<id>`.
//! - **Faults.** A server that does not start, ends, does not answer a
//!   call within `timeoutMs` (default 10 s) or its session within 60 s,
//!   repeats a cursor, lists without end or writes what is no MCP is an
//!   `mcp-server` diagnostic: what was verified before the fault loads,
//!   the other servers and every local skill are untouched.

mod client;
mod http;
mod manifest;

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Value, json};
use skillpipe_core::load::{FileKind, LoadSpec, Loaded, load};
use skillpipe_core::types::{Diagnostic, DiagnosticCode, Level, Source};
use skillpipe_core::{
    Description, DiscoveryContext, EnabledField, Found, ProviderInfo, Root, RootItem,
    SkillProvider, Toggle,
};

use crate::client::{Client, Fault, Session, Spawn, clip};
use crate::manifest::{Entry, File};

/// The provider's id (and `disabledProviders` entry).
pub const ID: &str = "mcp";

/// Its gate: `skills.enableMcp`.
pub const TOGGLE: Toggle = Toggle::key("enableMcp");

/// At most this many `skills/list` pages of one server.
const MAX_PAGES: usize = 1000;
/// At most this many skills of one server.
const MAX_SKILLS: usize = 10_000;
/// At most this many bytes read from one server in one discovery.
const MAX_SERVER_BYTES: u64 = 256 << 20;
/// The longest cursor taken.
const MAX_CURSOR: usize = 4096;
/// A call's default bound.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// A session's bound (every call of one discovery).
const SESSION: Duration = Duration::from_secs(60);

/// What the host hands the provider as `providers.mcp`: the trusted
/// `mcp.servers`, nothing from an untrusted layer.
#[derive(Debug, Default, Deserialize)]
struct Config {
    #[serde(default)]
    servers: BTreeMap<String, Value>,
}

/// One entry of `mcp.servers`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Server {
    /// Started with stdio as the transport.
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Streamable HTTP, at an `http://` URL.
    url: Option<String>,
    /// Each call's bound, in milliseconds.
    timeout_ms: Option<u64>,
}

/// The provider.
#[derive(Debug)]
pub struct Mcp {
    info: ProviderInfo,
}

/// Builds the provider. A host adds it when `mcp.servers` names a server
/// (the library does, with its `mcp` feature).
pub fn provider() -> Box<dyn SkillProvider> {
    Box::new(Mcp {
        info: ProviderInfo {
            toggles: vec![TOGGLE],
            ..ProviderInfo::builtin(ID, "MCP servers", 20)
        },
    })
}

/// The provider id a server's skills carry: `mcp-<id>`.
pub fn provider_of(server: &str) -> String {
    format!("{ID}-{server}")
}

/// Where the verified copies of every server live.
pub fn cache_dir(cx: &DiscoveryContext) -> PathBuf {
    let base = cx
        .var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            cfg!(windows)
                .then(|| cx.var("LOCALAPPDATA").map(PathBuf::from))
                .flatten()
        })
        .unwrap_or_else(|| cx.home.join(".cache"));
    base.join("skillpipe").join("mcp")
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn servers(cx: &DiscoveryContext) -> Result<Config, String> {
    cx.provider_config::<Config>(ID)
        .map(Option::unwrap_or_default)
        .map_err(|e| format!("mcp.servers: {e}"))
}

fn server(id: &str, raw: &Value) -> Result<Server, String> {
    if !valid_id(id) {
        return Err(format!(
            "mcp.servers: {:?} is no server id (letters, digits, - and _, at most 64)",
            clip(id)
        ));
    }
    let s = Server::deserialize(raw).map_err(|e| format!("mcp.servers.{id}: {e}"))?;
    match (&s.command, &s.url) {
        (Some(_), None) | (None, Some(_)) => Ok(s),
        _ => Err(format!(
            "mcp.servers.{id}: give either \"command\" (stdio) or \"url\" (HTTP)"
        )),
    }
}

impl SkillProvider for Mcp {
    fn info(&self) -> &ProviderInfo {
        &self.info
    }

    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        let cache = cache_dir(cx);
        let config = match servers(cx) {
            Ok(c) => c,
            Err(why) => {
                return vec![Diagnostic::warning(DiagnosticCode::McpServer, why, &cache).into()];
            }
        };
        config
            .servers
            .iter()
            .map(|(id, raw)| match server(id, raw) {
                Ok(_) => Root::new(cache.join(id), Level::User)
                    .toggle(TOGGLE)
                    .description(Description::Optional)
                    .into(),
                Err(why) => Diagnostic::warning(DiagnosticCode::McpServer, why, &cache).into(),
            })
            .collect()
    }

    fn scan_root(&self, cx: &DiscoveryContext, root: &Root) -> Vec<Found> {
        let Some(id) = root.path.file_name().and_then(|n| n.to_str()) else {
            return Vec::new();
        };
        let Ok(config) = servers(cx) else {
            return Vec::new();
        };
        let Some(Ok(server)) = config.servers.get(id).map(|raw| server(id, raw)) else {
            return Vec::new();
        };
        Reader::new(cx, id, root).read(&server)
    }
}

/// One server's part of one discovery.
struct Reader<'a> {
    cx: &'a DiscoveryContext,
    id: &'a str,
    root: &'a Root,
    source: Arc<Source>,
    found: Vec<Found>,
    /// Bytes read from the server so far.
    read: u64,
}

/// Why reading one skill stopped.
enum Stop {
    /// The skill is not served; the next one is read.
    Skill(String),
    /// The server cannot go on: nothing more of it is read.
    Server(Fault),
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Self {
        Stop::Server(f)
    }
}

impl<'a> Reader<'a> {
    fn new(cx: &'a DiscoveryContext, id: &'a str, root: &'a Root) -> Self {
        Reader {
            cx,
            id,
            root,
            source: Arc::new(Source {
                provider: provider_of(id),
                level: root.level,
                root: Some(root.path.clone()),
            }),
            found: Vec::new(),
            read: 0,
        }
    }

    fn diagnose(&mut self, code: DiagnosticCode, what: impl std::fmt::Display) {
        let message = format!("MCP server {:?}: {what}", self.id);
        tracing::warn!(server = self.id, "{message}");
        self.found.push(Found::Diagnostic(Diagnostic::warning(
            code,
            message,
            &self.root.path,
        )));
    }

    fn read(mut self, server: &Server) -> Vec<Found> {
        let timeout = server
            .timeout_ms
            .map_or(DEFAULT_TIMEOUT, Duration::from_millis);
        let started: Result<Box<dyn Session>, Fault> = match (&server.command, &server.url) {
            (Some(command), _) => {
                let env: Vec<(String, String)> = server
                    .env
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let spawn = Spawn {
                    command,
                    args: &server.args,
                    env: &env,
                    cwd: &self.cx.cwd,
                };
                Client::start(&spawn, timeout, SESSION).map(|c| Box::new(c) as Box<dyn Session>)
            }
            (None, Some(url)) => {
                http::Http::start(url, timeout, SESSION).map(|c| Box::new(c) as Box<dyn Session>)
            }
            (None, None) => return self.found,
        };
        let mut client = match started {
            Ok(c) => c,
            Err(f) => {
                self.diagnose(DiagnosticCode::McpServer, f);
                return self.found;
            }
        };
        let (entries, whole) = self.list(client.as_mut());
        let mut used = HashSet::new();
        let mut names = HashSet::new();
        let mut server_ok = whole;
        for value in entries {
            let entry = match manifest::entry(&value) {
                Ok(e) => e,
                Err(why) => {
                    self.diagnose(DiagnosticCode::McpIntegrity, format!("{why}; not served"));
                    continue;
                }
            };
            if !names.insert(entry.uri.clone()) {
                self.diagnose(
                    DiagnosticCode::McpIntegrity,
                    format!("{} is listed twice; the first is served", entry.uri),
                );
                continue;
            }
            let key = entry.key();
            match self.skill(client.as_mut(), &entry, &key) {
                Ok(()) => {
                    used.insert(key);
                }
                Err(Stop::Skill(why)) => {
                    used.insert(key);
                    self.diagnose(DiagnosticCode::McpIntegrity, format!("{why}; not served"));
                }
                Err(Stop::Server(f)) => {
                    self.diagnose(DiagnosticCode::McpServer, f);
                    server_ok = false;
                    break;
                }
            }
        }
        drop(client);
        if server_ok {
            prune(&self.root.path, &used);
        }
        self.found
    }

    /// Every page of `skills/list`, and whether the listing is whole.
    fn list(&mut self, client: &mut dyn Session) -> (Vec<Value>, bool) {
        let mut entries = Vec::new();
        let mut cursors: HashSet<String> = HashSet::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let page = match client.request("skills/list", params) {
                Ok(p) => p,
                Err(f) => {
                    self.diagnose(DiagnosticCode::McpServer, f);
                    return (entries, false);
                }
            };
            let Some(skills) = page.get("skills").and_then(Value::as_array) else {
                self.diagnose(
                    DiagnosticCode::McpServer,
                    "skills/list answered without a skills list (does it offer io.modelcontextprotocol/skills?)",
                );
                return (entries, false);
            };
            if entries.len() + skills.len() > MAX_SKILLS {
                self.diagnose(
                    DiagnosticCode::McpServer,
                    format!(
                        "it lists more than {MAX_SKILLS} skills; the first {MAX_SKILLS} are read"
                    ),
                );
                let room = MAX_SKILLS - entries.len();
                entries.extend(skills.iter().take(room).cloned());
                return (entries, false);
            }
            entries.extend(skills.iter().cloned());
            match page.get("nextCursor") {
                None | Some(Value::Null) => return (entries, true),
                Some(Value::String(next)) if next.len() <= MAX_CURSOR => {
                    if !cursors.insert(next.clone()) {
                        self.diagnose(
                            DiagnosticCode::McpServer,
                            format!("skills/list gave the cursor {:?} twice (a listing without end); the pages before it are read", clip(next)),
                        );
                        return (entries, false);
                    }
                    cursor = Some(next.clone());
                }
                Some(_) => {
                    self.diagnose(
                        DiagnosticCode::McpServer,
                        format!("skills/list gave a nextCursor that is no string of at most {MAX_CURSOR} bytes"),
                    );
                    return (entries, false);
                }
            }
        }
        self.diagnose(
            DiagnosticCode::McpServer,
            format!("skills/list goes past {MAX_PAGES} pages; the first {MAX_PAGES} are read"),
        );
        (entries, false)
    }

    /// One entry: its files verified into the cache, then its `SKILL.md`
    /// loaded as any skill file is, and checked against the listing.
    fn skill(&mut self, client: &mut dyn Session, entry: &Entry, key: &str) -> Result<(), Stop> {
        let dir = self.root.path.join(key).join(&entry.name);
        // SKILL.md first: nothing else is fetched for a skill not served.
        let mut files: Vec<&File> = entry.files.iter().collect();
        files.sort_by_key(|f| !f.is_skill_md());
        for file in files {
            let path = file.path_in(&dir);
            if cached(&path, file) {
                continue;
            }
            let bytes = self.fetch(client, file)?;
            if let Err(why) = verify(file, &bytes) {
                remove(&path);
                if file.is_skill_md() {
                    return Err(Stop::Skill(why));
                }
                self.diagnose(
                    DiagnosticCode::McpIntegrity,
                    format!("{why}; that file is not served"),
                );
                continue;
            }
            write(&path, &bytes).map_err(|e| {
                Stop::Skill(format!(
                    "{}: cannot write {}: {e}",
                    file.uri,
                    path.display()
                ))
            })?;
        }
        let skill_md = dir.join("SKILL.md");
        let spec = LoadSpec {
            path: &skill_md,
            kind: FileKind::SkillFile,
            source: &self.source,
            require_description: self.root.description == Description::Required,
            honor_enabled: self.cx.enabled_field == EnabledField::Honored,
            max_file_bytes: self.cx.limits.max_file_bytes,
            observer: None,
        };
        let candidate = match load(&spec) {
            Loaded::Candidate(c) => c,
            Loaded::Skipped => return Ok(()),
            Loaded::Absent => {
                return Err(Stop::Skill(format!(
                    "{}: its verified copy {} is gone",
                    entry.uri,
                    skill_md.display()
                )));
            }
        };
        if let Some(skill) = &candidate.skill {
            if skill.name != entry.name {
                return Err(Stop::Skill(format!(
                    "{}: SKILL.md names {:?}, the listing {:?}",
                    entry.uri,
                    clip(&skill.name),
                    entry.name
                )));
            }
            let written = serde_json::to_value(skill.frontmatter.map()).unwrap_or(Value::Null);
            if written != Value::Object(entry.frontmatter.clone()) {
                return Err(Stop::Skill(format!(
                    "{}: the frontmatter of its SKILL.md differs from the listing's{}",
                    entry.uri,
                    first_difference(&written, &entry.frontmatter)
                )));
            }
        }
        let real_path = fs::canonicalize(&skill_md).unwrap_or_else(|_| skill_md.clone());
        self.found.push(Found::Candidate {
            candidate,
            path: skill_md.into(),
            real_path: real_path.into(),
        });
        Ok(())
    }

    /// One file's bytes, by `resources/read`, within the server's budget.
    fn fetch(&mut self, client: &mut dyn Session, file: &File) -> Result<Vec<u8>, Stop> {
        if self.read.saturating_add(file.size) > MAX_SERVER_BYTES {
            return Err(Stop::Server(Fault(format!(
                "its skills are over the {} MiB read from one server in one discovery",
                MAX_SERVER_BYTES >> 20
            ))));
        }
        let result = client.request("resources/read", json!({ "uri": file.uri }))?;
        let contents = result
            .get("contents")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                Stop::Skill(format!(
                    "{}: resources/read answered without contents",
                    file.uri
                ))
            })?;
        let item = contents
            .iter()
            .find(|c| c.get("uri").and_then(Value::as_str) == Some(file.uri.as_str()))
            .ok_or_else(|| Stop::Skill(format!("{}: resources/read answered with other files (a file its manifest does not list)", file.uri)))?;
        let bytes = if let Some(text) = item.get("text").and_then(Value::as_str) {
            text.as_bytes().to_vec()
        } else if let Some(blob) = item.get("blob").and_then(Value::as_str) {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| Stop::Skill(format!("{}: its blob is no base64 ({e})", file.uri)))?
        } else {
            return Err(Stop::Skill(format!(
                "{}: resources/read answered with neither text nor blob",
                file.uri
            )));
        };
        self.read = self.read.saturating_add(bytes.len() as u64);
        Ok(bytes)
    }
}

/// Whether the cached copy at `path` is the file of the manifest (hashed
/// again: a cache is never trusted for what it says it is).
fn cached(path: &Path, file: &File) -> bool {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_file() && m.len() == file.size => {}
        _ => return false,
    }
    fs::read(path).is_ok_and(|bytes| verify(file, &bytes).is_ok())
}

fn verify(file: &File, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() as u64 != file.size {
        return Err(format!(
            "{} is {} bytes, its manifest says {}",
            file.uri,
            bytes.len(),
            file.size
        ));
    }
    let got = manifest::digest(bytes);
    if got != file.digest {
        return Err(format!(
            "{} has digest {got}, its manifest says {}",
            file.uri, file.digest
        ));
    }
    Ok(())
}

/// Writes a verified file: a temporary file beside it, renamed over it.
fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(path);
    fs::create_dir_all(dir)?;
    if fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_file()) {
        remove(path);
    }
    let tmp = dir.join(format!(
        ".{}.{}.part",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    fs::write(&tmp, bytes)?;
    fs::rename(&tmp, path).inspect_err(|_| {
        let _ = fs::remove_file(&tmp);
    })
}

fn remove(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            let _ = fs::remove_dir_all(path);
        }
        Ok(_) => {
            let _ = fs::remove_file(path);
        }
        Err(_) => {}
    }
}

/// Removes the copies of skills a whole listing no longer has (only the
/// manifest-key folders this provider writes).
fn prune(root: &Path, used: &HashSet<String>) {
    let Ok(dir) = fs::read_dir(root) else { return };
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let ours = name.len() == 24 && name.bytes().all(|b| b.is_ascii_hexdigit());
        if ours && !used.contains(name) {
            remove(&entry.path());
        }
    }
}

/// ": key `k`" for the first key whose values differ, for a message.
fn first_difference(written: &Value, listed: &serde_json::Map<String, Value>) -> String {
    let Some(written) = written.as_object() else {
        return String::new();
    };
    let keys = written.keys().chain(listed.keys());
    for k in keys {
        if written.get(k) != listed.get(k) {
            return format!(" (key {:?})", clip(k));
        }
    }
    String::new()
}
