//! `/skill:name args` by Claude Code's rules (setting `skills.arguments =
//! "claude"`, pi: `arguments`): the body's placeholders filled in one pass.
//!
//! - `$ARGUMENTS` is the argument text as typed; `$ARGUMENTS[N]` and `$N`
//!   are the N-th argument counting from 0, split shell-style (quotes
//!   group, a backslash escapes); a position with no argument stays as
//!   written.
//! - `$name`, for a name of the frontmatter's `arguments`, is the argument
//!   at that name's position, or empty when there is none.
//! - `${CLAUDE_SKILL_DIR}` and `${SKILL_DIR}` are the skill's folder.
//! - A single backslash right before an argument placeholder (`\$1.00`,
//!   `\$ARGUMENTS`, `\$name`) makes it literal and is dropped; any other
//!   backslash stays (`\\$1` keeps both and `$1` is still filled), and
//!   none stops `${CLAUDE_SKILL_DIR}`.
//! - Inserted values are never read again: an argument holding `$1` stays
//!   `$1`.
//! - When arguments were given and no placeholder took them (`$ARGUMENTS`,
//!   a filled `$N`, or any `$name`), `\n\nARGUMENTS: <args>` is appended.

use serde::{Deserialize, Serialize};

/// How `/skill:name args` passes its arguments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arguments {
    /// The profile's own way: the arguments after the skill (pi:
    /// `\n\n<args>`; musepi: `\nUser: <args>`). The default.
    #[default]
    Append,
    /// Claude Code's placeholders (see the module).
    Claude,
}

/// What [`render`] filled, for `expand --json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placeholders {
    /// The placeholders replaced, as written, each once, in body order
    /// (`$ARGUMENTS`, `$0`, `$ARGUMENTS[1]`, `$who`, `${CLAUDE_SKILL_DIR}`).
    pub filled: Vec<String>,
    /// Positional placeholders left as written: no argument at their
    /// position.
    pub unfilled: Vec<String>,
    /// Whether `ARGUMENTS: <args>` was appended.
    pub appended: bool,
}

/// A body rendered with its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The text.
    pub text: String,
    /// What was filled.
    pub placeholders: Placeholders,
}

/// The arguments, split shell-style: whitespace separates; `'…'` keeps
/// everything; `"…"` keeps everything but a backslash before `"`, `\`,
/// `$` or `` ` ``; a backslash outside quotes makes the next character
/// plain. An unclosed quote runs to the end.
pub fn split_args(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => match chars.peek() {
                            Some(&n @ ('"' | '\\' | '$' | '`')) => {
                                word.push(n);
                                chars.next();
                            }
                            _ => word.push('\\'),
                        },
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().unwrap_or('\\'));
            }
            _ => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// One placeholder at a `$`.
enum Token {
    /// `$ARGUMENTS`.
    All,
    /// `$ARGUMENTS[N]` or `$N`.
    At(usize),
    /// `$name`, at the name's position.
    Named(usize),
    /// `${CLAUDE_SKILL_DIR}`, `${SKILL_DIR}`.
    SkillDir,
    /// Not a placeholder: the `$` stays.
    None,
}

/// The declared names that can be placeholders, by name (the first
/// position of a name given twice).
struct Names<'a>(std::collections::HashMap<&'a str, usize>);

impl<'a> Names<'a> {
    fn new(names: &'a [String]) -> Self {
        let mut map = std::collections::HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            if crate::invocation::is_argument_name(n) {
                map.entry(n.as_str()).or_insert(i);
            }
        }
        Names(map)
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.0.get(name).copied()
    }
}

/// The placeholder starting at `rest` (which starts with `$`) and its
/// length in bytes.
fn token(rest: &str, names: &Names<'_>) -> (Token, usize) {
    const DIRS: [&str; 2] = ["${CLAUDE_SKILL_DIR}", "${SKILL_DIR}"];
    if let Some(dir) = DIRS.iter().find(|d| rest.starts_with(**d)) {
        return (Token::SkillDir, dir.len());
    }
    let after = &rest[1..];
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if let Some(tail) = after.strip_prefix("ARGUMENTS") {
        if let Some(index) = tail.strip_prefix('[') {
            let digits = index.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0
                && index[digits..].starts_with(']')
                && let Ok(n) = index[..digits].parse::<usize>()
            {
                return (Token::At(n), 1 + 9 + 1 + digits + 1);
            }
        }
        if !tail.starts_with(word_char) {
            return (Token::All, 1 + 9);
        }
    }
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 {
        return match after[..digits].parse::<usize>() {
            Ok(n) => (Token::At(n), 1 + digits),
            // More digits than any position: never an argument.
            Err(_) => (Token::None, 1),
        };
    }
    // The longest declared name written here, ending at a word boundary:
    // the run of name characters after `$`, or a part of it that ends
    // before a `-` (a name may hold one; `-` ends a word).
    let run_len = after
        .bytes()
        .take(crate::invocation::MAX_ARGUMENT_NAME)
        .take_while(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        .count();
    let run = &after[..run_len];
    let boundary = |end: usize| !after[end..].starts_with(word_char);
    let named = (1..=run_len)
        .rev()
        .filter(|&end| end == run_len || run.as_bytes()[end] == b'-')
        .filter(|&end| boundary(end))
        .find_map(|end| names.position(&run[..end]).map(|i| (i, end)));
    match named {
        Some((i, len)) => (Token::Named(i), 1 + len),
        None => (Token::None, 1),
    }
}

/// Renders `body` with `args` (as typed, trimmed), the frontmatter's
/// argument `names` and the skill's folder `skill_dir`.
pub fn render(body: &str, args: &str, names: &[String], skill_dir: &str) -> Rendered {
    let words = split_args(args);
    let names = &Names::new(names);
    let mut text = String::with_capacity(body.len() + args.len());
    let mut placeholders = Placeholders::default();
    let mut received = false;
    let note = |list: &mut Vec<String>, written: &str| {
        if !list.iter().any(|w| w == written) {
            list.push(written.to_owned());
        }
    };
    let mut i = 0;
    while let Some(at) = body[i..].find(['$', '\\']).map(|at| i + at) {
        text.push_str(&body[i..at]);
        let rest = &body[at..];
        if let Some(escaped) = rest.strip_prefix('\\') {
            // One backslash (not the second of a pair) before an argument
            // placeholder makes it literal.
            let single = !body[..at].ends_with('\\');
            if single && escaped.starts_with('$') {
                let (t, len) = token(escaped, names);
                if matches!(t, Token::All | Token::At(_) | Token::Named(_)) {
                    text.push_str(&escaped[..len]);
                    i = at + 1 + len;
                    continue;
                }
            }
            text.push('\\');
            i = at + 1;
            continue;
        }
        let (t, len) = token(rest, names);
        let written = &rest[..len];
        match t {
            Token::All => {
                text.push_str(args);
                received = true;
                note(&mut placeholders.filled, written);
            }
            Token::At(n) => match words.get(n) {
                Some(w) => {
                    text.push_str(w);
                    received = true;
                    note(&mut placeholders.filled, written);
                }
                None => {
                    text.push_str(written);
                    note(&mut placeholders.unfilled, written);
                }
            },
            Token::Named(n) => {
                text.push_str(words.get(n).map_or("", String::as_str));
                received = true;
                note(&mut placeholders.filled, written);
            }
            Token::SkillDir => {
                text.push_str(skill_dir);
                note(&mut placeholders.filled, written);
            }
            Token::None => text.push_str(written),
        }
        i = at + len;
    }
    text.push_str(&body[i..]);
    if !args.is_empty() && !received {
        text.push_str("\n\nARGUMENTS: ");
        text.push_str(args);
        placeholders.appended = true;
    }
    Rendered { text, placeholders }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn text(body: &str, args: &str, declared: &[&str]) -> String {
        render(body, args, &names(declared), "/s/x").text
    }

    #[test]
    fn arguments_split_as_a_shell_splits_them() {
        assert_eq!(split_args("a  b\t c"), ["a", "b", "c"]);
        assert_eq!(
            split_args("\"hello world\" 'it''s' x"),
            ["hello world", "its", "x"]
        );
        assert_eq!(split_args(r#""a \"q\" \n" b\ c"#), [r#"a "q" \n"#, "b c"]);
        assert_eq!(split_args("'' \"unclosed x"), ["", "unclosed x"]);
        assert!(split_args("   ").is_empty());
    }

    #[test]
    fn placeholders_follow_claude_codes_rules() {
        let body = "All: $ARGUMENTS. First: $0, second $ARGUMENTS[1], third $2.";
        assert_eq!(
            text(body, "\"search bar\" React", &[]),
            "All: \"search bar\" React. First: search bar, second React, third $2."
        );
        // Names bind by position; a name with no argument is empty.
        assert_eq!(
            text(
                "Ask $who about $what$when.",
                "ann \"the plan\"",
                &["who", "what", "when"]
            ),
            "Ask ann about the plan."
        );
        // The longest name wins; a name needs a word boundary.
        assert_eq!(
            text("$old-name/$old/$oldx", "a b", &["old", "old-name"]),
            "b/a/$oldx"
        );
        assert_eq!(
            text("In ${CLAUDE_SKILL_DIR} and ${SKILL_DIR}.", "", &[]),
            "In /s/x and /s/x."
        );
        assert_eq!(
            text("$HOME costs $", "a", &[]),
            "$HOME costs $\n\nARGUMENTS: a"
        );
    }

    #[test]
    fn names_are_found_by_lookup_and_bounded() {
        let long = "n".repeat(65);
        let many: Vec<String> = (0..5000)
            .map(|i| format!("n{i}"))
            .chain([long.clone()])
            .collect();
        let body = format!("${long} $n4999 $n4999-x {}", "$n1-".repeat(1000));
        let r = render(&body, "a", &many, "/d");
        // The 65-character name is no placeholder; `$n4999` is position 4999 (empty).
        assert!(
            r.text.starts_with(&format!("${long}  -x ---")),
            "{}",
            &r.text[..80]
        );
        assert_eq!(r.placeholders.filled, ["$n4999", "$n1"]);
    }

    #[test]
    fn a_backslash_escapes_argument_placeholders_only() {
        assert_eq!(
            text(r"Costs \$1.00, \$ARGUMENTS, \$who", "x", &["who"]),
            "Costs $1.00, $ARGUMENTS, $who\n\nARGUMENTS: x"
        );
        // A doubled backslash stays and does not escape.
        assert_eq!(
            text(r"\\$0 \$HOME \${CLAUDE_SKILL_DIR}", "x", &[]),
            r"\\x \$HOME \/s/x"
        );
    }

    #[test]
    fn arguments_are_appended_only_when_no_placeholder_took_them() {
        let r = render("Body $3", "a b", &[], "/d");
        assert_eq!(r.text, "Body $3\n\nARGUMENTS: a b");
        assert_eq!(r.placeholders.unfilled, ["$3"]);
        assert!(r.placeholders.appended);
        // A named placeholder takes them even empty; `$ARGUMENTS` always.
        assert_eq!(text("Hi $who", "", &["who"]), "Hi ");
        assert_eq!(text("Hi $who", "a", &["other", "who"]), "Hi ");
        assert_eq!(text("$ARGUMENTS", "a b", &[]), "a b");
        // No arguments: nothing appended.
        assert_eq!(text("Body", "", &[]), "Body");
        let r = render("$0 $0 ${SKILL_DIR} $9", "a", &[], "/d");
        assert_eq!(r.placeholders.filled, ["$0", "${SKILL_DIR}"]);
        assert_eq!(r.placeholders.unfilled, ["$9"]);
        assert!(!r.placeholders.appended);
    }

    proptest! {
        #[test]
        fn text_without_a_dollar_is_unchanged(body in "[^$]*", args in "[a-z ]{0,12}") {
            let args = args.trim();
            let r = render(&body, args, &names(&["who"]), "/d");
            if args.is_empty() {
                prop_assert_eq!(r.text, body);
            } else {
                prop_assert_eq!(r.text, format!("{body}\n\nARGUMENTS: {args}"));
            }
        }

        #[test]
        fn an_escaped_dollar_amount_survives(before in "[a-z .]{0,10}", cents in "[0-9]{2}") {
            let body = format!("{before}\\$1.{cents}");
            let r = render(&body, "x y", &[], "/d");
            let expected = format!("{before}$1.{cents}\n\nARGUMENTS: x y");
            prop_assert_eq!(r.text, expected);
        }

        #[test]
        fn values_are_never_expanded_again(value in "[$a-zA-Z0-9\\[\\]{}_]{0,12}") {
            let quoted = format!("'{value}'");
            let r = render("[$0] [$who] [$ARGUMENTS]", &quoted, &names(&["who"]), "/d");
            prop_assert_eq!(r.text, format!("[{value}] [{value}] [{quoted}]"));
        }
    }
}
