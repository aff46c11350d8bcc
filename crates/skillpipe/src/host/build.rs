//! How a [`Builder`] makes a [`Skillpipe`]: the process's defaults
//! filled in, the settings read, the plugins and the host's providers
//! loaded, the pipeline made.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use skillpipe_core::SkillProvider;
use skillpipe_core::paths::Flavor;
use skillpipe_settings::Request;

use super::builder::{Builder, SettingsPlugins};
use super::env::{home_from_env, process_env};
use super::error::Error;
use super::plugins;
use super::skillpipe::{Inner, Skillpipe};
use crate::engine::{Pipeline, declared_toggle_keys, warn_undeclared_toggles};

impl Builder {
    /// Reads the settings, loads the plugins and builds the providers.
    pub fn build(self) -> Result<Skillpipe, Error> {
        // Kept, so that a watcher can build again after a settings change.
        let again = self.clone();
        // The home is read as bytes from the process: a home that is not
        // UTF-8 is still a home (the snapshot leaves such variables out).
        let home_var = |name: &str| match &self.env {
            Some(map) => map.get(name).map(OsString::from),
            None => std::env::var_os(name),
        };
        let home = match self.home {
            Some(h) => h,
            None => home_from_env(Flavor::HOST, home_var).ok_or(Error::NoHome)?,
        };
        let env = self.env.unwrap_or_else(process_env);
        let process_cwd = std::cell::OnceCell::new();
        let absolute = |p: PathBuf| -> Result<PathBuf, Error> {
            if p.is_absolute() {
                return Ok(p);
            }
            let base = match process_cwd.get() {
                Some(base) => base,
                None => {
                    let cwd = std::env::current_dir().map_err(Error::CurrentDir)?;
                    process_cwd.get_or_init(|| cwd)
                }
            };
            Ok(base.join(p))
        };
        let cwd = match self.cwd {
            Some(c) => absolute(c)?,
            None => std::env::current_dir().map_err(Error::CurrentDir)?,
        };
        let home = absolute(home)?;
        for (what, path) in [("home", &home), ("cwd", &cwd)] {
            let len = path.as_os_str().len();
            if len > skillpipe_core::paths::LONGEST_PATH {
                return Err(Error::PathTooLong { what, len });
            }
        }
        let mut request = Request {
            profile: self.profile.as_str().to_owned(),
            app_dir: self.app_dir,
            home,
            cwd,
            env,
            config_files: self
                .config_files
                .into_iter()
                .map(absolute)
                .collect::<Result<_, _>>()?,
            sets: self.sets,
            toggle_keys: declared_toggle_keys(
                skillpipe_core::provider::registered()
                    .iter()
                    .map(|p| p.as_ref()),
            )
            .collect(),
        };
        let mut settings = skillpipe_settings::load(&request)?;
        let skill_paths: Vec<String> = self
            .skill_paths
            .into_iter()
            // `~/…` is the home's, resolved with the settings' rules.
            .map(|p| match p.starts_with("~") {
                true => Ok(p),
                false => absolute(p),
            })
            .map(|p| p.map(|p| p.to_string_lossy().into_owned()))
            .collect::<Result<_, _>>()?;
        let explicit: Vec<PathBuf> = self
            .plugins
            .into_iter()
            .map(absolute)
            .collect::<Result<_, _>>()?;
        let from_settings = match self.settings_plugins {
            SettingsPlugins::Load => settings.plugin_paths.clone(),
            SettingsPlugins::Skip => Vec::new(),
        };
        let mut loaded = plugins::load(&from_settings, &explicit)?;
        loaded.extend(self.providers.iter().map(|p| {
            let id = p.info().id.clone();
            let boxed: Box<dyn SkillProvider> = Box::new(Arc::clone(p));
            (PathBuf::from(format!("(in-process provider {id})")), boxed)
        }));
        // The toggles of plugins and the host's providers are known only
        // now: when one is new and the environment has `SKILLPIPE_*`
        // variables, the settings are read again with its key among the
        // known spellings (environment names are case-blind, so
        // `SKILLPIPE_SKILLS__ENABLETEAMSKILLS` must be matched to
        // `enableTeamSkills`).
        let late: Vec<String> = loaded
            .toggle_keys()
            .filter(|k| !request.toggle_keys.contains(k))
            .collect();
        if !late.is_empty() && request.env.keys().any(|k| k.starts_with("SKILLPIPE_")) {
            request.toggle_keys.extend(late);
            settings = skillpipe_settings::load(&request)?;
        }
        let settings_files = skillpipe_settings::settings_files(&request, &settings);
        if self.no_skills {
            settings.no_skills = true;
        }
        let mut pipeline = Pipeline::new(settings, &request, &skill_paths);
        // A host's provider whose id is taken is the host's mistake: it
        // fails the build (a plugin's is a `plugin-error` diagnostic).
        let mut taken: Vec<&str> = pipeline
            .providers()
            .iter()
            .map(|p| p.info().id.as_str())
            .chain(loaded.plugin_ids())
            .chain([skillpipe_core::custom::CUSTOM])
            .collect();
        for p in &self.providers {
            let id = p.info().id.as_str();
            if taken.contains(&id) {
                return Err(Error::DuplicateProvider(id.to_owned()));
            }
            taken.push(id);
        }
        loaded.add_to(&mut pipeline);
        warn_undeclared_toggles(&mut pipeline);
        if let Some(hook) = self.skills_override {
            pipeline.set_skills_override(hook);
        }
        pipeline.set_file_observer(self.files);
        Ok(Skillpipe {
            inner: Arc::new(Inner {
                profile: self.profile,
                pipeline,
                builder: again,
                settings_files,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use skillpipe_settings::SettingsError;

    use super::*;
    use crate::host::profile::Profile;

    #[test]
    fn an_app_dir_that_is_a_path_fails_the_build() {
        let t = std::env::temp_dir();
        for bad in ["", "..", "/etc", "a/b"] {
            let err = Skillpipe::builder(Profile::Musepi)
                .home(&t)
                .cwd(&t)
                .env([("HOME", "/nowhere")])
                .no_plugins()
                .app_dir(bad)
                .build()
                .unwrap_err();
            assert!(
                matches!(&err, Error::Settings(SettingsError::AppDir { name, .. }) if name == bad),
                "{bad:?}: {err}"
            );
        }
    }

    #[test]
    fn a_home_or_cwd_longer_than_any_system_opens_fails_the_build() {
        let t = std::env::temp_dir();
        let huge = PathBuf::from(format!("/{}", "d/".repeat(1 << 20)));
        for (home, cwd, what) in [(&huge, &t, "home"), (&t, &huge, "cwd")] {
            let err = Skillpipe::builder(Profile::Musepi)
                .home(home)
                .cwd(cwd)
                .env([("HOME", "/nowhere")])
                .no_plugins()
                .build()
                .unwrap_err();
            assert!(
                matches!(&err, Error::PathTooLong { what: w, len } if *w == what && *len > 2 << 20),
                "{what}: {err}"
            );
            assert!(
                err.to_string().contains("longer than any system opens"),
                "{err}"
            );
        }
    }
}
