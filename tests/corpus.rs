//! The project's own corpus: every `tests/corpus/*.toml` builds a tree, runs
//! discovery in process and compares the skills and diagnostics, in order,
//! with the case's expectations. One failing case does not hide the others:
//! all are run, then every difference is reported.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;

use serde::Deserialize;
use skillpipe_tests::{Flags, Tree, diagnostic_line, discover, skill_line};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    description: String,
    #[serde(default = "musepi")]
    profile: String,
    #[serde(default = "home")]
    home: String,
    #[serde(default = "project")]
    cwd: String,
    #[serde(default)]
    tree: Tree,
    #[serde(default)]
    flags: Flags,
    expect: Expect,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    skills: Vec<String>,
    #[serde(default)]
    diagnostics: Vec<String>,
    /// A settings error containing this text instead of a result.
    #[serde(default)]
    settings_error: Option<String>,
}

fn musepi() -> String {
    "musepi".into()
}
fn home() -> String {
    "home".into()
}
fn project() -> String {
    "project".into()
}

fn run_case(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case: Case = toml::from_str(&text).map_err(|e| format!("bad case file: {e}"))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path().canonicalize().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(root.join(&case.home)).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(root.join(&case.cwd)).map_err(|e| e.to_string())?;
    case.tree
        .build(&root)
        .map_err(|e| format!("building the tree: {e}"))?;
    let result = discover(&root, &case.profile, &case.home, &case.cwd, &case.flags);
    match (&case.expect.settings_error, result) {
        (Some(want), Err(err)) if err.contains(want.as_str()) => Ok(()),
        (Some(want), Err(err)) => Err(format!("settings error {err:?} does not contain {want:?}")),
        (Some(want), Ok(_)) => Err(format!(
            "expected a settings error containing {want:?}, got a result"
        )),
        (None, Err(err)) => Err(format!("unexpected settings error: {err}")),
        (None, Ok(discovery)) => {
            let skills: Vec<String> = discovery
                .skills
                .iter()
                .map(|s| skill_line(&root, s))
                .collect();
            let diags: Vec<String> = discovery
                .diagnostics
                .iter()
                .map(|d| diagnostic_line(&root, d))
                .collect();
            let mut problems = Vec::new();
            if skills != case.expect.skills {
                problems.push(format!(
                    "skills:\n  expected {:#?}\n  actual   {skills:#?}",
                    case.expect.skills
                ));
            }
            if diags != case.expect.diagnostics {
                problems.push(format!(
                    "diagnostics:\n  expected {:#?}\n  actual   {diags:#?}\n  messages {:#?}",
                    case.expect.diagnostics,
                    discovery
                        .diagnostics
                        .iter()
                        .map(|d| &d.message)
                        .collect::<Vec<_>>()
                ));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(format!("{}\n{}", case.description, problems.join("\n")))
            }
        }
    }
}

#[test]
fn corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "the corpus lost cases: {}", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|p| {
            run_case(p)
                .err()
                .map(|e| format!("{}: {e}", p.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
