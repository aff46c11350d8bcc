//! What settings are loaded for: the request (the typed result is in
//! `settings.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;

/// What to load settings for: the injected world plus the flags.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Profile name.
    pub profile: String,
    /// Override of the profile's app directory (`--app-dir`).
    pub app_dir: Option<String>,
    /// The user's home.
    pub home: PathBuf,
    /// The project directory (absolute).
    pub cwd: PathBuf,
    /// Environment snapshot.
    pub env: BTreeMap<String, String>,
    /// `--config` files, absolute, in order.
    pub config_files: Vec<PathBuf>,
    /// `--set` flags, `key.path=VALUE`, in order.
    pub sets: Vec<String>,
    /// The source toggles the host's providers declare
    /// (`ProviderInfo::toggle_keys`, e.g. `enableClaudeUser`): how an
    /// environment variable's upper-case name is spelt back. Any
    /// `skills.enable<Source>` key is read as a toggle either way.
    pub toggle_keys: Vec<String>,
}
