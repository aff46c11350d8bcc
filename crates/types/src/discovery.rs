//! What a discovery run returns: the skills and diagnostics, and, for
//! `explain` and `list --all`, every claim of a name and the [`Fate`] of
//! each copy that did not load.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::lossy;
use crate::reason::{Filter, Switch};
use crate::skill::{Level, Skill};

/// What discovery returns: never fails as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Discovery {
    /// The loaded skills, in pipeline order.
    pub skills: Vec<Skill>,
    /// Everything worth telling the user, in the order of SPEC §2.2.
    pub diagnostics: Vec<Diagnostic>,
    /// The copies of loaded names that did not load (collision losers,
    /// identical copies), in the order the pipeline met them: reachable as
    /// `name@provider[:level]`. Never serialised, so the `list --json`
    /// document (SPEC §12) is unchanged; `list --all` shows them on its own.
    #[serde(skip)]
    pub shadowed: Vec<ShadowedCopy>,
    /// The skills a setting removed, a switched-off source held, or that
    /// were the same real file as a loaded one, in the order met: filled
    /// only when the run was asked to keep them (`explain`, `list --all`).
    /// Never serialised, never addressable.
    #[serde(skip)]
    pub removed: Vec<ShadowedCopy>,
    /// Every file that claimed a name, in the order the pipeline met it,
    /// with the diagnostics of one that did not become a skill: filled
    /// only with [`Discovery::removed`].
    #[serde(skip)]
    pub claims: Vec<Claim>,
    /// How many roots were scanned (switched-off ones not counted).
    #[serde(skip)]
    pub roots_scanned: usize,
}

/// A file that claimed a name (see [`Discovery::claims`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The name it claimed (the name the filters saw).
    pub name: String,
    /// The file, as found.
    pub file_path: PathBuf,
    /// Its provider.
    pub provider: String,
    /// For a file that did not become a skill: its own diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// A pass of the pipeline (SPEC §5): which one a provider's skills go
/// through, and which one loaded a skill. Every provider of one pass runs
/// before any provider of the next, in [`Pass::ORDER`].
///
/// Serialised as the user-facing JSON spells it (`Winner.pass` in `list`
/// and `explain --json`, the Node binding's `"providers" | "custom" |
/// "managed"`). The plugin wire spells pass 1 `"authored"`; that spelling
/// lives in `skillpipe_core::wire` alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pass {
    /// Pass 1 (SPEC §5 step 2): the providers' authored skills, providers
    /// in priority order (pi: all its sources).
    Providers,
    /// Pass 2 (SPEC §5 step 5): custom directories and `--skill` paths,
    /// the one provider `custom` (no plugin may claim it).
    Custom,
    /// Pass 3 (SPEC §5 step 6): managed (auto-learned) skills, shadowed by
    /// any authored name.
    Managed,
}

impl Pass {
    /// The passes in the order the pipeline runs them: every provider of
    /// one pass before any of the next. The one place the order is written.
    pub const ORDER: [Pass; 3] = [Pass::Providers, Pass::Custom, Pass::Managed];

    /// The lower-case name used in JSON and text.
    pub fn as_str(self) -> &'static str {
        match self {
            Pass::Providers => "providers",
            Pass::Custom => "custom",
            Pass::Managed => "managed",
        }
    }
}

/// The copy that kept a name, as the fate of another copy names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Winner {
    /// Its skill file.
    #[serde(serialize_with = "lossy::path")]
    pub file_path: PathBuf,
    /// Its provider.
    pub provider: String,
    /// Its root's level.
    pub level: Level,
    /// Its provider's priority; `None` in the custom pass, which has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// The pass that loaded it.
    pub pass: Pass,
}

/// What became of a copy of a name that is not the copy loaded under it.
/// Serialised with its kind under `fate` (`{"fate": "shadowed", "by": …}`).
/// More fates may join (a copy with the winner's real path, one removed by
/// a setting), so a `match` needs a wildcard arm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fate", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Fate {
    /// A copy met after the winner, with other bytes: a `collision`.
    Shadowed {
        /// The copy that kept the name.
        by: Winner,
    },
    /// A copy whose `SKILL.md` bytes are the winner's: no `collision`
    /// (unless `warnIdenticalCopies` asks for it).
    Identical {
        /// The copy that kept the name.
        to: Winner,
    },
    /// The same real file as the loaded copy, reached by another path (a
    /// symlink, a root listed twice): no diagnostic.
    SameRealPath {
        /// The copy that was loaded from that file.
        of: Winner,
    },
    /// A name filter removed it.
    Removed {
        /// The filter, typed.
        reason: Filter,
        /// Its setting as the profile spells it (`skills.ignoredSkills`,
        /// `skills.includeSkills`, `disabledExtensions`): rendered from
        /// `reason` with the profile's [`SettingKeys`](crate::SettingKeys).
        setting: String,
        /// The entry that matched (for `includeSkills`, the list none of
        /// whose globs matched).
        pattern: String,
        /// The settings layer that set it (a file, `--set …`), when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        layer: Option<String>,
    },
    /// Its source was switched off: a toggle (`skills.enableClaudeUser`),
    /// `disabledProviders` or `--no-skills`.
    SwitchedOff {
        /// Why, typed.
        reason: Switch,
        /// The setting or flag as the profile spells it, rendered from
        /// `reason` with the profile's [`SettingKeys`](crate::SettingKeys).
        setting: String,
        /// The settings layer that set it, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        layer: Option<String>,
    },
}

impl Fate {
    /// The copy that kept the name, for a copy that lost it to another.
    pub fn winner(&self) -> Option<&Winner> {
        match self {
            Fate::Shadowed { by } => Some(by),
            Fate::Identical { to } => Some(to),
            Fate::SameRealPath { of } => Some(of),
            Fate::Removed { .. } | Fate::SwitchedOff { .. } => None,
        }
    }

    /// The fate as a short phrase: `shadowed by claude/user (priority
    /// 90, providers pass) ~/.claude/skills/x/SKILL.md`, `removed by
    /// skills.ignoredSkills "tmp-*" (from ~/.musepi/settings.json)`.
    pub fn describe(&self) -> String {
        let winner = |w: &Winner| {
            let priority = w
                .priority
                .map_or_else(String::new, |p| format!("priority {p}, "));
            format!(
                "{}/{} ({priority}{} pass) {}",
                w.provider,
                w.level,
                w.pass.as_str(),
                w.file_path.display()
            )
        };
        let from = |layer: &Option<String>| {
            layer
                .as_ref()
                .map_or_else(String::new, |l| format!(" (from {l})"))
        };
        match self {
            Fate::Shadowed { by } => format!("shadowed by {}", winner(by)),
            Fate::Identical { to } => format!("identical to {}", winner(to)),
            Fate::SameRealPath { of } => format!("same real path as {}", winner(of)),
            Fate::Removed {
                setting,
                pattern,
                layer,
                ..
            } => format!("removed by {setting} {pattern}{}", from(layer)),
            Fate::SwitchedOff { setting, layer, .. } => {
                format!("source switched off by {setting}{}", from(layer))
            }
        }
    }

    /// The kind, as JSON names it (`shadowed`, `removed`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Fate::Shadowed { .. } => "shadowed",
            Fate::Identical { .. } => "identical",
            Fate::SameRealPath { .. } => "same-real-path",
            Fate::Removed { .. } => "removed",
            Fate::SwitchedOff { .. } => "switched-off",
        }
    }
}

/// A skill that did not load because an earlier copy has its name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShadowedCopy {
    /// The copy, as it would have loaded.
    pub skill: Skill,
    /// Why it did not.
    pub fate: Fate,
}
