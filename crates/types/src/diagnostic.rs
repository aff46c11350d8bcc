//! Findings about the user's files: [`Diagnostic`], its [`Severity`], and
//! the registry of stable codes (SPEC §2.3) that hosts and tests match on.

use std::convert::Infallible;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

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

/// The table every [`DiagnosticCode`] item is made from: each row is a
/// variant, its kebab-case text and the severity SPEC §2.3 (or the guide's
/// "Diagnostic codes") gives it. The enum, [`DiagnosticCode::KNOWN`],
/// [`DiagnosticCode::as_str`], [`DiagnosticCode::default_severity`] and
/// the parse are generated from it, so a code is added in one place.
macro_rules! diagnostic_codes {
    ($($(#[doc = $doc:literal])* $variant:ident = $text:literal, $severity:ident;)*) => {
        /// The stable code of a diagnostic (SPEC §2.3). It serialises as the
        /// kebab-case text (`yaml-error`). A code this version does not know
        /// (a plugin's own) is kept as [`DiagnosticCode::Other`].
        ///
        /// It still converts from and compares equal to its text, because
        /// the pipeline, the providers and the plugin wire build
        /// diagnostics from strings; new code names the variant.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum DiagnosticCode {
            $(
                #[doc = concat!("`", $text, "`; default severity: ", stringify!($severity), ".")]
                #[doc = ""]
                $(#[doc = $doc])*
                $variant,
            )*
            /// Any other code, as written.
            Other(String),
        }

        impl DiagnosticCode {
            /// Every code of SPEC §2.3, in table order, then skillpipe's own.
            pub const KNOWN: [DiagnosticCode; [$($text),*].len()] =
                [$(DiagnosticCode::$variant),*];

            /// The code's text.
            pub fn as_str(&self) -> &str {
                match self {
                    $(DiagnosticCode::$variant => $text,)*
                    DiagnosticCode::Other(code) => code,
                }
            }

            /// The severity the code is reported with (SPEC §2.3); `None`
            /// for [`DiagnosticCode::Other`], whose severity is its reporter's.
            pub fn default_severity(&self) -> Option<Severity> {
                match self {
                    $(DiagnosticCode::$variant => Some(Severity::$severity),)*
                    DiagnosticCode::Other(_) => None,
                }
            }

            /// The known code of a text, if it is one.
            fn known(text: &str) -> Option<Self> {
                match text {
                    $($text => Some(DiagnosticCode::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

diagnostic_codes! {
    /// §2.2: a skill without a description, where one is required.
    DescriptionRequired = "description-required", Error;
    /// §2.2: a description over 1024 characters.
    DescriptionTooLong = "description-too-long", Warning;
    /// §2.2: the name differs from its folder (or file stem).
    NameMismatch = "name-mismatch", Warning;
    /// §2.2: a name over 64 characters.
    NameTooLong = "name-too-long", Warning;
    /// §2.2: a name with characters other than a-z, 0-9 and hyphens.
    NameInvalidChars = "name-invalid-chars", Warning;
    /// §2.2: a name starting or ending with a hyphen.
    NameHyphenEdge = "name-hyphen-edge", Warning;
    /// §2.2: a name with `--`.
    NameConsecutiveHyphens = "name-consecutive-hyphens", Warning;
    /// Frontmatter that does not parse, even after the repair.
    YamlError = "yaml-error", Error;
    /// Frontmatter that parsed only after the repair.
    YamlRepaired = "yaml-repaired", Warning;
    /// A `name` or `description` that is not a string.
    InvalidField = "invalid-field", Error;
    /// A frontmatter key given twice (the last value is used).
    DuplicateKey = "duplicate-key", Warning;
    /// A `SKILL.md` holding only whitespace, where no description is required.
    EmptyFile = "empty-file", Warning;
    /// Bytes that are not UTF-8 (replaced).
    InvalidUtf8 = "invalid-utf8", Warning;
    /// A file over `scan.max_file_bytes`.
    FileTooLarge = "file-too-large", Error;
    /// A file or directory that could not be read.
    ReadError = "read-error", Error;
    /// A pi settings entry skillpipe does not take (patterns, packages).
    UnsupportedEntry = "unsupported-entry", Warning;
    /// A symlink leading back to a directory being walked.
    SymlinkLoop = "symlink-loop", Warning;
    /// A scan stopped at a bound.
    ScanTruncated = "scan-truncated", Warning;
    /// An explicit skill path that does not exist.
    PathNotFound = "path-not-found", Warning;
    /// An explicit skill path that is not a markdown file.
    NotMarkdown = "not-markdown", Warning;
    /// A name already taken by a skill earlier in the pipeline.
    Collision = "collision", Warning;
    /// A plugin that did not load, or failed.
    PluginError = "plugin-error", Warning;
    /// A project's skill file whose real path leaves the project.
    SymlinkOutsideProject = "symlink-outside-project", Warning;
    /// Project skills not loaded: the project is not trusted.
    UntrustedProject = "untrusted-project", Warning;
    /// `disabledProviders` names no provider there is.
    UnknownProvider = "unknown-provider", Warning;
    /// The configured catalogue budget shortened descriptions or left
    /// skills out.
    CatalogTruncated = "catalog-truncated", Warning;
    /// A `name@provider[:level]` address that names no copy of a loaded
    /// name.
    UnknownSkill = "unknown-skill", Warning;
    /// A live-reload watcher that could not watch a path natively (the
    /// inotify watch limit, say) and polls it instead.
    WatchDegraded = "watch-degraded", Warning;
    /// An invocation field (`allowed-tools`, `effort`, …) whose value
    /// could not be read: left out of the skill's `invocation`; the skill
    /// loads.
    FieldIgnored = "field-ignored", Warning;
    /// Invocation fields that contradict each other (`agent` without
    /// `context: fork`; `user-invocable: false` with
    /// `disable-model-invocation: true`); the skill loads as written.
    FieldConflict = "field-conflict", Warning;
    /// A skill whose `metadata.requires` names one that is not loaded
    /// (missing or switched off); nothing is dropped.
    MissingDependency = "missing-dependency", Warning;
    /// Skills whose `metadata.requires` lead back to themselves, reported
    /// once per cycle.
    DependencyCycle = "dependency-cycle", Warning;
    /// An MCP server named in `mcp.servers` that could not be listed
    /// (whole): it did not start, ended, did not answer in time, repeated
    /// a cursor or wrote what is no MCP; the skills verified before the
    /// fault load, nothing else of the server's.
    McpServer = "mcp-server", Warning;
    /// A skill or file from an MCP server whose bytes, size, name or
    /// frontmatter differ from the server's own manifest, or that the
    /// manifest does not list: it is not served.
    McpIntegrity = "mcp-integrity", Warning;
}

impl DiagnosticCode {
    /// The code of a text: a known one, or [`DiagnosticCode::Other`].
    pub fn parse(text: &str) -> Self {
        Self::known(text).unwrap_or_else(|| DiagnosticCode::Other(text.to_owned()))
    }
}

impl FromStr for DiagnosticCode {
    type Err = Infallible;

    /// Never fails: a text that is no known code is [`DiagnosticCode::Other`].
    fn from_str(text: &str) -> Result<Self, Infallible> {
        Ok(Self::parse(text))
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

    /// SPEC §2.2 and §2.3's codes and severities, as the SPEC (outside
    /// this repository) gives them.
    const SPEC: [(&str, Severity); 22] = [
        ("description-required", Severity::Error),
        ("description-too-long", Severity::Warning),
        ("name-mismatch", Severity::Warning),
        ("name-too-long", Severity::Warning),
        ("name-invalid-chars", Severity::Warning),
        ("name-hyphen-edge", Severity::Warning),
        ("name-consecutive-hyphens", Severity::Warning),
        ("yaml-error", Severity::Error),
        ("yaml-repaired", Severity::Warning),
        ("invalid-field", Severity::Error),
        ("duplicate-key", Severity::Warning),
        ("empty-file", Severity::Warning),
        ("invalid-utf8", Severity::Warning),
        ("file-too-large", Severity::Error),
        ("read-error", Severity::Error),
        ("unsupported-entry", Severity::Warning),
        ("symlink-loop", Severity::Warning),
        ("scan-truncated", Severity::Warning),
        ("path-not-found", Severity::Warning),
        ("not-markdown", Severity::Warning),
        ("collision", Severity::Warning),
        ("plugin-error", Severity::Warning),
    ];

    /// The codes of the user guide's "Diagnostic codes" table (skillpipe's
    /// own, all warnings), in its order.
    fn readme_codes() -> Vec<&'static str> {
        let guide = include_str!("../../../docs/src/diagnostics.md");
        let section = guide
            .split_once("# Diagnostic codes\n")
            .map(|(_, rest)| rest)
            .expect("the guide has a Diagnostic codes chapter");
        let section = section.split("\n#").next().unwrap_or(section);
        section
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|row| row.split_once('`').map(|(code, _)| code))
            .collect()
    }

    #[test]
    fn every_code_is_documented_and_every_documented_code_is_known() {
        let readme = readme_codes();
        assert!(readme.contains(&"watch-degraded"), "{readme:?}");
        let documented: Vec<(&str, Severity)> = SPEC
            .into_iter()
            .chain(readme.iter().map(|code| (*code, Severity::Warning)))
            .collect();
        let table: Vec<(&str, Severity)> = DiagnosticCode::KNOWN
            .iter()
            .map(|c| (c.as_str(), c.default_severity().expect("a known code")))
            .collect();
        for entry in &documented {
            assert!(
                table.contains(entry),
                "documented but not in the table: {entry:?}"
            );
        }
        for entry in &table {
            assert!(
                documented.contains(entry),
                "in the table but not in SPEC §2.3 or the guide: {entry:?}"
            );
        }
        // The SPEC's codes first, then the guide's, each in its order.
        let texts: Vec<&str> = documented.iter().map(|(code, _)| *code).collect();
        let known: Vec<&str> = table.iter().map(|(code, _)| *code).collect();
        assert_eq!(known, texts);
        assert_eq!(DiagnosticCode::parse("x-y").default_severity(), None);
        assert_eq!(
            "collision".parse::<DiagnosticCode>(),
            Ok(DiagnosticCode::Collision)
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
