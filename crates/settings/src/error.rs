//! Settings errors and warnings, and where a value came from (figment's
//! metadata, shown as the file, environment variable or flag). A leaf:
//! the messages a figment error becomes are in `figment_error.rs`.

use std::path::PathBuf;

use figment::{Metadata, Source};

/// A settings error: the run stops with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// `--profile` or `SKILLPIPE_PROFILE` named no built-in profile.
    #[error("unknown profile `{0}` (expected one of: musepi, pi)")]
    UnknownProfile(String),
    /// The app directory name (`--app-dir`) is not one directory name.
    #[error("app directory name {name:?}: {reason}")]
    AppDir {
        /// The name given.
        name: String,
        /// What is wrong with it ([`crate::app_dir_problem`]).
        reason: String,
    },
    /// A settings file could not be read or parsed.
    #[error("settings file {}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong (with line and column where the parser gives them).
        reason: String,
    },
    /// A value of the wrong type (checked on the merged value only).
    #[error("setting `{key}` from {origin}: expected {expected}, found {found}")]
    Value {
        /// The dotted key.
        key: String,
        /// Where the value came from: a file, an environment variable or a flag.
        origin: String,
        /// What was expected.
        expected: String,
        /// What was found.
        found: String,
    },
    /// An integer larger than the setting can hold.
    #[error("setting `{key}` from {origin}: {value} is too large (at most {max})")]
    TooLarge {
        /// The dotted key.
        key: String,
        /// Where the value came from: a file, an environment variable or a flag.
        origin: String,
        /// The value, as written.
        value: String,
        /// The largest value the setting holds.
        max: String,
    },
    /// A `--set` flag without `=`.
    #[error("--set {0}: expected KEY=VALUE")]
    BadSet(String),
    /// Any other settings problem.
    #[error("{0}")]
    Other(String),
}

/// A warning about settings, printed on stderr as `warning: <code>: <message>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Stable code, e.g. `untrusted-setting`.
    pub code: &'static str,
    /// The text.
    pub message: String,
}

pub(crate) fn origin_of(meta: &Metadata) -> String {
    match &meta.source {
        Some(Source::File(path)) => path.display().to_string(),
        Some(Source::Custom(name)) => name.clone(),
        _ => meta.name.to_string(),
    }
}
