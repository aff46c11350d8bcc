//! `skillpipe mcp` as a process, spoken to in raw JSON-RPC lines: the
//! handshake, then input no client should send (garbage, a line past the
//! transport's bound, unknown methods, params of the wrong shape, URIs
//! that climb, forged cursors), each answered or dropped while the server
//! goes on answering; and the end of stdin ends it with 0. Every wait is
//! bounded, so a hang fails the test instead of stalling it.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        let skill = home.join(".claude/skills/pdf");
        std::fs::create_dir_all(skill.join("refs")).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::write(
            skill.join("SKILL.md"),
            "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse refs/forms.md.\n",
        )
        .unwrap();
        std::fs::write(skill.join("refs/forms.md"), "# Forms\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
            .arg("--home")
            .arg(&home)
            .arg("--cwd")
            .arg(&project)
            .args(["-q", "mcp"])
            .env_remove("SKILLPIPE_PROFILE")
            .env_remove("SKILLPIPE_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            dir,
        }
    }

    fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// The next message, within [`WAIT`].
    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(WAIT)
            .expect("the server answers in time");
        serde_json::from_str(&line).unwrap()
    }

    /// The served home's skills folder.
    fn skills(&self) -> std::path::PathBuf {
        self.dir.path().join("home/.claude/skills")
    }

    /// Waits for the notification `method`, within [`WAIT`], skipping
    /// anything else.
    fn notification(&mut self, method: &str) {
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < WAIT, "no {method}");
            if self.next()["method"] == method {
                return;
            }
        }
    }

    /// The response to request `id`, skipping anything else.
    fn response(&mut self, id: u64) -> Value {
        let start = Instant::now();
        loop {
            assert!(start.elapsed() < WAIT, "no response to {id}");
            let message = self.next();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    fn initialize(&mut self) -> Value {
        let init = self.request(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}
            }),
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// Closes stdin and waits for the exit status, within [`WAIT`].
    fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if start.elapsed() > WAIT {
                let _ = self.child.kill();
                panic!("the server did not end when stdin closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("an error: {response}"))
}

#[test]
fn a_closed_stdin_before_the_handshake_ends_the_server_with_zero() {
    let server = Server::start();
    assert_eq!(server.close(), Some(0));
}

#[test]
fn the_handshake_declares_the_skills_extension() {
    let mut server = Server::start();
    let init = server.initialize();
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(caps["resources"].is_object() && caps["prompts"].is_object());
    let listed = server.request(2, "skills/list", json!({}));
    assert_eq!(
        listed["result"]["skills"][0]["uri"], "skill://pdf/SKILL.md",
        "{listed}"
    );
    assert_eq!(server.close(), Some(0));
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let hex: String = sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// The digest `skills/list` gives the `SKILL.md` of `name`.
fn listed_digest(listed: &Value, name: &str) -> Option<String> {
    let uri = format!("skill://{name}/SKILL.md");
    let skills = listed["result"]["skills"].as_array()?;
    let entry = skills.iter().find(|s| s["uri"] == uri.as_str())?;
    let files = entry["resources"].as_array()?;
    let file = files.iter().find(|f| f["uri"] == uri.as_str())?;
    file["digest"].as_str().map(str::to_owned)
}

#[test]
fn a_change_on_disk_is_notified_then_listed_with_fresh_digests() {
    let mut server = Server::start();
    let init = server.initialize();
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["resources"]["listChanged"], true, "{init}");
    assert_eq!(caps["prompts"]["listChanged"], true, "{init}");
    let before = server.request(2, "skills/list", json!({}));
    let pdf = server.skills().join("pdf/SKILL.md");
    let old = std::fs::read(&pdf).unwrap();
    assert_eq!(listed_digest(&before, "pdf"), Some(sha256(&old)));

    // The same length, so only the stamps and the bytes tell.
    let new = String::from_utf8(old.clone())
        .unwrap()
        .replace("Fill PDF forms.", "Fill PDF pages.");
    std::fs::write(&pdf, &new).unwrap();
    let added = server.skills().join("docx");
    std::fs::create_dir_all(&added).unwrap();
    let docx = "---\nname: docx\ndescription: Edit Word files.\n---\nBody.\n";
    std::fs::write(added.join("SKILL.md"), docx).unwrap();

    server.notification("notifications/resources/list_changed");
    server.notification("notifications/prompts/list_changed");
    // The watcher may report the two changes in one burst or two.
    let start = Instant::now();
    let mut id = 3;
    let after = loop {
        let after = server.request(id, "skills/list", json!({}));
        if listed_digest(&after, "docx").is_some()
            && listed_digest(&after, "pdf") == Some(sha256(new.as_bytes()))
        {
            break after;
        }
        assert!(start.elapsed() < WAIT, "never listed: {after}");
        std::thread::sleep(Duration::from_millis(50));
        id += 1;
    };
    assert_eq!(listed_digest(&after, "docx"), Some(sha256(docx.as_bytes())));
    let entry = after["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["uri"] == "skill://pdf/SKILL.md")
        .unwrap()
        .clone();
    assert_eq!(entry["frontmatter"]["description"], "Fill PDF pages.");
    let prompts = server.request(id + 1, "prompts/list", json!({}));
    assert!(prompts.to_string().contains("skill:docx"), "{prompts}");
    // The watcher still runs: the end of stdin ends the server promptly.
    let start = Instant::now();
    assert_eq!(server.close(), Some(0));
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn hostile_input_is_answered_or_dropped_and_the_server_goes_on() {
    let mut server = Server::start();
    server.initialize();
    server.send_raw(b"garbage{");
    server.send_raw(b"[1, 2, 3]");
    server.send_raw(&[0xff, 0xfe, b'{', b'}']);
    // Past rmcp's 16 MiB line bound: dropped, with no answer.
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":90,"method":"resources/read","params":{{"uri":"skill://pdf/{}"}}}}"#,
        "a".repeat(17 << 20)
    );
    server.send_raw(huge.as_bytes());

    let search = server.request(
        20,
        "tools/call",
        json!({"name": "search_skills", "arguments": {"query": "pdf forms", "limit": 5}}),
    );
    assert_eq!(
        search["result"]["structuredContent"]["results"][0]["uri"], "skill://pdf/SKILL.md",
        "{search}"
    );
    let limit = server.request(
        21,
        "tools/call",
        json!({"name": "search_skills", "arguments": {"query": "pdf", "limit": 1_000_000}}),
    );
    assert_eq!(code(&limit), -32602, "{limit}");
    let nothing = server.request(22, "tools/call", json!({"name": "search_skills"}));
    assert_eq!(code(&nothing), -32602, "{nothing}");

    let unknown = server.request(10, "skills/nope", json!({}));
    assert_eq!(code(&unknown), -32601, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("skills/nope")
    );
    let shape = server.request(11, "skills/get", json!({"uri": 42}));
    assert_eq!(code(&shape), -32602, "{shape}");
    let cursor = server.request(
        12,
        "skills/list",
        json!({"cursor": "skills:99999999999999999999"}),
    );
    assert_eq!(code(&cursor), -32602, "{cursor}");
    for (id, uri) in [
        (13, "skill://pdf/../../../secret.txt"),
        (14, "skill://pdf/%2E%2E/%2E%2E/%2E%2E/secret.txt"),
        (15, "skill://pdf/refs/..%2F..%2F..%2F..%2Fsecret.txt"),
        (16, "/etc/passwd"),
    ] {
        let read = server.request(id, "resources/read", json!({"uri": uri}));
        assert_eq!(code(&read), -32602, "{uri}: {read}");
    }
    let long_uri = format!("skill://pdf/{}", "a/".repeat(1 << 20));
    let long = server.request(17, "resources/read", json!({"uri": long_uri}));
    assert_eq!(code(&long), -32602, "{long:.300}");
    assert!(
        long.to_string().len() < 2000,
        "the error repeats a bounded part"
    );
    let tool = server.request(
        18,
        "tools/call",
        json!({"name": "read_skill", "arguments": {"uri": "skill://pdf/../../../secret.txt"}}),
    );
    assert_eq!(tool["result"]["isError"], true, "{tool}");
    let no_tool = server.request(19, "tools/call", json!({"name": "rm -rf", "arguments": {}}));
    assert_eq!(code(&no_tool), -32602, "{no_tool}");

    let read = server.request(
        20,
        "resources/read",
        json!({"uri": "skill://pdf/refs/forms.md"}),
    );
    assert_eq!(read["result"]["contents"][0]["text"], "# Forms\n", "{read}");
    assert_eq!(server.close(), Some(0));
}

#[test]
fn http_refuses_a_remote_address_without_allow_remote_and_names_the_flag() {
    let out = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .args(["mcp", "--no-watch", "--http", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a loopback address") && stderr.contains("--allow-remote"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn http_on_port_zero_prints_the_address_it_bound_and_answers_there() {
    use std::net::TcpStream;
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .arg("--home")
        .arg(dir.path())
        .arg("--cwd")
        .arg(dir.path())
        .args(["-q", "mcp", "--no-watch", "--http", "127.0.0.1:0"])
        .env_remove("SKILLPIPE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    // Warnings (an unknown SKILLPIPE_ variable, say) may come first.
    let mut seen = Vec::new();
    let url = loop {
        let line = rx
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("the address on stderr, after {seen:?}"));
        if let Some(url) = line.strip_prefix("skillpipe mcp: serving http://") {
            break url.to_owned();
        }
        seen.push(line);
    };
    let addr = url.strip_suffix("/mcp").unwrap();
    assert!(
        addr.starts_with("127.0.0.1:") && !addr.ends_with(":0"),
        "{addr}"
    );
    // An initialize over plain HTTP/1.1 is answered with the server's info.
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}
    })
    .to_string();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let start = Instant::now();
    while !String::from_utf8_lossy(&answer).contains("\"serverInfo\"") {
        assert!(
            start.elapsed() < WAIT,
            "{}",
            String::from_utf8_lossy(&answer)
        );
        match std::io::Read::read(&mut stream, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("io.modelcontextprotocol/skills"),
        "{answer}"
    );
    // A Host another site could rebind to is refused.
    let mut other = TcpStream::connect(addr).unwrap();
    other.set_read_timeout(Some(WAIT)).unwrap();
    write!(
        other,
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut refused = String::new();
    let _ = std::io::Read::read_to_string(&mut other, &mut refused);
    assert!(!refused.starts_with("HTTP/1.1 200"), "{refused}");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_2026_client_without_a_handshake_is_told_through_subscriptions_listen() {
    let mut server = Server::start();
    server.send(json!({
        "jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
        "params": {
            "notifications": {"resourcesListChanged": true, "promptsListChanged": true},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"}
            }
        }
    }));
    server.notification("notifications/subscriptions/acknowledged");
    let added = server.skills().join("docx");
    std::fs::create_dir_all(&added).unwrap();
    std::fs::write(
        added.join("SKILL.md"),
        "---\nname: docx\ndescription: Edit Word files.\n---\nBody.\n",
    )
    .unwrap();
    server.notification("notifications/resources/list_changed");
    server.notification("notifications/prompts/list_changed");
    // The listen request still open does not hold the end of stdin up.
    let start = Instant::now();
    assert_eq!(server.close(), Some(0));
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
}
