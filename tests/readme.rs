//! The walk-throughs of the README and of the user guide (`docs/src`) are
//! the code that is built and tested: the provider plugin of the guide's
//! "Adding a provider" is `examples/team-plugin`, byte for byte (its
//! loading is tested in `crates/plugin-host/tests`), and every Rust block
//! of the README and of the guide is a doctest (of `skillpipe-watch`,
//! which sees the library and the watcher), the host program of "Using the
//! library" among them. The in-process provider of "In process, from the
//! host" and its test of "Testing your provider" are a crate that
//! `scratch_provider.rs` builds from the guide, outside the workspace (a
//! doctest would drop its `#[test]` functions unrun).

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use std::path::Path;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// A chapter of the user guide.
fn chapter(name: &str) -> String {
    std::fs::read_to_string(workspace().join("docs/src").join(name)).unwrap()
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
    let guide = chapter("providers.md");
    let example = workspace().join("examples/team-plugin");
    let code = std::fs::read_to_string(example.join("src/lib.rs")).unwrap();
    assert!(
        blocks(&guide, "rust,ignore").contains(&code.as_str()),
        "the guide's provider code differs from examples/team-plugin/src/lib.rs"
    );
    // The manifest shown is the example's, but for the path to the SDK and
    // the fields that keep the example out of publishing.
    let manifest = std::fs::read_to_string(example.join("Cargo.toml")).unwrap();
    let shown = blocks(&guide, "toml")
        .into_iter()
        .find(|b| b.contains("name = \"team-skills\""))
        .expect("the guide shows the plugin's Cargo.toml");
    for line in shown.lines().filter(|l| !l.contains("path/to/skillpipe")) {
        assert!(
            manifest.lines().any(|m| m == line),
            "{line:?} not in the example's Cargo.toml"
        );
    }
}

#[test]
fn every_rust_block_of_the_docs_is_a_doctest() {
    let lib = std::fs::read_to_string(workspace().join("crates/watch/src/lib.rs")).unwrap();
    let mut pages = vec![("README.md".to_owned(), "../../../README.md".to_owned())];
    for entry in std::fs::read_dir(workspace().join("docs/src")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            pages.push((
                format!("docs/src/{name}"),
                format!("../../../docs/src/{name}"),
            ));
        }
    }
    let mut tested = 0;
    for (page, included) in pages {
        let text = std::fs::read_to_string(workspace().join(&page)).unwrap();
        if text.contains("```rust") {
            assert!(
                lib.contains(&format!("#[doc = include_str!(\"{included}\")]")),
                "{page} has Rust blocks, but crates/watch/src/lib.rs does not include it as doctests"
            );
            tested += 1;
        }
    }
    assert!(tested >= 3, "the README and the guide's Rust chapters");
}

#[test]
fn the_host_walk_through_is_a_doctest() {
    let host = chapter("library.md");
    assert!(
        blocks(&host, "rust")
            .iter()
            .any(|b| b.contains(".home(&home)") && b.contains("found.resolve(")),
        "the guide's host program"
    );
}

/// `](chapter.md)` and `](chapter.md#anchor)` links of a page.
fn links(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')')?];
            let file = target.split('#').next().unwrap_or(target);
            (file.ends_with(".md") && !file.contains("://")).then_some(file)
        })
        .collect()
}

#[test]
fn the_guide_is_whole_its_links_resolve_and_its_includes_exist() {
    let src = workspace().join("docs/src");
    let summary = chapter("SUMMARY.md");
    let listed = links(&summary);
    for entry in std::fs::read_dir(&src).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") && name != "SUMMARY.md" {
            assert!(
                listed.contains(&name.as_str()),
                "{name} is not in SUMMARY.md"
            );
        }
    }
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    for page in listed
        .iter()
        .map(|p| p.to_string())
        .chain(["SUMMARY.md".into()])
    {
        let text = chapter(&page);
        for link in links(&text) {
            assert!(
                src.join(link).is_file(),
                "{page} links to {link}, which is no chapter"
            );
        }
        for include in text.split("{{#include ../../README.md:").skip(1) {
            let anchor = &include[..include.find("}}").expect("closed include")];
            assert!(
                readme.contains(&format!("<!-- ANCHOR: {anchor} -->"))
                    && readme.contains(&format!("<!-- ANCHOR_END: {anchor} -->")),
                "{page} includes README's {anchor:?}, which README does not mark"
            );
        }
    }
    // The README links into the guide, and to every chapter of it.
    for page in listed
        .iter()
        .filter(|p| **p != "introduction.md" && **p != "install.md")
    {
        assert!(
            readme.contains(&format!("(docs/src/{page})")),
            "README does not link to docs/src/{page}"
        );
    }
}
