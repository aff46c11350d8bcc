//! The built-in profiles (`config/profiles/*.toml`, embedded) and the
//! embedded defaults every profile starts from.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use skillpipe_core::PipelineRules;
use skillpipe_core::runtime::Style;

use crate::error::SettingsError;

pub(crate) const DEFAULTS: &str = include_str!("../config/defaults.toml");
pub(crate) const PROFILE_FILES: [(&str, &str); 2] = [
    ("musepi", include_str!("../config/profiles/musepi.toml")),
    ("pi", include_str!("../config/profiles/pi.toml")),
];

/// The names of the built-in profiles.
pub const PROFILES: [&str; 2] = ["musepi", "pi"];

/// A profile preset: everything that makes `musepi` and `pi` differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preset {
    /// The app directory name (`.musepi`, `.pi`).
    pub app_dir: String,
    /// The variable that moves the agent directory.
    pub agent_dir_env: String,
    /// Provider ids in list order (ties in priority keep it).
    pub providers: Vec<String>,
    /// Catalogue format.
    pub catalog: Style,
    /// Expansion format.
    pub expansion: Style,
    /// Settings key layout.
    pub settings_shape: SettingsShape,
    /// Where project settings are looked for.
    pub project_settings: ProjectSettings,
    /// Project settings file names, in layer order.
    pub project_settings_files: Vec<String>,
    /// The pipeline's part.
    pub pipeline: PipelineRules,
}

/// How a profile's settings keys are laid out. A profile file naming
/// anything else fails to load (a typo never falls back to a default).
/// Each shape's keys are one table in its module (`musepi.rs`, `pi.rs`);
/// what the shape decides is in `shape.rs` (e.g.
/// [`SettingsShape::trust_keys`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingsShape {
    /// `skills.*` toggles, `disabledExtensions`, …
    Musepi,
    /// pi's top-level `skills` and `packages` lists.
    Pi,
}

/// Where a profile looks for project settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProjectSettings {
    /// The nearest ancestor of cwd holding the app directory, up to the
    /// repository root.
    Nearest,
    /// `<cwd>/<app dir>` only.
    Cwd,
}

#[derive(Deserialize)]
pub(crate) struct ProfileFile {
    pub(crate) profile: Preset,
    pub(crate) settings: toml::Table,
}

/// Loads a built-in profile by name.
pub fn profile(name: &str) -> Result<Preset, SettingsError> {
    profile_file(name).map(|p| p.profile)
}

pub(crate) fn profile_file(name: &str) -> Result<ProfileFile, SettingsError> {
    let text = PROFILE_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| SettingsError::UnknownProfile(name.to_owned()))?;
    toml::from_str(text).map_err(|e| SettingsError::File {
        path: PathBuf::from(format!("config/profiles/{name}.toml")),
        reason: e.to_string(),
    })
}

/// Why `name` cannot be an app directory name (`--app-dir`,
/// [`crate::Request::app_dir`]), or `None` when it can: it must be one
/// directory name, joined to the home and to each project directory, so
/// never empty, never a path (`a/b`, `/etc`, `C:`), never `.` or `..`.
pub fn app_dir_problem(name: &str) -> Option<String> {
    use std::path::{Component, Path};
    const EXPECTED: &str = "expected one directory name (like .musepi or .omp)";
    let found = if name.is_empty() {
        "an empty name".to_owned()
    } else if name == "." || name == ".." {
        format!("`{name}`")
    } else if name.contains(['/', '\\']) || name.contains(std::path::is_separator) {
        "a path".to_owned()
    } else if name.contains('\0') {
        "a NUL character".to_owned()
    } else {
        let mut parts = Path::new(name).components();
        match (parts.next(), parts.next()) {
            (Some(Component::Normal(part)), None) if part == name => return None,
            _ => "a path".to_owned(),
        }
    };
    Some(format!("{EXPECTED}, found {found}"))
}
