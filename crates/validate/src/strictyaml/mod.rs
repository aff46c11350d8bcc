//! A YAML loader with the verdicts of `strictyaml.load(text).data`, the
//! parser `skills-ref` uses, built on the event parser behind serde-saphyr.
//!
//! strictyaml is ruamel.yaml with these differences, all mirrored here:
//! every scalar is a string (`123`, `true`, `~` and an empty value stay
//! text: `"123"`, `"true"`, `"~"`, `""`); flow collections (`[a]`, `{a: b}`),
//! tags and anchors are refused while scanning; duplicate keys and sibling
//! mappings indented differently are refused after the document is read.
//! ruamel itself never skips a tab between tokens, so a tab outside a quoted
//! scalar, a block scalar or a comment is an error.
//!
//! Error texts are those of `str(exception)` in Python: the context and
//! problem lines with their marks (`in "<unicode string>", line L, column C:`
//! plus a snippet and a caret). For the errors an author meets (a `: ` in a
//! plain value, a key without `:`, flow lists, tabs, tags, anchors, aliases,
//! duplicate keys, unclosed quotes, unknown escapes, bad block scalar
//! headers, characters that cannot start a token, stray brackets,
//! mis-indented keys, a second document) the text is ruamel's, including
//! which error comes first; other syntax errors keep the verdict but carry
//! the underlying parser's reason. (Checked against strictyaml 1.7.3 on
//! thousands of generated and mutated frontmatters: every verdict agrees,
//! about 99% of the error texts on mutated real skills.)

use serde_saphyr::granit_parser::ErrorKind;

use self::construct::construct;
use self::explain::{explain, key_missing_colon_before};
use self::parse::parse;
use self::scan::{disallowed_token, lookahead_end, scan};
use self::source::{LABEL, Marked, Source};

mod construct;
mod explain;
mod parse;
mod pyrepr;
mod scan;
mod source;

pub use self::construct::Node;

/// Loads one YAML document the way `strictyaml.load(yaml).data` does.
///
/// `Ok(Some(_))` is a mapping or a sequence; `Ok(None)` is any other
/// document (a scalar, or nothing at all), for which strictyaml returns the
/// text itself. `Err` is the text of the exception strictyaml raises.
pub(crate) fn load(yaml: &str) -> Result<Option<Node>, String> {
    let src = Source::new(yaml);
    if let Some((index, c)) = src.non_printable() {
        // ruamel's reader refuses these before parsing. (skills-ref then
        // fails on an AttributeError; this is the reader's own message.)
        return Err(format!(
            "unacceptable character #x{:04x}: special characters are not allowed\n  in \"{LABEL}\", position {index}",
            u32::from(c)
        ));
    }
    let tokens = scan(yaml);
    let parsed = parse(yaml);

    // The errors found, by position: a stray tab, a second document, the
    // parser's own failure (`scanning`: one ruamel's scanner raises).
    let mut found: Vec<Found> = Vec::new();
    let tab = src.first_stray_tab(&tokens);
    if let Some(t) = tab {
        // Only a key of an open top-level mapping is required to have one.
        let open_map = tokens
            .list
            .iter()
            .find(|tk| tk.id == "<block mapping start>")
            .filter(|tk| src.line_col(tk.start).1 == 0)
            .map(|tk| tk.start);
        let key = key_missing_colon_before(&src, t).filter(|k| {
            open_map.is_some_and(|m| m < *k) && !src.chars[*k..].starts_with(&['.', '.', '.'])
        });
        let err = match key {
            // The tab starts the line after a top-level key without `:`:
            // ruamel gives up on that key when it reaches the tab.
            Some(key) => Marked::new(
                Some("while scanning a simple key"),
                Some(key),
                "could not find expected ':'".to_owned(),
                Some(t),
            ),
            None => Marked::new(
                Some("while scanning for the next token"),
                None,
                "found character '\\t' that cannot start any token".to_owned(),
                Some(t),
            ),
        };
        found.push(Found {
            pos: t,
            rank: 0,
            scanning: true,
            err,
        });
    }
    if let Some((pos, err)) = &parsed.second_document {
        found.push(Found {
            pos: *pos,
            rank: 2,
            scanning: false,
            err: err.clone(),
        });
    }
    if let Some(failure) = &parsed.failure {
        let kind = failure.error.kind();
        let tab_kind = matches!(
            kind,
            ErrorKind::TabNotAllowed
                | ErrorKind::TabInBlockIndentation
                | ErrorKind::TabInPlainScalar
                | ErrorKind::TabInIndentation
                | ErrorKind::TabAtBlockScalarStart
        );
        // An unknown anchor is the refused alias, reported as such below.
        let alias = matches!(kind, ErrorKind::UnknownAnchor);
        // ruamel ends a plain scalar at a tab and stops at that tab before
        // it can miss a key's `:`.
        let at = failure.error.marker().index();
        let tab_first = matches!(kind, ErrorKind::SimpleKeyExpected)
            && tab.is_some_and(|t| t > at && src.line_col(t).0 == src.line_col(at).0);
        let superseded = alias || tab_first || (tab_kind && tab.is_some());
        if !superseded {
            found.push(Found {
                pos: failure.error.marker().index(),
                rank: 3,
                scanning: scanner_kind(kind),
                err: explain(failure, &tokens, &src),
            });
        }
    }
    // A refused token is refused when it heads ruamel's token queue: errors
    // before it win, and so do scanner errors within the look-ahead.
    if let Some((token, err)) = disallowed_token(&tokens) {
        let end = lookahead_end(&tokens, &src, token);
        let beaten = found.iter().any(|f| {
            f.pos < token.start
                || (f.scanning && f.pos > token.start && end.is_none_or(|e| f.pos < e))
        });
        if !beaten {
            return Err(err.render(&src));
        }
    }
    if let Some(first) = found.into_iter().min_by_key(|f| (f.pos, f.rank)) {
        return Err(first.err.render(&src));
    }
    match parsed.root {
        None => Ok(None),
        Some(root) => match construct(&root, &src) {
            Ok(node @ (Node::Map(_) | Node::Seq(_))) => Ok(Some(node)),
            Ok(Node::Str(_)) => Ok(None),
            Err(err) => Err(err.render(&src)),
        },
    }
}

/// An error found before construction, with where ruamel would meet it.
struct Found {
    pos: usize,
    rank: u8,
    scanning: bool,
    err: Marked,
}

/// Whether the parser's error is one its scanner raises (ruamel's scanner
/// runs ahead of its parser).
fn scanner_kind(kind: &ErrorKind) -> bool {
    !matches!(
        kind,
        ErrorKind::ExpectedBlockMappingKey
            | ErrorKind::ExpectedBlockSequenceEntry
            | ErrorKind::ExpectedDocumentStart
            | ErrorKind::ExpectedNodeContent
            | ErrorKind::ExpectedFlowMappingSeparator
            | ErrorKind::ExpectedFlowSequenceSeparator
            | ErrorKind::UnexpectedEof
            | ErrorKind::UnexpectedEofBlockMapping
            | ErrorKind::UnexpectedEofBlockSequence
            | ErrorKind::UnexpectedEofFlowMapping
            | ErrorKind::UnexpectedEofFlowSequence
            | ErrorKind::UnexpectedEofImplicitFlowMapping
            | ErrorKind::UnknownAnchor
            | ErrorKind::MissingDocumentEndBeforeDirective
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> Option<Node> {
        Some(Node::Map(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), Node::Str((*v).to_owned())))
                .collect(),
        ))
    }

    #[test]
    fn every_scalar_is_text() {
        assert_eq!(
            load("\nname: 123\ndescription: true\nc: ~\nd:\ne: 1.50\nf: 'q'\n"),
            Ok(map(&[
                ("name", "123"),
                ("description", "true"),
                ("c", "~"),
                ("d", ""),
                ("e", "1.50"),
                ("f", "q")
            ]))
        );
    }

    #[test]
    fn block_scalars_and_nesting() {
        let got = load("\na: |\n  x\n  y\nm:\n  k: v\nl:\n  - p\n").unwrap();
        assert_eq!(
            got,
            Some(Node::Map(vec![
                ("a".into(), Node::Str("x\ny\n".into())),
                (
                    "m".into(),
                    Node::Map(vec![("k".into(), Node::Str("v".into()))])
                ),
                ("l".into(), Node::Seq(vec![Node::Str("p".into())])),
            ]))
        );
    }

    #[test]
    fn non_mapping_documents() {
        assert_eq!(load(""), Ok(None));
        assert_eq!(load("\n# only a comment\n"), Ok(None));
        assert_eq!(load("\njust text\n"), Ok(None));
        assert_eq!(
            load("\n- a\n"),
            Ok(Some(Node::Seq(vec![Node::Str("a".into())])))
        );
    }

    #[test]
    fn colon_in_a_plain_value() {
        assert_eq!(
            load("\nname: a\ndescription: Use it: now\n").unwrap_err(),
            "mapping values are not allowed here\n  in \"<unicode string>\", line 3, column 20:\n    description: Use it: now\n                       ^ (line: 3)"
        );
    }

    #[test]
    fn flow_collections_are_refused() {
        assert_eq!(
            load("\nname: a\ndescription: [a, b]\n").unwrap_err(),
            "While scanning\n  in \"<unicode string>\", line 3, column 14:\n    description: [a, b]\n                 ^ (line: 3)\nFound ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)\n  in \"<unicode string>\", line 3, column 15:\n    description: [a, b]\n                  ^ (line: 3)"
        );
    }

    #[test]
    fn tags_anchors_and_aliases_are_refused() {
        let tag = load("\nname: !!str a\n").unwrap_err();
        assert!(tag.starts_with("While scanning\n  in \"<unicode string>\", line 2, column 12:"));
        assert!(tag.contains("Found disallowed tag tokens (do not specify types in markup)\n  in \"<unicode string>\", line 2, column 7:"));
        let anchor = load("\nname: &x a\ndescription: *x\n").unwrap_err();
        assert!(anchor.contains("Found confusing disallowed anchor token"));
        assert_eq!(
            load("\nname: *x\n").unwrap_err(),
            "found undefined alias 'x'\n  in \"<unicode string>\", line 2, column 7:\n    name: *x\n          ^ (line: 2)"
        );
    }

    #[test]
    fn tabs_between_tokens_are_refused() {
        let expected = |line: usize, col: usize, text: &str| {
            format!(
                "while scanning for the next token\nfound character '\\t' that cannot start any token\n  in \"<unicode string>\", line {line}, column {col}:\n    {text}\n    {}^ (line: {line})",
                " ".repeat(col - 1)
            )
        };
        assert_eq!(
            load("\nname:\ta\n").unwrap_err(),
            expected(2, 6, "name:\ta")
        );
        assert_eq!(
            load("\nname: a\tb\n").unwrap_err(),
            expected(2, 8, "name: a\tb")
        );
        assert_eq!(
            load("\nm:\n\tk: v\n").unwrap_err(),
            expected(3, 1, "\tk: v")
        );
        assert_eq!(
            load("\nd: a\n\tmore\n").unwrap_err(),
            expected(3, 1, "\tmore")
        );
        // Tabs in quoted scalars, block scalars and comments are content.
        assert!(load("\na: \"x\ty\"\nb: |\n  p\tq\nc: d # \tz\n").is_ok());
    }

    #[test]
    fn duplicate_keys_after_their_values() {
        assert_eq!(
            load("\nname: a\nname: b\n").unwrap_err(),
            "While parsing\n  in \"<unicode string>\", line 3, column 1:\n    name: b\n    ^ (line: 3)\nDuplicate key 'name' found\n  in \"<unicode string>\", line 3, column 5:\n    name: b\n        ^ (line: 3)"
        );
    }

    #[test]
    fn sibling_mappings_must_share_indentation() {
        let err = load("\nm:\n  a:\n    x: 1\n  b:\n     y: 2\n").unwrap_err();
        assert_eq!(
            err,
            "While parsing\n  in \"<unicode string>\", line 6, column 6:\n         y: 2\n         ^ (line: 6)\nFound mapping with indentation inconsistent with previous mapping\n  in \"<unicode string>\", line 7, column 1:\n    \n    ^ (line: 7)"
        );
    }

    #[test]
    fn unclosed_quote_and_bad_escape() {
        assert_eq!(
            load("\nname: \"a\nx: y\n").unwrap_err(),
            "while scanning a quoted scalar\n  in \"<unicode string>\", line 2, column 7:\n    name: \"a\n          ^ (line: 2)\nfound unexpected end of stream\n  in \"<unicode string>\", line 4, column 1:\n    \n    ^ (line: 4)"
        );
        assert!(load("\nname: \"a\\q\"\n").unwrap_err().contains(
            "found unknown escape character 'q'\n  in \"<unicode string>\", line 2, column 10:"
        ));
    }

    #[test]
    fn mis_indented_keys() {
        assert_eq!(
            load("\nname: a\n- b\n").unwrap_err(),
            "while parsing a block mapping\n  in \"<unicode string>\", line 2, column 1:\n    name: a\n    ^ (line: 2)\nexpected <block end>, but found '-'\n  in \"<unicode string>\", line 3, column 1:\n    - b\n    ^ (line: 3)"
        );
        assert!(
            load("\nmetadata:\n    a: b\n  c: d\n")
                .unwrap_err()
                .contains("expected <block end>, but found '<block mapping start>'\n  in \"<unicode string>\", line 4, column 3:")
        );
    }

    #[test]
    fn second_document() {
        assert!(load("\nname: a\n...\nfoo: b\n").unwrap_err().starts_with(
            "expected a single document in the stream\n  in \"<unicode string>\", line 2, column 1:"
        ));
        assert_eq!(load("\nname: a\n...\n"), Ok(map(&[("name", "a")])));
    }

    #[test]
    fn long_lines_are_cut_in_snippets() {
        let err = load("\ndescription: This is a very long description line that goes on and on: and has a colon far to the right of the line start\n").unwrap_err();
        assert_eq!(
            err,
            "mapping values are not allowed here\n  in \"<unicode string>\", line 2, column 70:\n     ... ription line that goes on and on: and has a colon far to the rig ... \n                                         ^ (line: 2)"
        );
    }

    #[test]
    fn non_printable_characters() {
        assert_eq!(
            load("\na: b\u{7}\n").unwrap_err(),
            "unacceptable character #x0007: special characters are not allowed\n  in \"<unicode string>\", position 5"
        );
    }

    /// Inputs and the exact texts strictyaml 1.7.3 gives for them.
    const RUAMEL_TEXTS: &[(&str, &str)] = &[
        (
            "\nname: x\ndescription Use it\n",
            "while scanning a simple key\n  in \"<unicode string>\", line 3, column 1:\n    description Use it\n    ^ (line: 3)\ncould not find expected ':'\n  in \"<unicode string>\", line 4, column 1:\n    \n    ^ (line: 4)",
        ),
        (
            "\nname: x\ndesc\n  ription: Use it\n",
            "while scanning a simple key\n  in \"<unicode string>\", line 3, column 1:\n    desc\n    ^ (line: 3)\ncould not find expected ':'\n  in \"<unicode string>\", line 4, column 10:\n      ription: Use it\n             ^ (line: 4)",
        ),
        (
            "\nname: x\nlicense\n\tdescription: d\n",
            "while scanning a simple key\n  in \"<unicode string>\", line 3, column 1:\n    license\n    ^ (line: 3)\ncould not find expected ':'\n  in \"<unicode string>\", line 4, column 1:\n    \tdescription: d\n    ^ (line: 4)",
        ),
        (
            "\nname: ]x\n",
            "while parsing a block node\nexpected the node content, but found ']'\n  in \"<unicode string>\", line 2, column 7:\n    name: ]x\n          ^ (line: 2)",
        ),
        (
            "\nname: x\n]license: MIT\n",
            "while parsing a block mapping\n  in \"<unicode string>\", line 2, column 1:\n    name: x\n    ^ (line: 2)\nexpected <block end>, but found ']'\n  in \"<unicode string>\", line 3, column 1:\n    ]license: MIT\n    ^ (line: 3)",
        ),
        (
            "\nname: x\ndescription: >- text\n",
            "while scanning a block scalar\n  in \"<unicode string>\", line 3, column 14:\n    description: >- text\n                 ^ (line: 3)\nexpected a comment or a line break, but found 't'\n  in \"<unicode string>\", line 3, column 17:\n    description: >- text\n                    ^ (line: 3)",
        ),
        (
            "\nname: x\ndescription: |0\n",
            "while scanning a block scalar\n  in \"<unicode string>\", line 3, column 14:\n    description: |0\n                 ^ (line: 3)\nexpected indentation indicator in the range 1-9, but found 0\n  in \"<unicode string>\", line 3, column 15:\n    description: |0\n                  ^ (line: 3)",
        ),
        (
            "\nname:  - a\n",
            "sequence entries are not allowed here\n  in \"<unicode string>\", line 2, column 8:\n    name:  - a\n           ^ (line: 2)",
        ),
        (
            "\nname:  ? b\n",
            "mapping keys are not allowed here\n  in \"<unicode string>\", line 2, column 8:\n    name:  ? b\n           ^ (line: 2)",
        ),
        (
            "\nname: *d\n\tlicense: MIT\n",
            "while scanning for the next token\nfound character '\\t' that cannot start any token\n  in \"<unicode string>\", line 3, column 1:\n    \tlicense: MIT\n    ^ (line: 3)",
        ),
        (
            "\nname: !!str x\n\tlicense: MIT\n",
            "While scanning\n  in \"<unicode string>\", line 2, column 12:\n    name: !!str x\n               ^ (line: 2)\nFound disallowed tag tokens (do not specify types in markup)\n  in \"<unicode string>\", line 2, column 7:\n    name: !!str x\n          ^ (line: 2)",
        ),
        (
            "\nname: [a]\n\tlicense: MIT\n",
            "While scanning\n  in \"<unicode string>\", line 2, column 7:\n    name: [a]\n          ^ (line: 2)\nFound ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)\n  in \"<unicode string>\", line 2, column 8:\n    name: [a]\n           ^ (line: 2)",
        ),
        (
            "\n\"description\":x\n",
            "expected a single document in the stream\n  in \"<unicode string>\", line 2, column 1:\n    \"description\":x\n    ^ (line: 2)\nbut found another document\n  in \"<unicode string>\", line 2, column 14:\n    \"description\":x\n                 ^ (line: 2)",
        ),
        (
            "\nname: \"a\n...\n",
            "while scanning a quoted scalar\n  in \"<unicode string>\", line 2, column 7:\n    name: \"a\n          ^ (line: 2)\nfound unexpected document separator\n  in \"<unicode string>\", line 3, column 1:\n    ...\n    ^ (line: 3)",
        ),
        (
            "\nname: %x\n",
            "while scanning for the next token\nfound character '%' that cannot start any token\n  in \"<unicode string>\", line 2, column 7:\n    name: %x\n          ^ (line: 2)",
        ),
    ];

    #[test]
    fn ruamel_texts() {
        for (yaml, expected) in RUAMEL_TEXTS {
            assert_eq!(load(yaml).unwrap_err(), *expected, "for {yaml:?}");
        }
    }
}
