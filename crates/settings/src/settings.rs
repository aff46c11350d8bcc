//! The typed result of loading: [`Settings`] and the types of its values.
//! It imports no loading logic, so that every step of `load` (the trust
//! rules, the shapes, provenance) can fill or read it without a cycle.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use skillpipe_core::ScanLimits;
use skillpipe_core::budget::{CatalogMode, CatalogPaths};
use skillpipe_core::paths::canonical;
use skillpipe_core::runtime::SkillCommands;

use crate::error::Warning;
use crate::layer::{Effective, SettingsFile};
use crate::profile::Preset;

/// Typed, merged settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Profile name.
    pub profile_name: String,
    /// The profile preset (with `app_dir` overridden when asked).
    pub profile: Preset,
    /// The agent directory.
    pub agent_dir: PathBuf,
    /// The repository root, if any.
    pub repo_root: Option<PathBuf>,
    /// `skills.enabled`.
    pub enabled: bool,
    /// `skills.enableSkillCommands` (pi: top-level `enableSkillCommands`).
    pub skill_commands: SkillCommands,
    /// The `skills.enable<Source>` toggles that were set (an absent one is
    /// on; see [`Settings::toggle`]).
    pub toggles: BTreeMap<String, bool>,
    /// `skills.customDirectories`, resolved.
    pub custom_directories: Vec<PathBuf>,
    /// `skills.ignoredSkills`.
    pub ignored_skills: Vec<String>,
    /// `skills.includeSkills`.
    pub include_skills: Vec<String>,
    /// `skills.catalogBudget` (pi: top-level `catalogBudget`): the
    /// catalogue's size in characters; 0, the default, is unlimited.
    pub catalog_budget: usize,
    /// `skills.warnIdenticalCopies` (pi: top-level `warnIdenticalCopies`):
    /// a copy with the winner's bytes is a `collision` too.
    pub warn_identical_copies: bool,
    /// The catalogue's layout (`skills.catalogMode`, `catalogPins`,
    /// `catalogMinDescription`, `catalogPaths`; pi: top-level).
    pub catalog: CatalogSettings,
    /// `disabledExtensions`.
    pub disabled_extensions: Vec<String>,
    /// `disabledProviders`.
    pub disabled_providers: Vec<String>,
    /// `noSkills`.
    pub no_skills: bool,
    /// `extensions`, resolved.
    pub extensions: Vec<PathBuf>,
    /// `plugins.paths`, resolved, from trusted layers only.
    pub plugin_paths: Vec<PathBuf>,
    /// `mcp.servers`, from trusted layers only: the MCP servers whose
    /// skills the `mcp` provider reads (an object of server ids; empty
    /// when none is named).
    pub mcp_servers: serde_json::Map<String, Value>,
    /// `scan.*`.
    pub limits: ScanLimits,
    /// pi: `skills` entries from every file, in file order.
    pub pi_skills: Vec<Entry>,
    /// pi: `packages` entries from every file, in file order.
    pub pi_packages: Vec<Entry>,
    /// `providers.*`: free-form per-provider settings (plugins read theirs).
    pub providers: Value,
    /// `projectSkills` (trusted layers only).
    pub project_skills: ProjectSkills,
    /// `trustedProjects`, resolved (trusted layers only).
    pub trusted_projects: Vec<PathBuf>,
    /// The project: the repository root, else the project directory,
    /// canonical.
    pub project_dir: PathBuf,
    /// Warnings to print on stderr.
    pub warnings: Vec<Warning>,
    /// Every effective value of the profile's keys, with the layer it
    /// came from (`skillpipe settings`).
    pub effective: Vec<Effective>,
    /// The user and project settings files, found or not.
    pub files: Vec<SettingsFile>,
    // The invocation settings (`invocation.rs`).
    /// `skills.arguments` (pi: top-level `arguments`): `append` (the
    /// default) or `claude`.
    pub arguments: skillpipe_core::arguments::Arguments,
    /// `skills.visibility` (pi: top-level `visibility`), each entry with
    /// its layer, and the trusted layers' alone.
    pub visibility: skillpipe_core::visibility::Rules,
}

impl Settings {
    /// Whether the source toggle `skills.<key>` is on (absent: on).
    pub fn toggle(&self, key: &str) -> bool {
        self.toggles.get(key).copied().unwrap_or(true)
    }

    /// Whether project-level skills load: `projectSkills` is `all`, or the
    /// project is listed in `trustedProjects` (canonical comparison).
    pub fn project_trusted(&self) -> bool {
        self.project_skills == ProjectSkills::All
            || self
                .trusted_projects
                .iter()
                .any(|p| canonical(p) == self.project_dir)
    }

    /// The settings before the shape fills in its values: every setting
    /// at its default but those read from the trusted layers.
    pub(crate) fn unfilled(
        profile_name: String,
        profile: Preset,
        agent_dir: PathBuf,
        repo_root: Option<PathBuf>,
        project_dir: PathBuf,
        trusted: TrustedOnly,
        warnings: Vec<Warning>,
    ) -> Self {
        Settings {
            profile_name,
            profile,
            agent_dir,
            repo_root,
            enabled: true,
            skill_commands: SkillCommands::On,
            toggles: BTreeMap::new(),
            custom_directories: Vec::new(),
            ignored_skills: Vec::new(),
            include_skills: Vec::new(),
            catalog_budget: 0,
            warn_identical_copies: false,
            catalog: CatalogSettings::default(),
            disabled_extensions: Vec::new(),
            disabled_providers: Vec::new(),
            no_skills: false,
            extensions: Vec::new(),
            plugin_paths: trusted.plugin_paths,
            mcp_servers: trusted.mcp_servers,
            limits: ScanLimits::default(),
            pi_skills: Vec::new(),
            pi_packages: Vec::new(),
            providers: Value::Null,
            project_skills: trusted.project_skills,
            trusted_projects: trusted.trusted_projects,
            project_dir,
            warnings,
            effective: Vec::new(),
            files: Vec::new(),
            arguments: Default::default(),
            visibility: Default::default(),
        }
    }
}

/// The catalogue's layout: `skills.catalogMode`, `skills.catalogPins`,
/// `skills.catalogMinDescription`, `skills.catalogPaths` (pi: the same
/// keys at the top level, as `catalogBudget`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogSettings {
    /// `catalogMode`: `"list"` (every visible skill, the default) or
    /// `"search"` (the pinned ones, and a line saying how many more there
    /// are for the host's search tool).
    pub mode: CatalogMode,
    /// `catalogPins`: name globs whose skills keep their whole description
    /// under any budget (and are the ones listed in search mode).
    pub pins: Vec<String>,
    /// `catalogMinDescription`: the fewest characters a cut description
    /// keeps; below it skills are left out from the end instead (0: none).
    pub min_description: usize,
    /// `catalogPaths`: `"absolute"` (the default) or `"compact"` (long
    /// shared roots written once, pi's format).
    pub paths: CatalogPaths,
}

/// `projectSkills`: which projects' project-level skills load.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProjectSkills {
    /// Every project's (the default).
    #[default]
    All,
    /// Only those of projects listed in `trustedProjects`.
    Trusted,
}

/// A pi `skills` or `packages` entry, as written, with where it resolves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// As written.
    pub entry: String,
    /// The directory relative entries resolve against.
    pub base: PathBuf,
    /// The settings file that declared it.
    pub file: PathBuf,
    /// Whether that file is a project settings file (untrusted: a root it
    /// names outside the project is scanned with no more than the default
    /// bounds, and none of its roots load in an untrusted project).
    #[serde(default)]
    pub project: bool,
}

/// What is read from the trusted layers only.
pub(crate) struct TrustedOnly {
    /// `plugins.paths`, resolved.
    pub(crate) plugin_paths: Vec<PathBuf>,
    /// `mcp.servers`.
    pub(crate) mcp_servers: serde_json::Map<String, Value>,
    /// `projectSkills`.
    pub(crate) project_skills: ProjectSkills,
    /// `trustedProjects`, resolved.
    pub(crate) trusted_projects: Vec<PathBuf>,
}
