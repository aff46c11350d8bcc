//! Every copy of a name (`name@provider[:level]` in `expand`, `resolve`
//! and `commands`), identical copies quiet, and the catalogue budget, as
//! the `skillpipe` binary shows them, in both profiles (issue 14).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    profile: &'static str,
}

impl World {
    fn new(profile: &'static str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        World {
            _dir: dir,
            home,
            project,
            profile,
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_skillpipe"))
            .env_clear()
            .env("HOME", &self.home)
            .args(["--profile", self.profile, "--home"])
            .arg(&self.home)
            .arg("--cwd")
            .arg(&self.project)
            .args(args)
            .output()
            .unwrap()
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n{body}\n")
}

fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

fn codes(list: &Value) -> Vec<String> {
    list["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

/// musepi: `review` from native (user, the winner), claude (user) and
/// claude (project), each with other bytes and a `ref.md` of its own.
fn musepi_reviews() -> World {
    let w = World::new("musepi");
    for (dir, who) in [
        (w.home.join(".musepi/agent/skills/review"), "native"),
        (w.home.join(".claude/skills/review"), "claude-user"),
        (w.project.join(".claude/skills/review"), "claude-project"),
    ] {
        write(
            &dir.join("SKILL.md"),
            &skill_md(
                "review",
                &format!("The {who} review."),
                &format!("{who} body"),
            ),
        );
        write(&dir.join("ref.md"), &format!("{who} ref"));
    }
    w
}

#[test]
fn expand_reaches_each_copy_by_provider_and_level() {
    let w = musepi_reviews();
    let text = |t: &str| stdout(&w.run(&["expand", t]));
    assert!(text("/skill:review now").starts_with("native body"));
    assert!(text("/skill:review@native now").starts_with("native body"));
    let claude = text("/skill:review@claude now");
    assert!(claude.starts_with("claude-user body"), "{claude}");
    assert!(
        claude.ends_with(&format!(
            "{}\nUser: now",
            [".claude", "skills", "review", "SKILL.md"].join(std::path::MAIN_SEPARATOR_STR)
        )),
        "{claude}"
    );
    assert!(text("/skill:review@claude:user now").starts_with("claude-user body"));
    assert!(text("/skill:review@claude:project now").starts_with("claude-project body"));

    // No such copy: the text unchanged, and the copies there are named.
    let out = w.run(&["expand", "/skill:review@codex now", "--json"]);
    let v = json(&out);
    assert_eq!(v["expanded"], false);
    assert_eq!(v["text"], "/skill:review@codex now");
    assert_eq!(v["diagnostics"][0]["code"], "unknown-skill");
    let message = v["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("review@native, review@claude, review@claude:project"),
        "{message}"
    );
    let out = w.run(&["expand", "/skill:review@claude:path now"]);
    assert_eq!(stdout(&out), "/skill:review@claude:path now");
    assert!(stderr(&out).contains("unknown-skill"), "{}", stderr(&out));
    // An unknown name is what it was: no copy to name.
    let out = w.run(&["expand", "/skill:nothing@claude now"]);
    assert_eq!(stdout(&out), "/skill:nothing@claude now");
    assert!(!stderr(&out).contains("unknown-skill"), "{}", stderr(&out));
}

#[test]
fn resolve_reads_a_shadowed_copy_inside_its_own_folder() {
    let w = musepi_reviews();
    let read = |url: &str| w.run(&["resolve", url]);
    assert_eq!(stdout(&read("skill://review/ref.md")), "native ref");
    assert_eq!(
        stdout(&read("skill://review@claude/ref.md")),
        "claude-user ref"
    );
    assert_eq!(
        stdout(&read("skill://review%40claude:project/ref.md")),
        "claude-project ref"
    );
    assert!(stdout(&read("skill://review@claude:project")).starts_with("---\nname: review"));
    // The guards of SPEC §10, against the copy's own base dir.
    let dotdot = read("skill://review@claude/../review/ref.md");
    assert_eq!(dotdot.status.code(), Some(1));
    assert!(
        stderr(&dotdot).contains("Path traversal (..)"),
        "{}",
        stderr(&dotdot)
    );
    #[cfg(unix)]
    {
        let dir = w.home.join(".claude/skills/review");
        std::os::unix::fs::symlink(
            w.home.join(".musepi/agent/skills/review/ref.md"),
            dir.join("out.md"),
        )
        .unwrap();
        let escape = read("skill://review@claude/out.md");
        assert_eq!(escape.status.code(), Some(1));
        assert!(
            stderr(&escape).contains("Path traversal is not allowed"),
            "{}",
            stderr(&escape)
        );
    }
    let unknown = read("skill://review@opencode/ref.md");
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        stderr(&unknown).starts_with(
            "Unknown skill: review@opencode\nAvailable: review@native, review@claude, review@claude:project\n"
        ),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn commands_list_shadowed_copies_only_when_asked() {
    let w = musepi_reviews();
    let plain = json(&w.run(&["commands", "--json"]));
    let plain = plain["commands"].as_array().unwrap();
    assert_eq!(plain.len(), 1);
    assert!(plain[0].get("shadowed").is_none(), "{plain:?}");
    let all = json(&w.run(&["commands", "--json", "--all"]));
    let names: Vec<&str> = all["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "skill:review",
            "skill:review@claude",
            "skill:review@claude:project"
        ]
    );
    let shadowed = &all["commands"][2];
    assert_eq!(shadowed["shadowed"], true);
    assert_eq!(shadowed["address"], "review@claude:project");
    assert_eq!(shadowed["skill"], "review");
    assert_eq!(shadowed["description"], "The claude-project review.");
    assert_eq!(shadowed["source"]["level"], "project");
    let text = stdout(&w.run(&["commands", "--all"]));
    assert!(
        text.contains("/skill:review@claude\tThe claude-user review."),
        "{text}"
    );
}

#[test]
fn pi_addresses_its_sources() {
    let w = World::new("pi");
    write(
        &w.home.join(".pi/agent/skills/review/SKILL.md"),
        &skill_md("review", "User review.", "user body"),
    );
    write(
        &w.project.join(".pi/skills/review/SKILL.md"),
        &skill_md("review", "Project review.", "project body"),
    );
    let extra = w.project.join("extra");
    write(
        &extra.join("review/SKILL.md"),
        &skill_md("review", "Path review.", "path body"),
    );
    write(&extra.join("review/notes.md"), "path notes");
    let extra = extra.to_str().unwrap();
    let out = w.run(&["--skill", extra, "expand", "/skill:review@path go"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("<skill name=\"review\" location=\""),
        "{text}"
    );
    assert!(text.contains("path body"), "{text}");
    assert!(text.ends_with("</skill>\n\ngo"), "{text}");
    let out = w.run(&["expand", "/skill:review@pi:project go"]);
    assert!(stdout(&out).contains("project body"));
    let out = w.run(&["--skill", extra, "resolve", "skill://review@path/notes.md"]);
    assert_eq!(stdout(&out), "path notes");
    let all = json(&w.run(&["--skill", extra, "commands", "--json", "--all"]));
    let addresses: Vec<&Value> = all["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["address"])
        .collect();
    assert_eq!(
        addresses,
        [
            &Value::Null,
            &Value::from("review@pi:project"),
            &Value::from("review@path")
        ]
    );
}

#[test]
fn identical_copies_are_quiet_in_both_profiles() {
    for profile in ["musepi", "pi"] {
        let w = World::new(profile);
        let same = skill_md("tdd", "Test first.", "same body");
        let (user, project) = if profile == "pi" {
            (
                w.home.join(".pi/agent/skills/tdd/SKILL.md"),
                w.project.join(".pi/skills/tdd/SKILL.md"),
            )
        } else {
            (
                w.home.join(".claude/skills/tdd/SKILL.md"),
                w.home.join(".agents/skills/tdd/SKILL.md"),
            )
        };
        write(&user, &same);
        write(&project, &same);
        let list = json(&w.run(&["list", "--json"]));
        assert_eq!(codes(&list), Vec::<String>::new(), "{profile}: {list}");
        assert_eq!(list["skills"].as_array().unwrap().len(), 1);
        // The document keeps its shape: no key for the copies.
        let keys: Vec<&String> = list.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["profile", "skills", "diagnostics"], "{profile}");

        let warn = if profile == "pi" {
            "warnIdenticalCopies=true"
        } else {
            "skills.warnIdenticalCopies=true"
        };
        let loud = json(&w.run(&["--set", warn, "list", "--json"]));
        assert_eq!(codes(&loud), ["collision"], "{profile}");
        let project: PathBuf = project.components().collect(); // `\\` on Windows
        assert_eq!(loud["diagnostics"][0]["path"], project.to_str().unwrap());

        // Other bytes: a collision, as before.
        write(&project, &skill_md("tdd", "Test first.", "other body"));
        let list = json(&w.run(&["list", "--json"]));
        assert_eq!(codes(&list), ["collision"], "{profile}");
        let table = stdout(&w.run(&["list"]));
        assert!(table.contains("warning[collision]"), "{table}");
    }
}

/// Skills with long descriptions, for the budget.
fn long_descriptions(profile: &'static str) -> World {
    let w = World::new(profile);
    let root = if profile == "pi" {
        w.home.join(".pi/agent/skills")
    } else {
        w.home.join(".musepi/agent/skills")
    };
    for (name, words) in [("alpha", 3), ("beta", 40), ("gamma", 60)] {
        let description = vec!["word"; words].join(" ");
        write(
            &root.join(name).join("SKILL.md"),
            &skill_md(name, &description, "b"),
        );
    }
    w
}

#[test]
fn prompt_fits_its_budget_and_says_what_it_cut() {
    for profile in ["musepi", "pi"] {
        let w = long_descriptions(profile);
        let full = stdout(&w.run(&["prompt"]));
        assert_eq!(stdout(&w.run(&["prompt", "--budget", "0"])), full);
        let big = (full.chars().count() + 10).to_string();
        let same = w.run(&["prompt", "--budget", &big]);
        assert_eq!(stdout(&same), full, "{profile}");
        assert_eq!(stderr(&same), "", "{profile}");

        let budget = full.chars().count() - 200;
        let out = w.run(&["prompt", "--budget", &budget.to_string(), "--report"]);
        let text = stdout(&out);
        assert!(text.chars().count() <= budget, "{profile}");
        for name in ["alpha", "beta", "gamma"] {
            assert!(text.contains(name), "{profile}: {name}");
        }
        assert!(
            text.contains("word word word"),
            "{profile}: alpha untouched"
        );
        let report = stderr(&out);
        assert!(report.contains("2 descriptions shortened"), "{report}");
        assert!(report.contains("shortened: gamma (299 → "), "{report}");

        let v = json(&w.run(&["prompt", "--budget", &budget.to_string(), "--json"]));
        assert_eq!(v["text"], text.as_str());
        assert_eq!(v["budget"], budget);
        assert_eq!(v["length"], text.chars().count());
        assert_eq!(v["truncated"].as_array().unwrap().len(), 2);
        assert_eq!(v["omitted"], serde_json::json!([]));

        // The setting does the same, and `list` warns.
        let key = if profile == "pi" {
            "catalogBudget"
        } else {
            "skills.catalogBudget"
        };
        let set = format!("{key}={budget}");
        let out = w.run(&["--set", &set, "prompt"]);
        assert_eq!(stdout(&out), text, "{profile}");
        assert!(
            stderr(&out).contains("warning: catalog-truncated"),
            "{}",
            stderr(&out)
        );
        let list = json(&w.run(&["--set", &set, "list", "--json"]));
        assert_eq!(codes(&list), ["catalog-truncated"], "{profile}");
        let list = json(&w.run(&["list", "--json"]));
        assert_eq!(codes(&list), Vec::<String>::new(), "{profile}");
        // A bad value names the key.
        let bad = w.run(&["--set", &format!("{key}=-3"), "prompt"]);
        assert_eq!(bad.status.code(), Some(2));
        assert!(stderr(&bad).contains(key), "{}", stderr(&bad));
    }
}

#[test]
fn when_names_do_not_fit_the_last_providers_go_first() {
    let w = World::new("musepi");
    write(
        &w.home.join(".musepi/agent/skills/zeta/SKILL.md"),
        &skill_md("zeta", "Native.", "b"),
    );
    write(
        &w.home.join(".config/opencode/skills/alpha/SKILL.md"),
        &skill_md("alpha", "Opencode.", "b"),
    );
    let full = stdout(&w.run(&["prompt"]));
    // Room for the frame and one name only.
    let budget = full.chars().count() - "\n- alpha: Opencode.".chars().count();
    let v = json(&w.run(&["prompt", "--budget", &budget.to_string(), "--json"]));
    assert_eq!(v["omitted"], serde_json::json!(["alpha"]), "{v}");
    assert!(v["text"].as_str().unwrap().contains("- zeta:"), "{v}");
    let out = w.run(&["prompt", "--budget", &budget.to_string(), "--report"]);
    assert!(stderr(&out).contains("left out: alpha"), "{}", stderr(&out));
}
