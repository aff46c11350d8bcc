//! The `mimeType` of a skill's file, and whether its bytes go out as
//! `text` or as a base64 `blob`.

/// What a directory resource is (SEP-2640).
pub(crate) const DIRECTORY: &str = "inode/directory";

/// The type of a file by its name's extension (case ignored);
/// `application/octet-stream` when the extension says nothing.
pub(crate) fn of(name: &str) -> &'static str {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" | "mdx" | "mdc" | "mkd" | "mdown" => "text/markdown",
        "txt" | "text" | "log" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" => "application/xml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "tsv" => "text/tab-separated-values",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" | "mts" | "cts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "go" => "text/x-go",
        "rb" => "text/x-ruby",
        "java" => "text/x-java",
        "c" | "h" => "text/x-c",
        "cc" | "cpp" | "hpp" => "text/x-c++",
        "sql" => "application/sql",
        "sh" | "bash" | "zsh" => "application/x-sh",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "gz" | "tgz" => "application/gzip",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        _ => "application/octet-stream",
    }
}

/// Whether a file of this type and these bytes goes out as `text`: a
/// textual type (or one the extension did not name) and UTF-8 without a
/// NUL byte; anything else is a `blob`, so no byte is ever changed.
pub(crate) fn is_text(mime: &str, bytes: &[u8]) -> bool {
    let textual = mime.starts_with("text/")
        || matches!(
            mime,
            "application/json"
                | "application/yaml"
                | "application/toml"
                | "application/xml"
                | "application/sql"
                | "application/x-sh"
                | "image/svg+xml"
                | "application/octet-stream"
        );
    textual && !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

/// The type a file goes out with: its extension's, but a file the
/// extension did not name that holds text is `text/plain`.
pub(crate) fn sent_as(name: &str, bytes: &[u8]) -> &'static str {
    match of(name) {
        "application/octet-stream" if is_text("application/octet-stream", bytes) => "text/plain",
        mime => mime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_come_from_the_extension_case_ignored() {
        assert_eq!(of("SKILL.md"), "text/markdown");
        assert_eq!(of("forms.JSON"), "application/json");
        assert_eq!(of("logo.png"), "image/png");
        assert_eq!(of("Makefile"), "application/octet-stream");
    }

    #[test]
    fn only_utf8_without_nul_of_a_textual_type_is_text() {
        assert!(is_text("text/markdown", "é\n".as_bytes()));
        assert!(!is_text("text/markdown", b"\xff\xfe"));
        assert!(!is_text("text/plain", b"a\0b"));
        assert!(!is_text("image/png", b"plain"));
        assert_eq!(sent_as("Makefile", b"all:\n"), "text/plain");
        assert_eq!(sent_as("blob", b"\x00\x01"), "application/octet-stream");
        assert_eq!(sent_as("run.sh", b"#!/bin/sh\n"), "application/x-sh");
    }
}
