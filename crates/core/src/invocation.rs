//! The invocation fields of a frontmatter (Claude Code's `allowed-tools`,
//! `user-invocable`, `arguments`, … and `metadata.requires`), read once
//! while loading into a skill's typed [`Invocation`].
//!
//! Only a frontmatter that has one of these keys pays for it: the flat
//! reader hands the few values over as it walks (see [`is_key`]), the
//! mapping of any other frontmatter is looked up. A value that cannot be
//! read is a `field-ignored` warning and left out; fields that contradict
//! each other are a `field-conflict` warning. Neither ever drops the
//! skill. Warnings carry the line and column of their key in the file.

use std::path::Path;

use serde_json::Value;
use skillpipe_types::{Diagnostic, DiagnosticCode, Invocation, LISTING_DESCRIPTION_CHARS};

use crate::frontmatter::{Mapping, Scalar, Simple};

/// The keys read here (`metadata` for its `requires`).
const KEYS: [&str; 12] = [
    "allowed-tools",
    "disallowed-tools",
    "user-invocable",
    "argument-hint",
    "arguments",
    "model",
    "effort",
    "context",
    "agent",
    "paths",
    "when_to_use",
    "metadata",
];

/// The values of `effort` Claude Code knows.
const EFFORTS: [&str; 5] = ["low", "medium", "high", "xhigh", "max"];

/// Whether a top-level key is one of the invocation keys.
pub fn is_key(key: &str) -> bool {
    KEYS.contains(&key)
}

/// Keeps a value of the flat reader that [`read`] will want: each
/// invocation key's value, and `metadata` only when it has `requires`.
/// The first such key allocates the small mapping; other frontmatters
/// never do.
pub fn note_simple(into: &mut Option<Mapping>, key: &str, value: &Simple<'_>) {
    let value = match value {
        Simple::Scalar(s) => scalar(*s),
        Simple::Block(entries) if key == "metadata" => {
            if !entries.iter().any(|(k, _)| *k == "requires") {
                return;
            }
            Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), scalar(*v)))
                    .collect(),
            )
        }
        Simple::Block(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), scalar(*v)))
                .collect(),
        ),
    };
    into.get_or_insert_with(Mapping::new)
        .insert(key.to_owned(), value);
}

fn scalar(s: Scalar<'_>) -> Value {
    match s {
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Str(s) => Value::String(s.to_owned()),
    }
}

/// What [`read`] needs besides the values.
pub struct Context<'a> {
    /// The frontmatter's YAML, for the positions of the keys.
    pub yaml: &'a str,
    /// The skill file, which the warnings name.
    pub path: &'a Path,
    /// The skill's description (for `listing_description`).
    pub description: &'a str,
    /// Whether the skill is hidden from the model (`disable-model-invocation`).
    pub hidden: bool,
}

/// Reads the invocation fields of `map` (a whole frontmatter, or what
/// [`note_simple`] kept). `None` when the frontmatter sets none of them
/// (or only ones that could not be read).
pub fn read(
    map: &Mapping,
    cx: &Context<'_>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Box<Invocation>> {
    if !KEYS.iter().any(|k| map.contains_key(*k)) {
        return None;
    }
    let first = diags.len();
    let mut r = Reader { map, cx, diags };
    let mut inv = Invocation::default();
    inv.allowed_tools = r.list("allowed-tools", Split::Tools);
    inv.disallowed_tools = r.list("disallowed-tools", Split::Tools);
    inv.user_invocable = r.boolean("user-invocable");
    inv.argument_hint = r.hint("argument-hint");
    inv.arguments = r.list("arguments", Split::Words);
    if let Some(names) = &inv.arguments {
        for name in names.iter().filter(|n| !is_argument_name(n)) {
            r.warn(
                DiagnosticCode::FieldIgnored,
                "arguments",
                None,
                format!(
                    "argument name \"{name}\" is not a placeholder name (a letter or _, then letters, digits, _ or -, at most 64); it holds its place but is never substituted"
                ),
            );
        }
    }
    inv.model = r.text("model");
    inv.effort = r.one_of("effort", &EFFORTS);
    inv.context = r.one_of("context", &["fork"]);
    inv.agent = r.text("agent");
    inv.paths = r.list("paths", Split::Commas);
    inv.when_to_use = r.text("when_to_use");
    inv.requires = r.requires();
    if inv.agent.is_some() && inv.context.is_none() {
        r.warn(
            DiagnosticCode::FieldConflict,
            "agent",
            None,
            "agent has no effect without context: fork".to_owned(),
        );
    }
    if inv.user_invocable == Some(false) && cx.hidden {
        r.warn(
            DiagnosticCode::FieldConflict,
            "user-invocable",
            None,
            "user-invocable: false on a skill hidden from the model (disable-model-invocation or hide): neither the user nor the model can invoke it".to_owned(),
        );
    }
    inv.listing_description = inv
        .when_to_use
        .as_deref()
        .map(|w| listing_description(cx.description, w));
    // The warnings in the order their keys are written.
    diags[first..].sort_by_key(|d| d.line.unwrap_or(u32::MAX));
    (inv != Invocation::default()).then(|| Box::new(inv))
}

/// Claude Code's listing text: the description, ` - `, `when_to_use`;
/// at most [`LISTING_DESCRIPTION_CHARS`] characters, the last one `…`
/// when cut.
pub fn listing_description(description: &str, when_to_use: &str) -> String {
    let joined = match (description.is_empty(), when_to_use.is_empty()) {
        (_, true) => description.to_owned(),
        (true, false) => when_to_use.to_owned(),
        (false, false) => format!("{description} - {when_to_use}"),
    };
    match joined.char_indices().nth(LISTING_DESCRIPTION_CHARS - 1) {
        Some((at, _)) if joined[at..].chars().nth(1).is_some() => {
            let mut cut = joined[..at].to_owned();
            cut.push('…');
            cut
        }
        _ => joined,
    }
}

/// The longest argument name a placeholder can use, in characters.
pub const MAX_ARGUMENT_NAME: usize = 64;

/// A name `$name` can stand for: a letter or `_`, then letters, digits,
/// `_` or `-`, at most [`MAX_ARGUMENT_NAME`] in all; never `ARGUMENTS`.
pub fn is_argument_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= MAX_ARGUMENT_NAME
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name != "ARGUMENTS"
}

/// How a string value becomes a list.
#[derive(Clone, Copy)]
enum Split {
    /// Tool patterns: at commas and whitespace outside parentheses
    /// (`Bash(git add *) Read, Grep`).
    Tools,
    /// At whitespace (and commas).
    Words,
    /// At commas.
    Commas,
}

struct Reader<'m, 'c, 'd> {
    map: &'m Mapping,
    cx: &'c Context<'c>,
    diags: &'d mut Vec<Diagnostic>,
}

impl Reader<'_, '_, '_> {
    /// A warning at `key` (nested under `parent`, e.g. `metadata`).
    fn warn(&mut self, code: DiagnosticCode, key: &str, parent: Option<&str>, message: String) {
        let d = Diagnostic::warning(code, message, self.cx.path);
        self.diags
            .push(match key_position(self.cx.yaml, key, parent) {
                Some((line, column)) => d.at(line, column),
                None => d,
            });
    }

    fn ignored(&mut self, key: &str, expected: &str, found: &Value) {
        let message = format!(
            "{key} must be {expected} (found {}); it is ignored",
            kind_of(found)
        );
        self.warn(DiagnosticCode::FieldIgnored, key, None, message);
    }

    /// The value of `key`, `None` when absent or null.
    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn list(&mut self, key: &str, split: Split) -> Option<Vec<String>> {
        let value = self.get(key)?.clone();
        match &value {
            Value::String(s) => Some(split_text(s, split)),
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_owned()),
                        Value::String(_) => {}
                        _ => {
                            self.ignored(key, "a string or a list of strings", item);
                            return None;
                        }
                    }
                }
                Some(out)
            }
            other => {
                self.ignored(key, "a string or a list of strings", other);
                None
            }
        }
    }

    fn boolean(&mut self, key: &str) -> Option<bool> {
        match self.get(key)?.clone() {
            Value::Bool(b) => Some(b),
            other => {
                self.ignored(key, "true or false", &other);
                None
            }
        }
    }

    fn text(&mut self, key: &str) -> Option<String> {
        match self.get(key)?.clone() {
            Value::String(s) if s.trim().is_empty() => None,
            Value::String(s) => Some(s.trim().to_owned()),
            other => {
                self.ignored(key, "a string", &other);
                None
            }
        }
    }

    /// `argument-hint`: a string; `[issue-number]` unquoted is a YAML
    /// list, read back as the text it was written as.
    fn hint(&mut self, key: &str) -> Option<String> {
        match self.get(key)?.clone() {
            Value::Array(items) if items.iter().all(|i| !i.is_array() && !i.is_object()) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| match i {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                Some(format!("[{}]", items.join(", ")))
            }
            Value::Number(n) => Some(n.to_string()),
            _ => self.text(key),
        }
    }

    fn one_of(&mut self, key: &str, allowed: &[&str]) -> Option<String> {
        let value = self.get(key)?.clone();
        match value.as_str().map(str::trim) {
            Some(s) if allowed.contains(&s) => Some(s.to_owned()),
            _ => {
                let expected = match allowed {
                    [one] => (*one).to_owned(),
                    [init @ .., last] => format!("{} or {last}", init.join(", ")),
                    [] => String::new(),
                };
                self.ignored(key, &expected, &value);
                None
            }
        }
    }

    /// `metadata.requires`: a list of names or addresses (or one string of
    /// them); a `metadata` that is no mapping is not looked into.
    fn requires(&mut self) -> Option<Vec<String>> {
        let value = self.get("metadata")?.get("requires")?.clone();
        match &value {
            Value::Null => None,
            Value::String(s) => Some(split_text(s, Split::Words)),
            Value::Array(items) if items.iter().all(Value::is_string) => Some(
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ),
            other => {
                let message = format!(
                    "metadata.requires must be a list of skill names (found {}); it is ignored",
                    kind_of(other)
                );
                self.warn(
                    DiagnosticCode::FieldIgnored,
                    "requires",
                    Some("metadata"),
                    message,
                );
                None
            }
        }
    }
}

/// What a value is, for a message: `a number`, `string "x"`, …
fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("{b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("{s:?}"),
        Value::Array(_) => "a list".to_owned(),
        Value::Object(_) => "a mapping".to_owned(),
    }
}

/// A string value as a list of its parts (empty parts dropped).
fn split_text(text: &str, split: Split) -> Vec<String> {
    let mut out = Vec::new();
    let mut part = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        let sep = match split {
            Split::Tools => depth == 0 && (c == ',' || c.is_whitespace()),
            Split::Words => c == ',' || c.is_whitespace(),
            Split::Commas => c == ',',
        };
        if sep {
            push_part(&mut out, &mut part);
            continue;
        }
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        part.push(c);
    }
    push_part(&mut out, &mut part);
    out
}

fn push_part(out: &mut Vec<String>, part: &mut String) {
    let trimmed = part.trim();
    if !trimmed.is_empty() {
        out.push(trimmed.to_owned());
    }
    part.clear();
}

/// Where `key` is written in the frontmatter, in SKILL.md coordinates
/// (the opening `---` is line 1): the last top-level line that starts
/// with it (the value a repeated key keeps), or with `parent`, the first
/// indented line under the parent's that does. `None` for a key written
/// some other way (a flow mapping).
pub fn key_position(yaml: &str, key: &str, parent: Option<&str>) -> Option<(u32, u32)> {
    // The key as written: plain, or in either quotes.
    let starts = |line: &str, key: &str| {
        let rest = match line.as_bytes().first() {
            Some(&q @ (b'"' | b'\'')) => line[1..]
                .strip_prefix(key)
                .and_then(|r| r.strip_prefix(q as char)),
            _ => line.strip_prefix(key),
        };
        rest.is_some_and(|rest| rest.trim_start_matches(' ').starts_with(':'))
    };
    let lines: Vec<&str> = yaml.split('\n').collect();
    let top = |k: &str| lines.iter().rposition(|l| starts(l, k));
    let at = |i: usize, column: usize| {
        Some((
            u32::try_from(i + 2).unwrap_or(u32::MAX),
            u32::try_from(column + 1).unwrap_or(u32::MAX),
        ))
    };
    match parent {
        None => top(key).and_then(|i| at(i, 0)),
        Some(parent) => {
            let p = top(parent)?;
            for (i, line) in lines.iter().enumerate().skip(p + 1) {
                let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
                if indent == 0 && !line.trim().is_empty() {
                    break;
                }
                if starts(&line[indent..], key) {
                    return at(i, indent);
                }
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_yaml(yaml: &str, hidden: bool) -> (Option<Box<Invocation>>, Vec<Diagnostic>) {
        let map = match crate::frontmatter::parse(yaml) {
            crate::frontmatter::Parsed::Clean(m) => m,
            other => panic!("{other:?}"),
        };
        let mut diags = Vec::new();
        let cx = Context {
            yaml,
            path: Path::new("/s/x/SKILL.md"),
            description: "Does x.",
            hidden,
        };
        (read(&map, &cx, &mut diags), diags)
    }

    #[test]
    fn tools_split_outside_parentheses_and_lists_stay_lists() {
        let (inv, diags) = read_yaml(
            "allowed-tools: Bash(git add *) Bash(git commit *), Read\ndisallowed-tools:\n  - AskUserQuestion\n  - ' '\n",
            false,
        );
        let inv = inv.unwrap();
        assert_eq!(
            inv.allowed_tools.as_deref().unwrap(),
            ["Bash(git add *)", "Bash(git commit *)", "Read"]
        );
        assert_eq!(
            inv.disallowed_tools.as_deref().unwrap(),
            ["AskUserQuestion"]
        );
        assert!(diags.is_empty());
    }

    #[test]
    fn no_invocation_key_is_no_invocation() {
        let (inv, diags) = read_yaml("name: x\ndescription: y\nlicense: MIT\n", false);
        assert!(inv.is_none() && diags.is_empty());
        // `metadata` without `requires` sets nothing.
        let (inv, _) = read_yaml("metadata:\n  version: '1'\n", false);
        assert!(inv.is_none());
    }

    #[test]
    fn bad_values_are_ignored_with_a_positioned_warning() {
        let yaml = "name: x\nuser-invocable: \"no\"\neffort: extreme\ncontext: inline\nagent: Explore\nmodel: 4\n";
        let (inv, diags) = read_yaml(yaml, false);
        let inv = inv.unwrap();
        assert_eq!(inv.user_invocable, None);
        assert_eq!(inv.effort, None);
        assert_eq!(inv.agent.as_deref(), Some("Explore"));
        let got: Vec<(String, &str, Option<u32>)> = diags
            .iter()
            .map(|d| (d.code.to_string(), d.message.as_str(), d.line))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "field-ignored".into(),
                    "user-invocable must be true or false (found \"no\"); it is ignored",
                    Some(3)
                ),
                (
                    "field-ignored".into(),
                    "effort must be low, medium, high, xhigh or max (found \"extreme\"); it is ignored",
                    Some(4)
                ),
                (
                    "field-ignored".into(),
                    "context must be fork (found \"inline\"); it is ignored",
                    Some(5)
                ),
                (
                    "field-conflict".into(),
                    "agent has no effect without context: fork",
                    Some(6)
                ),
                (
                    "field-ignored".into(),
                    "model must be a string (found the number 4); it is ignored",
                    Some(7)
                ),
            ]
        );
        assert!(diags.iter().all(|d| d.column == Some(1)));
    }

    #[test]
    fn nobody_can_invoke_a_hidden_skill_the_user_may_not_call() {
        let (inv, diags) = read_yaml("user-invocable: false\n", true);
        assert_eq!(inv.unwrap().user_invocable, Some(false));
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].code, DiagnosticCode::FieldConflict);
    }

    #[test]
    fn arguments_requires_and_the_hint_read_as_claude_writes_them() {
        let yaml = "arguments: who what\nargument-hint: [issue-number]\nmetadata:\n  requires: [a, b@claude]\n";
        let (inv, diags) = read_yaml(yaml, false);
        let inv = inv.unwrap();
        assert_eq!(inv.arguments.as_deref().unwrap(), ["who", "what"]);
        assert_eq!(inv.argument_hint.as_deref(), Some("[issue-number]"));
        assert_eq!(inv.requires.as_deref().unwrap(), ["a", "b@claude"]);
        assert!(diags.is_empty());
        let (_, diags) = read_yaml("arguments: [ok, 1st]\nmetadata:\n  requires: 3\n", false);
        assert_eq!(diags.len(), 2);
        assert!(diags[0].message.contains("\"1st\""));
        assert_eq!((diags[1].line, diags[1].column), (Some(4), Some(3)));
    }

    #[test]
    fn the_listing_description_is_cut_as_claude_lists_it() {
        assert_eq!(
            listing_description("Does x.", "When y."),
            "Does x. - When y."
        );
        assert_eq!(listing_description("", "When y."), "When y.");
        let long = "w".repeat(2000);
        let cut = listing_description("Does x.", &long);
        assert_eq!(cut.chars().count(), LISTING_DESCRIPTION_CHARS);
        assert!(cut.ends_with('…'));
        let exact = "é".repeat(LISTING_DESCRIPTION_CHARS - 10);
        assert_eq!(listing_description(&exact, "ab"), format!("{exact} - ab"));
    }

    #[test]
    fn key_positions_are_in_file_coordinates() {
        let yaml = "name: x\n\"model\": a\nmetadata:\n  other: 1\n  requires: [a]\nmodel: b";
        assert_eq!(key_position(yaml, "model", None), Some((7, 1)));
        assert_eq!(
            key_position(yaml, "requires", Some("metadata")),
            Some((6, 3))
        );
        assert_eq!(key_position("{model: a}", "model", None), None);
    }
}
