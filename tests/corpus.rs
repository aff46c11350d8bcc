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
use skillpipe_tests::case::{Case, Observed, message_line, removed_line, run_corpus};
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
            .map(|s| {
                (
                    s.name.to_string(),
                    serde_json::to_value(&s.invocation).unwrap(),
                )
            })
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
                let placeholders = serde_json::to_value(e.placeholders()).unwrap();
                (e.text, placeholders)
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
                    .map(|s| s.name.to_string())
                    .collect();
                (name.clone(), who)
            })
            .collect(),
    })
}

#[test]
fn corpus() {
    run_corpus(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus"),
        observe,
    );
}
