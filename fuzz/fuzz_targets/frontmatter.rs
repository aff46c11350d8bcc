//! Differential target for the frontmatter readers.
//!
//! - `parse` never panics, whatever the text.
//! - Whatever the fast reader `parse_simple` accepts, the YAML parser alone
//!   (`parse_yaml_only`) accepts with the same mapping, key order included.
//! - `walk_simple` accepts exactly what `parse_simple` accepts and hands over
//!   as many keys as its mapping has.
//! - The repair changes nothing the fast reader accepts: the repaired text
//!   parses to the same mapping.
//! - A document that parses only after the repair parses, repaired, to the
//!   same mapping on its own (the repair is one step, not a fixpoint search).

#![no_main]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is the failure signal

use libfuzzer_sys::fuzz_target;
use skillpipe_core::frontmatter::{self, Parsed};

/// The mapping as JSON text: equal texts mean equal keys, values and order.
fn json(map: &frontmatter::Mapping) -> String {
    serde_json::to_string(map).unwrap()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();

    let parsed = frontmatter::parse(text);

    let simple = frontmatter::parse_simple(text);
    let mut walked = 0usize;
    let walk = frontmatter::walk_simple(text, |_, _| walked += 1);
    assert_eq!(
        simple.is_some(),
        walk.is_some(),
        "walk_simple and parse_simple disagree on {text:?}"
    );

    if let Some(map) = &simple {
        assert_eq!(walked, map.len(), "walk_simple key count for {text:?}");
        match frontmatter::parse_yaml_only(text) {
            Ok(yaml) => assert_eq!(
                json(map),
                json(&yaml),
                "parse_simple and the YAML parser disagree on {text:?}"
            ),
            Err(err) => panic!("parse_simple accepts {text:?}, the YAML parser says {err}"),
        }
        assert_eq!(
            Parsed::Clean(map.clone()),
            parsed,
            "parse of a simple document {text:?}"
        );
        let repaired = frontmatter::repair(text);
        match frontmatter::parse_strict(&repaired) {
            Ok(again) => assert_eq!(json(map), json(&again), "repair changed {text:?}"),
            Err(err) => panic!("repair of simple {text:?} gives {repaired:?}: {err}"),
        }
    }

    if let Parsed::Repaired(map, _) = &parsed {
        let repaired = frontmatter::repair(text);
        assert_eq!(
            frontmatter::parse_strict(&repaired).as_ref().map(json),
            Ok(json(map)),
            "the repaired text of {text:?} parses differently on its own"
        );
    }
});
