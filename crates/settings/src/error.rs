//! Settings errors and warnings, and where a value came from (figment's
//! metadata, shown as the file, environment variable or flag).

use std::path::PathBuf;

use figment::{Figment, Metadata, Source};

/// A settings error: the run stops with exit code 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// `--profile` or `SKILLPIPE_PROFILE` named no built-in profile.
    #[error("unknown profile `{0}` (expected one of: musepi, pi)")]
    UnknownProfile(String),
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

pub(crate) fn figment_error(figment: &Figment, err: figment::Error) -> SettingsError {
    let key = err.path.join(".");
    let origin = err
        .metadata
        .as_ref()
        .or_else(|| figment.find_metadata(&key))
        .map_or_else(|| "settings".to_owned(), origin_of);
    match &err.kind {
        figment::error::Kind::InvalidType(actual, expected)
        | figment::error::Kind::InvalidValue(actual, expected) => SettingsError::Value {
            key,
            origin,
            expected: plain_expected(expected),
            found: actual.to_string(),
        },
        figment::error::Kind::MissingField(field) => SettingsError::Other(format!(
            "setting `{}` is missing (from {origin})",
            if key.is_empty() {
                field.to_string()
            } else {
                format!("{key}.{field}")
            }
        )),
        _ => SettingsError::Other(format!("setting `{key}` from {origin}: {}", err.kind)),
    }
}

fn plain_expected(serde_expected: &str) -> String {
    match serde_expected {
        "a sequence" => "an array".to_owned(),
        "usize" | "u64" | "u32" => "a non-negative integer".to_owned(),
        "a boolean" => "a boolean".to_owned(),
        "a string" => "a string".to_owned(),
        other => other.to_owned(),
    }
}
