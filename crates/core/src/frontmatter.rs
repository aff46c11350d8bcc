//! YAML frontmatter: YAML 1.2 parsing into a JSON mapping, and the one-step
//! repair of SPEC §2.1 step 3.
//!
//! Positions reported here are already in SKILL.md coordinates: the opening
//! `---` is line 1, so YAML line `l` is file line `l + 1`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{DefaultMessageFormatter, MessageFormatter};

/// A frontmatter mapping, keys as written.
pub type Mapping = Map<String, Value>;

/// A YAML error positioned in the SKILL.md file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the file.
    pub line: u32,
    /// 1-based column in the file.
    pub column: u32,
    /// The parser's reason, without a position.
    pub reason: String,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.reason
        )
    }
}

/// The outcome of parsing one frontmatter block.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// It parsed as written.
    Clean(Mapping),
    /// It parsed only after the repair; the error is the original one.
    Repaired(Mapping, YamlError),
    /// It did not parse, even after the repair; the error is the original one.
    Failed(YamlError),
}

/// Parses frontmatter YAML, retrying once after the repair rewrites.
pub fn parse(yaml: &str) -> Parsed {
    let err = match parse_strict(yaml) {
        Ok(map) => return Parsed::Clean(map),
        Err(err) => err,
    };
    let repaired = repair(yaml);
    if repaired != yaml
        && let Ok(map) = parse_strict(&repaired)
    {
        return Parsed::Repaired(map, err);
    }
    Parsed::Failed(err)
}

/// Parses YAML 1.2 into a mapping with no repair. Empty or comment-only
/// YAML and non-mapping documents give an empty mapping.
pub fn parse_strict(yaml: &str) -> Result<Mapping, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    match parse_simple(yaml) {
        Some(map) => Ok(map),
        None => parse_yaml(yaml),
    }
}

/// The usual shape of frontmatter, read without the YAML machinery (which
/// costs ten times more): top-level `key: value` lines, blank lines between
/// them, and `key:` lines followed by one indented block of such lines (a
/// nested mapping, e.g. `metadata`). Each key is an ASCII word used once in
/// its mapping; each value is `true`, `false`, or a one-line ASCII string
/// that YAML 1.2 reads as itself: plain (starting with a letter, no `: `
/// or ` #`), or quoted without escapes (`"…"` without `"` or `\`, `'…'`
/// without `'`). Anything else is `None` and goes to the YAML parser,
/// which gives the same mapping for every document this accepts (a
/// property test holds the two against each other).
pub fn parse_simple(yaml: &str) -> Option<Mapping> {
    let lines = memchr::memchr_iter(b'\n', yaml.as_bytes()).count() + 1;
    let mut map = Mapping::with_capacity(lines);
    walk_simple(yaml, |key, value| {
        let value = match value {
            Simple::Scalar(s) => s.to_value(),
            Simple::Block(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), v.to_value()))
                    .collect(),
            ),
        };
        map.insert(key.to_owned(), value);
    })?;
    Some(map)
}

/// A scalar of the fast reader, borrowed from the YAML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar<'a> {
    /// `true` or `false`.
    Bool(bool),
    /// A string, as YAML reads it (quotes removed).
    Str(&'a str),
}

impl Scalar<'_> {
    fn to_value(self) -> Value {
        match self {
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Str(s) => Value::String(s.to_owned()),
        }
    }
}

/// A top-level value of the fast reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Simple<'a> {
    /// `key: value`.
    Scalar(Scalar<'a>),
    /// `key:` and the indented `key: value` lines under it, in order.
    Block(Vec<(&'a str, Scalar<'a>)>),
}

/// Walks a document of the shape [`parse_simple`] reads, handing each
/// top-level key and value to `f`, in order, without building a mapping.
/// `None` when the document is not of that shape; `f` may have seen some of
/// its keys by then. For a document it accepts, the keys and values `f`
/// sees are [`parse_simple`]'s mapping, entry by entry.
pub fn walk_simple<'a>(yaml: &'a str, mut f: impl FnMut(&'a str, Simple<'a>)) -> Option<()> {
    let blank = |line: &str| line.bytes().all(|b| b == b' ');
    let mut keys = Keys::default();
    let mut lines = yaml.split('\n').peekable();
    while let Some(line) = lines.next() {
        if blank(line) {
            continue;
        }
        let (key, rest) = line.split_once(':')?;
        if !simple_key(key) || !keys.first_use(key) {
            // A duplicate key: the YAML parser reports it.
            return None;
        }
        if blank(rest) {
            // `key:` and the indented block under it.
            let mut inner: Vec<(&str, Scalar<'_>)> = Vec::new();
            let mut indent = None;
            while let Some(next) = lines.peek() {
                if blank(next) {
                    lines.next();
                    continue;
                }
                let n = next.bytes().take_while(|&b| b == b' ').count();
                if n == 0 {
                    break;
                }
                if *indent.get_or_insert(n) != n {
                    return None;
                }
                let (k, v) = next[n..].split_once(':')?;
                if !simple_key(k) || inner.iter().any(|(seen, _)| *seen == k) {
                    return None;
                }
                inner.push((k, scalar(v)?));
                lines.next();
            }
            if inner.is_empty() {
                return None; // a null: the YAML parser's business
            }
            f(key, Simple::Block(inner));
        } else {
            f(key, Simple::Scalar(scalar(rest)?));
        }
    }
    Some(())
}

/// The top-level keys seen, for duplicates: the first few in place.
#[derive(Default)]
struct Keys<'a> {
    few: [&'a str; 8],
    len: usize,
    more: Vec<&'a str>,
}

impl<'a> Keys<'a> {
    /// Records `key`; `false` when it was seen before.
    fn first_use(&mut self, key: &'a str) -> bool {
        let few = &self.few[..self.len.min(self.few.len())];
        if few.contains(&key) || self.more.contains(&key) {
            return false;
        }
        match self.few.get_mut(self.len) {
            Some(slot) => *slot = key,
            None => self.more.push(key),
        }
        self.len += 1;
        true
    }
}

/// A key of the fast reader: an ASCII word.
fn simple_key(key: &str) -> bool {
    plain_word(key)
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The value after a key's `:` (which must be followed by a space).
fn scalar(rest: &str) -> Option<Scalar<'_>> {
    let v = rest.strip_prefix(' ')?.trim_matches(' ');
    let quoted = |q: char| {
        v.strip_prefix(q)
            .and_then(|v| v.strip_suffix(q))
            .filter(|inner| !inner.contains(q) && printable(inner.as_bytes()))
    };
    match v {
        "true" => Some(Scalar::Bool(true)),
        "false" => Some(Scalar::Bool(false)),
        _ if v.starts_with('"') => quoted('"')
            .filter(|inner| !inner.contains('\\'))
            .map(Scalar::Str),
        _ if v.starts_with('\'') => quoted('\'').map(Scalar::Str),
        _ if plain_word(v) && simple_plain(v) => Some(Scalar::Str(v)),
        _ => None,
    }
}

/// Starts with an ASCII letter and is no word YAML (or a float parser)
/// could read as something other than a string.
fn plain_word(s: &str) -> bool {
    const SPECIAL: [&str; 6] = ["null", "true", "false", "inf", "infinity", "nan"];
    s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && !SPECIAL.iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// Printable ASCII that stays one plain scalar in block context: no `: `
/// or ` #` inside, no `:` at the end.
fn simple_plain(s: &str) -> bool {
    let b = s.as_bytes();
    printable(b)
        && memchr::memchr2_iter(b':', b'#', b).all(|i| match b[i] {
            b':' => b.get(i + 1).is_some_and(|&n| n != b' '),
            _ => i == 0 || b[i - 1] != b' ',
        })
}

/// Every byte printable ASCII (`' '..='~'`), checked without branching
/// per byte, so that the compiler can check many at once.
fn printable(b: &[u8]) -> bool {
    b.iter()
        .fold(true, |ok, &c| ok & (c.wrapping_sub(b' ') <= b'~' - b' '))
}

/// The YAML parser itself.
fn parse_yaml(yaml: &str) -> Result<Mapping, YamlError> {
    let options = serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
        non_finite_float_policy: serde_saphyr::options::NonFiniteFloatPolicy::PassThrough,
    };
    match serde_saphyr::from_str_with_options::<Json>(yaml, options) {
        Ok(Json(Value::Object(map))) => Ok(map),
        Ok(_) => Ok(Mapping::new()),
        Err(err) => Err(position(&err)),
    }
}

fn position(err: &serde_saphyr::Error) -> YamlError {
    let (line, column) = err
        .location()
        .filter(|l| l.line() > 0)
        .map_or((1, 1), |l| (l.line(), l.column().max(1)));
    let reason = DefaultMessageFormatter.format_message(err);
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    YamlError {
        line: u32::try_from(line + 1).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        reason,
    }
}

/// The two repair rewrites: leading tabs become two spaces each, and each
/// top-level `key: value` line whose plain value contains `: ` or ` #` gets
/// its value single-quoted.
pub fn repair(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 16);
    for (i, line) in yaml.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let tabs = line.len() - line.trim_start_matches('\t').len();
        let line_owned;
        let line = if tabs > 0 {
            line_owned = format!("{}{}", "  ".repeat(tabs), &line[tabs..]);
            line_owned.as_str()
        } else {
            line
        };
        match quote_value(line) {
            Some(fixed) => out.push_str(&fixed),
            None => out.push_str(line),
        }
    }
    out
}

fn quote_value(line: &str) -> Option<String> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '-' | '\'' | '"' | '[' | '{' | '?') {
        return None;
    }
    let colon = line.find(": ")?;
    let (key, rest) = (&line[..colon], &line[colon + 2..]);
    let value = rest.trim();
    if value.is_empty() || key.trim().is_empty() {
        return None;
    }
    if value.starts_with(['\'', '"', '[', '{', '|', '>', '&', '*', '!']) {
        return None;
    }
    if !(value.contains(": ") || value.contains(" #")) {
        return None;
    }
    Some(format!("{key}: '{}'", value.replace('\'', "''")))
}

/// A YAML value as JSON: non-string keys become strings, non-finite floats
/// become null.
struct Json(Value);

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor).map(Json)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or_else(|_| Value::from(v as f64), Value::from))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v).map_or_else(|_| Value::from(v as f64), Value::from))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Json(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(Json(key)) = map.next_key()? {
            let key = match key {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let Json(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn clean(yaml: &str) -> Value {
        match parse(yaml) {
            Parsed::Clean(m) => Value::Object(m),
            other => panic!("expected clean parse, got {other:?}"),
        }
    }

    #[test]
    fn yaml_1_2_scalars() {
        let v = clean("a: yes\nb: no\nc: true\nd: 2024-01-02\ne: ~\nf: .inf\ng: 3\nh: 1.5");
        assert_eq!(
            v,
            json!({"a": "yes", "b": "no", "c": true, "d": "2024-01-02", "e": null, "f": null, "g": 3, "h": 1.5})
        );
    }

    #[test]
    fn non_string_keys_become_strings() {
        assert_eq!(
            clean("1: a\ntrue: b\nnull: c"),
            json!({"1": "a", "true": "b", "null": "c"})
        );
    }

    #[test]
    fn empty_comment_only_and_non_mapping_are_empty() {
        assert_eq!(clean(""), json!({}));
        assert_eq!(clean("# just a comment\n"), json!({}));
        assert_eq!(clean("- a\n- b"), json!({}));
        assert_eq!(clean("plain"), json!({}));
    }

    #[test]
    fn duplicate_keys_are_errors_with_file_position() {
        let Parsed::Failed(err) = parse("name: a\nname: b") else {
            panic!("duplicate accepted")
        };
        assert_eq!(err.line, 3, "YAML line 2 is file line 3: {err:?}");
    }

    #[test]
    fn colon_in_value_is_repaired() {
        let Parsed::Repaired(map, err) = parse("name: x\ndescription: Use it: now") else {
            panic!("not repaired")
        };
        assert_eq!(map["description"], "Use it: now");
        assert_eq!(err.line, 3);
        assert!(!err.reason.is_empty());
    }

    #[test]
    fn tabs_are_repaired() {
        let Parsed::Repaired(map, _) = parse("metadata:\n\tauthor: me\ndescription: d") else {
            panic!("not repaired")
        };
        assert_eq!(map["metadata"], json!({"author": "me"}));
    }

    #[test]
    fn broken_flow_is_an_error() {
        assert!(matches!(parse("description: [unclosed"), Parsed::Failed(_)));
    }

    #[test]
    fn simple_documents_skip_the_yaml_parser() {
        let yaml = "name: pdf-tools\ndescription: Use it (with care), it's fine.\n\nhide: true\nlicense: Apache-2.0\nallowed-tools: Bash(git:*) Read";
        let map = parse_simple(yaml).expect("simple");
        assert_eq!(Ok(map), parse_yaml(yaml));
        // YAML 1.1 words are strings in YAML 1.2, both ways.
        for word in [
            "A", "yes", "No", "on", "OFF", "y", "n", "e5", "Inf1", "nulls",
        ] {
            let yaml = format!("k: {word}");
            let map = parse_simple(&yaml).expect("simple");
            assert_eq!(map["k"], Value::String(word.to_owned()));
            assert_eq!(Ok(map), parse_yaml(&yaml), "{word}");
        }
        let nested = "name: x\nmetadata:\n  version: \"1.3\"\n  author: team-3\n\n  when: 'a: b # c'\ndescription: \"Use it: now\"";
        let map = parse_simple(nested).expect("simple");
        assert_eq!(map["metadata"]["version"], "1.3");
        assert_eq!(Ok(map), parse_yaml(nested));
        for not_simple in [
            "a:",
            "a:\n  b:\n    c: d",
            "a:\n  b: c\n   d: e",
            "a: \"b\\nc\"",
            "a: \"b\" c",
            "a: 'it''s'",
            "a: 1",
            "a: yes: no",
            "a: b #c",
            "a: True",
            "a: ~",
            " a: b",
            "a:b",
            "a: b\na: c",
            "a: b\n  c",
            "a: caf\u{e9}",
        ] {
            assert_eq!(parse_simple(not_simple), None, "{not_simple:?}");
        }
    }

    mod differential {
        use super::*;
        use proptest::prelude::*;

        fn key() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-zA-Z_][a-zA-Z0-9_-]{0,6}",
                prop::sample::select(vec![
                    "name", "true", "True", "NULL", "null", "inf", "NaN", "yes", "y", "on", "1",
                    "-a",
                ])
                .prop_map(str::to_owned),
            ]
        }

        fn value() -> impl Strategy<Value = String> {
            prop_oneof![
                "[ -~]{0,16}",
                "[a-zA-Z][a-zA-Z0-9 .,()'\"*:#-]{0,16}",
                prop::sample::select(vec![
                    "true",
                    "false",
                    "True",
                    "FALSE",
                    "yes",
                    "No",
                    "on",
                    "off",
                    "y",
                    "n",
                    "null",
                    "Null",
                    "~",
                    "inf",
                    "Infinity",
                    "nan",
                    "NaN",
                    "e5",
                    "x1",
                    "a: b",
                    "a #b",
                    "a:",
                    "a:b",
                    "a#b",
                    "a - b",
                    "a ? b",
                    "a [b] {c}",
                    "a & *b !c |d >e %f @g `h`",
                    "0x1F",
                    "1e3",
                    ".inf",
                    "2024-01-02",
                    "a\tb",
                    "a  b",
                    "a ",
                    " a",
                    "\u{e9}t\u{e9}",
                ])
                .prop_map(str::to_owned),
            ]
        }

        fn quoted() -> impl Strategy<Value = String> {
            prop_oneof![
                "[ -~]{0,12}".prop_map(|v| format!("\"{v}\"")),
                "[ -~]{0,12}".prop_map(|v| format!("'{v}'")),
                "[ -~]{0,12}".prop_map(|v| format!("\"{v}")),
                "[a-z\\\\ '\"#:]{0,8}".prop_map(|v| format!("\"{v}\" ")),
                "[a-z\\\\ '\"#:]{0,8}".prop_map(|v| format!("'{v}'")),
                "[a-z ]{0,6}".prop_map(|v| format!("\"{v}\" # c")),
            ]
        }

        fn line() -> impl Strategy<Value = String> {
            prop_oneof![
                // mostly lines the fast reader may accept, then anything
                12 => ("[a-zA-Z][a-zA-Z0-9_-]{0,6}", "[a-zA-Z][ -~]{0,16}")
                    .prop_map(|(k, v)| format!("{k}: {v}")),
                4 => ("[a-zA-Z][a-zA-Z0-9_-]{0,6}", quoted())
                    .prop_map(|(k, v)| format!("{k}: {v}")),
                6 => (key(), prop::sample::select(vec![": ", ":  ", ":", " : ", ":\t"]), value())
                    .prop_map(|(k, sep, v)| format!("{k}{sep}{v}")),
                // a nested block: `key:` then indented lines
                3 => (
                    "[a-z]{1,6}",
                    prop::sample::select(vec!["", " ", "  "]),
                    prop::collection::vec(
                        (
                            prop::sample::select(vec!["  ", "  ", "  ", "   ", " ", "\t", ""]),
                            "[a-zA-Z][a-zA-Z0-9_-]{0,5}",
                            prop_oneof!["[a-zA-Z][ -~]{0,10}", quoted(), Just(String::new())],
                        ),
                        0..4,
                    ),
                )
                    .prop_map(|(k, trail, inner)| {
                        let mut s = format!("{k}:{trail}");
                        for (indent, ik, iv) in inner {
                            s.push_str(&format!("\n{indent}{ik}: {iv}"));
                        }
                        s
                    }),
                1 => prop::sample::select(vec!["", "  ", "# c", "  b: c", "- x", "...", "? a", "  - x"])
                    .prop_map(str::to_owned),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(6000))]

            /// Whatever the fast reader accepts, the YAML parser reads the
            /// same way.
            #[test]
            fn simple_agrees_with_yaml(lines in prop::collection::vec(line(), 1..5)) {
                let yaml = lines.join("\n");
                if let Some(map) = parse_simple(&yaml)
                    && !yaml.trim().is_empty()
                {
                    prop_assert_eq!(Ok(map), parse_yaml(&yaml), "{:?}", yaml);
                }
            }
        }
    }

    #[test]
    fn repair_quotes_only_plain_values_with_colon_or_hash() {
        assert_eq!(repair("a: b: c"), "a: 'b: c'");
        assert_eq!(repair("a: it's #1: yes"), "a: 'it''s #1: yes'");
        assert_eq!(repair("a: \"b: c\""), "a: \"b: c\"");
        assert_eq!(repair("  a: b: c"), "  a: b: c");
        assert_eq!(repair("a: plain"), "a: plain");
        assert_eq!(repair("\t\tx: 1"), "    x: 1");
    }
}
