//! Paths serialise as strings, lossily: bytes that are not UTF-8 become
//! U+FFFD, so a document with such a path is still whole (serde refuses a
//! non-UTF-8 `PathBuf`). Deserialising is unchanged. For `serialize_with`.

use std::path::{Path, PathBuf};

use serde::Serializer;

/// A path, lossily.
pub fn path<S: Serializer>(p: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&p.to_string_lossy())
}

/// An optional path, lossily (`None` as `null`).
pub fn option<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Some(p) => path(p, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    #[test]
    fn non_utf8_paths_serialise_lossily() {
        use std::os::unix::ffi::OsStrExt;

        use crate::diagnostic::Diagnostic;
        use crate::skill::{Level, Source};
        let bad = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/s/bad\xff/SKILL.md"));
        let d = Diagnostic::warning("x", "m", bad);
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["path"], "/s/bad\u{fffd}/SKILL.md");
        let source = Source {
            provider: "p".into(),
            level: Level::User,
            root: Some(bad.to_path_buf()),
        };
        assert_eq!(
            serde_json::to_value(&source).unwrap()["root"],
            "/s/bad\u{fffd}/SKILL.md"
        );
    }
}
