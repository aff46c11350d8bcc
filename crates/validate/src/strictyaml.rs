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

use std::collections::HashSet;

use serde_saphyr::granit_parser::{
    ErrorKind, Event, Parser, ScalarStyle, ScanError, Scanner, StrInput, TokenType,
};

/// The file name ruamel gives a string it parses.
const LABEL: &str = "<unicode string>";

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

/// Loads one YAML document the way `strictyaml.load(yaml).data` does.
///
/// `Ok(Some(_))` is a mapping or a sequence; `Ok(None)` is any other
/// document (a scalar, or nothing at all), for which strictyaml returns the
/// text itself. `Err` is the text of the exception strictyaml raises.
pub fn load(yaml: &str) -> Result<Option<Node>, String> {
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

/// The text as ruamel's reader sees it: characters, with its line rules.
struct Source {
    chars: Vec<char>,
    /// Where each line starts (YAML 1.2 reader: only `\n` and a lone `\r`
    /// end a line).
    line_starts: Vec<usize>,
}

impl Source {
    fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let mut line_starts = vec![0];
        for (i, &c) in chars.iter().enumerate() {
            let crlf = c == '\r' && chars.get(i + 1) == Some(&'\n');
            if c == '\n' || (c == '\r' && !crlf) {
                line_starts.push(i + 1);
            }
        }
        Source { chars, line_starts }
    }

    /// The first character ruamel's reader does not accept.
    fn non_printable(&self) -> Option<(usize, char)> {
        self.chars.iter().copied().enumerate().find(|&(_, c)| {
            !matches!(c,
                '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}'
                | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
        })
    }

    /// ruamel's (0-based) line and column of a character index (YAML 1.2
    /// reader: only `\n` and a lone `\r` end a line; a BOM takes no column).
    fn line_col(&self, index: usize) -> (usize, usize) {
        let index = index.min(self.chars.len());
        let line = self.line_starts.partition_point(|&s| s <= index) - 1;
        let start = self.line_starts[line];
        let column = self.chars[start..index]
            .iter()
            .filter(|&&c| c != '\u{FEFF}' && c != '\r')
            .count();
        (line, column)
    }

    /// `str(mark)` of ruamel's `StringMark`: where, then a snippet of the
    /// line with a caret (`get_snippet(indent=4, max_length=75)`).
    fn mark(&self, index: usize) -> String {
        let index = index.min(self.chars.len());
        let (line, column) = self.line_col(index);
        let at = |i: usize| self.chars.get(i).copied().unwrap_or('\0');
        let is_break =
            |c: char| matches!(c, '\0' | '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
        let mut head = "";
        let mut start = index;
        while start > 0 && !is_break(at(start - 1)) {
            start -= 1;
            if index - start > 36 {
                head = " ... ";
                start += 5;
                break;
            }
        }
        let mut tail = "";
        let mut end = index;
        while end <= self.chars.len() && !is_break(at(end)) {
            end += 1;
            if end - index > 36 {
                tail = " ... ";
                end -= 5;
                break;
            }
        }
        let snippet: String = self.chars[start..end.min(self.chars.len())]
            .iter()
            .collect();
        format!(
            "  in \"{LABEL}\", line {}, column {}:\n    {head}{snippet}{tail}\n{}^ (line: {})",
            line + 1,
            column + 1,
            " ".repeat(4 + index - start + head.len()),
            line + 1
        )
    }

    /// The first tab ruamel's scanner would stop at: one outside quoted and
    /// block scalars and outside comments.
    fn first_stray_tab(&self, tokens: &Tokens) -> Option<usize> {
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

/// A ruamel `MarkedYAMLError`: context and problem, each with a mark.
#[derive(Debug, Clone)]
struct Marked {
    context: Option<String>,
    context_mark: Option<usize>,
    problem: String,
    problem_mark: Option<usize>,
}

impl Marked {
    fn new(
        context: Option<&str>,
        context_mark: Option<usize>,
        problem: String,
        problem_mark: Option<usize>,
    ) -> Self {
        Marked {
            context: context.map(str::to_owned),
            context_mark,
            problem,
            problem_mark,
        }
    }

    /// `MarkedYAMLError.__str__`.
    fn render(&self, src: &Source) -> String {
        let mut lines = Vec::new();
        if let Some(context) = &self.context {
            lines.push(context.clone());
        }
        if let Some(c) = self.context_mark {
            let same = self
                .problem_mark
                .is_some_and(|p| src.line_col(p) == src.line_col(c));
            if !same {
                lines.push(src.mark(c));
            }
        }
        lines.push(self.problem.clone());
        if let Some(p) = self.problem_mark {
            lines.push(src.mark(p));
        }
        lines.join("\n")
    }
}

/// One scanner token, by ruamel's token id.
#[derive(Debug, Clone)]
struct Token {
    id: &'static str,
    start: usize,
    end: usize,
    /// A quoted or block scalar: tabs inside are content.
    protects: bool,
    /// An alias's name.
    alias: Option<String>,
}

/// The tokens the scanner produced before it stopped.
#[derive(Debug, Default)]
struct Tokens {
    list: Vec<Token>,
}

fn scan(yaml: &str) -> Tokens {
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
fn disallowed_token(tokens: &Tokens) -> Option<(&Token, Marked)> {
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
fn lookahead_end(tokens: &Tokens, src: &Source, token: &Token) -> Option<usize> {
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
fn plain_start(src: &Source, i: usize) -> bool {
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

/// A node as parsed, with its span (character indices).
#[derive(Debug, Clone)]
struct Raw {
    kind: RawKind,
    start: usize,
    end: usize,
}

#[derive(Debug, Clone)]
enum RawKind {
    Scalar(String),
    Seq(Vec<Raw>),
    Map(Vec<(Raw, Raw)>),
}

/// Where the parser stopped.
#[derive(Debug)]
struct Failure {
    error: ScanError,
    /// Start of the innermost open block mapping, then block sequence.
    open_map: Option<usize>,
    open_seq: Option<usize>,
    /// Start of the document's root node, once it began.
    root: Option<usize>,
}

#[derive(Debug, Default)]
struct Parsed {
    root: Option<Raw>,
    failure: Option<Failure>,
    second_document: Option<(usize, Marked)>,
}

enum Frame {
    Seq(Raw, Vec<Raw>),
    Map(Raw, Vec<(Raw, Raw)>, Option<Raw>),
}

fn parse(yaml: &str) -> Parsed {
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

/// A parser error in ruamel's words, where they are known.
fn explain(failure: &Failure, tokens: &Tokens, src: &Source) -> Marked {
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
fn key_missing_colon_before(src: &Source, tab: usize) -> Option<usize> {
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

/// Builds the value as ruamel's constructor does, depth first: a key's
/// value before the key's duplicate check, a mapping's indentation check
/// after all its entries.
fn construct(raw: &Raw, src: &Source) -> Result<Node, Marked> {
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

/// Python's `repr()` of a string.
pub(crate) fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !py_printable(c) => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable()` for one character, for the characters a
/// YAML text can hold (controls, separators other than the space, and
/// format characters are not printable).
fn py_printable(c: char) -> bool {
    !matches!(c,
        '\0'..='\u{1F}' | '\u{7F}'..='\u{A0}' | '\u{AD}' | '\u{1680}' | '\u{2000}'..='\u{200F}'
        | '\u{2028}'..='\u{202F}' | '\u{205F}'..='\u{2064}' | '\u{3000}' | '\u{FEFF}')
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

    #[test]
    fn python_repr() {
        assert_eq!(py_repr("x"), "'x'");
        assert_eq!(py_repr("'"), "\"'\"");
        assert_eq!(py_repr("\t"), "'\\t'");
        assert_eq!(py_repr("a'\""), "'a\\'\"'");
    }
}
