//! YAML frontmatter: YAML 1.2 parsing into a JSON mapping, and the one-step
//! repair of SPEC §2.1 step 3.
//!
//! Positions reported here are already in SKILL.md coordinates: the opening
//! `---` is line 1, so YAML line `l` is file line `l + 1`.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use serde_saphyr::{DefaultMessageFormatter, MessageFormatter, Spanned};

mod tabs;

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

/// A key given twice in one mapping (SPEC §2.1 step 3): the last value is
/// kept, and this says where the later key stands, in SKILL.md coordinates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The key as written (a non-string key as its JSON text).
    pub key: String,
    /// 1-based line of the later occurrence in the file.
    pub line: u32,
    /// 1-based column of the later occurrence in the file.
    pub column: u32,
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
    parse_noting(yaml, &mut Vec::new())
}

/// [`parse`], adding the keys given twice to `duplicates`, in document
/// order (none when the YAML did not parse).
pub fn parse_noting(yaml: &str, duplicates: &mut Vec<DuplicateKey>) -> Parsed {
    let err = match parse_strict_noting(yaml, duplicates) {
        Ok(map) => return Parsed::Clean(map),
        Err(err) => html_comment_hint(yaml, err),
    };
    let repaired = repair(yaml);
    if repaired != yaml
        && let Ok(map) = parse_strict_noting(&repaired, duplicates)
    {
        // The repair widened leading tabs: give the columns as written
        // (the lines looked up once, not once per repeated key).
        if !duplicates.is_empty() {
            let lines: Vec<&str> = yaml.split('\n').collect();
            for dup in duplicates.iter_mut() {
                let line = lines.get(dup.line.saturating_sub(2) as usize);
                let tabs = line.map_or(0, |l| l.len() - l.trim_start_matches('\t').len());
                let tabs = u32::try_from(tabs).unwrap_or(0);
                if dup.column > 2 * tabs {
                    dup.column -= tabs;
                }
            }
        }
        return Parsed::Repaired(map, err);
    }
    Parsed::Failed(err)
}

/// An error on a line holding an HTML comment says how YAML comments
/// are written: Markdown authors expect `<!-- … -->` to be invisible, and
/// it is not, here (the guide's deliberate differences).
fn html_comment_hint(yaml: &str, mut err: YamlError) -> YamlError {
    let line = yaml
        .split('\n')
        .nth(err.line.saturating_sub(2) as usize)
        .map(str::trim);
    if line.is_some_and(|l| l.starts_with("<!--") || l.ends_with("-->")) {
        err.reason
            .push_str("; an HTML comment is not YAML (YAML comments start with #)");
    }
    err
}

/// Parses YAML 1.2 into a mapping with no repair. Empty or comment-only
/// YAML and non-mapping documents give an empty mapping; a key given twice
/// keeps its last value.
pub fn parse_strict(yaml: &str) -> Result<Mapping, YamlError> {
    parse_strict_noting(yaml, &mut Vec::new())
}

fn parse_strict_noting(
    yaml: &str,
    duplicates: &mut Vec<DuplicateKey>,
) -> Result<Mapping, YamlError> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    match parse_simple(yaml) {
        Some(map) => Ok(map),
        None => parse_yaml(yaml).map(|(map, dups)| {
            duplicates.extend(dups);
            map
        }),
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
            let mut inner_keys = Keys::default();
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
                if !simple_key(k) || !inner_keys.first_use(k) {
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

/// The keys of one mapping seen so far, for duplicates: the first few in
/// place, compared one by one, the rest in a hash set, so that a document
/// of many keys is read in linear time.
#[derive(Default)]
struct Keys<'a> {
    few: [&'a str; 8],
    len: usize,
    more: HashSet<&'a str>,
}

impl<'a> Keys<'a> {
    /// Records `key`; `false` when it was seen before.
    fn first_use(&mut self, key: &'a str) -> bool {
        let few = &self.few[..self.len.min(self.few.len())];
        if few.contains(&key) {
            return false;
        }
        match self.few.get_mut(self.len) {
            Some(slot) => *slot = key,
            None if !self.more.insert(key) => return false,
            None => {}
        }
        self.len += 1;
        true
    }
}

/// Longest key written without `?` that YAML 1.2 reads (an implicit key
/// spans at most 1024 characters); the YAML parser refuses a longer one.
const MAX_KEY_LEN: usize = 1024;

/// A key of the fast reader: an ASCII word YAML reads as an implicit key.
fn simple_key(key: &str) -> bool {
    key.len() <= MAX_KEY_LEN
        && plain_word(key)
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

/// The YAML parser itself: the mapping, and the keys given twice in it.
/// Repeated keys reach [`JsonVisitor`], which keeps the last value and
/// notes where the repeat stands.
fn parse_yaml(yaml: &str) -> Result<(Mapping, Vec<DuplicateKey>), YamlError> {
    let options = serde_saphyr::options! {
        strict_booleans: true,
        with_snippet: false,
        non_finite_float_policy: serde_saphyr::options::NonFiniteFloatPolicy::PassThrough,
        duplicate_keys: serde_saphyr::options::DuplicateKeyPolicy::PassThrough,
    };
    let (map, dups) = match serde_saphyr::from_str_with_options::<Json>(yaml, options) {
        Ok(Json(Value::Object(map), dups)) => (map, dups),
        Ok(Json(_, dups)) => (Mapping::new(), dups),
        Err(err) => return Err(position(&err)),
    };
    // What the parser lets through but YAML 1.2 refuses: a tab in place of
    // indentation (SKILL.md coordinates: YAML line `l` is file line `l + 1`).
    if let Some((line, spaces)) = tabs::tab_as_indentation(yaml) {
        return Err(YamlError {
            line: u32::try_from(line + 2).unwrap_or(u32::MAX),
            column: u32::try_from(spaces + 1).unwrap_or(u32::MAX),
            reason: "tabs are not allowed as indentation".to_owned(),
        });
    }
    Ok((map, dups))
}

/// The YAML parser alone (no fast reader, no repair), for the fuzz target
/// that holds [`parse_simple`] to it.
#[doc(hidden)]
pub fn parse_yaml_only(yaml: &str) -> Result<Mapping, YamlError> {
    parse_yaml(yaml).map(|(map, _)| map)
}

fn position(err: &serde_saphyr::Error) -> YamlError {
    let (line, column) = err
        .location()
        .filter(|l| l.line() > 0)
        .map_or((1, 1), |l| (l.line(), l.column().max(1)));
    let reason = match err {
        serde_saphyr::Error::Budget { breach, .. } => over_budget(breach),
        _ => {
            let reason = DefaultMessageFormatter.format_message(err);
            let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
            for_authors(&reason)
        }
    };
    YamlError {
        line: u32::try_from(line + 1).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
        reason,
    }
}

/// A parser limit the frontmatter went over, in an author's words (the
/// parser says `budget breached: Nodes { nodes: 250001 }`).
fn over_budget(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    let max = serde_saphyr::Budget::default();
    let what = match breach {
        B::Nodes { nodes } => format!(
            "{nodes} YAML values, lists and mappings (at most {})",
            max.max_nodes
        ),
        B::Events { events } => format!("{events} YAML parser events (at most {})", max.max_events),
        B::Depth { depth } => format!("nested {depth} levels deep (at most {})", max.max_depth),
        B::Aliases { aliases } => format!("{aliases} aliases (at most {})", max.max_aliases),
        B::Anchors { anchors } => format!("{anchors} anchors (at most {})", max.max_anchors),
        B::AliasAnchorRatio { aliases, anchors } => {
            format!("{aliases} aliases for {anchors} anchors")
        }
        B::Documents { documents } => {
            format!("{documents} YAML documents (at most {})", max.max_documents)
        }
        B::ScalarBytes { total_scalar_bytes } => format!(
            "{total_scalar_bytes} bytes of values (at most {})",
            max.max_total_scalar_bytes
        ),
        B::MergeKeys { merge_keys } => {
            format!("{merge_keys} merge keys (at most {})", max.max_merge_keys)
        }
        B::SequenceUnbalanced => "a list or mapping closed that was never opened".to_owned(),
        _ => return "the YAML is too large or too complex to read".to_owned(),
    };
    format!("the YAML is too large or too complex to read: {what}")
}

/// A parser message as a skill author should read it (SPEC §2.1 step 3):
/// the parser's advice to the program calling it (its option names, the
/// Rust types to use) is cut, the reason itself kept.
fn for_authors(reason: &str) -> String {
    // Advice always follows the reason, after one of these.
    const ADVICE: [&str; 6] = [
        ", set ",
        ". If you just use ",
        "; use ",
        " (strict mode expects",
        " by the configured policy",
        " by configured policy",
    ];
    let cut = ADVICE
        .iter()
        .filter_map(|a| reason.find(a))
        .min()
        .unwrap_or(reason.len());
    let kept = reason[..cut].trim_end_matches([' ', ',', ';', '.']);
    if kept.is_empty() {
        reason.to_owned()
    } else {
        kept.to_owned()
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
/// become null, and a key given twice keeps its last value; the repeats
/// found in it, in document order.
struct Json(Value, Vec<DuplicateKey>);

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::of(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::of(Value::Number(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::of(Value::Number(v.into())))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Json, E> {
        Ok(Json::of(
            i64::try_from(v).map_or_else(|_| Value::from(v as f64), Value::from),
        ))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Json, E> {
        Ok(Json::of(
            u64::try_from(v).map_or_else(|_| Value::from(v as f64), Value::from),
        ))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::of(
            Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::of(Value::String(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::of(Value::String(v)))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Json, E> {
        Ok(Json::of(Value::String(
            String::from_utf8_lossy(v).into_owned(),
        )))
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::of(Value::Null))
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::of(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        let mut dups = Vec::new();
        while let Some(Json(v, inner)) = seq.next_element()? {
            out.push(v);
            dups.extend(inner);
        }
        Ok(Json(Value::Array(out), dups))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut out = Map::new();
        let mut dups = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Json>>()? {
            let Json(name, inner) = key.value;
            dups.extend(inner);
            let name = match name {
                Value::String(s) => s,
                other => other.to_string(),
            };
            let Json(value, inner) = map.next_value()?;
            if out.contains_key(&name) {
                // SKILL.md coordinates: YAML line `l` is file line `l + 1`.
                let at = key.referenced;
                dups.push(DuplicateKey {
                    key: name.clone(),
                    line: u32::try_from(at.line() + 1).unwrap_or(u32::MAX),
                    column: u32::try_from(at.column().max(1)).unwrap_or(u32::MAX),
                });
                // The last value wins, in the first key's place.
            }
            dups.extend(inner);
            out.insert(name, value);
        }
        Ok(Json(Value::Object(out), dups))
    }
}

impl Json {
    fn of(value: Value) -> Self {
        Json(value, Vec::new())
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
    fn a_duplicate_key_keeps_its_last_value_in_the_first_place() {
        let mut dups = Vec::new();
        let Parsed::Clean(map) = parse_noting("name: a\nlicense: MIT\nname: b", &mut dups) else {
            panic!("duplicate refused")
        };
        assert_eq!(Value::Object(map), json!({"name": "b", "license": "MIT"}));
        let keys: Vec<_> = map_keys(&parse("name: a\nlicense: MIT\nname: b"));
        assert_eq!(keys, ["name", "license"]);
        assert_eq!(
            dups,
            [DuplicateKey {
                key: "name".into(),
                line: 4,
                column: 1
            }],
            "YAML line 3 is file line 4"
        );
    }

    fn map_keys(parsed: &Parsed) -> Vec<String> {
        match parsed {
            Parsed::Clean(m) | Parsed::Repaired(m, _) => m.keys().cloned().collect(),
            Parsed::Failed(_) => Vec::new(),
        }
    }

    #[test]
    fn duplicates_are_noted_at_every_depth_in_document_order() {
        let mut dups = Vec::new();
        let yaml = "a: 1\nmetadata:\n  x: 1\n  x: 2\na: 3\nlist:\n  - k: 1\n    k: 2\n";
        let Parsed::Clean(map) = parse_noting(yaml, &mut dups) else {
            panic!("refused")
        };
        assert_eq!(map["metadata"], json!({"x": 2}));
        assert_eq!(map["list"], json!([{"k": 2}]));
        let at: Vec<_> = dups
            .iter()
            .map(|d| (d.key.as_str(), d.line, d.column))
            .collect();
        assert_eq!(at, [("x", 5, 3), ("a", 6, 1), ("k", 9, 5)]);
    }

    #[test]
    fn duplicates_after_the_repair_keep_the_columns_as_written() {
        let mut dups = Vec::new();
        let yaml = "description: Use it: now\nm:\n\tk: 1\n\tk: 2";
        let Parsed::Repaired(map, _) = parse_noting(yaml, &mut dups) else {
            panic!("not repaired")
        };
        assert_eq!(map["m"], json!({"k": 2}));
        assert_eq!((dups[0].line, dups[0].column), (5, 2));
    }

    #[test]
    fn parser_reasons_carry_no_advice_for_the_caller() {
        for (raw, kept) in [
            (
                "duplicate mapping key: a, set DuplicateKeyPolicy in Options if acceptable",
                "duplicate mapping key: a",
            ),
            (
                "!!binary scalar is not valid UTF-8 so cannot be stored into string. If you just use !!binary for documentation/annotation, set ignore_binary_tag_for_string in Options",
                "!!binary scalar is not valid UTF-8 so cannot be stored into string",
            ),
            (
                "cannot deserialize null into string; use Option<String>",
                "cannot deserialize null into string",
            ),
            ("did not find expected key", "did not find expected key"),
        ] {
            assert_eq!(for_authors(raw), kept);
        }
    }

    #[test]
    fn a_parser_limit_is_told_in_words_not_as_the_parsers_type() {
        let many = format!("tags: [{}]", vec!["1"; 250_001].join(","));
        let deep = format!("tags: {}{}", "[".repeat(70), "]".repeat(70));
        for (yaml, want) in [
            (
                many.as_str(),
                "the YAML is too large or too complex to read: 250001 YAML values, lists and mappings (at most 250000)",
            ),
            (
                deep.as_str(),
                "the YAML is too large or too complex to read: nested 65 levels deep (at most 64)",
            ),
        ] {
            let err = parse_yaml_only(yaml).unwrap_err();
            assert_eq!(err.reason, want);
        }
    }

    #[test]
    fn many_keys_are_read_in_linear_time() {
        // 100,000 distinct keys: the duplicate check must not compare each
        // with all before it (that took minutes).
        let yaml: String = (0..100_000).map(|i| format!("k{i}: v\n")).collect();
        let mut n = 0;
        assert!(walk_simple(&yaml, |_, _| n += 1).is_some());
        assert_eq!(n, 100_000);
        let block: String = std::iter::once("m:\n".to_owned())
            .chain((0..100_000).map(|i| format!("  k{i}: v\n")))
            .collect();
        assert!(parse_simple(&block).is_some());
        // A repeat among many is still found.
        assert!(parse_simple(&format!("{yaml}k99999: w\n")).is_none());
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
    fn tabs_as_indentation_are_not_yaml() {
        // Before the first key: the YAML parser takes the tab for a space;
        // the repair turns it into spaces and says so.
        let Parsed::Repaired(map, err) = parse("\tdescription: x") else {
            panic!("not repaired")
        };
        assert_eq!(Value::Object(map), json!({"description": "x"}));
        let at = (err.line, err.column, err.reason.as_str());
        assert_eq!(at, (2, 1, "tabs are not allowed as indentation"));
        // A tab-only line that ends a block scalar.
        let Parsed::Repaired(map, err) = parse("name: x\ndescription: >-\n  a\n\t") else {
            panic!("not repaired")
        };
        assert_eq!(map["description"], "a");
        assert_eq!((err.line, err.column), (5, 1));
        // A tab after spaces is not the repair's to change: refused.
        let Parsed::Failed(err) = parse(" \tdescription: x") else {
            panic!("not refused")
        };
        assert_eq!((err.line, err.column), (2, 2));
        // Tabs YAML allows stay as written, without a word.
        for (yaml, value) in [
            ("description: |\n  a\n  \tb", json!("a\n\tb\n")),
            ("description: a\tb\n\t\n\t# c", json!("a\tb")),
            ("description: \"a\n \tb\"", json!("a b")),
        ] {
            assert_eq!(clean(yaml)["description"], value, "{yaml:?}");
        }
    }

    #[test]
    fn an_html_comment_line_is_no_yaml_and_the_reason_says_so() {
        for (yaml, line) in [
            ("name: x\n<!-- note -->\ndescription: D", 3),
            ("name: x\n<!--\nnote: y\n-->\ndescription: D", 3),
            ("name: x <!--\ndescription: D\n-->", 4),
        ] {
            let Parsed::Failed(err) = parse(yaml) else {
                panic!("{yaml:?} parsed")
            };
            assert_eq!(err.line, line, "{yaml:?}");
            assert!(
                err.reason
                    .ends_with("; an HTML comment is not YAML (YAML comments start with #)"),
                "{err:?}"
            );
        }
        // Inside a value it is text, as written.
        for yaml in [
            "description: a <!-- b --> c",
            "description: \"a <!-- b --> c\"",
        ] {
            assert_eq!(clean(yaml)["description"], "a <!-- b --> c");
        }
        // Other errors keep their reason.
        let Parsed::Failed(err) = parse("description: [unclosed") else {
            panic!("parsed")
        };
        assert!(!err.reason.contains("HTML"), "{err:?}");
    }

    #[test]
    fn any_tab_sends_a_document_to_the_yaml_parser() {
        for yaml in [
            "\tname: x",
            "name: x\n\t",
            "name:\tx",
            "name: a\tb",
            "name: 'a\tb'",
            "m:\n\tk: v",
            "m:\n  k: \"\tv\"",
        ] {
            assert_eq!(parse_simple(yaml), None, "{yaml:?}");
            assert!(walk_simple(yaml, |_, _| {}).is_none(), "{yaml:?}");
        }
    }

    #[test]
    fn broken_flow_is_an_error() {
        assert!(matches!(parse("description: [unclosed"), Parsed::Failed(_)));
    }

    #[test]
    fn simple_documents_skip_the_yaml_parser() {
        let yaml = "name: pdf-tools\ndescription: Use it (with care), it's fine.\n\nhide: true\nlicense: Apache-2.0\nallowed-tools: Bash(git:*) Read";
        let map = parse_simple(yaml).expect("simple");
        assert_eq!(Ok((map, Vec::new())), parse_yaml(yaml));
        // YAML 1.1 words are strings in YAML 1.2, both ways.
        for word in [
            "A", "yes", "No", "on", "OFF", "y", "n", "e5", "Inf1", "nulls",
        ] {
            let yaml = format!("k: {word}");
            let map = parse_simple(&yaml).expect("simple");
            assert_eq!(map["k"], Value::String(word.to_owned()));
            assert_eq!(Ok((map, Vec::new())), parse_yaml(&yaml), "{word}");
        }
        let nested = "name: x\nmetadata:\n  version: \"1.3\"\n  author: team-3\n\n  when: 'a: b # c'\ndescription: \"Use it: now\"";
        let map = parse_simple(nested).expect("simple");
        assert_eq!(map["metadata"]["version"], "1.3");
        assert_eq!(Ok((map, Vec::new())), parse_yaml(nested));
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

    #[test]
    fn a_key_longer_than_yaml_allows_is_left_to_the_yaml_parser() {
        // YAML 1.2 reads an implicit key of 1024 characters, not 1025 (the
        // fuzz target found the fast reader taking the longer one).
        for at_top in [true, false] {
            for len in [MAX_KEY_LEN, MAX_KEY_LEN + 1] {
                let k = "k".repeat(len);
                let yaml = if at_top {
                    format!("{k}: v")
                } else {
                    format!("m:\n  {k}: v")
                };
                let fits = len <= MAX_KEY_LEN;
                assert_eq!(parse_simple(&yaml).is_some(), fits, "{len}, top {at_top}");
                assert_eq!(parse_yaml(&yaml).is_ok(), fits, "{len}, top {at_top}");
                assert_eq!(matches!(parse(&yaml), Parsed::Failed(_)), !fits);
            }
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
                // tabs: as indentation, alone on a line, after the spaces
                1 => (
                    prop::sample::select(vec!["\t", " \t", "\t ", "  \t", "\t\t"]),
                    prop::sample::select(vec!["", "a: b", "# c", "- x", "b", "k: |"]),
                )
                    .prop_map(|(ws, rest)| format!("{ws}{rest}")),
            ]
        }

        /// Where a tab goes into a line's indentation.
        fn tab_at() -> impl Strategy<Value = (usize, &'static str)> {
            (
                any::<usize>(),
                prop::sample::select(vec!["\t", " \t", "\t ", "\t\t"]),
            )
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
                    prop_assert_eq!(Ok((map, Vec::new())), parse_yaml(&yaml), "{:?}", yaml);
                }
            }

            /// A tab in the indentation of a key is never YAML 1.2, before
            /// the first key (where the YAML parser would let it through)
            /// or any other: the document does not parse as written.
            #[test]
            fn a_tab_before_a_key_is_refused(
                lines in prop::collection::vec(line(), 1..5),
                (at, tab) in tab_at(),
            ) {
                let yaml = lines.join("\n");
                if parse_simple(&yaml).is_some() {
                    let mut lines: Vec<String> = yaml.split('\n').map(str::to_owned).collect();
                    let keys: Vec<usize> = (0..lines.len())
                        .filter(|&i| lines[i].trim_start().contains(':'))
                        .collect();
                    if !keys.is_empty() {
                        let line = &mut lines[keys[at % keys.len()]];
                        let indent = line.len() - line.trim_start().len();
                        line.insert_str(at % (indent + 1), tab);
                        let tabbed = lines.join("\n");
                        prop_assert!(parse_strict(&tabbed).is_err(), "{:?}", tabbed);
                        prop_assert_eq!(parse_simple(&tabbed), None, "{:?}", tabbed);
                    }
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
