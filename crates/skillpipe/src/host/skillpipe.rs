//! [`Skillpipe`], the configured discovery a host keeps: what it was built
//! with and the calls that answer from its settings and providers.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skillpipe_core::runtime::ContextFile;
use skillpipe_core::{ProviderInfo, SkillProvider};
use skillpipe_settings::{Settings, Warning};

use super::builder::Builder;
use super::profile::Profile;
use crate::engine::Pipeline;

pub(super) struct Inner {
    pub(super) profile: Profile,
    pub(super) pipeline: Pipeline,
    /// What built it (see `watching.rs`).
    pub(super) builder: Builder,
    /// Every settings file its settings may come from, present or not.
    pub(super) settings_files: Vec<PathBuf>,
}

/// A configured discovery: settings read, providers and plugins loaded.
/// Cheap to clone and shareable between threads; [`Skillpipe::discover`]
/// may run as often as the host likes (each run reads the disk afresh).
///
/// ```no_run
/// use skillpipe::{Profile, Skillpipe};
/// # fn main() -> Result<(), skillpipe::Error> {
/// let skillpipe = Skillpipe::builder(Profile::Musepi)
///     .home("/home/me")
///     .cwd("/home/me/project")
///     .build()?;
/// let found = skillpipe.discover();
/// for skill in found.skills() {
///     println!("{} — {}", skill.name, skill.description);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Skillpipe {
    pub(super) inner: Arc<Inner>,
}

impl fmt::Debug for Skillpipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skillpipe")
            .field("profile", &self.inner.profile)
            .field("pipeline", &self.inner.pipeline)
            .finish()
    }
}

impl Skillpipe {
    /// Starts configuring discovery for `profile`.
    pub fn builder(profile: Profile) -> Builder {
        Builder::new(profile)
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.inner.profile
    }

    /// The home directory discovery runs for.
    pub fn home(&self) -> &std::path::Path {
        &self.inner.pipeline.context().home
    }

    /// The project directory discovery runs for.
    pub fn cwd(&self) -> &std::path::Path {
        &self.inner.pipeline.context().cwd
    }

    /// The merged settings.
    pub fn settings(&self) -> &Settings {
        self.inner.pipeline.settings()
    }

    /// What the settings layers reported while loading (unknown keys,
    /// untrusted project settings): show them once, as the CLI does on
    /// stderr. Discovery's own findings are in [`Discovered::diagnostics`](super::Discovered::diagnostics).
    pub fn warnings(&self) -> &[Warning] {
        &self.settings().warnings
    }

    /// The active providers, in pipeline order.
    pub fn providers(&self) -> impl ExactSizeIterator<Item = &dyn SkillProvider> {
        self.inner.pipeline.providers().iter().map(|p| p.as_ref())
    }

    /// The settings keys that switch a provider's roots on or off (for a
    /// `providers` listing).
    pub fn toggle_keys(&self, info: &ProviderInfo) -> Vec<String> {
        self.inner.pipeline.toggle_keys(info)
    }

    /// The AGENTS.md files for the project directory, nearest first
    /// (SPEC §10).
    pub fn context_files(&self) -> Vec<ContextFile> {
        self.inner.pipeline.context_files()
    }

    pub(crate) fn pipeline(&self) -> &Pipeline {
        &self.inner.pipeline
    }

    /// The builder this was built from (see `watching.rs`).
    pub(crate) fn built_from(&self) -> &Builder {
        &self.inner.builder
    }

    /// See [`Inner::settings_files`].
    pub(crate) fn settings_file_paths(&self) -> &[PathBuf] {
        &self.inner.settings_files
    }

    /// The pipeline, while this is its only handle (just built).
    pub(crate) fn pipeline_mut(&mut self) -> Option<&mut Pipeline> {
        Arc::get_mut(&mut self.inner).map(|inner| &mut inner.pipeline)
    }
}
