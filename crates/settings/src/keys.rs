//! The known settings keys of each shape, and warnings for the others.

use figment::Figment;

use crate::error::{Warning, origin_of};
use skillpipe_core::suggest::closest;

/// Whether a `skills.*` key is a source toggle (`enable` and a capital:
/// `enableClaudeUser`), whose meaning the provider that declares it owns.
pub fn is_toggle_key(key: &str) -> bool {
    key != "enableSkillCommands"
        && key
            .strip_prefix("enable")
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// The `skills.*` keys of the settings themselves (toggles aside).
pub(crate) const SKILLS_KEYS: [&str; 9] = [
    "enabled",
    "enableSkillCommands",
    "customDirectories",
    "ignoredSkills",
    "includeSkills",
    "projectSkills",
    "trustedProjects",
    "catalogBudget",
    "warnIdenticalCopies",
];
// The catalogue's layout (issue 24): `skills.<key>` in the musepi shape,
// top-level in the pi shape, as `catalogBudget` is.
pub(crate) const CATALOG_KEYS: [&str; 4] = [
    "catalogMode",
    "catalogPins",
    "catalogMinDescription",
    "catalogPaths",
];
pub(crate) const SCAN_KEYS: [&str; 4] = ["max_depth", "max_dirs", "max_entries", "max_file_bytes"];
pub(crate) const PLUGINS_KEYS: [&str; 1] = ["paths"];
pub(crate) const TOP_KEYS: [&str; 14] = [
    "skills",
    "disabledExtensions",
    "disabledProviders",
    "noSkills",
    "extensions",
    "plugins",
    "scan",
    "enableSkillCommands",
    "packages",
    "providers",
    "projectSkills",
    "trustedProjects",
    "catalogBudget",
    "warnIdenticalCopies",
];

/// The `skills.*` keys of the settings, the invocation and catalogue
/// ones too.
fn skills_keys() -> impl Iterator<Item = &'static str> {
    SKILLS_KEYS
        .iter()
        .chain(&crate::invocation::KEYS)
        .chain(&CATALOG_KEYS)
        .copied()
}

/// The top-level keys, pi's invocation and catalogue ones too.
fn top_keys() -> impl Iterator<Item = &'static str> {
    TOP_KEYS
        .iter()
        .chain(&crate::invocation::KEYS)
        .chain(&CATALOG_KEYS)
        .copied()
}

pub(crate) fn known_keys() -> Vec<String> {
    let mut keys: Vec<String> = top_keys().map(str::to_owned).collect();
    keys.extend(skills_keys().map(|k| format!("skills.{k}")));
    keys.extend(SCAN_KEYS.iter().map(|k| format!("scan.{k}")));
    keys.extend(PLUGINS_KEYS.iter().map(|k| format!("plugins.{k}")));
    keys
}

pub(crate) fn unknown_key_warnings(figment: &Figment, pi_shape: bool) -> Vec<Warning> {
    let mut out = Vec::new();
    let skills: Vec<&str> = skills_keys().collect();
    let tables: &[(&str, &[&str])] = if pi_shape {
        &[("scan", &SCAN_KEYS), ("plugins", &PLUGINS_KEYS)]
    } else {
        &[
            ("skills", &skills),
            ("scan", &SCAN_KEYS),
            ("plugins", &PLUGINS_KEYS),
        ]
    };
    for (table, known) in tables {
        let Ok(value) = figment.find_value(table) else {
            continue;
        };
        let Some(dict) = value.as_dict() else {
            continue;
        };
        let toggles_here = *table == "skills";
        for key in dict
            .keys()
            .filter(|k| !(known.contains(&k.as_str()) || toggles_here && is_toggle_key(k)))
        {
            let dotted = format!("{table}.{key}");
            let origin = figment
                .find_metadata(&dotted)
                .map_or_else(|| "settings".to_owned(), origin_of);
            let hint =
                did_you_mean(closest(key, known.iter().copied()).map(|k| format!("{table}.{k}")));
            out.push(Warning {
                code: "unknown-setting",
                message: format!(
                    "{dotted} in {origin} is not a known setting; it is ignored{hint}"
                ),
            });
        }
    }
    out
}

/// An `unknown-setting` warning for a key given by an environment variable
/// or a `--set` flag (`origin`) whose first part is no settings key.
/// Unknown keys of files pass quietly: a settings file is shared with the
/// agent, whose own keys are not ours.
pub(crate) fn unknown_top_key(dotted: &str, origin: &str) -> Option<Warning> {
    let top = dotted.split('.').next().unwrap_or(dotted);
    if top_keys().any(|k| k == top) {
        return None;
    }
    let known = known_keys();
    let hint = did_you_mean(closest(dotted, known.iter().map(String::as_str)).map(str::to_owned));
    Some(Warning {
        code: "unknown-setting",
        message: format!("{dotted} in {origin} is not a known setting; it is ignored{hint}"),
    })
}

fn did_you_mean(suggestion: Option<String>) -> String {
    suggestion.map_or_else(String::new, |s| format!(" (did you mean {s}?)"))
}
