//! How a [`Skillpipe`] is made: [`Skillpipe::builder`] and the
//! [`Builder`], with the default of every input.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skillpipe_core::SkillProvider;
use skillpipe_core::paths::Flavor;
use skillpipe_core::types::Skill;
use skillpipe_settings::Request;

use super::env::{home_from_env, process_env};
use super::error::Error;
use super::plugins;
use super::profile::Profile;
use super::skillpipe::{Inner, Skillpipe};
use crate::engine::{Pipeline, SkillsOverride, declared_toggle_keys, warn_undeclared_toggles};

/// Which plugin libraries a [`Builder`] loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SettingsPlugins {
    Load,
    Skip,
}

/// Configures a [`Skillpipe`]: the world discovery runs in.
///
/// Every input has the default a host expects: the process environment,
/// its working directory as the project, the home the environment names,
/// the plugins the user's trusted settings name. Relative paths given to
/// [`Builder::cwd`], [`Builder::home`], [`Builder::config`],
/// [`Builder::plugin`] and [`Builder::skill_path`] resolve against the
/// process's working directory.
#[derive(Clone)]
#[must_use]
pub struct Builder {
    profile: Profile,
    app_dir: Option<String>,
    home: Option<PathBuf>,
    cwd: Option<PathBuf>,
    env: Option<BTreeMap<String, String>>,
    config_files: Vec<PathBuf>,
    sets: Vec<String>,
    skill_paths: Vec<PathBuf>,
    no_skills: bool,
    settings_plugins: SettingsPlugins,
    plugins: Vec<PathBuf>,
    providers: Vec<Arc<dyn SkillProvider>>,
    skills_override: Option<SkillsOverride>,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("profile", &self.profile)
            .field("home", &self.home)
            .field("cwd", &self.cwd)
            .field("config_files", &self.config_files)
            .field("sets", &self.sets)
            .field("skill_paths", &self.skill_paths)
            .field("plugins", &self.plugins)
            .finish_non_exhaustive()
    }
}

impl Builder {
    /// The home directory (default: from the environment, `$HOME`; on
    /// Windows `%USERPROFILE%`, then `%HOMEDRIVE%%HOMEPATH%`).
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// The project directory (default: the process's working directory).
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// The environment snapshot providers and settings read
    /// (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_CONFIG_HOME`,
    /// `SKILLPIPE_*`, …), replacing the process environment, which is the
    /// default (its variables that are not UTF-8 are left out).
    pub fn env<K, V>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: Into<String>,
        V: Into<String>,
    {
        self.env = Some(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }

    /// musepi: the app directory name (default `.musepi`; e.g. `.omp`):
    /// one directory name, joined to the home and to each project
    /// directory. A path, an empty name, `.` or `..` fails
    /// [`Builder::build`] with [`SettingsError::AppDir`](skillpipe_settings::SettingsError::AppDir).
    pub fn app_dir(mut self, name: impl Into<String>) -> Self {
        self.app_dir = Some(name.into());
        self
    }

    /// A settings file (`.json` or `.toml`) layered over the user and
    /// project settings, as `--config`; repeatable, later wins.
    pub fn config(mut self, file: impl Into<PathBuf>) -> Self {
        self.config_files.push(file.into());
        self
    }

    /// One setting, `key.path=VALUE` (a JSON value, else a string), as
    /// `--set`; wins over every other layer.
    pub fn set(mut self, assignment: impl Into<String>) -> Self {
        self.sets.push(assignment.into());
        self
    }

    /// A skill directory (pi: also a `.md` file) added for this host, as
    /// `--skill`; loads even with [`Builder::no_skills`].
    pub fn skill_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.skill_paths.push(path.into());
        self
    }

    /// [`Builder::skill_path`] for each of `paths`.
    pub fn skill_paths<P: Into<PathBuf>>(mut self, paths: impl IntoIterator<Item = P>) -> Self {
        self.skill_paths.extend(paths.into_iter().map(Into::into));
        self
    }

    /// Load no skills except those of [`Builder::skill_path`] (`noSkills`).
    pub fn no_skills(mut self) -> Self {
        self.no_skills = true;
        self
    }

    /// Do not load the plugin libraries the settings name
    /// (`plugins.paths`); those given with [`Builder::plugin`] still load.
    pub fn no_plugins(mut self) -> Self {
        self.settings_plugins = SettingsPlugins::Skip;
        self
    }

    /// A provider plugin library to load, as `--plugin`; one that cannot
    /// be loaded fails [`Builder::build`] with the loader's reason. Needs
    /// the `plugins` feature: without it, `build` fails for any.
    pub fn plugin(mut self, library: impl Into<PathBuf>) -> Self {
        self.plugins.push(library.into());
        self
    }

    /// A provider of the host's own, run in process: no plugin library, no
    /// fork of this crate. It takes part as a plugin's provider does
    /// (SPEC §11): after the built-ins of equal priority, in the order
    /// given; `disabledProviders` switches it off; given a built-in's id
    /// that `disabledProviders` lists, it takes that built-in's place. An
    /// id already active fails [`Builder::build`]
    /// ([`Error::DuplicateProvider`]). Its toggles are settings keys like
    /// any provider's, from every layer (`SKILLPIPE_SKILLS__…` too), in
    /// the musepi settings shape (pi's settings have no toggles: there a
    /// toggled root is always on, as the built-ins' are).
    pub fn provider(mut self, provider: impl SkillProvider + 'static) -> Self {
        self.providers.push(Arc::new(provider));
        self
    }

    /// A hook that may replace the loaded skills before they are used
    /// (SPEC §13): it runs at the end of every discovery.
    pub fn skills_override(
        mut self,
        hook: impl Fn(Vec<Skill>) -> Vec<Skill> + Send + Sync + 'static,
    ) -> Self {
        self.skills_override = Some(Arc::new(hook));
        self
    }

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

impl Skillpipe {
    /// Starts configuring discovery for `profile`.
    pub fn builder(profile: Profile) -> Builder {
        Builder {
            profile,
            app_dir: None,
            home: None,
            cwd: None,
            env: None,
            config_files: Vec::new(),
            sets: Vec::new(),
            skill_paths: Vec::new(),
            no_skills: false,
            settings_plugins: SettingsPlugins::Load,
            plugins: Vec::new(),
            providers: Vec::new(),
            skills_override: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use skillpipe_settings::SettingsError;

    use super::*;

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
}
