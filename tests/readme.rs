//! README's walk-throughs are the code that is built and tested: the
//! provider plugin of "Adding a provider" is `examples/team-plugin`, byte
//! for byte (its loading is tested in `crates/plugin-host/tests`), and the
//! host program of "Using the library" is a doctest (of `skillpipe-watch`,
//! which sees the library and the watcher). The in-process provider of
//! "In process, from the host" and its test of "Testing your provider"
//! are a crate that `scratch_provider.rs` builds from the README, outside
//! the workspace (a doctest would drop its `#[test]` functions unrun).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The fenced blocks of `text` whose info string is `info`, in order.
fn blocks<'t>(text: &'t str, info: &str) -> Vec<&'t str> {
    let fence = format!("```{info}\n");
    text.match_indices(&fence)
        .map(|(at, _)| {
            let body = &text[at + fence.len()..];
            &body[..body.find("```\n").expect("closed block")]
        })
        .collect()
}

#[test]
fn the_provider_walk_through_is_the_example_plugin() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let example = workspace().join("examples/team-plugin");
    let code = std::fs::read_to_string(example.join("src/lib.rs")).unwrap();
    assert!(
        blocks(&readme, "rust,ignore").contains(&code.as_str()),
        "README's provider code differs from examples/team-plugin/src/lib.rs"
    );
    // The manifest shown is the example's, but for the path to the SDK and
    // the fields that keep the example out of publishing.
    let manifest = std::fs::read_to_string(example.join("Cargo.toml")).unwrap();
    let shown = blocks(&readme, "toml")
        .into_iter()
        .find(|b| b.contains("name = \"team-skills\""))
        .expect("README shows the plugin's Cargo.toml");
    for line in shown.lines().filter(|l| !l.contains("path/to/skillpipe")) {
        assert!(
            manifest.lines().any(|m| m == line),
            "{line:?} not in the example's Cargo.toml"
        );
    }
}

#[test]
fn the_host_walk_through_is_a_doctest() {
    let lib = std::fs::read_to_string(workspace().join("crates/watch/src/lib.rs")).unwrap();
    assert!(lib.contains("#[doc = include_str!(\"../../../README.md\")]"));
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let host = blocks(&readme, "rust");
    assert!(
        host.iter()
            .any(|b| b.contains(".home(&home)") && b.contains("found.resolve(")),
        "README's host program"
    );
}
