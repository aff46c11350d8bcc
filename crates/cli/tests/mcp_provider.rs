//! The `mcp` provider against `skillpipe mcp` itself: a home served by one
//! skillpipe and read by another, through `mcp.servers`, yields the same
//! skills, descriptions and `resolve` bytes as reading the home directly.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;
use std::process::{Command, Output};

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

#[test]
fn a_home_served_by_one_skillpipe_reads_the_same_in_another() {
    let dir = tempfile::tempdir().unwrap();
    let served = dir.path().join("served");
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

    let direct = skillpipe(&home, &project, &["list", "--json"]);
    let expected: Vec<(String, String)> = skills(&direct)
        .into_iter()
        .map(|(n, d, _)| (n, d))
        .collect();
    assert_eq!(expected.len(), 3, "{expected:?}");

    let reader = dir.path().join("reader");
    let (rhome, rproject) = (reader.join("home"), reader.join("project"));
    std::fs::create_dir_all(rproject.join(".git")).unwrap();
    std::fs::create_dir_all(&rhome).unwrap();
    let servers = json!({
        "home": {
            "command": env!("CARGO_BIN_EXE_skillpipe"),
            "args": ["--home", home, "--cwd", project, "-q", "mcp", "--no-watch"],
        }
    });
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
        let a = skillpipe(&home, &project, &["resolve", uri]);
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
