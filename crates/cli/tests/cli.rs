//! The `skillpipe` binary on generated homes and projects: what reaches
//! stdout, stderr and the exit code.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

#[cfg(unix)]
use std::ffi::OsStr;
#[cfg(unix)]
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        World {
            _dir: dir,
            home,
            project,
        }
    }

    fn cmd(&self) -> Command {
        self.cmd_in(&self.project)
    }

    fn cmd_in(&self, cwd: &Path) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_skillpipe"));
        c.env_clear()
            .env("HOME", &self.home)
            .arg("--home")
            .arg(&self.home)
            .arg("--cwd")
            .arg(cwd);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().unwrap()
    }
}

fn skill(dir: &Path, name: &str, description: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {description}\n---\nbody\n"),
    )
    .unwrap();
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    })
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

#[cfg(unix)]
fn bad_name(parent: &Path, prefix: &[u8]) -> PathBuf {
    let mut bytes = prefix.to_vec();
    bytes.push(0xff);
    parent.join(OsStr::from_bytes(&bytes))
}

#[cfg(unix)]
#[test]
fn non_utf8_paths_serialise_lossily_in_every_json_document() {
    let w = World::new();
    let folder = bad_name(&w.home.join(".claude/skills"), b"bad");
    skill(
        &folder,
        "odd",
        "A skill in a folder whose name is not UTF-8.",
    );
    let list = json(&w.run(&["list", "--json"]));
    let skills = list["skills"].as_array().unwrap();
    let odd = skills.iter().find(|s| s["name"] == "odd").unwrap();
    assert!(
        odd["file_path"]
            .as_str()
            .unwrap()
            .ends_with("/bad\u{fffd}/SKILL.md"),
        "{odd}"
    );
    assert!(odd["base_dir"].as_str().unwrap().ends_with("/bad\u{fffd}"));
    // The name-mismatch diagnostic's path is lossy too.
    assert!(
        list["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["path"].as_str().unwrap().contains("bad\u{fffd}")),
        "{list}"
    );
    let text = w.run(&["list"]);
    assert!(text.status.success());
    assert!(stdout(&text).contains("bad\u{fffd}/SKILL.md"));

    let resolved = json(&w.run(&["resolve", "--json", "skill://odd/SKILL.md"]));
    assert!(resolved["path"].as_str().unwrap().contains("bad\u{fffd}"));
    let commands = json(&w.run(&["commands", "--json"]));
    assert_eq!(commands["commands"][0]["skill"], "odd");

    // A project directory that is not UTF-8: providers and context.
    let mut w = w;
    w.project = bad_name(&w.home, b"proj");
    std::fs::create_dir_all(&w.project).unwrap();
    std::fs::write(w.project.join("AGENTS.md"), "be nice\n").unwrap();
    let providers = json(&w.run(&["providers", "--json"]));
    assert!(
        providers.to_string().contains("proj\u{fffd}"),
        "{providers}"
    );
    let context = json(&w.run(&["context", "--json"]));
    assert!(
        context["files"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with("proj\u{fffd}/AGENTS.md"),
        "{context}"
    );
    assert!(w.run(&["context"]).status.success());
}

#[cfg(unix)]
#[test]
fn a_non_utf8_environment_is_no_panic() {
    let w = World::new();
    skill(&w.home.join(".claude/skills/ok"), "ok", "Fine.");
    let out = w
        .cmd()
        .env("FOO", OsStr::from_bytes(b"\xff"))
        .env(OsStr::from_bytes(b"B\xffR"), "x")
        .args(["list", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["skills"][0]["name"], "ok");
}

#[cfg(unix)]
#[test]
fn a_non_utf8_home_is_read_from_the_environment() {
    let w = World::new();
    let home = bad_name(&w.home, b"h");
    skill(&home.join(".claude/skills/mine"), "mine", "Mine.");
    let out = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .env_clear()
        .env("HOME", &home)
        .arg("--cwd")
        .arg(&w.project)
        .args(["list", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&out)["skills"][0]["name"], "mine");
}

#[test]
fn control_characters_are_escaped_on_the_terminal_and_exact_in_json() {
    let w = World::new();
    skill(
        &w.home.join(".claude/skills/red"),
        "\"\\e[31mred\"",
        "\"\\e[31mpaint it\\e[0m\"",
    );
    let text = w.run(&["list"]);
    assert!(text.status.success(), "{}", stderr(&text));
    let out = stdout(&text);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.contains("\\u{1b}[31mred"), "{out}");
    let commands = stdout(&w.run(&["commands"]));
    assert!(!commands.contains('\x1b'), "{commands:?}");
    assert!(
        commands.contains("/skill:\\u{1b}[31mred\t\\u{1b}[31mpaint it\\u{1b}[0m"),
        "{commands}"
    );
    let list = json(&w.run(&["list", "--json"]));
    assert_eq!(list["skills"][0]["name"], "\x1b[31mred");
    assert_eq!(list["skills"][0]["description"], "\x1b[31mpaint it\x1b[0m");
    // A resolve error keeps its own line break and escapes the name.
    let err = w.run(&["resolve", "skill://missing"]);
    assert_eq!(err.status.code(), Some(1));
    assert_eq!(
        stderr(&err),
        "Unknown skill: missing\nAvailable: \\u{1b}[31mred\n"
    );
    // The catalogue stays byte-exact.
    let prompt = stdout(&w.run(&["prompt"]));
    assert!(prompt.contains("\x1b[31mpaint it"), "{prompt:?}");
    // A path with an escape, in a diagnostic on the terminal.
    skill(&w.home.join(".claude/skills/\x1b]0;title\x07"), "x", "y");
    let out = stdout(&w.run(&["list"]));
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("\\u{1b}]0;title\\u{7}"), "{out}");
}

#[test]
fn trust_and_untrust_round_trip() {
    let w = World::new();
    let agent = w.home.join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    let settings = agent.join("settings.json");
    std::fs::write(
        &settings,
        r#"{"skills": {"projectSkills": "trusted", "ignoredSkills": ["tmp-*"]}}"#,
    )
    .unwrap();
    skill(
        &w.project.join(".claude/skills/proj"),
        "proj",
        "Project skill.",
    );
    skill(
        &w.project.join(".musepi/skills/also"),
        "also",
        "Project skill too.",
    );
    skill(&w.home.join(".claude/skills/user"), "user", "User skill.");
    let sub = w.project.join("deep/sub");
    std::fs::create_dir_all(&sub).unwrap();
    let canon = w.project.canonicalize().unwrap().display().to_string();

    let untrusted = |w: &World| {
        let list = json(&w.run(&["list", "--json"]));
        let names: Vec<&str> = list["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["user"]);
        let diags = list["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{list}");
        assert_eq!(diags[0]["code"], "untrusted-project");
        assert_eq!(diags[0]["severity"], "warning");
        assert_eq!(diags[0]["path"], canon.as_str());
        assert!(
            diags[0]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("skillpipe trust {canon}"))
        );
    };
    untrusted(&w);

    // From a subdirectory: the project is the repository root.
    let out = w.cmd_in(&sub).arg("trust").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "trusted {canon}: added to skills.trustedProjects in {}\n",
            settings.display()
        )
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let keys: Vec<&String> = doc["skills"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["projectSkills", "ignoredSkills", "trustedProjects"]);
    let list = json(&w.run(&["list", "--json"]));
    let names: Vec<&str> = list["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["also", "proj", "user"]);
    assert_eq!(list["diagnostics"], serde_json::json!([]));
    // Again: nothing to do, still exit 0.
    let again = w.run(&["trust"]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("is already trusted"));

    let out = w.cmd().arg("untrust").arg(&w.project).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&format!("untrusted {canon}: removed from")));
    untrusted(&w);

    // A project file cannot trust itself.
    std::fs::write(
        w.project.join(".musepi/settings.json"),
        format!(r#"{{"skills": {{"trustedProjects": [{canon:?}], "projectSkills": "all"}}}}"#),
    )
    .unwrap();
    let out = w.run(&["list", "--json"]);
    assert!(stderr(&out).contains("warning: untrusted-setting: skills.trustedProjects in"));
    untrusted(&w);

    let missing = w.run(&["trust", "no/such/dir"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("cannot trust"),
        "{}",
        stderr(&missing)
    );
}

#[cfg(unix)]
#[test]
fn settings_files_that_are_not_regular_files_are_errors() {
    let w = World::new();
    let dir = w.home.join("conf.json");
    std::fs::create_dir_all(&dir).unwrap();
    let out = w
        .cmd()
        .arg("--config")
        .arg(&dir)
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!("error: settings file {}: is a directory\n", dir.display())
    );

    let fifo = w.home.join("fifo.json");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = w
        .cmd()
        .arg("--config")
        .arg(&fifo)
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("fifo.json: is not a regular file (it is a FIFO)"),
        "{}",
        stderr(&out)
    );

    let agent = w.home.join(".musepi/agent");
    std::fs::create_dir_all(agent.join("settings.json")).unwrap();
    let out = w.run(&["list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("settings.json: is a directory"));
}

#[test]
fn a_bom_in_user_settings_is_no_error() {
    let w = World::new();
    let agent = w.home.join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        "\u{feff}{\"skills\": {\"enableClaudeUser\": false}}",
    )
    .unwrap();
    skill(&w.home.join(".claude/skills/user"), "user", "User skill.");
    let list = json(&w.run(&["list", "--json"]));
    assert_eq!(list["skills"], serde_json::json!([]));
}
