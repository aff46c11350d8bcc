//! The project's own corpus (`tests/corpus/*.toml`) through the
//! `skillpipe` binary: each case's tree built, the CLI run as a user runs
//! it (`list --json`, `list --all --json`, `commands --json`, `prompt`,
//! `expand --json`, `explain --json`), and what it prints held to the same
//! expectations the library is held to in `tests/corpus.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use skillpipe::{Diagnostic, Fate, ShadowedCopy, Skill};
use skillpipe_tests::case::{Case, Observed, message_line, removed_line, run_corpus};
use skillpipe_tests::{diagnostic_line, skill_line};

struct Run<'a> {
    root: &'a Path,
    case: &'a Case,
}

impl Run<'_> {
    fn cli(&self, args: &[&str]) -> Output {
        let tree = self.root.to_string_lossy();
        let c = self.case;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_skillpipe"));
        cmd.env_clear()
            .env("HOME", self.root.join(&c.home))
            .envs(
                c.flags
                    .env
                    .iter()
                    .map(|(k, v)| (k, v.replace("$TREE", &tree))),
            )
            .current_dir(self.root.join(&c.cwd))
            .args(["--profile", &c.profile, "--home"])
            .arg(self.root.join(&c.home))
            .arg("--cwd")
            .arg(self.root.join(&c.cwd));
        for set in &c.flags.set {
            cmd.args(["--set", set]);
        }
        for config in &c.flags.config {
            cmd.arg("--config").arg(self.root.join(config));
        }
        for skill in &c.flags.skill {
            cmd.args(["--skill", skill]);
        }
        if c.flags.no_skills {
            cmd.arg("--no-skills");
        }
        cmd.args(args).output().unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let out = self.cli(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn observe(&self) -> Result<Observed, String> {
        let root = self.root;
        let list = self.cli(&["list", "--json"]);
        if list.status.code() == Some(2) {
            // With `--json` the failure is one JSON line on stderr.
            let err: Value = serde_json::from_slice(&list.stderr).map_err(|e| e.to_string())?;
            return Err(err["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned());
        }
        let list: Value = serde_json::from_slice(&list.stdout).map_err(|e| e.to_string())?;
        let skills: Vec<Skill> = serde_json::from_value(list["skills"].clone()).unwrap();
        let diagnostics: Vec<Diagnostic> =
            serde_json::from_value(list["diagnostics"].clone()).unwrap();
        let all = self.json(&["list", "--all", "--json"]);
        let removed: Vec<ShadowedCopy> = all["removed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| ShadowedCopy {
                skill: serde_json::from_value(row.clone()).unwrap(),
                fate: serde_json::from_value::<Fate>(row.clone()).unwrap(),
            })
            .collect();
        let commands = self.json(&["commands", "--json"]);
        let prompt = self.cli(&["prompt"]);
        let e = &self.case.expect;
        Ok(Observed {
            skills: skills.iter().map(|s| skill_line(root, s)).collect(),
            diagnostics: diagnostics
                .iter()
                .map(|d| diagnostic_line(root, d))
                .collect(),
            messages: diagnostics.iter().map(|d| message_line(root, d)).collect(),
            invocation: list["skills"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    let name = s["name"].as_str().unwrap().to_owned();
                    (
                        name,
                        s.get("invocation")
                            .cloned()
                            .unwrap_or(serde_json::json!({})),
                    )
                })
                .collect(),
            removed: removed.iter().map(|c| removed_line(root, c)).collect(),
            commands: commands["commands"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect(),
            catalog: String::from_utf8(prompt.stdout).unwrap(),
            expand: e
                .expand
                .iter()
                .map(|x| {
                    let v = self.json(&["expand", &x.text, "--json"]);
                    let text = v["text"].as_str().unwrap().to_owned();
                    (text, v.get("placeholders").cloned().unwrap_or(Value::Null))
                })
                .collect(),
            required_by: e
                .required_by
                .keys()
                .map(|name| {
                    let v = self.json(&["explain", name, "--json"]);
                    let who = v
                        .get("required_by")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().map(|n| n.as_str().unwrap().to_owned()).collect())
                        .unwrap_or_default();
                    (name.clone(), who)
                })
                .collect(),
        })
    }
}

#[test]
fn the_corpus_through_the_cli() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    run_corpus(&dir, |root, case| Run { root, case }.observe());
}
