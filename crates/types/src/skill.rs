//! A loaded skill and where it came from: its [`Source`] (provider, level,
//! root), the typed [`Invocation`] fields and the [`Visibility`] the
//! settings give it.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::frontmatter::Frontmatter;
use crate::lossy;
use crate::shared::{SharedPath, Text};

/// Where a root sits relative to the user: their home, the project, or a
/// path named explicitly (pi's settings entries and `--skill`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Under the user's home or agent directory.
    User,
    /// Under the project (cwd or its ancestors up to the repository root).
    Project,
    /// A path named explicitly in settings or on the command line.
    Path,
}

impl Level {
    /// The lower-case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::User => "user",
            Level::Project => "project",
            Level::Path => "path",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a skill came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The provider id, e.g. `claude`, `custom`, `path`.
    pub provider: String,
    /// The root's level.
    pub level: Level,
    /// The scanned directory; absent for a single file named as a path.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "lossy::option"
    )]
    pub root: Option<PathBuf>,
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The skill name (frontmatter `name`, else the folder or file stem).
    pub name: Text,
    /// The description, `""` when the root does not require one.
    pub description: Text,
    /// The skill file as found (absolute, not canonicalised); serialised
    /// lossily, as every path.
    pub file_path: SharedPath,
    /// The directory relative references resolve against (the file's
    /// folder, read from the same buffer, for a skill skillpipe loaded).
    pub base_dir: SharedPath,
    /// Which provider, level and root found it: shared by every skill of
    /// one root.
    pub source: Arc<Source>,
    /// `true` keeps it out of the catalogue (it still expands and resolves).
    pub hidden: bool,
    /// The frontmatter mapping as JSON, keys as written.
    pub frontmatter: Frontmatter,
    /// The typed invocation fields (Claude Code's `allowed-tools`,
    /// `user-invocable`, `arguments`, …), when the frontmatter has any;
    /// absent from JSON otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation: Option<Box<Invocation>>,
    /// How the settings show it (`skills.visibility`); absent from JSON
    /// when `on`.
    #[serde(default, skip_serializing_if = "Visibility::is_on")]
    pub visibility: Visibility,
}

impl Skill {
    /// Whether the user may call it as a slash command: `false` only for
    /// `user-invocable: false` (it stays in the catalogue).
    pub fn user_invocable(&self) -> bool {
        self.invocation
            .as_ref()
            .and_then(|i| i.user_invocable)
            .unwrap_or(true)
    }

    /// The description with `when_to_use` appended, as Claude Code lists
    /// it; the description alone without one.
    pub fn listing_description(&self) -> &str {
        self.invocation
            .as_ref()
            .and_then(|i| i.listing_description.as_deref())
            .unwrap_or(&self.description)
    }
}

/// The invocation fields of a skill's frontmatter, typed (Claude Code's
/// fields: the guide's "Frontmatter fields", `docs/src/fields.md`, says
/// what skillpipe does with each). Every field is `None` when the frontmatter does not set it, or
/// sets it to a value that could not be read (a `field-ignored` warning
/// says so); in JSON, absent keys are left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Invocation {
    /// `allowed-tools`: tool patterns pre-approved while the skill runs
    /// (`Read`, `Bash(git add *)`); a string is split at commas and
    /// spaces outside parentheses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_tools: Option<Vec<String>>,
    /// `disallowed-tools`: tool patterns removed while the skill runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// `user-invocable`: `false` removes the slash command (the skill
    /// stays in the catalogue).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_invocable: Option<bool>,
    /// `argument-hint`: shown while the user types the command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_hint: Option<String>,
    /// `arguments`: the names of the positional arguments, in order (`$name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<String>>,
    /// `model`: the model to use while the skill runs (`inherit` allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `effort`: `low`, `medium`, `high`, `xhigh` or `max`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
    /// `context`: `fork` runs the skill in a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `agent`: the subagent type of `context: fork`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `paths`: globs of the files the skill is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<String>>,
    /// `when_to_use`: more on when to use it, appended to the description
    /// in Claude Code's listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_to_use: Option<String>,
    /// With `when_to_use`: the description and it, as Claude Code lists
    /// them (joined by ` - `, at most 1,536 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listing_description: Option<String>,
    /// `metadata.requires`: the skills this one needs, as names or
    /// `name@provider[:level]` addresses (checked after discovery: a
    /// missing one is a `missing-dependency` warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires: Option<Vec<String>>,
}

/// Claude Code's listing cap of a description with `when_to_use`, in
/// characters.
pub const LISTING_DESCRIPTION_CHARS: usize = 1536;

/// How a skill is shown (setting `skills.visibility`, pi: `visibility`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Visibility {
    /// In the catalogue and a slash command (the default).
    #[default]
    On,
    /// In the catalogue by name only, without its description.
    NameOnly,
    /// A slash command, not in the catalogue (`hidden`).
    UserOnly,
    /// Not loaded.
    Off,
}

impl Visibility {
    /// Every value, from the least restrictive to the most.
    pub const ALL: [Visibility; 4] = [
        Visibility::On,
        Visibility::NameOnly,
        Visibility::UserOnly,
        Visibility::Off,
    ];

    /// The setting's text (`name-only`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::On => "on",
            Visibility::NameOnly => "name-only",
            Visibility::UserOnly => "user-only",
            Visibility::Off => "off",
        }
    }

    /// The value of a setting's text.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Whether it is the default, `on`.
    pub fn is_on(&self) -> bool {
        *self == Visibility::On
    }
}

impl fmt::Display for Visibility {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_without_root_omits_the_key() {
        let s = Source {
            provider: "path".into(),
            level: Level::Path,
            root: None,
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v, serde_json::json!({"provider": "path", "level": "path"}));
    }

    #[test]
    fn invocation_and_visibility_are_left_out_of_json_when_unset() {
        let mut skill = Skill {
            name: "x".into(),
            description: "d".into(),
            file_path: "/s/x/SKILL.md".into(),
            base_dir: "/s/x".into(),
            source: Arc::new(Source {
                provider: "native".into(),
                level: Level::User,
                root: None,
            }),
            hidden: false,
            frontmatter: Frontmatter::default(),
            invocation: None,
            visibility: Visibility::On,
        };
        let v = serde_json::to_value(&skill).unwrap();
        assert!(v.get("invocation").is_none() && v.get("visibility").is_none());
        assert!(skill.user_invocable());
        assert_eq!(skill.listing_description(), "d");
        let inv = Invocation {
            user_invocable: Some(false),
            listing_description: Some("d - w".into()),
            ..Default::default()
        };
        skill.invocation = Some(Box::new(inv));
        skill.visibility = Visibility::NameOnly;
        let v = serde_json::to_value(&skill).unwrap();
        assert_eq!(
            v["invocation"],
            serde_json::json!({"user_invocable": false, "listing_description": "d - w"})
        );
        assert_eq!(v["visibility"], "name-only");
        assert!(!skill.user_invocable());
        assert_eq!(skill.listing_description(), "d - w");
        let back: Skill = serde_json::from_value(v).unwrap();
        assert_eq!(back, skill);
        // The order is how restrictive each is.
        assert!(Visibility::On < Visibility::NameOnly && Visibility::UserOnly < Visibility::Off);
        for v in Visibility::ALL {
            assert_eq!(Visibility::parse(v.as_str()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
    }
}
