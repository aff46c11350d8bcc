//! Why a source was switched off ([`Switch`]) or a skill removed by a
//! name filter ([`Filter`]): typed, as the pipeline decides them, and
//! rendered to the settings keys of a profile by [`SettingKeys`], which
//! the settings layer fills from its shape. The text is made once, from
//! these values, and never parsed back.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Why a source (a provider, or one of its roots) was switched off.
/// Serialised with its kind under `kind` (`{"kind": "toggle", "keys":
/// ["enableClaudeUser"]}`). More reasons may join, so a `match` needs a
/// wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Switch {
    /// Toggle settings, every one false: one key for a root gated by its
    /// own toggle, the profile's fallback keys for a fallback root, the
    /// provider's toggles for a provider switched off as a whole. Keys as
    /// providers declare them (`enableClaudeUser`).
    Toggle {
        /// The keys.
        keys: Vec<String>,
    },
    /// `disabledProviders` lists the provider.
    DisabledProvider {
        /// The provider's id.
        provider: String,
    },
    /// `--no-skills` (or the setting `noSkills`): only command-line roots
    /// load.
    NoSkills,
    /// The project is not trusted and the settings ask for trust before
    /// its project-level skills load.
    UntrustedProject {
        /// The project directory.
        #[serde(serialize_with = "crate::lossy::path")]
        project: PathBuf,
    },
}

/// Which name filter removed a skill.
/// Serialised with its kind under `kind` (`{"kind": "ignored", "glob":
/// "tmp-*"}`). More filters may join, so a `match` needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Filter {
    /// A `disabledExtensions` entry `skill:<name>`.
    DisabledExtension {
        /// The entry, as written (`skill:deploy`).
        entry: String,
    },
    /// A `skills.ignoredSkills` glob.
    Ignored {
        /// The glob that matched.
        glob: String,
    },
    /// `skills.includeSkills` is set and none of its globs matched.
    IncludeNone {
        /// Every glob of the list.
        globs: Vec<String>,
    },
    /// A `skills.visibility` entry `"<glob>": "off"`.
    Visibility {
        /// The glob that matched.
        pattern: String,
    },
}

/// How a profile's settings spell the keys a [`Switch`] or [`Filter`]
/// names: the settings layer fills it from its shape (`skills.ignoredSkills`
/// in musepi's, top-level `projectSkills` in pi's), so that every message
/// names the key the user writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingKeys {
    /// Put before a toggle key (`skills.` → `skills.enableClaudeUser`).
    pub toggle_prefix: &'static str,
    /// The list of switched-off providers.
    pub disabled_providers: &'static str,
    /// The command-line flag (or setting) that skips all but `--skill`.
    pub no_skills: &'static str,
    /// The setting that asks for trust before project skills load.
    pub project_skills: &'static str,
    /// `skill:<name>` entries remove a name.
    pub disabled_extensions: &'static str,
    /// Globs that remove names.
    pub ignored_skills: &'static str,
    /// Globs that keep only the names they match.
    pub include_skills: &'static str,
    /// Per-name visibility (`off` removes a name).
    pub visibility: &'static str,
}

impl Switch {
    /// The settings key behind it, for finding the layer that set it (a
    /// pair of toggles names its first key); the flag for `--no-skills`.
    pub fn key(&self, keys: &SettingKeys) -> String {
        match self {
            Switch::Toggle { keys: toggles } => toggles
                .first()
                .map_or_else(String::new, |k| format!("{}{k}", keys.toggle_prefix)),
            Switch::DisabledProvider { .. } => keys.disabled_providers.to_owned(),
            Switch::NoSkills => keys.no_skills.to_owned(),
            Switch::UntrustedProject { .. } => keys.project_skills.to_owned(),
        }
    }

    /// The setting as a fate and `-v` name it: `skills.enableCodexUser =
    /// false`, `disabledProviders "github"`, `--no-skills`,
    /// `skills.projectSkills = "trusted" (/p is not trusted)`.
    pub fn setting(&self, keys: &SettingKeys) -> String {
        match self {
            Switch::Toggle { keys: toggles } => {
                let spelt: Vec<String> = toggles
                    .iter()
                    .map(|k| format!("{}{k}", keys.toggle_prefix))
                    .collect();
                format!("{} = false", spelt.join(" and "))
            }
            Switch::DisabledProvider { provider } => {
                format!("{} \"{provider}\"", keys.disabled_providers)
            }
            Switch::NoSkills => keys.no_skills.to_owned(),
            Switch::UntrustedProject { project } => format!(
                "{} = \"trusted\" ({} is not trusted)",
                keys.project_skills,
                project.display()
            ),
        }
    }
}

impl Filter {
    /// The settings key of the filter.
    pub fn key(&self, keys: &SettingKeys) -> &'static str {
        match self {
            Filter::DisabledExtension { .. } => keys.disabled_extensions,
            Filter::Ignored { .. } => keys.ignored_skills,
            Filter::IncludeNone { .. } => keys.include_skills,
            Filter::Visibility { .. } => keys.visibility,
        }
    }

    /// The entry that matched, as a fate quotes it: `"tmp-*"`, `(matches
    /// none of "a-*", "b")`, `"deploy": "off"`.
    pub fn pattern(&self) -> String {
        match self {
            Filter::DisabledExtension { entry } => format!("\"{entry}\""),
            Filter::Ignored { glob } => format!("\"{glob}\""),
            Filter::IncludeNone { globs } => {
                let quoted: Vec<String> = globs.iter().map(|g| format!("\"{g}\"")).collect();
                format!("(matches none of {})", quoted.join(", "))
            }
            Filter::Visibility { pattern } => format!("\"{pattern}\": \"off\""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: SettingKeys = SettingKeys {
        toggle_prefix: "s.",
        disabled_providers: "dp",
        no_skills: "--none",
        project_skills: "ps",
        disabled_extensions: "de",
        ignored_skills: "ig",
        include_skills: "in",
        visibility: "vis",
    };

    #[test]
    fn a_switch_is_spelt_with_the_keys_it_is_given() {
        let pair = Switch::Toggle {
            keys: vec!["enableA".into(), "enableB".into()],
        };
        assert_eq!(pair.setting(&KEYS), "s.enableA and s.enableB = false");
        assert_eq!(pair.key(&KEYS), "s.enableA");
        let off = Switch::DisabledProvider {
            provider: "github".into(),
        };
        assert_eq!(off.setting(&KEYS), "dp \"github\"");
        assert_eq!(Switch::NoSkills.setting(&KEYS), "--none");
        let trust = Switch::UntrustedProject {
            project: PathBuf::from("/p"),
        };
        assert_eq!(trust.setting(&KEYS), "ps = \"trusted\" (/p is not trusted)");
        assert_eq!(trust.key(&KEYS), "ps");
    }

    #[test]
    fn a_filter_quotes_its_entry() {
        let none = Filter::IncludeNone {
            globs: vec!["a-*".into(), "b".into()],
        };
        assert_eq!(none.pattern(), "(matches none of \"a-*\", \"b\")");
        assert_eq!(none.key(&KEYS), "in");
        let vis = Filter::Visibility {
            pattern: "x*".into(),
        };
        assert_eq!(vis.pattern(), "\"x*\": \"off\"");
        assert_eq!(
            serde_json::to_value(&vis).ok(),
            Some(serde_json::json!({"kind": "visibility", "pattern": "x*"}))
        );
    }
}
