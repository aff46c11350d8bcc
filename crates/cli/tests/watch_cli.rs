//! `skillpipe watch` whose stdout is closed (`skillpipe watch | head -1`):
//! the next line it writes ends it quietly with 0, as `list` ends, in text
//! and in JSON. Every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const DEADLINE: Duration = Duration::from_secs(20);

fn skill(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: about {name}\n---\nbody\n"),
    )
    .unwrap();
}

/// Runs `watch ARGS`, reads its first line, closes the pipe, then adds a
/// skill every 200 ms until it exits (within the deadline); returns its
/// exit status and stderr.
fn watch_into_a_closed_pipe(args: &[&str]) -> (std::process::ExitStatus, String) {
    let t = tempfile::tempdir().unwrap();
    let (home, cwd) = (t.path().join("home"), t.path().join("project"));
    skill(&home.join(".claude/skills/first"), "first");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .env_clear()
        .env("HOME", &home)
        .arg("--home")
        .arg(&home)
        .arg("--cwd")
        .arg(&cwd)
        .arg("watch")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    {
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(!first.is_empty(), "no first line");
        // The reader goes away, as `head -1` does.
    }
    let end = Instant::now() + DEADLINE;
    let mut n = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("watch {args:?} did not end within {DEADLINE:?} of its pipe closing");
        }
        n += 1;
        skill(&home.join(format!(".claude/skills/s{n}")), &format!("s{n}"));
        std::thread::sleep(Duration::from_millis(200));
    };
    (status, err.join().unwrap())
}

#[test]
fn watch_json_into_a_closed_pipe_ends_quietly_with_0() {
    let (status, stderr) = watch_into_a_closed_pipe(&["--json"]);
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn watch_into_a_closed_pipe_ends_quietly_with_0() {
    let (status, stderr) = watch_into_a_closed_pipe(&[]);
    assert_eq!(status.code(), Some(0), "stderr: {stderr}");
    assert_eq!(stderr, "");
}
