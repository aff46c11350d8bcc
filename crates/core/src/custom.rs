//! The custom pass (SPEC §5 step 5) as a provider: the settings' custom
//! directories and the `--skill` paths, each taken as [`custom_root`]
//! says. The pipeline runs it as pass 2 like any provider, and the watcher
//! lists (and wraps) the same provider, so both always agree on what a
//! path is.

use std::path::{Path, PathBuf};

use skillpipe_types::{Diagnostic, DiagnosticCode, Level};

use crate::provider::{
    Description, DiscoveryContext, NamedBy, Pass, ProviderInfo, Root, RootItem, SkillProvider,
    Sources,
};
use crate::scan::{Found, ScanMode};

/// The provider id of the custom pass (reserved: no plugin may take it).
pub const CUSTOM: &str = "custom";

/// Where a custom path came from: it decides how the path is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomFrom {
    /// `customDirectories` in the settings: a folder of skills.
    Settings,
    /// `--skill` on the command line (or `Builder::skill_path`).
    CommandLine,
}

/// What the custom pass scans for one of its paths, decided as the run
/// reaches it. A settings directory is a custom directory: scanned one
/// level deep, a description required. A `--skill` path: a folder holding
/// a `SKILL.md` is that one skill (its root scanned as pi scans one: the
/// skill file stops the walk), any other folder a custom directory, and a
/// path where nothing is a `path-not-found` warning, as in pi.
pub fn custom_root(path: &Path, from: CustomFrom) -> RootItem {
    if from == CustomFrom::Settings {
        return Root::new(path, Level::User)
            .description(Description::Required)
            .into();
    }
    if std::fs::metadata(path).is_err() {
        return RootItem::Diagnostic(Diagnostic::warning(
            DiagnosticCode::PathNotFound,
            "skill path does not exist",
            path,
        ));
    }
    let mode = if path.join("SKILL.md").is_file() {
        ScanMode::Recursive
    } else {
        ScanMode::OneLevel
    };
    Root::new(path, Level::User)
        .mode(mode)
        .description(Description::Required)
        .named_by(NamedBy::CommandLine)
        .into()
}

/// The custom pass's provider: its paths in order, the settings' first.
#[derive(Debug, Clone)]
pub struct CustomDirectories {
    info: ProviderInfo,
    paths: Vec<(PathBuf, CustomFrom)>,
}

impl CustomDirectories {
    /// The provider of the settings' `directories` and the command line's
    /// `paths`.
    pub fn new(directories: Vec<PathBuf>, paths: Vec<PathBuf>) -> Self {
        let mut info = ProviderInfo::builtin(CUSTOM, "Custom directories", i32::MIN);
        info.pass = Pass::Custom;
        CustomDirectories {
            info,
            paths: directories
                .into_iter()
                .map(|d| (d, CustomFrom::Settings))
                .chain(paths.into_iter().map(|p| (p, CustomFrom::CommandLine)))
                .collect(),
        }
    }
}

impl SkillProvider for CustomDirectories {
    fn info(&self) -> &ProviderInfo {
        &self.info
    }

    /// Each path as [`custom_root`] takes it, decided afresh at every
    /// listing; `--no-skills` leaves out the settings' directories (the
    /// command line's still load).
    fn roots(&self, cx: &DiscoveryContext) -> Vec<RootItem> {
        self.paths
            .iter()
            .filter(|(_, from)| cx.sources == Sources::All || *from == CustomFrom::CommandLine)
            .map(|(path, from)| custom_root(path, *from))
            .collect()
    }

    fn reload_file(&self, cx: &DiscoveryContext, root: &Root, path: &Path) -> Option<Found> {
        crate::provider::reload_with(&self.info.id, cx, root, path)
    }
}
