//! Findings about the user's files: [`Diagnostic`], its [`Severity`], and
//! the registry of stable codes (SPEC §2.3) that hosts and tests match on.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::lossy;

/// How bad a [`Diagnostic`] is. Neither stops a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The file could not become a skill.
    Error,
    /// The skill loaded, but something is off.
    Warning,
}

impl Severity {
    /// The lower-case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// The winner and loser of a name collision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collision {
    /// The file that kept the name.
    #[serde(serialize_with = "lossy::path")]
    pub winner_path: PathBuf,
    /// The provider of the winner.
    pub winner_provider: String,
    /// The provider of the loser (whose file is the diagnostic's `path`).
    pub loser_provider: String,
}

/// The stable code of a diagnostic (SPEC §2.3). It serialises as the
/// kebab-case text (`yaml-error`), and compares equal to that text, so
/// `diagnostic.code == "collision"` reads as it always did. A code this
/// version does not know (a plugin's own) is kept as [`DiagnosticCode::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DiagnosticCode {
    /// `description-required`. §2.2: a skill without a description, where one is required.
    DescriptionRequired,
    /// `description-too-long`. §2.2: a description over 1024 characters.
    DescriptionTooLong,
    /// `name-mismatch`. §2.2: the name differs from its folder (or file stem).
    NameMismatch,
    /// `name-too-long`. §2.2: a name over 64 characters.
    NameTooLong,
    /// `name-invalid-chars`. §2.2: a name with characters other than a-z, 0-9 and hyphens.
    NameInvalidChars,
    /// `name-hyphen-edge`. §2.2: a name starting or ending with a hyphen.
    NameHyphenEdge,
    /// `name-consecutive-hyphens`. §2.2: a name with `--`.
    NameConsecutiveHyphens,
    /// `yaml-error`. Frontmatter that does not parse, even after the repair.
    YamlError,
    /// `yaml-repaired`. Frontmatter that parsed only after the repair.
    YamlRepaired,
    /// `invalid-field`. A `name` or `description` that is not a string.
    InvalidField,
    /// `duplicate-key`. A frontmatter key given twice (the last value is used).
    DuplicateKey,
    /// `empty-file`. A `SKILL.md` holding only whitespace, where no description is required.
    EmptyFile,
    /// `invalid-utf8`. Bytes that are not UTF-8 (replaced).
    InvalidUtf8,
    /// `file-too-large`. A file over `scan.max_file_bytes`.
    FileTooLarge,
    /// `read-error`. A file or directory that could not be read.
    ReadError,
    /// `unsupported-entry`. A pi settings entry skillpipe does not take (patterns, packages).
    UnsupportedEntry,
    /// `symlink-loop`. A symlink leading back to a directory being walked.
    SymlinkLoop,
    /// `scan-truncated`. A scan stopped at a bound.
    ScanTruncated,
    /// `path-not-found`. An explicit skill path that does not exist.
    PathNotFound,
    /// `not-markdown`. An explicit skill path that is not a markdown file.
    NotMarkdown,
    /// `collision`. A name already taken by a skill earlier in the pipeline.
    Collision,
    /// `plugin-error`. A plugin that did not load, or failed.
    PluginError,
    /// `symlink-outside-project`. A project's skill file whose real path leaves the project.
    SymlinkOutsideProject,
    /// `untrusted-project`. Project skills not loaded: the project is not trusted.
    UntrustedProject,
    /// `unknown-provider`. `disabledProviders` names no provider there is.
    UnknownProvider,
    /// `catalog-truncated`. The configured catalogue budget shortened
    /// descriptions or left skills out.
    CatalogTruncated,
    /// `unknown-skill`. A `name@provider[:level]` address that names no
    /// copy of a loaded name.
    UnknownSkill,
    /// `watch-degraded`. A live-reload watcher that could not watch a path
    /// natively (the inotify watch limit, say) and polls it instead.
    WatchDegraded,
    /// `field-ignored`. An invocation field (`allowed-tools`, `effort`, …)
    /// whose value could not be read: left out of the skill's
    /// `invocation`; the skill loads.
    FieldIgnored,
    /// `field-conflict`. Invocation fields that contradict each other
    /// (`agent` without `context: fork`; `user-invocable: false` with
    /// `disable-model-invocation: true`); the skill loads as written.
    FieldConflict,
    /// `missing-dependency`. A skill whose `metadata.requires` names one
    /// that is not loaded (missing or switched off); nothing is dropped.
    MissingDependency,
    /// `dependency-cycle`. Skills whose `metadata.requires` lead back to
    /// themselves, reported once per cycle.
    DependencyCycle,
    /// Any other code, as written.
    Other(String),
}

impl DiagnosticCode {
    /// Every code of SPEC §2.3, in table order, then skillpipe's own.
    pub const KNOWN: [DiagnosticCode; 32] = [
        DiagnosticCode::DescriptionRequired,
        DiagnosticCode::DescriptionTooLong,
        DiagnosticCode::NameMismatch,
        DiagnosticCode::NameTooLong,
        DiagnosticCode::NameInvalidChars,
        DiagnosticCode::NameHyphenEdge,
        DiagnosticCode::NameConsecutiveHyphens,
        DiagnosticCode::YamlError,
        DiagnosticCode::YamlRepaired,
        DiagnosticCode::InvalidField,
        DiagnosticCode::DuplicateKey,
        DiagnosticCode::EmptyFile,
        DiagnosticCode::InvalidUtf8,
        DiagnosticCode::FileTooLarge,
        DiagnosticCode::ReadError,
        DiagnosticCode::UnsupportedEntry,
        DiagnosticCode::SymlinkLoop,
        DiagnosticCode::ScanTruncated,
        DiagnosticCode::PathNotFound,
        DiagnosticCode::NotMarkdown,
        DiagnosticCode::Collision,
        DiagnosticCode::PluginError,
        DiagnosticCode::SymlinkOutsideProject,
        DiagnosticCode::UntrustedProject,
        DiagnosticCode::UnknownProvider,
        DiagnosticCode::CatalogTruncated,
        DiagnosticCode::UnknownSkill,
        DiagnosticCode::WatchDegraded,
        DiagnosticCode::FieldIgnored,
        DiagnosticCode::FieldConflict,
        DiagnosticCode::MissingDependency,
        DiagnosticCode::DependencyCycle,
    ];

    /// The code's text.
    pub fn as_str(&self) -> &str {
        match self {
            DiagnosticCode::DescriptionRequired => "description-required",
            DiagnosticCode::DescriptionTooLong => "description-too-long",
            DiagnosticCode::NameMismatch => "name-mismatch",
            DiagnosticCode::NameTooLong => "name-too-long",
            DiagnosticCode::NameInvalidChars => "name-invalid-chars",
            DiagnosticCode::NameHyphenEdge => "name-hyphen-edge",
            DiagnosticCode::NameConsecutiveHyphens => "name-consecutive-hyphens",
            DiagnosticCode::YamlError => "yaml-error",
            DiagnosticCode::YamlRepaired => "yaml-repaired",
            DiagnosticCode::InvalidField => "invalid-field",
            DiagnosticCode::DuplicateKey => "duplicate-key",
            DiagnosticCode::EmptyFile => "empty-file",
            DiagnosticCode::InvalidUtf8 => "invalid-utf8",
            DiagnosticCode::FileTooLarge => "file-too-large",
            DiagnosticCode::ReadError => "read-error",
            DiagnosticCode::UnsupportedEntry => "unsupported-entry",
            DiagnosticCode::SymlinkLoop => "symlink-loop",
            DiagnosticCode::ScanTruncated => "scan-truncated",
            DiagnosticCode::PathNotFound => "path-not-found",
            DiagnosticCode::NotMarkdown => "not-markdown",
            DiagnosticCode::Collision => "collision",
            DiagnosticCode::PluginError => "plugin-error",
            DiagnosticCode::SymlinkOutsideProject => "symlink-outside-project",
            DiagnosticCode::UntrustedProject => "untrusted-project",
            DiagnosticCode::UnknownProvider => "unknown-provider",
            DiagnosticCode::CatalogTruncated => "catalog-truncated",
            DiagnosticCode::UnknownSkill => "unknown-skill",
            DiagnosticCode::WatchDegraded => "watch-degraded",
            DiagnosticCode::FieldIgnored => "field-ignored",
            DiagnosticCode::FieldConflict => "field-conflict",
            DiagnosticCode::MissingDependency => "missing-dependency",
            DiagnosticCode::DependencyCycle => "dependency-cycle",
            DiagnosticCode::Other(code) => code,
        }
    }

    /// The code of a text: a known one, or [`DiagnosticCode::Other`].
    pub fn parse(text: &str) -> Self {
        Self::KNOWN
            .into_iter()
            .find(|c| c.as_str() == text)
            .unwrap_or_else(|| DiagnosticCode::Other(text.to_owned()))
    }
}

impl fmt::Display for DiagnosticCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for DiagnosticCode {
    fn from(text: &str) -> Self {
        Self::parse(text)
    }
}

impl From<String> for DiagnosticCode {
    fn from(text: String) -> Self {
        Self::parse(&text)
    }
}

impl PartialEq<str> for DiagnosticCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for DiagnosticCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for DiagnosticCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for DiagnosticCode {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self::from)
    }
}

/// A finding about the user's files that does not stop the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `error` when a file could not become a skill, `warning` otherwise.
    pub severity: Severity,
    /// A stable code such as `yaml-error` (SPEC §2.3).
    pub code: DiagnosticCode,
    /// The human text, exact per SPEC.
    pub message: String,
    /// The file or directory the finding is about.
    #[serde(serialize_with = "lossy::path")]
    pub path: PathBuf,
    /// 1-based line in the file, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column in the file, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// For `collision`: who won.
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub collision: Option<Collision>,
}

impl Diagnostic {
    /// A diagnostic with no position.
    pub fn new(
        severity: Severity,
        code: impl Into<DiagnosticCode>,
        message: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> Self {
        Diagnostic {
            severity,
            code: code.into(),
            message: message.into(),
            path: path.into(),
            line: None,
            column: None,
            collision: None,
        }
    }

    /// A `warning` with no position.
    pub fn warning(
        code: impl Into<DiagnosticCode>,
        message: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> Self {
        Self::new(Severity::Warning, code, message, path)
    }

    /// An `error` with no position.
    pub fn error(
        code: impl Into<DiagnosticCode>,
        message: impl Into<String>,
        path: impl Into<PathBuf>,
    ) -> Self {
        Self::new(Severity::Error, code, message, path)
    }

    /// The same diagnostic with a line and column.
    pub fn at(mut self, line: u32, column: u32) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostic_codes_are_their_spec_texts_both_ways() {
        for code in DiagnosticCode::KNOWN {
            let text = code.as_str().to_owned();
            assert_eq!(DiagnosticCode::parse(&text), code, "{text}");
            assert_eq!(serde_json::to_value(&code).unwrap(), text.as_str());
            let back: DiagnosticCode = serde_json::from_value(text.clone().into()).unwrap();
            assert_eq!(back, code);
            assert!(code == text.as_str());
        }
        let texts: std::collections::BTreeSet<_> = DiagnosticCode::KNOWN
            .iter()
            .map(DiagnosticCode::as_str)
            .collect();
        assert_eq!(texts.len(), DiagnosticCode::KNOWN.len(), "no text twice");
        // A plugin's own code survives as written.
        let own = DiagnosticCode::from("categories-bad-group");
        assert_eq!(own, DiagnosticCode::Other("categories-bad-group".into()));
        let d = Diagnostic::warning(own, "m", "/p");
        assert_eq!(
            serde_json::to_value(&d).unwrap()["code"],
            "categories-bad-group"
        );
        assert_eq!(
            Diagnostic::error("yaml-error", "m", "/p").code,
            DiagnosticCode::YamlError
        );
    }

    #[test]
    fn diagnostic_json_has_collision_fields_flat_and_no_empty_position() {
        let mut d = Diagnostic::warning("collision", "name \"x\" collision", "/b/x/SKILL.md");
        d.collision = Some(Collision {
            winner_path: "/a/x/SKILL.md".into(),
            winner_provider: "native".into(),
            loser_provider: "claude".into(),
        });
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["winner_provider"], "native");
        assert_eq!(v["severity"], "warning");
        assert!(v.get("line").is_none());
        let back: Diagnostic = serde_json::from_value(v).unwrap();
        assert_eq!(back, d);
    }
}
