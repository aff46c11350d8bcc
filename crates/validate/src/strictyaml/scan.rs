//! The scanner pass: ruamel's tokens, with their spans, as far as the
//! scanner got; the tokens strictyaml refuses (flow collections, tags,
//! anchors, aliases), how far ruamel's look-ahead reads past one, and the
//! first tab it would stop at.

use serde_saphyr::granit_parser::{ScalarStyle, Scanner, StrInput, TokenType};

use super::pyrepr::py_repr;
use super::source::{Marked, Source};

/// One scanner token, by ruamel's token id.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) id: &'static str,
    pub(super) start: usize,
    pub(super) end: usize,
    /// A quoted or block scalar: tabs inside are content.
    protects: bool,
    /// An alias's name.
    alias: Option<String>,
}

/// The tokens the scanner produced before it stopped.
#[derive(Debug, Default)]
pub(super) struct Tokens {
    pub(super) list: Vec<Token>,
}

pub(super) fn scan(yaml: &str) -> Tokens {
    let mut list = Vec::new();
    for item in Scanner::new(StrInput::new(yaml)) {
        let Ok(token) = item else { break };
        let span = token.span();
        let mut alias = None;
        let mut protects = false;
        let id = match token.token_type() {
            TokenType::StreamStart => "<stream start>",
            TokenType::StreamEnd => "<stream end>",
            TokenType::VersionDirective(..)
            | TokenType::TagDirective(..)
            | TokenType::ReservedDirective(..) => "<directive>",
            TokenType::DocumentStart => "<document start>",
            TokenType::DocumentEnd => "<document end>",
            TokenType::BlockSequenceStart => "<block sequence start>",
            TokenType::BlockMappingStart => "<block mapping start>",
            TokenType::BlockEnd => "<block end>",
            TokenType::FlowSequenceStart => "[",
            TokenType::FlowSequenceEnd => "]",
            TokenType::FlowMappingStart => "{",
            TokenType::FlowMappingEnd => "}",
            TokenType::BlockEntry => "-",
            TokenType::FlowEntry => ",",
            TokenType::Key => "?",
            TokenType::Value => ":",
            TokenType::Alias(name) => {
                alias = Some(name.to_string());
                "<alias>"
            }
            TokenType::Anchor(_) => "<anchor>",
            TokenType::Tag(..) => "<tag>",
            TokenType::Scalar(style, _) => {
                protects = !matches!(style, ScalarStyle::Plain);
                "<scalar>"
            }
            #[allow(unreachable_patterns)]
            _ => continue,
        };
        list.push(Token {
            id,
            start: span.start.index(),
            end: span.end.index(),
            protects,
            alias,
        });
    }
    Tokens { list }
}

/// The first token strictyaml refuses: a flow collection, a tag, an anchor
/// (while scanning) or an alias (which can name no anchor, so composing
/// fails), with its position.
pub(super) fn disallowed_token(tokens: &Tokens) -> Option<(&Token, Marked)> {
    tokens.list.iter().find_map(|t| {
        let err = match t.id {
            "[" | "{" => Marked::new(
                Some("While scanning"),
                Some(t.start),
                "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make text appear literally)".to_owned(),
                Some(t.end),
            ),
            "<tag>" => Marked::new(
                Some("While scanning"),
                Some(t.end),
                "Found disallowed tag tokens (do not specify types in markup)".to_owned(),
                Some(t.start),
            ),
            "<anchor>" => Marked::new(
                Some("While scanning"),
                Some(t.start),
                "Found confusing disallowed anchor token (surround with ' and ' to make text appear literally)".to_owned(),
                Some(t.end),
            ),
            "<alias>" => Marked::new(
                None,
                None,
                format!(
                    "found undefined alias {}",
                    py_repr(t.alias.as_deref().unwrap_or_default())
                ),
                Some(t.start),
            ),
            _ => return None,
        };
        Some((t, err))
    })
}

/// Where ruamel's look-ahead past a refused token stops (`None`: past
/// everything the scanner read); scanner errors before that point win.
///
/// The token is checked when it heads ruamel's token queue, once the
/// scanner has fetched one more token behind it (its comment gathering
/// does). When the token may start a simple key (at the start of a line,
/// after `- `, `? `, `[`, `{` or `,`), the scanner first reads the rest of
/// its line. A fetch stops early at a comment or an empty line.
pub(super) fn lookahead_end(tokens: &Tokens, src: &Source, token: &Token) -> Option<usize> {
    let c = |i: usize| src.chars.get(i).copied().unwrap_or('\0');
    let line = src.line_col(token.start).0;
    let mut p = token.end;
    if may_start_simple_key(src, token.start) {
        for t in tokens.list.iter().filter(|t| t.start >= token.end) {
            if src.line_col(t.start).0 != line {
                break;
            }
            if src.line_col(t.end).0 != line {
                return Some(t.end);
            }
            p = p.max(t.end);
        }
    }
    // One more fetch: ruamel's round-trip `scan_to_next_token`, then a token.
    loop {
        while c(p) == ' ' {
            p += 1;
        }
        match c(p) {
            '#' => return Some(p),
            '\n' | '\r' => {
                p += if c(p) == '\r' && c(p + 1) == '\n' {
                    2
                } else {
                    1
                };
                if c(p) == '\n' {
                    return Some(p);
                }
            }
            '\0' => return Some(p),
            _ => break,
        }
    }
    if plain_start(src, p) {
        let end = tokens
            .list
            .iter()
            .find(|t| t.start == p)
            .map_or_else(|| plain_end_on_line(src, p), |t| t.end);
        return Some(first_tab_in(src, p, end).unwrap_or(end));
    }
    tokens
        .list
        .iter()
        .find(|t| t.start >= p && t.end > p)
        .map(|t| t.end)
}

/// Whether ruamel would save a possible simple key for a token at `i`:
/// only spaces, or a `- `, `? `, `[`, `{` or `,` before it on its line.
fn may_start_simple_key(src: &Source, i: usize) -> bool {
    let mut j = i;
    while j > 0 && src.chars[j - 1] == ' ' {
        j -= 1;
    }
    if j == 0 || matches!(src.chars[j - 1], '\n' | '\r') {
        return true;
    }
    match src.chars[j - 1] {
        '[' | '{' | ',' => true,
        '-' | '?' => j < i,
        _ => false,
    }
}

/// Whether a plain scalar starts at `i` (ruamel's `check_plain`, block
/// context).
pub(super) fn plain_start(src: &Source, i: usize) -> bool {
    let c = |i: usize| src.chars.get(i).copied().unwrap_or('\0');
    let ch = c(i);
    let blank = |ch: char| matches!(ch, '\0' | ' ' | '\t' | '\r' | '\n');
    if matches!(ch, '-' | '?' | ':') {
        return !blank(c(i + 1));
    }
    !blank(ch)
        && !matches!(
            ch,
            ',' | '['
                | ']'
                | '{'
                | '}'
                | '#'
                | '&'
                | '*'
                | '!'
                | '|'
                | '>'
                | '\''
                | '"'
                | '%'
                | '@'
                | '`'
        )
}

/// Where a plain scalar starting at `i` stops on its line: before `: `, ` #`,
/// a tab or the line break.
fn plain_end_on_line(src: &Source, i: usize) -> usize {
    let c = |i: usize| src.chars.get(i).copied().unwrap_or('\0');
    let mut j = i;
    loop {
        match c(j) {
            '\0' | '\n' | '\r' | '\t' => return j,
            ':' if matches!(c(j + 1), '\0' | ' ' | '\t' | '\n' | '\r') => return j,
            ' ' if c(j + 1) == '#' => return j,
            _ => j += 1,
        }
    }
}

/// The first tab in `start..end`.
fn first_tab_in(src: &Source, start: usize, end: usize) -> Option<usize> {
    (start..end.min(src.chars.len())).find(|&i| src.chars[i] == '\t')
}

impl Source {
    /// The first tab ruamel's scanner would stop at: one outside quoted and
    /// block scalars and outside comments.
    pub(super) fn first_stray_tab(&self, tokens: &Tokens) -> Option<usize> {
        let n = self.chars.len();
        let mut in_token = vec![false; n];
        let mut protected = vec![false; n];
        for t in &tokens.list {
            let (s, e) = (t.start.min(n), t.end.min(n));
            in_token[s..e].fill(true);
            if t.protects {
                protected[s..e].fill(true);
            }
        }
        let mut i = 0;
        while i < n {
            let c = self.chars[i];
            if !protected[i] {
                if c == '\t' {
                    return Some(i);
                }
                if c == '#' && !in_token[i] {
                    while i < n && !matches!(self.chars[i], '\n' | '\r') {
                        i += 1;
                    }
                    continue;
                }
            }
            i += 1;
        }
        None
    }
}
