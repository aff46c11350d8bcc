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
