//! `skillpipe watch` as a process: the initial line, a line per change,
//! and a clean end on Ctrl-C (SIGINT). Every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::Value;

const DEADLINE: Duration = Duration::from_secs(20);

fn skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
    )
    .unwrap();
}

/// The child and its stdout, line by line, read on a thread of its own.
fn spawn(home: &Path, cwd: &Path, args: &[&str]) -> (Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .env_clear()
        .env("HOME", home)
        .arg("--home")
        .arg(home)
        .arg("--cwd")
        .arg(cwd)
        .arg("watch")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

fn line(rx: &Receiver<String>, what: &str) -> String {
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|e| panic!("no line within {DEADLINE:?} ({e}): {what}"))
}

/// Sends SIGINT and waits (bounded) for the exit.
fn interrupt(child: &mut Child) -> std::process::ExitStatus {
    let ok = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let end = Instant::now() + DEADLINE;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("no exit within {DEADLINE:?} of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn watch_json_prints_the_state_then_one_document_per_event_until_ctrl_c() {
    let t = tempfile::tempdir().unwrap();
    let (home, cwd) = (t.path().join("home"), t.path().join("project"));
    skill(&home.join(".claude/skills/first"), "first", "one");
    std::fs::create_dir_all(&cwd).unwrap();
    let (mut child, rx) = spawn(&home, &cwd, &["--json"]);

    let initial: Value = serde_json::from_str(&line(&rx, "the initial state")).unwrap();
    assert_eq!(initial["initial"], true);
    assert_eq!(initial["added"][0]["name"], "first");
    assert!(initial["catalog"].as_str().unwrap().contains("one"));

    skill(&home.join(".claude/skills/second"), "second", "two");
    let event: Value = serde_json::from_str(&line(&rx, "the added skill")).unwrap();
    assert_eq!(event["added"][0]["name"], "second");
    assert_eq!(event["added"][0]["source"]["provider"], "claude");
    assert_eq!(event["removed"], Value::Array(Vec::new()));
    assert!(event["catalog"].as_str().unwrap().contains("two"));
    assert!(event.get("initial").is_none());
    // The message a host appends instead of a new system prompt; with one
    // entry before, one added is more than half: better to render again.
    let update = &event["catalog_update"];
    assert_eq!(update["added"], serde_json::json!(["second"]));
    assert!(
        update["message"]
            .as_str()
            .unwrap()
            .contains("\n- second: two\n"),
        "{update}"
    );
    assert_eq!(update["rerender"], "most-changed");

    std::fs::remove_dir_all(home.join(".claude/skills/first")).unwrap();
    let event: Value = serde_json::from_str(&line(&rx, "the removed skill")).unwrap();
    assert_eq!(event["removed"][0]["name"], "first");

    let status = interrupt(&mut child);
    assert!(status.success(), "{status:?}");
}

#[test]
fn watch_prints_a_summary_then_a_line_per_change() {
    let t = tempfile::tempdir().unwrap();
    let (home, cwd) = (t.path().join("home"), t.path().join("project"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let (mut child, rx) = spawn(&home, &cwd, &[]);
    let summary = line(&rx, "the summary");
    assert_eq!(
        summary,
        "watching 0 skills (musepi): 0 errors, 0 warnings; Ctrl-C to stop"
    );
    let dir = home.join(".musepi/agent/skills/new");
    skill(&dir, "new", "one");
    assert_eq!(
        line(&rx, "the added skill"),
        format!("+new native/user {}", dir.join("SKILL.md").display())
    );
    skill(&dir, "new", "two");
    assert!(line(&rx, "the change").starts_with("~new native/user "));
    // A broken file: its diagnostic is shown once, when it appears.
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: new\ndescription: [\n---\n",
    )
    .unwrap();
    let mut lines = vec![line(&rx, "the broken file")];
    while !lines.iter().any(|l| l.starts_with("error[")) {
        lines.push(line(&rx, "its diagnostic"));
    }
    assert!(lines.iter().any(|l| l.starts_with("-new ")), "{lines:?}");
    let status = interrupt(&mut child);
    assert!(status.success(), "{status:?}");
}
