//! The settings layers as data: their kinds in layer order, an in-memory
//! layer, and where a value came from. A leaf, so that reading files,
//! stacking layers and explaining values can all name a layer without
//! importing each other.

use std::path::PathBuf;

use figment::{Metadata, Provider, Source};
use serde::Serialize;
use serde_json::Value;

/// The kinds of settings layer, in layer order (SPEC §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum LayerKind {
    /// The embedded `config/defaults.toml`.
    Default,
    /// The profile's preset.
    Profile,
    /// A user settings file (`<agentDir>/settings.*`).
    User,
    /// A project settings file.
    Project,
    /// A `--config` file.
    Config,
    /// A `SKILLPIPE_*` environment variable.
    Env,
    /// A `--set` flag.
    Set,
    /// The trusted value of a scan bound a project file tried to raise.
    TrustedBound,
}

impl LayerKind {
    const ALL: [LayerKind; 8] = [
        LayerKind::Default,
        LayerKind::Profile,
        LayerKind::User,
        LayerKind::Project,
        LayerKind::Config,
        LayerKind::Env,
        LayerKind::Set,
        LayerKind::TrustedBound,
    ];

    /// The layer kind as text (`user`, `--set`, …): figment's metadata name.
    pub fn label(self) -> &'static str {
        match self {
            LayerKind::Default => "default",
            LayerKind::Profile => "profile",
            LayerKind::User => "user",
            LayerKind::Project => "project",
            LayerKind::Config => "--config",
            LayerKind::Env => "environment",
            LayerKind::Set => "--set",
            LayerKind::TrustedBound => "trusted bound",
        }
    }

    pub(crate) fn of(meta: &Metadata) -> Option<LayerKind> {
        Self::ALL.into_iter().find(|k| k.label() == meta.name)
    }
}

/// Where a value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayerOrigin {
    /// The kind of layer.
    pub layer: LayerKind,
    /// The layer as errors name it: the file's path, `environment
    /// variable SKILLPIPE_…`, `--set key=value`, `built-in defaults`, …
    pub name: String,
    /// The file, for a file layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
}

/// One in-memory layer (profile defaults, an environment variable, a flag)
/// with a name that errors can show.
#[derive(Clone)]
pub(crate) struct Layer {
    pub(crate) kind: LayerKind,
    pub(crate) name: String,
    pub(crate) data: Value,
}

impl Provider for Layer {
    fn metadata(&self) -> Metadata {
        Metadata::from(self.kind.label(), Source::Custom(self.name.clone()))
    }
    fn data(
        &self,
    ) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        figment::providers::Serialized::defaults(&self.data).data()
    }
}

/// One effective setting: its dotted key, value and origin.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Effective {
    /// The dotted key (`skills.enabled`; pi's per-file `skills` and
    /// `packages` lists appear once per file that has one).
    pub key: String,
    /// The value in effect.
    pub value: Value,
    /// The layer it came from.
    pub origin: LayerOrigin,
}

/// A user or project settings file the profile reads, found or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SettingsFile {
    /// [`LayerKind::User`] or [`LayerKind::Project`].
    pub layer: LayerKind,
    /// Where it is (or, for a project file not found, the first place
    /// looked).
    pub path: PathBuf,
    /// Whether a file is there.
    pub exists: bool,
}
