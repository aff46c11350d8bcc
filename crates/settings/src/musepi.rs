//! The musepi settings shape: `skills.*` toggles and lists,
//! `disabledExtensions`, `extensions`. Its key table ([`KEYS`]) and the
//! fill of [`Settings`] from the merged value.

use std::collections::BTreeMap;
use std::path::PathBuf;

use figment::Figment;
use figment::value::magic::RelativePathBuf;
use serde::Deserialize;
use serde_json::Value;
use skillpipe_core::ScanLimits;
use skillpipe_core::budget::{CatalogMode, CatalogPaths};

use crate::error::{SettingsError, origin_of};
use crate::figment_error::{describe, figment_error};
use crate::invocation::InvocationKeys;
use crate::keys::{FilterKeys, Key, ShapeKeys, is_toggle_key};
use crate::settings::{CatalogSettings, Settings};
use crate::trust::TrustKeys;

/// The musepi shape's keys: the skill settings under `skills.`, the
/// extension and provider lists at the top level.
pub(crate) const KEYS: ShapeKeys = ShapeKeys {
    invocation: InvocationKeys {
        arguments: "skills.arguments",
        visibility: "skills.visibility",
    },
    own: &[
        Key::Merged("skills.enabled"),
        Key::Merged("skills.enableSkillCommands"),
        Key::Merged("skills.customDirectories"),
        Key::Merged("skills.ignoredSkills"),
        Key::Merged("skills.includeSkills"),
        Key::Merged("skills.catalogBudget"),
        Key::Merged("skills.warnIdenticalCopies"),
        // The catalogue's layout (issue 24).
        Key::Merged("skills.catalogMode"),
        Key::Merged("skills.catalogPins"),
        Key::Merged("skills.catalogMinDescription"),
        Key::Merged("skills.catalogPaths"),
        Key::Toggles("skills"),
        Key::Merged("disabledExtensions"),
        Key::Merged("disabledProviders"),
        Key::Merged("noSkills"),
        Key::Merged("extensions"),
    ],
    trust: TrustKeys {
        project_skills: "skills.projectSkills",
        trusted_projects: "skills.trustedProjects",
    },
    filters: FilterKeys {
        toggle_prefix: "skills.",
        disabled_extensions: "disabledExtensions",
        ignored_skills: "skills.ignoredSkills",
        include_skills: "skills.includeSkills",
    },
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MusepiSkills {
    enabled: bool,
    enable_skill_commands: bool,
    custom_directories: Vec<RelativePathBuf>,
    ignored_skills: Vec<String>,
    include_skills: Vec<String>,
    catalog_budget: usize,
    warn_identical_copies: bool,
    // The catalogue's layout (issue 24).
    catalog_mode: CatalogMode,
    catalog_pins: Vec<String>,
    catalog_min_description: usize,
    catalog_paths: CatalogPaths,
    /// The other keys: the providers' toggles among them.
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
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
    settings.skill_commands = s.enable_skill_commands.into();
    settings.toggles = toggles(full, s.rest)?;
    settings.custom_directories = s.custom_directories.iter().map(resolve).collect();
    settings.ignored_skills = s.ignored_skills;
    settings.include_skills = s.include_skills;
    settings.catalog_budget = s.catalog_budget;
    settings.warn_identical_copies = s.warn_identical_copies;
    settings.catalog = CatalogSettings {
        mode: s.catalog_mode,
        pins: s.catalog_pins,
        min_description: s.catalog_min_description,
        paths: s.catalog_paths,
    };
    settings.disabled_extensions = raw.disabled_extensions;
    settings.disabled_providers = raw.disabled_providers;
    settings.no_skills = raw.no_skills;
    settings.extensions = raw.extensions.iter().map(resolve).collect();
    settings.limits = raw.scan;
    settings.providers = raw.providers;
    Ok(())
}

/// The `skills.enable<Source>` keys: each provider declares the toggles it
/// reads (`Toggle::key` in its crate), so any such key is taken here as a
/// boolean, and the host warns about one no active provider declares.
fn toggles(
    full: &Figment,
    rest: BTreeMap<String, Value>,
) -> Result<BTreeMap<String, bool>, SettingsError> {
    rest.into_iter()
        .filter(|(key, _)| is_toggle_key(key))
        .map(|(key, value)| match value {
            Value::Bool(on) => Ok((key, on)),
            other => {
                let dotted = format!("skills.{key}");
                let origin = full
                    .find_metadata(&dotted)
                    .map_or_else(|| "settings".to_owned(), origin_of);
                Err(SettingsError::Value {
                    key: dotted,
                    origin,
                    expected: "a boolean".to_owned(),
                    found: describe(&other),
                })
            }
        })
        .collect()
}
