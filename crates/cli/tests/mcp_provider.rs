//! The `mcp` provider against `skillpipe mcp` itself: a home served by one
//! skillpipe and read by another, through `mcp.servers`, yields the same
//! skills, descriptions and `resolve` bytes as reading the home directly.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

fn skillpipe(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .arg("--home")
        .arg(home)
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .env_remove("SKILLPIPE_PROFILE")
        .env_remove("SKILLPIPE_LOG")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("LOCALAPPDATA")
        .output()
        .unwrap();
    assert!(
        out.status.success() || args.first() == Some(&"resolve"),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn skills(list: &Output) -> Vec<(String, String, String)> {
    let doc: Value = serde_json::from_slice(&list.stdout).unwrap();
    doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["description"].as_str().unwrap().to_owned(),
                s["source"]["provider"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// A served home of three skills (one shadowed copy beside them), text
/// and binary files, nested folders and frontmatter beyond name and
/// description.
fn served_home(dir: &Path) -> (PathBuf, PathBuf) {
    let served = dir.join("served");
    let (home, project) = (served.join("home"), served.join("project"));
    std::fs::create_dir_all(project.join(".git")).unwrap();
    write(
        &home.join(".claude/skills/pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Fill PDF forms.\nallowed-tools: [Read, Grep]\nmetadata:\n  version: \"1.2\"\n  tags: [forms, pdf]\n---\nUse refs/forms.md.\n",
    );
    write(&home.join(".claude/skills/pdf/refs/forms.md"), "# Forms\n");
    write(
        &home.join(".claude/skills/pdf/logo.png"),
        [0x89, b'P', b'N', b'G', 0, 0xff, 0xfe],
    );
    write(
        &home.join(".agents/skills/review/SKILL.md"),
        "---\nname: review\ndescription: >\n  Review a change,\n  line by line.\nwhen_to_use: before a merge\n---\nBe kind.\n",
    );
    write(
        &home.join(".codex/skills/review/SKILL.md"),
        "---\nname: review\ndescription: A shadowed review.\n---\n",
    );
    write(
        &project.join(".claude/skills/deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Ship it.\n---\nSee scripts/run.sh.\n",
    );
    write(
        &project.join(".claude/skills/deploy/scripts/run.sh"),
        "#!/bin/sh\necho ship\n",
    );
    (home, project)
}

/// `mcp.servers` of one server `home`, and what reading through it must
/// give: the served home's skills, descriptions and bytes.
fn reads_the_same(home: &Path, project: &Path, dir: &Path, server: &Value) {
    let direct = skillpipe(home, project, &["list", "--json"]);
    let expected: Vec<(String, String)> = skills(&direct)
        .into_iter()
        .map(|(n, d, _)| (n, d))
        .collect();
    assert_eq!(expected.len(), 3, "{expected:?}");

    let reader = dir.join("reader");
    let (rhome, rproject) = (reader.join("home"), reader.join("project"));
    std::fs::create_dir_all(rproject.join(".git")).unwrap();
    std::fs::create_dir_all(&rhome).unwrap();
    let servers = json!({ "home": server });
    let set = format!("mcp.servers={servers}");
    let via = skillpipe(&rhome, &rproject, &["--set", &set, "list", "--json"]);
    let doc: Value = serde_json::from_slice(&via.stdout).unwrap();
    let got: Vec<(String, String)> = skills(&via)
        .into_iter()
        .inspect(|(_, _, provider)| assert_eq!(provider, "mcp-home"))
        .map(|(n, d, _)| (n, d))
        .collect();
    assert_eq!(got, expected);
    // skills/list has the loaded copies only (the shadowed `review` is
    // the server's `skills/get` alone): nothing collides, nothing is wrong.
    let diagnostics: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(diagnostics.is_empty(), "{doc}");

    for uri in [
        "skill://pdf/SKILL.md",
        "skill://pdf/refs/forms.md",
        "skill://pdf/logo.png",
        "skill://review/SKILL.md",
        "skill://deploy/scripts/run.sh",
    ] {
        let a = skillpipe(home, project, &["resolve", uri]);
        let b = skillpipe(&rhome, &rproject, &["--set", &set, "resolve", uri]);
        assert!(
            a.status.success(),
            "{uri}: {}",
            String::from_utf8_lossy(&a.stderr)
        );
        assert_eq!(a.stdout, b.stdout, "{uri}");
        assert_eq!(a.status.code(), b.status.code(), "{uri}");
    }
    // What the served home's frontmatter says reaches the reader whole.
    let pdf = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "pdf")
        .unwrap();
    assert_eq!(
        pdf["frontmatter"]["metadata"]["tags"],
        json!(["forms", "pdf"]),
        "{pdf}"
    );
}

#[test]
fn a_home_served_by_one_skillpipe_reads_the_same_in_another() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = served_home(dir.path());
    let server = json!({
        "command": env!("CARGO_BIN_EXE_skillpipe"),
        "args": ["--home", home, "--cwd", project, "-q", "mcp", "--no-watch"],
    });
    reads_the_same(&home, &project, dir.path(), &server);
}

/// The same over Streamable HTTP: `skillpipe mcp --http 127.0.0.1:0`
/// (rmcp's transport) read with the provider's HTTP client.
#[test]
fn a_home_served_over_http_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (home, project) = served_home(dir.path());
    // A free port, then the server on it, its stderr left alone (under
    // Wine a second child cannot start while one's piped stderr is open).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .arg("--home")
        .arg(&home)
        .arg("--cwd")
        .arg(&project)
        .args(["-q", "mcp", "--no-watch", "--http", &address])
        .env_remove("SKILLPIPE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(&address).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the server never listened on {address}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = format!("http://{address}/mcp");
    reads_the_same(&home, &project, dir.path(), &json!({ "url": url }));
    let _ = child.kill();
    let _ = child.wait();
}
