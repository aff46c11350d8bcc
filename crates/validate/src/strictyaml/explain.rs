//! The ruamel error-text explainer: the event parser's failure said in
//! ruamel's words (context, problem and their marks), by finding in the
//! text where ruamel would have stopped, and why.

use serde_saphyr::granit_parser::{ErrorKind, ScanError};

use super::parse::Failure;
use super::pyrepr::py_repr;
use super::scan::{Tokens, plain_start};
use super::source::{Marked, Source};

/// A parser error in ruamel's words, where they are known.
pub(super) fn explain(failure: &Failure, tokens: &Tokens, src: &Source) -> Marked {
    let err = &failure.error;
    let at = err.marker().index();
    match err.kind() {
        ErrorKind::MappingValueNotAllowed => Marked::new(
            None,
            None,
            "mapping values are not allowed here".to_owned(),
            Some(at),
        ),
        ErrorKind::UnexpectedCharacter { character } => Marked::new(
            Some("while scanning for the next token"),
            None,
            format!(
                "found character {} that cannot start any token",
                py_repr(&character.to_string())
            ),
            Some(at),
        ),
        ErrorKind::UnclosedQuotedScalar => Marked::new(
            Some("while scanning a quoted scalar"),
            Some(at),
            "found unexpected end of stream".to_owned(),
            Some(src.chars.len()),
        ),
        ErrorKind::UnknownQuotedScalarEscape => match bad_escape(src, at) {
            Some((i, c)) => Marked::new(
                Some("while scanning a double-quoted scalar"),
                Some(at),
                format!("found unknown escape character {}", py_repr(&c.to_string())),
                Some(i),
            ),
            None => generic(err),
        },
        ErrorKind::MappingKeyNotAllowed => Marked::new(
            None,
            None,
            "mapping keys are not allowed here".to_owned(),
            Some(at),
        ),
        ErrorKind::BlockSequenceEntryNotAllowed => Marked::new(
            None,
            None,
            "sequence entries are not allowed here".to_owned(),
            Some(at),
        ),
        ErrorKind::DocumentIndicatorInQuotedScalar => match document_marker_after(src, at) {
            Some(pos) => Marked::new(
                Some("while scanning a quoted scalar"),
                Some(at),
                "found unexpected document separator".to_owned(),
                Some(pos),
            ),
            None => generic(err),
        },
        ErrorKind::InvalidBlockScalarHeader | ErrorKind::ZeroBlockScalarIndent => {
            match block_header_problem(src, at) {
                Some((pos, problem)) => Marked::new(
                    Some("while scanning a block scalar"),
                    Some(at),
                    problem,
                    Some(pos),
                ),
                None => generic(err),
            }
        }
        ErrorKind::MisplacedFlowCollectionEnd
        | ErrorKind::UnexpectedEofBlockMapping
        | ErrorKind::UnexpectedEofBlockSequence
        | ErrorKind::ExpectedNodeContent
            if matches!(src.chars.get(at), Some(']' | '}' | ',')) =>
        {
            let found = py_repr(&src.chars[at].to_string());
            let (line, column) = src.line_col(at);
            let line_start = at - column;
            let at_key = src.chars[line_start..at].iter().all(|&ch| ch == ' ')
                && failure
                    .open_map
                    .is_some_and(|m| src.line_col(m).1 == column && src.line_col(m).0 < line);
            match failure.open_map {
                Some(map) if at_key => Marked::new(
                    Some("while parsing a block mapping"),
                    Some(map),
                    format!("expected <block end>, but found {found}"),
                    Some(at),
                ),
                _ => Marked::new(
                    Some("while parsing a block node"),
                    Some(at),
                    format!("expected the node content, but found {found}"),
                    Some(at),
                ),
            }
        }
        ErrorKind::SimpleKeyExpected => match stale_key_end(src, at) {
            Some(pos) => Marked::new(
                Some("while scanning a simple key"),
                Some(at),
                "could not find expected ':'".to_owned(),
                Some(pos),
            ),
            None => generic(err),
        },
        ErrorKind::ExpectedDocumentStart => Marked::new(
            Some("expected a single document in the stream"),
            Some(failure.root.unwrap_or_default()),
            "but found another document".to_owned(),
            Some(at),
        ),
        ErrorKind::ExpectedBlockMappingKey | ErrorKind::ExpectedBlockSequenceEntry => {
            let (context, open) = if matches!(err.kind(), ErrorKind::ExpectedBlockMappingKey) {
                ("while parsing a block mapping", failure.open_map)
            } else {
                ("while parsing a block collection", failure.open_seq)
            };
            match (open, found_token(tokens, src, at)) {
                (Some(open), Some((pos, id))) => Marked::new(
                    Some(context),
                    Some(open),
                    format!("expected <block end>, but found {}", py_repr(id)),
                    Some(pos),
                ),
                _ => generic(err),
            }
        }
        _ => generic(err),
    }
}

/// Where ruamel notices that the plain-scalar key at `key` has no `:`:
/// the reader's position after the scalar (its continuation lines and the
/// blank lines after it), or after a comment that ends its line.
fn stale_key_end(src: &Source, key: usize) -> Option<usize> {
    let c = |i: usize| src.chars.get(i).copied().unwrap_or('\0');
    let brk = |ch: char| matches!(ch, '\n' | '\r');
    if !plain_start(src, key) {
        return None;
    }
    let min_column = src.line_col(key).1 + 1;
    let mut i = key;
    loop {
        // One line of the scalar.
        loop {
            match c(i) {
                '\0' => return Some(i),
                '\t' => return None,
                // On a continuation line, `: ` ends the scalar there.
                ':' if matches!(c(i + 1), '\0' | ' ' | '\t' | '\n' | '\r') => {
                    return (i > key && src.line_col(i).0 != src.line_col(key).0).then_some(i);
                }
                ' ' if c(i + 1) == '#' => {
                    // A comment ends the scalar; the next fetch reads it and
                    // the line breaks after it.
                    i += 1;
                    while !brk(c(i)) && c(i) != '\0' {
                        i += 1;
                    }
                    while brk(c(i)) {
                        i += 1;
                    }
                    return Some(i);
                }
                ch if brk(ch) => break,
                _ => i += 1,
            }
        }
        // The line break, then spaces and blank lines.
        while c(i) == ' ' || brk(c(i)) {
            i += 1;
        }
        if c(i) == '\0' || c(i) == '#' || src.line_col(i).1 < min_column {
            return Some(i);
        }
    }
}

/// The top-level plain-scalar key, on an earlier line, that ruamel is
/// still waiting to see a `:` for when it reaches the tab at `tab` (a tab
/// that only spaces precede on its line).
pub(super) fn key_missing_colon_before(src: &Source, tab: usize) -> Option<usize> {
    let (line, column) = src.line_col(tab);
    let line_start = tab - column;
    if line == 0 || !src.chars[line_start..tab].iter().all(|&c| c == ' ') {
        return None;
    }
    // The start of the nearest earlier line with content.
    let mut end = line_start;
    loop {
        let start = src.chars[..end.checked_sub(1)?]
            .iter()
            .rposition(|&c| matches!(c, '\n' | '\r'))
            .map_or(0, |i| i + 1);
        if src.chars[start..end - 1].iter().any(|&c| c != ' ') {
            return (src.chars.get(start) != Some(&' ') && stale_key_end(src, start) == Some(tab))
                .then_some(start);
        }
        if start == 0 {
            return None;
        }
        end = start;
    }
}

/// The first `...` line (a document end marker) after `from`.
fn document_marker_after(src: &Source, from: usize) -> Option<usize> {
    let c = &src.chars;
    (from + 1..c.len()).find(|&i| {
        c[i - 1] == '\n'
            && c.get(i..i + 3).is_some_and(|p| p == ['.', '.', '.'])
            && c.get(i + 3)
                .is_none_or(|n| matches!(n, ' ' | '\t' | '\n' | '\r'))
    })
}

/// What ruamel finds wrong in the header of the block scalar at `at` (the
/// `|` or `>`): its indicators, then the rest of the line.
fn block_header_problem(src: &Source, at: usize) -> Option<(usize, String)> {
    let c = |i: usize| src.chars.get(i).copied().unwrap_or('\0');
    let ends = |ch: char| matches!(ch, '\0' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let zero = |i: usize| {
        Some((
            i,
            "expected indentation indicator in the range 1-9, but found 0".to_owned(),
        ))
    };
    let mut i = at + 1;
    if matches!(c(i), '+' | '-') {
        i += 1;
        if c(i).is_ascii_digit() {
            if c(i) == '0' {
                return zero(i);
            }
            i += 1;
        }
    } else if c(i).is_ascii_digit() {
        if c(i) == '0' {
            return zero(i);
        }
        i += 1;
        if matches!(c(i), '+' | '-') {
            i += 1;
        }
    }
    if !(c(i) == ' ' || ends(c(i))) {
        return Some((
            i,
            format!(
                "expected chomping or indentation indicators, but found {}",
                py_repr(&c(i).to_string())
            ),
        ));
    }
    while c(i) == ' ' {
        i += 1;
    }
    if c(i) == '#' || ends(c(i)) {
        return None;
    }
    Some((
        i,
        format!(
            "expected a comment or a line break, but found {}",
            py_repr(&c(i).to_string())
        ),
    ))
}

fn generic(err: &ScanError) -> Marked {
    Marked::new(None, None, err.info(), Some(err.marker().index()))
}

/// The token the parser found at `at` (block ends are consumed there
/// first), at the position ruamel gives it.
fn found_token(tokens: &Tokens, src: &Source, at: usize) -> Option<(usize, &'static str)> {
    let t = tokens
        .list
        .iter()
        .find(|t| t.start >= at && t.id != "<block end>")?;
    let mut pos = t.start;
    if t.id == "-" {
        // The scanner puts a block entry after its `- `; ruamel at the `-`.
        while pos > 0 && src.chars.get(pos) != Some(&'-') {
            pos -= 1;
        }
    }
    Some((pos, t.id))
}

/// The first unknown escape of the double-quoted scalar opening at `quote`.
fn bad_escape(src: &Source, quote: usize) -> Option<(usize, char)> {
    let mut i = quote + 1;
    while let Some(&c) = src.chars.get(i) {
        match c {
            '"' => return None,
            '\\' => {
                let next = *src.chars.get(i + 1)?;
                let known = matches!(
                    next,
                    '0' | 'a'
                        | 'b'
                        | 't'
                        | '\t'
                        | 'n'
                        | 'v'
                        | 'f'
                        | 'r'
                        | 'e'
                        | ' '
                        | '"'
                        | '/'
                        | '\\'
                        | 'N'
                        | '_'
                        | 'L'
                        | 'P'
                        | 'x'
                        | 'u'
                        | 'U'
                        | '\n'
                        | '\r'
                        | '\u{85}'
                        | '\u{2028}'
                        | '\u{2029}'
                );
                if !known {
                    return Some((i + 1, next));
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    None
}
