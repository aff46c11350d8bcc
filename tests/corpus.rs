//! The project's own corpus: every `tests/corpus/*.toml` builds a tree, runs
//! the library in process and compares what it gives (skills and
//! diagnostics, in order, and where a case asks: full messages, invocation
//! fields, what did not load, commands, the catalogue, expansions,
//! dependencies) with the case's expectations. `crates/cli/tests/corpus.rs`
//! runs the same cases through the `skillpipe` binary. One failing case
//! does not hide the others: all are run, then every difference is
//! reported.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;

use skillpipe::{Delivery, ReadTool};
use skillpipe_tests::case::{Case, Observed, compare, message_line, removed_line};
use skillpipe_tests::{build, diagnostic_line, skill_line};

/// What the library gives for a case, or its settings error.
fn observe(root: &Path, case: &Case) -> Result<Observed, String> {
    let sp = build(root, &case.profile, &case.home, &case.cwd, &case.flags)?;
    let found = sp.discover();
    let all = sp.discover_all();
    let skills = found.skills();
    Ok(Observed {
        skills: skills.iter().map(|s| skill_line(root, s)).collect(),
        diagnostics: found
            .diagnostics()
            .iter()
            .map(|d| diagnostic_line(root, d))
            .collect(),
        messages: found
            .diagnostics()
            .iter()
            .map(|d| message_line(root, d))
            .collect(),
        invocation: skills
            .iter()
            .map(|s| (s.name.clone(), serde_json::to_value(&s.invocation).unwrap()))
            .map(|(n, v)| {
                (
                    n,
                    if v.is_null() {
                        serde_json::json!({})
                    } else {
                        v
                    },
                )
            })
            .collect(),
        removed: skillpipe::core::copies::not_loaded(all.discovery())
            .into_iter()
            .map(|c| removed_line(root, c))
            .collect(),
        commands: found.commands().into_iter().map(|c| c.name).collect(),
        catalog: found.catalog(ReadTool::Available),
        expand: case
            .expect
            .expand
            .iter()
            .map(|x| {
                let e = found.expand(&x.text, Delivery::Prompt);
                (e.text, serde_json::to_value(&e.placeholders).unwrap())
            })
            .collect(),
        required_by: case
            .expect
            .required_by
            .keys()
            .map(|name| {
                let who = found
                    .required_by(name)
                    .iter()
                    .map(|s| s.name.clone())
                    .collect();
                (name.clone(), who)
            })
            .collect(),
    })
}

fn run_case(path: &Path) -> Result<(), String> {
    let case = Case::read(path)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path().canonicalize().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(root.join(&case.home)).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(root.join(&case.cwd)).map_err(|e| e.to_string())?;
    case.tree
        .build(&root)
        .map_err(|e| format!("building the tree: {e}"))?;
    match (&case.expect.settings_error, observe(&root, &case)) {
        (Some(want), Err(err)) if err.contains(want.as_str()) => Ok(()),
        (Some(want), Err(err)) => Err(format!("settings error {err:?} does not contain {want:?}")),
        (Some(want), Ok(_)) => Err(format!(
            "expected a settings error containing {want:?}, got a result"
        )),
        (None, Err(err)) => Err(format!("unexpected settings error: {err}")),
        (None, Ok(seen)) => {
            let problems = compare(&root, &case, &seen);
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
