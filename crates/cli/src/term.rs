//! Text for the terminal: what a skill, a path or a diagnostic says is
//! shown, never obeyed.
//!
//! Every control character of such text (C0 — tab and newline included —
//! DEL, and C1; ESC among them), and every bidi control and zero-width
//! character, is written as a Rust-style escape, `\u{1b}`,
//! so a name like `\x1b[31mx` cannot recolour, move the cursor or retitle
//! the terminal. Our own layout (line ends, column gaps) is added around
//! escaped text, never escaped. JSON output needs none of this (serde
//! escapes control characters), and `prompt`, `expand` and `resolve`'s
//! content stay byte-exact: they are contracts, not displays.

use std::borrow::Cow;
use std::path::Path;

/// Whether `c` is shown as an escape: a control character, or one that
/// reorders or hides text without being a control character: the bidi
/// embeddings, overrides, isolates and marks (U+202A-U+202E,
/// U+2066-U+2069, U+200E, U+200F, U+061C), which can make `gnp.exe` read
/// as `exe.png`, and the invisible ones (zero-width space, joiners, word
/// joiner, BOM: U+200B-U+200D, U+2060, U+FEFF), which make two different
/// names look the same.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{200b}'..='\u{200d}'
                | '\u{2060}'
                | '\u{feff}'
        )
}

/// `text` with its control, bidi and zero-width characters escaped as
/// `\u{…}`.
pub(crate) fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A message of several lines (an error whose text is exact per SPEC, a
/// parser's report): its line ends kept, every other control character
/// escaped as [`escape`] does.
pub(crate) fn lines(text: &str) -> String {
    text.split('\n').map(escape).collect::<Vec<_>>().join("\n")
}

/// A path for the terminal: bytes that are not UTF-8 as U+FFFD, control
/// characters escaped.
pub(crate) fn path(p: &Path) -> String {
    escape(&p.to_string_lossy()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_others_kept() {
        assert_eq!(escape("plain é"), "plain é");
        assert_eq!(
            escape("\x1b[31mred\x7f\u{9b}\t\n"),
            "\\u{1b}[31mred\\u{7f}\\u{9b}\\u{9}\\u{a}"
        );
        assert_eq!(lines("a\x1b\nb\r\n"), "a\\u{1b}\nb\\u{d}\n");
    }

    #[test]
    fn bidi_and_zero_width_characters_are_marked() {
        assert_eq!(escape("a\u{202e}gnp.exe"), "a\\u{202e}gnp.exe");
        assert_eq!(
            escape("x\u{200b}y\u{200d}z\u{feff}\u{2066}\u{2069}\u{200f}"),
            "x\\u{200b}y\\u{200d}z\\u{feff}\\u{2066}\\u{2069}\\u{200f}"
        );
        // Other non-ASCII text stays as it is.
        assert_eq!(escape("café → 日本 \u{2010}"), "café → 日本 \u{2010}");
    }
}
