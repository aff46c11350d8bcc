//! The [`Builder`]: what a [`Skillpipe`](crate::Skillpipe) is made from,
//! with the default of every input (`build.rs` makes it).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use skillpipe_core::SkillProvider;
use skillpipe_core::types::Skill;

use super::profile::Profile;
use crate::engine::SkillsOverride;

/// Which plugin libraries a [`Builder`] loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SettingsPlugins {
    Load,
    Skip,
}

/// Configures a [`Skillpipe`](crate::Skillpipe): the world discovery runs in.
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
    pub(super) profile: Profile,
    pub(super) app_dir: Option<String>,
    pub(super) home: Option<PathBuf>,
    pub(super) cwd: Option<PathBuf>,
    pub(super) env: Option<BTreeMap<String, String>>,
    pub(super) config_files: Vec<PathBuf>,
    pub(super) sets: Vec<String>,
    pub(super) skill_paths: Vec<PathBuf>,
    pub(super) no_skills: bool,
    pub(super) settings_plugins: SettingsPlugins,
    pub(super) plugins: Vec<PathBuf>,
    pub(super) providers: Vec<Arc<dyn SkillProvider>>,
    pub(super) skills_override: Option<SkillsOverride>,
    pub(super) files: skillpipe_core::observe::FileObserver,
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
    /// ([`Error::DuplicateProvider`](crate::Error::DuplicateProvider)). Its toggles are settings keys like
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

    /// Hands `hear` each skill file a discovery reads that `wants` wants
    /// (asked with the stamp of the open file: its length, device, inode
    /// and times), whole, with that stamp: for a host that needs the
    /// files' bytes (the MCP server hashes each `SKILL.md` it lists) and
    /// would otherwise open and read them a second time. A wanted file is
    /// read to its end, not only to the end of its frontmatter. Both run
    /// on the scanning threads, on Unix only (elsewhere neither is called).
    pub fn on_file_read(
        mut self,
        wants: impl Fn(&skillpipe_core::observe::FileStamp) -> bool + Send + Sync + 'static,
        hear: impl Fn(&skillpipe_core::observe::FileRead<'_>) + Send + Sync + 'static,
    ) -> Self {
        self.files = skillpipe_core::observe::FileObserver::new(wants, hear);
        self
    }
}

impl Builder {
    /// A builder with every input at its default (see [`Skillpipe::builder`](crate::Skillpipe::builder)).
    pub(super) fn new(profile: Profile) -> Builder {
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
            files: Default::default(),
        }
    }
}
