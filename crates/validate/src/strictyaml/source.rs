//! The text as ruamel sees it and the errors it raises about it: the
//! characters with ruamel's line rules, its marks (`in "<unicode string>",
//! line L, column C:` and a snippet with a caret), and `MarkedYAMLError`.
//! Every pass reports through these, so they depend on no pass.

/// The file name ruamel gives a string it parses.
pub(super) const LABEL: &str = "<unicode string>";

/// The text as ruamel's reader sees it: characters, with its line rules.
pub(super) struct Source {
    pub(super) chars: Vec<char>,
    /// Where each line starts (YAML 1.2 reader: only `\n` and a lone `\r`
    /// end a line).
    line_starts: Vec<usize>,
}

impl Source {
    pub(super) fn new(text: &str) -> Self {
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
    pub(super) fn non_printable(&self) -> Option<(usize, char)> {
        self.chars.iter().copied().enumerate().find(|&(_, c)| {
            !matches!(c,
                '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{A0}'..='\u{D7FF}'
                | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
        })
    }

    /// ruamel's (0-based) line and column of a character index (YAML 1.2
    /// reader: only `\n` and a lone `\r` end a line; a BOM takes no column).
    pub(super) fn line_col(&self, index: usize) -> (usize, usize) {
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
}

/// A ruamel `MarkedYAMLError`: context and problem, each with a mark.
#[derive(Debug, Clone)]
pub(super) struct Marked {
    context: Option<String>,
    context_mark: Option<usize>,
    problem: String,
    problem_mark: Option<usize>,
}

impl Marked {
    pub(super) fn new(
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
    pub(super) fn render(&self, src: &Source) -> String {
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
