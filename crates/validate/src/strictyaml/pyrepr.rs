//! Python's `repr()` of a string, as ruamel's error texts quote what they
//! found (`found character '%' that cannot start any token`).

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

    #[test]
    fn python_repr() {
        assert_eq!(py_repr("x"), "'x'");
        assert_eq!(py_repr("'"), "\"'\"");
        assert_eq!(py_repr("\t"), "'\\t'");
        assert_eq!(py_repr("a'\""), "'a\\'\"'");
    }
}
