//! The parser pass: the document as nodes with their spans (character
//! indices), or where the event parser stopped and which block collections
//! were open there, and a second document if one starts.

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, ScanError};

use super::source::Marked;

/// A node as parsed, with its span (character indices).
#[derive(Debug, Clone)]
pub(super) struct Raw {
    pub(super) kind: RawKind,
    pub(super) start: usize,
    pub(super) end: usize,
}

#[derive(Debug, Clone)]
pub(super) enum RawKind {
    Scalar(String),
    Seq(Vec<Raw>),
    Map(Vec<(Raw, Raw)>),
}

/// Where the parser stopped.
#[derive(Debug)]
pub(super) struct Failure {
    pub(super) error: ScanError,
    /// Start of the innermost open block mapping, then block sequence.
    pub(super) open_map: Option<usize>,
    pub(super) open_seq: Option<usize>,
    /// Start of the document's root node, once it began.
    pub(super) root: Option<usize>,
}

#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) root: Option<Raw>,
    pub(super) failure: Option<Failure>,
    pub(super) second_document: Option<(usize, Marked)>,
}

enum Frame {
    Seq(Raw, Vec<Raw>),
    Map(Raw, Vec<(Raw, Raw)>, Option<Raw>),
}

pub(super) fn parse(yaml: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut documents = 0;
    let mut root: Option<Raw> = None;
    for item in Parser::new_from_str(yaml) {
        let (event, span) = match item {
            Ok(pair) => pair,
            Err(error) => {
                let open = |want_map: bool| {
                    stack.iter().rev().find_map(|f| match f {
                        Frame::Map(raw, ..) if want_map => Some(raw.start),
                        Frame::Seq(raw, _) if !want_map => Some(raw.start),
                        _ => None,
                    })
                };
                let first = stack.first().map(|f| match f {
                    Frame::Map(raw, ..) | Frame::Seq(raw, _) => raw.start,
                });
                out.failure = Some(Failure {
                    error,
                    open_map: open(true),
                    open_seq: open(false),
                    root: root.as_ref().map(|r| r.start).or(first),
                });
                break;
            }
        };
        let (start, end) = (span.start.index(), span.end.index());
        let done = match event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    let first = root.as_ref().map_or(0, |r| r.start);
                    out.second_document = Some((
                        start,
                        Marked::new(
                            Some("expected a single document in the stream"),
                            Some(first),
                            "but found another document".to_owned(),
                            Some(start),
                        ),
                    ));
                    break;
                }
                None
            }
            Event::Scalar(value, style, ..) => {
                let text = if matches!(style, ScalarStyle::Plain) && start == end {
                    String::new()
                } else {
                    value.into_owned()
                };
                Some(Raw {
                    kind: RawKind::Scalar(text),
                    start,
                    end,
                })
            }
            Event::Alias(_) => Some(Raw {
                kind: RawKind::Scalar(String::new()),
                start,
                end,
            }),
            Event::SequenceStart(..) => {
                let raw = Raw {
                    kind: RawKind::Seq(Vec::new()),
                    start,
                    end,
                };
                stack.push(Frame::Seq(raw, Vec::new()));
                None
            }
            Event::MappingStart(..) => {
                let raw = Raw {
                    kind: RawKind::Map(Vec::new()),
                    start,
                    end,
                };
                stack.push(Frame::Map(raw, Vec::new(), None));
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(mut raw, items)) => {
                    raw.kind = RawKind::Seq(items);
                    raw.end = end;
                    Some(raw)
                }
                _ => None,
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(mut raw, entries, _)) => {
                    raw.kind = RawKind::Map(entries);
                    raw.end = end;
                    Some(raw)
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(node) = done {
            match stack.last_mut() {
                Some(Frame::Seq(_, items)) => items.push(node),
                Some(Frame::Map(_, entries, pending)) => match pending.take() {
                    Some(key) => entries.push((key, node)),
                    None => *pending = Some(node),
                },
                None => {
                    if root.is_none() {
                        root = Some(node);
                    }
                }
            }
        }
    }
    out.root = root;
    out
}
