//! The musepi settings shape: `skills.*` toggles and lists,
//! `disabledExtensions`, `extensions`.

use std::path::PathBuf;

use figment::Figment;
use figment::value::magic::RelativePathBuf;
use serde::Deserialize;
use serde_json::Value;
use skillpipe_core::ScanLimits;

use crate::error::figment_error;
use crate::keys::TOGGLES;
use crate::{Settings, SettingsError};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MusepiSkills {
    enabled: bool,
    enable_skill_commands: bool,
    enable_codex_user: bool,
    enable_claude_user: bool,
    enable_claude_project: bool,
    enable_pi_user: bool,
    enable_pi_project: bool,
    enable_agents_user: bool,
    enable_agents_project: bool,
    custom_directories: Vec<RelativePathBuf>,
    ignored_skills: Vec<String>,
    include_skills: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MusepiRaw {
    skills: MusepiSkills,
    disabled_extensions: Vec<String>,
    disabled_providers: Vec<String>,
    no_skills: bool,
    extensions: Vec<RelativePathBuf>,
    scan: ScanLimits,
    #[serde(default)]
    providers: Value,
}

/// Fills the musepi shape's settings from the merged value.
pub(crate) fn fill(
    full: &Figment,
    resolve: &impl Fn(&RelativePathBuf) -> PathBuf,
    settings: &mut Settings,
) -> Result<(), SettingsError> {
    let raw: MusepiRaw = full.extract().map_err(|e| figment_error(full, e))?;
    let s = raw.skills;
    settings.enabled = s.enabled;
    settings.enable_skill_commands = s.enable_skill_commands;
    let values = [
        s.enable_codex_user,
        s.enable_claude_user,
        s.enable_claude_project,
        s.enable_pi_user,
        s.enable_pi_project,
        s.enable_agents_user,
        s.enable_agents_project,
    ];
    settings.toggles = TOGGLES
        .iter()
        .map(|k| (*k).to_owned())
        .zip(values)
        .collect();
    settings.custom_directories = s.custom_directories.iter().map(resolve).collect();
    settings.ignored_skills = s.ignored_skills;
    settings.include_skills = s.include_skills;
    settings.disabled_extensions = raw.disabled_extensions;
    settings.disabled_providers = raw.disabled_providers;
    settings.no_skills = raw.no_skills;
    settings.extensions = raw.extensions.iter().map(resolve).collect();
    settings.limits = raw.scan;
    settings.providers = raw.providers;
    Ok(())
}
