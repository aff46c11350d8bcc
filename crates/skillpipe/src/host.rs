//! The host API: [`Skillpipe::builder`] → [`Skillpipe`] → [`Discovered`].

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use skillpipe_core::budget::{CatalogMode, CatalogPaths, FittedCatalog, matches_pin};
use skillpipe_core::paths::Flavor;
use skillpipe_core::runtime::{
    self, CatalogOptions, ContextFile, Delivery, ExpandOptions, Expansion, ResolveError,
    ResolveOptions, Resource, SlashCommand,
};
use skillpipe_core::search::{SearchHit, SearchIndex};
use skillpipe_core::types::{Diagnostic, Discovery, ShadowedCopy, Skill};
use skillpipe_core::update::{CatalogUpdate, Rerender};
use skillpipe_core::{ProviderInfo, SkillProvider};
use skillpipe_settings::{Request, Settings, SettingsError, Warning};

use crate::engine::{Pipeline, SkillsOverride, warn_undeclared_toggles};

/// The agent whose skill system to reproduce (SPEC §7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// The provider pipeline (`.musepi/`, Claude Code's, Codex's, … roots).
    #[default]
    Musepi,
    /// pi: recursive scans with ignore files.
    Pi,
}

impl Profile {
    /// Every profile, in documentation order.
    pub const ALL: [Profile; 2] = [Profile::Musepi, Profile::Pi];

    /// The name used by `--profile` and `SKILLPIPE_PROFILE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Musepi => "musepi",
            Profile::Pi => "pi",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Profile {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| Error::Settings(SettingsError::UnknownProfile(s.to_owned())))
    }
}

/// Why a [`Skillpipe`] could not be built. Discovery itself never fails:
/// what it meets is reported as diagnostics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A setting is wrong (the message names the key and where it came from).
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// No home was given and the environment names none.
    #[error(
        "no home directory: none was given and the environment has none ($HOME; %USERPROFILE% on Windows)"
    )]
    NoHome,
    /// The process's working directory, needed for a default or a relative
    /// path, could not be read.
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    /// A plugin library given explicitly could not be loaded (the loader's
    /// reason).
    #[error("{0}")]
    Plugin(String),
}

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
    /// [`Builder::build`] with [`SettingsError::AppDir`].
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
        let request = Request {
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
            toggle_keys: skillpipe_core::provider::registered()
                .iter()
                .flat_map(|p| {
                    p.info()
                        .toggle_keys()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect(),
        };
        let mut settings = skillpipe_settings::load(&request)?;
        let settings_files = skillpipe_settings::settings_files(&request, &settings);
        if self.no_skills {
            settings.no_skills = true;
        }
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
        let mut pipeline = Pipeline::new(settings, &request, &skill_paths);
        plugins::add(&mut pipeline, &from_settings, &explicit)?;
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

#[cfg(feature = "plugins")]
mod plugins {
    use super::{Error, Pipeline};
    use std::path::PathBuf;

    /// Settings' libraries give `plugin-error` diagnostics (SPEC §11);
    /// explicit ones stop the build with the loader's reason.
    pub(super) fn add(
        pipeline: &mut Pipeline,
        from_settings: &[PathBuf],
        explicit: &[PathBuf],
    ) -> Result<(), Error> {
        let (mut loaded, diagnostics) = skillpipe_plugin_host::load_plugins(from_settings);
        for path in explicit {
            let plugin = skillpipe_plugin_host::load_plugin(path)
                .map_err(|e| Error::Plugin(e.to_string()))?;
            loaded.push((path.clone(), Box::new(plugin)));
        }
        if !loaded.is_empty() || !diagnostics.is_empty() {
            pipeline.add_plugins(loaded, diagnostics);
        }
        Ok(())
    }
}

#[cfg(not(feature = "plugins"))]
mod plugins {
    use super::{Error, Pipeline};
    use skillpipe_core::types::{Diagnostic, DiagnosticCode};
    use std::path::PathBuf;

    /// Without the `plugins` feature nothing loads; a library the settings
    /// name is reported, never skipped silently.
    pub(super) fn add(
        pipeline: &mut Pipeline,
        from_settings: &[PathBuf],
        explicit: &[PathBuf],
    ) -> Result<(), Error> {
        if let Some(path) = explicit.first() {
            return Err(Error::Plugin(format!(
                "{}: this build of skillpipe cannot load plugins (the `plugins` feature is off)",
                path.display()
            )));
        }
        let diagnostics = from_settings
            .iter()
            .map(|path| {
                Diagnostic::warning(
                    DiagnosticCode::PluginError,
                    format!(
                        "{}: not loaded: this host links skillpipe without the `plugins` feature",
                        path.display()
                    ),
                    path,
                )
            })
            .collect::<Vec<_>>();
        if !diagnostics.is_empty() {
            pipeline.add_plugins(Vec::new(), diagnostics);
        }
        Ok(())
    }
}

/// The process environment as a snapshot: variables whose name or value is
/// not UTF-8 are left out (a lossily converted value would name another
/// directory, so such a variable counts as unset).
fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The user's home as the reference hosts (Node's `os.homedir()`) find it:
/// `$HOME` on Unix; `%USERPROFILE%` on Windows, then `%HOMEDRIVE%%HOMEPATH%`.
/// Everything under it (`.claude`, `.codex`, `.config/opencode`, `.pi`,
/// `.agents`) is the same on every platform, as the hosts themselves use
/// it: none of them looks in `%APPDATA%` or `~/Library/Application Support`.
pub fn home_from_env(flavor: Flavor, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    match flavor {
        Flavor::Unix => set("HOME").map(PathBuf::from),
        Flavor::Windows => set("USERPROFILE").map(PathBuf::from).or_else(|| {
            let (drive, path) = (set("HOMEDRIVE")?, set("HOMEPATH")?);
            let mut home = drive;
            home.push(path);
            Some(PathBuf::from(home))
        }),
    }
}

struct Inner {
    profile: Profile,
    pipeline: Pipeline,
    /// What built it (see `watching.rs`).
    builder: Builder,
    /// Every settings file its settings may come from, present or not.
    settings_files: Vec<PathBuf>,
}

/// A configured discovery: settings read, providers and plugins loaded.
/// Cheap to clone and shareable between threads; [`Skillpipe::discover`]
/// may run as often as the host likes (each run reads the disk afresh).
///
/// ```no_run
/// use skillpipe::{Profile, Skillpipe};
/// # fn main() -> Result<(), skillpipe::Error> {
/// let skillpipe = Skillpipe::builder(Profile::Musepi)
///     .home("/home/me")
///     .cwd("/home/me/project")
///     .build()?;
/// let found = skillpipe.discover();
/// for skill in found.skills() {
///     println!("{} — {}", skill.name, skill.description);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Skillpipe {
    inner: Arc<Inner>,
}

impl fmt::Debug for Skillpipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skillpipe")
            .field("profile", &self.inner.profile)
            .field("pipeline", &self.inner.pipeline)
            .finish()
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
            skills_override: None,
        }
    }

    /// Runs discovery: the skills plus the diagnostics, never an error.
    pub fn discover(&self) -> Discovered {
        Discovered {
            discovery: self.inner.pipeline.load(),
            host: self.clone(),
            index: OnceLock::new(),
        }
    }

    /// Runs discovery keeping what it leaves out, for a host that shows
    /// why a skill is missing (`skillpipe explain`, `list --all`): the
    /// skills settings removed, those of switched-off sources (read for
    /// this call only), and copies of a loaded file
    /// ([`Discovered::removed`]), and every file that claimed a name
    /// ([`Discovered::claims`]). The skills and diagnostics are those of
    /// [`Skillpipe::discover`]; it costs a scan of the sources that are
    /// off.
    pub fn discover_all(&self) -> Discovered {
        Discovered {
            discovery: self.inner.pipeline.load_all(),
            host: self.clone(),
            index: OnceLock::new(),
        }
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.inner.profile
    }

    /// The home directory discovery runs for.
    pub fn home(&self) -> &std::path::Path {
        &self.inner.pipeline.context().home
    }

    /// The project directory discovery runs for.
    pub fn cwd(&self) -> &std::path::Path {
        &self.inner.pipeline.context().cwd
    }

    /// The merged settings.
    pub fn settings(&self) -> &Settings {
        self.inner.pipeline.settings()
    }

    /// What the settings layers reported while loading (unknown keys,
    /// untrusted project settings): show them once, as the CLI does on
    /// stderr. Discovery's own findings are in [`Discovered::diagnostics`].
    pub fn warnings(&self) -> &[Warning] {
        &self.settings().warnings
    }

    /// The active providers, in pipeline order.
    pub fn providers(&self) -> impl ExactSizeIterator<Item = &dyn SkillProvider> {
        self.inner.pipeline.providers().iter().map(|p| p.as_ref())
    }

    /// The settings keys that switch a provider's roots on or off (for a
    /// `providers` listing).
    pub fn toggle_keys(&self, info: &ProviderInfo) -> Vec<String> {
        self.inner.pipeline.toggle_keys(info)
    }

    /// The AGENTS.md files for the project directory, nearest first
    /// (SPEC §10).
    pub fn context_files(&self) -> Vec<ContextFile> {
        self.inner.pipeline.context_files()
    }

    pub(crate) fn pipeline(&self) -> &Pipeline {
        &self.inner.pipeline
    }

    /// The builder this was built from (see `watching.rs`).
    pub(crate) fn built_from(&self) -> &Builder {
        &self.inner.builder
    }

    /// See [`Inner::settings_files`].
    pub(crate) fn settings_file_paths(&self) -> &[PathBuf] {
        &self.inner.settings_files
    }

    /// The pipeline, while this is its only handle (just built).
    pub(crate) fn pipeline_mut(&mut self) -> Option<&mut Pipeline> {
        Arc::get_mut(&mut self.inner).map(|inner| &mut inner.pipeline)
    }
}

/// Whether the host gives the model a tool to read files; the catalogue
/// tells the model to use it, so without one it is empty (SPEC §8).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReadTool {
    /// The model can read files.
    #[default]
    Available,
    /// It cannot: the catalogue is empty.
    Absent,
}

/// What one discovery found, with what later calls need: the catalogue,
/// expansion, `skill://` reads and slash commands all answer from it.
#[derive(Debug, Clone)]
pub struct Discovered {
    discovery: Discovery,
    host: Skillpipe,
    /// The search index, built by the first search.
    index: OnceLock<SearchIndex>,
}

impl Discovered {
    /// The skills, in pipeline order.
    pub fn skills(&self) -> &[Skill] {
        &self.discovery.skills
    }

    /// Everything discovery reported, in the order of SPEC §2.2.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.discovery.diagnostics
    }

    /// The configuration this discovery ran with.
    pub fn skillpipe(&self) -> &Skillpipe {
        &self.host
    }

    /// The plain data, for a host that keeps it or serialises it.
    pub fn into_discovery(self) -> Discovery {
        self.discovery
    }

    /// The data, borrowed.
    pub fn discovery(&self) -> &Discovery {
        &self.discovery
    }

    /// The system-prompt catalogue in the profile's format (SPEC §8),
    /// within the `skills.catalogBudget` setting (0, the default: the full
    /// text) and laid out as the `skills.catalogMode`, `catalogPins`,
    /// `catalogMinDescription` and `catalogPaths` settings say.
    pub fn catalog(&self, read_tool: ReadTool) -> String {
        let settings = self.host.settings();
        if settings.catalog_budget > 0
            || settings.catalog.mode != CatalogMode::List
            || settings.catalog.paths != CatalogPaths::Absolute
        {
            return self.fit_catalog(read_tool, None).text;
        }
        let style = settings.profile.catalog;
        runtime::render_catalog(
            &self.discovery.skills,
            CatalogOptions {
                style,
                read_tool: read_tool == ReadTool::Available,
            },
        )
    }

    /// The catalogue within `budget` characters (`None`: the
    /// `skills.catalogBudget` setting; 0: no budget), with what was cut to
    /// fit it: descriptions shortened to one common cap, and only when the
    /// names alone do not fit, skills left out from the end of the
    /// pipeline order.
    pub fn fit_catalog(&self, read_tool: ReadTool, budget: Option<usize>) -> FittedCatalog {
        self.host.pipeline().fit_catalog(
            &self.discovery.skills,
            read_tool == ReadTool::Available,
            budget,
        )
    }

    /// At most `limit` skills ranked by relevance to `query`, best first
    /// (equal scores in pipeline order): BM25 over each skill's name,
    /// description and frontmatter `when_to_use`, with words of English and
    /// parts of identifiers (`pdf-forms`) as terms
    /// ([`skillpipe_core::search`]). Hidden skills are not found. The index
    /// is built by the first search of this discovery and kept.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit<'_>> {
        let skills = &self.discovery.skills;
        let index = self.index.get_or_init(|| SearchIndex::build(skills));
        index
            .search(query, limit)
            .into_iter()
            .filter_map(|hit| {
                Some(SearchHit {
                    skill: skills.get(hit.index)?,
                    score: hit.score,
                })
            })
            .collect()
    }

    /// What a host appends to the conversation when the skills changed
    /// from `previous` (the discovery its system prompt, or its last
    /// update, was rendered from), so that the system prompt stays as it
    /// was: the catalogue entries added and changed, the names removed, in
    /// the profile's format (empty when nothing the catalogue shows
    /// changed). `rerender` says when rendering the catalogue again is
    /// better: the catalogue's settings changed, more than half of its
    /// entries changed, or (with a budget) the previous catalogue and the
    /// message together exceed the budget.
    pub fn catalog_update(&self, previous: &Discovered) -> CatalogUpdate {
        let settings = self.host.settings();
        let before = previous.host.settings();
        let style = settings.profile.catalog;
        let layout = &settings.catalog;
        let pinned = |s: &Skill| matches_pin(&layout.pins, &s.name);
        let listed = |s: &Skill| !s.hidden && (layout.mode == CatalogMode::List || pinned(s));
        let searchable =
            |skills: &[Skill]| skills.iter().filter(|s| !s.hidden && !pinned(s)).count();
        let counts = (layout.mode == CatalogMode::Search)
            .then(|| (searchable(previous.skills()), searchable(self.skills())));
        let mut update = skillpipe_core::update::catalog_update(
            previous.skills(),
            self.skills(),
            CatalogOptions {
                style,
                read_tool: true,
            },
            &listed,
            counts,
        );
        if before.profile.catalog != style
            || before.catalog != *layout
            || before.catalog_budget != settings.catalog_budget
        {
            update.rerender = Some(Rerender::Settings);
            return update;
        }
        if update.is_empty() {
            return update;
        }
        let entries = previous.skills().iter().filter(|s| listed(s)).count();
        let touched = update.added.len() + update.changed.len() + update.removed.len();
        if 2 * touched > entries {
            update.rerender = Some(Rerender::MostChanged);
        } else if settings.catalog_budget > 0 {
            let shown = previous.fit_catalog(ReadTool::Available, None).length;
            if shown + update.message.chars().count() > settings.catalog_budget {
                update.rerender = Some(Rerender::BudgetExceeded);
            }
        }
        update
    }

    /// Expands `/skill:<name> [args]` (SPEC §9); `delivery` is how the host
    /// would send the text ([`Delivery::Prompt`] when idle, `Steer` or
    /// `FollowUp` while it streams a response). `<name>` may be an address,
    /// `name@provider[:level]`, reaching a copy that did not load.
    pub fn expand(&self, text: &str, delivery: Delivery) -> Expansion {
        let settings = self.host.settings();
        runtime::expand(
            &self.discovery,
            text,
            ExpandOptions {
                style: settings.profile.expansion,
                enabled: settings.enable_skill_commands,
                delivery,
                max_file_bytes: settings.limits.max_file_bytes,
                arguments: settings.arguments,
            },
        )
    }

    /// Reads a `skill://<name>/<path>` URL (SPEC §10), at most
    /// [`runtime::MAX_RESOURCE_BYTES`]; `skill://<name>@<provider>[:<level>]/…`
    /// reads a copy that did not load, inside its own folder.
    pub fn resolve(&self, url: &str) -> Result<Resource, ResolveError> {
        runtime::resolve(&self.discovery, url)
    }

    /// [`Discovered::resolve`] with explicit read options (a bound, or only
    /// the path and kind).
    pub fn resolve_with(&self, url: &str, opts: ResolveOptions) -> Result<Resource, ResolveError> {
        runtime::resolve_with(&self.discovery, url, opts)
    }

    /// The `skill:<name>` slash commands (SPEC §9).
    pub fn commands(&self) -> Vec<SlashCommand> {
        runtime::slash_commands(
            &self.discovery.skills,
            self.host.settings().enable_skill_commands,
        )
    }

    /// [`Discovered::commands`] and, after each, the copies of its name
    /// that did not load (`skill:<name>@<provider>[:<level>]`,
    /// `shadowed: true`): for listings, not for completion.
    pub fn all_commands(&self) -> Vec<SlashCommand> {
        runtime::shadowed_commands(&self.discovery, self.host.settings().enable_skill_commands)
    }

    /// The copies of loaded names that did not load, in pipeline order,
    /// each with its fate.
    pub fn shadowed(&self) -> &[ShadowedCopy] {
        &self.discovery.shadowed
    }

    /// What settings and switched-off sources removed, and copies of a
    /// loaded file by another path: empty but after
    /// [`Skillpipe::discover_all`].
    pub fn removed(&self) -> &[ShadowedCopy] {
        &self.discovery.removed
    }

    /// Every file that claimed a name, in pipeline order: empty but after
    /// [`Skillpipe::discover_all`].
    pub fn claims(&self) -> &[crate::Claim] {
        &self.discovery.claims
    }

    /// The loaded skills whose `metadata.requires` name `name` (the other
    /// direction is the skill's own `invocation.requires`).
    pub fn required_by(&self, name: &str) -> Vec<&Skill> {
        skillpipe_core::dependencies::required_by(&self.discovery.skills, name)
    }

    /// The `skills.visibility` entry that decides `name`'s visibility
    /// (its glob, value and layer), `None` when none matches (it is `on`).
    pub fn visibility_rule(&self, name: &str) -> Option<&crate::VisibilityRule> {
        self.host.settings().visibility.of(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, OsString)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn the_home_is_found_where_each_platform_keeps_it() {
        let all = env(&[
            ("HOME", "/home/me"),
            ("USERPROFILE", r"C:\Users\me"),
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\Users\me"),
        ]);
        assert_eq!(home_from_env(Flavor::Unix, &all), Some("/home/me".into()));
        // Windows: %USERPROFILE% first, as Node's os.homedir(); a HOME set
        // by Git Bash does not move it.
        assert_eq!(
            home_from_env(Flavor::Windows, &all),
            Some(r"C:\Users\me".into())
        );
        let drive = env(&[
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\Users\me"),
            ("USERPROFILE", ""),
        ]);
        assert_eq!(
            home_from_env(Flavor::Windows, &drive),
            Some(r"D:\Users\me".into())
        );
        assert_eq!(home_from_env(Flavor::Unix, &drive), None);
        assert_eq!(home_from_env(Flavor::Windows, env(&[("HOME", "/x")])), None);
    }

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
    fn profiles_parse_from_their_names_only() {
        for p in Profile::ALL {
            assert_eq!(p.as_str().parse::<Profile>().unwrap(), p);
        }
        let err = "Pi".parse::<Profile>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown profile `Pi` (expected one of: musepi, pi)"
        );
    }
}
