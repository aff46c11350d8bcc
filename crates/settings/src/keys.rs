//! The known settings keys of each shape, and warnings for the others.

use figment::Figment;

use crate::Warning;
use crate::error::origin_of;

pub(crate) const TOGGLES: [&str; 7] = [
    "enableCodexUser",
    "enableClaudeUser",
    "enableClaudeProject",
    "enablePiUser",
    "enablePiProject",
    "enableAgentsUser",
    "enableAgentsProject",
];

pub(crate) const SKILLS_KEYS: [&str; 14] = [
    "enabled",
    "enableSkillCommands",
    "enableCodexUser",
    "enableClaudeUser",
    "enableClaudeProject",
    "enablePiUser",
    "enablePiProject",
    "enableAgentsUser",
    "enableAgentsProject",
    "customDirectories",
    "ignoredSkills",
    "includeSkills",
    "projectSkills",
    "trustedProjects",
];
pub(crate) const SCAN_KEYS: [&str; 4] = ["max_depth", "max_dirs", "max_entries", "max_file_bytes"];
pub(crate) const PLUGINS_KEYS: [&str; 1] = ["paths"];
pub(crate) const TOP_KEYS: [&str; 12] = [
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
];

pub(crate) fn known_keys() -> Vec<String> {
    let mut keys: Vec<String> = TOP_KEYS.iter().map(|k| (*k).to_owned()).collect();
    keys.extend(SKILLS_KEYS.iter().map(|k| format!("skills.{k}")));
    keys.extend(SCAN_KEYS.iter().map(|k| format!("scan.{k}")));
    keys.extend(PLUGINS_KEYS.iter().map(|k| format!("plugins.{k}")));
    keys
}

pub(crate) fn unknown_key_warnings(figment: &Figment, pi_shape: bool) -> Vec<Warning> {
    let mut out = Vec::new();
    let tables: &[(&str, &[&str])] = if pi_shape {
        &[("scan", &SCAN_KEYS), ("plugins", &PLUGINS_KEYS)]
    } else {
        &[
            ("skills", &SKILLS_KEYS),
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
        for key in dict.keys().filter(|k| !known.contains(&k.as_str())) {
            let dotted = format!("{table}.{key}");
            let origin = figment
                .find_metadata(&dotted)
                .map_or_else(|| "settings".to_owned(), origin_of);
            out.push(Warning {
                code: "unknown-setting",
                message: format!("{dotted} in {origin} is not a known setting; it is ignored"),
            });
        }
    }
    out
}
