//! Why a skill is missing (issue 12, items 1–3): `explain NAME`, `list`
//! naming a collision's winner, `list --all`, and `-v`/`-vv`, as the
//! `skillpipe` binary shows them on a generated home.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

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

    fn run_env(&self, env: &[(&str, &str)], args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_skillpipe"))
            .env_clear()
            .env("HOME", &self.home)
            .envs(env.iter().copied())
            .args(["--profile", "musepi", "--home"])
            .arg(&self.home)
            .arg("--cwd")
            .arg(&self.project)
            .args(args)
            .output()
            .unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_env(&[], args)
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill(dir: &Path, name: &str, body: &str) {
    write(
        &dir.join(name).join("SKILL.md"),
        &format!("---\nname: {name}\ndescription: The {name} skill.\n---\n{body}\n"),
    );
}

/// What the binary printed, with Windows' `\\` in paths shown as `/`:
/// these tests are about the wording, and the paths they look for are
/// written once, with `/` (the text has no other backslash).
fn stdout(out: &Output) -> String {
    unslash(String::from_utf8(out.stdout.clone()).unwrap())
}

fn stderr(out: &Output) -> String {
    unslash(String::from_utf8(out.stderr.clone()).unwrap())
}

fn unslash(text: String) -> String {
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text
    }
}

/// A path as [`stdout`] shows it.
fn shown(path: &Path) -> String {
    unslash(path.display().to_string())
}

/// Whether the world's `lint` is reached twice: the second way is a
/// symbolic link, which Windows lets only a privileged user (or developer
/// mode) make, so the tests make it on Unix only.
const LINKED: bool = cfg!(unix);

fn json(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A home with one of each fate:
/// - `review`: native (user) wins, claude's copy (other bytes) is shadowed;
/// - `tmp-notes`: removed by `skills.ignoredSkills` from the user file;
/// - `codex-only`: in `~/.codex/skills`, switched off by `--set
///   skills.enableCodexUser=false` (see [`OFF`]);
/// - `gh-skill`: in the project's `.github/skills`, its provider in
///   `disabledProviders` (see [`OFF`]);
/// - `lint`: the same real file reached twice (`~/.agents/skills/lint` a
///   symlink to claude's folder);
/// - `broken`: not a skill (bad YAML).
fn world() -> World {
    let w = World::new();
    let claude = w.home.join(".claude/skills");
    skill(
        &w.home.join(".musepi/agent/skills"),
        "review",
        "native body",
    );
    skill(&claude, "review", "claude body");
    skill(&claude, "tmp-notes", "notes");
    skill(&claude, "lint", "lint body");
    write(
        &claude.join("broken/SKILL.md"),
        "---\nname: broken\ndescription: [unclosed\n  : x: y\n---\nbody\n",
    );
    skill(&w.home.join(".codex/skills"), "codex-only", "codex body");
    skill(&w.project.join(".github/skills"), "gh-skill", "gh body");
    std::fs::create_dir_all(w.home.join(".agents/skills")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(claude.join("lint"), w.home.join(".agents/skills/lint")).unwrap();
    write(
        &w.home.join(".musepi/agent/settings.json"),
        r#"{"skills": {"ignoredSkills": ["tmp-*"]}}"#,
    );
    w
}

/// The settings that switch `codex-only` and `gh-skill` off.
const OFF: [&str; 4] = [
    "--set",
    "skills.enableCodexUser=false",
    "--set",
    "disabledProviders=[\"github\"]",
];

fn with_off<'a>(args: &[&'a str]) -> Vec<&'a str> {
    OFF.iter().copied().chain(args.iter().copied()).collect()
}

#[test]
fn a_collision_row_names_the_winner_and_why() {
    let w = world();
    let out = w.run(&with_off(&["list"]));
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains("[collision]"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(".claude/skills/review/SKILL.md: name \"review\" collision; kept by native/user (providers pass, priority "),
        "{line}"
    );
    assert!(
        line.contains(".musepi/agent/skills/review/SKILL.md: native comes first in the pipeline"),
        "{line}"
    );
    // Without --all, nothing that did not load is listed.
    assert!(!text.contains("tmp-notes"), "{text}");
    assert!(!text.contains("not loaded"), "{text}");
}

#[test]
fn list_all_adds_each_skill_that_did_not_load_with_its_fate() {
    let w = world();
    let text = stdout(&w.run(&with_off(&["list", "--all"])));
    let row = |name: &str, flag: &str| {
        text.lines()
            .any(|l| l.starts_with(&format!("{name} ")) && l.trim_end().ends_with(flag))
    };
    assert!(row("review", "shadowed"), "{text}");
    assert!(row("tmp-notes", "removed"), "{text}");
    assert!(row("codex-only", "switched-off"), "{text}");
    assert!(row("gh-skill", "switched-off"), "{text}");
    assert_eq!(row("lint", "same-real-path"), LINKED, "{text}");
    let not_loaded = if LINKED { 5 } else { 4 };
    assert!(
        text.contains(&format!("2 skills, {not_loaded} not loaded")),
        "{text}"
    );
    assert!(
        text.contains("tmp-notes: ")
            && text.contains("removed by skills.ignoredSkills \"tmp-*\" (from "),
        "{text}"
    );
    assert!(
        text.contains("source switched off by skills.enableCodexUser = false (from --set"),
        "{text}"
    );
    assert!(
        text.contains("source switched off by disabledProviders \"github\""),
        "{text}"
    );

    // JSON: a "removed" array beside "skills", the skill's fields and its
    // fate; the rest of the document as without --all.
    let all = json(&w.run(&with_off(&["list", "--all", "--json"])));
    let plain = json(&w.run(&with_off(&["list", "--json"])));
    assert!(plain.get("removed").is_none());
    assert_eq!(all["skills"], plain["skills"]);
    assert_eq!(all["diagnostics"], plain["diagnostics"]);
    let removed = all["removed"].as_array().unwrap();
    let fate = |name: &str| {
        removed
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name}: {removed:#?}"))
    };
    assert_eq!(fate("review")["fate"], "shadowed");
    assert_eq!(fate("review")["by"]["provider"], "native");
    assert_eq!(fate("review")["source"]["provider"], "claude");
    assert!(fate("review")["description"].is_string());
    assert_eq!(fate("tmp-notes")["fate"], "removed");
    assert_eq!(fate("tmp-notes")["setting"], "skills.ignoredSkills");
    assert!(
        fate("tmp-notes")["layer"]
            .as_str()
            .unwrap()
            .ends_with("settings.json")
    );
    assert_eq!(fate("codex-only")["fate"], "switched-off");
    if LINKED {
        assert_eq!(fate("lint")["fate"], "same-real-path");
    }
    assert_eq!(removed.len(), if LINKED { 5 } else { 4 });
    // Each reason typed beside its rendering: a host reads `reason`, never
    // the text.
    assert_eq!(
        fate("tmp-notes")["reason"],
        serde_json::json!({"kind": "ignored", "glob": "tmp-*"})
    );
    assert_eq!(
        fate("codex-only")["reason"],
        serde_json::json!({"kind": "toggle", "keys": ["enableCodexUser"]})
    );
    assert_eq!(
        fate("gh-skill")["reason"],
        serde_json::json!({"kind": "disabled-provider", "provider": "github"})
    );
    assert_eq!(fate("gh-skill")["setting"], "disabledProviders \"github\"");
}

#[test]
fn explain_tells_each_fate() {
    let w = world();
    let explain = |name: &str| {
        let out = w.run(&with_off(&["explain", name]));
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        stdout(&out)
    };
    // Shadowed: both files, in pipeline order, the winner first.
    let review = explain("review");
    assert!(review.starts_with("review: 2 files claim it"), "{review}");
    let native = review.find(".musepi/agent/skills/review/SKILL.md (native/user)\n   loaded");
    let claude = review.find(
        ".claude/skills/review/SKILL.md (claude/user)\n   shadowed by native/user (priority ",
    );
    assert!(
        native.is_some() && claude.is_some() && native < claude,
        "{review}"
    );
    // Filtered, with the layer that set the filter.
    let notes = explain("tmp-notes");
    assert!(
        notes.contains("removed by skills.ignoredSkills \"tmp-*\" (from "),
        "{notes}"
    );
    assert!(notes.contains(".musepi/agent/settings.json)"), "{notes}");
    // Switched off: a toggle, and disabledProviders.
    let codex = explain("codex-only");
    assert!(
        codex.contains(
            "(codex/user)\n   source switched off by skills.enableCodexUser = false (from --set"
        ),
        "{codex}"
    );
    let gh = explain("gh-skill");
    assert!(
        gh.contains("(github/project)\n   source switched off by disabledProviders \"github\""),
        "{gh}"
    );
    // An untrusted project's skills, when only trusted projects' load.
    let out = w.run(&[
        "--set",
        "skills.projectSkills=\"trusted\"",
        "explain",
        "gh-skill",
    ]);
    assert!(
        stdout(&out).contains("source switched off by skills.projectSkills = \"trusted\" ("),
        "{}",
        stdout(&out)
    );
    // The same file twice, and a file that is not a skill.
    let lint = explain("lint");
    assert_eq!(
        lint.contains("same real path as claude/user"),
        LINKED,
        "{lint}"
    );
    let broken = explain("broken");
    assert!(
        broken.contains("not a skill\n     error[yaml-error]"),
        "{broken}"
    );

    // JSON: the fate's kind and fields.
    let doc = json(&w.run(&with_off(&["explain", "review", "--json"])));
    let claims = doc["claims"].as_array().unwrap();
    assert_eq!(claims[0]["fate"], "loaded");
    assert_eq!(claims[0]["provider"], "native");
    assert_eq!(claims[1]["fate"], "shadowed");
    assert_eq!(claims[1]["by"]["provider"], "native");
    assert_eq!(claims[1]["by"]["pass"], "providers");
}

#[test]
fn explain_of_a_name_no_file_claims_exits_1_with_the_nearest() {
    let w = world();
    let out = w.run(&["explain", "reveiw"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("no file claims the skill name \"reveiw\"; did you mean \"review\"?"),
        "{}",
        stderr(&out)
    );
    // A filtered name is still claimed: it is near too.
    let out = w.run(&["explain", "tmp-note"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("did you mean \"tmp-notes\"?"));
}

#[test]
fn an_empty_list_says_where_it_looked() {
    let w = World::new();
    let text = stdout(&w.run(&["list"]));
    assert!(text.contains("0 skills"), "{text}");
    let roots = text
        .lines()
        .find_map(|l| l.strip_prefix("looked in "))
        .unwrap_or_else(|| panic!("{text}"));
    let n: usize = roots.split(' ').next().unwrap().parse().unwrap();
    assert!(n >= 5, "{text}");
    assert!(text.contains("`skillpipe providers` lists them"), "{text}");
}

#[test]
fn verbose_names_roots_and_filters_and_very_verbose_each_file() {
    let w = world();
    let out = w.run(&with_off(&["-v", "list"]));
    assert_eq!(out.status.code(), Some(0));
    let log = stderr(&out);
    let claude = w.home.join(".claude/skills");
    let line = log
        .lines()
        .find(|l| l.contains(&format!("path={}", shown(&claude))))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("provider{id=\"claude\"}"), "{line}");
    assert!(line.contains("scanned ("), "{line}");
    assert!(line.contains("files=4 skills=1"), "{line}");
    assert!(
        log.lines()
            .any(|l| l.contains("project/.claude/skills") && l.contains("missing (")),
        "{log}"
    );
    assert!(
        log.contains("provider=codex") && log.contains("off (skills.enableCodexUser = false)"),
        "{log}"
    );
    assert!(
        log.contains("provider=github") && log.contains("off (disabledProviders)"),
        "{log}"
    );
    assert!(
        log.contains("filter skills.ignoredSkills (1 entry): removed 1: tmp-notes\n"),
        "{log}"
    );
    // Without -v: none of it.
    assert!(stderr(&w.run(&with_off(&["list"]))).is_empty());
    // -vv: each file.
    let log = stderr(&w.run(&with_off(&["-vv", "list"])));
    assert!(
        log.lines()
            .any(|l| l.contains("tmp-notes/SKILL.md")
                && l.contains("removed by skills.ignoredSkills")),
        "{log}"
    );
    assert!(
        log.lines()
            .any(|l| l.contains("review/SKILL.md") && l.contains("loaded")),
        "{log}"
    );
    // SKILLPIPE_LOG takes a directive; RUST_LOG is not ours.
    let log = stderr(&w.run_env(&[("SKILLPIPE_LOG", "info")], &with_off(&["list"])));
    assert!(log.contains("filter skills.ignoredSkills"), "{log}");
    let log = stderr(&w.run_env(&[("RUST_LOG", "debug")], &with_off(&["list"])));
    assert!(log.is_empty(), "{log}");
}

/// Issue 23: `explain` says what a setting made of a loaded skill (its
/// visibility and the entry that gave it), that `user-invocable: false`
/// leaves no command, the skill's own warnings, and both directions of
/// `metadata.requires`; `list` flags them.
#[test]
fn explain_shows_visibility_no_command_and_both_directions_of_requires() {
    let w = World::new();
    let skills = w.home.join(".musepi/agent/skills");
    write(
        &skills.join("report/SKILL.md"),
        "---\nname: report\ndescription: Report.\nmetadata:\n  requires: [pdf, charts]\n---\nR\n",
    );
    write(
        &skills.join("pdf/SKILL.md"),
        "---\nname: pdf\ndescription: PDF.\nuser-invocable: false\n---\nP\n",
    );
    skill(&skills, "lint", "L");
    let settings = w.home.join(".musepi/agent/settings.json");
    write(
        &settings,
        r#"{"skills": {"visibility": {"l*": "name-only"}}}"#,
    );

    let text = stdout(&w.run(&["explain", "pdf"]));
    assert!(
        text.contains("   loaded (no slash command: user-invocable: false)\nrequired by: report\n"),
        "{text}"
    );
    let text = stdout(&w.run(&["explain", "report"]));
    assert!(
        text.contains(
            "   loaded\n     warning[missing-dependency] skill \"report\" requires \"charts\", which is not loaded\nrequires: pdf (loaded), charts (not loaded)\n"
        ),
        "{text}"
    );
    let text = stdout(&w.run(&["explain", "lint"]));
    let want = format!(
        "   loaded (name-only: skills.visibility \"l*\" (from {}))\n",
        shown(&settings)
    );
    assert!(text.contains(&want), "{text}");

    let doc = json(&w.run(&["explain", "report", "--json"]));
    assert_eq!(
        doc["requires"],
        serde_json::json!([{"name": "pdf", "loaded": true}, {"name": "charts", "loaded": false}])
    );
    assert_eq!(
        doc["claims"][0]["diagnostics"][0]["code"],
        "missing-dependency"
    );
    let doc = json(&w.run(&["explain", "lint", "--json"]));
    assert_eq!(doc["claims"][0]["visibility"], "name-only");
    assert_eq!(doc["claims"][0]["visibility_rule"]["pattern"], "l*");

    let list = stdout(&w.run(&["list"]));
    let flags = |name: &str| {
        list.lines()
            .find(|l| l.starts_with(name))
            .map(|l| l.split_whitespace().nth(3).unwrap_or("").to_owned())
    };
    assert_eq!(flags("lint").as_deref(), Some("name-only"), "{list}");
    assert_eq!(flags("pdf").as_deref(), Some("no-command"), "{list}");
}

/// A project's skill that trust switches off is explained with the trust
/// key as the profile spells it (musepi's `skills.projectSkills`, pi's
/// top-level `projectSkills`) and the settings file that set it: the key
/// names the layer it came from in both profiles.
#[test]
fn trust_is_explained_with_each_profiles_own_key_and_its_layer() {
    for (profile, app, settings, key) in [
        (
            "musepi",
            ".musepi",
            r#"{"skills": {"projectSkills": "trusted"}}"#,
            "skills.projectSkills",
        ),
        (
            "pi",
            ".pi",
            r#"{"projectSkills": "trusted"}"#,
            "projectSkills",
        ),
    ] {
        let w = World::new();
        let user_settings = w.home.join(app).join("agent/settings.json");
        write(&user_settings, settings);
        skill(&w.project.join(app).join("skills"), "proj-skill", "body");
        let explain = |args: &[&str]| {
            Command::new(env!("CARGO_BIN_EXE_skillpipe"))
                .env_clear()
                .env("HOME", &w.home)
                .args(["--profile", profile, "--home"])
                .arg(&w.home)
                .arg("--cwd")
                .arg(&w.project)
                .args(["explain", "proj-skill"])
                .args(args)
                .output()
                .unwrap()
        };
        let text = stdout(&explain(&[]));
        assert!(
            text.contains(&format!("source switched off by {key} = \"trusted\" (")),
            "{profile}: {text}"
        );
        // The layer is found by the key: the user's settings file.
        assert!(
            text.contains("(from ") && text.contains("settings.json"),
            "{profile}: {text}"
        );
        let doc = json(&explain(&["--json"]));
        let claim = doc["claims"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["fate"] == "switched-off"))
            .unwrap_or_else(|| panic!("{profile}: {doc:#}"));
        assert_eq!(claim["reason"]["kind"], "untrusted-project", "{profile}");
        assert_eq!(
            claim["reason"]["project"].as_str().map(Path::new),
            Some(w.project.as_path()),
            "{profile}"
        );
        assert!(
            claim["setting"]
                .as_str()
                .is_some_and(|s| s.starts_with(&format!("{key} = \"trusted\""))),
            "{profile}: {doc:#}"
        );
        assert!(
            claim["layer"]
                .as_str()
                .is_some_and(|l| l.ends_with("settings.json")),
            "{profile}: {doc:#}"
        );
    }
}
