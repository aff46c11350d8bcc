//! What a [`SettingsShape`] decides: its key table (`musepi.rs`, `pi.rs`,
//! from which the known keys, the trust keys and the provenance's keys
//! are derived) and how [`Settings`] is filled from the merged value.
//! `load` asks the shape; no other module tells the shapes apart.

use std::path::PathBuf;

use figment::Figment;
use figment::value::magic::RelativePathBuf;
use skillpipe_core::types::SettingKeys;

use crate::error::SettingsError;
use crate::file::FileLayer;
use crate::keys::ShapeKeys;
use crate::profile::SettingsShape;
use crate::settings::Settings;
use crate::trust::TrustKeys;
use crate::{invocation, musepi, pi};

impl SettingsShape {
    /// Every shape: the environment and `--set` flags are spelt against
    /// the keys of all of them.
    pub(crate) const ALL: [SettingsShape; 2] = [SettingsShape::Musepi, SettingsShape::Pi];

    /// The shape's key table.
    pub(crate) fn keys(self) -> &'static ShapeKeys {
        match self {
            SettingsShape::Musepi => &musepi::KEYS,
            SettingsShape::Pi => &pi::KEYS,
        }
    }

    /// Where the shape has `projectSkills` and `trustedProjects`.
    pub fn trust_keys(self) -> TrustKeys {
        self.keys().trust
    }

    /// How the shape spells the keys a switched-off source or a removed
    /// skill names (its fate, `-v`): its filter keys, its trust and
    /// visibility keys, and the two every shape has at the top level.
    pub fn setting_keys(self) -> SettingKeys {
        let keys = self.keys();
        SettingKeys {
            toggle_prefix: keys.filters.toggle_prefix,
            disabled_providers: "disabledProviders",
            no_skills: "--no-skills",
            project_skills: keys.trust.project_skills,
            disabled_extensions: keys.filters.disabled_extensions,
            ignored_skills: keys.filters.ignored_skills,
            include_skills: keys.filters.include_skills,
            visibility: keys.invocation.visibility,
        }
    }

    /// Fills the shape's settings, the invocation ones too, from the
    /// merged value (`full`), the trusted layers alone and each file.
    pub(crate) fn fill(
        self,
        full: &Figment,
        trusted: &Figment,
        files: &[FileLayer],
        resolve: &impl Fn(&RelativePathBuf) -> PathBuf,
        settings: &mut Settings,
    ) -> Result<(), SettingsError> {
        match self {
            SettingsShape::Musepi => musepi::fill(full, resolve, settings)?,
            SettingsShape::Pi => pi::fill(full, files, settings)?,
        }
        invocation::fill(full, trusted, self.keys().invocation, settings)
    }
}
