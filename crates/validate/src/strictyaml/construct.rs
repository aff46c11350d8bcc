//! Construction: the parsed nodes made into strictyaml's values (every
//! scalar a string), with the checks ruamel's constructor and strictyaml
//! make after parsing (unhashable and duplicate keys, sibling mappings
//! indented differently).

use std::collections::HashSet;

use super::parse::{Raw, RawKind};
use super::pyrepr::py_repr;
use super::source::{Marked, Source};

/// A loaded YAML value: strictyaml's `Any` schema gives only strings,
/// lists and mappings (in document order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A scalar, as text.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in document order, keys unique.
    Map(Vec<(String, Node)>),
}

/// Builds the value as ruamel's constructor does, depth first: a key's
/// value before the key's duplicate check, a mapping's indentation check
/// after all its entries.
pub(super) fn construct(raw: &Raw, src: &Source) -> Result<Node, Marked> {
    match &raw.kind {
        RawKind::Scalar(s) => Ok(Node::Str(s.clone())),
        RawKind::Seq(items) => items
            .iter()
            .map(|i| construct(i, src))
            .collect::<Result<_, _>>()
            .map(Node::Seq),
        RawKind::Map(entries) => {
            let mut out: Vec<(String, Node)> = Vec::with_capacity(entries.len());
            let mut seen: HashSet<String> = HashSet::with_capacity(entries.len());
            for (key, value) in entries {
                let k = match construct(key, src)? {
                    Node::Str(s) => s,
                    Node::Seq(items) => tuple_repr(&items),
                    Node::Map(_) => {
                        return Err(Marked::new(
                            Some("while constructing a mapping"),
                            Some(raw.start),
                            "found unhashable key".to_owned(),
                            Some(key.start),
                        ));
                    }
                };
                let v = construct(value, src)?;
                if !seen.insert(k.clone()) {
                    return Err(Marked::new(
                        Some("While parsing"),
                        Some(key.start),
                        format!("Duplicate key '{k}' found"),
                        Some(key.end),
                    ));
                }
                out.push((k, v));
            }
            let mut previous = None;
            for (_, value) in entries {
                if !matches!(value.kind, RawKind::Map(_)) {
                    continue;
                }
                let column = src.line_col(value.start).1;
                match previous {
                    None => previous = Some(column),
                    Some(p) if p != column => {
                        return Err(Marked::new(
                            Some("While parsing"),
                            Some(value.start),
                            "Found mapping with indentation inconsistent with previous mapping"
                                .to_owned(),
                            Some(value.end),
                        ));
                    }
                    Some(_) => {}
                }
            }
            Ok(Node::Map(out))
        }
    }
}

/// Python's `str()` of a tuple of strings (a sequence used as a key).
fn tuple_repr(items: &[Node]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|n| match n {
            Node::Str(s) => py_repr(s),
            _ => "[...]".to_owned(),
        })
        .collect();
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}
