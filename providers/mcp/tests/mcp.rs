//! The `mcp` provider through the library, against the fake server of
//! `examples/fake_server.rs` (built with the tests), well-behaved and in
//! each of its faults. The same provider against `skillpipe mcp` itself
//! is tested in the CLI's tests (`crates/cli/tests/mcp_provider.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use skillpipe::{Discovered, Profile, Skillpipe};
use skillpipe_testkit::Tree;

/// The fake server, built by `cargo test` beside the test binaries.
fn fake_server() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let path = deps
        .parent()
        .unwrap()
        .join("examples")
        .join(format!("fake_server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.is_file(),
        "{} is missing: `cargo test -p skillpipe-provider-mcp` builds it",
        path.display()
    );
    path
}

fn server(dir: &Path, mode: &str) -> Value {
    json!({
        "command": fake_server(),
        "args": [dir, mode],
        "timeoutMs": 2000,
    })
}

fn library(tree: &Tree, servers: &Value, sets: &[&str]) -> Skillpipe {
    let mut b = Skillpipe::builder(Profile::Musepi)
        .home(tree.path("home"))
        .cwd(tree.path("project"))
        .env(Vec::<(String, String)>::new())
        .no_plugins()
        .set(format!("mcp.servers={servers}"));
    for s in sets {
        b = b.set(*s);
    }
    b.build().unwrap()
}

fn discover(tree: &Tree, servers: &Value) -> Discovered {
    library(tree, servers, &[]).discover()
}

fn names(found: &Discovered) -> Vec<(String, String)> {
    found
        .skills()
        .iter()
        .map(|s| (s.name.to_string(), s.source.provider.clone()))
        .collect()
}

fn codes(found: &Discovered) -> Vec<(String, String)> {
    found
        .diagnostics()
        .iter()
        .map(|d| (d.code.to_string(), d.message.clone()))
        .collect()
}

/// A tree with a served folder of two skills (the first with a file
/// beside its SKILL.md) and one local skill.
fn tree() -> Tree {
    let tree = Tree::new();
    tree.skill("served/alpha", "alpha", "The first served skill.")
        .file("served/alpha/docs/guide.md", "# Guide\n\nRead me.\n")
        .file("served/alpha/data.bin", [0u8, 159, 146, 150, 255])
        .skill("served/beta", "beta", "The second served skill.")
        .skill("home/.claude/skills/local", "local", "A local skill.")
        .dir("project/.git");
    tree
}

#[test]
fn a_server_s_skills_load_from_verified_copies_in_the_cache() {
    let tree = tree();
    let servers = json!({ "team": server(&tree.path("served"), "good") });
    let found = discover(&tree, &servers);
    assert_eq!(codes(&found), Vec::<(String, String)>::new());
    assert_eq!(
        names(&found),
        [
            ("alpha".to_owned(), "mcp-team".to_owned()),
            ("beta".to_owned(), "mcp-team".to_owned()),
            ("local".to_owned(), "claude".to_owned()),
        ]
    );
    let alpha = &found.skills()[0];
    assert_eq!(alpha.description, "The first served skill.");
    let cache = tree.path("home/.cache/skillpipe/mcp/team");
    assert!(
        alpha.file_path.starts_with(&cache),
        "{}",
        alpha.file_path.display()
    );
    assert_eq!(alpha.source.root.as_deref(), Some(cache.as_path()));
    // Every file, text or binary, is the server's, byte for byte.
    for rel in ["SKILL.md", "docs/guide.md", "data.bin"] {
        assert_eq!(
            std::fs::read(alpha.base_dir.join(rel)).unwrap(),
            std::fs::read(tree.path("served/alpha").join(rel)).unwrap(),
            "{rel}"
        );
    }
    // skill:// and /skill: read the verified copy.
    let guide = found.resolve("skill://alpha/docs/guide.md").unwrap();
    assert_eq!(guide.content, b"# Guide\n\nRead me.\n");
    // Again: the same copies, hashed again, nothing else left in the cache.
    let again = discover(&tree, &servers);
    assert_eq!(again.skills()[0].file_path, alpha.file_path);
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 2);
}

#[test]
fn a_tampered_cache_is_never_used_and_a_changed_skill_is_a_new_copy() {
    let tree = tree();
    let servers = json!({ "team": server(&tree.path("served"), "good") });
    let first = discover(&tree, &servers);
    let skill_md = first.skills()[0].file_path.clone();
    std::fs::write(&skill_md, "---\nname: alpha\ndescription: Forged.\n---\n").unwrap();
    let second = discover(&tree, &servers);
    assert_eq!(second.skills()[0].description, "The first served skill.");
    assert_eq!(
        std::fs::read(&skill_md).unwrap(),
        std::fs::read(tree.path("served/alpha/SKILL.md")).unwrap()
    );
    // The server's skill changes: a new folder, the old one pruned.
    tree.skill("served/alpha", "alpha", "Changed on the server.");
    let third = discover(&tree, &servers);
    assert_eq!(third.skills()[0].description, "Changed on the server.");
    assert_ne!(third.skills()[0].file_path, skill_md);
    assert!(!skill_md.exists());
}

#[test]
fn two_servers_names_are_two_copies_each_reachable_and_local_skills_come_first() {
    let tree = tree();
    tree.skill("other/alpha", "alpha", "The other server's alpha.")
        .skill(
            "other/local",
            "local",
            "A served skill named as a local one.",
        );
    let servers = json!({
        "team": server(&tree.path("served"), "good"),
        "zoo": server(&tree.path("other"), "good"),
    });
    let found = discover(&tree, &servers);
    let loaded = names(&found);
    assert!(
        loaded.contains(&("alpha".to_owned(), "mcp-team".to_owned())),
        "{loaded:?}"
    );
    assert!(
        loaded.contains(&("local".to_owned(), "claude".to_owned())),
        "{loaded:?}"
    );
    let collisions: Vec<_> = codes(&found)
        .into_iter()
        .filter(|(c, _)| c == "collision")
        .collect();
    assert_eq!(collisions.len(), 2, "{collisions:?}");
    let other = found.resolve("skill://alpha@mcp-zoo/SKILL.md").unwrap();
    assert!(String::from_utf8_lossy(&other.content).contains("The other server's alpha."));
    let team = found.resolve("skill://alpha@mcp-team/SKILL.md").unwrap();
    assert!(String::from_utf8_lossy(&team.content).contains("The first served skill."));
}

/// One fault: the diagnostic it gives (code and a part of the message),
/// and the served skills that still load.
fn fault(mode: &str, code: &str, says: &str, loads: &[&str]) {
    fault_in(&tree(), mode, code, says, loads);
}

fn fault_in(tree: &Tree, mode: &str, code: &str, says: &str, loads: &[&str]) {
    let mut one = server(&tree.path("served"), mode);
    if mode == "silent" {
        one["timeoutMs"] = json!(500);
    }
    let servers = json!({ "team": one });
    let started = Instant::now();
    let found = discover(tree, &servers);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{mode}: a fault holds discovery {:?}",
        started.elapsed()
    );
    let diagnostics = codes(&found);
    assert!(
        diagnostics
            .iter()
            .any(|(c, m)| c == code && m.contains(says) && m.contains("\"team\"")),
        "{mode}: expected {code} saying {says:?}, got {diagnostics:?}"
    );
    let mut served: Vec<String> = found
        .skills()
        .iter()
        .filter(|s| s.source.provider == "mcp-team")
        .map(|s| s.name.to_string())
        .collect();
    served.sort();
    assert_eq!(served, loads, "{mode}");
    assert!(
        found.skills().iter().any(|s| s.name == "local"),
        "{mode}: the local skill is lost"
    );
}

#[test]
fn a_server_that_ends_or_never_answers_is_a_diagnostic_and_no_hang() {
    fault("exit", "mcp-server", "initialize: the server exited", &[]);
    fault("silent", "mcp-server", "no answer in 500 ms", &[]);
    // Listed, but the server is gone before a file is read: nothing...
    fault("crash", "mcp-server", "exited", &[]);
    // ...unless its verified copy is in the cache from an earlier listing.
    let tree = tree();
    let good = json!({ "team": server(&tree.path("served"), "good") });
    assert_eq!(discover(&tree, &good).skills().len(), 3);
    fault_in(&tree, "crash", "mcp-server", "exited", &["alpha"]);
    // And the copies of a listing cut short are kept for the next one.
    assert_eq!(discover(&tree, &good).skills().len(), 3);
}

#[test]
fn a_listing_without_end_or_of_garbage_stops_with_what_was_verified() {
    fault("repeat-cursor", "mcp-server", "twice", &["alpha", "beta"]);
    fault(
        "endless",
        "mcp-server",
        "past 1000 pages",
        &["alpha", "beta"],
    );
    fault("garbage", "mcp-server", "no JSON", &[]);
    fault("huge-line", "mcp-server", "over 24 MiB", &[]);
    fault("error", "mcp-server", "on holiday", &[]);
}

#[test]
fn bytes_names_and_frontmatter_that_differ_from_the_manifest_are_not_served() {
    fault("tamper", "mcp-integrity", "digest", &["beta"]);
    fault(
        "bad-name",
        "mcp-integrity",
        "not the URI's last segment",
        &["beta"],
    );
    fault("frontmatter", "mcp-integrity", "frontmatter", &["beta"]);
    fault("other-file", "mcp-integrity", "does not list", &[]);
    fault("escape", "mcp-integrity", ". or ..", &["beta"]);
    fault(
        "tamper-extra",
        "mcp-integrity",
        "bytes, its manifest says",
        &["alpha", "beta"],
    );
}

#[test]
fn a_command_that_does_not_start_is_a_diagnostic() {
    let tree = tree();
    let servers = json!({ "team": {"command": tree.path("no-such-server")} });
    let found = discover(&tree, &servers);
    let d = codes(&found);
    assert!(
        d.iter()
            .any(|(c, m)| c == "mcp-server" && m.contains("cannot start")),
        "{d:?}"
    );
    assert!(found.skills().iter().any(|s| s.name == "local"));
}

#[test]
fn bad_entries_of_mcp_servers_are_diagnostics_and_the_others_load() {
    let tree = tree();
    let servers = json!({
        "team": server(&tree.path("served"), "good"),
        "both": {"command": "x", "url": "http://127.0.0.1:1/mcp"},
        "bad id!": {"command": "x"},
        "typo": {"comand": "x"},
    });
    let found = discover(&tree, &servers);
    let d = codes(&found);
    for says in ["either \"command\"", "no server id", "unknown field"] {
        assert!(
            d.iter().any(|(c, m)| c == "mcp-server" && m.contains(says)),
            "{says}: {d:?}"
        );
    }
    assert_eq!(
        found
            .skills()
            .iter()
            .filter(|s| s.source.provider == "mcp-team")
            .count(),
        2
    );
}

#[test]
fn only_trusted_layers_name_servers_and_the_switches_turn_them_off() {
    let tree = tree();
    let servers = json!({ "team": server(&tree.path("served"), "good") });
    // A project settings file that names a server starts nothing.
    tree.file(
        "project/.musepi/settings.json",
        json!({ "mcp": { "servers": servers } }).to_string(),
    );
    let sp = Skillpipe::builder(Profile::Musepi)
        .home(tree.path("home"))
        .cwd(tree.path("project"))
        .env(Vec::<(String, String)>::new())
        .no_plugins()
        .build()
        .unwrap();
    assert!(
        sp.warnings()
            .iter()
            .any(|w| w.code == "untrusted-setting" && w.message.contains("mcp.servers")),
        "{:?}",
        sp.warnings()
    );
    assert!(!sp.providers().any(|p| p.info().id == "mcp"));
    let found = sp.discover();
    assert!(
        found
            .skills()
            .iter()
            .all(|s| !s.source.provider.starts_with("mcp"))
    );

    for off in ["disabledProviders=[\"mcp\"]", "skills.enableMcp=false"] {
        let found = library(&tree, &servers, &[off]).discover();
        assert!(
            found
                .skills()
                .iter()
                .all(|s| !s.source.provider.starts_with("mcp")),
            "{off}"
        );
    }
    assert!(!tree.path("home/.cache/skillpipe/mcp/team").exists());
}

/// A loopback HTTP "server" that answers every connection as `answer`
/// says, after reading the whole request, on a thread of its own. It
/// reads all of it and ends its side before it closes: a socket closed
/// with unread bytes is reset, and the client could then see the reset
/// instead of the answer (one test in three did).
fn http_server(answer: &'static [u8], silent: bool) -> String {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            read_request(&mut stream);
            if silent {
                std::thread::sleep(Duration::from_secs(5));
                continue;
            }
            let _ = stream.write_all(answer);
            let _ = stream.shutdown(std::net::Shutdown::Write);
            // Until the client has read the answer and closed its side.
            let _ = std::io::copy(&mut stream, &mut std::io::sink());
        }
    });
    format!("http://{addr}/mcp")
}

/// Reads an HTTP request's head and its `Content-Length` body (or up to
/// the read time-out, or the client's end).
fn read_request(stream: &mut std::net::TcpStream) {
    use std::io::Read;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
            let body = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if got.len() >= end + 4 + body {
                return;
            }
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

fn http_fault(url: &str, says: &str) {
    let tree = tree();
    let servers = json!({ "web": {"url": url, "timeoutMs": 500} });
    let started = Instant::now();
    let found = discover(&tree, &servers);
    assert!(started.elapsed() < Duration::from_secs(30), "{url}: a hang");
    let d = codes(&found);
    assert!(
        d.iter()
            .any(|(c, m)| c == "mcp-server" && m.contains(says) && m.contains("\"web\"")),
        "{url}: expected mcp-server saying {says:?}, got {d:?}"
    );
    assert!(found.skills().iter().any(|s| s.name == "local"));
}

#[test]
fn an_http_server_that_is_not_there_stalls_or_speaks_no_mcp_is_a_diagnostic() {
    // Nothing listens: bind a port, then free it.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", free.local_addr().unwrap());
    drop(free);
    http_fault(&url, "cannot connect");
    http_fault(&http_server(b"", true), "no answer in 500 ms");
    http_fault(
        &http_server(b"SSH-2.0-OpenSSH_9.6\r\n", false),
        "no HTTP answer",
    );
    http_fault(
        &http_server(
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\noops!",
            false,
        ),
        "HTTP 500",
    );
    http_fault(
        &http_server(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\nnot json", false),
        "no JSON",
    );
    http_fault(
        &http_server(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"method\":\"x\"}\n\n", false),
        "without the answer",
    );
    http_fault("https://127.0.0.1:1/mcp", "https is not read yet");
}
