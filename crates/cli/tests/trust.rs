//! `trust`/`untrust` as processes: several at once, with readers meanwhile,
//! and with both user settings files.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    root: PathBuf,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".musepi/agent")).unwrap();
        World {
            _dir: dir,
            home,
            root,
        }
    }

    fn agent(&self) -> PathBuf {
        self.home.join(".musepi").join("agent")
    }

    /// A project directory (a repository) under the world.
    fn project(&self, name: &str) -> PathBuf {
        let p = self.root.join(name);
        std::fs::create_dir_all(p.join(".git")).unwrap();
        p
    }

    fn cmd(&self, cwd: &Path) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_skillpipe"));
        c.env_clear()
            .env("HOME", &self.home)
            .arg("--home")
            .arg(&self.home)
            .arg("--cwd")
            .arg(cwd)
            .arg("--color")
            .arg("never");
        c
    }

    fn run(&self, cwd: &Path, args: &[&str]) -> Output {
        self.cmd(cwd).args(args).output().unwrap()
    }

    /// The effective value of `key` (`settings --json`).
    fn setting(&self, cwd: &Path, key: &str) -> Value {
        let out = self.run(cwd, &["settings", "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["key"] == key)
            .map(|s| s["value"].clone())
            .unwrap_or(Value::Null)
    }

    /// The names `list --json` loads in `cwd`.
    fn names(&self, cwd: &Path) -> Vec<String> {
        let out = self.run(cwd, &["list", "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_owned())
            .collect()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn skill(dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {name} skill\n---\nbody\n"),
    )
    .unwrap();
}

#[test]
fn concurrent_trust_runs_keep_every_entry_every_key_and_comment() {
    const RUNS: usize = 6;
    const ROUNDS: usize = 2;
    let cases = [
        (
            "settings.json",
            r#"{"skills": {"projectSkills": "trusted"}, "other": {"keep": 1}}"#,
        ),
        (
            "settings.toml",
            "# mine\n[skills]\nprojectSkills = \"trusted\" # keep this\n\n[other]\nkeep = 1\n",
        ),
    ];
    for (name, content) in cases {
        for round in 0..ROUNDS {
            let w = World::new();
            let file = w.agent().join(name);
            std::fs::write(&file, content).unwrap();
            let projects: Vec<PathBuf> = (0..RUNS).map(|i| w.project(&format!("p{i}"))).collect();
            let children: Vec<_> = projects
                .iter()
                .map(|p| {
                    w.cmd(p)
                        .arg("trust")
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            for child in children {
                let out = child.wait_with_output().unwrap();
                assert!(out.status.success(), "{name} round {round}: {out:?}");
            }
            let written = std::fs::read_to_string(&file).unwrap();
            if name.ends_with(".toml") {
                for kept in ["# mine", "# keep this", "[other]\nkeep = 1"] {
                    assert!(written.contains(kept), "{kept:?} lost:\n{written}");
                }
            } else {
                let doc: Value = serde_json::from_str(&written).unwrap();
                assert_eq!(doc["other"]["keep"], 1, "{written}");
            }
            let trusted = w.setting(&w.root, "skills.trustedProjects");
            assert_eq!(
                trusted.as_array().map(Vec::len),
                Some(RUNS),
                "{name} round {round}: {written}"
            );
            assert_eq!(w.setting(&w.root, "skills.projectSkills"), "trusted");
        }
    }
}

#[test]
fn a_list_during_trust_edits_sees_the_old_file_or_the_new_one() {
    const TOGGLES: usize = 12;
    for (name, content) in [
        (
            "settings.json",
            r#"{"skills": {"projectSkills": "trusted"}}"#,
        ),
        ("settings.toml", "[skills]\nprojectSkills = \"trusted\"\n"),
    ] {
        let w = World::new();
        std::fs::write(w.agent().join(name), content).unwrap();
        let edited = w.project("edited");
        let other = w.project("other");
        skill(&other.join(".claude/skills/untrusted-one"), "untrusted-one");
        let toggle = |cmd: &str| {
            w.cmd(&edited)
                .arg(cmd)
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        };
        let mut writer = vec![toggle("trust")];
        let mut reads = 0;
        // Bounded: 2 * TOGGLES writer runs, one `list` after another meanwhile.
        for i in 0..2 * TOGGLES {
            let names = w.names(&other);
            assert!(names.is_empty(), "{name}: read {reads} loaded {names:?}");
            reads += 1;
            let done = writer.pop().unwrap().wait().unwrap();
            assert!(done.success(), "{name}");
            let cmd = if i % 2 == 0 { "untrust" } else { "trust" };
            writer.push(toggle(cmd));
        }
        assert!(writer.pop().unwrap().wait().unwrap().success());
        assert_eq!(reads, 2 * TOGGLES);
    }
}

#[test]
fn trust_and_untrust_change_what_loads_whichever_user_file_wins() {
    // settings.toml is the later layer: its trustedProjects wins over
    // settings.json's; with none of its own, settings.json's counts.
    for toml_sets_it in [true, false] {
        let w = World::new();
        let proj = w.project("proj");
        skill(&proj.join(".claude/skills/p1"), "p1");
        let list = if toml_sets_it {
            "trustedProjects = [\"/somewhere/else\"]\n"
        } else {
            ""
        };
        std::fs::write(
            w.agent().join("settings.toml"),
            format!("[skills]\nprojectSkills = \"trusted\"\n{list}"),
        )
        .unwrap();
        std::fs::write(
            w.agent().join("settings.json"),
            r#"{"skills": {"trustedProjects": ["/elsewhere"]}}"#,
        )
        .unwrap();
        let edited = w.agent().join(if toml_sets_it {
            "settings.toml"
        } else {
            "settings.json"
        });
        assert!(w.names(&proj).is_empty());
        let out = w.run(&proj, &["trust"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains(&format!("in {}", edited.display())),
            "{}",
            text(&out.stdout)
        );
        assert_eq!(w.names(&proj), ["p1"], "trusted after `trust`");
        let out = w.run(&proj, &["untrust"]);
        assert!(
            text(&out.stdout).starts_with("untrusted "),
            "{}",
            text(&out.stdout)
        );
        assert!(w.names(&proj).is_empty(), "untrusted after `untrust`");
    }
}

#[test]
fn trust_warns_when_a_higher_layer_sets_the_list() {
    let w = World::new();
    let proj = w.project("proj");
    let out = w.run(&proj, &["--set", "skills.trustedProjects=[]", "trust"]);
    assert!(out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: skills.trustedProjects is also set by --set skills.trustedProjects=[], which wins over"),
        "{err}"
    );
}
