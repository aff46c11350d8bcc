//! Text a skill, a path or a URL brings cannot steer the terminal or
//! forge a line, and addresses always mean the copy they name: the
//! third hardening round's CLI findings, each run through the binary.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct World {
    dir: tempfile::TempDir,
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
        World { dir, home, project }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_skillpipe"))
            .env_clear()
            .env("HOME", &self.home)
            .arg("--home")
            .arg(&self.home)
            .arg("--cwd")
            .arg(&self.project)
            .arg("--color")
            .arg("never")
            .args(args)
            .output()
            .unwrap()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(dir: &Path, name: &str, description: &str, body: &str) {
    write(
        &dir.join("SKILL.md"),
        &format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n"),
    );
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The characters no terminal text may hold raw: controls other than the
/// line ends and column tabs our own layout adds, bidi controls and
/// zero-width ones.
/// A folder name with what a terminal must not see raw, and its escaped
/// form: controls (ESC, CR, BEL) where the system allows them in names;
/// Windows refuses controls in file names, so there the name carries the
/// bidi override and zero-width space it does allow.
fn hostile_name(unix: &'static str, unix_escaped: &'static str) -> (&'static str, &'static str) {
    if cfg!(windows) {
        ("dir[31m\u{202e}\u{200b}", "dir[31m\\u{202e}\\u{200b}")
    } else {
        (unix, unix_escaped)
    }
}

fn raw_hidden(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(
                    c,
                    '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200d}' | '\u{feff}'
                )
        })
        .collect()
}

#[test]
fn validate_escapes_names_and_paths_so_no_line_is_forged() {
    let w = World::new();
    let forged = w.dir.path().join("forged");
    write(
        &forged.join("SKILL.md"),
        "---\nname: \"ok\\nValid skill: /etc/passwd\"\ndescription: d\n---\n",
    );
    let (name, escaped) = hostile_name("dir\u{1b}[31m\r\u{202e}", "dir\\u{1b}[31m\\u{d}\\u{202e}");
    let odd = w.dir.path().join(name);
    skill(&odd, "plain-one", "plain", "body");
    let out = w.run(&["validate", forged.to_str().unwrap(), odd.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("Valid skill: /etc/passwd")),
        "a name forged a line:\n{stdout}"
    );
    assert_eq!(raw_hidden(&stdout), Vec::<char>::new(), "{stdout:?}");
    assert!(
        stdout.contains("\\u{a}Valid skill: /etc/passwd"),
        "{stdout}"
    );
    assert!(stdout.contains(escaped), "{stdout}");
    // JSON stays exact.
    let out = w.run(&["validate", "--json", forged.to_str().unwrap()]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = doc["results"][0]["errors"].to_string();
    assert!(errors.contains("ok\\nValid skill"), "{errors}");
}

#[test]
fn validate_reports_a_yaml_error_with_its_own_lines() {
    let w = World::new();
    let bad = w.dir.path().join("bad");
    write(
        &bad.join("SKILL.md"),
        "---\nname: bad\ndescription: Use: this\n---\n",
    );
    let out = w.run(&["validate", bad.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("mapping values are not allowed here\n  in \"<unicode string>\""),
        "{stdout}"
    );
}

#[test]
fn validate_checks_the_global_flags_it_is_given() {
    let w = World::new();
    let ok = w.dir.path().join("ok");
    skill(&ok, "ok", "fine", "body");
    let out = w.run(&["validate", ok.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for bad in [
        vec!["--set", "skills.enabled=3"],
        vec!["--set", "no-equals-sign"],
        vec!["--config", "/nonexistent/settings.json"],
    ] {
        let mut args = bad.clone();
        args.extend(["validate", ok.to_str().unwrap()]);
        let out = w.run(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        assert!(
            out.stdout.is_empty(),
            "{bad:?}: no verdict after a bad flag"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn validate_names_a_folder_it_may_not_read() {
    use std::os::unix::fs::PermissionsExt;
    let w = World::new();
    let parent = w.dir.path().join("unread");
    let child = parent.join("u");
    skill(&child, "u", "u", "body");
    std::fs::set_permissions(&child, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads anything: run as nobody then (util-linux's setpriv), as a
    // user would be.
    let root = is_root();
    let mut cmd = match root {
        true => {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(env!("CARGO_BIN_EXE_skillpipe"));
            c
        }
        false => Command::new(env!("CARGO_BIN_EXE_skillpipe")),
    };
    for p in [w.dir.path(), parent.as_path()] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = cmd
        .env_clear()
        .arg("validate")
        .arg(&parent)
        .output()
        .unwrap();
    std::fs::set_permissions(&child, std::fs::Permissions::from_mode(0o755)).unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("Permission denied"), "{stdout}");
    assert!(!stdout.contains("Missing required file"), "{stdout}");
}

/// Whether this process runs as root (read from /proc, without libc).
#[cfg(target_os = "linux")]
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1).map(|u| u == "0"))
            .unwrap_or(false)
    })
}

#[test]
fn bidi_and_zero_width_characters_are_marked_in_every_text_command() {
    let w = World::new();
    let root = w.home.join(".claude/skills");
    write(
        &root.join("esc/SKILL.md"),
        "---\nname: \"esc\\u202egnp\"\ndescription: \"clear \\e]0;pwned\\a \\u202egnp.exe \\u200d zwj \\x9b31m c1\"\n---\nbody\n",
    );
    skill(
        &root.join("dir\u{202e}\u{200b}"),
        "plain-one",
        "plain",
        "body",
    );
    for args in [
        &["list"][..],
        &["list", "--all"],
        &["-v", "list"],
        &["-vv", "list"],
        &["commands"],
        &["commands", "--all"],
        &["explain", "plain-one"],
        &["list", "--deny-warnings"],
    ] {
        let out = w.run(args);
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let s = text(bytes);
            assert_eq!(
                raw_hidden(&s),
                Vec::<char>::new(),
                "{args:?} {stream}: {s:?}"
            );
        }
    }
    // JSON keeps the text exact.
    let out = w.run(&["list", "--json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"esc\u{202e}gnp"), "{names:?}");
}

#[test]
fn debug_log_lines_escape_what_they_quote() {
    let w = World::new();
    let (name, escaped) = hostile_name("d\u{1b}[2J\u{7}", "d\\u{1b}[2J\\u{7}");
    let dir = w.home.join(".claude/skills").join(name);
    skill(&dir, "logged", "d", "body");
    let out = w.run(&["-vv", "list"]);
    let stderr = text(&out.stderr);
    assert!(stderr.contains(escaped), "{stderr}");
    assert_eq!(raw_hidden(&stderr), Vec::<char>::new(), "{stderr:?}");
}

#[test]
fn resolve_errors_escape_what_the_url_decoded() {
    let w = World::new();
    skill(&w.home.join(".claude/skills/pdf"), "pdf", "PDF", "body");
    let out = w.run(&["resolve", "skill://pdf/%0aforged%1b"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr:?}");
    assert!(stderr.contains("\\u{a}forged\\u{1b}"), "{stderr}");
    let out = w.run(&["resolve", "skill://x%0aAvailable: all/y"]);
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        ["Unknown skill: x\\u{a}Available: all", "Available: pdf"],
        "{stderr:?}"
    );
    // `--json` carries the exact text.
    let out = w.run(&["resolve", "--json", "skill://x%0ay/z"]);
    let line: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert!(
        line["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Unknown skill: x\ny"),
        "{line}"
    );
}

#[cfg(unix)]
#[test]
fn a_backslash_is_part_of_a_file_name_on_unix() {
    let w = World::new();
    let dir = w.home.join(".claude/skills/pdf");
    skill(&dir, "pdf", "PDF", "body");
    write(&dir.join("back\\slash.md"), "bs\n");
    for url in ["skill://pdf/back\\slash.md", "skill://pdf/back%5cslash.md"] {
        let out = w.run(&["resolve", url]);
        assert_eq!(out.status.code(), Some(0), "{url}: {}", text(&out.stderr));
        assert_eq!(out.stdout, b"bs\n", "{url}");
    }
    // A `..` between backslashes is refused as on Windows (SPEC §10).
    let out = w.run(&["resolve", "skill://pdf/..\\..\\x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("Path traversal (..) is not allowed"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_address_always_means_the_copy_it_names() {
    let w = World::new();
    skill(
        &w.home.join(".claude/skills/review"),
        "review",
        "Claude review",
        "claude body",
    );
    skill(
        &w.home.join(".agents/skills/review"),
        "review",
        "Agents review",
        "agents body",
    );
    skill(
        &w.home.join(".codex/skills/lit"),
        "review@agents",
        "literal",
        "literal body",
    );
    let out = w.run(&["expand", "/skill:review@agents"]);
    let expanded = text(&out.stdout);
    assert!(expanded.contains("agents body"), "{expanded}");
    assert!(!expanded.contains("literal body"), "{expanded}");
    let out = w.run(&["resolve", "skill://review@agents/SKILL.md"]);
    assert!(text(&out.stdout).contains("agents body"));

    let out = w.run(&["commands", "--json", "--all"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = doc["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "a command listed twice: {names:?}"
    );
    // The literal skill keeps an address of its own, and it leads there.
    let own = names
        .iter()
        .find(|n| n.starts_with("skill:review@agents@"))
        .unwrap_or_else(|| panic!("{names:?}"));
    let out = w.run(&["expand", &format!("/{own}")]);
    assert!(text(&out.stdout).contains("literal body"), "{own}");
    // Every listed command expands to the copy it lists.
    for c in doc["commands"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let out = w.run(&["expand", &format!("/{name}")]);
        let description = c["description"].as_str().unwrap();
        let body = match description {
            "Claude review" => "claude body",
            "Agents review" => "agents body",
            _ => "literal body",
        };
        assert!(
            text(&out.stdout).contains(body),
            "{name} → {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn did_you_mean_ignores_words_far_longer_than_a_name() {
    let w = World::new();
    let huge = "a".repeat(200_000);
    skill(&w.home.join(".claude/skills/long"), &huge, "d", "body");
    skill(
        &w.home.join(".claude/skills/debugging"),
        "systematic-debugging",
        "d",
        "body",
    );
    let query = "ab".repeat(5_000);
    // No timing is asserted; before the bound each of these took seconds
    // (minutes for larger inputs) in Jaro-Winkler.
    let out = w.run(&["expand", &format!("/skill:{query}")]);
    assert_eq!(out.status.code(), Some(0));
    let out = w.run(&["explain", &query]);
    assert!(!text(&out.stderr).contains("did you mean"));
    // A near name is still suggested.
    let out = w.run(&["expand", "/skill:systematic-debuging"]);
    assert!(
        text(&out.stderr).contains("did you mean \"systematic-debugging\""),
        "{}",
        text(&out.stderr)
    );
}
