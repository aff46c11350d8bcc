//! The `plugins` feature's glue: with it, the plugin host loads the
//! libraries the settings and the builder name; without it, abi_stable is
//! not linked and every library named is reported, never skipped silently.

use std::path::PathBuf;

#[cfg(not(feature = "plugins"))]
use skillpipe_core::types::{Diagnostic, DiagnosticCode};

use super::error::Error;
use crate::engine::Pipeline;

/// Settings' libraries give `plugin-error` diagnostics (SPEC §11);
/// explicit ones stop the build with the loader's reason.
#[cfg(feature = "plugins")]
pub(super) fn add(
    pipeline: &mut Pipeline,
    from_settings: &[PathBuf],
    explicit: &[PathBuf],
) -> Result<(), Error> {
    let (mut loaded, diagnostics) = skillpipe_plugin_host::load_plugins(from_settings);
    for path in explicit {
        let plugin =
            skillpipe_plugin_host::load_plugin(path).map_err(|e| Error::Plugin(e.to_string()))?;
        loaded.push((path.clone(), Box::new(plugin)));
    }
    if !loaded.is_empty() || !diagnostics.is_empty() {
        pipeline.add_plugins(loaded, diagnostics);
    }
    Ok(())
}

/// Without the `plugins` feature nothing loads; a library the settings
/// name is reported, never skipped silently.
#[cfg(not(feature = "plugins"))]
pub(super) fn add(
    pipeline: &mut Pipeline,
    from_settings: &[PathBuf],
    explicit: &[PathBuf],
) -> Result<(), Error> {
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
    if !diagnostics.is_empty() {
        pipeline.add_plugins(Vec::new(), diagnostics);
    }
    Ok(())
}
