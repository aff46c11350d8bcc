//! The loading checks of SPEC §2.2: description presence and length, and
//! the Agent Skills name rules. Lengths count Unicode scalar values.

use skillpipe_types::{DiagnosticCode, Severity};

/// Longest description before `description-too-long`.
pub const MAX_DESCRIPTION: usize = 1024;
/// Longest name before `name-too-long`.
pub const MAX_NAME: usize = 64;

/// One finding of a check: code, severity, exact message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Stable code.
    pub code: DiagnosticCode,
    /// Error or warning.
    pub severity: Severity,
    /// Exact message.
    pub message: String,
}

impl Finding {
    fn warning(code: DiagnosticCode, message: String) -> Self {
        Finding {
            code,
            severity: Severity::Warning,
            message,
        }
    }
}

/// Description checks: `None` (missing or blank) is `description-required`
/// when `required`, and a long one is `description-too-long`.
pub fn check_description(description: Option<&str>, required: bool, out: &mut Vec<Finding>) {
    match description {
        None => {
            if required {
                out.push(Finding {
                    code: DiagnosticCode::DescriptionRequired,
                    severity: Severity::Error,
                    message: "description is required".to_owned(),
                });
            }
        }
        // No more bytes than the bound is no more characters: counted only
        // when it could be over.
        Some(d) if d.len() > MAX_DESCRIPTION => {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION {
                out.push(Finding::warning(
                    DiagnosticCode::DescriptionTooLong,
                    format!("description exceeds {MAX_DESCRIPTION} characters ({n})"),
                ));
            }
        }
        Some(_) => {}
    }
}

/// What a name is compared with for `name-mismatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameAnchor<'a> {
    /// The skill folder's name.
    Directory(&'a str),
    /// A root-level file's stem.
    FileStem(&'a str),
}

/// Name checks, in table order.
pub fn check_name(name: &str, anchor: NameAnchor<'_>, out: &mut Vec<Finding>) {
    let (expected, what) = match anchor {
        NameAnchor::Directory(d) => (d, "parent directory"),
        NameAnchor::FileStem(s) => (s, "file name"),
    };
    if name != expected {
        out.push(Finding::warning(
            DiagnosticCode::NameMismatch,
            format!("name \"{name}\" does not match {what} \"{expected}\""),
        ));
    }
    if name.len() > MAX_NAME {
        let n = name.chars().count();
        if n > MAX_NAME {
            out.push(Finding::warning(
                DiagnosticCode::NameTooLong,
                format!("name exceeds {MAX_NAME} characters ({n})"),
            ));
        }
    }
    if !name
        .chars()
        .all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-'))
    {
        out.push(Finding::warning(
            DiagnosticCode::NameInvalidChars,
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
                .to_owned(),
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        out.push(Finding::warning(
            DiagnosticCode::NameHyphenEdge,
            "name must not start or end with a hyphen".to_owned(),
        ));
    }
    if name.contains("--") {
        out.push(Finding::warning(
            DiagnosticCode::NameConsecutiveHyphens,
            "name must not contain consecutive hyphens".to_owned(),
        ));
    }
}

/// Whether `name` is a valid managed-skill name: `^[a-z0-9][a-z0-9-]{0,63}$`.
pub fn is_managed_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && matches!(bytes[0], b'a'..=b'z' | b'0'..=b'9')
        && bytes
            .iter()
            .all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-'))
}

/// SPEC §5 step 6: control and format characters become spaces, `<`, `>`
/// and `` ` `` are removed, `~~…` becomes `~`, whitespace runs become one
/// space, trimmed.
pub fn sanitize_managed_description(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    let mut prev_tilde = false;
    for c in text.chars() {
        let c = if c.is_control() || is_format(c) {
            ' '
        } else {
            c
        };
        if matches!(c, '<' | '>' | '`') {
            continue;
        }
        if c == '~' {
            if prev_tilde {
                continue;
            }
            prev_tilde = true;
        } else {
            prev_tilde = false;
        }
        cleaned.push(c);
    }
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether [`sanitize_managed_description`] would give `text` back as it
/// is: plain ASCII with no control character, none of `<`, `>`, `` ` ``,
/// no `~~`, no two spaces in a row and none at either end. The usual
/// description is, and is then kept without the three copies sanitizing
/// makes (on the one thread that takes findings in order).
pub(crate) fn is_sanitized_managed_description(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
        && bytes
            .iter()
            .all(|&b| b.is_ascii() && !b.is_ascii_control() && !matches!(b, b'<' | b'>' | b'`'))
        && !bytes.windows(2).any(|pair| pair == b"  " || pair == b"~~")
}

/// Unicode general category Cf (format), the common ones.
fn is_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{0600}'..='\u{0605}' | '\u{061C}' | '\u{06DD}' | '\u{070F}'
        | '\u{08E2}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}' | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}' | '\u{110BD}' | '\u{110CD}' | '\u{13430}'..='\u{1343F}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0001}'
        | '\u{E0020}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn codes(name: &str, dir: &str) -> Vec<String> {
        let mut out = Vec::new();
        check_name(name, NameAnchor::Directory(dir), &mut out);
        out.iter().map(|f| f.code.to_string()).collect()
    }

    #[test]
    fn all_five_name_findings_in_table_order() {
        let name = format!("-Bad_Name--{}-", "x".repeat(60));
        assert_eq!(
            codes(&name, "all-five"),
            [
                "name-mismatch",
                "name-too-long",
                "name-invalid-chars",
                "name-hyphen-edge",
                "name-consecutive-hyphens"
            ]
        );
    }

    #[test]
    fn a_good_name_has_no_findings() {
        assert!(codes("pdf-tools", "pdf-tools").is_empty());
    }

    #[test]
    fn lengths_count_scalar_values() {
        let mut out = Vec::new();
        check_description(Some(&"é".repeat(1024)), true, &mut out);
        assert!(out.is_empty());
        check_description(Some(&"é".repeat(1025)), true, &mut out);
        assert_eq!(out[0].message, "description exceeds 1024 characters (1025)");
    }

    #[test]
    fn missing_description_is_an_error_only_when_required() {
        let mut out = Vec::new();
        check_description(None, false, &mut out);
        assert!(out.is_empty());
        check_description(None, true, &mut out);
        assert_eq!(out[0].code, "description-required");
        assert_eq!(out[0].severity, Severity::Error);
    }

    #[test]
    fn file_stem_mismatch_wording() {
        let mut out = Vec::new();
        check_name("a", NameAnchor::FileStem("b"), &mut out);
        assert_eq!(out[0].message, "name \"a\" does not match file name \"b\"");
    }

    #[test]
    fn plain_ascii_descriptions_are_kept_without_sanitizing() {
        for kept in ["Fill PDF forms.", "", "a ~ b", "x-y (z): 1, 2; 3"] {
            assert!(is_sanitized_managed_description(kept), "{kept:?}");
            assert_eq!(sanitize_managed_description(kept), kept);
        }
        // Each of these goes the whole way: sanitizing changes it, or it
        // is not ASCII (`é` comes back as it is, the long way).
        for long_way in [
            " a", "a ", "a  b", "a~~b", "a<b", "a>b", "a`b", "a\tb", "é", "a\u{7f}",
        ] {
            assert!(!is_sanitized_managed_description(long_way), "{long_way:?}");
        }
    }

    proptest! {
        #[test]
        fn managed_names_match_the_regex(name in "\\PC{0,70}") {
            let by_hand = {
                let c: Vec<char> = name.chars().collect();
                !c.is_empty() && c.len() <= 64
                    && (c[0].is_ascii_lowercase() || c[0].is_ascii_digit())
                    && c.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')
            };
            prop_assert_eq!(is_managed_name(&name), by_hand);
        }

        #[test]
        fn a_description_called_sanitized_is_one(text in "[ -~\t\n\u{a0}\u{200b}é]{0,40}") {
            if is_sanitized_managed_description(&text) {
                prop_assert_eq!(sanitize_managed_description(&text), text);
            }
        }

        #[test]
        fn a_plain_description_is_called_sanitized(text in "[a-zA-Z0-9.,;:()-]{1,10}( [a-zA-Z0-9.,;:()-]{1,10}){0,5}") {
            prop_assert!(is_sanitized_managed_description(&text));
        }

        #[test]
        fn spec_valid_names_pass_all_checks(name in "[a-z0-9]{1,20}(-[a-z0-9]{1,20}){0,2}") {
            prop_assert!(codes(&name, &name).is_empty());
        }
    }
}
