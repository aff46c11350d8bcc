//! The `plugins` feature's glue: with it, the plugin host loads the
//! libraries the settings and the builder name; without it, abi_stable is
//! not linked and every library named is reported, never skipped silently.

use std::path::PathBuf;

use skillpipe_core::SkillProvider;
use skillpipe_core::types::Diagnostic;
#[cfg(not(feature = "plugins"))]
use skillpipe_core::types::DiagnosticCode;

use super::error::Error;
use crate::engine::{Pipeline, declared_toggle_keys};

/// The providers to add after the built-ins: the plugins loaded, then
/// the host's own ([`Builder::provider`](super::Builder::provider)), with
/// the diagnostics of loading the plugins.
#[derive(Default)]
pub(super) struct Loaded {
    providers: Vec<(PathBuf, Box<dyn SkillProvider>)>,
    /// How many of `providers` are plugins (they come first).
    plugins: usize,
    diagnostics: Vec<Diagnostic>,
}

impl Loaded {
    /// Adds the host's providers, after the plugins.
    pub(super) fn extend(
        &mut self,
        host: impl IntoIterator<Item = (PathBuf, Box<dyn SkillProvider>)>,
    ) {
        self.providers.extend(host);
    }

    /// The toggle keys every provider here declares.
    pub(super) fn toggle_keys(&self) -> impl Iterator<Item = String> + '_ {
        declared_toggle_keys(self.providers.iter().map(|(_, p)| p.as_ref()))
    }

    /// The plugins' provider ids.
    pub(super) fn plugin_ids(&self) -> impl Iterator<Item = &str> {
        self.providers
            .iter()
            .take(self.plugins)
            .map(|(_, p)| p.info().id.as_str())
    }

    /// Hands them to the pipeline.
    pub(super) fn add_to(self, pipeline: &mut Pipeline) {
        if !self.providers.is_empty() || !self.diagnostics.is_empty() {
            pipeline.add_plugins(self.providers, self.diagnostics);
        }
    }
}

/// Settings' libraries give `plugin-error` diagnostics (SPEC §11);
/// explicit ones stop the build with the loader's reason.
#[cfg(feature = "plugins")]
pub(super) fn load(from_settings: &[PathBuf], explicit: &[PathBuf]) -> Result<Loaded, Error> {
    let (mut loaded, diagnostics) = skillpipe_plugin_host::load_plugins(from_settings);
    for path in explicit {
        let plugin =
            skillpipe_plugin_host::load_plugin(path).map_err(|e| Error::Plugin(e.to_string()))?;
        loaded.push((path.clone(), Box::new(plugin)));
    }
    Ok(Loaded {
        plugins: loaded.len(),
        providers: loaded,
        diagnostics,
    })
}

/// Without the `plugins` feature nothing loads; a library the settings
/// name is reported, never skipped silently.
#[cfg(not(feature = "plugins"))]
pub(super) fn load(from_settings: &[PathBuf], explicit: &[PathBuf]) -> Result<Loaded, Error> {
    if let Some(path) = explicit.first() {
        return Err(Error::Plugin(format!(
            "{}: this build of skillpipe cannot load plugins (the `plugins` feature is off)",
            path.display()
        )));
    }
    let diagnostics = from_settings
        .iter()
        .map(|path| {
            Diagnostic::warning(
                DiagnosticCode::PluginError,
                format!(
                    "{}: not loaded: this host links skillpipe without the `plugins` feature",
                    path.display()
                ),
                path,
            )
        })
        .collect::<Vec<_>>();
    Ok(Loaded {
        diagnostics,
        ..Loaded::default()
    })
}
