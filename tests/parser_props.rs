//! Property tests for the frontmatter parser: any bytes decode and parse
//! without panicking, the split rules hold, and the repair never turns a
//! document that parsed into a different one.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: a panic is a failure report

use proptest::prelude::*;
use skillpipe::core::frontmatter::{Parsed, parse, parse_strict, repair};
use skillpipe::core::text::{decode, raw_frontmatter_len, split};

proptest! {
    #[test]
    fn any_bytes_decode_split_and_parse(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let decoded = decode(&bytes);
        prop_assert!(!decoded.text.contains('\r'));
        let s = split(&decoded.text);
        if let Some(yaml) = s.yaml {
            let _ = parse(yaml);
        }
    }

    #[test]
    fn frontmatter_round_trips(name in "[a-z][a-z0-9-]{0,20}", desc in "[ -~]{0,60}", body in "[ -~\n]{0,80}", crlf in any::<bool>()) {
        let quoted = desc.replace('\'', "''");
        let mut text = format!("---\nname: {name}\ndescription: '{quoted}'\n---\n{body}");
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let decoded = decode(text.as_bytes());
        let s = split(&decoded.text);
        let yaml = s.yaml.expect("frontmatter");
        let Parsed::Clean(map) = parse(yaml) else { panic!("{yaml:?} did not parse cleanly") };
        prop_assert_eq!(map["name"].as_str(), Some(name.as_str()));
        prop_assert_eq!(map["description"].as_str(), Some(desc.as_str()));
        prop_assert_eq!(s.body, body.trim());
        // Reading only the frontmatter bytes gives the same YAML.
        let n = raw_frontmatter_len(text.as_bytes()).expect("closing marker");
        let head = decode(&text.as_bytes()[..n]);
        prop_assert_eq!(split(&head.text).yaml, Some(yaml));
    }

    #[test]
    fn repair_keeps_valid_documents_meaning(key in "[a-z]{1,8}", value in "[a-z ]{0,20}") {
        let yaml = format!("{key}: {value}");
        if let Ok(before) = parse_strict(&yaml) {
            let after = parse_strict(&repair(&yaml)).expect("repair of a valid document parses");
            prop_assert_eq!(before, after);
        }
    }
}

/// A frontmatter line for the load test: the fields discovery reads, with
/// values of every kind, and other keys, plain or nested.
fn field_line() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "name",
        "description",
        "enabled",
        "hide",
        "disable-model-invocation",
        "license",
        "metadata",
        "allowed-tools",
        "user-invocable",
        "effort",
        "when_to_use",
        "arguments",
    ]);
    let value = prop_oneof![
        Just("pdf-tools".to_owned()),
        "[a-zA-Z][a-zA-Z0-9 .,-]{0,20}",
        "[ -~]{0,12}".prop_map(|v| format!("'{}'", v.replace('\'', ""))),
        "[ -~]{0,12}".prop_map(|v| format!("\"{}\"", v.replace(['"', '\\'], ""))),
        prop::sample::select(vec![
            "true", "false", "True", "yes", "null", "~", "1", "1.5", "[a, b]", "{a: b}", "a: b",
            "a #b", "",
        ])
        .prop_map(str::to_owned),
        "[a-z]{1,5}".prop_map(|k| format!("\n  {k}: v\n  x: 'y'")),
        Just("\n  requires: a b\n  x: 'y'".to_owned()),
        Just("high".to_owned()),
    ];
    (key, value).prop_map(|(k, v)| format!("{k}: {v}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Discovery reads the usual frontmatter in place and builds its mapping
    /// only when asked: the skill it loads, mapping included, is the one the
    /// YAML parser's mapping gives.
    #[test]
    fn loaded_frontmatter_is_the_parsed_mapping(lines in prop::collection::vec(field_line(), 0..5)) {
        use skillpipe::core::load::{FileKind, LoadSpec, Loaded, load};
        use skillpipe::{Level, Source};

        let yaml = lines.join("\n");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pdf-tools/SKILL.md");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, format!("---\n{yaml}\n---\n# body\n")).unwrap();
        let source = std::sync::Arc::new(Source { provider: "native".into(), level: Level::User, root: None });
        let loaded = load(&LoadSpec {
            path: &file,
            kind: FileKind::SkillFile,
            source: &source,
            require_description: true,
            honor_enabled: true,
            max_file_bytes: 1 << 20,
            observer: None,
        });
        let map = match parse(&yaml) {
            Parsed::Clean(map) | Parsed::Repaired(map, _) => map,
            Parsed::Failed(_) => {
                prop_assert!(matches!(&loaded, Loaded::Candidate(c) if c.skill.is_none()), "{:?}", yaml);
                return Ok(());
            }
        };
        let string = |key: &str| map.get(key).and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty());
        match loaded {
            Loaded::Skipped => prop_assert_eq!(map.get("enabled"), Some(&serde_json::Value::Bool(false))),
            Loaded::Candidate(c) => match c.skill {
                Some(skill) => {
                    prop_assert_eq!(skill.frontmatter.map(), &map, "{:?}", yaml);
                    let description = map.get("description").and_then(|v| v.as_str());
                    prop_assert_eq!(Some(skill.description.as_str()), description.filter(|d| !d.trim().is_empty()));
                    prop_assert_eq!(skill.name.as_str(), string("name").unwrap_or("pdf-tools"));
                    let flag = |k: &str| map.get(k) == Some(&serde_json::Value::Bool(true));
                    prop_assert_eq!(skill.hidden, flag("hide") || flag("disable-model-invocation"));
                    // The invocation fields, read in place or from the
                    // mapping, are the mapping's.
                    let cx = skillpipe::core::invocation::Context {
                        yaml: &yaml,
                        path: &file,
                        description: &skill.description,
                        hidden: skill.hidden,
                    };
                    let from_map = skillpipe::core::invocation::read(&map, &cx, &mut Vec::new());
                    prop_assert_eq!(&skill.invocation, &from_map, "{:?}", yaml);
                }
                None => prop_assert!(!c.diagnostics.is_empty(), "{:?}", yaml),
            },
            Loaded::Absent => prop_assert!(false, "the file is there"),
        }
    }
}
