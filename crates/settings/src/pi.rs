//! The pi settings shape: top-level keys, and the `skills` and `packages`
//! lists read from each file (in file order, each entry with its file).
//! Its key table ([`KEYS`]) and the fill of [`Settings`].

use std::path::Path;

use figment::Figment;
use serde::Deserialize;
use serde_json::Value;
use skillpipe_core::ScanLimits;
use skillpipe_core::budget::{CatalogMode, CatalogPaths};

use crate::error::SettingsError;
use crate::figment_error::{describe, figment_error};
use crate::file::FileLayer;
use crate::invocation::InvocationKeys;
use crate::keys::{FilterKeys, Key, ShapeKeys};
use crate::settings::{CatalogSettings, Entry, Settings};
use crate::trust::TrustKeys;

/// The pi shape's keys: all at the top level, where `skills` is a list of
/// paths (read per file, as `packages` is).
pub(crate) const KEYS: ShapeKeys = ShapeKeys {
    invocation: InvocationKeys {
        arguments: "arguments",
        visibility: "visibility",
    },
    own: &[
        Key::Merged("enableSkillCommands"),
        Key::Merged("disabledProviders"),
        Key::Merged("noSkills"),
        // The catalogue's layout (issue 24).
        Key::Merged("catalogMode"),
        Key::Merged("catalogPins"),
        Key::Merged("catalogMinDescription"),
        Key::Merged("catalogPaths"),
        // Read, and not shown by `skillpipe settings` (as before the
        // tables; the musepi shape shows its own).
        Key::Unlisted("catalogBudget"),
        Key::Unlisted("warnIdenticalCopies"),
        Key::PerFile("skills"),
        Key::PerFile("packages"),
    ],
    trust: TrustKeys {
        project_skills: "projectSkills",
        trusted_projects: "trustedProjects",
    },
    // pi has no toggles and no name filters: these name nothing a pi run
    // can meet, and are spelt as pi spells its keys (top level).
    filters: FilterKeys {
        toggle_prefix: "",
        disabled_extensions: "disabledExtensions",
        ignored_skills: "ignoredSkills",
        include_skills: "includeSkills",
    },
};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PiRaw {
    enable_skill_commands: bool,
    catalog_budget: usize,
    warn_identical_copies: bool,
    // The catalogue's layout (issue 24).
    catalog_mode: CatalogMode,
    catalog_pins: Vec<String>,
    catalog_min_description: usize,
    catalog_paths: CatalogPaths,
    disabled_providers: Vec<String>,
    no_skills: bool,
    scan: ScanLimits,
    #[serde(default)]
    providers: Value,
}

/// Fills the pi shape's settings from the merged value and the files.
pub(crate) fn fill(
    full: &Figment,
    files: &[FileLayer],
    settings: &mut Settings,
) -> Result<(), SettingsError> {
    let raw: PiRaw = full.extract().map_err(|e| figment_error(full, e))?;
    settings.skill_commands = raw.enable_skill_commands.into();
    settings.catalog_budget = raw.catalog_budget;
    settings.warn_identical_copies = raw.warn_identical_copies;
    settings.catalog = CatalogSettings {
        mode: raw.catalog_mode,
        pins: raw.catalog_pins,
        min_description: raw.catalog_min_description,
        paths: raw.catalog_paths,
    };
    settings.disabled_providers = raw.disabled_providers;
    settings.no_skills = raw.no_skills;
    settings.limits = raw.scan;
    settings.providers = raw.providers;
    for f in files {
        read_pi_entries(f, settings)?;
    }
    Ok(())
}

fn read_pi_entries(f: &FileLayer, settings: &mut Settings) -> Result<(), SettingsError> {
    let doc = f.json();
    let base = f.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let bad = |key: &str, expected: &str, found: String| SettingsError::Value {
        key: key.to_owned(),
        origin: f.path.display().to_string(),
        expected: expected.to_owned(),
        found,
    };
    let entry = |s: &str| Entry {
        entry: s.to_owned(),
        base: base.clone(),
        file: f.path.clone(),
        project: f.project(),
    };
    let skills = match doc.get("skills") {
        None | Some(Value::Null) => None,
        Some(Value::Object(legacy)) => legacy
            .get("customDirectories")
            .map(|list| ("skills.customDirectories", list)),
        Some(other) => Some(("skills", other)),
    };
    if let Some((key, list)) = skills {
        let list = list
            .as_array()
            .ok_or_else(|| bad(key, "an array of paths", describe(list)))?;
        for (i, item) in list.iter().enumerate() {
            let s = item
                .as_str()
                .ok_or_else(|| bad(&format!("{key}[{i}]"), "a path (a string)", describe(item)))?;
            settings.pi_skills.push(entry(s));
        }
    }
    if let Some(list) = doc.get("packages").filter(|v| !v.is_null()) {
        let list = list
            .as_array()
            .ok_or_else(|| bad("packages", "an array", describe(list)))?;
        for (i, item) in list.iter().enumerate() {
            let expected = "a path or a {\"source\": path} object";
            let s = match item {
                Value::String(s) => s.as_str(),
                Value::Object(o) => match o.get("source") {
                    Some(Value::String(s)) => s.as_str(),
                    Some(other) => {
                        return Err(bad(
                            &format!("packages[{i}].source"),
                            "a path (a string)",
                            describe(other),
                        ));
                    }
                    None => {
                        let found = "an object without \"source\"".to_owned();
                        return Err(bad(&format!("packages[{i}]"), expected, found));
                    }
                },
                _ => return Err(bad(&format!("packages[{i}]"), expected, describe(item))),
            };
            settings.pi_packages.push(entry(s));
        }
    }
    Ok(())
}
