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

/// `p` as the binary prints it: the platform's separator between every
/// name (on Windows `a\b\c` for the `a\b/c` that joining `b/c` gives).
fn native(p: impl AsRef<Path>) -> PathBuf {
    p.as_ref().components().collect()
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
    // A path with an escape, in a diagnostic on the terminal (Unix: a
    // Windows file name holds no control character).
    if cfg!(unix) {
        skill(&w.home.join(".claude/skills/\x1b]0;title\x07"), "x", "y");
        let out = stdout(&w.run(&["list"]));
        assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
        assert!(out.contains("\\u{1b}]0;title\\u{7}"), "{out}");
    }
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
    // As skillpipe shows a project: canonical, and on Windows without the
    // verbatim `\\?\` that canonicalize adds.
    let canon = w.project.canonicalize().unwrap().display().to_string();
    let canon = canon
        .strip_prefix(r"\\?\")
        .map_or(canon.clone(), str::to_owned);

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
            native(&settings).display()
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

// ---- issue 12: the CLI tells you why --------------------------------------

fn code(out: &Output) -> Option<i32> {
    out.status.code()
}

#[test]
fn expand_notes_say_why_a_text_was_left_as_typed() {
    let w = World::new();
    skill(&w.home.join(".claude/skills/pdf"), "pdf", "PDF.");
    let hidden = w.home.join(".claude/skills/hidden");
    std::fs::create_dir_all(&hidden).unwrap();
    std::fs::write(
        hidden.join("SKILL.md"),
        "---\nname: hidden\ndescription: H.\nuser-invocable: false\n---\nbody\n",
    )
    .unwrap();
    let out = w.run(&["expand", "/skill:hidden now"]);
    assert_eq!(stdout(&out), "/skill:hidden now");
    assert_eq!(
        stderr(&out),
        "note: skill \"hidden\" is not user-invocable (user-invocable: false): the text is left as typed\n"
    );
    // musepi's switch leaves every command as typed, whatever its name.
    for text in ["/skill:pdf x", "/skill:nothing"] {
        let off = ["--set", "skills.enableSkillCommands=false", "expand", text];
        let out = w.run(&off);
        assert_eq!(stdout(&out), text);
        assert!(
            stderr(&out).contains("note: skill commands are off"),
            "{}",
            stderr(&out)
        );
    }
    // A text that is no command, or names nothing, has no note.
    for text in ["hello", "/skill:", "/skill: pdf"] {
        let out = w.run(&["expand", text]);
        assert_eq!(
            (stdout(&out), stderr(&out)),
            (text.to_owned(), String::new())
        );
    }
}

#[test]
fn unknown_names_suggest_the_nearest_one() {
    let w = World::new();
    skill(
        &w.home.join(".claude/skills/systematic-debugging"),
        "systematic-debugging",
        "Debug.",
    );
    // expand: the text as typed on stdout, a note on stderr, exit 0.
    let out = w.run(&["expand", "/skill:systematic-debuging x"]);
    assert_eq!(code(&out), Some(0));
    assert_eq!(stdout(&out), "/skill:systematic-debuging x");
    assert!(
        stderr(&out).contains(
            "note: no skill named \"systematic-debuging\"; did you mean \"systematic-debugging\"?"
        ),
        "{}",
        stderr(&out)
    );
    // A name nothing is near: a note without a guess; a known name: none.
    let out = w.run(&["expand", "/skill:zzz"]);
    assert!(
        stderr(&out).contains("no skill named \"zzz\" ("),
        "{}",
        stderr(&out)
    );
    let out = w.run(&["expand", "/skill:systematic-debugging"]);
    assert_eq!(stderr(&out), "");
    // resolve: SPEC 10's two lines, then the guess.
    let out = w.run(&["resolve", "skill://systematic-debuging"]);
    assert_eq!(code(&out), Some(1));
    assert_eq!(
        stderr(&out),
        "Unknown skill: systematic-debuging\nAvailable: systematic-debugging\nDid you mean: systematic-debugging\n"
    );
    // An unknown settings key names the nearest known one.
    let out = w.run(&["--set", "skills.enableClaudUser=false", "list"]);
    assert_eq!(code(&out), Some(0));
    assert!(
        stderr(&out).contains("(did you mean skills.enableClaudeUser?)"),
        "{}",
        stderr(&out)
    );
    // disabledProviders: an id that is no provider is an unknown-provider warning.
    let list = json(&w.run(&["--set", r#"disabledProviders=["claud"]"#, "list", "--json"]));
    let d = &list["diagnostics"][0];
    assert_eq!(d["code"], "unknown-provider");
    assert_eq!(d["severity"], "warning");
    let message = d["message"].as_str().unwrap();
    assert!(
        message.contains("\"claud\"") && message.contains("did you mean \"claude\""),
        "{message}"
    );
    // A real id is no warning (and does what it says).
    let list = json(&w.run(&["--set", r#"disabledProviders=["claude"]"#, "list", "--json"]));
    assert_eq!(list["diagnostics"], serde_json::json!([]));
    assert_eq!(list["skills"], serde_json::json!([]));
}

#[test]
fn explicit_input_that_is_not_there_is_an_error() {
    let w = World::new();
    let none = w.home.join("none");
    for flag in ["--cwd", "--home"] {
        let out = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
            .env_clear()
            .env("HOME", &w.home)
            .arg(flag)
            .arg(&none)
            .arg("list")
            .output()
            .unwrap();
        assert_eq!(code(&out), Some(2), "{flag}");
        assert_eq!(
            stderr(&out),
            format!("error: {flag} {}: no such directory\n", none.display())
        );
        assert_eq!(stdout(&out), "");
    }
    // A --plugin that cannot load: exit 2 with the loader's reason.
    let not_a_lib = w
        .home
        .join(format!("notes{}", std::env::consts::DLL_SUFFIX));
    std::fs::write(&not_a_lib, "plain text").unwrap();
    let out = w
        .cmd()
        .arg("--plugin")
        .arg(&not_a_lib)
        .arg("list")
        .output()
        .unwrap();
    assert_eq!(code(&out), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "error: --plugin {}: cannot load the plugin library\n",
            not_a_lib.display()
        )),
        "{err}"
    );
    assert!(
        err.lines().count() >= 2,
        "the loader's own reason follows: {err}"
    );
    let out = w.run(&["--plugin", "/no/such/lib.so", "list"]);
    assert_eq!(code(&out), Some(2));
    assert!(
        stderr(&out).contains("plugin library not found"),
        "{}",
        stderr(&out)
    );
    // The same library named by the settings stays a plugin-error diagnostic.
    let agent = w.home.join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        format!(
            r#"{{"plugins": {{"paths": [{:?}]}}}}"#,
            not_a_lib.display().to_string()
        ),
    )
    .unwrap();
    let list = json(&w.run(&["list", "--json"]));
    assert_eq!(list["diagnostics"][0]["code"], "plugin-error");
}

#[test]
fn skill_paths_are_the_shells_and_one_skill_folder_is_one_skill() {
    let w = World::new();
    let shell_dir = w.home.join("shell");
    skill(&shell_dir.join("kit/one"), "one", "One skill.");
    skill(&shell_dir.join("lib/two"), "two", "In a folder of skills.");
    for profile in ["musepi", "pi"] {
        // Run from `shell_dir`, with --cwd elsewhere: relative to the shell.
        let out = w
            .cmd()
            .current_dir(&shell_dir)
            .args([
                "--profile",
                profile,
                "--skill",
                "kit/one",
                "--skill",
                "lib",
                "--skill",
                "gone",
            ])
            .args(["list", "--json"])
            .output()
            .unwrap();
        let list = json(&out);
        let names: Vec<&str> = list["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["one", "two"], "{profile}: {list}");
        let one = &list["skills"][0];
        assert_eq!(
            one["base_dir"],
            native(shell_dir.join("kit/one")).display().to_string(),
            "{profile}"
        );
        let diags = list["diagnostics"].as_array().unwrap();
        assert_eq!(diags.len(), 1, "{profile}: {list}");
        assert_eq!(diags[0]["code"], "path-not-found", "{profile}");
        assert_eq!(diags[0]["message"], "skill path does not exist");
        assert_eq!(
            diags[0]["path"],
            shell_dir.join("gone").display().to_string()
        );
    }
}

#[test]
fn a_closed_stdout_ends_quietly_and_a_full_one_fails() {
    let w = World::new();
    for i in 0..300 {
        skill(
            &w.home.join(format!(".claude/skills/s{i}")),
            &format!("s{i}"),
            "A skill with enough description to fill a pipe buffer quickly.",
        );
    }
    for args in [
        &["list", "--json"][..],
        &["list"][..],
        &["completions", "bash"][..],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = w.cmd().args(args).stdout(writer).output().unwrap();
        assert_eq!(code(&out), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    #[cfg(target_os = "linux")]
    {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = w.cmd().arg("list").stdout(full).output().unwrap();
        assert_eq!(code(&out), Some(1));
        assert!(
            stderr(&out).starts_with("error: cannot write the output:"),
            "{}",
            stderr(&out)
        );
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = w
            .cmd()
            .args(["list", "--json"])
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(code(&out), Some(1));
        let doc: Value = serde_json::from_str(stderr(&out).trim()).unwrap();
        assert_eq!(doc["error"]["code"], "output");
    }
}

#[test]
fn colour_follows_the_flag_and_never_touches_json() {
    let w = World::new();
    skill(&w.home.join(".claude/skills/ok"), "ok", "Fine.");
    skill(
        &w.home.join(".claude/skills/bad"),
        "other-name",
        "Mismatch.",
    );
    let never = w.run(&["--color", "never", "list"]);
    assert!(!stdout(&never).contains('\x1b'), "{:?}", stdout(&never));
    assert!(stdout(&never).contains("warning[name-mismatch]"));
    let always = w.run(&["list", "--color=always"]);
    let text = stdout(&always);
    assert!(
        text.contains("\x1b[1m\x1b[33mwarning\x1b[0m[name-mismatch]"),
        "{text:?}"
    );
    assert!(text.starts_with("\x1b[1mNAME"), "{text:?}");
    // Stderr too; and piped with auto, none.
    let always = w.run(&["--color", "always", "--set", "skills.x=1", "list"]);
    assert!(
        stderr(&always).starts_with("\x1b[1m\x1b[33mwarning\x1b[0m: unknown-setting"),
        "{:?}",
        stderr(&always)
    );
    let auto = w.run(&["--set", "skills.x=1", "list"]);
    assert!(!stdout(&auto).contains('\x1b') && !stderr(&auto).contains('\x1b'));
    // CLICOLOR_FORCE forces it when piped; JSON is never styled.
    let forced = w
        .cmd()
        .env("CLICOLOR_FORCE", "1")
        .arg("list")
        .output()
        .unwrap();
    assert!(stdout(&forced).contains('\x1b'));
    let json_out = w.run(&["--color", "always", "list", "--json"]);
    assert!(!stdout(&json_out).contains('\x1b'));
}

#[test]
fn json_errors_are_json_with_the_same_exit_codes() {
    let w = World::new();
    let parse = |out: &Output| -> Value {
        assert_eq!(stdout(out), "", "stdout stays empty (SPEC 12)");
        serde_json::from_str(stderr(out).trim()).unwrap_or_else(|e| panic!("{e}: {}", stderr(out)))
    };
    let out = w.run(&["--set", "skills.enabled=3", "list", "--json"]);
    assert_eq!(code(&out), Some(2));
    let doc = parse(&out);
    assert_eq!(doc["error"]["code"], "settings");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("skills.enabled")
    );
    let out = w.run(&["resolve", "skill://nope", "--json"]);
    assert_eq!(code(&out), Some(1));
    let doc = parse(&out);
    assert_eq!(doc["error"]["code"], "unknown-skill");
    assert_eq!(
        doc["error"]["message"],
        "Unknown skill: nope\nAvailable: none"
    );
    let out = w.run(&["list", "--json", "--bogus"]);
    assert_eq!(code(&out), Some(2));
    assert_eq!(parse(&out)["error"]["code"], "usage");
    let out = Command::new(env!("CARGO_BIN_EXE_skillpipe"))
        .args([
            "--home",
            "/",
            "--cwd",
            "/no/such/dir",
            "providers",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), Some(2));
    assert_eq!(parse(&out)["error"]["code"], "input");
    // Without --json: the text.
    let out = w.run(&["--set", "skills.enabled=3", "list"]);
    assert!(
        stderr(&out).starts_with("error: setting `skills.enabled`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn completions_and_help_follow_the_conventions() {
    let w = World::new();
    for (shell, marker) in [
        ("bash", "_skillpipe()"),
        ("zsh", "#compdef skillpipe"),
        ("fish", "complete -c skillpipe"),
    ] {
        let out = w.run(&["completions", shell]);
        assert_eq!(code(&out), Some(0), "{shell}");
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}");
        assert!(
            script.contains("validate") && script.contains("profile"),
            "{shell}"
        );
    }
    assert_eq!(code(&w.run(&["completions", "tcsh"])), Some(2));
    // A command's own flags come before the global ones, and one example.
    let help = stdout(&w.run(&["list", "--help"]));
    let own = help.find("--deny-warnings").unwrap();
    let global = help.find("Global options:").unwrap();
    assert!(own < global, "{help}");
    assert!(help.contains("Example:\n  skillpipe list --json"), "{help}");
    assert!(help.contains("[possible values: musepi, pi]"), "{help}");
    let out = w.run(&["--profile", "pie", "list"]);
    assert_eq!(code(&out), Some(2));
    assert!(
        stderr(&out).contains("possible values: musepi, pi"),
        "{}",
        stderr(&out)
    );
    // The man page.
    let dir = w.home.join("man");
    let out = w.cmd().arg("man").arg(&dir).output().unwrap();
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let page = std::fs::read_to_string(dir.join("skillpipe.1")).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH skillpipe"),
        "{}",
        &page[..200]
    );
    assert!(
        page.contains("completions") && page.contains("\\-\\-color"),
        "{page}"
    );
}

#[test]
fn validate_a_folder_of_skills_with_a_summary() {
    let w = World::new();
    let dir = w.home.join("skills");
    for name in ["alpha", "beta", "gamma"] {
        skill(&dir.join(name), name, "A valid skill.");
    }
    skill(&dir.join("Bad_Name"), "Bad_Name", "Invalid name.");
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let out = w.cmd().arg("validate").arg(&dir).output().unwrap();
    assert_eq!(code(&out), Some(1));
    let text = stdout(&out);
    assert!(text.ends_with("3 valid, 1 failed\n"), "{text}");
    assert!(text.contains(&format!("Valid skill: {}", dir.join("alpha").display())));
    assert!(text.contains(&format!(
        "Validation failed for {}:",
        dir.join("Bad_Name").display()
    )));
    assert!(!text.contains("assets"), "{text}");
    let doc = json(
        &w.cmd()
            .arg("validate")
            .arg(dir.join("alpha"))
            .arg("--json")
            .output()
            .unwrap(),
    );
    assert!(
        doc.get("summary").is_none(),
        "a skill folder is no folder of skills"
    );
    let out = w
        .cmd()
        .args(["validate", "--json"])
        .arg(&dir)
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"], serde_json::json!({"valid": 3, "failed": 1}));
    assert_eq!(doc["results"].as_array().unwrap().len(), 4);
    // All valid: exit 0.
    std::fs::remove_dir_all(dir.join("Bad_Name")).unwrap();
    let out = w.cmd().arg("validate").arg(&dir).output().unwrap();
    assert_eq!(code(&out), Some(0));
    assert!(stdout(&out).ends_with("3 valid, 0 failed\n"));
}

#[test]
fn settings_show_each_value_with_its_layer() {
    let w = World::new();
    let agent = w.home.join(".musepi/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"skills": {"enableCodexUser": false}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(w.project.join(".musepi")).unwrap();
    std::fs::write(
        w.project.join(".musepi/settings.toml"),
        "[skills]\nignoredSkills = [\"tmp-*\"]\n",
    )
    .unwrap();
    let out = w
        .cmd()
        .env("SKILLPIPE_SKILLS__ENABLED", "false")
        .args(["--set", "scan.max_depth=5", "settings", "--json"])
        .output()
        .unwrap();
    let doc = json(&out);
    assert_eq!(doc["profile"], "musepi");
    let of = |key: &str| -> Value {
        doc["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .cloned()
            .unwrap_or_else(|| panic!("{key}: {doc}"))
    };
    assert_eq!(of("skills.enableCodexUser")["value"], false);
    assert_eq!(of("skills.enableCodexUser")["origin"]["layer"], "user");
    assert_eq!(
        of("skills.enableCodexUser")["origin"]["file"],
        native(agent.join("settings.json")).display().to_string()
    );
    assert_eq!(of("skills.ignoredSkills")["origin"]["layer"], "project");
    assert_eq!(of("skills.enabled")["origin"]["layer"], "env");
    assert_eq!(
        of("skills.enabled")["origin"]["name"],
        "environment variable SKILLPIPE_SKILLS__ENABLED"
    );
    assert_eq!(of("scan.max_depth")["value"], 5);
    assert_eq!(of("scan.max_depth")["origin"]["layer"], "set");
    assert_eq!(of("scan.max_dirs")["origin"]["layer"], "default");
    assert_eq!(of("skills.includeSkills")["origin"]["layer"], "profile");
    let files: Vec<(String, bool)> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["layer"].as_str().unwrap().to_owned(),
                f["exists"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        files,
        [
            ("user".into(), true),
            ("user".into(), false),
            ("project".into(), true)
        ]
    );
    // The text: the files, then KEY VALUE FROM.
    let text = stdout(&w.run(&["settings"]));
    assert!(
        text.contains(&format!(
            "user settings: {} (found)",
            native(agent.join("settings.json")).display()
        )),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("skills.enableCodexUser")
            && l.contains("false")
            && l.ends_with(&format!(
                "user file {}",
                native(agent.join("settings.json")).display()
            ))),
        "{text}"
    );
}
