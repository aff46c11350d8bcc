//! Bytes to text, and the line rules that split a skill file into its
//! frontmatter and body (SPEC §2.1 steps 1-2).
//!
//! These rules are shared by discovery (which reads only the frontmatter),
//! expansion (which needs the body, without parsing the YAML) and
//! `validate`.

use std::borrow::Cow;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A decoded skill file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text: BOM removed, `\r\n` and lone `\r` turned into `\n`, invalid
    /// UTF-8 replaced by U+FFFD.
    pub text: String,
    /// Whether any byte sequence was not valid UTF-8.
    pub invalid_utf8: bool,
}

/// Decodes a skill file's bytes as SPEC §2.1 step 1 says.
pub fn decode(bytes: &[u8]) -> Decoded {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let text = String::from_utf8_lossy(bytes);
    let invalid_utf8 = matches!(text, Cow::Owned(_));
    let text = if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.into_owned()
    };
    Decoded { text, invalid_utf8 }
}

/// A file split by the frontmatter line rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the opening line and the closing marker, or `None`
    /// when the file has no frontmatter.
    pub yaml: Option<&'a str>,
    /// Everything after the closing line, trimmed (the whole text, trimmed,
    /// when there is no frontmatter).
    pub body: &'a str,
}

/// Splits decoded text into frontmatter and body (SPEC §2.1 step 2).
///
/// Frontmatter exists only if the text starts with `---`; it ends at the
/// first `\n---` after the opening line. The rest of the closing line is
/// dropped. Without a closing marker the whole text is the body.
pub fn split(text: &str) -> Split<'_> {
    match frontmatter_bounds(text) {
        Some(bounds) => Split {
            yaml: Some(&text[bounds.yaml_start..bounds.yaml_end]),
            body: text[bounds.body_start..].trim(),
        },
        None => Split {
            yaml: None,
            body: text.trim(),
        },
    }
}

/// Byte offsets of the frontmatter parts in a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Start of the YAML (after the opening line).
    pub yaml_start: usize,
    /// End of the YAML (the `\n` before the closing `---`).
    pub yaml_end: usize,
    /// Start of the body (after the closing line), or the text's length.
    pub body_start: usize,
}

/// Where the frontmatter lies in `text`, if it has one.
pub fn frontmatter_bounds(text: &str) -> Option<Bounds> {
    if !text.starts_with("---") {
        return None;
    }
    let opening_end = text.find('\n')?;
    let marker = opening_end + text[opening_end..].find("\n---")?;
    let yaml_start = (opening_end + 1).min(marker);
    let after = marker + 4;
    let body_start = text[after..]
        .find('\n')
        .map_or(text.len(), |i| after + i + 1);
    Some(Bounds {
        yaml_start,
        yaml_end: marker,
        body_start,
    })
}

/// How many leading bytes of a raw (undecoded) file hold the whole
/// frontmatter, closing line excluded, or `None` when `raw` does not yet
/// contain the closing marker (or the file has no frontmatter at all: see
/// [`has_opening`]).
///
/// Raw line ends may be `\r\n` or `\r`; a closing marker is a line break
/// followed by `---`, as it will be after decoding.
pub fn raw_frontmatter_len(raw: &[u8]) -> Option<usize> {
    let skip = if raw.starts_with(BOM) { BOM.len() } else { 0 };
    let raw = &raw[skip..];
    if !raw.starts_with(b"---") {
        return None;
    }
    let first_break = memchr::memchr2(b'\n', b'\r', raw)?;
    // Without a `\r` up to it, the marker is the first `\n---`.
    let rest = &raw[first_break..];
    let marker = memchr::memchr_iter(b'\n', rest).find(|&j| rest[j + 1..].starts_with(b"---"));
    match marker {
        Some(j) if memchr::memchr(b'\r', &rest[..j]).is_none() => {
            return Some(skip + first_break + j + 4);
        }
        None if memchr::memchr(b'\r', rest).is_none() => return None,
        _ => {}
    }
    let mut i = first_break;
    while i < raw.len() {
        let b = raw[i];
        if (b == b'\n' || b == b'\r') && raw[i + 1..].starts_with(b"---") {
            return Some(skip + i + 4);
        }
        i += 1;
    }
    None
}

/// Whether raw bytes (after an optional BOM) start a frontmatter block.
pub fn has_opening(raw: &[u8]) -> bool {
    raw.strip_prefix(BOM).unwrap_or(raw).starts_with(b"---")
}

/// The bytes up to the last complete UTF-8 character, for a read that may
/// have stopped inside one (the cut is not the author's invalid byte).
pub fn complete_utf8(raw: &[u8]) -> &[u8] {
    match std::str::from_utf8(raw) {
        Err(e) if e.error_len().is_none() => &raw[..e.valid_up_to()],
        _ => raw,
    }
}

/// Whether these bytes (a BOM removed, a character cut at the end ignored)
/// are nothing but whitespace: an empty skill file, as far as they go.
pub fn is_blank(raw: &[u8]) -> bool {
    let raw = complete_utf8(raw.strip_prefix(BOM).unwrap_or(raw));
    std::str::from_utf8(raw).is_ok_and(|s| s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_and_cut_text() {
        assert!(is_blank(b""));
        assert!(is_blank(b"\xEF\xBB\xBF \n\t\r\n"));
        assert!(is_blank("\u{3000} \u{a0}".as_bytes()));
        assert!(
            is_blank(&"\u{3000}".as_bytes()[..2]),
            "a cut character is not content"
        );
        assert!(!is_blank(b"  x"));
        assert!(!is_blank(b" \xff"));
        assert_eq!(complete_utf8(&"a\u{e9}".as_bytes()[..2]), b"a");
        assert_eq!(complete_utf8(b"a\xff"), b"a\xff", "an invalid byte is kept");
    }

    #[test]
    fn decode_strips_bom_and_normalises_line_ends() {
        let d = decode(b"\xEF\xBB\xBF---\r\na: 1\rb: 2\r\n---\r\nbody");
        assert_eq!(d.text, "---\na: 1\nb: 2\n---\nbody");
        assert!(!d.invalid_utf8);
    }

    #[test]
    fn decode_replaces_each_invalid_sequence_once() {
        let d = decode(b"caf\xE9 \xF0\x9F");
        assert_eq!(d.text, "caf\u{FFFD} \u{FFFD}");
        assert!(d.invalid_utf8);
    }

    #[test]
    fn split_finds_yaml_and_trimmed_body() {
        let s = split("---\nname: a\n---\n\n# Title\n\n");
        assert_eq!(s.yaml, Some("name: a"));
        assert_eq!(s.body, "# Title");
    }

    #[test]
    fn closing_line_rest_is_dropped() {
        let s = split("---\nname: a\n--- trailing\nbody");
        assert_eq!(s.yaml, Some("name: a"));
        assert_eq!(s.body, "body");
    }

    #[test]
    fn empty_frontmatter_and_no_body() {
        let s = split("---\n---");
        assert_eq!(s.yaml, Some(""));
        assert_eq!(s.body, "");
        let s = split("---\n---\nx");
        assert_eq!(s.yaml, Some(""));
        assert_eq!(s.body, "x");
    }

    #[test]
    fn unterminated_frontmatter_is_all_body() {
        let s = split("---\nname: a\nbody\n");
        assert_eq!(s.yaml, None);
        assert_eq!(s.body, "---\nname: a\nbody");
    }

    #[test]
    fn text_not_starting_with_dashes_has_no_frontmatter() {
        assert_eq!(split("\n---\na: 1\n---\n").yaml, None);
    }

    #[test]
    fn raw_len_covers_crlf_and_bom() {
        let raw = b"\xEF\xBB\xBF---\r\na: 1\r\n---\r\nbody";
        let n = raw_frontmatter_len(raw).unwrap();
        let d = decode(&raw[..n]);
        assert_eq!(split(&d.text).yaml, Some("a: 1"));
        assert_eq!(raw_frontmatter_len(b"---\na: 1\n"), None);
        assert_eq!(raw_frontmatter_len(b"# no"), None);
    }
}
