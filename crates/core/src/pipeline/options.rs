//! What the settings say to the pipeline: the profile's pipeline data
//! ([`PipelineRules`], [`FinalOrder`]) and [`Options`], with the name
//! filters and the settings they come from.

use std::collections::BTreeMap;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use skillpipe_types::{Filter, SettingKeys};

use crate::provider::Toggle;

/// How the final list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinalOrder {
    /// By lower-cased name, then exact name (musepi).
    Name,
    /// As discovered (pi).
    Discovery,
}

/// The pipeline part of a profile preset (`config/profiles/*.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PipelineRules {
    /// Final order.
    pub order: FinalOrder,
    /// Whether pass 2 (custom directories and `--skill` as custom) runs.
    pub custom_pass: bool,
    /// Whether `enabled: false` in frontmatter skips a file.
    pub honor_enabled: bool,
    /// The toggle keys whose OR enables a `fallback` root.
    #[serde(default)]
    pub fallback_toggles: Vec<String>,
}

/// What the settings say to the pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The profile's pipeline data.
    pub profile: PipelineRules,
    /// `skills.enabled`.
    pub enabled: bool,
    /// Toggle values by key (missing keys are true).
    pub toggles: BTreeMap<String, bool>,
    /// `disabledExtensions` entries (`skill:<name>` are name filters).
    pub disabled_extensions: Vec<String>,
    /// `skills.ignoredSkills` globs.
    pub ignored: Vec<String>,
    /// `skills.includeSkills` globs.
    pub include: Vec<String>,
    /// The project, when its project-level skills may not load
    /// (`projectSkills = "trusted"` and it is not trusted): roots of
    /// [`Level::Project`](skillpipe_types::Level::Project) are not scanned, and one `untrusted-project`
    /// warning naming it stands at the first such root's place.
    pub untrusted_project: Option<PathBuf>,
    /// How the profile's settings spell the keys a reason names, for the
    /// fates and `-v` (the settings layer's, from its shape).
    pub keys: SettingKeys,
    /// `skills.warnIdenticalCopies`: a copy whose `SKILL.md` bytes are
    /// the winner's is a `collision` too (by default it is quiet).
    pub warn_identical_copies: bool,
    /// Keep what the run leaves out ([`Discovery::removed`](skillpipe_types::Discovery::removed) and
    /// [`Discovery::claims`](skillpipe_types::Discovery::claims)): switched-off sources are scanned too, and
    /// filtered skills kept with their fate (`explain`, `list --all`).
    /// Off, the run does nothing more than it must.
    pub keep_removed: bool,
    /// `skills.visibility`: `off` removes a name as the name filters do;
    /// a loaded skill takes its visibility (`user-only` hides it).
    pub visibility: crate::visibility::Rules,
}

impl Options {
    /// Options that enable everything, for a profile whose settings spell
    /// their keys as `keys` says.
    pub fn new(profile: PipelineRules, keys: SettingKeys) -> Self {
        Options {
            profile,
            keys,
            enabled: true,
            toggles: BTreeMap::new(),
            disabled_extensions: Vec::new(),
            ignored: Vec::new(),
            include: Vec::new(),
            untrusted_project: None,
            warn_identical_copies: false,
            keep_removed: false,
            visibility: Default::default(),
        }
    }

    /// The first filter that removes `name`, and the layer when the entry
    /// knows it (a visibility entry does).
    pub(super) fn removed_by(&self, name: &str) -> Option<(Filter, Option<String>)> {
        if let Some(filter) = self.removed_by_filter(name) {
            return Some((filter, None));
        }
        let rule = self.visibility_off(name)?;
        let filter = Filter::Visibility {
            pattern: rule.pattern.clone(),
        };
        Some((filter, Some(rule.layer.clone())))
    }

    /// The `skills.visibility` entry that switches `name` off.
    pub(super) fn visibility_off(&self, name: &str) -> Option<&crate::visibility::Rule> {
        if self.visibility.is_empty() {
            return None;
        }
        self.visibility
            .of(name)
            .filter(|r| r.visibility == skillpipe_types::Visibility::Off)
    }

    /// The first name filter that removes `name`.
    pub(super) fn removed_by_filter(&self, name: &str) -> Option<Filter> {
        if let Some(e) = self
            .disabled_extensions
            .iter()
            .find(|e| e.strip_prefix("skill:") == Some(name))
        {
            return Some(Filter::DisabledExtension { entry: e.clone() });
        }
        if let Some(g) = self
            .ignored
            .iter()
            .find(|g| glob_match::glob_match(g, name))
        {
            return Some(Filter::Ignored { glob: g.clone() });
        }
        (!self.kept_by_name_globs(name)).then(|| Filter::IncludeNone {
            globs: self.include.clone(),
        })
    }

    /// The toggle keys that must all be false for `t` to switch its root
    /// off (none for [`Toggle::Always`]), as providers declare them.
    pub fn toggle_keys(&self, t: &Toggle) -> Vec<String> {
        match t {
            Toggle::Always => Vec::new(),
            Toggle::Key(k) => vec![k.to_string()],
            Toggle::Fallback => self.profile.fallback_toggles.clone(),
        }
    }

    pub(super) fn toggle_on(&self, t: &Toggle) -> bool {
        match t {
            Toggle::Always => true,
            Toggle::Key(k) => self.toggles.get(k.as_ref()).copied().unwrap_or(true),
            Toggle::Fallback => self
                .profile
                .fallback_toggles
                .iter()
                .any(|k| self.toggles.get(k).copied().unwrap_or(true)),
        }
    }

    pub(super) fn disabled_by_extension(&self, name: &str) -> bool {
        self.disabled_extensions
            .iter()
            .any(|e| e.strip_prefix("skill:") == Some(name))
    }

    /// Whether the name globs and `skills.visibility` keep `name`.
    pub(super) fn kept_by_globs(&self, name: &str) -> bool {
        self.kept_by_name_globs(name) && self.visibility_off(name).is_none()
    }

    pub(super) fn kept_by_name_globs(&self, name: &str) -> bool {
        if self.ignored.iter().any(|g| glob_match::glob_match(g, name)) {
            return false;
        }
        self.include.is_empty() || self.include.iter().any(|g| glob_match::glob_match(g, name))
    }
}
