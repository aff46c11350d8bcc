//! Tabs used as indentation, which YAML 1.2 forbids and the YAML parser
//! lets through in places (SPEC §2.1 step 3: the YAML is read as YAML 1.2).
//!
//! YAML indents with spaces only. A tab may follow the spaces a line needs
//! (as separation, or as content), but it never stands in for them. The
//! parser checks that within block collections, but not before the first
//! key of a document (`\tname: x`), nor on the lines of a block scalar
//! that hold only white space, nor on the continuation lines of flow
//! scalars and flow collections, nor before a key deeper than its parent's
//! indentation. This walks the parser's events of a document the parser
//! accepted and finds the first line whose leading white space has a tab
//! before the spaces that line needs.
//!
//! How many spaces a line needs depends on what it holds:
//! - a block mapping key or a block entry indicator (`- `, `? `, `: `)
//!   first on its line: all of its indentation is spaces, no tab at all;
//! - a line of a block scalar (white-space-only lines included, and those
//!   after its last line up to the next line with text): the scalar's
//!   content indentation;
//! - a flow node first on its line, a continuation line of a flow scalar,
//!   or a line with text inside a flow collection: one more than the
//!   indentation of the block collection around it (none at the top level);
//! - anything else (blank and comment lines between nodes): nothing.

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

/// One line's leading white space.
struct Line {
    /// Spaces before the first tab, or before the text when there is none.
    spaces: usize,
    /// Whether the leading white space holds a tab.
    tab: bool,
    /// The column of the first character that is not white space (the
    /// line's length when there is none).
    first: usize,
    /// Nothing but white space.
    blank: bool,
    /// The text starts with `#`.
    comment: bool,
    /// The text starts with a block entry indicator: `-`, `?` or `:`
    /// followed by white space or the end of the line.
    indicator: bool,
}

impl Line {
    fn of(text: &str) -> Line {
        let b = text.as_bytes();
        let first = b
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .unwrap_or(b.len());
        let spaces = b[..first].iter().take_while(|&&c| c == b' ').count();
        let rest = &b[first..];
        Line {
            spaces,
            tab: spaces < first,
            first,
            blank: rest.is_empty(),
            comment: rest.first() == Some(&b'#'),
            indicator: matches!(rest.first(), Some(b'-' | b'?' | b':'))
                && rest.get(1).is_none_or(|&c| c == b' ' || c == b'\t'),
        }
    }
}

/// Where the walk stands: inside a block collection (its indentation,
/// and for a mapping whether the next node is a key) or a flow one (the
/// spaces its lines need, and its first line).
enum Within {
    Map { indent: usize, key_next: bool },
    Seq { indent: usize },
    Flow { needs: usize, line: usize },
}

/// No tab at all in the indentation.
const NO_TAB: usize = usize::MAX;

/// The first tab used as indentation in `yaml`, a document the YAML
/// parser accepted: its 0-based line and column (the number of spaces
/// before it). `None` when there is none, or when the parser stops on the
/// document after all.
pub(super) fn tab_as_indentation(yaml: &str) -> Option<(usize, usize)> {
    // The usual document has no tab at all, or none in a line's leading
    // white space.
    memchr::memchr(b'\t', yaml.as_bytes())?;
    let text: Vec<&str> = yaml.split('\n').collect();
    let lines: Vec<Line> = text.iter().map(|t| Line::of(t)).collect();
    if !lines.iter().any(|l| l.tab) {
        return None;
    }
    let mut needs = vec![0usize; lines.len()];
    // Lines that belong to a scalar or a flow collection, where an
    // indicator is text.
    let mut inside = vec![false; lines.len()];
    let mut stack: Vec<Within> = Vec::new();
    let need = |needs: &mut Vec<usize>, i: usize, n: usize| {
        if let Some(slot) = needs.get_mut(i) {
            *slot = (*slot).max(n);
        }
    };
    for event in Parser::new_from_str(yaml) {
        let Ok((event, span)) = event else {
            return None;
        };
        let line = span.start.line().saturating_sub(1);
        let Some(info) = lines.get(line) else {
            continue;
        };
        let first = info.first == span.start.col();
        match event {
            Event::Scalar(_, style, ..) => {
                let (key, needed) = place(&mut stack);
                // An implicit key (`key: value`, not `? key`) stands at
                // its mapping's indentation.
                if key && span.indent == Some(span.start.col()) {
                    if first {
                        need(&mut needs, line, NO_TAB);
                    }
                } else if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                    // A block scalar with content starts at its first
                    // content line, at its indentation (which the parser
                    // gives, mostly).
                    let content =
                        span.start.index() < span.end.index() && span.start.col() <= info.first;
                    let Some(indent) = span.indent.or(Some(span.start.col())).filter(|_| content)
                    else {
                        continue;
                    };
                    // Its lines: back over the blank lines before the first
                    // one, then on while a line is blank or indented as far
                    // as the content. A comment line that ends it needs the
                    // same spaces before a tab.
                    let mut i = line;
                    while i > 0 && lines[i - 1].blank {
                        i -= 1;
                    }
                    while let Some(l) = lines.get(i) {
                        if !l.blank && l.spaces < indent {
                            if l.comment {
                                need(&mut needs, i, indent);
                            }
                            break;
                        }
                        inside[i] = true;
                        if l.blank {
                            need(&mut needs, i, indent);
                        }
                        i += 1;
                    }
                } else {
                    if first {
                        need(&mut needs, line, needed);
                    }
                    for i in line + 1..=last_line(&span, line) {
                        if let Some(slot) = inside.get_mut(i) {
                            *slot = true;
                        }
                        need(&mut needs, i, needed);
                    }
                }
            }
            Event::Alias(_) => {
                let (key, needed) = place(&mut stack);
                if first {
                    need(&mut needs, line, if key { NO_TAB } else { needed });
                }
            }
            Event::MappingStart(style, ..) | Event::SequenceStart(style, ..) => {
                let map = matches!(event, Event::MappingStart(..));
                let (_, needed) = place(&mut stack);
                match style {
                    StructureStyle::Flow => {
                        if first {
                            need(&mut needs, line, needed);
                        }
                        stack.push(Within::Flow {
                            needs: needed,
                            line,
                        });
                    }
                    StructureStyle::Block if map => stack.push(Within::Map {
                        indent: span.start.col(),
                        key_next: true,
                    }),
                    StructureStyle::Block => stack.push(Within::Seq {
                        indent: dash_column(yaml, &span).unwrap_or(needed.saturating_sub(1)),
                    }),
                }
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some(Within::Flow {
                    needs: n,
                    line: start,
                }) = stack.pop()
                {
                    let within = lines.iter().zip(inside.iter_mut()).enumerate();
                    for (i, (l, inside)) in within.take(line + 1).skip(start + 1) {
                        *inside = true;
                        if !l.blank && !l.comment {
                            need(&mut needs, i, n);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    lines.iter().enumerate().find_map(|(i, l)| {
        let needed = if l.indicator && !inside[i] {
            NO_TAB
        } else {
            needs[i]
        };
        (l.tab && l.spaces < needed).then_some((i, l.spaces))
    })
}

/// Takes a node's place in the collection around it: whether it is a
/// block mapping's key, and the spaces its own lines need.
/// (A flow collection holds no block one, so a flow collection's nodes
/// need what the outermost one around them needs.)
fn place(stack: &mut [Within]) -> (bool, usize) {
    match stack.last_mut() {
        Some(Within::Map { indent, key_next }) => {
            let key = *key_next;
            *key_next = !key;
            (key, *indent + 1)
        }
        Some(Within::Seq { indent }) => (false, *indent + 1),
        Some(Within::Flow { needs, .. }) => (false, *needs),
        None => (false, 0),
    }
}

/// The last line a flow scalar's span covers (an end at the start of a
/// line belongs to the line before).
fn last_line(span: &Span, line: usize) -> usize {
    let end = span.end.line().saturating_sub(1);
    if span.end.col() == 0 && end > line {
        end - 1
    } else {
        end.max(line)
    }
}

/// The column of the `-` of a block sequence's first entry: where the
/// sequence starts, or before it on the same line.
fn dash_column(yaml: &str, span: &Span) -> Option<usize> {
    let at = span.start.byte_offset()?;
    let before = yaml.get(..at)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if yaml[at..].starts_with('-') {
        return Some(at - line_start);
    }
    let dash = before.trim_end_matches([' ', '\t']);
    (dash.ends_with('-') && dash.len() > line_start).then(|| dash.len() - 1 - line_start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_before_the_spaces_a_line_needs() {
        for (yaml, at) in [
            ("\tdescription: x", (0, 0)),
            (" \tdescription: x", (0, 1)),
            ("# c\n\tname: x", (1, 0)),
            ("description: >-\n  a\n\t", (2, 0)),
            ("description: >-\n  a\n\t\nname: x", (2, 0)),
            ("d: |\n  a\n \t", (2, 1)),
            ("d: |+\n  a\n\n\t# c", (3, 0)),
            ("description: \"a\n\tb\"", (1, 0)),
            ("a:\n  b: 'x\n  \ty'", (2, 2)),
            ("c: plain\n\t\n  more", (1, 0)),
            ("k:\n  m:\n   \tn: 1", (2, 3)),
            ("g:\n \t- s1\n  - s2", (1, 1)),
            ("i: [a,\n\tb]", (1, 0)),
            ("j: {a: 1,\n\t b: 2}", (1, 0)),
        ] {
            assert_eq!(tab_as_indentation(yaml), Some(at), "{yaml:?}");
        }
    }

    #[test]
    fn tabs_yaml_allows() {
        for yaml in [
            "a: 1",
            "a: 1\n\t\nb: 2",
            "a: 1\n\t# c\nb: 2",
            "\t\n\t# c\na: 1",
            "a:\tb",
            "a: b\tc",
            "d: |\n  a\n  \tb",
            "d: >-\n  a\n  \t\n  b",
            "d: |\n  a\n# c\n\t\nb: 1",
            " \t\n a: >-",
            "a: |\n\t\n",
            "a: \"b\n \tc\"",
            "a: b\n \tc",
            "i: [a,\n \tb,\n\t# c\n\t\n c]",
            "-\tx",
            "- a\n- \"b\n \tc\"",
            "x:\n- \"b\n \tc\"",
            "? \n  \tc",
            "? |\n  a\n  \t- b",
        ] {
            assert_eq!(tab_as_indentation(yaml), None, "{yaml:?}");
        }
    }
}
