//! The data skillpipe passes around: [`Skill`], [`Source`], [`Level`],
//! [`Diagnostic`] and [`Severity`].
//!
//! This crate does no I/O and depends on nothing of ours, so host agents,
//! providers and plugin hosts can all share it. Every value carries its
//! origin: a skill its provider, level and root, a diagnostic its path and,
//! for YAML errors, its line and column in the SKILL.md file.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

/// Where a root sits relative to the user: their home, the project, or a
/// path named explicitly (pi's settings entries and `--skill`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Under the user's home or agent directory.
    User,
    /// Under the project (cwd or its ancestors up to the repository root).
    Project,
    /// A path named explicitly in settings or on the command line.
    Path,
}

impl Level {
    /// The lower-case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::User => "user",
            Level::Project => "project",
            Level::Path => "path",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a skill came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The provider id, e.g. `claude`, `custom`, `path`.
    pub provider: String,
    /// The root's level.
    pub level: Level,
    /// The scanned directory; absent for a single file named as a path.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "lossy::option"
    )]
    pub root: Option<PathBuf>,
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The skill name (frontmatter `name`, else the folder or file stem).
    pub name: String,
    /// The description, `""` when the root does not require one.
    pub description: String,
    /// The skill file as found (absolute, not canonicalised).
    #[serde(serialize_with = "lossy::path")]
    pub file_path: PathBuf,
    /// The directory relative references resolve against.
    #[serde(serialize_with = "lossy::path")]
    pub base_dir: PathBuf,
    /// Which provider, level and root found it: shared by every skill of
    /// one root.
    pub source: Arc<Source>,
    /// `true` keeps it out of the catalogue (it still expands and resolves).
    pub hidden: bool,
    /// The frontmatter mapping as JSON, keys as written.
    pub frontmatter: Frontmatter,
    /// The typed invocation fields (Claude Code's `allowed-tools`,
    /// `user-invocable`, `arguments`, …), when the frontmatter has any;
    /// absent from JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<Box<Invocation>>,
    /// How the settings show it (`skills.visibility`); absent from JSON
    /// when `on`.
    #[serde(default, skip_serializing_if = "Visibility::is_on")]
    pub visibility: Visibility,
}

impl Skill {
    /// Whether the user may call it as a slash command: `false` only for
    /// `user-invocable: false` (it stays in the catalogue).
    pub fn user_invocable(&self) -> bool {
        self.invocation
            .as_ref()
            .and_then(|i| i.user_invocable)
            .unwrap_or(true)
    }

    /// The description with `when_to_use` appended, as Claude Code lists
    /// it; the description alone without one.
    pub fn listing_description(&self) -> &str {
        self.invocation
            .as_ref()
            .and_then(|i| i.listing_description.as_deref())
            .unwrap_or(&self.description)
    }
}

/// The invocation fields of a skill's frontmatter, typed (Claude Code's
/// fields: README "Claude Code's fields" says what skillpipe does with
/// each). Every field is `None` when the frontmatter does not set it, or
/// sets it to a value that could not be read (a `field-ignored` warning
/// says so); in JSON, absent keys are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Invocation {
    /// `allowed-tools`: tool patterns pre-approved while the skill runs
    /// (`Read`, `Bash(git add *)`); a string is split at commas and
    /// spaces outside parentheses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// `disallowed-tools`: tool patterns removed while the skill runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// `user-invocable`: `false` removes the slash command (the skill
    /// stays in the catalogue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_invocable: Option<bool>,
    /// `argument-hint`: shown while the user types the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// `arguments`: the names of the positional arguments, in order (`$name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<String>>,
    /// `model`: the model to use while the skill runs (`inherit` allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `effort`: `low`, `medium`, `high`, `xhigh` or `max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// `context`: `fork` runs the skill in a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `agent`: the subagent type of `context: fork`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `paths`: globs of the files the skill is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    /// `when_to_use`: more on when to use it, appended to the description
    /// in Claude Code's listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// With `when_to_use`: the description and it, as Claude Code lists
    /// them (joined by ` - `, at most 1,536 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_description: Option<String>,
    /// `metadata.requires`: the skills this one needs, as names or
    /// `name@provider[:level]` addresses (checked after discovery: a
    /// missing one is a `missing-dependency` warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
}

/// Claude Code's listing cap of a description with `when_to_use`, in
/// characters.
pub const LISTING_DESCRIPTION_CHARS: usize = 1536;

/// How a skill is shown (setting `skills.visibility`, pi: `visibility`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    /// In the catalogue and a slash command (the default).
    #[default]
    On,
    /// In the catalogue by name only, without its description.
    NameOnly,
    /// A slash command, not in the catalogue (`hidden`).
    UserOnly,
    /// Not loaded.
    Off,
}

impl Visibility {
    /// Every value, from the least restrictive to the most.
    pub const ALL: [Visibility; 4] = [
        Visibility::On,
        Visibility::NameOnly,
        Visibility::UserOnly,
        Visibility::Off,
    ];

    /// The setting's text (`name-only`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::On => "on",
            Visibility::NameOnly => "name-only",
            Visibility::UserOnly => "user-only",
            Visibility::Off => "off",
        }
    }

    /// The value of a setting's text.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Whether it is the default, `on`.
    pub fn is_on(&self) -> bool {
        *self == Visibility::On
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A frontmatter mapping as JSON.
type Mapping = serde_json::Map<String, serde_json::Value>;

/// What builds a lazy frontmatter's mapping from its YAML.
type Build = fn(&str) -> Mapping;

/// A skill's frontmatter: the YAML mapping as JSON, keys as written.
///
/// Discovery reads the fields it needs (name, description, flags) straight
/// from the YAML and keeps the YAML; the mapping is built from it the first
/// time it is asked for ([`Frontmatter::map`], or through `Deref`), so a
/// host that only lists skills never pays for the mappings. It serialises,
/// compares and prints as the mapping.
#[derive(Clone, Default)]
pub struct Frontmatter {
    /// Boxed, so that a skill stays small to move: most are never built.
    map: OnceLock<Box<Mapping>>,
    /// The YAML and the function that turns it into the mapping, until the
    /// mapping is built.
    yaml: Option<(Box<str>, Build)>,
}

impl Frontmatter {
    /// A frontmatter built already.
    pub fn new(map: Mapping) -> Self {
        Frontmatter {
            map: OnceLock::from(Box::new(map)),
            yaml: None,
        }
    }

    /// A frontmatter built from `yaml` by `build` when first asked for.
    /// `build` must be a pure function of the YAML.
    pub fn lazy(yaml: impl Into<Box<str>>, build: Build) -> Self {
        Frontmatter {
            map: OnceLock::new(),
            yaml: Some((yaml.into(), build)),
        }
    }

    /// The mapping.
    pub fn map(&self) -> &Mapping {
        self.map.get_or_init(|| {
            Box::new(match &self.yaml {
                Some((yaml, build)) => build(yaml),
                None => Mapping::new(),
            })
        })
    }

    /// The value of the top-level key `key`, as `map().get(key)`, but
    /// without building the mapping when the YAML cannot hold that key:
    /// its text has neither the key nor a `\` (the only way to spell a key
    /// without its letters is a double-quoted escape).
    pub fn field(&self, key: &str) -> Option<&serde_json::Value> {
        if self.map.get().is_none()
            && let Some((yaml, _)) = &self.yaml
            && !yaml.contains('\\')
            && !has(yaml, key)
        {
            return None;
        }
        self.map().get(key)
    }

    /// The mapping, owned.
    pub fn into_map(mut self) -> Mapping {
        self.map();
        self.map.take().map(|map| *map).unwrap_or_default()
    }
}

/// Whether `text` contains `key`: its first character found by `memchr`
/// (a substring search would set itself up anew for each short YAML).
fn has(text: &str, key: &str) -> bool {
    let Some(first) = key.chars().next() else {
        return true;
    };
    text.match_indices(first)
        .any(|(i, _)| text.get(i..).is_some_and(|rest| rest.starts_with(key)))
}

impl std::ops::Deref for Frontmatter {
    type Target = Mapping;

    fn deref(&self) -> &Mapping {
        self.map()
    }
}

impl From<Mapping> for Frontmatter {
    fn from(map: Mapping) -> Self {
        Frontmatter::new(map)
    }
}

impl PartialEq for Frontmatter {
    fn eq(&self, other: &Self) -> bool {
        self.map() == other.map()
    }
}

impl fmt::Debug for Frontmatter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.map().fmt(f)
    }
}

impl Serialize for Frontmatter {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.map().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Frontmatter {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Mapping::deserialize(deserializer).map(Frontmatter::new)
    }
}

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

/// What discovery returns: never fails as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Discovery {
    /// The loaded skills, in pipeline order.
    pub skills: Vec<Skill>,
    /// Everything worth telling the user, in the order of SPEC §2.2.
    pub diagnostics: Vec<Diagnostic>,
    /// The copies of loaded names that did not load (collision losers,
    /// identical copies), in the order the pipeline met them: reachable as
    /// `name@provider[:level]`. Never serialised, so the `list --json`
    /// document (SPEC §12) is unchanged; `list --all` shows them on its own.
    #[serde(skip)]
    pub shadowed: Vec<ShadowedCopy>,
    /// The skills a setting removed, a switched-off source held, or that
    /// were the same real file as a loaded one, in the order met: filled
    /// only when the run was asked to keep them (`explain`, `list --all`).
    /// Never serialised, never addressable.
    #[serde(skip)]
    pub removed: Vec<ShadowedCopy>,
    /// Every file that claimed a name, in the order the pipeline met it,
    /// with the diagnostics of one that did not become a skill: filled
    /// only with [`Discovery::removed`].
    #[serde(skip)]
    pub claims: Vec<Claim>,
    /// How many roots were scanned (switched-off ones not counted).
    #[serde(skip)]
    pub roots_scanned: usize,
}

/// A file that claimed a name (see [`Discovery::claims`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The name it claimed (the name the filters saw).
    pub name: String,
    /// The file, as found.
    pub file_path: PathBuf,
    /// Its provider.
    pub provider: String,
    /// For a file that did not become a skill: its own diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Which pass of the pipeline (SPEC §5) a skill went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PipelinePass {
    /// Pass 1: the providers in priority order (pi: all its sources).
    Providers,
    /// Pass 2: custom directories and `--skill` paths.
    Custom,
    /// Pass 3: managed (auto-learned) skills.
    Managed,
}

impl PipelinePass {
    /// The lower-case name used in JSON and text.
    pub fn as_str(self) -> &'static str {
        match self {
            PipelinePass::Providers => "providers",
            PipelinePass::Custom => "custom",
            PipelinePass::Managed => "managed",
        }
    }
}

/// The copy that kept a name, as the fate of another copy names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Winner {
    /// Its skill file.
    #[serde(serialize_with = "lossy::path")]
    pub file_path: PathBuf,
    /// Its provider.
    pub provider: String,
    /// Its root's level.
    pub level: Level,
    /// Its provider's priority; `None` in the custom pass, which has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// The pass that loaded it.
    pub pass: PipelinePass,
}

/// What became of a copy of a name that is not the copy loaded under it.
/// Serialised with its kind under `fate` (`{"fate": "shadowed", "by": …}`).
/// More fates may join (a copy with the winner's real path, one removed by
/// a setting), so a `match` needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fate", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Fate {
    /// A copy met after the winner, with other bytes: a `collision`.
    Shadowed {
        /// The copy that kept the name.
        by: Winner,
    },
    /// A copy whose `SKILL.md` bytes are the winner's: no `collision`
    /// (unless `warnIdenticalCopies` asks for it).
    Identical {
        /// The copy that kept the name.
        to: Winner,
    },
    /// The same real file as the loaded copy, reached by another path (a
    /// symlink, a root listed twice): no diagnostic.
    SameRealPath {
        /// The copy that was loaded from that file.
        of: Winner,
    },
    /// A name filter removed it.
    Removed {
        /// The setting (`skills.ignoredSkills`, `skills.includeSkills`,
        /// `disabledExtensions`).
        setting: String,
        /// The entry that matched (for `includeSkills`, the list none of
        /// whose globs matched).
        pattern: String,
        /// The settings layer that set it (a file, `--set …`), when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        layer: Option<String>,
    },
    /// Its source was switched off: a toggle (`skills.enableClaudeUser`),
    /// `disabledProviders` or `--no-skills`.
    SwitchedOff {
        /// The setting or flag.
        setting: String,
        /// The settings layer that set it, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        layer: Option<String>,
    },
}

impl Fate {
    /// The copy that kept the name, for a copy that lost it to another.
    pub fn winner(&self) -> Option<&Winner> {
        match self {
            Fate::Shadowed { by } => Some(by),
            Fate::Identical { to } => Some(to),
            Fate::SameRealPath { of } => Some(of),
            Fate::Removed { .. } | Fate::SwitchedOff { .. } => None,
        }
    }

    /// The fate as a short phrase: `shadowed by claude/user (priority
    /// 90, providers pass) ~/.claude/skills/x/SKILL.md`, `removed by
    /// skills.ignoredSkills "tmp-*" (from ~/.musepi/settings.json)`.
    pub fn describe(&self) -> String {
        let winner = |w: &Winner| {
            let priority = w
                .priority
                .map_or_else(String::new, |p| format!("priority {p}, "));
            format!(
                "{}/{} ({priority}{} pass) {}",
                w.provider,
                w.level,
                w.pass.as_str(),
                w.file_path.display()
            )
        };
        let from = |layer: &Option<String>| {
            layer
                .as_ref()
                .map_or_else(String::new, |l| format!(" (from {l})"))
        };
        match self {
            Fate::Shadowed { by } => format!("shadowed by {}", winner(by)),
            Fate::Identical { to } => format!("identical to {}", winner(to)),
            Fate::SameRealPath { of } => format!("same real path as {}", winner(of)),
            Fate::Removed {
                setting,
                pattern,
                layer,
            } => format!("removed by {setting} {pattern}{}", from(layer)),
            Fate::SwitchedOff { setting, layer } => {
                format!("source switched off by {setting}{}", from(layer))
            }
        }
    }

    /// The kind, as JSON names it (`shadowed`, `removed`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Fate::Shadowed { .. } => "shadowed",
            Fate::Identical { .. } => "identical",
            Fate::SameRealPath { .. } => "same-real-path",
            Fate::Removed { .. } => "removed",
            Fate::SwitchedOff { .. } => "switched-off",
        }
    }
}

/// A skill that did not load because an earlier copy has its name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShadowedCopy {
    /// The copy, as it would have loaded.
    pub skill: Skill,
    /// Why it did not.
    pub fate: Fate,
}

/// Paths serialise as strings, lossily: bytes that are not UTF-8 become
/// U+FFFD, so a document with such a path is still whole (serde refuses a
/// non-UTF-8 `PathBuf`). Deserialising is unchanged. For `serialize_with`.
pub mod lossy {
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

    #[test]
    fn source_without_root_omits_the_key() {
        let s = Source {
            provider: "path".into(),
            level: Level::Path,
            root: None,
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v, serde_json::json!({"provider": "path", "level": "path"}));
    }

    #[test]
    fn invocation_and_visibility_are_left_out_of_json_when_unset() {
        let mut skill = Skill {
            name: "x".into(),
            description: "d".into(),
            file_path: "/s/x/SKILL.md".into(),
            base_dir: "/s/x".into(),
            source: Arc::new(Source {
                provider: "native".into(),
                level: Level::User,
                root: None,
            }),
            hidden: false,
            frontmatter: Frontmatter::default(),
            invocation: None,
            visibility: Visibility::On,
        };
        let v = serde_json::to_value(&skill).unwrap();
        assert!(v.get("invocation").is_none() && v.get("visibility").is_none());
        assert!(skill.user_invocable());
        assert_eq!(skill.listing_description(), "d");
        let inv = Invocation {
            user_invocable: Some(false),
            listing_description: Some("d - w".into()),
            ..Default::default()
        };
        skill.invocation = Some(Box::new(inv));
        skill.visibility = Visibility::NameOnly;
        let v = serde_json::to_value(&skill).unwrap();
        assert_eq!(
            v["invocation"],
            serde_json::json!({"user_invocable": false, "listing_description": "d - w"})
        );
        assert_eq!(v["visibility"], "name-only");
        assert!(!skill.user_invocable());
        assert_eq!(skill.listing_description(), "d - w");
        let back: Skill = serde_json::from_value(v).unwrap();
        assert_eq!(back, skill);
        // The order is how restrictive each is.
        assert!(Visibility::On < Visibility::NameOnly && Visibility::UserOnly < Visibility::Off);
        for v in Visibility::ALL {
            assert_eq!(Visibility::parse(v.as_str()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
    }

    /// A toy builder: `k=v` pairs, one a line.
    fn pairs(yaml: &str) -> Mapping {
        yaml.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), serde_json::Value::from(v)))
            .collect()
    }

    #[test]
    fn a_lazy_frontmatter_is_its_mapping_everywhere() {
        let lazy = Frontmatter::lazy("b=2\na=1", pairs);
        let eager = Frontmatter::new(pairs("b=2\na=1"));
        assert_eq!(lazy, eager);
        assert_eq!(lazy.get("a"), Some(&serde_json::Value::from("1")));
        // Keys as written, in JSON and in Debug.
        assert_eq!(
            serde_json::to_string(&lazy).unwrap(),
            r#"{"b":"2","a":"1"}"#
        );
        assert_eq!(format!("{lazy:?}"), format!("{eager:?}"));
        let back: Frontmatter = serde_json::from_str(r#"{"b":"2","a":"1"}"#).unwrap();
        assert_eq!(back, lazy);
        assert_eq!(lazy.clone().into_map(), pairs("b=2\na=1"));
        assert!(Frontmatter::default().is_empty());
        assert_ne!(Frontmatter::lazy("a=1", pairs), eager);
    }

    #[test]
    fn a_field_the_yaml_cannot_hold_builds_no_mapping() {
        /// A builder that spells `k` as `\x6b`, as a double-quoted key may.
        fn escaped(yaml: &str) -> Mapping {
            pairs(&yaml.replace("\\x6b", "k"))
        }
        let lazy = Frontmatter::lazy("w=wide\nwhen_to_use=now", pairs);
        assert_eq!(lazy.field("b"), None);
        assert!(lazy.map.get().is_none(), "built for a key it lacks");
        assert_eq!(lazy.field("when_to_use"), Some(&"now".into()));
        assert!(lazy.map.get().is_some());
        // An escape may spell any key: the mapping is asked.
        let spelt = Frontmatter::lazy("\\x6b=v", escaped);
        assert_eq!(spelt.field("k"), Some(&"v".into()));
        assert_eq!(Frontmatter::new(pairs("k=v")).field("k"), Some(&"v".into()));
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_paths_serialise_lossily() {
        use std::os::unix::ffi::OsStrExt;
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
