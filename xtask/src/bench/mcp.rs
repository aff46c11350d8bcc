//! `skillpipe mcp` on the 10k tree, spoken to in raw JSON-RPC lines over
//! stdio (release build, `--no-watch`: the watcher's own figures are
//! `watch`'s): the time from its start to its answer to `initialize` (its
//! discovery, which hands the server the digest of each `SKILL.md` it
//! reads), `skills/list` through every page, the first listing of a
//! fresh server (every other file read and hashed, each `SKILL.md`
//! stamped) and the warm ones after it (digests from the cache, each
//! file's stamp checked), and a `resources/read` round trip of one
//! `SKILL.md`. Targets: the warm listing within 2× `list --json`'s
//! whole-process time, the first within 5×, a read under 5 ms. The start is
//! printed so that what discovery took over from the first listing shows.
//! The first listing is also set beside its floor (the `listing-floor`
//! probe: every file opened, stamped, read and hashed on every core, and
//! nothing else), for information.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::cli::command_on_tree;
use super::probe::{Cache, probe_rounds};
use super::report::Report;
use super::stats::Stats;

/// Warm listings and reads a server.
const WARM: usize = 3;
const READS: usize = 50;
/// Timed runs of the first listing's floor.
const FLOOR_REPS: usize = 9;

struct Rpc {
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    id: u64,
}

impl Rpc {
    fn send(&mut self, message: &Value) -> Result<()> {
        writeln!(self.stdin, "{message}")?;
        self.stdin.flush()?;
        Ok(())
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        self.id += 1;
        let id = self.id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("the server ended before answering {method}");
            }
            let message: Value = serde_json::from_str(&line).context("a JSON-RPC line")?;
            if message["id"] == id {
                if let Some(e) = message.get("error") {
                    bail!("{method} failed: {e}");
                }
                return Ok(message["result"].clone());
            }
        }
    }

    /// Every page of `skills/list`: the entries and the files listed.
    /// Each page is decoded into what a client needs of it here (how many
    /// entries and files, the next cursor), as a typed client does, not
    /// into a `serde_json::Value` tree of every string: that alone took a
    /// third of a warm listing's time, which is the client's, not the
    /// server's.
    fn list(&mut self) -> Result<(usize, usize)> {
        let (mut skills, mut files) = (0, 0);
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            self.id += 1;
            let id = self.id;
            self.send(
                &json!({"jsonrpc": "2.0", "id": id, "method": "skills/list", "params": params}),
            )?;
            let mut line = String::new();
            let page = loop {
                line.clear();
                if self.stdout.read_line(&mut line)? == 0 {
                    bail!("the server ended before answering skills/list");
                }
                let reply: Reply = serde_json::from_str(&line).context("a JSON-RPC line")?;
                if reply.id != Some(id) {
                    continue;
                }
                if let Some(e) = reply.error {
                    bail!("skills/list failed: {e}");
                }
                break reply
                    .result
                    .context("skills/list answered without a result")?;
            };
            skills += page.skills.len();
            files += page.skills.iter().map(|e| e.resources.len()).sum::<usize>();
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return Ok((skills, files)),
            }
        }
    }
}

/// A JSON-RPC reply to `skills/list`, as far as [`Rpc::list`] reads it.
#[derive(serde::Deserialize)]
struct Reply {
    id: Option<u64>,
    result: Option<Page>,
    error: Option<Value>,
}

#[derive(serde::Deserialize)]
struct Page {
    skills: Vec<Listed>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

#[derive(serde::Deserialize)]
struct Listed {
    resources: Vec<serde::de::IgnoredAny>,
}

/// Times `rounds` fresh servers and the first listing's floor; prints the
/// lines, adds the summaries and the targets. `list_ms`: `list --json`'s
/// median on the tree.
pub(super) fn report(
    cli: &Path,
    profile: &str,
    label: &str,
    tree: &Path,
    list_ms: f64,
    rounds: usize,
    report: &mut Report,
) -> Result<()> {
    let (mut first, mut warm, mut reads) = (Vec::new(), Vec::new(), Vec::new());
    let mut starts = Vec::new();
    let mut counted = (0, 0);
    for _ in 0..rounds.max(1) {
        let started = Instant::now();
        let mut child = command_on_tree(cli, profile, tree, &["-q", "mcp", "--no-watch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("the server's pipes");
        };
        let mut rpc = Rpc {
            stdin,
            stdout: BufReader::new(stdout),
            id: 0,
        };
        rpc.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}),
        )?;
        starts.push(started.elapsed().as_secs_f64() * 1e3);
        rpc.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        let t = Instant::now();
        counted = rpc.list()?;
        first.push(t.elapsed().as_secs_f64() * 1e3);
        for _ in 0..WARM {
            let t = Instant::now();
            rpc.list()?;
            warm.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let page = rpc.request("resources/list", json!({}))?;
        let Some(uri) = page["resources"][0]["uri"].as_str().map(str::to_owned) else {
            bail!("resources/list listed nothing");
        };
        for _ in 0..READS {
            let t = Instant::now();
            rpc.request("resources/read", json!({ "uri": uri }))?;
            reads.push(t.elapsed().as_secs_f64() * 1e3);
        }
        drop(rpc);
        child.wait()?;
    }
    let floor = probe_rounds(
        &["listing-floor"],
        profile,
        tree,
        1,
        FLOOR_REPS,
        Cache::Warm,
    )?;
    let floor = floor.first().context("the listing-floor probe")?;
    let (first, warm, read) = (Stats::of(&first), Stats::of(&warm), Stats::of(&reads));
    let start = Stats::of(&starts);
    let (x_first, x_warm) = (first.median / list_ms, warm.median / list_ms);
    let line = format!(
        "mcp {profile} {label}: start to initialize answered {start} (discovery, each SKILL.md \
         read whole and hashed); skills/list of {} skills, {} files, every page: first {first} \
         ({x_first:.2}x list --json's {list_ms:.1} ms; every other file read and hashed), warm {warm} \
         ({x_warm:.2}x; digests from the cache); resources/read round trip {read} \
         ({} servers, {WARM} warm listings and {READS} reads each)",
        counted.0,
        counted.1,
        rounds.max(1)
    );
    println!("{line}");
    report.summary(format!("summary: {line}"));
    let line = format!(
        "mcp floor {profile} {label}: the first listing's {:.1} ms is {:.2}x the floor's {} \
         (CPU {:.0} ms a run; {} skill folders and every folder below listed, {} files \
         opened, stamped, read and hashed, on every core, with no entry, URI, JSON or cache; \
         {} runs)",
        first.median,
        first.median / floor.stats.median,
        floor.stats,
        floor.cpu_ms,
        floor.skills,
        floor.diagnostics,
        floor.times.len(),
    );
    println!("{line}");
    report.summary(format!("summary: {line}"));
    report.verdict(
        &format!("{profile} {label} mcp warm skills/list <= 2x list --json"),
        x_warm <= 2.0,
        format!("{x_warm:.2}x"),
    );
    report.verdict(
        &format!("{profile} {label} mcp first skills/list <= 5x list --json"),
        x_first <= 5.0,
        format!("{x_first:.2}x"),
    );
    report.verdict(
        &format!("{profile} {label} mcp resources/read < 5 ms"),
        read.median < 5.0,
        format!("{:.2} ms", read.median),
    );
    Ok(())
}
