//! Big libraries and long sessions, as the `skillpipe` binary shows them
//! in both profiles (issue 24): `search`, the search-first catalogue,
//! pins and the floor under a budget, and compact paths.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    profile: &'static str,
    /// Where the skills are, and the prefix of the catalogue's keys.
    root: PathBuf,
    key: &'static str,
}

impl World {
    /// Skills whose descriptions are `words` times "word" after a topic.
    fn new(profile: &'static str, skills: &[(&str, &str, usize)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let (root, key) = match profile {
            "pi" => (home.join(".pi/agent/skills"), ""),
            _ => (home.join(".musepi/agent/skills"), "skills."),
        };
        // The platform's separator throughout, as the binary prints it.
        let root: PathBuf = root.components().collect();
        for (name, topic, words) in skills {
            let description = format!("{topic} {}", vec!["word"; *words].join(" "));
            write(
                &root.join(name).join("SKILL.md"),
                &format!(
                    "---\nname: {name}\ndescription: {}\n---\nbody\n",
                    description.trim()
                ),
            );
        }
        World {
            _dir: dir,
            home,
            project,
            profile,
            root,
            key,
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

    /// `--set <key>=<value>` for a catalogue key in this profile's shape.
    fn set(&self, key: &str, value: &str) -> [String; 2] {
        ["--set".to_owned(), format!("{}{key}={value}", self.key)]
    }

    fn run_with(&self, sets: &[[String; 2]], args: &[&str]) -> Output {
        let mut all: Vec<&str> = sets.iter().flatten().map(String::as_str).collect();
        all.extend(args);
        self.run(&all)
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn ok(out: &Output) -> &Output {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&ok(out).stdout).unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(ok(out).stdout.clone()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).unwrap()
}

const LIBRARY: &[(&str, &str, usize)] = &[
    ("pdf-forms", "Fill and read PDF forms.", 0),
    ("docx", "Create and edit Word documents.", 0),
    (
        "deploy",
        "Deploy the service to the cloud with terraform.",
        0,
    ),
    ("review", "Review a pull request before it merges.", 0),
];

#[test]
fn search_ranks_skills_by_the_query() {
    for profile in ["musepi", "pi"] {
        let w = World::new(profile, LIBRARY);
        write(
            &w.root.join("secret/SKILL.md"),
            "---\nname: secret\ndescription: PDF forms, hidden.\ndisable-model-invocation: true\n---\nb\n",
        );
        let text = stdout(&w.run(&["search", "fill", "in", "a", "pdf", "form"]));
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("NAME") && lines[0].contains("SCORE"),
            "{text}"
        );
        assert!(lines[1].starts_with("pdf-forms "), "{profile}: {text}");
        assert!(
            !text.contains("secret"),
            "{profile}: hidden skills are not found"
        );
        let v = json(&w.run(&["search", "--json", "--limit", "1", "terraform deploys"]));
        assert_eq!(v["query"], "terraform deploys");
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 1);
        assert_eq!(results[0]["name"], "deploy");
        assert!(results[0]["score"].as_f64().unwrap() > 0.0);
        assert_eq!(
            results[0]["source"]["level"], "user",
            "the skill as in list --json"
        );
        // The identifier finds its skill first.
        let v = json(&w.run(&["search", "--json", "pdf-forms"]));
        assert_eq!(v["results"][0]["name"], "pdf-forms");
        // Nothing matches: a note, exit 0; --limit 0 is a usage error.
        let none = w.run(&["search", "zebra"]);
        assert_eq!(stdout(&none), "");
        assert!(
            stderr(&none).contains("no skill matches zebra"),
            "{}",
            stderr(&none)
        );
        assert_eq!(
            w.run(&["search", "--limit", "0", "pdf"]).status.code(),
            Some(2)
        );
    }
}

#[test]
fn the_search_first_catalogue_lists_the_pins_and_counts_the_rest() {
    for profile in ["musepi", "pi"] {
        let w = World::new(profile, LIBRARY);
        let sets = [
            w.set("catalogMode", "search"),
            w.set("catalogPins", r#"["rev*"]"#),
        ];
        let out = w.run_with(&sets, &["prompt", "--report"]);
        let text = stdout(&out);
        assert!(text.contains("review"), "{profile}: {text}");
        for name in ["pdf-forms", "docx", "deploy"] {
            assert!(!text.contains(name), "{profile}: {name} listed");
        }
        assert!(
            text.contains(
                "\n3 more skills are not listed: search for the task with the skill search tool"
            ),
            "{profile}: {text}"
        );
        let report = stderr(&out);
        assert!(
            report.contains("left to search: 3 skills (deploy, docx, pdf-forms)")
                || report.contains("left to search: 3 skills ("),
            "{report}"
        );
        assert!(
            report.contains("pinned, descriptions whole: 1 (review)"),
            "{report}"
        );
        let v = json(&w.run_with(&sets, &["prompt", "--json"]));
        assert_eq!(v["searchable"].as_array().unwrap().len(), 3);
        assert_eq!(v["pinned"], serde_json::json!(["review"]));
        // The default is the full list, unchanged.
        let full = stdout(&w.run(&["prompt"]));
        for (name, ..) in LIBRARY {
            assert!(full.contains(name));
        }
        assert!(!full.contains("not listed"));
    }
}

#[test]
fn pins_stay_whole_and_the_floor_leaves_skills_out_instead() {
    for profile in ["musepi", "pi"] {
        let skills: Vec<(String, usize)> = (0..6).map(|i| (format!("s{i}"), 30)).collect();
        let spec: Vec<(&str, &str, usize)> = skills
            .iter()
            .map(|(n, w)| (n.as_str(), "Topic.", *w))
            .collect();
        let w = World::new(profile, &spec);
        let full = stdout(&w.run(&["prompt"]));
        let budget = (full.chars().count() - 600).to_string();
        let sets = [
            w.set("catalogBudget", &budget),
            w.set("catalogPins", r#"["s1"]"#),
        ];
        let v = json(&w.run_with(&sets, &["prompt", "--json"]));
        let text = v["text"].as_str().unwrap();
        assert!(text.chars().count() <= budget.parse().unwrap());
        assert_eq!(v["pinned"], serde_json::json!(["s1"]));
        let cut: Vec<&str> = v["truncated"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(!cut.contains(&"s1") && cut.len() == 5, "{profile}: {cut:?}");
        assert!(
            text.contains(&format!("Topic. {}", vec!["word"; 30].join(" "))),
            "{profile}: s1 whole"
        );
        // A floor above that cap: skills go from the end instead.
        let cap = v["cap"].as_u64().unwrap();
        let floor = (cap + 60).to_string();
        let mut sets = sets.to_vec();
        sets.push(w.set("catalogMinDescription", &floor));
        let out = w.run_with(&sets, &["prompt", "--json"]);
        let v = json(&out);
        let omitted: Vec<&str> = v["omitted"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert!(
            !omitted.is_empty() && !omitted.contains(&"s1"),
            "{profile}: {omitted:?}"
        );
        assert_eq!(omitted.last(), Some(&"s5"), "from the end");
        assert!(
            v["cap"]
                .as_u64()
                .is_none_or(|c| c >= floor.parse().unwrap()),
            "{v}"
        );
        assert_eq!(v["min_description"], floor.parse::<u64>().unwrap());
        let report = stderr(&w.run_with(&sets, &["prompt", "--report"]));
        assert!(
            report.contains(&format!(
                "to keep every description at {floor} characters or more"
            )),
            "{report}"
        );
        assert!(report.contains("  left out: s5"), "{report}");
        // `list` warns about a configured budget that cuts.
        let list = json(&w.run_with(&sets, &["list", "--json"]));
        assert_eq!(list["diagnostics"][0]["code"], "catalog-truncated");
    }
}

#[test]
fn compact_paths_write_long_roots_once_in_pi_and_change_nothing_in_musepi() {
    let names: Vec<String> = (0..8).map(|i| format!("skill-number-{i}")).collect();
    let spec: Vec<(&str, &str, usize)> = names
        .iter()
        .map(|n| (n.as_str(), "Does things.", 0))
        .collect();
    for profile in ["musepi", "pi"] {
        let w = World::new(profile, &spec);
        let full = stdout(&w.run(&["prompt"]));
        let sets = [w.set("catalogPaths", "compact")];
        let out = w.run_with(&sets, &["prompt", "--json"]);
        let v = json(&out);
        let text = v["text"].as_str().unwrap();
        if profile == "musepi" {
            assert_eq!(text, full, "musepi names no paths");
            assert!(v.get("roots").is_none());
            continue;
        }
        let root = w.root.to_string_lossy().into_owned();
        assert_eq!(
            v["roots"],
            serde_json::json!([{"name": "r0", "path": root}])
        );
        assert!(
            text.contains(&format!(
                "<skill_roots>\n  <root name=\"r0\">{root}</root>\n</skill_roots>"
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "<location>r0{sep}skill-number-3{sep}SKILL.md</location>",
                sep = std::path::MAIN_SEPARATOR
            )),
            "{text}"
        );
        assert!(!text.contains(&format!("<location>{root}")), "{text}");
        assert!(text.chars().count() < full.chars().count());
        // The budget counts the shorter text: one it fits cuts nothing.
        let budget = text.chars().count().to_string();
        let mut sets = sets.to_vec();
        sets.push(w.set("catalogBudget", &budget));
        let fitted = json(&w.run_with(&sets, &["prompt", "--json"]));
        assert_eq!(fitted["text"], text);
        assert_eq!(fitted["truncated"], serde_json::json!([]));
        let report = stderr(&w.run_with(&sets, &["prompt", "--report"]));
        assert!(report.contains(&format!("root r0: {root}")), "{report}");
    }
}
